//! The engine that runs test processes, the one module that does: listing a binary's tests,
//! running one test in its own process with a timeout and an environment (trace, plan),
//! running many at once; in [`batch`], one test under many plans inside one process (the
//! in-process harness); in [`recorder`], runs that record a trace.

pub mod batch;
mod recorder;
mod together;
pub mod verdict;

pub use together::run_together;

pub use recorder::Recorder;

use std::collections::{BTreeSet, HashMap};
use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use anyhow::{Context, Result, bail};

use crate::build::TestBinary;
use crate::interrupt::Interrupts;
use crate::model::{Outcome, TestId};

/// Lists the (non-ignored) tests of a test binary.
pub fn list_tests(
    binary: &TestBinary,
    engine: &Engine,
    libtest: &crate::options::LibtestArgs,
) -> Result<Vec<TestId>> {
    let list = |ignored: bool| -> Result<Vec<String>> {
        let mut command = Command::new(&binary.executable);
        engine.0.libraries(&mut command);
        command
            .args(["--list", "--format", "terse"])
            .current_dir(&binary.package_root);
        if ignored {
            command.arg("--ignored");
        }
        let output = command
            .stdin(Stdio::null())
            .output()
            .with_context(|| format!("could not run {}", binary.executable.display()))?;
        if !output.status.success() {
            bail!(
                "listing the tests of {} failed: {}",
                binary.executable.display(),
                String::from_utf8_lossy(&output.stderr).trim()
            );
        }
        Ok(String::from_utf8_lossy(&output.stdout)
            .lines()
            .filter_map(|line| line.strip_suffix(": test"))
            .map(str::to_string)
            .collect())
    };
    // Ignored tests are listed apart: left out by default, run with the others with
    // `--include-ignored`, alone with `--ignored` (each test then runs with
    // `--include-ignored`, see [`test_command`]).
    let ignored = list(true)?;
    Ok(list(false)?
        .into_iter()
        .filter(|name| {
            let is_ignored = ignored.contains(name);
            if libtest.ignored {
                is_ignored
            } else {
                libtest.include_ignored || !is_ignored
            }
        })
        .map(|name| TestId {
            package: binary.package.clone(),
            target: binary.target.clone(),
            kind: binary.kind.clone(),
            name,
            binary: binary.executable.clone(),
            package_root: binary.package_root.clone(),
        })
        .collect())
}

/// How to run a test: timeout and extra environment.
#[derive(Debug, Clone, Default)]
pub struct RunConfig {
    pub timeout: Duration,
    pub env: Vec<(String, String)>,
}

/// What one run of one test produced.
#[derive(Debug, Clone)]
pub struct RunResult {
    pub outcome: Outcome,
    pub stdout: String,
    pub stderr: String,
    pub duration: Duration,
}

/// Keep at most this much of a test's output (the head and the tail).
const MAX_OUTPUT: usize = 256 * 1024;

/// The variable the dynamic loader reads for more library directories.
const LIBRARY_VAR: &str = if cfg!(target_os = "macos") {
    "DYLD_FALLBACK_LIBRARY_PATH"
} else {
    "LD_LIBRARY_PATH"
};

/// The library directories test binaries are run with, as cargo's runner gives them: the
/// toolchain's target libraries first (a procedural-macro crate's test binary loads the
/// standard library as a shared library), then the environment's own.
fn library_path() -> Option<OsString> {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let output = Command::new(rustc)
        .args(["--print", "target-libdir"])
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()
        .filter(|o| o.status.success())?;
    let mut dirs = vec![PathBuf::from(
        String::from_utf8_lossy(&output.stdout).trim(),
    )];
    if let Some(existing) = std::env::var_os(LIBRARY_VAR) {
        dirs.extend(std::env::split_paths(&existing));
    }
    std::env::join_paths(dirs).ok()
}

/// The command that runs one test alone, as `cargo test` would: in the package directory,
/// with `CARGO_MANIFEST_DIR` set and the toolchain's libraries on the library path, no
/// stdin, in its own process group (so a timeout kills whatever the test spawned too).
/// Output and extra environment are the caller's.
pub fn test_command(test: &TestId, engine: &Engine) -> Command {
    tests_command(test, &[&test.name], engine)
}

