//! `report.md`: the diagnosis for a pull request, with GitHub suggestion blocks.
//!
//! Each suggestion is preceded by a marker comment that says which lines it replaces
//! (`<!-- autodebug-suggestion path="src/lib.rs" start_line=12 end_line=12 -->`), so that
//! a workflow (or a test) can post or apply it without parsing the prose.

use super::{LineSuggestion, line_suggestions, offered};

use crate::model::Report;

/// Suspects listed in the table.
const LISTED_SUSPECTS: usize = 5;

/// The whole Markdown report.
pub fn render(report: &Report, output_shown: &str) -> String {
    let mut out = String::new();
    let t = &report.tests;
    out.push_str("## cargo-autodebug\n\n");
    match report.status {
        "clean" => {
            out.push_str(&format!(
                "All {} tests passed: nothing to debug.\n",
                t.total
            ));
            return out;
        }
        "build-failed" => {
            out.push_str("The crate does not compile (instrumented build):\n\n");
            for error in report.build_errors.iter().take(3) {
                out.push_str(&fenced("text", error));
            }
            return out;
        }
        "no-tests" => {
            out.push_str("No tests to run.\n");
            return out;
        }
        _ => {}
    }
    failing_tests(&mut out, report);
    where_and_why(&mut out, report);
    fixes(&mut out, report, output_shown);
    suspects(&mut out, report, output_shown);
    out
}

/// The failing tests, the first three with their messages.
fn failing_tests(out: &mut String, report: &Report) {
    let t = &report.tests;
    out.push_str(&format!(
        "**{} of {} tests failed** ({} flaky).\n\n",
        report.failing_tests.len(),
        t.total,
        t.flaky
    ));
    for failing in report.failing_tests.iter().take(3) {
        let at = failing
            .location
            .as_ref()
            .map_or(String::new(), |l| format!(" at `{}:{}`", l.file, l.line));
        out.push_str(&format!(
            "- `{}::{}` {}{at}: {}\n",
            failing.target,
            failing.name,
            if failing.flaky {
                "flaky"
            } else {
                failing.outcome
            },
            inline(&crate::publish::terminal::one_line(&failing.message))
        ));
    }
    if report.failing_tests.len() > 3 {
        out.push_str(&format!(
            "- … and {} more\n",
            report.failing_tests.len() - 3
        ));
    }
    out.push('\n');
}

/// The top suspect and its strongest evidence.
fn where_and_why(out: &mut String, report: &Report) {
    match report.culprit() {
        Some(suspect) => {
            let code = suspect.source_line.as_deref().unwrap_or(&suspect.code);
            out.push_str(&format!(
                "**Where:** `{}:{}:{}` in `{}`: `{}`\n\n",
                suspect.file,
                suspect.line,
                suspect.column,
                suspect.function,
                inline(code)
            ));
            if let Some(evidence) = report.strongest_evidence(suspect) {
                out.push_str(&format!("**Why:** {}\n\n", inline(evidence)));
            }
        }
        None => {
            let why = report
                .notes
                .first()
                .map_or("no technique ranked a site", String::as_str);
            out.push_str(&format!("**Where:** no suspect: {}\n\n", inline(why)));
        }
    }
}

/// The validated fixes as suggestions (the first with how to apply it).
fn fixes(out: &mut String, report: &Report, output_shown: &str) {
    let mut offered_fixes = offered(report).peekable();
    if offered_fixes.peek().is_none() {
        let plausible = report.fixes.len();
        out.push_str(&if plausible > 0 {
            format!(
                "**Fix:** none validated ({plausible} candidate{} passed the rerun checks but not \
                 the rebuilt suite; see `{output_shown}/report.json`).\n\n",
                if plausible == 1 { "" } else { "s" }
            )
        } else {
            "**Fix:** none found.\n\n".to_string()
        });
    }
    for (i, fix) in offered_fixes.enumerate() {
        let title = if i == 0 {
            "Suggested fix".to_string()
        } else {
            format!("Alternative fix {}", i + 1)
        };
        out.push_str(&format!(
            "### {title}: {}\n\nValidated: the patched code was rebuilt and passed {}/{} tests \
             ({}, found by {}).\n\n",
            super::describe(fix),
            fix.tests_passed,
            fix.tests_total,
            fix.template,
            fix.technique
        ));
        for suggestion in line_suggestions(fix) {
            out.push_str(&suggestion_block(&suggestion));
        }
        if i == 0 {
            out.push_str(&format!(
                "Apply it locally with `cargo autodebug --apply` or `git apply {output_shown}/{}`.\n\n",
                crate::model::FIX_PATCH
            ));
        }
    }
}

