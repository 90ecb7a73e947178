//! Repair templates (Könighofer & Bloem, section III-E): an expression with unknown
//! parameters that replaces a component, evaluated at every instance of the component from
//! the values in scope there. The parameters are z3 constants shared by every instance of
//! every call; "simple" instances are preferred by soft constraints (section III-G: as many
//! parameters as possible zero or small), and a found instance is excluded to enumerate the
//! next.
//!
//! From simplest to most expressive: the one-token corrections of [`super::mutate`]
//! (one parameter choosing among them), a constant of the written expression chosen by the
//! solver, `k0 + k1*v1 + … + kn*vn` over the integer variables in scope, the condition
//! `k0 + Σ ki*vi OP 0` with `OP` a parameter too, and a clause added to the written
//! condition (`cond && …`, `cond || …`).

use std::sync::atomic::{AtomicUsize, Ordering};

use autodebug_runtime::protocol;
use z3::Model;
use z3::ast::{BV, Bool, Dynamic};

use crate::encode::value::{self, Bits, Val};
use crate::ir::{BinOp, Expr, ExprKind, IntType, Lit, Program, Type, VarId};

use super::Kind;
use super::eval::{Env, Evaluator, fresh_env, same_shape};
use super::mutate::{self, Variant};
use super::print::{self, Term, Texts};
use super::site::Located;

/// Keeps the parameters of different templates apart in z3's context.
static TEMPLATES: AtomicUsize = AtomicUsize::new(0);

/// What a template computes at one instance.
pub(crate) struct Output {
    /// The value, leaf by leaf (the shape of the written value).
    pub value: Vec<Dynamic>,
    /// When evaluating the template there panics.
    pub panic: Bool,
    /// Whether the written expression is still evaluated there (its panics still happen).
    pub keeps_original: Bool,
    /// Constraints on the parameters this instance imposes on its own (a variable a
    /// correction reads that the instance does not have rules the correction out).
    pub hard: Vec<Bool>,
}

/// A repair template for one component.
pub(crate) struct Template {
    /// Its kind.
    pub kind: Kind,
    /// How expressive it is: combinations of templates are tried by increasing sum.
    pub level: u32,
    body: Body,
}

enum Body {
    /// One of the corrections, chosen by `sel`.
    Mutation { variants: Vec<Variant>, sel: BV },
    /// The written expression with one literal (`hole`) chosen by the solver.
    Constant {
        base: Expr,
        hole_var: VarId,
        hole: BV,
        ty: IntType,
    },
    /// `k0 + Σ ki*vi`.
    Linear(Affine),
    /// `k0 + Σ ki*vi OP 0`.
    Condition { affine: Affine, op: BV },
    /// `written && cond` (`and`) or `written || cond`.
    Clause { and: bool, affine: Affine, op: BV },
}

/// The parameters of `k0 + Σ ki*vi` over integer variables in scope, computed exactly in a
/// bit-vector wide enough that no sum of small multiples of the type's values overflows.
struct Affine {
    /// The type the sum is in (the site's, or the compared operands').
    ty: IntType,
    vars: Vec<(VarId, Term)>,
    k0: BV,
    ks: Vec<BV>,
    width: u32,
    max_coefficient: i128,
}

/// The variable standing for a solver-chosen literal (beyond any function's variables).
const HOLE: VarId = VarId(u32::MAX);
/// Width of the coefficient parameters.
const COEFFICIENT_BITS: u32 = 8;
/// Width of a mutation's selector.
const SELECTOR_BITS: u32 = 16;

fn int_const(v: i128, width: u32) -> BV {
    value::bv_const(v, width)
}

fn read_int(model: &Model, bv: &BV) -> i128 {
    model
        .eval(bv, true)
        .and_then(|v| value::bv_value(&v, true))
        .unwrap_or(0)
}

/// `v` (of type `from`) as `v as to` would be, widened to `width` bits by `to`'s signedness.
fn as_type_wide(v: &BV, from: IntType, to: IntType, width: u32) -> BV {
    let cast = match value::cast(&Val::Bits(v.clone(), None, Bits::Int(from)), &Type::Int(to)) {
        Ok(Val::Bits(bv, ..)) => bv,
        _ => v.clone(),
    };
    let extra = width - to.bits();
    if to.signed() {
        cast.sign_ext(extra)
    } else {
        cast.zero_ext(extra)
    }
}

