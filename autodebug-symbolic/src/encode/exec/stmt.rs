//! Statements in the walk: blocks, `let` and assignments, `if` with its two branches
//! merged, `break`/`continue`/`return`, assertions, panics and opaque statements (loops
//! are handed to [`super::loops`]).

use z3::ast::Bool;

use super::loops::jump;
use super::{Ctx, Exec, Guard, merge2, one_line, place_text};
use crate::encode::value::{R, Stop};
use crate::ir::{Stmt, VarId};

impl<'p> Exec<'p> {
    pub(super) fn block(&mut self, cx: &mut Ctx<'p>, stmts: &[Stmt], mut g: Guard) -> R<Guard> {
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

    pub(super) fn opaque_effects(
        &mut self,
        cx: &mut Ctx<'p>,
        reason: &str,
        line: u32,
        defines: &[VarId],
    ) {
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
}
