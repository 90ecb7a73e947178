//! The sibling-call source: a call of the program's own function or method where a sibling
//! was meant (`self.width()` for `self.height()`, `encode_upper(b)` for `encode_lower(b)`).
//! The siblings come from the program, not from a list of names: the functions of the
//! site's file that sit beside the called one (the same `impl` block, or the same module)
//! with the same signature (receiver, parameter types, return type and generics, written
//! alike). Such a swap type-checks wherever the written call did, so it is worth a rebuild;
//! the nearest definitions come first. The runtime cannot evaluate a call of the program's
//! code, so a rebuild judges each candidate.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::ops::Range;

use quote::ToTokens;
use syn::spanned::Spanned;
use syn::visit::{self, Visit};

use super::{Candidate, CandidateEdit, Files, Target, patch};

/// The source's name in the report.
pub const NAME: &str = "sibling-call";
/// A call's function or method replaced by a sibling of the same signature.
pub const SIBLING: &str = "sibling-call";

/// Past every one-token edit of the site, beside a borrowed clause.
const COST: u32 = 3;

/// Siblings tried per call at most, nearest definition first.
const PER_CALL: usize = 4;

/// A function the file defines: its name, its bytes, where its siblings are (its `impl`
/// block, or its module), and its signature without its name.
struct Defined {
    name: String,
    bytes: Range<usize>,
    scope: Range<usize>,
    shape: String,
}

/// Walks a file for the functions it defines.
struct Walk {
    defined: Vec<Defined>,
    scope: Range<usize>,
}

impl Walk {
    fn define(&mut self, sig: &syn::Signature, bytes: Range<usize>) {
        self.defined.push(Defined {
            name: sig.ident.to_string(),
            bytes,
            scope: self.scope.clone(),
            shape: shape(sig),
        });
    }

    fn within(&mut self, scope: Range<usize>, visit: impl FnOnce(&mut Self)) {
        let outer = std::mem::replace(&mut self.scope, scope);
        visit(self);
        self.scope = outer;
    }
}

impl<'ast> Visit<'ast> for Walk {
    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        self.define(&f.sig, f.span().byte_range());
        // Functions inside a function are its own, not the module's.
        self.within(f.span().byte_range(), |w| visit::visit_item_fn(w, f));
    }

    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        self.within(m.span().byte_range(), |w| visit::visit_item_mod(w, m));
    }

    fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
        self.within(i.span().byte_range(), |w| visit::visit_item_impl(w, i));
    }

    fn visit_item_trait(&mut self, t: &'ast syn::ItemTrait) {
        self.within(t.span().byte_range(), |w| visit::visit_item_trait(w, t));
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        self.define(&f.sig, f.span().byte_range());
        self.within(f.span().byte_range(), |w| visit::visit_impl_item_fn(w, f));
    }

    fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
        self.define(&f.sig, f.span().byte_range());
        visit::visit_trait_item_fn(self, f);
    }
}

/// A signature as its callers see it: receiver, parameter types, return type, generics,
/// qualifiers; the names of the function and of its parameters left out.
fn shape(sig: &syn::Signature) -> String {
    let mut sig = sig.clone();
    sig.ident = syn::Ident::new("f", sig.ident.span());
    for input in &mut sig.inputs {
        if let syn::FnArg::Typed(t) = input {
            *t.pat = syn::parse_quote!(_);
        }
    }
    patch::squeeze(&sig.to_token_stream().to_string())
}

/// The names the site's code calls, with their bytes in it: methods, and functions named
/// by a path (the path's last segment).
#[derive(Default)]
struct Calls(Vec<(Range<usize>, String)>);

impl<'ast> Visit<'ast> for Calls {
    fn visit_expr_method_call(&mut self, e: &'ast syn::ExprMethodCall) {
        self.0
            .push((e.method.span().byte_range(), e.method.to_string()));
        visit::visit_expr_method_call(self, e);
    }

    fn visit_expr_call(&mut self, e: &'ast syn::ExprCall) {
        if let syn::Expr::Path(p) = &*e.func
            && let Some(last) = p.path.segments.last()
        {
            self.0
                .push((last.ident.span().byte_range(), last.ident.to_string()));
        }
        visit::visit_expr_call(self, e);
    }

    // A closure's body is code of the site too; an item inside it is not.
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// The source: per file what it defines, per target its candidates in order.
pub struct Siblings<'a> {
    files: &'a Files,
    defined: BTreeMap<String, Vec<Defined>>,
    queues: super::Queues,
}

