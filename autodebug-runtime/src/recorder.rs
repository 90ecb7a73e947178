//! The active side of the hooks: reading the environment once, writing the trace, and
//! obeying the plan. Everything here runs only when `AUTODEBUG_TRACE` or `AUTODEBUG_PLAN` is
//! set; the hooks in `rt.rs` reach it through [`idle`] or [`nothing_to_do`], one call and a
//! relaxed load.
//!
//! One global mutex serializes the active path, so traces of multi-threaded tests are whole
//! lines in a single order. Closures that build argument and scope values run outside the
//! lock (they run user code). The trace must survive a failing test: the panic hook flushes
//! it, and a C `atexit` handler writes the `End` record, whichever way the process exits.
//! A trace therefore ends with `End` (the process exited), `FuelExhausted` (the plan's fuel
//! ran out; written in `coverage` mode too), `PlanError` (a replacement could not be
//! evaluated; likewise) or nothing (the process was killed: the `Site` records, flushed as
//! they are written, still tell which sites were reached).
//!
//! A site's component, entry and branch events are written relative to the site's previous
//! one in the trace (`Trace::last`, in the order the lock serializes the threads' events): a
//! scope (arguments) as the bindings that changed, an integer in place of one of its type as
//! its number. A slice in scope that a loop does not change is written once per call, not
//! once per iteration. The tool's reader keeps the same cache
//! ([`crate::protocol::DeltaCache`]) and restores every record whole. While the plan is
//! idle, the generic hooks (compiled at the instrumented crate's optimization level) hand
//! the captured values to functions that are not generic ([`record_component`],
//! [`record_branch`]) as soon as they have them.
//!
//! The in-process harness (`crate::harness`) reuses one process for many runs: [`begin_run`]
//! swaps in a plan and a trace file and resets the per-site instance counters (site ids stay:
//! they are process-wide), [`end_run`] closes the trace and makes the hooks idle again. In
//! that *batch* mode running out of fuel ends the run, not the process: the hook unwinds with
//! a private [`FuelOut`] payload that the harness catches.
//!
//! A plan's replacement (a repair candidate, `crate::expr`) is evaluated in the hook, outside
//! the lock: it needs the values of the scope's bindings, and it panics where the candidate would
//! (overflow, division by zero), in the program's own thread. A candidate that cannot be
//! evaluated (it would not compile) ends the run with a `PlanError` record, like a plan that
//! cannot be loaded: the process exits with [`CONFIG_EXIT_CODE`], a batch run unwinds with a
//! [`PlanFailed`] payload and is reported refused. It never falls back to the written code,
//! which would make a broken candidate look like the unchanged program.

use crate::__rt::{CONFIG_EXIT_CODE, Scope, Site, captured};
use crate::expr::scalar::{Scalar, Ty};
use crate::expr::{Candidate, Failure};
use crate::plan::{PlanIndex, SitePlan};
use crate::protocol::{
    DEFAULT_MAX_EVENTS, ENV_MAX_EVENTS, ENV_PLAN, ENV_TRACE, ENV_TRACE_MODE, FUEL_EXIT_CODE, Frame,
    Record, SiteHits, SiteInfo, SiteKey, TRACE_VERSION, Value,
};
use crate::value::{Val, made_from_scalar, made_from_value, scalar, scalar_type, unbox, val};
use crate::wire::{self, Captured};
use std::cell::Cell;
use std::ffi::OsString;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU32, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, Once, OnceLock};

const UNINIT: u8 = 0;
const IDLE: u8 = 1;
const ACTIVE: u8 = 2;
/// No trace and no plan, but a bound on the stack ([`crate::protocol::ENV_STACK_LIMIT`]):
/// function entries check it, every other hook returns at once.
const GUARDED: u8 = 3;
/// Active, but a hook has nothing to do at a site this run has reached before: the trace
/// keeps no events (`coverage` mode, or past the event cap) and no plan counts instances or
/// fuel. Such hooks return without taking the lock, so a coverage run (or the rest of a run
/// past its cap) costs little more than an idle one. A batch run in this state counts one
/// instance per site reached.
const SITES: u8 = 4;
/// A batch process (see [`crate::protocol::ENV_BATCH`]) before its first run or between two:
/// as `IDLE`, except that a hook called on the thread libtest runs one of the request's
/// tests on means the test's function is not wrapped, and ends the process (see
/// [`stop_unwrapped_test`]).
const BETWEEN: u8 = 5;

/// `UNINIT` until the first hook call reads the environment, then `IDLE`, `ACTIVE`, `SITES`,
/// `GUARDED` or `BETWEEN` (`ACTIVE` may become `SITES` when the trace reaches its cap; the
/// harness moves between `BETWEEN` and `ACTIVE` run by run).
static STATE: AtomicU8 = AtomicU8::new(UNINIT);
/// The number of the current run of this process (see [`Site::run`]): 1, or in a batch
/// process the count of runs begun.
static RUN: AtomicU32 = AtomicU32::new(1);
static INIT: Once = Once::new();
static RECORDER: OnceLock<Mutex<Recorder>> = OnceLock::new();
/// Whether event records are being written (a trace in `events` mode, under the cap). The
/// closures that compute values are only worth running then.
static RECORDING: AtomicBool = AtomicBool::new(false);
/// Set when the trace is closed (`End` or `FuelExhausted` written): nothing follows it.
static FINISHED: AtomicBool = AtomicBool::new(false);
/// Set while the plan asks nothing of the hooks (no flip, override, replacement, argument,
/// fuel): a recording hook then only writes its event, through a path that is not generic
/// (see [`record_component`]).
static PLAN_IDLE: AtomicBool = AtomicBool::new(true);
/// Set by [`begin_run`]: the harness runs plans in this process, so the fuel running out
/// unwinds the run instead of exiting.
static BATCH: AtomicBool = AtomicBool::new(false);
/// Set when the fuel of the current batch run ran out: every later fuel-consuming hook of the
/// run unwinds again, so user code that catches the first unwind cannot loop on.
static FUEL_OUT: AtomicBool = AtomicBool::new(false);
/// Set when a replacement of the current batch run could not be evaluated: as [`FUEL_OUT`],
/// later hooks unwind again, so user code that catches the unwind cannot pass the test.
static PLAN_FAILED: AtomicBool = AtomicBool::new(false);

thread_local! {
    /// Whether this thread holds the recorder's lock: the panic hook and the exit handler
    /// must not wait for a lock their own thread holds.
    static IN_RUNTIME: Cell<bool> = const { Cell::new(false) };
    /// The highest stack address an instrumented call of this thread started at (the
    /// stack grows down): where [`check_stack`] counts from.
    static STACK_TOP: Cell<usize> = const { Cell::new(0) };
}

/// [`crate::protocol::ENV_STACK_LIMIT`] as read (`usize::MAX` until it is; `0`: no bound).
static STACK_LIMIT: AtomicUsize = AtomicUsize::new(usize::MAX);

/// The bound on a thread's stack, reading the environment on the first call.
fn stack_limit() -> usize {
    match STACK_LIMIT.load(Ordering::Relaxed) {
        usize::MAX => {
            let limit = env_text(crate::protocol::ENV_STACK_LIMIT).map_or(0, |text| {
                text.trim().parse().unwrap_or_else(|_| {
                    config_error(&format!(
                        "{} is not a number of bytes: {text:?}",
                        crate::protocol::ENV_STACK_LIMIT
                    ))
                })
            });
            STACK_LIMIT.store(limit, Ordering::Relaxed);
            limit
        }
        limit => limit,
    }
}

