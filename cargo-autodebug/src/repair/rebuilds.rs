//! Which of the queue's candidates are rebuilt, apart from the rebuilding itself: the rules
//! (the stage's bounds, one fix per site, the same code once) run over [`Item`]s, and a
//! callback rebuilds. A run calls it with its scratch copy; a shard (`--shard K/N`) with its
//! copy for the items it owns and nothing for the others; `cargo autodebug merge` with the
//! shards' results. The rules see the same items in the same order in all three, so the
//! merged fixes are the ones a single run would have found.

use std::collections::{BTreeMap, BTreeSet};

use autodebug_runtime::protocol::SiteKey;

use super::{Limits, rebuilt_fix, runtime_fix};
use crate::model::{Fix, Item, Rebuilt, RepairDetails as Details};

/// What the callback did with an item the rules want rebuilt.
pub enum Outcome {
    Rebuilt(Rebuilt),
    /// Another shard's: this run says nothing of it.
    NotMine,
    /// Nobody rebuilt it (a shard stopped early): kept as not rebuilt, with why.
    Missing(String),
    /// The rebuilds cannot go on (no scratch copy, a rebuild that failed): the note.
    Broken(String),
}

/// The fixes the rules kept, in queue order (unranked), with each one's code key.
pub struct Kept {
    pub fixes: Vec<(Fix, Vec<String>, Option<String>)>,
    /// Seconds of the rebuilds made.
    pub rebuild_s: f64,
}

/// Runs the rules over `items`: `rebuild(index, item, fix)` is called for each item they
/// want rebuilt; `out_of_time()` ends the rebuilds (the stage's time budget). `details`
/// gets the rebuilds, validated fixes and the bound that cut them; `notes` what could not
/// be done.
pub fn run(
    items: &[Item],
    limits: &Limits,
    details: &mut Details,
    notes: &mut Vec<String>,
    out_of_time: &dyn Fn() -> bool,
    rebuild: &mut dyn FnMut(usize, &Item, &Fix) -> Outcome,
) -> Kept {
    let mut kept = Kept {
        fixes: Vec::new(),
        rebuild_s: 0.0,
    };
    let mut seen_code = BTreeSet::new();
    let mut fixed_sites: BTreeMap<Vec<SiteKey>, u32> = BTreeMap::new();
    // Combinations with a partial fix get rebuilds beyond the stage's (see `queue`): two
    // faults, one of them beyond the runtime, do not take the single edits'.
    let combined = items.iter().filter(|i| i.combined).count();
    let budget = limits.rebuilds + combined.min(super::partial::REBUILDS);
    let not_rebuilt = |item: &Item| -> Option<(Fix, Vec<String>, Option<String>)> {
        let passed = item.plausible.as_deref()?;
        let fix = item.fix.clone()?;
        Some((
            runtime_fix(fix, passed),
            item.code.clone(),
            item.dropped.clone(),
        ))
    };
    // Candidates the rules reached (rebuilt, or passed over because their site has a fix):
    // the same count in every shard, whoever rebuilt them, so that a shard stops where one
    // run would have stopped.
    let mut reached = 0;
    // Items sent to a rebuild (this run's, or another shard's): their work, counted alike in
    // every shard.
    let mut sent = 0usize;
    let mut index = 0;
    while index < items.len() {
        let item = &items[index];
        index += 1;
        if details.validated >= limits.fixes && !limits.rebuild_all {
            index -= 1;
            break;
        }
        // Past the first candidates, more go on only to find a fix at all (not alternatives
        // to one) and within the crate's work budget.
        let slow = reached >= limits.free_rebuilds
            && (details.validated > 0 || sent as f64 * limits.rebuild_cost > limits.rebuild_work);
        if details.rebuilds >= budget || slow {
            if details.cut.is_none() {
                details.cut = Some(rebuilds_cut(details, slow, budget, limits));
            }
            // Plausible candidates not rebuilt are still reported.
            kept.fixes.extend(not_rebuilt(item));
            continue;
        }
        if out_of_time() {
            details
                .cut
                .get_or_insert(format!("time budget of {:?}", limits.time));
            index -= 1;
            break;
        }
        let Some(fix) = &item.fix else {
            notes.push(format!(
                "repair: {}",
                item.unwritable
                    .as_deref()
                    .unwrap_or("a candidate could not be written")
            ));
            continue;
        };
        if !seen_code.insert(item.code.clone()) {
            continue;
        }
        reached += 1;
        // Once a site (or set of sites) has a validated fix, only simpler candidates of it
        // are rebuilt: the rebuilds go to other sites, so that the fixes offered are
        // alternatives, not variants of one.
        let site_fixed = fixed_sites
            .get(&item.sites)
            .is_some_and(|&cost| item.cost >= cost)
            && !limits.rebuild_all;
        if site_fixed {
            kept.fixes.extend(not_rebuilt(item));
            continue;
        }
        sent += 1;
        match rebuild(index - 1, item, fix) {
            Outcome::Rebuilt(done) => {
                details.rebuilds += 1;
                kept.rebuild_s += done.seconds;
                let v = &done.validation;
                if v.validated {
                    details.validated += 1;
                    let cost = fixed_sites.entry(item.sites.clone()).or_insert(item.cost);
                    *cost = (*cost).min(item.cost);
                }
                if v.validated || item.plausible.is_some() {
                    let fix = rebuilt_fix(fix.clone(), v, item.plausible.is_some());
                    kept.fixes
                        .push((fix, item.code.clone(), item.dropped.clone()));
                }
            }
            Outcome::NotMine => {}
            Outcome::Missing(why) => {
                details.cut.get_or_insert(why);
                kept.fixes.extend(not_rebuilt(item));
            }
            Outcome::Broken(note) => {
                notes.push(note);
                index -= 1;
                break;
            }
        }
    }
    // Plausible candidates left when a bound stopped the rebuilds.
    for item in &items[index.min(items.len())..] {
        kept.fixes.extend(not_rebuilt(item));
    }
    kept
}

fn rebuilds_cut(details: &Details, slow: bool, budget: usize, limits: &Limits) -> String {
    if slow && details.validated > 0 {
        format!("{} rebuilds and a validated fix", details.rebuilds)
    } else if slow {
        format!(
            "{} rebuilds, the work budget of a crate of {} lines",
            details.rebuilds, limits.crate_lines
        )
    } else {
        format!("{budget} rebuilds")
    }
}
