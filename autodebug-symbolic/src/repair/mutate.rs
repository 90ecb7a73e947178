//! The one-token corrections of the AutoDebug paper's classes, as IR expressions: a
//! relational, arithmetic or boolean operator swapped, a negation added or removed, a
//! variable swapped for another of the same type in scope, a constant moved by one, a
//! clause of a condition dropped, a loop bound moved by one, an enum variant swapped for
//! another of its enum. Each is the written expression
//! with one node replaced, simplified where the change cancels (`n - 1` plus one is `n`).

use crate::ir::{BinOp, Expr, ExprKind, Function, IntType, Lit, Program, Type, UnOp, VarId};
use autodebug_runtime::protocol::SiteKind;
use autodebug_syntax::catalogue;

/// The kinds of one-token corrections, as [`super::Edit::template`] names them (the
/// catalogue's names, shared with the syntactic source).
pub(crate) use autodebug_syntax::catalogue::{
    ARITHMETIC, BOOLEAN, BOUND_STEP, CONSTANT_STEP, DROP_CLAUSE, ENUM_VARIANT, NEGATION,
    RELATIONAL, VARIABLE,
};

/// A corrected expression and the kind of correction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Variant {
    /// The expression the site computes instead.
    pub expr: Expr,
    /// Which correction it is.
    pub template: &'static str,
}

/// A position in an expression: the child indices from the root.
pub(crate) type Path = Vec<usize>;

/// Whether a correction may reach inside `e`: the operands of side-effect-free nodes only
/// (not a call's arguments, a sequence built or grown, a quantifier, `old`).
fn reachable_inside(e: &Expr) -> bool {
    matches!(
        e.kind,
        ExprKind::Unary(..)
            | ExprKind::Cast(_)
            | ExprKind::Len(_)
            | ExprKind::Field(..)
            | ExprKind::TupleField(..)
            | ExprKind::IsSome(_)
            | ExprKind::Unwrap(_)
            | ExprKind::OptionSome(_)
            | ExprKind::Branch(..)
            | ExprKind::Binary(..)
            | ExprKind::Index(..)
            | ExprKind::If { .. }
            | ExprKind::Tuple(_)
    )
}

/// The direct children of `e` that a correction may reach.
pub(crate) fn children(e: &Expr) -> Vec<&Expr> {
    if reachable_inside(e) {
        e.operands()
    } else {
        Vec::new()
    }
}

fn child_mut(e: &mut Expr, i: usize) -> Option<&mut Expr> {
    if reachable_inside(e) {
        e.operands_mut().into_iter().nth(i)
    } else {
        None
    }
}

/// Every node of `e` with its path, outer first.
pub(crate) fn nodes(e: &Expr) -> Vec<(Path, &Expr)> {
    let mut out = Vec::new();
    let mut todo = vec![(Vec::new(), e)];
    while let Some((path, node)) = todo.pop() {
        for (i, c) in children(node).into_iter().enumerate().rev() {
            let mut p = path.clone();
            p.push(i);
            todo.push((p, c));
        }
        out.push((path, node));
    }
    out
}

/// `e` with the node at `path` replaced by `by`.
pub(crate) fn replace(e: &Expr, path: &[usize], by: Expr) -> Expr {
    let mut out = e.clone();
    let mut at = &mut out;
    for &i in path {
        match child_mut(at, i) {
            Some(c) => at = c,
            None => return out,
        }
    }
    *at = by;
    out
}

/// The correction variants of the expression `root` at a site of `kind`, in the order they
/// are tried: the kinds most likely at that kind of site first, outer nodes first. The
/// written expression itself and repeats are left out.
pub(crate) fn variants(
    program: &Program,
    function: &Function,
    scope: &[VarId],
    kind: SiteKind,
    root: &Expr,
) -> Vec<Variant> {
    let mut by = ByOperator::default();
    if kind == SiteKind::Bound
        && let Type::Int(t) = root.ty
    {
        for step in [1, -1] {
            by.push(BOUND_STEP, add_constant(root, step, t));
        }
    }
    if root.ty == Type::Bool {
        let negated = match &root.kind {
            ExprKind::Unary(UnOp::Not, inner) => (**inner).clone(),
            // A person writes `false`, not `!true`.
            ExprKind::Lit(Lit::Bool(b)) => Expr {
                kind: ExprKind::Lit(Lit::Bool(!b)),
                ty: Type::Bool,
            },
            _ => Expr {
                kind: ExprKind::Unary(UnOp::Not, Box::new(root.clone())),
                ty: Type::Bool,
            },
        };
        by.push(NEGATION, negated);
    }
    for (path, node) in nodes(root) {
        let at = |by: Expr| replace(root, &path, by);
        node_variants(
            program,
            function,
            scope,
            (node, !path.is_empty()),
            &at,
            &mut by,
        );
    }
    by.ordered(kind, root)
}

