//! The rebuilds' scratch copy, made and built before repair needs it. The first patched
//! build of a run is incremental only if the copy's target dir holds a build of the
//! unpatched code; when it does not (the first run of a workspace, or code changed since
//! the last run), that build compiles the user's crates whole: on a crate of 2,000 tests,
//! 15 s against 2 s. So as soon as the baseline shows failing tests, the copy is made and
//! `cargo test --no-run` runs in it in the background, at the lowest CPU priority: it takes
//! the cores that localization (one z3 worker) and the search leave idle, and the first
//! patched build finds the rest done.
//!
//! A prebuild nobody takes (no candidate reached a rebuild) is stopped: its process group
//! is killed, and so it is on an interrupt.

use std::path::PathBuf;
use std::process::{Child, Stdio};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::copy_tree::ScratchCopy;
use crate::interrupt::Interrupts;

use super::validate::{self, Selection};

/// Lowest CPU priority (`nice` 19): the build only takes what the run leaves idle.
const NICE: libc::c_int = 19;

/// The background build of the rebuilds' scratch copy.
pub struct Prebuild {
    /// The thread making the copy and waiting for its build; taken once.
    thread: Mutex<Option<JoinHandle<Option<ScratchCopy>>>>,
    /// The build's process group while it runs, and whether the prebuild was stopped.
    running: Arc<Mutex<Running>>,
}

#[derive(Default)]
struct Running {
    pgid: Option<i32>,
    stopped: bool,
}

impl Prebuild {
    /// Copies `workspace_root` to the shared place under `dir` (see [`ScratchCopy::create`];
    /// when another run holds it, to a place of this run's own, whose build is cold) and
    /// builds `selection` in it.
    pub fn start(
        workspace_root: PathBuf,
        dir: PathBuf,
        skip: Vec<PathBuf>,
        selection: Selection,
        interrupts: Interrupts,
    ) -> Prebuild {
        let running = Arc::new(Mutex::new(Running::default()));
        let shared = Arc::clone(&running);
        let thread = std::thread::spawn(move || {
            // Another run's copy (it holds the shared place from its baseline to its end)
            // is not waited for: this one builds a copy of its own.
            let copy = ScratchCopy::create(&workspace_root, &dir, &skip, Duration::ZERO).ok()?;
            validate::seed(&copy);
            let mut command = validate::build_command(&copy, &selection, &[]);
            command.stdout(Stdio::null()).stderr(Stdio::null());
            std::os::unix::process::CommandExt::process_group(&mut command, 0);
            // SAFETY: setpriority(2) is async-signal-safe and touches no memory of ours.
            unsafe {
                std::os::unix::process::CommandExt::pre_exec(&mut command, || {
                    libc::setpriority(libc::PRIO_PROCESS, 0, NICE);
                    Ok(())
                });
            }
            let (mut child, _group): (Child, _) = {
                let mut running = lock(&shared);
                if running.stopped {
                    return Some(copy);
                }
                let started = interrupts.spawn(&mut command).ok()?;
                running.pgid = Some(started.0.id() as i32);
                started
            };
            let _ = child.wait();
            lock(&shared).pgid = None;
            Some(copy)
        });
        Prebuild {
            thread: Mutex::new(Some(thread)),
            running,
        }
    }

    /// The copy, once its build has ended (built or not: a build that failed leaves what it
    /// compiled, and the first rebuild says what failed); `None` if there is none (it could
    /// not be made) or it was taken already.
    pub fn take(&self) -> Option<ScratchCopy> {
        let thread = self
            .thread
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()?;
        thread.join().ok().flatten()
    }
}

impl Drop for Prebuild {
    /// Stops a build nobody took, and waits for its thread (the copy is then removed).
    fn drop(&mut self) {
        {
            let mut running = lock(&self.running);
            running.stopped = true;
            if let Some(pgid) = running.pgid {
                crate::engine::kill_process_group(pgid);
            }
        }
        if let Some(thread) = self
            .thread
            .get_mut()
            .unwrap_or_else(|e| e.into_inner())
            .take()
        {
            let _ = thread.join();
        }
    }
}

fn lock(running: &Mutex<Running>) -> std::sync::MutexGuard<'_, Running> {
    running.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::engine::Engine;
    use crate::repair::validate::tests::tiny_crate;
    use crate::repair::validate::{Rebuild, SuiteTest, TestKey};

    const LIB: &str = "pub fn double(x: i32) -> i32 {
    x + 1
}

#[test]
fn doubles() {
    assert_eq!(double(2), 4);
}
";

    fn start(ws: &Path, dir: &Path) -> Prebuild {
        Prebuild::start(
            ws.to_path_buf(),
            dir.to_path_buf(),
            Vec::new(),
            Selection::default(),
            Interrupts::default(),
        )
    }

    /// The test binaries the copy's target dir holds.
    fn test_binaries(target: &Path) -> usize {
        std::fs::read_dir(target.join("debug/deps")).map_or(0, |entries| {
            entries
                .flatten()
                .filter(|e| {
                    let name = e.file_name().to_string_lossy().into_owned();
                    name.starts_with("tiny-") && !name.contains('.')
                })
                .count()
        })
    }

    /// The copy comes built: its test binary is there before any patch, and the first
    /// patched build, in the same copy, validates the fix.
    #[test]
    fn the_copy_comes_built_and_rebuilds_patch_it() {
        let ws = tiny_crate(LIB);
        let dir = tempfile::tempdir().unwrap();
        let prebuild = start(ws.path(), dir.path());
        let copy = prebuild.take().expect("the place was free");
        assert_eq!(test_binaries(&copy.target_dir), 1);
        assert!(prebuild.take().is_none(), "taken once");
        let suite = vec![SuiteTest {
            key: TestKey {
                package_dir: std::path::PathBuf::new(),
                target: "tiny".into(),
                kind: "lib".into(),
                name: "doubles".into(),
            },
            display: "tiny::doubles".into(),
            required: true,
            out_of_reach: false,
            failed_before: false,
            timeout: Duration::from_secs(20),
        }];
        let mut rebuild = Rebuild::in_copy(copy, Selection::default(), suite, 2, Engine::default());
        let fixed = rebuild
            .validate(&[("src/lib.rs".into(), LIB.replace("x + 1", "x * 2"))])
            .unwrap();
        assert!(fixed.validated, "{fixed:?}");
        let faulty = rebuild
            .validate(&[("src/lib.rs".into(), LIB.into())])
            .unwrap();
        assert!(!faulty.validated, "{faulty:?}");
    }

    /// A prebuild nobody takes is stopped and gives the place back; while another run
    /// holds the place, a prebuild builds a copy of its own instead of waiting.
    #[test]
    fn an_untaken_prebuild_stops_and_a_held_place_gets_a_copy_of_its_own() {
        let ws = tiny_crate(LIB);
        let dir = tempfile::tempdir().unwrap();
        drop(start(ws.path(), dir.path()));
        assert!(
            !dir.path().join("workspace").exists(),
            "the copy is removed"
        );
        let held = ScratchCopy::create(ws.path(), dir.path(), &[], Duration::ZERO).unwrap();
        assert_eq!(
            held.root,
            dir.path().join("workspace").canonicalize().unwrap()
        );
        let own = start(ws.path(), dir.path())
            .take()
            .expect("a copy of its own");
        assert_ne!(own.target_dir, held.target_dir);
        assert_eq!(test_binaries(&own.target_dir), 1);
        assert_eq!(test_binaries(&held.target_dir), 0);
    }
}
