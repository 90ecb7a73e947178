//! Where the instrumentation attribute goes in a file nobody annotated. Every function and
//! method the crate defines outside its tests gets `#[::autodebug_runtime::autodebug]` (an
//! `impl` block gets one for all its methods), inserted in the blank, comment or attribute
//! space before the item so that no line moves and, wherever the item does not share a line
//! with the code before it, no token of the user's either: sites, panics and fixes keep the
//! user's coordinates. The user's text is only read; [`annotated`] makes the copy's text.

use autodebug_syntax::LineIndex;
use proc_macro2::{LineColumn, TokenStream, TokenTree};
use quote::ToTokens;
use syn::{Attribute, ImplItem, Item, ItemImpl, ItemTrait, Signature, TraitItem};

/// The attribute inserted (the runtime re-exports the macro; the leading `::` names the
/// dependency even where a module of the same name is in scope).
pub const ATTRIBUTE: &str = "#[::autodebug_runtime::autodebug]";

/// The attribute put on the `#[test]` functions of the copy (before their other
/// attributes): through it one test process can run the test under many plans (a batch),
/// instead of one process per plan.
pub const TEST_ATTRIBUTE: &str = "#[::autodebug_runtime::autodebug_test]";

/// [`ATTRIBUTE`] and [`TEST_ATTRIBUTE`] as an edition-2015 crate writes them: there a path
/// that starts with `::` starts at the crate root, which declares no such crate; the
/// dependency's name alone finds it in the extern prelude.
const ATTRIBUTES_2015: [(&str, &str); 2] = [
    (ATTRIBUTE, "#[autodebug_runtime::autodebug]"),
    (TEST_ATTRIBUTE, "#[autodebug_runtime::autodebug_test]"),
];

/// Whether `text` (cut out of a copy) holds one of the attributes this module inserts.
pub fn holds_attribute(text: &str) -> bool {
    // Without the closing bracket: an attribute with a skip list holds arguments there.
    let opening = |attribute: &'static str| attribute.trim_end_matches(']');
    ATTRIBUTES_2015
        .iter()
        .any(|(ours, ours_2015)| text.contains(opening(ours)) || text.contains(opening(ours_2015)))
}

/// Names of the tool's own attributes: an item carrying one (from this tool, or an
/// attribute of another crate with the same name, which the macro would take for its own)
/// is left alone.
const OURS: [&str; 10] = [
    "autodebug",
    "requires",
    "ensures",
    "invariant",
    "debug_requires",
    "debug_ensures",
    "debug_invariant",
    "test_requires",
    "test_ensures",
    "test_invariant",
];

/// Attributes that make a function a test (of libtest or of a test framework).
const TEST_ATTRIBUTES: [&str; 6] = [
    "test",
    "bench",
    "rstest",
    "quickcheck",
    "proptest",
    "test_case",
];

/// One attribute to insert into a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Insertion {
    /// Byte offset in the user's text.
    pub offset: usize,
    /// 1-based line of the offset.
    pub line: u32,
    /// 1-based character column of the offset.
    pub column: u32,
    /// The inserted text: the attribute, with a space on a side that touches other text.
    pub text: String,
    /// Whether a token of the user's follows on the same line (its column moves): only for
    /// an item that shares its line with the code before it.
    pub moves_tokens: bool,
    /// First and last line of what the attribute covers (the attribute's own line included).
    pub lines: (u32, u32),
    /// What it annotates, for people (`max`, `impl Stack`).
    pub item: String,
    /// Functions it instruments.
    pub functions: usize,
}

impl Insertion {
    /// Width of the inserted text in characters.
    pub fn width(&self) -> u32 {
        self.text.chars().count() as u32
    }

    /// Adds `points` (line, column) to the attribute's skip list
    /// (`#[::autodebug_runtime::autodebug(skip = "12:17 30:5")]`): the innermost site holding
    /// each is left as written. Columns on the attribute's own line would move with the
    /// list's text; such a point is refused (`false`).
    pub fn skip(&mut self, points: &[(u32, u32)]) -> bool {
        if points
            .iter()
            .any(|&(line, _)| line == self.line && self.moves_tokens)
        {
            return false;
        }
        const PATH: &str = "autodebug_runtime::autodebug";
        const OPEN: &str = "(skip = \"";
        let Some(at) = self.text.find(PATH).map(|at| at + PATH.len()) else {
            return false;
        };
        let after = &self.text[at..];
        let (mut list, rest): (Vec<String>, &str) = match after.strip_prefix(OPEN) {
            Some(inner) => {
                let Some(close) = inner.find("\")]") else {
                    return false;
                };
                let list = inner[..close].split_whitespace().map(str::to_string);
                (list.collect(), &inner[close + 3..])
            }
            None => match after.strip_prefix(']') {
                Some(rest) => (Vec::new(), rest),
                None => return false,
            },
        };
        list.extend(points.iter().map(|(l, c)| format!("{l}:{c}")));
        self.text = format!("{}{OPEN}{}\")]{rest}", &self.text[..at], list.join(" "));
        true
    }
}

/// A `mod name;` declaration: its module lives in another file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModuleDecl {
    /// Names of the inline modules (`mod a { … }`) the declaration is inside.
    pub parents: Vec<String>,
    /// The module's name.
    pub name: String,
    /// Its `#[path = "…"]`, if any.
    pub path: Option<String>,
}

/// What one file gets: its attributes, in text order, and the modules it declares.
#[derive(Debug, Default)]
pub struct FilePlan {
    pub insertions: Vec<Insertion>,
    pub modules: Vec<ModuleDecl>,
    /// Functions not annotated, and why (`name: unsafe`), for `-v`.
    pub skipped: Vec<String>,
    /// [`Mode::Tests`]: the first item of the file that keeps state in the process from
    /// one run of a test to the next (a `static` with interior mutability, a `static mut`,
    /// `thread_local!`, `lazy_static!`, a call setting the working directory, an
    /// environment variable or the panic hook), as `` `NAME` at line N ``.
    pub keeps_state: Option<String>,
    /// Items that do not parse even as an older edition's code: left as they are, the rest
    /// of the file instrumented.
    pub unparsed: Vec<autodebug_syntax::LeftOutItem>,
}

impl FilePlan {
    /// Makes the plan that of a file of an edition-2015 crate (see [`ATTRIBUTES_2015`]).
    pub fn for_edition_2015(&mut self) {
        for insertion in &mut self.insertions {
            for (ours, ours_2015) in ATTRIBUTES_2015 {
                insertion.text = insertion.text.replace(ours, ours_2015);
            }
        }
    }
}

/// What a plan puts attributes on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Functions and methods outside the tests: [`ATTRIBUTE`].
    Functions,
    /// Plain libtest `#[test]` functions, in test modules too: [`TEST_ATTRIBUTE`].
    Tests,
}

/// Plans the instrumentation attributes of a file's text (an error when it does not parse:
/// the compiler will say more).
pub fn plan(text: &str) -> syn::Result<FilePlan> {
    plan_for(text, Mode::Functions)
}

/// Plans the test attributes of a file's text; its modules are all of them, those gated
/// on `cfg(test)` included.
pub fn plan_tests(text: &str) -> syn::Result<FilePlan> {
    plan_for(text, Mode::Tests)
}

