//! Robustness property tests ("fuzzing") of the source rewrites, run over real Rust sources:
//! every `.rs` file of the cargo registry's sources (`~/.cargo/registry/src/*/`) and of the
//! workspace's `bench/corpus` and `examples`, sorted by path, without the files over 200 KB
//! and those syn cannot parse.
//!
//! - The repair stage's span rewrite ([`patch::locate`], [`patch::apply_edits`],
//!   [`patch::unified_diff`]): the expressions a site can be (conditions of `if`/`while`,
//!   `let` initializers, assigned values, returned values) are found again, replaced by
//!   `(0)`, by themselves in parentheses, by themselves (the identical file must come back)
//!   and, for a binary expression, by the same with its operator swapped. Bytes outside the
//!   span never change, the result parses, nothing panics.
//! - Zero-annotation's attribute insertion ([`annotation::plan`],
//!   [`annotation::annotated`]): the copy parses, keeps every line break, and cutting the
//!   inserted attributes out gives back the user's bytes.
//!
//! The tests run a deterministic sample (a stride over the sorted corpus, plus every file of
//! the workspace's own corpus) sized for CI; the `#[ignore]`d sweeps take every file:
//! `cargo test -p cargo-autodebug --bin cargo-autodebug robustness -- --ignored --nocapture`.
//! Each prints a one-line summary: files, sites, panics, property violations.

use std::ops::Range;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::time::Instant;

use autodebug_runtime::protocol::{SiteInfo, SiteKind};
use syn::spanned::Spanned;
use syn::visit::{self, Visit};
use syn::{BinOp, Expr, Stmt};

use crate::localize::source::is_compound;
use crate::repair::patch::{self, Edit};
use crate::zero::annotation::{self, ATTRIBUTE};

/// Files larger than this are left out of the corpus.
const MAX_BYTES: u64 = 200 * 1024;

/// CI sample of the span rewrite: every `PATCH_STRIDE`-th file of the sorted corpus, at most
/// `PATCH_SITES` sites per file.
const PATCH_STRIDE: usize = 32;
const PATCH_SITES: usize = 6;
/// The full sweep: every file, at most this many sites per file (spread over the file).
const PATCH_SITES_FULL: usize = 40;

/// CI sample of the attribute insertion: every `ANNOTATION_STRIDE`-th file.
const ANNOTATION_STRIDE: usize = 6;

/// Property violations and panics found in the product code and left in place (a test does
/// not fix them): the corpus file (path suffix) and 1-based line of the case, skipped by
/// the tests below. Each one is reported with a minimal reproducing input.
const KNOWN_PATCH_CASES: &[(&str, u32)] = &[];
const KNOWN_ANNOTATION_FILES: &[&str] = &[];

// ----------------------------------------------------------------------------------------
// The corpus

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .filter(|e| !e.path().components().any(|c| c.as_os_str() == "target"))
        .filter(|e| e.path().extension().is_some_and(|x| x == "rs"))
        .map(|e| e.path().to_path_buf())
        .collect()
}

/// Every `.rs` file of the registry's sources, sorted.
fn registry_files() -> Vec<PathBuf> {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")));
    let Some(src) = home.map(|h| h.join("registry").join("src")) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(&src)
        .map(|dir| {
            dir.filter_map(Result::ok)
                .flat_map(|index| rust_files(&index.path()))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

/// The workspace's own corpus (`bench/corpus`, `examples`), sorted.
fn own_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = ["bench/corpus", "examples"]
        .iter()
        .flat_map(|dir| rust_files(&workspace().join(dir)))
        .collect();
    files.sort();
    files
}

/// The files a run takes: every `stride`-th registry file (the full corpus for 1) and all
/// of the workspace's own.
fn corpus(stride: usize) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = registry_files().into_iter().step_by(stride).collect();
    files.extend(own_files());
    files
}

/// A corpus file's text, unless it is too large or not UTF-8.
fn read(path: &Path) -> Option<String> {
    if std::fs::metadata(path).ok()?.len() > MAX_BYTES {
        return None;
    }
    std::fs::read_to_string(path).ok()
}

/// Runs `f` on a thread with a large stack (generated code nests deeply, and syn recurses
/// as deeply).
fn on_big_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(512 << 20)
        .spawn(f)
        .expect("a thread")
        .join()
        .unwrap_or_else(|e| std::panic::resume_unwind(e))
}

