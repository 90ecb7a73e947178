//! Behaviour of the contract macros as a user crate sees them (through `autodebug_runtime`):
//! each feature holds when satisfied and panics with the exact message when violated. The
//! whole file compiles under `deny(warnings)`, so the expansion must not add warnings.

#![deny(warnings)]

use autodebug_runtime::{
    autodebug, debug_ensures, debug_invariant, debug_requires, ensures, invariant, requires,
    test_ensures, test_invariant, test_requires,
};
use std::panic::{UnwindSafe, catch_unwind};

/// The message of the panic `f` raises.
fn panic_message<R>(f: impl FnOnce() -> R + UnwindSafe) -> String {
    let payload = match catch_unwind(f) {
        Ok(_) => panic!("expected a panic"),
        Err(payload) => payload,
    };
    if let Some(s) = payload.downcast_ref::<String>() {
        return s.clone();
    }
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .expect("panic payload is a string")
}

// ---------------------------------------------------------------- requires / ensures

#[requires(x > 0, "x must be positive")]
fn halve(x: i32) -> i32 {
    x / 2
}

#[requires(x > 0)]
fn unmessaged(x: i32) -> i32 {
    x
}

#[test]
fn requires_passes_when_satisfied() {
    assert_eq!(halve(8), 4);
    assert_eq!(unmessaged(3), 3);
}

#[test]
#[should_panic(expected = "Pre-condition of halve violated: x must be positive: x > 0")]
fn requires_panics_with_message() {
    halve(-2);
}

#[test]
fn requires_messages_are_exact() {
    assert_eq!(
        panic_message(|| halve(0)),
        "Pre-condition of halve violated: x must be positive: x > 0"
    );
    assert_eq!(
        panic_message(|| unmessaged(0)),
        "Pre-condition of unmessaged violated: x > 0"
    );
}

/// Buggy on purpose when `bug` is set: the postcondition catches it.
#[ensures(ret >= a && ret >= b, "ret is the maximum")]
#[ensures(ret == a || ret == b)]
fn max(a: i32, b: i32, bug: bool) -> i32 {
    if bug { a.min(b) } else { a.max(b) }
}

#[test]
fn ensures_with_ret() {
    assert_eq!(max(2, 5, false), 5);
    assert_eq!(
        panic_message(|| max(2, 5, true)),
        "Post-condition of max violated: ret is the maximum: ret >= a && ret >= b"
    );
}

#[ensures(v.len() == old(v.len()) + 1, "one more element")]
#[ensures(v[v.len() - 1] == x)]
#[ensures(forall i in 0..old(v.len()) => v[i] == old(v.clone())[i])]
fn push(v: &mut Vec<i32>, x: i32, bug: bool) {
    if bug {
        v.insert(0, x);
    } else {
        v.push(x);
    }
}

#[test]
fn ensures_with_old() {
    let mut v = vec![1, 2];
    push(&mut v, 3, false);
    assert_eq!(v, [1, 2, 3]);
    let mut v = vec![1, 2];
    // The element pushed first is 9, not the last: the second ensures fails first.
    let msg = panic_message(move || push(&mut v, 9, true));
    assert_eq!(msg, "Post-condition of push violated: v[v.len() - 1] == x");
    // Last element right, but the old ones moved.
    let mut v = vec![5, 7];
    let msg = panic_message(move || push(&mut v, 7, true));
    assert_eq!(
        msg,
        "Post-condition of push violated: forall i in 0..old(v.len()) => v[i] == old(v.clone())[i]"
    );
}

static CHECKS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

fn counted() -> bool {
    CHECKS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    true
}

#[requires(counted())]
#[ensures(counted())]
#[requires(counted())]
fn checked_thrice() {}

#[test]
fn several_attributes_make_one_wrapper() {
    let before = CHECKS.load(std::sync::atomic::Ordering::SeqCst);
    checked_thrice();
    // Two requires and one ensures, each checked exactly once.
    assert_eq!(CHECKS.load(std::sync::atomic::Ordering::SeqCst) - before, 3);
}

// ---------------------------------------------------------------- implication, quantifiers

#[requires(x < 0 -> y > 0, "negative x needs positive y")]
fn implication(x: i32, y: i32) -> i32 {
    x + y
}

#[requires(a -> b -> c)]
fn chained(a: bool, b: bool, c: bool) -> bool {
    c
}

#[test]
fn implication_both_ways() {
    assert_eq!(implication(1, -5), -4); // premise false
    assert_eq!(implication(-1, 5), 4); // premise and conclusion true
    assert_eq!(
        panic_message(|| implication(-1, -1)),
        "Pre-condition of implication violated: negative x needs positive y: x < 0 -> y > 0"
    );
    // Right-associative: a -> (b -> c).
    assert!(!chained(true, false, false));
    assert!(!chained(false, true, false));
    assert_eq!(
        panic_message(|| chained(true, true, false)),
        "Pre-condition of chained violated: a -> b -> c"
    );
}

