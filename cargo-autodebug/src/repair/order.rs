//! The statement-order source: two neighbouring statements in the wrong order. The
//! statement of a block that holds a site changes places with the statement before it and
//! with the one after it:
//!
//! ```text
//! match self.ch() { '"' => break, _ => {} }       self.lookahead(1);
//! self.lookahead(1);                          →   match self.ch() { '"' => break, _ => {} }
//! ```
//!
//! Only where the order can matter and the swap can compile: the two share a name (a
//! binding, a field, `self`; not a method's or a macro's name), neither binds a name the
//! other uses, neither is a jump (`return`, `break`, `continue`, a panic) or the block's
//! value. Each statement keeps its text and the text between them stays where it was, so
//! the code stays as formatted. The runtime cannot evaluate a swap: each is rebuilt, after
//! the one-token edits (a statement moved, as one put in or taken out).

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::ops::Range;

use proc_macro2::{TokenStream, TokenTree};
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::visit::{self, Visit};

use super::{Candidate, CandidateEdit, Files, Target};

/// The source's name in the report.
pub const NAME: &str = "statement-order";
/// Two neighbouring statements swapped.
pub const SWAP: &str = "swap-statements";

/// As a statement taken out (see the statement source).
const COST: u32 = 3;

/// A statement as the swap sees it: its bytes, the names it uses, the names it binds, and
/// whether it may move at all.
struct Statement {
    bytes: Range<usize>,
    uses: BTreeSet<String>,
    binds: BTreeSet<String>,
    movable: bool,
}

/// The names of `tokens` that may carry data: bindings, fields, paths, `self`; not a
/// method's name (`.name(`) nor a macro's (`name!`).
fn data_names(tokens: TokenStream, out: &mut BTreeSet<String>) {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    for (i, tree) in trees.iter().enumerate() {
        match tree {
            TokenTree::Group(g) => data_names(g.stream(), out),
            TokenTree::Ident(name) => {
                let after_dot =
                    i > 0 && matches!(&trees[i - 1], TokenTree::Punct(p) if p.as_char() == '.');
                let called = matches!(trees.get(i + 1), Some(TokenTree::Group(g)) if g.delimiter() == proc_macro2::Delimiter::Parenthesis);
                let macro_name =
                    matches!(trees.get(i + 1), Some(TokenTree::Punct(p)) if p.as_char() == '!');
                if !(macro_name || after_dot && called) {
                    out.insert(name.to_string());
                }
            }
            TokenTree::Punct(_) | TokenTree::Literal(_) => {}
        }
    }
}

/// The names a pattern binds.
fn bound(pat: &syn::Pat, out: &mut BTreeSet<String>) {
    struct Bindings<'o>(&'o mut BTreeSet<String>);
    impl<'ast> Visit<'ast> for Bindings<'_> {
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            self.0.insert(p.ident.to_string());
            visit::visit_pat_ident(self, p);
        }
    }
    Bindings(out).visit_pat(pat);
}

/// Whether the statement leaves its block: `return`, `break`, `continue`, a panic.
fn jumps(stmt: &syn::Stmt) -> bool {
    let panics = |mac: &syn::Macro| {
        (mac.path.segments.last()).is_some_and(|s| {
            ["panic", "unreachable", "todo", "unimplemented"]
                .contains(&s.ident.to_string().as_str())
        })
    };
    match stmt {
        syn::Stmt::Expr(e, _) => match e {
            syn::Expr::Return(_) | syn::Expr::Break(_) | syn::Expr::Continue(_) => true,
            syn::Expr::Macro(m) => panics(&m.mac),
            _ => false,
        },
        syn::Stmt::Macro(m) => panics(&m.mac),
        syn::Stmt::Local(_) | syn::Stmt::Item(_) => false,
    }
}

fn statement(stmt: &syn::Stmt, last: bool) -> Statement {
    let mut uses = BTreeSet::new();
    let mut binds = BTreeSet::new();
    match stmt {
        syn::Stmt::Local(local) => {
            bound(&local.pat, &mut binds);
            if let Some(init) = &local.init {
                data_names(init.expr.to_token_stream(), &mut uses);
                if let Some((_, diverge)) = &init.diverge {
                    data_names(diverge.to_token_stream(), &mut uses);
                }
            }
        }
        other => data_names(other.to_token_stream(), &mut uses),
    }
    let value = last && matches!(stmt, syn::Stmt::Expr(_, None));
    Statement {
        bytes: stmt.span().byte_range(),
        uses,
        binds,
        movable: !matches!(stmt, syn::Stmt::Item(_)) && !value && !jumps(stmt),
    }
}

/// Whether `first` and `second` (in this order) may change places, and changing them can
/// change what the code does.
fn swappable(first: &Statement, second: &Statement) -> bool {
    let mut all_first = first.uses.clone();
    all_first.extend(first.binds.iter().cloned());
    first.movable
        && second.movable
        && first.binds.is_disjoint(&second.uses)
        && second.binds.is_disjoint(&all_first)
        && !first.uses.is_disjoint(&second.uses)
}

