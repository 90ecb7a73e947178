//! The syntactic candidate source: small edits of a site's own code, simplest first —
//! relational operator swaps (`<` ↔ `<=` first), `&&` ↔ `||`, integer literals ±1, a loop
//! bound ±1, a variable swapped for another of the same type in scope, the operands of a
//! non-commutative operator exchanged (`j % i` → `i % j`), an arithmetic operation reduced
//! to one of its operands (`x * -1` → `x`), two neighbouring elements of an argument list,
//! tuple, array or `vec!` exchanged, and a method for its counterpart (`min` ↔ `max`,
//! `floor` ↔ `ceil`, `starts_with` ↔ `ends_with`, …), a short string literal with one
//! character dropped or emptied, a character literal for one of the failing calls' text
//! (`'('` for `'['`), a small integer for another (`0` for `2`), inside closures too (but for the
//! variable swaps: a closure has names of its own). Each edit changes a few bytes inside
//! the site's text and keeps the rest as written. Template synthesis with a solver
//! supersedes it where its model reaches; this is the source that needs nothing but the
//! code. A step of one (`i += 1`) is never made another: that would skip elements, not
//! fix anything.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::ops::Range;

use autodebug_runtime::protocol::{BinOp, Expr, SiteKey, SiteKind, Value};
use autodebug_syntax::catalogue;
use syn::spanned::Spanned;
use syn::visit::{self, Visit};

use super::expression::{self, Types};
use super::{Candidate, CandidateEdit, CandidateSource, Target};

/// One edit of a site's text.
#[derive(Debug, Clone, PartialEq)]
pub struct Mutation {
    /// The site's new text.
    pub rust: String,
    /// What kind of edit (`relational-operator`, `constant±1`, `loop-bound±1`, `variable`).
    pub template: &'static str,
    /// How far from the written code: 1 for the smallest edits.
    pub cost: u32,
    /// The new code as the runtime evaluates it, when it can.
    pub expr: Option<Expr>,
}

/// Parts of the site's expression an edit can change.
#[derive(Default)]
struct Parts {
    /// Comparison operators: byte range of the operator and the operator.
    comparisons: Vec<(Range<usize>, BinOp)>,
    /// `&&` and `||`: byte range of the operator and the operator.
    logical: Vec<(Range<usize>, BinOp)>,
    /// `&&` and `||` expressions: the byte ranges of the whole, its left and its right clause.
    clauses: Vec<(Range<usize>, Range<usize>, Range<usize>)>,
    /// Arithmetic operators: byte range of the operator and the operator.
    arithmetic: Vec<(Range<usize>, BinOp)>,
    /// `!e`: byte range of the `!`.
    negations: Vec<Range<usize>>,
    /// Operands of `&&`/`||` that are no comparison and no `&&`/`||` themselves (a flag, a
    /// call): their byte ranges and whether they need parentheses under a `!`.
    flags: Vec<(Range<usize>, bool)>,
    /// String literals: byte range and value.
    strings: Vec<(Range<usize>, String)>,
    /// Character literals: byte range and value.
    chars: Vec<(Range<usize>, char)>,
    /// Integer literals: byte range, value, suffix.
    integers: Vec<(Range<usize>, u128, String)>,
    /// Single-name paths: byte range and name.
    names: Vec<(Range<usize>, String)>,
    /// Arithmetic operations.
    operations: Vec<Operation>,
    /// Lists of expressions (call arguments, tuple and array elements, a `vec!`'s
    /// elements): each element's byte range.
    lists: Vec<Vec<Range<usize>>>,
    /// Methods called (`x.min(y)`) and functions called by a path (`max(a, b)`,
    /// `cmp::max(a, b)`): the byte range of the name and the name.
    methods: Vec<(Range<usize>, String)>,
    /// Parenthesized expressions: the byte ranges of the whole and of what is inside.
    parens: Vec<(Range<usize>, Range<usize>)>,
    /// `true` and `false`: byte range and value.
    booleans: Vec<(Range<usize>, bool)>,
    /// Integer literals that are a factor of `*` or the divisor of `/`: their byte ranges
    /// (set to 1, the operation is written without them).
    factors: Vec<Range<usize>>,
    /// How many closures the walk is inside: their parameters are not in the site's scope,
    /// so names there are not swapped (operators, literals and calls are edited).
    closures: usize,
}

/// An arithmetic operation: the byte ranges of the whole, its left and its right operand,
/// and whether the operator is commutative.
struct Operation {
    whole: Range<usize>,
    left: Range<usize>,
    right: Range<usize>,
    commutative: bool,
}

impl Parts {
    fn list<'a>(&mut self, elements: impl Iterator<Item = &'a syn::Expr>) {
        let ranges: Vec<Range<usize>> = elements.map(|e| e.span().byte_range()).collect();
        if ranges.len() >= 2 {
            self.lists.push(ranges);
        }
    }
}

impl<'ast> Visit<'ast> for Parts {
    fn visit_expr_binary(&mut self, e: &'ast syn::ExprBinary) {
        let op = match e.op {
            syn::BinOp::Lt(_) => Some(BinOp::Lt),
            syn::BinOp::Le(_) => Some(BinOp::Le),
            syn::BinOp::Gt(_) => Some(BinOp::Gt),
            syn::BinOp::Ge(_) => Some(BinOp::Ge),
            syn::BinOp::Eq(_) => Some(BinOp::Eq),
            syn::BinOp::Ne(_) => Some(BinOp::Ne),
            _ => None,
        };
        if let Some(op) = op {
            self.comparisons.push((e.op.span().byte_range(), op));
        }
        let arithmetic = match e.op {
            syn::BinOp::Add(_) => Some(BinOp::Add),
            syn::BinOp::Sub(_) => Some(BinOp::Sub),
            syn::BinOp::Mul(_) => Some(BinOp::Mul),
            syn::BinOp::Div(_) => Some(BinOp::Div),
            syn::BinOp::Rem(_) => Some(BinOp::Rem),
            _ => None,
        };
        if let Some(op) = arithmetic {
            let literal =
                |e: &syn::Expr| matches!(e, syn::Expr::Lit(l) if matches!(l.lit, syn::Lit::Int(_)));
            if op == BinOp::Mul && literal(&e.left) {
                self.factors.push(e.left.span().byte_range());
            }
            if matches!(op, BinOp::Mul | BinOp::Div) && literal(&e.right) {
                self.factors.push(e.right.span().byte_range());
            }
            self.arithmetic.push((e.op.span().byte_range(), op));
            self.operations.push(Operation {
                whole: e.span().byte_range(),
                left: e.left.span().byte_range(),
                right: e.right.span().byte_range(),
                commutative: matches!(op, BinOp::Add | BinOp::Mul),
            });
        }
        let logical = match e.op {
            syn::BinOp::And(_) => Some(BinOp::And),
            syn::BinOp::Or(_) => Some(BinOp::Or),
            _ => None,
        };
        if let Some(op) = logical {
            self.logical.push((e.op.span().byte_range(), op));
            self.clauses.push((
                e.span().byte_range(),
                e.left.span().byte_range(),
                e.right.span().byte_range(),
            ));
            for side in [&*e.left, &*e.right] {
                if let Some(parens) = flag(side) {
                    self.flags.push((side.span().byte_range(), parens));
                }
            }
        }
        visit::visit_expr_binary(self, e);
    }

