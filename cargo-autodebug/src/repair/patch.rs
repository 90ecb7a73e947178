//! Patches: a site's expression found again in its file with syn, exactly those bytes
//! replaced by a candidate's text, and the change shown as a unified diff that `git apply`
//! accepts. Every byte outside the replaced spans stays as it was (comments, formatting,
//! line endings, non-ASCII text).

use std::collections::BTreeMap;
use std::ops::{Range, RangeInclusive};

use anyhow::{Result, bail};
use autodebug_runtime::protocol::{SiteInfo, SiteKind};
use autodebug_syntax::{parseable, position};
use syn::Expr;
use syn::spanned::Spanned;
use syn::visit::{self, Visit};

/// Where a site's expression is in its file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    /// Byte range of the expression in the file's text.
    pub bytes: Range<usize>,
    /// The text of those bytes, as written (comments inside included).
    pub original: String,
}

/// One replacement in one file: the bytes of a located site and the text that goes there.
#[derive(Debug, Clone)]
pub struct Edit {
    pub bytes: Range<usize>,
    pub replacement: String,
    /// The replacement is statements (or nothing), not an expression: only the patched
    /// file must parse.
    pub statement: bool,
}

/// An expression of a parsed file: where it is (byte range, start and end as sites give
/// them) and which site kinds that position can be.
#[derive(Debug, Clone)]
struct Node {
    bytes: Range<usize>,
    start: (u32, u32),
    end: (u32, u32),
    /// `Binary`, `MethodCall`, … for messages.
    what: &'static str,
}

/// Every expression of a file, with the site roles of the positions that have one.
struct Index {
    nodes: Vec<Node>,
    roles: BTreeMap<(usize, usize), Vec<SiteKind>>,
    /// The items that did not parse (and are not in `nodes`), by line, with syn's error
    /// given at the file's line.
    left_out: Vec<(RangeInclusive<u32>, String)>,
}

impl Index {
    fn of(text: &str) -> Result<Index> {
        Index::of_part(text, 0)
    }

    /// The index of `text`, a part of a file after its first `lines_before` lines (the
    /// line of an error is the file's).
    fn of_part(text: &str, lines_before: u32) -> Result<Index> {
        let (offset, body) = parseable(text);
        let (mut file, left_out) = match autodebug_syntax::parse_file_by_item(&body) {
            Ok(parsed) => (parsed.file, parsed.left_out),
            Err(error) => {
                let at = position(error.span().start());
                bail!(
                    "does not parse at {}:{}: {error}",
                    at.0 + lines_before,
                    at.1
                )
            }
        };
        let mut visitor = Collector {
            offset,
            index: Index {
                nodes: Vec::new(),
                roles: BTreeMap::new(),
                left_out: left_out
                    .into_iter()
                    .map(|item| {
                        let reason = match item.reason.split_once(':') {
                            Some((line, rest)) => match line.parse::<u32>() {
                                Ok(line) => format!("{}:{rest}", line + lines_before),
                                Err(_) => item.reason.clone(),
                            },
                            None => item.reason.clone(),
                        };
                        (item.start.0..=item.end.0, reason)
                    })
                    .collect(),
            },
        };
        // The functions a `macro_rules!` writes: their expansions are instrumented with
        // the body's positions, so their sites are found (and patched) in the body.
        let written = autodebug_syntax::macro_rules_items(&file);
        file.items.extend(written);
        visitor.visit_file(&file);
        autodebug_syntax::sites::visit_file(&file, |expr, kind| {
            visitor.mark(&expr, crate::edit::site_kind(kind))
        });
        Ok(visitor.index)
    }

    fn roles_at(&self, bytes: &Range<usize>) -> &[SiteKind] {
        self.roles
            .get(&(bytes.start, bytes.end))
            .map_or(&[], Vec::as_slice)
    }
}

struct Collector {
    offset: usize,
    index: Index,
}

impl Collector {
    fn bytes(&self, node: &impl Spanned) -> Range<usize> {
        let range = node.span().byte_range();
        range.start + self.offset..range.end + self.offset
    }

    fn mark(&mut self, shape: &impl Spanned, kind: SiteKind) {
        let bytes = self.bytes(shape);
        self.index
            .roles
            .entry((bytes.start, bytes.end))
            .or_default()
            .push(kind);
    }
}

/// A name for an expression's syntax, for messages.
fn what(expr: &Expr) -> &'static str {
    match expr {
        Expr::Binary(_) => "binary expression",
        Expr::Unary(_) => "unary expression",
        Expr::Lit(_) => "literal",
        Expr::Path(_) => "path",
        Expr::MethodCall(_) => "method call",
        Expr::Call(_) => "call",
        Expr::Index(_) => "index expression",
        Expr::Field(_) => "field access",
        Expr::Paren(_) => "parenthesized expression",
        Expr::Cast(_) => "cast",
        Expr::If(_) => "`if`",
        Expr::Match(_) => "`match`",
        Expr::Block(_) => "block",
        Expr::Macro(_) => "macro call",
        Expr::Range(_) => "range",
        _ => "expression",
    }
}

