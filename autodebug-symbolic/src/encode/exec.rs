//! The concolic walk over the IR: every statement encoded into z3 in SSA form under a
//! symbolic path guard, with the concrete run carried alongside (the value of every term
//! in the recorded run, and whether the guard holds on the recorded path). On the
//! recorded path each instrumented site is paired with its trace event: a disagreement
//! stops the encoding (the model missed something), an unknown concrete value takes the
//! recorded one.

mod call;
mod component;
mod loops;
mod stmt;

use std::collections::HashMap;

use autodebug_runtime::protocol::SiteKey;
use z3::ast::{Bool, Dynamic};

use super::events::{Frame, SitePos};
use super::value::{self, Panic, R, Stop, Val};
use super::{Concrete, Options};
use crate::conflicts::ComponentId;
use crate::ir::{
    BinOp, Expr, ExprKind, Function, Lit, Place, Program, Quantifier, Site, Type, VarId, one_line,
};
use crate::semantics::{self, Called, Interp, Quantified, Store};

/// The symbolic path condition and whether the recorded run is on it.
#[derive(Debug, Clone)]
pub(crate) struct Guard {
    pub s: Bool,
    pub on: bool,
    /// Syntactically false: after `return`, `break`, `continue` or `panic!`.
    pub dead: bool,
}

impl Guard {
    pub(crate) fn top() -> Guard {
        Guard {
            s: Bool::from_bool(true),
            on: true,
            dead: false,
        }
    }

    fn dead() -> Guard {
        Guard {
            s: Bool::from_bool(false),
            on: false,
            dead: true,
        }
    }

    fn and(&self, c: &Bool, cc: Option<bool>) -> Guard {
        Guard {
            s: Bool::and(&[&self.s, c]),
            on: self.on && cc == Some(true),
            dead: self.dead,
        }
    }

    fn and_not(&self, c: &Bool, cc: Option<bool>) -> Guard {
        Guard {
            s: Bool::and(&[&self.s, &c.not()]),
            on: self.on && cc == Some(false),
            dead: self.dead,
        }
    }

    fn same(&self, other: &Guard) -> bool {
        self.dead == other.dead && self.on == other.on && self.s.ast_eq(&other.s)
    }
}

pub(crate) type Env = Vec<Option<Val>>;

/// One execution of a component's site: the terms the diagnosis and the weakest
/// precondition need.
#[derive(Debug, Clone)]
pub(crate) struct Instance {
    pub component: ComponentId,
    pub site: SiteKey,
    /// What the component defines, for people (`` `r` ``, `the condition `y > x``).
    pub target: String,
    /// Position in the order of the recorded run (none off the recorded path).
    pub step: Option<usize>,
    /// The constants standing for the component's value.
    pub value: Vec<Dynamic>,
    /// What the component computes when it behaves as written.
    pub normal: Vec<Dynamic>,
    /// The variables in scope, flattened: what a repair may read.
    pub reads: Vec<Dynamic>,
    /// The path condition under which the instance runs (what a repair computing
    /// something else there is evaluated under).
    pub guard: Bool,
    /// The value the statement stores (for `x op= e`, `x op e`).
    pub stored: Val,
}

/// A condition under which the run panics, and the component instances whose evaluation
/// raises it: when one of them is abnormal it computes something else, and does not panic
/// there.
#[derive(Debug, Clone)]
pub(crate) struct PanicCond {
    pub term: Bool,
    pub owners: Vec<usize>,
}

/// A branch decision of the recorded run, which the weakest precondition may keep.
#[derive(Debug, Clone)]
pub(crate) struct Decision {
    pub step: usize,
    pub cond: Bool,
    pub outcome: bool,
}

struct LoopCx {
    label: Option<String>,
    breaks: Vec<(Guard, Env)>,
    continues: Vec<(Guard, Env)>,
}

/// One activation of a function: its variables and its recorded events.
pub(crate) struct Ctx<'p> {
    pub func: &'p Function,
    pub env: Env,
    entry: Env,
    frame: Option<Frame>,
    depth: usize,
    returns: Vec<(Guard, Option<Val>, Env)>,
    loops: Vec<LoopCx>,
}