/// The AutoDebug paper's postconditions: the result bounds every element and is one of them.
#[requires(n > 0 && n <= a.len())]
#[ensures(forall i in 0..n => ret >= a[i], "upper bound")]
#[ensures(exists i in 0..n => ret == a[i], "attained")]
fn max_of(a: &[i32], n: usize, bug: u8) -> i32 {
    let mut s = a[0];
    for &x in &a[1..n] {
        if x > s {
            s = x;
        }
    }
    match bug {
        1 => s - 1,
        2 => s + 1,
        _ => s,
    }
}

#[test]
fn forall_and_exists() {
    let a = [3, 9, 4];
    assert_eq!(max_of(&a, 3, 0), 9);
    assert_eq!(
        panic_message(|| max_of(&a, 3, 1)),
        "Post-condition of max_of violated: upper bound: forall i in 0..n => ret >= a[i]"
    );
    assert_eq!(
        panic_message(|| max_of(&a, 3, 2)),
        "Post-condition of max_of violated: attained: exists i in 0..n => ret == a[i]"
    );
}

#[ensures(forall i in 0..=k => exists j in 0..ret.len() => ret[j] == i && (j > 0 -> ret[j - 1] < ret[j]))]
fn up_to(k: u8, bug: bool) -> Vec<u8> {
    let mut v: Vec<u8> = (0..=k).collect();
    if bug {
        v.swap(0, 1);
    }
    v
}

#[requires(forall i in 1..v.len() => v[i - 1] <= v[i] -> true)]
#[requires(forall i in 1..v.len() => v[i - 1] <= v[i], "sorted")]
fn sorted(v: &[i64]) -> bool {
    !v.is_empty()
}

#[test]
fn nested_quantifiers_and_implications() {
    assert_eq!(up_to(3, false), [0, 1, 2, 3]);
    assert_eq!(
        panic_message(|| up_to(3, true)),
        "Post-condition of up_to violated: forall i in 0..=k => exists j in 0..ret.len() => ret[j] == i && (j > 0 -> ret[j - 1] < ret[j])"
    );
    assert!(sorted(&[1, 2, 2]));
    assert!(!sorted(&[]));
    assert_eq!(
        panic_message(|| sorted(&[2, 1])),
        "Pre-condition of sorted violated: sorted: forall i in 1..v.len() => v[i - 1] <= v[i]"
    );
}

// ---------------------------------------------------------------- early exits

#[ensures(ret >= 0, "never negative")]
fn abs_early(x: i64, bug: bool) -> i64 {
    if x >= 0 {
        return x;
    }
    if bug {
        return x;
    }
    -x
}

#[ensures(ret.is_ok() -> *ret.as_ref().unwrap() > 0)]
fn parse_positive(s: &str, bug: bool) -> Result<i32, std::num::ParseIntError> {
    let n: i32 = s.parse()?;
    if bug { Ok(-n) } else { Ok(n) }
}

#[ensures(ret.is_none() -> x.is_none())]
fn plus_one(x: Option<u8>) -> Option<u8> {
    let y = x?;
    y.checked_add(1)
}

#[test]
fn early_return_and_question_mark() {
    assert_eq!(abs_early(-3, false), 3);
    assert_eq!(abs_early(3, true), 3);
    // The early `return` still goes through the postcondition.
    assert_eq!(
        panic_message(|| abs_early(-3, true)),
        "Post-condition of abs_early violated: never negative: ret >= 0"
    );
    assert_eq!(parse_positive("5", false), Ok(5));
    // `?` leaves with the error, and the postcondition sees it.
    assert!(parse_positive("x", false).is_err());
    assert_eq!(
        panic_message(|| parse_positive("5", true)),
        "Post-condition of parse_positive violated: ret.is_ok() -> *ret.as_ref().unwrap() > 0"
    );
    assert_eq!(plus_one(None), None);
    assert_eq!(plus_one(Some(1)), Some(2));
    assert_eq!(
        panic_message(|| plus_one(Some(255))),
        "Post-condition of plus_one violated: ret.is_none() -> x.is_none()"
    );
}

// ---------------------------------------------------------------- methods

#[derive(Debug, Clone)]
struct Stack<T> {
    items: Vec<T>,
    cap: usize,
}

#[invariant(self.items.len() <= self.cap, "within capacity")]
impl<T: Clone + PartialEq> Stack<T> {
    /// Constructors have no `self`: the impl invariant does not apply.
    fn new(cap: usize) -> Self {
        Stack {
            items: Vec::new(),
            cap,
        }
    }

