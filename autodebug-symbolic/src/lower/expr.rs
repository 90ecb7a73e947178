//! The lowering of expressions: literals, names (variables, constants, enum variants),
//! operators with their types, casts, indexing, fields, methods and calls of the subset,
//! conditions with their operand sites. An expression that needs statements (a block, a
//! `match`, an `if` whose branches do more than produce a value) pushes them before the
//! statement being lowered and yields a temporary.

use autodebug_runtime::protocol::SiteKind;
use quote::ToTokens;
use syn::ext::IdentExt;

use super::body::{Binding, FnLowerer, MAX_DEPTH, Mode, Target, and, not, unit};
use super::pattern::PatBinding;
use super::rules;
use crate::ir::{
    BinOp, Component, Expr, ExprKind, IntType, Lit, Place, Quantifier, Stmt, Type, UnOp, VarId,
    VarKind,
};

/// A lowered condition: the boolean, its site, and the variables its `let`s bind.
pub(crate) struct Condition {
    pub expr: Expr,
    pub branch: Option<Component>,
    pub bindings: Vec<PatBinding>,
}

/// Methods that never change their receiver (an opaque call of another method may).
pub(crate) const READ_ONLY_METHODS: &[&str] = &[
    "len",
    "is_empty",
    "iter",
    "get",
    "first",
    "last",
    "contains",
    "clone",
    "to_vec",
    "to_owned",
    "to_string",
    "as_str",
    "as_slice",
    "chars",
    "bytes",
    "starts_with",
    "ends_with",
    "find",
    "position",
    "min",
    "max",
    "abs",
    "cmp",
    "partial_cmp",
    "eq",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
    "unwrap",
    "expect",
    "is_some",
    "is_none",
    "is_ok",
    "is_err",
    "unwrap_or",
    "unwrap_or_default",
    "unwrap_or_else",
    "map",
    "and_then",
    "ok",
    "err",
    "count",
    "sum",
    "product",
    "copied",
    "cloned",
    "enumerate",
    "rev",
    "zip",
    "windows",
    "chunks",
    "split",
    "split_whitespace",
    "lines",
    "trim",
    "trim_start",
    "trim_end",
    "to_uppercase",
    "to_lowercase",
    "to_ascii_uppercase",
    "to_ascii_lowercase",
    "parse",
    "as_bytes",
    "keys",
    "values",
    "contains_key",
    "binary_search",
    "pow",
    "wrapping_add",
    "wrapping_sub",
    "wrapping_mul",
    "wrapping_neg",
    "checked_add",
    "checked_sub",
    "checked_mul",
    "checked_div",
    "saturating_add",
    "saturating_sub",
    "saturating_mul",
    "is_ascii_digit",
    "is_ascii_alphabetic",
    "is_alphabetic",
    "is_numeric",
    "is_alphanumeric",
    "is_whitespace",
    "is_ascii",
    "to_digit",
    "len_utf8",
    "filter",
    "all",
    "any",
    "fold",
    "skip",
    "take",
    "step_by",
    "collect",
    "iter_mut_count",
    "signum",
    "is_positive",
    "is_negative",
    "count_ones",
    "leading_zeros",
    "trailing_zeros",
    "into_iter",
    "as_ref",
    "borrow",
    "first_key_value",
    "get_key_value",
    "peek",
    "rem_euclid",
    "div_euclid",
    "abs_diff",
    "ilog2",
    "ilog10",
    "isqrt",
    "checked_rem",
    "checked_pow",
    "to_le_bytes",
    "to_be_bytes",
    "max_by_key",
    "min_by_key",
    "max_by",
    "min_by",
    "last_index",
];

impl FnLowerer<'_, '_> {
    /// Lowers an expression whose value is used; statements it needs go to `out`.
    pub(crate) fn expr(&mut self, e: &syn::Expr, out: &mut Vec<Stmt>) -> Expr {
        if self.depth > MAX_DEPTH {
            return self.opaque(e, "expression", "nested too deeply");
        }
        self.depth += 1;
        let lowered = self.expr_inner(e, out);
        self.depth -= 1;
        lowered
    }

    fn expr_inner(&mut self, e: &syn::Expr, out: &mut Vec<Stmt>) -> Expr {
        match e {
            syn::Expr::Lit(lit) => self.literal(&lit.lit, e),
            syn::Expr::Path(p) => self.path_expr(p, e),
            syn::Expr::Paren(p) => self.expr(&p.expr, out),
            syn::Expr::Group(g) => self.expr(&g.expr, out),
            syn::Expr::Unary(u) => self.unary(u, e, out),
            syn::Expr::Binary(b) => self.binary(b, e, out),
            syn::Expr::Cast(c) => self.cast(c, e, out),
            syn::Expr::Index(i) => self.index(i, e, out),
            syn::Expr::Field(f) => self.field(f, e, out),
            syn::Expr::MethodCall(m) => self.method(m, e, out),
            syn::Expr::Call(c) => self.call(c, e, out),
            syn::Expr::Tuple(t) => {
                if t.elems.is_empty() {
                    return unit();
                }
                let elems: Vec<Expr> = t.elems.iter().map(|e| self.expr(e, out)).collect();
                if elems.len() == 1 {
                    return elems.into_iter().next().unwrap_or_else(unit);
                }
                let ty = Type::Tuple(elems.iter().map(|e| e.ty.clone()).collect());
                Expr {
                    kind: ExprKind::Tuple(elems),
                    ty,
                }
            }
            syn::Expr::Array(a) => {
                let elems: Vec<Expr> = a.elems.iter().map(|e| self.expr(e, out)).collect();
                self.array(elems, Some(a.elems.len() as u64))
            }
            syn::Expr::Repeat(r) => {
                let elem = self.expr(&r.expr, out);
                let count = self.expr(&r.len, out);
                self.inf.unify(&count.ty, &Type::Int(IntType::Usize));
                let len = match &count.kind {
                    ExprKind::Lit(Lit::Int(n)) => u64::try_from(*n).ok(),
                    _ => None,
                };
                self.repeat(elem, count, len)
            }
            syn::Expr::Struct(s) => self.struct_expr(s, e, out),
            syn::Expr::Reference(r) => {
                if r.mutability.is_some() {
                    return self.opaque(
                        e,
                        "`&mut` borrow",
                        "a mutable borrow outside a call argument",
                    );
                }
                self.expr(&r.expr, out)
            }
            syn::Expr::If(i) => {
                self.value_of(out, |lw, t, buf| lw.if_stmt(i, Target::Assign(t), buf))
            }
            syn::Expr::Match(_)
            | syn::Expr::Block(syn::ExprBlock { label: None, .. })
            | syn::Expr::Unsafe(_)
            | syn::Expr::Loop(_) => {
                self.value_of(out, |lw, t, buf| lw.expr_into(e, Target::Assign(t), buf))
            }
            syn::Expr::While(_)
            | syn::Expr::ForLoop(_)
            | syn::Expr::Assign(_)
            | syn::Expr::Return(_)
            | syn::Expr::Break(_)
            | syn::Expr::Continue(_) => {
                self.expr_into(e, Target::Discard, out);
                if rules::diverges(e) {
                    never(self.inf.fresh())
                } else {
                    unit()
                }
            }
            syn::Expr::Macro(m) => self.macro_expr(m, e, out),
            syn::Expr::Closure(_) => self.opaque(e, "closure", "closures are outside the subset"),
            syn::Expr::Range(_) => self.opaque(e, "range", "a range as a value"),
            syn::Expr::Try(_) => self.opaque(e, "`?`", "the `?` operator is outside the subset"),
            syn::Expr::Let(_) => self.opaque(e, "`let` expression", "a `let` outside a condition"),
            syn::Expr::Block(_) => {
                self.opaque(e, "labeled block", "labeled blocks are outside the subset")
            }
            _ => self.opaque(
                e,
                "expression",
                "this kind of expression is outside the subset",
            ),
        }
    }