/// The command that runs the tests `names` of `test`'s binary one after the other, in one
/// process and one thread, as [`test_command`] runs one.
pub fn tests_command(test: &TestId, names: &[&str], engine: &Engine) -> Command {
    let mut command = Command::new(&test.binary);
    engine.0.libraries(&mut command);
    command
        .arg("--exact")
        .args(names)
        .args(["--test-threads=1", "--nocapture", "--color=never"])
        .current_dir(&test.package_root)
        .env("CARGO_MANIFEST_DIR", &test.package_root)
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::null());
    if engine.0.include_ignored {
        command.arg("--include-ignored");
    }
    // A recursion that does not end would kill the process, and its trace with it: the
    // runtime ends it with a panic past a bound instead, under a stack the bound cannot
    // reach. The bound is four times the 2 MiB a test thread gets from `cargo test` (the
    // instrumented frames are larger than the plain ones). A user's own `RUST_MIN_STACK`
    // says what the tests need: then there is no bound.
    if std::env::var_os("RUST_MIN_STACK").is_none() {
        command
            .env("RUST_MIN_STACK", (TEST_STACK_MIB << 20).to_string())
            .env(
                autodebug_runtime::protocol::ENV_STACK_LIMIT,
                (STACK_LIMIT_MIB << 20).to_string(),
            );
    }
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    command
}

/// Stack of a test thread in the tool's runs, in MiB (a bound, not memory: pages are only
/// taken as used).
const TEST_STACK_MIB: usize = 64;
/// The bound on the stack a test thread's instrumented calls take, in MiB (see
/// [`autodebug_runtime::protocol::ENV_STACK_LIMIT`]).
const STACK_LIMIT_MIB: usize = 8;

/// The test runs of one session: where the harness's private verdict files go, how the
/// build left the tests, and what the runs learned of the test binaries on the way (which
/// refuse `--logfile`, which tests do not take batches). Clones share it.
#[derive(Debug, Clone)]
pub struct Engine(Arc<EngineState>);

#[derive(Debug)]
pub(crate) struct EngineState {
    results_dir: PathBuf,
    /// Where running tests' process groups are registered, to be killed on an interrupt.
    pub(crate) interrupts: Interrupts,
    /// The library directories test binaries run with (see [`library_path`]).
    library_path: Option<OsString>,
    /// The instrumented build wraps libtest tests in the test attribute (see
    /// `zero::annotation::TEST_ATTRIBUTE`): their binaries are sent batches without a probe.
    pub(crate) wrapped_tests: bool,
    /// The selection may hold ignored tests (`-- --include-ignored` or `--ignored`): every
    /// test runs with `--include-ignored`, so that an ignored one runs when named.
    include_ignored: bool,
    /// Test binaries whose harness refused `--logfile`: judged by their stdout.
    no_logfile: Mutex<BTreeSet<PathBuf>>,
    /// Tests (binary, name) found not to run batches: unwrapped in the end (the build left
    /// the attribute out), or refusing the request. They get one process per plan from then
    /// on.
    pub(crate) no_batch: Mutex<BTreeSet<(PathBuf, String)>>,
    /// Whether a test binary (by path and modification time) is built on the harness and
    /// speaks this batch version: asked once per binary.
    pub(crate) probed: Mutex<HashMap<(PathBuf, Option<SystemTime>), bool>>,
}

impl Default for Engine {
    /// Result files in the system's temp dir; no test wrapped.
    fn default() -> Engine {
        Engine::new(std::env::temp_dir(), false, Interrupts::default())
    }
}

impl Engine {
    /// An engine writing result files under `results_dir`, for a build that did or did not
    /// wrap the libtest tests.
    pub fn new(results_dir: PathBuf, wrapped_tests: bool, interrupts: Interrupts) -> Engine {
        Engine(Arc::new(EngineState {
            results_dir,
            interrupts,
            library_path: library_path(),
            wrapped_tests,
            include_ignored: false,
            no_logfile: Mutex::default(),
            no_batch: Mutex::default(),
            probed: Mutex::default(),
        }))
    }

    /// Where running processes are registered, to be killed on an interrupt.
    pub fn interrupts(&self) -> &Interrupts {
        &self.0.interrupts
    }

