//! Running many tests of a binary in one process, as `cargo test` does with one thread:
//! whether each passed, read from the harness's private result file (`--logfile`), at the
//! cost of a process per binary (or one per `--jobs`) instead of one per test. A test the
//! shared process gives no verdict on (it crashed, hung, or the binary refuses
//! `--logfile`) runs again in a process of its own, as does a test that failed (another
//! test's leftovers in the process must not refute a fix), so the verdicts are those of
//! separate processes.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use anyhow::{Context, Result};

use super::verdict::Verdict;
use super::{Engine, RunConfig};
use crate::model::TestId;

/// Tests per process below which splitting a binary's tests across `--jobs` processes does
/// not pay for the extra process start.
const MIN_TESTS_PER_PROCESS: usize = 32;

/// Failed tests of a shared run beyond which the rest are not rerun alone to confirm (the
/// candidate behind them is refuted many times over).
const MAX_CONFIRMED: usize = 16;

/// Whether each of `tests` (with its timeout) passes, in order. Each binary's tests run
/// together, `jobs` processes at a time; see the module's text for the ones that run alone.
pub fn run_together(
    engine: &Engine,
    tests: &[(&TestId, Duration)],
    jobs: usize,
) -> Result<Vec<bool>> {
    let mut by_binary: BTreeMap<(&Path, &Path), Vec<usize>> = BTreeMap::new();
    for (i, (test, _)) in tests.iter().enumerate() {
        (by_binary.entry((&test.binary, &test.package_root)))
            .or_default()
            .push(i);
    }
    let mut chunks: Vec<Vec<usize>> = Vec::new();
    for (_, indices) in by_binary {
        let processes = jobs
            .min(indices.len().div_ceil(MIN_TESTS_PER_PROCESS))
            .max(1);
        chunks.extend((indices.chunks(indices.len().div_ceil(processes))).map(<[usize]>::to_vec));
    }
    let shared = super::run_parallel(
        &chunks,
        jobs,
        |chunk| one_process(engine, tests, chunk),
        |_, _| {},
    );
    let mut verdicts: Vec<Option<bool>> = vec![None; tests.len()];
    for (chunk, result) in chunks.iter().zip(shared) {
        for (&i, verdict) in chunk.iter().zip(result?) {
            verdicts[i] = verdict;
        }
    }
    let mut alone: Vec<usize> = (0..tests.len())
        .filter(|&i| verdicts[i].is_none())
        .collect();
    let failed: Vec<usize> = (0..tests.len())
        .filter(|&i| verdicts[i] == Some(false))
        .collect();
    if failed.len() <= MAX_CONFIRMED {
        alone.extend(failed);
    }
    let separate = super::run_parallel(
        &alone,
        jobs,
        |&i| {
            let (test, timeout) = tests[i];
            super::run_test(
                engine,
                test,
                &RunConfig {
                    timeout,
                    env: Vec::new(),
                },
            )
        },
        |_, _| {},
    );
    for (&i, run) in alone.iter().zip(separate) {
        verdicts[i] = Some(run?.outcome.passed());
    }
    Ok(verdicts.into_iter().map(|v| v == Some(true)).collect())
}

/// Runs the tests `chunk` of one binary in one process: the verdict of each, `None` where
/// the process gave none. The process is killed when no test has finished for the longest
/// timeout among them.
fn one_process(
    engine: &Engine,
    tests: &[(&TestId, Duration)],
    chunk: &[usize],
) -> Result<Vec<Option<bool>>> {
    let first = tests[chunk[0]].0;
    if (engine.0.no_logfile)
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .contains(&first.binary)
    {
        return Ok(vec![None; chunk.len()]);
    }
    let dir = &engine.0.results_dir;
    std::fs::create_dir_all(dir).ok();
    let log = tempfile::Builder::new()
        .prefix("results-")
        .tempfile_in(dir)
        .context("could not create a result file")?;
    let names: Vec<&str> = chunk.iter().map(|&i| tests[i].0.name.as_str()).collect();
    let mut command = super::tests_command(first, &names, engine);
    command
        .arg("--logfile")
        .arg(log.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let stall = (chunk.iter().map(|&i| tests[i].1))
        .max()
        .unwrap_or(Duration::from_secs(60));
    let (mut child, _group) = (engine.0.interrupts)
        .spawn(&mut command)
        .with_context(|| format!("could not run {}", first.binary.display()))?;
    // Killed when no verdict came for `stall` (as a batch is when no run finished): the
    // tests without one run alone.
    super::batch::watch(&mut child, log.path(), stall)?;
    let text = std::fs::read(log.path()).unwrap_or_default();
    let text = String::from_utf8_lossy(&text);
    let read: HashMap<&str, Verdict> = Verdict::entries(&text).collect();
    Ok(names
        .iter()
        .map(|name| match read.get(name) {
            Some(Verdict::Passed) => Some(true),
            Some(Verdict::Failed) => Some(false),
            // Ignored (not asked to include it) or nothing: a process of its own says.
            Some(Verdict::Ignored | Verdict::Nothing) | None => None,
        })
        .collect())
}