    /// An opaque expression: degraded, with the variables it may change.
    pub(crate) fn opaque(&mut self, node: &syn::Expr, construct: &str, reason: &str) -> Expr {
        let defines = self.defines(node);
        let span = self.span(node);
        self.degrade(construct, span.clone(), reason);
        Expr {
            kind: ExprKind::Opaque {
                reason: reason.to_string(),
                span,
                defines,
            },
            ty: self.inf.fresh(),
        }
    }

    /// The value of a construct lowered as statements storing into a temporary. When the
    /// statements are only an `if` chain assigning the temporary, the value is an `if`
    /// expression instead (and the temporary is not declared).
    fn value_of(
        &mut self,
        out: &mut Vec<Stmt>,
        lower: impl FnOnce(&mut Self, VarId, &mut Vec<Stmt>),
    ) -> Expr {
        let ty = self.inf.fresh();
        let tmp = self.temp(ty.clone());
        let mut buf = Vec::new();
        lower(self, tmp, &mut buf);
        // Leading temporaries (a `match` scrutinee) can move before the expression.
        let lets = buf
            .iter()
            .take_while(|s| {
                matches!(s, Stmt::Let { var, init: Some(_), component: None } if self.vars.get(var.0 as usize).is_some_and(|v| v.kind == VarKind::Temp))
            })
            .count();
        if let Some(value) = as_value(&buf[lets..], tmp) {
            out.extend(buf.drain(..lets));
            return value;
        }
        out.push(Stmt::Let {
            var: tmp,
            init: None,
            component: None,
        });
        out.extend(buf);
        Expr::var(tmp, ty)
    }

    fn literal(&mut self, lit: &syn::Lit, node: &syn::Expr) -> Expr {
        match lit {
            syn::Lit::Bool(b) => Expr::bool(b.value),
            syn::Lit::Char(c) => Expr {
                kind: ExprKind::Lit(Lit::Char(c.value())),
                ty: Type::Char,
            },
            syn::Lit::Byte(b) => Expr::int(b.value() as i128, Type::Int(IntType::U8)),
            syn::Lit::Int(n) => {
                let ty = match n.suffix() {
                    "" => self.inf.fresh_int(),
                    suffix => match IntType::from_name(suffix) {
                        Some(t) => Type::Int(t),
                        None => return self.opaque(node, "literal", "a floating-point literal"),
                    },
                };
                match n.base10_parse::<i128>() {
                    Ok(v) => Expr::int(v, ty),
                    Err(_) => self.opaque(node, "literal", "an integer beyond the range of i128"),
                }
            }
            syn::Lit::Float(_) => {
                self.opaque(node, "literal", "floating point is outside the subset")
            }
            _ => self.opaque(node, "literal", "strings are outside the subset"),
        }
    }

    // Names.

    fn path_expr(&mut self, p: &syn::ExprPath, node: &syn::Expr) -> Expr {
        if p.qself.is_some() {
            return self.opaque(node, "qualified path", "a qualified path");
        }
        let segments: Vec<String> = p
            .path
            .segments
            .iter()
            .map(|s| s.ident.unraw().to_string())
            .collect();
        match segments.as_slice() {
            [name] => {
                if name.starts_with(super::contract::NESTED)
                    && matches!(self.mode, Mode::Contract { .. })
                    && let Some(ident) = p.path.get_ident()
                    && let Some(cond) = self.nested_cond(name, ident)
                {
                    return cond;
                }
                if let Some(binding) = self.lookup(name) {
                    return match binding {
                        Binding::Var(v) => Expr::var(v, self.var_ty(v)),
                        Binding::Alias(e) => e,
                    };
                }
                if name == "None" {
                    return self.none();
                }
                if let Some(value) = self.const_value(name, None) {
                    return value;
                }
                if let Some(def) = self.env.struct_def(name)
                    && def.fields.is_empty()
                {
                    return Expr {
                        kind: ExprKind::Struct(name.clone(), Vec::new()),
                        ty: Type::Struct(name.clone()),
                    };
                }
                self.opaque(
                    node,
                    &format!("name `{name}`"),
                    "not a variable, constant or variant of this file",
                )
            }
            [.., ty, item] => {
                let ty = if ty == "Self" {
                    self.self_name.clone().unwrap_or_default()
                } else {
                    ty.clone()
                };
                if let Some(def) = self.env.enum_def(&ty)
                    && def.variants.iter().any(|v| v == item)
                {
                    return Expr {
                        kind: ExprKind::Variant(ty.clone(), item.clone()),
                        ty: Type::Enum(ty),
                    };
                }
                if ty == "Option" && item == "None" {
                    return self.none();
                }
                if let Some((v, t)) = super::int_constant(&ty, item) {
                    return Expr::int(v, t);
                }
                if let Some(value) = self.const_value(&format!("{ty}::{item}"), Some(&ty)) {
                    return value;
                }
                self.opaque(
                    node,
                    &format!("path `{}`", segments.join("::")),
                    "not a constant or variant of this file",
                )
            }
            [] => self.opaque(node, "path", "an empty path"),
        }
    }

