//! Validation by rebuild: a patch is written into the scratch copy of the workspace, the
//! tests are built as the user builds them (`cargo test`: no instrumentation, the user's
//! profile) into a persistent target dir of the tool's, and the whole suite the baseline
//! ran is run again. Only a patch whose build passes every test that passed before and
//! every deterministically failing test is validated.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

use crate::baseline::BaselineResult;
use crate::build::{self, TestBinary};
use crate::copy_tree::ScratchCopy;
use crate::engine::{self, Engine};
use crate::model::{Outcome, TestId};

/// A test of the suite, as the scratch build finds it again.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct TestKey {
    /// The package's directory relative to the workspace root.
    pub package_dir: PathBuf,
    pub target: String,
    pub kind: String,
    pub name: String,
}

/// One test of the suite and what the patched build must do with it.
#[derive(Debug, Clone)]
pub struct SuiteTest {
    pub key: TestKey,
    /// `target::name`, for people.
    pub display: String,
    /// It must pass: it passed in the baseline, or failed there deterministically after
    /// reaching instrumented code.
    pub required: bool,
    /// It failed in the baseline without reaching any instrumented site (it hung, crashed
    /// or failed elsewhere): no change of an instrumented site can change how it runs, so
    /// it is neither required nor rerun.
    pub out_of_reach: bool,
    /// It failed in the baseline and must pass: run before the rest of the suite, which a
    /// patch that leaves it failing does not need.
    pub failed_before: bool,
    /// Its timeout under the patch (a patch can make a loop run away).
    pub timeout: Duration,
}

/// The suite of a baseline: every test it ran; the flaky failures, and the failures that
/// reached no instrumented code while others did, not required. When no failing test
/// reached instrumented code, the suspects are code they call that is not instrumented
/// (see `localize::called`), and every deterministic failure is required. A test's
/// timeout is ten times what it took (at least two seconds, at most `max_timeout`).
pub fn suite(
    workspace_root: &Path,
    baseline: &[BaselineResult],
    max_timeout: Duration,
) -> Vec<SuiteTest> {
    let any_reached = baseline
        .iter()
        .any(|r| r.deterministic_failure() && !r.coverage.is_empty());
    baseline
        .iter()
        .map(|result| {
            let passed = result.first.outcome.passed();
            // A test the baseline did not run has nothing to be compared with.
            let out_of_reach = (!passed && result.coverage.is_empty() && any_reached)
                || result.first.outcome == Outcome::NotRun;
            SuiteTest {
                key: key_of(workspace_root, &result.test),
                display: result.test.display(),
                required: passed || (result.deterministic_failure() && !out_of_reach),
                out_of_reach,
                failed_before: result.deterministic_failure() && !out_of_reach,
                timeout: (result.first.duration * 10)
                    .max(Duration::from_secs(2))
                    .min(max_timeout),
            }
        })
        .collect()
}

fn key_of(workspace_root: &Path, test: &TestId) -> TestKey {
    TestKey {
        package_dir: test
            .package_root
            .strip_prefix(workspace_root)
            .unwrap_or(&test.package_root)
            .to_path_buf(),
        target: test.target.clone(),
        kind: test.kind.clone(),
        name: test.name.clone(),
    }
}

/// What to build: the selection the tool's own build used.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// `--manifest-path`, relative to the workspace root.
    pub manifest_path: Option<PathBuf>,
    pub packages: Vec<String>,
    pub lib: bool,
    pub test_targets: Vec<String>,
    /// Cargo's feature and manifest flags of the run (`--features`, `--locked`, …).
    pub cargo_args: Vec<String>,
    /// Workspace members outside the selection: a patch of code one of them runs is
    /// validated against its tests too.
    pub dependents: Vec<crate::workspace::Dependent>,
}

impl Selection {
    /// The selection of this run's own build.
    pub fn of(
        workspace: &crate::workspace::Workspace,
        options: &crate::options::Options,
    ) -> Selection {
        let manifest_path = options.manifest_path.as_ref().and_then(|manifest| {
            let absolute = std::path::absolute(manifest).ok()?;
            absolute
                .strip_prefix(&workspace.root)
                .ok()
                .map(Path::to_path_buf)
        });
        Selection {
            manifest_path,
            // `name@version`: the copy's paths differ from the workspace's, so not the id.
            packages: workspace
                .packages
                .iter()
                .map(|p| format!("{}@{}", p.name, p.version))
                .collect(),
            lib: options.lib,
            test_targets: options.test_targets.clone(),
            cargo_args: options.cargo.build_args(),
            dependents: workspace.dependents(),
        }
    }
}

