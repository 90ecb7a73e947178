//! Sequences: the element kinds a sequence is stored by (one array per scalar part), the
//! sequence value, and the operations on sequences (indexing, storing, `push`, array and
//! repeat literals, the length).

use z3::Sort;
use z3::ast::{Array, BV, Dynamic};

use super::{Bits, Outcome, Panic, R, Stop, Val, bits_of, bool_const, both, bv_const};
use crate::encode::Concrete;
use crate::ir::{IntType, Program, Type};

/// The element type of a sequence, by the scalar parts it is stored in: a sequence of
/// tuples or structs is held as one array per scalar field ("struct of arrays").
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Elem {
    Bool,
    Bits(Bits),
    Tuple(Vec<Elem>),
    Struct(String, Vec<Elem>),
}

impl Elem {
    /// The sorts of the scalar parts, in order.
    fn sorts(&self) -> Vec<Sort> {
        match self {
            Elem::Bool => vec![Sort::bool()],
            Elem::Bits(b) => vec![Sort::bitvector(b.width())],
            Elem::Tuple(es) | Elem::Struct(_, es) => es.iter().flat_map(Elem::sorts).collect(),
        }
    }

    /// The width of every scalar part (`None` for a `bool`).
    pub(super) fn widths(&self) -> Vec<Option<u32>> {
        match self {
            Elem::Bool => vec![None],
            Elem::Bits(b) => vec![Some(b.width())],
            Elem::Tuple(es) | Elem::Struct(_, es) => es.iter().flat_map(Elem::widths).collect(),
        }
    }

    /// Zero of every scalar part.
    fn zeros(&self) -> Vec<Dynamic> {
        match self {
            Elem::Bool => vec![Dynamic::from_ast(&bool_const(false))],
            Elem::Bits(b) => vec![Dynamic::from_ast(&bv_const(0, b.width()))],
            Elem::Tuple(es) | Elem::Struct(_, es) => es.iter().flat_map(Elem::zeros).collect(),
        }
    }

    /// The element made of its parts (terms and run values), taken in order.
    fn build(&self, parts: &mut dyn Iterator<Item = (Dynamic, Option<i128>)>) -> R<Val> {
        match self {
            Elem::Bool => {
                let (t, c) = parts
                    .next()
                    .ok_or_else(|| Stop::new("a sequence element lacks a part"))?;
                Ok(Val::Bool(
                    t.as_bool()
                        .ok_or_else(|| Stop::new("a sequence element is not a bool"))?,
                    c.map(|c| c != 0),
                ))
            }
            Elem::Bits(b) => {
                let (t, c) = parts
                    .next()
                    .ok_or_else(|| Stop::new("a sequence element lacks a part"))?;
                Ok(Val::Bits(
                    t.as_bv()
                        .ok_or_else(|| Stop::new("a sequence element is not a bit-vector"))?,
                    c,
                    *b,
                ))
            }
            Elem::Tuple(es) => Ok(Val::Tuple(
                es.iter().map(|e| e.build(parts)).collect::<R<Vec<_>>>()?,
            )),
            Elem::Struct(name, es) => Ok(Val::Struct(
                name.clone(),
                es.iter().map(|e| e.build(parts)).collect::<R<Vec<_>>>()?,
            )),
        }
    }

    /// The run values of the parts of a concrete element (unknown parts `None`).
    pub(super) fn concrete_parts(&self, c: &Concrete, out: &mut Vec<Option<i128>>) {
        match (self, c) {
            (Elem::Tuple(es), Concrete::Tuple(cs)) if es.len() == cs.len() => es
                .iter()
                .zip(cs)
                .for_each(|(e, c)| e.concrete_parts(c, out)),
            (Elem::Struct(_, es), Concrete::Struct(_, fields)) if es.len() == fields.len() => es
                .iter()
                .zip(fields)
                .for_each(|(e, (_, c))| e.concrete_parts(c, out)),
            (Elem::Tuple(es) | Elem::Struct(_, es), _) => es
                .iter()
                .for_each(|e| e.concrete_parts(&Concrete::Unknown, out)),
            (_, c) => out.push(c.scalar()),
        }
    }

    /// How many scalar parts an element has.
    pub(super) fn arity(&self) -> usize {
        match self {
            Elem::Bool | Elem::Bits(_) => 1,
            Elem::Tuple(es) | Elem::Struct(_, es) => es.iter().map(Elem::arity).sum(),
        }
    }
}

