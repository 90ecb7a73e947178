//! A candidate as a developer reads it and as the runtime evaluates it: Rust source for the
//! span of the component (the written text of every part the candidate keeps, Rust's
//! precedence for the rest, `x + 1` rather than `1*x + 1`, casts only between integer types
//! that differ), and the [`protocol::Expr`] a plan's replacement carries.

use autodebug_runtime::protocol::{self, Value};
use proc_macro2::LineColumn;
use quote::ToTokens;

use crate::ir::{BinOp, Expr, ExprKind, Function, IntType, Lit, Type, UnOp, VarKind};

use super::site::Located;

/// The written text of the nodes of a component's expression, found by walking the syn tree
/// of the site's source beside the IR: a node keeps its text only where the two agree.
#[derive(Debug, Clone, Default)]
pub(crate) struct Texts {
    known: Vec<(Expr, String)>,
}

impl Texts {
    /// The texts of `located`'s expression, from the site's source.
    pub fn of(located: &Located) -> Texts {
        let code = located.code();
        let mut texts = Texts::default();
        texts
            .known
            .push((located.expr.clone(), code.trim().to_string()));
        if let Ok(parsed) = syn::parse_str::<syn::Expr>(code) {
            let lines = LineStarts::new(code);
            walk(
                located.function,
                located.expr,
                &parsed,
                code,
                &lines,
                &mut texts.known,
            );
        }
        texts
    }

    /// The written text of a node, if the candidate keeps it as written.
    fn get(&self, e: &Expr) -> Option<&str> {
        self.known
            .iter()
            .find(|(k, _)| k == e)
            .map(|(_, t)| t.as_str())
    }
}

/// Byte offsets of the starts of the lines of a text.
struct LineStarts {
    starts: Vec<usize>,
}

impl LineStarts {
    fn new(text: &str) -> LineStarts {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineStarts { starts }
    }

    /// The byte offset of a proc-macro2 position (1-based line, 0-based column in chars).
    fn offset(&self, text: &str, at: LineColumn) -> Option<usize> {
        let start = *self.starts.get(at.line.checked_sub(1)?)?;
        let line = &text[start..];
        let within = line
            .char_indices()
            .nth(at.column)
            .map_or(line.len(), |(i, _)| i);
        Some(start + within)
    }
}

/// The source text of a syn node parsed from `code`.
pub(crate) fn source_text(node: &syn::Expr, code: &str) -> Option<String> {
    text_of(node, code, &LineStarts::new(code))
}

/// The source text of a syn node.
fn text_of(node: &syn::Expr, code: &str, lines: &LineStarts) -> Option<String> {
    let tokens = node.to_token_stream();
    let mut iter = tokens.into_iter();
    let first = iter.next()?;
    let last = iter.last().unwrap_or_else(|| first.clone());
    let from = lines.offset(code, first.span().start())?;
    let to = lines.offset(code, last.span().end())?;
    code.get(from..to).map(str::to_string)
}

fn strip(e: &syn::Expr) -> &syn::Expr {
    match e {
        syn::Expr::Paren(p) => strip(&p.expr),
        syn::Expr::Group(g) => strip(&g.expr),
        syn::Expr::Reference(r) => strip(&r.expr),
        syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => strip(&u.expr),
        other => other,
    }
}

fn method<'s>(e: &'s syn::Expr, name: &str, args: usize) -> Option<&'s syn::ExprMethodCall> {
    match e {
        syn::Expr::MethodCall(m) if m.method == name && m.args.len() == args => Some(m),
        _ => None,
    }
}

