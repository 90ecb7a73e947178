//! The guard source: a missing early return for a degenerate input. Where a failing test
//! panicked inside a call of the function that holds the site, and that call had an
//! argument of nothing (an integer `0`, an empty string or sequence), the source puts a
//! guard at the top of the function's body that returns the plain value of its return type
//! for that input: `if len == 0 { return false; }`, `if items.is_empty() { return None; }`.
//! The argument values are the recorded ones of the call open at the panic, and of any call
//! of a failing run with an argument of nothing that no passing run gave that function (the
//! failure may come later, from the state the call left, or as a crash that records no
//! panic). The return value is the one a person writes for "nothing to do" (`false`, `0`,
//! `None`, an empty `Vec` or `String`, a bare `return` for `()`, and `Self::new()` in an
//! `impl` block whose type has `fn new() -> Self`), so a function returning anything else
//! gets no guard. A rebuild judges each candidate.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::ops::Range;

use quote::ToTokens;
use syn::spanned::Spanned;
use syn::visit::{self, Visit};

use super::{Candidate, CandidateEdit, Files, Target, patch};
use crate::model::Role;
use crate::trace::RecordedTrace;
use autodebug_runtime::protocol::{Binding, Record, Value};

/// The source's name in the report.
pub const NAME: &str = "guard";
/// An early return for a degenerate argument, put at the top of the function.
pub const EARLY_RETURN: &str = "early-return";

/// As far as a statement put in (see the statement source).
const COST: u32 = 4;

/// A call open at a failing test's panic: its function's path and its arguments at entry.
struct Open {
    function: String,
    args: Vec<Binding>,
}

/// The source: the calls open at the failing tests' panics, the guards proposed so far (a
/// function gets each once, whichever of its sites asks).
pub struct Guards<'a> {
    files: &'a Files,
    open: Vec<Open>,
    proposed: BTreeSet<(String, usize, String)>,
    queues: super::Queues,
}

