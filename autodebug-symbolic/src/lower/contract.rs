//! Contracts: the arguments of `#[requires]`, `#[ensures]` and `#[invariant]` parsed in the
//! project's contract syntax (`cond, …, "message"`; a condition is a boolean expression,
//! `a -> b`, or `forall`/`exists var in a..b => cond`), then lowered like expressions,
//! with `ret` and `old(e)` in `ensures` and quantifiers kept as quantifier nodes.
//!
//! The grammar is `autodebug-macros/src/parse.rs`'s, restated for well-formed input: the
//! macro has already rejected malformed contracts at compile time, so this parser needs no
//! diagnostics, and the macro's parser (a `pub(crate)` model inside a proc-macro crate,
//! whose nested conditions are lowered to Rust tokens by its code generator) cannot be
//! linked from here. Each condition's site spans its tokens, as the macro's does.

use autodebug_runtime::protocol::SiteKind;
use proc_macro2::{Delimiter, Group, Ident, TokenStream, TokenTree};
use syn::parse::discouraged::Speculative;
use syn::parse::{ParseStream, Parser};
use syn::{LitStr, Token};

use super::body::{Binding, FnLowerer, Mode};
use crate::ir::{
    BinOp, Contract, ContractKind, Expr, ExprKind, Gate, Quantifier, Type, VarId, VarKind,
};

/// The structure of a condition.
#[derive(Debug, Clone)]
pub(crate) enum CondTree {
    /// A boolean Rust expression (it may name nested conditions, see [`NESTED`]).
    Expr(syn::Expr),
    /// `premise -> conclusion`.
    Implies(Box<CondTree>, Box<CondTree>),
    /// `forall var in range => body` / `exists …`.
    Quantifier {
        kind: Quantifier,
        var: String,
        range: syn::Expr,
        body: Box<CondTree>,
    },
}

/// The prefix of the identifiers that stand for a condition in parentheses inside an
/// expression (`a && (b -> c)`): `__autodebug_cond_N` is the `N`th nested condition.
pub(crate) const NESTED: &str = "__autodebug_cond_";

/// One top-level condition and its tokens.
struct ParsedCond {
    tokens: TokenStream,
    tree: CondTree,
}

struct Parsed {
    conds: Vec<ParsedCond>,
    message: Option<String>,
    nested: Vec<CondTree>,
}

/// Parses a contract's arguments.
fn parse_contract(args: TokenStream) -> syn::Result<Parsed> {
    let mut nested = Vec::new();
    let parser = |input: ParseStream| -> syn::Result<(Vec<ParsedCond>, Option<String>)> {
        let mut conds = Vec::new();
        let mut message = None;
        while !input.is_empty() {
            if input.peek(LitStr) && is_message(input) {
                message = Some(input.parse::<LitStr>()?.value());
            } else {
                let begin = input.cursor();
                let tree = parse_cond(input, &mut nested)?;
                let end = input.cursor();
                let mut tokens = TokenStream::new();
                let mut at = begin;
                while at < end {
                    match at.token_tree() {
                        Some((tt, next)) => {
                            tokens.extend(std::iter::once(tt));
                            at = next;
                        }
                        None => break,
                    }
                }
                conds.push(ParsedCond { tokens, tree });
            }
            if input.is_empty() {
                break;
            }
            input.parse::<Token![,]>()?;
        }
        Ok((conds, message))
    };
    let (conds, message) = parser.parse2(args)?;
    Ok(Parsed {
        conds,
        message,
        nested,
    })
}

fn is_message(input: ParseStream) -> bool {
    let fork = input.fork();
    fork.parse::<LitStr>().is_ok() && (fork.is_empty() || fork.peek(Token![,]))
}

/// cond := quantifier | expr ('->' cond)?
fn parse_cond(input: ParseStream, nested: &mut Vec<CondTree>) -> syn::Result<CondTree> {
    if let Some(kind) = peek_quantifier(input) {
        input.parse::<Ident>()?;
        let var: Ident = input.parse()?;
        input.parse::<Token![in]>()?;
        let range = syn::Expr::parse_without_eager_brace(input)?;
        input.parse::<Token![=>]>()?;
        let body = parse_cond(input, nested)?;
        return Ok(CondTree::Quantifier {
            kind,
            var: var.to_string(),
            range,
            body: Box::new(body),
        });
    }
    let premise = CondTree::Expr(parse_leaf(input, nested)?);
    if input.peek(Token![->]) {
        input.parse::<Token![->]>()?;
        let conclusion = parse_cond(input, nested)?;
        return Ok(CondTree::Implies(Box::new(premise), Box::new(conclusion)));
    }
    Ok(premise)
}

