//! The IR's sites are the instrumentation's: for every function of every example and
//! corpus source file, the sites the IR marks as reported are compared with the sites the
//! `#[autodebug]` macro declares for that function — kind, start, end and text.
//!
//! The macro's own code generator is compiled into this test (its modules are included by
//! path) and run on each item with `#[autodebug(always)]`, exactly as the compiler would
//! run it, but on tokens parsed with `proc-macro2`'s span locations; nothing is built or
//! instrumented. A function the IR lowers fully must have exactly the macro's sites; a
//! degraded one a subset of them (opaque parts keep no sites).

#[path = "../../autodebug-macros/src"]
#[allow(dead_code, unused_imports, unexpected_cfgs, clippy::all)]
mod macros {
    pub mod codegen;
    pub mod instrument;
    pub mod parse;
    pub mod site;
}
use macros::{codegen, instrument, parse, site};

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use autodebug_symbolic::ir::Program;
use proc_macro2::{Delimiter, TokenStream, TokenTree};
use quote::{ToTokens, quote};
use syn::ext::IdentExt;

/// (kind, line, column, end line, end column, text)
type SiteKey = (String, u32, u32, u32, u32, String);

/// The sites of each function (by inline module path and name), as the macro declares them.
fn macro_sites(text: &str) -> BTreeMap<(Vec<String>, String), BTreeSet<SiteKey>> {
    let file = syn::parse_file(text).expect("the file parses");
    let mut out = BTreeMap::new();
    walk_items(&file.items, &mut Vec::new(), &mut out);
    out
}

fn walk_items(
    items: &[syn::Item],
    module: &mut Vec<String>,
    out: &mut BTreeMap<(Vec<String>, String), BTreeSet<SiteKey>>,
) {
    for item in items {
        let is_const_fn = match item {
            syn::Item::Fn(f) => f.sig.constness.is_some(),
            _ => false,
        };
        match item {
            syn::Item::Fn(_) | syn::Item::Impl(_) if !is_const_fn => {
                let expanded = codegen::expand(
                    parse::Ours::Autodebug,
                    quote!(always),
                    item.to_token_stream(),
                    true,
                );
                let mut sites = Vec::new();
                site_calls(expanded, &mut sites);
                // The model keeps a call made for its effect and a closure opaque and
                // reads a loop's start as written: the call statements and their
                // arguments the macro reports (`Call`, `Arg` sites), a closure's value
                // (`Closure`) and the starts (`Start`) are no components of it.
                sites.retain(|(_, key)| {
                    !["Arg", "Call", "Closure", "Start"].contains(&key.0.as_str())
                });
                for (function, key) in sites {
                    out.entry((module.clone(), function))
                        .or_default()
                        .insert(key);
                }
            }
            syn::Item::Mod(m) => {
                if let Some((_, items)) = &m.content {
                    module.push(m.ident.unraw().to_string());
                    walk_items(items, module, out);
                    module.pop();
                }
            }
            _ => {}
        }
    }
}

/// Every `Site::new(file!(), line, column, end_line, end_column, SiteKind::K, "code",
/// concat!(module_path!(), "::", "function"))` in the expansion.
fn site_calls(tokens: TokenStream, out: &mut Vec<(String, SiteKey)>) {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    for (i, tt) in trees.iter().enumerate() {
        if let TokenTree::Group(g) = tt {
            let after_new = i > 0 && matches!(&trees[i - 1], TokenTree::Ident(id) if id == "new");
            if g.delimiter() == Delimiter::Parenthesis && after_new {
                let args = split_commas(g.stream());
                if args.len() >= 8 {
                    let number = |a: &Vec<TokenTree>| -> u32 {
                        a[0].to_string()
                            .trim_end_matches("u32")
                            .parse()
                            .expect("a position")
                    };
                    let kind = args[5].last().expect("a kind").to_string();
                    let code = string_literal(&args[6][0]);
                    let function = match args[7].last() {
                        Some(TokenTree::Group(concat)) => {
                            let parts = split_commas(concat.stream());
                            string_literal(&parts[parts.len() - 1][0])
                        }
                        _ => panic!("no function name"),
                    };
                    out.push((
                        function,
                        (
                            kind,
                            number(&args[1]),
                            number(&args[2]),
                            number(&args[3]),
                            number(&args[4]),
                            code,
                        ),
                    ));
                }
            }
            site_calls(g.stream(), out);
        }
    }
}

