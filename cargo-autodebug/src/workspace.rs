//! The workspace as cargo sees it: root, target directory and the packages selected by
//! `--manifest-path` / `-p`.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use cargo_metadata::{Metadata, MetadataCommand, Package};

use crate::options::Options;

/// The workspace under debug.
#[derive(Debug)]
pub struct Workspace {
    /// Root directory of the workspace.
    pub root: PathBuf,
    /// The workspace's own target directory (the instrumented build goes beside it).
    pub target_dir: PathBuf,
    /// Packages selected for debugging.
    pub packages: Vec<SelectedPackage>,
    metadata: Metadata,
}

/// A package whose tests are run.
#[derive(Debug, Clone)]
pub struct SelectedPackage {
    /// The package's name.
    pub name: String,
    /// Its version.
    pub version: String,
    /// Its package id as cargo writes it (`path+file:///…#name@version`): names it even when
    /// a dependency brings another package of the same name into the graph.
    pub id: String,
    /// Its `Cargo.toml`.
    pub manifest_path: PathBuf,
    /// Root files of its library and binary targets (where its own code starts; test,
    /// bench, example and build-script targets are not among them).
    pub code_roots: Vec<PathBuf>,
    /// Root files of the targets `cargo test` runs the tests of by default: its library,
    /// binaries and integration tests.
    pub test_roots: Vec<PathBuf>,
    /// It depends on `autodebug-runtime` (or the macros) in some way: its author opted in.
    pub uses_runtime: bool,
    /// It depends on `autodebug-runtime` by version (as `cargo autodebug init` writes it),
    /// not by path: the tool patches in the runtime it carries.
    pub runtime_by_version: bool,
    /// It is a procedural-macro crate (its code runs inside the compiler).
    pub proc_macro: bool,
    /// Its edition is 2015 (where `::crate` paths do not name extern crates).
    pub edition_2015: bool,
}

/// A workspace member outside the selection, and what its tests run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dependent {
    /// `name@version`, as `cargo -p` takes it.
    pub spec: String,
    /// Its directory, relative to the workspace root.
    pub dir: PathBuf,
    /// The directories (relative to the workspace root) of the members whose code its
    /// tests run: its own, its normal dependencies by path, transitively, and its
    /// dev-dependencies.
    pub reaches: Vec<PathBuf>,
}

/// Names under which a package depends on the tool's own crates.
const RUNTIME_CRATES: [&str; 2] = ["autodebug-runtime", "autodebug-macros"];

impl SelectedPackage {
    fn of(package: &Package) -> SelectedPackage {
        use cargo_metadata::{Edition, TargetKind};
        let code_roots = package
            .targets
            .iter()
            .filter(|t| {
                t.kind.iter().any(|k| {
                    matches!(
                        k,
                        TargetKind::Lib
                            | TargetKind::RLib
                            | TargetKind::DyLib
                            | TargetKind::CDyLib
                            | TargetKind::StaticLib
                            | TargetKind::Bin
                    )
                })
            })
            .map(|t| t.src_path.clone().into_std_path_buf())
            .collect();
        let test_roots = package
            .targets
            .iter()
            .filter(|t| {
                t.test
                    && t.kind.iter().any(|k| {
                        matches!(
                            k,
                            TargetKind::Lib | TargetKind::RLib | TargetKind::Bin | TargetKind::Test
                        )
                    })
            })
            .map(|t| t.src_path.clone().into_std_path_buf())
            .collect();
        SelectedPackage {
            name: package.name.to_string(),
            version: package.version.to_string(),
            id: package.id.repr.clone(),
            manifest_path: package.manifest_path.clone().into_std_path_buf(),
            code_roots,
            test_roots,
            uses_runtime: package
                .dependencies
                .iter()
                .any(|d| RUNTIME_CRATES.contains(&d.name.as_str())),
            runtime_by_version: package
                .dependencies
                .iter()
                .any(|d| d.name == "autodebug-runtime" && d.path.is_none() && d.source.is_some()),
            proc_macro: package
                .targets
                .iter()
                .any(|t| t.kind.contains(&TargetKind::ProcMacro)),
            edition_2015: package.edition == Edition::E2015,
        }
    }
}

