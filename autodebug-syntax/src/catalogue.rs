//! The catalogue of one-token edits, written once for both repair engines: the names of the
//! edit kinds, which operator a slip turns into which (nearest first, with a cost, and
//! whether template synthesis tries it too), and the methods with a counterpart. The
//! syntactic source edits a site's text with it; template synthesis edits the IR.

/// A relational operator swapped (`<` ↔ `<=`, …).
pub const RELATIONAL: &str = "relational-operator";
/// An arithmetic operator swapped, or an operation reduced to an operand.
pub const ARITHMETIC: &str = "arithmetic-operator";
/// `&&` ↔ `||`.
pub const BOOLEAN: &str = "boolean-operator";
/// A negation added or removed, a boolean literal turned.
pub const NEGATION: &str = "negation";
/// A variable swapped for another of its type in scope.
pub const VARIABLE: &str = "variable";
/// An integer constant moved by one.
pub const CONSTANT_STEP: &str = "constant±1";
/// A clause of a condition dropped.
pub const DROP_CLAUSE: &str = "drop-clause";
/// A loop bound moved by one.
pub const BOUND_STEP: &str = "loop-bound±1";
/// An enum variant swapped for another of its enum.
pub const ENUM_VARIANT: &str = "enum-variant";
/// A loop's start moved by one.
pub const START_STEP: &str = "loop-start±1";
/// A literal written anew (a loop bound's).
pub const CONSTANT: &str = "constant";
/// `&&` ↔ `||` in the text (template synthesis names it [`BOOLEAN`]).
pub const LOGICAL: &str = "logical-operator";
/// The operands of a non-commutative operator exchanged.
pub const OPERAND_SWAP: &str = "operand-swap";
/// An operation reduced to one of its operands.
pub const DROP_OPERAND: &str = "drop-operand";
/// Two neighbouring elements of a list exchanged.
pub const ELEMENT_SWAP: &str = "element-swap";
/// A method for its counterpart.
pub const COUNTERPART: &str = "counterpart-method";
/// A short string literal with one character dropped, or emptied.
pub const STRING_EDIT: &str = "string-literal";
/// An integer variable one off where it is used (`n` → `n + 1`).
pub const VARIABLE_STEP: &str = "variable±1";
/// A signed number's absolute value in its place (`d` → `d.abs()`).
pub const ABS: &str = "absolute-value";
/// A character literal for a character of the failing calls' text.
pub const CHAR_EDIT: &str = "char-literal";
/// A constant where a variable of its type in scope was meant (`f(0)` → `f(i)`; the
/// constant-for-scalar replacement of Mothra).
pub const CONSTANT_VARIABLE: &str = "constant→variable";
/// Two arithmetic operations grouped the other way (`n - 1 / 2` → `(n - 1) / 2`).
pub const REGROUP: &str = "regroup";

/// An operator the catalogue swaps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

impl Op {
    /// Every operator of the catalogue.
    pub const ALL: [Op; 11] = [
        Op::Add,
        Op::Sub,
        Op::Mul,
        Op::Div,
        Op::Rem,
        Op::Lt,
        Op::Le,
        Op::Gt,
        Op::Ge,
        Op::Eq,
        Op::Ne,
    ];

    /// The operator Rust writes as `symbol`, if the catalogue has it.
    pub fn parse(symbol: &str) -> Option<Op> {
        Op::ALL.into_iter().find(|op| op.symbol() == symbol)
    }

    /// How Rust writes it.
    pub fn symbol(self) -> &'static str {
        match self {
            Op::Add => "+",
            Op::Sub => "-",
            Op::Mul => "*",
            Op::Div => "/",
            Op::Rem => "%",
            Op::Lt => "<",
            Op::Le => "<=",
            Op::Gt => ">",
            Op::Ge => ">=",
            Op::Eq => "==",
            Op::Ne => "!=",
        }
    }

    /// `+`, `-`, `*`, `/` or `%`.
    pub fn is_arithmetic(self) -> bool {
        matches!(self, Op::Add | Op::Sub | Op::Mul | Op::Div | Op::Rem)
    }

    /// `==` or `!=`: the comparisons of values without an order.
    pub fn is_equality(self) -> bool {
        matches!(self, Op::Eq | Op::Ne)
    }
}

/// One alternative of an operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Swap {
    pub to: Op,
    /// How far from the written operator: 1 for the usual slip (the same direction with or
    /// without equality, the inverse operation), more for the rest.
    pub cost: u32,
    /// Template synthesis tries it too (each variant it tries costs solver queries, so it
    /// keeps to the near ones for arithmetic).
    pub synthesis: bool,
}

const fn swap(to: Op, cost: u32, synthesis: bool) -> Swap {
    Swap {
        to,
        cost,
        synthesis,
    }
}

