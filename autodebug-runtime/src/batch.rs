//! Batch mode: one test, many plans, one process. Each run gets a fresh runtime state (the
//! plan, its fuel, the instance counters, its own trace file), its panic is caught and kept
//! (message and location, not printed), and its result is appended to the results file as
//! soon as the run ends, so a process that dies mid-batch still tells which runs finished. A
//! run whose plan turns out unusable while it runs (a replacement that cannot be evaluated)
//! is refused, as a process of its own would exit with [`CONFIG_EXIT_CODE`].

use crate::plan::PlanIndex;
use crate::protocol::{
    BATCH_VERSION, BatchOutcome, BatchRequest, BatchResult, BatchRun, CONFIG_EXIT_CODE,
    DEFAULT_MAX_EVENTS, ENV_BATCH, PanicLocation,
};
use crate::recorder::{self, FuelOut, PlanFailed, TraceSetup};
use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

/// One test: a name (as `--list` prints it and `--exact` selects it) and a function that
/// panics on failure.
#[derive(Clone, Debug)]
pub struct Test {
    pub(crate) name: String,
    pub(crate) run: fn(),
    /// Read by the harness (a batch runs an ignored test all the same).
    #[cfg_attr(not(feature = "harness"), allow(dead_code))]
    pub(crate) ignored: bool,
    /// `Some(expected)`: the test passes only if it panics with a message containing
    /// `expected` (`""`: any panic), as `#[should_panic(expected = …)]`.
    should_panic: Option<&'static str>,
}

// The builder methods serve the harness (`harness = false` targets) alone.
#[cfg_attr(not(feature = "harness"), allow(dead_code))]
impl Test {
    /// A test named `name` that runs `run`.
    pub fn new(name: impl Into<String>, run: fn()) -> Test {
        Test {
            name: name.into(),
            run,
            ignored: false,
            should_panic: None,
        }
    }

    /// Marks the test ignored, as `#[ignore]`: run only with `--ignored` or
    /// `--include-ignored` (a batch runs it regardless).
    pub fn ignore(mut self) -> Test {
        self.ignored = true;
        self
    }

    /// The test passes only if it panics with a message containing `expected` (`""` for
    /// any panic), as `#[should_panic(expected = "…")]`.
    pub fn should_panic(mut self, expected: &'static str) -> Test {
        self.should_panic = Some(expected);
        self
    }

    /// The test's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Runs the test once, catching its panic: `Err(message)` if it failed. `panic` is the
    /// message of the panic, if it panicked (`None` when it returned).
    pub(crate) fn verdict(&self, panic: Option<&str>) -> Result<(), String> {
        match (self.should_panic, panic) {
            (None, None) => Ok(()),
            (None, Some(message)) => Err(message.to_string()),
            (Some(_), None) => Err("test did not panic as expected".to_string()),
            (Some(expected), Some(message)) if message.contains(expected) => Ok(()),
            (Some(expected), Some(message)) => Err(format!(
                "panic did not contain expected string\n      panic message: {message:?}\n \
                 expected substring: {expected:?}"
            )),
        }
    }
}

