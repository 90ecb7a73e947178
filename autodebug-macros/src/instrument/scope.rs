//! The variables a component hook may read: a stack of lexical scopes with, for every
//! binding, whether its value is known to be `Copy` (so that borrowing it in the scope
//! closure can never meet a move), and the syntactic rules that decide it.

use proc_macro2::TokenStream;
use quote::ToTokens;
use std::collections::HashSet;
use syn::{BinOp, Expr, Lit, Pat, Type, UnOp};

/// What is known of a binding's type. Bindings with no kind are in scope (they shadow
/// outer ones) but are never captured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    /// A primitive scalar (integer, float, `bool`, `char`): `Copy`, and arithmetic on it
    /// yields another scalar.
    Scalar,
    /// Some other `Copy` value (a shared reference, an element read out of an index):
    /// safe to borrow, but arithmetic on it may produce an owned, non-`Copy` value
    /// (`&BigInt + &BigInt`).
    Copy,
}

struct Binding {
    /// The name as written (`r#type` stays raw, so that lookups by path text agree).
    name: String,
    /// The tokens that name the variable in generated code (the user's own ident, so
    /// that hygiene resolves it exactly as the user's code does).
    tokens: TokenStream,
    kind: Option<Kind>,
}

/// The lexical scopes open at the current point of the walk, innermost last.
pub(super) struct Scopes {
    frames: Vec<Vec<Binding>>,
    /// The indices in `frames` of the scopes opened by [`Scopes::push_barrier`].
    barriers: Vec<usize>,
    /// Names that are mutably borrowed or mutated by a closure somewhere in the body:
    /// borrowing them in a scope closure could conflict with a live `&mut`.
    excluded: HashSet<String>,
    /// Whether the function's receiver is `&self` or `&mut self`: then a field read out of
    /// `self` by value must be `Copy`.
    pub(super) self_by_reference: bool,
}

impl Scopes {
    pub(super) fn new(excluded: HashSet<String>) -> Scopes {
        Scopes {
            frames: vec![Vec::new()],
            barriers: Vec::new(),
            excluded,
            self_by_reference: false,
        }
    }

    pub(super) fn push(&mut self) {
        self.frames.push(Vec::new());
    }

    pub(super) fn pop(&mut self) {
        self.frames.pop();
        if self.barriers.last() == Some(&self.frames.len()) {
            self.barriers.pop();
        }
    }

    /// Opens a scope whose hooks capture nothing declared outside it (a closure's body):
    /// outer bindings are still found by [`Scopes::lookup`], but [`Scopes::captures`]
    /// leaves them out. Closed by [`Scopes::pop`].
    pub(super) fn push_barrier(&mut self) {
        self.barriers.push(self.frames.len());
        self.frames.push(Vec::new());
    }

    /// Declares a binding in the innermost scope; it hides any outer binding of that name.
    pub(super) fn declare(&mut self, name: String, tokens: TokenStream, kind: Option<Kind>) {
        if let Some(frame) = self.frames.last_mut() {
            frame.push(Binding { name, tokens, kind });
        }
    }

    /// Declares every variable a pattern binds, none of them capturable (their types are
    /// unknown).
    pub(super) fn declare_pattern(&mut self, pat: &Pat) {
        let mut idents = Vec::new();
        pattern_idents(pat, &mut idents);
        for ident in idents {
            self.declare(ident.to_string(), ident.to_token_stream(), None);
        }
    }

    /// `None` when `name` is not a local variable (a constant, a static, a function);
    /// otherwise the kind of the visible binding.
    pub(super) fn lookup(&self, name: &str) -> Option<Option<Kind>> {
        self.frames
            .iter()
            .rev()
            .flat_map(|f| f.iter().rev())
            .find(|b| b.name == name)
            .map(|b| b.kind)
    }

    /// The visible capturable bindings, in the order they were declared, each name once.
    pub(super) fn captures(&self) -> Vec<(String, TokenStream)> {
        let mut visible: Vec<&Binding> = Vec::new();
        let from = self.barriers.last().copied().unwrap_or(0);
        for binding in self.frames[from..].iter().flatten() {
            visible.retain(|b| b.name != binding.name);
            visible.push(binding);
        }
        visible
            .into_iter()
            .filter(|b| b.kind.is_some() && !self.excluded.contains(&b.name))
            .map(|b| {
                (
                    b.name.trim_start_matches("r#").to_string(),
                    b.tokens.clone(),
                )
            })
            .collect()
    }

