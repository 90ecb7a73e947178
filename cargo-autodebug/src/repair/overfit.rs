//! Candidates that pass the tests without fixing anything: a step of one made another
//! constant (the loop skips what fails), a tested value written into the code (the program
//! special-cases the test's input, or returns the test's expected answer), an operation that
//! does nothing (`i % 1`, a constant in disguise; a clause its chain already has, `a && a`;
//! a value compared with itself, `n >= n`). No source offers them, whatever the tests say
//! of them.

use std::collections::BTreeSet;
use std::ops::Range;

use autodebug_runtime::protocol::{SiteKind, Value};
use syn::visit::Visit;

use crate::oracle::{Expectation, Oracle};

/// Whether replacing `original`, the code of a site of `kind`, by `replacement` makes a step
/// of one (`i += 1`, `n -= 1`) another constant: a candidate that passes by skipping
/// elements or standing still overfits the tests, it fixes nothing, and no source offers it.
pub fn changes_unit_step(kind: SiteKind, original: &str, replacement: &str) -> bool {
    syn::parse_str::<syn::Expr>(replacement)
        .is_ok_and(|after| unit_step_changed(kind, original, replacement, &after))
}

/// [`changes_unit_step`], with `replacement` parsed as `after`.
fn unit_step_changed(kind: SiteKind, original: &str, replacement: &str, after: &syn::Expr) -> bool {
    kind == SiteKind::Compound
        && original.trim() == "1"
        && replacement.trim() != "1"
        && matches!(after, syn::Expr::Lit(_) | syn::Expr::Unary(_))
}

/// Whether replacing `original`, the code of a site of `kind`, by `replacement` passes
/// without fixing: it changes a step of one ([`changes_unit_step`]), makes an operation
/// that does nothing ([`degenerate`]) or hard-codes a value of `tested`
/// ([`Tested::hard_coded`]). Each side is parsed once.
pub fn overfits(kind: SiteKind, original: &str, replacement: &str, tested: &Tested) -> bool {
    let Ok(after) = syn::parse_str::<syn::Expr>(replacement) else {
        return false;
    };
    let before = syn::parse_str::<syn::Expr>(original).ok();
    unit_step_changed(kind, original, replacement, &after)
        || idle_operations(&after) > before.as_ref().map_or(0, idle_operations)
        || before.is_some_and(|before| tested.hard_coded_in(&before, &after))
}

/// The outermost `&&`/`||` chain of `file` around the bytes `at` (and larger than them), as
/// its text and the bytes of `at` within that text: the condition an edit of one clause
/// lands in.
pub fn chain_around(
    file: &syn::File,
    text: &str,
    at: &Range<usize>,
) -> Option<(String, Range<usize>)> {
    struct Outermost<'a> {
        at: &'a Range<usize>,
        found: Option<Range<usize>>,
    }
    impl<'ast> Visit<'ast> for Outermost<'_> {
        fn visit_expr_binary(&mut self, b: &'ast syn::ExprBinary) {
            let bytes = syn::spanned::Spanned::span(b).byte_range();
            let logical = matches!(b.op, syn::BinOp::And(_) | syn::BinOp::Or(_));
            let around = bytes.start <= self.at.start && self.at.end <= bytes.end;
            if logical && around && bytes != *self.at && self.found.is_none() {
                self.found = Some(bytes);
            }
            syn::visit::visit_expr_binary(self, b);
        }
    }
    let mut walk = Outermost { at, found: None };
    walk.visit_file(file);
    let chain = walk.found?;
    let code = text.get(chain.clone())?.to_string();
    Some((code, at.start - chain.start..at.end - chain.start))
}

/// Whether writing `replacement` at `site` (bytes of `chain`, the condition around an edited
/// clause) makes an operation there that does nothing ([`overfits`]): `n <= 8` → `n >= 8`
/// in `n >= 8 && n <= 8` repeats a clause. A replacement that is itself a chain goes in
/// parenthesized, as it would have to be written.
pub fn idle_in(chain: &str, site: Range<usize>, replacement: &str) -> bool {
    let Ok(before) = syn::parse_str::<syn::Expr>(chain) else {
        return false;
    };
    let Some((head, tail)) = chain.get(..site.start).zip(chain.get(site.end..)) else {
        return false;
    };
    let nested = matches!(syn::parse_str::<syn::Expr>(replacement),
        Ok(syn::Expr::Binary(b)) if matches!(b.op, syn::BinOp::And(_) | syn::BinOp::Or(_)));
    let written = if nested {
        format!("({replacement})")
    } else {
        replacement.to_string()
    };
    syn::parse_str::<syn::Expr>(&format!("{head}{written}{tail}"))
        .is_ok_and(|after| idle_operations(&after) > idle_operations(&before))
}

