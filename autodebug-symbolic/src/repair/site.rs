//! Where a diagnosed component is in the IR: its function, the expression its site computes,
//! the type of that value, and the variables a template may read there. A site key names a
//! component by (line, column, kind); the file is the program's.

use std::collections::BTreeSet;

use autodebug_runtime::protocol::{SiteKey, SiteKind};

use crate::ir::{
    Component, Expr, ExprKind, Function, IntType, Iteration, Program, Stmt, Type, VarId,
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
mod tests {
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
