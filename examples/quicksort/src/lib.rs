//! Quicksort on an integer array: the "Quicksort" program of the AutoDebug paper
//! (path-based weakest preconditions), with Lomuto's partition and a wrong relational
//! operator in the partition's comparison. See `fault.json`.

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
        if a[j] >= pivot {
            a.swap(store, j);
            store += 1;
        }
    }
    a.swap(store, last);
    store
}

/// Whether `b` holds the same elements as `a`, with the same multiplicities.
pub fn is_permutation(a: &[i32], b: &[i32]) -> bool {
    let mut a = a.to_vec();
    let mut b = b.to_vec();
    a.sort_unstable();
    b.sort_unstable();
    a == b
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sorted(mut a: Vec<i32>) -> Vec<i32> {
        quicksort(&mut a);
        a
    }

    #[test]
    fn sorts_the_empty_array() {
        assert_eq!(sorted(vec![]), Vec::<i32>::new());
    }

    #[test]
    fn sorts_one_element() {
        assert_eq!(sorted(vec![3]), vec![3]);
    }

    #[test]
    fn sorts_equal_elements() {
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
}
