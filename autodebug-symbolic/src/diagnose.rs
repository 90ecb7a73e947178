//! Minimal diagnoses as minimal hitting sets of conflicts: Reiter's hitting-set tree with
//! Greiner's correction (the HS-DAG), generic over the theorem prover that finds conflicts.
//!
//! A *diagnosis* is a set of components that, declared abnormal while every other component
//! is normal, makes the observations consistent; a *conflict* is a set of components that
//! cannot all be normal. The minimal diagnoses are exactly the minimal hitting sets of the
//! conflicts (Reiter 1987, theorem 4.4), so the DAG asks the [`ConflictOracle`] only where the
//! conflicts it already knows do not decide, and yields diagnoses in increasing cardinality:
//! every single fault, then every pair, and so on. Non-minimal conflicts (an unsat core
//! usually is one) are where Reiter's tree went wrong; Greiner's correction keeps one node per
//! candidate, reused by every path to it, and prunes by relabelling a node with a smaller
//! conflict and dropping only the nodes left unreachable: the result stays exactly the
//! minimal diagnoses, and the DAG stays as small as the minimal conflicts make it.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt;

/// What the oracle says about one candidate: the components in it abnormal, all others normal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict<C> {
    /// The observations are possible: the candidate is a diagnosis.
    Consistent,
    /// Components outside the candidate that cannot all be normal. It need not be minimal;
    /// empty means that nothing can be explained, whatever is declared abnormal.
    Conflict(BTreeSet<C>),
    /// The oracle could not decide (a solver timeout, an unsupported theory), with its reason.
    Unknown(String),
}

/// The theorem prover of model-based diagnosis, asked about one candidate at a time.
///
/// Its answers must be monotone, as they are when abnormal components behave arbitrarily:
/// a superset of a diagnosis is a diagnosis, and a conflict stays a conflict whatever is
/// declared abnormal outside it.
pub trait ConflictOracle {
    /// How the oracle names a component.
    type Component: Ord + Clone + fmt::Debug;

    /// Checks the candidate `abnormal` (every other component assumed normal).
    fn check(&mut self, abnormal: &BTreeSet<Self::Component>) -> Verdict<Self::Component>;
}

/// The limits of one search; the defaults suit programs of a few hundred components.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    /// The largest diagnosis looked for (1 = single faults only).
    pub max_cardinality: usize,
    /// Stop once this many minimal diagnoses are known.
    pub max_diagnoses: usize,
    /// Stop before the oracle would be asked more than this many times.
    pub max_checks: usize,
    /// Stop before the DAG would grow beyond this many nodes (memory and time without checks).
    pub max_nodes: usize,
}

impl Default for Bounds {
    fn default() -> Self {
        // Triple faults are rare in practice and a bug report rarely needs more than a
        // screenful of candidates; checks are solver calls of up to a timeout each.
        Bounds {
            max_cardinality: 3,
            max_diagnoses: 100,
            max_checks: 1_000,
            max_nodes: 100_000,
        }
    }
}

/// Which bound stopped the search while part of the DAG was still unexplored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cut {
    /// Diagnoses larger than `max_cardinality` may exist.
    Cardinality,
    /// `max_diagnoses` were found; more may exist.
    Diagnoses,
    /// The oracle was asked `max_checks` times.
    Checks,
    /// The DAG reached `max_nodes` nodes.
    Nodes,
}

impl fmt::Display for Cut {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Cut::Cardinality => "diagnoses above the cardinality bound were not searched",
            Cut::Diagnoses => "the search stopped at the bound on the number of diagnoses",
            Cut::Checks => "the search stopped at the bound on solver checks",
            Cut::Nodes => "the search stopped at the bound on the size of the hitting-set DAG",
        })
    }
}

/// A candidate the oracle could not decide: neither claimed a diagnosis nor expanded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Undecided<C> {
    /// The components that were assumed abnormal.
    pub abnormal: BTreeSet<C>,
    /// Why the oracle gave no answer.
    pub reason: String,
}

/// The outcome of one search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnoses<C> {
    /// The minimal diagnoses found, in increasing cardinality (ties in component order).
    pub minimal: Vec<BTreeSet<C>>,
    /// The conflicts learnt, none a superset of another.
    pub conflicts: Vec<BTreeSet<C>>,
    /// Candidates the oracle could not decide: diagnoses through them may be missing.
    pub undecided: Vec<Undecided<C>>,
    /// The bound that cut the search short, if one did.
    pub cut: Option<Cut>,
    /// How many times the oracle was asked.
    pub checks: usize,
    /// How many nodes the DAG created (pruned ones included).
    pub nodes: usize,
}

