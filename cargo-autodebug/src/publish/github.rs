//! GitHub: workflow annotations (`::error file=…,line=…::…`, only when `GITHUB_ACTIONS` is
//! set) and `review.json`, a body for the "create a review for a pull request" API whose
//! comments are the suggestion blocks.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::diff::ChangedLines;
use super::markdown::suggestion_block;
use super::{line_suggestions, offered};
use crate::model::Report;

/// Whether the run is a GitHub Actions job (the runner sets `GITHUB_ACTIONS=true`).
pub fn in_actions() -> bool {
    std::env::var_os("GITHUB_ACTIONS").is_some_and(|v| v == "true")
}

/// The workspace root relative to the repository root (the directory holding `.git`, which
/// is where GitHub resolves annotation and review paths): `""` when they are the same.
pub fn repo_prefix(workspace_root: &Path) -> String {
    let mut dir: Option<&Path> = Some(workspace_root);
    while let Some(d) = dir {
        if d.join(".git").exists() {
            let rel: PathBuf = workspace_root
                .strip_prefix(d)
                .unwrap_or(Path::new(""))
                .into();
            let rel = rel.to_string_lossy().replace('\\', "/");
            return if rel.is_empty() { rel } else { rel + "/" };
        }
        dir = d.parent();
    }
    String::new()
}

/// The workflow commands of a report: the likely fault as an `error` (with the fix, if
/// any), the next suspects as `warning`s, and each failing test where it panicked.
pub fn annotations(report: &Report) -> Vec<String> {
    let prefix = repo_prefix(Path::new(&report.workspace_root));
    let at = |file: &str, line: u32, column: u32, end: Option<(u32, u32)>| {
        let file = if file.starts_with('/') {
            file.to_string()
        } else {
            format!("{prefix}{file}")
        };
        let mut props = format!("file={},line={line},col={column}", escape_property(&file));
        if let Some((end_line, end_column)) = end {
            if end_line == line {
                props.push_str(&format!(",endColumn={end_column}"));
            } else {
                props.push_str(&format!(",endLine={end_line}"));
            }
        }
        props
    };
    let mut out = Vec::new();
    let culprit = report.culprit();
    if let Some(suspect) = culprit {
        let why = report.strongest_evidence(suspect).unwrap_or("");
        let fix = match report.top_fix() {
            Some(fix) => format!(
                "\nValidated fix: {} ({}/{} tests pass after a rebuild); apply with `cargo autodebug --apply`.",
                super::describe(fix),
                fix.tests_passed,
                fix.tests_total
            ),
            None => String::new(),
        };
        out.push(format!(
            "::error {},title={}::{}",
            at(
                &suspect.file,
                suspect.line,
                suspect.column,
                Some((suspect.end_line, suspect.end_column))
            ),
            escape_property("cargo-autodebug: likely fault"),
            escape_data(&format!(
                "`{}` in `{}`: {why}{fix}",
                suspect.code, suspect.function
            ))
        ));
    }
    for suspect in report
        .suspects
        .iter()
        .filter(|s| Some(s.rank) != culprit.map(|c| c.rank))
        .take(2)
    {
        out.push(format!(
            "::warning {},title={}::{}",
            at(
                &suspect.file,
                suspect.line,
                suspect.column,
                Some((suspect.end_line, suspect.end_column))
            ),
            escape_property(&format!("cargo-autodebug: suspect #{}", suspect.rank)),
            escape_data(&format!(
                "`{}`: {}",
                suspect.code,
                suspect.evidence.join("; ")
            ))
        ));
    }
    for failing in &report.failing_tests {
        let Some(location) = &failing.location else {
            continue;
        };
        out.push(format!(
            "::error {},title={}::{}",
            at(&location.file, location.line, location.column, None),
            escape_property(&format!("{} {}", failing.name, failing.outcome)),
            escape_data(&failing.message)
        ));
    }
    out
}

/// A review of the pull request: the diagnosis as its body, each validated fix's suggestions
/// as comments. With the `--in-diff` lines, a suggestion outside them (GitHub rejects a
/// review comment off the diff) goes into the body instead.
pub fn review(report: &Report, changed: Option<&ChangedLines>) -> Value {
    let prefix = repo_prefix(Path::new(&report.workspace_root));
    let mut body = String::from("**cargo-autodebug**");
    if let Some(suspect) = report.culprit() {
        body.push_str(&format!(
            ": likely fault at `{}:{}` (`{}`).",
            suspect.file, suspect.line, suspect.code
        ));
        if let Some(why) = report.strongest_evidence(suspect) {
            body.push_str(&format!(" {why}"));
        }
    }
    let mut comments = Vec::new();
    let mut outside = String::new();
    for fix in offered(report).take(1) {
        body.push_str(&format!(
            "\n\nSuggested fix, validated by a rebuild: {}/{} tests pass.",
            fix.tests_passed, fix.tests_total
        ));
        for s in line_suggestions(fix) {
            let on_diff = changed.is_none_or(|c| c.touches(&s.path, s.start, s.end));
            if !on_diff {
                outside.push_str(&suggestion_block(&s));
                continue;
            }
            let block = suggestion_block(&s);
            // The comment is the block without its marker and file line.
            let suggestion = block
                .split_once("\n\n")
                .map_or(block.as_str(), |(_, rest)| rest)
                .trim_end()
                .to_string();
            let mut comment = json!({
                "path": format!("{prefix}{}", s.path),
                "line": s.end,
                "side": "RIGHT",
                "body": suggestion,
            });
            if s.start < s.end {
                comment["start_line"] = json!(s.start);
                comment["start_side"] = json!("RIGHT");
            }
            comments.push(comment);
        }
    }
    if !outside.is_empty() {
        body.push_str("\n\nOn lines this pull request does not change:\n\n");
        body.push_str(&outside);
    }
    json!({ "event": "COMMENT", "body": body, "comments": comments })
}

/// A workflow command's message: `%`, CR and LF escaped.
fn escape_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A workflow command's property value: also `:` and `,`.
fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_escape_what_would_end_them() {
        assert_eq!(escape_data("50%\na"), "50%25%0Aa");
        assert_eq!(escape_property("a:b,c"), "a%3Ab%2Cc");
    }

    #[test]
    fn the_prefix_is_the_workspace_below_the_repository() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".git")).unwrap();
        std::fs::create_dir_all(dir.path().join("crates/calc")).unwrap();
        assert_eq!(repo_prefix(dir.path()), "");
        assert_eq!(repo_prefix(&dir.path().join("crates/calc")), "crates/calc/");
    }
}
