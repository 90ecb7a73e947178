//! Results: one row per faulty version, aggregated per fault class and overall, and
//! rendered as the Markdown tables of `results.md` and book/src/results.md.

use serde::{Deserialize, Serialize};

use crate::mutate::FaultClass;

/// What happened on one faulty version.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct VersionResult {
    pub id: String,
    pub program: String,
    pub classes: Vec<FaultClass>,
    /// The tool's exit code (`None` if it was killed at the version time limit).
    pub exit_code: Option<i32>,
    pub tool_timed_out: bool,
    pub detected: bool,
    /// Known failing tests the report did not list.
    pub missed_tests: Vec<String>,
    /// Rank of the first suspect overlapping a fault.
    pub rank: Option<f64>,
    /// The same, with suspects of equal score tied at their mid rank (Ochiai's tie rule).
    #[serde(default)]
    pub mid_rank: Option<f64>,
    pub exam: f64,
    pub executed_sites: usize,
    /// Ochiai over the tool's own coverage.json.
    pub ochiai_rank: Option<f64>,
    pub ochiai_exam: f64,
    pub fixes: usize,
    pub validated_fixes: usize,
    pub fix_found: bool,
    pub fix_validated: bool,
    pub fix_correct: bool,
    /// `text` (equal to the correct program modulo whitespace) or `hidden-tests`.
    pub correct_by: Option<String>,
    pub repair_s: f64,
    pub tool_total_s: f64,
    /// Wall time of the whole tool run.
    pub wall_s: f64,
    /// Why scoring was incomplete (no report, unreadable coverage, …).
    pub error: Option<String>,
    /// Predicate switching per ordering searched.
    #[serde(default)]
    pub switching: Vec<Switching>,
    /// Model-based diagnosis, when the tool ran it.
    #[serde(default)]
    pub diagnosis: Option<Diagnosis>,
    /// Path generation, when the tool ran it.
    #[serde(default)]
    pub pathgen: Option<Pathgen>,
    /// The repair stage's account, when it ran.
    #[serde(default)]
    pub repair: Option<crate::report::RepairAccount>,
}

/// How model-based diagnosis did on one version.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Diagnosis {
    /// Some failing test was diagnosed (its failing call is inside the modelled subset).
    pub ran: bool,
    /// A component of some minimal diagnosis overlaps a true fault.
    pub fault_in: bool,
    /// Two-fault versions: one diagnosis covers both faults.
    pub pair_in: Option<bool>,
    /// Minimal diagnoses of the whole failure.
    pub diagnoses: usize,
    /// Time of the diagnosis step.
    pub seconds: f64,
    /// Mid rank of the fault in the merged ranking redone with every technique, and without
    /// the diagnosis.
    pub rank_with: Option<f64>,
    pub rank_without: Option<f64>,
}

/// How path generation did on one version.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Pathgen {
    /// Some failing test was searched (its call could be driven and modelled).
    pub searched: bool,
    /// Some failing test got a feasible successful run (rerun and taken).
    pub found: bool,
    /// The shortest distance found (branch instances), when one was.
    pub distance: Option<usize>,
    /// A branch of a report overlaps a true fault.
    pub fault_in: bool,
    /// Time of the step, and reruns over the version's failing tests.
    pub seconds: f64,
    pub reruns: usize,
    /// Mid rank of the fault in the merged ranking redone with every technique, and
    /// without path generation.
    pub rank_with: Option<f64>,
    pub rank_without: Option<f64>,
    /// The Renieris–Reiss score of path generation's report (the branches of every
    /// successful run found; 0 for an empty report) and of the merged ranking's top suspect.
    /// `None` when the fault is outside the dependence graph.
    pub rr_alone: Option<f64>,
    pub rr_merged: Option<f64>,
}

/// How predicate switching did on one version with one ordering.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Switching {
    /// `PRIOR` or `LEFS`.
    pub ordering: String,
    /// Some failing test of the version got a critical predicate (criterion pass or progress).
    pub found: bool,
    /// Reruns to the first critical predicate (fewest over the version's failing tests).
    pub reruns: Option<usize>,
}

/// Per ordering, a version's searches in one line: found if any of its failing tests found
/// a critical predicate, with the fewest reruns among those that did.
pub fn switching_of(searches: &[crate::report::Search]) -> Vec<Switching> {
    let mut orderings: Vec<&str> = searches.iter().map(|s| s.ordering.as_str()).collect();
    orderings.sort();
    orderings.dedup();
    orderings
        .into_iter()
        .map(|ordering| {
            let found = searches
                .iter()
                .filter(|s| s.ordering == ordering && s.criterion != "none");
            let reruns = found.clone().map(|s| s.reruns).min();
            Switching {
                ordering: ordering.to_string(),
                found: reruns.is_some(),
                reruns,
            }
        })
        .collect()
}

