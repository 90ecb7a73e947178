//! The typed model of a contract and its parser. A contract attribute's arguments become a
//! [`Contract`]: conditions (plain expressions, `a -> b` implications, `forall`/`exists`
//! quantifiers over integer ranges) and an optional trailing message. Everything that can be
//! rejected without type information is rejected here, with an error on the offending tokens.

use proc_macro2::{Delimiter, Group, Span, TokenStream, TokenTree};
use quote::{ToTokens, quote, quote_spanned};
use syn::parse::discouraged::Speculative;
use syn::parse::{ParseStream, Parser};
use syn::{Attribute, Expr, Ident, Lit, LitStr, Meta, Token};

/// Which kind of contract an attribute states.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `#[requires]`: checked on entry.
    Requires,
    /// `#[ensures]`: checked on exit, may use `ret` and `old(expr)`.
    Ensures,
    /// `#[invariant]`: checked on entry and, unless `self` is consumed, on exit.
    Invariant,
}

impl Kind {
    /// The attribute name without a gate prefix.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Kind::Requires => "requires",
            Kind::Ensures => "ensures",
            Kind::Invariant => "invariant",
        }
    }

    /// The `SiteKind` variant a check of this kind reports as.
    pub(crate) fn site_kind(self) -> &'static str {
        match self {
            Kind::Requires => "Requires",
            Kind::Ensures => "Ensures",
            Kind::Invariant => "Invariant",
        }
    }

    /// The start of the panic message of a violation (followed by ` of {fn} violated`).
    pub(crate) fn violation_prefix(self) -> &'static str {
        match self {
            Kind::Requires => "Pre-condition",
            Kind::Ensures => "Post-condition",
            Kind::Invariant => "Invariant",
        }
    }
}

/// When a contract is checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Gate {
    /// In every build.
    Always,
    /// Only with `debug_assertions` (the `debug_` variants).
    Debug,
    /// Only when the user's crate is compiled for its tests (the `test_` variants).
    Test,
}

impl Gate {
    /// The `cfg` predicate of the gate, if any.
    pub(crate) fn cfg(self) -> Option<TokenStream> {
        match self {
            Gate::Always => None,
            Gate::Debug => Some(quote::quote!(debug_assertions)),
            Gate::Test => Some(quote::quote!(test)),
        }
    }
}

/// One of this crate's attributes, recognized by the last segment of its path (so
/// `#[autodebug_runtime::requires]` and a renamed import both count).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ours {
    /// A contract of some kind, checked when the gate says so.
    Contract(Kind, Gate),
    /// `#[autodebug]` / `#[autodebug(always)]`.
    Autodebug,
}

impl Ours {
    /// Classifies an attribute name (`requires`, `debug_ensures`, `autodebug`, …).
    pub(crate) fn from_name(name: &str) -> Option<Ours> {
        let (gate, rest) = if let Some(rest) = name.strip_prefix("debug_") {
            (Gate::Debug, rest)
        } else if let Some(rest) = name.strip_prefix("test_") {
            (Gate::Test, rest)
        } else if name == "autodebug" {
            return Some(Ours::Autodebug);
        } else {
            (Gate::Always, name)
        };
        let kind = match rest {
            "requires" => Kind::Requires,
            "ensures" => Kind::Ensures,
            "invariant" => Kind::Invariant,
            _ => return None,
        };
        Some(Ours::Contract(kind, gate))
    }

    /// Classifies an attribute found on an item.
    pub(crate) fn of_attr(attr: &Attribute) -> Option<Ours> {
        let segment = attr.path().segments.last()?;
        Ours::from_name(&segment.ident.to_string())
    }

    /// The attribute's name as the user writes it.
    pub(crate) fn name(self) -> String {
        match self {
            Ours::Autodebug => "autodebug".to_string(),
            Ours::Contract(kind, Gate::Always) => kind.name().to_string(),
            Ours::Contract(kind, Gate::Debug) => format!("debug_{}", kind.name()),
            Ours::Contract(kind, Gate::Test) => format!("test_{}", kind.name()),
        }
    }
}