impl Affine {
    fn new(ty: IntType, vars: Vec<(VarId, Term)>, max_coefficient: i128) -> Affine {
        let n = TEMPLATES.fetch_add(1, Ordering::Relaxed);
        let grow = u32::BITS - (vars.len() as u32 + 2).leading_zeros();
        let width = ty.bits() + COEFFICIENT_BITS + grow + 1;
        Affine {
            ty,
            k0: BV::new_const(format!("repair!{n}.k0"), width),
            ks: (0..vars.len())
                .map(|i| BV::new_const(format!("repair!{n}.k{}", i + 1), COEFFICIENT_BITS))
                .collect(),
            vars,
            width,
            max_coefficient,
        }
    }

    fn domain(&self, constant_in_type: bool) -> Vec<Bool> {
        let w = self.width;
        let max = self.ty.max_value().unwrap_or(i128::MAX);
        let min = if constant_in_type && self.ty.signed() {
            self.ty.min_value()
        } else {
            -max
        };
        let mut out = vec![
            self.k0.bvsge(int_const(min, w)),
            self.k0.bvsle(int_const(max, w)),
        ];
        for k in &self.ks {
            out.push(k.bvsge(int_const(-self.max_coefficient, COEFFICIENT_BITS)));
            out.push(k.bvsle(int_const(self.max_coefficient, COEFFICIENT_BITS)));
        }
        out
    }

    /// Könighofer & Bloem's ρ1: parameters at zero (a term gone), then small.
    fn soft(&self) -> Vec<(Bool, u32)> {
        let w = self.width;
        let small = |k: &BV, bits: u32, m: i128| {
            Bool::and(&[&k.bvsge(int_const(-m, bits)), &k.bvsle(int_const(m, bits))])
        };
        let mut out = vec![
            (self.k0.eq(int_const(0, w)), 10),
            (small(&self.k0, w, 1), 2),
        ];
        // Then the smaller the constant the better, by orders of magnitude.
        for bound in [2, 4, 8, 16, 64, 256, 1024] {
            out.push((small(&self.k0, w, bound), 1));
        }
        for (k, (_, term)) in self.ks.iter().zip(&self.vars) {
            // A variable of another type needs a cast: a little less simple. A multiple of a
            // variable is rarer in a fix than an offset (`y + 1` before `2 * y`).
            let zero = if term.ty == self.ty { 10 } else { 12 };
            out.push((k.eq(int_const(0, COEFFICIENT_BITS)), zero));
            out.push((small(k, COEFFICIENT_BITS, 1), 12));
        }
        out
    }

    /// "Something is added before anything is subtracted": a sum an unsigned type can
    /// write without negating.
    fn starts_positive(&self) -> Bool {
        let zero = int_const(0, COEFFICIENT_BITS);
        let mut added: Vec<Bool> = self.ks.iter().map(|k| k.bvsgt(&zero)).collect();
        added.push(self.k0.bvsgt(int_const(0, self.width)));
        let subtracted: Vec<Bool> = self.ks.iter().map(|k| k.bvslt(&zero)).collect();
        Bool::or(&subtracted).implies(Bool::or(&added))
    }

    /// For conditions: some variable is read (a constant condition makes a branch dead).
    fn reads_something(&self) -> Bool {
        let any: Vec<Bool> = self
            .ks
            .iter()
            .map(|k| k.eq(int_const(0, COEFFICIENT_BITS)).not())
            .collect();
        Bool::or(&any)
    }

