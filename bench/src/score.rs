//! Scoring one faulty version: detection, the rank of the first suspect overlapping a true
//! fault (top-k, EXAM), the Ochiai baseline over the same spectrum, and fix correctness.

use std::collections::{BTreeMap, BTreeSet};

use crate::mutate::Mutation;
use crate::report::{Coverage, Fix, FixEdit, Report, Suspect, same_file};
use crate::span::{LineIndex, Pos};

/// Exit codes of `cargo autodebug` that mean "red tests were diagnosed": failing tests (5),
/// a timeout (6), a crash (7).
pub const DIAGNOSED_EXIT_CODES: [i32; 3] = [5, 6, 7];

/// Whether a span of `file` overlaps one of the faults.
pub fn overlaps_fault(file: &str, range: crate::span::PosRange, faults: &[Mutation]) -> bool {
    faults
        .iter()
        .any(|m| same_file(file, &m.file) && range.overlaps(&m.pos_range()))
}

/// Detected: the tool exited as having diagnosed failures and reported every test the
/// fault is known to fail.
pub fn detected(report: &Report, expected_failing: &[String]) -> bool {
    let reported: BTreeSet<&str> = report
        .failing_tests
        .iter()
        .map(|t| t.name.as_str())
        .collect();
    DIAGNOSED_EXIT_CODES.contains(&report.exit_code)
        && expected_failing
            .iter()
            .all(|t| reported.contains(t.as_str()))
}

/// The rank of the first suspect whose span overlaps a fault (ranks as reported, or list
/// positions from 1 if the report has none).
pub fn suspect_rank(suspects: &[Suspect], faults: &[Mutation]) -> Option<f64> {
    suspects
        .iter()
        .enumerate()
        .map(|(i, s)| (s.rank.unwrap_or((i + 1) as f64), s))
        .filter(|(_, s)| overlaps_fault(&s.file, s.range(), faults))
        .map(|(r, _)| r)
        .min_by(f64::total_cmp)
}

/// The rank of the first suspect overlapping a fault, with suspects of equal `score` tied at
/// their mid rank — the rule [`ochiai_score`] applies, so that the tool and the baseline are
/// compared alike (the report itself breaks ties by source order). Suspects without a score
/// keep their reported rank.
pub fn suspect_mid_rank(suspects: &[Suspect], faults: &[Mutation]) -> Option<f64> {
    let keyed: BTreeMap<u32, f64> = suspects
        .iter()
        .enumerate()
        .filter_map(|(i, s)| Some((i as u32, s.score?)))
        .collect();
    let mids = mid_ranks(&keyed);
    suspects
        .iter()
        .enumerate()
        .filter(|(_, s)| overlaps_fault(&s.file, s.range(), faults))
        .map(|(i, s)| {
            mids.get(&(i as u32))
                .copied()
                .unwrap_or_else(|| s.rank.unwrap_or((i + 1) as f64))
        })
        .min_by(f64::total_cmp)
}

/// EXAM: the fraction of executed sites examined before the fault, `(rank − 1) / executed`;
/// 1.0 when the fault is never ranked (or nothing was executed).
pub fn exam(rank: Option<f64>, executed: usize) -> f64 {
    match rank {
        Some(r) if executed > 0 => ((r - 1.0) / executed as f64).clamp(0.0, 1.0),
        _ => 1.0,
    }
}

/// Whether a spectrum outcome counts as failing (a timeout or crash fails too).
fn failing_outcome(outcome: &str) -> Option<bool> {
    match outcome {
        "passed" => Some(false),
        "failed" | "timeout" | "crashed" | "fuel-exhausted" => Some(true),
        _ => None,
    }
}

/// The sites reached by at least one test.
pub fn executed_sites(coverage: &Coverage) -> BTreeSet<u32> {
    coverage
        .tests
        .iter()
        .flat_map(|t| t.sites.iter().copied())
        .collect()
}

