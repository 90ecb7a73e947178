//! The lowering of one function: parameters, contracts, and the statements of its body
//! (blocks, `let`, assignments, `if`/`match` as `if` chains, loops, `return`/`break`,
//! assertions). Expressions are in [`super::expr`], patterns in [`super::pattern`].
//!
//! Control flow is lowered with a destination: a construct whose value is discarded,
//! returned, or stored into a temporary pushes that destination into its branches, so that
//! `let x = match … { … }` and a tail `if` need no value-producing statements.

use std::collections::{HashMap, HashSet};

use autodebug_runtime::protocol::SiteKind;
use quote::{ToTokens, quote};
use syn::ext::IdentExt;

use super::pattern::PatBinding;
use super::types::Inference;
use super::{Env, FnItem, rules};
use crate::ir::{
    AssertKind, BinOp, Component, Degradation, Expr, ExprKind, Function, Iteration, Lit, Place,
    Pos, Site, Span, Stmt, Type, Var, VarId, VarKind,
};

/// Where the value of a lowered construct goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Target {
    /// Nowhere (a statement).
    Discard,
    /// Out of the function (the tail expression): a `Return` site.
    Return,
    /// Into a temporary.
    Assign(VarId),
}

/// What names resolve to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// The function's body.
    Body,
    /// A contract condition (`ret`, `old(..)` in `ensures`); no sites inside.
    Contract {
        /// Whether `old(..)` is allowed.
        ensures: bool,
    },
    /// A constant's value: no local variables, no sites.
    Const,
}

/// A name in scope: a variable, or (in a match guard or a let-chain, before the pattern's
/// variables exist) the expression it stands for.
#[derive(Debug, Clone)]
pub(crate) enum Binding {
    Var(VarId),
    Alias(Expr),
}

struct LoopFrame {
    label: Option<String>,
    /// The temporary a `break value` stores into.
    value: Option<VarId>,
}

/// Deeper nesting than this is opaque (keeps the lowering's own recursion bounded).
pub(crate) const MAX_DEPTH: usize = 96;

/// The state of the lowering of one function.
pub(crate) struct FnLowerer<'e, 'a> {
    pub env: &'e Env<'a>,
    pub inf: Inference,
    pub vars: Vec<Var>,
    frames: Vec<Vec<(String, Binding)>>,
    pub degradations: Vec<Degradation>,
    loops: Vec<LoopFrame>,
    /// The type `Self` names, and its name.
    pub self_ty: Option<Type>,
    pub self_name: Option<String>,
    pub generics: HashSet<String>,
    /// Whether returned values are sites (`Return`).
    returns: bool,
    pub ret_ty: Type,
    pub module: Vec<String>,
    temps: u32,
    /// Recursion depth of expressions and statements.
    pub depth: usize,
    /// Locals holding a `&mut` borrow of another variable: writes through them change it.
    borrows: HashMap<VarId, VarId>,
    pub mode: Mode,
    local_consts: HashMap<String, (syn::Type, syn::Expr)>,
    /// Conditions nested in parentheses inside a contract condition (see [`super::contract`]).
    pub nested_conds: Vec<autodebug_syntax::contract::CondTree>,
    pub const_depth: usize,
    /// Types of the user's variables (by name and position) from an earlier pass over the
    /// same function: a type Rust infers from a later use is known at the first one.
    hints: HashMap<(String, Pos), Type>,
    /// The user's variables declared so far, by name and position.
    decls: Vec<(String, Pos, VarId)>,
    /// Closures held in variables, with the variables a call of them may change.
    pub closure_writes: HashMap<VarId, Vec<VarId>>,
    /// Whether the pattern being lowered matches a `&mut` value: its bindings would be
    /// `&mut` borrows, whose writes the IR does not follow.
    pub mut_scrutinee: bool,
}

/// Lowers one function of the file. A function that degrades is lowered a second time
/// with the types its variables ended up with: a variable whose type only a later use
/// reveals (`let p = v.remove(i); p.x = 1; w.push(p)`) then has it from the start.
pub(crate) fn lower_function(env: &Env, item: &FnItem) -> Function {
    let (function, hints) = lower_pass(env, item, HashMap::new());
    if function.is_fully_lowered() || hints.is_empty() {
        return function;
    }
    lower_pass(env, item, hints).0
}