    /// The sum at one instance (exact, `width` bits) and the constraints of variables the
    /// instance lacks (their coefficient must be zero).
    fn at(&self, env: &Env) -> (BV, Vec<Bool>) {
        let w = self.width;
        let mut sum = self.k0.clone();
        let mut hard = Vec::new();
        for (k, (var, _)) in self.ks.iter().zip(&self.vars) {
            let Some(Val::Bits(v, _, Bits::Int(t))) = env.get(var) else {
                hard.push(k.eq(int_const(0, COEFFICIENT_BITS)));
                continue;
            };
            let wide = as_type_wide(v, *t, self.ty, w);
            let mut product = int_const(0, w);
            for c in (1..=self.max_coefficient).flat_map(|c| [c, -c]) {
                product = k
                    .eq(int_const(c, COEFFICIENT_BITS))
                    .ite(&wide.bvmul(int_const(c, w)), &product);
            }
            sum = sum.bvadd(&product);
        }
        (sum, hard)
    }

    /// Whether `sum` is a value of the type.
    fn fits(&self, sum: &BV) -> Bool {
        let w = self.width;
        let max = self.ty.max_value().unwrap_or(i128::MAX);
        Bool::and(&[
            &sum.bvsge(int_const(self.ty.min_value(), w)),
            &sum.bvsle(int_const(max, w)),
        ])
    }

    fn params(&self) -> Vec<&BV> {
        std::iter::once(&self.k0).chain(&self.ks).collect()
    }

    /// The nonzero terms of decoded parameters.
    fn terms<'a>(&'a self, chosen: &[i128]) -> Vec<(i128, &'a Term)> {
        chosen[1..]
            .iter()
            .zip(&self.vars)
            .filter(|(k, _)| **k != 0)
            .map(|(k, (_, t))| (*k, t))
            .collect()
    }

    /// How much there is to read: a unit per term and for a constant, one more per
    /// coefficient beyond one.
    fn size(&self, chosen: &[i128]) -> u32 {
        let terms = self.terms(chosen);
        terms.len() as u32
            + terms.iter().filter(|(k, _)| k.abs() > 1).count() as u32
            + u32::from(chosen[0] != 0)
    }

    fn compare(&self, sum: &BV, op: &BV) -> Bool {
        let zero = int_const(0, self.width);
        let mut out = Bool::from_bool(false);
        for (i, cmp) in print::COMPARISONS.iter().enumerate().rev() {
            let holds = match cmp {
                BinOp::Eq => sum.eq(&zero),
                BinOp::Ne => sum.eq(&zero).not(),
                BinOp::Lt => sum.bvslt(&zero),
                BinOp::Le => sum.bvsle(&zero),
                BinOp::Gt => sum.bvsgt(&zero),
                _ => sum.bvsge(&zero),
            };
            out = op.eq(int_const(i as i128, 3)).ite(&holds, &out);
        }
        out
    }
}

fn op_param() -> BV {
    let n = TEMPLATES.fetch_add(1, Ordering::Relaxed);
    BV::new_const(format!("repair!{n}.op"), 3)
}

/// How a decoded template instance reads, for [`super::Edit`].
pub(crate) struct Rendered {
    pub rust: String,
    pub expr: Result<protocol::Expr, String>,
    pub template: &'static str,
    pub cost: u32,
    /// How the runtime's evaluation of `expr` differs from the patched code, if it does.
    pub note: Option<String>,
}

/// Names of the kinds as edits show them.
pub(crate) const CONSTANT: &str = "constant";
pub(crate) const LINEAR: &str = "linear";
pub(crate) const CONDITION: &str = "condition";
pub(crate) const ADD_CLAUSE: &str = "add-clause";

/// The limits templates are built within.
pub(crate) struct Limits {
    /// Largest coefficient of a variable.
    pub max_coefficient: i128,
    /// Most variables in a linear template.
    pub max_vars: usize,
    /// Most literals given a solver-chosen value, one template each.
    pub max_constants: usize,
}

