//! The symbolic engine: a useful subset of Rust lowered from syn to a small IR
//! ([`ir`], [`lower`]), and model-based diagnosis over z3 ([`diagnose`], [`conflicts`]):
//! minimal sets of components that, declared abnormal, make failing runs consistent with
//! their specifications. Recorded calls are encoded into that oracle concolically, checked
//! against their traces ([`encode`]), and the path-based weakest precondition along a failing
//! run says what a diagnosed component should have computed ([`wp`]).
//!
//! Template-based repair synthesizes replacements of diagnosed components with z3 from
//! the same encoding ([`repair`]). The subcommand's techniques
//! (`cargo-autodebug/src/localize/`) and its repair stage build on it.

pub mod conflicts;
pub mod diagnose;
pub mod encode;
pub mod ir;
pub mod lower;
pub mod pathgen;
pub mod repair;
mod semantics;
pub mod steps;
pub mod wp;
