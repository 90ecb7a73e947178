//! The oracle: what "passing" means for each failing test, stated so that a technique can
//! encode it. For every failing test it names the call the failure is about (the top-level
//! call in which instrumented code panicked, or whose returned value the test's assertion
//! rejected), what that call should have done (return the value a failing `assert_eq!`
//! expected, not panic, keep a contract), and the calls before it whose results the test
//! accepted (positive examples). An expected return value counts as *confirmed* only when a
//! rerun with the call's return overridden by it passes.

pub mod assertion;
pub mod calls;
pub mod soft;
pub mod symbolic;

use autodebug_runtime::protocol::{Override, PLAN_VERSION, Plan, Record, SiteKind, Target, Value};

use crate::baseline::BaselineResult;
use crate::console::Console;
use crate::engine::Recorder;
use crate::engine::{self};
use crate::model::{
    AcceptedCall, Arg, LaterCall, Location, OracleEntry as Entry, Outcome, Role, TestId,
};
use crate::trace::{RawTrace, RecordedTrace};
use assertion::{Comparison, SourceComparison, describe, parse_like};
pub use calls::{Call, End, top_level_calls};

/// What the oracle stage looks at.
pub struct Context<'a> {
    /// Every test's baseline (which failures are deterministic, and their output).
    pub baseline: &'a [BaselineResult],
    /// The recorded traces; the oracles are formed from the failing ones.
    pub traces: &'a [RecordedTrace],
    /// Reruns a test under a plan (the confirmation).
    pub rerun: &'a Recorder<'a>,
}

/// What passing means for one failing test.
#[derive(Debug, Clone)]
pub struct Oracle {
    pub test: TestId,
    /// Index of the test's failing trace in [`Context::traces`]; the event ranges of
    /// [`Oracle::call`] and [`Oracle::accepted`] index its events.
    pub trace: usize,
    /// The top-level call the failure is about; `None` when none can be named (`why` says
    /// why).
    pub call: Option<Call>,
    /// What that call should have done; `None` when the test does not tell (`why`).
    pub expectation: Option<Expectation>,
    /// The top-level calls that returned before the failing call: results the test went on
    /// with, which a diagnosis must keep.
    pub accepted: Vec<Call>,
    /// A rerun with the call's return overridden by the expected value passed.
    pub confirmed: bool,
    /// Reruns made to confirm the oracle.
    pub reruns: usize,
    /// How the confirming rerun failed later in the test: fixing this call is necessary but
    /// not sufficient.
    pub later_failure: Option<String>,
    /// Why the oracle is not confirmed, or not formed.
    pub why: Option<String>,
    /// The calls the test made past the failing one, in a rerun that went on past failed
    /// assertions (see [`soft`]).
    pub later: Option<soft::Later>,
    /// When both sides of the failed `assert_eq!` are values calls returned, the other
    /// side's call: either may be the wrong one (a test comparing two ways of computing
    /// the same thing), and it takes the oracle's place when its rerun confirms and the
    /// first one's does not.
    pub other_side: Option<Box<OtherSide>>,
}

/// The other call of a failed comparison of two calls' values (see [`Oracle::other_side`]).
#[derive(Debug, Clone)]
pub struct OtherSide {
    pub call: Call,
    /// It should return what the first call returned.
    pub expectation: Expectation,
    /// The calls that returned before it.
    pub accepted: Vec<Call>,
}

/// What the failing call should have done.
#[derive(Debug, Clone, PartialEq)]
pub enum Expectation {
    /// Return this value (the other side of the failing `assert_eq!`).
    Returns(Value),
    /// Return any value but this one (the failing `assert_ne!`; the value it returned).
    ReturnsOtherThan(Value),
    /// Return something else than this value, which it returned and the test rejected
    /// without saying what it wanted (an `assert!`, an `unwrap`, a comparison of a value
    /// computed from it).
    Rejected(Value),
    /// Not panic (it panicked with `message`: an index out of bounds, an overflow, an
    /// `assert!` in the body).
    NoPanic { message: String },
    /// Keep a contract it violated (its own, or one of a function it called).
    Contract {
        /// The contract's site (id in the trace).
        site: u32,
        /// `requires`, `ensures` or `invariant`.
        kind: SiteKind,
        /// The function the contract belongs to.
        function: String,
        /// The violated condition, as written.
        condition: String,
        /// The violation's panic message.
        message: String,
    },
}

impl Expectation {
    /// The word for the report's `kind`.
    pub fn kind(&self) -> &'static str {
        match self {
            Expectation::Returns(_)
            | Expectation::ReturnsOtherThan(_)
            | Expectation::Rejected(_) => "returns",
            Expectation::NoPanic { .. } => "no-panic",
            Expectation::Contract { .. } => "contract",
        }
    }
}