/// The predicate-switching table: per ordering, the share of versions searched where a
/// critical predicate was found and the median reruns it took.
pub fn render_switching(results: &[VersionResult]) -> String {
    let mut out = String::from(
        "| ordering | versions searched | critical predicate found | median reruns to it |\n|---|---:|---:|---:|\n",
    );
    for ordering in ["PRIOR", "LEFS"] {
        let searched: Vec<&Switching> = results
            .iter()
            .flat_map(|r| r.switching.iter())
            .filter(|s| s.ordering == ordering)
            .collect();
        if searched.is_empty() {
            out.push_str(&format!("| {ordering} | 0 | — | — |\n"));
            continue;
        }
        let found: Vec<f64> = searched
            .iter()
            .filter_map(|s| s.reruns.map(|n| n as f64))
            .collect();
        let share = 100.0 * found.len() as f64 / searched.len() as f64;
        let median = if found.is_empty() {
            "—".to_string()
        } else {
            format!("{}", median(found))
        };
        out.push_str(&format!(
            "| {ordering} | {} | {share:.0}% | {median} |\n",
            searched.len()
        ));
    }
    out
}

/// The merged ranking against Ochiai alone with one tie rule for both (ties at their mid
/// rank), overall and per fault class: top-1 and top-5 and the top-1 difference.
pub fn render_tie_rule(results: &[VersionResult]) -> String {
    let mut out = String::from(
        "| fault class | versions | merged top-1 | Ochiai top-1 | top-1 difference | merged top-5 | Ochiai top-5 |\n\
         |---|---:|---:|---:|---:|---:|---:|\n",
    );
    let groups = class_groups(results);
    for (label, rows) in groups.iter().filter(|(_, rows)| !rows.is_empty()) {
        let top1 = pct(rows, |r| within(r.mid_rank, 1.0));
        let ochiai1 = pct(rows, |r| within(r.ochiai_rank, 1.0));
        out.push_str(&format!(
            "| {label} | {} | {top1:.0}% | {ochiai1:.0}% | {:+.0} points | {:.0}% | {:.0}% |\n",
            rows.len(),
            top1 - ochiai1,
            pct(rows, |r| within(r.mid_rank, 5.0)),
            pct(rows, |r| within(r.ochiai_rank, 5.0)),
        ));
    }
    out
}

