//! The workload of the overhead benchmark (`bench/overhead.sh`): the `quicksort` example
//! with its fault fixed, plus a binary search, under contracts whose cost is small next to
//! the work of the function (bounds, a returned index, the pivot's place) — the kind a user
//! keeps on in every test build. The tests sort and search a few thousand pseudo-random
//! arrays so that the suite, not process start-up, dominates the measured time.

use autodebug_runtime::{ensures, requires};

/// Sorts `a` in ascending order, in place.
///
/// No contract here on purpose: this function is called once per element (mostly on
/// slices of length 0 or 1, where it does nothing), so even an O(1) postcondition costs as
/// much as the call itself; its work is checked through `partition`'s contracts.
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
#[ensures(a[ret] == old(a[a.len() - 1]), "the pivot must end at the returned index")]
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

/// The index of `x` in the sorted slice `a`, or `None` when `x` does not occur in it.
#[requires(a.len() < 2 || a[0] <= a[a.len() - 1], "the array must be sorted")]
#[ensures(ret.is_some() -> a[ret.unwrap()] == x)]
pub fn binary_search(a: &[i32], x: i32) -> Option<usize> {
    let mut lo = 0;
    let mut hi = a.len();
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if a[mid] == x {
            return Some(mid);
        }
        if a[mid] < x {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator (xorshift32): every run measures the same work.
    struct Rng(u32);

    impl Rng {
        fn next(&mut self) -> i32 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 17;
            self.0 ^= self.0 << 5;
            (self.0 % 10_000) as i32 - 5_000
        }

        fn array(&mut self, len: usize) -> Vec<i32> {
            (0..len).map(|_| self.next()).collect()
        }
    }

    fn check_sorted(a: &[i32], original: &[i32]) {
        assert!(a.windows(2).all(|w| w[0] <= w[1]), "not sorted: {a:?}");
        let mut expected = original.to_vec();
        expected.sort_unstable();
        assert_eq!(a, &expected[..]);
    }

    #[test]
    fn sorts_random_arrays() {
        let mut rng = Rng(0x1234_5678);
        for len in (0..1_500).map(|i| i % 300) {
            let original = rng.array(len);
            let mut a = original.clone();
            quicksort(&mut a);
            check_sorted(&a, &original);
        }
    }

    #[test]
    fn sorts_arrays_with_many_duplicates() {
        let mut rng = Rng(0x9e37_79b9);
        for len in (0..1_000).map(|i| 50 + i % 250) {
            let original: Vec<i32> = rng.array(len).iter().map(|x| x % 7).collect();
            let mut a = original.clone();
            quicksort(&mut a);
            check_sorted(&a, &original);
        }
    }

    #[test]
    fn finds_every_element_of_sorted_arrays() {
        let mut rng = Rng(0xdead_beef);
        for len in (0..400).map(|i| 1 + i % 200) {
            let mut a = rng.array(len);
            quicksort(&mut a);
            for &x in &a {
                let i = binary_search(&a, x).expect("present");
                assert_eq!(a[i], x);
            }
            assert_eq!(binary_search(&a, 6_000), None);
            assert_eq!(binary_search(&a, -6_000), None);
        }
    }
}