    #[requires(self.items.len() < self.cap, "not full")]
    #[ensures(self.items.len() == old(self.items.len()) + 1)]
    #[ensures(self.peek().is_some())]
    fn push(&mut self, x: T) {
        self.items.push(x);
    }

    /// Breaks the invariant on purpose.
    fn overfill(&mut self, x: T) {
        self.items.push(x);
    }

    #[ensures(ret.is_some() -> self.items.len() == old(self.items.len()) - 1)]
    fn pop(&mut self) -> Option<T> {
        self.items.pop()
    }

    #[ensures(ret.is_none() == self.items.is_empty())]
    fn peek(&self) -> Option<&T> {
        self.items.last()
    }

    #[requires(i < self.items.len())]
    #[ensures(*ret == old(self.items[i].clone()))]
    fn get_mut(&mut self, i: usize) -> &mut T {
        &mut self.items[i]
    }

    /// Consumes `self`: checked on entry only.
    #[ensures(ret.len() <= cap)]
    fn into_vec(self, cap: usize) -> Vec<T> {
        self.items
    }
}

#[test]
fn methods_with_self_in_every_form() {
    let mut s = Stack::new(2);
    s.push(1);
    s.push(2);
    assert_eq!(s.peek(), Some(&2));
    *s.get_mut(0) = 7;
    assert_eq!(s.pop(), Some(2));
    assert_eq!(s.clone().into_vec(5), [7]);
    let full = {
        let mut s = Stack::new(1);
        s.push(1);
        s
    };
    let f = full.clone();
    assert_eq!(
        panic_message(move || f.clone().push(2)),
        "Pre-condition of push violated: not full: self.items.len() < self.cap"
    );
    // The invariant is checked after `overfill` ...
    let f = full.clone();
    assert_eq!(
        panic_message(move || f.clone().overfill(2)),
        "Invariant of overfill violated: within capacity: self.items.len() <= self.cap"
    );
    // ... and before any later method.
    let broken = Stack {
        items: vec![1, 2],
        cap: 1,
    };
    assert_eq!(
        panic_message(move || broken.into_vec(9)),
        "Invariant of into_vec violated: within capacity: self.items.len() <= self.cap"
    );
    assert_eq!(
        panic_message(move || full.into_vec(0)),
        "Post-condition of into_vec violated: ret.len() <= cap"
    );
}

struct Counter {
    n: u32,
}

impl Counter {
    #[invariant(self.n < 3)]
    #[ensures(ret == self.n)]
    fn bump(&mut self) -> u32 {
        self.n += 1;
        self.n
    }
}

#[test]
fn method_level_invariant() {
    let mut c = Counter { n: 0 };
    assert_eq!(c.bump(), 1);
    assert_eq!(c.bump(), 2);
    assert_eq!(
        panic_message(move || c.bump()),
        "Invariant of bump violated: self.n < 3"
    );
}

// ---------------------------------------------------------------- generics, references, signatures

#[requires(!items.is_empty(), "non-empty")]
#[ensures(forall i in 0..items.len() => items[i] <= *ret)]
fn largest<'a, T>(items: &'a [T]) -> &'a T
where
    T: PartialOrd,
{
    let mut best = &items[0];
    for x in items {
        if x > best {
            best = x;
        }
    }
    best
}

#[ensures(ret.len() == s.len())]
fn trimmed(s: &str) -> &str {
    s.trim()
}

#[ensures(ret.clone().count() == n)]
fn evens(n: usize) -> impl Iterator<Item = usize> + Clone {
    (0..n).map(|i| i * 2)
}

#[requires(!p.is_null())]
unsafe fn read_raw(p: *const u32) -> u32 {
    unsafe { *p }
}

/// Doc comments and other attributes stay on the function.
#[inline]
#[must_use]
#[ensures(ret > old(x) && ret == x)]
pub(crate) fn documented(mut x: u32) -> u32 {
    x += 1;
    x
}

#[ensures(ret == Ok(x))]
fn mut_param_with_question(mut x: u32, fail: bool) -> Result<u32, String> {
    x += 1;
    if fail {
        Err("failed".to_string())?;
    }
    Ok(x)
}

#[test]
fn generics_references_and_signatures() {
    assert_eq!(*largest(&[1, 5, 2]), 5);
    assert_eq!(*largest(&["a", "c", "b"]), "c");
    assert_eq!(
        panic_message(|| *largest::<u8>(&[])),
        "Pre-condition of largest violated: non-empty: !items.is_empty()"
    );
    assert_eq!(trimmed("ab"), "ab");
    assert_eq!(
        panic_message(|| trimmed(" ab").len()),
        "Post-condition of trimmed violated: ret.len() == s.len()"
    );
    assert_eq!(evens(3).collect::<Vec<_>>(), [0, 2, 4]);
    let x = 5;
    assert_eq!(unsafe { read_raw(&x) }, 5);
    assert_eq!(
        panic_message(|| unsafe { read_raw(std::ptr::null()) }),
        "Pre-condition of read_raw violated: !p.is_null()"
    );
    assert_eq!(documented(1), 2);
    assert_eq!(mut_param_with_question(1, false), Ok(2));
    assert_eq!(
        panic_message(|| mut_param_with_question(1, true)),
        "Post-condition of mut_param_with_question violated: ret == Ok(x)"
    );
}

