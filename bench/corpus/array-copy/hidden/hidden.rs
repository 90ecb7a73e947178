//! Hidden tests of `array-copy`: further inputs that judge whether a fix is correct, not
//! just plausible.

use array_copy::*;

#[test]
fn copies_long_arrays_into_longer_ones() {
    let src: Vec<i32> = (0..50).map(|i| i * i - 40).collect();
    let mut dst = vec![-1; 60];
    copy(&src, &mut dst);
    assert_eq!(&dst[..50], &src[..]);
    assert!(dst[50..].iter().all(|&x| x == -1));
    assert_eq!(to_vec(&src), src);
}

#[test]
fn windows_at_every_offset() {
    let src = [1, 2, 3, 4, 5];
    for from in 0..=5 {
        for n in 0..=5 - from {
            for to in 0..=5 - n {
                let mut dst = [0; 5];
                copy_window(&src, from, &mut dst, to, n);
                let mut expected = [0; 5];
                expected[to..to + n].copy_from_slice(&src[from..from + n]);
                assert_eq!(dst, expected, "from {from} to {to} n {n}");
            }
        }
    }
}

#[test]
fn reversed_copies_of_several_lengths() {
    for n in 0..8 {
        let src: Vec<i32> = (1..=n).collect();
        let mut dst = vec![0; n as usize + 1];
        copy_reversed(&src, &mut dst);
        let mut expected: Vec<i32> = (1..=n).rev().collect();
        expected.push(0);
        assert_eq!(dst, expected);
    }
}

#[test]
fn shifts_agree_with_copy_within() {
    for from in 0..4 {
        for n in 0..4 {
            for by in 0..3 {
                let mut a = [10, 20, 30, 40, 50, 60, 70, 80, 90];
                let mut expected = a;
                expected.copy_within(from..from + n, from + by);
                shift_right(&mut a, from, n, by);
                assert_eq!(a, expected, "from {from} n {n} by {by}");
            }
        }
    }
}

#[test]
fn interleaves_uneven_arrays() {
    let mut dst = [0; 7];
    assert_eq!(interleave(&[1, 3], &[2, 4, 6, 8, 10], &mut dst), 7);
    assert_eq!(dst, [1, 2, 3, 4, 6, 8, 10]);
    let mut dst = [0; 3];
    assert_eq!(interleave(&[], &[4, 5], &mut dst), 2);
    assert_eq!(dst, [4, 5, 0]);
    let mut dst = [0; 2];
    assert_eq!(interleave(&[9, 8], &[], &mut dst), 2);
    assert_eq!(dst, [9, 8]);
}
