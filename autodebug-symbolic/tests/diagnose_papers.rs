//! The papers' small examples, hand-encoded into z3 through the conflict oracle, diagnosed by
//! the HS-DAG: Könighofer & Bloem's `max(x, y)`, Wotawa's three-line program and his
//! finite-state machine `fsm`, and several tests at once (the joint formulation, and a
//! passing test pruning a diagnosis). The lowering will produce these formulas from Rust;
//! here they are written by hand so that the engine is checked on its own.
//!
//! Every result is also checked against enumeration: each diagnosis is consistent, none of
//! its proper subsets is, and no subset within the bound was missed.

use std::collections::BTreeSet;

use autodebug_symbolic::conflicts::{ComponentId, Options, Role, Z3Oracle};
use autodebug_symbolic::diagnose::{Bounds, ConflictOracle, Cut, Diagnoses, Verdict, diagnose};
use z3::ast::{BV, Bool, Int};

/// Every minimal diagnosis of at most `max` components, by asking the oracle about every
/// candidate in increasing size.
fn enumerate(oracle: &mut Z3Oracle, max: usize) -> Vec<BTreeSet<ComponentId>> {
    let all: Vec<ComponentId> = oracle.components().collect();
    let mut found: Vec<BTreeSet<ComponentId>> = Vec::new();
    let mut layer: Vec<BTreeSet<ComponentId>> = vec![BTreeSet::new()];
    for size in 0..=max {
        let mut next = Vec::new();
        for candidate in layer {
            if found.iter().any(|d| d.is_subset(&candidate)) {
                continue;
            }
            if oracle.check(&candidate) == Verdict::Consistent {
                found.push(candidate);
                continue;
            }
            if size < max {
                let last = candidate.iter().next_back().map_or(0, |c| c.index() + 1);
                for &c in &all[last..] {
                    let mut bigger = candidate.clone();
                    bigger.insert(c);
                    next.push(bigger);
                }
            }
        }
        layer = next;
    }
    found.sort_by(|a, b| a.len().cmp(&b.len()).then_with(|| a.cmp(b)));
    found
}

/// Diagnoses up to `max` components (other bounds default), checked against enumeration,
/// printed.
fn diagnose_and_check(title: &str, oracle: &mut Z3Oracle, max: usize) -> Diagnoses<ComponentId> {
    let bounds = Bounds {
        max_cardinality: max,
        ..Bounds::default()
    };
    let result = diagnose(oracle, &bounds);
    assert!(
        result.undecided.is_empty(),
        "{title}: {:?}",
        result.undecided
    );
    assert!(
        matches!(result.cut, None | Some(Cut::Cardinality)),
        "{title}"
    );
    assert_eq!(result.minimal, enumerate(oracle, max), "{title}");
    println!("{title}: {} checks, {} nodes", result.checks, result.nodes);
    for d in &result.minimal {
        println!("  {{{}}}", oracle.names(d).join(", "));
    }
    if let Some(cut) = result.cut {
        println!("  ({cut})");
    }
    result
}

/// The diagnoses by component names, for assertions that read like the papers.
fn named<'a>(oracle: &'a Z3Oracle, result: &Diagnoses<ComponentId>) -> Vec<Vec<&'a str>> {
    result.minimal.iter().map(|d| oracle.names(d)).collect()
}

/// Könighofer & Bloem, example 2 (C ints as 32-bit bit-vectors):
///
/// ```c
/// 1  int max(int x, int y) {
/// 2      int r = x;          // c1
/// 3      if (y > x)          // c3, when the condition is a component
/// 4          r = x;          // c2: should read r = y
/// 5      assert(r >= x && r >= y);
/// ```
fn max_example(condition_is_component: bool) -> Z3Oracle {
    let mut oracle = Z3Oracle::default();
    let c1 = oracle.component("c1 (line 2: r = x)");
    let c2 = oracle.component("c2 (line 4: r = x)");
    let c3 = condition_is_component.then(|| oracle.component("c3 (line 3: y > x)"));
    let t = oracle.test("x = 1, y = 2", Role::Failing);
    let (x, y) = (t.bv("x", 32), t.bv("y", 32));
    t.assert(&x.eq(BV::from_i64(1, 32)));
    t.assert(&y.eq(BV::from_i64(2, 32)));
    let r1 = t.assign(c1, "r1", &x);
    let condition = y.bvsgt(&x);
    let condition = match c3 {
        Some(c3) => t.assign(c3, "cond3", &condition),
        None => condition,
    };
    let r2 = t.assign(c2, "r2", &x);
    let r = condition.ite(&r2, &r1);
    t.assert(&Bool::and(&[r.bvsge(&x), r.bvsge(&y)]));
    oracle
}

