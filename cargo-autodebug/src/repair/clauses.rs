//! The borrowed-clause source: a condition missing a clause (`special(c).is_some() || …`
//! where `c.is_whitespace() || special(c).is_some() || …` was meant) gets one the program
//! already tests in a condition elsewhere — in the site's own function first, then anywhere
//! in its file — over variables in scope at the site. The ingredients of a missing clause are
//! usually in the program already (the "plastic surgery" observation of mutation-based
//! repair), and taking them from there keeps the search small: no new names, no new
//! constants. A clause the runtime can evaluate (a comparison, a method of a primitive value,
//! over the variables the site reports) is checked by a rerun as `original || clause`; any
//! other by a rebuild.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::ops::Range;

use autodebug_runtime::protocol::{BinOp, Expr, SiteKind, UnOp};
use syn::spanned::Spanned;
use syn::visit::{self, Visit};

use super::{Candidate, CandidateEdit, Files, Target, expression, patch};
use crate::localize::source::uses_of;

/// The source's name in the report.
pub const NAME: &str = "borrowed-clause";
/// A clause added to a condition.
pub const ADD_CLAUSE: &str = "add-clause";

/// A clause of the site's own function, added with the chain's operator; one from elsewhere
/// in the file costs one more, as do a negated clause and a new operator that needs
/// parentheses around the written condition. Past every one-token edit of the site.
const COST: u32 = 3;

/// Clauses tried per site at most, cheapest first.
const PER_SITE: usize = 24;

/// A clause a condition of the file tests: its text, its bytes, the bytes of the function
/// that holds it, and whether a negation fits it (a call or a flag).
struct Clause {
    text: String,
    bytes: Range<usize>,
    function: Range<usize>,
    negatable: bool,
}

/// A function of the file: its bytes, the names it binds (parameters, `let`, `for` and
/// closure patterns) with the byte where each is bound, and the `impl` block of a method
/// (with `self`).
struct Function {
    bytes: Range<usize>,
    bound: Vec<(String, usize)>,
    method_of: Option<Range<usize>>,
}

/// Walks a file for the clauses of its conditions and its functions.
#[derive(Default)]
struct Walk {
    clauses: Vec<Clause>,
    functions: Vec<Function>,
    function: Option<Range<usize>>,
    item_impl: Option<Range<usize>>,
    text: String,
}

/// What a file offers: its clauses and its functions.
struct Parsed {
    clauses: Vec<Clause>,
    functions: Vec<Function>,
}

impl Walk {
    /// The leaves of `cond`'s `&&`/`||` chain (or `cond` itself), as clauses.
    fn condition(&mut self, cond: &syn::Expr) {
        let Some(function) = self.function.clone() else {
            return;
        };
        let mut leaves = Vec::new();
        chain_leaves(cond, &mut leaves);
        for leaf in leaves {
            let bytes = leaf.span().byte_range();
            let Some(text) = self.text.get(bytes.clone()) else {
                continue;
            };
            if usable(leaf) {
                self.clauses.push(Clause {
                    text: text.to_string(),
                    bytes,
                    function: function.clone(),
                    // A comparison is negated by its operator, `!x` by dropping the `!`;
                    // only what `!` binds to whole is negated (a call, a flag).
                    negatable: matches!(
                        leaf,
                        syn::Expr::MethodCall(_)
                            | syn::Expr::Call(_)
                            | syn::Expr::Path(_)
                            | syn::Expr::Field(_)
                            | syn::Expr::Index(_)
                    ),
                });
            }
        }
    }

    fn in_function(&mut self, bytes: Range<usize>, sig: &syn::Signature, block: &syn::Block) {
        let mut bound = Bound(Vec::new());
        bound.visit_signature(sig);
        bound.visit_block(block);
        self.functions.push(Function {
            bytes: bytes.clone(),
            bound: bound.0,
            method_of: sig.receiver().and(self.item_impl.clone()),
        });
        let outer = self.function.replace(bytes);
        self.visit_block(block);
        self.function = outer;
    }
}

/// The names a function binds, with the byte where each is bound.
struct Bound(Vec<(String, usize)>);

impl<'ast> Visit<'ast> for Bound {
    fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
        self.0
            .push((p.ident.to_string(), p.span().byte_range().start));
        visit::visit_pat_ident(self, p);
    }
}

