//! The instrumented build: `cargo test --no-run` with instrumentation switched on, into the
//! tool's own target directory so the user's build cache is untouched. Yields the test
//! binaries, or the compiler's errors.

use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context, Result};
use cargo_metadata::Message;
use cargo_metadata::diagnostic::DiagnosticLevel;

use crate::options::Options;
use crate::workspace::Workspace;

/// A test executable produced by the build.
#[derive(Debug, Clone)]
pub struct TestBinary {
    /// Package the target belongs to.
    pub package: String,
    /// Directory of the package (tests run there, as under `cargo test`).
    pub package_root: PathBuf,
    /// Target name as cargo names it (`mylib`, `integration`).
    pub target: String,
    /// Target kind: `lib`, `test`, `bin`, …
    pub kind: String,
    /// The executable.
    pub executable: PathBuf,
}

/// What the build produced.
pub enum BuildOutcome {
    /// Test binaries, ready to run.
    Built(Vec<TestBinary>),
    /// The code does not compile: the compiler's rendered errors (and cargo's own stderr).
    Failed { errors: Vec<String>, stderr: String },
}

/// Directory of the instrumented build.
pub fn target_dir(workspace: &Workspace, options: &Options) -> PathBuf {
    options
        .target_dir
        .clone()
        .unwrap_or_else(|| workspace.target_dir.join("autodebug"))
}

/// Builds the selected packages' tests, instrumented, and lists the test binaries.
pub fn build(
    workspace: &Workspace,
    options: &Options,
    log_dir: &Path,
    console: &crate::console::Console,
) -> Result<BuildOutcome> {
    let mut command = Command::new(cargo());
    command
        .args(["test", "--no-run", "--message-format=json"])
        .arg("--target-dir")
        .arg(target_dir(workspace, options))
        .args(runtime_profile_args())
        .env(autodebug_runtime::protocol::ENV_INSTRUMENT, "1")
        .current_dir(&workspace.root)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(manifest) = &options.manifest_path {
        command.arg("--manifest-path").arg(manifest);
    }
    for package in &workspace.packages {
        command.arg("-p").arg(&package.name);
    }
    if options.lib {
        command.arg("--lib");
    }
    for test in &options.test_targets {
        command.arg("--test").arg(test);
    }
    let mut child = command.spawn().context("could not run cargo")?;
    let stderr_pipe = child.stderr.take().expect("stderr is piped");
    let stderr_reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = BufReader::new(stderr_pipe).read_to_string(&mut text);
        text
    });
    let mut binaries = Vec::new();
    let mut errors = Vec::new();
    let stdout = child.stdout.take().expect("stdout is piped");
    let units = target_dir(workspace, options).join("autodebug-build-units");
    let progress = console.counter("Building", "build", "crates", units);
    for message in Message::parse_stream(BufReader::new(stdout)) {
        let message = message.context("unreadable output from cargo")?;
        if let Message::CompilerArtifact(artifact) = &message {
            progress.tick(&artifact.target.name);
        }
        match message {
            Message::CompilerArtifact(artifact) if artifact.profile.test => {
                let Some(executable) = artifact.executable else {
                    continue;
                };
                let package = workspace.package_by_id(&artifact.package_id);
                binaries.push(TestBinary {
                    package: package
                        .map_or_else(|| artifact.target.name.clone(), |p| p.name.to_string()),
                    package_root: artifact
                        .manifest_path
                        .parent()
                        .map(|p| p.as_std_path().to_path_buf())
                        .unwrap_or_default(),
                    target: artifact.target.name.clone(),
                    kind: artifact
                        .target
                        .kind
                        .first()
                        .map(|k| k.to_string())
                        .unwrap_or_default(),
                    executable: executable.into_std_path_buf(),
                });
            }
            Message::CompilerMessage(message)
                if matches!(
                    message.message.level,
                    DiagnosticLevel::Error | DiagnosticLevel::Ice
                ) =>
            {
                if let Some(rendered) = message.message.rendered {
                    errors.push(rendered);
                }
            }
            _ => {}
        }
    }
    progress.finish();
    let status = child.wait().context("could not wait for cargo")?;
    let stderr = stderr_reader.join().unwrap_or_default();
    std::fs::write(log_dir.join("build.log"), &stderr).ok();
    if !status.success() {
        return Ok(BuildOutcome::Failed { errors, stderr });
    }
    Ok(BuildOutcome::Built(binaries))
}

/// Packages of the recording path that are compiled optimized even in the (debug) test
/// build: every rerun of a switching search pays for the hooks and the trace writer, and
/// unoptimized they cost more than the code under test. Only our runtime and the
/// serialization code it runs: the user's crates keep their profile, so their behaviour
/// (overflow checks, `debug_assert!`s, `debug_requires`) is exactly that of `cargo test`.
const OPTIMIZED_PACKAGES: [&str; 5] = [
    "autodebug-runtime",
    "serde_json",
    "serde_core",
    "itoa",
    "ryu",
];

/// `--config` arguments for `cargo test` that compile [`OPTIMIZED_PACKAGES`] with
/// `opt-level = 3` (and the runtime without debug assertions) in the test profile.
pub fn runtime_profile_args() -> Vec<String> {
    let mut args = Vec::new();
    for package in OPTIMIZED_PACKAGES {
        args.push("--config".to_string());
        args.push(format!("profile.dev.package.{package}.opt-level=3"));
    }
    args.push("--config".to_string());
    args.push("profile.dev.package.autodebug-runtime.debug-assertions=false".to_string());
    args
}

/// The cargo that invoked us (`$CARGO`), or `cargo` from the PATH.
pub fn cargo() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string())
}
