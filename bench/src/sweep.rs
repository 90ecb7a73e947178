//! The equivalence sweep: real crates built and tested plainly (`cargo test`) and
//! instrumented (`cargo autodebug --baseline-only`, zero-annotation mode: what a user gets),
//! compared. Both builds must succeed and every test must get the same verdict; the share
//! of functions instrumented (the tool's `report.json`) and the site statics the
//! instrumented crates compiled (their object files) are reported.
//!
//! Crates come from directories of crates (the HumanEvalFix crates a user materialized,
//! `bench/corpus`) and from a list of registry crates pinned by name and version
//! (`bench/sweep/crates.txt`), read from `~/.cargo/registry/src/*/`. Every crate is copied
//! to a scratch directory first: the sources are only read.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant, SystemTime};

use anyhow::{Context, Result, bail};
use serde::Serialize;

use crate::process;

/// One crate of the sweep.
#[derive(Clone, Debug)]
pub struct Crate {
    /// Where it comes from (`corpus`, `registry`, or a crates directory's name).
    pub group: String,
    /// `name` or `name-version`.
    pub name: String,
    /// Its root (read only).
    pub dir: PathBuf,
}

impl Crate {
    /// Its package name, from its manifest (the directory's name if unreadable).
    pub fn package(&self) -> String {
        std::fs::read_to_string(self.dir.join("Cargo.toml"))
            .ok()
            .and_then(|m| crate::corpus::package_name(&m))
            .unwrap_or_else(|| self.name.clone())
    }
}

/// The crates under `dir`: each subdirectory with a `Cargo.toml` whose name does not start
/// with a dot, sorted by name.
pub fn crates_in(dir: &Path, group: &str) -> Result<Vec<Crate>> {
    let mut crates = Vec::new();
    for entry in std::fs::read_dir(dir).with_context(|| format!("cannot read {}", dir.display()))? {
        let path = entry?.path();
        // Hidden directories are not crates of the set (`hefix.py`'s `.template`).
        if path.join("Cargo.toml").is_file() && !file_name(&path).starts_with('.') {
            crates.push(Crate {
                group: group.to_string(),
                name: file_name(&path),
                dir: path,
            });
        }
    }
    crates.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(crates)
}

/// The registry crates a list names (`name version` per line, `#` starts a comment), found
/// in the registry's sources under `registry_src` (`~/.cargo/registry/src`). A crate that
/// is not there is an error: the list is pinned.
pub fn listed_crates(list: &Path, registry_src: &Path) -> Result<Vec<Crate>> {
    let text =
        std::fs::read_to_string(list).with_context(|| format!("cannot read {}", list.display()))?;
    let indexes: Vec<PathBuf> = std::fs::read_dir(registry_src)
        .with_context(|| format!("cannot read {}", registry_src.display()))?
        .flatten()
        .map(|e| e.path())
        .collect();
    let mut crates = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or_default().trim();
        if line.is_empty() {
            continue;
        }
        let mut words = line.split_whitespace();
        let (Some(name), Some(version), None) = (words.next(), words.next(), words.next()) else {
            bail!(
                "{}:{}: expected `name version`, found `{line}`",
                list.display(),
                number + 1
            );
        };
        let dir_name = format!("{name}-{version}");
        let Some(dir) = indexes
            .iter()
            .map(|index| index.join(&dir_name))
            .find(|dir| dir.join("Cargo.toml").is_file())
        else {
            bail!(
                "{}:{}: {dir_name} is not in {} (a build that depends on it fetches it)",
                list.display(),
                number + 1,
                registry_src.display()
            );
        };
        crates.push(Crate {
            group: "registry".into(),
            name: dir_name,
            dir,
        });
    }
    Ok(crates)
}

/// How the sweep runs.
#[derive(Clone, Debug)]
pub struct Options {
    /// The cargo-autodebug binary.
    pub tool: PathBuf,
    /// Where the copies and the tool's outputs go (one subdirectory per crate).
    pub scratch: PathBuf,
    /// Target dir of the plain builds, shared by every crate.
    pub plain_target: PathBuf,
    /// Target dir of the instrumented builds, shared by every crate.
    pub instrumented_target: PathBuf,
    /// Wall-time limit of one build or test run, plain or instrumented.
    pub limit: Duration,
    /// Per-test timeout given to the tool, in seconds.
    pub test_timeout: f64,
    /// Tests run at once by the tool.
    pub jobs: usize,
}

/// A test's verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    Passed,
    Failed,
    /// In one run's list only.
    Missing,
}

