//! The files of a crate's own code: from its root file (`src/lib.rs`, `src/main.rs`),
//! following `mod name;` declarations as the compiler does (`name.rs`, `name/mod.rs`,
//! `#[path]`), leaving out modules gated on `cfg(test)`. Each file comes with the plan of
//! its attributes.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::annotation::{self, FilePlan, ModuleDecl};

/// One file of a crate, read and planned.
pub struct CrateFile {
    /// The file.
    pub path: PathBuf,
    /// Its text as the user wrote it.
    pub text: String,
    /// Its attributes and modules.
    pub plan: FilePlan,
}

/// What walking a crate found: its files, and the ones that could not be read or parsed
/// (with why), which keep their code uninstrumented.
#[derive(Default)]
pub struct ModuleTree {
    pub files: Vec<CrateFile>,
    pub unreadable: Vec<String>,
}

impl ModuleTree {
    /// Walks the crates whose root files are `roots`, keeping to files under `within` (the
    /// workspace: nothing else is copied). A file reached twice (a library and a binary
    /// sharing a module) is planned once.
    pub fn walk(roots: &[PathBuf], within: &Path) -> ModuleTree {
        ModuleTree::walk_with(roots, within, annotation::plan)
    }

    /// Makes every plan that of a file of an edition-2015 crate.
    pub fn for_edition_2015(&mut self) {
        for file in &mut self.files {
            file.plan.for_edition_2015();
        }
    }

    /// Adds the files of `other` that this tree does not hold (a file of crates of both
    /// editions keeps the form of either, which both read).
    pub fn merge(&mut self, other: ModuleTree) {
        for file in other.files {
            if self.files.iter().all(|f| f.path != file.path) {
                self.files.push(file);
            }
        }
        self.unreadable.extend(other.unreadable);
    }

    /// [`ModuleTree::walk`] with another planner: the modules followed are those the
    /// planner's plans declare.
    pub fn walk_with(
        roots: &[PathBuf],
        within: &Path,
        planner: fn(&str) -> syn::Result<FilePlan>,
    ) -> ModuleTree {
        let mut tree = ModuleTree::default();
        let mut seen = BTreeSet::new();
        let mut queue: Vec<(PathBuf, bool)> = roots.iter().map(|r| (r.clone(), true)).collect();
        while let Some((path, mod_rs)) = queue.pop() {
            let path = normalize(&path);
            if !path.starts_with(within) || !seen.insert(path.clone()) {
                continue;
            }
            let text = match std::fs::read_to_string(&path) {
                Ok(text) => text,
                Err(error) => {
                    tree.unreadable.push(format!("{}: {error}", path.display()));
                    continue;
                }
            };
            let plan = match planner(&text) {
                Ok(plan) => plan,
                Err(error) => {
                    let at = error.span().start();
                    tree.unreadable.push(format!(
                        "{}:{}:{}: {error}",
                        path.display(),
                        at.line,
                        at.column + 1
                    ));
                    continue;
                }
            };
            for module in &plan.modules {
                if let Some(found) = module_file(&path, mod_rs, module) {
                    queue.push(found);
                }
            }
            tree.files.push(CrateFile { path, text, plan });
        }
        tree.files.sort_by(|a, b| a.path.cmp(&b.path));
        tree
    }
}

/// The file of a declared module, and whether it is a `mod.rs`-like file (whose own
/// modules live beside it rather than in a directory named after it). `declared_in` is the
/// declaring file, `mod_rs` whether it is a crate root or `mod.rs`-like.
fn module_file(declared_in: &Path, mod_rs: bool, decl: &ModuleDecl) -> Option<(PathBuf, bool)> {
    let dir = declared_in.parent()?;
    let mut module_dir = if mod_rs {
        dir.to_path_buf()
    } else {
        dir.join(declared_in.file_stem()?)
    };
    for parent in &decl.parents {
        module_dir.push(parent);
    }
    if let Some(path) = &decl.path {
        // Outside inline modules a `#[path]` is relative to the declaring file's directory.
        let base = if decl.parents.is_empty() {
            dir.to_path_buf()
        } else {
            module_dir
        };
        // The compiler treats a file named by `#[path]` as owning its directory.
        return Some((base.join(path), true));
    }
    let flat = module_dir.join(format!("{}.rs", decl.name));
    if flat.is_file() {
        return Some((flat, false));
    }
    let nested = module_dir.join(&decl.name).join("mod.rs");
    nested.is_file().then_some((nested, true))
}

/// `path` with `.` and `..` resolved lexically.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, path: &str, text: &str) {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn modules_are_followed_as_the_compiler_does() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(
            root,
            "src/lib.rs",
            "mod flat;\nmod nested;\n#[path = \"elsewhere/x.rs\"]\nmod renamed;\n\
             #[cfg(test)]\nmod tests;\nmod inline { mod deep; }\nmod missing;\n",
        );
        write(root, "src/flat.rs", "mod child;\n");
        write(root, "src/flat/child.rs", "pub fn c() {}\n");
        write(root, "src/nested/mod.rs", "mod sibling;\n");
        write(root, "src/nested/sibling.rs", "pub fn s() {}\n");
        write(root, "src/elsewhere/x.rs", "pub fn x() {}\n");
        write(root, "src/tests.rs", "pub fn helper() {}\n");
        write(root, "src/inline/deep.rs", "pub fn d() {}\n");
        write(root, "src/unreached.rs", "pub fn u() {}\n");
        let tree = ModuleTree::walk(&[root.join("src/lib.rs")], root);
        let found: Vec<String> = tree
            .files
            .iter()
            .map(|f| f.path.strip_prefix(root).unwrap().display().to_string())
            .collect();
        assert_eq!(
            found,
            [
                "src/elsewhere/x.rs",
                "src/flat/child.rs",
                "src/flat.rs",
                "src/inline/deep.rs",
                "src/lib.rs",
                "src/nested/mod.rs",
                "src/nested/sibling.rs",
            ]
        );
    }

    #[test]
    fn unparsable_files_are_said_and_outside_files_left() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("ws");
        write(
            &root,
            "src/lib.rs",
            "mod broken;\n#[path = \"../../out.rs\"]\nmod out;\n",
        );
        write(&root, "src/broken.rs", "pub fn f( {\n");
        write(dir.path(), "out.rs", "pub fn o() {}\n");
        let tree = ModuleTree::walk(&[root.join("src/lib.rs")], &root);
        assert_eq!(tree.files.len(), 1);
        assert_eq!(tree.unreadable.len(), 1);
        assert!(
            tree.unreadable[0].contains("broken.rs:1:"),
            "{:?}",
            tree.unreadable
        );
    }
}
