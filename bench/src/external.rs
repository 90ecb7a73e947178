//! The external track: HumanEvalFix-Rust's dev half, bugs nobody on this project wrote, run
//! and scored by the shared scorer (`../shared/external/hefix.py`, beside the checkout). The
//! project never copies its data: the scorer materializes the crates into a scratch
//! directory, runs the tool on a copy of each, and scores the reports; this module drives
//! those three steps and writes the scorer's table into book/src/results.md.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

/// What one external run needs.
pub struct Options {
    /// The scorer (`hefix.py`).
    pub scorer: PathBuf,
    /// The tasks (`hefix-dev.jsonl`).
    pub tasks: PathBuf,
    /// The cargo-autodebug binary.
    pub tool: PathBuf,
    /// Where the crates, reports and scores go.
    pub out: PathBuf,
    /// Only these tasks (the scorer's `--ids` syntax), all when empty.
    pub ids: Vec<String>,
    /// Per-task time limit, seconds.
    pub timeout: f64,
    /// Replace the table between `<!-- external-table -->` markers in book/src/results.md.
    pub update_readme: bool,
}

fn python(scorer: &Path, step: &str, args: &[String]) -> Result<()> {
    let status = Command::new("python3")
        .arg(scorer)
        .arg(step)
        .args(args)
        .status()
        .with_context(|| format!("cannot run python3 {}", scorer.display()))?;
    if !status.success() {
        bail!("`{} {step}` failed ({status})", scorer.display());
    }
    Ok(())
}

/// Materializes, runs and scores the tasks; returns the scorer's Markdown tables.
pub fn run(opts: &Options, repo: &Path) -> Result<String> {
    for (what, path) in [("scorer", &opts.scorer), ("tasks", &opts.tasks)] {
        if !path.is_file() {
            bail!(
                "the external {what} {} is not there (it comes with the shared folder beside the checkout; pass --{what} PATH)",
                path.display()
            );
        }
    }
    let dir = opts.out.join("tasks");
    let dir_arg = dir.display().to_string();
    let ids: Vec<String> = if opts.ids.is_empty() {
        Vec::new()
    } else {
        std::iter::once("--ids".to_string())
            .chain(opts.ids.iter().cloned())
            .collect()
    };
    let with_ids = |mut args: Vec<String>| {
        args.extend(ids.iter().cloned());
        args
    };
    python(
        &opts.scorer,
        "materialize",
        &with_ids(vec![
            "--jsonl".into(),
            opts.tasks.display().to_string(),
            "--out".into(),
            dir_arg.clone(),
        ]),
    )?;
    // A rerun starts from no results: the scorer skips nothing then.
    let _ = std::fs::remove_dir_all(dir.join("results"));
    python(
        &opts.scorer,
        "run",
        &with_ids(vec![
            "--dir".into(),
            dir_arg.clone(),
            "--cmd".into(),
            format!("{} autodebug", opts.tool.display()),
            "--timeout".into(),
            opts.timeout.to_string(),
        ]),
    )?;
    let md = opts.out.join("external.md");
    python(
        &opts.scorer,
        "score",
        &with_ids(vec![
            "--dir".into(),
            dir_arg,
            "--md".into(),
            md.display().to_string(),
        ]),
    )?;
    let tables = std::fs::read_to_string(&md)
        .with_context(|| format!("the scorer wrote no {}", md.display()))?;
    if opts.update_readme {
        let body = format!(
            "Measured on {} at commit `{}`: {} task(s) of the dev half, one `cargo autodebug` run each with the tool built into a directory of its own, scored by the shared scorer.\n\n{}",
            crate::runner::today(),
            crate::runner::commit(repo),
            count_tasks(&tables).map_or("the".to_string(), |n| n.to_string()),
            without_heading(&tables).trim()
        );
        let path = repo.join(crate::runner::RESULTS_DOC);
        let readme = std::fs::read_to_string(&path)?;
        match crate::results::replace_block(
            &readme,
            "<!-- external-table -->",
            "<!-- /external-table -->",
            &format!("{body}\n"),
        ) {
            Some(new) => {
                std::fs::write(&path, new)?;
                eprintln!("Updated the external table in {}", path.display());
            }
            None => eprintln!(
                "{} has no <!-- external-table --> … <!-- /external-table --> block: not updated",
                crate::runner::RESULTS_DOC
            ),
        }
    }
    Ok(tables)
}

/// The scorer's Markdown without its own `#` headings (the section in book/src/results.md has one).
fn without_heading(tables: &str) -> String {
    tables
        .lines()
        .filter(|l| !l.starts_with('#'))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The number of tasks the scorer's tables cover (the `all` row's `n`).
fn count_tasks(tables: &str) -> Option<usize> {
    tables
        .lines()
        .find(|l| l.trim_start_matches('|').trim_start().starts_with("all"))
        .and_then(|l| l.split('|').map(str::trim).find_map(|c| c.parse().ok()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_all_row_counts_the_tasks() {
        let tables = "| bug type | n | top1 |\n|---|---:|---:|\n| value misuse | 22 | 11 |\n| all | 80 | 37 |\n";
        assert_eq!(count_tasks(tables), Some(80));
        assert_eq!(count_tasks("no table"), None);
        assert_eq!(without_heading("## H\n\nrow"), "\nrow");
    }

    #[test]
    fn a_missing_scorer_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let opts = Options {
            scorer: dir.path().join("hefix.py"),
            tasks: dir.path().join("tasks.jsonl"),
            tool: dir.path().join("cargo-autodebug"),
            out: dir.path().join("out"),
            ids: Vec::new(),
            timeout: 10.0,
            update_readme: false,
        };
        let err = run(&opts, dir.path()).unwrap_err().to_string();
        assert!(
            err.contains("hefix.py") && err.contains("--scorer"),
            "{err}"
        );
    }
}
