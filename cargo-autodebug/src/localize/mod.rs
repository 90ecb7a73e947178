//! Localization: techniques that rank sites as suspects sit side by side behind one small
//! interface ([`Technique`]); their rankings are merged into one, keeping each technique's
//! evidence per suspect. Adding a technique touches this folder only.

#[cfg(test)]
mod by_kind;
pub mod called;
pub mod diagnosis;
pub mod history;
pub mod panic;
pub mod pathgen;
pub mod registry;
pub mod slice;
pub mod source;
pub mod spectrum;
pub mod switching;

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Result;
use autodebug_runtime::protocol::{SiteInfo, SiteKey, SiteKind};

use crate::baseline::BaselineResult;
use crate::engine::Recorder;
use crate::model::{Evidence, Ranked};
use crate::trace::RecordedTrace;

/// What every technique can look at.
pub struct Context<'a> {
    /// Root of the workspace (site paths are relative to it).
    pub workspace_root: &'a Path,
    /// The user's workspace, where it is not that one (zero-annotation mode works in a
    /// copy whose lines are the user's): what its history is read from.
    pub user_root: &'a Path,
    /// Every test's first run, reruns and coverage.
    pub baseline: &'a [BaselineResult],
    /// The recorded traces: failing tests first, then passing tests reaching the same code.
    pub traces: &'a [RecordedTrace],
    /// What passing means for each failing test (the expected value of the failing call, the
    /// calls the test accepted before it), confirmed by reruns.
    pub oracles: &'a [crate::oracle::Oracle],
    /// Reruns a test under a plan (dynamic techniques).
    pub rerun: &'a Recorder<'a>,
    /// Where long techniques show their progress.
    pub console: &'a crate::console::Console,
}

/// A suspect site with the evidence of every technique that ranked it.
#[derive(Debug, Clone)]
pub struct Suspect {
    pub site: SiteInfo,
    /// The site's file relative to the workspace root.
    pub path: String,
    pub evidence: Vec<Evidence>,
}

/// A localization technique.
pub trait Technique {
    /// Its name in evidence and in the report.
    fn name(&self) -> &'static str;

    /// Suspects, most suspicious first, with the technique's account of its run. A technique
    /// that cannot say anything returns no suspect (and says why through `notes`), never an
    /// error for unsupported code.
    fn localize(&self, context: &Context, notes: &mut Vec<String>) -> Result<Localized>;

    /// How its tied suspects rank in the merge (see [`merge`]).
    fn ties(&self) -> Ties {
        Ties::Best
    }
}

/// What one technique's run gave: its ranking and its account of the run.
#[derive(Debug, Default)]
pub struct Localized {
    /// Suspects, most suspicious first.
    pub suspects: Vec<Suspect>,
    /// What the technique did, for the report's `localization`.
    pub details: Option<serde_json::Value>,
    /// What later stages read of its work beyond the ranking.
    pub findings: Findings,
    /// The largest resident size of its solver processes, in MiB; none if it ran none.
    pub solver_peak_mb: Option<u64>,
}

impl From<Vec<Suspect>> for Localized {
    fn from(suspects: Vec<Suspect>) -> Localized {
        Localized {
            suspects,
            ..Localized::default()
        }
    }
}

/// A site as a diagnosis names it: the file relative to the workspace root, line, column
/// and kind.
pub type Component = (String, u32, u32, SiteKind);

/// What the techniques found that repair reads, handed over as values.
#[derive(Debug, Clone, Default)]
pub struct Findings {
    /// The critical predicates: one per failing test that has one, whatever ordering found
    /// it (the angelic outcomes a condition's fix must give).
    pub flipped: Vec<switching::Flipped>,
    /// The diagnoses of the whole failure that name two components (repaired together).
    pub diagnoses: Vec<Vec<Component>>,
}

/// What localization found: the merged suspects, notes on what some technique could not do,
/// and each technique's account of what it did (the report's `localization`).
pub struct Localization {
    pub suspects: Vec<Ranked>,
    pub notes: Vec<String>,
    pub details: BTreeMap<&'static str, serde_json::Value>,
    pub findings: Findings,
    /// The largest resident size of the techniques' solver processes (MiB), when one ran.
    pub solver_peak_mb: Option<u64>,
}

