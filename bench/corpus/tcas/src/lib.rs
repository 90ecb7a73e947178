//! An altitude-separation resolution advisory, in the manner of the Siemens suite's `tcas`
//! (the traffic collision avoidance program of Hutchins et al.'s test-adequacy study).
//!
//! Given one encounter between the own aircraft and an intruder — tracked altitudes,
//! vertical separation, the separations an upward and a downward manoeuvre would achieve,
//! the intruder's resolution intent and equipment — it decides whether to advise a climb
//! (`UpwardRa`), a descent (`DownwardRa`) or nothing (`Unresolved`). Climbs are biased
//! against crossing the intruder's altitude; the altitude layer selects the minimum
//! separation (`alim`) a manoeuvre must reach.

// The conditions keep the redundant shape of the original decision logic: each clause is a
// separate place where a fault can hide.
#![allow(clippy::nonminimal_bool)]

use autodebug_runtime::autodebug;

/// Highest own climb rate (ft/min) at which the advisory logic is engaged.
pub const OLEV: i32 = 600;
/// The advisory logic is engaged only above this vertical separation (ft).
pub const MAXALTDIFF: i32 = 600;
/// Minimum vertical separation (ft) for a crossing-free manoeuvre away from the threat.
pub const MINSEP: i32 = 300;
/// Extra separation (ft) credited to an upward manoeuvre when climbing is inhibited.
pub const NOZCROSS: i32 = 100;
/// Positive resolution-advisory altitude thresholds (ft), indexed by altitude layer.
pub const POSITIVE_RA_ALT_THRESH: [i32; 4] = [400, 500, 640, 740];
/// Number of integer codes that describe an encounter (see [`Encounter::from_codes`]).
pub const INPUT_COUNT: usize = 12;

/// The advisory the program issues.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Advisory {
    /// No resolution advisory.
    Unresolved,
    /// Climb.
    UpwardRa,
    /// Descend.
    DownwardRa,
}

/// What the intruder has announced it will do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OtherRac {
    /// No resolution intent received.
    NoIntent,
    /// The intruder will not climb.
    DoNotClimb,
    /// The intruder will not descend.
    DoNotDescend,
}

/// The intruder's collision-avoidance equipment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Capability {
    /// Traffic advisories only.
    TcasTa,
    /// Anything else.
    Other,
}

/// One encounter: everything the advisory depends on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Encounter {
    /// Current vertical separation (ft).
    pub cur_vertical_sep: i32,
    /// Whether the tracker is confident of the intruder's track.
    pub high_confidence: bool,
    /// Whether two of the last three altitude reports were valid.
    pub two_of_three_reports_valid: bool,
    /// Own tracked altitude (ft).
    pub own_tracked_alt: i32,
    /// Own tracked climb rate (ft/min).
    pub own_tracked_alt_rate: i32,
    /// Intruder's tracked altitude (ft).
    pub other_tracked_alt: i32,
    /// Altitude layer, an index into [`POSITIVE_RA_ALT_THRESH`].
    pub alt_layer_value: usize,
    /// Separation an upward manoeuvre would achieve (ft).
    pub up_separation: i32,
    /// Separation a downward manoeuvre would achieve (ft).
    pub down_separation: i32,
    /// The intruder's resolution intent.
    pub other_rac: OtherRac,
    /// The intruder's equipment.
    pub other_capability: Capability,
    /// Whether climbing is inhibited (e.g. at the aircraft's ceiling).
    pub climb_inhibit: bool,
}

#[autodebug]
impl Advisory {
    /// The integer the original program prints: 0, 1 or 2.
    pub fn code(self) -> i32 {
        match self {
            Advisory::Unresolved => 0,
            Advisory::UpwardRa => 1,
            Advisory::DownwardRa => 2,
        }
    }
}