/// The ranked suspects, folded.
fn suspects(out: &mut String, report: &Report, output_shown: &str) {
    let listed: Vec<_> = report.suspects.iter().take(LISTED_SUSPECTS).collect();
    if !listed.is_empty() {
        out.push_str("<details><summary>Ranked suspects</summary>\n\n");
        out.push_str("| rank | where | code | evidence |\n|---:|---|---|---|\n");
        for s in listed {
            out.push_str(&format!(
                "| {}{} | `{}:{}:{}` | `{}` | {} |\n",
                s.rank,
                if s.in_diff { " (in diff)" } else { "" },
                s.file,
                s.line,
                s.column,
                cell(&s.code),
                cell(&s.evidence.join("; "))
            ));
        }
        out.push_str(&format!(
            "\n{} suspects in all; the full report is `{output_shown}/report.json`.\n\n</details>\n",
            report.suspects.len()
        ));
    }
}

/// A suggestion block with its marker: the lines `start..=end` it replaces.
pub fn suggestion_block(s: &LineSuggestion) -> String {
    let fence = fence_for(&s.lines.join("\n"));
    let mut out = format!(
        "<!-- autodebug-suggestion path=\"{}\" start_line={} end_line={} -->\n`{}` line{} {}\n\n{fence}suggestion\n",
        s.path,
        s.start,
        s.end,
        s.path,
        if s.start == s.end { "" } else { "s" },
        if s.start == s.end {
            s.start.to_string()
        } else {
            format!("{}–{}", s.start, s.end)
        }
    );
    for line in &s.lines {
        out.push_str(line);
        out.push('\n');
    }
    out.push_str(&fence);
    out.push_str("\n\n");
    out
}

/// A fence longer than any run of backticks in `text` (at least three).
fn fence_for(text: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    "`".repeat((longest + 1).max(3))
}

/// A fenced block.
fn fenced(info: &str, text: &str) -> String {
    let fence = fence_for(text);
    format!("{fence}{info}\n{}\n{fence}\n\n", text.trim_end())
}

/// Text inside an inline code span or a sentence: on one line, without backticks that
/// would end the span.
fn inline(text: &str) -> String {
    text.replace('\n', " ").replace('`', "'")
}

/// Text inside a table cell.
fn cell(text: &str) -> String {
    inline(text).replace('|', "\\|")
}

#[cfg(test)]
pub mod tests {
    use super::*;

    /// Reads the suggestion blocks back: (path, start, end, lines).
    pub fn parse(md: &str) -> Vec<LineSuggestion> {
        let mut out = Vec::new();
        let mut lines = md.lines();
        while let Some(line) = lines.next() {
            let Some(marker) = line.strip_prefix("<!-- autodebug-suggestion ") else {
                continue;
            };
            let field = |name: &str| {
                let at = marker.find(&format!("{name}="))? + name.len() + 1;
                let rest = &marker[at..];
                match rest.strip_prefix('"') {
                    Some(quoted) => Some(quoted.split('"').next()?.to_string()),
                    None => Some(rest.split(' ').next()?.to_string()),
                }
            };
            let (path, start, end) = (
                field("path").unwrap(),
                field("start_line").unwrap().parse().unwrap(),
                field("end_line").unwrap().parse().unwrap(),
            );
            let open = lines.by_ref().find(|l| l.ends_with("suggestion")).unwrap();
            let fence = open.trim_end_matches("suggestion");
            let body: Vec<String> = lines
                .by_ref()
                .take_while(|l| *l != fence)
                .map(str::to_string)
                .collect();
            out.push(LineSuggestion {
                path,
                start,
                end,
                lines: body,
            });
        }
        out
    }

    #[test]
    fn a_block_reads_back_with_its_lines_and_a_long_enough_fence() {
        let s = LineSuggestion {
            path: "src/a b.rs".into(),
            start: 3,
            end: 4,
            lines: vec!["let s = \"```\";".into(), String::new(), "x".into()],
        };
        let block = suggestion_block(&s);
        assert!(block.contains("````suggestion\n"), "{block}");
        assert_eq!(parse(&block), [s]);
    }
}
