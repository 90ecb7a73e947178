//! Removing the scratch copy and stopping the tests when the run is interrupted (Ctrl-C,
//! `kill`, a closed terminal). The signal itself is caught by `signal-hook`: its handler
//! only raises a flag and wakes a thread of ours, which kills the process groups of the
//! tests still running (each test runs in a group of its own, which a Ctrl-C at the terminal
//! does not reach), removes the registered directories and ends the process with the
//! shell's code for that signal (128 + its number). A previous run's output directory moved
//! aside for this run is put back first, so an interrupted run leaves the last report where
//! it was. `kill -9` cannot be caught: the next run clears what it left.
//!
//! What a signal must clean up lives in an [`Interrupts`] value the session owns and hands
//! to the engine, not in process-wide statics of this crate. The solver's worker processes
//! need nothing here: they die with the tool however it ends (see [`crate::worker`]).

use std::path::PathBuf;
use std::process::{Child, Command};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::iterator::Signals;

/// Signals that end the run.
const SIGNALS: [i32; 3] = [SIGHUP, SIGINT, SIGTERM];

/// What an interrupt cleans up, and whether one came. Cloning shares it.
#[derive(Clone, Default)]
pub struct Interrupts(Arc<Shared>);

#[derive(Default)]
struct Shared {
    /// Raised by the signal handler itself, before our thread runs.
    received: Arc<AtomicBool>,
    /// Directories to remove on a signal.
    dirs: Mutex<Vec<PathBuf>>,
    /// Process groups (of running tests) to kill on a signal.
    groups: Mutex<Vec<i32>>,
    /// Directories moved aside, to move back on a signal: (where it is now, where it was).
    moved: Mutex<Vec<(PathBuf, PathBuf)>>,
}

impl std::fmt::Debug for Interrupts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Interrupts")
            .field("received", &self.0.received.load(Ordering::SeqCst))
            .finish_non_exhaustive()
    }
}

impl Interrupts {
    /// Catches SIGHUP, SIGINT and SIGTERM for the rest of the process. When the handlers
    /// cannot be installed, the run goes on unguarded: what it leaves is cleared by the next
    /// run.
    pub fn install() -> Interrupts {
        let interrupts = Interrupts::default();
        for signal in SIGNALS {
            // Raised inside the handler: a build or test killed by the same Ctrl-C may
            // end its wait before the thread below has run.
            let _ = signal_hook::flag::register(signal, Arc::clone(&interrupts.0.received));
        }
        let Ok(mut signals) = Signals::new(SIGNALS) else {
            return interrupts;
        };
        let shared = Arc::clone(&interrupts.0);
        let _ = std::thread::Builder::new()
            .name("autodebug-interrupt".into())
            .spawn(move || {
                if let Some(signal) = signals.forever().next() {
                    shared.stop(signal);
                }
            });
        interrupts
    }

    /// Removes `path` if the run is interrupted while the returned guard lives.
    pub fn cleanup(&self, path: PathBuf) -> Cleanup {
        lock(&self.0.dirs).push(path.clone());
        Cleanup {
            shared: Arc::clone(&self.0),
            path,
        }
    }

    /// Moves `aside` back to `to` (removing what is at `to`) if the run is interrupted
    /// before the returned guard is disarmed or dropped.
    pub fn restore(&self, aside: PathBuf, to: PathBuf) -> Restore {
        let pair = (aside, to);
        lock(&self.0.moved).push(pair.clone());
        Restore {
            shared: Arc::clone(&self.0),
            pair,
        }
    }

    /// Starts `command` (a test, in a process group of its own), whose group is killed if
    /// the run is interrupted while the returned guard lives. The list is held while the
    /// process starts: a signal that comes meanwhile finds it registered.
    /// Once a signal came, nothing starts: the interrupt thread may already have killed
    /// the groups it found, and a test started after would outlive the run.
    pub fn spawn(&self, command: &mut Command) -> std::io::Result<(Child, Group)> {
        let mut groups = lock(&self.0.groups);
        if self.0.received.load(Ordering::SeqCst) {
            return Err(std::io::Error::new(
                std::io::ErrorKind::Interrupted,
                "the run was interrupted",
            ));
        }
        let child = command.spawn()?;
        let pgid = child.id() as i32;
        groups.push(pgid);
        let group = Group {
            shared: Arc::clone(&self.0),
            pgid,
        };
        Ok((child, group))
    }