/// The message of a caught panic.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "(no message)".into())
}

/// Counts of a run, and the first findings in full.
#[derive(Default)]
struct Tally {
    files: usize,
    too_large: usize,
    unparsed: usize,
    sites: usize,
    rewrites: usize,
    /// Rewrites not made because the replacement is no expression (a swapped operator that
    /// no longer parses: `x as u8 < y`).
    invalid: usize,
    /// Valid replacements `apply_edits` refused (only a swapped operator may be refused).
    refused: usize,
    panics: usize,
    violations: usize,
    known: usize,
    findings: Vec<String>,
}

impl Tally {
    fn panic(&mut self, what: String) {
        self.panics += 1;
        self.finding(format!("PANIC {what}"));
    }

    fn violation(&mut self, what: String) {
        self.violations += 1;
        self.finding(format!("VIOLATION {what}"));
    }

    fn finding(&mut self, what: String) {
        if self.findings.len() < 40 {
            self.findings.push(what);
        }
    }

    fn report(&self, title: &str, unit: &str, started: Instant) {
        for finding in &self.findings {
            eprintln!("  {finding}");
        }
        eprintln!(
            "{title}: {} files tried ({} over 200 KB, {} not parseable, left out), {} {unit} tried, \
             {} rewrites ({} not expressions, {} refused), {} known cases skipped, {} panics, \
             {} property violations, {:.1} s",
            self.files,
            self.too_large,
            self.unparsed,
            self.sites,
            self.rewrites,
            self.invalid,
            self.refused,
            self.known,
            self.panics,
            self.violations,
            started.elapsed().as_secs_f64()
        );
        assert_eq!(self.panics, 0, "{title}: panics (see above)");
        assert_eq!(
            self.violations, 0,
            "{title}: property violations (see above)"
        );
        assert!(self.files > 0, "{title}: no file tried");
    }
}

/// The text syn parses and the byte offset of its start in `text`: a byte-order mark is
/// skipped and a shebang line blanked (as the repair stage does, so offsets stay the file's).
fn parseable(text: &str) -> (usize, String) {
    let (offset, body) = match text.strip_prefix('\u{feff}') {
        Some(rest) => ('\u{feff}'.len_utf8(), rest),
        None => (0, text),
    };
    let mut body = body.to_string();
    if body.starts_with("#!") && !body[2..].trim_start().starts_with('[') {
        let end = body.find('\n').unwrap_or(body.len());
        body.replace_range(..end, &" ".repeat(end));
    }
    (offset, body)
}

// ----------------------------------------------------------------------------------------
// 1. The span rewrite of the repair stage

/// An expression that can be a site, found by its own walk of the file.
struct Found {
    kind: SiteKind,
    bytes: Range<usize>,
    /// For a binary expression whose operator has a swap: the operator's bytes and the
    /// operator that replaces it.
    swap: Option<(Range<usize>, &'static str)>,
}

struct Finder {
    offset: usize,
    found: Vec<Found>,
}

impl Finder {
    fn bytes(&self, node: &impl Spanned) -> Range<usize> {
        let range = node.span().byte_range();
        range.start + self.offset..range.end + self.offset
    }

    fn add(&mut self, expr: &Expr, kind: SiteKind) {
        let swap = match expr {
            Expr::Binary(b) => swapped(&b.op).map(|op| (self.bytes(&b.op), op)),
            _ => None,
        };
        let bytes = self.bytes(expr);
        self.found.push(Found { kind, bytes, swap });
    }