    fn visit_expr_unary(&mut self, e: &'ast syn::ExprUnary) {
        if let syn::UnOp::Not(not) = e.op {
            self.negations.push(not.span().byte_range());
        }
        visit::visit_expr_unary(self, e);
    }

    fn visit_lit_bool(&mut self, lit: &'ast syn::LitBool) {
        self.booleans.push((lit.span().byte_range(), lit.value));
    }

    fn visit_lit_char(&mut self, lit: &'ast syn::LitChar) {
        self.chars.push((lit.span().byte_range(), lit.value()));
    }

    fn visit_lit_str(&mut self, lit: &'ast syn::LitStr) {
        self.strings.push((lit.span().byte_range(), lit.value()));
    }

    fn visit_lit_int(&mut self, lit: &'ast syn::LitInt) {
        if let Ok(v) = lit.base10_parse::<u128>() {
            self.integers
                .push((lit.span().byte_range(), v, lit.suffix().to_string()));
        }
    }

    fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
        if p.qself.is_none()
            && self.closures == 0
            && let Some(ident) = p.path.get_ident()
        {
            self.names.push((p.span().byte_range(), ident.to_string()));
        }
    }

    fn visit_expr_call(&mut self, e: &'ast syn::ExprCall) {
        self.list(e.args.iter());
        if let syn::Expr::Path(p) = &*e.func
            && let Some(last) = p.path.segments.last()
            && p.qself.is_none()
        {
            self.methods
                .push((last.ident.span().byte_range(), last.ident.to_string()));
        }
        visit::visit_expr_call(self, e);
    }

    fn visit_expr_method_call(&mut self, e: &'ast syn::ExprMethodCall) {
        self.list(e.args.iter());
        self.methods
            .push((e.method.span().byte_range(), e.method.to_string()));
        visit::visit_expr_method_call(self, e);
    }

    fn visit_expr_paren(&mut self, e: &'ast syn::ExprParen) {
        self.parens
            .push((e.span().byte_range(), e.expr.span().byte_range()));
        visit::visit_expr_paren(self, e);
    }

    fn visit_expr_tuple(&mut self, e: &'ast syn::ExprTuple) {
        self.list(e.elems.iter());
        visit::visit_expr_tuple(self, e);
    }

    fn visit_expr_array(&mut self, e: &'ast syn::ExprArray) {
        self.list(e.elems.iter());
        visit::visit_expr_array(self, e);
    }

    fn visit_expr_closure(&mut self, e: &'ast syn::ExprClosure) {
        self.closures += 1;
        visit::visit_expr_closure(self, e);
        self.closures -= 1;
    }

    // Macros have their own tokens: only `vec![a, b, …]`, whose elements are expressions,
    // is edited inside.
    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        if !mac.path.is_ident("vec") {
            return;
        }
        let parser = syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated;
        if let Ok(elements) = mac.parse_body_with(parser) {
            self.list(elements.iter());
            for element in &elements {
                self.visit_expr(element);
            }
        }
    }
}

/// Whether `e`, an operand of `&&`/`||`, is a boolean a `!` may be put before (a name, a
/// call, a field: no comparison, no `&&`/`||`, no `!` already), and whether `!` needs
/// parentheses around it.
fn flag(e: &syn::Expr) -> Option<bool> {
    match e {
        syn::Expr::Path(_)
        | syn::Expr::Call(_)
        | syn::Expr::MethodCall(_)
        | syn::Expr::Field(_)
        | syn::Expr::Index(_)
        | syn::Expr::Paren(_) => Some(false),
        syn::Expr::Binary(b) if matches!(b.op, syn::BinOp::BitAnd(_) | syn::BinOp::BitOr(_)) => {
            Some(true)
        }
        _ => None,
    }
}

/// The catalogue's operator written at `range` of `text` (a comparison or arithmetic
/// operator the walk found there).
fn written_op(text: &str, range: &Range<usize>) -> catalogue::Op {
    catalogue::Op::parse(&text[range.clone()]).expect("a comparison or arithmetic operator")
}

fn splice(text: &str, range: &Range<usize>, with: &str) -> String {
    format!("{}{with}{}", &text[..range.start], &text[range.end..])
}

/// `text` (a loop bound) with one more (`delta` 1) or one fewer (-1) iteration: a
/// trailing `± k` absorbs the change (`e - 1` becomes `e`, not `e - 1 + 1`).
fn bound_text(text: &str, delta: i128) -> String {
    let parsed = syn::parse_str::<syn::Expr>(text);
    // A literal is written anew: `1` becomes `2` or `0`.
    if let Ok(syn::Expr::Lit(syn::ExprLit {
        lit: syn::Lit::Int(k),
        ..
    })) = &parsed
        && let Ok(value) = k.base10_parse::<i128>()
    {
        return format!("{}{}", value + delta, k.suffix());
    }
    if let Ok(syn::Expr::Binary(b)) = &parsed
        && let syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(k),
            ..
        }) = &*b.right
        && let Ok(k_value) = k.base10_parse::<i128>()
        && let Some(sign) = match b.op {
            syn::BinOp::Add(_) => Some(1),
            syn::BinOp::Sub(_) => Some(-1),
            _ => None,
        }
    {
        let total = sign * k_value + delta;
        let suffix = k.suffix();
        if total != 0 && total.signum() == sign {
            return splice(
                text,
                &k.span().byte_range(),
                &format!("{}{suffix}", total.abs()),
            );
        }
        let left = text[..b.op.span().byte_range().start].trim_end();
        return match total {
            0 => left.to_string(),
            t if t > 0 => format!("{left} + {t}{suffix}"),
            t => format!("{left} - {}{suffix}", -t),
        };
    }
    // Operators that bind less tightly than `+` keep their operands together.
    let loose = matches!(
        &parsed,
        Ok(syn::Expr::Binary(b)) if !matches!(
            b.op,
            syn::BinOp::Add(_)
                | syn::BinOp::Sub(_)
                | syn::BinOp::Mul(_)
                | syn::BinOp::Div(_)
                | syn::BinOp::Rem(_)
        )
    );
    let base = if loose {
        format!("({text})")
    } else {
        text.to_string()
    };
    if delta > 0 {
        format!("{base} + 1")
    } else {
        format!("{base} - 1")
    }
}