/// Model-based diagnosis: where it ran, whether the true fault is in a minimal diagnosis,
/// the merged ranking with and without it (both redone from the report's evidence with
/// ties at their mid rank), and its time.
pub fn render_diagnosis(results: &[VersionResult]) -> String {
    let mut out = String::from(
        "| fault class | versions | diagnosed | fault in a minimal diagnosis (of diagnosed) | top-1 with | top-1 without | top-5 with | top-5 without | median time |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    let groups = class_groups(results);
    for (label, rows) in groups.iter().filter(|(_, rows)| !rows.is_empty()) {
        let ran: Vec<&VersionResult> = rows
            .iter()
            .copied()
            .filter(|r| r.diagnosis.as_ref().is_some_and(|d| d.ran))
            .collect();
        let with = |k: f64| {
            pct(rows, |r| {
                within(r.diagnosis.as_ref().and_then(|d| d.rank_with), k)
            })
        };
        let without = |k: f64| {
            pct(rows, |r| {
                within(r.diagnosis.as_ref().and_then(|d| d.rank_without), k)
            })
        };
        let seconds: Vec<f64> = ran
            .iter()
            .filter_map(|r| r.diagnosis.as_ref().map(|d| d.seconds))
            .collect();
        out.push_str(&format!(
            "| {label} | {} | {} ({:.0}%) | {:.0}% | {:.0}% | {:.0}% | {:.0}% | {:.0}% | {:.2} s |\n",
            rows.len(),
            ran.len(),
            100.0 * ran.len() as f64 / rows.len() as f64,
            pct(&ran, |r| r.diagnosis.as_ref().is_some_and(|d| d.fault_in)),
            with(1.0),
            without(1.0),
            with(5.0),
            without(5.0),
            median(seconds),
        ));
    }
    let pairs: Vec<&VersionResult> = results
        .iter()
        .filter(|r| {
            r.diagnosis
                .as_ref()
                .is_some_and(|d| d.ran && d.pair_in.is_some())
        })
        .collect();
    out.push_str(&format!(
        "\nTwo-fault versions diagnosed: {}; the true pair is a diagnosis in {:.0}% of them.\n",
        pairs.len(),
        pct(&pairs, |r| r.diagnosis.as_ref().and_then(|d| d.pair_in)
            == Some(true)),
    ));
    out
}

/// Path generation per fault class: versions searched, with a feasible successful run
/// found, the median distance and time, the merged ranking with and without it, and the
/// mean Renieris–Reiss score of its report (over the versions where it found a run) and of
/// the merged ranking's top suspect.
pub fn render_pathgen(results: &[VersionResult]) -> String {
    let mut out = String::from(
        "| fault class | versions | searched | run found (of searched) | fault in its report (of found) | median distance | median time | top-1 with | top-1 without | top-5 with | top-5 without | RR alone (of found) | RR merged top-1 |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for (label, rows) in class_groups(results) {
        if rows.is_empty() {
            continue;
        }
        let pg = |r: &VersionResult| r.pathgen.clone().unwrap_or_default();
        let searched: Vec<&VersionResult> =
            rows.iter().copied().filter(|r| pg(r).searched).collect();
        let found: Vec<&VersionResult> = searched.iter().copied().filter(|r| pg(r).found).collect();
        let with = |k: f64| pct(&rows, |r| within(pg(r).rank_with, k));
        let without = |k: f64| pct(&rows, |r| within(pg(r).rank_without, k));
        let mean = |v: Vec<f64>| {
            if v.is_empty() {
                "—".to_string()
            } else {
                format!("{:.2}", v.iter().sum::<f64>() / v.len() as f64)
            }
        };
        out.push_str(&format!(
            "| {label} | {} | {} | {} ({:.0}%) | {:.0}% | {} | {:.2} s | {:.0}% | {:.0}% | {:.0}% | {:.0}% | {} | {} |\n",
            rows.len(),
            searched.len(),
            found.len(),
            pct(&searched, |r| pg(r).found),
            pct(&found, |r| pg(r).fault_in),
            if found.is_empty() {
                "—".to_string()
            } else {
                format!(
                    "{}",
                    median(found.iter().filter_map(|r| pg(r).distance.map(|d| d as f64)).collect())
                )
            },
            median(searched.iter().map(|r| pg(r).seconds).collect()),
            with(1.0),
            without(1.0),
            with(5.0),
            without(5.0),
            mean(found.iter().filter_map(|r| pg(r).rr_alone).collect()),
            mean(rows.iter().filter_map(|r| pg(r).rr_merged).collect()),
        ));
    }
    out
}

/// The distribution of Renieris–Reiss scores, in the bins of the paper's Table 4: path
/// generation's report over the versions where it found a run, and the merged ranking's
/// top suspect over every version with a score.
pub fn render_rr(results: &[VersionResult]) -> String {
    let alone: Vec<f64> = results
        .iter()
        .filter_map(|r| {
            r.pathgen
                .as_ref()
                .filter(|p| p.found)
                .and_then(|p| p.rr_alone)
        })
        .collect();
    let merged: Vec<f64> = results
        .iter()
        .filter_map(|r| r.pathgen.as_ref().and_then(|p| p.rr_merged))
        .collect();
    let share = |v: &[f64], lo: f64, hi: f64| {
        if v.is_empty() {
            return 0.0;
        }
        100.0 * v.iter().filter(|&&x| x >= lo && x < hi).count() as f64 / v.len() as f64
    };
    let mut out = format!(
        "| score | path generation alone ({} versions) | merged top-1 ({} versions) |\n|---|---:|---:|\n",
        alone.len(),
        merged.len()
    );
    out.push_str(&format!(
        "| 100% | {:.1} | {:.1} |\n",
        share(&alone, 1.0, f64::INFINITY),
        share(&merged, 1.0, f64::INFINITY)
    ));
    for lo in (0..10).rev() {
        let (a, b) = (lo as f64 / 10.0, (lo + 1) as f64 / 10.0);
        out.push_str(&format!(
            "| {}-{}% | {:.1} | {:.1} |\n",
            lo * 10,
            lo * 10 + 9,
            share(&alone, a, b),
            share(&merged, a, b)
        ));
    }
    out
}

/// Repair per fault class: validated and correct fixes, the median time of the repair stage,
/// and candidate checks per second by rerun (the runtime evaluates the candidate at the
/// site's hook) against rebuild (the patched copy compiled and its suite run), each pooled
/// over the class's versions: candidates checked over the seconds spent checking them.
pub fn render_repair(results: &[VersionResult]) -> String {
    let mut out = String::from(
        "| fault class | versions | repaired | validated fix | correct fix | median repair time | candidates (rerun / rebuilt) | rerun checks/s | rebuilds/s | ratio |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for (label, rows) in class_groups(results) {
        if rows.is_empty() {
            continue;
        }
        let ran: Vec<&VersionResult> = rows
            .iter()
            .copied()
            .filter(|r| r.repair.is_some())
            .collect();
        let sum = |f: &dyn Fn(&crate::report::RepairAccount) -> f64| -> f64 {
            ran.iter().filter_map(|r| r.repair.as_ref()).map(f).sum()
        };
        let checked = sum(&|a| a.runtime_checked as f64);
        let runtime_s = sum(&|a| a.runtime_s);
        let rebuilds = sum(&|a| a.rebuilds as f64);
        let rebuild_s = sum(&|a| a.rebuild_s);
        let rate = |n: f64, s: f64| (n > 0.0 && s > 0.0).then(|| n / s);
        let rerun = rate(checked, runtime_s);
        let rebuild = rate(rebuilds, rebuild_s);
        let show = |x: Option<f64>| x.map_or("—".to_string(), |x| format!("{x:.1}"));
        let ratio = match (rerun, rebuild) {
            (Some(a), Some(b)) => format!("{:.0}×", a / b),
            _ => "—".to_string(),
        };
        let times: Vec<f64> = ran.iter().map(|r| r.repair_s).collect();
        out.push_str(&format!(
            "| {label} | {} | {} | {:.0}% | {:.0}% | {} | {checked:.0} / {rebuilds:.0} | {} | {} | {ratio} |\n",
            rows.len(),
            ran.len(),
            pct(&rows, |r| r.fix_validated),
            pct(&rows, |r| r.fix_correct),
            if times.is_empty() { "—".to_string() } else { format!("{:.1} s", median(times)) },
            show(rerun),
            show(rebuild),
        ));
    }
    let accounts: Vec<&crate::report::RepairAccount> =
        results.iter().filter_map(|r| r.repair.as_ref()).collect();
    let runs: usize = accounts.iter().map(|a| a.runtime_runs).sum();
    let processes: usize = accounts.iter().map(|a| a.runtime_processes).sum();
    if runs > 0 && processes > 0 {
        out.push_str(&format!(
            "\nThe reruns ran tests {runs} times in {processes} test processes ({:.1} runs per \
             process: a process runs a test under a batch of candidates).\n",
            runs as f64 / processes as f64
        ));
    }
    out
}

/// The versions per single fault class, the two-fault ones, then all of them.
fn class_groups(results: &[VersionResult]) -> Vec<(String, Vec<&VersionResult>)> {
    let mut groups: Vec<(String, Vec<&VersionResult>)> = FaultClass::ALL
        .iter()
        .map(|c| {
            let rows = results.iter().filter(|r| r.classes == [*c]).collect();
            (c.name().to_string(), rows)
        })
        .collect();
    groups.push((
        "two faults".into(),
        results.iter().filter(|r| r.classes.len() > 1).collect(),
    ));
    groups.push(("**overall**".into(), results.iter().collect()));
    groups
}

/// Aggregated figures of a set of versions.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Row {
    pub label: String,
    pub versions: usize,
    pub detected: f64,
    pub top1: f64,
    pub top3: f64,
    pub top5: f64,
    pub mean_exam: f64,
    pub ochiai_top1: f64,
    pub ochiai_top5: f64,
    pub ochiai_mean_exam: f64,
    pub fix_found: f64,
    pub fix_validated: f64,
    pub fix_correct: f64,
    pub median_wall_s: f64,
    /// Each technique's own figure, so that one switched off or broken shows even when the
    /// merged ranking holds: versions where predicate switching found a critical predicate
    /// (some ordering), a minimal diagnosis held a fault, path generation found a successful
    /// run, and the reruns found a candidate plausible.
    #[serde(default)]
    pub switching_found: f64,
    #[serde(default)]
    pub diagnosis_fault: f64,
    #[serde(default)]
    pub pathgen_found: f64,
    #[serde(default)]
    pub rerun_plausible: f64,
}

