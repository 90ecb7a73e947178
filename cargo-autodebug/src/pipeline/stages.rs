//! The stages, in the order they run. Each takes what the earlier stages produced, adds its
//! part (counts, timings, findings) to the report and returns what the later stages need.

use std::collections::BTreeSet;
use std::time::Instant;

use crate::baseline::BaselineResult;
use crate::build::{BuildOutcome, TestBinary};
use crate::console::Console;
use crate::engine::Recorder;
use crate::localize::Findings;
use crate::model::{ExitCode, FailingTest, Failure, OrExit, Outcome, Report, Role, TestId};
use crate::options::{Options, TechniqueName};
use crate::oracle::Oracle;
use crate::session::Session;
use crate::trace::RecordedTrace;
use crate::{baseline as baseline_run, build as cargo_build, localize as techniques};
use crate::{engine, oracle, publish as outputs, repair as candidates, trace};

/// Builds the tests (instrumented), or `None` when they do not compile: the compiler's
/// errors are shown and kept in the report. In zero-annotation mode a copy made only to
/// wrap the tests that does not build where the tree does (a file read from outside the
/// workspace, say) is dropped: the tree builds as it is, and reruns take one process each.
pub fn build(
    session: &mut Session,
    report: &mut Report,
    console: &Console,
) -> Result<Option<cargo_build::Built>, Failure> {
    let names: Vec<&str> = session
        .user
        .packages
        .iter()
        .map(|p| p.name.as_str())
        .collect();
    console.status("Building", &format!("{} (instrumented)", names.join(", ")));
    let phase = Instant::now();
    let log_dir = session.output.log_dir();
    let mut built = match &session.zero {
        Some((zero, copy)) => zero.build(copy, &log_dir, console),
        None => cargo_build::build(&session.user, &session.configured, &log_dir, console),
    }
    .or_exit(ExitCode::Software)?;
    if matches!(built, BuildOutcome::Failed { .. })
        && session.zero.as_ref().is_some_and(|(z, _)| z.tests_only())
    {
        console.warn(
            "the scratch copy (tests wrapped to run many plans per process) does not build; \
             building the tree as it is",
        );
        session.zero = None;
        built = cargo_build::build(&session.user, &session.configured, &log_dir, console)
            .or_exit(ExitCode::Software)?;
    }
    // What the build kept of the test attribute decides which tests are sent batches.
    let wrapped = session.zero.as_ref().is_some_and(|(z, _)| z.wraps_tests());
    session.engine = session.engine.with_wrapped_tests(wrapped);
    session.user_columns = session.zero.as_ref().and_then(|(z, _)| z.user_columns());
    report.instrumentation = session.zero.as_ref().map(|(z, _)| z.instrumentation());
    report.timing.build_s = phase.elapsed().as_secs_f64();
    match built {
        BuildOutcome::Built(built) => Ok(Some(built)),
        BuildOutcome::Failed { errors, stderr } => {
            if errors.is_empty() {
                console.passthrough(&stderr);
            }
            for error in &errors {
                console.passthrough(error);
            }
            console.error(&format!(
                "the crate does not compile (instrumented build); cargo's output is in {}/log/build.log",
                session.output.shown()
            ));
            report.build_errors = errors;
            Ok(None)
        }
    }
}

/// The tests of the built binaries that the selection keeps, or `None` (said on the
/// console) when there is none.
pub fn select_tests(
    session: &Session,
    report: &mut Report,
    binaries: &[TestBinary],
    console: &Console,
) -> Result<Option<Vec<TestId>>, Failure> {
    let options = session.options();
    let libtest = options.libtest().or_exit(ExitCode::Usage)?;
    let mut tests = Vec::new();
    for binary in binaries {
        tests.extend(
            engine::list_tests(binary, &session.engine, &libtest).or_exit(ExitCode::Software)?,
        );
    }
    tests.retain(|t| libtest.selects(&t.name));
    report.tests.total = tests.len();
    if tests.is_empty() {
        let what = if libtest.filters.is_empty() && libtest.skip.is_empty() {
            "the selected targets have no tests".to_string()
        } else {
            format!(
                "no test name {} {}{}",
                if libtest.exact { "is" } else { "contains" },
                libtest
                    .filters
                    .iter()
                    .map(|f| format!("`{f}`"))
                    .collect::<Vec<_>>()
                    .join(" or "),
                if libtest.skip.is_empty() {
                    String::new()
                } else {
                    format!(" (skipping {})", libtest.skip.join(", "))
                }
            )
        };
        console.error(&format!("{what} ({} test binaries built)", binaries.len()));
        return Ok(None);
    }
    Ok(Some(tests))
}