/// The templates for `located`, simplest first, each allowed by `kinds`; or why there is
/// none.
pub(crate) fn menu(
    program: &Program,
    located: &Located,
    kinds: &[Kind],
    limits: &Limits,
) -> Result<Vec<Template>, String> {
    let ty = located.ty();
    if ty.is_opaque() {
        return Err(format!(
            "its value is of a type outside the subset the model handles (`{ty}`)"
        ));
    }
    let probe = fresh_env(program, located.function, located.scope());
    let ev = Evaluator {
        program,
        function: located.function,
    };
    let mut reasons: Vec<String> = Vec::new();
    let written = ev.eval(located.expr, &probe, &mut Vec::new());
    if let Err(why) = &written {
        reasons.push(format!("the written expression {why}"));
    }
    let written_shape: Option<Vec<Dynamic>> = written.as_ref().ok().map(Val::leaves);
    let mut out = Vec::new();
    if kinds.contains(&Kind::Mutation)
        && let Some(shape) = &written_shape
    {
        match mutation_template(program, located, (&ev, &probe), shape) {
            Some(template) => out.push(template),
            None => reasons.push("no one-token correction applies".into()),
        }
    }
    if kinds.contains(&Kind::Constant) && written_shape.is_some() {
        out.extend(constant_templates(located, kinds, limits));
    }
    if writes_through_a_call(located.expr) {
        // The model keeps the written call's effects on `&mut` arguments; a patch replacing
        // the expression would drop them.
        reasons.push("the written expression changes `&mut` arguments through a call".into());
        return if out.is_empty() {
            Err(reasons.join("; "))
        } else {
            Ok(out)
        };
    }
    let vars: Vec<(VarId, Term)> = located
        .int_vars()
        .into_iter()
        .map(|(v, t)| {
            (
                v,
                Term {
                    name: located.function.var(v).name.clone(),
                    ty: t,
                },
            )
        })
        .collect();
    match variable_templates(located, kinds, limits, vars, written_shape.is_some()) {
        Ok(templates) => out.extend(templates),
        Err(why) => reasons.push(why),
    }
    if out.is_empty() {
        if reasons.is_empty() {
            reasons.push("no template of the kinds asked for applies".into());
        }
        return Err(reasons.join("; "));
    }
    Ok(out)
}

/// The mutation template: every one-token correction of the written expression whose
/// value has the written value's shape (`shape`). `None` when there is none.
fn mutation_template(
    program: &Program,
    located: &Located,
    (ev, probe): (&Evaluator, &Env),
    shape: &[Dynamic],
) -> Option<Template> {
    let variants: Vec<Variant> = mutate::variants(
        program,
        located.function,
        located.scope(),
        located.kind(),
        located.expr,
    )
    .into_iter()
    .filter(|v| {
        ev.eval(&v.expr, probe, &mut Vec::new())
            .is_ok_and(|x| same_shape(&x.leaves(), shape))
    })
    .collect();
    if variants.is_empty() {
        return None;
    }
    let n = TEMPLATES.fetch_add(1, Ordering::Relaxed);
    Some(Template {
        kind: Kind::Mutation,
        level: 1,
        body: Body::Mutation {
            variants,
            sel: BV::new_const(format!("repair!{n}.sel"), SELECTOR_BITS),
        },
    })
}

/// One constant template per integer literal of the written expression (at most
/// `limits.max_constants`): the literal a hole the solver fills.
fn constant_templates(located: &Located, kinds: &[Kind], limits: &Limits) -> Vec<Template> {
    mutate::nodes(located.expr)
        .into_iter()
        // A literal that is the whole expression is the linear template's constant.
        .filter(|(path, _)| !path.is_empty() || !kinds.contains(&Kind::Linear))
        .filter_map(|(path, node)| match (&node.kind, &node.ty) {
            (ExprKind::Lit(Lit::Int(_)), Type::Int(t)) => Some((path, *t)),
            _ => None,
        })
        .take(limits.max_constants)
        .map(|(path, t)| {
            let n = TEMPLATES.fetch_add(1, Ordering::Relaxed);
            let hole_var = HOLE;
            let base = mutate::replace(located.expr, &path, Expr::var(hole_var, Type::Int(t)));
            Template {
                kind: Kind::Constant,
                level: 2,
                body: Body::Constant {
                    base,
                    hole_var,
                    hole: BV::new_const(format!("repair!{n}.c"), t.bits()),
                    ty: t,
                },
            }
        })
        .collect()
}

