//! Operations on whole values, part by part: the merge of two values under a condition
//! (`if c then a else b`) and structural equality.

use z3::ast::Bool;

use super::{R, SeqVal, Stop, Val, bool_const, both, bv_const};

/// `if c then a else b`, part by part; `which` is the branch the run took, if it took one.
pub(crate) fn ite(c: &Bool, which: Option<bool>, a: &Val, b: &Val) -> Val {
    // The same value on both sides (a variable neither branch changed) stays as it is.
    let pick = |x: Option<i128>, y: Option<i128>| match which {
        Some(true) => x,
        Some(false) => y,
        None if x == y => x,
        None => None,
    };
    match (a, b) {
        (Val::Bool(x, cx), Val::Bool(y, cy)) if x.ast_eq(y) => {
            return Val::Bool(
                x.clone(),
                pick(cx.map(i128::from), cy.map(i128::from)).map(|v| v != 0),
            );
        }
        (Val::Bits(x, cx, k), Val::Bits(y, cy, _)) if x.ast_eq(y) => {
            return Val::Bits(x.clone(), pick(*cx, *cy), *k);
        }
        (Val::Seq(x), Val::Seq(y))
            if x.arrs.len() == y.arrs.len()
                && x.arrs.iter().zip(&y.arrs).all(|(p, q)| p.ast_eq(q))
                && x.len.ast_eq(&y.len) =>
        {
            let conc = match which {
                Some(true) => x.conc.clone(),
                Some(false) => y.conc.clone(),
                None if x.conc == y.conc => x.conc.clone(),
                None => None,
            };
            return Val::Seq(Box::new(SeqVal {
                conc,
                ..(**x).clone()
            }));
        }
        _ => {}
    }
    match (a, b) {
        (Val::Unit, Val::Unit) => Val::Unit,
        (Val::Bool(x, cx), Val::Bool(y, cy)) => Val::Bool(
            c.ite(x, y),
            pick(cx.map(i128::from), cy.map(i128::from)).map(|v| v != 0),
        ),
        (Val::Bits(x, cx, k), Val::Bits(y, cy, _)) => Val::Bits(c.ite(x, y), pick(*cx, *cy), *k),
        (Val::Seq(x), Val::Seq(y)) => Val::Seq(Box::new(SeqVal {
            arrs: x
                .arrs
                .iter()
                .zip(&y.arrs)
                .map(|(p, q)| c.ite(p, q))
                .collect(),
            len: c.ite(&x.len, &y.len),
            elem: x.elem.clone(),
            conc: match which {
                Some(true) => x.conc.clone(),
                Some(false) => y.conc.clone(),
                None => None,
            },
        })),
        (Val::Tuple(xs), Val::Tuple(ys)) if xs.len() == ys.len() => Val::Tuple(
            xs.iter()
                .zip(ys)
                .map(|(x, y)| ite(c, which, x, y))
                .collect(),
        ),
        (Val::Struct(n, xs), Val::Struct(_, ys)) if xs.len() == ys.len() => Val::Struct(
            n.clone(),
            xs.iter()
                .zip(ys)
                .map(|(x, y)| ite(c, which, x, y))
                .collect(),
        ),
        (Val::Option(sx, cx, px), Val::Option(sy, cy, py)) => Val::Option(
            c.ite(sx, sy),
            pick(cx.map(i128::from), cy.map(i128::from)).map(|v| v != 0),
            Box::new(ite(c, which, px, py)),
        ),
        (Val::Opaque(r), _) | (_, Val::Opaque(r)) => Val::Opaque(r.clone()),
        _ => Val::Opaque("values of different shapes merged".into()),
    }
}

/// Structural equality: its term and run value. Sequences are compared element by element
/// up to `max_len` (their longest known length).
pub(crate) fn equal(a: &Val, b: &Val) -> R<(Bool, Option<bool>)> {
    match (a, b) {
        (Val::Unit, Val::Unit) => Ok((bool_const(true), Some(true))),
        (Val::Bool(x, cx), Val::Bool(y, cy)) => Ok((x.iff(y), both(*cx, *cy, |p, q| p == q))),
        (Val::Bits(x, cx, _), Val::Bits(y, cy, _)) => Ok((x.eq(y), both(*cx, *cy, |p, q| p == q))),
        (Val::Seq(x), Val::Seq(y)) => {
            let n = match (&x.conc, &y.conc) {
                (Some(p), Some(q)) => p.len().max(q.len()),
                (Some(p), None) | (None, Some(p)) => p.len(),
                (None, None) => {
                    return Err(Stop::new(
                        "sequences of unknown lengths are compared for equality",
                    ));
                }
            };
            let mut parts = vec![x.len.eq(&y.len)];
            for k in 0..n {
                let idx = bv_const(k as i128, 64);
                let within = idx.bvult(&x.len);
                for (p, q) in x.arrs.iter().zip(&y.arrs) {
                    parts.push(within.implies(p.select(&idx).eq(q.select(&idx))));
                }
            }
            let known =
                |items: &Vec<Vec<Option<i128>>>| items.iter().flatten().all(Option::is_some);
            let conc = match (&x.conc, &y.conc) {
                (Some(p), Some(q)) if known(p) && known(q) => Some(p == q),
                (Some(p), Some(q)) if p.len() != q.len() => Some(false),
                _ => None,
            };
            Ok((Bool::and(&parts), conc))
        }
        (Val::Tuple(xs), Val::Tuple(ys)) | (Val::Struct(_, xs), Val::Struct(_, ys))
            if xs.len() == ys.len() =>
        {
            let mut terms = Vec::new();
            let mut conc = Some(true);
            for (x, y) in xs.iter().zip(ys) {
                let (t, c) = equal(x, y)?;
                terms.push(t);
                conc = match (conc, c) {
                    (Some(false), _) | (_, Some(false)) => Some(false),
                    (Some(true), Some(true)) => Some(true),
                    _ => None,
                };
            }
            Ok((Bool::and(&terms), conc))
        }
        (Val::Option(sx, cx, px), Val::Option(sy, cy, py)) => {
            let (payload, cp) = equal(px, py)?;
            let term = Bool::and(&[sx.iff(sy), sx.implies(&payload)]);
            let conc = match (cx, cy) {
                (Some(false), Some(false)) => Some(true),
                (Some(p), Some(q)) if p != q => Some(false),
                (Some(true), Some(true)) => cp,
                _ => None,
            };
            Ok((term, conc))
        }
        (Val::Opaque(r), _) | (_, Val::Opaque(r)) => {
            Err(Stop::new(format!("values of {r} are compared")))
        }
        _ => Err(Stop::new("values of different types are compared")),
    }
}
