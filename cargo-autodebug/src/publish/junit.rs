//! JUnit XML of the failing tests (`--junit PATH`), in the shape CI systems read test
//! results in (written with `quick-junit`, cargo-nextest's own writer): one test suite per
//! test target, one test case per test that failed. A deterministic failure is a
//! `<failure>` whose message is the test's and whose text is the diagnosis (the likely
//! fault and the validated fix, as the console says them), its reruns `<rerunFailure>`s;
//! a flaky test is a success with a `<flakyFailure>`.

use std::collections::BTreeMap;
use std::time::Duration;

use anyhow::{Context, Result};
use quick_junit::{
    FlakyOrRerun, NonSuccessKind, Report as JUnit, TestCase, TestCaseStatus, TestRerun, TestSuite,
};

use crate::model::Report;

/// The JUnit XML of `report`'s failing tests.
pub fn render(report: &Report) -> Result<String> {
    let diagnosis = diagnosis(report);
    let mut suites: BTreeMap<String, TestSuite> = BTreeMap::new();
    for test in &report.failing_tests {
        let suite_name = format!("{}::{}", test.package, test.target);
        let status = if test.flaky {
            let mut status = TestCaseStatus::success();
            let mut rerun = TestRerun::new(NonSuccessKind::Failure);
            rerun.set_message(test.message.as_str());
            status.add_rerun(rerun);
            status
        } else {
            let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
            status.set_message(test.message.as_str());
            status.set_type(test.outcome);
            if test.deterministic && !diagnosis.is_empty() {
                status.set_description(diagnosis.as_str());
            }
            status.set_rerun_kind(FlakyOrRerun::Rerun);
            for outcome in &test.reruns {
                let mut rerun = TestRerun::new(NonSuccessKind::Failure);
                rerun.set_type(*outcome);
                status.add_rerun(rerun);
            }
            status
        };
        let mut case = TestCase::new(test.name.as_str(), status);
        case.set_classname(suite_name.as_str());
        case.set_time(Duration::from_secs_f64(test.duration_s.max(0.0)));
        suites
            .entry(suite_name.clone())
            .or_insert_with(|| TestSuite::new(suite_name.as_str()))
            .add_test_case(case);
    }
    let mut junit = JUnit::new("cargo-autodebug");
    junit.add_test_suites(suites.into_values());
    junit.to_string().context("could not write the JUnit XML")
}

/// The likely fault and the validated fix, one line each, as the console's summary says
/// them; empty when there is neither.
fn diagnosis(report: &Report) -> String {
    let mut lines = Vec::new();
    if let Some(top) = report.suspects.first() {
        lines.push(format!(
            "Where: {}:{}:{} `{}`{}",
            top.file,
            top.line,
            top.column,
            top.code,
            top.evidence
                .first()
                .map(|e| format!(" ({e})"))
                .unwrap_or_default()
        ));
    }
    if let Some(fix) = report.top_fix() {
        lines.push(format!(
            "Fix: {}:{}: `{}` → `{}`, validated: {}/{} tests pass",
            fix.file, fix.line, fix.original, fix.replacement, fix.tests_passed, fix.tests_total
        ));
    }
    lines.join("\n")
}
