//! The solver. The z3 crate is linked against the system's libz3 (Debian's libz3-dev),
//! which the symbolic techniques need: check it loads and solves, so a broken install fails
//! here first. Then the bound of its worker processes (`--solver-memory`): past it, the
//! techniques that asked degrade with a note, and the run finishes as usual.

use z3::ast::Int;
use z3::{SatResult, Solver};

use crate::common;

#[test]
fn system_libz3_solves_a_linear_constraint() {
    let solver = Solver::new();
    let x = Int::new_const("x");
    let y = Int::new_const("y");
    solver.assert((&x + &y).eq(Int::from_i64(10)));
    solver.assert((&x - &y).eq(Int::from_i64(4)));
    assert_eq!(solver.check(), SatResult::Sat);
    let model = solver.get_model().unwrap();
    assert_eq!(model.eval(&x, true).and_then(|v| v.as_i64()), Some(7));
    assert_eq!(model.eval(&y, true).and_then(|v| v.as_i64()), Some(3));
}

#[test]
fn system_libz3_proves_unsatisfiability() {
    let solver = Solver::new();
    let x = Int::new_const("x");
    solver.assert(x.gt(Int::from_i64(5)));
    solver.assert(x.lt(Int::from_i64(3)));
    assert_eq!(solver.check(), SatResult::Unsat);
}

/// Diagnosis and path generation both run on `pathgen-grade` (one failing test, its call
/// inside the modelled subset: tests/it/pathgen.rs shows what they find there). Under a
/// bound of 1 MiB beyond the tool's own memory, neither's worker gets through z3's start:
/// each says so for the test, contributes nothing, and the other techniques still rank.
#[test]
fn past_the_solver_memory_bound_diagnosis_and_path_generation_degrade_with_a_note() {
    let dir = common::fixture("pathgen-grade");
    let output = common::autodebug(
        dir.path(),
        &[
            "--timeout",
            "20",
            "--jobs",
            "2",
            "--no-fix",
            "--solver-memory",
            "1",
        ],
    );
    // Exit 5: tests failed, and were diagnosed by the other techniques.
    assert_eq!(
        output.status.code(),
        Some(5),
        "{}",
        common::describe(&output)
    );
    let report = common::report(dir.path());
    let test = "fixture_pathgen_grade::tests::eighty_is_a_b";
    let bound = "the solver went past its memory bound (1 MiB)";
    let notes: Vec<&str> = report["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    for note in [
        format!("diagnosis: {test} not diagnosed: {bound}"),
        format!("pathgen: {test} not searched: {bound}"),
    ] {
        assert!(
            notes.iter().any(|n| n.starts_with(&note)),
            "no note `{note}…` in {notes:#?}"
        );
    }

    let diagnosis = &report["localization"]["diagnosis"];
    let tests = diagnosis["tests"].as_array().unwrap();
    assert_eq!(tests.len(), 1, "{diagnosis:#}");
    assert_eq!(tests[0]["test"], test);
    assert!(
        tests[0]["skipped"].as_str().unwrap().starts_with(bound),
        "{diagnosis:#}"
    );
    assert_eq!(tests[0]["diagnoses"], serde_json::json!([]));
    assert_eq!(diagnosis["diagnoses"], serde_json::json!([]));
    assert_eq!(diagnosis["complete"], false);
    let pathgen = &report["localization"]["pathgen"];
    let searched = &pathgen["tests"][0];
    assert!(
        searched["skipped"].as_str().unwrap().starts_with(bound),
        "{pathgen:#}"
    );
    assert!(searched.get("found").is_none() && searched.get("search").is_none());

    // The workers ran, and their peaks are reported (each at least the tool's memory as
    // it forked), the run's the largest.
    let peak = |v: &serde_json::Value| v["solver_peak_mb"].as_u64();
    let (diagnosis_peak, pathgen_peak) = (peak(diagnosis), peak(pathgen));
    assert!(diagnosis_peak.is_some_and(|mb| mb > 1), "{diagnosis:#}");
    assert!(pathgen_peak.is_some_and(|mb| mb > 1), "{pathgen:#}");
    assert_eq!(
        peak(&report["timing"]),
        diagnosis_peak.max(pathgen_peak),
        "{:#}",
        report["timing"]
    );

    // Degraded, not broken: the suspects come from the other techniques, and the fault
    // still leads them.
    let top = &report["suspects"][0];
    assert_eq!(top["code"], "s > 80", "{report:#}");
    for suspect in report["suspects"].as_array().unwrap() {
        for evidence in suspect["techniques"].as_array().unwrap() {
            let technique = evidence["technique"].as_str().unwrap();
            assert!(
                technique != "diagnosis" && technique != "pathgen",
                "{suspect:#}"
            );
        }
    }
}