/// The arguments of one of our attributes taken off an item, with the span to blame when
/// they are missing.
pub(crate) struct RawAttr {
    /// Which attribute.
    pub ours: Ours,
    /// Its arguments (inside the parentheses).
    pub args: TokenStream,
    /// The attribute itself, for errors about it as a whole.
    pub span: Span,
}

impl RawAttr {
    /// Takes the arguments of an attribute found on an item (`#[requires(x > 0)]`).
    pub(crate) fn from_attr(ours: Ours, attr: &Attribute) -> syn::Result<RawAttr> {
        let span = attr
            .path()
            .segments
            .last()
            .map_or_else(Span::call_site, |s| s.ident.span());
        let args = match &attr.meta {
            Meta::Path(_) => TokenStream::new(),
            Meta::List(list) => list.tokens.clone(),
            Meta::NameValue(nv) => {
                return Err(syn::Error::new_spanned(
                    &nv.value,
                    format!(
                        "expected `#[{}(...)]`, not `#[{} = ...]`",
                        ours.name(),
                        ours.name()
                    ),
                ));
            }
        };
        Ok(RawAttr { ours, args, span })
    }
}

/// A parsed contract attribute.
pub(crate) struct Contract {
    /// Requires, ensures or invariant.
    pub kind: Kind,
    /// When it is checked.
    pub gate: Gate,
    /// The conditions, in order; all must hold.
    pub conds: Vec<Cond>,
    /// The optional trailing message.
    pub message: Option<String>,
}

/// One condition of a contract, with the tokens the user wrote for it (for the panic message
/// and the site).
pub(crate) struct Cond {
    /// The user's tokens of the whole condition.
    pub tokens: TokenStream,
    /// Its structure.
    pub tree: CondTree,
}

/// The structure of a condition: implication and quantifiers are ours, the leaves are Rust
/// boolean expressions.
pub(crate) enum CondTree {
    /// A boolean Rust expression.
    Expr(Expr),
    /// `premise -> conclusion`: holds when the premise is false or the conclusion holds.
    Implies(Box<CondTree>, Box<CondTree>),
    /// `forall var in range => body` / `exists var in range => body`.
    Quantifier(Quantifier),
}

/// Whether a quantifier asks for every value or some value of its range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum QuantKind {
    /// `forall`: the body holds for every value.
    Forall,
    /// `exists`: the body holds for at least one value.
    Exists,
}

/// A quantifier over an integer range, checked by iterating the range at run time.
pub(crate) struct Quantifier {
    /// `forall` or `exists`.
    pub kind: QuantKind,
    /// The bound variable.
    pub var: Ident,
    /// The range (`a..b` or `a..=b`).
    pub range: Expr,
    /// The condition on each value.
    pub body: Box<CondTree>,
}

