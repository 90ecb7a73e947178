//! The contract grammar, once: the arguments of `#[requires]`, `#[ensures]` and
//! `#[invariant]` are `cond, …, "optional message"`, where a condition is a boolean Rust
//! expression, an implication `a -> b`, or a quantifier `forall`/`exists var in a..b =>
//! cond`. A parenthesized condition inside an expression (`a && (b -> c)`) becomes a
//! placeholder identifier, [`NESTED`]`N`, standing for the `N`th of [`Contract::nested`]:
//! the macros write each as the Rust boolean it means, the lowering as a node of its model.
//! The errors are the ones the macros report at compile time, at the user's tokens.

use proc_macro2::{Delimiter, Group, Ident, Span, TokenStream, TokenTree};
use syn::parse::discouraged::Speculative;
use syn::parse::{ParseStream, Parser};
use syn::{Expr, Lit, LitStr, Token};

/// The prefix of the identifiers that stand for a condition in parentheses inside an
/// expression: `__autodebug_cond_N` is the `N`th nested condition.
pub const NESTED: &str = "__autodebug_cond_";

/// A contract's arguments, parsed.
#[derive(Debug, Clone)]
pub struct Contract {
    /// The conditions, in order; all must hold.
    pub conds: Vec<Cond>,
    /// The optional trailing message.
    pub message: Option<String>,
    /// The conditions in parentheses inside expressions, which [`NESTED`] placeholders name.
    pub nested: Vec<CondTree>,
}

/// One condition of a contract, with the tokens the user wrote for it (for the panic message
/// and the site).
#[derive(Debug, Clone)]
pub struct Cond {
    /// The user's tokens of the whole condition.
    pub tokens: TokenStream,
    /// Its structure.
    pub tree: CondTree,
}

/// The structure of a condition: implication and quantifiers are the contract syntax's, the
/// leaves are Rust boolean expressions (which may hold [`NESTED`] placeholders).
#[derive(Debug, Clone)]
pub enum CondTree {
    /// A boolean Rust expression.
    Expr(Expr),
    /// `premise -> conclusion`: holds when the premise is false or the conclusion holds.
    Implies(Box<CondTree>, Box<CondTree>),
    /// `forall var in range => body` / `exists var in range => body`.
    Quantifier(Quantifier),
}

/// Whether a quantifier asks for every value or some value of its range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QuantKind {
    /// `forall`: the body holds for every value.
    Forall,
    /// `exists`: the body holds for at least one value.
    Exists,
}

/// A quantifier over an integer range `a..b` or `a..=b`.
#[derive(Debug, Clone)]
pub struct Quantifier {
    pub kind: QuantKind,
    /// The bound variable.
    pub var: Ident,
    /// The range, an `Expr::Range` with both bounds.
    pub range: Expr,
    /// The condition on each value.
    pub body: Box<CondTree>,
}

/// The index of the nested condition that the placeholder `name` stands for.
pub fn nested_index(name: &str) -> Option<usize> {
    name.strip_prefix(NESTED)?.parse().ok()
}

/// Parses the arguments of a contract attribute `#[name(…)]`. `span` is blamed when there
/// are no arguments at all.
pub fn parse_contract(args: TokenStream, name: &str, span: Span) -> syn::Result<Contract> {
    let mut nested = Vec::new();
    let parser = |input: ParseStream| -> syn::Result<(Vec<Cond>, Option<String>)> {
        let mut conds = Vec::new();
        let mut message = None;
        while !input.is_empty() {
            if input.peek(LitStr) && is_message(input) {
                let lit: LitStr = input.parse()?;
                if !(input.is_empty() || input.peek(Token![,]) && peek2_is_end(input)) {
                    return Err(syn::Error::new(
                        lit.span(),
                        "the message must be the last argument of a contract",
                    ));
                }
                if conds.is_empty() {
                    return Err(syn::Error::new(
                        lit.span(),
                        "expected at least one condition before the message",
                    ));
                }
                message = Some(lit.value());
            } else {
                conds.push(parse_top_cond(input, &mut nested)?);
            }
            if input.is_empty() {
                break;
            }
            input
                .parse::<Token![,]>()
                .map_err(|e| syn::Error::new(e.span(), "expected `,` between conditions"))?;
        }
        Ok((conds, message))
    };
    let (conds, message) = parser.parse2(args)?;
    if conds.is_empty() {
        return Err(syn::Error::new(
            span,
            format!(
                "empty contract: `#[{name}]` needs at least one condition, e.g. `#[{name}(x > 0)]`"
            ),
        ));
    }
    Ok(Contract {
        conds,
        message,
        nested,
    })
}

