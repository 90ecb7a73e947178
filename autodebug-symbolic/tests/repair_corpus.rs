//! The corpus walk for repair: every function of every `.rs` file under `bench/corpus/` and
//! `examples/` gets a made-up failing call (made-up arguments, a return value it does not
//! compute), and its first components are repaired under tight time limits. Whatever the
//! code, synthesis ends with candidates or stated reasons — never a panic — and every
//! candidate reads as Rust and says why the runtime cannot evaluate it when it cannot.
//! `--nocapture` prints a summary.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use autodebug_runtime::protocol::{SiteKey, Value};
use autodebug_symbolic::conflicts::Role;
use autodebug_symbolic::encode::{Call, Concrete, Expected, Spec};
use autodebug_symbolic::ir::{Program, Type};
use autodebug_symbolic::repair::{Options, Synthesizer};

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| !e.path().components().any(|c| c.as_os_str() == "target"))
        .filter(|e| e.path().extension().is_some_and(|x| x == "rs"))
        .map(|e| e.path().to_path_buf())
        .collect()
}

/// A small value of `ty` as a recording would show it.
fn made_up(ty: &Type) -> Option<Value> {
    match ty {
        Type::Bool => Some(Value::Bool(true)),
        Type::Int(t) => Some(Value::Int {
            ty: t.name().into(),
            v: 2,
        }),
        Type::Char => Some(Value::Char('b')),
        Type::Unit => Some(Value::Unit),
        Type::Seq { elem, len } => {
            let n = len.unwrap_or(3) as usize;
            let items: Option<Vec<Value>> = (0..n)
                .map(|i| match &**elem {
                    Type::Int(t) => Some(Value::Int {
                        ty: t.name().into(),
                        v: 3 - i as i128,
                    }),
                    other => made_up(other),
                })
                .collect();
            items.map(|items| Value::Seq { items, len: n })
        }
        _ => None,
    }
}

/// A result the function is unlikely to compute.
fn unlikely(ty: &Type) -> Option<Concrete> {
    match ty {
        Type::Int(_) => Some(Concrete::Int(97)),
        Type::Bool => Some(Concrete::Bool(false)),
        _ => None,
    }
}

#[test]
fn every_component_of_the_corpus_repairs_or_says_why_not() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = rust_files(&root.join("bench/corpus"));
    files.extend(rust_files(&root.join("examples")));
    let started = Instant::now();
    let (mut tried, mut with_candidates, mut candidates) = (0usize, 0usize, 0usize);
    let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
    let options = Options {
        template_steps: 160_000,
        per_template: 1,
        ..Options::default()
    };
    for file in &files {
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        let Ok(program) = Program::from_source(&text, "src/lib.rs") else {
            continue;
        };
        for function in &program.functions {
            let Some(expected) = unlikely(&function.ret_ty) else {
                continue;
            };
            let args = function
                .params
                .iter()
                .filter_map(|&p| {
                    let var = function.var(p);
                    made_up(&var.ty).map(|v| (var.name.clone(), v))
                })
                .collect();
            let call = Call {
                test: format!("{}::{}", file.display(), function.name),
                role: Role::Failing,
                function: function
                    .module
                    .iter()
                    .map(|m| format!("{m}::"))
                    .collect::<String>()
                    + &function.name,
                args,
                trace: None,
                spec: Spec {
                    contracts: true,
                    no_panic: true,
                    ret: Expected::Value(expected),
                },
            };
            for component in function.components().into_iter().take(3) {
                let site = SiteKey {
                    file: program.file.clone(),
                    line: component.site.span.start.line,
                    column: component.site.span.start.column,
                    kind: component.site.kind,
                };
                tried += 1;
                let mut synth = Synthesizer::new(
                    &program,
                    std::slice::from_ref(&call),
                    &[site],
                    options.clone(),
                );
                let found: Vec<_> = synth.by_ref().take(2).collect();
                let report = synth.report();
                if found.is_empty() {
                    let said = !report.unsupported.is_empty()
                        || !report.cuts.is_empty()
                        || !report.skipped.is_empty()
                        || report.checks > 0;
                    assert!(said, "{}: {report:?}", call.test);
                    let why_calls = report.calls.iter().flat_map(|c| c.reasons.iter());
                    for reason in report
                        .unsupported
                        .iter()
                        .chain(&report.skipped)
                        .chain(why_calls)
                    {
                        let kind: String = reason
                            .split(|c: char| c.is_ascii_digit() || c == '`')
                            .find(|p| p.len() > 12)
                            .unwrap_or(reason)
                            .chars()
                            .take(60)
                            .collect();
                        *reasons.entry(kind).or_default() += 1;
                    }
                } else {
                    with_candidates += 1;
                }
                for c in &found {
                    candidates += 1;
                    for e in &c.edits {
                        assert!(!e.rust.is_empty() && !e.rust.contains("/*"), "{e:?}");
                        assert!(e.expr.is_some() || e.note.is_some(), "{e:?}");
                    }
                }
            }
        }
    }
    println!(
        "{} files, {tried} components: {with_candidates} with candidates ({candidates} in all), \
         {:.1}s",
        files.len(),
        started.elapsed().as_secs_f64()
    );
    for (reason, n) in &reasons {
        println!("  {n:4}  {reason}");
    }
    assert!(tried > 100, "{tried}");
    assert!(with_candidates > 0);
}
