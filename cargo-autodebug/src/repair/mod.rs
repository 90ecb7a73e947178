//! Repair: candidate fixes for the top suspects and the critical predicates, checked by
//! running the tests. Candidates come from sources behind one small interface
//! ([`CandidateSource`]); each is first checked by rerunning the suite with the runtime
//! evaluating it in place of the site's code (no rebuild), and a candidate that fails a
//! test goes back to its source as a counterexample. Plausible candidates (every test passes
//! under the replacement) are then written as patches into a scratch copy, rebuilt and the
//! suite rerun ([`validate`]): only then is a fix `validated`. Fixes are ranked and
//! deduplicated by effect; every step is bounded.

mod adaptors;
pub mod apply;
mod branches;
pub mod clauses;
mod copies;
mod discarded;
pub mod expression;
mod guards;
pub mod joint;
mod order;
pub mod overfit;
mod overflow;
mod partial;
pub mod patch;
mod peers;
pub mod prebuild;
pub mod rebuilds;
pub mod recorded;
mod renames;
pub mod rerun;
mod search;
mod siblings;
mod sources;
pub mod statements;
pub mod switched;
pub mod syntactic;
pub mod synthesis;
pub mod validate;
mod widen;

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result};
use autodebug_runtime::protocol::{Expr, Record, SiteInfo, SiteKey, SiteKind};

use self::expression::Types;
use self::patch::Located;
use self::rerun::Rerun;
use self::validate::{Selection, Validation};
use crate::baseline::BaselineResult;
use crate::console::Console;
use crate::engine::Recorder;
use crate::model::{EditEntry, FileChange, Fix, Ranked, RepairDetails as Details};
use crate::trace::{RecordedTrace, workspace_path};

/// A site a fix may change, with what the runs told about it.
#[derive(Debug, Clone)]
pub struct Target {
    /// The site as the runtime reports it (`file` as the compiler saw it: plans name sites
    /// by it).
    pub site: SiteInfo,
    /// The site's file relative to the workspace root.
    pub path: String,
    /// The site's expression in the file as it was read for this run.
    pub located: Located,
    /// Its rank among the suspects.
    pub rank: usize,
    /// The localization techniques that pointed at it.
    pub localized_by: Vec<&'static str>,
    /// Types of the site's value, operands and variables in scope, from the traces.
    pub types: Types,
}

impl Target {
    /// Whether the build instrumented the site: not when only the source said the failing
    /// tests call it (`localize::called`), so that no run or trace can judge an edit there.
    pub fn instrumented(&self) -> bool {
        self.localized_by.is_empty()
            || !(self.localized_by.iter()).all(|t| *t == crate::localize::called::NAME)
    }
}

/// One change of a candidate: a site's code replaced.
#[derive(Debug, Clone)]
pub struct CandidateEdit {
    pub site: SiteKey,
    /// The Rust text that replaces the site's span.
    pub rust: String,
    /// The same code as the runtime evaluates it at the site, when it can.
    pub expr: Option<Expr>,
    /// The bytes of the site's file the edit replaces when they are not the site's own
    /// code: a statement around the site (deleted, or a new one put next to it). `rust` is
    /// then statements, not an expression, and the runtime cannot evaluate it.
    pub statement: Option<std::ops::Range<usize>>,
}

impl CandidateEdit {
    /// `site`'s code replaced by `rust`, which the runtime cannot evaluate.
    pub(crate) fn at(site: SiteKey, rust: String) -> CandidateEdit {
        CandidateEdit {
            site,
            rust,
            expr: None,
            statement: None,
        }
    }

    /// The edit replacing `bytes` of the site's file instead (statements, not the site's
    /// own code).
    pub(crate) fn replacing(self, bytes: std::ops::Range<usize>) -> CandidateEdit {
        CandidateEdit {
            statement: Some(bytes),
            ..self
        }
    }
}

/// A candidate fix: one edit per component it changes.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub edits: Vec<CandidateEdit>,
    /// What kind of change (`relational-operator`, `constant±1`, a synthesis template).
    pub template: String,
    /// How far from the written code (lower is simpler), comparable within a source.
    pub cost: u32,
    /// The source that proposed it (the report's `technique`).
    pub source: &'static str,
}

impl Candidate {
    /// A candidate of one edit, of `template`, as far as `cost` from the code, proposed by
    /// `source`.
    pub(crate) fn one(
        edit: CandidateEdit,
        template: &str,
        cost: u32,
        source: &'static str,
    ) -> Candidate {
        Candidate {
            edits: vec![edit],
            template: template.to_string(),
            cost,
            source,
        }
    }
}

/// A source of candidate fixes. The repair stage asks it for candidates target by target,
/// simplest first, and tells it which tests a candidate failed under the replacement
/// (counterexamples), so that a source that learns (template synthesis) can exclude them.
pub trait CandidateSource {
    /// Its name in the report.
    fn name(&self) -> &'static str;

    /// Up to `max` more candidates for `target`; empty when the source has no more.
    fn next(&mut self, target: &Target, max: usize) -> Vec<Candidate>;

    /// `candidate` failed the tests `failing` (`target::name`) when the suite was rerun
    /// with it in place of `target`'s code.
    fn refute(&mut self, _target: &Target, _candidate: &Candidate, _failing: &[String]) {}

    /// What the source could not do (for the report's notes), taken once at the end.
    fn notes(&mut self) -> Vec<String> {
        Vec::new()
    }

    /// The largest resident size of the source's solver processes (MiB), taken once at
    /// the end, after its notes; none if it ran none.
    fn solver_peak_mb(&mut self) -> Option<u64> {
        None
    }
}

/// Per target, the candidates a [`Listed`] source made for it once, handed out in order.
pub(crate) type Queues = BTreeMap<SiteKey, VecDeque<Candidate>>;

/// A source that makes a fixed list of candidates per target, once, and hands it out in
/// order: it is a [`CandidateSource`] by this alone.
pub(crate) trait Listed {
    /// Its name in the report.
    const NAME: &'static str;

    /// Where its lists are kept.
    fn queues(&mut self) -> &mut Queues;

    /// The candidates for `target`, in the order they are tried.
    fn list(&mut self, target: &Target) -> VecDeque<Candidate>;
}

/// `impl Listed` for a source type (a lifetime `'_` if it has one) with a `queues` field,
/// a `candidates` method and a `NAME` in its module.
macro_rules! listed {
    ($source:ty) => {
        impl super::Listed for $source {
            const NAME: &'static str = NAME;

            fn queues(&mut self) -> &mut super::Queues {
                &mut self.queues
            }

            fn list(&mut self, target: &Target) -> VecDeque<Candidate> {
                self.candidates(target)
            }
        }
    };
}
pub(crate) use listed;

impl<S: Listed> CandidateSource for S {
    fn name(&self) -> &'static str {
        S::NAME
    }

    fn next(&mut self, target: &Target, max: usize) -> Vec<Candidate> {
        let key = target.site.key();
        if !self.queues().contains_key(&key) {
            let queue = self.list(target);
            self.queues().insert(key.clone(), queue);
        }
        let queue = self.queues().get_mut(&key).expect("inserted above");
        let n = max.min(queue.len());
        queue.drain(..n).collect()
    }
}

