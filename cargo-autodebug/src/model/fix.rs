//! Fixes: the edits repair validated (or found plausible), and what the repair stage did.

use std::collections::BTreeMap;

use autodebug_runtime::protocol::SiteKind;
use serde::{Deserialize, Serialize};

/// One file a fix changes: its text as analysed (with its fingerprint) and patched.
#[derive(Debug, Clone)]
pub struct FileChange {
    pub path: String,
    pub before: String,
    pub after: String,
}

/// One edit of a fix, for the report.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EditEntry {
    pub file: String,
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
    pub end_column: u32,
    pub kind: SiteKind,
    pub original: String,
    pub replacement: String,
}

/// A fix: the report's `fixes[]` entry (field names are stable: the benchmark reads them).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Fix {
    pub rank: usize,
    /// The first edit's place and text (every edit is in `edits`).
    pub file: String,
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
    pub end_column: u32,
    pub original: String,
    pub replacement: String,
    /// Unified diff of the whole fix, paths `a/…` `b/…` relative to the workspace root.
    pub diff: String,
    /// The candidate source (`syntactic`, `synthesis`).
    #[serde(deserialize_with = "super::leak::word")]
    pub technique: super::leak::Word,
    /// The kind of change or template.
    pub template: String,
    /// The patched code was rebuilt and passed every test that passed before and every
    /// deterministic failure.
    pub validated: bool,
    /// How the test counts were obtained: `rebuild` (the patched code built and run) or
    /// `runtime` (the suite rerun with the runtime evaluating the change; not rebuilt).
    #[serde(deserialize_with = "super::leak::word")]
    pub validation: super::leak::Word,
    pub tests_passed: usize,
    pub tests_total: usize,
    /// Every test passed when the runtime evaluated the change in place of the code.
    pub plausible: bool,
    pub cost: u32,
    /// Rank of the (best) suspect the fix changes.
    pub suspect_rank: usize,
    /// Localization techniques that pointed at the changed sites.
    #[serde(deserialize_with = "super::leak::words")]
    pub localized_by: Vec<super::leak::Word>,
    pub edits: Vec<EditEntry>,
    /// Fingerprint of each changed file as analysed; `--apply` refuses a file that no
    /// longer has it.
    pub file_hashes: BTreeMap<String, String>,
    /// Why a rebuild did not validate it (it does not build, tests that fail).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rejected: Option<String>,
    #[serde(skip)]
    pub files: Vec<FileChange>,
    /// Whether each test of the suite passed with the fix (dedup by effect).
    #[serde(skip)]
    pub effect: Vec<bool>,
}

/// What the stage did: counts and times, for the report (`repair`) and the benchmark.
#[derive(Debug, Default, Clone, Serialize, Deserialize)]
pub struct Details {
    /// Sites tried.
    pub targets: usize,
    /// Candidates considered.
    pub candidates: usize,
    /// Candidates checked by rerunning the suite under a replacement.
    pub runtime_checked: usize,
    pub plausible: usize,
    pub refuted: usize,
    /// Of those, refuted by the recorded operands alone: a branch candidate that decides
    /// every recorded instance of the failing runs as the written code did.
    pub refuted_by_traces: usize,
    /// Runtime checks that could not judge (the rebuild decided).
    pub inconclusive: usize,
    /// Candidates not rerun on the passing tests: enough simpler ones of their batch were
    /// plausible first.
    pub skipped: usize,
    /// Candidates the runtime cannot evaluate (the rebuild decided).
    pub not_evaluable: usize,
    /// Seconds the sources took to propose candidates (synthesis solves).
    pub propose_s: f64,
    /// Test runs under replacements.
    pub runtime_runs: usize,
    /// Test processes those runs took (fewer than the runs where a test process runs many
    /// plans: a batch).
    pub runtime_processes: usize,
    /// Seconds spent rerunning tests under candidates.
    pub runtime_s: f64,
    pub rebuilds: usize,
    /// The lines of Rust of the crate rebuilt, which set the rebuilds' work budget.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub crate_lines: usize,
    pub rebuild_s: f64,
    pub validated: usize,
    /// Candidates checked per second by rerun, and by rebuild (the baseline it replaces).
    pub runtime_per_s: Option<f64>,
    pub rebuild_per_s: Option<f64>,
    /// Single edits that made some failing assertions pass and broke none (partial fixes,
    /// under which the failing tests were localized again).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub partial_fixes: usize,
    /// Batches of candidates whose rerun failed (an error of the tool, not a verdict):
    /// their candidates were left to the rebuilds.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub rerun_failures: usize,
    /// The bound that ended the stage early, if one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cut: Option<String>,
    /// The largest resident size a solver's worker process reached, in MiB (the tool's
    /// memory as it forked included), when one ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub solver_peak_mb: Option<u64>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}
