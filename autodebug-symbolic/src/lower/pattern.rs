//! Patterns (of `match` arms, `if let`, `let … else`, parameters and `for` loops) as a test
//! on the scrutinee and the values of the variables they bind. Tests use short-circuit
//! `&&`, so a projection (`unwrap` of a `Some(x)` pattern) is only evaluated once the test
//! before it held.

use syn::ext::IdentExt;

use super::body::{FnLowerer, MAX_DEPTH, and, not};
use crate::ir::{BinOp, Expr, ExprKind, Pos, Type};

/// A variable a pattern binds, and its value in terms of the scrutinee.
#[derive(Debug, Clone)]
pub(crate) struct PatBinding {
    pub name: String,
    pub value: Expr,
    /// Where the name is bound.
    pub at: Pos,
}

/// A lowered pattern.
#[derive(Debug, Clone)]
pub(crate) struct Lowered {
    /// What must hold for the pattern to match (`None`: it always matches).
    pub test: Option<Expr>,
    pub bindings: Vec<PatBinding>,
}

impl Lowered {
    fn always() -> Lowered {
        Lowered {
            test: None,
            bindings: Vec::new(),
        }
    }

    fn test(test: Expr) -> Lowered {
        Lowered {
            test: Some(test),
            bindings: Vec::new(),
        }
    }

    /// Both patterns (the second is tested after the first held).
    fn then(mut self, next: Lowered) -> Lowered {
        self.test = match (self.test, next.test) {
            (Some(a), Some(b)) => Some(and(a, b)),
            (a, b) => a.or(b),
        };
        self.bindings.extend(next.bindings);
        self
    }
}

impl FnLowerer<'_, '_> {
    /// `pat` matched against `scrutinee`; `Err` with the reason when the pattern is outside
    /// the subset.
    pub(crate) fn pattern(&mut self, pat: &syn::Pat, scrutinee: &Expr) -> Result<Lowered, String> {
        if self.depth > MAX_DEPTH {
            return Err("a pattern nested too deeply".into());
        }
        self.depth += 1;
        let result = self.pattern_inner(pat, scrutinee);
        self.depth -= 1;
        result
    }

    fn pattern_inner(&mut self, pat: &syn::Pat, scrutinee: &Expr) -> Result<Lowered, String> {
        match pat {
            syn::Pat::Wild(_) | syn::Pat::Rest(_) => Ok(Lowered::always()),
            syn::Pat::Paren(p) => self.pattern(&p.pat, scrutinee),
            syn::Pat::Reference(r) => self.pattern(&r.pat, scrutinee),
            syn::Pat::Type(t) => {
                let ty = self
                    .env
                    .resolve(&t.ty, self.self_ty.as_ref(), &self.generics);
                self.inf.unify(&ty, &scrutinee.ty);
                self.pattern(&t.pat, scrutinee)
            }
            syn::Pat::Ident(p) => self.ident_pattern(p, scrutinee),
            syn::Pat::Lit(lit) => {
                let mut scratch = Vec::new();
                let value = self.expr(&syn::Expr::Lit(lit.clone()), &mut scratch);
                if matches!(value.kind, ExprKind::Opaque { .. }) {
                    return Err("a literal pattern outside the subset".into());
                }
                Ok(Lowered::test(self.eq(scrutinee.clone(), value)))
            }
            syn::Pat::Range(r) => self.range_pattern(r, scrutinee),
            syn::Pat::Path(p) => {
                let mut scratch = Vec::new();
                let value = self.expr(&syn::Expr::Path(p.clone()), &mut scratch);
                if matches!(value.kind, ExprKind::Opaque { .. }) || !scratch.is_empty() {
                    return Err(
                        "a path pattern that is not a constant or variant of this file".into(),
                    );
                }
                if matches!(value.kind, ExprKind::OptionNone) {
                    return Ok(Lowered::test(not(is_some(scrutinee.clone()))));
                }
                Ok(Lowered::test(self.eq(scrutinee.clone(), value)))
            }
            syn::Pat::Or(o) => self.or_pattern(o, scrutinee),
            syn::Pat::Tuple(t) => self.tuple_pattern(&t.elems, scrutinee),
            syn::Pat::TupleStruct(ts) => self.tuple_struct_pattern(ts, scrutinee),
            syn::Pat::Struct(s) => self.struct_pattern(s, scrutinee),
            _ => Err("this kind of pattern is outside the subset".into()),
        }
    }

