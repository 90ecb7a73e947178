//! Binary search on a sorted array: the "Binary search" program of the AutoDebug paper
//! (path-based weakest preconditions), with a wrong variable in a branch predicate.
//! See `fault.json`.

use autodebug_runtime::{ensures, requires};

/// The index of `x` in the sorted slice `a`, or `None` when `x` does not occur in it.
#[requires(forall i in 1..a.len() => a[i - 1] <= a[i], "the array must be sorted")]
#[ensures(ret.is_some() -> a[ret.unwrap()] == x)]
#[ensures(ret.is_none() -> !a.contains(&x))]
pub fn binary_search(a: &[i32], x: i32) -> Option<usize> {
    let mut lo = 0;
    let mut hi = a.len();
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if a[mid] == x {
            return Some(mid);
        }
        if a[lo] < x {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const PRIMES: [i32; 10] = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29];

    #[test]
    fn finds_the_middle_element() {
        assert_eq!(binary_search(&PRIMES, 13), Some(5));
        assert_eq!(binary_search(&[1, 2, 3], 2), Some(1));
    }

    #[test]
    fn finds_the_first_element() {
        assert_eq!(binary_search(&PRIMES, 2), Some(0));
        assert_eq!(binary_search(&[4, 8], 4), Some(0));
    }

    #[test]
    fn finds_elements_right_of_the_middle() {
        assert_eq!(binary_search(&PRIMES, 17), Some(6));
        assert_eq!(binary_search(&PRIMES, 29), Some(9));
    }

    #[test]
    fn finds_elements_left_of_the_middle() {
        assert_eq!(binary_search(&PRIMES, 5), Some(2));
        assert_eq!(binary_search(&PRIMES, 7), Some(3));
    }

    #[test]
    fn finds_every_element() {
        for (i, &p) in PRIMES.iter().enumerate() {
            assert_eq!(binary_search(&PRIMES, p), Some(i));
        }
    }

    #[test]
    fn absent_elements_are_not_found() {
        assert_eq!(binary_search(&PRIMES, 1), None);
        assert_eq!(binary_search(&PRIMES, 4), None);
        assert_eq!(binary_search(&PRIMES, 30), None);
        assert_eq!(binary_search(&[], 0), None);
    }

    #[test]
    #[should_panic(expected = "Pre-condition of binary_search violated")]
    fn rejects_unsorted_array() {
        binary_search(&[3, 1, 2], 1);
    }
}
