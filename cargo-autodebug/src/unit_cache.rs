//! One build of the runtime, and of each registry dependency, for every workspace of the
//! user. The instrumented build of a crate the tool has not seen would compile the runtime
//! and everything it pulls in (the macros, `syn`, `serde`: about 20 s on two cores, more
//! than the diagnosis after it), and the crate's own dependencies, into that crate's own
//! target directory. Instead, the compiled units of that closure, and those of packages
//! from a registry or git (whose sources never change), are kept in a per-user cache after
//! a build, and linked (large files) or copied into a target directory before its build.
//!
//! Cargo decides itself whether a copied unit is the one it needs: a unit lives under a name
//! holding the hash of everything it was built from (package and version, features,
//! profile, flags, toolchain), so a unit built with other flags or another compiler sits
//! beside the needed one unused, and the build compiles what it lacks. Copies keep their
//! modification times, which cargo compares with the sources and with each other.
//!
//! The cache is `$AUTODEBUG_CACHE_DIR` (empty: no cache), else
//! `$XDG_CACHE_HOME/cargo-autodebug/units`, else `~/.cache/cargo-autodebug/units`.

use std::collections::BTreeSet;
use std::fs::{File, FileTimes};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

/// The packages the runtime brings into an instrumented build (its normal and build
/// dependencies, transitively; a test checks the list against the workspace's graph).
pub const RUNTIME_CLOSURE: [&str; 10] = [
    "autodebug-runtime",
    "autodebug-macros",
    "autodebug-syntax",
    "proc-macro2",
    "quote",
    "serde",
    "serde_core",
    "serde_derive",
    "syn",
    "unicode-ident",
];

/// Above this size the cache is emptied (toolchains and flags come and go; what is still
/// used is kept again by the next build).
const MAX_BYTES: u64 = 1 << 30;

/// Whether a compiler error says a dependency's compiled unit does not fit the crates built
/// against it (`can't find crate`, `found possibly newer version`, `found crate compiled by
/// an incompatible version`): what a unit taken from the cache looks like when another build
/// of the same unit name replaced one of its dependencies there.
pub fn mismatched_unit(error: &str) -> bool {
    ["error[E0460]", "error[E0463]", "error[E0514]"]
        .iter()
        .any(|code| error.contains(code))
}

/// Sub-directories of a profile directory that hold units.
const KINDS: [&str; 3] = [".fingerprint", "build", "deps"];