/// Ochiai suspiciousness of every executed site: `ef / sqrt(total_failed * (ef + ep))`.
pub fn ochiai(coverage: &Coverage) -> BTreeMap<u32, f64> {
    let mut ef: BTreeMap<u32, usize> = BTreeMap::new();
    let mut ep: BTreeMap<u32, usize> = BTreeMap::new();
    let mut total_failed = 0usize;
    for t in &coverage.tests {
        let Some(failed) = failing_outcome(&t.outcome) else {
            continue;
        };
        total_failed += failed as usize;
        let counts = if failed { &mut ef } else { &mut ep };
        for &s in t.sites.iter().collect::<BTreeSet<_>>() {
            *counts.entry(s).or_default() += 1;
        }
    }
    executed_sites(coverage)
        .into_iter()
        .map(|s| {
            let f = *ef.get(&s).unwrap_or(&0) as f64;
            let p = *ep.get(&s).unwrap_or(&0) as f64;
            let denom = (total_failed as f64 * (f + p)).sqrt();
            (s, if denom > 0.0 { f / denom } else { 0.0 })
        })
        .collect()
}

/// Ranks of scored items, best first, ties sharing the mid rank (two items tied for first
/// both get 1.5).
pub fn mid_ranks(scores: &BTreeMap<u32, f64>) -> BTreeMap<u32, f64> {
    let mut sorted: Vec<(u32, f64)> = scores.iter().map(|(&k, &v)| (k, v)).collect();
    sorted.sort_by(|a, b| b.1.total_cmp(&a.1));
    let mut ranks = BTreeMap::new();
    let mut i = 0;
    while i < sorted.len() {
        let mut j = i;
        while j + 1 < sorted.len() && sorted[j + 1].1 == sorted[i].1 {
            j += 1;
        }
        // Positions i+1 ..= j+1 share their mean.
        let mid = (i + 1 + j + 1) as f64 / 2.0;
        for item in &sorted[i..=j] {
            ranks.insert(item.0, mid);
        }
        i = j + 1;
    }
    ranks
}

/// The merged ranking redone from the suspects' per-technique evidence, the way the tool
/// merges (each technique adds its weight over the suspect's rank by that technique's
/// score, tied suspects sharing the best rank), leaving out the technique `without`; then
/// the mid rank of the first suspect overlapping a fault. `None` when no suspect overlaps.
pub fn remerged_rank(
    suspects: &[Suspect],
    weights: &BTreeMap<String, f64>,
    without: Option<&str>,
    faults: &[Mutation],
) -> Option<f64> {
    let mut totals: BTreeMap<u32, f64> = BTreeMap::new();
    for (technique, weight) in weights {
        if Some(technique.as_str()) == without {
            continue;
        }
        let scored: Vec<(u32, f64)> = suspects
            .iter()
            .enumerate()
            .filter_map(|(i, s)| {
                let e = s.techniques.iter().find(|e| &e.technique == technique)?;
                Some((i as u32, e.score))
            })
            .collect();
        for &(i, score) in &scored {
            let rank = 1 + scored.iter().filter(|(_, other)| *other > score).count();
            *totals.entry(i).or_default() += weight / rank as f64;
        }
    }
    let mids = mid_ranks(&totals);
    suspects
        .iter()
        .enumerate()
        .filter(|(_, s)| overlaps_fault(&s.file, s.range(), faults))
        .filter_map(|(i, _)| mids.get(&(i as u32)).copied())
        .min_by(f64::total_cmp)
}

/// How the model-based diagnosis did on one version; `None` when the report has no
/// diagnosis account.
pub fn diagnosis_score(report: &Report, faults: &[Mutation]) -> Option<crate::results::Diagnosis> {
    let account = report.localization.diagnosis.as_ref()?;
    let covers = |c: &crate::report::DiagnosedComponent, m: &Mutation| {
        same_file(&c.file, &m.file) && c.range().overlaps(&m.pos_range())
    };
    let fault_in = account.diagnoses.iter().any(|d| {
        d.components
            .iter()
            .any(|c| faults.iter().any(|m| covers(c, m)))
    });
    let pair_in = (faults.len() == 2).then(|| {
        account.diagnoses.iter().any(|d| {
            faults
                .iter()
                .all(|m| d.components.iter().any(|c| covers(c, m)))
        })
    });
    let weights = &report.localization.weights;
    Some(crate::results::Diagnosis {
        ran: account.tests.iter().any(|t| t.skipped.is_none()),
        fault_in,
        pair_in,
        diagnoses: account.diagnoses.len(),
        seconds: account.seconds,
        rank_with: remerged_rank(&report.suspects, weights, None, faults),
        rank_without: remerged_rank(&report.suspects, weights, Some("diagnosis"), faults),
    })
}

