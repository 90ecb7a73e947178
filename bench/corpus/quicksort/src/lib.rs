//! Quicksort on an integer array: the "Quicksort" program of the AutoDebug paper
//! (path-based weakest preconditions), with Lomuto's partition, and companions written in
//! the same style — selection of the k-th smallest element by repeated partitioning (Hoare's
//! quickselect), the lower median, and the sortedness and permutation checks the contracts
//! use.

use autodebug_runtime::{ensures, requires};

/// Sorts `a` in ascending order, in place.
#[ensures(forall i in 1..a.len() => a[i - 1] <= a[i])]
#[ensures(is_permutation(&old(a.to_vec()), a))]
pub fn quicksort(a: &mut [i32]) {
    if a.len() <= 1 {
        return;
    }
    let p = partition(a);
    quicksort(&mut a[..p]);
    quicksort(&mut a[p + 1..]);
}

/// Partitions `a` around its last element (the pivot): returns the pivot's final index,
/// with no greater element before it and no smaller or equal element after it.
#[requires(!a.is_empty(), "cannot partition an empty array")]
#[ensures(ret < a.len())]
#[ensures(forall i in 0..ret => a[i] <= a[ret])]
#[ensures(forall i in ret + 1..a.len() => a[i] > a[ret])]
pub fn partition(a: &mut [i32]) -> usize {
    let last = a.len() - 1;
    let pivot = a[last];
    let mut store = 0;
    for j in 0..last {
        if a[j] <= pivot {
            a.swap(store, j);
            store += 1;
        }
    }
    a.swap(store, last);
    store
}

/// The `k`-th smallest element of `a` (counting from 0). `a` is rearranged so that the
/// element ends at index `k`, with no greater element before it and no smaller one after.
#[requires(k < a.len(), "k must be an index of the array")]
#[ensures(ret == a[k])]
#[ensures(forall i in 0..k => a[i] <= ret)]
#[ensures(forall i in k + 1..a.len() => a[i] >= ret)]
#[ensures(is_permutation(&old(a.to_vec()), a))]
pub fn select_kth(a: &mut [i32], k: usize) -> i32 {
    let mut lo = 0;
    let mut hi = a.len();
    while hi - lo > 1 {
        let p = lo + partition(&mut a[lo..hi]);
        if p == k {
            break;
        }
        if p < k {
            lo = p + 1;
        } else {
            hi = p;
        }
    }
    a[k]
}

/// The lower median of `a`: the element that would sit at index `(len - 1) / 2` once `a`
/// is sorted. `a` itself is left untouched.
#[requires(!a.is_empty(), "the median of nothing is undefined")]
#[ensures(exists i in 0..a.len() => a[i] == ret)]
pub fn median(a: &[i32]) -> i32 {
    let mut work = a.to_vec();
    let k = (a.len() - 1) / 2;
    select_kth(&mut work, k)
}

