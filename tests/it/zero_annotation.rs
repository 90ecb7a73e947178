//! End-to-end zero-annotation mode: four crates written as their authors would (no
//! attribute, no dependency on the debugger), each with one seeded fault. `cargo autodebug`
//! localizes the fault and validates a fix without touching a byte of the user's tree,
//! reports the user's coordinates, and `--apply` changes only the faulty line. Also: a
//! function sharing its line with other code (its tokens move in the copy) is reported at
//! the user's columns, `--annotate never` builds the tree as it is, code the macro cannot
//! instrument is built uninstrumented, and an interrupted run removes its scratch copy.

use crate::common::{self, fixture_path as fixture};

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::Value;

/// A plain crate and its seeded fault.
struct Case {
    fixture: &'static str,
    /// The faulty file, relative to the crate.
    file: &'static str,
    /// The faulty line's text, trimmed.
    faulty: &'static str,
    /// The expected fix: the faulty expression and its correction.
    original: &'static str,
    replacement: &'static str,
}

const CASES: [Case; 4] = [
    // Unit tests in src/; a wrong comparison operator.
    Case {
        fixture: "plain-text",
        file: "src/lib.rs",
        faulty: "} else if value < high {",
        original: "value < high",
        replacement: "value > high",
    },
    // Integration tests in tests/; an off-by-one bound.
    Case {
        fixture: "plain-ring",
        file: "src/lib.rs",
        faulty: "if index <= self.len {",
        original: "index <= self.len",
        replacement: "index < self.len",
    },
    // Unit and integration tests, two modules; a wrong constant.
    Case {
        fixture: "plain-calc",
        file: "src/lib.rs",
        faulty: "if exponent < 1 {",
        original: "exponent < 1",
        replacement: "exponent < 0",
    },
    // Closures of several shapes (returned, coerced to a function pointer, counting into
    // a captured variable, leaving early), all built instrumented; the fault is in the
    // value of a `filter` closure.
    Case {
        fixture: "plain-closures",
        file: "src/lib.rs",
        faulty: ".filter(|x| *x % 2 == 1)",
        original: "*x % 2 == 1",
        replacement: "*x % 2 == 0",
    },
];

/// Every file of the tree but the tool's output, with its bytes.
fn snapshot(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    walkdir::WalkDir::new(root)
        .into_iter()
        .filter_entry(|e| !e.file_name().to_string_lossy().starts_with("autodebug.out"))
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            (
                e.path().strip_prefix(root).unwrap().to_path_buf(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect()
}

/// The 1-based line of `file` whose trimmed text is `text` (exactly one).
fn line_of(dir: &Path, file: &str, text: &str) -> usize {
    let source = std::fs::read_to_string(dir.join(file)).unwrap();
    let lines: Vec<usize> = source
        .lines()
        .enumerate()
        .filter(|(_, l)| l.trim() == text)
        .map(|(i, _)| i + 1)
        .collect();
    assert_eq!(lines.len(), 1, "`{text}` in {file}");
    lines[0]
}

/// The scratch copies of the workspace at `root` the runs made in the shared target dir
/// (`zero/PLACE/workspace`, PLACE one whose `root` file names it), which are still there.
fn scratch_copies(root: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(common::shared_target_dir().join("zero")) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|e| {
            std::fs::read(e.path().join("root"))
                .is_ok_and(|named| named == root.as_os_str().as_encoded_bytes())
        })
        .map(|e| e.path().join("workspace"))
        .filter(|p| p.exists())
        .collect()
}

#[test]
fn each_plain_crate_is_localized_and_fixed_and_left_byte_identical() {
    for case in &CASES {
        let dir = common::copy_crate(&fixture(case.fixture));
        let before = snapshot(dir.path());
        let line = line_of(dir.path(), case.file, case.faulty);
        let output = common::autodebug_expecting(dir.path(), &[], 5);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains("Annotating") && stderr.contains("zero-annotation mode"),
            "{}",
            common::describe(&output)
        );
        let report = common::report(dir.path());
        let context = format!("{}: {report:#}", case.fixture);

        // Localized: a top-3 suspect on the faulty line, at the user's column.
        let suspects = report["suspects"].as_array().unwrap();
        let hit = suspects
            .iter()
            .take(3)
            .find(|s| s["file"] == case.file && s["line"] == line)
            .unwrap_or_else(|| panic!("no top-3 suspect on line {line}: {context}"));
        let text = std::fs::read_to_string(dir.path().join(case.file)).unwrap();
        let column = hit["column"].as_u64().unwrap() as usize;
        let at_column: String = text
            .lines()
            .nth(line - 1)
            .unwrap()
            .chars()
            .skip(column - 1)
            .collect();
        assert!(
            at_column.starts_with(hit["code"].as_str().unwrap()),
            "the suspect's column does not point at its code: {context}"
        );
        assert_eq!(hit["source_line"], case.faulty, "{context}");

        // The rebuilds' work budget was read from the user's crate (its lines of Rust),
        // not from the copy under the tool's own directories.
        let lines: usize = before
            .iter()
            .filter(|(path, _)| path.extension().is_some_and(|e| e == "rs"))
            .map(|(_, bytes)| bytes.iter().filter(|&&b| b == b'\n').count())
            .sum();
        assert_eq!(report["repair"]["crate_lines"], lines, "{context}");

        // Fixed: the top fix is validated, on the faulty line, and is the correction.
        let fix = &report["fixes"][0];
        assert_eq!(fix["validated"], true, "{context}");
        assert_eq!(fix["file"], case.file, "{context}");
        assert_eq!(fix["line"], line, "{context}");
        assert_eq!(fix["original"], case.original, "{context}");
        assert_eq!(fix["replacement"], case.replacement, "{context}");
        // Its patch is on the user's text: one line out, one in, nothing of the copy's.
        let diff = fix["diff"].as_str().unwrap();
        assert!(!diff.contains("autodebug"), "{diff}");
        let removed: Vec<&str> = diff
            .lines()
            .filter(|l| l.starts_with('-') && !l.starts_with("---"))
            .collect();
        assert_eq!(removed.len(), 1, "{diff}");
        assert_eq!(removed[0][1..].trim(), case.faulty, "{diff}");
        let patch = std::fs::read_to_string(dir.path().join("autodebug.out/fix.patch")).unwrap();
        assert_eq!(patch, diff);
        // The pull-request suggestion replaces the user's line with the patched one.
        let added: Vec<&str> = diff
            .lines()
            .filter(|l| l.starts_with('+') && !l.starts_with("+++"))
            .collect();
        let md = std::fs::read_to_string(dir.path().join("autodebug.out/report.md")).unwrap();
        let block = format!(
            "<!-- autodebug-suggestion path=\"{}\" start_line={line} end_line={line} -->\n`{}` line {line}\n\n```suggestion\n{}\n```\n",
            case.file,
            case.file,
            &added[0][1..]
        );
        assert!(md.contains(&block), "{}: no {block} in\n{md}", case.fixture);

        // The user's tree: byte-identical, nothing added (no Cargo.lock, no target/).
        assert!(
            snapshot(dir.path()) == before,
            "{}: the user's tree changed",
            case.fixture
        );
        // Nothing points into the scratch copy, which is gone.
        let text = std::fs::read_to_string(dir.path().join("autodebug.out/report.json")).unwrap();
        assert!(!text.contains("zero/workspace"), "{context}");
        assert_eq!(
            report["workspace_root"],
            dir.path().canonicalize().unwrap().display().to_string()
        );
        let left = scratch_copies(dir.path());
        assert!(left.is_empty(), "the scratch copy is still there: {left:?}");
    }
}

