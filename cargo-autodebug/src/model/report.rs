//! The report: `autodebug.out/report.json` (versioned: fields are added, never renamed) and
//! the summary a person reads on the terminal.

use std::path::Path;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use super::{
    ExitCode, Fix, Instrumentation, Location, OracleEntry, Outcome, Ranked, RepairDetails,
    ShardPart, TestId, TraceSummary,
};

/// Suspects shown in the console summary.
pub const SHOWN_SUSPECTS: usize = 3;

/// The top validated fix as a patch, in the output directory.
pub const FIX_PATCH: &str = "fix.patch";

/// Version of `report.json`.
pub const REPORT_VERSION: u32 = 1;

/// The whole report.
#[derive(Debug, Serialize, Deserialize)]
pub struct Report {
    pub version: u32,
    pub tool: Tool,
    /// One word for the result (`clean`, `tests-failed`, `build-failed`, …).
    #[serde(deserialize_with = "super::leak::word")]
    pub status: super::leak::Word,
    pub exit_code: i32,
    pub workspace_root: String,
    pub tests: TestCounts,
    pub failing_tests: Vec<FailingTest>,
    pub traces: Vec<TraceSummary>,
    /// What passing means for each failing test: the call the failure is about and what it
    /// should have done, confirmed by a rerun where a value could be formed.
    pub oracles: Vec<OracleEntry>,
    /// Ranked suspect sites, with each technique's evidence.
    pub suspects: Vec<Ranked>,
    /// Candidate fixes that passed the suite, best first: validated ones (rebuilt and
    /// rerun) before those only the runtime reruns checked.
    pub fixes: Vec<Fix>,
    pub timing: Timing,
    /// The compiler's errors, when the build failed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub build_errors: Vec<String>,
    /// Each technique's account of what it did (e.g. `predicate-switching`: one search per
    /// failing test and ordering, with its criterion and reruns).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    #[serde(deserialize_with = "super::leak::keyed")]
    pub localization: std::collections::BTreeMap<super::leak::Word, serde_json::Value>,
    /// What a technique could not do (unsupported code, nothing to rank).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// The plan every test ran under (`--plan`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan: Option<String>,
    /// What the repair stage did (candidates, reruns, rebuilds, their rates).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repair: Option<RepairDetails>,
    /// What `--apply` did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub apply: Option<Applied>,
    /// A shard's part (`--shard K/N`): the rebuild queue, with the rebuilds this shard made;
    /// `cargo autodebug merge` combines the parts. A shard's suspects are ranked before its
    /// fixes move any up (the merge does that with every shard's fixes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<ShardPart>,
    /// What zero-annotation mode instrumented.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instrumentation: Option<Instrumentation>,
}

/// The outcome of `--apply`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Applied {
    /// Files written (relative to the workspace root); empty when refused.
    pub files: Vec<String>,
    /// Why nothing was written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
}

/// Name and version of the tool that wrote the report.
#[derive(Debug, Serialize, Deserialize)]
pub struct Tool {
    #[serde(deserialize_with = "super::leak::word")]
    pub name: super::leak::Word,
    #[serde(deserialize_with = "super::leak::word")]
    pub version: super::leak::Word,
}

impl Default for Tool {
    fn default() -> Tool {
        Tool {
            name: env!("CARGO_PKG_NAME"),
            version: env!("CARGO_PKG_VERSION"),
        }
    }
}

/// How many tests did what.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct TestCounts {
    pub total: usize,
    pub passed: usize,
    pub failed: usize,
    pub flaky: usize,
    pub not_run: usize,
}

/// A test that did not pass.
#[derive(Debug, Serialize, Deserialize)]
pub struct FailingTest {
    pub package: String,
    pub target: String,
    pub name: String,
    /// The panic message (or what else happened: timeout, crash).
    pub message: String,
    /// `failed`, `timeout`, `crashed`, `fuel-exhausted`.
    #[serde(deserialize_with = "super::leak::word")]
    pub outcome: super::leak::Word,
    /// Where it panicked, as the panic message says.
    pub location: Option<Location>,
    /// Failed on every rerun the same way.
    pub deterministic: bool,
    /// Passed on some rerun.
    pub flaky: bool,
    /// Outcomes of the reruns.
    #[serde(deserialize_with = "super::leak::words")]
    pub reruns: Vec<super::leak::Word>,
    /// The stored trace of this test, relative to the output directory.
    pub trace: Option<String>,
    /// Its output, relative to the output directory.
    pub log: Option<String>,
    pub duration_s: f64,
}

