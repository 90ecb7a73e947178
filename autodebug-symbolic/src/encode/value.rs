//! Values of the encoding: each a z3 term with, beside it, the value the recorded run had
//! (when it is known), and the operations of the IR on both at once with Rust's semantics —
//! fixed-width integers as bit-vectors, overflow, division by zero and shifts out of range
//! as panic conditions, sequences as an array and a length, tuples and structs field by
//! field.

mod arith;
mod seq;
mod structural;
#[cfg(test)]
mod tests;

use z3::ast::{Ast, BV, Bool, Dynamic};

use super::Concrete;
use crate::ir::{IntType, Program, Type};
use autodebug_runtime::protocol::Value;

pub(crate) use arith::{binary, cast, unary};
pub(crate) use seq::{Elem, SeqVal, array, elem_of, index, len, push, repeat, store};
pub(crate) use structural::{equal, ite};

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