/// The figures of `row` below their floors in the JSON file `floors` (`{"top5": 75, …}`:
/// a row's field name and the least it may be; keys starting with `_` are comments; a
/// median time is a ceiling, the rest are floors), each as `top5 66.7 < 75`.
pub fn below_floors(row: &Row, floors: &std::path::Path) -> anyhow::Result<Vec<String>> {
    use anyhow::Context;
    let text = std::fs::read_to_string(floors)
        .with_context(|| format!("cannot read the floors file {}", floors.display()))?;
    let wanted: serde_json::Map<String, serde_json::Value> = serde_json::from_str(&text)
        .with_context(|| format!("malformed floors file {}", floors.display()))?;
    let figures = serde_json::to_value(row)?;
    let mut below = Vec::new();
    for (key, bound) in wanted.iter().filter(|(k, _)| !k.starts_with('_')) {
        let bound = bound
            .as_f64()
            .with_context(|| format!("{}: `{key}` is not a number", floors.display()))?;
        let value = figures
            .get(key)
            .and_then(serde_json::Value::as_f64)
            .with_context(|| format!("{}: no figure `{key}` in a row", floors.display()))?;
        let ceiling = key.ends_with("_s");
        if (ceiling && value > bound) || (!ceiling && value < bound) {
            let relation = if ceiling { ">" } else { "<" };
            below.push(format!("{key} {value:.1} {relation} {bound}"));
        }
    }
    Ok(below)
}

fn pct(rows: &[&VersionResult], f: impl Fn(&VersionResult) -> bool) -> f64 {
    if rows.is_empty() {
        return 0.0;
    }
    100.0 * rows.iter().filter(|r| f(r)).count() as f64 / rows.len() as f64
}

