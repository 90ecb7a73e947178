//! Where a diagnosed component is in the IR: its function, the expression its site computes,
//! the type of that value, and the variables a template may read there. A site key names a
//! component by (line, column, kind); the file is the program's.

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

    /// The integer variables in scope (what linear templates combine), with their types.
    pub fn int_vars(&self) -> Vec<(VarId, IntType)> {
        self.scope()
            .iter()
            .filter_map(|&v| match self.function.var(v).ty {
                Type::Int(t) => Some((v, t)),
                _ => None,
            })
            .collect()
    }

    /// Whether `v` is a variable the site reports to a replacement: a scalar in scope.
    pub fn reports(&self, v: VarId) -> bool {
        self.scope().contains(&v)
            && matches!(
                self.function.var(v).ty,
                Type::Int(_) | Type::Bool | Type::Char
            )
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
