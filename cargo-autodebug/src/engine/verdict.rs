//! Classifying one run of one test from its exit status, its output and the harness's
//! private result file.

use crate::model::{Location, Outcome};

/// What the test harness itself wrote about the test into its private result file
/// (`--logfile`), which the test's own output cannot reach: libtest writes `ok NAME`,
/// `failed NAME` or `ignored NAME`; libtest-mimic its usual `test NAME ... ok` lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Passed,
    Failed,
    Ignored,
    /// The file is there and empty: the harness reported nothing (the process ended first,
    /// or no test has that name).
    Nothing,
}

impl Verdict {
    /// The verdict on `test` in a harness's result file.
    pub fn read(log: &str, test: &str) -> Verdict {
        Verdict::entries(log)
            .find(|(name, _)| *name == test)
            .map_or(Verdict::Nothing, |(_, verdict)| verdict)
    }

    /// Every test a harness's result file judges, with its verdict. An entry is a verdict
    /// line and the lines that continue its message: libtest writes a `should_panic` test
    /// whose panic said something else as `failed: panic did not contain expected string`,
    /// then the two indented lines of the message, the test's name at the end of the last.
    pub fn entries(log: &str) -> impl Iterator<Item = (&str, Verdict)> {
        let mut lines = log.lines().map(str::trim_end).peekable();
        std::iter::from_fn(move || {
            loop {
                let first = lines.next()?;
                let mut last = None;
                while let Some(next) = lines.next_if(|l| !starts_entry(l)) {
                    last = Some(next);
                }
                if let Some(entry) = Verdict::of_entry(first, last) {
                    return Some(entry);
                }
            }
        })
    }

    /// The test an entry of a harness's result file judges, and its verdict, from the
    /// entry's first line and its last continuation line, if any.
    fn of_entry<'a>(first: &'a str, last: Option<&'a str>) -> Option<(&'a str, Verdict)> {
        if let Some(rest) = first.strip_prefix("test ") {
            let (name, result) = rest.rsplit_once(" ... ")?;
            let verdict = match result {
                "ok" => Verdict::Passed,
                "FAILED" => Verdict::Failed,
                r if r.starts_with("ignored") => Verdict::Ignored,
                _ => return None,
            };
            return Some((name.trim_end(), verdict));
        }
        // libtest: `RESULT[: MESSAGE] NAME` (`failed: test did not panic as expected at
        // src/lib.rs:6:28 tests::t`); a test's name has no space.
        let (result, name) = match last {
            None => first.rsplit_once(' ')?,
            Some(last) => (first, last.rsplit_once(' ')?.1),
        };
        let verdict = if result == "ok" {
            Verdict::Passed
        } else if result == "failed" || result.starts_with("failed:") {
            Verdict::Failed
        } else if result.starts_with("ignored") {
            Verdict::Ignored
        } else {
            return None;
        };
        Some((name, verdict))
    }
}

/// Whether a line of a harness's result file begins an entry (the lines that continue a
/// message are indented).
fn starts_entry(line: &str) -> bool {
    ["test ", "ok", "failed", "ignored", "bench"]
        .iter()
        .any(|word| line.starts_with(word))
}

/// A finished test process: its exit, its output (run with `--nocapture`, so the test's
/// panic message is on stderr), and the harness's verdict from the private result file
/// (none when the harness does not write one: then the verdict is read from stdout).
pub struct Finished<'a> {
    pub code: Option<i32>,
    pub signal: Option<i32>,
    pub stdout: &'a str,
    pub stderr: &'a str,
    pub verdict: Option<Verdict>,
    /// The test's name: its own thread carries it, and its panic is the failure.
    pub test: &'a str,
}