fn mean(v: impl Iterator<Item = f64>) -> f64 {
    let v: Vec<f64> = v.collect();
    if v.is_empty() {
        0.0
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

/// The median (mean of the middle two for an even count; 0 for none).
pub fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn within(rank: Option<f64>, k: f64) -> bool {
    rank.is_some_and(|r| r <= k)
}

/// Aggregates `rows` under `label`.
pub fn row(label: &str, rows: &[&VersionResult]) -> Row {
    Row {
        label: label.to_string(),
        versions: rows.len(),
        detected: pct(rows, |r| r.detected),
        top1: pct(rows, |r| within(r.rank, 1.0)),
        top3: pct(rows, |r| within(r.rank, 3.0)),
        top5: pct(rows, |r| within(r.rank, 5.0)),
        mean_exam: mean(rows.iter().map(|r| r.exam)),
        ochiai_top1: pct(rows, |r| within(r.ochiai_rank, 1.0)),
        ochiai_top5: pct(rows, |r| within(r.ochiai_rank, 5.0)),
        ochiai_mean_exam: mean(rows.iter().map(|r| r.ochiai_exam)),
        fix_found: pct(rows, |r| r.fix_found),
        fix_validated: pct(rows, |r| r.fix_validated),
        fix_correct: pct(rows, |r| r.fix_correct),
        median_wall_s: median(rows.iter().map(|r| r.wall_s).collect()),
        switching_found: pct(rows, |r| r.switching.iter().any(|s| s.found)),
        diagnosis_fault: pct(rows, |r| r.diagnosis.as_ref().is_some_and(|d| d.fault_in)),
        pathgen_found: pct(rows, |r| r.pathgen.as_ref().is_some_and(|p| p.found)),
        rerun_plausible: pct(rows, |r| r.repair.as_ref().is_some_and(|a| a.plausible > 0)),
    }
}

/// One row per fault class (single-fault versions), one for two-fault versions, one overall.
pub fn aggregate(results: &[VersionResult]) -> Vec<Row> {
    let mut out = Vec::new();
    for class in FaultClass::ALL {
        let rows: Vec<&VersionResult> = results.iter().filter(|r| r.classes == [class]).collect();
        if !rows.is_empty() {
            out.push(row(class.name(), &rows));
        }
    }
    let multi: Vec<&VersionResult> = results.iter().filter(|r| r.classes.len() > 1).collect();
    if !multi.is_empty() {
        out.push(row("two faults", &multi));
    }
    out.push(row("**overall**", &results.iter().collect::<Vec<_>>()));
    out
}

/// The main table: per class and overall.
pub fn render_table(rows: &[Row]) -> String {
    let mut s = String::from(
        "| fault class | versions | detected | top-1 | top-3 | top-5 | mean EXAM | Ochiai top-1 | Ochiai top-5 | Ochiai EXAM | fix found | validated | correct | median time |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for r in rows {
        s.push_str(&format!(
            "| {} | {} | {:.0}% | {:.0}% | {:.0}% | {:.0}% | {:.3} | {:.0}% | {:.0}% | {:.3} | {:.0}% | {:.0}% | {:.0}% | {:.1} s |\n",
            r.label,
            r.versions,
            r.detected,
            r.top1,
            r.top3,
            r.top5,
            r.mean_exam,
            r.ochiai_top1,
            r.ochiai_top5,
            r.ochiai_mean_exam,
            r.fix_found,
            r.fix_validated,
            r.fix_correct,
            r.median_wall_s
        ));
    }
    s
}

/// The brute-force repair baseline on one version.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct BruteForce {
    pub id: String,
    /// Single mutations enumerated on the faulty program.
    pub enumerated: usize,
    /// Tried (the cap).
    pub candidates: usize,
    pub compiled: usize,
    /// The visible suite passed.
    pub validated: usize,
    /// Validated and correct (the original text, or the hidden tests pass too).
    pub correct: usize,
    pub hung: usize,
    /// Every candidate's build and test run. Not counted: the baseline build (it compiles
    /// the dependencies, which the tool's runs find warm) and the hidden-test checks of
    /// validated candidates (a mutation tool does not run them).
    pub seconds: f64,
}

impl BruteForce {
    /// Seconds per validated candidate, if any was validated.
    pub fn per_validated(&self) -> Option<f64> {
        (self.validated > 0).then(|| self.seconds / self.validated as f64)
    }
}

/// The tool's own cost of a validated fix over a set of versions: repair seconds per
/// validated fix, `None` if it validated none.
pub fn tool_per_validated(results: &[&VersionResult]) -> Option<f64> {
    let fixes: usize = results.iter().map(|r| r.validated_fixes).sum();
    let secs: f64 = results.iter().map(|r| r.repair_s).sum();
    (fixes > 0).then(|| secs / fixes as f64)
}

/// The brute-force table, with the tool's time per validated fix on the same versions and
/// the ratio (or why there is none).
pub fn render_brute_force(brute: &[BruteForce], tool: &[&VersionResult]) -> String {
    let mut s = String::from(
        "| version | mutations | tried | compiled | validated | correct | hung | time | brute force s / validated | ours s / validated fix | ratio |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    let fmt = |v: Option<f64>| v.map_or("n/a".to_string(), |x| format!("{x:.1}"));
    for b in brute {
        let ours: Vec<&VersionResult> = tool.iter().copied().filter(|r| r.id == b.id).collect();
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {:.0} s | {} | {} | {} |\n",
            b.id,
            b.enumerated,
            b.candidates,
            b.compiled,
            b.validated,
            b.correct,
            b.hung,
            b.seconds,
            b.per_validated()
                .map_or("n/a — none validated".to_string(), |x| format!("{x:.1}")),
            tool_per_validated(&ours)
                .map_or("n/a — no fix produced".to_string(), |x| format!("{x:.1}")),
            ratio(b.per_validated(), tool_per_validated(&ours)),
        ));
    }
    let total = BruteForce {
        id: "**all sampled**".into(),
        enumerated: brute.iter().map(|b| b.enumerated).sum(),
        candidates: brute.iter().map(|b| b.candidates).sum(),
        compiled: brute.iter().map(|b| b.compiled).sum(),
        validated: brute.iter().map(|b| b.validated).sum(),
        correct: brute.iter().map(|b| b.correct).sum(),
        hung: brute.iter().map(|b| b.hung).sum(),
        seconds: brute.iter().map(|b| b.seconds).sum(),
    };
    if brute.len() > 1 {
        let ours: Vec<&VersionResult> = tool
            .iter()
            .copied()
            .filter(|r| brute.iter().any(|b| b.id == r.id))
            .collect();
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {:.0} s | {} | {} | {} |\n",
            total.id,
            total.enumerated,
            total.candidates,
            total.compiled,
            total.validated,
            total.correct,
            total.hung,
            total.seconds,
            fmt(total.per_validated()),
            tool_per_validated(&ours)
                .map_or("n/a — no fix produced".to_string(), |x| format!("{x:.1}")),
            ratio(total.per_validated(), tool_per_validated(&ours)),
        ));
    }
    s
}

