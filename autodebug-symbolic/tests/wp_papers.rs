//! Weakest-precondition evidence on recorded failing runs: what a component should have
//! computed for the specification to hold along the rest of the recorded path, as the
//! sentence a developer reads; and the first point of the run where the value it had lies
//! outside what was required.

mod encode_trace;

use autodebug_runtime::protocol::SiteKind;
use autodebug_symbolic::conflicts::{Role, Z3Oracle};
use autodebug_symbolic::encode::{Call, Concrete, Encoder, Encoding, Options, Spec};
use autodebug_symbolic::ir::Program;
use autodebug_symbolic::wp::{self, Allowed};
use encode_trace::{Trace, i32, i32s, usize};

fn encode<'p>(
    program: &'p Program,
    options: Options,
    function: &str,
    trace: &Trace,
    expected: Option<Concrete>,
) -> (Encoder<'p>, Encoding) {
    let mut oracle = Z3Oracle::default();
    let mut encoder = Encoder::new(program, options);
    let encoding = encoder.encode(
        &mut oracle,
        &Call {
            test: "failing".into(),
            role: Role::Failing,
            function: function.into(),
            args: Vec::new(),
            trace: Some(trace.call_trace()),
            spec: Spec::failing(expected),
        },
    );
    assert!(encoding.added, "{:?}", encoding.degradations);
    (encoder, encoding)
}

fn component_at<'a>(
    encoder: &'a Encoder,
    line: u32,
    kind: SiteKind,
) -> &'a autodebug_symbolic::encode::ComponentInfo {
    encoder
        .components()
        .all()
        .iter()
        .find(|c| c.site.line == line && c.site.kind == kind)
        .unwrap_or_else(|| panic!("no {kind:?} component at line {line}"))
}

const MAX: &str = "#[ensures(ret >= x && ret >= y)] fn max(x: i32, y: i32) -> i32 {
    let mut r = x;
    if y > x {
        r = x;
    }
    r
}
";

#[test]
fn max_the_assignment_at_line_4_must_give_at_least_2() {
    let program = Program::from_source(MAX, "src/lib.rs").unwrap();
    let mut t = Trace::new(&program);
    let scope = [("x", i32(1)), ("y", i32(2))];
    t.enter("max", &scope)
        .value("max", 2, SiteKind::Let, i32(1), &scope)
        .branch("max", 3, SiteKind::If, true, &[i32(2), i32(1)])
        .value("max", 4, SiteKind::Assign, i32(1), &scope)
        .value("max", 6, SiteKind::Return, i32(1), &scope)
        .exit("max", false);
    let options = Options {
        conditions: false,
        returns: false,
        ..Options::default()
    };
    let (encoder, encoding) = encode(&program, options, "max", &t, None);
    let c2 = component_at(&encoder, 4, SiteKind::Assign).id;
    let req = wp::requirement(&encoding, c2, &wp::Options::default()).unwrap();
    println!("{}", req.sentence());
    assert_eq!(
        req.sentence(),
        "for `ensures(ret >= x && ret >= y)` to hold, `r` after line 4 must be ≥ 2; it was 1"
    );
    assert_eq!(
        req.allowed,
        Allowed::Range {
            min: Some(2),
            max: None
        }
    );
    assert!(req.disagrees());
    assert!(!req.path_changed);

    // `let r = x` at line 2 cannot mend the run: line 4 overwrites `r` on its path.
    let c1 = component_at(&encoder, 2, SiteKind::Let).id;
    let first = wp::requirement(&encoding, c1, &wp::Options::default()).unwrap();
    println!("{}", first.sentence());
    assert_eq!(first.allowed, Allowed::Nothing);
    assert!(!first.disagrees());

    // Along the run, line 4 is the first point whose value lies outside what is required.
    let point = wp::first_disagreement(&encoding, &wp::Options::default()).unwrap();
    assert_eq!(point.component, c2);
}

/// The running example of the AutoDebug paper with a loop bound one short.
const OFF_BY_ONE: &str = "#[ensures(forall k in 0..a.len() => ret >= a[k])]
fn max(a: &[i32]) -> i32 {
    let mut s = a[0];
    for i in 1..a.len() - 1 {
        if s < a[i] {
            s = a[i];
        }
    }
    s
}
";

