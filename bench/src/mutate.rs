//! The mutation engine: every place in a program's function bodies where a fault of one of
//! the papers' classes can be seeded, as a byte-range rewrite of the source text.
//!
//! Only function and method bodies are walked; `#[cfg(test)]` modules, `#[test]` functions,
//! attributes (contracts are specifications, not code under test), types, patterns and macro
//! invocations are skipped. A mutation changes exactly its byte range; the compiler, not this
//! module, rejects the ones that do not type-check.

use std::collections::BTreeSet;
use std::fmt;

use anyhow::{Result, bail};
use serde::{Deserialize, Serialize};
use syn::spanned::Spanned;
use syn::visit::{self, Visit};
use syn::{BinOp, Expr, RangeLimits, UnOp};

use crate::span::{LineIndex, PosRange};

/// The fault classes of the papers (Siemens-suite style seeded faults).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FaultClass {
    /// `<` `<=` `>` `>=` `==` `!=` swapped for another.
    RelationalOperator,
    /// `+ - * / %` (also in compound assignments) swapped for another.
    ArithmeticOperator,
    /// `&&` ↔ `||`.
    BooleanOperator,
    /// A `!` removed, or a condition negated.
    Negation,
    /// An integer literal off by one (which includes 0 ↔ 1).
    Constant,
    /// A local variable or parameter replaced by another one of the same function.
    Variable,
    /// A range end or `while` bound off by one, or `..` ↔ `..=`.
    LoopBound,
    /// One operand of `&&`/`||` dropped.
    MissingClause,
    /// A condition strengthened with another comparison of the same function.
    ExtraClause,
}

impl FaultClass {
    /// Every class, in the order tables list them.
    pub const ALL: [FaultClass; 9] = [
        FaultClass::RelationalOperator,
        FaultClass::ArithmeticOperator,
        FaultClass::BooleanOperator,
        FaultClass::Negation,
        FaultClass::Constant,
        FaultClass::Variable,
        FaultClass::LoopBound,
        FaultClass::MissingClause,
        FaultClass::ExtraClause,
    ];

    /// The kebab-case name used in `faults.json` and the tables.
    pub fn name(self) -> &'static str {
        match self {
            FaultClass::RelationalOperator => "relational-operator",
            FaultClass::ArithmeticOperator => "arithmetic-operator",
            FaultClass::BooleanOperator => "boolean-operator",
            FaultClass::Negation => "negation",
            FaultClass::Constant => "constant",
            FaultClass::Variable => "variable",
            FaultClass::LoopBound => "loop-bound",
            FaultClass::MissingClause => "missing-clause",
            FaultClass::ExtraClause => "extra-clause",
        }
    }
}

impl fmt::Display for FaultClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One seeded change: replace `original` at `byte_start..byte_end` of `file` by
/// `replacement`. Lines and columns are report positions (1-based, char columns, end
/// exclusive) of the original text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mutation {
    /// Path relative to the package root, `/`-separated.
    pub file: String,
    pub byte_start: usize,
    pub byte_end: usize,
    pub line: usize,
    pub column: usize,
    pub end_line: usize,
    pub end_column: usize,
    pub original: String,
    pub replacement: String,
    pub class: FaultClass,
}

impl Mutation {
    /// The span of the original text, for overlap scoring.
    pub fn pos_range(&self) -> PosRange {
        use crate::span::Pos;
        PosRange {
            start: Pos {
                line: self.line,
                column: self.column,
            },
            end: Pos {
                line: self.end_line,
                column: self.end_column,
            },
        }
    }

    /// `file:line:column: original → replacement`, for progress lines.
    pub fn describe(&self) -> String {
        format!(
            "{}:{}:{} [{}] `{}` → `{}`",
            self.file, self.line, self.column, self.class, self.original, self.replacement
        )
    }
}

