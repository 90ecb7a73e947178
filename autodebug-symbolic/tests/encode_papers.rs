//! The papers' examples from Rust source: lowered, encoded with their recorded traces
//! (written here event by event as the runtime records them), and diagnosed by the
//! HS-DAG. The same examples are hand-encoded in `diagnose_papers.rs`; here the formulas
//! come from the code.

mod encode_trace;

use std::collections::BTreeSet;

use autodebug_runtime::protocol::{SiteKind, Value};
use autodebug_symbolic::conflicts::{ComponentId, Role, Z3Oracle};
use autodebug_symbolic::diagnose::{Bounds, Diagnoses, diagnose};
use autodebug_symbolic::encode::{Call, Concrete, Encoder, Encoding, Expected, Options, Spec};
use autodebug_symbolic::ir::Program;
use encode_trace::{Trace, i32, u8};

/// Diagnoses up to `max` components, printed, as component names.
fn diagnoses(
    title: &str,
    oracle: &mut Z3Oracle,
    max: usize,
) -> (Diagnoses<ComponentId>, Vec<Vec<String>>) {
    let result = diagnose(
        oracle,
        &Bounds {
            max_cardinality: max,
            ..Bounds::default()
        },
    );
    assert!(
        result.undecided.is_empty(),
        "{title}: {:?}",
        result.undecided
    );
    let named: Vec<Vec<String>> = result
        .minimal
        .iter()
        .map(|d| oracle.names(d).into_iter().map(str::to_string).collect())
        .collect();
    println!("{title}: {} checks", result.checks);
    for d in &named {
        println!("  {{{}}}", d.join(", "));
    }
    (result, named)
}

fn show(encoding: &Encoding) {
    println!(
        "{} / {}: added {}, matched {} events, adopted {}, spec {:?}",
        encoding.test,
        encoding.function,
        encoding.added,
        encoding.check.matched,
        encoding.check.adopted,
        encoding.spec
    );
    for d in &encoding.degradations {
        println!("  degraded: {d}");
    }
    for n in &encoding.notes {
        println!("  note: {n}");
    }
    for l in &encoding.check.learned {
        println!("  learned: {l}");
    }
}

/// Könighofer & Bloem, example 2, with the paper's line numbers and its assertion as the
/// postcondition.
pub const MAX: &str = "#[ensures(ret >= x && ret >= y)] fn max(x: i32, y: i32) -> i32 {
    let mut r = x;
    if y > x {
        r = x;
    }
    r
}
";

/// The run of `max(1, 2)`.
pub fn max_trace(program: &Program) -> Trace<'_> {
    let mut t = Trace::new(program);
    let scope = [("x", i32(1)), ("y", i32(2))];
    t.enter("max", &scope)
        .value("max", 2, SiteKind::Let, i32(1), &scope)
        .branch("max", 3, SiteKind::If, true, &[i32(2), i32(1)])
        .value(
            "max",
            4,
            SiteKind::Assign,
            i32(1),
            &[("x", i32(1)), ("y", i32(2)), ("r", i32(1))],
        )
        .value(
            "max",
            6,
            SiteKind::Return,
            i32(1),
            &[("x", i32(1)), ("y", i32(2)), ("r", i32(1))],
        )
        .exit("max", false);
    t
}

fn encode_max(program: &Program, conditions: bool) -> (Z3Oracle, Encoding) {
    let mut oracle = Z3Oracle::default();
    let options = Options {
        conditions,
        returns: false,
        ..Options::default()
    };
    let mut encoder = Encoder::new(program, options);
    let trace = max_trace(program);
    let encoding = encoder.encode(
        &mut oracle,
        &Call {
            test: "max(1, 2)".into(),
            role: Role::Failing,
            function: "max".into(),
            args: Vec::new(),
            trace: Some(trace.call_trace()),
            spec: Spec::failing(None),
        },
    );
    show(&encoding);
    assert!(encoding.added, "{:?}", encoding.degradations);
    (oracle, encoding)
}

#[test]
fn max_only_the_assignment_at_line_4_is_a_diagnosis() {
    let program = Program::from_source(MAX, "src/lib.rs").unwrap();
    let (mut oracle, encoding) = encode_max(&program, false);
    // Every event of the run was reproduced: the entry's values, the let, the branch, the
    // assignment, the return, and the scope values at each component.
    assert_eq!(encoding.check.adopted, 0);
    assert!(encoding.check.matched >= 4, "{}", encoding.check.matched);
    assert_eq!(encoding.violated(), vec!["ensures(ret >= x && ret >= y)"]);
    let (result, named) = diagnoses("max(1, 2), assignments only", &mut oracle, 2);
    assert_eq!(named, vec![vec!["line 4: r = x"]]);
    assert!(result.is_complete());
}

