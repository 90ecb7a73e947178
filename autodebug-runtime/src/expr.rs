//! Repair candidates evaluated at a hook: a plan's [`Replacement`](crate::protocol::Replacement)
//! expression is compiled once when the plan is loaded ([`Candidate::compile`]) and evaluated
//! at every instance of its site in place of the written code, so a candidate is validated by
//! rerunning the suite instead of rebuilding it.
//!
//! The semantics are the rebuilt program's. Variables carry their own types (as the scope
//! reports them), operands theirs (as the branch hook reads them), literals theirs; the whole
//! expression is type-checked as rustc would before anything is evaluated, so a candidate
//! that would not compile (`i32 + u8`, a result of another type than the site's, a variable
//! or an operand the site does not report) is
//! [`Failure::Invalid`] even where short-circuiting would skip the faulty part. Arithmetic
//! runs in the operands' exact type with a debug build's checks: a candidate that overflows
//! or divides by zero is [`Failure::Panic`] with Rust's own message, and the hook panics with
//! it, as the candidate would.

pub(crate) mod method;
pub(crate) mod scalar;

use crate::protocol::{BinOp, Expr, UnOp, Value};
use crate::value::Val;
use scalar::{Arith, Panic, Scalar, Ty};
use std::cmp::Ordering;
use std::sync::OnceLock;

/// A replacement expression, checked for what can be checked without the site's values and
/// ready to evaluate.
#[derive(Debug)]
pub(crate) struct Candidate {
    root: Node,
    /// What the expression reads from the site, each once; `Node::Input(i)` reads
    /// `inputs[i]`.
    inputs: Vec<Input>,
    /// The types of the first evaluation that type-checked. A site's types are the same at
    /// every instance (unless its function is generic), so later evaluations with these
    /// types skip the check.
    checked: OnceLock<Signature>,
}

/// A value a candidate reads from its site.
#[derive(Debug, Clone, PartialEq)]
enum Input {
    /// A variable in scope, by name.
    Var(String),
    /// An operand of the branch's comparison, by index.
    Operand(u32),
}

/// The types an evaluation saw: the site's, the written code's value's, the inputs'.
#[derive(Debug, PartialEq)]
struct Signature {
    want: Ty,
    original: Option<Ty>,
    vars: Vec<Ty>,
}

impl Signature {
    fn matches(&self, want: Ty, env: &Env<'_>) -> bool {
        self.want == want
            && self.original == env.original.ok().map(Scalar::ty)
            && self.vars.len() == env.vars.len()
            && self.vars.iter().zip(env.vars).all(|(t, v)| *t == v.ty())
    }
}

#[derive(Debug)]
enum Node {
    Lit(Scalar),
    /// A variable or an operand, by index into [`Candidate::inputs`].
    Input(usize),
    Original,
    Unary(UnOp, Box<Node>),
    Binary(BinOp, Box<Node>, Box<Node>),
    Cast(Ty, Box<Node>),
    /// A method of [`method::METHODS`], by its name there.
    Method(&'static str, Box<Node>),
}

/// Why a candidate gave no value at an instance.
#[derive(Debug, PartialEq)]
pub(crate) enum Failure {
    /// The candidate panics here, as the rebuilt program would (overflow, division by zero,
    /// an oversized shift); the message is the one a debug build prints.
    Panic(Panic),
    /// The candidate cannot be evaluated: it would not compile (mismatched types, an operator
    /// the types lack) or reads what the site does not report (a variable, an operand).
    Invalid(String),
}

/// What an evaluation sees of the site: the variables and operands, by index into
/// [`Candidate::inputs`], and the written code's value (or, when it is no scalar, the name of
/// its type).
struct Env<'a> {
    vars: &'a [Scalar],
    original: Result<Scalar, &'a str>,
}

/// How many inputs an evaluation keeps on the stack before it allocates.
const INLINE_VARS: usize = 8;

impl Candidate {
    /// Compiles `expr`, refusing what could never be evaluated: literals that are no
    /// primitive value or do not fit their type, casts to a type that is not primitive.
    pub(crate) fn compile(expr: &Expr) -> Result<Candidate, String> {
        let mut inputs = Vec::new();
        let root = compile(expr, &mut inputs)?;
        Ok(Candidate {
            root,
            inputs,
            checked: OnceLock::new(),
        })
    }

    /// Whether evaluating needs the variables in scope (then the hook must call its scope
    /// closure).
    pub(crate) fn reads_scope(&self) -> bool {
        self.inputs.iter().any(|i| matches!(i, Input::Var(_)))
    }

    /// Whether evaluating needs the operands of the site's comparison (then the branch hook
    /// must call its operands closure).
    pub(crate) fn reads_operands(&self) -> bool {
        self.inputs.iter().any(|i| matches!(i, Input::Operand(_)))
    }

    /// The candidate's value at one instance of a site of type `want`: `original` is what the
    /// written code computed there (`Err(type name)` when that is no scalar), `operands` the
    /// values of the operands the hook reports (none at a component, see
    /// [`Expr::Operand`]), `scope` the variables it reports.
    pub(crate) fn evaluate<V: Reported>(
        &self,
        original: Result<Scalar, &str>,
        operands: &[V],
        scope: &[(&str, V)],
        want: Ty,
    ) -> Result<Scalar, Failure> {
        let n = self.inputs.len();
        if n <= INLINE_VARS {
            let mut vars = [Scalar::Bool(false); INLINE_VARS];
            self.resolve(operands, scope, &mut vars[..n])?;
            self.run(&vars[..n], original, want)
        } else {
            let mut vars = vec![Scalar::Bool(false); n];
            self.resolve(operands, scope, &mut vars)?;
            self.run(&vars, original, want)
        }
    }