/// What happened to one crate.
#[derive(Clone, Debug, Default, Serialize)]
pub struct CrateResult {
    pub group: String,
    pub name: String,
    /// The plain `cargo test` build succeeded.
    pub plain_built: bool,
    /// The instrumented build succeeded (the tool ran its baseline).
    pub instrumented_built: bool,
    /// Tests in the plain run.
    pub tests: usize,
    /// Tests whose verdicts differ: `target::name`, plain verdict, instrumented verdict.
    pub differences: Vec<(String, Verdict, Verdict)>,
    /// Tests whose verdicts differed, but whose plain verdict changes from one plain run to
    /// the next (random inputs, a race, a hang now and then): not the instrumentation's.
    pub unsteady: Vec<String>,
    /// Tests whose verdicts differed, but that pass under the tool when it runs one test at
    /// a time: tests that share state across their processes (a temp directory named by a
    /// process-wide counter), which one process per test (the tool's, as cargo-nextest's)
    /// runs side by side. Not the instrumentation's either.
    pub parallel_only: Vec<String>,
    /// Functions that got the attribute.
    pub functions: usize,
    /// Functions the instrumented build kept instrumented.
    pub functions_instrumented: usize,
    /// Items built uninstrumented, and sites built without their hook, with the
    /// compiler's reason.
    pub left_out: Vec<String>,
    /// What the tool said it left uninstrumented or could not do (its `warning:` lines).
    pub warnings: Vec<String>,
    /// Site statics in the instrumented crates' object files (`None`: not counted).
    pub sites: Option<usize>,
    /// Why a step did not complete (a build error's first lines, a timeout).
    pub problem: Option<String>,
    pub plain_s: f64,
    pub instrumented_s: f64,
}

impl CrateResult {
    /// The crate is equivalent: built both ways with the same verdicts (or did not build
    /// plainly either: it is out of the sweep).
    pub fn equivalent(&self) -> bool {
        !self.plain_built || (self.instrumented_built && self.differences.is_empty())
    }
}

/// Runs the sweep over `crates`, one at a time, printing a line per crate.
pub fn run(crates: &[Crate], opts: &Options) -> Result<Vec<CrateResult>> {
    std::fs::create_dir_all(&opts.scratch)?;
    let mut results = Vec::new();
    for (i, krate) in crates.iter().enumerate() {
        let result = run_crate(krate, i, opts)
            .with_context(|| format!("sweep of {}", krate.dir.display()))?;
        eprintln!("{}", line(&result));
        results.push(result);
    }
    Ok(results)
}

/// One line for people about a crate's result.
pub fn line(r: &CrateResult) -> String {
    let verdict = if !r.plain_built {
        "out (plain build fails)".to_string()
    } else if !r.instrumented_built {
        "INSTRUMENTED BUILD FAILS".to_string()
    } else if !r.differences.is_empty() {
        format!("{} VERDICTS DIFFER", r.differences.len())
    } else {
        "same".to_string()
    };
    format!(
        "{:>10} {:<32} {verdict}: {} tests, functions {}/{}, sites {} ({:.1}s + {:.1}s){}",
        r.group,
        r.name,
        r.tests,
        r.functions_instrumented,
        r.functions,
        r.sites.map_or("?".into(), |s| s.to_string()),
        r.plain_s,
        r.instrumented_s,
        r.problem
            .as_ref()
            .map_or(String::new(), |p| format!("\n{:>10} {p}", ""))
    )
}

