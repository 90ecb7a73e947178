//! The runtime inside the tool: the sources of `autodebug-runtime` and of the crates it
//! depends on in this project, put in the binary by the build script (`build.rs`, which
//! makes their manifests standalone), and extracted on first use to a directory named by
//! the tool's version and a hash of those sources. An installed tool therefore needs no
//! checkout of the project: the runtime it injects is the one it was built with.
//!
//! The directory is `$XDG_CACHE_HOME/cargo-autodebug/runtime/VERSION-HASH` (else under
//! `~/.cache`, else the system's temporary directory). It is written once, under a
//! temporary name then renamed, so that runs at once never see half of it and its files
//! keep their times (cargo would otherwise rebuild the runtime).

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

mod files {
    include!(concat!(env!("OUT_DIR"), "/embedded_runtime.rs"));
}

/// The runtime's source directory, extracted when it is not yet.
pub fn runtime_dir() -> Result<PathBuf> {
    let root = extracted_root(&cache_base());
    if !root.join("autodebug-runtime/Cargo.toml").is_file() {
        extract(&root)?;
    }
    Ok(root.join("autodebug-runtime"))
}

/// Where extracted runtimes go.
fn cache_base() -> PathBuf {
    crate::unit_cache::user_cache_root()
        .map(|d| d.join("runtime"))
        .unwrap_or_else(|| std::env::temp_dir().join("cargo-autodebug-runtime"))
}

/// The directory this tool's runtime is extracted to under `base`.
fn extracted_root(base: &Path) -> PathBuf {
    base.join(format!("{}-{}", env!("CARGO_PKG_VERSION"), files::HASH))
}

/// Writes the files to a temporary directory beside `root` and renames it to `root`; when
/// another run renamed its own first, that one stays.
fn extract(root: &Path) -> Result<()> {
    let base = root
        .parent()
        .context("the runtime directory has no parent")?;
    std::fs::create_dir_all(base)
        .with_context(|| format!("could not create {}", base.display()))?;
    crate::clean::mark_cache_dir(base);
    let partial = tempfile::Builder::new()
        .prefix(".partial-")
        .tempdir_in(base)
        .with_context(|| format!("could not create a directory in {}", base.display()))?;
    for (name, bytes) in files::FILES {
        let path = partial.path().join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("could not create {}", parent.display()))?;
        }
        std::fs::write(&path, bytes)
            .with_context(|| format!("could not write {}", path.display()))?;
    }
    match std::fs::rename(partial.path(), root) {
        Ok(()) => {
            // Renamed away: nothing left for the temporary directory's drop to remove.
            let _ = partial.keep();
            Ok(())
        }
        Err(_) if root.join("autodebug-runtime/Cargo.toml").is_file() => Ok(()),
        Err(error) => {
            Err(error).with_context(|| format!("could not move the runtime to {}", root.display()))
        }
    }
}

/// The first line of the README a vendored copy carries: how `init` knows the directory
/// is its own to update.
pub const VENDORED: &str = "# The autodebug runtime, vendored by `cargo autodebug init`";

/// The README of a vendored copy: what the directory is, for a person reading the
/// repository (no path or hash of this machine or build).
fn vendored_readme() -> String {
    format!(
        "{VENDORED}\n\n\
         The crates `autodebug-runtime`, `autodebug-macros` and `autodebug-syntax` {version}\n\
         (MIT OR Apache-2.0: each crate's `LICENSE-MIT` and `LICENSE-APACHE`), which the\n\
         contracts of this repository (`#[requires]`, `#[ensures]`) build with, so that any\n\
         clone builds with nothing else installed. `.cargo/config.toml` resolves the\n\
         dependency `autodebug-runtime = \"{version}\"` to this copy (`[patch.crates-io]`).\n\n\
         Commit this directory as it is. `cargo autodebug init` updates it to the version\n\
         of the tool that runs it.\n",
        version = env!("CARGO_PKG_VERSION"),
    )
}

