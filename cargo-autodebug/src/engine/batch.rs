//! The tool side of the in-process harness (`autodebug_runtime::harness`): asking a test
//! binary whether it runs batches, sending it one (many plans against one test, one
//! process), and reading the results back as the same [`RunResult`] and [`RawTrace`] values
//! a run in a process of its own gives. Anything that goes wrong falls back to one process
//! per plan, so a batch is only ever faster, never a different answer.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use autodebug_runtime::protocol::{
    self, BATCH_VERSION, BatchOutcome, BatchRequest, BatchResult, BatchRun, InlineCoverage, Plan,
    Record, SiteInfo,
};

use crate::engine::Recorder;
use crate::engine::{self, Engine, EngineState, RunResult};
use crate::model::{Location, Outcome, TestId};
use crate::trace::RawTrace;

/// Plans per batch process below which splitting a batch across `--jobs` processes does not
/// pay for the extra process start.
const MIN_PLANS_PER_PROCESS: usize = 16;

/// Batches in a row that may die before finishing a single run before the remaining plans
/// go to one process each.
const MAX_BARREN_BATCHES: usize = 2;

/// Whether `test` is sent batches: its binary is built on the harness (and speaks this
/// batch version), or its tests carry the test attribute and this test did not turn out
/// unwrapped.
pub fn supports_batch(engine: &Engine, test: &TestId) -> bool {
    let state = engine.state();
    if state.wrapped_tests
        && !(state.no_batch)
            .lock()
            .unwrap()
            .contains(&(test.binary.clone(), test.name.clone()))
    {
        return true;
    }
    harness_binary(state, test)
}

/// Whether the test binary of `test` is built on the harness and speaks this batch
/// version. Asked once per binary (and modification time) per session.
fn harness_binary(state: &EngineState, test: &TestId) -> bool {
    let modified = std::fs::metadata(&test.binary)
        .and_then(|m| m.modified())
        .ok();
    let key = (test.binary.clone(), modified);
    let cache = &state.probed;
    if let Some(&known) = cache.lock().unwrap().get(&key) {
        return known;
    }
    let supported = probe(state, &test.binary, &test.package_root);
    cache.lock().unwrap().insert(key, supported);
    supported
}

/// Lists the binary's tests with the probe variable set and looks for the marker line.
fn probe(state: &EngineState, binary: &Path, package_root: &Path) -> bool {
    let mut command = Command::new(binary);
    state.libraries(&mut command);
    let output = command
        .args(["--list", "--format", "terse"])
        .current_dir(package_root)
        .env(protocol::ENV_HARNESS_PROBE, "1")
        .env_remove(protocol::ENV_BATCH)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output();
    let marker = format!("{}{BATCH_VERSION}", protocol::HARNESS_MARKER);
    output.is_ok_and(|o| {
        o.status.success()
            && String::from_utf8_lossy(&o.stdout)
                .lines()
                .any(|l| l == marker)
    })
}

/// Runs `test` once per plan, in order, recording each run's trace in `mode`: inside one
/// process per batch when the binary supports it (split across up to `jobs` processes for
/// long batches), one process per plan otherwise. Results come back in plan order.
pub fn run_batch(
    recorder: &Recorder,
    test: &TestId,
    plans: &[Plan],
    mode: &str,
) -> Result<Vec<(RunResult, RawTrace)>> {
    let runs: Vec<Job> = plans
        .iter()
        .map(|plan| Job {
            test,
            plan,
            group: None,
        })
        .collect();
    run_many(recorder, &runs, mode)
}

/// One run of [`run_many`]: a test under a plan, in a group or not (see
/// [`BatchRun::group`]: a run skipped because its group stopped comes back as
/// [`Outcome::NotRun`]).
#[derive(Clone, Copy)]
pub struct Job<'a> {
    pub test: &'a TestId,
    pub plan: &'a Plan,
    pub group: Option<u32>,
}

/// Runs each `(test, plan)` once, recording each run's trace in `mode`: the runs of the
/// tests of one binary that take batches go to one process (split across up to `jobs`
/// processes when there are many), whatever test each run is of, so a suite of thousands
/// of tests under a candidate costs a process or two per binary, not one per test; other
/// runs get a process each. Results come back in the order of `runs`.
pub fn run_many(
    recorder: &Recorder,
    runs: &[Job],
    mode: &str,
) -> Result<Vec<(RunResult, RawTrace)>> {
    run_within(recorder, runs, mode, None, &|_, _| {})
}

/// A time the runs of [`run_within`] may take once one of them did not pass: past it, no
/// process starts and a batch process under way is stopped, and the runs left come back as
/// [`Outcome::NotRun`] (a run alone under way finishes).
pub struct Budget {
    start: Instant,
    time: Duration,
    failed: std::sync::atomic::AtomicBool,
}

impl Budget {
    /// A budget of `time` from now.
    pub fn new(time: Duration) -> Budget {
        Budget {
            start: Instant::now(),
            time,
            failed: Default::default(),
        }
    }

    /// Notes a run that did not pass (a run not run does not count).
    pub fn note(&self, outcome: &Outcome) {
        if !outcome.passed() && *outcome != Outcome::NotRun {
            (self.failed).store(true, std::sync::atomic::Ordering::Relaxed);
        }
    }

    /// A run did not pass and the time is over.
    pub fn spent(&self) -> bool {
        self.failed.load(std::sync::atomic::Ordering::Relaxed) && self.start.elapsed() >= self.time
    }
}

/// [`run_many`] within `budget`: the batches first, then the runs that need a process of
/// their own (tests that take no batch, or that a batch found unwrapped or died in), which
/// are the slow ones (a property test a macro writes), so that what the budget leaves out
/// is mostly theirs. `done` hears of each run as it ends (the runs of a batch process when
/// the process ends), by its index in `runs`.
pub fn run_within(
    recorder: &Recorder,
    runs: &[Job],
    mode: &str,
    budget: Option<&Budget>,
    done: &(dyn Fn(usize, &RunResult) + Sync),
) -> Result<Vec<(RunResult, RawTrace)>> {
    if runs.is_empty() {
        return Ok(Vec::new());
    }
    // The runs of each binary, by test name: the order a libtest binary runs its tests in,
    // so its results come in request order.
    let mut by_binary: BTreeMap<(&Path, &Path), Vec<usize>> = BTreeMap::new();
    let mut alone = Vec::new();
    for (i, Job { test, .. }) in runs.iter().enumerate() {
        if supports_batch(&recorder.engine, test) {
            (by_binary.entry((&test.binary, &test.package_root)))
                .or_default()
                .push(i);
        } else {
            alone.push(i);
        }
    }
    let mut chunks: Vec<Vec<usize>> = Vec::new();
    for (_, mut indices) in by_binary {
        indices.sort_by(|&a, &b| runs[a].test.name.cmp(&runs[b].test.name));
        let processes = recorder
            .jobs
            .min(indices.len().div_ceil(MIN_PLANS_PER_PROCESS))
            .max(1);
        chunks.extend((indices.chunks(indices.len().div_ceil(processes))).map(<[usize]>::to_vec));
    }
    let results = engine::run_parallel(
        &chunks,
        recorder.jobs,
        |chunk| {
            let jobs: Vec<Job> = chunk.iter().map(|&i| runs[i]).collect();
            run_chunk(recorder, &jobs, mode, budget, &|j, result| {
                done(chunk[j], result)
            })
        },
        |_, _| {},
    );
    let mut all: Vec<Option<(RunResult, RawTrace)>> = (0..runs.len()).map(|_| None).collect();
    let mut died = Vec::new();
    for (chunk, results) in chunks.iter().zip(results) {
        let (results, died_in) = results?;
        died.extend(died_in.into_iter().map(|j| chunk[j]));
        for (&i, result) in chunk.iter().zip(results) {
            match result {
                Some(result) => all[i] = Some(result),
                None => alone.push(i),
            }
        }
    }
    alone.sort_unstable();
    let singles = engine::run_parallel(
        &alone,
        recorder.jobs,
        |&i| -> Result<(RunResult, RawTrace)> {
            // A run a batch died in ran already: its outcome is wanted whatever the budget.
            if !died.contains(&i) && budget.is_some_and(Budget::spent) {
                return Ok(not_run());
            }
            let result = recorder.run(runs[i].test, Some(runs[i].plan), mode)?;
            if let Some(budget) = budget {
                budget.note(&result.0.outcome);
            }
            Ok(result)
        },
        |&i, result| {
            if let Ok((result, _)) = result {
                done(i, result);
            }
        },
    );
    for (&i, result) in alone.iter().zip(singles) {
        all[i] = Some(result?);
    }
    Ok(all
        .into_iter()
        .map(|r| r.expect("every run is in one chunk or alone"))
        .collect())
}

