//! The instrumentation of a function body: branch conditions, components, returns, loop
//! iterations and the call entry become calls of the runtime's hooks
//! (`::autodebug_runtime::__rt::{enter, branch, component, iter, val}`).
//!
//! The rewrite must keep every function compiling exactly as before, so it is deliberately
//! conservative: async blocks and closures, const blocks, nested items and macro calls are
//! left untouched; a closure's body is instrumented with hooks that capture nothing the
//! closure did not; `let` expressions are never wrapped; and the scope values a component or a
//! branch reports are limited to variables that are certainly `Copy` and never mutably
//! borrowed (see [`scope`] and [`borrows`]). A branch's scope is what a plan's replacement
//! of its condition computes with.

mod borrows;
mod scope;

use std::cell::RefCell;

use crate::site::{range_of, site_ref};
use autodebug_syntax::{
    chain_leaves_mut, contains_let, diverges, for_range_mut, is_chain, is_compound,
    is_effect_argument, is_field_value, is_returned_value, reports_arm, reports_assign,
    reports_call, reports_closure_value, reports_iterable, reports_let, reports_scrutinee,
    returns_value, simple_binding, strip,
};
use proc_macro2::TokenStream;
use quote::{ToTokens, quote, quote_spanned};
use scope::{Kind, Scopes, type_kind};
use syn::visit_mut::{self, VisitMut};
use syn::{BinOp, Block, Expr, FnArg, Pat, Stmt, Type};

/// Rewrites `block` (the body of a function with signature `sig`) so that it reports its
/// sites to the runtime. `function` is the name shown for the function (`max`, `Stack::push`).
/// `const fn` bodies are left unchanged (they cannot call the hooks).
///
/// Returns the statements that must run first, before the preconditions are checked: the
/// function's entry site `__autodebug_fn` (the entry hook in `block` names it) and each
/// parameter bound to a plain name passed through the argument hook, so that a plan can
/// replace it (`let x = argument(&args, "x", x);`).
///
/// `skip` are positions (line, column) whose innermost site is left as written: where the
/// compiler rejected that site's instrumented code, the rest of the function stays
/// instrumented.
pub(crate) fn instrument_body(
    sig: &syn::Signature,
    block: &mut syn::Block,
    function: &str,
    skip: &[(u32, u32)],
) -> TokenStream {
    if sig.constness.is_some() {
        return TokenStream::new();
    }
    let mut walker = Instrumenter {
        function: function.to_string(),
        scopes: Scopes::new(borrows::excluded_names(block)),
        returns: returns_value(&sig.output),
        skip: RefCell::new(skip.iter().map(|&p| (p, false)).collect()),
    };
    let entry = walker.declare_params(sig);
    walker.scopes.push();
    walker.visit_block_stmts(block, walker.returns);
    walker.scopes.pop();
    if let Some(stmt) = parse_stmt(entry) {
        block.stmts.insert(0, stmt);
    }
    walker.arguments(sig)
}

/// The walk. It keeps the lexical scopes of the body so that every component knows which
/// variables it may report.
struct Instrumenter {
    function: String,
    scopes: Scopes,
    /// Whether return values are component sites (see [`returns_value`]).
    returns: bool,
    /// Positions whose innermost site is left as written, each with whether a site took it.
    skip: RefCell<Vec<((u32, u32), bool)>>,
}

impl Instrumenter {
    /// Whether the site covering `original` is left as written: it holds a skipped position
    /// that no site inside it took (sites are wrapped inside out, so the innermost takes it).
    fn skipped(&self, original: &TokenStream) -> bool {
        let mut skip = self.skip.borrow_mut();
        if skip.is_empty() {
            return false;
        }
        let Some((start, end)) = range_of(original) else {
            return false;
        };
        let (start, end) = ((start.line, start.column), (end.line, end.column));
        let mut hit = false;
        for (point, taken) in skip.iter_mut() {
            if !*taken && start <= *point && *point < end {
                *taken = true;
                hit = true;
            }
        }
        hit
    }

    fn site(&self, tokens: &TokenStream, kind: &str) -> TokenStream {
        site_ref(tokens, kind, &self.function)
    }