/// Whether `replacement` has more operations that do nothing than `original` has: `x % 1`
/// (always 0), `x * 0`, `x * 1`, `x / 1`, `x + 0`, `x - 0` (and `x / 0`, `x % 0`, which
/// panic), `x - x`, `n >= n`, a clause its chain has already (`a && b && a`). Nobody
/// writes them: an edit
/// that makes one (`i + 1` → `i % 1`) passes by the constant it stands for, and the fix a
/// person would write is another.
#[cfg(test)]
fn degenerate(original: &str, replacement: &str) -> bool {
    let count = |code: &str| syn::parse_str::<syn::Expr>(code).map_or(0, |e| idle_operations(&e));
    count(replacement) > count(original)
}

/// How many operations that do nothing `expr` has.
fn idle_operations(expr: &syn::Expr) -> usize {
    let mut found = Degenerate(0);
    found.visit_expr(expr);
    found.0
}

/// Counts the operations that do nothing.
struct Degenerate(usize);

impl<'ast> Visit<'ast> for Degenerate {
    fn visit_expr_binary(&mut self, b: &'ast syn::ExprBinary) {
        // Integers and floats alike (`x * 1.0`), but for `% 1`: `x % 1.0` is a fraction.
        let (left, right) = (number(&b.left), number(&b.right));
        let is = |side: Option<f64>, v: f64| side == Some(v);
        let idle = match b.op {
            syn::BinOp::Rem(_) => {
                // `x % c % c` takes the remainder twice.
                let again = matches!(&*b.left, syn::Expr::Binary(inner)
                    if matches!(inner.op, syn::BinOp::Rem(_))
                        && token_text(&inner.right) == token_text(&b.right));
                literal_value(&b.right) == Some(1) || is(right, 0.0) || again
            }
            syn::BinOp::Mul(_) => [0.0, 1.0].iter().any(|&v| is(left, v) || is(right, v)),
            // A division by zero panics (or gives an infinity): it fixes nothing either.
            syn::BinOp::Div(_) => is(right, 1.0) || is(right, 0.0),
            syn::BinOp::Add(_) => is(left, 0.0) || is(right, 0.0) || cancels(b),
            syn::BinOp::Sub(_) => is(right, 0.0) || cancels(b) || same_operands(b),
            // A clause its chain already has (`a && b && a`): the chain without it.
            syn::BinOp::And(_) | syn::BinOp::Or(_) => repeats_clause(b),
            // A comparison of a value with itself is a constant (`n >= n`), as is a bit
            // operation's (`m & m` is `m`).
            syn::BinOp::BitAnd(_) | syn::BinOp::BitOr(_) | syn::BinOp::BitXor(_) => {
                same_operands(b)
            }
            ref op if super::syntactic::is_comparison_op(op) => same_operands(b),
            _ => false,
        };
        self.0 += usize::from(idle);
        syn::visit::visit_expr_binary(self, b);
    }
}

/// The integers the failing tests use: the arguments of their failing calls and the values
/// those calls should have returned.
#[derive(Debug, Default, Clone)]
pub struct Tested {
    inputs: BTreeSet<i128>,
    outputs: BTreeSet<i128>,
}

/// A written constant this small is everywhere in code; that a test uses it says nothing.
const COMMON: i128 = 2;

impl Tested {
    /// The integers of the failing calls of `oracles` (the calls past a failed assertion
    /// that failed too).
    pub fn of(oracles: &[Oracle]) -> Tested {
        let mut tested = Tested::default();
        for oracle in oracles {
            let failing = oracle.call.iter().chain(
                oracle
                    .later
                    .iter()
                    .flat_map(|l| l.calls.iter().filter(|(_, f)| *f).map(|(c, _)| c)),
            );
            for call in failing {
                for (_, value) in &call.args {
                    tested.inputs.extend(int(value));
                }
            }
            if let Some(Expectation::Returns(value)) = &oracle.expectation {
                tested.outputs.extend(int(value));
            }
        }
        tested
    }

    /// Whether `replacement` for `original` hard-codes a tested value: it compares for
    /// (in)equality with an integer, not in `original`, that a failing call takes as an
    /// argument (the program would special-case the test's input), or it is an integer
    /// alone where `original` computed something, the value a failing call should have
    /// returned (the program would return the test's answer). Integers up to 2 in magnitude
    /// are too common to tell.
    #[cfg(test)]
    fn hard_coded(&self, original: &str, replacement: &str) -> bool {
        let (Ok(before), Ok(after)) = (
            syn::parse_str::<syn::Expr>(original),
            syn::parse_str::<syn::Expr>(replacement),
        ) else {
            return false;
        };
        self.hard_coded_in(&before, &after)
    }