/// The tool's per-user cache directory: `cargo-autodebug` under `$XDG_CACHE_HOME`, else
/// under `~/.cache` (`None` when no home is known).
pub fn user_cache_root() -> Option<PathBuf> {
    std::env::var_os("XDG_CACHE_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .map(|d| d.join("cargo-autodebug"))
}

/// The per-user cache of the runtime's compiled units.
#[derive(Debug, Clone)]
pub struct UnitCache {
    pub dir: PathBuf,
}

impl UnitCache {
    /// The user's cache, unless switched off (`AUTODEBUG_CACHE_DIR=`) or no home is known.
    pub fn locate() -> Option<UnitCache> {
        let dir = match std::env::var_os("AUTODEBUG_CACHE_DIR") {
            Some(dir) if dir.is_empty() => return None,
            Some(dir) => PathBuf::from(dir),
            None => user_cache_root()?.join("units"),
        };
        Some(UnitCache { dir })
    }

    /// A cache in `dir`.
    #[cfg(test)]
    pub fn at(dir: PathBuf) -> UnitCache {
        UnitCache { dir }
    }

    /// Copies the cached units that `profile_dir` (a target directory's `debug`) lacks into
    /// it; how many.
    pub fn seed(&self, profile_dir: &Path) -> Result<usize> {
        if !self.dir.join("deps").is_dir() {
            return Ok(0);
        }
        let _lock = self.lock(false)?;
        let mut copied = 0;
        for kind in KINDS {
            let to = profile_dir.join(kind);
            for entry in entries(&self.dir.join(kind))? {
                let target = to.join(entry.file_name().unwrap_or_default());
                if !target.exists() {
                    std::fs::create_dir_all(&to)
                        .with_context(|| format!("could not create {}", to.display()))?;
                    link_or_copy(&entry, &target)?;
                    copied += 1;
                }
            }
        }
        Ok(copied)
    }

    /// Keeps the units of the runtime's closure that the build just made in `profile_dir`
    /// (`hashes`: the unit hashes of the build's artifacts, see [`unit_hash`]); how many
    /// were new to the cache.
    pub fn keep(
        &self,
        profile_dir: &Path,
        hashes: &BTreeSet<String>,
        shared: &BTreeSet<String>,
    ) -> Result<usize> {
        std::fs::create_dir_all(&self.dir)
            .with_context(|| format!("could not create {}", self.dir.display()))?;
        crate::clean::mark_cache_dir(&self.dir);
        let _lock = self.lock(true)?;
        let mut kept = 0;
        for kind in KINDS {
            let to = self.dir.join(kind);
            for entry in entries(&profile_dir.join(kind))? {
                let name = entry.file_name().unwrap_or_default().to_string_lossy();
                let cached = to.join(&*name);
                // A unit cargo rebuilt (its sources changed since the cache kept it) is
                // kept anew; one the cache has as it is stays.
                let wanted = of_closure(&name, hashes)
                    || unit_of(&name).is_some_and(|hash| shared.contains(hash));
                if !wanted || (cached.exists() && newest(&cached) >= newest(&entry)) {
                    continue;
                }
                std::fs::create_dir_all(&to)
                    .with_context(|| format!("could not create {}", to.display()))?;
                // Copied under a temporary name and renamed: a build seeding from the cache
                // never sees half a unit.
                let partial = to.join(format!(".partial-{}-{name}", std::process::id()));
                link_or_copy(&entry, &partial)?;
                if cached.is_dir() {
                    let _ = std::fs::remove_dir_all(&cached);
                }
                std::fs::rename(&partial, &cached)
                    .with_context(|| format!("could not keep {name} in the cache"))?;
                kept += 1;
            }
        }
        if kept > 0 && size(&self.dir) > MAX_BYTES {
            for kind in KINDS {
                let _ = std::fs::remove_dir_all(self.dir.join(kind));
            }
        }
        Ok(kept)
    }

    /// Empties the cache (every kept unit), under its lock.
    pub fn clear(&self) -> Result<()> {
        let _lock = self.lock(true)?;
        for kind in KINDS {
            let dir = self.dir.join(kind);
            if dir.exists() {
                std::fs::remove_dir_all(&dir)
                    .with_context(|| format!("could not remove {}", dir.display()))?;
            }
        }
        Ok(())
    }

    /// The cache's lock, exclusive to write and shared to read.
    fn lock(&self, exclusive: bool) -> Result<File> {
        let path = self.dir.join("lock");
        let file = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .with_context(|| format!("could not open {}", path.display()))?;
        if exclusive {
            file.lock()
        } else {
            file.lock_shared()
        }
        .with_context(|| format!("could not lock {}", path.display()))?;
        Ok(file)
    }
}

/// The unit hash in an artifact's path: `libsyn-e8c3baddc839884f.rlib`,
/// `build/serde-8171b9e16a21d063/build-script-build`, `build/serde-b2ab…/out`.
pub fn unit_hash(path: &Path) -> Option<String> {
    path.ancestors().take(3).find_map(|p| {
        let name = p.file_name()?.to_str()?;
        let stem = name.split('.').next()?;
        let (_, hash) = stem.rsplit_once('-')?;
        (hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit())).then(|| hash.into())
    })
}

/// The unit hash in the name of an entry of a profile directory (`syn-e8c3…`,
/// `libsyn-e8c3….rlib`, `syn-e8c3….d`).
fn unit_of(name: &str) -> Option<&str> {
    let stem = name.split('.').next().unwrap_or(name);
    let (_, hash) = stem.rsplit_once('-')?;
    (hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit())).then_some(hash)
}

/// Whether an entry of a profile directory (`syn-e8c3…`, `libsyn-e8c3….rlib`,
/// `syn-e8c3….d`) is a unit of the runtime's closure with one of `hashes`.
fn of_closure(name: &str, hashes: &BTreeSet<String>) -> bool {
    let stem = name.split('.').next().unwrap_or(name);
    let Some((package, hash)) = stem.rsplit_once('-') else {
        return false;
    };
    if !hashes.contains(hash) {
        return false;
    }
    let package = package.strip_prefix("lib").unwrap_or(package);
    RUNTIME_CLOSURE
        .iter()
        .any(|p| p.replace('-', "_") == package.replace('-', "_"))
}

