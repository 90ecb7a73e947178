//! Operators and the expressions built like them: unary and binary operators with their
//! types, casts, indexing, fields, and array, repeat and struct literals.

use quote::ToTokens;
use syn::ext::IdentExt;

use crate::ir::{BinOp, Expr, ExprKind, IntType, Lit, Stmt, Type, UnOp};
use crate::lower::body::{FnLowerer, Target, unit};
use crate::lower::rules;

impl FnLowerer<'_, '_> {
    pub(super) fn unary(
        &mut self,
        u: &syn::ExprUnary,
        node: &syn::Expr,
        out: &mut Vec<Stmt>,
    ) -> Expr {
        // `-170141183460469231731687303715884105728` is `i128::MIN`, although the literal
        // alone is beyond `i128`.
        if let (
            syn::UnOp::Neg(_),
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(n),
                ..
            }),
        ) = (&u.op, rules::strip(&u.expr))
            && let Ok(magnitude) = n.base10_parse::<u128>()
            && let Some(value) = 0i128.checked_sub_unsigned(magnitude)
        {
            let ty = match IntType::from_name(n.suffix()) {
                Some(t) => Type::Int(t),
                None if n.suffix().is_empty() => self.inf.fresh_int(),
                None => return self.opaque(node, "literal", "a floating-point literal"),
            };
            return Expr::int(value, ty);
        }
        let inner = self.expr(&u.expr, out);
        match u.op {
            syn::UnOp::Deref(_) => inner,
            syn::UnOp::Not(_) => {
                let ty = inner.ty.clone();
                Expr {
                    kind: ExprKind::Unary(UnOp::Not, Box::new(inner)),
                    ty,
                }
            }
            syn::UnOp::Neg(_) => match inner.kind {
                // A negative literal (`-128i8` is in range although `128i8` is not).
                ExprKind::Lit(Lit::Int(n)) => Expr::int(-n, inner.ty),
                _ => {
                    let ty = inner.ty.clone();
                    Expr {
                        kind: ExprKind::Unary(UnOp::Neg, Box::new(inner)),
                        ty,
                    }
                }
            },
            _ => self.opaque(node, "operator", "an unknown unary operator"),
        }
    }

    pub(super) fn binary(
        &mut self,
        b: &syn::ExprBinary,
        node: &syn::Expr,
        out: &mut Vec<Stmt>,
    ) -> Expr {
        if crate::lower::body::compound_op(&b.op).is_some() {
            self.expr_into(node, Target::Discard, out);
            return unit();
        }
        let op = match b.op {
            syn::BinOp::Add(_) => BinOp::Add,
            syn::BinOp::Sub(_) => BinOp::Sub,
            syn::BinOp::Mul(_) => BinOp::Mul,
            syn::BinOp::Div(_) => BinOp::Div,
            syn::BinOp::Rem(_) => BinOp::Rem,
            syn::BinOp::And(_) => BinOp::And,
            syn::BinOp::Or(_) => BinOp::Or,
            syn::BinOp::BitXor(_) => BinOp::BitXor,
            syn::BinOp::BitAnd(_) => BinOp::BitAnd,
            syn::BinOp::BitOr(_) => BinOp::BitOr,
            syn::BinOp::Shl(_) => BinOp::Shl,
            syn::BinOp::Shr(_) => BinOp::Shr,
            syn::BinOp::Eq(_) => BinOp::Eq,
            syn::BinOp::Lt(_) => BinOp::Lt,
            syn::BinOp::Le(_) => BinOp::Le,
            syn::BinOp::Ne(_) => BinOp::Ne,
            syn::BinOp::Ge(_) => BinOp::Ge,
            syn::BinOp::Gt(_) => BinOp::Gt,
            _ => return self.opaque(node, "operator", "an unknown binary operator"),
        };
        let left = self.expr(&b.left, out);
        let right = if matches!(op, BinOp::And | BinOp::Or) {
            self.short_circuit_operand(&b.right)
        } else {
            self.expr(&b.right, out)
        };
        self.binary_op(op, left, right, node)
    }

    /// The right operand of `&&`/`||`: evaluated only sometimes, so it cannot push
    /// statements before the whole expression.
    pub(super) fn short_circuit_operand(&mut self, e: &syn::Expr) -> Expr {
        let mut buf = Vec::new();
        let value = self.expr(e, &mut buf);
        if buf.is_empty() {
            value
        } else {
            self.opaque(
                e,
                "operand",
                "a short-circuited operand that needs statements",
            )
        }
    }

    /// `a op b` with the operands' types unified as Rust's typing requires.
    pub(crate) fn binary_op(
        &mut self,
        op: BinOp,
        left: Expr,
        right: Expr,
        node: &impl ToTokens,
    ) -> Expr {
        let int = |lw: &Self, e: &Expr| lw.int_like(&e.ty);
        let ty = match op {
            BinOp::Shl | BinOp::Shr => {
                if !int(self, &left) || !int(self, &right) {
                    return self.opaque_node(node, "shift", "a shift of non-integers");
                }
                left.ty.clone()
            }
            BinOp::Add
            | BinOp::Sub
            | BinOp::Mul
            | BinOp::Div
            | BinOp::Rem
            | BinOp::WrappingAdd
            | BinOp::WrappingSub
            | BinOp::WrappingMul
            | BinOp::SaturatingAdd
            | BinOp::SaturatingSub
            | BinOp::SaturatingMul
            | BinOp::Min
            | BinOp::Max => {
                self.inf.unify(&left.ty, &right.ty);
                if !int(self, &left) {
                    let t = self.describe(&left.ty);
                    return self.opaque_node(node, "arithmetic", &format!("arithmetic on {t}"));
                }
                left.ty.clone()
            }
            BinOp::CheckedAdd | BinOp::CheckedSub | BinOp::CheckedMul => {
                self.inf.unify(&left.ty, &right.ty);
                Type::Option(Box::new(left.ty.clone()))
            }
            BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor => {
                self.inf.unify(&left.ty, &right.ty);
                let t = self.inf.shallow(&left.ty);
                if !(int(self, &left) || t == Type::Bool) {
                    let t = self.describe(&t);
                    return self.opaque_node(
                        node,
                        "bitwise operator",
                        &format!("a bitwise operator on {t}"),
                    );
                }
                left.ty.clone()
            }
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
                self.inf.unify(&left.ty, &right.ty);
                let t = self.inf.shallow(&left.ty);
                if !(int(self, &left) || matches!(t, Type::Char | Type::Bool)) {
                    let t = self.describe(&t);
                    return self.opaque_node(node, "comparison", &format!("an ordering of {t}"));
                }
                Type::Bool
            }
            BinOp::Eq | BinOp::Ne => {
                self.inf.unify(&left.ty, &right.ty);
                Type::Bool
            }
            BinOp::And | BinOp::Or | BinOp::Implies => Type::Bool,
        };
        Expr {
            kind: ExprKind::Binary(op, Box::new(left), Box::new(right)),
            ty,
        }
    }

    /// A type for a reason text.
    pub(crate) fn describe(&self, ty: &Type) -> String {
        match self.inf.shallow(ty) {
            Type::Infer(_) => "a value of unknown type".to_string(),
            other => self.inf.finish(&other).to_string(),
        }
    }

    /// Whether the type is an integer or not known yet (the operation decides).
    fn int_like(&self, ty: &Type) -> bool {
        matches!(self.inf.shallow(ty), Type::Int(_) | Type::Infer(_))
    }

    fn opaque_node(&mut self, node: &impl ToTokens, construct: &str, reason: &str) -> Expr {
        let span = self.span(node);
        self.degrade(construct, span.clone(), reason);
        Expr {
            kind: ExprKind::Opaque {
                reason: reason.to_string(),
                span,
                defines: Vec::new(),
            },
            ty: self.inf.fresh(),
        }
    }

    pub(super) fn cast(
        &mut self,
        c: &syn::ExprCast,
        node: &syn::Expr,
        out: &mut Vec<Stmt>,
    ) -> Expr {
        let target = self
            .env
            .resolve(&c.ty, self.self_ty.as_ref(), &self.generics);
        let source = self.expr(&c.expr, out);
        let from = self.inf.shallow(&source.ty);
        let ok = match (&target, &from) {
            (Type::Int(_), Type::Int(_) | Type::Bool | Type::Char) => true,
            (Type::Int(_), Type::Infer(_)) => self.inf.is_int(&from),
            (Type::Char, Type::Int(IntType::U8)) => true,
            (Type::Char, Type::Infer(_)) => {
                self.inf.unify(&from, &Type::Int(IntType::U8));
                true
            }
            (Type::Char, Type::Char) | (Type::Bool, Type::Bool) => true,
            _ => false,
        };
        if !ok {
            let from = self.describe(&from);
            return self.opaque(node, "cast", &format!("a cast from {from} to {target}"));
        }
        Expr {
            kind: ExprKind::Cast(Box::new(source)),
            ty: target,
        }
    }

    pub(super) fn index(
        &mut self,
        i: &syn::ExprIndex,
        node: &syn::Expr,
        out: &mut Vec<Stmt>,
    ) -> Expr {
        if matches!(rules::strip(&i.index), syn::Expr::Range(_)) {
            return self.opaque(node, "subslice", "slicing by a range");
        }
        let mark = self.degradations.len();
        let base = self.expr(&i.expr, out);
        let index = self.expr(&i.index, out);
        match self.elem_type(&base.ty) {
            Some(elem) => {
                self.inf.unify(&index.ty, &Type::Int(IntType::Usize));
                Expr {
                    kind: ExprKind::Index(Box::new(base), Box::new(index)),
                    ty: elem,
                }
            }
            None => {
                let t = self.describe(&base.ty);
                self.fold_into(mark, &base);
                self.opaque(node, "indexing", &format!("indexing into {t}"))
            }
        }
    }

    /// The element type of a sequence type (a not-yet-known type becomes a sequence).
    pub(crate) fn elem_type(&mut self, ty: &Type) -> Option<Type> {
        match self.inf.shallow(ty) {
            Type::Seq { elem, .. } => Some(*elem),
            Type::Infer(_) if !self.inf.is_int(ty) => {
                let elem = self.inf.fresh();
                self.inf.unify(
                    ty,
                    &Type::Seq {
                        elem: Box::new(elem.clone()),
                        len: None,
                    },
                );
                Some(elem)
            }
            _ => None,
        }
    }

    pub(super) fn field(
        &mut self,
        f: &syn::ExprField,
        node: &syn::Expr,
        out: &mut Vec<Stmt>,
    ) -> Expr {
        let mark = self.degradations.len();
        let base = self.expr(&f.base, out);
        let opaque_base = matches!(base.kind, ExprKind::Opaque { .. });
        match self.field_of(base, &f.member) {
            Ok(e) => e,
            Err(reason) => {
                if opaque_base {
                    self.degradations.truncate(mark);
                }
                self.opaque(node, "field access", &reason)
            }
        }
    }

    /// The field `member` of `base`, by `base`'s type.
    pub(crate) fn field_of(&mut self, base: Expr, member: &syn::Member) -> Result<Expr, String> {
        let ty = self.inf.shallow(&base.ty);
        match (&ty, member) {
            (Type::Struct(name), member) => {
                let field = match member {
                    syn::Member::Named(id) => id.unraw().to_string(),
                    syn::Member::Unnamed(i) => i.index.to_string(),
                };
                let def = self
                    .env
                    .struct_def(name)
                    .ok_or_else(|| format!("struct `{name}` is not known"))?;
                let fty = def
                    .fields
                    .iter()
                    .find(|(n, _)| *n == field)
                    .map(|(_, t)| t.clone())
                    .ok_or_else(|| format!("`{name}` has no field `{field}`"))?;
                if fty.is_opaque() {
                    return Err(format!("field `{field}` has type {fty}"));
                }
                Ok(Expr {
                    kind: ExprKind::Field(Box::new(base), field),
                    ty: fty,
                })
            }
            (Type::Tuple(elems), syn::Member::Unnamed(i)) => {
                let at = i.index as usize;
                let ety = elems
                    .get(at)
                    .cloned()
                    .ok_or_else(|| "a tuple field out of range".to_string())?;
                Ok(Expr {
                    kind: ExprKind::TupleField(Box::new(base), at),
                    ty: ety,
                })
            }
            _ => Err(format!("a field of {}", self.describe(&ty))),
        }
    }

    pub(super) fn array(&mut self, elems: Vec<Expr>, len: Option<u64>) -> Expr {
        let elem = self.inf.fresh();
        for e in &elems {
            self.inf.unify(&elem, &e.ty);
        }
        Expr {
            kind: ExprKind::Array(elems),
            ty: Type::Seq {
                elem: Box::new(elem),
                len,
            },
        }
    }

    pub(super) fn repeat(&mut self, elem: Expr, count: Expr, len: Option<u64>) -> Expr {
        let ety = elem.ty.clone();
        Expr {
            kind: ExprKind::Repeat(Box::new(elem), Box::new(count)),
            ty: Type::Seq {
                elem: Box::new(ety),
                len,
            },
        }
    }

    pub(super) fn struct_expr(
        &mut self,
        s: &syn::ExprStruct,
        node: &syn::Expr,
        out: &mut Vec<Stmt>,
    ) -> Expr {
        let Some(last) = s.path.segments.last() else {
            return self.opaque(node, "struct literal", "an empty path");
        };
        let mut name = last.ident.unraw().to_string();
        if name == "Self" {
            name = self.self_name.clone().unwrap_or_default();
        }
        let Some(def) = self.env.struct_def(&name).cloned() else {
            return self.opaque(
                node,
                "struct literal",
                &format!("`{name}` is not a struct of this file"),
            );
        };
        let mut given = Vec::new();
        for field in &s.fields {
            let fname = match &field.member {
                syn::Member::Named(id) => id.unraw().to_string(),
                syn::Member::Unnamed(i) => i.index.to_string(),
            };
            let value = self.expr(&field.expr, out);
            given.push((fname, value));
        }
        let rest = s.rest.as_ref().map(|r| self.expr(r, out));
        let mut fields = Vec::new();
        for (fname, fty) in &def.fields {
            let value = match given.iter().position(|(n, _)| n == fname) {
                Some(at) => given.remove(at).1,
                None => match &rest {
                    Some(base) => Expr {
                        kind: ExprKind::Field(Box::new(base.clone()), fname.clone()),
                        ty: fty.clone(),
                    },
                    None => {
                        return self.opaque(
                            node,
                            "struct literal",
                            &format!("field `{fname}` is missing"),
                        );
                    }
                },
            };
            self.inf.unify(fty, &value.ty);
            fields.push((fname.clone(), value));
        }
        if def.fields.iter().any(|(_, t)| t.is_opaque()) {
            let span = self.span(node);
            self.degrade(
                "struct literal",
                span,
                &format!("`{name}` has fields outside the subset"),
            );
        }
        Expr {
            kind: ExprKind::Struct(name.clone(), fields),
            ty: Type::Struct(name),
        }
    }
}