/// Parses the arguments of a contract attribute: `cond, cond, …, "optional message"`.
/// `span` is blamed when there are no arguments at all.
pub(crate) fn parse_contract(
    kind: Kind,
    gate: Gate,
    args: TokenStream,
    span: Span,
) -> syn::Result<Contract> {
    let name = Ours::Contract(kind, gate).name();
    let parser = |input: ParseStream| -> syn::Result<Contract> {
        let mut conds = Vec::new();
        let mut message = None;
        while !input.is_empty() {
            if input.peek(LitStr) && is_message(input) {
                let lit: LitStr = input.parse()?;
                if !(input.is_empty() || input.peek(Token![,]) && input.peek2_is_end()) {
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
                conds.push(parse_top_cond(input)?);
            }
            if input.is_empty() {
                break;
            }
            input
                .parse::<Token![,]>()
                .map_err(|e| syn::Error::new(e.span(), "expected `,` between conditions"))?;
        }
        Ok(Contract {
            kind,
            gate,
            conds,
            message,
        })
    };
    let contract = parser.parse2(args)?;
    if contract.conds.is_empty() {
        return Err(syn::Error::new(
            span,
            format!(
                "empty contract: `#[{name}]` needs at least one condition, e.g. `#[{name}(x > 0)]`"
            ),
        ));
    }
    if kind != Kind::Ensures {
        for cond in &contract.conds {
            reject_ensures_only(&cond.tokens, &name)?;
        }
    }
    Ok(contract)
}

/// Whether the string literal at the head of `input` is a message (followed by nothing or by a
/// comma) rather than the start of an expression such as `"ab".len() == 2`.
fn is_message(input: ParseStream) -> bool {
    let fork = input.fork();
    fork.parse::<LitStr>().is_ok() && (fork.is_empty() || fork.peek(Token![,]))
}

/// Extension used by the message check: is the token after the next one the end?
trait PeekEnd {
    fn peek2_is_end(&self) -> bool;
}

impl PeekEnd for syn::parse::ParseBuffer<'_> {
    fn peek2_is_end(&self) -> bool {
        let cursor = self.cursor();
        match cursor.token_tree() {
            Some((_, next)) => next.eof(),
            None => true,
        }
    }
}

/// Parses one top-level condition and remembers the tokens it spans.
fn parse_top_cond(input: ParseStream) -> syn::Result<Cond> {
    let begin = input.cursor();
    let tree = parse_cond(input)?;
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
fn parse_cond(input: ParseStream) -> syn::Result<CondTree> {
    if let Some(kind) = peek_quantifier(input) {
        return parse_quantifier(kind, input);
    }
    if input.is_empty() || input.peek(Token![,]) {
        return Err(input.error("expected a condition"));
    }
    let expr = parse_leaf(input)?;
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
        let conclusion = parse_cond(input)?;
        return Ok(CondTree::Implies(Box::new(premise), Box::new(conclusion)));
    }
    Ok(premise)
}

/// A Rust expression ending at a top-level `->`, `,` or the end. Parenthesized groups may
/// hold conditions of their own (`a && (b -> c)`, `x || (forall i in 0..n => v[i] > 0)`):
/// those are lowered to Rust before the expression is parsed.
fn parse_leaf(input: ParseStream) -> syn::Result<Expr> {
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
        tokens.extend(std::iter::once(lower_nested(tt)));
    }
    syn::parse2(tokens)
}

/// Lowers a parenthesized condition inside an expression to the Rust boolean expression it
/// means; other tokens are kept (and searched).
fn lower_nested(tt: TokenTree) -> TokenTree {
    let TokenTree::Group(group) = tt else {
        return tt;
    };
    let lowered = match group.delimiter() {
        Delimiter::Parenthesis => parse_cond
            .parse2(group.stream())
            .ok()
            .map(|tree| cond_expr(&tree)),
        _ => None,
    };
    let stream = lowered.unwrap_or_else(|| group.stream().into_iter().map(lower_nested).collect());
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
    fork.peek(Ident).then_some(kind)
}

/// forall var in range => cond
fn parse_quantifier(kind: QuantKind, input: ParseStream) -> syn::Result<CondTree> {
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
    let body = parse_cond(input)?;
    Ok(CondTree::Quantifier(Quantifier {
        kind,
        var,
        range,
        body: Box::new(body),
    }))
}