    /// A condition is a site unless it binds (`if let`, let chains).
    fn condition(&mut self, cond: &Expr, kind: SiteKind) {
        if !contains_let(cond) {
            self.add(cond, kind);
        }
    }

    fn tail(&mut self, block: &syn::Block) {
        if let Some(Stmt::Expr(tail, None)) = block.stmts.last() {
            self.add(tail, SiteKind::Return);
        }
    }
}

fn contains_let(expr: &Expr) -> bool {
    match expr {
        Expr::Let(_) => true,
        Expr::Binary(b) => contains_let(&b.left) || contains_let(&b.right),
        Expr::Paren(p) => contains_let(&p.expr),
        Expr::Group(g) => contains_let(&g.expr),
        _ => false,
    }
}

/// The operator a mutation puts in place of `op`.
fn swapped(op: &BinOp) -> Option<&'static str> {
    Some(match op {
        BinOp::Lt(_) => ">=",
        BinOp::Ge(_) => "<",
        BinOp::Gt(_) => "<=",
        BinOp::Le(_) => ">",
        BinOp::Eq(_) => "!=",
        BinOp::Ne(_) => "==",
        BinOp::Add(_) => "-",
        BinOp::Sub(_) => "+",
        BinOp::Mul(_) => "/",
        BinOp::Div(_) => "*",
        BinOp::And(_) => "||",
        BinOp::Or(_) => "&&",
        BinOp::BitAnd(_) => "|",
        BinOp::BitOr(_) => "&",
        BinOp::Shl(_) => ">>",
        BinOp::Shr(_) => "<<",
        _ => return None,
    })
}

impl<'ast> Visit<'ast> for Finder {
    fn visit_expr_if(&mut self, e: &'ast syn::ExprIf) {
        self.condition(&e.cond, SiteKind::If);
        visit::visit_expr_if(self, e);
    }

    fn visit_expr_while(&mut self, e: &'ast syn::ExprWhile) {
        self.condition(&e.cond, SiteKind::While);
        visit::visit_expr_while(self, e);
    }

    fn visit_local_init(&mut self, init: &'ast syn::LocalInit) {
        self.add(&init.expr, SiteKind::Let);
        visit::visit_local_init(self, init);
    }

    fn visit_expr_assign(&mut self, e: &'ast syn::ExprAssign) {
        self.add(&e.right, SiteKind::Assign);
        visit::visit_expr_assign(self, e);
    }

    fn visit_expr_binary(&mut self, e: &'ast syn::ExprBinary) {
        if is_compound(&e.op) {
            self.add(&e.right, SiteKind::Compound);
        }
        visit::visit_expr_binary(self, e);
    }

    fn visit_expr_return(&mut self, e: &'ast syn::ExprReturn) {
        if let Some(value) = &e.expr {
            self.add(value, SiteKind::Return);
        }
        visit::visit_expr_return(self, e);
    }

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        self.tail(&f.block);
        visit::visit_item_fn(self, f);
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        self.tail(&f.block);
        visit::visit_impl_item_fn(self, f);
    }
}

/// The sites of a file's text (`None` when it does not parse), in text order.
fn find_sites(text: &str) -> Option<Vec<Found>> {
    let (offset, body) = parseable(text);
    let file: syn::File = syn::parse_str(&body).ok()?;
    let mut finder = Finder {
        offset,
        found: Vec::new(),
    };
    finder.visit_file(&file);
    Some(finder.found)
}

/// The 1-based line and character column of byte `offset` (a byte-order mark not counted),
/// as sites give them.
fn line_column(text: &str, offset: usize) -> (u32, u32) {
    let before = &text[..offset];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let line = before.matches('\n').count() + 1;
    let column = before[line_start..]
        .chars()
        .filter(|&c| c != '\u{feff}')
        .count()
        + 1;
    (line as u32, column as u32)
}