/// What the walk over one call produced.
pub(crate) struct Exec<'p> {
    program: &'p Program,
    options: &'p Options,
    components: &'p HashMap<SiteKey, ComponentId>,
    prefix: String,
    fresh: usize,
    /// Constraints that hold whatever the components do: inputs, glue, loop bounds.
    pub structure: Vec<Bool>,
    /// Panic conditions, each under its guard.
    pub panics: Vec<PanicCond>,
    /// For each component being evaluated (innermost last), the panics raised inside it.
    pending: Vec<Vec<usize>>,
    pub instances: Vec<Instance>,
    pub decisions: Vec<Decision>,
    pub notes: Vec<String>,
    pub learned: Vec<String>,
    /// The panic the model has the recorded run raise, once it has.
    pub halted: Option<String>,
    /// The assertion of the body that raised that panic, if one did (`assert!(r >= x)`).
    pub halted_by_assertion: Option<String>,
    step: usize,
    /// Events whose value or outcome the model reproduced.
    pub matched: usize,
    /// Events the model could not check (it did not know the value) and took as recorded.
    pub adopted: usize,
    /// Scalar constants of inputs the trace did not record, by z3 name.
    inputs: HashMap<String, String>,
    /// Inside a contract: a condition the run's values do not decide is not an error.
    lenient: bool,
    /// The line of the statement being encoded, for messages.
    line: u32,
    /// Statements encoded so far (against [`Options::max_statements`]).
    statements: usize,
}

fn site_pos(site: &Site) -> SitePos {
    (site.span.start.line, site.span.start.column, site.kind)
}

