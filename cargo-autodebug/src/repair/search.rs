//! The repair search: each target's sources propose candidates in batches, the suite is
//! rerun under them (the runtime evaluating each change in place of the code), and the
//! plausible ones, then those the runtime could not judge, are rebuilt and validated.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

use autodebug_runtime::protocol::{SiteInfo, SiteKey};

use super::rebuilds::{self, Outcome};
use super::rerun::{self, Rerun, Verdict};
use super::validate::{Rebuild, SuiteTest, Validation};
use super::{
    BATCH, Candidate, CandidateSource, Context, Files, Limits, Target, complement_negated_equality,
    describe, make_fix, patch, plural, rank_keyed, unchanged_runs, without_outer_parens,
};
use crate::console::Console;
use crate::model::{Fix, RepairDetails as Details};
use crate::model::{Item, Rebuilt, Shard};

/// What the search works over.
pub struct Search<'a> {
    pub context: &'a Context<'a>,
    pub limits: &'a Limits,
    pub console: &'a Console,
    /// When the stage began (its time budget runs from there).
    pub start: Instant,
    /// The sites to repair, in rank order (those found under a partial fix after them),
    /// and each one's index by site.
    pub targets: Vec<Target>,
    pub by_key: BTreeMap<SiteKey, usize>,
    /// The targets' copies, and those of the copies that no source is asked about (see
    /// [`super::copies`]).
    pub copies: super::copies::Copies,
    pub only_copies: BTreeSet<SiteKey>,
    /// The files of the targets as read.
    pub files: Files,
    /// The integers the failing tests use (no candidate writes them in, see
    /// [`super::overfit`]).
    pub tested: super::overfit::Tested,
    /// The `&&`/`||` chain around each target that is a clause of one, and the target's
    /// bytes in it (see [`super::overfit::idle_in`]).
    pub chains: BTreeMap<SiteKey, (String, std::ops::Range<usize>)>,
}

/// What the reruns said of the candidates.
#[derive(Default)]
pub struct Checked {
    /// Every test passed with the candidate in place (and which passed, for dedup).
    pub plausible: Vec<(Candidate, Vec<bool>)>,
    /// The runtime could not judge (or evaluate) them: the rebuild decides.
    pub(super) undecided: Vec<Candidate>,
    /// Refuted, kept only to be rebuilt anyway (`rebuild_all`).
    refuted: Vec<Candidate>,
    /// Every candidate proposed so far, by its edits.
    proposed: BTreeSet<Vec<(SiteKey, String)>>,
    /// One-token edits of one site refuted by the failing tests only (no passing test
    /// broken), the first [`super::partial::EXAMINED`]: the partial fixes are among them.
    pub refuted_single: Vec<Candidate>,
}

/// The required tests that failed in the baseline, by name.
pub(super) fn failing_tests(context: &Context, rerun: &Rerun) -> Vec<String> {
    (rerun.suite.iter())
        .zip(context.baseline)
        .filter(|(test, result)| test.required && !result.first.outcome.passed())
        .map(|(test, _)| test.display.clone())
        .collect()
}

/// Whether a candidate adds or takes away logic (a statement, a clause borrowed from
/// elsewhere, an iterator adaptor): such candidates are rebuilt after the one-token edits.
/// Not a guard, which a panic in its function with an argument of nothing asked for.
fn adds_logic(c: &Candidate) -> bool {
    (super::statements::edits_lines(c) && c.source != super::guards::NAME)
        || c.source == super::clauses::NAME
        || c.source == super::adaptors::NAME
}

/// Whether a candidate is what the evidence asked for by name: the operation an overflow
/// panic named, a dropped value the compiler warned of, a name a copied statement forgot
/// to rename. Such candidates are rebuilt first, before the plausible ones: those passed
/// the reruns, which weak tests let through.
fn asked_for(c: &Candidate) -> bool {
    c.source == super::overflow::NAME
        || c.source == super::discarded::NAME
        || c.source == super::renames::NAME
}

/// What makes two candidates the same: their sites and new code (after whitespace).
fn edits_key(c: &Candidate) -> Vec<(SiteKey, String)> {
    c.edits
        .iter()
        .map(|e| match &e.statement {
            Some(bytes) => (e.site.clone(), format!("{bytes:?}{}", e.rust)),
            None => (e.site.clone(), patch::squeeze(&e.rust)),
        })
        .collect()
}

