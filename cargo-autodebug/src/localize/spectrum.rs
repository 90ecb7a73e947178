//! Spectrum-based ranking: a site executed by many failing executions and few passing ones
//! is suspicious. Ochiai (the default) and DStar — cheap, always available, and the baseline
//! every other technique must beat.
//!
//! The executions are *calls* where the oracle names them: a failing test whose trace shows
//! the failing call and the calls the test accepted before it gives one failing execution
//! (the sites that call ran, its callees included) and one passing execution per accepted
//! call; a passing test whose trace was recorded gives one passing execution per call it
//! made. A test with eight asserts over one function thus gives seven passing executions and
//! one failing one instead of a single failing test that ties every site it ran. Accepted
//! calls that returned nothing, right before the failing call, are part of its execution:
//! the test saw what they did only through it. The calls
//! the test made past its first failed assertion (the oracle's rerun that went on) count
//! too, each passing or failing as its own assertion did. Tests
//! without such a trace count as one execution each, over the baseline's coverage. A
//! failing execution that panicked also ran the sites the panic interrupted (the expression
//! that panicked, the crate's calls open below it), whose hooks never fired.

use std::collections::BTreeMap;

use anyhow::Result;
use autodebug_runtime::protocol::{SiteInfo, SiteKey};

use super::{Context, Localized, Suspect, Technique, is_candidate};
use crate::model::{Evidence, Outcome, Role, TestId};
use crate::options::Formula;
use crate::oracle::top_level_calls;
use crate::trace::{Coverage, RawTrace, record_site};

/// Spectrum ranking with one formula over one kind of execution.
pub struct Spectrum {
    pub formula: Formula,
    pub unit: Unit,
}

/// What the spectrum counts as one execution.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Calls where the oracle or a passing trace names them, whole tests otherwise (see the
    /// module's comment).
    Calls,
    /// Whole tests, over their baseline coverage.
    Tests,
}

/// Counts of one site: failing and passing tests that executed it.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct Counts {
    pub ef: usize,
    pub ep: usize,
}

impl Formula {
    /// The formula's name in evidence.
    pub fn name(self) -> &'static str {
        match self {
            Formula::Ochiai => "ochiai",
            Formula::Dstar => "dstar",
        }
    }

    /// Suspiciousness of a site with `counts`, out of `failed` failing tests.
    pub fn score(self, counts: Counts, failed: usize) -> f64 {
        let (ef, ep, f) = (counts.ef as f64, counts.ep as f64, failed as f64);
        match self {
            Formula::Ochiai if ef == 0.0 => 0.0,
            Formula::Ochiai => ef / (f * (ef + ep)).sqrt(),
            Formula::Dstar => {
                let denominator = ep + (f - ef);
                if denominator == 0.0 {
                    f64::INFINITY
                } else {
                    ef * ef / denominator
                }
            }
        }
    }
}

/// Per-site counts over executions that passed or failed, and the number of failing ones.
pub fn counts<'a>(
    tests: impl Iterator<Item = (bool, &'a BTreeMap<SiteKey, SiteInfo>)>,
) -> (BTreeMap<&'a SiteKey, (Counts, &'a SiteInfo)>, usize) {
    let mut table: BTreeMap<&SiteKey, (Counts, &SiteInfo)> = BTreeMap::new();
    let mut failed = 0;
    for (failing, coverage) in tests {
        failed += usize::from(failing);
        for (key, site) in coverage {
            let entry = table.entry(key).or_insert((Counts::default(), site));
            if failing {
                entry.0.ef += 1;
            } else {
                entry.0.ep += 1;
            }
        }
    }
    (table, failed)
}

/// The executions the spectrum counts (see the module's comment), and what they are.
pub struct Units {
    /// Whether each execution failed, and the sites it ran.
    pub executions: Vec<(bool, Coverage)>,
    /// How many executions are calls (the rest are whole tests).
    pub calls: usize,
}

impl Units {
    /// What the executions were, for evidence: `calls` when every one is a call.
    fn noun(&self) -> &'static str {
        if self.calls == self.executions.len() {
            "calls"
        } else if self.calls == 0 {
            "tests"
        } else {
            "executions (calls and tests)"
        }
    }
}