impl<'a> Guards<'a> {
    /// A source over the calls open at the failing `traces`' last panics.
    pub fn new(files: &'a Files, traces: &[RecordedTrace]) -> Guards<'a> {
        let mut open = Vec::new();
        for recorded in traces.iter().filter(|t| t.role == Role::Failing) {
            let trace = &recorded.trace;
            let Some(at) = (trace.events.iter()).rposition(|e| matches!(e, Record::Panic { .. }))
            else {
                continue;
            };
            for event in trace.open_calls(at) {
                if let Record::Enter { site, args } = event
                    && let Some(info) = trace.sites.get(site)
                {
                    open.push(Open {
                        function: info.function.clone(),
                        args: args.clone(),
                    });
                }
            }
        }
        // An argument of nothing that only failing runs gave a function: a failure need
        // not happen in the call that took it (a constructor keeps a state a later call
        // trips on, or the test crashed where no panic is recorded).
        let given = |role: Role| {
            let mut given: BTreeMap<(String, String, String), Binding> = BTreeMap::new();
            for recorded in traces.iter().filter(|t| t.role == role) {
                let trace = &recorded.trace;
                for event in &trace.events {
                    if let Record::Enter { site, args } = event
                        && let Some(info) = trace.sites.get(site)
                    {
                        for arg in args {
                            if let Some((param, condition)) = nothing_test(arg) {
                                let key = (info.function.clone(), param, condition);
                                given.entry(key).or_insert_with(|| arg.clone());
                            }
                        }
                    }
                }
            }
            given
        };
        let passing = given(Role::Passing);
        for ((function, param, condition), arg) in given(Role::Failing) {
            if !passing.contains_key(&(function.clone(), param, condition)) {
                open.push(Open {
                    function,
                    args: vec![arg],
                });
            }
        }
        Guards {
            files,
            open,
            proposed: BTreeSet::new(),
            queues: BTreeMap::new(),
        }
    }

    fn candidates(&mut self, target: &Target) -> VecDeque<Candidate> {
        let mut out = VecDeque::new();
        let Some((text, file)) = self.files.parsed(&target.path) else {
            return out;
        };
        let mut find = Innermost {
            at: target.located.bytes.clone(),
            found: None,
            empty: None,
        };
        find.visit_file(&file);
        let Some(function) = find.found else {
            return out;
        };
        let Some(value) = nothing_of(&function.output).or_else(|| {
            (function.empty.as_ref())
                .filter(|(ty, _)| returns(&function.output, ty))
                .map(|(_, empty)| Some(empty.clone()))
        }) else {
            return out;
        };
        let Some(first) = function.first_statement.clone() else {
            return out;
        };
        let line_start = text[..first.start].rfind('\n').map_or(0, |i| i + 1);
        let indent = &text[line_start..first.start];
        if !indent.chars().all(char::is_whitespace) {
            return out;
        }
        let name = |path: &str| path.rsplit("::").next().map(str::to_string);
        let calls = (self.open.iter()).filter(|o| {
            name(&o.function) == Some(function.name.clone()) && o.function == target.site.function
        });
        let mut conditions: Vec<String> = Vec::new();
        for call in calls {
            for (param, condition) in call.args.iter().filter_map(nothing_test) {
                if function.params.contains(&param) && !conditions.contains(&condition) {
                    conditions.push(condition);
                }
            }
        }
        for condition in conditions {
            let returned = match &value {
                Some(v) => format!("return {v};"),
                None => "return;".to_string(),
            };
            let rust = format!("if {condition} {{\n{indent}    {returned}\n{indent}}}\n{indent}");
            if !self
                .proposed
                .insert((target.path.clone(), first.start, rust.clone()))
            {
                continue;
            }
            let edit =
                CandidateEdit::at(target.site.key(), rust).replacing(first.start..first.start);
            out.push_back(Candidate::one(edit, EARLY_RETURN, COST, NAME));
        }
        out
    }
}

/// The test a guard makes of an argument of nothing (an integer `0`, an empty string or
/// sequence): the parameter and the condition, `len == 0`, `items.is_empty()`.
fn nothing_test((param, value): &Binding) -> Option<(String, String)> {
    let condition = match value {
        Value::Int { v: 0, .. } => format!("{param} == 0"),
        Value::Str { v, .. } if v.is_empty() => format!("{param}.is_empty()"),
        Value::Seq { len: 0, .. } => format!("{param}.is_empty()"),
        _ => return None,
    };
    Some((param.clone(), condition))
}

/// What a function returns for "nothing to do", by its return type as written: `Some`
/// text, or `None` for a function returning `()` (a bare `return`); no answer for a type
/// that has no such value a person would write.
fn nothing_of(output: &syn::ReturnType) -> Option<Option<String>> {
    let ty = match output {
        syn::ReturnType::Default => return Some(None),
        syn::ReturnType::Type(_, ty) => ty,
    };
    let value = match type_head(ty).as_str() {
        "()" => return Some(None),
        "bool" => "false",
        "u8" | "u16" | "u32" | "u64" | "u128" | "usize" | "i8" | "i16" | "i32" | "i64" | "i128"
        | "isize" => "0",
        "f32" | "f64" => "0.0",
        "Option" => "None",
        "Vec" => "Vec::new()",
        "String" => "String::new()",
        _ => return None,
    };
    Some(Some(value.to_string()))
}

/// Whether `output` is `Self` or the type named `ty` (generics aside).
fn returns(output: &syn::ReturnType, ty: &str) -> bool {
    let syn::ReturnType::Type(_, written) = output else {
        return false;
    };
    let head = type_head(written);
    head == "Self" || head == ty
}

/// A type as written, without its generic arguments: `Vec` of `Vec<u8>`.
fn type_head(ty: &syn::Type) -> String {
    let text = patch::squeeze(&ty.to_token_stream().to_string());
    text.split('<').next().unwrap_or_default().to_string()
}

/// The empty value of an `impl` block's type, when the block defines a constructor of no
/// arguments that a person writes for it: `Self::new()` (`fn new() -> Self`), with the
/// type's name.
fn empty_of(block: &syn::ItemImpl) -> Option<(String, String)> {
    let syn::Type::Path(ty) = &*block.self_ty else {
        return None;
    };
    let name = ty.path.segments.last()?.ident.to_string();
    block.items.iter().find_map(|item| match item {
        syn::ImplItem::Fn(f)
            if f.sig.ident == "new" && f.sig.inputs.is_empty() && returns(&f.sig.output, &name) =>
        {
            Some((name.clone(), "Self::new()".to_string()))
        }
        _ => None,
    })
}

/// The innermost function of a file whose body holds the bytes `at`.
struct Innermost {
    at: Range<usize>,
    found: Option<Function>,
    /// The empty value of the `impl` block being visited (see [`empty_of`]).
    empty: Option<(String, String)>,
}

/// A function: its name, its parameters' names (simple bindings only), its return type and
/// the bytes of its body's first statement.
struct Function {
    name: String,
    params: Vec<String>,
    output: syn::ReturnType,
    first_statement: Option<Range<usize>>,
    /// The empty value of the type of the `impl` block it is in, with the type's name.
    empty: Option<(String, String)>,
}

impl Innermost {
    fn consider(&mut self, sig: &syn::Signature, block: &syn::Block) {
        let body = block.span().byte_range();
        if !(body.start <= self.at.start && self.at.end <= body.end) {
            return;
        }
        let params = (sig.inputs.iter())
            .filter_map(|input| match input {
                syn::FnArg::Typed(t) => match &*t.pat {
                    syn::Pat::Ident(p) => Some(p.ident.to_string()),
                    _ => None,
                },
                syn::FnArg::Receiver(_) => None,
            })
            .collect();
        self.found = Some(Function {
            name: sig.ident.to_string(),
            params,
            output: sig.output.clone(),
            first_statement: block.stmts.first().map(|s| s.span().byte_range()),
            empty: self.empty.clone(),
        });
    }
}

impl<'ast> Visit<'ast> for Innermost {
    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        let outer = self.empty.take();
        self.consider(&f.sig, &f.block);
        visit::visit_item_fn(self, f);
        self.empty = outer;
    }

