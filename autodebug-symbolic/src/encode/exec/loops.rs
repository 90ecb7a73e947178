//! Loops in the walk: `while`, `loop` and `for` unrolled to the recorded iterations plus
//! the slack, each iteration paired with its trace event, and `break`/`continue`.

use autodebug_runtime::protocol::Record;
use z3::ast::Bool;

use super::{Ctx, Decision, Env, Exec, Guard, LoopCx, merge2, one_line, site_pos};
use crate::encode::value::{R, Stop};
use crate::ir::{Iteration, Site, Stmt, VarId};
use crate::semantics;

impl<'p> Exec<'p> {
    /// A loop unrolled to the run's iterations plus the slack (off the recorded path, the
    /// slack only); beyond that, still looping is assumed impossible (the `fail` flag).
    /// `cond` gives the condition of iteration `n` (none for `loop`).
    #[allow(clippy::type_complexity)]
    pub(super) fn looping(
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
    pub(super) fn for_loop(
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
    pub(super) fn decision(&mut self, g: &Guard, c: &Bool, cc: Option<bool>) {
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
}

/// A `break` (or a `continue`) out of the loop labelled `label` (the innermost when
/// `None`): the loop takes the path and environment it left with.
pub(super) fn jump(cx: &mut Ctx<'_>, label: Option<&str>, is_break: bool, g: Guard) -> R<Guard> {
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