/// The entries of `dir` (none when it does not exist), the cache's own temporary ones left
/// out.
fn entries(dir: &Path) -> Result<Vec<PathBuf>> {
    let Ok(read) = std::fs::read_dir(dir) else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for entry in read {
        let entry = entry.with_context(|| format!("could not list {}", dir.display()))?;
        if !entry.file_name().to_string_lossy().starts_with(".partial-") {
            out.push(entry.path());
        }
    }
    Ok(out)
}

/// Below this size a unit's file is copied into a target dir, from this size on it is
/// hard-linked (see [`link_or_copy`]).
const LINK_FROM_BYTES: u64 = 64 * 1024;

/// Seeds `to` from the cached `from` (a file or a directory tree): large files (libraries,
/// metadata, build-script executables, which the compiler and the linker replace with a
/// new file rather than write over) are hard-linked, so that seeding a target dir costs no
/// space; small ones (cargo's bookkeeping, which it rewrites in place) are copied. Where a
/// link cannot be made (another file system), the file is copied. Times are kept. A file
/// already at `to` (another run seeding the same target dir at once) is left as it is:
/// never written over, as it may be a link to the cached file itself.
fn link_or_copy(from: &Path, to: &Path) -> Result<()> {
    if from.is_dir() {
        std::fs::create_dir_all(to)
            .with_context(|| format!("could not create {}", to.display()))?;
        for entry in entries(from)? {
            link_or_copy(&entry, &to.join(entry.file_name().unwrap_or_default()))?;
        }
        return Ok(());
    }
    let large =
        std::fs::symlink_metadata(from).is_ok_and(|m| m.is_file() && m.len() >= LINK_FROM_BYTES);
    if large {
        match std::fs::hard_link(from, to) {
            Ok(()) => return Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => return Ok(()),
            Err(_) => {}
        }
    }
    if to.exists() {
        return Ok(());
    }
    // Copied under a temporary name and renamed: a file at `to` is replaced, never
    // written into.
    let partial = to.with_file_name(format!(
        ".partial-{}-{}",
        std::process::id(),
        to.file_name().unwrap_or_default().to_string_lossy()
    ));
    copy_keeping_times(from, &partial)?;
    std::fs::rename(&partial, to)
        .with_context(|| format!("could not move {} to {}", partial.display(), to.display()))
}

/// Copies a file or a directory tree, each file keeping its modification time.
fn copy_keeping_times(from: &Path, to: &Path) -> Result<()> {
    if from.is_dir() {
        std::fs::create_dir_all(to)
            .with_context(|| format!("could not create {}", to.display()))?;
        for entry in entries(from)? {
            copy_keeping_times(&entry, &to.join(entry.file_name().unwrap_or_default()))?;
        }
        return Ok(());
    }
    std::fs::copy(from, to)
        .with_context(|| format!("could not copy {} to {}", from.display(), to.display()))?;
    let modified = std::fs::metadata(from)
        .and_then(|m| m.modified())
        .with_context(|| format!("could not read the time of {}", from.display()))?;
    File::options()
        .write(true)
        .open(to)
        .and_then(|f| f.set_times(FileTimes::new().set_modified(modified)))
        .with_context(|| format!("could not set the time of {}", to.display()))?;
    Ok(())
}

/// The latest modification time of a file, or of the files under a directory.
fn newest(path: &Path) -> Option<std::time::SystemTime> {
    walkdir::WalkDir::new(path)
        .into_iter()
        .filter_map(|e| e.ok())
        .filter_map(|e| e.metadata().ok())
        .filter(|m| m.is_file())
        .filter_map(|m| m.modified().ok())
        .max()
}

