//! `report.sarif`: a SARIF 2.1.0 log for code scanning. Each ranked suspect is a result
//! (the top one an `error`, the next a `warning`, the rest `note`s), with its evidence in the
//! message and the validated fixes that change it as SARIF fixes; failing tests are results
//! of their own rule, at the place they panicked. Each result has `partialFingerprints`
//! from what it is rather than where (the suspect's function and code, the test's name), so
//! that code scanning follows it across runs when lines move; `invocations` says how the
//! run ended.

use serde_json::{Value, json};

use super::{offered, replacements};
use crate::model::Report;

/// Suspects reported as results.
const SUSPECT_RESULTS: usize = 10;

/// The rules: what a result of each kind means.
const RULES: [(&str, &str, &str); 2] = [
    (
        "autodebug/suspect",
        "Likely fault",
        "A statement ranked by cargo-autodebug's localization techniques as a likely cause of the failing tests.",
    ),
    (
        "autodebug/failing-test",
        "Failing test",
        "A test that failed (or hung or crashed) deterministically.",
    ),
];

/// The SARIF log of a report.
pub fn log(report: &Report) -> Value {
    let mut results = Vec::new();
    let top = report.suspects.iter().map(|s| s.score).fold(0.0, f64::max);
    for suspect in report.suspects.iter().take(SUSPECT_RESULTS) {
        let level = match suspect.rank {
            1 => "error",
            2 | 3 => "warning",
            _ => "note",
        };
        let why = report
            .strongest_evidence(suspect)
            .unwrap_or("ranked by the merged localization");
        let mut result = json!({
            "ruleId": RULES[0].0,
            "ruleIndex": 0,
            "level": level,
            "rank": rank_value(suspect.score, top),
            "message": {
                "text": format!("Suspect #{} in `{}`: `{}`. {why}", suspect.rank, suspect.function, suspect.code),
            },
            "locations": [location(&suspect.file, suspect.line, suspect.column, suspect.end_line, suspect.end_column)],
            "partialFingerprints": {
                "autodebugSite/v1": crate::edit::fingerprint(&format!(
                    "{}\n{}\n{:?}\n{}", suspect.file, suspect.function, suspect.kind, suspect.code
                )),
            },
            "properties": {
                "rank": suspect.rank,
                "score": suspect.score,
                "evidence": suspect.evidence,
                "inDiff": suspect.in_diff,
            },
        });
        let fixes: Vec<Value> = offered(report)
            .filter(|f| f.suspect_rank == suspect.rank)
            .map(fix)
            .collect();
        if !fixes.is_empty() {
            result["fixes"] = Value::Array(fixes);
        }
        results.push(result);
    }
    for failing in report.failing_tests.iter().filter(|f| f.location.is_some()) {
        let at = failing.location.as_ref().expect("filtered");
        results.push(json!({
            "ruleId": RULES[1].0,
            "ruleIndex": 1,
            "level": "error",
            "message": {
                "text": format!("{}::{} {}: {}", failing.target, failing.name, failing.outcome,
                    crate::publish::terminal::one_line(&failing.message)),
            },
            "locations": [location(&at.file, at.line, at.column, at.line, at.column)],
            "partialFingerprints": {
                "autodebugTest/v1": crate::edit::fingerprint(&format!(
                    "{}\n{}\n{}", failing.package, failing.target, failing.name
                )),
            },
        }));
    }
    let rules: Vec<Value> = RULES
        .iter()
        .map(|(id, name, text)| {
            json!({
                "id": id,
                "name": name.replace(' ', ""),
                "shortDescription": { "text": name },
                "fullDescription": { "text": text },
            })
        })
        .collect();
    let root = format!(
        "file://{}/",
        report
            .workspace_root
            .trim_end_matches('/')
            .replace(' ', "%20")
    );
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": report.tool.name,
                    "version": report.tool.version,
                    "semanticVersion": report.tool.version,
                    "informationUri": "https://example.invalid/cargo-autodebug",
                    "rules": rules,
                },
            },
            "invocations": [{
                // The tool did its work (a crate that does not build or tests that fail are
                // its findings, not its failure).
                "executionSuccessful": report.exit_code != 1,
                "exitCode": report.exit_code,
                "exitCodeDescription": report.status,
            }],
            "originalUriBaseIds": { "%SRCROOT%": { "uri": root } },
            "columnKind": "unicodeCodePoints",
            "results": results,
            "properties": {
                "status": report.status,
                "testsTotal": report.tests.total,
                "testsFailed": report.tests.failed,
            },
        }],
    })
}

/// SARIF's `rank` (0–100) from a merged score: the top suspect's score is 100, and the
/// others in proportion (merged scores are sums of weighted reciprocal ranks, not 0–1).
fn rank_value(score: f64, top: f64) -> f64 {
    if top <= 0.0 {
        return 0.0;
    }
    ((score / top).clamp(0.0, 1.0) * 1000.0).round() / 10.0
}

/// A physical location relative to the workspace root.
fn location(file: &str, line: u32, column: u32, end_line: u32, end_column: u32) -> Value {
    let mut region = json!({ "startLine": line.max(1), "startColumn": column.max(1) });
    if end_line >= line && (end_line, end_column) > (line, column) {
        region["endLine"] = json!(end_line);
        region["endColumn"] = json!(end_column.max(1));
    }
    // A panic in a dependency names an absolute path.
    let artifact = if file.starts_with('/') {
        json!({ "uri": format!("file://{}", uri(file)) })
    } else {
        json!({ "uri": uri(file), "uriBaseId": "%SRCROOT%" })
    };
    json!({
        "physicalLocation": { "artifactLocation": artifact, "region": region },
    })
}

/// A relative path as a URI reference (spaces and `%` escaped).
fn uri(path: &str) -> String {
    path.replace('%', "%25").replace(' ', "%20")
}

/// A validated fix as a SARIF fix: each file's replacements.
fn fix(fix: &crate::model::Fix) -> Value {
    let changes: Vec<Value> = fix
        .files
        .iter()
        .map(|change| {
            let replaced: Vec<Value> = replacements(change, &fix.edits)
                .iter()
                .map(|r| {
                    json!({
                        "deletedRegion": {
                            "startLine": r.start.0,
                            "startColumn": r.start.1,
                            "endLine": r.end.0,
                            "endColumn": r.end.1,
                            "byteOffset": r.bytes.start,
                            "byteLength": r.bytes.len(),
                        },
                        "insertedContent": { "text": r.text },
                    })
                })
                .collect();
            json!({
                "artifactLocation": { "uri": uri(&change.path), "uriBaseId": "%SRCROOT%" },
                "replacements": replaced,
            })
        })
        .collect();
    json!({
        "description": {
            "text": format!(
                "{} (validated: rebuilt, {}/{} tests passed)",
                super::describe(fix), fix.tests_passed, fix.tests_total
            ),
        },
        "artifactChanges": changes,
    })
}

#[cfg(test)]
mod tests {
    use super::rank_value;

    #[test]
    fn ranks_follow_the_scores_with_the_top_suspect_at_100() {
        // Merged scores of a real run: every one above 1.
        let scores = [5.25, 4.0, 1.5, 1.25];
        let ranks: Vec<f64> = scores.iter().map(|&s| rank_value(s, 5.25)).collect();
        assert_eq!(ranks, [100.0, 76.2, 28.6, 23.8]);
        assert_eq!(rank_value(0.0, 0.0), 0.0);
    }
}
