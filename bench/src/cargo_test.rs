//! Building and testing one copy of a program with plain `cargo test`: the generator's
//! check of a candidate fault and the brute-force baseline's check of a candidate fix.
//!
//! A copy is rewritten in place between candidates and rebuilt in its own target dir.
//! Cargo decides freshness by timestamps, so every build that must see new source checks
//! that cargo really compiled the package again (a `Compiling <package>` line).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use anyhow::{Result, bail};

use crate::process;

/// A scratch copy of a program with its own target dir.
#[derive(Clone, Debug)]
pub struct Scratch {
    /// The package root of the copy.
    pub dir: PathBuf,
    /// Its target dir.
    pub target: PathBuf,
    /// The cargo package name.
    pub package: String,
}

/// The result of a build.
#[derive(Debug, PartialEq, Eq)]
pub enum Build {
    /// Compiled.
    Built,
    /// The compiler rejected the code (first error lines kept).
    Failed(String),
    /// Ran past its limit.
    TimedOut,
}

/// The result of running the tests of a build.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct TestRun {
    pub passed: BTreeSet<String>,
    pub failed: BTreeSet<String>,
    /// The run was killed at the limit (a hung test).
    pub timed_out: bool,
}

impl TestRun {
    /// Every test ran and passed.
    pub fn all_passed(&self) -> bool {
        !self.timed_out && self.failed.is_empty() && !self.passed.is_empty()
    }
}

impl Scratch {
    fn cargo(&self, args: &[&str]) -> Command {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let mut c = Command::new(cargo);
        c.args(args)
            .arg("--manifest-path")
            .arg(self.dir.join("Cargo.toml"))
            .env("CARGO_TARGET_DIR", &self.target)
            .env_remove("AUTODEBUG_INSTRUMENT")
            .env_remove("AUTODEBUG_TRACE")
            .env_remove("RUSTC_WORKSPACE_WRAPPER")
            .current_dir(&self.dir);
        c
    }

    /// Builds the test targets (`--tests`: the library's unit tests and `tests/*.rs`, no
    /// doctests). With `expect_rebuild`, a build that did not compile the package again is
    /// an error: the artifacts would be those of another variant.
    pub fn build(&self, expect_rebuild: bool, limit: Duration) -> Result<Build> {
        let f = process::run(
            self.cargo(&["test", "--tests", "--no-run", "--color", "never"]),
            limit,
        )?;
        if f.timed_out {
            return Ok(Build::TimedOut);
        }
        if f.code != Some(0) {
            let errors: Vec<&str> = f
                .stderr
                .lines()
                .filter(|l| l.starts_with("error"))
                .take(3)
                .collect();
            return Ok(Build::Failed(errors.join("\n")));
        }
        if expect_rebuild && !recompiled(&f.stderr, &self.package) {
            bail!(
                "cargo did not rebuild {} in {} after its source changed:\n{}",
                self.package,
                self.dir.display(),
                f.stderr
            );
        }
        Ok(Build::Built)
    }

    /// Runs the tests of the last build (all of them, no fail-fast) within `limit`.
    pub fn test(&self, limit: Duration) -> Result<TestRun> {
        let f = process::run(
            self.cargo(&["test", "--tests", "--no-fail-fast", "--color", "never"]),
            limit,
        )?;
        let mut run = parse_libtest(&f.stdout);
        run.timed_out = f.timed_out;
        if !f.timed_out && f.code != Some(0) && run.failed.is_empty() {
            bail!(
                "cargo test failed without a failing test in {}:\n{}",
                self.dir.display(),
                f.stderr
            );
        }
        Ok(run)
    }
}

/// Whether cargo's stderr says it compiled `package` (not just found it fresh).
pub fn recompiled(stderr: &str, package: &str) -> bool {
    stderr.lines().any(|l| {
        l.trim_start()
            .strip_prefix("Compiling ")
            .is_some_and(|rest| rest.split_whitespace().next() == Some(package))
    })
}

/// The test names and outcomes in libtest's output (`test NAME ... ok|FAILED|ignored`).
pub fn parse_libtest(stdout: &str) -> TestRun {
    let mut run = TestRun::default();
    for line in stdout.lines() {
        let Some(rest) = line.strip_prefix("test ") else {
            continue;
        };
        let Some((name, outcome)) = rest.rsplit_once(" ... ") else {
            continue;
        };
        let name = name
            .strip_suffix(" - should panic")
            .unwrap_or(name)
            .to_string();
        match outcome.trim() {
            "ok" => {
                run.passed.insert(name);
            }
            "FAILED" => {
                run.failed.insert(name);
            }
            _ => {}
        }
    }
    run
}

/// Writes `text` to `path` so that cargo sees it as changed: the new mtime is pushed
/// strictly past the old one even on file systems with coarse timestamps.
pub fn rewrite(path: &Path, text: &str) -> Result<()> {
    let before = std::fs::metadata(path).and_then(|m| m.modified()).ok();
    std::fs::write(path, text)?;
    if let Some(before) = before {
        let now = std::fs::metadata(path)?.modified()?;
        if now <= before {
            let f = std::fs::File::options().write(true).open(path)?;
            f.set_modified(before + Duration::from_secs(1))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn libtest_lines_are_parsed() {
        let out = "running 3 tests\ntest tests::a ... ok\ntest tests::b - should panic ... ok\n\
                   test tests::c ... FAILED\ntest tests::d ... ignored\n\nfailures:\n    tests::c\n\
                   test result: FAILED. 2 passed; 1 failed\n";
        let r = parse_libtest(out);
        assert_eq!(r.passed, ["tests::a", "tests::b"].map(String::from).into());
        assert_eq!(r.failed, ["tests::c"].map(String::from).into());
    }

    #[test]
    fn only_a_compiling_line_of_the_package_counts_as_a_rebuild() {
        let fresh = "    Finished `test` profile [unoptimized] target(s) in 0.1s\n";
        let dep = "   Compiling sum-extra v0.1.0\n";
        let pkg = "   Compiling serde v1\n   Compiling sum v0.1.0 (/tmp/x)\n";
        assert!(!recompiled(fresh, "sum"));
        assert!(!recompiled(dep, "sum"));
        assert!(recompiled(pkg, "sum"));
    }
}
