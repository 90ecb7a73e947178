//! One test per kind of repair template, on small functions run by the model from their
//! arguments: the candidate the test expects comes first among its kind, every candidate
//! agrees with the calls (checked by evaluating its runtime expression on them), and what
//! the templates cannot handle is said, never a panic.

mod repair_fixtures;

use autodebug_runtime::protocol::{SiteKey, SiteKind, Value};
use autodebug_symbolic::conflicts::Role;
use autodebug_symbolic::encode::{Call, Concrete, Expected, Spec};
use autodebug_symbolic::ir::Program;
use autodebug_symbolic::repair::{Candidate, Kind, Options, Synthesizer};
use repair_fixtures::{V, eval};

fn int(ty: &str, v: i128) -> Value {
    Value::Int { ty: ty.into(), v }
}

/// A call of `function` with `args` that must return `expected`.
fn returns(
    function: &str,
    args: &[(&str, Value)],
    expected: Concrete,
    role: Role,
) -> Call<'static> {
    Call {
        test: format!("{function}{args:?}"),
        role,
        function: function.into(),
        args: args
            .iter()
            .map(|(n, v)| (n.to_string(), v.clone()))
            .collect(),
        trace: None,
        spec: Spec {
            contracts: true,
            no_panic: true,
            ret: Expected::Value(expected),
        },
    }
}

/// The component of `function` at `line` of `kind`.
fn site(program: &Program, function: &str, line: u32, kind: SiteKind) -> SiteKey {
    let c = program
        .function(function)
        .unwrap()
        .components()
        .into_iter()
        .find(|c| c.site.span.start.line == line && c.site.kind == kind)
        .unwrap_or_else(|| panic!("no {kind:?} component at line {line}"));
    SiteKey {
        file: program.file.clone(),
        line,
        column: c.site.span.start.column,
        kind,
    }
}

struct Case {
    source: &'static str,
    function: &'static str,
    line: u32,
    kind: SiteKind,
    /// Arguments (all scalars) and the expected result.
    calls: Vec<(Vec<(&'static str, Value)>, Concrete)>,
    kinds: Vec<Kind>,
    /// What the written function computes (calls it gets right are passing calls).
    written: fn(&[(&str, V)]) -> V,
}

fn scalars<'a>(args: &[(&'a str, Value)]) -> Vec<(&'a str, V)> {
    args.iter()
        .map(|(n, v)| {
            (
                *n,
                match v {
                    Value::Int { v, .. } => V::Int(*v),
                    Value::Bool(b) => V::Bool(*b),
                    _ => panic!("a scalar argument"),
                },
            )
        })
        .collect()
}

fn scalar(c: &Concrete) -> V {
    match c {
        Concrete::Int(v) => V::Int(*v),
        Concrete::Bool(b) => V::Bool(*b),
        _ => panic!("a scalar result"),
    }
}

impl Case {
    fn run(&self, n: usize) -> Vec<Candidate> {
        let program = Program::from_source(self.source, "case.rs").unwrap();
        let site = site(&program, self.function, self.line, self.kind);
        let calls: Vec<Call> = self
            .calls
            .iter()
            .map(|(args, expected)| {
                let role = if (self.written)(&scalars(args)) == scalar(expected) {
                    Role::Passing
                } else {
                    Role::Failing
                };
                returns(self.function, args, expected.clone(), role)
            })
            .collect();
        let options = Options {
            kinds: self.kinds.clone(),
            ..Options::default()
        };
        let mut synth = Synthesizer::new(&program, &calls, &[site], options);
        let found: Vec<Candidate> = synth.by_ref().take(n).collect();
        println!("{}: {:?}", self.function, synth.report());
        for c in &found {
            let e = &c.edits[0];
            println!(
                "  `{}` -> `{}` [{}] cost {}",
                e.original, e.rust, e.template, c.cost
            );
        }
        assert!(synth.report().calls.iter().all(|c| c.encoded));
        found
    }

    /// Whether a candidate that replaces the function's returned expression computes every
    /// expected result (evaluated on the arguments).
    fn agrees(&self, c: &Candidate) -> bool {
        let expr = c.edits[0].expr.as_ref().expect("a runtime expression");
        self.calls.iter().all(|(args, expected)| {
            let env = scalars(args);
            eval(expr, &env, Some((self.written)(&env))) == Some(scalar(expected))
        })
    }
}

