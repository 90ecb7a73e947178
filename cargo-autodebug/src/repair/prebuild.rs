//! The rebuilds' scratch copy, made and built before repair needs it. The first patched
//! build of a run is incremental only if the copy's target dir holds a build of the
//! unpatched code; when it does not (the first run of a workspace, or code changed since
//! the last run), that build compiles the user's crates whole: on a crate of 2,000 tests,
//! 15 s against 2 s. So as soon as the baseline shows failing tests, the copy is made and
//! `cargo test --no-run` runs in it in the background, at the lowest CPU priority: it takes
//! the cores that localization (one z3 worker) and the search leave idle, and the first
//! patched build finds the rest done.
//!
//! When repair takes the copy while its build still runs, the build is given the run's own
//! priority back, so that it no longer waits for cores a loaded machine (other tests of a
//! CI job, another build) never leaves idle; where the system does not let a process raise
//! a priority it lowered (an unprivileged user: `RLIMIT_NICE`), the build is stopped
//! instead and the first rebuild builds what is left at the run's priority (what the
//! prebuild compiled is kept).
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
    /// What `take` did to a build it found running.
    hurried: Option<Hurried>,
}

/// What `take` did to a build it found running.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Hurried {
    /// It runs on at the run's priority.
    Reprioritized,
    /// It was stopped: the first rebuild builds what is left.
    Stopped,
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
    /// not be made) or it was taken already. A build still running is hurried first (see
    /// the module's header).
    pub fn take(&self) -> Option<ScratchCopy> {
        let thread = self
            .thread
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()?;
        hurry(&self.running);
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

/// Gives the running build (its whole process group) this process's priority; stops it
/// when the system refuses.
fn hurry(running: &Mutex<Running>) {
    let mut running = lock(running);
    let Some(pgid) = running.pgid else {
        return;
    };
    if own_priority().is_some_and(|nice| set_group_priority(pgid, nice)) {
        running.hurried = Some(Hurried::Reprioritized);
        return;
    }
    crate::engine::kill_process_group(pgid);
    running.hurried = Some(Hurried::Stopped);
}

/// This process's nice value (`None` for -1, which getpriority(2) also returns on an
/// error: the build is then stopped rather than given a guess).
fn own_priority() -> Option<libc::c_int> {
    // SAFETY: getpriority(2) reads no memory of ours.
    let nice = unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) };
    (nice != -1).then_some(nice)
}

/// Sets the nice value of every process of group `pgid`; false when the system refuses.
fn set_group_priority(pgid: i32, nice: libc::c_int) -> bool {
    // SAFETY: setpriority(2) touches no memory of ours.
    unsafe { libc::setpriority(libc::PRIO_PGRP, pgid as libc::id_t, nice) == 0 }
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
        // Taken at once, the build may have been stopped (where its priority cannot be
        // raised back): then the patched build below compiles it.
        if lock(&prebuild.running).hurried != Some(Hurried::Stopped) {
            assert_eq!(test_binaries(&copy.target_dir), 1);
        }
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

    /// A build taken while it runs gets the run's priority back: every process of its
    /// group, the ones it starts later too (they inherit it); where the system refuses (an
    /// unprivileged user), it is refused for the group alike.
    #[test]
    fn a_hurried_build_runs_at_the_run_s_priority() {
        let mut command = std::process::Command::new("sh");
        command.args(["-c", "sleep 30 & wait"]);
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        // SAFETY: as in `Prebuild::start`.
        unsafe {
            std::os::unix::process::CommandExt::pre_exec(&mut command, || {
                libc::setpriority(libc::PRIO_PROCESS, 0, NICE);
                Ok(())
            });
        }
        let mut child = command.spawn().unwrap();
        let pgid = child.id() as i32;
        let nice_of =
            |pid: i32| unsafe { libc::getpriority(libc::PRIO_PROCESS, pid as libc::id_t) };
        assert_eq!(nice_of(pgid), NICE);
        let own = own_priority().expect("the test runs at a nice value other than -1");
        let running = Mutex::new(Running {
            pgid: Some(pgid),
            ..Running::default()
        });
        hurry(&running);
        match lock(&running).hurried {
            Some(Hurried::Reprioritized) => assert_eq!(nice_of(pgid), own),
            Some(Hurried::Stopped) => assert_ne!(own, NICE),
            None => panic!("a running build is hurried"),
        }
        crate::engine::kill_process_group(pgid);
        let _ = child.wait();
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
        // Waiting a little: a process another test thread forks holds a copy of the lock's
        // file until it executes its program.
        let held =
            ScratchCopy::create(ws.path(), dir.path(), &[], Duration::from_secs(10)).unwrap();
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
