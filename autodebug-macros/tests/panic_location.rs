//! A panic inside instrumented code names the statement it happened in, as it does in the
//! plain code: the tool reads the location to rank the panicking site first. Its own test
//! binary, because it replaces the panic hook.

use std::cell::Cell;
use std::sync::atomic::{AtomicU32, Ordering};

static PLAIN: AtomicU32 = AtomicU32::new(0);
static INSTRUMENTED: AtomicU32 = AtomicU32::new(0);

thread_local! {
    static LOCATION: Cell<Option<u32>> = const { Cell::new(None) };
}

#[rustfmt::skip]
fn add_plain(total: &mut u8, by: u8) {
    PLAIN.store(line!(), Ordering::Relaxed); *total += by;
}

#[autodebug_runtime::autodebug(always)]
#[rustfmt::skip]
fn add_instrumented(total: &mut u8, by: u8) {
    INSTRUMENTED.store(line!(), Ordering::Relaxed); *total += by;
}

#[autodebug_runtime::autodebug(always)]
#[rustfmt::skip]
fn bump_instrumented(count: &mut u8) -> u8 {
    let mut steps = 0u8;
    while steps < 3 {
        steps += 1;
        INSTRUMENTED.store(line!(), Ordering::Relaxed); *count += 1;
    }
    steps
}

#[autodebug_runtime::autodebug(always)]
#[rustfmt::skip]
fn chain_instrumented(v: &[u8]) -> u8 {
    INSTRUMENTED.store(line!(), Ordering::Relaxed); v.iter().copied().find(|&x| x > 100).unwrap()
}

#[autodebug_runtime::autodebug(always)]
#[rustfmt::skip]
fn index_instrumented(v: &[u8], i: usize) -> u8 {
    let first = v[0];
    INSTRUMENTED.store(line!(), Ordering::Relaxed); let next = v[i + 1];
    first + next
}

#[autodebug_runtime::autodebug(always)]
#[rustfmt::skip]
fn divide_instrumented(a: u32, b: u32, c: u32) -> u32 {
    let half = a / 2;
    INSTRUMENTED.store(line!(), Ordering::Relaxed); half / (b - c)
}

#[autodebug_runtime::autodebug(always)]
#[rustfmt::skip]
fn parse_instrumented(s: &str) -> u8 {
    INSTRUMENTED.store(line!(), Ordering::Relaxed); s.trim().parse::<u8>().expect("a number")
}

fn panic_line(f: impl FnOnce() + std::panic::UnwindSafe) -> Option<u32> {
    LOCATION.with(|l| l.set(None));
    assert!(std::panic::catch_unwind(f).is_err(), "it did not panic");
    LOCATION.with(|l| l.get())
}

#[test]
fn an_overflow_in_a_compound_assignment_names_its_line() {
    std::panic::set_hook(Box::new(|info| {
        let at = info.location().map(|l| l.line());
        LOCATION.with(|l| l.set(at));
    }));
    let plain = panic_line(|| add_plain(&mut 250, 10));
    assert_eq!(plain, Some(PLAIN.load(Ordering::Relaxed)));
    let instrumented = panic_line(|| add_instrumented(&mut 250, 10));
    assert_eq!(instrumented, Some(INSTRUMENTED.load(Ordering::Relaxed)));
    let looped = panic_line(|| {
        bump_instrumented(&mut 254);
    });
    assert_eq!(looped, Some(INSTRUMENTED.load(Ordering::Relaxed)));
    let at = |f: fn()| (panic_line(f), Some(INSTRUMENTED.load(Ordering::Relaxed)));
    let (got, want) = at(|| {
        chain_instrumented(&[1, 2]);
    });
    assert_eq!(got, want, "unwrap at the end of a chain");
    let (got, want) = at(|| {
        index_instrumented(&[1, 2], 1);
    });
    assert_eq!(got, want, "an index out of bounds");
    let (got, want) = at(|| {
        divide_instrumented(4, 1, 1);
    });
    assert_eq!(got, want, "a division by zero");
    let (got, want) = at(|| {
        parse_instrumented(" x ");
    });
    assert_eq!(got, want, "expect on a parse");
    let _ = std::panic::take_hook();
}