/// The pairs of statements, by their bytes, that the statement holding `at` may swap with
/// its neighbours in the innermost block (see [`super::statement_around`]).
fn pairs(file: &syn::File, at: &Range<usize>) -> Vec<(Range<usize>, Range<usize>)> {
    let Some((stmts, i)) = super::statement_around(file, at) else {
        return Vec::new();
    };
    let n = stmts.len();
    let own = statement(&stmts[i], i + 1 == n);
    let mut out = Vec::new();
    for j in [i.checked_sub(1), Some(i + 1)].into_iter().flatten() {
        let Some(other) = stmts.get(j) else {
            continue;
        };
        let other = statement(other, j + 1 == n);
        let (first, second) = if j < i {
            (&other, &own)
        } else {
            (&own, &other)
        };
        if swappable(first, second) {
            out.push((first.bytes.clone(), second.bytes.clone()));
        }
    }
    out
}

/// The source: per target its candidates in order.
pub struct StatementOrder<'a> {
    files: &'a Files,
    queues: super::Queues,
    /// The swaps proposed so far, by file and bytes: two sites of one statement ask for
    /// the same ones.
    proposed: BTreeSet<(String, usize, usize)>,
}

impl<'a> StatementOrder<'a> {
    /// A source over the targets' `files` as read.
    pub fn new(files: &'a Files) -> StatementOrder<'a> {
        StatementOrder {
            files,
            queues: BTreeMap::new(),
            proposed: BTreeSet::new(),
        }
    }

    fn candidates(&mut self, target: &Target) -> VecDeque<Candidate> {
        let mut out = VecDeque::new();
        let Some((text, file)) = self.files.parsed(&target.path) else {
            return out;
        };
        for (first, second) in pairs(&file, &target.located.bytes) {
            let (Some(a), Some(gap), Some(b)) = (
                text.get(first.clone()),
                text.get(first.end..second.start),
                text.get(second.clone()),
            ) else {
                continue;
            };
            if !self
                .proposed
                .insert((target.path.clone(), first.start, second.end))
            {
                continue;
            }
            let rust = format!("{b}{gap}{a}");
            let edit =
                CandidateEdit::at(target.site.key(), rust).replacing(first.start..second.end);
            out.push_back(Candidate::one(edit, SWAP, COST, NAME));
        }
        out
    }
}

super::listed!(StatementOrder<'_>);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repair::CandidateSource;
    use crate::repair::expression::Types;
    use crate::repair::{scratch_target, with_statement_edit};
    use autodebug_runtime::protocol::SiteKind;

    const TEXT: &str = "\
pub struct Reader { buf: Vec<char>, pos: usize }

impl Reader {
    pub fn quoted(&mut self) -> usize {
        loop {
            match self.peek() {
                '\"' => break,
                _ => {}
            }
            self.fill(self.pos + 2);
            self.pos += 1;
        }
        self.pos
    }

    pub fn split(&mut self, n: usize) -> usize {
        let head = self.pos + n;
        let tail = head + 1;
        log(tail);
        println!(\"{}\", n);
        return tail;
    }
}

fn log(n: usize) {}
";

    fn swapped(code: &str, kind: SiteKind) -> Vec<String> {
        swapped_in(code, code, kind)
    }

    /// The swaps of the site `code` where it stands in `within`.
    fn swapped_in(code: &str, within: &str, kind: SiteKind) -> Vec<String> {
        let (files, target) = scratch_target(
            TEXT,
            TEXT.find(within).unwrap() + within.find(code).unwrap(),
            code,
            kind,
            Types::default(),
        );
        (StatementOrder::new(&files).next(&target, 100).into_iter())
            .map(|c| {
                assert_eq!((c.template.as_str(), c.source, c.cost), (SWAP, NAME, COST));
                assert!(c.edits[0].expr.is_none(), "a rebuild judges it");
                with_statement_edit(TEXT, &c.edits[0])
            })
            .collect()
    }

    #[test]
    fn a_statement_changes_places_with_a_neighbour_it_shares_a_name_with() {
        let after = swapped("self.pos + 2", SiteKind::Arg);
        assert_eq!(after.len(), 2, "{after:#?}");
        assert!(after[0].contains(
            "        loop {
            self.fill(self.pos + 2);
            match self.peek() {
                '\"' => break,
                _ => {}
            }
            self.pos += 1;"
        ));
        assert!(after[1].contains(
            "            self.pos += 1;
            self.fill(self.pos + 2);
        }"
        ));
    }

    #[test]
    fn no_swap_moves_a_use_before_its_binding_a_jump_or_the_blocks_value() {
        // `tail` is bound by the statement before and used by the one after.
        assert!(swapped("head + 1", SiteKind::Let).is_empty());
        // `log(tail)` needs `tail` before it; the macro shares no name with it (`n` only,
        // `println` is the macro's) and the `return` never moves.
        assert!(swapped("log(tail)", SiteKind::Call).is_empty());
        // The block's value stays last.
        assert_eq!(
            swapped_in("1", "self.pos += 1", SiteKind::Compound).len(),
            1
        );
    }
}
