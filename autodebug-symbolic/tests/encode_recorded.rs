//! The encoding on traces the tool really recorded (`cargo autodebug` on the example crates,
//! stored in `encode_fixtures/<example>/` with the oracle stage's `oracles` from
//! `report.json`): every top-level call of a failing test's oracle, the calls it accepted
//! before, and every call of the passing tests must agree with the model event by event;
//! then the true fault (`examples/<example>/fault.json`) must be in a minimal diagnosis.

use std::collections::BTreeMap;
use std::path::Path;

use autodebug_runtime::protocol::{Record, SiteInfo, Value};
use autodebug_symbolic::conflicts::{Role, Z3Oracle};
use autodebug_symbolic::diagnose::{Bounds, diagnose};
use autodebug_symbolic::encode::{Call, CallTrace, Concrete, Encoder, Options, Spec};
use autodebug_symbolic::ir::Program;
use autodebug_symbolic::wp;
use serde::Deserialize;

/// A stored trace, as `autodebug.out/traces/*.json` has it.
#[derive(Deserialize)]
struct Stored {
    test: StoredTest,
    role: String,
    outcome: StoredOutcome,
    sites: Vec<StoredSite>,
    events: Vec<Record>,
}

#[derive(Deserialize)]
struct StoredTest {
    name: String,
}

#[derive(Deserialize)]
struct StoredOutcome {
    #[serde(default)]
    message: Option<String>,
}

#[derive(Deserialize)]
struct StoredSite {
    id: u32,
    #[serde(flatten)]
    site: SiteInfo,
}

/// One entry of `report.json`'s `oracles`.
#[derive(Deserialize)]
struct OracleEntry {
    test: String,
    call: Option<usize>,
    kind: Option<String>,
    #[serde(default)]
    expected: Option<Value>,
    #[serde(default)]
    accepted_calls: Vec<Accepted>,
}

#[derive(Deserialize)]
struct Accepted {
    call: usize,
}

#[derive(Deserialize)]
struct Fault {
    line: u32,
    column: u32,
}

/// The top-level calls of a trace: `Enter` to `Exit` (inclusive) at depth 0.
fn top_level_calls(events: &[Record]) -> Vec<std::ops::Range<usize>> {
    let mut calls = Vec::new();
    let mut depth = 0usize;
    let mut start = 0usize;
    for (i, e) in events.iter().enumerate() {
        match e {
            Record::Enter { .. } => {
                if depth == 0 {
                    start = i;
                }
                depth += 1;
            }
            Record::Exit { .. } if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    calls.push(start..i + 1);
                }
            }
            _ => {}
        }
    }
    calls
}

/// The right side of a failed `assert_eq!` message (the examples' tests write
/// `assert_eq!(call, expected)`).
fn expected_side(message: &str) -> Option<&str> {
    let at = message.rfind("\n right: ")?;
    Some(message[at + "\n right: ".len()..].trim())
}

struct Outcome {
    encoded: usize,
    events_matched: usize,
    diagnoses: Vec<Vec<String>>,
    fault_in: Option<usize>,
    /// Candidates the solver could not decide in its time limit.
    undecided: usize,
}

/// Which traces of an example, and how far to search.
struct Setup {
    /// Only the traces whose file name contains this.
    only: Option<&'static str>,
    max_cardinality: usize,
}

const ALL: Setup = Setup {
    only: None,
    max_cardinality: 2,
};

