//! Robustness property tests ("fuzzing") of the source rewrites, run over real Rust sources:
//! every `.rs` file of the cargo registry's sources (`~/.cargo/registry/src/*/`) and of the
//! workspace's `bench/corpus` and `examples`, sorted by path, without the files over 200 KB
//! and those syn cannot parse.
//!
//! - The repair stage's span rewrite ([`patch::locate`], [`patch::apply_edits`],
//!   [`patch::unified_diff`]): the expressions that have the shape of a site
//!   ([`autodebug_syntax::sites`]: conditions and their operands, `let` initializers,
//!   assigned values, returned values, arguments of call statements, a `for` range's
//!   bounds) are found again, replaced by
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
use autodebug_syntax::parseable;
use syn::spanned::Spanned;
use syn::{BinOp, Expr};

use crate::edit::site_kind;
use crate::repair::patch::{self, Edit};
use crate::zero::annotation::{self, ATTRIBUTE};

/// Files larger than this are left out of the corpus.
const MAX_BYTES: u64 = 200 * 1024;

/// CI sample of the span rewrite: every `PATCH_STRIDE`-th registry file, at most
/// `PATCH_SITES` sites per file, and fewer in large files (each site re-parses the file
/// several times): about `PATCH_BYTES` bytes of file per file.
const PATCH_STRIDE: usize = 40;
const PATCH_SITES: usize = 6;
const PATCH_BYTES: usize = 64 * 1024;
/// The full sweep: every file, at most this many sites per file (spread over the file),
/// fewer in files over `PATCH_BYTES_FULL / PATCH_SITES_FULL` bytes.
const PATCH_SITES_FULL: usize = 16;
const PATCH_BYTES_FULL: usize = 1024 * 1024;

/// CI sample of the attribute insertion: every `ANNOTATION_STRIDE`-th registry file.
const ANNOTATION_STRIDE: usize = 8;

/// Property violations and panics found in the product code and left in place (these
/// tests do not fix them), skipped so that the suite stays green. Sites of the span rewrite:
/// the corpus file (path suffix) and 1-based line. None found.
const KNOWN_PATCH_CASES: &[(&str, u32)] = &[];
/// Texts of the attribute insertion known to fail (names ending so): none now. The
/// byte-order-mark cases (`bom-*` edge cases) were: the mark shifted positions on line 1 by
/// one character until `LineIndex` started line 1 past it.
const KNOWN_ANNOTATION_FILES: &[&str] = &[];

/// Hand-written texts with what real files rarely have (a byte-order mark before the first
/// item, a shebang, no final newline, lone carriage returns, items sharing a line), tried
/// by every run before the corpus.
const EDGE_CASES: &[(&str, &str)] = &[
    (
        "bom-first-line",
        "\u{feff}fn f(a: u8) -> u8 { if a > 1 { return a - 1; } a }\n",
    ),
    (
        "bom-two-items-first-line",
        "\u{feff}fn a() {} fn b() -> u8 { 2 }\n",
    ),
    ("bom-inner-doc", "\u{feff}//! d\nfn f() {}\n"),
    ("inner-doc", "//! d\nfn f() {}\n"),
    (
        "shebang",
        "#!/usr/bin/env run-cargo-script\nfn main() { let x = 1 + 2; if x > 2 {} }\n",
    ),
    (
        "bom-shebang",
        "\u{feff}#!/usr/bin/env x\nfn f() -> u8 { let a = 1; a }\n",
    ),
    ("no-final-newline", "fn f(x: i32) -> i32 { x * 2 }"),
    (
        "items-sharing-a-line",
        "fn a() -> u8 { 1 } fn b(x: u8) -> u8 { if x < 2 { x } else { 2 } }\n",
    ),
    (
        "crlf-and-tabs",
        "fn f(x: i32) -> i32 {\r\n\tlet y = x\t+ 1;\r\n\ty\r\n}\r\n",
    ),
    ("lone-cr", "fn f() -> u8 {\r let a = 1;\r a }\n"),
    (
        "non-ascii",
        "/// Ünïcödé 🦀\nfn f(s: &str) -> usize { let n = s.len() /* é */ + 1; n }\n",
    ),
    (
        "inner-attributes",
        "#![allow(dead_code)]\n//! doc\nfn f() -> bool { let b = 1 < 2 && 3 > 2; b }\n",
    ),
    (
        "doc-and-attribute-on-the-line",
        "/// doc\n#[inline] fn f() -> u8 { 0 }\n",
    ),
    (
        "let-else",
        "fn f(o: Option<u8>) -> u8 { let Some(x) = o else { return 0 }; x }\n",
    ),
    (
        "cast-compared",
        "fn f(k: u16, b: u8) -> bool { let c = (k as u8) < b; c >= true }\n",
    ),
    (
        "comments-between-items",
        "/* a */ fn f() -> u8 { 1 } /* b */ fn g() -> u8 { 2 } // c\n",
    ),
    (
        "impl-and-trait",
        "struct S;\nimpl S { fn m(&self, x: u8) -> u8 { while x > 0 { return x; } 0 } }\n\
         trait T { fn d(&self) -> u8 { let mut v = 0; v += 1; v } }\n",
    ),
];

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
/// of the workspace's own, which are also tried with CRLF line endings and with a
/// byte-order mark (`true` for those).
fn corpus(stride: usize) -> Vec<(PathBuf, bool)> {
    let mut files: Vec<(PathBuf, bool)> = registry_files()
        .into_iter()
        .step_by(stride)
        .map(|p| (p, false))
        .collect();
    files.extend(own_files().into_iter().map(|p| (p, true)));
    files
}