/// A run the budget left out.
fn not_run() -> (RunResult, RawTrace) {
    let result = RunResult {
        outcome: Outcome::NotRun,
        stdout: String::new(),
        stderr: String::new(),
        duration: Duration::ZERO,
    };
    (result, RawTrace::default())
}

/// What a batch process did with one of its runs.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Fate {
    /// The run finished: its result line is there.
    Done,
    /// libtest ran its test without the test taking the batch (the build did not wrap it: a
    /// test a macro writes, say): it gets a process of its own, now and from then on.
    Unwrapped,
    /// The run made no progress within the timeout: the process was killed in it.
    Hung,
    /// The process died in the run (a crash, an abort): it is redone in a process of its
    /// own, which gives the outcome a separate process gives.
    Died,
    /// The process ended before the run began (or was stopped at the budget's end): it goes
    /// to the next batch.
    NotReached,
}

/// How a batch process ended, and what its standard output said of the tests libtest ran
/// (see [`Libtest`]).
struct Ending {
    /// `None`: killed for making no progress, or at the budget's end.
    status: Option<std::process::ExitStatus>,
    /// Killed at the budget's end.
    stopped: bool,
    /// The tests libtest started, in order.
    started: Vec<String>,
    /// libtest printed its summary: it ran every test it was given.
    summary: bool,
    /// The process created the results file: a run of it took the batch.
    took: bool,
}

/// The fate of each run of a batch process whose runs of `names` (one test name per run, in
/// request order) wrote the result lines `done` (indices, increasing) and which ended so.
/// Results come in the order libtest runs the tests, which is the request's: a run without
/// a result before the last result is one whose test ran without taking the batch. After
/// the last result, the test libtest was in when the process was killed or died is the run
/// that hung or died, tests it finished before are unwrapped, and the rest was not reached;
/// a libtest that printed its summary ran them all. Without libtest's lines (a harness
/// binary), the first run after the last result is the one that hung or died, unless the
/// process ended without taking the batch at all (it refused it, or its tests are not
/// wrapped).
fn fates(names: &[&str], done: &[usize], ending: &Ending) -> Vec<Fate> {
    if !ending.took && ending.started.is_empty() && ending.status.is_some() {
        return vec![Fate::Unwrapped; names.len()];
    }
    let last = done.last().copied();
    let finished = |j: usize| done.binary_search(&j).is_ok();
    let trailing = |j: usize| last.is_none_or(|l| j > l);
    let first_trailing = (0..names.len()).find(|&j| trailing(j));
    let in_run = ending.started.last().map(String::as_str);
    let ended_in = match ending.status {
        None if ending.stopped => Fate::NotReached,
        None => Fate::Hung,
        Some(status) if status.success() => Fate::Unwrapped,
        // The runtime saw a hook of a test it does not drive: the process stopped at once.
        Some(status) if status.code() == Some(protocol::UNWRAPPED_EXIT_CODE) => Fate::Unwrapped,
        Some(_) => Fate::Died,
    };
    (0..names.len())
        .map(|j| {
            if finished(j) {
                Fate::Done
            } else if !trailing(j) || ending.summary {
                Fate::Unwrapped
            } else if ending.started.is_empty() {
                if Some(j) == first_trailing {
                    ended_in
                } else {
                    Fate::NotReached
                }
            } else if Some(names[j]) == in_run {
                // Its first run not finished is the one the process ended in.
                let first_of_test = (0..j).all(|k| names[k] != names[j] || !trailing(k));
                if first_of_test {
                    ended_in
                } else {
                    Fate::NotReached
                }
            } else if ending.started.iter().any(|name| name == names[j]) {
                Fate::Unwrapped
            } else {
                Fate::NotReached
            }
        })
        .collect()
}

/// Runs `jobs` (tests of one binary) in batches, one process at a time, recovering from
/// dead batches: the run that hung is a timeout, and the rest goes to a new batch; the runs
/// that need a process of their own (the one a batch died in, so that it gets the outcome a
/// separate process gives: a crash, an abort; the runs of a test that did not take the
/// batch) come back `None`, for the caller to run alone, with the runs a batch died in
/// named. Once `budget` is spent, the runs left are not run.
#[allow(clippy::type_complexity)]
fn run_chunk(
    recorder: &Recorder,
    jobs: &[Job],
    mode: &str,
    budget: Option<&Budget>,
    done: &dyn Fn(usize, &RunResult),
) -> Result<(Vec<Option<(RunResult, RawTrace)>>, Vec<usize>)> {
    let mut out: Vec<Option<(RunResult, RawTrace)>> = (0..jobs.len()).map(|_| None).collect();
    let mut died = Vec::new();
    let mut rest: Vec<usize> = (0..jobs.len()).collect();
    let mut barren = 0;
    let no_batch = |test: &TestId| {
        (recorder.engine.state().no_batch)
            .lock()
            .unwrap()
            .insert((test.binary.clone(), test.name.clone()));
    };
    while !rest.is_empty() {
        if budget.is_some_and(Budget::spent) {
            for j in rest {
                let left = not_run();
                done(j, &left.0);
                out[j] = Some(left);
            }
            break;
        }
        // The others are the caller's to run alone.
        rest.retain(|&j| {
            barren < MAX_BARREN_BATCHES && supports_batch(&recorder.engine, jobs[j].test)
        });
        if rest.is_empty() {
            break;
        }
        let batch: Vec<Job> = rest.iter().map(|&j| jobs[j]).collect();
        let ran = batch_once(recorder, &batch, mode, budget)?;
        // A test found unwrapped is progress too: its runs leave the batches for good.
        barren = if ran
            .iter()
            .any(|r| matches!(r, Ran::Done(..) | Ran::Hung(_) | Ran::Unwrapped))
        {
            0
        } else {
            barren + 1
        };
        let mut next = Vec::new();
        for (j, ran) in rest.iter().copied().zip(ran) {
            match ran {
                Ran::Done(result, trace) => {
                    if let Some(budget) = budget {
                        budget.note(&result.outcome);
                    }
                    done(j, &result);
                    out[j] = Some((result, trace));
                }
                // What a separate process would have given, without waiting for the
                // timeout a second time.
                Ran::Hung(trace) => {
                    let result = RunResult {
                        outcome: Outcome::Timeout {
                            seconds: recorder.timeout.as_secs_f64(),
                        },
                        stdout: String::new(),
                        stderr: String::new(),
                        duration: recorder.timeout,
                    };
                    if let Some(budget) = budget {
                        budget.note(&result.outcome);
                    }
                    done(j, &result);
                    out[j] = Some((result, trace));
                }
                Ran::Died => died.push(j),
                Ran::Unwrapped => no_batch(jobs[j].test),
                Ran::NotReached => next.push(j),
            }
        }
        rest = next;
    }
    Ok((out, died))
}

