//! The instrumentation of a function body: branch conditions, components, returns, loop
//! iterations and the call entry become calls of the runtime's hooks.

/// Rewrites `block` (the body of a function with signature `sig`) so that it reports its
/// sites to the runtime. `function` is the name shown for the function (`max`, `Stack::push`).
pub(crate) fn instrument_body(_sig: &syn::Signature, _block: &mut syn::Block, _function: &str) {}
