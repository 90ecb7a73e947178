//! Types: syn's types resolved to the IR's (references are transparent: the IR has values,
//! and `&mut` parameters are marked on the variable), and the inference of the types Rust
//! leaves implicit (unsuffixed literals, `let` without annotation) by unification.

use std::collections::HashSet;

use quote::ToTokens;
use syn::ext::IdentExt;

use crate::ir::{IntType, Type};

/// The names of the file's structs and simple enums, for resolving paths to types.
#[derive(Default)]
pub(crate) struct TypeNames {
    pub structs: HashSet<String>,
    pub enums: HashSet<String>,
    /// Enums whose variants carry data: opaque.
    pub data_enums: HashSet<String>,
}

/// Resolves a syn type. `self_ty` is the type `Self` names; `generics` the type parameters
/// in scope (opaque). `mut_ref` is set when the type is `&mut T`.
pub(crate) fn resolve(
    ty: &syn::Type,
    names: &TypeNames,
    self_ty: Option<&Type>,
    generics: &HashSet<String>,
) -> Type {
    resolve_depth(ty, names, self_ty, generics, 0)
}

fn resolve_depth(
    ty: &syn::Type,
    names: &TypeNames,
    self_ty: Option<&Type>,
    generics: &HashSet<String>,
    depth: usize,
) -> Type {
    if depth > 32 {
        return Type::Opaque("type nested too deeply".into());
    }
    let again = |t: &syn::Type| resolve_depth(t, names, self_ty, generics, depth + 1);
    match ty {
        syn::Type::Paren(p) => again(&p.elem),
        syn::Type::Group(g) => again(&g.elem),
        syn::Type::Reference(r) => match &*r.elem {
            syn::Type::Path(p) if p.path.is_ident("str") => Type::Opaque("&str".into()),
            elem => again(elem),
        },
        syn::Type::Slice(s) => Type::Seq {
            elem: Box::new(again(&s.elem)),
            len: None,
        },
        syn::Type::Array(a) => Type::Seq {
            elem: Box::new(again(&a.elem)),
            len: array_len(&a.len),
        },
        syn::Type::Tuple(t) if t.elems.is_empty() => Type::Unit,
        syn::Type::Tuple(t) if t.elems.len() == 1 => again(&t.elems[0]),
        syn::Type::Tuple(t) => Type::Tuple(t.elems.iter().map(again).collect()),
        syn::Type::Path(p) if p.qself.is_none() => {
            let Some(last) = p.path.segments.last() else {
                return opaque_type(ty);
            };
            let name = last.ident.unraw().to_string();
            let args: Vec<&syn::Type> = match &last.arguments {
                syn::PathArguments::AngleBracketed(a) => a
                    .args
                    .iter()
                    .filter_map(|arg| match arg {
                        syn::GenericArgument::Type(t) => Some(t),
                        _ => None,
                    })
                    .collect(),
                _ => Vec::new(),
            };
            if p.path.segments.len() == 1 && generics.contains(&name) {
                return Type::Opaque(format!("generic `{name}`"));
            }
            match (name.as_str(), args.as_slice()) {
                ("bool", []) => Type::Bool,
                ("char", []) => Type::Char,
                ("Self", []) => self_ty
                    .cloned()
                    .unwrap_or_else(|| Type::Opaque("`Self` outside an impl".into())),
                ("Vec", [elem]) => Type::Seq {
                    elem: Box::new(again(elem)),
                    len: None,
                },
                ("Option", [inner]) => Type::Option(Box::new(again(inner))),
                (n, []) if IntType::from_name(n).is_some() => {
                    Type::Int(IntType::from_name(n).unwrap_or(IntType::I32))
                }
                (n, []) if names.structs.contains(n) => Type::Struct(n.to_string()),
                (n, []) if names.enums.contains(n) => Type::Enum(n.to_string()),
                _ => opaque_type(ty),
            }
        }
        _ => opaque_type(ty),
    }
}

fn opaque_type(ty: &syn::Type) -> Type {
    let text = ty.to_token_stream().to_string().replace(' ', "");
    let text: String = text.chars().take(60).collect();
    Type::Opaque(format!("type `{text}`"))
}