/// The templates over the integer variables in scope (`vars`): a linear expression for an
/// integer site, a condition and clauses (`clauses`: the written value has a shape to add
/// them to) for a boolean one; or why the site's type has none.
fn variable_templates(
    located: &Located,
    kinds: &[Kind],
    limits: &Limits,
    mut vars: Vec<(VarId, Term)>,
    clauses: bool,
) -> Result<Vec<Template>, String> {
    let mut out = Vec::new();
    match located.ty() {
        Type::Int(t) if kinds.contains(&Kind::Linear) => {
            // Variables of the site's own type first: they need no cast.
            vars.sort_by_key(|(_, term)| term.ty != *t);
            vars.truncate(limits.max_vars);
            out.push(Template {
                kind: Kind::Linear,
                level: 3,
                body: Body::Linear(Affine::new(*t, vars, limits.max_coefficient)),
            });
        }
        Type::Bool if !vars.is_empty() => {
            let t = comparison_type(located.expr, &vars);
            vars.sort_by_key(|(_, term)| term.ty != t);
            vars.truncate(limits.max_vars);
            if kinds.contains(&Kind::Condition) {
                out.push(Template {
                    kind: Kind::Condition,
                    level: 3,
                    body: Body::Condition {
                        affine: Affine::new(t, vars.clone(), limits.max_coefficient),
                        op: op_param(),
                    },
                });
            }
            if kinds.contains(&Kind::Clause) && clauses {
                for and in [true, false] {
                    out.push(Template {
                        kind: Kind::Clause,
                        level: 4,
                        body: Body::Clause {
                            and,
                            affine: Affine::new(t, vars.clone(), limits.max_coefficient),
                            op: op_param(),
                        },
                    });
                }
            }
        }
        Type::Bool => return Err("no integer variable is in scope for a condition".into()),
        Type::Int(_) => {}
        other => {
            return Err(format!(
                "its value is a `{other}`, which no linear or condition template computes"
            ));
        }
    }
    Ok(out)
}

/// Whether evaluating `e` writes `&mut` arguments of a call.
fn writes_through_a_call(e: &Expr) -> bool {
    let mut found = false;
    e.walk(&mut |x| {
        if let ExprKind::Call { outputs, .. } = &x.kind {
            found |= !outputs.is_empty();
        }
    });
    found
}

/// The type a condition template compares in: the written comparison's operands', or the
/// most common type among the variables.
fn comparison_type(e: &Expr, vars: &[(VarId, Term)]) -> IntType {
    let mut inner = e;
    while let ExprKind::Branch(x, _) = &inner.kind {
        inner = x;
    }
    if let ExprKind::Binary(op, a, _) = &inner.kind
        && op.is_predicate()
        && let Type::Int(t) = a.ty
    {
        return t;
    }
    let mut best = vars[0].1.ty;
    let mut count = 0;
    for (_, t) in vars {
        let c = vars.iter().filter(|(_, u)| u.ty == t.ty).count();
        if c > count {
            best = t.ty;
            count = c;
        }
    }
    best
}

impl Template {
    /// Constraints on the parameters' values.
    pub fn domain(&self) -> Vec<Bool> {
        match &self.body {
            Body::Mutation { variants, sel } => {
                vec![sel.bvult(int_const(variants.len() as i128, SELECTOR_BITS))]
            }
            Body::Constant { .. } => Vec::new(),
            Body::Linear(a) => {
                let mut d = a.domain(true);
                if !a.ty.signed() {
                    d.push(a.starts_positive());
                }
                d
            }
            Body::Condition { affine, op } | Body::Clause { affine, op, .. } => {
                let mut d = affine.domain(false);
                d.push(op.bvult(int_const(print::COMPARISONS.len() as i128, 3)));
                d
            }
        }
    }

