//! `bench/faults.json`: the faulty versions and their ground truth.

use std::path::Path;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use crate::mutate::{FaultClass, Mutation};

/// One faulty version of a corpus program: one or two mutations of its correct source.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FaultyVersion {
    /// `<program>-<nn>`, stable for a given `faults.json`.
    pub id: String,
    /// The corpus directory name.
    pub program: String,
    /// The class of each mutation (in the order of `mutations`).
    pub classes: Vec<FaultClass>,
    /// The seeded changes: the ground truth.
    pub mutations: Vec<Mutation>,
    /// The visible tests (libtest names) that fail with the faults in.
    pub failing_tests: Vec<String>,
}

impl FaultyVersion {
    /// Whether this version seeds more than one fault.
    pub fn is_multi(&self) -> bool {
        self.mutations.len() > 1
    }
}

/// Reads a `faults.json`.
pub fn load(path: &Path) -> Result<Vec<FaultyVersion>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("{} is not a faults file", path.display()))
}

/// Writes a `faults.json` (pretty, one trailing newline, stable order).
pub fn save(path: &Path, versions: &[FaultyVersion]) -> Result<()> {
    let json = serde_json::to_string_pretty(versions)?;
    std::fs::write(path, json + "\n").with_context(|| format!("cannot write {}", path.display()))
}