/// The edits of a site's code `original` (its exact text) of `kind`, simplest first, each
/// text once, none equal to the original.
pub fn mutations(original: &str, kind: SiteKind, types: &Types) -> Vec<Mutation> {
    let Ok(expr) = syn::parse_str::<syn::Expr>(original) else {
        return Vec::new();
    };
    let mut parts = Parts::default();
    parts.visit_expr(&expr);
    let mut out: Vec<Mutation> = Vec::new();
    operator_swaps(original, &parts, types, &mut out);
    bound_shifts(original, kind, types, &mut out);
    arithmetic_and_negations(original, &parts, kind, &expr, types, &mut out);
    clause_and_constant_edits(original, &parts, types, &mut out);
    variable_and_operand_edits(original, &parts, types, &mut out);
    element_and_method_edits(original, &parts, types, &mut out);
    out.retain(|m| !super::overfit::changes_unit_step(kind, original, &m.rust));
    // Nobody writes `x - -1` or `x + -1`: an edit that puts two signs together is further
    // from what a person would write than one that drops the term.
    let written_signs = doubled_sign(original);
    for m in &mut out {
        if !written_signs && doubled_sign(&m.rust) {
            m.cost += 2;
        }
    }
    // Simplest first; the first of equal texts (after whitespace) stays.
    out.sort_by_key(|m| m.cost);
    let mut seen = BTreeSet::new();
    let written = super::patch::squeeze(original);
    out.retain(|m| {
        let text = super::patch::squeeze(&m.rust);
        text != written && seen.insert(text)
    });
    out
}

/// The relational and logical operators' swaps.
fn operator_swaps(original: &str, parts: &Parts, types: &Types, out: &mut Vec<Mutation>) {
    for (range, _) in &parts.comparisons {
        for swap in catalogue::swaps(written_op(original, range)) {
            let rust = splice(original, range, swap.to.symbol());
            out.push(mutation(rust, catalogue::RELATIONAL, swap.cost, types));
        }
    }
    for (range, op) in &parts.logical {
        let rust = splice(original, range, if *op == BinOp::And { "||" } else { "&&" });
        out.push(mutation(rust, catalogue::LOGICAL, 1, types));
    }
}

/// A loop's bound or start (`kind`) moved by one either way.
fn bound_shifts(original: &str, kind: SiteKind, types: &Types, out: &mut Vec<Mutation>) {
    if matches!(kind, SiteKind::Bound | SiteKind::Start) {
        for delta in [1i128, -1] {
            let rust = bound_text(original, delta);
            // The runtime adds to what the written bound computed: the same value as the
            // rewritten text, whatever the bound calls.
            let expr = types.value.as_ref().map(|ty| Expr::Binary {
                op: if delta > 0 { BinOp::Add } else { BinOp::Sub },
                left: Box::new(Expr::Original),
                right: Box::new(Expr::Lit {
                    value: Value::Int {
                        ty: ty.clone(),
                        v: 1,
                    },
                }),
            });
            out.push(Mutation {
                rust,
                template: if kind == SiteKind::Start {
                    catalogue::START_STEP
                } else {
                    catalogue::BOUND_STEP
                },
                cost: 1,
                expr,
            });
        }
    }
}

/// The arithmetic operators' swaps, negations dropped, and flags or the whole condition
/// (of a branch site, `kind`) negated.
fn arithmetic_and_negations(
    original: &str,
    parts: &Parts,
    kind: SiteKind,
    expr: &syn::Expr,
    types: &Types,
    out: &mut Vec<Mutation>,
) {
    for (range, _) in &parts.arithmetic {
        for swap in catalogue::swaps(written_op(original, range)) {
            let rust = splice(original, range, swap.to.symbol());
            out.push(mutation(rust, catalogue::ARITHMETIC, swap.cost, types));
        }
    }
    for range in &parts.negations {
        let rust = splice(original, range, "");
        out.push(mutation(rust, catalogue::NEGATION, 1, types));
    }
    for (range, parens) in &parts.flags {
        let operand = &original[range.clone()];
        let negated = if *parens {
            format!("!({operand})")
        } else {
            format!("!{operand}")
        };
        let rust = splice(original, range, &negated);
        out.push(mutation(rust, catalogue::NEGATION, 2, types));
    }
    if kind.is_branch()
        && parts.negations.is_empty()
        && !matches!(expr, syn::Expr::Binary(b) if is_comparison_op(&b.op))
    {
        // The whole condition negated (a comparison is negated by its operator swaps).
        let rust = format!("!({original})");
        out.push(mutation(rust, catalogue::NEGATION, 2, types));
    }
}