    /// What makes an instance simple, with weights: the solver satisfies as much weight as
    /// it can.
    pub fn soft(&self) -> Vec<(Bool, u32)> {
        match &self.body {
            Body::Mutation { variants, sel } => {
                // Earlier corrections first.
                let n = variants.len() as u32;
                (0..n)
                    .map(|i| (sel.eq(int_const(i128::from(i), SELECTOR_BITS)), n - i))
                    .collect()
            }
            Body::Constant { hole, ty, .. } => {
                let w = ty.bits();
                let small = |m: i128| {
                    if ty.signed() {
                        Bool::and(&[&hole.bvsge(int_const(-m, w)), &hole.bvsle(int_const(m, w))])
                    } else {
                        hole.bvule(int_const(m, w))
                    }
                };
                vec![(small(1), 3), (small(16), 2), (small(256), 1)]
            }
            Body::Linear(a) => a.soft(),
            Body::Condition { affine: a, .. } | Body::Clause { affine: a, .. } => {
                let mut soft = a.soft();
                soft.push((a.reads_something(), 25));
                soft
            }
        }
    }

    /// The template at one instance: `env` is the scope there, `written` the value the
    /// written expression computes; `ev` evaluates the component's function's expressions
    /// (the corrections and constants of the written expression need it).
    pub fn at(
        &self,
        ev: Option<&Evaluator>,
        env: &Env,
        written: &[Dynamic],
    ) -> Result<Output, String> {
        let no = || Bool::from_bool(false);
        let code = || ev.ok_or("the written expression is not known");
        match &self.body {
            Body::Mutation { variants, sel } => {
                let mut value: Vec<Dynamic> = written.to_vec();
                let mut panic = no();
                let mut hard = Vec::new();
                for (i, variant) in variants.iter().enumerate().rev() {
                    let chosen = sel.eq(int_const(i as i128, SELECTOR_BITS));
                    let mut panics = Vec::new();
                    match code()?.eval(&variant.expr, env, &mut panics) {
                        Ok(v) if same_shape(&v.leaves(), written) => {
                            value = value
                                .iter()
                                .zip(v.leaves())
                                .map(|(rest, mine)| chosen.ite(&mine, rest))
                                .collect();
                            panic = chosen.ite(&Bool::or(&panics), &panic);
                        }
                        _ => hard.push(chosen.not()),
                    }
                }
                Ok(Output {
                    value,
                    panic,
                    keeps_original: no(),
                    hard,
                })
            }
            Body::Constant {
                base,
                hole_var,
                hole,
                ty,
                ..
            } => {
                let mut env = env.clone();
                env.insert(*hole_var, Val::Bits(hole.clone(), None, Bits::Int(*ty)));
                let mut panics = Vec::new();
                let v = code()?.eval(base, &env, &mut panics)?;
                if !same_shape(&v.leaves(), written) {
                    return Err("the expression changes shape".into());
                }
                Ok(Output {
                    value: v.leaves(),
                    panic: Bool::or(&panics),
                    keeps_original: no(),
                    hard: Vec::new(),
                })
            }
            Body::Linear(a) => {
                let (sum, hard) = a.at(env);
                let value = sum.extract(a.ty.bits() - 1, 0);
                if !same_shape(&[Dynamic::from_ast(&value)], written) {
                    return Err("the site's value is not of the template's type".into());
                }
                Ok(Output {
                    value: vec![Dynamic::from_ast(&value)],
                    panic: a.fits(&sum).not(),
                    keeps_original: no(),
                    hard,
                })
            }
            Body::Condition { affine, op } => {
                let (sum, hard) = affine.at(env);
                Ok(Output {
                    value: vec![Dynamic::from_ast(&affine.compare(&sum, op))],
                    panic: no(),
                    keeps_original: no(),
                    hard,
                })
            }
            Body::Clause { and, affine, op } => {
                let (sum, hard) = affine.at(env);
                let written = written
                    .first()
                    .and_then(Dynamic::as_bool)
                    .ok_or("the written condition is not a bool")?;
                let extra = affine.compare(&sum, op);
                let value = if *and {
                    Bool::and(&[&written, &extra])
                } else {
                    Bool::or(&[&written, &extra])
                };
                Ok(Output {
                    value: vec![Dynamic::from_ast(&value)],
                    panic: no(),
                    keeps_original: Bool::from_bool(true),
                    hard,
                })
            }
        }
    }

    /// How many corrections a one-token template chooses among (none for the others).
    pub fn choices(&self) -> Option<usize> {
        match &self.body {
            Body::Mutation { variants, .. } => Some(variants.len()),
            _ => None,
        }
    }

