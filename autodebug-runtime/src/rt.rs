//! Hooks called by the code the macros generate. Not a public API: the macros and this
//! module change together. When neither a trace nor a plan is asked for, every hook is a call
//! of a function of the runtime (compiled optimized: a relaxed atomic load and a compare),
//! then the original value: no allocation, no lock, and the closures that describe values
//! are never called. The active path is in `recorder`.

pub use crate::protocol::{SiteKind, Value};
use crate::recorder;
pub use crate::value::{Val, val};
use std::sync::atomic::AtomicU32;

pub use crate::protocol::CONFIG_EXIT_CODE;

/// What the generated code needs from `core` and `alloc`, named through this module: the
/// generated code names `::autodebug_runtime` paths only, so that it compiles in a
/// `#![no_std]` crate (no `::std`) as in any other.
pub use core::{cfg, concat, iter::Iterator, module_path, option::Option, panic};
pub use std::vec;

/// A site, as a `static` in the instrumented code. `id` is assigned on first use.
#[derive(Debug)]
pub struct Site {
    /// Path as the compiler saw it (`file!()`).
    pub file: &'static str,
    /// 1-based line of the start of the span.
    pub line: u32,
    /// 1-based column (in characters) of the start of the span.
    pub column: u32,
    /// 1-based line of the end of the span.
    pub end_line: u32,
    /// 1-based column (in characters) just past the end of the span.
    pub end_column: u32,
    /// What the site is.
    pub kind: SiteKind,
    /// Source text of the span.
    pub code: &'static str,
    /// Path of the enclosing function.
    pub function: &'static str,
    /// Id of the site in this process's trace; 0 until the recorder first reaches it.
    pub id: AtomicU32,
    /// The last run of this process that reached the site (runs count from 1; a batch
    /// process runs many): a coverage run's hooks have nothing to do at a site this run
    /// reached already.
    pub run: AtomicU32,
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
        Site {
            file,
            line,
            column,
            end_line,
            end_column,
            kind,
            code,
            function,
            id: AtomicU32::new(0),
            run: AtomicU32::new(0),
        }
    }
}

/// The variables in scope at a site (or a call's arguments), as the generated code hands
/// them to a hook: read only when they are recorded or a plan reads them.
pub type Scope<'a> = &'a [Binding<'a>];

/// A variable in scope at a site: its name and a reference to its value, its type erased
/// behind [`Capture`]. A slice of these is what a hook reads the scope from. It is not a
/// closure, so that the generated code declares no function per site (closures made
/// instrumented builds of generic code many times slower: each was compiled once per
/// instantiation), and making one calls nothing: the generated code writes the struct, the
/// reference coerces to `&dyn Capture` (one vtable per type, not per site), and an idle
/// hook costs a few stores however unoptimized the crate is compiled.
#[derive(Clone, Copy)]
pub struct Binding<'a> {
    pub name: &'static str,
    pub value: &'a dyn Capture,
}

impl<'a> Binding<'a> {
    /// The variable `name`, whose value `value` is borrowed while the hook runs.
    #[inline]
    pub fn new<T>(name: &'static str, value: &'a T) -> Binding<'a> {
        Binding { name, value }
    }

    /// The name and the value as recorded.
    pub(crate) fn captured(&self) -> (&'static str, Val) {
        (self.name, self.value.captured())
    }
}

/// A value a hook may record, whatever its type: its type's name and its bytes, read by
/// [`crate::value`]. Implemented for every sized type, and for nothing else to name: it
/// adds no method a crate's code would see (the trait is the runtime's, and not in scope
/// there).
pub trait Capture {
    /// The value as recorded.
    fn captured(&self) -> Val;
}

impl<T> Capture for T {
    #[inline]
    fn captured(&self) -> Val {
        let reference: &T = self;
        // SAFETY: `reference` is a live thin `&T` to a value of the type named, of its size.
        unsafe {
            crate::value::capture(
                std::any::type_name::<T>(),
                (&reference as *const &T).cast::<u8>(),
                std::mem::size_of::<&T>(),
                std::mem::size_of::<T>(),
            )
        }
    }
}

/// The variables of `scope` as recorded.
#[inline(never)]
pub(crate) fn captured(scope: Scope<'_>) -> Vec<(&'static str, Val)> {
    scope.iter().map(Binding::captured).collect()
}

/// Returned by [`enter`]; records the exit of the call when dropped.
pub struct CallGuard {
    site: &'static Site,
    /// Whether the entry was recorded, so an `Exit` is due.
    recorded: bool,
}

impl Drop for CallGuard {
    #[inline]
    fn drop(&mut self) {
        if self.recorded {
            recorder::exit(self.site);
        }
    }
}

/// Entry of an instrumented function; `args` yields the argument values (called only when
/// recording).
#[inline]
pub fn enter(site: &'static Site, args: Scope<'_>) -> CallGuard {
    let recorded = !recorder::idle() && recorder::enter(site, args);
    CallGuard { site, recorded }
}

/// Which call of an instrumented function this is, for [`argument`]: nothing unless the
/// plan replaces arguments of this call.
pub struct Arguments {
    call: Option<(u32, u32)>,
}

/// Entry of an instrumented function, before its preconditions: `names` are the parameters
/// the generated code passes through [`argument`].
#[inline]
pub fn arguments(site: &'static Site, names: &[&str]) -> Arguments {
    if recorder::idle() {
        return Arguments { call: None };
    }
    Arguments {
        call: recorder::arguments(site, names),
    }
}

