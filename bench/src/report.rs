//! What the tool writes, as the runner reads it: `report.json` and `coverage.json`.
//!
//! Own, tolerant types (every field defaulted) rather than the tool's: the report is
//! versioned by adding fields, and a benchmark must still score an older or partial one.

use std::path::Path;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use crate::span::{Pos, PosRange};

/// `autodebug.out/report.json`.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(default)]
pub struct Report {
    pub exit_code: i32,
    pub status: String,
    pub failing_tests: Vec<ReportedTest>,
    pub suspects: Vec<Suspect>,
    pub fixes: Vec<Fix>,
    pub timing: Timing,
    pub tool: ToolInfo,
    pub localization: Localization,
    /// The repair stage's account (`report.json` `repair`).
    pub repair: Option<RepairAccount>,
}

/// `report.json` `repair`: what the repair stage did and what it cost.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct RepairAccount {
    pub candidates: usize,
    /// Candidates checked by rerunning tests under a runtime replacement.
    pub runtime_checked: usize,
    pub runtime_runs: usize,
    /// Test processes those runs took (a batch runs many in one).
    pub runtime_processes: usize,
    pub runtime_s: f64,
    /// Candidates rebuilt with the patch (and the whole suite run).
    pub rebuilds: usize,
    pub rebuild_s: f64,
    pub validated: usize,
    /// Candidates the reruns found plausible (every required test passed under them).
    pub plausible: usize,
}

/// The techniques' own accounts (`report.json` `localization`).
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(default)]
pub struct Localization {
    /// One search per failing test and ordering.
    #[serde(rename = "predicate-switching")]
    pub switching: Vec<Search>,
    /// The model-based diagnosis's account.
    pub diagnosis: Option<DiagnosisAccount>,
    /// Path generation's account.
    pub pathgen: Option<PathgenAccount>,
    /// Each technique's weight in the merged ranking.
    pub weights: std::collections::BTreeMap<String, f64>,
}

/// `localization.pathgen`.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(default)]
pub struct PathgenAccount {
    /// Per failing test; `skipped` says why one was not searched.
    pub tests: Vec<PathgenTest>,
    pub seconds: f64,
}

/// One failing test's search for the closest successful run.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(default)]
pub struct PathgenTest {
    pub test: String,
    pub skipped: Option<String>,
    pub found: Option<PathgenFound>,
    pub search: Option<PathgenSearch>,
    pub seconds: f64,
}

/// The successful run found: the branch instances it evaluates differently.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(default)]
pub struct PathgenFound {
    pub distance: Vec<PathgenBranch>,
}

/// A branch of a path-generation report.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(default)]
pub struct PathgenBranch {
    pub file: String,
    pub line: usize,
    pub column: usize,
}

/// What one search did.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(default)]
pub struct PathgenSearch {
    pub candidates: usize,
    pub feasible: usize,
    pub reruns: usize,
}

/// `localization.diagnosis`.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(default)]
pub struct DiagnosisAccount {
    /// Per failing test; `skipped` says why one was not diagnosed.
    pub tests: Vec<DiagnosedTest>,
    /// The diagnoses of the whole failure.
    pub diagnoses: Vec<ReportedDiagnosis>,
    pub seconds: f64,
}

/// One failing test's diagnosis.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(default)]
pub struct DiagnosedTest {
    pub test: String,
    pub skipped: Option<String>,
}

/// A set of components that explains the failure.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(default)]
pub struct ReportedDiagnosis {
    pub components: Vec<DiagnosedComponent>,
}

/// A component of a diagnosis, with its span.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(default)]
pub struct DiagnosedComponent {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub end_line: usize,
    pub end_column: usize,
    pub kind: String,
}

impl DiagnosedComponent {
    /// Its span. The component of `x op= e` is the whole statement (the value it stores)
    /// while its site spans `e`: its span starts at the start of its line, so that the
    /// operator is inside.
    pub fn range(&self) -> PosRange {
        PosRange {
            start: Pos {
                line: self.line,
                column: if self.kind == "compound" {
                    1
                } else {
                    self.column
                },
            },
            end: Pos {
                line: self.end_line.max(self.line),
                column: self.end_column,
            },
        }
    }
}

