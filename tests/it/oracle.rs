//! End-to-end: the oracle stage on small fixture crates (`tests/fixtures/oracle-*`), asserting
//! on `oracles[]` in `report.json`: the failing call, what it should have done, the calls
//! the test accepted before it, and whether a rerun with the expected value passed.

use crate::common;

use std::sync::OnceLock;

use serde_json::{Value, json};

/// The report of one `cargo autodebug` run on a copy of fixture `name`.
fn debug(name: &str) -> Value {
    let dir = common::fixture(name);
    let output = common::autodebug(dir.path(), &["--timeout", "20", "--jobs", "2"]);
    assert!(
        dir.path().join("autodebug.out/report.json").exists(),
        "{}",
        common::describe(&output)
    );
    common::report(dir.path())
}

/// `oracle-returns`, run once for all the tests that read it.
fn returns_report() -> &'static Value {
    static REPORT: OnceLock<Value> = OnceLock::new();
    REPORT.get_or_init(|| debug("oracle-returns"))
}

/// `oracle-panic`, run once for all the tests that read it.
fn panic_report() -> &'static Value {
    static REPORT: OnceLock<Value> = OnceLock::new();
    REPORT.get_or_init(|| debug("oracle-panic"))
}

/// The oracle of the test whose name ends with `::tests::{name}`.
fn oracle<'a>(report: &'a Value, name: &str) -> &'a Value {
    let suffix = format!("::tests::{name}");
    report["oracles"]
        .as_array()
        .expect("oracles[]")
        .iter()
        .find(|o| o["test"].as_str().is_some_and(|t| t.ends_with(&suffix)))
        .unwrap_or_else(|| panic!("no oracle for {name}: {report:#}"))
}

fn int(v: i64) -> Value {
    json!({"int": {"ty": "i32", "v": v}})
}

/// The accepted calls as (index, first argument, returned value).
fn accepted(oracle: &Value) -> Vec<(u64, Value, Value)> {
    oracle["accepted_calls"]
        .as_array()
        .expect("accepted_calls[]")
        .iter()
        .map(|c| {
            (
                c["call"].as_u64().unwrap(),
                c["args"][0]["value"].clone(),
                c["returned"].clone(),
            )
        })
        .collect()
}

#[test]
fn assert_eq_with_the_call_on_the_left_expects_the_right_side() {
    let o = oracle(returns_report(), "call_on_the_left");
    assert_eq!(o["kind"], "returns", "{o:#}");
    assert!(
        o["function"].as_str().unwrap().ends_with("::triple"),
        "{o:#}"
    );
    assert_eq!(o["call"], 0);
    assert_eq!(o["args"][0]["value"], int(3));
    assert_eq!(o["returned"], int(10));
    assert_eq!(o["expected"], int(9));
    assert_eq!(o["confirmed"], true, "{o:#}");
    assert_eq!(o["reruns"], 1);
    assert!(o["why"].is_null(), "{o:#}");
}

#[test]
fn assert_eq_with_the_call_on_the_right_expects_the_left_side() {
    let o = oracle(returns_report(), "call_on_the_right");
    assert_eq!(o["kind"], "returns", "{o:#}");
    assert_eq!(o["expected"], int(9));
    assert_eq!(o["confirmed"], true, "{o:#}");
}

#[test]
fn calls_before_the_failing_one_are_accepted() {
    let o = oracle(returns_report(), "fails_on_the_third_call");
    assert_eq!(o["call"], 2, "{o:#}");
    assert_eq!(o["args"][0]["value"], int(4));
    assert_eq!(o["expected"], int(12));
    assert_eq!(o["confirmed"], true, "{o:#}");
    assert_eq!(
        accepted(o),
        [(0, int(1), int(3)), (1, int(2), int(6))],
        "{o:#}"
    );
}

#[test]
fn a_fix_that_needs_two_calls_changed_is_not_confirmed() {
    let o = oracle(returns_report(), "needs_two_calls_changed");
    assert_eq!(
        (o["call"].clone(), o["expected"].clone()),
        (json!(0), int(9))
    );
    assert_eq!(o["confirmed"], false, "{o:#}");
    assert_eq!(o["reruns"], 1);
    let later = o["later_failure"].as_str().expect("later_failure");
    // The second call's assertion, with its own values.
    assert!(
        later.contains("left: 16") && later.contains("right: 15"),
        "{later}"
    );
    assert!(
        o["why"].as_str().unwrap().contains("not sufficient"),
        "{o:#}"
    );
}

#[test]
fn strings_with_escapes_and_a_custom_message() {
    let o = oracle(returns_report(), "greets_with_a_comma");
    assert_eq!(
        o["expected"],
        json!({"str": {"v": "Hello, Ann!\n", "truncated": false}}),
        "{o:#}"
    );
    assert_eq!(o["confirmed"], true, "{o:#}");
}

