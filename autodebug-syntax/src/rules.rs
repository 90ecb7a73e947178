//! The rules, one function each. The macro applies them while it rewrites a body; the
//! lowering while it builds the IR; [`crate::sites`] while it reads a file.

use syn::{BinOp, Block, Expr, Pat, ReturnType, Stmt, Type};

/// Whether `return e` and the tail expression are sites: not when the function returns `()`
/// (there is no value to report) or `!` (the tail never produces one).
pub fn returns_value(output: &ReturnType) -> bool {
    match output {
        ReturnType::Default => false,
        ReturnType::Type(_, ty) => {
            !matches!(strip_type(ty), Type::Never(_))
                && !matches!(strip_type(ty), Type::Tuple(t) if t.elems.is_empty())
        }
    }
}

/// A type without its parentheses and invisible groups.
pub fn strip_type(ty: &Type) -> &Type {
    match ty {
        Type::Paren(p) => strip_type(&p.elem),
        Type::Group(g) => strip_type(&g.elem),
        other => other,
    }
}

/// An expression without its parentheses and invisible groups.
pub fn strip(expr: &Expr) -> &Expr {
    match expr {
        Expr::Paren(p) => strip(&p.expr),
        Expr::Group(g) => strip(&g.expr),
        other => other,
    }
}

/// `&&` or `||`.
pub fn is_and_or(op: &BinOp) -> bool {
    matches!(op, BinOp::And(_) | BinOp::Or(_))
}

/// A `&&`/`||` chain, whose operands are `Operand` sites one by one.
pub fn is_chain(expr: &Expr) -> bool {
    matches!(strip(expr), Expr::Binary(b) if is_and_or(&b.op))
}

/// Whether a condition is, or chains, a `let` (`if let`, let-chains): then the condition is
/// no site, only its non-`let` operands are.
pub fn contains_let(expr: &Expr) -> bool {
    match expr {
        Expr::Let(_) => true,
        Expr::Binary(b) if is_and_or(&b.op) => contains_let(&b.left) || contains_let(&b.right),
        Expr::Group(g) => contains_let(&g.expr),
        _ => false,
    }
}

/// Written once for shared and for mutable access.
macro_rules! by_ref_and_mut {
    ($($m:ident)?; $chain_leaves:ident, $for_range:ident) => {
        /// The leaves of a condition's `&&`/`||` chain, left to right: each `let` (no site)
        /// and each other operand (an `Operand` site), through the parentheses and groups
        /// that hold a chain.
        pub fn $chain_leaves<'a>(
            expr: &'a $($m)? Expr,
            leaf: &mut impl FnMut(&'a $($m)? Expr),
        ) {
            if !is_chain_link(expr) {
                return leaf(expr);
            }
            match expr {
                Expr::Binary(b) => {
                    $chain_leaves(&$($m)? b.left, leaf);
                    $chain_leaves(&$($m)? b.right, leaf);
                }
                Expr::Paren(p) => $chain_leaves(&$($m)? p.expr, leaf),
                Expr::Group(g) => $chain_leaves(&$($m)? g.expr, leaf),
                _ => {}
            }
        }

        /// The range a `for` loop iterates, whose bounds are `Start` and `Bound` sites, and
        /// whether it is walked backwards, looking through parentheses and `.rev()`. Other
        /// adapters the macro looks through (`step_by`, `skip`, `take`) are reported as
        /// `Some((range, None))`: the bounds are sites, the iteration is not modeled.
        pub fn $for_range(
            expr: &$($m)? Expr,
        ) -> Option<(&$($m)? syn::ExprRange, Option<bool>)> {
            match expr {
                Expr::Range(r) if r.end.is_some() => Some((r, Some(false))),
                Expr::Paren(p) => $for_range(&$($m)? p.expr),
                Expr::Group(g) => $for_range(&$($m)? g.expr),
                Expr::MethodCall(m) if is_range_adapter(m) => {
                    let rev = m.method == "rev" && m.args.is_empty();
                    let inner = match &$($m)? *m.receiver {
                        Expr::Paren(p) => $for_range(&$($m)? p.expr),
                        chained @ Expr::MethodCall(_) => $for_range(chained),
                        _ => None,
                    }?;
                    let reverse = match (rev, inner.1) {
                        (true, Some(backwards)) => Some(!backwards),
                        _ => None,
                    };
                    Some((inner.0, reverse))
                }
                _ => None,
            }
        }
    };
}

by_ref_and_mut!(; chain_leaves, for_range);
by_ref_and_mut!(mut; chain_leaves_mut, for_range_mut);