fn site_info(text: &str, found: &Found) -> SiteInfo {
    let (line, column) = line_column(text, found.bytes.start);
    let (end_line, end_column) = line_column(text, found.bytes.end);
    SiteInfo {
        file: "src/lib.rs".into(),
        line,
        column,
        end_line,
        end_column,
        kind: found.kind,
        code: text[found.bytes.clone()].to_string(),
        function: "f".into(),
    }
}

/// At most `cap` of `items`, spread evenly over them.
fn spread<T>(items: Vec<T>, cap: usize) -> Vec<T> {
    let n = items.len();
    if n <= cap {
        return items;
    }
    let picks: Vec<usize> = (0..cap).map(|i| i * n / cap).collect();
    items
        .into_iter()
        .enumerate()
        .filter(|(i, _)| picks.contains(i))
        .map(|(_, x)| x)
        .collect()
}

/// One rewrite of a located site: `apply_edits` must not panic; what it returns must keep
/// every byte outside the span, hold the replacement (or the replacement in parentheses)
/// in it, and parse. `must_apply`: a refusal is a violation too (the replacement stands
/// anywhere an expression does).
fn check_rewrite(
    tally: &mut Tally,
    at: &str,
    text: &str,
    bytes: &Range<usize>,
    replacement: &str,
    must_apply: bool,
) -> Option<String> {
    if syn::parse_str::<Expr>(replacement).is_err() {
        tally.invalid += 1;
        if must_apply {
            tally.violation(format!("{at}: `{replacement}` is no expression for syn"));
        }
        return None;
    }
    tally.rewrites += 1;
    let edits = [Edit {
        bytes: bytes.clone(),
        replacement: replacement.to_string(),
    }];
    let after = match catch_unwind(AssertUnwindSafe(|| patch::apply_edits(text, &edits))) {
        Err(payload) => {
            tally.panic(format!(
                "{at}: apply_edits with `{replacement}`: {}",
                panic_message(&*payload)
            ));
            return None;
        }
        Ok(Err(error)) => {
            tally.refused += 1;
            if must_apply {
                tally.violation(format!("{at}: `{replacement}` refused: {error}"));
            }
            return None;
        }
        Ok(Ok(after)) => after,
    };
    let (start, end) = (bytes.start, bytes.end);
    let tail = text.len() - end;
    let kept = after.len() >= start + tail
        && after.as_bytes()[..start] == text.as_bytes()[..start]
        && after.as_bytes()[after.len() - tail..] == text.as_bytes()[end..];
    if !kept {
        tally.violation(format!(
            "{at}: `{replacement}` changed bytes outside the span"
        ));
        return None;
    }
    let middle = &after[start..after.len() - tail];
    if middle != replacement && middle != format!("({replacement})") {
        tally.violation(format!("{at}: `{replacement}` was written as `{middle}`"));
    }
    if let Err(error) = syn::parse_file(&after) {
        tally.violation(format!(
            "{at}: the file with `{replacement}` does not parse: {error}"
        ));
    }
    Some(after)
}

/// The span-rewrite properties over the files of `files`, at most `cap` sites per file.
fn patch_properties(title: &'static str, files: Vec<PathBuf>, cap: usize) {
    on_big_stack(move || {
        let started = Instant::now();
        let mut tally = Tally::default();
        for path in &files {
            let Some(text) = read(path) else {
                tally.too_large += 1;
                continue;
            };
            let name = path.display().to_string();
            let found = catch_unwind(AssertUnwindSafe(|| find_sites(&text)));
            proc_macro2::extra::invalidate_current_thread_spans();
            let Ok(Some(found)) = found else {
                tally.unparsed += 1;
                continue;
            };
            tally.files += 1;
            for found in spread(found, cap) {
                let site = site_info(&text, &found);
                let at = format!("{name}:{}:{} ({:?})", site.line, site.column, site.kind);
                if KNOWN_PATCH_CASES
                    .iter()
                    .any(|(file, line)| name.ends_with(file) && site.line == *line)
                {
                    tally.known += 1;
                    continue;
                }
                tally.sites += 1;
                patch_site(&mut tally, &at, &text, &site, &found);
                proc_macro2::extra::invalidate_current_thread_spans();
            }
        }
        tally.report(title, "sites", started);
    })
}

