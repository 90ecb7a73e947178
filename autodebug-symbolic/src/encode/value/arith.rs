//! Integer and bit-vector arithmetic with Rust's semantics: comparisons, `+`/`-`/`*` with
//! their overflow panics and their wrapping, saturating and checked kin, division and
//! remainder, shifts, bitwise and unary operators, and casts between scalar types.

use z3::ast::{BV, Bool};

use super::{Bits, Outcome, Panic, R, Stop, Val, bits_of, both, bv_const, equal, in_range, wrap};
use crate::ir::{BinOp, IntType, Type, UnOp};

fn cmp(op: BinOp, a: &BV, b: &BV, signed: bool) -> Bool {
    match (op, signed) {
        (BinOp::Lt, true) => a.bvslt(b),
        (BinOp::Lt, false) => a.bvult(b),
        (BinOp::Le, true) => a.bvsle(b),
        (BinOp::Le, false) => a.bvule(b),
        (BinOp::Gt, true) => a.bvsgt(b),
        (BinOp::Gt, false) => a.bvugt(b),
        (BinOp::Ge, true) => a.bvsge(b),
        _ => a.bvuge(b),
    }
}

fn cmp_conc(op: BinOp, a: i128, b: i128) -> bool {
    match op {
        BinOp::Lt => a < b,
        BinOp::Le => a <= b,
        BinOp::Gt => a > b,
        _ => a >= b,
    }
}

/// Whether `a OP b` overflows, as a term and in the run (for `+`, `-`, `*`).
fn overflow(op: BinOp, a: &BV, b: &BV, signed: bool) -> Bool {
    match (op, signed) {
        (BinOp::Add, true) => {
            Bool::and(&[a.bvadd_no_overflow(b, true), a.bvadd_no_underflow(b)]).not()
        }
        (BinOp::Add, false) => a.bvadd_no_overflow(b, false).not(),
        (BinOp::Sub, true) => {
            Bool::and(&[a.bvsub_no_overflow(b), a.bvsub_no_underflow(b, true)]).not()
        }
        (BinOp::Sub, false) => a.bvult(b),
        (BinOp::Mul, true) => {
            Bool::and(&[a.bvmul_no_overflow(b, true), a.bvmul_no_underflow(b)]).not()
        }
        _ => a.bvmul_no_overflow(b, false).not(),
    }
}

/// The exact result of `a OP b` for `+`, `-`, `*` (`None` beyond `i128`).
fn exact(op: BinOp, a: i128, b: i128) -> Option<i128> {
    match op {
        BinOp::Add => a.checked_add(b),
        BinOp::Sub => a.checked_sub(b),
        _ => a.checked_mul(b),
    }
}

fn arith(op: BinOp, a: &BV, b: &BV) -> BV {
    match op {
        BinOp::Add => a.bvadd(b),
        BinOp::Sub => a.bvsub(b),
        _ => a.bvmul(b),
    }
}

/// The basic operation behind a wrapping, saturating or checked one.
fn base(op: BinOp) -> BinOp {
    match op {
        BinOp::WrappingAdd | BinOp::SaturatingAdd | BinOp::CheckedAdd => BinOp::Add,
        BinOp::WrappingSub | BinOp::SaturatingSub | BinOp::CheckedSub => BinOp::Sub,
        BinOp::WrappingMul | BinOp::SaturatingMul | BinOp::CheckedMul => BinOp::Mul,
        other => other,
    }
}