/// The rebuilds' work beyond the free ones, in rebuilds of a one-function crate: what 20 s
/// of rebuilds gave such a crate on this project's two-core machine (0.35 s each, the median
/// over the HumanEvalFix dev half).
pub const REBUILD_WORK: f64 = 57.0;

/// The work of one rebuild of a crate of `lines` lines of Rust, in rebuilds of a
/// one-function crate: a patched build recompiles the crate and its tests and runs the
/// suite, so it grows with the code; a crate of 2,000 lines costs two (measured on the
/// real-bug sets: 0.5–1 s a rebuild at 2,000–3,000 lines, 2–4 s at 8,000–25,000).
pub fn rebuild_cost(lines: usize) -> f64 {
    1.0 + lines as f64 / 2000.0
}

/// Bounds on the repair stage.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Top suspects tried (critical predicates are tried as well).
    pub suspects: usize,
    /// Candidates considered in all.
    pub candidates: usize,
    /// Patched builds.
    pub rebuilds: usize,
    /// Past this many candidates of the rebuild queue (rebuilt, or passed over because a
    /// simpler fix of their site was validated), rebuilds go on only while no fix is
    /// validated and their work is within [`Limits::rebuild_work`].
    pub free_rebuilds: usize,
    /// The rebuilds' work past which no more are made beyond [`Limits::free_rebuilds`], in
    /// rebuilds of a one-function crate: a count, so that the same crate gets the same
    /// rebuilds on a quiet machine and a loaded one.
    pub rebuild_work: f64,
    /// The work of one rebuild of this crate (see [`rebuild_cost`]).
    pub rebuild_cost: f64,
    /// The lines of Rust the cost was read from (0 when unknown).
    pub crate_lines: usize,
    /// Validated fixes after which the stage stops.
    pub fixes: usize,
    /// Wall time of the stage (a rebuild under way finishes).
    pub time: Duration,
    /// Rebuild the candidates the reruns refuted too (to measure one way of validating
    /// against the other on the same candidates).
    pub rebuild_all: bool,
    /// Memory the solver's worker may take beyond the tool's, in MiB.
    pub solver_memory_mb: u64,
    /// `--shard K/N`: the rebuilds this run makes.
    pub shard: Option<crate::model::Shard>,
}

impl Limits {
    /// The bounds for a crate of `lines` lines of Rust (its rebuilds' cost).
    pub fn for_crate(mut self, lines: usize) -> Limits {
        self.crate_lines = lines;
        self.rebuild_cost = rebuild_cost(lines);
        self
    }

    /// The bounds the options set.
    pub fn of(options: &crate::options::Options) -> Limits {
        Limits {
            suspects: options.fix_suspects,
            candidates: options.max_candidates,
            rebuilds: options.max_rebuilds,
            free_rebuilds: 10,
            rebuild_work: REBUILD_WORK,
            rebuild_cost: 1.0,
            crate_lines: 0,
            fixes: options.max_fixes.max(1),
            time: Duration::from_secs_f64(options.repair_timeout.max(0.0)),
            rebuild_all: options.rebuild_all,
            solver_memory_mb: options.solver_memory,
            shard: options.shard,
        }
    }
}

/// What the repair stage needs.
pub struct Context<'a> {
    pub workspace_root: &'a Path,
    pub baseline: &'a [BaselineResult],
    /// The compiler's warnings on the crate's code (the discarded values' source).
    pub warnings: &'a [crate::build::CompilerWarning],
    pub traces: &'a [RecordedTrace],
    pub suspects: &'a [Ranked],
    /// What passing means for each failing test (the specification synthesis works to).
    pub oracles: &'a [crate::oracle::Oracle],
    /// What localization found beyond the ranking: the critical predicates (their
    /// angelic outcomes) and the two-component diagnoses (their sites are repaired together).
    pub findings: &'a crate::localize::Findings,
    /// Reruns tests under plans (candidates evaluated by the runtime).
    pub rerun: &'a Recorder<'a>,
    /// Where the scratch copy and the persistent target dir of rebuilds go.
    pub scratch_dir: PathBuf,
    /// Directories inside the workspace not to copy (the tool's output and build dirs).
    pub skip: Vec<PathBuf>,
    /// The scratch copy made and built in the background since the baseline, if one was.
    pub prebuild: Option<&'a prebuild::Prebuild>,
    /// What the tool's own build selected (the rebuilds build the same).
    pub selection: Selection,
    /// Per-test timeout of the run (the rebuilds' timeouts are at most this).
    pub timeout: Duration,
    pub jobs: usize,
}

/// What the stage produced.
pub struct Repair {
    /// Ranked: validated first.
    pub fixes: Vec<Fix>,
    pub notes: Vec<String>,
    pub details: Details,
    /// The rebuild queue, with what this run's rebuilds showed (a shard's part).
    pub items: Vec<crate::model::Item>,
    /// The bound that cut the candidate search, if one did (before the rebuilds).
    pub searched_cut: Option<String>,
}

/// Candidates asked of a source at a time (and checked by rerun together).
const BATCH: usize = 16;

/// Runs the stage: template synthesis first, then the syntactic source.
pub fn repair(context: &Context, limits: &Limits, console: &Console) -> Repair {
    let start = Instant::now();
    let mut notes = Vec::new();
    let mut files = Files::default();
    let mut targets = targets(context, limits, &mut files, &mut notes);
    // The sources are asked about the targets, not about the statements the compiler
    // warned of (see `discarded`) nor the targets' copies (see `copies`).
    let own = targets.len();
    let warned = discarded::Discarded::find(
        context.workspace_root,
        context.warnings,
        &targets,
        &mut files,
    );
    targets.extend(warned.targets().cloned());
    let (copies, copy_targets) = copies::find(context, &targets, &mut files);
    targets.extend(copy_targets);
    let only_copies = targets[own..].iter().map(|t| t.site.key()).collect();
    let programs = synthesis::Programs::lower(context.workspace_root, &targets[..own]);
    let inputs = sources::Inputs {
        context,
        limits,
        programs: &programs,
        files: &files,
        warned: warned.warned(),
    };
    let mut sources: Vec<Box<dyn CandidateSource + '_>> = sources::SOURCES
        .iter()
        .map(|make| make(&inputs, &targets[..own]))
        .collect();
    let mut repair = repair_with(
        context,
        limits,
        console,
        Prepared {
            start,
            targets,
            copies,
            only_copies,
            files: &files,
            notes,
        },
        &mut sources,
    );
    for source in &mut sources {
        repair.notes.extend(source.notes());
        let peak = source.solver_peak_mb();
        repair.details.solver_peak_mb = repair.details.solver_peak_mb.max(peak);
    }
    repair
}

/// Time net of template synthesis per site (its solver is bounded in steps: about 20 s of
/// the project's machine).
const SYNTHESIS_TIME: Duration = Duration::from_secs(100);

