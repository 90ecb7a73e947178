//! Which variables must never be borrowed by a scope closure: those that are mutably
//! borrowed somewhere in the body (`&mut x`, `ref mut` bindings into `x`, `x.iter_mut()`)
//! or mutated by a closure (which holds a unique borrow for as long as the closure lives).
//! A shared borrow of such a variable may meet a live `&mut` and fail to compile, so they
//! are excluded by name, for the whole body.

use autodebug_syntax::is_compound;
use proc_macro2::{TokenStream, TokenTree};
use std::collections::HashSet;
use syn::punctuated::Punctuated;
use syn::visit::{self, Visit};
use syn::{Expr, Pat, Token};

/// The names of the variables of `block` that scope closures must not borrow.
pub(super) fn excluded_names(block: &syn::Block) -> HashSet<String> {
    let mut collector = Collector {
        names: HashSet::new(),
        closure_depth: 0,
    };
    collector.visit_block(block);
    collector.names
}

struct Collector {
    names: HashSet<String>,
    /// How many closures (or async blocks) enclose the current node.
    closure_depth: usize,
}

impl Collector {
    /// Excludes the variable a place expression (`x`, `x.f`, `x[i]`, `*x`) is rooted in.
    fn exclude_root(&mut self, expr: &Expr) {
        match expr {
            Expr::Path(p) => {
                if let Some(ident) = p.path.get_ident() {
                    self.names.insert(ident.to_string());
                }
            }
            Expr::Field(f) => self.exclude_root(&f.base),
            Expr::Index(i) => self.exclude_root(&i.expr),
            Expr::Paren(p) => self.exclude_root(&p.expr),
            Expr::Group(g) => self.exclude_root(&g.expr),
            Expr::Unary(u) => self.exclude_root(&u.expr),
            Expr::MethodCall(m) => self.exclude_root(&m.receiver),
            Expr::Reference(r) => self.exclude_root(&r.expr),
            Expr::Tuple(t) => t.elems.iter().for_each(|e| self.exclude_root(e)),
            _ => {}
        }
    }

    /// `&mut x` and `ref mut x` in the raw tokens of a macro call, which syn does not parse.
    fn scan_tokens(&mut self, tokens: TokenStream) {
        let trees: Vec<TokenTree> = tokens.into_iter().collect();
        for (i, tree) in trees.iter().enumerate() {
            if let TokenTree::Group(g) = tree {
                self.scan_tokens(g.stream());
            }
            let is_mut_borrow = match tree {
                TokenTree::Punct(p) => p.as_char() == '&',
                TokenTree::Ident(id) => id == "ref",
                _ => false,
            };
            if let (true, Some(TokenTree::Ident(m)), Some(TokenTree::Ident(name))) =
                (is_mut_borrow, trees.get(i + 1), trees.get(i + 2))
                && m == "mut"
            {
                self.names.insert(name.to_string());
            }
        }
    }
}

fn has_ref_mut(pat: &Pat) -> bool {
    struct Finder(bool);
    impl<'ast> Visit<'ast> for Finder {
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            self.0 |= p.by_ref.is_some() && p.mutability.is_some();
            visit::visit_pat_ident(self, p);
        }
    }
    let mut finder = Finder(false);
    finder.visit_pat(pat);
    finder.0
}

impl<'ast> Visit<'ast> for Collector {
    fn visit_expr_reference(&mut self, r: &'ast syn::ExprReference) {
        if r.mutability.is_some() {
            self.exclude_root(&r.expr);
        }
        visit::visit_expr_reference(self, r);
    }

    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        // `row.iter_mut()`, `v.as_mut()`, `a.split_at_mut(i)`: an autoref `&mut` that may
        // stay alive (an iterator, a slice) while a component runs.
        if m.method.to_string().contains("mut") {
            self.exclude_root(&m.receiver);
        }
        visit::visit_expr_method_call(self, m);
    }

    fn visit_expr_raw_addr(&mut self, r: &'ast syn::ExprRawAddr) {
        if matches!(r.mutability, syn::PointerMutability::Mut(_)) {
            self.exclude_root(&r.expr);
        }
        visit::visit_expr_raw_addr(self, r);
    }

    fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
        if p.by_ref.is_some() && p.mutability.is_some() {
            self.names.insert(p.ident.to_string());
        }
        visit::visit_pat_ident(self, p);
    }

    fn visit_local(&mut self, local: &'ast syn::Local) {
        if let Some(init) = &local.init
            && has_ref_mut(&local.pat)
        {
            self.exclude_root(&init.expr);
        }
        visit::visit_local(self, local);
    }

    fn visit_expr_match(&mut self, m: &'ast syn::ExprMatch) {
        if m.arms.iter().any(|arm| has_ref_mut(&arm.pat)) {
            self.exclude_root(&m.expr);
        }
        visit::visit_expr_match(self, m);
    }

    fn visit_expr_let(&mut self, l: &'ast syn::ExprLet) {
        if has_ref_mut(&l.pat) {
            self.exclude_root(&l.expr);
        }
        visit::visit_expr_let(self, l);
    }

    fn visit_expr_for_loop(&mut self, f: &'ast syn::ExprForLoop) {
        if has_ref_mut(&f.pat) {
            self.exclude_root(&f.expr);
        }
        visit::visit_expr_for_loop(self, f);
    }

    fn visit_expr_closure(&mut self, c: &'ast syn::ExprClosure) {
        self.closure_depth += 1;
        visit::visit_expr_closure(self, c);
        self.closure_depth -= 1;
    }

    fn visit_expr_async(&mut self, a: &'ast syn::ExprAsync) {
        self.closure_depth += 1;
        visit::visit_expr_async(self, a);
        self.closure_depth -= 1;
    }

    fn visit_expr_assign(&mut self, a: &'ast syn::ExprAssign) {
        if self.closure_depth > 0 {
            self.exclude_root(&a.left);
        }
        visit::visit_expr_assign(self, a);
    }

    fn visit_expr_binary(&mut self, b: &'ast syn::ExprBinary) {
        if self.closure_depth > 0 && is_compound(&b.op) {
            self.exclude_root(&b.left);
        }
        visit::visit_expr_binary(self, b);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.scan_tokens(mac.tokens.clone());
        // Most macros (`assert!`, `println!`, `vec!`) take expressions: parse them to find
        // closures that mutate variables.
        if let Ok(args) = mac.parse_body_with(Punctuated::<Expr, Token![,]>::parse_terminated) {
            for arg in &args {
                self.visit_expr(arg);
            }
        }
    }

    fn visit_item(&mut self, _: &'ast syn::Item) {
        // Nested items have their own variables.
    }
}
