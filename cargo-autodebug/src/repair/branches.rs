//! The sibling-branch source: a statement one branch lacks that its sibling has. Where the
//! arm of a `match` (or a branch of an `if`) that holds a site ends with the same code as a
//! sibling arm, and the sibling does more before that code (`b'\r' => { check(); advance();
//! done(); }` beside `b'\n' => done(),`), the statements the sibling has before the shared
//! end are candidates for the site's arm, one at a time, the nearest to the shared end
//! first: the branches were written from one another and one kept a step the other lost.
//! A single-line statement only, as written there; an arm whose body is one expression
//! becomes a block, written as rustfmt writes it (no comma after the block). The runtime
//! cannot evaluate these: each is rebuilt, after the one-token edits.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::ops::Range;

use quote::ToTokens;
use syn::spanned::Spanned;
use syn::visit::{self, Visit};

use super::statements::indentation;
use super::{Candidate, CandidateEdit, Files, Target};

/// The source's name in the report.
pub const NAME: &str = "sibling-statement";
/// A statement of a sibling branch put in.
pub const FROM_SIBLING: &str = "statement-from-sibling";

/// As far as a statement put in (see the statement source).
const COST: u32 = 4;
/// Statements of one sibling tried at most (the nearest to the shared end first).
const PER_SIBLING: usize = 2;
/// Candidates per target at most.
const PER_TARGET: usize = 4;

/// A branch: the bytes of its body, its statements (bytes, tokens, and whether a `;` ends
/// it), and whether the body is a block.
struct Branch {
    body: Range<usize>,
    block: bool,
    statements: Vec<(Range<usize>, String, bool)>,
    /// The bytes up to the end of the arm's comma, when it has one (it goes when the body
    /// becomes a block).
    comma_end: Option<usize>,
}

/// The branches of each `match` and `if` chain of a file.
#[derive(Default)]
struct Walk {
    groups: Vec<Vec<Branch>>,
}

fn branch_of(body: &syn::Expr, comma_end: Option<usize>) -> Branch {
    let statements = match body {
        syn::Expr::Block(b) if b.label.is_none() && b.attrs.is_empty() => {
            b.block.stmts.iter().map(statement).collect()
        }
        e => vec![(e.span().byte_range(), tokens(e), false)],
    };
    Branch {
        body: body.span().byte_range(),
        block: matches!(body, syn::Expr::Block(_)),
        statements,
        comma_end,
    }
}

/// A statement's bytes, its tokens without the ending `;`, and whether it has one.
fn statement(s: &syn::Stmt) -> (Range<usize>, String, bool) {
    match s {
        syn::Stmt::Expr(e, semi) => (s.span().byte_range(), tokens(e), semi.is_some()),
        syn::Stmt::Macro(m) => (
            s.span().byte_range(),
            tokens(&m.mac),
            m.semi_token.is_some(),
        ),
        other => (other.span().byte_range(), tokens(other), true),
    }
}

fn tokens(node: &impl ToTokens) -> String {
    node.to_token_stream().to_string()
}

impl<'ast> Visit<'ast> for Walk {
    fn visit_expr_match(&mut self, m: &'ast syn::ExprMatch) {
        let branches = (m.arms.iter())
            .map(|arm| branch_of(&arm.body, arm.comma.map(|c| c.span().byte_range().end)))
            .collect();
        self.groups.push(branches);
        visit::visit_expr_match(self, m);
    }

    fn visit_expr_if(&mut self, e: &'ast syn::ExprIf) {
        let mut branches = Vec::new();
        let mut at = Some(e);
        while let Some(e) = at {
            let then = syn::Expr::Block(syn::ExprBlock {
                attrs: Vec::new(),
                label: None,
                block: e.then_branch.clone(),
            });
            branches.push(branch_of(&then, None));
            at = match e.else_branch.as_ref().map(|(_, b)| &**b) {
                Some(syn::Expr::If(next)) => Some(next),
                Some(last) => {
                    branches.push(branch_of(last, None));
                    None
                }
                None => None,
            };
        }
        self.groups.push(branches);
        visit::visit_expr_if(self, e);
    }
}

/// The source.
pub struct SiblingStatements<'a> {
    files: &'a Files,
    groups: BTreeMap<String, Vec<Vec<Branch>>>,
    proposed: BTreeSet<(usize, String)>,
    queues: super::Queues,
}