fn run_crate(krate: &Crate, index: usize, opts: &Options) -> Result<CrateResult> {
    let mut result = CrateResult {
        group: krate.group.clone(),
        name: krate.name.clone(),
        ..CrateResult::default()
    };
    let place = opts.scratch.join(format!("{index:03}-{}", krate.name));
    let copy = prepare_copy(krate, &place)?;

    let start = Instant::now();
    let built = process::run(
        cargo(&copy, &opts.plain_target, &["test", "--no-run"]),
        opts.limit,
    )?;
    result.plain_built = built.code == Some(0);
    if !result.plain_built {
        result.problem = Some(first_errors(&built.stderr, built.timed_out));
        result.plain_s = start.elapsed().as_secs_f64();
        return Ok(result);
    }
    // cargo says which binary runs on stderr, libtest the verdicts on stdout: one stream.
    let test = cargo(
        &copy,
        &opts.plain_target,
        &["test", "--no-fail-fast", "--tests"],
    );
    let merged = || {
        let mut merged = Command::new("sh");
        merged
            .args(["-c", "exec \"$0\" \"$@\" 2>&1"])
            .arg(test.get_program())
            .args(test.get_args())
            .envs(test.get_envs().filter_map(|(k, v)| Some((k, v?))))
            .env_remove("AUTODEBUG_INSTRUMENT")
            .env_remove("AUTODEBUG_TRACE")
            .env_remove("RUSTC_WORKSPACE_WRAPPER")
            .current_dir(&copy);
        merged
    };
    let testing = Instant::now();
    let tested = process::run(merged(), opts.limit)?;
    let plain_test_s = testing.elapsed().as_secs_f64();
    let mut plain = parse_libtest(&tested.stdout);
    // A test that kills its binary (a stack overflow aborts) takes the binary's other
    // tests with it: those get one process each, as the tool's runner gives every test.
    for binary in died(&tested.stdout) {
        finish_alone(&binary, &copy, &mut plain, opts)?;
    }
    result.plain_s = start.elapsed().as_secs_f64();
    result.tests = plain.len();
    if tested.timed_out {
        result.problem = Some("the plain test run timed out".into());
    }

    let out = place.join("autodebug.out");
    let start = Instant::now();
    let since = SystemTime::now();
    let tool = tool_command(opts, &copy, &out, plain_test_s, tested.timed_out);
    // Kept for a run one test at a time (below).
    let tool_args: Vec<std::ffi::OsString> = tool.get_args().map(|a| a.to_os_string()).collect();
    let ran = process::run(tool, opts.limit)?;
    result.instrumented_s = start.elapsed().as_secs_f64();
    result.warnings = ran
        .stderr
        .lines()
        .filter_map(|l| l.strip_prefix("warning: "))
        .map(str::to_string)
        .collect();
    let report: Option<serde_json::Value> = std::fs::read_to_string(out.join("report.json"))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok());
    let Some(report) = report else {
        result.problem = Some(format!(
            "the tool wrote no report (exit {:?}{}): {}",
            ran.code,
            if ran.timed_out { ", timed out" } else { "" },
            last_lines(&ran.stderr, 5)
        ));
        return Ok(result);
    };
    if let Some(instr) = report.get("instrumentation") {
        record_instrumentation(&mut result, instr);
    }
    // The crates compiled from this package: its test binaries' names (its library's and
    // binaries' unit tests among them), and its own name.
    let mut names: std::collections::BTreeSet<String> = plain
        .keys()
        .filter_map(|k| k.split("::").next())
        .map(str::to_string)
        .collect();
    names.insert(krate.package().replace('-', "_"));
    result.sites = count_sites(&opts.instrumented_target, since, &names);
    // The scratch copies build in places under the target dir that the crates share (the
    // runtime and the macros are built once for all); sessions are told apart by `since`.
    let status = report["status"].as_str().unwrap_or_default();
    result.instrumented_built = status != "build-failed";
    if !result.instrumented_built {
        result.problem = Some(build_failure(&report, &out));
        return Ok(result);
    }
    let coverage: serde_json::Value = std::fs::read_to_string(out.join("coverage.json"))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default();
    let instrumented = coverage_verdicts(&coverage);
    result.differences = differences(&plain, &instrumented);
    if !result.differences.is_empty() {
        set_apart_unsteady(&mut result, &merged, plain_test_s, opts)?;
    }
    if !result.differences.is_empty() && opts.jobs > 1 {
        set_apart_parallel_only(&mut result, tool_args, &place, &copy, opts)?;
    }
    Ok(result)
}

/// The tool's baseline-only run of the scratch copy at `copy`, writing to `out`.
fn tool_command(
    opts: &Options,
    copy: &Path,
    out: &Path,
    plain_test_s: f64,
    timed_out: bool,
) -> Command {
    let mut tool = Command::new(&opts.tool);
    tool.arg("--baseline-only")
        .arg("--manifest-path")
        .arg(copy.join("Cargo.toml"))
        .arg("--output")
        .arg(out)
        .arg("--target-dir")
        .arg(&opts.instrumented_target)
        .args(["--reruns", "0", "--color", "never", "--jobs"])
        .arg(opts.jobs.to_string())
        // The sweep compares verdicts, not speed (bench/overhead.sh measures that): a test
        // may take under the tool what the whole plain test run took, ten times over (not
        // when that run hung), within the bound of the tool's whole run.
        .arg("--timeout")
        .arg(tool_timeout(opts, plain_test_s, timed_out).to_string())
        .env("CARGO_NET_OFFLINE", "true")
        .current_dir(copy);
    tool
}