pub use crate::model::Validation;

/// Builds and tests patches in one scratch copy, one at a time.
pub struct Rebuild {
    copy: ScratchCopy,
    target_dir: PathBuf,
    selection: Selection,
    suite: Vec<SuiteTest>,
    jobs: usize,
    /// Runs the patched build's tests.
    engine: Engine,
    /// Original text of the files of the copy the last patch changed (relative paths).
    dirty: BTreeMap<String, String>,
    /// The dependents whose tests joined the suite (`name@version`): built with every
    /// patch from then on.
    joined: Vec<String>,
    /// Builds so far.
    pub builds: usize,
}

impl Rebuild {
    /// A scratch copy of `workspace_root` under `dir` (see [`ScratchCopy::create`]: the
    /// copy and its target dir are kept from run to run so that rebuilds are incremental;
    /// `wait` is how long to wait for a concurrent run to release them).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        workspace_root: &Path,
        dir: &Path,
        skip: &[PathBuf],
        selection: Selection,
        suite: Vec<SuiteTest>,
        jobs: usize,
        wait: Duration,
        engine: Engine,
    ) -> Result<Rebuild> {
        let copy = ScratchCopy::create(workspace_root, dir, skip, wait)?;
        seed(&copy);
        Ok(Rebuild::in_copy(copy, selection, suite, jobs, engine))
    }

    /// Rebuilds in `copy`, made (and seeded, see [`seed`]) before.
    pub fn in_copy(
        copy: ScratchCopy,
        selection: Selection,
        suite: Vec<SuiteTest>,
        jobs: usize,
        engine: Engine,
    ) -> Rebuild {
        Rebuild {
            target_dir: copy.target_dir.clone(),
            copy,
            selection,
            suite,
            jobs: jobs.max(1),
            engine,
            dirty: BTreeMap::new(),
            joined: Vec::new(),
            builds: 0,
        }
    }

    /// Writes `files` (paths relative to the workspace root, and their patched text) into
    /// the copy, builds the tests and runs the suite. Files an earlier patch changed are
    /// restored first.
    pub fn validate(&mut self, files: &[(String, String)]) -> Result<Validation> {
        for (path, original) in std::mem::take(&mut self.dirty) {
            write_newer(&self.copy.root.join(&path), &original)?;
        }
        self.join_dependents(files.iter().map(|(path, _)| Path::new(path)))?;
        let mut changed_files = BTreeSet::new();
        for (path, text) in files {
            let file = super::apply::confined(&self.copy.root, path)?;
            let original = std::fs::read_to_string(&file)
                .with_context(|| format!("could not read {}", file.display()))?;
            self.dirty.insert(path.clone(), original);
            write_newer(&file, text)?;
            changed_files.insert(file);
        }
        let start = Instant::now();
        let built = self.build(&changed_files)?;
        let build_s = start.elapsed().as_secs_f64();
        let binaries = match built {
            Ok(binaries) => binaries,
            Err(error) => {
                return Ok(Validation {
                    validated: false,
                    tests_passed: 0,
                    tests_total: self.suite.len(),
                    passed: vec![false; self.suite.len()],
                    failing: Vec::new(),
                    not_run: 0,
                    error: Some(error),
                    build_s,
                    test_s: 0.0,
                });
            }
        };
        let start = Instant::now();
        let ran = self.run_suite(&binaries)?;
        let failing = self
            .suite
            .iter()
            .zip(&ran)
            .filter(|(test, ran)| test.required && **ran == Some(false))
            .map(|(test, _)| test.display.clone())
            .collect::<Vec<_>>();
        let not_run = ran.iter().filter(|r| r.is_none()).count();
        let passed: Vec<bool> = ran.iter().map(|r| *r == Some(true)).collect();
        Ok(Validation {
            validated: failing.is_empty() && not_run == 0,
            tests_passed: passed.iter().filter(|p| **p).count(),
            tests_total: self.suite.len(),
            passed,
            failing,
            not_run,
            error: None,
            build_s,
            test_s: start.elapsed().as_secs_f64(),
        })
    }

    /// `cargo test --no-run` in the copy: the test binaries, or the compiler's first error.
    /// A build in which a package holding a changed file was not recompiled is an error:
    /// cargo judged it fresh by timestamps, and its binaries do not contain the patch.
    fn build(&mut self, changed: &BTreeSet<PathBuf>) -> Result<Result<Vec<TestBinary>, String>> {
        self.builds += 1;
        let mut command = build_command(&self.copy, &self.selection, &self.joined);
        let cargo = build::run_seeded_build(&mut command, &self.target_dir, |_| {})?;
        if !cargo.success {
            let first = cargo
                .errors
                .into_iter()
                .map(|e| e.rendered.unwrap_or(e.message))
                .next()
                .unwrap_or_else(|| cargo.stderr.trim().lines().last().unwrap_or("").to_string());
            return Ok(Err(format!(
                "the patched code does not build: {}",
                first.trim()
            )));
        }
        // Package directories with a recompiled target, and all package directories.
        let build::CargoBuild {
            binaries,
            packages,
            rebuilt,
            ..
        } = cargo;
        for file in changed {
            // The innermost package directory holding the file.
            let owner = packages
                .iter()
                .filter(|dir| file.starts_with(dir))
                .max_by_key(|dir| dir.components().count());
            if let Some(owner) = owner
                && !rebuilt.contains(owner)
            {
                bail!(
                    "cargo did not rebuild {} after the patch of {} (its timestamps say fresh): the build cannot be trusted",
                    owner.display(),
                    file.display()
                );
            }
        }
        // Tests are matched by package directory, not by the binary's package name.
        Ok(Ok(binaries.into_iter().map(|(_, binary)| binary).collect()))
    }

    /// Adds to the suite the tests of the dependents whose tests run one of `files`
    /// (relative paths) and that are not in it yet: the copy, unpatched, is built with
    /// them and their tests run once; those that pass are required to pass under every
    /// patch from then on, those that fail are left out (as the baseline's failures that
    /// reach no patched code are).
    fn join_dependents<'a>(&mut self, files: impl Iterator<Item = &'a Path>) -> Result<()> {
        let files: Vec<&Path> = files.collect();
        let new: Vec<crate::workspace::Dependent> = self
            .selection
            .dependents
            .iter()
            .filter(|d| !self.joined.contains(&d.spec))
            .filter(|d| {
                files
                    .iter()
                    .any(|f| d.reaches.iter().any(|dir| f.starts_with(dir)))
            })
            .cloned()
            .collect();
        if new.is_empty() {
            return Ok(());
        }
        let timeout = self
            .suite
            .iter()
            .map(|t| t.timeout)
            .max()
            .unwrap_or(Duration::from_secs(60));
        let before = self.joined.len();
        self.joined.extend(new.iter().map(|d| d.spec.clone()));
        let binaries = match self.build(&BTreeSet::new())? {
            Ok(binaries) => binaries,
            // They do not build unpatched: nothing to hold a patch to.
            Err(_) => {
                self.joined.truncate(before);
                return Ok(());
            }
        };
        let mut tests = Vec::new();
        for binary in &binaries {
            let package_dir = binary
                .package_root
                .strip_prefix(&self.copy.root)
                .unwrap_or(&binary.package_root)
                .to_path_buf();
            if !new.iter().any(|d| d.dir == package_dir) {
                continue;
            }
            for test in engine::list_tests(binary, &self.engine, &Default::default())? {
                tests.push((package_dir.clone(), test));
            }
        }
        let runs: Vec<(&TestId, Duration)> = tests.iter().map(|(_, t)| (t, timeout)).collect();
        let outcomes = engine::run_together(&self.engine, &runs, self.jobs)?;
        for ((package_dir, test), passed) in tests.iter().zip(outcomes) {
            self.suite.push(SuiteTest {
                key: TestKey {
                    package_dir: package_dir.clone(),
                    target: test.target.clone(),
                    kind: test.kind.clone(),
                    name: test.name.clone(),
                },
                display: test.display(),
                required: passed,
                out_of_reach: !passed,
                failed_before: false,
                timeout,
            });
        }
        Ok(())
    }

    /// Runs the tests of the suite found in `binaries` (each binary's together, see
    /// [`engine::run_together`]), each with its timeout: whether each passed, in suite
    /// order (a test not found did not pass). The tests that failed in the baseline run
    /// first; when one of them still fails, the patch is refuted and the rest of the suite
    /// is not run (`None`).
    fn run_suite(&self, binaries: &[TestBinary]) -> Result<Vec<Option<bool>>> {
        let mut found: BTreeMap<TestKey, TestId> = BTreeMap::new();
        let wanted: BTreeSet<(&Path, &str, &str)> = self
            .suite
            .iter()
            .map(|t| {
                (
                    t.key.package_dir.as_path(),
                    t.key.target.as_str(),
                    t.key.kind.as_str(),
                )
            })
            .collect();
        for binary in binaries {
            let package_dir = binary
                .package_root
                .strip_prefix(&self.copy.root)
                .unwrap_or(&binary.package_root)
                .to_path_buf();
            if !wanted.contains(&(
                package_dir.as_path(),
                binary.target.as_str(),
                binary.kind.as_str(),
            )) {
                continue;
            }
            // Every test, ignored ones too: the suite says which run.
            let every = crate::options::LibtestArgs {
                include_ignored: true,
                ..Default::default()
            };
            for test in engine::list_tests(binary, &self.engine, &every)? {
                let key = TestKey {
                    package_dir: package_dir.clone(),
                    target: test.target.clone(),
                    kind: test.kind.clone(),
                    name: test.name.clone(),
                };
                found.insert(key, test);
            }
        }
        let runnable: Vec<(usize, &TestId)> = self
            .suite
            .iter()
            .enumerate()
            .filter(|(_, t)| !t.out_of_reach)
            .filter_map(|(i, t)| found.get(&t.key).map(|id| (i, id)))
            .collect();
        let mut ran: Vec<Option<bool>> = (self.suite.iter())
            .map(|t| (t.out_of_reach || !found.contains_key(&t.key)).then_some(false))
            .collect();
        let (first, rest): (Vec<_>, Vec<_>) =
            (runnable.into_iter()).partition(|&(i, _)| self.suite[i].failed_before);
        for part in [first, rest] {
            let tests: Vec<(&TestId, Duration)> = part
                .iter()
                .map(|&(i, test)| (test, self.suite[i].timeout))
                .collect();
            let outcomes = engine::run_together(&self.engine, &tests, self.jobs)?;
            for ((i, _), outcome) in part.iter().zip(outcomes) {
                ran[*i] = Some(outcome);
            }
            let refuted =
                (part.iter()).any(|&(i, _)| self.suite[i].required && ran[i] == Some(false));
            if refuted {
                break;
            }
        }
        Ok(ran)
    }
}