    /// The kind of the value of `expr` when it is syntactically certain to be `Copy`.
    /// Used for `let x = expr;` without a type annotation.
    pub(super) fn expr_kind(&self, expr: &Expr) -> Option<Kind> {
        match expr {
            Expr::Lit(lit) => match lit.lit {
                Lit::Int(_) | Lit::Float(_) | Lit::Bool(_) | Lit::Char(_) | Lit::Byte(_) => {
                    Some(Kind::Scalar)
                }
                // `&'static str`, `&'static [u8; N]`, `&'static CStr`: shared references.
                Lit::Str(_) | Lit::ByteStr(_) | Lit::CStr(_) => Some(Kind::Copy),
                _ => None,
            },
            Expr::Paren(p) => self.expr_kind(&p.expr),
            Expr::Group(g) => self.expr_kind(&g.expr),
            Expr::Block(b) if b.label.is_none() => match b.block.stmts.as_slice() {
                [syn::Stmt::Expr(inner, None)] => self.expr_kind(inner),
                _ => None,
            },
            Expr::Unary(u) => match u.op {
                UnOp::Neg(_) | UnOp::Not(_) => {
                    (self.expr_kind(&u.expr) == Some(Kind::Scalar)).then_some(Kind::Scalar)
                }
                // Moving out of `*r` compiles only when the target is `Copy` (a `Box` would
                // allow the move, but a `Box` binding is never capturable).
                UnOp::Deref(_) => self.expr_kind(&u.expr).map(|_| Kind::Copy),
                _ => None,
            },
            Expr::Binary(b) => match b.op {
                BinOp::Eq(_)
                | BinOp::Ne(_)
                | BinOp::Lt(_)
                | BinOp::Le(_)
                | BinOp::Gt(_)
                | BinOp::Ge(_)
                | BinOp::And(_)
                | BinOp::Or(_) => Some(Kind::Scalar),
                BinOp::Add(_)
                | BinOp::Sub(_)
                | BinOp::Mul(_)
                | BinOp::Div(_)
                | BinOp::Rem(_)
                | BinOp::BitXor(_)
                | BinOp::BitAnd(_)
                | BinOp::BitOr(_)
                | BinOp::Shl(_)
                | BinOp::Shr(_) => (self.expr_kind(&b.left) == Some(Kind::Scalar)
                    && self.expr_kind(&b.right) == Some(Kind::Scalar))
                .then_some(Kind::Scalar),
                _ => None,
            },
            // `as` only converts between primitives (and raw pointers): always `Copy`.
            Expr::Cast(_) => Some(Kind::Scalar),
            // Moving out of an index compiles only for `Copy` elements.
            Expr::Index(_) => Some(Kind::Copy),
            Expr::MethodCall(m) if m.method == "len" && m.args.is_empty() => Some(Kind::Scalar),
            Expr::Path(p) => match p.path.get_ident() {
                Some(ident) if p.qself.is_none() => self.lookup(&ident.to_string()).flatten(),
                _ => None,
            },
            // Moving a field out of something borrowed compiles only for `Copy` fields.
            Expr::Field(f) if self.is_borrowed_root(&f.base) => Some(Kind::Copy),
            _ => None,
        }
    }

    /// Whether `expr` (a chain of fields) is rooted in a shared or `Copy` value, so that a
    /// field read out of it by value must be `Copy`.
    fn is_borrowed_root(&self, expr: &Expr) -> bool {
        match expr {
            Expr::Field(f) => self.is_borrowed_root(&f.base),
            Expr::Paren(p) => self.is_borrowed_root(&p.expr),
            Expr::Path(p) => match p.path.get_ident() {
                Some(ident) if p.qself.is_none() => {
                    let name = ident.to_string();
                    (name == "self" && self.self_by_reference)
                        || self.lookup(&name).flatten().is_some()
                }
                _ => false,
            },
            _ => false,
        }
    }

