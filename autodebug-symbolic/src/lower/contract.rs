//! Contracts: the arguments of `#[requires]`, `#[ensures]` and `#[invariant]` parsed in the
//! project's contract syntax (`cond, …, "message"`; a condition is a boolean expression,
//! `a -> b`, or `forall`/`exists var in a..b => cond`), then lowered like expressions,
//! with `ret` and `old(e)` in `ensures` and quantifiers kept as quantifier nodes.
//!
//! The grammar is `autodebug_syntax::contract`, the macros' own: a condition in parentheses
//! inside an expression is a placeholder there, lowered here where the expression names it.
//! Each condition's site spans its tokens, as the macro's does.

use autodebug_runtime::protocol::SiteKind;
pub(crate) use autodebug_syntax::contract::NESTED;
use autodebug_syntax::contract::{self, CondTree, QuantKind};
use proc_macro2::TokenStream;

use super::body::{Binding, FnLowerer, Mode};
use crate::ir::{
    BinOp, Contract, ContractKind, Expr, ExprKind, Gate, Quantifier, Type, VarId, VarKind,
};

impl FnLowerer<'_, '_> {
    /// Lowers the conditions of one contract attribute into `out`.
    pub(crate) fn contract_attr(
        &mut self,
        attr: &syn::Attribute,
        kind: ContractKind,
        gate: Gate,
        ret: VarId,
        out: &mut Vec<Contract>,
    ) {
        let args = match &attr.meta {
            syn::Meta::List(list) => list.tokens.clone(),
            _ => TokenStream::new(),
        };
        let name = match kind {
            ContractKind::Requires => "requires",
            ContractKind::Ensures => "ensures",
            ContractKind::Invariant => "invariant",
        };
        let parsed = match contract::parse_contract(args, name, proc_macro2::Span::call_site()) {
            Ok(parsed) => parsed,
            Err(e) => {
                let span = self.span(attr);
                self.degrade(
                    "contract",
                    span,
                    &format!("the contract does not parse: {e}"),
                );
                return;
            }
        };
        let site_kind = match kind {
            ContractKind::Requires => SiteKind::Requires,
            ContractKind::Ensures => SiteKind::Ensures,
            ContractKind::Invariant => SiteKind::Invariant,
        };
        let saved_mode = self.mode;
        self.mode = Mode::Contract {
            ensures: kind == ContractKind::Ensures,
        };
        self.nested_conds = parsed.nested;
        self.push_frame();
        if kind == ContractKind::Ensures {
            self.declare("ret", Binding::Var(ret));
        }
        for cond in &parsed.conds {
            let span = self.env.source.span_of_tokens(&cond.tokens);
            let expr = self.cond_tree(&cond.tree, 0, &span);
            out.push(Contract {
                kind,
                gate,
                cond: expr,
                site: crate::ir::Site {
                    kind: site_kind,
                    span,
                    reported: true,
                },
                message: parsed.message.clone(),
            });
        }
        self.pop_frame();
        self.nested_conds.clear();
        self.mode = saved_mode;
    }

    /// A condition; `at` is the span of the top-level condition it is part of.
    fn cond_tree(&mut self, tree: &CondTree, depth: usize, at: &crate::ir::Span) -> Expr {
        if depth > 32 {
            return self.opaque_cond("a condition nested too deeply", at);
        }
        match tree {
            CondTree::Expr(e) => {
                let mut scratch = Vec::new();
                let value = self.expr(e, &mut scratch);
                if scratch.is_empty() {
                    self.inf.unify(&value.ty, &Type::Bool);
                    value
                } else {
                    self.opaque(e, "contract condition", "a condition that needs statements")
                }
            }
            CondTree::Implies(premise, conclusion) => {
                let p = self.cond_tree(premise, depth + 1, at);
                let c = self.cond_tree(conclusion, depth + 1, at);
                Expr {
                    kind: ExprKind::Binary(BinOp::Implies, Box::new(p), Box::new(c)),
                    ty: Type::Bool,
                }
            }
            CondTree::Quantifier(q) => {
                let (range, body) = (&q.range, &q.body);
                let var = q.var.to_string();
                let kind = match q.kind {
                    QuantKind::Forall => Quantifier::Forall,
                    QuantKind::Exists => Quantifier::Exists,
                };
                let syn::Expr::Range(r) = range else {
                    return self.opaque(range, "quantifier", "a range that is not `a..b`");
                };
                let (Some(start), Some(end)) = (&r.start, &r.end) else {
                    return self.opaque(range, "quantifier", "a range without both bounds");
                };
                let mut scratch = Vec::new();
                let start = self.expr(start, &mut scratch);
                let end = self.expr(end, &mut scratch);
                self.inf.unify(&start.ty, &end.ty);
                let bound = self.new_var(&var, start.ty.clone(), VarKind::Bound);
                self.push_frame();
                self.declare(&var, Binding::Var(bound));
                let body = self.cond_tree(body, depth + 1, at);
                self.pop_frame();
                if !scratch.is_empty() {
                    return self.opaque(range, "quantifier", "a range that needs statements");
                }
                Expr {
                    kind: ExprKind::Quantifier {
                        kind,
                        var: bound,
                        start: Box::new(start),
                        end: Box::new(end),
                        inclusive: matches!(r.limits, syn::RangeLimits::Closed(_)),
                        body: Box::new(body),
                    },
                    ty: Type::Bool,
                }
            }
        }
    }

    /// The nested condition a placeholder identifier stands for.
    /// `ident` is the placeholder's own token (its span is the parenthesized condition's).
    pub(crate) fn nested_cond(&mut self, name: &str, ident: &syn::Ident) -> Option<Expr> {
        let index = contract::nested_index(name)?;
        let tree = self.nested_conds.get(index)?.clone();
        let at = self.span(ident);
        Some(self.cond_tree(&tree, 1, &at))
    }

    fn opaque_cond(&mut self, reason: &str, at: &crate::ir::Span) -> Expr {
        self.degrade("contract condition", at.clone(), reason);
        Expr {
            kind: ExprKind::Opaque {
                reason: reason.to_string(),
                span: at.clone(),
                defines: Vec::new(),
            },
            ty: Type::Bool,
        }
    }
}