/// Runs every registered technique the options ask for and merges their rankings.
pub fn localize(
    context: &Context,
    options: &crate::options::Options,
    console: &crate::console::Console,
) -> Localization {
    localize_with(registry::TECHNIQUES, context, options, console)
}

/// Runs the techniques of `registered` that the options ask for, in order, and merges
/// their rankings by their weights.
pub fn localize_with(
    registered: &[registry::Registration],
    context: &Context,
    options: &crate::options::Options,
    console: &crate::console::Console,
) -> Localization {
    let mut notes = Vec::new();
    let techniques: Vec<(f64, Box<dyn Technique>)> = registered
        .iter()
        .filter(|r| options.runs(r.option))
        .map(|r| (r.weight, (r.make)(options)))
        .collect();
    if techniques.is_empty() {
        notes.push("no localization technique runs (the configuration disabled them all)".into());
    }
    let mut rankings = Vec::new();
    let mut details = BTreeMap::new();
    let mut findings = Findings::default();
    let mut solver_peak_mb = None;
    // Each technique's weight in the merge, so that a reader can redo it (the benchmark
    // compares the ranking with and without a technique).
    let mut weights = serde_json::Map::new();
    let mut seconds = serde_json::Map::new();
    for (weight, technique) in techniques {
        console.status("Localizing", technique.name());
        weights.insert(technique.name().to_string(), weight.into());
        let began = std::time::Instant::now();
        let found = technique.localize(context, &mut notes);
        seconds.insert(
            technique.name().into(),
            began.elapsed().as_secs_f64().into(),
        );
        match found {
            Ok(found) => {
                rankings.push((weight, technique.ties(), found.suspects));
                if let Some(detail) = found.details {
                    details.insert(technique.name(), detail);
                }
                findings.flipped.extend(found.findings.flipped);
                findings.diagnoses.extend(found.findings.diagnoses);
                solver_peak_mb = solver_peak_mb.max(found.solver_peak_mb);
            }
            Err(error) => notes.push(format!("{}: failed: {error:#}", technique.name())),
        }
    }
    details.insert("weights", serde_json::Value::Object(weights));
    details.insert("seconds", serde_json::Value::Object(seconds));
    let mut merged = merge_tied(&rankings);
    add_source_lines(&mut merged, context.workspace_root);
    Localization {
        suspects: merged,
        notes,
        details,
        findings,
        solver_peak_mb,
    }
}

/// Fills in each suspect's source line, so that a site whose code is a bare `1` reads as
/// the `i += 1` it belongs to.
fn add_source_lines(suspects: &mut [Ranked], workspace_root: &Path) {
    let mut files: BTreeMap<String, Option<Vec<String>>> = BTreeMap::new();
    for suspect in suspects {
        let lines = files.entry(suspect.file.clone()).or_insert_with(|| {
            crate::workspace::read_source(workspace_root, &suspect.file)
                .ok()
                .map(|text| text.lines().map(str::to_string).collect())
        });
        suspect.source_line = lines
            .as_ref()
            .and_then(|lines| lines.get(suspect.line as usize - 1))
            .map(|line| line.trim().to_string());
    }
}

/// Sites that are statements a fix can change (not function entries, loop heads or the
/// contracts themselves).
pub fn is_candidate(kind: SiteKind) -> bool {
    kind.is_branch() || kind.is_component() || kind == SiteKind::Call
}

/// How a technique's tied suspects rank.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ties {
    /// The best rank of their group (1, 2, 2, 4): a technique whose ties are rare and each
    /// tied suspect is as likely as the first.
    Best,
    /// The middle of the ranks they span (1, 2.5, 2.5, 4): a technique whose ties are large
    /// groups it cannot order, such as the sites the same tests run.
    Middle,
}

/// Merges the techniques' rankings, each technique's ties sharing the best rank of their
/// group (see [`merge_tied`]).
#[cfg(test)]
pub fn merge(rankings: &[(f64, Vec<Suspect>)]) -> Vec<Ranked> {
    let tied: Vec<(f64, Ties, Vec<Suspect>)> = rankings
        .iter()
        .map(|(weight, suspects)| (*weight, Ties::Best, suspects.clone()))
        .collect();
    merge_tied(&tied)
}