#[test]
fn max_only_the_second_assignment_is_a_diagnosis() {
    let mut oracle = max_example(false);
    let result = diagnose_and_check("max(x, y), components c1, c2", &mut oracle, 2);
    assert_eq!(named(&oracle, &result), vec![vec!["c2 (line 4: r = x)"]]);
    assert!(result.is_complete());

    // The witness says what c2 must compute instead: at least y = 2.
    let c2 = oracle.components().nth(1).unwrap();
    let model = oracle.witness(&BTreeSet::from([c2])).unwrap();
    let r2 = model.eval(&BV::new_const("t0!r2", 32), true).unwrap();
    assert!(r2.as_i64().unwrap() >= 2, "r2 = {r2}");
}

#[test]
fn max_with_the_condition_as_a_component_adds_the_pair_c1_c3() {
    let mut oracle = max_example(true);
    let result = diagnose_and_check("max(x, y), components c1, c2, c3", &mut oracle, 3);
    assert_eq!(
        named(&oracle, &result),
        vec![
            vec!["c2 (line 4: r = x)"],
            vec!["c1 (line 2: r = x)", "c3 (line 3: y > x)"],
        ]
    );
    assert!(result.is_complete());
}

/// Wotawa's introductory program, with the test of the paper: in1 = true, in2 = false,
/// in3 = false; expected out1 = true, out2 = false (the program computes out2 = true).
///
/// ```text
/// 1. v = !in2;
/// 2. out1 = in1 && v;
/// 3. out2 = in3 || v;
/// ```
#[test]
fn wotawa_three_lines_only_statement_3_is_a_single_diagnosis() {
    let mut oracle = Z3Oracle::default();
    let s1 = oracle.component("1: v = !in2");
    let s2 = oracle.component("2: out1 = in1 && v");
    let s3 = oracle.component("3: out2 = in3 || v");
    let t = oracle.test("in1, !in2, !in3", Role::Failing);
    let (in1, in2, in3) = (t.bool("in1"), t.bool("in2"), t.bool("in3"));
    t.assert(&in1);
    t.assert(&in2.not());
    t.assert(&in3.not());
    let v = t.assign(s1, "v", &in2.not());
    let out1 = t.assign(s2, "out1", &Bool::and(&[&in1, &v]));
    let out2 = t.assign(s3, "out2", &Bool::or(&[&in3, &v]));
    t.assert(&out1);
    t.assert(&out2.not());

    let result = diagnose_and_check("Wotawa, three lines", &mut oracle, 3);
    // Statement 1 or 2 alone cannot explain the test: out1 = true forces v = true, which
    // makes out2 true. Relations reason backwards, unlike a slice (which keeps 1 and 3).
    assert_eq!(
        result.of_cardinality(1).cloned().collect::<Vec<_>>(),
        vec![BTreeSet::from([s3])]
    );
    assert_eq!(result.minimal[1..], [BTreeSet::from([s1, s2])]);
    assert!(result.is_complete());
}

/// Wotawa's `fsm` (figure 1), as ported in `examples/fsm/src/lib.rs`, with the paper's unit
/// test: state = 2, on = false, off = true, in1 = true, in2 = false, in3 = false; expected
/// out1 = true, out2 = false. Statement 13 is the fault (`in3 && v` is meant).
///
/// Components are the Rust `step`'s right-hand sides and branch conditions, named by the
/// paper's line numbers (the two `let mut` initialisations have none); `state` is a `u8`.
/// With `transitions`, the paper's assertions `on → state = 2` and `off → state = 1` (the
/// port's `#[ensures]`) hold after the transition.
fn fsm(transitions: bool) -> (Z3Oracle, ComponentId) {
    fsm_with(Options::default(), transitions)
}