#[autodebug]
impl Encounter {
    /// Reads an encounter from the original program's twelve integer arguments, in order:
    /// vertical separation, high confidence, two-of-three valid, own altitude, own rate,
    /// intruder altitude, layer, up separation, down separation, intruder intent (0 none,
    /// 1 do-not-climb, 2 do-not-descend), intruder capability (1 TA, 2 other), climb
    /// inhibit. Booleans are non-zero for true. `None` when a code is out of range.
    pub fn from_codes(codes: &[i32]) -> Option<Encounter> {
        if codes.len() != INPUT_COUNT {
            return None;
        }
        let layer = codes[6];
        if layer < 0 || layer >= POSITIVE_RA_ALT_THRESH.len() as i32 {
            return None;
        }
        let other_rac = match codes[9] {
            0 => OtherRac::NoIntent,
            1 => OtherRac::DoNotClimb,
            2 => OtherRac::DoNotDescend,
            _ => return None,
        };
        let other_capability = match codes[10] {
            1 => Capability::TcasTa,
            2 => Capability::Other,
            _ => return None,
        };
        Some(Encounter {
            cur_vertical_sep: codes[0],
            high_confidence: codes[1] != 0,
            two_of_three_reports_valid: codes[2] != 0,
            own_tracked_alt: codes[3],
            own_tracked_alt_rate: codes[4],
            other_tracked_alt: codes[5],
            alt_layer_value: layer as usize,
            up_separation: codes[7],
            down_separation: codes[8],
            other_rac,
            other_capability,
            climb_inhibit: codes[11] != 0,
        })
    }

    /// The separation a manoeuvre must reach in this altitude layer.
    pub fn alim(&self) -> i32 {
        POSITIVE_RA_ALT_THRESH[self.alt_layer_value]
    }

    /// The upward separation, credited with [`NOZCROSS`] when climbing is inhibited.
    pub fn inhibit_biased_climb(&self) -> i32 {
        if self.climb_inhibit {
            self.up_separation + NOZCROSS
        } else {
            self.up_separation
        }
    }

    /// Whether the own aircraft is below the intruder.
    pub fn own_below_threat(&self) -> bool {
        self.own_tracked_alt < self.other_tracked_alt
    }

    /// Whether the own aircraft is above the intruder.
    pub fn own_above_threat(&self) -> bool {
        self.other_tracked_alt < self.own_tracked_alt
    }

    /// Whether a climb is acceptable without crossing the intruder's altitude.
    pub fn non_crossing_biased_climb(&self) -> bool {
        let upward_preferred = self.inhibit_biased_climb() > self.down_separation;
        if upward_preferred {
            !self.own_below_threat()
                || (self.own_below_threat() && !(self.down_separation >= self.alim()))
        } else {
            self.own_above_threat()
                && self.cur_vertical_sep >= MINSEP
                && self.up_separation >= self.alim()
        }
    }

    /// Whether a descent is acceptable without crossing the intruder's altitude.
    pub fn non_crossing_biased_descend(&self) -> bool {
        let upward_preferred = self.inhibit_biased_climb() > self.down_separation;
        if upward_preferred {
            self.own_below_threat()
                && self.cur_vertical_sep >= MINSEP
                && self.down_separation >= self.alim()
        } else {
            !self.own_above_threat()
                || (self.own_above_threat() && self.up_separation >= self.alim())
        }
    }

    /// The advisory for this encounter.
    pub fn alt_sep_test(&self) -> Advisory {
        let enabled = self.high_confidence
            && self.own_tracked_alt_rate <= OLEV
            && self.cur_vertical_sep > MAXALTDIFF;
        let tcas_equipped = self.other_capability == Capability::TcasTa;
        let intent_not_known =
            self.two_of_three_reports_valid && self.other_rac == OtherRac::NoIntent;

        let mut alt_sep = Advisory::Unresolved;
        if enabled && ((tcas_equipped && intent_not_known) || !tcas_equipped) {
            let need_upward_ra = self.non_crossing_biased_climb() && self.own_below_threat();
            let need_downward_ra = self.non_crossing_biased_descend() && self.own_above_threat();
            if need_upward_ra && need_downward_ra {
                // Contradictory needs: no advisory rather than a guess.
                alt_sep = Advisory::Unresolved;
            } else if need_upward_ra {
                alt_sep = Advisory::UpwardRa;
            } else if need_downward_ra {
                alt_sep = Advisory::DownwardRa;
            }
        }
        alt_sep
    }
}