/// The sites that `events` of `trace` reached (function entries excluded, as in coverage).
fn sites_of(trace: &RawTrace, events: std::ops::Range<usize>) -> Coverage {
    let mut sites = Coverage::new();
    for event in
        &trace.events[events.start.min(trace.events.len())..events.end.min(trace.events.len())]
    {
        if let Some(site) = record_site(event).and_then(|id| trace.sites.get(&id)) {
            sites.entry(site.key()).or_insert_with(|| site.clone());
        }
    }
    sites
}

fn same_test(a: &TestId, b: &TestId) -> bool {
    (&a.package, &a.target, &a.name) == (&b.package, &b.target, &b.name)
}

/// The executions of `context`: calls where the oracle or a passing trace names them, whole
/// tests otherwise. Flaky and not-run tests say nothing reliable and are left out.
pub fn units(context: &Context) -> Units {
    let interrupted = super::panic::interrupted(context);
    units_of(
        context.baseline,
        context.traces,
        context.oracles,
        &interrupted,
    )
}

/// The executions of `context` as whole tests, over their baseline coverage (flaky and
/// not-run tests left out).
fn whole_tests(
    baseline: &[crate::baseline::BaselineResult],
    interrupted: &[(TestId, Coverage)],
) -> Units {
    units_of(baseline, &[], &[], interrupted)
}

fn units_of(
    baseline: &[crate::baseline::BaselineResult],
    traces: &[crate::trace::RecordedTrace],
    oracles: &[crate::oracle::Oracle],
    interrupted: &[(TestId, Coverage)],
) -> Units {
    let mut units = Units {
        executions: Vec::new(),
        calls: 0,
    };
    for result in baseline {
        let failing = match &result.first.outcome {
            Outcome::Passed => false,
            Outcome::NotRun => continue,
            _ if result.deterministic_failure() => true,
            _ => continue,
        };
        let calls = if failing {
            failing_calls(traces, oracles, &result.test)
        } else {
            passing_calls(traces, &result.test)
        };
        let mut executions = match calls {
            Some(calls) => {
                units.calls += calls.len();
                calls
            }
            None => vec![(failing, result.coverage.clone())],
        };
        // The sites a panic interrupted ran in the failing execution (the one that
        // panicked: a panic ends the test).
        let cut = (interrupted.iter()).find(|(test, _)| failing && same_test(test, &result.test));
        if let (Some((_, sites)), Some((_, coverage))) =
            (cut, executions.iter_mut().find(|(failed, _)| *failed))
        {
            for (key, site) in sites {
                coverage.entry(key.clone()).or_insert_with(|| site.clone());
            }
        }
        units.executions.extend(executions);
    }
    units
}

/// The failing call and the accepted calls of a failing test whose oracle names its failing
/// call, in a trace of events not cut at the event cap (a trace that ends in a crash still
/// holds what the calls ran up to it).
fn failing_calls(
    traces: &[crate::trace::RecordedTrace],
    oracles: &[crate::oracle::Oracle],
    test: &TestId,
) -> Option<Vec<(bool, Coverage)>> {
    let oracle = oracles.iter().find(|o| same_test(&o.test, test))?;
    let call = oracle.call.as_ref()?;
    let trace = &traces.get(oracle.trace)?.trace;
    if trace.truncated || trace.coverage {
        return None;
    }
    // The calls since the last one that returned a value returned none: the test could
    // only look at what they did through the calls after them, the failing one among
    // them. They are part of its failing execution (an `append` whose state a `to_bytes`
    // then shows wrong), not passing executions of their own.
    let unchecked = oracle
        .accepted
        .iter()
        .rposition(|c| c.returned.is_some())
        .map_or(0, |last| last + 1);
    let (checked, unchecked) = oracle.accepted.split_at(unchecked);
    let mut calls: Vec<(bool, Coverage)> = checked
        .iter()
        .map(|c| (false, sites_of(trace, c.events.clone())))
        .collect();
    let mut failing = sites_of(trace, call.events.clone());
    for c in unchecked {
        failing.extend(sites_of(trace, c.events.clone()));
    }
    calls.push((true, failing));
    if let Some(later) = &oracle.later {
        calls.extend(
            later
                .calls
                .iter()
                .map(|(c, failed)| (*failed, sites_of(&later.trace, c.events.clone()))),
        );
    }
    Some(calls)
}

