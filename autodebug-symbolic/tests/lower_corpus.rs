//! The corpus walk (an acceptance criterion of the symbolic engine): every function of
//! every `.rs` file under `bench/corpus/` and `examples/` lowers without panicking, every
//! degradation states its construct, position and reason, and functions known to be
//! inside the subset lower with no degradation at all. `--nocapture` prints a summary.
//!
//! An `#[ignore]`d sweep does the same over every parseable file of the cargo registry's
//! sources (`cargo test -p autodebug-symbolic --test lower_corpus -- --ignored --nocapture`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use autodebug_symbolic::ir::{ExprKind, Function, Program, Stmt, Type};

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

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Counts over a set of files.
#[derive(Default)]
struct Summary {
    files: usize,
    unparsed: usize,
    functions: usize,
    full: usize,
    reasons: BTreeMap<String, usize>,
}

impl Summary {
    fn add(&mut self, program: &Program, keep: impl Fn(&Function) -> bool) {
        self.files += 1;
        for f in program.functions.iter().filter(|f| keep(f)) {
            self.functions += 1;
            if f.is_fully_lowered() {
                self.full += 1;
            }
            for d in &f.degradations {
                *self
                    .reasons
                    .entry(format!("{}: {}", d.construct, d.reason))
                    .or_default() += 1;
            }
        }
    }

    fn print(&self, title: &str) {
        println!(
            "{title}: {} files ({} not parseable), {} functions, {} fully lowered, {} degraded",
            self.files,
            self.unparsed,
            self.functions,
            self.full,
            self.functions - self.full
        );
        let mut reasons: Vec<(&String, &usize)> = self.reasons.iter().collect();
        reasons.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        for (reason, count) in reasons.iter().take(15) {
            println!("  {count:5}  {reason}");
        }
    }
}

/// What a finished program must never contain: inference variables, degradations without
/// a position or reason.
fn check_well_formed(program: &Program) {
    for f in &program.functions {
        for d in &f.degradations {
            assert!(
                d.span.start.line > 0 && !d.reason.is_empty() && !d.construct.is_empty(),
                "{}: {}: a degradation without position or reason: {d:?}",
                program.file,
                f.name
            );
        }
        for v in &f.vars {
            assert!(!has_infer(&v.ty), "{}: {}: {v:?}", program.file, f.name);
        }
        Stmt::walk_all(&f.body, &mut |s| {
            s.exprs(&mut |e| {
                assert!(!has_infer(&e.ty), "{}: {}: {e:?}", program.file, f.name);
                if let ExprKind::Opaque { span, reason, .. } = &e.kind {
                    assert!(!reason.is_empty(), "{}: {}", program.file, f.name);
                    let _ = span;
                }
            })
        });
        // Rendering must not panic either.
        let _ = f.to_string();
    }
}

fn has_infer(ty: &Type) -> bool {
    match ty {
        Type::Infer(_) => true,
        Type::Seq { elem, .. } => has_infer(elem),
        Type::Option(inner) => has_infer(inner),
        Type::Tuple(elems) => elems.iter().any(has_infer),
        _ => false,
    }
}

#[test]
fn the_corpus_and_examples_lower_without_panic() {
    let mut summary = Summary::default();
    let mut outside_tests = Summary::default();
    let mut programs = BTreeMap::new();
    for dir in ["bench/corpus", "examples"] {
        for path in rust_files(&workspace().join(dir)) {
            let text = std::fs::read_to_string(&path).expect("readable");
            let rel = path
                .strip_prefix(workspace())
                .unwrap_or(&path)
                .display()
                .to_string();
            let program = Program::from_source(&text, &rel).expect("every corpus file parses");
            check_well_formed(&program);
            summary.add(&program, |_| true);
            if rel.contains("/src/") {
                outside_tests.add(&program, |f| !f.module.iter().any(|m| m == "tests"));
            }
            programs.insert(rel, program);
        }
    }
    summary.print("corpus walk (bench/corpus, examples)");
    outside_tests.print("  of which in `src/`, outside `mod tests`");
    assert!(summary.files >= 30, "{} files", summary.files);
    assert!(summary.functions >= 300, "{} functions", summary.functions);

    // Functions known to be inside the subset: any degradation is a regression.
    let clean = |file: &str, names: &[&str]| {
        let program = &programs[file];
        let names: Vec<&str> = if names.is_empty() {
            program
                .functions
                .iter()
                .filter(|f| f.module.is_empty())
                .map(|f| f.name.as_str())
                .collect()
        } else {
            names.to_vec()
        };
        for name in names {
            let f = program
                .function(name)
                .unwrap_or_else(|| panic!("{file}: no function {name}"));
            assert!(
                f.is_fully_lowered(),
                "{file}: {name} degraded: {:#?}\n{f}",
                f.degradations
            );
        }
    };
    clean("examples/max-array/src/lib.rs", &["max"]);
    clean("examples/binary-search/src/lib.rs", &["binary_search"]);
    clean(
        "examples/fsm/src/lib.rs",
        &["Fsm::step", "Fsm::new", "Fsm::with_state", "Fsm::state"],
    );
    clean("bench/corpus/tcas/src/lib.rs", &[]);
    clean("examples/sum/src/lib.rs", &["sum"]);
    clean("examples/max2/src/lib.rs", &["max"]);
    clean(
        "bench/corpus/max-array/src/lib.rs",
        &["max", "min", "index_of_max", "count_of_max"],
    );
}

