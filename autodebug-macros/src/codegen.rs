//! Code generation shared by every attribute of this crate. The first of our attributes to
//! expand on an item gathers the others from the item's attributes (and, on an `impl` block,
//! from its methods), so a function gets exactly one wrapper however many contracts it has:
//!
//! ```text
//! { requires checks; invariant checks; let __autodebug_old_N = …;
//!   let ret: R = <original body, `return` and `?` still meaning "leave the function">;
//!   ensures checks; invariant checks (unless `self` was consumed); ret }
//! ```

use crate::parse::{
    Cond, Contract, Gate, Kind, Ours, RawAttr, cond_expr, follows_path_or_dot, parse_contract,
};
use crate::{instrument, site};
use proc_macro2::{Delimiter, Group, Ident, Span, TokenStream, TokenTree};
use quote::{ToTokens, quote, quote_spanned};
use syn::ext::IdentExt;
use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::{
    Attribute, Block, Expr, ImplItem, Item, ItemFn, ItemImpl, ReceiverKind, ReturnType, Signature,
    Type,
};

/// Name of the label of the block the original body runs in (when it runs in a labeled block).
const BODY_LABEL: &str = "'__autodebug_body";

/// Lints our generated statements must not trigger in the user's crate (the user's own
/// expressions inside a check are wrapped too: a contract is a specification, not code to
/// polish).
fn allow_generated() -> TokenStream {
    quote!(#[allow(unused_parens, unused_braces, clippy::all, clippy::pedantic, clippy::nursery)])
}

/// Expands the attribute `first` (with arguments `args`) on `item`. `instrument_env` says
/// whether the build asked for instrumentation (`AUTODEBUG_INSTRUMENT=1`). Errors come back
/// as `compile_error!`s next to the item, stripped of our attributes, so that they are not
/// followed by a cascade of unrelated errors.
pub(crate) fn expand(
    first: Ours,
    args: TokenStream,
    item: TokenStream,
    instrument_env: bool,
) -> TokenStream {
    if is_marker_args(&args) {
        return item;
    }
    let first = RawAttr {
        ours: first,
        args,
        span: Span::call_site(),
    };
    // Older editions' syntax (`&mut FnMut(u8)`, unnamed parameters) is repaired on the
    // tokens, spans kept; what still does not parse is said.
    let mut item: Item = match autodebug_syntax::parse_repaired(item.clone()) {
        Ok(item) => item,
        Err(error) => {
            let err = syn::Error::new_spanned(
                &item,
                format!(
                    "`#[{}]` can only be attached to a function with a body or an `impl` block \
                     (this item does not parse: {error})",
                    first.ours.name()
                ),
            );
            return err.to_compile_error();
        }
    };
    let result = match &mut item {
        Item::Fn(func) => expand_fn(func, first, instrument_env),
        Item::Impl(imp) => expand_impl(imp, first, instrument_env),
        other => Err(not_a_fn(first.ours, other)),
    };
    match result {
        Ok(()) => item.into_token_stream(),
        Err(err) => {
            mark_ours(&mut item);
            let mut out = err.to_compile_error();
            item.to_tokens(&mut out);
            out
        }
    }
}

/// The error for one of our attributes on an item that is neither a function nor an `impl`.
fn not_a_fn(ours: Ours, item: &Item) -> syn::Error {
    let what = match ours {
        Ours::Contract(Kind::Requires | Kind::Ensures, _) => "a function",
        _ => "a function or an `impl` block",
    };
    let message = format!("`#[{}]` can only be attached to {what}", ours.name());
    fn pair(a: &impl ToTokens, b: &impl ToTokens) -> TokenStream {
        quote!(#a #b)
    }
    let head = match item {
        Item::Struct(s) => pair(&s.struct_token, &s.ident),
        Item::Enum(e) => pair(&e.enum_token, &e.ident),
        Item::Union(u) => pair(&u.union_token, &u.ident),
        Item::Trait(t) => pair(&t.trait_token, &t.ident),
        Item::Mod(m) => pair(&m.mod_token, &m.ident),
        Item::Const(c) => pair(&c.const_token, &c.ident),
        Item::Static(s) => pair(&s.static_token, &s.ident),
        Item::Type(t) => pair(&t.type_token, &t.ident),
        Item::Use(u) => u.use_token.to_token_stream(),
        other => other.to_token_stream(),
    };
    syn::Error::new_spanned(head, message)
}

/// Marks our attributes on an item and its methods as gathered (see [`take_ours`]).
fn mark_ours(item: &mut Item) {
    let mark_all = |attrs: &mut Vec<Attribute>| {
        for attr in attrs.iter_mut() {
            if Ours::of_attr(attr).is_some() {
                mark_gathered(attr);
            }
        }
    };
    match item {
        Item::Fn(func) => mark_all(&mut func.attrs),
        Item::Impl(imp) => {
            mark_all(&mut imp.attrs);
            for item in &mut imp.items {
                if let ImplItem::Fn(m) = item {
                    mark_all(&mut m.attrs);
                }
            }
        }
        _ => {}
    }
}

/// The argument a gathered attribute is left with.
const GATHERED: &str = "__autodebug_gathered";

/// Whether attribute arguments are the gathered marker.
fn is_marker_args(args: &TokenStream) -> bool {
    let mut iter = args.clone().into_iter();
    matches!((iter.next(), iter.next()), (Some(TokenTree::Ident(i)), None) if i == GATHERED)
}

/// Leaves a gathered attribute in place with the marker as its only argument. It then
/// expands to the item unchanged; removing it instead would leave the user's
/// `use autodebug_runtime::ensures;` unused, a new warning in their crate.
fn mark_gathered(attr: &mut Attribute) {
    let path = attr.path().clone();
    let marker = Ident::new(GATHERED, Span::call_site());
    attr.meta = syn::Meta::List(syn::MetaList {
        path,
        delimiter: syn::MacroDelimiter::Paren(Default::default()),
        tokens: quote!(#marker),
    });
}

/// Takes the arguments of our attributes on `attrs`, in order, and marks them gathered.
fn take_ours(attrs: &mut [Attribute]) -> syn::Result<Vec<RawAttr>> {
    let mut taken = Vec::new();
    let mut errors = Errors::default();
    for attr in attrs.iter_mut() {
        let Some(ours) = Ours::of_attr(attr) else {
            continue;
        };
        if matches!(&attr.meta, syn::Meta::List(list) if is_marker_args(&list.tokens)) {
            continue;
        }
        match RawAttr::from_attr(ours, attr) {
            Ok(raw) => taken.push(raw),
            Err(e) => errors.push(e),
        }
        mark_gathered(attr);
    }
    errors.finish()?;
    Ok(taken)
}

/// Errors gathered so that one expansion reports every malformed contract at once.
#[derive(Default)]
struct Errors(Option<syn::Error>);

impl Errors {
    fn push(&mut self, e: syn::Error) {
        match &mut self.0 {
            Some(all) => all.combine(e),
            None => self.0 = Some(e),
        }
    }

    fn finish(self) -> syn::Result<()> {
        self.0.map_or(Ok(()), Err)
    }
}

/// What a list of our attributes asks for.
#[derive(Default)]
struct Requests {
    contracts: Vec<Contract>,
    /// `#[autodebug]` was among them.
    autodebug: bool,
    /// `#[autodebug(always)]` was among them.
    always: bool,
    /// Positions (line, column) whose innermost site is left uninstrumented:
    /// `#[autodebug(skip = "12:17 30:5")]` (what `cargo autodebug` writes where the
    /// compiler rejected the instrumented code of one site).
    skip: Vec<(u32, u32)>,
}

/// When an ungated contract (`#[requires]`, `#[ensures]`, `#[invariant]`) is checked: in
/// every build when `cargo autodebug` builds the crate (`instrument_env`) or the runtime's
/// `release-checks` feature is on, else only with `debug_assertions`, as `debug_assert!`
/// is: a release build pays nothing for it.
fn checked(gate: Gate, instrument_env: bool) -> Gate {
    match gate {
        Gate::Always if !instrument_env && !cfg!(feature = "release-checks") => Gate::Debug,
        gate => gate,
    }
}

/// Parses the gathered attributes; `instrument_env` as for [`checked`].
fn parse_requests(raws: Vec<RawAttr>, instrument_env: bool) -> syn::Result<Requests> {
    let mut requests = Requests::default();
    let mut errors = Errors::default();
    for raw in raws {
        match raw.ours {
            Ours::Autodebug => match parse_autodebug_args(raw.args) {
                Ok((always, skip)) => {
                    requests.autodebug = true;
                    requests.always |= always;
                    requests.skip.extend(skip);
                }
                Err(e) => errors.push(e),
            },
            Ours::Contract(kind, gate) => match parse_contract(kind, gate, raw.args, raw.span) {
                Ok(mut c) => {
                    c.gate = checked(c.gate, instrument_env);
                    requests.contracts.push(c);
                }
                Err(e) => errors.push(e),
            },
        }
    }
    errors.finish()?;
    Ok(requests)
}

/// `#[autodebug]` takes nothing, `always`, `skip = "LINE:COLUMN …"`, or both.
fn parse_autodebug_args(args: TokenStream) -> syn::Result<(bool, Vec<(u32, u32)>)> {
    let wrong = |tokens: &dyn quote::ToTokens| {
        syn::Error::new_spanned(
            tokens,
            "`#[autodebug]` takes no argument, `always`, or `skip = \"LINE:COLUMN …\"`",
        )
    };
    let metas = syn::parse::Parser::parse2(
        syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated,
        args.clone(),
    )
    .map_err(|_| wrong(&args))?;
    let (mut always, mut skip) = (false, Vec::new());
    for meta in &metas {
        match meta {
            syn::Meta::Path(path) if path.is_ident("always") => always = true,
            syn::Meta::NameValue(nv) if nv.path.is_ident("skip") => {
                let syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(text),
                    ..
                }) = &nv.value
                else {
                    return Err(wrong(&nv.value));
                };
                for point in text.value().split_whitespace() {
                    let parsed = point
                        .split_once(':')
                        .and_then(|(l, c)| Some((l.parse().ok()?, c.parse().ok()?)));
                    skip.push(parsed.ok_or_else(|| wrong(text))?);
                }
            }
            other => return Err(wrong(&other)),
        }
    }
    Ok((always, skip))
}

/// A free function (or a method whose attribute expanded on its own).
fn expand_fn(func: &mut ItemFn, first: RawAttr, instrument_env: bool) -> syn::Result<()> {
    let mut raws = vec![first];
    raws.extend(take_ours(&mut func.attrs)?);
    let requests = parse_requests(raws, instrument_env)?;
    let name = func.sig.ident.unraw().to_string();
    if requests.contracts.iter().any(|c| c.kind == Kind::Invariant) && func.sig.receiver().is_none()
    {
        return Err(syn::Error::new(
            func.sig.ident.span(),
            format!(
                "`invariant` needs a method taking `self`, but `{name}` has no `self` parameter; \
                 put `#[invariant]` on the `impl` block to check it around every method"
            ),
        ));
    }
    let contracts: Vec<&Contract> = requests.contracts.iter().collect();
    let spec = FnSpec {
        display: name.clone(),
        site_fn: name,
        contracts: &contracts,
        instrument: requests.always || instrument_env,
        skip: &requests.skip,
    };
    wrap(&func.sig, &mut func.block, &spec)?;
    allow_instrumented(&mut func.attrs, &func.sig, &spec);
    Ok(())
}

/// An `impl` block: impl-level invariants apply to every method taking `self`, impl-level
/// `#[autodebug]` to every method, and method-level attributes combine with them.
fn expand_impl(imp: &mut ItemImpl, first: RawAttr, instrument_env: bool) -> syn::Result<()> {
    let mut raws = vec![first];
    raws.extend(take_ours(&mut imp.attrs)?);
    let mut errors = Errors::default();
    for raw in &raws {
        if let Ours::Contract(kind @ (Kind::Requires | Kind::Ensures), _) = raw.ours {
            errors.push(syn::Error::new(
                raw.span,
                format!(
                    "`{}` can only be attached to a function: put it on a method of this `impl`",
                    kind.name()
                ),
            ));
        }
    }
    errors.finish()?;
    let outer = parse_requests(raws, instrument_env)?;
    let type_name = type_name(&imp.self_ty);
    let mut errors = Errors::default();
    for item in &mut imp.items {
        let ImplItem::Fn(method) = item else { continue };
        let result = (|| -> syn::Result<()> {
            let own = parse_requests(take_ours(&mut method.attrs)?, instrument_env)?;
            let name = method.sig.ident.unraw().to_string();
            let has_self = method.sig.receiver().is_some();
            if own.contracts.iter().any(|c| c.kind == Kind::Invariant) && !has_self {
                return Err(syn::Error::new(
                    method.sig.ident.span(),
                    format!(
                        "`invariant` needs a method taking `self`, but `{name}` has no `self` parameter"
                    ),
                ));
            }
            if !own.contracts.is_empty()
                && let Some(constness) = &method.sig.constness
            {
                return Err(syn::Error::new(
                    constness.span,
                    "contracts are not supported on const fn",
                ));
            }
            // Impl-level invariants: every method taking `self`, except const fns (which can
            // neither call the checks' hooks nor, usually, break an invariant).
            let applies = has_self && method.sig.constness.is_none();
            let mut contracts: Vec<&Contract> = Vec::new();
            if applies {
                contracts.extend(outer.contracts.iter());
            }
            contracts.extend(own.contracts.iter());
            let wanted = outer.autodebug || own.autodebug || !contracts.is_empty();
            let instrument = method.sig.constness.is_none()
                && (outer.always || own.always || (instrument_env && wanted));
            if contracts.is_empty() && !instrument {
                return Ok(());
            }
            let skip: Vec<(u32, u32)> = outer.skip.iter().chain(&own.skip).copied().collect();
            let spec = FnSpec {
                display: name.clone(),
                site_fn: format!("{type_name}::{name}"),
                contracts: &contracts,
                instrument,
                skip: &skip,
            };
            wrap(&method.sig, &mut method.block, &spec)?;
            allow_instrumented(&mut method.attrs, &method.sig, &spec);
            Ok(())
        })();
        if let Err(e) = result {
            errors.push(e);
        }
    }
    errors.finish()
}

/// The name of the type of an `impl` as shown in site function names: the last path segment
/// without generic arguments (`Stack` for `Stack<T>`).
fn type_name(ty: &Type) -> String {
    match ty {
        Type::Path(p) if p.qself.is_none() => match p.path.segments.last() {
            Some(seg) => seg.ident.unraw().to_string(),
            None => String::new(),
        },
        Type::Reference(r) => type_name(&r.elem),
        other => other.to_token_stream().to_string().replace(' ', ""),
    }
}

fn empty_block() -> Block {
    Block {
        brace_token: Default::default(),
        stmts: Vec::new(),
    }
}

/// What to generate for one function.
struct FnSpec<'a> {
    /// The name in panic messages (`push`).
    display: String,
    /// The name in sites (`Stack::push`).
    site_fn: String,
    /// Every contract that applies, in order.
    contracts: &'a [&'a Contract],
    /// Whether to instrument the body and report contract checks to the runtime.
    instrument: bool,
    /// Positions whose innermost site is left uninstrumented.
    skip: &'a [(u32, u32)],
}