impl Workspace {
    /// Reads `cargo metadata` for the manifest the options name (or the one cargo finds from
    /// the current directory) and selects the packages.
    pub fn discover(options: &Options) -> Result<Workspace> {
        let mut command = MetadataCommand::new();
        command.no_deps();
        command.other_options(options.cargo.manifest_args());
        if let Some(path) = &options.manifest_path {
            if !path.exists() {
                bail!("manifest `{}` does not exist", path.display());
            }
            command.manifest_path(path);
        }
        let metadata = command.exec().map_err(|e| match e {
            cargo_metadata::Error::CargoMetadata { stderr } => {
                let hint = if stderr.contains("invalid UTF-8") {
                    "\nhint: cargo needs the workspace's path to be UTF-8: move the workspace \
                     to a directory whose name is"
                } else {
                    ""
                };
                anyhow::anyhow!("`cargo metadata` failed:\n{}{hint}", stderr.trim_end())
            }
            other => anyhow::Error::new(other).context("could not run `cargo metadata`"),
        })?;
        let packages = select_packages(&metadata, options)?;
        Ok(Workspace {
            root: metadata.workspace_root.clone().into_std_path_buf(),
            target_dir: metadata.target_directory.clone().into_std_path_buf(),
            packages,
            metadata,
        })
    }

    /// Lines of Rust in the selected packages' directories (their code, tests, benches and
    /// examples; not `target` nor hidden directories, not a nested package, not `skip`): the
    /// size of what a patched build compiles and tests, which bounds repair's rebuilds in work
    /// rather than in seconds (see `repair::Limits::rebuild_cost`).
    pub fn rust_lines(&self, skip: &[PathBuf]) -> usize {
        let mut seen = std::collections::BTreeSet::new();
        let mut lines = 0;
        for package in &self.packages {
            let Some(dir) = package.manifest_path.parent() else {
                continue;
            };
            let walk = walkdir::WalkDir::new(dir).into_iter().filter_entry(|e| {
                let path = e.path();
                if path == dir || !e.file_type().is_dir() {
                    return true;
                }
                let name = e.file_name().to_string_lossy();
                !(name.starts_with('.')
                    || name == "target"
                    || path.join("Cargo.toml").is_file()
                    || skip.iter().any(|s| path.starts_with(s)))
            });
            for entry in walk.flatten() {
                let path = entry.path();
                if entry.file_type().is_file()
                    && path.extension().is_some_and(|e| e == "rs")
                    && seen.insert(path.to_path_buf())
                {
                    lines += std::fs::read(path).map_or(0, |b| lines_of(&b));
                }
            }
        }
        lines
    }

    /// Workspace members the selected packages' code depends on (normal dependencies by
    /// path, transitively, and the selected packages' own dev-dependencies, which their
    /// tests run) that are not selected themselves: code the failing tests reach.
    pub fn member_dependencies(&self) -> Vec<SelectedPackage> {
        let members = self.metadata.workspace_packages();
        let selected: Vec<&Package> = members
            .iter()
            .copied()
            .filter(|p| self.packages.iter().any(|s| s.name == p.name.as_str()))
            .collect();
        reached_members(&members, &selected)
            .into_iter()
            .map(SelectedPackage::of)
            .collect()
    }

