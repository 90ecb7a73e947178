//! `--apply`: writes a validated fix into the user's tree. Like `cargo fix`, it refuses a
//! tree with uncommitted changes (or no version control to undo with) unless
//! `--allow-dirty`; it refuses a file that changed since the analysis; and each file is
//! replaced atomically (written beside, synced, renamed over), so an interrupted apply
//! leaves every file either as it was or fully patched.

use crate::model::Fix;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context, Result, bail};

use crate::edit::fingerprint;

/// Whether the tree may be written by `--apply`: `Ok` when `allow_dirty`, or when git
/// tracks it and has no uncommitted change but under `ignore` (the tool's own directories).
/// Checked before the run builds anything, as `cargo fix` does: a build may create files
/// (a `Cargo.lock`) that are not the user's changes.
pub fn tree_state(
    workspace_root: &Path,
    allow_dirty: bool,
    ignore: &[PathBuf],
) -> Result<(), String> {
    if allow_dirty {
        return Ok(());
    }
    check_clean(workspace_root, ignore).map_err(|e| format!("{e:#}"))
}

/// `--apply` after a run: writes the report's top validated fix if the tree was clean
/// when the run started (`tree`, from [`tree_state`]), saying on the console what it
/// wrote or why it did not.
pub fn apply_top(
    report: &crate::model::Report,
    workspace_root: &Path,
    tree: Result<(), String>,
    console: &crate::console::Console,
) -> crate::model::Applied {
    let refused = |why: String| {
        console.error(&format!("--apply: {why}"));
        crate::model::Applied {
            files: Vec::new(),
            refused: Some(why),
        }
    };
    let Some(fix) = report.top_fix() else {
        // Every test passes (the fix is in, say): nothing to apply, and nothing wrong.
        if report.failing_tests.is_empty() {
            console.status("Nothing", "to apply: no test fails");
            return crate::model::Applied {
                files: Vec::new(),
                refused: Some("no test fails: nothing to apply".to_string()),
            };
        }
        return refused("no validated fix to apply".to_string());
    };
    if let Err(why) = tree {
        return refused(why);
    }
    match apply(fix, workspace_root, true, &[]) {
        Ok(written) => {
            let files: Vec<String> = fix.files.iter().map(|f| f.path.clone()).collect();
            console.status(
                "Applied",
                &format!(
                    "the fix to {} ({} file{})",
                    files.join(", "),
                    written.len(),
                    if written.len() == 1 { "" } else { "s" }
                ),
            );
            crate::model::Applied {
                files,
                refused: None,
            }
        }
        Err(error) => refused(format!("{error:#}")),
    }
}

/// What `--apply` found before any work.
pub enum Before {
    /// The report of the last run was current: its top fix is written.
    Applied { files: Vec<String> },
    /// No report to apply (none, no validated fix, or files changed since): the analysis
    /// runs first; why, for the console.
    Analyse(String),
}