/// [`fsm`] in an oracle with `options`.
fn fsm_with(options: Options, transitions: bool) -> (Z3Oracle, ComponentId) {
    let mut oracle = Z3Oracle::new(options);
    let init1 = oracle.component("let mut out1 = false");
    let init2 = oracle.component("let mut out2 = false");
    let b1 = oracle.component("1: state == 1");
    let b2 = oracle.component("2: on");
    let s3 = oracle.component("3: state = 2");
    let b5 = oracle.component("5: state == 2");
    let b6 = oracle.component("6: off");
    let s7 = oracle.component("7: state = 1");
    let b10 = oracle.component("10: state == 1");
    let s11 = oracle.component("11: v = !in2");
    let s12 = oracle.component("12: out1 = in1 && v");
    let s13 = oracle.component("13: out2 = in3 || v");
    let b15 = oracle.component("15: state == 2");
    let s16 = oracle.component("16: out1 = false");
    let s17 = oracle.component("17: out2 = false");

    let t = oracle.test("paper_unit_test", Role::Failing);
    let u8 = |n: i64| BV::from_i64(n, 8);
    let state0 = t.bv("state0", 8);
    let [on, off, in1, in2, in3] = ["on", "off", "in1", "in2", "in3"].map(|n| t.bool(n));
    t.assert(&state0.eq(u8(2)));
    t.assert(&on.not());
    t.assert(&off);
    t.assert(&in1);
    t.assert(&in2.not());
    t.assert(&in3.not());

    // SSA as in the paper's figure 2: φ(x, y, c) is `c.ite(x, y)`.
    let out1_0 = t.assign(init1, "out1_0", &Bool::from_bool(false));
    let out2_0 = t.assign(init2, "out2_0", &Bool::from_bool(false));
    let var1 = t.assign(b1, "var1", &state0.eq(u8(1)));
    let var2 = t.assign(b2, "var2", &on);
    let state1 = t.assign(s3, "state1", &u8(2));
    let state2 = var2.ite(&state1, &state0);
    let var5 = t.assign(b5, "var5", &state0.eq(u8(2)));
    let var6 = t.assign(b6, "var6", &off);
    let state3 = t.assign(s7, "state3", &u8(1));
    let state4 = var6.ite(&state3, &state0);
    let state5 = var5.ite(&state4, &state0);
    let state6 = var1.ite(&state2, &state5);
    if transitions {
        t.assert(&on.implies(state6.eq(u8(2))));
        t.assert(&off.implies(state6.eq(u8(1))));
    }
    let var11 = t.assign(b10, "var11", &state6.eq(u8(1)));
    let v1 = t.assign(s11, "v1", &in2.not());
    let out1_1 = t.assign(s12, "out1_1", &Bool::and(&[&in1, &v1]));
    let out2_1 = t.assign(s13, "out2_1", &Bool::or(&[&in3, &v1]));
    let out1_2 = var11.ite(&out1_1, &out1_0);
    let out2_2 = var11.ite(&out2_1, &out2_0);
    let var15 = t.assign(b15, "var15", &state6.eq(u8(2)));
    let out1_3 = t.assign(s16, "out1_3", &Bool::from_bool(false));
    let out2_3 = t.assign(s17, "out2_3", &Bool::from_bool(false));
    let out1_4 = var15.ite(&out1_3, &out1_2);
    let out2_4 = var15.ite(&out2_3, &out2_2);
    t.assert(&out1_4);
    t.assert(&out2_4.not());
    (oracle, s13)
}

#[test]
fn fsm_the_true_fault_is_the_only_single_diagnosis() {
    let (mut oracle, fault) = fsm(false);
    let result = diagnose_and_check("fsm, the paper's unit test", &mut oracle, 2);
    let singles: Vec<_> = result.of_cardinality(1).cloned().collect();
    assert_eq!(singles, vec![BTreeSet::from([fault])]);
    // Pairs explain the test too, e.g. v forced false and out1 set by hand…
    let pairs: Vec<Vec<&str>> = result.of_cardinality(2).map(|d| oracle.names(d)).collect();
    assert!(pairs.contains(&vec!["11: v = !in2", "12: out1 = in1 && v"]));
    // …or the transition skipped and the active state's out1 = false replaced.
    assert!(pairs.contains(&vec!["6: off", "16: out1 = false"]));
    assert!(result.minimal.iter().all(|d| d.len() <= 2));
}

