//! The corpus walk for the encoding: every function of every `.rs` file under
//! `bench/corpus/` and `examples/` is encoded on made-up arguments (no trace: the model
//! follows the run alone). Whatever the function does, the encoding ends with the call in
//! the oracle or with stated reasons — never a panic. `--nocapture` prints a summary.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use autodebug_runtime::protocol::Value;
use autodebug_symbolic::conflicts::{Role, Z3Oracle};
use autodebug_symbolic::encode::{Call, Encoder, Expected, Options, Spec};
use autodebug_symbolic::ir::{Program, Type};

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

/// A small value of `ty` as a recording would show it (`None` for what a recording does
/// not show: the encoding then keeps it symbolic).
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

#[test]
fn every_function_of_the_corpus_encodes_or_degrades_with_a_reason() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = rust_files(&root.join("bench/corpus"));
    files.extend(rust_files(&root.join("examples")));
    let (mut functions, mut added) = (0usize, 0usize);
    let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
    for file in &files {
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        let Ok(program) = Program::from_source(&text, "src/lib.rs") else {
            continue;
        };
        let mut oracle = Z3Oracle::default();
        let mut encoder = Encoder::new(&program, Options::default());
        for function in &program.functions {
            functions += 1;
            let args = function
                .params
                .iter()
                .filter_map(|&p| {
                    let var = function.var(p);
                    made_up(&var.ty).map(|v| (var.name.clone(), v))
                })
                .collect();
            let encoding = encoder.encode(
                &mut oracle,
                &Call {
                    test: format!("{}::{}", file.display(), function.name),
                    role: Role::Passing,
                    function: format!("{}{}", module_prefix(&function.module), function.name),
                    args,
                    trace: None,
                    spec: Spec {
                        ret: Expected::Nothing,
                        ..Spec::accepted()
                    },
                },
            );
            if encoding.added {
                added += 1;
                assert!(encoding.degradations.is_empty());
            } else {
                assert!(!encoding.degradations.is_empty(), "{}", encoding.test);
                for reason in &encoding.degradations {
                    // Positions and values vary; the kind of reason is what counts.
                    let kind: String = reason
                        .split(|c: char| c.is_ascii_digit() || c == '`')
                        .next()
                        .unwrap_or(reason)
                        .chars()
                        .take(60)
                        .collect();
                    *reasons.entry(kind).or_default() += 1;
                }
            }
        }
    }
    println!(
        "{} files, {functions} functions: {added} encoded, {} degraded",
        files.len(),
        functions - added
    );
    for (reason, n) in &reasons {
        println!("  {n:4}  {reason}");
    }
    assert!(functions > 50, "{functions}");
    // A guard against regressions: 185 of 392 on the corpus of this commit.
    assert!(added * 5 > functions * 2, "{added} of {functions}");
}

fn module_prefix(module: &[String]) -> String {
    module.iter().map(|m| format!("{m}::")).collect()
}
