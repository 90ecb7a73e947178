//! `#[autodebug_test]`: put by `cargo autodebug` on the `#[test]` functions of its
//! instrumented copy (never written by people). The test's body moves into a function of
//! its own, of the test's name, that the runtime's test entry calls: once, as always, in a
//! normal run; once per plan inside one process when the tool sends a batch. Tests the
//! entry cannot call that way (parameters, generics, `async`, a return value) are left as
//! they are.
//!
//! The body's assertion statements (`assert!`, `assert_eq!`, `assert_ne!`, in the body's
//! own blocks, not in closures or nested items) each become a closure handed to
//! `__rt::assertion`, which runs it as written unless the run's plan asks for soft
//! assertions: then a failed one is recorded and the test goes on, so that the tool sees
//! every call the test makes and which of them its assertions accepted. One with a message
//! stays as written outside soft runs, and its soft form has no message (the message's
//! arguments may move what the test uses after it).

use proc_macro2::TokenStream;
use quote::quote;
use syn::visit_mut::{self, VisitMut};
use syn::{Attribute, Expr, ItemFn, Lit, Meta, ReturnType, Stmt, Type};

/// The test wrapped when the build instruments, as written otherwise (see the attribute).
pub(crate) fn expand_when(instrumenting: bool, item: TokenStream) -> TokenStream {
    if instrumenting { expand(item) } else { item }
}