    /// A binding (`x`, `x @ sub`), or a test where the name is a constant or `None`.
    fn ident_pattern(&mut self, p: &syn::PatIdent, scrutinee: &Expr) -> Result<Lowered, String> {
        let name = p.ident.unraw().to_string();
        if p.by_ref.is_some() && p.mutability.is_some() {
            return Err("a `ref mut` binding: writes through it are not modeled".into());
        }
        if p.subpat.is_none() {
            // An identifier naming a constant or `None` is a test, not a binding.
            if name == "None" {
                return Ok(Lowered::test(not(is_some(scrutinee.clone()))));
            }
            if self.env.consts.contains_key(&name) || self.local_const(&name).is_some() {
                let path: syn::Expr = syn::Expr::Path(syn::ExprPath {
                    attrs: Vec::new(),
                    qself: None,
                    path: p.ident.clone().into(),
                });
                let value = self.expr(&path, &mut Vec::new());
                return Ok(Lowered::test(self.eq(scrutinee.clone(), value)));
            }
        }
        if self.mut_scrutinee {
            return Err("a binding into a `&mut` value: writes through it are not modeled".into());
        }
        let binding = Lowered {
            test: None,
            bindings: vec![PatBinding {
                name,
                value: scrutinee.clone(),
                at: self.pos_of(&p.ident),
            }],
        };
        match &p.subpat {
            Some((_, sub)) => Ok(self.pattern(sub, scrutinee)?.then(binding)),
            None => Ok(binding),
        }
    }

    /// `a..b`, `a..=b`, `a..`: bounds tests of the scrutinee.
    fn range_pattern(&mut self, r: &syn::PatRange, scrutinee: &Expr) -> Result<Lowered, String> {
        let mut scratch = Vec::new();
        let mut test: Option<Expr> = None;
        if let Some(start) = &r.start {
            let start = self.expr(start, &mut scratch);
            test = Some(self.compare(BinOp::Ge, scrutinee.clone(), start));
        }
        if let Some(end) = &r.end {
            let end = self.expr(end, &mut scratch);
            let op = match r.limits {
                syn::RangeLimits::Closed(_) => BinOp::Le,
                _ => BinOp::Lt,
            };
            let upper = self.compare(op, scrutinee.clone(), end);
            test = Some(match test {
                Some(lower) => and(lower, upper),
                None => upper,
            });
        }
        if !scratch.is_empty() {
            return Err("a range pattern with computed bounds".into());
        }
        Ok(Lowered {
            test,
            bindings: Vec::new(),
        })
    }

    /// `a | b`: any case's test (no case may bind).
    fn or_pattern(&mut self, o: &syn::PatOr, scrutinee: &Expr) -> Result<Lowered, String> {
        let mut test: Option<Expr> = None;
        for case in &o.cases {
            let lowered = self.pattern(case, scrutinee)?;
            if !lowered.bindings.is_empty() {
                return Err("bindings in an or-pattern".into());
            }
            let case_test = lowered.test.unwrap_or_else(|| Expr::bool(true));
            test = Some(match test {
                Some(t) => Expr {
                    kind: ExprKind::Binary(BinOp::Or, Box::new(t), Box::new(case_test)),
                    ty: Type::Bool,
                },
                None => case_test,
            });
        }
        Ok(Lowered {
            test,
            bindings: Vec::new(),
        })
    }

    /// `Some(p)`, or a tuple struct of this file's `S(a, b)`.
    fn tuple_struct_pattern(
        &mut self,
        ts: &syn::PatTupleStruct,
        scrutinee: &Expr,
    ) -> Result<Lowered, String> {
        let segments: Vec<String> = ts
            .path
            .segments
            .iter()
            .map(|s| s.ident.unraw().to_string())
            .collect();
        let last = segments.last().cloned().unwrap_or_default();
        if last == "Some" && ts.elems.len() == 1 {
            let inner = match self.inf.shallow(&scrutinee.ty) {
                Type::Option(inner) => *inner,
                _ => {
                    let inner = self.inf.fresh();
                    self.inf
                        .unify(&scrutinee.ty, &Type::Option(Box::new(inner.clone())));
                    inner
                }
            };
            let value = Expr {
                kind: ExprKind::Unwrap(Box::new(scrutinee.clone())),
                ty: inner,
            };
            let inner = self.pattern(&ts.elems[0], &value)?;
            return Ok(Lowered::test(is_some(scrutinee.clone())).then(inner));
        }
        let name = if last == "Self" {
            self.self_name.clone().unwrap_or_default()
        } else {
            last
        };
        match self.env.struct_def(&name).cloned() {
            Some(def) if def.tuple => {
                let mut lowered = Lowered::always();
                let mut fields = def.fields.iter();
                for elem in &ts.elems {
                    if matches!(elem, syn::Pat::Rest(_)) {
                        break;
                    }
                    let Some((fname, fty)) = fields.next() else {
                        return Err("too many fields in a tuple-struct pattern".into());
                    };
                    let value = Expr {
                        kind: ExprKind::Field(Box::new(scrutinee.clone()), fname.clone()),
                        ty: fty.clone(),
                    };
                    lowered = lowered.then(self.pattern(elem, &value)?);
                }
                Ok(lowered)
            }
            _ => Err(format!(
                "the pattern `{name}(..)`: variants with fields are outside the subset"
            )),
        }
    }

