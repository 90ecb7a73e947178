//! Repairs of the example crates' faults (`examples/*/fault.json`) from the traces the tool
//! recorded on them (`encode_fixtures/`): the failing calls with the oracle stage's
//! expectations, the calls their tests accepted and every call of the passing tests. The
//! written fix must be among the first candidates, and come fast.

mod repair_fixtures;

use std::time::Instant;

use autodebug_runtime::protocol::{BinOp, Expr, SiteKey, SiteKind, Value};
use autodebug_symbolic::conflicts::Role;
use autodebug_symbolic::encode::{Call, Concrete, Expected, Spec};
use autodebug_symbolic::ir::Program;
use autodebug_symbolic::repair::{Candidate, Kind, Options, Synthesizer};
use repair_fixtures::load;

/// The first `n` candidates for the example's fault, from the calls of the traces whose
/// test name contains one of `only` (all when empty).
fn first(example: &str, only: &[&str], n: usize) -> Vec<Candidate> {
    let ex = load(example);
    let plan = ex.plan(only);
    let calls = ex.calls(&plan);
    let site = ex.fault_site();
    let start = Instant::now();
    let mut synth = Synthesizer::new(&ex.program, &calls, &[site], Options::default());
    let out: Vec<Candidate> = synth.by_ref().take(n).collect();
    let r = synth.report();
    println!(
        "{example}: {} calls ({} encoded), {} checks, {:.2}s",
        r.calls.len(),
        r.calls.iter().filter(|c| c.encoded).count(),
        r.checks,
        start.elapsed().as_secs_f64()
    );
    for c in &out {
        let e = &c.edits[0];
        println!(
            "  `{}` -> `{}` [{}] cost {}, runtime {:?} {:?}",
            e.original, e.rust, e.template, c.cost, e.expr, e.note
        );
    }
    assert!(r.unsupported.is_empty(), "{:?}", r.unsupported);
    assert!(
        r.calls.iter().all(|c| c.encoded),
        "{:?}",
        r.calls.iter().filter(|c| !c.encoded).collect::<Vec<_>>()
    );
    // Every failing call is in; a passing call is left out only when it cannot run the
    // site (see `Synthesizer::new`).
    let failing =
        |roles: &mut dyn Iterator<Item = Role>| roles.filter(|r| *r == Role::Failing).count();
    assert!(
        plan.iter().any(|p| p.role == Role::Failing)
            && failing(&mut plan.iter().map(|p| p.role))
                == failing(&mut r.calls.iter().map(|c| c.role))
            && r.calls.len() <= plan.len(),
        "{example}: the failing calls are in"
    );
    out
}

/// The position of the written fix among `candidates`.
fn rank(example: &str, candidates: &[Candidate]) -> Option<usize> {
    let original = load(example).fault.original;
    candidates.iter().position(|c| c.edits[0].rust == original)
}

#[test]
fn max2_wrong_variable_is_repaired_first() {
    let found = first("max2", &[], 2);
    assert_eq!(rank("max2", &found), Some(0));
    assert_eq!(found[0].edits[0].template, "variable");
    assert_eq!(found[0].edits[0].expr, Some(Expr::Var { name: "y".into() }));
}

#[test]
fn binary_search_wrong_variable_in_the_predicate_is_repaired_first() {
    let found = first("binary-search", &[], 1);
    assert_eq!(rank("binary-search", &found), Some(0));
    let edit = &found[0].edits[0];
    assert_eq!(edit.template, "variable");
    // `a[mid]` is an element of a slice, which no hook reports: the candidate is for a
    // patch, and says so.
    assert_eq!(edit.expr, None);
    assert!(edit.note.as_deref().unwrap().contains("a[mid]"));
}

#[test]
fn sum_initial_index_is_moved_by_one() {
    let found = first("sum", &[], 1);
    assert_eq!(rank("sum", &found), Some(0));
    let edit = &found[0].edits[0];
    assert_eq!(edit.template, "constant±1");
    assert_eq!(
        edit.expr,
        Some(Expr::Lit {
            value: Value::Int {
                ty: "usize".into(),
                v: 0
            }
        })
    );
}

