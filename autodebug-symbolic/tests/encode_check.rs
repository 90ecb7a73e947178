//! The encoding against the run: a model that disagrees with the trace (a value, a branch,
//! an iteration, a panic) degrades the call with its reason and adds nothing to the oracle;
//! a model that agrees is diagnosed — with loops beyond the recorded iterations, several
//! tests at once, passing tests, inlined calls and calls beyond the inlining depth.

mod encode_trace;

use autodebug_runtime::protocol::{Record, SiteKind, Value};
use autodebug_symbolic::conflicts::{Role, Z3Oracle};
use autodebug_symbolic::diagnose::{Bounds, diagnose};
use autodebug_symbolic::encode::{Call, CallTrace, Concrete, Encoder, Encoding, Options, Spec};
use autodebug_symbolic::ir::Program;
use encode_trace::{Trace, i32, i32s, usize};

const MAX: &str = "#[ensures(ret >= x && ret >= y)] fn max(x: i32, y: i32) -> i32 {
    let mut r = x;
    if y > x {
        r = x;
    }
    r
}
";

/// The run of `max(1, 2)`, with the value recorded at line 4 and the branch outcome at
/// line 3 as given.
fn max_trace(program: &Program, line_4: i128, line_3: bool) -> Trace<'_> {
    let mut t = Trace::new(program);
    t.enter("max", &[("x", i32(1)), ("y", i32(2))])
        .value("max", 2, SiteKind::Let, i32(1), &[])
        .branch("max", 3, SiteKind::If, line_3, &[]);
    if line_3 {
        t.value("max", 4, SiteKind::Assign, i32(line_4), &[]);
    }
    t.value("max", 6, SiteKind::Return, i32(line_4), &[])
        .exit("max", false);
    t
}

fn failing<'a>(function: &str, trace: CallTrace<'a>, expected: Option<Concrete>) -> Call<'a> {
    Call {
        test: format!("{function} fails"),
        role: Role::Failing,
        function: function.into(),
        args: Vec::new(),
        trace: Some(trace),
        spec: Spec::failing(expected),
    }
}

fn encode_one(program: &Program, call: &Call) -> (Z3Oracle, Encoding) {
    let mut oracle = Z3Oracle::default();
    let encoding = Encoder::new(program, Options::default()).encode(&mut oracle, call);
    for d in &encoding.degradations {
        println!("degraded: {d}");
    }
    (oracle, encoding)
}

#[test]
fn a_recorded_value_the_model_does_not_compute_degrades_the_call() {
    let program = Program::from_source(MAX, "src/lib.rs").unwrap();
    let trace = max_trace(&program, 2, true);
    let (mut oracle, encoding) = encode_one(&program, &failing("max", trace.call_trace(), None));
    assert!(!encoding.added);
    assert_eq!(
        encoding.degradations,
        vec!["line 4: the model computes `x` = 1 where the run recorded 2"]
    );
    // Nothing reached the oracle: no test, nothing to explain.
    assert!(oracle.tests().is_empty());
    let result = diagnose(&mut oracle, &Bounds::default());
    assert_eq!(result.minimal, vec![Default::default()]);
}

#[test]
fn a_branch_outcome_the_model_does_not_reproduce_degrades_the_call() {
    let program = Program::from_source(MAX, "src/lib.rs").unwrap();
    let trace = max_trace(&program, 1, false);
    let (oracle, encoding) = encode_one(&program, &failing("max", trace.call_trace(), None));
    assert!(!encoding.added && oracle.tests().is_empty());
    assert_eq!(
        encoding.degradations,
        vec!["line 3: the model evaluates `y > x` to true, the run to false"]
    );
}

#[test]
fn a_trace_under_a_plan_or_with_extra_events_is_not_used() {
    let program = Program::from_source(MAX, "src/lib.rs").unwrap();
    let mut trace = max_trace(&program, 1, true);
    for event in &mut trace.events {
        if let Record::Branch { flipped, .. } = event {
            *flipped = true;
        }
    }
    let (_, encoding) = encode_one(&program, &failing("max", trace.call_trace(), None));
    assert!(!encoding.added);
    assert!(encoding.degradations[0].contains("under a plan"));

    // One assignment more than the model makes.
    let mut trace = max_trace(&program, 1, true);
    let exit = trace.events.pop().unwrap();
    trace.value("max", 4, SiteKind::Assign, i32(1), &[]);
    trace.events.push(exit);
    let (_, encoding) = encode_one(&program, &failing("max", trace.call_trace(), None));
    assert!(!encoding.added);
    assert_eq!(
        encoding.degradations,
        vec!["line 4: the run has 1 more instance(s) of `x` (Assign) than the model"]
    );
}

