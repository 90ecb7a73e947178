//! Runs as the paper sees them (Wang & Roychoudhury, section 3): a sequence of events, each
//! at a statement, with the event it is dynamically control dependent on; the alignment of
//! two runs by dynamic control dependence (Definition 2); the distance `dist(π, π')` as the
//! aligned branch events of `π` whose outcome differs in `π'` (Definition 3); and the
//! comparison of distances, later differences first, then fewer (Definition 4).

use std::collections::HashMap;

use autodebug_runtime::protocol::SiteKey;
use serde::{Deserialize, Serialize};

/// What happened at an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Kind {
    /// Entry of a function (the first event of the run is the entry of the call under
    /// study; a callee's entry depends on the event its call site depends on).
    Entry,
    /// A branch with its outcome.
    Branch(bool),
    /// One iteration of a loop (a `for`, `while` or `loop` head taking its body).
    Iteration,
}

/// One event of a run.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Event {
    /// The statement (a site: the branch, loop head or function entry).
    pub stmt: SiteKey,
    /// What happened there.
    pub kind: Kind,
    /// `dep(e, π)`: the index of the event this one is dynamically control dependent on
    /// (none for the first event).
    pub dep: Option<usize>,
}

impl Event {
    /// Whether this is a branch event.
    pub fn is_branch(&self) -> bool {
        matches!(self.kind, Kind::Branch(_))
    }
}

/// Whether event `i` of `run` is (transitively) dynamically control dependent on event
/// `on`.
pub fn depends_on(run: &[Event], i: usize, on: usize) -> bool {
    let mut at = run.get(i).and_then(|e| e.dep);
    while let Some(d) = at {
        if d == on {
            return true;
        }
        if d < on {
            return false;
        }
        at = run.get(d).and_then(|e| e.dep);
    }
    false
}

/// `align_{π,π'}` (Definition 2): for each event of `a`, the event of `b` it is aligned
/// with. Two events align when they are at the same statement and either both are the
/// first events of their runs or the events they depend on align. Several events at one
/// statement that depend on one event (a function called twice from one statement) align
/// in order of occurrence.
pub fn align(a: &[Event], b: &[Event]) -> Vec<Option<usize>> {
    let mut by_dep: HashMap<(Option<usize>, &SiteKey), Vec<usize>> = HashMap::new();
    for (j, e) in b.iter().enumerate() {
        by_dep.entry((e.dep, &e.stmt)).or_default().push(j);
    }
    let mut seen: HashMap<(Option<usize>, &SiteKey), usize> = HashMap::new();
    let mut out: Vec<Option<usize>> = Vec::with_capacity(a.len());
    for (i, e) in a.iter().enumerate() {
        let aligned = if i == 0 {
            b.first().filter(|f| f.stmt == e.stmt).map(|_| 0)
        } else {
            match e.dep.and_then(|d| out.get(d).copied().flatten()) {
                None => None,
                Some(d2) => {
                    let k = seen.entry((e.dep, &e.stmt)).or_insert(0);
                    let found = by_dep
                        .get(&(Some(d2), &e.stmt))
                        .and_then(|js| js.get(*k))
                        .copied();
                    *k += 1;
                    found
                }
            }
        };
        out.push(aligned);
    }
    out
}

/// `dist(π, π')` (Definition 3): the indices (in `a`) of the branch events of `a` aligned
/// with a branch event of `b` of the other outcome, in the order of `a`. When both runs
/// have the same control flow it is `⟨e0⟩` (index 0), which Definition 4 ranks behind
/// every distance of a run whose control flow differs.
pub fn dist(a: &[Event], b: &[Event]) -> Vec<usize> {
    let same_flow = a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| x.stmt == y.stmt && x.kind == y.kind);
    if same_flow {
        return vec![0];
    }
    let aligned = align(a, b);
    a.iter()
        .enumerate()
        .filter_map(|(i, e)| {
            let j = aligned[i]?;
            match (e.kind, b[j].kind) {
                (Kind::Branch(x), Kind::Branch(y)) if x != y => Some(i),
                _ => None,
            }
        })
        .collect()
}