impl Checked {
    /// Whether `c` is new (then it is taken as proposed); if it is not, the held one takes
    /// its cost when lower (see [`Checked::simpler`]).
    pub(super) fn propose(&mut self, c: &Candidate) -> bool {
        let key = edits_key(c);
        if self.proposed.insert(key.clone()) {
            return true;
        }
        self.simpler(&key, c);
        false
    }

    /// `again` proposes what is already checked (`key`): the checked candidate takes its
    /// cost if it is lower (so that the ranking does not depend on which source came
    /// first); it keeps the source and kind it was checked as.
    fn simpler(&mut self, key: &[(SiteKey, String)], again: &Candidate) {
        let held = (self.plausible.iter_mut().map(|(c, _)| c))
            .chain(self.undecided.iter_mut())
            .find(|c| edits_key(c) == key);
        if let Some(held) = held
            && again.cost < held.cost
        {
            held.cost = again.cost;
        }
    }
}

/// A candidate to rebuild, with the tests it passed when rerun (`None`: not plausible).
type Queued = (Candidate, Option<Vec<bool>>);

/// Why the proposals stopped before every source of every target ran dry.
pub(super) struct Cut;

/// Failed reruns (errors of the tool, such as a test process that could not be started)
/// after which the search stops.
const MAX_RERUN_FAILURES: usize = 3;