impl From<(&'static str, fn())> for Test {
    fn from((name, run): (&'static str, fn())) -> Test {
        Test::new(name, run)
    }
}

/// The text of a panic payload (`&str` and `String` payloads; others have none).
pub(crate) fn payload_text(payload: &(dyn std::any::Any + Send)) -> Option<&str> {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
}

/// The body of a libtest `#[test]` function that `#[autodebug_test]` wraps (the tool puts
/// the attribute on the tests of its instrumented copy): without [`ENV_BATCH`] it runs the
/// body once, as the test always did. With it, the test runs its runs of the request: when
/// every run of the request is this test's, the process runs them and exits (libtest's own
/// verdict for this process means nothing and nobody reads it); when the request spans many
/// tests (the process was started with their names and one thread), this test runs its
/// own runs, appends their results and returns, and libtest goes on to the next one.
/// `module` is `module_path!()` at the test, `name` its function's name: libtest names the
/// test by the module path without the crate's name.
#[doc(hidden)]
pub fn test_entry(module: &str, name: &str, should_panic: Option<&'static str>, body: fn()) {
    let Some(path) = std::env::var_os(ENV_BATCH).filter(|v| !v.is_empty()) else {
        body();
        return recorder::raise_soft_failure();
    };
    let test = Test {
        name: libtest_name(module, name),
        run: body,
        ignored: false,
        should_panic,
    };
    static SHARED: OnceLock<Result<Shared, String>> = OnceLock::new();
    let shared = SHARED.get_or_init(|| {
        let request = read_request(Path::new(&path))?;
        let mut by_test: HashMap<String, Vec<usize>> = HashMap::new();
        for (index, run) in request.runs.iter().enumerate() {
            by_test
                .entry(test_of(&request, run).to_string())
                .or_default()
                .push(index);
        }
        Ok(Shared {
            request,
            by_test,
            results: Mutex::new(None),
            stopped: Mutex::new(HashSet::new()),
        })
    });
    let outcome = shared.as_ref().map_err(Clone::clone).and_then(|shared| {
        let Some(indices) = shared.by_test.get(&test.name) else {
            // Not asked for: libtest was given other names only.
            return Ok(false);
        };
        let mut results = shared.results.lock().unwrap_or_else(|e| e.into_inner());
        if results.is_none() {
            *results = Some(create_results(&shared.request)?);
        }
        let file = results.as_mut().expect("created above");
        let mut stopped = shared.stopped.lock().unwrap_or_else(|e| e.into_inner());
        run_runs(
            &shared.request,
            indices,
            |_| Some(&test),
            file,
            &mut stopped,
        )?;
        Ok(shared.by_test.len() == 1)
    });
    match outcome {
        // Every run was this test's: done.
        Ok(true) => std::process::exit(0),
        Ok(false) => {}
        Err(message) => {
            eprintln!("autodebug: {message}");
            std::process::exit(CONFIG_EXIT_CODE);
        }
    }
}

/// A request shared by the tests of one libtest process: each test's runs, and the results
/// file the first test to run creates.
struct Shared {
    request: BatchRequest,
    by_test: HashMap<String, Vec<usize>>,
    results: Mutex<Option<std::fs::File>>,
    /// The groups a run did not pass in.
    stopped: Mutex<HashSet<u32>>,
}

/// The name libtest gives the test function `name` in the module `module` (a
/// `module_path!()`, whose first segment is the crate's name).
fn libtest_name(module: &str, name: &str) -> String {
    match module.split_once("::") {
        Some((_, within)) => format!("{within}::{name}"),
        None => name.to_string(),
    }
}

/// The test `run` runs.
fn test_of<'r>(request: &'r BatchRequest, run: &'r BatchRun) -> &'r str {
    run.test.as_deref().unwrap_or(&request.test)
}

/// The first panic of the current run (any thread), as the panic hook saw it.
static FIRST_PANIC: Mutex<Option<(String, Option<PanicLocation>)>> = Mutex::new(None);

/// Runs the batch request at `path` against `tests` (a harness binary's), every run in
/// request order. An unusable request (unreadable, another version, an unknown test, no
/// results file) ends the process with [`CONFIG_EXIT_CODE`] and a message on stderr, before
/// any run.
#[cfg_attr(not(feature = "harness"), allow(dead_code))]
pub(crate) fn run(path: &Path, tests: &[Test]) -> ExitCode {
    let outcome = read_request(path).and_then(|request| {
        let find = |name: &str| tests.iter().find(|t| t.name == name);
        if let Some(unknown) = (request.runs.iter())
            .map(|run| test_of(&request, run))
            .find(|name| find(name).is_none())
        {
            return Err(format!("no test named `{unknown}` in this binary"));
        }
        let mut results = create_results(&request)?;
        let all: Vec<usize> = (0..request.runs.len()).collect();
        run_runs(&request, &all, find, &mut results, &mut HashSet::new())
    });
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("autodebug: {message}");
            ExitCode::from(CONFIG_EXIT_CODE as u8)
        }
    }
}