    /// A fresh engine like this one (its results directory, interrupts and library path,
    /// which `new` asks the toolchain for) whose tests do or do not carry the test attribute.
    pub fn with_wrapped_tests(&self, wrapped_tests: bool) -> Engine {
        self.fresh(wrapped_tests, self.0.include_ignored)
    }

    /// A fresh engine like this one whose tests run with `--include-ignored` (or not).
    pub fn with_ignored_tests(&self, include_ignored: bool) -> Engine {
        self.fresh(self.0.wrapped_tests, include_ignored)
    }

    fn fresh(&self, wrapped_tests: bool, include_ignored: bool) -> Engine {
        let state = &self.0;
        Engine(Arc::new(EngineState {
            results_dir: state.results_dir.clone(),
            interrupts: state.interrupts.clone(),
            library_path: state.library_path.clone(),
            wrapped_tests,
            include_ignored,
            no_logfile: Mutex::default(),
            no_batch: Mutex::default(),
            probed: Mutex::default(),
        }))
    }

    pub(crate) fn state(&self) -> &EngineState {
        &self.0
    }
}

impl EngineState {
    /// Puts the library directories on `command`'s library path.
    pub(crate) fn libraries(&self, command: &mut Command) {
        if let Some(path) = &self.library_path {
            command.env(LIBRARY_VAR, path);
        }
    }
}

/// Runs one test alone in its own process (as `cargo test` would: in the package
/// directory, with `CARGO_MANIFEST_DIR` set), killing it at the timeout.
///
/// The harness writes its verdict to a private result file (`--logfile`) whose name holds
/// a fresh random part: nothing the test prints is read as the verdict, and a test cannot
/// guess where the verdict goes from its output.
pub fn run_test(engine: &Engine, test: &TestId, config: &RunConfig) -> Result<RunResult> {
    let refused = (engine.0.no_logfile)
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .contains(&test.binary);
    let log = if refused {
        None
    } else {
        let dir = &engine.0.results_dir;
        std::fs::create_dir_all(dir).ok();
        Some(
            tempfile::Builder::new()
                .prefix("result-")
                .tempfile_in(dir)
                .context("could not create a result file")?,
        )
    };
    let mut command = test_command(test, engine);
    if let Some(log) = &log {
        command.arg("--logfile").arg(log.path());
    }
    command.stdout(Stdio::piped()).stderr(Stdio::piped());
    for (key, value) in &config.env {
        command.env(key, value);
    }
    let start = Instant::now();
    let (mut child, _group) = (engine.0.interrupts)
        .spawn(&mut command)
        .with_context(|| format!("could not run {}", test.binary.display()))?;
    let stdout = read_in_background(child.stdout.take());
    let stderr = read_in_background(child.stderr.take());
    let status = wait_with_timeout(&mut child, config.timeout)?;
    let duration = start.elapsed();
    let stdout = stdout.join().unwrap_or_default();
    let stderr = stderr.join().unwrap_or_default();
    let verdict = log.as_ref().map(|log| {
        let text = std::fs::read(log.path()).unwrap_or_default();
        verdict::Verdict::read(&String::from_utf8_lossy(&text), &test.name)
    });
    if verdict == Some(verdict::Verdict::Nothing) && refuses_logfile(&stderr) {
        (engine.0.no_logfile)
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(test.binary.clone());
        return run_test(engine, test, config);
    }
    let outcome = match status {
        None => Outcome::Timeout {
            seconds: config.timeout.as_secs_f64(),
        },
        Some(status) => {
            use std::os::unix::process::ExitStatusExt;
            verdict::classify(&verdict::Finished {
                code: status.code(),
                signal: status.signal(),
                stdout: &stdout,
                stderr: &stderr,
                verdict,
                test: &test.name,
            })
        }
    };
    Ok(RunResult {
        outcome,
        stdout,
        stderr,
        duration,
    })
}

/// Whether a harness said it does not know `--logfile` (libtest: `Unrecognized option`;
/// clap-based harnesses: `unexpected argument`).
fn refuses_logfile(stderr: &str) -> bool {
    stderr.lines().any(|l| {
        l.contains("logfile")
            && (l.contains("Unrecognized option")
                || l.contains("unexpected argument")
                || l.contains("unknown option"))
    })
}