    /// Reads the variables and operands the candidate uses out of `scope` and `operands`.
    fn resolve<V: Reported>(
        &self,
        operands: &[V],
        scope: &[(&str, V)],
        out: &mut [Scalar],
    ) -> Result<(), Failure> {
        for (slot, input) in out.iter_mut().zip(&self.inputs) {
            let name = match input {
                Input::Var(name) => name,
                Input::Operand(index) => {
                    *slot = operand(operands, *index)?;
                    continue;
                }
            };
            let Some((_, value)) = scope.iter().rev().find(|(n, _)| *n == name.as_str()) else {
                let reported: Vec<&str> = scope.iter().map(|(n, _)| *n).collect();
                return Err(Failure::Invalid(format!(
                    "`{name}` is not among the variables the site reports ({}); only \
                     variables certainly `Copy` and never mutably borrowed are",
                    if reported.is_empty() {
                        "none".to_string()
                    } else {
                        reported.join(", ")
                    }
                )));
            };
            *slot = value.scalar().map_err(|what| {
                Failure::Invalid(format!(
                    "`{name}` is {what}: a candidate computes with primitive values only"
                ))
            })?;
        }
        Ok(())
    }

    fn run(
        &self,
        vars: &[Scalar],
        original: Result<Scalar, &str>,
        want: Ty,
    ) -> Result<Scalar, Failure> {
        let env = Env { vars, original };
        if !self
            .checked
            .get()
            .is_some_and(|sig| sig.matches(want, &env))
        {
            let ty = check(&self.root, &env).map_err(Failure::Invalid)?;
            if ty != want {
                return Err(Failure::Invalid(format!(
                    "the candidate has type `{ty}` where the site has type `{want}` (it would \
                     not compile)"
                )));
            }
            let _ = self.checked.set(Signature {
                want,
                original: original.ok().map(Scalar::ty),
                vars: vars.iter().map(|v| v.ty()).collect(),
            });
        }
        eval(&self.root, &env)
    }
}

/// The scalar value of operand `index` of those a branch hook reported.
fn operand<V: Reported>(operands: &[V], index: u32) -> Result<Scalar, Failure> {
    let Some(value) = usize::try_from(index).ok().and_then(|i| operands.get(i)) else {
        return Err(Failure::Invalid(if operands.is_empty() {
            format!(
                "it reads operand {index}, and the site reports no operand (only a \
                 comparison whose sides can be evaluated again without effects has them)"
            )
        } else {
            format!(
                "it reads operand {index}, and the site reports {} (0 is the left side of \
                 its comparison, 1 the right)",
                operands.len()
            )
        }));
    };
    value.scalar().map_err(|what| {
        Failure::Invalid(format!(
            "operand {index} is {what}: a candidate computes with primitive values only"
        ))
    })
}

fn compile(expr: &Expr, inputs: &mut Vec<Input>) -> Result<Node, String> {
    let sub = |e: &Expr, inputs: &mut Vec<Input>| compile(e, inputs).map(Box::new);
    let mut input = |wanted: Input| match inputs.iter().position(|i| *i == wanted) {
        Some(i) => Node::Input(i),
        None => {
            inputs.push(wanted);
            Node::Input(inputs.len() - 1)
        }
    };
    Ok(match expr {
        Expr::Lit { value } => {
            Node::Lit(scalar_of(value).map_err(|what| format!("a literal that is {what}"))?)
        }
        Expr::Var { name } => input(Input::Var(name.clone())),
        Expr::Operand { index } => input(Input::Operand(*index)),
        Expr::Original => Node::Original,
        Expr::Unary { op, arg } => Node::Unary(*op, sub(arg, inputs)?),
        Expr::Binary { op, left, right } => {
            Node::Binary(*op, sub(left, inputs)?, sub(right, inputs)?)
        }
        Expr::Cast { ty, arg } => {
            let to = Ty::from_name(ty)
                .ok_or_else(|| format!("a cast to `{ty}`, which is not a primitive type"))?;
            Node::Cast(to, sub(arg, inputs)?)
        }
        Expr::Method { name, arg } => {
            let known = (method::METHODS.iter())
                .find(|m| **m == name.as_str())
                .ok_or_else(|| format!("a call of `{name}`, which a candidate cannot make"))?;
            Node::Method(known, sub(arg, inputs)?)
        }
    })
}

/// A value a hook reports to a candidate: as the hook captured it ([`Val`]), or as a trace
/// or a plan holds it ([`Value`]).
pub(crate) trait Reported {
    /// The scalar the value is, or what it is instead.
    fn scalar(&self) -> Result<Scalar, String>;
}

impl Reported for Value {
    #[inline(always)]
    fn scalar(&self) -> Result<Scalar, String> {
        scalar_of(self)
    }
}

impl Reported for Val {
    #[inline(always)]
    fn scalar(&self) -> Result<Scalar, String> {
        match self {
            Val::Int { ty, v } => int_scalar(ty, *v),
            Val::F32(bits) => Ok(Scalar::F32(f32::from_bits(*bits))),
            Val::F64(bits) => Ok(Scalar::F64(f64::from_bits(*bits))),
            Val::Bool(b) => Ok(Scalar::Bool(*b)),
            Val::Char(c) => Ok(Scalar::Char(*c)),
            Val::Str { .. } => Err("a string".to_string()),
            Val::Ints { .. } | Val::Seq { .. } => Err("a sequence".to_string()),
            Val::Unit => Err("`()`".to_string()),
            Val::Opt { ty, .. } => Err(format!("an `Option<{ty}>`")),
            Val::Opaque { ty } => Err(format!("a value of type `{ty}`")),
        }
    }
}

#[inline(always)]
fn int_scalar(ty: &str, v: i128) -> Result<Scalar, String> {
    match Ty::from_name(ty) {
        Some(Ty::Int(t)) => t
            .bits_of(v)
            .map(|bits| Scalar::Int(t, bits))
            .ok_or_else(|| format!("the integer {v}, out of the range of `{ty}`")),
        _ => Err(format!("an integer of type `{ty}`, not an integer type")),
    }
}