/// `a OP b` for the operators that do not short-circuit (`&&`, `||` are the caller's).
pub(crate) fn binary(op: BinOp, a: &Val, b: &Val) -> R<Outcome> {
    match op {
        BinOp::Eq | BinOp::Ne => {
            let (t, c) = equal(a, b)?;
            Ok(if op == BinOp::Eq {
                (Val::Bool(t, c), vec![])
            } else {
                (Val::Bool(t.not(), c.map(|c| !c)), vec![])
            })
        }
        BinOp::And | BinOp::Or | BinOp::Implies | BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor
            if matches!(a, Val::Bool(..)) =>
        {
            let (x, cx) = a.as_bool()?;
            let (y, cy) = b.as_bool()?;
            let (t, c) = match op {
                BinOp::And | BinOp::BitAnd => (Bool::and(&[&x, &y]), both(cx, cy, |p, q| p && q)),
                BinOp::Or | BinOp::BitOr => (Bool::or(&[&x, &y]), both(cx, cy, |p, q| p || q)),
                BinOp::Implies => (x.implies(&y), both(cx, cy, |p, q| !p || q)),
                _ => (x.xor(&y), both(cx, cy, |p, q| p != q)),
            };
            Ok((Val::Bool(t, c), vec![]))
        }
        BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge if matches!(a, Val::Bool(..)) => {
            // false < true
            let (x, cx) = a.as_bool()?;
            let (y, cy) = b.as_bool()?;
            let to_bv = |p: &Bool| p.ite(&bv_const(1, 1), &bv_const(0, 1));
            let t = cmp(op, &to_bv(&x), &to_bv(&y), false);
            let c = both(cx, cy, |p, q| cmp_conc(op, p as i128, q as i128));
            Ok((Val::Bool(t, c), vec![]))
        }
        _ => bits_binary(op, a, b),
    }
}

fn bits_binary(op: BinOp, a: &Val, b: &Val) -> R<Outcome> {
    let (x, cx, k) = a.as_bits()?;
    let (y, cy, kb) = b.as_bits()?;
    let signed = k.signed();
    let kind = |v: BV, c: Option<i128>| Val::Bits(v, c, k);
    match op {
        BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => Ok((
            Val::Bool(
                cmp(op, &x, &y, signed),
                both(cx, cy, |p, q| cmp_conc(op, p, q)),
            ),
            vec![],
        )),
        BinOp::Add | BinOp::Sub | BinOp::Mul => {
            let r = arith(op, &x, &y);
            let ex = both(cx, cy, |p, q| exact(op, p, q)).flatten();
            let (c, ovf) = match ex {
                Some(v) if in_range(v, k) => (Some(v), Some(false)),
                Some(_) => (None, Some(true)),
                None if cx.is_some() && cy.is_some() && k == Bits::Int(IntType::I128) => {
                    (None, Some(true))
                }
                None => (None, None),
            };
            let what = match op {
                BinOp::Add => "attempt to add with overflow",
                BinOp::Sub => "attempt to subtract with overflow",
                _ => "attempt to multiply with overflow",
            };
            Ok((
                kind(r, c),
                vec![Panic {
                    cond: overflow(op, &x, &y, signed),
                    conc: ovf,
                    what,
                }],
            ))
        }
        BinOp::WrappingAdd | BinOp::WrappingSub | BinOp::WrappingMul => {
            let op = base(op);
            let c = both(cx, cy, |p, q| exact(op, p, q))
                .flatten()
                .and_then(|v| wrap(v, k))
                .or_else(|| {
                    // beyond i128 (128-bit operands): wrap in two's complement
                    let (p, q) = (cx?, cy?);
                    let w = match op {
                        BinOp::Add => p.wrapping_add(q),
                        BinOp::Sub => p.wrapping_sub(q),
                        _ => p.wrapping_mul(q),
                    };
                    wrap(w, k)
                });
            Ok((kind(arith(op, &x, &y), c), vec![]))
        }
        BinOp::SaturatingAdd | BinOp::SaturatingSub | BinOp::SaturatingMul => {
            saturating(op, &x, &y, (cx, cy), k)
        }
        BinOp::CheckedAdd | BinOp::CheckedSub | BinOp::CheckedMul => {
            checked(op, &x, &y, (cx, cy), k)
        }
        BinOp::Div | BinOp::Rem => division(op, &x, &y, (cx, cy), k),
        BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor => {
            let t = match op {
                BinOp::BitAnd => x.bvand(&y),
                BinOp::BitOr => x.bvor(&y),
                _ => x.bvxor(&y),
            };
            let c = both(cx, cy, |p, q| match op {
                BinOp::BitAnd => p & q,
                BinOp::BitOr => p | q,
                _ => p ^ q,
            })
            .and_then(|v| wrap(v, k));
            Ok((kind(t, c), vec![]))
        }
        BinOp::Shl | BinOp::Shr => shift(op, &x, &y, (cx, cy), (k, kb)),
        BinOp::Min | BinOp::Max => {
            let less = cmp(BinOp::Lt, &x, &y, signed);
            let t = if op == BinOp::Min {
                less.ite(&x, &y)
            } else {
                less.ite(&y, &x)
            };
            let c = both(
                cx,
                cy,
                |p, q| if op == BinOp::Min { p.min(q) } else { p.max(q) },
            );
            Ok((kind(t, c), vec![]))
        }
        BinOp::Eq | BinOp::Ne | BinOp::And | BinOp::Or | BinOp::Implies => {
            Err(Stop::new(format!("`{}` on integers", op.symbol())))
        }
    }
}

