//! Sum of an array: the "Sum" program of the AutoDebug paper (path-based weakest
//! preconditions). One fault is injected on purpose: see `fault.json`.

use autodebug_runtime::{ensures, requires};

/// The sum of the elements of `a`.
///
/// The bounds of the precondition keep the running sum far from `i32` overflow.
#[requires(a.len() <= 1_000, "at most 1000 elements")]
#[requires(forall i in 0..a.len() => -1_000_000 <= a[i] && a[i] <= 1_000_000, "elements within ±10^6")]
#[ensures(a.is_empty() -> ret == 0)]
#[ensures(ret == a.iter().sum::<i32>())]
pub fn sum(a: &[i32]) -> i32 {
    let mut s = 0;
    let mut i = 1;
    while i < a.len() {
        s += a[i];
        i += 1;
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sum_of_empty_array_is_zero() {
        assert_eq!(sum(&[]), 0);
    }

    #[test]
    fn sum_of_one_element() {
        assert_eq!(sum(&[7]), 7);
        assert_eq!(sum(&[-3]), -3);
    }

    #[test]
    fn sum_of_three() {
        assert_eq!(sum(&[1, 2, 3]), 6);
        assert_eq!(sum(&[4, -2, 9]), 11);
    }

    #[test]
    fn sum_with_leading_zero() {
        assert_eq!(sum(&[0, 5, 6]), 11);
        assert_eq!(sum(&[0, -1, -1, -1]), -3);
    }

    #[test]
    fn sum_of_zeros() {
        assert_eq!(sum(&[0; 10]), 0);
    }

    #[test]
    fn sum_of_a_range() {
        let a: Vec<i32> = (1..=100).collect();
        assert_eq!(sum(&a), 5050);
    }

    #[test]
    #[should_panic(expected = "Pre-condition of sum violated")]
    fn rejects_too_large_elements() {
        sum(&[1, 2_000_000]);
    }
}