fn read_in_background<R: Read + Send + 'static>(
    pipe: Option<R>,
) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let Some(mut pipe) = pipe else {
            return String::new();
        };
        let mut kept = Vec::new();
        let mut buffer = [0u8; 16 * 1024];
        let mut dropped = 0usize;
        loop {
            match pipe.read(&mut buffer) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    kept.extend_from_slice(&buffer[..n]);
                    if kept.len() > MAX_OUTPUT {
                        // Keep the head (where the harness starts) and the tail (where the
                        // failure is reported); drop the middle.
                        let excess = kept.len() - MAX_OUTPUT;
                        let middle = MAX_OUTPUT / 2;
                        kept.drain(middle..middle + excess);
                        dropped += excess;
                    }
                }
            }
        }
        let mut text = String::from_utf8_lossy(&kept).into_owned();
        if dropped > 0 {
            text.insert_str(
                text.len().min(MAX_OUTPUT / 2),
                &format!("\n[… {dropped} bytes of output dropped …]\n"),
            );
        }
        text
    })
}

/// Waits for the child; at the timeout kills its process group and returns `None`.
fn wait_with_timeout(
    child: &mut Child,
    timeout: Duration,
) -> Result<Option<std::process::ExitStatus>> {
    let deadline = Instant::now() + timeout;
    let mut pause = Duration::from_millis(1);
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(Some(status));
        }
        if Instant::now() >= deadline {
            kill_group(child);
            let _ = child.wait();
            return Ok(None);
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(20));
    }
}

/// Kills the child's process group (see [`test_command`]), then the child.
pub fn kill_group(child: &mut Child) {
    kill_process_group(child.id() as i32);
    let _ = child.kill();
}

/// Sends SIGKILL to the process group `pgid` (one the run created for a test); a group
/// already gone is no error.
pub fn kill_process_group(pgid: i32) {
    if let Some(pid) = rustix::process::Pid::from_raw(pgid) {
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
}

/// Runs `job` on every item with `jobs` threads, calling `done` (under a lock) as each
/// finishes. Results come back in input order.
pub fn run_parallel<T: Sync, R: Send>(
    items: &[T],
    jobs: usize,
    job: impl Fn(&T) -> R + Sync,
    done: impl Fn(&T, &R) + Send,
) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<R>>> = Mutex::new((0..items.len()).map(|_| None).collect());
    let done = Mutex::new(done);
    std::thread::scope(|scope| {
        for _ in 0..jobs.min(items.len()).max(1) {
            scope.spawn(|| {
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = items.get(index) else { break };
                    let result = job(item);
                    (done.lock().unwrap())(item, &result);
                    results.lock().unwrap()[index] = Some(result);
                }
            });
        }
    });
    results
        .into_inner()
        .unwrap()
        .into_iter()
        .map(|r| r.expect("every job ran"))
        .collect()
}

/// A scratch path for a per-run file (trace, plan).
pub fn scratch_file(dir: &Path, test: &TestId, suffix: &str) -> PathBuf {
    dir.join(format!("{}.{suffix}", test.file_stem()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parallel_results_keep_input_order() {
        let items: Vec<u64> = (0..50).collect();
        let seen = Mutex::new(0);
        let results = run_parallel(&items, 4, |x| x * 2, |_, _| *seen.lock().unwrap() += 1);
        assert_eq!(results, (0..50).map(|x| x * 2).collect::<Vec<_>>());
        assert_eq!(*seen.lock().unwrap(), 50);
    }

    #[test]
    fn file_stem_is_safe() {
        let test = TestId {
            package: "p".into(),
            target: "t".into(),
            kind: "lib".into(),
            name: "tests::a b/c".into(),
            binary: PathBuf::new(),
            package_root: PathBuf::new(),
        };
        let stem = test.file_stem();
        assert!(stem.starts_with("p.t.tests__a_b_c-"), "{stem}");
        let other = TestId {
            name: "tests::a_b_c".into(),
            ..test.clone()
        };
        assert_ne!(other.file_stem(), stem);
    }
}