    /// The workspace members outside the selection, each with the members its tests run:
    /// a fix in one of those must pass its tests too.
    pub fn dependents(&self) -> Vec<Dependent> {
        let members = self.metadata.workspace_packages();
        let dir_of = |p: &Package| -> PathBuf {
            p.manifest_path
                .parent()
                .map(|d| d.as_std_path())
                .and_then(|d| d.strip_prefix(&self.root).ok())
                .map(Path::to_path_buf)
                .unwrap_or_default()
        };
        let mut out = Vec::new();
        for member in members.iter().copied() {
            if self.packages.iter().any(|p| p.name == member.name.as_str()) {
                continue;
            }
            // Its own code, its normal dependencies by path (transitively) and its own
            // dev-dependencies (with their normal dependencies).
            let reaches = std::iter::once(member)
                .chain(reached_members(&members, &[member]))
                .map(dir_of)
                .collect();
            out.push(Dependent {
                spec: format!("{}@{}", member.name, member.version),
                dir: dir_of(member),
                reaches,
            });
        }
        out
    }

    /// The package with this id, if it is one of the workspace's.
    pub fn package_by_id(&self, id: &cargo_metadata::PackageId) -> Option<&Package> {
        self.metadata.packages.iter().find(|p| &p.id == id)
    }
}

/// The workspace members (of `members`) whose code the tests of `from` run, `from` left
/// out: normal dependencies by path, transitively, and `from`'s own dev-dependencies (a
/// dependency's dev-dependencies are not even built), in the order they are found.
fn reached_members<'a>(members: &[&'a Package], from: &[&'a Package]) -> Vec<&'a Package> {
    let mut seen: std::collections::BTreeSet<&str> = from.iter().map(|p| p.name.as_str()).collect();
    let mut queue: Vec<&Package> = from.to_vec();
    let mut found = Vec::new();
    while let Some(package) = queue.pop() {
        let start = from.iter().any(|p| p.name == package.name);
        for dependency in &package.dependencies {
            let Some(path) = &dependency.path else {
                continue;
            };
            let followed = match dependency.kind {
                cargo_metadata::DependencyKind::Normal => true,
                cargo_metadata::DependencyKind::Development => start,
                _ => false,
            };
            if !followed {
                continue;
            }
            let member = members
                .iter()
                .copied()
                .find(|m| m.manifest_path.parent() == Some(path.as_path()));
            if let Some(member) = member
                && seen.insert(member.name.as_str())
            {
                found.push(member);
                queue.push(member);
            }
        }
    }
    found
}

/// The package whose manifest was named, or whose directory holds the current directory.
fn current_package<'a>(members: &[&'a Package], options: &Options) -> Option<&'a Package> {
    let canonical = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    if let Some(manifest) = &options.manifest_path {
        let manifest = canonical(manifest);
        return members
            .iter()
            .copied()
            .find(|p| canonical(p.manifest_path.as_std_path()) == manifest);
    }
    let cwd = canonical(&std::env::current_dir().ok()?);
    members
        .iter()
        .copied()
        .filter_map(|p| {
            let dir = canonical(p.manifest_path.parent()?.as_std_path());
            cwd.starts_with(&dir)
                .then_some((dir.components().count(), p))
        })
        .max_by_key(|(depth, _)| *depth)
        .map(|(_, p)| p)
}

fn select_packages(metadata: &Metadata, options: &Options) -> Result<Vec<SelectedPackage>> {
    let members: Vec<&Package> = metadata.workspace_packages();
    let chosen: Vec<&Package> = if options.workspace {
        // As cargo's `--workspace --exclude NAME`: a member named by `--exclude` is left
        // out (other values of `--exclude` name code not to instrument).
        members
            .iter()
            .copied()
            .filter(|p| {
                !options
                    .exclude_patterns
                    .iter()
                    .any(|e| e == p.name.as_str() || *e == format!("{}@{}", p.name, p.version))
            })
            .collect()
    } else if !options.packages.is_empty() {
        let mut chosen = Vec::new();
        for spec in &options.packages {
            // A name, or `name@version` as cargo asks for when another package of the
            // same name is in the graph.
            let names = |p: &&&Package| {
                p.name.as_str() == spec.as_str() || format!("{}@{}", p.name, p.version) == *spec
            };
            let found = members.iter().find(names).with_context(|| {
                let names: Vec<&str> = members.iter().map(|p| p.name.as_str()).collect();
                format!(
                    "package `{spec}` is not a member of the workspace at {}\nhint: members are: {}",
                    metadata.workspace_root,
                    names.join(", ")
                )
            })?;
            chosen.push(*found);
        }
        chosen
    } else if let Some(current) = current_package(&members, options) {
        // As `cargo test`: in a package directory (or with its manifest), that package.
        vec![current]
    } else {
        let defaults: Vec<&Package> = metadata.workspace_default_packages();
        if defaults.is_empty() {
            members
        } else {
            defaults
        }
    };
    Ok(chosen.into_iter().map(SelectedPackage::of).collect())
}

