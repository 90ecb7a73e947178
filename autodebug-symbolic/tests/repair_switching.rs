//! Condition repairs from a switched branch's instances (issue 6, item 6): the outcomes the
//! passing switched run needed are the specification; every candidate must compute them from
//! what each instance saw.

mod repair_fixtures;

use autodebug_runtime::protocol::{BinOp, Binding, Expr, SiteInfo, SiteKind, Value};
use autodebug_symbolic::repair::{Options, SwitchedInstance, explain_switch};
use repair_fixtures::{V, eval};

fn site(code: &str, kind: SiteKind) -> SiteInfo {
    SiteInfo {
        file: "src/lib.rs".into(),
        line: 15,
        column: 12,
        end_line: 15,
        end_column: 12 + code.chars().count() as u32,
        kind,
        code: code.into(),
        function: "max".into(),
    }
}

fn int(ty: &str, v: i128) -> Value {
    Value::Int { ty: ty.into(), v }
}

fn instance(
    scope: &[(&str, Value)],
    operands: &[Value],
    original: bool,
    wanted: bool,
) -> SwitchedInstance {
    SwitchedInstance {
        scope: scope
            .iter()
            .map(|(n, v)| (n.to_string(), v.clone()))
            .collect::<Vec<Binding>>(),
        operands: operands.to_vec(),
        original,
        wanted,
    }
}

/// Whether a candidate's runtime expression computes the wanted outcome at every instance.
fn computes(expr: &autodebug_runtime::protocol::Expr, instances: &[SwitchedInstance]) -> bool {
    instances.iter().all(|i| {
        let value = |v: &Value| match v {
            Value::Int { v, .. } => V::Int(*v),
            Value::Bool(b) => V::Bool(*b),
            _ => V::Int(0),
        };
        let names = ["#0", "#1"];
        let env: Vec<(&str, V)> = i
            .scope
            .iter()
            .map(|(n, v)| (n.as_str(), value(v)))
            .chain(names.iter().zip(&i.operands).map(|(n, v)| (*n, value(v))))
            .collect();
        eval(expr, &env, Some(V::Bool(i.original))) == Some(V::Bool(i.wanted))
    })
}

#[test]
fn the_comparison_of_the_same_operands_with_another_operator() {
    // `s > a[i]` in a loop keeping the maximum: the switched run needed `s < a[i]`.
    let site = site("s > a[i]", SiteKind::If);
    let scope = |s, i| [("s", int("i32", s)), ("i", int("usize", i))];
    let instances = vec![
        instance(&scope(1, 1), &[int("i32", 1), int("i32", 5)], false, true),
        instance(&scope(5, 2), &[int("i32", 5), int("i32", 3)], true, false),
        instance(&scope(5, 3), &[int("i32", 5), int("i32", 9)], false, true),
        // Equal: neither `>` nor `<`, so not every instance was switched.
        instance(&scope(9, 4), &[int("i32", 9), int("i32", 9)], false, false),
    ];
    let out = explain_switch(&site, &instances, &Options::default());
    for c in &out.candidates {
        println!(
            "`{}` [{}] {:?}",
            c.edits[0].rust, c.edits[0].template, c.edits[0].note
        );
    }
    let first = &out.candidates[0].edits[0];
    assert_eq!(first.rust, "s < a[i]");
    assert_eq!(first.template, "relational-operator");
    // `a[i]` is no variable in scope, but the comparison's right operand: the runtime
    // compares the operands the hook reports.
    assert_eq!(
        first.expr,
        Some(Expr::Binary {
            op: BinOp::Lt,
            left: Box::new(Expr::Operand { index: 0 }),
            right: Box::new(Expr::Operand { index: 1 }),
        })
    );
    assert!(computes(first.expr.as_ref().unwrap(), &instances));
    // The equal operands rule out `<=` (and the negation, which is `<=` too).
    for wrong in ["s <= a[i]", "s >= a[i]", "!(s > a[i])"] {
        assert!(
            !out.candidates.iter().any(|c| c.edits[0].rust == wrong),
            "{wrong}"
        );
    }
}

#[test]
fn a_condition_over_the_variables_in_scope() {
    let site = site("lo < hi", SiteKind::While);
    let scope = |lo, hi| [("lo", int("usize", lo)), ("hi", int("usize", hi))];
    // `lo <= hi` was meant: the last iteration, with lo == hi, must run.
    let instances = vec![
        instance(
            &scope(0, 4),
            &[int("usize", 0), int("usize", 4)],
            true,
            true,
        ),
        instance(
            &scope(3, 4),
            &[int("usize", 3), int("usize", 4)],
            true,
            true,
        ),
        instance(
            &scope(4, 4),
            &[int("usize", 4), int("usize", 4)],
            false,
            true,
        ),
        instance(
            &scope(5, 4),
            &[int("usize", 5), int("usize", 4)],
            false,
            false,
        ),
    ];
    let out = explain_switch(&site, &instances, &Options::default());
    for c in &out.candidates {
        println!("`{}` [{}]", c.edits[0].rust, c.edits[0].template);
    }
    assert_eq!(out.candidates[0].edits[0].rust, "lo <= hi");
    assert_eq!(out.candidates[0].edits[0].template, "relational-operator");
    // Over scope variables: the runtime can evaluate every candidate, and each one computes
    // the wanted outcomes.
    assert!(out.candidates.len() > 1);
    for c in &out.candidates {
        let expr = c.edits[0].expr.as_ref().expect("a runtime expression");
        assert!(computes(expr, &instances), "{c:?}");
    }
    assert!(
        out.candidates
            .iter()
            .any(|c| c.edits[0].template == "condition")
    );
}

#[test]
fn every_instance_switched_is_the_negation() {
    let site = site("done || x > 3", SiteKind::If);
    let scope = |x| [("x", int("i32", x)), ("done", Value::Bool(false))];
    let instances = vec![
        instance(&scope(5), &[], true, false),
        instance(&scope(1), &[], false, true),
    ];
    let out = explain_switch(&site, &instances, &Options::default());
    assert_eq!(out.candidates[0].edits[0].rust, "!(done || x > 3)");
    assert_eq!(out.candidates[0].edits[0].template, "negation");
    for c in &out.candidates {
        if let Some(expr) = &c.edits[0].expr {
            assert!(computes(expr, &instances), "{c:?}");
        }
    }
}

#[test]
fn instances_that_saw_the_same_values_but_needed_different_outcomes_have_no_condition() {
    let site = site("x > 3", SiteKind::If);
    let scope = [("x", int("i32", 5))];
    let instances = vec![
        instance(&scope, &[int("i32", 5), int("i32", 3)], true, true),
        instance(&scope, &[int("i32", 5), int("i32", 3)], true, false),
    ];
    let out = explain_switch(&site, &instances, &Options::default());
    assert!(out.candidates.is_empty());
    assert!(out.notes[0].contains("same values"), "{:?}", out.notes);

    let not_a_branch = explain_switch(
        &self::site("x + 1", SiteKind::Let),
        &instances,
        &Options::default(),
    );
    assert!(not_a_branch.candidates.is_empty());
    assert!(!not_a_branch.notes.is_empty());
    let nothing = explain_switch(&self::site("x > 3", SiteKind::If), &[], &Options::default());
    assert!(nothing.candidates.is_empty() && !nothing.notes.is_empty());
}
