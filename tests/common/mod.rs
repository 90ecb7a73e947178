//! The fixture helper of the end-to-end tests (`tests/it/`): copy a fixture crate or an
//! example to a temp dir (pointing its runtime dependency back at this repository), run the
//! real `cargo autodebug` on it, read the report.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

/// The repository root.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// `tests/fixtures/NAME`.
pub fn fixture_path(name: &str) -> PathBuf {
    repo_root().join("tests/fixtures").join(name)
}

/// `examples/NAME`.
pub fn example_path(name: &str) -> PathBuf {
    repo_root().join("examples").join(name)
}

/// A copy of the fixture crate `tests/fixtures/NAME` (see [`copy_crate`]).
pub fn fixture(name: &str) -> tempfile::TempDir {
    copy_crate(&fixture_path(name))
}

/// A copy of the example crate `examples/NAME` (see [`copy_crate`]).
pub fn example(name: &str) -> tempfile::TempDir {
    copy_crate(&example_path(name))
}

/// One target dir for every crate the tests build, so shared dependencies compile once.
/// (The tool builds each scratch copy in a target dir of its own place under it.)
pub fn shared_target_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("e2e-target")
}

/// Copies the crate at `src` into a new temp dir, skipping `target/` and `autodebug.out*`,
/// and rewrites its manifests' `autodebug-runtime` path dependency to this repository's runtime.
pub fn copy_crate(src: &Path) -> tempfile::TempDir {
    let dir = tempfile::Builder::new()
        .prefix("autodebug-e2e-")
        .tempdir()
        .unwrap();
    for entry in walkdir::WalkDir::new(src).into_iter().filter_entry(|e| {
        let name = e.file_name().to_string_lossy();
        !(e.depth() > 0 && (name == "target" || name.starts_with("autodebug.out")))
    }) {
        let entry = entry.unwrap();
        let relative = entry.path().strip_prefix(src).unwrap();
        let to = dir.path().join(relative);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&to).unwrap();
        } else {
            std::fs::copy(entry.path(), &to).unwrap();
        }
    }
    let runtime = repo_root().join("autodebug-runtime");
    for entry in walkdir::WalkDir::new(dir.path()) {
        let entry = entry.unwrap();
        if entry.file_name() == "Cargo.toml" {
            point_runtime_at(entry.path(), &runtime);
        }
    }
    dir
}

/// Rewrites the `autodebug-runtime` path dependency of a manifest to `runtime`, keeping the
/// rest of the line (features).
fn point_runtime_at(manifest: &Path, runtime: &Path) {
    let text = std::fs::read_to_string(manifest).unwrap();
    let rewritten: Vec<String> = text
        .lines()
        .map(|line| {
            let Some(start) = line.find("path = \"") else {
                return line.to_string();
            };
            if !line.trim_start().starts_with("autodebug-runtime") {
                return line.to_string();
            }
            let value = start + "path = ".len();
            let end = value + 1 + line[value + 1..].find('"').unwrap() + 1;
            format!(
                "{}{:?}{}",
                &line[..value],
                runtime.display().to_string(),
                &line[end..]
            )
        })
        .collect();
    std::fs::write(manifest, rewritten.join("\n") + "\n").unwrap();
}

/// Runs `cargo autodebug ARGS` in `dir` with the shared target dir.
pub fn autodebug(dir: &Path, args: &[&str]) -> Output {
    autodebug_in(dir, args, &shared_target_dir(), &[])
}

/// Runs `cargo autodebug ARGS` in `dir` with the target dir `target` and the environment
/// changed by `env` (a variable set, or removed when `None`).
pub fn autodebug_in(
    dir: &Path,
    args: &[&str],
    target: &Path,
    env: &[(&str, Option<&std::ffi::OsStr>)],
) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_cargo-autodebug"));
    for (key, value) in env {
        match value {
            Some(value) => command.env(key, value),
            None => command.env_remove(key),
        };
    }
    // The target dir first: what follows a `--` in `args` is the test binaries'.
    command
        .arg("autodebug")
        .arg("--target-dir")
        .arg(target)
        .args(args)
        .current_dir(dir)
        .env_remove("AUTODEBUG_INSTRUMENT")
        // Workflow annotations only under GitHub Actions: not in these tests' output.
        .env_remove("GITHUB_ACTIONS")
        .env("NO_COLOR", "1")
        .output()
        .expect("cargo-autodebug runs")
}

/// Runs `cargo autodebug ARGS` in `dir` and checks its exit code (showing its output if not).
pub fn autodebug_expecting(dir: &Path, args: &[&str], code: i32) -> Output {
    exited(autodebug(dir, args), code)
}

/// `output`, once checked to be that of a run that exited with `code` (showing it if not).
pub fn exited(output: Output, code: i32) -> Output {
    assert_eq!(output.status.code(), Some(code), "{}", describe(&output));
    output
}

/// The report the last run wrote in `dir`.
pub fn report(dir: &Path) -> Value {
    let path = dir.join("autodebug.out/report.json");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("no report at {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

/// The best validated fix of a report (panics, showing the report, when there is none).
pub fn validated_fix(report: &Value) -> &Value {
    report["fixes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["validated"] == true)
        .unwrap_or_else(|| panic!("no validated fix: {report:#}"))
}

/// The run's output, for failure messages.
pub fn describe(output: &Output) -> String {
    format!(
        "status {:?}\n--- stdout ---\n{}\n--- stderr ---\n{}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// Puts `dir` under git with everything in it committed (what `--apply` wants to see).
pub fn git_commit_all(dir: &Path) {
    git(dir, &["init", "-q"]);
    git(dir, &["add", "."]);
    git(dir, &["commit", "-qm", "fixture"]);
}

/// Runs `git ARGS` in `dir` as the tests' committer, and checks it succeeded.
pub fn git(dir: &Path, args: &[&str]) {
    let output = Command::new("git")
        .args(["-c", "user.name=autodebug-tests"])
        .args(["-c", "user.email=tests@autodebug.invalid"])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git runs");
    assert!(
        output.status.success(),
        "git {args:?}: {}",
        describe(&output)
    );
}

/// Runs the plain `cargo test` (no instrumentation) in `dir`, one at a time, into a target
/// dir of these runs alone. Cargo names a crate's artifacts by its path relative to its
/// workspace root, so two copies of one fixture built into one target dir take each
/// other's test binaries: the tool's patched rebuilds (its `repair` place) must not share
/// it, nor may two of these runs overlap.
pub fn cargo_test(dir: &Path) -> Output {
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    Command::new(env!("CARGO"))
        .arg("test")
        .arg("--target-dir")
        .arg(shared_target_dir().join("plain"))
        .current_dir(dir)
        .env_remove("AUTODEBUG_INSTRUMENT")
        .output()
        .expect("cargo runs")
}

/// A copy of the `repair-format` fixture with CRLF line endings, committed, and its
/// `src/lib.rs` text.
pub fn crlf_fixture() -> (tempfile::TempDir, String) {
    let dir = copy_crate(&repo_root().join("tests/fixtures/repair-format"));
    let lib = dir.path().join("src/lib.rs");
    let text = std::fs::read_to_string(&lib).unwrap().replace('\n', "\r\n");
    std::fs::write(&lib, &text).unwrap();
    git_commit_all(dir.path());
    (dir, text)
}
