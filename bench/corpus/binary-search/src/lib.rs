//! Searches in a sorted array: the "Binary search" program of the AutoDebug paper
//! (path-based weakest preconditions), with companions written in the same style — the
//! first position not below a value, the first position above it, the number of
//! occurrences, the last element not above a value, and the insertion of a value that keeps
//! the array sorted.

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
        if a[mid] < x {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    None
}

/// The first index whose element is not smaller than `x` (`a.len()` when there is none).
#[requires(forall i in 1..a.len() => a[i - 1] <= a[i], "the array must be sorted")]
#[ensures(ret <= a.len())]
#[ensures(forall i in 0..ret => a[i] < x)]
#[ensures(forall i in ret..a.len() => a[i] >= x)]
pub fn lower_bound(a: &[i32], x: i32) -> usize {
    let mut lo = 0;
    let mut hi = a.len();
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if a[mid] < x {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

/// The first index whose element is greater than `x` (`a.len()` when there is none).
#[requires(forall i in 1..a.len() => a[i - 1] <= a[i], "the array must be sorted")]
#[ensures(ret <= a.len())]
#[ensures(forall i in 0..ret => a[i] <= x)]
#[ensures(forall i in ret..a.len() => a[i] > x)]
pub fn upper_bound(a: &[i32], x: i32) -> usize {
    let mut lo = 0;
    let mut hi = a.len();
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if a[mid] <= x {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

/// How many times `x` occurs in the sorted slice `a`.
#[requires(forall i in 1..a.len() => a[i - 1] <= a[i], "the array must be sorted")]
#[ensures(ret == a.iter().filter(|&&y| y == x).count())]
pub fn count(a: &[i32], x: i32) -> usize {
    let first = lower_bound(a, x);
    let end = upper_bound(a, x);
    end - first
}

/// The index of the last element of `a` that is not greater than `x`, or `None` when every
/// element is greater.
#[requires(forall i in 1..a.len() => a[i - 1] <= a[i], "the array must be sorted")]
#[ensures(ret.is_some() -> a[ret.unwrap()] <= x)]
#[ensures(ret.is_some() -> ret.unwrap() + 1 == a.len() || a[ret.unwrap() + 1] > x)]
#[ensures(ret.is_none() -> a.is_empty() || a[0] > x)]
pub fn floor_index(a: &[i32], x: i32) -> Option<usize> {
    let end = upper_bound(a, x);
    if end == 0 { None } else { Some(end - 1) }
}

/// Inserts `x` into the sorted vector `v` after any equal elements, keeping it sorted, and
/// returns the index where it went.
#[requires(forall i in 1..v.len() => v[i - 1] <= v[i], "the vector must be sorted")]
#[ensures(v.len() == old(v.len()) + 1)]
#[ensures(v[ret] == x)]
#[ensures(forall i in 1..v.len() => v[i - 1] <= v[i])]
pub fn insert_sorted(v: &mut Vec<i32>, x: i32) -> usize {
    let pos = upper_bound(v, x);
    v.push(x);
    let mut i = v.len() - 1;
    while i > pos {
        v[i] = v[i - 1];
        i -= 1;
    }
    v[pos] = x;
    pos
}

#[cfg(test)]
mod tests {
    use super::*;

    const PRIMES: [i32; 10] = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29];

    #[test]
    fn finds_the_middle_and_the_ends() {
        assert_eq!(binary_search(&PRIMES, 13), Some(5));
        assert_eq!(binary_search(&[1, 2, 3], 2), Some(1));
        assert_eq!(binary_search(&PRIMES, 2), Some(0));
        assert_eq!(binary_search(&[4, 8], 4), Some(0));
        assert_eq!(binary_search(&[4, 8], 8), Some(1));
        assert_eq!(binary_search(&PRIMES, 29), Some(9));
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
        assert_eq!(binary_search(&[5], 6), None);
    }

    #[test]
    #[should_panic(expected = "Pre-condition of binary_search violated")]
    fn rejects_unsorted_array() {
        binary_search(&[3, 1, 2], 1);
    }

    #[test]
    fn lower_bounds() {
        let a = [1, 3, 3, 3, 7, 9];
        assert_eq!(lower_bound(&a, 0), 0);
        assert_eq!(lower_bound(&a, 1), 0);
        assert_eq!(lower_bound(&a, 2), 1);
        assert_eq!(lower_bound(&a, 3), 1);
        assert_eq!(lower_bound(&a, 4), 4);
        assert_eq!(lower_bound(&a, 9), 5);
        assert_eq!(lower_bound(&a, 10), 6);
        assert_eq!(lower_bound(&[], 10), 0);
    }

    #[test]
    fn upper_bounds() {
        let a = [1, 3, 3, 3, 7, 9];
        assert_eq!(upper_bound(&a, 0), 0);
        assert_eq!(upper_bound(&a, 1), 1);
        assert_eq!(upper_bound(&a, 3), 4);
        assert_eq!(upper_bound(&a, 8), 5);
        assert_eq!(upper_bound(&a, 9), 6);
        assert_eq!(upper_bound(&[], -1), 0);
    }

    #[test]
    fn counts_occurrences() {
        let a = [1, 3, 3, 3, 7, 9, 9];
        assert_eq!(count(&a, 3), 3);
        assert_eq!(count(&a, 9), 2);
        assert_eq!(count(&a, 1), 1);
        assert_eq!(count(&a, 5), 0);
        assert_eq!(count(&a, 0), 0);
        assert_eq!(count(&a, 10), 0);
        assert_eq!(count(&[2, 2, 2, 2], 2), 4);
    }

    #[test]
    fn floor_indices() {
        let a = [10, 20, 20, 30];
        assert_eq!(floor_index(&a, 5), None);
        assert_eq!(floor_index(&a, 10), Some(0));
        assert_eq!(floor_index(&a, 15), Some(0));
        assert_eq!(floor_index(&a, 20), Some(2));
        assert_eq!(floor_index(&a, 30), Some(3));
        assert_eq!(floor_index(&a, 99), Some(3));
        assert_eq!(floor_index(&[], 0), None);
    }

    #[test]
    fn inserts_in_order() {
        let mut v = vec![];
        assert_eq!(insert_sorted(&mut v, 5), 0);
        assert_eq!(insert_sorted(&mut v, 1), 0);
        assert_eq!(insert_sorted(&mut v, 9), 2);
        assert_eq!(insert_sorted(&mut v, 5), 2);
        assert_eq!(insert_sorted(&mut v, 7), 3);
        assert_eq!(v, vec![1, 5, 5, 7, 9]);
    }
}