/// `d1 < d2` (Definition 4), for two distances from one run given as indices into it: with
/// `K` the length of their common suffix, either `d1` is that suffix and shorter than `d2`,
/// or the `K+1`-th event from the end of `d1` comes later in the run than that of `d2`.
pub fn closer(d1: &[usize], d2: &[usize]) -> bool {
    let (n, m) = (d1.len(), d2.len());
    let k = d1
        .iter()
        .rev()
        .zip(d2.iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    if k == n {
        return n < m;
    }
    if k == m {
        return false;
    }
    d1[n - 1 - k] > d2[m - 1 - k]
}

#[cfg(test)]
mod tests {
    use super::*;
    use autodebug_runtime::protocol::SiteKind;

    fn stmt(line: u32) -> SiteKey {
        SiteKey {
            file: "fig2.c".into(),
            line,
            column: 1,
            kind: SiteKind::If,
        }
    }

    /// A run of Figure 2's program, as the statements executed; branches at 1, 3, 5, 6
    /// (their outcome is whether the next statement is the one they guard), 10 the end.
    fn run(lines: &[u32]) -> Vec<Event> {
        // Static control dependence of Figure 2: 2 on 1, 4 on 3, 6 on 5, 7 and 9 on 6.
        let parent = |l: u32| match l {
            2 => Some(1),
            4 => Some(3),
            6 => Some(5),
            7 | 9 => Some(6),
            _ => None,
        };
        let mut events: Vec<Event> = vec![Event {
            stmt: stmt(0),
            kind: Kind::Entry,
            dep: None,
        }];
        for (i, &l) in lines.iter().enumerate() {
            let next = lines.get(i + 1).copied();
            let kind = match l {
                1 => Kind::Branch(next == Some(2)),
                3 => Kind::Branch(next == Some(4)),
                5 => Kind::Branch(next == Some(6)),
                6 => Kind::Branch(next == Some(7)),
                _ => Kind::Iteration,
            };
            let dep = match parent(l) {
                None => Some(0),
                Some(p) => events.iter().rposition(|e| e.stmt == stmt(p)),
            };
            events.push(Event {
                stmt: stmt(l),
                kind,
                dep,
            });
        }
        events
    }

    fn lines_of(run: &[Event], indices: &[usize]) -> Vec<u32> {
        indices.iter().map(|&i| run[i].stmt.line).collect()
    }

    #[test]
    fn table_1_distances_and_their_comparison() {
        let pi = run(&[1, 3, 5, 6, 7, 10]);
        let pi1 = run(&[1, 3, 4, 5, 6, 9, 10]);
        let pi2 = run(&[1, 2, 3, 5, 6, 9, 10]);
        let d1 = dist(&pi, &pi1);
        let d2 = dist(&pi, &pi2);
        assert_eq!(lines_of(&pi, &d1), [3, 6]);
        assert_eq!(lines_of(&pi, &d2), [1, 6]);
        assert!(closer(&d1, &d2));
        assert!(!closer(&d2, &d1));
        // Aligned events at the same statement: 10 of π with 10 of π'.
        let aligned = align(&pi, &pi1);
        assert_eq!(aligned[6].map(|j| pi1[j].stmt.line), Some(10));
    }

    #[test]
    fn same_control_flow_is_farther_than_any_difference() {
        let pi = run(&[1, 3, 5, 6, 7, 10]);
        let same = dist(&pi, &pi.clone());
        assert_eq!(same, [0]);
        let other = dist(&pi, &run(&[1, 2, 3, 5, 6, 7, 10]));
        assert_eq!(lines_of(&pi, &other), [1]);
        assert!(closer(&other, &same));
        assert!(!closer(&same, &other));
    }

    #[test]
    fn a_suffix_is_closer_and_later_beats_fewer() {
        assert!(closer(&[6], &[3, 6]));
        assert!(!closer(&[3, 6], &[6]));
        assert!(closer(&[1, 5], &[3]));
        assert!(closer(&[1, 3, 6], &[1, 6]));
        assert!(!closer(&[4], &[4]));
    }

    #[test]
    fn unaligned_events_are_not_in_the_distance() {
        // π'' skips 6 altogether (5 false): 6 cannot be aligned, 5 differs.
        let pi = run(&[1, 3, 5, 6, 7, 10]);
        let d = dist(&pi, &run(&[1, 3, 5, 10]));
        assert_eq!(lines_of(&pi, &d), [5]);
        assert!(depends_on(&pi, 4, 3));
        assert!(!depends_on(&pi, 3, 2));
    }
}