/// Whether `expr` links the operands of a chain rather than being one: a `&&`/`||`, or the
/// parentheses or group around a chain (or, for a group, around a `let`).
fn is_chain_link(expr: &Expr) -> bool {
    match expr {
        Expr::Binary(b) => is_and_or(&b.op),
        Expr::Paren(p) => is_chain(&p.expr),
        Expr::Group(g) => is_chain(&g.expr) || contains_let(&g.expr),
        _ => false,
    }
}

/// `.rev()`, `.step_by(k)`, `.skip(k)`, `.take(k)`: adapters a `for` loop's range is found
/// through.
fn is_range_adapter(m: &syn::ExprMethodCall) -> bool {
    ["rev", "step_by", "skip", "take"]
        .iter()
        .any(|name| m.method == name)
}

/// The single variable a pattern binds by value (`x`, `mut x`, `x: T`), with its annotated
/// type.
pub fn simple_binding(pat: &Pat) -> Option<(&syn::Ident, Option<&Type>)> {
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

/// Whether the `let` with this pattern and initializer is a `Let` site. Passing the
/// initializer through a hook turns it into a value: a place (`let (a, _) = pair`, `let ref
/// mut r = x`, `let _ = s`) would be moved or copied instead of bound in part or by
/// reference, and a borrowed temporary (`let v = &f()`) would lose its lifetime extension.
/// Such `let`s are not sites, nor are those whose initializer diverges.
pub fn reports_let(pat: &Pat, init: &Expr) -> bool {
    let by_value = simple_binding(pat).is_some();
    !extends_temporary(init) && (by_value || !is_place(init)) && !diverges(init)
}

/// Whether the assignment `left = right` is an `Assign` site: not a destructuring assignment
/// from a place (`(a, _) = pair`, `_ = s` move only what their pattern names; through a hook
/// they would move it all), nor one whose value diverges.
pub fn reports_assign(left: &Expr, right: &Expr) -> bool {
    (!is_place(right) || is_place(left)) && !diverges(right)
}

/// Whether an argument of a call is an `Arg` site. A place is not (passed through
/// a hook it would be moved where the call reborrows or copies part of it), nor is a
/// closure or an `async`/`const` block (its type is inferred from the callee's signature,
/// which a generic wrapper hides), nor an expression that diverges.
pub fn is_effect_argument(arg: &Expr) -> bool {
    !is_place(arg)
        && !diverges(arg)
        && !matches!(
            arg,
            Expr::Closure(_) | Expr::Async(_) | Expr::Const(_) | Expr::Verbatim(_)
        )
}

/// Whether the value of a struct literal's field is an `Arg` site (the arguments of a
/// constructor, as a call's are): as an argument is, and holding no borrow (`&tmp()`, or a
/// literal that holds one): a `let` extends the life of a temporary borrowed in a struct
/// literal's field, and passed through a hook it would be dropped at the end of the
/// statement.
pub fn is_field_value(value: &Expr) -> bool {
    struct Borrows(bool);
    impl<'ast> syn::visit::Visit<'ast> for Borrows {
        fn visit_expr_reference(&mut self, _: &'ast syn::ExprReference) {
            self.0 = true;
        }
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
    }
    let mut borrows = Borrows(false);
    syn::visit::Visit::visit_expr(&mut borrows, value);
    is_effect_argument(value) && !borrows.0 && !matches!(value, Expr::Macro(_))
}

/// Whether a returned expression (a function's tail, or a tail reached from it) is itself
/// the value, a `Return` site when it does not diverge, rather than something to descend
/// into (`if`, `match`, blocks: their own tails are the values) or control flow.
pub fn is_returned_value(expr: &Expr) -> bool {
    match expr {
        // Their own tails are the values.
        Expr::If(_) | Expr::Match(_) | Expr::Unsafe(_) | Expr::Group(_) => false,
        Expr::Block(b) => b.label.is_some(),
        // Control flow.
        Expr::Return(_) | Expr::Break(_) | Expr::Continue(_) => false,
        Expr::Loop(_) | Expr::While(_) | Expr::ForLoop(_) => false,
        _ => true,
    }
}

/// Whether a call statement (`v.sort();`, `out.push(x);`, `w.flush()?;`) is itself a
/// `Call` site: one none of whose arguments is an `Arg` site. Its hook says the call
/// returned, so that the statement is covered and ranked, and a fix may delete it or put a
/// call beside it.
pub fn reports_call(expr: &Expr) -> bool {
    let args = match expr {
        Expr::MethodCall(call) => &call.args,
        Expr::Call(call) => &call.args,
        Expr::Try(t) => return reports_call(&t.expr),
        _ => return false,
    };
    !args.iter().any(is_effect_argument)
}

/// Whether what a `for` loop iterates is an `Arg` site (the argument of the loop's
/// `IntoIterator::into_iter` call): computed as a call's argument is
/// ([`is_effect_argument`]), and neither a borrow of a place (`&v`, `&mut v`: nothing is
/// computed) nor a bare range, whose bounds are the `Start` and `Bound` sites. An iterator
/// chain (`v.iter().skip(1)`, `(0..n).rev()`) is one, so that a missing or surplus adaptor
/// has a site to be ranked and repaired at.
pub fn reports_iterable(expr: &Expr) -> bool {
    computed_beyond(expr, |e| matches!(e, Expr::Range(_)))
}

/// Whether what a `match`, an `if let` or a `while let` examines is an `Arg` site (the
/// argument of the match): a value computed as a call's argument is
/// ([`is_effect_argument`]), neither a borrow of a place (`&self.state`) nor a literal.
/// A place (`match self.state`, `if let Some(ref x) = self.head`) is not one: passed
/// through a hook it would be moved where the patterns bind parts of it or by reference.
/// A call examined in a condition (`if let Some((a, b)) = parser.parse(buf, rest)`) thus
/// has a site even when its arguments are all places.
pub fn reports_scrutinee(expr: &Expr) -> bool {
    computed_beyond(expr, |e| matches!(e, Expr::Lit(_)))
}

/// Whether `expr` is computed as a call's argument is ([`is_effect_argument`]), is no
/// borrow of a place, and is not what `trivial` says of it (parentheses stripped).
fn computed_beyond(expr: &Expr, trivial: impl Fn(&Expr) -> bool) -> bool {
    let stripped = strip(expr);
    let borrowed_place = matches!(stripped, Expr::Reference(r) if is_place(&r.expr));
    is_effect_argument(expr) && !borrowed_place && !trivial(stripped)
}

/// Whether the value of a closure (its body, or the tail of its block) is a `Closure` site:
/// a computed value, not control flow (whose own parts are sites), nor an assignment (its
/// value is `()` and its right-hand side is a site of its own), nor a macro call.
pub fn reports_closure_value(expr: &Expr) -> bool {
    is_returned_value(expr)
        && !diverges(expr)
        && match strip(expr) {
            Expr::Assign(_) | Expr::Macro(_) => false,
            Expr::Binary(b) => !is_compound(&b.op),
            _ => true,
        }
}

/// Whether the body of a match arm, where the match's value is not the function's (a
/// `let`'s value, an argument, a statement), is an `Arm` site: a computed value as a
/// closure's is ([`reports_closure_value`]), borrowing no temporary a `let` would extend
/// through the arm (`let v = match c { _ => &make() }`).
pub fn reports_arm(body: &Expr) -> bool {
    reports_closure_value(body) && !extends_temporary(body)
}

/// Whether `expr` binds tighter than any operator, so that it needs no parentheses as an
/// operand or a method's receiver: a path, a literal, a call, a method call, a field, an
/// element, or an expression already in parentheses.
pub fn is_atomic(expr: &Expr) -> bool {
    matches!(
        expr,
        Expr::Path(_)
            | Expr::Lit(_)
            | Expr::Call(_)
            | Expr::MethodCall(_)
            | Expr::Field(_)
            | Expr::Index(_)
            | Expr::Paren(_)
    )
}

/// Whether `expr` denotes a place (a variable, a field, an element, a dereference).
pub fn is_place(expr: &Expr) -> bool {
    match strip(expr) {
        Expr::Path(_) | Expr::Field(_) | Expr::Index(_) => true,
        Expr::Unary(u) => matches!(u.op, syn::UnOp::Deref(_)),
        _ => false,
    }
}

/// Whether `expr` is a place inside a variable (`x`, `x.f[i]`, `*x`), as opposed to a place
/// inside a temporary (`f().x`, `v()[0]`).
fn rooted_in_variable(expr: &Expr) -> bool {
    match strip(expr) {
        Expr::Path(_) => true,
        Expr::Field(f) => rooted_in_variable(&f.base),
        Expr::Index(i) => rooted_in_variable(&i.expr),
        Expr::Unary(u) => matches!(u.op, syn::UnOp::Deref(_)) && rooted_in_variable(&u.expr),
        _ => false,
    }
}

/// Whether a `let` initializer borrows a temporary whose lifetime the `let` extends
/// (`&f()`, `&v()[0]`, `(&a.b(), 1)`, `S { r: &vec![] }`, `if c { &f() } else { &g() }`).
/// Conservative: any borrow of something that is not a variable's place counts.
pub fn extends_temporary(expr: &Expr) -> bool {
    match strip(expr) {
        Expr::Reference(r) => !rooted_in_variable(&r.expr),
        Expr::RawAddr(_) => true,
        Expr::Tuple(t) => t.elems.iter().any(extends_temporary),
        Expr::Array(a) => a.elems.iter().any(extends_temporary),
        Expr::Struct(s) => {
            s.fields.iter().any(|f| extends_temporary(&f.expr))
                || s.rest.as_deref().is_some_and(extends_temporary)
        }
        Expr::Call(c) => c.args.iter().any(extends_temporary),
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

/// Expressions of type `!`, which are never wrapped (a hook around them would only be
/// unreachable code).
pub fn diverges(expr: &Expr) -> bool {
    match strip(expr) {
        Expr::Return(_) | Expr::Break(_) | Expr::Continue(_) => true,
        Expr::Macro(m) => is_panic_macro(&m.mac),
        _ => false,
    }
}

/// `panic!`, `unreachable!`, `todo!`, `unimplemented!`.
pub fn is_panic_macro(mac: &syn::Macro) -> bool {
    mac.path.segments.last().is_some_and(|s| {
        ["panic", "unreachable", "todo", "unimplemented"]
            .iter()
            .any(|name| s.ident == name)
    })
}

/// Whether `op` is a compound assignment (`+=`, `<<=`, …), whose right-hand side is a
/// `Compound` site.
pub fn is_compound(op: &BinOp) -> bool {
    matches!(
        op,
        BinOp::AddAssign(_)
            | BinOp::SubAssign(_)
            | BinOp::MulAssign(_)
            | BinOp::DivAssign(_)
            | BinOp::RemAssign(_)
            | BinOp::BitXorAssign(_)
            | BinOp::BitAndAssign(_)
            | BinOp::BitOrAssign(_)
            | BinOp::ShlAssign(_)
            | BinOp::ShrAssign(_)
    )
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
        let mut e = expr("((0..n).rev()).take(3)");
        let (r, rev) = for_range_mut(&mut e).expect("a range");
        r.start = None;
        assert_eq!(rev, None);
        assert_eq!(
            quote::quote!(#e).to_string(),
            "((.. n) . rev ()) . take (3)"
        );
    }

    #[test]
    fn chains_and_let_chains() {
        assert!(is_chain(&expr("(a && b)")));
        assert!(!is_chain(&expr("!(a && b)")));
        assert!(contains_let(&expr("let Some(x) = o && x > 0")));
        assert!(!returns_value(&syn::parse_quote!(-> ())));
        assert!(returns_value(&syn::parse_quote!(-> u8)));
        let mut leaves = Vec::new();
        chain_leaves(
            &expr("a && (b || !(c && d)) && let Some(x) = o"),
            &mut |leaf| leaves.push(quote::quote!(#leaf).to_string()),
        );
        assert_eq!(leaves, ["a", "b", "! (c && d)", "let Some (x) = o"]);
    }

    #[test]
    fn effect_arguments_and_returned_values() {
        assert!(is_effect_argument(&expr("x + 1")));
        assert!(!is_effect_argument(&expr("x.f")));
        assert!(!is_effect_argument(&expr("|y| y")));
        assert!(!is_effect_argument(&expr("panic!()")));
        assert!(is_returned_value(&expr("a + b")));
        assert!(is_returned_value(&expr("'a: { 1 }")));
        assert!(!is_returned_value(&expr("{ 1 }")));
        assert!(!is_returned_value(&expr("if c { 1 } else { 2 }")));
    }

    #[test]
    fn scrutinees_that_are_computed() {
        assert!(reports_scrutinee(&expr("p.parse(buf, rest)")));
        assert!(reports_scrutinee(&expr("x % 3")));
        assert!(reports_scrutinee(&expr("stack.pop()")));
        assert!(reports_scrutinee(&expr("(a.len(), b)")));
        assert!(!reports_scrutinee(&expr("self.state")));
        assert!(!reports_scrutinee(&expr("*self")));
        assert!(!reports_scrutinee(&expr("&mut self.head")));
        assert!(!reports_scrutinee(&expr("(&v[0])")));
        assert!(!reports_scrutinee(&expr("3")));
        assert!(!reports_scrutinee(&expr("return")));
    }
}
