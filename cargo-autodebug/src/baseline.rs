//! The baseline: every selected test once (recording which sites each reaches), then the
//! failing ones again to tell deterministic failures from flaky ones.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use autodebug_runtime::protocol::{self, SiteInfo, SiteKey};
use serde::{Deserialize, Serialize};

use crate::console::Console;
use crate::engine::Recorder;
use crate::engine::batch::{Budget, Job};
use crate::engine::{self, RunConfig, RunResult};
use crate::model::{Outcome, Shard, TestId};
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

    /// Not run: the baseline's budget was spent before its turn.
    pub fn left_out(&self) -> bool {
        self.first.outcome == Outcome::NotRun && self.first.stderr == LEFT_OUT
    }

    /// Failed at least once and passed at least once.
    pub fn flaky(&self) -> bool {
        !self.first.outcome.passed() && self.reruns.iter().any(Outcome::passed)
    }
}

/// Runs the baseline over `tests` (with the runner's engine, environment, timeout, jobs
/// and scratch directory), failures `reruns` more times. Once it has run for `budget` and
/// some test failed, the tests not yet run are left out ([`Outcome::NotRun`], no
/// coverage): the tests that take batches go first, the slow ones of their own process
/// last.
pub fn run(
    runner: &Recorder,
    tests: &[TestId],
    reruns: usize,
    budget: Option<Duration>,
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
    // A test's first run, as it ends (`None`: it could not be run).
    let report = |test: &TestId, result: Option<&RunResult>| {
        let label = result.map_or("error", |r| r.outcome.label());
        let duration_s = result.map_or(0.0, |r| r.duration.as_secs_f64());
        console.event(&crate::model::Event::TestResult {
            test: &test.display(),
            outcome: label,
            duration_s,
        });
        progress.tick(&format!("{} {label}", test.display()));
    };
    let budget = budget.map(Budget::new);
    let (mut firsts, batched, alone) = batched_runs(runner, tests, budget.as_ref(), &report);
    let alone_runs = engine::run_parallel(
        &alone,
        jobs,
        |&i| -> Result<(RunResult, Coverage)> {
            let test = &tests[i];
            // A test that failed in a batch runs again whatever the budget.
            let failed = batched.iter().any(|(j, ..)| *j == i);
            if !failed && budget.as_ref().is_some_and(Budget::spent) {
                return Ok((left_out(), Coverage::default()));
            }
            let coverage_file = engine::scratch_file(scratch, test, "coverage.jsonl");
            let mut env = base_env.to_vec();
            env.push((
                protocol::ENV_TRACE.into(),
                coverage_file.display().to_string(),
            ));
            env.push((protocol::ENV_TRACE_MODE.into(), "coverage".into()));
            let result = engine::run_test(engine, test, &RunConfig { timeout, env })?;
            if let Some(budget) = &budget {
                budget.note(&result.outcome);
            }
            let coverage = trace::read_coverage(&coverage_file);
            std::fs::remove_file(&coverage_file).ok();
            Ok((result, coverage))
        },
        |&i, result| report(&tests[i], result.as_ref().ok().map(|(r, _)| r)),
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
    rerun_failures(runner, &mut results, reruns, console)?;
    Ok(results)
}

/// Reruns each failing test of `results` up to `reruns` times in all (a hang once: it costs
/// a whole timeout), each outcome among its reruns.
fn rerun_failures(
    runner: &Recorder,
    results: &mut [BaselineResult],
    reruns: usize,
    console: &Console,
) -> Result<()> {
    let Recorder {
        engine,
        base_env,
        timeout,
        jobs,
        ..
    } = runner;
    let (timeout, jobs) = (*timeout, *jobs);
    let failing: Vec<usize> = results
        .iter()
        .enumerate()
        .filter(|(_, r)| !r.first.outcome.passed() && !matches!(r.first.outcome, Outcome::NotRun))
        .map(|(i, _)| i)
        .collect();
    if reruns > 0 && !failing.is_empty() {
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
    Ok(())
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
    budget: Option<&Budget>,
    report: &(dyn Fn(&TestId, Option<&RunResult>) + Sync),
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
        // The tests that passed (or were left out) are reported as their batches end; the
        // others, once they ran again alone.
        let done = |j: usize, result: &RunResult| {
            if result.outcome.passed() || result.outcome == Outcome::NotRun {
                report(&tests[slice[j]], Some(result));
            }
        };
        let Ok(runs) = crate::engine::batch::run_within(runner, &jobs, "coverage", budget, &done)
        else {
            // The batches could not be run at all: each test runs alone.
            alone.extend_from_slice(slice);
            continue;
        };
        for (&i, (result, raw)) in slice.iter().zip(runs) {
            let coverage: Coverage = (raw.sites.into_values())
                .map(|site| (site.key(), site))
                .collect();
            // Passed, or left out by the budget.
            if result.outcome == Outcome::NotRun {
                firsts[i] = Some(Ok((left_out(), coverage)));
            } else if result.outcome.passed() {
                firsts[i] = Some(Ok((result, coverage)));
            } else {
                batched.push((i, result, coverage));
                alone.push(i);
            }
        }
    }
    alone.sort_unstable();
    (firsts, batched, alone)
}

/// What a test the budget left out says instead of its output.
const LEFT_OUT: &str = "not run: the baseline's time budget was spent before its turn";

/// The first run of a test the budget left out.
fn left_out() -> RunResult {
    RunResult {
        outcome: Outcome::NotRun,
        stdout: String::new(),
        stderr: LEFT_OUT.to_string(),
        duration: Duration::ZERO,
    }
}

/// A shard's share of the baseline (`--shard K/N --baseline-only`, `baseline.json` in its
/// output directory), read back by `--baseline-from`: the runs of the tests the shard
/// owns, with what the analysis needs of them (outcomes, output, coverage).
#[derive(Serialize, Deserialize)]
pub struct Part {
    /// [`PART_VERSION`]: a part of another version of the tool is refused.
    pub version: u32,
    pub shard: Shard,
    /// Every test the selection kept, in order: the run that reads the parts must have
    /// selected the same.
    pub selected: Vec<TestId>,
    /// Seconds the share took.
    pub seconds: f64,
    pub results: Vec<StoredResult>,
}

/// The format of [`Part`].
pub const PART_VERSION: u32 = 1;

/// One test's baseline in a [`Part`].
#[derive(Serialize, Deserialize)]
pub struct StoredResult {
    pub test: TestId,
    pub outcome: Outcome,
    pub stdout: String,
    pub stderr: String,
    pub duration_s: f64,
    pub reruns: Vec<Outcome>,
    /// The sites the first run reached (a list: JSON maps take text keys only).
    pub coverage: Vec<(SiteKey, SiteInfo)>,
}

impl StoredResult {
    fn new(result: &BaselineResult) -> StoredResult {
        StoredResult {
            test: result.test.clone(),
            outcome: result.first.outcome.clone(),
            stdout: result.first.stdout.clone(),
            stderr: result.first.stderr.clone(),
            duration_s: result.first.duration.as_secs_f64(),
            reruns: result.reruns.clone(),
            coverage: (result.coverage.iter())
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        }
    }
}

/// The part of `shard`, whose share of the selected `tests` gave `results`.
pub fn part(shard: Shard, tests: &[TestId], results: &[BaselineResult], seconds: f64) -> Part {
    Part {
        version: PART_VERSION,
        shard,
        selected: tests.to_vec(),
        seconds,
        results: results.iter().map(StoredResult::new).collect(),
    }
}

/// The baseline of the selected `tests` from the parts in `dirs` (every shard of one split,
/// run on the same selection), in the order of `tests`, and the slowest part's seconds.
pub fn from_parts(dirs: &[PathBuf], tests: &[TestId]) -> Result<(Vec<BaselineResult>, f64)> {
    let mut parts: Vec<(PathBuf, Part)> = Vec::new();
    for dir in dirs {
        let file = dir.join(PART_FILE);
        let text = std::fs::read_to_string(&file).with_context(|| {
            format!(
                "could not read {}: --baseline-from takes the output directories of \
                 `cargo autodebug --shard K/N --baseline-only` runs",
                file.display()
            )
        })?;
        let part: Part = serde_json::from_str(&text)
            .with_context(|| format!("{} is not a baseline part", file.display()))?;
        if part.version != PART_VERSION {
            bail!(
                "{} was written by another version of cargo-autodebug (format {}, this one \
                 reads {PART_VERSION}): run every shard with the same version",
                file.display(),
                part.version
            );
        }
        parts.push((dir.clone(), part));
    }
    let count = parts[0].1.shard.count;
    let mut by_index: Vec<Option<&Path>> = vec![None; count];
    for (dir, part) in &parts {
        if part.shard.count != count {
            bail!(
                "{} holds shard {} but {} holds shard {}: the parts are of different splits",
                dir.display(),
                part.shard,
                parts[0].0.display(),
                parts[0].1.shard
            );
        }
        if part.shard.index >= count {
            bail!(
                "{} names shard {} of a split in {count}: it was not written by \
                 `--shard K/N --baseline-only`",
                dir.join(PART_FILE).display(),
                part.shard.index,
            );
        }
        if let Some(other) = by_index[part.shard.index].replace(dir) {
            bail!(
                "shard {} is given twice ({} and {})",
                part.shard,
                other.display(),
                dir.display()
            );
        }
        let keys = |tests: &[TestId]| -> Vec<[String; 4]> {
            tests.iter().map(|t| t.key().map(str::to_owned)).collect()
        };
        if keys(&part.selected) != keys(tests) {
            bail!(
                "{} ran the baseline of another selection ({} tests; this run selects {}): \
                 run every shard on the same commit with the same test selection",
                dir.display(),
                part.selected.len(),
                tests.len()
            );
        }
    }
    if let Some(missing) = by_index.iter().position(Option::is_none) {
        bail!(
            "shard {missing}/{count} is missing: --baseline-from needs the directory of \
             every shard of the split"
        );
    }
    let mut stored: HashMap<[String; 4], StoredResult> = HashMap::new();
    let mut seconds: f64 = 0.0;
    for (_, part) in parts {
        seconds = seconds.max(part.seconds);
        for result in part.results {
            stored.insert(result.test.key().map(str::to_owned), result);
        }
    }
    let mut results = Vec::with_capacity(tests.len());
    for test in tests {
        let Some(stored) = stored.remove(&test.key().map(str::to_owned)) else {
            bail!(
                "no shard ran {}: the parts were written by runs that split the tests \
                 differently",
                test.display()
            );
        };
        results.push(BaselineResult {
            test: test.clone(),
            first: RunResult {
                outcome: stored.outcome,
                stdout: stored.stdout,
                stderr: stored.stderr,
                duration: Duration::from_secs_f64(stored.duration_s.max(0.0)),
            },
            reruns: stored.reruns,
            coverage: stored.coverage.into_iter().collect(),
        });
    }
    Ok((results, seconds))
}

/// The name of a part in a shard's output directory.
pub const PART_FILE: &str = "baseline.json";

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes `part` as the `baseline.json` of a new directory under `root`.
    fn write_part(root: &Path, name: &str, part: &Part) -> PathBuf {
        let dir = root.join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(PART_FILE), serde_json::to_string(part).unwrap()).unwrap();
        dir
    }

    #[test]
    fn a_part_naming_a_shard_past_its_split_is_refused() {
        let root = tempfile::tempdir().unwrap();
        let tests: Vec<TestId> = Vec::new();
        let dirs = [
            write_part(
                root.path(),
                "a",
                &part(Shard { index: 0, count: 2 }, &tests, &[], 0.1),
            ),
            // Edited by hand: shard 5 of 2.
            write_part(
                root.path(),
                "b",
                &part(Shard { index: 5, count: 2 }, &tests, &[], 0.1),
            ),
        ];
        let Err(error) = from_parts(&dirs, &tests) else {
            panic!("a part past its split is read");
        };
        let error = error.to_string();
        assert!(error.contains("names shard 5 of a split in 2"), "{error}");
        // The two shards of the split are read.
        let dirs = [
            dirs[0].clone(),
            write_part(
                root.path(),
                "c",
                &part(Shard { index: 1, count: 2 }, &tests, &[], 0.1),
            ),
        ];
        assert!(from_parts(&dirs, &tests).is_ok());
    }
}