impl<C> Diagnoses<C> {
    /// True when `minimal` is every minimal diagnosis: no bound cut and no check undecided.
    pub fn is_complete(&self) -> bool {
        self.cut.is_none() && self.undecided.is_empty()
    }

    /// The diagnoses of `cardinality` components.
    pub fn of_cardinality(&self, cardinality: usize) -> impl Iterator<Item = &BTreeSet<C>> {
        self.minimal.iter().filter(move |d| d.len() == cardinality)
    }
}

/// What a node of the DAG stands for once processed.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Label<C> {
    /// Not processed yet.
    Open,
    /// Labelled by a conflict disjoint from the node's path; one child per element.
    Conflict(BTreeSet<C>),
    /// The path is a minimal diagnosis (Reiter's ✓).
    Diagnosis,
    /// The path contains a known diagnosis: not minimal, not expanded (Reiter's ×).
    Closed,
    /// The oracle could not decide; not expanded.
    Undecided,
}

struct Node<C> {
    /// H(n): the edge labels from the root, i.e. the candidate abnormal set.
    path: BTreeSet<C>,
    label: Label<C>,
    parents: Vec<usize>,
    children: BTreeMap<C, usize>,
    /// False once pruning left the node without parents.
    live: bool,
}

/// The HS-DAG under construction.
struct Dag<C> {
    nodes: Vec<Node<C>>,
    /// Live nodes by path: Greiner's reuse, so each candidate is one node.
    by_path: BTreeMap<BTreeSet<C>, usize>,
    conflicts: Vec<BTreeSet<C>>,
}

impl<C: Ord + Clone> Dag<C> {
    fn new() -> Self {
        let mut dag = Dag {
            nodes: Vec::new(),
            by_path: BTreeMap::new(),
            conflicts: Vec::new(),
        };
        dag.add_node(BTreeSet::new(), None);
        dag
    }

    fn add_node(&mut self, path: BTreeSet<C>, parent: Option<usize>) -> usize {
        let id = self.nodes.len();
        self.by_path.insert(path.clone(), id);
        self.nodes.push(Node {
            path,
            label: Label::Open,
            parents: parent.into_iter().collect(),
            children: BTreeMap::new(),
            live: true,
        });
        id
    }

    /// A known conflict the path does not hit, smallest first so the node has few children.
    fn reusable_conflict(&self, path: &BTreeSet<C>) -> Option<BTreeSet<C>> {
        self.conflicts
            .iter()
            .filter(|k| k.is_disjoint(path))
            .min_by_key(|k| k.len())
            .cloned()
    }

    /// Records a conflict the oracle returned. With `prune`, every node labelled by a proper
    /// superset of it is relabelled by it and the edges of the elements it loses are cut,
    /// with the nodes only they reached (Greiner's form of Reiter's pruning): those subtrees
    /// only repeat, with extra elements, candidates reachable through the remaining edges.
    fn learn(&mut self, smaller: &BTreeSet<C>, prune: bool) {
        for id in 0..self.nodes.len() {
            if !prune {
                break;
            }
            let node = &self.nodes[id];
            let Label::Conflict(label) = &node.label else {
                continue;
            };
            if !node.live || label.len() <= smaller.len() || !smaller.is_subset(label) {
                continue;
            }
            let lost: Vec<C> = label.difference(smaller).cloned().collect();
            self.nodes[id].label = Label::Conflict(smaller.clone());
            for element in lost {
                if let Some(child) = self.nodes[id].children.remove(&element) {
                    self.detach(child, id);
                }
            }
        }
        self.conflicts.retain(|k| !smaller.is_subset(k));
        self.conflicts.push(smaller.clone());
    }

    /// Removes the edge `parent → child`; a node left without parents goes, and so on down.
    fn detach(&mut self, child: usize, parent: usize) {
        let mut stack = vec![(child, parent)];
        while let Some((child, parent)) = stack.pop() {
            let node = &mut self.nodes[child];
            node.parents.retain(|&p| p != parent);
            if !node.parents.is_empty() || !node.live {
                continue;
            }
            node.live = false;
            let grandchildren: Vec<usize> =
                std::mem::take(&mut node.children).into_values().collect();
            let path = node.path.clone();
            if self.by_path.get(&path) == Some(&child) {
                self.by_path.remove(&path);
            }
            stack.extend(grandchildren.into_iter().map(|g| (g, child)));
        }
    }
}