/// Parameter `name` of the call `args`: `value`, or the value the plan replaces it with.
#[inline]
pub fn argument<T>(args: &Arguments, name: &str, value: T) -> T {
    match args.call {
        None => value,
        Some(call) => recorder::argument(call, name, value),
    }
}

/// `v` as an argument of type `T`: a primitive, or a shared slice or `Vec` of primitives
/// (a slice is leaked: it lives until the process ends, as long as any borrow may).
pub(crate) fn argument_value<T>(v: &Value) -> Result<T, String> {
    use std::mem::size_of;
    let made = argument_made(std::any::type_name::<T>(), size_of::<T>(), v)?;
    // SAFETY: `argument_made` makes a value of the type named so: `T`.
    Ok(unsafe { crate::value::unbox::<T>(made) })
}

/// The value of [`argument_value`], boxed, for the type named `name` of `size` bytes: not
/// generic, so compiled once with the runtime.
#[inline(never)]
fn argument_made(
    name: &'static str,
    size: usize,
    v: &Value,
) -> Result<Box<dyn std::any::Any>, String> {
    use std::any::type_name;
    use std::mem::size_of;
    fn items<P>(v: &Value) -> Result<Vec<P>, String> {
        match v {
            Value::Seq { items, len } if items.len() == *len => {
                items.iter().map(crate::value::from_value::<P>).collect()
            }
            Value::Seq { len, .. } => Err(format!("a sequence of {len} elements, not all given")),
            other => Err(format!("the value {other:?} is not a sequence")),
        }
    }
    macro_rules! sequences {
        ($($p:ty),*) => {$(
            if name == type_name::<&[$p]>() && size == size_of::<&[$p]>() {
                let leaked: &'static [$p] = Box::leak(items::<$p>(v)?.into_boxed_slice());
                return Ok(Box::new(leaked));
            }
            if name == type_name::<Vec<$p>>() && size == size_of::<Vec<$p>>() {
                return Ok(Box::new(items::<$p>(v)?));
            }
            if name == type_name::<&Vec<$p>>() && size == size_of::<&Vec<$p>>() {
                let leaked: &'static Vec<$p> = Box::leak(Box::new(items::<$p>(v)?));
                return Ok(Box::new(leaked));
            }
        )*};
    }
    sequences!(
        i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, f32, f64, bool, char
    );
    crate::value::made_from_value(name, size, v)
}

/// A branch instance: returns the outcome the program goes on with (replaced or flipped by a
/// plan). `operands` yields the values of a comparison's operands, or nothing (see
/// [`crate::protocol::Expr::Operand`] for which; called only when recording or when a plan's
/// replacement at this site reads them), `scope` the variables in scope (called only when a
/// plan's replacement at this site reads them).
#[inline]
pub fn branch(
    site: &'static Site,
    outcome: bool,
    operands: &dyn Fn() -> Vec<Val>,
    scope: Scope<'_>,
) -> bool {
    if recorder::nothing_to_do(site) {
        return outcome;
    }
    recorder::branch(site, outcome, operands, scope)
}

/// The operands of `a == b` or `a != b` when recording. The bound types the second
/// evaluation of the operands as the comparison types them: an operand whose type only the
/// comparison decides (`x == None`) would otherwise be left without one.
#[inline]
pub fn eq_operands<A: ?Sized + PartialEq<B>, B: ?Sized>(a: &A, b: &B) -> Vec<Val> {
    vec![val(a), val(b)]
}

/// The operands of `a < b`, `a <= b`, `a > b` or `a >= b` (see [`eq_operands`]).
#[inline]
pub fn ord_operands<A: ?Sized + PartialOrd<B>, B: ?Sized>(a: &A, b: &B) -> Vec<Val> {
    vec![val(a), val(b)]
}

/// A component instance: returns the value the program goes on with (replaced or overridden
/// by a plan). `scope` yields the variables in scope (called only when recording or when a
/// plan's replacement at this site reads them).
#[inline]
pub fn component<T>(site: &'static Site, value: T, scope: Scope<'_>) -> T {
    if recorder::nothing_to_do(site) {
        return value;
    }
    recorder::component(site, value, scope)
}

/// One iteration of a loop.
#[inline]
pub fn iter(site: &'static Site) {
    if recorder::nothing_to_do(site) {
        return;
    }
    recorder::iter(site)
}

/// A contract check: returns `ok`.
#[inline]
pub fn contract(site: &'static Site, ok: bool) -> bool {
    if recorder::idle() {
        return ok;
    }
    recorder::contract(site, ok)
}

pub use crate::batch::test_entry;

/// Whether this run's plan asks for soft assertions (see [`assertion`]).
#[inline]
pub fn soft_assertions() -> bool {
    !recorder::idle() && recorder::soft_assertions()
}

/// An assertion statement (`assert!`, `assert_eq!`, `assert_ne!`) of a test wrapped by
/// `#[autodebug_test]`, as a closure: run as written, unless the run's plan asks for soft
/// assertions (see [`crate::protocol::Plan::soft_assertions`]). Then a failure is recorded
/// and the test goes on; the test body's end raises the first one again.
#[inline]
pub fn assertion(check: impl FnOnce()) {
    if recorder::idle() || !recorder::soft_assertions() {
        return check();
    }
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(check));
    recorder::assertion_ended(caught.err());
}
