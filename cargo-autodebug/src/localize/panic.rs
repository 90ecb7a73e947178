//! The panic site: where a failing run panicked inside instrumented code (an index out of
//! bounds, an `unwrap` of `None`, an overflow), the expression that panicked is a suspect
//! in its own right. Its hook never fired — the expression did not finish — so no trace
//! counts it as executed, and without this it would be no suspect at all. The location is
//! the panic's own (`src/lib.rs:16:20`); the site is the innermost expression there that has
//! the shape of a site.
//!
//! [`PanicCallers`] ranks the calls that led there: the crate's own frames of the panicking
//! thread's backtrace below the panic, in functions open at the panic (a caller that passed
//! the bad argument, a missing guard before the call).

use std::collections::BTreeMap;

use anyhow::Result;
use autodebug_runtime::protocol::{Frame, Record, SiteInfo, SiteKind};
use syn::spanned::Spanned;

use super::{Context, Localized, Suspect, Technique, is_candidate};
use crate::model::{Evidence, Role, TestId};
use crate::trace::{Coverage, workspace_path};

/// The technique (no state).
#[derive(Default)]
pub struct PanicSite;

/// Its name in evidence.
pub const NAME: &str = "panic-site";

/// The calls that led to a panic (no state).
#[derive(Default)]
pub struct PanicCallers;

/// The last panic of a failing trace.
struct LastPanic<'t> {
    recorded: &'t crate::trace::RecordedTrace,
    /// Its event index.
    at: usize,
    message: &'t str,
    file: &'t String,
    line: u32,
    column: u32,
}

/// The last panic of each failing trace that has one.
fn last_panics<'t>(context: &Context<'t>) -> impl Iterator<Item = LastPanic<'t>> {
    (context.traces.iter())
        .filter(|t| t.role == Role::Failing)
        .filter_map(|recorded| {
            let (at, event) = (recorded.trace.events.iter().enumerate())
                .rev()
                .find(|(_, e)| matches!(e, Record::Panic { .. }))?;
            let Record::Panic {
                message,
                file,
                line,
                column,
                ..
            } = event
            else {
                return None;
            };
            Some(LastPanic {
                recorded,
                at,
                message,
                file,
                line: *line,
                column: *column,
            })
        })
}

/// A file of the workspace as read and parsed once for a technique's run.
struct Parsed {
    text: String,
    /// Bytes of `text` before what was parsed (a byte-order mark, a `#!` line).
    offset: usize,
    file: syn::File,
}

impl Parsed {
    fn of(text: String) -> Option<Parsed> {
        let (offset, body) = autodebug_syntax::parseable(&text);
        let file = autodebug_syntax::parse_file_by_item(&body).ok()?.file;
        Some(Parsed { text, offset, file })
    }
}

/// The files a technique read, by workspace path (`None`: unreadable or unparsable).
#[derive(Default)]
struct Files(BTreeMap<String, Option<Parsed>>);

impl Files {
    fn get(&mut self, workspace_root: &std::path::Path, path: &str) -> Option<&Parsed> {
        self.0
            .entry(path.to_string())
            .or_insert_with(|| {
                Parsed::of(crate::workspace::read_source(workspace_root, path).ok()?)
            })
            .as_ref()
    }
}

impl Technique for PanicCallers {
    fn name(&self) -> &'static str {
        "panic-callers"
    }

    fn localize(&self, context: &Context, _notes: &mut Vec<String>) -> Result<Localized> {
        let mut found: BTreeMap<autodebug_runtime::protocol::SiteKey, Suspect> = BTreeMap::new();
        let mut files = Files::default();
        for panic in last_panics(context) {
            let trace = &panic.recorded.trace;
            let Some(Record::Callers { frames }) = trace.events.get(panic.at + 1) else {
                continue;
            };
            let open = open_functions(trace, panic.at);
            let headline = panic.message.lines().next().unwrap_or_default();
            for (depth, frame) in frames.iter().enumerate() {
                let Some(suspect) = caller_site(context, &mut files, frame, &open) else {
                    continue;
                };
                let score = 1.0 / (depth + 1) as f64;
                let detail = format!(
                    "{} panicked in a call made here ({}:{}: {headline})",
                    panic.recorded.test.display(),
                    panic.file,
                    panic.line
                );
                let entry = found.entry(suspect.key()).or_insert_with(|| Suspect {
                    path: workspace_path(context.workspace_root, &frame.file),
                    site: suspect,
                    evidence: vec![Evidence {
                        technique: "panic-callers",
                        score,
                        detail,
                    }],
                });
                if entry.evidence[0].score < score {
                    entry.evidence[0].score = score;
                }
            }
        }
        Ok(Localized::from(found.into_values().collect::<Vec<_>>()))
    }
}

