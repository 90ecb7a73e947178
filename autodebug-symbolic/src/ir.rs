//! The program representation the symbolic engine works from: a small typed IR of function
//! bodies, lowered from syn by [`crate::lower`]. It is meant to be encoded into SSA and z3
//! with loops unrolled to recorded iteration counts, so it is explicit where Rust is not:
//!
//! - variables are unique ids per function (shadowing and block scopes are resolved; the
//!   encoder never reasons about scopes), each with its name, its type and whether the
//!   caller observes its final value (`&mut` parameters);
//! - expressions are side-effect free but for calls, and every operator says what it does
//!   on overflow (panic as in debug builds, wrap, saturate) and when it panics (division by
//!   zero, out-of-range shifts and indices, `unwrap` of `None`);
//! - control flow is statements only: a `match` is an `if` chain, a block or `if` whose
//!   value is needed is evaluated into a temporary, `for` loops name what they iterate;
//! - every node the instrumentation reports carries its [`Site`] (kind, start, end, text,
//!   exactly as the macro records it), and every component (right-hand sides, conditions,
//!   returned values, loop bounds) the variables in scope there;
//! - whatever is outside the subset is an opaque node with a reason and a position: its
//!   value (and that of the variables it may change) comes from the trace.

use std::fmt;

use autodebug_runtime::protocol::SiteKind;

pub use crate::lower::Error;

/// A 1-based line and 1-based character column, as sites give them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Pos {
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in characters.
    pub column: u32,
}

/// A stretch of source: where it starts, where it ends (just past its last character) and
/// its text.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Span {
    /// First character.
    pub start: Pos,
    /// Just past the last character.
    pub end: Pos,
    /// The source text between `start` and `end`.
    pub code: String,
}

/// A source location the instrumentation reports (or would report, for the nodes it leaves
/// alone): trace events are joined to IR nodes by (file, start line, start column, kind).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Site {
    /// What the site is.
    pub kind: SiteKind,
    /// Its tokens, as the macro measures them.
    pub span: Span,
    /// Whether the instrumentation declares this site when the function is instrumented
    /// (see [`Function::instrumented`]). Components it leaves alone (a `let` destructuring
    /// a place, a statement our lowering introduced) keep a site for reporting, with
    /// `reported: false`; no event will ever name them.
    pub reported: bool,
}

/// A component of the model (Könighofer & Bloem): a right-hand side, a condition, a
/// returned value or a loop bound, which diagnosis may declare abnormal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Component {
    /// Where it is.
    pub site: Site,
    /// The user's variables in scope at the component (`Vars(c)`, for repair templates),
    /// in declaration order, each name once (shadowed bindings are not visible). The
    /// variable a `let` declares is not in its own scope.
    pub scope: Vec<VarId>,
}

/// Integer types. `isize`/`usize` are 64-bit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IntType {
    /// `i8`
    I8,
    /// `i16`
    I16,
    /// `i32`
    I32,
    /// `i64`
    I64,
    /// `i128`
    I128,
    /// `isize` (64-bit)
    Isize,
    /// `u8`
    U8,
    /// `u16`
    U16,
    /// `u32`
    U32,
    /// `u64`
    U64,
    /// `u128`
    U128,
    /// `usize` (64-bit)
    Usize,
}

impl IntType {
    /// Every integer type, for lookups by name.
    pub const ALL: [IntType; 12] = [
        IntType::I8,
        IntType::I16,
        IntType::I32,
        IntType::I64,
        IntType::I128,
        IntType::Isize,
        IntType::U8,
        IntType::U16,
        IntType::U32,
        IntType::U64,
        IntType::U128,
        IntType::Usize,
    ];

    /// Width in bits.
    pub fn bits(self) -> u32 {
        match self {
            IntType::I8 | IntType::U8 => 8,
            IntType::I16 | IntType::U16 => 16,
            IntType::I32 | IntType::U32 => 32,
            IntType::I64 | IntType::U64 | IntType::Isize | IntType::Usize => 64,
            IntType::I128 | IntType::U128 => 128,
        }
    }

    /// Whether the type is signed.
    pub fn signed(self) -> bool {
        matches!(
            self,
            IntType::I8
                | IntType::I16
                | IntType::I32
                | IntType::I64
                | IntType::I128
                | IntType::Isize
        )
    }

    /// The Rust name (`i32`, `usize`).
    pub fn name(self) -> &'static str {
        match self {
            IntType::I8 => "i8",
            IntType::I16 => "i16",
            IntType::I32 => "i32",
            IntType::I64 => "i64",
            IntType::I128 => "i128",
            IntType::Isize => "isize",
            IntType::U8 => "u8",
            IntType::U16 => "u16",
            IntType::U32 => "u32",
            IntType::U64 => "u64",
            IntType::U128 => "u128",
            IntType::Usize => "usize",
        }
    }

    /// The type named `name`, if it is an integer type.
    pub fn from_name(name: &str) -> Option<IntType> {
        IntType::ALL.into_iter().find(|t| t.name() == name)
    }

    /// The smallest value, when it fits an `i128`.
    pub fn min_value(self) -> i128 {
        if self.signed() {
            if self.bits() == 128 {
                i128::MIN
            } else {
                -(1i128 << (self.bits() - 1))
            }
        } else {
            0
        }
    }

    /// The largest value, when it fits an `i128` (`None` for `u128`).
    pub fn max_value(self) -> Option<i128> {
        match (self.signed(), self.bits()) {
            (true, 128) => Some(i128::MAX),
            (false, 128) => None,
            (true, bits) => Some((1i128 << (bits - 1)) - 1),
            (false, bits) => Some((1i128 << bits) - 1),
        }
    }
}