/// Whether the string literal at the head of `input` is a message (followed by nothing or by a
/// comma) rather than the start of an expression such as `"ab".len() == 2`.
fn is_message(input: ParseStream) -> bool {
    let fork = input.fork();
    fork.parse::<LitStr>().is_ok() && (fork.is_empty() || fork.peek(Token![,]))
}

/// Whether the token after the next one is the end.
fn peek2_is_end(input: ParseStream) -> bool {
    match input.cursor().token_tree() {
        Some((_, next)) => next.eof(),
        None => true,
    }
}

/// Parses one top-level condition and remembers the tokens it spans.
fn parse_top_cond(input: ParseStream, nested: &mut Vec<CondTree>) -> syn::Result<Cond> {
    let begin = input.cursor();
    let tree = parse_cond(input, nested)?;
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
    Ok(Cond { tokens, tree })
}

/// cond := quantifier | expr ('->' cond)?
fn parse_cond(input: ParseStream, nested: &mut Vec<CondTree>) -> syn::Result<CondTree> {
    if let Some(kind) = peek_quantifier(input) {
        return parse_quantifier(kind, input, nested);
    }
    if input.is_empty() || input.peek(Token![,]) {
        return Err(input.error("expected a condition"));
    }
    let expr = parse_leaf(input, nested)?;
    if let Expr::Lit(lit) = &expr {
        match &lit.lit {
            Lit::Bool(_) => {}
            Lit::Str(s) => {
                return Err(syn::Error::new(
                    s.span(),
                    "a string is not a condition; a message must be the last argument",
                ));
            }
            other => {
                return Err(syn::Error::new_spanned(
                    other,
                    "a contract message must be a string literal",
                ));
            }
        }
    }
    let premise = CondTree::Expr(expr);
    if input.peek(Token![->]) {
        let arrow: Token![->] = input.parse()?;
        if input.is_empty() || input.peek(Token![,]) {
            return Err(syn::Error::new_spanned(
                arrow,
                "expected a condition after `->`",
            ));
        }
        let conclusion = parse_cond(input, nested)?;
        return Ok(CondTree::Implies(Box::new(premise), Box::new(conclusion)));
    }
    Ok(premise)
}

