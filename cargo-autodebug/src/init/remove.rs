//! `cargo autodebug init --remove`: takes out what `init` wrote, and only that. The
//! dependency line, the example contract (while it is still the comment `init` wrote), the
//! `[patch.crates-io]` entry, the copy of the runtime (a directory whose README says `init`
//! wrote it) and its place in the workspace's `exclude` go; every other line of those files
//! stays as it is, and a file or directory left empty that `init` created goes too (not an
//! empty `[dependencies]` table, which cannot be told from one of the user's). A crate
//! that uses contracts keeps the runtime: removing it would break its build, so the command
//! stops and says where the first contract is.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use super::MARKER;
use crate::console::Console;
use crate::zero::embedded;

/// What `--remove` is to write: each file's new text (`None`: the file goes).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Removal {
    pub manifest: Option<String>,
    pub workspace_manifest: Option<String>,
    pub source: Option<String>,
    /// The configuration's new text; an empty text means the file goes.
    pub config: Option<String>,
    /// The copy's directory, relative to the workspace root.
    pub copy: Option<String>,
}

/// `manifest` without the `autodebug-runtime` dependency (or dev-dependency), or `None`
/// when it has none.
pub fn without_dependency(manifest: &str) -> Result<Option<String>> {
    let mut document: toml_edit::DocumentMut =
        manifest.parse().context("could not parse the manifest")?;
    let mut removed = false;
    for table in ["dependencies", "dev-dependencies"] {
        removed |= document
            .get_mut(table)
            .and_then(toml_edit::Item::as_table_like_mut)
            .and_then(|deps| deps.remove("autodebug-runtime"))
            .is_some();
    }
    Ok(removed.then(|| document.to_string()))
}

/// `source` without the example contract `init` wrote, while it is that comment: the
/// marker's line and the comment lines after it, up to the function. `None` when there is
/// none.
pub fn without_example(source: &str) -> Option<String> {
    let lines: Vec<&str> = source.split_inclusive('\n').collect();
    let start = lines.iter().position(|l| l.contains(MARKER))?;
    let end = (start..lines.len())
        .find(|&i| !lines[i].trim_start().starts_with("// "))
        .unwrap_or(lines.len());
    Some(
        lines[..start]
            .iter()
            .chain(&lines[end..])
            .copied()
            .collect(),
    )
}

/// The first contract or runtime path in `source` outside comments: `(line, text)`.
pub fn first_contract(source: &str) -> Option<(usize, String)> {
    source.lines().enumerate().find_map(|(i, line)| {
        let code = line.trim_start();
        let attribute = code.starts_with("#[")
            && ["requires", "ensures", "invariant", "autodebug"]
                .iter()
                .any(|p| code.contains(p));
        let used = !code.starts_with("//") && (attribute || code.contains("autodebug_runtime"));
        used.then(|| (i + 1, code.to_string()))
    })
}

/// `config` without the `[patch.crates-io]` entry for the runtime (and the tables it
/// leaves empty), with the copy's directory it named if it was relative. `None` when there
/// is no entry.
pub fn without_patch(config: &str) -> Result<Option<(String, Option<String>)>> {
    let mut document: toml_edit::DocumentMut = config
        .parse()
        .context("could not parse .cargo/config.toml")?;
    let Some(patch) = document
        .get_mut("patch")
        .and_then(|p| p.as_table_like_mut())
    else {
        return Ok(None);
    };
    let Some(crates_io) = patch
        .get_mut("crates-io")
        .and_then(|c| c.as_table_like_mut())
    else {
        return Ok(None);
    };
    let Some(entry) = crates_io.remove("autodebug-runtime") else {
        return Ok(None);
    };
    let copy = entry
        .as_table_like()
        .and_then(|t| t.get("path"))
        .and_then(|p| p.as_str())
        .filter(|p| !Path::new(p).is_absolute())
        .and_then(|p| p.strip_suffix("/autodebug-runtime"))
        .map(str::to_string);
    if crates_io.is_empty() {
        patch.remove("crates-io");
    }
    if patch.is_empty() {
        document.remove("patch");
    }
    Ok(Some((document.to_string(), copy)))
}

/// `manifest` without `dir` in its workspace's `exclude` (and without an `exclude` it
/// leaves empty); `None` when it is not there.
pub fn without_exclude(manifest: &str, dir: &str) -> Result<Option<String>> {
    let mut document: toml_edit::DocumentMut =
        manifest.parse().context("could not parse the manifest")?;
    let Some(workspace) = document
        .get_mut("workspace")
        .and_then(toml_edit::Item::as_table_like_mut)
    else {
        return Ok(None);
    };
    let Some(exclude) = workspace.get_mut("exclude").and_then(|e| e.as_array_mut()) else {
        return Ok(None);
    };
    let Some(at) = exclude.iter().position(|e| e.as_str() == Some(dir)) else {
        return Ok(None);
    };
    exclude.remove(at);
    if exclude.is_empty() {
        workspace.remove("exclude");
    }
    Ok(Some(document.to_string()))
}