/// Applies mutations to `text`. Each must find its `original` at its byte range, and the
/// ranges must not overlap; every byte outside them is kept as it is.
pub fn apply(text: &str, mutations: &[&Mutation]) -> Result<String> {
    let mut sorted: Vec<&Mutation> = mutations.to_vec();
    sorted.sort_by_key(|m| m.byte_start);
    for pair in sorted.windows(2) {
        if pair[0].byte_end > pair[1].byte_start {
            bail!(
                "overlapping mutations: {} and {}",
                pair[0].describe(),
                pair[1].describe()
            );
        }
    }
    let mut out = text.to_string();
    for m in sorted.iter().rev() {
        match text.get(m.byte_start..m.byte_end) {
            Some(found) if found == m.original => {}
            found => bail!(
                "{} expects `{}` at bytes {}..{}, the file has {:?}",
                m.file,
                m.original,
                m.byte_start,
                m.byte_end,
                found
            ),
        }
        out.replace_range(m.byte_start..m.byte_end, &m.replacement);
    }
    Ok(out)
}

/// Every mutation point of `text` (the contents of `file`, a path relative to the package
/// root), in source order.
pub fn enumerate(file: &str, text: &str) -> Result<Vec<Mutation>> {
    let ast = syn::parse_file(text)?;
    let index = LineIndex::new(text);
    let mut out = Vec::new();
    let mut functions = Vec::new();
    collect_functions(&ast.items, &mut functions);
    for (inputs, block) in functions {
        let mut names = Names::default();
        for input in inputs {
            if let syn::FnArg::Typed(pt) = input {
                names.visit_pat(&pt.pat);
            }
        }
        names.visit_block(block);
        let mut comparisons = Comparisons::default();
        comparisons.visit_block(block);
        let mut body = Body {
            file,
            text,
            index: &index,
            locals: names.0,
            comparisons: comparisons.0,
            context: 0,
            out: &mut out,
        };
        body.visit_block(block);
    }
    out.sort_by(|a, b| {
        (a.byte_start, a.byte_end, a.class, &a.replacement).cmp(&(
            b.byte_start,
            b.byte_end,
            b.class,
            &b.replacement,
        ))
    });
    out.dedup_by(|a, b| {
        a.byte_start == b.byte_start && a.byte_end == b.byte_end && a.replacement == b.replacement
    });
    Ok(out)
}

/// Whether the attributes switch the item off outside tests (`#[cfg(test)]`, `#[test]`).
fn is_test_only(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        let path = a.path();
        if path.is_ident("test") {
            return true;
        }
        if !path.is_ident("cfg") {
            return false;
        }
        let tokens = quote::ToTokens::to_token_stream(&a.meta).to_string();
        tokens
            .split(|c: char| !c.is_alphanumeric() && c != '_')
            .any(|w| w == "test")
    })
}

type Function<'a> = (Vec<&'a syn::FnArg>, &'a syn::Block);

/// The bodies (with their parameters) of the functions and methods among `items`.
fn collect_functions<'a>(items: &'a [syn::Item], out: &mut Vec<Function<'a>>) {
    for item in items {
        match item {
            syn::Item::Fn(f) if !is_test_only(&f.attrs) => {
                out.push((f.sig.inputs.iter().collect(), &f.block));
            }
            syn::Item::Impl(i) if !is_test_only(&i.attrs) => {
                for it in &i.items {
                    if let syn::ImplItem::Fn(f) = it
                        && !is_test_only(&f.attrs)
                    {
                        out.push((f.sig.inputs.iter().collect(), &f.block));
                    }
                }
            }
            syn::Item::Trait(t) if !is_test_only(&t.attrs) => {
                for it in &t.items {
                    if let syn::TraitItem::Fn(f) = it
                        && let Some(block) = &f.default
                        && !is_test_only(&f.attrs)
                    {
                        out.push((f.sig.inputs.iter().collect(), block));
                    }
                }
            }
            syn::Item::Mod(m) if !is_test_only(&m.attrs) => {
                if let Some((_, items)) = &m.content {
                    collect_functions(items, out);
                }
            }
            _ => {}
        }
    }
}

/// The names bound in a function: parameters, `let`s, `for` patterns, closure parameters.
#[derive(Default)]
struct Names(BTreeSet<String>);