/// Forms the oracle of every deterministically failing test with a recorded trace, and
/// confirms the expected return values by rerunning.
pub fn derive(context: &Context, console: &Console) -> Vec<Oracle> {
    let mut oracles: Vec<Oracle> = context
        .traces
        .iter()
        .enumerate()
        .filter(|(_, t)| t.role == Role::Failing)
        .filter_map(|(i, t)| {
            let baseline = context.baseline.iter().find(|b| {
                b.test.display() == t.test.display() && b.test.package == t.test.package
            })?;
            (baseline.deterministic_failure() && !baseline.flaky())
                .then(|| form(i, t, unmet_should_panic(baseline)))
        })
        .collect();
    continue_past_failures(context, &mut oracles, console);
    let pending: Vec<usize> = (0..oracles.len())
        .filter(|&i| matches!(oracles[i].expectation, Some(Expectation::Returns(_))))
        .collect();
    if pending.is_empty() {
        return oracles;
    }
    let results = confirm_each(context, &oracles, &pending, "oracles", console, |o| {
        std::borrow::Cow::Borrowed(o)
    });
    for (i, result) in pending.into_iter().zip(results) {
        let oracle = &mut oracles[i];
        oracle.confirmed = result.confirmed;
        oracle.reruns += result.reruns;
        oracle.later_failure = result.later_failure;
        oracle.why = result.why;
    }
    confirm_other_sides(context, &mut oracles, console);
    oracles
}

/// For each unconfirmed oracle of a comparison of two calls' values, reruns the test with
/// the other call returning the first one's value; when that passes, the other call is the
/// one the failure is about.
fn confirm_other_sides(context: &Context, oracles: &mut [Oracle], console: &Console) {
    let pending: Vec<usize> = (0..oracles.len())
        .filter(|&i| !oracles[i].confirmed && oracles[i].other_side.is_some())
        .collect();
    if pending.is_empty() {
        return;
    }
    let what = "the other side of comparisons";
    let results = confirm_each(context, oracles, &pending, what, console, |o| {
        let mut swapped = o.clone();
        swapped.take_other_side();
        std::borrow::Cow::Owned(swapped)
    });
    for (i, result) in pending.into_iter().zip(results) {
        let oracle = &mut oracles[i];
        oracle.reruns += result.reruns;
        if result.confirmed {
            let first = oracle.call.as_ref().map(Call::shown).unwrap_or_default();
            oracle.take_other_side();
            oracle.confirmed = true;
            oracle.later_failure = None;
            oracle.why = Some(format!(
                "both sides of the assertion are values calls returned; with {first} returning the other side's value the test still failed, with {} returning {first}'s it passed",
                oracle.call.as_ref().map(Call::shown).unwrap_or_default()
            ));
        }
    }
}

/// Reruns each failing test whose failing call the oracle names with soft assertions, for
/// the calls it makes past that one (see [`soft`]).
fn continue_past_failures(context: &Context, oracles: &mut [Oracle], console: &Console) {
    let pending: Vec<usize> = (0..oracles.len())
        .filter(|&i| oracles[i].call.is_some())
        .collect();
    if pending.is_empty() {
        return;
    }
    let progress = console.progress("Continuing", "past failed assertions", pending.len());
    let results = engine::run_parallel(
        &pending,
        context.rerun.jobs,
        |&i| soft::continue_past(context.rerun, &context.traces[oracles[i].trace]),
        |&i, later: &Option<soft::Later>| {
            let label = match later {
                Some(later) => format!("{} more calls", later.calls.len()),
                None => "no more calls".to_string(),
            };
            progress.tick(&format!("{} {label}", oracles[i].test.display()));
        },
    );
    progress.finish();
    for (i, later) in pending.into_iter().zip(results) {
        oracles[i].later = later;
    }
}

/// Reruns the test of each of the `pending` oracles to confirm the oracle `tried` makes of
/// it (itself, or its other side), side by side, `what` said on the progress line.
fn confirm_each<'o>(
    context: &Context,
    oracles: &'o [Oracle],
    pending: &[usize],
    what: &str,
    console: &Console,
    tried: impl Fn(&'o Oracle) -> std::borrow::Cow<'o, Oracle> + Sync,
) -> Vec<Confirmation> {
    let progress = console.progress("Confirming", what, pending.len());
    let results = engine::run_parallel(
        pending,
        context.rerun.jobs,
        |&i| {
            let oracle = tried(&oracles[i]);
            confirm(context.rerun, &context.traces[oracle.trace], &oracle)
        },
        |&i, result: &Confirmation| {
            let label = if result.confirmed {
                "confirmed"
            } else {
                "not confirmed"
            };
            progress.tick(&format!("{} {label}", oracles[i].test.display()));
        },
    );
    progress.finish();
    results
}

/// What libtest says when a `#[should_panic]` test failed: the failure is the absence of
/// the expected panic, which no value of a call states.
fn unmet_should_panic(baseline: &BaselineResult) -> Option<String> {
    let output = format!("{}\n{}", baseline.first.stdout, baseline.first.stderr);
    if output.contains("did not panic as expected") {
        Some("the test is #[should_panic] and did not panic: the oracle cannot tell which call should have, and no value can be formed".to_string())
    } else if output.contains("panic did not contain expected string") {
        Some("the test is #[should_panic(expected = …)] and panicked with another message: no value can be formed".to_string())
    } else {
        None
    }
}

