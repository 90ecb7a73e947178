//! `cargo autodebug`: finds the failing tests of a workspace, records what they did, and
//! reports. The pipeline runs one way, one module per stage:
//! workspace → build → run (baseline) → trace → oracle → localize → repair → report.

mod baseline;
mod build;
mod config;
mod console;
mod events;
mod exit_code;
mod harness;
mod init;
mod localize;
mod options;
mod oracle;
mod outcome;
mod publish;
mod repair;
mod report;
#[cfg(test)]
mod robustness;
mod run;
mod trace;
mod workspace;
mod zero;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicUsize;
use std::time::Instant;

use anyhow::{Context, Result};
use autodebug_runtime::protocol::{self, Plan};

use crate::build::BuildOutcome;
use crate::config::TechniqueName;
use crate::console::Console;
use crate::events::Event;
use crate::exit_code::ExitCode;
use crate::options::{Command, MessageFormat, Options};
use crate::outcome::Outcome;
use crate::report::{FailingTest, Report};
use crate::trace::{Recorder, Role};
use crate::workspace::Workspace;

fn main() {
    let options = Options::from_env();
    let console = Console::new(&options);
    let result = match &options.command {
        Some(Command::Init(init)) => {
            // `cargo autodebug --manifest-path M init` means M as well.
            let mut init = init.clone();
            init.manifest_path = init.manifest_path.or(options.manifest_path.clone());
            init.package = init.package.or(options.packages.first().cloned());
            init.allow_dirty |= options.allow_dirty;
            init::init(&init, &console).or_exit(ExitCode::Usage)
        }
        None => debug(&options, &console),
    };
    // A Ctrl-C also kills the cargo or test the run was waiting on: the interrupt, not
    // what it broke, says how the run ends.
    zero::interrupt::wait_if_interrupted();
    let code = match result {
        Ok(code) => code,
        Err(failure) => {
            console.error(&format!("{:#}", failure.error));
            failure.code
        }
    };
    std::process::exit(code.code());
}

/// An error that ends the run, with the exit code it deserves.
struct Failure {
    error: anyhow::Error,
    code: ExitCode,
}

trait OrExit<T> {
    fn or_exit(self, code: ExitCode) -> Result<T, Failure>;
}

impl<T> OrExit<T> for Result<T> {
    fn or_exit(self, code: ExitCode) -> Result<T, Failure> {
        self.map_err(|error| Failure { error, code })
    }
}

