//! The IR as text (`Display`): types, expressions, statements and whole functions, one
//! statement per line. `{}` shows sites after their node, `@Let(3:13)` (kind and start), or
//! `@(Let 3:13)` for a component the instrumentation does not report; operand and guard
//! branches show as `{cond} @Operand(4:8)`. `{:#}` leaves sites out.

use std::fmt;

use super::{
    AssertKind, Component, ContractKind, Expr, ExprKind, Function, Iteration, Lit, Place, Pos,
    Program, Quantifier, Site, Stmt, Type, UnOp, VarId,
};

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

/// `code` on one line, its runs of whitespace single spaces.
pub(crate) fn one_line(code: &str) -> String {
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