/// The scalar a recorded or literal value is, or what it is instead.
// Inlined into `resolve`, as the operators below into `eval`: out of line, every call returns
// its result through memory and an evaluation costs about three times as much (measured by
// `evaluation_cost`).
#[inline(always)]
fn scalar_of(value: &Value) -> Result<Scalar, String> {
    match value {
        Value::Int { ty, v } => int_scalar(ty, *v),
        Value::Float { ty, v } => {
            let parsed = match ty.as_str() {
                "f32" => v.parse().ok().map(Scalar::F32),
                "f64" => v.parse().ok().map(Scalar::F64),
                _ => None,
            };
            parsed.ok_or_else(|| format!("the float `{v}` of type `{ty}`, which does not parse"))
        }
        Value::Bool(b) => Ok(Scalar::Bool(*b)),
        Value::Char(c) => Ok(Scalar::Char(*c)),
        Value::Str { .. } => Err("a string".to_string()),
        Value::Seq { .. } => Err("a sequence".to_string()),
        Value::Unit => Err("`()`".to_string()),
        Value::Opt { ty, .. } => Err(format!("an `Option<{ty}>`")),
        Value::Opaque { ty } => Err(format!("a value of type `{ty}`")),
    }
}

/// The type of `node`, or why rustc would refuse it.
fn check(node: &Node, env: &Env<'_>) -> Result<Ty, String> {
    match node {
        Node::Lit(s) => Ok(s.ty()),
        Node::Input(i) => Ok(env.vars[*i].ty()),
        Node::Original => env.original.map(Scalar::ty).map_err(|ty| {
            format!("the site's own value is of type `{ty}`, which a candidate cannot compute with")
        }),
        Node::Unary(op, arg) => unary_ty(*op, check(arg, env)?),
        Node::Binary(op, left, right) => binary_ty(*op, check(left, env)?, check(right, env)?),
        Node::Cast(to, arg) => {
            let from = check(arg, env)?;
            // `cast` is the one statement of which casts exist; a zero of the type asks it.
            scalar::cast(zero(from), *to)
                .map(|_| *to)
                .ok_or_else(|| format!("no cast `{from} as {to}` in Rust"))
        }
        Node::Method(name, arg) => method::ty(name, check(arg, env)?),
    }
}

fn zero(ty: Ty) -> Scalar {
    match ty {
        Ty::Int(t) => Scalar::Int(t, 0),
        Ty::F32 => Scalar::F32(0.0),
        Ty::F64 => Scalar::F64(0.0),
        Ty::Bool => Scalar::Bool(false),
        Ty::Char => Scalar::Char('\0'),
    }
}

fn unary_ty(op: UnOp, t: Ty) -> Result<Ty, String> {
    let ok = match op {
        UnOp::Neg => match t {
            Ty::Int(i) => i.is_signed(),
            Ty::F32 | Ty::F64 => true,
            Ty::Bool | Ty::Char => false,
        },
        UnOp::Not => matches!(t, Ty::Int(_) | Ty::Bool),
    };
    let symbol = match op {
        UnOp::Neg => "-",
        UnOp::Not => "!",
    };
    ok.then_some(t)
        .ok_or_else(|| format!("no unary `{symbol}` on `{t}` in Rust"))
}

fn binary_ty(op: BinOp, l: Ty, r: Ty) -> Result<Ty, String> {
    let numeric = |t: Ty| matches!(t, Ty::Int(_) | Ty::F32 | Ty::F64);
    let ok = match op {
        BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Rem => l == r && numeric(l),
        BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor => {
            l == r && matches!(l, Ty::Int(_) | Ty::Bool)
        }
        // A shift's amount may be of any integer type.
        BinOp::Shl | BinOp::Shr => matches!((l, r), (Ty::Int(_), Ty::Int(_))),
        BinOp::And | BinOp::Or => l == Ty::Bool && r == Ty::Bool,
        BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => l == r,
    };
    if !ok {
        return Err(format!(
            "no `{l} {} {r}` in Rust (mixed types need a cast)",
            symbol(op)
        ));
    }
    Ok(match op {
        BinOp::And
        | BinOp::Or
        | BinOp::Eq
        | BinOp::Ne
        | BinOp::Lt
        | BinOp::Le
        | BinOp::Gt
        | BinOp::Ge => Ty::Bool,
        _ => l,
    })
}

fn symbol(op: BinOp) -> &'static str {
    match op {
        BinOp::Add => "+",
        BinOp::Sub => "-",
        BinOp::Mul => "*",
        BinOp::Div => "/",
        BinOp::Rem => "%",
        BinOp::BitAnd => "&",
        BinOp::BitOr => "|",
        BinOp::BitXor => "^",
        BinOp::Shl => "<<",
        BinOp::Shr => ">>",
        BinOp::And => "&&",
        BinOp::Or => "||",
        BinOp::Eq => "==",
        BinOp::Ne => "!=",
        BinOp::Lt => "<",
        BinOp::Le => "<=",
        BinOp::Gt => ">",
        BinOp::Ge => ">=",
    }
}

/// Evaluates a type-checked `node`; a combination [`check`] would refuse is still
/// [`Failure::Invalid`], never a panic of the runtime.
fn eval(node: &Node, env: &Env<'_>) -> Result<Scalar, Failure> {
    match node {
        Node::Lit(s) => Ok(*s),
        Node::Input(i) => Ok(env.vars[*i]),
        Node::Original => env
            .original
            .map_err(|ty| Failure::Invalid(format!("the site's own value is of type `{ty}`"))),
        Node::Unary(op, arg) => unary(*op, eval(arg, env)?),
        Node::Binary(op @ (BinOp::And | BinOp::Or), left, right) => {
            let decided = *op == BinOp::Or;
            match eval(left, env)? {
                // Short-circuit: the right operand is not evaluated (it was type-checked).
                Scalar::Bool(l) if l == decided => Ok(Scalar::Bool(decided)),
                Scalar::Bool(_) => match eval(right, env)? {
                    r @ Scalar::Bool(_) => Ok(r),
                    r => Err(mismatch(*op, Ty::Bool, r.ty())),
                },
                l => Err(mismatch(*op, l.ty(), Ty::Bool)),
            }
        }
        Node::Binary(op, left, right) => binary(*op, eval(left, env)?, eval(right, env)?),
        Node::Cast(to, arg) => {
            let x = eval(arg, env)?;
            scalar::cast(x, *to)
                .ok_or_else(|| Failure::Invalid(format!("no cast `{} as {to}` in Rust", x.ty())))
        }
        Node::Method(name, arg) => method::apply(name, eval(arg, env)?),
    }
}

