//! The concolic walk over the IR: every statement encoded into z3 in SSA form under a
//! symbolic path guard, with the concrete run carried alongside (the value of every term
//! in the recorded run, and whether the guard holds on the recorded path). On the
//! recorded path each instrumented site is paired with its trace event: a disagreement
//! stops the encoding (the model missed something), an unknown concrete value takes the
//! recorded one.

use std::collections::HashMap;

use autodebug_runtime::protocol::{Record, SiteKey, SiteKind, Value};
use z3::ast::{Ast, BV, Bool, Dynamic};

use super::events::{Frame, FrameEnd, SitePos};
use super::value::{self, Bits, Panic, R, Stop, Val};
use super::{Concrete, Options};
use crate::conflicts::ComponentId;
use crate::ir::{
    BinOp, Component, ContractKind, Expr, ExprKind, Function, Iteration, Lit, Place, Program,
    Quantifier, Site, Stmt, Type, VarId,
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

fn one_line(code: &str) -> String {
    code.split_whitespace().collect::<Vec<_>>().join(" ")
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
    // Calls

    /// Runs `func` on `args` under `g`. `caller` is the calling activation (none for the
    /// call under test, whose trace frame is `frame`). Returns the guard of normal exit,
    /// the returned value and the callee's activation (final variables, `ret` bound).
    pub(crate) fn invoke(
        &mut self,
        caller: Option<&mut Ctx<'p>>,
        func: &'p Function,
        args: Vec<Val>,
        g: &Guard,
        frame: Option<Frame>,
        depth: usize,
    ) -> R<(Guard, Val, Ctx<'p>)> {
        let mut cx = Ctx {
            func,
            env: vec![None; func.vars.len()],
            entry: Vec::new(),
            frame: None,
            depth,
            returns: Vec::new(),
            loops: Vec::new(),
        };
        for (&p, v) in func.params.iter().zip(args) {
            cx.env[p.0 as usize] = Some(v);
        }
        cx.entry = cx.env.clone();
        let top = caller.is_none();
        let mut caller = caller;
        // Preconditions: the call under test assumes them of its inputs; a callee panics
        // when they fail.
        for contract in &func.contracts {
            if !matches!(
                contract.kind,
                ContractKind::Requires | ContractKind::Invariant
            ) {
                continue;
            }
            let (c, cc) = self.contract_cond(&mut cx, &contract.cond, g)?;
            let label = one_line(&contract.site.span.code);
            if top {
                if cc == Some(false) {
                    return Err(Stop::new(format!(
                        "the recorded arguments violate the precondition `{label}` of `{}`",
                        func.name
                    )));
                }
                self.structure.push(c);
            } else {
                let cc = match caller.as_deref_mut() {
                    Some(caller_cx) => self.contract_event(caller_cx, &contract.site, cc, g)?,
                    None => cc,
                };
                self.panic(
                    g,
                    c.not(),
                    cc.map(|c| !c),
                    format!("precondition `{label}` of `{}` violated", func.name),
                );
            }
        }
        let on_entry = self.on(g);
        cx.frame = match (top, caller.as_deref_mut()) {
            (true, _) => frame,
            (false, Some(caller_cx))
                if on_entry && func.instrumented && caller_cx.frame.is_some() =>
            {
                let entry = (func.entry.span.start.line, func.entry.span.start.column);
                let child = caller_cx.frame.as_mut().and_then(|f| f.take_child(entry));
                if child.is_none() {
                    return Err(Stop::new(format!(
                        "the model calls `{}` on the recorded path, the run did not",
                        func.name
                    )));
                }
                child
            }
            _ => None,
        };
        let was_halted = self.halted.is_some();
        let end = self.block(&mut cx, &func.body, g.clone())?;
        if !end.dead {
            let env = cx.env.clone();
            cx.returns.push((end, None, env));
        }
        let (exit, ret, env) = self.merge_returns(&mut cx)?;
        cx.env = env;
        cx.env[func.ret.0 as usize] = Some(ret.clone());
        if on_entry && let Some(frame) = cx.frame.take() {
            self.check_frame(func, &frame, was_halted)?;
        }
        // Postconditions of a callee: a panic when they fail.
        if !top {
            for contract in &func.contracts {
                if !semantics::checked_on_exit(func, contract.kind) {
                    continue;
                }
                let (c, cc) = self.contract_cond(&mut cx, &contract.cond, &exit)?;
                let cc = match caller.as_deref_mut() {
                    Some(caller_cx) => self.contract_event(caller_cx, &contract.site, cc, &exit)?,
                    None => cc,
                };
                let label = one_line(&contract.site.span.code);
                self.panic(
                    &exit,
                    c.not(),
                    cc.map(|c| !c),
                    format!("postcondition `{label}` of `{}` violated", func.name),
                );
            }
        }
        Ok((exit, ret, cx))
    }

    /// A contract condition under `g`: its term and run value (an undecided run value is
    /// no error there).
    pub(crate) fn contract_cond(
        &mut self,
        cx: &mut Ctx<'p>,
        cond: &Expr,
        g: &Guard,
    ) -> R<(Bool, Option<bool>)> {
        let lenient = std::mem::replace(&mut self.lenient, true);
        let v = self.eval(cx, cond, g).and_then(|v| v.as_bool());
        self.lenient = lenient;
        match v {
            Ok(v) => Ok(v),
            // A contract the model cannot evaluate constrains nothing; a failing call whose
            // violation is then not visible is not explained (see `Encoder::encode`).
            Err(stop) => {
                self.note(format!(
                    "`{}`: the contract `{}` is not modeled ({})",
                    cx.func.name,
                    expr_text(cx.func, cond),
                    stop.0
                ));
                Ok((Bool::new_const(self.name("unmodeled")), None))
            }
        }
    }

    fn contract_event(
        &mut self,
        cx: &mut Ctx<'p>,
        site: &Site,
        cc: Option<bool>,
        g: &Guard,
    ) -> R<Option<bool>> {
        if !self.on(g) {
            return Ok(cc);
        }
        let Some(frame) = cx.frame.as_mut() else {
            return Ok(cc);
        };
        match frame.take(site_pos(site)) {
            Some(Record::Contract { ok, .. }) => match cc {
                Some(c) if c != ok => Err(Stop::new(format!(
                    "line {}: the model evaluates the contract `{}` to {c}, the run to {ok}",
                    site.span.start.line,
                    one_line(&site.span.code)
                ))),
                Some(_) => {
                    self.matched += 1;
                    Ok(cc)
                }
                None => {
                    self.adopted += 1;
                    Ok(Some(ok))
                }
            },
            _ => Ok(cc),
        }
    }

    /// Every return of the activation merged: the guard of normal exit, the value, the
    /// variables.
    fn merge_returns(&mut self, cx: &mut Ctx<'p>) -> R<(Guard, Val, Env)> {
        let returns = std::mem::take(&mut cx.returns);
        let ret_ty = cx.func.ret_ty.clone();
        let mut acc: Option<(Guard, Val, Env)> = None;
        for (g, v, env) in returns {
            let v = match v {
                Some(v) => v,
                None => Val::zero(&ret_ty, self.program),
            };
            acc = Some(match acc {
                None => (g, v, env),
                Some((ga, va, ea)) => {
                    let which = which(&g, &ga);
                    let merged = value::ite(&g.s, which, &v, &va);
                    let (gm, em) = merge2((g, env), (ga, ea));
                    (gm, merged, em)
                }
            });
        }
        Ok(acc.unwrap_or_else(|| {
            (
                Guard::dead(),
                Val::zero(&ret_ty, self.program),
                cx.env.clone(),
            )
        }))
    }

    /// After an activation on the recorded path: every event of its frame paired, and
    /// both panicked or neither.
    fn check_frame(&mut self, func: &Function, frame: &Frame, was_halted: bool) -> R<()> {
        let panicked_here = !was_halted && self.halted.is_some();
        // A panic where the run had none (or none where it had one) says more than the
        // events missing after it.
        match frame.end {
            FrameEnd::Panicked if self.halted.is_none() => Err(Stop::new(format!(
                "the run of `{}` panicked where the model does not",
                func.name
            ))),
            FrameEnd::Returned if panicked_here => Err(Stop::new(format!(
                "the model panics in `{}` ({}) where the run returned",
                func.name,
                self.halted.clone().unwrap_or_default()
            ))),
            _ => Ok(()),
        }?;
        let known: Vec<SitePos> = func.sites().iter().map(|s| site_pos(s)).collect();
        for (pos, code, count) in frame.leftovers() {
            // Contract checks in a frame belong to the calls it makes; those of a call the
            // model keeps opaque are left over without anything being missed.
            let contract = matches!(
                pos.2,
                SiteKind::Requires | SiteKind::Ensures | SiteKind::Invariant
            );
            if known.contains(&pos) && !contract {
                return Err(Stop::new(format!(
                    "line {}: the run has {count} more instance(s) of `{}` ({:?}) than the model",
                    pos.0,
                    one_line(&code),
                    pos.2
                )));
            }
            // A call statement and its arguments belong to a call the model keeps opaque
            // (its effect), a closure's value to a closure it keeps opaque, and the model
            // reads a loop's start and a match arm's value as written: leaving their events
            // over misses nothing the model has.
            if matches!(
                pos.2,
                SiteKind::Arg
                    | SiteKind::Call
                    | SiteKind::Closure
                    | SiteKind::Start
                    | SiteKind::Arm
            ) {
                continue;
            }
            self.note(format!(
                "`{}`: events of `{}` at line {} come from code the model keeps opaque",
                func.name,
                one_line(&code),
                pos.0
            ));
        }
        for child in frame.leftover_children() {
            self.note(format!(
                "`{}`: the run's call of `{child}` is inside code the model keeps opaque",
                func.name
            ));
        }
        Ok(())
    }

    fn call(
        &mut self,
        cx: &mut Ctx<'p>,
        name: &str,
        args: &[Expr],
        outputs: &[(usize, Place)],
        ty: &Type,
        g: &Guard,
    ) -> R<Val> {
        let vals = semantics::arguments(&mut At { ex: self, cx, g }, args)?;
        let program = self.program;
        let callee = program.function(name);
        let Some(callee) = callee else {
            self.note(format!(
                "`{}`: the call of `{name}` is outside the file: its result is left free",
                cx.func.name
            ));
            for (_, place) in outputs {
                let fresh = self.fresh_of(&self.place_type(cx, place), "out");
                self.assign(cx, place, fresh, g)?;
            }
            return Ok(self.fresh_of(ty, "call"));
        };
        if cx.depth + 1 > self.options.inline_depth {
            return self.opaque_call(cx, callee, outputs, ty, g);
        }
        let depth = cx.depth + 1;
        let (_, ret, callee_cx) = self.invoke(Some(cx), callee, vals, g, None, depth)?;
        for (i, place) in outputs {
            let Some(&param) = callee.params.get(*i) else {
                continue;
            };
            let out = callee_cx.env[param.0 as usize]
                .clone()
                .unwrap_or_else(|| Val::Opaque("an unset output".into()));
            self.assign(cx, place, out, g)?;
        }
        Ok(ret)
    }

    /// A call beyond the inlining depth: on the recorded path its recorded result,
    /// elsewhere a free value.
    fn opaque_call(
        &mut self,
        cx: &mut Ctx<'p>,
        callee: &'p Function,
        outputs: &[(usize, Place)],
        ty: &Type,
        g: &Guard,
    ) -> R<Val> {
        self.note(format!(
            "calls of `{}` nested deeper than {} are not inlined: their results come from the run",
            callee.name, self.options.inline_depth
        ));
        let mut result = None;
        if self.on(g)
            && callee.instrumented
            && let Some(frame) = cx.frame.as_mut()
        {
            let entry = (callee.entry.span.start.line, callee.entry.span.start.column);
            let Some(child) = frame.take_child(entry) else {
                return Err(Stop::new(format!(
                    "the model calls `{}` on the recorded path, the run did not",
                    callee.name
                )));
            };
            if child.end == FrameEnd::Panicked {
                self.halted = Some(format!("a panic inside `{}`", callee.name));
            }
            if let Some(v) = &child.returned {
                let c = Concrete::from_value(v);
                if !matches!(c, Concrete::Unknown) {
                    let name = self.name("ret");
                    result = Some(Val::from_concrete(
                        ty,
                        &c,
                        &name,
                        self.program,
                        &mut |_, _| {},
                    ));
                }
            }
        }
        for (_, place) in outputs {
            let fresh = self.fresh_of(&self.place_type(cx, place), "out");
            self.assign(cx, place, fresh, g)?;
        }
        Ok(match result {
            Some(v) => v,
            None => self.fresh_of(ty, "call"),
        })
    }

    // -----------------------------------------------------------------------------------
    // Statements

    fn block(&mut self, cx: &mut Ctx<'p>, stmts: &[Stmt], mut g: Guard) -> R<Guard> {
        for stmt in stmts {
            if g.dead {
                break;
            }
            g = self.stmt(cx, stmt, g)?;
        }
        Ok(g)
    }

    fn stmt(&mut self, cx: &mut Ctx<'p>, stmt: &Stmt, g: Guard) -> R<Guard> {
        self.statements += 1;
        if self.statements > self.options.max_statements {
            return Err(Stop::new(format!(
                "the encoding takes more than {} statements (loops unrolled and calls inlined \
                 multiply): `{}` is too large to model",
                self.options.max_statements, cx.func.name
            )));
        }
        match stmt {
            Stmt::Let {
                var,
                init,
                component,
            } => {
                let value = match init {
                    Some(e) => {
                        let target = format!("`{}`", cx.func.var(*var).name);
                        Some(self.rhs(cx, e, component.as_ref(), &g, target)?)
                    }
                    None => None,
                };
                cx.env[var.0 as usize] = value;
                Ok(g)
            }
            Stmt::Assign {
                place,
                value,
                component,
            } => {
                let target = format!("`{}`", place_text(cx.func, place));
                let v = self.rhs(cx, value, component.as_ref(), &g, target)?;
                self.assign(cx, place, v, &g)?;
                Ok(g)
            }
            Stmt::If {
                cond,
                branch,
                then,
                otherwise,
            } => {
                let (c, cc) = self.condition(cx, cond, branch.as_ref(), &g)?;
                self.branches(cx, (c, cc), (then, otherwise), g)
            }
            Stmt::While {
                label,
                cond,
                branch,
                head,
                body,
            } => self.looping(
                cx,
                label,
                head,
                g,
                &mut |exec, cx, g, _| exec.condition(cx, cond, branch.as_ref(), g).map(Some),
                body,
            ),
            Stmt::Loop { label, head, body } => {
                self.looping(cx, label, head, g, &mut |_, _, _, _| Ok(None), body)
            }
            Stmt::For {
                label,
                var,
                iteration,
                head,
                body,
            } => self.for_loop(cx, label, *var, iteration, head, body, g),
            Stmt::Break(label) => jump(cx, label.as_deref(), true, g),
            Stmt::Continue(label) => jump(cx, label.as_deref(), false, g),
            Stmt::Return { value, component } => {
                let v = match value {
                    Some(e) => Some(self.rhs(
                        cx,
                        e,
                        component.as_ref(),
                        &g,
                        "the returned value".into(),
                    )?),
                    None => None,
                };
                let env = cx.env.clone();
                cx.returns.push((g, v, env));
                Ok(Guard::dead())
            }
            Stmt::Assert { cond, span, .. } => {
                let (c, cc) = self.eval(cx, cond, &g)?.as_bool()?;
                self.assertion(&g, (c, cc), span);
                Ok(g)
            }
            Stmt::Panic { span, .. } => {
                self.panic(
                    &g,
                    Bool::from_bool(true),
                    Some(true),
                    format!("`{}` (line {})", one_line(&span.code), span.start.line),
                );
                Ok(Guard::dead())
            }
            Stmt::Expr(e) => {
                self.eval(cx, e, &g)?;
                Ok(g)
            }
            Stmt::Opaque {
                reason,
                span,
                defines,
            } => {
                self.opaque_effects(cx, reason, span.start.line, defines);
                Ok(g)
            }
        }
    }

    /// An `if`: each block under its side of the condition `(c, cc)`, their environments
    /// merged.
    fn branches(
        &mut self,
        cx: &mut Ctx<'p>,
        (c, cc): (Bool, Option<bool>),
        (then, otherwise): (&[Stmt], &[Stmt]),
        g: Guard,
    ) -> R<Guard> {
        let (gt, ge) = (g.and(&c, cc), g.and_not(&c, cc));
        let saved = cx.env.clone();
        let gt2 = self.block(cx, then, gt.clone())?;
        let env_then = std::mem::replace(&mut cx.env, saved);
        let ge2 = self.block(cx, otherwise, ge.clone())?;
        let env_else = std::mem::take(&mut cx.env);
        let unchanged = gt2.same(&gt) && ge2.same(&ge);
        let (merged, env) = merge2((gt2, env_then), (ge2, env_else));
        cx.env = env;
        Ok(if unchanged { g } else { merged })
    }

    /// An `assert!` whose condition is `(c, cc)`: a panic where it is false.
    fn assertion(&mut self, g: &Guard, (c, cc): (Bool, Option<bool>), span: &crate::ir::Span) {
        let code = one_line(&span.code);
        let code = code.trim_end_matches(';').to_string();
        let was_halted = self.halted.is_some();
        self.panic(
            g,
            c.not(),
            cc.map(|c| !c),
            format!("`{code}` failed (line {})", span.start.line),
        );
        if !was_halted && self.halted.is_some() {
            self.halted_by_assertion = Some(code);
        }
    }

    fn opaque_effects(&mut self, cx: &mut Ctx<'p>, reason: &str, line: u32, defines: &[VarId]) {
        let names: Vec<String> = defines
            .iter()
            .map(|&v| cx.func.var(v).name.clone())
            .collect();
        self.note(format!(
            "`{}` line {line}: {reason}: kept opaque{}",
            cx.func.name,
            if names.is_empty() {
                String::new()
            } else {
                format!(" (`{}` left free after it)", names.join("`, `"))
            }
        ));
        for &v in defines {
            let ty = cx.func.var(v).ty.clone();
            let fresh = self.fresh_of(&ty, "opaque");
            cx.env[v.0 as usize] = Some(fresh);
        }
    }

    /// A loop unrolled to the run's iterations plus the slack (off the recorded path, the
    /// slack only); beyond that, still looping is assumed impossible (the `fail` flag).
    /// `cond` gives the condition of iteration `n` (none for `loop`).
    #[allow(clippy::type_complexity)]
    fn looping(
        &mut self,
        cx: &mut Ctx<'p>,
        label: &Option<String>,
        head: &Site,
        mut g: Guard,
        cond: &mut dyn FnMut(
            &mut Self,
            &mut Ctx<'p>,
            &Guard,
            u32,
        ) -> R<Option<(Bool, Option<bool>)>>,
        body: &[Stmt],
    ) -> R<Guard> {
        let line = head.span.start.line;
        let mut exits: Vec<(Guard, Env)> = Vec::new();
        let mut extra = 0u32;
        let mut n = 0u32;
        loop {
            if g.dead {
                break;
            }
            if let Some((c, cc)) = cond(self, cx, &g, n)? {
                exits.push((g.and_not(&c, cc), cx.env.clone()));
                g = g.and(&c, cc);
            }
            if !self.on(&g) {
                if extra >= self.options.slack {
                    self.structure.push(g.s.not());
                    self.note(format!(
                        "`{}` line {line}: the loop is unrolled to the run's iterations plus {} \
                         (paths off the run: {}); runs that would iterate longer are left out",
                        cx.func.name, self.options.slack, self.options.slack
                    ));
                    break;
                }
                extra += 1;
            } else if n >= self.options.max_iterations {
                return Err(Stop::new(format!(
                    "line {line}: the loop ran more than {} iterations",
                    self.options.max_iterations
                )));
            }
            self.iteration(cx, head, &g)?;
            cx.loops.push(LoopCx {
                label: label.clone(),
                breaks: Vec::new(),
                continues: Vec::new(),
            });
            let after = self.block(cx, body, g.clone())?;
            let lc = cx.loops.pop().unwrap_or(LoopCx {
                label: None,
                breaks: Vec::new(),
                continues: Vec::new(),
            });
            let mut acc = (after, std::mem::take(&mut cx.env));
            for cont in lc.continues {
                acc = merge2(acc, cont);
            }
            g = acc.0;
            cx.env = acc.1;
            exits.extend(lc.breaks);
            n += 1;
        }
        let mut acc: Option<(Guard, Env)> = None;
        for exit in exits {
            acc = Some(match acc {
                None => exit,
                Some(a) => merge2(a, exit),
            });
        }
        match acc {
            Some((g, env)) => {
                cx.env = env;
                Ok(g)
            }
            None => Ok(Guard::dead()),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn for_loop(
        &mut self,
        cx: &mut Ctx<'p>,
        label: &Option<String>,
        var: VarId,
        iteration: &Iteration,
        head: &Site,
        body: &[Stmt],
        g: Guard,
    ) -> R<Guard> {
        let line = head.span.start.line;
        match iteration {
            Iteration::Range {
                start,
                end,
                inclusive,
                reverse,
                bound,
            } => {
                let s = self.eval(cx, start, &g)?;
                let e = self.rhs(
                    cx,
                    end,
                    bound.as_ref(),
                    &g,
                    format!(
                        "the bound `{}`",
                        bound
                            .as_ref()
                            .map_or(String::new(), |b| one_line(&b.site.span.code))
                    ),
                )?;
                let range = semantics::Range::new(&s, &e, *inclusive, *reverse)?;
                if self.on(&g) && !range.known() {
                    return Err(Stop::new(format!(
                        "line {line}: the range of the loop is not known in the run"
                    )));
                }
                self.looping(
                    cx,
                    label,
                    head,
                    g,
                    &mut |exec, cx, g, n| {
                        let (c, cc) = range.runs(n as i128);
                        cx.env[var.0 as usize] = Some(range.item(n as i128));
                        exec.decision(g, &c, cc);
                        Ok(Some((c, cc)))
                    },
                    body,
                )
            }
            Iteration::Elements { seq, index } => {
                let seq = self.eval(cx, seq, &g)?;
                let s = seq.as_seq()?.clone();
                if self.on(&g) && s.conc.is_none() {
                    return Err(Stop::new(format!(
                        "line {line}: the length of the iterated sequence is not known in the run"
                    )));
                }
                let index = *index;
                self.looping(
                    cx,
                    label,
                    head,
                    g,
                    &mut |exec, cx, g, n| {
                        let (c, cc) = semantics::element_runs(&s, n as i128);
                        let (elem, i) = semantics::element(&seq, n as i128)?;
                        cx.env[var.0 as usize] = Some(elem);
                        if let Some(index) = index {
                            cx.env[index.0 as usize] = Some(i);
                        }
                        exec.decision(g, &c, cc);
                        Ok(Some((c, cc)))
                    },
                    body,
                )
            }
        }
    }

    /// A decision of the recorded run without a site of its own (a `for` loop going on).
    fn decision(&mut self, g: &Guard, c: &Bool, cc: Option<bool>) {
        if self.on(g)
            && let Some(outcome) = cc
        {
            self.step += 1;
            self.decisions.push(Decision {
                step: self.step,
                cond: c.clone(),
                outcome,
            });
        }
    }

    /// One iteration of a loop: paired with the run's `Iteration` event.
    fn iteration(&mut self, cx: &mut Ctx<'p>, head: &Site, g: &Guard) -> R<()> {
        if !self.on(g) || !head.reported {
            return Ok(());
        }
        let Some(frame) = cx.frame.as_mut() else {
            return Ok(());
        };
        match frame.take(site_pos(head)) {
            Some(Record::Iteration { .. }) => {
                self.matched += 1;
                self.step += 1;
                Ok(())
            }
            _ => Err(Stop::new(format!(
                "line {}: the model iterates the loop more often than the run",
                head.span.start.line
            ))),
        }
    }

    // -----------------------------------------------------------------------------------
    // Components and branch conditions

    /// Starts collecting the panics raised while a component's value is computed (when the
    /// site is a diagnosis component); returns the number of instances so far.
    fn open(&mut self, site: Option<&Component>) -> Option<usize> {
        let key = self.key(&site?.site);
        self.components.get(&key)?;
        self.pending.push(Vec::new());
        Some(self.instances.len())
    }

    /// Ends [`Exec::open`]: the panics collected belong to the instance the component just
    /// created (its last one), if it created one.
    fn close(&mut self, opened: Option<usize>) {
        let Some(before) = opened else { return };
        let raised = self.pending.pop().unwrap_or_default();
        if self.instances.len() > before {
            let owner = self.instances.len() - 1;
            for p in raised {
                self.panics[p].owners.push(owner);
            }
        }
    }

    /// A right-hand side (or returned value, or loop bound) with its component: the value
    /// the statement stores.
    fn rhs(
        &mut self,
        cx: &mut Ctx<'p>,
        e: &Expr,
        component: Option<&Component>,
        g: &Guard,
        target: String,
    ) -> R<Val> {
        if let Some(c) = component {
            self.line = c.site.span.start.line;
        }
        if let (Some(c), ExprKind::Binary(op, lhs, operand)) = (component, &e.kind)
            && c.site.kind == SiteKind::Compound
        {
            // `x op= e`: the component is `e`; the statement stores `x op e`.
            let before = self.eval(cx, lhs, g)?;
            let opened = self.open(Some(c));
            let v = self.eval(cx, operand, g)?;
            let (v, at) = self.component(cx, c, v, operand, g, target)?;
            let whole = self.options.whole_compound && !matches!(op, BinOp::Shl | BinOp::Shr);
            if let (true, Some(at)) = (whole, at) {
                // The component is the whole statement: abnormal, it stores any value (a
                // wrong operator as well as a wrong operand), and its overflow is its own.
                let operand = v.with_leaves(&self.instances[at].normal);
                let (normal, panics) = value::binary(*op, &before, &operand)?;
                self.panics_of(g, panics);
                self.close(opened);
                let name = self.name(&format!("c{}s", self.instances[at].component.index()));
                let stored = normal.fresh_like(&name);
                let instance = &mut self.instances[at];
                instance.value = stored.leaves();
                instance.normal = normal.leaves();
                instance.stored = stored.clone();
                return Ok(stored);
            }
            self.close(opened);
            let (stored, panics) = value::binary(*op, &before, &v)?;
            self.panics_of(g, panics);
            if let Some(at) = at {
                self.instances[at].stored = stored.clone();
            }
            return Ok(stored);
        }
        let opened = self.open(component);
        let v = self.eval(cx, e, g)?;
        let v = match component {
            Some(c) => self.component(cx, c, v, e, g, target)?.0,
            None => v,
        };
        self.close(opened);
        Ok(v)
    }

    /// The component at `c` producing `v`: paired with its event on the recorded path,
    /// and, when it is a diagnosis component, replaced by a constant that the oracle ties
    /// to `v` when it is normal. Returns the value and the instance's index.
    fn component(
        &mut self,
        cx: &mut Ctx<'p>,
        c: &Component,
        mut v: Val,
        e: &Expr,
        g: &Guard,
        target: String,
    ) -> R<(Val, Option<usize>)> {
        let on = self.on(g);
        let line = c.site.span.start.line;
        if on && c.site.reported && cx.frame.is_some() {
            let event = cx.frame.as_mut().and_then(|f| f.take(site_pos(&c.site)));
            match event {
                Some(Record::Component { value, scope, .. }) => {
                    self.check_scope(cx, c, &scope)?;
                    match v.agrees(&value) {
                        Some(true) => self.matched += 1,
                        Some(false) => {
                            return Err(Stop::new(format!(
                                "line {line}: the model computes `{}` = {} where the run recorded {}",
                                one_line(&c.site.span.code),
                                v.shown(),
                                Concrete::from_value(&value)
                            )));
                        }
                        None => {
                            self.adopted += 1;
                            v = if matches!(e.kind, ExprKind::Opaque { .. }) {
                                let known = Concrete::from_value(&value);
                                if matches!(known, Concrete::Unknown) {
                                    v
                                } else {
                                    let name = self.name("recorded");
                                    Val::from_concrete(
                                        &e.ty,
                                        &known,
                                        &name,
                                        self.program,
                                        &mut |_, _| {},
                                    )
                                }
                            } else {
                                v.learn(&value)
                            };
                        }
                    }
                }
                _ => {
                    return Err(Stop::new(format!(
                        "line {line}: the model reaches `{}` where the run has no event of it",
                        one_line(&c.site.span.code)
                    )));
                }
            }
        }
        let step = on.then(|| {
            self.step += 1;
            self.step
        });
        let key = self.key(&c.site);
        let Some(&id) = self.components.get(&key) else {
            return Ok((v, None));
        };
        if v.leaves().is_empty() {
            return Ok((v, None));
        }
        let name = self.name(&format!("c{}", id.index()));
        let value = v.fresh_like(&name);
        let reads = self.reads(cx, c);
        self.instances.push(Instance {
            component: id,
            site: key,
            target,
            step,
            value: value.leaves(),
            normal: v.leaves(),
            reads,
            guard: g.s.clone(),
            stored: value.clone(),
        });
        Ok((value, Some(self.instances.len() - 1)))
    }

    /// What a repair of `c` may read: the variables in scope, flattened (a variable not
    /// set yet reads as a fresh value of its type, so every instance has the same sorts).
    fn reads(&mut self, cx: &Ctx<'p>, c: &Component) -> Vec<Dynamic> {
        let mut out = Vec::new();
        for &v in &c.scope {
            let ty = &cx.func.var(v).ty;
            let shape = Val::fresh(ty, "shape", self.program, &mut |_, _| {});
            let sorts: Vec<_> = shape.leaves().iter().map(|d| d.get_sort()).collect();
            let leaves = cx.env[v.0 as usize]
                .as_ref()
                .map(Val::leaves)
                .filter(|l| l.iter().map(|d| d.get_sort()).collect::<Vec<_>>() == sorts);
            match leaves {
                Some(l) => out.extend(l),
                None => {
                    let fresh = self.fresh_of(ty, "unset");
                    out.extend(fresh.leaves());
                }
            }
        }
        out
    }

    /// The values of the variables in scope the run recorded at a component: checked
    /// against the model's, taken where the model did not know them.
    fn check_scope(&mut self, cx: &mut Ctx<'p>, c: &Component, scope: &[(String, Value)]) -> R<()> {
        for (name, recorded) in scope {
            let Some(&var) = c.scope.iter().find(|&&v| cx.func.var(v).name == *name) else {
                continue;
            };
            let Some(current) = cx.env[var.0 as usize].clone() else {
                continue;
            };
            match current.agrees(recorded) {
                Some(true) => self.matched += 1,
                Some(false) => {
                    return Err(Stop::new(format!(
                        "line {}: the model has `{name}` = {} where the run recorded {}",
                        c.site.span.start.line,
                        current.shown(),
                        Concrete::from_value(recorded)
                    )));
                }
                None => {
                    let learned =
                        self.learn_val(cx, &current, recorded, name, c.site.span.start.line);
                    cx.env[var.0 as usize] = Some(learned);
                }
            }
        }
        Ok(())
    }

    /// `v` with its run value taken from `recorded`; when `v` is still an input the trace
    /// did not record, the input is pinned to that value.
    fn learn_val(
        &mut self,
        cx: &mut Ctx<'p>,
        v: &Val,
        recorded: &Value,
        what: &str,
        line: u32,
    ) -> Val {
        let learned = v.learn(recorded);
        let leaf = match (v, &learned) {
            (Val::Bits(t, None, _), Val::Bits(_, Some(c), k)) => Some((
                Dynamic::from_ast(t),
                Dynamic::from_ast(&value::bv_const(*c, k.width())),
                *c,
            )),
            (Val::Bool(t, None), Val::Bool(_, Some(c))) => Some((
                Dynamic::from_ast(t),
                Dynamic::from_ast(&Bool::from_bool(*c)),
                i128::from(*c),
            )),
            _ => None,
        };
        if let Some((term, constant, known)) = leaf {
            self.adopted += 1;
            if term.is_const()
                && let Some(input) = self.inputs.get(&term.decl().name()).cloned()
            {
                // The input's value is now known wherever it still stands, at entry too
                // (for `old(..)`).
                for slot in cx.env.iter_mut().chain(cx.entry.iter_mut()).flatten() {
                    set_known(slot, &term, known);
                }
                self.structure.push(term.eq(&constant));
                self.learned.push(format!(
                    "`{input}` = {} (not recorded as an argument; read from `{what}` at line {line})",
                    Concrete::from_value(recorded)
                ));
            }
        }
        learned
    }

    /// A branch condition: evaluated, paired with its event, made a component.
    fn condition(
        &mut self,
        cx: &mut Ctx<'p>,
        cond: &Expr,
        site: Option<&Component>,
        g: &Guard,
    ) -> R<(Bool, Option<bool>)> {
        if let Some(comp) = site {
            self.line = comp.site.span.start.line;
        }
        let opened = self.open(site);
        let (c, cc) = self.eval(cx, cond, g)?.as_bool()?;
        match site {
            Some(comp) => {
                let decided = self.branch_site(cx, comp, c, cc, cond, g);
                self.close(opened);
                decided
            }
            None => {
                let what = format!("the condition `{}`", expr_text(cx.func, cond));
                let cc = self.decide(g, cc, &what)?;
                self.decision(g, &c, cc);
                Ok((c, cc))
            }
        }
    }

    fn branch_site(
        &mut self,
        cx: &mut Ctx<'p>,
        comp: &Component,
        c: Bool,
        mut cc: Option<bool>,
        cond: &Expr,
        g: &Guard,
    ) -> R<(Bool, Option<bool>)> {
        let line = comp.site.span.start.line;
        let code = one_line(&comp.site.span.code);
        if self.on(g) && comp.site.reported && cx.frame.is_some() {
            let event = cx.frame.as_mut().and_then(|f| f.take(site_pos(&comp.site)));
            match event {
                Some(Record::Branch {
                    outcome, operands, ..
                }) => {
                    if let ExprKind::Binary(op, a, b) = &strip_branch(cond).kind
                        && op.is_predicate()
                        && operands.len() == 2
                    {
                        self.learn_place(cx, a, &operands[0], &code, line);
                        self.learn_place(cx, b, &operands[1], &code, line);
                    }
                    match cc {
                        Some(x) if x != outcome => {
                            return Err(Stop::new(format!(
                                "line {line}: the model evaluates `{code}` to {x}, the run to {outcome}"
                            )));
                        }
                        Some(_) => self.matched += 1,
                        None => {
                            self.adopted += 1;
                            cc = Some(outcome);
                        }
                    }
                }
                _ => {
                    return Err(Stop::new(format!(
                        "line {line}: the model reaches `{code}` where the run has no event of it"
                    )));
                }
            }
        } else {
            cc = self.decide(g, cc, &format!("`{code}` at line {line}"))?;
        }
        let on = self.on(g);
        let step = on.then(|| {
            self.step += 1;
            self.step
        });
        let key = self.key(&comp.site);
        let mut c = c;
        if let Some(&id) = self.components.get(&key) {
            let name = self.name(&format!("c{}", id.index()));
            let value = Bool::new_const(name);
            let reads = self.reads(cx, comp);
            self.instances.push(Instance {
                component: id,
                site: key,
                target: format!("the condition `{code}`"),
                step,
                value: vec![Dynamic::from_ast(&value)],
                normal: vec![Dynamic::from_ast(&c)],
                reads,
                guard: g.s.clone(),
                stored: Val::Bool(value.clone(), cc),
            });
            c = value;
        }
        if let (Some(step), Some(outcome)) = (step, cc) {
            self.decisions.push(Decision {
                step,
                cond: c.clone(),
                outcome,
            });
        }
        Ok((c, cc))
    }

    /// Takes the run's value of an operand that is a place whose value the model does not
    /// know.
    fn learn_place(&mut self, cx: &mut Ctx<'p>, e: &Expr, recorded: &Value, code: &str, line: u32) {
        let program = self.program;
        let Some(slot) = place_slot(program, &mut cx.env, e) else {
            return;
        };
        let current = slot.clone();
        if current.agrees(recorded).is_some() {
            return;
        }
        let learned = self.learn_val(cx, &current, recorded, code, line);
        if let Some(slot) = place_slot(program, &mut cx.env, e) {
            *slot = learned;
        }
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

    /// A quantifier (or a sum) over an integer range, expanded over the range the run had.
    fn quantifier(&mut self, cx: &mut Ctx<'p>, q: Quantified<'_>, g: &Guard) -> R<Val> {
        let (kind, var, inclusive) = (q.kind, q.var, q.inclusive);
        let (start, end, body) = (q.start, q.end, q.body);
        let (s, cs, k) = self.eval(cx, start, g)?.as_bits()?;
        let (e, ce, _) = self.eval(cx, end, g)?.as_bits()?;
        let signed = k.signed();
        let (Some(lo), Some(end_c)) = (cs, ce) else {
            return self.unexpanded(cx, kind, (start, end));
        };
        // A bound that is not a constant may move when a component is repaired: the
        // expansion then reaches over every index of the sequences at hand (quantifiers in
        // contracts range over indices), the range itself still guarding each element.
        let reach = longest_sequence(cx);
        let fixed = |t: &BV| value::bv_value(t, signed).is_some();
        let lo = if fixed(&s) {
            lo
        } else {
            lo.min(0).max(k_min(k))
        };
        let end_c = if fixed(&e) { end_c } else { end_c.max(reach) };
        let hi = if inclusive { end_c } else { end_c - 1 };
        if hi - lo > 100_000 {
            return Err(Stop::new("a quantifier's range is too large to expand"));
        }
        let ty = cx.func.var(var).ty.clone();
        let bits = value::bits_of(&ty).unwrap_or(k);
        // Elements outside the expanded range are not looked at: a range that would grow
        // beyond it makes a `forall` false and is assumed away for a sum.
        let lo_c = value::bv_const(lo, k.width());
        let end_k = value::bv_const(end_c, k.width());
        let extent = if signed {
            Bool::and(&[s.bvsge(&lo_c), e.bvsle(&end_k)])
        } else {
            Bool::and(&[s.bvuge(&lo_c), e.bvule(&end_k)])
        };
        let mut parts = Vec::new();
        let mut conc = Some(kind == Quantifier::Forall);
        let mut sum: Option<Val> = None;
        let mut i = lo;
        while i <= hi {
            let iv = value::bv_const(i, bits.width());
            cx.env[var.0 as usize] = Some(Val::Bits(iv.clone(), Some(i), bits));
            let within = index_within(&iv, (&s, &e), signed, inclusive);
            // Whether `i` is in the range the run had (the expansion may reach beyond it).
            let in_run = cs.is_some_and(|a| a <= i)
                && ce.is_some_and(|b| if inclusive { i <= b } else { i < b });
            let gi = g.and(&within, Some(in_run));
            let b = self.eval(cx, body, &gi)?;
            match kind {
                Quantifier::Forall | Quantifier::Exists => {
                    let (b, cb) = b.as_bool()?;
                    let cb = if in_run {
                        cb
                    } else {
                        Some(kind == Quantifier::Forall)
                    };
                    let forall = kind == Quantifier::Forall;
                    parts.push(if forall {
                        within.implies(&b)
                    } else {
                        Bool::and(&[&within, &b])
                    });
                    // A `forall` is decided by a false element, an `exists` by a true one.
                    conc = match (conc, cb) {
                        (Some(x), _) | (_, Some(x)) if x != forall => Some(x),
                        (Some(_), Some(_)) => Some(forall),
                        _ => None,
                    };
                }
                Quantifier::Sum => {
                    let acc = match sum.take() {
                        Some(acc) => acc,
                        None => {
                            let (_, _, kb) = b.as_bits()?;
                            Val::Bits(value::bv_const(0, kb.width()), Some(0), kb)
                        }
                    };
                    let (added, panics) = value::binary(BinOp::Add, &acc, &b)?;
                    self.panics_of(&gi, panics);
                    sum = Some(value::ite(&within, Some(in_run), &added, &acc));
                }
            }
            i += 1;
        }
        self.note(format!(
            "`{}`: a quantifier over `{}..{}{}` is expanded over the run's range",
            cx.func.name,
            expr_text(cx.func, start),
            if inclusive { "=" } else { "" },
            expr_text(cx.func, end)
        ));
        match kind {
            Quantifier::Forall => {
                parts.push(extent);
                Ok(Val::Bool(Bool::and(&parts), conc))
            }
            Quantifier::Exists => Ok(Val::Bool(Bool::or(&parts), conc)),
            Quantifier::Sum => {
                self.structure.push(g.s.implies(&extent));
                match sum {
                    Some(sum) => Ok(sum),
                    None => {
                        let bits = value::bits_of(&body.ty)
                            .ok_or_else(|| Stop::new("a sum of values that are not integers"))?;
                        Ok(Val::Bits(value::bv_const(0, bits.width()), Some(0), bits))
                    }
                }
            }
        }
    }
}

/// A `break` (or a `continue`) out of the loop labelled `label` (the innermost when
/// `None`): the loop takes the path and environment it left with.
fn jump(cx: &mut Ctx<'_>, label: Option<&str>, is_break: bool, g: Guard) -> R<Guard> {
    let Some(at) = crate::ir::loop_target(&cx.loops, label, |lc| lc.label.as_deref()) else {
        return Err(Stop::new("`break` or `continue` outside a loop"));
    };
    let env = cx.env.clone();
    if is_break {
        cx.loops[at].breaks.push((g, env));
    } else {
        cx.loops[at].continues.push((g, env));
    }
    Ok(Guard::dead())
}

/// The length of the longest sequence in scope or among the arguments, as the run had it.
fn longest_sequence(cx: &Ctx<'_>) -> i128 {
    cx.env
        .iter()
        .chain(cx.entry.iter())
        .flatten()
        .filter_map(|v| match v {
            Val::Seq(seq) => seq.conc.as_ref().map(|items| items.len() as i128),
            _ => None,
        })
        .max()
        .unwrap_or(0)
}

/// Whether index `i` lies in `start..end` (`..=` when `inclusive`).
fn index_within(i: &BV, (start, end): (&BV, &BV), signed: bool, inclusive: bool) -> Bool {
    let (from, to) = match (signed, inclusive) {
        (true, true) => (start.bvsle(i), i.bvsle(end)),
        (true, false) => (start.bvsle(i), i.bvslt(end)),
        (false, true) => (start.bvule(i), i.bvule(end)),
        (false, false) => (start.bvule(i), i.bvult(end)),
    };
    Bool::and(&[from, to])
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

/// Marks the run's value of every occurrence of the scalar constant `term` in `v`.
fn set_known(v: &mut Val, term: &Dynamic, known: i128) {
    match v {
        Val::Bits(t, c @ None, _) if Dynamic::from_ast(&*t).ast_eq(term) => *c = Some(known),
        Val::Bool(t, c @ None) if Dynamic::from_ast(&*t).ast_eq(term) => *c = Some(known != 0),
        Val::Tuple(items) | Val::Struct(_, items) => {
            items.iter_mut().for_each(|i| set_known(i, term, known))
        }
        Val::Option(s, c @ None, payload) => {
            if Dynamic::from_ast(&*s).ast_eq(term) {
                *c = Some(known != 0);
            }
            set_known(payload, term, known);
        }
        Val::Option(_, _, payload) => set_known(payload, term, known),
        _ => {}
    }
}

/// The smallest value of a bit-vector kind, as far as an `i128` holds it.
fn k_min(k: Bits) -> i128 {
    match k {
        Bits::Int(t) => t.min_value(),
        _ => 0,
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

/// The slot of a place expression (a variable, its fields) in `env`.
fn place_slot<'e>(program: &Program, env: &'e mut Env, e: &Expr) -> Option<&'e mut Val> {
    match &e.kind {
        ExprKind::Var(v) => env.get_mut(v.0 as usize)?.as_mut(),
        ExprKind::Field(base, name) => match place_slot(program, env, base)? {
            Val::Struct(s, fields) => {
                let at = program
                    .struct_def(s)?
                    .fields
                    .iter()
                    .position(|(f, _)| f == name)?;
                fields.get_mut(at)
            }
            _ => None,
        },
        ExprKind::TupleField(base, i) => match place_slot(program, env, base)? {
            Val::Tuple(items) => items.get_mut(*i),
            _ => None,
        },
        _ => None,
    }
}

fn strip_branch(e: &Expr) -> &Expr {
    match &e.kind {
        ExprKind::Branch(inner, _) => strip_branch(inner),
        _ => e,
    }
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
