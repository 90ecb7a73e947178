//! The typed model of a contract and its parser. A contract attribute's arguments become a
//! [`Contract`]: conditions (plain expressions, `a -> b` implications, `forall`/`exists`
//! quantifiers over integer ranges) and an optional trailing message. Everything that can be
//! rejected without type information is rejected here, with an error on the offending tokens.

use autodebug_syntax::contract;
pub(crate) use autodebug_syntax::contract::{Cond, CondTree, QuantKind};
use proc_macro2::{Delimiter, Group, Span, TokenStream, TokenTree};
use quote::{ToTokens, quote, quote_spanned};
use syn::{Attribute, Meta};

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

pub(crate) struct Contract {
    /// Requires, ensures or invariant.
    pub kind: Kind,
    /// When it is checked.
    pub gate: Gate,
    /// The conditions, in order; all must hold.
    pub conds: Vec<Cond>,
    /// The optional trailing message.
    pub message: Option<String>,
    /// The conditions in parentheses inside expressions that the conditions' placeholders
    /// name (see `autodebug_syntax::contract`).
    pub nested: Vec<CondTree>,
}

/// Parses the arguments of a contract attribute (the grammar is `autodebug_syntax`'s), and
/// rejects `ret` and `old(..)` outside `ensures`. `span` is blamed when there are no
/// arguments at all.
pub(crate) fn parse_contract(
    kind: Kind,
    gate: Gate,
    args: TokenStream,
    span: Span,
) -> syn::Result<Contract> {
    let name = Ours::Contract(kind, gate).name();
    let parsed = contract::parse_contract(args, &name, span)?;
    if kind != Kind::Ensures {
        for cond in &parsed.conds {
            reject_ensures_only(&cond.tokens, &name)?;
        }
    }
    Ok(Contract {
        kind,
        gate,
        conds: parsed.conds,
        message: parsed.message,
        nested: parsed.nested,
    })
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

/// The boolean expression of a condition, the conditions in parentheses that its
/// placeholders name (`nested`) written in their places.
pub(crate) fn cond_expr(tree: &CondTree, nested: &[CondTree]) -> TokenStream {
    match tree {
        // The parentheses carry the expression's span, so a type error in a condition
        // points at the user's tokens.
        CondTree::Expr(e) => {
            let tokens = with_nested(e.to_token_stream(), nested);
            let span =
                (tokens.clone().into_iter().next()).map_or_else(Span::call_site, |t| t.span());
            quote_spanned!(span=> (#tokens))
        }
        CondTree::Implies(premise, conclusion) => {
            let (p, c) = (cond_expr(premise, nested), cond_expr(conclusion, nested));
            quote!((if #p { #c } else { true }))
        }
        CondTree::Quantifier(q) => {
            let method = match q.kind {
                QuantKind::Forall => quote!(all),
                QuantKind::Exists => quote!(any),
            };
            let (var, range, body) = (&q.var, &q.range, cond_expr(&q.body, nested));
            quote!(::autodebug_runtime::__rt::Iterator::#method(&mut (#range), |#var| #body))
        }
    }
}

/// `tokens` with each placeholder of a nested condition replaced by that condition's
/// boolean expression, in parentheses at the placeholder's span.
fn with_nested(tokens: TokenStream, nested: &[CondTree]) -> TokenStream {
    tokens
        .into_iter()
        .map(|tt| match tt {
            TokenTree::Ident(ident) => {
                match contract::nested_index(&ident.to_string()).and_then(|i| nested.get(i)) {
                    Some(tree) => {
                        let mut group = Group::new(Delimiter::Parenthesis, cond_expr(tree, nested));
                        group.set_span(ident.span());
                        TokenTree::Group(group)
                    }
                    None => TokenTree::Ident(ident),
                }
            }
            TokenTree::Group(group) => {
                let mut new = Group::new(group.delimiter(), with_nested(group.stream(), nested));
                new.set_span(group.span());
                TokenTree::Group(new)
            }
            other => other,
        })
        .collect()
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
