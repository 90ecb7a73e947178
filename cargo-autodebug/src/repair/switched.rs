//! The predicate-switching candidate source (issue 6, item 6): a critical predicate whose
//! flipped run passed says, instance by instance, which outcome the branch needed. The
//! instances of the failing run up to the last flipped one are the specification: those
//! before it kept their outcome in the passing run, the flipped ones needed the other. A
//! condition that computes those outcomes from what the branch saw (its operands, the
//! variables in scope) is a candidate repair of the branch
//! (`autodebug_symbolic::repair::explain_switch`), found without a model of the program.
//! Instances after the last flipped one ran differently in the switched run and say
//! nothing; the rerun and the rebuild judge the candidate on the whole suite as always.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use autodebug_runtime::protocol::{Binding, Record, SiteKey};
use autodebug_symbolic::repair::{self as symbolic, SwitchedInstance};

/// The symbolic engine's name of a negation added or removed.
const NEGATION: &str = "negation";

use super::{Candidate, CandidateEdit, CandidateSource, Target};
use crate::localize::switching::Flipped;
use crate::model::Role;
use crate::trace::{RawTrace, RecordedTrace};

/// The name of this source in the report.
pub const NAME: &str = "predicate-switching";

/// The source.
pub struct Switched<'a> {
    flipped: &'a [Flipped],
    traces: &'a [RecordedTrace],
    /// Candidates not handed out yet, per site (computed on the first ask).
    pending: BTreeMap<SiteKey, Vec<Candidate>>,
    asked: HashSet<SiteKey>,
    notes: Vec<String>,
}

impl<'a> Switched<'a> {
    /// A source for the critical predicates `flipped`, specified by the failing runs in
    /// `traces`.
    pub fn new(flipped: &'a [Flipped], traces: &'a [RecordedTrace]) -> Switched<'a> {
        Switched {
            flipped,
            traces,
            pending: BTreeMap::new(),
            asked: HashSet::new(),
            notes: Vec::new(),
        }
    }

    /// The candidates explaining every critical predicate found at `key` (one per failing
    /// test that has one there): conditions that agree with all of them.
    fn explain(&mut self, target: &Target) -> Vec<Candidate> {
        let key = target.site.key();
        let mut instances = Vec::new();
        for flipped in self.flipped.iter().filter(|f| f.site == key) {
            let Some(recorded) = self
                .traces
                .iter()
                .find(|t| t.role == Role::Failing && t.test.display() == flipped.test)
            else {
                continue;
            };
            instances.extend(angelic_instances(&recorded.trace, flipped));
        }
        if instances.is_empty() {
            return Vec::new();
        }
        // Each condition template gets the default solver steps.
        let options = symbolic::Options::default();
        let found = symbolic::explain_switch(&target.site, &instances, &options);
        for note in found.notes {
            self.notes.push(format!(
                "{NAME}: {}:{}: {note}",
                target.path, target.site.line
            ));
        }
        // `!(a > b)` is `a <= b`, which comes as its own candidate: the negation of a
        // comparison is not what a person would write.
        let comparison = matches!(
            syn::parse_str::<syn::Expr>(target.site.code.trim()),
            Ok(syn::Expr::Binary(b)) if matches!(
                b.op,
                syn::BinOp::Lt(_)
                    | syn::BinOp::Le(_)
                    | syn::BinOp::Gt(_)
                    | syn::BinOp::Ge(_)
                    | syn::BinOp::Eq(_)
                    | syn::BinOp::Ne(_)
            )
        );
        found
            .candidates
            .into_iter()
            .filter(|c| !(comparison && c.edits.iter().any(|e| e.template == NEGATION)))
            .map(|c| Candidate {
                template: c
                    .edits
                    .iter()
                    .map(|e| e.template)
                    .collect::<Vec<_>>()
                    .join("+"),
                edits: c
                    .edits
                    .into_iter()
                    .map(|e| CandidateEdit {
                        site: e.site,
                        rust: e.rust,
                        expr: e.expr,
                        statement: None,
                    })
                    .collect(),
                cost: c.cost,
                source: NAME,
            })
            .collect()
    }
}

