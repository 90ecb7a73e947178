//! Control flow: `return` and `break` with their values, `if` and `match` as `if` chains
//! lowered toward their destination, and `while`, `loop` and `for` loops with what they
//! iterate.

use autodebug_runtime::protocol::SiteKind;
use quote::{ToTokens, quote};
use syn::ext::IdentExt;

use super::{Binding, FnLowerer, LoopFrame, MAX_DEPTH, Target, and};
use crate::ir::{Expr, ExprKind, Iteration, Place, Stmt, Type, VarId};
use crate::lower::rules;

impl<'e, 'a> FnLowerer<'e, 'a> {
    pub(super) fn return_stmt(&mut self, r: &syn::ExprReturn, out: &mut Vec<Stmt>) {
        match &r.expr {
            Some(value) if self.returns => {
                let lowered = self.expr(value, out);
                self.inf.unify(&self.ret_ty.clone(), &lowered.ty);
                let component = (!rules::diverges(value) && self.sites_on())
                    .then(|| self.component(value, SiteKind::Return, true));
                out.push(Stmt::Return {
                    value: Some(lowered),
                    component,
                });
            }
            Some(value) => {
                self.expr_into(value, Target::Discard, out);
                out.push(Stmt::Return {
                    value: None,
                    component: None,
                });
            }
            None => out.push(Stmt::Return {
                value: None,
                component: None,
            }),
        }
    }

    pub(super) fn break_stmt(&mut self, b: &syn::ExprBreak, out: &mut Vec<Stmt>) {
        let label = b.label.as_ref().map(|l| l.to_string());
        let frame = match &label {
            Some(l) => self
                .loops
                .iter()
                .rev()
                .find(|f| f.label.as_ref() == Some(l)),
            None => self.loops.last(),
        };
        let dest = frame.and_then(|f| f.value);
        if frame.is_none() {
            // A `break` out of a labeled block.
            let stmt = self.opaque_stmt(
                b,
                "`break` out of a block",
                "labeled blocks are outside the subset",
                Vec::new(),
            );
            out.push(stmt);
            return;
        }
        if let Some(value) = &b.expr {
            match dest {
                Some(var) => self.expr_into(value, Target::Assign(var), out),
                None => self.expr_into(value, Target::Discard, out),
            }
        }
        out.push(Stmt::Break(label));
    }

    /// An `if` as a statement: branches send their values to `target`.
    pub(crate) fn if_stmt(&mut self, e: &syn::ExprIf, target: Target, out: &mut Vec<Stmt>) {
        self.push_frame();
        let cond = self.condition(&e.cond, SiteKind::If, out);
        let mut then = Vec::new();
        self.bind(&cond.bindings, &mut then);
        self.block(&e.then_branch, target, &mut then);
        self.pop_frame();
        let mut otherwise = Vec::new();
        if let Some((_, else_branch)) = &e.else_branch {
            match &**else_branch {
                syn::Expr::If(nested) => self.if_stmt(nested, target, &mut otherwise),
                other => self.expr_into(other, target, &mut otherwise),
            }
        } else {
            self.unit_into(target, &mut otherwise);
        }
        out.push(Stmt::If {
            cond: cond.expr,
            branch: cond.branch,
            then,
            otherwise,
        });
    }

    /// A `match` as an `if` chain over the arms' pattern tests and guards. The last arm
    /// that has no guard is taken unconditionally (the match is exhaustive).
    pub(super) fn match_stmt(&mut self, m: &syn::ExprMatch, target: Target, out: &mut Vec<Stmt>) {
        let mut_scrutinee = self.is_mut_scrutinee(&m.expr);
        let value = self.expr(&m.expr, out);
        let scrutinee = match &value.kind {
            ExprKind::Var(_) => value,
            _ => {
                let ty = value.ty.clone();
                let tmp = self.temp(ty.clone());
                out.push(Stmt::Let {
                    var: tmp,
                    init: Some(value),
                    component: None,
                });
                Expr::var(tmp, ty)
            }
        };
        let mut lowered = Vec::new();
        for arm in &m.arms {
            let pat = match &arm.pat {
                syn::Pat::Guard(g) => &*g.pat,
                other => other,
            };
            self.mut_scrutinee = mut_scrutinee;
            let result = self.pattern(pat, &scrutinee);
            self.mut_scrutinee = false;
            match result {
                Ok(p) => lowered.push(p),
                Err(reason) => {
                    let defines = self.defines_expr_of_match(m);
                    let stmt = self.opaque_stmt(m, "`match`", &reason, defines);
                    out.push(stmt);
                    if target != Target::Discard {
                        self.opaque_value_into(m, target, out);
                    }
                    return;
                }
            }
        }
        let stmts = self.arms(m, &lowered, 0, target);
        out.extend(stmts);
    }

