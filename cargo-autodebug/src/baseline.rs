//! The baseline: every selected test once (recording which sites each reaches), then the
//! failing ones again to tell deterministic failures from flaky ones.

use anyhow::Result;
use autodebug_runtime::protocol;

use crate::console::Console;
use crate::engine::Recorder;
use crate::engine::{self, RunConfig, RunResult};
use crate::model::{Outcome, TestId};
use crate::trace::{self, Coverage};

/// One test's baseline.
#[derive(Debug)]
pub struct BaselineResult {
    pub test: TestId,
    /// The first run.
    pub first: RunResult,
    /// Outcomes of the reruns (only for tests that did not pass).
    pub reruns: Vec<Outcome>,
    /// Instrumented sites the first run reached.
    pub coverage: Coverage,
}

impl BaselineResult {
    /// Failed the first time, and every rerun failed the same way.
    pub fn deterministic_failure(&self) -> bool {
        !self.first.outcome.passed()
            && !matches!(self.first.outcome, Outcome::NotRun)
            && self.reruns.iter().all(|o| o.same_kind(&self.first.outcome))
    }

    /// Failed at least once and passed at least once.
    pub fn flaky(&self) -> bool {
        !self.first.outcome.passed() && self.reruns.iter().any(Outcome::passed)
    }
}

/// Runs the baseline over `tests` (with the runner's engine, environment, timeout, jobs
/// and scratch directory), failures `reruns` more times.
pub fn run(
    runner: &Recorder,
    tests: &[TestId],
    reruns: usize,
    console: &Console,
) -> Result<Vec<BaselineResult>> {
    let Recorder {
        engine,
        base_env,
        timeout,
        jobs,
        scratch,
        ..
    } = runner;
    let (timeout, jobs) = (*timeout, *jobs);
    let progress = console.progress("Running", "baseline", tests.len());
    let firsts = engine::run_parallel(
        tests,
        jobs,
        |test| -> Result<(RunResult, Coverage)> {
            let coverage_file = engine::scratch_file(scratch, test, "coverage.jsonl");
            let mut env = base_env.to_vec();
            env.push((
                protocol::ENV_TRACE.into(),
                coverage_file.display().to_string(),
            ));
            env.push((protocol::ENV_TRACE_MODE.into(), "coverage".into()));
            let result = engine::run_test(engine, test, &RunConfig { timeout, env })?;
            let coverage = trace::read_coverage(&coverage_file);
            std::fs::remove_file(&coverage_file).ok();
            Ok((result, coverage))
        },
        |test, result| {
            let label = match result {
                Ok((r, _)) => r.outcome.label(),
                Err(_) => "error",
            };
            let duration_s = result
                .as_ref()
                .map_or(0.0, |(r, _)| r.duration.as_secs_f64());
            let test_name = &test.display();
            console.event(&crate::model::Event::TestResult {
                test: test_name,
                outcome: label,
                duration_s,
            });
            progress.tick(&format!("{} {label}", test.display()));
        },
    );
    progress.finish();
    let mut results = Vec::new();
    for (test, first) in tests.iter().zip(firsts) {
        let (first, coverage) = first?;
        results.push(BaselineResult {
            test: test.clone(),
            first,
            reruns: Vec::new(),
            coverage,
        });
    }
    let failing: Vec<usize> = results
        .iter()
        .enumerate()
        .filter(|(_, r)| !r.first.outcome.passed() && !matches!(r.first.outcome, Outcome::NotRun))
        .map(|(i, _)| i)
        .collect();
    if reruns > 0 && !failing.is_empty() {
        // A hang costs a whole timeout per rerun: one rerun tells enough.
        let reruns_of = |i: usize| match results[i].first.outcome {
            Outcome::Timeout { .. } => reruns.min(1),
            _ => reruns,
        };
        let jobs_list: Vec<(usize, usize)> = failing
            .iter()
            .flat_map(|&i| (0..reruns_of(i)).map(move |k| (i, k)))
            .collect();
        let progress = console.progress("Rerunning", "failing tests", jobs_list.len());
        let outcomes = engine::run_parallel(
            &jobs_list,
            jobs,
            |&(i, _)| {
                engine::run_test(
                    engine,
                    &results[i].test,
                    &RunConfig {
                        timeout,
                        env: base_env.to_vec(),
                    },
                )
            },
            |&(i, _), r| {
                let label = r.as_ref().map_or("error", |r| r.outcome.label());
                progress.tick(&format!("{} {label}", results[i].test.display()));
            },
        );
        progress.finish();
        for ((i, _), outcome) in jobs_list.into_iter().zip(outcomes) {
            results[i].reruns.push(outcome?.outcome);
        }
    }
    Ok(results)
}