/// The oracle of the failing test recorded in `recorded` (trace `index`), before any
/// rerun. `should_panic` says why a `#[should_panic]` test's failure has none.
pub fn form(index: usize, recorded: &RecordedTrace, should_panic: Option<String>) -> Oracle {
    let mut oracle = Oracle {
        test: recorded.test.clone(),
        trace: index,
        call: None,
        expectation: None,
        accepted: Vec::new(),
        confirmed: false,
        reruns: 0,
        later_failure: None,
        why: None,
        later: None,
        other_side: None,
    };
    let trace = &recorded.trace;
    let calls = top_level_calls(trace);
    let location = match &recorded.outcome {
        Outcome::Failed { location, .. } => location.clone(),
        Outcome::Passed => {
            oracle.why = Some("the recorded run of the test passed".to_string());
            return oracle;
        }
        other => {
            oracle.why = Some(format!(
                "the test {}: no assertion or panic to read an expectation from",
                other.describe()
            ));
            return oracle;
        }
    };
    if let Some(why) = should_panic {
        oracle.why = Some(why);
        return oracle;
    }
    let Some((at, message)) = failing_panic(trace, location.as_ref()) else {
        oracle.why = Some(if trace.truncated {
            "the trace was cut at the event cap before the failure".to_string()
        } else {
            "the trace holds no panic: the test failed outside the instrumented run".to_string()
        });
        return oracle;
    };
    // The panic is recorded past the event cap, the calls around it are not.
    if trace.events[..at]
        .iter()
        .any(|e| matches!(e, Record::Truncated { .. }))
    {
        oracle.why = Some(
            "the trace was cut at the event cap before the failure (see --max-events)".to_string(),
        );
        return oracle;
    }
    let failure = FailurePoint {
        trace,
        depth: calls::depth_at(trace, at),
        calls,
        at,
        message,
    };
    if let Some((site, info)) = violated_contract(trace, at) {
        failure.contract_violated(&mut oracle, site, info);
        return oracle;
    }
    if failure.depth > 0 {
        failure.panicked_inside(&mut oracle);
        return oracle;
    }
    failure.assertion_failed(&mut oracle);
    oracle
}

/// Where a failing run panicked: its trace, its top-level calls, the panic's event and
/// message, and how deep in calls it happened.
struct FailurePoint<'t> {
    trace: &'t RawTrace,
    calls: Vec<Call>,
    at: usize,
    message: String,
    depth: usize,
}

impl FailurePoint<'_> {
    /// The top-level call the panic happened in.
    fn enclosing(&self) -> Option<Call> {
        self.calls
            .iter()
            .find(|c| c.events.start < self.at && self.at < c.events.end)
            .cloned()
    }

    /// The oracle of a violated contract (`site`, `info`): the contract is the expectation.
    fn contract_violated(
        &self,
        oracle: &mut Oracle,
        site: u32,
        info: &autodebug_runtime::protocol::SiteInfo,
    ) {
        let expectation = Expectation::Contract {
            site,
            kind: info.kind,
            function: info.function.clone(),
            condition: info.code.clone(),
            message: self.message.clone(),
        };
        // A contract of a top-level call is checked outside its body: the precondition
        // before its entry (no call to name: the test passed the arguments), the
        // postcondition after its exit (the call just ended, unless an invariant failed
        // before a call of another method).
        let call = if self.depth > 0 {
            self.enclosing()
        } else if info.kind == SiteKind::Requires {
            None
        } else {
            let before = self.trace.events[..self.at]
                .iter()
                .rposition(|e| !matches!(e, Record::Contract { .. }));
            before.and_then(|b| {
                self.calls
                    .iter()
                    .find(|c| {
                        c.events.end == b + 1
                            && c.end == End::Returned
                            && c.function == info.function
                    })
                    .cloned()
            })
        };
        oracle.why = Some(match &call {
            Some(_) => {
                "a violated contract is the specification itself: there is no value to override"
                    .to_string()
            }
            None => format!(
                "the test called `{}` with arguments its {} `{}` rejects: the test, or the contract, is what is wrong",
                short(&info.function),
                contract_word(info.kind),
                info.code
            ),
        });
        oracle.accepted = accepted_before(
            &self.calls,
            call.as_ref().map_or(usize::MAX, |c| c.index),
            self.at,
        );
        oracle.call = call;
        oracle.expectation = Some(expectation);
    }

    /// The oracle of a panic inside a call: the call must not panic.
    fn panicked_inside(&self, oracle: &mut Oracle) {
        let call = self.enclosing();
        oracle.accepted = accepted_before(
            &self.calls,
            call.as_ref().map_or(usize::MAX, |c| c.index),
            self.at,
        );
        oracle.call = call;
        oracle.expectation = Some(Expectation::NoPanic {
            message: self.message.clone(),
        });
        oracle.why =
            Some("the call must not panic: there is no returned value to override".to_string());
    }

    /// The oracle of the test's own failed assertion.
    fn assertion_failed(&self, oracle: &mut Oracle) {
        // The test's own assertion failed: the value of a call that returned before it.
        let returned: Vec<&Call> = self
            .calls
            .iter()
            .filter(|c| c.end == End::Returned && c.events.end <= self.at)
            .collect();
        let Some(&last) = returned.last() else {
            oracle.why = Some(
                "the test failed before any call of an instrumented function returned".to_string(),
            );
            return;
        };
        let source = SourceComparison::parse(&self.message)
            .and_then(|comparison| from_source(&comparison, &returned));
        let comparison = Comparison::parse(&self.message);
        let (call, expectation, why) = match (&comparison, source) {
            (Some(comparison), _) => from_comparison(comparison, &returned),
            (None, Some(found)) => found,
            (None, None) => {
                let headline = self.message.lines().next().unwrap_or_default();
                let why = format!(
                    "the test's failure (`{headline}`) does not say which value it wanted from `{}`",
                    last.name()
                );
                (
                    last,
                    last.returned
                        .as_ref()
                        .map(|r| Expectation::Rejected(r.value.clone())),
                    Some(why),
                )
            }
        };
        if let (Some(comparison), Some(Expectation::Returns(_))) = (&comparison, &expectation) {
            oracle.other_side = other_side(comparison, &returned, call).map(|(other, expected)| {
                Box::new(OtherSide {
                    call: other.clone(),
                    expectation: expected,
                    accepted: accepted_before(&self.calls, other.index, self.at),
                })
            });
        }
        oracle.accepted = accepted_before(&self.calls, call.index, self.at);
        oracle.call = Some(call.clone());
        oracle.expectation = expectation;
        oracle.why = why;
    }
}