/// `a.saturating_add(b)` and its kin on integers of kind `k` (`c`: the operands' concrete
/// values, when known).
fn saturating(op: BinOp, x: &BV, y: &BV, (cx, cy): Concrete2, k: Bits) -> R<Outcome> {
    let (signed, width) = (k.signed(), k.width());
    let kind = |v: BV, c: Option<i128>| Val::Bits(v, c, k);
    let (x, y) = (x.clone(), y.clone());
    let bop = base(op);
    let r = arith(bop, &x, &y);
    let (hi, lo) = (bv_const(k.max(), width), bv_const(k.min(), width));
    let t = if signed {
        match bop {
            BinOp::Add => x
                .bvadd_no_overflow(&y, true)
                .not()
                .ite(&hi, &x.bvadd_no_underflow(&y).not().ite(&lo, &r)),
            BinOp::Sub => x
                .bvsub_no_overflow(&y)
                .not()
                .ite(&hi, &x.bvsub_no_underflow(&y, true).not().ite(&lo, &r)),
            _ => {
                let negative = x.bvslt(bv_const(0, width)).xor(y.bvslt(bv_const(0, width)));
                overflow(bop, &x, &y, true).ite(&negative.ite(&lo, &hi), &r)
            }
        }
    } else {
        match bop {
            BinOp::Sub => x.bvult(&y).ite(&lo, &r),
            _ => overflow(bop, &x, &y, false).ite(&hi, &r),
        }
    };
    let c = both(cx, cy, |p, q| exact(bop, p, q))
        .flatten()
        .map(|v| v.clamp(k.min(), k.max()));
    Ok((kind(t, c), vec![]))
}

/// `a.checked_add(b)` and its kin: `Some` of the result unless it overflows.
fn checked(op: BinOp, x: &BV, y: &BV, (cx, cy): Concrete2, k: Bits) -> R<Outcome> {
    let signed = k.signed();
    let kind = |v: BV, c: Option<i128>| Val::Bits(v, c, k);
    let (x, y) = (x.clone(), y.clone());
    let bop = base(op);
    let r = arith(bop, &x, &y);
    let ex = both(cx, cy, |p, q| exact(bop, p, q)).flatten();
    let (c, some) = match ex {
        Some(v) if in_range(v, k) => (Some(v), Some(true)),
        Some(_) => (None, Some(false)),
        None => (None, None),
    };
    Ok((
        Val::Option(
            overflow(bop, &x, &y, signed).not(),
            some,
            Box::new(kind(r, c)),
        ),
        vec![],
    ))
}