#[test]
fn apply_changes_only_the_faulty_line() {
    for case in &CASES {
        let dir = common::copy_crate(&fixture(case.fixture));
        common::git_commit_all(dir.path());
        let before = snapshot(dir.path());
        let line = line_of(dir.path(), case.file, case.faulty);
        common::autodebug_expecting(dir.path(), &["--apply"], 0);
        let report = common::report(dir.path());
        assert_eq!(
            report["apply"]["files"],
            serde_json::json!([case.file]),
            "{report:#}"
        );
        let after = snapshot(dir.path());
        for (path, bytes) in &before {
            if path.starts_with(".git") || path == Path::new(case.file) {
                continue;
            }
            assert!(after.get(path) == Some(bytes), "{} changed", path.display());
        }
        let old = String::from_utf8(before[Path::new(case.file)].clone()).unwrap();
        let new = String::from_utf8(after[Path::new(case.file)].clone()).unwrap();
        let old_lines: Vec<&str> = old.split_inclusive('\n').collect();
        let new_lines: Vec<&str> = new.split_inclusive('\n').collect();
        assert_eq!(old_lines.len(), new_lines.len());
        let changed: Vec<usize> = (0..old_lines.len())
            .filter(|&i| old_lines[i] != new_lines[i])
            .map(|i| i + 1)
            .collect();
        assert_eq!(changed, [line], "{}", case.fixture);
        assert_eq!(
            new_lines[line - 1],
            old_lines[line - 1].replace(case.original, case.replacement)
        );
        let output = common::cargo_test(dir.path());
        assert!(output.status.success(), "{}", common::describe(&output));
    }
}

/// A crate whose faulty function starts the file on one line with its body: the attribute
/// goes before it on that line and moves its tokens in the copy.
fn one_line_crate() -> tempfile::TempDir {
    let dir = tempfile::Builder::new()
        .prefix("autodebug-e2e-")
        .tempdir()
        .unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    std::fs::write(
        dir.path().join("Cargo.toml"),
        "[package]\nname = \"one-line\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("src/lib.rs"),
        "pub fn smaller(a: i32, b: i32) -> i32 { if a > b { a } else { b } }\n\
         \n\
         #[cfg(test)]\n\
         mod tests {\n    \
             #[test]\n    \
             fn picks_the_smaller() {\n        \
                 assert_eq!(super::smaller(2, 5), 2);\n        \
                 assert_eq!(super::smaller(9, 4), 4);\n    \
             }\n\
         }\n",
    )
    .unwrap();
    dir
}

#[test]
fn positions_are_the_users_when_tokens_move_in_the_copy() {
    let dir = one_line_crate();
    common::git_commit_all(dir.path());
    common::autodebug_expecting(dir.path(), &["--apply"], 0);
    let report = common::report(dir.path());
    // `a > b` starts at column 44 of line 1 in the user's file.
    let suspect = report["suspects"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["code"] == "a > b")
        .unwrap_or_else(|| panic!("no suspect `a > b`: {report:#}"));
    assert_eq!(
        (&suspect["line"], &suspect["column"]),
        (&1.into(), &44.into()),
        "{report:#}"
    );
    assert_eq!(
        suspect["source_line"],
        "pub fn smaller(a: i32, b: i32) -> i32 { if a > b { a } else { b } }"
    );
    let fix = &report["fixes"][0];
    assert_eq!(fix["validated"], true, "{report:#}");
    assert_eq!(
        (&fix["line"], &fix["column"]),
        (&1.into(), &44.into()),
        "{report:#}"
    );
    assert_eq!(fix["end_column"], 49, "{report:#}");
    // Traces were written from the copy: their site tables are in the user's columns too.
    let traces = std::fs::read_dir(dir.path().join("autodebug.out/traces")).unwrap();
    let mut seen = false;
    for trace in traces {
        let text = std::fs::read_to_string(trace.unwrap().path()).unwrap();
        let trace: Value = serde_json::from_str(&text).unwrap();
        for site in trace["sites"].as_array().unwrap() {
            if site["code"] == "a > b" {
                assert_eq!(site["column"], 44, "{site:#}");
                seen = true;
            }
        }
    }
    assert!(seen, "no trace has the site");
    let lib = std::fs::read_to_string(dir.path().join("src/lib.rs")).unwrap();
    assert!(
        lib.starts_with("pub fn smaller(a: i32, b: i32) -> i32 { if a < b { a } else { b } }\n"),
        "{lib}"
    );
}

