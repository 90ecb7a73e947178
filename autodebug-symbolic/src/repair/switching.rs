//! Condition repairs from predicate switching (issue 6, item 6): a critical predicate whose
//! switched run passed says, instance by instance, which outcome the branch needed (the
//! angelic outcomes). A condition that computes those outcomes from what the site saw — the
//! variables in scope, the comparison's operands — is a repair of the branch, found without
//! any model of the program: the outcomes are the specification.
//!
//! Tried in order: the negated condition, the comparison of the same operands with another
//! operator, a boolean variable in scope (or its negation), then z3 over the condition
//! templates `k0 + Σ ki*vi OP 0`, `written && …` and `written || …`, simplest instances
//! first.

use std::collections::{BTreeMap, HashMap};

use autodebug_runtime::protocol::{self, Binding, SiteInfo, Value};
use quote::ToTokens;
use z3::ast::{Bool, Dynamic};
use z3::{Optimize, SatResult};

use crate::encode::value::{Bits, Val, bv_const};
use crate::ir::{BinOp, IntType, VarId};

use super::eval::Env;
use super::mutate::{NEGATION, RELATIONAL, VARIABLE};
use super::print::{Term, protocol_op, source_text};
use super::template::{Template, condition_template};
use super::{Candidate, Edit, Kind, Options};

/// One instance of a switched branch: what the written condition computed, the outcome the
/// switched run that passed had there, and what the site could see.
#[derive(Debug, Clone, PartialEq)]
pub struct SwitchedInstance {
    /// The variables in scope at the branch, as the runtime reports them.
    pub scope: Vec<Binding>,
    /// The values of the comparison's operands, when the branch recorded them.
    pub operands: Vec<Value>,
    /// The outcome the written condition computed.
    pub original: bool,
    /// The outcome the passing run needed.
    pub wanted: bool,
}

/// The conditions that explain a switch, simplest first, and why the search stopped short
/// where it did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Switched {
    /// Candidates computing every wanted outcome.
    pub candidates: Vec<Candidate>,
    /// Why a kind of condition was not tried or gave nothing worth saying (conflicting
    /// instances, no variables, a solver time limit).
    pub notes: Vec<String>,
}

/// Conditions for the branch at `site` that compute `wanted` at every instance, from the
/// values each instance saw.
pub fn explain_switch(
    site: &SiteInfo,
    instances: &[SwitchedInstance],
    options: &Options,
) -> Switched {
    let mut out = Switched::default();
    if !site.kind.is_branch() {
        out.notes
            .push(format!("{:?} is not a branch site", site.kind));
        return out;
    }
    if instances.is_empty() {
        out.notes
            .push("no instance says what the branch needed".into());
        return out;
    }
    if let Some(why) = conflict(instances) {
        out.notes.push(why);
        return out;
    }
    let written = Written {
        site,
        parsed: syn::parse_str::<syn::Expr>(site.code.trim()).ok(),
    };
    if options.kinds.contains(&Kind::Mutation) {
        mutations(&written, instances, &mut out);
    }
    let vars = int_variables(instances);
    if vars.is_empty() {
        if options
            .kinds
            .iter()
            .any(|k| matches!(k, Kind::Condition | Kind::Clause))
        {
            out.notes.push(
                "no integer variable has one type at every instance: no condition template".into(),
            );
        }
        return out;
    }
    let ty = most_common(&vars);
    let terms: Vec<(VarId, Term)> = vars
        .iter()
        .take(options.max_vars)
        .enumerate()
        .map(|(i, (name, t))| {
            (
                VarId(i as u32),
                Term {
                    name: name.clone(),
                    ty: *t,
                },
            )
        })
        .collect();
    let shapes = [
        (Kind::Condition, None),
        (Kind::Clause, Some(true)),
        (Kind::Clause, Some(false)),
    ];
    for (kind, clause) in shapes
        .into_iter()
        .filter(|(k, _)| options.kinds.contains(k))
    {
        let template = condition_template(
            clause,
            ty,
            terms.clone(),
            options.max_coefficient.clamp(1, 60),
        );
        synthesize(
            &written,
            instances,
            options,
            (kind, &template),
            &terms,
            &mut out,
        );
    }
    out
}

/// The branch's condition as written: its site and its parse.
struct Written<'s> {
    site: &'s SiteInfo,
    parsed: Option<syn::Expr>,
}

impl Written<'_> {
    fn code(&self) -> &str {
        self.site.code.trim()
    }

    fn edit(
        &self,
        rust: String,
        expr: Option<protocol::Expr>,
        note: Option<String>,
        template: &'static str,
    ) -> Edit {
        Edit {
            site: self.site.key(),
            original: self.site.code.clone(),
            rust,
            expr,
            note,
            template,
        }
    }
}

/// Adds a one-edit candidate unless one with the same text is there.
fn push(out: &mut Switched, e: Edit, cost: u32) {
    if !out.candidates.iter().any(|c| c.edits[0].rust == e.rust) {
        out.candidates.push(Candidate {
            edits: vec![e],
            cost,
        });
    }
}

