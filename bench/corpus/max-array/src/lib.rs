//! Extremes of an unsorted array: the running example ("Max") of the AutoDebug paper
//! (path-based weakest preconditions), with companions written in the same style — the
//! minimum, the index of the first maximum, how often the maximum occurs, the spread
//! between the extremes and the second-largest distinct value.

use autodebug_runtime::{ensures, requires};

/// The largest element of `a`.
#[requires(!a.is_empty(), "the array must not be empty")]
#[ensures(forall i in 0..a.len() => ret >= a[i])]
#[ensures(exists i in 0..a.len() => ret == a[i])]
pub fn max(a: &[i32]) -> i32 {
    let mut i = 1;
    let mut s = a[0];
    while i < a.len() {
        if s < a[i] {
            s = a[i];
        }
        i += 1;
    }
    s
}

/// The smallest element of `a`.
#[requires(!a.is_empty(), "the array must not be empty")]
#[ensures(forall i in 0..a.len() => ret <= a[i])]
#[ensures(exists i in 0..a.len() => ret == a[i])]
pub fn min(a: &[i32]) -> i32 {
    let mut i = 1;
    let mut s = a[0];
    while i < a.len() {
        if a[i] < s {
            s = a[i];
        }
        i += 1;
    }
    s
}

/// The index of the first occurrence of the largest element of `a`.
#[requires(!a.is_empty(), "the array must not be empty")]
#[ensures(ret < a.len())]
#[ensures(forall i in 0..a.len() => a[ret] >= a[i])]
#[ensures(forall i in 0..ret => a[i] < a[ret], "the first occurrence")]
pub fn index_of_max(a: &[i32]) -> usize {
    let mut best = 0;
    for i in 1..a.len() {
        if a[i] > a[best] {
            best = i;
        }
    }
    best
}

/// How many elements of `a` equal its largest element.
#[requires(!a.is_empty(), "the array must not be empty")]
#[ensures(ret >= 1 && ret <= a.len())]
pub fn count_of_max(a: &[i32]) -> usize {
    let mut s = a[0];
    let mut count = 1;
    for i in 1..a.len() {
        if a[i] > s {
            s = a[i];
            count = 1;
        } else if a[i] == s {
            count += 1;
        }
    }
    count
}

/// The difference between the largest and the smallest element of `a`.
///
/// The result is an `i64` so that the spread of any two `i32`s fits.
#[requires(!a.is_empty(), "the array must not be empty")]
#[ensures(ret >= 0)]
#[ensures(ret == max(a) as i64 - min(a) as i64)]
pub fn spread(a: &[i32]) -> i64 {
    let mut lo = a[0];
    let mut hi = a[0];
    for i in 1..a.len() {
        if a[i] < lo {
            lo = a[i];
        }
        if a[i] > hi {
            hi = a[i];
        }
    }
    hi as i64 - lo as i64
}

/// The largest value of `a` that is smaller than its maximum, or `None` when all elements
/// are equal.
#[requires(!a.is_empty(), "the array must not be empty")]
#[ensures(ret.is_some() -> ret.unwrap() < max(a))]
#[ensures(ret.is_some() -> exists i in 0..a.len() => a[i] == ret.unwrap())]
#[ensures(ret.is_none() -> forall i in 0..a.len() => a[i] == a[0])]
pub fn second_largest(a: &[i32]) -> Option<i32> {
    let mut first = a[0];
    let mut second: Option<i32> = None;
    for i in 1..a.len() {
        let x = a[i];
        if x > first {
            second = Some(first);
            first = x;
        } else if x < first && (second.is_none() || x > second.unwrap()) {
            second = Some(x);
        }
    }
    second
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_of_paper_input() {
        assert_eq!(max(&[-2, 5, 3]), 5);
    }

    #[test]
    fn max_of_one_element() {
        assert_eq!(max(&[42]), 42);
        assert_eq!(max(&[-42]), -42);
    }

    #[test]
    fn max_of_equal_elements() {
        assert_eq!(max(&[7, 7, 7, 7]), 7);
        assert_eq!(max(&[0, 0]), 0);
    }

    #[test]
    fn max_at_either_end_or_in_the_middle() {
        assert_eq!(max(&[1, 2, 3, 4]), 4);
        assert_eq!(max(&[-9, -8]), -8);
        assert_eq!(max(&[9, 2, 3]), 9);
        assert_eq!(max(&[3, 10, -1, 4]), 10);
        assert_eq!(max(&[1, 2, 9, 4]), 9);
    }

    #[test]
    #[should_panic(expected = "Pre-condition of max violated")]
    fn rejects_empty_array() {
        max(&[]);
    }

    #[test]
    fn min_anywhere() {
        assert_eq!(min(&[5]), 5);
        assert_eq!(min(&[4, 3, 2, 1]), 1);
        assert_eq!(min(&[-1, 0, 7]), -1);
        assert_eq!(min(&[6, -3, 8, -2]), -3);
        assert_eq!(min(&[2, 2]), 2);
        assert_eq!(min(&[5, 4, -7, 6]), -7);
    }

    #[test]
    fn index_of_the_first_maximum() {
        assert_eq!(index_of_max(&[1]), 0);
        assert_eq!(index_of_max(&[1, 9, 3]), 1);
        assert_eq!(index_of_max(&[1, 3, 9]), 2);
        assert_eq!(index_of_max(&[9, 3, 1]), 0);
        assert_eq!(index_of_max(&[2, 8, 8, 1, 8]), 1);
    }

    #[test]
    fn counts_the_maximum() {
        assert_eq!(count_of_max(&[3]), 1);
        assert_eq!(count_of_max(&[3, 3, 3]), 3);
        assert_eq!(count_of_max(&[5, 1, 5, 2]), 2);
        assert_eq!(count_of_max(&[1, 1, 4]), 1);
        assert_eq!(count_of_max(&[4, 1, 1]), 1);
        assert_eq!(count_of_max(&[1, 6, 6, 7, 0]), 1);
    }

    #[test]
    fn spread_between_the_extremes() {
        assert_eq!(spread(&[7]), 0);
        assert_eq!(spread(&[1, 5, 3]), 4);
        assert_eq!(spread(&[5, 1, 3]), 4);
        assert_eq!(spread(&[-3, 4]), 7);
        assert_eq!(spread(&[i32::MIN, i32::MAX]), u32::MAX as i64);
    }

    #[test]
    fn second_largest_distinct_value() {
        assert_eq!(second_largest(&[4]), None);
        assert_eq!(second_largest(&[4, 4, 4]), None);
        assert_eq!(second_largest(&[1, 2]), Some(1));
        assert_eq!(second_largest(&[2, 1]), Some(1));
        assert_eq!(second_largest(&[5, 9, 7, 9, 3]), Some(7));
        assert_eq!(second_largest(&[9, 1, 2, 3]), Some(3));
        assert_eq!(second_largest(&[1, 2, 3, 9]), Some(3));
    }
}