impl<'p> Exec<'p> {
    pub(crate) fn new(
        program: &'p Program,
        options: &'p Options,
        components: &'p HashMap<SiteKey, ComponentId>,
        prefix: String,
    ) -> Exec<'p> {
        Exec {
            program,
            options,
            components,
            prefix,
            fresh: 0,
            structure: Vec::new(),
            panics: Vec::new(),
            pending: Vec::new(),
            instances: Vec::new(),
            decisions: Vec::new(),
            notes: Vec::new(),
            learned: Vec::new(),
            halted: None,
            halted_by_assertion: None,
            step: 0,
            matched: 0,
            adopted: 0,
            inputs: HashMap::new(),
            lenient: false,
            line: 0,
            statements: 0,
        }
    }

    /// The site key of an IR site.
    pub(crate) fn key(&self, site: &Site) -> SiteKey {
        SiteKey {
            file: self.program.file.clone(),
            line: site.span.start.line,
            column: site.span.start.column,
            kind: site.kind,
        }
    }

    pub(crate) fn name(&mut self, what: &str) -> String {
        self.fresh += 1;
        format!("{}{what}#{}", self.prefix, self.fresh)
    }

    pub(crate) fn note(&mut self, note: String) {
        if !self.notes.contains(&note) {
            self.notes.push(note);
        }
    }

    fn on(&self, g: &Guard) -> bool {
        g.on && self.halted.is_none()
    }

    /// A fresh value of `ty` (the result of something the model does not see).
    fn fresh_of(&mut self, ty: &Type, what: &str) -> Val {
        let name = self.name(what);
        Val::fresh(ty, &name, self.program, &mut |_, _| {})
    }

    /// The value of the argument `param`: the recorded value, unknown parts symbolic.
    pub(crate) fn input(&mut self, ty: &Type, c: &Concrete, param: &str) -> Val {
        let name = format!("{}{param}", self.prefix);
        let prefix = self.prefix.clone();
        let mut leaves = Vec::new();
        let v = Val::from_concrete(ty, c, &name, self.program, &mut |n, _| {
            leaves.push(n.to_string())
        });
        for leaf in leaves {
            let shown = leaf.trim_start_matches(&prefix).to_string();
            self.inputs.insert(leaf, shown);
        }
        v
    }

    fn panic(&mut self, g: &Guard, cond: Bool, conc: Option<bool>, what: String) {
        if g.dead {
            return;
        }
        let at = self.panics.len();
        self.panics.push(PanicCond {
            term: Bool::and(&[&g.s, &cond]),
            owners: Vec::new(),
        });
        for open in &mut self.pending {
            open.push(at);
        }
        if self.on(g) && conc == Some(true) {
            self.halted = Some(what);
        }
    }

    fn panics_of(&mut self, g: &Guard, panics: Vec<Panic>) {
        let line = self.line;
        for p in panics {
            self.panic(g, p.cond, p.conc, format!("{} (line {line})", p.what));
        }
    }

    /// The concrete outcome of a condition on the recorded path, which must be known.
    fn decide(&self, g: &Guard, cc: Option<bool>, what: &str) -> R<Option<bool>> {
        if self.on(g) && cc.is_none() && !self.lenient {
            return Err(Stop::new(format!(
                "the recorded path cannot be followed: the run's value of {what} is not known"
            )));
        }
        Ok(cc)
    }

    // -----------------------------------------------------------------------------------
    // Places

    fn place_type(&self, cx: &Ctx<'p>, place: &Place) -> Type {
        match place {
            Place::Var(v) => cx.func.var(*v).ty.clone(),
            Place::Index(p, _) => match self.place_type(cx, p) {
                Type::Seq { elem, .. } => *elem,
                _ => Type::Opaque("an element of a non-sequence".into()),
            },
            Place::Field(p, name) => match self.place_type(cx, p) {
                Type::Struct(s) => self
                    .program
                    .struct_def(&s)
                    .and_then(|d| d.fields.iter().find(|(f, _)| f == name))
                    .map_or(Type::Opaque("an unknown field".into()), |(_, t)| t.clone()),
                _ => Type::Opaque("a field of a non-struct".into()),
            },
            Place::TupleField(p, i) => match self.place_type(cx, p) {
                Type::Tuple(ts) => ts
                    .get(*i)
                    .cloned()
                    .unwrap_or(Type::Opaque("an unknown tuple field".into())),
                _ => Type::Opaque("a field of a non-tuple".into()),
            },
        }
    }

    fn assign(&mut self, cx: &mut Ctx<'p>, place: &Place, v: Val, g: &Guard) -> R<()> {
        semantics::assign(&mut At { ex: self, cx, g }, place, v)
    }

    // -----------------------------------------------------------------------------------
    // Expressions

    /// The value of `e` under `g` (the IR's common meaning in [`semantics`], the
    /// encoding's own in [`Exec::own`]).
    pub(crate) fn eval(&mut self, cx: &mut Ctx<'p>, e: &Expr, g: &Guard) -> R<Val> {
        semantics::eval(&mut At { ex: self, cx, g }, e)
    }

    /// The encoding's own meaning of `e`: decisions checked against the run, sites
    /// paired with their events, calls inlined, quantifiers expanded over the run's range.
    fn own(&mut self, cx: &mut Ctx<'p>, e: &Expr, g: &Guard) -> R<Option<Val>> {
        let v = match &e.kind {
            ExprKind::Binary(op @ (BinOp::And | BinOp::Or | BinOp::Implies), a, b)
                if e.ty == Type::Bool =>
            {
                let (x, cx_) = self.eval(cx, a, g)?.as_bool()?;
                let what = format!("`{}`", expr_text(cx.func, a));
                let cx_ = self.decide(g, cx_, &what)?;
                let gb = if semantics::right_runs_when(*op) {
                    g.and(&x, cx_)
                } else {
                    g.and_not(&x, cx_)
                };
                let (y, cy) = self.eval(cx, b, &gb)?.as_bool()?;
                semantics::connective(*op, (&x, cx_), (&y, cy))
            }
            ExprKind::If {
                cond,
                branch,
                then,
                otherwise,
            } => {
                let (c, cc) = self.condition(cx, cond, branch.as_ref(), g)?;
                let t = self.eval(cx, then, &g.and(&c, cc))?;
                let o = self.eval(cx, otherwise, &g.and_not(&c, cc))?;
                let which = if self.on(g) { cc } else { None };
                value::ite(&c, which, &t, &o)
            }
            ExprKind::Branch(inner, comp) => {
                let opened = self.open(Some(comp));
                let (c, cc) = self.eval(cx, inner, g)?.as_bool()?;
                let (c, cc) = self.branch_site(cx, comp, c, cc, inner, g)?;
                self.close(opened);
                Val::Bool(c, cc)
            }
            ExprKind::Old(x) => {
                let old = semantics::old_state(cx.func, &cx.entry, &cx.env);
                let now = std::mem::replace(&mut cx.env, old);
                let v = self.eval(cx, x, g);
                cx.env = now;
                v?
            }
            ExprKind::Opaque {
                reason,
                span,
                defines,
            } => {
                self.opaque_effects(cx, reason, span.start.line, defines);
                self.fresh_of(&e.ty, "opaque")
            }
            _ => return Ok(None),
        };
        Ok(Some(v))
    }
    /// A quantifier whose range the run does not tell: in a lenient encoding (a contract)
    /// a fresh boolean, else the encoding stops.
    fn unexpanded(
        &mut self,
        cx: &Ctx<'p>,
        kind: Quantifier,
        (start, end): (&Expr, &Expr),
    ) -> R<Val> {
        if self.lenient && kind != Quantifier::Sum {
            // A contract that cannot be expanded constrains nothing; a failing call whose
            // violation is not visible then is not explained (see `finish`).
            self.note(format!(
                "`{}`: a quantifier over `{}..{}` is not modeled: its range is not known in \
                 the run",
                cx.func.name,
                expr_text(cx.func, start),
                expr_text(cx.func, end)
            ));
            return Ok(Val::Bool(Bool::new_const(self.name("unexpanded")), None));
        }
        Err(Stop::new(
            "a quantifier's range is not known in the run: it cannot be expanded",
        ))
    }
}