/// `--apply` before any work: refuses a tree with uncommitted changes (unless
/// `allow_dirty`; an error), then applies the top validated fix of `output_dir/report.json`
/// when every file it changes is as the analysis saw it (its fingerprint), without running
/// anything; records the apply in that report.
pub fn from_report(
    workspace_root: &Path,
    output_dir: &Path,
    allow_dirty: bool,
    own_dirs: &[PathBuf],
) -> Result<Before> {
    if !allow_dirty {
        check_clean(workspace_root, own_dirs)?;
    }
    let path = output_dir.join("report.json");
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Ok(Before::Analyse(format!(
            "no report in {}",
            output_dir.display()
        )));
    };
    let Ok(mut report) = serde_json::from_str::<serde_json::Value>(&text) else {
        return Ok(Before::Analyse(format!(
            "{} cannot be read",
            path.display()
        )));
    };
    let Some(fix) = report["fixes"]
        .as_array()
        .and_then(|fixes| fixes.iter().find(|f| f["validated"] == true))
    else {
        return Ok(Before::Analyse(format!(
            "{} has no validated fix",
            path.display()
        )));
    };
    let mut plan: Vec<(PathBuf, String)> = Vec::new();
    let hashes = fix["file_hashes"].as_object().cloned().unwrap_or_default();
    for (file, hash) in &hashes {
        let target = confined(workspace_root, file)?;
        let now = std::fs::read_to_string(&target)
            .with_context(|| format!("could not read {}", target.display()))?;
        if hash.as_str() != Some(fingerprint(&now).as_str()) {
            return Ok(Before::Analyse(format!(
                "{file} changed since the last report"
            )));
        }
        let edits: Vec<&serde_json::Value> = fix["edits"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|e| e["file"] == file.as_str())
            .collect();
        let Some(after) = with_edits(&now, &edits) else {
            return Ok(Before::Analyse(format!(
                "the report's edits of {file} are not where it says"
            )));
        };
        plan.push((target, after));
    }
    if plan.is_empty() {
        return Ok(Before::Analyse(format!(
            "{} names no file to change",
            path.display()
        )));
    }
    for (target, after) in &plan {
        write_atomically(target, after)?;
    }
    let files: Vec<String> = hashes.keys().cloned().collect();
    report["apply"] = serde_json::json!({ "files": files });
    let text = serde_json::to_string_pretty(&report)? + "\n";
    std::fs::write(&path, text).with_context(|| format!("could not write {}", path.display()))?;
    Ok(Before::Applied { files })
}

/// `text` with the report's `edits` (1-based line and character column spans, with the
/// text each replaces) made; `None` when an edit's original text is not at its span, or
/// two overlap.
fn with_edits(text: &str, edits: &[&serde_json::Value]) -> Option<String> {
    let index = crate::edit::LineIndex::new(text);
    let number = |v: &serde_json::Value| v.as_u64().and_then(|n| u32::try_from(n).ok());
    let mut spans: Vec<crate::edit::Replacement> = Vec::new();
    for edit in edits {
        let (line, column) = (number(&edit["line"])?, number(&edit["column"])?);
        let (end_line, end_column) = (number(&edit["end_line"])?, number(&edit["end_column"])?);
        let (start, end) = (
            index.offset_at(line, column)?,
            index.offset_at(end_line, end_column)?,
        );
        let original = edit["original"].as_str()?;
        if text.get(start..end)? != original {
            return None;
        }
        spans.push(crate::edit::Replacement {
            bytes: start..end,
            start: (line, column),
            end: (end_line, end_column),
            original: original.to_string(),
            text: edit["replacement"].as_str()?.to_string(),
        });
    }
    spans.sort_by_key(|r| r.bytes.start);
    if spans.windows(2).any(|w| w[0].bytes.end > w[1].bytes.start) {
        return None;
    }
    Some(crate::edit::apply(text, &spans))
}

/// Writes `fix` under `workspace_root`, returning the files written. `ignore` are paths of
/// the tool's own (its output and build directories) that do not make the tree dirty.
pub fn apply(
    fix: &Fix,
    workspace_root: &Path,
    allow_dirty: bool,
    ignore: &[PathBuf],
) -> Result<Vec<PathBuf>> {
    if !allow_dirty {
        check_clean(workspace_root, ignore)?;
    }
    // Every file is checked before any is written.
    let mut plan = Vec::new();
    for change in &fix.files {
        let path = confined(workspace_root, &change.path).context("not applied")?;
        let now = std::fs::read_to_string(&path)
            .with_context(|| format!("could not read {}", path.display()))?;
        if now != change.before {
            bail!(
                "{} changed since the analysis (fingerprint {}, now {}): the fix was made for \
                 the old text\nhint: run `cargo autodebug` again",
                change.path,
                fingerprint(&change.before),
                fingerprint(&now)
            );
        }
        plan.push((path, &change.after));
    }
    let mut written = Vec::new();
    for (path, text) in plan {
        write_atomically(&path, text)?;
        written.push(path);
    }
    Ok(written)
}

