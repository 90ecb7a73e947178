//! `#[requires]`, `#[debug_requires]`, `#[test_requires]`: preconditions, checked on entry.
//! A thin front over [`crate::codegen`], which generates every contract.

use crate::parse::{Gate, Kind, Ours};
use proc_macro2::TokenStream;

/// Expands a precondition attribute with arguments `attr` on `item`.
pub(crate) fn expand(gate: Gate, attr: TokenStream, item: TokenStream) -> TokenStream {
    crate::codegen::expand(
        Ours::Contract(Kind::Requires, gate),
        attr,
        item,
        crate::site::instrumentation_on(),
    )
}
