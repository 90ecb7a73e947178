//! The oracle stage's calls as the symbolic engine encodes them: the failing call with the
//! specification its oracle gives, the calls the test accepted, and passing tests' calls of
//! the same file. Shared by the diagnosis technique and repair synthesis.

use autodebug_symbolic::conflicts::Role;
use autodebug_symbolic::encode::{self, CallTrace, Concrete, Expected, Spec};

use super::{Call, End, Expectation, Oracle, top_level_calls};
use crate::model::Role as TraceRole;
use crate::trace::{RawTrace, RecordedTrace};

impl Oracle {
    /// What the failing call must satisfy: contracts, no panic, and the expected value
    /// only when a rerun confirmed it (the test may compare something computed from the
    /// call).
    pub fn spec(&self) -> Spec {
        let trusted = self.confirmed || self.later_failure.is_some();
        let ret = match &self.expectation {
            Some(Expectation::Returns(v)) if trusted => Expected::Value(Concrete::from_value(v)),
            Some(Expectation::ReturnsOtherThan(v) | Expectation::Rejected(v)) => {
                Expected::Other(Concrete::from_value(v))
            }
            _ => Expected::Nothing,
        };
        Spec {
            ret,
            ..Spec::failing(None)
        }
    }
}

impl Call {
    /// This call of `recorded` (a trace of test `test`) to encode as `role` under `spec`,
    /// named `<test> call <index>`.
    pub fn encoded<'t>(
        &self,
        test: &str,
        role: Role,
        recorded: &'t RecordedTrace,
        spec: Spec,
    ) -> encode::Call<'t> {
        self.encoded_in(test, role, &recorded.trace, spec)
    }

    /// As [`Call::encoded`], for a call of `trace` (a rerun's, such as
    /// [`super::soft::Later`]'s).
    pub fn encoded_in<'t>(
        &self,
        test: &str,
        role: Role,
        trace: &'t RawTrace,
        spec: Spec,
    ) -> encode::Call<'t> {
        encode::Call {
            test: format!("{test} call {}", self.index),
            role,
            function: self.function.clone(),
            args: Vec::new(),
            trace: Some(CallTrace {
                sites: &trace.sites,
                events: &trace.events[self.events.clone()],
            }),
            spec,
        }
    }

    /// Whether the called function is in `file` (as sites name files).
    pub fn in_file(&self, recorded: &RecordedTrace, file: &str) -> bool {
        recorded
            .trace
            .sites
            .get(&self.site)
            .is_some_and(|s| s.file == file)
    }
}

impl super::soft::Later {
    /// The calls past the failure that test `test`'s assertions accepted, of functions in
    /// `file`, each to encode as a passing call that keeps the result it returned.
    pub fn accepted_calls<'t, 'f>(
        &'t self,
        test: &str,
        file: &'f str,
    ) -> impl Iterator<Item = encode::Call<'t>> + use<'t, 'f> {
        let test = test.to_string();
        self.accepted_in(file)
            .map(move |c| c.encoded_in(&test, Role::Passing, &self.trace, Spec::accepted()))
    }
}

/// Up to `max` calls that passing tests made to functions of `file` and that returned,
/// each with the result it returned as its specification.
pub fn passing_calls<'t>(
    traces: &'t [RecordedTrace],
    file: &str,
    max: usize,
) -> Vec<encode::Call<'t>> {
    let mut out = Vec::new();
    for recorded in traces {
        if recorded.role != TraceRole::Passing || recorded.trace.coverage {
            continue;
        }
        for call in top_level_calls(&recorded.trace) {
            if out.len() >= max {
                return out;
            }
            if call.end == End::Returned && call.in_file(recorded, file) {
                let test = recorded.test.display();
                out.push(call.encoded(&test, Role::Passing, recorded, Spec::accepted()));
            }
        }
    }
    out
}
