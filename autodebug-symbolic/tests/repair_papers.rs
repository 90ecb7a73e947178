//! Könighofer & Bloem's running example (example 2, `max`), repaired as in their sections
//! III-F, III-G and V: with the diagnosis {c2} the repair is `r = y` (not `y + 1`), with the
//! diagnosis {c1, c3} both components are replaced jointly, and counterexamples refine a
//! template's candidates until one is correct for every input tried.

mod encode_trace;
mod repair_fixtures;

use autodebug_runtime::protocol::{Record, SiteKey, SiteKind, Value};
use autodebug_symbolic::conflicts::Role;
use autodebug_symbolic::encode::{Call, Concrete, Expected, Spec};
use autodebug_symbolic::ir::Program;
use autodebug_symbolic::repair::{Candidate, Kind, Options, Synthesizer};
use encode_trace::Trace;
use repair_fixtures::{V, eval};

/// Example 2 with the paper's line numbers: the assertion of line 5 in the body.
const MAX: &str = "fn max(x: i32, y: i32) -> i32 {
    let mut r = x;
    if y > x {
        r = x;
    }
    assert!(r >= x && r >= y);
    r
}
";

fn i32(v: i128) -> Value {
    Value::Int {
        ty: "i32".into(),
        v,
    }
}

/// A run of `max(x, y)` the model follows from its inputs (no trace), which must not fail
/// the assertion.
fn call(x: i128, y: i128) -> Call<'static> {
    Call {
        test: format!("max({x}, {y})"),
        role: Role::Failing,
        function: "max".into(),
        args: vec![("x".into(), i32(x)), ("y".into(), i32(y))],
        trace: None,
        spec: Spec::failing(None),
    }
}

fn site(program: &Program, function: &str, line: u32, kind: SiteKind) -> SiteKey {
    let f = program.function(function).unwrap();
    let c = f
        .components()
        .into_iter()
        .find(|c| c.site.span.start.line == line && c.site.kind == kind)
        .unwrap();
    SiteKey {
        file: program.file.clone(),
        line,
        column: c.site.span.start.column,
        kind,
    }
}

fn take(synth: &mut Synthesizer, n: usize) -> Vec<Candidate> {
    let out: Vec<Candidate> = synth.take(n).collect();
    for c in &out {
        let edits: Vec<String> = c
            .edits
            .iter()
            .map(|e| format!("line {}: `{}` [{}]", e.site.line, e.rust, e.template))
            .collect();
        println!("{} (cost {})", edits.join(", "), c.cost);
    }
    out
}

/// `max` with `c1` (line 2), `c3` (line 3) and `c2` (line 4) replaced where a candidate has an
/// edit: whether the assertion holds on `(x, y)`.
fn max_holds(candidate: &Candidate, x: i128, y: i128) -> bool {
    let edit = |line: u32| candidate.edits.iter().find(|e| e.site.line == line);
    let int = |v: Option<V>| match v {
        Some(V::Int(i)) => i,
        other => panic!("not an integer: {other:?}"),
    };
    let mut r = match edit(2) {
        Some(e) => int(eval(
            e.expr.as_ref().unwrap(),
            &[("x", V::Int(x)), ("y", V::Int(y))],
            Some(V::Int(x)),
        )),
        None => x,
    };
    let scope = [("x", V::Int(x)), ("y", V::Int(y)), ("r", V::Int(r))];
    let taken = match edit(3) {
        Some(e) => {
            eval(e.expr.as_ref().unwrap(), &scope, Some(V::Bool(y > x))) == Some(V::Bool(true))
        }
        None => y > x,
    };
    if taken {
        r = match edit(4) {
            Some(e) => int(eval(e.expr.as_ref().unwrap(), &scope, Some(V::Int(x)))),
            None => x,
        };
    }
    r >= x && r >= y
}

#[test]
fn max_with_the_second_assignment_diagnosed_is_repaired_to_r_equals_y() {
    let program = Program::from_source(MAX, "max.rs").unwrap();
    let c2 = site(&program, "max", 4, SiteKind::Assign);
    // The paper's first counterexample: x = 2, y = 4.
    let mut synth = Synthesizer::new(
        &program,
        &[call(2, 4)],
        std::slice::from_ref(&c2),
        Options::default(),
    );
    let found = take(&mut synth, 5);
    assert_eq!(found[0].edits.len(), 1);
    let first = &found[0].edits[0];
    assert_eq!(first.rust, "y");
    assert_eq!(first.template, "variable");
    assert_eq!(first.original, "x");
    assert_eq!(
        first.expr,
        Some(autodebug_runtime::protocol::Expr::Var { name: "y".into() })
    );
    // Every candidate agrees with the call it was synthesized from.
    for c in &found {
        assert!(max_holds(c, 2, 4), "{c:?}");
    }
    assert!(synth.report().cuts.is_empty(), "{:?}", synth.report());
}

#[test]
fn the_linear_template_prefers_y_to_y_plus_one() {
    let program = Program::from_source(MAX, "max.rs").unwrap();
    let c2 = site(&program, "max", 4, SiteKind::Assign);
    let options = Options {
        kinds: vec![Kind::Linear],
        ..Options::default()
    };
    let mut synth = Synthesizer::new(&program, &[call(2, 4)], &[c2], options);
    let found = take(&mut synth, 6);
    let texts: Vec<&str> = found.iter().map(|c| c.edits[0].rust.as_str()).collect();
    assert_eq!(texts[0], "y", "{texts:?}");
    assert_eq!(found[0].edits[0].template, "linear");
    if let Some(at) = texts.iter().position(|t| *t == "y + 1") {
        assert!(at > 0);
    }
    for c in &found {
        assert!(max_holds(c, 2, 4), "{c:?}");
    }
}

