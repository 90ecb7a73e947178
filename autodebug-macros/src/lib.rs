//! Procedural macros of cargo-autodebug: contracts (`#[requires]`, `#[ensures]`,
//! `#[invariant]` and their `debug_`/`test_` variants) and the `#[autodebug]` instrumentation.
//! Use them through `autodebug_runtime`, which re-exports them.

use proc_macro::TokenStream;

mod instrument;
mod site;

/// Instruments a function (or every method of an `impl` block) when `cargo autodebug`
/// builds; expands to the item unchanged otherwise. `#[autodebug(always)]` instruments in
/// every build (used by the runtime's own tests).
#[proc_macro_attribute]
pub fn autodebug(attr: TokenStream, item: TokenStream) -> TokenStream {
    let always = attr.to_string().trim() == "always";
    let mut func = syn::parse_macro_input!(item as syn::ItemFn);
    if always || site::instrumentation_on() {
        let name = func.sig.ident.to_string();
        instrument::instrument_body(&func.sig, &mut func.block, &name);
    }
    quote::quote!(#func).into()
}
