//! Blocks and statements: a block lowered toward its destination, `let` (with patterns,
//! `let … else` and `&mut` borrows), assignments and compound assignments, and assertion,
//! panic and printing macros in statement position.

use autodebug_runtime::protocol::SiteKind;
use quote::ToTokens;
use syn::ext::IdentExt;

use super::{
    Binding, FnLowerer, MAX_DEPTH, Target, compound_op, has_effects, not, pattern_names, unit,
};
use crate::ir::{AssertKind, BinOp, Component, Expr, ExprKind, Place, Pos, Stmt, Type, VarId};
use crate::lower::pattern::PatBinding;
use crate::lower::rules;

impl<'e, 'a> FnLowerer<'e, 'a> {
    /// A block in a scope of its own; its tail (if any) goes to `target`.
    pub(crate) fn block(&mut self, block: &syn::Block, target: Target, out: &mut Vec<Stmt>) {
        self.push_frame();
        self.stmts(&block.stmts, target, out);
        self.pop_frame();
    }

    fn stmts(&mut self, stmts: &[syn::Stmt], target: Target, out: &mut Vec<Stmt>) {
        let count = stmts.len();
        for (i, stmt) in stmts.iter().enumerate() {
            let last = i + 1 == count;
            match stmt {
                syn::Stmt::Local(local) => self.local(local, out),
                syn::Stmt::Item(item) => self.item(item),
                syn::Stmt::Expr(expr, None) if last => self.expr_into(expr, target, out),
                syn::Stmt::Expr(expr, _) => self.expr_into(expr, Target::Discard, out),
                syn::Stmt::Macro(m)
                    if last && m.semi_token.is_none() && target != Target::Discard =>
                {
                    // A trailing macro is left alone by the instrumentation: its value is
                    // not a reported site.
                    let expr = syn::Expr::Macro(syn::ExprMacro {
                        attrs: m.attrs.clone(),
                        mac: m.mac.clone(),
                    });
                    if !self.macro_stmt(&m.mac, m, out) {
                        let value = self.expr(&expr, out);
                        self.value_into(value, m, false, target, out);
                    }
                }
                syn::Stmt::Macro(m) => {
                    if !self.macro_stmt(&m.mac, m, out) {
                        let expr = syn::Expr::Macro(syn::ExprMacro {
                            attrs: m.attrs.clone(),
                            mac: m.mac.clone(),
                        });
                        let value = self.expr(&expr, out);
                        self.value_into(value, m, false, Target::Discard, out);
                    }
                }
            }
        }
    }

    /// Items inside a body: constants are usable by name; other items (nested functions,
    /// types, `use`) do not change the function's state.
    fn item(&mut self, item: &syn::Item) {
        if let syn::Item::Const(c) = item {
            self.local_consts.insert(
                c.ident.unraw().to_string(),
                ((*c.ty).clone(), (*c.expr).clone()),
            );
        }
    }

    /// Lowers `expr` as a statement whose value goes to `target`.
    pub(crate) fn expr_into(&mut self, expr: &syn::Expr, target: Target, out: &mut Vec<Stmt>) {
        if self.depth > MAX_DEPTH {
            let stmt = self.opaque_stmt(expr, "statement", "nested too deeply", Vec::new());
            out.push(stmt);
            return;
        }
        self.depth += 1;
        self.expr_into_inner(expr, target, out);
        self.depth -= 1;
    }

    fn expr_into_inner(&mut self, expr: &syn::Expr, target: Target, out: &mut Vec<Stmt>) {
        match expr {
            syn::Expr::Group(g) => self.expr_into(&g.expr, target, out),
            syn::Expr::If(e) => self.if_stmt(e, target, out),
            syn::Expr::Match(m) => self.match_stmt(m, target, out),
            syn::Expr::Block(b) if b.label.is_none() => self.block(&b.block, target, out),
            syn::Expr::Unsafe(u) => self.block(&u.block, target, out),
            syn::Expr::While(w) => {
                self.while_loop(w, out);
                self.unit_into(target, out);
            }
            syn::Expr::ForLoop(f) => {
                self.for_loop(f, out);
                self.unit_into(target, out);
            }
            syn::Expr::Loop(l) => self.loop_stmt(l, target, out),
            syn::Expr::Return(r) => self.return_stmt(r, out),
            syn::Expr::Break(b) => self.break_stmt(b, out),
            syn::Expr::Continue(c) => {
                out.push(Stmt::Continue(c.label.as_ref().map(|l| l.to_string())));
            }
            syn::Expr::Assign(a) => {
                self.assign(a, out);
                self.unit_into(target, out);
            }
            syn::Expr::Binary(b) if compound_op(&b.op).is_some() => {
                self.compound(b, out);
                self.unit_into(target, out);
            }
            syn::Expr::Macro(m) if target == Target::Discard && self.macro_stmt(&m.mac, m, out) => {
            }
            _ => {
                let value = self.expr(expr, out);
                let reported = !rules::diverges(expr);
                self.value_into(value, expr, reported, target, out);
            }
        }
    }

