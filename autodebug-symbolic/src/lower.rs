//! The lowering from syn to the IR ([`crate::ir`]). A file is parsed once; its structs,
//! simple enums, constants and function signatures are collected first (calls and types
//! refer to them by name); then every function body is lowered on its own.
//!
//! The lowering never panics on a file that parses: a construct outside the subset
//! becomes an opaque node (its value, and the values of the variables it may change, come
//! from the trace) and a [`Degradation`](crate::ir::Degradation) of the function, with the
//! construct, its position and the reason.
//!
//! Sites are placed where `autodebug-macros` places them, by the same rules
//! (`autodebug-syntax`, read here as `rules`), so that trace events join IR nodes by
//! position and kind.

mod body;
mod contract;
mod effects;
mod expr;
mod pattern;
mod source;

use autodebug_syntax as rules;
mod types;

use std::collections::{HashMap, HashSet};
use std::fmt;

use syn::ext::IdentExt;
use syn::{Attribute, ImplItem, Item, Signature};

use crate::ir::{EnumDef, IntType, Program, StructDef, Type};
use source::Source;
use types::TypeNames;

/// Why a file could not be lowered at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// The file could not be read.
    Io {
        /// The path as given.
        path: String,
        /// The system's message.
        message: String,
    },
    /// The file is not valid Rust syntax.
    Parse {
        /// The file's name as given.
        file: String,
        /// 1-based line of the error.
        line: u32,
        /// 1-based character column of the error.
        column: u32,
        /// syn's message.
        message: String,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Io { path, message } => write!(f, "cannot read {path}: {message}"),
            Error::Parse {
                file,
                line,
                column,
                message,
            } => write!(f, "{file}:{line}:{column}: {message}"),
        }
    }
}

impl std::error::Error for Error {}

/// Lowers every function of the Rust file `text` (named `file_name` in sites).
pub(crate) fn lower_file(text: &str, file_name: &str) -> Result<Program, Error> {
    let file = autodebug_syntax::parse_file_by_item(text)
        .map(|b| b.file)
        .map_err(|e| {
            let at = source::pos(e.span().start());
            Error::Parse {
                file: file_name.to_string(),
                line: at.line,
                column: at.column,
                message: e.to_string(),
            }
        })?;
    let source = Source::new(text);
    let env = Env::collect(&file, &source);
    let functions = env
        .items
        .iter()
        .map(|item| body::lower_function(&env, item))
        .collect();
    Ok(Program {
        file: file_name.to_string(),
        functions,
        structs: env.structs.clone(),
        enums: env.enums.clone(),
    })
}

/// A function to lower: where it is declared and what applies to it.
pub(crate) struct FnItem<'a> {
    /// The name as the instrumentation names it (`max`, `Stack::push`).
    pub name: String,
    /// Inline modules, outermost first.
    pub module: Vec<String>,
    pub sig: &'a Signature,
    pub block: &'a syn::Block,
    /// The function's own attributes.
    pub attrs: &'a [Attribute],
    /// The `impl` block around a method.
    pub imp: Option<ImplInfo<'a>>,
    /// Whether the instrumentation reports the function's sites.
    pub instrumented: bool,
}

/// What a method takes from its `impl` block.
pub(crate) struct ImplInfo<'a> {
    /// The type's name as sites show it (`Stack` for `Stack<T>`).
    pub type_name: String,
    /// The type `Self` resolves to.
    pub self_ty: Type,
    /// The block's attributes (`#[invariant]`, `#[autodebug]`).
    pub attrs: &'a [Attribute],
    /// The block's type parameters.
    pub generics: HashSet<String>,
}

/// The signature of a function of the program, for calls.
#[derive(Debug, Clone)]
pub(crate) struct FnSig {
    /// The name calls use (`foo`, `Stack::push`).
    pub name: String,
    pub module: Vec<String>,
    /// Parameter types (`self` first) and whether each is `&mut`.
    pub params: Vec<(Type, bool)>,
    /// Whether the first parameter is `self`.
    pub has_self: bool,
    pub ret: Type,
}

/// A constant item: its type and value, lowered where it is used.
pub(crate) struct ConstItem<'a> {
    pub ty: &'a syn::Type,
    pub expr: &'a syn::Expr,
    /// The `impl`'s type for associated constants (`Self` in their type or value).
    pub self_ty: Option<Type>,
    pub self_name: Option<String>,
}

