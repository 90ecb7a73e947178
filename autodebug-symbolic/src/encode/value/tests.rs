//! Tests of the values and their operations: constants at every width, division by powers
//! of two, overflow, division and remainder, casts, out-of-bounds indexing.

use super::arith::by_power_of_two;
use super::*;
use crate::ir::BinOp;

fn int(v: i128, t: IntType) -> Val {
    Val::Bits(bv_const(v, t.bits()), Some(v), Bits::Int(t))
}

#[test]
fn constants_round_trip_at_every_width() {
    for t in IntType::ALL {
        for v in [0, 1, -1, t.min_value(), t.max_value().unwrap_or(i128::MAX)] {
            if !in_range(v, Bits::Int(t)) {
                continue;
            }
            assert_eq!(
                bv_value(&bv_const(v, t.bits()), t.signed()),
                Some(v),
                "{t:?} {v}"
            );
        }
    }
}

#[test]
fn division_by_a_power_of_two_is_the_division() {
    for (signed, width) in [(true, 8), (false, 8), (true, 64), (false, 32)] {
        for k in 1..width - u32::from(signed) {
            let y = bv_const(1i128 << k, width);
            let x = BV::new_const(format!("x{signed}{width}{k}"), width);
            for op in [BinOp::Div, BinOp::Rem] {
                let shifted = by_power_of_two(op, signed, &x, &y, width).unwrap();
                let divided = match (op, signed) {
                    (BinOp::Div, true) => x.bvsdiv(&y),
                    (BinOp::Div, false) => x.bvudiv(&y),
                    (_, true) => x.bvsrem(&y),
                    _ => x.bvurem(&y),
                };
                let solver = z3::Solver::new();
                solver.assert(shifted.eq(&divided).not());
                assert_eq!(
                    solver.check(),
                    z3::SatResult::Unsat,
                    "{op:?} {signed} {width} {k}"
                );
            }
        }
    }
    let x = BV::new_const("x", 8);
    assert!(by_power_of_two(BinOp::Div, true, &x, &bv_const(-128, 8), 8).is_none());
    assert!(by_power_of_two(BinOp::Div, true, &x, &bv_const(6, 8), 8).is_none());
    assert!(by_power_of_two(BinOp::Div, false, &x, &bv_const(1, 8), 8).is_none());
}

#[test]
fn overflow_is_a_panic_in_the_run_and_in_the_term() {
    let (v, panics) = binary(BinOp::Add, &int(127, IntType::I8), &int(1, IntType::I8)).unwrap();
    assert_eq!(panics[0].conc, Some(true));
    assert_eq!(panics[0].cond.simplify().as_bool(), Some(true));
    assert!(matches!(v, Val::Bits(_, None, _)));
    let (v, panics) = binary(BinOp::Sub, &int(0, IntType::Usize), &int(1, IntType::Usize)).unwrap();
    assert_eq!(panics[0].conc, Some(true));
    assert_eq!(panics[0].cond.simplify().as_bool(), Some(true));
    assert!(matches!(v, Val::Bits(_, None, _)));
    let (v, _) = binary(
        BinOp::WrappingAdd,
        &int(127, IntType::I8),
        &int(1, IntType::I8),
    )
    .unwrap();
    assert!(matches!(v, Val::Bits(_, Some(-128), _)));
    let (v, _) = binary(
        BinOp::SaturatingSub,
        &int(3, IntType::U8),
        &int(5, IntType::U8),
    )
    .unwrap();
    let Val::Bits(t, Some(0), _) = v else {
        panic!()
    };
    assert_eq!(bv_value(&t, false), Some(0));
}

#[test]
fn division_rounds_toward_zero_and_remainder_takes_the_dividends_sign() {
    let (q, _) = binary(BinOp::Div, &int(-7, IntType::I32), &int(2, IntType::I32)).unwrap();
    let Val::Bits(t, Some(-3), _) = q else {
        panic!()
    };
    assert_eq!(bv_value(&t, true), Some(-3));
    let (r, _) = binary(BinOp::Rem, &int(-7, IntType::I32), &int(2, IntType::I32)).unwrap();
    let Val::Bits(t, Some(-1), _) = r else {
        panic!()
    };
    assert_eq!(bv_value(&t, true), Some(-1));
    let (_, panics) = binary(
        BinOp::Div,
        &int(i32::MIN as i128, IntType::I32),
        &int(-1, IntType::I32),
    )
    .unwrap();
    assert!(panics.iter().any(|p| p.conc == Some(true)));
}

#[test]
fn casts_truncate_and_extend_by_the_sources_sign() {
    let v = cast(&int(-1, IntType::I8), &Type::Int(IntType::U16)).unwrap();
    let Val::Bits(t, Some(65535), _) = v else {
        panic!()
    };
    assert_eq!(bv_value(&t, false), Some(65535));
    let v = cast(&int(300, IntType::U16), &Type::Int(IntType::U8)).unwrap();
    let Val::Bits(t, Some(44), _) = v else {
        panic!()
    };
    assert_eq!(bv_value(&t, false), Some(44));
}

#[test]
fn out_of_bounds_indexing_panics() {
    let seq = array(
        Elem::Bits(Bits::Int(IntType::I32)),
        &[int(4, IntType::I32), int(5, IntType::I32)],
    )
    .unwrap();
    let (v, panics) = index(&seq, &int(1, IntType::Usize)).unwrap();
    assert!(matches!(v, Val::Bits(_, Some(5), _)));
    assert_eq!(panics[0].conc, Some(false));
    let (_, panics) = index(&seq, &int(2, IntType::Usize)).unwrap();
    assert_eq!(panics[0].conc, Some(true));
    assert_eq!(panics[0].cond.simplify().as_bool(), Some(true));
}
