//! End-to-end `--apply`: only the faulty expression changes (formatting, comments, CRLF line
//! endings and non-ASCII text elsewhere are byte-identical), and a tree with uncommitted
//! changes is refused unless `--allow-dirty`.

use crate::common;

use std::path::Path;

fn lib(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("src/lib.rs")).unwrap()
}

#[test]
fn apply_changes_only_the_faulty_expression() {
    let (dir, before) = common::crlf_fixture();
    common::autodebug_expecting(dir.path(), &["--apply"], 5);
    let report = common::report(dir.path());
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
}

#[test]
fn apply_refuses_a_dirty_tree_without_allow_dirty() {
    let (dir, before) = common::crlf_fixture();
    std::fs::write(dir.path().join("NOTES.md"), "work in progress\n").unwrap();
    let output = common::autodebug_expecting(dir.path(), &["--apply"], 5);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("uncommitted changes")
            && stderr.contains("NOTES.md")
            && stderr.contains("--allow-dirty"),
        "{stderr}"
    );
    let report = common::report(dir.path());
    assert_eq!(report["fixes"][0]["validated"], true, "{report:#}");
    assert!(report["apply"]["refused"].is_string(), "{report:#}");
    assert_eq!(lib(dir.path()), before, "a refused --apply wrote the file");

    common::autodebug_expecting(dir.path(), &["--apply", "--allow-dirty"], 5);
    let report = common::report(dir.path());
    assert_eq!(report["apply"]["files"][0], "src/lib.rs", "{report:#}");
    assert_eq!(lib(dir.path()), before.replace("r =   x ;", "r =   y ;"));
}
