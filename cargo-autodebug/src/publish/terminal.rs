//! The terminal summary of a report: which tests failed, where, why, the fix and how to
//! apply it (and, verbose, the reasoning trail).

use crate::model::{Applied, FIX_PATCH, Report, Role, SHOWN_SUSPECTS};

impl Report {
    /// The summary a person reads in five seconds: which tests failed, where (the statement),
    /// why (the evidence that matters most), the fix and how to apply it; with
    /// `style.verbose`, the reasoning trail (what each technique did and found, and when).
    pub fn render(&self, output_dir: &str, style: Style) -> String {
        let mut out = String::new();
        let t = &self.tests;
        match self.status {
            "clean" => out.push_str(&format!(
                "{} All {} tests passed: nothing to debug.\n",
                style.paint(GREEN, "ok"),
                t.total
            )),
            "build-failed" => out.push_str(&format!(
                "{} The instrumented build failed: the crate does not compile (errors above).\n",
                style.paint(RED, "error")
            )),
            "no-tests" => out.push_str("No tests to run.\n"),
            _ => {
                self.failing_summary(&mut out, style);
                self.verdict(&mut out, output_dir, style);
                if let Some(part) = &self.shard {
                    // The verdict above is this shard's: the merge makes the run's.
                    let mine = part.items.iter().filter(|i| i.rebuilt.is_some()).count();
                    out.push_str(&format!(
                        "{} {}/{}: rebuilt {mine} of the queue's {} candidates; `cargo \
                         autodebug merge DIR…` with every shard's directory makes the run's \
                         report\n",
                        style.heading("Shard"),
                        part.index,
                        part.count,
                        part.items.len()
                    ));
                }
                if style.verbose {
                    self.trail(&mut out, output_dir, style);
                }
            }
        }
        // Where the time went, so that a slow run says which phase made it slow.
        let t = &self.timing;
        let phases: Vec<String> = [
            ("build", t.build_s),
            ("tests", t.baseline_s + t.record_s + t.oracle_s),
            ("localize", t.localize_s),
            ("repair", t.repair_s),
        ]
        .iter()
        .filter(|(_, s)| *s >= 0.05)
        .map(|(phase, s)| format!("{phase} {s:.1}s"))
        .collect();
        let phases = if phases.is_empty() {
            String::new()
        } else {
            format!(": {}", phases.join(", "))
        };
        out.push_str(&format!(
            "{}: {output_dir}/report.html ({:.1}s{phases}; data in report.json)\n",
            style.paint(BOLD, "Report"),
            t.total_s,
        ));
        out
    }
}

/// How the summary is drawn.
#[derive(Debug, Clone, Copy, Default)]
pub struct Style {
    /// ANSI colours.
    pub colour: bool,
    /// With the reasoning trail (`-v`).
    pub verbose: bool,
}

const BOLD: &str = "1";
const RED: &str = "1;31";
const GREEN: &str = "1;32";
const YELLOW: &str = "1;33";

impl Style {
    fn paint(self, style: &str, text: &str) -> String {
        crate::console::paint(self.colour, style, text)
    }

    /// A heading of the summary (`Where`, `Why`, …), padded to one width.
    fn heading(self, text: &str) -> String {
        self.paint(BOLD, &format!("{text:<6}"))
    }
}

/// Failing tests shown in the summary (the others are counted).
const SHOWN_FAILING: usize = 3;

/// Characters of a message line in the summary.
const MESSAGE_WIDTH: usize = 100;

/// A failure message on one line: its first line, then the next few joined (`assertion
/// failed (left: 7, right: 6)`), cut to [`MESSAGE_WIDTH`].
pub(crate) fn one_line(message: &str) -> String {
    let mut lines = message.lines().map(str::trim).filter(|l| !l.is_empty());
    let mut text = lines.next().unwrap_or("").to_string();
    let rest: Vec<&str> = lines.take(3).collect();
    if !rest.is_empty() {
        text.push_str(&format!(" ({})", rest.join(", ")));
    }
    if let Some((i, _)) = text.char_indices().nth(MESSAGE_WIDTH) {
        text.truncate(i);
        text.push('…');
    }
    text
}

