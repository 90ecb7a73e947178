//! The rename source: a statement copied from its neighbour and not renamed throughout.
//! Two neighbouring statements of one block with the same tokens but for some names are a
//! copy and its original; the names that differ are the copy's renames (`old` → `new`,
//! `old_indexes` → `new_indexes`). A name the copy kept although a rename covers it is
//! one the rename missed:
//!
//! ```text
//! let old_indexes = unique(old, old_range.start, old_range.end);
//! let new_indexes = unique(new, old_range.start, old_range.end);  // old_range → new_range
//! ```
//!
//! A kept name is covered when the copy renamed that very name elsewhere (`p.x - q.x` copied
//! as `p.y - q.x`: `x` → `y`), or when it is made of words (`_`-separated) of which one is a
//! word a rename changed (`old_range` holds `old`, renamed `new`). The renamed name must
//! already be a name of the enclosing function, and every kept occurrence of the name in
//! the site's code is renamed at once. The code itself asks for these edits, so they are
//! rebuilt first (see `search::asked_for`); a rebuild judges them.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::ops::Range;

use proc_macro2::{Delimiter, TokenStream, TokenTree};
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::visit::{self, Visit};

use super::{Candidate, CandidateEdit, Files, Target, holds};

/// The source's name in the report.
pub const NAME: &str = "rename";
/// The names a copied statement kept, renamed as its other names were.
pub const RENAME: &str = "complete-rename";

/// As a variable swap: one name for another, which may not type-check.
const COST: u32 = 2;

/// A statement's tokens, flat: names with their bytes, everything else as text.
#[derive(Debug, PartialEq)]
enum Leaf {
    Name(String, Range<usize>),
    Other(String),
}

fn flatten(tokens: TokenStream, out: &mut Vec<Leaf>) {
    for tree in tokens {
        match tree {
            TokenTree::Group(g) => {
                let (open, close) = match g.delimiter() {
                    Delimiter::Parenthesis => ("(", ")"),
                    Delimiter::Brace => ("{", "}"),
                    Delimiter::Bracket => ("[", "]"),
                    Delimiter::None => ("", ""),
                };
                out.push(Leaf::Other(open.into()));
                flatten(g.stream(), out);
                out.push(Leaf::Other(close.into()));
            }
            TokenTree::Ident(i) => out.push(Leaf::Name(i.to_string(), i.span().byte_range())),
            TokenTree::Punct(p) => out.push(Leaf::Other(p.as_char().to_string())),
            TokenTree::Literal(l) => out.push(Leaf::Other(l.to_string())),
        }
    }
}

/// Finds the names of the innermost function around the bytes `at`.
struct Enclosing {
    at: Range<usize>,
    names: BTreeSet<String>,
}

fn leaves(stmt: &syn::Stmt) -> Option<Vec<Leaf>> {
    if matches!(stmt, syn::Stmt::Item(_)) {
        return None;
    }
    let mut out = Vec::new();
    flatten(stmt.to_token_stream(), &mut out);
    Some(out)
}

impl Enclosing {
    fn function(&mut self, tokens: TokenStream, body: &syn::Block) {
        if holds(&body.span().byte_range(), &self.at) {
            let mut flat = Vec::new();
            flatten(tokens, &mut flat);
            self.names = (flat.into_iter())
                .filter_map(|l| match l {
                    Leaf::Name(n, _) => Some(n),
                    Leaf::Other(_) => None,
                })
                .collect();
        }
    }
}

impl<'ast> Visit<'ast> for Enclosing {
    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        self.function(f.to_token_stream(), &f.block);
        visit::visit_item_fn(self, f);
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        self.function(f.to_token_stream(), &f.block);
        visit::visit_impl_item_fn(self, f);
    }

    fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
        if let Some(body) = &f.default {
            self.function(f.to_token_stream(), body);
        }
        visit::visit_trait_item_fn(self, f);
    }
}

/// The one word (of `_`-separated words) that differs between `a` and `b` of as many
/// words, or `None`.
fn word_renamed(a: &str, b: &str) -> Option<(String, String)> {
    let (wa, wb): (Vec<&str>, Vec<&str>) = (a.split('_').collect(), b.split('_').collect());
    if wa.len() != wb.len() {
        return None;
    }
    let mut differ = wa.iter().zip(&wb).filter(|(x, y)| x != y);
    let (x, y) = differ.next()?;
    (differ.next().is_none() && !x.is_empty() && !y.is_empty())
        .then(|| (x.to_string(), y.to_string()))
}

/// A name, not a keyword (`self`, `let`, `mut`, …).
fn is_name(n: &str) -> bool {
    syn::parse_str::<syn::Ident>(n).is_ok()
}