/// The scratch copy of `krate` under `place` (made anew), its manifest naming this
/// repository's runtime by an absolute path.
fn prepare_copy(krate: &Crate, place: &Path) -> Result<PathBuf> {
    if place.exists() {
        std::fs::remove_dir_all(place)?;
    }
    let copy = place.join(&krate.name);
    copy_crate(&krate.dir, &copy)?;
    // The corpus names this repository's runtime by a relative path out of the crate; paths
    // inside it (`[lib] path = "lib.rs"`) name the copy's files.
    let manifest = std::fs::read_to_string(copy.join("Cargo.toml"))?;
    let manifest: String = manifest
        .split_inclusive('\n')
        .map(|line| {
            if line.contains("\"../") {
                crate::corpus::absolute_paths(line, &krate.dir)
            } else {
                line.to_string()
            }
        })
        .collect();
    std::fs::write(copy.join("Cargo.toml"), manifest)?;
    // A published crate may ship a lock file naming versions this machine does not have;
    // cargo picks among the ones it has.
    if krate.group == "registry" {
        std::fs::remove_file(copy.join("Cargo.lock")).ok();
    }
    Ok(copy)
}

/// The report's `instrumentation`: functions, those instrumented, the items left out.
fn record_instrumentation(result: &mut CrateResult, instr: &serde_json::Value) {
    let count = |key: &str| instr.get(key).and_then(|v| v.as_u64()).unwrap_or(0) as usize;
    result.functions = count("functions");
    result.functions_instrumented = count("instrumented");
    for left in instr["left_out"].as_array().into_iter().flatten() {
        result.left_out.push(format!(
            "{}: {}: {}",
            left["file"].as_str().unwrap_or_default(),
            left["item"].as_str().unwrap_or_default(),
            left["reason"].as_str().unwrap_or_default()
        ));
    }
    for left in instr["sites_left_out"].as_array().into_iter().flatten() {
        result.left_out.push(format!(
            "{}:{}:{}: a site of {}: {}",
            left["file"].as_str().unwrap_or_default(),
            left["line"].as_u64().unwrap_or_default(),
            left["column"].as_u64().unwrap_or_default(),
            left["item"].as_str().unwrap_or_default(),
            left["reason"].as_str().unwrap_or_default()
        ));
    }
}

/// Why the instrumented build failed: the compiler's first errors, or the end of the
/// build log when cargo itself failed.
fn build_failure(report: &serde_json::Value, out: &Path) -> String {
    let errors: Vec<&str> = report["build_errors"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|e| e.as_str())
        .collect();
    if errors.is_empty() {
        // Cargo's own error (no compiler message): the end of the build log.
        let log = std::fs::read_to_string(out.join("log/build.log")).unwrap_or_default();
        first_errors(&log, false)
    } else {
        first_lines(&errors.join("\n"), 6)
    }
}

/// Moves apart the differences whose plain verdict changes when the plain tests run again
/// (`merged` makes that run's command).
fn set_apart_unsteady(
    result: &mut CrateResult,
    merged: &dyn Fn() -> Command,
    plain_test_s: f64,
    opts: &Options,
) -> Result<()> {
    // A test whose plain verdict changes from run to run says nothing of the
    // instrumentation: the plain tests run again (a hang is bounded by five times the
    // first run), and a verdict that is not the first one's again moves the test apart.
    let bound = Duration::from_secs_f64((5.0 * plain_test_s).max(30.0)).min(opts.limit);
    for _ in 0..PLAIN_RERUNS {
        let again = parse_libtest(&process::run(merged(), bound)?.stdout);
        let (steady, unsteady): (Vec<_>, Vec<_>) = std::mem::take(&mut result.differences)
            .into_iter()
            .partition(|(key, first, _)| again.get(key) == Some(first));
        result.differences = steady;
        result
            .unsteady
            .extend(unsteady.into_iter().map(|(key, ..)| key));
        if result.differences.is_empty() {
            break;
        }
    }
    Ok(())
}

/// Moves apart the differences that go away when the tool runs one test at a time
/// (`tool_args` are its arguments of the first run).
fn set_apart_parallel_only(
    result: &mut CrateResult,
    tool_args: Vec<std::ffi::OsString>,
    place: &Path,
    copy: &Path,
    opts: &Options,
) -> Result<()> {
    // The tool runs each test in a process of its own, side by side: tests that share
    // state across processes collide there and not in cargo's one process. Run one at
    // a time, a test that then has the plain verdict is moved apart.
    let alone = place.join("autodebug.out.alone");
    let mut again = Command::new(&opts.tool);
    let mut args = tool_args.into_iter();
    while let Some(arg) = args.next() {
        match arg.to_str() {
            Some("--jobs") => {
                args.next();
                again.args(["--jobs", "1"]);
            }
            Some("--output") => {
                args.next();
                again.arg("--output").arg(&alone);
            }
            _ => {
                again.arg(arg);
            }
        }
    }
    again.env("CARGO_NET_OFFLINE", "true").current_dir(copy);
    process::run(again, opts.limit)?;
    let coverage: serde_json::Value = std::fs::read_to_string(alone.join("coverage.json"))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default();
    let one_at_a_time = coverage_verdicts(&coverage);
    let (steady, parallel_only): (Vec<_>, Vec<_>) = std::mem::take(&mut result.differences)
        .into_iter()
        .partition(|(key, first, _)| one_at_a_time.get(key) != Some(first));
    result.differences = steady;
    result
        .parallel_only
        .extend(parallel_only.into_iter().map(|(key, ..)| key));
    Ok(())
}

