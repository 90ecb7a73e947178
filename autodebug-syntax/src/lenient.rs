//! Parsing code that compiles but that syn does not read, and degrading by item where even
//! that fails.
//!
//! Older editions allow syntax syn rejects: a trait object without `dyn` written as a
//! closure trait (`&mut FnMut(u8) -> u8`, `Box<Fn()>`), a parameter without a name in a
//! trait (`fn reseed(&mut self, Seed);`), and 2018's keywords as names (`fn async()`). Each
//! is repaired on the tokens, directed by syn's error: `dyn` is put before the trait, `_:`
//! before the unnamed parameter, the name is made raw (`r#async`). Every token of the user's
//! keeps its span, so every position found in the result is a position in the text, and the
//! repaired tokens are valid in every edition.
//!
//! An item that still does not parse is left out ([`parse_file_by_item`]): the rest of its
//! file, of its module, of its `impl` block or trait is parsed as usual.

use proc_macro2::{Delimiter, Group, Ident, LineColumn, Punct, Spacing, TokenStream, TokenTree};
use syn::parse::Parse;

/// Repairs tried on one parse at most (each is one token-level edit and one more parse).
const MAX_REPAIRS: usize = 256;

/// Chunks of tokens joined to a failing one when the item boundary was guessed wrong (a
/// brace inside a signature, `impl Foo<{ N }>`).
const MAX_JOINED: usize = 2;

/// Parses `tokens` as a `T`, repairing older editions' syntax where syn's error points at
/// it (see the module's header). The last error when no repair applies.
pub fn parse_repaired<T: Parse>(tokens: TokenStream) -> syn::Result<T> {
    let mut tokens = tokens;
    for _ in 0..MAX_REPAIRS {
        let error = match syn::parse2::<T>(tokens.clone()) {
            Ok(parsed) => return Ok(parsed),
            Err(error) => error,
        };
        match repair(&tokens, error.span().start()) {
            Some(repaired) => tokens = repaired,
            None => return Err(error),
        }
    }
    syn::parse2::<T>(tokens)
}

/// Parses a file as [`syn::parse_file`] does (a byte-order mark and a shebang line are
/// skipped), with the repairs of [`parse_repaired`]: an error when any item still does not
/// parse.
pub fn parse_file(text: &str) -> syn::Result<syn::File> {
    parse_repaired(lex(text)?)
}

/// An item of a file that was left out because it does not parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeftOutItem {
    /// 1-based line and 1-based character column of its first token.
    pub start: (u32, u32),
    /// 1-based line and 1-based character column just past its last token.
    pub end: (u32, u32),
    /// What it is, for people: `fn parse`, `impl Reader`, `mod tests`, or its first tokens.
    pub what: String,
    /// syn's error, with the line and column it points at.
    pub reason: String,
}

impl LeftOutItem {
    /// Whether the item lies inside the 1-based lines `first..=last`.
    pub fn within(&self, first: u32, last: u32) -> bool {
        first <= self.start.0 && self.end.0 <= last
    }
}

/// A file parsed item by item: what parsed, and what was left out.
#[derive(Debug)]
pub struct ByItem {
    /// The file, with the items that parse (in modules, `impl` blocks and traits too).
    pub file: syn::File,
    /// The items left out, in text order.
    pub left_out: Vec<LeftOutItem>,
}

/// Parses a file item by item: an item that does not parse, even repaired, is left out and
/// listed, and the items around it are kept. An inline module, an `impl` block or a trait
/// whose body holds such an item keeps its other items. An error only when the text is not
/// made of tokens (an unclosed delimiter, an unterminated string): nothing compiles then.
pub fn parse_file_by_item(text: &str) -> syn::Result<ByItem> {
    let tokens = lex(text)?;
    if let Ok(file) = parse_repaired::<syn::File>(tokens.clone()) {
        return Ok(ByItem {
            file,
            left_out: Vec::new(),
        });
    }
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let inner = inner_attributes_end(&trees);
    let mut file: syn::File = parse_repaired(trees[..inner].iter().cloned().collect())?;
    let mut left_out = Vec::new();
    file.items = items_by_chunk(&trees[inner..], &mut left_out);
    Ok(ByItem { file, left_out })
}

/// The tokens of a file's text: a byte-order mark and a shebang line are skipped, as the
/// compiler skips them, and positions stay those of `text`.
fn lex(text: &str) -> syn::Result<TokenStream> {
    let (_, body) = crate::parseable(text);
    body.parse::<TokenStream>().map_err(|error| {
        let at = error.span();
        syn::Error::new(at, format!("the text is not made of Rust tokens: {error}"))
    })
}

