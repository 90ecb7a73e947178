//! The baseline: every selected test once (recording which sites each reaches), then the
//! failing ones again to tell deterministic failures from flaky ones.

use anyhow::Result;
use autodebug_runtime::protocol;

use crate::console::Console;
use crate::engine::Recorder;
use crate::engine::batch::Job;
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
    let report = |test: &TestId, result: &Result<(RunResult, Coverage)>| {
        let label = match result {
            Ok((r, _)) => r.outcome.label(),
            Err(_) => "error",
        };
        let duration_s = result
            .as_ref()
            .map_or(0.0, |(r, _)| r.duration.as_secs_f64());
        console.event(&crate::model::Event::TestResult {
            test: &test.display(),
            outcome: label,
            duration_s,
        });
        progress.tick(&format!("{} {label}", test.display()));
    };
    let (mut firsts, batched, alone) = batched_runs(runner, tests, &report);
    let alone_runs = engine::run_parallel(
        &alone,
        jobs,
        |&i| -> Result<(RunResult, Coverage)> {
            let test = &tests[i];
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
        |&i, result| report(&tests[i], result),
    );
    progress.finish();
    for (&i, run) in alone.iter().zip(alone_runs) {
        firsts[i] = Some(run);
    }
    let mut results = Vec::new();
    for (test, first) in tests.iter().zip(firsts) {
        let (first, coverage) = first.expect("every test ran")?;
        results.push(BaselineResult {
            test: test.clone(),
            first,
            reruns: Vec::new(),
            coverage,
        });
    }
    // A test that did not pass in a batch ran again alone, its evidence a process's own
    // (its output, its coverage up to a hang); the batch's run counts as one of its reruns.
    // Where the batch failed it and it then passed alone, the failure is its first run.
    for (i, batch_run, batch_coverage) in batched {
        let result = &mut results[i];
        if result.first.outcome.passed() {
            let alone = std::mem::replace(&mut result.first, batch_run);
            result.coverage = batch_coverage;
            result.reruns.push(alone.outcome);
        } else {
            result.reruns.push(batch_run.outcome);
        }
    }
    let failing: Vec<usize> = results
        .iter()
        .enumerate()
        .filter(|(_, r)| !r.first.outcome.passed() && !matches!(r.first.outcome, Outcome::NotRun))
        .map(|(i, _)| i)
        .collect();
    if reruns > 0 && !failing.is_empty() {
        // A hang costs a whole timeout per rerun: one rerun tells enough.
        let reruns_of = |i: usize| {
            let wanted = match results[i].first.outcome {
                Outcome::Timeout { .. } => reruns.min(1),
                _ => reruns,
            };
            wanted.saturating_sub(results[i].reruns.len())
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

/// Tests of the baseline sent to batch processes at a time: each slice costs a process per
/// test binary (or per `--jobs`), and the progress line moves between slices.
const SLICE: usize = 512;

/// The first runs of the tests whose binaries take batches (see [`crate::engine::batch`]):
/// many tests per process, their coverage inline. Gives every test's first run where a
/// batch passed it (the rest: `None`), the batch runs of the tests that did not pass,
/// and the tests to run alone, each in a process of its own: those whose binaries take no
/// batches and those a batch did not pass.
#[allow(clippy::type_complexity)]
fn batched_runs(
    runner: &Recorder,
    tests: &[TestId],
    report: &impl Fn(&TestId, &Result<(RunResult, Coverage)>),
) -> (
    Vec<Option<Result<(RunResult, Coverage)>>>,
    Vec<(usize, RunResult, Coverage)>,
    Vec<usize>,
) {
    let mut firsts: Vec<Option<Result<(RunResult, Coverage)>>> =
        (0..tests.len()).map(|_| None).collect();
    let (takes_batches, mut alone): (Vec<usize>, Vec<usize>) = (0..tests.len())
        .partition(|&i| crate::engine::batch::supports_batch(&runner.engine, &tests[i]));
    // The runs obey the plan the user gave (`--plan`), as a process of its own would.
    let plan = match runner
        .base_env
        .iter()
        .find(|(k, _)| k == protocol::ENV_PLAN)
    {
        None => Some(protocol::Plan {
            version: protocol::PLAN_VERSION,
            ..protocol::Plan::default()
        }),
        Some((_, path)) => (std::fs::read(path).ok())
            .and_then(|json| serde_json::from_slice::<protocol::Plan>(&json).ok()),
    };
    let Some(plan) = plan else {
        // A plan the tool cannot read: each test runs alone and says so.
        return (firsts, Vec::new(), (0..tests.len()).collect());
    };
    let mut batched = Vec::new();
    for slice in takes_batches.chunks(SLICE) {
        let jobs: Vec<Job> = (slice.iter())
            .map(|&i| Job {
                test: &tests[i],
                plan: &plan,
                group: None,
            })
            .collect();
        let Ok(runs) = runner.run_many(&jobs, "coverage") else {
            // The batches could not be run at all: each test runs alone.
            alone.extend_from_slice(slice);
            continue;
        };
        for (&i, (result, raw)) in slice.iter().zip(runs) {
            let coverage: Coverage = (raw.sites.into_values())
                .map(|site| (site.key(), site))
                .collect();
            if result.outcome.passed() {
                let first = Ok((result, coverage));
                report(&tests[i], &first);
                firsts[i] = Some(first);
            } else {
                batched.push((i, result, coverage));
                alone.push(i);
            }
        }
    }
    alone.sort_unstable();
    (firsts, batched, alone)
}
