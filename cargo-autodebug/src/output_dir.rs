//! The output directory (`autodebug.out` by default): created afresh for each run, the
//! previous run's moved aside to `<dir>.old` (put back when the run is interrupted or
//! selects no test; a directory of the tool's whose run never wrote its report is removed
//! instead, so the last report is never pushed out by a run that made none), and locked for
//! the run (a second run on the same directory stops with a clear error instead of moving
//! the first one's files away); it names the files a run writes there. It ignores itself for
//! git (a `.gitignore` of `*` inside, as cargo writes into `target/`), so a `git add .` after
//! a run adds none of it, nor of the `.old` one beside it.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::options::Options;
use crate::workspace::Workspace;

/// What the output directory's `.gitignore` says: everything in it is the tool's.
const GITIGNORE: &str = "# Written by cargo autodebug: this run's output, not source.\n*\n";

/// The output directory of one run.
#[derive(Debug)]
pub struct OutputDir {
    path: PathBuf,
    /// The directory itself, opened and locked (`flock`) while the run lasts.
    _lock: std::fs::File,
    /// `<dir>.old`, when it holds a finished run's report.
    previous: Option<PathBuf>,
}

impl OutputDir {
    /// Creates the directory `--output` names (or `autodebug.out` in the workspace root),
    /// moving a previous one aside to `<dir>.old` (and removing an older `.old`).
    pub fn for_run(workspace: &Workspace, options: &Options) -> Result<OutputDir> {
        OutputDir::create(OutputDir::path_for(workspace, options)?)
    }

    /// Where the run's directory is (`--output`, or `autodebug.out` in the workspace
    /// root), without touching it.
    pub fn path_for(workspace: &Workspace, options: &Options) -> Result<PathBuf> {
        Ok(match &options.output {
            Some(dir) => std::path::absolute(dir).context("bad --output path")?,
            None => workspace.root.join("autodebug.out"),
        })
    }

    /// Creates `dir` afresh, moving a previous one aside to `<dir>.old` (and removing an
    /// older `.old`), and locks it.
    pub fn create(dir: PathBuf) -> Result<OutputDir> {
        let old = old_of(&dir);
        if dir.exists() {
            // A run still using it holds its lock (which moves with the directory).
            let previous = lock(&dir)?;
            if finished(&dir) || !ours(&dir) {
                if old.exists() {
                    std::fs::remove_dir_all(&old)
                        .with_context(|| format!("could not remove {}", old.display()))?;
                }
                std::fs::rename(&dir, &old)
                    .with_context(|| format!("could not move {} aside", dir.display()))?;
            } else {
                // A run of the tool's that was killed before its report: nothing to keep.
                std::fs::remove_dir_all(&dir)
                    .with_context(|| format!("could not remove {}", dir.display()))?;
            }
            drop(previous);
        }
        std::fs::create_dir_all(dir.join("log")).map_err(|error| not_created(&dir, error))?;
        std::fs::write(dir.join(".gitignore"), GITIGNORE)
            .with_context(|| format!("could not write {}", dir.join(".gitignore").display()))?;
        let lock = lock(&dir)?;
        Ok(OutputDir {
            path: dir,
            _lock: lock,
            previous: finished(&old).then_some(old),
        })
    }

    /// `<dir>.old` when it holds a finished run's report: what an interrupted run puts back.
    pub fn previous(&self) -> Option<&Path> {
        self.previous.as_deref()
    }