/// The whole pipeline.
fn debug(options: &Options, console: &Console) -> Result<ExitCode, Failure> {
    let start = Instant::now();
    let workspace = Workspace::discover(options).or_exit(ExitCode::Usage)?;
    // The configuration files, under what the command line says.
    let (configured, config_files) =
        config::configure(options, &workspace).or_exit(ExitCode::Usage)?;
    for file in &config_files {
        console.detail(&format!("configuration: {}", display_path(file)));
    }
    let options = &configured;
    let changed = match &options.in_diff {
        Some(path) => Some(publish::diff::ChangedLines::read(path).or_exit(ExitCode::Usage)?),
        None => None,
    };
    let changed = changed.as_ref();
    let output_dir = output_dir(&workspace, options).or_exit(ExitCode::Software)?;
    let shown_output = display_path(&output_dir);
    let scratch = tempfile::Builder::new()
        .prefix("autodebug-")
        .tempdir()
        .context("could not create a scratch directory")
        .or_exit(ExitCode::Software)?;
    // Removed on Ctrl-C or kill as well (kill -9 aside: the OS's temp cleaning).
    let _scratch_cleanup = zero::interrupt::Cleanup::register(scratch.path().to_path_buf());
    run::set_results_dir(scratch.path().join("results"));
    let mut report = Report::new(&workspace.root);
    let mut base_env: Vec<(String, String)> = Vec::new();
    if let Some(plan_path) = &options.plan {
        let plan_path = read_plan(plan_path).or_exit(ExitCode::Usage)?;
        base_env.push((protocol::ENV_PLAN.into(), plan_path.display().to_string()));
        report.plan = Some(plan_path.display().to_string());
    }

    // The tool's own directories: not copied for rebuilds, not a change of the user's.
    let own_dirs = [
        output_dir.clone(),
        PathBuf::from(format!("{}.old", output_dir.display())),
        build::target_dir(&workspace, options),
    ];
    let tree = options
        .apply
        .then(|| repair::apply::tree_state(&workspace.root, options.allow_dirty, &own_dirs));

    // Zero-annotation mode: everything from the build on happens in an annotated scratch
    // copy of the workspace; the user's tree is only read (and written by `--apply`).
    let user_root = workspace.root.clone();
    let (mut zero, mut copy) = match zero::Zero::prepare(&workspace, options, &own_dirs, console)
        .or_exit(ExitCode::Software)?
    {
        Some((zero, copy)) => (Some(zero), Some(copy)),
        None => (None, None),
    };

    let names: Vec<&str> = workspace.packages.iter().map(|p| p.name.as_str()).collect();
    console.status("Building", &format!("{} (instrumented)", names.join(", ")));
    let phase = Instant::now();
    let log_dir = output_dir.join("log");
    let mut built = match (&zero, &copy) {
        (Some(zero), Some(copy)) => zero.build(copy, &log_dir, console),
        _ => build::build(&workspace, options, &log_dir, console),
    }
    .or_exit(ExitCode::Software)?;
    // A copy made for the tests' batches alone (the code was annotated by its author) that
    // does not build where the tree does (a file read from outside the workspace, say):
    // the tree builds as it is, and reruns take one process each.
    if matches!(built, BuildOutcome::Failed { .. }) && zero.as_ref().is_some_and(|z| z.tests_only())
    {
        console.warn(
            "the scratch copy (tests wrapped to run many plans per process) does not build; \
             building the tree as it is",
        );
        zero = None;
        copy = None;
        built = build::build(&workspace, options, &log_dir, console).or_exit(ExitCode::Software)?;
    }
    // What the build kept of the test attribute decides which tests are sent batches.
    harness::set_wrapped_tests(zero.as_ref().is_some_and(|zero| zero.wraps_tests()));
    let workspace = copy.unwrap_or(workspace);
    let options = zero.as_ref().map_or(options, |zero| &zero.options);
    report.timing.build_s = phase.elapsed().as_secs_f64();
    let binaries = match built {
        BuildOutcome::Built(binaries) => binaries,
        BuildOutcome::Failed { errors, stderr } => {
            if errors.is_empty() {
                console.passthrough(&stderr);
            }
            for error in &errors {
                console.passthrough(error);
            }
            console.error(&format!(
                "the crate does not compile (instrumented build); cargo's output is in {shown_output}/log/build.log"
            ));
            report.build_errors = errors;
            return finish(
                report,
                ExitCode::BuildFailed,
                start,
                &output_dir,
                options,
                console,
                changed,
            );
        }
    };

    let mut tests = Vec::new();
    for binary in &binaries {
        tests.extend(run::list_tests(binary).or_exit(ExitCode::Software)?);
    }
    if let Some(filter) = &options.test_name {
        tests.retain(|t| t.name.contains(filter.as_str()));
    }
    report.tests.total = tests.len();
    if tests.is_empty() {
        let what = match &options.test_name {
            Some(filter) => format!("no test name contains `{filter}`"),
            None => "the selected targets have no tests".to_string(),
        };
        console.error(&format!("{what} ({} test binaries built)", binaries.len()));
        return finish(
            report,
            ExitCode::NoTests,
            start,
            &output_dir,
            options,
            console,
            changed,
        );
    }

    let phase = Instant::now();
    let baseline = baseline::run(
        &tests,
        &base_env,
        options.test_timeout(),
        options.reruns,
        options.jobs(),
        scratch.path(),
        console,
    )
    .or_exit(ExitCode::Software)?;
    report.timing.baseline_s = phase.elapsed().as_secs_f64();

    let mut code = ExitCode::Clean;
    let mut failing_coverage = BTreeSet::new();
    let mut to_record = Vec::new();
    for result in &baseline {
        match &result.first.outcome {
            Outcome::Passed => report.tests.passed += 1,
            Outcome::NotRun => report.tests.not_run += 1,
            outcome => {
                report.tests.failed += 1;
                let mut failing = FailingTest::new(
                    &result.test,
                    outcome,
                    &result.reruns,
                    result.first.duration.as_secs_f64(),
                );
                failing.log = write_log(&output_dir, result).ok();
                if result.flaky() {
                    report.tests.flaky += 1;
                    code = code.max(ExitCode::Flaky);
                } else {
                    code = code.max(match outcome {
                        Outcome::Timeout { .. } => ExitCode::Timeout,
                        Outcome::Crashed { .. } => ExitCode::Crashed,
                        Outcome::FuelExhausted => ExitCode::FuelExhausted,
                        _ => ExitCode::TestsFailed,
                    });
                }
                if result.deterministic_failure() {
                    failing_coverage.extend(result.coverage.keys().cloned());
                    to_record.push((result.test.clone(), Role::Failing));
                }
                report.failing_tests.push(failing);
            }
        }
    }

    let spectrum = trace::spectrum(
        &workspace.root,
        baseline
            .iter()
            .map(|r| (&r.test, &r.first.outcome, &r.coverage)),
    );
    trace::write_json(&output_dir.join("coverage.json"), &spectrum).or_exit(ExitCode::Software)?;

    if !to_record.is_empty() {
        let passing = baseline
            .iter()
            .filter(|r| r.first.outcome.passed())
            .map(|r| (&r.test, &r.coverage));
        for test in
            trace::passing_tests_to_record(&failing_coverage, passing, options.passing_traces)
        {
            to_record.push((test, Role::Passing));
        }
        if failing_coverage.is_empty() {
            console.warn("the failing tests reach no instrumented code: annotate the code under test with #[autodebug] or a contract");
        }
    }
    let recorder = Recorder {
        workspace_root: &workspace.root,
        output_dir: &output_dir,
        scratch: scratch.path(),
        base_env: &base_env,
        timeout: options.test_timeout(),
        max_events: options.max_events,
        jobs: options.jobs(),
        runs: AtomicUsize::new(0),
    };
    let mut traces = Vec::new();
    if !to_record.is_empty() {
        let phase = Instant::now();
        for (summary, trace) in recorder
            .record(&to_record, console)
            .or_exit(ExitCode::Software)?
        {
            report.traces.push(summary);
            traces.push(trace);
        }
        report.timing.record_s = phase.elapsed().as_secs_f64();
        for failing in &mut report.failing_tests {
            let id = format!("{}::{}", failing.target, failing.name);
            failing.trace = report
                .traces
                .iter()
                .find(|t| t.role == Role::Failing && t.test == id)
                .map(|t| t.path.clone());
        }
    }

    // What passing means for each failing test, confirmed by reruns.
    let phase = Instant::now();
    let oracles = oracle::derive(
        &oracle::Context {
            baseline: &baseline,
            traces: &traces,
            rerun: &recorder,
        },
        console,
    );
    report.oracles = oracles.iter().map(oracle::Oracle::entry).collect();
    report.timing.oracle_s = phase.elapsed().as_secs_f64();

    if report
        .failing_tests
        .iter()
        .any(|f| f.deterministic && !f.flaky)
    {
        let phase = Instant::now();
        let context = localize::Context {
            workspace_root: &workspace.root,
            baseline: &baseline,
            traces: &traces,
            oracles: &oracles,
            rerun: &recorder,
            console,
        };
        let localization = localize::localize(&context, options, console);
        report.suspects = localization.suspects;
        report.notes.extend(localization.notes);
        report.localization = localization.details;
        let excluded = options.exclude.filter_suspects(&mut report.suspects);
        if excluded > 0 {
            report.notes.push(format!(
                "{excluded} suspect{} left out of the ranking by the exclusions",
                if excluded == 1 { "" } else { "s" }
            ));
        }
        if let Some(changed) = changed {
            let first = publish::diff::prioritize(&mut report.suspects, changed);
            console.detail(&format!(
                "--in-diff: {first} of {} suspects are on lines the diff changes ({} files); they are ranked first",
                report.suspects.len(),
                changed.files().count()
            ));
            if first == 0 && !report.suspects.is_empty() {
                report.notes.push(
                    "no suspect is on a line the --in-diff diff changes: the fault may predate it"
                        .into(),
                );
            }
        }
        report.timing.localize_s = phase.elapsed().as_secs_f64();
        // In zero-annotation mode, positions are the user's only once mapped back (below).
        if zero.is_none() {
            announce_suspects(&report, console);
        }
    }

    if !options.no_fix && options.runs(TechniqueName::Repair) && !report.suspects.is_empty() {
        let phase = Instant::now();
        let switched = localize::switching::flipped(&report.localization);
        let diagnoses = repair::joint::diagnoses(&report.localization);
        let repaired = repair::repair(
            &repair::Context {
                workspace_root: &workspace.root,
                baseline: &baseline,
                traces: &traces,
                suspects: &report.suspects,
                oracles: &oracles,
                switched: &switched,
                diagnoses: &diagnoses,
                rerun: &recorder,
                scratch_dir: build::target_dir(&workspace, options).join("repair"),
                skip: own_dirs.to_vec(),
                selection: repair::validate::Selection::of(&workspace, options),
                timeout: options.test_timeout(),
                jobs: options.jobs(),
            },
            &options.repair_limits(),
            console,
        );
        report.fixes = repaired.fixes;
        rank_fixed_first(&mut report);
        report.notes.extend(repaired.notes);
        report.repair = Some(repaired.details);
        report.timing.repair_s = phase.elapsed().as_secs_f64();
        if zero.is_none() {
            announce_fixes(&report, console);
        }
    }
    if let Some(zero) = &zero {
        zero.to_user(&mut report, &output_dir);
        announce_suspects(&report, console);
        announce_fixes(&report, console);
    }
    if let Some(tree) = tree {
        report.apply = Some(repair::apply::apply_top(&report, &user_root, tree, console));
    }
    finish(report, code, start, &output_dir, options, console, changed)
}