/// A file's text and, for the workspace's own files, its variants: CRLF line endings, a
/// byte-order mark.
fn variants(name: &str, text: String, own: bool) -> Vec<(String, String)> {
    let mut out = Vec::new();
    if own {
        if !text.contains('\r') {
            out.push((format!("{name} [crlf]"), text.replace('\n', "\r\n")));
        }
        if !text.starts_with('\u{feff}') {
            out.push((format!("{name} [bom]"), format!("\u{feff}{text}")));
        }
    }
    out.insert(0, (name.to_string(), text));
    out
}

/// What is read of a corpus file.
enum Read {
    Text(String),
    TooLarge,
    NotUtf8,
}

/// A corpus file's text, unless it is too large or not UTF-8.
fn read(path: &Path) -> Read {
    match std::fs::metadata(path) {
        Ok(m) if m.len() > MAX_BYTES => return Read::TooLarge,
        _ => {}
    }
    match std::fs::read_to_string(path) {
        Ok(text) => Read::Text(text),
        Err(_) => Read::NotUtf8,
    }
}

/// Runs `check` on every text of `files` (and their variants), split over `threads` threads
/// with large stacks, and reports the merged tally. Span locations are dropped after each
/// check (each thread keeps those of every file it parsed otherwise).
fn sweep(
    title: &'static str,
    unit: &'static str,
    files: Vec<(PathBuf, bool)>,
    threads: usize,
    check: fn(&mut Tally, &str, &str),
) {
    let started = Instant::now();
    let files = std::sync::Arc::new(files);
    let handles: Vec<_> = (0..threads)
        .map(|t| {
            let files = files.clone();
            std::thread::Builder::new()
                .stack_size(512 << 20)
                .spawn(move || {
                    let mut tally = Tally::default();
                    if t == 0 {
                        for (name, text) in EDGE_CASES {
                            check(&mut tally, &format!("edge case {name}"), text);
                            proc_macro2::extra::invalidate_current_thread_spans();
                        }
                    }
                    for (path, own) in files.iter().skip(t).step_by(threads) {
                        let text = match read(path) {
                            Read::Text(text) => text,
                            Read::TooLarge => {
                                tally.too_large += 1;
                                continue;
                            }
                            Read::NotUtf8 => {
                                tally.unparsed += 1;
                                continue;
                            }
                        };
                        let name = path.display().to_string();
                        for (name, text) in variants(&name, text, *own) {
                            check(&mut tally, &name, &text);
                            proc_macro2::extra::invalidate_current_thread_spans();
                        }
                    }
                    tally
                })
                .expect("a thread")
        })
        .collect();
    let mut total = Tally::default();
    for handle in handles {
        let tally = handle
            .join()
            .unwrap_or_else(|e| std::panic::resume_unwind(e));
        total.merge(tally);
    }
    total.report(title, unit, started);
}