/// One evaluation of the encoding: the activation and the path condition it is under.
struct At<'a, 'p> {
    ex: &'a mut Exec<'p>,
    cx: &'a mut Ctx<'p>,
    g: &'a Guard,
}

impl<'p, 'e> Interp<'p, 'e> for At<'_, 'p> {
    type Err = Stop;

    fn program(&self) -> &'p Program {
        self.ex.program
    }

    fn var(&self, v: VarId) -> R<Val> {
        self.cx.env[v.0 as usize].clone().ok_or_else(|| {
            Stop::new(format!(
                "`{}` is read before it is set",
                self.cx.func.var_name(v)
            ))
        })
    }

    fn raise(&mut self, panics: Vec<Panic>) {
        self.ex.panics_of(self.g, panics);
    }

    fn unwrap_none(&mut self, none: Bool, known: Option<bool>) {
        let what = format!(
            "called `Option::unwrap()` on a `None` value (line {})",
            self.ex.line
        );
        self.ex.panic(self.g, none, known, what);
    }

    fn call(&mut self, c: Called<'e>, ty: &Type) -> R<Val> {
        self.ex
            .call(self.cx, c.function, c.args, c.outputs, ty, self.g)
    }

    fn quantifier(&mut self, q: Quantified<'e>, _: &Type) -> R<Val> {
        self.ex.quantifier(self.cx, q, self.g)
    }

    fn own(&mut self, e: &'e Expr) -> R<Option<Val>> {
        self.ex.own(self.cx, e, self.g)
    }
}

impl<'p, 'e> Store<'p, 'e> for At<'_, 'p> {
    fn set(&mut self, v: VarId, val: Val) {
        self.cx.env[v.0 as usize] = Some(val);
    }
}

/// The branch the run took between two merged states.
fn which(a: &Guard, b: &Guard) -> Option<bool> {
    if a.on {
        Some(true)
    } else if b.on {
        Some(false)
    } else {
        None
    }
}

/// Two states joined after their paths meet.
fn merge2(a: (Guard, Env), b: (Guard, Env)) -> (Guard, Env) {
    let ((ga, ea), (gb, eb)) = (a, b);
    if ga.dead {
        return (gb, eb);
    }
    if gb.dead {
        return (ga, ea);
    }
    let w = which(&ga, &gb);
    let env = ea
        .into_iter()
        .zip(eb)
        .map(|(x, y)| match (x, y) {
            (Some(x), Some(y)) => Some(value::ite(&ga.s, w, &x, &y)),
            (Some(x), None) => Some(x),
            (None, y) => y,
        })
        .collect();
    (
        Guard {
            s: Bool::or(&[&ga.s, &gb.s]),
            on: ga.on || gb.on,
            dead: false,
        },
        env,
    )
}

/// A place as written (`a[i]`, `self.state`).
pub(crate) fn place_text(func: &Function, place: &Place) -> String {
    match place {
        Place::Var(v) => func.var(*v).name.clone(),
        Place::Index(p, i) => format!("{}[{}]", place_text(func, p), expr_text(func, i)),
        Place::Field(p, name) => format!("{}.{name}", place_text(func, p)),
        Place::TupleField(p, i) => format!("{}.{i}", place_text(func, p)),
    }
}

/// A short rendering of simple expressions, for messages.
pub(crate) fn expr_text(func: &Function, e: &Expr) -> String {
    match &e.kind {
        ExprKind::Var(v) => func.var(*v).name.clone(),
        ExprKind::Lit(Lit::Int(n)) => n.to_string(),
        ExprKind::Lit(Lit::Bool(b)) => b.to_string(),
        ExprKind::Len(s) => format!("{}.len()", expr_text(func, s)),
        ExprKind::Field(b, n) => format!("{}.{n}", expr_text(func, b)),
        ExprKind::Index(s, i) => format!("{}[{}]", expr_text(func, s), expr_text(func, i)),
        ExprKind::Branch(inner, _) => expr_text(func, inner),
        ExprKind::Binary(op, a, b) if !op.symbol().chars().all(char::is_alphabetic) => format!(
            "{} {} {}",
            expr_text(func, a),
            op.symbol(),
            expr_text(func, b)
        ),
        _ => "…".into(),
    }
}