/// One technique's opinion of a suspect.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(default)]
pub struct Evidence {
    pub technique: String,
    pub score: f64,
}

/// One predicate-switching search.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(default)]
pub struct Search {
    pub test: String,
    /// `PRIOR` or `LEFS`.
    pub ordering: String,
    pub candidates: usize,
    /// `pass`, `progress` or `none`.
    pub criterion: String,
    pub reruns: usize,
}

/// Name and version of the tool.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(default)]
pub struct ToolInfo {
    pub name: String,
    pub version: String,
}

/// A failing test as reported.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(default)]
pub struct ReportedTest {
    pub package: String,
    pub target: String,
    pub name: String,
    pub outcome: String,
}

/// A ranked suspect site.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(default)]
pub struct Suspect {
    pub rank: Option<f64>,
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub end_line: Option<usize>,
    pub end_column: Option<usize>,
    pub kind: String,
    pub code: String,
    pub score: Option<f64>,
    /// Each technique's evidence.
    pub techniques: Vec<Evidence>,
}

impl Suspect {
    /// Its span; a suspect without an end is the single character at its position.
    pub fn range(&self) -> PosRange {
        let start = Pos {
            line: self.line,
            column: self.column,
        };
        let end = match (self.end_line, self.end_column) {
            (Some(line), Some(column)) => Pos { line, column },
            _ => start,
        };
        PosRange { start, end }
    }
}

/// A proposed fix.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(default)]
pub struct Fix {
    pub rank: Option<f64>,
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub original: String,
    pub replacement: String,
    pub technique: String,
    pub validated: bool,
    pub tests_passed: Option<usize>,
    pub tests_total: Option<usize>,
    /// Every edit of the fix (the fields above are the first one's): a fix of two faults
    /// has two.
    pub edits: Vec<FixEdit>,
}

/// One edit of a fix, where the file as analysed has `original`.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(default)]
pub struct FixEdit {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub original: String,
    pub replacement: String,
}

/// Seconds per phase.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(default)]
pub struct Timing {
    pub build_s: f64,
    pub baseline_s: f64,
    pub record_s: f64,
    pub localize_s: f64,
    pub repair_s: f64,
    pub total_s: f64,
}

/// `autodebug.out/coverage.json`: the program spectrum of the baseline run.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(default)]
pub struct Coverage {
    pub sites: Vec<Site>,
    pub tests: Vec<TestSpectrum>,
}

/// A site of the spectrum.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(default)]
pub struct Site {
    pub id: u32,
    /// Relative to the workspace root.
    pub path: String,
    pub line: usize,
    pub column: usize,
    pub end_line: usize,
    pub end_column: usize,
    pub kind: String,
    pub code: String,
}

impl Site {
    /// Its span.
    pub fn range(&self) -> PosRange {
        PosRange {
            start: Pos {
                line: self.line,
                column: self.column,
            },
            end: Pos {
                line: self.end_line,
                column: self.end_column,
            },
        }
    }
}

/// One test of the spectrum.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(default)]
pub struct TestSpectrum {
    pub test: TestName,
    pub outcome: String,
    pub sites: Vec<u32>,
}

/// A test's identity in the spectrum.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(default)]
pub struct TestName {
    pub package: String,
    pub target: String,
    pub name: String,
}

/// Reads a JSON file of type `T`.
pub fn read<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<T> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("cannot parse {}", path.display()))
}

/// Whether two workspace-relative paths name the same file (`./` and a leading absolute
/// part are ignored).
pub fn same_file(a: &str, b: &str) -> bool {
    let a = a.trim_start_matches("./");
    let b = b.trim_start_matches("./");
    a == b || a.ends_with(&format!("/{b}")) || b.ends_with(&format!("/{a}"))
}