/// Clauses of `&&` and `||` dropped, booleans flipped and integers moved by one.
fn clause_and_constant_edits(
    original: &str,
    parts: &Parts,
    types: &Types,
    out: &mut Vec<Mutation>,
) {
    for (whole, left, right) in &parts.clauses {
        for keep in [left, right] {
            let rust = splice(original, whole, &original[keep.clone()]);
            out.push(mutation(rust, catalogue::DROP_CLAUSE, 2, types));
        }
    }
    for (range, value) in &parts.booleans {
        let rust = splice(original, range, if *value { "false" } else { "true" });
        out.push(mutation(rust, catalogue::CONSTANT, 1, types));
    }
    for (range, v, suffix) in &parts.integers {
        for next in [v.checked_add(1), v.checked_sub(1)].into_iter().flatten() {
            // `1 * e` and `e / 1` are written `e`: the operand dropped (`drop-operand`).
            if next == 1 && parts.factors.contains(range) {
                continue;
            }
            let literal = format!("{next}{suffix}");
            let rust = splice(original, range, &literal);
            let rust = without_identity(rust, range.start..range.start + literal.len());
            out.push(mutation(rust, catalogue::CONSTANT_STEP, 1, types));
        }
        // `0` of a signed type steps down to `-1` (a literal holds no sign of its own).
        if *v == 0 && signed(suffix, types) {
            let rust = splice(original, range, &format!("-1{suffix}"));
            out.push(mutation(rust, catalogue::CONSTANT_STEP, 1, types));
        }
        // The whole value a constant, where a variable of the value's type was meant.
        let ty = (!suffix.is_empty())
            .then_some(suffix.as_str())
            .or(types.value.as_deref());
        if *range == (0..original.len())
            && let Some(ty) = ty
        {
            for (name, _) in types.vars.iter().filter(|(_, t)| t.as_str() == ty) {
                out.push(mutation(
                    name.clone(),
                    catalogue::CONSTANT_VARIABLE,
                    2,
                    types,
                ));
            }
        }
        // The smallest constants in place of another small one (`0..n` for `2..n`): one
        // step further than ±1.
        for small in [0u128, 1, 2] {
            if *v <= 4 && small.abs_diff(*v) > 1 && !(small == 1 && parts.factors.contains(range)) {
                let literal = format!("{small}{suffix}");
                let rust = splice(original, range, &literal);
                let rust = without_identity(rust, range.start..range.start + literal.len());
                out.push(mutation(rust, catalogue::CONSTANT, 2, types));
            }
        }
    }
    for (range, value) in &parts.strings {
        string_edits(original, range, value, types, out);
    }
    // A character literal for a character of the failing calls' text of its own class
    // (a delimiter for a delimiter, a letter or digit for a letter or digit).
    for (range, written) in &parts.chars {
        let class = |c: &char| c.is_alphanumeric();
        for c in types
            .chars
            .iter()
            .filter(|c| *c != written && class(c) == class(written))
        {
            let rust = splice(original, range, &format!("{c:?}"));
            out.push(mutation(rust, catalogue::CHAR_EDIT, 2, types));
        }
    }
}

/// `code` written as a person would when the integer literal at `at` makes an operation
/// that does nothing: `e + 0`, `0 + e`, `e - 0`, `e << 0`, `e >> 0`, `e | 0`, `e ^ 0` are
/// written `e`, and a method that is the identity at that literal (`.skip(0)`,
/// `.wrapping_add(0)`, `.saturating_sub(0)`, `.rotate_left(0)`, `.pow(1)`) is taken out of
/// its chain: `v.iter().skip(0)` is `v.iter()`, the adaptor removed. A step (`step_by`) is
/// not one of them: no source changes it.
fn without_identity(code: String, at: Range<usize>) -> String {
    /// Methods that return their receiver's value when their one argument is 0 (not
    /// `overflowing_add`, whose value is a pair).
    const AT_ZERO: [&str; 9] = [
        "skip",
        "wrapping_add",
        "wrapping_sub",
        "saturating_add",
        "saturating_sub",
        "rotate_left",
        "rotate_right",
        "wrapping_shl",
        "wrapping_shr",
    ];
    struct Find {
        at: Range<usize>,
        /// The bytes to take out.
        cut: Option<Range<usize>>,
    }
    fn value(expr: &syn::Expr) -> Option<u128> {
        match autodebug_syntax::strip(expr) {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(i),
                ..
            }) => i.base10_parse().ok(),
            _ => None,
        }
    }
    impl<'ast> Visit<'ast> for Find {
        fn visit_expr_binary(&mut self, b: &'ast syn::ExprBinary) {
            use syn::BinOp::{Add, BitOr, BitXor, Shl, Shr, Sub};
            let (left, right) = (b.left.span().byte_range(), b.right.span().byte_range());
            if self.cut.is_none() && right == self.at && value(&b.right) == Some(0) {
                if matches!(
                    b.op,
                    Add(_) | Sub(_) | Shl(_) | Shr(_) | BitOr(_) | BitXor(_)
                ) {
                    self.cut = Some(left.end..right.end);
                }
            } else if self.cut.is_none()
                && left == self.at
                && value(&b.left) == Some(0)
                && matches!(b.op, Add(_) | BitOr(_) | BitXor(_))
            {
                self.cut = Some(left.start..right.start);
            }
            visit::visit_expr_binary(self, b);
        }
        fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
            if self.cut.is_none()
                && call.args.len() == 1
                && call.args[0].span().byte_range() == self.at
            {
                let name = call.method.to_string();
                let identity = match value(&call.args[0]) {
                    Some(0) => AT_ZERO.contains(&name.as_str()),
                    Some(1) => name == "pow",
                    _ => false,
                };
                if identity && call.turbofish.is_none() {
                    self.cut =
                        Some(call.receiver.span().byte_range().end..call.span().byte_range().end);
                }
            }
            visit::visit_expr_method_call(self, call);
        }
    }
    let Ok(expr) = syn::parse_str::<syn::Expr>(&code) else {
        return code;
    };
    let mut find = Find { at, cut: None };
    find.visit_expr(&expr);
    match find.cut {
        Some(cut) => format!("{}{}", code[..cut.start].trim_end(), &code[cut.end..]),
        None => code,
    }
}

/// Whether `bytes` of `code` are one expression of its syntax tree (a sum put there does not
/// regroup with its neighbours).
/// `original` with `sum` in place of the bytes `range`, parenthesized only where it would not
/// stand alone (`n * n / 2` → `n * (n + 1) / 2`, `nth(i)` → `nth(i + 1)`).
fn sum_in_place(original: &str, range: &Range<usize>, sum: &str) -> String {
    let bare = splice(original, range, sum);
    if stands_alone(&bare, range.start..range.start + sum.len()) {
        bare
    } else {
        splice(original, range, &format!("({sum})"))
    }
}

fn stands_alone(code: &str, bytes: Range<usize>) -> bool {
    struct Find {
        bytes: Range<usize>,
        found: bool,
    }
    impl<'ast> Visit<'ast> for Find {
        fn visit_expr(&mut self, e: &'ast syn::Expr) {
            if e.span().byte_range() == self.bytes {
                self.found = true;
            }
            visit::visit_expr(self, e);
        }
    }
    let Ok(expr) = syn::parse_str::<syn::Expr>(code) else {
        return false;
    };
    let mut find = Find {
        bytes,
        found: false,
    };
    find.visit_expr(&expr);
    find.found
}

