//! Solver work counted in z3's steps (its `rlimit` count), not seconds. A bound in steps
//! stops a query at the same point on a quiet machine and on a loaded one, so the same
//! failure gets the same diagnoses, runs and candidates wherever it is analysed; a bound in
//! seconds does not. Every step limit keeps a time limit beside it, a safety net set well
//! past what the steps take ([`net_ms`]), for what steps do not count.
//!
//! z3 counts the steps of every solver of a thread's context into one counter; [`taken`]
//! reads it, so a budget spanning several solvers is the difference of two readings.

use z3::{Params, Solver, Statistics, StatisticsValue};

/// About how many steps z3 4.8.12 takes a second on the project's 2-core machine (3.3 to 6
/// million, by query): what converts the step bounds into the time limits kept as nets.
pub const PER_SECOND: u64 = 4_000_000;

/// The steps z3 has taken in this thread's context so far.
pub fn taken() -> u64 {
    count(&Solver::new().get_statistics())
}

/// The context's step count in a solver's statistics.
pub(crate) fn count(statistics: &Statistics) -> u64 {
    match statistics.value("rlimit count") {
        Some(StatisticsValue::UInt(n)) => u64::from(n),
        Some(StatisticsValue::Double(n)) => n as u64,
        None => 0,
    }
}

/// The time limit kept beside a limit of `steps`: five times what the steps take at
/// [`PER_SECOND`], and a second more, so that on a machine at a fifth of this one's speed
/// the steps still decide.
pub fn net_ms(steps: u64) -> u32 {
    (steps.saturating_mul(5_000) / PER_SECOND)
        .saturating_add(1_000)
        .min(u64::from(u32::MAX)) as u32
}

/// Parameters limiting each check of a solver to `steps` (z3's `rlimit`, counted from the
/// check's start) and to their time net.
pub fn params(steps: u32) -> Params {
    let mut params = Params::new();
    params.set_u32("rlimit", steps);
    params.set_u32("timeout", net_ms(u64::from(steps)));
    params
}

/// `n` steps as a `u32` limit of one check (a check is given at most `u32::MAX`).
pub fn limit(n: u64) -> u32 {
    n.min(u64::from(u32::MAX)) as u32
}

#[cfg(test)]
mod tests {
    use z3::ast::BV;
    use z3::{SatResult, Solver};

    use super::*;

    /// A factoring problem z3 takes seconds over: a step limit stops it after the steps
    /// it names (within a few), and the counter moved by as many.
    #[test]
    fn a_step_limit_stops_a_check_where_it_says() {
        let x = BV::new_const("x", 64);
        let y = BV::new_const("y", 64);
        let solver = Solver::new();
        solver.set_params(&params(300_000));
        solver.assert(x.bvmul(&y).eq(BV::from_u64(1_000_003 * 999_983, 64)));
        solver.assert(x.bvugt(BV::from_u64(1, 64)));
        solver.assert(y.bvugt(BV::from_u64(1, 64)));
        solver.assert(x.bvult(BV::from_u64(1 << 32, 64)));
        solver.assert(y.bvult(BV::from_u64(1 << 32, 64)));
        let before = taken();
        assert_eq!(solver.check(), SatResult::Unknown);
        let took = taken() - before;
        assert!((300_000..=300_100).contains(&took), "took {took} steps");
    }

    #[test]
    fn the_time_net_is_five_times_the_steps_and_a_second() {
        assert_eq!(net_ms(0), 1_000);
        assert_eq!(net_ms(4_000_000), 6_000);
        assert_eq!(net_ms(u64::MAX), u32::MAX);
    }
}
