//! The panic site: where a failing run panicked inside instrumented code (an index out of
//! bounds, an `unwrap` of `None`, an overflow), the expression that panicked is a suspect
//! in its own right. Its hook never fired — the expression did not finish — so no trace
//! counts it as executed, and without this it would be no suspect at all. The location is
//! the panic's own (`src/lib.rs:16:20`); the site is the innermost expression there that has
//! the shape of a site.

use std::collections::BTreeMap;

use anyhow::Result;
use autodebug_runtime::protocol::{Record, SiteInfo, SiteKind};
use syn::spanned::Spanned;

use super::{Context, Suspect, Technique, is_candidate};
use crate::model::{Evidence, Role};
use crate::trace::workspace_path;

/// The technique (no state).
#[derive(Default)]
pub struct PanicSite;

/// Its name in evidence.
pub const NAME: &str = "panic-site";

impl Technique for PanicSite {
    fn name(&self) -> &'static str {
        NAME
    }

    fn localize(&self, context: &Context, _notes: &mut Vec<String>) -> Result<Vec<Suspect>> {
        let mut found: BTreeMap<autodebug_runtime::protocol::SiteKey, Suspect> = BTreeMap::new();
        for recorded in context.traces.iter().filter(|t| t.role == Role::Failing) {
            let trace = &recorded.trace;
            let Some((at, message, file, line, column)) = trace
                .events
                .iter()
                .enumerate()
                .rev()
                .find_map(|(i, e)| match e {
                    Record::Panic {
                        message,
                        file,
                        line,
                        column,
                        ..
                    } => Some((i, message, file, *line, *column)),
                    _ => None,
                })
            else {
                continue;
            };
            // Only a panic inside a call of an instrumented function (the test's own
            // assertion panics outside every call).
            let Some(function) = enclosing_function(trace, at) else {
                continue;
            };
            let path = workspace_path(context.workspace_root, file);
            let Ok(text) = crate::workspace::read_source(context.workspace_root, &path) else {
                continue;
            };
            let Some(at) = innermost_site(&text, line, column) else {
                continue;
            };
            let site = SiteInfo {
                file: file.clone(),
                line: at.start.0,
                column: at.start.1,
                end_line: at.end.0,
                end_column: at.end.1,
                kind: at.kind,
                code: at.code,
                function,
            };
            let headline = message.lines().next().unwrap_or_default();
            found.entry(site.key()).or_insert_with(|| Suspect {
                site,
                path,
                evidence: vec![Evidence {
                    technique: NAME,
                    score: 1.0,
                    detail: format!(
                        "{} panicked here ({file}:{line}:{column}: {headline})",
                        recorded.test.display()
                    ),
                }],
            });
        }
        Ok(found.into_values().collect())
    }
}

/// The function of the innermost call open at event `at`, by its `Enter` site.
fn enclosing_function(trace: &crate::trace::RawTrace, at: usize) -> Option<String> {
    let mut open: Vec<u32> = Vec::new();
    for event in &trace.events[..at] {
        match event {
            Record::Enter { site, .. } => open.push(*site),
            Record::Exit { .. } => {
                open.pop();
            }
            _ => {}
        }
    }
    let site = open.last()?;
    trace.sites.get(site).map(|s| s.function.clone())
}

/// An expression with the shape of a site: its kind, where it starts and ends (line and
/// column, as sites give them), its text and its length in bytes.
struct Found {
    kind: SiteKind,
    start: (u32, u32),
    end: (u32, u32),
    code: String,
    size: usize,
}

/// The innermost expression of `text` with the shape of a repairable site that holds
/// `line:column` (1-based, as panics and sites give them).
fn innermost_site(text: &str, line: u32, column: u32) -> Option<Found> {
    let (offset, body) = autodebug_syntax::parseable(text);
    let file = autodebug_syntax::parse_file_by_item(&body).ok()?.file;
    let mut best: Option<Found> = None;
    autodebug_syntax::sites::visit_file(&file, |expr, kind| {
        let kind = crate::repair::patch::site_kind(kind);
        if !is_candidate(kind) {
            return;
        }
        let span = expr.span();
        let start = autodebug_syntax::position(span.start());
        let end = autodebug_syntax::position(span.end());
        if start <= (line, column) && (line, column) < end {
            let bytes = span.byte_range();
            let size = bytes.len();
            if best.as_ref().is_none_or(|b| size < b.size) {
                let code = text
                    .get(bytes.start + offset..bytes.end + offset)
                    .unwrap_or_default()
                    .to_string();
                best = Some(Found {
                    kind,
                    start,
                    end,
                    code,
                    size,
                });
            }
        }
    });
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_innermost_site_at_a_panic_is_found() {
        let text = "fn median(res: Vec<i32>) -> f64 {
    if res.len() % 2 == 1 {
        return res[0] as f64;
    } else {
        return (res.get(res.len() - 1 / 2).unwrap() + 1) as f64 / 2.0;
    }
}
";
        let found = innermost_site(text, 5, 45).unwrap();
        assert_eq!(found.kind, SiteKind::Return);
        assert_eq!(found.start.0, 5);
        assert!(
            found
                .code
                .starts_with("(res.get(res.len() - 1 / 2).unwrap()")
        );
        // A position on no site's expression has none.
        assert!(innermost_site(text, 1, 4).is_none());
    }
}