/// Everything about the file that function bodies refer to.
pub(crate) struct Env<'a> {
    pub source: &'a Source<'a>,
    pub names: TypeNames,
    pub structs: Vec<StructDef>,
    pub enums: Vec<EnumDef>,
    /// Constants by name (`MAX`) and associated constants by `Type::NAME`.
    pub consts: HashMap<String, ConstItem<'a>>,
    pub sigs: Vec<FnSig>,
    pub items: Vec<FnItem<'a>>,
}

impl<'a> Env<'a> {
    fn collect(file: &'a syn::File, source: &'a Source<'a>) -> Env<'a> {
        let mut names = TypeNames::default();
        collect_names(&file.items, &mut names, 0);
        let mut env = Env {
            source,
            names,
            structs: Vec::new(),
            enums: Vec::new(),
            consts: HashMap::new(),
            sigs: Vec::new(),
            items: Vec::new(),
        };
        env.collect_items(&file.items, &[], 0);
        env
    }

    /// The signature of the function `name` as called from `module`: the same module
    /// first, then enclosing ones (`use super::*`), then any.
    pub(crate) fn sig(&self, name: &str, module: &[String]) -> Option<&FnSig> {
        for depth in (0..=module.len()).rev() {
            if let Some(sig) = self
                .sigs
                .iter()
                .find(|s| s.name == name && s.module == module[..depth])
            {
                return Some(sig);
            }
        }
        self.sigs.iter().find(|s| s.name == name)
    }

    pub(crate) fn struct_def(&self, name: &str) -> Option<&StructDef> {
        self.structs.iter().find(|s| s.name == name)
    }

    pub(crate) fn enum_def(&self, name: &str) -> Option<&EnumDef> {
        self.enums.iter().find(|e| e.name == name)
    }

    fn resolve(&self, ty: &syn::Type, self_ty: Option<&Type>, generics: &HashSet<String>) -> Type {
        let resolved = types::resolve(ty, &self.names, self_ty, generics);
        self.array_lengths(ty, resolved)
    }

    /// Array lengths given by a constant (`[i32; N]`).
    fn array_lengths(&self, syn_ty: &syn::Type, ty: Type) -> Type {
        match (syn_ty, ty) {
            (syn::Type::Array(a), Type::Seq { elem, len: None }) => {
                let len = match &a.len {
                    syn::Expr::Path(p) => p
                        .path
                        .get_ident()
                        .and_then(|id| self.consts.get(&id.to_string()))
                        .and_then(|c| match c.expr {
                            syn::Expr::Lit(syn::ExprLit {
                                lit: syn::Lit::Int(n),
                                ..
                            }) => n.base10_parse().ok(),
                            _ => None,
                        }),
                    _ => None,
                };
                Type::Seq { elem, len }
            }
            (_, ty) => ty,
        }
    }

    fn collect_items(&mut self, items: &'a [Item], module: &[String], depth: usize) {
        if depth > 16 {
            return;
        }
        let none = HashSet::new();
        for item in items {
            match item {
                Item::Struct(s) if s.generics.params.is_empty() => {
                    let (fields, tuple) = match &s.fields {
                        syn::Fields::Named(named) => (
                            named
                                .named
                                .iter()
                                .map(|f| {
                                    let name = f
                                        .ident
                                        .as_ref()
                                        .map(|i| i.unraw().to_string())
                                        .unwrap_or_default();
                                    (name, self.resolve(&f.ty, None, &none))
                                })
                                .collect(),
                            false,
                        ),
                        syn::Fields::Unnamed(unnamed) => (
                            unnamed
                                .unnamed
                                .iter()
                                .enumerate()
                                .map(|(i, f)| (i.to_string(), self.resolve(&f.ty, None, &none)))
                                .collect(),
                            true,
                        ),
                        syn::Fields::Unit => (Vec::new(), false),
                    };
                    let name = s.ident.unraw().to_string();
                    if self.struct_def(&name).is_none() {
                        self.structs.push(StructDef {
                            name,
                            fields,
                            tuple,
                        });
                    }
                }
                Item::Enum(e) if self.names.enums.contains(&e.ident.unraw().to_string()) => {
                    let name = e.ident.unraw().to_string();
                    if self.enum_def(&name).is_none() {
                        self.enums.push(EnumDef {
                            name,
                            variants: e
                                .variants
                                .iter()
                                .map(|v| v.ident.unraw().to_string())
                                .collect(),
                        });
                    }
                }
                Item::Const(c) => {
                    self.consts
                        .entry(c.ident.unraw().to_string())
                        .or_insert(ConstItem {
                            ty: &c.ty,
                            expr: &c.expr,
                            self_ty: None,
                            self_name: None,
                        });
                }
                Item::Fn(f) => {
                    let name = f.sig.ident.unraw().to_string();
                    self.sigs
                        .push(self.signature(&name, module, &f.sig, None, &none));
                    let instrumented = f.sig.constness.is_none() && f.attrs.iter().any(is_ours);
                    self.items.push(FnItem {
                        name,
                        module: module.to_vec(),
                        sig: &f.sig,
                        block: &f.block,
                        attrs: &f.attrs,
                        imp: None,
                        instrumented,
                    });
                }
                Item::Impl(imp) => self.collect_impl(imp, module),
                Item::Mod(m) => {
                    if let Some((_, items)) = &m.content {
                        let mut inner = module.to_vec();
                        inner.push(m.ident.unraw().to_string());
                        self.collect_items(items, &inner, depth + 1);
                    }
                }
                _ => {}
            }
        }
    }

    fn collect_impl(&mut self, imp: &'a syn::ItemImpl, module: &[String]) {
        let generics: HashSet<String> = imp
            .generics
            .type_params()
            .map(|p| p.ident.to_string())
            .collect();
        let type_name = type_name(&imp.self_ty);
        let self_ty = self.resolve(&imp.self_ty, None, &generics);
        let impl_autodebug = imp.attrs.iter().any(|a| ours(a) == Some(Ours::Autodebug));
        let impl_invariant = imp.attrs.iter().any(|a| ours(a) == Some(Ours::Invariant));
        for item in &imp.items {
            match item {
                ImplItem::Const(c) => {
                    self.consts
                        .entry(format!("{type_name}::{}", c.ident.unraw()))
                        .or_insert(ConstItem {
                            ty: &c.ty,
                            expr: &c.expr,
                            self_ty: Some(self_ty.clone()),
                            self_name: Some(type_name.clone()),
                        });
                }
                ImplItem::Fn(method) => {
                    let name = format!("{type_name}::{}", method.sig.ident.unraw());
                    self.sigs.push(self.signature(
                        &name,
                        module,
                        &method.sig,
                        Some(&self_ty),
                        &generics,
                    ));
                    let has_self = method.sig.receiver().is_some();
                    let not_const = method.sig.constness.is_none();
                    let own = method.attrs.iter().any(is_ours);
                    let wanted = impl_autodebug || own || (impl_invariant && has_self && not_const);
                    self.items.push(FnItem {
                        name,
                        module: module.to_vec(),
                        sig: &method.sig,
                        block: &method.block,
                        attrs: &method.attrs,
                        imp: Some(ImplInfo {
                            type_name: type_name.clone(),
                            self_ty: self_ty.clone(),
                            attrs: &imp.attrs,
                            generics: generics.clone(),
                        }),
                        instrumented: not_const && wanted,
                    });
                }
                _ => {}
            }
        }
    }

    fn signature(
        &self,
        name: &str,
        module: &[String],
        sig: &Signature,
        self_ty: Option<&Type>,
        outer_generics: &HashSet<String>,
    ) -> FnSig {
        let mut generics = outer_generics.clone();
        generics.extend(sig.generics.type_params().map(|p| p.ident.to_string()));
        let mut params = Vec::new();
        let mut has_self = false;
        for input in &sig.inputs {
            match input {
                syn::FnArg::Receiver(r) => {
                    has_self = true;
                    let (ty, mut_ref) = receiver_type(r, self_ty, self, &generics);
                    params.push((ty, mut_ref));
                }
                syn::FnArg::Typed(t) => {
                    params.push((
                        self.resolve(&t.ty, self_ty, &generics),
                        types::is_mut_ref(&t.ty),
                    ));
                }
            }
        }
        FnSig {
            name: name.to_string(),
            module: module.to_vec(),
            params,
            has_self,
            ret: self.return_type(&sig.output, self_ty, &generics),
        }
    }

    pub(crate) fn return_type(
        &self,
        output: &syn::ReturnType,
        self_ty: Option<&Type>,
        generics: &HashSet<String>,
    ) -> Type {
        match output {
            syn::ReturnType::Default => Type::Unit,
            syn::ReturnType::Type(_, ty) => match &**ty {
                syn::Type::Never(_) => Type::Unit,
                ty => self.resolve(ty, self_ty, generics),
            },
        }
    }
}

/// The type of `self` and whether it is `&mut self`.
pub(crate) fn receiver_type(
    r: &syn::Receiver,
    self_ty: Option<&Type>,
    env: &Env,
    generics: &HashSet<String>,
) -> (Type, bool) {
    let self_ty = self_ty
        .cloned()
        .unwrap_or_else(|| Type::Opaque("`self` outside an impl".into()));
    match &r.kind {
        syn::ReceiverKind::Reference(_, _, mutability) => (self_ty, mutability.is_some()),
        syn::ReceiverKind::Typed(_, ty) => (
            env.resolve(ty, Some(&self_ty), generics),
            types::is_mut_ref(ty),
        ),
        _ => (self_ty, false),
    }
}

/// Struct and enum names first, so that field types can name types declared later.
fn collect_names(items: &[Item], names: &mut TypeNames, depth: usize) {
    if depth > 16 {
        return;
    }
    for item in items {
        match item {
            Item::Struct(s) if s.generics.params.is_empty() => {
                names.structs.insert(s.ident.unraw().to_string());
            }
            Item::Enum(e) => {
                let name = e.ident.unraw().to_string();
                let simple = e.generics.params.is_empty()
                    && e.variants
                        .iter()
                        .all(|v| matches!(v.fields, syn::Fields::Unit));
                if simple {
                    names.enums.insert(name);
                } else {
                    names.data_enums.insert(name);
                }
            }
            Item::Mod(m) => {
                if let Some((_, items)) = &m.content {
                    collect_names(items, names, depth + 1);
                }
            }
            _ => {}
        }
    }
}

/// The name of the type of an `impl` as sites show it: the last path segment without
/// generic arguments (`Stack` for `Stack<T>`), as the macro computes it.
fn type_name(ty: &syn::Type) -> String {
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => match p.path.segments.last() {
            Some(seg) => seg.ident.unraw().to_string(),
            None => String::new(),
        },
        syn::Type::Reference(r) => type_name(&r.elem),
        other => quote::ToTokens::to_token_stream(other)
            .to_string()
            .replace(' ', ""),
    }
}

