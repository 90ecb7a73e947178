//! Joint candidates for two sites at once: when two faults make a test fail together, no
//! edit of one site passes the suite, and only an edit of both does. The pairs are the
//! two-component diagnoses of model-based diagnosis whose sites are both repair targets,
//! then the pairs of the three best-ranked targets that do not overlap (two faults are
//! often among the best suspects). Each
//! pair's candidates are the products of each site's first one-token edits (the syntactic
//! source's, simplest first), one edit per site: one template per component, as the
//! issue asks of multi-component diagnoses. Tried after every single-site source, so they
//! only use what the bounds leave.

use std::collections::{BTreeMap, BTreeSet};

use autodebug_runtime::protocol::{SiteInfo, SiteKey, SiteKind};

use super::syntactic::Syntactic;
use super::{Candidate, CandidateSource, Target};
use crate::localize::Component;

/// The name of this source in the report.
pub const NAME: &str = "joint";

/// One-token edits per site combined into pairs (so at most this squared per pair).
const PER_SITE: usize = 6;

/// Best-ranked distinct sites paired with each other when no diagnosis names a pair.
const TOP: usize = 3;

/// The source.
pub struct Joint {
    /// Pairs of target indices.
    pairs: Vec<(usize, usize)>,
    targets: Vec<Target>,
    pending: BTreeMap<SiteKey, Vec<Candidate>>,
    asked: BTreeSet<SiteKey>,
}

impl Joint {
    /// A source over `targets` (in rank order) for the two-component `diagnoses`.
    pub fn new(targets: &[Target], diagnoses: &[Vec<Component>]) -> Joint {
        let index = |c: &Component| {
            targets.iter().position(|t| {
                t.path == c.0
                    && t.site.line == c.1
                    && t.site.column == c.2
                    && (t.site.kind == c.3
                        // A compound assignment's component is its right-hand side.
                        || c.3 == SiteKind::Compound && t.site.kind == SiteKind::Assign)
            })
        };
        let mut pairs: Vec<(usize, usize)> = Vec::new();
        let mut push = |a: usize, b: usize| {
            let pair = (a.min(b), a.max(b));
            if a != b
                && !pairs.contains(&pair)
                && !overlap(&targets[a], &targets[b])
                && !same_code(&targets[a], &targets[b])
            {
                pairs.push(pair);
            }
        };
        for diagnosis in diagnoses.iter().filter(|d| d.len() == 2) {
            if let (Some(a), Some(b)) = (index(&diagnosis[0]), index(&diagnosis[1])) {
                push(a, b);
            }
        }
        // The best-ranked sites that do not overlap each other (a condition's clauses
        // follow it as targets of their own), paired.
        let mut distinct: Vec<usize> = Vec::new();
        for (i, t) in targets.iter().enumerate() {
            if distinct.len() < TOP && !distinct.iter().any(|&j| overlap(&targets[j], t)) {
                distinct.push(i);
            }
        }
        for (n, &a) in distinct.iter().enumerate() {
            for &b in &distinct[n + 1..] {
                push(a, b);
            }
        }
        Joint {
            pairs,
            targets: targets.to_vec(),
            pending: BTreeMap::new(),
            asked: BTreeSet::new(),
        }
    }

    /// The pairs' candidates, for the pairs whose first site is `target`.
    fn products(&self, target: &Target) -> Vec<Candidate> {
        let key = target.site.key();
        let Some(first) = self.targets.iter().position(|t| t.site.key() == key) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for &(a, b) in self.pairs.iter().filter(|(a, _)| *a == first) {
            let edits_a = Syntactic::default().next(&self.targets[a], PER_SITE);
            let edits_b = Syntactic::default().next(&self.targets[b], PER_SITE);
            for x in &edits_a {
                for y in &edits_b {
                    let mut edits = x.edits.clone();
                    edits.extend(y.edits.iter().cloned());
                    out.push(Candidate {
                        edits,
                        template: format!("{}+{}", x.template, y.template),
                        cost: x.cost + y.cost,
                        source: NAME,
                    });
                }
            }
        }
        // Simplest pairs first; a stable sort keeps the sources' order among equals.
        out.sort_by_key(|c| c.cost);
        out
    }
}

