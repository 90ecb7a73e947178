//! End-to-end: exit codes and messages of the real `cargo autodebug` on small fixture crates
//! (`tests/fixtures/`), one per situation the tool must tell apart.

use crate::common::{self, fixture};

use std::path::Path;

use serde_json::{Value, json};

#[test]
fn all_tests_pass_exits_0() {
    let dir = fixture("all-pass");
    common::autodebug_expecting(dir.path(), &[], 0);
    let report = common::report(dir.path());
    assert_eq!(report["status"], "clean");
    assert_eq!(report["tests"]["passed"], 1);
    assert_eq!(report["failing_tests"], json!([]));
}

#[test]
fn compile_error_exits_3_and_shows_the_compiler_error() {
    let dir = fixture("compile-error");
    let output = common::autodebug(dir.path(), &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        output.status.code(),
        Some(3),
        "{}",
        common::describe(&output)
    );
    assert!(
        stderr.contains("mismatched types"),
        "compiler error not shown:\n{stderr}"
    );
    assert!(
        stderr.contains("src/lib.rs:3"),
        "error location not shown:\n{stderr}"
    );
    let report = common::report(dir.path());
    assert_eq!(report["status"], "build-failed");
    assert!(
        report["build_errors"][0]
            .as_str()
            .unwrap()
            .contains("mismatched types")
    );
}

#[test]
fn no_tests_exits_4() {
    let dir = fixture("no-tests");
    common::autodebug_expecting(dir.path(), &[], 4);
    // A filter that matches nothing is the same situation.
    let dir = fixture("all-pass");
    let output = common::autodebug_expecting(dir.path(), &["no_such_test"], 4);
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("no test name contains `no_such_test`")
    );
}

#[test]
fn hanging_test_exits_6_and_the_others_still_run() {
    let dir = fixture("hang");
    common::autodebug_expecting(dir.path(), &["--timeout", "3"], 6);
    let report = common::report(dir.path());
    assert_eq!(report["status"], "timeout");
    assert_eq!(report["tests"]["passed"], 1);
    let failing = &report["failing_tests"][0];
    assert_eq!(failing["name"], "tests::hangs");
    assert_eq!(failing["outcome"], "timeout");
}

#[test]
fn aborting_test_exits_7() {
    let dir = fixture("abort");
    common::autodebug_expecting(dir.path(), &[], 7);
    let report = common::report(dir.path());
    let failing = &report["failing_tests"][0];
    assert_eq!(failing["name"], "tests::aborts");
    assert_eq!(failing["outcome"], "crashed");
    assert!(
        failing["message"].as_str().unwrap().contains("SIGABRT"),
        "{failing}"
    );
    assert_eq!(report["tests"]["passed"], 1);
}

#[test]
fn flaky_failure_exits_8() {
    let dir = fixture("flaky");
    let marker = dir.path().join("marker");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_cargo-autodebug"))
        .args(["autodebug", "--target-dir"])
        .arg(common::shared_target_dir())
        .current_dir(dir.path())
        .env("FLAKY_MARKER", &marker)
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(8),
        "{}",
        common::describe(&output)
    );
    let report = common::report(dir.path());
    let failing = &report["failing_tests"][0];
    assert_eq!(failing["name"], "tests::fails_once");
    assert_eq!(failing["flaky"], true);
    assert_eq!(failing["deterministic"], false);
    assert_eq!(report["tests"]["flaky"], 1);
}

/// The `i += 1` step of the runaway fixture, as a plan names it.
fn step_site(dir: &Path) -> Value {
    let source = std::fs::read_to_string(dir.join("src/lib.rs")).unwrap();
    let (index, line) = source
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains("i += 1"))
        .unwrap();
    let column = line.find("1;").unwrap() + 1;
    json!({"file": "src/lib.rs", "line": index + 1, "column": column, "kind": "compound"})
}

fn write_plan(dir: &Path, plan: Value) -> String {
    let path = dir.join("plan.json");
    std::fs::write(&path, plan.to_string()).unwrap();
    path.display().to_string()
}

#[test]
fn runaway_loop_under_a_plan_stops_by_fuel_and_says_so() {
    let dir = fixture("runaway");
    let site = step_site(dir.path());
    let plan = write_plan(
        dir.path(),
        json!({"version": 1, "overrides": [{"site": site, "value": {"int": {"ty": "u32", "v": 0}}}], "fuel": 100000}),
    );
    let output = common::autodebug_expecting(dir.path(), &["--plan", &plan, "--timeout", "30"], 9);
    let report = common::report(dir.path());
    let failing = &report["failing_tests"][0];
    assert_eq!(failing["outcome"], "fuel-exhausted", "{report}");
    assert!(
        String::from_utf8_lossy(&output.stdout).contains("fuel"),
        "{}",
        common::describe(&output)
    );
}

#[test]
fn runaway_loop_under_a_plan_without_fuel_stops_by_timeout_and_says_so() {
    let dir = fixture("runaway");
    let site = step_site(dir.path());
    let plan = write_plan(
        dir.path(),
        json!({"version": 1, "overrides": [{"site": site, "value": {"int": {"ty": "u32", "v": 0}}}]}),
    );
    let output = common::autodebug(
        dir.path(),
        &["--plan", &plan, "--timeout", "2", "--reruns", "0"],
    );
    assert_eq!(
        output.status.code(),
        Some(6),
        "{}",
        common::describe(&output)
    );
    let report = common::report(dir.path());
    assert_eq!(report["failing_tests"][0]["outcome"], "timeout", "{report}");
    assert!(
        String::from_utf8_lossy(&output.stdout).contains("did not finish within"),
        "{}",
        common::describe(&output)
    );
}

