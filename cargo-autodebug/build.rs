//! Puts the sources of the runtime the tool injects (`autodebug-runtime` and the crates it
//! depends on in this workspace) inside the tool, so that an installed binary works with no
//! checkout present (see `src/zero/embedded.rs`). Their manifests are made standalone: what
//! they inherit from the workspace (`version.workspace = true`, `serde.workspace = true`) is
//! written out, and what only the workspace's own builds use (dev-dependencies, test and
//! bench targets) is left out, as their tests are.

use std::fmt::Write as _;
use std::hash::Hasher as _;
use std::path::{Path, PathBuf};

/// The crates the runtime brings, each a directory beside this package.
const CRATES: [&str; 3] = ["autodebug-runtime", "autodebug-macros", "autodebug-syntax"];

/// The licence texts at the workspace's root (`MIT OR Apache-2.0`).
const LICENCES: [&str; 2] = ["LICENSE-MIT", "LICENSE-APACHE"];

fn main() {
    let here = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let root = here
        .parent()
        .expect("the package is in the workspace")
        .to_path_buf();
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("set by cargo"));
    let workspace_manifest = root.join("Cargo.toml");
    println!("cargo::rerun-if-changed={}", workspace_manifest.display());
    let workspace: toml::Table = read(&workspace_manifest)
        .parse()
        .expect("the workspace manifest parses");
    let workspace = workspace["workspace"]
        .as_table()
        .expect("a [workspace] table");

    let mut files: Vec<(String, PathBuf)> = Vec::new();
    for name in CRATES {
        let dir = root.join(name);
        println!(
            "cargo::rerun-if-changed={}",
            dir.join("Cargo.toml").display()
        );
        println!("cargo::rerun-if-changed={}", dir.join("src").display());
        let manifest = standalone(&read(&dir.join("Cargo.toml")), workspace);
        let generated = out.join(format!("{name}.Cargo.toml"));
        std::fs::write(&generated, manifest).expect("OUT_DIR is writable");
        files.push((format!("{name}/Cargo.toml"), generated));
        for entry in walk(&dir.join("src")) {
            println!("cargo::rerun-if-changed={}", entry.display());
            let relative = entry.strip_prefix(&root).expect("under the root");
            files.push((relative.to_string_lossy().replace('\\', "/"), entry));
        }
        // The licence texts travel with each crate (a vendored copy keeps them).
        for licence in LICENCES {
            let path = root.join(licence);
            println!("cargo::rerun-if-changed={}", path.display());
            files.push((format!("{name}/{licence}"), path));
        }
    }
    files.sort();

    // A hash of every name and byte: the extracted copy's directory name, so that a tool
    // built from other sources never takes another's copy for its own.
    let mut hasher = fnv::FnvHasher::default();
    let mut mix = |bytes: &[u8]| hasher.write(bytes);
    let mut code = String::from("/// The runtime's files: path under the extracted root, bytes.\n");
    code.push_str("pub const FILES: &[(&str, &[u8])] = &[\n");
    for (name, path) in &files {
        mix(name.as_bytes());
        mix(&[0]);
        mix(&std::fs::read(path).expect("a runtime file is readable"));
        mix(&[0]);
        writeln!(
            code,
            "    ({name:?}, include_bytes!({:?})),",
            path.display().to_string()
        )
        .expect("writes to a String");
    }
    code.push_str("];\n");
    let hash = hasher.finish();
    writeln!(
        code,
        "/// A hash of [`FILES`] (FNV-1a over names and bytes).\npub const HASH: &str = \"{hash:016x}\";"
    )
    .expect("writes to a String");
    std::fs::write(out.join("embedded_runtime.rs"), code).expect("OUT_DIR is writable");
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The files under `dir`, recursively.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.expect("a readable directory").path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

/// A member's manifest with what it inherits from `workspace` written out, its dependencies
/// on the other runtime crates as paths to their sibling directories, and its
/// dev-dependencies, tests and benches left out.
fn standalone(manifest: &str, workspace: &toml::Table) -> String {
    let mut manifest: toml::Table = manifest.parse().expect("a member manifest parses");
    for key in ["dev-dependencies", "test", "bench", "example"] {
        manifest.remove(key);
    }
    let inherited = workspace["package"]
        .as_table()
        .expect("[workspace.package]");
    if let Some(package) = manifest.get_mut("package").and_then(|p| p.as_table_mut()) {
        for (key, value) in package.iter_mut() {
            if is_inherited(value) {
                *value = inherited
                    .get(key)
                    .unwrap_or_else(|| panic!("package.{key} is not in [workspace.package]"))
                    .clone();
            }
        }
        // Not a member of the user's workspace when it is extracted: a package of its own.
        package.insert("publish".into(), toml::Value::Boolean(false));
    }
    let shared = workspace["dependencies"]
        .as_table()
        .expect("[workspace.dependencies]");
    for table in ["dependencies", "build-dependencies"] {
        let Some(dependencies) = manifest.get_mut(table).and_then(|d| d.as_table_mut()) else {
            continue;
        };
        let names: Vec<String> = dependencies.keys().cloned().collect();
        for name in names {
            let declared = dependencies[&name].clone();
            let mut resolved = if is_inherited(&declared) {
                let mut base = match shared.get(&name) {
                    Some(toml::Value::String(version)) => {
                        let mut t = toml::Table::new();
                        t.insert("version".into(), toml::Value::String(version.clone()));
                        t
                    }
                    Some(toml::Value::Table(t)) => t.clone(),
                    _ => panic!("{name} is not in [workspace.dependencies]"),
                };
                // The member's own keys (features, optional) add to the workspace's.
                if let toml::Value::Table(own) = &declared {
                    for (key, value) in own {
                        if key == "workspace" {
                            continue;
                        }
                        if key == "features" {
                            let mut features = base
                                .get("features")
                                .and_then(|f| f.as_array())
                                .cloned()
                                .unwrap_or_default();
                            features.extend(value.as_array().cloned().unwrap_or_default());
                            base.insert(key.clone(), toml::Value::Array(features));
                        } else {
                            base.insert(key.clone(), value.clone());
                        }
                    }
                }
                base
            } else {
                match declared {
                    toml::Value::Table(t) => t,
                    toml::Value::String(version) => {
                        let mut t = toml::Table::new();
                        t.insert("version".into(), toml::Value::String(version));
                        t
                    }
                    other => panic!("dependency {name} = {other}"),
                }
            };
            if CRATES.contains(&name.as_str()) {
                resolved.insert("path".into(), toml::Value::String(format!("../{name}")));
            } else {
                assert!(
                    !resolved.contains_key("path"),
                    "{name}: a path dependency outside the runtime crates cannot travel"
                );
            }
            dependencies.insert(name, toml::Value::Table(resolved));
        }
    }
    let mut text = String::from(
        "# Written by cargo-autodebug's build from its workspace's manifest: the runtime it\n\
         # injects, extracted from the tool.\n",
    );
    text.push_str(&toml::to_string(&manifest).expect("a manifest serializes"));
    // An empty workspace table: not taken for a member of an enclosing workspace.
    if !manifest.contains_key("workspace") {
        text.push_str("\n[workspace]\n");
    }
    text
}

/// `{ workspace = true }` (and `key.workspace = true`).
fn is_inherited(value: &toml::Value) -> bool {
    value
        .as_table()
        .and_then(|t| t.get("workspace"))
        .and_then(|w| w.as_bool())
        .unwrap_or(false)
}
