//! Procedural macros of cargo-autodebug: contracts (`#[requires]`, `#[ensures]`,
//! `#[invariant]` and their `debug_`/`test_` variants) and the `#[autodebug]` instrumentation.
//! Use them through `autodebug_runtime`, which re-exports them.
//!
//! Contract arguments are conditions separated by commas, optionally followed by a message:
//! `#[requires(x > 0, y < x, "x is positive and above y")]`. A condition is a boolean
//! expression, an implication `a -> b` (right-associative), or a quantifier over an integer
//! range, `forall i in 0..n => cond` / `exists i in 0..=n => cond`, checked by iterating the
//! range. In `ensures`, `ret` is the return value and `old(expr)` is `expr` evaluated on
//! entry. A violation panics with `Pre-condition of {fn} violated: {message}: {condition}`
//! (`Post-condition of …`, `Invariant of …`). Several attributes on one function make one
//! wrapper; `#[invariant]` on an `impl` block checks every method taking `self`.
//!
//! When the build asks for instrumentation (`AUTODEBUG_INSTRUMENT=1`, set by
//! `cargo autodebug`) or `#[autodebug(always)]` is present, annotated functions are
//! instrumented and contract checks are reported to the runtime; otherwise the expansion
//! holds the checks only.

use proc_macro::TokenStream;

mod codegen;
mod ensures;
mod instrument;
mod invariant;
mod parse;
mod requires;
mod site;
mod test_entry;

use parse::{Gate, Ours};

/// Instruments a function (or every method of an `impl` block) when `cargo autodebug`
/// builds; expands to the item unchanged otherwise. `#[autodebug(always)]` instruments in
/// every build (used by the runtime's own tests). Combines with contract attributes.
#[proc_macro_attribute]
pub fn autodebug(attr: TokenStream, item: TokenStream) -> TokenStream {
    codegen::expand(
        Ours::Autodebug,
        attr.into(),
        item.into(),
        site::instrumentation_on(),
    )
    .into()
}

/// Put by `cargo autodebug` on the `#[test]` functions of its instrumented copy, before
/// `#[test]`: the test can then run many plans in one process (see the runtime's batch
/// protocol). The test as written in a build that does not instrument (the rebuilds that
/// validate a fix build the copy so: they judge the tests as `cargo test` runs them, and a
/// body moved into a function of its own, its assertions into closures, can behave
/// otherwise, a constant's address for one). Not meant to be written by hand.
#[doc(hidden)]
#[proc_macro_attribute]
pub fn autodebug_test(attr: TokenStream, item: TokenStream) -> TokenStream {
    if !attr.is_empty() {
        return syn::Error::new(
            proc_macro2::Span::call_site(),
            "`#[autodebug_test]` takes no arguments",
        )
        .to_compile_error()
        .into();
    }
    test_entry::expand_when(site::instrumentation_on(), item.into()).into()
}

/// Precondition: `#[requires(cond, …, "message")]`, checked on entry.
#[proc_macro_attribute]
pub fn requires(attr: TokenStream, item: TokenStream) -> TokenStream {
    requires::expand(Gate::Always, attr.into(), item.into()).into()
}

/// Precondition checked only with `debug_assertions`.
#[proc_macro_attribute]
pub fn debug_requires(attr: TokenStream, item: TokenStream) -> TokenStream {
    requires::expand(Gate::Debug, attr.into(), item.into()).into()
}

/// Precondition checked only when the crate is compiled for its tests (`cfg(test)`).
#[proc_macro_attribute]
pub fn test_requires(attr: TokenStream, item: TokenStream) -> TokenStream {
    requires::expand(Gate::Test, attr.into(), item.into()).into()
}

/// Postcondition: `#[ensures(cond, …, "message")]`, checked on exit; `ret` is the return
/// value, `old(expr)` is `expr` evaluated on entry.
#[proc_macro_attribute]
pub fn ensures(attr: TokenStream, item: TokenStream) -> TokenStream {
    ensures::expand(Gate::Always, attr.into(), item.into()).into()
}

/// Postcondition checked only with `debug_assertions`.
#[proc_macro_attribute]
pub fn debug_ensures(attr: TokenStream, item: TokenStream) -> TokenStream {
    ensures::expand(Gate::Debug, attr.into(), item.into()).into()
}

/// Postcondition checked only when the crate is compiled for its tests (`cfg(test)`).
#[proc_macro_attribute]
pub fn test_ensures(attr: TokenStream, item: TokenStream) -> TokenStream {
    ensures::expand(Gate::Test, attr.into(), item.into()).into()
}

/// Invariant: on a method taking `self`, checked on entry and on exit (unless `self` is
/// consumed); on an `impl` block, around every method taking `self`.
#[proc_macro_attribute]
pub fn invariant(attr: TokenStream, item: TokenStream) -> TokenStream {
    invariant::expand(Gate::Always, attr.into(), item.into()).into()
}

/// Invariant checked only with `debug_assertions`.
#[proc_macro_attribute]
pub fn debug_invariant(attr: TokenStream, item: TokenStream) -> TokenStream {
    invariant::expand(Gate::Debug, attr.into(), item.into()).into()
}

/// Invariant checked only when the crate is compiled for its tests (`cfg(test)`).
#[proc_macro_attribute]
pub fn test_invariant(attr: TokenStream, item: TokenStream) -> TokenStream {
    invariant::expand(Gate::Test, attr.into(), item.into()).into()
}
