//! Conditions: a branch condition with its site, the `Operand` sites of a `&&`/`||`
//! chain, and conditions chaining `let`s, whose bindings are declared where they hold.

use autodebug_runtime::protocol::SiteKind;

use crate::ir::{BinOp, Component, Expr, ExprKind, Stmt, Type};
use crate::lower::body::{Binding, FnLowerer, and};
use crate::lower::pattern::PatBinding;
use crate::lower::rules;

/// A lowered condition: the boolean, its site, and the variables its `let`s bind.
pub(crate) struct Condition {
    pub expr: Expr,
    pub branch: Option<Component>,
    pub bindings: Vec<PatBinding>,
}

impl FnLowerer<'_, '_> {
    /// A branch condition of kind `kind` (`If`, `While`, `Guard`): its site, and the
    /// `Operand` sites of a `&&`/`||` chain. A condition with `let`s has only the operand
    /// sites of its other operands; its bindings are aliases in the current scope (the
    /// caller's frame) and come back to be declared where the condition holds.
    pub(crate) fn condition(
        &mut self,
        cond: &syn::Expr,
        kind: SiteKind,
        out: &mut Vec<Stmt>,
    ) -> Condition {
        if rules::contains_let(cond) {
            let mut bindings = Vec::new();
            let expr = self.let_chain(cond, &mut bindings, out, true);
            return Condition {
                expr,
                branch: None,
                bindings,
            };
        }
        let branch = self.sites_on().then(|| self.component(cond, kind, true));
        let expr = if rules::is_chain(cond) && self.sites_on() {
            self.chain(cond, out, true)
        } else {
            self.expr(cond, out)
        };
        self.inf.unify(&expr.ty, &Type::Bool);
        Condition {
            expr,
            branch,
            bindings: Vec::new(),
        }
    }

    /// The operands of a `&&`/`||` chain, each an `Operand` branch. `first` says whether
    /// the operand is evaluated unconditionally (its statements may go before).
    fn chain(&mut self, e: &syn::Expr, out: &mut Vec<Stmt>, first: bool) -> Expr {
        match e {
            syn::Expr::Binary(b) if matches!(b.op, syn::BinOp::And(_) | syn::BinOp::Or(_)) => {
                let op = if matches!(b.op, syn::BinOp::And(_)) {
                    BinOp::And
                } else {
                    BinOp::Or
                };
                let left = self.chain(&b.left, out, first);
                let right = self.chain(&b.right, out, false);
                Expr {
                    kind: ExprKind::Binary(op, Box::new(left), Box::new(right)),
                    ty: Type::Bool,
                }
            }
            syn::Expr::Paren(p) if rules::is_chain(&p.expr) => self.chain(&p.expr, out, first),
            syn::Expr::Group(g) if rules::is_chain(&g.expr) => self.chain(&g.expr, out, first),
            operand => {
                let component = self.component(operand, SiteKind::Operand, true);
                let value = if first {
                    self.expr(operand, out)
                } else {
                    self.short_circuit_operand(operand)
                };
                self.inf.unify(&value.ty, &Type::Bool);
                Expr {
                    kind: ExprKind::Branch(Box::new(value), Box::new(component)),
                    ty: Type::Bool,
                }
            }
        }
    }

    /// A condition chaining `let`s with `&&`: each `let`'s pattern test, its bindings as
    /// aliases for the operands after it, and `Operand` sites on the other operands.
    fn let_chain(
        &mut self,
        e: &syn::Expr,
        bindings: &mut Vec<PatBinding>,
        out: &mut Vec<Stmt>,
        first: bool,
    ) -> Expr {
        match e {
            syn::Expr::Binary(b) if matches!(b.op, syn::BinOp::And(_)) => {
                let left = self.let_chain(&b.left, bindings, out, first);
                let right = self.let_chain(&b.right, bindings, out, false);
                and(left, right)
            }
            syn::Expr::Group(g) => self.let_chain(&g.expr, bindings, out, first),
            syn::Expr::Let(l) => {
                let mut_scrutinee = self.is_mut_scrutinee(&l.expr);
                let mut buf = Vec::new();
                let value = self.expr(&l.expr, &mut buf);
                let scrutinee = if first && !buf.is_empty() {
                    out.extend(buf);
                    value
                } else if !buf.is_empty() || crate::lower::body::has_effects(&value) && !first {
                    return self.opaque(
                        e,
                        "`let` condition",
                        "a later `let` of a chain with effects",
                    );
                } else {
                    value
                };
                // A scrutinee with effects is evaluated once, into a temporary.
                let scrutinee = if crate::lower::body::has_effects(&scrutinee) {
                    let ty = scrutinee.ty.clone();
                    let tmp = self.temp(ty.clone());
                    out.push(Stmt::Let {
                        var: tmp,
                        init: Some(scrutinee),
                        component: None,
                    });
                    Expr::var(tmp, ty)
                } else {
                    scrutinee
                };
                self.mut_scrutinee = mut_scrutinee;
                let result = self.pattern(&l.pat, &scrutinee);
                self.mut_scrutinee = false;
                match result {
                    Ok(lowered) => {
                        for b in &lowered.bindings {
                            self.declare(&b.name, Binding::Alias(b.value.clone()));
                        }
                        bindings.extend(lowered.bindings);
                        lowered.test.unwrap_or_else(|| Expr::bool(true))
                    }
                    Err(reason) => self.opaque(e, "`let` condition", &reason),
                }
            }
            syn::Expr::Binary(b) if matches!(b.op, syn::BinOp::Or(_)) => {
                self.opaque(e, "`let` condition", "`||` in a chain with `let`")
            }
            operand if self.sites_on() => {
                let component = self.component(operand, SiteKind::Operand, true);
                let value = if first {
                    self.expr(operand, out)
                } else {
                    self.short_circuit_operand(operand)
                };
                Expr {
                    kind: ExprKind::Branch(Box::new(value), Box::new(component)),
                    ty: Type::Bool,
                }
            }
            operand => self.short_circuit_operand(operand),
        }
    }
}
