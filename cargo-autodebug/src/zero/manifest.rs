//! The runtime dependency a copied package gets, and where the runtime comes from: the
//! sources the tool carries inside it (see [`super::embedded`]), or a directory named by
//! `AUTODEBUG_RUNTIME_PATH`.

use std::path::PathBuf;

use anyhow::{Result, bail};

/// Environment variable naming the `autodebug-runtime` source directory to use.
pub const ENV_RUNTIME_PATH: &str = "AUTODEBUG_RUNTIME_PATH";

/// Where the copy's manifests take `autodebug-runtime` from: a source directory (absolute).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuntimeSource(pub PathBuf);

impl RuntimeSource {
    /// The runtime named by `AUTODEBUG_RUNTIME_PATH`, else the one this tool was built with.
    pub fn find() -> Result<RuntimeSource> {
        if let Some(dir) = std::env::var_os(ENV_RUNTIME_PATH).filter(|v| !v.is_empty()) {
            let dir = std::path::absolute(PathBuf::from(dir))?;
            if !dir.join("Cargo.toml").is_file() {
                bail!(
                    "{ENV_RUNTIME_PATH}={} has no Cargo.toml: it must name the autodebug-runtime source directory",
                    dir.display()
                );
            }
            return Ok(RuntimeSource(dir));
        }
        Ok(RuntimeSource(super::embedded::runtime_dir()?))
    }

    /// The `[dependencies]` line.
    pub fn dependency(&self) -> String {
        format!(
            "autodebug-runtime = {{ path = {} }}",
            toml_string(&self.0.display().to_string())
        )
    }

    /// The `--config` value that makes a dependency on `autodebug-runtime` by version
    /// resolve to this runtime (`[patch.crates-io]`).
    pub fn patch(&self) -> Option<String> {
        Some(format!(
            "patch.crates-io.autodebug-runtime.path={}",
            toml_string(self.0.to_str()?)
        ))
    }

    /// For people: where the runtime comes from.
    pub fn describe(&self) -> String {
        self.0.display().to_string()
    }
}

/// `manifest` with `dependency` added to its `[dependencies]` table (a new table at the end
/// when it has none). Everything else stays as written.
pub fn with_dependency(manifest: &str, dependency: &str) -> String {
    with_dependency_in(manifest, "dependencies", dependency)
}

/// `manifest` with `dependency` added to its `[TABLE]` table (`dependencies`,
/// `dev-dependencies`; a new table at the end when it has none). Everything else stays as
/// written.
pub fn with_dependency_in(manifest: &str, table: &str, dependency: &str) -> String {
    let mut out = String::with_capacity(manifest.len() + dependency.len() + 20);
    let mut added = false;
    for line in manifest.split_inclusive('\n') {
        out.push_str(line);
        if !added && is_header(line, table) {
            if !line.ends_with('\n') {
                out.push('\n');
            }
            out.push_str(dependency);
            out.push('\n');
            added = true;
        }
    }
    if !added {
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&format!("\n[{table}]\n"));
        out.push_str(dependency);
        out.push('\n');
    }
    out
}

/// Whether a manifest line is the `[TABLE]` header (maybe followed by a comment).
fn is_header(line: &str, table: &str) -> bool {
    let line = line.trim();
    let line = line.split('#').next().unwrap_or("").trim_end();
    line.strip_prefix('[')
        .and_then(|l| l.strip_suffix(']'))
        .is_some_and(|name| name.trim() == table)
}

/// A TOML basic string.
fn toml_string(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dependency_joins_the_dependencies_table() {
        let manifest = "[package]\nname = \"a\"\n\n[dependencies] # deps\nrand = \"0.8\"\n\n[dev-dependencies]\nx = \"1\"\n";
        let out = with_dependency(manifest, "autodebug-runtime = \"=0.1.0\"");
        assert_eq!(
            out,
            "[package]\nname = \"a\"\n\n[dependencies] # deps\nautodebug-runtime = \"=0.1.0\"\nrand = \"0.8\"\n\n[dev-dependencies]\nx = \"1\"\n"
        );
    }

    #[test]
    fn a_manifest_without_dependencies_gets_the_table() {
        for manifest in [
            "[package]\nname = \"a\"\n",
            "[package]\nname = \"a\"",
            "[package]\nname = \"a\"\n[dev-dependencies]\nx = \"1\"\n[dependencies.serde]\nversion = \"1\"\n",
        ] {
            let out = with_dependency(manifest, "autodebug-runtime = \"=0.1.0\"");
            assert!(out.starts_with(manifest.trim_end()));
            assert!(
                out.ends_with("\n\n[dependencies]\nautodebug-runtime = \"=0.1.0\"\n"),
                "{out}"
            );
        }
    }

    #[test]
    fn path_dependency_is_quoted() {
        let source = RuntimeSource(PathBuf::from("/a \"b\"\\c"));
        assert_eq!(
            source.dependency(),
            "autodebug-runtime = { path = \"/a \\\"b\\\"\\\\c\" }"
        );
        assert_eq!(
            source.patch().unwrap(),
            "patch.crates-io.autodebug-runtime.path=\"/a \\\"b\\\"\\\\c\""
        );
    }

    #[test]
    fn the_runtime_the_tool_carries_is_found() {
        if std::env::var_os(ENV_RUNTIME_PATH).is_some() {
            return;
        }
        let RuntimeSource(dir) = RuntimeSource::find().unwrap();
        assert!(dir.join("src/rt.rs").is_file(), "{}", dir.display());
        assert!(dir.is_absolute());
    }
}