/// Whether `a` is in ascending order.
#[ensures(ret == (forall i in 1..a.len() => a[i - 1] <= a[i]))]
pub fn is_sorted(a: &[i32]) -> bool {
    let mut i = 1;
    while i < a.len() {
        if a[i - 1] > a[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Whether `b` holds the same elements as `a`, with the same multiplicities.
#[ensures(ret -> a.len() == b.len())]
pub fn is_permutation(a: &[i32], b: &[i32]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    // Same length and the same count of every value of `a`: `b` has room for nothing else.
    for i in 0..a.len() {
        let mut in_a = 0;
        let mut in_b = 0;
        for j in 0..a.len() {
            if a[j] == a[i] {
                in_a += 1;
            }
            if b[j] == a[i] {
                in_b += 1;
            }
        }
        if in_a != in_b {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sorted(mut a: Vec<i32>) -> Vec<i32> {
        quicksort(&mut a);
        a
    }

    #[test]
    fn sorts_empty_single_and_equal_arrays() {
        assert_eq!(sorted(vec![]), Vec::<i32>::new());
        assert_eq!(sorted(vec![3]), vec![3]);
        assert_eq!(sorted(vec![4, 4, 4]), vec![4, 4, 4]);
    }

    #[test]
    fn sorts_two_elements() {
        assert_eq!(sorted(vec![2, 1]), vec![1, 2]);
        assert_eq!(sorted(vec![1, 2]), vec![1, 2]);
    }

    #[test]
    fn sorts_a_shuffled_array() {
        assert_eq!(sorted(vec![5, 2, 9, 1, 7, 3]), vec![1, 2, 3, 5, 7, 9]);
        assert_eq!(sorted(vec![6, 5, 4, 3, 2, 1]), vec![1, 2, 3, 4, 5, 6]);
    }

    #[test]
    fn sorts_with_duplicates_and_negatives() {
        assert_eq!(
            sorted(vec![0, -3, 8, -3, 2, 8, 1]),
            vec![-3, -3, 0, 1, 2, 8, 8]
        );
    }

    #[test]
    fn partition_places_the_pivot() {
        let mut a = [2, 2, 2];
        assert_eq!(partition(&mut a), 2);
        let mut a = [7];
        assert_eq!(partition(&mut a), 0);
        let mut a = [3, 4, 1];
        assert_eq!(partition(&mut a), 0);
        assert_eq!(a[0], 1);
        let mut a = [1, 2, 9];
        assert_eq!(partition(&mut a), 2);
        assert_eq!(a, [1, 2, 9]);
    }

    #[test]
    fn partition_splits_around_the_last_element() {
        let mut a = [9, 1, 8, 2, 5];
        let p = partition(&mut a);
        assert_eq!(p, 2);
        assert_eq!(a[p], 5);
        assert!(a[..p].iter().all(|&x| x <= 5));
        assert!(a[p + 1..].iter().all(|&x| x > 5));
    }

    #[test]
    #[should_panic(expected = "Pre-condition of partition violated")]
    fn partition_rejects_the_empty_array() {
        partition(&mut []);
    }

    #[test]
    fn selects_every_rank() {
        let a = [40, 10, 30, 50, 20];
        for k in 0..5 {
            let mut b = a;
            assert_eq!(select_kth(&mut b, k), 10 * (k as i32 + 1));
            assert_eq!(b[k], 10 * (k as i32 + 1));
        }
        let mut b = [5, 5, 1, 5];
        assert_eq!(select_kth(&mut b, 0), 1);
        assert_eq!(select_kth(&mut b, 3), 5);
        assert_eq!(select_kth(&mut [8], 0), 8);
        assert_eq!(select_kth(&mut [3, 4, 1], 2), 4);
    }

    #[test]
    fn medians() {
        assert_eq!(median(&[4]), 4);
        assert_eq!(median(&[3, 1]), 1);
        assert_eq!(median(&[3, 1, 2]), 2);
        assert_eq!(median(&[9, -1, 7, 3]), 3);
        assert_eq!(median(&[6, 2, 8, 4, 10]), 6);
    }

    #[test]
    fn checks_sortedness() {
        assert!(is_sorted(&[]));
        assert!(is_sorted(&[1]));
        assert!(is_sorted(&[1, 1, 2, 3]));
        assert!(!is_sorted(&[2, 1]));
        assert!(!is_sorted(&[1, 2, 4, 3]));
        assert!(!is_sorted(&[1, 0, 2, 3]));
        assert!(!is_sorted(&[1, 3, 2, 4]));
    }

    #[test]
    fn checks_permutations() {
        assert!(is_permutation(&[], &[]));
        assert!(is_permutation(&[1, 2, 2], &[2, 1, 2]));
        assert!(!is_permutation(&[1, 2, 2], &[1, 1, 2]));
        assert!(!is_permutation(&[1, 2], &[1, 2, 3]));
        assert!(!is_permutation(&[1, 2, 3], &[1, 2]));
        assert!(!is_permutation(&[1, 2, 3], &[3, 2, 4]));
        assert!(!is_permutation(&[5], &[6]));
    }
}