/// The verdicts of the tool's baseline, from its `coverage.json`, by key.
fn coverage_verdicts(coverage: &serde_json::Value) -> BTreeMap<String, Verdict> {
    let mut verdicts = BTreeMap::new();
    for test in coverage["tests"].as_array().into_iter().flatten() {
        let key = test_key(
            test["test"]["target"].as_str().unwrap_or_default(),
            test["test"]["name"].as_str().unwrap_or_default(),
        );
        let verdict = if test["outcome"] == "passed" {
            Verdict::Passed
        } else {
            Verdict::Failed
        };
        verdicts.insert(key, verdict);
    }
    verdicts
}

/// The per-test timeout of the tool's run: the sweep's, or ten times the plain test run's
/// wall time when that is longer and the plain run finished; at most the step bound.
fn tool_timeout(opts: &Options, plain_test_s: f64, plain_timed_out: bool) -> f64 {
    let scaled = if plain_timed_out {
        0.0
    } else {
        10.0 * plain_test_s
    };
    opts.test_timeout
        .max(scaled)
        .min(opts.limit.as_secs_f64())
        .ceil()
}

/// Plain reruns of a crate whose verdicts differed, to tell an unsteady test.
const PLAIN_RERUNS: usize = 3;

/// The tests whose verdicts differ between two runs, by key.
pub fn differences(
    plain: &BTreeMap<String, Verdict>,
    instrumented: &BTreeMap<String, Verdict>,
) -> Vec<(String, Verdict, Verdict)> {
    let mut keys: Vec<&String> = plain.keys().chain(instrumented.keys()).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .filter_map(|key| {
            let a = plain.get(key).copied().unwrap_or(Verdict::Missing);
            let b = instrumented.get(key).copied().unwrap_or(Verdict::Missing);
            (a != b).then(|| (key.clone(), a, b))
        })
        .collect()
}

/// A test's key across the two runs: its target (as cargo names the test binary: `-` read
/// as `_`) and its libtest name.
fn test_key(target: &str, name: &str) -> String {
    format!("{}::{name}", target.replace('-', "_"))
}

/// The verdicts in `cargo test`'s output: `Running … (…/deps/TARGET-HASH)` names the
/// binary of the `test NAME ... ok|FAILED` lines that follow; ignored tests are left out
/// (the tool does not run them either).
pub fn parse_libtest(stdout: &str) -> BTreeMap<String, Verdict> {
    let mut verdicts = BTreeMap::new();
    let mut target = String::new();
    for line in stdout.lines() {
        if let Some(running) = line.trim_start().strip_prefix("Running ") {
            let binary = running
                .rsplit_once('(')
                .map_or(running, |(_, b)| b.trim_end_matches(')'));
            let stem = binary.rsplit('/').next().unwrap_or(binary);
            target = stem
                .rsplit_once('-')
                .map_or(stem, |(name, _hash)| name)
                .to_string();
            continue;
        }
        let Some((name, outcome)) = line
            .strip_prefix("test ")
            .and_then(|rest| rest.rsplit_once(" ... "))
        else {
            continue;
        };
        let name = name.strip_suffix(" - should panic").unwrap_or(name);
        let verdict = match outcome.trim() {
            "ok" => Verdict::Passed,
            "FAILED" => Verdict::Failed,
            _ => continue,
        };
        verdicts.insert(test_key(&target, name), verdict);
    }
    verdicts
}

/// The test binaries that cargo says did not exit successfully.
fn died(output: &str) -> Vec<PathBuf> {
    output
        .lines()
        .filter_map(|line| {
            let rest = line.split("process didn't exit successfully: `").nth(1)?;
            let binary = rest.split('`').next()?;
            // `cargo` quotes the command: the binary and its arguments, if any.
            Some(PathBuf::from(binary.split_whitespace().next()?))
        })
        .collect()
}

