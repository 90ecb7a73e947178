//! Tests that do what tests should not (the `hostile` fixture): each gets its defined
//! outcome in the report, the run goes on to localize and fix the crate's real fault, and
//! nothing a test prints is taken for the harness's verdict or for its failure.

use crate::common;

use std::collections::BTreeMap;

use serde_json::Value;

#[test]
fn every_hostile_test_gets_its_outcome_and_the_real_fault_is_still_fixed() {
    let dir = common::fixture("hostile");
    let marker = dir.path().join("flaky.marker");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_cargo-autodebug"))
        .args(["autodebug", "--timeout", "3", "--target-dir"])
        .arg(common::shared_target_dir())
        .current_dir(dir.path())
        .env("FLAKY_MARKER", &marker)
        .env("NO_COLOR", "1")
        .env_remove("GITHUB_ACTIONS")
        .output()
        .unwrap();
    // A crash is the most severe outcome: exit 7.
    assert_eq!(
        output.status.code(),
        Some(7),
        "{}",
        common::describe(&output)
    );
    let report = common::report(dir.path());
    let failing: BTreeMap<&str, &Value> = report["failing_tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["name"].as_str().unwrap(), f))
        .collect();
    let outcome = |name: &str| -> (&str, &str) {
        let f = failing
            .get(name)
            .unwrap_or_else(|| panic!("{name} is not among the failing tests: {report:#}"));
        (
            f["outcome"].as_str().unwrap(),
            f["message"].as_str().unwrap(),
        )
    };

    let (kind, message) = outcome("tests::hangs");
    assert_eq!(kind, "timeout", "{message}");
    let (kind, message) = outcome("tests::aborts");
    assert_eq!(kind, "crashed");
    assert!(message.contains("SIGABRT"), "{message}");
    let (kind, message) = outcome("tests::overflows_its_stack");
    assert_eq!(kind, "crashed");
    assert!(message.starts_with("stack overflow"), "{message}");
    // It printed the harness's `ok` line and summary, then exited with status 0.
    let (kind, message) = outcome("tests::exits_early_with_status_0");
    assert_eq!(kind, "crashed");
    assert!(
        message.contains("status 0 before the test harness reported a result"),
        "{message}"
    );
    // It printed a passing verdict and a fake panic report, then failed: its own panic is
    // the failure.
    let (kind, message) = outcome("tests::prints_a_passing_verdict_then_fails");
    assert_eq!(kind, "failed");
    assert_eq!(message, "the real failure");
    // It printed a failing verdict, a harness marker and a fake panic of its own thread,
    // and passed.
    assert!(!failing.contains_key("tests::prints_a_failing_verdict_then_passes"));
    // A worker's panic, unwrapped by the test: both are said.
    let (kind, message) = outcome("tests::spawned_thread_panics");
    assert_eq!(kind, "failed");
    assert!(message.contains("the worker gave up"), "{message}");
    // 80 MB of output, then a pass.
    assert!(!failing.contains_key("tests::floods_its_output"));
    let flaky = failing["tests::fails_once"];
    assert_eq!(flaky["flaky"], true, "{flaky}");
    assert_eq!(report["tests"]["flaky"], 1);
    assert_eq!(report["tests"]["passed"], 3, "{report:#}");

    // The run went on: the real fault is the top suspect and its fix is validated, the
    // tests out of the instrumented code's reach neither required nor rerun.
    let top = &report["suspects"][0];
    assert_eq!(
        (top["line"].as_u64(), top["code"].as_str()),
        (Some(12), Some("lo")),
        "{report:#}"
    );
    let fix = &report["fixes"][0];
    assert_eq!(fix["validated"], true, "{report:#}");
    assert_eq!(fix["replacement"], "hi");
}