/// The original program's whole run: the advisory code for twelve integer arguments, or
/// `-1` when they do not describe an encounter.
#[autodebug]
pub fn advisory_code(codes: &[i32]) -> i32 {
    match Encounter::from_codes(codes) {
        Some(encounter) => encounter.alt_sep_test().code(),
        None => -1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An encounter from the twelve codes, which must be valid.
    fn enc(codes: [i32; INPUT_COUNT]) -> Encounter {
        Encounter::from_codes(&codes).expect("valid codes")
    }

    /// Engaged, intruder without TCAS, layer 1 (alim 500): own at `own`, intruder at
    /// `other`, separations `up`/`down`, climb inhibit `inhibit`.
    fn geometry(own: i32, other: i32, up: i32, down: i32, inhibit: i32) -> Encounter {
        enc([700, 1, 1, own, 0, other, 1, up, down, 0, 2, inhibit])
    }

    #[test]
    fn reads_codes_in_the_original_order() {
        let e = enc([650, 1, 0, 2000, 300, 2500, 2, 410, 320, 1, 1, 1]);
        assert_eq!(e.cur_vertical_sep, 650);
        assert!(e.high_confidence);
        assert!(!e.two_of_three_reports_valid);
        assert_eq!(e.own_tracked_alt, 2000);
        assert_eq!(e.own_tracked_alt_rate, 300);
        assert_eq!(e.other_tracked_alt, 2500);
        assert_eq!(e.alt_layer_value, 2);
        assert_eq!(e.up_separation, 410);
        assert_eq!(e.down_separation, 320);
        assert_eq!(e.other_rac, OtherRac::DoNotClimb);
        assert_eq!(e.other_capability, Capability::TcasTa);
        assert!(e.climb_inhibit);
        let f = enc([0, 0, 7, 0, 0, 0, 0, 0, 0, 2, 2, 0]);
        assert!(!f.high_confidence);
        assert!(f.two_of_three_reports_valid);
        assert!(!f.climb_inhibit);
        assert_eq!(f.other_rac, OtherRac::DoNotDescend);
        assert_eq!(f.other_capability, Capability::Other);
        assert_eq!(enc([0; 12].map(|_| 1)).other_rac, OtherRac::DoNotClimb);
    }

    #[test]
    fn rejects_codes_out_of_range() {
        let good = [700, 1, 1, 1000, 0, 2000, 0, 500, 300, 0, 2, 0];
        assert!(Encounter::from_codes(&good).is_some());
        assert!(Encounter::from_codes(&good[..11]).is_none());
        assert!(Encounter::from_codes(&[good.as_slice(), &[0]].concat()).is_none());
        for (index, bad) in [(6, -1), (6, 4), (9, -1), (9, 3), (10, 0), (10, 3)] {
            let mut codes = good;
            codes[index] = bad;
            assert!(Encounter::from_codes(&codes).is_none(), "{index} = {bad}");
        }
        for (index, ok) in [(6, 3), (9, 2), (10, 1)] {
            let mut codes = good;
            codes[index] = ok;
            assert!(Encounter::from_codes(&codes).is_some(), "{index} = {ok}");
        }
    }

    #[test]
    fn alim_follows_the_layer() {
        for (layer, alim) in [(0, 400), (1, 500), (2, 640), (3, 740)] {
            let e = enc([700, 1, 1, 0, 0, 0, layer, 0, 0, 0, 2, 0]);
            assert_eq!(e.alim(), alim);
        }
    }

    #[test]
    fn climb_inhibit_credits_the_upward_separation() {
        assert_eq!(geometry(0, 0, 350, 0, 0).inhibit_biased_climb(), 350);
        assert_eq!(geometry(0, 0, 350, 0, 1).inhibit_biased_climb(), 450);
        assert_eq!(geometry(0, 0, -20, 0, 1).inhibit_biased_climb(), 80);
    }

    #[test]
    fn threat_is_below_above_or_level() {
        let below = geometry(1000, 1001, 0, 0, 0);
        assert!(below.own_below_threat() && !below.own_above_threat());
        let above = geometry(1001, 1000, 0, 0, 0);
        assert!(!above.own_below_threat() && above.own_above_threat());
        let level = geometry(1000, 1000, 0, 0, 0);
        assert!(!level.own_below_threat() && !level.own_above_threat());
    }

    #[test]
    fn biased_climb_when_upward_is_preferred() {
        // Upward preferred (up > down): a climb is fine unless it would need to cross
        // from below with enough downward separation.
        assert!(geometry(1000, 1000, 600, 100, 0).non_crossing_biased_climb());
        assert!(geometry(3000, 1000, 600, 100, 0).non_crossing_biased_climb());
        assert!(geometry(1000, 3000, 600, 499, 0).non_crossing_biased_climb());
        assert!(!geometry(1000, 3000, 600, 500, 0).non_crossing_biased_climb());
        assert!(!geometry(1000, 3000, 600, 550, 0).non_crossing_biased_climb());
        // The inhibit credit makes upward preferred at up == down.
        assert!(geometry(1000, 3000, 450, 450, 1).non_crossing_biased_climb());
        assert!(!geometry(1000, 3000, 450, 450, 0).non_crossing_biased_climb());
    }

    #[test]
    fn biased_climb_when_upward_is_not_preferred() {
        // Up <= down: only from above, with MINSEP vertical and alim upward separation.
        assert!(geometry(3000, 1000, 500, 500, 0).non_crossing_biased_climb());
        assert!(geometry(3000, 1000, 520, 900, 0).non_crossing_biased_climb());
        assert!(!geometry(3000, 1000, 499, 900, 0).non_crossing_biased_climb());
        assert!(!geometry(1000, 1000, 520, 900, 0).non_crossing_biased_climb());
        let mut e = geometry(3000, 1000, 520, 900, 0);
        e.cur_vertical_sep = 300;
        assert!(e.non_crossing_biased_climb());
        e.cur_vertical_sep = 299;
        assert!(!e.non_crossing_biased_climb());
    }

    #[test]
    fn biased_descend_both_ways() {
        // Upward preferred: only from below, with MINSEP vertical and alim downward.
        assert!(geometry(1000, 3000, 900, 500, 0).non_crossing_biased_descend());
        assert!(!geometry(1000, 3000, 900, 499, 0).non_crossing_biased_descend());
        assert!(!geometry(3000, 1000, 900, 600, 0).non_crossing_biased_descend());
        assert!(!geometry(1000, 1000, 900, 600, 0).non_crossing_biased_descend());
        let mut e = geometry(1000, 3000, 900, 600, 0);
        e.cur_vertical_sep = 300;
        assert!(e.non_crossing_biased_descend());
        e.cur_vertical_sep = 299;
        assert!(!e.non_crossing_biased_descend());
        // Not preferred: fine unless from above without alim upward separation.
        assert!(geometry(1000, 3000, 100, 900, 0).non_crossing_biased_descend());
        assert!(geometry(1000, 1000, 100, 900, 0).non_crossing_biased_descend());
        assert!(geometry(3000, 1000, 500, 900, 0).non_crossing_biased_descend());
        assert!(!geometry(3000, 1000, 499, 900, 0).non_crossing_biased_descend());
        assert!(geometry(3000, 1000, 600, 600, 0).non_crossing_biased_descend());
        assert!(!geometry(3000, 1000, 600, 600, 1).non_crossing_biased_descend());
    }

    #[test]
    fn climbs_from_below_and_descends_from_above() {
        assert_eq!(
            geometry(1000, 2000, 500, 300, 0).alt_sep_test(),
            Advisory::UpwardRa
        );
        assert_eq!(
            geometry(1000, 2000, 600, 500, 0).alt_sep_test(),
            Advisory::Unresolved
        );
        assert_eq!(
            geometry(3000, 2000, 500, 700, 0).alt_sep_test(),
            Advisory::DownwardRa
        );
        assert_eq!(
            geometry(3000, 2000, 499, 700, 0).alt_sep_test(),
            Advisory::Unresolved
        );
        assert_eq!(
            geometry(2000, 2000, 500, 300, 0).alt_sep_test(),
            Advisory::Unresolved
        );
        assert_eq!(
            geometry(2000, 2000, 300, 500, 0).alt_sep_test(),
            Advisory::Unresolved
        );
    }

    #[test]
    fn climb_inhibit_turns_a_descent_into_nothing() {
        // Layer 0 (alim 400): up 450 <= down 500 prefers descending…
        let mut e = geometry(3000, 2000, 450, 500, 0);
        e.alt_layer_value = 0;
        assert_eq!(e.alt_sep_test(), Advisory::DownwardRa);
        // …but the inhibit credit (550 > 500) prefers climbing, which crosses.
        e.climb_inhibit = true;
        assert_eq!(e.alt_sep_test(), Advisory::Unresolved);
    }

    #[test]
    fn engaged_only_with_confidence_low_rate_and_large_separation() {
        let base = [601, 1, 1, 1000, 600, 2000, 1, 500, 300, 0, 2, 0];
        assert_eq!(advisory_code(&base), 1);
        let mut codes = base;
        codes[0] = 600;
        assert_eq!(advisory_code(&codes), 0);
        codes = base;
        codes[4] = 601;
        assert_eq!(advisory_code(&codes), 0);
        codes[4] = -2000;
        assert_eq!(advisory_code(&codes), 1);
        codes = base;
        codes[1] = 0;
        assert_eq!(advisory_code(&codes), 0);
    }

    #[test]
    fn tcas_equipped_intruder_needs_unknown_intent() {
        // Equipped (capability 1): only with two-of-three valid and no intent.
        let equipped = [800, 1, 1, 3000, 0, 2000, 1, 500, 700, 0, 1, 0];
        assert_eq!(advisory_code(&equipped), 2);
        let mut codes = equipped;
        codes[2] = 0;
        assert_eq!(advisory_code(&codes), 0);
        codes = equipped;
        codes[9] = 1;
        assert_eq!(advisory_code(&codes), 0);
        codes[9] = 2;
        assert_eq!(advisory_code(&codes), 0);
        // Not equipped (capability 2): intent and report validity do not matter.
        codes = equipped;
        codes[10] = 2;
        codes[2] = 0;
        codes[9] = 2;
        assert_eq!(advisory_code(&codes), 2);
    }

    #[test]
    fn codes_of_advisories_and_bad_input() {
        assert_eq!(Advisory::Unresolved.code(), 0);
        assert_eq!(Advisory::UpwardRa.code(), 1);
        assert_eq!(Advisory::DownwardRa.code(), 2);
        assert_eq!(advisory_code(&[1, 2, 3]), -1);
        assert_eq!(
            advisory_code(&[700, 1, 1, 1000, 0, 2000, 4, 500, 300, 0, 2, 0]),
            -1
        );
        assert_eq!(
            advisory_code(&[700, 1, 1, 1000, 0, 2000, 3, 800, 700, 0, 2, 0]),
            1
        );
        assert_eq!(
            advisory_code(&[700, 1, 1, 1000, 0, 2000, 3, 800, 740, 0, 2, 0]),
            0
        );
    }
}