fn walk(
    f: &Function,
    ir: &Expr,
    syn_expr: &syn::Expr,
    code: &str,
    lines: &LineStarts,
    out: &mut Vec<(Expr, String)>,
) {
    let s = strip(syn_expr);
    let Some(text) = text_of(s, code, lines) else {
        return;
    };
    let keep = |out: &mut Vec<(Expr, String)>| out.push((ir.clone(), text.clone()));
    let go =
        |ir: &Expr, s: &syn::Expr, out: &mut Vec<(Expr, String)>| walk(f, ir, s, code, lines, out);
    match (&ir.kind, s) {
        (ExprKind::Branch(inner, _), _) => {
            keep(out);
            go(inner, s, out);
        }
        (ExprKind::Binary(op, a, b), syn::Expr::Binary(sb))
            if sb.op.to_token_stream().to_string() == op.symbol() =>
        {
            keep(out);
            go(a, &sb.left, out);
            go(b, &sb.right, out);
        }
        (ExprKind::Binary(op, a, b), _) if method(s, op.symbol(), 1).is_some() => {
            let m = method(s, op.symbol(), 1).expect("checked");
            keep(out);
            go(a, &m.receiver, out);
            go(b, &m.args[0], out);
        }
        (ExprKind::Unary(UnOp::Neg, a), syn::Expr::Unary(u))
            if matches!(u.op, syn::UnOp::Neg(_)) =>
        {
            keep(out);
            go(a, &u.expr, out);
        }
        (ExprKind::Unary(UnOp::Not, a), syn::Expr::Unary(u))
            if matches!(u.op, syn::UnOp::Not(_)) =>
        {
            keep(out);
            go(a, &u.expr, out);
        }
        (ExprKind::Unary(UnOp::Abs, a), _) if method(s, "abs", 0).is_some() => {
            keep(out);
            go(a, &method(s, "abs", 0).expect("checked").receiver, out);
        }
        (ExprKind::Lit(Lit::Int(_)), syn::Expr::Lit(l)) if matches!(l.lit, syn::Lit::Int(_)) => {
            keep(out)
        }
        (ExprKind::Lit(Lit::Int(v)), syn::Expr::Unary(u))
            if *v < 0
                && matches!(u.op, syn::UnOp::Neg(_))
                && matches!(strip(&u.expr), syn::Expr::Lit(_)) =>
        {
            keep(out)
        }
        (ExprKind::Lit(Lit::Bool(_)), syn::Expr::Lit(l)) if matches!(l.lit, syn::Lit::Bool(_)) => {
            keep(out)
        }
        (ExprKind::Lit(Lit::Char(_)), syn::Expr::Lit(l)) if matches!(l.lit, syn::Lit::Char(_)) => {
            keep(out)
        }
        (ExprKind::Var(v), syn::Expr::Path(p)) if p.path.is_ident(&f.var(*v).name) => keep(out),
        (ExprKind::Index(a, i), syn::Expr::Index(si)) => {
            keep(out);
            go(a, &si.expr, out);
            go(i, &si.index, out);
        }
        (ExprKind::Len(a), _) if method(s, "len", 0).is_some() => {
            keep(out);
            go(a, &method(s, "len", 0).expect("checked").receiver, out);
        }
        (ExprKind::IsSome(a), _) if method(s, "is_some", 0).is_some() => {
            keep(out);
            go(a, &method(s, "is_some", 0).expect("checked").receiver, out);
        }
        (ExprKind::Unwrap(a), _) if method(s, "unwrap", 0).is_some() => {
            keep(out);
            go(a, &method(s, "unwrap", 0).expect("checked").receiver, out);
        }
        (ExprKind::Cast(a), syn::Expr::Cast(c)) => {
            keep(out);
            go(a, &c.expr, out);
        }
        (ExprKind::Field(a, name), syn::Expr::Field(sf))
            if sf.member.to_token_stream().to_string() == *name =>
        {
            keep(out);
            go(a, &sf.base, out);
        }
        (ExprKind::TupleField(a, i), syn::Expr::Field(sf))
            if sf.member.to_token_stream().to_string() == i.to_string() =>
        {
            keep(out);
            go(a, &sf.base, out);
        }
        (ExprKind::OptionSome(a), syn::Expr::Call(c))
            if c.args.len() == 1
                && matches!(strip(&c.func), syn::Expr::Path(p) if p.path.is_ident("Some")) =>
        {
            keep(out);
            go(a, &c.args[0], out);
        }
        (ExprKind::OptionNone, syn::Expr::Path(p)) if p.path.is_ident("None") => keep(out),
        _ => {}
    }
}

