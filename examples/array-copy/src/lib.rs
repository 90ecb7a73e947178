//! Copy of an array into another: the "Array copy" program of the AutoDebug paper
//! (path-based weakest preconditions), with an off-by-one loop bound. See `fault.json`.

// The paper's program is index-based on purpose: the loop bound is what the fault is about.
#![allow(clippy::needless_range_loop)]

use autodebug_runtime::{ensures, requires};

/// Copies `src` into the first `src.len()` elements of `dst`; the rest of `dst` is left
/// as it is.
#[requires(dst.len() >= src.len(), "the destination must be at least as long as the source")]
#[ensures(forall i in 0..src.len() => dst[i] == src[i])]
pub fn copy(src: &[i32], dst: &mut [i32]) {
    for i in 0..src.len() - 1 {
        dst[i] = src[i];
    }
}

/// A new vector holding the elements of `src`.
#[ensures(ret.len() == src.len())]
pub fn to_vec(src: &[i32]) -> Vec<i32> {
    let mut dst = vec![0; src.len()];
    copy(src, &mut dst);
    dst
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_into_an_equally_long_array() {
        let mut dst = [0; 4];
        copy(&[1, 2, 3, 4], &mut dst);
        assert_eq!(dst, [1, 2, 3, 4]);
    }

    #[test]
    fn copies_into_a_longer_array() {
        let mut dst = [9; 5];
        copy(&[1, 2], &mut dst);
        assert_eq!(dst, [1, 2, 9, 9, 9]);
    }

    #[test]
    fn copies_a_single_element() {
        let mut dst = [0];
        copy(&[5], &mut dst);
        assert_eq!(dst, [5]);
    }

    #[test]
    fn copies_nothing_from_an_empty_array() {
        let mut dst = [1, 2];
        copy(&[], &mut dst);
        assert_eq!(dst, [1, 2]);
    }

    #[test]
    fn copies_onto_equal_values() {
        let mut dst = [1, 2, 3, 0];
        copy(&[1, 2, 3], &mut dst);
        assert_eq!(dst, [1, 2, 3, 0]);
    }

    #[test]
    fn copies_a_trailing_zero() {
        let mut dst = [0; 3];
        copy(&[7, 8, 0], &mut dst);
        assert_eq!(dst, [7, 8, 0]);
    }

    #[test]
    fn to_vec_copies_everything() {
        assert_eq!(to_vec(&[3, 1, 4, 1, 5]), vec![3, 1, 4, 1, 5]);
        assert_eq!(to_vec(&[-1, -2]), vec![-1, -2]);
    }

    #[test]
    #[should_panic(expected = "Pre-condition of copy violated")]
    fn rejects_a_short_destination() {
        let mut dst = [0; 1];
        copy(&[1, 2], &mut dst);
    }
}