/// Every `.rs` file of the cargo registry's sources, sorted by path.
fn registry_files() -> Vec<PathBuf> {
    let Some(home) = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
    else {
        panic!("neither CARGO_HOME nor HOME is set");
    };
    let src = home.join("registry").join("src");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&src)
        .unwrap_or_else(|e| panic!("{}: {e}", src.display()))
        .filter_map(Result::ok)
        .flat_map(|index| rust_files(&index.path()))
        .collect();
    files.sort();
    files
}

/// Lowers every file of `files`, each under `catch_unwind`, on a thread with a large stack
/// (deeply nested generated code recurses deeply in syn as well as here). Returns the
/// summary, the files whose lowering panicked and those whose program is not well formed.
fn sweep(files: Vec<PathBuf>) -> (Summary, Vec<String>, Vec<String>) {
    let handle = std::thread::Builder::new()
        .stack_size(512 << 20)
        .spawn(move || {
            let mut summary = Summary::default();
            let mut panics = Vec::new();
            let mut violations = Vec::new();
            for path in &files {
                let Ok(text) = std::fs::read_to_string(path) else {
                    continue;
                };
                let name = path.display().to_string();
                let result = std::panic::catch_unwind(|| Program::from_source(&text, &name));
                match result {
                    Ok(Ok(program)) => {
                        let checked =
                            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                                check_well_formed(&program)
                            }));
                        if checked.is_err() {
                            violations.push(name);
                        }
                        summary.add(&program, |_| true);
                    }
                    Ok(Err(_)) => {
                        summary.files += 1;
                        summary.unparsed += 1;
                    }
                    Err(_) => panics.push(name),
                }
                // The span locations of every parsed file are kept per thread: drop them.
                proc_macro2::extra::invalidate_current_thread_spans();
            }
            (summary, panics, violations)
        })
        .expect("a thread");
    handle.join().expect("the sweep thread")
}

/// Registry files the bounded sample takes (about): every k-th of the sorted list.
const SAMPLE_FILES: usize = 300;

/// The bounded robustness sample, run in CI: a deterministic sample of about 300 of the
/// registry's files (every k-th of the sorted list) lowers without a panic, and what it
/// lowers to is well formed.
#[test]
fn a_sample_of_registry_sources_lowers_without_panic() {
    let started = std::time::Instant::now();
    let all = registry_files();
    let stride = (all.len() / SAMPLE_FILES).max(1);
    let files: Vec<PathBuf> = all.into_iter().step_by(stride).collect();
    let tried = files.len();
    let (summary, panics, violations) = sweep(files);
    summary.print(&format!("registry sample (every {stride}th file)"));
    eprintln!(
        "registry sample: {tried} files tried ({} not parseable), {} functions, {} panics, \
         {} property violations, {:.1} s",
        summary.unparsed,
        summary.functions,
        panics.len(),
        violations.len(),
        started.elapsed().as_secs_f64()
    );
    assert!(panics.is_empty(), "the lowering panicked on: {panics:#?}");
    assert!(
        violations.is_empty(),
        "ill-formed programs from: {violations:#?}"
    );
    assert!(summary.files > 0, "no registry file");
}

/// The robustness sweep: every parseable `.rs` file of the cargo registry's sources goes
/// through the lowering without a panic. Slow (thousands of files); run by hand.
#[test]
#[ignore]
fn every_registry_source_lowers_without_panic() {
    let started = std::time::Instant::now();
    let files = registry_files();
    let tried = files.len();
    let (summary, panics, violations) = sweep(files);
    summary.print("registry sweep");
    eprintln!(
        "registry sweep: {tried} files tried ({} not parseable), {} functions, {} panics, \
         {} property violations, {:.1} s",
        summary.unparsed,
        summary.functions,
        panics.len(),
        violations.len(),
        started.elapsed().as_secs_f64()
    );
    assert!(panics.is_empty(), "the lowering panicked on: {panics:#?}");
    assert!(
        violations.is_empty(),
        "ill-formed programs from: {violations:#?}"
    );
    assert!(summary.files > 0);
}
