//! The code a `macro_rules!` writes, read as Rust where it can be: the functions and
//! `impl` blocks at the top of a rule's body (or of a repetition in it) are the items
//! zero-annotation mode instruments, and every expansion runs their code with the body's
//! own positions. Reading them with the macro's parameters taken as names (`$t` as `t`,
//! `$crate` as `crate`) gives the expressions the runs recorded there, at the bytes of
//! the file that hold them.

use proc_macro2::{Delimiter, Group, TokenStream, TokenTree};
use syn::visit::{self, Visit};

/// `text` parsed as [`crate::parse_file`] does, with the items its `macro_rules!` write
/// ([`macro_rules_items`]) appended: every function whose code a run can record.
pub fn parse_file_with_macro_items(text: &str) -> syn::Result<syn::File> {
    let mut file = crate::parse_file(text)?;
    let written = macro_rules_items(&file);
    file.items.extend(written);
    Ok(file)
}

/// The items the `macro_rules!` of `file` (at any depth) write at the top of their rules'
/// bodies and repetitions, with their parameters read as names. Spans are the file's. An
/// item that does not read as Rust so (a repetition inside a function, a parameter in
/// the place of an operator) is left out.
pub fn macro_rules_items(file: &syn::File) -> Vec<syn::Item> {
    struct Find(Vec<syn::Item>);
    impl<'ast> Visit<'ast> for Find {
        fn visit_item_macro(&mut self, m: &'ast syn::ItemMacro) {
            if m.mac.path.is_ident("macro_rules") {
                let rules: Vec<TokenTree> = m.mac.tokens.clone().into_iter().collect();
                for pair in rules.windows(3) {
                    if let [
                        TokenTree::Punct(eq),
                        TokenTree::Punct(gt),
                        TokenTree::Group(body),
                    ] = pair
                        && eq.as_char() == '='
                        && gt.as_char() == '>'
                    {
                        items_in(body.stream(), &mut self.0);
                    }
                }
            }
            visit::visit_item_macro(self, m);
        }
    }
    let mut find = Find(Vec::new());
    find.visit_file(file);
    find.0
}

/// The items of a rule's body (or a repetition's): each run of tokens up to a top-level
/// brace group or `;` read as an item, a repetition's own items read alike.
fn items_in(stream: TokenStream, out: &mut Vec<syn::Item>) {
    let tokens: Vec<TokenTree> = stream.into_iter().collect();
    let mut chunk: Vec<TokenTree> = Vec::new();
    let flush = |chunk: &mut Vec<TokenTree>, out: &mut Vec<syn::Item>| {
        let item: TokenStream = as_names(std::mem::take(chunk).into_iter().collect());
        if let Ok(item) = syn::parse2::<syn::Item>(item) {
            out.push(item);
        }
    };
    let mut i = 0;
    while i < tokens.len() {
        match (&tokens[i], tokens.get(i + 1)) {
            (TokenTree::Punct(dollar), Some(TokenTree::Group(group)))
                if dollar.as_char() == '$' && group.delimiter() == Delimiter::Parenthesis =>
            {
                flush(&mut chunk, out);
                items_in(group.stream(), out);
                i += 2;
                // The separator and the operator: `$( … ),*`, `$( … )*`.
                for _ in 0..2 {
                    if let Some(TokenTree::Punct(p)) = tokens.get(i)
                        && p.as_char() != '$'
                        && p.as_char() != '#'
                    {
                        i += 1;
                        if matches!(p.as_char(), '*' | '+' | '?') {
                            break;
                        }
                    }
                }
            }
            (tree, _) => {
                chunk.push(tree.clone());
                let ends = match tree {
                    TokenTree::Group(g) => g.delimiter() == Delimiter::Brace,
                    TokenTree::Punct(p) => p.as_char() == ';',
                    _ => false,
                };
                if ends {
                    flush(&mut chunk, out);
                }
                i += 1;
            }
        }
    }
    flush(&mut chunk, out);
}

/// `stream` with each `$` before a name dropped (the name keeps its span), at any depth.
fn as_names(stream: TokenStream) -> TokenStream {
    let tokens: Vec<TokenTree> = stream.into_iter().collect();
    let mut out = Vec::with_capacity(tokens.len());
    for (i, tree) in tokens.iter().enumerate() {
        let parameter = matches!(tokens.get(i + 1), Some(TokenTree::Ident(_)));
        match tree {
            TokenTree::Punct(p) if p.as_char() == '$' && parameter => {}
            TokenTree::Group(g) => {
                let mut group = Group::new(g.delimiter(), as_names(g.stream()));
                group.set_span(g.span());
                out.push(TokenTree::Group(group));
            }
            other => out.push(other.clone()),
        }
    }
    out.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use syn::spanned::Spanned;

    #[test]
    fn functions_and_impls_a_macro_writes_are_read_with_the_files_positions() {
        let text = "\
macro_rules! impls {
    ($t:ty, $name:ident) => {
        impl Twice for $t {
            fn twice(&self) -> $t { *self + *self }
        }
        fn $name(x: $t) -> bool { x < <$t>::MAX }
        $(fn skipped() { $x })*
    };
    ($($t:ty),*) => {
        $(impl Half for $t { fn half(&self) -> $t { *self / 2 } })*
    };
}
mod inner {
    macro_rules! one { () => { fn one() -> u8 { 1 } } }
}
";
        let file = syn::parse_file(text).unwrap();
        let items = macro_rules_items(&file);
        let names: Vec<String> = items
            .iter()
            .map(|item| match item {
                syn::Item::Fn(f) => format!("fn {}", f.sig.ident),
                syn::Item::Impl(_) => "impl".into(),
                _ => "other".into(),
            })
            .collect();
        assert_eq!(
            names,
            ["impl", "fn name", "fn skipped", "impl", "fn one"],
            "{names:?}"
        );
        let syn::Item::Fn(f) = &items[1] else {
            unreachable!()
        };
        let body = &f.block.stmts[0];
        let range = body.span().byte_range();
        assert_eq!(&text[range], "x < <$t>::MAX");
        let syn::Item::Impl(half) = &items[3] else {
            panic!("{names:?}")
        };
        assert_eq!(&text[half.span().byte_range()][..9], "impl Half");
    }
}