/// Runs each test of `binary` that has no verdict in `verdicts` in a process of its own
/// (in `dir`, where cargo runs tests) and records its verdict.
fn finish_alone(
    binary: &Path,
    dir: &Path,
    verdicts: &mut BTreeMap<String, Verdict>,
    opts: &Options,
) -> Result<()> {
    let list = |ignored: bool| -> Result<Vec<String>> {
        let mut c = Command::new(binary);
        c.args(["--list", "--format", "terse"]).current_dir(dir);
        if ignored {
            c.arg("--ignored");
        }
        let listed = process::run(c, opts.limit)?;
        Ok(listed
            .stdout
            .lines()
            .filter_map(|l| l.strip_suffix(": test"))
            .map(str::to_string)
            .collect())
    };
    let ignored = list(true)?;
    let stem = file_name(binary);
    let target = stem
        .rsplit_once('-')
        .map_or(stem.as_str(), |(name, _)| name);
    for name in list(false)?.into_iter().filter(|n| !ignored.contains(n)) {
        let key = test_key(target, &name);
        if verdicts.contains_key(&key) {
            continue;
        }
        let mut c = Command::new(binary);
        c.arg(&name).arg("--exact").current_dir(dir);
        let ran = process::run(c, Duration::from_secs_f64(opts.test_timeout))?;
        let passed = ran.code == Some(0) && ran.stdout.contains("test result: ok. 1 passed");
        verdicts.insert(
            key,
            if passed {
                Verdict::Passed
            } else {
                Verdict::Failed
            },
        );
    }
    Ok(())
}

/// The site statics (`__AUTODEBUG_SITE`) in the object files of the incremental sessions of
/// the crates `names` written since `since`: one session per compiled crate (its library and
/// its unit tests compile the same sites, so a crate counts its largest session). The
/// sessions are in the target dir's own `debug/incremental` and in those of the
/// zero-annotation places under it (`zero/PLACE/target`, where the scratch copies build).
/// `None` without `nm`.
pub fn count_sites(
    target: &Path,
    since: SystemTime,
    names: &std::collections::BTreeSet<String>,
) -> Option<usize> {
    let mut incremental = vec![target.join("debug/incremental")];
    if let Ok(places) = std::fs::read_dir(target.join("zero")) {
        incremental.extend(
            places
                .flatten()
                .map(|p| p.path().join("target/debug/incremental")),
        );
    }
    let mut by_crate: BTreeMap<String, usize> = BTreeMap::new();
    let crate_dirs: Vec<PathBuf> = incremental
        .iter()
        .filter_map(|dir| std::fs::read_dir(dir).ok())
        .flat_map(|entries| entries.flatten().map(|e| e.path()))
        .collect();
    for crate_dir in crate_dirs {
        let crate_name = file_name(&crate_dir)
            .rsplit_once('-')
            .map(|(name, _)| name.to_string())
            .unwrap_or_default();
        if !names.contains(&crate_name) {
            continue;
        }
        for session in std::fs::read_dir(&crate_dir).ok()?.flatten() {
            let path = session.path();
            let fresh = std::fs::metadata(&path)
                .and_then(|m| m.modified())
                .is_ok_and(|m| m >= since);
            if !path.is_dir() || !fresh {
                continue;
            }
            let mut symbols = std::collections::BTreeSet::new();
            for object in std::fs::read_dir(&path).ok()?.flatten() {
                if object.path().extension().is_some_and(|e| e == "o") {
                    let out = Command::new("nm").arg(object.path()).output().ok()?;
                    symbols.extend(
                        String::from_utf8_lossy(&out.stdout)
                            .lines()
                            .filter(|l| l.contains("__AUTODEBUG_SITE"))
                            .filter_map(|l| l.split_whitespace().last().map(str::to_string)),
                    );
                }
            }
            let count = by_crate.entry(crate_name.clone()).or_default();
            *count = (*count).max(symbols.len());
        }
    }
    Some(by_crate.values().sum())
}