/// Bytes under `dir`.
fn size(dir: &Path) -> u64 {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(|e| e.ok())
        .filter_map(|e| e.metadata().ok())
        .filter(|m| m.is_file())
        .map(|m| m.len())
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_hashes_are_read_from_artifacts_and_build_script_dirs() {
        for (path, hash) in [
            (
                "t/debug/deps/libsyn-e8c3baddc839884f.rlib",
                Some("e8c3baddc839884f"),
            ),
            (
                "t/debug/deps/libserde_derive-84d51e04c8d43cb3.so",
                Some("84d51e04c8d43cb3"),
            ),
            (
                "t/debug/build/serde-8171b9e16a21d063/build-script-build",
                Some("8171b9e16a21d063"),
            ),
            (
                "t/debug/build/serde-b2abab732441ffc7/out",
                Some("b2abab732441ffc7"),
            ),
            (
                "t/debug/deps/ring-201e25386ab45280",
                Some("201e25386ab45280"),
            ),
            ("t/debug/libring.rlib", None),
        ] {
            assert_eq!(unit_hash(Path::new(path)).as_deref(), hash, "{path}");
        }
    }

    #[test]
    fn only_the_closures_units_of_this_build_are_kept() {
        let hashes: BTreeSet<String> = ["e8c3baddc839884f", "323a102306b93c8b", "201e25386ab45280"]
            .map(String::from)
            .into();
        assert!(of_closure("syn-e8c3baddc839884f", &hashes));
        assert!(of_closure("libsyn-e8c3baddc839884f.rlib", &hashes));
        assert!(of_closure("syn-e8c3baddc839884f.d", &hashes));
        assert!(of_closure("proc-macro2-323a102306b93c8b", &hashes));
        assert!(of_closure("libproc_macro2-323a102306b93c8b.rmeta", &hashes));
        // Another build's syn, and the user's crate.
        assert!(!of_closure("syn-0000000000000000", &hashes));
        assert!(!of_closure("ring-201e25386ab45280", &hashes));
        assert!(!of_closure("libring-201e25386ab45280.rlib", &hashes));
    }

    #[test]
    fn a_seeded_directory_gets_the_kept_units_with_their_times() {
        let dir = tempfile::tempdir().unwrap();
        let built = dir.path().join("a/debug");
        let old = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000);
        for (path, text) in [
            ("deps/libsyn-e8c3baddc839884f.rlib", "syn"),
            ("deps/libring-201e25386ab45280.rlib", "ring"),
            (".fingerprint/syn-e8c3baddc839884f/lib-syn", "hash"),
        ] {
            let file = built.join(path);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(&file, text).unwrap();
            File::options()
                .write(true)
                .open(&file)
                .unwrap()
                .set_times(FileTimes::new().set_modified(old))
                .unwrap();
        }
        let cache = UnitCache::at(dir.path().join("cache"));
        let hashes = ["e8c3baddc839884f", "201e25386ab45280"]
            .map(String::from)
            .into();
        assert_eq!(cache.keep(&built, &hashes, &BTreeSet::new()).unwrap(), 2);
        assert_eq!(
            cache.keep(&built, &hashes, &BTreeSet::new()).unwrap(),
            0,
            "kept once"
        );
        let fresh = dir.path().join("b/debug");
        assert_eq!(cache.seed(&fresh).unwrap(), 2);
        let rlib = fresh.join("deps/libsyn-e8c3baddc839884f.rlib");
        assert_eq!(std::fs::read_to_string(&rlib).unwrap(), "syn");
        assert_eq!(std::fs::metadata(&rlib).unwrap().modified().unwrap(), old);
        let fingerprint = fresh.join(".fingerprint/syn-e8c3baddc839884f/lib-syn");
        assert_eq!(
            std::fs::metadata(fingerprint).unwrap().modified().unwrap(),
            old
        );
        assert!(!fresh.join("deps/libring-201e25386ab45280.rlib").exists());
        assert_eq!(cache.seed(&fresh).unwrap(), 0, "nothing twice");
        // Rebuilt (its sources changed): kept anew, and a fresh directory gets the new one.
        std::fs::write(built.join("deps/libsyn-e8c3baddc839884f.rlib"), "syn 2").unwrap();
        assert_eq!(cache.keep(&built, &hashes, &BTreeSet::new()).unwrap(), 1);
        let later = dir.path().join("c/debug");
        cache.seed(&later).unwrap();
        let rlib = later.join("deps/libsyn-e8c3baddc839884f.rlib");
        assert_eq!(std::fs::read_to_string(rlib).unwrap(), "syn 2");
    }

    #[test]
    fn a_registry_dependency_s_units_are_kept_too() {
        let dir = tempfile::tempdir().unwrap();
        let built = dir.path().join("a/debug");
        for path in [
            "deps/libring-201e25386ab45280.rlib",
            "deps/libmine-0123456789abcdef.rlib",
        ] {
            let file = built.join(path);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(&file, path).unwrap();
        }
        let cache = UnitCache::at(dir.path().join("cache"));
        let shared = ["201e25386ab45280"].map(String::from).into();
        assert_eq!(cache.keep(&built, &BTreeSet::new(), &shared).unwrap(), 1);
        let fresh = dir.path().join("b/debug");
        cache.seed(&fresh).unwrap();
        assert!(fresh.join("deps/libring-201e25386ab45280.rlib").is_file());
        assert!(!fresh.join("deps/libmine-0123456789abcdef.rlib").exists());
        assert_eq!(
            unit_of("libring-201e25386ab45280.rlib"),
            Some("201e25386ab45280")
        );
        assert_eq!(unit_of("build-script-build"), None);
    }

    #[test]
    fn large_files_are_linked_and_a_second_seed_at_once_writes_over_nothing() {
        use std::os::unix::fs::MetadataExt;
        let dir = tempfile::tempdir().unwrap();
        let cached = dir.path().join("cache/build/syn-e8c3baddc839884f");
        std::fs::create_dir_all(&cached).unwrap();
        let large = vec![7u8; LINK_FROM_BYTES as usize];
        std::fs::write(cached.join("build-script-build"), &large).unwrap();
        std::fs::write(cached.join("output"), "cargo:rustc-cfg=x\n").unwrap();
        let to = dir.path().join("target/debug/build/syn-e8c3baddc839884f");
        link_or_copy(&cached, &to).unwrap();
        let ino = |p: &Path| std::fs::metadata(p).unwrap().ino();
        assert_eq!(
            ino(&to.join("build-script-build")),
            ino(&cached.join("build-script-build")),
            "linked"
        );
        assert_ne!(
            ino(&to.join("output")),
            ino(&cached.join("output")),
            "copied"
        );
        // Another run seeding the same target dir at once finds the files there: the cached
        // file keeps its bytes (a copy onto the link would have emptied it).
        link_or_copy(&cached, &to).unwrap();
        assert_eq!(
            std::fs::read(cached.join("build-script-build")).unwrap(),
            large
        );
        assert_eq!(
            std::fs::read_to_string(to.join("output")).unwrap(),
            "cargo:rustc-cfg=x\n"
        );
    }

    #[test]
    fn the_closure_is_the_runtimes_dependency_graph() {
        let metadata = cargo_metadata::MetadataCommand::new()
            .manifest_path(concat!(env!("CARGO_MANIFEST_DIR"), "/../Cargo.toml"))
            .exec()
            .unwrap();
        let resolve = metadata.resolve.as_ref().unwrap();
        let name = |id: &cargo_metadata::PackageId| metadata[id].name.to_string();
        let runtime = metadata
            .packages
            .iter()
            .find(|p| p.name.as_str() == "autodebug-runtime")
            .unwrap();
        let mut closure = BTreeSet::new();
        let mut todo = vec![runtime.id.clone()];
        while let Some(id) = todo.pop() {
            if !closure.insert(name(&id)) {
                continue;
            }
            let node = resolve.nodes.iter().find(|n| n.id == id).unwrap();
            for dep in &node.deps {
                let built = dep.dep_kinds.iter().any(|k| {
                    k.kind != cargo_metadata::DependencyKind::Development && k.target.is_none()
                });
                // The runtime's optional in-process harness is not built for the user.
                let optional = name(&id) == "autodebug-runtime"
                    && runtime
                        .dependencies
                        .iter()
                        .any(|d| d.optional && d.name.replace('-', "_") == dep.name);
                if built && !optional {
                    todo.push(dep.pkg.clone());
                }
            }
        }
        let listed: BTreeSet<String> = RUNTIME_CLOSURE.iter().map(|s| s.to_string()).collect();
        assert_eq!(closure, listed);
    }
}