#[test]
fn malformed_plan_is_a_usage_error() {
    let dir = fixture("all-pass");
    let plan = write_plan(dir.path(), json!({"version": 1, "flips": "not a list"}));
    let output = common::autodebug_expecting(dir.path(), &["--plan", &plan], 2);
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("is not valid"),
        "{}",
        common::describe(&output)
    );
}

#[test]
fn missing_manifest_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let output =
        common::autodebug_expecting(dir.path(), &["--manifest-path", "nowhere/Cargo.toml"], 2);
    assert!(String::from_utf8_lossy(&output.stderr).contains("does not exist"));
}

#[test]
fn json_message_format_ends_with_where_the_report_is() {
    let dir = fixture("all-pass");
    let output = common::autodebug_expecting(dir.path(), &["--message-format", "json"], 0);
    // JSON lines: events, then where the report was written as the last one.
    let stdout = String::from_utf8(output.stdout).unwrap();
    let last = stdout.lines().last().expect("stdout has lines");
    let printed: Value = serde_json::from_str(last).expect("the last line is JSON");
    assert_eq!(printed["reason"], "report");
    let path = printed["path"].as_str().unwrap();
    let report: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(report, common::report(dir.path()));
    assert_eq!(printed["status"], "clean");
}

/// The names of the failing tests, as `target::name`.
fn failing_names(report: &Value) -> Vec<String> {
    let mut names: Vec<String> = report["failing_tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            format!(
                "{}::{}",
                t["target"].as_str().unwrap(),
                t["name"].as_str().unwrap()
            )
        })
        .collect();
    names.sort();
    names
}

#[test]
fn cargo_selectors_choose_packages_and_targets() {
    let dir = fixture("multi");
    let root = dir.path();
    common::autodebug_expecting(root, &[], 5);
    assert_eq!(
        failing_names(&common::report(root)),
        [
            "alpha::tests::doubles",
            "beta::tests::abs_of_negative",
            "it::abs_from_outside"
        ]
    );

    common::autodebug_expecting(root, &["-p", "beta"], 5);
    assert_eq!(
        failing_names(&common::report(root)),
        ["beta::tests::abs_of_negative", "it::abs_from_outside"]
    );

    common::autodebug_expecting(root, &["-p", "beta", "--lib"], 5);
    assert_eq!(
        failing_names(&common::report(root)),
        ["beta::tests::abs_of_negative"]
    );

    common::autodebug_expecting(root, &["-p", "beta", "--test", "it"], 5);
    let report = common::report(root);
    assert_eq!(failing_names(&report), ["it::abs_from_outside"]);
    assert_eq!(report["tests"]["total"], 2);

    // From a member's directory, as `cargo test` there: that member only.
    common::autodebug_expecting(&root.join("alpha"), &[], 5);
    assert_eq!(
        failing_names(&common::report(root)),
        ["alpha::tests::doubles"]
    );

    common::autodebug_expecting(root, &["--manifest-path", "beta/Cargo.toml", "abs_of"], 5);
    let report = common::report(root);
    assert_eq!(failing_names(&report), ["beta::tests::abs_of_negative"]);
    assert_eq!(
        report["tests"]["total"], 2,
        "the name filter keeps abs_of_negative and abs_of_positive"
    );
    // A previous report is kept beside the new one.
    assert!(root.join("autodebug.out.old/report.json").exists());

    let unknown = common::autodebug_expecting(root, &["-p", "gamma"], 2);
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("members are: alpha, beta"));
}

/// Cargo's feature flags reach every build: a failing test behind a feature is not there
/// without `--features`, and with it the fault is found and the fix validated by a rebuild
/// that has the feature too (a rebuild without it would lack the failing test). `-q` leaves
/// the status lines out, `-vv` shows the cargo command.
#[test]
fn a_test_behind_a_feature_is_debugged_with_features() {
    let dir = fixture("plain-features");
    let output = common::autodebug_expecting(dir.path(), &["-q"], 0);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        !stderr.contains("Building") && !stderr.contains("Running"),
        "-q: {stderr}"
    );
    let output = common::autodebug_expecting(dir.path(), &["-F", "rounding", "-vv"], 5);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("Running `") && stderr.contains("--features rounding"),
        "-vv: {stderr}"
    );
    let report = common::report(dir.path());
    assert_eq!(
        report["failing_tests"][0]["name"], "tests::half_a_centimetre_rounds_up",
        "{report:#}"
    );
    let fix = common::validated_fix(&report);
    assert_eq!(fix["line"], 12, "{report:#}");
    assert_eq!(fix["tests_total"], 3, "the rebuild has the feature's tests");
}

/// A workspace set up for cargo-nextest: the kill timeout of its profile in
/// `.config/nextest.toml` (`period × terminate-after`) is the one a hanging test gets (the
/// nextest profile is the weakest configuration source: `config::merge`'s tests show the
/// command line winning over every source).
#[test]
fn the_nextest_profile_gives_the_per_test_timeout() {
    let dir = fixture("hang");
    std::fs::create_dir_all(dir.path().join(".config")).unwrap();
    std::fs::write(
        dir.path().join(".config/nextest.toml"),
        "[profile.default]\nslow-timeout = { period = \"1s\", terminate-after = 2 }\n",
    )
    .unwrap();
    // Localization and repair of a hanging test only add reruns that hang: not run here.
    let only_the_baseline = ["--no-fix", "--techniques", "spectrum"];
    let output =
        common::autodebug_expecting(dir.path(), &[&only_the_baseline[..], &["-v"]].concat(), 6);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains(".config/nextest.toml"), "{stderr}");
    let report = common::report(dir.path());
    let failing = &report["failing_tests"][0];
    assert_eq!(failing["outcome"], "timeout");
    assert!(
        failing["message"].as_str().unwrap().contains("within 2.0s"),
        "{failing:#}"
    );
}