impl<'ast> Visit<'ast> for Walk {
    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        self.in_function(f.span().byte_range(), &f.sig, &f.block);
    }

    fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
        let outer = self.item_impl.replace(i.span().byte_range());
        visit::visit_item_impl(self, i);
        self.item_impl = outer;
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        self.in_function(f.span().byte_range(), &f.sig, &f.block);
    }

    fn visit_expr_if(&mut self, e: &'ast syn::ExprIf) {
        self.condition(&e.cond);
        visit::visit_expr_if(self, e);
    }

    fn visit_expr_while(&mut self, e: &'ast syn::ExprWhile) {
        self.condition(&e.cond);
        visit::visit_expr_while(self, e);
    }

    fn visit_expr_binary(&mut self, e: &'ast syn::ExprBinary) {
        // A chain outside a condition (`let ok = a && b`, a returned `a || b`).
        if matches!(e.op, syn::BinOp::And(_) | syn::BinOp::Or(_)) {
            self.condition(&syn::Expr::Binary(e.clone()));
        }
        visit::visit_expr_binary(self, e);
    }
}

/// The operands of `e`'s top-level `&&`/`||` chain, parentheses kept (`(a || b)` in
/// `(a || b) && c` is one), or `e` itself.
fn chain_leaves<'e>(e: &'e syn::Expr, out: &mut Vec<&'e syn::Expr>) {
    match e {
        syn::Expr::Binary(b) if matches!(b.op, syn::BinOp::And(_) | syn::BinOp::Or(_)) => {
            chain_leaves(&b.left, out);
            chain_leaves(&b.right, out);
        }
        other => out.push(other),
    }
}

/// Whether `e` may be copied into another condition: no `let`, closure, block, macro,
/// assignment, `?` or literal-only test; nothing but paths, literals, fields, indexing,
/// calls, method calls, casts and operators.
fn usable(e: &syn::Expr) -> bool {
    struct Check {
        ok: bool,
        names: usize,
    }
    impl<'ast> Visit<'ast> for Check {
        fn visit_expr(&mut self, e: &'ast syn::Expr) {
            match e {
                syn::Expr::Path(_) => self.names += 1,
                syn::Expr::Lit(_)
                | syn::Expr::Field(_)
                | syn::Expr::Index(_)
                | syn::Expr::Call(_)
                | syn::Expr::MethodCall(_)
                | syn::Expr::Cast(_)
                | syn::Expr::Binary(_)
                | syn::Expr::Unary(_)
                | syn::Expr::Paren(_)
                | syn::Expr::Reference(_) => {}
                _ => self.ok = false,
            }
            visit::visit_expr(self, e);
        }
    }
    let mut check = Check { ok: true, names: 0 };
    check.visit_expr(e);
    check.ok && check.names > 0 && !matches!(e, syn::Expr::Paren(_))
}

/// The variables `e` reads ([`uses_of`]), but for constants (`UPPER_CASE`) and unit
/// structs or variants.
fn variables(e: &syn::Expr) -> BTreeSet<String> {
    let mut names = uses_of(e);
    names.retain(|name| name.starts_with(|c: char| c.is_lowercase() || c == '_'));
    names
}

/// The source: per file its clauses, per target its candidates in order.
pub struct Clauses<'a> {
    files: &'a Files,
    parsed: BTreeMap<String, Parsed>,
    queues: super::Queues,
}