/// Classifies a finished test process. Whether it passed is taken from the harness's
/// verdict and the exit status, never from what the test printed: a test that prints
/// `test result: ok` and exits early is a crash, not a pass.
pub fn classify(run: &Finished) -> Outcome {
    if let Some(signal) = run.signal {
        let mut description = format!("killed by signal {signal} ({})", signal_name(signal));
        if run.stderr.contains("has overflowed its stack") {
            description = format!("stack overflow ({description})");
        }
        return Outcome::Crashed { description };
    }
    // Without a result file (a harness that does not write one), the summary line libtest
    // prints last on stdout is what there is.
    let verdict = run.verdict.unwrap_or_else(|| {
        if run.stdout.contains("test result: ok. 1 passed") {
            Verdict::Passed
        } else if run.stdout.contains("test result: FAILED") {
            Verdict::Failed
        } else if run.stdout.contains("test result: ok. 0 passed") {
            Verdict::Ignored
        } else {
            Verdict::Nothing
        }
    });
    // An exit the harness did not report on, with the panic it followed, if any.
    let crashed = |mut description: String| {
        if let Some((message, _)) = panic_message(run.stderr, run.test) {
            description.push_str(" after panicking: ");
            description.push_str(message.lines().next().unwrap_or_default());
        }
        Outcome::Crashed { description }
    };
    match (run.code, verdict) {
        (Some(0), Verdict::Passed) => Outcome::Passed,
        (Some(0), Verdict::Ignored) => Outcome::NotRun,
        // No verdict: no test ran (the harness says `running 0 tests` before any test code
        // runs), or the process ended inside the test.
        (Some(0), Verdict::Nothing) if first_running_line(run.stdout) == Some(0) => Outcome::NotRun,
        (Some(101), Verdict::Failed) => {
            let (message, location) = panic_message(run.stderr, run.test)
                .unwrap_or_else(|| ("test failed".to_string(), None));
            Outcome::Failed { message, location }
        }
        (Some(code), _) if code == autodebug_runtime::protocol::FUEL_EXIT_CODE => {
            Outcome::FuelExhausted
        }
        (Some(code), _) if code == autodebug_runtime::protocol::CONFIG_EXIT_CODE => {
            Outcome::Crashed {
                description: format!(
                    "the autodebug runtime refused its configuration: {}",
                    run.stderr
                        .lines()
                        .find(|l| l.starts_with("autodebug:"))
                        .unwrap_or("(no message)")
                ),
            }
        }
        (Some(code), Verdict::Nothing) => crashed(format!(
            "exited with status {code} before the test harness reported a result"
        )),
        (Some(code), _) => crashed(format!("exited with status {code}")),
        (None, _) => Outcome::Crashed {
            description: "ended without an exit status".to_string(),
        },
    }
}

/// N of the first `running N test(s)` line: what the harness announced before any test
/// code ran.
fn first_running_line(stdout: &str) -> Option<usize> {
    stdout
        .lines()
        .find_map(|l| l.strip_prefix("running ")?.split(' ').next()?.parse().ok())
}

/// A panic report as std's hook prints it: `thread 'NAME' (TID) panicked at FILE:L:C:`,
/// then the message, up to the `note:`/backtrace lines.
struct Panic<'a> {
    thread: &'a str,
    header: &'a str,
    message: String,
}

fn panics(stderr: &str) -> Vec<Panic<'_>> {
    let mut out = Vec::new();
    let mut rest = stderr;
    while let Some(at) = rest.find("panicked at ") {
        // The thread name is on the same line, before `panicked at`.
        let line_start = rest[..at].rfind('\n').map_or(0, |i| i + 1);
        let prefix = &rest[line_start..at];
        let thread = prefix
            .strip_prefix("thread '")
            .and_then(|p| p.split('\'').next())
            .unwrap_or("");
        let after = &rest[at + "panicked at ".len()..];
        let (header, body) = after.split_once('\n').unwrap_or((after, ""));
        let mut lines = Vec::new();
        for line in body.lines() {
            if line.starts_with("note: run with `RUST_BACKTRACE")
                || line.starts_with("stack backtrace:")
                || line.starts_with("thread '")
            {
                break;
            }
            lines.push(line);
        }
        while lines.last().is_some_and(|l| l.trim().is_empty()) {
            lines.pop();
        }
        out.push(Panic {
            thread,
            header: header.trim_end_matches(':'),
            message: lines.join("\n"),
        });
        rest = after;
    }
    out
}