/// The type of a variable or expression.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Type {
    /// `()`
    Unit,
    /// `bool`
    Bool,
    /// An integer of some width and signedness.
    Int(IntType),
    /// `char` (a Unicode scalar value).
    Char,
    /// A sequence: array, slice, `Vec`, or a reference to one. `len` is the length of an
    /// array type (`[T; N]`); other sequences have the length of their value.
    Seq {
        /// Element type.
        elem: Box<Type>,
        /// The fixed length of an array type.
        len: Option<u64>,
    },
    /// A tuple of two or more elements.
    Tuple(Vec<Type>),
    /// A struct of the same file ([`Program::struct_def`]).
    Struct(String),
    /// An enum of the same file whose variants have no fields ([`Program::enum_def`]).
    Enum(String),
    /// `Option<T>`.
    Option(Box<Type>),
    /// Anything else, with the reason it is outside the subset.
    Opaque(String),
    /// A type the lowering is still inferring. A finished [`Program`] never contains it:
    /// unconstrained integer literals become `i32` (as in Rust), anything else unresolved
    /// becomes [`Type::Opaque`].
    Infer(u32),
}

impl Type {
    /// Whether the type is an integer type.
    pub fn is_int(&self) -> bool {
        matches!(self, Type::Int(_))
    }

    /// Whether the type (or one of its parts) is opaque.
    pub fn is_opaque(&self) -> bool {
        match self {
            Type::Opaque(_) | Type::Infer(_) => true,
            Type::Seq { elem, .. } => elem.is_opaque(),
            Type::Option(inner) => inner.is_opaque(),
            Type::Tuple(elems) => elems.iter().any(Type::is_opaque),
            _ => false,
        }
    }

    /// The element type of a sequence.
    pub fn elem(&self) -> Option<&Type> {
        match self {
            Type::Seq { elem, .. } => Some(elem),
            _ => None,
        }
    }
}

/// A variable of a function, named by its index in [`Function::vars`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct VarId(pub u32);

/// What a variable is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VarKind {
    /// A parameter (`self` included). `mut_ref` for `&mut` parameters (`&mut self`
    /// included): the caller observes their final value.
    Param {
        /// Whether the parameter is a `&mut` reference.
        mut_ref: bool,
    },
    /// A local binding of the user's code (`let`, patterns, `for` variables).
    Local,
    /// A temporary the lowering introduced (a scrutinee, the value of an `if` or block).
    Temp,
    /// The return value, as `ret` in `#[ensures]`.
    Ret,
    /// The variable of a quantifier in a contract.
    Bound,
}

/// A variable: its name as written, its type and its kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Var {
    /// The name as written (temporaries: `$t1`, …).
    pub name: String,
    /// Its type.
    pub ty: Type,
    /// Parameter, local, temporary, …
    pub kind: VarKind,
}

impl Var {
    /// Whether this is a `&mut` parameter, whose final value the caller observes.
    pub fn is_mut_param(&self) -> bool {
        matches!(self.kind, VarKind::Param { mut_ref: true })
    }
}

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
    fn is_function(self) -> bool {
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

    /// Calls `f` on this expression and every expression inside it, outer first.
    pub fn walk<'a>(&'a self, f: &mut impl FnMut(&'a Expr)) {
        f(self);
        match &self.kind {
            ExprKind::Lit(_) | ExprKind::Var(_) | ExprKind::Variant(..) | ExprKind::OptionNone => {}
            ExprKind::Opaque { .. } => {}
            ExprKind::Unary(_, e)
            | ExprKind::Cast(e)
            | ExprKind::Len(e)
            | ExprKind::Field(e, _)
            | ExprKind::TupleField(e, _)
            | ExprKind::OptionSome(e)
            | ExprKind::IsSome(e)
            | ExprKind::Unwrap(e)
            | ExprKind::Old(e) => e.walk(f),
            ExprKind::Branch(e, _) => e.walk(f),
            ExprKind::Binary(_, a, b)
            | ExprKind::Index(a, b)
            | ExprKind::Push(a, b)
            | ExprKind::Repeat(a, b) => {
                a.walk(f);
                b.walk(f);
            }
            ExprKind::Tuple(es) | ExprKind::Array(es) => es.iter().for_each(|e| e.walk(f)),
            ExprKind::Struct(_, fields) => fields.iter().for_each(|(_, e)| e.walk(f)),
            ExprKind::If {
                cond,
                then,
                otherwise,
                ..
            } => {
                cond.walk(f);
                then.walk(f);
                otherwise.walk(f);
            }
            ExprKind::Call { args, outputs, .. } => {
                args.iter().for_each(|e| e.walk(f));
                outputs.iter().for_each(|(_, p)| p.walk(f));
            }
            ExprKind::Quantifier {
                start, end, body, ..
            } => {
                start.walk(f);
                end.walk(f);
                body.walk(f);
            }
        }
    }

    /// Calls `f` on this expression's type and every type inside it (expressions, places).
    pub fn types_mut(&mut self, f: &mut impl FnMut(&mut Type)) {
        f(&mut self.ty);
        match &mut self.kind {
            ExprKind::Lit(_)
            | ExprKind::Var(_)
            | ExprKind::Variant(..)
            | ExprKind::OptionNone
            | ExprKind::Opaque { .. } => {}
            ExprKind::Unary(_, e)
            | ExprKind::Cast(e)
            | ExprKind::Len(e)
            | ExprKind::Field(e, _)
            | ExprKind::TupleField(e, _)
            | ExprKind::OptionSome(e)
            | ExprKind::IsSome(e)
            | ExprKind::Unwrap(e)
            | ExprKind::Old(e)
            | ExprKind::Branch(e, _) => e.types_mut(f),
            ExprKind::Binary(_, a, b)
            | ExprKind::Index(a, b)
            | ExprKind::Push(a, b)
            | ExprKind::Repeat(a, b) => {
                a.types_mut(f);
                b.types_mut(f);
            }
            ExprKind::Tuple(es) | ExprKind::Array(es) => es.iter_mut().for_each(|e| e.types_mut(f)),
            ExprKind::Struct(_, fields) => fields.iter_mut().for_each(|(_, e)| e.types_mut(f)),
            ExprKind::If {
                cond,
                then,
                otherwise,
                ..
            } => {
                cond.types_mut(f);
                then.types_mut(f);
                otherwise.types_mut(f);
            }
            ExprKind::Call { args, outputs, .. } => {
                args.iter_mut().for_each(|e| e.types_mut(f));
                outputs.iter_mut().for_each(|(_, p)| p.types_mut(f));
            }
            ExprKind::Quantifier {
                start, end, body, ..
            } => {
                start.types_mut(f);
                end.types_mut(f);
                body.types_mut(f);
            }
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

    fn walk<'a>(&'a self, f: &mut impl FnMut(&'a Expr)) {
        match self {
            Place::Var(_) => {}
            Place::Index(p, i) => {
                p.walk(f);
                i.walk(f);
            }
            Place::Field(p, _) | Place::TupleField(p, _) => p.walk(f),
        }
    }

    fn types_mut(&mut self, f: &mut impl FnMut(&mut Type)) {
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

/// What a `for` loop iterates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Iteration {
    /// An integer range `start..end` (`..=` when `inclusive`), evaluated once before the
    /// loop, ascending or (`(a..b).rev()`) descending. Never overflows.
    Range {
        /// The first value (the last one when `reverse`).
        start: Expr,
        /// The end bound.
        end: Expr,
        /// Whether `end` itself is iterated.
        inclusive: bool,
        /// Whether the range is walked from its end down.
        reverse: bool,
        /// The end bound as a component (`Bound`).
        bound: Option<Component>,
    },
    /// The elements of a sequence, evaluated once before the loop (`for x in v`,
    /// `for &x in v.iter()`); with `index`, also their positions (`.enumerate()`).
    Elements {
        /// The sequence.
        seq: Expr,
        /// The variable holding each element's index, if any.
        index: Option<VarId>,
    },
}

/// A `#[requires]`, `#[ensures]` or `#[invariant]` condition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContractKind {
    /// Checked on entry.
    Requires,
    /// Checked on exit; may read `ret` and `old(e)`.
    Ensures,
    /// Checked on entry and on exit of every method taking `self`.
    Invariant,
}

/// When a contract is checked (the `debug_`/`test_` variants).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gate {
    /// In every build.
    Always,
    /// With `debug_assertions` (tests run with them).
    Debug,
    /// When the crate is compiled for its tests.
    Test,
}

/// One condition of a contract.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Contract {
    /// Requires, ensures or invariant.
    pub kind: ContractKind,
    /// When it is checked.
    pub gate: Gate,
    /// The condition.
    pub cond: Expr,
    /// Its site (`Requires`, `Ensures`, `Invariant`), positioned as the macro positions it.
    pub site: Site,
    /// The contract's message, if it has one.
    pub message: Option<String>,
}

