//! `cargo autodebug clean`: removes what the tool wrote for a workspace: its part of the
//! target directory (`target/autodebug`: the instrumented builds, zero-annotation mode's
//! copies, the rebuilds' scratch copies), the output directory and its `.old`, and with
//! `--cache` the per-user cache (the runtime's sources and the compiled units kept across
//! workspaces). A directory is removed only when it is the tool's: the output directory by
//! the `.gitignore` the tool writes into it, a `--target-dir` by the tool's `CACHEDIR.TAG`;
//! anything else named is left with a warning. The tool's directories carry a `CACHEDIR.TAG`
//! (<https://bford.info/cachedir/>), so that backup tools skip them.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::console::Console;
use crate::model::{ExitCode, Failure, OrExit};
use crate::options::{CleanOptions, Options};
use crate::workspace::Workspace;

/// The tag of a cache directory of the tool's.
const CACHEDIR_TAG: &str = "Signature: 8a477f597d28d172789f06886806bc55\n\
     # This directory holds cargo autodebug's builds and caches: `cargo autodebug clean`\n\
     # removes it. For cache directory tags see https://bford.info/cachedir/\n";

/// Marks `dir` (created if needed) as a cache directory of the tool's; a failure to is no
/// error of the run's.
pub fn mark_cache_dir(dir: &Path) {
    let tag = dir.join("CACHEDIR.TAG");
    if !tag.exists() && std::fs::create_dir_all(dir).is_ok() {
        let _ = std::fs::write(tag, CACHEDIR_TAG);
    }
}

/// Whether `dir` carries the tool's cache directory tag.
fn tagged(dir: &Path) -> bool {
    std::fs::read_to_string(dir.join("CACHEDIR.TAG")).is_ok_and(|text| text == CACHEDIR_TAG)
}

/// Files and bytes under `path` (symbolic links not followed).
pub fn size_of(path: &Path) -> (u64, u64) {
    walkdir::WalkDir::new(path)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|entry| !entry.file_type().is_dir())
        .filter_map(|entry| entry.metadata().ok())
        .fold((0, 0), |(files, bytes), meta| {
            (files + 1, bytes + meta.len())
        })
}

/// Runs `cargo autodebug clean`.
pub fn clean(clean: &CleanOptions, console: &Console) -> Result<ExitCode, Failure> {
    let mut options = Options::parse_args(["cargo-autodebug"]).expect("no arguments parse");
    options.manifest_path = clean.manifest_path.clone();
    options.target_dir = clean.target_dir.clone();
    options.output = clean.output.clone();
    let workspace = Workspace::discover(&options).or_exit(ExitCode::Usage)?;
    let mut dirs = Vec::new();
    let target = crate::build::target_dir(&workspace, &options);
    // The default place is the tool's by its name; a directory given is, if it says so.
    if options.target_dir.is_none() || tagged(&target) {
        dirs.push(target);
    } else if target.exists() {
        console.warn(&format!(
            "{} is left: it is not the tool's (no CACHEDIR.TAG of cargo autodebug's in it)",
            target.display()
        ));
    }
    let output =
        crate::output_dir::OutputDir::path_for(&workspace, &options).or_exit(ExitCode::Usage)?;
    for dir in crate::output_dir::own_dirs_of(&output) {
        if crate::output_dir::ours(&dir) {
            dirs.push(dir);
        } else if dir.exists() {
            console.warn(&format!(
                "{} is left: it is not an output directory of the tool's",
                dir.display()
            ));
        }
    }
    if clean.cache {
        dirs.extend(cache_root());
    }
    let (files, bytes) = remove(&dirs, clean.dry_run, console).or_exit(ExitCode::Software)?;
    let total = format!(
        "{files} file{}, {:.1}MiB total",
        if files == 1 { "" } else { "s" },
        bytes as f64 / f64::from(1 << 20)
    );
    if clean.dry_run {
        console.status("Summary", &total);
        console.warn("no files deleted due to --dry-run");
    } else {
        console.status("Removed", &total);
    }
    Ok(ExitCode::Clean)
}

/// Removes each of `dirs` that exists (counts only, with `dry_run`): the files and bytes.
fn remove(dirs: &[PathBuf], dry_run: bool, console: &Console) -> Result<(u64, u64)> {
    let (mut files, mut bytes) = (0, 0);
    for dir in dirs.iter().filter(|d| d.exists()) {
        let (f, b) = size_of(dir);
        files += f;
        bytes += b;
        console.detail(&format!("Removing {}", dir.display()));
        if !dry_run {
            std::fs::remove_dir_all(dir)
                .with_context(|| format!("could not remove {}", dir.display()))?;
        }
    }
    Ok((files, bytes))
}

/// The per-user cache's root (`cargo-autodebug` under `$XDG_CACHE_HOME` or `~/.cache`),
/// and `$AUTODEBUG_CACHE_DIR` when that names a cache of the tool's elsewhere.
fn cache_root() -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = crate::unit_cache::user_cache_root().into_iter().collect();
    if let Some(cache) = crate::unit_cache::UnitCache::locate()
        && !roots.iter().any(|root| cache.dir.starts_with(root))
        && tagged(&cache.dir)
    {
        roots.push(cache.dir);
    }
    roots
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clean_removes_the_tool_s_directories_and_leaves_the_user_s() {
        let root = tempfile::tempdir().unwrap();
        let write = |path: &str, text: &str| {
            let path = root.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        write(
            "Cargo.toml",
            "[package]\nname = \"c\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
        );
        write("src/lib.rs", "pub fn f() {}\n");
        write("target/debug/plain", "cargo's own build");
        write("target/autodebug/zero/slot-0/x", "a copy");
        mark_cache_dir(&root.path().join("target/autodebug"));
        // A run's output directory and the previous one, both the tool's.
        for dir in ["autodebug.out", "autodebug.out.old"] {
            crate::output_dir::OutputDir::create(root.path().join(dir)).unwrap();
            write(&format!("{dir}/report.json"), "{}");
        }
        // A directory of the user's named as a target dir and as an output dir.
        write("mine/keep", "the user's");
        let manifest = root.path().join("Cargo.toml");
        let options = |target: Option<&str>, output: Option<&str>, dry_run: bool| CleanOptions {
            manifest_path: Some(manifest.clone()),
            target_dir: target.map(|t| root.path().join(t)),
            output: output.map(|o| root.path().join(o)),
            cache: false,
            dry_run,
            color: None,
        };
        let quiet = Options::parse_args(["cargo-autodebug", "-q"]).unwrap();
        let console = Console::new(&quiet);
        assert!(clean(&options(Some("mine"), Some("mine"), false), &console).is_ok());
        assert!(root.path().join("mine/keep").exists());
        assert!(clean(&options(None, None, true), &console).is_ok());
        assert!(root.path().join("autodebug.out/report.json").exists());
        assert!(clean(&options(None, None, false), &console).is_ok());
        for gone in ["target/autodebug", "autodebug.out", "autodebug.out.old"] {
            assert!(!root.path().join(gone).exists(), "{gone}");
        }
        assert!(root.path().join("target/debug/plain").exists());
        assert!(root.path().join("src/lib.rs").exists());
    }
}
