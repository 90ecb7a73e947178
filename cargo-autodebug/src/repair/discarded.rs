//! The discarded-value source. Where the compiler warned that a value that must be used was
//! dropped (`unused_must_use`), and that value is a method's result on a place
//! (`self.size_hint.saturating_sub(1);`, `name.trim();`), the code took the method for an
//! update in place: it returns its result and leaves the receiver as it was. The candidate
//! assigns the result back (`self.size_hint = self.size_hint.saturating_sub(1);`). Proposed
//! for a target inside such a statement (or holding one); the same statement where the
//! compiler warned of it elsewhere is a copy (see `super::copies`), changed with it. The
//! warned statements are targets no other source is asked about; a rebuild judges each
//! candidate, before the candidates that lack such evidence.

use std::collections::{BTreeMap, VecDeque};
use std::path::Path;

use autodebug_runtime::protocol::{SiteInfo, SiteKind};
use syn::spanned::Spanned;
use syn::visit::{self, Visit};

use super::{Candidate, CandidateEdit, Files, Target, patch};
use crate::build::CompilerWarning;
use crate::trace::workspace_path;

/// The source's name in the report.
pub const NAME: &str = "discarded";
/// A dropped result assigned back to its receiver.
pub const ASSIGN_BACK: &str = "assign-back";

/// The lint of a dropped value that must be used.
const LINT: &str = "unused_must_use";

/// The source: the warned statements, as targets of their own, each with its receiver's
/// text (the place).
pub struct Discarded {
    warned: Vec<(Target, String)>,
    queues: super::Queues,
}

/// The statements `place.method(..);` the compiler warned of in `text` (the file of
/// `path`): each expression as a target of kind `Call`, taking `like`'s rank and localizing
/// techniques, with the place's text.
fn warned_statements(
    text: &str,
    path: &str,
    warnings: &[&CompilerWarning],
    like: &Target,
) -> Vec<(Target, String)> {
    let Ok(file) = autodebug_syntax::parse_file(text) else {
        return Vec::new();
    };
    let mut find = Statements {
        function: String::new(),
        found: Vec::new(),
    };
    find.visit_file(&file);
    let mut out = Vec::new();
    for (function, call) in find.found {
        let bytes = call.span().byte_range();
        let (line, column) = autodebug_syntax::line_column(text, bytes.start);
        let (end_line, end_column) = autodebug_syntax::line_column(text, bytes.end);
        let warned = warnings.iter().any(|w| {
            (w.line, w.column, w.end_line, w.end_column) == (line, column, end_line, end_column)
        });
        if !warned || !is_place(&call.receiver) {
            continue;
        }
        let original = text[bytes.clone()].to_string();
        let place = text[call.receiver.span().byte_range()].to_string();
        let target = Target {
            site: SiteInfo {
                file: warnings[0].file.clone(),
                line,
                column,
                end_line,
                end_column,
                kind: SiteKind::Call,
                code: original.clone(),
                function,
            },
            path: path.to_string(),
            located: patch::Located { bytes, original },
            rank: like.rank,
            localized_by: like.localized_by.clone(),
            types: Default::default(),
        };
        out.push((target, place));
    }
    out
}

/// The method calls that are whole statements (`x.m(..);`), with the name of the function
/// they are in.
struct Statements {
    function: String,
    found: Vec<(String, syn::ExprMethodCall)>,
}

impl<'ast> Visit<'ast> for Statements {
    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        let outer = std::mem::replace(&mut self.function, function(&f.sig));
        visit::visit_item_fn(self, f);
        self.function = outer;
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        let outer = std::mem::replace(&mut self.function, function(&f.sig));
        visit::visit_impl_item_fn(self, f);
        self.function = outer;
    }

    fn visit_stmt(&mut self, s: &'ast syn::Stmt) {
        if let syn::Stmt::Expr(syn::Expr::MethodCall(call), Some(_)) = s {
            self.found.push((self.function.clone(), call.clone()));
        }
        visit::visit_stmt(self, s);
    }
}

/// A function's name with where it starts: two `next` of two impls are two functions.
fn function(sig: &syn::Signature) -> String {
    format!("{}@{}", sig.ident, sig.span().byte_range().start)
}

/// Whether `e` is a place a value can be assigned to: a name, or fields of one.
fn is_place(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Path(p) => p.qself.is_none(),
        syn::Expr::Field(f) => is_place(&f.base),
        _ => false,
    }
}