/// How path generation did on one version; `None` when the report has no path-generation
/// account. `faulty` is the faulty version's source (the file the faults are in), whose
/// program dependence graph the Renieris–Reiss scores are computed on.
pub fn pathgen_score(
    report: &Report,
    faults: &[Mutation],
    faulty: &str,
) -> Option<crate::results::Pathgen> {
    let account = report.localization.pathgen.as_ref()?;
    let reports: Vec<&crate::report::PathgenFound> = account
        .tests
        .iter()
        .filter_map(|t| t.found.as_ref())
        .collect();
    let fault_in = reports.iter().any(|f| {
        f.distance.iter().any(|b| {
            faults
                .iter()
                .any(|m| same_file(&b.file, &m.file) && m.line <= b.line && b.line <= m.end_line)
        })
    });
    let weights = &report.localization.weights;
    let blamed: Vec<u32> = reports
        .iter()
        .flat_map(|f| f.distance.iter().map(|b| b.line as u32))
        .collect();
    let top: Vec<u32> = report
        .suspects
        .first()
        .map(|s| (s.line as u32..=s.end_line.unwrap_or(s.line).max(s.line) as u32).collect())
        .unwrap_or_default();
    let faulty_lines: Vec<u32> = faults
        .iter()
        .flat_map(|m| m.line as u32..=m.end_line.max(m.line) as u32)
        .collect();
    let pdg = autodebug_symbolic::ir::Program::from_source(faulty, crate::corpus::SOURCE)
        .ok()
        .map(|p| autodebug_symbolic::pathgen::pdg::Pdg::of(&p));
    let rr = |lines: &[u32]| pdg.as_ref().and_then(|g| g.score(lines, &faulty_lines));
    Some(crate::results::Pathgen {
        searched: account.tests.iter().any(|t| t.skipped.is_none()),
        found: !reports.is_empty(),
        distance: reports.iter().map(|f| f.distance.len()).min(),
        fault_in,
        seconds: account.seconds,
        reruns: account
            .tests
            .iter()
            .filter_map(|t| t.search.as_ref())
            .map(|s| s.reruns)
            .sum(),
        rank_with: remerged_rank(&report.suspects, weights, None, faults),
        rank_without: remerged_rank(&report.suspects, weights, Some("pathgen"), faults),
        rr_alone: rr(&blamed),
        rr_merged: if report.suspects.is_empty() {
            rr(&[])
        } else {
            rr(&top)
        },
    })
}

/// The Ochiai baseline on one version.
#[derive(Clone, Debug, PartialEq)]
pub struct SpectrumScore {
    /// Best rank among executed sites overlapping a fault.
    pub rank: Option<f64>,
    pub exam: f64,
    pub executed: usize,
}

/// Ochiai over the spectrum, scored like the tool's suspects.
pub fn ochiai_score(coverage: &Coverage, faults: &[Mutation]) -> SpectrumScore {
    let scores = ochiai(coverage);
    let ranks = mid_ranks(&scores);
    let rank = coverage
        .sites
        .iter()
        .filter(|s| overlaps_fault(&s.path, s.range(), faults))
        .filter_map(|s| ranks.get(&s.id).copied())
        .min_by(f64::total_cmp);
    SpectrumScore {
        rank,
        exam: exam(rank, scores.len()),
        executed: scores.len(),
    }
}

/// The fix to judge: the best-ranked validated one, else the best-ranked one.
pub fn chosen_fix(fixes: &[Fix]) -> Option<&Fix> {
    fixes.iter().find(|f| f.validated).or(fixes.first())
}

/// `text` (the file of `fix`) with every edit of the fix in that file applied, if each
/// one's `original` is where it says and no two overlap.
pub fn apply_fix(text: &str, fix: &Fix) -> Option<String> {
    let first = FixEdit {
        file: fix.file.clone(),
        line: fix.line,
        column: fix.column,
        original: fix.original.clone(),
        replacement: fix.replacement.clone(),
    };
    let edits: Vec<&FixEdit> = if fix.edits.is_empty() {
        vec![&first]
    } else {
        (fix.edits.iter())
            .filter(|e| e.file.is_empty() || fix.file.is_empty() || e.file == fix.file)
            .collect()
    };
    let index = LineIndex::new(text);
    let mut spans = Vec::new();
    for edit in edits {
        let at = index.offset_of(Pos {
            line: edit.line,
            column: edit.column,
        });
        if !text[at..].starts_with(&edit.original) {
            return None;
        }
        spans.push((at, at + edit.original.len(), edit.replacement.as_str()));
    }
    spans.sort_unstable();
    if spans.windows(2).any(|w| w[0].1 > w[1].0) {
        return None;
    }
    let mut out = text.to_string();
    for (start, end, replacement) in spans.into_iter().rev() {
        out.replace_range(start..end, replacement);
    }
    Some(out)
}

