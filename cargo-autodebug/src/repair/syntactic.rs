//! The syntactic candidate source: small edits of a site's own code, simplest first —
//! relational operator swaps (`<` ↔ `<=` first), `&&` ↔ `||`, integer literals ±1, a loop
//! bound ±1, and a variable swapped for another of the same type in scope. Each edit changes a few bytes
//! inside the site's text and keeps the rest as written. Template synthesis with a solver
//! supersedes it; it stays as the source that needs nothing but the code.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::ops::Range;

use autodebug_runtime::protocol::{BinOp, Expr, SiteKey, SiteKind, Value};
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
    /// Integer literals: byte range, value, suffix.
    integers: Vec<(Range<usize>, u128, String)>,
    /// Single-name paths: byte range and name.
    names: Vec<(Range<usize>, String)>,
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
        match e.op {
            syn::BinOp::And(_) => self.logical.push((e.op.span().byte_range(), BinOp::And)),
            syn::BinOp::Or(_) => self.logical.push((e.op.span().byte_range(), BinOp::Or)),
            _ => {}
        }
        visit::visit_expr_binary(self, e);
    }

    fn visit_lit_int(&mut self, lit: &'ast syn::LitInt) {
        if let Ok(v) = lit.base10_parse::<u128>() {
            self.integers
                .push((lit.span().byte_range(), v, lit.suffix().to_string()));
        }
    }

    fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
        if p.qself.is_none()
            && let Some(ident) = p.path.get_ident()
        {
            self.names.push((p.span().byte_range(), ident.to_string()));
        }
    }

    // Closures and macros have their own scopes and tokens: not edited.
    fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
    fn visit_macro(&mut self, _: &'ast syn::Macro) {}
}

fn symbol(op: BinOp) -> &'static str {
    match op {
        BinOp::Lt => "<",
        BinOp::Le => "<=",
        BinOp::Gt => ">",
        BinOp::Ge => ">=",
        BinOp::Eq => "==",
        BinOp::Ne => "!=",
        _ => unreachable!("only comparisons are swapped"),
    }
}

/// The other comparisons, nearest first: the same direction with or without equality,
/// then the other direction, then (in)equality.
fn swaps(op: BinOp) -> [(BinOp, u32); 5] {
    use BinOp::*;
    match op {
        Lt => [(Le, 1), (Gt, 2), (Ge, 2), (Ne, 3), (Eq, 3)],
        Le => [(Lt, 1), (Ge, 2), (Gt, 2), (Eq, 3), (Ne, 3)],
        Gt => [(Ge, 1), (Lt, 2), (Le, 2), (Ne, 3), (Eq, 3)],
        Ge => [(Gt, 1), (Le, 2), (Lt, 2), (Eq, 3), (Ne, 3)],
        Eq => [(Ne, 2), (Le, 3), (Ge, 3), (Lt, 3), (Gt, 3)],
        _ => [(Eq, 2), (Lt, 3), (Gt, 3), (Le, 3), (Ge, 3)],
    }
}

fn splice(text: &str, range: &Range<usize>, with: &str) -> String {
    format!("{}{with}{}", &text[..range.start], &text[range.end..])
}

/// `text` (a loop bound) with one more (`delta` 1) or one fewer (-1) iteration: a
/// trailing `± k` absorbs the change (`e - 1` becomes `e`, not `e - 1 + 1`).
fn bound_text(text: &str, delta: i128) -> String {
    let parsed = syn::parse_str::<syn::Expr>(text);
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
    let lowered = |rust: &str| expression::lower(rust, types);
    for (range, op) in &parts.comparisons {
        for (to, cost) in swaps(*op) {
            let rust = splice(original, range, symbol(to));
            out.push(Mutation {
                expr: lowered(&rust),
                rust,
                template: "relational-operator",
                cost,
            });
        }
    }
    for (range, op) in &parts.logical {
        let rust = splice(original, range, if *op == BinOp::And { "||" } else { "&&" });
        out.push(Mutation {
            expr: lowered(&rust),
            rust,
            template: "logical-operator",
            cost: 1,
        });
    }
    if kind == SiteKind::Bound {
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
                template: "loop-bound±1",
                cost: 1,
                expr,
            });
        }
    }
    for (range, v, suffix) in &parts.integers {
        for next in [v.checked_add(1), v.checked_sub(1)].into_iter().flatten() {
            let literal = format!("{next}{suffix}");
            let rust = splice(original, range, &literal);
            // `e - 0` and `e + 0` are written `e`.
            let rust = match syn::parse_str::<syn::Expr>(&rust) {
                Ok(syn::Expr::Binary(b))
                    if next == 0
                        && matches!(b.op, syn::BinOp::Add(_) | syn::BinOp::Sub(_))
                        && b.right.span().byte_range()
                            == (range.start..range.start + literal.len()) =>
                {
                    rust[..b.op.span().byte_range().start]
                        .trim_end()
                        .to_string()
                }
                _ => rust,
            };
            out.push(Mutation {
                expr: lowered(&rust),
                rust,
                template: "constant±1",
                cost: 1,
            });
        }
    }
    for (range, name) in &parts.names {
        let Some(ty) = types.vars.get(name) else {
            continue;
        };
        for (other, other_ty) in &types.vars {
            if other != name && other_ty == ty {
                let rust = splice(original, range, other);
                out.push(Mutation {
                    expr: lowered(&rust),
                    rust,
                    template: "variable",
                    cost: 2,
                });
            }
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
                .map(|m| Candidate {
                    edits: vec![CandidateEdit {
                        site: target.site.key(),
                        rust: m.rust,
                        expr: m.expr,
                    }],
                    template: m.template.to_string(),
                    cost: m.cost,
                    source: NAME,
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
        assert_eq!(rust, ["src.len()", "src.len() - 2"]);
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
        let bound = |text: &str| -> Vec<String> {
            mutations(text, SiteKind::Bound, &types)
                .into_iter()
                .map(|m| m.rust)
                .collect()
        };
        assert_eq!(bound("n"), ["n + 1", "n - 1"]);
        assert_eq!(bound("n + 1"), ["n + 2", "n"]);
        assert_eq!(bound("n  -  2u32"), ["n  -  1u32", "n  -  3u32"]);
        assert_eq!(bound("a & b"), ["(a & b) + 1", "(a & b) - 1"]);
        let rust: Vec<String> = mutations("celsius * 5 / 8u8", SiteKind::Assign, &types)
            .into_iter()
            .map(|m| m.rust)
            .collect();
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
    fn variables_swap_for_others_of_their_type() {
        let types = Types {
            vars: [("x", "i32"), ("y", "i32"), ("r", "i32"), ("n", "usize")]
                .map(|(n, t)| (n.to_string(), t.to_string()))
                .into(),
            value: Some("i32".into()),
            operands: None,
        };
        let all = mutations("x", SiteKind::Assign, &types);
        let rust: Vec<&str> = all.iter().map(|m| m.rust.as_str()).collect();
        assert_eq!(rust, ["r", "y"]);
        assert_eq!(
            all[1].expr,
            Some(Expr::Var {
                name: "y".to_string()
            })
        );
        assert!(mutations("not rust (", SiteKind::Let, &types).is_empty());
    }
}