// The tables of `swaps`, one per operator.
const LT: &[Swap] = &[
    swap(Op::Le, 1, true),
    swap(Op::Gt, 2, true),
    swap(Op::Ge, 2, true),
    swap(Op::Ne, 3, true),
    swap(Op::Eq, 3, true),
];
const LE: &[Swap] = &[
    swap(Op::Lt, 1, true),
    swap(Op::Ge, 2, true),
    swap(Op::Gt, 2, true),
    swap(Op::Eq, 3, true),
    swap(Op::Ne, 3, true),
];
const GT: &[Swap] = &[
    swap(Op::Ge, 1, true),
    swap(Op::Lt, 2, true),
    swap(Op::Le, 2, true),
    swap(Op::Ne, 3, true),
    swap(Op::Eq, 3, true),
];
const GE: &[Swap] = &[
    swap(Op::Gt, 1, true),
    swap(Op::Le, 2, true),
    swap(Op::Lt, 2, true),
    swap(Op::Eq, 3, true),
    swap(Op::Ne, 3, true),
];
const EQ: &[Swap] = &[
    swap(Op::Ne, 2, true),
    swap(Op::Le, 3, true),
    swap(Op::Ge, 3, true),
    swap(Op::Lt, 3, true),
    swap(Op::Gt, 3, true),
];
const NE: &[Swap] = &[
    swap(Op::Eq, 2, true),
    swap(Op::Lt, 3, true),
    swap(Op::Gt, 3, true),
    swap(Op::Le, 3, true),
    swap(Op::Ge, 3, true),
];
const ADD: &[Swap] = &[
    swap(Op::Sub, 1, true),
    swap(Op::Mul, 2, true),
    swap(Op::Div, 2, false),
    swap(Op::Rem, 2, false),
];
const SUB: &[Swap] = &[
    swap(Op::Add, 1, true),
    swap(Op::Mul, 2, false),
    swap(Op::Div, 2, false),
    swap(Op::Rem, 2, false),
];
const MUL: &[Swap] = &[
    swap(Op::Div, 1, true),
    swap(Op::Add, 2, true),
    swap(Op::Sub, 2, false),
    swap(Op::Rem, 2, false),
];
const DIV: &[Swap] = &[
    swap(Op::Mul, 1, true),
    swap(Op::Rem, 1, true),
    swap(Op::Add, 2, false),
    swap(Op::Sub, 2, false),
];
const REM: &[Swap] = &[
    swap(Op::Div, 1, true),
    swap(Op::Add, 2, false),
    swap(Op::Sub, 2, false),
    swap(Op::Mul, 2, false),
];

/// The alternatives of `op`, nearest first: for a comparison, the same direction with or
/// without equality, then the other direction, then (in)equality; for arithmetic, the
/// inverse operation, then the rest.
pub fn swaps(op: Op) -> &'static [Swap] {
    use Op::*;
    match op {
        Lt => LT,
        Le => LE,
        Gt => GT,
        Ge => GE,
        Eq => EQ,
        Ne => NE,
        Add => ADD,
        Sub => SUB,
        Mul => MUL,
        Div => DIV,
        Rem => REM,
    }
}

/// Methods and functions with a counterpart a slip of the mind exchanges: each group's
/// names take the same arguments, and a call of one is an edit of a call of another.
pub const COUNTERPARTS: &[&[&str]] = &[
    &["min", "max"],
    &["min_by", "max_by"],
    &["min_by_key", "max_by_key"],
    &["floor", "ceil", "round", "trunc"],
    &["to_uppercase", "to_lowercase"],
    &["to_ascii_uppercase", "to_ascii_lowercase"],
    &["is_uppercase", "is_lowercase"],
    &["is_ascii_uppercase", "is_ascii_lowercase"],
    &["starts_with", "ends_with"],
    &["strip_prefix", "strip_suffix"],
    &["trim_start", "trim_end", "trim"],
    &["first", "last"],
    &["is_some", "is_none"],
    &["is_ok", "is_err"],
    &["any", "all"],
    &["find", "rfind"],
    &["position", "rposition"],
    &["is_alphabetic", "is_numeric"],
    &["is_ascii_alphabetic", "is_ascii_digit"],
    &["saturating_sub", "saturating_add"],
    &["wrapping_sub", "wrapping_add"],
    &["checked_sub", "checked_add"],
];

/// The names a call of `name` may be edited to.
pub fn counterparts(name: &str) -> impl Iterator<Item = &'static str> + '_ {
    COUNTERPARTS
        .iter()
        .filter(move |group| group.contains(&name))
        .flat_map(|group| group.iter().copied())
        .filter(move |other| *other != name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_operator_has_the_others_of_its_family_once_nearest_first() {
        let relational = [Op::Lt, Op::Le, Op::Gt, Op::Ge, Op::Eq, Op::Ne];
        let arithmetic = [Op::Add, Op::Sub, Op::Mul, Op::Div, Op::Rem];
        for family in [&relational[..], &arithmetic[..]] {
            for &op in family {
                let to: Vec<Op> = swaps(op).iter().map(|s| s.to).collect();
                let mut others: Vec<Op> = family.iter().copied().filter(|&o| o != op).collect();
                others.sort_by_key(|o| o.symbol());
                let mut sorted = to.clone();
                sorted.sort_by_key(|o| o.symbol());
                assert_eq!(sorted, others, "{op:?}");
                assert!(
                    swaps(op).windows(2).all(|w| w[0].cost <= w[1].cost),
                    "{op:?}"
                );
            }
        }
        assert_eq!(swaps(Op::Lt)[0].to, Op::Le);
        assert_eq!(counterparts("max").collect::<Vec<_>>(), ["min"]);
    }
}