impl<'a> Clauses<'a> {
    /// A source over the targets' `files` as read.
    pub fn new(files: &'a Files) -> Clauses<'a> {
        Clauses {
            files,
            parsed: BTreeMap::new(),
            queues: BTreeMap::new(),
        }
    }

    fn candidates(&mut self, target: &Target) -> VecDeque<Candidate> {
        let boolean = target.site.kind.is_branch() || target.types.value.as_deref() == Some("bool");
        let Some(text) = self.files.get(&target.path).filter(|_| boolean) else {
            return VecDeque::new();
        };
        let parsed = self.parsed.entry(target.path.clone()).or_insert_with(|| {
            let mut walk = Walk {
                text: text.to_string(),
                ..Walk::default()
            };
            if let Ok(file) = autodebug_syntax::parse_file_with_macro_items(text) {
                walk.visit_file(&file);
            }
            Parsed {
                clauses: walk.clauses,
                functions: walk.functions,
            }
        });
        let site = &target.located.bytes;
        let holds = |bytes: &Range<usize>| bytes.start <= site.start && site.end <= bytes.end;
        let function = (parsed.functions.iter())
            .filter(|f| holds(&f.bytes))
            .min_by_key(|f| f.bytes.len());
        // In scope at the site: what the site reports, what its function bound before it,
        // and `self` in a method, for a clause of a method of the same `impl`.
        let in_scope = |name: &str, clause: &Clause| {
            target.types.vars.contains_key(name)
                || function.is_some_and(|f| {
                    (f.bound.iter()).any(|(n, at)| n == name && *at < site.start)
                        || (name == "self"
                            && f.method_of.as_ref().is_some_and(|i| {
                                i.start <= clause.function.start && clause.function.end <= i.end
                            }))
                })
        };
        let original = &target.located.original;
        let Ok(written) = syn::parse_str::<syn::Expr>(original) else {
            return VecDeque::new();
        };
        let mut leaves = Vec::new();
        chain_leaves(&written, &mut leaves);
        // The clauses the condition has already, and `||` or `&&` as its chain joins them.
        let mut seen: BTreeSet<String> = leaves
            .iter()
            .map(|l| patch::squeeze(&quote::ToTokens::to_token_stream(l).to_string()))
            .collect();
        let chain = match &written {
            syn::Expr::Binary(b) if matches!(b.op, syn::BinOp::Or(_)) => Some(BinOp::Or),
            syn::Expr::Binary(b) if matches!(b.op, syn::BinOp::And(_)) => Some(BinOp::And),
            _ => None,
        };
        let own = |c: &Clause| holds(&c.function);
        let mut out: Vec<(String, Option<Expr>, u32)> = Vec::new();
        for clause in &parsed.clauses {
            let overlaps = clause.bytes.start < site.end && site.start < clause.bytes.end;
            let Ok(expr) = syn::parse_str::<syn::Expr>(&clause.text) else {
                continue;
            };
            let squeezed = patch::squeeze(&quote::ToTokens::to_token_stream(&expr).to_string());
            if overlaps
                || !variables(&expr).iter().all(|v| in_scope(v, clause))
                || !seen.insert(squeezed)
            {
                continue;
            }
            let from = COST + u32::from(!own(clause));
            let lowered = expression::lower(&clause.text, &target.types);
            let mut forms = vec![(clause.text.clone(), lowered.clone(), 0)];
            if clause.negatable {
                let negated = lowered.clone().map(|arg| Expr::Unary {
                    op: UnOp::Not,
                    arg: Box::new(arg),
                });
                forms.push((format!("!{}", clause.text), negated, 1));
            }
            for (added, expr, extra) in forms {
                for op in [BinOp::Or, BinOp::And] {
                    // A chain's own operator appends; the other one wants parentheses
                    // around the written condition.
                    let (mut rust, parens) = match chain {
                        Some(c) if c != op => (format!("({original}) {} {added}", symbol(op)), 1),
                        _ => (format!("{original} {} {added}", symbol(op)), 0),
                    };
                    if target.site.kind == SiteKind::Operand {
                        // The site is itself a clause of a chain, which must not take in
                        // the new operator's neighbours (`a && b || x`).
                        rust = format!("({rust})");
                    }
                    let expr = expr.clone().map(|right| Expr::Binary {
                        op,
                        left: Box::new(Expr::Original),
                        right: Box::new(right),
                    });
                    out.push((rust, expr, from + extra + parens));
                }
            }
        }
        out.sort_by_key(|(_, _, cost)| *cost);
        out.into_iter()
            .take(PER_SITE)
            .map(|(rust, expr, cost)| {
                let edit = CandidateEdit {
                    expr,
                    ..CandidateEdit::at(target.site.key(), rust)
                };
                Candidate::one(edit, ADD_CLAUSE, cost, NAME)
            })
            .collect()
    }
}

fn symbol(op: BinOp) -> &'static str {
    if op == BinOp::Or { "||" } else { "&&" }
}

super::listed!(Clauses<'_>);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repair::CandidateSource;
    use crate::repair::expression::Types;
    use crate::repair::scratch_target;

    const TEXT: &str = "\
pub fn is_delimiter(c: char) -> bool {
    special(c) || c == ';'
}

fn special(c: char) -> bool {
    c == '(' || c == ')'
}

