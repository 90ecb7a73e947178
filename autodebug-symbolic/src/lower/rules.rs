//! The instrumentation's choices, restated: which `let`s and assignments it reports, which
//! conditions are chains of operands, which `for` loops have a bound, which values it
//! leaves alone because they diverge. They follow `autodebug-macros/src/instrument.rs`
//! rule for rule (the site-position test compares the two on every example and corpus
//! file), so that every site the IR names is one a trace can name.

use syn::{BinOp, Block, Expr, Pat, ReturnType, Stmt, Type};

/// Whether `return e` and the tail expression are reported: not when the function returns
/// `()` or `!`.
pub(crate) fn returns_value(output: &ReturnType) -> bool {
    match output {
        ReturnType::Default => false,
        ReturnType::Type(_, ty) => {
            !matches!(strip_type(ty), Type::Never(_))
                && !matches!(strip_type(ty), Type::Tuple(t) if t.elems.is_empty())
        }
    }
}

fn strip_type(ty: &Type) -> &Type {
    match ty {
        Type::Paren(p) => strip_type(&p.elem),
        Type::Group(g) => strip_type(&g.elem),
        other => other,
    }
}

/// Parentheses and invisible groups removed.
pub(crate) fn strip(expr: &Expr) -> &Expr {
    match expr {
        Expr::Paren(p) => strip(&p.expr),
        Expr::Group(g) => strip(&g.expr),
        other => other,
    }
}

/// A `&&`/`||` chain, whose operands are reported one by one.
pub(crate) fn is_chain(expr: &Expr) -> bool {
    matches!(strip(expr), Expr::Binary(b) if matches!(b.op, BinOp::And(_) | BinOp::Or(_)))
}

/// Whether a condition is, or chains, a `let` (`if let`, let-chains): then only its
/// non-`let` operands are reported.
pub(crate) fn contains_let(expr: &Expr) -> bool {
    match expr {
        Expr::Let(_) => true,
        Expr::Binary(b) if matches!(b.op, BinOp::And(_) | BinOp::Or(_)) => {
            contains_let(&b.left) || contains_let(&b.right)
        }
        Expr::Group(g) => contains_let(&g.expr),
        _ => false,
    }
}

/// The single variable a pattern binds by value (`x`, `mut x`, `x: T`), with its type.
pub(crate) fn simple_binding(pat: &Pat) -> Option<(&syn::Ident, Option<&Type>)> {
    match pat {
        Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => Some((&p.ident, None)),
        Pat::Type(t) => match &*t.pat {
            Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
                Some((&p.ident, Some(&t.ty)))
            }
            _ => None,
        },
        _ => None,
    }
}

/// Whether the `let` with this pattern and initializer is reported (`Let`): the macro
/// leaves alone `let`s that bind part of a place or borrow a temporary.
pub(crate) fn reports_let(pat: &Pat, init: &Expr) -> bool {
    let by_value = simple_binding(pat).is_some();
    !extends_temporary(init) && (by_value || !is_place(init)) && !diverges(init)
}

/// Whether the assignment `left = right` is reported (`Assign`): not a destructuring
/// assignment from a place.
pub(crate) fn reports_assign(left: &Expr, right: &Expr) -> bool {
    (!is_place(right) || is_place(left)) && !diverges(right)
}

/// Whether `expr` denotes a place (a variable, a field, an element, a dereference).
pub(crate) fn is_place(expr: &Expr) -> bool {
    match expr {
        Expr::Path(_) | Expr::Field(_) | Expr::Index(_) => true,
        Expr::Unary(u) => matches!(u.op, syn::UnOp::Deref(_)),
        Expr::Paren(p) => is_place(&p.expr),
        Expr::Group(g) => is_place(&g.expr),
        _ => false,
    }
}

/// Whether `expr` is a place inside a variable (`x`, `x.f[i]`, `*x`).
fn rooted_in_variable(expr: &Expr) -> bool {
    match expr {
        Expr::Path(_) => true,
        Expr::Field(f) => rooted_in_variable(&f.base),
        Expr::Index(i) => rooted_in_variable(&i.expr),
        Expr::Unary(u) => matches!(u.op, syn::UnOp::Deref(_)) && rooted_in_variable(&u.expr),
        Expr::Paren(p) => rooted_in_variable(&p.expr),
        Expr::Group(g) => rooted_in_variable(&g.expr),
        _ => false,
    }
}