/// The mutations that compute every wanted outcome: the negation (when every instance
/// wants the other outcome), the operands compared otherwise, a boolean variable.
fn mutations(written: &Written, instances: &[SwitchedInstance], out: &mut Switched) {
    let (parsed, code) = (written.parsed.as_ref(), written.code());
    if instances.iter().all(|i| i.wanted != i.original) {
        let simple = parsed.is_some_and(|e| {
            matches!(
                e,
                syn::Expr::Path(_)
                    | syn::Expr::Paren(_)
                    | syn::Expr::MethodCall(_)
                    | syn::Expr::Call(_)
                    | syn::Expr::Field(_)
                    | syn::Expr::Index(_)
            )
        });
        let rust = match parsed {
            Some(syn::Expr::Unary(u)) if matches!(u.op, syn::UnOp::Not(_)) => {
                source_text(&u.expr, code).unwrap_or_else(|| u.expr.to_token_stream().to_string())
            }
            _ if simple => format!("!{code}"),
            _ => format!("!({code})"),
        };
        let expr = protocol::Expr::Unary {
            op: protocol::UnOp::Not,
            arg: Box::new(protocol::Expr::Original),
        };
        push(out, written.edit(rust, Some(expr), None, NEGATION), 1);
    }
    for (rust, expr) in operand_comparisons(parsed, code, instances) {
        push(out, written.edit(rust, Some(expr), None, RELATIONAL), 1);
    }
    for (name, negated) in boolean_variables(instances) {
        let rust = if negated {
            format!("!{name}")
        } else {
            name.clone()
        };
        let var = protocol::Expr::Var { name };
        let expr = if negated {
            protocol::Expr::Unary {
                op: protocol::UnOp::Not,
                arg: Box::new(var),
            }
        } else {
            var
        };
        push(out, written.edit(rust, Some(expr), None, VARIABLE), 1);
    }
}

/// The conditions of one template (of kind `kind`) that compute every wanted outcome, at
/// most `options.per_template`, simplest first.
fn synthesize(
    written: &Written,
    instances: &[SwitchedInstance],
    options: &Options,
    (kind, template): (Kind, &Template),
    terms: &[(VarId, Term)],
    out: &mut Switched,
) {
    let optimize = Optimize::new();
    let began = crate::steps::taken();
    for d in template.domain() {
        optimize.assert(&d);
    }
    for (s, w) in template.soft() {
        optimize.assert_soft(&s, w, None);
    }
    for inst in instances {
        let env = env_of(inst, terms);
        let seen = [Dynamic::from_ast(&Bool::from_bool(inst.original))];
        match template.at(None, &env, &seen) {
            Ok(o) => {
                for h in &o.hard {
                    optimize.assert(h);
                }
                let value = o.value[0]
                    .as_bool()
                    .unwrap_or_else(|| Bool::from_bool(false));
                optimize.assert(value.eq(Bool::from_bool(inst.wanted)));
            }
            Err(why) => {
                out.notes.push(format!("{kind:?}: {why}"));
                return;
            }
        }
    }
    let written_or = written
        .parsed
        .as_ref()
        .is_some_and(|e| matches!(e, syn::Expr::Binary(b) if matches!(b.op, syn::BinOp::Or(_))));
    for found in 0..options.per_template {
        // The template's checks share its steps.
        let spent = crate::steps::taken().saturating_sub(began);
        let left = u64::from(options.template_steps).saturating_sub(spent);
        let verdict = if left == 0 {
            SatResult::Unknown
        } else {
            optimize.set_params(&crate::steps::params(crate::steps::limit(left)));
            optimize.check(&[])
        };
        match verdict {
            SatResult::Sat => {}
            SatResult::Unsat => break,
            SatResult::Unknown => {
                out.notes.push(format!(
                    "{kind:?}: z3 gave up after {found} candidate(s) (step limit {})",
                    options.template_steps
                ));
                break;
            }
        }
        let Some(model) = optimize.get_model() else {
            break;
        };
        let chosen = template.decode(&model);
        optimize.assert(template.exclude(&chosen));
        if let Some(r) = template.render_condition(&chosen, written.code(), written_or) {
            push(
                out,
                written.edit(r.rust, r.expr.ok(), r.note, r.template),
                r.cost,
            );
        }
    }
}

/// Why no condition can compute the wanted outcomes: two instances that saw the same
/// values want different outcomes.
fn conflict(instances: &[SwitchedInstance]) -> Option<String> {
    for (i, a) in instances.iter().enumerate() {
        for b in &instances[i + 1..] {
            if a.wanted != b.wanted
                && a.original == b.original
                && a.operands == b.operands
                && same_scope(&a.scope, &b.scope)
            {
                return Some(format!(
                    "two instances saw the same values but needed different outcomes: no \
                     condition over what the site sees computes them ({})",
                    shown(&a.scope)
                ));
            }
        }
    }
    None
}

fn same_scope(a: &[Binding], b: &[Binding]) -> bool {
    let a: BTreeMap<&str, &Value> = a.iter().map(|(n, v)| (n.as_str(), v)).collect();
    let b: BTreeMap<&str, &Value> = b.iter().map(|(n, v)| (n.as_str(), v)).collect();
    a == b
}