/// Computes the minimal diagnoses the oracle's conflicts admit, in increasing cardinality,
/// within `bounds`.
pub fn diagnose<O: ConflictOracle>(oracle: &mut O, bounds: &Bounds) -> Diagnoses<O::Component> {
    search(oracle, bounds, true)
}

/// The HS-DAG search; `prune` off only to measure what pruning saves.
fn search<O: ConflictOracle>(
    oracle: &mut O,
    bounds: &Bounds,
    prune: bool,
) -> Diagnoses<O::Component> {
    let mut dag: Dag<O::Component> = Dag::new();
    let mut minimal: Vec<BTreeSet<O::Component>> = Vec::new();
    let mut undecided = Vec::new();
    let mut checks = 0;
    let mut cut = None;
    // Breadth first, so that every diagnosis of k components is known before any node of
    // k + 1 is processed: that is what makes closing (and the order of the result) right.
    let mut queue: VecDeque<usize> = VecDeque::from([0]);

    while let Some(id) = queue.pop_front() {
        if !dag.nodes[id].live {
            continue;
        }
        let path = dag.nodes[id].path.clone();
        if minimal.iter().any(|d| d.is_subset(&path)) {
            dag.nodes[id].label = Label::Closed;
            continue;
        }
        if minimal.len() >= bounds.max_diagnoses {
            // This node is not closed by what is known: it may lead to more diagnoses.
            cut = Some(Cut::Diagnoses);
            break;
        }
        let label = match dag.reusable_conflict(&path) {
            Some(known) => known,
            None => {
                if checks >= bounds.max_checks {
                    cut = Some(Cut::Checks);
                    break;
                }
                checks += 1;
                match oracle.check(&path) {
                    Verdict::Consistent => {
                        dag.nodes[id].label = Label::Diagnosis;
                        minimal.push(path);
                        continue;
                    }
                    Verdict::Unknown(reason) => {
                        dag.nodes[id].label = Label::Undecided;
                        undecided.push(Undecided {
                            abnormal: path,
                            reason,
                        });
                        continue;
                    }
                    Verdict::Conflict(conflict) if !conflict.is_disjoint(&path) => {
                        // A conflict must consist of components assumed normal; anything
                        // else is an oracle defect, reported rather than trusted.
                        dag.nodes[id].label = Label::Undecided;
                        undecided.push(Undecided {
                            abnormal: path,
                            reason: format!(
                                "the oracle returned a conflict {conflict:?} that contains \
                                 components assumed abnormal"
                            ),
                        });
                        continue;
                    }
                    Verdict::Conflict(conflict) => {
                        dag.learn(&conflict, prune);
                        if !dag.nodes[id].live {
                            // The smaller conflict pruned the branch this node was on.
                            continue;
                        }
                        conflict
                    }
                }
            }
        };
        dag.nodes[id].label = Label::Conflict(label.clone());
        if path.len() >= bounds.max_cardinality {
            continue;
        }
        for element in label {
            let mut child_path = path.clone();
            child_path.insert(element.clone());
            let child = match dag.by_path.get(&child_path) {
                Some(&existing) => {
                    dag.nodes[existing].parents.push(id);
                    existing
                }
                None => {
                    if dag.nodes.len() >= bounds.max_nodes {
                        cut = Some(Cut::Nodes);
                        break;
                    }
                    let created = dag.add_node(child_path, Some(id));
                    queue.push_back(created);
                    created
                }
            };
            dag.nodes[id].children.insert(element, child);
        }
        if cut.is_some() {
            break;
        }
    }

    if cut.is_none() && beyond_cardinality(&dag, &minimal, bounds.max_cardinality) {
        cut = Some(Cut::Cardinality);
    }
    minimal.sort_by(|a, b| a.len().cmp(&b.len()).then_with(|| a.cmp(b)));
    Diagnoses {
        minimal,
        conflicts: dag.conflicts,
        undecided,
        cut,
        checks,
        nodes: dag.nodes.len(),
    }
}