/// What the baseline showed.
pub struct Baseline {
    /// Every test's first run, reruns and coverage.
    pub results: Vec<BaselineResult>,
    /// How the run ends on what the tests did (the most severe outcome).
    pub code: ExitCode,
    /// The tests whose traces are recorded: the deterministic failures, then passing
    /// tests reaching the same code.
    pub to_record: Vec<(TestId, Role)>,
}

/// Runs every selected test once (failures again, to tell flaky ones), with coverage;
/// writes `coverage.json`.
pub fn baseline(
    session: &Session,
    report: &mut Report,
    tests: &[TestId],
    runner: &Recorder,
    console: &Console,
) -> Result<Baseline, Failure> {
    let options = session.options();
    let results = baseline_results(session, report, tests, runner, console)?;
    let (code, failing_coverage, mut to_record) = tally(session, report, &results);
    write_coverage(session, &results)?;
    if !to_record.is_empty() {
        let passing = results
            .iter()
            .filter(|r| r.first.outcome.passed())
            .map(|r| (&r.test, &r.coverage));
        for test in
            trace::passing_tests_to_record(&failing_coverage, passing, options.passing_traces)
        {
            to_record.push((test, Role::Passing));
        }
        if failing_coverage.is_empty() {
            console.warn("the failing tests reach no instrumented code: the suspects are the sites of the functions they call, read from the source (annotate the code under test with #[autodebug] or a contract for evidence from runs)");
        }
    }
    Ok(Baseline {
        results,
        code,
        to_record,
    })
}