impl<'ast> Visit<'ast> for Collector {
    fn visit_expr(&mut self, expr: &'ast Expr) {
        let span = expr.span();
        // An expression without a position (none in parsed text) cannot be a site.
        if span.start().line > 0 {
            self.index.nodes.push(Node {
                bytes: self.bytes(expr),
                start: position(span.start()),
                end: position(span.end()),
                what: what(expr),
            });
        }
        visit::visit_expr(self, expr);
    }
}

/// The kind of site a role is, as people read it.
fn kind_name(kind: SiteKind) -> &'static str {
    match kind {
        SiteKind::Fn => "function entry",
        SiteKind::If => "`if` condition",
        SiteKind::While => "`while` condition",
        SiteKind::Guard => "match guard",
        SiteKind::Operand => "operand of `&&`/`||`",
        SiteKind::Let => "`let` initializer",
        SiteKind::Assign => "assigned value",
        SiteKind::Compound => "right-hand side of a compound assignment",
        SiteKind::Return => "returned value",
        SiteKind::Arg => "argument of a call",
        SiteKind::Call => "call statement",
        SiteKind::Closure => "closure's value",
        SiteKind::Arm => "match arm's value",
        SiteKind::Loop => "loop",
        SiteKind::Bound => "loop bound",
        SiteKind::Start => "loop start",
        SiteKind::Requires => "precondition",
        SiteKind::Ensures => "postcondition",
        SiteKind::Invariant => "invariant",
    }
}

/// Tokens of code as text, for comparing code regardless of spacing and comments.
fn tokens(code: &str) -> Option<String> {
    code.parse::<proc_macro2::TokenStream>()
        .ok()
        .map(|t| t.to_string())
}

/// The name of the `macro_rules!` whose definition holds `line` of `text`, if one does.
fn macro_rules_at(text: &str, line: u32) -> Option<String> {
    struct Find {
        line: u32,
        found: Option<String>,
    }
    impl<'ast> Visit<'ast> for Find {
        fn visit_item_macro(&mut self, m: &'ast syn::ItemMacro) {
            let (start, end) = (m.span().start().line as u32, m.span().end().line as u32);
            if m.mac.path.is_ident("macro_rules") && start <= self.line && self.line <= end {
                self.found = m.ident.as_ref().map(ToString::to_string);
            }
        }
    }
    let (_, body) = autodebug_syntax::parseable(text);
    let file = autodebug_syntax::parse_file_by_item(&body).ok()?.file;
    let mut find = Find { line, found: None };
    find.visit_file(&file);
    find.found
}

/// Finds `site`'s expression in `text` (the file the site is in): the expression node that
/// starts and ends exactly where the site does and has the site's role (the condition of an
/// `if`, the right-hand side of an assignment, the end of a loop's range, …), and whose
/// tokens are the site's code. Anything else means the file is not the one the site was
/// recorded from, or the site is not an expression a patch can replace: an error that says
/// which.
pub fn locate(text: &str, site: &SiteInfo) -> Result<Located> {
    let index = Index::of(text)?;
    let (start, end) = ((site.line, site.column), (site.end_line, site.end_column));
    let at: Vec<&Node> = index
        .nodes
        .iter()
        .filter(|n| n.start == start && n.end == end)
        .collect();
    let Some(node) = at
        .iter()
        .find(|n| index.roles_at(&n.bytes).contains(&site.kind))
    else {
        match at.first() {
            None => match macro_rules_at(text, start.0) {
                Some(name) => bail!(
                    "{}:{} is in the body of `macro_rules! {name}`: the run saw its expansion, \
                     the file holds tokens, not an expression to patch",
                    start.0,
                    start.1,
                ),
                None if site.kind == SiteKind::Call
                    && syn::parse_str::<syn::Macro>(&site.code).is_ok() =>
                {
                    bail!(
                        "{}:{} is a macro statement (`{}`): the run saw its expansion, the \
                         file holds tokens, not an expression to patch",
                        start.0,
                        start.1,
                        site.code
                    )
                }
                None => bail!(
                    "no expression spans {}:{}–{}:{} (the file changed since the build?)",
                    start.0,
                    start.1,
                    end.0,
                    end.1
                ),
            },
            Some(node) => bail!(
                "the {} at {}:{} is not a {}",
                node.what,
                start.0,
                start.1,
                kind_name(site.kind)
            ),
        }
    };
    let original = text[node.bytes.clone()].to_string();
    let same = match (tokens(&original), tokens(&site.code)) {
        (Some(written), Some(recorded)) => written == recorded,
        _ => squeeze(&original) == squeeze(&site.code),
    };
    if !same && let Some(name) = macro_rules_at(text, start.0) {
        bail!(
            "{}:{} is in the body of `macro_rules! {name}`, which writes `{}` where the run \
             saw `{}`: the code of one expansion, not of the body to patch",
            start.0,
            start.1,
            original.lines().next().unwrap_or(""),
            site.code
        );
    }
    if !same {
        bail!(
            "{}:{} holds `{}`, the run recorded `{}` (the file changed since the build?)",
            start.0,
            start.1,
            original,
            site.code
        );
    }
    Ok(Located {
        bytes: node.bytes.clone(),
        original,
    })
}