fn mismatch(op: BinOp, l: Ty, r: Ty) -> Failure {
    Failure::Invalid(format!("no `{l} {} {r}` in Rust", symbol(op)))
}

#[inline(always)]
fn unary(op: UnOp, x: Scalar) -> Result<Scalar, Failure> {
    match (op, x) {
        (UnOp::Neg, Scalar::Int(t, v)) if t.is_signed() => scalar::int_neg(t, v)
            .map(|v| Scalar::Int(t, v))
            .map_err(Failure::Panic),
        (UnOp::Neg, Scalar::F32(f)) => Ok(Scalar::F32(-f)),
        (UnOp::Neg, Scalar::F64(f)) => Ok(Scalar::F64(-f)),
        (UnOp::Not, Scalar::Int(t, v)) => Ok(Scalar::Int(t, scalar::int_not(t, v))),
        (UnOp::Not, Scalar::Bool(b)) => Ok(Scalar::Bool(!b)),
        _ => Err(Failure::Invalid(
            unary_ty(op, x.ty()).err().unwrap_or_default(),
        )),
    }
}

#[inline(always)]
fn binary(op: BinOp, l: Scalar, r: Scalar) -> Result<Scalar, Failure> {
    use Scalar::{Bool, F32, F64, Int};
    let arith = match op {
        BinOp::Add => Some(Arith::Add),
        BinOp::Sub => Some(Arith::Sub),
        BinOp::Mul => Some(Arith::Mul),
        BinOp::Div => Some(Arith::Div),
        BinOp::Rem => Some(Arith::Rem),
        _ => None,
    };
    if let Some(arith) = arith {
        return match (l, r) {
            (Int(t, a), Int(u, b)) if t == u => scalar::int_arith(t, arith, a, b)
                .map(|v| Int(t, v))
                .map_err(Failure::Panic),
            (F32(a), F32(b)) => Ok(F32(scalar::float_arith(arith, a, b))),
            (F64(a), F64(b)) => Ok(F64(scalar::float_arith(arith, a, b))),
            _ => Err(mismatch(op, l.ty(), r.ty())),
        };
    }
    match (op, l, r) {
        (BinOp::BitAnd, Int(t, a), Int(u, b)) if t == u => Ok(Int(t, a & b)),
        (BinOp::BitOr, Int(t, a), Int(u, b)) if t == u => Ok(Int(t, a | b)),
        (BinOp::BitXor, Int(t, a), Int(u, b)) if t == u => Ok(Int(t, a ^ b)),
        (BinOp::BitAnd, Bool(a), Bool(b)) => Ok(Bool(a & b)),
        (BinOp::BitOr, Bool(a), Bool(b)) => Ok(Bool(a | b)),
        (BinOp::BitXor, Bool(a), Bool(b)) => Ok(Bool(a ^ b)),
        (BinOp::Shl | BinOp::Shr, Int(t, a), Int(u, b)) => {
            scalar::int_shift(t, a, u, b, op == BinOp::Shl)
                .map(|v| Int(t, v))
                .map_err(Failure::Panic)
        }
        (BinOp::And, Bool(a), Bool(b)) => Ok(Bool(a && b)),
        (BinOp::Or, Bool(a), Bool(b)) => Ok(Bool(a || b)),
        (BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge, _, _)
            if l.ty() == r.ty() =>
        {
            let order = compare(l, r);
            Ok(Bool(match op {
                BinOp::Eq => order == Some(Ordering::Equal),
                BinOp::Ne => order != Some(Ordering::Equal),
                BinOp::Lt => order == Some(Ordering::Less),
                BinOp::Le => matches!(order, Some(Ordering::Less | Ordering::Equal)),
                BinOp::Gt => order == Some(Ordering::Greater),
                _ => matches!(order, Some(Ordering::Greater | Ordering::Equal)),
            }))
        }
        _ => Err(mismatch(op, l.ty(), r.ty())),
    }
}

