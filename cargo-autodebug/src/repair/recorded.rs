//! What the recorded runs already say about a candidate the runtime cannot evaluate: a
//! branch candidate that compares the same operands with another operator computes, at
//! every recorded instance of a failing run, an outcome the recorded operand values
//! decide. If it is the written outcome at every instance, the run would go exactly as
//! recorded, and fail again: the candidate is refuted without a rebuild.

use autodebug_runtime::protocol::{Record, SiteInfo, Value};
use syn::spanned::Spanned;

use crate::model::Role;
use crate::trace::RecordedTrace;

/// The comparison operators, as syn parses them.
fn comparison(op: &syn::BinOp) -> Option<fn(std::cmp::Ordering) -> bool> {
    use std::cmp::Ordering::*;
    Some(match op {
        syn::BinOp::Lt(_) => |o| o == Less,
        syn::BinOp::Le(_) => |o| o != Greater,
        syn::BinOp::Gt(_) => |o| o == Greater,
        syn::BinOp::Ge(_) => |o| o != Less,
        syn::BinOp::Eq(_) => |o| o == Equal,
        syn::BinOp::Ne(_) => |o| o != Equal,
        _ => return None,
    })
}

/// The ordering of two recorded operand values, when they are comparable scalars.
fn order(a: &Value, b: &Value) -> Option<std::cmp::Ordering> {
    match (a, b) {
        (Value::Int { v: x, .. }, Value::Int { v: y, .. }) => Some(x.cmp(y)),
        (Value::Float { v: x, .. }, Value::Float { v: y, .. }) => {
            x.parse::<f64>().ok()?.partial_cmp(&y.parse::<f64>().ok()?)
        }
        (Value::Char(x), Value::Char(y)) => Some(x.cmp(y)),
        (Value::Bool(x), Value::Bool(y)) => Some(x.cmp(y)),
        _ => None,
    }
}

/// The operator `candidate` puts between the same operands as `original` (both the whole
/// text of a branch site), if that is all it changes.
fn swapped_operator(original: &str, candidate: &str) -> Option<fn(std::cmp::Ordering) -> bool> {
    let (Ok(syn::Expr::Binary(a)), Ok(syn::Expr::Binary(b))) = (
        syn::parse_str::<syn::Expr>(original),
        syn::parse_str::<syn::Expr>(candidate),
    ) else {
        return None;
    };
    // The operands' tokens, read back from each text (spacing and comments aside).
    let tokens = |text: &str, e: &syn::Expr| {
        text[e.span().byte_range()]
            .parse::<proc_macro2::TokenStream>()
            .map(|t| t.to_string())
            .ok()
    };
    comparison(&a.op)?;
    let same = tokens(original, &a.left)? == tokens(candidate, &b.left)?
        && tokens(original, &a.right)? == tokens(candidate, &b.right)?;
    same.then_some(())?;
    comparison(&b.op)
}

/// Whether replacing the branch `site` (whose text is `original`) by `candidate` leaves
/// every recorded failing run as it was: every instance's outcome under the candidate,
/// computed from its recorded operands, is the written one. `false` when any run cannot
/// tell (operands not recorded, not comparable, a truncated trace).
pub fn leaves_failing_runs_unchanged(
    traces: &[RecordedTrace],
    site: &SiteInfo,
    original: &str,
    candidate: &str,
) -> bool {
    if !site.kind.is_branch() {
        return false;
    }
    let Some(op) = swapped_operator(original, candidate) else {
        return false;
    };
    let key = site.key();
    let mut failing = traces.iter().filter(|t| t.role == Role::Failing).peekable();
    if failing.peek().is_none() {
        return false;
    }
    failing.all(|recorded| {
        let trace = &recorded.trace;
        if trace.truncated || trace.coverage {
            return false;
        }
        let ids: Vec<u32> = trace
            .sites
            .iter()
            .filter(|(_, s)| s.key() == key)
            .map(|(id, _)| *id)
            .collect();
        trace.events.iter().all(|event| match event {
            Record::Branch {
                site,
                outcome,
                operands,
                ..
            } if ids.contains(site) => match operands.as_slice() {
                [a, b] => order(a, b).is_some_and(|o| op(o) == *outcome),
                _ => false,
            },
            _ => true,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Outcome;
    use crate::trace::RawTrace;
    use autodebug_runtime::protocol::SiteKind;

    fn site() -> SiteInfo {
        SiteInfo {
            file: "src/lib.rs".into(),
            line: 30,
            column: 12,
            end_line: 30,
            end_column: 25,
            kind: SiteKind::If,
            code: "a[j] >= pivot".into(),
            function: "partition".into(),
        }
    }

    fn int(v: i128) -> Value {
        Value::Int {
            ty: "i32".into(),
            v,
        }
    }

    /// A failing trace whose branch saw these operand pairs (outcomes of `>=`).
    fn failing(pairs: &[(i128, i128)]) -> RecordedTrace {
        let mut trace = RawTrace::default();
        trace.sites.insert(7, site());
        for (i, (a, b)) in pairs.iter().enumerate() {
            trace.events.push(Record::Branch {
                site: 7,
                instance: i as u32,
                outcome: a >= b,
                flipped: false,
                operands: vec![int(*a), int(*b)],
            });
        }
        RecordedTrace {
            outcome: Outcome::Failed {
                message: "boom".into(),
                location: None,
            },
            ..crate::trace::failing_test_trace(trace)
        }
    }

    #[test]
    fn a_swap_that_changes_no_recorded_outcome_leaves_the_run_as_it_was() {
        let traces = [failing(&[(3, 1), (0, 1), (5, 2)])];
        let same =
            |candidate| leaves_failing_runs_unchanged(&traces, &site(), "a[j] >= pivot", candidate);
        // No equal operands were recorded: `>` decides every instance as `>=` did.
        assert!(same("a[j] > pivot"));
        assert!(!same("a[j] <= pivot"));
        assert!(!same("a[j] != pivot"));
        // Not a swap of the operator alone: nothing can be said.
        assert!(!same("a[i] > pivot"));
        assert!(!same("pivot > a[j]"));
        let equal = [failing(&[(3, 1), (2, 2)])];
        assert!(!leaves_failing_runs_unchanged(
            &equal,
            &site(),
            "a[j] >= pivot",
            "a[j] > pivot"
        ));
        // Without operands, or with a truncated trace, the runs cannot tell.
        let mut bare = failing(&[(3, 1)]);
        if let Record::Branch { operands, .. } = &mut bare.trace.events[0] {
            operands.clear();
        }
        assert!(!leaves_failing_runs_unchanged(
            &[bare],
            &site(),
            "a[j] >= pivot",
            "a[j] > pivot"
        ));
        let mut truncated = failing(&[(3, 1)]);
        truncated.trace.truncated = true;
        assert!(!leaves_failing_runs_unchanged(
            &[truncated],
            &site(),
            "a[j] >= pivot",
            "a[j] > pivot"
        ));
    }
}