/// The message and location of the test's failure in `stderr`: the last panic report of
/// the test's own thread (named after the test), so that text the test printed earlier,
/// however much it looks like a panic report, is not taken for it; else the last panic
/// of any thread. When another thread panicked first (a spawned worker whose panic the
/// test then unwrapped), its message is added.
pub fn panic_message(stderr: &str, test: &str) -> Option<(String, Option<Location>)> {
    let all = panics(stderr);
    let own = all.iter().rposition(|p| p.thread == test);
    let chosen = own.unwrap_or(all.len().checked_sub(1)?);
    let panic = &all[chosen];
    let mut message = panic.message.clone();
    // A joined thread's panic comes back as `Any { .. }`: its own report says what it was.
    let joined = own.is_some() && message.contains("Any { .. }");
    if let Some(other) = all[..chosen].iter().find(|p| joined && p.thread != test) {
        message.push_str(&format!(
            "\n(thread '{}' panicked first, at {}: {})",
            other.thread,
            other.header,
            other.message.lines().next().unwrap_or("")
        ));
    }
    Some((message, parse_location(panic.header)))
}

fn parse_location(text: &str) -> Option<Location> {
    let mut parts = text.rsplitn(3, ':');
    let column = parts.next()?.parse().ok()?;
    let line = parts.next()?.parse().ok()?;
    let file = parts.next()?.to_string();
    Some(Location { file, line, column })
}