/// Ends the test with a panic when this thread's instrumented calls have taken more stack
/// than [`crate::protocol::ENV_STACK_LIMIT`] allows, `site` being the function entered (not on
/// a process's main thread, nor while a panic unwinds).
#[inline]
fn check_stack(site: &'static Site) {
    let limit = stack_limit();
    if limit == 0 {
        return;
    }
    let marker = 0u8;
    let here = std::ptr::addr_of!(marker) as usize;
    let top = STACK_TOP
        .try_with(|top| {
            let highest = top.get().max(here);
            top.set(highest);
            highest
        })
        .unwrap_or(here);
    if top - here > limit
        && !std::thread::panicking()
        && std::thread::current().name() != Some("main")
    {
        panic!(
            "autodebug: the calls of this thread took more than {} KiB of stack on entering \
             `{}` ({}:{}): a recursion that does not end?",
            limit / 1024,
            site.function,
            site.file,
            site.line
        );
    }
}

unsafe extern "C" {
    fn atexit(cb: extern "C" fn()) -> i32;
}

/// Whether the runtime is known to be idle: the whole cost of a hook when nothing is asked.
/// Not inlined, as [`nothing_to_do`].
#[inline(never)]
pub(crate) fn idle() -> bool {
    STATE.load(Ordering::Relaxed) == IDLE
}

/// Whether a hook at `site` is known to have nothing to do: the runtime is idle, or it only
/// collects the sites reached and has seen this one (see [`SITES`]). Called by the generated
/// code before anything else, which a hashing loop pays millions of times: not inlined, so
/// that it is compiled with the runtime (optimized, a load or two and a branch) and not at
/// the instrumented crate's level (unoptimized under `cargo test`, where every atomic load
/// is two calls of their own).
#[inline(never)]
pub(crate) fn nothing_to_do(site: &'static Site) -> bool {
    match STATE.load(Ordering::Relaxed) {
        IDLE | GUARDED => true,
        SITES => reached_in_run(site),
        BETWEEN => {
            stop_unwrapped_test();
            true
        }
        _ => false,
    }
}

/// Whether the runtime is active, reading the environment on the first call.
#[inline]
fn active() -> bool {
    match STATE.load(Ordering::Acquire) {
        ACTIVE | SITES => true,
        IDLE | GUARDED => false,
        BETWEEN => {
            stop_unwrapped_test();
            false
        }
        _ => initialize(),
    }
}

/// In a batch process between runs: ends the process with [`crate::protocol::UNWRAPPED_EXIT_CODE`] when this
/// thread is the one libtest runs a test of the request on (libtest names it after the
/// test). A wrapped test's hooks come inside its runs, so this is a test the build did not
/// wrap, whose body would run to its end (a property test: minutes) for no run of the
/// request. Any other thread (the process's main thread, one a test left running) goes on
/// as idle. Each thread is looked at once.
#[cold]
#[inline(never)]
fn stop_unwrapped_test() {
    thread_local! {
        static LOOKED: Cell<bool> = const { Cell::new(false) };
    }
    if LOOKED.with(|looked| looked.replace(true)) {
        return;
    }
    static REQUESTED: OnceLock<std::collections::HashSet<String>> = OnceLock::new();
    let requested = REQUESTED.get_or_init(|| {
        env_nonempty(crate::protocol::ENV_BATCH)
            .and_then(|path| std::fs::read_to_string(path).ok())
            .and_then(|text| crate::json::from_str::<crate::protocol::BatchRequest>(&text).ok())
            .map(|request| {
                let mut names: std::collections::HashSet<String> = (request.runs.into_iter())
                    .filter_map(|run| run.test)
                    .collect();
                names.insert(request.test);
                names
            })
            .unwrap_or_default()
    });
    let thread = std::thread::current();
    if let Some(name) = thread.name().filter(|name| requested.contains(*name)) {
        eprintln!("autodebug: `{name}` is not wrapped: its runs go to processes of their own");
        std::process::exit(crate::protocol::UNWRAPPED_EXIT_CODE);
    }
}

#[cold]
#[inline(never)]
fn initialize() -> bool {
    INIT.call_once(|| {
        let state = activate();
        STATE.store(state, Ordering::Release);
    });
    matches!(STATE.load(Ordering::Acquire), ACTIVE | SITES)
}

fn recording() -> bool {
    RECORDING.load(Ordering::Relaxed)
}

/// Whether a hook at `site` has nothing left to do (see [`SITES`]).
#[inline]
fn seen_and_done(site: &'static Site) -> bool {
    STATE.load(Ordering::Relaxed) == SITES && reached_in_run(site)
}

/// Whether the current run reached `site` before (marked by [`Recorder::site`]).
#[inline]
fn reached_in_run(site: &'static Site) -> bool {
    site.run.load(Ordering::Relaxed) == RUN.load(Ordering::Relaxed)
}

/// Prints `message` and exits with [`CONFIG_EXIT_CODE`]: a run the tool cannot trust.
fn config_error(message: &str) -> ! {
    eprintln!("autodebug: {message}");
    std::process::exit(CONFIG_EXIT_CODE)
}

fn env_nonempty(name: &str) -> Option<OsString> {
    std::env::var_os(name).filter(|v| !v.is_empty())
}

fn env_text(name: &str) -> Option<String> {
    let v = env_nonempty(name)?;
    Some(v.into_string().unwrap_or_else(|v| {
        config_error(&format!("{name} is not valid UTF-8: {v:?}"));
    }))
}

/// Reads the environment and, when a trace or plan is asked for, sets up the recorder.
fn activate() -> u8 {
    let trace_path = env_nonempty(ENV_TRACE).map(PathBuf::from);
    let plan_path = env_nonempty(ENV_PLAN).map(PathBuf::from);
    if trace_path.is_none() && plan_path.is_none() {
        return if env_nonempty(crate::protocol::ENV_BATCH).is_some() {
            BETWEEN
        } else if stack_limit() > 0 {
            GUARDED
        } else {
            IDLE
        };
    }
    let plan = match &plan_path {
        Some(path) => PlanIndex::load(path).unwrap_or_else(|e| config_error(&e)),
        None => PlanIndex::default(),
    };
    let trace = trace_path.map(|path| {
        let coverage = match env_text(ENV_TRACE_MODE).as_deref() {
            None | Some("events") => false,
            Some("coverage") => true,
            Some(other) => config_error(&format!(
                "{ENV_TRACE_MODE} must be `events` or `coverage`, not `{other}`"
            )),
        };
        let max_events = env_text(ENV_MAX_EVENTS).map_or(DEFAULT_MAX_EVENTS, |v| {
            v.parse()
                .unwrap_or_else(|e| config_error(&format!("{ENV_MAX_EVENTS}={v}: {e}")))
        });
        Trace::create(&path, coverage, max_events).unwrap_or_else(|e| config_error(&e))
    });
    let tracing = trace.is_some();
    RECORDING.store(
        trace.as_ref().is_some_and(|t| !t.coverage),
        Ordering::Relaxed,
    );
    let fuel = plan.fuel.map(|initial| Fuel {
        initial,
        left: initial,
    });
    let recorder = Recorder {
        trace,
        plan,
        sites: Vec::new(),
        fuel,
        failure: None,
    };
    let sites_only = recorder.trace.as_ref().is_some_and(|t| t.coverage) && recorder.plan_idle();
    PLAN_IDLE.store(recorder.plan_idle(), Ordering::Relaxed);
    // `INIT` runs this once per process, so the cell is empty.
    let _ = RECORDER.set(Mutex::new(recorder));
    if tracing {
        install_panic_hook();
        // SAFETY: `atexit` is the C library's, given an `extern "C" fn()` that lives for
        // the whole process.
        if unsafe { atexit(at_exit) } != 0 {
            eprintln!("autodebug: atexit failed; the trace will have no End record");
        }
    }
    if sites_only { SITES } else { ACTIVE }
}