/// Writes `files` (path, text) under a new temp dir.
fn write_tree(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::Builder::new()
        .prefix("autodebug-e2e-")
        .tempdir()
        .unwrap();
    for (path, text) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

#[test]
fn the_tests_of_a_procedural_macro_crate_run_as_under_cargo_test() {
    // Its test binary loads the standard library as a shared library: run without the
    // toolchain's libraries on the library path (as cargo's runner puts them), it cannot
    // even list its tests.
    let dir = write_tree(&[
        (
            "Cargo.toml",
            "[package]\nname = \"shout\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
             [lib]\nproc-macro = true\n\n[workspace]\n",
        ),
        (
            "src/lib.rs",
            "extern crate proc_macro;\n\n/// Upper-case ASCII.\nfn upper(s: &str) -> String {\n    \
             s.to_ascii_lowercase()\n}\n\n#[test]\nfn shouts() {\n    \
             assert_eq!(upper(\"hey\"), \"HEY\");\n}\n\n#[test]\nfn stays_empty() {\n    \
             assert_eq!(upper(\"\"), \"\");\n}\n",
        ),
    ]);
    // `cargo test` runs this test with those libraries on the path already: a user's
    // shell has none.
    let output = common::autodebug_in(
        dir.path(),
        &["--no-fix"],
        &common::shared_target_dir(),
        &[
            ("LD_LIBRARY_PATH", None),
            ("DYLD_FALLBACK_LIBRARY_PATH", None),
        ],
    );
    assert_eq!(
        output.status.code(),
        Some(5),
        "{}",
        common::describe(&output)
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("procedural-macro crate"), "{stderr}");
    let report = common::report(dir.path());
    assert_eq!(report["tests"]["total"], 2, "{report:#}");
    assert_eq!(report["tests"]["failed"], 1, "{report:#}");
    let failing = report["failing_tests"].to_string();
    assert!(failing.contains("shouts"), "{failing}");
}

#[test]
fn workspace_members_the_package_uses_are_instrumented_too() {
    let dir = write_tree(&[
        (
            "Cargo.toml",
            "[workspace]\nmembers = [\"shapes\", \"app\"]\nresolver = \"2\"\n",
        ),
        (
            "shapes/Cargo.toml",
            "[package]\nname = \"shapes\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
        ),
        (
            "shapes/src/lib.rs",
            "/// The perimeter of a square.\npub fn perimeter(side: i32) -> i32 {\n    side * 3\n}\n",
        ),
        (
            "app/Cargo.toml",
            "[package]\nname = \"app\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
             [dependencies]\nfigures = { package = \"shapes\", path = \"../shapes\" }\n",
        ),
        (
            "app/src/lib.rs",
            "/// The fence around `n` square plots of side `side`.\n\
             pub fn fence(n: i32, side: i32) -> i32 {\n    n * figures::perimeter(side)\n}\n",
        ),
        (
            "app/tests/fence.rs",
            "#[test]\nfn two_plots() {\n    assert_eq!(app::fence(2, 5), 40);\n}\n",
        ),
    ]);
    let before = snapshot(dir.path());
    // Run from the member's directory: `app` is the selected package.
    let output = common::autodebug_expecting(&dir.path().join("app"), &[], 5);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("of app, shapes"), "{stderr}");
    let report = common::report(dir.path());
    let suspects = report["suspects"].as_array().unwrap();
    assert!(
        suspects
            .iter()
            .take(3)
            .any(|s| s["file"] == "shapes/src/lib.rs" && s["line"] == 3),
        "{report:#}"
    );
    let fix = &report["fixes"][0];
    assert_eq!(fix["validated"], true, "{report:#}");
    assert_eq!(fix["file"], "shapes/src/lib.rs", "{report:#}");
    assert_eq!(fix["replacement"], "side * 4", "{report:#}");
    assert!(snapshot(dir.path()) == before, "the user's tree changed");
}

#[test]
fn annotate_never_builds_the_tree_as_it_is() {
    let dir = common::copy_crate(&fixture("plain-text"));
    let output = common::autodebug_expecting(dir.path(), &["--annotate", "never", "--no-fix"], 5);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("Annotating"), "{stderr}");
    assert!(stderr.contains("reach no instrumented code"), "{stderr}");
    // No run ranks anything: the suspects are read from the source of what the failing
    // test calls, and say so.
    let report = common::report(dir.path());
    let suspects = report["suspects"].as_array().unwrap();
    assert!(!suspects.is_empty(), "{report:#}");
    for suspect in suspects {
        assert_eq!(
            suspect["techniques"][0]["technique"], "called",
            "{suspect:#}"
        );
        assert_eq!(
            suspect["techniques"].as_array().unwrap().len(),
            1,
            "{suspect:#}"
        );
    }
}

#[test]
fn an_annotated_crate_whose_copy_does_not_build_builds_in_place() {
    // The crate reads a file outside its workspace, which the copy (made for the tests'
    // batches) does not have.
    let manifest = format!(
        "[package]\nname = \"outside\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n\n\
         [dependencies]\nautodebug-runtime = {{ path = {:?} }}\n",
        common::repo_root()
            .join("autodebug-runtime")
            .display()
            .to_string()
    );
    let dir = write_tree(&[
        ("ws/Cargo.toml", &manifest),
        (
            "ws/src/lib.rs",
            "pub const GREETING: &str = include_str!(\"../../greeting.txt\");\n\n\
             #[autodebug_runtime::autodebug]\n\
             pub fn larger(a: i32, b: i32) -> i32 {\n    if a > b { b } else { a }\n}\n\n\
             #[cfg(test)]\nmod tests {\n    #[test]\n    fn larger() {\n        \
             assert_eq!(super::larger(2, 5), 5);\n    }\n\n    #[test]\n    fn greets() {\n        \
             assert_eq!(super::GREETING, \"hello\\n\");\n    }\n}\n",
        ),
        ("greeting.txt", "hello\n"),
    ]);
    let ws = dir.path().join("ws");
    let output = common::autodebug_expecting(&ws, &["--no-fix"], 5);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("does not build; building the tree as it is"),
        "{stderr}"
    );
    let report = common::report(&ws);
    assert_eq!(report["suspects"][0]["line"], 5, "{report:#}");
    assert!(
        scratch_copies(&ws).is_empty(),
        "the scratch copy is still there"
    );
}