/// `ret` and `old(..)` only mean something after the body ran: reject them elsewhere. The
/// walk is over tokens so that uses inside macro calls (`matches!(ret, …)`) are seen too;
/// a field or method of that name (`x.ret`, `x.old()`) is not a use.
fn reject_ensures_only(tokens: &TokenStream, attr: &str) -> syn::Result<()> {
    let mut before: [Option<TokenTree>; 2] = [None, None];
    let mut iter = tokens.clone().into_iter().peekable();
    while let Some(tt) = iter.next() {
        match &tt {
            TokenTree::Ident(ident) if !follows_path_or_dot(&before) => {
                if ident == "ret" {
                    return Err(syn::Error::new(
                        ident.span(),
                        format!(
                            "`ret` (the return value) can only be used in `ensures`, not in `{attr}`"
                        ),
                    ));
                }
                let call = matches!(iter.peek(), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis);
                if ident == "old" && call {
                    return Err(syn::Error::new(
                        ident.span(),
                        format!(
                            "`old(..)` (a value on entry) can only be used in `ensures`, not in `{attr}`"
                        ),
                    ));
                }
            }
            TokenTree::Group(group) => reject_ensures_only(&group.stream(), attr)?,
            _ => {}
        }
        before = [before[1].take(), Some(tt)];
    }
    Ok(())
}

/// Whether the next token is a field, a method or a path segment (`x.ret`, `x.old(..)`,
/// `m::old(..)`) rather than a name of its own, given the two tokens before it. A range
/// `0..old(n)` and a struct field value `S { a: old(x) }` are names of their own.
pub(crate) fn follows_path_or_dot(before: &[Option<TokenTree>; 2]) -> bool {
    let punct =
        |t: &Option<TokenTree>, c: char| matches!(t, Some(TokenTree::Punct(p)) if p.as_char() == c);
    match &before[1] {
        Some(TokenTree::Punct(p)) if p.as_char() == '.' => !punct(&before[0], '.'),
        Some(TokenTree::Punct(p)) if p.as_char() == ':' => punct(&before[0], ':'),
        _ => false,
    }
}

