//! The adaptor source: an iterator chain with an adaptor too many or too few. In the site's
//! code, an adaptor that drops, orders or filters elements is taken out (`.rev()`,
//! `.skip(n)`, `.take(n)`, `.filter(..)`, `.skip_while(..)`, `.take_while(..)`), and after a
//! call that starts an iteration (`.iter()`, `.chars()`, `.into_iter()`, …) a `.rev()` or a
//! `.skip(1)` is put in: a walk the wrong way, a header or first element not skipped. A step
//! (`step_by`) is never changed: that would skip elements, not fix the walk. The runtime
//! cannot evaluate these, so a rebuild judges each one.

use std::collections::VecDeque;
use std::ops::Range;

use syn::spanned::Spanned;
use syn::visit::{self, Visit};

use super::{Candidate, CandidateEdit, Target};

/// The source's name in the report.
pub const NAME: &str = "adaptor";
/// An adaptor taken out of an iterator chain.
pub const REMOVED: &str = "adaptor-removed";
/// An adaptor put into an iterator chain.
pub const ADDED: &str = "adaptor-added";

/// Beside the sibling calls; like a statement put in or taken out, an adaptor is logic
/// added or taken away: rebuilt after every one-token edit (see `search::adds_logic`).
const COST: u32 = 3;

/// Candidates per site at most, in the order found.
const PER_SITE: usize = 6;

/// Adaptors that keep the element type and drop, reorder or filter elements.
const TAKEN_OUT: [&str; 6] = ["rev", "skip", "take", "filter", "skip_while", "take_while"];

/// Calls that start an iteration, taking no argument.
const STARTS: [&str; 8] = [
    "iter",
    "iter_mut",
    "into_iter",
    "chars",
    "bytes",
    "char_indices",
    "keys",
    "values",
];

/// What is put after a call that starts an iteration.
const PUT_IN: [&str; 2] = [".rev()", ".skip(1)"];

/// The source (per target, its candidates in order).
#[derive(Default)]
pub struct Adaptors {
    queues: super::Queues,
}

/// The edits of a site's code: the bytes each replaces (in the code), and the new text.
struct Chains<'s> {
    code: &'s str,
    edits: Vec<(Range<usize>, String, &'static str)>,
}

impl<'ast> Visit<'ast> for Chains<'_> {
    fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
        let name = call.method.to_string();
        let whole = call.span().byte_range();
        let receiver = call.receiver.span().byte_range();
        if TAKEN_OUT.contains(&name.as_str()) {
            let kept = self.code[receiver].to_string();
            self.edits.push((whole.clone(), kept, REMOVED));
        } else if STARTS.contains(&name.as_str()) && call.args.is_empty() {
            let written = &self.code[whole.clone()];
            // Not where the adaptor is already there.
            let after = &self.code[whole.end..];
            for adaptor in PUT_IN {
                if !after.trim_start().starts_with(adaptor) {
                    let text = format!("{written}{adaptor}");
                    self.edits.push((whole.clone(), text, ADDED));
                }
            }
        }
        visit::visit_expr_method_call(self, call);
    }

    // A closure's body is code of the site too; an item inside it is not.
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

impl Adaptors {
    fn candidates(&mut self, target: &Target) -> VecDeque<Candidate> {
        let code = &target.located.original;
        let Ok(written) = syn::parse_str::<syn::Expr>(code) else {
            return VecDeque::new();
        };
        let mut chains = Chains {
            code,
            edits: Vec::new(),
        };
        chains.visit_expr(&written);
        (chains.edits.into_iter())
            .take(PER_SITE)
            .map(|(bytes, text, template)| {
                let rust = format!("{}{text}{}", &code[..bytes.start], &code[bytes.end..]);
                Candidate::one(
                    CandidateEdit::at(target.site.key(), rust),
                    template,
                    COST,
                    NAME,
                )
            })
            .collect()
    }
}

super::listed!(Adaptors);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repair::CandidateSource;
    use crate::repair::expression::Types;
    use crate::repair::scratch_target;
    use autodebug_runtime::protocol::SiteKind;

    fn candidates(text: &str, code: &str) -> Vec<(String, String)> {
        let (_files, target) = scratch_target(
            text,
            text.find(code).unwrap(),
            code,
            SiteKind::Return,
            Types::default(),
        );
        (Adaptors::default().next(&target, 100).into_iter())
            .map(|c| {
                assert_eq!((c.source, c.cost), (NAME, COST));
                assert!(c.edits[0].expr.is_none(), "a rebuild judges it");
                (c.template, c.edits[0].rust.clone())
            })
            .collect()
    }

    #[test]
    fn an_adaptor_is_taken_out_or_put_in_after_the_start_of_an_iteration() {
        let text = "fn reversed(s: &str) -> String {\n    s.chars().rev().skip(1).collect()\n}\n";
        let found = candidates(text, "s.chars().rev().skip(1).collect()");
        assert_eq!(
            found,
            [
                (REMOVED.to_string(), "s.chars().rev().collect()".to_string()),
                (
                    REMOVED.to_string(),
                    "s.chars().skip(1).collect()".to_string()
                ),
                // `.rev()` follows `chars()` already: only `.skip(1)` is put in.
                (
                    ADDED.to_string(),
                    "s.chars().skip(1).rev().skip(1).collect()".to_string()
                ),
            ]
        );
        let text = "fn total(v: &[u32]) -> u32 {\n    v.iter().step_by(2).sum()\n}\n";
        let found: Vec<String> = candidates(text, "v.iter().step_by(2).sum()")
            .into_iter()
            .map(|(_, t)| t)
            .collect();
        // The step is left as written.
        assert_eq!(
            found,
            [
                "v.iter().rev().step_by(2).sum()",
                "v.iter().skip(1).step_by(2).sum()"
            ]
        );
    }
}
