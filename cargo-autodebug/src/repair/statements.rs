//! The statement source: edits a line at a time around a site, for the logic a one-token
//! edit cannot add or take away — the statement that holds the site deleted (an excess
//! `res.push(i)`, `max -= 1`), the `else` branch of the `if` that holds it deleted, and a
//! call that reorders or trims a local vector inserted just before or after the function's
//! statement that holds the site (a missing `v.sort()`, `v.reverse()`, `v.pop()`,
//! `v.dedup()`). The runtime cannot evaluate these: each is checked by a rebuild, after the
//! one-token edits. One edit here is a one-token edit all the same: the operator of a
//! compound assignment (`s *= a[i]` → `s += a[i]`), which lies outside its site (the
//! right-hand side); it is rebuilt among the one-token edits.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::ops::Range;

use syn::spanned::Spanned;
use syn::visit::{self, Visit};

use super::{Candidate, CandidateEdit, Files, Target};

/// The source's name in the report.
pub const NAME: &str = "statement";
/// A statement deleted.
pub const DELETE_STATEMENT: &str = "delete-statement";
/// An `else` branch deleted.
pub const DELETE_ELSE: &str = "delete-else";
/// A call on a local vector inserted.
pub const INSERT_CALL: &str = "insert-call";
/// A compound assignment's operator swapped.
pub const COMPOUND_OPERATOR: &str = "compound-operator";

/// The calls that reorder or trim a vector in place, taking no argument: the ones a
/// missing line most often is.
const IN_PLACE: [&str; 4] = ["sort", "reverse", "pop", "dedup"];

/// How far these edits are from the written code: a compound operator as far as an
/// arithmetic operator inside a site, the line edits past every one-token edit.
const COST_OPERATOR: u32 = 1;
const COST_DELETE: u32 = 3;
const COST_INSERT: u32 = 4;

/// Whether `candidate` edits whole lines (deletes or inserts a statement, deletes a
/// branch): those are rebuilt after the one-token edits.
pub fn edits_lines(candidate: &Candidate) -> bool {
    candidate.template != COMPOUND_OPERATOR && candidate.edits.iter().any(|e| e.statement.is_some())
}

/// What a compound operator may have been meant as, likeliest first: its counterpart,
/// then the commonest (`+=`, `-=`), then the rest of its family.
fn compound_swaps(op: &str) -> &'static [&'static str] {
    match op {
        "+=" => &["-=", "*="],
        "-=" => &["+=", "/="],
        "*=" => &["/=", "+=", "-="],
        "/=" => &["*=", "%=", "+=", "-="],
        "%=" => &["/=", "+=", "-="],
        "|=" => &["&=", "^="],
        "&=" => &["|=", "^="],
        "^=" => &["|=", "&="],
        "<<=" => &[">>="],
        ">>=" => &["<<="],
        _ => &[],
    }
}

/// What a compound operator with the right-hand side `1` may have been meant as: a step up
/// or down (`k /= 1` → `k += 1`, `k += 1` → `k -= 1`), never an operation that does nothing
/// (`k *= 1`).
const STEPS: [&str; 2] = ["+=", "-="];

/// A compound assignment: the operator's bytes and text, the whole expression's bytes,
/// and whether its right-hand side is the literal `1`.
struct Compound {
    operator: Range<usize>,
    op: String,
    whole: Range<usize>,
    right: Range<usize>,
    step: bool,
}

/// A statement of a block: its bytes (the statement, `;` included), and whether it is a
/// statement of the function's own body.
#[derive(Clone)]
struct Statement {
    bytes: Range<usize>,
    top: bool,
    /// What may be deleted of it: itself (an expression statement), its `else` branch (the
    /// bytes from the end of the `then` block to the end of the `if`).
    deletable: bool,
    else_branch: Option<Range<usize>>,
    /// A `return`, or the block's value: nothing after it runs.
    last: bool,
}

/// A function's statements and the vectors it declares mutable.
struct Function {
    bytes: Range<usize>,
    statements: Vec<Statement>,
    /// `let mut v` (or `mut v` parameters) that hold a vector, with the byte where each
    /// comes into scope.
    vectors: Vec<(String, usize)>,
    /// The bytes where a vector declared empty (`Vec::new()`, `vec![]`) comes into scope:
    /// a call on it right there does nothing.
    empty_from: Vec<usize>,
    compounds: Vec<Compound>,
}