/// Threads of a full sweep.
fn all_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
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
    fn merge(&mut self, other: Tally) {
        self.files += other.files;
        self.too_large += other.too_large;
        self.unparsed += other.unparsed;
        self.sites += other.sites;
        self.rewrites += other.rewrites;
        self.invalid += other.invalid;
        self.refused += other.refused;
        self.panics += other.panics;
        self.violations += other.violations;
        self.known += other.known;
        let room = 40usize.saturating_sub(self.findings.len());
        self.findings.extend(other.findings.into_iter().take(room));
    }

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
        let rewrites = if self.rewrites > 0 {
            format!(
                ", {} rewrites ({} replacements not expressions, {} refused)",
                self.rewrites, self.invalid, self.refused
            )
        } else {
            String::new()
        };
        eprintln!(
            "{title}: {} files tried ({} over 200 KB, {} not UTF-8 or not parseable: left out), \
             {} {unit} tried{rewrites}, {} known cases skipped, {} panics, {} property \
             violations, {:.1} s",
            self.files,
            self.too_large,
            self.unparsed,
            self.sites,
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

// ----------------------------------------------------------------------------------------
// 1. The span rewrite of the repair stage

/// An expression that has the shape of a site.
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

/// The sites of a file's text (`None` when it does not parse), in the order of the walk.
fn find_sites(text: &str) -> Option<Vec<Found>> {
    let (offset, body) = parseable(text);
    let file: syn::File = syn::parse_str(&body).ok()?;
    let mut finder = Finder {
        offset,
        found: Vec::new(),
    };
    autodebug_syntax::sites::visit_file(&file, |shape, kind| {
        if let autodebug_syntax::sites::Shape::Expr(expr) = shape {
            finder.add(expr, site_kind(kind))
        }
    });
    Some(finder.found)
}

fn site_info(text: &str, found: &Found) -> SiteInfo {
    patch::site_at(text, found.bytes.clone(), found.kind)
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
    (text, functions): Source,
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
        statement: false,
    }];
    let after = match catch_unwind(AssertUnwindSafe(|| {
        patch::apply_edits_within(text, functions, &edits)
    })) {
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

/// The span-rewrite properties on one text, at most `cap` sites, about `budget` bytes of
/// text in all.
fn patch_file(tally: &mut Tally, name: &str, text: &str, cap: usize, budget: usize) {
    let found = catch_unwind(AssertUnwindSafe(|| find_sites(text)));
    proc_macro2::extra::invalidate_current_thread_spans();
    let Ok(Some(found)) = found else {
        tally.unparsed += 1;
        return;
    };
    tally.files += 1;
    let functions = catch_unwind(AssertUnwindSafe(|| patch::functions(text))).unwrap_or_default();
    let source = (text, functions.as_slice());
    let cap = (budget / text.len().max(1)).clamp(1, cap);
    for found in spread(found, cap) {
        let site = site_info(text, &found);
        let at = format!("{name}:{}:{} ({:?})", site.line, site.column, site.kind);
        if KNOWN_PATCH_CASES
            .iter()
            .any(|(file, line)| name.ends_with(file) && site.line == *line)
        {
            tally.known += 1;
            continue;
        }
        tally.sites += 1;
        patch_site(tally, &at, source, &site, &found);
        proc_macro2::extra::invalidate_current_thread_spans();
    }
}

/// A file's text and the byte ranges of its functions ([`patch::functions`]).
type Source<'a> = (&'a str, &'a [Range<usize>]);

fn patch_site(tally: &mut Tally, at: &str, source: Source, site: &SiteInfo, found: &Found) {
    let text = source.0;
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
        if let Some(after) = check_rewrite(tally, at, source, bytes, original, true)
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
        if let Some(after) = check_rewrite(tally, at, source, bytes, &replacement, true) {
            diff_properties(tally, at, text, &after);
        }
    }
    if let Some((op, new)) = &found.swap {
        let (from, to) = (op.start - bytes.start, op.end - bytes.start);
        let mutated = format!("{}{new}{}", &original[..from], &original[to..]);
        check_rewrite(tally, at, source, bytes, &mutated, false);
    }
}

/// `unified_diff` does not panic, is empty only for the same text, and its removed and
/// added lines are lines of the texts.
fn diff_properties(tally: &mut Tally, at: &str, before: &str, after: &str) {
    let diff = match catch_unwind(|| crate::edit::unified_diff("src/lib.rs", before, after)) {
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
    sweep(
        "robustness patch (CI sample)",
        "sites",
        corpus(PATCH_STRIDE),
        1,
        |tally, name, text| patch_file(tally, name, text, PATCH_SITES, PATCH_BYTES),
    );
}

#[test]
#[ignore]
fn robustness_patch_full_sweep() {
    sweep(
        "robustness patch (full sweep)",
        "sites",
        corpus(1),
        all_cores(),
        |tally, name, text| patch_file(tally, name, text, PATCH_SITES_FULL, PATCH_BYTES_FULL),
    );
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

/// The `autodebug_runtime` identifiers of a token stream (in groups too).
fn count_ours(tokens: proc_macro2::TokenStream) -> usize {
    tokens
        .into_iter()
        .map(|tt| match tt {
            proc_macro2::TokenTree::Group(g) => count_ours(g.stream()),
            proc_macro2::TokenTree::Ident(i) => usize::from(i == "autodebug_runtime"),
            _ => 0,
        })
        .sum()
}

/// The insertion properties on one text.
fn annotation_file(tally: &mut Tally, name: &str, text: &str) {
    if KNOWN_ANNOTATION_FILES.iter().any(|f| name.ends_with(f)) {
        tally.known += 1;
        return;
    }
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
        let line = copy.lines().nth(at.line.saturating_sub(1)).unwrap_or("");
        tally.violation(format!(
            "{name}: the annotated copy does not parse at {}:{}: {error}: {line:?}",
            at.line,
            at.column + 1
        ));
    }
    // Each attribute lands as tokens (not inside a comment, where it would instrument
    // nothing and change the comment).
    let ours = |t: &str| t.parse().ok().map(count_ours);
    if let (Some(after), Some(before)) = (ours(&copy), ours(text))
        && after.saturating_sub(before) != insertions.len()
    {
        let landed = after.saturating_sub(before);
        tally.violation(format!(
            "{name}: {} attributes inserted, {landed} of them as tokens",
            insertions.len()
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
    sweep(
        "robustness annotation (CI sample)",
        "insertions",
        corpus(ANNOTATION_STRIDE),
        1,
        annotation_file,
    );
}

#[test]
#[ignore]
fn robustness_annotation_full_sweep() {
    sweep(
        "robustness annotation (full sweep)",
        "insertions",
        corpus(1),
        all_cores(),
        annotation_file,
    );
}
