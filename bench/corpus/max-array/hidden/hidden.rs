//! Hidden tests of `max-array`: further inputs that judge whether a fix is correct, not
//! just plausible.

use max_array::*;

#[test]
fn max_and_min_of_long_arrays() {
    let a: Vec<i32> = (0..200).map(|i| (i * 37) % 101 - 50).collect();
    assert_eq!(max(&a), *a.iter().max().unwrap());
    assert_eq!(min(&a), *a.iter().min().unwrap());
    assert_eq!(max(&[i32::MIN, i32::MIN]), i32::MIN);
    assert_eq!(min(&[i32::MAX, 0, i32::MAX]), 0);
}

#[test]
fn extremes_at_every_position() {
    for n in 1..8 {
        for k in 0..n {
            let mut a = vec![0; n];
            a[k] = 5;
            assert_eq!(max(&a), 5);
            assert_eq!(index_of_max(&a), k);
            assert_eq!(count_of_max(&a), 1);
            a[k] = -5;
            assert_eq!(min(&a), -5);
        }
    }
}

#[test]
fn ties_of_the_maximum() {
    assert_eq!(index_of_max(&[0, 3, 1, 3]), 1);
    assert_eq!(index_of_max(&[-1, -1]), 0);
    assert_eq!(count_of_max(&[3, 0, 3, 1, 3]), 3);
    assert_eq!(count_of_max(&[2, 2, 5, 5]), 2);
}

#[test]
fn spreads() {
    assert_eq!(spread(&[-10, -20, -15]), 10);
    assert_eq!(spread(&[0, 0, 0]), 0);
    assert_eq!(spread(&[3, 8, -2, 8, 1]), 10);
}

#[test]
fn second_largest_values() {
    assert_eq!(second_largest(&[-5, -1, -3]), Some(-3));
    assert_eq!(second_largest(&[7, 7, 6, 6]), Some(6));
    assert_eq!(second_largest(&[6, 7, 7]), Some(6));
    assert_eq!(second_largest(&[0, 10, 5, 8, 2]), Some(8));
}