/// The top-level calls of a passing test whose complete trace was recorded.
fn passing_calls(
    traces: &[crate::trace::RecordedTrace],
    test: &TestId,
) -> Option<Vec<(bool, Coverage)>> {
    let recorded = traces
        .iter()
        .find(|t| t.role == Role::Passing && same_test(&t.test, test))?;
    let trace = &recorded.trace;
    if trace.truncated || trace.coverage || !trace.complete {
        return None;
    }
    let calls = top_level_calls(trace);
    if calls.is_empty() {
        return None;
    }
    Some(
        calls
            .into_iter()
            .map(|c| (false, sites_of(trace, c.events)))
            .collect(),
    )
}

impl Spectrum {
    /// The technique as the options configure it, over `unit`.
    pub fn new(options: &crate::options::Options, unit: Unit) -> Spectrum {
        Spectrum {
            formula: options.spectrum,
            unit,
        }
    }
}

impl Technique for Spectrum {
    fn name(&self) -> &'static str {
        match (self.unit, self.formula) {
            (Unit::Calls, formula) => formula.name(),
            (Unit::Tests, Formula::Ochiai) => "ochiai-tests",
            (Unit::Tests, Formula::Dstar) => "dstar-tests",
        }
    }

    /// Over whole tests, the many sites that the same tests run tie, and a tie is no
    /// evidence for any one of them: they share the middle of their ranks.
    fn ties(&self) -> super::Ties {
        match self.unit {
            Unit::Calls => super::Ties::Best,
            Unit::Tests => super::Ties::Middle,
        }
    }

    fn localize(&self, context: &Context, notes: &mut Vec<String>) -> Result<Localized> {
        let units = match self.unit {
            Unit::Calls => units(context),
            Unit::Tests => whole_tests(context.baseline, &super::panic::interrupted(context)),
        };
        let (table, failed) = counts(units.executions.iter().map(|(f, c)| (*f, c)));
        if failed == 0 {
            notes.push(format!(
                "{}: no deterministic failure to rank against",
                self.name()
            ));
            return Ok(Localized::default());
        }
        let noun = units.noun();
        let mut suspects: Vec<(f64, Counts, &SiteInfo)> = table
            .into_values()
            .filter(|(counts, site)| counts.ef > 0 && is_candidate(site.kind))
            .map(|(counts, site)| (self.formula.score(counts, failed), counts, site))
            .collect();
        suspects.sort_by(|a, b| {
            b.0.total_cmp(&a.0)
                .then_with(|| (a.2.line, a.2.column).cmp(&(b.2.line, b.2.column)))
        });
        Ok(Localized::from(
            suspects
                .into_iter()
                .map(|(score, counts, site)| Suspect {
                    site: site.clone(),
                    path: crate::trace::workspace_path(context.workspace_root, &site.file),
                    evidence: vec![Evidence {
                        technique: self.name(),
                        score,
                        detail: format!(
                            "{score:.2} (run by {} of {failed} failing and {} passing {noun})",
                            counts.ef, counts.ep
                        ),
                    }],
                })
                .collect::<Vec<_>>(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use autodebug_runtime::protocol::SiteKind;

    fn coverage(lines: &[u32]) -> BTreeMap<SiteKey, SiteInfo> {
        lines
            .iter()
            .map(|&l| {
                let site = crate::localize::tests::site(l, SiteKind::Assign);
                (site.key(), site)
            })
            .collect()
    }

    #[test]
    fn ochiai_and_dstar_values() {
        // ef = 2 of F = 2 failing, ep = 2: ochiai = 2 / sqrt(2 · 4) = 0.7071.
        let c = Counts { ef: 2, ep: 2 };
        assert!((Formula::Ochiai.score(c, 2) - std::f64::consts::FRAC_1_SQRT_2).abs() < 1e-12);
        // dstar = 4 / (2 + 0) = 2.
        assert_eq!(Formula::Dstar.score(c, 2), 2.0);
        assert_eq!(Formula::Ochiai.score(Counts { ef: 0, ep: 5 }, 2), 0.0);
        assert_eq!(
            Formula::Dstar.score(Counts { ef: 2, ep: 0 }, 2),
            f64::INFINITY
        );
    }

    #[test]
    fn counts_per_site() {
        let (a, b, c) = (coverage(&[1, 2]), coverage(&[2, 3]), coverage(&[2]));
        let (table, failed) = counts([(true, &a), (false, &b), (true, &c)].into_iter());
        assert_eq!(failed, 2);
        let by_line: Vec<(u32, Counts)> = table.values().map(|(c, s)| (s.line, *c)).collect();
        assert_eq!(
            by_line,
            [
                (1, Counts { ef: 1, ep: 0 }),
                (2, Counts { ef: 2, ep: 1 }),
                (3, Counts { ef: 0, ep: 1 })
            ]
        );
    }

    fn test_id(name: &str) -> TestId {
        TestId {
            package: "p".into(),
            target: "p".into(),
            kind: "lib".into(),
            name: name.into(),
            binary: Default::default(),
            package_root: Default::default(),
        }
    }

    /// A trace of calls of one function, each running the sites of `lines` (the site ids
    /// are the lines).
    fn trace_of(calls: &[&[u32]]) -> RawTrace {
        use autodebug_runtime::protocol::{Record, Value};
        let mut trace = RawTrace {
            complete: true,
            ..RawTrace::default()
        };
        trace
            .sites
            .insert(0, crate::localize::tests::site(1, SiteKind::Fn));
        for call in calls {
            trace.events.push(Record::Enter {
                site: 0,
                args: vec![],
            });
            for &line in *call {
                trace
                    .sites
                    .insert(line, crate::localize::tests::site(line, SiteKind::Assign));
                trace.events.push(Record::Component {
                    site: line,
                    instance: 0,
                    value: Value::Unit,
                    overridden: false,
                    scope: vec![],
                });
            }
            trace.events.push(Record::Exit {
                site: 0,
                panicking: false,
            });
        }
        trace
    }

    fn baseline(name: &str, outcome: Outcome, lines: &[u32]) -> crate::baseline::BaselineResult {
        crate::baseline::BaselineResult {
            test: test_id(name),
            reruns: if outcome.passed() {
                vec![]
            } else {
                vec![outcome.clone()]
            },
            first: crate::engine::RunResult {
                outcome,
                stdout: String::new(),
                stderr: String::new(),
                duration: Default::default(),
            },
            coverage: coverage(lines),
        }
    }

    #[test]
    fn calls_the_oracle_names_are_the_units() {
        use crate::trace::RecordedTrace;
        let failed = Outcome::Failed {
            message: "assertion failed".into(),
            location: None,
        };
        // The failing test: two accepted calls (lines 2, 3, which returned a value, and 2,
        // 4, which returned none), then the failing one (2, 5). A passing test with a trace
        // of two calls, and one without a trace.
        let failing = trace_of(&[&[2, 3], &[2, 4], &[2, 5]]);
        let mut calls = top_level_calls(&failing);
        calls[0].returned = Some(crate::oracle::calls::Returned {
            site: 3,
            instance: 0,
            value: autodebug_runtime::protocol::Value::Bool(true),
        });
        let oracle = crate::oracle::Oracle {
            test: test_id("fails"),
            trace: 0,
            call: Some(calls[2].clone()),
            expectation: None,
            accepted: calls[..2].to_vec(),
            confirmed: false,
            reruns: 0,
            later_failure: None,
            why: None,
            // Past the failure, the test went on: one call its assertion accepted (lines 2,
            // 7), one it rejected (2, 8).
            later: {
                let rerun = trace_of(&[&[2, 7], &[2, 8]]);
                let calls = top_level_calls(&rerun);
                Some(crate::oracle::soft::Later {
                    trace: std::sync::Arc::new(rerun),
                    calls: vec![(calls[0].clone(), false), (calls[1].clone(), true)],
                })
            },
            other_side: None,
        };
        let traces = [
            RecordedTrace {
                test: test_id("fails"),
                role: Role::Failing,
                outcome: failed.clone(),
                trace: failing,
            },
            RecordedTrace {
                test: test_id("traced"),
                role: Role::Passing,
                outcome: Outcome::Passed,
                trace: trace_of(&[&[2, 3], &[2, 6]]),
            },
        ];
        let tests = [
            baseline("fails", failed.clone(), &[2, 3, 4, 5]),
            baseline("traced", Outcome::Passed, &[2, 3, 6]),
            baseline("untraced", Outcome::Passed, &[2, 5]),
        ];
        let units = units_of(&tests, &traces, std::slice::from_ref(&oracle), &[]);
        assert_eq!(units.calls, 6);
        assert_eq!(units.noun(), "executions (calls and tests)");
        let lines = |c: &Coverage| c.values().map(|s| s.line).collect::<Vec<_>>();
        let shown: Vec<(bool, Vec<u32>)> = units
            .executions
            .iter()
            .map(|(f, c)| (*f, lines(c)))
            .collect();
        assert_eq!(
            shown,
            [
                (false, vec![2, 3]),
                // The call that returned nothing is part of the failing execution.
                (true, vec![2, 4, 5]),
                (false, vec![2, 7]),
                (true, vec![2, 8]),
                (false, vec![2, 3]),
                (false, vec![2, 6]),
                (false, vec![2, 5]),
            ]
        );
        let (table, failed_units) = counts(units.executions.iter().map(|(f, c)| (*f, c)));
        assert_eq!(failed_units, 2);
        let five = table.values().find(|(_, s)| s.line == 5).unwrap().0;
        assert_eq!(five, Counts { ef: 1, ep: 1 });
        let four = table.values().find(|(_, s)| s.line == 4).unwrap().0;
        assert_eq!(four, Counts { ef: 1, ep: 0 });
        let two = table.values().find(|(_, s)| s.line == 2).unwrap().0;
        assert_eq!(two, Counts { ef: 2, ep: 5 });
        // Without its oracle the failing test is one failing execution over its coverage.
        let units = units_of(&tests, &traces, &[], &[]);
        assert_eq!(units.executions[0], (true, coverage(&[2, 3, 4, 5])));
        // A site a panic interrupted (line 9, whose hook never fired) ran in the failing
        // execution, a call or the whole test; in no passing one.
        let cut = [(test_id("fails"), coverage(&[9]))];
        let units = units_of(&tests, &traces, std::slice::from_ref(&oracle), &cut);
        let failing: Vec<_> = (units.executions.iter())
            .filter(|(_, c)| c.values().any(|s| s.line == 9))
            .collect();
        assert_eq!(failing, [&(true, coverage(&[2, 4, 5, 9]))]);
        let units = whole_tests(&tests, &cut);
        assert_eq!(units.executions[0], (true, coverage(&[2, 3, 4, 5, 9])));
        assert_eq!(units.executions[1], (false, coverage(&[2, 3, 6])));
        // Over whole tests, line 3 (run by an accepted call, a passing execution above) is
        // run by the failing test and one passing test, as line 5 is.
        let units = whole_tests(&tests, &[]);
        assert_eq!(units.calls, 0);
        assert_eq!(units.noun(), "tests");
        let (table, failed_tests) = counts(units.executions.iter().map(|(f, c)| (*f, c)));
        assert_eq!(failed_tests, 1);
        let counts_of = |line| table.values().find(|(_, s)| s.line == line).unwrap().0;
        assert_eq!(counts_of(3), Counts { ef: 1, ep: 1 });
        assert_eq!(counts_of(5), Counts { ef: 1, ep: 1 });
        assert_eq!(counts_of(6), Counts { ef: 0, ep: 1 });
    }
}