/// Failing tests whose own best suspects are repair targets besides the suite's best.
const PER_TEST_TESTS: usize = 4;
/// Suspects of each of those tests made targets.
const PER_TEST_SUSPECTS: usize = 3;

/// The sites to repair, found in their files, before any source runs.
pub struct Prepared<'f> {
    start: Instant,
    /// The sites to repair, then the copies of theirs that are not sites to repair (see
    /// [`copies`]).
    targets: Vec<Target>,
    copies: copies::Copies,
    only_copies: BTreeSet<SiteKey>,
    files: &'f Files,
    notes: Vec<String>,
}

/// The stage with the given sources (tried in order on each target): candidates proposed
/// and checked by rerunning the suite under them, then the best rebuilt and validated.
pub fn repair_with(
    context: &Context,
    limits: &Limits,
    console: &Console,
    prepared: Prepared<'_>,
    sources: &mut [Box<dyn CandidateSource + '_>],
) -> Repair {
    let Prepared {
        start,
        targets,
        copies,
        only_copies,
        files,
        mut notes,
    } = prepared;
    let mut details = Details {
        targets: targets.len(),
        crate_lines: limits.crate_lines,
        ..Details::default()
    };
    if targets.is_empty() {
        return Repair {
            fixes: Vec::new(),
            notes,
            details,
            items: Vec::new(),
            searched_cut: None,
        };
    }
    console.detail(&format!(
        "repairing {} site{} (top suspects and critical predicates)",
        targets.len(),
        plural(targets.len())
    ));
    let suite = validate::suite(context.workspace_root, context.baseline, context.timeout);
    let processes_before = context.rerun.runs.load(Ordering::Relaxed);
    let rerun = Rerun {
        recorder: context.rerun,
        baseline: context.baseline,
        suite: &suite,
        fuel: fuel(context.traces),
        fuel_by_test: fuel_by_test(context.traces),
        runs: AtomicUsize::new(0),
        checked: AtomicUsize::new(0),
        // Reruns stop at the stage's time budget (a candidate left unjudged then is for a
        // rebuild to decide, within what time is left).
        deadline: Some(start + limits.time),
        // On a large suite each candidate reruns hundreds of tests: past as many plausible
        // candidates as fixes are wanted, the rest of a batch is skipped. A small suite
        // checks them all (a simpler plausible candidate may overfit the tests).
        enough: if suite.len() > LARGE_SUITE {
            limits.fixes.max(1)
        } else {
            usize::MAX
        },
    };
    let chains = chains(&targets, files);
    let mut search = search::Search {
        context,
        limits,
        console,
        start,
        by_key: targets
            .iter()
            .enumerate()
            .map(|(i, t)| (t.site.key(), i))
            .collect(),
        only_copies,
        copies,
        targets,
        chains,
        files: files.clone(),
        tested: overfit::Tested::of(context.oracles),
    };
    let mut checked = search.check(sources, &rerun, &mut details, &mut notes);
    search.combine_partial_fixes(&rerun, &mut checked, &mut details, &mut notes);
    search.widen(&rerun, &mut checked, &mut details, &mut notes);
    details.runtime_checked = rerun.checked.load(Ordering::Relaxed);
    details.runtime_runs = rerun.runs.load(Ordering::Relaxed);
    details.runtime_processes = context.rerun.runs.load(Ordering::Relaxed) - processes_before;
    details.plausible = checked.plausible.len();
    search.say_checked(&details);
    let queue = search.queue(checked);
    let mut items = search.items(queue);
    let searched_cut = details.cut.clone();
    let fixes = search.rebuild(&mut items, &suite, limits.shard, &mut details, &mut notes);
    notes.extend(disagreement(&fixes));
    Repair {
        fixes,
        notes,
        details,
        items,
        searched_cut,
    }
}

/// When the suite validated more than one fix, a note that says they differ: the tests pass
/// under each, so they do not tell which is right (weak tests validate a fix that is not
/// one as readily as the fix), and the first is only the simplest.
fn disagreement(fixes: &[Fix]) -> Option<String> {
    let validated: Vec<&Fix> = fixes.iter().filter(|f| f.validated).collect();
    if validated.len() < 2 {
        return None;
    }
    let listed: Vec<String> = (validated.iter())
        .map(|f| {
            format!(
                "{}. {} at {}:{}",
                f.rank,
                crate::edit::describe(f),
                f.file,
                f.line
            )
        })
        .collect();
    Some(format!(
        "repair: {} validated fixes differ ({}): the suite passes under each, so it does not \
         tell which is right; the first is the one with the fewest and smallest changes, \
         read the others before applying it",
        validated.len(),
        listed.join("; ")
    ))
}

/// Whether `candidate` (one edit of `target`, a branch) leaves every recorded failing run
/// as it was (see [`recorded`]).
fn unchanged_runs(context: &Context, target: &Target, candidate: &Candidate) -> bool {
    target.instrumented()
        && matches!(candidate.edits.as_slice(), [edit] if edit.site == target.site.key() && edit.statement.is_none())
        && recorded::leaves_failing_runs_unchanged(
            context.traces,
            &target.site,
            &target.located.original,
            &candidate.edits[0].rust,
        )
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn describe(v: &Validation) -> String {
    match &v.error {
        Some(error) => error.lines().next().unwrap_or("").to_string(),
        None => format!(
            "{}/{} tests pass (build {:.1}s, tests {:.1}s){}{}",
            v.tests_passed,
            v.tests_total,
            v.build_s,
            v.test_s,
            if v.failing.is_empty() {
                String::new()
            } else {
                format!("; still failing: {}", v.failing.join(", "))
            },
            if v.not_run == 0 {
                String::new()
            } else {
                format!("; the other {} tests not run", v.not_run)
            }
        ),
    }
}

fn runtime_fix(mut fix: Fix, passed: &[bool]) -> Fix {
    fix.validation = "runtime";
    fix.plausible = true;
    fix.tests_passed = passed.iter().filter(|p| **p).count();
    fix.tests_total = passed.len();
    fix.effect = passed.to_vec();
    fix
}

fn rebuilt_fix(mut fix: Fix, v: &Validation, plausible: bool) -> Fix {
    fix.validation = "rebuild";
    fix.validated = v.validated;
    fix.plausible = plausible;
    fix.tests_passed = v.tests_passed;
    fix.tests_total = v.tests_total;
    fix.effect = v.passed.clone();
    if !v.validated {
        fix.rejected = Some(describe(v));
    }
    fix
}

/// Fixes in order: validated first, then fewest edits, the simplest change, the most
/// techniques agreeing, the best suspect; one per effect (the same tests passing and the
/// same code after whitespace).
#[cfg(test)]
fn rank(fixes: Vec<Fix>) -> Vec<Fix> {
    rank_keyed(
        fixes
            .into_iter()
            .map(|fix| {
                let code = code_key(&fix, &Files::default());
                (fix, code)
            })
            .collect(),
    )
}

/// What makes two fixes' code the same: the fingerprints of their patched files, whitespace
/// aside.
pub(crate) fn code_key(fix: &Fix, files: &Files) -> Vec<String> {
    (fix.files.iter())
        .map(|f| match files.functions.get(&f.path) {
            Some(functions) => patch::changed_code_within(&f.before, functions, &f.after),
            None => patch::changed_code(&f.before, &f.after),
        })
        .collect()
}

/// [`rank`], each fix with its [`code_key`].
pub(crate) fn rank_keyed(mut fixes: Vec<(Fix, Vec<String>)>) -> Vec<Fix> {
    // The same change at every copy of a site (see `copies`) is one change, and it comes
    // before the change of one copy: a person fixes them all.
    let changes = |fix: &Fix| -> BTreeSet<(String, String)> {
        (fix.edits.iter())
            .map(|e| (patch::squeeze(&e.original), patch::squeeze(&e.replacement)))
            .collect()
    };
    // Each fix's key once (its changes and their sizes are tokenized), not per comparison.
    fixes.sort_by_cached_key(|(fix, _)| {
        let changes = changes(fix);
        let size: usize = (changes.iter())
            .map(|(original, replacement)| changed_tokens(original, replacement))
            .sum();
        (
            !fix.validated,
            changes.len(),
            fix.cost,
            size,
            std::cmp::Reverse(fix.edits.len()),
            std::cmp::Reverse(fix.localized_by.len()),
            fix.suspect_rank,
            tokens(&fix.replacement),
        )
    });
    let mut seen = BTreeSet::new();
    fixes.retain(|(fix, code)| seen.insert((fix.effect.clone(), code.clone())));
    let mut fixes: Vec<Fix> = fixes.into_iter().map(|(fix, _)| fix).collect();
    for (i, fix) in fixes.iter_mut().enumerate() {
        fix.rank = i + 1;
    }
    fixes
}

/// How many tokens an edit changes: those of the longer side, once the tokens both sides
/// start and end with are set aside (`balance == 0` → `balance < 0` changes one token, as
/// `0` → `1` does). The size of an edit, not of the code around it.
fn changed_tokens(original: &str, replacement: &str) -> usize {
    fn leaves(stream: proc_macro2::TokenStream, out: &mut Vec<String>) {
        // An operator of several characters (`==`, `+=`) is one token.
        let mut joined = false;
        for tree in stream {
            let joint = matches!(&tree, proc_macro2::TokenTree::Punct(p) if p.spacing() == proc_macro2::Spacing::Joint);
            match tree {
                proc_macro2::TokenTree::Punct(p) if joined => {
                    if let Some(last) = out.last_mut() {
                        last.push(p.as_char());
                    }
                }
                proc_macro2::TokenTree::Group(g) => {
                    let (open, close) = patch::delimiters(g.delimiter());
                    out.push(open.to_string());
                    leaves(g.stream(), out);
                    out.push(close.to_string());
                }
                other => out.push(other.to_string()),
            }
            joined = joint;
        }
    }
    let split = |code: &str| {
        code.parse::<proc_macro2::TokenStream>().ok().map(|s| {
            let mut out = Vec::new();
            leaves(s, &mut out);
            out
        })
    };
    let (Some(a), Some(b)) = (split(original), split(replacement)) else {
        return usize::MAX / 4;
    };
    let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..]
        .iter()
        .rev()
        .zip(b[prefix..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    (a.len() - prefix - suffix).max(b.len() - prefix - suffix)
}

/// How many tokens a piece of code has (a measure of how simple a replacement is).
fn tokens(code: &str) -> usize {
    fn count(stream: proc_macro2::TokenStream) -> usize {
        stream
            .into_iter()
            .map(|t| match t {
                proc_macro2::TokenTree::Group(g) => 2 + count(g.stream()),
                _ => 1,
            })
            .sum()
    }
    code.parse().map_or(usize::MAX, count)
}

/// Tests above which a suite is large (see `Rerun::enough`).
const LARGE_SUITE: usize = 500;

/// The files of the workspace as this run read them (each once: every candidate patches
/// the same text, the one `--apply` checks the file still has).
#[derive(Default, Clone)]
pub(crate) struct Files {
    texts: BTreeMap<String, Result<String, String>>,
    /// The byte ranges of each text's functions ([`patch::functions`]), found once.
    functions: BTreeMap<String, Vec<std::ops::Range<usize>>>,
}

impl Files {
    fn read(&mut self, root: &Path, path: &str) -> Result<&str, String> {
        let text = (self.texts.entry(path.to_string()))
            .or_insert_with(|| crate::workspace::read_source(root, path));
        if let Ok(text) = text {
            (self.functions.entry(path.to_string())).or_insert_with(|| patch::functions(text));
        }
        text.as_deref().map_err(String::clone)
    }

    fn get(&self, path: &str) -> Option<&str> {
        self.texts.get(path)?.as_deref().ok()
    }

    /// `path`'s text as read and parsed (an item the parser rejects left out), with the
    /// functions its `macro_rules!` write appended as items: their sites are targets like
    /// any other.
    fn parsed(&self, path: &str) -> Option<(&str, syn::File)> {
        let text = self.get(path)?;
        Some((
            text,
            autodebug_syntax::parse_file_with_macro_items(text).ok()?,
        ))
    }

    /// `path`'s text patched by `edits` ([`patch::apply_edits`]).
    fn apply(&self, path: &str, edits: &[patch::Edit]) -> Result<String> {
        let text = self.get(path).context("the file was not read")?;
        match self.functions.get(path) {
            Some(functions) => patch::apply_edits_within(text, functions, edits),
            None => patch::apply_edits(text, edits),
        }
    }
}

/// The `&&`/`||` chain around each target that is a clause of one (see
/// [`overfit::chain_around`]).
fn chains(
    targets: &[Target],
    files: &Files,
) -> BTreeMap<SiteKey, (String, std::ops::Range<usize>)> {
    let mut out = BTreeMap::new();
    let mut parsed: BTreeMap<&str, Option<(&str, syn::File)>> = BTreeMap::new();
    for target in targets {
        let file = parsed
            .entry(target.path.as_str())
            .or_insert_with(|| files.parsed(&target.path));
        if let Some((text, file)) = file
            && let Some(chain) = overfit::chain_around(file, text, &target.located.bytes)
        {
            out.insert(target.site.key(), chain);
        }
    }
    out
}

/// Whether the bytes `inner` lie within `outer`.
pub(crate) fn holds(outer: &std::ops::Range<usize>, inner: &std::ops::Range<usize>) -> bool {
    outer.start <= inner.start && inner.end <= outer.end
}

/// The statements of the innermost block that has a statement holding the bytes `at`, and
/// that statement's index: where a source reading a statement's neighbours starts.
pub(crate) fn statement_around<'f>(
    file: &'f syn::File,
    at: &std::ops::Range<usize>,
) -> Option<(&'f [syn::Stmt], usize)> {
    struct Innermost<'f, 'a> {
        at: &'a std::ops::Range<usize>,
        found: Option<(&'f [syn::Stmt], usize)>,
    }
    impl<'f> syn::visit::Visit<'f> for Innermost<'f, '_> {
        fn visit_block(&mut self, block: &'f syn::Block) {
            let holding = (block.stmts.iter())
                .position(|s| holds(&syn::spanned::Spanned::span(s).byte_range(), self.at));
            if let Some(i) = holding {
                self.found = Some((&block.stmts, i));
            }
            syn::visit::visit_block(self, block);
        }
    }
    let mut walk = Innermost { at, found: None };
    syn::visit::Visit::visit_file(&mut walk, file);
    walk.found
}

/// The patch of a candidate: its edits located in the files as read, applied per file.
fn make_fix(
    candidate: &Candidate,
    targets: &[Target],
    by_key: &BTreeMap<SiteKey, usize>,
    files: &Files,
) -> Result<Fix> {
    let mut by_file: BTreeMap<&str, Vec<(&Target, &CandidateEdit)>> = BTreeMap::new();
    for edit in &candidate.edits {
        let target = by_key
            .get(&edit.site)
            .map(|&i| &targets[i])
            .context("an edit of a site that is not a repair target")?;
        by_file
            .entry(target.path.as_str())
            .or_default()
            .push((target, edit));
    }
    let mut changes = Vec::new();
    let mut diff = String::new();
    let mut hashes = BTreeMap::new();
    for (path, edits) in &by_file {
        let before = files.get(path).context("the file was not read")?;
        let after = files.apply(
            path,
            &edits
                .iter()
                .map(|(t, e)| patch::Edit {
                    bytes: e.statement.clone().unwrap_or(t.located.bytes.clone()),
                    replacement: e.rust.clone(),
                    statement: e.statement.is_some(),
                })
                .collect::<Vec<_>>(),
        )?;
        diff.push_str(&crate::edit::unified_diff(path, before, &after));
        hashes.insert(path.to_string(), crate::edit::fingerprint(before));
        changes.push(FileChange {
            path: path.to_string(),
            before: before.to_string(),
            after,
        });
    }
    let mut entries = Vec::new();
    let mut localized_by = BTreeSet::new();
    let mut suspect_rank = usize::MAX;
    for edit in &candidate.edits {
        let target = &targets[by_key[&edit.site]];
        suspect_rank = suspect_rank.min(target.rank);
        localized_by.extend(target.localized_by.iter().copied());
        let entry = EditEntry {
            file: target.path.clone(),
            line: target.site.line,
            column: target.site.column,
            end_line: target.site.end_line,
            end_column: target.site.end_column,
            kind: target.site.kind,
            original: target.located.original.clone(),
            replacement: edit.rust.clone(),
        };
        entries.push(match &edit.statement {
            // A statement edit says where it is in the file as read.
            Some(bytes) => {
                let text = files.get(&target.path).context("the file was not read")?;
                let (line, column) = autodebug_syntax::line_column(text, bytes.start);
                let (end_line, end_column) = autodebug_syntax::line_column(text, bytes.end);
                EditEntry {
                    line,
                    column,
                    end_line,
                    end_column,
                    original: text[bytes.clone()].to_string(),
                    ..entry
                }
            }
            None => entry,
        });
    }
    // In the order of the files (a fix of two faults reads top to bottom).
    entries.sort_by(|a, b| (&a.file, a.line, a.column).cmp(&(&b.file, b.line, b.column)));
    let first = entries[0].clone();
    Ok(Fix {
        rank: 0,
        file: first.file,
        line: first.line,
        column: first.column,
        end_line: first.end_line,
        end_column: first.end_column,
        original: first.original,
        replacement: first.replacement,
        diff,
        technique: candidate.source,
        template: candidate.template.clone(),
        validated: false,
        validation: "runtime",
        tests_passed: 0,
        tests_total: 0,
        plausible: false,
        cost: candidate.cost,
        suspect_rank,
        localized_by: localized_by.into_iter().collect(),
        edits: entries,
        file_hashes: hashes,
        rejected: None,
        files: changes,
        effect: Vec::new(),
    })
}

/// Hook calls a run under a candidate may make: a hundred times the longest recorded
/// trace (as the runtime wrote it: a passing one's is held in part), and never fewer than
/// ten million (a candidate that makes a loop run away hits it in well under a second).
fn fuel(traces: &[RecordedTrace]) -> u64 {
    let longest = traces.iter().map(|t| t.trace.length()).max().unwrap_or(0);
    (100 * longest).max(10_000_000)
}

/// A replacement without parentheses around the whole of it (`(lo < hi)` once a `!` is
/// gone): the patch adds them back where the neighbours would regroup.
fn without_outer_parens(rust: &str) -> String {
    use syn::spanned::Spanned;
    match syn::parse_str::<syn::Expr>(rust) {
        Ok(syn::Expr::Paren(p)) if p.attrs.is_empty() => {
            let inner = p.expr.span().byte_range();
            rust.get(inner)
                .map_or_else(|| rust.to_string(), without_outer_parens)
        }
        _ => rust.to_string(),
    }
}

/// A candidate's code as a person writes it: a negated (in)equality `!(a == b)` as `a != b`
/// and `!(a != b)` as `a == b` (the same value for every `PartialEq`), and inside it a negated
/// literal `!true` as `false`, parentheses under a `!` that hold one operand (`!(done)`,
/// `!(v.is_empty())`) dropped; the rest of the text as it is.
fn complement_negated_equality(rust: &str) -> String {
    complement_negated_equality_only(&without_needless_negations(rust))
}

/// `rust` with `!true`/`!false` as `false`/`true` and `!(x)` as `!x` where `x` is a path, a
/// literal, a call, a method call, a field or an index (the outermost such spot wins).
fn without_needless_negations(rust: &str) -> String {
    use syn::spanned::Spanned;
    use syn::visit::Visit;
    struct Spots<'a> {
        text: &'a str,
        found: Vec<(std::ops::Range<usize>, String)>,
    }
    impl<'ast> Visit<'ast> for Spots<'_> {
        fn visit_expr_unary(&mut self, e: &'ast syn::ExprUnary) {
            if matches!(e.op, syn::UnOp::Not(_)) {
                let whole = e.span().byte_range();
                let inner = match &*e.expr {
                    syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Bool(b),
                        ..
                    }) => Some((!b.value).to_string()),
                    syn::Expr::Paren(p)
                        if matches!(
                            &*p.expr,
                            syn::Expr::Path(_)
                                | syn::Expr::Lit(_)
                                | syn::Expr::Call(_)
                                | syn::Expr::MethodCall(_)
                                | syn::Expr::Field(_)
                                | syn::Expr::Index(_)
                        ) =>
                    {
                        self.text
                            .get(p.expr.span().byte_range())
                            .map(|t| format!("!{t}"))
                    }
                    _ => None,
                };
                if let Some(replacement) = inner
                    && !self
                        .found
                        .iter()
                        .any(|(r, _)| r.start <= whole.start && whole.end <= r.end)
                {
                    self.found.push((whole, replacement));
                    return;
                }
            }
            syn::visit::visit_expr_unary(self, e);
        }
    }
    let Ok(expr) = syn::parse_str::<syn::Expr>(rust) else {
        return rust.to_string();
    };
    let mut spots = Spots {
        text: rust,
        found: Vec::new(),
    };
    spots.visit_expr(&expr);
    if spots.found.is_empty() {
        return rust.to_string();
    }
    let mut out = rust.to_string();
    spots.found.sort_by_key(|(r, _)| std::cmp::Reverse(r.start));
    for (range, replacement) in spots.found {
        if out.get(range.clone()).is_some() {
            out.replace_range(range, &replacement);
        }
    }
    out
}