/// The instances of `flipped.site` in the failing run `trace`, up to the last flipped one,
/// each with the outcome the passing switched run had there.
pub fn angelic_instances(trace: &RawTrace, flipped: &Flipped) -> Vec<SwitchedInstance> {
    let ids: BTreeSet<u32> = trace
        .sites
        .iter()
        .filter(|(_, s)| s.key() == flipped.site)
        .map(|(&id, _)| id)
        .collect();
    let Some(&last) = flipped.instances.iter().max() else {
        return Vec::new();
    };
    let flips: BTreeSet<u32> = flipped.instances.iter().copied().collect();
    // What the innermost call could see: its arguments, then the scope the latest
    // component of the same call reported.
    let mut frames: Vec<Vec<Binding>> = Vec::new();
    let mut out = Vec::new();
    for event in &trace.events {
        match event {
            Record::Enter { args, .. } => frames.push(args.clone()),
            Record::Exit { .. } => {
                frames.pop();
            }
            Record::Component { scope, .. } => {
                if let Some(frame) = frames.last_mut() {
                    *frame = scope.clone();
                }
            }
            Record::Branch {
                site,
                instance,
                outcome,
                operands,
                ..
            } if ids.contains(site) && *instance <= last => {
                out.push(SwitchedInstance {
                    scope: frames.last().cloned().unwrap_or_default(),
                    operands: operands.clone(),
                    original: *outcome,
                    wanted: *outcome != flips.contains(instance),
                });
                if *instance == last {
                    break;
                }
            }
            _ => {}
        }
    }
    out
}

impl CandidateSource for Switched<'_> {
    fn name(&self) -> &'static str {
        NAME
    }

    fn next(&mut self, target: &Target, max: usize) -> Vec<Candidate> {
        let key = target.site.key();
        if self.asked.insert(key.clone()) {
            let found = self.explain(target);
            self.pending.insert(key.clone(), found);
        }
        let pending = self.pending.entry(key).or_default();
        let n = max.min(pending.len());
        pending.drain(..n).collect()
    }

    fn notes(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use autodebug_runtime::protocol::{SiteInfo, SiteKind, Value};

    fn int(v: i64) -> Value {
        Value::Int {
            ty: "usize".into(),
            v: v as i128,
        }
    }

    fn site() -> SiteInfo {
        SiteInfo {
            file: "src/lib.rs".into(),
            line: 3,
            column: 8,
            end_line: 3,
            end_column: 13,
            kind: SiteKind::If,
            code: "i < n".into(),
            function: "f".into(),
        }
    }

    fn branch(instance: u32, i: i64, n: i64) -> Record {
        Record::Branch {
            site: 1,
            instance,
            outcome: i < n,
            flipped: false,
            operands: vec![int(i), int(n)],
        }
    }

    fn trace(events: Vec<Record>) -> RawTrace {
        RawTrace {
            sites: [(1, site())].into_iter().collect(),
            events,
            ..RawTrace::default()
        }
    }

    #[test]
    fn instances_up_to_the_last_flip_with_the_outcome_the_passing_run_had() {
        let t = trace(vec![
            Record::Enter {
                site: 0,
                args: vec![("n".into(), int(2))],
            },
            branch(0, 0, 2),
            branch(1, 1, 2),
            branch(2, 2, 2),
            branch(3, 3, 2),
            Record::Exit {
                site: 0,
                panicking: false,
            },
        ]);
        let flipped = Flipped {
            test: "t::a".into(),
            site: site().key(),
            instances: vec![2],
        };
        let got = angelic_instances(&t, &flipped);
        assert_eq!(
            got.len(),
            3,
            "instance 3 ran differently in the switched run"
        );
        assert_eq!(
            got.iter()
                .map(|i| (i.original, i.wanted))
                .collect::<Vec<_>>(),
            [(true, true), (true, true), (false, true)]
        );
        assert_eq!(got[0].scope, vec![("n".to_string(), int(2))]);
        assert_eq!(got[2].operands, vec![int(2), int(2)]);
    }

    #[test]
    fn a_relational_repair_explains_the_switch() {
        // `i < n` where `i <= n` is meant: the third instance (2 < 2) needed `true`.
        let t = trace(vec![branch(0, 0, 2), branch(1, 1, 2), branch(2, 2, 2)]);
        let flipped = Flipped {
            test: "t::a".into(),
            site: site().key(),
            instances: vec![2],
        };
        let instances = angelic_instances(&t, &flipped);
        let found = symbolic::explain_switch(&site(), &instances, &symbolic::Options::default());
        let texts: Vec<&str> = found
            .candidates
            .iter()
            .map(|c| c.edits[0].rust.as_str())
            .collect();
        assert!(texts.contains(&"i <= n"), "{texts:?}");
        // Each candidate computes every wanted outcome; none keeps the written condition.
        assert!(!texts.contains(&"i < n"), "{texts:?}");
    }
}