#[test]
fn a_scope_value_the_model_does_not_have_degrades_the_call() {
    let program = Program::from_source(MAX, "src/lib.rs").unwrap();
    let mut t = Trace::new(&program);
    t.enter("max", &[("x", i32(1)), ("y", i32(2))]).value(
        "max",
        2,
        SiteKind::Let,
        i32(1),
        &[("x", i32(1)), ("y", i32(3))],
    );
    let (_, encoding) = encode_one(&program, &failing("max", t.call_trace(), None));
    assert_eq!(
        encoding.degradations,
        vec!["line 2: the model has `y` = 2 where the run recorded 3"]
    );
}

const INCREMENT: &str = "#[autodebug] fn next(x: u8) -> u8 {
    let y = x + 1;
    y
}
";

#[test]
fn overflow_is_a_panic_the_run_must_share() {
    let program = Program::from_source(INCREMENT, "src/lib.rs").unwrap();
    // The run panicked at `x + 1` (255 + 1): the model agrees and the call is explained.
    let mut t = Trace::new(&program);
    let u8 = |v| Value::Int { ty: "u8".into(), v };
    t.enter("next", &[("x", u8(255))]).exit("next", true);
    let (mut oracle, encoding) = encode_one(&program, &failing("next", t.call_trace(), None));
    assert!(encoding.added, "{:?}", encoding.degradations);
    assert_eq!(encoding.violated(), vec!["no panic"]);
    assert_eq!(
        encoding.spec_phrase(),
        "the call not to panic (attempt to add with overflow (line 2))"
    );
    let result = diagnose(&mut oracle, &Bounds::default());
    let named: Vec<Vec<&str>> = result.minimal.iter().map(|d| oracle.names(d)).collect();
    assert_eq!(named, vec![vec!["line 2: let y = x + 1"]]);

    // A run that returned where the model overflows is not this program's run.
    let mut t = Trace::new(&program);
    t.enter("next", &[("x", u8(255))])
        .value("next", 2, SiteKind::Let, u8(0), &[])
        .value("next", 3, SiteKind::Return, u8(0), &[])
        .exit("next", false);
    let (oracle, encoding) = encode_one(&program, &failing("next", t.call_trace(), None));
    assert!(!encoding.added && oracle.tests().is_empty());
    assert_eq!(
        encoding.degradations,
        vec![
            "the model panics in `next` (attempt to add with overflow (line 2)) where the run returned"
        ]
    );
}

#[test]
fn a_failing_run_the_model_finds_correct_is_not_explained() {
    let program = Program::from_source(MAX, "src/lib.rs").unwrap();
    let trace = max_trace(&program, 1, true);
    // Expecting what the run returned: the ensures fails, but claim the call is fine by
    // checking nothing but its return value.
    let call = Call {
        spec: Spec {
            contracts: false,
            ..Spec::failing(Some(Concrete::Int(1)))
        },
        ..failing("max", trace.call_trace(), None)
    };
    let (oracle, encoding) = encode_one(&program, &call);
    assert!(!encoding.added && oracle.tests().is_empty());
    assert!(
        encoding.degradations[0].starts_with("in the model the run meets its specification"),
        "{:?}",
        encoding.degradations
    );
}

/// The run of the `sum` example on `a`.
fn sum_trace<'p>(program: &'p Program, a: &[i128]) -> Trace<'p> {
    let f = "sum";
    let seq = i32s(a);
    let mut t = Trace::new(program);
    t.enter(f, &[("a", seq.clone())])
        .value(f, 14, SiteKind::Let, i32(0), &[("a", seq.clone())])
        .value(
            f,
            15,
            SiteKind::Let,
            usize(1),
            &[("a", seq.clone()), ("s", i32(0))],
        );
    let (mut s, mut i) = (0i128, 1usize);
    loop {
        let go = i < a.len();
        t.branch(
            f,
            16,
            SiteKind::While,
            go,
            &[usize(i as i128), usize(a.len() as i128)],
        );
        if !go {
            break;
        }
        t.iteration(f, 16);
        let scope = [("a", seq.clone()), ("s", i32(s)), ("i", usize(i as i128))];
        t.value(f, 17, SiteKind::Compound, i32(a[i]), &scope);
        s += a[i];
        let scope = [("a", seq.clone()), ("s", i32(s)), ("i", usize(i as i128))];
        t.value(f, 18, SiteKind::Compound, usize(1), &scope);
        i += 1;
    }
    t.value(
        f,
        20,
        SiteKind::Return,
        i32(s),
        &[("a", seq), ("s", i32(s))],
    )
    .exit(f, false);
    t
}