/// Rust's binding strength of an expression's outermost operator (higher binds tighter).
fn prec(e: &Expr) -> u8 {
    match &e.kind {
        ExprKind::Lit(Lit::Int(v)) if *v < 0 => 90,
        ExprKind::Unary(UnOp::Neg | UnOp::Not, _) => 90,
        ExprKind::Cast(_) => 80,
        ExprKind::Binary(op, ..) => binary_prec(*op).unwrap_or(100),
        ExprKind::Branch(inner, _) => prec(inner),
        ExprKind::If { .. } => 0,
        _ => 100,
    }
}

fn binary_prec(op: BinOp) -> Option<u8> {
    use BinOp::*;
    Some(match op {
        Mul | Div | Rem => 70,
        Add | Sub => 60,
        Shl | Shr => 50,
        BitAnd => 45,
        BitXor => 40,
        BitOr => 35,
        Eq | Ne | Lt | Le | Gt | Ge => 30,
        And => 20,
        Or => 10,
        _ => return None,
    })
}

/// `e` as Rust source: written text where `texts` knows the node, printed otherwise.
pub(crate) fn rust(f: &Function, e: &Expr, texts: &Texts) -> Result<String, String> {
    if let Some(t) = texts.get(e) {
        return Ok(t.to_string());
    }
    let wrap = |inner: &Expr, min: u8| -> Result<String, String> {
        let t = rust(f, inner, texts)?;
        Ok(if prec(inner) < min {
            format!("({t})")
        } else {
            t
        })
    };
    Ok(match &e.kind {
        ExprKind::Lit(Lit::Int(v)) => v.to_string(),
        ExprKind::Lit(Lit::Bool(b)) => b.to_string(),
        ExprKind::Lit(Lit::Char(c)) => format!("{c:?}"),
        ExprKind::Lit(Lit::Unit) => "()".into(),
        ExprKind::Var(v) => {
            let var = f.var(*v);
            if matches!(var.kind, VarKind::Temp | VarKind::Bound) {
                return Err(format!(
                    "reads `{}`, a value the lowering introduced",
                    var.name
                ));
            }
            var.name.clone()
        }
        ExprKind::Unary(UnOp::Neg, a) => format!("-{}", wrap(a, 90)?),
        ExprKind::Unary(UnOp::Not, a) => format!("!{}", wrap(a, 90)?),
        ExprKind::Unary(UnOp::Abs, a) => format!("{}.abs()", wrap(a, 100)?),
        ExprKind::Unary(UnOp::WrappingNeg, a) => format!("{}.wrapping_neg()", wrap(a, 100)?),
        ExprKind::Binary(op, a, b) => match binary_prec(*op) {
            Some(p) => {
                // Left-associative; comparisons do not chain.
                let left_min = if p == 30 { p + 1 } else { p };
                format!("{} {} {}", wrap(a, left_min)?, op.symbol(), wrap(b, p + 1)?)
            }
            None if *op == BinOp::Implies => {
                return Err("holds an implication of contracts".into());
            }
            None => format!("{}.{}({})", wrap(a, 100)?, op.symbol(), rust(f, b, texts)?),
        },
        ExprKind::Cast(a) => format!("{} as {}", wrap(a, 80)?, e.ty),
        ExprKind::Index(a, i) => format!("{}[{}]", wrap(a, 100)?, rust(f, i, texts)?),
        ExprKind::Len(a) => format!("{}.len()", wrap(a, 100)?),
        ExprKind::Field(a, n) => format!("{}.{n}", wrap(a, 100)?),
        ExprKind::TupleField(a, i) => format!("{}.{i}", wrap(a, 100)?),
        ExprKind::IsSome(a) => format!("{}.is_some()", wrap(a, 100)?),
        ExprKind::Unwrap(a) => format!("{}.unwrap()", wrap(a, 100)?),
        ExprKind::OptionSome(a) => format!("Some({})", rust(f, a, texts)?),
        ExprKind::OptionNone => "None".into(),
        ExprKind::Variant(n, v) => format!("{n}::{v}"),
        ExprKind::Branch(inner, _) => rust(f, inner, texts)?,
        ExprKind::Tuple(items) => {
            let parts: Result<Vec<String>, String> =
                items.iter().map(|x| rust(f, x, texts)).collect();
            format!("({})", parts?.join(", "))
        }
        ExprKind::If {
            cond,
            then,
            otherwise,
            ..
        } => format!(
            "if {} {{ {} }} else {{ {} }}",
            rust(f, cond, texts)?,
            rust(f, then, texts)?,
            rust(f, otherwise, texts)?
        ),
        _ => return Err("holds a construct the printer does not write".into()),
    })
}