    /// "The correction is the `i`-th" of a one-token template.
    pub fn choose(&self, i: usize) -> Bool {
        match &self.body {
            Body::Mutation { sel, .. } => sel.eq(int_const(i as i128, SELECTOR_BITS)),
            _ => Bool::from_bool(true),
        }
    }

    fn params(&self) -> Vec<&BV> {
        match &self.body {
            Body::Mutation { sel, .. } => vec![sel],
            Body::Constant { hole, .. } => vec![hole],
            Body::Linear(a) => a.params(),
            Body::Condition { affine, op } | Body::Clause { affine, op, .. } => {
                let mut p = affine.params();
                p.push(op);
                p
            }
        }
    }

    /// The parameters' values in `model`.
    pub fn decode(&self, model: &Model) -> Vec<i128> {
        match &self.body {
            Body::Mutation { sel, .. } => vec![
                model
                    .eval(sel, true)
                    .and_then(|v| value::bv_value(&v, false))
                    .unwrap_or(0),
            ],
            Body::Constant { hole, ty, .. } => vec![
                model
                    .eval(hole, true)
                    .and_then(|v| value::bv_value(&v, ty.signed()))
                    .unwrap_or(0),
            ],
            Body::Linear(a) => a.params().iter().map(|p| read_int(model, p)).collect(),
            Body::Condition { affine, op } | Body::Clause { affine, op, .. } => {
                let mut values: Vec<i128> =
                    affine.params().iter().map(|p| read_int(model, p)).collect();
                // The comparison is an index, not a signed number.
                values.push(
                    model
                        .eval(op, true)
                        .and_then(|v| value::bv_value(&v, false))
                        .unwrap_or(0),
                );
                values
            }
        }
    }

    /// "Not these values": excludes a decoded instance.
    pub fn exclude(&self, chosen: &[i128]) -> Bool {
        let differs: Vec<Bool> = self
            .params()
            .iter()
            .zip(chosen)
            .map(|(p, v)| (**p).eq(int_const(*v, p.get_size())).not())
            .collect();
        Bool::or(&differs)
    }

    /// A decoded instance as an edit of the site (`None` for values outside the template's
    /// domain, which a model of it never has).
    pub fn render(&self, chosen: &[i128], located: &Located, texts: &Texts) -> Option<Rendered> {
        let f = located.function;
        let ir_text =
            |e: &Expr| print::rust(f, e, texts).unwrap_or_else(|why| format!("/* {why} */"));
        Some(match &self.body {
            Body::Mutation { variants, .. } => {
                let variant = variants.get(usize::try_from(*chosen.first()?).ok()?)?;
                // A negation added or removed keeps the written condition whole: the runtime
                // negates its value, whatever the condition reads.
                let original = (variant.template == mutate::NEGATION).then_some(located.expr);
                let mut expr = print::protocol(located, &variant.expr, original, texts);
                let mut note = None;
                if expr.is_err() && variant.template == mutate::BOUND_STEP {
                    expr = bound_step_expr(located, &variant.expr);
                    note = expr.is_ok().then(|| {
                        format!(
                            "the runtime evaluates the replacement after the written `{}`, \
                             whose own panics still happen there; the patched code does not \
                             evaluate it",
                            located.code().trim()
                        )
                    });
                }
                Rendered {
                    rust: ir_text(&variant.expr),
                    expr,
                    template: variant.template,
                    cost: 1,
                    note,
                }
            }
            Body::Constant {
                base, hole_var, ty, ..
            } => {
                let e = fill(base, *hole_var, *chosen.first()?, *ty);
                Rendered {
                    rust: ir_text(&e),
                    expr: print::protocol(located, &e, None, texts),
                    template: CONSTANT,
                    cost: 2,
                    note: None,
                }
            }
            Body::Linear(a) => {
                if chosen.len() != a.ks.len() + 1 {
                    return None;
                }
                let (rust, expr) = print::linear(a.ty, chosen[0], &a.terms(chosen))?;
                Rendered {
                    rust,
                    expr: Ok(expr),
                    template: LINEAR,
                    cost: 1 + a.size(chosen),
                    note: None,
                }
            }
            Body::Condition { .. } | Body::Clause { .. } => {
                return self.render_condition(chosen, located.code(), written_is_or(located.expr));
            }
        })
    }

