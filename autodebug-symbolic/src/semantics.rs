//! The meaning of the IR's constructs over the encoder's values, written once for its three
//! interpreters: the trace-guided encoding (`encode/exec.rs`), path generation's walk
//! (`pathgen/walk.rs`) and repair's evaluator of candidates (`repair/eval.rs`).
//!
//! What an operand evaluates to, in which order operands are evaluated, Rust's integer
//! typing, overflow, casts and comparisons ([`crate::encode::value`]), literals, fields,
//! tuples, sequences, structs, enums, `Option`, places and the state `old(..)` reads are
//! the same for all three. What differs is theirs, behind [`Interp`]: where the variables
//! live, what a panic condition is recorded under, and the constructs whose evaluation is a
//! decision of the path (`&&`, `if`, a reported operand), a call, a quantifier or opaque.

use z3::ast::{BV, Bool};

use crate::encode::value::{self, Bits, Panic, R, SeqVal, Stop, Val};
use crate::ir::{
    BinOp, ContractKind, Expr, ExprKind, Function, IntType, Lit, Place, Program, Quantifier, Type,
    VarId, VarKind,
};

/// One interpreter of the IR: what [`eval`] asks of it.
/// `'p` is the program's lifetime, `'e` the expressions'.
pub(crate) trait Interp<'p, 'e> {
    /// Why an evaluation stops (the value operations' [`Stop`] among them).
    type Err: From<Stop>;

    /// The program whose types and definitions the values follow.
    fn program(&self) -> &'p Program;

    /// The value of variable `v` in the current state.
    fn var(&self, v: VarId) -> Result<Val, Self::Err>;

    /// Panic conditions raised by an operation evaluated in the current state.
    fn raise(&mut self, panics: Vec<Panic>);

    /// `unwrap` panics where `none` holds (`known`: whether it held in the run).
    fn unwrap_none(&mut self, none: Bool, known: Option<bool>);

    /// The value of a literal of type `ty`.
    fn literal(&self, l: &Lit, ty: &Type) -> Result<Val, Self::Err> {
        Ok(literal(l, ty)?)
    }