    /// Sends a value to `target`. `node` is the value's syntax, for the `Return` site.
    pub(super) fn value_into(
        &mut self,
        value: Expr,
        node: &impl ToTokens,
        reported: bool,
        target: Target,
        out: &mut Vec<Stmt>,
    ) {
        match target {
            Target::Discard => match value.kind {
                ExprKind::Opaque {
                    reason,
                    span,
                    defines,
                } => out.push(Stmt::Opaque {
                    reason,
                    span,
                    defines,
                }),
                _ if has_effects(&value) => out.push(Stmt::Expr(value)),
                _ => {}
            },
            Target::Return => {
                self.inf.unify(&self.ret_ty.clone(), &value.ty);
                let component = self
                    .sites_on()
                    .then(|| self.component(node, SiteKind::Return, reported));
                out.push(Stmt::Return {
                    value: Some(value),
                    component,
                });
            }
            Target::Assign(var) => {
                self.inf.unify(&self.var_ty(var), &value.ty);
                out.push(Stmt::Assign {
                    place: Place::Var(var),
                    value,
                    component: None,
                });
            }
        }
    }

    pub(super) fn unit_into(&mut self, target: Target, out: &mut Vec<Stmt>) {
        if let Target::Assign(var) = target {
            self.inf.unify(&self.var_ty(var), &Type::Unit);
            out.push(Stmt::Assign {
                place: Place::Var(var),
                value: unit(),
                component: None,
            });
        }
    }

    // `let`

    fn local(&mut self, local: &syn::Local, out: &mut Vec<Stmt>) {
        let Some(init) = &local.init else {
            // `let x;` / `let x: T;`
            match rules::simple_binding(&local.pat) {
                Some((ident, ty)) => {
                    let ty = match ty {
                        Some(ty) => self.env.resolve(ty, self.self_ty.as_ref(), &self.generics),
                        None => self.inf.fresh(),
                    };
                    let var =
                        self.declare_local(&ident.unraw().to_string(), ty, self.pos_of(ident));
                    out.push(Stmt::Let {
                        var,
                        init: None,
                        component: None,
                    });
                }
                None => {
                    // `let (a, b);`: each variable, without a value yet.
                    for name in pattern_names(&local.pat) {
                        let ty = self.inf.fresh();
                        let var = self.declare_local(&name, ty, local_pos(local));
                        out.push(Stmt::Let {
                            var,
                            init: None,
                            component: None,
                        });
                    }
                }
            }
            return;
        };
        if let Some((ident, _)) = rules::simple_binding(&local.pat)
            && let syn::Expr::Reference(r) = rules::strip(&init.expr)
            && r.mutability.is_some()
        {
            self.mut_borrow(local, &ident.unraw().to_string(), &r.expr, out);
            return;
        }
        let reported = rules::reports_let(&local.pat, &init.expr);
        let value = self.expr(&init.expr, out);
        let component = (!rules::diverges(&init.expr))
            .then(|| self.component(&init.expr, SiteKind::Let, reported));
        match (rules::simple_binding(&local.pat), &init.diverge) {
            (Some((ident, ty)), None) => {
                if let Some(ty) = ty {
                    let ty = self.env.resolve(ty, self.self_ty.as_ref(), &self.generics);
                    self.inf.unify(&ty, &value.ty);
                }
                let ty = value.ty.clone();
                let closure_writes = match (&value.kind, rules::strip(&init.expr)) {
                    (ExprKind::Opaque { defines, .. }, syn::Expr::Closure(_)) => defines.clone(),
                    _ => Vec::new(),
                };
                let var = self.declare_local(&ident.unraw().to_string(), ty, self.pos_of(ident));
                if !closure_writes.is_empty() {
                    self.closure_writes.insert(var, closure_writes);
                }
                out.push(Stmt::Let {
                    var,
                    init: Some(value),
                    component,
                });
            }
            _ => {
                let diverge = init.diverge.as_ref().map(|(_, e)| &**e);
                self.mut_scrutinee = self.is_mut_scrutinee(&init.expr);
                self.let_pattern_else(&local.pat, value, component, diverge, local, out);
                self.mut_scrutinee = false;
            }
        }
    }

