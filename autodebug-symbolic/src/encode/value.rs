//! Values of the encoding: each a z3 term with, beside it, the value the recorded run had
//! (when it is known), and the operations of the IR on both at once with Rust's semantics —
//! fixed-width integers as bit-vectors, overflow, division by zero and shifts out of range
//! as panic conditions, sequences as an array and a length, tuples and structs field by
//! field.

use z3::Sort;
use z3::ast::{Array, Ast, BV, Bool, Dynamic};

use super::Concrete;
use crate::ir::{BinOp, IntType, Program, Type, UnOp};
use autodebug_runtime::protocol::Value;

/// Why the encoding stops: a construct or a value it cannot model faithfully.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Stop(pub String);

impl Stop {
    pub(crate) fn new(reason: impl Into<String>) -> Stop {
        Stop(reason.into())
    }
}

pub(crate) type R<T> = Result<T, Stop>;

/// The scalar types held in a bit-vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Bits {
    /// An integer of its width and signedness.
    Int(IntType),
    /// A Unicode scalar value, 32 bits.
    Char,
    /// The index of a variant of a field-less enum, 32 bits.
    Enum,
}

impl Bits {
    pub(crate) fn width(self) -> u32 {
        match self {
            Bits::Int(t) => t.bits(),
            Bits::Char | Bits::Enum => 32,
        }
    }

    pub(crate) fn signed(self) -> bool {
        match self {
            Bits::Int(t) => t.signed(),
            Bits::Char | Bits::Enum => false,
        }
    }

    fn min(self) -> i128 {
        match self {
            Bits::Int(t) => t.min_value(),
            _ => 0,
        }
    }