#[test]
fn array_copy_off_by_one_loop_bound_is_moved_by_one() {
    let found = first("array-copy", &[], 2);
    assert_eq!(rank("array-copy", &found), Some(0));
    let edit = &found[0].edits[0];
    assert_eq!(edit.template, "loop-bound±1");
    // The runtime can only add one to the written bound, whose own underflow on an empty
    // source still happens there: the note says so.
    assert!(matches!(
        edit.expr,
        Some(Expr::Binary {
            left: ref l,
            ..
        }) if **l == Expr::Original
    ));
    assert!(edit.note.is_some());
}

#[test]
fn max_array_wrong_relational_operator_is_repaired_first() {
    let found = first("max-array", &[], 2);
    assert_eq!(rank("max-array", &found), Some(0));
    let edit = &found[0].edits[0];
    assert_eq!(edit.template, "relational-operator");
    // `s < a[i]`: the element is no variable in scope, but the written comparison's right
    // operand, which the branch events recorded: the runtime evaluates the candidate.
    assert_eq!(edit.rust, "s < a[i]");
    assert_eq!(edit.expr, Some(compare(BinOp::Lt, operand(0), operand(1))));
    assert_eq!(edit.note, None);
    assert!(found[0].replacements().is_some());
}

#[test]
fn quicksort_wrong_relational_operator_in_partition_is_repaired_first() {
    let found = first("quicksort", &[], 1);
    assert_eq!(rank("quicksort", &found), Some(0));
    // `a[j] <= pivot`, over the operands of the written `a[j] >= pivot`.
    assert_eq!(
        found[0].edits[0].expr,
        Some(compare(BinOp::Le, operand(0), operand(1)))
    );
}

fn operand(index: u32) -> Expr {
    Expr::Operand { index }
}

fn compare(op: BinOp, left: Expr, right: Expr) -> Expr {
    Expr::Binary {
        op,
        left: Box::new(left),
        right: Box::new(right),
    }
}

/// The first candidates of every example, counted: how many the runtime can evaluate (every
/// edit has an expression) instead of a rebuild. Before the runtime read a branch's operands
/// 9 of these 14 could be; the 4 gained are the relational operators and the negation of
/// `s > a[i]` and `a[j] >= pivot`, whose left sides no hook reported. `a[mid] < x` for
/// `a[lo] < x` reads an element that is no operand of the written condition: still a
/// rebuild.
#[test]
fn the_first_candidates_of_the_examples_are_validated_by_the_runtime() {
    let (mut total, mut evaluable) = (0, 0);
    let mut rebuilt = Vec::new();
    for example in EXAMPLES {
        let found = first(example, &[], 5);
        total += found.len();
        for c in &found {
            if c.replacements().is_some() {
                evaluable += 1;
            } else {
                rebuilt.push(c.edits[0].rust.clone());
            }
        }
    }
    println!("{evaluable} of {total} first candidates evaluable by the runtime");
    assert!(total >= 14, "{total}");
    assert_eq!(rebuilt, ["a[mid] < x"], "{evaluable} of {total}");
}

const EXAMPLES: [&str; 7] = [
    "max2",
    "sum",
    "array-copy",
    "max-array",
    "binary-search",
    "quicksort",
    "fsm",
];

#[test]
fn fsm_wrong_logical_operator_is_repaired_first() {
    let found = first("fsm", &[], 2);
    assert_eq!(rank("fsm", &found), Some(0));
    assert_eq!(found[0].edits[0].template, "boolean-operator");
    // Over variables in scope: the runtime can evaluate it.
    assert!(found[0].replacements().is_some());
}

/// The first index whose element is greater than `x` in a sorted slice, with `<` where
/// `<=` is meant: the search stops at the first equal element.
const UPPER_BOUND: &str = "fn upper_bound(a: &[i32], x: i32) -> usize {
    let mut lo = 0;
    let mut hi = a.len();
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if a[mid] < x {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}
";

fn ints(items: &[i128]) -> Value {
    Value::Seq {
        items: items
            .iter()
            .map(|&v| Value::Int {
                ty: "i32".into(),
                v,
            })
            .collect(),
        len: items.len(),
    }
}

fn upper_bound(a: &[i128], x: i128, expected: i128, role: Role) -> Call<'static> {
    Call {
        test: format!("upper_bound({a:?}, {x})"),
        role,
        function: "upper_bound".into(),
        args: vec![
            ("a".into(), ints(a)),
            (
                "x".into(),
                Value::Int {
                    ty: "i32".into(),
                    v: x,
                },
            ),
        ],
        trace: None,
        spec: Spec {
            contracts: true,
            no_panic: true,
            ret: Expected::Value(Concrete::Int(expected)),
        },
    }
}