/// A sequence: the elements as arrays indexed by `usize` (one per scalar part of the
/// element), the length, and the elements of the run when known (each as its parts:
/// scalars as integers, `bool` as 0/1, `char` as its code).
#[derive(Debug, Clone)]
pub(crate) struct SeqVal {
    pub arrs: Vec<Array>,
    pub len: BV,
    pub elem: Elem,
    pub conc: Option<Vec<Vec<Option<i128>>>>,
}

impl SeqVal {
    /// Arrays named from `name`, one per part of `elem`.
    pub(super) fn fresh_arrays(elem: &Elem, name: &str) -> Vec<Array> {
        elem.sorts()
            .iter()
            .enumerate()
            .map(|(i, sort)| Array::new_const(format!("{name}.arr{i}"), &Sort::bitvector(64), sort))
            .collect()
    }

    /// Arrays holding zeros.
    pub(super) fn zero_arrays(elem: &Elem) -> Vec<Array> {
        elem.zeros()
            .iter()
            .map(|z| Array::const_array(&Sort::bitvector(64), z))
            .collect()
    }

    /// The element at `i` (a 64-bit index) with its run value.
    fn select(&self, i: &BV, conc: Option<Vec<Option<i128>>>) -> R<Val> {
        let conc = conc.unwrap_or_else(|| vec![None; self.elem.arity()]);
        let mut parts = self.arrs.iter().zip(conc).map(|(a, c)| (a.select(i), c));
        self.elem.build(&mut parts)
    }

    /// The arrays with `parts` stored at `i`.
    fn stored(&self, i: &BV, parts: &[(Dynamic, Option<i128>)]) -> Vec<Array> {
        self.arrs
            .iter()
            .zip(parts)
            .map(|(a, (t, _))| a.store(i, t))
            .collect()
    }
}

/// The element kind of a sequence of `ty`, when the subset models it: scalars, and
/// tuples and structs of them.
pub(crate) fn elem_of(ty: &Type, program: &Program) -> Option<Elem> {
    elem_depth(ty, program, 0)
}

fn elem_depth(ty: &Type, program: &Program, depth: usize) -> Option<Elem> {
    if depth > 8 {
        return None;
    }
    match ty {
        Type::Bool => Some(Elem::Bool),
        Type::Tuple(ts) => Some(Elem::Tuple(
            ts.iter()
                .map(|t| elem_depth(t, program, depth + 1))
                .collect::<Option<Vec<_>>>()?,
        )),
        Type::Struct(s) => Some(Elem::Struct(
            s.clone(),
            program
                .struct_def(s)?
                .fields
                .iter()
                .map(|(_, t)| elem_depth(t, program, depth + 1))
                .collect::<Option<Vec<_>>>()?,
        )),
        _ => bits_of(ty).map(Elem::Bits),
    }
}

/// The scalar parts of a value stored into a sequence (terms and run values).
pub(crate) fn parts_of(v: &Val) -> R<Vec<(Dynamic, Option<i128>)>> {
    let mut out = Vec::new();
    collect_parts(v, &mut out)?;
    Ok(out)
}

fn collect_parts(v: &Val, out: &mut Vec<(Dynamic, Option<i128>)>) -> R<()> {
    match v {
        Val::Bool(b, c) => out.push((Dynamic::from_ast(b), c.map(i128::from))),
        Val::Bits(bv, c, _) => out.push((Dynamic::from_ast(bv), *c)),
        Val::Tuple(vs) | Val::Struct(_, vs) => {
            for v in vs {
                collect_parts(v, out)?;
            }
        }
        Val::Opaque(r) => return Err(Stop::new(format!("a sequence element is {r}"))),
        _ => {
            return Err(Stop::new(
                "sequences of sequences or options are not modeled",
            ));
        }
    }
    Ok(())
}

/// `seq[index]`: the element and the out-of-bounds panic.
pub(crate) fn index(seq: &Val, idx: &Val) -> R<Outcome> {
    let s = seq.as_seq()?;
    let (i, ci) = usize_index(idx)?;
    let oob = i.bvuge(&s.len);
    let conc_len = s.conc.as_ref().map(Vec::len);
    let conc_oob = both(ci, conc_len.map(|l| l as i128), |p, l| p < 0 || p >= l);
    let c = match (&s.conc, ci) {
        (Some(items), Some(p)) if p >= 0 => items.get(p as usize).cloned(),
        _ => None,
    };
    let v = s.select(&i, c)?;
    Ok((
        v,
        vec![Panic {
            cond: oob,
            conc: conc_oob,
            what: "index out of bounds",
        }],
    ))
}