fn plan_for(text: &str, mode: Mode) -> syn::Result<FilePlan> {
    let autodebug_syntax::ByItem { file, left_out } = autodebug_syntax::parse_file_by_item(text)?;
    let lines = LineIndex::new(text);
    let left_out_ends = left_out
        .iter()
        .filter_map(|l| lines.offset_at(l.end.0, l.end.1))
        .collect();
    let mut planner = Planner {
        text,
        lines,
        plan: FilePlan {
            unparsed: left_out,
            ..FilePlan::default()
        },
        mode,
        left_out_ends,
    };
    // The first item follows the inner attributes (`#![…]`, `//!`), or a `#!` line.
    let mut start = Gap {
        offset: 0,
        in_line_comment: text.starts_with("#!") && !text.starts_with("#!["),
        after_token: false,
    };
    for attr in &file.attrs {
        if let Some((_, end)) = planner.extent(attr) {
            start = planner.gap_after(attr, end);
        }
    }
    planner.items(&file.items, start, &[]);
    // The items inside a function's body come after the function's own attribute.
    (planner.plan.insertions).sort_by_key(|insertion| insertion.offset);
    if mode == Mode::Tests {
        let mut finder = StateFinder(None);
        syn::visit::Visit::visit_file(&mut finder, &file);
        planner.plan.keeps_state = finder.0;
    }
    Ok(planner.plan)
}

/// The blocks of a function's body that declare items (not entering those items, whose
/// own bodies are planned with them).
struct BlocksWithItems<'a, 'ast>(&'a mut Vec<&'ast syn::Block>);

impl<'ast> syn::visit::Visit<'ast> for BlocksWithItems<'_, 'ast> {
    fn visit_block(&mut self, block: &'ast syn::Block) {
        if block.stmts.iter().any(|s| matches!(s, syn::Stmt::Item(_))) {
            self.0.push(block);
        }
        syn::visit::visit_block(self, block);
    }

    fn visit_item(&mut self, _: &'ast Item) {}
}

/// Finds the first item that keeps state across runs in one process (see
/// [`FilePlan::keeps_state`]).
struct StateFinder(Option<String>);

/// Functions that change what the whole process sees from then on (its working directory,
/// its environment, its panic hook).
const PROCESS_SETTERS: [&str; 4] = ["set_current_dir", "set_var", "remove_var", "set_hook"];

/// Types whose statics change while the process runs.
const STATEFUL_TYPES: [&str; 11] = [
    "Mutex",
    "RwLock",
    "Cell",
    "RefCell",
    "UnsafeCell",
    "OnceCell",
    "OnceLock",
    "Once",
    "Lazy",
    "LazyLock",
    "LazyCell",
];

impl<'ast> syn::visit::Visit<'ast> for StateFinder {
    fn visit_item_static(&mut self, item: &'ast syn::ItemStatic) {
        let stateful = matches!(item.mutability, syn::StaticMutability::Mut(_))
            || mentions_type(item.ty.to_token_stream());
        if stateful && self.0.is_none() {
            let line = item.ident.span().start().line;
            self.0 = Some(format!("`static {}` at line {line}", item.ident));
        }
        syn::visit::visit_item_static(self, item);
    }

    fn visit_expr_call(&mut self, call: &'ast syn::ExprCall) {
        if let syn::Expr::Path(path) = &*call.func
            && let Some(last) = path.path.segments.last()
            && PROCESS_SETTERS.contains(&last.ident.to_string().as_str())
            && self.0.is_none()
        {
            let line = last.ident.span().start().line;
            self.0 = Some(format!("`{}` at line {line}", last.ident));
        }
        syn::visit::visit_expr_call(self, call);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        let name = mac.path.segments.last().map(|s| s.ident.to_string());
        if let Some(name) = name.filter(|n| n == "thread_local" || n == "lazy_static")
            && self.0.is_none()
        {
            let line = mac.path.segments[0].ident.span().start().line;
            self.0 = Some(format!("`{name}!` at line {line}"));
        }
    }
}

/// Whether a type names one of [`STATEFUL_TYPES`] or an atomic.
fn mentions_type(tokens: TokenStream) -> bool {
    tokens.into_iter().any(|tt| match tt {
        proc_macro2::TokenTree::Ident(i) => {
            let i = i.to_string();
            STATEFUL_TYPES.contains(&i.as_str()) || i.starts_with("Atomic")
        }
        proc_macro2::TokenTree::Group(g) => mentions_type(g.stream()),
        _ => false,
    })
}

/// `text` with the insertions made (they are in text order).
pub fn annotated(text: &str, insertions: &[Insertion]) -> String {
    let mut out = String::with_capacity(text.len() + insertions.len() * (ATTRIBUTE.len() + 2));
    let mut at = 0;
    for insertion in insertions {
        out.push_str(&text[at..insertion.offset]);
        out.push_str(&insertion.text);
        at = insertion.offset;
    }
    out.push_str(&text[at..]);
    out
}

/// Where a gap between tokens starts.
#[derive(Clone, Copy, Debug)]
struct Gap {
    offset: usize,
    /// The gap starts inside a line comment (after a `///`/`//!` doc comment or `#!`).
    in_line_comment: bool,
    /// A token of the user's precedes it (not the start of the file).
    after_token: bool,
}

struct Planner<'a> {
    text: &'a str,
    lines: LineIndex<'a>,
    plan: FilePlan,
    mode: Mode,
    /// Byte offsets just past the items left out ([`FilePlan::unparsed`]): the code between
    /// two parsed items is no gap to insert into.
    left_out_ends: Vec<usize>,
}

