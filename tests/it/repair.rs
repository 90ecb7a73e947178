//! End-to-end repair: the real `cargo autodebug --apply` on copies of example and fixture
//! crates, then the crate's own `cargo test` there. A fix counts when the applied patch is
//! the expected one and the suite is green.

use crate::common::{self, example_path as example, fixture_path as fixture};

use std::path::Path;

use serde_json::Value;

/// Copies the crate, commits it, runs `cargo autodebug --apply` (exit 0: the fix was
/// applied; the report keeps the analysis's 5), and returns the copy and the report.
fn repair(crate_dir: &Path) -> (tempfile::TempDir, Value) {
    let dir = common::copy_crate(crate_dir);
    common::git_commit_all(dir.path());
    common::autodebug_expecting(dir.path(), &["--apply"], 0);
    let report = common::report(dir.path());
    (dir, report)
}

/// The top fix is validated by a rebuild, was applied, and the suite now passes.
fn check_applied(dir: &Path, report: &Value, file: &str) -> Value {
    let top = report["fixes"][0].clone();
    assert_eq!(top["validated"], true, "{report:#}");
    assert_eq!(top["validation"], "rebuild", "{top:#}");
    assert_eq!(top["tests_passed"], top["tests_total"], "{top:#}");
    assert_eq!(top["rank"], 1);
    assert_eq!(report["apply"]["files"][0], file, "{report:#}");
    let patch = std::fs::read_to_string(dir.join("autodebug.out/fix.patch")).unwrap();
    assert_eq!(patch, top["diff"].as_str().unwrap());
    let output = common::cargo_test(dir);
    assert!(
        output.status.success(),
        "the suite fails after --apply: {}",
        common::describe(&output)
    );
    top
}

#[test]
fn max_of_two_is_repaired_to_r_equals_y() {
    let (dir, report) = repair(&example("max2"));
    let top = check_applied(dir.path(), &report, "src/lib.rs");
    assert_eq!(top["file"], "src/lib.rs");
    assert_eq!(
        (top["line"].as_u64(), top["column"].as_u64()),
        (Some(12), Some(13))
    );
    assert_eq!(top["original"], "x");
    assert_eq!(top["replacement"], "y", "{report:#}");
    let text = std::fs::read_to_string(dir.path().join("src/lib.rs")).unwrap();
    assert!(text.contains("        r = y;\n"), "{text}");
    // The runtime checked it first, without a rebuild.
    assert_eq!(top["plausible"], true);
    assert!(report["repair"]["runtime_checked"].as_u64().unwrap() >= 1);
}

#[test]
fn binary_search_loop_condition_is_repaired_to_less_or_equal() {
    let (dir, report) = repair(&fixture("repair-search"));
    let top = check_applied(dir.path(), &report, "src/lib.rs");
    assert_eq!(top["original"], "lo < hi", "{report:#}");
    assert_eq!(top["replacement"], "lo <= hi", "{report:#}");
    assert_eq!(top["template"], "relational-operator");
    let text = std::fs::read_to_string(dir.path().join("src/lib.rs")).unwrap();
    assert!(text.contains("    while lo <= hi {\n"), "{text}");
}

#[test]
fn a_missing_statement_is_put_back() {
    // A plain crate (no attribute) whose results come out in the wrong order: a call on the
    // vector is missing, which no one-token edit can add.
    let (dir, report) = repair(&fixture("plain-missing"));
    let top = check_applied(dir.path(), &report, "src/lib.rs");
    assert_eq!(top["template"], "insert-call", "{report:#}");
    assert_eq!(top["technique"], "statement", "{report:#}");
    assert_eq!(top["original"], "", "{report:#}");
    assert_eq!(
        top["replacement"].as_str().unwrap().trim(),
        "scores.reverse();"
    );
    let text = std::fs::read_to_string(dir.path().join("src/lib.rs")).unwrap();
    assert!(
        text.contains("    scores.sort();\n    scores.reverse();\n    scores\n"),
        "{text}"
    );
}

