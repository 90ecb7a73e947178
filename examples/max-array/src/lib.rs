//! Maximum of an unsorted array: the running example ("Max") of the AutoDebug paper
//! (path-based weakest preconditions), with its fault: a wrong relational operator in the
//! comparison of line 4 of the paper's figure 1. See `fault.json`.

use autodebug_runtime::{ensures, requires};

/// The largest element of `a`.
#[requires(!a.is_empty(), "the array must not be empty")]
#[ensures(forall i in 0..a.len() => ret >= a[i])]
#[ensures(exists i in 0..a.len() => ret == a[i])]
pub fn max(a: &[i32]) -> i32 {
    let mut i = 1;
    let mut s = a[0];
    while i < a.len() {
        if s > a[i] {
            s = a[i];
        }
        i += 1;
    }
    s
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
    fn max_at_the_end() {
        assert_eq!(max(&[1, 2, 3, 4]), 4);
        assert_eq!(max(&[-9, -8]), -8);
    }

    #[test]
    fn max_in_the_middle() {
        assert_eq!(max(&[3, 10, -1, 4]), 10);
    }

    #[test]
    #[should_panic(expected = "Pre-condition of max violated")]
    fn rejects_empty_array() {
        max(&[]);
    }
}