fn patch_site(tally: &mut Tally, at: &str, text: &str, site: &SiteInfo, found: &Found) {
    let located = match catch_unwind(AssertUnwindSafe(|| patch::locate(text, site))) {
        Err(payload) => return tally.panic(format!("{at}: locate: {}", panic_message(&*payload))),
        Ok(Err(error)) => {
            return tally.violation(format!("{at}: locate `{}`: {error}", site.code));
        }
        Ok(Ok(located)) => located,
    };
    if located.bytes != found.bytes || located.original != site.code {
        return tally.violation(format!(
            "{at}: located {:?} `{}`, the site is {:?} `{}`",
            located.bytes, located.original, found.bytes, site.code
        ));
    }
    let bytes = &located.bytes;
    let original = located.original.as_str();
    // The round trip: the span replaced by its own text is the same file.
    if syn::parse_str::<Expr>(original).is_ok() {
        if let Some(after) = check_rewrite(tally, at, text, bytes, original, true)
            && after != text
        {
            tally.violation(format!(
                "{at}: `{original}` put back in place changed the file"
            ));
        }
    } else {
        tally.invalid += 1;
        tally.finding(format!(
            "note {at}: `{original}` alone is no expression for syn"
        ));
    }
    for replacement in ["(0)".to_string(), format!("({original})")] {
        if let Some(after) = check_rewrite(tally, at, text, bytes, &replacement, true) {
            diff_properties(tally, at, text, &after);
        }
    }
    if let Some((op, new)) = &found.swap {
        let (from, to) = (op.start - bytes.start, op.end - bytes.start);
        let mutated = format!("{}{new}{}", &original[..from], &original[to..]);
        check_rewrite(tally, at, text, bytes, &mutated, false);
    }
}

/// `unified_diff` does not panic, is empty only for the same text, and its removed and
/// added lines are lines of the texts.
fn diff_properties(tally: &mut Tally, at: &str, before: &str, after: &str) {
    let diff = match catch_unwind(|| patch::unified_diff("src/lib.rs", before, after)) {
        Ok(diff) => diff,
        Err(payload) => {
            return tally.panic(format!("{at}: unified_diff: {}", panic_message(&*payload)));
        }
    };
    if diff.is_empty() != (before == after) {
        return tally.violation(format!(
            "{at}: the diff is empty for a change or not for none"
        ));
    }
    if !diff.is_empty() && !diff.starts_with("--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ ") {
        return tally.violation(format!("{at}: the diff has no header"));
    }
    let lines_kept = |sign: char, text: &str| {
        body_lines(&diff, sign).all(|line| text.contains(line.trim_end_matches(['\n', '\r'])))
    };
    if !lines_kept('-', before) || !lines_kept('+', after) {
        tally.violation(format!("{at}: the diff's lines are not the texts'"));
    }
}

/// The lines of a diff's hunks that start with `sign`, without it.
fn body_lines(diff: &str, sign: char) -> impl Iterator<Item = &str> {
    diff.split_inclusive('\n')
        .skip(2)
        .filter(move |l| l.starts_with(sign))
        .map(|l| &l[1..])
}

#[test]
fn robustness_patch_sample() {
    patch_properties(
        "robustness patch (CI sample)",
        corpus(PATCH_STRIDE),
        PATCH_SITES,
    );
}

#[test]
#[ignore]
fn robustness_patch_full_sweep() {
    patch_properties("robustness patch (full sweep)", corpus(1), PATCH_SITES_FULL);
}