impl<'a> Siblings<'a> {
    /// A source over the targets' `files` as read.
    pub fn new(files: &'a Files) -> Siblings<'a> {
        Siblings {
            files,
            defined: BTreeMap::new(),
            queues: BTreeMap::new(),
        }
    }

    fn candidates(&mut self, target: &Target) -> VecDeque<Candidate> {
        let Some(text) = self.files.get(&target.path) else {
            return VecDeque::new();
        };
        let defined = self.defined.entry(target.path.clone()).or_insert_with(|| {
            let mut walk = Walk {
                defined: Vec::new(),
                scope: 0..text.len(),
            };
            if let Ok(file) = autodebug_syntax::parse_file(text) {
                walk.visit_file(&file);
            }
            walk.defined
        });
        let original = &target.located.original;
        let Ok(written) = syn::parse_str::<syn::Expr>(original) else {
            return VecDeque::new();
        };
        let mut calls = Calls::default();
        calls.visit_expr(&written);
        // The function the site is in is no sibling: calling it there would recurse.
        let site = &target.located.bytes;
        let holds_site = |d: &Defined| d.bytes.start <= site.start && site.end <= d.bytes.end;
        let mut out = VecDeque::new();
        for (range, name) in &calls.0 {
            // Every definition of the name in the file (several `impl` blocks may have
            // one): the siblings of each, nearest first, each name once.
            let mut siblings: Vec<(usize, &str)> = Vec::new();
            for called in defined.iter().filter(|d| &d.name == name) {
                siblings.extend(
                    (defined.iter())
                        .filter(|d| {
                            d.name != *name
                                && d.scope == called.scope
                                && d.shape == called.shape
                                && !holds_site(d)
                        })
                        .map(|d| (d.bytes.start.abs_diff(called.bytes.start), d.name.as_str())),
                );
            }
            siblings.sort();
            let mut seen = BTreeSet::new();
            for (_, sibling) in siblings {
                if seen.len() == PER_CALL || !seen.insert(sibling) {
                    continue;
                }
                let rust = format!(
                    "{}{sibling}{}",
                    &original[..range.start],
                    &original[range.end..]
                );
                let edit = CandidateEdit::at(target.site.key(), rust);
                out.push_back(Candidate::one(edit, SIBLING, COST, NAME));
            }
        }
        out
    }
}

super::listed!(Siblings<'_>);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repair::CandidateSource;
    use crate::repair::expression::Types;
    use crate::repair::scratch_target;
    use autodebug_runtime::protocol::SiteKind;

    const TEXT: &str = "\
pub struct Rect { w: u32, h: u32 }

impl Rect {
    pub fn width(&self) -> u32 { self.w }
    pub fn area(&self) -> u32 { self.w * self.h }
    pub fn height(&self) -> u32 { self.h }
    pub fn scaled(&self, k: u32) -> u32 { self.w * k }
    pub fn grown(&self, k: u32) -> u32 { self.h + k }
    pub fn is_square(&self) -> bool { self.w == self.h }
}

impl Other {
    pub fn depth(&self) -> u32 { 0 }
}

fn encode_upper(b: u8) -> char { char::from(b).to_ascii_uppercase() }
fn encode_lower(b: u8) -> char { char::from(b).to_ascii_lowercase() }
fn encode_digit(b: u8, radix: u32) -> char { char::from_digit(b as u32, radix).unwrap() }

pub fn tall(r: &Rect) -> bool {
    r.width() > r.scaled(2)
}

pub fn hex(b: u8) -> char {
    let c = encode_upper(b);
    c
}
";

    fn candidates(code: &str, kind: SiteKind) -> Vec<String> {
        let (files, target) = scratch_target(
            TEXT,
            TEXT.rfind(code).unwrap(),
            code,
            kind,
            Types::default(),
        );
        (Siblings::new(&files).next(&target, 100).into_iter())
            .map(|c| {
                assert_eq!(
                    (c.template.as_str(), c.source, c.cost),
                    (SIBLING, NAME, COST)
                );
                assert!(c.edits[0].expr.is_none(), "a rebuild judges it");
                c.edits[0].rust.clone()
            })
            .collect()
    }

    #[test]
    fn a_method_gets_the_methods_of_its_impl_with_its_signature_nearest_first() {
        let texts = candidates("r.width() > r.scaled(2)", SiteKind::Return);
        assert_eq!(
            texts,
            [
                // `width`'s siblings: `area` (nearer) and `height`; not `is_square` (another
                // return type), not `depth` (another impl block), not `scaled` (a parameter).
                "r.area() > r.scaled(2)",
                "r.height() > r.scaled(2)",
                // `scaled`'s sibling: `grown` alone has its `(&self, u32) -> u32`.
                "r.width() > r.grown(2)",
            ]
        );
    }

    #[test]
    fn a_function_gets_the_functions_of_its_module_with_its_signature() {
        let texts = candidates("encode_upper(b)", SiteKind::Let);
        // Not `encode_digit` (two parameters), not `hex`: its signature is the same, but
        // the site is in it, where calling it would recurse.
        assert_eq!(texts, ["encode_lower(b)"]);
    }
}