/// `!(a == b)` as `a != b`, `!(a != b)` as `a == b`; anything else as it is.
fn complement_negated_equality_only(rust: &str) -> String {
    use syn::spanned::Spanned;
    let Ok(syn::Expr::Unary(syn::ExprUnary {
        op: syn::UnOp::Not(_),
        expr,
        ..
    })) = syn::parse_str::<syn::Expr>(rust)
    else {
        return rust.to_string();
    };
    let syn::Expr::Paren(paren) = &*expr else {
        return rust.to_string();
    };
    let syn::Expr::Binary(b) = &*paren.expr else {
        return rust.to_string();
    };
    let complement = match b.op {
        syn::BinOp::Eq(_) => "!=",
        syn::BinOp::Ne(_) => "==",
        _ => return rust.to_string(),
    };
    let (left, right) = (b.left.span().byte_range(), b.right.span().byte_range());
    match (rust.get(left), rust.get(right)) {
        (Some(l), Some(r)) => format!("{l} {complement} {r}"),
        _ => rust.to_string(),
    }
}

/// Hook calls a rerun of a recorded test may make: this many times the written code's
/// longest recorded run (a fix may let a test that failed early run on, as long as the
/// tests that pass run).
const FUEL_FACTOR: u64 = 50;
/// And at least this many. A runaway candidate (a loop bound that no longer ends the loop)
/// costs every failing test it runs this many hook calls, about 6 ms in a debug build:
/// candidates like that are a good part of every batch.
const FUEL_FLOOR: u64 = 20_000;

