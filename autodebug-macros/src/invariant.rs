//! `#[invariant]`, `#[debug_invariant]`, `#[test_invariant]`: conditions on `self` checked
//! around a method, or around every method taking `self` when attached to an `impl` block.
//! A thin front over [`crate::codegen`], which generates every contract.

use crate::parse::{Gate, Kind, Ours};
use proc_macro2::TokenStream;

/// Expands an invariant attribute with arguments `attr` on `item` (a method or an `impl`).
pub(crate) fn expand(gate: Gate, attr: TokenStream, item: TokenStream) -> TokenStream {
    crate::codegen::expand(
        Ours::Contract(Kind::Invariant, gate),
        attr,
        item,
        crate::site::instrumentation_on(),
    )
}