#[test]
fn sum_two_failing_tests_and_a_passing_one_keep_the_true_fault() {
    let text = std::fs::read_to_string("../examples/sum/src/lib.rs").unwrap();
    let program = Program::from_source(&text, "src/lib.rs").unwrap();
    let mut oracle = Z3Oracle::default();
    let options = Options {
        returns: false,
        ..Options::default()
    };
    let mut encoder = Encoder::new(&program, options);
    let one = sum_trace(&program, &[7]);
    let three = sum_trace(&program, &[1, 2, 3]);
    let empty = sum_trace(&program, &[]);
    let calls = [
        failing("sum", one.call_trace(), Some(Concrete::Int(7))),
        failing("sum", three.call_trace(), Some(Concrete::Int(6))),
        Call {
            test: "sum of []".into(),
            role: Role::Passing,
            function: "sum".into(),
            args: Vec::new(),
            trace: Some(empty.call_trace()),
            spec: Spec::accepted(),
        },
    ];
    for call in &calls {
        let encoding = encoder.encode(&mut oracle, call);
        println!(
            "{}: {:?} {:?}",
            encoding.test, encoding.spec, encoding.degradations
        );
        for note in &encoding.notes {
            println!("  note: {note}");
        }
        assert!(encoding.added, "{:?}", encoding.degradations);
        assert_eq!(encoding.check.adopted, 0);
    }
    let result = diagnose(
        &mut oracle,
        &Bounds {
            max_cardinality: 1,
            ..Bounds::default()
        },
    );
    let named: Vec<Vec<&str>> = result.minimal.iter().map(|d| oracle.names(d)).collect();
    println!("sum: {named:?}");
    // The fault (`let mut i = 1`, `0` meant) needs one more iteration on `[7]`: within the
    // slack. Starting the sum at `a[0]` (`let mut s`) mends both failing runs too.
    assert_eq!(
        named,
        vec![vec!["line 14: let s = 0"], vec!["line 15: let i = 1"]]
    );
}

#[test]
fn without_slack_a_repair_that_needs_more_iterations_is_out_of_reach() {
    let text = std::fs::read_to_string("../examples/sum/src/lib.rs").unwrap();
    let program = Program::from_source(&text, "src/lib.rs").unwrap();
    let mut oracle = Z3Oracle::default();
    let options = Options {
        returns: false,
        slack: 0,
        ..Options::default()
    };
    let one = sum_trace(&program, &[7]);
    let encoding = Encoder::new(&program, options).encode(
        &mut oracle,
        &failing("sum", one.call_trace(), Some(Concrete::Int(7))),
    );
    assert!(encoding.added);
    assert!(
        encoding
            .notes
            .iter()
            .any(|n| n.contains("line 16: the loop is unrolled to the run's iterations plus 0")),
        "{:?}",
        encoding.notes
    );
    let result = diagnose(&mut oracle, &Bounds::default());
    let named: Vec<Vec<&str>> = result.minimal.iter().map(|d| oracle.names(d)).collect();
    assert!(!named.contains(&vec!["line 15: let i = 1"]), "{named:?}");
    assert!(named.contains(&vec!["line 14: let s = 0"]), "{named:?}");
}

const SCALED: &str = "#[autodebug] fn scale(x: i32) -> i32 {
    x * 2
}

#[ensures(ret == 3 * x + 1)]
fn scaled_plus_one(x: i32) -> i32 {
    let y = scale(x);
    y + 1
}
";