/// The package's files as `remove` reads them.
pub struct Crate<'a> {
    pub manifest: &'a str,
    /// The workspace's root manifest when it is another file.
    pub workspace_manifest: Option<&'a str>,
    pub config: &'a str,
    /// The root source file's text.
    pub source: &'a str,
    /// Every Rust file of the package (path for messages, text).
    pub sources: &'a [(PathBuf, String)],
}

/// What to write to take out what `init` wrote into `package`.
pub fn plan(package: &Crate) -> Result<Removal> {
    let source = without_example(package.source);
    for (path, text) in package.sources {
        let text = match &source {
            Some(without) if text == package.source => without,
            _ => text,
        };
        if let Some((line, code)) = first_contract(text) {
            bail!(
                "{}:{line} uses the runtime (`{code}`): take the contracts out first, or keep \
                 the runtime",
                path.display()
            );
        }
    }
    let manifest = without_dependency(package.manifest)?;
    let (config, copy) = match without_patch(package.config)? {
        Some((config, copy)) => (Some(config), copy),
        None => (None, None),
    };
    let (mut manifest, mut workspace_manifest) = (manifest, None);
    if let Some(dir) = &copy {
        match package.workspace_manifest {
            Some(root) => workspace_manifest = without_exclude(root, dir)?,
            None => {
                let text = manifest.as_deref().unwrap_or(package.manifest);
                if let Some(without) = without_exclude(text, dir)? {
                    manifest = Some(without);
                }
            }
        }
    }
    Ok(Removal {
        manifest,
        workspace_manifest,
        source,
        config,
        copy,
    })
}