/// `relative` under `root`, refusing paths that leave it (or take any detour: a fix names
/// its files plainly).
pub(super) fn confined(root: &Path, relative: &str) -> Result<PathBuf> {
    let path = Path::new(relative);
    if path.is_absolute()
        || path
            .components()
            .any(|c| !matches!(c, std::path::Component::Normal(_)))
    {
        bail!("{relative} is not a path inside the workspace");
    }
    Ok(root.join(path))
}

/// Refuses a tree that git does not track, or that has changes git would list (modified,
/// staged, untracked), other than under `ignore`.
fn check_clean(root: &Path, ignore: &[PathBuf]) -> Result<()> {
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .current_dir(root)
            .stdin(Stdio::null())
            .output()
    };
    let inside = git(&["rev-parse", "--is-inside-work-tree"]);
    if !inside.is_ok_and(|o| o.status.success()) {
        bail!(
            "{} is not in a git work tree: nothing could undo --apply\nhint: commit the \
             workspace to git first, or pass --allow-dirty to apply anyway",
            root.display()
        );
    }
    let mut args = vec![
        "status".to_string(),
        "--porcelain".to_string(),
        "--untracked-files=all".to_string(),
        "--".to_string(),
        ".".to_string(),
    ];
    for path in ignore {
        if let Ok(relative) = path.strip_prefix(root)
            && !relative.as_os_str().is_empty()
        {
            args.push(format!(":(exclude){}", relative.display()));
        }
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let output = git(&args).context("could not run git")?;
    if !output.status.success() {
        bail!(
            "`git status` failed in {}: {}",
            root.display(),
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    let status = String::from_utf8_lossy(&output.stdout);
    // What an `--apply` killed mid-write left beside a file (see `write_atomically`) is not
    // a change of the user's: it is removed.
    let top = git(&["rev-parse", "--show-toplevel"])
        .ok()
        .filter(|o| o.status.success())
        .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()));
    let dirty: Vec<&str> = status
        .lines()
        .filter(|l| !l.trim().is_empty())
        .filter(|l| {
            let Some(path) = l.strip_prefix("?? ") else {
                return true;
            };
            let path = Path::new(path.trim_matches('"'));
            if !path
                .file_name()
                .is_some_and(|n| is_temp_name(&n.to_string_lossy()))
            {
                return true;
            }
            if let Some(top) = &top {
                std::fs::remove_file(top.join(path)).ok();
            }
            false
        })
        .collect();
    if !dirty.is_empty() {
        let shown: Vec<String> = dirty
            .iter()
            .take(8)
            .map(|l| format!("  {}", l.trim_end()))
            .collect();
        let more = if dirty.len() > 8 {
            format!("\n  … and {} more", dirty.len() - 8)
        } else {
            String::new()
        };
        bail!(
            "the working tree of {} has uncommitted changes:\n{}{more}\nhint: commit or stash \
             them, or pass --allow-dirty to apply the fix anyway",
            root.display(),
            shown.join("\n")
        );
    }
    Ok(())
}

