//! The crates a user's code depends on (`autodebug-runtime`, the macros it re-exports, the
//! syntax rules they share) are ready to publish: `cargo package` makes each one, offline,
//! in dependency order, with its readme and licence texts, complete metadata, and every
//! dependency by version (none left by path only), so that on the day they are published
//! `cargo autodebug init` can write a plain version requirement.

use crate::common;

use std::process::Command;

const CRATES: [&str; 3] = ["autodebug-syntax", "autodebug-macros", "autodebug-runtime"];

fn cargo() -> Command {
    let mut command = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    command.current_dir(common::repo_root());
    command
}

#[test]
fn the_runtime_crates_package_with_their_files_and_every_dependency_by_version() {
    let target = tempfile::tempdir().unwrap();
    let mut package = cargo();
    package.args([
        "package",
        "--no-verify",
        "--offline",
        "--allow-dirty",
        "--target-dir",
    ]);
    package.arg(target.path());
    for name in CRATES {
        package.args(["-p", name]);
    }
    let output = package.output().unwrap();
    assert!(output.status.success(), "{}", common::describe(&output));
    let version = env!("CARGO_PKG_VERSION");
    for name in CRATES {
        let listed = cargo()
            .args([
                "package",
                "--list",
                "--offline",
                "--allow-dirty",
                "-p",
                name,
            ])
            .output()
            .unwrap();
        assert!(listed.status.success(), "{}", common::describe(&listed));
        let files = String::from_utf8_lossy(&listed.stdout);
        for file in [
            "Cargo.toml",
            "README.md",
            "LICENSE-MIT",
            "LICENSE-APACHE",
            "src/lib.rs",
        ] {
            assert!(
                files.lines().any(|l| l == file),
                "{name}: no {file} in\n{files}"
            );
        }
        // The manifest as published: cargo's normalized one, inside the archive.
        let archive = target
            .path()
            .join(format!("package/{name}-{version}.crate"));
        let manifest = Command::new("tar")
            .arg("-xzOf")
            .arg(&archive)
            .arg(format!("{name}-{version}/Cargo.toml"))
            .output()
            .unwrap();
        assert!(manifest.status.success(), "{}", common::describe(&manifest));
        let manifest: toml::Table = String::from_utf8_lossy(&manifest.stdout).parse().unwrap();
        let package = manifest["package"].as_table().unwrap();
        for key in [
            "description",
            "license",
            "repository",
            "readme",
            "keywords",
            "categories",
        ] {
            assert!(package.contains_key(key), "{name}: no package.{key}");
        }
        assert_eq!(package["version"].as_str(), Some(version), "{name}");
        for table in ["dependencies", "dev-dependencies", "build-dependencies"] {
            for (dependency, spec) in manifest
                .get(table)
                .and_then(|t| t.as_table())
                .into_iter()
                .flatten()
            {
                let spec = spec.as_table().cloned().unwrap_or_default();
                assert!(
                    !spec.contains_key("path"),
                    "{name}: {table}.{dependency} by path"
                );
                assert!(
                    spec.contains_key("version"),
                    "{name}: {table}.{dependency} has no version"
                );
                if dependency.starts_with("autodebug-") {
                    assert_eq!(
                        spec["version"].as_str(),
                        Some(version),
                        "{name}: {dependency}"
                    );
                }
            }
        }
    }
}