fn lower_pass(
    env: &Env,
    item: &FnItem,
    hints: HashMap<(String, Pos), Type>,
) -> (Function, HashMap<(String, Pos), Type>) {
    let mut generics: HashSet<String> = item
        .imp
        .as_ref()
        .map(|i| i.generics.clone())
        .unwrap_or_default();
    generics.extend(item.sig.generics.type_params().map(|p| p.ident.to_string()));
    let self_ty = item.imp.as_ref().map(|i| i.self_ty.clone());
    let ret_ty = env.return_type(&item.sig.output, self_ty.as_ref(), &generics);
    let mut lw = FnLowerer {
        env,
        inf: Inference::default(),
        vars: Vec::new(),
        frames: vec![Vec::new()],
        degradations: Vec::new(),
        loops: Vec::new(),
        self_name: item.imp.as_ref().map(|i| i.type_name.clone()),
        self_ty,
        generics,
        returns: rules::returns_value(&item.sig.output),
        ret_ty: ret_ty.clone(),
        module: item.module.clone(),
        temps: 0,
        depth: 0,
        borrows: HashMap::new(),
        mode: Mode::Body,
        local_consts: HashMap::new(),
        nested_conds: Vec::new(),
        const_depth: 0,
        hints,
        decls: Vec::new(),
        closure_writes: HashMap::new(),
        mut_scrutinee: false,
    };
    let ret = lw.new_var("ret", ret_ty.clone(), VarKind::Ret);
    let mut prologue = Vec::new();
    let params = lw.params(item, &mut prologue);
    let contracts = lw.contracts(item, ret);
    let mut body = prologue;
    if item.sig.asyncness.is_some() {
        let span = lw.span(item.block);
        lw.degrade("async fn", span.clone(), "an async body runs as a future");
        body.push(Stmt::Opaque {
            reason: "an async body runs as a future".into(),
            span,
            defines: Vec::new(),
        });
    } else {
        let target = if lw.returns {
            Target::Return
        } else {
            Target::Discard
        };
        lw.block(item.block, target, &mut body);
    }
    let entry = lw.site(&item.sig.ident, SiteKind::Fn, true);
    let decls = std::mem::take(&mut lw.decls);
    let function = lw.finish(item, params, ret, entry, contracts, body);
    let hints = decls
        .into_iter()
        .filter_map(|(name, at, var)| {
            let ty = &function.vars.get(var.0 as usize)?.ty;
            (!ty.is_opaque()).then(|| ((name, at), ty.clone()))
        })
        .collect();
    (function, hints)
}

impl<'e, 'a> FnLowerer<'e, 'a> {
    fn finish(
        mut self,
        item: &FnItem,
        params: Vec<VarId>,
        ret: VarId,
        entry: Site,
        mut contracts: Vec<crate::ir::Contract>,
        mut body: Vec<Stmt>,
    ) -> Function {
        let inf = std::mem::take(&mut self.inf);
        let mut finish = |ty: &mut Type| *ty = inf.finish(ty);
        for var in &mut self.vars {
            finish(&mut var.ty);
        }
        Stmt::types_mut(&mut body, &mut finish);
        for contract in &mut contracts {
            contract.cond.types_mut(&mut finish);
        }
        let ret_ty = inf.finish(&self.ret_ty);
        self.degradations
            .sort_by_key(|d| (d.span.start, d.span.end));
        Function {
            name: item.name.clone(),
            module: item.module.clone(),
            vars: self.vars,
            params,
            ret_ty,
            ret,
            entry,
            instrumented: item.instrumented,
            contracts,
            body,
            degradations: self.degradations,
        }
    }

    // ---------------------------------------------------------------------------------
    // Variables and scopes.

    pub(crate) fn new_var(&mut self, name: &str, ty: Type, kind: VarKind) -> VarId {
        self.vars.push(Var {
            name: name.to_string(),
            ty,
            kind,
        });
        VarId(self.vars.len() as u32 - 1)
    }

    /// A fresh temporary of type `ty`.
    pub(crate) fn temp(&mut self, ty: Type) -> VarId {
        self.temps += 1;
        let name = format!("$t{}", self.temps);
        self.new_var(&name, ty, VarKind::Temp)
    }

    pub(crate) fn var_ty(&self, var: VarId) -> Type {
        self.vars
            .get(var.0 as usize)
            .map(|v| v.ty.clone())
            .unwrap_or(Type::Unit)
    }

    pub(crate) fn push_frame(&mut self) {
        self.frames.push(Vec::new());
    }

    pub(crate) fn pop_frame(&mut self) {
        if self.frames.len() > 1 {
            self.frames.pop();
        }
    }

    pub(crate) fn declare(&mut self, name: &str, binding: Binding) {
        if let Some(frame) = self.frames.last_mut() {
            frame.push((name.to_string(), binding));
        }
    }