/// Items parsed one chunk of tokens at a time; those that fail go to `left_out`.
fn items_by_chunk(trees: &[TokenTree], left_out: &mut Vec<LeftOutItem>) -> Vec<syn::Item> {
    let chunks = chunks(trees);
    let mut items = Vec::new();
    let mut at = 0;
    while at < chunks.len() {
        let mut parsed = None;
        for joined in 0..=MAX_JOINED.min(chunks.len() - at - 1) {
            let tokens = chunks[at].start..chunks[at + joined].end;
            if let Ok(item) = parse_repaired::<syn::Item>(stream(&trees[tokens])) {
                parsed = Some((item, joined));
                break;
            }
        }
        match parsed {
            Some((item, joined)) => {
                items.push(item);
                at += joined + 1;
            }
            None => {
                let chunk = &trees[chunks[at].clone()];
                match partly(chunk, left_out) {
                    Some(item) => items.push(item),
                    None => left_out.push(left_out_item(chunk)),
                }
                at += 1;
            }
        }
    }
    items
}

/// An inline module, `impl` block or trait that does not parse whole, parsed with the
/// members of its body that do (the others go to `left_out`); `None` for other items, or
/// when even its head does not parse.
fn partly(chunk: &[TokenTree], left_out: &mut Vec<LeftOutItem>) -> Option<syn::Item> {
    let body_at = chunk
        .iter()
        .rposition(|tt| matches!(tt, TokenTree::Group(g) if g.delimiter() == Delimiter::Brace))?;
    let TokenTree::Group(body) = &chunk[body_at] else {
        return None;
    };
    let keyword = keyword_of(chunk)?;
    if !matches!(keyword.as_str(), "mod" | "impl" | "trait") {
        return None;
    }
    // The head with an empty body.
    let mut empty = Group::new(Delimiter::Brace, TokenStream::new());
    empty.set_span(body.span());
    let mut head: Vec<TokenTree> = chunk[..body_at].to_vec();
    head.push(TokenTree::Group(empty));
    head.extend(chunk[body_at + 1..].iter().cloned());
    let mut item = parse_repaired::<syn::Item>(stream(&head)).ok()?;
    let members: Vec<TokenTree> = body.stream().into_iter().collect();
    let inner = inner_attributes_end(&members);
    let inner_attrs = || stream(&members[..inner]);
    let members = &members[inner..];
    match &mut item {
        syn::Item::Mod(module) => {
            let parsed = items_by_chunk(members, left_out);
            let attrs = parse_repaired::<syn::File>(inner_attrs()).ok()?.attrs;
            module.attrs.extend(attrs);
            module.content.as_mut()?.1 = parsed;
        }
        syn::Item::Impl(imp) => imp.items = members_by_chunk(members, left_out),
        syn::Item::Trait(tr) => tr.items = members_by_chunk(members, left_out),
        _ => return None,
    }
    Some(item)
}

/// The members of an `impl` block or a trait (`M` is `ImplItem` or `TraitItem`), one chunk
/// at a time.
fn members_by_chunk<M: Parse>(trees: &[TokenTree], left_out: &mut Vec<LeftOutItem>) -> Vec<M> {
    let mut members = Vec::new();
    for chunk in chunks(trees) {
        let chunk = &trees[chunk];
        match parse_repaired::<M>(stream(chunk)) {
            Ok(member) => members.push(member),
            Err(_) => left_out.push(left_out_item(chunk)),
        }
    }
    members
}

/// Where the inner attributes (`#![…]`) at the start of `trees` end.
fn inner_attributes_end(trees: &[TokenTree]) -> usize {
    let mut at = 0;
    while is_punct(trees.get(at), '#')
        && is_punct(trees.get(at + 1), '!')
        && matches!(trees.get(at + 2), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Bracket)
    {
        at += 3;
    }
    at
}

/// The token ranges of the items in `trees`, guessed from their shape: an item ends at its
/// first `;` or `{ … }` at this level (a `{ … }` followed by `;` takes it along), or, for
/// `use`, `const`, `static`, `type` and `extern crate`, at its `;`.
fn chunks(trees: &[TokenTree]) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < trees.len() {
        let end = chunk_end(trees, start);
        out.push(start..end);
        start = end;
    }
    out
}

