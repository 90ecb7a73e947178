//! Copies between arrays: the "Array copy" program of the AutoDebug paper (path-based
//! weakest preconditions), with companions written in the same style — a copy into a fresh
//! vector, a copy of a window at given offsets, a reversed copy, a shift that moves a
//! window inside one array (overlapping, like `memmove`) and an interleaving merge.

// The paper's programs are index-based on purpose: loop bounds are what faults are about.
#![allow(clippy::needless_range_loop, clippy::manual_memcpy)]

use autodebug_runtime::{ensures, requires};

/// Copies `src` into the first `src.len()` elements of `dst`; the rest of `dst` is left
/// as it is.
#[requires(dst.len() >= src.len(), "the destination must be at least as long as the source")]
#[ensures(forall i in 0..src.len() => dst[i] == src[i])]
pub fn copy(src: &[i32], dst: &mut [i32]) {
    for i in 0..src.len() {
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

/// Copies the `n` elements of `src` starting at `from` to `dst` starting at `to`; the rest
/// of `dst` is left as it is.
#[requires(from + n <= src.len(), "the window must lie in the source")]
#[requires(to + n <= dst.len(), "the window must fit in the destination")]
#[ensures(forall k in 0..n => dst[to + k] == src[from + k])]
#[ensures(forall k in 0..to => dst[k] == old(dst.to_vec())[k])]
#[ensures(forall k in to + n..dst.len() => dst[k] == old(dst.to_vec())[k])]
pub fn copy_window(src: &[i32], from: usize, dst: &mut [i32], to: usize, n: usize) {
    let mut k = 0;
    while k < n {
        dst[to + k] = src[from + k];
        k += 1;
    }
}

/// Copies `src` backwards into the first `src.len()` elements of `dst`.
#[requires(dst.len() >= src.len(), "the destination must be at least as long as the source")]
#[ensures(forall i in 0..src.len() => dst[i] == src[src.len() - 1 - i])]
pub fn copy_reversed(src: &[i32], dst: &mut [i32]) {
    let n = src.len();
    for i in 0..n {
        dst[n - 1 - i] = src[i];
    }
}

/// Moves the window `a[from..from + n]` by `by` places to the right inside `a`; the
/// windows may overlap, so the copy runs from the end. Elements before the new window keep
/// their old values.
#[requires(from + by + n <= a.len(), "the moved window must stay in the array")]
#[ensures(forall k in 0..n => a[from + by + k] == old(a.to_vec())[from + k])]
#[ensures(forall k in 0..from + by => a[k] == old(a.to_vec())[k])]
pub fn shift_right(a: &mut [i32], from: usize, n: usize, by: usize) {
    let mut k = n;
    while k > 0 {
        k -= 1;
        a[from + by + k] = a[from + k];
    }
}

/// Interleaves `a` and `b` into `dst`: `a[0], b[0], a[1], b[1], …`, followed by the rest of
/// the longer one. Returns how many elements were written.
#[requires(dst.len() >= a.len() + b.len(), "the destination must hold both sources")]
#[ensures(ret == a.len() + b.len())]
#[ensures(forall i in 0..a.len().min(b.len()) => dst[2 * i] == a[i] && dst[2 * i + 1] == b[i])]
pub fn interleave(a: &[i32], b: &[i32], dst: &mut [i32]) -> usize {
    let mut i = 0;
    let mut j = 0;
    let mut w = 0;
    while i < a.len() || j < b.len() {
        if i < a.len() && (j >= b.len() || i <= j) {
            dst[w] = a[i];
            i += 1;
        } else {
            dst[w] = b[j];
            j += 1;
        }
        w += 1;
    }
    w
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
    fn copies_single_and_empty_arrays() {
        let mut dst = [0];
        copy(&[5], &mut dst);
        assert_eq!(dst, [5]);
        let mut dst = [1, 2];
        copy(&[], &mut dst);
        assert_eq!(dst, [1, 2]);
    }

    #[test]
    fn to_vec_copies_everything() {
        assert_eq!(to_vec(&[3, 1, 4, 1, 5]), vec![3, 1, 4, 1, 5]);
        assert_eq!(to_vec(&[-1, -2]), vec![-1, -2]);
        assert_eq!(to_vec(&[]), Vec::<i32>::new());
    }

    #[test]
    #[should_panic(expected = "Pre-condition of copy violated")]
    fn rejects_a_short_destination() {
        let mut dst = [0; 1];
        copy(&[1, 2], &mut dst);
    }

    #[test]
    fn copies_windows() {
        let src = [10, 11, 12, 13, 14, 15];
        let mut dst = [0; 6];
        copy_window(&src, 1, &mut dst, 2, 3);
        assert_eq!(dst, [0, 0, 11, 12, 13, 0]);
        copy_window(&src, 5, &mut dst, 0, 1);
        assert_eq!(dst, [15, 0, 11, 12, 13, 0]);
        copy_window(&src, 0, &mut dst, 0, 0);
        assert_eq!(dst, [15, 0, 11, 12, 13, 0]);
        copy_window(&src, 0, &mut dst, 0, 6);
        assert_eq!(dst, src);
    }

    #[test]
    fn copies_backwards() {
        let mut dst = [0; 4];
        copy_reversed(&[1, 2, 3], &mut dst);
        assert_eq!(dst, [3, 2, 1, 0]);
        let mut dst = [7, 7];
        copy_reversed(&[4, 5], &mut dst);
        assert_eq!(dst, [5, 4]);
        let mut dst = [8];
        copy_reversed(&[], &mut dst);
        assert_eq!(dst, [8]);
    }

    #[test]
    fn shifts_overlapping_windows() {
        let mut a = [1, 2, 3, 4, 0, 0];
        shift_right(&mut a, 0, 4, 2);
        assert_eq!(a, [1, 2, 1, 2, 3, 4]);
        let mut a = [5, 6, 7, 8, 9];
        shift_right(&mut a, 1, 2, 1);
        assert_eq!(a, [5, 6, 6, 7, 9]);
        let mut a = [1, 2, 3];
        shift_right(&mut a, 0, 3, 0);
        assert_eq!(a, [1, 2, 3]);
        let mut a = [4, 0, 0, 0];
        shift_right(&mut a, 0, 1, 3);
        assert_eq!(a, [4, 0, 0, 4]);
    }

    #[test]
    fn interleaves_two_arrays() {
        let mut dst = [0; 6];
        assert_eq!(interleave(&[1, 2, 3], &[7, 8, 9], &mut dst), 6);
        assert_eq!(dst, [1, 7, 2, 8, 3, 9]);
        let mut dst = [0; 6];
        assert_eq!(interleave(&[1, 2, 3, 4], &[7], &mut dst), 5);
        assert_eq!(dst, [1, 7, 2, 3, 4, 0]);
        let mut dst = [0; 5];
        assert_eq!(interleave(&[1], &[7, 8, 9], &mut dst), 4);
        assert_eq!(dst, [1, 7, 8, 9, 0]);
        let mut dst = [5; 2];
        assert_eq!(interleave(&[], &[], &mut dst), 0);
        assert_eq!(dst, [5, 5]);
    }
}