/// What one batch process gave for one of its runs (see [`Fate`]): a hung run's partial
/// trace is what it wrote before it was killed.
enum Ran {
    Done(RunResult, RawTrace),
    Unwrapped,
    Hung(RawTrace),
    Died,
    NotReached,
}

/// Runs one batch process over `jobs`, runs of tests of one binary, sorted by test name.
fn batch_once(
    recorder: &Recorder,
    jobs: &[Job],
    mode: &str,
    budget: Option<&Budget>,
) -> Result<Vec<Ran>> {
    let test = jobs[0].test;
    let n = recorder
        .runs
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let file =
        |suffix: &str| engine::scratch_file(recorder.scratch, test, &format!("{n}.{suffix}"));
    let request_path = file("batch.json");
    let results_path = file("batch-results.jsonl");
    let log_path = file("batch.log");
    // Coverage comes back inside the result lines: no trace file per run.
    let inline = mode == "coverage";
    let traces: Vec<PathBuf> = if inline {
        Vec::new()
    } else {
        (0..jobs.len())
            .map(|i| file(&format!("batch-{i}.trace.jsonl")))
            .collect()
    };
    let mut names: Vec<&str> = jobs.iter().map(|job| job.test.name.as_str()).collect();
    names.dedup();
    let request = BatchRequest {
        version: BATCH_VERSION,
        test: test.name.clone(),
        trace_mode: mode.to_string(),
        max_events: Some(recorder.max_events),
        inline_coverage: inline,
        results: results_path.display().to_string(),
        runs: jobs
            .iter()
            .enumerate()
            .map(|(i, job)| BatchRun {
                test: (job.test.name != test.name).then(|| job.test.name.clone()),
                plan: Some(job.plan.clone()),
                trace: traces.get(i).map(|t| t.display().to_string()),
                group: job.group,
            })
            .collect(),
    };
    crate::trace::write_json(&request_path, &request)?;
    let log = std::fs::File::create(&log_path)
        .with_context(|| format!("could not create {}", log_path.display()))?;
    let mut command = crate::engine::tests_command(test, &names, &recorder.engine);
    // What the runs print is nobody's evidence (results come in the results file): stdout
    // is read for libtest's lines only (which tests it ran, and as a sign of progress while
    // it runs tests that write no results), stderr kept for the words of a process that
    // dies. Progress is a result written or a test started.
    command.stdout(Stdio::piped()).stderr(log);
    for (key, value) in recorder.base_env {
        command.env(key, value);
    }
    // Each run says its own plan and trace; variables meant for a single run would apply to
    // the process's first hook call only, so they go.
    for var in [
        protocol::ENV_PLAN,
        protocol::ENV_TRACE,
        protocol::ENV_TRACE_MODE,
        protocol::ENV_MAX_EVENTS,
    ] {
        command.env_remove(var);
    }
    command.env(protocol::ENV_BATCH, &request_path);
    let ending = run_watched(recorder, test, &mut command, &results_path, budget)?;
    let results = read_results(&results_path, jobs.len());
    let run_names: Vec<&str> = jobs.iter().map(|job| job.test.name.as_str()).collect();
    let done: Vec<usize> = results.iter().map(|r| r.index).collect();
    let fates = fates(&run_names, &done, &ending);
    let mut results = results.into_iter();
    let mut sites = BTreeMap::new();
    let mut ran = Vec::with_capacity(jobs.len());
    for (i, fate) in fates.into_iter().enumerate() {
        ran.push(match fate {
            Fate::Done => {
                let result = results.next().expect("a result for every finished run");
                let mut trace = match &result.coverage {
                    // Under a plan that asks nothing, a run counts one instance per site
                    // reached (as a process of its own counts none): only the sites tell.
                    Some(coverage) if asks_nothing(jobs[i].plan) => RawTrace {
                        hits: BTreeMap::new(),
                        ..inline_trace(coverage, &mut sites)
                    },
                    Some(coverage) => inline_trace(coverage, &mut sites),
                    None if inline => RawTrace::default(),
                    None => read_trace(&traces[i])?,
                };
                // A trace file has the verdicts of soft assertions as events already; a
                // result line carries them beside its coverage.
                if inline {
                    (trace.events).extend(
                        (result.assertions.iter()).map(|&passed| Record::Assertion { passed }),
                    );
                }
                Ran::Done(run_result(&result, i), trace)
            }
            Fate::Hung if inline => Ran::Hung(RawTrace::default()),
            Fate::Hung => Ran::Hung(read_trace(&traces[i])?),
            Fate::Unwrapped => Ran::Unwrapped,
            Fate::Died => Ran::Died,
            Fate::NotReached => Ran::NotReached,
        });
    }
    for path in traces
        .iter()
        .chain([&request_path, &results_path, &log_path])
    {
        std::fs::remove_file(path).ok();
    }
    Ok(ran)
}

/// Runs the batch process of `command` (for `test`), its stdout read as it comes (see
/// [`Libtest`]), killed when neither a result line in `results` nor a test starting came
/// for the recorder's timeout, or when `budget` is spent: how it ended.
fn run_watched(
    recorder: &Recorder,
    test: &TestId,
    command: &mut Command,
    results: &Path,
    budget: Option<&Budget>,
) -> Result<Ending> {
    let (mut child, _group) = (recorder.engine.state().interrupts)
        .spawn(command)
        .with_context(|| format!("could not run {}", test.binary.display()))?;
    let libtest = std::sync::Arc::new(Libtest::default());
    let (read_all, reader) = std::sync::mpsc::channel();
    if let Some(stdout) = child.stdout.take() {
        let libtest = libtest.clone();
        std::thread::spawn(move || {
            libtest.read(stdout);
            read_all.send(()).ok();
        });
    }
    let results_len = || std::fs::metadata(results).map_or(0, |m| m.len());
    let spent = || budget.is_some_and(Budget::spent);
    let status = watch_progress(
        &mut child,
        recorder.timeout,
        || results_len() + libtest.starts.load(std::sync::atomic::Ordering::Relaxed),
        spent,
    )?;
    // The rest of what it printed (a process it left behind may hold the pipe open: not
    // waited for long).
    reader.recv_timeout(Duration::from_secs(2)).ok();
    let stopped = status.is_none() && spent();
    Ok(libtest.ending(status, stopped, results.exists()))
}

/// Waits for the batch process, killing it when no run has finished for `timeout` (a run
/// that hangs without consuming fuel). `None` if it was killed.
pub(super) fn watch(
    child: &mut Child,
    results: &Path,
    timeout: Duration,
) -> Result<Option<std::process::ExitStatus>> {
    watch_progress(
        child,
        timeout,
        || std::fs::metadata(results).map_or(0, |m| m.len()),
        || false,
    )
}

/// [`watch`] with progress told by `progress` changing; also killed when `stop` says so.
fn watch_progress(
    child: &mut Child,
    timeout: Duration,
    progress: impl Fn() -> u64,
    stop: impl Fn() -> bool,
) -> Result<Option<std::process::ExitStatus>> {
    let mut last = 0;
    let mut last_progress = Instant::now();
    // Short pauses: a batch of small runs lasts milliseconds, and a late look at a finished
    // batch is time every rerun of it pays.
    let mut pause = Duration::from_micros(100);
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(Some(status));
        }
        let now = progress();
        if now != last {
            last = now;
            last_progress = Instant::now();
        } else if last_progress.elapsed() >= timeout {
            crate::engine::kill_group(child);
            let _ = child.wait();
            return Ok(None);
        }
        if stop() {
            crate::engine::kill_group(child);
            let _ = child.wait();
            return Ok(None);
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(2));
    }
}