#[test]
fn fsm_the_papers_transition_assertions_remove_pairs_that_break_the_transition() {
    let (mut plain, _) = fsm(false);
    let without = diagnose_and_check("fsm without the transition assertions", &mut plain, 2);
    let (mut oracle, fault) = fsm(true);
    let with = diagnose_and_check("fsm with the transition assertions", &mut oracle, 2);
    assert_eq!(
        with.of_cardinality(1).cloned().collect::<Vec<_>>(),
        vec![BTreeSet::from([fault])]
    );
    let with_pairs: Vec<Vec<&str>> = with.of_cardinality(2).map(|d| oracle.names(d)).collect();
    // Skipping the transition (6: off) now contradicts `off → state = 1`.
    assert!(!with_pairs.iter().any(|p| p.contains(&"6: off")));
    // Every diagnosis that holds with the assertions held without them (they only add
    // constraints), and some did not survive.
    for d in &with.minimal {
        assert!(without.minimal.iter().any(|w| w.is_subset(d)));
    }
    assert!(with.minimal.len() < without.minimal.len());
}

/// `let a = x * 2` (c1, the fault: `x * 3` is meant); `if x > 0 { a + 1 } else { a - 1 }`
/// (c2, c3), over mathematical integers; one run per input in `xs`, each expected to
/// return what the correct program returns.
fn two_branches(xs: &[i64]) -> Z3Oracle {
    let mut oracle = Z3Oracle::default();
    let c1 = oracle.component("c1: a = x * 2");
    let c2 = oracle.component("c2: a + 1");
    let c3 = oracle.component("c3: a - 1");
    for &input in xs {
        let t = oracle.test(format!("x = {input}"), Role::Failing);
        let x = t.int("x");
        t.assert(&x.eq(Int::from_i64(input)));
        let a = t.assign(c1, "a", &(&x * Int::from_i64(2)));
        let then = t.assign(c2, "then", &(&a + Int::from_i64(1)));
        let otherwise = t.assign(c3, "else", &(&a - Int::from_i64(1)));
        let r = x.gt(Int::from_i64(0)).ite(&then, &otherwise);
        let expected = if input > 0 {
            3 * input + 1
        } else {
            3 * input - 1
        };
        t.assert(&r.eq(Int::from_i64(expected)));
    }
    oracle
}

#[test]
fn two_failing_tests_jointly_leave_fewer_single_diagnoses_than_either_alone() {
    let mut positive = two_branches(&[1]);
    let alone = diagnose_and_check("x = 1 alone", &mut positive, 2);
    assert_eq!(
        named(&positive, &alone),
        vec![vec!["c1: a = x * 2"], vec!["c2: a + 1"]]
    );
    let mut negative = two_branches(&[-1]);
    let alone = diagnose_and_check("x = -1 alone", &mut negative, 2);
    assert_eq!(
        named(&negative, &alone),
        vec![vec!["c1: a = x * 2"], vec!["c3: a - 1"]]
    );
    // Jointly, one diagnosis must explain both runs: the shared c1, or both branches.
    let mut both = two_branches(&[1, -1]);
    let joint = diagnose_and_check("x = 1 and x = -1 jointly", &mut both, 2);
    assert_eq!(
        named(&both, &joint),
        vec![vec!["c1: a = x * 2"], vec!["c2: a + 1", "c3: a - 1"]]
    );
    assert!(joint.is_complete());
}

/// `let a = x * 2` (c1, the fault: `x * 3`), `let b = y + 1` (c2), `a + b` (c3), over
/// 32-bit bit-vectors. The failing run x = 1, y = 0 should return 4; with `passing`, the
/// run x = 0, y = 0 returned 1 as it should. With `shared_repairs`, an abnormal component
/// computes one function of what it reads in every run ([`Z3Oracle::repair`]); otherwise
/// any value per run.
fn sum_of_parts(passing: bool, shared_repairs: bool) -> Z3Oracle {
    let mut oracle = Z3Oracle::default();
    let c1 = oracle.component("c1: a = x * 2");
    let c2 = oracle.component("c2: b = y + 1");
    let c3 = oracle.component("c3: a + b");
    let mut runs = vec![((1, 0), 4, Role::Failing)];
    if passing {
        runs.push(((0, 0), 1, Role::Passing));
    }
    let i32 = |n: i64| BV::from_i64(n, 32);
    for ((xv, yv), expected, role) in runs {
        let t = oracle.test(format!("x = {xv}, y = {yv}"), role);
        let (x, y) = (t.bv("x", 32), t.bv("y", 32));
        t.assert(&x.eq(i32(xv)));
        t.assert(&y.eq(i32(yv)));
        let (a, b, r);
        if shared_repairs {
            a = t.assign_repaired(c1, "a", &x.bvmul(i32(2)), &[&x]);
            b = t.assign_repaired(c2, "b", &y.bvadd(i32(1)), &[&y]);
            r = t.assign_repaired(c3, "r", &a.bvadd(&b), &[&a, &b]);
        } else {
            a = t.assign(c1, "a", &x.bvmul(i32(2)));
            b = t.assign(c2, "b", &y.bvadd(i32(1)));
            r = t.assign(c3, "r", &a.bvadd(&b));
        }
        t.assert(&r.eq(i32(expected)));
    }
    oracle
}