/// The length of an array type when it is an integer literal (`[i32; 4]`); constants are
/// resolved by the caller when it knows them.
fn array_len(expr: &syn::Expr) -> Option<u64> {
    match expr {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(n),
            ..
        }) => n.base10_parse().ok(),
        _ => None,
    }
}

/// Whether `ty` is `&mut T`.
pub(crate) fn is_mut_ref(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Reference(r) => r.mutability.is_some(),
        syn::Type::Paren(p) => is_mut_ref(&p.elem),
        syn::Type::Group(g) => is_mut_ref(&g.elem),
        _ => false,
    }
}

/// The inference variables of one function: each is unbound or bound to a type (which may
/// mention other variables); `int_only` variables stand for integer literals.
#[derive(Default)]
pub(crate) struct Inference {
    bound: Vec<Option<Type>>,
    int_only: Vec<bool>,
}

impl Inference {
    /// A fresh variable for any type.
    pub(crate) fn fresh(&mut self) -> Type {
        self.bound.push(None);
        self.int_only.push(false);
        Type::Infer(self.bound.len() as u32 - 1)
    }

    /// A fresh variable for an unsuffixed integer literal.
    pub(crate) fn fresh_int(&mut self) -> Type {
        self.bound.push(None);
        self.int_only.push(true);
        Type::Infer(self.bound.len() as u32 - 1)
    }

    /// The type with its outermost variables followed.
    pub(crate) fn shallow(&self, ty: &Type) -> Type {
        let mut ty = ty.clone();
        for _ in 0..=self.bound.len() {
            match &ty {
                Type::Infer(n) => match self.bound.get(*n as usize) {
                    Some(Some(next)) => ty = next.clone(),
                    _ => return ty,
                },
                _ => return ty,
            }
        }
        ty
    }

    /// Whether the type is an integer, or a variable for one.
    pub(crate) fn is_int(&self, ty: &Type) -> bool {
        match self.shallow(ty) {
            Type::Int(_) => true,
            Type::Infer(n) => self.int_only.get(n as usize).copied().unwrap_or(false),
            _ => false,
        }
    }

    /// Makes the two types equal where one of them is not known yet. A mismatch of known
    /// types is ignored: the code compiled, so it is our model of it (references, coercions)
    /// that differs, and the first type wins.
    pub(crate) fn unify(&mut self, a: &Type, b: &Type) {
        self.unify_depth(a, b, 0);
    }

    fn unify_depth(&mut self, a: &Type, b: &Type, depth: usize) {
        if depth > 32 {
            return;
        }
        let (a, b) = (self.shallow(a), self.shallow(b));
        match (&a, &b) {
            (Type::Infer(x), Type::Infer(y)) if x != y => {
                let int = self.is_int(&a) || self.is_int(&b);
                if let Some(slot) = self.int_only.get_mut(*y as usize) {
                    *slot = int;
                }
                self.bind(*x, b.clone());
            }
            (Type::Infer(_), Type::Infer(_)) => {}
            (Type::Infer(x), other) | (other, Type::Infer(x)) => {
                let int_only = self.int_only.get(*x as usize).copied().unwrap_or(false);
                if int_only && !matches!(other, Type::Int(_)) {
                    return;
                }
                if !self.occurs(*x, other, 0) {
                    self.bind(*x, other.clone());
                }
            }
            (Type::Seq { elem: e1, .. }, Type::Seq { elem: e2, .. }) => {
                self.unify_depth(e1, e2, depth + 1)
            }
            (Type::Option(x), Type::Option(y)) => self.unify_depth(x, y, depth + 1),
            (Type::Tuple(xs), Type::Tuple(ys)) if xs.len() == ys.len() => {
                for (x, y) in xs.iter().zip(ys) {
                    self.unify_depth(x, y, depth + 1);
                }
            }
            _ => {}
        }
    }

    fn bind(&mut self, var: u32, ty: Type) {
        if let Some(slot) = self.bound.get_mut(var as usize) {
            *slot = Some(ty);
        }
    }

