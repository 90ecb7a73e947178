//! Where a diagnosed component is in the IR: its function, the expression its site computes,
//! the type of that value, and what a replacement may read there (the variables in scope,
//! the sides of a branch's comparison). A site key names a component by (line, column,
//! kind); the file is the program's.

use std::collections::BTreeSet;

use autodebug_runtime::protocol::{SiteKey, SiteKind};

use crate::ir::{
    BinOp, Component, Expr, ExprKind, Function, IntType, Iteration, Program, Stmt, Type, VarId,
};

/// A component found in the IR.
#[derive(Debug, Clone)]
pub(crate) struct Located<'p> {
    /// The function it is in.
    pub function: &'p Function,
    /// The component (site and scope).
    pub component: &'p Component,
    /// What the site computes: the right-hand side (for `x op= e`, `e`), the condition, the
    /// returned value, the loop bound.
    pub expr: &'p Expr,
    /// The names the runtime reported in the site's scope, when a trace showed them (the
    /// instrumentation leaves out what it cannot be sure is `Copy` and unborrowed).
    pub reported: Option<BTreeSet<String>>,
    /// The two sides of the written comparison, when the branch hook reports them as its
    /// operands 0 and 1 (see [`Located::find_operands`]).
    pub operands: Option<[&'p Expr; 2]>,
}

impl<'p> Located<'p> {
    /// The kind of the site.
    pub fn kind(&self) -> SiteKind {
        self.component.site.kind
    }

    /// The type of the value the site computes.
    pub fn ty(&self) -> &'p Type {
        &self.expr.ty
    }

    /// The source text of the site, as written.
    pub fn code(&self) -> &'p str {
        &self.component.site.span.code
    }

    /// The variables in scope, in declaration order.
    pub fn scope(&self) -> &'p [VarId] {
        &self.component.scope
    }

    /// The integer variables a replacement may read (what linear templates combine), with
    /// their types.
    pub fn int_vars(&self) -> Vec<(VarId, IntType)> {
        self.scope()
            .iter()
            .filter(|&&v| self.reports(v))
            .filter_map(|&v| match self.function.var(v).ty {
                Type::Int(t) => Some((v, t)),
                _ => None,
            })
            .collect()
    }

    /// The runtime operand `e` is at this site (`Expr::Operand`'s index), if it is one of the
    /// sides of the written comparison that the hook reports.
    pub fn operand(&self, e: &Expr) -> Option<u32> {
        let [left, right] = self.operands?;
        if e == left {
            Some(0)
        } else if e == right {
            Some(1)
        } else {
            None
        }
    }

    /// Sets [`Located::operands`] from what the branch events of the site recorded:
    /// `recorded` is the type of each operand (`i32`, `bool`, …; empty when none was), the
    /// same at every event seen. The runtime's operands are the sides of the source's
    /// comparison, and the IR's comparison is the source's when it has the same operator
    /// (then its sides are the source's, in order): both the operator and the recorded types
    /// must agree. The instrumentation reports operands only for sides it can evaluate again
    /// without effects, which the model does not know: without a record, no operand is read.
    pub fn find_operands(&mut self, recorded: Option<&[String]>) {
        self.operands = None;
        let Some(recorded) = recorded else { return };
        if !self.kind().is_branch() {
            return;
        }
        let mut e = self.expr;
        while let ExprKind::Branch(inner, _) = &e.kind {
            e = inner;
        }
        let ExprKind::Binary(op, left, right) = &e.kind else {
            return;
        };
        let comparison = matches!(
            op,
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
        );
        let written = syn::parse_str::<syn::Expr>(self.code()).ok();
        let same_operator = written.as_ref().is_some_and(|w| {
            matches!(autodebug_syntax::strip(w), syn::Expr::Binary(b)
                if quote::ToTokens::to_token_stream(&b.op).to_string() == op.symbol())
        });
        let typed = recorded.len() == 2
            && scalar_name(&left.ty).is_some_and(|t| t == recorded[0])
            && scalar_name(&right.ty).is_some_and(|t| t == recorded[1]);
        if comparison && same_operator && typed {
            self.operands = Some([&**left, &**right]);
        }
    }

    /// Whether `v` is a variable the site reports to a replacement: a scalar in scope (that
    /// the recorded scope named, when a trace showed it).
    pub fn reports(&self, v: VarId) -> bool {
        let var = self.function.var(v);
        self.scope().contains(&v)
            && matches!(var.ty, Type::Int(_) | Type::Bool | Type::Char)
            && self
                .reported
                .as_ref()
                .is_none_or(|names| names.contains(&var.name))
    }
}

