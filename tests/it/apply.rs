//! End-to-end `--apply`: only the faulty expression changes (formatting, comments, CRLF line
//! endings and non-ASCII text elsewhere are byte-identical); a tree with uncommitted
//! changes is refused before any work unless `--allow-dirty`; after a run, `--apply` writes
//! that run's fix without running anything, unless a file changed since; once the fix is
//! in, `--apply` has nothing to apply and says so without an error.

use crate::common;

use std::path::Path;

fn lib(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("src/lib.rs")).unwrap()
}

#[test]
fn apply_changes_only_the_faulty_expression() {
    let (dir, before) = common::crlf_fixture();
    common::autodebug_expecting(dir.path(), &["--apply"], 0);
    let report = common::report(dir.path());
    assert_eq!(
        report["exit_code"], 5,
        "the report keeps the analysis's code"
    );
    assert_eq!(report["fixes"][0]["replacement"], "y", "{report:#}");
    assert_eq!(report["apply"]["files"][0], "src/lib.rs", "{report:#}");
    let after = lib(dir.path());
    // Exactly the bytes of `x` in `r =   x ;` became `y`: everything before and after is
    // the same, byte for byte.
    let at = before.find("\tr =   x ;").unwrap() + "\tr =   ".len();
    assert_eq!(after.len(), before.len());
    assert_eq!(after.as_bytes()[..at], before.as_bytes()[..at]);
    assert_eq!(&after[at..at + 1], "y");
    assert_eq!(after.as_bytes()[at + 1..], before.as_bytes()[at + 1..]);
    assert_eq!(
        after.matches("\r\n").count(),
        before.matches("\r\n").count()
    );
    let output = common::cargo_test(dir.path());
    assert!(output.status.success(), "{}", common::describe(&output));

    // `--apply` again, the fix committed: every test passes, nothing to apply, and no
    // `error:` for it.
    common::git_commit_all(dir.path());
    let output = common::autodebug_expecting(dir.path(), &["--apply"], 0);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("Nothing to apply: no test fails") && !stderr.contains("error:"),
        "{stderr}"
    );
    assert_eq!(lib(dir.path()), after, "a second --apply wrote the file");
}

#[test]
fn apply_refuses_a_dirty_tree_without_allow_dirty() {
    let (dir, before) = common::crlf_fixture();
    std::fs::write(dir.path().join("NOTES.md"), "work in progress\n").unwrap();
    let output = common::autodebug_expecting(dir.path(), &["--apply"], 2);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("uncommitted changes")
            && stderr.contains("NOTES.md")
            && stderr.contains("--allow-dirty"),
        "{stderr}"
    );
    // Refused before any work: nothing built, no report.
    assert!(
        !stderr.contains("Building") && !stderr.contains("Compiling"),
        "{stderr}"
    );
    assert!(!dir.path().join("autodebug.out").exists());
    assert_eq!(lib(dir.path()), before, "a refused --apply wrote the file");

    common::autodebug_expecting(dir.path(), &["--apply", "--allow-dirty"], 0);
    let report = common::report(dir.path());
    assert_eq!(report["apply"]["files"][0], "src/lib.rs", "{report:#}");
    assert_eq!(lib(dir.path()), before.replace("r =   x ;", "r =   y ;"));
}

#[test]
fn apply_after_a_run_writes_its_fix_without_running_anything() {
    let (dir, before) = common::crlf_fixture();
    common::autodebug_expecting(dir.path(), &[], 5);
    assert_eq!(
        lib(dir.path()),
        before,
        "a run without --apply writes nothing"
    );
    let output = common::autodebug_expecting(dir.path(), &["--apply"], 0);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("Applied"), "{stderr}");
    for work in ["Building", "Compiling", "Running", "Repairing"] {
        assert!(
            !stderr.contains(work),
            "{work} in an apply of a report:\n{stderr}"
        );
    }
    assert_eq!(lib(dir.path()), before.replace("r =   x ;", "r =   y ;"));
    let report = common::report(dir.path());
    assert_eq!(report["apply"]["files"][0], "src/lib.rs", "{report:#}");

    // A file changed since the report: the analysis runs first, on the file as it is now,
    // and its fix is applied. (Other tests build copies of this fixture in the same target
    // dir at the same time: the analysis must build this copy, not take theirs for it.)
    let (dir, before) = common::crlf_fixture();
    common::autodebug_expecting(dir.path(), &[], 5);
    let changed = before.replacen("\r\n", "\r\n// A comment added since.\r\n", 1);
    std::fs::write(dir.path().join("src/lib.rs"), &changed).unwrap();
    common::git_commit_all(dir.path());
    let output = common::autodebug_expecting(dir.path(), &["--apply"], 0);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("src/lib.rs changed since the last report") && stderr.contains("Building"),
        "{stderr}"
    );
    assert_eq!(lib(dir.path()), changed.replace("r =   x ;", "r =   y ;"));
}
