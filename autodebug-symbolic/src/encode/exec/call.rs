//! Calls and quantifiers in the walk: a call of the file's functions inlined with its
//! contracts and its trace frame checked (or its recorded result taken when it is not),
//! and a quantifier or sum expanded over the range the run had.

use autodebug_runtime::protocol::{Record, SiteKind};
use z3::ast::{BV, Bool};

use super::{At, Ctx, Env, Exec, Guard, expr_text, merge2, one_line, site_pos, which};
use crate::encode::Concrete;
use crate::encode::events::{Frame, FrameEnd, SitePos};
use crate::encode::value::{self, Bits, R, Stop, Val};
use crate::ir::{BinOp, ContractKind, Expr, Function, Place, Quantifier, Site, Type};
use crate::semantics::{self, Quantified};

impl<'p> Exec<'p> {
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

    pub(super) fn call(
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

    /// A quantifier (or a sum) over an integer range, expanded over the range the run had.
    pub(super) fn quantifier(&mut self, cx: &mut Ctx<'p>, q: Quantified<'_>, g: &Guard) -> R<Val> {
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

/// The smallest value of a bit-vector kind, as far as an `i128` holds it.
fn k_min(k: Bits) -> i128 {
    match k {
        Bits::Int(t) => t.min_value(),
        _ => 0,
    }
}