impl<'a> SiblingStatements<'a> {
    /// A source over the targets' `files` as read (the edits' bytes index those texts).
    pub fn new(files: &'a Files) -> SiblingStatements<'a> {
        SiblingStatements {
            files,
            groups: BTreeMap::new(),
            proposed: BTreeSet::new(),
            queues: BTreeMap::new(),
        }
    }

    fn candidates(&mut self, target: &Target) -> VecDeque<Candidate> {
        let mut out = VecDeque::new();
        let Some(text) = self.files.get(&target.path) else {
            return out;
        };
        let groups = self.groups.entry(target.path.clone()).or_insert_with(|| {
            let mut walk = Walk::default();
            if let Ok(file) = autodebug_syntax::parse_file_with_macro_items(text) {
                walk.visit_file(&file);
            }
            walk.groups
        });
        let at = &target.located.bytes;
        // The innermost branch that holds the site, and its siblings.
        let held = (groups.iter())
            .flat_map(|g| g.iter().enumerate().map(move |(i, b)| (g, i, b)))
            .filter(|(_, _, b)| b.body.start <= at.start && at.end <= b.body.end)
            .min_by_key(|(_, _, b)| b.body.len());
        let Some((group, index, branch)) = held else {
            return out;
        };
        for (j, sibling) in group.iter().enumerate() {
            if j == index {
                continue;
            }
            let shared = shared_end(branch, sibling);
            if shared == 0 || sibling.statements.len() <= shared {
                continue;
            }
            let before = &sibling.statements[..sibling.statements.len() - shared];
            for (bytes, _, semi) in before.iter().rev().take(PER_SIBLING) {
                let written = &text[bytes.clone()];
                if written.contains('\n') || !*semi {
                    continue;
                }
                let Some((place, rust)) = put_in(text, branch, shared, written) else {
                    continue;
                };
                if !self.proposed.insert((place.start, rust.clone())) {
                    continue;
                }
                let edit = CandidateEdit::at(target.site.key(), rust).replacing(place);
                out.push_back(Candidate::one(edit, FROM_SIBLING, COST, NAME));
            }
        }
        out.truncate(PER_TARGET);
        out
    }
}

/// How many statements `a` and `b` end with alike (tokens, a final `;` aside).
fn shared_end(a: &Branch, b: &Branch) -> usize {
    (a.statements.iter().rev())
        .zip(b.statements.iter().rev())
        .take_while(|(x, y)| x.1 == y.1)
        .count()
}

/// The edit that puts `statement` into `branch` before its last `shared` statements: the
/// bytes it replaces and their new text.
fn put_in(
    text: &str,
    branch: &Branch,
    shared: usize,
    statement: &str,
) -> Option<(Range<usize>, String)> {
    let first_shared = &branch.statements[branch.statements.len() - shared].0;
    if branch.block {
        let indent = indentation(text, first_shared.start);
        let alone = text[..first_shared.start].ends_with(indent.as_str());
        return alone.then(|| {
            (
                first_shared.start..first_shared.start,
                format!("{statement}\n{indent}"),
            )
        });
    }
    // One expression: a block of the statement and the expression, as a statement when the
    // sibling ends it with `;`. The arm's line sets the indentation.
    let indent = indentation(text, branch.body.start);
    let body = &text[branch.body.clone()];
    if body.contains('\n') {
        return None;
    }
    let end = branch.comma_end.unwrap_or(branch.body.end);
    Some((
        branch.body.start..end,
        format!("{{\n{indent}    {statement}\n{indent}    {body};\n{indent}}}"),
    ))
}

super::listed!(SiblingStatements<'_>);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repair::CandidateSource;
    use crate::repair::expression::Types;
    use crate::repair::scratch_target;
    use crate::repair::with_statement_edit;
    use autodebug_runtime::protocol::SiteKind;

    const TEXT: &str = "fn status(b: u8, s: &mut State) -> Result<(), ()> {
    match b {
        b' ' => {
            s.skip();
            s.reason = s.rest();
        }
        b'\\r' => {
            s.expect_newline()?;
            s.skip();
            s.reason = String::new();
        }
        b'\\n' => s.reason = String::new(),
        _ => return Err(()),
    }
    Ok(())
}
";

    fn edited(code: &str, kind: SiteKind) -> Vec<String> {
        let (files, target) = scratch_target(
            TEXT,
            TEXT.rfind(code).unwrap(),
            code,
            kind,
            Types::default(),
        );
        (SiblingStatements::new(&files)
            .next(&target, 100)
            .into_iter())
        .map(|c| with_statement_edit(TEXT, &c.edits[0]))
        .collect()
    }

    #[test]
    fn an_arm_gets_the_step_its_sibling_takes_before_the_same_end() {
        let after = edited("String::new()", SiteKind::Assign);
        // The nearest statement first, then the one before it; the arm becomes a block.
        assert_eq!(after.len(), 2, "{after:#?}");
        assert!(
            after[0].contains(
                "        b'\\n' => {
            s.skip();
            s.reason = String::new();
        }
        _ =>"
            ),
            "{}",
            after[0]
        );
        assert!(after[1].contains("            s.expect_newline()?;\n            s.reason = String::new();\n        }\n        _ =>"));
        // An arm that ends otherwise borrows nothing: the first arm's end is not shared.
        assert!(edited("s.rest()", SiteKind::Assign).is_empty());
    }

    #[test]
    fn an_else_branch_gets_the_step_its_then_branch_takes() {
        let text = "fn f(x: i32, v: &mut Vec<i32>, out: &mut Vec<usize>) {
    if x > 0 {
        v.push(x);
        out.push(v.len());
    } else {
        out.push(v.len());
    }
}
";
        let code = "v.len()";
        let (files, target) = scratch_target(
            text,
            text.rfind(code).unwrap(),
            code,
            SiteKind::Arg,
            Types::default(),
        );
        let candidates = SiblingStatements::new(&files).next(&target, 100);
        let [candidate] = candidates.as_slice() else {
            panic!("{candidates:#?}");
        };
        let after = with_statement_edit(text, &candidate.edits[0]);
        assert!(
            after.contains("} else {\n        v.push(x);\n        out.push(v.len());\n    }"),
            "{after}"
        );
    }
}