/// Whether `code` has a binary `+` or `-` followed by a unary minus (`x - -1`).
fn doubled_sign(code: &str) -> bool {
    let squeezed = super::patch::squeeze(code);
    squeezed.contains("--") || squeezed.contains("+-")
}

/// Whether an integer literal with `suffix` at a site of `types` is of a signed type.
fn signed(suffix: &str, types: &Types) -> bool {
    if !suffix.is_empty() {
        return signed_integer(suffix);
    }
    [&types.value, &types.operands]
        .into_iter()
        .flatten()
        .any(|ty| signed_integer(ty))
}

/// Whether `ty` names a signed integer type (`i32`, `isize`, …).
fn signed_integer(ty: &str) -> bool {
    ty.starts_with('i') && ty[1..].chars().all(|c| c.is_ascii_alphanumeric())
}

/// A short string literal's edits: one character dropped, or the literal emptied (an
/// excess `"+"`, a `" "` where `""` was meant). Longer texts are prose, not tokens.
fn string_edits(
    original: &str,
    range: &Range<usize>,
    value: &str,
    types: &Types,
    out: &mut Vec<Mutation>,
) {
    let chars: Vec<char> = value.chars().collect();
    if chars.is_empty() || chars.len() > MAX_REORDERED_STRING {
        return;
    }
    let literal = |text: String| format!("{:?}", text);
    let mut texts = Vec::new();
    if chars.len() <= MAX_EDITED_STRING {
        texts.push(String::new());
        if chars.len() > 1 {
            for i in 0..chars.len() {
                let mut rest = chars.clone();
                rest.remove(i);
                texts.push(rest.into_iter().collect());
            }
        }
    }
    // Two neighbouring characters exchanged, and a delimiter (not a letter or digit) in the
    // form the failing calls' text has another: `", "` for `"; "` where the text has `;`.
    for i in 1..chars.len() {
        if chars[i - 1] != chars[i] {
            let mut swapped = chars.clone();
            swapped.swap(i - 1, i);
            texts.push(swapped.into_iter().collect());
        }
    }
    for (i, written) in chars.iter().enumerate() {
        let delimiter = |c: &char| !c.is_alphanumeric();
        if !delimiter(written) {
            continue;
        }
        for c in types.chars.iter().filter(|c| *c != written && delimiter(c)) {
            let mut replaced = chars.clone();
            replaced[i] = *c;
            texts.push(replaced.into_iter().collect());
        }
    }
    for text in texts {
        let rust = splice(original, range, &literal(text));
        out.push(mutation(rust, catalogue::STRING_EDIT, 2, types));
    }
}

/// The longest string literal whose characters are dropped one at a time (or that is
/// emptied).
const MAX_EDITED_STRING: usize = 6;

/// The longest string literal whose neighbouring characters are exchanged, or whose
/// delimiters are replaced.
const MAX_REORDERED_STRING: usize = 12;

/// Names replaced by variables of the same type, operands dropped or swapped.
fn variable_and_operand_edits(
    original: &str,
    parts: &Parts,
    types: &Types,
    out: &mut Vec<Mutation>,
) {
    for (range, name) in &parts.names {
        let Some(ty) = types.vars.get(name) else {
            continue;
        };
        // A signed number's absolute value in its place (the mutation operator ABS of
        // Mothra): a distance compared as written where its size was meant.
        if matches!(ty.as_str(), "f32" | "f64") || signed_integer(ty) {
            let rust = splice(original, range, &format!("{name}.abs()"));
            out.push(mutation(rust, catalogue::ABS, 3, types));
        }
        for (other, other_ty) in &types.vars {
            if other != name && other_ty == ty {
                let rust = splice(original, range, other);
                out.push(mutation(rust, catalogue::VARIABLE, 2, types));
            }
        }
        // An integer one off where it is used (`n * n / 2` for `n * (n + 1) / 2`, `nth(i)`
        // for `nth(i + 1)`): parenthesized only where the sum would not stand alone.
        if ty.starts_with('i') || ty.starts_with('u') {
            for op in ["+", "-"] {
                let rust = sum_in_place(original, range, &format!("{name} {op} 1"));
                out.push(mutation(rust, catalogue::VARIABLE_STEP, 2, types));
            }
        }
    }
    for Operation {
        whole,
        left,
        right,
        commutative,
    } in &parts.operations
    {
        let (l, r) = (&original[left.clone()], &original[right.clone()]);
        let mut edits = vec![
            (l.to_string(), catalogue::DROP_OPERAND),
            (r.to_string(), catalogue::DROP_OPERAND),
        ];
        if !commutative {
            let between = &original[left.end..right.start];
            edits.push((format!("{r}{between}{l}"), catalogue::OPERAND_SWAP));
        }
        for (with, template) in edits {
            // An operand that needs no parentheses replaces those around the operation:
            // `(w % 10) * -1` loses `% 10` as `w * -1`, not `(w) * -1`.
            let atomic =
                syn::parse_str::<syn::Expr>(&with).is_ok_and(|e| autodebug_syntax::is_atomic(&e));
            let place = parts
                .parens
                .iter()
                .find(|(_, inner)| inner == whole)
                .filter(|_| atomic && template == catalogue::DROP_OPERAND)
                .map_or(whole, |(outer, _)| outer);
            let rust = splice(original, place, &with);
            out.push(mutation(rust, template, 2, types));
        }
    }
    regroupings(original, parts, types, out);
}

/// Two arithmetic operations, one the unparenthesized operand of the other, grouped the
/// other way: `n - 1 / 2` (read `n - (1 / 2)`) as `(n - 1) / 2`, `a * b + c` as
/// `a * (b + c)`. Precedence is a mistake people make.
fn regroupings(original: &str, parts: &Parts, types: &Types, out: &mut Vec<Mutation>) {
    let inner = |range: &Range<usize>| parts.operations.iter().find(|o| o.whole == *range);
    for outer in &parts.operations {
        // `(` and `)` inserted at these bytes.
        let mut places = Vec::new();
        if let Some(right) = inner(&outer.right) {
            places.push((outer.left.start, right.left.end));
        }
        if let Some(left) = inner(&outer.left) {
            places.push((left.right.start, outer.right.end));
        }
        for (open, close) in places {
            let rust = format!(
                "{}({}){}",
                &original[..open],
                &original[open..close],
                &original[close..]
            );
            out.push(mutation(rust, catalogue::REGROUP, 3, types));
        }
    }
}

