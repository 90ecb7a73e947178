//! End-to-end: the real `cargo autodebug` on every example crate (copied to a temp dir).
//! Each example has one known fault (`fault.json`); the tool must report exactly the
//! example's failing tests and write traces whose sites name the right file, line and
//! source text — including the faulty line.

use crate::common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::Value;

/// What a check of an example found wrong.
type Failed = Box<dyn std::error::Error>;

/// One test per example (`examples::NAME`); [`every_example_has_a_test`] keeps the list
/// whole.
macro_rules! examples {
    ($($test:ident => $dir:literal),* $(,)?) => {
        const EXAMPLES: &[&str] = &[$($dir),*];
        $(
            #[test]
            fn $test() {
                if let Err(failure) = check_example(&common::example_path($dir)) {
                    panic!("example {}: {failure}", $dir);
                }
            }
        )*
    };
}

examples! {
    array_copy => "array-copy",
    binary_search => "binary-search",
    fsm => "fsm",
    max_array => "max-array",
    max2 => "max2",
    quicksort => "quicksort",
    sum => "sum",
}

/// Every example crate with a `fault.json` is checked (at least the seven of the papers).
#[test]
fn every_example_has_a_test() {
    let examples = common::repo_root().join("examples");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&examples)
        .expect("examples/ exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("fault.json").exists())
        .collect();
    dirs.sort();
    assert!(
        dirs.len() >= 7,
        "expected at least 7 examples with a fault.json, found {}",
        dirs.len()
    );
    let names: Vec<String> = dirs
        .iter()
        .map(|dir| dir.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, EXAMPLES, "an example without its test in examples!");
}

