//! Candidate expressions evaluated over z3 terms at one instance of a component: the
//! variables in scope rebuilt from the instance's reads, the IR's operations with Rust's
//! semantics (the encoder's own value operations), and the panics the candidate would
//! raise there. Only side-effect-free expressions are evaluated: a candidate never calls a
//! function or reads what the model cannot see.

use std::collections::HashMap;

use z3::ast::{Ast, Bool, Dynamic};

use crate::encode::value::{self, Bits, Val};
use crate::ir::{BinOp, Expr, ExprKind, Function, Lit, Program, Type, VarId};

/// The variables a candidate reads at one instance, by IR variable (holes for template
/// parameters included).
pub(crate) type Env = HashMap<VarId, Val>;

/// The variables in `scope` as the instance saw them: `reads` is their flattened leaves, in
/// scope order (see the encoder's `Instance::reads`).
pub(crate) fn scope_env(
    program: &Program,
    function: &Function,
    scope: &[VarId],
    reads: &[Dynamic],
) -> Env {
    let mut env = Env::new();
    let mut at = 0usize;
    for &v in scope {
        let shape = Val::fresh(&function.var(v).ty, "shape", program, &mut |_, _| {});
        let n = shape.leaves().len();
        let Some(leaves) = reads.get(at..at + n) else {
            break;
        };
        at += n;
        let sorts_agree = shape
            .leaves()
            .iter()
            .zip(leaves)
            .all(|(a, b)| a.get_sort() == b.get_sort());
        if sorts_agree {
            env.insert(v, shape.with_leaves(leaves));
        }
    }
    env
}

/// Fresh values for the variables of `scope`: an environment to try a candidate on before
/// any instance (does it evaluate at all?).
pub(crate) fn fresh_env(program: &Program, function: &Function, scope: &[VarId]) -> Env {
    scope
        .iter()
        .map(|&v| {
            let name = format!("probe!{}", function.var(v).name);
            (
                v,
                Val::fresh(&function.var(v).ty, &name, program, &mut |_, _| {}),
            )
        })
        .collect()
}

/// Evaluates pure expressions of one function.
pub(crate) struct Evaluator<'a> {
    pub program: &'a Program,
    pub function: &'a Function,
}

impl Evaluator<'_> {
    /// The value of `e` in `env`, with the conditions under which evaluating it panics
    /// (each already under the condition that the part raising it is evaluated at all).
    pub fn eval(&self, e: &Expr, env: &Env, panics: &mut Vec<Bool>) -> Result<Val, String> {
        Scoped { ev: self, env }.eval_under(e, &Bool::from_bool(true), panics)
    }
}

struct Scoped<'a> {
    ev: &'a Evaluator<'a>,
    env: &'a Env,
}