    /// [`Tested::hard_coded`], on the parsed sides.
    fn hard_coded_in(&self, before: &syn::Expr, after: &syn::Expr) -> bool {
        let written = literals(before).all;
        let new = literals(after);
        let special_case = new
            .compared
            .iter()
            .any(|v| v.abs() > COMMON && !written.contains(v) && self.inputs.contains(v));
        let answer = literal_value(after).is_some_and(|v| {
            v.abs() > COMMON && literal_value(before).is_none() && self.outputs.contains(&v)
        });
        special_case || answer
    }
}

/// The integer of a recorded value.
fn int(value: &Value) -> Option<i128> {
    match value {
        Value::Int { v, .. } => Some(*v),
        _ => None,
    }
}

/// A number literal (integer or float), or its negation.
fn number(expr: &syn::Expr) -> Option<f64> {
    match expr {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Float(f),
            ..
        }) => f.base10_parse().ok(),
        syn::Expr::Paren(p) => number(&p.expr),
        syn::Expr::Unary(syn::ExprUnary {
            op: syn::UnOp::Neg(_),
            expr,
            ..
        }) => number(expr).map(|v| -v),
        other => literal_value(other).map(|v| v as f64),
    }
}

/// An expression's tokens as text (two written alike compare equal).
fn token_text(expr: &syn::Expr) -> String {
    quote::ToTokens::to_token_stream(expr).to_string()
}

/// Whether both operands of `b` are the same code (`x - x`, `n <= n`, `m & m`).
fn same_operands(b: &syn::ExprBinary) -> bool {
    token_text(&b.left) == token_text(&b.right)
}

/// Whether the right clause of the chain `b` (`&&` or `||`) is one of the clauses its left
/// side already has, in a chain of the same operator (`a && b && a`).
fn repeats_clause(b: &syn::ExprBinary) -> bool {
    fn clauses<'e>(expr: &'e syn::Expr, op: &syn::BinOp, out: &mut Vec<&'e syn::Expr>) {
        match expr {
            syn::Expr::Binary(inner)
                if std::mem::discriminant(&inner.op) == std::mem::discriminant(op) =>
            {
                clauses(&inner.left, op, out);
                clauses(&inner.right, op, out);
            }
            other => out.push(other),
        }
    }
    let mut left = Vec::new();
    clauses(&b.left, &b.op, &mut left);
    let right = token_text(&b.right);
    left.iter().any(|clause| token_text(clause) == right)
}

/// Whether `b` undoes the step its left operand just took: `x + 1 - 1`, `x - 2 + 2`.
fn cancels(b: &syn::ExprBinary) -> bool {
    let syn::Expr::Binary(inner) = &*b.left else {
        return false;
    };
    let opposite = matches!(
        (&inner.op, &b.op),
        (syn::BinOp::Add(_), syn::BinOp::Sub(_)) | (syn::BinOp::Sub(_), syn::BinOp::Add(_))
    );
    opposite && number(&inner.right).is_some_and(|v| number(&b.right) == Some(v))
}

/// An integer literal, or its negation.
fn literal_value(expr: &syn::Expr) -> Option<i128> {
    match expr {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse().ok(),
        syn::Expr::Unary(syn::ExprUnary {
            op: syn::UnOp::Neg(_),
            expr,
            ..
        }) => literal_value(expr).map(|v| -v),
        syn::Expr::Paren(p) => literal_value(&p.expr),
        _ => None,
    }
}

/// The integer literals of an expression: all of them, and those an `==`/`!=` compares with.
#[derive(Default)]
struct Literals {
    all: BTreeSet<i128>,
    compared: BTreeSet<i128>,
}

impl<'ast> Visit<'ast> for Literals {
    fn visit_expr(&mut self, expr: &'ast syn::Expr) {
        if let Some(v) = literal_value(expr) {
            self.all.insert(v);
            return;
        }
        if let syn::Expr::Binary(b) = expr
            && matches!(b.op, syn::BinOp::Eq(_) | syn::BinOp::Ne(_))
        {
            self.compared.extend(literal_value(&b.left));
            self.compared.extend(literal_value(&b.right));
        }
        syn::visit::visit_expr(self, expr);
    }
}

