//! `#[ensures]`, `#[debug_ensures]`, `#[test_ensures]`: postconditions, checked on exit, with
//! `ret` (the return value) and `old(expr)` (`expr` on entry). A thin front over
//! [`crate::codegen`], which generates every contract.

use crate::parse::{Gate, Kind, Ours};
use proc_macro2::TokenStream;

/// Expands a postcondition attribute with arguments `attr` on `item`.
pub(crate) fn expand(gate: Gate, attr: TokenStream, item: TokenStream) -> TokenStream {
    crate::codegen::expand(
        Ours::Contract(Kind::Ensures, gate),
        attr,
        item,
        crate::site::instrumentation_on(),
    )
}