/// One past the last token of the item starting at `start`.
fn chunk_end(trees: &[TokenTree], start: usize) -> usize {
    let to_semicolon = matches!(
        keyword_of(&trees[start..]).as_deref(),
        Some("use" | "const" | "static" | "type" | "crate" | "let")
    );
    let mut at = start;
    while at < trees.len() {
        match &trees[at] {
            TokenTree::Punct(p) if p.as_char() == ';' => return at + 1,
            TokenTree::Group(g) if g.delimiter() == Delimiter::Brace && !to_semicolon => {
                return if is_punct(trees.get(at + 1), ';') {
                    at + 2
                } else {
                    at + 1
                };
            }
            _ => at += 1,
        }
    }
    trees.len()
}

/// The keyword that says what an item is (`fn`, `impl`, `mod`, `use`, `const` of a constant,
/// `crate` of `extern crate`, a macro's name), past its attributes, visibility and
/// qualifiers.
fn keyword_of(trees: &[TokenTree]) -> Option<String> {
    let mut at = 0;
    while is_punct(trees.get(at), '#') {
        at += 2;
    }
    while let Some(tree) = trees.get(at) {
        match tree {
            TokenTree::Ident(ident) => {
                let word = ident.to_string();
                match word.as_str() {
                    "pub" | "unsafe" | "async" | "default" | "auto" => at += 1,
                    "extern" => at += 1,
                    // `const fn` is a function; `const X` a constant.
                    "const"
                        if matches!(trees.get(at + 1), Some(TokenTree::Ident(next))
                            if matches!(next.to_string().as_str(), "fn" | "unsafe" | "async" | "extern")) =>
                    {
                        at += 1
                    }
                    _ => return Some(word),
                }
            }
            // `pub(crate)`, an ABI string.
            TokenTree::Group(g) if g.delimiter() == Delimiter::Parenthesis => at += 1,
            TokenTree::Literal(_) => at += 1,
            _ => return None,
        }
    }
    None
}

/// The record of a chunk left out.
fn left_out_item(chunk: &[TokenTree]) -> LeftOutItem {
    let first = chunk.first().map(|t| t.span().start());
    let last = chunk.last().map(|t| t.span().end());
    let reason = match parse_repaired::<syn::Item>(stream(chunk)) {
        Err(error) => {
            let at = error.span().start();
            format!("{}:{}: {error}", at.line, at.column + 1)
        }
        Ok(_) => "does not parse here".to_string(),
    };
    LeftOutItem {
        start: first.map_or((0, 0), crate::position),
        end: last.map_or((0, 0), crate::position),
        what: describe(chunk),
        reason,
    }
}

/// `fn parse`, `impl Reader`, `mod tests`: the item's keyword and the token after it.
fn describe(chunk: &[TokenTree]) -> String {
    let mut at = 0;
    while is_punct(chunk.get(at), '#') {
        at += 2;
    }
    let words: Vec<String> = chunk[at.min(chunk.len())..]
        .iter()
        .filter(|t| !matches!(t, TokenTree::Group(_)))
        .take(4)
        .map(|t| t.to_string())
        .collect();
    let keyword = keyword_of(chunk);
    match keyword.and_then(|k| words.iter().position(|w| *w == k)) {
        Some(k) if k + 1 < words.len() => format!("{} {}", words[k], words[k + 1]),
        _ => words.join(" "),
    }
}

fn stream(trees: &[TokenTree]) -> TokenStream {
    trees.iter().cloned().collect()
}

fn is_punct(tree: Option<&TokenTree>, c: char) -> bool {
    matches!(tree, Some(TokenTree::Punct(p)) if p.as_char() == c)
}

/// Where syn's error points: the indices of the groups entered, then the index of the token
/// in the innermost one (its length: the closing delimiter).
#[derive(Debug)]
struct Location {
    groups: Vec<usize>,
    index: usize,
}

/// The token starting at `at` (or the closing delimiter there), searched depth first.
fn locate(trees: &[TokenTree], at: LineColumn) -> Option<Location> {
    for (i, tree) in trees.iter().enumerate() {
        if tree.span().start() == at {
            return Some(Location {
                groups: Vec::new(),
                index: i,
            });
        }
        if let TokenTree::Group(group) = tree {
            let inner: Vec<TokenTree> = group.stream().into_iter().collect();
            let found = locate(&inner, at).or_else(|| {
                (group.span_close().start() == at).then_some(Location {
                    groups: Vec::new(),
                    index: inner.len(),
                })
            });
            if let Some(mut found) = found {
                found.groups.insert(0, i);
                return Some(found);
            }
        }
    }
    None
}