#[test]
fn a_passing_test_prunes_a_diagnosis_that_would_break_it() {
    let all_three = vec![
        vec!["c1: a = x * 2"],
        vec!["c2: b = y + 1"],
        vec!["c3: a + b"],
    ];
    let mut failing_only = sum_of_parts(false, true);
    let result = diagnose_and_check("failing run only", &mut failing_only, 2);
    assert_eq!(named(&failing_only, &result), all_three);

    // c2 would have to map y = 0 to 2 for the failing run, and then the passing run,
    // which also has y = 0, would return 0 + 2 instead of 1.
    let mut with_passing = sum_of_parts(true, true);
    let result = diagnose_and_check("failing and passing runs", &mut with_passing, 2);
    assert_eq!(
        named(&with_passing, &result),
        vec![vec!["c1: a = x * 2"], vec!["c3: a + b"]]
    );
    assert_eq!(
        with_passing
            .tests()
            .iter()
            .map(|(_, r)| *r)
            .collect::<Vec<_>>(),
        vec![Role::Failing, Role::Passing]
    );

    // When an abnormal component may take any value in each run, a passing run can always
    // be kept by the original value: it prunes nothing.
    let mut free = sum_of_parts(true, false);
    let result = diagnose_and_check("failing and passing runs, free values", &mut free, 2);
    assert_eq!(named(&free, &result), all_three);
}

#[test]
fn minimized_cores_give_the_same_diagnoses_and_are_minimal() {
    let (mut raw, _) = fsm(false);
    let without = diagnose(&mut raw, &Bounds::default());
    let (mut minimized, _) = fsm_with(
        Options {
            minimize: true,
            ..Options::default()
        },
        false,
    );
    let with = diagnose(&mut minimized, &Bounds::default());
    assert_eq!(with.minimal, without.minimal);
    assert_eq!(with.cut, without.cut);
    assert!(with.undecided.is_empty() && without.undecided.is_empty());
    println!(
        "fsm up to triples: {} diagnoses ({} triples); z3's cores: {} nodes, {} solver checks; \
         minimized cores: {} nodes, {} solver checks",
        with.minimal.len(),
        with.of_cardinality(3).count(),
        without.nodes,
        raw.solver_checks(),
        with.nodes,
        minimized.solver_checks(),
    );
    // Minimized conflicts are minimal: dropping any element leaves a consistent model.
    for conflict in &with.conflicts {
        for &c in conflict {
            let abnormal: BTreeSet<ComponentId> = minimized
                .components()
                .filter(|&o| o == c || !conflict.contains(&o))
                .collect();
            assert_eq!(minimized.check(&abnormal), Verdict::Consistent);
        }
    }
}

/// A search bounded by solver steps (z3's `rlimit`) decides the same on every run: the
/// same checks, the same steps, the same diagnoses. A step limit too small for any check
/// leaves every candidate undecided and says which limit stopped it.
#[test]
fn a_step_bounded_search_repeats_itself_and_names_its_limit() {
    // Each run in a thread of its own, so in a z3 context of its own, as the tool runs
    // each test's diagnosis in a process of its own.
    let run = |rlimit: u32| {
        std::thread::spawn(move || {
            let (mut oracle, _) = fsm_with(
                Options {
                    rlimit,
                    timeout_ms: 60_000,
                    ..Options::default()
                },
                false,
            );
            let result = diagnose(&mut oracle, &Bounds::default());
            (result, oracle.steps(), oracle.solver_checks())
        })
        .join()
        .unwrap()
    };
    let (first, steps, checks) = run(50_000_000);
    let (second, steps_again, checks_again) = run(50_000_000);
    assert!(steps > 0);
    assert_eq!((steps, checks), (steps_again, checks_again));
    assert_eq!(first.minimal, second.minimal);
    assert!(first.undecided.is_empty(), "{:?}", first.undecided);

    let (starved, _, _) = run(1);
    assert!(starved.minimal.is_empty());
    let reason = &starved.undecided.first().expect("undecided").reason;
    assert!(reason.contains("step limit of 1"), "{reason}");
}