/// Which assertion macro a [`Stmt::Assert`] came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AssertKind {
    /// `assert!`, `assert_eq!`, `assert_ne!`.
    Assert,
    /// `debug_assert!` and its `_eq`/`_ne` forms (on in tests).
    DebugAssert,
}

/// A statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stmt {
    /// `let var = init;` (or a declaration without a value). `component` is the right-hand
    /// side's (`Let`).
    Let {
        /// The variable declared.
        var: VarId,
        /// Its initial value.
        init: Option<Expr>,
        /// The right-hand side as a component.
        component: Option<Component>,
    },
    /// `place = value;`. A compound assignment `x op= e` is `x = x op e` with the site of
    /// `e` (`Compound`: the trace records the value of `e`, not of `x op e`).
    Assign {
        /// Where the value goes.
        place: Place,
        /// The value.
        value: Expr,
        /// The right-hand side as a component (`Assign`, `Compound`).
        component: Option<Component>,
    },
    /// `if cond { then } else { otherwise }`. `branch` is the condition's site (`If`; none
    /// for the tests of a `match` arm's pattern or an `if let`).
    If {
        /// The condition.
        cond: Expr,
        /// Its site, as a component.
        branch: Option<Component>,
        /// Runs when the condition holds.
        then: Vec<Stmt>,
        /// Runs otherwise.
        otherwise: Vec<Stmt>,
    },
    /// `while cond { body }`.
    While {
        /// Its label (`'outer`), if any.
        label: Option<String>,
        /// The condition, evaluated before each iteration.
        cond: Expr,
        /// Its site (`While`), as a component.
        branch: Option<Component>,
        /// The per-iteration site (`Loop`, spanning `while cond`).
        head: Site,
        /// The body.
        body: Vec<Stmt>,
    },
    /// `loop { body }` (also `while let`, as a `loop` that breaks when the pattern fails).
    Loop {
        /// Its label, if any.
        label: Option<String>,
        /// The per-iteration site (`Loop`).
        head: Site,
        /// The body.
        body: Vec<Stmt>,
    },
    /// `for var in iteration { body }`.
    For {
        /// Its label, if any.
        label: Option<String>,
        /// The variable holding each value.
        var: VarId,
        /// What is iterated.
        iteration: Iteration,
        /// The per-iteration site (`Loop`, spanning `for pat in expr`).
        head: Site,
        /// The body.
        body: Vec<Stmt>,
    },
    /// `break` (out of the labeled loop, or the innermost one).
    Break(Option<String>),
    /// `continue`.
    Continue(Option<String>),
    /// `return value` (also the tail expression). `component` is the value's (`Return`).
    Return {
        /// The returned value (none for `()` functions).
        value: Option<Expr>,
        /// The value as a component.
        component: Option<Component>,
    },
    /// `assert!(cond)`, `assert_eq!(a, b)` (`a == b`), `assert_ne!`: a specification.
    Assert {
        /// Which macro.
        kind: AssertKind,
        /// The asserted condition.
        cond: Expr,
        /// The message arguments as written, if any.
        message: Option<String>,
        /// The macro call.
        span: Span,
    },
    /// `panic!`, `unreachable!`, `todo!`, `unimplemented!`.
    Panic {
        /// The message as written, if any.
        message: Option<String>,
        /// The macro call.
        span: Span,
    },
    /// An expression evaluated for its effects (a call).
    Expr(Expr),
    /// A statement outside the subset: the values of `defines` after it come from the trace.
    Opaque {
        /// Why it is opaque.
        reason: String,
        /// The statement.
        span: Span,
        /// Variables it may change.
        defines: Vec<VarId>,
    },
}

