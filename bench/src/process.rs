//! Child processes with a wall-time limit: each runs in its own process group, so that on
//! timeout `cargo` and the test binaries it started are killed together.

use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

/// What a finished (or killed) child did.
#[derive(Debug)]
pub struct Finished {
    /// The exit code; `None` if killed (by the timeout or a signal).
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    /// Killed because it ran past the limit.
    pub timed_out: bool,
    pub elapsed: Duration,
}

/// Runs `cmd` to completion or until `limit`, capturing its output.
pub fn run(mut cmd: Command, limit: Duration) -> Result<Finished> {
    let dir = tempfile::tempdir()?;
    let out_path = dir.path().join("stdout");
    let err_path = dir.path().join("stderr");
    cmd.stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_path)?)
        .stderr(std::fs::File::create(&err_path)?)
        .process_group(0);
    let start = Instant::now();
    let mut child = cmd
        .spawn()
        .with_context(|| format!("cannot start {:?}", cmd.get_program()))?;
    let mut timed_out = false;
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if start.elapsed() >= limit {
            timed_out = true;
            kill_group(child.id());
            break child.wait()?;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let elapsed = start.elapsed();
    Ok(Finished {
        code: status.code(),
        stdout: String::from_utf8_lossy(&std::fs::read(&out_path)?).into_owned(),
        stderr: String::from_utf8_lossy(&std::fs::read(&err_path)?).into_owned(),
        timed_out,
        elapsed,
    })
}

/// Kills the process group led by `pid` (our own child, started with `process_group(0)`).
fn kill_group(pid: u32) {
    // std has no killpg; the `kill` utility takes a negative pid for a group.
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{pid}")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_and_exit_code_are_captured() {
        let mut c = Command::new("sh");
        c.args(["-c", "echo out; echo err >&2; exit 3"]);
        let f = run(c, Duration::from_secs(10)).unwrap();
        assert_eq!((f.code, f.timed_out), (Some(3), false));
        assert_eq!((f.stdout.as_str(), f.stderr.as_str()), ("out\n", "err\n"));
    }

    #[test]
    fn a_hung_child_and_its_children_are_killed() {
        let mut c = Command::new("sh");
        // The grandchild would keep the group alive if only `sh` were killed.
        c.args(["-c", "sleep 30 & sleep 30; echo never"]);
        let f = run(c, Duration::from_millis(300)).unwrap();
        assert!(f.timed_out);
        assert_eq!(f.code, None);
        assert!(f.elapsed < Duration::from_secs(5));
        assert!(!f.stdout.contains("never"));
    }
}
