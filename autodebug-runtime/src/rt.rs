//! Hooks called by the code the macros generate. Not a public API: the macros and this
//! module change together. Every hook is a few instructions when no trace or plan is active.

pub use crate::protocol::{SiteKind, Value};
use std::sync::atomic::AtomicU32;

/// A site, as a `static` in the instrumented code. `id` is assigned on first use.
#[derive(Debug)]
pub struct Site {
    pub file: &'static str,
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
    pub end_column: u32,
    pub kind: SiteKind,
    pub code: &'static str,
    pub function: &'static str,
    pub id: AtomicU32,
}

impl Site {
    /// A site (used in `static` initializers by generated code).
    #[allow(clippy::too_many_arguments)]
    pub const fn new(
        file: &'static str,
        line: u32,
        column: u32,
        end_line: u32,
        end_column: u32,
        kind: SiteKind,
        code: &'static str,
        function: &'static str,
    ) -> Site {
        Site { file, line, column, end_line, end_column, kind, code, function, id: AtomicU32::new(0) }
    }
}

/// Returned by [`enter`]; records the exit of the call when dropped.
pub struct CallGuard {
    _site: &'static Site,
}

impl Drop for CallGuard {
    fn drop(&mut self) {}
}

/// Entry of an instrumented function; `args` yields the argument values (called only when
/// recording).
#[inline(always)]
pub fn enter(site: &'static Site, _args: impl FnOnce() -> Vec<(&'static str, Value)>) -> CallGuard {
    CallGuard { _site: site }
}

/// A branch instance: returns the outcome the program goes on with (flipped by a plan).
#[inline(always)]
pub fn branch(_site: &'static Site, outcome: bool, _operands: impl FnOnce() -> Vec<Value>) -> bool {
    outcome
}

/// A component instance: returns the value the program goes on with (overridden by a plan).
#[inline(always)]
pub fn component<T>(_site: &'static Site, value: T, _scope: impl FnOnce() -> Vec<(&'static str, Value)>) -> T {
    value
}

/// One iteration of a loop.
#[inline(always)]
pub fn iter(_site: &'static Site) {}

/// A contract check: returns `ok`.
#[inline(always)]
pub fn contract(_site: &'static Site, ok: bool) -> bool {
    ok
}

/// The recorded value of any variable (by its type's name; never fails to compile).
pub fn val<T: ?Sized>(_x: &T) -> Value {
    Value::Opaque { ty: std::any::type_name::<T>().to_string() }
}