/// The runtime's units from the per-user cache into `copy`'s target dir: its first build
/// compiles the user's crates only (a cache that cannot be read costs that build's time
/// alone).
pub fn seed(copy: &ScratchCopy) {
    if let Some(cache) = crate::unit_cache::UnitCache::locate() {
        let _ = cache.seed(&copy.target_dir.join("debug"));
    }
}

/// `cargo test --no-run` in `copy` of what `selection` and the `joined` dependents
/// (`name@version`) select, as the user builds the tests (no instrumentation), with JSON
/// messages.
pub fn build_command(copy: &ScratchCopy, selection: &Selection, joined: &[String]) -> Command {
    let mut command = Command::new(build::cargo());
    command
        .args(["test", "--no-run", "--message-format=json"])
        .arg("--target-dir")
        .arg(&copy.target_dir)
        .env_remove(autodebug_runtime::protocol::ENV_INSTRUMENT)
        .current_dir(&copy.root)
        .stdin(Stdio::null());
    if let Some(manifest) = &selection.manifest_path {
        command.arg("--manifest-path").arg(copy.root.join(manifest));
    }
    for package in selection.packages.iter().chain(joined) {
        command.arg("-p").arg(package);
    }
    if selection.lib {
        command.arg("--lib");
    }
    command.args(&selection.cargo_args);
    for test in &selection.test_targets {
        command.arg("--test").arg(test);
    }
    command
}