impl Stmt {
    /// Calls `f` on every statement of `stmts` and of the blocks inside them, outer first.
    pub fn walk_all<'a>(stmts: &'a [Stmt], f: &mut impl FnMut(&'a Stmt)) {
        for stmt in stmts {
            f(stmt);
            match stmt {
                Stmt::If {
                    then, otherwise, ..
                } => {
                    Stmt::walk_all(then, f);
                    Stmt::walk_all(otherwise, f);
                }
                Stmt::While { body, .. } | Stmt::Loop { body, .. } | Stmt::For { body, .. } => {
                    Stmt::walk_all(body, f)
                }
                _ => {}
            }
        }
    }

    /// Calls `f` on every expression directly in this statement (not in nested blocks).
    pub fn exprs<'a>(&'a self, f: &mut impl FnMut(&'a Expr)) {
        match self {
            Stmt::Let { init, .. } => init.iter().for_each(|e| e.walk(f)),
            Stmt::Assign { place, value, .. } => {
                place.walk(f);
                value.walk(f);
            }
            Stmt::If { cond, .. } | Stmt::While { cond, .. } | Stmt::Assert { cond, .. } => {
                cond.walk(f)
            }
            Stmt::For { iteration, .. } => match iteration {
                Iteration::Range { start, end, .. } => {
                    start.walk(f);
                    end.walk(f);
                }
                Iteration::Elements { seq, .. } => seq.walk(f),
            },
            Stmt::Return { value, .. } => value.iter().for_each(|e| e.walk(f)),
            Stmt::Expr(e) => e.walk(f),
            Stmt::Loop { .. }
            | Stmt::Break(_)
            | Stmt::Continue(_)
            | Stmt::Panic { .. }
            | Stmt::Opaque { .. } => {}
        }
    }

    /// Calls `f` on every type in `stmts` (expressions, places), nested blocks included.
    pub fn types_mut(stmts: &mut [Stmt], f: &mut impl FnMut(&mut Type)) {
        for stmt in stmts {
            match stmt {
                Stmt::Let { init, .. } => init.iter_mut().for_each(|e| e.types_mut(f)),
                Stmt::Assign { place, value, .. } => {
                    place.types_mut(f);
                    value.types_mut(f);
                }
                Stmt::If {
                    cond,
                    then,
                    otherwise,
                    ..
                } => {
                    cond.types_mut(f);
                    Stmt::types_mut(then, f);
                    Stmt::types_mut(otherwise, f);
                }
                Stmt::While { cond, body, .. } => {
                    cond.types_mut(f);
                    Stmt::types_mut(body, f);
                }
                Stmt::Loop { body, .. } => Stmt::types_mut(body, f),
                Stmt::For {
                    iteration, body, ..
                } => {
                    match iteration {
                        Iteration::Range { start, end, .. } => {
                            start.types_mut(f);
                            end.types_mut(f);
                        }
                        Iteration::Elements { seq, .. } => seq.types_mut(f),
                    }
                    Stmt::types_mut(body, f);
                }
                Stmt::Return { value, .. } => value.iter_mut().for_each(|e| e.types_mut(f)),
                Stmt::Assert { cond, .. } => cond.types_mut(f),
                Stmt::Expr(e) => e.types_mut(f),
                Stmt::Break(_) | Stmt::Continue(_) | Stmt::Panic { .. } | Stmt::Opaque { .. } => {}
            }
        }
    }
}

/// A construct the lowering could not model: where, what, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Degradation {
    /// The construct, briefly (`method call \`push_str\``, `closure`, `parameter \`s\``).
    pub construct: String,
    /// Where it is.
    pub span: Span,
    /// Why it is outside the subset.
    pub reason: String,
}

/// One function of the program: a free function or a method of an `impl` block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Function {
    /// The name as the instrumentation names it: `max`, `Stack::push`.
    pub name: String,
    /// The inline modules the function is declared in, outermost first (`["tests"]`).
    pub module: Vec<String>,
    /// Every variable, indexed by [`VarId`].
    pub vars: Vec<Var>,
    /// The parameters (`self` first for methods), in order.
    pub params: Vec<VarId>,
    /// The return type (`()` when there is none).
    pub ret_ty: Type,
    /// The return value as `#[ensures]` reads it (`ret`).
    pub ret: VarId,
    /// The function's entry site (`Fn`, spanning its name).
    pub entry: Site,
    /// Whether the instrumentation reports this function's sites: it carries
    /// `#[autodebug]` or a contract (itself or its `impl` block) and is not a `const fn`.
    pub instrumented: bool,
    /// Its contracts, in order: its own, then the `#[invariant]`s of its `impl` block.
    pub contracts: Vec<Contract>,
    /// The body.
    pub body: Vec<Stmt>,
    /// Everything the lowering could not model, in source order.
    pub degradations: Vec<Degradation>,
}

impl Function {
    /// The variable `id`.
    pub fn var(&self, id: VarId) -> &Var {
        &self.vars[id.0 as usize]
    }

    /// The name `id` is shown by: its own, with `#2`, `#3`, … for the second, third, …
    /// variable of that name.
    pub fn var_name(&self, id: VarId) -> String {
        let Some(var) = self.vars.get(id.0 as usize) else {
            return format!("?{}", id.0);
        };
        let earlier = self.vars[..id.0 as usize]
            .iter()
            .filter(|v| v.name == var.name)
            .count();
        if earlier == 0 {
            var.name.clone()
        } else {
            format!("{}#{}", var.name, earlier + 1)
        }
    }

    /// The variables of the user's code named `name`, in declaration order.
    pub fn vars_named(&self, name: &str) -> Vec<VarId> {
        (0..self.vars.len() as u32)
            .map(VarId)
            .filter(|&id| self.var(id).name == name && self.var(id).kind != VarKind::Temp)
            .collect()
    }

    /// Whether the whole function (body, contracts, parameter types) is inside the subset.
    pub fn is_fully_lowered(&self) -> bool {
        self.degradations.is_empty()
    }

