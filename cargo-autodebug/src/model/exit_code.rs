//! The exit codes of `cargo autodebug`: stable, documented in the book (`book/src/using.md`), one doc line each.

/// How a run of `cargo autodebug` ended. When several apply, the most severe wins, in this
/// order: [`ExitCode::Crashed`], [`ExitCode::Timeout`], [`ExitCode::FuelExhausted`],
/// [`ExitCode::TestsFailed`], [`ExitCode::Flaky`]: that is the one order exit codes have
/// (`Ord`), so `a.max(b)` and `std::cmp::max(a, b)` are the more severe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExitCode {
    /// Every selected test passed: nothing to debug.
    Clean = 0,
    /// The tool itself failed (I/O error, unexpected cargo output): a bug or an environment problem.
    Software = 1,
    /// Bad command line, manifest not found, unreadable plan or configuration.
    Usage = 2,
    /// The crate (or its tests) does not compile; the compiler's errors were shown.
    BuildFailed = 3,
    /// No test matched the selection.
    NoTests = 4,
    /// Some tests fail deterministically; they were diagnosed and the report written.
    TestsFailed = 5,
    /// A test hung: it was killed at the per-test timeout.
    Timeout = 6,
    /// A test aborted the process (signal, `abort`, stack overflow, unexpected exit status).
    Crashed = 7,
    /// Failures occurred but none reproduced on rerun: the failing tests are flaky.
    Flaky = 8,
    /// A run under a plan exhausted its fuel (a loop ran away).
    FuelExhausted = 9,
}

impl ExitCode {
    /// Severity used to combine exit codes: higher wins.
    fn severity(self) -> u8 {
        match self {
            ExitCode::Clean => 0,
            ExitCode::Flaky => 1,
            ExitCode::TestsFailed => 2,
            ExitCode::FuelExhausted => 3,
            ExitCode::Timeout => 4,
            ExitCode::Crashed => 5,
            ExitCode::NoTests => 6,
            ExitCode::BuildFailed => 7,
            ExitCode::Usage => 8,
            ExitCode::Software => 9,
        }
    }

    /// The numeric status.
    pub fn code(self) -> i32 {
        self as i32
    }
}

impl Ord for ExitCode {
    fn cmp(&self, other: &ExitCode) -> std::cmp::Ordering {
        self.severity().cmp(&other.severity())
    }
}

impl PartialOrd for ExitCode {
    fn partial_cmp(&self, other: &ExitCode) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// An error that ends the run, with the exit code it deserves.
pub struct Failure {
    pub error: anyhow::Error,
    pub code: ExitCode,
}

/// Gives an error the exit code it ends the run with.
pub trait OrExit<T> {
    fn or_exit(self, code: ExitCode) -> Result<T, Failure>;
}

impl<T> OrExit<T> for anyhow::Result<T> {
    fn or_exit(self, code: ExitCode) -> Result<T, Failure> {
        self.map_err(|error| Failure { error, code })
    }
}

#[cfg(test)]
mod tests {
    use super::ExitCode;

    #[test]
    fn most_severe_wins() {
        assert_eq!(
            ExitCode::TestsFailed.max(ExitCode::Timeout),
            ExitCode::Timeout
        );
        assert_eq!(ExitCode::Crashed.max(ExitCode::Timeout), ExitCode::Crashed);
        assert_eq!(
            ExitCode::Flaky.max(ExitCode::TestsFailed),
            ExitCode::TestsFailed
        );
        assert_eq!(ExitCode::Clean.max(ExitCode::Flaky), ExitCode::Flaky);
        assert_eq!(
            ExitCode::FuelExhausted.max(ExitCode::TestsFailed),
            ExitCode::FuelExhausted
        );
        // One order: std's max, a sort and a comparison agree with it.
        assert_eq!(
            std::cmp::max(ExitCode::Flaky, ExitCode::Timeout),
            ExitCode::Timeout
        );
        let mut codes = vec![ExitCode::Crashed, ExitCode::Clean, ExitCode::Flaky];
        codes.sort();
        assert_eq!(codes, [ExitCode::Clean, ExitCode::Flaky, ExitCode::Crashed]);
        assert!(ExitCode::TestsFailed < ExitCode::Timeout);
    }

    #[test]
    fn codes_are_stable() {
        let codes: Vec<i32> = [
            ExitCode::Clean,
            ExitCode::Software,
            ExitCode::Usage,
            ExitCode::BuildFailed,
            ExitCode::NoTests,
            ExitCode::TestsFailed,
            ExitCode::Timeout,
            ExitCode::Crashed,
            ExitCode::Flaky,
            ExitCode::FuelExhausted,
        ]
        .iter()
        .map(|c| c.code())
        .collect();
        assert_eq!(codes, (0..=9).collect::<Vec<_>>());
    }
}