/// True when a node at the cardinality bound has a child that no known diagnosis closes:
/// only then may a larger minimal diagnosis have been missed.
fn beyond_cardinality<C: Ord + Clone>(
    dag: &Dag<C>,
    minimal: &[BTreeSet<C>],
    max_cardinality: usize,
) -> bool {
    dag.nodes.iter().any(|node| {
        let Label::Conflict(label) = &node.label else {
            return false;
        };
        node.live
            && node.path.len() >= max_cardinality
            && label.iter().any(|element| {
                let mut child = node.path.clone();
                child.insert(element.clone());
                !minimal.iter().any(|d| d.is_subset(&child))
            })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set<C: Ord + Clone>(items: &[C]) -> BTreeSet<C> {
        items.iter().cloned().collect()
    }

    fn sets<C: Ord + Clone>(items: &[&[C]]) -> Vec<BTreeSet<C>> {
        items.iter().map(|s| set(s)).collect()
    }

    /// Reiter's theorem prover over a fixed collection of conflicts: the first conflict the
    /// candidate does not hit, as given (so possibly non-minimal), or consistent.
    struct Listed<C> {
        conflicts: Vec<BTreeSet<C>>,
        asked: Vec<BTreeSet<C>>,
    }

    impl<C: Ord + Clone> Listed<C> {
        fn new(conflicts: Vec<BTreeSet<C>>) -> Self {
            Listed {
                conflicts,
                asked: Vec::new(),
            }
        }
    }

    impl<C: Ord + Clone + fmt::Debug> ConflictOracle for Listed<C> {
        type Component = C;
        fn check(&mut self, abnormal: &BTreeSet<C>) -> Verdict<C> {
            self.asked.push(abnormal.clone());
            match self.conflicts.iter().find(|k| k.is_disjoint(abnormal)) {
                Some(k) => Verdict::Conflict(k.clone()),
                None => Verdict::Consistent,
            }
        }
    }

    /// An oracle that knows the true conflicts but answers with everything assumed normal,
    /// the least helpful conflict there is (Könighofer & Bloem's `CMP \ N`).
    struct Complement {
        components: BTreeSet<u32>,
        conflicts: Vec<BTreeSet<u32>>,
    }

    impl ConflictOracle for Complement {
        type Component = u32;
        fn check(&mut self, abnormal: &BTreeSet<u32>) -> Verdict<u32> {
            if self.conflicts.iter().any(|k| k.is_disjoint(abnormal)) {
                Verdict::Conflict(self.components.difference(abnormal).cloned().collect())
            } else {
                Verdict::Consistent
            }
        }
    }

    /// Every minimal hitting set of `conflicts` over `components`, by enumeration.
    fn brute_force(components: &[u32], conflicts: &[BTreeSet<u32>]) -> Vec<BTreeSet<u32>> {
        let mut hitting: Vec<BTreeSet<u32>> = Vec::new();
        for mask in 0u32..(1 << components.len()) {
            let candidate: BTreeSet<u32> = components
                .iter()
                .enumerate()
                .filter(|(i, _)| mask & (1 << i) != 0)
                .map(|(_, c)| *c)
                .collect();
            if conflicts.iter().all(|k| !k.is_disjoint(&candidate)) {
                hitting.push(candidate);
            }
        }
        let mut minimal: Vec<BTreeSet<u32>> = hitting
            .iter()
            .filter(|h| !hitting.iter().any(|o| o != *h && o.is_subset(h)))
            .cloned()
            .collect();
        minimal.sort_by(|a, b| a.len().cmp(&b.len()).then_with(|| a.cmp(b)));
        minimal
    }

    fn unbounded() -> Bounds {
        Bounds {
            max_cardinality: usize::MAX,
            max_diagnoses: usize::MAX,
            max_checks: usize::MAX,
            max_nodes: usize::MAX,
        }
    }

    /// The collection of Reiter's paper (section 4, the HS-tree figure).
    fn reiter_conflicts() -> Vec<BTreeSet<u32>> {
        sets(&[
            &[2, 4, 5],
            &[1, 2, 3],
            &[1, 3, 5],
            &[2, 4, 6],
            &[2, 4],
            &[2, 3, 5],
            &[1, 6],
        ])
    }

    #[test]
    fn reiters_example_gives_its_minimal_hitting_sets_smallest_first() {
        let mut oracle = Listed::new(reiter_conflicts());
        let result = diagnose(&mut oracle, &unbounded());
        let expected = sets(&[
            &[1, 2],
            &[1, 3, 4],
            &[1, 4, 5],
            &[2, 3, 6],
            &[2, 5, 6],
            &[3, 4, 6],
        ]);
        assert_eq!(result.minimal, expected);
        assert_eq!(
            result.minimal,
            brute_force(&[1, 2, 3, 4, 5, 6], &reiter_conflicts())
        );
        assert!(result.is_complete());
        // {2, 4} ⊂ {2, 4, 5} and {2, 4, 6}: pruning keeps only minimal conflicts learnt.
        for k in &result.conflicts {
            assert!(!result.conflicts.iter().any(|o| o != k && o.is_subset(k)));
        }
        // Known conflicts label most nodes: the oracle sees only candidates they do not
        // decide, each once, and far fewer than the DAG's nodes.
        assert_eq!(result.checks, oracle.asked.len());
        let distinct: BTreeSet<_> = oracle.asked.iter().collect();
        assert_eq!(distinct.len(), oracle.asked.len());
        assert!(
            result.checks < result.nodes,
            "{} checks, {} nodes",
            result.checks,
            result.nodes
        );
    }

    #[test]
    fn greiners_correction_recovers_what_non_minimal_conflicts_hide() {
        // Greiner, Smith & Wilkerson's counterexample to Reiter's pruning: {b} comes last,
        // after conflicts that contain it. The minimal conflicts are {b} and {a, c}.
        let conflicts: Vec<BTreeSet<char>> =
            sets(&[&['a', 'b'], &['b', 'c'], &['a', 'c'], &['b', 'd'], &['b']]);
        let mut oracle = Listed::new(conflicts);
        let result = diagnose(&mut oracle, &unbounded());
        assert_eq!(result.minimal, sets(&[&['a', 'b'], &['b', 'c']]));
        let mut learnt = result.conflicts.clone();
        learnt.sort();
        assert_eq!(learnt, sets(&[&['a', 'c'], &['b']]));
        assert!(result.is_complete());
    }

    #[test]
    fn the_least_helpful_conflicts_still_give_exactly_the_minimal_diagnoses() {
        let components: Vec<u32> = (0..6).collect();
        let truth = sets(&[&[0, 1], &[1, 2, 3], &[3, 4], &[0, 5]]);
        let mut oracle = Complement {
            components: components.iter().copied().collect(),
            conflicts: truth.clone(),
        };
        let result = diagnose(&mut oracle, &unbounded());
        assert_eq!(result.minimal, brute_force(&components, &truth));
        assert!(result.is_complete());
        let without = search(&mut oracle, &unbounded(), false);
        assert_eq!(without.minimal, result.minimal);
    }

    #[test]
    fn everything_consistent_gives_the_empty_diagnosis_alone() {
        let mut oracle = Listed::<u32>::new(Vec::new());
        let result = diagnose(&mut oracle, &Bounds::default());
        assert_eq!(result.minimal, vec![BTreeSet::new()]);
        assert_eq!(result.checks, 1);
        assert!(result.is_complete());
    }

    #[test]
    fn an_empty_conflict_means_no_diagnosis_at_all() {
        // Inconsistent even with every component abnormal: the specification contradicts
        // the inputs themselves, and no set of components explains anything.
        let mut oracle = Listed::new(sets::<u32>(&[&[]]));
        let result = diagnose(&mut oracle, &Bounds::default());
        assert!(result.minimal.is_empty());
        assert_eq!(result.conflicts, vec![BTreeSet::new()]);
        assert!(result.is_complete());
    }

    #[test]
    fn the_cardinality_bound_says_it_cut_only_when_it_did() {
        let mut oracle = Listed::new(reiter_conflicts());
        let singles_and_pairs = Bounds {
            max_cardinality: 2,
            ..unbounded()
        };
        let result = diagnose(&mut oracle, &singles_and_pairs);
        assert_eq!(result.minimal, sets(&[&[1, 2]]));
        assert_eq!(result.cut, Some(Cut::Cardinality));

        // With conflicts {1, 2} and {3}, both minimal diagnoses are pairs and nothing
        // beyond them is minimal: a bound of 2 cuts nothing.
        let mut oracle = Listed::new(sets::<u32>(&[&[1, 2], &[3]]));
        let pairs = Bounds {
            max_cardinality: 2,
            ..unbounded()
        };
        let result = diagnose(&mut oracle, &pairs);
        assert_eq!(result.minimal, sets(&[&[1, 3], &[2, 3]]));
        assert_eq!(result.cut, None);
    }

    #[test]
    fn the_diagnosis_and_check_bounds_stop_the_search_and_say_so() {
        let mut oracle = Listed::new(reiter_conflicts());
        let two = Bounds {
            max_diagnoses: 2,
            ..unbounded()
        };
        let result = diagnose(&mut oracle, &two);
        assert_eq!(result.minimal.len(), 2);
        assert_eq!(result.minimal[0], set(&[1, 2]));
        assert_eq!(result.cut, Some(Cut::Diagnoses));

        let mut oracle = Listed::new(reiter_conflicts());
        let three_checks = Bounds {
            max_checks: 3,
            ..unbounded()
        };
        let result = diagnose(&mut oracle, &three_checks);
        assert_eq!(result.checks, 3);
        assert_eq!(oracle.asked.len(), 3);
        assert_eq!(result.cut, Some(Cut::Checks));
        assert!(!result.is_complete());
    }

    #[test]
    fn a_bound_of_as_many_diagnoses_as_there_are_cuts_nothing() {
        let mut oracle = Listed::new(sets::<u32>(&[&[1, 2]]));
        let two = Bounds {
            max_diagnoses: 2,
            ..unbounded()
        };
        let result = diagnose(&mut oracle, &two);
        assert_eq!(result.minimal, sets(&[&[1], &[2]]));
        assert_eq!(result.cut, None);

        let none = Bounds {
            max_diagnoses: 0,
            ..unbounded()
        };
        let result = diagnose(&mut oracle, &none);
        assert!(result.minimal.is_empty());
        assert_eq!(result.cut, Some(Cut::Diagnoses));
    }

    #[test]
    fn the_node_bound_stops_the_search_and_says_so() {
        let mut oracle = Listed::new(reiter_conflicts());
        let few_nodes = Bounds {
            max_nodes: 5,
            ..unbounded()
        };
        let result = diagnose(&mut oracle, &few_nodes);
        assert!(result.nodes <= 5);
        assert_eq!(result.cut, Some(Cut::Nodes));
    }

    #[test]
    fn pruning_relabels_by_the_smaller_conflict_and_drops_only_unreachable_nodes() {
        // The DAG of Greiner's example after {a, b} at the root, {b, c} at {a}, {a, c} at
        // {b}: {a, b} is reached from both {a} and {b}, {a, c} only from {a}.
        let mut dag: Dag<char> = Dag::new();
        dag.nodes[0].label = Label::Conflict(set(&['a', 'b']));
        let a = dag.add_node(set(&['a']), Some(0));
        let b = dag.add_node(set(&['b']), Some(0));
        dag.nodes[0].children = BTreeMap::from([('a', a), ('b', b)]);
        dag.nodes[a].label = Label::Conflict(set(&['b', 'c']));
        dag.nodes[b].label = Label::Conflict(set(&['a', 'c']));
        let ab = dag.add_node(set(&['a', 'b']), Some(a));
        dag.nodes[ab].parents.push(b);
        let ac = dag.add_node(set(&['a', 'c']), Some(a));
        let bc = dag.add_node(set(&['b', 'c']), Some(b));
        dag.nodes[a].children = BTreeMap::from([('b', ab), ('c', ac)]);
        dag.nodes[b].children = BTreeMap::from([('a', ab), ('c', bc)]);
        dag.conflicts = sets(&[&['a', 'b'], &['b', 'c'], &['a', 'c']]);

        dag.learn(&set(&['b']), true);

        assert_eq!(dag.nodes[0].label, Label::Conflict(set(&['b'])));
        assert_eq!(dag.nodes[0].children, BTreeMap::from([('b', b)]));
        let live: BTreeSet<BTreeSet<char>> = dag
            .nodes
            .iter()
            .filter(|n| n.live)
            .map(|n| n.path.clone())
            .collect();
        let expected: BTreeSet<BTreeSet<char>> = sets(&[&[], &['b'], &['a', 'b'], &['b', 'c']])
            .into_iter()
            .collect();
        assert_eq!(live, expected);
        assert_eq!(dag.nodes[ab].parents, vec![b]);
        assert!(!dag.by_path.contains_key(&set(&['a', 'c'])));
        let mut learnt = dag.conflicts.clone();
        learnt.sort();
        assert_eq!(learnt, sets(&[&['a', 'c'], &['b']]));
    }

    /// An oracle that cannot decide candidates containing `blind`.
    struct Blind {
        inner: Listed<u32>,
        blind: u32,
    }

    impl ConflictOracle for Blind {
        type Component = u32;
        fn check(&mut self, abnormal: &BTreeSet<u32>) -> Verdict<u32> {
            if abnormal.contains(&self.blind) {
                Verdict::Unknown("timeout".into())
            } else {
                self.inner.check(abnormal)
            }
        }
    }

    #[test]
    fn undecided_checks_are_reported_never_claimed_as_diagnoses() {
        // Conflicts {1, 2} and {1, 3}: diagnoses {1} and {2, 3}; the oracle cannot decide
        // any candidate with 1 in it.
        let mut oracle = Blind {
            inner: Listed::new(sets(&[&[1, 2], &[1, 3]])),
            blind: 1,
        };
        let result = diagnose(&mut oracle, &unbounded());
        assert_eq!(result.minimal, sets(&[&[2, 3]]));
        // {1} and then {1, 2} were asked: either may be a minimal diagnosis.
        let undecided: Vec<_> = result
            .undecided
            .iter()
            .map(|u| u.abnormal.clone())
            .collect();
        assert_eq!(undecided, sets(&[&[1], &[1, 2]]));
        assert!(result.undecided.iter().all(|u| u.reason == "timeout"));
        assert!(!result.is_complete());
    }

    /// An oracle that breaks its contract by naming an abnormal component in a conflict.
    struct Careless;

    impl ConflictOracle for Careless {
        type Component = u32;
        fn check(&mut self, _abnormal: &BTreeSet<u32>) -> Verdict<u32> {
            Verdict::Conflict(set(&[1]))
        }
    }

    #[test]
    fn a_conflict_meeting_the_candidate_is_reported_not_trusted() {
        let result = diagnose(&mut Careless, &unbounded());
        assert!(result.minimal.is_empty());
        assert_eq!(result.undecided.len(), 1);
        assert_eq!(result.undecided[0].abnormal, set(&[1]));
        assert!(result.undecided[0].reason.contains("assumed abnormal"));
    }

    /// A small xorshift generator: the randomised comparison below needs no dependency and
    /// must be reproducible.
    struct Xorshift(u64);

    impl Xorshift {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    /// Returns random supersets of the true conflicts, in a random order, so that the DAG
    /// meets non-minimal conflicts before the minimal ones inside them.
    struct Noisy {
        components: Vec<u32>,
        conflicts: Vec<BTreeSet<u32>>,
        rng: Xorshift,
    }

    impl ConflictOracle for Noisy {
        type Component = u32;
        fn check(&mut self, abnormal: &BTreeSet<u32>) -> Verdict<u32> {
            let unhit: Vec<&BTreeSet<u32>> = self
                .conflicts
                .iter()
                .filter(|k| k.is_disjoint(abnormal))
                .collect();
            if unhit.is_empty() {
                return Verdict::Consistent;
            }
            let mut conflict = unhit[self.rng.below(unhit.len() as u64) as usize].clone();
            for c in &self.components {
                if !abnormal.contains(c) && self.rng.below(3) == 0 {
                    conflict.insert(*c);
                }
            }
            Verdict::Conflict(conflict)
        }
    }

    #[test]
    fn random_collections_and_noisy_conflicts_agree_with_enumeration() {
        let mut rng = Xorshift(0x9e37_79b9_7f4a_7c15);
        for _ in 0..400 {
            let n = 2 + rng.below(6) as u32;
            let components: Vec<u32> = (0..n).collect();
            let conflicts: Vec<BTreeSet<u32>> = (0..1 + rng.below(6))
                .map(|_| {
                    let size = 1 + rng.below(3);
                    (0..size).map(|_| rng.below(n as u64) as u32).collect()
                })
                .collect();
            let expected = brute_force(&components, &conflicts);
            let mut oracle = Noisy {
                components: components.clone(),
                conflicts: conflicts.clone(),
                rng: Xorshift(rng.next() | 1),
            };
            let result = diagnose(&mut oracle, &unbounded());
            assert_eq!(result.minimal, expected, "conflicts {conflicts:?}");
            assert!(result.is_complete());
            let without = search(&mut oracle, &unbounded(), false);
            assert_eq!(without.minimal, expected, "conflicts {conflicts:?}");
        }
    }
}
