//! Called code, for a failing test that reached no instrumented code: a `const fn`, a
//! function the build left uninstrumented, code that was not annotated. No run says which
//! sites executed, but the source says what the test calls: the functions called where the
//! test panicked (its failing assertion), and the functions those call. Their sites are the
//! suspects, the functions called at the panic first. Where the panic is itself inside the
//! workspace's code (not the test), the innermost site there leads.
//!
//! This is a fallback: it names nothing when every failing test reached instrumented code.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use anyhow::Result;
use autodebug_runtime::protocol::{SiteInfo, SiteKey};
use syn::spanned::Spanned;
use syn::visit::Visit;

use super::{Context, Localized, Suspect, Technique, is_candidate};
use crate::model::{Evidence, Outcome};
use crate::trace::workspace_path;

/// The technique (no state).
#[derive(Default)]
pub struct Called;

/// Its name in evidence.
pub const NAME: &str = "called";

/// How deep callees are followed from the functions called at the panic.
const DEPTH: usize = 2;

impl Technique for Called {
    fn name(&self) -> &'static str {
        NAME
    }

    fn localize(&self, context: &Context, notes: &mut Vec<String>) -> Result<Localized> {
        let unreached: Vec<_> = context
            .baseline
            .iter()
            .filter(|r| r.deterministic_failure() && r.coverage.is_empty())
            .collect();
        if unreached.is_empty() {
            return Ok(Localized::default());
        }
        let code = Code::read(context.workspace_root);
        let mut found: BTreeMap<SiteKey, Suspect> = BTreeMap::new();
        for result in unreached {
            let Outcome::Failed {
                location: Some(at), ..
            } = &result.first.outcome
            else {
                continue;
            };
            let path = workspace_path(context.workspace_root, &at.file);
            let Ok(text) = crate::workspace::read_source(context.workspace_root, &path) else {
                continue;
            };
            let test = result.test.display();
            // Inside the workspace's code: that function, and the site that panicked.
            let inside = code.function_at(&path, at.line);
            let mut called: Vec<&Function> = inside.into_iter().collect();
            if called.is_empty() {
                for name in names_called_at(&text, at.line) {
                    called.extend(code.named(&name));
                }
            }
            let mut seen: BTreeSet<(String, usize)> = BTreeSet::new();
            let mut level = called;
            for depth in 0..=DEPTH {
                let mut next = Vec::new();
                for function in level {
                    if !seen.insert((function.path.clone(), function.start)) {
                        continue;
                    }
                    let score = 1.0 / (depth + 1) as f64;
                    let why = if depth == 0 && inside.is_some() {
                        format!(
                            "{test} panicked in `{}` ({}:{})",
                            function.name, at.file, at.line
                        )
                    } else if depth == 0 {
                        format!(
                            "`{}` is called where {test} failed ({}:{})",
                            function.name, at.file, at.line
                        )
                    } else {
                        format!(
                            "`{}` is called by what {test} calls ({depth} call{} away)",
                            function.name,
                            if depth == 1 { "" } else { "s" }
                        )
                    };
                    for site in &function.sites {
                        let on_panic = depth == 0 && inside.is_some() && site.line == at.line;
                        let evidence = Evidence {
                            technique: NAME,
                            score: if on_panic { 2.0 } else { score },
                            detail: format!("{why}; no run reached instrumented code"),
                        };
                        found
                            .entry(site.key())
                            .and_modify(|s| {
                                if s.evidence[0].score < evidence.score {
                                    s.evidence[0] = evidence.clone();
                                }
                            })
                            .or_insert_with(|| Suspect {
                                site: site.clone(),
                                path: function.path.clone(),
                                evidence: vec![evidence],
                            });
                    }
                    for name in &function.calls {
                        next.extend(code.named(name));
                    }
                }
                level = next;
            }
        }
        if !found.is_empty() {
            notes.push(format!(
                "the failing tests reach no instrumented code: {} suspect{} from the functions they call, read from the source (no run ranks them)",
                found.len(),
                if found.len() == 1 { "" } else { "s" }
            ));
        }
        let mut suspects: Vec<Suspect> = found.into_values().collect();
        suspects.sort_by(|a, b| b.evidence[0].score.total_cmp(&a.evidence[0].score));
        Ok(suspects.into())
    }
}

/// A function of the workspace's code: where it is, its sites and the names it calls.
#[derive(Debug)]
struct Function {
    name: String,
    /// Its file, relative to the workspace root.
    path: String,
    /// Its first and last lines.
    start: usize,
    end: usize,
    sites: Vec<SiteInfo>,
    /// The names of the functions and methods its body calls.
    calls: BTreeSet<String>,
}