/// Merges the techniques' rankings. Each technique contributes, per site, the reciprocal of
/// the site's rank by that technique's score (1 for its top suspect, ½ for the second, …;
/// tied suspects share a rank as the technique's [`Ties`] says),
/// weighted by how much the technique's evidence has been checked by running the code:
/// dynamic evidence that a rerun confirmed outweighs a statistical guess. Ties put a call
/// statement (a `Call` site, whose hook only says the call ran) after the sites that
/// compute a value, then keep source order.
pub fn merge_tied(rankings: &[(f64, Ties, Vec<Suspect>)]) -> Vec<Ranked> {
    let mut merged: BTreeMap<SiteKey, (f64, Suspect)> = BTreeMap::new();
    for (weight, ties, suspects) in rankings {
        let score = |s: &Suspect| s.evidence.first().map_or(0.0, |e| e.score);
        for suspect in suspects {
            let better = suspects
                .iter()
                .filter(|other| score(other) > score(suspect))
                .count();
            let rank = match ties {
                Ties::Best => 1.0 + better as f64,
                Ties::Middle => {
                    let level = suspects
                        .iter()
                        .filter(|other| score(other) >= score(suspect))
                        .count();
                    (1 + better + level) as f64 / 2.0
                }
            };
            let contribution = weight / rank;
            let entry = merged.entry(suspect.site.key()).or_insert_with(|| {
                (
                    0.0,
                    Suspect {
                        evidence: Vec::new(),
                        ..suspect.clone()
                    },
                )
            });
            entry.0 += contribution;
            entry.1.evidence.extend(suspect.evidence.iter().cloned());
        }
    }
    let mut list: Vec<(f64, Suspect)> = merged.into_values().collect();
    let call = |s: &Suspect| s.site.kind == SiteKind::Call;
    list.sort_by(|a, b| {
        b.0.total_cmp(&a.0)
            .then_with(|| call(&a.1).cmp(&call(&b.1)))
            .then_with(|| {
                (&a.1.path, a.1.site.line, a.1.site.column).cmp(&(
                    &b.1.path,
                    b.1.site.line,
                    b.1.site.column,
                ))
            })
    });
    list.into_iter()
        .enumerate()
        .map(|(i, (score, suspect))| Ranked {
            rank: i + 1,
            file: suspect.path,
            line: suspect.site.line,
            column: suspect.site.column,
            end_line: suspect.site.end_line,
            end_column: suspect.site.end_column,
            kind: suspect.site.kind,
            code: suspect.site.code,
            function: suspect.site.function,
            source_line: None,
            score: (score * 1e4).round() / 1e4,
            evidence: suspect
                .evidence
                .iter()
                .map(|e| format!("{}: {}", e.technique, e.detail))
                .collect(),
            techniques: suspect.evidence,
            in_diff: false,
        })
        .collect()
}

/// A place a validated fix edited, and what the fix did there.
pub struct Fixed<'a> {
    pub file: &'a str,
    pub line: u32,
    pub column: u32,
    /// The evidence's text (`` `a < b` → `a <= b` passed all 6 tests after a rebuild ``).
    pub detail: String,
}