fn install_panic_hook() {
    // `set_hook` panics on a panicking thread (a first hook call inside a `Drop` while
    // unwinding); that rare run goes without Panic records rather than abort.
    if std::thread::panicking() {
        return;
    }
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        record_panic(info);
        previous(info);
    }));
}

/// Writes a `Panic` record for the panic `info` describes (the harness's panic hook calls
/// this in batch mode; the hook installed by [`activate`] otherwise).
pub(crate) fn record_panic(info: &std::panic::PanicHookInfo<'_>) {
    let Some(mut rec) = lock() else { return };
    let payload = info.payload();
    let message = match (
        payload.downcast_ref::<&str>(),
        payload.downcast_ref::<String>(),
    ) {
        (Some(s), _) => s.to_string(),
        (_, Some(s)) => s.clone(),
        _ => "Box<dyn Any>".to_string(),
    };
    // The crate's own frames: always for a panic outside the crate's files (they locate
    // it), else for the first panics of the process only.
    let outside = info
        .location()
        .is_none_or(|l| std::path::Path::new(l.file()).is_absolute());
    let own = if outside || BACKTRACES.fetch_add(1, Ordering::Relaxed) < MAX_BACKTRACES {
        own_frames()
    } else {
        Vec::new()
    };
    // A panic inside the standard library or a dependency (its file an absolute path, where
    // the crate's own are relative) is located where the crate's code called into it.
    let (file, line, column, callers) = match info.location() {
        Some(l) if !std::path::Path::new(l.file()).is_absolute() => {
            // The hook's location is an own frame too; the compiler names files relative to
            // the workspace root, the frames are relative to the package's directory: the
            // difference is the prefix the callers' paths need.
            let here = own.iter().enumerate().find_map(|(i, f)| {
                let prefix = l.file().strip_suffix(f.file.as_str())?;
                (f.line == l.line() && (prefix.is_empty() || prefix.ends_with('/')))
                    .then_some((i, prefix))
            });
            let callers = here.map_or(Vec::new(), |(i, prefix)| {
                (own[i + 1..].iter())
                    .map(|f| Frame {
                        file: format!("{prefix}{}", f.file),
                        ..f.clone()
                    })
                    .collect()
            });
            (l.file().to_string(), l.line(), l.column(), callers)
        }
        other => match own.split_first() {
            Some((first, rest)) => (first.file.clone(), first.line, first.column, rest.to_vec()),
            None => other.map_or((String::new(), 0, 0, Vec::new()), |l| {
                (l.file().to_string(), l.line(), l.column(), Vec::new())
            }),
        },
    };
    let thread = std::thread::current()
        .name()
        .unwrap_or("<unnamed>")
        .to_string();
    if let Some(trace) = rec.trace.as_mut() {
        trace.write(&Record::Panic {
            message,
            file,
            line,
            column,
            thread,
        });
        if !callers.is_empty() {
            trace.write(&Record::Callers { frames: callers });
        }
        trace.flush();
    }
}

/// How many panics of a process have their backtrace read: the first ones (a test that
/// panics on purpose in a loop would otherwise pay for a backtrace each time).
const MAX_BACKTRACES: u32 = 16;
static BACKTRACES: AtomicU32 = AtomicU32::new(0);

/// How many of the crate's own frames below a panic are kept.
const MAX_FRAMES: usize = 8;