    /// `let PAT = value` (`else diverge`) for a pattern other than a single variable: the
    /// value into a temporary (the `Let` component), then the pattern's test and bindings.
    fn let_pattern_else(
        &mut self,
        pat: &syn::Pat,
        value: Expr,
        component: Option<Component>,
        diverge: Option<&syn::Expr>,
        node: &impl ToTokens,
        out: &mut Vec<Stmt>,
    ) {
        let ty = value.ty.clone();
        let tmp = self.temp(ty.clone());
        out.push(Stmt::Let {
            var: tmp,
            init: Some(value),
            component,
        });
        let scrutinee = Expr::var(tmp, ty);
        match self.pattern(pat, &scrutinee) {
            Ok(lowered) => {
                if let (Some(test), Some(diverge)) = (lowered.test, diverge) {
                    let mut otherwise = Vec::new();
                    self.expr_into(diverge, Target::Discard, &mut otherwise);
                    out.push(Stmt::If {
                        cond: not(test),
                        branch: None,
                        then: otherwise,
                        otherwise: Vec::new(),
                    });
                }
                self.bind(&lowered.bindings, out);
            }
            Err(reason) => {
                let names = pattern_names(pat);
                let vars: Vec<VarId> = names
                    .iter()
                    .map(|name| {
                        let ty = self.inf.fresh();
                        self.declare_local(name, ty, Pos::default())
                    })
                    .collect();
                let stmt = self.opaque_stmt(node, "`let` pattern", &reason, vars);
                out.push(stmt);
            }
        }
    }

    /// A parameter or `for` pattern taking `value` apart.
    pub(crate) fn let_pattern(
        &mut self,
        pat: &syn::Pat,
        value: Expr,
        component: Option<Component>,
        node: &impl ToTokens,
        out: &mut Vec<Stmt>,
    ) {
        self.let_pattern_else(pat, value, component, None, node, out);
    }

    /// Declares a pattern's variables with their values.
    pub(crate) fn bind(&mut self, bindings: &[PatBinding], out: &mut Vec<Stmt>) {
        for b in bindings {
            let var = self.declare_local(&b.name, b.value.ty.clone(), b.at);
            out.push(Stmt::Let {
                var,
                init: Some(b.value.clone()),
                component: None,
            });
        }
    }

    /// `let r = &mut place;`: writes through `r` change the borrowed variable, which the
    /// IR's values do not follow. Both are opaque from here (their values come from the
    /// trace), and every later write through `r` is marked as a write of the variable.
    fn mut_borrow(
        &mut self,
        local: &syn::Local,
        name: &str,
        borrowed: &syn::Expr,
        out: &mut Vec<Stmt>,
    ) {
        let root =
            crate::lower::effects::place_root(borrowed).and_then(|n| match self.lookup(&n) {
                Some(Binding::Var(v)) => Some(v),
                _ => None,
            });
        let ty = self.inf.fresh();
        let at = local_pos(local);
        let var = self.declare_local(name, ty, at);
        out.push(Stmt::Let {
            var,
            init: None,
            component: None,
        });
        let mut defines = vec![var];
        defines.extend(root);
        defines.sort();
        if let Some(root) = root {
            self.borrows.insert(var, root);
        }
        let stmt = self.opaque_stmt(
            local,
            "mutable borrow",
            "a `&mut` borrow held in a variable: writes through it are not modeled",
            defines,
        );
        out.push(stmt);
    }

    /// After a write into `root`: when `root` holds a `&mut` borrow, the borrowed variable
    /// changed too.
    pub(crate) fn after_write(&mut self, root: VarId, node: &impl ToTokens, out: &mut Vec<Stmt>) {
        if let Some(&borrowed) = self.borrows.get(&root) {
            let stmt = self.opaque_stmt(
                node,
                "write through a mutable borrow",
                "the borrowed variable changes too",
                vec![borrowed],
            );
            out.push(stmt);
        }
    }

    // Assignments.