    /// Puts the previous run's directory back in place of this one (a run that has nothing
    /// to report): `true` when there was one.
    pub fn keep_previous(&self) -> Result<bool> {
        let Some(old) = &self.previous else {
            return Ok(false);
        };
        std::fs::remove_dir_all(&self.path)
            .with_context(|| format!("could not remove {}", self.path.display()))?;
        std::fs::rename(old, &self.path)
            .with_context(|| format!("could not move {} back", old.display()))?;
        Ok(true)
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The directory as people want to read it (relative to the current directory when
    /// inside it).
    pub fn shown(&self) -> String {
        display_path(&self.path)
    }

    /// The directories the tool owns beside the user's files: this one and its `.old`.
    pub fn own_dirs(&self) -> [PathBuf; 2] {
        own_dirs_of(&self.path)
    }

    /// Where cargo's and the tests' logs go.
    pub fn log_dir(&self) -> PathBuf {
        self.path.join("log")
    }

    /// The baseline coverage of every test.
    pub fn coverage(&self) -> PathBuf {
        self.path.join("coverage.json")
    }

    /// Saves a failing test's output under `log/`, returning its path relative to the
    /// directory.
    pub fn write_test_log(&self, result: &crate::baseline::BaselineResult) -> Result<String> {
        let name = format!("log/{}.txt", result.test.file_stem());
        let text = format!(
            "--- stdout ---\n{}\n--- stderr ---\n{}\n",
            result.first.stdout, result.first.stderr
        );
        std::fs::write(self.path.join(&name), text)?;
        Ok(name)
    }
}

/// The directory `dir`, opened and locked for this process (an error when another holds it).
fn lock(dir: &Path) -> Result<std::fs::File> {
    let locked = std::fs::File::open(dir).and_then(|file| {
        file.try_lock()?;
        Ok(file)
    });
    locked.with_context(|| {
        format!(
            "{} is in use by another cargo autodebug run; wait for it to finish or give this \
             one its own --output DIR",
            dir.display()
        )
    })
}

/// The directories the tool owns for an output directory `dir`: it and its `.old`.
pub fn own_dirs_of(dir: &Path) -> [PathBuf; 2] {
    [dir.to_path_buf(), old_of(dir)]
}

/// Why `dir` could not be created; where the tree cannot be written, the flags that move
/// what the tool writes.
fn not_created(dir: &Path, error: std::io::Error) -> anyhow::Error {
    let hint = match error.kind() {
        std::io::ErrorKind::PermissionDenied | std::io::ErrorKind::ReadOnlyFilesystem => {
            "\n  = help: `-o DIR` (`--output`) writes the report elsewhere, and \
             `--target-dir DIR` the builds"
        }
        _ => "",
    };
    anyhow::anyhow!("could not create {}: {error}{hint}", dir.display())
}

/// Whether `dir` was made by the tool (its `.gitignore` is the tool's): a directory of the
/// user's that `--output` names is moved aside, never removed.
pub fn ours(dir: &Path) -> bool {
    std::fs::read_to_string(dir.join(".gitignore")).is_ok_and(|text| text == GITIGNORE)
}

/// Whether `dir` holds a finished run's report.
fn finished(dir: &Path) -> bool {
    dir.join("report.json").is_file()
}

fn old_of(dir: &Path) -> PathBuf {
    let mut old = dir.to_path_buf().into_os_string();
    old.push(".old");
    PathBuf::from(old)
}

/// A path as people want to read it: relative to the current directory when inside it.
pub fn display_path(path: &Path) -> String {
    std::env::current_dir()
        .ok()
        .and_then(|cwd| path.strip_prefix(cwd).ok().map(Path::to_path_buf))
        .unwrap_or_else(|| path.to_path_buf())
        .display()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_in_use_is_not_moved_aside() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("autodebug.out");
        let first = OutputDir::create(dir.clone()).unwrap();
        std::fs::write(first.path().join("report.json"), "{}").unwrap();
        let error = OutputDir::create(dir.clone()).unwrap_err();
        assert!(
            format!("{error:#}").contains("is in use by another cargo autodebug run"),
            "{error:#}"
        );
        assert!(first.path().join("report.json").exists());
        assert!(!old_of(&dir).exists());
        drop(first);
        let second = OutputDir::create(dir.clone()).unwrap();
        assert!(old_of(&dir).join("report.json").exists());
        assert!(!second.path().join("report.json").exists());
    }

    #[test]
    fn the_last_report_survives_a_run_that_made_none() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("autodebug.out");
        let report = |d: &Path| std::fs::read_to_string(d.join("report.json")).ok();
        let first = OutputDir::create(dir.clone()).unwrap();
        assert_eq!(first.previous(), None);
        std::fs::write(first.path().join("report.json"), "first").unwrap();
        drop(first);
        // A run with nothing to report puts the first one's directory back.
        let empty = OutputDir::create(dir.clone()).unwrap();
        assert_eq!(empty.previous(), Some(old_of(&dir).as_path()));
        assert!(empty.keep_previous().unwrap());
        drop(empty);
        assert_eq!(report(&dir).as_deref(), Some("first"));
        assert!(!old_of(&dir).exists());
        // A run killed before its report (no `report.json`): the next run removes its
        // directory rather than pushing the first report out of `.old`.
        let killed = OutputDir::create(dir.clone()).unwrap();
        std::fs::write(killed.log_dir().join("tests.log"), "").unwrap();
        drop(killed);
        let next = OutputDir::create(dir.clone()).unwrap();
        assert_eq!(report(&old_of(&dir)).as_deref(), Some("first"));
        assert!(!next.log_dir().join("tests.log").exists());
        assert!(next.keep_previous().unwrap());
        assert_eq!(report(&dir).as_deref(), Some("first"));
        drop(next);
        // A directory of the user's without a report (`-o` named it) is moved aside as
        // before, never removed.
        let mine = root.path().join("mine");
        std::fs::create_dir(&mine).unwrap();
        std::fs::write(mine.join("notes.txt"), "mine").unwrap();
        drop(OutputDir::create(mine.clone()).unwrap());
        assert_eq!(
            std::fs::read_to_string(old_of(&mine).join("notes.txt")).unwrap(),
            "mine"
        );
    }

    #[test]
    fn a_directory_that_cannot_be_written_names_the_flags_that_move_the_output() {
        let dir = Path::new("/tree/autodebug.out");
        for kind in [
            std::io::ErrorKind::ReadOnlyFilesystem,
            std::io::ErrorKind::PermissionDenied,
        ] {
            let error = format!("{:#}", not_created(dir, kind.into()));
            assert!(
                error.starts_with("could not create /tree/autodebug.out: "),
                "{error}"
            );
            assert!(
                error.contains("`-o DIR`") && error.contains("`--target-dir DIR`"),
                "{error}"
            );
        }
        let other = format!(
            "{:#}",
            not_created(dir, std::io::ErrorKind::StorageFull.into())
        );
        assert!(!other.contains("help"), "{other}");
    }

    #[test]
    fn git_sees_nothing_to_add_after_a_run() {
        let root = tempfile::tempdir().unwrap();
        let git = |args: &[&str]| {
            let out = std::process::Command::new("git")
                .args(args)
                .current_dir(root.path())
                .output()
                .unwrap();
            assert!(out.status.success(), "{out:?}");
            String::from_utf8(out.stdout).unwrap()
        };
        git(&["init", "-q"]);
        std::fs::write(root.path().join("lib.rs"), "").unwrap();
        let dir = root.path().join("autodebug.out");
        // Two runs: the first one's directory is moved aside to `autodebug.out.old`.
        for _ in 0..2 {
            let run = OutputDir::create(dir.clone()).unwrap();
            std::fs::write(run.path().join("report.json"), "{}").unwrap();
            std::fs::write(run.log_dir().join("tests.log"), "").unwrap();
        }
        assert!(old_of(&dir).join("report.json").exists());
        assert_eq!(git(&["status", "--porcelain"]), "?? lib.rs\n");
    }
}