/// The lines of a file's bytes (a last line without its newline counts).
fn lines_of(bytes: &[u8]) -> usize {
    let newlines = bytes.iter().filter(|&&b| b == b'\n').count();
    newlines + usize::from(bytes.last().is_some_and(|&b| b != b'\n'))
}

/// `file` (relative to the workspace root, as sites and fixes name files) under `root`, or
/// an error when it would leave the workspace: absolute, or `..` past the root. Paths come
/// from traces the code under test wrote; the tool reads and writes only the workspace's
/// own files.
pub fn inside(root: &Path, file: &str) -> Result<PathBuf, String> {
    let mut parts: Vec<&std::ffi::OsStr> = Vec::new();
    for component in Path::new(file).components() {
        match component {
            std::path::Component::Normal(part) => parts.push(part),
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir if !parts.is_empty() => {
                parts.pop();
            }
            _ => return Err(format!("{file} is outside the workspace: not read")),
        }
    }
    if parts.is_empty() {
        return Err(format!("{file:?} names no file"));
    }
    Ok(parts
        .iter()
        .fold(root.to_path_buf(), |path, part| path.join(part)))
}

/// The text of a workspace file a trace or a report names (see [`inside`]).
pub fn read_source(root: &Path, file: &str) -> Result<String, String> {
    let path = inside(root, file)?;
    std::fs::read_to_string(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

#[cfg(test)]
mod confinement {
    use super::*;

    #[test]
    fn paths_stay_inside_the_workspace() {
        let root = Path::new("/w");
        assert_eq!(
            inside(root, "src/lib.rs").unwrap(),
            Path::new("/w/src/lib.rs")
        );
        assert_eq!(
            inside(root, "./a/../src/x.rs").unwrap(),
            Path::new("/w/src/x.rs")
        );
        for bad in ["/etc/passwd", "../x.rs", "src/../../x.rs", "", "."] {
            assert!(inside(root, bad).is_err(), "{bad}");
        }
    }
}

#[cfg(test)]
mod size {
    use super::*;

    /// The lines a patched build compiles: the package's code and tests, not its target
    /// directory, a hidden directory, a nested package nor the tool's own directories.
    #[test]
    fn rust_lines_count_the_package_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let write = |path: &str, text: &str| {
            let path = root.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        write(
            "Cargo.toml",
            "[package]\nname = \"sized\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
        );
        write("src/lib.rs", "pub fn f() -> u8 {\n    1\n}\n");
        write("tests/t.rs", "#[test]\nfn t() {}");
        write("target/debug/build/out.rs", "a\nb\nc\n");
        write(".git/x.rs", "a\n");
        write("nested/Cargo.toml", "[package]\nname = \"nested\"\n");
        write("nested/src/lib.rs", "a\nb\n");
        write("autodebug.out/x.rs", "a\nb\n");
        let manifest = root.join("Cargo.toml").display().to_string();
        let options =
            Options::parse_args(["cargo-autodebug", "--manifest-path", manifest.as_str()]).unwrap();
        let workspace = Workspace::discover(&options).unwrap();
        assert_eq!(workspace.rust_lines(&[]), 3 + 2 + 2);
        assert_eq!(workspace.rust_lines(&[root.join("autodebug.out")]), 3 + 2);
    }
}
