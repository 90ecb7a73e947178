//! Oracles as the report holds them: what passing means for each failing test.

use autodebug_runtime::protocol::Value;
use serde::{Deserialize, Serialize};

/// An oracle as `report.json` holds it (`oracles[]`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Entry {
    /// The failing test (`target::name`).
    pub test: String,
    /// The failing call's function.
    pub function: Option<String>,
    /// Index of the failing call among the test's top-level calls.
    pub call: Option<usize>,
    /// `returns`, `no-panic` or `contract`; none when the oracle is not formed.
    #[serde(deserialize_with = "super::leak::maybe_word")]
    pub kind: Option<super::leak::Word>,
    /// The failing call's arguments.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<Arg>,
    /// The value it returned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub returned: Option<Value>,
    /// The value it should have returned.
    pub expected: Option<Value>,
    /// The value it should not have returned (a failing `assert_ne!`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub other_than: Option<Value>,
    /// The violated contract's condition.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contract: Option<String>,
    /// The message of the panic the call must not have (`no-panic`, `contract`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub panic: Option<String>,
    /// The oracle in a sentence.
    pub statement: String,
    pub confirmed: bool,
    pub reruns: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub later_failure: Option<String>,
    /// Why it is not confirmed, or not formed.
    pub why: Option<String>,
    /// The calls whose results the test accepted before the failing call.
    pub accepted_calls: Vec<AcceptedCall>,
    /// The calls the test made past the failing one, in a rerun that went on past failed
    /// assertions, each with its assertion's verdict: more passing and failing executions.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub later_calls: Vec<LaterCall>,
}

/// A call past the failing one (see [`Entry::later_calls`]).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LaterCall {
    #[serde(flatten)]
    pub call: AcceptedCall,
    /// Whether the assertion that checked it held.
    pub accepted: bool,
}

/// A call whose result the test accepted.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AcceptedCall {
    /// Index among the test's top-level calls.
    pub call: usize,
    pub function: String,
    /// The call as people write it (`triple(1)`).
    pub shown: String,
    pub args: Vec<Arg>,
    pub returned: Option<Value>,
}

/// A named argument value.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Arg {
    pub name: String,
    pub value: Value,
}

impl Entry {
    /// The oracle on one console line.
    pub fn line(&self) -> String {
        if self.kind.is_none() {
            return format!("none ({})", self.why.as_deref().unwrap_or("not formed"));
        }
        if self.confirmed {
            format!("{} (confirmed by a rerun)", self.statement)
        } else if let Some(later) = &self.later_failure {
            format!(
                "{} (necessary, not sufficient: the rerun then failed: {later})",
                self.statement
            )
        } else if self.expected.is_some() {
            format!("{} (not confirmed by a rerun)", self.statement)
        } else {
            self.statement.clone()
        }
    }
}