fn run_example(example: &str, setup: Setup) -> Outcome {
    let fixtures = Path::new("tests/encode_fixtures").join(example);
    let source = std::fs::read_to_string(format!("../examples/{example}/src/lib.rs")).unwrap();
    let fault: Fault = serde_json::from_str(
        &std::fs::read_to_string(format!("../examples/{example}/fault.json")).unwrap(),
    )
    .unwrap();
    let program = Program::from_source(&source, "src/lib.rs").unwrap();
    let oracles: Vec<OracleEntry> =
        serde_json::from_str(&std::fs::read_to_string(fixtures.join("oracles.json")).unwrap())
            .unwrap();
    let mut traces: Vec<(String, Stored)> = std::fs::read_dir(&fixtures)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().is_some_and(|n| n != "oracles.json"))
        .map(|p| {
            let stored: Stored =
                serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
            (p.display().to_string(), stored)
        })
        .collect();
    traces.sort_by(|a, b| a.0.cmp(&b.0));
    if let Some(only) = setup.only {
        traces.retain(|(p, _)| p.contains(only));
    }

    // A time limit far above what these checks take on an idle machine: the test is about
    // the model, and on a loaded machine (CI, tests in parallel) 5 s checks time out.
    let mut oracle = Z3Oracle::new(autodebug_symbolic::conflicts::Options {
        timeout_ms: 120_000,
        ..Default::default()
    });
    let mut encoder = Encoder::new(&program, Options::default());
    let mut encoded = 0;
    let mut events_matched = 0;
    let mut failing_encodings = Vec::new();
    for (_, stored) in &traces {
        let sites: BTreeMap<u32, SiteInfo> = stored
            .sites
            .iter()
            .map(|s| (s.id, s.site.clone()))
            .collect();
        let calls = top_level_calls(&stored.events);
        let mut todo: Vec<(usize, Role, Spec)> = Vec::new();
        if stored.role == "failing" {
            let entry = oracles
                .iter()
                .find(|o| o.test.ends_with(&stored.test.name))
                .expect("every failing test has an oracle");
            let Some(at) = entry.call else { continue };
            let function = sites
                .values()
                .find(|s| {
                    matches!(stored.events[calls[at].start], Record::Enter { site, .. }
                        if sites.get(&site).is_some_and(|x| x.function == s.function))
                })
                .map(|s| s.function.clone())
                .unwrap_or_default();
            let ret_ty = program.function(&function).map(|f| f.ret_ty.clone());
            let expected = match (entry.kind.as_deref(), &entry.expected) {
                (Some("returns"), Some(v)) => Some(Concrete::from_value(v)),
                (Some("returns"), None) => stored
                    .outcome
                    .message
                    .as_deref()
                    .and_then(expected_side)
                    .zip(ret_ty.as_ref())
                    .and_then(|(text, ty)| Concrete::from_debug(text, ty, &program)),
                _ => None,
            };
            todo.push((at, Role::Failing, Spec::failing(expected)));
            for accepted in &entry.accepted_calls {
                todo.push((accepted.call, Role::Passing, Spec::accepted()));
            }
        } else {
            for at in 0..calls.len() {
                todo.push((at, Role::Passing, Spec::accepted()));
            }
        }
        for (at, role, spec) in todo {
            let range = calls[at].clone();
            let Record::Enter { site, .. } = &stored.events[range.start] else {
                unreachable!()
            };
            let function = sites[site].function.clone();
            let call = Call {
                test: format!("{} call {at}", stored.test.name),
                role,
                function,
                args: Vec::new(),
                trace: Some(CallTrace {
                    sites: &sites,
                    events: &stored.events[range],
                }),
                spec,
            };
            let encoding = encoder.encode(&mut oracle, &call);
            println!(
                "{example} {}: added {}, {} events matched, {} adopted, violated {:?}",
                encoding.test,
                encoding.added,
                encoding.check.matched,
                encoding.check.adopted,
                encoding.violated()
            );
            for d in &encoding.degradations {
                println!("  degraded: {d}");
            }
            assert!(
                encoding.added,
                "{example} {}: {:?}",
                encoding.test, encoding.degradations
            );
            encoded += 1;
            events_matched += encoding.check.matched;
            if role == Role::Failing {
                failing_encodings.push(encoding);
            }
        }
    }
    let result = diagnose(
        &mut oracle,
        &Bounds {
            max_cardinality: setup.max_cardinality,
            ..Bounds::default()
        },
    );
    for u in &result.undecided {
        println!("undecided: {:?} {}", oracle.names(&u.abnormal), u.reason);
    }
    println!("checks {} nodes {}", result.checks, result.nodes);
    let undecided = result.undecided.len();
    let fault_id = encoder
        .components()
        .all()
        .iter()
        .find(|c| c.site.line == fault.line && c.site.column == fault.column)
        .map(|c| c.id)
        .expect("the fault's site is a component");
    let diagnoses: Vec<Vec<String>> = result
        .minimal
        .iter()
        .map(|d| oracle.names(d).into_iter().map(str::to_string).collect())
        .collect();
    println!(
        "{example}: {} diagnoses, {} checks",
        diagnoses.len(),
        result.checks
    );
    for d in &diagnoses {
        println!("  {{{}}}", d.join(", "));
    }
    let fault_in = result
        .minimal
        .iter()
        .filter(|d| d.contains(&fault_id))
        .map(|d| d.len())
        .min();
    for encoding in &failing_encodings {
        if let Some(req) = wp::requirement(encoding, fault_id, &wp::Options::default()) {
            println!("  wp at the fault ({}): {}", encoding.test, req.sentence());
        }
        if let Some(point) = wp::first_disagreement(encoding, &wp::Options::default()) {
            println!(
                "  first disagreement ({}): {}",
                encoding.test,
                point.sentence()
            );
        }
    }
    Outcome {
        encoded,
        events_matched,
        diagnoses,
        fault_in,
        undecided,
    }
}