/// An index as a 64-bit unsigned term (other integer types are converted as `as usize`
/// would), with the run's value.
pub(crate) fn usize_index(idx: &Val) -> R<(BV, Option<i128>)> {
    let (x, c, k) = idx.as_bits()?;
    let w = k.width();
    let t = match w.cmp(&64) {
        std::cmp::Ordering::Less if k.signed() => x.sign_ext(64 - w),
        std::cmp::Ordering::Less => x.zero_ext(64 - w),
        std::cmp::Ordering::Greater => x.extract(63, 0),
        std::cmp::Ordering::Equal => x,
    };
    Ok((t, c))
}

/// `seq` with `value` at `index`, and the out-of-bounds panic.
pub(crate) fn store(seq: &Val, idx: &Val, value: &Val) -> R<Outcome> {
    let s = seq.as_seq()?;
    let (i, ci) = usize_index(idx)?;
    let parts = parts_of(value)?;
    let oob = i.bvuge(&s.len);
    let conc_len = s.conc.as_ref().map(Vec::len);
    let conc_oob = both(ci, conc_len.map(|l| l as i128), |p, l| p < 0 || p >= l);
    let conc = match (&s.conc, ci) {
        (Some(items), Some(p)) if p >= 0 && (p as usize) < items.len() => {
            let mut items = items.clone();
            items[p as usize] = parts.iter().map(|(_, c)| *c).collect();
            Some(items)
        }
        _ => None,
    };
    Ok((
        Val::Seq(Box::new(SeqVal {
            arrs: s.stored(&i, &parts),
            len: s.len.clone(),
            elem: s.elem.clone(),
            conc,
        })),
        vec![Panic {
            cond: oob,
            conc: conc_oob,
            what: "index out of bounds",
        }],
    ))
}

/// `seq` with `value` appended.
pub(crate) fn push(seq: &Val, value: &Val) -> R<Val> {
    let s = seq.as_seq()?;
    let parts = parts_of(value)?;
    let conc = s.conc.as_ref().map(|items| {
        let mut items = items.clone();
        items.push(parts.iter().map(|(_, c)| *c).collect());
        items
    });
    Ok(Val::Seq(Box::new(SeqVal {
        arrs: s.stored(&s.len, &parts),
        len: s.len.bvadd(bv_const(1, 64)),
        elem: s.elem.clone(),
        conc,
    })))
}

/// A sequence of the given elements.
pub(crate) fn array(elem: Elem, items: &[Val]) -> R<Val> {
    let mut arrs = SeqVal::zero_arrays(&elem);
    let mut conc = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let parts = parts_of(item)?;
        let at = bv_const(i as i128, 64);
        for (a, (t, _)) in arrs.iter_mut().zip(&parts) {
            *a = a.store(&at, t);
        }
        conc.push(parts.iter().map(|(_, c)| *c).collect());
    }
    Ok(Val::Seq(Box::new(SeqVal {
        arrs,
        len: bv_const(items.len() as i128, 64),
        elem,
        conc: Some(conc),
    })))
}

/// `[item; count]`; the run's elements are listed up to `cap`.
pub(crate) fn repeat(elem: Elem, item: &Val, count: &Val, cap: usize) -> R<Val> {
    let parts = parts_of(item)?;
    let (n, cn) = usize_index(count)?;
    let one: Vec<Option<i128>> = parts.iter().map(|(_, c)| *c).collect();
    let conc = cn
        .filter(|n| *n >= 0 && (*n as usize) <= cap)
        .map(|n| vec![one.clone(); n as usize]);
    Ok(Val::Seq(Box::new(SeqVal {
        arrs: parts
            .iter()
            .map(|(t, _)| Array::const_array(&Sort::bitvector(64), t))
            .collect(),
        len: n,
        elem,
        conc,
    })))
}

/// The length of a sequence, as a `usize`.
pub(crate) fn len(seq: &Val) -> R<Val> {
    let s = seq.as_seq()?;
    Ok(Val::Bits(
        s.len.clone(),
        s.conc.as_ref().map(|items| items.len() as i128),
        Bits::Int(IntType::Usize),
    ))
}