    /// Declares a local variable of the user's code, bound at `at`.
    pub(crate) fn declare_local(&mut self, name: &str, ty: Type, at: Pos) -> VarId {
        if let Some(hint) = self.hints.get(&(name.to_string(), at)) {
            self.inf.unify(&ty, &hint.clone());
        }
        let var = self.new_var(name, ty, VarKind::Local);
        self.declare(name, Binding::Var(var));
        self.decls.push((name.to_string(), at, var));
        var
    }

    /// Where an identifier starts.
    pub(crate) fn pos_of(&self, ident: &syn::Ident) -> Pos {
        super::source::pos(ident.span().start())
    }

    /// What `name` refers to (constants' values see no local variable).
    pub(crate) fn lookup(&self, name: &str) -> Option<Binding> {
        if self.mode == Mode::Const {
            return None;
        }
        self.frames
            .iter()
            .rev()
            .flat_map(|f| f.iter().rev())
            .find(|(n, _)| n == name)
            .map(|(_, b)| b.clone())
    }

    /// The user's variables visible here, in declaration order, each name once.
    pub(crate) fn scope_vars(&self) -> Vec<VarId> {
        let mut visible: Vec<(&str, Option<VarId>)> = Vec::new();
        for (name, binding) in self.frames.iter().flatten() {
            visible.retain(|(n, _)| n != name);
            let var = match binding {
                Binding::Var(v)
                    if matches!(
                        self.vars.get(v.0 as usize).map(|v| v.kind),
                        Some(VarKind::Local | VarKind::Param { .. })
                    ) =>
                {
                    Some(*v)
                }
                _ => None,
            };
            visible.push((name, var));
        }
        visible.into_iter().filter_map(|(_, v)| v).collect()
    }

    /// Whether matching `e` binds by `&mut` (match ergonomics on a `&mut` value, or an
    /// explicit `&mut`): then bindings alias the scrutinee.
    pub(crate) fn is_mut_scrutinee(&self, e: &syn::Expr) -> bool {
        match rules::strip(e) {
            syn::Expr::Reference(r) => r.mutability.is_some(),
            syn::Expr::Path(p) => match p
                .path
                .get_ident()
                .and_then(|i| self.lookup(&i.unraw().to_string()))
            {
                Some(Binding::Var(v)) => {
                    matches!(
                        self.vars.get(v.0 as usize).map(|v| v.kind),
                        Some(VarKind::Param { mut_ref: true })
                    ) || self.is_borrow(v)
                }
                _ => false,
            },
            syn::Expr::MethodCall(m) => m.method.to_string().ends_with("_mut"),
            _ => false,
        }
    }

    /// Whether `var` holds a `&mut` borrow of another variable.
    pub(crate) fn is_borrow(&self, var: VarId) -> bool {
        self.borrows.contains_key(&var)
    }

    pub(crate) fn local_const(&self, name: &str) -> Option<(syn::Type, syn::Expr)> {
        self.local_consts.get(name).cloned()
    }

    // ---------------------------------------------------------------------------------
    // Sites and degradations.

    pub(crate) fn span(&self, node: &impl ToTokens) -> Span {
        self.env.source.span(node)
    }

    pub(crate) fn sites_on(&self) -> bool {
        self.mode == Mode::Body
    }

    pub(crate) fn site(&self, node: &impl ToTokens, kind: SiteKind, reported: bool) -> Site {
        Site {
            kind,
            span: self.span(node),
            reported,
        }
    }

    pub(crate) fn component(
        &self,
        node: &impl ToTokens,
        kind: SiteKind,
        reported: bool,
    ) -> Component {
        Component {
            site: self.site(node, kind, reported),
            scope: self.scope_vars(),
        }
    }

    pub(crate) fn degrade(&mut self, construct: &str, span: Span, reason: &str) {
        self.degradations.push(Degradation {
            construct: construct.to_string(),
            span,
            reason: reason.to_string(),
        });
    }

    /// A statement outside the subset: degraded, with the variables it may change.
    pub(crate) fn opaque_stmt(
        &mut self,
        node: &impl ToTokens,
        construct: &str,
        reason: &str,
        defines: Vec<VarId>,
    ) -> Stmt {
        let span = self.span(node);
        self.degrade(construct, span.clone(), reason);
        Stmt::Opaque {
            reason: reason.to_string(),
            span,
            defines,
        }
    }

    // ---------------------------------------------------------------------------------
    // Parameters and contracts.