/// The mutants of one site, by operator, in the order they were made.
#[derive(Default)]
struct ByOperator(Vec<(&'static str, Vec<Expr>)>);

impl ByOperator {
    fn push(&mut self, operator: &'static str, e: Expr) {
        match self.0.iter_mut().find(|(n, _)| *n == operator) {
            Some((_, list)) => list.push(e),
            None => self.0.push((operator, vec![e])),
        }
    }

    /// The distinct mutants (simplified, none equal to the site's expression or comparing
    /// an operand with itself), operator by operator in the order that suits the site.
    fn ordered(&self, kind: SiteKind, root: &Expr) -> Vec<Variant> {
        let condition = kind.is_branch() || root.ty == Type::Bool;
        let order: &[&str] = match kind {
            SiteKind::Bound => &[BOUND_STEP, CONSTANT_STEP, ARITHMETIC, VARIABLE],
            _ if condition => &[
                RELATIONAL,
                VARIABLE,
                CONSTANT_STEP,
                ENUM_VARIANT,
                BOOLEAN,
                DROP_CLAUSE,
                NEGATION,
                ARITHMETIC,
            ],
            _ => &[
                VARIABLE,
                CONSTANT_STEP,
                ENUM_VARIANT,
                ARITHMETIC,
                RELATIONAL,
                BOOLEAN,
                DROP_CLAUSE,
                NEGATION,
            ],
        };
        let mut out: Vec<Variant> = Vec::new();
        for k in order {
            let Some((_, list)) = self.0.iter().find(|(n, _)| n == k) else {
                continue;
            };
            for e in list {
                let e = simplify(e);
                if e != *root && !out.iter().any(|v| v.expr == e) && !compares_itself(&e) {
                    out.push(Variant {
                        expr: e,
                        template: k,
                    });
                }
            }
        }
        out
    }
}

/// The mutants of one node of a site's expression (`inner`: not the site's root), each
/// the whole expression with the node replaced (`at`).
fn node_variants(
    program: &Program,
    function: &Function,
    scope: &[VarId],
    (node, inner): (&Expr, bool),
    at: &impl Fn(Expr) -> Expr,
    by: &mut ByOperator,
) {
    match &node.kind {
        ExprKind::Binary(op, a, b) => binary_variants(node, (*op, a, b), at, by),
        ExprKind::Unary(UnOp::Not, operand) if inner && node.ty == Type::Bool => {
            by.push(NEGATION, at((**operand).clone()));
        }
        ExprKind::Unary(UnOp::Neg, operand) => by.push(ARITHMETIC, at((**operand).clone())),
        ExprKind::Lit(Lit::Int(v)) => {
            if let Type::Int(t) = node.ty {
                for w in [v + 1, v - 1] {
                    if fits(w, t) {
                        by.push(CONSTANT_STEP, at(Expr::int(w, node.ty.clone())));
                    }
                }
            }
        }
        ExprKind::Variant(name, written) => {
            for other in program.enum_def(name).map_or(&[][..], |d| &d.variants[..]) {
                if other != written {
                    by.push(
                        ENUM_VARIANT,
                        at(Expr {
                            kind: ExprKind::Variant(name.clone(), other.clone()),
                            ty: node.ty.clone(),
                        }),
                    );
                }
            }
        }
        ExprKind::Var(v) => {
            let ty = &function.var(*v).ty;
            for &w in scope {
                if w != *v && function.var(w).ty == *ty && !ty.is_opaque() {
                    by.push(VARIABLE, at(Expr::var(w, ty.clone())));
                }
            }
        }
        _ => {}
    }
}

/// The mutants of a binary node: another relational, arithmetic or boolean operator, a
/// clause dropped, `min` for `max`.
fn binary_variants(
    node: &Expr,
    (op, a, b): (BinOp, &Expr, &Expr),
    at: &impl Fn(Expr) -> Expr,
    by: &mut ByOperator,
) {
    let with = |op2: BinOp| Expr {
        kind: ExprKind::Binary(op2, Box::new(a.clone()), Box::new(b.clone())),
        ty: node.ty.clone(),
    };
    let ordered = matches!(a.ty, Type::Int(_) | Type::Char);
    for op2 in relational_alternatives(op, ordered) {
        by.push(RELATIONAL, at(with(op2)));
    }
    if node.ty.is_int() {
        for op2 in arithmetic_alternatives(op) {
            by.push(ARITHMETIC, at(with(op2)));
        }
    }
    if node.ty == Type::Bool {
        let swapped = match op {
            BinOp::And => Some(BinOp::Or),
            BinOp::Or => Some(BinOp::And),
            BinOp::BitAnd => Some(BinOp::BitOr),
            BinOp::BitOr => Some(BinOp::BitAnd),
            _ => None,
        };
        if let Some(op2) = swapped {
            by.push(BOOLEAN, at(with(op2)));
        }
        if matches!(op, BinOp::And | BinOp::Or) {
            by.push(DROP_CLAUSE, at(a.clone()));
            by.push(DROP_CLAUSE, at(b.clone()));
        }
    }
    if matches!(op, BinOp::Min | BinOp::Max) {
        let other = if op == BinOp::Min {
            BinOp::Max
        } else {
            BinOp::Min
        };
        by.push(ARITHMETIC, at(with(other)));
    }
}

/// Whether a comparison or arithmetic node has the same operand twice (`x > x`): a swap
/// that made it so computes a constant, which is no correction anyone writes.
fn compares_itself(e: &Expr) -> bool {
    nodes(e).iter().any(|(_, n)| {
        matches!(&n.kind, ExprKind::Binary(op, a, b)
            if a == b && !matches!(op, BinOp::Add | BinOp::Mul | BinOp::Min | BinOp::Max))
    })
}

/// The other comparisons the catalogue gives, nearest first; for values without an order,
/// only `==` ↔ `!=`.
fn relational_alternatives(op: BinOp, ordered: bool) -> Vec<BinOp> {
    let Some(op) = to_catalogue(op).filter(|o| !o.is_arithmetic()) else {
        return Vec::new();
    };
    if !ordered && !op.is_equality() {
        return Vec::new();
    }
    catalogue::swaps(op)
        .iter()
        .filter(|s| s.synthesis && (ordered || s.to.is_equality()))
        .map(|s| from_catalogue(s.to))
        .collect()
}

/// The other arithmetic operators the catalogue has template synthesis try, nearest first.
fn arithmetic_alternatives(op: BinOp) -> Vec<BinOp> {
    let Some(op) = to_catalogue(op).filter(|o| o.is_arithmetic()) else {
        return Vec::new();
    };
    catalogue::swaps(op)
        .iter()
        .filter(|s| s.synthesis)
        .map(|s| from_catalogue(s.to))
        .collect()
}

/// The catalogue's name of an IR operator it swaps.
fn to_catalogue(op: BinOp) -> Option<catalogue::Op> {
    catalogue::Op::parse(op.symbol())
}

/// The IR operator of a catalogue operator.
fn from_catalogue(op: catalogue::Op) -> BinOp {
    use BinOp::*;
    [Add, Sub, Mul, Div, Rem, Lt, Le, Gt, Ge, Eq, Ne]
        .into_iter()
        .find(|b| b.symbol() == op.symbol())
        .expect("the IR has every operator of the catalogue")
}

fn fits(v: i128, t: IntType) -> bool {
    v >= t.min_value() && t.max_value().is_none_or(|max| v <= max)
}

/// `e + step` (a negative step subtracts).
pub(crate) fn add_constant(e: &Expr, step: i128, t: IntType) -> Expr {
    let (op, by) = if step >= 0 {
        (BinOp::Add, step)
    } else {
        (BinOp::Sub, -step)
    };
    simplify(&Expr {
        kind: ExprKind::Binary(
            op,
            Box::new(e.clone()),
            Box::new(Expr::int(by, Type::Int(t))),
        ),
        ty: e.ty.clone(),
    })
}

/// Folds what a correction leaves cancelling: `e + 0`, `e - 0`, `(e - a) + b`, `(e + a) - b`
/// and double negations.
pub(crate) fn simplify(e: &Expr) -> Expr {
    let kids: Vec<Expr> = children(e).into_iter().map(simplify).collect();
    let mut out = e.clone();
    for (i, k) in kids.into_iter().enumerate() {
        if let Some(slot) = child_mut(&mut out, i) {
            *slot = k;
        }
    }
    match &out.kind {
        ExprKind::Unary(UnOp::Not, inner) => {
            if let ExprKind::Unary(UnOp::Not, x) = &inner.kind {
                return (**x).clone();
            }
            out
        }
        ExprKind::Binary(op @ (BinOp::Add | BinOp::Sub), a, b) => {
            let Some(c) = int_lit(b) else { return out };
            if c == 0 {
                return (**a).clone();
            }
            // (x ± a) ± c with both constants: one constant.
            if let ExprKind::Binary(inner @ (BinOp::Add | BinOp::Sub), x, k) = &a.kind
                && let Some(k) = int_lit(k)
                && let Type::Int(t) = out.ty
            {
                let sign = |o: &BinOp| if *o == BinOp::Add { 1 } else { -1 };
                let total = sign(inner) * k + sign(op) * c;
                if total == 0 {
                    return (**x).clone();
                }
                let (op2, m) = if total > 0 {
                    (BinOp::Add, total)
                } else {
                    (BinOp::Sub, -total)
                };
                if fits(m, t) {
                    return Expr {
                        kind: ExprKind::Binary(
                            op2,
                            x.clone(),
                            Box::new(Expr::int(m, out.ty.clone())),
                        ),
                        ty: out.ty.clone(),
                    };
                }
            }
            out
        }
        _ => out,
    }
}

fn int_lit(e: &Expr) -> Option<i128> {
    match e.kind {
        ExprKind::Lit(Lit::Int(v)) => Some(v),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn synthesis_tries_the_catalogues_near_operators() {
        use BinOp::*;
        let arithmetic: Vec<Vec<BinOp>> = [Add, Sub, Mul, Div, Rem]
            .into_iter()
            .map(arithmetic_alternatives)
            .collect();
        assert_eq!(
            arithmetic,
            [
                vec![Sub, Mul],
                vec![Add],
                vec![Div, Add],
                vec![Mul, Rem],
                vec![Div]
            ]
        );
        assert_eq!(relational_alternatives(Lt, true), [Le, Gt, Ge, Ne, Eq]);
        assert_eq!(relational_alternatives(Eq, true), [Ne, Le, Ge, Lt, Gt]);
        assert_eq!(relational_alternatives(Eq, false), [Ne]);
        assert!(relational_alternatives(Lt, false).is_empty());
        assert!(relational_alternatives(Add, true).is_empty());
        assert!(arithmetic_alternatives(Lt).is_empty());
    }

    fn body_return(source: &str) -> (Program, Expr) {
        let program = Program::from_source(source, "t.rs").unwrap();
        let f = &program.functions[0];
        let e = f
            .components()
            .into_iter()
            .find(|c| c.site.kind == SiteKind::Return)
            .map(|_| match f.body.last() {
                Some(crate::ir::Stmt::Return { value: Some(e), .. }) => e.clone(),
                other => panic!("{other:?}"),
            })
            .unwrap();
        (program, e)
    }

    #[test]
    fn cancelling_steps_fold_away() {
        let (_, e) = body_return("fn f(n: usize) -> usize {\n    n - 1\n}\n");
        let t = IntType::Usize;
        let ExprKind::Binary(BinOp::Sub, n, _) = &e.kind else {
            panic!("{e:?}")
        };
        assert_eq!(add_constant(&e, 1, t), **n);
        let minus_two = add_constant(&e, -1, t);
        assert!(matches!(&minus_two.kind, ExprKind::Binary(BinOp::Sub, a, b)
                if **a == **n && matches!(b.kind, ExprKind::Lit(Lit::Int(2)))));
        let not_not = Expr {
            kind: ExprKind::Unary(
                UnOp::Not,
                Box::new(Expr {
                    kind: ExprKind::Unary(UnOp::Not, Box::new(Expr::bool(true))),
                    ty: Type::Bool,
                }),
            ),
            ty: Type::Bool,
        };
        assert_eq!(simplify(&not_not), Expr::bool(true));
    }

    #[test]
    fn conditions_try_operators_first_values_try_variables_first() {
        let (program, e) = body_return("fn f(x: i32, y: i32, z: i32) -> bool {\n    x < y\n}\n");
        let f = &program.functions[0];
        let found = variants(&program, f, &f.params, SiteKind::If, &e);
        let kinds: Vec<&str> = found.iter().map(|v| v.template).collect();
        assert_eq!(&kinds[..5], &[RELATIONAL; 5]);
        // `<` becomes `<=` before anything else; no swap compares a variable with itself.
        assert!(
            matches!(found[0].expr.kind, ExprKind::Binary(BinOp::Le, ..)),
            "{:?}",
            found[0]
        );
        assert!(found.iter().all(|v| !compares_itself(&v.expr)));
        assert!(kinds.contains(&VARIABLE) && kinds.contains(&NEGATION));

        let (program, e) = body_return("fn g(x: i32, y: i32) -> i32 {\n    x + 1\n}\n");
        let f = &program.functions[0];
        let found = variants(&program, f, &f.params, SiteKind::Return, &e);
        assert_eq!(found[0].template, VARIABLE);
        assert!(found.iter().any(|v| v.template == CONSTANT_STEP));
        assert!(found.iter().any(|v| v.template == ARITHMETIC));
        // No variant is the written expression.
        assert!(found.iter().all(|v| v.expr != e));
    }
}
