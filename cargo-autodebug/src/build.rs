//! The instrumented build: `cargo test --no-run` with instrumentation switched on, into the
//! tool's own target directory so the user's build cache is untouched. Yields the test
//! binaries, or the compiler's errors.

use std::collections::BTreeSet;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context, Result};
use cargo_metadata::Message;
use cargo_metadata::diagnostic::DiagnosticLevel;

use crate::options::Options;
use crate::unit_cache::{UnitCache, unit_hash};
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
    /// Test binaries, ready to run, and what the compiler warned of.
    Built(Built),
    /// The code does not compile: the compiler's rendered errors (and cargo's own stderr).
    Failed { errors: Vec<String>, stderr: String },
}

/// A build that succeeded.
pub struct Built {
    pub binaries: Vec<TestBinary>,
    /// The compiler's warnings on the workspace's own code (evidence: a value that must be
    /// used and was dropped, a variable never read).
    pub warnings: Vec<CompilerWarning>,
}

/// A warning of the compiler's on the workspace's own code: its lint, and the code it
/// points at (the primary span).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompilerWarning {
    /// The lint's name (`unused_must_use`, `unused_variables`).
    pub lint: String,
    /// The file as the compiler named it (relative to the workspace root, as `file!()`).
    pub file: String,
    /// 1-based lines and columns (in characters); the end column is just past the span.
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
    pub end_column: u32,
}

impl CompilerWarning {
    /// The warning of `diagnostic`, when it is a lint's on code of the workspace (a relative
    /// path) written there, not expanded from a macro.
    fn of(diagnostic: &cargo_metadata::diagnostic::Diagnostic) -> Option<CompilerWarning> {
        if diagnostic.level != DiagnosticLevel::Warning {
            return None;
        }
        let lint = diagnostic.code.as_ref()?.code.clone();
        let span = diagnostic.spans.iter().find(|s| s.is_primary)?;
        if span.expansion.is_some() || Path::new(&span.file_name).is_absolute() {
            return None;
        }
        Some(CompilerWarning {
            lint,
            file: span.file_name.clone(),
            line: span.line_start as u32,
            column: span.column_start as u32,
            end_line: span.line_end as u32,
            end_column: span.column_end as u32,
        })
    }
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
        .stdin(Stdio::null());
    if let Some(manifest) = &options.manifest_path {
        command.arg("--manifest-path").arg(manifest);
    }
    // By id: a dependency may bring another package of the same name (an older release of
    // the crate under test, used by one of its dev-dependencies) into the graph.
    for package in &workspace.packages {
        command.arg("-p").arg(&package.id);
    }
    if options.lib {
        command.arg("--lib");
    }
    for test in &options.test_targets {
        command.arg("--test").arg(test);
    }
    command.args(options.cargo.build_args());
    console.command(&command);
    let target = target_dir(workspace, options);
    let cache = UnitCache::locate();
    if let Some(cache) = &cache {
        seed(cache, &target, console);
    }
    let units = target.join("autodebug-build-units");
    let progress = console.counter("Building", "build", "crates", units);
    let cargo = run_seeded_build(&mut command, &target, |name| progress.tick(name))?;
    progress.finish();
    std::fs::write(log_dir.join("build.log"), &cargo.stderr).ok();
    if let (Some(cache), Some(profile_dir)) = (&cache, &cargo.profile_dir)
        && cargo.success
    {
        match cache.keep(profile_dir, &cargo.hashes, &cargo.shared) {
            Ok(0) => {}
            Ok(kept) => console.detail(&format!(
                "kept {kept} compiled unit{} of the runtime and registry dependencies for other workspaces",
                if kept == 1 { "" } else { "s" }
            )),
            Err(error) => console.detail(&format!(
                "could not keep the runtime's compiled units: {error:#}"
            )),
        }
    }
    if !cargo.success {
        return Ok(BuildOutcome::Failed {
            errors: cargo
                .errors
                .into_iter()
                .filter_map(|e| e.rendered)
                .collect(),
            stderr: cargo.stderr,
        });
    }
    let binaries = cargo
        .binaries
        .into_iter()
        .map(|(package_id, mut binary)| {
            if let Some(package) = workspace.package_by_id(&package_id) {
                binary.package = package.name.to_string();
            }
            binary
        })
        .collect();
    Ok(BuildOutcome::Built(Built {
        binaries,
        warnings: cargo.warnings,
    }))
}

/// Copies the runtime's compiled units from the per-user cache into `target_dir` before a
/// build there (see [`UnitCache`]); a cache that cannot be read only costs the build time.
pub fn seed(cache: &UnitCache, target_dir: &Path, console: &crate::console::Console) {
    match cache.seed(&target_dir.join("debug")) {
        Ok(0) => {}
        Ok(copied) => console.detail(&format!(
            "{copied} compiled unit{} of the runtime taken from {}",
            if copied == 1 { "" } else { "s" },
            crate::output_dir::display_path(&cache.dir)
        )),
        Err(error) => console.detail(&format!(
            "could not take the runtime's compiled units from the cache: {error:#}"
        )),
    }
}

/// What a `cargo test --no-run --message-format=json` said.
pub struct CargoBuild {
    /// Cargo exited successfully.
    pub success: bool,
    /// The test executables, each with its package's id (the binary's `package` is the
    /// target's name until the caller knows better).
    pub binaries: Vec<(cargo_metadata::PackageId, TestBinary)>,
    /// The directories of the packages cargo built, and of those it recompiled (not fresh).
    pub packages: BTreeSet<PathBuf>,
    pub rebuilt: BTreeSet<PathBuf>,
    /// The compiler's errors.
    pub errors: Vec<CompilerError>,
    /// Its warnings on the workspace's code, each once.
    pub warnings: Vec<CompilerWarning>,
    /// Cargo's own stderr.
    pub stderr: String,
    /// The hashes of the units the build made or found fresh (see [`unit_hash`]).
    pub hashes: BTreeSet<String>,
    /// Those of packages from a registry or git, whose sources never change: units any
    /// workspace can share (see [`UnitCache`]).
    pub shared: BTreeSet<String>,
    /// The profile directory the artifacts went to (`target/debug`).
    pub profile_dir: Option<PathBuf>,
}

