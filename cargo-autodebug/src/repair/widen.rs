//! Past the targets: when no candidate of the targets passed the reruns (single edits and
//! combinations with a partial fix alike), the one-token edits of the next
//! [`SUSPECTS`] suspects are checked by rerun as well. A rerun costs a millisecond where a
//! rebuild costs a second, so looking a few ranks further is cheap; a fault the evidence
//! could not set apart from its neighbours (every site run by every failing call, none by
//! a passing one) is often ranked just past the targets. Only what the reruns find
//! plausible is kept: a candidate they cannot judge would take a rebuild from the targets'
//! own.

use std::collections::BTreeSet;

use autodebug_runtime::protocol::SiteKey;

use super::rerun::Rerun;
use super::search::{Checked, Search, failing_tests};
use super::syntactic::Syntactic;
use crate::model::RepairDetails as Details;

/// Suspects past the targets whose one-token edits are checked.
pub const SUSPECTS: usize = 5;

impl Search<'_> {
    /// Checks the one-token edits of the next suspects when nothing so far passed the
    /// reruns; the plausible ones join `checked`.
    pub fn widen(
        &mut self,
        rerun: &Rerun,
        checked: &mut Checked,
        details: &mut Details,
        notes: &mut Vec<String>,
    ) {
        if !checked.plausible.is_empty() || self.start.elapsed() > self.limits.time {
            return;
        }
        let context = self.context;
        let mut taken: BTreeSet<SiteKey> = self.by_key.keys().cloned().collect();
        let chars = super::text_chars(context.oracles);
        let mut added = Vec::new();
        let mut suspects = 0;
        for suspect in (context.suspects.iter()).filter(|s| crate::localize::is_candidate(s.kind)) {
            if suspects == SUSPECTS {
                break;
            }
            if taken.contains(&super::site_info(context, suspect).key()) {
                continue;
            }
            suspects += 1;
            added.extend(self.add_targets(suspect, &mut taken, &chars, notes));
        }
        if added.is_empty() {
            return;
        }
        self.console.detail(&format!(
            "widen: nothing passed the reruns; checking the one-token edits of {} more site{}",
            added.len(),
            super::plural(added.len())
        ));
        let failing = failing_tests(context, rerun);
        let undecided = checked.undecided.len();
        // A bound that stops the widening is said in its note: the stage's `cut` stays for
        // what stops the rebuilds.
        let cut_before = details.cut.take();
        let mut source = Syntactic::default();
        for &i in &added {
            let target = &self.targets[i];
            let cut = self.check_source(
                &mut source,
                target,
                rerun,
                &failing,
                checked,
                details,
                notes,
            );
            if cut.is_err() {
                break;
            }
        }
        let stopped = std::mem::replace(&mut details.cut, cut_before);
        let dropped = checked.undecided.len() - undecided;
        checked.undecided.truncate(undecided);
        notes.push(format!(
            "repair: no candidate of the first targets passed the reruns; the one-token edits \
             of {} more site{} were checked: {} plausible ({dropped} the runtime cannot judge \
             left out){}",
            added.len(),
            super::plural(added.len()),
            checked.plausible.len(),
            stopped.map_or_else(String::new, |cut| format!(
                "; stopped by the bound of {cut}"
            ))
        ));
    }
}