    fn params(&mut self, item: &FnItem, prologue: &mut Vec<Stmt>) -> Vec<VarId> {
        let mut params = Vec::new();
        for input in &item.sig.inputs {
            match input {
                syn::FnArg::Receiver(r) => {
                    let (ty, mut_ref) =
                        super::receiver_type(r, self.self_ty.as_ref(), self.env, &self.generics);
                    if ty.is_opaque() {
                        let span = self.span(r);
                        self.degrade(
                            "parameter `self`",
                            span,
                            &format!("type {ty} is outside the subset"),
                        );
                    }
                    let var = self.new_var("self", ty, VarKind::Param { mut_ref });
                    self.declare("self", Binding::Var(var));
                    params.push(var);
                }
                syn::FnArg::Typed(t) => {
                    let ty = self
                        .env
                        .resolve(&t.ty, self.self_ty.as_ref(), &self.generics);
                    let mut_ref = super::types::is_mut_ref(&t.ty);
                    match rules::simple_binding(&t.pat) {
                        Some((ident, _)) => {
                            let name = ident.unraw().to_string();
                            if ty.is_opaque() {
                                let span = self.span(t);
                                self.degrade(
                                    &format!("parameter `{name}`"),
                                    span,
                                    &format!("type {ty} is outside the subset"),
                                );
                            }
                            let var = self.new_var(&name, ty, VarKind::Param { mut_ref });
                            self.declare(&name, Binding::Var(var));
                            params.push(var);
                        }
                        None => {
                            // A destructuring parameter: a parameter of its own, taken apart
                            // on entry.
                            let var =
                                self.new_var("$param", ty.clone(), VarKind::Param { mut_ref });
                            params.push(var);
                            let value = Expr::var(var, ty);
                            self.mut_scrutinee = mut_ref;
                            self.let_pattern(&t.pat, value, None, t, prologue);
                            self.mut_scrutinee = false;
                        }
                    }
                }
            }
        }
        params
    }

    fn contracts(&mut self, item: &FnItem, ret: VarId) -> Vec<crate::ir::Contract> {
        let mut out = Vec::new();
        let has_self = item.sig.receiver().is_some();
        if let Some(imp) = &item.imp
            && has_self
            && item.sig.constness.is_none()
        {
            for attr in imp.attrs {
                if let Some((super::Ours::Invariant, gate)) = super::ours_gated(attr) {
                    self.contract_attr(
                        attr,
                        crate::ir::ContractKind::Invariant,
                        gate,
                        ret,
                        &mut out,
                    );
                }
            }
        }
        for attr in item.attrs {
            let kind = match super::ours_gated(attr) {
                Some((super::Ours::Requires, gate)) => (crate::ir::ContractKind::Requires, gate),
                Some((super::Ours::Ensures, gate)) => (crate::ir::ContractKind::Ensures, gate),
                Some((super::Ours::Invariant, gate)) => (crate::ir::ContractKind::Invariant, gate),
                _ => continue,
            };
            self.contract_attr(attr, kind.0, kind.1, ret, &mut out);
        }
        out
    }