/// Replaces `path` by a file holding `text`: written beside it, synced, given the
/// original's permissions and renamed over it (atomic on one file system), then the
/// directory synced so the rename survives a crash.
pub fn write_atomically(path: &Path, text: &str) -> Result<()> {
    let dir = path.parent().context("a file without a directory")?;
    let name = path
        .file_name()
        .context("a path without a file name")?
        .to_string_lossy();
    // Leftovers of an apply killed mid-write (`kill -9` cannot be caught) go first.
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            let other = entry.file_name().to_string_lossy().into_owned();
            if is_temp_name(&other) && other.starts_with(&format!(".{name}.autodebug-")) {
                std::fs::remove_file(entry.path()).ok();
            }
        }
    }
    let temp = dir.join(format!(".{name}.autodebug-{}.tmp", std::process::id()));
    let result = (|| -> Result<()> {
        let mut file = std::fs::File::create(&temp)
            .with_context(|| format!("could not create {}", temp.display()))?;
        file.write_all(text.as_bytes())
            .with_context(|| format!("could not write {}", temp.display()))?;
        // A test hook: a pause with the new text written beside and the file untouched, so
        // that the interruption test can kill the process inside the write.
        if let Some(ms) = std::env::var("AUTODEBUG_TEST_APPLY_PAUSE_MS")
            .ok()
            .and_then(|v| v.parse::<u64>().ok())
        {
            std::thread::sleep(std::time::Duration::from_millis(ms));
        }
        if let Ok(meta) = std::fs::metadata(path) {
            file.set_permissions(meta.permissions())
                .with_context(|| format!("could not set the permissions of {}", temp.display()))?;
        }
        file.sync_all()
            .with_context(|| format!("could not sync {}", temp.display()))?;
        std::fs::rename(&temp, path)
            .with_context(|| format!("could not replace {}", path.display()))?;
        if let Ok(dir) = std::fs::File::open(dir) {
            dir.sync_all().ok();
        }
        Ok(())
    })();
    if result.is_err() {
        std::fs::remove_file(&temp).ok();
    }
    result
}