/// The renames `copy` missed against `original` (the same tokens but for some names): per
/// kept name, its new name and the bytes of its kept occurrences.
fn missed(original: &[Leaf], copy: &[Leaf]) -> BTreeMap<String, (String, Vec<Range<usize>>)> {
    let mut out = BTreeMap::new();
    if original.len() != copy.len() {
        return out;
    }
    let mut renamed: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    let mut kept: Vec<(&str, &Range<usize>)> = Vec::new();
    for (o, c) in original.iter().zip(copy) {
        match (o, c) {
            (Leaf::Other(a), Leaf::Other(b)) if a == b => {}
            (Leaf::Name(a, _), Leaf::Name(b, bytes)) => {
                if a == b {
                    kept.push((b, bytes));
                } else if is_name(a) && is_name(b) {
                    renamed.entry(a).or_default().insert(b);
                } else {
                    return out;
                }
            }
            _ => return out,
        }
    }
    // One name renamed two ways is no rename.
    let renamed: BTreeMap<&str, &str> = (renamed.into_iter())
        .filter(|(_, to)| to.len() == 1)
        .map(|(from, to)| (from, *to.iter().next().expect("one")))
        .collect();
    let words: Vec<(String, String)> = (renamed.iter())
        .filter_map(|(a, b)| word_renamed(a, b))
        .collect();
    for (name, bytes) in kept {
        if !is_name(name) {
            continue;
        }
        let new = renamed.get(name).map(|n| n.to_string()).or_else(|| {
            words.iter().find_map(|(from, to)| {
                let parts: Vec<&str> = name.split('_').collect();
                (parts.len() > 1 && parts.contains(&from.as_str())).then(|| {
                    (parts.iter())
                        .map(|p| if p == from { to.as_str() } else { p })
                        .collect::<Vec<_>>()
                        .join("_")
                })
            })
        });
        if let Some(new) = new {
            let entry = out
                .entry(name.to_string())
                .or_insert_with(|| (new, Vec::new()));
            entry.1.push(bytes.clone());
        }
    }
    out
}

/// The source: per target its candidates in order.
pub struct Renames<'a> {
    files: &'a Files,
    queues: super::Queues,
}

impl<'a> Renames<'a> {
    /// A source over the targets' `files` as read.
    pub fn new(files: &'a Files) -> Renames<'a> {
        Renames {
            files,
            queues: BTreeMap::new(),
        }
    }

    fn candidates(&mut self, target: &Target) -> VecDeque<Candidate> {
        let mut out = VecDeque::new();
        let Some((_, file)) = self.files.parsed(&target.path) else {
            return out;
        };
        let at = target.located.bytes.clone();
        // The statement holding the site and its neighbours (before, after), as flat tokens.
        let Some((stmts, i)) = super::statement_around(&file, &at) else {
            return out;
        };
        let Some(own) = leaves(&stmts[i]) else {
            return out;
        };
        let neighbours: Vec<Vec<Leaf>> = ([i.checked_sub(1), Some(i + 1)].into_iter().flatten())
            .filter_map(|j| stmts.get(j).and_then(leaves))
            .collect();
        let mut enclosing = Enclosing {
            at: at.clone(),
            names: BTreeSet::new(),
        };
        enclosing.visit_file(&file);
        let original = &target.located.original;
        let mut seen = BTreeSet::new();
        for neighbour in &neighbours {
            for (new, occurrences) in missed(neighbour, &own).into_values() {
                let inside: Vec<&Range<usize>> =
                    occurrences.iter().filter(|r| holds(&at, r)).collect();
                if inside.is_empty() || !enclosing.names.contains(&new) {
                    continue;
                }
                let mut rust = original.clone();
                for r in inside.iter().rev() {
                    rust.replace_range(r.start - at.start..r.end - at.start, &new);
                }
                if seen.insert(rust.clone()) {
                    let edit = CandidateEdit::at(target.site.key(), rust);
                    out.push_back(Candidate::one(edit, RENAME, COST, NAME));
                }
            }
        }
        out
    }
}

super::listed!(Renames<'_>);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repair::CandidateSource;
    use crate::repair::expression::Types;
    use crate::repair::scratch_target;
    use autodebug_runtime::protocol::SiteKind;

    const TEXT: &str = "\
use std::ops::Range;

pub fn total(a: &[u8], b: &[u8], a_span: Range<usize>, b_span: Range<usize>) -> usize {
    let a_count = count(a, a_span.start, a_span.end);
    let b_count = count(b, a_span.start, a_span.end);
    a_count + b_count
}

pub struct P { x: i64, y: i64 }

pub fn delta(p: &P, q: &P) -> (i64, i64) {
    let dx = p.x - q.x;
    let dy = p.y - q.x;
    (dx, dy)
}

pub fn bounds(v: &[i64], k: i64) -> (i64, i64) {
    let lo = v.iter().min().unwrap() - k;
    let hi = v.iter().max().unwrap() - k;
    (lo, hi)
}

fn count(s: &[u8], from: usize, to: usize) -> usize {
    s[from..to].len()
}
";

    fn candidates(code: &str) -> Vec<String> {
        let (files, target) = scratch_target(
            TEXT,
            TEXT.find(code).unwrap(),
            code,
            SiteKind::Let,
            Types::default(),
        );
        (Renames::new(&files).next(&target, 100).into_iter())
            .map(|c| {
                assert_eq!(
                    (c.template.as_str(), c.source, c.cost),
                    (RENAME, NAME, COST)
                );
                assert!(c.edits[0].expr.is_none(), "a rebuild judges it");
                c.edits[0].rust.clone()
            })
            .collect()
    }

    #[test]
    fn a_name_holding_a_renamed_word_is_renamed_throughout() {
        assert_eq!(
            candidates("count(b, a_span.start, a_span.end)"),
            ["count(b, b_span.start, b_span.end)"]
        );
        // The original, against the copy: `b_span` is no name it kept.
        assert!(candidates("count(a, a_span.start, a_span.end)").is_empty());
    }

    #[test]
    fn a_name_the_copy_renamed_elsewhere_is_renamed_where_kept() {
        assert_eq!(candidates("p.y - q.x"), ["p.y - q.y"]);
    }

    #[test]
    fn names_kept_by_every_rename_stay() {
        // `min` → `max` and `lo` → `hi`: `v`, `iter`, `unwrap` and `k` are no rename's.
        assert!(candidates("v.iter().max().unwrap() - k").is_empty());
    }
}