pub(crate) fn expand(item: TokenStream) -> TokenStream {
    let Ok(function) = autodebug_syntax::parse_repaired::<ItemFn>(item.clone()) else {
        return item;
    };
    if !wrappable(&function) {
        return item;
    }
    let should_panic = match should_panic(&function.attrs) {
        Some(Some(expected)) => quote!(::autodebug_runtime::__rt::Option::Some(#expected)),
        Some(None) => quote!(::autodebug_runtime::__rt::Option::Some("")),
        None => quote!(::autodebug_runtime::__rt::Option::None),
    };
    let mut function = function;
    SoftAssertions.visit_block_mut(&mut function.block);
    let ident = function.sig.ident.clone();
    let name = ident.to_string();
    let body = &function.block;
    // The body's function has the test's own name, so that what the body reads of its
    // enclosing function's path (snapshot libraries name their files by it) ends as the
    // test's: `module::test::test` reads as `test` where `module::test` did.
    let wrapped: syn::Block = syn::parse_quote!({
        fn #ident() #body
        ::autodebug_runtime::__rt::test_entry(
            ::autodebug_runtime::__rt::module_path!(),
            #name,
            #should_panic,
            #ident,
        )
    });
    *function.block = wrapped;
    quote!(#function)
}

/// Wraps the assertion statements of a test body (see the module's comment).
struct SoftAssertions;

/// The assertion macros whose statements are wrapped.
const ASSERTIONS: [&str; 3] = ["assert", "assert_eq", "assert_ne"];

impl VisitMut for SoftAssertions {
    fn visit_stmt_mut(&mut self, stmt: &mut Stmt) {
        if let Stmt::Macro(statement) = stmt
            && statement.attrs.is_empty()
            && ASSERTIONS.iter().any(|a| statement.mac.path.is_ident(a))
        {
            let mac = &statement.mac;
            // The runtime's path at the call site, as every generated path (an edition-2015
            // span would read `::autodebug_runtime` from the crate root); the macro keeps
            // its own spans, so a failure is reported where it was written.
            let wrapped = match without_message(mac) {
                // A message's arguments are evaluated only when the assertion fails, and may
                // move what the test uses after it (`result.err().unwrap()`): in a closure
                // they would be captured, moved, whether it fails or not. The assertion
                // stays as written, and the soft one (of the tool's runs) has no message.
                Some(bare) => quote!(
                    if ::autodebug_runtime::__rt::soft_assertions() {
                        ::autodebug_runtime::__rt::assertion(|| { #bare; });
                    } else {
                        #mac;
                    }
                ),
                None => quote!(
                    ::autodebug_runtime::__rt::assertion(|| { #mac; });
                ),
            };
            if let Ok(wrapped) = syn::parse2::<Stmt>(wrapped) {
                *stmt = wrapped;
            }
            return;
        }
        visit_mut::visit_stmt_mut(self, stmt);
    }

    // Closures may run many times, elsewhere, or never; nested items are not the test.
    fn visit_expr_closure_mut(&mut self, _: &mut syn::ExprClosure) {}
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
    fn visit_expr_async_mut(&mut self, _: &mut syn::ExprAsync) {}
}

/// `assert_eq!(a, b)` for `assert_eq!(a, b, "…", args)` (`assert!(c)` for `assert!(c, …)`),
/// when the assertion has a message; `None` when it has none or its arguments do not parse.
fn without_message(mac: &syn::Macro) -> Option<TokenStream> {
    use syn::parse::Parser;
    let args = syn::punctuated::Punctuated::<Expr, syn::Token![,]>::parse_terminated
        .parse2(mac.tokens.clone())
        .ok()?;
    let kept = if mac.path.is_ident("assert") { 1 } else { 2 };
    if args.len() <= kept {
        return None;
    }
    let conditions = args.iter().take(kept);
    let path = &mac.path;
    Some(quote!(#path!(#(#conditions),*)))
}

/// A plain `#[test] fn name() { … }` returning nothing.
fn wrappable(function: &ItemFn) -> bool {
    let sig = &function.sig;
    let unit = match &sig.output {
        ReturnType::Default => true,
        ReturnType::Type(_, ty) => matches!(&**ty, Type::Tuple(t) if t.elems.is_empty()),
    };
    unit && sig.inputs.is_empty()
        && sig.generics.params.is_empty()
        && sig.generics.where_clause.is_none()
        && sig.asyncness.is_none()
        && sig.constness.is_none()
        && sig.variadic.is_none()
        && function.attrs.iter().any(|a| a.path().is_ident("test"))
}

/// `#[should_panic]` → `Some(None)`; `#[should_panic(expected = "x")]` and
/// `#[should_panic = "x"]` → `Some(Some("x"))`.
fn should_panic(attrs: &[Attribute]) -> Option<Option<String>> {
    let attr = attrs.iter().find(|a| a.path().is_ident("should_panic"))?;
    let text = |expr: &Expr| match expr {
        Expr::Lit(lit) => match &lit.lit {
            Lit::Str(s) => Some(s.value()),
            _ => None,
        },
        _ => None,
    };
    Some(match &attr.meta {
        Meta::Path(_) => None,
        Meta::NameValue(nv) => text(&nv.value),
        Meta::List(_) => {
            let mut expected = None;
            let _ = attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("expected") {
                    expected = text(&meta.value()?.parse()?);
                }
                Ok(())
            });
            expected
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expanded(source: &str) -> String {
        expand(source.parse().unwrap()).to_string()
    }

    #[test]
    fn a_build_that_does_not_instrument_keeps_the_test_as_written() {
        let source = "#[test] fn sums() { assert_eq!(1 + 1, 2); }";
        let item: TokenStream = source.parse().unwrap();
        let kept = expand_when(false, item.clone()).to_string();
        assert_eq!(kept, item.to_string());
        assert!(expand_when(true, item).to_string().contains("test_entry"));
    }

    #[test]
    fn a_plain_test_goes_through_the_entry() {
        let out = expanded("#[test] fn sums() { assert_eq!(1 + 1, 2); }");
        assert!(out.contains("fn sums () { fn sums ()"), "{out}");
        assert!(out.contains("test_entry"), "{out}");
        assert!(out.contains("\"sums\""), "{out}");
        assert!(
            out.contains(":: autodebug_runtime :: __rt :: Option :: None"),
            "{out}"
        );
        assert!(out.starts_with("# [test]"), "{out}");
    }

    #[test]
    fn assertion_statements_become_closures_the_runtime_may_let_go_on() {
        let out = expanded(
            "#[test] fn t() { assert_eq!(f(1), 2); let v = g(); \
             for x in v { assert!(h(x), \"{x}\"); } \
             let c = || assert_ne!(f(2), 0); c(); debug_assert!(true); }",
        );
        assert_eq!(out.matches("__rt :: assertion").count(), 2, "{out}");
        assert!(
            out.contains("assertion (| | { assert_eq ! (f (1) , 2) ; })"),
            "{out}"
        );
        // With a message: as written unless the assertions are soft, then without it.
        assert!(
            out.contains(
                "if :: autodebug_runtime :: __rt :: soft_assertions () { :: autodebug_runtime :: __rt :: assertion (| | { assert ! (h (x)) ; }) ; } else { assert ! (h (x) , \"{x}\") ; }"
            ),
            "{out}"
        );
        // Inside a closure, and other macros, stay as written.
        assert!(out.contains("| | assert_ne ! (f (2) , 0)"), "{out}");
        assert!(out.contains("debug_assert ! (true)"), "{out}");
    }

    #[test]
    fn should_panic_forms() {
        let any = expanded("#[test] #[should_panic] fn p() { panic!() }");
        assert!(any.contains("Option :: Some (\"\")"), "{any}");
        let list = expanded("#[test] #[should_panic(expected = \"out of\")] fn p() {}");
        assert!(list.contains("Option :: Some (\"out of\")"), "{list}");
        let value = expanded("#[test] #[should_panic = \"boom\"] fn p() {}");
        assert!(value.contains("Option :: Some (\"boom\")"), "{value}");
    }

    #[test]
    fn tests_the_entry_cannot_call_are_left_alone() {
        for source in [
            "#[test] fn r() -> Result<(), String> { Ok(()) }",
            "#[test] async fn a() {}",
            "#[test] fn g<T>() {}",
            "fn not_a_test() {}",
            "#[tokio::test] fn t() {}",
        ] {
            let before: TokenStream = source.parse().unwrap();
            assert_eq!(expand(before.clone()).to_string(), before.to_string());
        }
        let unit = expanded("#[test] fn u() -> () {}");
        assert!(unit.contains("test_entry"), "{unit}");
    }
}
