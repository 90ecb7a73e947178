//! Components and branch conditions in the walk: each instance of a right-hand side,
//! returned value, bound or condition as constants the diagnosis may free, the variables
//! it may read, and its trace event checked or learned from.

use autodebug_runtime::protocol::{Record, SiteKind, Value};
use z3::ast::{Ast, Bool, Dynamic};

use super::{Ctx, Decision, Env, Exec, Guard, Instance, expr_text, one_line, site_pos};
use crate::encode::Concrete;
use crate::encode::value::{self, R, Stop, Val};
use crate::ir::{BinOp, Component, Expr, ExprKind, Program};

impl<'p> Exec<'p> {
    /// Starts collecting the panics raised while a component's value is computed (when the
    /// site is a diagnosis component); returns the number of instances so far.
    pub(super) fn open(&mut self, site: Option<&Component>) -> Option<usize> {
        let key = self.key(&site?.site);
        self.components.get(&key)?;
        self.pending.push(Vec::new());
        Some(self.instances.len())
    }

    /// Ends [`Exec::open`]: the panics collected belong to the instance the component just
    /// created (its last one), if it created one.
    pub(super) fn close(&mut self, opened: Option<usize>) {
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
    pub(super) fn rhs(
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
    pub(super) fn condition(
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

    pub(super) fn branch_site(
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
