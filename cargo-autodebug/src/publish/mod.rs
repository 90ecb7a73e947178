//! Where the report goes beyond `report.json`: a pull request and the tools around it.
//!
//! - `report.html`: the report to look at (the source shaded by suspicion, the evidence, the
//!   values, the fixes as diffs); see [`html`].
//! - `report.md`: the diagnosis in a few lines and each validated fix as GitHub
//!   ```` ```suggestion ```` blocks on the exact lines, ready to post as review comments;
//!   `review.json`, the same as a body for GitHub's "create a review" API.
//! - `report.sarif`: SARIF 2.1.0 for code scanning (suspects as results, fixes as SARIF fixes).
//! - `fixes.rustfix.json`: the top validated fix as rustc JSON diagnostics with machine
//!   suggestions (file, byte range, replacement, applicability), which rustfix and editors
//!   apply.
//! - GitHub workflow annotations (`::error file=…,line=…::…`), only under `GITHUB_ACTIONS`.
//!
//! Only validated fixes (rebuilt, the whole suite passed) are offered as suggestions.

pub mod diff;
pub mod github;
pub mod html;
pub mod junit;
pub mod markdown;
pub mod rustfix;
pub mod sarif;
pub mod terminal;

use std::path::Path;

use anyhow::{Context, Result};

pub use crate::edit::{LineIndex, Replacement, describe, edit_phrase, one_line, replacements};
use crate::model::{Fix, Report};

/// The Markdown report, in the output directory.
pub const REPORT_MD: &str = "report.md";
/// The SARIF log.
pub const REPORT_SARIF: &str = "report.sarif";
/// The fixes as rustc JSON diagnostics, one per line.
pub const FIXES_RUSTFIX: &str = "fixes.rustfix.json";
/// A pull-request review with the suggestions as comments.
pub const REVIEW_JSON: &str = "review.json";

/// Writes `report.html`, `report.md`, `review.json`, `report.sarif` and `fixes.rustfix.json`
/// into `dir` (which holds the stored traces `report.html` reads values from).
pub fn write(
    report: &Report,
    dir: &Path,
    output_shown: &str,
    changed: Option<&diff::ChangedLines>,
) -> Result<()> {
    let write = |name: &str, text: String| {
        let path = dir.join(name);
        std::fs::write(&path, text).with_context(|| format!("could not write {}", path.display()))
    };
    if let Some(fix) = report.top_fix() {
        let prefix = github::repo_prefix(Path::new(&report.workspace_root));
        write(crate::model::FIX_PATCH, under(&fix.diff, &prefix))?;
    }
    write(html::REPORT_HTML, html::render(report, dir))?;
    write(REPORT_MD, markdown::render(report, output_shown))?;
    let review = serde_json::to_string_pretty(&github::review(report, changed))?;
    write(REVIEW_JSON, review + "\n")?;
    let sarif = serde_json::to_string_pretty(&sarif::log(report))?;
    write(REPORT_SARIF, sarif + "\n")?;
    write(FIXES_RUSTFIX, rustfix::diagnostics(report))?;
    Ok(())
}

/// A unified diff whose paths (`a/…`, `b/…`, relative to the workspace root) are put under
/// `prefix` (the workspace root relative to the repository's, `crates/calc/`): `git apply`
/// reads paths from the repository root wherever it runs inside it. Only file headers (a
/// `---` line, then `+++`, then a hunk) are rewritten.
pub fn under(diff: &str, prefix: &str) -> String {
    if prefix.is_empty() {
        return diff.to_string();
    }
    let lines: Vec<&str> = diff.split_inclusive('\n').collect();
    let mut out = String::with_capacity(diff.len() + 64);
    let mut i = 0;
    while i < lines.len() {
        let header = lines[i].starts_with("--- ")
            && lines.get(i + 1).is_some_and(|l| l.starts_with("+++ "))
            && lines.get(i + 2).is_some_and(|l| l.starts_with("@@"));
        if header {
            for (line, side) in [(lines[i], "--- a/"), (lines[i + 1], "+++ b/")] {
                match line.strip_prefix(side) {
                    Some(path) => out.push_str(&format!("{side}{prefix}{path}")),
                    None => out.push_str(line),
                }
            }
            i += 2;
            continue;
        }
        out.push_str(lines[i]);
        i += 1;
    }
    out
}

/// The fixes offered as suggestions: the validated ones, best first.
pub fn offered(report: &Report) -> impl Iterator<Item = &Fix> {
    report.fixes.iter().filter(|f| f.validated)
}

/// A suggestion on whole lines, as GitHub takes it: lines `start..=end` of the file before
/// the fix are replaced by `lines`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineSuggestion {
    pub path: String,
    pub start: u32,
    pub end: u32,
    pub lines: Vec<String>,
}

/// The line suggestions of a fix: each changed run of lines, with a line of context when a
/// hunk only inserts (a suggestion must replace at least one line).
pub fn line_suggestions(fix: &Fix) -> Vec<LineSuggestion> {
    let mut out = Vec::new();
    for change in &fix.files {
        let before: Vec<&str> = change.before.lines().collect();
        let after: Vec<&str> = change.after.lines().collect();
        let diff = similar::TextDiff::configure()
            .algorithm(similar::Algorithm::Myers)
            .diff_slices(&before, &after);
        for group in diff.grouped_ops(0) {
            let (Some(first), Some(last)) = (group.first(), group.last()) else {
                continue;
            };
            let mut old = first.old_range().start..last.old_range().end;
            let mut new = first.new_range().start..last.new_range().end;
            if old.is_empty() {
                // Pure insertion: take the line before in (or the line after, at the top).
                if old.start > 0 {
                    old.start -= 1;
                    new.start -= 1;
                } else if old.end < before.len() {
                    old.end += 1;
                    new.end += 1;
                } else {
                    continue;
                }
            }
            out.push(LineSuggestion {
                path: change.path.clone(),
                start: old.start as u32 + 1,
                end: old.end as u32,
                lines: after[new].iter().map(|l| l.to_string()).collect(),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_patch_goes_under_the_repository_prefix_in_its_headers_only() {
        let diff = "--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1,2 +1,2 @@\n--- a/x\n+b\n";
        assert_eq!(
            under(diff, "crates/calc/"),
            "--- a/crates/calc/src/lib.rs\n+++ b/crates/calc/src/lib.rs\n@@ -1,2 +1,2 @@\n--- a/x\n+b\n"
        );
        assert_eq!(under(diff, ""), diff);
    }
}
