//! What happened to one run of one test, classified from its exit status and output.

use serde::{Deserialize, Serialize};

/// The outcome of running one test once.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "kebab-case")]
pub enum Outcome {
    /// The test passed.
    Passed,
    /// The test failed (a panic or an assertion); `message` is the panic message.
    Failed {
        message: String,
        location: Option<Location>,
    },
    /// The test was killed at the timeout.
    Timeout { seconds: f64 },
    /// The process died without libtest reporting a result: a signal, an abort, a stack
    /// overflow, or an exit status libtest never uses.
    Crashed { description: String },
    /// The run's plan ran out of fuel (a runaway loop under a flip).
    FuelExhausted,
    /// libtest ran no test of that name (it is ignored, or the name is stale).
    NotRun,
}

/// Where a panic happened, as the panic message says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Location {
    pub file: String,
    pub line: u32,
    pub column: u32,
}

impl Outcome {
    /// Whether the test passed.
    pub fn passed(&self) -> bool {
        matches!(self, Outcome::Passed)
    }

    /// A short word for tables and summaries.
    pub fn label(&self) -> &'static str {
        match self {
            Outcome::Passed => "passed",
            Outcome::Failed { .. } => "failed",
            Outcome::Timeout { .. } => "timeout",
            Outcome::Crashed { .. } => "crashed",
            Outcome::FuelExhausted => "fuel-exhausted",
            Outcome::NotRun => "not-run",
        }
    }

    /// Whether two failing outcomes are the same kind of failure (for the flakiness check).
    pub fn same_kind(&self, other: &Outcome) -> bool {
        std::mem::discriminant(self) == std::mem::discriminant(other)
    }

    /// One line saying what happened, for people.
    pub fn describe(&self) -> String {
        match self {
            Outcome::Passed => "passed".to_string(),
            Outcome::Failed { message, .. } => {
                message.lines().next().unwrap_or("panicked").to_string()
            }
            Outcome::Timeout { seconds } => format!("did not finish within {seconds:.1}s (hangs?)"),
            Outcome::Crashed { description } => description.clone(),
            Outcome::FuelExhausted => {
                "ran out of fuel under the plan (a loop ran away)".to_string()
            }
            Outcome::NotRun => "was not run by the test harness".to_string(),
        }
    }
}

/// Classifies a finished test process. `code` is the exit status, `signal` the terminating
/// signal, `stdout`/`stderr` its output (run with `--nocapture`, so the panic message of the
/// test is on stderr).
pub fn classify(code: Option<i32>, signal: Option<i32>, stdout: &str, stderr: &str) -> Outcome {
    if let Some(signal) = signal {
        return Outcome::Crashed {
            description: format!("killed by signal {signal} ({})", signal_name(signal)),
        };
    }
    match code {
        Some(0) if stdout.contains("test result: ok. 1 passed") => Outcome::Passed,
        Some(0) if stdout.contains("test result: ok. 0 passed") => Outcome::NotRun,
        Some(0) => Outcome::Crashed {
            description: "exited with status 0 before the test harness reported a result"
                .to_string(),
        },
        Some(101) if stdout.contains("test result: FAILED") => {
            let (message, location) =
                panic_message(stderr).unwrap_or_else(|| ("test failed".to_string(), None));
            Outcome::Failed { message, location }
        }
        Some(code) if code == autodebug_runtime::protocol::FUEL_EXIT_CODE => Outcome::FuelExhausted,
        Some(code) if code == autodebug_runtime::protocol::CONFIG_EXIT_CODE => Outcome::Crashed {
            description: format!(
                "the autodebug runtime refused its configuration: {}",
                stderr
                    .lines()
                    .find(|l| l.starts_with("autodebug:"))
                    .unwrap_or("(no message)")
            ),
        },
        Some(code) => {
            let mut description = format!("exited with status {code}");
            if let Some((message, _)) = panic_message(stderr) {
                description.push_str(" after panicking: ");
                description.push_str(message.lines().next().unwrap_or_default());
            }
            Outcome::Crashed { description }
        }
        None => Outcome::Crashed {
            description: "ended without an exit status".to_string(),
        },
    }
}

/// The message and location of the first panic in `stderr`, as std's panic hook prints it:
/// `thread '…' panicked at FILE:LINE:COL:\nMESSAGE\nnote: …`.
pub fn panic_message(stderr: &str) -> Option<(String, Option<Location>)> {
    let start = stderr.find("panicked at ")?;
    let rest = &stderr[start + "panicked at ".len()..];
    let (header, body) = rest.split_once('\n').unwrap_or((rest, ""));
    let location = parse_location(header.trim_end_matches(':'));
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
    Some((lines.join("\n"), location))
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

    const ASSERT_EQ: &str = "\nthread 'tests::sum_of_three' panicked at src/lib.rs:40:9:\nassertion `left == right` failed\n  left: 5\n right: 6\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n";

    #[test]
    fn failed_test_message_and_location() {
        let outcome = classify(
            Some(101),
            None,
            "test result: FAILED. 0 passed; 1 failed",
            ASSERT_EQ,
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

    #[test]
    fn pass_needs_the_harness_to_say_so() {
        assert_eq!(
            classify(Some(0), None, "test result: ok. 1 passed; 0 failed", ""),
            Outcome::Passed
        );
        assert_eq!(
            classify(Some(0), None, "test result: ok. 0 passed; 0 failed", ""),
            Outcome::NotRun
        );
        assert!(matches!(
            classify(Some(0), None, "running 1 test\n", ""),
            Outcome::Crashed { .. }
        ));
    }

    #[test]
    fn signals_fuel_and_odd_statuses() {
        assert!(
            matches!(classify(None, Some(6), "", ""), Outcome::Crashed { description } if description.contains("SIGABRT"))
        );
        assert_eq!(classify(Some(86), None, "", ""), Outcome::FuelExhausted);
        assert!(
            matches!(classify(Some(3), None, "", ""), Outcome::Crashed { description } if description.contains("status 3"))
        );
    }

    #[test]
    fn windows_style_path_with_colons_in_file() {
        let (_, location) =
            panic_message("thread 'x' panicked at C:\\src\\lib.rs:3:4:\nboom\n").unwrap();
        assert_eq!(location.unwrap().file, "C:\\src\\lib.rs");
    }
}