/// The boolean expression of a condition.
pub(crate) fn cond_expr(tree: &CondTree) -> TokenStream {
    match tree {
        // The parentheses carry the expression's span, so a type error in a condition
        // points at the user's tokens.
        CondTree::Expr(e) => {
            let span = e
                .to_token_stream()
                .into_iter()
                .next()
                .map_or_else(Span::call_site, |t| t.span());
            quote_spanned!(span=> (#e))
        }
        CondTree::Implies(premise, conclusion) => {
            let (p, c) = (cond_expr(premise), cond_expr(conclusion));
            quote!((if #p { #c } else { true }))
        }
        CondTree::Quantifier(q) => {
            let method = match q.kind {
                QuantKind::Forall => quote!(all),
                QuantKind::Exists => quote!(any),
            };
            let (var, range, body) = (&q.var, &q.range, cond_expr(&q.body));
            quote!(::autodebug_runtime::__rt::Iterator::#method(&mut (#range), |#var| #body))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    fn parse(kind: Kind, args: TokenStream) -> syn::Result<Contract> {
        parse_contract(kind, Gate::Always, args, Span::call_site())
    }

    fn err(kind: Kind, args: TokenStream) -> String {
        match parse(kind, args) {
            Ok(_) => panic!("expected an error"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn classifies_attribute_names() {
        assert_eq!(
            Ours::from_name("requires"),
            Some(Ours::Contract(Kind::Requires, Gate::Always))
        );
        assert_eq!(
            Ours::from_name("debug_ensures"),
            Some(Ours::Contract(Kind::Ensures, Gate::Debug))
        );
        assert_eq!(
            Ours::from_name("test_invariant"),
            Some(Ours::Contract(Kind::Invariant, Gate::Test))
        );
        assert_eq!(Ours::from_name("autodebug"), Some(Ours::Autodebug));
        assert_eq!(Ours::from_name("debug_autodebug"), None);
        assert_eq!(Ours::from_name("inline"), None);
    }

    #[test]
    fn parses_conditions_and_message() {
        let c = parse(Kind::Requires, quote!(x > 0, y < x, "positive")).unwrap();
        assert_eq!(c.conds.len(), 2);
        assert_eq!(c.message.as_deref(), Some("positive"));
        assert_eq!(c.conds[1].tokens.to_string(), "y < x");
        // A string starting an expression is a condition, not a message.
        let c = parse(Kind::Requires, quote!("ab".len() == 2)).unwrap();
        assert_eq!(c.conds.len(), 1);
        assert!(c.message.is_none());
        // A trailing comma after the message is fine.
        let c = parse(Kind::Requires, quote!(true, "m",)).unwrap();
        assert_eq!(c.message.as_deref(), Some("m"));
    }

    #[test]
    fn implication_is_right_associative() {
        let c = parse(Kind::Ensures, quote!(a -> b -> c)).unwrap();
        let CondTree::Implies(a, rest) = &c.conds[0].tree else {
            panic!("not an implication")
        };
        assert!(matches!(**a, CondTree::Expr(_)));
        assert!(matches!(**rest, CondTree::Implies(_, _)));
        assert_eq!(c.conds[0].tokens.to_string(), "a -> b -> c");
    }

    #[test]
    fn quantifiers_nest_and_take_implications() {
        let c = parse(
            Kind::Ensures,
            quote!(forall i in 0..n => exists j in 0..=i => a[j] > 0 -> ret, x),
        )
        .unwrap();
        assert_eq!(c.conds.len(), 2);
        let CondTree::Quantifier(q) = &c.conds[0].tree else {
            panic!("not a quantifier")
        };
        assert_eq!(q.kind, QuantKind::Forall);
        assert_eq!(q.var, "i");
        let CondTree::Quantifier(inner) = &*q.body else {
            panic!("not nested")
        };
        assert_eq!(inner.kind, QuantKind::Exists);
        assert!(matches!(*inner.body, CondTree::Implies(_, _)));
        // Conditions nest inside parentheses.
        let c = parse(
            Kind::Ensures,
            quote!(a && (b -> c), !(forall i in 0..n => v[i] > 0) -> d),
        )
        .unwrap();
        assert_eq!(c.conds.len(), 2);
        assert!(matches!(c.conds[0].tree, CondTree::Expr(_)));
        assert!(matches!(c.conds[1].tree, CondTree::Implies(_, _)));
        assert_eq!(c.conds[0].tokens.to_string(), "a && (b -> c)");
        // A call of a function named `forall` is an expression.
        let c = parse(Kind::Requires, quote!(forall(x))).unwrap();
        assert!(matches!(c.conds[0].tree, CondTree::Expr(_)));
    }

    #[test]
    fn rejects_malformed_contracts() {
        assert!(err(Kind::Requires, quote!()).contains("empty contract"));
        assert!(err(Kind::Requires, quote!("m", x)).contains("must be the last"));
        assert!(err(Kind::Requires, quote!("m")).contains("at least one condition"));
        assert!(err(Kind::Requires, quote!(x, 5)).contains("must be a string literal"));
        assert!(err(Kind::Requires, quote!(ret > 0)).contains("`ret`"));
        assert!(err(Kind::Invariant, quote!(old(x) > 0)).contains("`old(..)`"));
        assert!(err(Kind::Requires, quote!(x ->)).contains("after `->`"));
        assert!(err(Kind::Requires, quote!(x ->, y)).contains("after `->`"));
        assert!(err(Kind::Ensures, quote!(forall i 0..n => x)).contains("expected `in`"));
        assert!(err(Kind::Ensures, quote!(forall i in 0..n x)).contains("expected `=>`"));
        assert!(err(Kind::Ensures, quote!(forall i in n => x)).contains("a..b"));
        assert!(err(Kind::Ensures, quote!(forall i in 0.. => x)).contains("a..b"));
        assert!(parse(Kind::Ensures, quote!(x y)).is_err());
        // Fields and methods named like the keywords are fine.
        assert!(
            parse(
                Kind::Requires,
                quote!(self.ret > 0 && x.old(1) && m::old(2))
            )
            .is_ok()
        );
        assert!(err(Kind::Requires, quote!(0..old(n))).contains("`old(..)`"));
        assert!(err(Kind::Requires, quote!(S { a: ret })).contains("`ret`"));
        assert!(parse(Kind::Ensures, quote!(ret > old(x))).is_ok());
    }
}