/// The texts that open and close a group of tokens.
pub(crate) fn delimiters(d: proc_macro2::Delimiter) -> (&'static str, &'static str) {
    match d {
        proc_macro2::Delimiter::Parenthesis => ("(", ")"),
        proc_macro2::Delimiter::Brace => ("{", "}"),
        proc_macro2::Delimiter::Bracket => ("[", "]"),
        proc_macro2::Delimiter::None => ("", ""),
    }
}

/// `text` without the whitespace between its tokens (what is inside a string or character
/// literal counts: `" "` and `""` differ), for comparing two texts of code.
pub fn squeeze(text: &str) -> String {
    fn push(stream: proc_macro2::TokenStream, out: &mut String) {
        for token in stream {
            match token {
                proc_macro2::TokenTree::Group(g) => {
                    let (open, close) = delimiters(g.delimiter());
                    out.push_str(open);
                    push(g.stream(), out);
                    out.push_str(close);
                }
                // Two words in a row keep a space between them (`mut x`, `as i32`).
                proc_macro2::TokenTree::Ident(i) => {
                    if out.ends_with(|c: char| c.is_alphanumeric() || c == '_') {
                        out.push(' ');
                    }
                    out.push_str(&i.to_string());
                }
                other => out.push_str(&other.to_string()),
            }
        }
    }
    match text.parse::<proc_macro2::TokenStream>() {
        Ok(stream) => {
            let mut out = String::with_capacity(text.len());
            push(stream, &mut out);
            out
        }
        Err(_) => text.chars().filter(|c| !c.is_whitespace()).collect(),
    }
}

/// `text` with each edit's bytes replaced by its replacement. Edits must not overlap. The
/// result must parse, and each replacement must stand as one expression where it is put
/// (so `a && b` replacing an operand of `||` does not regroup its neighbours): a
/// replacement that would is parenthesized; one that still does not fit is an error.
/// Bytes outside the edits are copied unchanged.
pub fn apply_edits(text: &str, edits: &[Edit]) -> Result<String> {
    apply_edits_within(text, &functions(text), edits)
}

/// [`apply_edits`] with `text`'s functions already found ([`functions`]): a caller that
/// patches one text many times finds them once.
pub fn apply_edits_within(
    text: &str,
    functions: &[Range<usize>],
    edits: &[Edit],
) -> Result<String> {
    let mut sorted: Vec<&Edit> = edits.iter().collect();
    sorted.sort_by_key(|e| e.bytes.start);
    for pair in sorted.windows(2) {
        if pair[0].bytes.end > pair[1].bytes.start {
            bail!("two edits overlap");
        }
    }
    let mut texts: Vec<String> = Vec::with_capacity(sorted.len());
    for edit in &sorted {
        if edit.bytes.end > text.len()
            || !text.is_char_boundary(edit.bytes.start)
            || !text.is_char_boundary(edit.bytes.end)
        {
            bail!("edit outside the file");
        }
        if !edit.statement && syn::parse_str::<Expr>(&edit.replacement).is_err() {
            bail!("`{}` is not a Rust expression", edit.replacement);
        }
        texts.push(edit.replacement.clone());
    }
    // Only the functions the edits are in are parsed again (the rest of the file is as it
    // was, and a function parses alone as it does in its file): a suite's file of
    // thousands of tests is not parsed once per candidate.
    let Some(groups) = by_function(functions, &sorted) else {
        return fit(text, &sorted, texts, 0);
    };
    let mut out = String::with_capacity(text.len() + 64);
    let mut at = 0;
    let mut texts = texts.into_iter();
    for (window, count) in groups {
        let group: Vec<Edit> = sorted[..count]
            .iter()
            .map(|e| Edit {
                bytes: e.bytes.start - window.start..e.bytes.end - window.start,
                replacement: e.replacement.clone(),
                statement: e.statement,
            })
            .collect();
        sorted = sorted.split_off(count);
        let lines_before = text[..window.start].matches('\n').count() as u32;
        out.push_str(&text[at..window.start]);
        out.push_str(&fit(
            &text[window.clone()],
            &group.iter().collect::<Vec<_>>(),
            texts.by_ref().take(count).collect(),
            lines_before,
        )?);
        at = window.end;
    }
    out.push_str(&text[at..]);
    Ok(out)
}