/// What the runtime links adds no trait impl on a std type: `assert_eq!(f(vec![]), vec![])`
/// asks for `i32: PartialEq<_>`, which one more impl in the graph (as `serde_json::Value`'s
/// `impl PartialEq<Value> for i32` was) makes ambiguous (E0282) in the instrumented build only.
#[test]
fn inference_that_builds_plainly_builds_instrumented() {
    let dir = write_tree(&[
        (
            "Cargo.toml",
            "[package]\nname = \"evens\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
        ),
        (
            "src/lib.rs",
            "pub fn evens(v: Vec<i32>) -> Vec<i32> {\n    let mut out = vec![];\n    \
             for x in v {\n        if x % 2 == 1 {\n            out.push(x);\n        }\n    }\n    \
             out\n}\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    \
             fn keeps_the_even_ones() {\n        assert_eq!(evens(vec![]), vec![]);\n        \
             assert_eq!(evens(vec![1, 2, 3, 4]), vec![2, 4]);\n        \
             assert_eq!(evens(vec![7]), vec![]);\n    }\n}\n",
        ),
    ]);
    let output = common::autodebug_expecting(dir.path(), &[], 5);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("rejected"), "{stderr}");
    let report = common::report(dir.path());
    let fix = common::validated_fix(&report);
    assert_eq!(fix["line"], 4, "{report:#}");
    let replacement = fix["replacement"].as_str().unwrap();
    assert!(
        ["x % 2 == 0", "x % 2 != 1"].contains(&replacement),
        "{report:#}"
    );
}

/// The generated code names `::autodebug_runtime` paths only: a `#![no_std]` library, which
/// has no `::std`, builds instrumented and its fault is found and fixed.
#[test]
fn a_no_std_crate_builds_instrumented() {
    let dir = write_tree(&[
        (
            "Cargo.toml",
            "[package]\nname = \"bare\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
        ),
        (
            "src/lib.rs",
            "#![no_std]\n//! Helpers for targets without std.\n\n/// The larger of two values.\n\
             pub fn larger(a: i32, b: i32) -> i32 {\n    if a > b { b } else { a }\n}\n",
        ),
        (
            "tests/larger.rs",
            "#[test]\nfn larger() {\n    assert_eq!(bare::larger(2, 5), 5);\n}\n",
        ),
    ]);
    let before = snapshot(dir.path());
    let output = common::autodebug_expecting(dir.path(), &[], 5);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("rejected"), "{stderr}");
    assert!(!stderr.contains("reach no instrumented code"), "{stderr}");
    let report = common::report(dir.path());
    assert_eq!(report["failing_tests"][0]["name"], "larger", "{report:#}");
    assert_eq!(
        report["instrumentation"],
        serde_json::json!({"functions": 1, "instrumented": 1, "left_out": [], "tests_wrapped": 1}),
        "{report:#}"
    );
    let fix = common::validated_fix(&report);
    assert_eq!(fix["line"], 6, "{report:#}");
    assert!(snapshot(dir.path()) == before, "the user's tree changed");
    assert!(
        scratch_copies(dir.path()).is_empty(),
        "the scratch copy is still there"
    );
}

