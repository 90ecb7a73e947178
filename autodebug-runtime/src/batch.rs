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
use std::io::Write;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Mutex;
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
/// body once, as the test always did; with it, and when the request names this test, the
/// process runs the request's batch instead (every plan against the body, one process) and
/// exits, so libtest's own verdict for this process means nothing and nobody reads it.
/// `module` is `module_path!()` at the test, `name` its function's name: libtest names the
/// test by the module path without the crate's name.
#[doc(hidden)]
pub fn test_entry(module: &str, name: &str, should_panic: Option<&'static str>, body: fn()) {
    let Some(request) = std::env::var_os(ENV_BATCH).filter(|v| !v.is_empty()) else {
        body();
        return recorder::raise_soft_failure();
    };
    let test = Test {
        name: libtest_name(module, name),
        run: body,
        ignored: false,
        should_panic,
    };
    let code = run(Path::new(&request), std::slice::from_ref(&test));
    std::process::exit(if code == ExitCode::SUCCESS {
        0
    } else {
        CONFIG_EXIT_CODE
    });
}

/// The name libtest gives the test function `name` in the module `module` (a
/// `module_path!()`, whose first segment is the crate's name).
fn libtest_name(module: &str, name: &str) -> String {
    match module.split_once("::") {
        Some((_, within)) => format!("{within}::{name}"),
        None => name.to_string(),
    }
}

/// The first panic of the current run (any thread), as the panic hook saw it.
static FIRST_PANIC: Mutex<Option<(String, Option<PanicLocation>)>> = Mutex::new(None);

/// Runs the batch request at `path` against `tests`. An unusable request (unreadable,
/// another version, an unknown test, no results file) ends the process with
/// [`CONFIG_EXIT_CODE`] and a message on stderr, before any run.
pub(crate) fn run(path: &Path, tests: &[Test]) -> ExitCode {
    match prepare(path, tests) {
        Ok((request, test, mut results)) => {
            let previous = std::panic::take_hook();
            std::panic::set_hook(Box::new(on_panic));
            let traces = Traces {
                coverage: request.trace_mode == "coverage",
                inline: request.inline_coverage,
                max_events: request.max_events.unwrap_or(DEFAULT_MAX_EVENTS),
            };
            for (index, run) in request.runs.iter().enumerate() {
                let result = run_one(index, run, test, &traces);
                let written = crate::json::to_string(&result)
                    .map_err(std::io::Error::from)
                    .and_then(|mut line| {
                        line.push('\n');
                        results.write_all(line.as_bytes())
                    });
                if let Err(e) = written {
                    drop(std::panic::take_hook());
                    std::panic::set_hook(previous);
                    eprintln!("autodebug: cannot write the batch results: {e}");
                    return ExitCode::from(CONFIG_EXIT_CODE as u8);
                }
            }
            drop(std::panic::take_hook());
            std::panic::set_hook(previous);
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("autodebug: {message}");
            ExitCode::from(CONFIG_EXIT_CODE as u8)
        }
    }
}

/// Reads and checks the request, finds its test and creates the results file.
fn prepare<'t>(
    path: &Path,
    tests: &'t [Test],
) -> Result<(BatchRequest, &'t Test, std::fs::File), String> {
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
    let test = tests
        .iter()
        .find(|t| t.name == request.test)
        .ok_or_else(|| format!("no test named `{}` in this binary", request.test))?;
    // Unbuffered: every result line reaches the file when its run ends.
    let results = std::fs::File::create(&request.results)
        .map_err(|e| format!("cannot create the results file {}: {e}", request.results))?;
    Ok((request, test, results))
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