impl Planner<'_> {
    /// Start and end byte offsets of a node's tokens.
    fn extent(&self, node: &impl ToTokens) -> Option<(usize, usize)> {
        extent(node.to_token_stream()).map(|(start, end)| {
            (
                self.lines.offset(start).unwrap_or(0),
                self.lines.offset(end).unwrap_or(self.text.len()),
            )
        })
    }

    /// The gap after a node ending at `end` (a doc comment written `///` or `//!` runs to
    /// the end of its line).
    fn gap_after(&self, node: &impl ToTokens, end: usize) -> Gap {
        let start = self.extent(node).map_or(end, |(s, _)| s);
        Gap {
            offset: end,
            in_line_comment: self.text[start..].starts_with("//"),
            after_token: true,
        }
    }

    /// The gap at the start of a braced body (after its inner attributes).
    fn body_start(&self, brace_open_end: usize, attrs: &[Attribute]) -> Gap {
        let mut gap = Gap {
            offset: brace_open_end,
            in_line_comment: false,
            after_token: true,
        };
        for attr in attrs {
            if let Some((start, end)) = self.extent(attr)
                && start >= brace_open_end
            {
                gap = self.gap_after(attr, end);
            }
        }
        gap
    }

    /// `gap` moved past the items left out before `start` (the start of the next item).
    fn past_left_out(&self, gap: Gap, start: usize) -> Gap {
        match self.left_out_ends.iter().filter(|&&end| end <= start).max() {
            Some(&end) if end > gap.offset => Gap {
                offset: end,
                in_line_comment: false,
                after_token: true,
            },
            _ => gap,
        }
    }

    /// Whether an item left out lies inside `node` (an `impl` block or a trait).
    fn holds_left_out(&self, node: &impl ToTokens) -> bool {
        let Some((start, end)) = extent(node.to_token_stream()) else {
            return false;
        };
        (self.plan.unparsed.iter()).any(|l| l.within(start.line as u32, end.line as u32))
    }

    fn items(&mut self, items: &[Item], mut gap: Gap, parents: &[String]) {
        for item in items {
            let Some((start, end)) = self.extent(item) else {
                continue;
            };
            let gap_before = self.past_left_out(gap, start);
            self.item(item, gap_before, parents);
            gap = Gap {
                offset: end,
                in_line_comment: false,
                after_token: true,
            };
        }
    }

    /// Plans the attribute for one item (a function, an `impl` block, a trait's provided
    /// methods) after `gap`, and enters modules.
    fn item(&mut self, item: &Item, gap: Gap, parents: &[String]) {
        if self.mode == Mode::Tests {
            return self.test_item(item, gap, parents);
        }
        match item {
            Item::Fn(f) => {
                let name = f.sig.ident.to_string();
                match refusal(&f.attrs, &f.sig, Some(&f.block)) {
                    Some(why) => self.plan.skipped.push(format!("{name}: {why}")),
                    None => {
                        let mut head = f.clone();
                        head.attrs.clear();
                        self.insert(gap, &f.attrs, &head, item, name, 1);
                    }
                }
                if plans_nested(&f.attrs) {
                    self.nested_items(&f.block, &f.attrs);
                }
            }
            Item::Impl(imp) => self.impl_block(imp, item, gap),
            Item::Trait(t) => self.trait_block(t),
            Item::Macro(m) if m.mac.path.is_ident("macro_rules") => self.macro_rules(m),
            Item::Mod(m) if !test_only(&m.attrs) => self.module(m, parents),
            _ => {}
        }
    }

    /// An `impl` block: one attribute on the block when every method can be instrumented,
    /// else one on each method that can.
    fn impl_block(&mut self, imp: &ItemImpl, item: &Item, gap: Gap) {
        if test_only(&imp.attrs) || imp.attrs.iter().any(is_ours) {
            return;
        }
        let type_name = imp.self_ty.to_token_stream().to_string().replace(' ', "");
        let mut eligible = 0;
        // A method that does not parse would make the whole block fail in the macro.
        let mut blocking = self.holds_left_out(imp);
        for member in &imp.items {
            if let ImplItem::Fn(m) = member {
                let why = refusal(&m.attrs, &m.sig, Some(&m.block)).or_else(|| {
                    m.modifiers
                        .defaultness
                        .is_some()
                        .then(|| "`default fn`".to_string())
                });
                match why {
                    None => eligible += 1,
                    // The macro leaves a const fn alone: no reason to split the block.
                    Some(_) if m.sig.constness.is_some() && !m.attrs.iter().any(is_ours) => {}
                    Some(why) => {
                        blocking = true;
                        self.plan
                            .skipped
                            .push(format!("{type_name}::{}: {why}", m.sig.ident));
                    }
                }
            }
        }
        for member in &imp.items {
            if let ImplItem::Fn(m) = member
                && plans_nested(&m.attrs)
            {
                self.nested_items(&m.block, &m.attrs);
            }
        }
        if eligible == 0 {
            return;
        }
        if !blocking {
            let mut head = imp.clone();
            head.attrs.clear();
            self.insert(
                gap,
                &imp.attrs,
                &head,
                item,
                format!("impl {type_name}"),
                eligible,
            );
            return;
        }
        // Some method cannot be instrumented: the others get an attribute each.
        let Some(open) = self.brace_open_end(imp.brace_token.span.open()) else {
            return;
        };
        let mut gap = self.body_start(open, &imp.attrs);
        for member in &imp.items {
            let Some((start, end)) = self.extent(member) else {
                continue;
            };
            let before = self.past_left_out(gap, start);
            if let ImplItem::Fn(m) = member
                && refusal(&m.attrs, &m.sig, Some(&m.block)).is_none()
                && m.modifiers.defaultness.is_none()
            {
                let mut head = m.clone();
                head.attrs.clear();
                let name = format!("{type_name}::{}", m.sig.ident);
                self.insert(before, &m.attrs, &head, member, name, 1);
            }
            gap = Gap {
                offset: end,
                in_line_comment: false,
                after_token: true,
            };
        }
    }

    /// A trait: an attribute on each provided method that can be instrumented.
    fn trait_block(&mut self, t: &ItemTrait) {
        if test_only(&t.attrs) {
            return;
        }
        let Some(open) = self.brace_open_end(t.brace_token.span.open()) else {
            return;
        };
        let mut gap = self.body_start(open, &t.attrs);
        for member in &t.items {
            let Some((start, end)) = self.extent(member) else {
                continue;
            };
            let before = self.past_left_out(gap, start);
            if let TraitItem::Fn(m) = member
                && m.default.is_some()
            {
                let name = format!("{}::{}", t.ident, m.sig.ident);
                match refusal(&m.attrs, &m.sig, m.default.as_ref()) {
                    Some(why) => self.plan.skipped.push(format!("{name}: {why}")),
                    None => {
                        let mut head = m.clone();
                        head.attrs.clear();
                        self.insert(before, &m.attrs, &head, member, name, 1);
                    }
                }
                if let Some(body) = &m.default
                    && plans_nested(&m.attrs)
                {
                    self.nested_items(body, &m.attrs);
                }
            }
            gap = Gap {
                offset: end,
                in_line_comment: false,
                after_token: true,
            };
        }
    }

    /// The functions, `impl` blocks and traits declared in a function's body, in any of its
    /// blocks (a helper `fn` inside a function, an `impl` of a local type): planned as the
    /// items around them are, each by an attribute of its own (the function's own
    /// attribute leaves the items of its body as they are). `attrs` are the function's, its
    /// inner ones included.
    fn nested_items(&mut self, body: &syn::Block, attrs: &[Attribute]) {
        let mut blocks = Vec::new();
        syn::visit::Visit::visit_block(&mut BlocksWithItems(&mut blocks), body);
        for block in blocks {
            let Some(open) = self.brace_open_end(block.brace_token.span.open()) else {
                continue;
            };
            let inner = if std::ptr::eq(block, body) {
                attrs
            } else {
                &[]
            };
            let mut gap = self.body_start(open, inner);
            for stmt in &block.stmts {
                let Some((start, end)) = self.extent(stmt) else {
                    continue;
                };
                if let syn::Stmt::Item(item @ (Item::Fn(_) | Item::Impl(_) | Item::Trait(_))) = stmt
                {
                    self.item(item, self.past_left_out(gap, start), &[]);
                }
                gap = Gap {
                    offset: end,
                    in_line_comment: false,
                    after_token: true,
                };
            }
        }
    }

    /// A `macro_rules!` of the crate's own (not exported: other crates that expand it do
    /// not depend on the runtime): each function and `impl` block its rules write, at the
    /// top of a rule's body or of a repetition in it, gets the attribute there, so that
    /// every expansion is instrumented with the body's own lines.
    fn macro_rules(&mut self, m: &syn::ItemMacro) {
        let exported =
            (m.attrs.iter()).any(|a| last_segment(a).is_some_and(|s| s == "macro_export"));
        if exported || test_only(&m.attrs) || m.attrs.iter().any(is_ours) {
            return;
        }
        let name = m
            .ident
            .as_ref()
            .map_or_else(String::new, ToString::to_string);
        let rules: Vec<TokenTree> = m.mac.tokens.clone().into_iter().collect();
        for pair in rules.windows(3) {
            if let [_, TokenTree::Punct(arrow), TokenTree::Group(body)] = pair
                && arrow.as_char() == '>'
            {
                self.macro_body(body, &name);
            }
        }
    }

    /// The items at the top of a rule's body, or of a repetition (`$( … )*`) in it.
    fn macro_body(&mut self, body: &proc_macro2::Group, name: &str) {
        let tokens: Vec<TokenTree> = body.stream().into_iter().collect();
        let Some(mut gap) = self.lines.offset(body.span_open().end()) else {
            return;
        };
        let mut i = 0;
        while i < tokens.len() {
            match macro_item(&tokens[i..]) {
                Some(MacroItem::Instrumented {
                    len,
                    functions,
                    impl_block,
                }) => {
                    let item: TokenStream = tokens[i..i + len].iter().cloned().collect();
                    let at = Gap {
                        offset: gap,
                        in_line_comment: false,
                        after_token: true,
                    };
                    let what = format!("macro_rules! {name}");
                    self.insert(at, &[], &item, &item, what, functions);
                    self.macro_bodies(&tokens[i + len - 1], impl_block, name);
                    i += len;
                }
                Some(MacroItem::Other { len }) => i += len,
                None => {
                    // A repetition: its items are at the top of the group after the `$`.
                    if let (TokenTree::Punct(dollar), Some(TokenTree::Group(group))) =
                        (&tokens[i], tokens.get(i + 1))
                        && dollar.as_char() == '$'
                        && group.delimiter() == proc_macro2::Delimiter::Parenthesis
                    {
                        self.macro_body(group, name);
                        i += 1;
                    }
                    i += 1;
                }
            }
            if let Some(end) = tokens
                .get(i.saturating_sub(1))
                .and_then(|t| self.lines.offset(t.span().end()))
            {
                gap = end;
            }
        }
    }

    /// The bodies of the functions a macro's item writes (`body`: the function's body, or
    /// an `impl` block's): the functions declared in them get attributes of their own
    /// ([`Planner::macro_nested`]).
    fn macro_bodies(&mut self, body: &TokenTree, impl_block: bool, name: &str) {
        let TokenTree::Group(body) = body else {
            return;
        };
        if !impl_block {
            return self.macro_nested(body, name);
        }
        // A method's body is a brace group at the top level of the block.
        for member in body.stream() {
            if let TokenTree::Group(g) = &member
                && g.delimiter() == proc_macro2::Delimiter::Brace
            {
                self.macro_nested(g, name);
            }
        }
    }

    /// The functions declared at the start of a statement anywhere in a function body a
    /// macro writes (the token-level [`Planner::nested_items`]).
    fn macro_nested(&mut self, body: &proc_macro2::Group, name: &str) {
        let tokens: Vec<TokenTree> = body.stream().into_iter().collect();
        let Some(mut gap) = self.lines.offset(body.span_open().end()) else {
            return;
        };
        let mut at_statement = true;
        let mut i = 0;
        while i < tokens.len() {
            if at_statement
                && declares_fn(&tokens[i..])
                && let Some(MacroItem::Instrumented {
                    len,
                    functions,
                    impl_block,
                }) = macro_item(&tokens[i..])
            {
                let item: TokenStream = tokens[i..i + len].iter().cloned().collect();
                let at = Gap {
                    offset: gap,
                    in_line_comment: false,
                    after_token: true,
                };
                self.insert(
                    at,
                    &[],
                    &item,
                    &item,
                    format!("macro_rules! {name}"),
                    functions,
                );
                self.macro_bodies(&tokens[i + len - 1], impl_block, name);
                i += len;
            } else {
                at_statement = match &tokens[i] {
                    TokenTree::Group(g) => {
                        self.macro_nested(g, name);
                        g.delimiter() == proc_macro2::Delimiter::Brace
                    }
                    TokenTree::Punct(p) => p.as_char() == ';',
                    _ => false,
                };
                i += 1;
            }
            if let Some(end) = self.lines.offset(tokens[i - 1].span().end()) {
                gap = end;
            }
        }
    }

    /// [`Mode::Tests`]: a plain test gets the attribute before all of its own (so that the
    /// macro sees `#[test]` and `#[should_panic]`); modules are entered, test modules too.
    fn test_item(&mut self, item: &Item, gap: Gap, parents: &[String]) {
        match item {
            Item::Fn(f) if plain_test(f) => {
                self.insert(gap, &[], item, item, f.sig.ident.to_string(), 0);
            }
            Item::Mod(m) => self.module(m, parents),
            _ => {}
        }
    }

    /// A module: declared here and written in another file (listed), or inline (entered).
    fn module(&mut self, m: &syn::ItemMod, parents: &[String]) {
        let name = m.ident.to_string();
        let name = name.strip_prefix("r#").unwrap_or(&name).to_string();
        match &m.content {
            None => self.plan.modules.push(ModuleDecl {
                parents: parents.to_vec(),
                name,
                path: path_attribute(&m.attrs),
            }),
            Some((brace, items)) => {
                let Some(open) = self.brace_open_end(brace.span.open()) else {
                    return;
                };
                let gap = self.body_start(open, &m.attrs);
                let mut inner = parents.to_vec();
                inner.push(name);
                self.items(items, gap, &inner);
            }
        }
    }

    /// The offset just past an opening brace.
    fn brace_open_end(&self, open: proc_macro2::Span) -> Option<usize> {
        self.lines.offset(open.end())
    }

    /// Plans the attribute of an item whose outer attributes are `attrs`, whose tokens
    /// without them are `head` and whose whole is `whole`, the text before it starting at
    /// `gap`.
    fn insert(
        &mut self,
        gap: Gap,
        attrs: &[Attribute],
        head: &impl ToTokens,
        whole: &impl ToTokens,
        item: String,
        functions: usize,
    ) {
        let (Some((head_start, _)), Some((item_start, item_end))) =
            (self.extent(head), self.extent(whole))
        else {
            return;
        };
        // Places where an attribute may go: the gaps before, between and after the item's
        // own attributes, outside comments.
        let mut gaps = vec![gap];
        let mut ends = Vec::new();
        for attr in attrs {
            if let Some((start, end)) = self.extent(attr) {
                ends.push(start);
                gaps.push(self.gap_after(attr, end));
            }
        }
        ends.push(head_start);
        let mut places = Vec::new();
        for (gap, end) in gaps.iter().zip(&ends) {
            places.extend(places_in(self.text, *gap, *end));
        }
        let Some(&last) = places.last() else {
            return;
        };
        let line_of = |offset: usize| self.lines.line_column(offset).0;
        let head_line = line_of(head_start);
        let previous_line = gap.after_token.then(|| line_of(gap.offset));
        // A line of its own (blank, comment or attributes only) is best; then the end of
        // the line of the code before; then the item's own line (its tokens move).
        let own_line = places
            .iter()
            .copied()
            .filter(|&p| {
                let line = line_of(p);
                line < head_line && previous_line.is_none_or(|prev| line > prev)
            })
            .max_by_key(|&p| (line_of(p), p));
        let previous = places
            .iter()
            .copied()
            .filter(|&p| line_of(p) < head_line)
            .max();
        let (offset, moves_tokens) = match own_line.or(previous) {
            Some(p) => (p, false),
            None => (last, true),
        };
        let before = self.text[..offset].chars().next_back();
        let after = self.text[offset..].chars().next();
        let mut text = String::new();
        if before.is_some_and(|c| !c.is_whitespace()) {
            text.push(' ');
        }
        text.push_str(match self.mode {
            Mode::Functions => ATTRIBUTE,
            Mode::Tests => TEST_ATTRIBUTE,
        });
        if after.is_some_and(|c| !c.is_whitespace()) {
            text.push(' ');
        }
        let (line, column) = self.lines.line_column(offset);
        let first = line.min(line_of(item_start));
        self.plan.insertions.push(Insertion {
            offset,
            line,
            column,
            text,
            moves_tokens,
            lines: (first, line_of(item_end.saturating_sub(1).max(item_start))),
            item,
            functions,
        });
    }
}

