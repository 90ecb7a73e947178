//! The path-generation algorithm of Figure 3 (`generatePaths`), over any space of runs that
//! can flip a branch event of a run, tell whether part of a run is feasible and try a run.
//!
//! From the failing run `π_f`, branch events are flipped last first; after a flip, earlier
//! branch events are flipped on top of it (the runs are built incrementally from the runs of
//! the shorter distance); a branch event that a flipped event depends on cannot be flipped
//! with it and is skipped, and runs whose suffix from it is infeasible are dropped. The runs
//! come out in the order of Definition 4 (Theorem 1), each distance at most `cap` times.

use super::distance::{Event, Kind, depends_on};

/// A space of runs the search walks: the operations Figure 3 needs.
pub trait Space {
    /// A run, with whatever the space needs to rebuild or check it.
    type Run;

    /// The events of a run.
    fn events<'a>(&'a self, run: &'a Self::Run) -> &'a [Event];

    /// `get_all` and lines 6-13: the runs `π1 ∘ π' ∘ π2` made from `run` by evaluating its
    /// branch event `br` (an index shared with the failing run: the two agree before it)
    /// differently, `π'` ranging over the paths from `br` to `de = pde(br, run)`, the first
    /// event after `br` not (transitively) control dependent on it, and `π2` the rest of
    /// `run` from `de`. Runs whose `π' ∘ π2` is infeasible are left out (line 11).
    fn flip(&mut self, run: &Self::Run, br: usize) -> Vec<Self::Run>;

    /// Whether the sub-path of `run` from its event `from` to its end is feasible (line 26).
    /// A space that cannot tell says `true`: it prunes nothing.
    fn suffix_feasible(&mut self, run: &Self::Run, from: usize) -> bool;

    /// Whether `run` is feasible and successful (line 14); `distance` is its distance from
    /// the failing run, as indices into it.
    fn try_run(&mut self, run: &Self::Run, distance: &[usize]) -> bool;

    /// Whether the search must stop (a time or run budget is spent).
    fn exhausted(&self) -> bool {
        false
    }
}

/// The bounds the paper's implementation puts on the search (section 5.3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bounds {
    /// Branches of loops (a `while` condition, a branch whose arm leaves or restarts its
    /// loop) are flipped too. The paper flips none: the run keeps its iteration counts.
    pub flip_loops: bool,
    /// Runs built for one distance (one set of flipped branch events) at most.
    pub paths_per_distance: usize,
}

impl Default for Bounds {
    fn default() -> Self {
        Bounds {
            flip_loops: false,
            paths_per_distance: 8,
        }
    }
}

/// The search over the failing run's events: which events may be flipped.
pub struct Search<'f, S: Space> {
    space: S,
    failing: &'f [Event],
    flippable: Vec<bool>,
    bounds: Bounds,
}

impl<'f, S: Space> Search<'f, S> {
    /// A search from the failing run `failing` (its events) in `space`. `loop_branch` says
    /// which events are branches of loops (not flipped unless the bounds allow it).
    pub fn new(
        space: S,
        failing: &'f [Event],
        loop_branch: impl Fn(usize) -> bool,
        bounds: Bounds,
    ) -> Search<'f, S> {
        let flippable = failing
            .iter()
            .enumerate()
            .map(|(i, e)| {
                matches!(e.kind, Kind::Branch(_)) && (bounds.flip_loops || !loop_branch(i))
            })
            .collect();
        Search {
            space,
            failing,
            flippable,
            bounds,
        }
    }

    /// The space, after the search.
    pub fn into_space(self) -> S {
        self.space
    }

    /// The space.
    pub fn space(&self) -> &S {
        &self.space
    }

    /// `generatePaths({π_f}, e_last, ⟨⟩)`: the first feasible successful run found, with
    /// its distance (indices into the failing run).
    pub fn run(&mut self, failing: S::Run) -> Option<(S::Run, Vec<usize>)> {
        if self.failing.is_empty() {
            return None;
        }
        let last = self.failing.len();
        self.generate(vec![failing], last, Vec::new())
    }

    /// The flippable branch event just before `at` in the failing run.
    fn before(&self, at: usize) -> Option<usize> {
        (0..at).rev().find(|&i| self.flippable[i])
    }

    fn generate(
        &mut self,
        mut paths: Vec<S::Run>,
        last: usize,
        distance: Vec<usize>,
    ) -> Option<(S::Run, Vec<usize>)> {
        let mut br = self.before(last);
        while let Some(b) = br {
            if self.space.exhausted() {
                return None;
            }
            let blocked = distance.iter().any(|&d| depends_on(self.failing, d, b));
            if !blocked {
                let mut wider = vec![b];
                wider.extend(&distance);
                let mut newpaths = Vec::new();
                'paths: for path in &paths {
                    for candidate in self.space.flip(path, b) {
                        if self.space.try_run(&candidate, &wider) {
                            return Some((candidate, wider));
                        }
                        newpaths.push(candidate);
                        if newpaths.len() >= self.bounds.paths_per_distance
                            || self.space.exhausted()
                        {
                            break 'paths;
                        }
                    }
                }
                if !newpaths.is_empty()
                    && let Some(found) = self.generate(newpaths, b, wider)
                {
                    return Some(found);
                }
            } else {
                paths.retain(|p| self.space.suffix_feasible(p, b));
                if paths.is_empty() {
                    return None;
                }
            }
            br = self.before(b);
        }
        None
    }
}
