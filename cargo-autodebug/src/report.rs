//! The report: `autodebug.out/report.json` (versioned: fields are added, never renamed) and
//! the summary a person reads on the terminal.

use std::path::Path;

use anyhow::{Context, Result};
use serde::Serialize;

use crate::exit_code::ExitCode;
use crate::outcome::{Location, Outcome};
use crate::trace::{Role, TraceSummary};

/// Suspects shown in the console summary.
const SHOWN_SUSPECTS: usize = 3;

/// The top validated fix as a patch, in the output directory.
pub const FIX_PATCH: &str = "fix.patch";

/// Version of `report.json`.
pub const REPORT_VERSION: u32 = 1;

/// The whole report.
#[derive(Debug, Serialize)]
pub struct Report {
    pub version: u32,
    pub tool: Tool,
    /// One word for the result (`clean`, `tests-failed`, `build-failed`, …).
    pub status: &'static str,
    pub exit_code: i32,
    pub workspace_root: String,
    pub tests: TestCounts,
    pub failing_tests: Vec<FailingTest>,
    pub traces: Vec<TraceSummary>,
    /// What passing means for each failing test: the call the failure is about and what it
    /// should have done, confirmed by a rerun where a value could be formed.
    pub oracles: Vec<crate::oracle::Entry>,
    /// Ranked suspect sites, with each technique's evidence.
    pub suspects: Vec<crate::localize::Ranked>,
    /// Candidate fixes that passed the suite, best first: validated ones (rebuilt and
    /// rerun) before those only the runtime reruns checked.
    pub fixes: Vec<crate::repair::Fix>,
    pub timing: Timing,
    /// The compiler's errors, when the build failed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub build_errors: Vec<String>,
    /// Each technique's account of what it did (e.g. `predicate-switching`: one search per
    /// failing test and ordering, with its criterion and reruns).
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub localization: std::collections::BTreeMap<&'static str, serde_json::Value>,
    /// What a technique could not do (unsupported code, nothing to rank).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// The plan every test ran under (`--plan`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plan: Option<String>,
    /// What the repair stage did (candidates, reruns, rebuilds, their rates).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repair: Option<crate::repair::Details>,
    /// What `--apply` did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub apply: Option<Applied>,
}

/// The outcome of `--apply`.
#[derive(Debug, Clone, Serialize)]
pub struct Applied {
    /// Files written (relative to the workspace root); empty when refused.
    pub files: Vec<String>,
    /// Why nothing was written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
}

/// Name and version of the tool that wrote the report.
#[derive(Debug, Serialize)]
pub struct Tool {
    pub name: &'static str,
    pub version: &'static str,
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
#[derive(Debug, Default, Serialize)]
pub struct TestCounts {
    pub total: usize,
    pub passed: usize,
    pub failed: usize,
    pub flaky: usize,
    pub not_run: usize,
}

/// A test that did not pass.
#[derive(Debug, Serialize)]
pub struct FailingTest {
    pub package: String,
    pub target: String,
    pub name: String,
    /// The panic message (or what else happened: timeout, crash).
    pub message: String,
    /// `failed`, `timeout`, `crashed`, `fuel-exhausted`.
    pub outcome: &'static str,
    /// Where it panicked, as the panic message says.
    pub location: Option<Location>,
    /// Failed on every rerun the same way.
    pub deterministic: bool,
    /// Passed on some rerun.
    pub flaky: bool,
    /// Outcomes of the reruns.
    pub reruns: Vec<&'static str>,
    /// The stored trace of this test, relative to the output directory.
    pub trace: Option<String>,
    /// Its output, relative to the output directory.
    pub log: Option<String>,
    pub duration_s: f64,
}

impl FailingTest {
    /// The failing-test entry of a test that did not pass.
    pub fn new(
        test: &crate::run::TestId,
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
#[derive(Debug, Default, Serialize)]
pub struct Timing {
    pub build_s: f64,
    pub baseline_s: f64,
    pub record_s: f64,
    pub oracle_s: f64,
    pub localize_s: f64,
    pub repair_s: f64,
    pub total_s: f64,
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
        }
    }