#[derive(Default)]
struct Walk {
    functions: Vec<Function>,
}

impl Walk {
    fn function(&mut self, bytes: Range<usize>, inputs: Vec<(String, usize)>, body: &syn::Block) {
        let mut f = Function {
            bytes,
            statements: Vec::new(),
            vectors: inputs,
            empty_from: Vec::new(),
            compounds: Vec::new(),
        };
        let mut inner = Statements {
            out: &mut f,
            depth: 0,
        };
        inner.visit_block(body);
        self.functions.push(f);
    }
}

fn mut_vec_params<'a>(inputs: impl Iterator<Item = &'a syn::FnArg>) -> Vec<(String, usize)> {
    inputs
        .filter_map(|arg| match arg {
            syn::FnArg::Typed(t) => match &*t.pat {
                syn::Pat::Ident(p) if p.mutability.is_some() && is_vec_type(&t.ty) => {
                    Some((p.ident.to_string(), t.span().byte_range().end))
                }
                _ => None,
            },
            _ => None,
        })
        .collect()
}

impl<'ast> Visit<'ast> for Walk {
    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        let params = mut_vec_params(f.sig.inputs.iter());
        self.function(f.span().byte_range(), params, &f.block);
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        let params = mut_vec_params(f.sig.inputs.iter());
        self.function(f.span().byte_range(), params, &f.block);
    }
}

/// The statements of one function's blocks (closures' and nested items' aside).
struct Statements<'f> {
    out: &'f mut Function,
    depth: usize,
}

impl<'ast> Visit<'ast> for Statements<'_> {
    fn visit_block(&mut self, block: &'ast syn::Block) {
        for (i, stmt) in block.stmts.iter().enumerate() {
            let (deletable, else_branch) = match stmt {
                syn::Stmt::Expr(e, Some(_)) => (
                    matches!(
                        e,
                        syn::Expr::Assign(_)
                            | syn::Expr::Binary(_)
                            | syn::Expr::MethodCall(_)
                            | syn::Expr::Call(_)
                    ),
                    None,
                ),
                syn::Stmt::Expr(syn::Expr::If(i), _) => (
                    false,
                    i.else_branch
                        .as_ref()
                        .map(|_| i.then_branch.span().byte_range().end..i.span().byte_range().end),
                ),
                _ => (false, None),
            };
            if let syn::Stmt::Local(local) = stmt
                && let Some((name, ty)) = mut_binding(&local.pat)
                && (ty.is_some_and(is_vec_type)
                    || local.init.as_ref().is_some_and(|i| builds_vec(&i.expr)))
            {
                self.out.vectors.push((name, stmt.span().byte_range().end));
                if local.init.as_ref().is_some_and(|i| empty_vec(&i.expr)) {
                    self.out.empty_from.push(stmt.span().byte_range().end);
                }
            }
            self.out.statements.push(Statement {
                bytes: stmt.span().byte_range(),
                top: self.depth == 0,
                deletable,
                else_branch,
                last: matches!(stmt, syn::Stmt::Expr(syn::Expr::Return(_), _))
                    || (i + 1 == block.stmts.len() && matches!(stmt, syn::Stmt::Expr(_, None))),
            });
        }
        self.depth += 1;
        visit::visit_block(self, block);
        self.depth -= 1;
    }

    fn visit_expr_binary(&mut self, e: &'ast syn::ExprBinary) {
        if autodebug_syntax::is_compound(&e.op) {
            let step = matches!(&*e.right, syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. })
                if i.base10_digits() == "1");
            self.out.compounds.push(Compound {
                operator: e.op.span().byte_range(),
                op: quote::ToTokens::to_token_stream(&e.op).to_string(),
                whole: e.span().byte_range(),
                right: e.right.span().byte_range(),
                step,
            });
        }
        visit::visit_expr_binary(self, e);
    }

    fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// `mut name` (with its type when written `mut name: T`).
fn mut_binding(pat: &syn::Pat) -> Option<(String, Option<&syn::Type>)> {
    match pat {
        syn::Pat::Ident(p) if p.mutability.is_some() => Some((p.ident.to_string(), None)),
        syn::Pat::Type(t) => match &*t.pat {
            syn::Pat::Ident(p) if p.mutability.is_some() => {
                Some((p.ident.to_string(), Some(&t.ty)))
            }
            _ => None,
        },
        _ => None,
    }
}

