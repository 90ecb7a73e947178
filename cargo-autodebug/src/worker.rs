//! Solver work in a child process. A [`Worker`] is a fork of the tool that answers
//! questions over a pipe: it starts with everything the tool holds (the lowered program,
//! the traces) without serializing any of it, runs under an address-space limit, and each
//! question has a time limit. A z3 query that goes past either ends the child, not the
//! tool: the technique that asked loses that site and says so in a note.
//!
//! The fork happens on the pipeline's thread between stages' parallel work: no other
//! thread of the tool is in the solver or the allocator's critical sections then (glibc
//! makes its allocator safe across `fork`), and the child prints nothing.

use std::io::{BufRead, BufReader, Write};
use std::marker::PhantomData;
use std::sync::mpsc;
use std::time::Duration;

use serde::Serialize;
use serde::de::DeserializeOwned;

/// The bounds of a worker.
#[derive(Debug, Clone, Copy)]
pub struct Bounds {
    /// Memory the child may add to what the tool had mapped when it forked, in MiB.
    pub memory_mb: u64,
    /// Time for one answer.
    pub time: Duration,
}

/// Why a worker gave no answer. It is gone after any of these.
#[derive(Debug, Clone, PartialEq)]
pub enum Ended {
    /// It went past its memory bound (MiB).
    Memory(u64),
    /// It took longer than its time limit to answer.
    Time(Duration),
    /// It ended otherwise (how).
    Crashed(String),
}

impl std::fmt::Display for Ended {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Ended::Memory(mb) => write!(f, "the solver went past its memory bound ({mb} MiB)"),
            Ended::Time(t) => write!(
                f,
                "the solver went past its time limit ({:.0} s)",
                t.as_secs_f64()
            ),
            Ended::Crashed(how) => write!(f, "the solver's process ended ({how})"),
        }
    }
}

/// A child process answering questions `Q` with answers `A`.
pub struct Worker<Q, A> {
    pid: libc::pid_t,
    questions: Option<std::io::PipeWriter>,
    answers: mpsc::Receiver<String>,
    bounds: Bounds,
    ended: Option<Ended>,
    /// The resident size of the tool when it forked (MiB).
    start_mb: u64,
    /// The largest resident size the child reached (MiB), known once it has ended.
    pub peak_mb: Option<u64>,
    _types: PhantomData<fn(Q) -> A>,
}

