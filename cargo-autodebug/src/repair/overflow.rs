//! The overflow source: where a failing test panicked with an arithmetic overflow (`attempt
//! to add with overflow`, `attempt to shift left with overflow`, …), the operation the
//! panic names, at the place it names, rewritten as the standard library's overflow-aware
//! forms a person reaches for: `a.saturating_add(b)`, `a.wrapping_add(b)`,
//! `a.checked_shl(b).unwrap_or(0)`; and a sum that overflows only on its way to a
//! difference (`x + y - z`) computed the other way round (`y - (z - x)`); a compound
//! assignment that overflowed assigns the form (`e += 1` → `e = e.saturating_add(1)`). The panic says
//! which operation overflowed, so the source proposes nothing anywhere else. A rebuild
//! judges each candidate (the runtime cannot evaluate a method of the standard library).

use std::collections::{BTreeMap, VecDeque};

use syn::spanned::Spanned;
use syn::visit::{self, Visit};

use super::{Candidate, CandidateEdit, Files, Target};
use crate::model::Role;
use crate::trace::RecordedTrace;
use autodebug_runtime::protocol::{Record, SiteKind};

/// The source's name in the report.
pub const NAME: &str = "overflow";
/// An overflowing operation in its saturating, wrapping or checked form.
pub const OVERFLOW_AWARE: &str = "overflow-aware";
/// A sum that overflows on its way to a difference, reassociated.
pub const REASSOCIATED: &str = "reassociated";

/// Beside the one-token edits: the panic named the operation.
const COST: u32 = 2;

/// The operations an overflow panic names, by the words of its message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Add,
    Sub,
    Mul,
    Shl,
    Shr,
}

impl Op {
    /// The operation a panic message names (`attempt to add with overflow`).
    fn of_message(message: &str) -> Option<Op> {
        let verb = message
            .strip_prefix("attempt to ")?
            .strip_suffix(" with overflow")?;
        Some(match verb {
            "add" => Op::Add,
            "subtract" => Op::Sub,
            "multiply" => Op::Mul,
            "shift left" => Op::Shl,
            "shift right" => Op::Shr,
            _ => return None,
        })
    }

    fn is(self, op: &syn::BinOp) -> bool {
        matches!(
            (self, op),
            (Op::Add, syn::BinOp::Add(_))
                | (Op::Sub, syn::BinOp::Sub(_))
                | (Op::Mul, syn::BinOp::Mul(_))
                | (Op::Shl, syn::BinOp::Shl(_))
                | (Op::Shr, syn::BinOp::Shr(_))
        )
    }

    /// Whether `op` is the compound assignment of this operation (`+=` of an addition).
    fn assigns(self, op: &syn::BinOp) -> bool {
        matches!(
            (self, op),
            (Op::Add, syn::BinOp::AddAssign(_))
                | (Op::Sub, syn::BinOp::SubAssign(_))
                | (Op::Mul, syn::BinOp::MulAssign(_))
                | (Op::Shl, syn::BinOp::ShlAssign(_))
                | (Op::Shr, syn::BinOp::ShrAssign(_))
        )
    }

    /// The overflow-aware forms of `a OP b`, commonest first.
    fn rewrites(self, a: &str, b: &str) -> Vec<String> {
        let method = |name: &str| format!("{a}.{name}({b})");
        match self {
            Op::Add => vec![method("saturating_add"), method("wrapping_add")],
            Op::Sub => vec![method("saturating_sub"), method("wrapping_sub")],
            Op::Mul => vec![method("saturating_mul"), method("wrapping_mul")],
            Op::Shl => vec![
                format!("{}.unwrap_or(0)", method("checked_shl")),
                method("wrapping_shl"),
            ],
            Op::Shr => vec![
                format!("{}.unwrap_or(0)", method("checked_shr")),
                method("wrapping_shr"),
            ],
        }
    }
}

/// An overflow panic of a failing test: the file as the compiler names it, the line and
/// column of the operation, and the operation.
struct Overflow {
    file: String,
    line: u32,
    column: u32,
    op: Op,
}

/// The source: the failing tests' overflow panics, per target its candidates in order.
pub struct Overflows<'a> {
    files: &'a Files,
    panics: Vec<Overflow>,
    queues: super::Queues,
}