fn is_vec_type(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "Vec"))
}

/// Whether `e` visibly makes a vector: `vec![…]`, `Vec::new()`, `Vec::with_capacity(n)`.
/// Whether `e` makes an empty vector (`Vec::new()`, `Vec::with_capacity(n)`, `vec![]`).
fn empty_vec(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Macro(m) => m.mac.path.is_ident("vec") && m.mac.tokens.is_empty(),
        syn::Expr::Call(c) => matches!(&*c.func, syn::Expr::Path(p)
            if p.path.segments.len() == 2
                && p.path.segments[0].ident == "Vec"
                && matches!(p.path.segments[1].ident.to_string().as_str(), "new" | "with_capacity")),
        _ => false,
    }
}

fn builds_vec(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Macro(m) => m.mac.path.is_ident("vec"),
        syn::Expr::Call(c) => matches!(&*c.func, syn::Expr::Path(p)
            if p.path.segments.len() == 2 && p.path.segments[0].ident == "Vec"),
        _ => false,
    }
}

/// The source: the files as repair read them, per file its functions, per target its
/// candidates in order.
pub struct StatementEdits<'a> {
    files: &'a Files,
    functions: BTreeMap<String, Option<Vec<Function>>>,
    queues: super::Queues,
    /// The edits handed out (bytes and text): a statement two targets share is edited once.
    proposed: BTreeSet<(usize, usize, String)>,
}

