//! End-to-end: automated path generation on a fixture with a planted boundary fault
//! (`tests/fixtures/pathgen-grade`): the closest feasible successful run is found by a real
//! rerun with the failing call's arguments replaced, and the branch it evaluates differently
//! is the faulty one, alone and in the merged ranking.

use crate::common;

use serde_json::Value;

fn debug(extra: &[&str]) -> Value {
    let dir = common::fixture("pathgen-grade");
    let mut args = vec!["--timeout", "20", "--jobs", "2", "--no-fix"];
    args.extend_from_slice(extra);
    let output = common::autodebug(dir.path(), &args);
    assert!(
        dir.path().join("autodebug.out/report.json").exists(),
        "{}",
        common::describe(&output)
    );
    common::report(dir.path())
}

#[test]
fn the_closest_successful_run_names_the_faulty_branch() {
    let report = debug(&["--techniques", "pathgen"]);
    let top = &report["suspects"][0];
    assert_eq!(top["code"], "s > 80", "{report:#}");
    assert_eq!(top["line"], 19);
    let evidence = top["evidence"][0].as_str().unwrap();
    assert!(
        evidence.starts_with("pathgen: the closest successful run (grade(score = 81, bonus = false), 1 branch instance away)"),
        "{evidence}"
    );
    let tests = report["localization"]["pathgen"]["tests"]
        .as_array()
        .unwrap();
    assert_eq!(tests.len(), 1, "{report:#}");
    let test = &tests[0];
    assert_eq!(test["call"], "grade(80, false)");
    assert_eq!(
        test["success"],
        "return 'B' without panicking or failing a contract"
    );
    assert_eq!(test["found"]["inputs"]["score"], "81");
    assert_eq!(test["found"]["inputs"]["bonus"], "false");
    let distance = test["found"]["distance"].as_array().unwrap();
    assert_eq!(distance.len(), 1);
    assert_eq!(distance[0]["code"], "s > 80");
    assert_eq!(distance[0]["failing"], false);
    let search = &test["search"];
    // The model predicted which feasible runs fail: the successful one was the only rerun.
    assert_eq!(search["reruns"], 1, "{search:#}");
    assert_eq!(search["diverged"], 0);
    assert!(search["infeasible"].as_u64().unwrap() >= 1);
    assert!(search["predicted_failing"].as_u64().unwrap() >= 1);
    let tried = search["tried"].as_array().unwrap();
    let last = tried.last().unwrap();
    assert_eq!(last["rerun"], "successful: returned 'B'", "{last:#}");
}

#[test]
fn path_generation_is_evidence_in_the_merged_ranking() {
    let report = debug(&[]);
    let weights = report["localization"]["weights"].as_object().unwrap();
    assert!(weights.contains_key("pathgen"), "{weights:?}");
    let top = &report["suspects"][0];
    assert_eq!(top["code"], "s > 80", "{report:#}");
    let techniques: Vec<&str> = top["techniques"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["technique"].as_str().unwrap())
        .collect();
    assert!(techniques.contains(&"pathgen"), "{techniques:?}");
    // Diagnosis and path generation ran their solvers in worker processes: each reports
    // its workers' peak, and the run the largest of all.
    let peak = |v: &Value| v["solver_peak_mb"].as_u64();
    let localization = &report["localization"];
    let (diagnosis, pathgen) = (
        peak(&localization["diagnosis"]),
        peak(&localization["pathgen"]),
    );
    assert!(diagnosis.is_some() && pathgen.is_some(), "{localization:#}");
    assert_eq!(peak(&report["timing"]), diagnosis.max(pathgen));
}