    /// Every site of the function (entry, components, loop heads, contract conditions).
    pub fn sites(&self) -> Vec<&Site> {
        let mut sites = vec![&self.entry];
        for contract in &self.contracts {
            sites.push(&contract.site);
        }
        Stmt::walk_all(&self.body, &mut |stmt| {
            match stmt {
                Stmt::Let { component, .. }
                | Stmt::Assign { component, .. }
                | Stmt::Return { component, .. } => sites.extend(component.iter().map(|c| &c.site)),
                Stmt::If { branch, .. } => sites.extend(branch.iter().map(|c| &c.site)),
                Stmt::While { branch, head, .. } => {
                    sites.extend(branch.iter().map(|c| &c.site));
                    sites.push(head);
                }
                Stmt::Loop { head, .. } => sites.push(head),
                Stmt::For {
                    head, iteration, ..
                } => {
                    if let Iteration::Range {
                        bound: Some(bound), ..
                    } = iteration
                    {
                        sites.push(&bound.site);
                    }
                    sites.push(head);
                }
                _ => {}
            }
            stmt.exprs(&mut |e| match &e.kind {
                ExprKind::Branch(_, component) => sites.push(&component.site),
                ExprKind::If {
                    branch: Some(c), ..
                } => sites.push(&c.site),
                _ => {}
            });
        });
        sites
    }

    /// Every component of the body (right-hand sides, conditions, returned values, bounds).
    pub fn components(&self) -> Vec<&Component> {
        let mut out = Vec::new();
        Stmt::walk_all(&self.body, &mut |stmt| {
            match stmt {
                Stmt::Let { component, .. }
                | Stmt::Assign { component, .. }
                | Stmt::Return { component, .. }
                | Stmt::If {
                    branch: component, ..
                }
                | Stmt::While {
                    branch: component, ..
                } => out.extend(component.iter()),
                Stmt::For {
                    iteration: Iteration::Range { bound, .. },
                    ..
                } => out.extend(bound.iter()),
                _ => {}
            }
            stmt.exprs(&mut |e| match &e.kind {
                ExprKind::Branch(_, component) => out.push(&**component),
                ExprKind::If {
                    branch: Some(c), ..
                } => out.push(c),
                _ => {}
            });
        });
        out
    }
}

/// A struct of the file: its fields in order (tuple structs: `0`, `1`, …).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StructDef {
    /// Its name.
    pub name: String,
    /// Field names and types, in declaration order.
    pub fields: Vec<(String, Type)>,
    /// Whether it is a tuple struct.
    pub tuple: bool,
}

/// An enum of the file whose variants carry no fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnumDef {
    /// Its name.
    pub name: String,
    /// Variant names, in declaration order.
    pub variants: Vec<String>,
}

/// Every function of one file, with the structs and enums their types refer to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Program {
    /// The file's name as given (sites name files as the compiler saw them).
    pub file: String,
    /// Free functions and `impl` methods, in source order (inline modules included).
    pub functions: Vec<Function>,
    /// Structs with named or positional fields of known shape.
    pub structs: Vec<StructDef>,
    /// Enums without fields.
    pub enums: Vec<EnumDef>,
}

impl Program {
    /// Reads and lowers the Rust file at `path` (named by `path` as given).
    pub fn from_file(path: impl AsRef<std::path::Path>) -> Result<Program, Error> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|e| Error::Io {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        Program::from_source(&text, &path.display().to_string())
    }

    /// Lowers the Rust file `text`, named `file_name` in sites. Fails only when the text
    /// does not parse; whatever is outside the subset degrades.
    pub fn from_source(text: &str, file_name: &str) -> Result<Program, Error> {
        crate::lower::lower_file(text, file_name)
    }

    /// The function named `name` as the instrumentation names it (`max`, `Stack::push`),
    /// or with its inline modules (`tests::helper`). A site's function path
    /// (`my_crate::tests::helper`) is found too: leading path segments are dropped until a
    /// function matches.
    pub fn function(&self, name: &str) -> Option<&Function> {
        let mut rest = name;
        loop {
            if let Some(f) = self.functions.iter().find(|f| {
                f.name == rest
                    || (!f.module.is_empty()
                        && format!("{}::{}", f.module.join("::"), f.name) == rest)
            }) {
                return Some(f);
            }
            rest = rest.split_once("::")?.1;
        }
    }

    /// The struct named `name`.
    pub fn struct_def(&self, name: &str) -> Option<&StructDef> {
        self.structs.iter().find(|s| s.name == name)
    }

    /// The enum named `name`.
    pub fn enum_def(&self, name: &str) -> Option<&EnumDef> {
        self.enums.iter().find(|e| e.name == name)
    }
}

// ---------------------------------------------------------------------------------------
// Display: `{}` shows sites after their node, `@Let(3:13)` (kind and start), or
// `@(Let 3:13)` for a component the instrumentation does not report; operand and guard
// branches show as `{cond} @Operand(4:8)`. `{:#}` leaves sites out.

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Unit => write!(f, "()"),
            Type::Bool => write!(f, "bool"),
            Type::Int(t) => write!(f, "{}", t.name()),
            Type::Char => write!(f, "char"),
            Type::Seq { elem, len: Some(n) } => write!(f, "[{elem}; {n}]"),
            Type::Seq { elem, len: None } => write!(f, "[{elem}]"),
            Type::Tuple(elems) => {
                write!(f, "(")?;
                for (i, e) in elems.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{e}")?;
                }
                write!(f, ")")
            }
            Type::Struct(name) | Type::Enum(name) => write!(f, "{name}"),
            Type::Option(inner) => write!(f, "Option<{inner}>"),
            Type::Opaque(reason) => write!(f, "opaque<{reason}>"),
            Type::Infer(n) => write!(f, "?{n}"),
        }
    }
}

fn site_suffix(site: &Site) -> String {
    let kind = format!("{:?}", site.kind);
    if site.reported {
        format!(" @{kind}({})", site.span.start)
    } else {
        format!(" @({kind} {})", site.span.start)
    }
}