/// `--baseline-only` (the equivalence sweep's measure) stops after one run of every test:
/// the verdicts are in coverage.json, what was instrumented in report.json, and nothing is
/// traced, localized or repaired.
#[test]
fn baseline_only_stops_after_the_baseline() {
    let dir = write_tree(&[
        (
            "Cargo.toml",
            "[package]\nname = \"pair\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
        ),
        (
            "src/lib.rs",
            "/// The larger of two values.\npub fn larger(a: i32, b: i32) -> i32 {\n    \
             if a > b { b } else { a }\n}\n\n/// The smaller.\npub fn smaller(a: i32, b: i32) -> i32 {\n    \
             a.min(b)\n}\n",
        ),
        (
            "tests/pair.rs",
            "#[test]\nfn larger() {\n    assert_eq!(pair::larger(2, 5), 5);\n}\n\n\
             #[test]\nfn smaller() {\n    assert_eq!(pair::smaller(2, 5), 2);\n}\n",
        ),
    ]);
    common::autodebug_expecting(dir.path(), &["--baseline-only"], 5);
    let report = common::report(dir.path());
    assert_eq!(report["tests"]["failed"], 1, "{report:#}");
    assert_eq!(report["instrumentation"]["functions"], 2, "{report:#}");
    assert_eq!(report["instrumentation"]["instrumented"], 2, "{report:#}");
    assert_eq!(report["traces"], serde_json::json!([]), "{report:#}");
    assert_eq!(report["suspects"], serde_json::json!([]), "{report:#}");
    assert_eq!(report["fixes"], serde_json::json!([]), "{report:#}");
    let coverage: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("autodebug.out/coverage.json")).unwrap(),
    )
    .unwrap();
    let verdicts: Vec<(&str, &str)> = coverage["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["test"]["name"].as_str().unwrap(),
                t["outcome"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(verdicts, [("larger", "failed"), ("smaller", "passed")]);
    assert!(
        scratch_copies(dir.path()).is_empty(),
        "the scratch copy is still there"
    );
}

/// In an edition-2015 crate a path that starts with `::` starts at the crate root: the
/// inserted attributes name the runtime without it, and the crate (a function in a module,
/// a unit test run in batches) is instrumented, diagnosed and fixed. Syntax edition 2015
/// allows and syn does not parse is instrumented too: parameters without a name, closure
/// traits without `dyn` (`&Fn(i32) -> i32`, `Box<FnMut()>`), a later keyword as a name.
/// A test that reads its own function's path, as snapshot libraries do to name their
/// files, reads the name it has in the plain build.
#[test]
fn an_edition_2015_crate_builds_instrumented() {
    let dir = write_tree(&[
        (
            "Cargo.toml",
            "[package]\nname = \"old\"\nversion = \"0.1.0\"\nedition = \"2015\"\n\n[workspace]\n",
        ),
        (
            "src/lib.rs",
            "pub mod pick {\n    /// The larger of two values.\n    \
             pub fn larger(a: i32, b: i32) -> i32 {\n        if a > b { b } else { a }\n    }\n}\n\n\
             #[cfg(test)]\nmod tests {\n    #[test]\n    fn larger() {\n        \
             assert_eq!(::pick::larger(2, 5), 5);\n    }\n\n    \
             #[test]\n    fn named() {\n        fn f() {}\n        \
             fn path_of<T>(_: T) -> &'static str {\n            ::std::any::type_name::<T>()\n        }\n        \
             let path = path_of(f).trim_end_matches(\"::f\");\n        \
             assert_eq!(path.rsplit(\"::\").next(), Some(\"named\"));\n    }\n}\n\n\
             pub trait Reseed {\n    fn reseed(&mut self, u64);\n    \
             fn seed(&self, u64) -> u64 {\n        7\n    }\n}\n\n\
             pub fn apply(f: &Fn(i32) -> i32, x: i32) -> i32 {\n    f(x)\n}\n\n\
             pub fn adder(n: i32) -> Box<FnMut(i32) -> i32> {\n    Box::new(move |x| x + n)\n}\n\n\
             pub fn async(x: i32) -> i32 {\n    let await = x;\n    await\n}\n",
        ),
    ]);
    let output = common::autodebug_expecting(dir.path(), &[], 5);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("2015"), "{stderr}");
    assert!(!stderr.contains("not instrumented"), "{stderr}");
    assert!(!stderr.contains("rejected"), "{stderr}");
    assert!(!stderr.contains("reach no instrumented code"), "{stderr}");
    let report = common::report(dir.path());
    assert_eq!(report["tests"]["failed"], 1, "{report:#}");
    assert_eq!(report["tests"]["passed"], 1, "{report:#}");
    let fix = common::validated_fix(&report);
    assert_eq!(fix["line"], 4, "{report:#}");
    // larger, seed, apply, adder, async: all instrumented, none left out.
    let instrumentation = &report["instrumentation"];
    assert_eq!(instrumentation["functions"], 5, "{instrumentation:#}");
    assert_eq!(instrumentation["instrumented"], 5, "{instrumentation:#}");
    assert_eq!(
        instrumentation["left_out"],
        serde_json::json!([]),
        "{instrumentation:#}"
    );
}

#[test]
fn a_crate_that_does_not_compile_is_said_to_be_the_users() {
    let dir = common::copy_crate(&fixture("plain-text"));
    let lib = dir.path().join("src/lib.rs");
    let text = std::fs::read_to_string(&lib).unwrap();
    std::fs::write(
        &lib,
        text.replace("let mut sum = 0;", "let mut sum: u64 = \"zero\";"),
    )
    .unwrap();
    let before = snapshot(dir.path());
    let output = common::autodebug_expecting(dir.path(), &[], 3);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("expected `u64`, found `&str`"), "{stderr}");
    assert!(!stderr.contains("rejected"), "{stderr}");
    assert!(snapshot(dir.path()) == before, "the user's tree changed");
    assert!(
        scratch_copies(dir.path()).is_empty(),
        "the scratch copy is still there"
    );
}

#[test]
fn a_failing_test_that_reaches_no_instrumented_code_gets_the_sites_it_calls() {
    // `const fn`s are left uninstrumented: no run reaches instrumented code, and the
    // suspects come from the functions the failing assertion calls.
    let dir = common::copy_crate(&fixture("plain-const"));
    common::autodebug_expecting(dir.path(), &[], 5);
    let report = common::report(dir.path());
    let notes = report["notes"].to_string();
    assert!(notes.contains("from the functions they call"), "{notes}");
    let suspects = report["suspects"].as_array().unwrap();
    assert!(
        suspects
            .iter()
            .any(|s| s["code"] == "month == 10" && s["function"] == "days_in"),
        "{suspects:?}"
    );
    // Every suspect lies in a function the test calls (`days_before` is not called).
    assert!(
        suspects
            .iter()
            .all(|s| ["days_in", "is_february"].contains(&s["function"].as_str().unwrap())),
        "{suspects:?}"
    );
    // The fix was rebuilt and the whole suite passed, the failing test included.
    let fix = &report["fixes"][0];
    assert_eq!(fix["validated"], true, "{fix}");
    assert!(
        fix["replacement"].as_str().unwrap().contains("month == 11"),
        "{fix}"
    );
    assert!(
        !fix["replacement"].as_str().unwrap().contains("month == 10"),
        "{fix}"
    );
}

#[test]
fn a_target_dir_of_its_own_takes_the_runtime_from_the_per_user_cache() {
    let cache = tempfile::tempdir().unwrap();
    let run = |dir: &Path, target: &Path| {
        let env = [("AUTODEBUG_CACHE_DIR", Some(cache.path().as_os_str()))];
        let output = common::autodebug_in(dir, &["--no-fix", "-v"], target, &env);
        assert_eq!(
            output.status.code(),
            Some(5),
            "{}",
            common::describe(&output)
        );
        let log = std::fs::read_to_string(dir.join("autodebug.out/log/build.log")).unwrap();
        (String::from_utf8_lossy(&output.stderr).into_owned(), log)
    };
    // A build in the shared target dir keeps the runtime's units in the (empty) cache.
    let first = common::copy_crate(&fixture("plain-ring"));
    let (stderr, _) = run(first.path(), &common::shared_target_dir());
    assert!(
        stderr.contains("compiled units of the runtime and registry dependencies for other"),
        "{stderr}"
    );
    // Another crate, in a target dir of its own, compiles only its own code.
    let second = common::copy_crate(&fixture("plain-text"));
    let target = tempfile::tempdir().unwrap();
    let (stderr, log) = run(second.path(), target.path());
    assert!(
        stderr.contains("compiled units of the runtime taken from"),
        "{stderr}"
    );
    let compiled: Vec<&str> = log.lines().filter(|l| l.contains("Compiling")).collect();
    assert!(
        compiled.iter().any(|l| l.contains("Compiling plain-text ")),
        "{compiled:?}"
    );
    for crate_name in ["autodebug-runtime", "autodebug-macros", "syn ", "serde "] {
        assert!(
            !compiled.iter().any(|l| l.contains(crate_name)),
            "{crate_name} compiled again: {compiled:?}"
        );
    }
}