/// The name the runtime records a value of type `ty` with, for the types a replacement
/// computes with.
fn scalar_name(ty: &Type) -> Option<&'static str> {
    match ty {
        Type::Int(t) => Some(t.name()),
        Type::Bool => Some("bool"),
        Type::Char => Some("char"),
        _ => None,
    }
}

/// The component at `key` in `program`, or why there is none.
pub(crate) fn locate<'p>(program: &'p Program, key: &SiteKey) -> Result<Located<'p>, String> {
    for function in &program.functions {
        let mut found: Option<Located<'p>> = None;
        let matches = |c: &Component| {
            c.site.kind == key.kind
                && c.site.span.start.line == key.line
                && c.site.span.start.column == key.column
        };
        Stmt::walk_all(&function.body, &mut |stmt: &'p Stmt| {
            if found.is_some() {
                return;
            }
            let here: Option<(&'p Component, &'p Expr)> = match stmt {
                Stmt::Let {
                    init: Some(e),
                    component: Some(c),
                    ..
                }
                | Stmt::Return {
                    value: Some(e),
                    component: Some(c),
                } => Some((c, e)),
                Stmt::Assign {
                    value,
                    component: Some(c),
                    ..
                } => match (&value.kind, c.site.kind) {
                    (ExprKind::Binary(_, _, operand), SiteKind::Compound) => Some((c, &**operand)),
                    _ => Some((c, value)),
                },
                Stmt::If {
                    cond,
                    branch: Some(c),
                    ..
                }
                | Stmt::While {
                    cond,
                    branch: Some(c),
                    ..
                } => Some((c, cond)),
                Stmt::For {
                    iteration:
                        Iteration::Range {
                            end,
                            bound: Some(c),
                            ..
                        },
                    ..
                } => Some((c, end)),
                _ => None,
            };
            if let Some((c, e)) = here.filter(|(c, _)| matches(c)) {
                found = Some(Located {
                    function,
                    component: c,
                    expr: e,
                    reported: None,
                    operands: None,
                });
                return;
            }
            stmt.exprs(&mut |e: &'p Expr| {
                if found.is_some() {
                    return;
                }
                let inner: Option<(&'p Component, &'p Expr)> = match &e.kind {
                    ExprKind::Branch(inner, c) => Some((&**c, &**inner)),
                    ExprKind::If {
                        cond,
                        branch: Some(c),
                        ..
                    } => Some((c, &**cond)),
                    _ => None,
                };
                if let Some((c, e)) = inner.filter(|(c, _)| matches(c)) {
                    found = Some(Located {
                        function,
                        component: c,
                        expr: e,
                        reported: None,
                        operands: None,
                    });
                }
            });
        });
        if let Some(found) = found {
            return Ok(found);
        }
    }
    Err(format!(
        "line {}:{} ({:?}) is not a component of the model of {}",
        key.line, key.column, key.kind, program.file
    ))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    const MAX: &str = "fn max(x: i32, y: i32) -> i32 {
    let mut r = x;
    if y > x {
        r = x;
    }
    r
}
";

    fn key(line: u32, column: u32, kind: SiteKind) -> SiteKey {
        SiteKey {
            file: "max.rs".into(),
            line,
            column,
            kind,
        }
    }

    #[test]
    fn components_are_found_by_position_and_kind() {
        let program = Program::from_source(MAX, "max.rs").unwrap();
        let assign = locate(&program, &key(4, 13, SiteKind::Assign)).unwrap();
        assert_eq!(assign.code(), "x");
        assert_eq!(assign.ty(), &Type::Int(IntType::I32));
        let cond = locate(&program, &key(3, 8, SiteKind::If)).unwrap();
        assert_eq!(cond.code(), "y > x");
        assert_eq!(cond.ty(), &Type::Bool);
        let why = locate(&program, &key(3, 8, SiteKind::While)).unwrap_err();
        assert!(why.contains("not a component"), "{why}");
    }

    /// Branches of every shape (the columns of their conditions are found by their code).
    pub(crate) const SHAPES: &str = "fn f(a: &[i32], s: i32, b: bool) -> i32 {
    let mut i = 0;
    let mut t = 0;
    while i < a.len() {
        if (s) > a[i] {
            t += 1;
        }
        if s > 0 && a[i] != 3 {
            t += 2;
        }
        if !(s < 1) {
            t += 3;
        }
        if b {
            t += 4;
        }
        i += 1;
    }
    t
}
";

    /// The component of `program` of kind `kind` whose code is `code`.
    pub(crate) fn at<'p>(program: &'p Program, kind: SiteKind, code: &str) -> Located<'p> {
        let c = program.functions[0]
            .components()
            .into_iter()
            .find(|c| c.site.kind == kind && c.site.span.code == code)
            .unwrap_or_else(|| panic!("no {kind:?} `{code}`"));
        let k = SiteKey {
            file: program.file.clone(),
            line: c.site.span.start.line,
            column: c.site.span.start.column,
            kind,
        };
        locate(program, &k).unwrap()
    }

    fn types(names: &[&str]) -> Vec<String> {
        names.iter().map(|n| n.to_string()).collect()
    }

    /// The code of the operands found with `recorded`, if any.
    fn sides(located: &mut Located, recorded: Option<&[&str]>) -> Option<[String; 2]> {
        let recorded = recorded.map(types);
        located.find_operands(recorded.as_deref());
        let texts = super::super::print::Texts::of(located);
        located.operands.map(|sides| {
            sides.map(|e| super::super::print::rust(located.function, e, &texts).unwrap())
        })
    }

    #[test]
    fn operands_are_the_sides_of_a_recorded_comparison() {
        let program = Program::from_source(SHAPES, "shapes.rs").unwrap();
        let mut cond = at(&program, SiteKind::While, "i < a.len()");
        assert_eq!(
            sides(&mut cond, Some(&["usize", "usize"])),
            Some(["i".into(), "a.len()".into()])
        );
        let [i, _] = cond.operands.unwrap();
        assert_eq!(cond.operand(i), Some(0));
        // Parentheses are read through, as the instrumentation reads them.
        let mut cond = at(&program, SiteKind::If, "(s) > a[i]");
        assert_eq!(
            sides(&mut cond, Some(&["i32", "i32"])),
            Some(["s".into(), "a[i]".into()])
        );
        // The operand of a chain is a comparison of its own.
        let mut operand = at(&program, SiteKind::Operand, "a[i] != 3");
        assert_eq!(
            sides(&mut operand, Some(&["i32", "i32"])),
            Some(["a[i]".into(), "3".into()])
        );
        // Nothing recorded, or recorded of other types: no operand is read.
        assert_eq!(sides(&mut cond, None), None);
        assert_eq!(sides(&mut cond, Some(&[])), None);
        assert_eq!(sides(&mut cond, Some(&["i32", "i64"])), None);
        assert_eq!(sides(&mut cond, Some(&["", ""])), None);
        assert_eq!(cond.operand(cond.expr), None);
        // A chain, a negation and a bare variable are no comparisons, whatever the record
        // says; nor is a component a branch.
        for (kind, code) in [
            (SiteKind::If, "s > 0 && a[i] != 3"),
            (SiteKind::If, "!(s < 1)"),
            (SiteKind::If, "b"),
        ] {
            assert_eq!(
                sides(&mut at(&program, kind, code), Some(&["i32", "i32"])),
                None,
                "{code}"
            );
        }
        let mut step = at(&program, SiteKind::Compound, "1");
        assert_eq!(sides(&mut step, Some(&["i32", "i32"])), None);
    }

    #[test]
    fn only_reported_scalars_are_read_when_a_trace_named_them() {
        let program = Program::from_source(MAX, "max.rs").unwrap();
        let mut at = locate(&program, &key(4, 13, SiteKind::Assign)).unwrap();
        let names = |l: &Located| -> Vec<String> {
            l.int_vars()
                .iter()
                .map(|(v, _)| l.function.var(*v).name.clone())
                .collect()
        };
        assert_eq!(names(&at), ["x", "y", "r"]);
        at.reported = Some(["x".to_string(), "y".to_string()].into_iter().collect());
        assert_eq!(names(&at), ["x", "y"]);
        let r = at.function.vars_named("r")[0];
        assert!(!at.reports(r));
    }
}
