//! The events of `--message-format json`: one JSON object per line on stdout, tagged by
//! `reason` as cargo's messages are (and by `event`, the same value, as the first versions
//! were), as the run goes; the last line says where the report was written
//! (`{"reason":"report","path":…,"status":…,"exit_code":…}`). Fields are added, never
//! renamed; `docs/message-format.schema.json` is their schema.

use serde::Serialize;

/// One event.
#[derive(Debug, Serialize)]
#[serde(tag = "reason", rename_all = "kebab-case")]
pub enum Event<'a> {
    /// A phase with progress began (`build`, `baseline`, `failing-tests`, `traces`, `oracles`,
    /// `switched-runs`, `diagnosis`); `total` is absent when not known in advance.
    PhaseStarted {
        phase: &'a str,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        total: Option<usize>,
    },
    /// Items of a phase done so far; `last` says which one ended and how.
    Progress {
        phase: &'a str,
        done: usize,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        total: Option<usize>,
        last: &'a str,
    },
    /// The phase ended.
    PhaseFinished {
        phase: &'a str,
        done: usize,
        elapsed_s: f64,
    },
    /// A status line (the same words as on stderr).
    Status { verb: &'a str, message: &'a str },
    /// A warning.
    Warning { message: &'a str },
    /// An error.
    Error { message: &'a str },
    /// A test's first (baseline) run ended: `passed`, `failed`, `timeout`, `crashed`,
    /// `fuel-exhausted`, `not-run`.
    TestResult {
        test: &'a str,
        outcome: &'a str,
        duration_s: f64,
    },
    /// A suspect of the merged ranking (the first few, after localization).
    SuspectFound {
        rank: usize,
        file: &'a str,
        line: u32,
        column: u32,
        code: &'a str,
        evidence: &'a [String],
    },
    /// A fix passed the suite: `validated` when the patched build did too.
    FixFound {
        rank: usize,
        file: &'a str,
        line: u32,
        column: u32,
        original: &'a str,
        replacement: &'a str,
        validated: bool,
        tests_passed: usize,
        tests_total: usize,
    },
    /// The report was written (the last line): `report.json`'s path, the page's, and how
    /// the run ended.
    Report {
        path: &'a str,
        html: &'a str,
        status: &'a str,
        exit_code: i32,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_tagged_in_kebab_case() {
        let json = serde_json::to_value(Event::PhaseStarted {
            phase: "build",
            total: None,
        })
        .unwrap();
        assert_eq!(
            json,
            serde_json::json!({"reason": "phase-started", "phase": "build"})
        );
        let json = serde_json::to_value(Event::TestResult {
            test: "t::a",
            outcome: "failed",
            duration_s: 0.5,
        })
        .unwrap();
        assert_eq!(json["reason"], "test-result");
        assert_eq!(json["outcome"], "failed");
    }
}