/// Neighbouring elements of a list swapped, methods replaced by their counterparts.
fn element_and_method_edits(original: &str, parts: &Parts, types: &Types, out: &mut Vec<Mutation>) {
    for list in &parts.lists {
        for pair in list.windows(2) {
            let (a, b) = (&original[pair[0].clone()], &original[pair[1].clone()]);
            if a == b {
                continue;
            }
            let rust = format!(
                "{}{b}{}{a}{}",
                &original[..pair[0].start],
                &original[pair[0].end..pair[1].start],
                &original[pair[1].end..]
            );
            out.push(mutation(rust, catalogue::ELEMENT_SWAP, 2, types));
        }
    }
    for (range, name) in &parts.methods {
        for other in catalogue::counterparts(name) {
            let rust = splice(original, range, other);
            out.push(mutation(rust, catalogue::COUNTERPART, 2, types));
        }
    }
}

/// An edit whose new code is `rust`, evaluated by the runtime when it can be.
fn mutation(rust: String, template: &'static str, cost: u32, types: &Types) -> Mutation {
    Mutation {
        expr: expression::lower(&rust, types),
        rust,
        template,
        cost,
    }
}

/// Whether `op` compares (`<`, `<=`, `>`, `>=`, `==`, `!=`).
pub(super) fn is_comparison_op(op: &syn::BinOp) -> bool {
    matches!(
        op,
        syn::BinOp::Lt(_)
            | syn::BinOp::Le(_)
            | syn::BinOp::Gt(_)
            | syn::BinOp::Ge(_)
            | syn::BinOp::Eq(_)
            | syn::BinOp::Ne(_)
    )
}

/// The source: each target's mutations, handed out in order.
#[derive(Default)]
pub struct Syntactic {
    queues: BTreeMap<SiteKey, VecDeque<Candidate>>,
}

/// The name of this source in the report.
pub const NAME: &str = "syntactic";