    fn max(self) -> i128 {
        match self {
            Bits::Int(t) => t.max_value().unwrap_or(i128::MAX),
            _ => u32::MAX as i128,
        }
    }
}

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
    fn widths(&self) -> Vec<Option<u32>> {
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
    fn concrete_parts(&self, c: &Concrete, out: &mut Vec<Option<i128>>) {
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
    fn arity(&self) -> usize {
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
    fn fresh_arrays(elem: &Elem, name: &str) -> Vec<Array> {
        elem.sorts()
            .iter()
            .enumerate()
            .map(|(i, sort)| Array::new_const(format!("{name}.arr{i}"), &Sort::bitvector(64), sort))
            .collect()
    }

    /// Arrays holding zeros.
    fn zero_arrays(elem: &Elem) -> Vec<Array> {
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

/// A value of the encoding: the z3 term and, beside it, the run's value when known.
#[derive(Debug, Clone)]
pub(crate) enum Val {
    Unit,
    Bool(Bool, Option<bool>),
    Bits(BV, Option<i128>, Bits),
    Seq(Box<SeqVal>),
    Tuple(Vec<Val>),
    Struct(String, Vec<Val>),
    /// `Option<T>`: whether it is `Some`, and the payload (meaningful when it is).
    Option(Bool, Option<bool>, Box<Val>),
    /// A value of a type outside the subset, with the reason.
    Opaque(String),
}

/// A bit-vector constant of `width` bits holding `v` (two's complement).
pub(crate) fn bv_const(v: i128, width: u32) -> BV {
    if width <= 64 {
        let bits = v as u64;
        let masked = if width == 64 {
            bits
        } else {
            bits & ((1u64 << width) - 1)
        };
        BV::from_u64(masked, width)
    } else {
        let u = v as u128;
        let hi = BV::from_u64((u >> 64) as u64, width - 64);
        hi.concat(BV::from_u64(u as u64, 64))
    }
}

/// The integer a bit-vector numeral holds, read as signed or unsigned (`None` when the
/// term is not a numeral or does not fit an `i128`).
pub(crate) fn bv_value(bv: &BV, signed: bool) -> Option<i128> {
    let width = bv.get_size();
    let raw: u128 = if width <= 64 {
        bv.simplify().as_u64()? as u128
    } else {
        let hi = bv.extract(width - 1, 64).simplify().as_u64()? as u128;
        let lo = bv.extract(63, 0).simplify().as_u64()? as u128;
        (hi << 64) | lo
    };
    if signed && width < 128 && raw >> (width - 1) & 1 == 1 {
        Some(raw as i128 - (1i128 << width))
    } else if width == 128 && !signed {
        i128::try_from(raw).ok()
    } else {
        Some(raw as i128)
    }
}

/// `v` brought into the range of `bits` as a wrapping operation does (`None` when the
/// result is not representable here: a `u128` above `i128::MAX`).
pub(crate) fn wrap(v: i128, bits: Bits) -> Option<i128> {
    let width = bits.width();
    if width >= 128 {
        return (bits.signed() || v >= 0).then_some(v);
    }
    let m = 1i128 << width;
    let r = v.rem_euclid(m);
    Some(if bits.signed() && r >= m / 2 {
        r - m
    } else {
        r
    })
}

fn in_range(v: i128, bits: Bits) -> bool {
    bits.min() <= v && v <= bits.max()
}

fn bool_const(b: bool) -> Bool {
    Bool::from_bool(b)
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

/// The bit-vector kind of a scalar type.
pub(crate) fn bits_of(ty: &Type) -> Option<Bits> {
    match ty {
        Type::Int(t) => Some(Bits::Int(*t)),
        Type::Char => Some(Bits::Char),
        Type::Enum(_) => Some(Bits::Enum),
        _ => None,
    }
}

impl Val {
    /// A value of `ty` made of fresh constants named from `name`; `leaf` is told the name
    /// and term of every scalar constant created (for inputs the trace may pin later).
    pub(crate) fn fresh(
        ty: &Type,
        name: &str,
        program: &Program,
        leaf: &mut dyn FnMut(&str, &Dynamic),
    ) -> Val {
        Val::fresh_depth(ty, name, program, leaf, 0)
    }

    fn fresh_depth(
        ty: &Type,
        name: &str,
        program: &Program,
        leaf: &mut dyn FnMut(&str, &Dynamic),
        depth: usize,
    ) -> Val {
        if depth > 16 {
            return Val::Opaque("type nested too deeply".into());
        }
        match ty {
            Type::Unit => Val::Unit,
            Type::Bool => {
                let b = Bool::new_const(name);
                leaf(name, &Dynamic::from_ast(&b));
                Val::Bool(b, None)
            }
            Type::Seq { elem, .. } => match elem_of(elem, program) {
                Some(e) => {
                    let arrs = SeqVal::fresh_arrays(&e, name);
                    let len = BV::new_const(format!("{name}.len"), 64);
                    leaf(&format!("{name}.len"), &Dynamic::from_ast(&len));
                    Val::Seq(Box::new(SeqVal {
                        arrs,
                        len,
                        elem: e,
                        conc: None,
                    }))
                }
                None => Val::Opaque(format!("a sequence of `{elem}`")),
            },
            Type::Tuple(elems) => Val::Tuple(
                elems
                    .iter()
                    .enumerate()
                    .map(|(i, t)| {
                        Val::fresh_depth(t, &format!("{name}.{i}"), program, leaf, depth + 1)
                    })
                    .collect(),
            ),
            Type::Struct(s) => match program.struct_def(s) {
                Some(def) => Val::Struct(
                    s.clone(),
                    def.fields
                        .iter()
                        .map(|(f, t)| {
                            Val::fresh_depth(t, &format!("{name}.{f}"), program, leaf, depth + 1)
                        })
                        .collect(),
                ),
                None => Val::Opaque(format!("struct `{s}` not found")),
            },
            Type::Option(inner) => {
                let some = Bool::new_const(format!("{name}.some"));
                leaf(&format!("{name}.some"), &Dynamic::from_ast(&some));
                let payload =
                    Val::fresh_depth(inner, &format!("{name}.val"), program, leaf, depth + 1);
                Val::Option(some, None, Box::new(payload))
            }
            Type::Int(_) | Type::Char | Type::Enum(_) => {
                let bits = bits_of(ty).unwrap_or(Bits::Int(IntType::I32));
                let bv = BV::new_const(name, bits.width());
                leaf(name, &Dynamic::from_ast(&bv));
                Val::Bits(bv, None, bits)
            }
            Type::Opaque(reason) => Val::Opaque(reason.clone()),
            Type::Infer(_) => Val::Opaque("type not inferred".into()),
        }
    }

    /// The value `c` of type `ty` as constants; unknown parts are fresh constants named
    /// from `name` (given to `leaf`).
    pub(crate) fn from_concrete(
        ty: &Type,
        c: &Concrete,
        name: &str,
        program: &Program,
        leaf: &mut dyn FnMut(&str, &Dynamic),
    ) -> Val {
        match (ty, c) {
            (Type::Unit, _) => Val::Unit,
            (Type::Bool, Concrete::Bool(b)) => Val::Bool(bool_const(*b), Some(*b)),
            (Type::Int(t), Concrete::Int(v)) if in_range(*v, Bits::Int(*t)) => {
                Val::Bits(bv_const(*v, t.bits()), Some(*v), Bits::Int(*t))
            }
            (Type::Char, Concrete::Char(ch)) => {
                Val::Bits(bv_const(*ch as i128, 32), Some(*ch as i128), Bits::Char)
            }
            (Type::Enum(e), Concrete::Enum(_, variant)) => {
                let index = program
                    .enum_def(e)
                    .and_then(|d| d.variants.iter().position(|v| v == variant));
                match index {
                    Some(i) => Val::Bits(bv_const(i as i128, 32), Some(i as i128), Bits::Enum),
                    None => Val::fresh(ty, name, program, leaf),
                }
            }
            (Type::Seq { elem, .. }, Concrete::Seq { items, len }) => {
                let Some(e) = elem_of(elem, program) else {
                    return Val::Opaque(format!("a sequence of `{elem}`"));
                };
                let parts: Vec<Vec<Option<i128>>> = items
                    .iter()
                    .map(|item| {
                        let mut out = Vec::new();
                        e.concrete_parts(item, &mut out);
                        out
                    })
                    .collect();
                // Elements the record cut off, or parts it did not show, are unknown: fresh
                // arrays hold them.
                let complete = items.len() == *len && parts.iter().flatten().all(Option::is_some);
                let mut arrs = if complete {
                    SeqVal::zero_arrays(&e)
                } else {
                    SeqVal::fresh_arrays(&e, name)
                };
                let widths = e.widths();
                for (i, element) in parts.iter().enumerate() {
                    for (a, (v, width)) in arrs.iter_mut().zip(element.iter().zip(&widths)) {
                        if let Some(v) = v {
                            *a = a.store(&bv_const(i as i128, 64), &scalar_term(*width, *v));
                        }
                    }
                }
                let mut conc = parts;
                conc.resize(*len, vec![None; e.arity()]);
                Val::Seq(Box::new(SeqVal {
                    arrs,
                    len: bv_const(*len as i128, 64),
                    elem: e,
                    conc: Some(conc),
                }))
            }
            (Type::Tuple(ts), Concrete::Tuple(cs)) if ts.len() == cs.len() => Val::Tuple(
                ts.iter()
                    .zip(cs)
                    .enumerate()
                    .map(|(i, (t, c))| {
                        Val::from_concrete(t, c, &format!("{name}.{i}"), program, leaf)
                    })
                    .collect(),
            ),
            (Type::Struct(s), Concrete::Struct(_, fields)) => match program.struct_def(s) {
                Some(def) => Val::Struct(
                    s.clone(),
                    def.fields
                        .iter()
                        .map(|(f, t)| {
                            let c = fields
                                .iter()
                                .find(|(n, _)| n == f)
                                .map_or(Concrete::Unknown, |(_, c)| c.clone());
                            Val::from_concrete(t, &c, &format!("{name}.{f}"), program, leaf)
                        })
                        .collect(),
                ),
                None => Val::Opaque(format!("struct `{s}` not found")),
            },
            (Type::Option(inner), Concrete::Option(o)) => match o {
                Some(c) => Val::Option(
                    bool_const(true),
                    Some(true),
                    Box::new(Val::from_concrete(
                        inner,
                        c,
                        &format!("{name}.val"),
                        program,
                        leaf,
                    )),
                ),
                None => Val::Option(
                    bool_const(false),
                    Some(false),
                    Box::new(Val::zero(inner, program)),
                ),
            },
            _ => Val::fresh(ty, name, program, leaf),
        }
    }

    /// A fixed value of `ty` (zeros, `false`, empty sequences): the payload of a `None`.
    pub(crate) fn zero(ty: &Type, program: &Program) -> Val {
        match ty {
            Type::Unit => Val::Unit,
            Type::Bool => Val::Bool(bool_const(false), Some(false)),
            Type::Seq { elem, .. } => match elem_of(elem, program) {
                Some(e) => Val::Seq(Box::new(SeqVal {
                    arrs: SeqVal::zero_arrays(&e),
                    len: bv_const(0, 64),
                    elem: e,
                    conc: Some(Vec::new()),
                })),
                None => Val::Opaque(format!("a sequence of `{elem}`")),
            },
            Type::Tuple(ts) => Val::Tuple(ts.iter().map(|t| Val::zero(t, program)).collect()),
            Type::Struct(s) => match program.struct_def(s) {
                Some(def) => Val::Struct(
                    s.clone(),
                    def.fields
                        .iter()
                        .map(|(_, t)| Val::zero(t, program))
                        .collect(),
                ),
                None => Val::Opaque(format!("struct `{s}` not found")),
            },
            Type::Option(inner) => Val::Option(
                bool_const(false),
                Some(false),
                Box::new(Val::zero(inner, program)),
            ),
            Type::Int(_) | Type::Char | Type::Enum(_) => {
                let bits = bits_of(ty).unwrap_or(Bits::Int(IntType::I32));
                Val::Bits(bv_const(0, bits.width()), Some(0), bits)
            }
            Type::Opaque(reason) => Val::Opaque(reason.clone()),
            Type::Infer(_) => Val::Opaque("type not inferred".into()),
        }
    }

    /// The z3 terms of the value, flattened (a sequence gives its array and its length).
    pub(crate) fn leaves(&self) -> Vec<Dynamic> {
        let mut out = Vec::new();
        self.collect_leaves(&mut out);
        out
    }

    fn collect_leaves(&self, out: &mut Vec<Dynamic>) {
        match self {
            Val::Unit | Val::Opaque(_) => {}
            Val::Bool(b, _) => out.push(Dynamic::from_ast(b)),
            Val::Bits(bv, ..) => out.push(Dynamic::from_ast(bv)),
            Val::Seq(s) => {
                out.extend(s.arrs.iter().map(|a| Dynamic::from_ast(a)));
                out.push(Dynamic::from_ast(&s.len));
            }
            Val::Tuple(vs) | Val::Struct(_, vs) => vs.iter().for_each(|v| v.collect_leaves(out)),
            Val::Option(some, _, payload) => {
                out.push(Dynamic::from_ast(some));
                payload.collect_leaves(out);
            }
        }
    }

    /// The same shape with fresh constants named `name.0`, `name.1`, … in place of the
    /// terms, keeping the run's values.
    pub(crate) fn fresh_like(&self, name: &str) -> Val {
        let mut n = 0usize;
        self.rebuild(&mut |d: &Dynamic| {
            n += 1;
            Dynamic::new_const(format!("{name}.{}", n - 1), &d.get_sort())
        })
    }

    /// The same shape with its leaf terms taken, in order, from `leaves` (as
    /// [`Val::leaves`] lists them): a value rebuilt from a component's flattened reads.
    pub(crate) fn with_leaves(&self, leaves: &[Dynamic]) -> Val {
        let mut next = leaves.iter();
        self.rebuild(&mut |d: &Dynamic| next.next().cloned().unwrap_or_else(|| d.clone()))
    }

    /// The same shape with every leaf term replaced by `f(term)`.
    fn rebuild(&self, f: &mut dyn FnMut(&Dynamic) -> Dynamic) -> Val {
        match self {
            Val::Unit => Val::Unit,
            Val::Opaque(r) => Val::Opaque(r.clone()),
            Val::Bool(b, c) => Val::Bool(
                f(&Dynamic::from_ast(b))
                    .as_bool()
                    .unwrap_or_else(|| b.clone()),
                *c,
            ),
            Val::Bits(bv, c, k) => Val::Bits(
                f(&Dynamic::from_ast(bv))
                    .as_bv()
                    .unwrap_or_else(|| bv.clone()),
                *c,
                *k,
            ),
            Val::Seq(s) => Val::Seq(Box::new(SeqVal {
                arrs: s
                    .arrs
                    .iter()
                    .map(|a| {
                        f(&Dynamic::from_ast(a))
                            .as_array()
                            .unwrap_or_else(|| a.clone())
                    })
                    .collect(),
                len: f(&Dynamic::from_ast(&s.len))
                    .as_bv()
                    .unwrap_or_else(|| s.len.clone()),
                elem: s.elem.clone(),
                conc: s.conc.clone(),
            })),
            Val::Tuple(vs) => Val::Tuple(vs.iter().map(|v| v.rebuild(f)).collect()),
            Val::Struct(n, vs) => Val::Struct(n.clone(), vs.iter().map(|v| v.rebuild(f)).collect()),
            Val::Option(some, c, payload) => Val::Option(
                f(&Dynamic::from_ast(some))
                    .as_bool()
                    .unwrap_or_else(|| some.clone()),
                *c,
                Box::new(payload.rebuild(f)),
            ),
        }
    }

    /// The value with the run's value set from a recorded one where it was unknown. The
    /// terms do not change.
    pub(crate) fn learn(&self, recorded: &Value) -> Val {
        match (self, recorded) {
            (Val::Bool(b, None), Value::Bool(r)) => Val::Bool(b.clone(), Some(*r)),
            (Val::Bits(bv, None, k @ Bits::Int(_)), Value::Int { v, .. }) if in_range(*v, *k) => {
                Val::Bits(bv.clone(), Some(*v), *k)
            }
            (Val::Bits(bv, None, Bits::Char), Value::Char(c)) => {
                Val::Bits(bv.clone(), Some(*c as i128), Bits::Char)
            }
            (Val::Seq(s), Value::Seq { items, len }) if s.conc.is_none() && s.elem.arity() == 1 => {
                let mut conc: Vec<Vec<Option<i128>>> =
                    items.iter().map(|v| vec![value_scalar(v)]).collect();
                conc.resize(*len, vec![None]);
                Val::Seq(Box::new(SeqVal {
                    conc: Some(conc),
                    ..(**s).clone()
                }))
            }
            _ => self.clone(),
        }
    }

    /// Whether the run's value agrees with a recorded one: `Some(true)` when equal,
    /// `Some(false)` with a difference, `None` when either side is not known.
    pub(crate) fn agrees(&self, recorded: &Value) -> Option<bool> {
        match (self, recorded) {
            (Val::Bool(_, Some(a)), Value::Bool(b)) => Some(a == b),
            (Val::Bits(_, Some(a), Bits::Int(_)), Value::Int { v, .. }) => Some(a == v),
            (Val::Bits(_, Some(a), Bits::Char), Value::Char(c)) => Some(*a == *c as i128),
            (Val::Unit, Value::Unit) => Some(true),
            (Val::Seq(s), Value::Seq { items, len }) => {
                let conc = s.conc.as_ref()?;
                if conc.len() != *len {
                    return Some(false);
                }
                let mut all_known = true;
                for (mine, theirs) in conc.iter().zip(items) {
                    let mine = match mine.as_slice() {
                        [one] => one,
                        _ => return None,
                    };
                    match (mine, value_scalar(theirs)) {
                        (Some(a), Some(b)) if *a != b => return Some(false),
                        (Some(_), Some(_)) => {}
                        _ => all_known = false,
                    }
                }
                all_known.then_some(true)
            }
            _ => None,
        }
    }

    /// The value as a recorded [`Value`] would show it, for messages.
    pub(crate) fn shown(&self) -> String {
        match self {
            Val::Unit => "()".into(),
            Val::Bool(_, Some(b)) => b.to_string(),
            Val::Bits(_, Some(v), Bits::Char) => u32::try_from(*v)
                .ok()
                .and_then(char::from_u32)
                .map_or_else(|| v.to_string(), |c| format!("{c:?}")),
            Val::Bits(_, Some(v), _) => v.to_string(),
            Val::Seq(s) => match &s.conc {
                Some(items) => {
                    let shown: Vec<String> = items
                        .iter()
                        .map(|parts| match parts.as_slice() {
                            [Some(v)] => v.to_string(),
                            _ => "?".into(),
                        })
                        .collect();
                    format!("[{}]", shown.join(", "))
                }
                None => "?".into(),
            },
            Val::Tuple(vs) => {
                let shown: Vec<String> = vs.iter().map(Val::shown).collect();
                format!("({})", shown.join(", "))
            }
            _ => "?".into(),
        }
    }

    /// The boolean term and run value of a `bool`.
    pub(crate) fn as_bool(&self) -> R<(Bool, Option<bool>)> {
        match self {
            Val::Bool(b, c) => Ok((b.clone(), *c)),
            Val::Opaque(r) => Err(Stop::new(format!("a condition depends on {r}"))),
            _ => Err(Stop::new("a condition is not a bool")),
        }
    }

    /// The bit-vector, run value and kind of an integer, `char` or enum.
    pub(crate) fn as_bits(&self) -> R<(BV, Option<i128>, Bits)> {
        match self {
            Val::Bits(bv, c, k) => Ok((bv.clone(), *c, *k)),
            Val::Opaque(r) => Err(Stop::new(format!("an operand is {r}"))),
            _ => Err(Stop::new("an operand is not an integer")),
        }
    }

    pub(crate) fn as_seq(&self) -> R<&SeqVal> {
        match self {
            Val::Seq(s) => Ok(s),
            Val::Opaque(r) => Err(Stop::new(format!("a sequence is {r}"))),
            _ => Err(Stop::new("a value used as a sequence is not one")),
        }
    }
}

fn value_scalar(v: &Value) -> Option<i128> {
    match v {
        Value::Int { v, .. } => Some(*v),
        Value::Bool(b) => Some(*b as i128),
        Value::Char(c) => Some(*c as i128),
        _ => None,
    }
}

/// The constant `v` of a scalar sort.
fn scalar_term(width: Option<u32>, v: i128) -> Dynamic {
    match width {
        Some(width) => Dynamic::from_ast(&bv_const(v, width)),
        None => Dynamic::from_ast(&bool_const(v != 0)),
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

fn both<T: Copy, U>(a: Option<T>, b: Option<T>, f: impl Fn(T, T) -> U) -> Option<U> {
    Some(f(a?, b?))
}

/// A condition under which an operation panics: its term, whether it held in the run,
/// and what panics (for people).
pub(crate) struct Panic {
    pub cond: Bool,
    pub conc: Option<bool>,
    pub what: &'static str,
}

/// The result of an operation and the panics it may raise.
pub(crate) type Outcome = (Val, Vec<Panic>);

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
fn by_power_of_two(op: BinOp, signed: bool, x: &BV, y: &BV, width: u32) -> Option<BV> {
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

#[cfg(test)]
mod tests {
    use super::*;

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
        let (v, panics) =
            binary(BinOp::Sub, &int(0, IntType::Usize), &int(1, IntType::Usize)).unwrap();
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
}