/// `a / b` and `a % b`, with their panics (a divisor of zero; `MIN / -1` when signed).
fn division(op: BinOp, x: &BV, y: &BV, (cx, cy): Concrete2, k: Bits) -> R<Outcome> {
    let (signed, width) = (k.signed(), k.width());
    let kind = |v: BV, c: Option<i128>| Val::Bits(v, c, k);
    let (x, y) = (x.clone(), y.clone());
    let zero = y.eq(bv_const(0, width));
    let r = by_power_of_two(op, signed, &x, &y, width).unwrap_or_else(|| match (op, signed) {
        (BinOp::Div, true) => x.bvsdiv(&y),
        (BinOp::Div, false) => x.bvudiv(&y),
        (_, true) => x.bvsrem(&y),
        _ => x.bvurem(&y),
    });
    let c = both(cx, cy, |p, q| {
        if q == 0 {
            None
        } else if op == BinOp::Div {
            p.checked_div(q).filter(|v| in_range(*v, k))
        } else {
            p.checked_rem(q)
                .filter(|_| !(signed && p == k.min() && q == -1))
        }
    })
    .flatten();
    let mut panics = vec![Panic {
        cond: zero,
        conc: cy.map(|q| q == 0),
        what: if op == BinOp::Div {
            "attempt to divide by zero"
        } else {
            "attempt to calculate the remainder with a divisor of zero"
        },
    }];
    if signed {
        let min = bv_const(k.min(), width);
        panics.push(Panic {
            cond: Bool::and(&[x.eq(&min), y.eq(bv_const(-1, width))]),
            conc: both(cx, cy, |p, q| p == k.min() && q == -1),
            what: if op == BinOp::Div {
                "attempt to divide with overflow"
            } else {
                "attempt to calculate the remainder with overflow"
            },
        });
    }
    Ok((kind(r, c), panics))
}

/// `x / 2^k` and `x % 2^k` (`y` the constant `2^k`, `k ≥ 1`) as shifts and masks: the
/// same values as the division (rounding toward zero when signed), without the divider
/// circuit the solver otherwise bit-blasts for each instance (`(lo + hi) / 2` in a loop
/// made each check of a binary search take seconds). `None` for any other divisor.
pub(super) fn by_power_of_two(op: BinOp, signed: bool, x: &BV, y: &BV, width: u32) -> Option<BV> {
    let d = y.as_u64()?;
    let k = d.trailing_zeros();
    // A signed `2^(width-1)` is `MIN`, a negative divisor.
    if !d.is_power_of_two() || k == 0 || k + u32::from(signed) >= width {
        return None;
    }
    let shift = |n: u32| bv_const(i128::from(n), width);
    if !signed {
        return Some(match op {
            BinOp::Div => x.bvlshr(shift(k)),
            _ => x.bvand(bv_const((1i128 << k) - 1, width)),
        });
    }
    // A negative `x` is biased by `2^k - 1` so that the arithmetic shift rounds toward zero.
    let bias = x.bvashr(shift(width - 1)).bvlshr(shift(width - k));
    let quotient = x.bvadd(&bias).bvashr(shift(k));
    Some(match op {
        BinOp::Div => quotient,
        _ => x.bvsub(quotient.bvshl(shift(k))),
    })
}