/// `e` as a replacement the runtime evaluates at the site: only what the site reports (the
/// sides of a branch's comparison as [`protocol::Expr::Operand`]s, the scalars in scope, the
/// written value as [`protocol::Expr::Original`] where `original` is kept whole, or negated
/// where it was a negation) can be read. A side of the comparison is read as the operand
/// even when it is a variable: the operands are known from the site's events, the scope of a
/// branch only from the model.
pub(crate) fn protocol(
    located: &Located,
    e: &Expr,
    original: Option<&Expr>,
    texts: &Texts,
) -> Result<protocol::Expr, String> {
    if original.is_some_and(|o| o == e) {
        return Ok(protocol::Expr::Original);
    }
    if let Some(ExprKind::Unary(UnOp::Not, inner)) = original.map(|o| &o.kind)
        && **inner == *e
    {
        return Ok(protocol::Expr::Unary {
            op: protocol::UnOp::Not,
            arg: Box::new(protocol::Expr::Original),
        });
    }
    if let Some(index) = located.operand(e) {
        return Ok(protocol::Expr::Operand { index });
    }
    let go = |x: &Expr| protocol(located, x, original, texts);
    let shown = || rust(located.function, e, texts).unwrap_or_else(|_| "a part".into());
    Ok(match &e.kind {
        ExprKind::Lit(l) => protocol::Expr::Lit {
            value: literal_value(l, &e.ty)?,
        },
        ExprKind::Var(v) if located.reports(*v) => protocol::Expr::Var {
            name: located.function.var(*v).name.clone(),
        },
        ExprKind::Var(_) => {
            return Err(format!(
                "reads `{}`, which the site does not report (not a scalar in scope)",
                shown()
            ));
        }
        ExprKind::Unary(op @ (UnOp::Neg | UnOp::Not), a) => protocol::Expr::Unary {
            op: if *op == UnOp::Neg {
                protocol::UnOp::Neg
            } else {
                protocol::UnOp::Not
            },
            arg: Box::new(go(a)?),
        },
        ExprKind::Binary(op, a, b) => match protocol_op(*op) {
            Some(op) => protocol::Expr::Binary {
                op,
                left: Box::new(go(a)?),
                right: Box::new(go(b)?),
            },
            None => {
                return Err(format!(
                    "uses `{}`, which a replacement cannot",
                    op.symbol()
                ));
            }
        },
        ExprKind::Cast(a) => match &e.ty {
            Type::Int(t) => protocol::Expr::Cast {
                ty: t.name().to_string(),
                arg: Box::new(go(a)?),
            },
            other => return Err(format!("casts to `{other}`")),
        },
        ExprKind::Branch(inner, _) => go(inner)?,
        ExprKind::Variant(..) | ExprKind::OptionSome(_) | ExprKind::OptionNone => {
            return Err(format!(
                "writes `{}`, a value a replacement cannot write (only scalars)",
                shown()
            ));
        }
        _ => {
            return Err(format!(
                "reads `{}`, which the site does not report",
                shown()
            ));
        }
    })
}