/// The sites each failing test's last panic interrupted: the expression that panicked and
/// the crate's own calls open below it. Their hooks never fired, so no trace counts them as
/// run; the spectrum counts them in the failing execution, as plain coverage would. A place
/// is taken as the site some trace recorded there (of the kind the source says, or the only
/// one there): a place no run recorded is left to the panic techniques alone.
pub fn interrupted(context: &Context) -> Vec<(TestId, Coverage)> {
    let mut recorded: BTreeMap<(&str, u32, u32), Vec<&SiteInfo>> = BTreeMap::new();
    for trace in context.traces {
        for site in trace.trace.sites.values() {
            let at = recorded.entry((site.file.as_str(), site.line, site.column));
            let sites = at.or_default();
            if !sites.iter().any(|s| s.kind == site.kind) {
                sites.push(site);
            }
        }
    }
    let known = |found: &SiteInfo| -> Option<SiteInfo> {
        let there = recorded.get(&(found.file.as_str(), found.line, found.column))?;
        let site = (there.iter().find(|s| s.kind == found.kind))
            .or_else(|| (there.len() == 1).then(|| &there[0]))?;
        Some((*site).clone())
    };
    let mut files = Files::default();
    let mut out: Vec<(TestId, Coverage)> = Vec::new();
    for panic in last_panics(context) {
        let trace = &panic.recorded.trace;
        let mut sites = Coverage::new();
        if let Some(function) = enclosing_function(trace, panic.at) {
            let path = workspace_path(context.workspace_root, panic.file);
            let found = (files.get(context.workspace_root, &path))
                .and_then(|parsed| innermost_in(parsed, panic.line, panic.column));
            if let Some(site) = found.and_then(|f| known(&f.site(panic.file, function))) {
                sites.insert(site.key(), site);
            }
        }
        if let Some(Record::Callers { frames }) = trace.events.get(panic.at + 1) {
            let open = open_functions(trace, panic.at);
            for frame in frames {
                let caller = caller_site(context, &mut files, frame, &open);
                if let Some(site) = caller.and_then(|c| known(&c)) {
                    sites.insert(site.key(), site);
                }
            }
        }
        if !sites.is_empty() {
            out.push((panic.recorded.test.clone(), sites));
        }
    }
    out
}

/// The site at a caller's frame, when the frame is in a function open at the panic (not
/// the test's own code, which is not instrumented): the innermost site holding the call.
fn caller_site(
    context: &Context,
    files: &mut Files,
    frame: &Frame,
    open: &[&SiteInfo],
) -> Option<SiteInfo> {
    let path = workspace_path(context.workspace_root, &frame.file);
    let parsed = files.get(context.workspace_root, &path)?;
    let name = function_at(&parsed.file, frame.line)?;
    let function = open
        .iter()
        .find(|f| f.file == frame.file && f.function.rsplit("::").next() == Some(name.as_str()))?;
    let at = innermost_in(parsed, frame.line, frame.column)?;
    Some(at.site(&frame.file, function.function.clone()))
}

/// The entry sites of the calls open at event `at`, innermost first.
fn open_functions(trace: &crate::trace::RawTrace, at: usize) -> Vec<&SiteInfo> {
    (trace.open_calls(at).into_iter().rev())
        .filter_map(|e| match e {
            Record::Enter { site, .. } => trace.sites.get(site),
            _ => None,
        })
        .collect()
}

/// The name of the innermost function of `file` (free, in an impl or a trait) whose text
/// holds `line`.
fn function_at(file: &syn::File, line: u32) -> Option<String> {
    struct Find {
        line: u32,
        found: Option<(u32, String)>,
    }
    impl Find {
        fn consider(&mut self, ident: &syn::Ident, span: proc_macro2::Span) {
            let (start, end) = (span.start().line as u32, span.end().line as u32);
            if start <= self.line
                && self.line <= end
                && self.found.as_ref().is_none_or(|(s, _)| *s <= start)
            {
                self.found = Some((start, ident.to_string()));
            }
        }
    }
    impl<'a> syn::visit::Visit<'a> for Find {
        fn visit_item_fn(&mut self, f: &'a syn::ItemFn) {
            self.consider(&f.sig.ident, f.span());
            syn::visit::visit_item_fn(self, f);
        }
        fn visit_impl_item_fn(&mut self, f: &'a syn::ImplItemFn) {
            self.consider(&f.sig.ident, f.span());
            syn::visit::visit_impl_item_fn(self, f);
        }
        fn visit_trait_item_fn(&mut self, f: &'a syn::TraitItemFn) {
            self.consider(&f.sig.ident, f.span());
            syn::visit::visit_trait_item_fn(self, f);
        }
    }
    let mut find = Find { line, found: None };
    syn::visit::Visit::visit_file(&mut find, file);
    find.found.map(|(_, name)| name)
}

impl Technique for PanicSite {
    fn name(&self) -> &'static str {
        NAME
    }

    fn localize(&self, context: &Context, _notes: &mut Vec<String>) -> Result<Localized> {
        let mut found: BTreeMap<autodebug_runtime::protocol::SiteKey, Suspect> = BTreeMap::new();
        let mut files = Files::default();
        for panic in last_panics(context) {
            let LastPanic {
                recorded,
                at,
                message,
                file,
                line,
                column,
            } = panic;
            // Only a panic inside a call of an instrumented function (the test's own
            // assertion panics outside every call).
            let Some(function) = enclosing_function(&recorded.trace, at) else {
                continue;
            };
            let path = workspace_path(context.workspace_root, file);
            let Some(parsed) = files.get(context.workspace_root, &path) else {
                continue;
            };
            let Some(at) = innermost_in(parsed, line, column) else {
                continue;
            };
            let site = at.site(file, function);
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
        Ok(Localized::from(found.into_values().collect::<Vec<_>>()))
    }
}

