//! Hidden tests of `binary-search`: further inputs that judge whether a fix is correct,
//! not just plausible.

use binary_search::*;

#[test]
fn finds_every_element_of_arrays_of_every_length() {
    for n in 0..20 {
        let a: Vec<i32> = (0..n).map(|i| 3 * i - 10).collect();
        for (i, &x) in a.iter().enumerate() {
            assert_eq!(binary_search(&a, x), Some(i));
        }
        for i in 0..=n {
            assert_eq!(binary_search(&a, 3 * i - 11), None);
        }
    }
}

#[test]
fn bounds_agree_with_a_linear_scan() {
    let a = [-4, -4, 0, 2, 2, 2, 5, 8, 8, 13];
    for x in -6..16 {
        let lower = a.iter().take_while(|&&y| y < x).count();
        let upper = a.iter().take_while(|&&y| y <= x).count();
        assert_eq!(lower_bound(&a, x), lower, "lower bound of {x}");
        assert_eq!(upper_bound(&a, x), upper, "upper bound of {x}");
        assert_eq!(count(&a, x), upper - lower, "count of {x}");
    }
}

#[test]
fn floor_index_on_negatives() {
    let a = [-9, -5, -5, -1];
    assert_eq!(floor_index(&a, -10), None);
    assert_eq!(floor_index(&a, -9), Some(0));
    assert_eq!(floor_index(&a, -6), Some(0));
    assert_eq!(floor_index(&a, -5), Some(2));
    assert_eq!(floor_index(&a, 0), Some(3));
}

#[test]
fn insertion_keeps_a_long_vector_sorted() {
    let mut v = Vec::new();
    for k in 0..30 {
        let x = (k * 17) % 11 - 5;
        let pos = insert_sorted(&mut v, x);
        assert_eq!(v[pos], x);
        assert!(pos + 1 == v.len() || v[pos + 1] > x);
    }
    let mut expected: Vec<i32> = (0..30).map(|k| (k * 17) % 11 - 5).collect();
    expected.sort();
    assert_eq!(v, expected);
}

#[test]
fn all_equal_elements() {
    let a = [4; 9];
    assert_eq!(binary_search(&a, 4).map(|i| a[i]), Some(4));
    assert_eq!(lower_bound(&a, 4), 0);
    assert_eq!(upper_bound(&a, 4), 9);
    assert_eq!(count(&a, 4), 9);
    assert_eq!(count(&a, 3), 0);
    assert_eq!(floor_index(&a, 4), Some(8));
}