#[test]
fn two_faults_are_repaired_under_a_partial_fix() {
    // One test of several asserts, two faults: fixing the initial sum makes some asserts
    // pass and breaks none; under that fix, what still fails runs the digit's condition,
    // and the two edits together pass.
    let (dir, report) = repair(&fixture("plain-two-faults"));
    let top = check_applied(dir.path(), &report, "src/lib.rs");
    assert!(
        report["repair"]["partial_fixes"].as_u64().unwrap_or(0) >= 1,
        "{:#}",
        report["repair"]
    );
    let edits: Vec<(&str, &str)> = top["edits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["original"].as_str().unwrap(),
                e["replacement"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        edits,
        [("1", "0"), ("digit <= limit", "digit < limit")],
        "{top:#}"
    );
    let text = std::fs::read_to_string(dir.path().join("src/lib.rs")).unwrap();
    assert!(text.contains("    let mut sum = 0;\n"), "{text}");
    assert!(text.contains("        if digit < limit {\n"), "{text}");
}

#[test]
fn faults_in_two_functions_failing_two_tests_are_repaired_together() {
    // Each test fails on its own function's fault. The suite's ranking puts every site of
    // `first_at_least` first, so `product`'s loop condition is a target as its failing
    // test's own suspect; its fix passes that test and breaks none, and under it the
    // other test leads to `||`, whose `&&` the runtime cannot evaluate: a rebuild checks
    // the pair. The attribute zero-annotation put before `product` lies between the two
    // edits, and the fix maps back to the user's file around it.
    let (dir, report) = repair(&fixture("plain-two-functions"));
    let top = check_applied(dir.path(), &report, "src/lib.rs");
    let edits: Vec<(u64, &str, &str)> = top["edits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["line"].as_u64().unwrap(),
                e["original"].as_str().unwrap(),
                e["replacement"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        edits,
        [
            (5, "i < v.len() || v[i] < x", "i < v.len() && v[i] < x"),
            (15, "k < lo", "k < hi")
        ],
        "{top:#}"
    );
    let text = std::fs::read_to_string(dir.path().join("src/lib.rs")).unwrap();
    assert!(
        text.contains("    while i < v.len() && v[i] < x {\n"),
        "{text}"
    );
    assert!(text.contains("    while k < hi {\n"), "{text}");
    assert!(!text.contains("autodebug"), "{text}");
}

#[test]
fn a_recursion_that_does_not_end_fails_with_a_trace_and_is_repaired() {
    // Under `cargo test` the even case overflows its stack and kills the test binary. The
    // runtime ends it past its stack bound with a panic instead, so the test fails like
    // any other, with a trace of the calls up to there.
    let (dir, report) = repair(&fixture("plain-recursion"));
    let failing = &report["failing_tests"][0];
    assert_eq!(failing["name"], "tests::even_numbers", "{report:#}");
    assert_eq!(failing["outcome"], "failed", "{failing:#}");
    assert_eq!(failing["deterministic"], true, "{failing:#}");
    let message = failing["message"].as_str().unwrap();
    assert!(
        message.contains("double_factorial") && message.contains("recursion"),
        "{message}"
    );
    assert!(failing["trace"].is_string(), "{failing:#}");
    let top = check_applied(dir.path(), &report, "src/lib.rs");
    assert_eq!(
        (&top["original"], &top["replacement"]),
        (&"n == 1".into(), &"n <= 1".into()),
        "{top:#}"
    );
}

#[test]
fn off_by_one_loop_bound_is_repaired() {
    let (dir, report) = repair(&example("array-copy"));
    let top = check_applied(dir.path(), &report, "src/lib.rs");
    assert_eq!(top["original"], "src.len() - 1", "{report:#}");
    assert_eq!(top["replacement"], "src.len()", "{report:#}");
    let text = std::fs::read_to_string(dir.path().join("src/lib.rs")).unwrap();
    assert!(text.contains("    for i in 0..src.len() {\n"), "{text}");
}

/// With one target asked for (`--fix-suspects 1`), the fault (`1..` for `0..`, ranked past
/// the targets: every site runs in the one failing test) is not among the sites repaired;
/// when none of their candidates passes the reruns, the next suspects' one-token edits are
/// checked too, and the fix is found there.
#[test]
fn a_fault_ranked_past_the_targets_is_fixed_when_theirs_all_fail() {
    let dir = common::copy_crate(&fixture("plain-pairs"));
    common::git_commit_all(dir.path());
    common::autodebug_expecting(dir.path(), &["--apply", "--fix-suspects", "1"], 0);
    let report = common::report(dir.path());
    let notes = report["notes"].as_array().unwrap();
    assert!(
        (notes.iter()).any(|n| n.as_str().unwrap().contains("more site")
            && n.as_str().unwrap().contains("1 plausible")),
        "{report:#}"
    );
    let top = check_applied(dir.path(), &report, "src/lib.rs");
    assert_eq!(
        (top["original"].as_str(), top["replacement"].as_str()),
        (Some("1"), Some("0")),
        "{report:#}"
    );
    let text = std::fs::read_to_string(dir.path().join("src/lib.rs")).unwrap();
    assert!(text.contains("    for i in 0..values.len() {\n"), "{text}");
}

/// Reruns in batches (the copy's tests carry the test attribute: one process runs a test
/// under many candidates) come to the fix that one process per candidate comes to
/// (`--annotate never`: the tree builds as it is, no batches).
#[test]
fn batched_reruns_find_what_one_process_per_candidate_finds() {
    let dir = common::copy_crate(&fixture("repair-search"));
    common::autodebug_expecting(dir.path(), &[], 5);
    let batched = common::report(dir.path());
    common::autodebug_expecting(dir.path(), &["--annotate", "never"], 5);
    let apart = common::report(dir.path());
    let (b, a) = (&batched["repair"], &apart["repair"]);
    let count = |r: &Value, key: &str| r[key].as_u64().unwrap_or_else(|| panic!("{key}: {r:#}"));
    assert!(
        count(b, "runtime_processes") < count(b, "runtime_runs"),
        "no batch: {b:#}"
    );
    assert_eq!(
        count(a, "runtime_processes"),
        count(a, "runtime_runs"),
        "{a:#}"
    );
    for report in [&batched, &apart] {
        let top = &report["fixes"][0];
        assert_eq!(top["validated"], true, "{report:#}");
        assert_eq!(top["original"], "lo < hi", "{top:#}");
        assert_eq!(top["replacement"], "lo <= hi", "{top:#}");
    }
}

/// Candidate validations per second on the same candidates of one fixture: by rerunning the
/// suite with the runtime evaluating each candidate (no rebuild), and by patching,
/// rebuilding and rerunning it (`--rebuild-all` rebuilds the refuted ones too). Run with
/// `cargo test -p cargo-autodebug --test repair -- --ignored --nocapture`.
#[test]
#[ignore]
fn validations_per_second_rerun_against_rebuild() {
    let dir = common::copy_crate(&fixture("repair-search"));
    let args = [
        "--rebuild-all",
        "--max-rebuilds",
        "1000",
        "--max-fixes",
        "1000",
    ];
    // The first run builds the rebuilds' dependencies; the second is measured.
    common::autodebug_expecting(dir.path(), &args, 5);
    common::autodebug_expecting(dir.path(), &args, 5);
    let report = common::report(dir.path());
    let repair = &report["repair"];
    let checked = repair["runtime_checked"].as_u64().unwrap();
    let rebuilds = repair["rebuilds"].as_u64().unwrap();
    let rerun_rate = repair["runtime_per_s"].as_f64().unwrap();
    let rebuild_rate = repair["rebuild_per_s"].as_f64().unwrap();
    println!(
        "repair-search: {checked} candidates by rerun in {:.2}s ({} test runs): {rerun_rate:.1}/s; \
         {rebuilds} by rebuild in {:.1}s: {rebuild_rate:.2}/s; ratio {:.0}x",
        repair["runtime_s"].as_f64().unwrap(),
        repair["runtime_runs"],
        repair["rebuild_s"].as_f64().unwrap(),
        rerun_rate / rebuild_rate
    );
    assert!(checked >= 5, "{repair:#}");
    // Every candidate the reruns checked is rebuilt too (and those they could not check).
    assert!(rebuilds >= checked, "{repair:#}");
    assert!(rerun_rate > rebuild_rate, "{repair:#}");
}

#[test]
fn no_fix_skips_the_stage_and_bounds_cut_it() {
    let dir = common::copy_crate(&example("max2"));
    common::autodebug_expecting(dir.path(), &["--no-fix"], 5);
    let report = common::report(dir.path());
    assert!(report.get("repair").is_none(), "{report:#}");
    assert_eq!(report["fixes"], serde_json::json!([]));
    assert!(!dir.path().join("autodebug.out/fix.patch").exists());

    // No rebuild allowed: the candidates the reruns passed are reported, not validated.
    common::autodebug_expecting(dir.path(), &["--max-rebuilds", "0"], 5);
    let report = common::report(dir.path());
    let repair = &report["repair"];
    assert_eq!(repair["rebuilds"], 0, "{repair:#}");
    assert_eq!(repair["cut"], "0 rebuilds", "{repair:#}");
    let fixes = report["fixes"].as_array().unwrap();
    assert!(!fixes.is_empty(), "{report:#}");
    for fix in fixes {
        assert_eq!(fix["validated"], false, "{fix:#}");
        assert_eq!(fix["validation"], "runtime", "{fix:#}");
        assert_eq!(fix["plausible"], true, "{fix:#}");
    }
    assert_eq!(fixes[0]["replacement"], "y");
    assert!(!dir.path().join("autodebug.out/fix.patch").exists());
}

/// The README's claim: on every example the top fix is validated and is the true
/// correction (`fault.json`'s `original` at its place). Slow (every example end to end):
/// `cargo test -p cargo-autodebug --test repair -- --ignored`.
#[test]
#[ignore]
fn every_example_gets_its_true_fix_first() {
    let mut wrong = Vec::new();
    for entry in std::fs::read_dir(common::repo_root().join("examples")).unwrap() {
        let path = entry.unwrap().path();
        let Ok(fault) = std::fs::read_to_string(path.join("fault.json")) else {
            continue;
        };
        let fault: Value = serde_json::from_str(&fault).unwrap();
        let dir = common::copy_crate(&path);
        common::autodebug_expecting(dir.path(), &[], 5);
        let report = common::report(dir.path());
        let top = &report["fixes"][0];
        let squeeze = |v: &Value| {
            v.as_str()
                .unwrap_or("")
                .split_whitespace()
                .collect::<String>()
        };
        let right = top["validated"] == true
            && top["file"] == fault["file"]
            && top["line"] == fault["line"]
            && squeeze(&top["replacement"]) == squeeze(&fault["original"]);
        if !right {
            wrong.push(format!(
                "{}: top fix {}:{} `{}` -> `{}` (validated {}), expected `{}`",
                path.file_name().unwrap().to_string_lossy(),
                top["file"],
                top["line"],
                top["original"],
                top["replacement"],
                top["validated"],
                fault["original"]
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
