//! The lowering of one function: parameters, contracts, and the statements of its body
//! (blocks, `let`, assignments, `if`/`match` as `if` chains, loops, `return`/`break`,
//! assertions). Expressions are in [`super::expr`], patterns in [`super::pattern`].
//!
//! Control flow is lowered with a destination: a construct whose value is discarded,
//! returned, or stored into a temporary pushes that destination into its branches, so that
//! `let x = match … { … }` and a tail `if` need no value-producing statements.

mod control;
mod stmt;

use std::collections::{HashMap, HashSet};

use autodebug_runtime::protocol::SiteKind;
use quote::ToTokens;
use syn::ext::IdentExt;

use super::types::Inference;
use super::{Env, FnItem, rules};
use crate::ir::{
    BinOp, Component, Degradation, Expr, ExprKind, Function, Lit, Pos, Site, Span, Stmt, Type, Var,
    VarId, VarKind,
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