impl Scoped<'_> {
    fn eval_under(&self, e: &Expr, g: &Bool, panics: &mut Vec<Bool>) -> Result<Val, String> {
        let stop = |s: value::Stop| s.0;
        let raise = |list: Vec<value::Panic>, panics: &mut Vec<Bool>| {
            for p in list {
                panics.push(Bool::and(&[g, &p.cond]));
            }
        };
        match &e.kind {
            ExprKind::Lit(l) => literal(l, &e.ty),
            ExprKind::Var(v) => self.env.get(v).cloned().ok_or_else(|| {
                format!(
                    "reads `{}`, which is not a variable in scope there",
                    self.ev.function.var_name(*v)
                )
            }),
            ExprKind::Unary(op, a) => {
                let a = self.eval_under(a, g, panics)?;
                let (v, p) = value::unary(*op, &a).map_err(stop)?;
                raise(p, panics);
                Ok(v)
            }
            ExprKind::Binary(op @ (BinOp::And | BinOp::Or | BinOp::Implies), a, b)
                if e.ty == Type::Bool =>
            {
                let (x, _) = self.eval_under(a, g, panics)?.as_bool().map_err(stop)?;
                // The right operand runs only when the left one does not decide.
                let gb = match op {
                    BinOp::Or => Bool::and(&[g, &x.not()]),
                    _ => Bool::and(&[g, &x]),
                };
                let (y, _) = self.eval_under(b, &gb, panics)?.as_bool().map_err(stop)?;
                let t = match op {
                    BinOp::And => Bool::and(&[&x, &y]),
                    BinOp::Or => Bool::or(&[&x, &y]),
                    _ => x.implies(&y),
                };
                Ok(Val::Bool(t, None))
            }
            ExprKind::Binary(op, a, b) => {
                let a = self.eval_under(a, g, panics)?;
                let b = self.eval_under(b, g, panics)?;
                let (v, p) = value::binary(*op, &a, &b).map_err(stop)?;
                raise(p, panics);
                Ok(v)
            }
            ExprKind::Cast(a) => {
                let a = self.eval_under(a, g, panics)?;
                value::cast(&a, &e.ty).map_err(stop)
            }
            ExprKind::Index(s, i) => {
                let s = self.eval_under(s, g, panics)?;
                let i = self.eval_under(i, g, panics)?;
                let (v, p) = value::index(&s, &i).map_err(stop)?;
                raise(p, panics);
                Ok(v)
            }
            ExprKind::Len(s) => {
                let s = self.eval_under(s, g, panics)?;
                value::len(&s).map_err(stop)
            }
            ExprKind::Field(a, name) => match self.eval_under(a, g, panics)? {
                Val::Struct(s, fields) => {
                    let at = self
                        .ev
                        .program
                        .struct_def(&s)
                        .and_then(|d| d.fields.iter().position(|(f, _)| f == name))
                        .ok_or_else(|| format!("struct `{s}` has no field `{name}`"))?;
                    fields
                        .get(at)
                        .cloned()
                        .ok_or_else(|| format!("field `{name}` of `{s}`"))
                }
                _ => Err(format!("`.{name}` of a value that is not a struct")),
            },
            ExprKind::TupleField(a, i) => match self.eval_under(a, g, panics)? {
                Val::Tuple(items) => items
                    .get(*i)
                    .cloned()
                    .ok_or_else(|| format!("`.{i}` of a shorter tuple")),
                _ => Err(format!("`.{i}` of a value that is not a tuple")),
            },
            ExprKind::Tuple(items) => {
                let mut out = Vec::with_capacity(items.len());
                for x in items {
                    out.push(self.eval_under(x, g, panics)?);
                }
                Ok(Val::Tuple(out))
            }
            ExprKind::Variant(name, variant) => {
                let at = self
                    .ev
                    .program
                    .enum_def(name)
                    .and_then(|d| d.variants.iter().position(|v| v == variant))
                    .ok_or_else(|| format!("`{name}::{variant}` not found"))?;
                Ok(Val::Bits(
                    value::bv_const(at as i128, 32),
                    Some(at as i128),
                    Bits::Enum,
                ))
            }
            ExprKind::OptionSome(x) => {
                let x = self.eval_under(x, g, panics)?;
                Ok(Val::Option(Bool::from_bool(true), Some(true), Box::new(x)))
            }
            ExprKind::OptionNone => {
                let inner = match &e.ty {
                    Type::Option(inner) => (**inner).clone(),
                    other => other.clone(),
                };
                Ok(Val::Option(
                    Bool::from_bool(false),
                    Some(false),
                    Box::new(Val::zero(&inner, self.ev.program)),
                ))
            }
            ExprKind::IsSome(o) => match self.eval_under(o, g, panics)? {
                Val::Option(s, c, _) => Ok(Val::Bool(s, c)),
                _ => Err("`is_some` of a value that is not an `Option`".into()),
            },
            ExprKind::Unwrap(o) => match self.eval_under(o, g, panics)? {
                Val::Option(s, _, payload) => {
                    panics.push(Bool::and(&[g, &s.not()]));
                    Ok(*payload)
                }
                _ => Err("`unwrap` of a value that is not an `Option`".into()),
            },
            ExprKind::If {
                cond,
                then,
                otherwise,
                ..
            } => {
                let (c, _) = self.eval_under(cond, g, panics)?.as_bool().map_err(stop)?;
                let t = self.eval_under(then, &Bool::and(&[g, &c]), panics)?;
                let o = self.eval_under(otherwise, &Bool::and(&[g, &c.not()]), panics)?;
                Ok(value::ite(&c, None, &t, &o))
            }
            // A candidate's operand is its own expression, not the site the instrumentation
            // reports inside the written one.
            ExprKind::Branch(inner, _) => self.eval_under(inner, g, panics),
            ExprKind::Call { function, .. } => Err(format!("calls `{function}`")),
            ExprKind::Opaque { reason, .. } => Err(format!("computes {reason}")),
            ExprKind::Quantifier { .. } => Err("holds a quantifier".into()),
            ExprKind::Old(_) => Err("reads `old(..)`".into()),
            ExprKind::Push(..)
            | ExprKind::Array(_)
            | ExprKind::Repeat(..)
            | ExprKind::Struct(..) => Err("builds a compound value".into()),
        }
    }
}

/// A literal of type `ty`.
pub(crate) fn literal(l: &Lit, ty: &Type) -> Result<Val, String> {
    Ok(match (l, ty) {
        (Lit::Unit, _) => Val::Unit,
        (Lit::Bool(b), _) => Val::Bool(Bool::from_bool(*b), Some(*b)),
        (Lit::Char(c), _) => Val::Bits(
            value::bv_const(*c as i128, 32),
            Some(*c as i128),
            Bits::Char,
        ),
        (Lit::Int(v), ty) => {
            let bits = value::bits_of(ty).ok_or_else(|| format!("an integer literal of `{ty}`"))?;
            Val::Bits(value::bv_const(*v, bits.width()), Some(*v), bits)
        }
    })
}

/// Whether two values have the same shape of terms (what a candidate must produce in place
/// of the written value).
pub(crate) fn same_shape(a: &[Dynamic], b: &[Dynamic]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.get_sort() == y.get_sort())
}
