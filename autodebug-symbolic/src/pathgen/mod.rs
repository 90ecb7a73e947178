//! Automated path generation (Wang & Roychoudhury, "Automated path generation for software
//! fault localization"): from a failing run, the closest *feasible successful* run under a
//! control-flow distance, and the branch instances the two runs evaluate differently as the
//! bug report.
//!
//! - [`distance`]: dynamic control dependence, the alignment of two runs, `dist(π, π')` and
//!   the comparison of distances (Definitions 1-4);
//! - [`search`]: the path-generation algorithm of Figure 3 with the paper's bounds (loop
//!   branches kept, a cap on the runs built per distance);
//! - `cfg`: static control dependence from post-dominators on each lowered function's
//!   control-flow graph (the IR has `return`, `break` and `continue`, so nesting alone would
//!   miss the dependence of what follows an early exit);
//! - `walk` and `session`: a run as a walk over the IR, its path condition over the call's
//!   arguments in z3, and the model's arguments handed to a [`Runner`] that reruns the test
//!   for real and judges it by its specification.
//!
//! The search stops at the first run that is feasible (z3 found arguments driving it),
//! really taken by the rerun, and successful. Among the inputs of a feasible path it prefers
//! those the model predicts to meet the specification, where the paper takes any.

pub mod distance;
pub mod pdg;
pub mod search;

mod cfg;
mod session;
mod walk;

#[cfg(test)]
mod tests;

use std::time::Duration;

use autodebug_runtime::protocol::{Binding, Record, SiteInfo};
use serde::{Deserialize, Serialize};

use crate::encode::Spec;
use crate::ir::Program;
pub use distance::{Event, Kind};
pub use search::Bounds;
pub use session::{Differing, Feasibility, Found, Report, Tried};
pub use walk::Step;

/// The bounds of one search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// The paper's bounds: loop branches, runs per distance.
    pub bounds: Bounds,
    /// Reruns at most.
    pub max_reruns: usize,
    /// Candidate runs generated at most.
    pub max_candidates: usize,
    /// Solver steps for the whole search (z3's `rlimit` count; see [`crate::steps`]).
    pub budget_steps: u64,
    /// Time for the whole search, a safety net for what steps do not count (the reruns,
    /// the walks); on a quiet machine the steps or the caps end a search first.
    pub budget: Duration,
    /// Step limit of one solver check.
    pub check_steps: u32,
    /// Walks of one path (decisions without events taken both ways) at most.
    pub max_walks: usize,
    /// Rerun feasible runs on which the model predicts every input fails (the paper runs
    /// every feasible run; the model's prediction saves the rerun).
    pub rerun_predicted_failing: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            bounds: Bounds::default(),
            max_reruns: 20,
            max_candidates: 200,
            budget_steps: session::DEFAULT_STEPS,
            budget: session::DEFAULT_BUDGET,
            check_steps: 8_000_000,
            max_walks: 64,
            rerun_predicted_failing: false,
        }
    }
}

/// One failing call to search a successful run for.
#[derive(Debug, Clone)]
pub struct Problem<'a> {
    /// The file's program.
    pub program: &'a Program,
    /// The function called (as [`Program::function`] finds it).
    pub function: String,
    /// The arguments it was called with.
    pub recorded_args: &'a [Binding],
    /// Its events in the failing run (see [`steps_of`]).
    pub failing: Vec<Step>,
    /// The failing call ended by a panic after its last event.
    pub ended_by_panic: bool,
    /// What a successful call satisfies.
    pub spec: Spec,
    /// Sequences of primitives are overridden element by element (their lengths kept).
    pub override_sequences: bool,
}

/// What a rerun with generated arguments showed (it crosses from the tool to a search in
/// a process of its own).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rerun {
    /// The rerun met the specification.
    pub successful: bool,
    /// The call's events in the rerun (see [`steps_of`]), when it was recorded.
    pub path: Option<Vec<Step>>,
    /// What happened, for people.
    pub detail: String,
}

/// Reruns the failing test with the call's arguments replaced.
pub trait Runner {
    /// Reruns with `arguments` (the overridden parameters by name) and judges the run.
    fn rerun(&mut self, arguments: &[Binding]) -> Rerun;
}

/// Searches a feasible successful run for `problem`. `Err` says why the call is outside
/// what the search covers.
pub fn generate(
    problem: &Problem<'_>,
    options: &Options,
    runner: &mut dyn Runner,
) -> Result<Report, String> {
    session::run(problem, options, runner)
}

/// The events of one call as a path: its entry, the entries of the calls it makes, its
/// branches and loop iterations, of the sites in `file` (calls into other files are
/// opaque to the model). `sites` is the trace's site table, `records` the call's records.
pub fn steps_of(
    sites: &std::collections::BTreeMap<u32, SiteInfo>,
    records: &[Record],
    file: &str,
) -> Vec<Step> {
    records
        .iter()
        .filter_map(|r| {
            let (site, kind) = match r {
                Record::Enter { site, .. } => (site, Kind::Entry),
                Record::Branch { site, outcome, .. } => (site, Kind::Branch(*outcome)),
                Record::Iteration { site, .. } => (site, Kind::Iteration),
                _ => return None,
            };
            let info = sites.get(site)?;
            (info.file == file).then(|| Step {
                stmt: info.key(),
                kind,
            })
        })
        .collect()
}