    fn occurs(&self, var: u32, ty: &Type, depth: usize) -> bool {
        if depth > 32 {
            return true;
        }
        match self.shallow(ty) {
            Type::Infer(n) => n == var,
            Type::Seq { elem, .. } => self.occurs(var, &elem, depth + 1),
            Type::Option(inner) => self.occurs(var, &inner, depth + 1),
            Type::Tuple(elems) => elems.iter().any(|e| self.occurs(var, e, depth + 1)),
            _ => false,
        }
    }

    /// The type with every variable replaced: unbound integer variables are `i32` (Rust's
    /// default), other unbound ones opaque.
    pub(crate) fn finish(&self, ty: &Type) -> Type {
        self.finish_depth(ty, 0)
    }

    fn finish_depth(&self, ty: &Type, depth: usize) -> Type {
        if depth > 32 {
            return Type::Opaque("type nested too deeply".into());
        }
        match self.shallow(ty) {
            Type::Infer(n) => {
                if self.int_only.get(n as usize).copied().unwrap_or(false) {
                    Type::Int(IntType::I32)
                } else {
                    Type::Opaque("type not inferred".into())
                }
            }
            Type::Seq { elem, len } => Type::Seq {
                elem: Box::new(self.finish_depth(&elem, depth + 1)),
                len,
            },
            Type::Option(inner) => Type::Option(Box::new(self.finish_depth(&inner, depth + 1))),
            Type::Tuple(elems) => Type::Tuple(
                elems
                    .iter()
                    .map(|e| self.finish_depth(e, depth + 1))
                    .collect(),
            ),
            other => other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ty(text: &str) -> Type {
        let names = TypeNames {
            structs: ["Point".to_string()].into(),
            enums: ["Color".to_string()].into(),
            ..TypeNames::default()
        };
        let generics = ["T".to_string()].into();
        resolve(
            &syn::parse_str(text).unwrap(),
            &names,
            Some(&Type::Struct("Point".into())),
            &generics,
        )
    }

    #[test]
    fn resolves_the_subset_and_makes_the_rest_opaque() {
        assert_eq!(ty("usize"), Type::Int(IntType::Usize));
        assert_eq!(ty("&mut [i8]").to_string(), "[i8]");
        assert_eq!(ty("&Vec<u128>").to_string(), "[u128]");
        assert_eq!(ty("[char; 4]").to_string(), "[char; 4]");
        assert_eq!(ty("(bool, Option<i64>)").to_string(), "(bool, Option<i64>)");
        assert_eq!(ty("Self"), Type::Struct("Point".into()));
        assert_eq!(ty("Color"), Type::Enum("Color".into()));
        assert_eq!(ty("()"), Type::Unit);
        assert!(matches!(ty("String"), Type::Opaque(_)));
        assert!(matches!(ty("&str"), Type::Opaque(_)));
        assert_eq!(ty("T"), Type::Opaque("generic `T`".into()));
        assert!(ty("Vec<T>").is_opaque());
        assert!(is_mut_ref(&syn::parse_str("&mut Vec<i32>").unwrap()));
    }

    #[test]
    fn literals_default_to_i32_and_unify_with_known_integers() {
        let mut inf = Inference::default();
        let a = inf.fresh_int();
        let b = inf.fresh_int();
        let c = inf.fresh();
        inf.unify(&a, &c);
        assert!(inf.is_int(&c));
        assert_eq!(inf.finish(&a), Type::Int(IntType::I32));
        inf.unify(&b, &Type::Int(IntType::U8));
        assert_eq!(inf.finish(&b), Type::Int(IntType::U8));
        // An integer variable never becomes a non-integer.
        inf.unify(&a, &Type::Bool);
        assert_eq!(inf.finish(&a), Type::Int(IntType::I32));
        let d = inf.fresh();
        assert!(matches!(inf.finish(&d), Type::Opaque(_)));
        let e = inf.fresh();
        inf.unify(
            &e,
            &Type::Seq {
                elem: Box::new(a.clone()),
                len: None,
            },
        );
        assert_eq!(inf.finish(&e).to_string(), "[i32]");
    }
}