impl Discarded {
    /// The statements of the targets' files and of every file the compiler warned of a
    /// dropped value in, read into `files`: those `place.method(..);` it warned of. Each
    /// takes the rank of the best target (they are evidence, not suspects).
    pub fn find(
        root: &Path,
        warnings: &[CompilerWarning],
        targets: &[Target],
        files: &mut Files,
    ) -> Discarded {
        let mut by_file: BTreeMap<String, Vec<&CompilerWarning>> = BTreeMap::new();
        for warning in warnings.iter().filter(|w| w.lint == LINT) {
            let path = workspace_path(root, &warning.file);
            by_file.entry(path).or_default().push(warning);
        }
        let mut warned = Vec::new();
        if let Some(best) = targets.first() {
            for (path, warnings) in &by_file {
                if let Ok(text) = files.read(root, path) {
                    warned.extend(warned_statements(text, path, warnings, best));
                }
            }
        }
        Discarded {
            warned,
            queues: BTreeMap::new(),
        }
    }

    /// A source over statements [`Discarded::find`] found before.
    pub fn over(warned: &[(Target, String)]) -> Discarded {
        Discarded {
            warned: warned.to_vec(),
            queues: BTreeMap::new(),
        }
    }

    /// The warned statements with their places.
    pub fn warned(&self) -> &[(Target, String)] {
        &self.warned
    }

    /// The warned statements (targets of the search no source is asked about).
    pub fn targets(&self) -> impl Iterator<Item = &Target> {
        self.warned.iter().map(|(target, _)| target)
    }

    fn candidates(&mut self, target: &Target) -> VecDeque<Candidate> {
        let at = &target.located.bytes;
        (self.warned.iter())
            .filter(|(w, _)| {
                w.path == target.path
                    && ((w.located.bytes.start <= at.start && at.end <= w.located.bytes.end)
                        || (at.start <= w.located.bytes.start && w.located.bytes.end <= at.end))
            })
            .map(|(w, place)| {
                let rust = format!("{place} = {}", w.located.original);
                Candidate::one(CandidateEdit::at(w.site.key(), rust), ASSIGN_BACK, 1, NAME)
            })
            .collect()
    }
}

super::listed!(Discarded);

#[cfg(test)]
mod tests {
    use super::*;

    const LIB: &str = "pub struct Iter { left: u64 }

impl Iter {
    pub fn next(&mut self) -> Option<u32> {
        self.left.saturating_sub(1);
        None
    }

    pub fn rest(&mut self) -> u64 {
        self.left.count_ones();
        vec![1].len();
        self.left
    }
}
";

    /// The compiler's warning on the first `code` of `LIB`.
    fn warning(code: &str) -> CompilerWarning {
        let start = LIB.find(code).unwrap();
        let (line, column) = autodebug_syntax::line_column(LIB, start);
        let (end_line, end_column) = autodebug_syntax::line_column(LIB, start + code.len());
        CompilerWarning {
            lint: LINT.into(),
            file: "src/lib.rs".into(),
            line,
            column,
            end_line,
            end_column,
        }
    }

    #[test]
    fn a_dropped_result_of_a_method_on_a_place_is_assigned_back() {
        let dir = crate::repair::validate::tests::tiny_crate(LIB);
        let one = LIB.find("1);").unwrap();
        let target = Target {
            path: "src/lib.rs".into(),
            located: patch::Located {
                bytes: one..one + 1,
                original: "1".into(),
            },
            rank: 1,
            localized_by: vec!["ochiai"],
            types: Default::default(),
            site: crate::localize::tests::site(5, SiteKind::Arg),
        };
        // Warned: the subtraction (a place's), and a call on a temporary (no place).
        let warnings = [
            warning("self.left.saturating_sub(1)"),
            warning("vec![1].len()"),
        ];
        let targets = [target.clone()];
        let mut source = Discarded::find(dir.path(), &warnings, &targets, &mut Files::default());
        assert_eq!(
            source.targets().count(),
            1,
            "the temporary's call has no place"
        );
        let candidates = source.candidates(&target);
        let rust: Vec<&str> = candidates
            .iter()
            .map(|c| c.edits[0].rust.as_str())
            .collect();
        assert_eq!(rust, ["self.left = self.left.saturating_sub(1)"]);
        // A statement the compiler did not warn of is left alone.
        let other = [warning("self.left.count_ones()")];
        let mut source = Discarded::find(dir.path(), &other, &targets, &mut Files::default());
        assert_eq!(source.targets().count(), 1);
        assert!(source.candidates(&target).is_empty());
    }
}