/// How two scalars of one type compare (`None` for a NaN).
#[inline(always)]
fn compare(l: Scalar, r: Scalar) -> Option<Ordering> {
    match (l, r) {
        (Scalar::Int(t, a), Scalar::Int(_, b)) => Some(scalar::int_cmp(t, a, b)),
        (Scalar::F32(a), Scalar::F32(b)) => a.partial_cmp(&b),
        (Scalar::F64(a), Scalar::F64(b)) => a.partial_cmp(&b),
        (Scalar::Bool(a), Scalar::Bool(b)) => Some(a.cmp(&b)),
        (Scalar::Char(a), Scalar::Char(b)) => Some(a.cmp(&b)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use scalar::IntTy;

    fn int(ty: &str, v: i128) -> Value {
        Value::Int { ty: ty.into(), v }
    }

    fn lit(ty: &str, v: i128) -> Expr {
        Expr::Lit { value: int(ty, v) }
    }

    fn var(name: &str) -> Expr {
        Expr::Var { name: name.into() }
    }

    fn bin(op: BinOp, left: Expr, right: Expr) -> Expr {
        Expr::Binary {
            op,
            left: Box::new(left),
            right: Box::new(right),
        }
    }

    fn cast(ty: &str, arg: Expr) -> Expr {
        Expr::Cast {
            ty: ty.into(),
            arg: Box::new(arg),
        }
    }

    fn i(ty: IntTy, v: i128) -> Scalar {
        Scalar::Int(ty, ty.bits_of(v).unwrap())
    }

    const I32: Ty = Ty::Int(IntTy::I32);
    const U8: Ty = Ty::Int(IntTy::U8);

    /// Evaluates `expr` for a site of type `want` whose code computed `original`.
    fn eval_at(
        expr: &Expr,
        scope: &[(&str, Value)],
        original: Result<Scalar, &str>,
        want: Ty,
    ) -> Result<Scalar, Failure> {
        Candidate::compile(expr)
            .unwrap()
            .evaluate(original, &[], scope, want)
    }

    fn invalid(result: Result<Scalar, Failure>) -> String {
        match result {
            Err(Failure::Invalid(message)) => message,
            other => panic!("expected an invalid candidate, got {other:?}"),
        }
    }

    fn method(name: &str, arg: Expr) -> Expr {
        Expr::Method {
            name: name.into(),
            arg: Box::new(arg),
        }
    }

    #[test]
    fn methods_of_primitive_values_compute_as_rust_does() {
        // c.is_whitespace() || original
        let forgot = bin(BinOp::Or, method("is_whitespace", var("c")), Expr::Original);
        let at = |c: char, original: bool| {
            eval_at(
                &forgot,
                &[("c", Value::Char(c))],
                Ok(Scalar::Bool(original)),
                Ty::Bool,
            )
        };
        assert_eq!(at('\t', false), Ok(Scalar::Bool(true)));
        assert_eq!(at('a', false), Ok(Scalar::Bool(false)));
        assert_eq!(at('a', true), Ok(Scalar::Bool(true)));
        let x = |v: i128| [("x", int("i32", v))];
        let abs = method("abs", var("x"));
        assert_eq!(
            eval_at(&abs, &x(-7), Err("unused"), I32),
            Ok(i(IntTy::I32, 7))
        );
        assert_eq!(
            eval_at(&abs, &x(i32::MIN.into()), Err("unused"), I32),
            Err(Failure::Panic("attempt to negate with overflow"))
        );
        let signum = method("signum", var("x"));
        assert_eq!(
            eval_at(&signum, &x(-7), Err("unused"), I32),
            Ok(i(IntTy::I32, -1))
        );
        let f = [(
            "f",
            Value::Float {
                ty: "f32".into(),
                v: "2.5".into(),
            },
        )];
        assert_eq!(
            eval_at(&method("floor", var("f")), &f, Err("unused"), Ty::F32),
            Ok(Scalar::F32(2.0))
        );
        // Type-checked as rustc would: no `abs` on a `char`, no `is_whitespace` on an `i32`,
        // no method the runtime does not have.
        let c = [("c", Value::Char('x'))];
        assert!(
            invalid(eval_at(
                &method("abs", var("c")),
                &c,
                Err("unused"),
                Ty::Char
            ))
            .contains("abs")
        );
        assert!(
            invalid(eval_at(
                &method("is_whitespace", var("x")),
                &x(1),
                Err("unused"),
                Ty::Bool
            ))
            .contains("is_whitespace")
        );
        assert!(Candidate::compile(&method("to_string", var("c"))).is_err());
        // `u8` has no `abs`.
        let u = [("u", int("u8", 3))];
        assert!(invalid(eval_at(&method("abs", var("u")), &u, Err("unused"), U8)).contains("abs"));
    }

    #[test]
    fn a_typical_condition() {
        // a + 1 < b
        let e = bin(
            BinOp::Lt,
            bin(BinOp::Add, var("a"), lit("i32", 1)),
            var("b"),
        );
        let candidate = Candidate::compile(&e).unwrap();
        assert!(candidate.reads_scope());
        let scope = |a, b| [("a", int("i32", a)), ("b", int("i32", b))];
        let at = |a, b| candidate.evaluate(Err("unused"), &[], &scope(a, b), Ty::Bool);
        assert_eq!(at(1, 3), Ok(Scalar::Bool(true)));
        assert_eq!(at(2, 3), Ok(Scalar::Bool(false)));
        assert_eq!(at(-5, -3), Ok(Scalar::Bool(true)));
        assert_eq!(
            at(i32::MAX.into(), 0),
            Err(Failure::Panic("attempt to add with overflow"))
        );
    }

    #[test]
    fn overflow_is_in_the_width_of_the_operands() {
        let plus_one = |ty: &str| bin(BinOp::Add, var("x"), lit(ty, 1));
        let u8_scope = [("x", int("u8", 255))];
        assert_eq!(
            eval_at(&plus_one("u8"), &u8_scope, Err("-"), U8),
            Err(Failure::Panic("attempt to add with overflow"))
        );
        let i32_scope = [("x", int("i32", 255))];
        assert_eq!(
            eval_at(&plus_one("i32"), &i32_scope, Err("-"), I32),
            Ok(i(IntTy::I32, 256))
        );
        // u8 - 1 below zero, i8 * 2 past 127, negation of the minimum.
        let sub = bin(BinOp::Sub, var("x"), lit("u8", 1));
        assert_eq!(
            eval_at(&sub, &[("x", int("u8", 0))], Err("-"), U8),
            Err(Failure::Panic("attempt to subtract with overflow"))
        );
        let mul = bin(BinOp::Mul, var("x"), lit("i8", 2));
        assert_eq!(
            eval_at(&mul, &[("x", int("i8", 64))], Err("-"), Ty::Int(IntTy::I8)),
            Err(Failure::Panic("attempt to multiply with overflow"))
        );
        let neg = Expr::Unary {
            op: UnOp::Neg,
            arg: Box::new(var("x")),
        };
        assert_eq!(
            eval_at(&neg, &[("x", int("i32", i32::MIN.into()))], Err("-"), I32),
            Err(Failure::Panic("attempt to negate with overflow"))
        );
    }

    #[test]
    fn mixed_integer_types_are_plan_errors() {
        let e = bin(BinOp::Add, var("a"), var("b"));
        let scope = [("a", int("i32", 1)), ("b", int("u8", 2))];
        let message = invalid(eval_at(&e, &scope, Err("-"), I32));
        assert!(message.contains("i32 + u8"), "{message}");
        // A literal of another type than the variable's is the same mistake.
        let e = bin(BinOp::Lt, var("a"), lit("i64", 3));
        let message = invalid(eval_at(&e, &scope, Err("-"), Ty::Bool));
        assert!(message.contains("i32 < i64"), "{message}");
        // The result must have the site's type.
        let message = invalid(eval_at(&var("b"), &scope, Err("-"), I32));
        assert!(
            message.contains("type `u8`") && message.contains("type `i32`"),
            "{message}"
        );
        // A shift amount may be of any integer type.
        let e = bin(BinOp::Shl, var("a"), var("b"));
        assert_eq!(eval_at(&e, &scope, Err("-"), I32), Ok(i(IntTy::I32, 4)));
    }

    #[test]
    fn casts_convert_like_as() {
        let scope = [("a", int("i32", -1)), ("b", int("u8", 200))];
        assert_eq!(
            eval_at(&cast("u8", var("a")), &scope, Err("-"), U8),
            Ok(i(IntTy::U8, 255))
        );
        assert_eq!(
            eval_at(&cast("i8", var("b")), &scope, Err("-"), Ty::Int(IntTy::I8)),
            Ok(i(IntTy::I8, -56))
        );
        // The mixed sum made to compile: `a + b as i32`.
        let e = bin(BinOp::Add, var("a"), cast("i32", var("b")));
        assert_eq!(eval_at(&e, &scope, Err("-"), I32), Ok(i(IntTy::I32, 199)));
        // Widening first avoids the overflow of the narrow type.
        let e = bin(BinOp::Mul, cast("i64", var("a")), lit("i64", 3_000_000_000));
        assert_eq!(
            eval_at(&e, &scope, Err("-"), Ty::Int(IntTy::I64)),
            Ok(i(IntTy::I64, -3_000_000_000))
        );
        let message = invalid(eval_at(&cast("bool", var("a")), &scope, Err("-"), Ty::Bool));
        assert!(message.contains("i32 as bool"), "{message}");
        let f = Value::Float {
            ty: "f64".into(),
            v: "-2.7".into(),
        };
        assert_eq!(
            eval_at(&cast("i32", var("f")), &[("f", f)], Err("-"), I32),
            Ok(i(IntTy::I32, -2))
        );
    }

    #[test]
    fn division_by_zero_panics() {
        let scope = [("a", int("i32", 7)), ("z", int("i32", 0))];
        assert_eq!(
            eval_at(&bin(BinOp::Div, var("a"), var("z")), &scope, Err("-"), I32),
            Err(Failure::Panic("attempt to divide by zero"))
        );
        assert_eq!(
            eval_at(&bin(BinOp::Rem, var("a"), var("z")), &scope, Err("-"), I32),
            Err(Failure::Panic(
                "attempt to calculate the remainder with a divisor of zero"
            ))
        );
        // Floats divide by zero without panicking.
        let f = |v: &str| Value::Float {
            ty: "f64".into(),
            v: v.into(),
        };
        let e = bin(BinOp::Div, var("x"), var("y"));
        assert_eq!(
            eval_at(&e, &[("x", f("1")), ("y", f("0"))], Err("-"), Ty::F64),
            Ok(Scalar::F64(f64::INFINITY))
        );
    }

    #[test]
    fn original_is_the_written_code_s_value() {
        let e = bin(BinOp::Add, Expr::Original, lit("i32", 1));
        assert_eq!(
            eval_at(&e, &[], Ok(i(IntTy::I32, 41)), I32),
            Ok(i(IntTy::I32, 42))
        );
        assert!(!Candidate::compile(&e).unwrap().reads_scope());
        // A condition that keeps the written one and adds a clause.
        let e = bin(
            BinOp::And,
            Expr::Original,
            bin(BinOp::Gt, var("x"), lit("i32", 0)),
        );
        let scope = [("x", int("i32", 5))];
        assert_eq!(
            eval_at(&e, &scope, Ok(Scalar::Bool(true)), Ty::Bool),
            Ok(Scalar::Bool(true))
        );
        assert_eq!(
            eval_at(&e, &scope, Ok(Scalar::Bool(false)), Ty::Bool),
            Ok(Scalar::Bool(false))
        );
        // A site whose value is no scalar has no `Original` to compute with.
        let message = invalid(eval_at(
            &Expr::Original,
            &[],
            Err("alloc::string::String"),
            I32,
        ));
        assert!(message.contains("alloc::string::String"), "{message}");
    }

    #[test]
    fn and_or_short_circuit() {
        // x != 0 && 10 / x > 1: no division when x is 0.
        let guarded = bin(
            BinOp::And,
            bin(BinOp::Ne, var("x"), lit("i32", 0)),
            bin(
                BinOp::Gt,
                bin(BinOp::Div, lit("i32", 10), var("x")),
                lit("i32", 1),
            ),
        );
        let at = |x| eval_at(&guarded, &[("x", int("i32", x))], Err("-"), Ty::Bool);
        assert_eq!(at(0), Ok(Scalar::Bool(false)));
        assert_eq!(at(5), Ok(Scalar::Bool(true)));
        assert_eq!(at(20), Ok(Scalar::Bool(false)));
        // x == 0 || 10 / x > 1
        let either = bin(
            BinOp::Or,
            bin(BinOp::Eq, var("x"), lit("i32", 0)),
            bin(
                BinOp::Gt,
                bin(BinOp::Div, lit("i32", 10), var("x")),
                lit("i32", 1),
            ),
        );
        let at = |x| eval_at(&either, &[("x", int("i32", x))], Err("-"), Ty::Bool);
        assert_eq!(at(0), Ok(Scalar::Bool(true)));
        assert_eq!(at(20), Ok(Scalar::Bool(false)));
        // `&` on bools evaluates both sides: the division panics.
        let eager = bin(
            BinOp::BitAnd,
            bin(BinOp::Ne, var("x"), lit("i32", 0)),
            bin(
                BinOp::Gt,
                bin(BinOp::Div, lit("i32", 10), var("x")),
                lit("i32", 1),
            ),
        );
        assert_eq!(
            eval_at(&eager, &[("x", int("i32", 0))], Err("-"), Ty::Bool),
            Err(Failure::Panic("attempt to divide by zero"))
        );
        // A skipped operand must still type-check: the program would not compile.
        let ill_typed = bin(
            BinOp::And,
            Expr::Lit {
                value: Value::Bool(false),
            },
            bin(BinOp::Gt, var("x"), lit("u8", 0)),
        );
        let message = invalid(eval_at(
            &ill_typed,
            &[("x", int("i32", 0))],
            Err("-"),
            Ty::Bool,
        ));
        assert!(message.contains("i32 > u8"), "{message}");
    }

    #[test]
    fn the_type_check_is_redone_for_other_types() {
        // A generic function's site sees other types per instantiation: what checked for
        // one must be checked again for the other.
        let candidate = Candidate::compile(&bin(BinOp::Add, var("a"), lit("i32", 1))).unwrap();
        let i32s = [("a", int("i32", 1))];
        assert_eq!(
            candidate.evaluate(Err("-"), &[], &i32s, I32),
            Ok(i(IntTy::I32, 2))
        );
        assert_eq!(
            candidate.evaluate(Err("-"), &[], &i32s, I32),
            Ok(i(IntTy::I32, 2))
        );
        let message = invalid(candidate.evaluate(Err("-"), &[], &[("a", int("u8", 1))], U8));
        assert!(message.contains("u8 + i32"), "{message}");
        let message = invalid(candidate.evaluate(Err("-"), &[], &i32s, U8));
        assert!(message.contains("type `u8`"), "{message}");
        assert_eq!(
            candidate.evaluate(Err("-"), &[], &i32s, I32),
            Ok(i(IntTy::I32, 2))
        );
    }

    fn operand(index: u32) -> Expr {
        Expr::Operand { index }
    }

    #[test]
    fn operands_are_the_sides_of_the_written_comparison() {
        // `s > a[i]` written, `s < a[i]` meant: the element is no variable in scope, but it
        // is the comparison's right operand.
        let fix = bin(BinOp::Lt, operand(0), operand(1));
        let candidate = Candidate::compile(&fix).unwrap();
        assert!(candidate.reads_operands() && !candidate.reads_scope());
        let at = |s, e| {
            candidate.evaluate(
                Ok(Scalar::Bool(s > e)),
                &[int("i32", s), int("i32", e)],
                &[],
                Ty::Bool,
            )
        };
        assert_eq!(at(1, 5), Ok(Scalar::Bool(true)));
        assert_eq!(at(5, 1), Ok(Scalar::Bool(false)));
        assert_eq!(at(3, 3), Ok(Scalar::Bool(false)));
        // An operand kept, the other side a variable in scope: `a[i] < limit + 1`.
        let mixed = bin(
            BinOp::Lt,
            operand(0),
            bin(BinOp::Add, var("limit"), lit("usize", 1)),
        );
        let candidate = Candidate::compile(&mixed).unwrap();
        assert!(candidate.reads_operands() && candidate.reads_scope());
        let operands = [int("usize", 4), int("usize", 9)];
        let scope = [("limit", int("usize", 3))];
        assert_eq!(
            candidate.evaluate(Err("-"), &operands, &scope, Ty::Bool),
            Ok(Scalar::Bool(false))
        );
        // An operand read twice is resolved once.
        let twice = Candidate::compile(&bin(BinOp::Mul, operand(1), operand(1))).unwrap();
        assert_eq!(twice.inputs, [Input::Operand(1)]);
        assert_eq!(
            twice.evaluate(
                Err("-"),
                &[int("i64", 0), int("i64", -3)],
                &[],
                Ty::Int(IntTy::I64)
            ),
            Ok(i(IntTy::I64, 9))
        );
        // No operand is a variable: a scope holding a variable of either name does not count.
        assert!(!Candidate::compile(&var("x")).unwrap().reads_operands());
    }

    #[test]
    fn operands_the_site_does_not_report_are_plan_errors() {
        let fix = bin(BinOp::Lt, operand(0), operand(1));
        // A condition that is no comparison (or whose sides have effects) reports none.
        let message = invalid(eval_at_operands(&fix, &[], Ty::Bool));
        assert!(message.contains("reports no operand"), "{message}");
        let message = invalid(eval_at_operands(&fix, &[int("i32", 1)], Ty::Bool));
        assert!(
            message.contains("operand 1") && message.contains("reports 1"),
            "{message}"
        );
        let message = invalid(eval_at_operands(
            &operand(7),
            &[Value::Bool(true), Value::Bool(false)],
            Ty::Bool,
        ));
        assert!(message.contains("operand 7"), "{message}");
        // A comparison of strings reports them, but a candidate cannot compute with them.
        let text = Value::Str {
            v: "x".into(),
            truncated: false,
        };
        let message = invalid(eval_at_operands(&fix, &[text.clone(), text], Ty::Bool));
        assert!(message.contains("operand 0 is a string"), "{message}");
        // Operands have the types they were recorded with: no `usize < i32`.
        let mixed = bin(BinOp::Lt, operand(0), lit("i32", 3));
        let message = invalid(eval_at_operands(&mixed, &[int("usize", 1)], Ty::Bool));
        assert!(message.contains("usize < i32"), "{message}");
        // The type check is redone when an operand's type changes (a generic function).
        let candidate = Candidate::compile(&mixed).unwrap();
        assert_eq!(
            candidate.evaluate(Err("-"), &[int("i32", 1)], &[], Ty::Bool),
            Ok(Scalar::Bool(true))
        );
        let message = invalid(candidate.evaluate(Err("-"), &[int("u8", 1)], &[], Ty::Bool));
        assert!(message.contains("u8 < i32"), "{message}");
    }

    fn eval_at_operands(expr: &Expr, operands: &[Value], want: Ty) -> Result<Scalar, Failure> {
        Candidate::compile(expr)
            .unwrap()
            .evaluate(Err("-"), operands, &[], want)
    }

    #[test]
    fn variables_must_be_reported_scalars() {
        let e = bin(BinOp::Add, var("a"), var("y"));
        let message = invalid(eval_at(&e, &[("a", int("i32", 1))], Err("-"), I32));
        assert!(
            message.contains("`y`") && message.contains("(a)"),
            "{message}"
        );
        let seq = Value::Seq {
            items: vec![],
            len: 0,
        };
        let message = invalid(eval_at(&var("v"), &[("v", seq)], Err("-"), I32));
        assert!(message.contains("sequence"), "{message}");
        // The innermost binding of a name is the visible one.
        let scope = [("a", int("i32", 1)), ("a", int("i32", 2))];
        assert_eq!(
            eval_at(&var("a"), &scope, Err("-"), I32),
            Ok(i(IntTy::I32, 2))
        );
    }

    #[test]
    fn comparisons_of_every_primitive() {
        let f = |v: &str| Value::Float {
            ty: "f32".into(),
            v: v.into(),
        };
        let nan = [("x", f("NaN"))];
        for op in [BinOp::Lt, BinOp::Le, BinOp::Gt, BinOp::Ge, BinOp::Eq] {
            assert_eq!(
                eval_at(&bin(op, var("x"), var("x")), &nan, Err("-"), Ty::Bool),
                Ok(Scalar::Bool(false)),
                "{op:?} with NaN"
            );
        }
        assert_eq!(
            eval_at(
                &bin(BinOp::Ne, var("x"), var("x")),
                &nan,
                Err("-"),
                Ty::Bool
            ),
            Ok(Scalar::Bool(true))
        );
        // f32 arithmetic is f32's: 0.1 + 0.2 rounds as f32 does.
        let sum = bin(BinOp::Add, var("a"), var("b"));
        assert_eq!(
            eval_at(&sum, &[("a", f("0.1")), ("b", f("0.2"))], Err("-"), Ty::F32),
            Ok(Scalar::F32(0.1f32 + 0.2f32))
        );
        let chars = [("c", Value::Char('b'))];
        let lt = bin(
            BinOp::Lt,
            var("c"),
            Expr::Lit {
                value: Value::Char('c'),
            },
        );
        assert_eq!(
            eval_at(&lt, &chars, Err("-"), Ty::Bool),
            Ok(Scalar::Bool(true))
        );
        let unsigned = [("u", int("u32", u32::MAX.into())), ("w", int("u32", 1))];
        assert_eq!(
            eval_at(
                &bin(BinOp::Gt, var("u"), var("w")),
                &unsigned,
                Err("-"),
                Ty::Bool
            ),
            Ok(Scalar::Bool(true))
        );
        let message = invalid(eval_at(
            &Expr::Unary {
                op: UnOp::Neg,
                arg: Box::new(var("u")),
            },
            &unsigned,
            Err("-"),
            Ty::Int(IntTy::U32),
        ));
        assert!(message.contains("`-` on `u32`"), "{message}");
    }

    #[test]
    fn what_can_never_be_evaluated_is_refused_at_compile() {
        let err = Candidate::compile(&lit("u8", 256)).unwrap_err();
        assert!(err.contains("out of the range of `u8`"), "{err}");
        let err = Candidate::compile(&lit("i33", 1)).unwrap_err();
        assert!(err.contains("i33"), "{err}");
        let err = Candidate::compile(&Expr::Lit {
            value: Value::Str {
                v: "x".into(),
                truncated: false,
            },
        })
        .unwrap_err();
        assert!(err.contains("string"), "{err}");
        let err = Candidate::compile(&cast("String", var("a"))).unwrap_err();
        assert!(err.contains("`String`"), "{err}");
        // A variable read twice is resolved once.
        let twice = Candidate::compile(&bin(BinOp::Mul, var("a"), var("a"))).unwrap();
        assert_eq!(twice.inputs, [Input::Var("a".into())]);
        assert_eq!(
            twice.evaluate(Err("-"), &[], &[("a", int("i32", -3))], I32),
            Ok(i(IntTy::I32, 9))
        );
    }

    #[test]
    fn many_variables_spill_to_the_heap() {
        let names: Vec<String> = (0..INLINE_VARS + 3).map(|k| format!("v{k}")).collect();
        let sum = names
            .iter()
            .map(|n| var(n))
            .reduce(|a, b| bin(BinOp::Add, a, b))
            .unwrap();
        let scope: Vec<(&str, Value)> = names
            .iter()
            .enumerate()
            .map(|(k, n)| (n.as_str(), int("i64", k as i128)))
            .collect();
        let n = names.len() as i128;
        assert_eq!(
            eval_at(&sum, &scope, Err("-"), Ty::Int(IntTy::I64)),
            Ok(i(IntTy::I64, n * (n - 1) / 2))
        );
    }

    /// Not a check: prints what evaluating `a + 1 < b` costs, alone and with the scope built
    /// as a hook's closure builds it (`cargo test -p autodebug-runtime --release --lib --
    /// --ignored --nocapture evaluation_cost`).
    #[test]
    #[ignore]
    fn evaluation_cost() {
        use std::hint::black_box;
        use std::time::Instant;
        let e = bin(
            BinOp::Lt,
            bin(BinOp::Add, var("a"), lit("i32", 1)),
            var("b"),
        );
        let candidate = Candidate::compile(&e).unwrap();
        let n = 2_000_000u32;
        let scope = [("a", int("i32", 1)), ("b", int("i32", 3))];
        let start = Instant::now();
        for _ in 0..n {
            black_box(candidate.evaluate(Err("-"), &[], black_box(&scope), Ty::Bool)).unwrap();
        }
        let alone = start.elapsed().as_nanos() as f64 / f64::from(n);
        let start = Instant::now();
        for k in 0..n {
            let (a, b) = (black_box(k as i32 % 100), 50i32);
            let scope = vec![("a", crate::value::val(&a)), ("b", crate::value::val(&b))];
            black_box(candidate.evaluate(Err("-"), &[], &scope, Ty::Bool)).unwrap();
        }
        let with_scope = start.elapsed().as_nanos() as f64 / f64::from(n);
        println!(
            "`a + 1 < b`: {alone:.1} ns per evaluation; {with_scope:.1} ns with the scope \
             built as the hook's closure builds it"
        );
    }
}