/// A value captured on entry for `old(expr)`.
struct Old {
    ident: Ident,
    expr: TokenStream,
    gate: Gate,
}

/// An instrumented function may pass a `!`-typed value (`std::process::exit(1)`) through a
/// hook, which rustc reports as unreachable code: allow it, in instrumented builds only.
fn allow_instrumented(attrs: &mut Vec<Attribute>, sig: &Signature, spec: &FnSpec) {
    if spec.instrument && sig.constness.is_none() {
        attrs.push(syn::parse_quote!(#[allow(unreachable_code, unused_mut)]));
    }
}

/// Builds the new body of a function from its original body.
fn wrap(sig: &Signature, body: &mut Block, spec: &FnSpec) -> syn::Result<()> {
    if let (Some(constness), false) = (&sig.constness, spec.contracts.is_empty()) {
        return Err(syn::Error::new(
            constness.span,
            "contracts are not supported on const fn",
        ));
    }
    let mut block = std::mem::replace(body, empty_block());
    // Runs before the preconditions: a plan's replaced arguments are what they check.
    let mut entry = TokenStream::new();
    // A const fn cannot call the runtime's hooks: `#[autodebug]` leaves it alone.
    if spec.instrument && sig.constness.is_none() {
        entry = instrument::instrument_body(sig, &mut block, &spec.site_fn, spec.skip);
        // The instrumentation may hold user code in verbatim nodes; reparse so that the
        // `return`s and `?`s inside are seen by `run_body`.
        if !spec.contracts.is_empty() {
            block = syn::parse2(block.into_token_stream())?;
        }
    }
    if spec.contracts.is_empty() {
        let first: Block = syn::parse2(quote!({ #entry }))?;
        block.stmts.splice(0..0, first.stmts);
        *body = block;
        return Ok(());
    }
    // After the body, `self` can be looked at again only if the body borrowed it, and if the
    // return value does not hold on to that borrow (`fn get_mut(&mut self) -> &mut T`).
    let self_survives = match sig.receiver() {
        None => false,
        Some(r) => match &r.kind {
            ReceiverKind::Reference(_, _, None) => true,
            ReceiverKind::Reference(_, _, Some(_)) => !returns_borrow(&sig.output),
            ReceiverKind::Typed(_, ty) => match &**ty {
                Type::Reference(r) if r.mutability.is_none() => true,
                Type::Reference(_) => !returns_borrow(&sig.output),
                _ => false,
            },
            _ => false,
        },
    };
    let mut pre = Vec::new();
    let mut post = Vec::new();
    let mut olds = Vec::new();
    for contract in spec.contracts {
        for cond in &contract.conds {
            match contract.kind {
                Kind::Requires => pre.push(check(contract, cond, spec, &mut olds)),
                Kind::Ensures => post.push(check(contract, cond, spec, &mut olds)),
                Kind::Invariant => {
                    pre.push(check(contract, cond, spec, &mut olds));
                    if self_survives {
                        post.push(check(contract, cond, spec, &mut olds));
                    }
                }
            }
        }
    }
    let allow = allow_generated();
    let new = if post.is_empty() {
        quote!({ #entry #(#pre)* #block })
    } else {
        let old_lets = olds.iter().map(|old| {
            let Old { ident, expr, gate } = old;
            let cfg = gate.cfg().map(|cfg| quote!(#[cfg(#cfg)]));
            quote!(#cfg #allow let #ident = (#expr);)
        });
        let ret = Ident::new("ret", Span::call_site());
        let ty = match &sig.output {
            ReturnType::Default => Some(quote!(())),
            ReturnType::Type(_, ty) if nameable(ty) => Some(ty.to_token_stream()),
            ReturnType::Type(..) => None,
        };
        let annotation = ty.as_ref().map(|ty| quote!(: #ty));
        let run = run_body(block, sig.asyncness.is_some(), ty.as_ref());
        quote!({
            #entry
            #(#pre)*
            #(#old_lets)*
            #[allow(unused_variables, unused_labels, clippy::all, clippy::pedantic, clippy::nursery)]
            let #ret #annotation = #run;
            #(#post)*
            #ret
        })
    };
    *body = syn::parse2(new)?;
    Ok(())
}

/// Whether a return type may borrow from the arguments: it holds a reference or a lifetime.
/// (A type with a hidden elided lifetime, `IterMut<T>`, is not seen.)
fn returns_borrow(output: &ReturnType) -> bool {
    struct FindBorrow(bool);
    impl Visit<'_> for FindBorrow {
        fn visit_type_reference(&mut self, _: &syn::TypeReference) {
            self.0 = true;
        }
        fn visit_lifetime(&mut self, _: &syn::Lifetime) {
            self.0 = true;
        }
    }
    let mut find = FindBorrow(false);
    find.visit_return_type(output);
    find.0
}

/// Whether a return type can be written in a `let` (not `impl Trait`, not `!`).
fn nameable(ty: &Type) -> bool {
    struct FindOpaque(bool);
    impl Visit<'_> for FindOpaque {
        fn visit_type_impl_trait(&mut self, _: &syn::TypeImplTrait) {
            self.0 = true;
        }
        fn visit_type_never(&mut self, _: &syn::TypeNever) {
            self.0 = true;
        }
    }
    let mut find = FindOpaque(false);
    find.visit_type(ty);
    !find.0
}

/// The expression that runs the original body and yields its value, with `return` and `?`
/// still leaving the body with the function's return value. When the body's early exits are
/// all visible `return`s, it runs in a labeled block (`return e` becomes `break 'label e`):
/// no closure, so `&mut self` borrows, `.await` and `unsafe` behave exactly as before. A `?`
/// or a macro that might hide a `return` (`bail!`) needs a closure (an `async` block in an
/// `async fn`), whose return type is the function's.
fn run_body(mut block: Block, is_async: bool, ty: Option<&TokenStream>) -> TokenStream {
    let mut scan = ScanExits::default();
    scan.visit_block(&block);
    if !scan.needs_closure {
        let label = syn::Lifetime::new(BODY_LABEL, Span::call_site());
        ReturnsToBreaks {
            label: label.clone(),
        }
        .visit_block_mut(&mut block);
        return quote!(#label: #block);
    }
    if is_async {
        return quote!(async #block.await);
    }
    match ty {
        Some(ty) => quote!((|| -> #ty #block)()),
        None => quote!((|| #block)()),
    }
}

/// Macros of `std` that never leave the enclosing function (unless their arguments do).
const TRANSPARENT_MACROS: &[&str] = &[
    "assert",
    "assert_eq",
    "assert_ne",
    "debug_assert",
    "debug_assert_eq",
    "debug_assert_ne",
    "print",
    "println",
    "eprint",
    "eprintln",
    "format",
    "format_args",
    "write",
    "writeln",
    "vec",
    "panic",
    "unreachable",
    "todo",
    "unimplemented",
    "matches",
    "dbg",
    "concat",
    "stringify",
    "line",
    "column",
    "file",
    "module_path",
    "cfg",
    "env",
    "option_env",
    "include_str",
    "include_bytes",
];

/// Looks for early exits a labeled block cannot keep: `?`, and macros that may contain a
/// `return`. Closures, `async` blocks and nested items have their own exits and are skipped.
#[derive(Default)]
struct ScanExits {
    needs_closure: bool,
}

impl Visit<'_> for ScanExits {
    fn visit_expr_try(&mut self, node: &syn::ExprTry) {
        self.needs_closure = true;
        syn::visit::visit_expr_try(self, node);
    }
    fn visit_expr_closure(&mut self, _: &syn::ExprClosure) {}
    fn visit_expr_async(&mut self, _: &syn::ExprAsync) {}
    fn visit_item(&mut self, _: &Item) {}
    fn visit_macro(&mut self, mac: &syn::Macro) {
        let name = mac
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        if !TRANSPARENT_MACROS.contains(&name.as_str()) || has_exit_tokens(&mac.tokens) {
            self.needs_closure = true;
        }
    }
}

/// Whether tokens (of a macro call) contain `?` or `return`.
fn has_exit_tokens(tokens: &TokenStream) -> bool {
    tokens.clone().into_iter().any(|tt| match tt {
        TokenTree::Punct(p) => p.as_char() == '?',
        TokenTree::Ident(i) => i == "return",
        TokenTree::Group(g) => has_exit_tokens(&g.stream()),
        TokenTree::Literal(_) => false,
    })
}

/// Rewrites `return e` into `break 'label e` outside closures, `async` blocks and items.
struct ReturnsToBreaks {
    label: syn::Lifetime,
}

impl VisitMut for ReturnsToBreaks {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        if let Expr::Return(ret) = expr {
            let brk = syn::ExprBreak {
                attrs: std::mem::take(&mut ret.attrs),
                break_token: syn::token::Break(ret.return_token.span),
                label: Some(self.label.clone()),
                expr: ret.expr.take(),
            };
            *expr = Expr::Break(brk);
        }
        syn::visit_mut::visit_expr_mut(self, expr);
    }
    fn visit_expr_closure_mut(&mut self, _: &mut syn::ExprClosure) {}
    fn visit_expr_async_mut(&mut self, _: &mut syn::ExprAsync) {}
    fn visit_item_mut(&mut self, _: &mut Item) {}
}

/// The statement checking one condition of a contract.
fn check(contract: &Contract, cond: &Cond, spec: &FnSpec, olds: &mut Vec<Old>) -> TokenStream {
    let mut expr = cond_expr(&cond.tree, &contract.nested);
    let before = olds.len();
    if contract.kind == Kind::Ensures {
        expr = substitute_old(expr, olds, contract.gate);
    }
    let uses_old = olds.len() > before;
    let ok = if spec.instrument {
        let site = site::site_ref(&cond.tokens, contract.kind.site_kind(), &spec.site_fn);
        quote!(::autodebug_runtime::__rt::contract(#site, #expr))
    } else {
        expr
    };
    let text = site::source_text(&cond.tokens);
    let prefix = contract.kind.violation_prefix();
    let message = match &contract.message {
        Some(m) => format!("{prefix} of {} violated: {m}: {text}", spec.display),
        None => format!("{prefix} of {} violated: {text}", spec.display),
    };
    let span = cond
        .tokens
        .clone()
        .into_iter()
        .next()
        .map_or_else(Span::call_site, |t| t.span());
    let test =
        quote_spanned!(span=> if !#ok { ::autodebug_runtime::__rt::panic!("{}", #message); });
    let allow = allow_generated();
    match (contract.gate.cfg(), uses_old) {
        (None, _) => quote!(#allow { #test }),
        // The old values of a gated contract exist only under its cfg, and so does its check.
        (Some(cfg), true) => quote!(#[cfg(#cfg)] #allow { #test }),
        // Otherwise the check is type-checked in every build (no "unused" warnings for
        // variables only a gated contract reads) and optimized away where it is off.
        (Some(cfg), false) => quote!(#allow { if ::autodebug_runtime::__rt::cfg!(#cfg) { #test } }),
    }
}

/// Replaces every `old(expr)` in `tokens` by a variable holding `expr` as evaluated on entry.
/// Works on tokens so that `old` inside macro calls and quantifier bodies is found too.
fn substitute_old(tokens: TokenStream, olds: &mut Vec<Old>, gate: Gate) -> TokenStream {
    let mut out = Vec::new();
    let mut iter = tokens.into_iter().peekable();
    let mut before: [Option<TokenTree>; 2] = [None, None];
    while let Some(tt) = iter.next() {
        let next_is_call = matches!(iter.peek(), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis);
        let new = match &tt {
            TokenTree::Ident(ident)
                if ident == "old" && next_is_call && !follows_path_or_dot(&before) =>
            {
                let Some(TokenTree::Group(args)) = iter.next() else {
                    unreachable!("peeked a group")
                };
                let var = Ident::new(&format!("__autodebug_old_{}", olds.len()), ident.span());
                olds.push(Old {
                    ident: Ident::new(&var.to_string(), Span::call_site()),
                    expr: args.stream(),
                    gate,
                });
                TokenTree::Ident(var)
            }
            TokenTree::Group(group) => {
                let mut new = Group::new(
                    group.delimiter(),
                    substitute_old(group.stream(), olds, gate),
                );
                new.set_span(group.span());
                TokenTree::Group(new)
            }
            other => other.clone(),
        };
        out.push(new);
        before = [before[1].take(), Some(tt)];
    }
    out.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tokens parsed from text carry real positions (proc-macro2's `span-locations`), so
    /// condition texts come out spaced as written, as they do under the compiler.
    fn ts(text: &str) -> TokenStream {
        text.parse().unwrap()
    }

    fn expand_str(ours: &str, args: &str, item: &str, env: bool) -> String {
        expand(Ours::from_name(ours).unwrap(), ts(args), ts(item), env).to_string()
    }

    #[test]
    fn no_hooks_when_instrumentation_is_off() {
        let item = "#[ensures(ret > x, \"grows\")]\nfn inc(x: i32) -> i32 { if x > 10 { return x + 2; } x + 1 }";
        let out = expand_str("requires", "x > 0", item, false);
        // The checks name the runtime's re-exports of `core` only, no hook.
        assert!(!out.contains("SiteKind"), "{out}");
        assert!(!out.contains("__rt :: contract"), "{out}");
        assert!(
            out.contains("\"Pre-condition of inc violated: x > 0\""),
            "{out}"
        );
        assert!(
            out.contains("\"Post-condition of inc violated: grows: ret > x\""),
            "{out}"
        );
        // One wrapper: the gathered `ensures` is left as an inert marker.
        assert!(out.contains("# [ensures (__autodebug_gathered)]"), "{out}");
        assert_eq!(out.matches("Post-condition").count(), 1, "{out}");
        let again = expand(
            Ours::Contract(Kind::Ensures, Gate::Always),
            ts("__autodebug_gathered"),
            ts(&out),
            false,
        );
        assert_eq!(again.to_string(), out);
        // The early return leaves the labeled block, not the function.
        assert!(out.contains("break '__autodebug_body x + 2"), "{out}");
        assert!(!out.contains("return"), "{out}");
    }

    #[test]
    fn contract_hooks_with_autodebug_always() {
        let out = expand_str(
            "ensures",
            "ret > x",
            "#[autodebug(always)] fn inc(x: i32) -> i32 { x + 1 }",
            false,
        );
        assert!(
            out.contains(":: autodebug_runtime :: __rt :: contract"),
            "{out}"
        );
        assert!(out.contains("SiteKind :: Ensures"), "{out}");
        assert!(out.contains("\"ret > x\""), "{out}");
        // And with the build's switch instead of `always`.
        let out = expand_str("requires", "x > 0", "fn f(x: i32) {}", true);
        assert!(out.contains("SiteKind :: Requires"), "{out}");
        let out = expand_str("requires", "x > 0", "fn f(x: i32) {}", false);
        assert!(!out.contains("SiteKind"), "{out}");
        // `#[autodebug]` (without `always`) follows the build's switch.
        let out = expand_str("requires", "x > 0", "#[autodebug] fn f(x: i32) {}", false);
        assert!(!out.contains("SiteKind"), "{out}");
    }

    #[test]
    fn impl_invariant_checks_before_and_after_when_self_survives() {
        let item = "impl S {
            fn get(&self) -> u32 { self.n }
            fn take(self) -> u32 { self.n }
            fn new() -> S { S { n: 1 } }
            #[requires(k > 0)]
            fn add(&mut self, k: u32) { self.n += k; }
            fn get_mut(&mut self) -> &mut u32 { &mut self.n }
        }";
        let out = expand_str("invariant", "self.n > 0", item, false);
        let file: syn::File = syn::parse_str(&out).unwrap();
        let Item::Impl(imp) = &file.items[0] else {
            panic!("not an impl: {out}")
        };
        let count = |i: usize| {
            let ImplItem::Fn(m) = &imp.items[i] else {
                panic!("not a method")
            };
            m.block
                .to_token_stream()
                .to_string()
                .matches("Invariant of")
                .count()
        };
        assert_eq!(
            [count(0), count(1), count(2), count(3)],
            [2, 1, 0, 2],
            "{out}"
        );
        assert!(
            out.contains("\"Invariant of get violated: self.n > 0\""),
            "{out}"
        );
        assert!(
            out.contains("\"Pre-condition of add violated: k > 0\""),
            "{out}"
        );
        // Site names carry the type.
        let out = expand_str("invariant", "self.n > 0", item, true);
        assert!(out.contains("\"S::add\""), "{out}");
    }

    #[test]
    fn question_mark_runs_the_body_in_a_closure() {
        let out = expand_str(
            "ensures",
            "ret.is_some()",
            "fn f(x: Option<i32>) -> Option<i32> { let y = x?; Some(y) }",
            false,
        );
        assert!(out.contains("(| | -> Option < i32 > {"), "{out}");
        let out = expand_str(
            "ensures",
            "ret.is_some()",
            "async fn f(x: Option<i32>) -> Option<i32> { let y = x?; Some(y) }",
            false,
        );
        assert!(out.contains("async { let y"), "{out}");
        // Also when the instrumentation has rewritten the body.
        let item = "async fn f(x: Option<i32>) -> Option<i32> { let y = x?; Some(y) }";
        let out = expand_str("ensures", "ret.is_some()", item, true);
        assert!(out.contains("= async {"), "{out}");
        let item = "fn f(x: i32) -> i32 { if x > 0 { return x; } 1 }";
        let out = expand_str("ensures", "ret > 0", item, true);
        assert!(out.contains("break '__autodebug_body"), "{out}");
        assert!(!out.contains("return"), "{out}");
        // A macro that may hide a `return`, and an unnameable return type.
        let out = expand_str(
            "ensures",
            "true",
            "fn f() -> impl Fn() { bail!(); || () }",
            false,
        );
        assert!(out.contains("let ret = (| | {"), "{out}");
        // A `?` inside a closure of the body is the closure's own.
        let out = expand_str(
            "ensures",
            "true",
            "fn f() -> i32 { let g = || Some(1)?; 1 }",
            false,
        );
        assert!(out.contains("'__autodebug_body : {"), "{out}");
    }

    #[test]
    fn old_values_are_captured_on_entry() {
        let out = expand_str(
            "ensures",
            "v.len() == old(v.len()) + 1, forall i in 0..old(v.len()) => v[i] == old(v.clone())[i]",
            "fn push(v: &mut Vec<i32>) { v.push(0); }",
            false,
        );
        assert!(
            out.contains("let __autodebug_old_0 = (v . len ())"),
            "{out}"
        );
        assert!(
            out.contains("let __autodebug_old_1 = (v . len ())"),
            "{out}"
        );
        assert!(
            out.contains("let __autodebug_old_2 = (v . clone ())"),
            "{out}"
        );
        assert!(out.contains("(0 .. __autodebug_old_1)"), "{out}");
        assert!(!out.contains("old ("), "{out}");
        let entry = out.find("__autodebug_old_0 =").unwrap();
        let body = out.find("v . push (0)").unwrap();
        assert!(entry < body, "{out}");
        // The message keeps the user's text.
        assert!(
            out.contains("violated: forall i in 0..old(v.len()) => v[i] == old(v.clone())[i]"),
            "{out}"
        );
    }

    #[test]
    fn ungated_contracts_are_checked_in_release_only_when_asked() {
        let item = "fn f(x: i32) -> i32 { x + 1 }";
        let gated = "if :: autodebug_runtime :: __rt :: cfg ! (debug_assertions)";
        // A plain build checks them with debug assertions only (unless the runtime's
        // `release-checks` feature is on); a build of `cargo autodebug`'s, always.
        let plain = expand_str("requires", "x > 0", item, false);
        assert_eq!(
            plain.contains(gated),
            !cfg!(feature = "release-checks"),
            "{plain}"
        );
        let ensures = expand_str("ensures", "ret > old(x)", item, false);
        assert_eq!(
            ensures.contains("# [cfg (debug_assertions)]"),
            !cfg!(feature = "release-checks"),
            "{ensures}"
        );
        let instrumented = expand_str("requires", "x > 0", item, true);
        assert!(!instrumented.contains("debug_assertions"), "{instrumented}");
    }

    #[test]
    fn gated_contracts() {
        let out = expand_str("debug_requires", "x > 0", "fn f(x: i32) {}", false);
        assert!(
            out.contains("if :: autodebug_runtime :: __rt :: cfg ! (debug_assertions)"),
            "{out}"
        );
        let out = expand_str(
            "test_ensures",
            "ret > old(x)",
            "fn f(x: i32) -> i32 { x + 1 }",
            false,
        );
        assert_eq!(out.matches("# [cfg (test)]").count(), 2, "{out}");
    }

    #[test]
    fn errors_keep_the_item_without_our_attributes() {
        let out = expand_str(
            "requires",
            "",
            "#[ensures(ret)] fn f() -> bool { true }",
            false,
        );
        assert!(out.contains("compile_error"), "{out}");
        assert!(out.contains("fn f"), "{out}");
        assert!(out.contains("# [ensures (__autodebug_gathered)]"), "{out}");
        let out = expand_str("requires", "x > 0", "const fn f(x: u8) -> u8 { x }", false);
        assert!(
            out.contains("contracts are not supported on const fn"),
            "{out}"
        );
        let out = expand_str("invariant", "true", "fn f(x: u8) {}", false);
        assert!(out.contains("no `self` parameter"), "{out}");
        let out = expand_str("requires", "true", "struct S;", false);
        assert!(out.contains("can only be attached to a function"), "{out}");
        let out = expand_str("autodebug", "sometimes", "fn f() {}", false);
        assert!(
            out.contains("takes no argument, `always`, or `skip"),
            "{out}"
        );
        let out = expand_str("autodebug", "skip = \"3\"", "fn f() {}", false);
        assert!(out.contains("LINE:COLUMN"), "{out}");
        let out = expand_str("requires", "true", "impl S { fn f(&self) {} }", false);
        assert!(out.contains("put it on a method"), "{out}");
    }
}