/// The tokens with one repair made where syn's error at `at` points, if one applies.
fn repair(tokens: &TokenStream, at: LineColumn) -> Option<TokenStream> {
    let trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
    let location = locate(&trees, at)?;
    let repaired = repair_in(trees, &location.groups, location.index)?;
    Some(repaired.into_iter().collect())
}

/// Makes the repair in the stream at `groups` (relative to `trees`), whose token at `index`
/// the error points at.
fn repair_in(mut trees: Vec<TokenTree>, groups: &[usize], index: usize) -> Option<Vec<TokenTree>> {
    if let Some((&first, rest)) = groups.split_first() {
        let TokenTree::Group(group) = &trees[first] else {
            return None;
        };
        let inner: Vec<TokenTree> = group.stream().into_iter().collect();
        let repaired = match repair_in(inner.clone(), rest, index) {
            Some(repaired) => repaired,
            // A parameter without a name: the error points at it, at the end of the list,
            // or into a group inside it (`[u8; 3]`).
            None if is_parameter_list(&trees, first) => {
                let holding = rest.first().copied().unwrap_or(index);
                name_parameter(&inner, segment_start(&inner, holding))?
            }
            None => return None,
        };
        let mut new = Group::new(group.delimiter(), repaired.into_iter().collect());
        new.set_span(group.span());
        trees[first] = TokenTree::Group(new);
        return Some(trees);
    }
    add_dyn(&trees, index).or_else(|| make_raw(&trees, index))
}

/// `Fn(…)`, `FnMut(…)`, `FnOnce(…)` as a type, without `dyn` (editions 2015 and 2018): the
/// error points at the parentheses; `dyn` goes before the trait's path.
fn add_dyn(trees: &[TokenTree], index: usize) -> Option<Vec<TokenTree>> {
    let is_paren = matches!(trees.get(index), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis);
    let name = match trees.get(index.checked_sub(1)?) {
        Some(TokenTree::Ident(ident)) => ident.to_string(),
        _ => return None,
    };
    if !is_paren || !matches!(name.as_str(), "Fn" | "FnMut" | "FnOnce") {
        return None;
    }
    // Back over the path's `a::b::`.
    let mut start = index - 1;
    while start >= 2 && is_punct(trees.get(start - 1), ':') && is_punct(trees.get(start - 2), ':') {
        match trees.get(start.wrapping_sub(3)) {
            Some(TokenTree::Ident(_)) if start >= 3 => start -= 3,
            _ => {
                start -= 2;
                break;
            }
        }
    }
    if let Some(TokenTree::Ident(before)) = start.checked_sub(1).and_then(|i| trees.get(i))
        && matches!(before.to_string().as_str(), "dyn" | "impl")
    {
        return None;
    }
    let mut out = trees.to_vec();
    out.insert(
        start,
        TokenTree::Ident(Ident::new("dyn", trees[start].span())),
    );
    Some(out)
}

/// A name that later editions made a keyword (`async`, `await`, `try`, `dyn`), used as a
/// name: it is made raw (`r#async`), which every edition reads as the same name.
fn make_raw(trees: &[TokenTree], index: usize) -> Option<Vec<TokenTree>> {
    let TokenTree::Ident(ident) = trees.get(index)? else {
        return None;
    };
    let word = ident.to_string();
    let next = trees.get(index + 1);
    let next_word = match next {
        Some(TokenTree::Ident(i)) => Some(i.to_string()),
        _ => None,
    };
    let used_as_keyword = match word.as_str() {
        "async" => {
            matches!(next_word.as_deref(), Some("fn" | "move" | "unsafe"))
                || matches!(next, Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Brace)
                || is_punct(next, '|')
        }
        "await" => index > 0 && is_punct(trees.get(index - 1), '.'),
        "try" => matches!(next, Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Brace),
        // `dyn Trait`: the keyword before a bound.
        "dyn" => {
            next_word.is_some()
                || is_punct(next, '?')
                || matches!(next, Some(TokenTree::Punct(p)) if p.as_char() == '\'' || p.as_char() == ':')
                || matches!(next, Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis)
        }
        _ => return None,
    };
    if used_as_keyword {
        return None;
    }
    let mut out = trees.to_vec();
    out[index] = TokenTree::Ident(Ident::new_raw(&word, ident.span()));
    Some(out)
}

