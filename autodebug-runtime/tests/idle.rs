//! When no trace or plan is asked for, the hooks allocate nothing, never call the closures
//! that describe values, and hand back the program's own values. A counting global allocator
//! (per thread, so libtest's own threads do not interfere) observes the hooks; the test
//! re-runs itself in a child with the `AUTODEBUG_*` variables removed, so the runtime's
//! one-time read of the environment sees them unset whatever the caller's environment.

use autodebug_runtime::__rt::{self as rt, Site, SiteKind, Val};
use autodebug_runtime::protocol::{ENV_MAX_EVENTS, ENV_PLAN, ENV_TRACE, ENV_TRACE_MODE};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::process::Command;

const CHILD: &str = "AUTODEBUG_RT_TEST_CHILD";

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

struct Counting;

// SAFETY: forwards to the system allocator; the counter is a const-initialized thread local
// without a destructor, so touching it never allocates.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
        // SAFETY: the caller's contract is `System`'s.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn allocations() -> usize {
    ALLOCATIONS.with(Cell::get)
}

static FN: Site = Site::new(file!(), 1, 1, 1, 2, SiteKind::Fn, "f", "idle::f");
static IF: Site = Site::new(file!(), 2, 1, 2, 2, SiteKind::If, "c", "idle::f");
static LET: Site = Site::new(file!(), 3, 1, 3, 2, SiteKind::Let, "v", "idle::f");
static LOOP: Site = Site::new(file!(), 4, 1, 4, 2, SiteKind::Loop, "for", "idle::f");
static REQ: Site = Site::new(file!(), 5, 1, 5, 2, SiteKind::Requires, "ok", "idle::f");

fn never_values() -> Vec<Val> {
    panic!("an idle hook called a closure")
}

/// One pass over every hook, as instrumented code makes it.
fn hooks(i: u64, text: String) -> (u64, String) {
    let _guard = rt::enter(&FN, &[rt::Binding::new("i", &i)]);
    let mut total = 0;
    for k in 0..i {
        rt::iter(&LOOP);
        if rt::branch(&IF, k % 2 == 0, &never_values, &[rt::Binding::new("k", &k)]) {
            total = rt::component(&LET, total + k, &[rt::Binding::new("k", &k)]);
        }
        assert!(rt::contract(&REQ, total <= k * k + k));
    }
    let text = rt::component(&LET, text, &[]);
    (total, text)
}

#[test]
fn idle_hooks_do_not_allocate() {
    if std::env::var_os(CHILD).is_none() {
        let mut cmd = Command::new(std::env::current_exe().unwrap());
        cmd.args(["idle_hooks_do_not_allocate", "--exact", "--nocapture"]);
        for var in [ENV_TRACE, ENV_PLAN, ENV_TRACE_MODE, ENV_MAX_EVENTS] {
            cmd.env_remove(var);
        }
        let out = cmd.env(CHILD, "1").output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(stdout.contains("idle hooks checked"), "{stdout}");
        return;
    }
    // The first hook call reads the environment (that may allocate, once).
    let text = String::from("kept");
    let (_, text) = hooks(1, text);
    let before = allocations();
    let (total, text) = hooks(1000, text);
    let after = allocations();
    assert_eq!(after - before, 0, "idle hooks allocated");
    assert_eq!((total, text.as_str()), ((0..1000).step_by(2).sum(), "kept"));
    // The counter does see allocations on this thread.
    let boxed = Box::new(7u64);
    assert_eq!(allocations(), after + 1);
    drop(boxed);
    println!("idle hooks checked");
}
