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

mod expr;
mod print;
mod stmt;

use autodebug_runtime::protocol::SiteKind;

pub use crate::lower::Error;
pub use expr::{BinOp, Expr, ExprKind, Lit, Place, Quantifier, UnOp};
pub(crate) use print::one_line;
pub(crate) use stmt::loop_target;
pub use stmt::{AssertKind, Iteration, Stmt};

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