    /// The fix `--apply` writes and `fix.patch` holds: the best validated one.
    pub fn top_fix(&self) -> Option<&crate::repair::Fix> {
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

    /// Writes `report.json` into `dir`, and `fix.patch` when there is a validated fix.
    pub fn write(&self, dir: &Path) -> Result<()> {
        let path = dir.join("report.json");
        let json = serde_json::to_string_pretty(self).context("could not serialize the report")?;
        std::fs::write(&path, json + "\n")
            .with_context(|| format!("could not write {}", path.display()))?;
        if let Some(fix) = self.top_fix() {
            let path = dir.join(FIX_PATCH);
            std::fs::write(&path, &fix.diff)
                .with_context(|| format!("could not write {}", path.display()))?;
        }
        Ok(())
    }

    /// The summary for people.
    pub fn summary(&self, output_dir: &str) -> String {
        let mut out = String::new();
        let t = &self.tests;
        match self.status {
            "clean" => out.push_str(&format!(
                "All {} tests passed: nothing to debug.\n",
                t.total
            )),
            "build-failed" => {
                out.push_str("The instrumented build failed: the crate does not compile.\n")
            }
            "no-tests" => out.push_str("No tests to run.\n"),
            _ => {
                out.push_str(&format!(
                    "{} of {} tests failed ({} deterministic, {} flaky).\n",
                    self.failing_tests.len(),
                    t.total,
                    self.failing_tests
                        .iter()
                        .filter(|f| f.deterministic && !f.flaky)
                        .count(),
                    t.flaky
                ));
                for failing in &self.failing_tests {
                    let kind = if failing.flaky {
                        "flaky"
                    } else {
                        failing.outcome
                    };
                    out.push_str(&format!(
                        "\n  {} {}::{}\n",
                        kind.to_uppercase(),
                        failing.target,
                        failing.name
                    ));
                    for line in failing.message.lines().take(4) {
                        out.push_str(&format!("      {line}\n"));
                    }
                    if let Some(location) = &failing.location {
                        out.push_str(&format!(
                            "      at {}:{}:{}\n",
                            location.file, location.line, location.column
                        ));
                    }
                    if let Some(trace) = &failing.trace {
                        out.push_str(&format!("      trace: {output_dir}/{trace}\n"));
                    }
                    let id = format!("{}::{}", failing.target, failing.name);
                    if let Some(oracle) = self.oracles.iter().find(|o| o.test == id) {
                        out.push_str(&format!("      oracle: {}\n", oracle.line()));
                    }
                }
                let passing = self
                    .traces
                    .iter()
                    .filter(|t| t.role == Role::Passing)
                    .count();
                let failing = self.traces.len() - passing;
                out.push_str(&format!(
                    "\nTraces: {failing} of failing tests, {passing} of passing tests that reach the same code.\n"
                ));
                if !self.suspects.is_empty() {
                    out.push_str("\nSuspects (most suspicious first):\n");
                    for suspect in self.suspects.iter().take(SHOWN_SUSPECTS) {
                        let code = suspect.source_line.as_deref().unwrap_or(&suspect.code);
                        out.push_str(&format!(
                            "  {}. {}:{}:{}  {code}\n",
                            suspect.rank, suspect.file, suspect.line, suspect.column
                        ));
                        for evidence in &suspect.evidence {
                            out.push_str(&format!("       {evidence}\n"));
                        }
                    }
                    if self.suspects.len() > SHOWN_SUSPECTS {
                        out.push_str(&format!(
                            "  … {} more in the report\n",
                            self.suspects.len() - SHOWN_SUSPECTS
                        ));
                    }
                }
                self.fix_summary(&mut out, output_dir);
            }
        }
        out.push_str(&format!(
            "Report: {output_dir}/report.json ({:.1}s)\n",
            self.timing.total_s
        ));
        out
    }
}

impl Report {
    /// The end of the summary: the fix, where and why, and how to apply it.
    fn fix_summary(&self, out: &mut String, output_dir: &str) {
        let Some(repair) = &self.repair else {
            return;
        };
        let Some(fix) = self.top_fix() else {
            out.push_str(&format!(
                "\nNo validated fix: {} candidate{} tried, {} rebuilt.\n",
                repair.candidates,
                if repair.candidates == 1 { "" } else { "s" },
                repair.rebuilds
            ));
            if let Some(plausible) = self.fixes.first() {
                out.push_str(&format!(
                    "  Passed the reruns but not validated: {}:{}:{}  `{}` → `{}`{}\n",
                    plausible.file,
                    plausible.line,
                    plausible.column,
                    plausible.original,
                    plausible.replacement,
                    plausible
                        .rejected
                        .as_deref()
                        .map_or(String::new(), |why| format!(" ({why})"))
                ));
            }
            return;
        };
        out.push_str(&format!(
            "\nFix (validated: rebuilt with the patch, {}/{} tests pass):\n",
            fix.tests_passed, fix.tests_total
        ));
        for edit in &fix.edits {
            out.push_str(&format!(
                "  {}:{}:{}  `{}` → `{}`\n",
                edit.file, edit.line, edit.column, edit.original, edit.replacement
            ));
        }
        out.push_str(&format!("  change: {} ({})\n", fix.template, fix.technique));
        if let Some(suspect) = self.suspects.iter().find(|s| s.rank == fix.suspect_rank) {
            out.push_str(&format!("  why: suspect {}", suspect.rank));
            match suspect.evidence.first() {
                Some(first) => out.push_str(&format!(" — {first}\n")),
                None => out.push('\n'),
            }
            for evidence in suspect.evidence.iter().skip(1) {
                out.push_str(&format!("       {evidence}\n"));
            }
        }
        for line in fix.diff.lines() {
            out.push_str(&format!("  {line}\n"));
        }
        match &self.apply {
            Some(Applied {
                files,
                refused: None,
            }) => out.push_str(&format!("Applied to {}.\n", files.join(", "))),
            Some(Applied {
                refused: Some(why), ..
            }) => out.push_str(&format!(
                "Not applied: {}\n",
                why.lines().next().unwrap_or("")
            )),
            None => out.push_str(&format!(
                "Apply it: cargo autodebug --apply  (or: git apply {output_dir}/{FIX_PATCH})\n"
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::TestId;

    fn failing_report() -> Report {
        let mut report = Report::new(Path::new("/w"));
        report.tests = TestCounts {
            total: 6,
            passed: 4,
            failed: 2,
            flaky: 1,
            not_run: 0,
        };
        let test = |name: &str| TestId {
            package: "sum".into(),
            target: "sum".into(),
            kind: "lib".into(),
            name: name.into(),
            binary: Default::default(),
            package_root: Default::default(),
        };
        let failed = Outcome::Failed {
            message: "assertion `left == right` failed\n  left: 7\n right: 6".into(),
            location: Some(Location {
                file: "src/lib.rs".into(),
                line: 40,
                column: 9,
            }),
        };
        let mut first = FailingTest::new(
            &test("tests::sum_of_three"),
            &failed,
            &[failed.clone(), failed.clone()],
            0.01,
        );
        first.trace = Some("traces/sum.sum.tests__sum_of_three-0.json".into());
        report.failing_tests.push(first);
        report.failing_tests.push(FailingTest::new(
            &test("tests::sometimes"),
            &Outcome::Timeout { seconds: 2.0 },
            &[Outcome::Passed],
            2.0,
        ));
        report.traces.push(TraceSummary {
            test: "sum::tests::sum_of_three".into(),
            role: Role::Failing,
            path: "traces/sum.sum.tests__sum_of_three-0.json".into(),
            outcome: "failed".into(),
            sites: 5,
            events: 40,
            truncated: false,
            complete: true,
        });
        report.oracles.push(crate::oracle::Entry {
            test: "sum::tests::sum_of_three".into(),
            function: Some("sum::sum".into()),
            call: Some(2),
            kind: Some("returns"),
            args: Vec::new(),
            returned: None,
            expected: None,
            other_than: None,
            contract: None,
            panic: None,
            statement: "sum(3) should return 6".into(),
            confirmed: true,
            reruns: 1,
            later_failure: None,
            why: None,
            accepted_calls: Vec::new(),
        });
        let site = |line, code: &str| crate::localize::Suspect {
            site: autodebug_runtime::protocol::SiteInfo {
                file: "src/lib.rs".into(),
                line,
                column: 13,
                end_line: line,
                end_column: 20,
                kind: autodebug_runtime::protocol::SiteKind::If,
                code: code.into(),
                function: "sum::sum".into(),
            },
            path: "src/lib.rs".into(),
            evidence: vec![crate::localize::Evidence {
                technique: "ochiai",
                score: 1.0 / line as f64,
                detail: format!("{:.2}", 1.0 / line as f64),
            }],
        };
        let ranking: Vec<_> = (1..=4).map(|l| site(l, &format!("s{l} < n"))).collect();
        report.suspects = crate::localize::merge(&[(1.0, ranking)]);
        report.set_exit(ExitCode::TestsFailed);
        report.timing.total_s = 3.25;
        report
    }

    /// The console summary, as a snapshot: a change of wording is a reviewed diff.
    #[test]
    fn summary_of_failing_tests() {
        let expected = "\
2 of 6 tests failed (1 deterministic, 1 flaky).

  FAILED sum::tests::sum_of_three
      assertion `left == right` failed
        left: 7
       right: 6
      at src/lib.rs:40:9
      trace: autodebug.out/traces/sum.sum.tests__sum_of_three-0.json
      oracle: sum(3) should return 6 (confirmed by a rerun)

  FLAKY sum::tests::sometimes
      did not finish within 2.0s (hangs?)

Traces: 1 of failing tests, 0 of passing tests that reach the same code.

Suspects (most suspicious first):
  1. src/lib.rs:1:13  s1 < n
       ochiai: 1.00
  2. src/lib.rs:2:13  s2 < n
       ochiai: 0.50
  3. src/lib.rs:3:13  s3 < n
       ochiai: 0.33
  … 1 more in the report
Report: autodebug.out/report.json (3.2s)
";
        assert_eq!(failing_report().summary("autodebug.out"), expected);
    }

    fn fix(validated: bool) -> crate::repair::Fix {
        let before = "    if s1 < n {\n";
        let after = "    if s1 <= n {\n";
        crate::repair::Fix {
            rank: 1,
            file: "src/lib.rs".into(),
            line: 1,
            column: 13,
            end_line: 1,
            end_column: 20,
            original: "s1 < n".into(),
            replacement: "s1 <= n".into(),
            diff: crate::repair::patch::unified_diff("src/lib.rs", before, after),
            technique: "syntactic",
            template: "relational-operator".into(),
            validated,
            validation: "rebuild",
            tests_passed: if validated { 6 } else { 5 },
            tests_total: 6,
            plausible: true,
            cost: 1,
            suspect_rank: 1,
            localized_by: vec!["ochiai"],
            edits: vec![crate::repair::EditEntry {
                file: "src/lib.rs".into(),
                line: 1,
                column: 13,
                end_line: 1,
                end_column: 20,
                kind: autodebug_runtime::protocol::SiteKind::If,
                original: "s1 < n".into(),
                replacement: "s1 <= n".into(),
            }],
            file_hashes: Default::default(),
            rejected: (!validated).then(|| "5/6 tests pass".to_string()),
            files: Vec::new(),
            effect: Vec::new(),
        }
    }

    /// The end of the summary when a fix was found: where, why, the patch, how to apply.
    #[test]
    fn summary_ends_with_the_fix() {
        let mut report = failing_report();
        report.repair = Some(crate::repair::Details {
            candidates: 7,
            rebuilds: 1,
            ..Default::default()
        });
        report.fixes.push(fix(true));
        let summary = report.summary("autodebug.out");
        let end = summary.split("  … 1 more in the report\n").nth(1).unwrap();
        let expected = "
Fix (validated: rebuilt with the patch, 6/6 tests pass):
  src/lib.rs:1:13  `s1 < n` → `s1 <= n`
  change: relational-operator (syntactic)
  why: suspect 1 — ochiai: 1.00
  --- a/src/lib.rs
  +++ b/src/lib.rs
  @@ -1 +1 @@
  -    if s1 < n {
  +    if s1 <= n {
Apply it: cargo autodebug --apply  (or: git apply autodebug.out/fix.patch)
Report: autodebug.out/report.json (3.2s)
";
        assert_eq!(end, expected);
        let dir = tempfile::tempdir().unwrap();
        report.write(dir.path()).unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.path().join(FIX_PATCH)).unwrap(),
            report.fixes[0].diff
        );
        let json = serde_json::to_value(&report).unwrap();
        for field in [
            "rank",
            "file",
            "line",
            "column",
            "original",
            "replacement",
            "diff",
            "technique",
            "validated",
            "tests_passed",
            "tests_total",
            "validation",
        ] {
            assert!(
                json["fixes"][0].get(field).is_some(),
                "missing fixes[].{field}"
            );
        }
    }

    /// Without a validated fix: no fix.patch, and the summary says what was tried.
    #[test]
    fn summary_without_a_validated_fix() {
        let mut report = failing_report();
        report.repair = Some(crate::repair::Details {
            candidates: 7,
            rebuilds: 1,
            ..Default::default()
        });
        report.fixes.push(fix(false));
        let summary = report.summary("autodebug.out");
        assert!(
            summary.contains(
                "\nNo validated fix: 7 candidates tried, 1 rebuilt.\n  Passed the reruns but not \
                 validated: src/lib.rs:1:13  `s1 < n` → `s1 <= n` (5/6 tests pass)\n"
            ),
            "{summary}"
        );
        let dir = tempfile::tempdir().unwrap();
        report.write(dir.path()).unwrap();
        assert!(!dir.path().join(FIX_PATCH).exists());
    }

    #[test]
    fn summary_when_clean() {
        let mut report = Report::new(Path::new("/w"));
        report.tests.total = 3;
        report.set_exit(ExitCode::Clean);
        assert_eq!(
            report.summary("out"),
            "All 3 tests passed: nothing to debug.\nReport: out/report.json (0.0s)\n"
        );
    }

    #[test]
    fn report_json_has_the_documented_fields() {
        let json = serde_json::to_value(failing_report()).unwrap();
        for field in [
            "version",
            "failing_tests",
            "suspects",
            "fixes",
            "timing",
            "tests",
            "traces",
            "oracles",
            "status",
            "exit_code",
        ] {
            assert!(json.get(field).is_some(), "missing {field}");
        }
        for field in ["build_s", "baseline_s", "localize_s", "repair_s", "total_s"] {
            assert!(
                json["timing"].get(field).is_some(),
                "missing timing.{field}"
            );
        }
        let failing = &json["failing_tests"][0];
        for field in ["package", "target", "name", "message"] {
            assert!(
                failing.get(field).is_some(),
                "missing failing_tests[].{field}"
            );
        }
        let oracle = &json["oracles"][0];
        for field in [
            "test",
            "function",
            "call",
            "kind",
            "expected",
            "confirmed",
            "reruns",
            "why",
            "accepted_calls",
        ] {
            assert!(oracle.get(field).is_some(), "missing oracles[].{field}");
        }
        assert_eq!(json["version"], 1);
        assert_eq!(json["exit_code"], 5);
    }
}