/// The functions of the workspace's code (test files and test modules left out).
struct Code {
    functions: Vec<Function>,
}

impl Code {
    fn read(root: &Path) -> Code {
        let mut functions = Vec::new();
        let files = walkdir::WalkDir::new(root)
            .into_iter()
            .filter_entry(|e| {
                let name = e.file_name().to_string_lossy();
                e.depth() == 0
                    || !(name.starts_with('.')
                        || (e.file_type().is_dir()
                            && ["target", "tests", "benches", "examples"].contains(&&*name)))
            })
            .filter_map(|e| e.ok())
            .filter(|e| e.file_type().is_file() && e.path().extension().is_some_and(|x| x == "rs"));
        for entry in files {
            let Ok(text) = std::fs::read_to_string(entry.path()) else {
                continue;
            };
            let path = workspace_path(root, &entry.path().display().to_string());
            functions.extend(functions_of(&path, &text));
        }
        Code { functions }
    }

    /// The innermost function of `path` holding `line`.
    fn function_at(&self, path: &str, line: u32) -> Option<&Function> {
        let line = line as usize;
        self.functions
            .iter()
            .filter(|f| f.path == path && f.start <= line && line <= f.end)
            .min_by_key(|f| f.end - f.start)
    }

    /// The functions named `name`.
    fn named<'a>(&'a self, name: &str) -> impl Iterator<Item = &'a Function> + 'a {
        let name = name.to_string();
        self.functions.iter().filter(move |f| f.name == name)
    }
}

/// The functions of one file, with their sites and calls.
fn functions_of(path: &str, text: &str) -> Vec<Function> {
    let (offset, body) = autodebug_syntax::parseable(text);
    let Ok(file) = autodebug_syntax::parse_file_by_item(&body).map(|b| b.file) else {
        return Vec::new();
    };
    let mut items = Items::default();
    items.visit_file(&file);
    let mut sites: Vec<(usize, SiteInfo)> = Vec::new();
    autodebug_syntax::sites::visit_file(&file, |expr, kind| {
        let kind = crate::edit::site_kind(kind);
        if !is_candidate(kind) {
            return;
        }
        let span = expr.span();
        let (line, column) = autodebug_syntax::position(span.start());
        let (end_line, end_column) = autodebug_syntax::position(span.end());
        let bytes = span.byte_range();
        let code = text
            .get(bytes.start + offset..bytes.end + offset)
            .unwrap_or_default()
            .to_string();
        sites.push((
            line as usize,
            SiteInfo {
                file: path.to_string(),
                line,
                column,
                end_line,
                end_column,
                kind,
                code,
                function: String::new(),
            },
        ));
    });
    let mut functions: Vec<Function> = items
        .found
        .into_iter()
        .map(|(name, start, end, calls)| Function {
            name,
            path: path.to_string(),
            start,
            end,
            sites: Vec::new(),
            calls,
        })
        .collect();
    for (line, mut site) in sites {
        // The innermost function holding the site (closures stay with theirs).
        if let Some(function) = functions
            .iter_mut()
            .filter(|f| f.start <= line && line <= f.end)
            .min_by_key(|f| f.end - f.start)
        {
            site.function = function.name.clone();
            function.sites.push(site);
        }
    }
    functions
}

/// Functions and methods with bodies (name, first and last line, names called), outside
/// `#[cfg(test)]` modules and `#[test]` functions.
#[derive(Default)]
struct Items {
    found: Vec<(String, usize, usize, BTreeSet<String>)>,
}

impl Items {
    fn add(&mut self, name: &syn::Ident, span: proc_macro2::Span, block: &syn::Block) {
        let mut calls = Calls::default();
        calls.visit_block(block);
        self.found.push((
            name.to_string(),
            span.start().line,
            span.end().line,
            calls.names,
        ));
    }
}

/// `#[test]`, `#[cfg(test)]` and the like.
fn is_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        let path = a.path();
        path.is_ident("test")
            || path.segments.last().is_some_and(|s| s.ident == "test")
            || (path.is_ident("cfg") && a.parse_args::<syn::Ident>().is_ok_and(|i| i == "test"))
    })
}

impl<'ast> Visit<'ast> for Items {
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        if !is_test(&m.attrs) {
            syn::visit::visit_item_mod(self, m);
        }
    }

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        if !is_test(&f.attrs) {
            self.add(&f.sig.ident, f.span(), &f.block);
            syn::visit::visit_item_fn(self, f);
        }
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        if !is_test(&f.attrs) {
            self.add(&f.sig.ident, f.span(), &f.block);
            syn::visit::visit_impl_item_fn(self, f);
        }
    }

    fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
        if let Some(block) = &f.default {
            self.add(&f.sig.ident, f.span(), block);
        }
        syn::visit::visit_trait_item_fn(self, f);
    }
}

