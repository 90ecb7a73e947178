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

use std::ops::Range;
use std::path::Path;

use anyhow::{Context, Result};

use crate::model::{EditEntry, FileChange, Fix, Report};

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

/// A fix's edits in one line: `` `x` → `y`, `a < b` → `a <= b` ``; the same edit at several
/// places (copies of one code) once, with its places: `` `x` → `y` (2 places: src/a.rs:4,
/// src/a.rs:9) ``.
pub fn describe(fix: &Fix) -> String {
    let mut phrases: Vec<(String, Vec<String>)> = Vec::new();
    for e in &fix.edits {
        let phrase = edit_phrase(&e.original, &e.replacement);
        let at = format!("{}:{}", e.file, e.line);
        match phrases.iter_mut().find(|(p, _)| *p == phrase) {
            Some((_, places)) => places.push(at),
            None => phrases.push((phrase, vec![at])),
        }
    }
    let edits: Vec<String> = (phrases.into_iter())
        .map(|(phrase, places)| match places.len() {
            1 => phrase,
            n => format!("{phrase} ({n} places: {})", places.join(", ")),
        })
        .collect();
    edits.join(", ")
}

/// One edit in words: `` `a` → `b` ``, or `` insert `x` `` and `` delete `x` `` for a
/// statement put in or taken out.
pub fn edit_phrase(original: &str, replacement: &str) -> String {
    let (original, replacement) = (one_line(original), one_line(replacement));
    if original.is_empty() {
        format!("insert `{replacement}`")
    } else if replacement.is_empty() {
        format!("delete `{original}`")
    } else {
        format!("`{original}` → `{replacement}`")
    }
}

/// Code on one line, without backticks that would end an inline code span.
pub fn one_line(code: &str) -> String {
    code.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace('`', "'")
}

/// One replacement of a fix in one file: bytes of the text before, and what replaces them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replacement {
    pub bytes: Range<usize>,
    /// 1-based line and character column of the start; end exclusive.
    pub start: (u32, u32),
    pub end: (u32, u32),
    pub original: String,
    pub text: String,
}

/// The replacements that turn `change.before` into `change.after`: the fix's edits in this
/// file when each is found where it says (its original text at its span), else the one
/// region between the texts' common prefix and suffix.
pub fn replacements(change: &FileChange, edits: &[EditEntry]) -> Vec<Replacement> {
    let index = LineIndex::new(&change.before);
    let mut found: Vec<Replacement> = Vec::new();
    for edit in edits.iter().filter(|e| e.file == change.path) {
        let (Some(start), Some(end)) = (
            index.offset_at(edit.line, edit.column),
            index.offset_at(edit.end_line, edit.end_column),
        ) else {
            found.clear();
            break;
        };
        if change.before.get(start..end) != Some(edit.original.as_str()) {
            found.clear();
            break;
        }
        found.push(Replacement {
            bytes: start..end,
            start: (edit.line, edit.column),
            end: (edit.end_line, edit.end_column),
            original: edit.original.clone(),
            text: edit.replacement.clone(),
        });
    }
    found.sort_by_key(|r| r.bytes.start);
    let disjoint = found.windows(2).all(|w| w[0].bytes.end <= w[1].bytes.start);
    if !found.is_empty() && disjoint && apply(&change.before, &found) == change.after {
        return found;
    }
    // The region the texts differ in.
    let (before, after) = (change.before.as_bytes(), change.after.as_bytes());
    let mut prefix = before.iter().zip(after).take_while(|(a, b)| a == b).count();
    while !change.before.is_char_boundary(prefix) || !change.after.is_char_boundary(prefix) {
        prefix -= 1;
    }
    let mut suffix = before[prefix..]
        .iter()
        .rev()
        .zip(after[prefix..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    while !change.before.is_char_boundary(before.len() - suffix)
        || !change.after.is_char_boundary(after.len() - suffix)
    {
        suffix -= 1;
    }
    let bytes = prefix..before.len() - suffix;
    if bytes.is_empty() && prefix == after.len() - suffix {
        return Vec::new();
    }
    vec![Replacement {
        start: index.line_column(bytes.start),
        end: index.line_column(bytes.end),
        original: change.before[bytes.clone()].to_string(),
        text: change.after[prefix..after.len() - suffix].to_string(),
        bytes,
    }]
}

/// `text` with the (sorted, disjoint) replacements made.
pub fn apply(text: &str, replacements: &[Replacement]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for r in replacements {
        out.push_str(&text[at..r.bytes.start]);
        out.push_str(&r.text);
        at = r.bytes.end;
    }
    out.push_str(&text[at..]);
    out
}

pub use autodebug_syntax::LineIndex;

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

    fn change(before: &str, after: &str) -> FileChange {
        FileChange {
            path: "src/lib.rs".into(),
            before: before.into(),
            after: after.into(),
        }
    }

    fn edit(
        line: u32,
        column: u32,
        end_column: u32,
        original: &str,
        replacement: &str,
    ) -> EditEntry {
        EditEntry {
            file: "src/lib.rs".into(),
            line,
            column,
            end_line: line,
            end_column,
            kind: autodebug_runtime::protocol::SiteKind::Assign,
            original: original.into(),
            replacement: replacement.into(),
        }
    }

    #[test]
    fn edits_found_where_they_say_are_the_replacements() {
        let before = "fn f() {\n    let ü = 1;\n    r = ü + 1;\n}\n";
        let after = "fn f() {\n    let ü = 1;\n    r = ü;\n}\n";
        let c = change(before, after);
        let r = replacements(&c, &[edit(3, 9, 14, "ü + 1", "ü")]);
        assert_eq!(r.len(), 1);
        assert_eq!(&before[r[0].bytes.clone()], "ü + 1");
        assert_eq!(r[0].start, (3, 9));
        assert_eq!(apply(before, &r), after);
    }

    #[test]
    fn edits_that_do_not_match_fall_back_to_the_changed_region() {
        let before = "a\nr = x + 1;\nb\n";
        let after = "a\nr = x;\nb\n";
        let r = replacements(&change(before, after), &[edit(2, 1, 3, "zz", "y")]);
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].original, " + 1");
        assert_eq!(r[0].start, (2, 6));
        assert_eq!(apply(before, &r), after);
    }

    #[test]
    fn a_patch_goes_under_the_repository_prefix_in_its_headers_only() {
        let diff = "--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1,2 +1,2 @@\n--- a/x\n+b\n";
        assert_eq!(
            under(diff, "crates/calc/"),
            "--- a/crates/calc/src/lib.rs\n+++ b/crates/calc/src/lib.rs\n@@ -1,2 +1,2 @@\n--- a/x\n+b\n"
        );
        assert_eq!(under(diff, ""), diff);
    }

    #[test]
    fn line_starts_convert_both_ways() {
        let text = "ab\r\nçd\nlast";
        let index = LineIndex::new(text);
        assert_eq!(index.offset_at(2, 2), Some(6));
        assert_eq!(index.line_column(6), (2, 2));
        assert_eq!(index.offset_at(2, 3), Some(7));
        assert_eq!(index.offset_at(2, 4), None);
        assert_eq!(index.line(1), Some("ab"));
        assert_eq!(index.line(3), Some("last"));
    }
}