/// Whether a `let` initializer borrows a temporary whose lifetime the `let` extends.
fn extends_temporary(expr: &Expr) -> bool {
    match expr {
        Expr::Reference(r) => !rooted_in_variable(&r.expr),
        Expr::RawAddr(_) => true,
        Expr::Tuple(t) => t.elems.iter().any(extends_temporary),
        Expr::Array(a) => a.elems.iter().any(extends_temporary),
        Expr::Struct(s) => {
            s.fields.iter().any(|f| extends_temporary(&f.expr))
                || s.rest.as_deref().is_some_and(extends_temporary)
        }
        Expr::Call(c) => c.args.iter().any(extends_temporary),
        Expr::Paren(p) => extends_temporary(&p.expr),
        Expr::Group(g) => extends_temporary(&g.expr),
        Expr::Cast(c) => extends_temporary(&c.expr),
        Expr::Block(b) => block_extends_temporary(&b.block),
        Expr::Unsafe(u) => block_extends_temporary(&u.block),
        Expr::If(i) => {
            block_extends_temporary(&i.then_branch)
                || i.else_branch
                    .as_ref()
                    .is_some_and(|(_, e)| extends_temporary(e))
        }
        Expr::Match(m) => m.arms.iter().any(|arm| extends_temporary(&arm.body)),
        _ => false,
    }
}

fn block_extends_temporary(block: &Block) -> bool {
    match block.stmts.last() {
        Some(Stmt::Expr(tail, None)) => extends_temporary(tail),
        _ => false,
    }
}

/// Expressions of type `!` that the macro does not wrap.
pub(crate) fn diverges(expr: &Expr) -> bool {
    match expr {
        Expr::Return(_) | Expr::Break(_) | Expr::Continue(_) => true,
        Expr::Macro(m) => is_panic_macro(&m.mac),
        Expr::Paren(p) => diverges(&p.expr),
        Expr::Group(g) => diverges(&g.expr),
        _ => false,
    }
}

/// `panic!`, `unreachable!`, `todo!`, `unimplemented!`.
pub(crate) fn is_panic_macro(mac: &syn::Macro) -> bool {
    mac.path.segments.last().is_some_and(|s| {
        ["panic", "unreachable", "todo", "unimplemented"]
            .iter()
            .any(|name| s.ident == name)
    })
}

/// The range a `for` loop iterates and whether it is walked backwards, looking through
/// parentheses and `.rev()`. Other adapters the macro looks through (`step_by`, `skip`,
/// `take`) are reported as `Some((range, None))`: the bound is a site, the iteration is
/// not modeled.
pub(crate) fn for_range(expr: &Expr) -> Option<(&syn::ExprRange, Option<bool>)> {
    match expr {
        Expr::Range(r) if r.end.is_some() => Some((r, Some(false))),
        Expr::Paren(p) => for_range(&p.expr),
        Expr::Group(g) => for_range(&g.expr),
        Expr::MethodCall(m)
            if ["rev", "step_by", "skip", "take"]
                .iter()
                .any(|name| m.method == name) =>
        {
            let inner = match &*m.receiver {
                Expr::Paren(p) => for_range(&p.expr),
                chained @ Expr::MethodCall(_) => for_range(chained),
                _ => None,
            }?;
            let reverse = match (m.method == "rev", inner.1) {
                (true, Some(rev)) if m.args.is_empty() => Some(!rev),
                _ => None,
            };
            Some((inner.0, reverse))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use syn::parse::Parser;

    fn expr(text: &str) -> Expr {
        syn::parse_str(text).expect("an expression")
    }

    #[test]
    fn lets_of_places_into_patterns_and_borrowed_temporaries_are_not_reported() {
        let pat = |text: &str| Pat::parse_single.parse_str(text).expect("a pattern");
        assert!(reports_let(&pat("x"), &expr("a + 1")));
        assert!(reports_let(&pat("x"), &expr("pair")));
        assert!(!reports_let(&pat("(a, b)"), &expr("pair")));
        assert!(reports_let(&pat("(a, b)"), &expr("(1, 2)")));
        assert!(!reports_let(&pat("v"), &expr("&make()")));
        assert!(reports_let(&pat("v"), &expr("&t.0")));
        assert!(!reports_let(&pat("x"), &expr("panic!()")));
        assert!(reports_assign(&expr("a[i]"), &expr("b")));
        assert!(!reports_assign(&expr("(a, b)"), &expr("pair")));
    }

    #[test]
    fn for_ranges_through_parentheses_and_rev() {
        let range = |text: &str| {
            for_range(&expr(text)).map(|(r, rev)| (quote::quote!(#r).to_string(), rev))
        };
        assert_eq!(range("0..n"), Some(("0 .. n".into(), Some(false))));
        assert_eq!(range("(0..n).rev()"), Some(("0 .. n".into(), Some(true))));
        assert_eq!(range("(0..n).step_by(2)"), Some(("0 .. n".into(), None)));
        assert_eq!(range("v.iter()"), None);
        assert_eq!(range("0.."), None);
    }

    #[test]
    fn chains_and_let_chains() {
        assert!(is_chain(&expr("(a && b)")));
        assert!(!is_chain(&expr("!(a && b)")));
        assert!(contains_let(&expr("let Some(x) = o && x > 0")));
        assert!(!returns_value(&syn::parse_quote!(-> ())));
        assert!(returns_value(&syn::parse_quote!(-> u8)));
    }
}