/// The innermost function of each of the sorted `edits`, in order, with how many of the
/// edits are in it; `None` when an edit is in none, or in a function that holds another
/// edit's function.
fn by_function(functions: &[Range<usize>], edits: &[&Edit]) -> Option<Vec<(Range<usize>, usize)>> {
    let mut groups: Vec<(Range<usize>, usize)> = Vec::new();
    for edit in edits {
        let function = enclosing_function(functions, &edit.bytes)?;
        match groups.last_mut() {
            Some((last, count)) if *last == function => *count += 1,
            Some((last, _)) if function.start < last.end => return None,
            _ => groups.push((function, 1)),
        }
    }
    Some(groups)
}

/// `part` (a file, or a function of one after its first `lines_before` lines) with the
/// sorted edits' bytes replaced by `texts`, each replacement parenthesized where it does
/// not stand alone (or keeps the part from parsing: `a as u8 < b` needs parentheses).
fn fit(part: &str, sorted: &[&Edit], mut texts: Vec<String>, lines_before: u32) -> Result<String> {
    let mut wrapped = vec![false; texts.len()];
    loop {
        let (patched, ranges) = splice(part, sorted, &texts);
        // An edit inside an item that no longer parses is a parse error, not an item to
        // leave out.
        let parsed = Index::of_part(&patched, lines_before).and_then(|index| {
            let broken = index.left_out.iter().find(|(lines, _)| {
                ranges
                    .iter()
                    .any(|r| lines.contains(&(patched[..r.start].matches('\n').count() as u32 + 1)))
            });
            match broken {
                Some((_, reason)) => bail!("does not parse at {reason}"),
                None => Ok(index),
            }
        });
        let culprit =
            match parsed {
                Ok(index) => {
                    match ranges.iter().zip(sorted).position(|(r, e)| {
                        !e.statement && !index.nodes.iter().any(|n| &n.bytes == r)
                    }) {
                        None => return Ok(patched),
                        Some(i) if !wrapped[i] => i,
                        Some(i) => bail!(
                            "`{}` does not stand as one expression where it goes",
                            sorted[i].replacement
                        ),
                    }
                }
                Err(error) => match wrapped.iter().position(|w| !w) {
                    Some(i) => i,
                    None => bail!("the patched file {error}"),
                },
            };
        texts[culprit] = format!("({})", texts[culprit]);
        wrapped[culprit] = true;
    }
}

/// A fingerprint of `after`'s code, whitespace and comments aside, for a patch of `before`:
/// two patches of the same file have the same fingerprint when their code is the same.
/// Where the change is inside one function, only that function is read (the rest of the
/// file is `before`'s, and its place is in the fingerprint).
pub fn changed_code(before: &str, after: &str) -> String {
    changed_code_within(before, &functions(before), after)
}

/// [`changed_code`] with `before`'s functions already found ([`functions`]).
pub fn changed_code_within(before: &str, functions: &[Range<usize>], after: &str) -> String {
    let prefix = (before.bytes().zip(after.bytes()))
        .take_while(|(a, b)| a == b)
        .count();
    let suffix = (before.bytes().rev().zip(after.bytes().rev()))
        .take_while(|(a, b)| a == b)
        .count()
        .min(before.len().min(after.len()) - prefix);
    let (start, end) = (prefix, before.len() - suffix);
    let around = |at: usize| enclosing_function(functions, &(at..at));
    let window = match (around(start), around(end)) {
        (Some(first), Some(last)) if first.start <= start && end <= last.end => {
            Some(first.start..last.end.max(first.end))
        }
        _ => None,
    };
    match window {
        Some(window) => {
            let tail = before.len() - window.end;
            crate::edit::fingerprint(&format!(
                "{}..{}\n{}",
                window.start,
                tail,
                squeeze(&after[window.start..after.len() - tail])
            ))
        }
        None => crate::edit::fingerprint(&squeeze(after)),
    }
}

/// The innermost of `functions` (the byte ranges [`functions`] found in a text) that holds
/// all of `span`.
fn enclosing_function(functions: &[Range<usize>], span: &Range<usize>) -> Option<Range<usize>> {
    (functions.iter())
        .filter(|r| r.start <= span.start && span.end <= r.end)
        .min_by_key(|r| r.len())
        .cloned()
}