/// An expression shown with the names of its function's variables.
struct ShowExpr<'a> {
    function: &'a Function,
    expr: &'a Expr,
    sites: bool,
}

impl ShowExpr<'_> {
    fn sub<'b>(&'b self, expr: &'b Expr) -> ShowExpr<'b> {
        ShowExpr {
            function: self.function,
            expr,
            sites: self.sites,
        }
    }

    /// A sub-expression as an operand: infix operations get parentheses.
    fn operand(&self, f: &mut fmt::Formatter<'_>, expr: &Expr) -> fmt::Result {
        let infix = match &expr.kind {
            ExprKind::Binary(op, ..) => !op.is_function(),
            ExprKind::Cast(_) | ExprKind::If { .. } | ExprKind::Quantifier { .. } => true,
            ExprKind::Branch(inner, _) => {
                matches!(&inner.kind, ExprKind::Binary(op, ..) if !op.is_function()) && !self.sites
            }
            _ => false,
        };
        if infix {
            write!(f, "({})", self.sub(expr))
        } else {
            write!(f, "{}", self.sub(expr))
        }
    }

    fn list(&self, f: &mut fmt::Formatter<'_>, exprs: &[Expr]) -> fmt::Result {
        for (i, e) in exprs.iter().enumerate() {
            if i > 0 {
                write!(f, ", ")?;
            }
            write!(f, "{}", self.sub(e))?;
        }
        Ok(())
    }
}

impl ShowExpr<'_> {
    /// `es`, separated by commas, between `open` and `close`.
    fn delimited(
        &self,
        f: &mut fmt::Formatter<'_>,
        es: &[Expr],
        (open, close): (&str, &str),
    ) -> fmt::Result {
        write!(f, "{open}")?;
        self.list(f, es)?;
        write!(f, "{close}")
    }

    /// `forall i in start..end => body` (or `exists`, `sum`; `..=` when inclusive).
    fn quantifier(
        &self,
        f: &mut fmt::Formatter<'_>,
        (kind, var, inclusive): (Quantifier, VarId, bool),
        (start, end): (&Expr, &Expr),
        body: &Expr,
    ) -> fmt::Result {
        let word = match kind {
            Quantifier::Forall => "forall",
            Quantifier::Exists => "exists",
            Quantifier::Sum => "sum",
        };
        let dots = if inclusive { "..=" } else { ".." };
        write!(f, "{word} {} in ", self.function.var_name(var))?;
        self.operand(f, start)?;
        write!(f, "{dots}")?;
        self.operand(f, end)?;
        write!(f, " => {}", self.sub(body))
    }
}

impl fmt::Display for ShowExpr<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let func = self.function;
        match &self.expr.kind {
            ExprKind::Lit(Lit::Unit) => write!(f, "()"),
            ExprKind::Lit(Lit::Bool(b)) => write!(f, "{b}"),
            ExprKind::Lit(Lit::Int(n)) => write!(f, "{n}"),
            ExprKind::Lit(Lit::Char(c)) => write!(f, "{c:?}"),
            ExprKind::Var(v) => write!(f, "{}", func.var_name(*v)),
            ExprKind::Unary(op, e) => {
                match op {
                    UnOp::Neg => write!(f, "-")?,
                    UnOp::Not => write!(f, "!")?,
                    UnOp::Abs => return write!(f, "abs({})", self.sub(e)),
                    UnOp::WrappingNeg => return write!(f, "wrapping_neg({})", self.sub(e)),
                }
                self.operand(f, e)
            }
            ExprKind::Binary(op, a, b) if op.is_function() => {
                write!(f, "{}({}, {})", op.symbol(), self.sub(a), self.sub(b))
            }
            ExprKind::Binary(op, a, b) => {
                self.operand(f, a)?;
                write!(f, " {} ", op.symbol())?;
                self.operand(f, b)
            }
            ExprKind::Cast(e) => {
                self.operand(f, e)?;
                write!(f, " as {}", self.expr.ty)
            }
            ExprKind::Index(s, i) => {
                self.operand(f, s)?;
                write!(f, "[{}]", self.sub(i))
            }
            ExprKind::Len(s) => write!(f, "len({})", self.sub(s)),
            ExprKind::Push(s, e) => write!(f, "push({}, {})", self.sub(s), self.sub(e)),
            ExprKind::Field(e, name) => {
                self.operand(f, e)?;
                write!(f, ".{name}")
            }
            ExprKind::TupleField(e, i) => {
                self.operand(f, e)?;
                write!(f, ".{i}")
            }
            // A tuple of one has its comma.
            ExprKind::Tuple(es) => {
                self.delimited(f, es, ("(", if es.len() == 1 { ",)" } else { ")" }))
            }
            ExprKind::Array(es) => self.delimited(f, es, ("[", "]")),
            ExprKind::Repeat(e, n) => write!(f, "[{}; {}]", self.sub(e), self.sub(n)),
            ExprKind::Struct(name, fields) => {
                let fields: Vec<String> = fields
                    .iter()
                    .map(|(field, e)| format!("{field}: {}", self.sub(e)))
                    .collect();
                write!(f, "{name} {{ {} }}", fields.join(", "))
            }
            ExprKind::Variant(e, v) => write!(f, "{e}::{v}"),
            ExprKind::OptionSome(e) => write!(f, "Some({})", self.sub(e)),
            ExprKind::OptionNone => write!(f, "None"),
            ExprKind::IsSome(e) => write!(f, "is_some({})", self.sub(e)),
            ExprKind::Unwrap(e) => write!(f, "unwrap({})", self.sub(e)),
            ExprKind::If {
                cond,
                branch,
                then,
                otherwise,
            } => {
                write!(f, "if {}", self.sub(cond))?;
                if let (Some(c), true) = (branch, self.sites) {
                    write!(f, "{}", site_suffix(&c.site))?;
                }
                write!(
                    f,
                    " {{ {} }} else {{ {} }}",
                    self.sub(then),
                    self.sub(otherwise)
                )
            }
            ExprKind::Branch(e, c) => {
                if self.sites {
                    write!(f, "{{{}}}{}", self.sub(e), site_suffix(&c.site))
                } else {
                    write!(f, "{}", self.sub(e))
                }
            }
            ExprKind::Call {
                function,
                args,
                outputs,
            } => {
                let args: Vec<String> = args
                    .iter()
                    .enumerate()
                    .map(|(i, e)| {
                        let out = outputs.iter().any(|(at, _)| *at == i);
                        format!("{}{}", if out { "&mut " } else { "" }, self.sub(e))
                    })
                    .collect();
                write!(f, "{function}({})", args.join(", "))
            }
            ExprKind::Quantifier {
                kind,
                var,
                start,
                end,
                inclusive,
                body,
            } => self.quantifier(f, (*kind, *var, *inclusive), (start, end), body),
            ExprKind::Old(e) => write!(f, "old({})", self.sub(e)),
            ExprKind::Opaque { reason, span, .. } => {
                write!(f, "opaque[{}]({reason:?})", one_line(&span.code))
            }
        }
    }
}