/// Runs the runs `indices` of `request`, each against the test `find` gives for its name,
/// appending each result to `results` as it ends, under the batch's panic hook. A run of a
/// group in `stopped` is skipped; a run that does not pass stops its group.
fn run_runs<'t>(
    request: &BatchRequest,
    indices: &[usize],
    find: impl Fn(&str) -> Option<&'t Test>,
    results: &mut std::fs::File,
    stopped: &mut HashSet<u32>,
) -> Result<(), String> {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(on_panic));
    let traces = Traces {
        coverage: request.trace_mode == "coverage",
        inline: request.inline_coverage,
        max_events: request.max_events.unwrap_or(DEFAULT_MAX_EVENTS),
    };
    let mut outcome = Ok(());
    for &index in indices {
        let run = &request.runs[index];
        let name = test_of(request, run);
        let Some(test) = find(name) else {
            outcome = Err(format!("no test named `{name}` in this binary"));
            break;
        };
        let result = match run.group {
            Some(group) if stopped.contains(&group) => BatchResult {
                index,
                outcome: BatchOutcome::Skipped,
                message: None,
                location: None,
                trace: None,
                micros: 0,
                coverage: None,
                assertions: Vec::new(),
            },
            _ => run_one(index, run, test, &traces),
        };
        if let Some(group) = run.group
            && result.outcome != BatchOutcome::Passed
        {
            stopped.insert(group);
        }
        let written = crate::json::to_string(&result)
            .map_err(std::io::Error::from)
            .and_then(|mut line| {
                line.push('\n');
                results.write_all(line.as_bytes())
            });
        if let Err(e) = written {
            outcome = Err(format!("cannot write the batch results: {e}"));
            break;
        }
    }
    drop(std::panic::take_hook());
    std::panic::set_hook(previous);
    outcome
}

/// Reads and checks the request.
fn read_request(path: &Path) -> Result<BatchRequest, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read the batch request {}: {e}", path.display()))?;
    let request: BatchRequest = crate::json::from_str(&text)
        .map_err(|e| format!("malformed batch request {}: {e}", path.display()))?;
    if request.version != BATCH_VERSION {
        return Err(format!(
            "batch version {} is not supported (expected {BATCH_VERSION})",
            request.version
        ));
    }
    if !matches!(request.trace_mode.as_str(), "events" | "coverage") {
        return Err(format!(
            "batch trace mode must be `events` or `coverage`, not `{}`",
            request.trace_mode
        ));
    }
    if request.inline_coverage && request.trace_mode != "coverage" {
        return Err(format!(
            "inline coverage needs the `coverage` trace mode, not `{}`",
            request.trace_mode
        ));
    }
    Ok(request)
}

/// Creates the request's results file, unbuffered: every result line reaches the file when
/// its run ends.
fn create_results(request: &BatchRequest) -> Result<std::fs::File, String> {
    std::fs::File::create(&request.results)
        .map_err(|e| format!("cannot create the results file {}: {e}", request.results))
}

/// The panic hook during a batch: keeps the first panic of the run and writes it to the
/// trace, printing nothing.
fn on_panic(info: &std::panic::PanicHookInfo<'_>) {
    if info.payload().is::<FuelOut>() || info.payload().is::<PlanFailed>() {
        return;
    }
    recorder::record_panic(info);
    let mut first = FIRST_PANIC.lock().unwrap_or_else(|e| e.into_inner());
    if first.is_none() {
        let message = payload_text(info.payload())
            .unwrap_or("Box<dyn Any>")
            .to_string();
        let location = info.location().map(|l| PanicLocation {
            file: l.file().to_string(),
            line: l.line(),
            column: l.column(),
        });
        *first = Some((message, location));
    }
}

/// What every run of a batch records.
struct Traces {
    /// `coverage` traces (sites reached), not `events`.
    coverage: bool,
    /// Coverage goes into each run's result line, not a trace file.
    inline: bool,
    /// Cap on the event records of each trace.
    max_events: u64,
}