#[test]
fn inlined_callees_are_paired_with_their_own_events_and_their_sites_are_components() {
    let program = Program::from_source(SCALED, "src/lib.rs").unwrap();
    let mut t = Trace::new(&program);
    t.enter("scaled_plus_one", &[("x", i32(2))])
        .enter("scale", &[("x", i32(2))])
        .value("scale", 2, SiteKind::Return, i32(4), &[("x", i32(2))])
        .exit("scale", false)
        .value(
            "scaled_plus_one",
            7,
            SiteKind::Let,
            i32(4),
            &[("x", i32(2))],
        )
        .value(
            "scaled_plus_one",
            8,
            SiteKind::Return,
            i32(5),
            &[("x", i32(2)), ("y", i32(4))],
        )
        .exit("scaled_plus_one", false);
    let mut oracle = Z3Oracle::default();
    let mut encoder = Encoder::new(&program, Options::default());
    let encoding = encoder.encode(
        &mut oracle,
        &failing("scaled_plus_one", t.call_trace(), None),
    );
    assert!(encoding.added, "{:?}", encoding.degradations);
    assert_eq!(encoding.check.adopted, 0);
    assert_eq!(encoding.components.len(), 3);
    let result = diagnose(&mut oracle, &Bounds::default());
    let named: Vec<Vec<&str>> = result.minimal.iter().map(|d| oracle.names(d)).collect();
    assert_eq!(
        named,
        vec![
            vec!["line 7: let y = scale(x)"],
            vec!["line 8: return y + 1"],
            vec!["line 2: return x * 2"],
        ]
    );

    // The callee's events missing: the model calls `scale` where the run did not.
    let mut t = Trace::new(&program);
    t.enter("scaled_plus_one", &[("x", i32(2))])
        .value("scaled_plus_one", 7, SiteKind::Let, i32(4), &[])
        .exit("scaled_plus_one", false);
    let encoding = encoder.encode(
        &mut oracle,
        &failing("scaled_plus_one", t.call_trace(), None),
    );
    assert_eq!(
        encoding.degradations,
        vec!["the model calls `scale` on the recorded path, the run did not"]
    );
}

const FACT: &str = "#[ensures(ret >= 1)]
fn fact(n: u32) -> u32 {
    if n == 0 {
        1
    } else {
        n * fact(n - 1)
    }
}
";

#[test]
fn recursion_beyond_the_inlining_depth_takes_the_recorded_result() {
    let program = Program::from_source(FACT, "src/lib.rs").unwrap();
    let u32v = |v| Value::Int {
        ty: "u32".into(),
        v,
    };
    let mut t = Trace::new(&program);
    for n in [2, 1, 0] {
        t.enter("fact", &[("n", u32v(n))]).branch(
            "fact",
            3,
            SiteKind::If,
            n == 0,
            &[u32v(n), u32v(0)],
        );
    }
    t.value("fact", 4, SiteKind::Return, u32v(1), &[])
        .exit("fact", false)
        .value("fact", 6, SiteKind::Return, u32v(1), &[])
        .exit("fact", false)
        .value("fact", 6, SiteKind::Return, u32v(2), &[])
        .exit("fact", false);
    let options = Options {
        inline_depth: 1,
        ..Options::default()
    };
    let mut oracle = Z3Oracle::default();
    let encoding = Encoder::new(&program, options).encode(
        &mut oracle,
        &Call {
            spec: Spec::accepted(),
            role: Role::Passing,
            ..failing("fact", t.call_trace(), None)
        },
    );
    println!("{:?} {:?}", encoding.degradations, encoding.notes);
    assert!(encoding.added, "{:?}", encoding.degradations);
    assert!(
        encoding
            .notes
            .iter()
            .any(|n| n.starts_with("calls of `fact` nested deeper than 1 are not inlined"))
    );
    // Two frames inlined, each with its branch and its return: all reproduced.
    assert_eq!(encoding.check.adopted, 0);
    assert!(encoding.check.matched >= 4);
    assert_eq!(
        encoding.spec.last().map(|s| s.label.as_str()),
        Some("ret == 2")
    );
}

const KEPT: &str = "struct Item {
    weight: i32,
    keep: bool,
}

#[ensures(ret == 8)]
fn kept() -> i32 {
    let items = [
        Item { weight: 1, keep: true },
        Item { weight: 5, keep: false },
        Item { weight: 7, keep: true },
    ];
    let mut total = 0;
    for i in 0..items.len() {
        if !items[i].keep {
            total += items[i].weight;
        }
    }
    total
}
";

#[test]
fn sequences_of_structs_are_held_field_by_field() {
    let program = Program::from_source(KEPT, "src/lib.rs").unwrap();
    let mut oracle = Z3Oracle::default();
    let options = Options {
        returns: false,
        ..Options::default()
    };
    let encoding = Encoder::new(&program, options).encode(
        &mut oracle,
        &Call {
            test: "kept".into(),
            role: Role::Failing,
            function: "kept".into(),
            args: Vec::new(),
            trace: None,
            spec: Spec::failing(None),
        },
    );
    assert!(encoding.added, "{:?}", encoding.degradations);
    assert_eq!(encoding.violated(), vec!["ensures(ret == 8)"]);
    let result = diagnose(
        &mut oracle,
        &Bounds {
            max_cardinality: 1,
            ..Bounds::default()
        },
    );
    let named: Vec<Vec<&str>> = result.minimal.iter().map(|d| oracle.names(d)).collect();
    println!("{named:?}");
    assert!(
        named.contains(&vec!["line 15: if !items[i].keep"]),
        "{named:?}"
    );
}
