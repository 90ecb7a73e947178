//! Hidden tests of `quicksort`: further inputs that judge whether a fix is correct, not
//! just plausible.

use quicksort::*;

/// A reproducible scramble of `0..n` shifted to include negatives (no randomness).
fn scrambled(n: i32) -> Vec<i32> {
    (0..n).map(|i| (i * 7 + 3) % n - n / 2).collect()
}

#[test]
fn sorts_scrambled_arrays_of_every_length() {
    for n in 1..40 {
        let a = scrambled(n);
        let mut b = a.clone();
        quicksort(&mut b);
        let mut expected = a;
        expected.sort();
        assert_eq!(b, expected, "length {n}");
        assert!(is_sorted(&b));
    }
}

#[test]
fn sorts_arrays_with_many_duplicates() {
    let mut a: Vec<i32> = (0..30).map(|i| i % 3 - 1).collect();
    quicksort(&mut a);
    let mut expected = vec![-1; 10];
    expected.extend([0; 10]);
    expected.extend([1; 10]);
    assert_eq!(a, expected);
}

#[test]
fn sorts_sorted_and_reversed_arrays() {
    let mut a: Vec<i32> = (0..25).collect();
    quicksort(&mut a);
    assert_eq!(a, (0..25).collect::<Vec<_>>());
    let mut a: Vec<i32> = (0..25).rev().collect();
    quicksort(&mut a);
    assert_eq!(a, (0..25).collect::<Vec<_>>());
}

#[test]
fn selection_agrees_with_sorting() {
    for n in 1..15 {
        let a = scrambled(n);
        let mut s = a.clone();
        s.sort();
        for k in 0..n as usize {
            let mut b = a.clone();
            assert_eq!(select_kth(&mut b, k), s[k], "length {n}, rank {k}");
        }
        assert_eq!(median(&a), s[(n as usize - 1) / 2]);
    }
}

#[test]
fn permutation_and_sortedness_checks() {
    assert!(is_permutation(&[3, 3, 1, 2], &[1, 3, 2, 3]));
    assert!(!is_permutation(&[3, 3, 1, 2], &[1, 3, 2, 2]));
    assert!(!is_permutation(&[0, 0], &[0, 1]));
    assert!(is_sorted(&[-5, -5, 0, 9]));
    assert!(!is_sorted(&[0, 9, 8]));
}