/// Whether the group at `index` of `trees` is a function's parameter list: it follows
/// `fn NAME` or `fn NAME<…>`.
fn is_parameter_list(trees: &[TokenTree], index: usize) -> bool {
    if !matches!(&trees[index], TokenTree::Group(g) if g.delimiter() == Delimiter::Parenthesis) {
        return false;
    }
    let mut at = index;
    // Back over generics `<…>`, nested ones too.
    if is_punct(at.checked_sub(1).and_then(|i| trees.get(i)), '>') {
        let mut depth = 0i32;
        loop {
            let Some(prev) = at.checked_sub(1) else {
                return false;
            };
            at = prev;
            match &trees[at] {
                TokenTree::Punct(p) if p.as_char() == '>' => depth += 1,
                TokenTree::Punct(p) if p.as_char() == '<' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                TokenTree::Group(g) if g.delimiter() == Delimiter::Brace => return false,
                TokenTree::Punct(p) if p.as_char() == ';' => return false,
                _ => {}
            }
        }
    }
    let name = at.checked_sub(1).and_then(|i| trees.get(i));
    let keyword = at.checked_sub(2).and_then(|i| trees.get(i));
    matches!(name, Some(TokenTree::Ident(_)))
        && matches!(keyword, Some(TokenTree::Ident(k)) if k == "fn")
}

/// Where the comma-separated segment holding `index` starts.
fn segment_start(trees: &[TokenTree], index: usize) -> usize {
    let index = index.min(trees.len());
    trees[..index]
        .iter()
        .rposition(|t| is_punct(Some(t), ','))
        .map_or(0, |comma| comma + 1)
}