#[test]
fn max_with_the_condition_as_a_component_adds_the_pair_of_line_2_and_the_condition() {
    let program = Program::from_source(MAX, "src/lib.rs").unwrap();
    let (mut oracle, _) = encode_max(&program, true);
    let (result, named) = diagnoses("max(1, 2), with the condition", &mut oracle, 3);
    assert_eq!(
        named,
        vec![
            vec!["line 4: r = x".to_string()],
            vec![
                "line 2: let r = x".to_string(),
                "line 3: if y > x".to_string()
            ],
        ]
    );
    assert!(result.is_complete());
}

#[test]
fn max_without_a_trace_follows_the_run_from_its_arguments() {
    let program = Program::from_source(MAX, "src/lib.rs").unwrap();
    let mut oracle = Z3Oracle::default();
    let options = Options {
        conditions: false,
        returns: false,
        ..Options::default()
    };
    let encoding = Encoder::new(&program, options).encode(
        &mut oracle,
        &Call {
            test: "max(1, 2)".into(),
            role: Role::Failing,
            function: "max".into(),
            args: vec![("x".into(), i32(1)), ("y".into(), i32(2))],
            trace: None,
            spec: Spec::failing(None),
        },
    );
    assert!(encoding.added);
    assert_eq!(encoding.check.matched, 0);
    let (_, named) = diagnoses("max(1, 2) without its trace", &mut oracle, 2);
    assert_eq!(named, vec![vec!["line 4: r = x"]]);
}

/// Wotawa's introductory program: statement 3 (`out2`) is the fault.
const WOTAWA: &str = "fn outputs(in1: bool, in2: bool, in3: bool) -> (bool, bool) {
    let v = !in2;
    let out1 = in1 && v;
    let out2 = in3 || v;
    (out1, out2)
}
";

#[test]
fn wotawa_three_lines_only_the_third_statement_is_a_single_diagnosis() {
    let program = Program::from_source(WOTAWA, "src/lib.rs").unwrap();
    let mut oracle = Z3Oracle::default();
    let options = Options {
        returns: false,
        ..Options::default()
    };
    let mut encoder = Encoder::new(&program, options);
    let b = Value::Bool;
    let mut t = Trace::new(&program);
    let inputs = [("in1", b(true)), ("in2", b(false)), ("in3", b(false))];
    t.enter("outputs", &inputs)
        .value("outputs", 2, SiteKind::Let, b(true), &inputs)
        .value("outputs", 3, SiteKind::Let, b(true), &inputs)
        .value("outputs", 4, SiteKind::Let, b(true), &inputs)
        // A tuple is recorded as an opaque value.
        .value(
            "outputs",
            5,
            SiteKind::Return,
            Value::Opaque {
                ty: "(bool, bool)".into(),
            },
            &inputs,
        )
        .exit("outputs", false);
    let expected = Concrete::Tuple(vec![Concrete::Bool(true), Concrete::Bool(false)]);
    let encoding = encoder.encode(
        &mut oracle,
        &Call {
            test: "in1, !in2, !in3".into(),
            role: Role::Failing,
            function: "outputs".into(),
            args: Vec::new(),
            trace: Some(t.call_trace()),
            spec: Spec::failing(Some(expected)),
        },
    );
    show(&encoding);
    assert!(encoding.added);
    assert_eq!(encoding.violated(), vec!["ret == (true, false)"]);
    let (result, named) = diagnoses("Wotawa, three lines", &mut oracle, 3);
    assert_eq!(
        named,
        vec![
            vec!["line 4: let out2 = in3 || v".to_string()],
            vec![
                "line 2: let v = !in2".to_string(),
                "line 3: let out1 = in1 && v".to_string()
            ],
        ]
    );
    assert!(result.is_complete());
}