impl Search<'_> {
    /// Every source of every target, in order, until a bound stops it.
    pub fn check(
        &self,
        sources: &mut [Box<dyn CandidateSource + '_>],
        rerun: &Rerun,
        details: &mut Details,
        notes: &mut Vec<String>,
    ) -> Checked {
        let mut checked = Checked::default();
        let failing_tests = failing_tests(self.context, rerun);
        let targets = (self.targets.iter()).filter(|t| !self.only_copies.contains(&t.site.key()));
        let total = targets.clone().count();
        for (index, target) in targets.enumerate() {
            self.console.status(
                "Repairing",
                &format!(
                    "[{}/{}] {}:{}:{}  `{}`",
                    index + 1,
                    total,
                    target.path,
                    target.site.line,
                    target.site.column,
                    target.located.original.lines().next().unwrap_or("")
                ),
            );
            for source in sources.iter_mut() {
                let exhausted = self.check_source(
                    &mut **source,
                    target,
                    rerun,
                    &failing_tests,
                    &mut checked,
                    details,
                    notes,
                );
                if exhausted.is_err() {
                    return checked;
                }
            }
        }
        checked
    }

    /// One source's batches for one target, until it has no more.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn check_source(
        &self,
        source: &mut (dyn CandidateSource + '_),
        target: &Target,
        rerun: &Rerun,
        failing_tests: &[String],
        checked: &mut Checked,
        details: &mut Details,
        notes: &mut Vec<String>,
    ) -> Result<(), Cut> {
        loop {
            if self.start.elapsed() > self.limits.time {
                details.cut = Some(format!("time budget of {:?}", self.limits.time));
                return Err(Cut);
            }
            let room = self.limits.candidates.saturating_sub(details.candidates);
            if room == 0 {
                details.cut = Some(format!("{} candidates", self.limits.candidates));
                return Err(Cut);
            }
            let Some(batch) = self.next_batch(source, target, room, checked, details) else {
                return Ok(());
            };
            details.candidates += batch.len();
            let mut checkable = Vec::new();
            for candidate in &batch {
                match (rerun::plan(candidate, rerun.fuel), self.sites_of(candidate)) {
                    (Some(plan), Some(sites)) => checkable.push((candidate, plan, sites)),
                    _ if unchanged_runs(self.context, target, candidate) => {
                        // The failing runs would go as recorded: no rebuild needed.
                        details.refuted += 1;
                        details.refuted_by_traces += 1;
                        source.refute(target, candidate, failing_tests);
                    }
                    _ => {
                        details.not_evaluable += 1;
                        checked.undecided.push(candidate.clone());
                    }
                }
            }
            if checkable.is_empty() {
                continue;
            }
            let checking = Instant::now();
            let verdicts = rerun.check(&checkable);
            details.runtime_s += checking.elapsed().as_secs_f64();
            let verdicts = match verdicts {
                Ok(verdicts) => verdicts,
                Err(error) => {
                    // A failure of the rerun says nothing of the candidates: the rebuilds
                    // judge them, and the search goes on (a failure that repeats ends it).
                    details.rerun_failures += 1;
                    notes.push(format!(
                        "repair: rerunning under {} candidates for {}:{} failed (left to the rebuilds): {error:#}",
                        checkable.len(),
                        target.path,
                        target.site.line
                    ));
                    (checked.undecided).extend(checkable.iter().map(|(c, _, _)| (*c).clone()));
                    if details.rerun_failures >= MAX_RERUN_FAILURES {
                        details.cut = Some(format!("{MAX_RERUN_FAILURES} failed reruns"));
                        return Err(Cut);
                    }
                    continue;
                }
            };
            let mut found = 0;
            for ((candidate, _, _), verdict) in checkable.iter().zip(verdicts) {
                match verdict {
                    Verdict::Plausible { passed } => {
                        found += 1;
                        checked.plausible.push(((*candidate).clone(), passed));
                    }
                    Verdict::Refuted { failing, .. } => {
                        details.refuted += 1;
                        source.refute(target, candidate, &failing);
                        // One-token edits only: the borrowed clauses, many and seldom half
                        // a fix, would take the places of the edits that are.
                        if let [edit] = candidate.edits.as_slice()
                            && edit.statement.is_none()
                            && candidate.source != super::clauses::NAME
                            && failing.iter().all(|f| failing_tests.contains(f))
                            && checked.refuted_single.len() < super::partial::EXAMINED
                        {
                            checked.refuted_single.push((*candidate).clone());
                        }
                        if self.limits.rebuild_all {
                            checked.refuted.push((*candidate).clone());
                        }
                    }
                    Verdict::Inconclusive { .. } => {
                        details.inconclusive += 1;
                        checked.undecided.push((*candidate).clone());
                    }
                    Verdict::Skipped => details.skipped += 1,
                }
            }
            self.console.detail(&format!(
                "{}: {}:{}:{}: {} candidates rerun, {found} plausible",
                source.name(),
                target.path,
                target.site.line,
                target.site.column,
                checkable.len()
            ));
        }
    }

    /// The next batch of `source`'s candidates at `target` (at most `room`), written as a
    /// person writes them, without those to leave unchecked; `None` when the source has no
    /// more.
    fn next_batch(
        &self,
        source: &mut (dyn CandidateSource + '_),
        target: &Target,
        room: usize,
        checked: &mut Checked,
        details: &mut Details,
    ) -> Option<Vec<Candidate>> {
        let proposing = Instant::now();
        let mut batch = source.next(target, BATCH.min(room));
        details.propose_s += proposing.elapsed().as_secs_f64();
        // A borrowed clause is written as it must stand: parenthesized where the site is a
        // clause of a chain (`a && (b || x)`, not `a && b || x`).
        let written_whole = source.name() == super::clauses::NAME;
        for edit in batch.iter_mut().flat_map(|c| c.edits.iter_mut()) {
            if edit.statement.is_none() && !written_whole {
                edit.rust = complement_negated_equality(&without_outer_parens(&edit.rust));
            }
        }
        if batch.is_empty() {
            return None;
        }
        // An edit of a site with copies, made at every copy first (see `super::copies`).
        let mut batch: Vec<Candidate> = (batch.into_iter())
            .flat_map(|c| {
                super::copies::at_every_copy(&c, &self.copies)
                    .into_iter()
                    .chain([c])
            })
            .collect();
        // What an earlier source proposed is not checked again (nor a candidate that
        // changes nothing, nor one that passes without fixing: a loop's stride changed, a
        // tested value written in); when this source reaches it as a simpler edit, it keeps
        // the lower cost.
        batch.retain(|c| {
            !c.edits.is_empty() && !c.edits.iter().any(|e| self.overfits(e)) && checked.propose(c)
        });
        Some(batch)
    }

    /// Makes the sites of `suspect` not in `taken` targets of the search (they are taken
    /// then, and given the failing calls' `chars`); their indices.
    pub(super) fn add_targets(
        &mut self,
        suspect: &crate::model::Ranked,
        taken: &mut BTreeSet<SiteKey>,
        chars: &[char],
        notes: &mut Vec<String>,
    ) -> Vec<usize> {
        let mut added = Vec::new();
        for mut target in super::targets_at(self.context, suspect, &mut self.files, notes, taken) {
            target.types.chars = chars.to_vec();
            self.by_key.insert(target.site.key(), self.targets.len());
            added.push(self.targets.len());
            self.targets.push(target);
        }
        added
    }

    /// The sites `candidate` edits, as the runtime reports them (`None` if one is no
    /// target).
    pub(super) fn sites_of(&self, candidate: &Candidate) -> Option<Vec<SiteInfo>> {
        (candidate.edits.iter())
            .map(|e| {
                (self.by_key.get(&e.site))
                    .map(|&i| &self.targets[i])
                    .filter(|t| t.instrumented())
                    .map(|t| t.site.clone())
            })
            .collect()
    }

    /// Whether `edit` passes without fixing: it makes a step of one another constant, an
    /// operation that does nothing (in the site's code or in the chain of clauses around
    /// it), or writes a tested value in (see [`super::overfit`]).
    pub(super) fn overfits(&self, edit: &super::CandidateEdit) -> bool {
        edit.statement.is_none()
            && self.by_key.get(&edit.site).is_some_and(|&i| {
                let target = &self.targets[i];
                super::overfit::overfits(
                    target.site.kind,
                    &target.located.original,
                    &edit.rust,
                    &self.tested,
                ) || (self.chains.get(&edit.site)).is_some_and(|(chain, at)| {
                    super::overfit::idle_in(chain, at.clone(), &edit.rust)
                })
            })
    }

    /// Says on the console what the reruns decided.
    pub fn say_checked(&self, details: &Details) {
        if details.runtime_checked == 0 {
            return;
        }
        self.console.status(
            "Checked",
            &format!(
                "{} candidate{} by rerun ({} test runs in {} process{}, {:.1}s): {} plausible, {} refuted, {} undecided",
                details.runtime_checked,
                plural(details.runtime_checked),
                details.runtime_runs,
                details.runtime_processes,
                if details.runtime_processes == 1 { "" } else { "es" },
                details.runtime_s,
                details.plausible,
                details.refuted,
                details.inconclusive
            ),
        );
    }

    /// The order of the rebuilds (see [`arrange`]): the candidates the evidence asked for
    /// by name, the plausible ones, then those the runtime could not judge; each group by
    /// the number of edits, one-token edits before statement edits, then by the rank of the
    /// site and the simplicity of the change.
    pub fn queue(&self, checked: Checked) -> Vec<Queued> {
        let Checked {
            plausible,
            undecided,
            refuted,
            ..
        } = checked;
        let order = |c: &Candidate| {
            let rank = c
                .edits
                .iter()
                .filter_map(|e| self.by_key.get(&e.site).map(|&i| self.targets[i].rank))
                .min()
                .unwrap_or(usize::MAX);
            (
                !asked_for(c),
                super::copies::changes(c),
                adds_logic(c),
                rank,
                c.cost,
            )
        };
        arrange(
            plausible,
            undecided,
            refuted,
            order,
            self.limits.free_rebuilds,
        )
    }

    /// The candidate as a fix (its edits written into the files as read).
    pub(super) fn fix_of(&self, candidate: &Candidate) -> anyhow::Result<Fix> {
        make_fix(candidate, &self.targets, &self.by_key, &self.files)
    }

    /// The queue's candidates as the rebuild rules see them (see [`rebuilds`]).
    pub fn items(&self, queue: Vec<Queued>) -> Vec<Item> {
        queue
            .into_iter()
            .map(|(candidate, plausible)| {
                let (fix, unwritable) = match self.fix_of(&candidate) {
                    Ok(fix) => (Some(fix), None),
                    Err(error) => (
                        None,
                        Some(format!(
                            "`{}` could not be written as a patch: {error:#}",
                            candidate.edits[0].rust
                        )),
                    ),
                };
                Item {
                    code: (fix.as_ref())
                        .map(|fix| super::code_key(fix, &self.files))
                        .unwrap_or_default(),
                    fix,
                    unwritable,
                    dropped: None,
                    plausible,
                    sites: candidate.edits.iter().map(|e| e.site.clone()).collect(),
                    cost: candidate.cost,
                    combined: candidate.source == super::partial::NAME,
                    rebuilt: None,
                }
            })
            .collect()
    }

    /// Rebuilds the queue's candidates in order and runs the suite on each, within the
    /// bounds (a shard: those it owns); the fixes, ranked. Plausible candidates no rebuild
    /// reached are kept as runtime-checked fixes. `items` keep what their rebuilds showed.
    pub fn rebuild(
        &self,
        items: &mut [Item],
        suite: &[SuiteTest],
        shard: Option<Shard>,
        details: &mut Details,
        notes: &mut Vec<String>,
    ) -> Vec<Fix> {
        let mut rebuild: Option<Rebuild> = None;
        let total = {
            let combined = items.iter().filter(|i| i.combined).count();
            let budget = self.limits.rebuilds + combined.min(super::partial::REBUILDS);
            items.len().min(budget)
        };
        let mut results: Vec<(usize, Rebuilt)> = Vec::new();
        let kept = rebuilds::run(
            items,
            self.limits,
            details,
            notes,
            &|| self.start.elapsed() > self.limits.time,
            &mut |index, item, fix| {
                if shard.is_some_and(|s| !s.owns(item)) {
                    return Outcome::NotMine;
                }
                // Said first: the first rebuild may wait for the scratch copy's build.
                self.console.status(
                    "Rebuilding",
                    &format!("[{}/{total}] {}", results.len() + 1, at_and_edit(fix)),
                );
                if rebuild.is_none() {
                    match self.scratch_copy(suite) {
                        Ok(r) => rebuild = Some(r),
                        Err(error) => {
                            return Outcome::Broken(format!(
                                "repair: no scratch copy to rebuild in: {error:#}"
                            ));
                        }
                    }
                }
                let builder = rebuild.as_mut().expect("created above");
                // A rebuild's time is its patched build and suite: not the wait for the
                // copy (another run's lock, or its unpatched build), which is paid once.
                let started = Instant::now();
                let changes: Vec<(String, String)> = fix
                    .files
                    .iter()
                    .map(|f| (f.path.clone(), f.after.clone()))
                    .collect();
                let validation = match builder.validate(&changes) {
                    Ok(validation) => validation,
                    Err(error) => {
                        return Outcome::Broken(format!("repair: a rebuild failed: {error:#}"));
                    }
                };
                self.say_validation(fix, &validation, item.plausible.is_some());
                let done = Rebuilt {
                    validation,
                    seconds: started.elapsed().as_secs_f64(),
                };
                results.push((index, done.clone()));
                Outcome::Rebuilt(done)
            },
        );
        for (index, done) in results {
            items[index].rebuilt = Some(done);
        }
        details.rebuild_s = kept.rebuild_s;
        self.say_rebuilt(details);
        rank_keyed(
            kept.fixes
                .into_iter()
                .map(|(fix, code, _)| (fix, code))
                .collect(),
        )
    }

    /// What a rebuild showed, on the console: a warning when the reruns had passed it.
    fn say_validation(&self, fix: &Fix, validation: &Validation, plausible: bool) {
        if !validation.validated && plausible {
            // The reruns passed it: a rebuild that does not is worth saying.
            self.console.warn(&format!(
                "`{}` passed the reruns but not the rebuild: {}",
                fix.replacement,
                describe(validation)
            ));
        } else {
            self.console.detail(&describe(validation));
        }
    }

    /// The scratch copy the rebuilds patch (kept from run to run).
    fn scratch_copy(&self, suite: &[SuiteTest]) -> anyhow::Result<Rebuild> {
        let context = self.context;
        if let Some(copy) = context.prebuild.and_then(|p| p.take()) {
            return Ok(Rebuild::in_copy(
                copy,
                context.selection.clone(),
                suite.to_vec(),
                context.jobs,
                context.rerun.engine.clone(),
            ));
        }
        Rebuild::new(
            context.workspace_root,
            &context.scratch_dir,
            &context.skip,
            context.selection.clone(),
            suite.to_vec(),
            context.jobs,
            self.limits.time.saturating_sub(self.start.elapsed()),
            context.rerun.engine.clone(),
        )
    }

    /// The rates of both ways of checking, and the rebuilds' outcome on the console.
    fn say_rebuilt(&self, details: &mut Details) {
        if details.runtime_checked > 0 && details.runtime_s > 0.0 {
            details.runtime_per_s = Some(details.runtime_checked as f64 / details.runtime_s);
        }
        if details.rebuilds > 0 && details.rebuild_s > 0.0 {
            details.rebuild_per_s = Some(details.rebuilds as f64 / details.rebuild_s);
        }
        if details.rebuilds > 0 {
            self.console.status(
                "Validated",
                &format!(
                    "{} fix{} in {} rebuild{} ({:.1}s)",
                    details.validated,
                    if details.validated == 1 { "" } else { "es" },
                    details.rebuilds,
                    plural(details.rebuilds),
                    details.rebuild_s
                ),
            );
        }
    }
}

/// The rebuild queue of [`Search::queue`], each group ordered by `order`: the undecided
/// candidates the evidence asked for by name, then the plausible ones, then the undecided
/// rest, the first combinations with a partial fix the runtime could not judge right after
/// the first `free_rebuilds`, and the refuted last.
fn arrange<K: Ord>(
    mut plausible: Vec<(Candidate, Vec<bool>)>,
    undecided: Vec<Candidate>,
    refuted: Vec<Candidate>,
    order: impl Fn(&Candidate) -> K,
    free_rebuilds: usize,
) -> Vec<Queued> {
    plausible.sort_by_key(|(c, _)| order(c));
    // Combinations with a partial fix the runtime could not judge have evidence the
    // other candidates it could not judge lack (their first edit turned failing
    // assertions and broke nothing): the first of them are rebuilt right after the
    // first [`super::Limits::free_rebuilds`] candidates, on rebuilds of their own (see
    // `rebuild`), so that the single edits keep theirs; the rest come last.
    let (mut combined, undecided): (Vec<Candidate>, Vec<Candidate>) =
        (undecided.into_iter()).partition(|c| c.source == super::partial::NAME);
    let (mut asked, mut undecided): (Vec<Candidate>, Vec<Candidate>) =
        undecided.into_iter().partition(asked_for);
    asked.sort_by_key(&order);
    undecided.sort_by_key(&order);
    combined.sort_by_key(&order);
    let later = combined.split_off(combined.len().min(super::partial::REBUILDS));
    let at = (free_rebuilds.saturating_sub(plausible.len() + asked.len())).min(undecided.len());
    let tail = undecided.split_off(at);
    undecided.extend(combined.into_iter().chain(tail).chain(later));
    (asked.into_iter().map(|c| (c, None)))
        .chain(plausible.into_iter().map(|(c, passed)| (c, Some(passed))))
        .chain(undecided.into_iter().map(|c| (c, None)))
        .chain(refuted.into_iter().map(|c| (c, None)))
        .collect()
}

/// `file:line: edit`, as the console names a fix being rebuilt.
fn at_and_edit(fix: &Fix) -> String {
    format!("{}:{}: {}", fix.file, fix.line, crate::edit::describe(fix))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repair::CandidateEdit;

    fn candidate(source: &'static str, template: &str, statement: bool) -> Candidate {
        Candidate {
            edits: vec![CandidateEdit {
                site: crate::localize::tests::site(
                    3,
                    autodebug_runtime::protocol::SiteKind::Return,
                )
                .key(),
                rust: String::new(),
                expr: None,
                statement: statement.then_some(0..0),
            }],
            template: template.to_string(),
            cost: 1,
            source,
        }
    }

    #[test]
    fn logic_added_is_rebuilt_after_one_token_edits_but_a_guard_is_not_held_back() {
        let statement = candidate(super::super::statements::NAME, "insert-call", true);
        let clause = candidate(super::super::clauses::NAME, "borrowed-clause", false);
        let adaptor = candidate(super::super::adaptors::NAME, "adaptor-removed", false);
        let guard = candidate(super::super::guards::NAME, "early-return", true);
        let token = candidate(super::super::syntactic::NAME, "relational-operator", false);
        assert!(adds_logic(&statement) && adds_logic(&clause) && adds_logic(&adaptor));
        assert!(!adds_logic(&guard) && !adds_logic(&token));
    }
    #[test]
    fn a_name_the_evidence_asked_for_is_rebuilt_before_the_plausible_candidates() {
        let plausible = candidate(super::super::syntactic::NAME, "relational-operator", false);
        let renamed = candidate(super::super::renames::NAME, "complete-rename", true);
        let other = candidate(super::super::statements::NAME, "insert-call", true);
        let refuted = candidate(super::super::syntactic::NAME, "arithmetic-operator", false);
        let queue = arrange(
            vec![(plausible, vec![true])],
            vec![other, renamed],
            vec![refuted],
            |c: &Candidate| c.cost,
            8,
        );
        let order: Vec<_> = queue
            .iter()
            .map(|(c, p)| (c.template.as_str(), p.is_some()))
            .collect();
        assert_eq!(
            order,
            [
                ("complete-rename", false),
                ("relational-operator", true),
                ("insert-call", false),
                ("arithmetic-operator", false)
            ]
        );
    }
}