impl<'a> Overflows<'a> {
    /// A source over the failing `traces`' overflow panics, the targets' `files` as read.
    pub fn new(files: &'a Files, traces: &[RecordedTrace]) -> Overflows<'a> {
        let panics = (traces.iter())
            .filter(|t| t.role == Role::Failing)
            .flat_map(|t| &t.trace.events)
            .filter_map(|e| match e {
                Record::Panic {
                    message,
                    file,
                    line,
                    column,
                    ..
                } => Some(Overflow {
                    file: file.clone(),
                    line: *line,
                    column: *column,
                    op: Op::of_message(message)?,
                }),
                _ => None,
            })
            .collect();
        Overflows {
            files,
            panics,
            queues: BTreeMap::new(),
        }
    }

    fn candidates(&mut self, target: &Target) -> VecDeque<Candidate> {
        let mut out = VecDeque::new();
        let Some(text) = self.files.get(&target.path) else {
            return out;
        };
        let lines = autodebug_syntax::LineIndex::new(text);
        let original = &target.located.original;
        let Ok(written) = syn::parse_str::<syn::Expr>(original) else {
            return out;
        };
        let site = &target.located.bytes;
        // The site is the value of `x += …`: the assignment is the operation.
        let assignment = (target.site.kind == SiteKind::Compound)
            .then(|| compound_around(text, site))
            .flatten();
        for panic in self.panics.iter().filter(|p| p.file == target.site.file) {
            let Some(at) = lines.offset_at(panic.line, panic.column) else {
                continue;
            };
            if let Some(found) = &assignment
                && found.bytes.start == at
                && panic.op.assigns(&found.op)
            {
                for rewritten in panic.op.rewrites(&found.receiver, &found.value) {
                    let rust = format!("{} = {rewritten}", found.place);
                    if out.iter().any(|c: &Candidate| c.edits[0].rust == rust) {
                        continue;
                    }
                    let edit =
                        CandidateEdit::at(target.site.key(), rust).replacing(found.bytes.clone());
                    out.push_back(Candidate::one(edit, OVERFLOW_AWARE, COST, NAME));
                }
                continue;
            }
            if !(site.start <= at && at < site.end) {
                continue;
            }
            let mut find = Find {
                original,
                at: at - site.start,
                op: panic.op,
                found: Vec::new(),
            };
            find.visit_expr(&written);
            for (whole, rewritten, template) in find.found {
                let rust = format!(
                    "{}{rewritten}{}",
                    &original[..whole.start],
                    &original[whole.end..]
                );
                if out.iter().any(|c: &Candidate| c.edits[0].rust == rust) {
                    continue;
                }
                let edit = CandidateEdit::at(target.site.key(), rust);
                out.push_back(Candidate::one(edit, template, COST, NAME));
            }
        }
        out
    }
}

/// A compound assignment `place op= value` of a file: its bytes, its operator, the place as
/// written and as a method's receiver, the value as written.
struct Compound {
    bytes: std::ops::Range<usize>,
    op: syn::BinOp,
    place: String,
    receiver: String,
    value: String,
}

/// The compound assignment of `text` whose value is the bytes `value` (a `Compound` site).
fn compound_around(text: &str, value: &std::ops::Range<usize>) -> Option<Compound> {
    struct Walk<'t> {
        text: &'t str,
        value: std::ops::Range<usize>,
        found: Option<Compound>,
    }
    impl<'ast> Visit<'ast> for Walk<'_> {
        fn visit_expr_binary(&mut self, e: &'ast syn::ExprBinary) {
            if e.right.span().byte_range() == self.value {
                let place = self.text[e.left.span().byte_range()].to_string();
                let receiver = if autodebug_syntax::is_atomic(&e.left) {
                    place.clone()
                } else {
                    format!("({place})")
                };
                self.found = Some(Compound {
                    bytes: e.span().byte_range(),
                    op: e.op,
                    place,
                    receiver,
                    value: self.text[self.value.clone()].to_string(),
                });
            }
            visit::visit_expr_binary(self, e);
        }
    }
    let file = autodebug_syntax::parse_file_with_macro_items(text).ok()?;
    let mut walk = Walk {
        text,
        value: value.clone(),
        found: None,
    };
    walk.visit_file(&file);
    walk.found
}

/// Finds, in a site's code, the binary operations of `op` that start at byte `at` (where the
/// panic located the overflow), with their rewrites: the bytes each replaces, its text.
struct Find<'s> {
    original: &'s str,
    at: usize,
    op: Op,
    found: Vec<(std::ops::Range<usize>, String, &'static str)>,
}