/// Writes the runtime's crates into `dir` (a directory of the user's repository, see
/// `init`) with a README saying what they are: the files that differ from this tool's are
/// written, and the files of the crates this tool no longer has are removed. Whether
/// anything changed (or, unless `write`, would change: nothing is touched then). A `dir`
/// that holds anything but such a copy is refused.
pub fn vendor(dir: &Path, write: bool) -> Result<bool> {
    let readme = dir.join("README.md");
    let present = dir.is_dir() && dir.read_dir()?.next().is_some();
    if present && !std::fs::read_to_string(&readme).is_ok_and(|text| text.starts_with(VENDORED)) {
        anyhow::bail!(
            "{} holds files `cargo autodebug init` did not write\nhint: choose another \
             directory with --vendor-dir",
            dir.display()
        );
    }
    let mut wanted: Vec<(PathBuf, std::borrow::Cow<[u8]>)> = files::FILES
        .iter()
        .map(|(name, bytes)| (dir.join(name), std::borrow::Cow::Borrowed(*bytes)))
        .collect();
    wanted.push((readme, vendored_readme().into_bytes().into()));
    let mut changed = false;
    for (path, bytes) in &wanted {
        if std::fs::read(path).is_ok_and(|written| written == bytes.as_ref()) {
            continue;
        }
        changed = true;
        if !write {
            continue;
        }
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("could not create {}", parent.display()))?;
        }
        std::fs::write(path, bytes)
            .with_context(|| format!("could not write {}", path.display()))?;
    }
    if present {
        for entry in walkdir::WalkDir::new(dir).contents_first(true) {
            let entry = entry?;
            let path = entry.path();
            if entry.file_type().is_file() && !wanted.iter().any(|(p, _)| p == path) {
                changed = true;
                if !write {
                    continue;
                }
                std::fs::remove_file(path)
                    .with_context(|| format!("could not remove {}", path.display()))?;
            } else if write
                && entry.file_type().is_dir()
                && path != dir
                && path.read_dir()?.next().is_none()
            {
                std::fs::remove_dir(path)
                    .with_context(|| format!("could not remove {}", path.display()))?;
            }
        }
    }
    Ok(changed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_vendored_copy_is_written_updated_and_never_written_over_a_strangers_directory() {
        let base = tempfile::tempdir().unwrap();
        let dir = base.path().join("third_party/autodebug");
        assert!(vendor(&dir, false).unwrap());
        assert!(!dir.exists(), "nothing is written unless asked");
        assert!(vendor(&dir, true).unwrap());
        for name in ["autodebug-runtime", "autodebug-macros", "autodebug-syntax"] {
            for file in ["Cargo.toml", "src/lib.rs", "LICENSE-MIT", "LICENSE-APACHE"] {
                assert!(dir.join(name).join(file).is_file(), "{name}/{file}");
            }
        }
        let readme = std::fs::read_to_string(dir.join("README.md")).unwrap();
        assert!(readme.starts_with(VENDORED), "{readme}");
        // Nothing of this machine or build in what is committed.
        for entry in walkdir::WalkDir::new(&dir) {
            let entry = entry.unwrap();
            if entry.file_type().is_file() {
                let text =
                    String::from_utf8_lossy(&std::fs::read(entry.path()).unwrap()).into_owned();
                let shown = entry.path().display();
                assert!(!text.contains(files::HASH), "{shown}");
                assert!(!text.contains(&*base.path().to_string_lossy()), "{shown}");
                assert!(
                    !text.contains("/root/") && !text.contains("/home/"),
                    "{shown}"
                );
            }
        }
        // Up to date: nothing to do. An older copy (a file changed, one this tool no
        // longer has) is brought to this tool's.
        assert!(!vendor(&dir, false).unwrap());
        assert!(!vendor(&dir, true).unwrap());
        let lib = dir.join("autodebug-runtime/src/lib.rs");
        std::fs::write(&lib, "// older\n").unwrap();
        std::fs::create_dir_all(dir.join("autodebug-old/src")).unwrap();
        std::fs::write(dir.join("autodebug-old/src/lib.rs"), "").unwrap();
        assert!(vendor(&dir, false).unwrap());
        assert_eq!(std::fs::read_to_string(&lib).unwrap(), "// older\n");
        assert!(vendor(&dir, true).unwrap());
        assert_ne!(std::fs::read_to_string(&lib).unwrap(), "// older\n");
        assert!(!dir.join("autodebug-old").exists());
        // A directory of someone else's is left alone.
        let theirs = base.path().join("vendor");
        std::fs::create_dir_all(&theirs).unwrap();
        std::fs::write(theirs.join("notes.txt"), "mine\n").unwrap();
        let error = vendor(&theirs, false).unwrap_err().to_string();
        assert!(error.contains("did not write"), "{error}");
        assert_eq!(theirs.read_dir().unwrap().count(), 1);
    }

    #[test]
    fn the_runtime_travels_whole_and_builds_on_its_own() {
        let base = tempfile::tempdir().unwrap();
        let root = extracted_root(base.path());
        extract(&root).unwrap();
        // A second extraction (another run at once) keeps the first's files.
        let manifest = root.join("autodebug-runtime/Cargo.toml");
        let written = std::fs::metadata(&manifest).unwrap().modified().unwrap();
        extract(&root).unwrap();
        assert_eq!(
            std::fs::metadata(&manifest).unwrap().modified().unwrap(),
            written
        );
        for name in ["autodebug-runtime", "autodebug-macros", "autodebug-syntax"] {
            let text = std::fs::read_to_string(root.join(name).join("Cargo.toml")).unwrap();
            assert!(!text.contains("workspace = true"), "{name}: {text}");
            assert!(!text.contains("dev-dependencies"), "{name}: {text}");
            assert!(root.join(name).join("src/lib.rs").is_file(), "{name}");
        }
        // Cargo reads the extracted runtime as a package of its own, its path
        // dependencies found beside it.
        let output = std::process::Command::new(env!("CARGO"))
            .args(["metadata", "--format-version=1", "--no-deps", "--offline"])
            .arg("--manifest-path")
            .arg(&manifest)
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(!base.path().read_dir().unwrap().any(|e| {
            e.unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with(".partial-")
        }));
    }
}
