//! Deterministic sampling: a fixed-seed generator and an order of candidates spread over
//! fault classes and lines, so that the first N candidates tried cover the program evenly.

use std::collections::{BTreeMap, BTreeSet};

use crate::mutate::{FaultClass, Mutation};

/// The seed of every sample (faults.json is reproducible from the corpus).
pub const SEED: u64 = 0x5eed_2024_a07d_ebc6;

/// SplitMix64: small, fast, and the same on every platform.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator for `seed` mixed with `salt` (e.g. a program name).
    pub fn new(seed: u64, salt: &str) -> Rng {
        let mut h = seed;
        for b in salt.bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
        }
        Rng(h)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// Fisher–Yates.
    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            v.swap(i, self.below(i + 1));
        }
    }
}

/// Indices of `candidates` in the order to try them: classes take turns (in a shuffled
/// order), and within a class a line not used yet by any class is preferred.
pub fn spread_order(candidates: &[Mutation], rng: &mut Rng) -> Vec<usize> {
    let mut by_class: BTreeMap<FaultClass, Vec<usize>> = BTreeMap::new();
    for (i, m) in candidates.iter().enumerate() {
        by_class.entry(m.class).or_default().push(i);
    }
    let mut queues: Vec<Vec<usize>> = by_class.into_values().collect();
    for q in &mut queues {
        rng.shuffle(q);
    }
    rng.shuffle(&mut queues);
    let mut used_lines = BTreeSet::new();
    let mut order = Vec::with_capacity(candidates.len());
    while queues.iter().any(|q| !q.is_empty()) {
        for q in queues.iter_mut().filter(|q| !q.is_empty()) {
            let pick = q
                .iter()
                .position(|&i| !used_lines.contains(&candidates[i].line))
                .unwrap_or(0);
            let i = q.remove(pick);
            used_lines.insert(candidates[i].line);
            order.push(i);
        }
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(line: usize, class: FaultClass) -> Mutation {
        Mutation {
            file: "src/lib.rs".into(),
            byte_start: line * 10,
            byte_end: line * 10 + 1,
            line,
            column: 1,
            end_line: line,
            end_column: 2,
            original: "a".into(),
            replacement: format!("b{line}"),
            class,
        }
    }

    #[test]
    fn the_order_is_a_deterministic_permutation_alternating_classes() {
        let mut c = Vec::new();
        for line in 1..=6 {
            c.push(m(line, FaultClass::Constant));
            c.push(m(line, FaultClass::Constant));
        }
        c.push(m(3, FaultClass::Negation));
        c.push(m(9, FaultClass::Negation));
        let a = spread_order(&c, &mut Rng::new(SEED, "p"));
        let b = spread_order(&c, &mut Rng::new(SEED, "p"));
        assert_eq!(a, b);
        let mut sorted = a.clone();
        sorted.sort();
        assert_eq!(sorted, (0..c.len()).collect::<Vec<_>>());
        // The two negations come within the first four picks (classes take turns).
        let first4: Vec<FaultClass> = a[..4].iter().map(|&i| c[i].class).collect();
        assert_eq!(
            first4
                .iter()
                .filter(|&&k| k == FaultClass::Negation)
                .count(),
            2
        );
        // The first six constants are on six different lines... as long as unused lines
        // remain: the first 4 picks name 4 distinct lines.
        let lines: BTreeSet<usize> = a[..4].iter().map(|&i| c[i].line).collect();
        assert_eq!(lines.len(), 4);
        assert_ne!(a, spread_order(&c, &mut Rng::new(SEED, "q")));
    }
}