#[test]
fn a_value_the_runtime_cannot_override_is_formed_but_not_confirmed() {
    let o = oracle(returns_report(), "names_two");
    assert_eq!(
        o["expected"],
        json!({"str": {"v": "two", "truncated": false}}),
        "{o:#}"
    );
    assert_eq!(o["args"][0]["value"], json!({"int": {"ty": "u8", "v": 2}}));
    assert_eq!(o["confirmed"], false);
    assert_eq!(o["reruns"], 1);
    let why = o["why"].as_str().unwrap();
    assert!(why.contains("could not") && why.contains("&str"), "{why}");
}

#[test]
fn only_failing_tests_have_oracles() {
    let oracles = returns_report()["oracles"].as_array().unwrap();
    assert_eq!(oracles.len(), 6);
    assert!(
        oracles
            .iter()
            .all(|o| !o["test"].as_str().unwrap().ends_with("::small"))
    );
}

#[test]
fn a_panic_inside_the_function_is_no_panic() {
    let o = oracle(panic_report(), "last_of_three");
    assert_eq!(o["kind"], "no-panic", "{o:#}");
    assert!(o["function"].as_str().unwrap().ends_with("::last"), "{o:#}");
    assert_eq!(o["call"], 1);
    assert!(
        o["panic"]
            .as_str()
            .unwrap()
            .starts_with("index out of bounds"),
        "{o:#}"
    );
    assert_eq!(o["confirmed"], false);
    assert!(o["why"].is_string());
    // `first(&[4, 5])` returned 4 before it.
    let calls = accepted(o);
    assert_eq!(calls.len(), 1, "{o:#}");
    assert_eq!(calls[0].2, int(4));
}

#[test]
fn a_violated_postcondition_is_a_contract_oracle() {
    let o = oracle(panic_report(), "larger_of_two");
    assert_eq!(o["kind"], "contract", "{o:#}");
    assert!(o["function"].as_str().unwrap().ends_with("::larger"));
    assert_eq!(o["call"], 1);
    assert_eq!(o["contract"], "ret >= a && ret >= b");
    assert!(
        o["panic"]
            .as_str()
            .unwrap()
            .starts_with("Post-condition of larger violated"),
        "{o:#}"
    );
    assert_eq!(o["returned"], int(4));
    assert_eq!(accepted(o), [(0, int(1), int(2))]);
}

#[test]
fn a_precondition_the_test_breaks_names_no_call() {
    let o = oracle(panic_report(), "ratio_by_zero");
    assert_eq!(o["kind"], "contract", "{o:#}");
    assert!(o["call"].is_null(), "{o:#}");
    assert_eq!(o["contract"], "d != 0");
    assert!(o["why"].as_str().unwrap().contains("the test"), "{o:#}");
    assert_eq!(accepted(o).len(), 1);
}

#[test]
fn assert_ne_wants_any_other_value() {
    let o = oracle(panic_report(), "zero_is_not_positive");
    assert_eq!(o["kind"], "returns", "{o:#}");
    assert!(o["expected"].is_null());
    assert_eq!(o["other_than"], int(1));
    assert_eq!(o["confirmed"], false);
    assert!(o["why"].as_str().unwrap().contains("assert_ne!"), "{o:#}");
}

#[test]
fn should_panic_without_a_panic_says_why_there_is_no_oracle() {
    let o = oracle(panic_report(), "first_of_nothing_panics");
    assert!(o["kind"].is_null(), "{o:#}");
    assert_eq!(o["confirmed"], false);
    assert!(o["why"].as_str().unwrap().contains("should_panic"), "{o:#}");
}

#[test]
fn calls_past_a_failed_assertion_are_executions_too() {
    // A plain crate whose one test fails at its first assert: a rerun that goes on past
    // failed assertions gives the four calls after it, three accepted and one rejected, and
    // the spectrum counts them (two failing calls run the faulty line, no passing one).
    let report = debug("plain-asserts");
    let o = oracle(&report, "sums");
    assert_eq!(o["call"], 0, "{o:#}");
    let later: Vec<(String, bool)> = o["later_calls"]
        .as_array()
        .unwrap_or_else(|| panic!("later_calls[]: {o:#}"))
        .iter()
        .map(|c| {
            (
                c["shown"].as_str().unwrap().to_string(),
                c["accepted"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        later,
        [
            ("capped_sum([1, 2])".to_string(), true),
            ("capped_sum([])".to_string(), true),
            ("capped_sum([20, 1])".to_string(), false),
            ("capped_sum([4, 5])".to_string(), true),
        ]
    );
    let faulty = report["suspects"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["line"] == 6)
        .unwrap_or_else(|| panic!("no suspect on line 6: {report:#}"));
    let evidence = faulty["evidence"].to_string();
    assert!(
        evidence.contains("run by 2 of 2 failing and 0 passing calls"),
        "{evidence}"
    );
}