impl<Q: Serialize + DeserializeOwned, A: Serialize + DeserializeOwned> Worker<Q, A> {
    /// Forks a child that answers each question with `serve`, under `bounds`. `serve` runs
    /// in the child only, on the memory of the tool as it is now.
    pub fn start(bounds: Bounds, serve: impl FnMut(Q) -> A) -> std::io::Result<Worker<Q, A>> {
        let start_mb = resident_mb();
        let (question_reader, question_writer) = std::io::pipe()?;
        let (answer_reader, answer_writer) = std::io::pipe()?;
        // SAFETY: the child runs `child` and ends with `_exit`: it returns to no caller,
        // runs no destructor of the parent's values, and touches no lock another thread of
        // the parent may have held (it prints nothing; the allocator is made safe by libc).
        let pid = unsafe { libc::fork() };
        if pid < 0 {
            return Err(std::io::Error::last_os_error());
        }
        if pid == 0 {
            drop(question_writer);
            drop(answer_reader);
            child(bounds, question_reader, answer_writer, serve);
        }
        drop(question_reader);
        drop(answer_writer);
        // Answers are read on a thread of their own, so that waiting for one has a limit.
        let (send, answers) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(answer_reader);
            let mut line = String::new();
            while matches!(reader.read_line(&mut line), Ok(n) if n > 0) {
                if send.send(std::mem::take(&mut line)).is_err() {
                    break;
                }
            }
        });
        Ok(Worker {
            pid,
            questions: Some(question_writer),
            answers,
            bounds,
            ended: None,
            start_mb,
            peak_mb: None,
            _types: PhantomData,
        })
    }

    /// Asks `question` and waits for the answer, at most the time limit.
    pub fn ask(&mut self, question: &Q) -> Result<A, Ended> {
        if let Some(ended) = &self.ended {
            return Err(ended.clone());
        }
        let sent = self.questions.as_mut().is_some_and(|w| {
            let mut line = serde_json::to_string(question).expect("a question serializes");
            line.push('\n');
            w.write_all(line.as_bytes())
                .and_then(|()| w.flush())
                .is_ok()
        });
        let answer = if sent {
            self.answers.recv_timeout(self.bounds.time)
        } else {
            Err(mpsc::RecvTimeoutError::Disconnected)
        };
        match answer {
            Ok(line) => match serde_json::from_str(&line) {
                Ok(answer) => Ok(answer),
                Err(e) => Err(self.end(Ended::Crashed(format!("an unreadable answer: {e}")))),
            },
            Err(mpsc::RecvTimeoutError::Timeout) => Err(self.end(Ended::Time(self.bounds.time))),
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                let how = self.reap();
                Err(self.end(how))
            }
        }
    }

    /// Ends the child: the largest resident size it reached (MiB).
    pub fn finish(mut self) -> Option<u64> {
        if self.peak_mb.is_none() {
            self.end(Ended::Crashed("finished".into()));
        }
        self.peak_mb
    }

    /// Ends the child (if it is still there) and keeps why.
    fn end(&mut self, why: Ended) -> Ended {
        self.questions = None;
        if self.peak_mb.is_none() {
            // SAFETY: `pid` is this worker's child, not yet reaped.
            unsafe { libc::kill(self.pid, libc::SIGKILL) };
            self.reap();
        }
        self.ended = Some(why.clone());
        why
    }

    /// Waits for the child to end: how it ended, as far as the bound explains it.
    fn reap(&mut self) -> Ended {
        let mut status = 0;
        // SAFETY: an all-zero `rusage` is a valid value of the plain C struct.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: `pid` is this worker's child; the pointers are to live locals.
        let reaped = unsafe { libc::wait4(self.pid, &mut status, 0, &mut usage) };
        if reaped != self.pid {
            self.peak_mb = Some(0);
            return Ended::Crashed("it could not be waited for".into());
        }
        // `ru_maxrss` is in KiB on Linux.
        let peak = u64::try_from(usage.ru_maxrss).unwrap_or(0) / 1024;
        self.peak_mb = Some(peak);
        let how = if libc::WIFSIGNALED(status) {
            format!("signal {}", libc::WTERMSIG(status))
        } else {
            format!("exit status {}", libc::WEXITSTATUS(status))
        };
        // Grown by half its bound or more when it died: the bound ended it (an allocation
        // failed, and the allocator or z3 gave up).
        if peak.saturating_sub(self.start_mb) >= self.bounds.memory_mb / 2 {
            Ended::Memory(self.bounds.memory_mb)
        } else {
            Ended::Crashed(how)
        }
    }
}

impl<Q, A> Drop for Worker<Q, A> {
    fn drop(&mut self) {
        // Closing the questions ends a child that is waiting for one; one still working is
        // killed.
        self.questions = None;
        if self.peak_mb.is_none() {
            // SAFETY: `pid` is this worker's child, not yet reaped.
            unsafe {
                libc::kill(self.pid, libc::SIGKILL);
                libc::waitpid(self.pid, std::ptr::null_mut(), 0);
            }
        }
    }
}

/// The child: bounds itself, then answers until the questions end.
fn child<Q: DeserializeOwned, A: Serialize>(
    bounds: Bounds,
    questions: std::io::PipeReader,
    mut answers: std::io::PipeWriter,
    mut serve: impl FnMut(Q) -> A,
) -> ! {
    let limit = (address_space_mb() + bounds.memory_mb) << 20;
    let rlimit = libc::rlimit {
        rlim_cur: limit,
        rlim_max: limit,
    };
    // SAFETY: a plain system call on a valid struct.
    unsafe { libc::setrlimit(libc::RLIMIT_AS, &rlimit) };
    {
        use std::os::fd::AsRawFd;
        keep_only_fds([questions.as_raw_fd(), answers.as_raw_fd()]);
    }
    let mut reader = BufReader::new(questions);
    let mut line = String::new();
    let code = loop {
        line.clear();
        match reader.read_line(&mut line) {
            Ok(0) | Err(_) => break 0,
            Ok(_) => {}
        }
        let Ok(question) = serde_json::from_str::<Q>(&line) else {
            break 2;
        };
        let answered = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let answer = serve(question);
            let mut text = serde_json::to_string(&answer).expect("an answer serializes");
            text.push('\n');
            answers.write_all(text.as_bytes())
        }));
        match answered {
            Ok(Ok(())) => {}
            Ok(Err(_)) => break 3,
            Err(_) => break 101,
        }
    };
    // SAFETY: ends the child without running the parent's exit handlers or destructors.
    unsafe { libc::_exit(code) }
}

