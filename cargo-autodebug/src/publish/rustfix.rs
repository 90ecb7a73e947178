//! `fixes.rustfix.json`: the validated fixes in the shape rustc gives machine suggestions
//! (one JSON diagnostic per line), which rustfix, `cargo fix`-style tools and editors read.
//!
//! Only the top validated fix is there: rustfix applies every suggestion of a file
//! together, and two validated fixes are alternatives (`s < a[i]` or `i += 2`), not parts
//! of one change; the others are in `report.json` and `report.md`. One diagnostic per file
//! of the fix: its child `help` carries one span per replacement with
//! `suggested_replacement` and its byte range in the file as analysed. The applicability is
//! `MaybeIncorrect`: passing the suite shows the fix is consistent with the tests, not that it
//! is what the author meant, so a tool should ask before applying it.

use serde_json::{Value, json};

use super::{LineIndex, Replacement, offered, replacements};
use crate::model::Report;

/// The applicability every suggestion carries.
pub const APPLICABILITY: &str = "MaybeIncorrect";

/// The diagnostics of the top validated fix, one JSON object per line.
pub fn diagnostics(report: &Report) -> String {
    let mut out = String::new();
    for fix in offered(report).take(1) {
        for change in &fix.files {
            let replaced = replacements(change, &fix.edits);
            if replaced.is_empty() {
                continue;
            }
            let index = LineIndex::new(&change.before);
            let span = |r: &Replacement, suggestion: Option<&str>| {
                let text: Vec<Value> = (r.start.0..=r.end.0)
                    .map(|line| {
                        let text = index.line(line).unwrap_or("");
                        let start = if line == r.start.0 { r.start.1 } else { 1 };
                        let end = if line == r.end.0 {
                            r.end.1
                        } else {
                            text.chars().count() as u32 + 1
                        };
                        json!({ "text": text, "highlight_start": start, "highlight_end": end })
                    })
                    .collect();
                json!({
                    "file_name": change.path,
                    "byte_start": r.bytes.start,
                    "byte_end": r.bytes.end,
                    "line_start": r.start.0,
                    "line_end": r.end.0,
                    "column_start": r.start.1,
                    "column_end": r.end.1,
                    "is_primary": true,
                    "text": text,
                    "label": suggestion.map_or(Value::Null, |_| json!("validated fix")),
                    "suggested_replacement": suggestion,
                    "suggestion_applicability": suggestion.map(|_| APPLICABILITY),
                    "expansion": null,
                })
            };
            let message = format!(
                "cargo-autodebug: likely fault; the fix {} makes {}/{} tests pass",
                super::describe(fix),
                fix.tests_passed,
                fix.tests_total
            );
            let diagnostic = json!({
                "$message_type": "diagnostic",
                "message": message,
                "code": { "code": "autodebug::fix", "explanation": null },
                "level": "warning",
                "spans": replaced.iter().map(|r| span(r, None)).collect::<Vec<_>>(),
                "children": [{
                    "message": format!("validated fix ({}, rebuilt and retested)", fix.template),
                    "code": null,
                    "level": "help",
                    "spans": replaced.iter().map(|r| span(r, Some(&r.text))).collect::<Vec<_>>(),
                    "children": [],
                    "rendered": null,
                }],
                "rendered": format!(
                    "warning: {message}\n --> {}:{}:{}\n",
                    change.path, replaced[0].start.0, replaced[0].start.1
                ),
            });
            out.push_str(&diagnostic.to_string());
            out.push('\n');
        }
    }
    out
}