fn literals(expr: &syn::Expr) -> Literals {
    let mut found = Literals::default();
    found.visit_expr(expr);
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tested(inputs: &[i128], outputs: &[i128]) -> Tested {
        Tested {
            inputs: inputs.iter().copied().collect(),
            outputs: outputs.iter().copied().collect(),
        }
    }

    #[test]
    fn a_tested_input_compared_for_equality_is_hard_coded() {
        let t = tested(&[58, 1], &[120]);
        assert!(t.hard_coded("n == 57", "n == 58"));
        assert!(t.hard_coded("x > 0", "x > 0 && n != 58"));
        // Not a tested input, an order comparison, a common constant, a value written before.
        assert!(!t.hard_coded("n == 57", "n == 56"));
        assert!(!t.hard_coded("n < 57", "n < 58"));
        assert!(!t.hard_coded("n == 0", "n == 1"));
        assert!(!t.hard_coded("n == 58 || n == 3", "n == 58 && n == 3"));
    }

    #[test]
    fn the_expected_answer_in_place_of_a_computation_is_hard_coded() {
        let t = tested(&[5], &[120, -7, 2]);
        assert!(t.hard_coded("n * f(n - 1)", "120"));
        assert!(t.hard_coded("a - b", "-7"));
        // A constant changed into another, a common value, a value no call expects.
        assert!(!t.hard_coded("119", "120"));
        assert!(!t.hard_coded("a - b", "2"));
        assert!(!t.hard_coded("a - b", "121"));
    }

    #[test]
    fn operations_that_do_nothing_are_not_fixes() {
        assert!(degenerate("i + 1", "i % 1"));
        assert!(degenerate("a - b", "a * 1"));
        assert!(degenerate("n / 2", "n / 1"));
        assert!(!degenerate("i + 1", "i - 1"));
        assert!(!degenerate("x * 1 + y", "x * 1 - y"));
        assert!(!degenerate("n % 2", "n % 3"));
        assert!(degenerate("i * (i + 1) / 2", "i * (i + 1) / 0"));
        assert!(degenerate("n % 2", "n % 0"));
        assert!(degenerate("x / 2.0", "x / 0.0"));
        assert!(degenerate("x % 1.0 + 1.0", "x % 1.0 * 1.0"));
        assert!(degenerate("x % 1.0 + 1.0", "x % 1.0 % 1.0"));
        assert!(!degenerate("x % 1.0 + 1.0", "x % 1.0"));
        assert!(!degenerate("x + 1.0", "x % 1.0"));
        // A step taken and undone: `hi` one up where `- 1` follows.
        assert!(degenerate("lo < hi - 1", "lo < hi + 1 - 1"));
        assert!(degenerate("n - 2", "n - 2 + 2"));
        assert!(!degenerate("lo < hi - 1", "lo < hi + 1 - 2"));
        assert!(!degenerate("lo < hi - 1", "lo < hi - 1 - 1"));
        // A clause its chain already has, a value compared with or taken from itself.
        assert!(degenerate(
            "n % 2 == 0 && n >= 8 && n <= 8",
            "n % 2 == 0 && n >= 8 && n >= 8"
        ));
        assert!(degenerate("a || b", "a || a"));
        assert!(degenerate("t1 <= t2", "t1 <= t1"));
        assert!(degenerate("x - y", "x - x"));
        assert!(!degenerate("a && b && c", "a && b || c"));
        assert!(!degenerate("a && b", "a && !b"));
        // Already there before: not made by the edit.
        assert!(!degenerate("x != x || y > 0", "x != x || y >= 0"));
    }

    #[test]
    fn a_clause_edited_into_one_its_chain_has_does_nothing() {
        let text = "fn f(n: i32) -> bool {\n    n % 2 == 0 && n >= 8 && n <= 8\n}\n";
        let file = syn::parse_file(text).unwrap();
        let at = text.find("n <= 8").unwrap();
        let (chain, site) = chain_around(&file, text, &(at..at + "n <= 8".len())).unwrap();
        assert_eq!(chain, "n % 2 == 0 && n >= 8 && n <= 8");
        assert!(idle_in(&chain, site.clone(), "n >= 8"));
        assert!(!idle_in(&chain, site.clone(), "n < 8"));
        assert!(!idle_in(&chain, site.clone(), "n >= 8 || n < 0"));
        // The whole chain is no clause of a chain.
        let whole = text.find("n % 2").unwrap();
        assert!(chain_around(&file, text, &(whole..whole + chain.len())).is_none());
    }

    #[test]
    fn a_unit_step_made_another_constant_changes_the_stride() {
        assert!(changes_unit_step(SiteKind::Compound, "1", "2"));
        assert!(!changes_unit_step(SiteKind::Compound, "1", "x"));
        assert!(!changes_unit_step(SiteKind::Let, "1", "2"));
    }
}
