//! The variables an opaque construct may change, read off its syntax: roots of assigned
//! places, of `&mut` borrows, of receivers of methods that are not known to be read-only,
//! and `&mut` variables passed on. An over-approximation: a name declared inside the
//! construct that shadows an outer variable counts as the outer variable.

use std::collections::BTreeSet;

use syn::ext::IdentExt;
use syn::visit::{self, Visit};

use super::body::{Binding, FnLowerer};
use super::expr::READ_ONLY_METHODS;
use crate::ir::{VarId, VarKind};

/// The variable a place belongs to (`x` of `x`, `x.f[i]`, `*x`).
pub(crate) fn place_root(expr: &syn::Expr) -> Option<String> {
    match expr {
        syn::Expr::Path(p) => p.path.get_ident().map(|i| i.unraw().to_string()),
        syn::Expr::Field(f) => place_root(&f.base),
        syn::Expr::Index(i) => place_root(&i.expr),
        syn::Expr::Unary(u) => place_root(&u.expr),
        syn::Expr::Paren(p) => place_root(&p.expr),
        syn::Expr::Group(g) => place_root(&g.expr),
        syn::Expr::Reference(r) => place_root(&r.expr),
        syn::Expr::MethodCall(m) => place_root(&m.receiver),
        _ => None,
    }
}

#[derive(Default)]
struct Writes {
    /// Roots certainly written.
    written: BTreeSet<String>,
    /// Variables passed by name (written when they hold a `&mut`).
    passed: BTreeSet<String>,
}

impl<'ast> Visit<'ast> for Writes {
    fn visit_expr(&mut self, e: &'ast syn::Expr) {
        match e {
            syn::Expr::Assign(a) => self.written.extend(place_root(&a.left)),
            syn::Expr::Binary(b) if super::body::compound_op(&b.op).is_some() => {
                self.written.extend(place_root(&b.left))
            }
            syn::Expr::Reference(r) if r.mutability.is_some() => {
                self.written.extend(place_root(&r.expr))
            }
            syn::Expr::MethodCall(m) => {
                let name = m.method.to_string();
                if !READ_ONLY_METHODS.contains(&name.as_str()) {
                    self.written.extend(place_root(&m.receiver));
                }
                for arg in &m.args {
                    self.passed.extend(place_root(arg));
                }
            }
            syn::Expr::Call(c) => {
                for arg in &c.args {
                    self.passed.extend(place_root(arg));
                }
            }
            _ => {}
        }
        visit::visit_expr(self, e);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        // Macro arguments that parse as expressions are looked into (`write!(s, ..)` and
        // the like change their first argument).
        if let Ok(args) = mac.parse_body_with(
            syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated,
        ) {
            for arg in &args {
                self.visit_expr(arg);
            }
            if let Some(first) = args.first()
                && mac
                    .path
                    .segments
                    .last()
                    .is_some_and(|s| s.ident == "write" || s.ident == "writeln")
            {
                self.written.extend(place_root(first));
            }
        }
    }
}

impl FnLowerer<'_, '_> {
    /// The variables in scope that `node` may change.
    pub(crate) fn defines(&self, node: &syn::Expr) -> Vec<VarId> {
        let mut writes = Writes::default();
        writes.visit_expr(node);
        self.resolve_writes(writes)
    }

    fn resolve_writes(&self, writes: Writes) -> Vec<VarId> {
        let mut out: Vec<VarId> = Vec::new();
        let var = |name: &String| match self.lookup(name) {
            Some(Binding::Var(v)) => Some(v),
            _ => None,
        };
        for name in &writes.written {
            out.extend(var(name));
        }
        for name in &writes.passed {
            if let Some(v) = var(name) {
                let mut_ref = matches!(
                    self.vars.get(v.0 as usize).map(|v| v.kind),
                    Some(VarKind::Param { mut_ref: true })
                ) || self.is_borrow(v);
                if mut_ref {
                    out.push(v);
                }
            }
        }
        out.sort();
        out.dedup();
        out
    }
}