/// The sites of validated fixes lead the suspects (see [`localize::rank_fixed_first`]); each
/// fix's `suspect_rank` follows its site.
fn rank_fixed_first(report: &mut Report) {
    let fixed: Vec<localize::Fixed> = report
        .fixes
        .iter()
        .filter(|f| f.validated)
        .flat_map(|f| {
            f.edits.iter().map(move |e| localize::Fixed {
                file: &e.file,
                line: e.line,
                column: e.column,
                detail: format!(
                    "`{}` → `{}` passed {} of {} tests after a rebuild",
                    e.original, e.replacement, f.tests_passed, f.tests_total
                ),
            })
        })
        .collect();
    let before: Vec<(String, u32, u32, usize)> = report
        .suspects
        .iter()
        .map(|s| (s.file.clone(), s.line, s.column, s.rank))
        .collect();
    localize::rank_fixed_first(&mut report.suspects, &fixed);
    for fix in &mut report.fixes {
        let old = before
            .iter()
            .find(|(_, _, _, rank)| *rank == fix.suspect_rank);
        if let Some((file, line, column, _)) = old
            && let Some(now) = report
                .suspects
                .iter()
                .find(|s| (&s.file, s.line, s.column) == (file, *line, *column))
        {
            fix.suspect_rank = now.rank;
        }
    }
}