/// Whether a file name is one `write_atomically` writes beside a file:
/// `.NAME.autodebug-PID.tmp`.
fn is_temp_name(name: &str) -> bool {
    name.starts_with('.')
        && name
            .strip_suffix(".tmp")
            .and_then(|n| n.rsplit_once(".autodebug-"))
            .is_some_and(|(_, pid)| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::super::{FileChange, Fix};
    use super::*;
    use std::collections::BTreeMap;

    fn fix(before: &str, after: &str) -> Fix {
        Fix {
            rank: 1,
            file: "src/lib.rs".into(),
            line: 1,
            column: 1,
            end_line: 1,
            end_column: 2,
            original: "x".into(),
            replacement: "y".into(),
            diff: String::new(),
            technique: "syntactic",
            template: "variable".into(),
            validated: true,
            validation: "rebuild",
            tests_passed: 1,
            tests_total: 1,
            plausible: true,
            cost: 1,
            suspect_rank: 1,
            localized_by: vec![],
            edits: vec![],
            file_hashes: BTreeMap::new(),
            rejected: None,
            files: vec![FileChange {
                path: "src/lib.rs".into(),
                before: before.into(),
                after: after.into(),
            }],
            effect: vec![],
        }
    }

    fn git(dir: &Path, args: &[&str]) {
        let output = Command::new("git")
            .args(args)
            .current_dir(dir)
            .output()
            .expect("git runs");
        assert!(
            output.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }

    fn repo(text: &str) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/lib.rs"), text).unwrap();
        git(dir.path(), &["init", "-q"]);
        git(dir.path(), &["add", "."]);
        git(
            dir.path(),
            &[
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@t",
                "commit",
                "-qm",
                "init",
            ],
        );
        dir
    }

    #[test]
    fn temp_names_are_recognized_and_leftovers_cleared() {
        assert!(is_temp_name(".lib.rs.autodebug-123.tmp"));
        assert!(!is_temp_name("lib.rs.autodebug-123.tmp"));
        assert!(!is_temp_name(".lib.rs.autodebug-.tmp"));
        assert!(!is_temp_name(".lib.rs.autodebug-12x.tmp"));
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("lib.rs");
        std::fs::write(&file, "old").unwrap();
        let leftover = dir.path().join(".lib.rs.autodebug-999999.tmp");
        std::fs::write(&leftover, "half").unwrap();
        let other = dir.path().join(".main.rs.autodebug-999999.tmp");
        std::fs::write(&other, "not this file's").unwrap();
        write_atomically(&file, "new").unwrap();
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "new");
        assert!(!leftover.exists());
        assert!(other.exists());
    }

    #[test]
    fn applies_to_a_clean_tree_and_keeps_permissions() {
        let dir = repo("let r = x;\n");
        use std::os::unix::fs::PermissionsExt;
        let lib = dir.path().join("src/lib.rs");
        std::fs::set_permissions(&lib, std::fs::Permissions::from_mode(0o640)).unwrap();
        // The tool's own output does not make the tree dirty.
        std::fs::create_dir_all(dir.path().join("autodebug.out")).unwrap();
        std::fs::write(dir.path().join("autodebug.out/report.json"), "{}").unwrap();
        let written = apply(
            &fix("let r = x;\n", "let r = y;\n"),
            dir.path(),
            false,
            &[dir.path().join("autodebug.out")],
        )
        .unwrap();
        assert_eq!(written, std::slice::from_ref(&lib));
        assert_eq!(std::fs::read_to_string(&lib).unwrap(), "let r = y;\n");
        assert_eq!(
            std::fs::metadata(&lib).unwrap().permissions().mode() & 0o777,
            0o640
        );
        let leftovers: Vec<_> = std::fs::read_dir(dir.path().join("src"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(leftovers, ["lib.rs"]);
    }

    #[test]
    fn refuses_a_dirty_tree_unless_allowed() {
        let dir = repo("let r = x;\n");
        std::fs::write(dir.path().join("notes.txt"), "wip").unwrap();
        let error = apply(&fix("let r = x;\n", "let r = y;\n"), dir.path(), false, &[])
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("uncommitted changes") && error.contains("notes.txt"),
            "{error}"
        );
        assert!(error.contains("--allow-dirty"), "{error}");
        assert_eq!(
            std::fs::read_to_string(dir.path().join("src/lib.rs")).unwrap(),
            "let r = x;\n"
        );
        apply(&fix("let r = x;\n", "let r = y;\n"), dir.path(), true, &[]).unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.path().join("src/lib.rs")).unwrap(),
            "let r = y;\n"
        );
    }

    #[test]
    fn refuses_a_tree_without_git_and_a_changed_file() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/lib.rs"), "let r = x;\n").unwrap();
        let error = apply(&fix("let r = x;\n", "let r = y;\n"), dir.path(), false, &[])
            .unwrap_err()
            .to_string();
        assert!(error.contains("not in a git work tree"), "{error}");
        std::fs::write(dir.path().join("src/lib.rs"), "let r = z;\n").unwrap();
        let error = apply(&fix("let r = x;\n", "let r = y;\n"), dir.path(), true, &[])
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("src/lib.rs changed since the analysis"),
            "{error}"
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join("src/lib.rs")).unwrap(),
            "let r = z;\n"
        );
        let mut escaping = fix("let r = z;\n", "");
        escaping.files[0].path = "../outside.rs".into();
        assert!(apply(&escaping, dir.path(), true, &[]).is_err());
    }

    #[test]
    fn a_reports_edits_are_made_only_where_their_text_is() {
        let edit = |line: u32, column: u32, end: u32, original: &str, replacement: &str| {
            serde_json::json!({"line": line, "column": column, "end_line": line,
                "end_column": end, "original": original, "replacement": replacement})
        };
        let text = "fn f(ü: i32) -> i32 {\n    ü + 1\n}\n";
        let plus = edit(2, 5, 10, "ü + 1", "ü - 1");
        assert_eq!(
            with_edits(text, &[&plus]).as_deref(),
            Some("fn f(ü: i32) -> i32 {\n    ü - 1\n}\n")
        );
        let elsewhere = edit(2, 4, 9, "ü + 1", "ü - 1");
        assert_eq!(with_edits(text, &[&elsewhere]), None);
        let overlapping = edit(2, 9, 10, "1", "2");
        assert_eq!(with_edits(text, &[&plus, &overlapping]), None);
    }
}