/// Ranks first the suspects a validated fix edited: an edit that makes the whole suite pass
/// after a rebuild is the strongest evidence of where the fault is, stronger than any
/// ranking made before it. Among themselves, and among the others, suspects keep their
/// order (when fixes at several sites pass, the ranking before repair still says which
/// is likelier). A suspect is the one whose span holds the edit's start (the smallest such
/// span: a clause inside a condition before the condition); an edit no suspect holds
/// changes nothing, unless it puts in or takes out a statement: then the best-ranked suspect on
/// its line holds it. Ranks are renumbered.
pub fn rank_fixed_first(suspects: &mut Vec<Ranked>, fixed: &[Fixed]) {
    let mut evidence: BTreeMap<usize, Vec<Evidence>> = BTreeMap::new();
    for edit in fixed {
        let holds = |s: &Ranked| {
            s.file == edit.file
                && (s.line, s.column) <= (edit.line, edit.column)
                && (edit.line, edit.column) < (s.end_line, s.end_column)
        };
        let span = |s: &Ranked| (s.end_line - s.line, s.end_column.abs_diff(s.column));
        // A statement put in or taken out is held by no site: the best-ranked suspect on
        // its line stands for it.
        let on_line = || {
            suspects
                .iter()
                .position(|s| s.file == edit.file && s.line == edit.line)
        };
        if let Some(i) = suspects
            .iter()
            .enumerate()
            .filter(|(_, s)| holds(s))
            .min_by_key(|(_, s)| span(s))
            .map(|(i, _)| i)
            .or_else(on_line)
        {
            evidence.entry(i).or_default().push(Evidence {
                technique: "repair",
                score: 1.0,
                detail: edit.detail.clone(),
            });
        }
    }
    if evidence.is_empty() {
        return;
    }
    let mut first = Vec::new();
    let mut rest = Vec::new();
    for (i, mut suspect) in std::mem::take(suspects).into_iter().enumerate() {
        match evidence.remove(&i) {
            Some(found) => {
                for (n, e) in found.into_iter().enumerate() {
                    suspect.evidence.insert(n, format!("repair: {}", e.detail));
                    suspect.techniques.insert(n, e);
                }
                first.push(suspect);
            }
            None => rest.push(suspect),
        }
    }
    first.append(&mut rest);
    *suspects = first;
    for (i, suspect) in suspects.iter_mut().enumerate() {
        suspect.rank = i + 1;
    }
}