impl CandidateSource for Syntactic {
    fn name(&self) -> &'static str {
        NAME
    }

    fn next(&mut self, target: &Target, max: usize) -> Vec<Candidate> {
        let queue = self.queues.entry(target.site.key()).or_insert_with(|| {
            mutations(&target.located.original, target.site.kind, &target.types)
                .into_iter()
                .map(|m| {
                    let edit = CandidateEdit {
                        expr: m.expr,
                        ..CandidateEdit::at(target.site.key(), m.rust)
                    };
                    Candidate::one(edit, m.template, m.cost, NAME)
                })
                .collect()
        });
        let n = max.min(queue.len());
        queue.drain(..n).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(original: &str, kind: SiteKind, types: &Types) -> Vec<(String, &'static str)> {
        mutations(original, kind, types)
            .into_iter()
            .map(|m| (m.rust, m.template))
            .collect()
    }

    #[test]
    fn relational_swaps_nearest_first_keeping_the_text_around() {
        let all = texts("lo  <  hi /* c */", SiteKind::While, &Types::default());
        let ops: Vec<&str> = all.iter().map(|(t, _)| t.as_str()).collect();
        assert_eq!(
            ops,
            [
                "lo  <=  hi /* c */",
                "lo  >  hi /* c */",
                "lo  >=  hi /* c */",
                "lo  !=  hi /* c */",
                "lo  ==  hi /* c */"
            ]
        );
    }

    #[test]
    fn logical_operators_swap() {
        let types = Types {
            vars: [("in3", "bool"), ("v", "bool")]
                .map(|(n, t)| (n.to_string(), t.to_string()))
                .into(),
            value: Some("bool".into()),
            operands: None,
            operand_texts: None,
            chars: Vec::new(),
        };
        let all = mutations("in3 || v", SiteKind::Assign, &types);
        assert_eq!(all[0].rust, "in3 && v");
        assert_eq!(all[0].template, "logical-operator");
        assert!(all[0].expr.is_some());
    }

    #[test]
    fn loop_bounds_and_constants_move_by_one() {
        let types = Types {
            value: Some("usize".into()),
            ..Types::default()
        };
        let all = mutations("src.len() - 1", SiteKind::Bound, &types);
        let rust: Vec<&str> = all.iter().map(|m| m.rust.as_str()).collect();
        assert_eq!(rust[..2], ["src.len()", "src.len() - 2"]);
        // `src.len()` is a call: only `Original + 1` says it to the runtime.
        assert_eq!(
            all[0].expr,
            Some(Expr::Binary {
                op: BinOp::Add,
                left: Box::new(Expr::Original),
                right: Box::new(Expr::Lit {
                    value: Value::Int {
                        ty: "usize".into(),
                        v: 1
                    }
                }),
            })
        );
        // Where the bound's own `- 1` absorbs the change, the runtime's form is still the
        // sum with the written value.
        assert!(all[1].expr.is_some());
        let of_template = |text: &str, kind: SiteKind, template: &str| -> Vec<String> {
            mutations(text, kind, &types)
                .into_iter()
                .filter(|m| m.template == template)
                .map(|m| m.rust)
                .collect()
        };
        let bound = |text: &str| of_template(text, SiteKind::Bound, "loop-bound±1");
        assert_eq!(bound("n"), ["n + 1", "n - 1"]);
        assert_eq!(bound("n + 1"), ["n + 2", "n"]);
        assert_eq!(bound("n  -  2u32"), ["n  -  1u32", "n  -  3u32"]);
        assert_eq!(bound("a & b"), ["(a & b) + 1", "(a & b) - 1"]);
        let rust = of_template("celsius * 5 / 8u8", SiteKind::Assign, "constant±1");
        assert_eq!(
            rust,
            [
                "celsius * 6 / 8u8",
                "celsius * 4 / 8u8",
                "celsius * 5 / 9u8",
                "celsius * 5 / 7u8"
            ]
        );
    }

    #[test]
    fn a_constant_made_an_identity_is_written_without_the_operation() {
        let types = Types {
            value: Some("usize".into()),
            ..Types::default()
        };
        let rust = |text: &str| -> Vec<String> {
            mutations(text, SiteKind::Arg, &types)
                .into_iter()
                .filter(|m| m.template == "constant±1" || m.template == "constant")
                .map(|m| m.rust)
                .collect()
        };
        // The adaptor taken out, as a person would write it, not `.skip(0)`.
        assert_eq!(
            rust("v.iter().skip(1).count()"),
            ["v.iter().skip(2).count()", "v.iter().count()"]
        );
        assert!(rust("a.wrapping_sub(2)").contains(&"a".to_string()));
        assert!(!rust("a.overflowing_sub(1)").contains(&"a".to_string()));
        assert_eq!(rust("x.pow(2)")[..2], ["x.pow(3)", "x"]);
        assert_eq!(rust("f(n << 1)"), ["f(n << 2)", "f(n)"]);
        assert_eq!(rust("1 + n"), ["2 + n", "n"]);
        // Not a step, nor an operation that still does something at 0.
        assert!(
            rust("v.iter().step_by(1)")
                .iter()
                .all(|r| r.contains("step_by"))
        );
        assert_eq!(
            rust("v.iter().take(1)"),
            ["v.iter().take(2)", "v.iter().take(0)"]
        );
    }

    #[test]
    fn string_literals_lose_a_character_and_small_constants_are_tried() {
        let of = |code: &str, template: &str, types: &Types| -> Vec<String> {
            mutations(code, SiteKind::Let, types)
                .into_iter()
                .filter(|m| m.template == template)
                .map(|m| m.rust)
                .collect()
        };
        let none = Types::default();
        assert_eq!(
            of("\"E+\".to_string()", "string-literal", &none),
            [
                "\"\".to_string()",
                "\"+\".to_string()",
                "\"E\".to_string()",
                "\"+E\".to_string()"
            ]
        );
        // A lone space is a text of its own: emptied, not taken for whitespace.
        assert_eq!(
            of("\" \".to_string()", "string-literal", &none),
            ["\"\".to_string()"]
        );
        // Prose is not edited a character at a time.
        assert!(of("\"the number of odd elements\"", "string-literal", &none).is_empty());
        // Neighbours exchanged; a delimiter in the form the calls' text has another.
        let text = Types {
            chars: "a;b c".chars().collect(),
            ..Types::default()
        };
        let edits = of("s.split(\", \")", "string-literal", &text);
        assert_eq!(
            edits[3..],
            [
                "s.split(\" ,\")",
                "s.split(\"; \")",
                "s.split(\"  \")",
                "s.split(\",;\")"
            ],
            "{edits:?}"
        );
        assert_eq!(
            of("\"abcdefghij\"", "string-literal", &none),
            [
                "\"bacdefghij\"",
                "\"acbdefghij\"",
                "\"abdcefghij\"",
                "\"abcedfghij\"",
                "\"abcdfeghij\"",
                "\"abcdegfhij\"",
                "\"abcdefhgij\"",
                "\"abcdefgihj\"",
                "\"abcdefghji\""
            ]
        );
        // `0` of a signed type steps to `-1`; of an unsigned or unknown one it does not.
        let signed = Types {
            value: Some("i32".into()),
            ..Types::default()
        };
        assert_eq!(of("0", "constant±1", &signed), ["1", "-1"]);
        assert_eq!(of("0", "constant±1", &none), ["1"]);
        assert_eq!(of("0u8", "constant±1", &signed), ["1u8"]);
        // A small constant may be another small one, one step further than ±1.
        assert_eq!(of("0", "constant", &none), ["2"]);
        assert_eq!(of("4", "constant", &none), ["0", "1", "2"]);
        assert!(of("24", "constant", &none).is_empty());
        // A constant that is the whole value may be a variable of its type in scope.
        let scope = Types {
            value: Some("usize".into()),
            vars: [("start", "usize"), ("len", "usize"), ("sign", "i32")]
                .map(|(n, t)| (n.to_string(), t.to_string()))
                .into(),
            ..Types::default()
        };
        assert_eq!(of("0", "constant→variable", &scope), ["len", "start"]);
        assert_eq!(of("0i32", "constant→variable", &scope), ["sign"]);
        assert!(of("n + 0", "constant→variable", &scope).is_empty());
        assert!(of("0", "constant→variable", &none).is_empty());
        // A character literal may be a character of the calls' text of its class.
        let text = Types {
            chars: "Hi, [a]".chars().collect(),
            ..Types::default()
        };
        assert_eq!(
            of("c == '(' || c == 'x'", "char-literal", &text),
            [
                "c == ',' || c == 'x'",
                "c == ' ' || c == 'x'",
                "c == '[' || c == 'x'",
                "c == ']' || c == 'x'",
                "c == '(' || c == 'H'",
                "c == '(' || c == 'i'",
                "c == '(' || c == 'a'"
            ]
        );
    }

    #[test]
    fn a_step_of_one_keeps_its_stride() {
        let all = texts("1", SiteKind::Compound, &Types::default());
        assert!(all.is_empty(), "{all:?}");
        // Another step may still become one.
        let all = texts("2", SiteKind::Compound, &Types::default());
        assert!(all.iter().any(|(rust, _)| rust == "1"), "{all:?}");
    }

    #[test]
    fn variables_swap_for_others_of_their_type() {
        let types = Types {
            vars: [("x", "i32"), ("y", "i32"), ("r", "i32"), ("n", "usize")]
                .map(|(n, t)| (n.to_string(), t.to_string()))
                .into(),
            value: Some("i32".into()),
            operands: None,
            operand_texts: None,
            chars: Vec::new(),
        };
        let all = mutations("x", SiteKind::Assign, &types);
        let rust: Vec<&str> = all.iter().map(|m| m.rust.as_str()).collect();
        assert_eq!(rust, ["r", "y", "x + 1", "x - 1", "x.abs()"]);
        assert_eq!(
            all[1].expr,
            Some(Expr::Var {
                name: "y".to_string()
            })
        );
        // An integer name one off, in parentheses only where the sum needs them.
        let of = |code: &str| -> Vec<String> {
            mutations(code, SiteKind::Return, &types)
                .into_iter()
                .filter(|m| m.template == "variable±1")
                .map(|m| m.rust)
                .collect()
        };
        assert_eq!(
            of("n*x/2"),
            ["(n + 1)*x/2", "(n - 1)*x/2", "n*(x + 1)/2", "n*(x - 1)/2"]
        );
        assert_eq!(of("v.nth(n)"), ["v.nth(n + 1)", "v.nth(n - 1)"]);
        // Unsigned names have no absolute value to take.
        let n = mutations("n", SiteKind::Assign, &types);
        assert!(n.iter().all(|m| m.template != "absolute-value"));
        assert!(mutations("not rust (", SiteKind::Let, &types).is_empty());
    }

    #[test]
    fn arithmetic_swaps_negations_and_clauses() {
        let types = Types {
            vars: [("i", "usize"), ("done", "bool")]
                .map(|(n, t)| (n.to_string(), t.to_string()))
                .into(),
            value: Some("bool".into()),
            operands: Some("usize".into()),
            operand_texts: super::super::expression::operand_texts("i - 1 == p.len()"),
            chars: Vec::new(),
        };
        let all = mutations("i - 1 == p.len()", SiteKind::Operand, &types);
        let plus = all.iter().find(|m| m.rust == "i + 1 == p.len()").unwrap();
        assert_eq!(plus.template, "arithmetic-operator");
        assert_eq!(plus.cost, 1);
        // `p.len()` is the operand the hook reports: the runtime evaluates the candidate.
        assert_eq!(
            plus.expr,
            Some(Expr::Binary {
                op: BinOp::Eq,
                left: Box::new(Expr::Binary {
                    op: BinOp::Add,
                    left: Box::new(Expr::Var { name: "i".into() }),
                    right: Box::new(Expr::Lit {
                        value: Value::Int {
                            ty: "usize".into(),
                            v: 1
                        }
                    }),
                }),
                right: Box::new(Expr::Operand { index: 1 }),
            })
        );
        let texts = |code: &str, kind: SiteKind| -> Vec<(String, &'static str)> {
            mutations(code, kind, &Types::default())
                .into_iter()
                .map(|m| (m.rust, m.template))
                .filter(|(_, t)| matches!(*t, "negation" | "drop-clause"))
                .collect()
        };
        assert_eq!(
            texts("!done && v.is_empty()", SiteKind::If),
            [
                ("done && v.is_empty()".to_string(), "negation"),
                ("!done && !v.is_empty()".to_string(), "negation"),
                ("!done".to_string(), "drop-clause"),
                ("v.is_empty()".to_string(), "drop-clause"),
            ]
        );
        assert_eq!(
            texts("a || b", SiteKind::While)
                .into_iter()
                .map(|(t, _)| t)
                .collect::<Vec<_>>(),
            ["!a || b", "a || !b", "!(a || b)", "a", "b"]
        );
    }

    #[test]
    fn operands_elements_and_counterpart_methods() {
        let of = |code: &str, template: &str| -> Vec<String> {
            texts(code, SiteKind::Let, &Types::default())
                .into_iter()
                .filter(|(_, t)| *t == template)
                .map(|(rust, _)| rust)
                .collect()
        };
        // Non-commutative operands exchange; every operation may lose an operand.
        assert_eq!(of("j % i == 0", "operand-swap"), ["i % j == 0"]);
        assert!(of("a + b", "operand-swap").is_empty());
        assert_eq!(
            of("(w % 10) * -1", "drop-operand"),
            ["(w % 10)", "-1", "w * -1", "10 * -1"]
        );
        // `- -1` is further than dropping the term.
        let all = mutations("(w % 10) * -1", SiteKind::Let, &Types::default());
        let cost = |text: &str| all.iter().find(|m| m.rust == text).unwrap().cost;
        assert!(cost("(w % 10) - -1") > cost("(w % 10)"));
        // Two operations grouped the other way, either way.
        assert_eq!(
            of("v.get(v.len() - 1 / 2)", "regroup"),
            ["v.get((v.len() - 1) / 2)"]
        );
        assert_eq!(of("a * b + c", "regroup"), ["a * (b + c)"]);
        assert!(of("(a - 1) / 2", "regroup").is_empty());
        // Neighbouring elements of calls, tuples, arrays and `vec!` exchange.
        assert_eq!(
            of("vec![j as i32, i as i32]", "element-swap"),
            ["vec![i as i32, j as i32]"]
        );
        assert_eq!(
            of("f(a, b, c)", "element-swap"),
            ["f(b, a, c)", "f(a, c, b)"]
        );
        assert_eq!(of("(x, y)", "element-swap"), ["(y, x)"]);
        assert!(of("g(a, a)", "element-swap").is_empty());
        // A method or a function for its counterpart.
        assert_eq!(
            of("v.iter().max().unwrap()", "counterpart-method"),
            ["v.iter().min().unwrap()"]
        );
        assert_eq!(
            of("x.ceil() as i32", "counterpart-method"),
            ["x.floor() as i32", "x.round() as i32", "x.trunc() as i32"]
        );
        assert_eq!(
            of("cmp::max(a, b)", "counterpart-method"),
            ["cmp::min(a, b)"]
        );
        // A loop's start moves by one, a literal one written anew.
        let start = |code: &str| -> Vec<String> {
            texts(code, SiteKind::Start, &Types::default())
                .into_iter()
                .filter(|(_, t)| *t == "loop-start±1")
                .map(|(rust, _)| rust)
                .collect()
        };
        assert_eq!(start("i"), ["i + 1", "i - 1"]);
        assert_eq!(start("1"), ["2", "0"]);
        assert_eq!(start("0"), ["1", "-1"]);
        // `2 * s` becomes `s` by dropping the factor, not `1 * s`; a boolean its opposite.
        assert!(!of("2 * s * p", "constant±1").contains(&"1 * s * p".to_string()));
        assert!(of("2 * s * p", "drop-operand").contains(&"s * p".to_string()));
        assert_eq!(of("true", "constant"), ["false"]);
        // Inside a closure operators are edited, its names are not swapped.
        let types = Types {
            vars: [("m", "i32"), ("k", "i32")]
                .map(|(n, t)| (n.to_string(), t.to_string()))
                .into(),
            ..Types::default()
        };
        let closure = texts("v.iter().map(|x| x + m).sum()", SiteKind::Let, &types);
        assert!(
            closure
                .iter()
                .any(|(rust, _)| rust == "v.iter().map(|x| x - m).sum()")
        );
        assert!(!closure.iter().any(|(rust, _)| rust.contains("+ k")));
        // Inside `vec!` the elements are edited like any expression.
        assert!(
            texts("vec![n - 1]", SiteKind::Let, &Types::default())
                .iter()
                .any(|(rust, t)| rust == "vec![n + 1]" && *t == "arithmetic-operator")
        );
    }
}
