//! The corpus: one correct program per directory (`bench/corpus/<name>/`, a crate with its
//! own `[workspace]`, visible tests in `src/lib.rs`, hidden tests in `hidden/hidden.rs`),
//! and the scratch copies every build works on.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

/// The file faults are seeded into, relative to the program's root.
pub const SOURCE: &str = "src/lib.rs";
/// The hidden tests, relative to the program's root: never visible to the tool.
pub const HIDDEN: &str = "hidden/hidden.rs";
/// Where the hidden tests go in a copy when a fix is judged.
pub const HIDDEN_TARGET: &str = "tests/hidden.rs";

/// One correct program of the corpus.
#[derive(Clone, Debug)]
pub struct Program {
    /// The directory name, used as the program's id.
    pub name: String,
    /// The program's root directory.
    pub dir: PathBuf,
    /// The cargo package name (what `Compiling …` lines say).
    pub package: String,
}

impl Program {
    /// Reads the program in `dir`.
    pub fn open(dir: &Path) -> Result<Program> {
        let manifest = std::fs::read_to_string(dir.join("Cargo.toml"))
            .with_context(|| format!("no Cargo.toml in {}", dir.display()))?;
        let package = package_name(&manifest)
            .with_context(|| format!("no [package] name in {}/Cargo.toml", dir.display()))?;
        if !dir.join(SOURCE).is_file() {
            bail!("{} has no {SOURCE}", dir.display());
        }
        Ok(Program {
            name: dir
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            dir: dir.to_path_buf(),
            package,
        })
    }

    /// The correct source text.
    pub fn source(&self) -> Result<String> {
        let path = self.dir.join(SOURCE);
        std::fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))
    }

    /// The hidden tests, if the program has them.
    pub fn hidden_tests(&self) -> Option<PathBuf> {
        let p = self.dir.join(HIDDEN);
        p.is_file().then_some(p)
    }
}

/// The programs of a corpus directory, sorted by name.
pub fn discover(corpus: &Path) -> Result<Vec<Program>> {
    let mut out = Vec::new();
    let entries = std::fs::read_dir(corpus)
        .with_context(|| format!("cannot read the corpus {}", corpus.display()))?;
    for entry in entries {
        let dir = entry?.path();
        if dir.join("Cargo.toml").is_file() && dir.join(SOURCE).is_file() {
            out.push(Program::open(&dir)?);
        }
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

/// The `name = "…"` of the `[package]` table.
pub fn package_name(manifest: &str) -> Option<String> {
    let mut in_package = false;
    for line in manifest.lines() {
        let t = line.trim();
        if t.starts_with('[') {
            in_package = t == "[package]";
        } else if in_package
            && let Some(rest) = t.strip_prefix("name")
            && let Some(v) = rest.trim_start().strip_prefix('=')
        {
            return Some(v.trim().trim_matches('"').to_string());
        }
    }
    None
}

/// The manifest with every relative `path = "…"` dependency made absolute against `base`
/// (the program's original directory), so a copy anywhere still finds this repository's
/// `autodebug-runtime`.
pub fn absolute_paths(manifest: &str, base: &Path) -> String {
    let mut out = String::with_capacity(manifest.len());
    for line in manifest.split_inclusive('\n') {
        out.push_str(&absolute_path_in_line(line, base));
    }
    out
}

fn absolute_path_in_line(line: &str, base: &Path) -> String {
    let Some(at) = line.find("path") else {
        return line.to_string();
    };
    let after = &line[at + 4..];
    let Some(eq) = after.find('=') else {
        return line.to_string();
    };
    if !after[..eq].trim().is_empty() {
        return line.to_string();
    }
    let value = after[eq + 1..].trim_start();
    let Some(rest) = value.strip_prefix('"') else {
        return line.to_string();
    };
    let Some(close) = rest.find('"') else {
        return line.to_string();
    };
    let path = &rest[..close];
    if Path::new(path).is_absolute() {
        return line.to_string();
    }
    let joined = base.join(path);
    let abs = joined.canonicalize().unwrap_or(joined);
    let start = line.len() - value.len() + 1;
    format!(
        "{}{}{}",
        &line[..start],
        abs.display(),
        &line[start + close..]
    )
}

/// Copies a program to `dst` for building: everything but `target/`, `hidden/` and tool
/// output, with dependency paths made absolute.
pub fn copy_program(program: &Program, dst: &Path) -> Result<()> {
    for entry in walkdir::WalkDir::new(&program.dir)
        .into_iter()
        .filter_entry(|e| {
            e.depth() != 1
                || !matches!(
                    e.file_name().to_str(),
                    Some("target" | "hidden" | "autodebug.out")
                )
        })
    {
        let entry = entry?;
        let rel = entry.path().strip_prefix(&program.dir)?;
        let to = dst.join(rel);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&to)?;
        } else if entry.file_type().is_file() {
            std::fs::copy(entry.path(), &to)
                .with_context(|| format!("cannot copy {}", entry.path().display()))?;
        }
    }
    let manifest = std::fs::read_to_string(program.dir.join("Cargo.toml"))?;
    std::fs::write(
        dst.join("Cargo.toml"),
        absolute_paths(&manifest, &program.dir),
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn package_name_is_read_from_the_package_table() {
        let m = "[workspace]\nname = \"no\"\n[package]\nname = \"sum\"\nversion = \"0.1.0\"\n";
        assert_eq!(package_name(m).as_deref(), Some("sum"));
    }

    #[test]
    fn relative_dependency_paths_become_absolute() {
        let tmp = tempfile::tempdir().unwrap();
        let base = tmp.path().join("a/b");
        std::fs::create_dir_all(&base).unwrap();
        std::fs::create_dir_all(tmp.path().join("rt")).unwrap();
        let m = "[dependencies]\nautodebug-runtime = { path = \"../../rt\" }\nx = { path=\"/abs\" }\nname = \"path\"\n";
        let out = absolute_paths(m, &base);
        let rt = tmp.path().join("rt").canonicalize().unwrap();
        assert!(
            out.contains(&format!(
                "autodebug-runtime = {{ path = \"{}\" }}\n",
                rt.display()
            )),
            "{out}"
        );
        assert!(out.contains("x = { path=\"/abs\" }\n"));
        assert!(out.ends_with("name = \"path\"\n"));
    }
}
