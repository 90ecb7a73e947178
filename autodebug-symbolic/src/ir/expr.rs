//! Expressions: literals, operators with their semantics made explicit, the expression
//! tree, and the places a value is stored into, with the traversals over them (operands,
//! every sub-expression, every type).

use super::{Component, Span, Type, VarId};

/// A literal value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lit {
    /// `()`
    Unit,
    /// `true`/`false`
    Bool(bool),
    /// An integer (its type is the expression's).
    Int(i128),
    /// A character.
    Char(char),
}

/// Unary operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnOp {
    /// `-x`: panics on overflow (`-i32::MIN`), as in debug builds.
    Neg,
    /// `!x`: logical not on `bool`, bitwise not on integers.
    Not,
    /// `x.abs()`: panics on overflow (`i32::MIN.abs()`), as in debug builds.
    Abs,
    /// `x.wrapping_neg()`.
    WrappingNeg,
}

/// Binary operators, with Rust's semantics made explicit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinOp {
    /// `+`: panics on overflow, as in debug builds (tests run in debug).
    Add,
    /// `-`: panics on overflow.
    Sub,
    /// `*`: panics on overflow.
    Mul,
    /// `/`: panics on a zero divisor and on overflow (`MIN / -1`); rounds toward zero.
    Div,
    /// `%`: panics on a zero divisor and on overflow (`MIN % -1`); the sign of the dividend.
    Rem,
    /// `wrapping_add`
    WrappingAdd,
    /// `wrapping_sub`
    WrappingSub,
    /// `wrapping_mul`
    WrappingMul,
    /// `saturating_add`
    SaturatingAdd,
    /// `saturating_sub`
    SaturatingSub,
    /// `saturating_mul`
    SaturatingMul,
    /// `checked_add`: `None` on overflow (the expression is an `Option`).
    CheckedAdd,
    /// `checked_sub`: `None` on overflow.
    CheckedSub,
    /// `checked_mul`: `None` on overflow.
    CheckedMul,
    /// `&` on integers or `bool` (no short circuit).
    BitAnd,
    /// `|` on integers or `bool` (no short circuit).
    BitOr,
    /// `^` on integers or `bool`.
    BitXor,
    /// `<<`: panics when the shift amount is negative or at least the width, as in debug
    /// builds. The amount may be of another integer type.
    Shl,
    /// `>>`: arithmetic on signed types, logical on unsigned; panics like `Shl`.
    Shr,
    /// `==` (any types but opaque ones).
    Eq,
    /// `!=`
    Ne,
    /// `<` (integers, `char`, `bool`).
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `&&`: the right operand is evaluated only when the left one is true.
    And,
    /// `||`: the right operand is evaluated only when the left one is false.
    Or,
    /// `a -> b` of contracts: `!a || b`.
    Implies,
    /// `a.min(b)`, `min(a, b)`.
    Min,
    /// `a.max(b)`, `max(a, b)`.
    Max,
}

impl BinOp {
    /// The operator as printed.
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::WrappingAdd => "wrapping_add",
            BinOp::WrappingSub => "wrapping_sub",
            BinOp::WrappingMul => "wrapping_mul",
            BinOp::SaturatingAdd => "saturating_add",
            BinOp::SaturatingSub => "saturating_sub",
            BinOp::SaturatingMul => "saturating_mul",
            BinOp::CheckedAdd => "checked_add",
            BinOp::CheckedSub => "checked_sub",
            BinOp::CheckedMul => "checked_mul",
            BinOp::BitAnd => "&",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::And => "&&",
            BinOp::Or => "||",
            BinOp::Implies => "->",
            BinOp::Min => "min",
            BinOp::Max => "max",
        }
    }

    /// Whether the operator is written as a function (`min(a, b)`) rather than infix.
    pub(super) fn is_function(self) -> bool {
        self.symbol()
            .chars()
            .all(|c| c.is_ascii_alphabetic() || c == '_')
    }

    /// Whether the result is a `bool` whatever the operands (comparisons and logic).
    pub fn is_predicate(self) -> bool {
        matches!(
            self,
            BinOp::Eq
                | BinOp::Ne
                | BinOp::Lt
                | BinOp::Le
                | BinOp::Gt
                | BinOp::Ge
                | BinOp::And
                | BinOp::Or
                | BinOp::Implies
        )
    }
}

/// What a [`ExprKind::Quantifier`] computes over its range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quantifier {
    /// Whether the body holds for every value of the range.
    Forall,
    /// Whether the body holds for some value of the range.
    Exists,
    /// The sum of the body's values over the range (`s.iter().sum()`), of the body's
    /// integer type: panics on overflow, as `Iterator::sum` does in debug builds.
    Sum,
}

/// An expression and its type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expr {
    /// What it computes.
    pub kind: ExprKind,
    /// Its type.
    pub ty: Type,
}