    fn defines_expr_of_match(&mut self, m: &syn::ExprMatch) -> Vec<VarId> {
        self.defines(&syn::Expr::Match(m.clone()))
    }

    /// After an opaque statement standing for a whole value-producing construct: the value
    /// is opaque too.
    fn opaque_value_into(&mut self, node: &impl ToTokens, target: Target, out: &mut Vec<Stmt>) {
        let ty = self.inf.fresh();
        let value = Expr {
            kind: ExprKind::Opaque {
                reason: "the value of an opaque construct".into(),
                span: self.span(node),
                defines: Vec::new(),
            },
            ty,
        };
        self.value_into(value, node, false, target, out);
    }

    fn arms(
        &mut self,
        m: &syn::ExprMatch,
        lowered: &[crate::lower::pattern::Lowered],
        at: usize,
        target: Target,
    ) -> Vec<Stmt> {
        let (Some(arm), Some(pat)) = (m.arms.get(at), lowered.get(at)) else {
            return Vec::new();
        };
        if self.depth > MAX_DEPTH {
            let stmt = self.opaque_stmt(arm, "`match` arm", "nested too deeply", Vec::new());
            return vec![stmt];
        }
        self.depth += 1;
        self.push_frame();
        for b in &pat.bindings {
            self.declare(&b.name, Binding::Alias(b.value.clone()));
        }
        let mut guard_prep = Vec::new();
        let guard = match &arm.pat {
            syn::Pat::Guard(g) => {
                let cond = self.condition(&g.guard, SiteKind::Guard, &mut guard_prep);
                Some((cond, &g.guard))
            }
            _ => None,
        };
        let mut body = Vec::new();
        self.push_frame();
        self.bind(&pat.bindings, &mut body);
        if let Some((cond, _)) = &guard {
            self.bind(&cond.bindings, &mut body);
        }
        if target != Target::Return && self.sites_on() && rules::reports_arm(&arm.body) {
            self.arm_value(&arm.body, target, &mut body);
        } else {
            self.expr_into(&arm.body, target, &mut body);
        }
        self.pop_frame();
        self.pop_frame();
        let guard_expr = match guard {
            Some((_, node)) if !guard_prep.is_empty() => {
                let ty = Type::Bool;
                let span = self.span(node);
                self.degrade("match guard", span.clone(), "the guard needs statements");
                Some(Expr {
                    kind: ExprKind::Opaque {
                        reason: "the guard needs statements".into(),
                        span,
                        defines: Vec::new(),
                    },
                    ty,
                })
            }
            Some((cond, _)) => Some(match cond.branch {
                Some(component) => Expr {
                    kind: ExprKind::Branch(Box::new(cond.expr), Box::new(component)),
                    ty: Type::Bool,
                },
                None => cond.expr,
            }),
            None => None,
        };
        let last_unguarded = guard_expr.is_none() && at + 1 == m.arms.len();
        let cond = match (pat.test.clone(), guard_expr) {
            (Some(t), Some(g)) => Some(and(t, g)),
            (Some(t), None) => Some(t),
            (None, Some(g)) => Some(g),
            (None, None) => None,
        };
        let result = match cond {
            Some(cond) if !last_unguarded => {
                let otherwise = self.arms(m, lowered, at + 1, target);
                vec![Stmt::If {
                    cond,
                    branch: None,
                    then: body,
                    otherwise,
                }]
            }
            _ => body,
        };
        self.depth -= 1;
        result
    }

    /// The value of a match arm that is an `Arm` site: into the match's temporary (or a
    /// temporary of its own, where the match's value is dropped), through the site.
    fn arm_value(&mut self, body: &syn::Expr, target: Target, out: &mut Vec<Stmt>) {
        let value = self.expr(body, out);
        let component = Some(self.component(body, SiteKind::Arm, true));
        match target {
            Target::Assign(var) => {
                self.inf.unify(&self.var_ty(var), &value.ty);
                out.push(Stmt::Assign {
                    place: Place::Var(var),
                    value,
                    component,
                });
            }
            Target::Discard | Target::Return => {
                let tmp = self.temp(value.ty.clone());
                out.push(Stmt::Let {
                    var: tmp,
                    init: Some(value),
                    component,
                });
            }
        }
    }

