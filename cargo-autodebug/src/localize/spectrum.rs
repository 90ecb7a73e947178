//! Spectrum-based ranking: a site executed by many failing tests and few passing ones is
//! suspicious. Ochiai (the default) and DStar over the per-test coverage of the baseline —
//! cheap, always available, and the baseline every other technique must beat.

use std::collections::BTreeMap;

use anyhow::Result;
use autodebug_runtime::protocol::{SiteInfo, SiteKey};

use super::{Context, Evidence, Suspect, Technique, is_candidate};
use crate::outcome::Outcome;

/// The suspiciousness formula.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Formula {
    /// `ef / sqrt(F · (ef + ep))`.
    Ochiai,
    /// DStar with * = 2: `ef² / (ep + (F − ef))`.
    Dstar,
}

/// Spectrum ranking with one formula.
pub struct Spectrum {
    pub formula: Formula,
}

/// Counts of one site: failing and passing tests that executed it.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct Counts {
    pub ef: usize,
    pub ep: usize,
}

impl Formula {
    /// The formula's name in evidence.
    pub fn name(self) -> &'static str {
        match self {
            Formula::Ochiai => "ochiai",
            Formula::Dstar => "dstar",
        }
    }

    /// Suspiciousness of a site with `counts`, out of `failed` failing tests.
    pub fn score(self, counts: Counts, failed: usize) -> f64 {
        let (ef, ep, f) = (counts.ef as f64, counts.ep as f64, failed as f64);
        match self {
            Formula::Ochiai if ef == 0.0 => 0.0,
            Formula::Ochiai => ef / (f * (ef + ep)).sqrt(),
            Formula::Dstar => {
                let denominator = ep + (f - ef);
                if denominator == 0.0 {
                    f64::INFINITY
                } else {
                    ef * ef / denominator
                }
            }
        }
    }
}

/// Per-site counts over tests that passed or failed deterministically (flaky and not-run
/// tests say nothing reliable), and the number of failing tests.
pub fn counts<'a>(
    tests: impl Iterator<Item = (bool, &'a BTreeMap<SiteKey, SiteInfo>)>,
) -> (BTreeMap<&'a SiteKey, (Counts, &'a SiteInfo)>, usize) {
    let mut table: BTreeMap<&SiteKey, (Counts, &SiteInfo)> = BTreeMap::new();
    let mut failed = 0;
    for (failing, coverage) in tests {
        failed += usize::from(failing);
        for (key, site) in coverage {
            let entry = table.entry(key).or_insert((Counts::default(), site));
            if failing {
                entry.0.ef += 1;
            } else {
                entry.0.ep += 1;
            }
        }
    }
    (table, failed)
}

impl Technique for Spectrum {
    fn name(&self) -> &'static str {
        self.formula.name()
    }

    fn localize(&self, context: &Context, notes: &mut Vec<String>) -> Result<Vec<Suspect>> {
        let tests = context
            .baseline
            .iter()
            .filter_map(|r| match &r.first.outcome {
                Outcome::Passed => Some((false, &r.coverage)),
                Outcome::NotRun => None,
                _ if r.deterministic_failure() => Some((true, &r.coverage)),
                _ => None,
            });
        let (table, failed) = counts(tests);
        if failed == 0 {
            notes.push(format!(
                "{}: no deterministic failure to rank against",
                self.name()
            ));
            return Ok(Vec::new());
        }
        let mut suspects: Vec<(f64, Counts, &SiteInfo)> = table
            .into_values()
            .filter(|(counts, site)| counts.ef > 0 && is_candidate(site.kind))
            .map(|(counts, site)| (self.formula.score(counts, failed), counts, site))
            .collect();
        suspects.sort_by(|a, b| {
            b.0.total_cmp(&a.0)
                .then_with(|| (a.2.line, a.2.column).cmp(&(b.2.line, b.2.column)))
        });
        Ok(suspects
            .into_iter()
            .map(|(score, counts, site)| Suspect {
                site: site.clone(),
                path: crate::trace::workspace_path(context.workspace_root, &site.file),
                evidence: vec![Evidence {
                    technique: self.name(),
                    score,
                    detail: format!(
                        "{score:.2} (run by {} of {failed} failing and {} passing tests)",
                        counts.ef, counts.ep
                    ),
                }],
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use autodebug_runtime::protocol::SiteKind;

    fn coverage(lines: &[u32]) -> BTreeMap<SiteKey, SiteInfo> {
        lines
            .iter()
            .map(|&l| {
                let site = crate::localize::tests::site(l, SiteKind::Assign);
                (site.key(), site)
            })
            .collect()
    }

    #[test]
    fn ochiai_and_dstar_values() {
        // ef = 2 of F = 2 failing, ep = 2: ochiai = 2 / sqrt(2 · 4) = 0.7071.
        let c = Counts { ef: 2, ep: 2 };
        assert!((Formula::Ochiai.score(c, 2) - std::f64::consts::FRAC_1_SQRT_2).abs() < 1e-12);
        // dstar = 4 / (2 + 0) = 2.
        assert_eq!(Formula::Dstar.score(c, 2), 2.0);
        assert_eq!(Formula::Ochiai.score(Counts { ef: 0, ep: 5 }, 2), 0.0);
        assert_eq!(
            Formula::Dstar.score(Counts { ef: 2, ep: 0 }, 2),
            f64::INFINITY
        );
    }

    #[test]
    fn counts_per_site() {
        let (a, b, c) = (coverage(&[1, 2]), coverage(&[2, 3]), coverage(&[2]));
        let (table, failed) = counts([(true, &a), (false, &b), (true, &c)].into_iter());
        assert_eq!(failed, 2);
        let by_line: Vec<(u32, Counts)> = table.values().map(|(c, s)| (s.line, *c)).collect();
        assert_eq!(
            by_line,
            [
                (1, Counts { ef: 1, ep: 0 }),
                (2, Counts { ef: 2, ep: 1 }),
                (3, Counts { ef: 0, ep: 1 })
            ]
        );
    }
}