impl Find<'_> {
    /// `e` as written, parenthesized unless it binds tighter than any operator (see
    /// [`autodebug_syntax::is_atomic`]; a number is parenthesized too, `2.max(x)`
    /// would not type-check or parse, and a macro call is not): fit to be a method's
    /// receiver.
    fn tight(&self, e: &syn::Expr) -> String {
        let text = &self.original[e.span().byte_range()];
        let number = matches!(e, syn::Expr::Lit(l) if matches!(l.lit, syn::Lit::Int(_) | syn::Lit::Float(_)));
        if (autodebug_syntax::is_atomic(e) && !number) || matches!(e, syn::Expr::Macro(_)) {
            text.to_string()
        } else {
            format!("({text})")
        }
    }

    /// The rewrites of `e`, replacing `whole` (`e`'s bytes, or the parentheses around it:
    /// a method call needs none).
    fn rewrite(&mut self, e: &syn::ExprBinary, whole: std::ops::Range<usize>) {
        // The compiler locates an operation in parentheses at the parenthesis.
        let at = |inner: &syn::ExprBinary, outer: usize| {
            inner.span().byte_range().start == self.at || outer == self.at
        };
        // `x + y - z` whose sum overflowed: `y - (z - x)`, then `x - (z - y)`.
        let (sum, sum_start) = match &*e.left {
            syn::Expr::Paren(p) => (&*p.expr, p.span().byte_range().start),
            left => (left, left.span().byte_range().start),
        };
        if self.op == Op::Add
            && matches!(e.op, syn::BinOp::Sub(_))
            && let syn::Expr::Binary(sum) = sum
            && matches!(sum.op, syn::BinOp::Add(_))
            && at(sum, sum_start)
        {
            let (x, y, z) = (
                self.tight(&sum.left),
                self.tight(&sum.right),
                self.tight(&e.right),
            );
            for (kept, moved) in [(&y, &x), (&x, &y)] {
                let text = format!("{kept} - ({z} - {moved})");
                self.found.push((e.span().byte_range(), text, REASSOCIATED));
            }
        }
        if self.op.is(&e.op) && at(e, whole.start) {
            let a = self.tight(&e.left);
            let b = &self.original[e.right.span().byte_range()];
            for rewritten in self.op.rewrites(&a, b) {
                self.found.push((whole.clone(), rewritten, OVERFLOW_AWARE));
            }
        }
        // `x += b` overflowed: `x = x.saturating_add(b)`, …
        if self.op.assigns(&e.op) && at(e, whole.start) {
            let place = &self.original[e.left.span().byte_range()];
            let a = self.tight(&e.left);
            let b = &self.original[e.right.span().byte_range()];
            for rewritten in self.op.rewrites(&a, b) {
                let text = format!("{place} = {rewritten}");
                self.found
                    .push((e.span().byte_range(), text, OVERFLOW_AWARE));
            }
        }
    }
}

impl<'ast> Visit<'ast> for Find<'_> {
    fn visit_expr(&mut self, e: &'ast syn::Expr) {
        // A binary operation in parentheses is replaced with them.
        let (binary, whole) = match e {
            syn::Expr::Paren(p) => match &*p.expr {
                syn::Expr::Binary(b) => (b, p.span().byte_range()),
                _ => return visit::visit_expr(self, e),
            },
            syn::Expr::Binary(b) => (b, b.span().byte_range()),
            _ => return visit::visit_expr(self, e),
        };
        self.rewrite(binary, whole);
        visit::visit_expr_binary(self, binary);
    }

    // A closure's body is code of the site too; an item inside it is not.
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

super::listed!(Overflows<'_>);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repair::CandidateSource;

    use crate::repair::expression::Types;
    use crate::repair::scratch_target;
    use crate::trace::RawTrace;
    use autodebug_runtime::protocol::SiteKind;

    const TEXT: &str = "\
pub fn need(len: usize, additional: usize, used: usize) -> usize {
    let need = len + additional - used;
    need
}

pub fn prefix(mask: u32, prefix: u32) -> bool {
    (mask << prefix) == 0
}

pub fn bump(mut e: i16, k: i16) -> i16 {
    e += k * 2;
    e
}