/// Writes `removal` for the package whose files are at these paths, saying what went.
pub fn write(
    removal: &Removal,
    paths: (&Path, Option<&Path>, &Path, &Path),
    workspace_root: &Path,
    console: &Console,
) -> Result<()> {
    let (manifest_path, workspace_manifest_path, config_path, source_path) = paths;
    let shown = |path: &Path| {
        path.strip_prefix(workspace_root)
            .unwrap_or(path)
            .display()
            .to_string()
    };
    let write = |path: &Path, text: &str| {
        std::fs::write(path, text).with_context(|| format!("could not write {}", path.display()))
    };
    if let Some(text) = &removal.manifest {
        write(manifest_path, text)?;
        console.status(
            "Removing",
            &format!("autodebug-runtime from {}", shown(manifest_path)),
        );
    }
    if let (Some(text), Some(path)) = (&removal.workspace_manifest, workspace_manifest_path) {
        write(path, text)?;
    }
    if let Some(text) = &removal.source {
        write(source_path, text)?;
        console.status(
            "Removing",
            &format!("the example contract from {}", shown(source_path)),
        );
    }
    if let Some(text) = &removal.config {
        if text.trim().is_empty() {
            std::fs::remove_file(config_path)
                .with_context(|| format!("could not remove {}", config_path.display()))?;
            if let Some(dir) = config_path.parent() {
                // Only when empty: anything else in `.cargo/` is the user's.
                let _ = std::fs::remove_dir(dir);
            }
        } else {
            write(config_path, text)?;
        }
        console.status(
            "Removing",
            &format!(
                "the runtime's [patch.crates-io] entry from {}",
                shown(config_path)
            ),
        );
    }
    if let Some(dir) = &removal.copy {
        let path = workspace_root.join(dir);
        let readme = std::fs::read_to_string(path.join("README.md")).unwrap_or_default();
        if readme.starts_with(embedded::VENDORED) {
            std::fs::remove_dir_all(&path)
                .with_context(|| format!("could not remove {}", path.display()))?;
            // Parents the copy alone filled (`third_party/`) go with it.
            let mut parent = path.parent();
            while let Some(dir) =
                parent.filter(|d| d.starts_with(workspace_root) && *d != workspace_root)
            {
                if std::fs::remove_dir(dir).is_err() {
                    break;
                }
                parent = dir.parent();
            }
            console.status("Removing", &format!("the copy of the runtime in {dir}"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::init::{Provided, plan as init_plan};

    const MANIFEST: &str = "[package]\nname = \"calc\" # the crate\nversion = \"0.1.0\"\n\n[dependencies]\nrand = \"0.8\" # random\n\n[workspace]\nexclude = [\"old\"]\n";
    const SOURCE: &str =
        "//! Calc.\n\n/// Adds.\npub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n";
    const CONFIG: &str = "# Build settings.\n[build]\njobs = 2\n";

    /// What `init` writes for [`MANIFEST`], [`SOURCE`] and [`CONFIG`]: manifest, source,
    /// configuration.
    fn initialized() -> (String, String, String) {
        let provided = Provided::Vendored("third_party/autodebug".into());
        let plan = init_plan(
            MANIFEST,
            (&provided.dependency(), "dependencies"),
            (CONFIG, &provided),
            None,
            Path::new("src/lib.rs"),
            SOURCE,
        )
        .unwrap();
        let (_, source, _, _) = plan.contract.unwrap();
        (plan.manifest.unwrap(), source, plan.config.unwrap())
    }

    /// The removal for a crate of one file (`sources`) alone in its workspace.
    fn plan_of(
        manifest: &str,
        config: &str,
        source: &str,
        sources: &[(PathBuf, String)],
    ) -> Result<Removal> {
        plan(&Crate {
            manifest,
            workspace_manifest: None,
            config,
            source,
            sources,
        })
    }

    #[test]
    fn what_init_wrote_goes_and_nothing_else() {
        let (manifest, source, config) = initialized();
        // The user's own edits after `init`, in every file it touched.
        let manifest = manifest.replace("rand = \"0.8\" # random", "rand = \"0.9\" # random");
        let source = format!("{source}\npub fn two() -> i32 {{\n    2\n}}\n");
        let config = format!("{config}\n[alias]\nt = \"test\"\n");
        let sources = [(PathBuf::from("src/lib.rs"), source.clone())];
        let removal = plan_of(&manifest, &config, &source, &sources).unwrap();
        assert_eq!(
            removal.manifest.as_deref(),
            Some(MANIFEST.replace("0.8", "0.9").as_str())
        );
        assert_eq!(
            removal.source.as_deref(),
            Some(format!("{SOURCE}\npub fn two() -> i32 {{\n    2\n}}\n").as_str())
        );
        assert_eq!(
            removal.config.as_deref(),
            Some(format!("{CONFIG}\n[alias]\nt = \"test\"\n").as_str())
        );
        assert_eq!(removal.copy.as_deref(), Some("third_party/autodebug"));
        // Without the user's edits, every file is as it was before `init`; a configuration
        // that `init` created is left empty (the file goes).
        let (manifest, source, config) = initialized();
        let sources = [(PathBuf::from("src/lib.rs"), source.clone())];
        let alone = plan_of(&manifest, &config, &source, &sources).unwrap();
        assert_eq!(alone.manifest.as_deref(), Some(MANIFEST));
        assert_eq!(alone.source.as_deref(), Some(SOURCE));
        assert_eq!(alone.config.as_deref(), Some(CONFIG));
        assert_eq!(
            without_patch(
                "[patch.crates-io]\nautodebug-runtime = { path = \"x/autodebug-runtime\" }\n"
            )
            .unwrap()
            .unwrap()
            .0
            .trim(),
            ""
        );
    }

    #[test]
    fn a_crate_that_uses_contracts_keeps_the_runtime() {
        let (manifest, source, config) = initialized();
        let used = source.replace(
            "// #[autodebug_runtime::requires(",
            "#[autodebug_runtime::requires(",
        );
        let sources = [
            (PathBuf::from("src/lib.rs"), used.clone()),
            (PathBuf::from("src/more.rs"), String::new()),
        ];
        let error = plan_of(&manifest, &config, &used, &sources)
            .unwrap_err()
            .to_string();
        assert!(error.contains("src/lib.rs:"), "{error}");
        assert!(error.contains("uses the runtime"), "{error}");
        // Another file's contract counts as well.
        let sources = [
            (PathBuf::from("src/lib.rs"), source.clone()),
            (
                PathBuf::from("src/more.rs"),
                "use autodebug_runtime::ensures;\n".to_string(),
            ),
        ];
        let error = plan_of(&manifest, &config, &source, &sources)
            .unwrap_err()
            .to_string();
        assert!(error.contains("src/more.rs:1"), "{error}");
    }

    #[test]
    fn a_workspace_root_loses_the_exclude_init_added() {
        let root = "[workspace]\nmembers = [\"calc\"]\nexclude = [\"old\", \"third_party/autodebug\"] # kept\n";
        assert_eq!(
            without_exclude(root, "third_party/autodebug")
                .unwrap()
                .as_deref(),
            Some("[workspace]\nmembers = [\"calc\"]\nexclude = [\"old\"] # kept\n")
        );
        let only = "[workspace]\nmembers = [\"calc\"]\nexclude = [\"third_party/autodebug\"]\n";
        assert_eq!(
            without_exclude(only, "third_party/autodebug")
                .unwrap()
                .as_deref(),
            Some("[workspace]\nmembers = [\"calc\"]\n")
        );
        assert_eq!(without_exclude(only, "elsewhere").unwrap(), None);
    }
}
