//! Statements: what a `for` loop iterates, which assertion an `assert` came from, the
//! statement tree with the traversals over it, and the loop a `break` or `continue` leaves.

use super::{Component, Expr, Place, Site, Span, Type, VarId};

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