/// What an expression computes. Expressions have no effects but for [`ExprKind::Call`]
/// (whose `outputs` write back `&mut` arguments) and [`ExprKind::Opaque`] (whose
/// `defines` may change).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExprKind {
    /// A literal.
    Lit(Lit),
    /// A variable's current value.
    Var(VarId),
    /// A unary operator.
    Unary(UnOp, Box<Expr>),
    /// A binary operator.
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `e as T` (the target is the expression's type): between integer types (truncating
    /// or extending by the source's signedness), `bool` to integer, `char` to integer
    /// (truncating), `u8` to `char`.
    Cast(Box<Expr>),
    /// `seq[index]`: panics when `index >= len(seq)`.
    Index(Box<Expr>, Box<Expr>),
    /// The length of a sequence (`len()`; `is_empty()` is `len(s) == 0`).
    Len(Box<Expr>),
    /// `seq` with `elem` appended (`v.push(x)` is `v = push(v, x)`).
    Push(Box<Expr>, Box<Expr>),
    /// A named field of a struct value (tuple structs name their fields `0`, `1`, …).
    Field(Box<Expr>, String),
    /// An element of a tuple value.
    TupleField(Box<Expr>, usize),
    /// A tuple value.
    Tuple(Vec<Expr>),
    /// A sequence value from its elements (array literal, `vec![a, b]`, `Vec::new()`).
    Array(Vec<Expr>),
    /// A sequence of `count` copies of `elem` (`[e; n]`, `vec![e; n]`).
    Repeat(Box<Expr>, Box<Expr>),
    /// A struct value: its name and every field's value.
    Struct(String, Vec<(String, Expr)>),
    /// A variant of a simple enum: the enum's name and the variant's.
    Variant(String, String),
    /// `Some(e)`.
    OptionSome(Box<Expr>),
    /// `None` (of the expression's type).
    OptionNone,
    /// `o.is_some()` (`is_none()` is its negation).
    IsSome(Box<Expr>),
    /// `o.unwrap()` / `o.expect(..)` / a `Some(x)` pattern's `x`: panics on `None`.
    Unwrap(Box<Expr>),
    /// `if cond { then } else { otherwise }` whose branches are expressions. `branch` is
    /// the condition's site when the instrumentation reports it (`If`).
    If {
        /// The condition.
        cond: Box<Expr>,
        /// Its site, as a component.
        branch: Option<Component>,
        /// The value when the condition holds.
        then: Box<Expr>,
        /// The value otherwise.
        otherwise: Box<Expr>,
    },
    /// A condition the instrumentation reports as a branch of its own inside a larger
    /// condition: an operand of a `&&`/`||` chain (`Operand`) or a match guard (`Guard`).
    Branch(Box<Expr>, Box<Component>),
    /// A call of another function of the program, by its name in [`Program::function`]
    /// (`foo`, `Stack::push`; a method's receiver is its first argument). After the call,
    /// each output place receives the final value of the `&mut` parameter at that index.
    ///
    /// [`Program::function`]: super::Program::function
    Call {
        /// The callee.
        function: String,
        /// The arguments, in order (`&mut` ones by their current value).
        args: Vec<Expr>,
        /// `(parameter index, place)` for every `&mut` argument.
        outputs: Vec<(usize, Place)>,
    },
    /// `forall var in start..end => body` / `exists …` over an integer range (`..=` when
    /// `inclusive`), as contracts write them, and `sum …` (`a[lo..hi].iter().sum()`); the
    /// encoder expands it over concrete sizes.
    Quantifier {
        /// `forall` or `exists`.
        kind: Quantifier,
        /// The bound variable.
        var: VarId,
        /// The first value.
        start: Box<Expr>,
        /// The end of the range.
        end: Box<Expr>,
        /// Whether `end` itself is in the range.
        inclusive: bool,
        /// The condition on each value.
        body: Box<Expr>,
    },
    /// `old(e)` of an `#[ensures]`: `e` evaluated on entry.
    Old(Box<Expr>),
    /// Something outside the subset: its value comes from the trace. `defines` are the
    /// variables evaluating it may change.
    Opaque {
        /// Why it is opaque.
        reason: String,
        /// Where it is.
        span: Span,
        /// Variables it may change.
        defines: Vec<VarId>,
    },
}

