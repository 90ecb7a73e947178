//! Installed like any cargo tool: `cargo install --path cargo-autodebug` from a copy of the
//! checkout, the copy removed, then the installed binary diagnoses and fixes a crate without
//! annotations and an annotated one (its runtime dependency by version, as `init` writes
//! it): the runtime the tool injects travels inside it.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Copies the checkout's sources (no build outputs, no VCS metadata, no tool output) to
/// `to`.
fn copy_checkout(to: &Path) {
    let root = common::repo_root();
    for entry in walkdir::WalkDir::new(&root).into_iter().filter_entry(|e| {
        let name = e.file_name().to_string_lossy();
        !(e.depth() > 0
            && e.file_type().is_dir()
            && (name == "target" || name == ".git" || name.starts_with("autodebug.out")))
    }) {
        let entry = entry.unwrap();
        let relative = entry.path().strip_prefix(&root).unwrap();
        let target = to.join(relative);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
        } else if entry.file_type().is_file() {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

fn run(binary: &Path, dir: &Path, args: &[&str], target: Option<&Path>) -> Output {
    let mut command = Command::new(binary);
    command.arg("autodebug").args(args);
    if let Some(target) = target {
        command.arg("--target-dir").arg(target);
    }
    command
        .current_dir(dir)
        .env_remove("AUTODEBUG_RUNTIME_PATH")
        .env_remove("AUTODEBUG_INSTRUMENT")
        .env_remove("GITHUB_ACTIONS")
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

#[test]
fn an_installed_tool_works_with_no_checkout_present() {
    let scratch = tempfile::Builder::new()
        .prefix("autodebug-install-")
        .tempdir()
        .unwrap();
    let checkout = scratch.path().join("checkout");
    copy_checkout(&checkout);
    let install_root = scratch.path().join("root");
    // A target dir kept between runs of the tests (a first build takes about half a
    // minute); the copy's crates are rebuilt each time, their sources being new.
    let install_target: PathBuf = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("install-target");
    let installed = Command::new(env!("CARGO"))
        .args(["install", "--debug", "--locked", "--quiet", "--path"])
        .arg(checkout.join("cargo-autodebug"))
        .arg("--root")
        .arg(&install_root)
        .arg("--target-dir")
        .arg(&install_target)
        .output()
        .unwrap();
    assert!(
        installed.status.success(),
        "{}",
        common::describe(&installed)
    );
    std::fs::remove_dir_all(&checkout).unwrap();
    let binary = install_root.join("bin/cargo-autodebug");
    let target = scratch.path().join("target");

    // Zero-annotation mode.
    let plain = common::fixture("plain-text");
    let output = run(&binary, plain.path(), &[], Some(&target));
    assert_eq!(
        output.status.code(),
        Some(5),
        "{}",
        common::describe(&output)
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    let runtime = stderr
        .split("runtime from ")
        .nth(1)
        .and_then(|rest| rest.split(')').next())
        .unwrap_or_else(|| panic!("no runtime named:\n{stderr}"));
    assert!(
        !Path::new(runtime).starts_with(common::repo_root())
            && !Path::new(runtime).starts_with(scratch.path())
            && Path::new(runtime).join("src/rt.rs").is_file(),
        "{runtime}"
    );
    let report = common::report(plain.path());
    assert_eq!(
        common::validated_fix(&report)["replacement"],
        "value > high"
    );

    // An annotated crate whose manifest names the runtime by version: `init` resolves it to
    // a copy in the crate's repository (written from the runtime the tool carries), and the
    // run uses the tool's own runtime.
    let annotated = common::fixture("repair-format");
    let manifest = annotated.path().join("Cargo.toml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let by_version: Vec<String> = text
        .lines()
        .map(|l| {
            if l.starts_with("autodebug-runtime") {
                format!("autodebug-runtime = \"{}\"", env!("CARGO_PKG_VERSION"))
            } else {
                l.to_string()
            }
        })
        .collect();
    std::fs::write(&manifest, by_version.join("\n") + "\n").unwrap();
    common::git_commit_all(annotated.path());
    let output = run(&binary, annotated.path(), &["init"], None);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        common::describe(&output)
    );
    let config = std::fs::read_to_string(annotated.path().join(".cargo/config.toml")).unwrap();
    assert!(
        config.contains("{ path = \"third_party/autodebug/autodebug-runtime\" }")
            && !config.contains(runtime),
        "{config}"
    );
    assert!(
        annotated
            .path()
            .join("third_party/autodebug/autodebug-runtime/src/rt.rs")
            .is_file()
    );
    common::git_commit_all(annotated.path());
    let output = run(&binary, annotated.path(), &[], Some(&target));
    assert_eq!(
        output.status.code(),
        Some(5),
        "{}",
        common::describe(&output)
    );
    let report = common::report(annotated.path());
    assert_eq!(
        common::validated_fix(&report)["replacement"],
        "y",
        "{report:#}"
    );
}