/// The fuel of each recorded test's reruns. A candidate that needs more is refuted like one
/// that loops: the cost of a slow correct candidate, against tens of seconds of every
/// runaway one at the general bound. A test that timed out gets the same fuel once some
/// recorded run ended: a fix must let it end as the suite's other runs do, and a candidate
/// under which it still hangs is refuted in milliseconds instead of at the timeout.
fn fuel_by_test(traces: &[RecordedTrace]) -> BTreeMap<String, u64> {
    // Whole as the runtime wrote them (the tool may hold a passing one's first events only).
    let complete = || {
        traces
            .iter()
            .filter(|t| t.trace.whole_length().is_some() && !t.trace.coverage)
    };
    let Some(longest) = complete().filter_map(|t| t.trace.whole_length()).max() else {
        return BTreeMap::new();
    };
    let fuel = (FUEL_FACTOR * longest).max(FUEL_FLOOR);
    let hung = traces.iter().filter(|t| {
        matches!(t.outcome, crate::model::Outcome::Timeout { .. }) && !t.trace.coverage
    });
    (complete().chain(hung))
        .map(|t| (t.test.display(), fuel))
        .collect()
}

/// The sites to repair: the top suspects (sites a fix can change) with those tied with the
/// last of them, and every critical predicate, each found again in its file. A site that
/// cannot be is a note.
fn targets(
    context: &Context,
    limits: &Limits,
    files: &mut Files,
    notes: &mut Vec<String>,
) -> Vec<Target> {
    let critical = |s: &Ranked| {
        s.techniques.iter().any(|e| {
            e.technique == "predicate-switching" && e.detail.starts_with("critical predicate")
        })
    };
    let candidates: Vec<&Ranked> = context
        .suspects
        .iter()
        .filter(|s| crate::localize::is_candidate(s.kind))
        .collect();
    // Suspects tied with the last one of the top `limits.suspects` are tried too (up to as
    // many again): where the evidence cannot order them, their order is no reason to leave
    // one out.
    let last_score = candidates
        .get(limits.suspects.saturating_sub(1))
        .map(|s| s.score);
    let keyed: Vec<(&Ranked, SiteKey)> = (candidates.into_iter())
        .map(|s| (s, site_info(context, s).key()))
        .collect();
    let (mut chosen, mut chosen_keys): (Vec<&Ranked>, BTreeSet<SiteKey>) =
        (keyed.iter().enumerate())
            .filter(|(i, (s, _))| {
                *i < limits.suspects
                    || critical(s)
                    || (*i < 2 * limits.suspects && Some(s.score) == last_score)
            })
            .map(|(_, (s, key))| (*s, key.clone()))
            .unzip();
    // Each failing test's own best suspects (the first of those its run reached) are
    // tried too: where two faults fail different tests, the ranking over the whole suite
    // may put all of one fault's function before the other's sites.
    let failing = (context.baseline.iter())
        .filter(|r| r.deterministic_failure())
        .take(PER_TEST_TESTS);
    for result in failing {
        let own: Vec<&(&Ranked, SiteKey)> = (keyed.iter())
            .filter(|(_, key)| result.coverage.contains_key(key))
            .take(2 * PER_TEST_SUSPECTS)
            .collect();
        // Those tied with the last one are taken too, as above.
        let last = own.get(PER_TEST_SUSPECTS - 1).map(|(s, _)| s.score);
        let own = (own.iter().enumerate())
            .filter(|(i, (s, _))| *i < PER_TEST_SUSPECTS || Some(s.score) == last)
            .map(|(_, own)| own);
        for (suspect, key) in own {
            if chosen_keys.insert(key.clone()) {
                chosen.push(suspect);
            }
        }
    }
    let mut targets = Vec::new();
    for suspect in chosen {
        targets.extend(targets_at(context, suspect, files, notes, &mut chosen_keys));
    }
    // The failing calls' text is the same for every target: read once.
    let chars = text_chars(context.oracles);
    for target in &mut targets {
        target.types.chars = chars.clone();
    }
    targets
}

