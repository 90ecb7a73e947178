//! The peer source: a binding where its peer was meant. In a method that takes another
//! value of its own type, `self` and that parameter are peers (`self.len() == self.len()`
//! for `self.len() == other.len()` in `fn eq(&self, other: &Self)`), and so are the
//! parameters of a function that have the same declared type (`a.x - a.x` for `b.x - a.x`
//! in `fn dx(a: &Point, b: &Point)`). Each occurrence of one in the site's code is replaced
//! by each of its peers. The peers come from the signature as written: a parameter of type
//! `Self`, of the `impl` block's type, or of the type the implemented trait is generic over
//! (`Rhs` of `impl PartialOrd<Rhs> for T`) is `self`'s peer, with references and lifetimes
//! aside. The variable source swaps the variables whose recorded values have a type the
//! runtime reads, and they are left to it; these are the bindings it cannot type, so a
//! rebuild judges each swap.

use std::collections::{BTreeMap, VecDeque};
use std::ops::Range;

use quote::ToTokens;
use syn::spanned::Spanned;
use syn::visit::{self, Visit};

use super::{Candidate, CandidateEdit, Files, Target, patch};

/// The source's name in the report.
pub const NAME: &str = "peer";
/// A binding replaced by a peer of its type.
pub const PEER: &str = "peer-binding";

/// As far as a variable swap (2) and a step: the swap may not type-check.
const COST: u32 = 3;

/// A function's peer groups: names that stand for values of one type.
type Groups = Vec<Vec<String>>;

/// A type as written, without references, lifetimes and `mut`: `Point` of `&'a mut Point`.
fn bare(ty: &syn::Type) -> String {
    match ty {
        syn::Type::Reference(r) => bare(&r.elem),
        syn::Type::Paren(p) => bare(&p.elem),
        syn::Type::Group(g) => bare(&g.elem),
        _ => patch::squeeze(&ty.to_token_stream().to_string()),
    }
}

/// The peer groups of a function with signature `sig`, in an `impl` of `self_ty` (for a
/// trait generic over `trait_args`).
fn groups(sig: &syn::Signature, self_ty: Option<&str>, trait_args: &[String]) -> Groups {
    let mut receiver = false;
    let mut typed: Vec<(String, String)> = Vec::new();
    for input in &sig.inputs {
        match input {
            syn::FnArg::Receiver(_) => receiver = true,
            syn::FnArg::Typed(t) => {
                if let syn::Pat::Ident(p) = &*t.pat
                    && p.subpat.is_none()
                {
                    typed.push((p.ident.to_string(), bare(&t.ty)));
                }
            }
        }
    }
    let mut out: Groups = Vec::new();
    if receiver {
        let own =
            |ty: &str| ty == "Self" || Some(ty) == self_ty || trait_args.iter().any(|a| a == ty);
        let mut group = vec!["self".to_string()];
        group.extend(
            typed
                .iter()
                .filter(|(_, ty)| own(ty))
                .map(|(n, _)| n.clone()),
        );
        if group.len() > 1 {
            out.push(group);
        }
    }
    let mut by_type: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for (name, ty) in &typed {
        by_type.entry(ty.as_str()).or_default().push(name.clone());
    }
    for (_, names) in by_type {
        if names.len() > 1 && !out.iter().any(|g| names.iter().all(|n| g.contains(n))) {
            out.push(names);
        }
    }
    out
}

/// Finds the innermost function whose body holds the bytes `at`, and its peer groups.
struct Enclosing {
    at: Range<usize>,
    /// The `impl` block being visited: its type and the implemented trait's type arguments.
    block: Option<(String, Vec<String>)>,
    found: Option<Groups>,
}

impl Enclosing {
    fn consider(&mut self, sig: &syn::Signature, body: &syn::Block, in_block: bool) {
        let bytes = body.span().byte_range();
        if bytes.start <= self.at.start && self.at.end <= bytes.end {
            let (self_ty, args) = match (&self.block, in_block) {
                (Some((ty, args)), true) => (Some(ty.as_str()), args.as_slice()),
                _ => (None, &[][..]),
            };
            self.found = Some(groups(sig, self_ty, args));
        }
    }
}

impl<'ast> Visit<'ast> for Enclosing {
    fn visit_item_impl(&mut self, block: &'ast syn::ItemImpl) {
        let segment = (block.trait_.as_ref()).and_then(|(path, _)| path.segments.last());
        let args = match segment.map(|s| &s.arguments) {
            Some(syn::PathArguments::AngleBracketed(a)) => (a.args.iter())
                .filter_map(|arg| match arg {
                    syn::GenericArgument::Type(ty) => Some(bare(ty)),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        };
        let outer = self.block.replace((bare(&block.self_ty), args));
        visit::visit_item_impl(self, block);
        self.block = outer;
    }

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        let outer = self.block.take();
        self.consider(&f.sig, &f.block, false);
        visit::visit_item_fn(self, f);
        self.block = outer;
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        self.consider(&f.sig, &f.block, true);
        visit::visit_impl_item_fn(self, f);
    }

    fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
        if let Some(body) = &f.default {
            self.consider(&f.sig, body, false);
        }
        visit::visit_trait_item_fn(self, f);
    }
}

/// The single-name paths of the site's code with their bytes, outside closures (whose
/// parameters may shadow a name).
#[derive(Default)]
struct Names(Vec<(Range<usize>, String)>);

impl<'ast> Visit<'ast> for Names {
    fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
        if p.qself.is_none()
            && let Some(ident) = p.path.get_ident()
        {
            self.0.push((ident.span().byte_range(), ident.to_string()));
        }
    }

    fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}

    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// The source: per target its candidates in order.
