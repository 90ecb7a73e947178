//! Runtime of cargo-autodebug. A crate that uses contracts or `#[autodebug]` depends on this
//! crate alone: it re-exports the macros, and holds the hooks the instrumented code calls,
//! the trace recorder and the plan interpreter.

pub use autodebug_macros::*;

#[cfg(feature = "harness")]
pub mod harness;
pub mod protocol;

mod batch;

mod expr;
mod json;
mod plan;
mod recorder;
mod value;
mod wire;

#[doc(hidden)]
#[path = "rt.rs"]
pub mod __rt;