    fn none(&mut self) -> Expr {
        let inner = self.inf.fresh();
        Expr {
            kind: ExprKind::OptionNone,
            ty: Type::Option(Box::new(inner)),
        }
    }

    /// The value of the constant `key` (`MAX`, `Type::MAX`), lowered here.
    fn const_value(&mut self, key: &str, owner: Option<&str>) -> Option<Expr> {
        let env = self.env;
        let (ty, expr, self_ty, self_name) = match self.local_const(key) {
            Some((ty, expr)) => (
                env.resolve(&ty, self.self_ty.as_ref(), &self.generics),
                expr,
                self.self_ty.clone(),
                self.self_name.clone(),
            ),
            None => {
                let c = env.consts.get(key)?;
                let self_ty = c.self_ty.clone().or_else(|| self.self_ty.clone());
                let self_name = c
                    .self_name
                    .clone()
                    .or_else(|| owner.map(str::to_string))
                    .or_else(|| self.self_name.clone());
                (
                    env.resolve(c.ty, self_ty.as_ref(), &self.generics),
                    c.expr.clone(),
                    self_ty,
                    self_name,
                )
            }
        };
        if self.const_depth > 8 {
            return None;
        }
        let saved = (self.mode, self.self_ty.clone(), self.self_name.clone());
        self.mode = Mode::Const;
        self.self_ty = self_ty;
        self.self_name = self_name;
        self.const_depth += 1;
        let mut scratch = Vec::new();
        let mut value = self.expr(&expr, &mut scratch);
        self.const_depth -= 1;
        (self.mode, self.self_ty, self.self_name) = saved;
        if !scratch.is_empty() {
            value = self.opaque(&expr, "constant", "a constant computed with statements");
        }
        self.inf.unify(&ty, &value.ty);
        if let Type::Seq { len: Some(_), .. } = &ty {
            value.ty = ty;
        }
        Some(value)
    }

    // Operators.

