//! Traces as the report lists them.

use serde::{Deserialize, Serialize};

/// Why a trace was recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Role {
    /// The trace of a failing test.
    Failing,
    /// The trace of a passing test that reaches sites the failing tests reach.
    Passing,
}

/// What the report says of a recorded trace.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TraceSummary {
    pub test: String,
    pub role: Role,
    /// Path of the stored trace, relative to the output directory.
    pub path: String,
    pub outcome: String,
    pub sites: usize,
    pub events: usize,
    pub truncated: bool,
    pub complete: bool,
}