/// The last path segment of every function call and the name of every method call.
#[derive(Default)]
struct Calls {
    names: BTreeSet<String>,
}

impl<'ast> Visit<'ast> for Calls {
    fn visit_expr_call(&mut self, call: &'ast syn::ExprCall) {
        if let syn::Expr::Path(path) = &*call.func
            && let Some(last) = path.path.segments.last()
        {
            self.names.insert(last.ident.to_string());
        }
        syn::visit::visit_expr_call(self, call);
    }

    fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
        self.names.insert(call.method.to_string());
        syn::visit::visit_expr_method_call(self, call);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        // `assert_eq!(f(x), 3)`: the arguments of a macro that reads as expressions.
        if let Ok(args) = mac.parse_body_with(
            syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated,
        ) {
            for arg in &args {
                self.visit_expr(arg);
            }
        }
    }
}

/// The names called by the statement of `text` that holds `line` (a test's failing
/// assertion), or by the whole function holding it when that statement calls none.
fn names_called_at(text: &str, line: u32) -> BTreeSet<String> {
    let (_, body) = autodebug_syntax::parseable(text);
    let Ok(file) = autodebug_syntax::parse_file_by_item(&body).map(|b| b.file) else {
        return BTreeSet::new();
    };
    let line = line as usize;
    let mut finder = Statement {
        line,
        innermost: None,
        function: None,
    };
    finder.visit_file(&file);
    for block in [finder.innermost, finder.function].into_iter().flatten() {
        let mut calls = Calls::default();
        match block {
            Held::Stmt(stmt) => calls.visit_stmt(stmt),
            Held::Block(block) => calls.visit_block(block),
        }
        if !calls.names.is_empty() {
            return calls.names;
        }
    }
    BTreeSet::new()
}

enum Held<'ast> {
    Stmt(&'ast syn::Stmt),
    Block(&'ast syn::Block),
}

/// Finds the innermost statement, and the function, holding a line.
struct Statement<'ast> {
    line: usize,
    innermost: Option<Held<'ast>>,
    function: Option<Held<'ast>>,
}

impl<'ast> Statement<'ast> {
    fn holds(&self, span: proc_macro2::Span) -> bool {
        span.start().line <= self.line && self.line <= span.end().line
    }
}

impl<'ast> Visit<'ast> for Statement<'ast> {
    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        if self.holds(f.span()) {
            self.function = Some(Held::Block(&f.block));
        }
        syn::visit::visit_item_fn(self, f);
    }

    fn visit_stmt(&mut self, stmt: &'ast syn::Stmt) {
        if self.holds(stmt.span()) {
            self.innermost = Some(Held::Stmt(stmt));
        }
        syn::visit::visit_stmt(self, stmt);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CODE: &str = "/// Days in a month.
pub const fn days_in(month: u32) -> u32 {
    if is_february(month) {
        28
    } else if month == 4 || month == 6 || month == 9 || month == 10 {
        30
    } else {
        31
    }
}

const fn is_february(month: u32) -> bool {
    month == 2
}

pub fn unrelated(x: u32) -> u32 {
    if x > 1 { x } else { 0 }
}

#[cfg(test)]
mod tests {
    fn helper() -> bool {
        1 > 0
    }
}
";

    #[test]
    fn functions_have_their_sites_and_calls_and_test_code_is_left_out() {
        let functions = functions_of("src/lib.rs", CODE);
        let names: Vec<&str> = functions.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["days_in", "is_february", "unrelated"]);
        let days = &functions[0];
        // From its doc comment to its closing brace.
        assert_eq!((days.start, days.end), (1, 10));
        assert!(days.calls.contains("is_february"));
        let codes: Vec<&str> = days.sites.iter().map(|s| s.code.as_str()).collect();
        assert!(codes.contains(&"month == 10"), "{codes:?}");
        assert!(days.sites.iter().all(|s| s.function == "days_in"));
    }

    #[test]
    fn the_names_called_by_a_failing_assertion_are_read() {
        let test = "#[test]
fn months() {
    let feb = days_in(2);
    assert_eq!(feb, 28);
    assert_eq!(days_in(11), 30, \"november\");
}
";
        let names = names_called_at(test, 5);
        assert_eq!(names, BTreeSet::from(["days_in".to_string()]));
        // An assertion that calls nothing: the test function's calls.
        assert_eq!(
            names_called_at(test, 4),
            BTreeSet::from(["days_in".to_string()])
        );
    }
}