/// The latest call but `first` that returned the value on the other side of a failed
/// `assert_eq!` from `first`'s, and what it should return instead: `first`'s value, read
/// as its type. `None` when no call returned that side's value.
fn other_side<'c>(
    comparison: &Comparison,
    returned: &[&'c Call],
    first: &Call,
) -> Option<(&'c Call, Expectation)> {
    if !comparison.equal {
        return None;
    }
    let side = comparison.side_of(&first.returned.as_ref()?.value).ok()?;
    let other = returned.iter().rev().copied().find(|c| {
        c.index != first.index
            && c.returned
                .as_ref()
                .is_some_and(|r| comparison.side_of(&r.value).ok() == Some(side.other()))
    })?;
    let expected = parse_like(comparison.text(side), &other.returned.as_ref()?.value).ok()?;
    Some((other, Expectation::Returns(expected)))
}

/// The failing call and its expectation from a failed `assert!(f(x) == y)` (or `!=`): the
/// latest call that returned, when it is of the function one side calls and nothing more,
/// and the other side is a value written as a literal (`8`, `"ab"`, `vec![1, 2]`). `None`
/// when the assertion is not of that shape.
fn from_source<'c>(
    comparison: &SourceComparison,
    returned: &[&'c Call],
) -> Option<(&'c Call, Option<Expectation>, Option<String>)> {
    let last = *returned.last()?;
    let side = comparison.call_side(last.name())?;
    let value = &last.returned.as_ref()?.value;
    if !comparison.equal {
        return Some(any_other_value(last, value, "assert!(… != …)"));
    }
    let expected = parse_like(comparison.text(side.other()), value).ok()?;
    Some((last, Some(Expectation::Returns(expected)), None))
}

/// The expectation of an inequality (`assertion`, as the test wrote it) that `call`'s
/// returning `value` failed: any other value, and why no rerun can confirm one.
fn any_other_value<'c>(
    call: &'c Call,
    value: &Value,
    assertion: &str,
) -> (&'c Call, Option<Expectation>, Option<String>) {
    let why = format!(
        "{assertion}: any value but {} passes the assertion; there is no single value to confirm by a rerun",
        describe(value)
    );
    (
        call,
        Some(Expectation::ReturnsOtherThan(value.clone())),
        Some(why),
    )
}

/// The failing call and its expectation from a failed `assert_eq!`/`assert_ne!`: the latest
/// call whose returned value is one side of it (the last call when none is).
fn from_comparison<'c>(
    comparison: &Comparison,
    returned: &[&'c Call],
) -> (&'c Call, Option<Expectation>, Option<String>) {
    let last = returned[returned.len() - 1];
    let matched = returned.iter().rev().find_map(|c| {
        let r = c.returned.as_ref()?;
        comparison.side_of(&r.value).ok().map(|side| (*c, r, side))
    });
    let Some((call, r, side)) = matched else {
        return match &last.returned {
            Some(r) => (
                last,
                Some(Expectation::Rejected(r.value.clone())),
                comparison.side_of(&r.value).err(),
            ),
            None => (
                last,
                None,
                Some(format!(
                    "`{}` returns nothing: the assertion compares something else (state the call changed?)",
                    last.name()
                )),
            ),
        };
    };
    if !comparison.equal {
        return any_other_value(call, &r.value, "assert_ne!");
    }
    match parse_like(comparison.text(side.other()), &r.value) {
        Ok(expected) => (call, Some(Expectation::Returns(expected)), None),
        Err(why) => (
            call,
            Some(Expectation::Rejected(r.value.clone())),
            Some(format!("no expected value can be formed: {why}")),
        ),
    }
}

