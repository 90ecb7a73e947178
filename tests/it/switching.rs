//! End-to-end: predicate switching and the dynamic slice of the critical predicate, on small
//! fixture crates (`tests/fixtures/switch-*`) with one planted fault each, asserting on the
//! suspects of `report.json`.

use crate::common;

use std::time::{Duration, Instant};

use serde_json::Value;

/// Runs `cargo autodebug` with the switching options on a copy of fixture `name`, returning
/// the report and how long the run took.
fn debug(name: &str, extra: &[&str]) -> (Value, Duration) {
    let dir = common::fixture(name);
    // Localization alone: a validated fix would lead the ranking (repair's evidence).
    let mut args = vec!["--timeout", "20", "--jobs", "2", "--no-fix"];
    args.extend_from_slice(extra);
    let start = Instant::now();
    let output = common::autodebug(dir.path(), &args);
    let took = start.elapsed();
    assert!(
        dir.path().join("autodebug.out/report.json").exists(),
        "{}",
        common::describe(&output)
    );
    (common::report(dir.path()), took)
}

fn suspects(report: &Value) -> &Vec<Value> {
    report["suspects"].as_array().expect("suspects[]")
}

/// The evidence lines of predicate switching for a suspect.
fn switching_evidence(suspect: &Value) -> Vec<String> {
    suspect["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e.as_str())
        .filter(|e| e.starts_with("predicate-switching:"))
        .map(str::to_string)
        .collect()
}

fn position(report: &Value, code: &str) -> Option<usize> {
    suspects(report).iter().position(|s| s["code"] == code)
}

#[test]
fn fault_in_a_branch_condition_is_the_critical_predicate() {
    let (report, _) = debug("switch-search", &[]);
    let top = &suspects(&report)[0];
    assert_eq!(top["code"], "lo < hi", "{report:#}");
    assert_eq!(top["kind"], "while");
    let evidence = switching_evidence(top);
    assert!(
        evidence.iter().any(|e| e.contains("critical predicate")
            && e.contains("makes tests::finds_the_last pass")
            && e.contains("criterion: pass")
            && e.contains("ordering PRIOR")),
        "{evidence:?}"
    );
    // The search itself is in the report, structured.
    let searches = report["localization"]["predicate-switching"]
        .as_array()
        .expect("localization.predicate-switching[]");
    let search = searches
        .iter()
        .find(|s| {
            s["test"]
                .as_str()
                .is_some_and(|t| t.ends_with("tests::finds_the_last"))
        })
        .expect("a search for tests::finds_the_last");
    assert_eq!(search["ordering"], "PRIOR");
    assert_eq!(search["criterion"], "pass");
    let reruns = search["reruns"].as_u64().unwrap();
    assert!(
        reruns >= 1 && reruns <= search["candidates"].as_u64().unwrap(),
        "{search}"
    );
}

#[test]
fn fault_in_an_assignment_feeding_a_branch_is_in_the_slice() {
    let (report, _) = debug("switch-assign", &[]);
    let critical = &suspects(&report)[0];
    assert_eq!(critical["code"], "celsius >= 38", "{report:#}");
    let at = position(&report, "celsius * 5 / 8").expect("the assignment is a suspect");
    assert!(at < 3, "the faulty assignment ranks {}: {report:#}", at + 1);
    let evidence = switching_evidence(&suspects(&report)[at]);
    assert!(
        evidence
            .iter()
            .any(|e| e.contains("backward dynamic slice") && e.contains("dependence distance 1")),
        "{evidence:?}"
    );
}

#[test]
fn a_runaway_loop_under_a_flip_does_not_hang_the_search() {
    // LEFS flips the loop's last test first: that run only ends by fuel.
    let (report, took) = debug("switch-loop", &["--switching-order", "both"]);
    assert!(took < Duration::from_secs(50), "took {took:?}");
    let top = &suspects(&report)[0];
    assert_eq!(top["code"], "i > 1", "{report:#}");
    let evidence = switching_evidence(top);
    assert!(
        evidence
            .iter()
            .any(|e| e.contains("critical predicate") && e.contains("ordering LEFS")),
        "{evidence:?}"
    );
}

#[test]
fn a_multi_call_test_reports_progress() {
    let (report, _) = debug("switch-multi", &[]);
    let flagged: Vec<&Value> = suspects(&report)
        .iter()
        .filter(|s| {
            switching_evidence(s)
                .iter()
                .any(|e| e.contains("critical predicate:"))
        })
        .collect();
    assert_eq!(flagged.len(), 1, "{report:#}");
    assert_eq!(flagged[0]["code"], "i > len");
    let evidence = switching_evidence(flagged[0]);
    assert!(
        evidence
            .iter()
            .any(|e| e.contains("criterion: progress") && e.contains("from line 24 to line 26")),
        "{evidence:?}"
    );
}

#[test]
fn a_harness_test_is_switched_in_process() {
    let (report, _) = debug("switch-harness", &[]);
    let top = &suspects(&report)[0];
    assert_eq!(top["code"], "lo < hi", "{report:#}");
    let evidence = switching_evidence(top);
    assert!(
        evidence
            .iter()
            .any(|e| e.contains("critical predicate") && e.contains("makes finds_the_last pass")),
        "{evidence:?}"
    );
    let search = &report["localization"]["predicate-switching"][0];
    assert_eq!(search["test"], "suite::finds_the_last", "{search}");
    assert_eq!(search["in_process"], true, "{search}");
    assert_eq!(search["criterion"], "pass", "{search}");
}