pub struct Peers<'a> {
    files: &'a Files,
    queues: super::Queues,
}

impl<'a> Peers<'a> {
    /// A source over the targets' `files` as read.
    pub fn new(files: &'a Files) -> Peers<'a> {
        Peers {
            files,
            queues: BTreeMap::new(),
        }
    }

    fn candidates(&mut self, target: &Target) -> VecDeque<Candidate> {
        let mut out = VecDeque::new();
        let Some((_, file)) = self.files.parsed(&target.path) else {
            return out;
        };
        let mut enclosing = Enclosing {
            at: target.located.bytes.clone(),
            block: None,
            found: None,
        };
        enclosing.visit_file(&file);
        // Bindings whose values the runtime recorded are the variable source's to swap.
        let recorded = |name: &String| target.types.vars.contains_key(name);
        let groups: Groups = (enclosing.found.unwrap_or_default().into_iter())
            .map(|g| g.into_iter().filter(|n| !recorded(n)).collect::<Vec<_>>())
            .filter(|g| g.len() > 1)
            .collect();
        let original = &target.located.original;
        let Ok(written) = syn::parse_str::<syn::Expr>(original) else {
            return out;
        };
        let mut names = Names::default();
        names.visit_expr(&written);
        for (range, name) in &names.0 {
            for group in groups.iter().filter(|g| g.contains(name)) {
                for peer in group.iter().filter(|p| *p != name) {
                    let rust = format!(
                        "{}{peer}{}",
                        &original[..range.start],
                        &original[range.end..]
                    );
                    let edit = CandidateEdit::at(target.site.key(), rust);
                    out.push_back(Candidate::one(edit, PEER, COST, NAME));
                }
            }
        }
        out
    }
}

super::listed!(Peers<'_>);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repair::CandidateSource;
    use crate::repair::expression::Types;
    use crate::repair::scratch_target;
    use autodebug_runtime::protocol::SiteKind;

    const TEXT: &str = "\
pub struct Point { x: i64, y: i64 }

impl Point {
    pub fn same_row(&self, other: &Point) -> bool {
        self.y == self.y
    }
    pub fn scaled(&self, k: i64) -> i64 {
        self.x * k
    }
}

impl PartialOrd<Row> for Point {
    fn partial_cmp(&self, other: &Row) -> Option<std::cmp::Ordering> {
        other.y.partial_cmp(&other.y)
    }
}

pub fn dx(a: &Point, b: &Point, k: i64) -> i64 {
    a.x - a.x + k
}

pub fn keys(a: &Point, b: &Point) -> i64 {
    [a.x, b.x].iter().map(|a| a * 2).sum()
}

macro_rules! eq_both_ways {
    ($lhs:ty, $rhs:ty) => {
        impl PartialEq<$lhs> for $rhs {
            fn eq(&self, other: &$lhs) -> bool {
                other.key() == other.key()
            }
        }
    };
}
";

    fn candidates(code: &str, kind: SiteKind) -> Vec<String> {
        let (files, target) =
            scratch_target(TEXT, TEXT.find(code).unwrap(), code, kind, Types::default());
        (Peers::new(&files).next(&target, 100).into_iter())
            .map(|c| {
                assert_eq!((c.template.as_str(), c.source, c.cost), (PEER, NAME, COST));
                assert!(c.edits[0].expr.is_none(), "a rebuild judges it");
                c.edits[0].rust.clone()
            })
            .collect()
    }

    #[test]
    fn self_and_a_parameter_of_its_type_are_peers() {
        assert_eq!(
            candidates("self.y == self.y", SiteKind::Return),
            ["other.y == self.y", "self.y == other.y"]
        );
        // `k` is no `Point`: nothing to swap.
        assert!(candidates("self.x * k", SiteKind::Return).is_empty());
    }

    #[test]
    fn recorded_variables_are_the_variable_sources() {
        let code = "a.x - a.x + k";
        let types = Types {
            vars: [("a", "i64"), ("b", "i64")]
                .map(|(n, t)| (n.to_string(), t.to_string()))
                .into(),
            ..Types::default()
        };
        let (files, target) = scratch_target(
            TEXT,
            TEXT.find(code).unwrap(),
            code,
            SiteKind::Return,
            types,
        );
        assert!(Peers::new(&files).next(&target, 100).is_empty());
    }

    #[test]
    fn a_trait_impl_makes_its_type_argument_selfs_peer() {
        assert_eq!(
            candidates("other.y.partial_cmp(&other.y)", SiteKind::Return),
            [
                "self.y.partial_cmp(&other.y)",
                "other.y.partial_cmp(&self.y)"
            ]
        );
    }

    #[test]
    fn the_functions_a_macro_writes_have_peers_as_written() {
        assert_eq!(
            candidates("other.key() == other.key()", SiteKind::Return),
            ["self.key() == other.key()", "other.key() == self.key()"]
        );
    }

    #[test]
    fn parameters_of_one_declared_type_are_peers() {
        assert_eq!(
            candidates("a.x - a.x + k", SiteKind::Return),
            ["b.x - a.x + k", "a.x - b.x + k"]
        );
        // Inside a closure, `a` is the closure's own.
        assert_eq!(
            candidates("[a.x, b.x].iter().map(|a| a * 2).sum()", SiteKind::Return),
            [
                "[b.x, b.x].iter().map(|a| a * 2).sum()",
                "[a.x, a.x].iter().map(|a| a * 2).sum()"
            ]
        );
    }
}