/// The baseline's results: run here, a shard's share of them run and written for the
/// others (`--shard K/N --baseline-only`), or read from every shard's part
/// (`--baseline-from`).
fn baseline_results(
    session: &Session,
    report: &mut Report,
    tests: &[TestId],
    runner: &Recorder,
    console: &Console,
) -> Result<Vec<BaselineResult>, Failure> {
    let options = session.options();
    let phase = Instant::now();
    Ok(if !options.baseline_from.is_empty() {
        let (results, seconds) = baseline_run::from_parts(&options.baseline_from, tests)
            .map_err(|e| e.context("--baseline-from refused"))
            .or_exit(ExitCode::Usage)?;
        console.status(
            "Baseline",
            &format!(
                "of {} tests from {} shards' parts ({})",
                tests.len(),
                options.baseline_from.len(),
                (options.baseline_from.iter())
                    .map(|d| crate::output_dir::display_path(d))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        );
        report.timing.baseline_s = seconds;
        results
    } else if let Some(shard) = options.shard.filter(|_| options.baseline_only) {
        // A share of the baseline: the tests this shard owns, written for the runs that
        // go on from every shard's part.
        let share: Vec<TestId> = tests
            .iter()
            .filter(|t| shard.owns_test(t))
            .cloned()
            .collect();
        // A shard's part is evidence for every shard: all of it runs.
        let results = baseline_run::run(runner, &share, options.reruns, None, console)
            .or_exit(ExitCode::Software)?;
        report.timing.baseline_s = phase.elapsed().as_secs_f64();
        report.tests.total = share.len();
        let part = baseline_run::part(shard, tests, &results, report.timing.baseline_s);
        let file = session.output.path().join(baseline_run::PART_FILE);
        trace::write_json(&file, &part).or_exit(ExitCode::Software)?;
        console.status(
            "Shard",
            &format!(
                "{shard}: ran the baseline of {} of the {} tests, written to {}; go on with `--baseline-from` and every shard's directory",
                share.len(),
                tests.len(),
                crate::output_dir::display_path(&file)
            ),
        );
        results
    } else {
        let budget = options.baseline_budget();
        let results = baseline_run::run(runner, tests, options.reruns, budget, console)
            .or_exit(ExitCode::Software)?;
        report.timing.baseline_s = phase.elapsed().as_secs_f64();
        let left_out = results.iter().filter(|r| r.left_out()).count();
        if left_out > 0 {
            let note = format!(
                "the baseline's time budget ({}s, a test having failed) was spent: {left_out} of \
                 {} tests were not run (tests of their own process, the slow ones, go last) and \
                 are no evidence for the suspects nor for the fixes' validation; \
                 --baseline-timeout 0 runs every test",
                options.baseline_timeout,
                tests.len()
            );
            console.warn(&note);
            report.notes.push(note);
        }
        results
    })
}

/// The report's counts and failing tests from the baseline's `results`, the run's exit
/// code so far, the sites the deterministic failures reached, and the failing tests to
/// record.
fn tally(
    session: &Session,
    report: &mut Report,
    results: &[BaselineResult],
) -> (
    ExitCode,
    BTreeSet<autodebug_runtime::protocol::SiteKey>,
    Vec<(TestId, Role)>,
) {
    let mut code = ExitCode::Clean;
    let mut failing_coverage = BTreeSet::new();
    let mut to_record = Vec::new();
    for result in results {
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
                failing.log = session.output.write_test_log(result).ok();
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

    (code, failing_coverage, to_record)
}

/// Writes the baseline's spectrum (`coverage.json`), in the user's columns.
fn write_coverage(session: &Session, results: &[BaselineResult]) -> Result<(), Failure> {
    let spectrum = trace::spectrum(
        &session.workspace().root,
        results
            .iter()
            .map(|r| (&r.test, &r.first.outcome, &r.coverage)),
    );
    let mut spectrum = spectrum;
    if let Some(columns) = &session.user_columns {
        spectrum.sites = std::mem::take(&mut spectrum.sites)
            .into_iter()
            .map(|site| site.in_user_columns(columns))
            .collect();
    }
    trace::write_json(&session.output.coverage(), &spectrum).or_exit(ExitCode::Software)
}

/// Records the traces of the baseline's chosen tests (written under `traces/`).
pub fn record(
    report: &mut Report,
    baseline: &Baseline,
    recorder: &Recorder,
    console: &Console,
) -> Result<Vec<RecordedTrace>, Failure> {
    let mut traces = Vec::new();
    if baseline.to_record.is_empty() {
        return Ok(traces);
    }
    let phase = Instant::now();
    for (summary, trace) in recorder
        .record(&baseline.to_record, console)
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
    Ok(traces)
}

/// What passing means for each failing test, confirmed by reruns.
pub fn oracles(
    report: &mut Report,
    baseline: &[BaselineResult],
    traces: &[RecordedTrace],
    recorder: &Recorder,
    console: &Console,
) -> Vec<Oracle> {
    let phase = Instant::now();
    let oracles = oracle::derive(
        &oracle::Context {
            baseline,
            traces,
            rerun: recorder,
        },
        console,
    );
    report.oracles = oracles.iter().map(Oracle::entry).collect();
    report.timing.oracle_s = phase.elapsed().as_secs_f64();
    oracles
}

/// What localization and repair work from.
pub struct Evidence<'a> {
    /// The compiler's warnings on the crate's code.
    pub warnings: &'a [cargo_build::CompilerWarning],
    pub baseline: &'a [BaselineResult],
    pub traces: &'a [RecordedTrace],
    pub oracles: &'a [Oracle],
    pub recorder: &'a Recorder<'a>,
}

/// Ranks the suspects of the deterministic failures (the report's `suspects`, after the
/// exclusions and `--in-diff`), returning what repair reads of the techniques' work.
pub fn localize(
    session: &Session,
    report: &mut Report,
    evidence: &Evidence,
    console: &Console,
) -> Findings {
    if !report
        .failing_tests
        .iter()
        .any(|f| f.deterministic && !f.flaky)
    {
        return Findings::default();
    }
    let options = session.options();
    let phase = Instant::now();
    let context = techniques::Context {
        workspace_root: &session.workspace().root,
        user_root: &session.user.root,
        baseline: evidence.baseline,
        traces: evidence.traces,
        oracles: evidence.oracles,
        rerun: evidence.recorder,
        console,
    };
    let localization = techniques::localize(&context, options, console);
    report.suspects = localization.suspects;
    report.notes.extend(localization.notes);
    report.localization = localization.details;
    report.timing.solver_peak_mb = localization.solver_peak_mb;
    let excluded = options.exclude.filter_suspects(&mut report.suspects);
    if excluded > 0 {
        report.notes.push(format!(
            "{excluded} suspect{} left out of the ranking by the exclusions",
            if excluded == 1 { "" } else { "s" }
        ));
    }
    if let Some(changed) = &session.changed {
        let first = outputs::diff::prioritize(&mut report.suspects, changed);
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
    // In zero-annotation mode, positions are the user's only once mapped back.
    if session.zero.is_none() {
        super::publish::announce_suspects(report, console);
    }
    localization.findings
}

/// Where the rebuilds' scratch copy and its persistent target dir go: under the user's
/// target dir, not the zero-annotation copy's place: one repair copy (a fixed path, one run
/// at a time) whose rebuilds stay incremental from run to run and from checkout to
/// checkout.
fn repair_dir(session: &Session) -> std::path::PathBuf {
    cargo_build::target_dir(&session.user, &session.configured).join("repair")
}

/// Whether the run looks for fixes (not `--no-fix`, and repair among the techniques).
fn asks_for_fixes(options: &Options) -> bool {
    !options.no_fix && options.runs(TechniqueName::Repair)
}

/// Starts building the rebuilds' scratch copy in the background (see
/// [`candidates::prebuild`]) when repair will run: fixes are asked for and a test failed
/// deterministically.
pub fn prebuild(session: &Session, baseline: &Baseline) -> Option<candidates::prebuild::Prebuild> {
    let options = session.options();
    let failed = baseline.results.iter().any(|r| r.deterministic_failure());
    if !asks_for_fixes(options) || !failed {
        return None;
    }
    let workspace = session.workspace();
    Some(candidates::prebuild::Prebuild::start(
        workspace.root.clone(),
        repair_dir(session),
        session.own_dirs.clone(),
        candidates::validate::Selection::of(workspace, options),
        session.engine.interrupts().clone(),
    ))
}

/// Looks for fixes at the suspects (validated by reruns and rebuilds); the sites of
/// validated fixes then lead the suspects. `prebuild`: the scratch copy building since the
/// baseline.
pub fn repair(
    session: &Session,
    report: &mut Report,
    evidence: &Evidence,
    findings: &Findings,
    prebuild: Option<&candidates::prebuild::Prebuild>,
    console: &Console,
) {
    let options = session.options();
    if !asks_for_fixes(options) || report.suspects.is_empty() {
        return;
    }
    let workspace = session.workspace();
    let phase = Instant::now();
    let repaired = candidates::repair(
        &candidates::Context {
            workspace_root: &workspace.root,
            baseline: evidence.baseline,
            warnings: evidence.warnings,
            traces: evidence.traces,
            suspects: &report.suspects,
            oracles: evidence.oracles,
            findings,
            rerun: evidence.recorder,
            scratch_dir: repair_dir(session),
            skip: session.own_dirs.clone(),
            prebuild,
            selection: candidates::validate::Selection::of(workspace, options),
            timeout: options.test_timeout(),
            jobs: options.jobs(),
        },
        // The user's crate, not zero-annotation mode's copy (which is under the tool's own
        // directories): its lines are the same.
        &candidates::Limits::of(options).for_crate(session.user.rust_lines(&session.own_dirs)),
        console,
    );
    report.fixes = repaired.fixes;
    if let Some(shard) = options.shard {
        // A shard's suspects stay as localization ranked them: the merge moves up the
        // sites of every shard's validated fixes.
        report.shard = Some(crate::model::ShardPart {
            index: shard.index,
            count: shard.count,
            items: repaired.items,
            searched_cut: repaired.searched_cut,
        });
    } else {
        super::publish::rank_fixed_first(report);
    }
    report.notes.extend(repaired.notes);
    report.timing.solver_peak_mb =
        (report.timing.solver_peak_mb).max(repaired.details.solver_peak_mb);
    report.repair = Some(repaired.details);
    report.timing.repair_s = phase.elapsed().as_secs_f64();
    if session.zero.is_none() {
        super::publish::announce_fixes(report, console);
    }
}