// ----------------------------------------------------------------------------------------
// 2. Zero-annotation's attribute insertion

/// The user's text back from an annotated copy: each insertion's text must be where the
/// insertions say (their offsets are the user's, shifted by the ones before), and is cut
/// out. `None` when one is not there.
fn cut_back(copy: &str, insertions: &[annotation::Insertion]) -> Option<String> {
    let mut out = String::with_capacity(copy.len());
    let mut at = 0;
    let mut added = 0;
    for insertion in insertions {
        let start = insertion.offset + added;
        if start < at || copy.get(start..start + insertion.text.len())? != insertion.text {
            return None;
        }
        out.push_str(&copy[at..start]);
        at = start + insertion.text.len();
        added += insertion.text.len();
    }
    out.push_str(&copy[at..]);
    Some(out)
}

/// The insertion properties over `files`.
fn annotation_properties(title: &'static str, files: Vec<PathBuf>) {
    on_big_stack(move || {
        let started = Instant::now();
        let mut tally = Tally::default();
        for path in &files {
            let Some(text) = read(path) else {
                tally.too_large += 1;
                continue;
            };
            let name = path.display().to_string();
            if KNOWN_ANNOTATION_FILES.iter().any(|f| name.ends_with(f)) {
                tally.known += 1;
                continue;
            }
            annotation_file(&mut tally, &name, &text);
            proc_macro2::extra::invalidate_current_thread_spans();
        }
        tally.report(title, "insertions", started);
    })
}

fn annotation_file(tally: &mut Tally, name: &str, text: &str) {
    if syn::parse_file(text).is_err() {
        tally.unparsed += 1;
        return;
    }
    tally.files += 1;
    let plan = match catch_unwind(|| annotation::plan(text)) {
        Err(payload) => return tally.panic(format!("{name}: plan: {}", panic_message(&*payload))),
        Ok(Err(error)) => {
            return tally.violation(format!("{name}: plan refuses a parseable file: {error}"));
        }
        Ok(Ok(plan)) => plan,
    };
    let insertions = plan.insertions;
    tally.sites += insertions.len();
    for pair in insertions.windows(2) {
        if pair[0].offset > pair[1].offset {
            tally.violation(format!(
                "{name}: insertions out of order ({} then {})",
                pair[0].offset, pair[1].offset
            ));
        }
    }
    for insertion in &insertions {
        let on_boundary = text.is_char_boundary(insertion.offset);
        let line = on_boundary.then(|| text[..insertion.offset].matches('\n').count() + 1);
        if line != Some(insertion.line as usize) || insertion.text.trim() != ATTRIBUTE {
            tally.violation(format!(
                "{name}:{}: insertion `{}` at byte {} (line {line:?})",
                insertion.line, insertion.text, insertion.offset
            ));
        }
    }
    let copy = match catch_unwind(|| annotation::annotated(text, &insertions)) {
        Err(payload) => {
            return tally.panic(format!("{name}: annotated: {}", panic_message(&*payload)));
        }
        Ok(copy) => copy,
    };
    if let Err(error) = syn::parse_file(&copy) {
        let at = error.span().start();
        tally.violation(format!(
            "{name}: the annotated copy does not parse at {}:{}: {error}",
            at.line,
            at.column + 1
        ));
    }
    if copy.matches('\n').count() != text.matches('\n').count() {
        tally.violation(format!("{name}: the annotated copy moves lines"));
    }
    if cut_back(&copy, &insertions).as_deref() != Some(text) {
        tally.violation(format!(
            "{name}: cutting the attributes out does not give the user's text back"
        ));
    }
}

#[test]
fn robustness_annotation_sample() {
    annotation_properties(
        "robustness annotation (CI sample)",
        corpus(ANNOTATION_STRIDE),
    );
}

#[test]
#[ignore]
fn robustness_annotation_full_sweep() {
    annotation_properties("robustness annotation (full sweep)", corpus(1));
}