fn one_line(code: &str) -> String {
    code.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn show_place(function: &Function, place: &Place, sites: bool) -> String {
    match place {
        Place::Var(v) => function.var_name(*v),
        Place::Index(p, i) => format!(
            "{}[{}]",
            show_place(function, p, sites),
            ShowExpr {
                function,
                expr: i,
                sites
            }
        ),
        Place::Field(p, name) => format!("{}.{name}", show_place(function, p, sites)),
        Place::TupleField(p, i) => format!("{}.{i}", show_place(function, p, sites)),
    }
}

struct Printer<'a, 'f, 'g> {
    function: &'a Function,
    out: &'f mut fmt::Formatter<'g>,
    sites: bool,
}

impl Printer<'_, '_, '_> {
    fn expr(&self, expr: &Expr) -> String {
        ShowExpr {
            function: self.function,
            expr,
            sites: self.sites,
        }
        .to_string()
    }

    fn site(&self, site: Option<&Site>) -> String {
        match (site, self.sites) {
            (Some(site), true) => site_suffix(site),
            _ => String::new(),
        }
    }

    fn line(&mut self, depth: usize, text: &str) -> fmt::Result {
        writeln!(self.out, "{:width$}{text}", "", width = depth * 2)
    }

    fn block(&mut self, depth: usize, stmts: &[Stmt]) -> fmt::Result {
        for stmt in stmts {
            self.stmt(depth, stmt)?;
        }
        Ok(())
    }

    fn label(label: &Option<String>) -> String {
        label.as_ref().map(|l| format!("{l}: ")).unwrap_or_default()
    }

    /// A line opening a block (`header`), the block one level deeper, and its `}`.
    fn nested(&mut self, depth: usize, header: &str, body: &[Stmt]) -> fmt::Result {
        self.line(depth, header)?;
        self.block(depth + 1, body)?;
        self.line(depth, "}")
    }

    /// What a `for` loop walks: a range (`rev(..)` backwards), a sequence's elements.
    fn iteration(&self, iteration: &Iteration) -> String {
        match iteration {
            Iteration::Range {
                start,
                end,
                inclusive,
                reverse,
                bound,
            } => {
                let range = format!(
                    "{}{}{}{}",
                    self.expr(start),
                    if *inclusive { "..=" } else { ".." },
                    self.expr(end),
                    self.site(bound.as_ref().map(|c| &c.site))
                );
                if *reverse {
                    format!("rev({range})")
                } else {
                    range
                }
            }
            Iteration::Elements { seq, index: None } => format!("elements({})", self.expr(seq)),
            Iteration::Elements {
                seq,
                index: Some(i),
            } => format!(
                "enumerate({}) with index {}",
                self.expr(seq),
                self.function.var_name(*i)
            ),
        }
    }

    fn stmt(&mut self, depth: usize, stmt: &Stmt) -> fmt::Result {
        let func = self.function;
        match stmt {
            Stmt::If {
                cond,
                branch,
                then,
                otherwise,
            } => {
                let text = format!(
                    "if {}{} {{",
                    self.expr(cond),
                    self.site(branch.as_ref().map(|c| &c.site))
                );
                if otherwise.is_empty() {
                    return self.nested(depth, &text, then);
                }
                self.line(depth, &text)?;
                self.block(depth + 1, then)?;
                self.nested(depth, "} else {", otherwise)
            }
            Stmt::While {
                label,
                cond,
                branch,
                head,
                body,
            } => {
                let text = format!(
                    "{}while {}{}{} {{",
                    Printer::label(label),
                    self.expr(cond),
                    self.site(branch.as_ref().map(|c| &c.site)),
                    self.site(Some(head))
                );
                self.nested(depth, &text, body)
            }
            Stmt::Loop { label, head, body } => {
                let text = format!("{}loop{} {{", Printer::label(label), self.site(Some(head)));
                self.nested(depth, &text, body)
            }
            Stmt::For {
                label,
                var,
                iteration,
                head,
                body,
            } => {
                let text = format!(
                    "{}for {}: {} in {}{} {{",
                    Printer::label(label),
                    func.var_name(*var),
                    func.var(*var).ty,
                    self.iteration(iteration),
                    self.site(Some(head))
                );
                self.nested(depth, &text, body)
            }
            _ => {
                let text = self.single_line(stmt);
                self.line(depth, &text)
            }
        }
    }

    /// A statement with no block of its own, on one line.
    fn single_line(&self, stmt: &Stmt) -> String {
        let func = self.function;
        let site = |c: &Option<Component>| self.site(c.as_ref().map(|c| &c.site));
        match stmt {
            Stmt::Let {
                var,
                init,
                component,
            } => {
                let init = init.as_ref().map(|e| format!(" = {}", self.expr(e)));
                format!(
                    "let {}: {}{}{}",
                    func.var_name(*var),
                    func.var(*var).ty,
                    init.unwrap_or_default(),
                    site(component)
                )
            }
            Stmt::Assign {
                place,
                value,
                component,
            } => format!(
                "{} = {}{}",
                show_place(func, place, self.sites),
                self.expr(value),
                site(component)
            ),
            Stmt::Break(label) => labelled("break", label),
            Stmt::Continue(label) => labelled("continue", label),
            Stmt::Return { value, component } => match value {
                Some(v) => format!("return {}{}", self.expr(v), site(component)),
                None => "return".to_string(),
            },
            Stmt::Assert {
                kind,
                cond,
                message,
                ..
            } => {
                let name = match kind {
                    AssertKind::Assert => "assert",
                    AssertKind::DebugAssert => "debug_assert",
                };
                let message = message.as_ref().map(|m| format!(", {}", one_line(m)));
                format!("{name} {}{}", self.expr(cond), message.unwrap_or_default())
            }
            Stmt::Panic { message, .. } => match message {
                Some(m) => format!("panic {}", one_line(m)),
                None => "panic".to_string(),
            },
            Stmt::Expr(e) => self.expr(e),
            Stmt::Opaque {
                reason,
                span,
                defines,
            } => {
                let names: Vec<String> = defines.iter().map(|v| func.var_name(*v)).collect();
                let code = one_line(&span.code);
                format!("opaque[{code}]({reason:?}) defines [{}]", names.join(", "))
            }
            Stmt::If { .. } | Stmt::While { .. } | Stmt::Loop { .. } | Stmt::For { .. } => {
                unreachable!("a statement with a block is printed by `stmt`")
            }
        }
    }
}