pub fn count(text: &str, limit: usize) -> usize {
    let mut n = 0;
    for c in text.chars() {
        if c.is_whitespace() && n < limit {
            n += 1;
        }
        if !c.is_ascii() {
            break;
        }
    }
    n
}
";

    /// The candidates for the site `code` (the last one in the text) of `kind`, with the
    /// variables `vars` in scope.
    fn candidates(code: &str, kind: SiteKind, vars: &[(&str, &str)]) -> Vec<Candidate> {
        let types = Types {
            vars: (vars.iter())
                .map(|(n, t)| (n.to_string(), t.to_string()))
                .collect(),
            value: Some("bool".into()),
            ..Types::default()
        };
        let (files, target) = scratch_target(TEXT, TEXT.find(code).unwrap(), code, kind, types);
        Clauses::new(&files).next(&target, 100)
    }

    #[test]
    fn a_condition_borrows_the_clauses_of_the_file_over_its_variables() {
        let all = candidates("special(c) || c == ';'", SiteKind::Return, &[("c", "char")]);
        let texts: Vec<&str> = all.iter().map(|c| c.edits[0].rust.as_str()).collect();
        // Clauses over `c` from elsewhere in the file, with the chain's operator first; none
        // the condition has, none over a variable it lacks (`n < limit`).
        assert_eq!(texts[0], "special(c) || c == ';' || c == '('");
        assert!(texts.contains(&"special(c) || c == ';' || c.is_whitespace()"));
        assert!(texts.contains(&"(special(c) || c == ';') && !c.is_whitespace()"));
        assert!(
            !texts
                .iter()
                .any(|t| t.contains("limit") || t.contains("|| c == ';' || c == ';'"))
        );
        // `!c.is_ascii()` is borrowed as written, never as `!!c.is_ascii()`.
        assert!(texts.contains(&"special(c) || c == ';' || !c.is_ascii()"));
        assert!(!texts.iter().any(|t| t.contains("!!")));
        // The runtime evaluates them: the written condition, or the clause.
        let whitespace = all
            .iter()
            .find(|c| c.edits[0].rust == "special(c) || c == ';' || c.is_whitespace()")
            .unwrap();
        assert_eq!(
            whitespace.edits[0].expr,
            Some(Expr::Binary {
                op: BinOp::Or,
                left: Box::new(Expr::Original),
                right: Box::new(Expr::Method {
                    name: "is_whitespace".into(),
                    arg: Box::new(Expr::Var { name: "c".into() }),
                }),
            })
        );
        assert!(
            all.iter()
                .all(|c| c.template == ADD_CLAUSE && c.cost >= COST)
        );
    }

    #[test]
    fn a_clause_of_a_chain_is_parenthesized_and_the_own_function_comes_first() {
        let all = candidates(
            "n < limit",
            SiteKind::Operand,
            &[("c", "char"), ("n", "usize"), ("limit", "usize")],
        );
        let texts: Vec<&str> = all.iter().map(|c| c.edits[0].rust.as_str()).collect();
        // The site is `n < limit` of `c.is_whitespace() && n < limit`: what it gets must not
        // regroup the chain.
        assert!(
            texts.iter().all(|t| t.starts_with("(n < limit ")),
            "{texts:?}"
        );
        // `!c.is_ascii()` is of this function, `c == '('` of another.
        let at = |t: &str| texts.iter().position(|x| *x == t).unwrap();
        assert!(at("(n < limit || !c.is_ascii())") < at("(n < limit || c == '(')"));
    }

    #[test]
    fn names_the_function_bound_before_the_site_are_in_scope() {
        // The site reports no variable: `n`, `limit` and `c` are bound before it all the same
        // (a `let`, a parameter, a `for` pattern); a clause over `text` is too.
        let all = candidates("!c.is_ascii()", SiteKind::If, &[]);
        let texts: Vec<&str> = all.iter().map(|c| c.edits[0].rust.as_str()).collect();
        assert!(texts.contains(&"!c.is_ascii() || n < limit"), "{texts:?}");
        assert!(texts.contains(&"!c.is_ascii() || c == ';'"), "{texts:?}");
        // Such a clause has no runtime form: a rebuild judges it.
        assert!(all.iter().all(|c| c.edits[0].expr.is_none()));
        // In `is_delimiter`, nothing binds `n`.
        let all = candidates("special(c) || c == ';'", SiteKind::Return, &[]);
        assert!(all.iter().all(|c| !c.edits[0].rust.contains("limit")));
    }
}