impl FailingTest {
    /// The failing-test entry of a test that did not pass.
    pub fn new(
        test: &TestId,
        outcome: &Outcome,
        reruns: &[Outcome],
        duration_s: f64,
    ) -> FailingTest {
        let (message, location) = match outcome {
            Outcome::Failed { message, location } => (message.clone(), location.clone()),
            other => (other.describe(), None),
        };
        FailingTest {
            package: test.package.clone(),
            target: test.target.clone(),
            name: test.name.clone(),
            message,
            outcome: outcome.label(),
            location,
            deterministic: reruns.iter().all(|o| o.same_kind(outcome)),
            flaky: reruns.iter().any(Outcome::passed),
            reruns: reruns.iter().map(Outcome::label).collect(),
            trace: None,
            log: None,
            duration_s,
        }
    }
}

/// Seconds spent in each phase.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Timing {
    pub build_s: f64,
    pub baseline_s: f64,
    pub record_s: f64,
    pub oracle_s: f64,
    pub localize_s: f64,
    pub repair_s: f64,
    pub total_s: f64,
    /// The tool's own peak resident memory in MB (`VmHWM`; not the tests' nor cargo's),
    /// where the system says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak_rss_mb: Option<f64>,
    /// The largest resident size any solver worker process of the run reached (diagnosis,
    /// path generation, synthesis), in MiB (the tool's memory as it forked included), when
    /// one ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub solver_peak_mb: Option<u64>,
    /// What the tool's directories held when the run ended, in MiB: its part of the target
    /// directory (builds, scratch copies) and the output directory (`cargo autodebug clean`
    /// removes both).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disk_mb: Option<f64>,
}

/// The process's peak resident set size in MB, from `/proc/self/status` (Linux).
pub fn peak_rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some((kb / 1024.0 * 10.0).round() / 10.0)
}

impl Report {
    /// An empty report for `workspace_root`.
    pub fn new(workspace_root: &Path) -> Report {
        Report {
            version: REPORT_VERSION,
            tool: Tool::default(),
            status: "clean",
            exit_code: 0,
            workspace_root: workspace_root.display().to_string(),
            tests: TestCounts::default(),
            failing_tests: Vec::new(),
            traces: Vec::new(),
            oracles: Vec::new(),
            suspects: Vec::new(),
            fixes: Vec::new(),
            timing: Timing::default(),
            build_errors: Vec::new(),
            localization: Default::default(),
            notes: Vec::new(),
            plan: None,
            repair: None,
            apply: None,
            shard: None,
            instrumentation: None,
        }
    }

    /// The fix `--apply` writes and `fix.patch` holds: the best validated one.
    pub fn top_fix(&self) -> Option<&Fix> {
        self.fixes.iter().find(|f| f.validated)
    }

    /// Sets the exit code and the status word that goes with it.
    pub fn set_exit(&mut self, code: ExitCode) {
        self.exit_code = code.code();
        self.status = match code {
            ExitCode::Clean => "clean",
            ExitCode::Software => "tool-error",
            ExitCode::Usage => "usage-error",
            ExitCode::BuildFailed => "build-failed",
            ExitCode::NoTests => "no-tests",
            ExitCode::TestsFailed => "tests-failed",
            ExitCode::Timeout => "timeout",
            ExitCode::Crashed => "crashed",
            ExitCode::Flaky => "flaky",
            ExitCode::FuelExhausted => "fuel-exhausted",
        };
    }

    /// Writes `report.json` into `dir` (`fix.patch` is publishing's: its paths are the
    /// repository's).
    pub fn write(&self, dir: &Path) -> Result<()> {
        let path = dir.join("report.json");
        let json = serde_json::to_string_pretty(self).context("could not serialize the report")?;
        std::fs::write(&path, json + "\n")
            .with_context(|| format!("could not write {}", path.display()))
    }
}