fn flag(env: &[(&str, V)], name: &str) -> bool {
    match env.iter().find(|(n, _)| *n == name) {
        Some((_, V::Bool(b))) => *b,
        _ => panic!("{name}"),
    }
}

fn get(env: &[(&str, V)], name: &str) -> i128 {
    match env.iter().find(|(n, _)| *n == name) {
        Some((_, V::Int(v))) => *v,
        _ => panic!("{name}"),
    }
}

#[test]
fn relational_operator_swap() {
    let case = Case {
        source: "fn adult(age: u32) -> bool {\n    age > 18\n}\n",
        function: "adult",
        line: 2,
        kind: SiteKind::Return,
        calls: vec![
            (vec![("age", int("u32", 18))], Concrete::Bool(true)),
            (vec![("age", int("u32", 30))], Concrete::Bool(true)),
            (vec![("age", int("u32", 3))], Concrete::Bool(false)),
        ],
        written: |e| V::Bool(get(e, "age") > 18),
        kinds: vec![Kind::Mutation],
    };
    let found = case.run(3);
    assert_eq!(found[0].edits[0].rust, "age >= 18");
    assert_eq!(found[0].edits[0].template, "relational-operator");
    for c in &found {
        assert!(case.agrees(c), "{c:?}");
    }
}

#[test]
fn arithmetic_operator_swap() {
    let case = Case {
        source: "fn area(w: i32, h: i32) -> i32 {\n    w + h\n}\n",
        function: "area",
        line: 2,
        kind: SiteKind::Return,
        calls: vec![
            (
                vec![("w", int("i32", 2)), ("h", int("i32", 3))],
                Concrete::Int(6),
            ),
            (
                vec![("w", int("i32", 4)), ("h", int("i32", 5))],
                Concrete::Int(20),
            ),
        ],
        written: |e| V::Int(get(e, "w") + get(e, "h")),
        kinds: vec![Kind::Mutation],
    };
    let found = case.run(2);
    assert_eq!(found[0].edits[0].rust, "w * h");
    assert_eq!(found[0].edits[0].template, "arithmetic-operator");
    assert!(case.agrees(&found[0]));
}

#[test]
fn boolean_operator_swap_and_negation() {
    let both = Case {
        source: "fn both(a: bool, b: bool) -> bool {\n    a || b\n}\n",
        function: "both",
        line: 2,
        kind: SiteKind::Return,
        calls: vec![
            (
                vec![("a", Value::Bool(true)), ("b", Value::Bool(false))],
                Concrete::Bool(false),
            ),
            (
                vec![("a", Value::Bool(true)), ("b", Value::Bool(true))],
                Concrete::Bool(true),
            ),
        ],
        written: |e| V::Bool(flag(e, "a") || flag(e, "b")),
        kinds: vec![Kind::Mutation],
    };
    let found = both.run(1);
    assert_eq!(found[0].edits[0].rust, "a && b");
    assert_eq!(found[0].edits[0].template, "boolean-operator");

    let invert = Case {
        source: "fn invert(b: bool) -> bool {\n    b\n}\n",
        function: "invert",
        line: 2,
        kind: SiteKind::Return,
        calls: vec![
            (vec![("b", Value::Bool(true))], Concrete::Bool(false)),
            (vec![("b", Value::Bool(false))], Concrete::Bool(true)),
        ],
        written: |e| V::Bool(flag(e, "b")),
        kinds: vec![Kind::Mutation],
    };
    let found = invert.run(2);
    assert_eq!(found.len(), 1, "only the negation computes it");
    assert_eq!(found[0].edits[0].rust, "!b");
    assert_eq!(found[0].edits[0].template, "negation");
}

#[test]
fn variable_swap_keeps_the_type() {
    let case = Case {
        source: "fn pick(a: i32, b: i32, n: u8) -> i32 {\n    let r = a;\n    r\n}\n",
        function: "pick",
        line: 2,
        kind: SiteKind::Let,
        calls: vec![(
            vec![
                ("a", int("i32", 1)),
                ("b", int("i32", 2)),
                ("n", int("u8", 2)),
            ],
            Concrete::Int(2),
        )],
        written: |e| V::Int(get(e, "a")),
        kinds: vec![Kind::Mutation],
    };
    let found = case.run(3);
    // `n` has the value wanted but another type: no swap to it.
    let texts: Vec<&str> = found.iter().map(|c| c.edits[0].rust.as_str()).collect();
    assert_eq!(texts, vec!["b"]);
    assert_eq!(found[0].edits[0].template, "variable");
}

