//! Candidate expressions evaluated over z3 terms at one instance of a component: the
//! variables in scope rebuilt from the instance's reads, the IR's operations with the
//! meaning the encoding gives them ([`crate::semantics`]), and the panics the candidate would
//! raise there. Only side-effect-free expressions are evaluated: a candidate never calls a
//! function or reads what the model cannot see.

use std::collections::HashMap;

use z3::ast::{Ast, Bool, Dynamic};

use crate::encode::value::{self, R, Stop, Val};
use crate::ir::{BinOp, Expr, ExprKind, Function, Lit, Program, Type, VarId};
use crate::semantics::{self, Called, Interp, Quantified};

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
        let mut at = Scoped {
            ev: self,
            env,
            g: Bool::from_bool(true),
            panics,
        };
        at.eval(e).map_err(|s| s.0)
    }
}

/// One evaluation: the variables, and the condition under which the part being evaluated
/// runs at all.
struct Scoped<'a> {
    ev: &'a Evaluator<'a>,
    env: &'a Env,
    g: Bool,
    panics: &'a mut Vec<Bool>,
}

impl Scoped<'_> {
    fn eval(&mut self, e: &Expr) -> R<Val> {
        semantics::eval(self, e)
    }

    /// The value of `e`, evaluated only where `c` holds.
    fn eval_under(&mut self, e: &Expr, c: &Bool) -> R<Val> {
        Scoped {
            ev: self.ev,
            env: self.env,
            g: Bool::and(&[&self.g, c]),
            panics: &mut *self.panics,
        }
        .eval(e)
    }
}

impl<'a, 'e> Interp<'a, 'e> for Scoped<'a> {
    type Err = Stop;

    fn program(&self) -> &'a Program {
        self.ev.program
    }

    fn var(&self, v: VarId) -> R<Val> {
        self.env.get(&v).cloned().ok_or_else(|| {
            Stop::new(format!(
                "reads `{}`, which is not a variable in scope there",
                self.ev.function.var_name(v)
            ))
        })
    }

    fn raise(&mut self, panics: Vec<value::Panic>) {
        for p in panics {
            self.panics.push(Bool::and(&[&self.g, &p.cond]));
        }
    }

    fn unwrap_none(&mut self, none: Bool, _: Option<bool>) {
        self.panics.push(Bool::and(&[&self.g, &none]));
    }

    /// An integer literal takes its value as written, in any type held in bits.
    fn literal(&self, l: &Lit, ty: &Type) -> R<Val> {
        match (l, ty) {
            (Lit::Int(v), ty) => {
                let bits = value::bits_of(ty)
                    .ok_or_else(|| Stop::new(format!("an integer literal of `{ty}`")))?;
                Ok(Val::Bits(value::bv_const(*v, bits.width()), Some(*v), bits))
            }
            _ => semantics::literal(l, ty),
        }
    }

    fn call(&mut self, c: Called<'e>, _: &Type) -> R<Val> {
        Err(Stop::new(format!("calls `{}`", c.function)))
    }

    fn quantifier(&mut self, _: Quantified<'e>, _: &Type) -> R<Val> {
        Err(Stop::new("holds a quantifier"))
    }

    /// A candidate is evaluated whole: both arms of its `if`s and both operands of its
    /// `&&`s, each under the condition that it runs; it calls nothing and builds nothing.
    fn own(&mut self, e: &'e Expr) -> R<Option<Val>> {
        let v = match &e.kind {
            ExprKind::Binary(op @ (BinOp::And | BinOp::Or | BinOp::Implies), a, b)
                if e.ty == Type::Bool =>
            {
                let (x, _) = self.eval(a)?.as_bool()?;
                let runs = if semantics::right_runs_when(*op) {
                    x.clone()
                } else {
                    x.not()
                };
                let (y, _) = self.eval_under(b, &runs)?.as_bool()?;
                semantics::connective(*op, (&x, None), (&y, None))
            }
            ExprKind::If {
                cond,
                then,
                otherwise,
                ..
            } => {
                let (c, _) = self.eval(cond)?.as_bool()?;
                let t = self.eval_under(then, &c)?;
                let o = self.eval_under(otherwise, &c.not())?;
                value::ite(&c, None, &t, &o)
            }
            // A candidate's operand is its own expression, not the site the instrumentation
            // reports inside the written one.
            ExprKind::Branch(inner, _) => self.eval(inner)?,
            ExprKind::Opaque { reason, .. } => {
                return Err(Stop::new(format!("computes {reason}")));
            }
            ExprKind::Old(_) => return Err(Stop::new("reads `old(..)`")),
            ExprKind::Push(..)
            | ExprKind::Array(_)
            | ExprKind::Repeat(..)
            | ExprKind::Struct(..) => return Err(Stop::new("builds a compound value")),
            _ => return Ok(None),
        };
        Ok(Some(v))
    }
}

/// Whether two values have the same shape of terms (what a candidate must produce in place
/// of the written value).
pub(crate) fn same_shape(a: &[Dynamic], b: &[Dynamic]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.get_sort() == y.get_sort())
}