/// The panic the test failed with: the last `Panic` record at the failure's location (the
/// last one at all when the location is unknown), with its message.
fn failing_panic(trace: &RawTrace, location: Option<&Location>) -> Option<(usize, String)> {
    let panics = || {
        trace
            .events
            .iter()
            .enumerate()
            .filter_map(|(i, e)| match e {
                Record::Panic {
                    message,
                    file,
                    line,
                    column,
                    ..
                } => Some((i, message, (file, *line, *column))),
                _ => None,
            })
    };
    let at_location = location.and_then(|l| {
        panics().rev().find(|(_, _, (file, line, column))| {
            **file == l.file && *line == l.line && *column == l.column
        })
    });
    at_location
        .or_else(|| panics().next_back())
        .map(|(i, message, _)| (i, message.clone()))
}

/// The contract whose violation is the panic at event `at`: a failed check recorded just
/// before it.
fn violated_contract(
    trace: &RawTrace,
    at: usize,
) -> Option<(u32, &autodebug_runtime::protocol::SiteInfo)> {
    match trace.events.get(at.checked_sub(1)?)? {
        Record::Contract {
            site, ok: false, ..
        } => Some((*site, trace.sites.get(site)?)),
        _ => None,
    }
}

/// The calls before call `index` that returned before event `at`.
fn accepted_before(calls: &[Call], index: usize, at: usize) -> Vec<Call> {
    calls
        .iter()
        .filter(|c| c.index < index && c.end == End::Returned && c.events.end <= at)
        .cloned()
        .collect()
}

/// How a confirming rerun went.
#[derive(Debug, Clone, Default)]
struct Confirmation {
    confirmed: bool,
    reruns: usize,
    later_failure: Option<String>,
    why: Option<String>,
}

/// Reruns the test with the failing call's return overridden by the expected value.
fn confirm(rerun: &Recorder, recorded: &RecordedTrace, oracle: &Oracle) -> Confirmation {
    let unconfirmed = |reruns, why: String| Confirmation {
        reruns,
        why: Some(why),
        ..Confirmation::default()
    };
    let (Some(call), Some(Expectation::Returns(expected))) = (&oracle.call, &oracle.expectation)
    else {
        return unconfirmed(0, "no expected value to confirm".to_string());
    };
    let Some(returned) = &call.returned else {
        return unconfirmed(0, "the call returned no value to override".to_string());
    };
    let Some(site) = recorded.trace.sites.get(&returned.site) else {
        return unconfirmed(0, "the call's return site is not in the trace".to_string());
    };
    let key = site.key();
    let plan = Plan {
        version: PLAN_VERSION,
        flips: Vec::new(),
        overrides: vec![Override {
            target: Target {
                site: key.clone(),
                instance: Some(returned.instance),
            },
            value: expected.clone(),
        }],
        fuel: Some(20 * recorded.trace.events.len() as u64 + 10_000),
        replacements: Vec::new(),
        arguments: Vec::new(),
        soft_assertions: false,
    };
    let (shown, value) = (call.shown(), describe(expected));
    let (result, trace) = match rerun.run(&recorded.test, Some(&plan), "events") {
        Ok(run) => run,
        Err(error) => return unconfirmed(0, format!("the rerun could not be made: {error:#}")),
    };
    let ids: Vec<u32> = trace
        .sites
        .iter()
        .filter(|(_, s)| s.key() == key)
        .map(|(&id, _)| id)
        .collect();
    if let Some(message) = trace.events.iter().find_map(|e| match e {
        Record::PlanError { site, message, .. } if ids.contains(site) => Some(message),
        _ => None,
    }) {
        return unconfirmed(
            1,
            format!("the runtime could not make {shown} return {value}: {message}"),
        );
    }
    // Past the event cap the plan still applies, but its record is not written.
    let applied = trace.truncated
        || trace.events.iter().any(
            |e| matches!(e, Record::Component { site, overridden: true, .. } if ids.contains(site)),
        );
    if !applied {
        return unconfirmed(1, format!("the rerun never reached the return of {shown}"));
    }
    match &result.outcome {
        Outcome::Passed => Confirmation {
            confirmed: true,
            reruns: 1,
            ..Confirmation::default()
        },
        now @ Outcome::Failed { .. } if *now == recorded.outcome => unconfirmed(
            1,
            format!("with {shown} returning {value} the test still fails the same way"),
        ),
        Outcome::Failed { message, location } => Confirmation {
            confirmed: false,
            reruns: 1,
            later_failure: Some(failure_text(message, location.as_ref())),
            why: Some(format!(
                "with {shown} returning {value} the test fails later: fixing this call is necessary but not sufficient"
            )),
        },
        other => unconfirmed(
            1,
            format!(
                "with {shown} returning {value} the test {}",
                other.describe()
            ),
        ),
    }
}

/// A failure on one line: the message's lines, then where.
fn failure_text(message: &str, location: Option<&Location>) -> String {
    let mut text = message
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(", ");
    if let Some(l) = location {
        text.push_str(&format!(" at {}:{}:{}", l.file, l.line, l.column));
    }
    text
}

/// The last segment of a function's path.
fn short(function: &str) -> &str {
    function.rsplit("::").next().unwrap_or(function)
}

/// What a contract site is called in prose.
fn contract_word(kind: SiteKind) -> &'static str {
    match kind {
        SiteKind::Requires => "precondition",
        SiteKind::Ensures => "postcondition",
        _ => "invariant",
    }
}

