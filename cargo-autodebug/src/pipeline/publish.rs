//! The end of the pipeline: the suspects and fixes announced as events, the report written in
//! every format, the summary printed.

use anyhow::Context as _;

use crate::console::Console;
use crate::model::{Event, ExitCode, Failure, OrExit, Report, peak_rss_mb};
use crate::options::MessageFormat;
use crate::session::Session;
use crate::{localize, publish};

/// The sites of validated fixes lead the suspects (see [`localize::rank_fixed_first`]); each
/// fix's `suspect_rank` follows its site.
pub fn rank_fixed_first(report: &mut Report) {
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
                    "{} passed {} of {} tests after a rebuild",
                    publish::edit_phrase(&e.original, &e.replacement),
                    f.tests_passed,
                    f.tests_total
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
pub fn announce_suspects(report: &Report, console: &Console) {
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
pub fn announce_fixes(report: &Report, console: &Console) {
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
pub fn finish(
    mut report: Report,
    code: ExitCode,
    session: &Session,
    console: &Console,
) -> Result<ExitCode, Failure> {
    let output_dir = session.output.path();
    let options = session.options();
    let changed = session.changed.as_ref();
    report.set_exit(code);
    report.timing.total_s = session.start.elapsed().as_secs_f64();
    report.timing.peak_rss_mb = peak_rss_mb();
    let target = crate::build::target_dir(&session.user, &session.configured);
    let bytes = [target.as_path(), output_dir]
        .map(|dir| crate::clean::size_of(dir).1)
        .iter()
        .sum::<u64>();
    report.timing.disk_mb = Some((bytes as f64 / f64::from(1 << 20) * 10.0).round() / 10.0);
    report.write(output_dir).or_exit(ExitCode::Software)?;
    // The run's own report is there: an interrupt from now on leaves it.
    if let Some(restore) = &session.keep_previous_on_interrupt {
        restore.disarm();
    }
    publish::write(&report, output_dir, &session.output.shown(), changed)
        .or_exit(ExitCode::Software)?;
    if let Some(path) = &options.junit {
        publish::junit::render(&report)
            .and_then(|xml| {
                std::fs::write(path, xml)
                    .with_context(|| format!("could not write {}", path.display()))
            })
            .or_exit(ExitCode::Software)?;
    }
    if options.open {
        open_in_browser(&output_dir.join(publish::html::REPORT_HTML), console);
    }
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
            let style = publish::terminal::Style {
                colour: console.colour_stdout(),
                verbose: options.verbose > 0,
            };
            let summary = report.render(&session.output.shown(), style);
            use std::io::Write;
            let mut stdout = std::io::stdout().lock();
            stdout
                .write_all(summary.as_bytes())
                .and_then(|()| stdout.flush())
                .context("could not write the summary")
                .or_exit(ExitCode::Software)?;
        }
        MessageFormat::Json => console.event(&Event::Report {
            path: &output_dir.join("report.json").display().to_string(),
            html: &output_dir
                .join(publish::html::REPORT_HTML)
                .display()
                .to_string(),
            status: report.status,
            exit_code: report.exit_code,
        }),
    }
    Ok(code)
}

/// Opens `page` with `$BROWSER` when it is set (as `cargo doc --open` does), else with the
/// system's opener; a warning when neither can (the run's result does not change).
fn open_in_browser(page: &std::path::Path, console: &Console) {
    let opened = match std::env::var_os("BROWSER").filter(|b| !b.is_empty()) {
        Some(browser) => std::process::Command::new(&browser)
            .arg(page)
            .status()
            .map_err(|e| format!("{}: {e}", browser.to_string_lossy()))
            .and_then(|status| {
                status
                    .success()
                    .then_some(())
                    .ok_or_else(|| format!("{} exited with {status}", browser.to_string_lossy()))
            }),
        None => opener::open(page).map_err(|e| e.to_string()),
    };
    if let Err(why) = opened {
        console.warn(&format!(
            "could not open {} in a browser: {why}\nhint: open the file yourself, or set BROWSER",
            page.display()
        ));
    }
}