/// Equal up to whitespace.
pub fn same_modulo_whitespace(a: &str, b: &str) -> bool {
    a.chars()
        .filter(|c| !c.is_whitespace())
        .eq(b.chars().filter(|c| !c.is_whitespace()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mutate::FaultClass;
    use crate::report::{Site, TestName, TestSpectrum};

    fn fault(line: usize, col: usize, end: usize) -> Mutation {
        Mutation {
            file: "src/lib.rs".into(),
            byte_start: 0,
            byte_end: 1,
            line,
            column: col,
            end_line: line,
            end_column: end,
            original: "<".into(),
            replacement: ">".into(),
            class: FaultClass::RelationalOperator,
        }
    }

    #[test]
    fn the_merge_is_redone_with_and_without_a_technique() {
        use crate::report::Evidence;
        let evidence = |pairs: &[(&str, f64)]| {
            pairs
                .iter()
                .map(|(t, s)| Evidence {
                    technique: t.to_string(),
                    score: *s,
                })
                .collect()
        };
        // Ochiai ranks line 3 first, the diagnosis only line 7 (the fault).
        let mut a = suspect(1.0, 3, 5, 9);
        a.techniques = evidence(&[("ochiai", 0.9)]);
        let mut b = suspect(2.0, 7, 5, 9);
        b.techniques = evidence(&[("ochiai", 0.5), ("diagnosis", 1.0)]);
        let weights: BTreeMap<String, f64> =
            [("ochiai".to_string(), 1.0), ("diagnosis".to_string(), 2.0)].into();
        let faults = [fault(7, 6, 7)];
        let suspects = [a, b];
        assert_eq!(remerged_rank(&suspects, &weights, None, &faults), Some(1.0));
        assert_eq!(
            remerged_rank(&suspects, &weights, Some("diagnosis"), &faults),
            Some(2.0)
        );
    }

    #[test]
    fn path_generation_is_scored_with_its_report_and_the_dependence_graph() {
        use crate::report::{
            Evidence, PathgenAccount, PathgenBranch, PathgenFound, PathgenSearch, PathgenTest,
        };
        let faulty = "fn f(x: i32) -> i32 {\n    let mut r = 0;\n    if x > 3 {\n        r = x;\n    }\n    r\n}\n";
        // The fault is `x > 3` (line 3); path generation blames it, the merge ranks `r = x`.
        let mut top = suspect(1.0, 4, 9, 14);
        top.techniques = vec![Evidence {
            technique: "ochiai".into(),
            score: 1.0,
        }];
        let mut branch = suspect(2.0, 3, 8, 13);
        branch.techniques = vec![
            Evidence {
                technique: "ochiai".into(),
                score: 0.5,
            },
            Evidence {
                technique: "pathgen".into(),
                score: 1.0,
            },
        ];
        let mut report = Report {
            suspects: vec![top, branch],
            ..Report::default()
        };
        report.localization.weights =
            [("ochiai".to_string(), 1.0), ("pathgen".to_string(), 1.0)].into();
        report.localization.pathgen = Some(PathgenAccount {
            tests: vec![PathgenTest {
                test: "t".into(),
                found: Some(PathgenFound {
                    distance: vec![PathgenBranch {
                        file: "src/lib.rs".into(),
                        line: 3,
                        column: 8,
                    }],
                }),
                search: Some(PathgenSearch {
                    candidates: 2,
                    feasible: 1,
                    reruns: 1,
                }),
                ..PathgenTest::default()
            }],
            seconds: 0.5,
        });
        let faults = [fault(3, 8, 13)];
        let p = pathgen_score(&report, &faults, faulty).unwrap();
        assert!(p.searched && p.found && p.fault_in);
        assert_eq!((p.distance, p.reruns), (Some(1), 1));
        // With path generation the branch comes first (½ + 1 against 1).
        assert_eq!(p.rank_with, Some(1.0));
        assert_eq!(p.rank_without, Some(2.0));
        // The report holds the faulty node itself: DS(0) is one of the 6 nodes (entry,
        // `let`, `if`, `r = x`, the return… ); the top suspect is one edge away.
        let alone = p.rr_alone.unwrap();
        let merged = p.rr_merged.unwrap();
        assert!(alone > merged && merged > 0.0, "{alone} {merged}");
        assert!(pathgen_score(&Report::default(), &faults, faulty).is_none());
    }

    fn suspect(rank: f64, line: usize, col: usize, end: usize) -> Suspect {
        Suspect {
            rank: Some(rank),
            file: "src/lib.rs".into(),
            line,
            column: col,
            end_line: Some(line),
            end_column: Some(end),
            ..Suspect::default()
        }
    }

    #[test]
    fn the_first_overlapping_suspect_gives_the_rank() {
        let f = [fault(16, 13, 14)];
        let s = vec![
            suspect(1.0, 14, 17, 18),
            suspect(2.0, 16, 5, 12),  // ends right before the fault
            suspect(3.0, 16, 11, 22), // `i < a.len()` contains it
            suspect(4.0, 16, 13, 14),
        ];
        assert_eq!(suspect_rank(&s, &f), Some(3.0));
        let mut other_file = s.clone();
        other_file[2].file = "src/main.rs".into();
        assert_eq!(suspect_rank(&other_file, &f), Some(4.0));
        assert_eq!(suspect_rank(&s[..2], &f), None);
        // Without ranks, list positions count; a second fault may be found first.
        let unranked: Vec<Suspect> = s
            .iter()
            .cloned()
            .map(|mut x| {
                x.rank = None;
                x
            })
            .collect();
        assert_eq!(
            suspect_rank(&unranked, &[fault(40, 1, 2), fault(14, 17, 18)]),
            Some(1.0)
        );
    }

    #[test]
    fn exam_is_the_fraction_examined_before_the_fault() {
        assert_eq!(exam(Some(1.0), 20), 0.0);
        assert_eq!(exam(Some(6.0), 20), 0.25);
        assert_eq!(exam(None, 20), 1.0);
        assert_eq!(exam(Some(3.0), 0), 1.0);
    }

    fn site(id: u32, line: usize) -> Site {
        Site {
            id,
            path: "src/lib.rs".into(),
            line,
            column: 5,
            end_line: line,
            end_column: 15,
            ..Site::default()
        }
    }

    fn test(name: &str, outcome: &str, sites: &[u32]) -> TestSpectrum {
        TestSpectrum {
            test: TestName {
                name: name.into(),
                ..TestName::default()
            },
            outcome: outcome.into(),
            sites: sites.to_vec(),
        }
    }

    #[test]
    fn tied_suspects_take_the_mid_rank_as_ochiai_does() {
        let mut s = vec![
            suspect(1.0, 10, 1, 5),
            suspect(2.0, 20, 1, 5),
            suspect(3.0, 30, 1, 5),
            suspect(4.0, 40, 1, 5),
        ];
        for (x, score) in s.iter_mut().zip([0.9, 0.5, 0.5, 0.5]) {
            x.score = Some(score);
        }
        // The fault on the third suspect: reported rank 3, tied with ranks 2..=4 → 3.
        assert_eq!(suspect_mid_rank(&s, &[fault(30, 2, 3)]), Some(3.0));
        // On the second: reported 2, mid rank 3.
        assert_eq!(suspect_rank(&s, &[fault(20, 2, 3)]), Some(2.0));
        assert_eq!(suspect_mid_rank(&s, &[fault(20, 2, 3)]), Some(3.0));
        // The untied top suspect keeps rank 1; nothing overlapping: none.
        assert_eq!(suspect_mid_rank(&s, &[fault(10, 2, 3)]), Some(1.0));
        assert_eq!(suspect_mid_rank(&s, &[fault(50, 2, 3)]), None);
    }

    #[test]
    fn ochiai_with_ties_takes_the_mid_rank() {
        // Sites 1, 2 reached by both failing tests and one passing test; site 3 only by
        // the failing ones; site 4 only by passing tests; site 5 never.
        let cov = Coverage {
            sites: (1..=5).map(|i| site(i, 10 * i as usize)).collect(),
            tests: vec![
                test("f1", "failed", &[1, 2, 3]),
                test("f2", "timeout", &[1, 2, 3]),
                test("p1", "passed", &[1, 2, 4]),
                test("p2", "passed", &[4]),
                test("x", "not-run", &[5]),
            ],
        };
        let s = ochiai(&cov);
        // Site 5 was reached (by a test whose outcome is unknown): executed, never suspicious.
        assert_eq!(s.len(), 5);
        assert!((s[&3] - 1.0).abs() < 1e-12);
        assert!((s[&1] - 2.0 / (2.0f64 * 3.0).sqrt()).abs() < 1e-12);
        assert_eq!(s[&4], 0.0);
        let r = mid_ranks(&s);
        assert_eq!(
            (r[&3], r[&1], r[&2], r[&4], r[&5]),
            (1.0, 2.5, 2.5, 4.5, 4.5)
        );
        // A fault on site 2's line ranks 2.5 of 5 executed sites: EXAM = 1.5 / 5.
        let sc = ochiai_score(&cov, &[fault(20, 7, 9)]);
        assert_eq!(sc.rank, Some(2.5));
        assert_eq!(sc.executed, 5);
        assert!((sc.exam - 0.3).abs() < 1e-12);
        let none = ochiai_score(&cov, &[fault(99, 1, 2)]);
        assert_eq!((none.rank, none.exam), (None, 1.0));
    }

    #[test]
    fn detection_needs_every_known_failing_test_and_a_diagnosis_exit() {
        let mut r = Report {
            exit_code: 5,
            ..Report::default()
        };
        r.failing_tests = ["tests::a", "tests::b"]
            .map(|n| crate::report::ReportedTest {
                name: n.into(),
                ..Default::default()
            })
            .to_vec();
        assert!(detected(&r, &["tests::a".into()]));
        assert!(!detected(&r, &["tests::a".into(), "tests::c".into()]));
        r.exit_code = 3;
        assert!(!detected(&r, &["tests::a".into()]));
    }

    #[test]
    fn fixes_apply_at_their_char_column_and_compare_modulo_whitespace() {
        let faulty = "// ü\nfn f(a: i32) -> bool { a >  1 }\n";
        let fix = Fix {
            line: 2,
            column: 26,
            original: ">".into(),
            replacement: "<".into(),
            validated: true,
            ..Fix::default()
        };
        let fixed = apply_fix(faulty, &fix).unwrap();
        assert_eq!(fixed, "// ü\nfn f(a: i32) -> bool { a <  1 }\n");
        assert!(same_modulo_whitespace(
            &fixed,
            "// ü\nfn f(a: i32) -> bool {\n    a < 1\n}\n"
        ));
        assert!(!same_modulo_whitespace(&fixed, faulty));
        let wrong = Fix {
            column: 25,
            ..fix.clone()
        };
        assert_eq!(apply_fix(faulty, &wrong), None);
        let unvalidated = Fix {
            validated: false,
            ..fix.clone()
        };
        assert!(
            chosen_fix(&[unvalidated.clone(), fix.clone()])
                .unwrap()
                .validated
        );
        assert!(!chosen_fix(&[unvalidated]).unwrap().validated);
        assert!(chosen_fix(&[]).is_none());
    }

    #[test]
    fn a_fix_of_two_faults_applies_both_edits() {
        let faulty = "fn f(a: i32) -> bool {\n    a > 1 || a == 7\n}\n";
        let edit = |column: usize, original: &str, replacement: &str| FixEdit {
            file: "src/lib.rs".into(),
            line: 2,
            column,
            original: original.into(),
            replacement: replacement.into(),
        };
        let fix = Fix {
            file: "src/lib.rs".into(),
            line: 2,
            column: 5,
            original: "a > 1".into(),
            replacement: "a < 1".into(),
            edits: vec![edit(5, "a > 1", "a < 1"), edit(14, "a == 7", "a == 8")],
            ..Fix::default()
        };
        assert_eq!(
            apply_fix(faulty, &fix).unwrap(),
            "fn f(a: i32) -> bool {\n    a < 1 || a == 8\n}\n"
        );
        // One edit not where it says: the fix does not apply.
        let mut stale = fix.clone();
        stale.edits[1].column = 13;
        assert_eq!(apply_fix(faulty, &stale), None);
        // Two edits of the same bytes do not both apply.
        let mut overlapping = fix;
        overlapping.edits[1] = edit(5, "a > 1 || a", "b");
        assert_eq!(apply_fix(faulty, &overlapping), None);
    }
}