/// Brute force over ours, "n/a" when either side has no validated fix.
fn ratio(brute: Option<f64>, ours: Option<f64>) -> String {
    match (brute, ours) {
        (Some(b), Some(o)) if o > 0.0 => format!("{:.1}×", b / o),
        _ => "n/a".to_string(),
    }
}

/// Replaces the text between the markers (exclusive) in `readme`; `None` if they are
/// missing.
pub fn replace_block(readme: &str, begin: &str, end: &str, body: &str) -> Option<String> {
    let b = readme.find(begin)? + begin.len();
    let e = b + readme[b..].find(end)?;
    Some(format!("{}\n{}{}", &readme[..b], body, &readme[e..]))
}

#[cfg(test)]
mod tests {
    #[test]
    fn floors_fail_a_drop_and_ceilings_a_rise() {
        let dir = tempfile::tempdir().unwrap();
        let floors = dir.path().join("floors.json");
        std::fs::write(
            &floors,
            r#"{"_why": "the quick run", "top5": 75, "detected": 100, "median_wall_s": 20}"#,
        )
        .unwrap();
        let mut row = Row {
            top5: 75.0,
            detected: 100.0,
            median_wall_s: 12.0,
            ..Row::default()
        };
        assert!(below_floors(&row, &floors).unwrap().is_empty());
        row.top5 = 66.7;
        row.median_wall_s = 25.0;
        assert_eq!(
            below_floors(&row, &floors).unwrap(),
            ["median_wall_s 25.0 > 20", "top5 66.7 < 75"]
        );
        std::fs::write(&floors, r#"{"top6": 1}"#).unwrap();
        assert!(below_floors(&row, &floors).is_err());
    }

    use super::*;

    #[test]
    fn each_technique_s_figure_drops_when_it_finds_nothing() {
        let mut on = v("a", &[FaultClass::RelationalOperator], Some(1.0), 1.0);
        on.switching = vec![Switching {
            ordering: "PRIOR".into(),
            found: true,
            reruns: Some(3),
        }];
        on.diagnosis = Some(Diagnosis {
            ran: true,
            fault_in: true,
            ..Diagnosis::default()
        });
        on.pathgen = Some(Pathgen {
            searched: true,
            found: true,
            ..Pathgen::default()
        });
        on.repair = Some(crate::report::RepairAccount {
            plausible: 1,
            ..Default::default()
        });
        let off = v("b", &[FaultClass::RelationalOperator], Some(1.0), 1.0);
        let both = row("all", &[&on, &off]);
        let figures = [
            both.switching_found,
            both.diagnosis_fault,
            both.pathgen_found,
            both.rerun_plausible,
        ];
        assert_eq!(figures, [50.0; 4]);
        let dir = tempfile::tempdir().unwrap();
        let floors = dir.path().join("floors.json");
        std::fs::write(
            &floors,
            r#"{"switching_found": 50, "diagnosis_fault": 50, "pathgen_found": 50, "rerun_plausible": 50}"#,
        )
        .unwrap();
        assert!(below_floors(&both, &floors).unwrap().is_empty());
        assert_eq!(
            below_floors(&row("off", &[&off]), &floors).unwrap().len(),
            4
        );
    }

    fn v(id: &str, classes: &[FaultClass], rank: Option<f64>, wall: f64) -> VersionResult {
        VersionResult {
            id: id.into(),
            program: "p".into(),
            classes: classes.to_vec(),
            detected: true,
            rank,
            exam: crate::score::exam(rank, 10),
            ochiai_rank: Some(2.0),
            ochiai_exam: 0.1,
            wall_s: wall,
            ..VersionResult::default()
        }
    }

    #[test]
    fn repair_table_pools_rates_per_class() {
        let account = |checked, runtime_s, rebuilds, rebuild_s| crate::report::RepairAccount {
            runtime_checked: checked,
            runtime_s,
            rebuilds,
            rebuild_s,
            ..Default::default()
        };
        let mut a = v("a", &[FaultClass::Constant], Some(1.0), 1.0);
        a.repair = Some(account(30, 0.1, 2, 1.0));
        a.repair_s = 2.0;
        a.fix_validated = true;
        a.fix_correct = true;
        let mut b = v("b", &[FaultClass::Constant], Some(1.0), 1.0);
        b.repair = Some(account(10, 0.1, 2, 3.0));
        b.repair_s = 4.0;
        b.fix_validated = true;
        // The stage did not run here: it counts in the rates of fixes, not in the times.
        let c = v("c", &[FaultClass::Constant], None, 1.0);
        let table = render_repair(&[a, b, c]);
        let line = table.lines().find(|l| l.starts_with("| constant")).unwrap();
        // 40 checks in 0.2 s = 200/s; 4 rebuilds in 4 s = 1/s.
        assert_eq!(
            line,
            "| constant | 3 | 2 | 67% | 33% | 3.0 s | 40 / 4 | 200.0 | 1.0 | 200× |"
        );
        // A class without rebuilds has no ratio.
        let mut d = v("d", &[FaultClass::Variable], Some(1.0), 1.0);
        d.repair = Some(account(5, 0.5, 0, 0.0));
        let table = render_repair(&[d]);
        let line = table.lines().find(|l| l.starts_with("| variable")).unwrap();
        assert!(line.ends_with("| 10.0 | — | — |"), "{line}");
        assert!(!table.contains("runs per process"), "{table}");
        // Runs pooled over processes, when the reports count them.
        let mut e = v("e", &[FaultClass::Variable], Some(1.0), 1.0);
        e.repair = Some(crate::report::RepairAccount {
            runtime_runs: 30,
            runtime_processes: 4,
            ..account(5, 0.5, 0, 0.0)
        });
        let table = render_repair(&[e]);
        assert!(
            table.contains("tests 30 times in 4 test processes (7.5 runs per process"),
            "{table}"
        );
    }

    #[test]
    fn path_generation_tables() {
        let pathgen = |found: bool, distance, rr_alone, rr_merged| Pathgen {
            searched: true,
            found,
            distance,
            fault_in: found,
            seconds: 2.0,
            reruns: 1,
            rank_with: Some(1.0),
            rank_without: Some(3.0),
            rr_alone,
            rr_merged,
        };
        let mut a = v("a", &[FaultClass::Negation], Some(1.0), 1.0);
        a.pathgen = Some(pathgen(true, Some(1), Some(0.95), Some(0.9)));
        let mut b = v("b", &[FaultClass::Negation], Some(1.0), 1.0);
        b.pathgen = Some(pathgen(true, Some(3), Some(0.55), Some(0.35)));
        let mut c = v("c", &[FaultClass::Negation], Some(1.0), 1.0);
        c.pathgen = Some(pathgen(false, None, Some(0.0), Some(0.8)));
        // Not searched at all (no path-generation account).
        let d = v("d", &[FaultClass::Negation], Some(1.0), 1.0);
        let rows = [a, b, c, d];
        let table = render_pathgen(&rows);
        let line = table.lines().find(|l| l.starts_with("| negation")).unwrap();
        assert_eq!(
            line,
            "| negation | 4 | 3 | 2 (67%) | 100% | 2 | 2.00 s | 75% | 0% | 75% | 75% | 0.75 | 0.68 |"
        );
        let rr = render_rr(&rows);
        assert!(
            rr.contains("(2 versions) | merged top-1 (3 versions)"),
            "{rr}"
        );
        assert!(rr.contains("| 90-99% | 50.0 | 33.3 |"), "{rr}");
        assert!(rr.contains("| 50-59% | 50.0 | 0.0 |"), "{rr}");
        assert!(rr.contains("| 30-39% | 0.0 | 33.3 |"), "{rr}");
    }

    #[test]
    fn aggregation_per_class_two_faults_and_overall() {
        use FaultClass::*;
        let mut rs = vec![
            v("a", &[Constant], Some(1.0), 10.0),
            v("b", &[Constant], Some(4.0), 20.0),
            v("c", &[Negation], None, 30.0),
            v("d", &[Constant, Negation], Some(2.5), 40.0),
        ];
        rs[1].detected = false;
        rs[0].fix_found = true;
        rs[0].fix_validated = true;
        let rows = aggregate(&rs);
        let labels: Vec<&str> = rows.iter().map(|r| r.label.as_str()).collect();
        assert_eq!(
            labels,
            ["negation", "constant", "two faults", "**overall**"]
        );
        let constant = &rows[1];
        assert_eq!(constant.versions, 2);
        assert_eq!(
            (
                constant.detected,
                constant.top1,
                constant.top3,
                constant.top5
            ),
            (50.0, 50.0, 50.0, 100.0)
        );
        assert!((constant.mean_exam - 0.15).abs() < 1e-12);
        assert_eq!(constant.median_wall_s, 15.0);
        assert_eq!(constant.fix_validated, 50.0);
        let overall = &rows[3];
        assert_eq!(overall.versions, 4);
        assert_eq!(overall.top3, 50.0);
        assert_eq!(overall.top5, 75.0);
        assert!((overall.mean_exam - (0.0 + 0.3 + 1.0 + 0.15) / 4.0).abs() < 1e-12);
        assert_eq!(overall.ochiai_top1, 0.0);
        assert_eq!(overall.ochiai_top5, 100.0);
        assert_eq!(overall.median_wall_s, 25.0);
    }

    #[test]
    fn table_rendering() {
        let rows = aggregate(&[v("a", &[FaultClass::LoopBound], Some(1.0), 12.34)]);
        let t = render_table(&rows);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines.len(), 4);
        assert!(lines[0].starts_with("| fault class | versions | detected |"));
        assert_eq!(
            lines[2],
            "| loop-bound | 1 | 100% | 100% | 100% | 100% | 0.000 | 0% | 100% | 0.100 | 0% | 0% | 0% | 12.3 s |"
        );
        assert!(lines[3].starts_with("| **overall** | 1 |"));
        // Every line has as many cells as the header.
        let cells = |l: &str| l.matches('|').count();
        assert!(lines.iter().all(|l| cells(l) == cells(lines[0])));
    }