#[test]
fn constant_moved_by_one_then_chosen_by_the_solver() {
    let succ = Case {
        source: "fn succ(x: i32) -> i32 {\n    x + 2\n}\n",
        function: "succ",
        line: 2,
        kind: SiteKind::Return,
        calls: vec![
            (vec![("x", int("i32", 1))], Concrete::Int(2)),
            (vec![("x", int("i32", 7))], Concrete::Int(8)),
        ],
        written: |e| V::Int(get(e, "x") + 2),
        kinds: vec![Kind::Mutation],
    };
    let found = succ.run(1);
    assert_eq!(found[0].edits[0].rust, "x + 1");
    assert_eq!(found[0].edits[0].template, "constant±1");

    let fee = Case {
        source: "fn fee(x: i32) -> i32 {\n    x * 3 + 10\n}\n",
        function: "fee",
        line: 2,
        kind: SiteKind::Return,
        calls: vec![
            (vec![("x", int("i32", 1))], Concrete::Int(103)),
            (vec![("x", int("i32", 2))], Concrete::Int(106)),
        ],
        written: |e| V::Int(get(e, "x") * 3 + 10),
        kinds: vec![Kind::Mutation, Kind::Constant],
    };
    let found = fee.run(1);
    assert_eq!(found[0].edits[0].rust, "x * 3 + 100");
    assert_eq!(found[0].edits[0].template, "constant");
    assert!(fee.agrees(&found[0]));
}

#[test]
fn a_clause_is_dropped() {
    let case = Case {
        source: "fn ok(x: i32, y: i32) -> bool {\n    x > 0 && y > 0\n}\n",
        function: "ok",
        line: 2,
        kind: SiteKind::Return,
        calls: vec![
            (
                vec![("x", int("i32", 1)), ("y", int("i32", -1))],
                Concrete::Bool(true),
            ),
            (
                vec![("x", int("i32", 4)), ("y", int("i32", 0))],
                Concrete::Bool(true),
            ),
            (
                vec![("x", int("i32", 2)), ("y", int("i32", 3))],
                Concrete::Bool(true),
            ),
            (
                vec![("x", int("i32", -1)), ("y", int("i32", 5))],
                Concrete::Bool(false),
            ),
        ],
        written: |e| V::Bool(get(e, "x") > 0 && get(e, "y") > 0),
        kinds: vec![Kind::Mutation],
    };
    let found = case.run(4);
    let dropped = found
        .iter()
        .find(|c| c.edits[0].template == "drop-clause")
        .expect("a dropped clause");
    assert_eq!(dropped.edits[0].rust, "x > 0");
    for c in &found {
        assert!(case.agrees(c), "{c:?}");
    }
}

#[test]
fn a_loop_bound_is_moved_by_one() {
    let case = Case {
        source: "fn count(n: usize) -> usize {
    let mut c = 0;
    for i in 0..n - 1 {
        c += 1;
    }
    c
}
",
        function: "count",
        line: 3,
        kind: SiteKind::Bound,
        calls: vec![
            (vec![("n", int("usize", 3))], Concrete::Int(3)),
            (vec![("n", int("usize", 1))], Concrete::Int(1)),
        ],
        written: |e| V::Int(get(e, "n") - 1),
        kinds: vec![Kind::Mutation],
    };
    let found = case.run(1);
    assert_eq!(found[0].edits[0].rust, "n");
    assert_eq!(found[0].edits[0].template, "loop-bound±1");
}

#[test]
fn linear_template_finds_coefficients() {
    let case = Case {
        source: "fn f(a: i32) -> i32 {\n    a\n}\n",
        function: "f",
        line: 2,
        kind: SiteKind::Return,
        calls: vec![
            (vec![("a", int("i32", 1))], Concrete::Int(3)),
            (vec![("a", int("i32", 2))], Concrete::Int(5)),
            (vec![("a", int("i32", -5))], Concrete::Int(-9)),
        ],
        written: |e| V::Int(get(e, "a")),
        kinds: vec![Kind::Linear],
    };
    let found = case.run(2);
    assert_eq!(found[0].edits[0].rust, "2 * a + 1");
    assert_eq!(found[0].edits[0].template, "linear");
    assert!(case.agrees(&found[0]));
    assert_eq!(found.len(), 1, "no other linear function computes it");
}