/// `cargo ARGS` in `dir` with its own manifest and `target`, offline, uninstrumented.
fn cargo(dir: &Path, target: &Path, args: &[&str]) -> Command {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut c = Command::new(cargo);
    c.args(args)
        .args(["--color", "never", "--manifest-path"])
        .arg(dir.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", target)
        .env("CARGO_NET_OFFLINE", "true")
        .env_remove("AUTODEBUG_INSTRUMENT")
        .env_remove("AUTODEBUG_TRACE")
        .env_remove("RUSTC_WORKSPACE_WRAPPER")
        .current_dir(dir);
    c
}

/// Copies a crate's files, without its `target/` and the tool's output.
fn copy_crate(from: &Path, to: &Path) -> Result<()> {
    for entry in walkdir::WalkDir::new(from).into_iter().filter_entry(|e| {
        e.depth() != 1 || !matches!(e.file_name().to_str(), Some("target" | "autodebug.out"))
    }) {
        let entry = entry?;
        let rel = entry.path().strip_prefix(from)?;
        let dest = to.join(rel);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&dest)?;
        } else if entry.file_type().is_file() {
            std::fs::copy(entry.path(), &dest)
                .with_context(|| format!("cannot copy {}", entry.path().display()))?;
        }
    }
    Ok(())
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The compiler's first error lines, or that the build timed out.
fn first_errors(stderr: &str, timed_out: bool) -> String {
    if timed_out {
        return "the build timed out".into();
    }
    let errors: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("error"))
        .take(3)
        .collect();
    if errors.is_empty() {
        last_lines(stderr, 3)
    } else {
        errors.join(" / ")
    }
}

fn first_lines(s: &str, n: usize) -> String {
    s.lines().take(n).collect::<Vec<_>>().join(" / ")
}

fn last_lines(s: &str, n: usize) -> String {
    let lines: Vec<&str> = s.lines().collect();
    lines[lines.len().saturating_sub(n)..].join(" / ")
}

/// Totals over a group of results.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Totals {
    pub group: String,
    pub crates: usize,
    pub plain_built: usize,
    pub instrumented_built: usize,
    pub tests: usize,
    pub differences: usize,
    pub functions: usize,
    pub functions_instrumented: usize,
    pub sites: usize,
}

/// Totals per group, then over all (group `all`).
pub fn totals(results: &[CrateResult]) -> Vec<Totals> {
    let mut groups: Vec<String> = results.iter().map(|r| r.group.clone()).collect();
    groups.dedup();
    groups.push("all".into());
    groups
        .into_iter()
        .map(|group| {
            let mut t = Totals {
                group: group.clone(),
                ..Totals::default()
            };
            for r in results
                .iter()
                .filter(|r| group == "all" || r.group == group)
            {
                t.crates += 1;
                t.plain_built += usize::from(r.plain_built);
                t.instrumented_built += usize::from(r.plain_built && r.instrumented_built);
                t.tests += r.tests;
                t.differences += r.differences.len();
                t.functions += r.functions;
                t.functions_instrumented += r.functions_instrumented;
                t.sites += r.sites.unwrap_or(0);
            }
            t
        })
        .collect()
}

/// The results as Markdown: the totals table, then every crate that is not equivalent and
/// every item left out.
pub fn markdown(results: &[CrateResult], provenance: &str) -> String {
    let mut md = format!("{provenance}\n\n");
    md.push_str(
        "| crates | n | plain builds | instrumented builds | tests | verdict differences | functions instrumented | sites |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for t in totals(results) {
        let share = if t.functions == 0 {
            "–".to_string()
        } else {
            format!(
                "{}/{} ({:.1}%)",
                t.functions_instrumented,
                t.functions,
                100.0 * t.functions_instrumented as f64 / t.functions as f64
            )
        };
        md.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {share} | {} |\n",
            t.group, t.crates, t.plain_built, t.instrumented_built, t.tests, t.differences, t.sites
        ));
    }
    let findings: Vec<&CrateResult> = results.iter().filter(|r| !r.equivalent()).collect();
    md.push_str(&format!("\nFindings: {}\n", findings.len()));
    for r in findings {
        md.push_str(&format!("- {} {}: ", r.group, r.name));
        if !r.instrumented_built {
            md.push_str(&format!(
                "instrumented build fails: {}\n",
                r.problem.as_deref().unwrap_or("")
            ));
        } else {
            let shown: Vec<String> = r
                .differences
                .iter()
                .take(5)
                .map(|(t, a, b)| format!("`{t}` {a:?} plain, {b:?} instrumented"))
                .collect();
            md.push_str(&format!(
                "{} verdicts differ: {}\n",
                r.differences.len(),
                shown.join("; ")
            ));
        }
    }
    per_crate_lines(
        &mut md,
        "Tests whose plain verdict changes from run to run (not counted as differences)",
        results,
        |r| &r.unsteady,
    );
    per_crate_lines(
        &mut md,
        "Tests that differ only when the tool runs tests side by side, one process each, and \
         have the plain verdict one at a time (state shared across processes; not counted)",
        results,
        |r| &r.parallel_only,
    );
    per_crate_lines(&mut md, "The tool's warnings", results, |r| &r.warnings);
    per_crate_lines(&mut md, "Items built uninstrumented", results, |r| {
        &r.left_out
    });
    let out: Vec<String> = results
        .iter()
        .filter(|r| !r.plain_built)
        .map(|r| {
            format!(
                "- {} {}: {}",
                r.group,
                r.name,
                r.problem.as_deref().unwrap_or("")
            )
        })
        .collect();
    if !out.is_empty() {
        md.push_str(&format!(
            "\nOut of the sweep (the plain build fails): {}\n",
            out.len()
        ));
        for o in out {
            md.push_str(&format!("{o}\n"));
        }
    }
    md
}