    fn unary(&mut self, u: &syn::ExprUnary, node: &syn::Expr, out: &mut Vec<Stmt>) -> Expr {
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

    fn binary(&mut self, b: &syn::ExprBinary, node: &syn::Expr, out: &mut Vec<Stmt>) -> Expr {
        if super::body::compound_op(&b.op).is_some() {
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
    fn short_circuit_operand(&mut self, e: &syn::Expr) -> Expr {
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

    fn cast(&mut self, c: &syn::ExprCast, node: &syn::Expr, out: &mut Vec<Stmt>) -> Expr {
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

    fn index(&mut self, i: &syn::ExprIndex, node: &syn::Expr, out: &mut Vec<Stmt>) -> Expr {
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

    fn field(&mut self, f: &syn::ExprField, node: &syn::Expr, out: &mut Vec<Stmt>) -> Expr {
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

    fn array(&mut self, elems: Vec<Expr>, len: Option<u64>) -> Expr {
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

    fn repeat(&mut self, elem: Expr, count: Expr, len: Option<u64>) -> Expr {
        let ety = elem.ty.clone();
        Expr {
            kind: ExprKind::Repeat(Box::new(elem), Box::new(count)),
            ty: Type::Seq {
                elem: Box::new(ety),
                len,
            },
        }
    }

    fn struct_expr(&mut self, s: &syn::ExprStruct, node: &syn::Expr, out: &mut Vec<Stmt>) -> Expr {
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

    // Conditions.

    /// A branch condition of kind `kind` (`If`, `While`, `Guard`): its site, and the
    /// `Operand` sites of a `&&`/`||` chain. A condition with `let`s has only the operand
    /// sites of its other operands; its bindings are aliases in the current scope (the
    /// caller's frame) and come back to be declared where the condition holds.
    pub(crate) fn condition(
        &mut self,
        cond: &syn::Expr,
        kind: SiteKind,
        out: &mut Vec<Stmt>,
    ) -> Condition {
        if rules::contains_let(cond) {
            let mut bindings = Vec::new();
            let expr = self.let_chain(cond, &mut bindings, out, true);
            return Condition {
                expr,
                branch: None,
                bindings,
            };
        }
        let branch = self.sites_on().then(|| self.component(cond, kind, true));
        let expr = if rules::is_chain(cond) && self.sites_on() {
            self.chain(cond, out, true)
        } else {
            self.expr(cond, out)
        };
        self.inf.unify(&expr.ty, &Type::Bool);
        Condition {
            expr,
            branch,
            bindings: Vec::new(),
        }
    }

    /// The operands of a `&&`/`||` chain, each an `Operand` branch. `first` says whether
    /// the operand is evaluated unconditionally (its statements may go before).
    fn chain(&mut self, e: &syn::Expr, out: &mut Vec<Stmt>, first: bool) -> Expr {
        match e {
            syn::Expr::Binary(b) if matches!(b.op, syn::BinOp::And(_) | syn::BinOp::Or(_)) => {
                let op = if matches!(b.op, syn::BinOp::And(_)) {
                    BinOp::And
                } else {
                    BinOp::Or
                };
                let left = self.chain(&b.left, out, first);
                let right = self.chain(&b.right, out, false);
                Expr {
                    kind: ExprKind::Binary(op, Box::new(left), Box::new(right)),
                    ty: Type::Bool,
                }
            }
            syn::Expr::Paren(p) if rules::is_chain(&p.expr) => self.chain(&p.expr, out, first),
            syn::Expr::Group(g) if rules::is_chain(&g.expr) => self.chain(&g.expr, out, first),
            operand => {
                let component = self.component(operand, SiteKind::Operand, true);
                let value = if first {
                    self.expr(operand, out)
                } else {
                    self.short_circuit_operand(operand)
                };
                self.inf.unify(&value.ty, &Type::Bool);
                Expr {
                    kind: ExprKind::Branch(Box::new(value), Box::new(component)),
                    ty: Type::Bool,
                }
            }
        }
    }

    /// A condition chaining `let`s with `&&`: each `let`'s pattern test, its bindings as
    /// aliases for the operands after it, and `Operand` sites on the other operands.
    fn let_chain(
        &mut self,
        e: &syn::Expr,
        bindings: &mut Vec<PatBinding>,
        out: &mut Vec<Stmt>,
        first: bool,
    ) -> Expr {
        match e {
            syn::Expr::Binary(b) if matches!(b.op, syn::BinOp::And(_)) => {
                let left = self.let_chain(&b.left, bindings, out, first);
                let right = self.let_chain(&b.right, bindings, out, false);
                and(left, right)
            }
            syn::Expr::Group(g) => self.let_chain(&g.expr, bindings, out, first),
            syn::Expr::Let(l) => {
                let mut_scrutinee = self.is_mut_scrutinee(&l.expr);
                let mut buf = Vec::new();
                let value = self.expr(&l.expr, &mut buf);
                let scrutinee = if first && !buf.is_empty() {
                    out.extend(buf);
                    value
                } else if !buf.is_empty() || super::body::has_effects(&value) && !first {
                    return self.opaque(
                        e,
                        "`let` condition",
                        "a later `let` of a chain with effects",
                    );
                } else {
                    value
                };
                // A scrutinee with effects is evaluated once, into a temporary.
                let scrutinee = if super::body::has_effects(&scrutinee) {
                    let ty = scrutinee.ty.clone();
                    let tmp = self.temp(ty.clone());
                    out.push(Stmt::Let {
                        var: tmp,
                        init: Some(scrutinee),
                        component: None,
                    });
                    Expr::var(tmp, ty)
                } else {
                    scrutinee
                };
                self.mut_scrutinee = mut_scrutinee;
                let result = self.pattern(&l.pat, &scrutinee);
                self.mut_scrutinee = false;
                match result {
                    Ok(lowered) => {
                        for b in &lowered.bindings {
                            self.declare(&b.name, Binding::Alias(b.value.clone()));
                        }
                        bindings.extend(lowered.bindings);
                        lowered.test.unwrap_or_else(|| Expr::bool(true))
                    }
                    Err(reason) => self.opaque(e, "`let` condition", &reason),
                }
            }
            syn::Expr::Binary(b) if matches!(b.op, syn::BinOp::Or(_)) => {
                self.opaque(e, "`let` condition", "`||` in a chain with `let`")
            }
            operand if self.sites_on() => {
                let component = self.component(operand, SiteKind::Operand, true);
                let value = if first {
                    self.expr(operand, out)
                } else {
                    self.short_circuit_operand(operand)
                };
                Expr {
                    kind: ExprKind::Branch(Box::new(value), Box::new(component)),
                    ty: Type::Bool,
                }
            }
            operand => self.short_circuit_operand(operand),
        }
    }

    // Methods and calls.

    fn method(&mut self, m: &syn::ExprMethodCall, node: &syn::Expr, out: &mut Vec<Stmt>) -> Expr {
        let name = m.method.unraw().to_string();
        if name == "sum"
            && m.args.is_empty()
            && let Some(sum) = self.sum(m, out)
        {
            return sum;
        }
        let mark = self.degradations.len();
        let (place, recv) = self.receiver(m, out);
        let rty = self.inf.shallow(&recv.ty);
        // A method of the program.
        if let Type::Struct(t) | Type::Enum(t) = &rty
            && let Some(sig) = self.env.sig(&format!("{t}::{name}"), &self.module).cloned()
            && sig.has_self
        {
            let args: Vec<&syn::Expr> = m.args.iter().collect();
            return self.program_call(&sig, Some((recv, place.map(|p| p.0))), &args, node, out);
        }
        let args: Vec<&syn::Expr> = m.args.iter().collect();
        let int = self.inf.is_int(&rty) || matches!(rty, Type::Int(_));
        let seq = matches!(rty, Type::Seq { .. });
        let option = matches!(rty, Type::Option(_));
        match (name.as_str(), args.as_slice()) {
            ("len", []) if seq => Expr {
                kind: ExprKind::Len(Box::new(recv)),
                ty: Type::Int(IntType::Usize),
            },
            ("is_empty", []) if seq => is_empty(recv),
            ("clone", []) if !rty.is_opaque() && !matches!(rty, Type::Infer(_)) => recv,
            ("to_vec" | "to_owned", []) if seq => recv,
            ("contains", [arg]) if seq => {
                let value = self.expr(strip_ref(arg), out);
                self.contains(recv, value)
            }
            ("min" | "max", [arg]) if int => {
                let other = self.expr(arg, out);
                let op = if name == "min" {
                    BinOp::Min
                } else {
                    BinOp::Max
                };
                self.binary_op(op, recv, other, node)
            }
            ("abs" | "wrapping_neg", []) if int => {
                let ty = recv.ty.clone();
                let op = if name == "abs" {
                    UnOp::Abs
                } else {
                    UnOp::WrappingNeg
                };
                Expr {
                    kind: ExprKind::Unary(op, Box::new(recv)),
                    ty,
                }
            }
            (
                "wrapping_add" | "wrapping_sub" | "wrapping_mul" | "saturating_add"
                | "saturating_sub" | "saturating_mul" | "checked_add" | "checked_sub"
                | "checked_mul",
                [arg],
            ) if int => {
                let other = self.expr(arg, out);
                self.binary_op(stepped_op(&name), recv, other, node)
            }
            (
                "is_ascii_digit"
                | "is_ascii_lowercase"
                | "is_ascii_uppercase"
                | "is_ascii_alphabetic"
                | "is_ascii_alphanumeric"
                | "is_ascii_whitespace"
                | "is_ascii",
                [],
            ) if rty == Type::Char => ascii_class(&name, &recv),
            ("to_ascii_lowercase" | "to_ascii_uppercase", []) if rty == Type::Char => {
                to_ascii_case(&name, recv)
            }
            ("is_some" | "is_none", []) if option => {
                let test = Expr {
                    kind: ExprKind::IsSome(Box::new(recv)),
                    ty: Type::Bool,
                };
                if name == "is_some" { test } else { not(test) }
            }
            ("unwrap", []) | ("expect", [_]) if option => self.unwrap(recv),
            ("unwrap_or", [default]) if option => self.unwrap_or(recv, default, out),
            ("push", [arg]) if seq && place.is_some() => {
                let Some((place, _)) = place else {
                    return unit();
                };
                self.push(place, recv, &rty, arg, node, out)
            }
            ("swap", [i, j]) if seq && place.is_some() => {
                let Some((place, _)) = place else {
                    return unit();
                };
                self.swap(place, recv, i, j, node, out);
                unit()
            }
            _ => {
                let t = self.describe(&rty);
                self.fold_into(mark, &recv);
                self.opaque(
                    node,
                    &format!("method `{name}`"),
                    &format!("the method `{name}` on {t}"),
                )
            }
        }
    }

    /// The receiver of a method call: its place, when it is one the model writes through
    /// (`v.push(x)`), and its value.
    fn receiver(
        &mut self,
        m: &syn::ExprMethodCall,
        out: &mut Vec<Stmt>,
    ) -> (Option<(Place, Expr)>, Expr) {
        let receiver = strip_ref(&m.receiver);
        let place = if rules::is_place(receiver) {
            let mut buf = Vec::new();
            match self.place(receiver, &mut buf) {
                Ok(p) => {
                    out.extend(buf);
                    Some(p)
                }
                Err(_) => None,
            }
        } else {
            None
        };
        let recv = match &place {
            Some((_, read)) => read.clone(),
            None => self.expr(receiver, out),
        };
        (place, recv)
    }

    /// `option.unwrap_or(default)`.
    fn unwrap_or(&mut self, recv: Expr, default: &syn::Expr, out: &mut Vec<Stmt>) -> Expr {
        let default = self.expr(default, out);
        let value = self.unwrap(recv.clone());
        self.inf.unify(&value.ty, &default.ty);
        let ty = value.ty.clone();
        Expr {
            kind: ExprKind::If {
                cond: Box::new(Expr {
                    kind: ExprKind::IsSome(Box::new(recv)),
                    ty: Type::Bool,
                }),
                branch: None,
                then: Box::new(value),
                otherwise: Box::new(default),
            },
            ty,
        }
    }

    /// `v.push(arg)` on the place `place` whose value is `recv`, of type `rty`.
    fn push(
        &mut self,
        place: Place,
        recv: Expr,
        rty: &Type,
        arg: &syn::Expr,
        node: &syn::Expr,
        out: &mut Vec<Stmt>,
    ) -> Expr {
        let value = self.expr(arg, out);
        if let Some(elem) = rty.elem() {
            self.inf.unify(elem, &value.ty);
        }
        let ty = recv.ty.clone();
        let root = place.root();
        out.push(Stmt::Assign {
            place,
            value: Expr {
                kind: ExprKind::Push(Box::new(recv), Box::new(value)),
                ty,
            },
            component: None,
        });
        self.after_write(root, node, out);
        unit()
    }

    /// `s.iter().sum()` and `s[lo..hi].iter().sum()` (also through `copied`, `cloned`,
    /// `into_iter`): a sum over the indices. `None` for other receivers.
    fn sum(&mut self, m: &syn::ExprMethodCall, out: &mut Vec<Stmt>) -> Option<Expr> {
        let mut receiver = rules::strip(&m.receiver);
        let mut iterated = false;
        while let syn::Expr::MethodCall(inner) = receiver
            && inner.args.is_empty()
            && ["iter", "copied", "cloned", "into_iter"]
                .contains(&inner.method.to_string().as_str())
        {
            iterated = true;
            receiver = rules::strip(&inner.receiver);
        }
        if !iterated {
            return None;
        }
        let usize_ty = Type::Int(IntType::Usize);
        let (seq, start, end) = match strip_ref(receiver) {
            syn::Expr::Index(i) => {
                let syn::Expr::Range(r) = rules::strip(&i.index) else {
                    return None;
                };
                let seq = self.expr(&i.expr, out);
                let start = match &r.start {
                    Some(s) => self.expr(s, out),
                    None => Expr::int(0, usize_ty.clone()),
                };
                let end = match &r.end {
                    Some(e) => {
                        let end = self.expr(e, out);
                        if matches!(r.limits, syn::RangeLimits::Closed(_)) {
                            let one = Expr::int(1, usize_ty.clone());
                            self.binary_op(BinOp::Add, end, one, e)
                        } else {
                            end
                        }
                    }
                    None => Expr {
                        kind: ExprKind::Len(Box::new(seq.clone())),
                        ty: usize_ty.clone(),
                    },
                };
                (seq, start, end)
            }
            other => {
                let seq = self.expr(other, out);
                let len = Expr {
                    kind: ExprKind::Len(Box::new(seq.clone())),
                    ty: usize_ty.clone(),
                };
                (seq, Expr::int(0, usize_ty.clone()), len)
            }
        };
        let elem = self.elem_type(&seq.ty)?;
        self.inf.unify(&start.ty, &usize_ty);
        self.inf.unify(&end.ty, &usize_ty);
        if let Some(turbofish) = &m.turbofish
            && let Some(syn::GenericArgument::Type(t)) = turbofish.args.first()
        {
            let t = self.env.resolve(t, self.self_ty.as_ref(), &self.generics);
            self.inf.unify(&elem, &t);
        }
        let var = self.new_var("$k", usize_ty.clone(), VarKind::Bound);
        let body = Expr {
            kind: ExprKind::Index(Box::new(seq), Box::new(Expr::var(var, usize_ty))),
            ty: elem.clone(),
        };
        Some(Expr {
            kind: ExprKind::Quantifier {
                kind: Quantifier::Sum,
                var,
                start: Box::new(start),
                end: Box::new(end),
                inclusive: false,
                body: Box::new(body),
            },
            ty: elem,
        })
    }

    /// When an operand was already opaque, one degradation for the whole expression
    /// replaces the operand's (a chain `v.iter().map(..).collect()` is one construct).
    fn fold_into(&mut self, mark: usize, operand: &Expr) {
        if matches!(operand.kind, ExprKind::Opaque { .. }) {
            self.degradations.truncate(mark);
        }
    }

    fn unwrap(&mut self, option: Expr) -> Expr {
        let inner = match self.inf.shallow(&option.ty) {
            Type::Option(inner) => *inner,
            _ => self.inf.fresh(),
        };
        Expr {
            kind: ExprKind::Unwrap(Box::new(option)),
            ty: inner,
        }
    }

    /// `seq.contains(&x)`: some index holds `x`.
    fn contains(&mut self, seq: Expr, value: Expr) -> Expr {
        if let Some(elem) = seq.ty.elem() {
            self.inf.unify(elem, &value.ty);
        }
        let usize_ty = Type::Int(IntType::Usize);
        let var = self.new_var("$k", usize_ty.clone(), VarKind::Bound);
        let elem = self.elem_type(&seq.ty).unwrap_or_else(|| value.ty.clone());
        let at = Expr {
            kind: ExprKind::Index(
                Box::new(seq.clone()),
                Box::new(Expr::var(var, usize_ty.clone())),
            ),
            ty: elem,
        };
        Expr {
            kind: ExprKind::Quantifier {
                kind: Quantifier::Exists,
                var,
                start: Box::new(Expr::int(0, usize_ty.clone())),
                end: Box::new(Expr {
                    kind: ExprKind::Len(Box::new(seq)),
                    ty: usize_ty,
                }),
                inclusive: false,
                body: Box::new(Expr {
                    kind: ExprKind::Binary(BinOp::Eq, Box::new(at), Box::new(value)),
                    ty: Type::Bool,
                }),
            },
            ty: Type::Bool,
        }
    }

    /// `a.swap(i, j)`: both elements through a temporary.
    fn swap(
        &mut self,
        place: Place,
        seq: Expr,
        i: &syn::Expr,
        j: &syn::Expr,
        node: &syn::Expr,
        out: &mut Vec<Stmt>,
    ) {
        let usize_ty = Type::Int(IntType::Usize);
        let i = self.expr(i, out);
        let j = self.expr(j, out);
        self.inf.unify(&i.ty, &usize_ty);
        self.inf.unify(&j.ty, &usize_ty);
        let elem = self.elem_type(&seq.ty).unwrap_or_else(|| self.inf.fresh());
        let (ti, tj) = (self.temp(usize_ty.clone()), self.temp(usize_ty.clone()));
        out.push(Stmt::Let {
            var: ti,
            init: Some(i),
            component: None,
        });
        out.push(Stmt::Let {
            var: tj,
            init: Some(j),
            component: None,
        });
        let at = |v: VarId| Expr {
            kind: ExprKind::Index(
                Box::new(seq.clone()),
                Box::new(Expr::var(v, usize_ty.clone())),
            ),
            ty: elem.clone(),
        };
        let held = self.temp(elem.clone());
        out.push(Stmt::Let {
            var: held,
            init: Some(at(ti)),
            component: None,
        });
        let index = |v: VarId| {
            Place::Index(
                Box::new(place.clone()),
                Box::new(Expr::var(v, usize_ty.clone())),
            )
        };
        out.push(Stmt::Assign {
            place: index(ti),
            value: at(tj),
            component: None,
        });
        out.push(Stmt::Assign {
            place: index(tj),
            value: Expr::var(held, elem),
            component: None,
        });
        self.after_write(place.root(), node, out);
    }

    fn call(&mut self, c: &syn::ExprCall, node: &syn::Expr, out: &mut Vec<Stmt>) -> Expr {
        let syn::Expr::Path(path) = rules::strip(&c.func) else {
            return self.opaque(node, "call", "a call of a computed function");
        };
        let segments: Vec<String> = path
            .path
            .segments
            .iter()
            .map(|s| s.ident.unraw().to_string())
            .collect();
        let args: Vec<&syn::Expr> = c.args.iter().collect();
        let last_two: Vec<&str> = segments
            .iter()
            .rev()
            .take(2)
            .rev()
            .map(String::as_str)
            .collect();
        if segments.len() == 1
            && let Some(binding) = self.lookup(&segments[0])
        {
            // A closure changes what it captured when it is called.
            let mut value = self.opaque(node, "call", "a call of a closure or function value");
            if let (Binding::Var(v), ExprKind::Opaque { defines, .. }) = (binding, &mut value.kind)
                && let Some(writes) = self.closure_writes.get(&v)
            {
                defines.extend(writes.iter().copied());
                defines.sort();
                defines.dedup();
            }
            return value;
        }
        match (last_two.as_slice(), args.as_slice()) {
            (["Vec", "new"], []) | (["Vec", "with_capacity"], [_]) => {
                return self.array(Vec::new(), None);
            }
            (["Some"] | ["Option", "Some"], [arg]) => {
                let value = self.expr(arg, out);
                let ty = Type::Option(Box::new(value.ty.clone()));
                return Expr {
                    kind: ExprKind::OptionSome(Box::new(value)),
                    ty,
                };
            }
            (["old"], [arg]) if matches!(self.mode, Mode::Contract { ensures: true }) => {
                let value = self.expr(arg, out);
                let ty = value.ty.clone();
                return Expr {
                    kind: ExprKind::Old(Box::new(value)),
                    ty,
                };
            }
            ([.., "min" | "max"], [a, b])
                if segments.len() > 1 || self.env.sig(&segments[0], &self.module).is_none() =>
            {
                let (a, b) = (self.expr(a, out), self.expr(b, out));
                let op = if segments.last().is_some_and(|s| s == "min") {
                    BinOp::Min
                } else {
                    BinOp::Max
                };
                return self.binary_op(op, a, b, node);
            }
            ([ty, "from"], [arg]) if IntType::from_name(ty).is_some() => {
                let value = self.expr(arg, out);
                let from = self.inf.shallow(&value.ty);
                if matches!(from, Type::Int(_) | Type::Bool | Type::Char) || self.inf.is_int(&from)
                {
                    return Expr {
                        kind: ExprKind::Cast(Box::new(value)),
                        ty: Type::Int(IntType::from_name(ty).unwrap_or(IntType::I32)),
                    };
                }
            }
            _ => {}
        }
        // A function of the program.
        let name = match last_two.as_slice() {
            ["Self", f] => self.self_name.as_ref().map(|t| format!("{t}::{f}")),
            [t, f] if segments.len() >= 2 && t.chars().next().is_some_and(char::is_uppercase) => {
                Some(format!("{t}::{f}"))
            }
            [.., f] => Some(f.to_string()),
            _ => None,
        };
        if let Some(name) = name
            && let Some(sig) = self.env.sig(&name, &self.module).cloned()
        {
            return self.program_call(&sig, None, &args, node, out);
        }
        // A tuple struct's constructor.
        if let Some(t) = last_two.last() {
            let t = if *t == "Self" {
                self.self_name.clone().unwrap_or_default()
            } else {
                t.to_string()
            };
            if let Some(def) = self.env.struct_def(&t).cloned()
                && def.tuple
                && def.fields.len() == args.len()
            {
                let mut fields = Vec::new();
                for ((fname, fty), arg) in def.fields.iter().zip(&args) {
                    let value = self.expr(arg, out);
                    self.inf.unify(fty, &value.ty);
                    fields.push((fname.clone(), value));
                }
                return Expr {
                    kind: ExprKind::Struct(t.clone(), fields),
                    ty: Type::Struct(t),
                };
            }
        }
        self.opaque(
            node,
            &format!("call of `{}`", segments.join("::")),
            "not a function of this file",
        )
    }

    /// A call of a function of the program. `receiver` is a method's receiver (its value,
    /// and its place when it is one). `&mut` parameters write back into their arguments'
    /// places.
    fn program_call(
        &mut self,
        sig: &super::FnSig,
        receiver: Option<(Expr, Option<Place>)>,
        args: &[&syn::Expr],
        node: &syn::Expr,
        out: &mut Vec<Stmt>,
    ) -> Expr {
        let given = args.len() + usize::from(receiver.is_some());
        if given != sig.params.len() {
            return self.opaque(
                node,
                &format!("call of `{}`", sig.name),
                "the arity does not match the signature",
            );
        }
        let mut values = Vec::new();
        let mut outputs = Vec::new();
        if let Some((value, place)) = receiver {
            if sig.params.first().is_some_and(|(_, m)| *m) {
                match place {
                    Some(place) => outputs.push((0, place)),
                    None => {
                        return self.opaque(
                            node,
                            &format!("call of `{}`", sig.name),
                            "a `&mut self` receiver that is not a place",
                        );
                    }
                }
            }
            values.push(value);
        }
        let offset = values.len();
        for (i, arg) in args.iter().enumerate() {
            let (pty, mut_ref) = sig.params[offset + i].clone();
            if mut_ref {
                let inner = match rules::strip(arg) {
                    syn::Expr::Reference(r) => &*r.expr,
                    other => other,
                };
                match self.place(inner, out) {
                    Ok((place, read)) => {
                        outputs.push((offset + i, place));
                        values.push(read);
                    }
                    Err(reason) => {
                        return self.opaque(
                            node,
                            &format!("call of `{}`", sig.name),
                            &format!("a `&mut` argument: {reason}"),
                        );
                    }
                }
            } else {
                let value = self.expr(arg, out);
                if !pty.is_opaque() {
                    self.inf.unify(&pty, &value.ty);
                }
                values.push(value);
            }
        }
        let roots: Vec<VarId> = outputs.iter().map(|(_, p)| p.root()).collect();
        let call = Expr {
            kind: ExprKind::Call {
                function: sig.name.clone(),
                args: values,
                outputs,
            },
            ty: sig.ret.clone(),
        };
        for root in roots {
            self.after_write(root, node, out);
        }
        call
    }

    /// Macros in expression position: `vec![..]`, `matches!(..)`; assertions and panics
    /// become statements.
    fn macro_expr(&mut self, m: &syn::ExprMacro, node: &syn::Expr, out: &mut Vec<Stmt>) -> Expr {
        let name = m
            .mac
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        match name.as_str() {
            "vec" => {
                let parsed = m.mac.parse_body_with(|input: syn::parse::ParseStream| {
                    if input.is_empty() {
                        return Ok(VecArgs::List(Vec::new()));
                    }
                    let first: syn::Expr = input.parse()?;
                    if input.peek(syn::Token![;]) {
                        input.parse::<syn::Token![;]>()?;
                        let count: syn::Expr = input.parse()?;
                        return Ok(VecArgs::Repeat(Box::new(first), Box::new(count)));
                    }
                    let mut elems = vec![first];
                    while input.peek(syn::Token![,]) {
                        input.parse::<syn::Token![,]>()?;
                        if input.is_empty() {
                            break;
                        }
                        elems.push(input.parse()?);
                    }
                    Ok(VecArgs::List(elems))
                });
                match parsed {
                    Ok(VecArgs::List(elems)) => {
                        let elems: Vec<Expr> = elems.iter().map(|e| self.expr(e, out)).collect();
                        self.array(elems, None)
                    }
                    Ok(VecArgs::Repeat(elem, count)) => {
                        let elem = self.expr(&elem, out);
                        let count = self.expr(&count, out);
                        self.inf.unify(&count.ty, &Type::Int(IntType::Usize));
                        self.repeat(elem, count, None)
                    }
                    Err(_) => self.opaque(node, "`vec!`", "arguments that do not parse"),
                }
            }
            "matches" => {
                let parsed = m.mac.parse_body_with(|input: syn::parse::ParseStream| {
                    let scrutinee: syn::Expr = input.parse()?;
                    input.parse::<syn::Token![,]>()?;
                    let pat = syn::Pat::parse_multi_with_leading_vert(input)?;
                    let guard = if input.peek(syn::Token![if]) {
                        input.parse::<syn::Token![if]>()?;
                        Some(input.parse::<syn::Expr>()?)
                    } else {
                        None
                    };
                    let _ = input.parse::<Option<syn::Token![,]>>()?;
                    Ok((scrutinee, pat, guard))
                });
                let Ok((scrutinee, pat, guard)) = parsed else {
                    return self.opaque(node, "`matches!`", "arguments that do not parse");
                };
                if guard.is_some() {
                    return self.opaque(node, "`matches!`", "a guard in `matches!`");
                }
                let mut buf = Vec::new();
                let value = self.expr(&scrutinee, &mut buf);
                if !buf.is_empty() || super::body::has_effects(&value) {
                    return self.opaque(node, "`matches!`", "a scrutinee with effects");
                }
                match self.pattern(&pat, &value) {
                    Ok(lowered) => lowered.test.unwrap_or_else(|| Expr::bool(true)),
                    Err(reason) => self.opaque(node, "`matches!`", &reason),
                }
            }
            _ if self.macro_stmt(&m.mac, node, out) => {
                if rules::is_panic_macro(&m.mac) {
                    never(self.inf.fresh())
                } else {
                    unit()
                }
            }
            _ => self.opaque(
                node,
                &format!("`{name}!`"),
                "macros other than assertions, panics and `vec!` are outside the subset",
            ),
        }
    }

    // Places.

    /// A place to assign to, and its current value.
    pub(crate) fn place(
        &mut self,
        e: &syn::Expr,
        out: &mut Vec<Stmt>,
    ) -> Result<(Place, Expr), String> {
        if self.depth > MAX_DEPTH {
            return Err("nested too deeply".into());
        }
        self.depth += 1;
        let result = self.place_inner(e, out);
        self.depth -= 1;
        result
    }

    fn place_inner(&mut self, e: &syn::Expr, out: &mut Vec<Stmt>) -> Result<(Place, Expr), String> {
        match e {
            syn::Expr::Path(p) if p.qself.is_none() => {
                let name = p
                    .path
                    .get_ident()
                    .map(|i| i.unraw().to_string())
                    .ok_or_else(|| "a path that is not a variable".to_string())?;
                match self.lookup(&name) {
                    Some(Binding::Var(v)) => Ok((Place::Var(v), Expr::var(v, self.var_ty(v)))),
                    _ => Err(format!("`{name}` is not a variable")),
                }
            }
            syn::Expr::Paren(p) => self.place(&p.expr, out),
            syn::Expr::Group(g) => self.place(&g.expr, out),
            syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => self.place(&u.expr, out),
            syn::Expr::Field(f) => {
                let (base, read) = self.place(&f.base, out)?;
                let value = self.field_of(read, &f.member)?;
                let place = match &value.kind {
                    ExprKind::Field(_, name) => Place::Field(Box::new(base), name.clone()),
                    ExprKind::TupleField(_, i) => Place::TupleField(Box::new(base), *i),
                    _ => return Err("a field of an unknown kind".into()),
                };
                Ok((place, value))
            }
            syn::Expr::Index(i) => {
                if matches!(rules::strip(&i.index), syn::Expr::Range(_)) {
                    return Err("a subslice".into());
                }
                let (base, read) = self.place(&i.expr, out)?;
                let index = self.expr(&i.index, out);
                let elem = self
                    .elem_type(&read.ty)
                    .ok_or_else(|| format!("indexing into {}", self.inf.shallow(&read.ty)))?;
                self.inf.unify(&index.ty, &Type::Int(IntType::Usize));
                let value = Expr {
                    kind: ExprKind::Index(Box::new(read), Box::new(index.clone())),
                    ty: elem,
                };
                Ok((Place::Index(Box::new(base), Box::new(index)), value))
            }
            _ => Err("not a place of a variable".into()),
        }
    }
}

/// `c.is_ascii_digit()` and the like, as comparisons of `c`.
fn ascii_class(name: &str, c: &Expr) -> Expr {
    let ch = |x: char| Expr {
        kind: ExprKind::Lit(Lit::Char(x)),
        ty: Type::Char,
    };
    let cmp = |op: BinOp, x: char| Expr {
        kind: ExprKind::Binary(op, Box::new(c.clone()), Box::new(ch(x))),
        ty: Type::Bool,
    };
    let within = |lo: char, hi: char| and(cmp(BinOp::Ge, lo), cmp(BinOp::Le, hi));
    let or = |a: Expr, b: Expr| Expr {
        kind: ExprKind::Binary(BinOp::Or, Box::new(a), Box::new(b)),
        ty: Type::Bool,
    };
    match name {
        "is_ascii_digit" => within('0', '9'),
        "is_ascii_lowercase" => within('a', 'z'),
        "is_ascii_uppercase" => within('A', 'Z'),
        "is_ascii_alphabetic" => or(within('a', 'z'), within('A', 'Z')),
        "is_ascii_alphanumeric" => or(or(within('a', 'z'), within('A', 'Z')), within('0', '9')),
        "is_ascii_whitespace" => ['\t', '\n', '\x0C', '\r']
            .into_iter()
            .fold(cmp(BinOp::Eq, ' '), |acc, x| or(acc, cmp(BinOp::Eq, x))),
        _ => cmp(BinOp::Le, '\x7F'),
    }
}

enum VecArgs {
    List(Vec<syn::Expr>),
    Repeat(Box<syn::Expr>, Box<syn::Expr>),
}

/// `&e` and parentheses removed (references are transparent).
fn strip_ref(e: &syn::Expr) -> &syn::Expr {
    match e {
        syn::Expr::Reference(r) => strip_ref(&r.expr),
        syn::Expr::Paren(p) => strip_ref(&p.expr),
        syn::Expr::Group(g) => strip_ref(&g.expr),
        other => other,
    }
}

/// The value of an expression that never produces one (after `return`, `panic!`): the
/// statement before it already left.
fn never(ty: Type) -> Expr {
    Expr {
        kind: ExprKind::Opaque {
            reason: "never evaluated: the expression diverges".into(),
            span: Default::default(),
            defines: Vec::new(),
        },
        ty,
    }
}

/// The value of statements that only assign `tmp` in every branch of an `if` chain.
fn as_value(stmts: &[Stmt], tmp: VarId) -> Option<Expr> {
    match stmts {
        [
            Stmt::Assign {
                place: Place::Var(v),
                value,
                component: None,
            },
        ] if *v == tmp => Some(value.clone()),
        [
            Stmt::If {
                cond,
                branch,
                then,
                otherwise,
            },
        ] => {
            let then = as_value(then, tmp)?;
            let otherwise = as_value(otherwise, tmp)?;
            let ty = then.ty.clone();
            Some(Expr {
                kind: ExprKind::If {
                    cond: Box::new(cond.clone()),
                    branch: branch.clone(),
                    then: Box::new(then),
                    otherwise: Box::new(otherwise),
                },
                ty,
            })
        }
        _ => None,
    }
}

/// `seq.is_empty()`: its length is zero.
fn is_empty(seq: Expr) -> Expr {
    let len = Expr {
        kind: ExprKind::Len(Box::new(seq)),
        ty: Type::Int(IntType::Usize),
    };
    let zero = Expr::int(0, Type::Int(IntType::Usize));
    Expr {
        kind: ExprKind::Binary(BinOp::Eq, Box::new(len), Box::new(zero)),
        ty: Type::Bool,
    }
}

/// The operator of an integer method that steps in another way than `+`, `-`, `*`
/// (`wrapping_add`, `saturating_sub`, `checked_mul`, …).
fn stepped_op(name: &str) -> BinOp {
    match name {
        "wrapping_add" => BinOp::WrappingAdd,
        "wrapping_sub" => BinOp::WrappingSub,
        "wrapping_mul" => BinOp::WrappingMul,
        "saturating_add" => BinOp::SaturatingAdd,
        "saturating_sub" => BinOp::SaturatingSub,
        "saturating_mul" => BinOp::SaturatingMul,
        "checked_add" => BinOp::CheckedAdd,
        "checked_sub" => BinOp::CheckedSub,
        _ => BinOp::CheckedMul,
    }
}

/// `c.to_ascii_lowercase()` / `c.to_ascii_uppercase()` (`name`) of the char `recv`.
fn to_ascii_case(name: &str, recv: Expr) -> Expr {
    let lower = name == "to_ascii_lowercase";
    let (class, op) = if lower {
        ("is_ascii_uppercase", BinOp::Add)
    } else {
        ("is_ascii_lowercase", BinOp::Sub)
    };
    let u8_ty = Type::Int(IntType::U8);
    let byte = Expr {
        kind: ExprKind::Cast(Box::new(recv.clone())),
        ty: u8_ty.clone(),
    };
    let moved = Expr {
        kind: ExprKind::Binary(op, Box::new(byte), Box::new(Expr::int(32, u8_ty))),
        ty: Type::Int(IntType::U8),
    };
    Expr {
        kind: ExprKind::If {
            cond: Box::new(ascii_class(class, &recv)),
            branch: None,
            then: Box::new(Expr {
                kind: ExprKind::Cast(Box::new(moved)),
                ty: Type::Char,
            }),
            otherwise: Box::new(recv),
        },
        ty: Type::Char,
    }
}