    #[test]
    fn tie_rule_table_compares_mid_ranks() {
        let mut a = v("a", &[FaultClass::LoopBound], Some(1.0), 1.0);
        a.mid_rank = Some(1.0);
        a.ochiai_rank = Some(2.0);
        let mut b = v("b", &[FaultClass::LoopBound], Some(1.0), 1.0);
        // Reported first, but tied with two others: mid rank 2.
        b.mid_rank = Some(2.0);
        b.ochiai_rank = Some(6.0);
        let t = render_tie_rule(&[a, b]);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines.len(), 4, "{t}");
        assert_eq!(
            lines[2],
            "| loop-bound | 2 | 50% | 0% | +50 points | 100% | 50% |"
        );
        assert!(lines[3].starts_with("| **overall** | 2 | 50% | 0% |"));
    }

    #[test]
    fn brute_force_accounting_and_ratio() {
        let b = BruteForce {
            id: "a".into(),
            enumerated: 120,
            candidates: 25,
            compiled: 20,
            validated: 2,
            correct: 1,
            hung: 1,
            seconds: 100.0,
        };
        assert_eq!(b.per_validated(), Some(50.0));
        let mut ours = v("a", &[FaultClass::Constant], Some(1.0), 10.0);
        let t = render_brute_force(std::slice::from_ref(&b), &[&ours]);
        assert!(
            t.contains(
                "| a | 120 | 25 | 20 | 2 | 1 | 1 | 100 s | 50.0 | n/a — no fix produced | n/a |"
            ),
            "{t}"
        );
        ours.validated_fixes = 2;
        ours.repair_s = 5.0;
        let t = render_brute_force(std::slice::from_ref(&b), &[&ours]);
        assert!(t.contains("| 50.0 | 2.5 | 20.0× |"), "{t}");
        let none = BruteForce { validated: 0, ..b };
        assert_eq!(none.per_validated(), None);
        assert!(render_brute_force(&[none], &[&ours]).contains("n/a — none validated"));
    }

    #[test]
    fn switching_per_ordering_and_its_table() {
        let search = |test: &str, ordering: &str, criterion: &str, reruns| crate::report::Search {
            test: test.into(),
            ordering: ordering.into(),
            candidates: 9,
            criterion: criterion.into(),
            reruns,
        };
        let one = switching_of(&[
            search("a", "PRIOR", "none", 9),
            search("b", "PRIOR", "pass", 4),
            search("c", "PRIOR", "progress", 2),
            search("a", "LEFS", "none", 9),
        ]);
        assert_eq!(
            one,
            [
                Switching {
                    ordering: "LEFS".into(),
                    found: false,
                    reruns: None
                },
                Switching {
                    ordering: "PRIOR".into(),
                    found: true,
                    reruns: Some(2)
                },
            ]
        );
        let two = switching_of(&[
            search("a", "PRIOR", "pass", 6),
            search("a", "LEFS", "pass", 1),
        ]);
        let results = [
            VersionResult {
                switching: one,
                ..Default::default()
            },
            VersionResult {
                switching: two,
                ..Default::default()
            },
            VersionResult::default(),
        ];
        let table = render_switching(&results);
        assert!(table.contains("| PRIOR | 2 | 100% | 4 |"), "{table}");
        assert!(table.contains("| LEFS | 2 | 50% | 1 |"), "{table}");
    }

    #[test]
    fn median_of_odd_even_and_empty() {
        assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(vec![4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(median(vec![]), 0.0);
    }

    #[test]
    fn readme_block_is_replaced_between_markers() {
        let r = "a\n<!-- t -->\nold\n<!-- /t -->\nb\n";
        assert_eq!(
            replace_block(r, "<!-- t -->", "<!-- /t -->", "new\n").unwrap(),
            "a\n<!-- t -->\nnew\n<!-- /t -->\nb\n"
        );
        assert!(replace_block("none", "<!-- t -->", "<!-- /t -->", "x").is_none());
    }
}