fn literal_value(l: &Lit, ty: &Type) -> Result<Value, String> {
    Ok(match (l, ty) {
        (Lit::Int(v), Type::Int(t)) => int_value(*v, *t),
        (Lit::Bool(b), _) => Value::Bool(*b),
        (Lit::Char(c), _) => Value::Char(*c),
        (Lit::Unit, _) => Value::Unit,
        (Lit::Int(_), other) => return Err(format!("an integer literal of `{other}`")),
    })
}

/// An integer value of type `t`.
pub(crate) fn int_value(v: i128, t: IntType) -> Value {
    Value::Int {
        ty: t.name().to_string(),
        v,
    }
}

pub(crate) fn protocol_op(op: BinOp) -> Option<protocol::BinOp> {
    use protocol::BinOp as P;
    Some(match op {
        BinOp::Add => P::Add,
        BinOp::Sub => P::Sub,
        BinOp::Mul => P::Mul,
        BinOp::Div => P::Div,
        BinOp::Rem => P::Rem,
        BinOp::BitAnd => P::BitAnd,
        BinOp::BitOr => P::BitOr,
        BinOp::BitXor => P::BitXor,
        BinOp::Shl => P::Shl,
        BinOp::Shr => P::Shr,
        BinOp::And => P::And,
        BinOp::Or => P::Or,
        BinOp::Eq => P::Eq,
        BinOp::Ne => P::Ne,
        BinOp::Lt => P::Lt,
        BinOp::Le => P::Le,
        BinOp::Gt => P::Gt,
        BinOp::Ge => P::Ge,
        _ => return None,
    })
}

/// A variable of a linear combination, as the template reads it in the site's type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Term {
    /// Its name.
    pub name: String,
    /// Its own type.
    pub ty: IntType,
}

/// One summand: a positive multiple of a variable, or a positive constant.
#[derive(Debug, Clone)]
enum Atom<'t> {
    Var(i128, &'t Term),
    Const(i128),
}

/// Sums of positive atoms with signs, printed in the site's type `ty`.
struct Printer {
    ty: IntType,
}

impl Printer {
    fn var_text(&self, t: &Term) -> String {
        if t.ty == self.ty {
            t.name.clone()
        } else {
            format!("({} as {})", t.name, self.ty.name())
        }
    }

    fn var_expr(&self, t: &Term) -> protocol::Expr {
        let var = protocol::Expr::Var {
            name: t.name.clone(),
        };
        if t.ty == self.ty {
            var
        } else {
            protocol::Expr::Cast {
                ty: self.ty.name().to_string(),
                arg: Box::new(var),
            }
        }
    }

    fn atom_text(&self, a: &Atom) -> String {
        match a {
            Atom::Var(1, t) => self.var_text(t),
            Atom::Var(k, t) => format!("{k} * {}", self.var_text(t)),
            Atom::Const(c) => c.to_string(),
        }
    }

    fn atom_expr(&self, a: &Atom) -> protocol::Expr {
        match a {
            Atom::Var(1, t) => self.var_expr(t),
            Atom::Var(k, t) => protocol::Expr::Binary {
                op: protocol::BinOp::Mul,
                left: Box::new(self.lit(*k)),
                right: Box::new(self.var_expr(t)),
            },
            Atom::Const(c) => self.lit(*c),
        }
    }

    fn lit(&self, v: i128) -> protocol::Expr {
        protocol::Expr::Lit {
            value: int_value(v, self.ty),
        }
    }

    /// `±a ± b ± …`; an empty sum is `0`.
    fn sum(&self, atoms: &[(bool, Atom)]) -> (String, protocol::Expr) {
        let Some(((first_neg, first), rest)) = atoms.split_first() else {
            return ("0".into(), self.lit(0));
        };
        let (mut text, mut expr) = match (first_neg, first) {
            (true, Atom::Const(c)) => (format!("-{c}"), self.lit(-c)),
            (true, a) => (
                format!("-{}", self.atom_text(a)),
                protocol::Expr::Unary {
                    op: protocol::UnOp::Neg,
                    arg: Box::new(self.atom_expr(a)),
                },
            ),
            (false, a) => (self.atom_text(a), self.atom_expr(a)),
        };
        for (neg, a) in rest {
            text = format!(
                "{text} {} {}",
                if *neg { "-" } else { "+" },
                self.atom_text(a)
            );
            expr = protocol::Expr::Binary {
                op: if *neg {
                    protocol::BinOp::Sub
                } else {
                    protocol::BinOp::Add
                },
                left: Box::new(expr),
                right: Box::new(self.atom_expr(a)),
            };
        }
        (text, expr)
    }
}