/// The function of the innermost call open at event `at`, by its `Enter` site.
fn enclosing_function(trace: &crate::trace::RawTrace, at: usize) -> Option<String> {
    open_functions(trace, at)
        .first()
        .map(|site| site.function.clone())
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

impl Found {
    /// The site this expression is, in `file` (as the compiler names it), of `function`.
    fn site(self, file: &str, function: String) -> SiteInfo {
        SiteInfo {
            file: file.to_string(),
            line: self.start.0,
            column: self.start.1,
            end_line: self.end.0,
            end_column: self.end.1,
            kind: self.kind,
            code: self.code,
            function,
        }
    }
}

/// The innermost expression of a parsed file with the shape of a repairable site that holds
/// `line:column` (1-based, as panics and sites give them).
fn innermost_in(parsed: &Parsed, line: u32, column: u32) -> Option<Found> {
    let Parsed { text, offset, file } = parsed;
    let mut best: Option<Found> = None;
    autodebug_syntax::sites::visit_file(file, |expr, kind| {
        let kind = crate::edit::site_kind(kind);
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
    fn the_calls_open_at_a_panic_in_the_crates_own_functions_are_ranked() {
        use crate::trace::RawTrace;
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        let text = "fn log2(x: usize) -> usize {
    usize::BITS as usize - x.leading_zeros() as usize - 1
}

pub fn rebuild(len: usize) -> bool {
    2 * len < log2(len)
}

#[test]
fn t() {
    rebuild(0);
}
";
        std::fs::write(dir.path().join("src/lib.rs"), text).unwrap();
        let entry = |line, name: &str| SiteInfo {
            kind: SiteKind::Fn,
            function: format!("p::{name}"),
            ..crate::localize::tests::site(line, SiteKind::Fn)
        };
        let frame = |line, column| Frame {
            file: "src/lib.rs".into(),
            line,
            column,
        };
        let mut trace = RawTrace::default();
        trace.sites.insert(0, entry(5, "rebuild"));
        trace.sites.insert(1, entry(1, "log2"));
        trace.events = vec![
            Record::Enter {
                site: 0,
                args: vec![],
            },
            Record::Enter {
                site: 1,
                args: vec![],
            },
            Record::Panic {
                message: "attempt to subtract with overflow".into(),
                file: "src/lib.rs".into(),
                line: 2,
                column: 5,
                thread: "t".into(),
            },
            // The call in `rebuild`, then the test's own line (no instrumented call).
            Record::Callers {
                frames: vec![frame(6, 15), frame(11, 5)],
            },
        ];
        // A passing run recorded the caller's `2 * len < log2(len)` (a return site); no
        // run recorded the panic's own expression.
        let returned = SiteInfo {
            line: 6,
            column: 5,
            end_line: 6,
            end_column: 24,
            kind: SiteKind::Return,
            code: "2 * len < log2(len)".into(),
            function: "p::rebuild".into(),
            file: "src/lib.rs".into(),
        };
        let mut passing = crate::trace::failing_test_trace(RawTrace::default());
        passing.role = Role::Passing;
        passing.test.name = "passes".into();
        passing.trace.sites.insert(7, returned.clone());
        let traces = [crate::trace::failing_test_trace(trace), passing];
        let found = crate::localize::tests::run_technique(&PanicCallers, dir.path(), &traces);
        // The sites the panic interrupted count as run where a trace recorded them.
        let cut = crate::localize::tests::in_context(dir.path(), &traces, interrupted);
        assert_eq!(cut.len(), 1);
        assert_eq!(cut[0].0.name, traces[0].test.name);
        assert_eq!(cut[0].1.values().collect::<Vec<_>>(), [&returned]);
        let at: Vec<(u32, u32, &str)> = found
            .iter()
            .map(|s| (s.site.line, s.site.column, s.site.function.as_str()))
            .collect();
        assert_eq!(at.len(), 1, "{at:?}");
        assert_eq!((at[0].0, at[0].2), (6, "p::rebuild"));
        assert!(
            found[0].evidence[0]
                .detail
                .contains("panicked in a call made here")
        );
    }

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
        let parsed = Parsed::of(text.to_string()).unwrap();
        let found = innermost_in(&parsed, 5, 45).unwrap();
        assert_eq!(found.kind, SiteKind::Return);
        assert_eq!(found.start.0, 5);
        assert!(
            found
                .code
                .starts_with("(res.get(res.len() - 1 / 2).unwrap()")
        );
        // A position on no site's expression has none.
        assert!(innermost_in(&parsed, 1, 4).is_none());
    }
}