impl Report {
    /// The failing tests: one line each with where it panicked, and its message.
    fn failing_summary(&self, out: &mut String, style: Style) {
        let deterministic = self
            .failing_tests
            .iter()
            .filter(|f| f.deterministic && !f.flaky)
            .count();
        out.push_str(&format!(
            "{} of {} tests failed ({deterministic} deterministic, {} flaky):\n",
            self.failing_tests.len(),
            self.tests.total,
            self.tests.flaky
        ));
        for failing in self.failing_tests.iter().take(SHOWN_FAILING) {
            let kind = if failing.flaky {
                "flaky"
            } else {
                failing.outcome
            };
            let at = failing.location.as_ref().map_or(String::new(), |l| {
                format!(" at {}:{}:{}", l.file, l.line, l.column)
            });
            out.push_str(&format!(
                "  {} {}::{}{at}\n         {}\n",
                style.paint(
                    if failing.flaky { YELLOW } else { RED },
                    &format!("{:<6}", kind.to_uppercase())
                ),
                failing.target,
                failing.name,
                one_line(&failing.message)
            ));
        }
        if self.failing_tests.len() > SHOWN_FAILING {
            out.push_str(&format!(
                "  … and {} more in the report\n",
                self.failing_tests.len() - SHOWN_FAILING
            ));
        }
        if self.tests.flaky > 0 {
            out.push_str(&format!(
                "{}: each test runs in a process of its own, side by side (as under \
                 cargo-nextest); tests that pass when rerun may share state across processes \
                 (a temp directory, a port): `--jobs 1` runs one at a time\n",
                style.paint(BOLD, "hint")
            ));
        }
    }

    /// The statement a fix changes, or else the top suspect.
    pub(crate) fn culprit(&self) -> Option<&crate::model::Ranked> {
        match self.top_fix() {
            Some(fix) => self
                .suspects
                .iter()
                .find(|s| s.rank == fix.suspect_rank)
                .or(self.suspects.first()),
            None => self.suspects.first(),
        }
    }