fn shown(scope: &[Binding]) -> String {
    scope
        .iter()
        .map(|(n, v)| match v {
            Value::Int { v, .. } => format!("{n} = {v}"),
            Value::Bool(b) => format!("{n} = {b}"),
            _ => format!("{n} = …"),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn int_of(v: &Value) -> Option<(i128, IntType)> {
    match v {
        Value::Int { ty, v } => Some((*v, IntType::from_name(ty)?)),
        _ => None,
    }
}

/// The integer variables every instance reports, with one type each, in scope order.
fn int_variables(instances: &[SwitchedInstance]) -> Vec<(String, IntType)> {
    let first = &instances[0].scope;
    first
        .iter()
        .filter_map(|(name, v)| {
            let (_, t) = int_of(v)?;
            instances
                .iter()
                .all(|i| {
                    i.scope
                        .iter()
                        .any(|(n, w)| n == name && int_of(w).is_some_and(|(_, u)| u == t))
                })
                .then(|| (name.clone(), t))
        })
        .collect()
}

fn most_common(vars: &[(String, IntType)]) -> IntType {
    let mut counts: HashMap<IntType, usize> = HashMap::new();
    for (_, t) in vars {
        *counts.entry(*t).or_default() += 1;
    }
    let best = counts.values().copied().max().unwrap_or(0);
    vars.iter()
        .map(|(_, t)| *t)
        .find(|t| counts[t] == best)
        .unwrap_or(IntType::I32)
}

fn env_of(inst: &SwitchedInstance, terms: &[(VarId, Term)]) -> Env {
    terms
        .iter()
        .filter_map(|(id, term)| {
            let (v, t) = inst
                .scope
                .iter()
                .find(|(n, _)| *n == term.name)
                .and_then(|(_, v)| int_of(v))?;
            Some((*id, Val::Bits(bv_const(v, t.bits()), Some(v), Bits::Int(t))))
        })
        .collect()
}

/// The boolean variables in scope whose value (or its negation) is the wanted outcome at
/// every instance.
fn boolean_variables(instances: &[SwitchedInstance]) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    for (name, _) in instances[0]
        .scope
        .iter()
        .filter(|(_, v)| matches!(v, Value::Bool(_)))
    {
        let values: Option<Vec<bool>> = instances
            .iter()
            .map(|i| {
                i.scope.iter().find_map(|(n, v)| match v {
                    Value::Bool(b) if n == name => Some(*b),
                    _ => None,
                })
            })
            .collect();
        let Some(values) = values else { continue };
        for negated in [false, true] {
            if values
                .iter()
                .zip(instances)
                .all(|(b, i)| (*b != negated) == i.wanted)
            {
                out.push((name.clone(), negated));
            }
        }
    }
    out
}

/// `left OP right` with the written operands and another comparison, for every operator
/// that computes the wanted outcomes from the recorded operand values; the runtime reads the
/// operands as the instances recorded them (`Operand(0) OP Operand(1)`).
fn operand_comparisons(
    parsed: Option<&syn::Expr>,
    code: &str,
    instances: &[SwitchedInstance],
) -> Vec<(String, protocol::Expr)> {
    let Some(syn::Expr::Binary(b)) = parsed else {
        return Vec::new();
    };
    let written = b.op.to_token_stream().to_string();
    let ops = [
        BinOp::Lt,
        BinOp::Le,
        BinOp::Gt,
        BinOp::Ge,
        BinOp::Eq,
        BinOp::Ne,
    ];
    if !ops.iter().any(|o| o.symbol() == written) {
        return Vec::new();
    }
    let values: Option<Vec<(i128, i128, IntType)>> = instances
        .iter()
        .map(|i| match i.operands.as_slice() {
            [a, c] => {
                let (x, t) = int_of(a)?;
                let (y, u) = int_of(c)?;
                (t == u).then_some((x, y, t))
            }
            _ => None,
        })
        .collect();
    let Some(values) = values else {
        return Vec::new();
    };
    let text =
        |e: &syn::Expr| source_text(e, code).unwrap_or_else(|| e.to_token_stream().to_string());
    let left = text(&b.left);
    let right = text(&b.right);
    let mut out = Vec::new();
    for op in ops {
        if op.symbol() == written {
            continue;
        }
        let holds = |x: i128, y: i128| match op {
            BinOp::Lt => x < y,
            BinOp::Le => x <= y,
            BinOp::Gt => x > y,
            BinOp::Ge => x >= y,
            BinOp::Eq => x == y,
            _ => x != y,
        };
        if values
            .iter()
            .zip(instances)
            .all(|((x, y, _), i)| holds(*x, *y) == i.wanted)
        {
            // Every instance recorded both operands: the hook reports them, whatever they
            // read (`a[i]`, `v.len()`), and the runtime compares them again.
            let expr = protocol::Expr::Binary {
                op: protocol_op(op).expect("a comparison"),
                left: Box::new(protocol::Expr::Operand { index: 0 }),
                right: Box::new(protocol::Expr::Operand { index: 1 }),
            };
            out.push((format!("{left} {} {right}", op.symbol()), expr));
        }
    }
    out
}