#[test]
fn linear_template_in_an_unsigned_type_subtracts_last() {
    let case = Case {
        source: "fn gap(a: u32, b: u32) -> u32 {\n    a\n}\n",
        function: "gap",
        line: 2,
        kind: SiteKind::Return,
        calls: vec![
            (
                vec![("a", int("u32", 10)), ("b", int("u32", 3))],
                Concrete::Int(8),
            ),
            (
                vec![("a", int("u32", 4)), ("b", int("u32", 0))],
                Concrete::Int(5),
            ),
            (
                vec![("a", int("u32", 6)), ("b", int("u32", 6))],
                Concrete::Int(1),
            ),
        ],
        written: |e| V::Int(get(e, "a")),
        kinds: vec![Kind::Linear],
    };
    let found = case.run(1);
    assert_eq!(found[0].edits[0].rust, "a + 1 - b");
    assert!(case.agrees(&found[0]));
}

#[test]
fn condition_template_compares_sums_of_positive_terms() {
    let case = Case {
        source: "fn before(x: i32, y: i32) -> bool {\n    x > 100\n}\n",
        function: "before",
        line: 2,
        kind: SiteKind::Return,
        calls: vec![
            (
                vec![("x", int("i32", 1)), ("y", int("i32", 2))],
                Concrete::Bool(true),
            ),
            (
                vec![("x", int("i32", 3)), ("y", int("i32", 1))],
                Concrete::Bool(false),
            ),
            (
                vec![("x", int("i32", 2)), ("y", int("i32", 2))],
                Concrete::Bool(false),
            ),
            (
                vec![("x", int("i32", -8)), ("y", int("i32", 40))],
                Concrete::Bool(true),
            ),
            (
                vec![("x", int("i32", 5)), ("y", int("i32", 9))],
                Concrete::Bool(true),
            ),
        ],
        written: |e| V::Bool(get(e, "x") > 100),
        kinds: vec![Kind::Condition],
    };
    let found = case.run(3);
    assert!(["y > x", "x < y"].contains(&found[0].edits[0].rust.as_str()));
    assert_eq!(found[0].edits[0].template, "condition");
    for c in &found {
        assert!(!c.edits[0].rust.contains('-'), "{}", c.edits[0].rust);
        assert!(case.agrees(c), "{c:?}");
    }
}

#[test]
fn a_clause_is_added_to_the_written_condition() {
    let case = Case {
        source: "fn small(x: i32) -> bool {\n    x > 0\n}\n",
        function: "small",
        line: 2,
        kind: SiteKind::Return,
        calls: vec![
            (vec![("x", int("i32", 5))], Concrete::Bool(true)),
            (vec![("x", int("i32", 50))], Concrete::Bool(false)),
            (vec![("x", int("i32", -3))], Concrete::Bool(false)),
        ],
        written: |e| V::Bool(get(e, "x") > 0),
        kinds: vec![Kind::Clause],
    };
    let found = case.run(2);
    assert!(found[0].edits[0].rust.starts_with("x > 0 && "), "{found:?}");
    assert_eq!(found[0].edits[0].template, "add-clause");
    for c in &found {
        assert!(case.agrees(c), "{c:?}");
    }
}

