//! The z3 conflict oracle on its own terms: fresh copies per test, the degenerate models
//! (nothing wrong, nothing explicable), sorts chosen by the encoder, and a check that runs
//! into its time limit ending as "undecided" rather than as an answer.

use std::collections::BTreeSet;
use std::time::Instant;

use autodebug_symbolic::conflicts::{ComponentId, Options, Role, Test, Value, Z3Oracle};
use autodebug_symbolic::diagnose::{Bounds, ConflictOracle, Verdict, diagnose};
use z3::ast::{BV, Bool, Int};

#[test]
fn each_test_gets_fresh_copies_and_shares_only_the_ab_literals() {
    let mut oracle = Z3Oracle::default();
    let c = oracle.component("c: r = x");
    // Two runs that give `x` different values: one shared `x` would be contradictory.
    for (input, name) in [(1, "x = 1"), (2, "x = 2")] {
        let t = oracle.test(name, Role::Passing);
        let x = t.int("x");
        t.assert(&x.eq(Int::from_i64(input)));
        let r = t.assign(c, "r", &x);
        t.assert(&r.eq(Int::from_i64(input)));
    }
    let names: Vec<String> = {
        let t = oracle.test("third", Role::Passing);
        vec![t.name("x"), t.name("r")]
    };
    assert_eq!(names, ["t2!x", "t2!r"]);
    assert_eq!(oracle.check(&BTreeSet::new()), Verdict::Consistent);

    // The `ab` literal is one: pinning it to "normal" in one place pins it everywhere.
    let ab = oracle.ab(c).clone();
    let t = oracle.test("forces c abnormal", Role::Failing);
    t.assert(&ab);
    assert!(matches!(
        oracle.check(&BTreeSet::new()),
        Verdict::Conflict(k) if k.contains(&c)
    ));
}

#[test]
fn nothing_wrong_gives_the_empty_diagnosis() {
    let mut oracle = Z3Oracle::default();
    let c = oracle.component("r = x + 1");
    let t = oracle.test("x = 1", Role::Passing);
    let x = t.int("x");
    t.assert(&x.eq(Int::from_i64(1)));
    let r = t.assign(c, "r", &(&x + Int::from_i64(1)));
    t.assert(&r.eq(Int::from_i64(2)));
    let result = diagnose(&mut oracle, &Bounds::default());
    assert_eq!(result.minimal, vec![BTreeSet::new()]);
    assert!(result.is_complete());
}

#[test]
fn a_specification_that_contradicts_the_inputs_has_no_diagnosis() {
    // The expected value follows from the inputs alone, past every component: declaring
    // components abnormal cannot help.
    let mut oracle = Z3Oracle::default();
    let c = oracle.component("r = x + 1");
    let t = oracle.test("x = 1", Role::Failing);
    let x = t.int("x");
    t.assert(&x.eq(Int::from_i64(1)));
    let _r = t.assign(c, "r", &(&x + Int::from_i64(1)));
    t.assert(&x.eq(Int::from_i64(2)));
    let result = diagnose(&mut oracle, &Bounds::default());
    assert!(result.minimal.is_empty());
    assert_eq!(result.conflicts, vec![BTreeSet::new()]);
    assert!(result.is_complete());
}

/// `let r = x + 1; assert!(r > 0)` at `x = i32::MAX`, built by the same code over the sort
/// the caller picks (`fresh` makes `x`, `constant` literals).
fn increment<T: Value>(
    fresh: impl Fn(&Test<'_>) -> T,
    constant: impl Fn(i64) -> T,
    add: impl Fn(&T, &T) -> T,
    greater: impl Fn(&T, &T) -> Bool,
) -> (Z3Oracle, ComponentId) {
    let mut oracle = Z3Oracle::default();
    let c = oracle.component("r = x + 1");
    let t = oracle.test("x = i32::MAX", Role::Failing);
    let x = fresh(&t);
    t.assert(&x.eq(constant(i64::from(i32::MAX))));
    let r = t.assign(c, "r", &add(&x, &constant(1)));
    t.assert(&greater(&r, &constant(0)));
    (oracle, c)
}

#[test]
fn the_encoder_picks_the_sort_and_bit_vectors_see_the_wraparound() {
    // Mathematical integers: i32::MAX + 1 > 0; nothing to diagnose.
    let (mut integers, _) = increment(|t| t.int("x"), Int::from_i64, |a, b| a + b, |a, b| a.gt(b));
    let result = diagnose(&mut integers, &Bounds::default());
    assert_eq!(result.minimal, vec![BTreeSet::new()]);

    // 32-bit bit-vectors, as Rust's i32: x + 1 wraps to i32::MIN, the assertion fails, and
    // the addition is the diagnosis.
    let (mut words, c) = increment(
        |t| t.bv("x", 32),
        |n| BV::from_i64(n, 32),
        |a, b| a.bvadd(b),
        |a, b| a.bvsgt(b),
    );
    let result = diagnose(&mut words, &Bounds::default());
    assert_eq!(result.minimal, vec![BTreeSet::from([c])]);
}

#[test]
fn a_check_that_times_out_is_undecided_and_reported() {
    // Proving by bit-blasting that a 64-bit prime has no factors: far beyond 200 ms.
    let mut oracle = Z3Oracle::new(Options {
        timeout_ms: 200,
        ..Options::default()
    });
    let c = oracle.component("n = p * q");
    let t = oracle.test("n = 2^64 - 59, a prime", Role::Failing);
    let (p, q) = (t.bv("p", 64), t.bv("q", 64));
    let one = BV::from_u64(1, 64);
    t.assert(&Bool::and(&[
        p.bvugt(&one),
        q.bvugt(&one),
        p.bvmul_no_overflow(&q, false),
    ]));
    let n = t.assign(c, "n", &p.bvmul(&q));
    t.assert(&n.eq(BV::from_u64(u64::MAX - 58, 64)));

    let started = Instant::now();
    let result = diagnose(&mut oracle, &Bounds::default());
    let elapsed = started.elapsed();
    println!("{result:?} in {elapsed:?}");
    // Nothing is claimed: not the empty diagnosis (the root check did not finish), and
    // not {c}, which the DAG never reached without a conflict to branch on.
    assert!(result.minimal.is_empty());
    assert_eq!(result.undecided.len(), 1);
    assert_eq!(result.undecided[0].abnormal, BTreeSet::new());
    assert!(
        result.undecided[0].reason.contains("time limit of 200 ms"),
        "{}",
        result.undecided[0].reason
    );
    assert!(!result.is_complete());
    assert!(
        elapsed.as_secs() < 10,
        "the time limit was not applied: {elapsed:?}"
    );
}