/// The loop a `break` or `continue` labelled `label` leaves, among the enclosing `loops`
/// (outermost first, each with its label): the innermost when `None`.
pub(crate) fn loop_target<T>(
    loops: &[T],
    label: Option<&str>,
    label_of: impl Fn(&T) -> Option<&str>,
) -> Option<usize> {
    match label {
        None => loops.len().checked_sub(1),
        Some(l) => loops.iter().rposition(|lc| label_of(lc) == Some(l)),
    }
}

/// `break` or `continue` (`word`) with its label, if any.
fn labelled(word: &str, label: &Option<String>) -> String {
    match label {
        Some(l) => format!("{word} {l}"),
        None => word.to_string(),
    }
}

impl fmt::Display for Function {
    /// The function, one statement per line. `{:#}` leaves out the sites.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sites = !f.alternate();
        let params: Vec<String> = self
            .params
            .iter()
            .map(|&p| {
                let v = self.var(p);
                let by = if v.is_mut_param() { "&mut " } else { "" };
                format!("{}: {by}{}", self.var_name(p), v.ty)
            })
            .collect();
        let entry = if sites {
            site_suffix(&self.entry)
        } else {
            String::new()
        };
        writeln!(
            f,
            "fn {}({}) -> {}{entry}",
            self.name,
            params.join(", "),
            self.ret_ty
        )?;
        let mut printer = Printer {
            function: self,
            out: f,
            sites,
        };
        for contract in &self.contracts {
            let word = match contract.kind {
                ContractKind::Requires => "requires",
                ContractKind::Ensures => "ensures",
                ContractKind::Invariant => "invariant",
            };
            let text = format!(
                "{word} {}{}",
                printer.expr(&contract.cond),
                printer.site(Some(&contract.site))
            );
            printer.line(1, &text)?;
        }
        printer.line(0, "{")?;
        printer.block(1, &self.body)?;
        printer.line(0, "}")
    }
}

impl fmt::Display for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, function) in self.functions.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            if f.alternate() {
                write!(f, "{function:#}")?;
            } else {
                write!(f, "{function}")?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_types_know_their_bounds() {
        assert_eq!(IntType::I8.min_value(), -128);
        assert_eq!(IntType::I8.max_value(), Some(127));
        assert_eq!(IntType::Usize.bits(), 64);
        assert!(!IntType::Usize.signed());
        assert_eq!(IntType::U64.max_value(), Some(u64::MAX as i128));
        assert_eq!(IntType::I128.min_value(), i128::MIN);
        assert_eq!(IntType::U128.max_value(), None);
        assert_eq!(IntType::from_name("isize"), Some(IntType::Isize));
        assert_eq!(IntType::from_name("f32"), None);
    }

    #[test]
    fn shadowed_names_are_numbered_in_declaration_order() {
        let var = |name: &str, kind| Var {
            name: name.into(),
            ty: Type::Bool,
            kind,
        };
        let f = Function {
            name: "f".into(),
            module: Vec::new(),
            vars: vec![
                var("ret", VarKind::Ret),
                var("x", VarKind::Param { mut_ref: true }),
                var("x", VarKind::Local),
                var("$t1", VarKind::Temp),
            ],
            params: vec![VarId(1)],
            ret_ty: Type::Unit,
            ret: VarId(0),
            entry: Site {
                kind: SiteKind::Fn,
                span: Span::default(),
                reported: true,
            },
            instrumented: false,
            contracts: Vec::new(),
            body: Vec::new(),
            degradations: Vec::new(),
        };
        assert_eq!(f.var_name(VarId(1)), "x");
        assert_eq!(f.var_name(VarId(2)), "x#2");
        assert_eq!(f.var_name(VarId(9)), "?9");
        assert_eq!(f.vars_named("x"), [VarId(1), VarId(2)]);
        assert!(f.var(VarId(1)).is_mut_param());
        assert_eq!(format!("{f:#}"), "fn f(x: &mut bool) -> ()\n{\n}\n");
    }

    #[test]
    fn types_render_as_rust_writes_them() {
        let seq = Type::Seq {
            elem: Box::new(Type::Int(IntType::U8)),
            len: Some(3),
        };
        assert_eq!(seq.to_string(), "[u8; 3]");
        let t = Type::Tuple(vec![
            Type::Char,
            Type::Option(Box::new(Type::Enum("E".into()))),
        ]);
        assert_eq!(t.to_string(), "(char, Option<E>)");
        assert!(
            Type::Seq {
                elem: Box::new(Type::Opaque("x".into())),
                len: None
            }
            .is_opaque()
        );
    }
}