/// Closes every file descriptor of the child but `keep` and standard input and output, and
/// points standard error at `/dev/null`: the child holds none of the tool's files, locks
/// (a lock file's descriptor keeps its lock while any copy is open) or other workers' pipes,
/// and a panic in it prints nowhere. Only system calls: nothing here takes a lock another
/// thread of the parent may have held when it forked (setting a panic hook would).
fn keep_only_fds(mut keep: [std::os::fd::RawFd; 2]) {
    keep.sort_unstable();
    let mut from: libc::c_uint = 3;
    for fd in keep {
        let Ok(fd) = libc::c_uint::try_from(fd) else {
            continue;
        };
        if fd > from {
            // SAFETY: closes descriptors of this process only; none is used past here.
            unsafe { libc::close_range(from, fd - 1, 0) };
        }
        from = from.max(fd + 1);
    }
    // SAFETY: as above; then plain system calls on a path that is a C string.
    unsafe {
        libc::close_range(from, libc::c_uint::MAX, 0);
        let null = libc::open(c"/dev/null".as_ptr(), libc::O_WRONLY);
        if null >= 0 {
            libc::dup2(null, 2);
            libc::close(null);
        }
    }
}

/// The address space of this process, in MiB (`VmSize`).
fn address_space_mb() -> u64 {
    status_field("VmSize:")
}

/// The resident size of this process, in MiB (`VmRSS`).
fn resident_mb() -> u64 {
    status_field("VmRSS:")
}

fn status_field(name: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix(name))
                .and_then(|v| v.trim().trim_end_matches(" kB").trim().parse::<u64>().ok())
        })
        .map_or(0, |kb| kb / 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ROOMY: Bounds = Bounds {
        memory_mb: 512,
        time: Duration::from_secs(20),
    };

    #[test]
    fn a_worker_answers_from_the_memory_it_forked_with() {
        let table: Vec<u64> = (0..1000).map(|i| i * i).collect();
        let mut worker: Worker<usize, u64> = Worker::start(ROOMY, |i| table[i]).unwrap();
        assert_eq!(worker.ask(&12), Ok(144));
        assert_eq!(worker.ask(&999), Ok(998_001));
    }

    #[test]
    fn past_its_memory_bound_a_worker_ends_and_the_tool_goes_on() {
        let bounds = Bounds {
            memory_mb: 64,
            time: Duration::from_secs(20),
        };
        let mut worker: Worker<usize, usize> = Worker::start(bounds, |mb| {
            let mut kept: Vec<Vec<u8>> = Vec::new();
            for _ in 0..mb {
                kept.push(vec![1u8; 1 << 20]);
            }
            kept.iter().map(|v| v[0] as usize).sum()
        })
        .unwrap();
        assert_eq!(worker.ask(&8), Ok(8));
        assert_eq!(worker.ask(&4096), Err(Ended::Memory(64)));
        // Gone for good.
        assert_eq!(worker.ask(&1), Err(Ended::Memory(64)));
    }

    #[test]
    fn past_its_time_limit_a_worker_is_killed() {
        let bounds = Bounds {
            memory_mb: 64,
            time: Duration::from_millis(300),
        };
        let mut worker: Worker<u64, u64> = Worker::start(bounds, |ms| {
            std::thread::sleep(Duration::from_millis(ms));
            ms
        })
        .unwrap();
        assert_eq!(worker.ask(&1), Ok(1));
        assert_eq!(
            worker.ask(&60_000),
            Err(Ended::Time(Duration::from_millis(300)))
        );
    }
}