fn signal_name(signal: i32) -> &'static str {
    match signal {
        4 => "SIGILL",
        6 => "SIGABRT: the process aborted",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL",
        11 => "SIGSEGV: a crash, or a stack overflow",
        15 => "SIGTERM",
        _ => "signal",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ASSERT_EQ: &str = "\nthread 'tests::sum_of_three' (4242) panicked at src/lib.rs:40:9:\nassertion `left == right` failed\n  left: 5\n right: 6\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n";

    const TEST: &str = "tests::sum_of_three";

    fn run<'a>(
        code: Option<i32>,
        signal: Option<i32>,
        stdout: &'a str,
        stderr: &'a str,
        log: Option<&str>,
    ) -> Outcome {
        classify(&Finished {
            code,
            signal,
            stdout,
            stderr,
            verdict: log.map(|log| Verdict::read(log, TEST)),
            test: TEST,
        })
    }

    #[test]
    fn failed_test_message_and_location() {
        for log in [Some("failed tests::sum_of_three\n"), None] {
            let outcome = run(
                Some(101),
                None,
                "test result: FAILED. 0 passed; 1 failed",
                ASSERT_EQ,
                log,
            );
            let Outcome::Failed { message, location } = outcome else {
                panic!("not a failure: {outcome:?}")
            };
            assert_eq!(
                message,
                "assertion `left == right` failed\n  left: 5\n right: 6"
            );
            assert_eq!(
                location,
                Some(Location {
                    file: "src/lib.rs".into(),
                    line: 40,
                    column: 9
                })
            );
        }
    }

    #[test]
    fn pass_needs_the_harness_to_say_so() {
        let ok = "test result: ok. 1 passed; 0 failed";
        assert_eq!(run(Some(0), None, ok, "", None), Outcome::Passed);
        assert_eq!(
            run(Some(0), None, "", "", Some("ok tests::sum_of_three\n")),
            Outcome::Passed
        );
        assert_eq!(
            run(
                Some(0),
                None,
                "test result: ok. 0 passed; 0 failed",
                "",
                None
            ),
            Outcome::NotRun
        );
        assert_eq!(
            run(Some(0), None, "", "", Some("ignored tests::sum_of_three\n")),
            Outcome::NotRun
        );
        assert_eq!(
            run(Some(0), None, "\nrunning 0 tests\n", "", Some("")),
            Outcome::NotRun
        );
        assert!(matches!(
            run(Some(0), None, "running 1 test\n", "", None),
            Outcome::Crashed { .. }
        ));
    }

    #[test]
    fn what_a_test_prints_cannot_make_it_pass() {
        // It prints the harness's summary and its own `ok` line, then exits early.
        let spoof = "\nrunning 1 test\ntest tests::sum_of_three ... ok\ntest result: ok. 1 passed; 0 failed\nok tests::sum_of_three\n";
        let outcome = run(Some(0), None, spoof, "", Some(""));
        let Outcome::Crashed { description } = outcome else {
            panic!("{outcome:?}")
        };
        assert!(description.contains("status 0 before the test harness reported"));
        // It prints a summary, then fails: the harness's verdict wins.
        let outcome = run(
            Some(101),
            None,
            spoof,
            ASSERT_EQ,
            Some("failed tests::sum_of_three\n"),
        );
        assert!(matches!(outcome, Outcome::Failed { .. }), "{outcome:?}");
        // Another test's line in the result file is not this test's.
        assert_eq!(
            Verdict::read("ok tests::sum_of_three_more\n", TEST),
            Verdict::Nothing
        );
        assert_eq!(
            Verdict::read("test tests::sum_of_three ... FAILED\n", TEST),
            Verdict::Failed
        );
        // A `should_panic` test that did not panic: libtest adds the message.
        assert_eq!(
            Verdict::read(
                "failed: test did not panic as expected at src/lib.rs:6:28 tests::sum_of_three",
                TEST
            ),
            Verdict::Failed
        );
        assert_eq!(
            Verdict::read("ignored, slow tests::sum_of_three\n", TEST),
            Verdict::Ignored
        );
    }

    #[test]
    fn a_verdict_whose_message_runs_over_lines_names_its_test_on_the_last() {
        // libtest's result file for a `should_panic(expected = ..)` test whose panic said
        // something else, between two one-line entries.
        let log = "ok tests::first\n\
                   failed: panic did not contain expected string\n      \
                   panic message: \"attempt to add with overflow\"\n \
                   expected substring: \"capacity overflow\" tests::sum_of_three\n\
                   failed: test did not panic as expected at t.rs:6:4 tests::last\n";
        let entries: Vec<_> = Verdict::entries(log).collect();
        assert_eq!(
            entries,
            [
                ("tests::first", Verdict::Passed),
                ("tests::sum_of_three", Verdict::Failed),
                ("tests::last", Verdict::Failed),
            ]
        );
        let outcome = run(Some(101), None, "", ASSERT_EQ, Some(log));
        assert!(matches!(outcome, Outcome::Failed { .. }), "{outcome:?}");
    }

    #[test]
    fn the_failure_is_the_test_threads_last_panic() {
        // The test printed a fake report first; the real one is its own thread's.
        let stderr = format!("thread 'main' panicked at fake.rs:1:1:\nfake\n{ASSERT_EQ}");
        let (message, location) = panic_message(&stderr, TEST).unwrap();
        assert!(message.starts_with("assertion"), "{message}");
        assert_eq!(location.unwrap().file, "src/lib.rs");
        // A worker panicked and the test unwrapped the join: both are said.
        let stderr = "thread '<unnamed>' (7) panicked at src/lib.rs:4:60:\nin a thread\nnote: run with `RUST_BACKTRACE=1`\n\
                      thread 'tests::sum_of_three' (6) panicked at src/lib.rs:4:93:\ncalled `Result::unwrap()` on an `Err` value: Any { .. }\n";
        let (message, location) = panic_message(stderr, TEST).unwrap();
        assert_eq!(location.unwrap().column, 93);
        assert!(
            message.contains("thread '<unnamed>' panicked first, at src/lib.rs:4:60: in a thread"),
            "{message}"
        );
    }

    #[test]
    fn signals_fuel_and_odd_statuses() {
        assert!(
            matches!(run(None, Some(6), "", "", None), Outcome::Crashed { description } if description.contains("SIGABRT"))
        );
        let overflow = "\nthread 'tests::sum_of_three' has overflowed its stack\nfatal runtime error: stack overflow\n";
        assert!(
            matches!(run(None, Some(6), "", overflow, Some("")), Outcome::Crashed { description } if description.starts_with("stack overflow"))
        );
        assert_eq!(
            run(Some(86), None, "", "", Some("")),
            Outcome::FuelExhausted
        );
        assert!(
            matches!(run(Some(3), None, "", "", Some("")), Outcome::Crashed { description } if description.contains("status 3"))
        );
    }

    #[test]
    fn windows_style_path_with_colons_in_file() {
        let (_, location) =
            panic_message("thread 'x' panicked at C:\\src\\lib.rs:3:4:\nboom\n", "x").unwrap();
        assert_eq!(location.unwrap().file, "C:\\src\\lib.rs");
    }
}