/// `k0 + Σ ki*vi` in the type `ty`, the way a person writes it: positive terms first, then
/// the subtracted ones, then the constant (first when every term is subtracted). In an
/// unsigned type everything added comes before anything subtracted, so that no partial sum
/// goes below zero, and nothing is negated (`-x` does not compile there): a sum that would
/// need it is `None` (the template's domain excludes it).
pub(crate) fn linear(
    ty: IntType,
    k0: i128,
    terms: &[(i128, &Term)],
) -> Option<(String, protocol::Expr)> {
    let mut atoms: Vec<(bool, Atom)> = Vec::new();
    for &(k, t) in terms.iter().filter(|(k, _)| *k > 0) {
        atoms.push((false, Atom::Var(k, t)));
    }
    let constant_first = (atoms.is_empty() || !ty.signed()) && k0 > 0;
    if constant_first {
        atoms.push((false, Atom::Const(k0)));
    }
    for &(k, t) in terms.iter().filter(|(k, _)| *k < 0) {
        atoms.push((true, Atom::Var(-k, t)));
    }
    if k0 != 0 && !constant_first {
        atoms.push((k0 < 0, Atom::Const(k0.abs())));
    }
    if !ty.signed() && atoms.first().is_some_and(|(neg, _)| *neg) {
        return None;
    }
    Some(Printer { ty }.sum(&atoms))
}

/// The comparisons of a condition template, by their parameter's value.
pub(crate) const COMPARISONS: [BinOp; 6] = [
    BinOp::Eq,
    BinOp::Ne,
    BinOp::Lt,
    BinOp::Le,
    BinOp::Gt,
    BinOp::Ge,
];

fn mirror(op: BinOp) -> BinOp {
    match op {
        BinOp::Lt => BinOp::Gt,
        BinOp::Le => BinOp::Ge,
        BinOp::Gt => BinOp::Lt,
        BinOp::Ge => BinOp::Le,
        other => other,
    }
}