/// One error of the compiler.
pub struct CompilerError {
    /// As the compiler rendered it for a terminal (when it did).
    pub rendered: Option<String>,
    /// Its one-line message.
    pub message: String,
}

/// [`run_cargo_build`] into `target_dir`, a directory seeded from the unit cache: when the
/// build fails because a unit taken from the cache does not fit the others (see
/// [`crate::unit_cache::mismatched_unit`]), the cache and the directory's units are removed
/// and the build is run once more, from sources.
pub fn run_seeded_build(
    command: &mut Command,
    target_dir: &Path,
    mut on_artifact: impl FnMut(&str),
) -> Result<CargoBuild> {
    let cargo = run_cargo_build(command, &mut on_artifact)?;
    let mismatched = !cargo.success
        && (cargo.errors.iter()).any(|e| {
            e.rendered
                .as_deref()
                .is_some_and(crate::unit_cache::mismatched_unit)
        });
    let Some(cache) = UnitCache::locate().filter(|_| mismatched) else {
        return Ok(cargo);
    };
    cache.clear()?;
    let profile_dir = target_dir.join("debug");
    if profile_dir.exists() {
        std::fs::remove_dir_all(&profile_dir)
            .with_context(|| format!("could not remove {}", profile_dir.display()))?;
    }
    run_cargo_build(command, on_artifact)
}

/// Runs `command` (a cargo build asking for JSON messages on stdout) and reads what it
/// says; `on_artifact` is told each artifact's target name as it is built.
pub fn run_cargo_build(
    command: &mut Command,
    mut on_artifact: impl FnMut(&str),
) -> Result<CargoBuild> {
    command.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = command.spawn().context("could not run cargo")?;
    let stderr_pipe = child.stderr.take().expect("stderr is piped");
    let stderr_reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = BufReader::new(stderr_pipe).read_to_string(&mut text);
        text
    });
    let stdout = child.stdout.take().expect("stdout is piped");
    let mut build = CargoBuild {
        success: false,
        binaries: Vec::new(),
        packages: BTreeSet::new(),
        rebuilt: BTreeSet::new(),
        errors: Vec::new(),
        warnings: Vec::new(),
        stderr: String::new(),
        hashes: BTreeSet::new(),
        shared: BTreeSet::new(),
        profile_dir: None,
    };
    for message in Message::parse_stream(BufReader::new(stdout)) {
        match message.context("unreadable output from cargo")? {
            Message::CompilerArtifact(artifact) => {
                on_artifact(&artifact.target.name);
                let immutable = from_registry_or_git(&artifact.package_id);
                for file in &artifact.filenames {
                    build.hashes.extend(unit_hash(file.as_std_path()));
                    if immutable {
                        build.shared.extend(unit_hash(file.as_std_path()));
                    }
                    if build.profile_dir.is_none()
                        && let Some(deps) = file.parent().filter(|d| d.ends_with("deps"))
                    {
                        build.profile_dir = deps.parent().map(|p| p.as_std_path().into());
                    }
                }
                let dir = artifact
                    .manifest_path
                    .parent()
                    .map(|p| p.as_std_path().to_path_buf())
                    .unwrap_or_default();
                if !artifact.fresh {
                    build.rebuilt.insert(dir.clone());
                }
                build.packages.insert(dir.clone());
                if artifact.profile.test
                    && let Some(executable) = artifact.executable
                {
                    let binary = TestBinary {
                        package: artifact.target.name.clone(),
                        package_root: dir,
                        target: artifact.target.name.clone(),
                        kind: artifact
                            .target
                            .kind
                            .first()
                            .map(|k| k.to_string())
                            .unwrap_or_default(),
                        executable: executable.into_std_path_buf(),
                    };
                    build.binaries.push((artifact.package_id, binary));
                }
            }
            Message::BuildScriptExecuted(script) => {
                build.hashes.extend(unit_hash(script.out_dir.as_std_path()));
                if from_registry_or_git(&script.package_id) {
                    build.shared.extend(unit_hash(script.out_dir.as_std_path()));
                }
            }
            Message::CompilerMessage(message)
                if matches!(
                    message.message.level,
                    DiagnosticLevel::Error | DiagnosticLevel::Ice
                ) =>
            {
                build.errors.push(CompilerError {
                    rendered: message.message.rendered,
                    message: message.message.message,
                });
            }
            Message::CompilerMessage(message) => {
                // A crate built as a library and as its tests warns twice.
                if let Some(warning) = CompilerWarning::of(&message.message)
                    && !build.warnings.contains(&warning)
                {
                    build.warnings.push(warning);
                }
            }
            _ => {}
        }
    }
    build.success = child.wait().context("could not wait for cargo")?.success();
    build.stderr = stderr_reader.join().unwrap_or_default();
    Ok(build)
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

/// Whether a package comes from a registry or git (`registry+…`, `sparse+…`, `git+…`): its
/// sources never change, so its units can be shared between workspaces.
fn from_registry_or_git(id: &cargo_metadata::PackageId) -> bool {
    ["registry+", "sparse+", "git+"]
        .iter()
        .any(|p| id.repr.starts_with(p))
}
