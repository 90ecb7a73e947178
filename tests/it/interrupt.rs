//! `kill -9` at random moments of `cargo autodebug --apply`: every user file is afterwards
//! either as it was or fully patched, never anything else; what an apply killed mid-write
//! leaves beside the file is cleared by the next run.
//!
//! Half the trials kill at a random moment of the whole run, half at a random moment of
//! the apply itself (stretched by the `AUTODEBUG_TEST_APPLY_PAUSE_MS` hook, which pauses
//! with the new text written beside the file and the file untouched). The number of trials
//! is `AUTODEBUG_KILL_TRIALS` (default 8); the tally is printed (`--nocapture`).

use crate::common;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A small deterministic generator (xorshift), seeded from the clock and printed, so a
/// failing sequence can be replayed with `AUTODEBUG_KILL_SEED`.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

fn kill_group(pid: u32) {
    unsafe extern "C" {
        fn kill(pid: i32, sig: i32) -> i32;
    }
    // SAFETY: kill(2) on the process group the child leads (it was spawned with its own).
    unsafe {
        kill(-(pid as i32), 9);
    }
}

fn leftovers(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir.join("src"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".autodebug-") && n.ends_with(".tmp"))
        .collect()
}

fn apply_command(dir: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cargo-autodebug"));
    cmd.args(["autodebug", "--apply", "--target-dir"])
        .arg(common::shared_target_dir())
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env("AUTODEBUG_TEST_APPLY_PAUSE_MS", "300")
        .env_remove("GITHUB_ACTIONS")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    cmd
}

#[test]
fn kill_9_during_apply_leaves_each_file_whole() {
    let dir = common::fixture("repair-format");
    common::git_commit_all(dir.path());
    let lib = dir.path().join("src/lib.rs");
    let original = std::fs::read_to_string(&lib).unwrap();
    let patched = original.replace("r =   x ;", "r =   y ;");
    assert_ne!(original, patched);

    // One whole run: warms the build and gives the run's length.
    let start = Instant::now();
    let status = apply_command(dir.path()).status().unwrap();
    let whole = start.elapsed();
    assert_eq!(status.code(), Some(0), "a successful --apply exits 0");
    assert_eq!(std::fs::read_to_string(&lib).unwrap(), patched);
    std::fs::write(&lib, &original).unwrap();
    // A build in the tree writes a Cargo.lock (one in the tool's scratch copy does not):
    // committed, the tree is clean for the next `--apply`.
    let git = |args: &[&str]| {
        let status = Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@t"])
            .args(args)
            .current_dir(dir.path())
            .status()
            .unwrap();
        assert!(status.success(), "git {args:?}");
    };
    if dir.path().join("Cargo.lock").exists() {
        git(&["add", "Cargo.lock"]);
        git(&["commit", "-q", "-m", "lock"]);
    }

    let trials: usize = std::env::var("AUTODEBUG_KILL_TRIALS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(8);
    let seed = std::env::var("AUTODEBUG_KILL_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
                | 1
        });
    eprintln!("seed {seed} (AUTODEBUG_KILL_SEED replays it), whole run {whole:.1?}");
    let mut rng = Rng(seed);
    let (mut before, mut mid_write, mut after, mut corrupted) = (0, 0, 0, 0);
    for trial in 0..trials {
        // Without a report to apply, each trial runs the analysis before it writes.
        for own in ["autodebug.out", "autodebug.out.old"] {
            std::fs::remove_dir_all(dir.path().join(own)).ok();
        }
        let mut child = apply_command(dir.path()).spawn().unwrap();
        let pid = child.id();
        if trial % 2 == 0 {
            // Anywhere in the run.
            let at = Duration::from_millis(rng.below(whole.as_millis() as u64 + 500));
            std::thread::sleep(at);
        } else {
            // Inside the apply: after repair's last word, within the paused write.
            let stderr = child.stderr.take().unwrap();
            let mut lines = BufReader::new(stderr).lines();
            let seen = lines
                .by_ref()
                .map_while(Result::ok)
                .any(|l| l.contains("Validated"));
            assert!(seen, "trial {trial}: the run ended before validating a fix");
            std::thread::spawn(move || lines.for_each(drop));
            std::thread::sleep(Duration::from_millis(rng.below(450)));
        }
        kill_group(pid);
        child.wait().unwrap();
        let now = std::fs::read_to_string(&lib).unwrap();
        let litter = leftovers(dir.path());
        if now == patched {
            after += 1;
        } else if now == original {
            if litter.is_empty() {
                before += 1;
            } else {
                mid_write += 1;
            }
        } else {
            corrupted += 1;
            eprintln!("trial {trial}: src/lib.rs is neither the original nor the fix:\n{now}");
        }
        // Back to the committed text; what was left beside it stays for the next run.
        std::fs::write(&lib, &original).unwrap();
    }
    eprintln!(
        "kill -9 trials: {trials}: before the write {before}, mid-write {mid_write}, after \
         the rename {after}; corrupted files: {corrupted}"
    );
    assert_eq!(corrupted, 0);

    // A whole run after all that: leftovers of killed writes are gone, the fix is in.
    let output = apply_command(dir.path()).output().unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        common::describe(&output)
    );
    assert_eq!(std::fs::read_to_string(&lib).unwrap(), patched);
    assert!(
        leftovers(dir.path()).is_empty(),
        "{:?}",
        leftovers(dir.path())
    );
}