#[test]
fn max2_recorded_runs_agree_with_the_model_and_the_fault_is_a_single_diagnosis() {
    let outcome = run_example("max2", ALL);
    assert!(outcome.encoded >= 5 && outcome.events_matched > 20);
    assert_eq!(outcome.fault_in, Some(1), "{:?}", outcome.diagnoses);
}

#[test]
fn fsm_recorded_runs_agree_with_the_model_and_the_fault_is_a_single_diagnosis() {
    let outcome = run_example("fsm", ALL);
    assert!(outcome.encoded >= 8 && outcome.events_matched > 50);
    assert_eq!(outcome.fault_in, Some(1), "{:?}", outcome.diagnoses);
    // The returned tuple explains every failure too: the passing tests' results are tuples,
    // which the recorder keeps opaque, so nothing constrains what it may be.
    let singles: Vec<&Vec<String>> = outcome.diagnoses.iter().filter(|d| d.len() == 1).collect();
    assert_eq!(
        singles,
        vec![
            &vec!["line 66: out2 = in3 || v".to_string()],
            &vec!["line 72: return (out1, out2)".to_string()]
        ]
    );
}

#[test]
fn max_array_recorded_runs_agree_with_the_model_and_the_fault_is_a_single_diagnosis() {
    let outcome = run_example("max-array", ALL);
    assert!(outcome.encoded >= 6);
    assert_eq!(outcome.fault_in, Some(1), "{:?}", outcome.diagnoses);
}

#[test]
fn sum_recorded_runs_agree_with_the_model_and_the_fault_is_a_single_diagnosis() {
    let outcome = run_example("sum", ALL);
    assert!(outcome.encoded >= 6);
    assert_eq!(outcome.fault_in, Some(1), "{:?}", outcome.diagnoses);
}

#[test]
fn array_copy_recorded_runs_agree_with_the_model_and_the_fault_is_the_only_diagnosis() {
    let outcome = run_example("array-copy", ALL);
    assert!(outcome.encoded >= 7);
    assert_eq!(
        outcome.diagnoses,
        vec![vec!["line 14: loop bound src.len() - 1".to_string()]]
    );
}

#[test]
fn binary_search_recorded_runs_agree_with_the_model_and_the_fault_is_a_single_diagnosis() {
    let all = run_example(
        "binary-search",
        Setup {
            only: Some("finds"),
            max_cardinality: 0,
        },
    );
    assert!(all.encoded >= 9);
    // Jointly the runs take z3 past its time limit on several candidates (`let lo = 0`
    // makes every loop of every run symbolic): each failing test is diagnosed on its own.
    for failing in ["finds_every_element", "finds_elements_left"] {
        let outcome = run_example(
            "binary-search",
            Setup {
                only: Some(failing),
                max_cardinality: 1,
            },
        );
        assert_eq!(
            outcome.fault_in,
            Some(1),
            "{failing}: {:?}",
            outcome.diagnoses
        );
    }
}

#[test]
fn quicksort_recorded_runs_agree_with_the_model_and_each_failing_run_has_the_fault_as_a_diagnosis()
{
    // Every run agrees with the model; the joint check of all of them is beyond z3's time
    // limit, so each failing test is diagnosed with the passing runs of `partition`.
    for failing in [
        "sorts_two",
        "sorts_a_shuffled",
        "sorts_with_dup",
        "partition_splits",
    ] {
        let outcome = run_example(
            "quicksort",
            Setup {
                only: Some(failing),
                max_cardinality: 1,
            },
        );
        assert_eq!(
            outcome.fault_in,
            Some(1),
            "{failing}: {:?}",
            outcome.diagnoses
        );
    }
    let all = run_example(
        "quicksort",
        Setup {
            only: Some("partition"),
            max_cardinality: 1,
        },
    );
    assert!(all.encoded >= 3);
    assert_eq!(all.fault_in, Some(1), "{:?}", all.diagnoses);
    assert_eq!(all.undecided, 0);
}