/// A section of `md`: `title` with how many lines follow, then one line per item of each
/// crate (`- group name: item`).
fn per_crate_lines(
    md: &mut String,
    title: &str,
    results: &[CrateResult],
    items: impl Fn(&CrateResult) -> &Vec<String>,
) {
    let lines: Vec<String> = results
        .iter()
        .flat_map(|r| {
            items(r)
                .iter()
                .map(move |item| format!("- {} {}: {item}", r.group, r.name))
        })
        .collect();
    md.push_str(&format!("\n{title}: {}\n", lines.len()));
    for line in lines {
        md.push_str(&format!("{line}\n"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts_are_keyed_by_the_binary_that_ran_them() {
        let out = "\n     Running unittests src/lib.rs (target/debug/deps/my_crate-0123abcd)\n\n\
                   running 2 tests\ntest tests::a ... ok\ntest tests::b - should panic ... ok\n\
                   test tests::c ... ignored\n\n     Running tests/it-works.rs (target/debug/deps/it_works-99ff)\n\
                   running 1 test\ntest tests::a ... FAILED\n";
        let v = parse_libtest(out);
        assert_eq!(
            v.into_iter().collect::<Vec<_>>(),
            [
                ("it_works::tests::a".to_string(), Verdict::Failed),
                ("my_crate::tests::a".to_string(), Verdict::Passed),
                ("my_crate::tests::b".to_string(), Verdict::Passed),
            ]
        );
        assert_eq!(test_key("it-works", "tests::a"), "it_works::tests::a");
    }

    #[test]
    fn binaries_that_died_are_read_from_cargo_s_errors() {
        let out = "error: test failed, to rerun pass `--lib`\n\nCaused by:\n  process didn't exit \
                   successfully: `/t/debug/deps/rust_049-73e8` (signal: 6, SIGABRT: process abort signal)\n\
                   process didn't exit successfully: `/t/debug/deps/it-99 --quiet` (exit status: 101)\n";
        assert_eq!(
            died(out),
            [
                PathBuf::from("/t/debug/deps/rust_049-73e8"),
                PathBuf::from("/t/debug/deps/it-99")
            ]
        );
    }

    #[test]
    fn a_test_in_one_run_only_or_judged_otherwise_is_a_difference() {
        let plain: BTreeMap<String, Verdict> = [
            ("a".to_string(), Verdict::Passed),
            ("b".to_string(), Verdict::Failed),
            ("c".to_string(), Verdict::Passed),
        ]
        .into();
        let instrumented: BTreeMap<String, Verdict> = [
            ("a".to_string(), Verdict::Passed),
            ("b".to_string(), Verdict::Passed),
            ("d".to_string(), Verdict::Failed),
        ]
        .into();
        assert_eq!(
            differences(&plain, &instrumented),
            [
                ("b".to_string(), Verdict::Failed, Verdict::Passed),
                ("c".to_string(), Verdict::Passed, Verdict::Missing),
                ("d".to_string(), Verdict::Missing, Verdict::Failed),
            ]
        );
    }

    #[test]
    fn a_listed_crate_is_found_by_name_and_version_or_refused() {
        let registry = tempfile::tempdir().unwrap();
        let crate_dir = registry.path().join("index.example-1/strsim-0.11.1");
        std::fs::create_dir_all(&crate_dir).unwrap();
        std::fs::write(crate_dir.join("Cargo.toml"), "[package]\n").unwrap();
        let list = registry.path().join("crates.txt");
        std::fs::write(&list, "# comment\nstrsim 0.11.1  # edition 2015\n\n").unwrap();
        let crates = listed_crates(&list, registry.path()).unwrap();
        assert_eq!(crates.len(), 1);
        assert_eq!(
            (crates[0].name.as_str(), &crates[0].dir),
            ("strsim-0.11.1", &crate_dir)
        );
        std::fs::write(&list, "strsim 0.10.0\n").unwrap();
        let missing = listed_crates(&list, registry.path())
            .unwrap_err()
            .to_string();
        assert!(missing.contains("strsim-0.10.0 is not in"), "{missing}");
        std::fs::write(&list, "strsim\n").unwrap();
        assert!(listed_crates(&list, registry.path()).is_err());
    }
}