    /// Blocks for good once the run was interrupted: the interrupt thread is removing the
    /// scratch copy and ends the process with the signal's code. What made the run stop (a
    /// build or a test killed by the same Ctrl-C) must not end it first with its own code
    /// and message.
    pub fn wait_if_interrupted(&self) {
        if self.0.received.load(Ordering::SeqCst) {
            loop {
                std::thread::park();
            }
        }
    }
}

impl Shared {
    /// Kills the registered groups, removes the registered directories and exits.
    fn stop(&self, signal: i32) -> ! {
        // Held until the process ends: a test whose group was killed is not started
        // again by the thread that ran it while the directories are being removed.
        let groups = lock(&self.groups);
        for pgid in groups.iter() {
            crate::engine::kill_process_group(*pgid);
        }
        let dirs = lock(&self.dirs).clone();
        for path in dirs {
            let _ = std::fs::remove_dir_all(&path);
        }
        let moved = lock(&self.moved).clone();
        let mut restored = Vec::new();
        for (aside, to) in moved {
            if aside.exists() {
                let _ = std::fs::remove_dir_all(&to);
                if std::fs::rename(&aside, &to).is_ok() {
                    restored.push(crate::output_dir::display_path(&to));
                }
            }
        }
        if restored.is_empty() {
            eprintln!("interrupted: the scratch copy was removed");
        } else {
            eprintln!(
                "interrupted: the scratch copy was removed; {} holds the previous run's report again",
                restored.join(", ")
            );
        }
        std::process::exit(128 + signal);
    }
}

/// A directory removed if the run is interrupted while this guard lives.
pub struct Cleanup {
    shared: Arc<Shared>,
    path: PathBuf,
}

impl Drop for Cleanup {
    fn drop(&mut self) {
        remove(&self.shared.dirs, &self.path);
    }
}

/// A directory moved aside, moved back if the run is interrupted while this guard lives and
/// is armed.
pub struct Restore {
    shared: Arc<Shared>,
    pair: (PathBuf, PathBuf),
}

impl Restore {
    /// From now on an interrupt leaves things as they are (the run's own report is written).
    pub fn disarm(&self) {
        remove(&self.shared.moved, &self.pair);
    }
}

impl Drop for Restore {
    fn drop(&mut self) {
        self.disarm();
    }
}

/// A running test's process group, killed if the run is interrupted while this guard lives.
pub struct Group {
    shared: Arc<Shared>,
    pgid: i32,
}

impl Drop for Group {
    fn drop(&mut self) {
        remove(&self.shared.groups, &self.pgid);
    }
}

fn lock<T>(list: &Mutex<Vec<T>>) -> std::sync::MutexGuard<'_, Vec<T>> {
    list.lock().unwrap_or_else(|e| e.into_inner())
}

/// Takes `item` back (its guard was dropped).
fn remove<T: PartialEq>(list: &Mutex<Vec<T>>, item: &T) {
    let mut list = lock(list);
    if let Some(at) = list.iter().position(|x| x == item) {
        list.remove(at);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guards_register_while_they_live_and_are_taken_back_when_dropped() {
        let interrupts = Interrupts::default();
        let dir = interrupts.cleanup(PathBuf::from("/scratch/a"));
        let (mut child, group) = interrupts.spawn(&mut Command::new("true")).unwrap();
        let other = interrupts.clone();
        assert_eq!(*lock(&other.0.dirs), [PathBuf::from("/scratch/a")]);
        assert_eq!(*lock(&other.0.groups), [child.id() as i32]);
        child.wait().unwrap();
        drop(dir);
        drop(group);
        assert!(lock(&other.0.dirs).is_empty());
        assert!(lock(&other.0.groups).is_empty());
        // No signal came: waiting returns at once.
        other.wait_if_interrupted();
    }

    #[test]
    fn nothing_starts_once_a_signal_came() {
        let interrupts = Interrupts::default();
        interrupts.0.received.store(true, Ordering::SeqCst);
        let refused = interrupts.spawn(&mut Command::new("true"));
        assert!(refused.is_err_and(|e| e.kind() == std::io::ErrorKind::Interrupted));
        assert!(lock(&interrupts.0.groups).is_empty());
    }
}
