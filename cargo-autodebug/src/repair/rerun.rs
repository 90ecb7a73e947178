//! Validation by rerun: the instrumented tests run again under a plan that replaces the
//! candidate's sites by its expressions, evaluated at the hooks — no rebuild per candidate.
//! Only the tests whose baseline reached one of the sites can behave differently, so only
//! they are rerun (and the failing tests, which may have failed inside a site's code before
//! its hook saw it); the others keep their baseline outcome. Several candidates share one
//! process per test where the test binary runs batches.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::Result;
use autodebug_runtime::protocol::{self, Plan, Replacement, SiteInfo, SiteKey, Target};

use super::Candidate;
use super::validate::SuiteTest;
use crate::baseline::BaselineResult;
use crate::engine::Recorder;
use crate::engine::batch::Job;
use crate::model::Outcome;

/// What a rerun of the suite under a candidate showed.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Every required test passed: the candidate is plausible.
    Plausible { passed: Vec<bool> },
    /// Some required tests still fail (`target::name`): counterexamples.
    Refuted {
        passed: Vec<bool>,
        failing: Vec<String>,
    },
    /// The runtime cannot judge: it cannot evaluate the expression at the site, or the
    /// written code panicked before the replacement could take its place. Only a rebuild
    /// can tell.
    Inconclusive { reason: String },
    /// Not rerun on the passing tests: enough simpler candidates of the same batch were
    /// plausible first (on a large suite every candidate costs the whole suite).
    Skipped,
}

/// Reruns the suite under candidates.
pub struct Rerun<'a> {
    pub recorder: &'a Recorder<'a>,
    /// The baseline, in suite order.
    pub baseline: &'a [BaselineResult],
    pub suite: &'a [SuiteTest],
    /// Hook calls a run may make before it counts as running away.
    pub fuel: u64,
    /// Tighter fuel for the tests whose run was recorded (`target::name`): a multiple of the
    /// hook calls the written code made, so that a candidate sending a loop into a runaway
    /// is stopped in milliseconds rather than after `fuel` calls.
    pub fuel_by_test: BTreeMap<String, u64>,
    /// Test runs so far.
    pub runs: AtomicUsize,
    /// Candidates checked so far.
    pub checked: AtomicUsize,
    /// No test run starts after this: the candidates it would have judged stay unjudged.
    pub deadline: Option<std::time::Instant>,
    /// Plausible candidates of one batch after which the others are skipped.
    pub enough: usize,
}

/// The plan under which the runtime evaluates `candidate` in place of its sites' code, or
/// `None` when some edit has no expression the runtime evaluates.
pub fn plan(candidate: &Candidate, fuel: u64) -> Option<Plan> {
    let replacements = candidate
        .edits
        .iter()
        .map(|edit| {
            Some(Replacement {
                target: Target {
                    site: edit.site.clone(),
                    instance: None,
                },
                expr: edit.expr.clone()?,
            })
        })
        .collect::<Option<Vec<_>>>()?;
    Some(Plan {
        version: protocol::PLAN_VERSION,
        replacements,
        fuel: Some(fuel),
        ..Plan::default()
    })
}

/// Candidates whose passing tests are rerun together (see [`Rerun::check`]).
const REST_CHUNK: usize = 4;

/// Which tests a round of [`Rerun::check`] runs.
#[derive(Clone, Copy)]
enum Phase {
    /// One test that failed in the baseline (the quickest).
    FirstFailing(usize),
    /// The other tests that failed in the baseline.
    OtherFailing(usize),
    /// The passing tests that reach a replaced site.
    Rest,
}

/// How one test ran under one candidate.
enum TestResult {
    Passed,
    Failed,
    Unjudged(String),
}