/// The targets at `suspect`'s site: the site, and the clauses of its condition not in
/// `taken` yet (they are taken then). None when its file cannot be read or the site not
/// found in it (a note says so). Their `types.chars` are left for the caller.
fn targets_at(
    context: &Context,
    suspect: &Ranked,
    files: &mut Files,
    notes: &mut Vec<String>,
    taken: &mut BTreeSet<SiteKey>,
) -> Vec<Target> {
    let site = site_info(context, suspect);
    let text = match files.read(context.workspace_root, &suspect.file) {
        Ok(text) => text,
        Err(error) => {
            notes.push(format!("repair: {error}"));
            return Vec::new();
        }
    };
    let located = match patch::locate(text, &site) {
        Ok(located) => located,
        Err(error) => {
            notes.push(format!(
                "repair: {}:{}:{} not repaired: {error:#}",
                suspect.file, suspect.line, suspect.column
            ));
            return Vec::new();
        }
    };
    let mut localized_by: Vec<&'static str> =
        suspect.techniques.iter().map(|e| e.technique).collect();
    localized_by.sort_unstable();
    localized_by.dedup();
    // The clauses of a `&&`/`||` condition are sites of their own, whose hooks report
    // their comparisons' operands: an edit inside one clause is evaluated there by the
    // runtime even when the whole condition reads what it cannot evaluate.
    let clauses = if matches!(site.kind, SiteKind::If | SiteKind::While | SiteKind::Guard) {
        clause_sites(context, &site)
    } else {
        Vec::new()
    };
    let mut out = vec![target(
        context,
        site,
        suspect,
        located,
        localized_by.clone(),
    )];
    for clause in clauses {
        if taken.insert(clause.key())
            && let Ok(located) = patch::locate(text, &clause)
        {
            out.push(target(
                context,
                clause,
                suspect,
                located,
                localized_by.clone(),
            ));
        }
    }
    out
}

