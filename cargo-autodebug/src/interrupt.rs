//! Removing the scratch copy and stopping the tests when the run is interrupted (Ctrl-C,
//! `kill`, a closed terminal). A signal handler may do almost nothing, so it writes the
//! signal's number to a pipe; a thread waiting on the pipe kills the process groups of the
//! tests still running (each test runs in a group of its own, which a Ctrl-C at the
//! terminal does not reach), removes the registered directories and ends the process with
//! the shell's code for that signal (128 + its number). `kill -9` cannot be caught: the next
//! run clears what it left.

use std::io::Read;
use std::os::fd::AsRawFd;
use std::path::PathBuf;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Mutex, OnceLock};

/// Signals that end the run: SIGHUP, SIGINT, SIGTERM.
const SIGNALS: [i32; 3] = [1, 2, 15];

/// Write end of the pipe the handler writes to (-1 before installation).
static PIPE: AtomicI32 = AtomicI32::new(-1);

/// The signal received (0 before any).
static RECEIVED: AtomicI32 = AtomicI32::new(0);

/// Directories to remove on a signal.
static REGISTERED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Process groups (of running tests) to kill on a signal.
static GROUPS: Mutex<Vec<i32>> = Mutex::new(Vec::new());

/// Whether the handler was installed (once per process).
static INSTALLED: OnceLock<bool> = OnceLock::new();

/// A directory removed if the run is interrupted while this guard lives.
pub struct Cleanup {
    path: PathBuf,
}

impl Cleanup {
    /// Registers `path` (installing the handler on first use). When the handler cannot be
    /// installed, the directory is still removed by the next run.
    pub fn register(path: PathBuf) -> Cleanup {
        add(&REGISTERED, path.clone());
        Cleanup { path }
    }
}

impl Drop for Cleanup {
    fn drop(&mut self) {
        remove(&REGISTERED, &self.path);
    }
}

/// A running test's process group (its leader's pid), killed if the run is interrupted
/// while this guard lives.
pub struct Group {
    pgid: i32,
}

impl Group {
    /// Registers the group led by `pid` (installing the handler on first use).
    pub fn register(pid: u32) -> Group {
        let pgid = pid as i32;
        add(&GROUPS, pgid);
        Group { pgid }
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        remove(&GROUPS, &self.pgid);
    }
}

/// Adds `item` to what a signal handles (installing the handler on first use).
fn add<T>(list: &Mutex<Vec<T>>, item: T) {
    INSTALLED.get_or_init(install);
    list.lock().unwrap_or_else(|e| e.into_inner()).push(item);
}

/// Takes `item` back (its guard was dropped).
fn remove<T: PartialEq>(list: &Mutex<Vec<T>>, item: &T) {
    let mut list = list.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(at) = list.iter().position(|x| x == item) {
        list.remove(at);
    }
}

unsafe extern "C" {
    fn kill(pid: i32, sig: i32) -> i32;
    fn signal(signum: i32, handler: extern "C" fn(i32)) -> usize;
    fn write(fd: i32, buf: *const u8, count: usize) -> isize;
}

/// The handler: one byte down the pipe (write(2) is async-signal-safe).
extern "C" fn on_signal(signum: i32) {
    RECEIVED.store(signum, Ordering::SeqCst);
    let fd = PIPE.load(Ordering::SeqCst);
    if fd >= 0 {
        let byte = signum as u8;
        // SAFETY: writes one byte from a local to a descriptor this module keeps open.
        unsafe { write(fd, &byte, 1) };
    }
}

/// Blocks for good once the run was interrupted: the interrupt thread is removing the
/// scratch copy and ends the process with the signal's code. What made the run stop (a
/// build or a test killed by the same Ctrl-C) must not end it first with its own code and
/// message.
pub fn wait_if_interrupted() {
    if RECEIVED.load(Ordering::SeqCst) != 0 {
        loop {
            std::thread::park();
        }
    }
}

fn install() -> bool {
    let Ok((mut reader, writer)) = std::io::pipe() else {
        return false;
    };
    PIPE.store(writer.as_raw_fd(), Ordering::SeqCst);
    // The write end stays open for the life of the process.
    std::mem::forget(writer);
    let spawned = std::thread::Builder::new()
        .name("autodebug-interrupt".into())
        .spawn(move || {
            let mut byte = [0u8; 1];
            if reader.read_exact(&mut byte).is_ok() {
                for pgid in GROUPS.lock().unwrap_or_else(|e| e.into_inner()).iter() {
                    // SAFETY: signals a process group this run started (SIGKILL, 9).
                    unsafe { kill(-pgid, 9) };
                }
                let paths = REGISTERED.lock().unwrap_or_else(|e| e.into_inner()).clone();
                for path in paths {
                    let _ = std::fs::remove_dir_all(&path);
                }
                eprintln!("interrupted: the scratch copy was removed");
                std::process::exit(128 + i32::from(byte[0]));
            }
        });
    if spawned.is_err() {
        return false;
    }
    for signum in SIGNALS {
        // SAFETY: installs a handler that only calls write(2).
        unsafe { signal(signum, on_signal) };
    }
    true
}