/// Offsets in `[gap.offset, end]` outside comments (where text may be inserted between
/// tokens). The gap holds only whitespace and comments.
fn places_in(text: &str, gap: Gap, end: usize) -> Vec<usize> {
    enum State {
        Code,
        Line,
        Block(u32),
    }
    let mut places = Vec::new();
    let mut state = if gap.in_line_comment {
        State::Line
    } else {
        State::Code
    };
    let mut at = gap.offset;
    let bytes = text.as_bytes();
    let step = |at: usize| at + text[at..].chars().next().map_or(1, char::len_utf8);
    loop {
        match state {
            State::Code => {
                places.push(at);
                if at >= end {
                    break;
                }
                if bytes[at..].starts_with(b"//") {
                    state = State::Line;
                    at += 2;
                } else if bytes[at..].starts_with(b"/*") {
                    state = State::Block(1);
                    at += 2;
                } else {
                    at = step(at);
                }
            }
            State::Line => {
                if at >= end {
                    break;
                }
                if bytes[at] == b'\n' {
                    state = State::Code;
                }
                at = step(at);
            }
            State::Block(depth) => {
                if at >= end {
                    break;
                }
                if bytes[at..].starts_with(b"*/") {
                    state = if depth == 1 {
                        State::Code
                    } else {
                        State::Block(depth - 1)
                    };
                    at += 2;
                } else if bytes[at..].starts_with(b"/*") {
                    state = State::Block(depth + 1);
                    at += 2;
                } else {
                    at = step(at);
                }
            }
        }
    }
    places.retain(|&p| p <= end);
    places
}