/// `a << b` and `a >> b`, the amount of kind `kb`, with the panic of a shift too far.
fn shift(op: BinOp, x: &BV, y: &BV, (cx, cy): Concrete2, (k, kb): (Bits, Bits)) -> R<Outcome> {
    let (signed, width) = (k.signed(), k.width());
    let kind = |v: BV, c: Option<i128>| Val::Bits(v, c, k);
    let (x, y) = (x.clone(), y.clone());
    // The amount may be of another integer type: out of range when negative or at
    // least the width.
    let wb = kb.width();
    let limit = bv_const(width as i128, wb.max(8));
    let amount_wide = if wb < 8 {
        y.zero_ext(8 - wb)
    } else {
        y.clone()
    };
    let too_far = if kb.signed() {
        Bool::or(&[
            amount_wide.bvslt(bv_const(0, wb.max(8))),
            amount_wide.bvsge(&limit),
        ])
    } else {
        amount_wide.bvuge(&limit)
    };
    let amount = match wb.cmp(&width) {
        std::cmp::Ordering::Less => y.zero_ext(width - wb),
        std::cmp::Ordering::Greater => y.extract(width - 1, 0),
        std::cmp::Ordering::Equal => y.clone(),
    };
    let t = match (op, signed) {
        (BinOp::Shl, _) => x.bvshl(&amount),
        (_, true) => x.bvashr(&amount),
        _ => x.bvlshr(&amount),
    };
    let far = cy.map(|q| q < 0 || q >= width as i128);
    let c = both(cx, cy, |p, q| {
        if q < 0 || q >= width as i128 {
            None
        } else if op == BinOp::Shl {
            wrap(((p as u128) << q) as i128, k)
        } else if signed {
            Some(p >> q)
        } else {
            Some(((p as u128) >> q) as i128)
        }
    })
    .flatten();
    Ok((
        kind(t, c),
        vec![Panic {
            cond: too_far,
            conc: far,
            what: if op == BinOp::Shl {
                "attempt to shift left with overflow"
            } else {
                "attempt to shift right with overflow"
            },
        }],
    ))
}

/// The concrete values of two operands, when known.
type Concrete2 = (Option<i128>, Option<i128>);

/// `OP a`.
pub(crate) fn unary(op: UnOp, a: &Val) -> R<Outcome> {
    if let (UnOp::Not, Val::Bool(b, c)) = (op, a) {
        return Ok((Val::Bool(b.not(), c.map(|c| !c)), vec![]));
    }
    let (x, cx, k) = a.as_bits()?;
    let width = k.width();
    let min = bv_const(k.min(), width);
    match op {
        UnOp::Not => Ok((
            Val::Bits(x.bvnot(), cx.and_then(|v| wrap(!v, k)), k),
            vec![],
        )),
        UnOp::WrappingNeg => Ok((
            Val::Bits(
                x.bvneg(),
                cx.and_then(|v| v.checked_neg()).and_then(|v| wrap(v, k)),
                k,
            ),
            vec![],
        )),
        UnOp::Neg | UnOp::Abs => {
            let is_min = if k.signed() {
                x.eq(&min)
            } else {
                Bool::from_bool(false)
            };
            let conc_min = cx.map(|v| k.signed() && v == k.min());
            let (t, c) = if op == UnOp::Neg {
                (x.bvneg(), cx.filter(|v| *v != k.min()).map(|v| -v))
            } else {
                let negative = x.bvslt(bv_const(0, width));
                (
                    negative.ite(&x.bvneg(), &x),
                    cx.filter(|v| *v != k.min()).map(i128::abs),
                )
            };
            Ok((
                Val::Bits(t, c, k),
                vec![Panic {
                    cond: is_min,
                    conc: conc_min,
                    what: "attempt to negate with overflow",
                }],
            ))
        }
    }
}

/// `a as T` to the scalar `to`.
pub(crate) fn cast(a: &Val, to: &Type) -> R<Val> {
    let target = bits_of(to).ok_or_else(|| Stop::new(format!("a cast to `{to}`")))?;
    let tw = target.width();
    match a {
        Val::Bool(b, c) => Ok(Val::Bits(
            b.ite(&bv_const(1, tw), &bv_const(0, tw)),
            c.map(i128::from),
            target,
        )),
        Val::Bits(x, c, k) => {
            let w = k.width();
            let t = match tw.cmp(&w) {
                std::cmp::Ordering::Less => x.extract(tw - 1, 0),
                std::cmp::Ordering::Greater if k.signed() => x.sign_ext(tw - w),
                std::cmp::Ordering::Greater => x.zero_ext(tw - w),
                std::cmp::Ordering::Equal => x.clone(),
            };
            Ok(Val::Bits(t, c.and_then(|v| wrap(v, target)), target))
        }
        Val::Opaque(r) => Err(Stop::new(format!("a cast of {r}"))),
        _ => Err(Stop::new("a cast of a compound value")),
    }
}
