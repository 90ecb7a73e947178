//! The calls a failing test makes past its first failed assertion. A test stops at its first
//! failed `assert!`, so its recorded trace holds the calls before it and the failing one:
//! with eight asserts and the first one failing, one call out of eight. The runtime can let
//! such a test go on (a plan with `soft_assertions`: each assertion statement of a test the
//! tool wrapped records whether it held, and a failed one does not stop the test). One rerun
//! so made gives every later call with its assertion's verdict: calls whose assertion held
//! are more passing executions, calls whose assertion failed more failing ones.

use std::sync::Arc;

use autodebug_runtime::protocol::{PLAN_VERSION, Plan, Record};

use super::calls::{Call, End, top_level_calls};
use crate::engine::Recorder;
use crate::trace::{RawTrace, RecordedTrace};

/// The calls a failing test made after its first failed assertion, in the rerun that let it
/// go on.
#[derive(Debug, Clone)]
pub struct Later {
    /// The rerun's trace; the calls' event ranges index its events.
    pub trace: Arc<RawTrace>,
    /// Each call, and whether the assertion that checked it failed.
    pub calls: Vec<(Call, bool)>,
}

impl Later {
    /// The calls whose assertion held, of functions in `file` (as sites name files).
    pub fn accepted_in<'s, 'f>(
        &'s self,
        file: &'f str,
    ) -> impl Iterator<Item = &'s Call> + use<'s, 'f> {
        self.calls
            .iter()
            .filter(move |(c, failed)| {
                !failed
                    && self
                        .trace
                        .sites
                        .get(&c.site)
                        .is_some_and(|s| s.file == file)
            })
            .map(|(c, _)| c)
    }
}

/// Reruns the test of `recorded` with soft assertions and reads the calls past its first
/// failed assertion. `None` when the rerun cannot be made, shows no failed assertion (the
/// test stopped on a panic outside one, or was not wrapped), or did not retrace the recorded
/// run up to it.
pub fn continue_past(rerun: &Recorder, recorded: &RecordedTrace) -> Option<Later> {
    if recorded.trace.truncated || recorded.trace.coverage {
        return None;
    }
    let plan = Plan {
        version: PLAN_VERSION,
        // The calls past the failure run too: more fuel than the recorded run took.
        fuel: Some(50 * recorded.trace.events.len() as u64 + 100_000),
        soft_assertions: true,
        ..Plan::default()
    };
    let (_, soft) = rerun.run(&recorded.test, Some(&plan), "events").ok()?;
    let calls = later_calls(&recorded.trace, &soft)?;
    (!calls.is_empty()).then(|| Later {
        trace: Arc::new(soft),
        calls,
    })
}

/// The calls of `soft` (a run with soft assertions) past its first failed assertion, each
/// with whether its assertion failed: a call belongs to the first assertion recorded after
/// it. `None` unless the calls before that first failure are those of `recorded` (the
/// same functions, with the same arguments). Events past the end of fuel, the event cap or a
/// plan error are not read.
pub fn later_calls(recorded: &RawTrace, soft: &RawTrace) -> Option<Vec<(Call, bool)>> {
    let usable = soft
        .events
        .iter()
        .position(|e| {
            matches!(
                e,
                Record::FuelExhausted { .. } | Record::Truncated { .. } | Record::PlanError { .. }
            )
        })
        .unwrap_or(soft.events.len());
    let assertions: Vec<(usize, bool)> = soft.events[..usable]
        .iter()
        .enumerate()
        .filter_map(|(i, e)| match e {
            Record::Assertion { passed } => Some((i, *passed)),
            _ => None,
        })
        .collect();
    let first = assertions.iter().position(|(_, passed)| !passed)?;
    let calls = top_level_calls(soft);
    let before: Vec<&Call> = calls
        .iter()
        .filter(|c| c.events.start < assertions[first].0)
        .collect();
    let expected = top_level_calls(recorded);
    if before.len() != expected.len()
        || before
            .iter()
            .zip(&expected)
            .any(|(a, b)| a.function != b.function || a.args != b.args)
    {
        return None;
    }
    let mut later = Vec::new();
    let mut from = assertions[first].0;
    for &(at, passed) in &assertions[first + 1..] {
        for call in calls
            .iter()
            .filter(|c| from < c.events.start && c.events.end <= at)
        {
            if !passed || call.end == End::Returned {
                later.push((call.clone(), !passed));
            }
        }
        from = at;
    }
    Some(later)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oracle::calls::tests::{enter, exit, ret, site};
    use autodebug_runtime::protocol::SiteKind;

    /// A call `f(x)` returning `out`.
    fn call(x: i128, out: i128) -> Vec<Record> {
        vec![enter(0, x), ret(1, 0, out), exit(0, false)]
    }

    fn trace(parts: Vec<Vec<Record>>) -> RawTrace {
        let mut sites = std::collections::BTreeMap::new();
        sites.insert(0, site(1, SiteKind::Fn, "f"));
        sites.insert(1, site(2, SiteKind::Return, "f"));
        RawTrace {
            sites,
            events: parts.into_iter().flatten().collect(),
            ..RawTrace::default()
        }
    }

    fn held(passed: bool) -> Vec<Record> {
        vec![Record::Assertion { passed }]
    }

    #[test]
    fn calls_past_the_first_failure_take_their_assertions_verdict() {
        // f(1) held, f(2) failed (where the recorded run stopped), then f(3) held, f(4)
        // failed, and f(5) f(6) were checked together and held.
        let recorded = trace(vec![call(1, 1), call(2, 0)]);
        let soft = trace(vec![
            call(1, 1),
            held(true),
            call(2, 0),
            held(false),
            call(3, 3),
            held(true),
            call(4, 0),
            held(false),
            call(5, 5),
            call(6, 6),
            held(true),
            call(7, 7),
        ]);
        let later = later_calls(&recorded, &soft).unwrap();
        let shown: Vec<(String, bool)> = later.iter().map(|(c, f)| (c.shown(), *f)).collect();
        assert_eq!(
            shown,
            vec![
                ("f(3)".to_string(), false),
                ("f(4)".to_string(), true),
                ("f(5)".to_string(), false),
                ("f(6)".to_string(), false),
            ]
        );
    }

    #[test]
    fn a_rerun_that_went_another_way_is_not_read() {
        let recorded = trace(vec![call(1, 1), call(2, 0)]);
        let other = trace(vec![call(9, 1), held(false), call(3, 3), held(true)]);
        assert_eq!(later_calls(&recorded, &other), None);
        // No failed assertion (the test stopped on a panic outside one): nothing to read.
        let unwrapped = trace(vec![call(1, 1), call(2, 0)]);
        assert_eq!(later_calls(&recorded, &unwrapped), None);
        // Past the fuel's end nothing counts.
        let mut fueled = trace(vec![call(1, 1), held(true), call(2, 0), held(false)]);
        fueled.events.push(Record::FuelExhausted { fuel: 9 });
        fueled.events.extend(call(3, 3));
        fueled.events.push(Record::Assertion { passed: true });
        assert_eq!(later_calls(&recorded, &fueled), Some(vec![]));
    }
}