#[test]
fn an_interrupted_run_removes_its_scratch_copy_and_keeps_the_last_report() {
    let dir = common::copy_crate(&fixture("plain-ring"));
    // A previous run's report, which the interrupted run and a run that selects no test
    // leave where it is.
    let out = dir.path().join("autodebug.out");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("report.json"), "the previous report").unwrap();
    let previous = || std::fs::read_to_string(out.join("report.json")).ok();
    // A test that keeps the run busy long enough to be interrupted.
    let test = dir.path().join("tests/ring.rs");
    let mut text = std::fs::read_to_string(&test).unwrap();
    text.push_str(
        "\n#[test]\nfn slow() {\n    std::thread::sleep(std::time::Duration::from_secs(20));\n}\n",
    );
    std::fs::write(&test, text).unwrap();
    let before = snapshot(dir.path());
    let mut command = Command::new(env!("CARGO_BIN_EXE_cargo-autodebug"));
    // Its own process group, as a terminal's foreground job: Ctrl-C reaches the tool and
    // the cargo it runs.
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    let mut child = command
        .arg("autodebug")
        .arg("--target-dir")
        .arg(common::shared_target_dir())
        .current_dir(dir.path())
        .env_remove("AUTODEBUG_INSTRUMENT")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Wait for the build in the copy to start.
    let start = Instant::now();
    while !scratch_copies(dir.path())
        .iter()
        .any(|copy| copy.join("Cargo.lock").exists())
    {
        assert!(
            start.elapsed() < Duration::from_secs(300),
            "no scratch copy"
        );
        assert!(child.try_wait().unwrap().is_none(), "the run ended early");
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_secs(2));
    let status = Command::new("kill")
        .args(["-INT", "--", &format!("-{}", child.id())])
        .status()
        .unwrap();
    assert!(status.success());
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "the run did not stop"
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(status.code(), Some(130));
    assert!(
        scratch_copies(dir.path()).is_empty(),
        "the scratch copy is still there"
    );
    assert!(snapshot(dir.path()) == before, "the user's tree changed");
    assert_eq!(previous().as_deref(), Some("the previous report"));
    // A filter that matches no test: nothing to report, the previous report is kept.
    let output = Command::new(env!("CARGO_BIN_EXE_cargo-autodebug"))
        .args(["autodebug", "no_test_has_this_name", "--target-dir"])
        .arg(common::shared_target_dir())
        .current_dir(dir.path())
        .env_remove("AUTODEBUG_INSTRUMENT")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(4), "{output:?}");
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("Kept the previous run's report"),
        "{output:?}"
    );
    assert_eq!(previous().as_deref(), Some("the previous report"));
}

/// The pids of processes whose command line has `words` in a row.
fn processes_with(words: &[&str]) -> Vec<u32> {
    let wanted = words.join("\0");
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|c| String::from_utf8_lossy(&c).contains(&wanted))
        })
        .collect()
}