#[test]
fn binary_search_strict_comparison_is_repaired_to_less_or_equal() {
    let program = Program::from_source(UPPER_BOUND, "upper_bound.rs").unwrap();
    let cond = program
        .function("upper_bound")
        .unwrap()
        .components()
        .into_iter()
        .find(|c| c.site.kind == SiteKind::If)
        .unwrap()
        .site
        .clone();
    let site = SiteKey {
        file: program.file.clone(),
        line: cond.span.start.line,
        column: cond.span.start.column,
        kind: SiteKind::If,
    };
    let calls = vec![
        upper_bound(&[1, 2, 2, 3], 2, 3, Role::Failing),
        upper_bound(&[1, 3, 5, 7, 9], 5, 3, Role::Failing),
        upper_bound(&[1, 3, 5], 4, 2, Role::Passing),
        upper_bound(&[1, 3, 5], 0, 0, Role::Passing),
        upper_bound(&[1, 3, 5], 9, 3, Role::Passing),
    ];
    let mut synth = Synthesizer::new(&program, &calls, &[site], Options::default());
    // Pulled one at a time: the search stops at the fix (later templates cost seconds).
    let mut found: Vec<Candidate> = Vec::new();
    while found.len() < 3 && !found.iter().any(|c| c.edits[0].rust == "a[mid] <= x") {
        found.extend(synth.next());
    }
    for c in &found {
        println!("`{}` [{}]", c.edits[0].rust, c.edits[0].template);
    }
    let at = found
        .iter()
        .position(|c| c.edits[0].rust == "a[mid] <= x")
        .expect("the `<=` candidate is among the first three");
    assert_eq!(found[at].edits[0].template, "relational-operator");
    assert!(synth.report().calls.iter().all(|c| c.encoded));
}

/// Every component of every recorded example, not only the faulty one, taken as the
/// diagnosis with one-token corrections and constants under a tight time limit: synthesis
/// ends with candidates or stated reasons, never a panic, and every candidate reads as Rust.
#[test]
fn every_component_of_the_recorded_examples_repairs_or_says_why_not() {
    let started = Instant::now();
    let (mut tried, mut repaired, mut faults) = (0, 0, 0);
    for example in EXAMPLES {
        let ex = load(example);
        let plan = ex.plan(&[]);
        let calls = ex.calls(&plan);
        for function in &ex.program.functions {
            for c in function.components() {
                let site = SiteKey {
                    file: ex.program.file.clone(),
                    line: c.site.span.start.line,
                    column: c.site.span.start.column,
                    kind: c.site.kind,
                };
                let options = Options {
                    kinds: vec![Kind::Mutation, Kind::Constant],
                    template_steps: 2_000_000,
                    per_template: 1,
                    ..Options::default()
                };
                let mut synth = Synthesizer::new(&ex.program, &calls, &[site], options);
                let found: Vec<Candidate> = synth.by_ref().take(1).collect();
                tried += 1;
                let r = synth.report();
                if let Some(candidate) = found.first() {
                    repaired += 1;
                    let e = &candidate.edits[0];
                    println!(
                        "{example}: `{}` -> `{}` [{}]",
                        e.original, e.rust, e.template
                    );
                    if c.site.span.start.line == ex.fault.line && e.rust == ex.fault.original {
                        faults += 1;
                    }
                    assert!(!e.rust.is_empty() && !e.rust.contains("/*"), "{e:?}");
                    assert!(e.expr.is_some() || e.note.is_some(), "{e:?}");
                } else {
                    if !r.cuts.is_empty() {
                        println!(
                            "{example}: line {} cut: {:?}",
                            c.site.span.start.line, r.cuts
                        );
                    }
                    assert!(
                        !r.unsupported.is_empty() || !r.cuts.is_empty() || r.checks > 0,
                        "{example} line {}: {r:?}",
                        c.site.span.start.line
                    );
                }
            }
        }
    }
    println!(
        "{tried} components, {repaired} with a candidate, {:.1}s",
        started.elapsed().as_secs_f64()
    );
    assert!(tried > 40, "{tried}");
    assert_eq!(faults, 7, "every example's fault is repaired as written");
    // With the calls of every test, no other component has a one-token correction or a
    // constant that agrees with all of them: the repairs single out the faults.
    assert_eq!(repaired, faults);
}