    // ---------------------------------------------------------------------------------
    // Blocks and statements.

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
    fn value_into(
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

    fn unit_into(&mut self, target: Target, out: &mut Vec<Stmt>) {
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
        let root = super::effects::place_root(borrowed).and_then(|n| match self.lookup(&n) {
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

    // Control flow.

    fn return_stmt(&mut self, r: &syn::ExprReturn, out: &mut Vec<Stmt>) {
        match &r.expr {
            Some(value) if self.returns => {
                let lowered = self.expr(value, out);
                self.inf.unify(&self.ret_ty.clone(), &lowered.ty);
                let component = (!rules::diverges(value) && self.sites_on())
                    .then(|| self.component(value, SiteKind::Return, true));
                out.push(Stmt::Return {
                    value: Some(lowered),
                    component,
                });
            }
            Some(value) => {
                self.expr_into(value, Target::Discard, out);
                out.push(Stmt::Return {
                    value: None,
                    component: None,
                });
            }
            None => out.push(Stmt::Return {
                value: None,
                component: None,
            }),
        }
    }

    fn break_stmt(&mut self, b: &syn::ExprBreak, out: &mut Vec<Stmt>) {
        let label = b.label.as_ref().map(|l| l.to_string());
        let frame = match &label {
            Some(l) => self
                .loops
                .iter()
                .rev()
                .find(|f| f.label.as_ref() == Some(l)),
            None => self.loops.last(),
        };
        let dest = frame.and_then(|f| f.value);
        if frame.is_none() {
            // A `break` out of a labeled block.
            let stmt = self.opaque_stmt(
                b,
                "`break` out of a block",
                "labeled blocks are outside the subset",
                Vec::new(),
            );
            out.push(stmt);
            return;
        }
        if let Some(value) = &b.expr {
            match dest {
                Some(var) => self.expr_into(value, Target::Assign(var), out),
                None => self.expr_into(value, Target::Discard, out),
            }
        }
        out.push(Stmt::Break(label));
    }

    /// An `if` as a statement: branches send their values to `target`.
    pub(crate) fn if_stmt(&mut self, e: &syn::ExprIf, target: Target, out: &mut Vec<Stmt>) {
        self.push_frame();
        let cond = self.condition(&e.cond, SiteKind::If, out);
        let mut then = Vec::new();
        self.bind(&cond.bindings, &mut then);
        self.block(&e.then_branch, target, &mut then);
        self.pop_frame();
        let mut otherwise = Vec::new();
        if let Some((_, else_branch)) = &e.else_branch {
            match &**else_branch {
                syn::Expr::If(nested) => self.if_stmt(nested, target, &mut otherwise),
                other => self.expr_into(other, target, &mut otherwise),
            }
        } else {
            self.unit_into(target, &mut otherwise);
        }
        out.push(Stmt::If {
            cond: cond.expr,
            branch: cond.branch,
            then,
            otherwise,
        });
    }

    /// A `match` as an `if` chain over the arms' pattern tests and guards. The last arm
    /// that has no guard is taken unconditionally (the match is exhaustive).
    fn match_stmt(&mut self, m: &syn::ExprMatch, target: Target, out: &mut Vec<Stmt>) {
        let mut_scrutinee = self.is_mut_scrutinee(&m.expr);
        let value = self.expr(&m.expr, out);
        let scrutinee = match &value.kind {
            ExprKind::Var(_) => value,
            _ => {
                let ty = value.ty.clone();
                let tmp = self.temp(ty.clone());
                out.push(Stmt::Let {
                    var: tmp,
                    init: Some(value),
                    component: None,
                });
                Expr::var(tmp, ty)
            }
        };
        let mut lowered = Vec::new();
        for arm in &m.arms {
            let pat = match &arm.pat {
                syn::Pat::Guard(g) => &*g.pat,
                other => other,
            };
            self.mut_scrutinee = mut_scrutinee;
            let result = self.pattern(pat, &scrutinee);
            self.mut_scrutinee = false;
            match result {
                Ok(p) => lowered.push(p),
                Err(reason) => {
                    let defines = self.defines_expr_of_match(m);
                    let stmt = self.opaque_stmt(m, "`match`", &reason, defines);
                    out.push(stmt);
                    if target != Target::Discard {
                        self.opaque_value_into(m, target, out);
                    }
                    return;
                }
            }
        }
        let stmts = self.arms(m, &lowered, 0, target);
        out.extend(stmts);
    }

    fn defines_expr_of_match(&mut self, m: &syn::ExprMatch) -> Vec<VarId> {
        self.defines(&syn::Expr::Match(m.clone()))
    }

    /// After an opaque statement standing for a whole value-producing construct: the value
    /// is opaque too.
    fn opaque_value_into(&mut self, node: &impl ToTokens, target: Target, out: &mut Vec<Stmt>) {
        let ty = self.inf.fresh();
        let value = Expr {
            kind: ExprKind::Opaque {
                reason: "the value of an opaque construct".into(),
                span: self.span(node),
                defines: Vec::new(),
            },
            ty,
        };
        self.value_into(value, node, false, target, out);
    }

    fn arms(
        &mut self,
        m: &syn::ExprMatch,
        lowered: &[super::pattern::Lowered],
        at: usize,
        target: Target,
    ) -> Vec<Stmt> {
        let (Some(arm), Some(pat)) = (m.arms.get(at), lowered.get(at)) else {
            return Vec::new();
        };
        if self.depth > MAX_DEPTH {
            let stmt = self.opaque_stmt(arm, "`match` arm", "nested too deeply", Vec::new());
            return vec![stmt];
        }
        self.depth += 1;
        self.push_frame();
        for b in &pat.bindings {
            self.declare(&b.name, Binding::Alias(b.value.clone()));
        }
        let mut guard_prep = Vec::new();
        let guard = match &arm.pat {
            syn::Pat::Guard(g) => {
                let cond = self.condition(&g.guard, SiteKind::Guard, &mut guard_prep);
                Some((cond, &g.guard))
            }
            _ => None,
        };
        let mut body = Vec::new();
        self.push_frame();
        self.bind(&pat.bindings, &mut body);
        if let Some((cond, _)) = &guard {
            self.bind(&cond.bindings, &mut body);
        }
        if target != Target::Return && self.sites_on() && rules::reports_arm(&arm.body) {
            self.arm_value(&arm.body, target, &mut body);
        } else {
            self.expr_into(&arm.body, target, &mut body);
        }
        self.pop_frame();
        self.pop_frame();
        let guard_expr = match guard {
            Some((_, node)) if !guard_prep.is_empty() => {
                let ty = Type::Bool;
                let span = self.span(node);
                self.degrade("match guard", span.clone(), "the guard needs statements");
                Some(Expr {
                    kind: ExprKind::Opaque {
                        reason: "the guard needs statements".into(),
                        span,
                        defines: Vec::new(),
                    },
                    ty,
                })
            }
            Some((cond, _)) => Some(match cond.branch {
                Some(component) => Expr {
                    kind: ExprKind::Branch(Box::new(cond.expr), Box::new(component)),
                    ty: Type::Bool,
                },
                None => cond.expr,
            }),
            None => None,
        };
        let last_unguarded = guard_expr.is_none() && at + 1 == m.arms.len();
        let cond = match (pat.test.clone(), guard_expr) {
            (Some(t), Some(g)) => Some(and(t, g)),
            (Some(t), None) => Some(t),
            (None, Some(g)) => Some(g),
            (None, None) => None,
        };
        let result = match cond {
            Some(cond) if !last_unguarded => {
                let otherwise = self.arms(m, lowered, at + 1, target);
                vec![Stmt::If {
                    cond,
                    branch: None,
                    then: body,
                    otherwise,
                }]
            }
            _ => body,
        };
        self.depth -= 1;
        result
    }

    /// The value of a match arm that is an `Arm` site: into the match's temporary (or a
    /// temporary of its own, where the match's value is dropped), through the site.
    fn arm_value(&mut self, body: &syn::Expr, target: Target, out: &mut Vec<Stmt>) {
        let value = self.expr(body, out);
        let component = Some(self.component(body, SiteKind::Arm, true));
        match target {
            Target::Assign(var) => {
                self.inf.unify(&self.var_ty(var), &value.ty);
                out.push(Stmt::Assign {
                    place: Place::Var(var),
                    value,
                    component,
                });
            }
            Target::Discard | Target::Return => {
                let tmp = self.temp(value.ty.clone());
                out.push(Stmt::Let {
                    var: tmp,
                    init: Some(value),
                    component,
                });
            }
        }
    }

    fn label(label: &Option<syn::Label>) -> Option<String> {
        label.as_ref().map(|l| l.name.to_string())
    }

    fn while_loop(&mut self, w: &syn::ExprWhile, out: &mut Vec<Stmt>) {
        let (while_token, cond) = (&w.while_token, &w.cond);
        let head = self.site(&quote!(#while_token #cond), SiteKind::Loop, true);
        let label = Self::label(&w.label);
        self.loops.push(LoopFrame {
            label: label.clone(),
            value: None,
        });
        self.push_frame();
        let mut prep = Vec::new();
        let lowered = self.condition(&w.cond, SiteKind::While, &mut prep);
        let mut body = Vec::new();
        self.bind(&lowered.bindings, &mut body);
        self.block(&w.body, Target::Discard, &mut body);
        self.pop_frame();
        self.loops.pop();
        if prep.is_empty() && lowered.bindings.is_empty() && !rules::contains_let(&w.cond) {
            out.push(Stmt::While {
                label,
                cond: lowered.expr,
                branch: lowered.branch,
                head,
                body,
            });
        } else {
            // `while let`, or a condition that needs statements: a loop evaluating the
            // condition first in every iteration.
            prep.push(Stmt::If {
                cond: lowered.expr,
                branch: lowered.branch,
                then: body,
                otherwise: vec![Stmt::Break(None)],
            });
            out.push(Stmt::Loop {
                label,
                head,
                body: prep,
            });
        }
    }

    fn loop_stmt(&mut self, l: &syn::ExprLoop, target: Target, out: &mut Vec<Stmt>) {
        let head = self.site(&l.loop_token, SiteKind::Loop, true);
        let label = Self::label(&l.label);
        let value = match target {
            Target::Assign(var) => Some(var),
            Target::Return => Some(self.temp(self.ret_ty.clone())),
            Target::Discard => None,
        };
        if let (Some(var), Target::Return) = (value, target) {
            out.push(Stmt::Let {
                var,
                init: None,
                component: None,
            });
        }
        self.loops.push(LoopFrame {
            label: label.clone(),
            value,
        });
        let mut body = Vec::new();
        self.block(&l.body, Target::Discard, &mut body);
        self.loops.pop();
        out.push(Stmt::Loop { label, head, body });
        if let (Some(var), Target::Return) = (value, target) {
            out.push(Stmt::Return {
                value: Some(Expr::var(var, self.var_ty(var))),
                component: None,
            });
        }
    }

    fn for_loop(&mut self, f: &syn::ExprForLoop, out: &mut Vec<Stmt>) {
        let (for_token, pat, in_token, iterated) = (&f.for_token, &f.pat, &f.in_token, &f.expr);
        let head = self.site(
            &quote!(#for_token #pat #in_token #iterated),
            SiteKind::Loop,
            true,
        );
        let label = Self::label(&f.label);
        let iteration = match rules::for_range(&f.expr) {
            Some((range, Some(reverse))) => self.range_iteration(range, reverse, out),
            Some((_, None)) => {
                Err("an iterator adapter over a range (`step_by`, `skip`, `take`)".to_string())
            }
            None => self.elements_iteration(&f.expr, out),
        };
        let (iteration, elem_ty, enumerate) = match iteration {
            Ok(it) => it,
            Err(reason) => {
                let defines = self.defines(&syn::Expr::ForLoop(f.clone()));
                let stmt = self.opaque_stmt(f, "`for` loop", &reason, defines);
                out.push(stmt);
                return;
            }
        };
        self.loops.push(LoopFrame {
            label: label.clone(),
            value: None,
        });
        self.push_frame();
        let mut body = Vec::new();
        let (index_pat, elem_pat) = match (&**pat, enumerate) {
            (syn::Pat::Tuple(t), true) if t.elems.len() == 2 => (t.elems.first(), t.elems.last()),
            (_, true) => (None, None),
            (p, false) => (None, Some(p)),
        };
        let iteration = match (iteration, index_pat) {
            (Iteration::Elements { seq, .. }, Some(ip)) => {
                let index = match rules::simple_binding(strip_ref_pat(ip)) {
                    Some((ident, _)) => self.declare_local(
                        &ident.unraw().to_string(),
                        Type::Int(crate::ir::IntType::Usize),
                        self.pos_of(ident),
                    ),
                    None => self.temp(Type::Int(crate::ir::IntType::Usize)),
                };
                Iteration::Elements {
                    seq,
                    index: Some(index),
                }
            }
            (it, _) => it,
        };
        let var = match elem_pat.map(strip_ref_pat) {
            Some(p) if rules::simple_binding(p).is_some() => {
                let (ident, ty) = rules::simple_binding(p).unwrap_or_else(|| unreachable!());
                if let Some(ty) = ty {
                    let ty = self.env.resolve(ty, self.self_ty.as_ref(), &self.generics);
                    self.inf.unify(&ty, &elem_ty);
                }
                self.declare_local(
                    &ident.unraw().to_string(),
                    elem_ty.clone(),
                    self.pos_of(ident),
                )
            }
            Some(syn::Pat::Wild(_)) | None => self.temp(elem_ty.clone()),
            Some(p) => {
                let tmp = self.temp(elem_ty.clone());
                self.let_pattern(p, Expr::var(tmp, elem_ty.clone()), None, p, &mut body);
                tmp
            }
        };
        self.block(&f.body, Target::Discard, &mut body);
        self.pop_frame();
        self.loops.pop();
        out.push(Stmt::For {
            label,
            var,
            iteration,
            head,
            body,
        });
    }

    fn range_iteration(
        &mut self,
        range: &syn::ExprRange,
        reverse: bool,
        out: &mut Vec<Stmt>,
    ) -> Result<(Iteration, Type, bool), String> {
        let (Some(start), Some(end)) = (&range.start, &range.end) else {
            return Err("a range without a start".into());
        };
        let start = self.expr(start, out);
        let bound_node = range.end.as_deref();
        let end_value = self.expr(end, out);
        self.inf.unify(&start.ty, &end_value.ty);
        let bound =
            bound_node.map(|node| self.component(node, SiteKind::Bound, !rules::diverges(node)));
        let ty = start.ty.clone();
        Ok((
            Iteration::Range {
                start,
                end: end_value,
                inclusive: matches!(range.limits, syn::RangeLimits::Closed(_)),
                reverse,
                bound,
            },
            ty,
            false,
        ))
    }

    /// `for x in v`, `v.iter()`, `&v`, `v.iter().enumerate()` (also with `.copied()`,
    /// `.cloned()`, `.into_iter()`).
    fn elements_iteration(
        &mut self,
        iterated: &syn::Expr,
        out: &mut Vec<Stmt>,
    ) -> Result<(Iteration, Type, bool), String> {
        let mut expr = rules::strip(iterated);
        let mut enumerate = false;
        loop {
            match expr {
                syn::Expr::MethodCall(m) if m.args.is_empty() => {
                    let name = m.method.to_string();
                    match name.as_str() {
                        "enumerate" if !enumerate => enumerate = true,
                        "iter" | "into_iter" | "copied" | "cloned" => {}
                        _ => return Err(format!("iteration over `.{name}()`")),
                    }
                    expr = rules::strip(&m.receiver);
                }
                syn::Expr::Reference(r) if r.mutability.is_none() => expr = rules::strip(&r.expr),
                syn::Expr::Reference(_) => return Err("iteration over `&mut` elements".into()),
                _ => break,
            }
        }
        let seq = self.expr(expr, out);
        let elem = match self.inf.shallow(&seq.ty) {
            Type::Seq { elem, .. } => *elem,
            Type::Infer(_) => {
                let elem = self.inf.fresh();
                self.inf.unify(
                    &seq.ty,
                    &Type::Seq {
                        elem: Box::new(elem.clone()),
                        len: None,
                    },
                );
                elem
            }
            other => return Err(format!("iteration over a value of type {other}")),
        };
        Ok((Iteration::Elements { seq, index: None }, elem, enumerate))
    }

    // Macros in statement position.

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
    super::source::pos(local.let_token.span.start())
}

/// The variables a pattern binds, by name.
pub(crate) fn pattern_names(pat: &syn::Pat) -> Vec<String> {
    struct Names(Vec<String>);
    impl<'ast> syn::visit::Visit<'ast> for Names {
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            self.0.push(p.ident.unraw().to_string());
            syn::visit::visit_pat_ident(self, p);
        }
        fn visit_expr(&mut self, _: &'ast syn::Expr) {}
    }
    let mut names = Names(Vec::new());
    syn::visit::Visit::visit_pat(&mut names, pat);
    names.0
}

fn strip_ref_pat(pat: &syn::Pat) -> &syn::Pat {
    match pat {
        syn::Pat::Reference(r) => strip_ref_pat(&r.pat),
        syn::Pat::Paren(p) => strip_ref_pat(&p.pat),
        other => other,
    }
}

/// The operator of a compound assignment.
pub(crate) fn compound_op(op: &syn::BinOp) -> Option<BinOp> {
    Some(match op {
        syn::BinOp::AddAssign(_) => BinOp::Add,
        syn::BinOp::SubAssign(_) => BinOp::Sub,
        syn::BinOp::MulAssign(_) => BinOp::Mul,
        syn::BinOp::DivAssign(_) => BinOp::Div,
        syn::BinOp::RemAssign(_) => BinOp::Rem,
        syn::BinOp::BitXorAssign(_) => BinOp::BitXor,
        syn::BinOp::BitAndAssign(_) => BinOp::BitAnd,
        syn::BinOp::BitOrAssign(_) => BinOp::BitOr,
        syn::BinOp::ShlAssign(_) => BinOp::Shl,
        syn::BinOp::ShrAssign(_) => BinOp::Shr,
        _ => return None,
    })
}

/// Whether evaluating the expression may do more than compute a value (calls, opaque
/// parts): then it stays as a statement.
pub(crate) fn has_effects(expr: &Expr) -> bool {
    let mut effects = false;
    expr.walk(&mut |e| {
        if matches!(e.kind, ExprKind::Call { .. } | ExprKind::Opaque { .. }) {
            effects = true;
        }
    });
    effects
}

pub(crate) fn unit() -> Expr {
    Expr {
        kind: ExprKind::Lit(Lit::Unit),
        ty: Type::Unit,
    }
}

pub(crate) fn not(e: Expr) -> Expr {
    Expr {
        kind: ExprKind::Unary(crate::ir::UnOp::Not, Box::new(e)),
        ty: Type::Bool,
    }
}

pub(crate) fn and(a: Expr, b: Expr) -> Expr {
    Expr {
        kind: ExprKind::Binary(BinOp::And, Box::new(a), Box::new(b)),
        ty: Type::Bool,
    }
}