/// `k0 + Σ ki*vi OP 0` as a comparison of two sums of positive terms (`x >= y + 1`, not
/// `x - y - 1 >= 0`): nothing is subtracted, so unsigned operands cannot underflow. A
/// comparison of constants is `true` or `false`.
pub(crate) fn condition(
    ty: IntType,
    k0: i128,
    terms: &[(i128, &Term)],
    op: BinOp,
) -> (String, protocol::Expr) {
    let mut left: Vec<(bool, Atom)> = terms
        .iter()
        .filter(|(k, _)| *k > 0)
        .map(|&(k, t)| (false, Atom::Var(k, t)))
        .collect();
    let mut right: Vec<(bool, Atom)> = terms
        .iter()
        .filter(|(k, _)| *k < 0)
        .map(|&(k, t)| (false, Atom::Var(-k, t)))
        .collect();
    if k0 > 0 {
        left.push((false, Atom::Const(k0)));
    } else if k0 < 0 {
        right.push((false, Atom::Const(-k0)));
    }
    if terms.is_empty() {
        let holds = match op {
            BinOp::Eq => k0 == 0,
            BinOp::Ne => k0 != 0,
            BinOp::Lt => k0 < 0,
            BinOp::Le => k0 <= 0,
            BinOp::Gt => k0 > 0,
            _ => k0 >= 0,
        };
        return (
            holds.to_string(),
            protocol::Expr::Lit {
                value: Value::Bool(holds),
            },
        );
    }
    // One way of writing each comparison: the first variable on the left (`x <= 1`, not
    // `1 >= x`; `x < y`, not `y > x`).
    let first_subtracted = terms.first().is_some_and(|(k, _)| *k < 0);
    let (left, right, op) = if first_subtracted || left.is_empty() {
        (right, left, mirror(op))
    } else {
        (left, right, op)
    };
    let printer = Printer { ty };
    let (lt, le) = printer.sum(&left);
    let (rt, re) = printer.sum(&right);
    (
        format!("{lt} {} {rt}", op.symbol()),
        protocol::Expr::Binary {
            op: protocol_op(op).expect("a comparison"),
            left: Box::new(le),
            right: Box::new(re),
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Program;
    use crate::repair::site::tests::{SHAPES, at};
    use autodebug_runtime::protocol::SiteKind;

    fn cmp(op: BinOp, a: &Expr, b: &Expr) -> Expr {
        Expr {
            kind: ExprKind::Binary(op, Box::new(a.clone()), Box::new(b.clone())),
            ty: Type::Bool,
        }
    }

    fn pcmp(op: protocol::BinOp, a: protocol::Expr, b: protocol::Expr) -> protocol::Expr {
        protocol::Expr::Binary {
            op,
            left: Box::new(a),
            right: Box::new(b),
        }
    }

    fn operand(index: u32) -> protocol::Expr {
        protocol::Expr::Operand { index }
    }

    #[test]
    fn the_sides_of_a_recorded_comparison_are_read_as_operands() {
        use protocol::BinOp as P;
        let program = Program::from_source(SHAPES, "shapes.rs").unwrap();
        let mut cond = at(&program, SiteKind::If, "(s) > a[i]");
        let texts = Texts::of(&cond);
        let ExprKind::Binary(_, s, element) = &cond.expr.kind else {
            panic!("{:?}", cond.expr)
        };
        let lt = cmp(BinOp::Lt, s, element);
        // Without a record of the operands the element cannot be read.
        let why = protocol(&cond, &lt, None, &texts).unwrap_err();
        assert!(why.contains("a[i]"), "{why}");
        cond.find_operands(Some(&["i32".to_string(), "i32".to_string()]));
        // The operator changed, the sides swapped, a side combined with a constant.
        assert_eq!(
            protocol(&cond, &lt, None, &texts),
            Ok(pcmp(P::Lt, operand(0), operand(1)))
        );
        assert_eq!(
            protocol(&cond, &cmp(BinOp::Ge, element, s), None, &texts),
            Ok(pcmp(P::Ge, operand(1), operand(0)))
        );
        let plus_one = Expr {
            kind: ExprKind::Binary(
                BinOp::Add,
                s.clone(),
                Box::new(Expr::int(1, Type::Int(IntType::I32))),
            ),
            ty: Type::Int(IntType::I32),
        };
        assert_eq!(
            protocol(&cond, &cmp(BinOp::Gt, element, &plus_one), None, &texts),
            Ok(pcmp(
                P::Gt,
                operand(1),
                pcmp(P::Add, operand(0), int_value_expr(1))
            ))
        );
        // The Rust text is the written one's, whatever the runtime reads.
        assert_eq!(rust(cond.function, &lt, &texts).unwrap(), "s < a[i]");
        // A negation of the whole condition negates the written value.
        let negated = Expr {
            kind: ExprKind::Unary(UnOp::Not, Box::new(cond.expr.clone())),
            ty: Type::Bool,
        };
        assert_eq!(
            protocol(&cond, &negated, Some(cond.expr), &texts),
            Ok(protocol::Expr::Unary {
                op: protocol::UnOp::Not,
                arg: Box::new(protocol::Expr::Original)
            })
        );
    }

    #[test]
    fn a_negation_removed_negates_the_written_value() {
        let program = Program::from_source(SHAPES, "shapes.rs").unwrap();
        let cond = at(&program, SiteKind::If, "!(s < 1)");
        let texts = Texts::of(&cond);
        let ExprKind::Unary(UnOp::Not, inner) = &cond.expr.kind else {
            panic!("{:?}", cond.expr)
        };
        assert_eq!(
            protocol(&cond, inner, Some(cond.expr), &texts),
            Ok(protocol::Expr::Unary {
                op: protocol::UnOp::Not,
                arg: Box::new(protocol::Expr::Original)
            })
        );
        // Without the written condition to refer to, the variables in scope are read.
        assert_eq!(
            protocol(&cond, inner, None, &texts),
            Ok(pcmp(
                protocol::BinOp::Lt,
                protocol::Expr::Var { name: "s".into() },
                int_value_expr(1)
            ))
        );
    }

    fn int_value_expr(v: i128) -> protocol::Expr {
        protocol::Expr::Lit {
            value: int_value(v, IntType::I32),
        }
    }

    fn term(name: &str, ty: IntType) -> Term {
        Term {
            name: name.into(),
            ty,
        }
    }

    #[test]
    fn linear_sums_read_as_written_by_hand() {
        let x = term("x", IntType::I32);
        let y = term("y", IntType::I32);
        let n = term("n", IntType::U8);
        let show = |k0, terms: &[(i128, &Term)]| linear(IntType::I32, k0, terms).unwrap().0;
        assert_eq!(show(0, &[(1, &y)]), "y");
        assert_eq!(show(1, &[(1, &x)]), "x + 1");
        assert_eq!(show(-2, &[(1, &x)]), "x - 2");
        assert_eq!(show(0, &[(-1, &x), (1, &y)]), "y - x");
        assert_eq!(show(0, &[(2, &x), (-2, &y)]), "2 * x - 2 * y");
        assert_eq!(show(5, &[(-1, &x)]), "5 - x");
        assert_eq!(show(-5, &[(-1, &x)]), "-x - 5");
        assert_eq!(show(0, &[]), "0");
        assert_eq!(show(-3, &[]), "-3");
        assert_eq!(show(0, &[(1, &n)]), "(n as i32)");
        let (text, expr) = linear(IntType::I32, 1, &[(1, &x)]).unwrap();
        assert_eq!(text, "x + 1");
        assert_eq!(
            expr,
            protocol::Expr::Binary {
                op: protocol::BinOp::Add,
                left: Box::new(protocol::Expr::Var { name: "x".into() }),
                right: Box::new(protocol::Expr::Lit {
                    value: int_value(1, IntType::I32)
                }),
            }
        );
    }

    #[test]
    fn unsigned_sums_add_before_they_subtract_and_never_negate() {
        let a = term("a", IntType::Usize);
        let b = term("b", IntType::Usize);
        let show = |k0, terms: &[(i128, &Term)]| linear(IntType::Usize, k0, terms).map(|p| p.0);
        assert_eq!(show(1, &[(1, &a), (-1, &b)]).as_deref(), Some("a + 1 - b"));
        assert_eq!(show(3, &[(-1, &b)]).as_deref(), Some("3 - b"));
        assert_eq!(show(0, &[(-1, &b)]), None);
    }

    #[test]
    fn conditions_compare_sums_of_positive_terms() {
        let x = term("x", IntType::I32);
        let y = term("y", IntType::I32);
        let show = |k0, terms: &[(i128, &Term)], op| condition(IntType::I32, k0, terms, op).0;
        assert_eq!(show(0, &[(1, &x), (-1, &y)], BinOp::Ge), "x >= y");
        assert_eq!(show(0, &[(-1, &x), (1, &y)], BinOp::Gt), "x < y");
        assert_eq!(show(-1, &[(1, &x), (-1, &y)], BinOp::Ge), "x >= y + 1");
        assert_eq!(show(1, &[(-1, &x)], BinOp::Ge), "x <= 1");
        assert_eq!(show(-10, &[(1, &x)], BinOp::Lt), "x < 10");
        assert_eq!(show(0, &[(2, &x), (-2, &y)], BinOp::Gt), "2 * x > 2 * y");
        assert_eq!(show(0, &[], BinOp::Le), "true");
        assert_eq!(show(3, &[], BinOp::Eq), "false");
    }
}