#[test]
fn an_interrupted_run_stops_its_tests() {
    let dir = common::copy_crate(&fixture("plain-ring"));
    // A test that is still running when the run is interrupted. Tests run in process
    // groups of their own, which a terminal's Ctrl-C does not reach.
    let name = format!("still_running_{}", std::process::id());
    let test = dir.path().join("tests/ring.rs");
    let mut text = std::fs::read_to_string(&test).unwrap();
    text.push_str(&format!(
        "\n#[test]\nfn {name}() {{\n    std::thread::sleep(std::time::Duration::from_secs(120));\n}}\n"
    ));
    std::fs::write(&test, text).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_cargo-autodebug"))
        .arg("autodebug")
        .arg("--target-dir")
        .arg(common::shared_target_dir())
        .current_dir(dir.path())
        .env_remove("AUTODEBUG_INSTRUMENT")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while processes_with(&["--exact", &name]).is_empty() {
        assert!(
            start.elapsed() < Duration::from_secs(300),
            "the test never started"
        );
        assert!(child.try_wait().unwrap().is_none(), "the run ended early");
        std::thread::sleep(Duration::from_millis(100));
    }
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    let start = Instant::now();
    while !processes_with(&["--exact", &name]).is_empty() {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "the test kept running after the run stopped"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn a_crate_that_a_dev_dependency_takes_in_another_version_builds_instrumented() {
    // `cargo test -p ring` is ambiguous here (ring 0.2.0, and ring 0.1.0 that the snapshot
    // helper depends on): the build and the rebuilds must name the package exactly.
    let dir = write_tree(&[
        (
            "Cargo.toml",
            "[package]\nname = \"ring\"\nversion = \"0.2.0\"\nedition = \"2021\"\n\n\
             [dev-dependencies]\nsnap = { path = \"snap\" }\n\n\
             [workspace]\nexclude = [\"snap\", \"released\"]\n",
        ),
        (
            "src/lib.rs",
            "/// The larger of two values.\npub fn larger(a: i32, b: i32) -> i32 {\n    \
             if a < b { a } else { b }\n}\n",
        ),
        (
            "tests/larger.rs",
            "#[test]\nfn larger() {\n    assert_eq!(snap::name(), \"released\");\n    \
             assert_eq!(ring::larger(2, 5), 5);\n    assert_eq!(ring::larger(7, 3), 7);\n}\n",
        ),
        (
            "snap/Cargo.toml",
            "[package]\nname = \"snap\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
             [dependencies]\nring = { path = \"../released\" }\n",
        ),
        (
            "snap/src/lib.rs",
            "pub fn name() -> &'static str {\n    ring::NAME\n}\n",
        ),
        (
            "released/Cargo.toml",
            "[package]\nname = \"ring\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
        ),
        (
            "released/src/lib.rs",
            "pub const NAME: &str = \"released\";\n",
        ),
    ]);
    common::autodebug_expecting(dir.path(), &[], 5);
    let report = common::report(dir.path());
    let fix = common::validated_fix(&report);
    assert_eq!(fix["replacement"], "a > b", "{report:#}");
    // The version cargo names in its hint selects the package too.
    common::autodebug_expecting(dir.path(), &["-p", "ring@0.2.0", "--no-fix"], 5);
}

/// A site whose instrumented code the compiler rejects (a `pin!` whose temporary lives on
/// only in a `let` of its own, E0716) is left as written and the rest of its function stays
/// instrumented: the fault in that function is found and fixed, and the report says which
/// site was left out and why.
#[test]
fn only_the_site_the_compiler_rejects_is_left_uninstrumented() {
    let copy = common::fixture("plain-pinned");
    let before = snapshot(copy.path());
    let output = common::autodebug_expecting(copy.path(), &[], 5);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("rejected the instrumented code of 1 site: src/lib.rs:11:17"),
        "{stderr}"
    );
    let report = common::report(copy.path());
    let instrumentation = &report["instrumentation"];
    assert_eq!(instrumentation["functions"], 2, "{instrumentation:#}");
    assert_eq!(instrumentation["instrumented"], 2, "{instrumentation:#}");
    assert_eq!(instrumentation["left_out"], serde_json::json!([]));
    let sites = instrumentation["sites_left_out"].as_array().unwrap();
    assert_eq!(sites.len(), 1, "{instrumentation:#}");
    assert_eq!(
        (&sites[0]["line"], &sites[0]["item"]),
        (&serde_json::json!(11), &serde_json::json!("poll_within"))
    );
    assert!(
        sites[0]["reason"].as_str().unwrap().contains("E0716"),
        "{instrumentation:#}"
    );
    assert!(
        report["suspects"][0]["function"]
            .as_str()
            .is_some_and(|f| f.ends_with("poll_within")),
        "{:#}",
        report["suspects"]
    );
    let fix = common::validated_fix(&report);
    assert!(
        [13, 14].contains(&fix["line"].as_u64().unwrap()),
        "{report:#}"
    );
    assert!(snapshot(copy.path()) == before, "the user's tree changed");
}

/// A member reached only through the selected package's `[dev-dependencies]` (a test
/// helper crate of the workspace) is instrumented too: its tests run that code, and a fault
/// there is found and fixed.
#[test]
fn a_member_the_tests_use_as_a_dev_dependency_is_instrumented_too() {
    let dir = write_tree(&[
        (
            "Cargo.toml",
            "[workspace]\nmembers = [\"testkit\", \"app\"]\nresolver = \"2\"\n",
        ),
        (
            "testkit/Cargo.toml",
            "[package]\nname = \"testkit\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
        ),
        (
            "testkit/src/lib.rs",
            "/// The expected total of `n` items at `price` with the tenth item free.\n\
             pub fn expected_total(n: u32, price: u32) -> u32 {\n    \
             (n - n / 9) * price\n}\n",
        ),
        (
            "app/Cargo.toml",
            "[package]\nname = \"app\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
             [dev-dependencies]\ntestkit = { path = \"../testkit\" }\n",
        ),
        (
            "app/src/lib.rs",
            "/// The total of `n` items at `price`, every tenth free.\n\
             pub fn total(n: u32, price: u32) -> u32 {\n    (n - n / 10) * price\n}\n",
        ),
        (
            "app/tests/total.rs",
            "#[test]\nfn ten_items() {\n    assert_eq!(app::total(10, 3), testkit::expected_total(10, 3));\n}\n\n\
             #[test]\nfn nine_items() {\n    assert_eq!(app::total(9, 3), testkit::expected_total(9, 3));\n}\n",
        ),
    ]);
    let output = common::autodebug_expecting(&dir.path().join("app"), &[], 5);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("of app, testkit"), "{stderr}");
    let report = common::report(dir.path());
    let suspects = report["suspects"].as_array().unwrap();
    assert!(
        suspects
            .iter()
            .take(3)
            .any(|s| s["file"] == "testkit/src/lib.rs"),
        "{report:#}"
    );
}

/// Two checkouts of one crate, differing by two lines at the top of the faulty file, run
/// at once with one target dir: each run diagnoses and fixes its own checkout. (Cargo names
/// a workspace crate's units by its path relative to the workspace root, so the two
/// scratch copies would share units in one target dir: one run's build took the other's
/// test binaries for its own, and repair found no expression at the lines the traces had.)
#[test]
fn two_checkouts_sharing_a_target_dir_each_get_their_own_build() {
    let case = &CASES[0];
    let first = common::fixture(case.fixture);
    let second = common::fixture(case.fixture);
    let file = second.path().join(case.file);
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(
        &file,
        format!("// A second checkout.\n// Two lines longer.\n{text}"),
    )
    .unwrap();
    let target = tempfile::tempdir().unwrap();
    let runs: Vec<(&Path, std::process::Output)> = std::thread::scope(|scope| {
        let handles: Vec<_> = [first.path(), second.path()]
            .into_iter()
            .map(|dir| {
                let target = target.path();
                scope.spawn(move || (dir, common::autodebug_in(dir, &[], target, &[])))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for (dir, output) in runs {
        assert_eq!(
            output.status.code(),
            Some(5),
            "{}",
            common::describe(&output)
        );
        let report = common::report(dir);
        let fix = common::validated_fix(&report);
        assert_eq!(fix["replacement"], case.replacement, "{report:#}");
        assert_eq!(
            fix["line"].as_u64(),
            Some(line_of(dir, case.file, case.faulty) as u64),
            "{report:#}"
        );
    }
}

/// One workspace, three faults, each found from its own selection (fixture
/// `workspace-members`): a fault in a library member used by two others, debugged from one
/// of them, whose fix is validated against the tests of every member that runs the library
/// (its own, grades' and sensors'), not only the selected package's; a fault behind a
/// feature (`-F calibration`); a fault in a dev-dependency member that only the selected
/// package's integration tests reach.
#[test]
fn a_workspace_s_faults_are_each_found_and_fixes_validated_across_members() {
    let dir = common::fixture("workspace-members");

    // The shared library, from one of its users.
    let output = common::autodebug_expecting(dir.path(), &["-p", "grades"], 5);
    let report = common::report(dir.path());
    let fix = common::validated_fix(&report);
    assert_eq!(fix["file"], "stats/src/lib.rs", "{report:#}");
    assert_eq!(
        fix["replacement"], "total / (values.len() as u32)",
        "{report:#}"
    );
    // grades' 2 tests, stats' 1, sensors' 2 unit tests and its integration test that
    // passes (the one failing through testkit is left out: it fails unpatched).
    assert_eq!(fix["tests_total"], 7, "{report:#}");
    assert_eq!(fix["tests_passed"], 6, "{report:#}");
    let summary = String::from_utf8_lossy(&output.stdout);
    assert!(summary.contains("6/7 tests pass"), "{summary}");

    // Behind a feature: without it, sensors' unit tests pass.
    common::autodebug_expecting(dir.path(), &["-p", "sensors", "--lib"], 0);
    common::autodebug_expecting(
        dir.path(),
        &["-p", "sensors", "--lib", "-F", "calibration"],
        5,
    );
    let report = common::report(dir.path());
    assert_eq!(
        report["failing_tests"][0]["name"], "tests::offset_is_added_once",
        "{report:#}"
    );
    let fix = common::validated_fix(&report);
    assert_eq!(fix["file"], "sensors/src/lib.rs", "{report:#}");
    assert_eq!(
        fix["line"],
        line_of(
            dir.path(),
            "sensors/src/lib.rs",
            "reading + offset + offset"
        )
    );

    // Through a dev-dependency: sensors' integration test fails in testkit's code.
    common::autodebug_expecting(dir.path(), &["-p", "sensors", "--test", "peak"], 5);
    let report = common::report(dir.path());
    assert_eq!(
        report["failing_tests"][0]["name"], "peak_of_a_day",
        "{report:#}"
    );
    assert_eq!(
        report["suspects"][0]["file"], "testkit/src/lib.rs",
        "{report:#}"
    );
    let fix = common::validated_fix(&report);
    assert_eq!(fix["file"], "testkit/src/lib.rs", "{report:#}");
    assert_eq!(fix["original"], "r < best", "{report:#}");
}

/// The test binaries' arguments after `--` select tests as `cargo test -- ARGS` does: an
/// ignored failing test is left out by default and debugged with `--include-ignored` (or
/// `--ignored`); `--skip` leaves a test out, `--exact` matches whole names; `--workspace`
/// takes every member, `--exclude NAME` leaves one out.
#[test]
fn test_binary_arguments_and_workspace_select_as_cargo_test_does() {
    let dir = write_tree(&[
        (
            "Cargo.toml",
            "[workspace]\nmembers = [\"clamp\", \"other\"]\nresolver = \"2\"\n",
        ),
        (
            "clamp/Cargo.toml",
            "[package]\nname = \"clamp\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
        ),
        (
            "clamp/src/lib.rs",
            "/// `x` kept within `lo..=hi`.\npub fn clamp(x: i32, lo: i32, hi: i32) -> i32 {\n    \
             if x < lo {\n        lo\n    } else if x > hi {\n        lo\n    } else {\n        x\n    }\n}\n\n\
             #[cfg(test)]\nmod tests {\n    #[test]\n    fn inside() {\n        \
             assert_eq!(super::clamp(5, 0, 10), 5);\n    }\n\n    \
             #[test]\n    fn below() {\n        assert_eq!(super::clamp(-3, 0, 10), 0);\n    }\n\n    \
             #[test]\n    #[ignore = \"slow\"]\n    fn above() {\n        \
             assert_eq!(super::clamp(12, 0, 10), 10);\n    }\n}\n",
        ),
        (
            "other/Cargo.toml",
            "[package]\nname = \"other\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
        ),
        (
            "other/src/lib.rs",
            "pub fn twice(x: i32) -> i32 {\n    x + x\n}\n\n\
             #[cfg(test)]\nmod tests {\n    #[test]\n    fn two() {\n        \
             assert_eq!(super::twice(2), 5);\n    }\n}\n",
        ),
    ]);
    let clamp = dir.path().join("clamp");
    // The failing test is ignored: nothing fails.
    common::autodebug_expecting(&clamp, &[], 0);
    assert_eq!(common::report(dir.path())["tests"]["total"], 2);
    for args in [&["--", "--include-ignored"][..], &["--", "--ignored"]] {
        common::autodebug_expecting(&clamp, args, 5);
        let report = common::report(dir.path());
        assert_eq!(
            report["failing_tests"][0]["name"], "tests::above",
            "{args:?}"
        );
        assert_eq!(
            common::validated_fix(&report)["replacement"],
            "hi",
            "{report:#}"
        );
    }
    // No test left: exit 4.
    common::autodebug_expecting(&clamp, &["--", "--ignored", "--skip", "above"], 4);
    common::autodebug_expecting(
        &clamp,
        &["--", "--include-ignored", "--exact", "tests::below"],
        0,
    );
    assert_eq!(common::report(dir.path())["tests"]["total"], 1);
    let output = common::autodebug_expecting(&clamp, &["--", "--format", "json"], 2);
    assert!(String::from_utf8_lossy(&output.stderr).contains("hint:"));

    // The whole workspace: other's failing test is found; without it, nothing fails.
    common::autodebug_expecting(dir.path(), &["--workspace"], 5);
    assert_eq!(
        common::report(dir.path())["failing_tests"][0]["name"],
        "tests::two"
    );
    common::autodebug_expecting(dir.path(), &["--workspace", "--exclude", "other"], 0);
}