/// The byte ranges of `text`'s functions with a body (free functions, methods, trait
/// methods with a default, nested ones) that parse alone.
pub fn functions(text: &str) -> Vec<Range<usize>> {
    struct Functions {
        offset: usize,
        ranges: Vec<Range<usize>>,
    }
    impl Functions {
        fn add(&mut self, node: &impl Spanned) {
            let range = node.span().byte_range();
            self.ranges
                .push(range.start + self.offset..range.end + self.offset);
        }
    }
    impl<'ast> Visit<'ast> for Functions {
        fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
            self.add(f);
            visit::visit_item_fn(self, f);
        }
        fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
            self.add(f);
            visit::visit_impl_item_fn(self, f);
        }
        fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
            if f.default.is_some() {
                self.add(f);
            }
            visit::visit_trait_item_fn(self, f);
        }
    }
    let (offset, body) = parseable(text);
    let Ok(file) = autodebug_syntax::parse_file_by_item(&body).map(|b| b.file) else {
        return Vec::new();
    };
    let mut functions = Functions {
        offset,
        ranges: Vec::new(),
    };
    functions.visit_file(&file);
    // A function that does not parse as a file of its own (`default fn`, say) is left out:
    // its edits are checked in the whole file.
    // Each starts at the beginning of its line when only indentation is before it there,
    // so that a position in it has the column it has in the file.
    let mut ranges = functions.ranges;
    for range in &mut ranges {
        let line = text[..range.start].rfind('\n').map_or(0, |i| i + 1);
        if text[line..range.start]
            .chars()
            .all(|c| c == ' ' || c == '\t')
        {
            range.start = line;
        }
    }
    ranges.retain(|r| {
        text.get(r.clone())
            .is_some_and(|f| autodebug_syntax::parse_file(f).is_ok())
    });
    ranges
}

/// `text` with the sorted edits' bytes replaced by `texts`, and where each replacement
/// ended up.
fn splice(text: &str, sorted: &[&Edit], texts: &[String]) -> (String, Vec<Range<usize>>) {
    let mut out = String::with_capacity(text.len() + 64);
    let mut ranges = Vec::new();
    let mut at = 0;
    for (edit, replacement) in sorted.iter().zip(texts) {
        out.push_str(&text[at..edit.bytes.start]);
        let start = out.len();
        out.push_str(replacement);
        ranges.push(start..out.len());
        at = edit.bytes.end;
    }
    out.push_str(&text[at..]);
    (out, ranges)
}

