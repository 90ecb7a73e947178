//! The yardstick of cargo-autodebug: faulty versions seeded into a corpus of correct
//! programs (`generate`), the real tool run on each and scored against baselines (`runner`).
//!
//! The pipeline is visible in the modules: `corpus` finds the programs, `mutate` seeds
//! faults at byte `span`s in a `sample`d order, `cargo_test` builds and runs a copy
//! (`process` bounds its time), `generate` keeps the faults that make visible tests fail
//! (`faults`), `runner` runs the tool on each version, `score` and `brute_force` measure it
//! and the baselines, `results` aggregates and renders the tables. `sweep` is the
//! equivalence sweep: real crates' tests built and run plainly and instrumented, compared.

use std::path::PathBuf;

pub mod brute_force;
pub mod cargo_test;
pub mod corpus;
pub mod external;
pub mod faults;
pub mod generate;
pub mod mutate;
pub mod process;
pub mod report;
pub mod results;
pub mod runner;
pub mod sample;
pub mod score;
pub mod span;
pub mod sweep;

/// The root of this repository (the workspace `bench/` belongs to).
pub fn repo_root() -> PathBuf {
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    here.parent().map(PathBuf::from).unwrap_or(here)
}