    /// A call, of type `ty` (its arguments evaluated by [`arguments`] where the interpreter
    /// follows it).
    fn call(&mut self, c: Called<'e>, ty: &Type) -> Result<Val, Self::Err>;

    /// A quantifier or a sum over an integer range, of type `ty`.
    fn quantifier(&mut self, q: Quantified<'e>, ty: &Type) -> Result<Val, Self::Err>;

    /// The interpreter's own meaning of `e`, where it has one (decisions of the path, calls,
    /// quantifiers, opaque code); `None` for the common meaning.
    fn own(&mut self, e: &'e Expr) -> Result<Option<Val>, Self::Err>;
}

/// The value of `e`: the interpreter's own meaning where it has one, else the common one.
/// Operands are evaluated left to right, each panic raised in the state it arises in.
pub(crate) fn eval<'p, 'e, I: Interp<'p, 'e>>(i: &mut I, e: &'e Expr) -> Result<Val, I::Err> {
    if let Some(v) = i.own(e)? {
        return Ok(v);
    }
    match &e.kind {
        ExprKind::Lit(l) => i.literal(l, &e.ty),
        ExprKind::Var(v) => i.var(*v),
        ExprKind::Unary(op, a) => {
            let a = eval(i, a)?;
            let (v, panics) = value::unary(*op, &a)?;
            i.raise(panics);
            Ok(v)
        }
        ExprKind::Binary(op, a, b) => {
            let a = eval(i, a)?;
            let b = eval(i, b)?;
            let (v, panics) = value::binary(*op, &a, &b)?;
            i.raise(panics);
            Ok(v)
        }
        ExprKind::Cast(a) => {
            let a = eval(i, a)?;
            Ok(value::cast(&a, &e.ty)?)
        }
        ExprKind::Index(s, x) => {
            let s = eval(i, s)?;
            let x = eval(i, x)?;
            let (v, panics) = value::index(&s, &x)?;
            i.raise(panics);
            Ok(v)
        }
        ExprKind::Len(s) => {
            let s = eval(i, s)?;
            Ok(value::len(&s)?)
        }
        ExprKind::Push(s, x) => {
            let s = eval(i, s)?;
            let x = eval(i, x)?;
            Ok(value::push(&s, &x)?)
        }
        ExprKind::Field(a, name) => {
            let a = eval(i, a)?;
            Ok(field(i.program(), &a, name)?)
        }
        ExprKind::TupleField(a, k) => {
            let a = eval(i, a)?;
            Ok(tuple_field(&a, *k)?)
        }
        ExprKind::Tuple(es) => Ok(Val::Tuple(eval_all(i, es)?)),
        ExprKind::Array(es) => {
            let elem = seq_elem(&e.ty, i.program())?;
            let items = eval_all(i, es)?;
            Ok(value::array(elem, &items)?)
        }
        ExprKind::Repeat(x, n) => {
            let elem = seq_elem(&e.ty, i.program())?;
            let x = eval(i, x)?;
            let n = eval(i, n)?;
            Ok(value::repeat(elem, &x, &n, 1 << 16)?)
        }
        ExprKind::Struct(name, fields) => construct(i, name, fields),
        ExprKind::Variant(name, variant) => Ok(enum_variant(i.program(), name, variant)?),
        ExprKind::OptionSome(x) => {
            let x = eval(i, x)?;
            Ok(Val::Option(Bool::from_bool(true), Some(true), Box::new(x)))
        }
        ExprKind::OptionNone => Ok(none_of(&e.ty, i.program())),
        ExprKind::IsSome(o) => match eval(i, o)? {
            Val::Option(s, c, _) => Ok(Val::Bool(s, c)),
            _ => Err(Stop::new("`is_some` of a value that is not an `Option`").into()),
        },
        ExprKind::Unwrap(o) => match eval(i, o)? {
            Val::Option(s, c, payload) => {
                i.unwrap_none(s.not(), c.map(|c| !c));
                Ok(*payload)
            }
            _ => Err(Stop::new("`unwrap` of a value that is not an `Option`").into()),
        },
        ExprKind::Call {
            function,
            args,
            outputs,
        } => {
            let c = Called {
                function,
                args,
                outputs,
            };
            i.call(c, &e.ty)
        }
        ExprKind::Quantifier {
            kind,
            var,
            start,
            end,
            inclusive,
            body,
        } => {
            let q = Quantified {
                kind: *kind,
                var: *var,
                start,
                end,
                inclusive: *inclusive,
                body,
            };
            i.quantifier(q, &e.ty)
        }
        ExprKind::If { .. } | ExprKind::Branch(..) | ExprKind::Old(_) | ExprKind::Opaque { .. } => {
            Err(Stop::new("a construct whose meaning is the interpreter's own").into())
        }
    }
}

/// A struct built from `fields`, evaluated in the order the struct declares them.
fn construct<'p, 'e, I: Interp<'p, 'e>>(
    i: &mut I,
    name: &str,
    fields: &'e [(String, Expr)],
) -> Result<Val, I::Err> {
    let program = i.program();
    let def = program
        .struct_def(name)
        .ok_or_else(|| Stop::new(format!("struct `{name}` not found")))?;
    let mut vals = Vec::with_capacity(def.fields.len());
    for (f, _) in &def.fields {
        let Some((_, x)) = fields.iter().find(|(n, _)| n == f) else {
            return Err(Stop::new(format!("`{name}` is built without field `{f}`")).into());
        };
        vals.push(eval(i, x)?);
    }
    Ok(Val::Struct(name.to_string(), vals))
}

/// `None` of type `ty` (an `Option`; its payload a zero of the inner type).
fn none_of(ty: &Type, program: &Program) -> Val {
    let inner = match ty {
        Type::Option(inner) => (**inner).clone(),
        other => other.clone(),
    };
    Val::Option(
        Bool::from_bool(false),
        Some(false),
        Box::new(Val::zero(&inner, program)),
    )
}

/// An enum variant: its index among the enum's variants.
fn enum_variant(program: &Program, name: &str, variant: &str) -> Result<Val, Stop> {
    let at = program
        .enum_def(name)
        .and_then(|d| d.variants.iter().position(|v| v == variant))
        .ok_or_else(|| Stop::new(format!("`{name}::{variant}` not found")))?;
    Ok(Val::Bits(
        value::bv_const(at as i128, 32),
        Some(at as i128),
        Bits::Enum,
    ))
}

/// A call's parts: the callee, its arguments, and `(parameter index, place)` for each
/// `&mut` argument, stored back when the callee returns.
pub(crate) struct Called<'e> {
    pub function: &'e str,
    pub args: &'e [Expr],
    pub outputs: &'e [(usize, Place)],
}

/// A quantifier's parts: `kind var in start..end => body` (`..=` when `inclusive`).
pub(crate) struct Quantified<'e> {
    pub kind: Quantifier,
    pub var: VarId,
    pub start: &'e Expr,
    pub end: &'e Expr,
    pub inclusive: bool,
    pub body: &'e Expr,
}

/// The values of a call's arguments: all of them, left to right, before the callee runs.
pub(crate) fn arguments<'p, 'e, I: Interp<'p, 'e>>(
    i: &mut I,
    args: &'e [Expr],
) -> Result<Vec<Val>, I::Err> {
    eval_all(i, args)
}

/// The values of `es`, left to right.
fn eval_all<'p, 'e, I: Interp<'p, 'e>>(i: &mut I, es: &'e [Expr]) -> Result<Vec<Val>, I::Err> {
    let mut items = Vec::with_capacity(es.len());
    for x in es {
        items.push(eval(i, x)?);
    }
    Ok(items)
}

/// An interpreter with a state that statements store into: what [`assign`] asks of it.
pub(crate) trait Store<'p, 'e>: Interp<'p, 'e> {
    /// Stores `val` into variable `v`.
    fn set(&mut self, v: VarId, val: Val);
}

/// The value a place holds: its base first, then the index.
fn place_value<'p, 'e, I: Interp<'p, 'e>>(i: &mut I, place: &'e Place) -> Result<Val, I::Err> {
    match place {
        Place::Var(v) => i.var(*v),
        Place::Index(p, x) => {
            let seq = place_value(i, p)?;
            let idx = eval(i, x)?;
            Ok(value::index(&seq, &idx)?.0)
        }
        Place::Field(p, name) => {
            let base = place_value(i, p)?;
            Ok(field(i.program(), &base, name)?)
        }
        Place::TupleField(p, k) => {
            let base = place_value(i, p)?;
            Ok(tuple_field(&base, *k)?)
        }
    }
}

/// Stores `v` into a place: the value of its base with the part replaced is stored into the
/// base in turn (an index out of bounds panics).
pub(crate) fn assign<'p, 'e, I: Store<'p, 'e>>(
    i: &mut I,
    place: &'e Place,
    v: Val,
) -> Result<(), I::Err> {
    match place {
        Place::Var(x) => {
            i.set(*x, v);
            Ok(())
        }
        Place::Index(p, x) => {
            let seq = place_value(i, p)?;
            let idx = eval(i, x)?;
            let (new, panics) = value::store(&seq, &idx, &v)?;
            i.raise(panics);
            assign(i, p, new)
        }
        Place::Field(p, name) => {
            let base = place_value(i, p)?;
            let Val::Struct(s, mut fields) = base else {
                return Err(Stop::new(format!("`.{name}` of a value that is not a struct")).into());
            };
            let at = field_index(i.program(), &s, name)?;
            fields[at] = v;
            assign(i, p, Val::Struct(s, fields))
        }
        Place::TupleField(p, k) => {
            let base = place_value(i, p)?;
            let Val::Tuple(mut items) = base else {
                return Err(Stop::new(format!("`.{k}` of a value that is not a tuple")).into());
            };
            if *k >= items.len() {
                return Err(Stop::new(format!("tuple field `.{k}` out of range")).into());
            }
            items[*k] = v;
            assign(i, p, Val::Tuple(items))
        }
    }
}

/// A literal of type `ty`: an integer wraps to its type.
pub(crate) fn literal(l: &Lit, ty: &Type) -> Result<Val, Stop> {
    match (l, ty) {
        (Lit::Unit, _) => Ok(Val::Unit),
        (Lit::Bool(b), _) => Ok(Val::Bool(Bool::from_bool(*b), Some(*b))),
        (Lit::Char(c), _) => Ok(Val::Bits(
            value::bv_const(*c as i128, 32),
            Some(*c as i128),
            Bits::Char,
        )),
        (Lit::Int(v), Type::Int(t)) => Ok(Val::Bits(
            value::bv_const(*v, t.bits()),
            value::wrap(*v, Bits::Int(*t)),
            Bits::Int(*t),
        )),
        (Lit::Int(_), other) => Err(Stop::new(format!("an integer literal of type `{other}`"))),
    }
}

fn field_index(program: &Program, s: &str, name: &str) -> Result<usize, Stop> {
    program
        .struct_def(s)
        .and_then(|d| d.fields.iter().position(|(f, _)| f == name))
        .ok_or_else(|| {
            Stop::new(format!(
                "struct `{s}` has no field `{name}` the model knows"
            ))
        })
}

/// Field `name` of a struct value.
fn field(program: &Program, base: &Val, name: &str) -> Result<Val, Stop> {
    match base {
        Val::Struct(s, fields) => fields
            .get(field_index(program, s, name)?)
            .cloned()
            .ok_or_else(|| Stop::new(format!("field `{name}` of `{s}`"))),
        Val::Opaque(r) => Err(Stop::new(format!("`.{name}` of {r}"))),
        _ => Err(Stop::new(format!(
            "`.{name}` of a value that is not a struct"
        ))),
    }
}

/// Field `i` of a tuple value.
fn tuple_field(base: &Val, i: usize) -> Result<Val, Stop> {
    match base {
        Val::Tuple(items) => items
            .get(i)
            .cloned()
            .ok_or_else(|| Stop::new(format!("tuple field `.{i}` out of range"))),
        Val::Opaque(r) => Err(Stop::new(format!("`.{i}` of {r}"))),
        _ => Err(Stop::new(format!("`.{i}` of a value that is not a tuple"))),
    }
}

/// How the elements of a sequence of type `ty` are held.
fn seq_elem(ty: &Type, program: &Program) -> Result<value::Elem, Stop> {
    ty.elem()
        .and_then(|e| value::elem_of(e, program))
        .ok_or_else(|| Stop::new(format!("a sequence of type `{ty}`")))
}

/// Whether the right operand of a short-circuiting `op` (`&&`, `||`, `==>`) runs when the
/// left one is true (`&&`, `==>`) or when it is false (`||`).
pub(crate) fn right_runs_when(op: BinOp) -> bool {
    !matches!(op, BinOp::Or)
}

/// `x op y` for a short-circuiting `op`, with its value in the run where the operands'
/// values tell it (`y`'s is not looked at when `x`'s decides).
pub(crate) fn connective(
    op: BinOp,
    (x, cx): (&Bool, Option<bool>),
    (y, cy): (&Bool, Option<bool>),
) -> Val {
    let decides = !right_runs_when(op);
    let (t, settled) = match op {
        BinOp::And => (Bool::and(&[x, y]), Some(false)),
        BinOp::Or => (Bool::or(&[x, y]), Some(true)),
        _ => (x.implies(y), Some(true)),
    };
    let c = match cx {
        Some(k) if k == decides => settled,
        Some(_) => cy,
        None => None,
    };
    Val::Bool(t, c)
}

/// The state `old(..)` reads in `func`: the variables as the call received them, but for
/// the bound variables of contracts and the returned value, which are the current ones.
pub(crate) fn old_state(
    func: &Function,
    entry: &[Option<Val>],
    now: &[Option<Val>],
) -> Vec<Option<Val>> {
    let mut old = entry.to_vec();
    for (i, var) in func.vars.iter().enumerate() {
        if matches!(var.kind, VarKind::Bound | VarKind::Ret) {
            old[i] = now[i].clone();
        }
    }
    old
}

/// Whether a contract of this kind is checked when `func` returns: postconditions, and the
/// invariants of methods.
pub(crate) fn checked_on_exit(func: &Function, kind: ContractKind) -> bool {
    match kind {
        ContractKind::Ensures => true,
        ContractKind::Invariant => func
            .params
            .first()
            .is_some_and(|&p| func.var(p).name == "self"),
        ContractKind::Requires => false,
    }
}

/// The integer range a `for` loop runs over: whether its `n`-th iteration runs and the
/// value its variable takes there.
pub(crate) struct Range {
    s: BV,
    e: BV,
    cs: Option<i128>,
    ce: Option<i128>,
    k: Bits,
    inclusive: bool,
    reverse: bool,
}

impl Range {
    /// The range from `start` to `end` (`..=` when `inclusive`, walked backwards when
    /// `reverse`).
    pub(crate) fn new(start: &Val, end: &Val, inclusive: bool, reverse: bool) -> R<Range> {
        let (s, cs, k) = start.as_bits()?;
        let (e, ce, _) = end.as_bits()?;
        Ok(Range {
            s,
            e,
            cs,
            ce,
            k,
            inclusive,
            reverse,
        })
    }