    /// A struct of this file's `S { a, b: p, .. }`.
    fn struct_pattern(&mut self, s: &syn::PatStruct, scrutinee: &Expr) -> Result<Lowered, String> {
        let name = s
            .path
            .segments
            .last()
            .map(|seg| seg.ident.unraw().to_string())
            .unwrap_or_default();
        let name = if name == "Self" {
            self.self_name.clone().unwrap_or_default()
        } else {
            name
        };
        let Some(def) = self.env.struct_def(&name).cloned() else {
            return Err(format!(
                "the pattern `{name} {{ .. }}`: not a struct of this file"
            ));
        };
        let mut lowered = Lowered::always();
        for field in &s.fields {
            let fname = match &field.member {
                syn::Member::Named(id) => id.unraw().to_string(),
                syn::Member::Unnamed(i) => i.index.to_string(),
            };
            let Some((_, fty)) = def.fields.iter().find(|(n, _)| *n == fname) else {
                return Err(format!("`{name}` has no field `{fname}`"));
            };
            let value = Expr {
                kind: ExprKind::Field(Box::new(scrutinee.clone()), fname),
                ty: fty.clone(),
            };
            lowered = lowered.then(self.pattern(&field.pat, &value)?);
        }
        Ok(lowered)
    }

    fn tuple_pattern(
        &mut self,
        elems: &syn::punctuated::Punctuated<syn::Pat, syn::Token![,]>,
        scrutinee: &Expr,
    ) -> Result<Lowered, String> {
        let rest = elems.iter().position(|p| matches!(p, syn::Pat::Rest(_)));
        let types = match self.inf.shallow(&scrutinee.ty) {
            Type::Tuple(types) => types,
            Type::Infer(_) if rest.is_none() => {
                let types: Vec<Type> = elems.iter().map(|_| self.inf.fresh()).collect();
                self.inf.unify(&scrutinee.ty, &Type::Tuple(types.clone()));
                types
            }
            Type::Unit if elems.is_empty() => return Ok(Lowered::always()),
            other => return Err(format!("a tuple pattern on a value of type {other}")),
        };
        let mut lowered = Lowered::always();
        let count = elems.len();
        for (i, elem) in elems.iter().enumerate() {
            let at = match rest {
                Some(r) if i == r => continue,
                Some(r) if i > r => match types.len().checked_sub(count - i) {
                    Some(at) => at,
                    None => return Err("a tuple pattern longer than the tuple".into()),
                },
                _ => i,
            };
            let Some(ty) = types.get(at).cloned() else {
                return Err("a tuple pattern longer than the tuple".into());
            };
            let value = Expr {
                kind: ExprKind::TupleField(Box::new(scrutinee.clone()), at),
                ty,
            };
            lowered = lowered.then(self.pattern(elem, &value)?);
        }
        Ok(lowered)
    }

    fn eq(&mut self, a: Expr, b: Expr) -> Expr {
        self.inf.unify(&a.ty, &b.ty);
        Expr {
            kind: ExprKind::Binary(BinOp::Eq, Box::new(a), Box::new(b)),
            ty: Type::Bool,
        }
    }

    fn compare(&mut self, op: BinOp, a: Expr, b: Expr) -> Expr {
        self.inf.unify(&a.ty, &b.ty);
        Expr {
            kind: ExprKind::Binary(op, Box::new(a), Box::new(b)),
            ty: Type::Bool,
        }
    }
}

fn is_some(e: Expr) -> Expr {
    Expr {
        kind: ExprKind::IsSome(Box::new(e)),
        ty: Type::Bool,
    }
}