fn accepted_call(c: &Call) -> AcceptedCall {
    AcceptedCall {
        call: c.index,
        function: c.function.clone(),
        shown: c.shown(),
        args: args(c),
        returned: c.returned.as_ref().map(|r| r.value.clone()),
    }
}

fn args(call: &Call) -> Vec<Arg> {
    call.args
        .iter()
        .map(|(name, value)| Arg {
            name: name.clone(),
            value: value.clone(),
        })
        .collect()
}

impl Oracle {
    /// Puts the other side of the comparison (see [`Oracle::other_side`]) in the first
    /// call's place.
    fn take_other_side(&mut self) {
        if let Some(other) = self.other_side.take() {
            self.call = Some(other.call);
            self.expectation = Some(other.expectation);
            self.accepted = other.accepted;
        }
    }

    /// The oracle in a sentence: `triple(3) should return 9`.
    pub fn statement(&self) -> String {
        let Some(expectation) = &self.expectation else {
            return match &self.call {
                Some(call) => format!("the failure is about {}", call.shown()),
                None => "none".to_string(),
            };
        };
        let Some(call) = &self.call else {
            return match expectation {
                Expectation::Contract {
                    kind,
                    function,
                    condition,
                    ..
                } => format!(
                    "the test should call `{}` as its {} `{condition}` requires",
                    short(function),
                    contract_word(*kind)
                ),
                _ => "none".to_string(),
            };
        };
        let shown = call.shown();
        match expectation {
            Expectation::Returns(v) => format!("{shown} should return {}", describe(v)),
            Expectation::ReturnsOtherThan(v) => {
                format!("{shown} should return anything but {}", describe(v))
            }
            Expectation::Rejected(Value::Opaque { ty }) => {
                format!("{shown} returned a `{ty}` the test rejected")
            }
            Expectation::Rejected(v) => format!("{shown} should not return {}", describe(v)),
            Expectation::NoPanic { .. } => format!("{shown} should not panic"),
            Expectation::Contract {
                kind,
                function,
                condition,
                ..
            } => format!(
                "{shown} should keep the {} `{condition}` of `{}`",
                contract_word(*kind),
                short(function)
            ),
        }
    }