/// A target at `site`, localized by `suspect`.
fn target(
    context: &Context,
    site: SiteInfo,
    suspect: &Ranked,
    located: Located,
    localized_by: Vec<&'static str>,
) -> Target {
    let mut types = types(context.traces, &site);
    if site.kind.is_branch() {
        types.operand_texts = expression::operand_texts(&located.original);
    }
    Target {
        types,
        site,
        path: suspect.file.clone(),
        located,
        rank: suspect.rank,
        localized_by,
    }
}

/// The characters of the text (strings, characters, and sequences of them) the failing
/// calls were given and were expected to return, each once, in order of first appearance,
/// at most [`MAX_CHARS`].
fn text_chars(oracles: &[crate::oracle::Oracle]) -> Vec<char> {
    fn walk(value: &autodebug_runtime::protocol::Value, out: &mut Vec<char>) {
        use autodebug_runtime::protocol::Value;
        match value {
            Value::Str { v, .. } => v.chars().for_each(|c| add(c, out)),
            Value::Char(c) => add(*c, out),
            Value::Seq { items, .. } => items.iter().for_each(|v| walk(v, out)),
            _ => {}
        }
    }
    fn add(c: char, out: &mut Vec<char>) {
        if out.len() < MAX_CHARS && !out.contains(&c) {
            out.push(c);
        }
    }
    let mut out = Vec::new();
    for oracle in oracles {
        for (_, value) in oracle.call.iter().flat_map(|c| &c.args) {
            walk(value, &mut out);
        }
        if let Some(crate::oracle::Expectation::Returns(value)) = &oracle.expectation {
            walk(value, &mut out);
        }
    }
    out
}

/// The most characters [`text_chars`] gathers.
const MAX_CHARS: usize = 32;

/// The `Operand` sites (clauses of `&&`/`||`) inside a branch site's condition, from the
/// traces, in source order.
fn clause_sites(context: &Context, branch: &SiteInfo) -> Vec<SiteInfo> {
    let mut found: BTreeMap<(u32, u32), SiteInfo> = BTreeMap::new();
    for site in context.traces.iter().flat_map(|t| t.trace.sites.values()) {
        if site.kind == SiteKind::Operand
            && site.file == branch.file
            && (branch.line, branch.column) <= (site.line, site.column)
            && (site.end_line, site.end_column) <= (branch.end_line, branch.end_column)
        {
            found.insert((site.line, site.column), site.clone());
        }
    }
    found.into_values().collect()
}

/// The runtime's description of a suspect's site (its `file` as the compiler saw it), from
/// the traces; rebuilt from the suspect when no trace has it.
fn site_info(context: &Context, suspect: &Ranked) -> SiteInfo {
    context
        .traces
        .iter()
        .flat_map(|t| t.trace.sites.values())
        .find(|s| {
            s.line == suspect.line
                && s.column == suspect.column
                && s.kind == suspect.kind
                && workspace_path(context.workspace_root, &s.file) == suspect.file
        })
        .cloned()
        .unwrap_or_else(|| SiteInfo {
            file: suspect.file.clone(),
            line: suspect.line,
            column: suspect.column,
            end_line: suspect.end_line,
            end_column: suspect.end_column,
            kind: suspect.kind,
            code: suspect.code.clone(),
            function: suspect.function.clone(),
        })
}

/// What the traces tell of the types at `site`: its value's (from its component events),
/// its comparison's operands (from its branch events), and the variables in scope (from
/// its own component events, else from every event of its function: the arguments on entry
/// and the scopes of its components).
fn types(traces: &[RecordedTrace], site: &SiteInfo) -> Types {
    let key = site.key();
    let mut out = Types {
        value: site.kind.is_branch().then(|| "bool".to_string()),
        ..Types::default()
    };
    let mut own_scope: BTreeMap<String, String> = BTreeMap::new();
    let mut function_scope: BTreeMap<String, Option<String>> = BTreeMap::new();
    for recorded in traces {
        let trace = &recorded.trace;
        let ids: BTreeSet<u32> = trace
            .sites
            .iter()
            .filter(|(_, s)| s.key() == key)
            .map(|(id, _)| *id)
            .collect();
        let same_function: BTreeSet<u32> = trace
            .sites
            .iter()
            .filter(|(_, s)| s.function == site.function && s.file == site.file)
            .map(|(id, _)| *id)
            .collect();
        let mut note = |name: &str, ty: Option<String>| {
            let entry = function_scope.entry(name.to_string()).or_insert(ty.clone());
            // A name with two types (shadowing) is not used.
            if *entry != ty {
                *entry = None;
            }
        };
        for event in &trace.events {
            match event {
                Record::Component {
                    site: id,
                    value,
                    scope,
                    overridden: false,
                    ..
                } if same_function.contains(id) => {
                    if ids.contains(id) {
                        if out.value.is_none() {
                            out.value = expression::type_of(value);
                        }
                        for (name, v) in scope {
                            if let Some(ty) = expression::type_of(v) {
                                own_scope.insert(name.clone(), ty);
                            }
                        }
                    }
                    for (name, v) in scope {
                        note(name, expression::type_of(v));
                    }
                }
                Record::Branch {
                    site: id, operands, ..
                } if ids.contains(id) && out.operands.is_none() => {
                    out.operands = operands.iter().find_map(expression::type_of);
                }
                Record::Enter { site: id, args } if same_function.contains(id) => {
                    for (name, v) in args {
                        note(name, expression::type_of(v));
                    }
                }
                _ => {}
            }
        }
    }
    out.vars = if own_scope.is_empty() {
        function_scope
            .into_iter()
            .filter_map(|(name, ty)| Some((name, ty?)))
            .collect()
    } else {
        own_scope
    };
    out
}

/// `text` with a statement edit (one whose [`CandidateEdit::statement`] bytes it replaces)
/// applied: what a statement source's tests compare.
#[cfg(test)]
pub(crate) fn with_statement_edit(text: &str, edit: &CandidateEdit) -> String {
    patch::apply_edits(
        text,
        &[patch::Edit {
            bytes: edit.statement.clone().expect("a statement edit"),
            replacement: edit.rust.clone(),
            statement: true,
        }],
    )
    .unwrap()
}

