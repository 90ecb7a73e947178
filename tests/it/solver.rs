//! The z3 crate is linked against the system's libz3 (Debian's libz3-dev), which the symbolic
//! techniques need: check it loads and solves, so a broken install fails here first.

use z3::ast::Int;
use z3::{SatResult, Solver};

#[test]
fn system_libz3_solves_a_linear_constraint() {
    let solver = Solver::new();
    let x = Int::new_const("x");
    let y = Int::new_const("y");
    solver.assert((&x + &y).eq(Int::from_i64(10)));
    solver.assert((&x - &y).eq(Int::from_i64(4)));
    assert_eq!(solver.check(), SatResult::Sat);
    let model = solver.get_model().unwrap();
    assert_eq!(model.eval(&x, true).and_then(|v| v.as_i64()), Some(7));
    assert_eq!(model.eval(&y, true).and_then(|v| v.as_i64()), Some(3));
}

#[test]
fn system_libz3_proves_unsatisfiability() {
    let solver = Solver::new();
    let x = Int::new_const("x");
    solver.assert(x.gt(Int::from_i64(5)));
    solver.assert(x.lt(Int::from_i64(3)));
    assert_eq!(solver.check(), SatResult::Unsat);
}