#[test]
fn the_first_assignment_and_the_condition_are_repaired_jointly() {
    let program = Program::from_source(MAX, "max.rs").unwrap();
    let c1 = site(&program, "max", 2, SiteKind::Let);
    let c3 = site(&program, "max", 3, SiteKind::If);
    let mut synth = Synthesizer::new(
        &program,
        &[call(2, 4), call(0, 1)],
        &[c1.clone(), c3.clone()],
        Options::default(),
    );
    let found = take(&mut synth, 6);
    assert!(!found.is_empty(), "{:?}", synth.report());
    for c in &found {
        assert_eq!(c.edits.len(), 2);
        assert_eq!(c.edits[0].site, c1);
        assert_eq!(c.edits[1].site, c3);
        assert!(max_holds(c, 2, 4) && max_holds(c, 0, 1), "{c:?}");
    }
    // One-token corrections of both come first: `let mut r = y;` and a condition that
    // keeps it.
    assert_eq!(found[0].edits[0].rust, "y");
    assert_eq!(found[0].cost, 2);
}

/// The paper's refinement loop (Fig. 3) with a validation that tries inputs: each
/// candidate wrong for some input is refuted with that input, until one is right for all.
#[test]
fn counterexamples_refine_the_candidates_until_one_is_correct() {
    // `r` should be `x + 1`; the first run only says what `inc(1)` is.
    let program = Program::from_source(
        "fn inc(x: i32) -> i32 {\n    let r = x * 3;\n    r\n}\n",
        "inc.rs",
    )
    .unwrap();
    let expecting = |x: i128| Call {
        test: format!("inc({x})"),
        role: Role::Failing,
        function: "inc".into(),
        args: vec![("x".into(), i32(x))],
        trace: None,
        spec: Spec {
            contracts: true,
            no_panic: true,
            ret: Expected::Value(Concrete::Int(x + 1)),
        },
    };
    let site = site(&program, "inc", 2, SiteKind::Let);
    let options = Options {
        kinds: vec![Kind::Linear],
        ..Options::default()
    };
    let mut synth = Synthesizer::new(&program, &[expecting(1)], &[site], options);
    let inputs = [0, 5, -7, 100, 2];
    let mut tried = Vec::new();
    let mut correct = None;
    for _ in 0..10 {
        let Some(candidate) = synth.next() else { break };
        let expr = candidate.edits[0].expr.clone().unwrap();
        tried.push(candidate.edits[0].rust.clone());
        let wrong = inputs.iter().find(|&&x| {
            eval(&expr, &[("x", V::Int(x))], Some(V::Int(3 * x))) != Some(V::Int(x + 1))
        });
        match wrong {
            Some(&x) => assert!(synth.refute(&candidate, &expecting(x))),
            None => {
                correct = Some(candidate);
                break;
            }
        }
    }
    println!("tried {tried:?}");
    let correct = correct.expect("the loop converges");
    assert_eq!(correct.edits[0].rust, "x + 1");
    assert!(
        tried.len() >= 2,
        "the first candidate already was right: {tried:?}"
    );
    // A refuted candidate never comes back.
    let mut unique = tried.clone();
    unique.dedup();
    assert_eq!(unique.len(), tried.len());
}

/// `max` with the paper's assertion as a postcondition, so that its sites are reported.
const MAX_ENSURES: &str = "#[ensures(ret >= x && ret >= y)] fn max(x: i32, y: i32) -> i32 {
    let mut r = x;
    if y > x {
        r = x;
    }
    r
}
";

#[test]
fn a_counterexample_recorded_under_the_candidate_is_encoded_from_its_arguments() {
    let program = Program::from_source(MAX_ENSURES, "max.rs").unwrap();
    let c2 = site(&program, "max", 4, SiteKind::Assign);
    let options = Options {
        kinds: vec![Kind::Linear],
        ..Options::default()
    };
    let mut synth = Synthesizer::new(&program, &[call(2, 4)], &[c2], options);
    let first = synth.next().expect("a candidate");
    // Validation reran `max(1, 2)` with the candidate in place of line 4 and (suppose) it
    // failed: its trace has the candidate's value at line 4, marked as replaced.
    let scope = [("x", i32(1)), ("y", i32(2))];
    let mut t = Trace::new(&program);
    t.enter("max", &scope)
        .value("max", 2, SiteKind::Let, i32(1), &scope)
        .branch("max", 3, SiteKind::If, true, &[i32(2), i32(1)])
        .value(
            "max",
            4,
            SiteKind::Assign,
            i32(7),
            &[("x", i32(1)), ("y", i32(2)), ("r", i32(1))],
        )
        .exit("max", false);
    for e in &mut t.events {
        if let Record::Component {
            overridden, value, ..
        } = e
            && *value == i32(7)
        {
            *overridden = true;
        }
    }
    let under_plan = Call {
        test: "max(1, 2) under the candidate".into(),
        role: Role::Failing,
        function: "max".into(),
        args: Vec::new(),
        trace: Some(t.call_trace()),
        spec: Spec::failing(None),
    };
    assert!(synth.refute(&first, &under_plan));
    let notes = &synth.report().calls;
    let [.., traced, untraced] = notes.as_slice() else {
        panic!("{notes:?}")
    };
    assert!(
        !traced.encoded && traced.reasons[0].contains("plan"),
        "{traced:?}"
    );
    assert!(untraced.encoded, "{untraced:?}");
    // Later candidates hold for the counterexample's inputs too, and the refuted one is gone.
    let rest = take(&mut synth, 4);
    assert!(!rest.is_empty());
    for c in &rest {
        assert_ne!(c.edits[0].rust, first.edits[0].rust);
        assert!(max_holds(c, 2, 4) && max_holds(c, 1, 2), "{c:?}");
    }
}