/// Lowers a workspace file a site names (see [`crate::workspace::read_source`]).
pub fn lower_file(
    workspace_root: &Path,
    file: &str,
) -> Result<autodebug_symbolic::ir::Program, String> {
    let text = crate::workspace::read_source(workspace_root, file)?;
    autodebug_symbolic::ir::Program::from_source(&text, file)
        .map_err(|e| format!("cannot lower {file}: {e}"))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn site(line: u32, kind: SiteKind) -> SiteInfo {
        SiteInfo {
            file: "src/lib.rs".into(),
            line,
            column: 5,
            end_line: line,
            end_column: 9,
            kind,
            code: format!("code{line}"),
            function: "m::f".into(),
        }
    }

    /// A recorder for a technique's test that reruns nothing (a workspace at `root`).
    pub(crate) fn idle_recorder(root: &Path) -> Recorder<'_> {
        Recorder {
            engine: Default::default(),
            workspace_root: root,
            output_dir: root,
            scratch: root,
            base_env: &[],
            timeout: std::time::Duration::from_secs(1),
            max_events: 1000,
            jobs: 1,
            runs: Default::default(),
            user_columns: None,
        }
    }

    /// Runs `technique` on `traces` of a workspace at `root` (no baseline, no oracle).
    pub(crate) fn run_technique(
        technique: &dyn Technique,
        root: &Path,
        traces: &[RecordedTrace],
    ) -> Vec<Suspect> {
        in_context(root, traces, |context| {
            technique
                .localize(context, &mut Vec::new())
                .unwrap()
                .suspects
        })
    }

    /// `f` of a context of `traces` (no baseline, no oracle, no reruns).
    pub(crate) fn in_context<R>(
        root: &Path,
        traces: &[RecordedTrace],
        f: impl FnOnce(&Context) -> R,
    ) -> R {
        let options = crate::options::Options::parse_args(["cargo-autodebug"]).unwrap();
        let console = crate::console::Console::new(&options);
        let rerun = idle_recorder(root);
        let context = Context {
            workspace_root: root,
            user_root: root,
            baseline: &[],
            traces,
            oracles: &[],
            rerun: &rerun,
            console: &console,
        };
        f(&context)
    }

    fn suspect(line: u32, technique: &'static str, score: f64) -> Suspect {
        Suspect {
            site: site(line, SiteKind::If),
            path: "src/lib.rs".into(),
            evidence: vec![Evidence {
                technique,
                score,
                detail: format!("{score}"),
            }],
        }
    }

    #[test]
    fn merge_weights_ranks_and_keeps_every_evidence() {
        let strong = vec![suspect(10, "switching", 1.0)];
        let weak = vec![suspect(3, "ochiai", 0.9), suspect(10, "ochiai", 0.8)];
        let merged = merge(&[(4.0, strong), (1.0, weak)]);
        assert_eq!(merged.iter().map(|r| r.line).collect::<Vec<_>>(), [10, 3]);
        assert_eq!(merged[0].rank, 1);
        assert_eq!(merged[0].evidence, ["switching: 1", "ochiai: 0.8"]);
        assert_eq!(merged[0].score, 4.5);
    }

    #[test]
    fn tied_suspects_share_a_rank() {
        let tied = vec![
            suspect(4, "ochiai", 0.5),
            suspect(9, "ochiai", 0.5),
            suspect(1, "ochiai", 0.1),
        ];
        let merged = merge(&[(1.0, tied)]);
        assert_eq!(
            merged.iter().map(|r| (r.line, r.score)).collect::<Vec<_>>(),
            [(4, 1.0), (9, 1.0), (1, 0.3333)]
        );
        // A technique whose ties are large groups: they share the middle of ranks 1 and 2,
        // and the one below them keeps rank 3.
        let tied = vec![
            suspect(4, "ochiai-tests", 0.5),
            suspect(9, "ochiai-tests", 0.5),
            suspect(1, "ochiai-tests", 0.1),
        ];
        let merged = merge_tied(&[(1.0, Ties::Middle, tied)]);
        assert_eq!(
            merged.iter().map(|r| (r.line, r.score)).collect::<Vec<_>>(),
            [(4, 0.6667), (9, 0.6667), (1, 0.3333)]
        );
    }

    #[test]
    fn merge_breaks_ties_by_source_order() {
        let merged = merge(&[
            (1.0, vec![suspect(7, "a", 1.0)]),
            (1.0, vec![suspect(2, "b", 1.0)]),
        ]);
        assert_eq!(merged.iter().map(|r| r.line).collect::<Vec<_>>(), [2, 7]);
        // A call statement goes after the sites it ties with.
        let mut call = suspect(1, "a", 1.0);
        call.site.kind = SiteKind::Call;
        let merged = merge(&[(1.0, vec![call, suspect(7, "a", 1.0)])]);
        assert_eq!(merged.iter().map(|r| r.line).collect::<Vec<_>>(), [7, 1]);
    }

    fn ranked(line: u32, column: u32, end_column: u32) -> Ranked {
        let mut r = merge(&[(1.0, vec![suspect(line, "ochiai", 1.0)])]).remove(0);
        (r.column, r.end_column) = (column, end_column);
        r
    }

    #[test]
    fn suspects_a_validated_fix_edited_lead() {
        let mut suspects = vec![
            ranked(3, 5, 9),
            ranked(7, 8, 30),
            ranked(7, 12, 18),
            ranked(9, 5, 9),
        ];
        let fixed = |line, column, detail: &str| Fixed {
            file: "src/lib.rs",
            line,
            column,
            detail: detail.into(),
        };
        rank_fixed_first(
            &mut suspects,
            &[
                fixed(9, 6, "first fix"),
                fixed(7, 13, "second fix, inside the clause"),
                fixed(9, 5, "third fix, same site"),
                fixed(40, 1, "no suspect holds it"),
            ],
        );
        let order: Vec<(u32, u32, usize)> = suspects
            .iter()
            .map(|s| (s.line, s.column, s.rank))
            .collect();
        assert_eq!(order, [(7, 12, 1), (9, 5, 2), (3, 5, 3), (7, 8, 4)]);
        assert_eq!(
            suspects[1].evidence,
            [
                "repair: first fix",
                "repair: third fix, same site",
                "ochiai: 1"
            ]
        );
        assert_eq!(suspects[0].techniques[0].technique, "repair");
        let unchanged = suspects.clone();
        rank_fixed_first(&mut suspects, &[]);
        assert_eq!(
            suspects.iter().map(|s| s.rank).collect::<Vec<_>>(),
            unchanged.iter().map(|s| s.rank).collect::<Vec<_>>()
        );
        // A statement put in at the start of line 3 (before the site at 3:5) is held by no
        // site: the best-ranked suspect on its line leads.
        rank_fixed_first(&mut suspects, &[fixed(3, 1, "insert `v.sort();`")]);
        assert_eq!((suspects[0].line, suspects[0].column), (3, 5));
    }
}