pub fn tally(mut e: i16, k: i16, v: Option<i16>) -> i16 {
    match v {
        Some(x) => e = x,
        None => e += k * 3,
    }
    e
}
";

    fn panicked_at(line: u32, column: u32, message: &str) -> RecordedTrace {
        let mut trace = RawTrace::default();
        trace.events.push(Record::Panic {
            message: message.into(),
            file: "src/lib.rs".into(),
            line,
            column,
            thread: "t".into(),
        });
        crate::trace::failing_test_trace(trace)
    }

    fn candidates(code: &str, kind: SiteKind, panic: RecordedTrace) -> Vec<(String, String)> {
        let (files, target) =
            scratch_target(TEXT, TEXT.find(code).unwrap(), code, kind, Types::default());
        (Overflows::new(&files, &[panic])
            .next(&target, 100)
            .into_iter())
        .map(|c| {
            assert_eq!((c.source, c.cost), (NAME, COST));
            assert!(c.edits[0].expr.is_none(), "a rebuild judges it");
            (c.template, c.edits[0].rust.clone())
        })
        .collect()
    }

    #[test]
    fn the_operation_the_panic_names_gets_its_overflow_aware_forms() {
        let code = "len + additional - used";
        let found = candidates(
            code,
            SiteKind::Let,
            panicked_at(2, 16, "attempt to add with overflow"),
        );
        let texts: Vec<&str> = found.iter().map(|(_, t)| t.as_str()).collect();
        assert_eq!(
            texts,
            [
                "additional - (used - len)",
                "len - (used - additional)",
                "len.saturating_add(additional) - used",
                "len.wrapping_add(additional) - used",
            ]
        );
        assert_eq!(found[0].0, REASSOCIATED);
        assert_eq!(found[2].0, OVERFLOW_AWARE);
        // The difference overflowed instead: the subtraction's forms, the sum parenthesized.
        let texts: Vec<String> = candidates(
            code,
            SiteKind::Let,
            panicked_at(2, 16, "attempt to subtract with overflow"),
        )
        .into_iter()
        .map(|(_, t)| t)
        .collect();
        assert_eq!(
            texts,
            [
                "(len + additional).saturating_sub(used)",
                "(len + additional).wrapping_sub(used)",
            ]
        );
    }

    /// The instrumentation places an overflow of `e += …` at `e` (see the macros'
    /// `panic_location` test): the assignment gets the operation's forms.
    #[test]
    fn a_compound_assignment_that_overflowed_assigns_the_forms() {
        let texts: Vec<String> = candidates(
            "k * 2",
            SiteKind::Compound,
            panicked_at(11, 5, "attempt to add with overflow"),
        )
        .into_iter()
        .map(|(_, t)| t)
        .collect();
        assert_eq!(
            texts,
            ["e = e.saturating_add(k * 2)", "e = e.wrapping_add(k * 2)"]
        );
        // A site holding the whole assignment (a match arm's body): the same forms.
        let texts: Vec<String> = candidates(
            "e += k * 3",
            SiteKind::Return,
            panicked_at(18, 17, "attempt to add with overflow"),
        )
        .into_iter()
        .map(|(_, t)| t)
        .collect();
        assert_eq!(
            texts,
            ["e = e.saturating_add(k * 3)", "e = e.wrapping_add(k * 3)"]
        );
        // The multiplication inside overflowed: its own forms, the assignment kept.
        let texts: Vec<String> = candidates(
            "k * 2",
            SiteKind::Compound,
            panicked_at(11, 10, "attempt to multiply with overflow"),
        )
        .into_iter()
        .map(|(_, t)| t)
        .collect();
        assert_eq!(texts, ["k.saturating_mul(2)", "k.wrapping_mul(2)"]);
    }

    #[test]
    fn a_shift_that_overflowed_shifts_everything_out() {
        let texts: Vec<String> = candidates(
            "(mask << prefix) == 0",
            SiteKind::Return,
            panicked_at(7, 5, "attempt to shift left with overflow"),
        )
        .into_iter()
        .map(|(_, t)| t)
        .collect();
        assert_eq!(
            texts,
            [
                "mask.checked_shl(prefix).unwrap_or(0) == 0",
                "mask.wrapping_shl(prefix) == 0",
            ]
        );
    }

    #[test]
    fn nothing_where_no_overflow_panicked() {
        // Another message, or the panic outside the site.
        let code = "len + additional - used";
        let none = candidates(
            code,
            SiteKind::Let,
            panicked_at(2, 16, "index out of bounds"),
        );
        assert!(none.is_empty());
        let none = candidates(
            code,
            SiteKind::Let,
            panicked_at(7, 6, "attempt to add with overflow"),
        );
        assert!(none.is_empty());
    }
}