    fn assign(&mut self, a: &syn::ExprAssign, out: &mut Vec<Stmt>) {
        let reported = rules::reports_assign(&a.left, &a.right);
        let value = self.expr(&a.right, out);
        let component = (!rules::diverges(&a.right))
            .then(|| self.component(&a.right, SiteKind::Assign, reported));
        match rules::strip(&a.left) {
            syn::Expr::Tuple(t) => {
                // `(a, b) = (b, a)`: the value into a temporary, then element by element.
                let ty = value.ty.clone();
                let tmp = self.temp(ty.clone());
                out.push(Stmt::Let {
                    var: tmp,
                    init: None,
                    component: None,
                });
                out.push(Stmt::Assign {
                    place: Place::Var(tmp),
                    value,
                    component,
                });
                let elems: Vec<Type> = t.elems.iter().map(|_| self.inf.fresh()).collect();
                self.inf.unify(&ty, &Type::Tuple(elems.clone()));
                for (i, (left, ety)) in t.elems.iter().zip(elems).enumerate() {
                    if matches!(left, syn::Expr::Infer(_)) {
                        continue;
                    }
                    let part = Expr {
                        kind: ExprKind::TupleField(Box::new(Expr::var(tmp, ty.clone())), i),
                        ty: ety,
                    };
                    match self.place(left, out) {
                        Ok((place, read)) => {
                            self.inf.unify(&read.ty, &part.ty);
                            let root = place.root();
                            out.push(Stmt::Assign {
                                place,
                                value: part,
                                component: None,
                            });
                            self.after_write(root, left, out);
                        }
                        Err(reason) => {
                            let defines = self.defines(left);
                            let stmt = self.opaque_stmt(left, "assignment", &reason, defines);
                            out.push(stmt);
                        }
                    }
                }
            }
            syn::Expr::Infer(_) => {
                let ty = value.ty.clone();
                let tmp = self.temp(ty);
                out.push(Stmt::Let {
                    var: tmp,
                    init: Some(value),
                    component,
                });
            }
            left => match self.place(left, out) {
                Ok((place, read)) => {
                    self.inf.unify(&read.ty, &value.ty);
                    let root = place.root();
                    out.push(Stmt::Assign {
                        place,
                        value,
                        component,
                    });
                    self.after_write(root, a, out);
                }
                Err(reason) => {
                    let defines = self.defines(&a.left);
                    let stmt = self.opaque_stmt(a, "assignment", &reason, defines);
                    out.push(stmt);
                }
            },
        }
    }

    fn compound(&mut self, b: &syn::ExprBinary, out: &mut Vec<Stmt>) {
        let Some(op) = compound_op(&b.op) else {
            return;
        };
        let rhs = self.expr(&b.right, out);
        let component = (!rules::diverges(&b.right))
            .then(|| self.component(&b.right, SiteKind::Compound, true));
        match self.place(&b.left, out) {
            Ok((place, read)) => {
                let value = self.binary_op(op, read, rhs, b);
                let root = place.root();
                out.push(Stmt::Assign {
                    place,
                    value,
                    component,
                });
                self.after_write(root, b, out);
            }
            Err(reason) => {
                let defines = self.defines(&b.left);
                let stmt = self.opaque_stmt(b, "compound assignment", &reason, defines);
                out.push(stmt);
            }
        }
    }

    /// `assert!`-like, `panic!`-like and printing macros. Returns whether `mac` was one.
    pub(crate) fn macro_stmt(
        &mut self,
        mac: &syn::Macro,
        node: &impl ToTokens,
        out: &mut Vec<Stmt>,
    ) -> bool {
        let Some(name) = mac.path.segments.last().map(|s| s.ident.to_string()) else {
            return false;
        };
        let span = self.span(node);
        let (kind, op) = match name.as_str() {
            "assert" => (AssertKind::Assert, None),
            "debug_assert" => (AssertKind::DebugAssert, None),
            "assert_eq" => (AssertKind::Assert, Some(BinOp::Eq)),
            "assert_ne" => (AssertKind::Assert, Some(BinOp::Ne)),
            "debug_assert_eq" => (AssertKind::DebugAssert, Some(BinOp::Eq)),
            "debug_assert_ne" => (AssertKind::DebugAssert, Some(BinOp::Ne)),
            "panic" | "unreachable" | "todo" | "unimplemented" => {
                let message = (!mac.tokens.is_empty())
                    .then(|| self.env.source.span_of_tokens(&mac.tokens).code);
                out.push(Stmt::Panic { message, span });
                return true;
            }
            // Output does not change the program's variables.
            "println" | "print" | "eprintln" | "eprint" => return true,
            _ => return false,
        };
        let args = match mac.parse_body_with(
            syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated,
        ) {
            Ok(args) => args,
            Err(_) => {
                let stmt = self.opaque_stmt(
                    node,
                    &format!("`{name}!`"),
                    "arguments that do not parse as expressions",
                    Vec::new(),
                );
                out.push(stmt);
                return true;
            }
        };
        let args: Vec<&syn::Expr> = args.iter().collect();
        let operands = if op.is_some() { 2 } else { 1 };
        if args.len() < operands {
            let stmt =
                self.opaque_stmt(node, &format!("`{name}!`"), "too few arguments", Vec::new());
            out.push(stmt);
            return true;
        }
        let cond = match op {
            None => self.expr(args[0], out),
            Some(op) => {
                let a = self.expr(args[0], out);
                let b = self.expr(args[1], out);
                self.binary_op(op, a, b, node)
            }
        };
        let message = (args.len() > operands).then(|| {
            let rest: proc_macro2::TokenStream = args[operands..]
                .iter()
                .map(|e| e.to_token_stream())
                .collect();
            self.env.source.span_of_tokens(&rest).code
        });
        out.push(Stmt::Assert {
            kind,
            cond,
            message,
            span,
        });
        true
    }
}

/// Where a `let` starts.
fn local_pos(local: &syn::Local) -> Pos {
    crate::lower::source::pos(local.let_token.span.start())
}