/// Suspects announced as events after localization.
const EVENT_SUSPECTS: usize = 5;

/// The first suspects, as events.
fn announce_suspects(report: &Report, console: &Console) {
    for suspect in report.suspects.iter().take(EVENT_SUSPECTS) {
        console.event(&Event::SuspectFound {
            rank: suspect.rank,
            file: &suspect.file,
            line: suspect.line,
            column: suspect.column,
            code: &suspect.code,
            evidence: &suspect.evidence,
        });
    }
}

/// The fixes, as events.
fn announce_fixes(report: &Report, console: &Console) {
    for fix in &report.fixes {
        console.event(&Event::FixFound {
            rank: fix.rank,
            file: &fix.file,
            line: fix.line,
            column: fix.column,
            original: &fix.original,
            replacement: &fix.replacement,
            validated: fix.validated,
            tests_passed: fix.tests_passed,
            tests_total: fix.tests_total,
        });
    }
}

/// Writes the report and prints the summary (or, under `--message-format json`, the report
/// as the last event).
fn finish(
    mut report: Report,
    code: ExitCode,
    start: Instant,
    output_dir: &Path,
    options: &Options,
    console: &Console,
    changed: Option<&publish::diff::ChangedLines>,
) -> Result<ExitCode, Failure> {
    report.set_exit(code);
    report.timing.total_s = start.elapsed().as_secs_f64();
    report.timing.peak_rss_mb = report::peak_rss_mb();
    report.write(output_dir).or_exit(ExitCode::Software)?;
    publish::write(&report, output_dir, &display_path(output_dir), changed)
        .or_exit(ExitCode::Software)?;
    if publish::github::in_actions() {
        // Workflow commands: on stdout, where the runner reads them, unless stdout carries
        // JSON lines only.
        let commands = publish::github::annotations(&report);
        match options.message_format {
            MessageFormat::Human => commands.iter().for_each(|c| println!("{c}")),
            MessageFormat::Json => commands.iter().for_each(|c| eprintln!("{c}")),
        }
    }
    match options.message_format {
        MessageFormat::Human => {
            let style = report::Style {
                colour: console.colour_stdout(),
                verbose: options.verbose,
            };
            let summary = report.render(&display_path(output_dir), style);
            use std::io::Write;
            let mut stdout = std::io::stdout().lock();
            stdout
                .write_all(summary.as_bytes())
                .and_then(|()| stdout.flush())
                .context("could not write the summary")
                .or_exit(ExitCode::Software)?;
        }
        MessageFormat::Json => console.event(&Event::Report { report: &report }),
    }
    Ok(code)
}