/// Whether two sites are copies of one code: the same edit at both is the copies' candidate
/// (see `super::copies`), and different edits of one code are not a fix a person writes.
fn same_code(a: &Target, b: &Target) -> bool {
    a.site.kind == b.site.kind
        && super::patch::squeeze(&a.site.code) == super::patch::squeeze(&b.site.code)
}

/// Whether two sites' spans share text (a condition and one of its clauses): one patch
/// cannot hold both edits.
pub(super) fn overlap(a: &Target, b: &Target) -> bool {
    spans_overlap(&a.site, &b.site)
}

/// Whether two sites' spans share a character (the same file as the compiler saw it).
pub(super) fn spans_overlap(a: &SiteInfo, b: &SiteInfo) -> bool {
    let span = |s: &SiteInfo| ((s.line, s.column), (s.end_line, s.end_column));
    let ((a0, a1), (b0, b1)) = (span(a), span(b));
    a.file == b.file && a0 < b1 && b0 < a1
}

impl CandidateSource for Joint {
    fn name(&self) -> &'static str {
        NAME
    }

    fn next(&mut self, target: &Target, max: usize) -> Vec<Candidate> {
        let key = target.site.key();
        if self.asked.insert(key.clone()) {
            let found = self.products(target);
            self.pending.insert(key.clone(), found);
        }
        let pending = self.pending.entry(key).or_default();
        let n = max.min(pending.len());
        pending.drain(..n).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repair::expression::Types;
    use crate::repair::patch;
    use autodebug_runtime::protocol::SiteInfo;

    const TEXT: &str = "fn f(a: i32, b: i32) -> bool {\n    let x = a + 1;\n    if x < b && b > 0 { true } else { false }\n}\n";

    fn target(line: u32, column: u32, end_column: u32, kind: SiteKind, code: &str) -> Target {
        let site = SiteInfo {
            file: "src/lib.rs".into(),
            line,
            column,
            end_line: line,
            end_column,
            kind,
            code: code.into(),
            function: "f".into(),
        };
        Target {
            located: patch::locate(TEXT, &site).unwrap_or_else(|e| panic!("{code}: {e:#}")),
            site,
            path: "src/lib.rs".into(),
            rank: 1,
            localized_by: vec!["ochiai"],
            types: Types::default(),
        }
    }

    #[test]
    fn pairs_of_one_token_edits_one_per_site_simplest_first() {
        let let_rhs = target(2, 13, 18, SiteKind::Let, "a + 1");
        let condition = target(3, 8, 22, SiteKind::If, "x < b && b > 0");
        let clause = target(3, 8, 13, SiteKind::Operand, "x < b");
        let targets = [let_rhs, condition, clause];
        // The diagnosis names the let and the clause; the best distinct targets (the let
        // and the condition: the clause overlaps the condition) are paired too.
        let diagnoses = vec![vec![
            ("src/lib.rs".to_string(), 2, 13, SiteKind::Let),
            ("src/lib.rs".to_string(), 3, 8, SiteKind::Operand),
        ]];
        let mut joint = Joint::new(&targets, &diagnoses);
        assert_eq!(joint.pairs, [(0, 2), (0, 1)]);
        let first = joint.next(&targets[0], 1000);
        assert!(!first.is_empty());
        assert!(first.iter().all(|c| c.edits.len() == 2 && c.source == NAME));
        assert!(first.windows(2).all(|w| w[0].cost <= w[1].cost));
        assert!(
            first
                .iter()
                .any(|c| c.edits[0].rust == "a - 1" && c.edits[1].rust == "x <= b"),
            "{:?}",
            first
                .iter()
                .map(|c| (&c.edits[0].rust, &c.edits[1].rust))
                .collect::<Vec<_>>()
        );
        // Handed out once; the second site of a pair asks for nothing of its own.
        assert!(joint.next(&targets[0], 1000).is_empty());
        assert!(joint.next(&targets[1], 1000).is_empty());
    }

    #[test]
    fn a_condition_and_its_own_clause_are_not_paired() {
        let condition = target(3, 8, 22, SiteKind::If, "x < b && b > 0");
        let clause = target(3, 8, 13, SiteKind::Operand, "x < b");
        let joint = Joint::new(&[condition, clause], &[]);
        assert!(joint.pairs.is_empty());
    }
}