    /// The report's entry.
    pub fn entry(&self) -> Entry {
        let (expected, other_than, contract, panic) = match &self.expectation {
            Some(Expectation::Returns(v)) => (Some(v.clone()), None, None, None),
            Some(Expectation::ReturnsOtherThan(v)) => (None, Some(v.clone()), None, None),
            Some(Expectation::NoPanic { message }) => (None, None, None, Some(message.clone())),
            Some(Expectation::Contract {
                condition, message, ..
            }) => (None, None, Some(condition.clone()), Some(message.clone())),
            _ => (None, None, None, None),
        };
        Entry {
            test: self.test.display(),
            function: self.call.as_ref().map(|c| c.function.clone()),
            call: self.call.as_ref().map(|c| c.index),
            kind: self.expectation.as_ref().map(Expectation::kind),
            args: self.call.as_ref().map(args).unwrap_or_default(),
            returned: self
                .call
                .as_ref()
                .and_then(|c| c.returned.as_ref())
                .map(|r| r.value.clone()),
            expected,
            other_than,
            contract,
            panic,
            statement: self.statement(),
            confirmed: self.confirmed,
            reruns: self.reruns,
            later_failure: self.later_failure.clone(),
            why: self.why.clone(),
            accepted_calls: self.accepted.iter().map(accepted_call).collect(),
            later_calls: self
                .later
                .iter()
                .flat_map(|later| &later.calls)
                .map(|(c, failed)| LaterCall {
                    call: accepted_call(c),
                    accepted: !failed,
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::calls::tests::{exit, int, site, trace};
    use super::*;

    fn panic_at(line: u32, message: &str) -> Record {
        Record::Panic {
            message: message.into(),
            file: "src/lib.rs".into(),
            line,
            column: 9,
            thread: "t".into(),
        }
    }

    fn failed(line: u32, message: &str) -> Outcome {
        Outcome::Failed {
            message: message.into(),
            location: Some(Location {
                file: "src/lib.rs".into(),
                line,
                column: 9,
            }),
        }
    }

    fn recorded(trace: RawTrace, outcome: Outcome) -> RecordedTrace {
        RecordedTrace {
            test: TestId {
                package: "p".into(),
                target: "p".into(),
                kind: "lib".into(),
                name: "tests::t".into(),
                binary: Default::default(),
                package_root: Default::default(),
            },
            role: Role::Failing,
            outcome,
            trace,
        }
    }

    /// The fixture trace (`f(1)` = 10, `g(5)` = 6, `f(2)` = 20), failing on the test's
    /// assertion at line 30 with `message`.
    fn failing_assertion(message: &str) -> Oracle {
        let mut trace = trace();
        trace.events.push(panic_at(30, message));
        form(0, &recorded(trace, failed(30, message)), None)
    }

    fn indices(calls: &[Call]) -> Vec<usize> {
        calls.iter().map(|c| c.index).collect()
    }

    #[test]
    fn assert_eq_on_the_last_call_expects_the_other_side() {
        let oracle = failing_assertion("assertion `left == right` failed\n  left: 20\n right: 21");
        let call = oracle.call.as_ref().unwrap();
        assert_eq!((call.index, call.name()), (2, "f"));
        assert_eq!(call.events, 9..15);
        assert_eq!(call.args, [("x".to_string(), int(2))]);
        assert_eq!(oracle.expectation, Some(Expectation::Returns(int(21))));
        assert_eq!(oracle.why, None);
        assert_eq!(indices(&oracle.accepted), [0, 1]);
        assert_eq!(oracle.statement(), "f(2) should return 21");
        let entry = oracle.entry();
        assert_eq!((entry.kind, entry.call), (Some("returns"), Some(2)));
        assert_eq!(entry.expected, Some(int(21)));
        assert_eq!(entry.accepted_calls[1].shown, "g(5)");
    }

    #[test]
    fn the_asserted_value_may_come_from_an_earlier_call() {
        // `let a = f(1); … ; assert_eq!(11, a)`: the right side is the first call's value.
        let oracle = failing_assertion("assertion `left == right` failed\n  left: 11\n right: 10");
        assert_eq!(oracle.call.as_ref().unwrap().index, 0);
        assert_eq!(oracle.expectation, Some(Expectation::Returns(int(11))));
        assert!(oracle.accepted.is_empty());
    }

    #[test]
    fn a_comparison_of_two_calls_values_keeps_the_other_call() {
        // `let a = f(1); … ; assert_eq!(f(2), a)`: either call may be the wrong one.
        let mut oracle =
            failing_assertion("assertion `left == right` failed\n  left: 20\n right: 10");
        assert_eq!(oracle.call.as_ref().unwrap().index, 2);
        assert_eq!(oracle.expectation, Some(Expectation::Returns(int(10))));
        let other = oracle.other_side.as_ref().unwrap();
        assert_eq!(other.call.index, 0);
        assert_eq!(other.expectation, Expectation::Returns(int(20)));
        assert!(other.accepted.is_empty());
        oracle.take_other_side();
        assert_eq!(oracle.statement(), "f(1) should return 20");
        assert!(oracle.other_side.is_none());
        // A literal on the other side (`assert_eq!(f(2), 21)`) leaves no other call.
        let oracle = failing_assertion("assertion `left == right` failed\n  left: 20\n right: 21");
        assert!(oracle.other_side.is_none());
    }

    #[test]
    fn assertions_that_do_not_name_a_value() {
        let oracle = failing_assertion("assertion `left != right` failed\n  left: 20\n right: 20");
        assert_eq!(
            oracle.expectation,
            Some(Expectation::ReturnsOtherThan(int(20)))
        );
        assert!(oracle.why.as_deref().unwrap().contains("assert_ne!"));
        assert_eq!(oracle.statement(), "f(2) should return anything but 20");
        let oracle = failing_assertion("assertion failed: f(2) < 15");
        assert_eq!(oracle.call.as_ref().unwrap().index, 2);
        assert_eq!(oracle.expectation, Some(Expectation::Rejected(int(20))));
        assert!(oracle.why.as_deref().unwrap().contains("does not say"));
        // Something computed from the values: the last call, rejected, and why.
        let oracle = failing_assertion("assertion `left == right` failed\n  left: 40\n right: 42");
        assert_eq!(oracle.expectation, Some(Expectation::Rejected(int(20))));
        assert!(oracle.why.as_deref().unwrap().contains("neither side"));
        assert_eq!(oracle.entry().expected, None);
        // A value the runtime does not record (a tuple, an `Option`).
        let mut opaque = trace();
        opaque.events[13] = Record::Component {
            site: 2,
            instance: 1,
            value: Value::Opaque {
                ty: "(bool, bool)".into(),
            },
            overridden: false,
            scope: vec![],
        };
        let message =
            "assertion `left == right` failed\n  left: (true, false)\n right: (true, true)";
        opaque.events.push(panic_at(30, message));
        let oracle = form(0, &recorded(opaque, failed(30, message)), None);
        assert_eq!(oracle.call.as_ref().unwrap().index, 2);
        assert!(oracle.why.as_deref().unwrap().contains("does not record"));
        assert_eq!(
            oracle.statement(),
            "f(2) returned a `(bool, bool)` the test rejected"
        );
    }

    #[test]
    fn a_panic_inside_a_call_is_no_panic_there() {
        let mut trace = trace();
        // `f(2)` calls `g(2)`, which indexes out of bounds.
        trace.events.truncate(11);
        let message = "index out of bounds: the len is 2 but the index is 2";
        trace.events.push(panic_at(6, message));
        trace.events.push(exit(3, true));
        trace.events.push(exit(1, true));
        let oracle = form(0, &recorded(trace, failed(6, message)), None);
        let call = oracle.call.as_ref().unwrap();
        assert_eq!((call.index, call.end), (2, End::Panicked));
        assert_eq!(
            oracle.expectation,
            Some(Expectation::NoPanic {
                message: message.into()
            })
        );
        assert_eq!(indices(&oracle.accepted), [0, 1]);
        assert_eq!(oracle.entry().kind, Some("no-panic"));
        assert_eq!(oracle.statement(), "f(2) should not panic");
    }

    #[test]
    fn a_postcondition_is_checked_after_the_call_returned() {
        let mut trace = trace();
        trace.sites.insert(5, site(3, SiteKind::Ensures, "f"));
        trace.events.push(Record::Contract {
            site: 5,
            instance: 1,
            ok: false,
        });
        let message = "Post-condition of f violated: ret < 15";
        trace.events.push(panic_at(3, message));
        let oracle = form(0, &recorded(trace, failed(3, message)), None);
        assert_eq!(oracle.call.as_ref().unwrap().index, 2);
        match &oracle.expectation {
            Some(Expectation::Contract { kind, function, .. }) => {
                assert_eq!(
                    (*kind, function.as_str()),
                    (SiteKind::Ensures, "fixture::f")
                )
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(indices(&oracle.accepted), [0, 1]);
        assert_eq!(oracle.entry().kind, Some("contract"));
        assert_eq!(
            oracle.statement(),
            "f(2) should keep the postcondition `code3` of `f`"
        );
    }

    #[test]
    fn a_precondition_the_test_violates_names_no_call() {
        let mut trace = trace();
        // `f` again, right after `f(2)` returned: its precondition is not about `f(2)`.
        trace.sites.insert(5, site(2, SiteKind::Requires, "f"));
        trace.events.push(Record::Contract {
            site: 5,
            instance: 3,
            ok: false,
        });
        let message = "Pre-condition of f violated: x > 0";
        trace.events.push(panic_at(2, message));
        let oracle = form(0, &recorded(trace, failed(2, message)), None);
        assert!(oracle.call.is_none());
        assert_eq!(oracle.entry().kind, Some("contract"));
        assert!(oracle.why.as_deref().unwrap().contains("precondition"));
        // Every call before the violation returned: all accepted.
        assert_eq!(indices(&oracle.accepted), [0, 1, 2]);
    }

    #[test]
    fn a_nested_call_violating_a_precondition_is_the_callers_fault() {
        let mut trace = trace();
        trace.sites.insert(5, site(5, SiteKind::Requires, "g"));
        trace.events.truncate(10);
        trace.events.push(Record::Contract {
            site: 5,
            instance: 0,
            ok: false,
        });
        let message = "Pre-condition of g violated: x > 2";
        trace.events.push(panic_at(5, message));
        trace.events.push(exit(1, true));
        let oracle = form(0, &recorded(trace, failed(5, message)), None);
        assert_eq!(oracle.call.as_ref().unwrap().index, 2);
        assert_eq!(oracle.entry().kind, Some("contract"));
    }

    #[test]
    fn no_oracle_without_a_failure_to_read() {
        let oracle = form(
            0,
            &recorded(trace(), Outcome::Timeout { seconds: 2.0 }),
            None,
        );
        assert!(oracle.call.is_none() && oracle.expectation.is_none());
        assert!(oracle.why.as_deref().unwrap().contains("did not finish"));
        assert_eq!(oracle.entry().kind, None);
        assert!(oracle.entry().line().starts_with("none ("));
        // A failure the trace does not show.
        let oracle = form(0, &recorded(trace(), failed(30, "test failed")), None);
        assert!(oracle.why.as_deref().unwrap().contains("no panic"));
        // A #[should_panic] test that did not panic.
        let mut with_panic = trace();
        with_panic.events.push(panic_at(30, "boom"));
        let oracle = form(
            0,
            &recorded(with_panic, failed(30, "boom")),
            Some("should_panic".into()),
        );
        assert_eq!(oracle.why.as_deref(), Some("should_panic"));
        assert!(oracle.call.is_none());
        // A trace cut before the failure: its calls are not all there.
        let mut cut = trace();
        cut.events.truncate(9);
        cut.events.push(Record::Truncated { events: 9 });
        cut.events.push(panic_at(30, "assertion failed: x"));
        cut.truncated = true;
        let oracle = form(0, &recorded(cut, failed(30, "assertion failed: x")), None);
        assert!(oracle.call.is_none());
        assert!(oracle.why.as_deref().unwrap().contains("event cap"));
        // A failure before any call returned.
        let mut early = RawTrace::default();
        early.sites.insert(1, site(1, SiteKind::Fn, "f"));
        early.events = vec![panic_at(30, "setup failed")];
        let oracle = form(0, &recorded(early, failed(30, "setup failed")), None);
        assert!(oracle.why.as_deref().unwrap().contains("before any call"));
    }

    #[test]
    fn the_failing_panic_is_the_one_at_the_failures_location() {
        let mut trace = trace();
        // A panic the test caught inside `g(5)`'s call (say with `catch_unwind`), then
        // the real failure.
        trace.events.insert(7, panic_at(6, "caught"));
        let message = "assertion `left == right` failed\n  left: 20\n right: 7";
        trace.events.push(panic_at(30, message));
        // A panic after it, elsewhere (another thread of the test).
        trace.events.push(panic_at(40, "assertion failed: done"));
        let oracle = form(0, &recorded(trace, failed(30, message)), None);
        assert_eq!(oracle.call.as_ref().unwrap().index, 2);
        assert_eq!(oracle.expectation, Some(Expectation::Returns(int(7))));
    }
}