/// Why a function cannot be instrumented, or `None` when it can.
fn refusal(attrs: &[Attribute], sig: &Signature, body: Option<&syn::Block>) -> Option<String> {
    if let Some(why) = refusal_of_kind(attrs, sig) {
        return Some(why.to_string());
    }
    let statements = body.map_or(0, statements);
    (statements > MAX_STATEMENTS).then(|| {
        format!(
            "too large to instrument ({statements} statements; the limit is {MAX_STATEMENTS}: \
             the instrumented build would take minutes); annotate it to include it"
        )
    })
}

/// Statements of a function body above which zero-annotation mode leaves the function alone:
/// every statement gets hooks, and a generated function of thousands of statements makes an
/// instrumented build take minutes.
const MAX_STATEMENTS: usize = 400;

/// Statements in a block, nested blocks and closures included.
fn statements(block: &syn::Block) -> usize {
    struct Count(usize);
    impl<'ast> syn::visit::Visit<'ast> for Count {
        fn visit_stmt(&mut self, stmt: &'ast syn::Stmt) {
            self.0 += 1;
            syn::visit::visit_stmt(self, stmt);
        }
    }
    let mut count = Count(0);
    syn::visit::Visit::visit_block(&mut count, block);
    count.0
}

/// Why a function of this kind cannot be instrumented.
fn refusal_of_kind(attrs: &[Attribute], sig: &Signature) -> Option<&'static str> {
    if sig.constness.is_some() {
        Some("`const fn`")
    } else if sig.asyncness.is_some() {
        Some("`async fn`")
    } else if matches!(sig.safety, syn::Safety::Unsafe(_)) {
        Some("`unsafe fn`")
    } else if sig.abi.is_some() {
        Some("`extern fn`")
    } else if sig.variadic.is_some() {
        Some("variadic")
    } else if let Some(why) = test_code(attrs) {
        Some(why)
    } else if attrs.iter().any(is_ours) {
        Some("already carries a contract or `autodebug` attribute")
    } else if procedural_macro(attrs) {
        Some("a procedural macro")
    } else {
        None
    }
}

/// Why a function with these attributes is test code (a test, or test-only), if it is.
fn test_code(attrs: &[Attribute]) -> Option<&'static str> {
    if attrs.iter().any(is_test) {
        Some("a test")
    } else if test_only(attrs) {
        Some("test-only code")
    } else {
        None
    }
}

/// Whether a function with these attributes is a procedural macro (code the compiler runs).
fn procedural_macro(attrs: &[Attribute]) -> bool {
    (attrs.iter()).any(|a| last_segment(a).is_some_and(|s| s.starts_with("proc_macro")))
}

/// Whether the items declared in a function's body are planned: not in a test's body, in
/// test-only code or in a procedural macro's (code the compiler runs).
fn plans_nested(attrs: &[Attribute]) -> bool {
    test_code(attrs).is_none() && !procedural_macro(attrs)
}

fn last_segment(attr: &Attribute) -> Option<String> {
    attr.path().segments.last().map(|s| s.ident.to_string())
}

fn is_ours(attr: &Attribute) -> bool {
    last_segment(attr).is_some_and(|s| OURS.contains(&s.as_str()))
}

fn is_test(attr: &Attribute) -> bool {
    last_segment(attr).is_some_and(|s| TEST_ATTRIBUTES.contains(&s.as_str()))
}

/// A libtest `#[test]` function the test attribute can wrap: no parameters, generics or
/// `async`, returning nothing, and no attribute of the tool's or of a test framework
/// besides `#[test]` itself (the macro re-checks; this keeps the copy's text plain).
fn plain_test(f: &syn::ItemFn) -> bool {
    let sig = &f.sig;
    let unit = match &sig.output {
        syn::ReturnType::Default => true,
        syn::ReturnType::Type(_, ty) => matches!(&**ty, syn::Type::Tuple(t) if t.elems.is_empty()),
    };
    f.attrs.iter().any(|a| a.path().is_ident("test"))
        && !f
            .attrs
            .iter()
            .any(|a| is_ours(a) || (is_test(a) && !a.path().is_ident("test")))
        && unit
        && sig.inputs.is_empty()
        && sig.generics.params.is_empty()
        && sig.asyncness.is_none()
        && sig.constness.is_none()
}

/// Whether the attributes gate the item on `test` (`#[cfg(test)]`, `#[cfg(any(test, …))]`).
fn test_only(attrs: &[Attribute]) -> bool {
    attrs.iter().any(|attr| {
        attr.path().is_ident("cfg")
            && matches!(&attr.meta, syn::Meta::List(list) if mentions_test(list.tokens.clone()))
    })
}

fn mentions_test(tokens: TokenStream) -> bool {
    tokens.into_iter().any(|tt| match tt {
        proc_macro2::TokenTree::Ident(i) => i == "test",
        proc_macro2::TokenTree::Group(g) => mentions_test(g.stream()),
        _ => false,
    })
}

/// The value of `#[path = "…"]`.
fn path_attribute(attrs: &[Attribute]) -> Option<String> {
    attrs.iter().find_map(|attr| match &attr.meta {
        syn::Meta::NameValue(nv) if nv.path.is_ident("path") => match &nv.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => Some(s.value()),
            _ => None,
        },
        _ => None,
    })
}

/// Start of the first token and end of the last.
/// An item at the start of a macro rule's tokens: a function or `impl` block the
/// attribute can instrument (its tokens, attributes included, and how many functions it
/// holds), or another item to pass over; `None` when the tokens do not start an item.
enum MacroItem {
    Instrumented {
        len: usize,
        functions: usize,
        impl_block: bool,
    },
    Other {
        len: usize,
    },
}