/// Writes `text` to `path` and makes its modification time later than now by a margin,
/// so that cargo, which compares timestamps, sees it newer than any artifact built
/// before, whatever the file system's timestamp granularity.
fn write_newer(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).with_context(|| format!("could not write {}", path.display()))?;
    let file = std::fs::File::options()
        .write(true)
        .open(path)
        .with_context(|| format!("could not open {}", path.display()))?;
    file.set_modified(std::time::SystemTime::now() + Duration::from_secs(2))
        .with_context(|| format!("could not set the time of {}", path.display()))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    const LIB: &str = "pub fn max(x: i32, y: i32) -> i32 {
    let mut r = x;
    if y > x {
        r = x;
    }
    r
}

#[cfg(test)]
mod tests {
    #[test]
    fn larger_first() {
        assert_eq!(super::max(2, 1), 2);
    }

    #[test]
    fn larger_second() {
        assert_eq!(super::max(1, 2), 2);
    }

    #[test]
    fn equal() {
        assert_eq!(super::max(3, 3), 3);
    }
}
";

    fn suite_of(names: &[(&str, bool)]) -> Vec<SuiteTest> {
        names
            .iter()
            .map(|(name, required)| SuiteTest {
                key: TestKey {
                    package_dir: PathBuf::new(),
                    target: "tiny".into(),
                    kind: "lib".into(),
                    name: format!("tests::{name}"),
                },
                display: format!("tiny::tests::{name}"),
                required: *required,
                out_of_reach: false,
                failed_before: false,
                timeout: Duration::from_secs(20),
            })
            .collect()
    }

    /// A crate `tiny` of one library, `src/lib.rs` being `lib`, in a new directory.
    pub fn tiny_crate(lib: &str) -> tempfile::TempDir {
        let ws = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(ws.path().join("src")).unwrap();
        std::fs::write(
            ws.path().join("Cargo.toml"),
            "[package]\nname = \"tiny\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
        )
        .unwrap();
        std::fs::write(ws.path().join("src/lib.rs"), lib).unwrap();
        ws
    }

    /// A real crate, a real `cargo test` build: a patched build runs the patched code,
    /// patch after patch in the same copy and target dir, however fast they come.
    #[test]
    fn patched_builds_contain_their_patch() {
        let ws = tiny_crate(LIB);
        let dir = tempfile::tempdir().unwrap();
        let mut rebuild = Rebuild::new(
            ws.path(),
            dir.path(),
            &[],
            Selection::default(),
            suite_of(&[
                ("larger_first", true),
                ("larger_second", true),
                ("equal", true),
            ]),
            2,
            Duration::ZERO,
            Engine::default(),
        )
        .unwrap();
        let patched = |text: &str| vec![("src/lib.rs".to_string(), text.to_string())];

        let fixed = rebuild
            .validate(&patched(&LIB.replace("r = x;\n    }", "r = y;\n    }")))
            .unwrap();
        assert!(fixed.validated, "{fixed:?}");
        assert_eq!((fixed.tests_passed, fixed.tests_total), (3, 3));

        // Right after: the fault back in (the copy's file restored, then patched again).
        let faulty = rebuild.validate(&patched(LIB)).unwrap();
        assert!(!faulty.validated);
        assert_eq!(faulty.passed, [true, false, true]);
        assert_eq!(faulty.failing, ["tiny::tests::larger_second"]);

        let wrong = rebuild
            .validate(&patched(&LIB.replace("r = x;\n    }", "r = y + 1;\n    }")))
            .unwrap();
        assert_eq!(wrong.passed, [true, false, true]);

        let broken = rebuild
            .validate(&patched(&LIB.replace("r = x;\n    }", "r = z;\n    }")))
            .unwrap();
        assert!(!broken.validated);
        let error = broken.error.unwrap();
        assert!(
            error.contains("does not build") && error.contains("z"),
            "{error}"
        );

        // A flaky test need not pass; the user's file was never touched.
        let mut lenient = suite_of(&[("larger_first", true), ("larger_second", false)]);
        lenient.push(suite_of(&[("missing", false)]).remove(0));
        rebuild.suite = lenient;
        let with_fault = rebuild.validate(&patched(LIB)).unwrap();
        assert!(with_fault.validated);
        assert_eq!(with_fault.passed, [true, false, false]);
        assert_eq!(
            std::fs::read_to_string(ws.path().join("src/lib.rs")).unwrap(),
            LIB
        );
        assert!(
            rebuild
                .validate(&[("../escape.rs".into(), String::new())])
                .is_err()
        );

        // The test that failed before runs first: a patch that leaves it failing is refuted
        // without the rest of the suite; one that makes it pass runs the rest.
        let mut suite = suite_of(&[
            ("larger_first", true),
            ("larger_second", true),
            ("equal", true),
        ]);
        suite[1].failed_before = true;
        rebuild.suite = suite;
        let faulty = rebuild.validate(&patched(LIB)).unwrap();
        assert!(!faulty.validated);
        assert_eq!(faulty.failing, ["tiny::tests::larger_second"]);
        assert_eq!((faulty.not_run, faulty.tests_passed), (2, 0));
        let fixed = rebuild
            .validate(&patched(&LIB.replace("r = x;\n    }", "r = y;\n    }")))
            .unwrap();
        assert!(fixed.validated, "{fixed:?}");
        assert_eq!(
            (fixed.not_run, fixed.tests_passed, fixed.tests_total),
            (0, 3, 3)
        );
    }
}