/// A Rust expression ending at a top-level `->`, `,` or the end. Parenthesized groups that
/// hold conditions of their own (`a && (b -> c)`, `x || (forall i in 0..n => v[i] > 0)`)
/// become [`NESTED`] placeholders before the expression is parsed.
fn parse_leaf(input: ParseStream, nested: &mut Vec<CondTree>) -> syn::Result<Expr> {
    let fork = input.fork();
    if let Ok(expr) = fork.parse::<Expr>()
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

/// `tt` with each parenthesized group that is a condition of the contract syntax (not a
/// plain expression) replaced by a placeholder for it; other groups are searched.
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

/// `forall`/`exists` followed by an identifier starts a quantifier (two identifiers in a row
/// are never a Rust expression, so this cannot steal a call of a function named `forall`).
fn peek_quantifier(input: ParseStream) -> Option<QuantKind> {
    let fork = input.fork();
    let word: Ident = fork.parse().ok()?;
    let kind = match word.to_string().as_str() {
        "forall" => QuantKind::Forall,
        "exists" => QuantKind::Exists,
        _ => return None,
    };
    fork.peek(syn::Ident).then_some(kind)
}

/// forall var in range => cond
fn parse_quantifier(
    kind: QuantKind,
    input: ParseStream,
    nested: &mut Vec<CondTree>,
) -> syn::Result<CondTree> {
    let word: Ident = input.parse()?;
    let var: Ident = input.parse()?;
    if !input.peek(Token![in]) {
        return Err(input.error(format!(
            "expected `in` after the variable of the quantifier: `{word} {var} in 0..n => cond`"
        )));
    }
    input.parse::<Token![in]>()?;
    if input.is_empty() || input.peek(Token![=>]) {
        return Err(input.error("expected a range after `in`, e.g. `0..n`"));
    }
    let range = Expr::parse_without_eager_brace(input)?;
    match &range {
        Expr::Range(r) if r.start.is_some() && r.end.is_some() => {}
        _ => {
            return Err(syn::Error::new_spanned(
                &range,
                "a quantifier ranges over integers `a..b` or `a..=b` (both bounds are required)",
            ));
        }
    }
    if !input.peek(Token![=>]) {
        return Err(input.error(format!(
            "expected `=>` after the range of the quantifier: `{word} {var} in 0..n => cond`"
        )));
    }
    let arrow: Token![=>] = input.parse()?;
    if input.is_empty() || input.peek(Token![,]) {
        return Err(syn::Error::new_spanned(
            arrow,
            "expected a condition after `=>`",
        ));
    }
    let body = parse_cond(input, nested)?;
    Ok(CondTree::Quantifier(Quantifier {
        kind,
        var,
        range,
        body: Box::new(body),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    fn parse(args: TokenStream) -> syn::Result<Contract> {
        parse_contract(args, "requires", Span::call_site())
    }

    #[test]
    fn parses_the_contract_forms() {
        let p = parse(quote!(x > 0, y < x, "positive")).unwrap();
        assert_eq!(p.conds.len(), 2);
        assert_eq!(p.message.as_deref(), Some("positive"));
        assert_eq!(p.conds[1].tokens.to_string(), "y < x");
        let p = parse(quote!(a -> b -> c)).unwrap();
        let CondTree::Implies(_, rest) = &p.conds[0].tree else {
            panic!("not an implication")
        };
        assert!(matches!(**rest, CondTree::Implies(..)));
        let p = parse(quote!(forall i in 0..n => exists j in 0..=i => a[j] > 0 -> r, x)).unwrap();
        assert_eq!(p.conds.len(), 2);
        let CondTree::Quantifier(q) = &p.conds[0].tree else {
            panic!("not a quantifier")
        };
        assert_eq!(
            (q.kind, q.var.to_string().as_str()),
            (QuantKind::Forall, "i")
        );
        assert!(matches!(
            &*q.body,
            CondTree::Quantifier(Quantifier {
                kind: QuantKind::Exists,
                ..
            })
        ));
        // A string starting an expression is a condition.
        let p = parse(quote!("ab".len() == 2)).unwrap();
        assert!(p.message.is_none());
        // A call of a function named `forall` is an expression.
        let p = parse(quote!(forall(x))).unwrap();
        assert!(matches!(p.conds[0].tree, CondTree::Expr(_)));
    }

    #[test]
    fn conditions_in_parentheses_become_placeholders() {
        let p = parse(quote!(a && (b -> c), !(forall i in 0..n => v[i] > 0) -> d)).unwrap();
        assert_eq!(p.conds.len(), 2);
        assert_eq!(p.nested.len(), 2);
        let CondTree::Expr(e) = &p.conds[0].tree else {
            panic!("not an expression")
        };
        let text = quote::ToTokens::to_token_stream(e).to_string();
        assert_eq!(text, format!("a && {NESTED}0"));
        assert_eq!(nested_index(&format!("{NESTED}1")), Some(1));
        assert_eq!(nested_index("x"), None);
        // A plain expression in parentheses stays as written.
        let p = parse(quote!((a + b) > c)).unwrap();
        assert!(p.nested.is_empty());
    }

    #[test]
    fn malformed_contracts_say_what_is_wrong() {
        let error = |args| parse(args).unwrap_err().to_string();
        assert!(error(quote!()).starts_with("empty contract: `#[requires]`"));
        assert_eq!(
            error(quote!("msg", x > 0)),
            "the message must be the last argument of a contract"
        );
        assert_eq!(
            error(quote!(forall i in 0.. => x)),
            "a quantifier ranges over integers `a..b` or `a..=b` (both bounds are required)"
        );
        assert_eq!(error(quote!(a ->)), "expected a condition after `->`");
        assert_eq!(
            error(quote!(x > 0, 3)),
            "a contract message must be a string literal"
        );
    }
}