    /// The one evidence sentence that matters most for `suspect`: that of the technique
    /// whose evidence weighs most in the merge (checked by running the code before a
    /// statistical guess).
    pub(crate) fn strongest_evidence<'a>(
        &self,
        suspect: &'a crate::model::Ranked,
    ) -> Option<&'a str> {
        let weight = |technique: &str| {
            self.localization
                .get("weights")
                .and_then(|w| w.get(technique))
                .and_then(serde_json::Value::as_f64)
                .unwrap_or(0.0)
        };
        suspect
            .techniques
            .iter()
            .zip(&suspect.evidence)
            .fold(None, |best: Option<(f64, &str)>, (evidence, line)| {
                let w = weight(evidence.technique);
                match best {
                    Some((b, _)) if b >= w => best,
                    _ => Some((w, line.as_str())),
                }
            })
            .map(|(_, line)| line)
            .or(suspect.evidence.first().map(String::as_str))
    }

    /// Where, why, the fix and how to apply it; then the other suspects in one line.
    fn verdict(&self, out: &mut String, output_dir: &str, style: Style) {
        out.push('\n');
        // `Where` is the report's top suspect (the site of the top fix when it changes a
        // suspect: those lead the ranking); a fix elsewhere says where it is on its own line.
        match (self.culprit(), self.top_fix()) {
            (Some(suspect), _) => {
                let code = suspect.source_line.as_deref().unwrap_or(&suspect.code);
                out.push_str(&format!(
                    "{} {}:{}:{}  {code}\n",
                    style.heading("Where"),
                    suspect.file,
                    suspect.line,
                    suspect.column
                ));
            }
            (None, Some(fix)) => {
                let code = match fix.original.trim() {
                    // A statement put in: what goes there.
                    "" => super::describe(fix),
                    _ => fix.original.clone(),
                };
                out.push_str(&format!(
                    "{} {}:{}:{}  {code}\n",
                    style.heading("Where"),
                    fix.file,
                    fix.line,
                    fix.column
                ));
            }
            (None, None) => {
                let why = self
                    .notes
                    .first()
                    .map_or("no technique ranked a site".to_string(), |n| n.clone());
                out.push_str(&format!("{} no suspect: {why}\n", style.heading("Where")));
            }
        }
        if let Some(evidence) = self.culprit().and_then(|s| self.strongest_evidence(s)) {
            out.push_str(&format!("{} {evidence}\n", style.heading("Why")));
        }
        self.fix_summary(out, output_dir, style);
        let others: Vec<String> = self
            .suspects
            .iter()
            .filter(|s| Some(s.rank) != self.culprit().map(|c| c.rank))
            .take(SHOWN_SUSPECTS - 1)
            .map(|s| {
                format!(
                    "{}. {}:{}:{} `{}`",
                    s.rank,
                    s.file,
                    s.line,
                    s.column,
                    super::one_line(&s.code)
                )
            })
            .collect();
        if !others.is_empty() {
            let more = self.suspects.len().saturating_sub(others.len() + 1);
            out.push_str(&format!(
                "{} {}{}\n",
                style.heading("Also"),
                others.join(" · "),
                if more > 0 {
                    format!(" (+{more} in the report)")
                } else {
                    String::new()
                }
            ));
        }
    }

    /// The reasoning trail (`-v`): tests and traces, the oracles, what each technique did
    /// and found (and how long it took), repair, notes and the time of each phase.
    fn trail(&self, out: &mut String, output_dir: &str, style: Style) {
        let t = &self.tests;
        let timing = &self.timing;
        out.push_str(&format!("\n{}\n", style.paint(BOLD, "Trail:")));
        let passing = self
            .traces
            .iter()
            .filter(|t| t.role == Role::Passing)
            .count();
        row(
            out,
            "tests",
            format!(
                "{} run in {:.1}s: {} passed, {} failed ({} flaky), {} not run",
                t.total, timing.baseline_s, t.passed, t.failed, t.flaky, t.not_run
            ),
        );
        row(
            out,
            "traces",
            format!(
                "{} of failing tests, {passing} of passing tests that reach the same code ({:.1}s)",
                self.traces.len() - passing,
                timing.record_s
            ),
        );
        for failing in &self.failing_tests {
            if let Some(trace) = &failing.trace {
                row(out, "", format!("{output_dir}/{trace}"));
            }
        }
        for oracle in &self.oracles {
            row(out, "oracle", format!("{}: {}", oracle.test, oracle.line()));
        }
        let mut shown_notes = vec![false; self.notes.len()];
        self.trail_techniques(out, &mut shown_notes);
        self.trail_repair(out);
        for (note, shown) in self.notes.iter().zip(&shown_notes) {
            if !shown {
                row(out, "note", note.clone());
            }
        }
        row(
            out,
            "time",
            format!(
                "build {:.1}s, baseline {:.1}s, record {:.1}s, oracle {:.1}s, localize {:.1}s, repair {:.1}s",
                timing.build_s,
                timing.baseline_s,
                timing.record_s,
                timing.oracle_s,
                timing.localize_s,
                timing.repair_s
            ),
        );
    }

    /// The trail's line per localization technique (what it ranked first), each followed
    /// by the notes it left (marked shown).
    fn trail_techniques(&self, out: &mut String, shown_notes: &mut [bool]) {
        let techniques: Vec<&str> = self
            .localization
            .get("weights")
            .and_then(serde_json::Value::as_object)
            .map(|w| w.keys().map(String::as_str).collect())
            .unwrap_or_default();
        for technique in techniques {
            let seconds = self
                .localization
                .get("seconds")
                .and_then(|s| s.get(technique))
                .and_then(serde_json::Value::as_f64)
                .map_or(String::new(), |s| format!(" in {s:.1}s"));
            let ranked: Vec<&crate::model::Ranked> = self
                .suspects
                .iter()
                .filter(|s| s.techniques.iter().any(|e| e.technique == technique))
                .collect();
            let found = match ranked.first() {
                Some(top) => {
                    let evidence = top
                        .techniques
                        .iter()
                        .zip(&top.evidence)
                        .find(|(e, _)| e.technique == technique)
                        .map_or("", |(_, line)| line.as_str());
                    format!(
                        "ranked {} site{}{seconds}; first: {}:{}:{} ({evidence})",
                        ranked.len(),
                        if ranked.len() == 1 { "" } else { "s" },
                        top.file,
                        top.line,
                        top.column
                    )
                }
                None => format!("found nothing{seconds}"),
            };
            row(out, technique, found);
            for (note, shown) in self.notes.iter().zip(shown_notes.iter_mut()) {
                if let Some(rest) = note.strip_prefix(&format!("{technique}: ")) {
                    *shown = true;
                    row(out, "", rest.to_string());
                }
            }
        }
    }

    /// The trail's repair line: candidates, reruns, rebuilds.
    fn trail_repair(&self, out: &mut String) {
        let Some(repair) = &self.repair else {
            return;
        };
        row(
            out,
            "repair",
            format!(
                "{} site{}, {} candidates: {} plausible by rerun, {} refuted, {} rebuilt, {} validated ({:.1}s){}",
                repair.targets,
                if repair.targets == 1 { "" } else { "s" },
                repair.candidates,
                repair.plausible,
                repair.refuted,
                repair.rebuilds,
                repair.validated,
                self.timing.repair_s,
                repair
                    .cut
                    .as_deref()
                    .map_or(String::new(), |c| format!("; cut short by the {c}"))
            ),
        );
    }

    /// The fix (validated: the patch and its test counts) and how to apply it.
    fn fix_summary(&self, out: &mut String, output_dir: &str, style: Style) {
        let Some(repair) = &self.repair else {
            return;
        };
        let Some(fix) = self.top_fix() else {
            out.push_str(&format!(
                "{} none validated: {} candidate{} tried, {} rebuilt\n",
                style.heading("Fix"),
                repair.candidates,
                if repair.candidates == 1 { "" } else { "s" },
                repair.rebuilds
            ));
            if let Some(plausible) = self.fixes.first() {
                out.push_str(&format!(
                    "       passed the reruns but not validated: {}:{}:{}  `{}` → `{}`{}\n",
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
        let edits: Vec<String> = fix
            .edits
            .iter()
            .map(|e| {
                if fix.edits.len() == 1 {
                    super::edit_phrase(&e.original, &e.replacement)
                } else {
                    format!(
                        "{}:{}: {}",
                        e.file,
                        e.line,
                        super::edit_phrase(&e.original, &e.replacement)
                    )
                }
            })
            .collect();
        let elsewhere = self
            .culprit()
            .is_some_and(|s| (s.file.as_str(), s.line) != (fix.file.as_str(), fix.line));
        let place = if elsewhere && fix.edits.len() <= 1 {
            format!("at {}:{}:{}: ", fix.file, fix.line, fix.column)
        } else {
            String::new()
        };
        out.push_str(&format!(
            "{} {place}{} — {}: rebuilt with the patch, {}/{} tests pass\n",
            style.heading("Fix"),
            edits.join(", "),
            style.paint(GREEN, "validated"),
            fix.tests_passed,
            fix.tests_total
        ));
        for line in fix.diff.lines() {
            let painted = if line.starts_with("+++") || line.starts_with("---") {
                style.paint(BOLD, line)
            } else if line.starts_with('+') {
                style.paint("32", line)
            } else if line.starts_with('-') {
                style.paint("31", line)
            } else if line.starts_with("@@") {
                style.paint("36", line)
            } else {
                line.to_string()
            };
            out.push_str(format!("       {painted}").trim_end());
            out.push('\n');
        }
        let apply = match &self.apply {
            Some(Applied {
                files,
                refused: None,
            }) => format!("applied to {}", files.join(", ")),
            Some(Applied {
                refused: Some(why), ..
            }) => {
                let first = why.lines().next().unwrap_or("");
                match first.strip_suffix(':') {
                    Some(head) => format!("not applied: {head} (see above)"),
                    None => format!("not applied: {first}"),
                }
            }
            None => format!("cargo autodebug --apply  (or: git apply {output_dir}/{FIX_PATCH})"),
        };
        out.push_str(&format!("{} {apply}\n", style.heading("Apply")));
    }
}

/// One line of the trail: what, in a column, then the text.
fn row(out: &mut String, what: &str, text: String) {
    out.push_str(&format!("  {:<20} {text}\n", what));
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::model::report::TestCounts;
    use crate::model::{ExitCode, FailingTest, Location, Outcome, TestId, TraceSummary};

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
        report.oracles.push(crate::model::OracleEntry {
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
            later_calls: Vec::new(),
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
            evidence: vec![crate::model::Evidence {
                technique: "ochiai",
                score: 1.0 / line as f64,
                detail: format!("{:.2}", 1.0 / line as f64),
            }],
        };
        let ranking: Vec<_> = (1..=4).map(|l| site(l, &format!("s{l} < n"))).collect();
        report.suspects = crate::localize::merge(&[(1.0, ranking)]);
        report
            .localization
            .insert("weights", serde_json::json!({ "ochiai": 1.0 }));
        report
            .localization
            .insert("seconds", serde_json::json!({ "ochiai": 0.01 }));
        report
            .notes
            .push("predicate-switching: the failing run of tests::sum_of_three has no branch instance to switch".into());
        report.set_exit(ExitCode::TestsFailed);
        report.timing.total_s = 3.25;
        report
    }

    fn plain(report: &Report) -> String {
        report.render("autodebug.out", Style::default())
    }

    /// The summary of failing tests that localization ranked but repair did not run on.
    #[test]
    fn summary_of_failing_tests() {
        insta::assert_snapshot!("summary-suspects", plain(&failing_report()));
    }

    fn fix(validated: bool) -> crate::model::Fix {
        let before = "    if s1 < n {\n";
        let after = "    if s1 <= n {\n";
        crate::model::Fix {
            rank: 1,
            file: "src/lib.rs".into(),
            line: 1,
            column: 13,
            end_line: 1,
            end_column: 20,
            original: "s1 < n".into(),
            replacement: "s1 <= n".into(),
            diff: crate::edit::unified_diff("src/lib.rs", before, after),
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
            edits: vec![crate::model::EditEntry {
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

    /// The summary when a fix was found: where, why, the patch, how to apply; and the same
    /// with `-v` (the reasoning trail) and in colour.
    #[test]
    fn summary_ends_with_the_fix() {
        let mut report = failing_report();
        report.repair = Some(crate::model::RepairDetails {
            targets: 2,
            candidates: 7,
            plausible: 2,
            refuted: 5,
            rebuilds: 1,
            validated: 1,
            ..Default::default()
        });
        report.fixes.push(fix(true));
        insta::assert_snapshot!("summary-fix", plain(&report));
        let verbose = Style {
            colour: false,
            verbose: true,
        };
        insta::assert_snapshot!(
            "summary-fix-verbose",
            report.render("autodebug.out", verbose)
        );
        let colour = Style {
            colour: true,
            verbose: false,
        };
        let coloured = report.render("autodebug.out", colour);
        assert!(
            coloured.contains("\x1b[1mWhere \x1b[0m src/lib.rs:1:13"),
            "{coloured}"
        );
        assert!(
            coloured.contains("\x1b[32m+    if s1 <= n {\x1b[0m"),
            "{coloured}"
        );
        // Without the escapes, the coloured summary is the plain one.
        let stripped = coloured
            .split("\x1b[")
            .enumerate()
            .map(|(i, part)| {
                if i == 0 {
                    part
                } else {
                    part.split_once('m').map_or(part, |(_, rest)| rest)
                }
            })
            .collect::<String>();
        assert_eq!(stripped, plain(&report));
        let dir = tempfile::tempdir().unwrap();
        report.write(dir.path()).unwrap();
        crate::publish::write(&report, dir.path(), "autodebug.out", None).unwrap();
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

    /// A fix at a site that is not the top suspect (a statement put in, say): `Where` is still
    /// the report's top suspect, `Also` goes on from #2, and the fix says where it is.
    #[test]
    fn where_is_the_top_suspect_and_a_fix_elsewhere_says_where() {
        let mut report = failing_report();
        report.repair = Some(crate::model::RepairDetails::default());
        let mut elsewhere = fix(true);
        elsewhere.line = 9;
        elsewhere.suspect_rank = 0;
        elsewhere.edits[0].line = 9;
        report.fixes.push(elsewhere);
        let summary = plain(&report);
        let top = &report.suspects[0];
        assert!(
            summary.contains(&format!("Where  src/lib.rs:{}:13", top.line)),
            "{summary}"
        );
        assert!(
            summary.contains("Fix    at src/lib.rs:9:13: `s1 < n` → `s1 <= n`"),
            "{summary}"
        );
        assert!(summary.contains("Also   2. src/lib.rs:"), "{summary}");
    }

    /// Without a validated fix: no fix.patch, and the summary says what was tried.
    #[test]
    fn summary_without_a_validated_fix() {
        let mut report = failing_report();
        report.repair = Some(crate::model::RepairDetails {
            candidates: 7,
            rebuilds: 1,
            ..Default::default()
        });
        report.fixes.push(fix(false));
        insta::assert_snapshot!("summary-no-validated-fix", plain(&report));
        let dir = tempfile::tempdir().unwrap();
        report.write(dir.path()).unwrap();
        crate::publish::write(&report, dir.path(), "autodebug.out", None).unwrap();
        assert!(!dir.path().join(FIX_PATCH).exists());
    }

    /// The Why line is the evidence of the technique weighed most in the merge, not the
    /// first one listed.
    #[test]
    fn why_is_the_strongest_evidence() {
        let mut report = failing_report();
        let top = &mut report.suspects[0];
        top.evidence
            .push("predicate-switching: critical predicate: instance 2 of 3 flipped".into());
        top.techniques.push(crate::model::Evidence {
            technique: "predicate-switching",
            score: 1.0,
            detail: "critical predicate: instance 2 of 3 flipped".into(),
        });
        report.localization.insert(
            "weights",
            serde_json::json!({ "ochiai": 1.0, "predicate-switching": 4.0 }),
        );
        let summary = plain(&report);
        assert!(
            summary.contains(
                "\nWhy    predicate-switching: critical predicate: instance 2 of 3 flipped\n"
            ),
            "{summary}"
        );
        report.localization.insert(
            "weights",
            serde_json::json!({ "ochiai": 5.0, "predicate-switching": 4.0 }),
        );
        assert!(plain(&report).contains("\nWhy    ochiai: 1.00\n"));
    }

    #[test]
    fn the_report_line_says_where_the_time_went() {
        let mut report = Report::new(Path::new("/w"));
        report.tests.total = 3;
        report.set_exit(ExitCode::Clean);
        report.timing.build_s = 2.0;
        report.timing.baseline_s = 0.5;
        report.timing.record_s = 0.25;
        report.timing.total_s = 3.0;
        let text = report.render("out", Style::default());
        assert!(
            text.ends_with(
                "Report: out/report.html (3.0s: build 2.0s, tests 0.8s; data in report.json)\n"
            ),
            "{text}"
        );
    }

    #[test]
    fn summary_when_clean() {
        let mut report = Report::new(Path::new("/w"));
        report.tests.total = 3;
        report.set_exit(ExitCode::Clean);
        assert_eq!(
            report.render("out", Style::default()),
            "ok All 3 tests passed: nothing to debug.\nReport: out/report.html (0.0s; data in report.json)\n"
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