#[test]
fn unsupported_components_give_reasons_not_candidates() {
    // A float is outside the subset.
    let program =
        Program::from_source("fn half(x: f64) -> f64 {\n    x * 2.0\n}\n", "f.rs").unwrap();
    let site = site(&program, "half", 2, SiteKind::Return);
    let call = Call {
        test: "half".into(),
        role: Role::Failing,
        function: "half".into(),
        args: vec![(
            "x".into(),
            Value::Float {
                ty: "f64".into(),
                v: "1".into(),
            },
        )],
        trace: None,
        spec: Spec::failing(None),
    };
    let mut synth = Synthesizer::new(&program, &[call], &[site], Options::default());
    assert!(synth.next().is_none());
    println!("{:?}", synth.report());
    assert!(!synth.report().unsupported.is_empty());

    // A site that is no component, and a diagnosis without a failing call.
    let program = Program::from_source(
        "fn succ(x: i32) -> i32 {\n    x + 2\n}\nfn other(y: i32) -> i32 {\n    y\n}\n",
        "g.rs",
    )
    .unwrap();
    let nowhere = SiteKey {
        file: program.file.clone(),
        line: 40,
        column: 1,
        kind: SiteKind::Assign,
    };
    let ok = returns(
        "succ",
        &[("x", int("i32", 1))],
        Concrete::Int(2),
        Role::Failing,
    );
    let mut synth = Synthesizer::new(
        &program,
        std::slice::from_ref(&ok),
        &[nowhere],
        Options::default(),
    );
    assert!(synth.next().is_none());
    assert!(synth.report().unsupported[0].contains("not a component"));

    // A component no call runs.
    let unreached = self::site(&program, "other", 5, SiteKind::Return);
    let mut synth = Synthesizer::new(
        &program,
        &[ok],
        std::slice::from_ref(&unreached),
        Options::default(),
    );
    assert!(synth.next().is_none());
    assert!(synth.report().unsupported[0].contains("no encoded call"));

    // No call at all.
    let mut synth = Synthesizer::new(&program, &[], &[unreached], Options::default());
    assert!(synth.next().is_none());
    assert!(synth.report().unsupported[0].contains("no failing call"));
}

#[test]
fn the_budgets_and_the_template_step_limit_are_reported() {
    let case = Case {
        source: "fn f(a: i32) -> i32 {\n    a\n}\n",
        function: "f",
        line: 2,
        kind: SiteKind::Return,
        calls: vec![(vec![("a", int("i32", 1))], Concrete::Int(3))],
        written: |e| V::Int(get(e, "a")),
        kinds: vec![Kind::Linear],
    };
    let program = Program::from_source(case.source, "case.rs").unwrap();
    let site = site(&program, "f", 2, SiteKind::Return);
    let calls = vec![returns(
        "f",
        &[("a", int("i32", 1))],
        Concrete::Int(3),
        Role::Failing,
    )];
    let options = Options {
        budget: Some(std::time::Duration::ZERO),
        ..Options::default()
    };
    let mut synth = Synthesizer::new(&program, &calls, std::slice::from_ref(&site), options);
    assert!(synth.next().is_none());
    assert!(
        synth.report().cuts[0].contains("the time budget of 0.0 s"),
        "{:?}",
        synth.report()
    );

    let options = Options {
        budget_steps: Some(0),
        ..Options::default()
    };
    let mut synth = Synthesizer::new(&program, &calls, std::slice::from_ref(&site), options);
    assert!(synth.next().is_none());
    assert!(
        synth.report().cuts[0].contains("the budget of 0 solver steps"),
        "{:?}",
        synth.report()
    );

    let options = Options {
        template_steps: 0,
        kinds: case.kinds.clone(),
        ..Options::default()
    };
    let mut synth = Synthesizer::new(&program, &calls, &[site], options);
    assert!(synth.next().is_none());
    assert!(
        synth.report().cuts[0].contains("its 0 solver steps ran out"),
        "{:?}",
        synth.report()
    );
}

#[test]
fn a_wrong_enum_variant_is_swapped() {
    let program = Program::from_source(
        "#[derive(Clone, Copy, PartialEq, Debug)]
enum Light {
    Red,
    Amber,
    Green,
}

fn start() -> Light {
    Light::Red
}
",
        "light.rs",
    )
    .unwrap();
    let site = site(&program, "start", 9, SiteKind::Return);
    let call = returns(
        "start",
        &[],
        Concrete::Enum("Light".into(), "Green".into()),
        Role::Failing,
    );
    let mut synth = Synthesizer::new(&program, &[call], &[site], Options::default());
    let found: Vec<Candidate> = synth.by_ref().take(3).collect();
    println!("{:?}", synth.report());
    let texts: Vec<&str> = found.iter().map(|c| c.edits[0].rust.as_str()).collect();
    assert_eq!(texts, ["Light::Green"]);
    assert_eq!(found[0].edits[0].template, "enum-variant");
    // A replacement writes scalars only: this one is for a patch.
    assert_eq!(found[0].edits[0].expr, None);
    assert!(found[0].edits[0].note.is_some());
}
