//! The lowering of expressions: literals, names (variables, constants, enum variants),
//! operators with their types, casts, indexing, fields, methods and calls of the subset,
//! conditions with their operand sites. An expression that needs statements (a block, a
//! `match`, an `if` whose branches do more than produce a value) pushes them before the
//! statement being lowered and yields a temporary.

mod call;
mod cond;
mod method;
mod ops;

use syn::ext::IdentExt;

use super::body::{Binding, FnLowerer, MAX_DEPTH, Mode, Target, unit};
use super::rules;
use crate::ir::{Expr, ExprKind, IntType, Lit, Place, Stmt, Type, VarId, VarKind};

pub(crate) use method::READ_ONLY_METHODS;

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