/// The run of `Fsm::step(on, off, in1, in2, in3)` from `state`, as the instrumented
/// example records it (`self` is opaque to the recorder).
fn fsm_step(t: &mut Trace, state: i128, inputs: [bool; 5]) -> Option<(bool, bool)> {
    let f = "Fsm::step";
    let [on, off, in1, in2, in3] = inputs;
    let b = Value::Bool;
    let args: Vec<(&str, Value)> = vec![
        (
            "self",
            Value::Opaque {
                ty: "&mut fsm::Fsm".into(),
            },
        ),
        ("on", b(on)),
        ("off", b(off)),
        ("in1", b(in1)),
        ("in2", b(in2)),
        ("in3", b(in3)),
    ];
    let scope = args[1..].to_vec();
    t.enter(f, &args);
    t.value(f, 52, SiteKind::Let, b(false), &scope);
    let mut with_out1 = scope.clone();
    with_out1.push(("out1", b(false)));
    t.value(f, 53, SiteKind::Let, b(false), &with_out1);
    let mut state_now = state;
    t.branch(f, 54, SiteKind::If, state == 1, &[u8(state), u8(1)]);
    if state == 1 {
        t.branch(f, 55, SiteKind::If, on, &[]);
        if on {
            t.value(f, 56, SiteKind::Assign, u8(2), &[]);
            state_now = 2;
        }
    } else {
        t.branch(f, 58, SiteKind::If, state == 2, &[u8(state), u8(2)]);
        if state == 2 {
            t.branch(f, 59, SiteKind::If, off, &[]);
            if off {
                t.value(f, 60, SiteKind::Assign, u8(1), &[]);
                state_now = 1;
            }
        }
    }
    let (mut out1, mut out2) = (false, false);
    t.branch(f, 63, SiteKind::If, state_now == 1, &[u8(state_now), u8(1)]);
    if state_now == 1 {
        let v = !in2;
        t.value(f, 64, SiteKind::Let, b(v), &[]);
        out1 = in1 && v;
        t.value(f, 65, SiteKind::Assign, b(out1), &[]);
        out2 = in3 || v;
        t.value(f, 66, SiteKind::Assign, b(out2), &[]);
    }
    t.branch(f, 68, SiteKind::If, state_now == 2, &[u8(state_now), u8(2)]);
    if state_now == 2 {
        out1 = false;
        out2 = false;
        t.value(f, 69, SiteKind::Assign, b(false), &[]);
        t.value(f, 70, SiteKind::Assign, b(false), &[]);
    }
    t.value(
        f,
        72,
        SiteKind::Return,
        Value::Opaque {
            ty: "(bool, bool)".into(),
        },
        &[],
    );
    t.exit(f, false);
    Some((out1, out2))
}

fn pair(a: bool, b: bool) -> Concrete {
    Concrete::Tuple(vec![Concrete::Bool(a), Concrete::Bool(b)])
}

#[test]
fn fsm_the_true_fault_is_the_only_single_diagnosis() {
    let text = std::fs::read_to_string("../examples/fsm/src/lib.rs").unwrap();
    let program = Program::from_source(&text, "src/lib.rs").unwrap();
    let mut oracle = Z3Oracle::default();
    let options = Options {
        returns: false,
        ..Options::default()
    };
    let mut encoder = Encoder::new(&program, options);

    // `tests::paper_unit_test`: state 2, off; expected (true, false).
    let mut failing = Trace::new(&program);
    fsm_step(&mut failing, 2, [false, true, true, false, false]);
    let encoding = encoder.encode(
        &mut oracle,
        &Call {
            test: "tests::paper_unit_test".into(),
            role: Role::Failing,
            function: "Fsm::step".into(),
            args: Vec::new(),
            trace: Some(failing.call_trace()),
            spec: Spec::failing(Some(pair(true, false))),
        },
    );
    show(&encoding);
    assert!(encoding.added, "{:?}", encoding.degradations);
    // `self` is not recorded; its state is read from the operands of the first branch.
    assert_eq!(
        encoding.check.learned.len(),
        1,
        "{:?}",
        encoding.check.learned
    );
    assert!(encoding.check.learned[0].starts_with("`self.state` = 2"));

    // `tests::idle_outputs_with_in2_high`, a passing test: its first call returned
    // (false, false) as asserted.
    let mut passing = Trace::new(&program);
    fsm_step(&mut passing, 1, [false, false, true, true, false]);
    let accepted = encoder.encode(
        &mut oracle,
        &Call {
            test: "tests::idle_outputs_with_in2_high".into(),
            role: Role::Passing,
            function: "Fsm::step".into(),
            args: Vec::new(),
            trace: Some(passing.call_trace()),
            spec: Spec {
                ret: Expected::Value(pair(false, false)),
                ..Spec::accepted()
            },
        },
    );
    show(&accepted);
    assert!(accepted.added, "{:?}", accepted.degradations);

    let (_, named) = diagnoses("fsm, paper_unit_test and a passing test", &mut oracle, 2);
    let singles: Vec<&Vec<String>> = named.iter().filter(|d| d.len() == 1).collect();
    assert_eq!(singles, vec![&vec!["line 66: out2 = in3 || v".to_string()]]);
    let fault = encoder
        .components()
        .all()
        .iter()
        .find(|c| c.site.line == 66)
        .unwrap();
    assert_eq!((fault.site.line, fault.site.column), (66, 20));
    let expected_fault: BTreeSet<ComponentId> = [fault.id].into();
    assert!(named.len() > 1, "pairs explain the run too");
    let _ = expected_fault;
}