/// Runs the test once under `run`'s plan, recording as `traces` says.
fn run_one(index: usize, run: &BatchRun, test: &Test, traces: &Traces) -> BatchResult {
    let inline = traces.inline;
    let mut result = BatchResult {
        index,
        outcome: BatchOutcome::Refused,
        message: None,
        location: None,
        trace: if inline { None } else { run.trace.clone() },
        micros: 0,
        coverage: None,
        assertions: Vec::new(),
    };
    let plan = match run.plan.clone().map(PlanIndex::new).transpose() {
        Ok(plan) => plan.unwrap_or_default(),
        Err(e) => {
            result.message = Some(format!("invalid plan: {e}"));
            return result;
        }
    };
    let trace = run
        .trace
        .as_ref()
        .filter(|_| !inline)
        .map(|path| TraceSetup {
            path: PathBuf::from(path),
            coverage: traces.coverage,
            max_events: traces.max_events,
        });
    *FIRST_PANIC.lock().unwrap_or_else(|e| e.into_inner()) = None;
    let start = Instant::now();
    if let Err(e) = recorder::begin_run(plan, trace) {
        result.message = Some(e);
        return result;
    }
    let caught = catch_unwind(AssertUnwindSafe(|| {
        (test.run)();
        recorder::raise_soft_failure();
    }));
    let mut end = recorder::end_run();
    result.assertions = std::mem::take(&mut end.assertions);
    result.micros = u64::try_from(start.elapsed().as_micros()).unwrap_or(u64::MAX);
    if inline {
        result.coverage = Some(recorder::take_coverage());
    }
    let first = FIRST_PANIC.lock().unwrap_or_else(|e| e.into_inner()).take();
    // Whatever the test made of the unwinding (it may catch it), a candidate that could not
    // be evaluated leaves nothing to judge: the run is refused, as a process would exit.
    if let Some(message) = end.plan_failure {
        result.message = Some(format!("invalid plan: {message}"));
        return result;
    }
    if end.fuel_out || caught.as_ref().is_err_and(|p| p.is::<FuelOut>()) {
        result.outcome = BatchOutcome::FuelExhausted;
        return result;
    }
    let panic = match &caught {
        Ok(()) => None,
        Err(payload) => Some(
            first
                .as_ref()
                .map(|(m, _)| m.as_str())
                .or_else(|| payload_text(payload.as_ref()))
                .unwrap_or("Box<dyn Any>")
                .to_string(),
        ),
    };
    match test.verdict(panic.as_deref()) {
        Ok(()) => result.outcome = BatchOutcome::Passed,
        Err(message) => {
            result.outcome = BatchOutcome::Failed;
            // The location of the failure is the panic's, when there was one.
            result.location = caught
                .is_err()
                .then(|| first.and_then(|(_, l)| l))
                .flatten();
            result.message = Some(message);
        }
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn noop() {}

    #[test]
    fn libtest_names_leave_the_crate_out() {
        assert_eq!(
            libtest_name("max_array::tests", "max_of_one"),
            "tests::max_of_one"
        );
        assert_eq!(libtest_name("integration", "sums"), "sums");
        assert_eq!(libtest_name("c::a::b", "t"), "a::b::t");
    }

    #[test]
    fn should_panic_verdicts() {
        let plain = Test::new("t", noop);
        assert_eq!(plain.verdict(None), Ok(()));
        assert_eq!(plain.verdict(Some("boom")), Err("boom".to_string()));
        let any = Test::new("t", noop).should_panic("");
        assert_eq!(any.verdict(Some("boom")), Ok(()));
        assert!(any.verdict(None).unwrap_err().contains("did not panic"));
        let expected = Test::new("t", noop).should_panic("out of range");
        assert_eq!(expected.verdict(Some("index out of range: 3")), Ok(()));
        let err = expected.verdict(Some("boom")).unwrap_err();
        assert!(err.contains("expected substring"), "{err}");
    }

    #[test]
    fn payload_texts() {
        let s: Box<dyn std::any::Any + Send> = Box::new("static");
        assert_eq!(payload_text(s.as_ref()), Some("static"));
        let s: Box<dyn std::any::Any + Send> = Box::new(String::from("owned"));
        assert_eq!(payload_text(s.as_ref()), Some("owned"));
        let s: Box<dyn std::any::Any + Send> = Box::new(3u8);
        assert_eq!(payload_text(s.as_ref()), None);
    }
}
