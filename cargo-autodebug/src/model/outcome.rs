//! What happened to one run of one test (the engine classifies it from the exit status and
//! output, in `engine::verdict`).

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