impl<'ast> Visit<'ast> for Names {
    fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
        self.0.insert(p.ident.to_string());
        visit::visit_pat_ident(self, p);
    }
    fn visit_macro(&mut self, _: &'ast syn::Macro) {}
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// The comparisons of a function, as (byte range, text) once parsed: candidates for an
/// extra clause. Kept as spans and filled in by [`Body`].
#[derive(Default)]
struct Comparisons(Vec<proc_macro2::Span>);

impl<'ast> Visit<'ast> for Comparisons {
    fn visit_expr_binary(&mut self, e: &'ast syn::ExprBinary) {
        if is_relational(&e.op) {
            self.0.push(e.span());
        }
        visit::visit_expr_binary(self, e);
    }
    fn visit_macro(&mut self, _: &'ast syn::Macro) {}
    fn visit_attribute(&mut self, _: &'ast syn::Attribute) {}
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

fn is_relational(op: &BinOp) -> bool {
    matches!(
        op,
        BinOp::Lt(_) | BinOp::Le(_) | BinOp::Gt(_) | BinOp::Ge(_) | BinOp::Eq(_) | BinOp::Ne(_)
    )
}

/// The operator's text and, for an arithmetic one, whether it is a compound assignment.
fn arithmetic(op: &BinOp) -> Option<(&'static str, bool)> {
    Some(match op {
        BinOp::Add(_) => ("+", false),
        BinOp::Sub(_) => ("-", false),
        BinOp::Mul(_) => ("*", false),
        BinOp::Div(_) => ("/", false),
        BinOp::Rem(_) => ("%", false),
        BinOp::AddAssign(_) => ("+", true),
        BinOp::SubAssign(_) => ("-", true),
        BinOp::MulAssign(_) => ("*", true),
        BinOp::DivAssign(_) => ("/", true),
        BinOp::RemAssign(_) => ("%", true),
        _ => return None,
    })
}

/// The replacements of a relational operator that make sense: an ordering becomes another
/// ordering or an (in)equality; `==`/`!=` become each other or a non-strict/strict ordering.
fn relational_replacements(op: &BinOp) -> &'static [&'static str] {
    match op {
        BinOp::Lt(_) => &["<=", ">", ">=", "==", "!="],
        BinOp::Le(_) => &["<", ">", ">=", "=="],
        BinOp::Gt(_) => &[">=", "<", "<=", "==", "!="],
        BinOp::Ge(_) => &[">", "<", "<=", "=="],
        BinOp::Eq(_) => &["!=", "<=", ">="],
        BinOp::Ne(_) => &["==", "<", ">"],
        _ => &[],
    }
}

/// Whether `e` can take a trailing `+ 1` without parentheses.
fn takes_offset(e: &Expr) -> bool {
    match e {
        Expr::Binary(b) => arithmetic(&b.op).is_some_and(|(_, compound)| !compound),
        Expr::Path(_)
        | Expr::Lit(_)
        | Expr::MethodCall(_)
        | Expr::Call(_)
        | Expr::Field(_)
        | Expr::Index(_)
        | Expr::Paren(_)
        | Expr::Cast(_)
        | Expr::Macro(_) => true,
        _ => false,
    }
}

/// Whether a condition is a `let` (or a chain with one): those cannot be negated or extended.
fn has_let(e: &Expr) -> bool {
    match e {
        Expr::Let(_) => true,
        Expr::Binary(b) if matches!(b.op, BinOp::And(_)) => has_let(&b.left) || has_let(&b.right),
        _ => false,
    }
}

/// The walk over one function body that emits mutations.
struct Body<'a, 'o> {
    file: &'a str,
    text: &'a str,
    index: &'a LineIndex<'a>,
    /// Locals and parameters of the function: the pool of the variable class.
    locals: BTreeSet<String>,
    /// Comparisons of the function: the pool of the extra-clause class.
    comparisons: Vec<proc_macro2::Span>,
    /// Positive inside a condition, a comparison or an assignment's right-hand side, where
    /// identifiers are replaced by other variables.
    context: usize,
    out: &'o mut Vec<Mutation>,
}

impl Body<'_, '_> {
    fn bytes(&self, span: proc_macro2::Span) -> std::ops::Range<usize> {
        self.index.byte_range(span)
    }

    fn source(&self, span: proc_macro2::Span) -> &str {
        &self.text[self.bytes(span)]
    }

    fn push(&mut self, bytes: std::ops::Range<usize>, replacement: String, class: FaultClass) {
        let original = &self.text[bytes.clone()];
        if original == replacement || bytes.is_empty() {
            return;
        }
        let pos = self.index.pos_range(bytes.clone());
        self.out.push(Mutation {
            file: self.file.to_string(),
            byte_start: bytes.start,
            byte_end: bytes.end,
            line: pos.start.line,
            column: pos.start.column,
            end_line: pos.end.line,
            end_column: pos.end.column,
            original: original.to_string(),
            replacement,
            class,
        });
    }

    fn with_offset(&self, e: &Expr, delta: &str) -> String {
        let text = self.source(e.span());
        if takes_offset(e) {
            format!("{text} {delta}")
        } else {
            format!("({text}) {delta}")
        }
    }

    /// Mutations of a loop bound: the end of a range, or the right operand of a `while`
    /// comparison.
    fn bound(&mut self, e: &Expr) {
        let bytes = self.bytes(e.span());
        for delta in ["+ 1", "- 1"] {
            let r = self.with_offset(e, delta);
            self.push(bytes.clone(), r, FaultClass::LoopBound);
        }
    }

    /// Mutations of an `if`/`while` condition as a whole.
    fn condition(&mut self, cond: &Expr, is_while: bool) {
        if has_let(cond) {
            return;
        }
        let bytes = self.bytes(cond.span());
        let text = self.text[bytes.clone()].to_string();
        self.push(bytes.clone(), format!("!({text})"), FaultClass::Negation);
        let left = match cond {
            Expr::Binary(b) if matches!(b.op, BinOp::Or(_)) => format!("({text})"),
            _ => text.clone(),
        };
        let pool: Vec<String> = self
            .comparisons
            .iter()
            .map(|s| self.bytes(*s))
            .filter(|r| r.end <= bytes.start || r.start >= bytes.end)
            .map(|r| self.text[r].to_string())
            .filter(|t| *t != text)
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        for other in pool {
            self.push(
                bytes.clone(),
                format!("{left} && {other}"),
                FaultClass::ExtraClause,
            );
        }
        if is_while {
            let mut conjuncts = vec![cond];
            while let Some(c) = conjuncts.pop() {
                match c {
                    Expr::Binary(b) if matches!(b.op, BinOp::And(_)) => {
                        conjuncts.push(&b.left);
                        conjuncts.push(&b.right);
                    }
                    Expr::Binary(b) if is_relational(&b.op) => self.bound(&b.right),
                    _ => {}
                }
            }
        }
    }

    fn in_context(&mut self, f: impl FnOnce(&mut Self)) {
        self.context += 1;
        f(self);
        self.context -= 1;
    }
}

impl<'ast> Visit<'ast> for Body<'_, '_> {
    fn visit_attribute(&mut self, _: &'ast syn::Attribute) {}
    fn visit_macro(&mut self, _: &'ast syn::Macro) {}
    fn visit_type(&mut self, _: &'ast syn::Type) {}
    fn visit_pat(&mut self, _: &'ast syn::Pat) {}
    fn visit_item(&mut self, _: &'ast syn::Item) {}

    fn visit_expr_binary(&mut self, e: &'ast syn::ExprBinary) {
        let op_bytes = self.bytes(e.op.span());
        if is_relational(&e.op) {
            for r in relational_replacements(&e.op) {
                self.push(
                    op_bytes.clone(),
                    r.to_string(),
                    FaultClass::RelationalOperator,
                );
            }
        } else if let Some((op, compound)) = arithmetic(&e.op) {
            for r in ["+", "-", "*", "/", "%"] {
                if r != op {
                    let r = if compound {
                        format!("{r}=")
                    } else {
                        r.to_string()
                    };
                    self.push(op_bytes.clone(), r, FaultClass::ArithmeticOperator);
                }
            }
        } else if matches!(e.op, BinOp::And(_) | BinOp::Or(_)) {
            let other = if matches!(e.op, BinOp::And(_)) {
                "||"
            } else {
                "&&"
            };
            self.push(
                op_bytes.clone(),
                other.to_string(),
                FaultClass::BooleanOperator,
            );
            let whole = self.bytes(e.span());
            for side in [&e.left, &e.right] {
                if !has_let(side) {
                    let t = self.source(side.span()).to_string();
                    self.push(whole.clone(), t, FaultClass::MissingClause);
                }
            }
        }
        let compound = arithmetic(&e.op).is_some_and(|(_, c)| c);
        let judged = is_relational(&e.op) || matches!(e.op, BinOp::And(_) | BinOp::Or(_));
        if compound {
            self.visit_expr(&e.left);
            self.in_context(|s| s.visit_expr(&e.right));
        } else if judged {
            self.in_context(|s| visit::visit_expr_binary(s, e));
        } else {
            visit::visit_expr_binary(self, e);
        }
    }

    fn visit_expr_unary(&mut self, e: &'ast syn::ExprUnary) {
        if let UnOp::Not(_) = e.op {
            let bytes = self.bytes(e.op.span());
            self.push(bytes, String::new(), FaultClass::Negation);
        }
        visit::visit_expr_unary(self, e);
    }

    fn visit_expr_lit(&mut self, e: &'ast syn::ExprLit) {
        if let syn::Lit::Int(lit) = &e.lit
            && let Ok(v) = lit.base10_digits().parse::<u128>()
        {
            let bytes = self.bytes(e.span());
            let suffix = lit.suffix();
            self.push(
                bytes.clone(),
                format!("{}{suffix}", v + 1),
                FaultClass::Constant,
            );
            if v > 0 {
                self.push(bytes, format!("{}{suffix}", v - 1), FaultClass::Constant);
            }
        }
    }

    fn visit_expr_range(&mut self, e: &'ast syn::ExprRange) {
        if let Some(end) = &e.end {
            self.bound(end);
            let bytes = self.bytes(e.limits.span());
            let swapped = match e.limits {
                RangeLimits::HalfOpen(_) => "..=",
                RangeLimits::Closed(_) => "..",
            };
            self.push(bytes, swapped.to_string(), FaultClass::LoopBound);
        }
        visit::visit_expr_range(self, e);
    }

    fn visit_expr_if(&mut self, e: &'ast syn::ExprIf) {
        self.condition(&e.cond, false);
        self.in_context(|s| s.visit_expr(&e.cond));
        self.visit_block(&e.then_branch);
        if let Some((_, els)) = &e.else_branch {
            self.visit_expr(els);
        }
    }

    fn visit_expr_while(&mut self, e: &'ast syn::ExprWhile) {
        self.condition(&e.cond, true);
        self.in_context(|s| s.visit_expr(&e.cond));
        self.visit_block(&e.body);
    }

    fn visit_local(&mut self, l: &'ast syn::Local) {
        if let Some(init) = &l.init {
            self.in_context(|s| s.visit_expr(&init.expr));
            if let Some((_, diverge)) = &init.diverge {
                self.visit_expr(diverge);
            }
        }
    }

    fn visit_expr_assign(&mut self, e: &'ast syn::ExprAssign) {
        self.visit_expr(&e.left);
        self.in_context(|s| s.visit_expr(&e.right));
    }

    fn visit_expr_path(&mut self, e: &'ast syn::ExprPath) {
        if self.context == 0 || e.qself.is_some() {
            return;
        }
        let Some(ident) = e.path.get_ident() else {
            return;
        };
        let name = ident.to_string();
        if !self.locals.contains(&name) {
            return;
        }
        let bytes = self.bytes(e.span());
        let others: Vec<String> = self
            .locals
            .iter()
            .filter(|n| **n != name)
            .cloned()
            .collect();
        for other in others {
            self.push(bytes.clone(), other, FaultClass::Variable);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn muts(src: &str) -> Vec<Mutation> {
        enumerate("src/lib.rs", src).unwrap()
    }

    fn of(src: &str, class: FaultClass) -> Vec<(String, String)> {
        muts(src)
            .into_iter()
            .filter(|m| m.class == class)
            .map(|m| (m.original, m.replacement))
            .collect()
    }

    fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
        v.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    #[test]
    fn relational_operators_become_the_others_that_make_sense() {
        let src = "fn f(a: i32, b: i32) -> bool { a < b }";
        assert_eq!(
            of(src, FaultClass::RelationalOperator),
            pairs(&[
                ("<", "!="),
                ("<", "<="),
                ("<", "=="),
                ("<", ">"),
                ("<", ">=")
            ])
        );
        let src = "fn f(a: i32) -> bool { a != 3 }";
        assert_eq!(
            of(src, FaultClass::RelationalOperator),
            pairs(&[("!=", "<"), ("!=", "=="), ("!=", ">")])
        );
    }

    #[test]
    fn arithmetic_operators_include_compound_assignments() {
        let src = "fn f(mut s: i32, x: i32) -> i32 { s += x * 2; s }";
        let got = of(src, FaultClass::ArithmeticOperator);
        assert!(got.contains(&("+=".into(), "-=".into())));
        assert!(got.contains(&("+=".into(), "%=".into())));
        assert!(got.contains(&("*".into(), "/".into())));
        assert_eq!(got.len(), 8);
    }

    #[test]
    fn boolean_operators_negations_and_missing_clauses() {
        let src = "fn f(a: bool, b: bool) -> bool { a && !b }";
        assert_eq!(of(src, FaultClass::BooleanOperator), pairs(&[("&&", "||")]));
        assert_eq!(of(src, FaultClass::Negation), pairs(&[("!", "")]));
        assert_eq!(
            of(src, FaultClass::MissingClause),
            pairs(&[("a && !b", "!b"), ("a && !b", "a")])
        );
    }

    #[test]
    fn conditions_are_negated_and_extended_by_other_comparisons() {
        let src = "fn f(x: i32, y: i32) -> i32 { if x > 0 || y > 0 { 1 } else if x == y { 2 } else { 3 } }";
        let neg = of(src, FaultClass::Negation);
        assert!(neg.contains(&("x > 0 || y > 0".into(), "!(x > 0 || y > 0)".into())));
        assert!(neg.contains(&("x == y".into(), "!(x == y)".into())));
        let extra = of(src, FaultClass::ExtraClause);
        assert!(extra.contains(&("x > 0 || y > 0".into(), "(x > 0 || y > 0) && x == y".into())));
        assert!(extra.contains(&("x == y".into(), "x == y && x > 0".into())));
        assert!(extra.contains(&("x == y".into(), "x == y && y > 0".into())));
        // A comparison inside the condition itself is not an extra clause of it.
        assert!(!extra.contains(&("x > 0 || y > 0".into(), "(x > 0 || y > 0) && x > 0".into())));
    }

    #[test]
    fn let_conditions_are_not_negated() {
        let src = "fn f(o: Option<i32>) -> i32 { if let Some(v) = o { v } else { 0 } }";
        assert!(of(src, FaultClass::Negation).is_empty());
        assert!(of(src, FaultClass::ExtraClause).is_empty());
    }

    #[test]
    fn constants_are_off_by_one_and_keep_their_suffix() {
        let src = "fn f() -> u8 { let a = 0; let b = 1_000; a + b + 7u8 }";
        assert_eq!(
            of(src, FaultClass::Constant),
            pairs(&[
                ("0", "1"),
                ("1_000", "1001"),
                ("1_000", "999"),
                ("7u8", "6u8"),
                ("7u8", "8u8")
            ])
        );
    }

    #[test]
    fn variables_in_conditions_and_right_hand_sides_are_swapped() {
        let src = "fn f(a: &[i32], n: usize) -> i32 { let mut i = 0; let mut s = 0; while i < n { s = s + a[i]; i += 1; } s }";
        let got = of(src, FaultClass::Variable);
        // In the condition `i < n`.
        assert!(got.contains(&("i".into(), "n".into())));
        assert!(got.contains(&("n".into(), "i".into())));
        // In `s + a[i]`, `a` may become `s` (the compiler will reject it), `s` may become `i`.
        assert!(got.contains(&("s".into(), "i".into())));
        assert!(got.contains(&("a".into(), "s".into())));
        // Not on the left of an assignment: `s =` keeps its place. Each of the 4 names has 3
        // replacements at each of: i, n (cond), s, a, i (rhs of s), nothing in `i += 1`'s
        // left, and nothing for the literal 1.
        assert_eq!(got.len(), 5 * 3);
    }

    #[test]
    fn loop_bounds_of_ranges_and_while_comparisons() {
        let src = "fn f(a: &mut [i32], n: usize) { for i in 0..a.len() { a[i] = 0; } let mut j = 0; while j < n - 1 { j += 1; } }";
        let got = of(src, FaultClass::LoopBound);
        assert!(got.contains(&("a.len()".into(), "a.len() + 1".into())));
        assert!(got.contains(&("a.len()".into(), "a.len() - 1".into())));
        assert!(got.contains(&("..".into(), "..=".into())));
        assert!(got.contains(&("n - 1".into(), "n - 1 + 1".into())));
        assert!(got.contains(&("n - 1".into(), "n - 1 - 1".into())));
        assert_eq!(got.len(), 5);
    }

    #[test]
    fn tests_attributes_contracts_and_macros_are_not_mutated() {
        let src = r#"
#[requires(x > 0)]
fn f(x: i32) -> i32 { assert!(x < 100); x }
#[test]
fn t() { assert_eq!(f(1) + 1, 2); }
#[cfg(test)]
mod tests { fn g(a: i32) -> bool { a < 3 } }
"#;
        assert!(muts(src).is_empty(), "{:?}", muts(src));
    }

    #[test]
    fn methods_and_nested_modules_are_walked() {
        let src =
            "mod m { pub struct S(i32); impl S { pub fn big(&self) -> bool { self.0 > 9 } } }";
        let got = of(src, FaultClass::RelationalOperator);
        assert!(!got.is_empty());
    }

    #[test]
    fn only_the_mutated_bytes_change() {
        let src = "// héllo → wörld\nfn f(a: i32) -> i32 {\n    /* keep   this */ if a <  2 { a*3 } else { a }\n}\n";
        for m in muts(src) {
            let out = apply(src, &[&m]).unwrap();
            assert_eq!(&out[..m.byte_start], &src[..m.byte_start]);
            assert_eq!(
                &out[m.byte_start + m.replacement.len()..],
                &src[m.byte_end..]
            );
            assert_eq!(
                &out[m.byte_start..m.byte_start + m.replacement.len()],
                m.replacement
            );
            // Positions name the original text in report coordinates.
            let line: &str = src.lines().nth(m.line - 1).unwrap();
            let start = line.char_indices().nth(m.column - 1).unwrap().0;
            assert!(line[start..].starts_with(&m.original), "{m:?}");
        }
    }

    #[test]
    fn applying_two_mutations_and_rejecting_stale_ones() {
        let src = "fn f(a: i32) -> bool { a < 1 && a > 5 }";
        let all = muts(src);
        let lt = all
            .iter()
            .find(|m| m.original == "<" && m.replacement == ">")
            .unwrap();
        let five = all
            .iter()
            .find(|m| m.original == "5" && m.replacement == "6")
            .unwrap();
        assert_eq!(
            apply(src, &[five, lt]).unwrap(),
            "fn f(a: i32) -> bool { a > 1 && a > 6 }"
        );
        let whole = all
            .iter()
            .find(|m| m.class == FaultClass::MissingClause)
            .unwrap();
        assert!(apply(src, &[lt, whole]).is_err(), "overlap");
        let mut stale = lt.clone();
        stale.original = ">".into();
        assert!(apply(src, &[&stale]).is_err());
    }
}