    /// Declares the parameters in the outermost scope and returns the entry statement
    /// `let __autodebug_call = enter(SITE, &[Binding { name: "a", value: &a }, …]);`.
    fn declare_params(&mut self, sig: &syn::Signature) -> TokenStream {
        let mut args = Vec::new();
        for input in &sig.inputs {
            match input {
                FnArg::Receiver(receiver) => {
                    let token = receiver.self_token;
                    args.push(
                        quote!(::autodebug_runtime::__rt::Binding { name: "self", value: &#token }),
                    );
                    let by_ref = matches!(receiver.kind, syn::ReceiverKind::Reference(..));
                    let shared = matches!(receiver.kind, syn::ReceiverKind::Reference(_, _, None));
                    self.scopes.self_by_reference = by_ref;
                    let kind = shared.then_some(Kind::Copy);
                    self.scopes
                        .declare("self".to_string(), token.to_token_stream(), kind);
                }
                FnArg::Typed(typed) => match simple_binding(&typed.pat) {
                    Some((ident, _)) => {
                        let name = ident.to_string();
                        let shown = name.trim_start_matches("r#");
                        args.push(quote!(::autodebug_runtime::__rt::Binding { name: #shown, value: &#ident }));
                        self.scopes
                            .declare(name, ident.to_token_stream(), type_kind(&typed.ty));
                    }
                    None => self.scopes.declare_pattern(&typed.pat),
                },
            }
        }
        quote! {
            let __autodebug_call = ::autodebug_runtime::__rt::enter(__autodebug_fn, &[#(#args),*]);
        }
    }

    /// The entry site and the argument hooks (see [`instrument_body`]).
    fn arguments(&self, sig: &syn::Signature) -> TokenStream {
        let site = self.site(&sig.ident.to_token_stream(), "Fn");
        let mut names = Vec::new();
        let mut lets = Vec::new();
        for input in &sig.inputs {
            let FnArg::Typed(typed) = input else { continue };
            let Pat::Ident(p) = strip_pat(&typed.pat) else {
                continue;
            };
            if p.by_ref.is_some() || p.subpat.is_some() {
                continue;
            }
            let ident = &p.ident;
            let name = ident.to_string();
            let shown = name.trim_start_matches("r#").to_string();
            let mutability = &p.mutability;
            lets.push(quote! {
                #[allow(unused_variables, unused_mut)]
                let #mutability #ident = ::autodebug_runtime::__rt::argument(&__autodebug_args, #shown, #ident);
            });
            names.push(shown);
        }
        quote! {
            let __autodebug_fn: &'static ::autodebug_runtime::__rt::Site = #site;
            let __autodebug_args = ::autodebug_runtime::__rt::arguments(__autodebug_fn, &[#(#names),*]);
            #(#lets)*
        }
    }

    /// `&[Binding { name: "x", value: &x }, …]` over the capturable variables in scope: a
    /// struct written in place, so that an idle hook calls nothing to make its scope.
    fn scope_closure(&self) -> TokenStream {
        let entries =
            self.scopes.captures().into_iter().map(
                |(name, tokens)| quote!(::autodebug_runtime::__rt::Binding { name: #name, value: &#tokens }),
            );
        quote!(&[#(#entries),*])
    }

    /// Replaces `expr` by `component(SITE, expr, &[bindings in scope])`, the site covering `original`.
    /// `expr` must already be instrumented inside.
    fn wrap_component(&self, expr: &mut Expr, original: &TokenStream, kind: &str) {
        if diverges(expr) || self.skipped(original) {
            // `component(SITE, panic!(), …)` would warn about unreachable code.
            return;
        }
        let site = self.site(original, kind);
        let scope = self.scope_closure();
        *expr = if kind == "Compound" {
            // `x += <wrapper>`: rustc places an overflow of the operation at the span of
            // the whole `x += …`, from `x` to the wrapper's last token. With the macro's
            // own span there, the span falls back to the attribute and the panic names the
            // item's first line, not the statement; with the operand's last token's span,
            // it names `x += …` as written. The path starts without `::`: under a user's
            // span in an edition-2015 crate, `::autodebug_runtime` would be a path from the
            // crate root, while the extern prelude names the runtime in every edition.
            let span = (original.clone().into_iter().last())
                .map_or_else(proc_macro2::Span::call_site, |t| t.span());
            Expr::Verbatim(quote_spanned! {span=>
                autodebug_runtime::__rt::component(#site, #expr, #scope)
            })
        } else {
            Expr::Verbatim(quote! {
                ::autodebug_runtime::__rt::component(#site, #expr, #scope)
            })
        };
    }

    /// Instruments `expr` inside, then, with a `kind`, wraps it as a site of that kind
    /// covering its code as written ([`Instrumenter::wrap_component`]).
    fn visit_wrapped(&mut self, expr: &mut Expr, kind: Option<&str>) {
        let original = expr.to_token_stream();
        self.visit_expr_mut(expr);
        if let Some(kind) = kind {
            self.wrap_component(expr, &original, kind);
        }
    }

    /// A call made for its effect (`v.push(x + 1);`, `f(a, b);`): its arguments are sites
    /// as every call's are ([`Instrumenter::visit_call`]); a call with no computed argument
    /// (`v.sort();`, `v.push(x);`) is a `Call` site itself, so that the statement is
    /// covered and ranked.
    fn visit_effect(&mut self, expr: &mut Expr) {
        let whole = reports_call(expr);
        self.visit_wrapped(expr, whole.then_some("Call"));
    }

    /// A call, wherever it stands (`f(x + 1)?`, `Some(a - 1)`, `out.push((c, n + 1))`):
    /// each argument that is computed (not a place, not a closure) is an `Arg` site, so
    /// that what the call was given is recorded, covered and repairable like a `let`'s
    /// value.
    fn visit_call(&mut self, expr: &mut Expr) {
        let args = match expr {
            Expr::MethodCall(call) => {
                self.visit_expr_mut(&mut call.receiver);
                &mut call.args
            }
            Expr::Call(call) => {
                self.visit_expr_mut(&mut call.func);
                &mut call.args
            }
            _ => return,
        };
        for arg in args.iter_mut() {
            let original = arg.to_token_stream();
            self.visit_expr_mut(arg);
            if is_effect_argument(arg) {
                self.wrap_component(arg, &original, "Arg");
            }
        }
    }

    /// Visits the statements of `block` in a scope of their own. With `tail`, the block's
    /// value is the function's return value and its tail expression is a `Return` site.
    fn visit_block_tail(&mut self, block: &mut Block, tail: bool) {
        self.scopes.push();
        self.visit_block_stmts(block, tail);
        self.scopes.pop();
    }

    fn visit_block_stmts(&mut self, block: &mut Block, tail: bool) {
        let count = block.stmts.len();
        let mut before = Vec::new();
        for (i, stmt) in block.stmts.iter_mut().enumerate() {
            match stmt {
                Stmt::Expr(expr, None) if tail && i + 1 == count => self.visit_tail(expr),
                Stmt::Macro(m) => before.extend(self.macro_hook(m).map(|hook| (i, hook))),
                other => self.visit_stmt_mut(other),
            }
        }
        for (i, hook) in before.into_iter().rev() {
            block.stmts.insert(i, hook);
        }
    }

    /// The `Call` hook put before a macro statement (`try!(w.flush());`,
    /// `buf_get_impl!(self, u64);`), whose expansion is left as written: the statement is
    /// covered and ranked, and a fix may delete it or put a call beside it. The hook takes
    /// the statement's `cfg`s: it runs where the macro is compiled.
    fn macro_hook(&self, statement: &syn::StmtMacro) -> Option<Stmt> {
        let original = statement.mac.to_token_stream();
        if self.skipped(&original) {
            return None;
        }
        let site = self.site(&original, "Call");
        let scope = self.scope_closure();
        let cfgs = (statement.attrs.iter()).filter(|a| a.path().is_ident("cfg"));
        parse_stmt(quote!(#(#cfgs)* ::autodebug_runtime::__rt::component(#site, (), #scope);))
    }

    /// An expression whose value is returned from the function: descend through `if`,
    /// `match` and blocks to the expressions that produce the value, and wrap those.
    fn visit_tail(&mut self, expr: &mut Expr) {
        match expr {
            Expr::If(e) => self.visit_if(e, true),
            Expr::Match(e) => self.visit_match(e, true),
            Expr::Block(b) if b.label.is_none() => self.visit_block_tail(&mut b.block, true),
            Expr::Unsafe(u) => self.visit_block_tail(&mut u.block, true),
            Expr::Group(g) => self.visit_tail(&mut g.expr),
            _ if is_returned_value(expr) => {
                self.visit_wrapped(expr, Some("Return"));
            }
            _ => self.visit_expr_mut(expr),
        }
    }

    fn visit_if(&mut self, e: &mut syn::ExprIf, tail: bool) {
        // Bindings of `if let` are visible in the condition's later operands and in the
        // `then` block only.
        self.scopes.push();
        self.visit_condition(&mut e.cond, "If");
        if tail {
            self.visit_block_tail(&mut e.then_branch, true);
        } else {
            self.visit_block_mut(&mut e.then_branch);
        }
        self.scopes.pop();
        if let Some((_, else_branch)) = &mut e.else_branch {
            match &mut **else_branch {
                Expr::If(nested) => self.visit_if(nested, tail),
                Expr::Block(b) if tail => self.visit_block_tail(&mut b.block, true),
                other => self.visit_expr_mut(other),
            }
        }
    }

    fn visit_match(&mut self, e: &mut syn::ExprMatch, tail: bool) {
        self.visit_scrutinee(&mut e.expr);
        for arm in &mut e.arms {
            self.scopes.push();
            self.scopes.declare_pattern(&arm.pat);
            if let Pat::Guard(guard) = &mut arm.pat {
                self.visit_condition(&mut guard.guard, "Guard");
            }
            if tail {
                self.visit_tail(&mut arm.body);
            } else {
                let wrap = reports_arm(&arm.body);
                self.visit_wrapped(&mut arm.body, wrap.then_some("Arm"));
            }
            self.scopes.pop();
        }
    }

    /// A branch condition of kind `kind` (`If`, `While`, `Guard`). A condition without
    /// `let` becomes `branch(SITE, cond, &|| operands, &[bindings in scope])`, and each operand of a
    /// top-level `&&`/`||` chain an `Operand` branch; in a chain with `let`, only the
    /// non-`let` operands are wrapped. Bindings of `let`s are declared in the current scope.
    fn visit_condition(&mut self, cond: &mut Expr, kind: &str) {
        if contains_let(cond) {
            self.visit_chain(cond);
            return;
        }
        let original = cond.to_token_stream();
        let operands = self.operands(cond);
        if is_chain(cond) {
            self.visit_chain(cond);
        } else {
            self.visit_expr_mut(cond);
        }
        if self.skipped(&original) {
            return;
        }
        let site = self.site(&original, kind);
        let scope = self.scope_closure();
        *cond = Expr::Verbatim(quote! {
            ::autodebug_runtime::__rt::branch(#site, #cond, #operands, #scope)
        });
    }

    /// Walks a `&&`/`||` chain left to right, wrapping each non-`let` operand.
    fn visit_chain(&mut self, expr: &mut Expr) {
        chain_leaves_mut(expr, &mut |leaf| match leaf {
            Expr::Let(l) => {
                self.visit_scrutinee(&mut l.expr);
                self.scopes.declare_pattern(&l.pat);
            }
            operand => {
                let original = operand.to_token_stream();
                let operands = self.operands(operand);
                self.visit_expr_mut(operand);
                if self.skipped(&original) {
                    return;
                }
                let site = self.site(&original, "Operand");
                let scope = self.scope_closure();
                *operand = Expr::Verbatim(quote! {
                    ::autodebug_runtime::__rt::branch(#site, #operand, #operands, #scope)
                });
            }
        });
    }

    /// What a `match` or a `let` of a condition examines: an `Arg` site when it is
    /// computed ([`reports_scrutinee`]), so that a call examined there is recorded, covered
    /// and ranked even when none of its arguments is a site.
    fn visit_scrutinee(&mut self, expr: &mut Expr) {
        let wrap = reports_scrutinee(expr);
        self.visit_wrapped(expr, wrap.then_some("Arg"));
    }

    /// `|| eq_operands(&(a), &(b))` (or `ord_operands`) when `expr` is a comparison `a OP b`
    /// of operands that can be evaluated again without effects, `|| vec![]` otherwise. The
    /// hook's trait bound ties the operands' types as the comparison does.
    fn operands(&self, expr: &Expr) -> TokenStream {
        if let Expr::Binary(b) = strip(expr) {
            let hook = match b.op {
                BinOp::Eq(_) | BinOp::Ne(_) => Some(quote!(eq_operands)),
                BinOp::Lt(_) | BinOp::Le(_) | BinOp::Gt(_) | BinOp::Ge(_) => {
                    Some(quote!(ord_operands))
                }
                _ => None,
            };
            // A borrow compared with a raw pointer is coerced to one by the comparison
            // (`self.vtable as *const V == &STATIC`), not by the hook's bound: no operands.
            let borrowed = |e: &Expr| matches!(strip(e), Expr::Reference(_));
            if let Some(hook) = hook
                && !borrowed(&b.left)
                && !borrowed(&b.right)
                && self.scopes.is_pure(&b.left, false)
                && self.scopes.is_pure(&b.right, false)
            {
                let (left, right) = (&b.left, &b.right);
                return quote!(&|| ::autodebug_runtime::__rt::#hook(&(#left), &(#right)));
            }
        }
        quote!(&|| ::autodebug_runtime::__rt::vec![])
    }

    /// `iter(SITE)` as the first statement of a loop body; `header` is the loop's
    /// keyword and header (`for x in xs`, `while c`, `loop`).
    fn insert_iteration(&self, body: &mut Block, header: &TokenStream) {
        if self.skipped(header) {
            return;
        }
        let site = self.site(header, "Loop");
        if let Some(stmt) = parse_stmt(quote!(::autodebug_runtime::__rt::iter(#site);)) {
            body.stmts.insert(0, stmt);
        }
    }

    fn visit_local(&mut self, local: &mut syn::Local) {
        let binding = simple_binding(&local.pat).map(|(ident, ty)| {
            let kind = match (&local.init, ty) {
                // Without an initializer the variable may be unassigned at a component.
                (None, _) => None,
                (Some(_), Some(ty)) => type_kind(ty),
                (Some(init), None) => self.scopes.expr_kind(&init.expr),
            };
            (ident.clone(), kind)
        });
        let wrap = local
            .init
            .as_ref()
            .is_some_and(|init| reports_let(&local.pat, &init.expr));
        if let Some(init) = &mut local.init {
            self.visit_wrapped(&mut init.expr, wrap.then_some("Let"));
            if let Some((_, diverge)) = &mut init.diverge {
                self.visit_expr_mut(diverge);
            }
        }
        match binding {
            Some((ident, kind)) => {
                self.scopes
                    .declare(ident.to_string(), ident.to_token_stream(), kind)
            }
            None => self.scopes.declare_pattern(&local.pat),
        }
    }

    fn visit_for(&mut self, e: &mut syn::ExprForLoop) {
        let (for_token, pat, in_token, iterated) = (&e.for_token, &e.pat, &e.in_token, &e.expr);
        let header = quote!(#for_token #pat #in_token #iterated);
        // What it iterates is an `Arg` site (an iterator chain), its range's bounds
        // `Start` and `Bound` sites.
        let iterable = reports_iterable(&e.expr).then(|| e.expr.to_token_stream());
        let over_range = match for_range_mut(&mut e.expr).map(|(range, _)| range) {
            Some(range) => {
                if let Some(start) = &mut range.start {
                    self.visit_wrapped(start, Some("Start"));
                }
                if let Some(end) = &mut range.end {
                    self.visit_wrapped(end, Some("Bound"));
                }
                true
            }
            None => {
                self.visit_expr_mut(&mut e.expr);
                false
            }
        };
        if let Some(original) = iterable {
            self.wrap_component(&mut e.expr, &original, "Arg");
        }
        self.scopes.push();
        match simple_binding(&e.pat) {
            // Ranges iterate `Step` types, which are all `Copy` scalars.
            Some((ident, None)) if over_range => self.scopes.declare(
                ident.to_string(),
                ident.to_token_stream(),
                Some(Kind::Scalar),
            ),
            _ => self.scopes.declare_pattern(&e.pat),
        }
        self.visit_block_mut(&mut e.body);
        self.scopes.pop();
        self.insert_iteration(&mut e.body, &header);
    }

    /// A closure's body is walked like the function's, with two differences: its value is
    /// a `Closure` site (not a `Return`: the function does not return it, and a `return`
    /// inside leaves only the closure), and its hooks report only the bindings the closure
    /// itself introduces. Naming an outer variable there would add a capture the closure
    /// did not have (and a borrow that a `'static` or returned closure cannot hold).
    fn visit_closure(&mut self, c: &mut syn::ExprClosure) {
        let returns = std::mem::replace(&mut self.returns, false);
        self.scopes.push_barrier();
        for input in &c.inputs {
            match simple_binding(input) {
                Some((ident, Some(ty))) => {
                    self.scopes
                        .declare(ident.to_string(), ident.to_token_stream(), type_kind(ty))
                }
                _ => self.scopes.declare_pattern(input),
            }
        }
        match &mut *c.body {
            Expr::Block(b) if b.label.is_none() => {
                let count = b.block.stmts.len();
                self.scopes.push();
                for (i, stmt) in b.block.stmts.iter_mut().enumerate() {
                    match stmt {
                        Stmt::Expr(tail, None) if i + 1 == count => self.visit_closure_value(tail),
                        other => self.visit_stmt_mut(other),
                    }
                }
                self.scopes.pop();
            }
            body => self.visit_closure_value(body),
        }
        self.scopes.pop();
        self.returns = returns;
    }

    /// The value a closure returns: a `Closure` site when [`reports_closure_value`].
    fn visit_closure_value(&mut self, expr: &mut Expr) {
        let wrap = reports_closure_value(expr);
        self.visit_wrapped(expr, wrap.then_some("Closure"));
    }

    fn visit_while(&mut self, e: &mut syn::ExprWhile) {
        let (while_token, cond) = (&e.while_token, &e.cond);
        let header = quote!(#while_token #cond);
        self.scopes.push();
        self.visit_condition(&mut e.cond, "While");
        self.visit_block_mut(&mut e.body);
        self.scopes.pop();
        self.insert_iteration(&mut e.body, &header);
    }
}

impl VisitMut for Instrumenter {
    fn visit_block_mut(&mut self, block: &mut Block) {
        self.visit_block_tail(block, false);
    }

    fn visit_stmt_mut(&mut self, stmt: &mut Stmt) {
        match stmt {
            Stmt::Local(local) => self.visit_local(local),
            Stmt::Expr(expr, Some(_)) => self.visit_effect(expr),
            Stmt::Expr(expr, None) => self.visit_expr_mut(expr),
            // Nested items are other functions; macros are left as written.
            Stmt::Item(_) | Stmt::Macro(_) => {}
        }
    }

    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        match expr {
            // A closure runs when it is called, with its own `return` and bindings.
            Expr::Closure(c) if c.asyncness.is_none() && c.constness.is_none() => {
                self.visit_closure(c)
            }
            // Their bodies run elsewhere (or at compile time): `return` and the scope there
            // are not the function's.
            Expr::Closure(_)
            | Expr::Async(_)
            | Expr::Const(_)
            | Expr::Macro(_)
            | Expr::Verbatim(_) => {}
            Expr::If(e) => self.visit_if(e, false),
            Expr::Match(e) => self.visit_match(e, false),
            Expr::While(e) => self.visit_while(e),
            Expr::ForLoop(e) => self.visit_for(e),
            Expr::Loop(e) => {
                let header = e.loop_token.to_token_stream();
                self.visit_block_mut(&mut e.body);
                self.insert_iteration(&mut e.body, &header);
            }
            Expr::Assign(e) => {
                let wrap = reports_assign(&e.left, &e.right);
                self.visit_expr_mut(&mut e.left);
                let original = e.right.to_token_stream();
                self.visit_expr_mut(&mut e.right);
                if wrap {
                    self.wrap_component(&mut e.right, &original, "Assign");
                }
            }
            Expr::Binary(e) if is_compound(&e.op) => {
                self.visit_expr_mut(&mut e.left);
                let original = e.right.to_token_stream();
                self.visit_expr_mut(&mut e.right);
                self.wrap_component(&mut e.right, &original, "Compound");
            }
            Expr::Return(e) => {
                if let Some(value) = &mut e.expr {
                    let original = value.to_token_stream();
                    self.visit_expr_mut(value);
                    if self.returns {
                        self.wrap_component(value, &original, "Return");
                    }
                }
            }
            Expr::Call(_) | Expr::MethodCall(_) => self.visit_call(expr),
            // A struct literal's computed fields are `Arg` sites, as a constructor's
            // arguments (see `is_field_value`).
            Expr::Struct(e) => {
                for field in e.fields.iter_mut() {
                    let original = field.expr.to_token_stream();
                    let site = is_field_value(&field.expr);
                    self.visit_expr_mut(&mut field.expr);
                    if site {
                        self.wrap_component(&mut field.expr, &original, "Arg");
                    }
                }
                if let Some(rest) = &mut e.rest {
                    self.visit_expr_mut(rest);
                }
            }
            // The length of an array repeat is a constant.
            Expr::Repeat(e) => self.visit_expr_mut(&mut e.expr),
            _ => visit_mut::visit_expr_mut(self, expr),
        }
    }

    // What the default walk would reach but must stay as written: constants in types,
    // patterns and generic arguments, attributes, macros and items.
    fn visit_type_mut(&mut self, _: &mut Type) {}
    fn visit_pat_mut(&mut self, _: &mut Pat) {}
    fn visit_generic_argument_mut(&mut self, _: &mut syn::GenericArgument) {}
    fn visit_attribute_mut(&mut self, _: &mut syn::Attribute) {}
    fn visit_macro_mut(&mut self, _: &mut syn::Macro) {}
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

fn strip_pat(pat: &Pat) -> &Pat {
    match pat {
        Pat::Type(t) => strip_pat(&t.pat),
        Pat::Paren(p) => strip_pat(&p.pat),
        other => other,
    }
}

fn parse_stmt(tokens: TokenStream) -> Option<Stmt> {
    let block: Block = syn::parse2(quote!({ #tokens })).ok()?;
    block.stmts.into_iter().next()
}

#[cfg(test)]
mod tests {
    use super::instrument_body;
    use proc_macro2::{Delimiter, TokenStream, TokenTree};
    use quote::ToTokens;

    fn instrument(src: &str) -> syn::ItemFn {
        instrument_skipping(src, &[])
    }

    fn instrument_skipping(src: &str, skip: &[(u32, u32)]) -> syn::ItemFn {
        let mut func: syn::ItemFn = syn::parse_str(src).expect("test source parses");
        let sig = func.sig.clone();
        let entry = instrument_body(&sig, &mut func.block, &sig.ident.to_string(), skip);
        // The entry statements go first, as `codegen::wrap` puts them.
        let first: syn::Block = syn::parse2(quote::quote!({ #entry })).expect("entry parses");
        func.block.stmts.splice(0..0, first.stmts);
        // The output must itself be valid Rust.
        syn::parse2::<syn::ItemFn>(func.to_token_stream()).expect("instrumented fn parses");
        func
    }

    /// Splits a token list at its top-level commas.
    fn args(tokens: TokenStream) -> Vec<Vec<TokenTree>> {
        let mut out = vec![Vec::new()];
        for tt in tokens {
            match &tt {
                TokenTree::Punct(p) if p.as_char() == ',' => out.push(Vec::new()),
                _ => out.last_mut().unwrap().push(tt),
            }
        }
        out.retain(|a| !a.is_empty());
        out
    }

    /// The argument lists of every call of `callee` (`new` of `Site`, `component`, …).
    fn calls(tokens: TokenStream, callee: &str, out: &mut Vec<Vec<Vec<TokenTree>>>) {
        let trees: Vec<TokenTree> = tokens.into_iter().collect();
        for (i, tt) in trees.iter().enumerate() {
            if let TokenTree::Group(g) = tt {
                if g.delimiter() == Delimiter::Parenthesis
                    && matches!(trees.get(i.wrapping_sub(1)), Some(TokenTree::Ident(id)) if id == callee)
                {
                    out.push(args(g.stream()));
                }
                calls(g.stream(), callee, out);
            }
        }
    }

    fn string_literal(tt: &TokenTree) -> String {
        syn::parse2::<syn::LitStr>(tt.to_token_stream())
            .expect("string literal")
            .value()
    }

    /// `(kind, code)` of every site declared in `func`, in the order of the output.
    fn sites(func: &syn::ItemFn) -> Vec<(String, String)> {
        let mut found = Vec::new();
        calls(func.to_token_stream(), "new", &mut found);
        // `Site::new` (its many arguments).
        found
            .into_iter()
            .filter(|a| a.len() > 2)
            .map(|a| (a[5].last().unwrap().to_string(), string_literal(&a[6][0])))
            .collect()
    }

    fn kinds(func: &syn::ItemFn, kind: &str) -> Vec<String> {
        sites(func)
            .into_iter()
            .filter(|(k, _)| k == kind)
            .map(|(_, code)| code)
            .collect()
    }

    /// The names each `component` call reports, in the order of the output.
    fn scopes(func: &syn::ItemFn) -> Vec<Vec<String>> {
        hook_scopes(func, "component", 2)
    }

    /// The names each call of `hook` reports in its argument `at` (a scope of bindings).
    fn hook_scopes(func: &syn::ItemFn, hook: &str, at: usize) -> Vec<Vec<String>> {
        let mut found = Vec::new();
        calls(func.to_token_stream(), hook, &mut found);
        found
            .into_iter()
            .map(|a| match a[at].last() {
                Some(TokenTree::Group(vec)) => args(vec.stream())
                    .iter()
                    .map(|entry| match entry.last() {
                        // `Binding { name: "x", value: &x }`
                        Some(TokenTree::Group(fields)) => {
                            string_literal(&fields.stream().into_iter().nth(2).unwrap())
                        }
                        other => panic!("unexpected scope entry {other:?}"),
                    })
                    .collect(),
                other => panic!("unexpected scope {other:?}"),
            })
            .collect()
    }

    #[test]
    fn parameters_bound_to_names_pass_through_the_argument_hook() {
        let f = instrument("fn f(x: i32, mut n: u64, (a, b): (i8, i8), r#type: bool) -> i32 { 0 }");
        let text = f.to_token_stream().to_string();
        let mut found = Vec::new();
        calls(f.to_token_stream(), "arguments", &mut found);
        assert_eq!(found.len(), 1, "{text}");
        assert!(text.contains("& [\"x\" , \"n\" , \"type\"]"), "{text}");
        let mut hooked = Vec::new();
        calls(f.to_token_stream(), "argument", &mut hooked);
        let names: Vec<String> = hooked.iter().map(|a| string_literal(&a[1][0])).collect();
        assert_eq!(names, ["x", "n", "type"]);
        assert!(
            text.contains("let mut n = :: autodebug_runtime :: __rt :: argument"),
            "{text}"
        );
        // The entry hook names the same site.
        assert!(text.contains("enter (__autodebug_fn"), "{text}");
        assert_eq!(kinds(&f, "Fn"), ["f"]);
    }

    #[test]
    fn loop_iterables_and_calls_under_a_question_mark_are_sites() {
        let f = instrument(
            "fn f(v: &mut Vec<u8>, w: &mut W, n: usize) -> std::io::Result<()> {
                for x in v.iter().skip(1) { w.write(x)?; }
                for i in (0..n).rev() { w.flush()?; }
                for x in &v {}
                for x in v.drain(..) { w.put(x + 1)?; }
                Ok(())
            }",
        );
        // With the calls' own arguments `1`, `..` and `()`.
        assert_eq!(
            kinds(&f, "Arg"),
            [
                "v.iter().skip(1)",
                "1",
                "(0..n).rev()",
                "v.drain(..)",
                "..",
                "x + 1",
                "()"
            ]
        );
        assert_eq!(kinds(&f, "Call"), ["w.write(x)?", "w.flush()?"]);
        assert_eq!(kinds(&f, "Bound"), ["n"]);
    }

    #[test]
    fn a_struct_literals_computed_fields_are_sites_and_borrowed_ones_are_not() {
        let f = instrument(
            "fn f(n: usize, s: &str, tail: u8) -> P {
                let first = P { len: n + 1, start: 0, name: &s[1..], tail };
                P { len: first.len, ..first }
            }",
        );
        assert_eq!(kinds(&f, "Arg"), ["n + 1", "0"]);
    }

    #[test]
    fn every_construct_gets_its_site() {
        let f = instrument(
            "fn f(n: usize, v: &[i32]) -> i32 {
                let mut acc = 0;
                let mut i = 0;
                while i < n && v[i] > 0 {
                    acc += v[i];
                    i += 1;
                }
                for j in 0..n {
                    acc = acc - j as i32;
                }
                loop { break; }
                match v.first() {
                    Some(x) if *x > 3 => return *x,
                    _ => {}
                }
                if acc > 10 { acc } else if acc < -10 { -acc } else { 0 }
            }",
        );
        assert_eq!(kinds(&f, "Fn"), ["f"]);
        assert_eq!(kinds(&f, "While"), ["i < n && v[i] > 0"]);
        assert_eq!(kinds(&f, "Operand"), ["i < n", "v[i] > 0"]);
        assert_eq!(kinds(&f, "Let"), ["0", "0"]);
        assert_eq!(kinds(&f, "Compound"), ["v[i]", "1"]);
        assert_eq!(kinds(&f, "Assign"), ["acc - j as i32"]);
        assert_eq!(kinds(&f, "Bound"), ["n"]);
        assert_eq!(kinds(&f, "Start"), ["0"]);
        assert_eq!(
            kinds(&f, "Loop"),
            ["while i < n && v[i] > 0", "for j in 0..n", "loop"]
        );
        assert_eq!(kinds(&f, "Guard"), ["*x > 3"]);
        assert_eq!(kinds(&f, "If"), ["acc > 10", "acc < -10"]);
        // `return *x` and the three values the tail `if` can produce.
        assert_eq!(kinds(&f, "Return"), ["*x", "acc", "-acc", "0"]);
    }

    #[test]
    fn computed_arguments_of_calls_are_sites() {
        let f = instrument(
            "fn f(v: &mut Vec<i32>, x: i32, s: &mut String) {
                v.push(x + 1);
                v.push(x);
                v.retain(|y| *y > 0);
                g(&mut *v, 2);
                s.push_str(&x.to_string());
                let n = h(x - 1);
                v.push(n);
                let k = Some(h(x * 3))?;
                v.extend([k, (n, 0).1]);
            }",
        );
        // Arguments of calls wherever they stand: in a `let`, under `?`, nested (in the
        // order of the text).
        assert_eq!(
            kinds(&f, "Arg"),
            [
                "x + 1",
                "&mut *v",
                "2",
                "&x.to_string()",
                "x - 1",
                "h(x * 3)",
                "x * 3",
                "[k, (n, 0).1]"
            ]
        );
        // A call statement with no computed argument is a site itself.
        assert_eq!(
            kinds(&f, "Call"),
            ["v.push(x)", "v.retain(|y| *y > 0)", "v.push(n)"]
        );
        assert_eq!(kinds(&f, "Closure"), ["*y > 0"]);
    }

    #[test]
    fn arms_of_matches_the_function_does_not_return_are_sites() {
        let f = instrument(
            "fn f(r: Bound<&usize>, c: char, out: &mut Vec<(char, u32)>) -> usize {
                let end = match r { Included(x) => *x, Excluded(x) => x - 1, Unbounded => return 0 };
                match c { 'a' => out.push((c, 1)), _ => out.push((c, 0)) }
                let v = match c { 'b' => &make(), _ => { &make() } };
                match end { 0 => 1, n => n * 2 }
            }",
        );
        // Not the diverging arm, not a borrowed temporary a `let` extends, not a block.
        assert_eq!(
            kinds(&f, "Arm"),
            ["*x", "x - 1", "out.push((c, 1))", "out.push((c, 0))"]
        );
        assert_eq!(kinds(&f, "Arg"), ["(c, 1)", "(c, 0)"]);
        // `return 0`, and the arms of the match the function returns: its returned values.
        assert_eq!(kinds(&f, "Return"), ["0", "1", "n * 2"]);
    }

    /// Where a bug can be, by expression kind: each is a site of the kind that names it.
    #[test]
    fn every_place_a_value_is_computed_is_a_site() {
        let cases: &[(&str, &str, &str)] = &[
            // Match arms' bodies, whatever their expression kind.
            ("let y = match x { 0 => 1, _ => 2 };", "1", "Arm"),
            ("let y = match x { 0 => x - 1, _ => 2 };", "x - 1", "Arm"),
            ("let y = match r { Some(v) => *v, None => 0 };", "*v", "Arm"),
            (
                "let y = match x { 0 => v.len(), _ => 2 };",
                "v.len()",
                "Arm",
            ),
            (
                "let y = match x { 0 => (x, 1), _ => (0, 0) };",
                "(x, 1)",
                "Arm",
            ),
            ("let y = match x { 0 => v[x], _ => 2 };", "v[x]", "Arm"),
            (
                "let y = match x { 0 => x as u8, _ => 2 };",
                "x as u8",
                "Arm",
            ),
            (
                "let y = match x { 0 => &v[x..], _ => &v[..] };",
                "&v[x..]",
                "Arm",
            ),
            (
                "match x { 0 => out.push((x, 0)), _ => {} }",
                "out.push((x, 0))",
                "Arm",
            ),
            // Arguments of constructors, calls and methods, wherever the call stands.
            ("let y = Some(x + 1);", "x + 1", "Arg"),
            ("let y = Wrap(x * 2);", "x * 2", "Arg"),
            ("out.push((x, 0));", "(x, 0)", "Arg"),
            ("let y = v.get(x + 1);", "x + 1", "Arg"),
            ("let y = g(x - 1)?;", "x - 1", "Arg"),
            (
                "let Some(y) = v.get(x + 2) else { return 0; };",
                "x + 2",
                "Arg",
            ),
            // A loop header's adaptors; a closure's value inside an iterator chain.
            (
                "for b in v.iter().skip(1) { out.push((*b, 0)); }",
                "1",
                "Arg",
            ),
            (
                "let y = v.iter().map(|e| e * 3).sum::<usize>();",
                "e * 3",
                "Closure",
            ),
        ];
        for (body, code, kind) in cases {
            let f = instrument(&format!(
                "fn f(x: usize, r: Option<&usize>, v: &[usize], out: &mut Vec<(usize, usize)>) -> usize {{ {body} 0 }}"
            ));
            assert!(
                kinds(&f, kind).contains(&code.to_string()),
                "`{code}` in `{body}` is no `{kind}` site: {:?}",
                sites(&f)
            );
        }
    }

    #[test]
    fn a_call_hook_goes_before_each_macro_statement() {
        let f = instrument(
            "fn f(w: &mut W, n: usize) -> i64 {
                try!(w.flush());
                get_impl!(be => self, i64, n);
                if n > 1 { log!(n); }
                #[cfg(debug_assertions)]
                #[allow(unused)]
                check!(n);
                1
            }",
        );
        assert_eq!(
            kinds(&f, "Call"),
            [
                "try!(w.flush())",
                "get_impl!(be => self, i64, n)",
                "log!(n)",
                "check!(n)"
            ]
        );
        // Each hook is the statement right before its macro, which is left as written.
        let text = f.to_token_stream().to_string();
        let hooked = |mac: &str| {
            let at = text.find(mac).unwrap();
            text[..at].trim_end().ends_with("}]) ;")
        };
        assert!(hooked("try ! (w . flush ()) ;"), "{text}");
        assert!(hooked("get_impl ! (be => self , i64 , n) ;"), "{text}");
        assert!(hooked("log ! (n) ;"), "{text}");
        // Compiled where the macro is, and only the `cfg` goes with it.
        assert!(
            text.contains("# [cfg (debug_assertions)] :: autodebug_runtime :: __rt :: component"),
            "{text}"
        );
    }

    #[test]
    fn let_conditions_are_never_wrapped() {
        let f = instrument(
            "fn f(o: Option<i32>, mut s: Vec<i32>) -> i32 {
                if let Some(x) = o && x > 0 { return x; }
                while let Some(top) = s.pop() { if top == 2 { break; } }
                match o { Some(y) if let 3 = y => 1, _ => 0 }
            }",
        );
        let text = f.to_token_stream().to_string();
        assert!(text.contains("if let Some (x) = o &&"), "{text}");
        // What a `let` examines is an `Arg` site when computed (`s.pop()`), not a place
        // (`o`).
        assert!(
            text.contains("while let Some (top) = :: autodebug_runtime :: __rt :: component"),
            "{text}"
        );
        assert_eq!(kinds(&f, "Arg"), ["s.pop()"]);
        assert!(
            kinds(&f, "If").iter().all(|code| !code.contains("let")),
            "{:?}",
            sites(&f)
        );
        assert_eq!(kinds(&f, "If"), ["top == 2"]);
        assert_eq!(kinds(&f, "Operand"), ["x > 0"]);
        assert!(kinds(&f, "While").is_empty());
        assert!(kinds(&f, "Guard").is_empty());
        assert_eq!(kinds(&f, "Loop"), ["while let Some(top) = s.pop()"]);
    }

    #[test]
    fn scope_holds_only_copy_bindings_that_are_never_mutably_borrowed() {
        let f = instrument(
            "fn f(a: i32, s: String, r: &str, m: &mut u8, (t, u): (i32, i32)) -> usize {
                let mut n = 1;
                let p = &mut n;
                let v = vec![1];
                let w = v;
                let len = w.len();
                let mut c = 0;
                let mut bump = || c += 1;
                bump();
                let sum = a + 1;
                let lit = 2.5;
                let typed: u64 = r.len() as u64;
                let text: String = s;
                let mut row = grid[0];
                let elem = row[0];
                for x in row.iter_mut() { *x += elem; }
                len + typed as usize + text.len()
            }",
        );
        let scopes = scopes(&f);
        // The scope of the tail: only the scalars and shared references, in declaration
        // order; `n`, `c` and `row` are borrowed mutably, `s`, `v`, `w`, `text` may be moved.
        assert_eq!(
            scopes.last().unwrap(),
            &["a", "r", "len", "sum", "lit", "typed", "elem"]
        );
        // The scope of a `let` does not contain the variable it declares.
        assert_eq!(scopes[0], ["a", "r"]);
    }

    #[test]
    fn branches_report_the_scope_a_component_there_would() {
        let f = instrument(
            "fn f(n: usize, v: &[i32], mut m: u8, s: String) -> i32 {
                let mut acc = 0;
                let p = &mut m;
                let mut i = 0;
                while i < n && v[i] > 0 {
                    let x = v[i];
                    if x > acc { acc = x; }
                    i += 1;
                }
                match v.first() {
                    Some(y) if *y > 3 => return *y,
                    _ => {}
                }
                if let Some(z) = v.get(1) && *z > acc { return *z; }
                acc
            }",
        );
        let branches = hook_scopes(&f, "branch", 3);
        let outer = ["n", "v", "acc", "i"];
        // `m` is borrowed mutably, `p` is a `&mut`, `s` may move; pattern bindings (`y`,
        // `z`) have unknown types.
        assert_eq!(
            branches,
            [
                &outer[..],
                &outer[..],
                &outer[..],
                &["n", "v", "acc", "i", "x"][..],
                &outer[..],
                &outer[..],
            ],
            "while, its two operands, if, guard, operand of the let chain"
        );
        let mut kinds_in_order = Vec::new();
        calls(f.to_token_stream(), "branch", &mut kinds_in_order);
        let kinds: Vec<String> = kinds_in_order
            .iter()
            .map(|a| {
                let mut site = Vec::new();
                calls(a[0].iter().cloned().collect(), "new", &mut site);
                site[0][5].last().unwrap().to_string()
            })
            .collect();
        assert_eq!(
            kinds,
            ["While", "Operand", "Operand", "If", "Guard", "Operand"]
        );
        // The `if`'s scope is the one the assignment in its body reports.
        let components = scopes(&f);
        let assign = components
            .iter()
            .find(|names| names.len() == 5)
            .expect("the scope of `acc = x`");
        assert_eq!(assign, &branches[3]);
    }

    #[test]
    fn shadowing_and_blocks_hide_bindings() {
        let f = instrument(
            "fn f(x: i32) -> i32 {
                let y = x;
                { let z = 3; let k = z; }
                let x = String::new();
                if let Some(y) = Some(vec![1]) { let q = 1; }
                for i in 0..3 { let e = i; }
                let last = 0;
                last
            }",
        );
        let scopes = scopes(&f);
        assert_eq!(scopes[0], ["x"], "let y");
        assert_eq!(scopes[2], ["x", "y", "z"], "let k");
        // `x` is now a `String`.
        // What the `if let` examines, and the argument `vec![1]`, are evaluated before it
        // binds its `y`.
        assert_eq!(scopes[4], ["y"], "Some(vec![1])");
        assert_eq!(scopes[5], ["y"], "vec![1]");
        assert!(
            scopes[6].is_empty(),
            "let q: `y` is shadowed by a vector: {:?}",
            scopes[6]
        );
        assert_eq!(scopes[3], ["x", "y"], "let x");
        let range_and_loop: Vec<_> = scopes[7..10].to_vec();
        assert_eq!(
            range_and_loop,
            [vec!["y"], vec!["y"], vec!["y", "i"]],
            "for start, bound, let e"
        );
        assert_eq!(scopes.last().unwrap(), &["y", "last"]);
    }

    #[test]
    fn macros_async_blocks_and_items_are_untouched() {
        let src = "fn f(v: &[i32]) -> usize {
                assert!(v.len() < 10 && v.len() > 0, \"{}\", v.len());
                fn inner(z: i32) -> i32 { if z > 1 { z } else { 0 } }
                let h = async { if true { 1 } else { 2 } };
                let g = async |x: i32| { if x > 0 { 1 } else { 2 } };
                let _ = (g, h, inner);
                v.len()
            }";
        let f = instrument(src);
        let text = f.to_token_stream().to_string();
        let original: syn::ItemFn = syn::parse_str(src).unwrap();
        for stmt in &original.block.stmts[..4] {
            let stmt = stmt.to_token_stream().to_string();
            let stmt = stmt
                .trim_start_matches("let g = ")
                .trim_start_matches("let h = ");
            assert!(
                text.contains(stmt.trim_end_matches(';')),
                "{stmt} rewritten in {text}"
            );
        }
        let codes: Vec<String> = sites(&f).into_iter().map(|(_, code)| code).collect();
        for inside in ["v.len() < 10", "z > 1", "z", "true", "x > 0"] {
            assert!(
                !codes.iter().any(|c| c == inside),
                "site `{inside}` in {codes:?}"
            );
        }
    }

    #[test]
    fn closure_bodies_are_sites_that_capture_nothing_new() {
        let f = instrument(
            "fn f(v: &[i32], k: i32) -> usize {
                let mut n = 0usize;
                let g = |x: i32| { if x > k { return 1; } let y = x * 2; y + k };
                v.iter().for_each(|x| { n += 2; });
                v.iter().filter(|x| **x % 2 == 1).map(|&x| g(x)).count() + n
            }",
        );
        assert_eq!(kinds(&f, "Closure"), ["y + k", "**x % 2 == 1", "g(x)"]);
        assert_eq!(kinds(&f, "If"), ["x > k"]);
        assert_eq!(kinds(&f, "Compound"), ["2"]);
        // A closure's `return` and tail are not the function's.
        assert_eq!(
            kinds(&f, "Return"),
            ["v.iter().filter(|x| **x % 2 == 1).map(|&x| g(x)).count() + n"]
        );
        // Inside a closure the hooks report the closure's own typed bindings only: `k`
        // (outer, a scalar) would be a new capture.
        // (`let g = …` itself is a `Let` site of the function.)
        let scopes = scopes(&f);
        assert_eq!(scopes[0], ["v", "k"], "let n: {scopes:?}");
        assert_eq!(scopes[1], ["v", "k"], "let g");
        assert_eq!(scopes[2], ["x"], "let y in g");
        assert_eq!(scopes[3], ["x", "y"], "the tail of g");
        assert_eq!(scopes[4], ["v", "k"], "the for_each call statement");
        assert_eq!(scopes[5], Vec::<String>::new(), "n += 2");
        assert_eq!(scopes[6], ["v", "k"], "the function's return");
        assert_eq!(scopes[7..], [Vec::<String>::new(), vec![]], "filter, map");
    }

    #[test]
    fn comparison_operands_are_reported_only_when_pure() {
        let f = instrument(
            "fn f(a: usize, b: Vec<u8>, s: String) {
                if a < b.len() {}
                if g(a) < 3 {}
                if b[a] == 1 && a + 1 > 2 {}
                if s + \"x\" == \"y\" {}
                if a as *const u8 == &X {}
            }",
        );
        let mut branches = Vec::new();
        calls(f.to_token_stream(), "branch", &mut branches);
        let operands: Vec<String> = branches
            .iter()
            .map(|a| a[2].iter().cloned().collect::<TokenStream>().to_string())
            .collect();
        assert_eq!(
            operands[0],
            "& || :: autodebug_runtime :: __rt :: ord_operands (& (a) , & (b . len ()))"
        );
        assert_eq!(operands[1], "& || :: autodebug_runtime :: __rt :: vec ! []");
        // The whole `&&` is not a comparison; both operands are.
        assert_eq!(operands[2], "& || :: autodebug_runtime :: __rt :: vec ! []");
        assert!(
            operands[3].contains("b [a]") && operands[4].contains("a + 1"),
            "{operands:?}"
        );
        // `s + "x"` moves `s`: evaluating it again would not compile.
        assert_eq!(operands[5], "& || :: autodebug_runtime :: __rt :: vec ! []");
        // A borrow the comparison coerces to a raw pointer would not meet the hook's bound.
        assert_eq!(operands[6], "& || :: autodebug_runtime :: __rt :: vec ! []");
    }

    #[test]
    fn const_fn_is_left_alone_and_unit_fns_report_no_return() {
        let src = "const fn c(a: u32) -> u32 { if a > 1 { a } else { 1 } }";
        let original: syn::ItemFn = syn::parse_str(src).unwrap();
        let f = instrument(src);
        assert_eq!(
            f.to_token_stream().to_string(),
            original.to_token_stream().to_string()
        );
        let g = instrument("fn g(a: u32) { if a > 1 { return; } h(a) }");
        assert!(kinds(&g, "Return").is_empty());
        let never = instrument("fn n() -> ! { panic!(\"x\") }");
        assert!(kinds(&never, "Return").is_empty());
    }

    #[test]
    fn places_and_borrowed_temporaries_are_not_let_sites() {
        let f = instrument(
            "fn f(pair: (String, String), a: i32) -> usize {
                let (x, _) = pair;
                let ref r = a;
                let v = &vec![1];
                let e = &make()[0];
                let t = (x, 1);
                let s = &t.0;
                s.len() + v.len() + *e + *r as usize
            }",
        );
        assert_eq!(kinds(&f, "Let"), ["(x, 1)", "&t.0"]);
    }

    #[test]
    fn sites_carry_the_users_positions() {
        let f = instrument("fn f(a: i32) -> i32 {\n    let b = a\n        + 1;\n    b\n}");
        let mut found = Vec::new();
        calls(f.to_token_stream(), "new", &mut found);
        let let_site = found
            .iter()
            .find(|a| a.len() > 2 && a[5].last().unwrap().to_string() == "Let")
            .unwrap();
        let numbers: Vec<String> = a_numbers(let_site);
        // line 2, column 13 (1-based) to line 3, column 12 (just past `1`).
        assert_eq!(numbers, ["2u32", "13u32", "3u32", "12u32"]);
        assert_eq!(string_literal(&let_site[6][0]), "a\n        + 1");
        fn a_numbers(a: &[Vec<TokenTree>]) -> Vec<String> {
            a[1..5].iter().map(|t| t[0].to_string()).collect()
        }
    }

    #[test]
    fn a_skipped_position_leaves_only_its_innermost_site_as_written() {
        let src = "fn f(a: i32, v: &[i32]) -> i32 {\n    let b = g(a + 1);\n    \
                   if b > v.len() as i32 {\n        return b;\n    }\n    a\n}";
        let all = instrument(src);
        assert_eq!(kinds(&all, "Let"), ["g(a + 1)"]);
        assert_eq!(kinds(&all, "If"), ["b > v.len() as i32"]);
        assert_eq!(kinds(&all, "Arg"), ["a + 1"]);
        // 2:13 is `g`, in no site but the `let`'s value: that site stays as written, the
        // argument inside it and the other sites are instrumented.
        let skipped = instrument_skipping(src, &[(2, 13)]);
        assert!(kinds(&skipped, "Let").is_empty(), "{:?}", sites(&skipped));
        assert_eq!(kinds(&skipped, "Arg"), ["a + 1"]);
        assert_eq!(kinds(&skipped, "If"), ["b > v.len() as i32"]);
        assert_eq!(kinds(&skipped, "Return"), kinds(&all, "Return"));
        // 2:17 is inside `a + 1`: the argument is the innermost site holding it.
        let skipped = instrument_skipping(src, &[(2, 17)]);
        assert!(kinds(&skipped, "Arg").is_empty(), "{:?}", sites(&skipped));
        assert_eq!(kinds(&skipped, "Let"), ["g(a + 1)"]);
        // A position in the condition: the branch stays as written, the `let` instrumented.
        let skipped = instrument_skipping(src, &[(3, 8)]);
        assert!(kinds(&skipped, "If").is_empty());
        assert_eq!(kinds(&skipped, "Let"), ["g(a + 1)"]);
    }
}