/// What a batch process's standard output says, read as it comes (the runs' own output is
/// nobody's evidence and may be large: only libtest's lines are kept). A test starting is a
/// sign of progress (the one before it finished); a line a test prints is not (a test that
/// loops printing is a hang all the same).
#[derive(Default)]
struct Libtest {
    /// How many tests started so far.
    starts: std::sync::atomic::AtomicU64,
    /// The tests libtest started (`test NAME ... `, printed as each starts when one
    /// thread runs them), in order.
    started: std::sync::Mutex<Vec<String>>,
    /// libtest printed its summary (`test result: `): it ran every test it was given.
    summary: std::sync::atomic::AtomicBool,
}

impl Libtest {
    /// Reads `stdout` to its end (on a thread of its own).
    fn read(&self, stdout: impl std::io::Read) {
        use std::io::BufRead;
        let mut reader = std::io::BufReader::new(stdout);
        // The start of each line is enough to tell libtest's lines.
        let mut head: Vec<u8> = Vec::new();
        let mut in_line = false;
        while let Ok(chunk) = reader.fill_buf() {
            if chunk.is_empty() {
                break;
            }
            let (part, ends) = match chunk.iter().position(|&b| b == b'\n') {
                Some(i) => (&chunk[..i], true),
                None => (chunk, false),
            };
            if head.len() < 512 {
                head.extend_from_slice(&part[..part.len().min(512 - head.len())]);
            }
            in_line = true;
            let used = part.len() + usize::from(ends);
            reader.consume(used);
            if ends {
                self.line(&head);
                head.clear();
                in_line = false;
            }
        }
        if in_line {
            self.line(&head);
        }
    }

    /// How the process ended, with what was read of its stdout; `took`: it created the
    /// results file.
    fn ending(
        &self,
        status: Option<std::process::ExitStatus>,
        stopped: bool,
        took: bool,
    ) -> Ending {
        Ending {
            status,
            stopped,
            started: self.started.lock().unwrap().clone(),
            summary: self.summary.load(std::sync::atomic::Ordering::Relaxed),
            took,
        }
    }

    fn line(&self, line: &[u8]) {
        use std::sync::atomic::Ordering::Relaxed;
        let line = String::from_utf8_lossy(line);
        if let Some(rest) = line.strip_prefix("test ")
            && let Some((name, _)) = rest.split_once(" ... ")
        {
            // libtest names a `#[should_panic]` test so.
            let name = name.strip_suffix(" - should panic").unwrap_or(name);
            self.started.lock().unwrap().push(name.to_string());
            self.starts.fetch_add(1, Relaxed);
        }
        if line.starts_with("test result: ") {
            self.summary.store(true, Relaxed);
        }
    }
}

/// The whole lines of a results file of `runs` runs, in run order (a torn last line is left
/// out). Runs whose tests did not take the batch leave gaps; anything out of order is not a
/// harness we understand, and ends what is read.
fn read_results(path: &Path, runs: usize) -> Vec<BatchResult> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut results: Vec<BatchResult> = Vec::new();
    for line in text.lines() {
        let Ok(result) = serde_json::from_str::<BatchResult>(line) else {
            break;
        };
        let after_last = results.last().is_none_or(|r| result.index > r.index);
        if !after_last || result.index >= runs {
            break;
        }
        results.push(result);
    }
    results
}

/// Whether `plan` asks nothing of the hooks (no flip, override, replacement or argument,
/// no fuel): its runs count no instances.
fn asks_nothing(plan: &Plan) -> bool {
    plan.flips.is_empty()
        && plan.overrides.is_empty()
        && plan.replacements.is_empty()
        && plan.arguments.is_empty()
        && plan.fuel.is_none()
}

/// The coverage trace of a batch run whose coverage came inline. `sites` holds the
/// declarations of the batch so far (a site is declared once per process).
fn inline_trace(coverage: &InlineCoverage, sites: &mut BTreeMap<u32, SiteInfo>) -> RawTrace {
    for decl in &coverage.declared {
        sites.insert(decl.id, decl.site.clone());
    }
    let mut trace = RawTrace {
        coverage: true,
        complete: true,
        ..RawTrace::default()
    };
    for hit in &coverage.hits {
        if let Some(site) = sites.get(&hit.site) {
            trace.sites.insert(hit.site, site.clone());
            trace.hits.insert(hit.site, hit.instances);
        }
    }
    trace
}

fn read_trace(path: &Path) -> Result<RawTrace> {
    if path.exists() {
        RawTrace::read(path)
    } else {
        Ok(RawTrace::default())
    }
}