fn check_example(example: &Path) -> Result<(), Failed> {
    let fault: Value = serde_json::from_str(&std::fs::read_to_string(example.join("fault.json"))?)?;
    let copy = common::copy_crate(example);
    let output = common::autodebug(copy.path(), &["--timeout", "60", "--jobs", "2"]);
    let run = common::describe(&output);
    if output.status.code() != Some(5) {
        return Err(format!("expected exit code 5 (tests failed)\n{run}").into());
    }
    let report = common::report(copy.path());

    let expected: BTreeSet<String> = fault["failing_tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap().to_string())
        .collect();
    let reported: BTreeSet<String> = report["failing_tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    if expected != reported {
        return Err(
            format!("failing tests: expected {expected:?}, reported {reported:?}\n{run}").into(),
        );
    }

    check_spectrum(copy.path(), &report, &reported)?;

    // Spectrum ranking is always available: the faulty line is among the suspects.
    let suspects = report["suspects"]
        .as_array()
        .ok_or("report without suspects")?;
    if !suspects
        .iter()
        .all(|s| s["evidence"].as_array().is_some_and(|e| !e.is_empty()))
    {
        return Err("a suspect without evidence".into());
    }
    let fault_line_ranked = suspects.iter().any(|s| {
        s["file"] == fault["file"]
            && s["line"].as_u64() <= fault["line"].as_u64()
            && s["end_line"].as_u64() >= fault["line"].as_u64()
    });
    if !fault_line_ranked {
        return Err(format!("the fault's line is not among the suspects\n{run}").into());
    }

    check_diagnosis(&report, &fault, &run)?;
    check_no_overfitting(&report)?;

    let mut branch_or_component = false;
    let fault_file = fault["file"].as_str().unwrap();
    let fault_line = fault["line"].as_u64().unwrap();
    for failing in report["failing_tests"].as_array().unwrap() {
        if failing["deterministic"] != Value::Bool(true) {
            return Err(format!("{} is not deterministic\n{run}", failing["name"]).into());
        }
        let trace_path = failing["trace"]
            .as_str()
            .ok_or("failing test without a trace")?;
        let trace: Value = serde_json::from_str(&std::fs::read_to_string(
            copy.path().join("autodebug.out").join(trace_path),
        )?)?;
        check_trace(copy.path(), &trace)?;
        branch_or_component |= trace["events"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["r"] == "branch" || e["r"] == "component");
        // The faulty statement runs in the failing test: some branch or component event
        // must name a site on the fault's line.
        let on_fault_line: BTreeSet<u64> = trace["sites"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| {
                s["path"] == fault_file
                    && s["line"].as_u64() <= Some(fault_line)
                    && s["end_line"].as_u64() >= Some(fault_line)
            })
            .map(|s| s["id"].as_u64().unwrap())
            .collect();
        // (Or the faulty expression itself panicked, before its hook could report it.)
        let hit = trace["events"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| match e["r"].as_str() {
                Some("branch" | "component") => {
                    on_fault_line.contains(&e["site"].as_u64().unwrap())
                }
                Some("panic") => e["file"] == fault_file && e["line"].as_u64() == Some(fault_line),
                _ => false,
            });
        if !hit {
            return Err(format!("no branch/component event on the fault's line {fault_file}:{fault_line} in {trace_path}").into());
        }
    }
    // Every example has passing tests calling the faulty function: their traces are kept too.
    let passing_traces = report["traces"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["role"] == "passing")
        .count();
    if passing_traces == 0 {
        return Err(format!("no trace of a passing test that reaches the same code\n{run}").into());
    }
    if !branch_or_component {
        return Err(format!("no failing trace has a branch or component event\n{run}").into());
    }
    check_page(copy.path(), &report)
}

/// `report.html` is there, under 1 MB, refers to nothing outside itself, and has a source
/// line for the top suspect.
fn check_page(root: &Path, report: &Value) -> Result<(), Failed> {
    let page = std::fs::read_to_string(root.join("autodebug.out/report.html"))?;
    if page.len() >= 1 << 20 {
        return Err(format!("report.html is {} bytes (1 MB at most)", page.len()).into());
    }
    for reference in [
        "http://",
        "https://",
        "src=",
        "href=\"//",
        "@import",
        "url(",
    ] {
        if page.contains(reference) {
            return Err(format!("report.html refers outside itself: `{reference}`").into());
        }
    }
    let top = &report["suspects"][0];
    let line = format!(
        "data-file=\"{}\" data-line=\"{}\" data-rank=\"1\"",
        top["file"].as_str().unwrap_or_default(),
        top["line"]
    );
    if !page.contains(&line) {
        return Err(format!("report.html has no line marked `{line}`").into());
    }
    eprintln!("report.html: {} bytes", page.len());
    Ok(())
}

/// No validated fix passes without fixing: none makes a step of one (`i += 1`) another
/// constant, none compares for equality with an integer (beyond 2) that a failing call takes
/// as an argument and the code did not have, none returns the failing call's expected value
/// in place of what the code computed.
fn check_no_overfitting(report: &Value) -> Result<(), Failed> {
    let ints = |v: &Value| v["int"]["v"].as_i64();
    let mut inputs = BTreeSet::new();
    let mut outputs = BTreeSet::new();
    for oracle in report["oracles"].as_array().into_iter().flatten() {
        for arg in oracle["args"].as_array().into_iter().flatten() {
            inputs.extend(ints(&arg["value"]));
        }
        outputs.extend(ints(&oracle["expected"]));
    }
    let numbers = |text: &str| -> BTreeSet<i64> {
        text.split(|c: char| !c.is_ascii_digit())
            .filter_map(|n| n.parse().ok())
            .collect()
    };
    let fixes = report["fixes"].as_array().into_iter().flatten();
    for fix in fixes.filter(|f| f["validated"] == true) {
        for edit in fix["edits"].as_array().into_iter().flatten() {
            let (original, replacement) = (
                edit["original"].as_str().unwrap_or_default().trim(),
                edit["replacement"].as_str().unwrap_or_default().trim(),
            );
            let stride = edit["kind"] == "compound"
                && original == "1"
                && replacement != "1"
                && replacement.parse::<i64>().is_ok();
            let before = numbers(original);
            let compared = replacement.contains("==") || replacement.contains("!=");
            let special_case = compared
                && numbers(replacement)
                    .iter()
                    .any(|n| *n > 2 && !before.contains(n) && inputs.contains(n));
            let answer = replacement.parse::<i64>().is_ok_and(|n| {
                n.abs() > 2 && original.parse::<i64>().is_err() && outputs.contains(&n)
            });
            if stride || special_case || answer {
                return Err(format!("a validated fix overfits the tests: {edit}").into());
            }
        }
    }
    Ok(())
}

/// Every site of the trace names a real file, and the source at its line and column is the
/// site's code; events refer to declared sites.
fn check_trace(root: &Path, trace: &Value) -> Result<(), Failed> {
    let sites = trace["sites"].as_array().ok_or("trace without sites")?;
    if sites.is_empty() {
        return Err("trace has no sites".into());
    }
    let mut ids = BTreeSet::new();
    for site in sites {
        ids.insert(site["id"].as_u64().unwrap());
        let path = site["path"].as_str().unwrap();
        let source = std::fs::read_to_string(root.join(path))
            .map_err(|e| format!("site file {path}: {e}"))?;
        let line = site["line"].as_u64().unwrap() as usize;
        let column = site["column"].as_u64().unwrap() as usize;
        let text: String = source
            .lines()
            .nth(line - 1)
            .ok_or(format!("{path} has no line {line}"))?
            .chars()
            .skip(column - 1)
            .collect();
        let code = site["code"].as_str().unwrap();
        let first_line = code.lines().next().unwrap_or_default();
        if !text.starts_with(first_line) {
            return Err(format!(
                "site {path}:{line}:{column} says `{first_line}` but the source there is `{text}`"
            )
            .into());
        }
    }
    let events = trace["events"].as_array().unwrap();
    if !events.iter().any(|e| e["r"] == "enter") {
        return Err("trace has no call of an instrumented function".into());
    }
    for event in events {
        if let Some(site) = event["site"].as_u64()
            && !ids.contains(&site)
        {
            return Err(format!("event names undeclared site {site}: {event}").into());
        }
    }
    Ok(())
}

/// `coverage.json` has every test of the baseline with its outcome, and the failing tests
/// reached some site.
fn check_spectrum(root: &Path, report: &Value, failing: &BTreeSet<String>) -> Result<(), Failed> {
    let spectrum: Value = serde_json::from_str(&std::fs::read_to_string(
        root.join("autodebug.out/coverage.json"),
    )?)?;
    let tests = spectrum["tests"]
        .as_array()
        .ok_or("coverage.json without tests")?;
    if Some(tests.len() as u64) != report["tests"]["total"].as_u64() {
        return Err(format!(
            "coverage.json has {} tests, the report {}",
            tests.len(),
            report["tests"]["total"]
        )
        .into());
    }
    let site_count = spectrum["sites"].as_array().unwrap().len() as u64;
    for test in tests {
        let name = test["test"]["name"].as_str().unwrap();
        let sites = test["sites"].as_array().unwrap();
        if failing.contains(name) != (test["outcome"] != "passed") {
            return Err(
                format!("coverage.json outcome of {name} disagrees with the report").into(),
            );
        }
        if failing.contains(name) && sites.is_empty() {
            return Err(format!("failing test {name} reached no site").into());
        }
        if sites
            .iter()
            .any(|id| id.as_u64().is_none_or(|id| id == 0 || id > site_count))
        {
            return Err(format!("{name} names a site outside the table").into());
        }
    }
    Ok(())
}

/// Model-based diagnosis: wherever a failing test's call was inside the modelled subset,
/// the true fault is a component of some minimal diagnosis, and every component named has
/// a statement.
fn check_diagnosis(report: &Value, fault: &Value, run: &str) -> Result<(), Failed> {
    let account = &report["localization"]["diagnosis"];
    let tests = account["tests"]
        .as_array()
        .ok_or(format!("no diagnosis account\n{run}"))?;
    if tests.iter().all(|t| t["skipped"].is_string()) {
        return Ok(());
    }
    let diagnoses = account["diagnoses"].as_array().unwrap();
    let line = fault["line"].as_u64();
    let found = diagnoses.iter().any(|d| {
        d["components"].as_array().unwrap().iter().any(|c| {
            c["file"] == fault["file"]
                && c["line"].as_u64() <= line
                && c["end_line"].as_u64() >= line
                && c["statement"].as_str().is_some_and(|s| !s.is_empty())
        })
    });
    if !found {
        return Err(format!(
            "the fault at line {} is in no minimal diagnosis: {}\n{run}",
            fault["line"],
            serde_json::to_string_pretty(account).unwrap()
        )
        .into());
    }
    Ok(())
}