/// Creates the output directory, moving a previous one aside to `<dir>.old`.
fn output_dir(workspace: &Workspace, options: &Options) -> Result<PathBuf> {
    let dir = match &options.output {
        Some(dir) => std::path::absolute(dir).context("bad --output path")?,
        None => workspace.root.join("autodebug.out"),
    };
    if dir.exists() {
        let mut old = dir.clone().into_os_string();
        old.push(".old");
        let old = PathBuf::from(old);
        if old.exists() {
            std::fs::remove_dir_all(&old)
                .with_context(|| format!("could not remove {}", old.display()))?;
        }
        std::fs::rename(&dir, &old)
            .with_context(|| format!("could not move {} aside", dir.display()))?;
    }
    std::fs::create_dir_all(dir.join("log"))
        .with_context(|| format!("could not create {}", dir.display()))?;
    Ok(dir)
}

/// Checks the plan file parses, and returns its absolute path.
fn read_plan(path: &Path) -> Result<PathBuf> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("could not read plan {}", path.display()))?;
    let plan: Plan = serde_json::from_str(&text)
        .with_context(|| format!("plan {} is not valid", path.display()))?;
    if plan.version != protocol::PLAN_VERSION {
        anyhow::bail!(
            "plan {} has version {}, this tool reads version {}",
            path.display(),
            plan.version,
            protocol::PLAN_VERSION
        );
    }
    std::path::absolute(path).context("bad plan path")
}

/// Saves a failing test's output under `log/`, returning its path relative to the output dir.
fn write_log(output_dir: &Path, result: &baseline::BaselineResult) -> Result<String> {
    let name = format!("log/{}.txt", result.test.file_stem());
    let text = format!(
        "--- stdout ---\n{}\n--- stderr ---\n{}\n",
        result.first.stdout, result.first.stderr
    );
    std::fs::write(output_dir.join(&name), text)?;
    Ok(name)
}

/// A path as people want to read it: relative to the current directory when inside it.
fn display_path(path: &Path) -> String {
    std::env::current_dir()
        .ok()
        .and_then(|cwd| path.strip_prefix(cwd).ok().map(Path::to_path_buf))
        .unwrap_or_else(|| path.to_path_buf())
        .display()
        .to_string()
}