/// The attributes of `autodebug-macros`, recognized as the macro recognizes them: by the
/// last segment of the path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ours {
    Requires,
    Ensures,
    Invariant,
    Autodebug,
}

/// Which of our attributes `attr` is, with its gate.
pub(crate) fn ours_gated(attr: &Attribute) -> Option<(Ours, crate::ir::Gate)> {
    use crate::ir::Gate;
    let name = attr.path().segments.last()?.ident.to_string();
    if name == "autodebug" {
        return Some((Ours::Autodebug, Gate::Always));
    }
    let (gate, rest) = if let Some(rest) = name.strip_prefix("debug_") {
        (Gate::Debug, rest)
    } else if let Some(rest) = name.strip_prefix("test_") {
        (Gate::Test, rest)
    } else {
        (Gate::Always, name.as_str())
    };
    let kind = match rest {
        "requires" => Ours::Requires,
        "ensures" => Ours::Ensures,
        "invariant" => Ours::Invariant,
        _ => return None,
    };
    Some((kind, gate))
}

fn ours(attr: &Attribute) -> Option<Ours> {
    ours_gated(attr).map(|(o, _)| o)
}

fn is_ours(attr: &Attribute) -> bool {
    ours(attr).is_some()
}

/// `i32::MAX`, `u8::BITS`, … as literals.
pub(crate) fn int_constant(ty: &str, item: &str) -> Option<(i128, Type)> {
    let int = IntType::from_name(ty)?;
    match item {
        "MAX" => int.max_value().map(|v| (v, Type::Int(int))),
        "MIN" => Some((int.min_value(), Type::Int(int))),
        "BITS" => Some((int.bits() as i128, Type::Int(IntType::U32))),
        _ => None,
    }
}
