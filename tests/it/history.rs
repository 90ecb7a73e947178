//! End-to-end: the history technique. A crate in a git repository whose last commit held
//! the right boundary (`s >= 80`) and whose working tree has the wrong one (`s > 80`,
//! uncommitted): the changed line, which the failing test runs, gets the history's
//! evidence, and no other site does; with the change committed and `--changed-since` the
//! commit before, the same; `--changed-since` a commit git does not know is a note.

use crate::common;

use serde_json::Value;
use std::path::Path;

fn debug(dir: &Path, extra: &[&str]) -> Value {
    let mut args = vec![
        "--timeout",
        "20",
        "--jobs",
        "2",
        "--no-fix",
        "--techniques",
        "spectrum,history",
    ];
    args.extend_from_slice(extra);
    let output = common::autodebug(dir, &args);
    assert!(
        dir.join("autodebug.out/report.json").exists(),
        "{}",
        common::describe(&output)
    );
    common::report(dir)
}

/// The suspects with history evidence: (line, code, evidence).
fn changed(report: &Value) -> Vec<(u64, String, String)> {
    let mut out = Vec::new();
    for suspect in report["suspects"].as_array().unwrap() {
        for evidence in suspect["evidence"].as_array().unwrap() {
            let text = evidence.as_str().unwrap();
            if text.starts_with("history:") {
                out.push((
                    suspect["line"].as_u64().unwrap(),
                    suspect["code"].as_str().unwrap().to_string(),
                    text.to_string(),
                ));
            }
        }
    }
    out
}

#[test]
fn the_lines_changed_since_the_tests_passed_are_suspects() {
    let dir = common::fixture("pathgen-grade");
    let lib = dir.path().join("src/lib.rs");
    let buggy = std::fs::read_to_string(&lib).unwrap();
    common::git(dir.path(), &["init", "-q"]);
    std::fs::write(dir.path().join(".gitignore"), "target/\n").unwrap();
    std::fs::write(
        &lib,
        buggy.replace("} else if s > 80 {", "} else if s >= 80 {"),
    )
    .unwrap();
    common::git(dir.path(), &["add", "."]);
    common::git(dir.path(), &["commit", "-q", "-m", "grades"]);
    std::fs::write(&lib, &buggy).unwrap();

    let report = debug(dir.path(), &[]);
    let found = changed(&report);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!((found[0].0, found[0].1.as_str()), (19, "s > 80"));
    assert!(
        found[0].2.contains("changed since HEAD (uncommitted)"),
        "{found:?}"
    );
    assert_eq!(report["suspects"][0]["line"], 19, "{report:#}");
    let details = &report["localization"]["history"];
    assert_eq!(details["base"], "HEAD", "{details:#}");
    assert_eq!(details["lines"], 1, "{details:#}");

    common::git(dir.path(), &["commit", "-q", "-am", "a boundary"]);
    let report = debug(dir.path(), &["--changed-since", "HEAD~1"]);
    let found = changed(&report);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].2.contains("changed since HEAD~1,"), "{found:?}");

    let report = debug(dir.path(), &["--changed-since", "nowhere"]);
    assert!(changed(&report).is_empty());
    let notes = report["notes"].as_array().unwrap();
    assert!(
        notes.iter().any(|n| n
            .as_str()
            .unwrap()
            .contains("git knows no commit `nowhere`")),
        "{notes:?}"
    );
}
