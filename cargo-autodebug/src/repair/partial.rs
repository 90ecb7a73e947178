//! Two faults at once: when no single edit passes, one may still make some failing
//! assertions pass and break none, passing tests included — a partial fix. Under each of
//! the best partial fixes the failing tests are recorded again, going on past failed
//! assertions, and the sites are ranked anew by what still fails: each assertion is a unit
//! (the sites run since the one before it, and its verdict), Ochiai over those units and
//! the passing tests. The ranking takes in every suspect, not only the targets: a site the
//! first localization ranked low becomes a target there. The one-token edits of the
//! best-ranked sites, each combined with the partial fix, are then checked like any
//! candidate; a combination the runtime cannot evaluate goes to the rebuilds, the first
//! [`REBUILDS`] of them early and on rebuilds of their own. The joint source pairs
//! the best suspects of the first localization; this finds the second fault where the
//! first one hid it.

use std::cmp::Reverse;
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use autodebug_runtime::protocol::{self, Plan, Record, SiteInfo, SiteKey};

use super::rerun::{self, Rerun, Verdict};
use super::search::{Checked, Search};
use super::syntactic::Syntactic;
use super::{Candidate, CandidateSource, joint};
use crate::localize::spectrum::Counts;
use crate::model::{RepairDetails as Details, Role};
use crate::options::Formula;
use crate::trace::RawTrace;

/// The name of this source in the report.
pub const NAME: &str = "partial";

/// Single-edit candidates refuted by rerun that are examined as partial fixes, at most.
pub const EXAMINED: usize = 60;
/// Partial fixes re-localized under.
const PARTIALS: usize = 3;
/// Sites ranked under a partial fix whose edits are combined with it.
const SITES: usize = 3;
/// One-token edits per such site.
const PER_SITE: usize = 24;
/// Failing tests (the quickest) the partial fixes are measured on, and that the
/// relocation under one wants still failing.
const TESTS: usize = 3;
/// Failing tests the relocation under a partial fix reruns at most (the quickest first,
/// until [`TESTS`] of them still fail).
const RELOCATED: usize = 12;
/// The runs that look for partial fixes get this many times the hook calls the reruns of
/// the candidates got. A partial fix often lets a test run far longer than the written code
/// did (a loop that returned at once runs its course: `for k in 1..n` to `2..n` in a
/// primality test), which the reruns' fuel counts as running away; a candidate that does
/// run away costs this much more once, on at most [`TESTS`] tests.
const LONGER: u64 = 100;
/// Combinations the runtime cannot evaluate that are rebuilt early, on rebuilds beyond the
/// stage's (see `Search::queue`).
pub const REBUILDS: usize = 10;
/// Combinations with a partial fix get this many times the hook calls of its longest run.
const COMBINED: u64 = 4;

/// How a candidate's runs of the failing tests compare with the written code's.
#[derive(Clone, Copy, Default)]
struct Progress {
    /// Assertions that failed and now pass (a test that now passes counts all of its).
    turned: usize,
    /// Assertions that passed and now fail, or tests that took another path.
    broken: usize,
    /// Hook calls of its longest run: a fix may let a test run much longer than the written
    /// code did (a loop that returned at once now runs its course), and the combinations
    /// with it get fuel for that.
    work: u64,
}