fn macro_item(tokens: &[TokenTree]) -> Option<MacroItem> {
    let word = |i: usize| match tokens.get(i) {
        Some(TokenTree::Ident(id)) => Some(id.to_string()),
        _ => None,
    };
    let mut i = 0;
    let mut refused = false;
    // Outer attributes: a test or test-only one keeps the item as written.
    while let (Some(TokenTree::Punct(hash)), Some(TokenTree::Group(attr))) =
        (tokens.get(i), tokens.get(i + 1))
    {
        if hash.as_char() != '#' || attr.delimiter() != proc_macro2::Delimiter::Bracket {
            break;
        }
        let text = attr.stream().to_string();
        refused |= text.starts_with("test")
            || text.contains("cfg (test)")
            || OURS
                .iter()
                .any(|ours| text == *ours || text.starts_with(&format!("{ours} (")));
        i += 2;
    }
    if word(i).as_deref() == Some("pub") {
        i += 1;
        if let Some(TokenTree::Group(g)) = tokens.get(i)
            && g.delimiter() == proc_macro2::Delimiter::Parenthesis
        {
            i += 1;
        }
    }
    // Qualifiers the macro leaves alone.
    while let Some(w) = word(i).filter(|w| {
        matches!(
            w.as_str(),
            "const" | "unsafe" | "async" | "extern" | "default"
        )
    }) {
        refused = true;
        i += 1;
        if w == "extern" && matches!(tokens.get(i), Some(TokenTree::Literal(_))) {
            i += 1;
        }
    }
    let keyword = word(i)?;
    if keyword != "fn" && keyword != "impl" {
        return None;
    }
    // The item ends with its body, the first brace group at its top level.
    let body = (i..tokens.len()).find(|&j| {
        matches!(&tokens[j], TokenTree::Group(g) if g.delimiter() == proc_macro2::Delimiter::Brace)
    })?;
    let len = body + 1;
    if refused {
        return Some(MacroItem::Other { len });
    }
    let functions = match (&tokens[body], keyword.as_str()) {
        (TokenTree::Group(g), "impl") => {
            let members: Vec<TokenTree> = g.stream().into_iter().collect();
            let is = |t: &TokenTree, words: &[&str]| matches!(t, TokenTree::Ident(id) if words.iter().any(|w| id == w));
            // A method the macro leaves alone would make the whole block fail.
            if members
                .iter()
                .any(|t| is(t, &["unsafe", "async", "extern"]))
            {
                return Some(MacroItem::Other { len });
            }
            members.iter().filter(|t| is(t, &["fn"])).count()
        }
        _ => 1,
    };
    Some(if functions == 0 {
        MacroItem::Other { len }
    } else {
        MacroItem::Instrumented {
            len,
            functions,
            impl_block: keyword == "impl",
        }
    })
}

/// Whether `tokens` start with a function with a body (after its attributes and
/// qualifiers): `fn` and a name (not the type `fn(u8)`), and a brace group before any `;`
/// (not a trait's `fn f();`).
fn declares_fn(tokens: &[TokenTree]) -> bool {
    let Some(at) = tokens
        .iter()
        .position(|t| matches!(t, TokenTree::Ident(id) if id == "fn"))
    else {
        return false;
    };
    let named = match tokens.get(at + 1) {
        Some(TokenTree::Ident(_)) => true,
        Some(TokenTree::Punct(p)) => p.as_char() == '$',
        _ => false,
    };
    let body = tokens[at..].iter().find_map(|t| match t {
        TokenTree::Group(g) if g.delimiter() == proc_macro2::Delimiter::Brace => Some(true),
        TokenTree::Punct(p) if p.as_char() == ';' => Some(false),
        _ => None,
    });
    named && body == Some(true)
}