/// A parameter without a name (`fn reseed(&mut self, Seed)`, edition 2015) named `_`: `_:`
/// goes before its type, past its attributes. `None` for a receiver or a named parameter.
fn name_parameter(trees: &[TokenTree], start: usize) -> Option<Vec<TokenTree>> {
    let mut at = start;
    while is_punct(trees.get(at), '#') {
        at += 2;
    }
    let end = trees[at.min(trees.len())..]
        .iter()
        .position(|t| is_punct(Some(t), ','))
        .map_or(trees.len(), |p| at + p);
    let segment = trees.get(at..end)?;
    if segment.is_empty() {
        return None;
    }
    let words: Vec<String> = segment.iter().map(|t| t.to_string()).collect();
    if words.iter().any(|w| w == "self") {
        return None;
    }
    // A named parameter has a lone `:` at its level (`::` is a path's).
    let lone_colon = segment.iter().enumerate().any(|(i, t)| match t {
        TokenTree::Punct(p) if p.as_char() == ':' => {
            p.spacing() == Spacing::Alone
                && !(i > 0 && matches!(&segment[i - 1], TokenTree::Punct(q) if q.as_char() == ':' && q.spacing() == Spacing::Joint))
        }
        _ => false,
    });
    if lone_colon {
        return None;
    }
    let span = segment[0].span();
    let underscore = Ident::new("_", span);
    let mut colon = Punct::new(':', Spacing::Alone);
    colon.set_span(span);
    let mut out = trees.to_vec();
    out.splice(
        at..at,
        [TokenTree::Ident(underscore), TokenTree::Punct(colon)],
    );
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::ToTokens;

    fn repaired_text(src: &str) -> String {
        let file = parse_file(src).unwrap_or_else(|e| panic!("{src}: {e}"));
        file.into_token_stream().to_string()
    }

    #[test]
    fn closure_traits_without_dyn_get_it_wherever_they_are_types() {
        for (src, expected) in [
            ("fn f(x: Box<Fn(u8)>) {}", "Box < dyn Fn (u8) >"),
            (
                "fn f(x: &mut FnMut(u8) -> u8) {}",
                "& mut dyn FnMut (u8) -> u8",
            ),
            (
                "type T = Arc<::std::ops::Fn() + Send + Sync>;",
                "dyn :: std :: ops :: Fn ()",
            ),
            ("fn f(x: *const Fn()) {}", "* const dyn Fn ()"),
            (
                "fn f(x: &(Fn(u8) -> u8 + Send)) {}",
                "& (dyn Fn (u8) -> u8 + Send)",
            ),
            ("impl<F> X for Box<FnMut()> {}", "Box < dyn FnMut () >"),
            (
                "fn f<F>(f: F) where F: FnMut(u8, &mut FnMut(&Display) -> u8) -> u8 {}",
                "F : FnMut (u8 , & mut dyn FnMut (& Display) -> u8) -> u8",
            ),
        ] {
            let text = repaired_text(src);
            assert!(text.contains(expected), "{src}\n→ {text}");
            assert_eq!(text.matches("dyn").count(), 1, "{src}\n→ {text}");
        }
    }

    #[test]
    fn unnamed_parameters_are_named_underscore() {
        for (src, expected) in [
            (
                "trait T { fn f(u8, &str) -> u8; }",
                "fn f (_ : u8 , _ : & str)",
            ),
            (
                "trait T { fn f(&self, u8) -> u8 { 0 } }",
                "fn f (& self , _ : u8)",
            ),
            (
                "trait T { fn f(&mut self, x: u8, [u8; 3]); }",
                "x : u8 , _ : [u8 ; 3]",
            ),
            (
                "trait T { fn f<A>(&self, Vec<A>, ::std::string::String); }",
                "_ : Vec < A > , _ : :: std",
            ),
            ("extern \"C\" { fn g(u8); }", "fn g (_ : u8)"),
        ] {
            let text = repaired_text(src);
            assert!(text.contains(expected), "{src}\n→ {text}");
        }
    }

    #[test]
    fn later_keywords_used_as_names_are_made_raw() {
        let text =
            repaired_text("fn async() {} fn f() { let await = 1; let try = 2; let dyn = 3; }");
        for raw in ["r#async", "r#await", "r#try", "r#dyn"] {
            assert!(text.contains(raw), "{text}");
        }
        // The keywords themselves are left alone.
        let text = repaired_text("async fn g() { h().await; let x: Box<dyn Fn()> = todo!(); }");
        assert!(!text.contains("r#"), "{text}");
    }

    #[test]
    fn positions_in_the_repaired_file_are_positions_in_the_text() {
        let src =
            "trait T {\n    fn f(&self, u8);\n}\nfn g(h: &Fn(u8) -> u8) -> u8 {\n    h(1)\n}\n";
        let file = parse_file(src).unwrap();
        let syn::Item::Fn(g) = &file.items[1] else {
            panic!()
        };
        assert_eq!(crate::position(g.sig.ident.span().start()), (4, 4));
        let syn::Stmt::Expr(call, _) = &g.block.stmts[0] else {
            panic!()
        };
        let start = syn::spanned::Spanned::span(call).start();
        assert_eq!(crate::position(start), (5, 5));
    }

    #[test]
    fn an_item_that_does_not_parse_is_left_out_and_its_neighbours_kept() {
        let src = "use std::fmt;\n\
                   fn before() -> u8 { 1 }\n\
                   fn broken() { let = ; }\n\
                   mod inner {\n    fn kept() {}\n    fn also_broken() { 1 +* ; }\n}\n\
                   impl S {\n    fn good(&self) {}\n    fn bad(&self) { match }\n    fn good2(&self) {}\n}\n\
                   const N: usize = { 3 };\n\
                   fn after() {}\n";
        let parsed = parse_file_by_item(src).unwrap();
        let names: Vec<String> = parsed
            .file
            .items
            .iter()
            .map(|i| describe(&i.to_token_stream().into_iter().collect::<Vec<_>>()))
            .collect();
        assert_eq!(
            names,
            [
                "use std",
                "fn before",
                "mod inner",
                "impl S",
                "const N",
                "fn after"
            ],
        );
        let what: Vec<&str> = parsed.left_out.iter().map(|l| l.what.as_str()).collect();
        assert_eq!(what, ["fn broken", "fn also_broken", "fn bad"]);
        assert_eq!(parsed.left_out[0].start, (3, 1));
        assert!(
            parsed.left_out[0].reason.starts_with("3:"),
            "{:?}",
            parsed.left_out[0]
        );
        let syn::Item::Impl(imp) = &parsed.file.items[3] else {
            panic!()
        };
        assert_eq!(imp.items.len(), 2);
        assert!(parsed.left_out[2].within(8, 12));
        // A file without such items parses whole.
        assert!(parse_file_by_item("fn a() {}").unwrap().left_out.is_empty());
        // Text that is not tokens is an error.
        assert!(parse_file_by_item("fn a() {").is_err());
    }

    #[test]
    fn a_brace_inside_an_items_head_does_not_split_it() {
        let src = "fn broken() { let = ; }\nimpl Foo<{ N }> { fn f(&self) {} }\nfn after() {}\n";
        let parsed = parse_file_by_item(src).unwrap();
        assert_eq!(parsed.file.items.len(), 2, "{:?}", parsed.left_out);
        assert_eq!(parsed.left_out.len(), 1);
    }
}