    /// Whether an operand of a comparison can be evaluated a second time, after the
    /// condition, without side effects, panics or moves. `by_value` is set for operands of
    /// arithmetic, which consume their value.
    pub(super) fn is_pure(&self, expr: &Expr, by_value: bool) -> bool {
        match expr {
            Expr::Lit(_) => true,
            Expr::Paren(p) => self.is_pure(&p.expr, by_value),
            Expr::Group(g) => self.is_pure(&g.expr, by_value),
            Expr::Path(p) => {
                if !by_value {
                    return true;
                }
                match p.path.get_ident() {
                    // A local by value must be `Copy`; constants are fresh values per use.
                    Some(ident) if p.qself.is_none() => match self.lookup(&ident.to_string()) {
                        Some(kind) => kind.is_some(),
                        None => ident != "self",
                    },
                    _ => true,
                }
            }
            Expr::Field(f) => {
                self.is_pure(&f.base, false) && (!by_value || self.is_borrowed_root(&f.base))
            }
            // Reading an element by value requires `Copy`, so `by_value` adds no risk.
            Expr::Index(i) => self.is_pure(&i.expr, false) && self.is_pure(&i.index, true),
            Expr::MethodCall(m) => {
                m.method == "len" && m.args.is_empty() && self.is_pure(&m.receiver, false)
            }
            Expr::Reference(r) => r.mutability.is_none() && self.is_pure(&r.expr, false),
            Expr::Cast(c) => self.is_pure(&c.expr, true),
            Expr::Unary(u) => match u.op {
                UnOp::Neg(_) | UnOp::Not(_) => self.is_pure(&u.expr, true),
                UnOp::Deref(_) => {
                    if by_value {
                        // Only a capturable binding (a shared reference) is known not to be a
                        // `Box` that `*` would move out of.
                        self.expr_kind(&u.expr).is_some() && self.is_pure(&u.expr, false)
                    } else {
                        self.is_pure(&u.expr, false)
                    }
                }
                _ => false,
            },
            Expr::Binary(b) => match b.op {
                BinOp::Add(_)
                | BinOp::Sub(_)
                | BinOp::Mul(_)
                | BinOp::Div(_)
                | BinOp::Rem(_)
                | BinOp::BitXor(_)
                | BinOp::BitAnd(_)
                | BinOp::BitOr(_)
                | BinOp::Shl(_)
                | BinOp::Shr(_) => self.is_pure(&b.left, true) && self.is_pure(&b.right, true),
                // Comparisons borrow their operands.
                BinOp::Eq(_)
                | BinOp::Ne(_)
                | BinOp::Lt(_)
                | BinOp::Le(_)
                | BinOp::Gt(_)
                | BinOp::Ge(_) => self.is_pure(&b.left, false) && self.is_pure(&b.right, false),
                _ => false,
            },
            _ => false,
        }
    }
}

/// The kind of a variable declared with type `ty`, when it is capturable.
pub(super) fn type_kind(ty: &Type) -> Option<Kind> {
    match ty {
        Type::Path(p) if p.qself.is_none() => {
            let ident = p.path.get_ident()?;
            const SCALARS: [&str; 16] = [
                "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128",
                "usize", "f32", "f64", "bool", "char",
            ];
            SCALARS
                .contains(&ident.to_string().as_str())
                .then_some(Kind::Scalar)
        }
        Type::Reference(r) if r.mutability.is_none() => Some(Kind::Copy),
        Type::Paren(p) => type_kind(&p.elem),
        Type::Group(g) => type_kind(&g.elem),
        _ => None,
    }
}

/// The variables a pattern binds (idents that might be unit structs or constants included:
/// treating them as bindings only hides more, never captures more).
pub(super) fn pattern_idents(pat: &Pat, out: &mut Vec<syn::Ident>) {
    match pat {
        Pat::Ident(p) => {
            out.push(p.ident.clone());
            if let Some((_, sub)) = &p.subpat {
                pattern_idents(sub, out);
            }
        }
        Pat::Guard(g) => pattern_idents(&g.pat, out),
        Pat::Or(o) => {
            for case in &o.cases {
                pattern_idents(case, out);
            }
        }
        Pat::Paren(p) => pattern_idents(&p.pat, out),
        Pat::Reference(r) => pattern_idents(&r.pat, out),
        Pat::Slice(s) => s.elems.iter().for_each(|p| pattern_idents(p, out)),
        Pat::Struct(s) => s.fields.iter().for_each(|f| pattern_idents(&f.pat, out)),
        Pat::Tuple(t) => t.elems.iter().for_each(|p| pattern_idents(p, out)),
        Pat::TupleStruct(t) => t.elems.iter().for_each(|p| pattern_idents(p, out)),
        Pat::Type(t) => pattern_idents(&t.pat, out),
        _ => {}
    }
}