/// The [`RunResult`] a separate process would have given for a batch result. The output of
/// a batch is not split per run: `stdout`/`stderr` stay empty.
fn run_result(result: &BatchResult, index: usize) -> RunResult {
    debug_assert_eq!(result.index, index);
    let outcome = match result.outcome {
        BatchOutcome::Passed => Outcome::Passed,
        BatchOutcome::Failed => Outcome::Failed {
            message: result
                .message
                .clone()
                .unwrap_or_else(|| "test failed".into()),
            location: result.location.as_ref().map(|l| Location {
                file: l.file.clone(),
                line: l.line,
                column: l.column,
            }),
        },
        BatchOutcome::FuelExhausted => Outcome::FuelExhausted,
        BatchOutcome::Skipped => Outcome::NotRun,
        BatchOutcome::Refused => Outcome::Crashed {
            description: format!(
                "the autodebug runtime refused its configuration: autodebug: {}",
                result.message.as_deref().unwrap_or("(no message)")
            ),
        },
    };
    RunResult {
        outcome,
        stdout: String::new(),
        stderr: String::new(),
        duration: Duration::from_micros(result.micros),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use autodebug_runtime::protocol::{PLAN_VERSION, PanicLocation, Target};
    use std::collections::BTreeMap;
    use std::sync::OnceLock;
    use std::sync::atomic::AtomicUsize;

    fn result(index: usize, outcome: BatchOutcome, message: Option<&str>) -> BatchResult {
        BatchResult {
            index,
            outcome,
            message: message.map(str::to_string),
            location: None,
            trace: None,
            micros: 1500,
            coverage: None,
            assertions: Vec::new(),
        }
    }

    #[test]
    fn batch_results_become_run_results() {
        let mut failed = result(0, BatchOutcome::Failed, Some("boom"));
        failed.location = Some(PanicLocation {
            file: "src/lib.rs".into(),
            line: 4,
            column: 9,
        });
        let run = run_result(&failed, 0);
        assert_eq!(
            run.outcome,
            Outcome::Failed {
                message: "boom".into(),
                location: Some(Location {
                    file: "src/lib.rs".into(),
                    line: 4,
                    column: 9
                })
            }
        );
        assert_eq!(run.duration, Duration::from_micros(1500));
        let passed = result(1, BatchOutcome::Passed, None);
        assert_eq!(run_result(&passed, 1).outcome, Outcome::Passed);
        let fuel = result(2, BatchOutcome::FuelExhausted, None);
        assert_eq!(run_result(&fuel, 2).outcome, Outcome::FuelExhausted);
        let refused = result(
            3,
            BatchOutcome::Refused,
            Some("invalid plan: flip of a Let"),
        );
        let Outcome::Crashed { description } = run_result(&refused, 3).outcome else {
            panic!("a refused run is a crash, as the process's exit status 87 is")
        };
        assert!(description.contains("invalid plan"), "{description}");
    }

    #[test]
    fn results_file_keeps_whole_lines_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("results.jsonl");
        let line = |r: &BatchResult| serde_json::to_string(r).unwrap();
        let text = format!(
            "{}\n{}\n{}",
            line(&result(0, BatchOutcome::Passed, None)),
            line(&result(1, BatchOutcome::Failed, Some("x"))),
            &line(&result(2, BatchOutcome::Passed, None))[..10]
        );
        std::fs::write(&path, text).unwrap();
        let read = read_results(&path, 3);
        assert_eq!(read.len(), 2);
        assert_eq!(read[1].outcome, BatchOutcome::Failed);
        // Gaps are runs whose tests did not take the batch; going back, or past the last
        // run, is not a harness we understand.
        let lines = |indices: &[usize]| {
            let text: Vec<String> = (indices.iter())
                .map(|&i| line(&result(i, BatchOutcome::Passed, None)))
                .collect();
            std::fs::write(&path, text.join("\n") + "\n").unwrap();
            (read_results(&path, 6).iter().map(|r| r.index)).collect::<Vec<_>>()
        };
        assert_eq!(lines(&[0, 5]), [0, 5]);
        assert_eq!(lines(&[2, 4, 3]), [2, 4]);
        assert_eq!(lines(&[1, 6]), [1]);
        assert!(read_results(&dir.path().join("missing"), 3).is_empty());
    }

    /// The fates of six runs (tests `a` to `e`, `c` twice) after a process ending so (one
    /// that took the batch when any run is done).
    fn fates_of(done: &[usize], status: Option<i32>, stdout: &str) -> Vec<Fate> {
        use std::os::unix::process::ExitStatusExt;
        let names = ["a", "b", "c", "c", "d", "e"];
        let status = status.map(|code| std::process::ExitStatus::from_raw(code << 8));
        let libtest = Libtest::default();
        libtest.read(stdout.as_bytes());
        fates(
            &names,
            done,
            &libtest.ending(status, false, !done.is_empty()),
        )
    }

    #[test]
    fn runs_without_results_are_told_apart_by_what_libtest_printed() {
        use Fate::*;
        let started = |names: &[&str]| -> String {
            (names.iter())
                .map(|n| format!("test {n} ... ok\n"))
                .collect()
        };
        // Every run finished.
        assert_eq!(fates_of(&[0, 1, 2, 3, 4, 5], Some(0), ""), [Done; 6]);
        // What the tests print around libtest's lines (long lines, no last newline) does
        // not hide them.
        let long = "x".repeat(100_000);
        let out = format!(
            "test a ... {long}\n{long}\nok\ntest b - should panic ... ok\ntest c ... {long}"
        );
        assert_eq!(
            fates_of(&[0], None, &out),
            [Done, Unwrapped, Hung, NotReached, NotReached, NotReached]
        );
        // `b` and `d` ran without taking the batch (libtest printed its summary).
        let out = started(&["a", "b", "c", "d", "e"]) + "\ntest result: ok. 5 passed\n";
        assert_eq!(
            fates_of(&[0, 2, 3, 5], Some(0), &out),
            [Done, Unwrapped, Done, Done, Unwrapped, Done]
        );
        // Killed in `d`, after `c` finished: `d` hung, `e` was not reached.
        let out = started(&["a", "b", "c"]) + "test d ... ";
        assert_eq!(
            fates_of(&[0, 2, 3], None, &out),
            [Done, Unwrapped, Done, Done, Hung, NotReached]
        );
        // Killed in `c`'s first run, after the unwrapped `a` and `b` ran: its second run
        // goes to the next batch.
        let out = started(&["a", "b"]) + "test c ... ";
        assert_eq!(
            fates_of(&[], None, &out),
            [
                Unwrapped, Unwrapped, Hung, NotReached, NotReached, NotReached
            ]
        );
        // Died (an abort) in `d`: it is redone alone.
        let out = started(&["a", "b", "c"]) + "test d ... ";
        assert_eq!(
            fates_of(&[0, 2, 3], Some(134), &out),
            [Done, Unwrapped, Done, Done, Died, NotReached]
        );
        // A process that exited successfully before its summary: the run it was in did not
        // take the batch.
        assert_eq!(
            fates_of(&[0], Some(0), &started(&["a", "b"])),
            [
                Done, Unwrapped, NotReached, NotReached, NotReached, NotReached
            ]
        );
        // No libtest lines (a harness binary): the first run after the last result is the
        // one the process hung or died in.
        assert_eq!(
            fates_of(&[0, 1], None, ""),
            [Done, Done, Hung, NotReached, NotReached, NotReached]
        );
        assert_eq!(
            fates_of(&[0, 1], Some(1), ""),
            [Done, Done, Died, NotReached, NotReached, NotReached]
        );
        // A process that ended without taking the batch (a refused request) and printed
        // nothing: no run of it took the batch. Killed so, it hung in its first run.
        assert_eq!(
            fates_of(&[], Some(protocol::CONFIG_EXIT_CODE), ""),
            [Unwrapped; 6]
        );
        assert_eq!(
            fates_of(&[], None, ""),
            [
                Hung, NotReached, NotReached, NotReached, NotReached, NotReached
            ]
        );
    }

    /// The fixture crate `tests/fixtures/harness`, copied (its runtime dependency pointed
    /// back at this repository) and built instrumented, once per test process: the
    /// executables of its `suite` target (on the harness) and of its unit tests (libtest).
    struct Fixture {
        suite: PathBuf,
        unit: PathBuf,
        root: PathBuf,
    }

    fn fixture() -> &'static Fixture {
        static FIXTURE: OnceLock<Fixture> = OnceLock::new();
        FIXTURE.get_or_init(build_fixture)
    }

    fn build_fixture() -> Fixture {
        let repo = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
        let target = repo.join("target").join("harness-fixture");
        let root = target.join("crate");
        let src = repo.join("tests/fixtures/harness");
        // Sources are rewritten (fresh timestamps: cargo rebuilds the fixture), the lock
        // file stays (no index update per test process).
        for dir in ["src", "tests"] {
            std::fs::create_dir_all(root.join(dir)).unwrap();
        }
        for file in ["src/lib.rs", "tests/suite.rs"] {
            std::fs::copy(src.join(file), root.join(file)).unwrap();
        }
        let runtime = repo.join("autodebug-runtime").display().to_string();
        let manifest = std::fs::read_to_string(src.join("Cargo.toml"))
            .unwrap()
            .replace(
                "path = \"../../../autodebug-runtime\"",
                &format!("path = {runtime:?}"),
            );
        std::fs::write(root.join("Cargo.toml"), manifest).unwrap();
        let output = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
            .args(["test", "--no-run", "--message-format=json", "--target-dir"])
            .arg(&target)
            .args(crate::build::runtime_profile_args())
            .env(protocol::ENV_INSTRUMENT, "1")
            .current_dir(&root)
            .stderr(Stdio::inherit())
            .output()
            .unwrap();
        assert!(output.status.success(), "the fixture did not build");
        let (mut suite, mut unit) = (None, None);
        for line in String::from_utf8_lossy(&output.stdout).lines() {
            let Ok(msg) = serde_json::from_str::<serde_json::Value>(line) else {
                continue;
            };
            let Some(exe) = msg["executable"].as_str() else {
                continue;
            };
            match msg["target"]["name"].as_str() {
                Some("suite") => suite = Some(PathBuf::from(exe)),
                Some("fixture_harness") => unit = Some(PathBuf::from(exe)),
                _ => {}
            }
        }
        Fixture {
            suite: suite.expect("the suite target was built"),
            unit: unit.expect("the unit tests were built"),
            root,
        }
    }

    fn test_id(binary: &Path, name: &str) -> TestId {
        TestId {
            package: "fixture-harness".into(),
            target: "suite".into(),
            kind: "test".into(),
            name: name.into(),
            binary: binary.to_path_buf(),
            package_root: fixture().root.clone(),
        }
    }

    fn recorder<'a>(scratch: &'a Path, timeout: Duration, jobs: usize) -> Recorder<'a> {
        Recorder {
            engine: Engine::default(),
            workspace_root: &fixture().root,
            output_dir: scratch,
            scratch,
            base_env: &[],
            timeout,
            max_events: 100_000,
            jobs,
            runs: AtomicUsize::new(0),
            user_columns: None,
        }
    }

    /// The events of a trace with site ids replaced by site keys (ids are local to a trace).
    fn normalized(trace: &RawTrace) -> Vec<serde_json::Value> {
        trace
            .events
            .iter()
            .map(|r| {
                let mut v = serde_json::to_value(r).unwrap();
                if let Some(id) = v.get("site").and_then(|s| s.as_u64()) {
                    v["site"] = serde_json::to_value(trace.sites[&(id as u32)].key()).unwrap();
                }
                v
            })
            .collect()
    }

    /// One flip plan per branch instance of `trace`, with fuel.
    fn flip_plans(trace: &RawTrace, fuel: u64) -> Vec<Plan> {
        trace
            .events
            .iter()
            .filter_map(|r| match r {
                Record::Branch { site, instance, .. } => Some(Plan {
                    version: PLAN_VERSION,
                    flips: vec![Target {
                        site: trace.sites[site].key(),
                        instance: Some(*instance),
                    }],
                    fuel: Some(fuel),
                    ..Plan::default()
                }),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn probes_tell_harness_binaries_from_libtest_ones() {
        let fixture = fixture();
        let engine = Engine::default();
        assert!(supports_batch(
            &engine,
            &test_id(&fixture.suite, "finds_every_prime")
        ));
        assert!(!supports_batch(
            &engine,
            &test_id(&fixture.unit, "tests::finds_the_first")
        ));
    }

    #[test]
    fn batch_runs_give_what_separate_processes_give() {
        let scratch = tempfile::tempdir().unwrap();
        let rec = recorder(scratch.path(), Duration::from_secs(60), 2);
        let test = test_id(&fixture().suite, "finds_every_prime");
        let (baseline, trace) = rec.run(&test, None, "events").unwrap();
        assert!(
            matches!(&baseline.outcome, Outcome::Failed { message, .. } if message.contains("left: 1")),
            "{baseline:?}"
        );
        let plans = flip_plans(&trace, 5_000);
        assert!(plans.len() > 200, "{}", plans.len());
        let batch = rec.run_batch(&test, &plans, "events").unwrap();
        assert_eq!(batch.len(), plans.len());
        let mut labels = BTreeMap::new();
        for (i, (plan, (result, trace))) in plans.iter().zip(&batch).enumerate() {
            let seen = labels.entry(result.outcome.label()).or_insert(0);
            *seen += 1;
            // The first runs of every outcome, and a sample of the rest, are compared with a
            // process of their own (all of them would take a minute).
            if *seen > 8 && i % 25 != 0 {
                continue;
            }
            let (alone, alone_trace) = rec.run(&test, Some(plan), "events").unwrap();
            assert_eq!(result.outcome, alone.outcome, "plan {i}: {plan:?}");
            assert_eq!(
                normalized(trace),
                normalized(&alone_trace),
                "plan {i}: traces differ"
            );
            assert_eq!(trace.complete, alone_trace.complete, "plan {i}");
        }
        // The subject yields passing, failing and runaway runs.
        assert_eq!(
            labels.keys().copied().collect::<Vec<_>>(),
            ["failed", "fuel-exhausted", "passed"],
            "{labels:?}"
        );
        // No batch leaves files behind.
        assert_eq!(std::fs::read_dir(scratch.path()).unwrap().count(), 0);
    }

    #[test]
    fn inline_coverage_is_the_coverage_a_trace_file_gives() {
        let scratch = tempfile::tempdir().unwrap();
        let rec = recorder(scratch.path(), Duration::from_secs(60), 2);
        let test = test_id(&fixture().suite, "finds_every_prime");
        let (_, trace) = rec.run(&test, None, "events").unwrap();
        // Every 20th flip, and the unchanged run (a plan with fuel only).
        let mut plans: Vec<Plan> = flip_plans(&trace, 5_000).into_iter().step_by(20).collect();
        let mut unchanged = no_plan();
        unchanged.fuel = Some(5_000);
        plans.push(unchanged);
        let batch = rec.run_batch(&test, &plans, "coverage").unwrap();
        for (i, (plan, (result, inline))) in plans.iter().zip(&batch).enumerate() {
            let (alone, file) = rec.run(&test, Some(plan), "coverage").unwrap();
            assert_eq!(result.outcome, alone.outcome, "plan {i}");
            assert!(inline.coverage && file.coverage, "plan {i}");
            if alone.outcome != Outcome::FuelExhausted {
                assert!(
                    !file.hits.is_empty(),
                    "plan {i}: a planned run counts its hits"
                );
                assert_eq!(reached(inline), reached(&file), "plan {i}: {plan:?}");
            }
        }
        // The hits of the unchanged run are the event counts of the recorded trace.
        let (_, last) = batch.last().unwrap();
        for (id, site) in &trace.sites {
            let events = trace.reached(&[*id]).unwrap();
            let inline_id = last.sites.iter().find(|(_, s)| *s == site).map(|(i, _)| *i);
            let hits = inline_id.map_or(0, |i| last.reached(&[i]).unwrap());
            assert_eq!(
                hits, events,
                "{}:{} {:?}",
                site.line, site.column, site.kind
            );
        }
    }

    #[test]
    fn a_hanging_run_times_out_and_the_rest_goes_on() {
        let scratch = tempfile::tempdir().unwrap();
        let rec = recorder(scratch.path(), Duration::from_millis(1500), 1);
        let test = test_id(&fixture().suite, "settles");
        let (baseline, trace) = rec.run(&test, None, "events").unwrap();
        assert_eq!(baseline.outcome, Outcome::Passed);
        let hang = flip_plans(&trace, 1_000)
            .into_iter()
            .find(|p| p.flips[0].site.line == site_line("if n > 100"))
            .unwrap();
        let plans = [no_plan(), hang, no_plan()];
        let start = Instant::now();
        let results = rec.run_batch(&test, &plans, "events").unwrap();
        let outcomes: Vec<&str> = results.iter().map(|(r, _)| r.outcome.label()).collect();
        assert_eq!(outcomes, ["passed", "timeout", "passed"]);
        // One timeout, not one per remaining run.
        assert!(
            start.elapsed() < Duration::from_secs(6),
            "{:?}",
            start.elapsed()
        );
        // The hung run's trace is what it wrote before it was killed.
        assert!(!results[1].1.complete && !results[1].1.events.is_empty());
    }

    #[test]
    fn runs_of_many_tests_share_a_process_and_a_group_stops_at_its_first_failure() {
        let scratch = tempfile::tempdir().unwrap();
        let rec = recorder(scratch.path(), Duration::from_secs(60), 2);
        let suite = &fixture().suite;
        let failing = test_id(suite, "finds_every_prime");
        let middle = test_id(suite, "finds_the_middle");
        let settles = test_id(suite, "settles");
        let mut plan = no_plan();
        plan.fuel = Some(100_000);
        let job = |test, group| Job {
            test,
            plan: &plan,
            group,
        };
        // The process runs them by test name: the failing test's run of group 0 comes
        // first and stops that group; group 1 holds passing runs only.
        let jobs = [
            job(&middle, Some(0)),
            job(&failing, Some(0)),
            job(&settles, Some(0)),
            job(&middle, Some(1)),
            job(&settles, Some(1)),
            job(&failing, None),
        ];
        let processes = rec.runs.load(std::sync::atomic::Ordering::Relaxed);
        let results = rec.run_many(&jobs, "coverage").unwrap();
        let outcomes: Vec<&str> = results.iter().map(|(r, _)| r.outcome.label()).collect();
        assert_eq!(
            outcomes,
            ["not-run", "failed", "not-run", "passed", "passed", "failed"]
        );
        // One process for the six runs of three tests (fewer than a process's share).
        assert_eq!(
            rec.runs.load(std::sync::atomic::Ordering::Relaxed) - processes,
            1
        );
        // The runs that ran have their coverage.
        assert!(results[3].1.coverage && !results[3].1.sites.is_empty());
    }

    #[test]
    fn a_baseline_in_batches_is_the_baseline_of_one_process_per_test() {
        let scratch = tempfile::tempdir().unwrap();
        let rec = recorder(scratch.path(), Duration::from_secs(60), 2);
        let fixture = fixture();
        // Three tests of a harness binary (one fails) and one of a libtest binary (failing).
        let mut unit = test_id(&fixture.unit, "tests::finds_the_first");
        unit.target = "fixture_harness".into();
        let tests = [
            test_id(&fixture.suite, "finds_every_prime"),
            test_id(&fixture.suite, "finds_the_middle"),
            test_id(&fixture.suite, "settles"),
            unit,
        ];
        let options = crate::options::Options::parse_args(["cargo-autodebug", "-q"]).unwrap();
        let console = crate::console::Console::new(&options);
        let processes = rec.runs.load(std::sync::atomic::Ordering::Relaxed);
        let baseline = crate::baseline::run(&rec, &tests, 2, None, &console).unwrap();
        // The three tests of the harness binary took one process.
        assert_eq!(
            rec.runs.load(std::sync::atomic::Ordering::Relaxed) - processes,
            1
        );
        for (test, result) in tests.iter().zip(&baseline) {
            let (alone, trace) = rec.run(test, None, "coverage").unwrap();
            assert_eq!(result.first.outcome, alone.outcome, "{}", test.name);
            let coverage: crate::trace::Coverage = (trace.sites.into_values())
                .map(|site| (site.key(), site))
                .collect();
            assert_eq!(result.coverage, coverage, "{}", test.name);
        }
        // The failing test ran again alone, with its own output; the batch's run and one
        // more made its two reruns.
        let failing = &baseline[0];
        assert!(failing.deterministic_failure(), "{failing:?}");
        assert_eq!(failing.reruns.len(), 2);
        assert!(failing.first.stderr.contains("left: 1"), "{failing:?}");
        let outcomes: Vec<_> = baseline.iter().map(|r| r.first.outcome.label()).collect();
        assert_eq!(outcomes, ["failed", "passed", "passed", "failed"]);
    }

    #[test]
    fn tests_a_macro_wrote_run_alone_and_the_batch_goes_on_past_them() {
        let scratch = tempfile::tempdir().unwrap();
        // The three unwrapped tests take longer together than the timeout, each less.
        let mut rec = recorder(scratch.path(), Duration::from_secs(2), 1);
        rec.engine = Engine::new(std::env::temp_dir(), true, Default::default());
        let unit = |name: &str| {
            let mut test = test_id(&fixture().unit, name);
            test.target = "fixture_harness".into();
            test
        };
        let tests = [
            "tests::first_wrapped",
            "tests::macro_made_1",
            "tests::macro_made_2",
            "tests::macro_made_3",
            "tests::wrapped_last",
        ]
        .map(unit);
        let (results, outcomes) = unplanned_runs(&rec, &tests);
        assert_eq!(outcomes, ["passed"; 5]);
        // Each has the coverage a process of its own gives: the unwrapped ones ran alone.
        for (test, (_, trace)) in tests.iter().zip(&results) {
            let (_, alone) = rec.run(test, None, "coverage").unwrap();
            let keys = |t: &RawTrace| reached(t).into_keys().collect::<Vec<_>>();
            assert_eq!(keys(trace), keys(&alone), "{}", test.name);
            assert!(!trace.sites.is_empty(), "{}", test.name);
        }
        // And from then on they are not sent batches; the wrapped ones still are.
        let batched: Vec<bool> = (tests.iter())
            .map(|test| supports_batch(&rec.engine, test))
            .collect();
        assert_eq!(batched, [true, false, false, false, true]);
        // A test that prints as it hangs makes no progress: it times out.
        let mut rec = recorder(scratch.path(), Duration::from_secs(1), 1);
        rec.engine = Engine::new(std::env::temp_dir(), true, Default::default());
        let (_, outcomes) = unplanned_runs(&rec, &[unit("tests::prints_as_it_hangs")]);
        assert_eq!(outcomes, ["timeout"]);
    }

    /// One run of each of `tests` under a plan that asks nothing, in coverage mode: the
    /// results and their outcomes' labels.
    fn unplanned_runs(
        rec: &Recorder,
        tests: &[TestId],
    ) -> (Vec<(RunResult, RawTrace)>, Vec<&'static str>) {
        let plan = no_plan();
        let jobs: Vec<Job> = (tests.iter())
            .map(|test| Job {
                test,
                plan: &plan,
                group: None,
            })
            .collect();
        let results = rec.run_many(&jobs, "coverage").unwrap();
        let outcomes = results.iter().map(|(r, _)| r.outcome.label()).collect();
        (results, outcomes)
    }

    #[test]
    fn a_batch_stops_a_test_it_does_not_drive_at_its_first_hook() {
        let scratch = tempfile::tempdir().unwrap();
        let past = scratch.path().join("past-a-hook");
        let env = [(
            "FIXTURE_PAST_A_HOOK".to_string(),
            past.display().to_string(),
        )];
        let mut rec = recorder(scratch.path(), Duration::from_secs(60), 1);
        rec.engine = Engine::new(std::env::temp_dir(), true, Default::default());
        rec.base_env = &env;
        let mut tests = ["tests::first_wrapped", "tests::macro_made_counts"]
            .map(|name| test_id(&fixture().unit, name));
        for test in &mut tests {
            test.target = "fixture_harness".into();
        }
        let (results, outcomes) = unplanned_runs(&rec, &tests);
        assert_eq!(outcomes, ["passed", "passed"]);
        // The batch process ended at the unwrapped test's first hook: its body went on past
        // it once, in the process of its own that recorded it.
        let lines = std::fs::read_to_string(&past).unwrap();
        assert_eq!(lines.lines().count(), 1, "{lines:?}");
        assert!(!results[1].1.sites.is_empty());
        assert!(!supports_batch(&rec.engine, &tests[1]));
    }

    #[test]
    fn a_baseline_whose_budget_is_spent_leaves_out_the_tests_not_run_yet() {
        let scratch = tempfile::tempdir().unwrap();
        let past = scratch.path().join("past-a-hook");
        let env = [(
            "FIXTURE_PAST_A_HOOK".to_string(),
            past.display().to_string(),
        )];
        let fixture = fixture();
        let mut counts = test_id(&fixture.unit, "tests::macro_made_counts");
        counts.target = "fixture_harness".into();
        // A failing test of a binary that takes batches, and a test that needs a process of
        // its own (a macro wrote it): it runs after every batch.
        let tests = [test_id(&fixture.suite, "finds_every_prime"), counts];
        let options = crate::options::Options::parse_args(["cargo-autodebug", "-q"]).unwrap();
        let console = crate::console::Console::new(&options);
        let baseline = |budget: Option<Duration>| {
            let mut rec = recorder(scratch.path(), Duration::from_secs(60), 1);
            rec.engine = Engine::new(std::env::temp_dir(), true, Default::default());
            rec.base_env = &env;
            crate::baseline::run(&rec, &tests, 1, budget, &console).unwrap()
        };
        // A budget spent once a test failed: the other is left out, never run past its
        // first hook.
        let spent = baseline(Some(Duration::ZERO));
        let outcomes: Vec<_> = spent.iter().map(|r| r.first.outcome.label()).collect();
        assert_eq!(outcomes, ["failed", "not-run"]);
        assert!(spent[0].deterministic_failure() && !spent[0].left_out());
        assert!(spent[1].left_out() && spent[1].coverage.is_empty());
        assert!(!past.exists());
        // Without one, it runs.
        let whole = baseline(None);
        let outcomes: Vec<_> = whole.iter().map(|r| r.first.outcome.label()).collect();
        assert_eq!(outcomes, ["failed", "passed"]);
        assert!(!whole[1].coverage.is_empty());
        assert_eq!(std::fs::read_to_string(&past).unwrap().lines().count(), 1);
    }

    #[test]
    fn a_passing_test_s_trace_is_held_to_a_tenth_of_a_failing_one_s() {
        let scratch = tempfile::tempdir().unwrap();
        let mut rec = recorder(scratch.path(), Duration::from_secs(60), 1);
        rec.max_events = 40;
        let test = test_id(&fixture().suite, "finds_the_middle");
        let options = crate::options::Options::parse_args(["cargo-autodebug", "-q"]).unwrap();
        let console = crate::console::Console::new(&options);
        let recorded = rec
            .record(&[(test.clone(), crate::model::Role::Passing)], &console)
            .unwrap();
        let (summary, passing) = &recorded[0];
        assert!(summary.truncated && passing.trace.truncated);
        let events = |trace: &RawTrace| {
            (trace.events.iter())
                .filter(|r| !matches!(r, Record::Truncated { .. } | Record::End { .. }))
                .count()
        };
        assert_eq!(events(&passing.trace), 4, "{:?}", passing.trace.events);
        let recorded = rec
            .record(&[(test, crate::model::Role::Failing)], &console)
            .unwrap();
        let failing = &recorded[0].1.trace;
        assert!(!failing.truncated && events(failing) > 4, "{failing:?}");
        // The runtime wrote the whole run both times: its length is known from the file.
        assert_eq!(passing.trace.whole_length(), Some(failing.length()));
    }

    #[test]
    fn libtest_binaries_run_one_process_per_plan() {
        let scratch = tempfile::tempdir().unwrap();
        let rec = recorder(scratch.path(), Duration::from_secs(60), 2);
        let mut test = test_id(&fixture().unit, "tests::finds_the_first");
        test.target = "fixture_harness".into();
        let (_, trace) = rec.run(&test, None, "events").unwrap();
        let plans = flip_plans(&trace, 1_000);
        assert!(!plans.is_empty());
        let results = rec.run_batch(&test, &plans, "events").unwrap();
        assert_eq!(results.len(), plans.len());
        for (plan, (result, trace)) in plans.iter().zip(&results) {
            // A process of its own: its output is there, its trace complete or out of fuel.
            assert!(result.stdout.contains("running 1 test"), "{plan:?}");
            assert!(trace.complete || result.outcome == Outcome::FuelExhausted);
        }
        assert!(results.iter().any(|(r, _)| r.outcome.passed()));
    }

    /// The benchmark of `bench/reruns/` (run it with `bench/reruns/run.sh`): the same 200
    /// flip plans over the branch instances of the fixture's failing test (fuel: ten times
    /// the hook calls of the failing run), rerun one process per plan ([`Recorder::run`])
    /// and in one batch ([`Recorder::run_batch`]), both with one job, side by side, for each
    /// trace mode: `coverage` (the outcome and the sites reached: what a switching search
    /// needs per rerun) and `events` (the full trace, read back by the tool). Checks that
    /// both paths give the same outcome for every plan; writes a Markdown table to
    /// `$AUTODEBUG_BENCH_RERUNS_OUT` if set.
    #[test]
    #[ignore = "a benchmark: bench/reruns/run.sh"]
    fn bench_reruns() {
        const PLANS: usize = 200;
        let scratch = tempfile::tempdir().unwrap();
        let rec = recorder(scratch.path(), Duration::from_secs(60), 1);
        let test = test_id(&fixture().suite, "finds_every_prime");
        let (_, trace) = rec.run(&test, None, "events").unwrap();
        let fuel = 10 * trace.events.len() as u64;
        let plans: Vec<Plan> = flip_plans(&trace, fuel).into_iter().take(PLANS).collect();
        assert_eq!(plans.len(), PLANS, "the fixture has fewer branch instances");
        let mut table = String::from(
            "| trace per rerun | path | reruns | wall time (s) | reruns per second | in-process speed-up |\n\
             |---|---|---:|---:|---:|---:|\n",
        );
        let mut notes = Vec::new();
        for mode in ["coverage", "events"] {
            let start = Instant::now();
            let separate: Vec<_> = plans
                .iter()
                .map(|p| rec.run(&test, Some(p), mode).unwrap())
                .collect();
            let separate_s = start.elapsed().as_secs_f64();
            let start = Instant::now();
            let batch = rec.run_batch(&test, &plans, mode).unwrap();
            let batch_s = start.elapsed().as_secs_f64();
            for (i, ((a, ta), (b, tb))) in separate.iter().zip(&batch).enumerate() {
                assert_eq!(a.outcome, b.outcome, "{mode} plan {i}");
                // A run out of fuel ends without the `End` record that holds a file's hits.
                let keys = |t| reached(t).into_keys().collect::<Vec<_>>();
                if a.outcome == Outcome::FuelExhausted {
                    assert_eq!(keys(ta), keys(tb), "{mode} plan {i}: sites reached");
                } else {
                    assert_eq!(reached(ta), reached(tb), "{mode} plan {i}: sites reached");
                }
            }
            let count = |label: &str| {
                batch
                    .iter()
                    .filter(|(r, _)| r.outcome.label() == label)
                    .count()
            };
            let inside: f64 = batch.iter().map(|(r, _)| r.duration.as_secs_f64()).sum();
            let events: usize = batch.iter().map(|(_, t)| t.events.len()).sum();
            let (separate_rate, batch_rate) = (PLANS as f64 / separate_s, PLANS as f64 / batch_s);
            table.push_str(&format!(
                "| `{mode}` | one process per rerun (`Recorder::run`) | {PLANS} | {separate_s:.3} | {separate_rate:.1} | |\n\
                 | `{mode}` | in-process harness (`Recorder::run_batch`) | {PLANS} | {batch_s:.3} | {batch_rate:.1} | **{:.1}×** |\n",
                batch_rate / separate_rate
            ));
            let read_back = if mode == "coverage" {
                "each run's coverage came back inside its result line (sites and instance \
                 counts, equal to those of the per-process trace files)"
                    .to_string()
            } else {
                format!("{events} trace events were read back")
            };
            notes.push(format!(
                "- `{mode}`: same outcome on every plan both ways ({} passed, {} failed, {} out of fuel); \
                 the runs themselves took {inside:.3} s inside the batch process; {read_back}.",
                count("passed"),
                count("failed"),
                count("fuel-exhausted"),
            ));
        }
        table.push('\n');
        table.push_str(&notes.join("\n"));
        table.push('\n');
        println!("{table}");
        if let Some(out) = std::env::var_os("AUTODEBUG_BENCH_RERUNS_OUT") {
            std::fs::write(out, table).unwrap();
        }
    }

    /// The sites a trace reached, by key, with their instance counts when the trace has
    /// them (as a coverage trace under a plan does, in a file or inline).
    fn reached(trace: &RawTrace) -> BTreeMap<String, Option<u32>> {
        trace
            .sites
            .iter()
            .map(|(id, site)| {
                let key = format!(
                    "{}:{}:{}:{:?}",
                    site.file, site.line, site.column, site.kind
                );
                (key, trace.hits.get(id).copied())
            })
            .collect()
    }

    /// The line of the fixture's `lib.rs` where `code` is.
    fn site_line(code: &str) -> u32 {
        let text = std::fs::read_to_string(fixture().root.join("src/lib.rs")).unwrap();
        text.lines().position(|l| l.contains(code)).unwrap() as u32 + 1
    }

    /// A plan that changes nothing.
    fn no_plan() -> Plan {
        Plan {
            version: PLAN_VERSION,
            ..Plan::default()
        }
    }
}