impl<'a> StatementEdits<'a> {
    /// A source over the targets' `files` as read (the edits' bytes index those texts).
    pub fn new(files: &'a Files) -> StatementEdits<'a> {
        StatementEdits {
            files,
            functions: BTreeMap::new(),
            queues: BTreeMap::new(),
            proposed: BTreeSet::new(),
        }
    }

    fn candidates(&mut self, target: &Target) -> VecDeque<Candidate> {
        let Some(text) = self.files.get(&target.path) else {
            return VecDeque::new();
        };
        let parsed = self
            .functions
            .entry(target.path.clone())
            .or_insert_with(|| {
                let file = autodebug_syntax::parse_file_with_macro_items(text).ok()?;
                let mut walk = Walk::default();
                walk.visit_file(&file);
                Some(walk.functions)
            });
        let Some(functions) = parsed else {
            return VecDeque::new();
        };
        let site = &target.located.bytes;
        let Some(function) = functions
            .iter()
            .filter(|f| f.bytes.start <= site.start && site.end <= f.bytes.end)
            .min_by_key(|f| f.bytes.len())
        else {
            return VecDeque::new();
        };
        let holding: Vec<&Statement> = function
            .statements
            .iter()
            .filter(|s| s.bytes.start <= site.start && site.end <= s.bytes.end)
            .collect();
        let mut out = compound_swaps_at(function, site, text);
        // The innermost statement that holds the site, deleted.
        if let Some(inner) = holding.iter().min_by_key(|s| s.bytes.len())
            && inner.deletable
        {
            out.push((
                whole_lines(text, &inner.bytes),
                String::new(),
                DELETE_STATEMENT,
                COST_DELETE,
            ));
        }
        // The `else` branch of an `if` whose condition is the site.
        for s in &holding {
            if let Some(branch) = &s.else_branch
                && site.end <= branch.start
            {
                out.push((branch.clone(), String::new(), DELETE_ELSE, COST_DELETE));
            }
        }
        // A call on a vector in scope, just before or after the top statement (an edit
        // that replaces nothing: the bytes between two statements).
        if let Some(top) = holding.iter().find(|s| s.top) {
            let indent = indentation(text, top.bytes.start);
            // Right where a vector was declared empty, a call on it does nothing.
            let fresh = |at: usize, from: usize| {
                function.empty_from.contains(&from) && text[from..at].trim().is_empty()
            };
            for (name, from) in &function.vectors {
                for method in IN_PLACE {
                    let call = format!("{name}.{method}();");
                    if *from <= top.bytes.start && !fresh(top.bytes.start, *from) {
                        let at = top.bytes.start;
                        out.push((
                            at..at,
                            format!("{call}\n{indent}"),
                            INSERT_CALL,
                            COST_INSERT,
                        ));
                    }
                    if *from <= top.bytes.end && !top.last && !fresh(top.bytes.end, *from) {
                        let at = top.bytes.end;
                        out.push((
                            at..at,
                            format!("\n{indent}{call}"),
                            INSERT_CALL,
                            COST_INSERT,
                        ));
                    }
                }
            }
        }
        out.sort_by_key(|(_, _, _, cost)| *cost);
        let mut queue = VecDeque::new();
        for (bytes, rust, template, cost) in out {
            if !self.proposed.insert((bytes.start, bytes.end, rust.clone())) {
                continue;
            }
            let edit = CandidateEdit::at(target.site.key(), rust).replacing(bytes);
            queue.push_back(Candidate::one(edit, template, cost, NAME));
        }
        queue
    }
}

/// A statement edit: the bytes replaced, their replacement, its template and its cost.
type StatementEdit = (Range<usize>, String, &'static str, u32);

/// The operator of the innermost compound assignment of `function` that holds `site`,
/// swapped for each of its counterparts.
fn compound_swaps_at(function: &Function, site: &Range<usize>, text: &str) -> Vec<StatementEdit> {
    let mut out = Vec::new();
    let Some(compound) = function
        .compounds
        .iter()
        .filter(|c| c.whole.start <= site.start && site.end <= c.whole.end)
        .min_by_key(|c| c.whole.len())
    else {
        return out;
    };
    let swaps: Vec<&str> = if compound.step {
        STEPS.into_iter().filter(|s| *s != compound.op).collect()
    } else {
        compound_swaps(&compound.op).to_vec()
    };
    // Nobody writes `s -= x * -1`: a swap of `+=` and `-=` over a negated right-hand side
    // puts two signs together, further from what a person writes than an edit that drops
    // the sign (as the one-token edits rank `x - -1`).
    let right = super::patch::squeeze(&text[compound.right.clone()]);
    let negated = right.starts_with('-') || right.contains("*-") || right.contains("/-");
    for swap in swaps {
        let signs = negated && matches!((compound.op.as_str(), swap), ("+=", "-=") | ("-=", "+="));
        out.push((
            compound.operator.clone(),
            swap.to_string(),
            COMPOUND_OPERATOR,
            COST_OPERATOR + if signs { 2 } else { 0 },
        ));
    }
    out
}

/// `bytes` grown to whole lines when nothing else is on them (a deleted statement takes
/// its line with it).
fn whole_lines(text: &str, bytes: &Range<usize>) -> Range<usize> {
    let line_start = text[..bytes.start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[bytes.end..]
        .find('\n')
        .map_or(text.len(), |i| bytes.end + i + 1);
    let alone = text[line_start..bytes.start].trim().is_empty()
        && text[bytes.end..line_end].trim().is_empty();
    if alone {
        line_start..line_end
    } else {
        bytes.clone()
    }
}

/// The whitespace that begins the line `at` is on.
pub(super) fn indentation(text: &str, at: usize) -> String {
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    text[line_start..at]
        .chars()
        .take_while(|c| c.is_whitespace())
        .collect()
}

super::listed!(StatementEdits<'_>);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repair::CandidateSource;
    use crate::repair::expression::Types;
    use crate::repair::scratch_target;
    use autodebug_runtime::protocol::SiteKind;

    const TEXT: &str = "fn f(x: Vec<i32>) -> Vec<i32> {
    let mut out: Vec<i32> = vec![];
    for v in x {
        if v > 0 {
            out.push(v);
            out.push(v * 2);
        } else {
            out.push(0);
        }
    }
    return out;
}
";

    /// Every candidate of the source for the site of `kind` at `start..start + code.len()`
    /// of `text`, the file `src/lib.rs` of a scratch crate.
    fn candidates_at(text: &str, start: usize, code: &str, kind: SiteKind) -> Vec<Candidate> {
        let (files, target) = scratch_target(text, start, code, kind, Types::default());
        StatementEdits::new(&files).next(&target, 100)
    }

    /// The candidates for the site `code` of `kind`, applied to the file.
    fn edited(code: &str, kind: SiteKind) -> Vec<(String, String)> {
        candidates_at(TEXT, TEXT.rfind(code).unwrap(), code, kind)
            .into_iter()
            .map(|c| {
                let after = crate::repair::with_statement_edit(TEXT, &c.edits[0]);
                (c.template, after)
            })
            .collect()
    }

    #[test]
    fn the_statement_holding_a_site_is_deleted_with_its_line() {
        let all = edited("v * 2", SiteKind::Arg);
        let deleted: Vec<&String> = all
            .iter()
            .filter(|(t, _)| t == DELETE_STATEMENT)
            .map(|(_, after)| after)
            .collect();
        assert_eq!(deleted.len(), 1);
        assert_eq!(
            *deleted[0],
            TEXT.replace("            out.push(v * 2);\n", "")
        );
        // The other candidates put a call on `out` after the `for` loop; not before it,
        // right after `out` was declared empty, where a call on it does nothing.
        assert!(all.iter().any(|(t, after)| t == INSERT_CALL
            && after.contains("    }\n    out.sort();\n    return out;")));
        assert!(
            !all.iter()
                .any(|(t, after)| t == INSERT_CALL && after.contains("vec![];\n    out."))
        );
        // Declared from something else, the vector may be sorted right away.
        let text = TEXT.replace("vec![]", "x.clone()");
        let start = text.find("v > 0").unwrap();
        let all: Vec<String> = candidates_at(&text, start, "v > 0", SiteKind::If)
            .into_iter()
            .filter(|c| c.template == INSERT_CALL)
            .map(|c| c.edits[0].rust.clone())
            .collect();
        assert!(all.contains(&"out.reverse();\n    ".to_string()), "{all:?}");
    }

    /// The compound-operator candidates for the site `code` of `text` found after `after`:
    /// the file as each leaves it, and its cost.
    fn swapped(text: &str, after: &str, code: &str) -> Vec<(String, u32)> {
        let start = text.find(after).unwrap() + after.len();
        candidates_at(text, start, code, SiteKind::Compound)
            .into_iter()
            .filter(|c| c.template == COMPOUND_OPERATOR)
            .map(|c| {
                assert!(!edits_lines(&c));
                let edit = &c.edits[0];
                let bytes = edit.statement.clone().unwrap();
                let after = format!(
                    "{}{}{}",
                    &text[..bytes.start],
                    edit.rust,
                    &text[bytes.end..]
                );
                (after, c.cost)
            })
            .collect()
    }

    #[test]
    fn a_compound_assignment_gets_its_operator_swapped() {
        let text = "fn f(a: &[i32]) -> i32 {
    let mut s = 0;
    let mut i = 0;
    while i < a.len() {
        s *= a[i];
        s += a[i] * -1;
        i += 1;
    }
    s
}
";
        let all = swapped(text, "s *= ", "a[i]");
        assert_eq!(all.len(), 3);
        assert_eq!(all[0], (text.replace("s *= a[i]", "s /= a[i]"), 1));
        assert_eq!(all[1], (text.replace("s *= a[i]", "s += a[i]"), 1));
        // `i += 1` is a step: it may go the other way, but is never made an operation
        // that does nothing (`i *= 1`).
        assert_eq!(
            swapped(text, "i += ", "1"),
            [(text.replace("i += 1", "i -= 1"), 1)]
        );
        // `s -= a[i] * -1` puts two signs together: it goes after the other swap.
        let negated = swapped(text, "s += ", "a[i] * -1");
        assert_eq!(
            negated,
            [
                (text.replace("s += a[i] * -1", "s *= a[i] * -1"), 1),
                (text.replace("s += a[i] * -1", "s -= a[i] * -1"), 3)
            ]
        );
    }

    #[test]
    fn an_else_branch_is_deleted_and_a_call_put_before_a_return() {
        let all = edited("v > 0", SiteKind::If);
        assert!(all.iter().any(|(t, after)| t == DELETE_ELSE
            && after.contains("out.push(v * 2);\n        }\n    }\n    return out;")));
        let all = edited("out", SiteKind::Return);
        let inserted: Vec<&String> = all
            .iter()
            .filter(|(t, _)| t == INSERT_CALL)
            .map(|(_, after)| after)
            .collect();
        // A `return` statement is not deleted (it is no expression statement).
        assert!(
            inserted
                .iter()
                .any(|a| a.contains("    out.pop();\n    return out;"))
        );
        // Nothing goes after a `return`.
        assert!(
            inserted
                .iter()
                .all(|a| !a.contains("return out;\n    out."))
        );
        assert!(all.iter().all(|(t, _)| t != DELETE_STATEMENT));
    }
}