    fn label(label: &Option<syn::Label>) -> Option<String> {
        label.as_ref().map(|l| l.name.to_string())
    }

    pub(super) fn while_loop(&mut self, w: &syn::ExprWhile, out: &mut Vec<Stmt>) {
        let (while_token, cond) = (&w.while_token, &w.cond);
        let head = self.site(&quote!(#while_token #cond), SiteKind::Loop, true);
        let label = Self::label(&w.label);
        self.loops.push(LoopFrame {
            label: label.clone(),
            value: None,
        });
        self.push_frame();
        let mut prep = Vec::new();
        let lowered = self.condition(&w.cond, SiteKind::While, &mut prep);
        let mut body = Vec::new();
        self.bind(&lowered.bindings, &mut body);
        self.block(&w.body, Target::Discard, &mut body);
        self.pop_frame();
        self.loops.pop();
        if prep.is_empty() && lowered.bindings.is_empty() && !rules::contains_let(&w.cond) {
            out.push(Stmt::While {
                label,
                cond: lowered.expr,
                branch: lowered.branch,
                head,
                body,
            });
        } else {
            // `while let`, or a condition that needs statements: a loop evaluating the
            // condition first in every iteration.
            prep.push(Stmt::If {
                cond: lowered.expr,
                branch: lowered.branch,
                then: body,
                otherwise: vec![Stmt::Break(None)],
            });
            out.push(Stmt::Loop {
                label,
                head,
                body: prep,
            });
        }
    }

    pub(super) fn loop_stmt(&mut self, l: &syn::ExprLoop, target: Target, out: &mut Vec<Stmt>) {
        let head = self.site(&l.loop_token, SiteKind::Loop, true);
        let label = Self::label(&l.label);
        let value = match target {
            Target::Assign(var) => Some(var),
            Target::Return => Some(self.temp(self.ret_ty.clone())),
            Target::Discard => None,
        };
        if let (Some(var), Target::Return) = (value, target) {
            out.push(Stmt::Let {
                var,
                init: None,
                component: None,
            });
        }
        self.loops.push(LoopFrame {
            label: label.clone(),
            value,
        });
        let mut body = Vec::new();
        self.block(&l.body, Target::Discard, &mut body);
        self.loops.pop();
        out.push(Stmt::Loop { label, head, body });
        if let (Some(var), Target::Return) = (value, target) {
            out.push(Stmt::Return {
                value: Some(Expr::var(var, self.var_ty(var))),
                component: None,
            });
        }
    }

    pub(super) fn for_loop(&mut self, f: &syn::ExprForLoop, out: &mut Vec<Stmt>) {
        let (for_token, pat, in_token, iterated) = (&f.for_token, &f.pat, &f.in_token, &f.expr);
        let head = self.site(
            &quote!(#for_token #pat #in_token #iterated),
            SiteKind::Loop,
            true,
        );
        let label = Self::label(&f.label);
        let iteration = match rules::for_range(&f.expr) {
            Some((range, Some(reverse))) => self.range_iteration(range, reverse, out),
            Some((_, None)) => {
                Err("an iterator adapter over a range (`step_by`, `skip`, `take`)".to_string())
            }
            None => self.elements_iteration(&f.expr, out),
        };
        let (iteration, elem_ty, enumerate) = match iteration {
            Ok(it) => it,
            Err(reason) => {
                let defines = self.defines(&syn::Expr::ForLoop(f.clone()));
                let stmt = self.opaque_stmt(f, "`for` loop", &reason, defines);
                out.push(stmt);
                return;
            }
        };
        self.loops.push(LoopFrame {
            label: label.clone(),
            value: None,
        });
        self.push_frame();
        let mut body = Vec::new();
        let (index_pat, elem_pat) = match (&**pat, enumerate) {
            (syn::Pat::Tuple(t), true) if t.elems.len() == 2 => (t.elems.first(), t.elems.last()),
            (_, true) => (None, None),
            (p, false) => (None, Some(p)),
        };
        let iteration = match (iteration, index_pat) {
            (Iteration::Elements { seq, .. }, Some(ip)) => {
                let index = match rules::simple_binding(strip_ref_pat(ip)) {
                    Some((ident, _)) => self.declare_local(
                        &ident.unraw().to_string(),
                        Type::Int(crate::ir::IntType::Usize),
                        self.pos_of(ident),
                    ),
                    None => self.temp(Type::Int(crate::ir::IntType::Usize)),
                };
                Iteration::Elements {
                    seq,
                    index: Some(index),
                }
            }
            (it, _) => it,
        };
        let var = match elem_pat.map(strip_ref_pat) {
            Some(p) if rules::simple_binding(p).is_some() => {
                let (ident, ty) = rules::simple_binding(p).unwrap_or_else(|| unreachable!());
                if let Some(ty) = ty {
                    let ty = self.env.resolve(ty, self.self_ty.as_ref(), &self.generics);
                    self.inf.unify(&ty, &elem_ty);
                }
                self.declare_local(
                    &ident.unraw().to_string(),
                    elem_ty.clone(),
                    self.pos_of(ident),
                )
            }
            Some(syn::Pat::Wild(_)) | None => self.temp(elem_ty.clone()),
            Some(p) => {
                let tmp = self.temp(elem_ty.clone());
                self.let_pattern(p, Expr::var(tmp, elem_ty.clone()), None, p, &mut body);
                tmp
            }
        };
        self.block(&f.body, Target::Discard, &mut body);
        self.pop_frame();
        self.loops.pop();
        out.push(Stmt::For {
            label,
            var,
            iteration,
            head,
            body,
        });
    }

    fn range_iteration(
        &mut self,
        range: &syn::ExprRange,
        reverse: bool,
        out: &mut Vec<Stmt>,
    ) -> Result<(Iteration, Type, bool), String> {
        let (Some(start), Some(end)) = (&range.start, &range.end) else {
            return Err("a range without a start".into());
        };
        let start = self.expr(start, out);
        let bound_node = range.end.as_deref();
        let end_value = self.expr(end, out);
        self.inf.unify(&start.ty, &end_value.ty);
        let bound =
            bound_node.map(|node| self.component(node, SiteKind::Bound, !rules::diverges(node)));
        let ty = start.ty.clone();
        Ok((
            Iteration::Range {
                start,
                end: end_value,
                inclusive: matches!(range.limits, syn::RangeLimits::Closed(_)),
                reverse,
                bound,
            },
            ty,
            false,
        ))
    }

    /// `for x in v`, `v.iter()`, `&v`, `v.iter().enumerate()` (also with `.copied()`,
    /// `.cloned()`, `.into_iter()`).
    fn elements_iteration(
        &mut self,
        iterated: &syn::Expr,
        out: &mut Vec<Stmt>,
    ) -> Result<(Iteration, Type, bool), String> {
        let mut expr = rules::strip(iterated);
        let mut enumerate = false;
        loop {
            match expr {
                syn::Expr::MethodCall(m) if m.args.is_empty() => {
                    let name = m.method.to_string();
                    match name.as_str() {
                        "enumerate" if !enumerate => enumerate = true,
                        "iter" | "into_iter" | "copied" | "cloned" => {}
                        _ => return Err(format!("iteration over `.{name}()`")),
                    }
                    expr = rules::strip(&m.receiver);
                }
                syn::Expr::Reference(r) if r.mutability.is_none() => expr = rules::strip(&r.expr),
                syn::Expr::Reference(_) => return Err("iteration over `&mut` elements".into()),
                _ => break,
            }
        }
        let seq = self.expr(expr, out);
        let elem = match self.inf.shallow(&seq.ty) {
            Type::Seq { elem, .. } => *elem,
            Type::Infer(_) => {
                let elem = self.inf.fresh();
                self.inf.unify(
                    &seq.ty,
                    &Type::Seq {
                        elem: Box::new(elem.clone()),
                        len: None,
                    },
                );
                elem
            }
            other => return Err(format!("iteration over a value of type {other}")),
        };
        Ok((Iteration::Elements { seq, index: None }, elem, enumerate))
    }
}

fn strip_ref_pat(pat: &syn::Pat) -> &syn::Pat {
    match pat {
        syn::Pat::Reference(r) => strip_ref_pat(&r.pat),
        syn::Pat::Paren(p) => strip_ref_pat(&p.pat),
        other => other,
    }
}
