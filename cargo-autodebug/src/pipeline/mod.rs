//! The pipeline of one run, stage by stage: build → baseline → record → oracle → localize →
//! repair → publish. Each stage is a function of [`stages`] from what the earlier ones
//! produced to what the later ones need; the [`Session`] holds what they share.

mod publish;
mod stages;

pub use publish::rank_fixed_first;

use crate::console::Console;
use crate::interrupt::Interrupts;
use crate::model::{ExitCode, Failure, Report};
use crate::options::Options;
use crate::session::Session;

/// Runs the whole pipeline, writes the report and says how the run ended.
pub fn run(
    options: &Options,
    console: &Console,
    interrupts: &Interrupts,
) -> Result<ExitCode, Failure> {
    if options.apply && apply_before_any_work(options, console)? {
        return Ok(ExitCode::Clean);
    }
    let mut session = Session::open(options, console, interrupts)?;
    let mut report = Report::new(&session.user.root);
    report.plan = session.plan.as_ref().map(|p| p.display().to_string());
    let code = match analyse(&mut session, &mut report, console)? {
        // No test to analyse: the previous run's report stays where it was.
        Ended::Early(ExitCode::NoTests) if session.output.keep_previous().unwrap_or(false) => {
            console.status(
                "Kept",
                &format!("the previous run's report in {}", session.output.shown()),
            );
            return Ok(ExitCode::NoTests);
        }
        Ended::Early(code) => code,
        Ended::Analysed(code) => {
            // Positions become the user's (zero-annotation mode ran in a copy), then the
            // suspects and fixes are announced and `--apply` writes the top fix.
            if let Some((zero, _)) = &session.zero {
                zero.to_user(&mut report);
                publish::announce_suspects(&report, console);
                publish::announce_fixes(&report, console);
            }
            if let Some(tree) = session.tree.take() {
                report.apply = Some(crate::repair::apply::apply_top(
                    &report,
                    &session.user.root,
                    tree,
                    console,
                ));
            }
            code
        }
    };
    let applied = report.apply.as_ref().is_some_and(|a| a.refused.is_none());
    let code = publish::finish(report, code, &session, console)?;
    // The fix is in the tree: the run did what it was asked (the report keeps the
    // analysis's own code).
    Ok(if applied { ExitCode::Clean } else { code })
}

/// `--apply`, before anything is built or moved: a tree with uncommitted changes is refused
/// at once (unless `--allow-dirty`), and the top fix of the last report is written when that
/// report is still current. `true` when it was; otherwise the analysis runs first.
fn apply_before_any_work(options: &Options, console: &Console) -> Result<bool, Failure> {
    use crate::model::OrExit;
    use crate::repair::apply::{Before, from_report};
    let user = crate::workspace::Workspace::discover(options).or_exit(ExitCode::Usage)?;
    let (options, _) = crate::config::configure(options, &user).or_exit(ExitCode::Usage)?;
    let output =
        crate::output_dir::OutputDir::path_for(&user, &options).or_exit(ExitCode::Usage)?;
    let mut own_dirs = crate::output_dir::own_dirs_of(&output).to_vec();
    own_dirs.push(crate::build::target_dir(&user, &options));
    let before = from_report(&user.root, &output, options.allow_dirty, &own_dirs)
        .map_err(|e| e.context("--apply refused"))
        .or_exit(ExitCode::Usage)?;
    match before {
        Before::Applied { files } => {
            console.status(
                "Applied",
                &format!(
                    "the top fix of {}/report.json to {} (no rerun: the files are as it saw them)",
                    crate::output_dir::display_path(&output),
                    files.join(", ")
                ),
            );
            Ok(true)
        }
        Before::Analyse(why) => {
            console.status("Analysing", &format!("first: {why}"));
            Ok(false)
        }
    }
}

/// How the analysis ended.
enum Ended {
    /// Before any test was diagnosed: the build failed, or no test was selected.
    Early(ExitCode),
    /// The failing tests (if any) were diagnosed.
    Analysed(ExitCode),
}

/// The stages from the build to repair, each adding its part to `report`.
fn analyse(
    session: &mut Session,
    report: &mut Report,
    console: &Console,
) -> Result<Ended, Failure> {
    let Some(built) = stages::build(session, report, console)? else {
        return Ok(Ended::Early(ExitCode::BuildFailed));
    };
    let session = &*session;
    let Some(tests) = stages::select_tests(session, report, &built.binaries, console)? else {
        return Ok(Ended::Early(ExitCode::NoTests));
    };
    let recorder = session.recorder();
    let baseline = stages::baseline(session, report, &tests, &recorder, console)?;
    if session.options().baseline_only {
        return Ok(Ended::Analysed(baseline.code));
    }
    let prebuild = stages::prebuild(session, &baseline);
    let traces = stages::record(report, &baseline, &recorder, console)?;
    let oracles = stages::oracles(report, &baseline.results, &traces, &recorder, console);
    let evidence = stages::Evidence {
        warnings: &built.warnings,
        baseline: &baseline.results,
        traces: &traces,
        oracles: &oracles,
        recorder: &recorder,
    };
    let findings = stages::localize(session, report, &evidence, console);
    stages::repair(
        session,
        report,
        &evidence,
        &findings,
        prebuild.as_ref(),
        console,
    );
    Ok(Ended::Analysed(baseline.code))
}
