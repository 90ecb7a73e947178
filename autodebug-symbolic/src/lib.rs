//! The symbolic engine: a useful subset of Rust lowered from syn to a small IR
//! ([`ir`], [`lower`]), and model-based diagnosis over z3 ([`diagnose`], [`conflicts`]):
//! minimal sets of components that, declared abnormal, make failing runs consistent with
//! their specifications. Recorded calls are encoded into that oracle concolically, checked
//! against their traces ([`encode`]), and the path-based weakest precondition along a failing
//! run says what a diagnosed component should have computed ([`wp`]).
//!
//! The subcommand's techniques (`cargo-autodebug/src/localize/`) and repair build on it.

pub mod conflicts;
pub mod diagnose;
pub mod encode;
pub mod ir;
pub mod lower;
pub mod wp;