fn split_commas(tokens: TokenStream) -> Vec<Vec<TokenTree>> {
    let mut out = vec![Vec::new()];
    for tt in tokens {
        match &tt {
            TokenTree::Punct(p) if p.as_char() == ',' => out.push(Vec::new()),
            _ => out.last_mut().expect("a list").push(tt),
        }
    }
    out.retain(|a| !a.is_empty());
    out
}

fn string_literal(tt: &TokenTree) -> String {
    syn::parse2::<syn::LitStr>(tt.to_token_stream())
        .expect("a string literal")
        .value()
}

fn ir_sites(program: &Program) -> BTreeMap<(Vec<String>, String), (bool, BTreeSet<SiteKey>)> {
    let mut out = BTreeMap::new();
    for f in &program.functions {
        let sites: BTreeSet<SiteKey> = f
            .sites()
            .into_iter()
            .filter(|s| s.reported)
            .map(|s| {
                (
                    format!("{:?}", s.kind),
                    s.span.start.line,
                    s.span.start.column,
                    s.span.end.line,
                    s.span.end.column,
                    s.span.code.clone(),
                )
            })
            .collect();
        let entry = out
            .entry((f.module.clone(), f.name.clone()))
            .or_insert((true, BTreeSet::new()));
        entry.0 &= f.is_fully_lowered();
        entry.1.extend(sites);
    }
    out
}

fn source_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for dir in ["examples", "bench/corpus"] {
        for entry in walkdir::WalkDir::new(root.join(dir))
            .sort_by_file_name()
            .into_iter()
            .filter_map(Result::ok)
        {
            let path = entry.path();
            let in_src = path.components().any(|c| c.as_os_str() == "src");
            let in_target = path.components().any(|c| c.as_os_str() == "target");
            if in_src && !in_target && path.extension().is_some_and(|e| e == "rs") {
                files.push(path.to_path_buf());
            }
        }
    }
    files
}

#[test]
fn reported_sites_are_the_macros_sites() {
    let files = source_files();
    assert!(
        files.len() >= 15,
        "expected the example and corpus sources, found {files:?}"
    );
    let (mut exact, mut subset, mut compared) = (0, 0, 0);
    let mut failures = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).expect("readable");
        let program = Program::from_source(&text, &path.display().to_string()).expect("parses");
        let expected = macro_sites(&text);
        let actual = ir_sites(&program);
        for ((module, name), (full, sites)) in &actual {
            let Some(macro_sites) = expected.get(&(module.clone(), name.clone())) else {
                // A const fn: the macro leaves it alone.
                continue;
            };
            compared += sites.len();
            let extra: Vec<_> = sites.difference(macro_sites).collect();
            let missing: Vec<_> = macro_sites.difference(sites).collect();
            if !extra.is_empty() || (*full && !missing.is_empty()) {
                failures.push(format!(
                    "{}: {}::{name}\n  only in the IR: {extra:?}\n  only in the macro: {missing:?}",
                    path.display(),
                    module.join("::"),
                ));
            } else if *full {
                exact += 1;
            } else {
                subset += 1;
            }
        }
    }
    println!(
        "site positions: {} files, {compared} IR sites compared; {exact} fully lowered functions with exactly the macro's sites, {subset} degraded ones with a subset",
        files.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(exact >= 100, "too few functions compared exactly: {exact}");
}

#[test]
fn the_included_macro_code_declares_sites() {
    // The comparison above is only as good as the extraction of the macro's sites.
    let sites = macro_sites("fn f(a: i32) -> i32 {\n    let b = a + 1;\n    b\n}\n");
    let f = &sites[&(Vec::new(), "f".to_string())];
    assert!(
        f.contains(&("Let".into(), 2, 13, 2, 18, "a + 1".into())),
        "{f:?}"
    );
    assert!(
        f.contains(&("Return".into(), 3, 5, 3, 6, "b".into())),
        "{f:?}"
    );
    assert!(f.contains(&("Fn".into(), 1, 4, 1, 5, "f".into())), "{f:?}");
    assert_eq!(f.len(), 3);
    let _ = (instrument::instrument_body, site::range_of);
}