/// `text` as the file `src/lib.rs` of a scratch crate, read as repair reads it, and the
/// target at its bytes `start..start + code.len()`, a site of `kind` with `types`: what a
/// candidate source's tests ask for candidates.
#[cfg(test)]
pub(crate) fn scratch_target(
    text: &str,
    start: usize,
    code: &str,
    kind: SiteKind,
    types: Types,
) -> (Files, Target) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("src/lib.rs"), text).unwrap();
    let site = patch::site_at(text, start..start + code.len(), kind);
    let target = Target {
        path: "src/lib.rs".into(),
        located: patch::locate(text, &site).unwrap(),
        site,
        rank: 1,
        localized_by: Vec::new(),
        types,
    };
    let mut files = Files::default();
    files.read(dir.path(), "src/lib.rs").unwrap();
    (files, target)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::fingerprint;

    #[test]
    fn a_negated_equality_reads_as_its_complement() {
        assert_eq!(complement_negated_equality("!(x % 2 == 1)"), "x % 2 != 1");
        assert_eq!(complement_negated_equality("!(a != b)"), "a == b");
        assert_eq!(complement_negated_equality("!(a < b)"), "!(a < b)");
        assert_eq!(complement_negated_equality("!flag"), "!flag");
        assert_eq!(complement_negated_equality("!true"), "false");
        assert_eq!(complement_negated_equality("a && !false"), "a && true");
        assert_eq!(complement_negated_equality("!(done)"), "!done");
        assert_eq!(
            complement_negated_equality("!(v.is_empty()) || x"),
            "!v.is_empty() || x"
        );
        assert_eq!(complement_negated_equality("!(a || b)"), "!(a || b)");
        assert_eq!(complement_negated_equality("!(x == 1)"), "x != 1");
    }

    #[test]
    fn an_edit_is_as_large_as_the_tokens_it_changes() {
        assert_eq!(changed_tokens("balance == 0", "balance < 0"), 1);
        assert_eq!(changed_tokens("0", "1"), 1);
        assert_eq!(changed_tokens("n * n / 2", "n * (n + 1) / 2"), 5);
        assert_eq!(changed_tokens("a + b + 1", "a + b"), 2);
        assert_eq!(changed_tokens("", "v.sort();"), 6);
        assert_eq!(changed_tokens("f(x)", "f(x)"), 0);
    }

    #[test]
    fn a_test_that_timed_out_gets_the_fuel_of_the_runs_that_ended() {
        use crate::model::{Outcome, Role, TestId};
        use autodebug_runtime::protocol::Record;
        let recorded = |name: &str, outcome: Outcome, events: usize, truncated: bool| {
            let mut trace = crate::trace::RawTrace {
                truncated,
                ..Default::default()
            };
            trace.events = vec![
                Record::Exit {
                    site: 0,
                    panicking: false
                };
                events
            ];
            RecordedTrace {
                test: TestId {
                    package: "p".into(),
                    target: "p".into(),
                    kind: "lib".into(),
                    name: name.into(),
                    binary: Default::default(),
                    package_root: Default::default(),
                },
                role: Role::Failing,
                outcome,
                trace,
            }
        };
        let timeout = || Outcome::Timeout { seconds: 3.0 };
        let hangs = recorded("hangs", timeout(), 5_000_000, true);
        let passes = recorded("passes", Outcome::Passed, 1_000, false);
        let long = recorded("long", Outcome::Passed, 3_000_000, true);
        let fuel = fuel_by_test(&[hangs, passes, long]);
        // 50 times the longest run that ended (at least the floor); a long run that was cut
        // by the recording's cap but ended keeps the general bound.
        assert_eq!(fuel.get("p::hangs"), Some(&50_000));
        assert_eq!(fuel.get("p::passes"), Some(&50_000));
        assert_eq!(fuel.get("p::long"), None);
        // With no run that ended there is nothing to measure a hang against.
        let alone = recorded("hangs", timeout(), 5_000_000, true);
        assert!(fuel_by_test(&[alone]).is_empty());
    }

    #[test]
    fn outer_parentheses_go() {
        assert_eq!(without_outer_parens("(lo < hi)"), "lo < hi");
        assert_eq!(without_outer_parens("((a))"), "a");
        assert_eq!(without_outer_parens("(a) + (b)"), "(a) + (b)");
        assert_eq!(without_outer_parens("(a, b)"), "(a, b)");
        assert_eq!(without_outer_parens("x <"), "x <");
    }

    fn fix(replacement: &str, validated: bool, cost: u32, effect: &[bool], after: &str) -> Fix {
        Fix {
            rank: 0,
            file: "src/lib.rs".into(),
            line: 1,
            column: 1,
            end_line: 1,
            end_column: 2,
            original: "x".into(),
            replacement: replacement.into(),
            diff: String::new(),
            technique: "syntactic",
            template: "variable".into(),
            validated,
            validation: "rebuild",
            tests_passed: 0,
            tests_total: 0,
            plausible: true,
            cost,
            suspect_rank: 1,
            localized_by: vec!["ochiai"],
            edits: vec![],
            file_hashes: BTreeMap::new(),
            rejected: None,
            files: vec![FileChange {
                path: "src/lib.rs".into(),
                before: String::new(),
                after: after.into(),
            }],
            effect: effect.to_vec(),
        }
    }

    #[test]
    fn validated_fixes_that_differ_are_said_to_differ() {
        let fix = |rank: usize, line: u32, replacement: &str, validated: bool| Fix {
            rank,
            line,
            ..fix(replacement, validated, 1, &[true], "")
        };
        let one = [fix(1, 19, "i < n", true), fix(2, 21, "v[i + 1]", false)];
        assert_eq!(disagreement(&one), None, "one validated fix");
        let two = [fix(1, 19, "i < n", true), fix(2, 21, "v[i + 1]", true)];
        let note = disagreement(&two).expect("two validated fixes");
        assert!(
            note.starts_with("repair: 2 validated fixes differ (1. "),
            "{note}"
        );
        assert!(note.contains("at src/lib.rs:21"), "{note}");
    }

    #[test]
    fn fixes_rank_validated_and_simple_first_and_dedupe_by_effect() {
        let ranked = rank(vec![
            fix("y + 1", true, 1, &[true, true], "r = y + 1;"),
            fix("y", false, 1, &[true, true], "r = y;"),
            fix("y", true, 2, &[true, true], "r = y;"),
            // Same code but for whitespace, same effect: a duplicate.
            fix("y", true, 2, &[true, true], "r =  y ;"),
            fix("y", true, 1, &[true, true], "r = y;"),
            fix("z", false, 1, &[true, false], "r = z;"),
        ]);
        let shown: Vec<(&str, bool, u32, usize)> = ranked
            .iter()
            .map(|f| (f.replacement.as_str(), f.validated, f.cost, f.rank))
            .collect();
        assert_eq!(
            shown,
            [("y", true, 1, 1), ("y + 1", true, 1, 2), ("z", false, 1, 3)]
        );
    }

    #[test]
    fn fingerprints_tell_texts_apart() {
        assert_eq!(fingerprint("a"), fingerprint("a"));
        assert_ne!(fingerprint("r = x;"), fingerprint("r = y;"));
        assert!(fingerprint("").starts_with("fnv1a64:"));
    }
}