impl Rerun<'_> {
    /// Checks candidates (each with its plan and the sites it replaces) against the suite.
    ///
    /// Failing tests first: a candidate is run on one test that failed in the baseline,
    /// then on the others, and only a candidate that passes them all is run on the rest.
    /// Most candidates are refuted by the first failing test, so most cost one test run
    /// instead of one per test that reaches the site (the order of test-suite-based repair
    /// tools). A refuted candidate's other tests keep their baseline outcome in `passed`:
    /// they were not run.
    pub fn check(&self, candidates: &[(&Candidate, Plan, Vec<SiteInfo>)]) -> Result<Vec<Verdict>> {
        let all: Vec<usize> = (0..candidates.len()).collect();
        let mut outcomes: Vec<BTreeMap<usize, TestResult>> =
            (0..candidates.len()).map(|_| BTreeMap::new()).collect();
        let standing = |outcomes: &[BTreeMap<usize, TestResult>], among: &[usize]| -> Vec<usize> {
            among
                .iter()
                .copied()
                .filter(|&c| {
                    !outcomes[c]
                        .values()
                        .any(|r| matches!(r, TestResult::Failed))
                })
                .collect()
        };
        let quickest = (self.baseline.iter().enumerate())
            .filter(|(t, r)| !r.first.outcome.passed() && !self.suite[*t].out_of_reach)
            .min_by_key(|(_, r)| r.first.duration)
            .map(|(t, _)| t);
        let mut survivors = all;
        if let Some(first) = quickest {
            for phase in [Phase::FirstFailing(first), Phase::OtherFailing(first)] {
                self.run_phase(candidates, &survivors, phase, &mut outcomes)?;
                survivors = standing(&outcomes, &survivors);
            }
        }
        // The rest a few candidates at a time, in the order given (simplest first): when the
        // time runs out on a large suite, the first ones are judged rather than all half-way.
        let mut skipped = vec![false; candidates.len()];
        let mut chunks = survivors.chunks(REST_CHUNK);
        let mut plausible = 0;
        for chunk in chunks.by_ref() {
            self.run_phase(candidates, chunk, Phase::Rest, &mut outcomes)?;
            plausible += chunk
                .iter()
                .filter(|&&c| matches!(self.verdict(&outcomes[c]), Verdict::Plausible { .. }))
                .count();
            if plausible >= self.enough {
                break;
            }
        }
        for chunk in chunks {
            for &c in chunk {
                skipped[c] = true;
            }
        }
        self.checked.fetch_add(candidates.len(), Ordering::Relaxed);
        Ok(outcomes
            .into_iter()
            .zip(skipped)
            .map(|(by_test, skipped)| {
                if skipped {
                    Verdict::Skipped
                } else {
                    self.verdict(&by_test)
                }
            })
            .collect())
    }

    /// Whether each candidate breaks a passing test that reaches one of its sites (a test
    /// it cannot be judged on does not count as broken).
    pub fn breaks_passing(
        &self,
        candidates: &[(&Candidate, Plan, Vec<SiteInfo>)],
    ) -> Result<Vec<bool>> {
        let all: Vec<usize> = (0..candidates.len()).collect();
        let mut outcomes: Vec<BTreeMap<usize, TestResult>> =
            (0..candidates.len()).map(|_| BTreeMap::new()).collect();
        self.run_phase(candidates, &all, Phase::Rest, &mut outcomes)?;
        Ok(outcomes
            .iter()
            .map(|by_test| by_test.values().any(|r| matches!(r, TestResult::Failed)))
            .collect())
    }

    /// Runs the tests of `phase` that `chosen` candidates must run (those whose baseline
    /// reached one of the candidate's sites, and the failing tests), recording how each ran.
    fn run_phase(
        &self,
        candidates: &[(&Candidate, Plan, Vec<SiteInfo>)],
        chosen: &[usize],
        phase: Phase,
        outcomes: &mut [BTreeMap<usize, TestResult>],
    ) -> Result<()> {
        // Which candidates each test must run under.
        let mut per_test: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for &c in chosen {
            let keys: Vec<SiteKey> = candidates[c].2.iter().map(SiteInfo::key).collect();
            for (t, result) in self.baseline.iter().enumerate() {
                let failed = !result.first.outcome.passed();
                let wanted = match phase {
                    Phase::FirstFailing(first) => t == first,
                    Phase::OtherFailing(first) => {
                        failed && !self.suite[t].out_of_reach && t != first
                    }
                    Phase::Rest => !failed && keys.iter().any(|k| result.coverage.contains_key(k)),
                };
                if wanted {
                    per_test.entry(t).or_default().push(c);
                }
            }
        }
        // Every run of the phase at once: the runs of one test binary share a process or
        // two, whatever test and candidate each is.
        let mut runs: Vec<(usize, usize, Plan)> = Vec::new();
        for (t, cs) in per_test {
            let fuel = self
                .fuel_by_test
                .get(&self.baseline[t].test.display())
                .copied();
            for c in cs {
                let mut plan = candidates[c].1.clone();
                if fuel.is_some() {
                    plan.fuel = fuel;
                }
                runs.push((t, c, plan));
            }
        }
        if self
            .deadline
            .is_some_and(|d| std::time::Instant::now() >= d)
        {
            for (t, c, _) in runs {
                outcomes[c].insert(
                    t,
                    TestResult::Unjudged("the repair stage's time ran out".into()),
                );
            }
            return Ok(());
        }
        self.runs.fetch_add(runs.len(), Ordering::Relaxed);
        // A candidate stops at its first test that does not pass (it is refuted, or cannot
        // be judged): a runaway costs its fuel once.
        let jobs: Vec<Job> = runs
            .iter()
            .map(|(t, c, plan)| Job {
                test: &self.baseline[*t].test,
                plan,
                group: u32::try_from(*c).ok(),
            })
            .collect();
        let results = self.recorder.run_many(&jobs, "coverage")?;
        for ((t, c, _), (run, _)) in runs.iter().zip(results) {
            // A run skipped after its candidate's first run that did not pass is no
            // evidence: not the baseline's outcome (a failing test's would refute a
            // candidate that stopped at a test it cannot be judged on).
            let result = if run.outcome == Outcome::NotRun {
                TestResult::Unjudged(
                    "not run: an earlier test of the candidate did not pass".into(),
                )
            } else {
                judge(&run.outcome, &candidates[*c].2)
            };
            outcomes[*c].insert(*t, result);
        }
        Ok(())
    }

    fn verdict(&self, by_test: &BTreeMap<usize, TestResult>) -> Verdict {
        let mut passed = Vec::with_capacity(self.suite.len());
        let mut failing = Vec::new();
        let mut unjudged = None;
        for (t, test) in self.suite.iter().enumerate() {
            let ok = match by_test.get(&t) {
                None => self.baseline[t].first.outcome.passed(),
                Some(TestResult::Passed) => true,
                Some(TestResult::Failed) => false,
                Some(TestResult::Unjudged(reason)) => {
                    if test.required {
                        unjudged.get_or_insert_with(|| format!("{}: {reason}", test.display));
                    }
                    false
                }
            };
            if test.required && !ok && !matches!(by_test.get(&t), Some(TestResult::Unjudged(_))) {
                failing.push(test.display.clone());
            }
            passed.push(ok);
        }
        match (failing.is_empty(), unjudged) {
            (false, _) => Verdict::Refuted { passed, failing },
            (true, Some(reason)) => Verdict::Inconclusive { reason },
            (true, None) => Verdict::Plausible { passed },
        }
    }
}