/// The site of kind `kind` whose code is `bytes` of `text` (in `src/lib.rs`, function `f`),
/// as a run would record it (tests).
#[cfg(test)]
pub(crate) fn site_at(text: &str, bytes: Range<usize>, kind: SiteKind) -> SiteInfo {
    let (line, column) = autodebug_syntax::line_column(text, bytes.start);
    let (end_line, end_column) = autodebug_syntax::line_column(text, bytes.end);
    SiteInfo {
        file: "src/lib.rs".into(),
        line,
        column,
        end_line,
        end_column,
        kind,
        code: text[bytes].to_string(),
        function: "f".into(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn squeezed_texts_ignore_layout_but_not_literals() {
        assert_eq!(squeeze("a  +\n b"), squeeze("a+b"));
        assert_eq!(squeeze("let mut x = 1 as i32;"), "let mut x=1 as i32;");
        assert_ne!(squeeze("\" \".to_string()"), squeeze("\"\".to_string()"));
        assert_ne!(squeeze("' '"), squeeze("'_'"));
        assert_eq!(squeeze("f(x) // a comment"), squeeze("f( x )"));
    }

    use super::*;
    use crate::edit::{site_kind, unified_diff};

    #[test]
    fn a_patch_parses_the_functions_it_edits_and_keys_their_code() {
        let mut text = String::from(
            "fn f(x: u32) -> u32 {\n    if x == 7 { x + 1 } else { x }\n}\n\nimpl S {\n    fn g(&self, y: u32) -> bool {\n        y < 3\n    }\n}\n",
        );
        for i in 0..50 {
            text.push_str(&format!(
                "#[test]\nfn t{i}() {{\n    assert_eq!(f({i}), {i});\n}}\n"
            ));
        }
        let at = |code: &str| {
            let start = text.find(code).unwrap();
            start..start + code.len()
        };
        let edit = |code: &str, replacement: &str| Edit {
            bytes: at(code),
            replacement: replacement.into(),
            statement: false,
        };
        // The innermost function, from the start of its line.
        let g = text.find("    fn g").unwrap()..text.find("    }\n}").unwrap() + 5;
        let functions = functions(&text);
        assert_eq!(enclosing_function(&functions, &at("y < 3")), Some(g));
        assert_eq!(enclosing_function(&functions, &(0..text.len())), None);
        // Edits in two functions: each is parsed alone, the result is the whole file's.
        let two = [edit("x + 1", "x"), edit("y < 3", "y <= 3 || y == 9")];
        let patched = apply_edits(&text, &two).unwrap();
        assert_eq!(
            patched,
            text.replace("x + 1", "x")
                .replace("y < 3", "y <= 3 || y == 9")
        );
        // A replacement that regroups its neighbours is parenthesized in its function.
        let regrouping = apply_edits(&text, &[edit("x == 7", "x == 7 || x == 8")]).unwrap();
        assert!(regrouping.contains("if x == 7 || x == 8 {"), "{regrouping}");
        let y = at("y < 3").start;
        let cast = Edit {
            bytes: y..y + 1,
            replacement: "y as u8 as u32".into(),
            statement: false,
        };
        let cast = apply_edits(&text, &[cast]).unwrap();
        assert!(cast.contains("        (y as u8 as u32) < 3\n"), "{cast}");
        // Errors name the file's line and column, not the function's.
        let error = apply_edits(&text, &[edit("y: u32", "y as u8")]).unwrap_err();
        assert!(
            error.to_string().contains("does not parse at 6:20"),
            "{error}"
        );
        // The code key: the same code whatever the spacing, another code another key,
        // the same key as the whole file's comparison gives.
        let spaced = apply_edits(&text, &[edit("x + 1", "x+0")]).unwrap();
        let tight = apply_edits(&text, &[edit("x + 1", "x + 0")]).unwrap();
        let other = apply_edits(&text, &[edit("x + 1", "x + 2")]).unwrap();
        assert_eq!(changed_code(&text, &spaced), changed_code(&text, &tight));
        assert_ne!(changed_code(&text, &spaced), changed_code(&text, &other));
        assert_ne!(changed_code(&text, &patched), changed_code(&text, &tight));
        let outside = text.replace("impl S {", "impl  S {");
        assert_eq!(changed_code(&text, &outside), changed_code(&text, &text));
        assert_eq!(
            changed_code(&text, &text.replace("#[test]\nfn t3()", "fn t3()")),
            changed_code(&text, &text.replace("#[test]\nfn t3()", "fn   t3()"))
        );
    }

    /// The site of `code`, found as the first `code` inside the first `context` in `text`.
    fn site(text: &str, kind: SiteKind, context: &str, code: &str) -> SiteInfo {
        let at = text
            .find(context)
            .unwrap_or_else(|| panic!("no `{context}` in the text"));
        let start = at + context.find(code).expect("code inside its context");
        site_at(text, start..start + code.len(), kind)
    }

    /// Replaces the site and checks that every byte outside its span is unchanged and the
    /// result parses.
    fn rewrite(text: &str, site: &SiteInfo, replacement: &str) -> String {
        let located = locate(text, site).unwrap();
        let after = apply_edits(
            text,
            &[Edit {
                bytes: located.bytes.clone(),
                replacement: replacement.into(),
                statement: false,
            }],
        )
        .unwrap();
        let (start, end) = (located.bytes.start, located.bytes.end);
        assert_eq!(after.as_bytes()[..start], text.as_bytes()[..start]);
        let tail = text.len() - end;
        assert_eq!(
            after.as_bytes()[after.len() - tail..],
            text.as_bytes()[end..]
        );
        syn::parse_file(&after).unwrap();
        after
    }

    /// Comments, odd spacing, a tab, non-ASCII text before and inside lines.
    const ODD: &str = "// Ünïcödé comment: « max » — ok
use std::fmt;   // trailing comment

/// doc with `code` and émojis 🦀
pub fn max( x:i32,y :i32 )->i32{
    let mut r = x;   /* keep   this */
    if y   >   x /* odd */ {
\tr =   x ; // tab before
    }
    let s = \"ünï < x\";
    for i in 0..s.len()   - 1 { let _ = i; }
    r
}
";

    #[test]
    fn only_the_span_changes_in_oddly_formatted_non_ascii_text() {
        let s = site(ODD, SiteKind::Assign, "r =   x", "x");
        assert_eq!(s.line, 8);
        let after = rewrite(ODD, &s, "y");
        assert!(after.contains("\tr =   y ; // tab before\n"));
        assert_eq!(after.replace("r =   y", "r =   x"), ODD);
        let cond = site(ODD, SiteKind::If, "y   >   x", "y   >   x");
        let after = rewrite(ODD, &cond, "y >= x");
        assert!(after.contains("    if y >= x /* odd */ {\n"));
        let bound = site(ODD, SiteKind::Bound, "s.len()   - 1", "s.len()   - 1");
        let after = rewrite(ODD, &bound, "s.len()");
        assert!(after.contains("for i in 0..s.len() { let _"));
    }

    #[test]
    fn crlf_line_endings_are_kept() {
        let text = ODD.replace('\n', "\r\n");
        let s = site(&text, SiteKind::If, "y   >   x", "y   >   x");
        let after = rewrite(&text, &s, "y > x || x == y");
        assert_eq!(after.matches("\r\n").count(), text.matches("\r\n").count());
        assert!(!after.replace("\r\n", "").contains('\n'));
        assert!(after.contains("if y > x || x == y /* odd */ {\r\n"));
    }

    #[test]
    fn a_byte_order_mark_and_a_shebang_do_not_shift_positions() {
        let text = "\u{feff}#!/usr/bin/env run\nfn f(a: u8) -> u8 { let b = a + 1; b }\n";
        let s = site(text, SiteKind::Let, "a + 1", "a + 1");
        let after = rewrite(text, &s, "a + 2");
        assert_eq!(after, text.replace("a + 1", "a + 2"));
    }

    #[test]
    fn a_site_in_a_macros_body_is_patched_there_when_every_expansion_ran_its_code() {
        let text = "macro_rules! m {\n    ($t:ty) => {\n        fn f(x: $t) -> bool { x < 3 }\n        \
                    fn g(x: $t) -> bool { if x > 1 && x < <$t>::MAX { return true; } false }\n        $(fn h() { $x })*\n    };\n}\n\
                    m!(u8);\n";
        let s = site(text, SiteKind::Return, "{ x < 3 }", "x < 3");
        assert_eq!(locate(text, &s).unwrap().original, "x < 3");
        assert_eq!(rewrite(text, &s, "x <= 3"), text.replace("x < 3", "x <= 3"));
        // A replacement is parenthesized where the body's code needs it.
        let s = site(text, SiteKind::Operand, "if x > 1 && ", "x > 1");
        let after = rewrite(text, &s, "x > 1 || x == 0");
        assert!(
            after.contains("if (x > 1 || x == 0) && x < <$t>::MAX {"),
            "{after}"
        );
        // The expansion's code names the type the macro was given, the body its
        // parameter: the code of one expansion, not patched.
        let mut s = site(text, SiteKind::Operand, "x < <$t>::MAX", "x < <$t>::MAX");
        s.code = "x < <u8>::MAX".into();
        let error = locate(text, &s).unwrap_err().to_string();
        assert!(error.contains("in the body of `macro_rules! m`"), "{error}");
        assert!(
            error.contains("where the run saw `x < <u8>::MAX`"),
            "{error}"
        );
        // What does not read as Rust with the parameters as names is said to be there.
        let text = "macro_rules! m {\n    ($op:tt) => {\n        fn f(x: u8) -> bool { x $op 3 }\n    };\n}\n";
        let mut s = site_at(text, 0..5, SiteKind::Return);
        (s.line, s.column, s.end_line, s.end_column) = (3, 31, 3, 37);
        s.code = "x < 3".into();
        let error = locate(text, &s).unwrap_err().to_string();
        assert!(error.contains("in the body of `macro_rules! m`"), "{error}");
        assert!(error.contains("expansion, the file"), "{error}");
        let text = "fn f(mut n: u32) -> u32 {\n    bump!(n);\n    n\n}\n";
        let at = text.find("bump!(n)").unwrap();
        let statement = site_at(text, at..at + "bump!(n)".len(), SiteKind::Call);
        let error = locate(text, &statement).unwrap_err().to_string();
        assert!(
            error.contains("2:5 is a macro statement (`bump!(n)`)"),
            "{error}"
        );
    }

    #[test]
    fn comments_inside_the_span_match_the_recorded_code() {
        let text = "fn f(a: i32) -> i32 { let b = a /* one */ + 1; b }\n";
        let mut s = site(text, SiteKind::Let, "a /* one */ + 1", "a /* one */ + 1");
        s.code = "a + 1".into();
        assert_eq!(locate(text, &s).unwrap().original, "a /* one */ + 1");
    }

    #[test]
    fn roles_are_checked() {
        let text = "fn f(n: usize, v: &[i32]) -> i32 {\n\
    let mut t = 0;\n\
    for i in 0..n { t += v[i]; }\n\
    while t > 10 && n > 0 { t -= 1; }\n\
    match t { x if x < 0 => 0, _ => t }\n\
}\n";
        let check =
            |kind, context: &str, code: &str| locate(text, &site(text, kind, context, code));
        assert!(check(SiteKind::Bound, "0..n", "n").is_ok());
        assert!(check(SiteKind::Compound, "v[i]", "v[i]").is_ok());
        assert!(check(SiteKind::While, "t > 10 && n > 0", "t > 10 && n > 0").is_ok());
        assert!(check(SiteKind::Operand, "n > 0", "n > 0").is_ok());
        assert!(check(SiteKind::Guard, "x < 0", "x < 0").is_ok());
        assert!(check(SiteKind::Let, "= 0", "0").is_ok());
        assert!(check(SiteKind::Return, "_ => t", "t").is_ok());
        // Right position, wrong role: `n` in `0..n` is no `if` condition.
        let error = check(SiteKind::If, "0..n", "n").unwrap_err().to_string();
        assert!(error.contains("is not a `if` condition"), "{error}");
        // A span that is no expression at all.
        let mut s = site(text, SiteKind::Let, "= 0", "0");
        s.end_column += 1;
        assert!(locate(text, &s).is_err());
        // The file no longer holds what the run recorded.
        let mut s = site(text, SiteKind::Let, "= 0", "0");
        s.code = "1".into();
        let error = locate(text, &s).unwrap_err().to_string();
        assert!(error.contains("the run recorded `1`"), "{error}");
    }

    #[test]
    fn replacements_that_would_regroup_are_parenthesized() {
        let text = "fn f(a: bool, b: bool, c: bool) -> bool { if a && b { return true; } c }\n";
        let s = site(text, SiteKind::Operand, "&& b", "b");
        let after = rewrite(text, &s, "b || c");
        assert!(after.contains("if a && (b || c) {"), "{after}");
        let text = "fn f(n: usize, k: u8) { for i in 0..n { let _ = (i, k); } }\n";
        let s = site(text, SiteKind::Bound, "0..n", "n");
        assert!(rewrite(text, &s, "n - 1").contains("0..n - 1 {"));
        let text = "fn f(k: u8, b: u8) -> bool { let c = k < b; c }\n";
        let s = site(text, SiteKind::Let, "k < b", "k < b");
        assert!(rewrite(text, &s, "k as u8 <= b").contains("let c = k as u8 <= b;"));
        assert!(
            apply_edits(
                text,
                &[Edit {
                    bytes: 0..2,
                    replacement: "not rust (".into(),
                    statement: false
                }]
            )
            .is_err()
        );
    }

    #[test]
    fn several_edits_in_one_file() {
        let text = "fn f(x: i32) -> i32 { let a = x + 1; let b = a * 2; b }\n";
        let a = locate(text, &site(text, SiteKind::Let, "x + 1", "x + 1")).unwrap();
        let b = locate(text, &site(text, SiteKind::Let, "a * 2", "a * 2")).unwrap();
        let after = apply_edits(
            text,
            &[
                Edit {
                    bytes: b.bytes,
                    replacement: "a * 3".into(),
                    statement: false,
                },
                Edit {
                    bytes: a.bytes,
                    replacement: "x".into(),
                    statement: false,
                },
            ],
        )
        .unwrap();
        assert_eq!(
            after,
            "fn f(x: i32) -> i32 { let a = x; let b = a * 3; b }\n"
        );
    }

    #[test]
    fn the_kinds_of_the_site_rules_are_the_runtimes() {
        for (name, kind) in [
            ("If", SiteKind::If),
            ("Operand", SiteKind::Operand),
            ("Let", SiteKind::Let),
            ("Arg", SiteKind::Arg),
            ("Call", SiteKind::Call),
            ("Closure", SiteKind::Closure),
            ("Arm", SiteKind::Arm),
            ("Start", SiteKind::Start),
        ] {
            assert_eq!(site_kind(name), kind);
        }
    }

    #[test]
    fn unified_diff_is_accepted_by_git_apply() {
        let repo = tempfile::tempdir().unwrap();
        let git = |args: &[&str]| {
            let output = std::process::Command::new("git")
                .args(args)
                .current_dir(repo.path())
                .output()
                .expect("git runs");
            assert!(
                output.status.success(),
                "git {args:?}: {}",
                String::from_utf8_lossy(&output.stderr)
            );
        };
        git(&["init", "-q"]);
        for (name, text) in [
            ("src/lib.rs", ODD.to_string()),
            ("crlf/src/lib.rs", ODD.replace('\n', "\r\n")),
            // No newline at the end of the file.
            ("tail/src/lib.rs", ODD.trim_end().to_string()),
        ] {
            let path = repo.path().join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &text).unwrap();
            let s = site(&text, SiteKind::Return, "    r", "r");
            let after = rewrite(&text, &s, "r.max(y)");
            let diff = unified_diff(name, &text, &after);
            assert!(diff.starts_with(&format!("--- a/{name}\n+++ b/{name}\n@@ ")));
            let patch = repo.path().join("fix.patch");
            std::fs::write(&patch, &diff).unwrap();
            git(&["apply", "--check", "fix.patch"]);
            git(&["apply", "fix.patch"]);
            assert_eq!(std::fs::read_to_string(&path).unwrap(), after);
        }
        assert_eq!(unified_diff("x.rs", "same\n", "same\n"), "");
    }
}
