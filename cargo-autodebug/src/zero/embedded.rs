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
    std::env::var_os("XDG_CACHE_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .map(|d| d.join("cargo-autodebug").join("runtime"))
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

#[cfg(test)]
mod tests {
    use super::*;

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