    fn visit_item_impl(&mut self, block: &'ast syn::ItemImpl) {
        let outer = std::mem::replace(&mut self.empty, empty_of(block));
        visit::visit_item_impl(self, block);
        self.empty = outer;
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        self.consider(&f.sig, &f.block);
        visit::visit_impl_item_fn(self, f);
    }

    fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
        if let Some(block) = &f.default {
            self.consider(&f.sig, block);
        }
        visit::visit_trait_item_fn(self, f);
    }
}

super::listed!(Guards<'_>);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repair::CandidateSource;

    use crate::repair::expression::Types;
    use crate::repair::scratch_target;
    use crate::trace::RawTrace;
    use autodebug_runtime::protocol::{SiteInfo, SiteKind};

    const TEXT: &str = "\
fn log2(x: usize) -> usize {
    usize::BITS as usize - x.leading_zeros() as usize - 1
}

pub fn rebuild(len: usize, other: usize) -> bool {
    2 * (len + other) < other * log2(len)
}

pub fn shout(s: &str) -> Thing {
    s.chars().last().unwrap().into()
}
";

    /// A failing trace whose test called `function` with `args` and panicked inside.
    fn panicked_in(function: &str, args: Vec<Binding>) -> RecordedTrace {
        let mut trace = RawTrace::default();
        trace.sites.insert(
            0,
            SiteInfo {
                function: function.into(),
                ..crate::localize::tests::site(1, SiteKind::Fn)
            },
        );
        trace.events = vec![
            Record::Enter { site: 0, args },
            Record::Panic {
                message: "attempt to subtract with overflow".into(),
                file: "src/lib.rs".into(),
                line: 2,
                column: 5,
                thread: "t".into(),
            },
        ];
        crate::trace::failing_test_trace(trace)
    }

    fn int(v: i128) -> Value {
        Value::Int {
            ty: "usize".into(),
            v,
        }
    }

    /// The file as each candidate for the site `code` leaves it.
    fn guarded(code: &str, function: &str, args: Vec<Binding>) -> Vec<String> {
        let (files, mut target) = scratch_target(
            TEXT,
            TEXT.find(code).unwrap(),
            code,
            SiteKind::Return,
            Types::default(),
        );
        target.site.function = function.into();
        let traces = [panicked_in(function, args)];
        (Guards::new(&files, &traces).next(&target, 10).into_iter())
            .map(|c| {
                assert_eq!((c.template.as_str(), c.source), (EARLY_RETURN, NAME));
                let edit = &c.edits[0];
                let bytes = edit.statement.clone().unwrap();
                format!(
                    "{}{}{}",
                    &TEXT[..bytes.start],
                    edit.rust,
                    &TEXT[bytes.end..]
                )
            })
            .collect()
    }

    #[test]
    fn an_argument_of_nothing_gets_an_early_return_of_nothing() {
        let code = "2 * (len + other) < other * log2(len)";
        let args = vec![("len".to_string(), int(0)), ("other".to_string(), int(3))];
        let after = guarded(code, "p::rebuild", args);
        assert_eq!(after.len(), 1, "{after:?}");
        assert!(
            after[0].contains(
                "pub fn rebuild(len: usize, other: usize) -> bool {\n    if len == 0 {\n        return false;\n    }\n    2 * (len + other)"
            ),
            "{}",
            after[0]
        );
        // The panic happened in a call of another function: nothing here.
        let args = vec![("len".to_string(), int(0))];
        assert!(guarded(code, "p::log2", args).is_empty());
        // No argument was nothing.
        let args = vec![("len".to_string(), int(5)), ("other".to_string(), int(3))];
        assert!(guarded(code, "p::rebuild", args).is_empty());
    }

    const STACK: &str = "\
impl<T> Stack<T> {
    pub fn new() -> Self {
        Stack { items: Vec::new(), spilled: false }
    }

    pub fn from_vec(items: Vec<T>) -> Stack<T> {
        let spilled = items.capacity() > 4;
        Stack { items, spilled }
    }
}
";

    /// A trace of `role` in which `function` was called with `args` and returned.
    fn called(function: &str, args: Vec<Binding>, role: Role) -> RecordedTrace {
        let mut recorded = panicked_in(function, args);
        recorded.trace.events.truncate(1);
        recorded.role = role;
        recorded
    }

    #[test]
    fn an_argument_of_nothing_only_failing_runs_gave_gets_a_guard() {
        let code = "items.capacity() > 4";
        let (files, mut target) = scratch_target(
            STACK,
            STACK.find(code).unwrap(),
            code,
            SiteKind::Let,
            Types::default(),
        );
        target.site.function = "p::from_vec".into();
        let empty = || {
            vec![(
                "items".to_string(),
                Value::Seq {
                    items: Vec::new(),
                    len: 0,
                },
            )]
        };
        let full = vec![(
            "items".to_string(),
            Value::Seq {
                items: vec![int(1)],
                len: 1,
            },
        )];
        // The failing test gave an empty vector and failed later, without a panic in the
        // call; the passing one gave a full one.
        let traces = [
            called("p::from_vec", empty(), Role::Failing),
            called("p::from_vec", full, Role::Passing),
        ];
        let edits: Vec<String> = (Guards::new(&files, &traces).next(&target, 10).into_iter())
            .map(|c| c.edits[0].rust.clone())
            .collect();
        assert_eq!(
            edits,
            ["if items.is_empty() {\n            return Self::new();\n        }\n        "]
        );
        // A passing test gave an empty vector too: nothing tells it apart.
        let traces = [
            called("p::from_vec", empty(), Role::Failing),
            called("p::from_vec", empty(), Role::Passing),
        ];
        assert!(Guards::new(&files, &traces).next(&target, 10).is_empty());
    }

    #[test]
    fn no_guard_where_the_return_type_has_no_plain_nothing() {
        let args = vec![(
            "s".to_string(),
            Value::Str {
                v: String::new(),
                truncated: false,
            },
        )];
        assert!(guarded("s.chars().last().unwrap().into()", "p::shout", args).is_empty());
        assert_eq!(
            nothing_of(&syn::parse_quote!(-> Option<u8>)),
            Some(Some("None".into()))
        );
        assert_eq!(nothing_of(&syn::parse_quote!()), Some(None));
    }
}