/// A Rust expression ending at a top-level `->`, `,` or the end. Parenthesized groups that
/// hold conditions of their own become placeholder identifiers.
fn parse_leaf(input: ParseStream, nested: &mut Vec<CondTree>) -> syn::Result<syn::Expr> {
    let fork = input.fork();
    if let Ok(expr) = fork.parse::<syn::Expr>()
        && (fork.is_empty() || fork.peek(Token![,]) || fork.peek(Token![->]))
    {
        input.advance_to(&fork);
        return Ok(expr);
    }
    let mut tokens = TokenStream::new();
    while !input.is_empty() && !input.peek(Token![,]) && !input.peek(Token![->]) {
        let tt: TokenTree = input.parse()?;
        tokens.extend(std::iter::once(replace_nested(tt, nested, 0)));
    }
    syn::parse2(tokens)
}

fn replace_nested(tt: TokenTree, nested: &mut Vec<CondTree>, depth: usize) -> TokenTree {
    let TokenTree::Group(group) = tt else {
        return tt;
    };
    if depth > 32 {
        return TokenTree::Group(group);
    }
    if group.delimiter() == Delimiter::Parenthesis {
        let before = nested.len();
        match (|input: ParseStream| parse_cond(input, nested)).parse2(group.stream()) {
            Ok(tree) if !matches!(tree, CondTree::Expr(_)) => {
                nested.push(tree);
                let name = format!("{NESTED}{}", nested.len() - 1);
                return TokenTree::Ident(Ident::new(&name, group.span()));
            }
            _ => nested.truncate(before),
        }
    }
    let stream = group
        .stream()
        .into_iter()
        .map(|t| replace_nested(t, nested, depth + 1))
        .collect();
    let mut new = Group::new(group.delimiter(), stream);
    new.set_span(group.span());
    TokenTree::Group(new)
}

fn peek_quantifier(input: ParseStream) -> Option<Quantifier> {
    let fork = input.fork();
    let word: Ident = fork.parse().ok()?;
    let kind = match word.to_string().as_str() {
        "forall" => Quantifier::Forall,
        "exists" => Quantifier::Exists,
        _ => return None,
    };
    fork.peek(syn::Ident).then_some(kind)
}

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
        let parsed = match parse_contract(args) {
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
            CondTree::Quantifier {
                kind,
                var,
                range,
                body,
            } => {
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
                let bound = self.new_var(var, start.ty.clone(), VarKind::Bound);
                self.push_frame();
                self.declare(var, Binding::Var(bound));
                let body = self.cond_tree(body, depth + 1, at);
                self.pop_frame();
                if !scratch.is_empty() {
                    return self.opaque(range, "quantifier", "a range that needs statements");
                }
                Expr {
                    kind: ExprKind::Quantifier {
                        kind: *kind,
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
        let index: usize = name.strip_prefix(NESTED)?.parse().ok()?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    #[test]
    fn parses_the_contract_forms() {
        let p = parse_contract(quote!(x > 0, y < x, "positive")).unwrap();
        assert_eq!(p.conds.len(), 2);
        assert_eq!(p.message.as_deref(), Some("positive"));
        assert_eq!(p.conds[1].tokens.to_string(), "y < x");
        let p = parse_contract(quote!(a -> b -> c)).unwrap();
        let CondTree::Implies(_, rest) = &p.conds[0].tree else {
            panic!("not an implication")
        };
        assert!(matches!(**rest, CondTree::Implies(..)));
        let p = parse_contract(quote!(forall i in 0..n => exists j in 0..=i => a[j] > 0 -> r, x))
            .unwrap();
        assert_eq!(p.conds.len(), 2);
        let CondTree::Quantifier {
            kind, var, body, ..
        } = &p.conds[0].tree
        else {
            panic!("not a quantifier")
        };
        assert_eq!((*kind, var.as_str()), (Quantifier::Forall, "i"));
        assert!(matches!(
            **body,
            CondTree::Quantifier {
                kind: Quantifier::Exists,
                ..
            }
        ));
        // A string starting an expression is a condition.
        let p = parse_contract(quote!("ab".len() == 2)).unwrap();
        assert!(p.message.is_none());
        // Conditions inside parentheses become placeholders.
        let p =
            parse_contract(quote!(a && (b -> c), !(forall i in 0..n => v[i] > 0) -> d)).unwrap();
        assert_eq!(p.conds.len(), 2);
        assert_eq!(p.nested.len(), 2);
        let CondTree::Expr(e) = &p.conds[0].tree else {
            panic!("not an expression")
        };
        assert!(
            quote::ToTokens::to_token_stream(e)
                .to_string()
                .contains(NESTED)
        );
        // A call of a function named `forall` is an expression.
        let p = parse_contract(quote!(forall(x))).unwrap();
        assert!(matches!(p.conds[0].tree, CondTree::Expr(_)));
    }
}