/// The operands of an expression kind (borrowed as `kind` is: `&` or `&mut`), `iter` the
/// sequences' matching iterator: one list for [`Expr::operands`] and
/// [`Expr::operands_mut`], with no wildcard arm.
macro_rules! operands {
    ($kind:expr, $iter:ident) => {
        match $kind {
            ExprKind::Lit(_)
            | ExprKind::Var(_)
            | ExprKind::Variant(..)
            | ExprKind::OptionNone
            | ExprKind::Opaque { .. } => Vec::new(),
            ExprKind::Unary(_, a)
            | ExprKind::Cast(a)
            | ExprKind::Len(a)
            | ExprKind::Field(a, _)
            | ExprKind::TupleField(a, _)
            | ExprKind::OptionSome(a)
            | ExprKind::IsSome(a)
            | ExprKind::Unwrap(a)
            | ExprKind::Old(a)
            | ExprKind::Branch(a, _) => vec![a],
            ExprKind::Binary(_, a, b)
            | ExprKind::Index(a, b)
            | ExprKind::Push(a, b)
            | ExprKind::Repeat(a, b) => vec![a, b],
            ExprKind::Tuple(es) | ExprKind::Array(es) => es.$iter().collect(),
            ExprKind::Struct(_, fields) => fields.$iter().map(|(_, e)| e).collect(),
            ExprKind::If {
                cond,
                then,
                otherwise,
                ..
            } => vec![cond, then, otherwise],
            ExprKind::Call { args, .. } => args.$iter().collect(),
            ExprKind::Quantifier { start, end, .. } => vec![start, end],
        }
    };
}

impl Expr {
    /// A boolean literal.
    pub fn bool(value: bool) -> Expr {
        Expr {
            kind: ExprKind::Lit(Lit::Bool(value)),
            ty: Type::Bool,
        }
    }

    /// An integer literal of type `ty`.
    pub fn int(value: i128, ty: Type) -> Expr {
        Expr {
            kind: ExprKind::Lit(Lit::Int(value)),
            ty,
        }
    }

    /// A variable of type `ty`.
    pub fn var(var: VarId, ty: Type) -> Expr {
        Expr {
            kind: ExprKind::Var(var),
            ty,
        }
    }

    /// The direct sub-expressions evaluated where this expression is, in evaluation order:
    /// every operand, a quantifier's bounds (not its body, evaluated once per element), a
    /// call's arguments (not the places its `&mut` arguments are stored back to).
    pub fn operands(&self) -> Vec<&Expr> {
        operands!(&self.kind, iter)
    }

    /// [`Expr::operands`], to change in place.
    pub fn operands_mut(&mut self) -> Vec<&mut Expr> {
        operands!(&mut self.kind, iter_mut)
    }

    /// Calls `f` on this expression and every expression inside it, outer first: its
    /// operands, then what is inside it but not an operand (a call's places stored back
    /// to, a quantifier's body).
    pub fn walk<'a>(&'a self, f: &mut impl FnMut(&'a Expr)) {
        f(self);
        for e in self.operands() {
            e.walk(f);
        }
        if let ExprKind::Call { outputs, .. } = &self.kind {
            outputs.iter().for_each(|(_, p)| p.walk(f));
        }
        if let ExprKind::Quantifier { body, .. } = &self.kind {
            body.walk(f);
        }
    }

    /// Calls `f` on this expression's type and every type inside it (expressions, places),
    /// in the order of [`Expr::walk`].
    pub fn types_mut(&mut self, f: &mut impl FnMut(&mut Type)) {
        f(&mut self.ty);
        for e in self.operands_mut() {
            e.types_mut(f);
        }
        if let ExprKind::Call { outputs, .. } = &mut self.kind {
            outputs.iter_mut().for_each(|(_, p)| p.types_mut(f));
        }
        if let ExprKind::Quantifier { body, .. } = &mut self.kind {
            body.types_mut(f);
        }
    }
}

/// A place a value can be stored into.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// A variable.
    Var(VarId),
    /// An element of a sequence place: panics when the index is out of bounds.
    Index(Box<Place>, Box<Expr>),
    /// A named field of a struct place.
    Field(Box<Place>, String),
    /// An element of a tuple place.
    TupleField(Box<Place>, usize),
}

impl Place {
    /// The variable the place is part of.
    pub fn root(&self) -> VarId {
        match self {
            Place::Var(v) => *v,
            Place::Index(p, _) | Place::Field(p, _) | Place::TupleField(p, _) => p.root(),
        }
    }

    pub(super) fn walk<'a>(&'a self, f: &mut impl FnMut(&'a Expr)) {
        match self {
            Place::Var(_) => {}
            Place::Index(p, i) => {
                p.walk(f);
                i.walk(f);
            }
            Place::Field(p, _) | Place::TupleField(p, _) => p.walk(f),
        }
    }

    pub(super) fn types_mut(&mut self, f: &mut impl FnMut(&mut Type)) {
        match self {
            Place::Var(_) => {}
            Place::Index(p, i) => {
                p.types_mut(f);
                i.types_mut(f);
            }
            Place::Field(p, _) | Place::TupleField(p, _) => p.types_mut(f),
        }
    }
}
