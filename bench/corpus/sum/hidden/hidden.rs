//! Hidden tests of `sum`: further inputs that judge whether a fix is correct, not just
//! plausible.

use sum::*;

#[test]
fn sums_of_long_and_mixed_arrays() {
    let a: Vec<i32> = (-50..=50).collect();
    assert_eq!(sum(&a), 0);
    let b: Vec<i32> = (0..1000).map(|i| i % 7 - 3).collect();
    assert_eq!(sum(&b), b.iter().sum::<i32>());
    assert_eq!(sum(&[1_000_000; 1000]), 1_000_000_000);
    assert_eq!(sum(&[9, 0, 0, 0, 1]), 10);
}

#[test]
fn sub_ranges_agree_with_the_whole_sum() {
    let a = [8, -3, 0, 12, 7, -20, 4];
    for lo in 0..=a.len() {
        for hi in lo..=a.len() {
            assert_eq!(sum_range(&a, lo, hi), a[lo..hi].iter().sum::<i32>());
        }
    }
    assert_eq!(sum_range(&a, 0, a.len()), sum(&a));
}

#[test]
fn prefix_sums_give_every_sub_range() {
    let a = [5, -1, 2, 2, -8, 10];
    let p = prefix_sums(&a);
    assert_eq!(p, vec![0, 5, 4, 6, 8, 0, 10]);
    for lo in 0..=a.len() {
        for hi in lo..=a.len() {
            assert_eq!(p[hi] - p[lo], sum_range(&a, lo, hi));
        }
    }
}

#[test]
fn sums_by_sign_split_the_sum() {
    let a = [-4, 9, -1, 0, 3, -3, 1];
    assert_eq!(sum_by_sign(&a), (13, -8));
    assert_eq!(sum_by_sign(&[0; 5]), (0, 0));
    assert_eq!(sum_by_sign(&[-2, -2]), (0, -4));
    assert_eq!(sum_by_sign(&[6, 6]), (12, 0));
}

#[test]
fn shortest_prefixes_on_zeros_and_large_steps() {
    let a = [0, 0, 4, 0, 10];
    assert_eq!(shortest_prefix_reaching(&a, 1), Some(3));
    assert_eq!(shortest_prefix_reaching(&a, 4), Some(3));
    assert_eq!(shortest_prefix_reaching(&a, 5), Some(5));
    assert_eq!(shortest_prefix_reaching(&a, 14), Some(5));
    assert_eq!(shortest_prefix_reaching(&a, 15), None);
    assert_eq!(shortest_prefix_reaching(&[0, 0], 1), None);
}

#[test]
#[should_panic(expected = "Pre-condition of prefix_sums violated")]
fn prefix_sums_reject_huge_elements() {
    prefix_sums(&[0, -2_000_000]);
}
