//! A small finite-state machine: the program `fsm` of Wotawa's "Localizing bugs in
//! programs — or how to use a program's constraint representation for software debugging?"
//! (figure 1): a state that `on`/`off` switch between 1 and 2, and two outputs computed
//! from three inputs in state 1. The fault is the paper's: statement 13 computes
//! `out2 = in3 || v` where `in3 && v` is meant. See `fault.json`.

use autodebug_runtime::{ensures, invariant, requires};

/// The machine: its only memory is the state, 1 (idle) or 2 (active).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fsm {
    state: u8,
}

impl Default for Fsm {
    fn default() -> Self {
        Fsm::new()
    }
}

#[invariant(self.state == Fsm::IDLE || self.state == Fsm::ACTIVE, "unknown state")]
impl Fsm {
    /// The state in which `on` switches the machine on and the outputs follow the inputs.
    pub const IDLE: u8 = 1;
    /// The state in which `off` switches the machine off and the outputs are low.
    pub const ACTIVE: u8 = 2;

    /// A machine in the idle state.
    pub fn new() -> Fsm {
        Fsm { state: Fsm::IDLE }
    }

    /// A machine in `state`.
    #[requires(state == Fsm::IDLE || state == Fsm::ACTIVE, "unknown state")]
    pub fn with_state(state: u8) -> Fsm {
        Fsm { state }
    }

    /// The current state.
    pub fn state(&self) -> u8 {
        self.state
    }

    /// One step: the transition on `on`/`off`, then the outputs `(out1, out2)` computed
    /// from `in1`, `in2`, `in3` in the new state.
    #[requires(!(on && off), "on and off are exclusive")]
    #[ensures(on -> self.state == Fsm::ACTIVE)]
    #[ensures(off -> self.state == Fsm::IDLE)]
    #[ensures(old(self.state) == self.state || on || off)]
    #[ensures(self.state == Fsm::ACTIVE -> ret == (false, false))]
    pub fn step(&mut self, on: bool, off: bool, in1: bool, in2: bool, in3: bool) -> (bool, bool) {
        let mut out1 = false;
        let mut out2 = false;
        if self.state == Fsm::IDLE {
            if on {
                self.state = Fsm::ACTIVE;
            }
        } else if self.state == Fsm::ACTIVE {
            if off {
                self.state = Fsm::IDLE;
            }
        }
        if self.state == Fsm::IDLE {
            let v = !in2;
            out1 = in1 && v;
            out2 = in3 || v;
        }
        if self.state == Fsm::ACTIVE {
            out1 = false;
            out2 = false;
        }
        (out1, out2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn starts_idle() {
        assert_eq!(Fsm::new().state(), Fsm::IDLE);
        assert_eq!(Fsm::default(), Fsm::new());
    }

    #[test]
    fn on_switches_to_active() {
        let mut fsm = Fsm::new();
        assert_eq!(fsm.step(true, false, true, false, true), (false, false));
        assert_eq!(fsm.state(), Fsm::ACTIVE);
    }

    #[test]
    fn off_switches_to_idle() {
        let mut fsm = Fsm::with_state(Fsm::ACTIVE);
        fsm.step(false, true, false, true, false);
        assert_eq!(fsm.state(), Fsm::IDLE);
    }

    #[test]
    fn active_outputs_are_low() {
        let mut fsm = Fsm::with_state(Fsm::ACTIVE);
        assert_eq!(fsm.step(false, false, true, false, true), (false, false));
        assert_eq!(fsm.step(true, false, true, true, true), (false, false));
    }

    /// The paper's unit test: @INIT state = 2, on = false, off = true, in1 = true,
    /// in2 = false, in3 = false; @ASSERT out1 = true, out2 = false.
    #[test]
    fn paper_unit_test() {
        let mut fsm = Fsm::with_state(2);
        assert_eq!(fsm.step(false, true, true, false, false), (true, false));
    }

    #[test]
    fn idle_outputs_with_in2_high() {
        let mut fsm = Fsm::new();
        assert_eq!(fsm.step(false, false, true, true, false), (false, false));
        assert_eq!(fsm.step(false, false, false, true, false), (false, false));
    }

    #[test]
    fn idle_outputs_with_in2_and_in3_high() {
        let mut fsm = Fsm::new();
        assert_eq!(fsm.step(false, false, true, true, true), (false, false));
    }

    #[test]
    fn idle_outputs_with_in2_low_and_in3_high() {
        let mut fsm = Fsm::new();
        assert_eq!(fsm.step(false, false, true, false, true), (true, true));
        assert_eq!(fsm.step(false, false, false, false, true), (false, true));
    }

    #[test]
    #[should_panic(expected = "Pre-condition of step violated")]
    fn rejects_on_and_off_together() {
        Fsm::new().step(true, true, false, false, false);
    }

    #[test]
    #[should_panic(expected = "Pre-condition of with_state violated")]
    fn rejects_unknown_state() {
        Fsm::with_state(3);
    }
}