/// The frames of the panicking thread's backtrace in files of the package the test runs in
/// (under the current directory, where test binaries run), innermost first, as paths
/// relative to that directory (as the compiler names the crate's own files), lines and
/// columns; the runtime's own frames left out.
#[cold]
fn own_frames() -> Vec<Frame> {
    let Ok(here) = std::env::current_dir() else {
        return Vec::new();
    };
    // The runtime's own frames (the hook, the recorder) are not the crate's.
    let runtime = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    // `{:#}`: the frames' paths in full, not shortened relative to the current directory.
    let text = format!("{:#}", std::backtrace::Backtrace::force_capture());
    let mut frames: Vec<Frame> = Vec::new();
    for frame in text.lines() {
        let Some(at) = frame.trim_start().strip_prefix("at ") else {
            continue;
        };
        let mut parts = at.rsplitn(3, ':');
        let (Some(column), Some(line), Some(path)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        let (Ok(column), Ok(line)) = (column.parse(), line.parse()) else {
            continue;
        };
        let path = std::path::Path::new(path);
        let Ok(relative) = path.strip_prefix(&here) else {
            continue;
        };
        if path.starts_with(&runtime) || relative.starts_with("target") {
            continue;
        }
        let frame = Frame {
            file: relative.display().to_string(),
            line,
            column,
        };
        // An inlined frame repeats its caller's place.
        if frames.last() != Some(&frame) {
            frames.push(frame);
        }
        if frames.len() > MAX_FRAMES {
            break;
        }
    }
    frames
}

extern "C" fn at_exit() {
    if let Some(mut rec) = lock() {
        let end = rec.end_record();
        if let (Some(end), Some(trace)) = (end, rec.trace.as_mut()) {
            trace.write(&end);
            trace.flush();
        }
        FINISHED.store(true, Ordering::Relaxed);
    }
}

/// The panic payload that ends a batch run whose fuel ran out (see [`fuel_exit`]).
#[derive(Debug)]
pub(crate) struct FuelOut {
    /// The plan's initial fuel.
    #[allow(dead_code)] // read through `Debug` when a payload escapes the harness
    pub(crate) fuel: u64,
}

/// Ends the run because the plan's fuel ran out (the record is already written): the process
/// exits, or, in batch mode, the run unwinds to the harness with a [`FuelOut`] payload.
/// `resume_unwind` skips the panic hook: nothing is printed and no `Panic` record is written,
/// as when the process exits.
#[cold]
fn fuel_exit(fuel: u64) -> ! {
    if BATCH.load(Ordering::Relaxed) {
        FUEL_OUT.store(true, Ordering::Relaxed);
        std::panic::resume_unwind(Box::new(FuelOut { fuel }))
    }
    eprintln!("autodebug: fuel exhausted ({fuel} hook calls); exiting with {FUEL_EXIT_CODE}");
    std::process::exit(FUEL_EXIT_CODE)
}

/// In batch mode, after the fuel ran out or a replacement failed, unwinds again (unless
/// already unwinding: a second panic during unwinding would abort the process).
#[inline]
fn run_over_again() {
    if (FUEL_OUT.load(Ordering::Relaxed) || PLAN_FAILED.load(Ordering::Relaxed))
        && !std::thread::panicking()
    {
        unwind_again()
    }
}

#[cold]
fn unwind_again() -> ! {
    if PLAN_FAILED.load(Ordering::Relaxed) {
        std::panic::resume_unwind(Box::new(PlanFailed))
    }
    fuel_exit(0)
}

/// The panic payload that ends a batch run whose replacement could not be evaluated (see
/// [`plan_failure`]).
#[derive(Debug)]
pub(crate) struct PlanFailed;

/// Ends the run because the replacement at instance `instance` of `site` (id `id`) cannot be
/// evaluated: writes a `PlanError` record (in every trace mode: like `FuelExhausted`, it
/// says how the run ended) and closes the trace, then exits with [`CONFIG_EXIT_CODE`] or, in
/// batch mode, unwinds to the harness, which reports the run refused with this message.
#[cold]
#[inline(never)]
fn plan_failure(site: &'static Site, id: u32, instance: u32, message: String) -> ! {
    let message = format!(
        "the replacement at {}:{}:{} ({:?}, instance {instance}) cannot be evaluated: {message}",
        site.file, site.line, site.column, site.kind
    );
    let batch = BATCH.load(Ordering::Relaxed);
    if let Some(mut rec) = lock() {
        if let Some(trace) = rec.trace.as_mut() {
            trace.write(&Record::PlanError {
                site: id,
                instance,
                message: message.clone(),
            });
            trace.flush();
        }
        if batch {
            rec.failure.get_or_insert_with(|| message.clone());
        }
        FINISHED.store(true, Ordering::Relaxed);
    }
    if batch {
        PLAN_FAILED.store(true, Ordering::Relaxed);
        std::panic::resume_unwind(Box::new(PlanFailed))
    }
    eprintln!("autodebug: {message}");
    std::process::exit(CONFIG_EXIT_CODE)
}

/// The value `candidate` computes at instance `instance` of `site` (id `id`), as a scalar of
/// the site's type `want` (an `Err` naming the type when it is not one a candidate computes);
/// `current` is the written code's value. A candidate that panics panics here; one that
/// cannot be evaluated ends the run (see [`plan_failure`]). Not generic: the hooks make the
/// site's value of the scalar, and end the run the same way if they cannot.
#[inline(never)]
fn replaced(
    candidate: &Candidate,
    (current, want): (Result<Scalar, &'static str>, Result<Ty, &'static str>),
    operands: &[Val],
    scope: &[Captured],
    (site, id, instance): (&'static Site, u32, u32),
) -> Scalar {
    let result = want
        .map_err(|name| {
            Failure::Invalid(format!(
                "the site has type `{name}`, not a primitive type a candidate computes"
            ))
        })
        .and_then(|want| candidate.evaluate(current, operands, scope, want));
    match result {
        Ok(new) => new,
        Err(Failure::Panic(message)) => panic!("{message}"),
        Err(Failure::Invalid(message)) => plan_failure(site, id, instance, message),
    }
}

/// The recorder, locked by this thread.
struct Held(MutexGuard<'static, Recorder>);

impl Drop for Held {
    fn drop(&mut self) {
        let _ = IN_RUNTIME.try_with(|f| f.set(false));
    }
}

impl std::ops::Deref for Held {
    type Target = Recorder;
    fn deref(&self) -> &Recorder {
        &self.0
    }
}

impl std::ops::DerefMut for Held {
    fn deref_mut(&mut self) -> &mut Recorder {
        &mut self.0
    }
}

/// Locks the recorder, unless this thread already holds it (a panic inside the runtime) or
/// the trace is closed.
fn lock() -> Option<Held> {
    let reentered = IN_RUNTIME.try_with(|f| f.replace(true)).unwrap_or(false);
    if reentered {
        return None;
    }
    let release = || {
        let _ = IN_RUNTIME.try_with(|f| f.set(false));
    };
    let Some(mutex) = RECORDER.get() else {
        release();
        return None;
    };
    // A poisoned lock only means a user panic unwound through a hook; the data is whole
    // because the runtime does not panic while holding it.
    let held = Held(mutex.lock().unwrap_or_else(|e| e.into_inner()));
    if FINISHED.load(Ordering::Relaxed) {
        return None; // dropping `held` releases the flag
    }
    Some(held)
}

struct Fuel {
    initial: u64,
    left: u64,
}

struct SiteState {
    /// The site's identity, to look up its part of a new plan between batch runs.
    key: SiteKey,
    /// The site itself, to declare it in a batch run's inline coverage.
    site: &'static Site,
    instances: u32,
    /// Calls counted by the argument hook (of a function entry whose arguments the plan
    /// replaces).
    calls: u32,
    plan: SitePlan,
    /// Whether the current run reached the site (and its trace, if any, declares it).
    declared: bool,
    /// Whether an inline coverage of this batch process declared the site already.
    announced: bool,
}

impl SiteState {
    fn next_instance(&mut self) -> u32 {
        let i = self.instances;
        self.instances = i.saturating_add(1);
        i
    }
}

/// Bytes of trace buffered before a write: a recording run writes tens of megabytes, and
/// a process killed loses at most this much after its last flush (`Site` records, panics
/// and the end are flushed as they are written).
const TRACE_BUFFER: usize = 64 * 1024;

struct Trace {
    out: BufWriter<File>,
    /// The record being written (kept to reuse its allocation).
    line: String,
    path: PathBuf,
    coverage: bool,
    max_events: u64,
    /// Event records written.
    events: u64,
    truncated: bool,
    /// A write failed: reported once, nothing more is written.
    failed: bool,
    /// What the last record written for each site held, by site id: a site's next record
    /// is written relative to it (see `crate::protocol::DeltaCache`, which the reader keeps
    /// alike). Per trace: a batch run's trace starts without any.
    last: Vec<Last>,
}

/// What the last record of a site held (see [`Trace::last`]).
#[derive(Default)]
struct Last {
    /// The scope of a component, the arguments of a call.
    bindings: Option<Vec<Captured>>,
    /// The value of a component.
    value: Option<Val>,
    /// The operands of a branch.
    operands: Option<Vec<Val>>,
}

/// The sites the current run reached, with their instance counts.
fn reached(sites: &[SiteState]) -> Vec<SiteHits> {
    sites
        .iter()
        .enumerate()
        .filter(|(_, s)| s.declared)
        .map(|(i, s)| SiteHits {
            site: u32::try_from(i + 1).unwrap_or(u32::MAX),
            instances: s.instances,
        })
        .collect()
}

impl Trace {
    /// Creates the trace file at `path` and writes its header.
    fn create(path: &Path, coverage: bool, max_events: u64) -> Result<Trace, String> {
        let file = File::create(path)
            .map_err(|e| format!("cannot create the trace file {}: {e}", path.display()))?;
        let mut trace = Trace {
            out: BufWriter::with_capacity(TRACE_BUFFER, file),
            line: String::new(),
            path: path.to_path_buf(),
            coverage,
            max_events,
            events: 0,
            truncated: false,
            failed: false,
            last: Vec::new(),
        };
        let mode = if coverage { "coverage" } else { "events" };
        trace.write(&Record::Header {
            version: TRACE_VERSION,
            mode: mode.to_string(),
            pid: std::process::id(),
        });
        trace.flush();
        Ok(trace)
    }

    fn write(&mut self, record: &Record) {
        if self.failed {
            return;
        }
        self.line.clear();
        let result = crate::json::append(&mut self.line, record)
            .map_err(std::io::Error::from)
            .and_then(|()| {
                self.line.push('\n');
                self.out.write_all(self.line.as_bytes())
            });
        if let Err(e) = result {
            self.fail(e);
        }
    }

    /// Writes the line `record` appends (an event record of [`wire`]).
    fn write_with(&mut self, record: impl FnOnce(&mut String)) {
        if self.failed {
            return;
        }
        self.line.clear();
        record(&mut self.line);
        self.line.push('\n');
        if let Err(e) = self.out.write_all(self.line.as_bytes()) {
            self.fail(e);
        }
    }

    /// What the last record of site `id` held.
    fn last(&mut self, id: u32) -> &mut Last {
        let i = id as usize;
        if self.last.len() <= i {
            self.last.resize_with(i + 1, Last::default);
        }
        &mut self.last[i]
    }

    /// Writes a component record of site `id`: relative to the site's last one when its
    /// scope names the same variables, in full otherwise.
    fn component(
        &mut self,
        (id, instance): (u32, u32),
        value: Val,
        overridden: bool,
        scope: Vec<Captured>,
    ) {
        let last = self.last(id);
        let (bindings, previous) = (last.bindings.take(), last.value.take());
        let old = bindings
            .as_deref()
            .filter(|old| wire::same_names(old, &scope))
            .map(|old| (old, previous.as_ref()));
        self.write_with(|out| {
            wire::component(out, (id, instance), (&value, overridden), &scope, old)
        });
        let last = self.last(id);
        (last.bindings, last.value) = (Some(scope), Some(value));
    }

    /// Writes the entry record of a call of site `id`, as [`Trace::component`] writes a
    /// scope.
    fn enter(&mut self, id: u32, args: Vec<Captured>) {
        let bindings = self.last(id).bindings.take();
        let old = bindings
            .as_deref()
            .filter(|old| wire::same_names(old, &args));
        self.write_with(|out| wire::enter(out, id, &args, old));
        self.last(id).bindings = Some(args);
    }

    /// Writes a branch record of site `id`: relative to the site's last one, if any.
    fn branch(&mut self, (id, instance): (u32, u32), taken: (bool, bool), operands: Vec<Val>) {
        let old = self.last(id).operands.take();
        self.write_with(|out| wire::branch(out, (id, instance), taken, &operands, old.as_deref()));
        self.last(id).operands = Some(operands);
    }

    fn flush(&mut self) {
        if !self.failed
            && let Err(e) = self.out.flush()
        {
            self.fail(e);
        }
    }

    fn fail(&mut self, e: std::io::Error) {
        eprintln!(
            "autodebug: cannot write the trace file {}: {e}",
            self.path.display()
        );
        self.failed = true;
    }
}

struct Recorder {
    trace: Option<Trace>,
    plan: PlanIndex,
    /// Indexed by site id - 1.
    sites: Vec<SiteState>,
    fuel: Option<Fuel>,
    /// Why the current batch run's replacement could not be evaluated (see [`plan_failure`]).
    failure: Option<String>,
}

impl Recorder {
    /// The id of `site`, declaring it (a `Site` record, flushed: it is the coverage) and
    /// looking up its plan the first time it is reached.
    fn site(&mut self, site: &'static Site) -> u32 {
        site.run
            .store(RUN.load(Ordering::Relaxed), Ordering::Relaxed);
        // Ids are assigned under the lock only, so a relaxed load sees this thread's or an
        // earlier holder's store.
        let id = site.id.load(Ordering::Relaxed);
        if id != 0 {
            if !self.sites[id as usize - 1].declared {
                // Known from an earlier batch run, new to this run's trace.
                self.sites[id as usize - 1].declared = true;
                if let Some(trace) = self.trace.as_mut() {
                    trace.write(&Record::Site {
                        id,
                        site: site_info(site),
                    });
                    trace.flush();
                }
            }
            return id;
        }
        let info = site_info(site);
        let key = info.key();
        let plan = self.plan.for_site(&key);
        self.sites.push(SiteState {
            key,
            site,
            instances: 0,
            calls: 0,
            plan,
            declared: true,
            announced: false,
        });
        let id = u32::try_from(self.sites.len()).unwrap_or(u32::MAX);
        site.id.store(id, Ordering::Relaxed);
        if let Some(trace) = self.trace.as_mut() {
            trace.write(&Record::Site { id, site: info });
            trace.flush();
        }
        id
    }

    fn state(&mut self, id: u32) -> &mut SiteState {
        &mut self.sites[id as usize - 1]
    }

    /// Consumes one unit of fuel; `Err(initial fuel)` when there was none left, after
    /// writing `FuelExhausted` and closing the trace.
    fn tick(&mut self) -> Result<(), u64> {
        let Some(fuel) = self.fuel.as_mut() else {
            return Ok(());
        };
        if fuel.left > 0 {
            fuel.left -= 1;
            return Ok(());
        }
        let initial = fuel.initial;
        if let Some(trace) = self.trace.as_mut() {
            trace.write(&Record::FuelExhausted { fuel: initial });
            trace.flush();
        }
        FINISHED.store(true, Ordering::Relaxed);
        Err(initial)
    }

    /// Whether the plan asks nothing of the hooks (no flip, no override, no fuel): then
    /// they need not count instances.
    fn plan_idle(&self) -> bool {
        self.plan.is_empty() && self.fuel.is_none()
    }

    /// The `End` record of the trace, if there is one: in `coverage` mode under a plan
    /// (every hook then counts its instances, see [`SITES`]), with each reached site's
    /// instance count.
    fn end_record(&self) -> Option<Record> {
        let trace = self.trace.as_ref()?;
        let hits = if trace.coverage && !self.plan_idle() {
            reached(&self.sites)
        } else {
            Vec::new()
        };
        Some(Record::End {
            events: trace.events,
            hits,
        })
    }

    /// Whether event records are written now (cheaper than building one to drop it).
    fn recording(&self) -> bool {
        self.trace
            .as_ref()
            .is_some_and(|t| !t.coverage && !t.truncated)
    }

    /// Writes an event record, or the `Truncated` marker when the cap is reached.
    fn event(&mut self, record: Record) {
        if let Some(trace) = self.event_trace() {
            trace.write(&record);
        }
    }

    /// The trace the next event record goes to, counted as written; `None` when events are
    /// not recorded (no trace, `coverage` mode, truncated), after writing the `Truncated`
    /// marker when this one reaches the cap.
    fn event_trace(&mut self) -> Option<&mut Trace> {
        let trace = self.trace.as_ref()?;
        if trace.coverage || trace.truncated {
            return None;
        }
        if trace.events >= trace.max_events {
            self.truncate();
            return None;
        }
        let trace = self.trace.as_mut()?;
        trace.events += 1;
        Some(trace)
    }

    /// Closes the trace's events with the `Truncated` marker: the cap is reached.
    #[cold]
    fn truncate(&mut self) {
        RECORDING.store(false, Ordering::Relaxed);
        if self.plan_idle() && !BATCH.load(Ordering::Relaxed) {
            STATE.store(SITES, Ordering::Release);
        }
        if let Some(trace) = self.trace.as_mut() {
            trace.truncated = true;
            trace.write(&Record::Truncated {
                events: trace.events,
            });
            trace.flush();
        }
    }
}

fn site_info(site: &'static Site) -> SiteInfo {
    SiteInfo {
        file: site.file.to_string(),
        line: site.line,
        column: site.column,
        end_line: site.end_line,
        end_column: site.end_column,
        kind: site.kind,
        code: site.code.to_string(),
        function: site.function.to_string(),
    }
}

/// The trace one batch run writes.
pub(crate) struct TraceSetup {
    /// Where the trace goes (created or truncated).
    pub(crate) path: PathBuf,
    /// `coverage` mode: only the sites reached.
    pub(crate) coverage: bool,
    /// Cap on event records.
    pub(crate) max_events: u64,
}

/// Starts one in-process run: from now on the hooks obey `plan` and write to `trace`, with
/// every site's instance counter back at 0 and the plan's full fuel, as in a new process.
/// The environment (`AUTODEBUG_TRACE`, `AUTODEBUG_PLAN`) is not read after this. Errors
/// (the trace file cannot be created) leave the runtime idle.
pub(crate) fn begin_run(plan: PlanIndex, trace: Option<TraceSetup>) -> Result<(), String> {
    BATCH.store(true, Ordering::Relaxed);
    // Whatever the environment says no longer matters: this process is driven run by run.
    INIT.call_once(|| STATE.store(IDLE, Ordering::Release));
    STATE.store(IDLE, Ordering::Release);
    let trace = trace
        .map(|t| Trace::create(&t.path, t.coverage, t.max_events))
        .transpose()?;
    let mutex = RECORDER.get_or_init(|| {
        Mutex::new(Recorder {
            trace: None,
            plan: PlanIndex::default(),
            sites: Vec::new(),
            fuel: None,
            failure: None,
        })
    });
    let mut rec = mutex.lock().unwrap_or_else(|e| e.into_inner());
    let recording = trace.as_ref().is_some_and(|t| !t.coverage);
    for state in &mut rec.sites {
        state.instances = 0;
        state.calls = 0;
        state.plan = plan.for_site(&state.key);
        state.declared = false;
    }
    rec.fuel = plan.fuel.map(|initial| Fuel {
        initial,
        left: initial,
    });
    rec.plan = plan;
    rec.trace = trace;
    rec.failure = None;
    PLAN_IDLE.store(rec.plan_idle(), Ordering::Relaxed);
    // Coverage (inline: no trace file) under a plan that asks nothing: each site's first
    // instance is all the run needs.
    let sites_only = rec.plan_idle() && rec.trace.as_ref().is_none_or(|t| t.coverage);
    drop(rec);
    // A run cut short (fuel, a failed replacement) may have kept an assertion's failure.
    SOFT_FAILURE
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .take();
    ASSERTIONS.lock().unwrap_or_else(|e| e.into_inner()).clear();
    RECORDING.store(recording, Ordering::Relaxed);
    FUEL_OUT.store(false, Ordering::Relaxed);
    PLAN_FAILED.store(false, Ordering::Relaxed);
    FINISHED.store(false, Ordering::Relaxed);
    // A new run: no site is reached in it yet. A coverage run under a plan that asks
    // nothing needs each site's first instance only.
    RUN.fetch_add(1, Ordering::Relaxed);
    STATE.store(if sites_only { SITES } else { ACTIVE }, Ordering::Release);
    Ok(())
}

/// The first failed assertion of a run with soft assertions: its panic payload, raised
/// again when the test's body ends ([`raise_soft_failure`]).
type Payload = Box<dyn std::any::Any + Send>;
static SOFT_FAILURE: Mutex<Option<Payload>> = Mutex::new(None);
/// The verdict of each soft assertion the current batch run ended, in order.
static ASSERTIONS: Mutex<Vec<bool>> = Mutex::new(Vec::new());

/// Whether the current run's plan asks for soft assertions.
pub(crate) fn soft_assertions() -> bool {
    active() && lock().is_some_and(|rec| rec.plan.soft_assertions)
}

/// Records the end of an assertion statement (see [`Record::Assertion`]) and, when it
/// failed with `payload`, keeps the payload if it is the run's first failure. A payload of
/// the runtime's own (the fuel ran out, a replacement failed) is never kept: it unwinds on.
pub(crate) fn assertion_ended(failure: Option<Payload>) {
    if let Some(payload) = &failure
        && (payload.is::<FuelOut>() || payload.is::<PlanFailed>())
    {
        let payload = failure.expect("checked above");
        std::panic::resume_unwind(payload)
    }
    if recording()
        && let Some(mut rec) = lock()
        && rec.recording()
    {
        rec.event(Record::Assertion {
            passed: failure.is_none(),
        });
    }
    if BATCH.load(Ordering::Relaxed) {
        ASSERTIONS
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(failure.is_none());
    }
    if let Some(payload) = failure {
        let mut kept = SOFT_FAILURE.lock().unwrap_or_else(|e| e.into_inner());
        kept.get_or_insert(payload);
    }
}

/// Ends the test's body the way its first failed soft assertion would have: unwinds with
/// that assertion's payload (the panic hook saw it when it happened; `resume_unwind` does
/// not call it again). Does nothing when no assertion failed.
pub(crate) fn raise_soft_failure() {
    let kept = SOFT_FAILURE
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .take();
    if let Some(payload) = kept {
        std::panic::resume_unwind(payload)
    }
}

/// How a run [`begin_run`] started ended, besides the test's own verdict.
pub(crate) struct RunEnd {
    /// The plan's fuel ran out.
    pub(crate) fuel_out: bool,
    /// A replacement could not be evaluated, and why.
    pub(crate) plan_failure: Option<String>,
    /// The verdict of each soft assertion the run ended, in order.
    pub(crate) assertions: Vec<bool>,
}

/// Ends the run [`begin_run`] started: the hooks go idle, the trace gets its `End` record
/// (unless the fuel ran out or a replacement failed: the trace is closed already) and is
/// closed.
pub(crate) fn end_run() -> RunEnd {
    STATE.store(BETWEEN, Ordering::Release);
    RECORDING.store(false, Ordering::Relaxed);
    let mut plan_failure = None;
    if let Some(mutex) = RECORDER.get() {
        let mut rec = mutex.lock().unwrap_or_else(|e| e.into_inner());
        let end = rec.end_record();
        if let Some(mut trace) = rec.trace.take() {
            if let Some(end) = end.filter(|_| !FINISHED.load(Ordering::Relaxed)) {
                trace.write(&end);
            }
            trace.flush();
        }
        rec.plan = PlanIndex::default();
        rec.fuel = None;
        plan_failure = rec.failure.take();
    }
    FINISHED.store(true, Ordering::Relaxed);
    PLAN_FAILED.store(false, Ordering::Relaxed);
    RunEnd {
        fuel_out: FUEL_OUT.swap(false, Ordering::Relaxed),
        plan_failure,
        assertions: std::mem::take(&mut *ASSERTIONS.lock().unwrap_or_else(|e| e.into_inner())),
    }
}

/// The coverage of the run [`end_run`] ended: every site it reached with its instance
/// count, and the declarations of the sites no earlier call of this function declared.
pub(crate) fn take_coverage() -> crate::protocol::InlineCoverage {
    let Some(mutex) = RECORDER.get() else {
        return Default::default();
    };
    let mut rec = mutex.lock().unwrap_or_else(|e| e.into_inner());
    let hits = reached(&rec.sites);
    let mut declared = Vec::new();
    for (i, state) in rec.sites.iter_mut().enumerate() {
        if state.declared && !state.announced {
            state.announced = true;
            declared.push(crate::protocol::SiteDecl {
                id: u32::try_from(i + 1).unwrap_or(u32::MAX),
                site: site_info(state.site),
            });
        }
    }
    crate::protocol::InlineCoverage { declared, hits }
}

/// Active [`crate::__rt::enter`]: whether the `Enter` record was written (and so an `Exit`
/// is due).
#[cold]
#[inline(never)]
pub(crate) fn enter(site: &'static Site, args: Scope<'_>) -> bool {
    match entry_work(site) {
        Work::Nothing => false,
        Work::Record => record_enter(site, captured(args)),
        Work::Plan => record_enter(site, Vec::new()),
    }
}

/// What the entry hook of `site` has to do (not generic, as [`work`]; checks the stack):
/// nothing, record the call with its arguments, or only count it (`Plan`).
#[inline(never)]
fn entry_work(site: &'static Site) -> Work {
    if !active() {
        if STATE.load(Ordering::Relaxed) == GUARDED {
            check_stack(site);
        }
        return Work::Nothing;
    }
    check_stack(site);
    if seen_and_done(site) {
        Work::Nothing
    } else if recording() {
        Work::Record
    } else {
        Work::Plan
    }
}

/// Declares `site` and writes the `Enter` record of its call (not generic: compiled with the
/// runtime, optimized, whatever the profile of the instrumented crate): whether it was
/// written (an `Exit` is then due).
#[inline(never)]
fn record_enter(site: &'static Site, args: Vec<Captured>) -> bool {
    let Some(mut rec) = lock() else { return false };
    let id = rec.site(site);
    if !rec.recording() {
        return false;
    }
    if let Some(trace) = rec.event_trace() {
        trace.enter(id, args);
    }
    true
}

/// What a branch or component hook has to do.
enum Work {
    /// Nothing: the runtime is idle, or only collects sites and has seen this one.
    Nothing,
    /// Write the event: events are recorded and the plan asks nothing of the hooks.
    Record,
    /// Everything else: count the instance, obey the plan, write the event if recorded.
    Plan,
}

/// What the hook of `site` has to do: decided out of the generic hooks, which are compiled at
/// the instrumented crate's level (unoptimized under `cargo test`, where each of these loads
/// would be two calls).
#[inline(never)]
fn work(site: &'static Site) -> Work {
    if !active() || seen_and_done(site) {
        Work::Nothing
    } else if PLAN_IDLE.load(Ordering::Relaxed) && recording() {
        Work::Record
    } else {
        Work::Plan
    }
}

/// Active [`crate::__rt::arguments`]: the function's site id and which call of it this is,
/// when the plan replaces arguments of this call. A parameter the plan names that the
/// instrumentation cannot replace (not in `names`) is a `PlanError`, and stays as passed.
#[cold]
#[inline(never)]
pub(crate) fn arguments(site: &'static Site, names: &[&str]) -> Option<(u32, u32)> {
    // A plan that asks nothing of any site replaces no argument: every call of every
    // instrumented function of a coverage run comes here, and need not take the lock.
    if !active() || PLAN_IDLE.load(Ordering::Relaxed) {
        return None;
    }
    let mut rec = lock()?;
    if !rec.plan.arguments {
        return None;
    }
    let id = rec.site(site);
    let state = rec.state(id);
    if !state.plan.replaces_arguments() {
        return None;
    }
    let call = state.calls;
    state.calls = call.saturating_add(1);
    let missing: Vec<String> = state
        .plan
        .argument_names(call)
        .filter(|n| !names.contains(n))
        .map(str::to_string)
        .collect();
    for name in missing {
        rec.event(Record::PlanError {
            site: id,
            instance: call,
            message: format!(
                "argument `{name}` of `{}` cannot be replaced: the instrumentation replaces \
                 parameters bound to a plain name (not `self`, not a pattern)",
                site.function
            ),
        });
    }
    Some((id, call))
}

/// Active [`crate::__rt::argument`]: the value parameter `name` takes at `call` (from
/// [`arguments`]). A value that cannot become a `T` is a `PlanError`; the argument stays.
#[cold]
#[inline(never)]
pub(crate) fn argument<T>(call: (u32, u32), name: &str, value: T) -> T {
    let (id, instance) = call;
    let Some(mut rec) = lock() else { return value };
    let Some(planned) = rec.state(id).plan.argument_for(instance, name).cloned() else {
        return value;
    };
    match crate::__rt::argument_value::<T>(&planned) {
        Ok(new) => new,
        Err(message) => {
            rec.event(Record::PlanError {
                site: id,
                instance,
                message: format!("argument `{name}`: {message}"),
            });
            value
        }
    }
}

/// Active [`crate::__rt::CallGuard`] drop.
#[cold]
#[inline(never)]
pub(crate) fn exit(site: &'static Site) {
    let panicking = std::thread::panicking();
    let Some(mut rec) = lock() else { return };
    let id = rec.site(site);
    if let Some(trace) = rec.event_trace() {
        trace.write_with(|out| wire::exit(out, id, panicking));
    }
}

/// Active [`crate::__rt::branch`]. A replacement computes the outcome in place of the
/// written condition, a flip then negates it; `flipped` records whether the outcome the
/// program goes on with differs from the written condition's. The operands are read once,
/// for the event and the replacement alike.
#[cold]
#[inline(never)]
pub(crate) fn branch(
    site: &'static Site,
    outcome: bool,
    operands: &dyn Fn() -> Vec<Val>,
    scope: Scope<'_>,
) -> bool {
    match work(site) {
        Work::Nothing => return outcome,
        Work::Record => {
            record_branch(site, outcome, operands());
            return outcome;
        }
        Work::Plan => {}
    }
    run_over_again();
    let mut values = recording().then(operands);
    let Some(mut rec) = lock() else {
        return outcome;
    };
    let id = rec.site(site);
    if let Err(fuel) = rec.tick() {
        drop(rec);
        fuel_exit(fuel);
    }
    let state = rec.state(id);
    let instance = state.next_instance();
    let flip = state.plan.flips(instance);
    let candidate = state.plan.replacement_for(instance).cloned();
    let mut computed = outcome;
    if let Some(candidate) = candidate {
        drop(rec);
        if candidate.reads_operands() && values.is_none() {
            values = Some(operands());
        }
        let vars = if candidate.reads_scope() {
            captured(scope)
        } else {
            Vec::new()
        };
        let read = values.as_deref().unwrap_or_default();
        let typed = (Ok(Scalar::Bool(outcome)), Ok(Ty::Bool));
        computed = match replaced(&candidate, typed, read, &vars, (site, id, instance)) {
            Scalar::Bool(b) => b,
            other => plan_failure(
                site,
                id,
                instance,
                format!("a `{:?}` is not a `bool`", other.ty()),
            ),
        };
        // Without events to write, the lock is not needed again.
        if !recording() {
            return computed != flip;
        }
        rec = match lock() {
            Some(rec) => rec,
            None => return computed != flip,
        };
    }
    let taken = computed != flip;
    write_branch(
        &mut rec,
        (id, instance),
        (taken, taken != outcome),
        values.unwrap_or_default(),
    );
    taken
}

/// A branch instance of `site` when the plan is idle and events are recorded: its event,
/// outside the generic hook (compiled at the instrumented crate's optimization level,
/// unoptimized under `cargo test`), with the runtime's.
#[inline(never)]
fn record_branch(site: &'static Site, outcome: bool, operands: Vec<Val>) {
    let Some(mut rec) = lock() else { return };
    let id = rec.site(site);
    let instance = rec.state(id).next_instance();
    write_branch(&mut rec, (id, instance), (outcome, false), operands);
}

/// Writes a branch record (not generic, see [`record_enter`]).
#[inline(never)]
fn write_branch(
    rec: &mut Recorder,
    (id, instance): (u32, u32),
    (outcome, flipped): (bool, bool),
    operands: Vec<Val>,
) {
    if let Some(trace) = rec.event_trace() {
        trace.branch((id, instance), (outcome, flipped), operands);
    }
}

/// Active [`crate::__rt::component`]: generic in the value's type only, and thin; the work is
/// [`component_planned`]'s and [`component_recorded`]'s, compiled once with the runtime.
#[cold]
#[inline(never)]
pub(crate) fn component<T>(site: &'static Site, value: T, scope: Scope<'_>) -> T {
    let current = || val(&value);
    let typed = || (scalar(&value), scalar_type::<T>());
    let Some(planned) = component_planned(site, &current, &typed, scope) else {
        return value;
    };
    let (name, size) = (std::any::type_name::<T>(), std::mem::size_of::<T>());
    let (mut value, mut overridden) = (value, false);
    if let Some(s) = planned.replacement {
        match made_from_scalar(name, size, s) {
            // SAFETY: `made_from_scalar` makes a value of the type named `name`: `T`.
            Ok(made) => (value, overridden) = (unsafe { unbox::<T>(made) }, true),
            Err(message) => plan_failure(site, planned.id, planned.instance, message),
        }
    }
    // An override applies on top of a replacement, as it would on the written code.
    if let Some(v) = planned.overriding {
        match made_from_value(name, size, &v) {
            // SAFETY: `made_from_value` makes a value of the type named `name`: `T`.
            Ok(made) => (value, overridden) = (unsafe { unbox::<T>(made) }, true),
            Err(message) => component_plan_error(planned.id, planned.instance, message),
        }
    }
    if let Some(vars) = planned.record {
        component_recorded(
            (planned.id, planned.instance),
            val(&value),
            overridden,
            vars,
        );
    }
    value
}

/// What a plan does to one component instance ([`component_planned`]).
struct Planned {
    id: u32,
    instance: u32,
    /// A replacement's result.
    replacement: Option<Scalar>,
    /// An override's value.
    overriding: Option<Value>,
    /// The scope to record with the instance's final value, when events are recorded.
    record: Option<Vec<Captured>>,
}

/// The plan's part of a component instance of `site`: `None` when there is nothing more to
/// do (nothing is planned or recorded here, or the instance was recorded as written).
/// `current` is the written value as recorded, `typed` as a scalar with the site's type.
#[inline(never)]
fn component_planned(
    site: &'static Site,
    current: &dyn Fn() -> Val,
    typed: &dyn Fn() -> (Result<Scalar, &'static str>, Result<Ty, &'static str>),
    scope: Scope<'_>,
) -> Option<Planned> {
    match work(site) {
        Work::Nothing => return None,
        Work::Record => {
            record_component(site, current(), captured(scope));
            return None;
        }
        Work::Plan => {}
    }
    run_over_again();
    let mut vars = recording().then(|| captured(scope));
    let mut rec = lock()?;
    let id = rec.site(site);
    if let Err(fuel) = rec.tick() {
        drop(rec);
        fuel_exit(fuel);
    }
    let state = rec.state(id);
    let instance = state.next_instance();
    let candidate = state.plan.replacement_for(instance).cloned();
    let planned = state.plan.override_for(instance).cloned();
    drop(rec);
    let replacement = candidate.map(|candidate| {
        if candidate.reads_scope() && vars.is_none() {
            vars = Some(captured(scope));
        }
        let reported = vars.as_deref().unwrap_or_default();
        // A component reports no operands: a plan reading one is refused when loaded.
        replaced(&candidate, typed(), &[], reported, (site, id, instance))
    });
    Some(Planned {
        id,
        instance,
        replacement,
        overriding: planned,
        record: recording().then(|| vars.unwrap_or_default()),
    })
}

/// An override that does not fit the site's type: a `PlanError` event.
#[inline(never)]
fn component_plan_error(id: u32, instance: u32, message: String) {
    if let Some(mut rec) = lock() {
        rec.event(Record::PlanError {
            site: id,
            instance,
            message,
        });
    }
}

/// The record of a component instance the plan reached, with its final value.
#[inline(never)]
fn component_recorded(at: (u32, u32), value: Val, overridden: bool, vars: Vec<Captured>) {
    if let Some(mut rec) = lock()
        && rec.recording()
    {
        write_component(&mut rec, at, (value, overridden), vars);
    }
}

/// A component instance of `site` when the plan is idle and events are recorded, as
/// [`record_branch`].
#[inline(never)]
fn record_component(site: &'static Site, value: Val, scope: Vec<Captured>) {
    let Some(mut rec) = lock() else { return };
    let id = rec.site(site);
    let instance = rec.state(id).next_instance();
    write_component(&mut rec, (id, instance), (value, false), scope);
}

/// Writes a component record (not generic, see [`record_enter`]).
#[inline(never)]
fn write_component(
    rec: &mut Recorder,
    (id, instance): (u32, u32),
    (value, overridden): (Val, bool),
    scope: Vec<Captured>,
) {
    if let Some(trace) = rec.event_trace() {
        trace.component((id, instance), value, overridden, scope);
    }
}

/// Active [`crate::__rt::iter`].
#[cold]
#[inline(never)]
pub(crate) fn iter(site: &'static Site) {
    if !active() || seen_and_done(site) {
        return;
    }
    run_over_again();
    let Some(mut rec) = lock() else { return };
    let id = rec.site(site);
    if let Err(fuel) = rec.tick() {
        drop(rec);
        fuel_exit(fuel);
    }
    let instance = rec.state(id).next_instance();
    if let Some(trace) = rec.event_trace() {
        trace.write_with(|out| wire::iteration(out, id, instance));
    }
}

/// Active [`crate::__rt::contract`].
#[cold]
#[inline(never)]
pub(crate) fn contract(site: &'static Site, ok: bool) -> bool {
    if !active() || seen_and_done(site) {
        return ok;
    }
    let Some(mut rec) = lock() else { return ok };
    let id = rec.site(site);
    let instance = rec.state(id).next_instance();
    if let Some(trace) = rec.event_trace() {
        trace.write_with(|out| wire::contract(out, id, instance, ok));
    }
    ok
}