impl Search<'_> {
    /// Looks for partial fixes among the single edits the reruns refuted and checks their
    /// combinations with the edits of the sites that still fail under them; the plausible
    /// ones join `checked`. Only when no single edit was plausible.
    pub fn combine_partial_fixes(
        &mut self,
        rerun: &Rerun,
        checked: &mut Checked,
        details: &mut Details,
        notes: &mut Vec<String>,
    ) {
        if checked.plausible.iter().any(|(c, _)| c.edits.len() == 1)
            || checked.refuted_single.is_empty()
            || self.start.elapsed() > self.limits.time
        {
            return;
        }
        let mut failing = self.failing_quickest_first(rerun);
        // The relocation reruns the failing tests until [`TESTS`] of them still fail: a
        // partial fix may pass the quickest ones, and what still fails is elsewhere.
        let relocated = failing.clone();
        failing.truncate(TESTS);
        if failing.is_empty() {
            return;
        }
        let examined: Vec<(Candidate, Plan)> = (checked.refuted_single.iter())
            .filter_map(|c| Some((c.clone(), soft(rerun::plan(c, 0)?))))
            .collect();
        let running = Instant::now();
        let progress = self.progress(rerun, &failing, &examined);
        details.runtime_s += running.elapsed().as_secs_f64();
        let Some(progress) = progress else {
            return;
        };
        let turning = (0..examined.len())
            .filter(|&i| progress[i].turned > 0 && progress[i].broken == 0)
            .filter_map(|i| {
                let c = &examined[i].0;
                Some((i, (c, rerun::plan(c, rerun.fuel)?, self.sites_of(c)?)))
            });
        let (mut partial, judged): (Vec<usize>, Vec<_>) = turning.unzip();
        // The reruns that refuted them stopped at the failing tests: a partial fix must
        // also keep every passing test that reaches its site passing.
        let running = Instant::now();
        let breaks = rerun.breaks_passing(&judged);
        details.runtime_s += running.elapsed().as_secs_f64();
        let Ok(breaks) = breaks else {
            return;
        };
        let mut breaks = breaks.into_iter();
        partial.retain(|_| breaks.next() == Some(false));
        partial.sort_by_key(|&i| (Reverse(progress[i].turned), examined[i].0.cost));
        details.partial_fixes = partial.len();
        if partial.is_empty() {
            return;
        }
        let (mut found, mut queued) = (0, 0);
        for &i in partial.iter().take(PARTIALS) {
            let (fix, plan) = &examined[i];
            self.console.status(
                "Relocating",
                &format!(
                    "under the partial fix {} ({} assertion{} turned)",
                    self.fix_of(fix)
                        .map_or_else(|_| fix.template.clone(), |f| crate::edit::describe(&f)),
                    progress[i].turned,
                    super::plural(progress[i].turned)
                ),
            );
            let running = Instant::now();
            let sites = self.ranked_under(rerun, &relocated, fix, plan, notes);
            details.runtime_s += running.elapsed().as_secs_f64();
            self.console.detail(&format!(
                "partial: sites ranked under it: {}",
                (sites.iter())
                    .map(|&i| format!("`{}`", self.targets[i].located.original))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
            let combined = self.combined_with(fix, &sites);
            let fuel = (COMBINED * progress[i].work).max(super::FUEL_FLOOR);
            let (passed, undecided) =
                self.check_combined(rerun, fuel, combined, checked, details, notes);
            found += passed;
            queued += undecided;
        }
        notes.push(format!(
            "repair: {} single edit{} made some failing assertions pass and broke none; \
             under the best {}, {found} combined candidate{} passed every test when rerun \
             and {queued} the runtime cannot judge went to the rebuilds",
            partial.len(),
            super::plural(partial.len()),
            partial.len().min(PARTIALS),
            super::plural(found)
        ));
    }

    /// The required failing tests that reached instrumented code, the quickest first by the
    /// events of their recorded runs rather than by the clock: which tests measure the
    /// partial fixes must not change from run to run.
    fn failing_quickest_first(&self, rerun: &Rerun) -> Vec<usize> {
        let mut failing: Vec<usize> = (rerun.baseline.iter().enumerate())
            .filter(|(t, r)| {
                !r.first.outcome.passed()
                    && rerun.suite[*t].required
                    && !rerun.suite[*t].out_of_reach
            })
            .map(|(t, _)| t)
            .collect();
        let events = |t: usize| {
            (self.context.traces.iter())
                .filter(|r| {
                    r.role == Role::Failing && r.test.display() == rerun.baseline[t].test.display()
                })
                .map(|r| r.trace.events.len())
                .min()
                .unwrap_or(usize::MAX)
        };
        failing.sort_by_key(|&t| (events(t), t));
        failing
    }

    /// The partial fix `fix` with each one-token edit (the first [`PER_SITE`]) of the target
    /// sites `sites`.
    fn combined_with(&self, fix: &Candidate, sites: &[usize]) -> Vec<Candidate> {
        let mut combined = Vec::new();
        for &site in sites {
            for edit in Syntactic::default().next(&self.targets[site], PER_SITE) {
                let mut edits = fix.edits.clone();
                edits.extend(edit.edits.into_iter().map(|mut e| {
                    // As a person writes it (`k < n`, not `(k < n)`), as for any source.
                    e.rust =
                        super::complement_negated_equality(&super::without_outer_parens(&e.rust));
                    e
                }));
                combined.push(Candidate {
                    edits,
                    template: format!("{}+{}", fix.template, edit.template),
                    cost: fix.cost + edit.cost,
                    source: NAME,
                });
            }
        }
        combined
    }

    /// For each examined candidate, how its runs of the `failing` tests (with soft
    /// assertions) compare with the written code's; `None` when the runs failed or the
    /// stage's time ran out.
    fn progress(
        &self,
        rerun: &Rerun,
        failing: &[usize],
        examined: &[(Candidate, Plan)],
    ) -> Option<Vec<Progress>> {
        let mut progress = vec![Progress::default(); examined.len()];
        for &t in failing {
            if self.start.elapsed() > self.limits.time {
                return None;
            }
            let test = &rerun.baseline[t].test;
            let fuel = Some(longer_fuel(rerun, test));
            let written = Plan {
                version: protocol::PLAN_VERSION,
                ..Plan::default()
            };
            let plans: Vec<Plan> = std::iter::once(&written)
                .chain(examined.iter().map(|(_, plan)| plan))
                .map(|plan| {
                    soft(Plan {
                        fuel,
                        ..plan.clone()
                    })
                })
                .collect();
            rerun.runs.fetch_add(plans.len(), Ordering::Relaxed);
            let runs = rerun.recorder.run_batch(test, &plans, "coverage").ok()?;
            let (_, base) = runs.first()?;
            let before = verdicts(base);
            for ((run, trace), p) in runs[1..].iter().zip(&mut progress) {
                p.work = p.work.max(trace.hits.values().map(|&n| u64::from(n)).sum());
                if run.outcome.passed() {
                    p.turned += before.iter().filter(|&&v| !v).count().max(1);
                    continue;
                }
                if before.is_empty() {
                    // The runtime sees no assertion of the test (not wrapped, or none
                    // written as a statement): only its verdict counts.
                    continue;
                }
                let after = verdicts(trace);
                if after.len() != before.len() {
                    p.broken += 1;
                    continue;
                }
                for (b, a) in before.iter().zip(&after) {
                    match (b, a) {
                        (false, true) => p.turned += 1,
                        (true, false) => p.broken += 1,
                        _ => {}
                    }
                }
            }
        }
        Some(progress)
    }

    /// The sites other than `fix`'s, ranked by Ochiai over the units of the `failing`
    /// tests rerun under `fix` (each assertion a unit) and the passing tests: the best
    /// [`SITES`] that a failing unit runs, and those tied with the last (up to as many
    /// again), ties going to the better suspect. A site where a failing run panicked comes
    /// before the others, as the panic's site does in the first localization. They are
    /// drawn from the targets and from every other suspect, which then becomes a target
    /// (with its condition's clauses): the second fault may be a site the first
    /// localization ranked low, its failures hidden by the first's.
    fn ranked_under(
        &mut self,
        rerun: &Rerun,
        failing: &[usize],
        fix: &Candidate,
        plan: &Plan,
        notes: &mut Vec<String>,
    ) -> Vec<usize> {
        let context = self.context;
        // Every suspect a fix can change, with its site as the runtime describes it.
        let suspects: Vec<(&crate::model::Ranked, SiteInfo)> = (context.suspects.iter())
            .filter(|s| crate::localize::is_candidate(s.kind))
            .map(|s| (s, super::site_info(context, s)))
            .collect();
        let known: Vec<SiteInfo> = (self.targets.iter().map(|t| t.site.clone()))
            .chain(suspects.iter().map(|(_, site)| site.clone()))
            .collect();
        let (units, panicked) = units_under(rerun, failing, plan, &known);
        let failed = units.iter().filter(|(_, passed)| !passed).count();
        let score = |key: &SiteKey| {
            let ran = |passed: bool| {
                (units.iter())
                    .filter(|(sites, p)| *p == passed && sites.contains(key))
                    .count()
            };
            let counts = Counts {
                ef: ran(false),
                ep: ran(true),
            };
            (counts.ef > 0).then(|| {
                (
                    panicked.contains(key),
                    Formula::Ochiai.score(counts, failed),
                )
            })
        };
        let edited: Vec<SiteInfo> = (fix.edits.iter())
            .filter_map(|e| {
                self.by_key
                    .get(&e.site)
                    .map(|&i| self.targets[i].site.clone())
            })
            .collect();
        let free = |site: &SiteInfo| !edited.iter().any(|e| joint::spans_overlap(e, site));
        let mut ranked: Vec<((bool, f64), usize, Place)> = (self.targets.iter().enumerate())
            .filter(|(_, t)| free(&t.site))
            .filter_map(|(i, t)| Some((score(&t.site.key())?, t.rank, Place::Target(i))))
            .collect();
        for (suspect, site) in suspects {
            if !self.by_key.contains_key(&site.key())
                && free(&site)
                && let Some(s) = score(&site.key())
            {
                ranked.push((s, suspect.rank, Place::Suspect(suspect)));
            }
        }
        ranked.sort_by(|a, b| {
            (b.0.0.cmp(&a.0.0))
                .then(b.0.1.total_cmp(&a.0.1))
                .then(a.1.cmp(&b.1))
        });
        let last = ranked.get(SITES.saturating_sub(1)).map(|r| r.0);
        let mut taken: BTreeSet<SiteKey> = self.by_key.keys().cloned().collect();
        // The failing calls' text, the same for every target.
        let chars = super::text_chars(context.oracles);
        let mut sites = Vec::new();
        for (i, (s, _, place)) in ranked.into_iter().enumerate() {
            if i >= SITES && (i >= 2 * SITES || Some(s) != last) {
                break;
            }
            match place {
                Place::Target(t) => sites.push(t),
                Place::Suspect(suspect) => {
                    sites.extend(self.add_targets(suspect, &mut taken, &chars, notes));
                }
            }
        }
        sites
    }

    /// Reruns the combined candidates, the recorded tests with at least `fuel` hook calls;
    /// the plausible ones join `checked`, and so do those the runtime cannot evaluate or
    /// judge (for the rebuilds). How many of each.
    fn check_combined(
        &self,
        rerun: &Rerun,
        fuel: u64,
        combined: Vec<Candidate>,
        checked: &mut Checked,
        details: &mut Details,
        notes: &mut Vec<String>,
    ) -> (usize, usize) {
        let fresh: Vec<Candidate> = combined
            .into_iter()
            .filter(|c| !c.edits.iter().any(|e| self.overfits(e)) && checked.propose(c))
            .collect();
        details.candidates += fresh.len();
        let mut checkable = Vec::new();
        let mut undecided = 0;
        for candidate in &fresh {
            match (rerun::plan(candidate, rerun.fuel), self.sites_of(candidate)) {
                (Some(plan), Some(sites)) => checkable.push((candidate, plan, sites)),
                // The runtime cannot evaluate the second edit (`a || b` → `a && b` with
                // a call in a clause): with the first one checked already, a rebuild
                // decides.
                _ => {
                    details.not_evaluable += 1;
                    checked.undecided.push(candidate.clone());
                    undecided += 1;
                }
            }
        }
        self.console.detail(&format!(
            "partial: {} combined candidates, {fuel} hook calls per failing test",
            checkable.len()
        ));
        let longer = Rerun {
            fuel_by_test: (rerun.fuel_by_test.iter())
                .map(|(test, &f)| (test.clone(), f.max(fuel)))
                .collect(),
            runs: AtomicUsize::new(0),
            checked: AtomicUsize::new(0),
            ..*rerun
        };
        let checking = Instant::now();
        let verdicts = longer.check(&checkable);
        details.runtime_s += checking.elapsed().as_secs_f64();
        rerun
            .runs
            .fetch_add(longer.runs.into_inner(), Ordering::Relaxed);
        rerun
            .checked
            .fetch_add(longer.checked.into_inner(), Ordering::Relaxed);
        let verdicts = match verdicts {
            Ok(verdicts) => verdicts,
            Err(error) => {
                notes.push(format!(
                    "repair: rerunning under combined candidates failed: {error:#}"
                ));
                return (0, undecided);
            }
        };
        let mut found = 0;
        for ((candidate, _, _), verdict) in checkable.iter().zip(verdicts) {
            match verdict {
                Verdict::Plausible { passed } => {
                    found += 1;
                    checked.plausible.push(((*candidate).clone(), passed));
                }
                Verdict::Refuted { .. } => details.refuted += 1,
                // The written code panicked at the edited site before the replacement
                // could take its place (`hi - 1` with `hi == 0` where the fix drops the
                // `- 1`): only a rebuild judges the combination.
                Verdict::Inconclusive { .. } => {
                    details.inconclusive += 1;
                    checked.undecided.push((*candidate).clone());
                    undecided += 1;
                }
                Verdict::Skipped => details.skipped += 1,
            }
        }
        (found, undecided)
    }
}

/// Where a site ranked under a partial fix is: a target already, or a suspect to make one
/// of.
enum Place<'s> {
    Target(usize),
    Suspect(&'s crate::model::Ranked),
}

/// The units of the `failing` tests rerun under `plan`, the quickest first until [`TESTS`]
/// of them still fail (each assertion a unit; a run whose assertions the runtime does not
/// see is one), and of the passing tests (each a passing unit): the sites each ran, and
/// whether it passed; and the `known` sites where a failing run panicked.
fn units_under(
    rerun: &Rerun,
    failing: &[usize],
    plan: &Plan,
    known: &[SiteInfo],
) -> (Vec<(BTreeSet<SiteKey>, bool)>, BTreeSet<SiteKey>) {
    let mut units: Vec<(BTreeSet<SiteKey>, bool)> = Vec::new();
    let mut panicked = BTreeSet::new();
    let mut still_failing = 0;
    for &t in failing.iter().take(RELOCATED) {
        if still_failing == TESTS {
            break;
        }
        rerun.runs.fetch_add(1, Ordering::Relaxed);
        let test = &rerun.baseline[t].test;
        let plan = Plan {
            fuel: Some(longer_fuel(rerun, test)),
            ..plan.clone()
        };
        if let Ok(runs) = rerun
            .recorder
            .run_batch(test, std::slice::from_ref(&plan), "events")
            && let Some((run, trace)) = runs.first()
        {
            let passed = run.outcome.passed();
            still_failing += usize::from(!passed);
            let panics: BTreeSet<SiteKey> = (trace.events.iter())
                .flat_map(|event| panicked_in(event, known))
                .collect();
            let cut = assertion_units(trace, known);
            if cut.is_empty() {
                // No assertion seen: the whole run is one unit.
                let ran = (trace.sites.values().map(SiteInfo::key))
                    .chain(panics.iter().cloned())
                    .collect();
                units.push((ran, passed));
            } else {
                units.extend(cut);
            }
            if !passed {
                panicked.extend(panics);
            }
        }
    }
    units.extend(
        (rerun.baseline.iter())
            .filter(|r| r.first.outcome.passed())
            .map(|r| (r.coverage.keys().cloned().collect(), true)),
    );
    (units, panicked)
}

/// The fuel of the runs that look for partial fixes on `test`: [`LONGER`] times what the
/// reruns give it, at most what any rerun gets.
fn longer_fuel(rerun: &Rerun, test: &crate::model::TestId) -> u64 {
    let usual = (rerun.fuel_by_test.get(&test.display()).copied()).unwrap_or(rerun.fuel);
    (LONGER * usual).min(rerun.fuel.max(usual))
}

/// `plan` going on past failed assertions.
fn soft(plan: Plan) -> Plan {
    Plan {
        soft_assertions: true,
        ..plan
    }
}

/// The verdicts of a run's assertions, in order.
fn verdicts(trace: &RawTrace) -> Vec<bool> {
    (trace.events.iter())
        .filter_map(|e| match e {
            Record::Assertion { passed } => Some(*passed),
            _ => None,
        })
        .collect()
}

/// A run with soft assertions cut into units at its assertions: the sites each unit ran
/// (since the assertion before), and whether its assertion passed. What runs after the last
/// assertion is a failing unit when the run panicked or ran out of fuel there, and no unit
/// otherwise. A site whose code panicked records no event of its own (its hook never got a
/// value): the `known` sites whose span holds a panic's location ran too.
fn assertion_units(trace: &RawTrace, known: &[SiteInfo]) -> Vec<(BTreeSet<SiteKey>, bool)> {
    let mut units = Vec::new();
    let mut ran = BTreeSet::new();
    // A panic or the fuel's end since the last assertion.
    let mut ended = false;
    for event in &trace.events {
        let site = match event {
            Record::Branch { site, .. }
            | Record::Component { site, .. }
            | Record::Iteration { site, .. } => *site,
            Record::Assertion { passed } => {
                units.push((std::mem::take(&mut ran), *passed));
                ended = false;
                continue;
            }
            Record::Panic { .. } | Record::FuelExhausted { .. } => {
                ran.extend(panicked_in(event, known));
                ended = true;
                continue;
            }
            _ => continue,
        };
        if let Some(info) = trace.sites.get(&site) {
            ran.insert(info.key());
        }
    }
    if ended && !units.is_empty() {
        units.push((ran, false));
    }
    units
}

/// The `known` sites whose span holds the location of `event`, a panic.
fn panicked_in<'k>(event: &Record, known: &'k [SiteInfo]) -> impl Iterator<Item = SiteKey> + 'k {
    let at = match event {
        Record::Panic {
            file, line, column, ..
        } => Some((file.clone(), *line, *column)),
        _ => None,
    };
    (known.iter())
        .filter(move |site| {
            at.as_ref()
                .is_some_and(|(file, line, column)| rerun::holds(site, file, *line, *column))
        })
        .map(SiteInfo::key)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::localize::tests::site;
    use autodebug_runtime::protocol::{SiteKind, Value};

    fn component(site: u32) -> Record {
        Record::Component {
            site,
            instance: 0,
            value: Value::Bool(true),
            overridden: false,
            scope: Vec::new(),
        }
    }

    #[test]
    fn a_soft_run_is_cut_into_units_at_its_assertions() {
        let mut trace = RawTrace::default();
        trace.sites.insert(1, site(2, SiteKind::Let));
        trace.sites.insert(2, site(3, SiteKind::Let));
        trace.events = vec![
            component(1),
            Record::Assertion { passed: true },
            component(1),
            component(2),
            Record::Assertion { passed: false },
            Record::Assertion { passed: true },
            component(2),
        ];
        let units = assertion_units(&trace, &[]);
        let lines: Vec<(Vec<u32>, bool)> = units
            .iter()
            .map(|(sites, passed)| (sites.iter().map(|k| k.line).collect(), *passed))
            .collect();
        assert_eq!(
            lines,
            [(vec![2], true), (vec![2, 3], false), (vec![], true)]
        );
        assert_eq!(verdicts(&trace), [true, false, true]);
    }

    #[test]
    fn a_panic_counts_the_site_it_came_from_and_ends_a_failing_unit() {
        let mut trace = RawTrace::default();
        trace.sites.insert(1, site(2, SiteKind::Let));
        // Line 4's site panics the first time it runs: it records nothing, not even itself.
        let panicking = site(4, SiteKind::Return);
        let panic = Record::Panic {
            message: "removal index (is 1) should be < len (is 1)".into(),
            file: "src/lib.rs".into(),
            line: 4,
            column: 7,
            thread: "main".into(),
        };
        let lines = |units: Vec<(BTreeSet<SiteKey>, bool)>| -> Vec<(Vec<u32>, bool)> {
            (units.iter())
                .map(|(sites, passed)| (sites.iter().map(|k| k.line).collect(), *passed))
                .collect()
        };
        // Inside an assertion: its unit fails, with the site.
        trace.events = vec![
            component(1),
            panic.clone(),
            Record::Assertion { passed: false },
        ];
        let known = [site(2, SiteKind::Let), panicking.clone()];
        assert_eq!(
            lines(assertion_units(&trace, &known)),
            [(vec![2, 4], false)]
        );
        // After the last assertion: what ran since is a failing unit.
        trace.events = vec![
            component(1),
            Record::Assertion { passed: true },
            component(1),
            panic.clone(),
        ];
        assert_eq!(
            lines(assertion_units(&trace, &known)),
            [(vec![2], true), (vec![2, 4], false)]
        );
        // Nothing after the last assertion ended the run: no unit.
        trace.events = vec![Record::Assertion { passed: true }, component(1)];
        assert_eq!(lines(assertion_units(&trace, &known)), [(vec![], true)]);
        // A panic elsewhere names no site.
        let elsewhere = Record::Panic {
            message: String::new(),
            file: "src/lib.rs".into(),
            line: 9,
            column: 1,
            thread: "main".into(),
        };
        assert_eq!(panicked_in(&elsewhere, &known).count(), 0);
        assert_eq!(panicked_in(&panic, &known).count(), 1);
    }
}