#[test]
fn an_off_by_one_loop_bound_must_be_one_more_and_the_running_maximum_at_least_5() {
    let program = Program::from_source(OFF_BY_ONE, "src/lib.rs").unwrap();
    let a = i32s(&[-2, 3, 5]);
    let mut t = Trace::new(&program);
    t.enter("max", &[("a", a.clone())])
        .value("max", 3, SiteKind::Let, i32(-2), &[("a", a.clone())])
        .value(
            "max",
            4,
            SiteKind::Bound,
            usize(2),
            &[("a", a.clone()), ("s", i32(-2))],
        )
        .iteration("max", 4)
        .branch("max", 5, SiteKind::If, true, &[i32(-2), i32(3)])
        .value(
            "max",
            6,
            SiteKind::Assign,
            i32(3),
            &[("a", a.clone()), ("s", i32(-2)), ("i", usize(1))],
        )
        .value(
            "max",
            9,
            SiteKind::Return,
            i32(3),
            &[("a", a.clone()), ("s", i32(3))],
        )
        .exit("max", false);
    let (encoder, encoding) = encode(&program, Options::default(), "max", &t, None);
    assert_eq!(encoding.check.adopted, 0, "every event reproduced");

    // The bound: on the recorded path (one iteration) no bound helps; with one more
    // iteration, 3 does (4 would read past the end).
    let bound = component_at(&encoder, 4, SiteKind::Bound).id;
    let req = wp::requirement(&encoding, bound, &wp::Options::default()).unwrap();
    println!("{}", req.sentence());
    assert!(req.path_changed);
    assert_eq!(req.allowed, Allowed::Exactly(Concrete::Int(3)));
    assert_eq!(req.actual, Concrete::Int(2));
    assert_eq!(
        req.sentence(),
        "for `ensures(forall k in 0..a.len() => ret >= a[k])` to hold, the bound `a.len() - 1` \
         after line 4 must be 3 (no value does on the recorded path: the later branches must \
         change too); it was 2"
    );

    // Along the recorded path, the first value outside its required set is the running
    // maximum after line 6.
    let point = wp::first_disagreement(&encoding, &wp::Options::default()).unwrap();
    println!("{}", point.sentence());
    assert_eq!((point.site.line, point.site.kind), (6, SiteKind::Assign));
    assert_eq!(
        point.sentence(),
        "for `ensures(forall k in 0..a.len() => ret >= a[k])` to hold, `s` after line 6 must \
         be ≥ 5; it was 3"
    );
}

#[test]
fn max_array_no_single_instance_of_the_faulty_comparison_mends_the_run() {
    let text = std::fs::read_to_string("../examples/max-array/src/lib.rs").unwrap();
    let program = Program::from_source(&text, "src/lib.rs").unwrap();
    let a = i32s(&[-2, 5, 3]);
    let scope = |i: i128, s: i128| vec![("a", a.clone()), ("i", usize(i)), ("s", i32(s))];
    let mut t = Trace::new(&program);
    t.enter("max", &[("a", a.clone())])
        .value("max", 12, SiteKind::Let, i32(1), &[("a", a.clone())])
        .value(
            "max",
            13,
            SiteKind::Let,
            i32(-2),
            &[("a", a.clone()), ("i", usize(1))],
        )
        .branch("max", 14, SiteKind::While, true, &[usize(1), usize(3)])
        .iteration("max", 14)
        .branch("max", 15, SiteKind::If, false, &[i32(-2), i32(5)])
        .value("max", 18, SiteKind::Compound, usize(1), &scope(1, -2))
        .branch("max", 14, SiteKind::While, true, &[usize(2), usize(3)])
        .iteration("max", 14)
        .branch("max", 15, SiteKind::If, false, &[i32(-2), i32(3)])
        .value("max", 18, SiteKind::Compound, usize(1), &scope(2, -2))
        .branch("max", 14, SiteKind::While, false, &[usize(3), usize(3)])
        .value("max", 20, SiteKind::Return, i32(-2), &scope(3, -2))
        .exit("max", false);
    // The test `max_of_paper_input` expects 5.
    let (encoder, encoding) = encode(
        &program,
        Options::default(),
        "max",
        &t,
        Some(Concrete::Int(5)),
    );
    assert_eq!(encoding.check.adopted, 0);
    // Taking the branch at the first comparison sets `s` to 5, but the faulty `s > a[i]`
    // at the second (5 > 3) sets it back to 3: the fault is the comparison at every
    // instance, not one of its values.
    let cond = component_at(&encoder, 15, SiteKind::If).id;
    let req = wp::requirement(&encoding, cond, &wp::Options::default()).unwrap();
    println!("{}", req.sentence());
    assert_eq!(req.allowed, Allowed::Nothing);
    assert_eq!(req.actual, Concrete::Bool(false));
    assert_eq!(
        req.sentence(),
        "for `ensures(forall i in 0..a.len() => ret >= a[i])` to hold and `ret == 5` to hold, \
         no value of the condition `s > a[i]` at line 15 will do, even on another path; it was \
         false"
    );

    // On the recorded path only the returned value can still be mended.
    let point = wp::first_disagreement(&encoding, &wp::Options::default()).unwrap();
    println!("{}", point.sentence());
    assert_eq!(point.site.kind, SiteKind::Return);
    assert_eq!(point.allowed, Allowed::Exactly(Concrete::Int(5)));
}
