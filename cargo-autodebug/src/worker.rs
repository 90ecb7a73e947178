//! Solver work in a child process. A [`Worker`] is a fork of the tool that answers
//! questions over a pipe: it starts with everything the tool holds (the lowered program,
//! the traces) without serializing any of it, runs under an address-space limit, and each
//! answer has a time limit. A z3 query that goes past either ends the child, not the
//! tool: the technique that asked loses that site or test and says so in a note.
//!
//! A conversing worker ([`Worker::start_conversing`]) may ask the tool questions of its own
//! while it serves one (path generation's search reruns tests, which only the tool can do):
//! the child keeps its solver state across them, and the tool's time answering does not
//! count against the child's limit.
//!
//! The fork happens on the pipeline's thread between stages' parallel work: no other
//! thread of the tool is in the solver or the allocator's critical sections then (glibc
//! makes its allocator safe across `fork`), and the child prints nothing. The child dies
//! with the thread that started it (and so with the tool, however it ends: an interrupt,
//! `kill -9`), and on the signals that end the tool: a worker never outlives the run.

use std::io::{BufRead, BufReader, Write};
use std::marker::PhantomData;
use std::sync::mpsc;
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// What is left of a solver-bound job's budget when one of its parts (a test's search, a
/// site's synthesizer) starts: the solver steps, which decide and are the same on every
/// machine, and the time net kept for what steps do not count.
#[derive(Debug, Clone, Copy)]
pub struct Left {
    pub steps: u64,
    pub time: Duration,
}

/// The bounds of a worker.
#[derive(Debug, Clone, Copy)]
pub struct Bounds {
    /// Memory the child may add to what the tool had mapped when it forked, in MiB.
    pub memory_mb: u64,
    /// Time for one answer (for a conversing worker: for each of its messages, the tool's
    /// time replying to it not counted).
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

/// A child process answering questions `Q` with answers `A`; while it serves one, a
/// conversing child asks the tool requests `R`, which the tool replies to with `S`.
pub struct Worker<Q, A, R = (), S = ()> {
    pid: libc::pid_t,
    questions: Option<std::io::PipeWriter>,
    answers: mpsc::Receiver<String>,
    bounds: Bounds,
    ended: Option<Ended>,
    /// The resident size of the tool when it forked (MiB).
    start_mb: u64,
    /// The largest resident size the child reached (MiB), known once it has ended.
    pub peak_mb: Option<u64>,
    _types: PhantomData<Exchange<Q, A, R, S>>,
}

/// What goes each way between the tool and a worker: questions and replies to it, answers
/// and requests from it.
type Exchange<Q, A, R, S> = fn(Q, S) -> (A, R);

/// What a child says: a request of the tool, or the answer to the question it serves.
#[derive(Serialize, Deserialize)]
enum Said<R, A> {
    Asks(R),
    Answers(A),
}

impl<Q: Serialize + DeserializeOwned, A: Serialize + DeserializeOwned> Worker<Q, A> {
    /// Forks a child that answers each question with `serve`, under `bounds`. `serve` runs
    /// in the child only, on the memory of the tool as it is now.
    pub fn start(bounds: Bounds, mut serve: impl FnMut(Q) -> A) -> std::io::Result<Worker<Q, A>> {
        Worker::start_conversing(bounds, move |question, _: &mut Parent<(), ()>| {
            serve(question)
        })
    }