fn extent(tokens: TokenStream) -> Option<(LineColumn, LineColumn)> {
    let mut iter = tokens.into_iter();
    let first = iter.next()?;
    let last = iter.last().unwrap_or_else(|| first.clone());
    Some((first.span().start(), last.span().end()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::zero::coordinates::Shifts;
    use proc_macro2::TokenTree;

    /// Leaf tokens (delimiters as their own tokens) with their text and start position.
    fn leaves(text: &str) -> Vec<(String, LineColumn)> {
        fn walk(stream: TokenStream, out: &mut Vec<(String, LineColumn)>) {
            for tt in stream {
                match tt {
                    TokenTree::Group(g) => {
                        let (open, close) = match g.delimiter() {
                            proc_macro2::Delimiter::Parenthesis => ("(", ")"),
                            proc_macro2::Delimiter::Brace => ("{", "}"),
                            proc_macro2::Delimiter::Bracket => ("[", "]"),
                            proc_macro2::Delimiter::None => ("", ""),
                        };
                        out.push((open.to_string(), g.span_open().start()));
                        walk(g.stream(), out);
                        out.push((close.to_string(), g.span_close().start()));
                    }
                    other => out.push((other.to_string(), other.span().start())),
                }
            }
        }
        let mut out = Vec::new();
        walk(text.parse().unwrap(), &mut out);
        out
    }

    /// Plans and annotates `text`, checks the copy parses, keeps every line break, and
    /// holds every token of the user's at the same line and (mapped back) column; returns
    /// the copy and the plan.
    fn annotate(text: &str) -> (String, FilePlan) {
        annotate_with(text, plan)
    }

    /// [`annotate`] with another planner.
    fn annotate_with(text: &str, planner: fn(&str) -> syn::Result<FilePlan>) -> (String, FilePlan) {
        let plan = planner(text).unwrap();
        let copy = annotated(text, &plan.insertions);
        // The copy parses as the text does: what was left out, and nothing more.
        let parsed = autodebug_syntax::parse_file_by_item(&copy)
            .unwrap_or_else(|e| panic!("copy does not parse: {e}\n{copy}"));
        assert_eq!(parsed.left_out.len(), plan.unparsed.len(), "{copy}");
        assert_eq!(copy.matches('\n').count(), text.matches('\n').count());
        let shifts = Shifts::new([("f.rs".to_string(), plan.insertions.clone())].into());
        let index = LineIndex::new(&copy);
        let mut added = 0;
        let inserted: Vec<(usize, usize)> = plan
            .insertions
            .iter()
            .map(|i| {
                let at = i.offset + added;
                added += i.text.len();
                (at, at + i.text.len())
            })
            .collect();
        let copy_tokens: Vec<(String, LineColumn)> = leaves(&copy)
            .into_iter()
            .filter(|(_, at)| {
                let offset = index.offset(*at).unwrap();
                !inserted.iter().any(|(s, e)| (*s..*e).contains(&offset))
            })
            .collect();
        let user_tokens = leaves(text);
        assert_eq!(copy_tokens.len(), user_tokens.len(), "{copy}");
        for ((text, user), (copy_text, at)) in user_tokens.iter().zip(&copy_tokens) {
            assert_eq!(text, copy_text);
            assert_eq!(user.line, at.line, "`{text}` moved line");
            let mapped = shifts.user_column("f.rs", at.line as u32, at.column as u32 + 1);
            assert_eq!(
                mapped,
                user.column as u32 + 1,
                "`{text}` on line {}",
                at.line
            );
        }
        (copy, plan)
    }

    fn items(plan: &FilePlan) -> Vec<&str> {
        plan.insertions.iter().map(|i| i.item.as_str()).collect()
    }

    #[test]
    fn attributes_go_on_lines_of_their_own_and_move_no_token() {
        let text = "//! Crate doc.

use std::fmt;

/// Adds.
pub fn add(a: i32, b: i32) -> i32 {
    a + b
}
pub fn one_liner(x: i32) -> i32 { x * 2 } // trailing

pub struct S;

impl S {
    pub fn new() -> S { S }
    const fn c() -> i32 { 1 }
}

/* a block
   comment */ #[inline]
fn after_block() {}

#[cfg(test)]
mod tests {
    #[test]
    fn t() {}
}
";
        let (copy, plan) = annotate(text);
        assert_eq!(items(&plan), ["add", "one_liner", "impl S", "after_block"]);
        assert!(plan.insertions.iter().all(|i| !i.moves_tokens));
        let lines: Vec<&str> = copy.lines().collect();
        assert_eq!(lines[4], format!("{ATTRIBUTE} /// Adds."));
        assert_eq!(lines[7], format!("}} {ATTRIBUTE}"));
        assert_eq!(lines[11], ATTRIBUTE);
        assert_eq!(lines[18], format!("   comment */ #[inline] {ATTRIBUTE}"));
        assert_eq!(plan.insertions[0].lines, (5, 8));
        assert_eq!(
            plan.insertions.iter().map(|i| i.functions).sum::<usize>(),
            4
        );
    }

    #[test]
    fn an_item_that_does_not_parse_is_left_as_it_is_and_its_neighbours_annotated() {
        let text = "pub fn before() -> i32 { 1 }
fn broken() { let = ; }
// between
pub fn after(x: i32) -> i32 { x }

impl S {
    fn good(&self) -> i32 { 1 }
    fn bad(&self) { match }
    fn good2(&self) -> i32 { 2 }
}
";
        let (copy, plan) = annotate(text);
        assert_eq!(items(&plan), ["before", "after", "S::good", "S::good2"]);
        let left: Vec<&str> = plan.unparsed.iter().map(|l| l.what.as_str()).collect();
        assert_eq!(left, ["fn broken", "fn bad"]);
        let lines: Vec<&str> = copy.lines().collect();
        assert_eq!(lines[1], "fn broken() { let = ; }");
        assert!(
            lines[7].trim().starts_with("fn bad(&self) { match }"),
            "{copy}"
        );
        assert!(plan.insertions[1].line >= 3, "{:?}", plan.insertions[1]);
    }

    #[test]
    fn items_sharing_a_line_move_only_tokens_after_the_attribute() {
        for text in [
            "pub fn a() -> i32 { 1 } pub fn b(x: i32) -> i32 { if x > 0 { x } else { -x } }\n",
            "//! doc\npub fn f(x: u8) -> u8 { x + 1 }\n",
            "#!/usr/bin/env run\nfn main() { let x = 1; }\n",
            "mod m { pub fn g() -> u8 { 2 } }\nimpl X { fn h(&self) {} fn k(&self) { let _ = 1; } }\n",
        ] {
            let (_, plan) = annotate(text);
            assert!(!plan.insertions.is_empty(), "{text}");
            assert!(plan.insertions.iter().any(|i| i.moves_tokens), "{text}");
        }
    }

    #[test]
    fn only_code_the_macro_instruments_is_annotated() {
        let text = "
pub trait Shape {
    fn area(&self) -> f64;
    fn double(&self) -> f64 {
        self.area() * 2.0
    }
}

impl Mixed {
    pub fn safe(&self) -> u8 { 1 }

    pub unsafe fn raw(&self) -> u8 { 2 }
}

#[requires(x > 0)]
pub fn contracted(x: i32) -> i32 { x }

pub async fn later() {}

extern \"C\" fn callback() {}

#[cfg(any(test, feature = \"x\"))]
fn helper() {}

mod inner {
    pub fn g() {
        fn nested() {}
        nested()
    }
}

#[tokio::test]
async fn t() {}

#[macro_export]
macro_rules! make { () => { fn made() {} } }
make!();
";
        let (_, plan) = annotate(text);
        assert_eq!(
            items(&plan),
            ["Shape::double", "Mixed::safe", "g", "nested"]
        );
        let skipped = plan.skipped.join("\n");
        for reason in [
            "Mixed::raw: `unsafe fn`",
            "contracted: already carries",
            "later: `async fn`",
            "callback: `extern fn`",
            "helper: test-only code",
        ] {
            assert!(skipped.contains(reason), "{reason} not in\n{skipped}");
        }
    }

    #[test]
    fn items_inside_a_function_body_get_attributes_of_their_own() {
        let text = "pub fn outer(s: &str) -> usize {
    fn helper(s: &str) -> usize { s.len() }
    struct Local;
    impl Local {
        fn twice(&self, n: usize) -> usize { n * 2 }
    }
    if s.is_empty() {
        fn deep() -> usize { 0 }
        return deep();
    }
    Local.twice(helper(s))
}

impl S {
    fn method(&self) -> u8 {
        unsafe fn raw() -> u8 { 1 }
        fn inner() -> u8 { 2 }
        inner()
    }
}

trait T {
    fn provided(&self) -> u8 {
        fn local() -> u8 { 3 }
        local()
    }
}

#[cfg(test)]
fn only_for_tests() {
    fn not_this() {}
}

#[test]
fn a_test() {
    fn nor_this() {}
}
";
        let (copy, plan) = annotate(text);
        assert_eq!(
            items(&plan),
            [
                "outer",
                "helper",
                "impl Local",
                "deep",
                "impl S",
                "inner",
                "T::provided",
                "local"
            ]
        );
        assert!(plan.skipped.iter().any(|s| s.starts_with("raw: ")));
        // At the end of the line before, as for the items around them.
        assert!(
            copy.contains(&format!("{{ {ATTRIBUTE}\n    fn helper")),
            "{copy}"
        );
        assert!(
            copy.contains(&format!("{{ {ATTRIBUTE}\n        fn deep")),
            "{copy}"
        );
    }

    #[test]
    fn the_functions_and_impls_a_macro_writes_are_instrumented_where_it_writes_them() {
        let text = "macro_rules! impl_eq {
    ($lhs:ty, $rhs:ty) => {
        impl PartialEq<$rhs> for $lhs {
            #[inline]
            fn eq(&self, other: &$rhs) -> bool {
                let this: &[u8] = other.as_ref();
                PartialEq::eq(this, other.as_bytes())
            }
        }
    };
}

macro_rules! float_impls {
    ($($t:ident)*) => ($(
        /// Shifts.
        pub fn $t(x: u32) -> u32 { x << 1 }
        struct Kept;
    )*);
    (one $t:ident) => {
        unsafe fn raw() {}
        impl Thing for $t { unsafe fn raw(&self) {} }
        #[test]
        fn in_a_test() {}
        let _f: fn(u8) -> u8 = |x| x;
    };
}

#[macro_export]
macro_rules! exported { () => { fn made() {} } }
";
        let (copy, plan) = annotate(text);
        assert_eq!(
            items(&plan),
            ["macro_rules! impl_eq", "macro_rules! float_impls"]
        );
        assert_eq!(
            (plan.insertions.iter())
                .map(|i| (i.lines, i.functions))
                .collect::<Vec<_>>(),
            [((2, 9), 1), ((14, 16), 1)]
        );
        // On the line before each item: no token of the user's moves.
        assert!(
            copy.contains(&format!("=> {{ {ATTRIBUTE}\n        impl PartialEq")),
            "{copy}"
        );
        assert!(
            copy.contains(&format!("($( {ATTRIBUTE}\n        /// Shifts.")),
            "{copy}"
        );
    }

    #[test]
    fn functions_declared_in_the_bodies_a_macro_writes_get_attributes_of_their_own() {
        let text = "macro_rules! from_str {
    ($t:ident) => {
        impl FromStr for $t {
            fn from_str(src: &str) -> Result<$t, ()> {
                fn shift(src: &str) -> Option<char> {
                    src.chars().next()
                }
                let f: fn(&str) -> Option<char> = shift;
                if src.is_empty() {
                    fn $t() {}
                }
                trait Local { fn required(&self); fn provided(&self) {} }
                f(src).ok_or(())
            }
        }
    };
}
";
        let (copy, plan) = annotate(text);
        assert_eq!(
            (plan.insertions.iter())
                .map(|i| (i.lines, i.functions))
                .collect::<Vec<_>>(),
            [((2, 15), 1), ((4, 7), 1), ((9, 10), 1), ((12, 12), 1)]
        );
        let annotated: Vec<&str> = (copy.split(ATTRIBUTE).skip(1))
            .map(|rest| rest.trim_start().split(['(', '\n']).next().unwrap())
            .collect();
        assert_eq!(
            annotated,
            ["impl FromStr for $t {", "fn shift", "fn $t", "fn provided"]
        );
    }

    #[test]
    fn modules_declared_elsewhere_are_listed() {
        let plan = plan(
            "mod a;\n#[path = \"x/y.rs\"]\nmod b;\nmod c { mod d; }\n#[cfg(test)]\nmod tests;\nmod r#type;\n",
        )
        .unwrap();
        let decl = |parents: &[&str], name: &str, path: Option<&str>| ModuleDecl {
            parents: parents.iter().map(|s| s.to_string()).collect(),
            name: name.to_string(),
            path: path.map(str::to_string),
        };
        assert_eq!(
            plan.modules,
            [
                decl(&[], "a", None),
                decl(&[], "b", Some("x/y.rs")),
                decl(&["c"], "d", None),
                decl(&[], "type", None),
            ]
        );
    }

    #[test]
    fn edition_2015_attributes_name_the_runtime_from_the_extern_prelude() {
        fn plan_2015(text: &str) -> syn::Result<FilePlan> {
            let mut plan = plan(text)?;
            plan.for_edition_2015();
            Ok(plan)
        }
        fn plan_tests_2015(text: &str) -> syn::Result<FilePlan> {
            let mut plan = plan_tests(text)?;
            plan.for_edition_2015();
            Ok(plan)
        }
        let text = "fn f() -> u8 { 1 }\nstruct S; impl S { fn g(&self) {} }\n\
                    #[test] fn t() { assert_eq!(f(), 1); }\n";
        let (copy, functions) = annotate_with(text, plan_2015);
        assert_eq!(functions.insertions.len(), 2);
        assert_eq!(
            copy.matches("#[autodebug_runtime::autodebug]").count(),
            2,
            "{copy}"
        );
        assert!(!copy.contains("::autodebug_runtime"), "{copy}");
        let (copy, tests) = annotate_with(text, plan_tests_2015);
        assert_eq!(tests.insertions.len(), 1);
        assert!(
            copy.contains(" #[autodebug_runtime::autodebug_test]\n#[test] fn t"),
            "{copy}"
        );
        for insertion in functions.insertions.iter().chain(&tests.insertions) {
            assert!(holds_attribute(&insertion.text), "{insertion:?}");
        }
        assert!(holds_attribute(ATTRIBUTE) && holds_attribute(TEST_ATTRIBUTE));
        assert!(!holds_attribute("#[autodebug]"));
    }

    #[test]
    fn plain_tests_get_the_test_attribute_before_their_own() {
        let text = "use super::*;\n\
                    #[cfg(test)]\n\
                    mod tests {\n    \
                        use super::*;\n\n    \
                        /// Doc.\n    \
                        #[test]\n    \
                        #[should_panic(expected = \"empty\")]\n    \
                        fn rejects() { f(&[]); }\n    \
                        #[test] fn same_line() {}\n    \
                        #[test]\n    \
                        fn returns() -> Result<(), String> { Ok(()) }\n    \
                        #[tokio::test]\n    \
                        async fn later() {}\n    \
                        #[test]\n    \
                        #[autodebug]\n    \
                        fn ours() {}\n    \
                        fn helper() {}\n    \
                        mod deeper { #[test] fn inner() {} }\n    \
                        mod elsewhere;\n\
                    }\n";
        let (copy, plan) = annotate_with(text, plan_tests);
        let items: Vec<&str> = plan.insertions.iter().map(|i| i.item.as_str()).collect();
        assert_eq!(items, ["rejects", "same_line", "inner"]);
        assert!(plan.insertions.iter().all(|i| i.functions == 0));
        let lines: Vec<&str> = copy.lines().collect();
        // On the blank line before the doc comment; at the end of the previous item's
        // line; before the test inside its module's braces.
        assert_eq!(lines[4].trim(), TEST_ATTRIBUTE);
        assert_eq!(
            lines[8],
            format!("    fn rejects() {{ f(&[]); }} {TEST_ATTRIBUTE}")
        );
        assert!(
            lines[18].contains(&format!("{{ {TEST_ATTRIBUTE} #[test] fn inner")),
            "{copy}"
        );
        assert_eq!(
            plan.modules,
            [ModuleDecl {
                parents: vec!["tests".into()],
                name: "elsewhere".into(),
                path: None,
            }]
        );
        assert_eq!(plan.keeps_state, None);
    }

    #[test]
    fn state_kept_by_the_process_is_found() {
        for (text, found) in [
            (
                "static NAMES: [&str; 2] = [\"a\", \"b\"];\nconst N: usize = 2;\n",
                None,
            ),
            (
                "fn f() {}\nstatic CALLS: AtomicUsize = AtomicUsize::new(0);\n",
                Some("`static CALLS` at line 2"),
            ),
            (
                "static CACHE: Mutex<Vec<u8>> = Mutex::new(Vec::new());\n",
                Some("`static CACHE` at line 1"),
            ),
            ("static mut N: u32 = 0;\n", Some("`static N` at line 1")),
            (
                "fn f() {\n    static SEEN: OnceLock<u8> = OnceLock::new();\n}\n",
                Some("`static SEEN` at line 2"),
            ),
            (
                "thread_local! { static C: Cell<u8> = Cell::new(0); }\n",
                Some("`thread_local!` at line 1"),
            ),
            (
                "#[test]\nfn t() {\n    std::env::set_current_dir(\"/tmp\").unwrap();\n}\n",
                Some("`set_current_dir` at line 3"),
            ),
            (
                "fn f() { unsafe { env::set_var(\"K\", \"v\") } }\n",
                Some("`set_var` at line 1"),
            ),
        ] {
            let plan = plan_tests(text).unwrap();
            assert_eq!(plan.keeps_state.as_deref(), found, "{text}");
            // The instrumentation's plan does not look.
            assert_eq!(plan_for(text, Mode::Functions).unwrap().keeps_state, None);
        }
    }

    #[test]
    fn a_skip_list_grows_in_the_attribute_and_refuses_the_attributes_own_line() {
        let mut insertion = Insertion {
            offset: 0,
            line: 3,
            column: 1,
            text: format!("{ATTRIBUTE} "),
            moves_tokens: true,
            lines: (3, 9),
            item: "f".into(),
            functions: 1,
        };
        assert!(insertion.skip(&[(5, 17)]));
        assert_eq!(
            insertion.text,
            "#[::autodebug_runtime::autodebug(skip = \"5:17\")] "
        );
        assert!(insertion.skip(&[(7, 2)]));
        assert_eq!(
            insertion.text,
            "#[::autodebug_runtime::autodebug(skip = \"5:17 7:2\")] "
        );
        // A column on the attribute's line moves with the list: refused.
        assert!(!insertion.skip(&[(3, 30)]));
    }
}