    /// Whether the run's bounds are both known.
    pub(crate) fn known(&self) -> bool {
        self.cs.is_some() && self.ce.is_some()
    }

    /// How many iterations the run had, where its bounds are known.
    fn count(&self) -> Option<i128> {
        match (self.cs, self.ce) {
            (Some(a), Some(b)) if a <= b => Some(b - a + i128::from(self.inclusive)),
            (Some(_), Some(_)) => Some(0),
            _ => None,
        }
    }

    /// Whether iteration `n` runs: its term, and its value in the run.
    pub(crate) fn runs(&self, n: i128) -> (Bool, Option<bool>) {
        let known = self.count().map(|count| n < count);
        let width = self.k.width();
        if width < 128 && n >= (1i128 << width) {
            return (Bool::from_bool(false), known);
        }
        let nb = value::bv_const(n, width);
        let (s, e) = (&self.s, &self.e);
        let ordered = if self.k.signed() {
            s.bvsle(e)
        } else {
            s.bvule(e)
        };
        let span = e.bvsub(s);
        let c = if self.inclusive {
            Bool::and(&[&ordered, &span.bvuge(&nb)])
        } else {
            Bool::and(&[&ordered, &span.bvugt(&nb)])
        };
        (c, known)
    }

    /// The loop variable at iteration `n`.
    pub(crate) fn item(&self, n: i128) -> Val {
        let width = self.k.width();
        let nb = value::bv_const(n, width);
        let one = value::bv_const(1, width);
        let (s, e) = (&self.s, &self.e);
        let term = match (self.reverse, self.inclusive) {
            (false, _) => s.bvadd(&nb),
            (true, true) => e.bvsub(&nb),
            (true, false) => e.bvsub(&one).bvsub(&nb),
        };
        let conc = match (self.reverse, self.inclusive) {
            (false, _) => self.cs.map(|a| a + n),
            (true, true) => self.ce.map(|b| b - n),
            (true, false) => self.ce.map(|b| b - 1 - n),
        };
        Val::Bits(term, conc, self.k)
    }
}

/// Whether iteration `n` of a `for` loop over the elements of `seq` runs: its term, and
/// its value in the run.
pub(crate) fn element_runs(seq: &SeqVal, n: i128) -> (Bool, Option<bool>) {
    let nb = value::bv_const(n, 64);
    let known = seq.conc.as_ref().map(|items| (n as usize) < items.len());
    (nb.bvult(&seq.len), known)
}

/// The element iteration `n` of a `for` loop over `seq` visits, and its index.
pub(crate) fn element(seq: &Val, n: i128) -> R<(Val, Val)> {
    let i = Val::Bits(value::bv_const(n, 64), Some(n), Bits::Int(IntType::Usize));
    let (elem, _) = value::index(seq, &i)?;
    Ok((elem, i))
}
