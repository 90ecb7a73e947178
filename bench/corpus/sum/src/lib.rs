//! Sums over an integer array: the "Sum" program of the AutoDebug paper (path-based weakest
//! preconditions), with companions written in the same style — the sum of a sub-range,
//! prefix sums, the sums of the positive and of the negative elements, and the shortest
//! prefix whose sum reaches a target.
//!
//! Every function bounds its input (at most [`MAX_LEN`] elements within ±[`MAX_ABS`]) so
//! that no running sum can overflow an `i32`.

// The paper's programs are index-based on purpose: loop bounds are what faults are about.
#![allow(clippy::needless_range_loop)]

use autodebug_runtime::{ensures, requires};

/// Largest array the functions accept.
pub const MAX_LEN: usize = 1_000;
/// Largest absolute value of an element.
pub const MAX_ABS: i32 = 1_000_000;

/// The sum of the elements of `a`.
///
/// The bounds of the precondition keep the running sum far from `i32` overflow.
#[requires(a.len() <= MAX_LEN, "at most 1000 elements")]
#[requires(forall i in 0..a.len() => -MAX_ABS <= a[i] && a[i] <= MAX_ABS, "elements within ±10^6")]
#[ensures(a.is_empty() -> ret == 0)]
#[ensures(ret == a.iter().sum::<i32>())]
pub fn sum(a: &[i32]) -> i32 {
    let mut s = 0;
    let mut i = 0;
    while i < a.len() {
        s += a[i];
        i += 1;
    }
    s
}

/// The sum of `a[lo..hi]`.
#[requires(lo <= hi && hi <= a.len(), "a valid range")]
#[requires(a.len() <= MAX_LEN, "at most 1000 elements")]
#[requires(forall i in 0..a.len() => -MAX_ABS <= a[i] && a[i] <= MAX_ABS, "elements within ±10^6")]
#[ensures(lo == hi -> ret == 0)]
#[ensures(ret == a[lo..hi].iter().sum::<i32>())]
pub fn sum_range(a: &[i32], lo: usize, hi: usize) -> i32 {
    let mut s = 0;
    let mut i = lo;
    while i < hi {
        s += a[i];
        i += 1;
    }
    s
}

/// The prefix sums of `a`: element `k` of the result is the sum of the first `k` elements,
/// so the result is one longer than `a`.
#[requires(a.len() <= MAX_LEN, "at most 1000 elements")]
#[requires(forall i in 0..a.len() => -MAX_ABS <= a[i] && a[i] <= MAX_ABS, "elements within ±10^6")]
#[ensures(ret.len() == a.len() + 1)]
#[ensures(ret[0] == 0)]
#[ensures(forall i in 0..a.len() => ret[i + 1] == ret[i] + a[i])]
pub fn prefix_sums(a: &[i32]) -> Vec<i32> {
    let mut sums = vec![0; a.len() + 1];
    for i in 0..a.len() {
        sums[i + 1] = sums[i] + a[i];
    }
    sums
}

/// The sum of the positive elements and the sum of the negative elements of `a`.
#[requires(a.len() <= MAX_LEN, "at most 1000 elements")]
#[requires(forall i in 0..a.len() => -MAX_ABS <= a[i] && a[i] <= MAX_ABS, "elements within ±10^6")]
#[ensures(ret.0 >= 0 && ret.1 <= 0)]
#[ensures(ret.0 + ret.1 == a.iter().sum::<i32>())]
pub fn sum_by_sign(a: &[i32]) -> (i32, i32) {
    let mut positive = 0;
    let mut negative = 0;
    for i in 0..a.len() {
        if a[i] > 0 {
            positive += a[i];
        } else if a[i] < 0 {
            negative += a[i];
        }
    }
    (positive, negative)
}

/// The length of the shortest prefix of `a` whose sum is at least `target`, or `None`
/// when even the whole array falls short. The elements must not be negative, so that the
/// prefix sums grow.
#[requires(target > 0, "a positive target")]
#[requires(a.len() <= MAX_LEN, "at most 1000 elements")]
#[requires(forall i in 0..a.len() => 0 <= a[i] && a[i] <= MAX_ABS, "elements within 0..=10^6")]
#[ensures(ret.is_some() -> a[..ret.unwrap()].iter().sum::<i32>() >= target)]
#[ensures(ret.is_some() -> a[..ret.unwrap() - 1].iter().sum::<i32>() < target)]
#[ensures(ret.is_none() -> a.iter().sum::<i32>() < target)]
pub fn shortest_prefix_reaching(a: &[i32], target: i32) -> Option<usize> {
    let mut s = 0;
    let mut k = 0;
    while k < a.len() && s < target {
        s += a[k];
        k += 1;
    }
    if s >= target { Some(k) } else { None }
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
        assert_eq!(sum(&[5, 0, 0]), 5);
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

    #[test]
    fn sum_of_sub_ranges() {
        let a = [3, 1, 4, 1, 5, 9, 2, 6];
        assert_eq!(sum_range(&a, 0, 8), 31);
        assert_eq!(sum_range(&a, 2, 5), 10);
        assert_eq!(sum_range(&a, 0, 1), 3);
        assert_eq!(sum_range(&a, 7, 8), 6);
        assert_eq!(sum_range(&a, 4, 4), 0);
        assert_eq!(sum_range(&[-5, 5, -5], 1, 3), 0);
    }

    #[test]
    #[should_panic(expected = "Pre-condition of sum_range violated: a valid range")]
    fn sum_range_rejects_a_reversed_range() {
        sum_range(&[1, 2, 3], 2, 1);
    }

    #[test]
    fn prefix_sums_accumulate() {
        assert_eq!(prefix_sums(&[]), vec![0]);
        assert_eq!(prefix_sums(&[4]), vec![0, 4]);
        assert_eq!(prefix_sums(&[1, 2, 3, 4]), vec![0, 1, 3, 6, 10]);
        assert_eq!(prefix_sums(&[2, -7, 1]), vec![0, 2, -5, -4]);
    }

    #[test]
    fn sums_by_sign() {
        assert_eq!(sum_by_sign(&[]), (0, 0));
        assert_eq!(sum_by_sign(&[3, -1, 0, 4, -6]), (7, -7));
        assert_eq!(sum_by_sign(&[1]), (1, 0));
        assert_eq!(sum_by_sign(&[-1]), (0, -1));
        assert_eq!(sum_by_sign(&[0, 0, 2]), (2, 0));
    }

    #[test]
    fn shortest_prefix_reaching_a_target() {
        let a = [2, 3, 0, 5, 1];
        assert_eq!(shortest_prefix_reaching(&a, 1), Some(1));
        assert_eq!(shortest_prefix_reaching(&a, 2), Some(1));
        assert_eq!(shortest_prefix_reaching(&a, 3), Some(2));
        assert_eq!(shortest_prefix_reaching(&a, 5), Some(2));
        assert_eq!(shortest_prefix_reaching(&a, 6), Some(4));
        assert_eq!(shortest_prefix_reaching(&a, 11), Some(5));
        assert_eq!(shortest_prefix_reaching(&a, 12), None);
        assert_eq!(shortest_prefix_reaching(&[], 1), None);
    }
}