// ---------------------------------------------------------------- async

#[requires(x > 0)]
#[ensures(ret == x * 2)]
async fn double(x: u32, bug: bool) -> u32 {
    std::future::ready(()).await;
    if bug { x } else { x * 2 }
}

#[ensures(ret.is_some())]
async fn async_question(x: Option<u32>) -> Option<u32> {
    let y = x?;
    std::future::ready(Some(y)).await
}

/// Polls a future that never waits to completion.
fn block_on<F: std::future::Future>(f: F) -> F::Output {
    let mut f = std::pin::pin!(f);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    match f.as_mut().poll(&mut cx) {
        std::task::Poll::Ready(v) => v,
        std::task::Poll::Pending => panic!("the future waited"),
    }
}

#[test]
fn async_fns() {
    assert_eq!(block_on(double(2, false)), 4);
    assert_eq!(
        panic_message(|| block_on(double(0, false))),
        "Pre-condition of double violated: x > 0"
    );
    assert_eq!(
        panic_message(|| block_on(double(2, true))),
        "Post-condition of double violated: ret == x * 2"
    );
    assert_eq!(block_on(async_question(Some(1))), Some(1));
    assert_eq!(
        panic_message(|| block_on(async_question(None))),
        "Post-condition of async_question violated: ret.is_some()"
    );
}

// ---------------------------------------------------------------- debug_ / test_ variants

#[debug_requires(x != 0, "debug only")]
fn debug_checked(x: u8) -> u8 {
    x
}

#[debug_ensures(ret == old(x) + 1)]
fn debug_old(x: u8) -> u8 {
    x
}

#[test_requires(x != 0)]
#[test_ensures(ret != old(x))]
fn test_checked(x: u8) -> u8 {
    x
}

struct Gauge {
    level: i32,
}

#[debug_invariant(self.level >= 0)]
#[test_invariant(self.level <= 10)]
impl Gauge {
    fn add(&mut self, d: i32) {
        self.level += d;
    }
}

#[test]
fn debug_and_test_variants() {
    // Integration tests are compiled with `cfg(test)`; `debug_assertions` follows the profile.
    const { assert!(cfg!(test)) };
    assert_eq!(debug_checked(1), 1);
    if cfg!(debug_assertions) {
        assert_eq!(
            panic_message(|| debug_checked(0)),
            "Pre-condition of debug_checked violated: debug only: x != 0"
        );
        assert_eq!(
            panic_message(|| debug_old(1)),
            "Post-condition of debug_old violated: ret == old(x) + 1"
        );
        let mut g = Gauge { level: 0 };
        assert_eq!(
            panic_message(move || g.add(-1)),
            "Invariant of add violated: self.level >= 0"
        );
    } else {
        assert_eq!(debug_checked(0), 0);
        assert_eq!(debug_old(1), 1);
    }
    assert_eq!(
        panic_message(|| test_checked(0)),
        "Pre-condition of test_checked violated: x != 0"
    );
    assert_eq!(
        panic_message(|| test_checked(1)),
        "Post-condition of test_checked violated: ret != old(x)"
    );
    let mut g = Gauge { level: 5 };
    g.add(5);
    assert_eq!(
        panic_message(move || g.add(1)),
        "Invariant of add violated: self.level <= 10"
    );
}

// ---------------------------------------------------------------- #[autodebug]

/// `always` instruments in every build; the contract checks still hold and fail as usual.
#[autodebug(always)]
#[requires(n < 100)]
fn instrumented(n: u32) -> u32 {
    let mut s = 0;
    for i in 0..n {
        if i % 2 == 0 {
            s += i;
        }
    }
    s
}

struct Acc {
    total: u64,
}

#[autodebug(always)]
#[invariant(self.total < 1000)]
impl Acc {
    fn add(&mut self, x: u64) -> u64 {
        if x > 10 {
            self.total += x;
        } else {
            self.total += 1;
        }
        self.total
    }
}

#[test]
fn autodebug_with_contracts() {
    assert_eq!(instrumented(5), 6);
    assert_eq!(
        panic_message(|| instrumented(100)),
        "Pre-condition of instrumented violated: n < 100"
    );
    let mut a = Acc { total: 0 };
    assert_eq!(a.add(20), 20);
    assert_eq!(a.add(1), 21);
    assert_eq!(
        panic_message(move || a.add(999)),
        "Invariant of add violated: self.total < 1000"
    );
}