/// Whether `site`'s span holds the place `file:line:column` (a panic's location).
pub(super) fn holds(site: &SiteInfo, file: &str, line: u32, column: u32) -> bool {
    file == site.file
        && (site.line, site.column) <= (line, column)
        && (line, column) < (site.end_line, site.end_column)
}

/// How a run went, as evidence about the candidate: a refusal of the plan (the runtime
/// cannot evaluate the expression) and a panic inside a replaced site (the written code,
/// which still runs first, panicked) say nothing about it.
fn judge(outcome: &Outcome, sites: &[SiteInfo]) -> TestResult {
    match outcome {
        Outcome::Passed => TestResult::Passed,
        Outcome::Crashed { description } if description.contains("refused its configuration") => {
            TestResult::Unjudged(description.clone())
        }
        Outcome::Failed {
            location: Some(at),
            message,
        } if sites
            .iter()
            .any(|site| holds(site, &at.file, at.line, at.column)) =>
        {
            TestResult::Unjudged(format!(
                "the written code panicked before the replacement: {}",
                message.lines().next().unwrap_or("")
            ))
        }
        _ => TestResult::Failed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Location;
    use autodebug_runtime::protocol::{Expr, SiteKind};

    fn site() -> SiteInfo {
        SiteInfo {
            file: "src/lib.rs".into(),
            line: 14,
            column: 17,
            end_line: 14,
            end_column: 30,
            kind: SiteKind::Bound,
            code: "src.len() - 1".into(),
            function: "copy".into(),
        }
    }

    fn failed_at(line: u32, column: u32) -> Outcome {
        Outcome::Failed {
            message: "attempt to subtract with overflow".into(),
            location: Some(Location {
                file: "src/lib.rs".into(),
                line,
                column,
            }),
        }
    }

    #[test]
    fn panics_of_the_written_code_and_refusals_are_unjudged() {
        let sites = [site()];
        assert!(matches!(
            judge(&failed_at(14, 17), &sites),
            TestResult::Unjudged(r) if r.contains("written code panicked")
        ));
        assert!(matches!(
            judge(&failed_at(14, 30), &sites),
            TestResult::Failed
        ));
        assert!(matches!(
            judge(&failed_at(20, 1), &sites),
            TestResult::Failed
        ));
        let refused = Outcome::Crashed {
            description: "the autodebug runtime refused its configuration: autodebug: …".into(),
        };
        assert!(matches!(judge(&refused, &sites), TestResult::Unjudged(_)));
        assert!(matches!(
            judge(&Outcome::Passed, &sites),
            TestResult::Passed
        ));
        assert!(matches!(
            judge(&Outcome::FuelExhausted, &sites),
            TestResult::Failed
        ));
    }

    #[test]
    fn a_plan_needs_every_edit_evaluable() {
        let edit = |expr: Option<Expr>| super::super::CandidateEdit {
            site: site().key(),
            rust: "src.len()".into(),
            expr,
            statement: None,
        };
        let candidate = |edits| Candidate {
            edits,
            template: "loop-bound±1".into(),
            cost: 1,
            source: "syntactic",
        };
        let plan = plan(&candidate(vec![edit(Some(Expr::Original))]), 99).unwrap();
        assert_eq!(plan.replacements.len(), 1);
        assert_eq!(plan.fuel, Some(99));
        assert!(
            super::plan(&candidate(vec![edit(Some(Expr::Original)), edit(None)]), 99).is_none()
        );
    }
}