    /// A decoded condition or clause template as an edit of a condition written as
    /// `written` (`written_or`: its outermost operator is `||`).
    pub fn render_condition(
        &self,
        chosen: &[i128],
        written: &str,
        written_or: bool,
    ) -> Option<Rendered> {
        let (clause, affine) = match &self.body {
            Body::Condition { affine, .. } => (None, affine),
            Body::Clause { and, affine, .. } => (Some(*and), affine),
            _ => return None,
        };
        let (&op, params) = chosen.split_last()?;
        let op = *print::COMPARISONS.get(usize::try_from(op).ok()?)?;
        if params.len() != affine.ks.len() + 1 {
            return None;
        }
        let (text, expr) = print::condition(affine.ty, params[0], &affine.terms(params), op);
        let Some(and) = clause else {
            return Some(Rendered {
                rust: text,
                expr: Ok(expr),
                template: CONDITION,
                cost: 2 + affine.size(params),
                note: None,
            });
        };
        let written = written.trim();
        let written = if and && written_or {
            format!("({written})")
        } else {
            written.to_string()
        };
        Some(Rendered {
            rust: format!("{written} {} {text}", if and { "&&" } else { "||" }),
            expr: Ok(protocol::Expr::Binary {
                op: if and {
                    protocol::BinOp::And
                } else {
                    protocol::BinOp::Or
                },
                left: Box::new(protocol::Expr::Original),
                right: Box::new(expr),
            }),
            template: ADD_CLAUSE,
            cost: 3 + affine.size(params),
            note: None,
        })
    }
}

/// A condition template (`clause`: none) or a clause added to the written condition by
/// `&&` (`Some(true)`) or `||`, over `vars` compared in `ty`: for conditions known only by
/// the values at their instances.
pub(crate) fn condition_template(
    clause: Option<bool>,
    ty: IntType,
    vars: Vec<(VarId, Term)>,
    max_coefficient: i128,
) -> Template {
    let affine = Affine::new(ty, vars, max_coefficient);
    match clause {
        None => Template {
            kind: Kind::Condition,
            level: 3,
            body: Body::Condition {
                affine,
                op: op_param(),
            },
        },
        Some(and) => Template {
            kind: Kind::Clause,
            level: 4,
            body: Body::Clause {
                and,
                affine,
                op: op_param(),
            },
        },
    }
}

/// Whether a condition's outermost operator is `||` (it needs parentheses under `&&`).
fn written_is_or(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Branch(x, _) => written_is_or(x),
        ExprKind::Binary(BinOp::Or, ..) => true,
        _ => false,
    }
}

/// `base` with the hole variable replaced by the literal `v`.
fn fill(base: &Expr, hole: VarId, v: i128, ty: IntType) -> Expr {
    let mut out = base.clone();
    let target = Expr::var(hole, Type::Int(ty));
    for (path, node) in mutate::nodes(base) {
        if *node == target {
            out = mutate::replace(&out, &path, Expr::int(v, Type::Int(ty)));
        }
    }
    mutate::simplify(&out)
}

/// A loop bound moved by one as the runtime can evaluate it: the written bound plus or
/// minus one (the written bound still runs first at the site, with its own panics).
fn bound_step_expr(located: &Located, variant: &Expr) -> Result<protocol::Expr, String> {
    let Type::Int(t) = located.ty() else {
        return Err("the bound is not an integer".into());
    };
    let step = [1i128, -1]
        .into_iter()
        .find(|s| mutate::add_constant(located.expr, *s, *t) == *variant)
        .ok_or("the bound's text reads a value the site does not report")?;
    Ok(protocol::Expr::Binary {
        op: if step > 0 {
            protocol::BinOp::Add
        } else {
            protocol::BinOp::Sub
        },
        left: Box::new(protocol::Expr::Original),
        right: Box::new(protocol::Expr::Lit {
            value: print::int_value(1, *t),
        }),
    })
}