    /// Asks `question` and waits for the answer, at most the time limit.
    pub fn ask(&mut self, question: &Q) -> Result<A, Ended> {
        self.converse(question, |()| ())
    }
}

impl<Q, A, R, S> Worker<Q, A, R, S>
where
    Q: Serialize + DeserializeOwned,
    A: Serialize + DeserializeOwned,
    R: Serialize + DeserializeOwned,
    S: Serialize + DeserializeOwned,
{
    /// Forks a child that answers each question with `serve`, under `bounds`; `serve` may
    /// ask the tool requests through its [`Parent`] and gets the replies the tool's
    /// [`Worker::converse`] gives. `serve` runs in the child only, on the memory of the
    /// tool as it is now. The child is killed when the calling thread ends: the worker
    /// belongs to that thread.
    pub fn start_conversing(
        bounds: Bounds,
        serve: impl FnMut(Q, &mut Parent<R, S>) -> A,
    ) -> std::io::Result<Worker<Q, A, R, S>> {
        let start_mb = resident_mb();
        // SAFETY: a plain system call.
        let tool = unsafe { libc::getpid() };
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
            child(bounds, tool, question_reader, answer_writer, serve);
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

    /// Asks `question` and waits for the answer, replying to each request the child makes
    /// meanwhile with `reply`. Each message of the child has the time limit.
    pub fn converse(&mut self, question: &Q, mut reply: impl FnMut(R) -> S) -> Result<A, Ended> {
        if let Some(ended) = &self.ended {
            return Err(ended.clone());
        }
        self.send(question)?;
        loop {
            match self.receive()? {
                Said::Answers(answer) => return Ok(answer),
                Said::Asks(request) => {
                    let replied = reply(request);
                    self.send(&replied)?;
                }
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

    /// Writes `message` to the child, as one line.
    fn send(&mut self, message: &impl Serialize) -> Result<(), Ended> {
        let sent = self.questions.as_mut().is_some_and(|w| {
            let mut line = serde_json::to_string(message).expect("a message serializes");
            line.push('\n');
            w.write_all(line.as_bytes())
                .and_then(|()| w.flush())
                .is_ok()
        });
        if sent {
            Ok(())
        } else {
            let how = self.reap();
            Err(self.end(how))
        }
    }

    /// The child's next message, waited for at most the time limit.
    fn receive(&mut self) -> Result<Said<R, A>, Ended> {
        match self.answers.recv_timeout(self.bounds.time) {
            Ok(line) => serde_json::from_str(&line)
                .map_err(|e| self.end(Ended::Crashed(format!("an unreadable answer: {e}")))),
            Err(mpsc::RecvTimeoutError::Timeout) => Err(self.end(Ended::Time(self.bounds.time))),
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                let how = self.reap();
                Err(self.end(how))
            }
        }
    }
}

impl<Q, A, R, S> Worker<Q, A, R, S> {
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
        // Grown by half its bound or more when it died, or aborted (what an allocation that
        // fails ends in, from Rust's allocator or z3's): the bound ended it.
        let aborted = libc::WIFSIGNALED(status) && libc::WTERMSIG(status) == libc::SIGABRT;
        if aborted || peak.saturating_sub(self.start_mb) >= self.bounds.memory_mb / 2 {
            Ended::Memory(self.bounds.memory_mb)
        } else {
            Ended::Crashed(how)
        }
    }
}

impl<Q, A, R, S> Drop for Worker<Q, A, R, S> {
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

/// The child's side of a conversation with the tool, handed to `serve` with each question.
pub struct Parent<'c, R, S> {
    questions: &'c mut BufReader<std::io::PipeReader>,
    answers: &'c mut std::io::PipeWriter,
    _types: PhantomData<fn(R) -> S>,
}

impl<R: Serialize, S: DeserializeOwned> Parent<'_, R, S> {
    /// Asks the tool `request` and waits for its reply. A tool that is gone or replies
    /// what cannot be read ends the child.
    pub fn ask(&mut self, request: R) -> S {
        let mut line =
            serde_json::to_string(&Said::<R, ()>::Asks(request)).expect("a request serializes");
        line.push('\n');
        if self.answers.write_all(line.as_bytes()).is_err() {
            // SAFETY: ends the child as `child` does.
            unsafe { libc::_exit(3) }
        }
        line.clear();
        match self.questions.read_line(&mut line) {
            Ok(n) if n > 0 => {}
            // SAFETY: as above.
            _ => unsafe { libc::_exit(0) },
        }
        match serde_json::from_str(&line) {
            Ok(reply) => reply,
            // SAFETY: as above.
            Err(_) => unsafe { libc::_exit(2) },
        }
    }
}

/// The child: bounds itself, then answers until the questions end. `tool` is the parent's
/// process id.
fn child<Q: DeserializeOwned, A: Serialize, R: Serialize, S: DeserializeOwned>(
    bounds: Bounds,
    tool: libc::pid_t,
    questions: std::io::PipeReader,
    mut answers: std::io::PipeWriter,
    mut serve: impl FnMut(Q, &mut Parent<R, S>) -> A,
) -> ! {
    let limit = (address_space_mb() + bounds.memory_mb) << 20;
    let rlimit = libc::rlimit {
        rlim_cur: limit,
        rlim_max: limit,
    };
    // SAFETY: a plain system call on a valid struct.
    unsafe { libc::setrlimit(libc::RLIMIT_AS, &rlimit) };
    // Large blocks are mapped on their own, so that the bound is met by the allocation
    // that crosses it and not by an arena's reservation long before (the threshold the
    // parent's frees may have raised is set back and kept).
    // SAFETY: a plain call of the C allocator, on the one thread of the child.
    unsafe { libc::mallopt(libc::M_MMAP_THRESHOLD, 128 << 10) };
    die_with_the_tool(tool);
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
            let mut parent = Parent {
                questions: &mut reader,
                answers: &mut answers,
                _types: PhantomData,
            };
            let answer = serve(question, &mut parent);
            let mut text = serde_json::to_string(&Said::<(), A>::Answers(answer))
                .expect("an answer serializes");
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

/// Makes the child end with the tool: killed when the thread that forked it ends (the
/// tool's exit, an interrupt, `kill -9`: the kernel sends the signal), and ended by the
/// signals that end the tool, whose handlers (the tool's) it inherited. Only system calls.
fn die_with_the_tool(tool: libc::pid_t) {
    // SAFETY: plain system calls; `SIG_DFL` is a valid disposition.
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
        // The tool may have ended before the line above: then nothing would signal us.
        if libc::getppid() != tool {
            libc::_exit(0);
        }
        for signal in [libc::SIGHUP, libc::SIGINT, libc::SIGTERM] {
            libc::signal(signal, libc::SIG_DFL);
        }
    }
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

    #[test]
    fn a_conversing_worker_asks_the_tool_and_keeps_its_state_across_replies() {
        // The child sums the squares the tool computes for it; its running total stays in
        // the child from question to question.
        let mut total = 0u64;
        let mut worker: Worker<u64, u64, u64, u64> =
            Worker::start_conversing(ROOMY, move |n, tool: &mut Parent<u64, u64>| {
                for i in 1..=n {
                    total += tool.ask(i);
                }
                total
            })
            .unwrap();
        let mut asked = Vec::new();
        let mut square = |i: u64| {
            asked.push(i);
            i * i
        };
        assert_eq!(worker.converse(&3, &mut square), Ok(14));
        assert_eq!(worker.converse(&2, &mut square), Ok(19));
        assert_eq!(asked, [1, 2, 3, 1, 2]);
    }

    #[test]
    fn the_time_the_tool_takes_to_reply_is_not_the_childs() {
        let bounds = Bounds {
            memory_mb: 64,
            time: Duration::from_millis(300),
        };
        let mut worker: Worker<u64, u64, u64, u64> =
            Worker::start_conversing(bounds, |n, tool: &mut Parent<u64, u64>| {
                (0..n).map(|i| tool.ask(i)).sum()
            })
            .unwrap();
        let slow = |i: u64| {
            std::thread::sleep(Duration::from_millis(200));
            i
        };
        assert_eq!(worker.converse(&3, slow), Ok(3));
    }

    #[test]
    fn a_worker_dies_with_the_thread_that_started_it() {
        // The tool's end (its exit, an interrupt, `kill -9`) ends the thread that started
        // its workers; one left behind, busy, is killed by the kernel then.
        let pid = std::thread::spawn(|| {
            let mut worker: Worker<u64, u64> = Worker::start(ROOMY, |ms| {
                std::thread::sleep(Duration::from_millis(ms));
                ms
            })
            .unwrap();
            assert_eq!(worker.ask(&1), Ok(1));
            // Busy for a minute, and never ended by the tool.
            let line = "60000\n";
            worker
                .questions
                .as_mut()
                .unwrap()
                .write_all(line.as_bytes())
                .unwrap();
            let pid = worker.pid;
            std::mem::forget(worker);
            pid
        })
        .join()
        .unwrap();
        let began = std::time::Instant::now();
        let mut status = 0;
        let ended = loop {
            // SAFETY: `pid` is a child of this process that nothing else waits for.
            if unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) } == pid {
                break true;
            }
            if began.elapsed() > Duration::from_secs(20) {
                // SAFETY: as above; the test failed, and leaves nothing behind.
                unsafe {
                    libc::kill(pid, libc::SIGKILL);
                    libc::waitpid(pid, std::ptr::null_mut(), 0);
                }
                break false;
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        assert!(ended, "the worker outlived the thread that started it");
        assert!(libc::WIFSIGNALED(status), "{status}");
        assert_eq!(libc::WTERMSIG(status), libc::SIGKILL);
    }
}
