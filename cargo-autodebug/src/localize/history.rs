//! The history: the lines changed since a commit where the failing tests passed. A
//! developer whose tests just went red has usually just changed code they run, so the sites
//! those changes touched, among the sites a failing test ran, are suspects. The commit is
//! `--changed-since REV`; without it, the working tree's uncommitted changes against `HEAD`
//! are read (new files not yet added included), when the workspace is inside a git
//! repository and there are any. `git diff` says which lines changed; the technique reads
//! the repository and changes nothing in it. Where there is no repository, no change, or
//! git cannot read the revision, it names nothing and says why in its details.
//!
//! A changed line is evidence, not proof: a change may be a refactoring the fault
//! predates. The technique weighs as the spectrum, so among the sites the failing tests
//! ran it lifts the changed ones, and it says nothing of sites no failing test ran.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

use anyhow::Result;
use autodebug_runtime::protocol::{SiteInfo, SiteKey};

use super::{Context, Localized, Suspect, Technique, is_candidate};
use crate::model::{Evidence, Role};
use crate::trace::workspace_path;

/// Its name in evidence.
pub const NAME: &str = "history";

/// The technique: the revision the changes are read against (`None`: `HEAD`, and only
/// when the working tree has uncommitted changes).
pub struct History {
    pub since: Option<String>,
}

/// Lines changed since a revision, by file relative to the workspace root.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Changes {
    /// The revision as given (`HEAD` by default).
    pub base: String,
    pub lines: BTreeMap<String, BTreeSet<u32>>,
}

impl Changes {
    /// Whether any line `from..=to` of `file` changed.
    fn touches(&self, file: &str, from: u32, to: u32) -> bool {
        self.lines
            .get(file)
            .is_some_and(|lines| lines.range(from..=to.max(from)).next().is_some())
    }

    fn line_count(&self) -> usize {
        self.lines.values().map(BTreeSet::len).sum()
    }
}

/// Runs `git -C root args`; its output, or why not.
fn git(root: &Path, args: &[&str]) -> Result<String, String> {
    let output = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(args)
        .env("GIT_OPTIONAL_LOCKS", "0")
        .output()
        .map_err(|e| format!("could not run git: {e}"))?;
    if !output.status.success() {
        let error = String::from_utf8_lossy(&output.stderr);
        return Err(error.lines().next().unwrap_or("git failed").to_string());
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// The Rust lines changed in the workspace at `root` since `since` (else `HEAD`, counting
/// only uncommitted changes then): `Ok(None)` when there is no repository or nothing
/// changed without `since`; an error when git cannot read the revision.
pub fn read(root: &Path, since: Option<&str>) -> Result<Option<Changes>, String> {
    if git(root, &["rev-parse", "--is-inside-work-tree"]).is_err() {
        return match since {
            Some(_) => Err("the workspace is not inside a git repository".to_string()),
            None => Ok(None),
        };
    }
    let base = since.unwrap_or("HEAD");
    let known = git(
        root,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("{base}^{{commit}}"),
        ],
    );
    match (known, since) {
        (Ok(_), _) => {}
        // A repository with no commit yet: nothing to compare with.
        (Err(_), None) => return Ok(None),
        (Err(_), Some(_)) => return Err(format!("git knows no commit `{base}`")),
    }
    let diff = git(
        root,
        &[
            "diff",
            "--no-color",
            "--no-ext-diff",
            "--no-renames",
            "--relative",
            "-U0",
            base,
            "--",
            "*.rs",
        ],
    )?;
    let mut changes = Changes {
        base: base.to_string(),
        lines: parse_diff(&diff),
    };
    // Files not yet added are changed in every line.
    let untracked = git(
        root,
        &["ls-files", "--others", "--exclude-standard", "--", "*.rs"],
    )?;
    for file in untracked.lines().filter(|f| !f.is_empty()) {
        let Ok(text) = std::fs::read_to_string(root.join(file)) else {
            continue;
        };
        let count = text.lines().count() as u32;
        changes
            .lines
            .entry(file.to_string())
            .or_default()
            .extend(1..=count);
    }
    if changes.lines.is_empty() && since.is_none() {
        return Ok(None);
    }
    Ok(Some(changes))
}

/// The new-side lines of a unified diff with no context (`-U0`), by file: the lines a
/// hunk wrote, and for a hunk that only removed lines, the two lines around the place.
pub fn parse_diff(diff: &str) -> BTreeMap<String, BTreeSet<u32>> {
    let mut out: BTreeMap<String, BTreeSet<u32>> = BTreeMap::new();
    let mut file: Option<String> = None;
    for line in diff.lines() {
        if let Some(path) = line.strip_prefix("+++ ") {
            file = path.strip_prefix("b/").map(str::to_string);
            continue;
        }
        let (Some(file), Some(hunk)) = (&file, line.strip_prefix("@@ ")) else {
            continue;
        };
        // `@@ -a,b +c,d @@`: the new side starts at c and has d lines (1 when unsaid).
        let Some(new) = hunk.split_whitespace().find_map(|w| w.strip_prefix('+')) else {
            continue;
        };
        let mut parts = new.splitn(2, ',');
        let start: u32 = parts.next().and_then(|s| s.parse().ok()).unwrap_or(0);
        let count: u32 = parts
            .next()
            .map_or(Some(1), |s| s.parse().ok())
            .unwrap_or(1);
        let lines = out.entry(file.clone()).or_default();
        if count == 0 {
            // Removed after line `start`: the lines on either side of the gap.
            lines.extend([start.max(1), start + 1]);
        } else {
            lines.extend(start..start + count);
        }
    }
    out
}

impl Technique for History {
    fn name(&self) -> &'static str {
        NAME
    }

    fn localize(&self, context: &Context, notes: &mut Vec<String>) -> Result<Localized> {
        let changes = match read(context.user_root, self.since.as_deref()) {
            Ok(Some(changes)) => changes,
            Ok(None) => return Ok(Localized::default()),
            Err(why) => {
                notes.push(format!("{NAME}: no changed lines read: {why}"));
                return Ok(Localized::default());
            }
        };
        let ran = failing_sites(context);
        let mut suspects = Vec::new();
        for site in ran.values() {
            let path = workspace_path(context.workspace_root, &site.file);
            if !changes.touches(&path, site.line, site.end_line) {
                continue;
            }
            let since = if self.since.is_some() {
                format!("since {}", changes.base)
            } else {
                format!("since {} (uncommitted)", changes.base)
            };
            suspects.push(Suspect {
                site: site.clone(),
                path,
                evidence: vec![Evidence {
                    technique: NAME,
                    score: 1.0,
                    detail: format!("changed {since}, and a failing test ran it"),
                }],
            });
        }
        let details = serde_json::json!({
            "base": changes.base,
            "files": changes.lines.len(),
            "lines": changes.line_count(),
            "sites": suspects.len(),
        });
        Ok(Localized {
            suspects,
            details: Some(details),
            ..Localized::default()
        })
    }
}

/// The sites the failing tests ran: their traces' and their coverage's.
fn failing_sites(context: &Context) -> BTreeMap<SiteKey, SiteInfo> {
    let mut out = BTreeMap::new();
    for recorded in context.traces.iter().filter(|t| t.role == Role::Failing) {
        for site in recorded.trace.sites.values() {
            out.entry(site.key()).or_insert_with(|| site.clone());
        }
    }
    for result in context.baseline {
        if result.deterministic_failure() {
            for (key, site) in &result.coverage {
                out.entry(key.clone()).or_insert_with(|| site.clone());
            }
        }
    }
    out.retain(|_, site| is_candidate(site.kind));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_diff_gives_the_lines_it_wrote_and_the_places_it_removed() {
        let diff = "\
diff --git a/src/lib.rs b/src/lib.rs
--- a/src/lib.rs
+++ b/src/lib.rs
@@ -3 +3 @@ fn f() {
-    a < b
+    a <= b
@@ -10,2 +10,0 @@ fn g() {
-    x += 1;
-    y += 1;
@@ -20,0 +19,3 @@ fn h() {
+    if n == 0 {
+        return;
+    }
diff --git a/src/gone.rs b/src/gone.rs
--- a/src/gone.rs
+++ /dev/null
@@ -1,2 +0,0 @@
-fn gone() {}
-
";
        let lines = parse_diff(diff);
        assert_eq!(lines.len(), 1, "{lines:?}");
        let lib: Vec<u32> = lines["src/lib.rs"].iter().copied().collect();
        assert_eq!(lib, [3, 10, 11, 19, 20, 21]);
    }

    /// In a repository: nothing without changes; the uncommitted lines, a new file's lines,
    /// and the lines since a named commit; a clear error for a commit git does not know.
    #[test]
    fn the_lines_changed_in_a_repository_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let run = |args: &[&str]| {
            let status = Command::new("git")
                .arg("-C")
                .arg(root)
                .args(args)
                .env("GIT_AUTHOR_NAME", "t")
                .env("GIT_AUTHOR_EMAIL", "t@t")
                .env("GIT_COMMITTER_NAME", "t")
                .env("GIT_COMMITTER_EMAIL", "t@t")
                .status()
                .unwrap();
            assert!(status.success(), "git {args:?}");
        };
        assert_eq!(read(root, None), Ok(None));
        assert!(read(root, Some("HEAD")).is_err());
        run(&["init", "-q"]);
        std::fs::create_dir(root.join("src")).unwrap();
        std::fs::write(root.join("src/lib.rs"), "fn a() {}\nfn b() {}\nfn c() {}\n").unwrap();
        run(&["add", "."]);
        run(&["commit", "-q", "-m", "one"]);
        assert_eq!(read(root, None), Ok(None));
        std::fs::write(
            root.join("src/lib.rs"),
            "fn a() {}\nfn b2() {}\nfn c() {}\n",
        )
        .unwrap();
        std::fs::write(root.join("src/new.rs"), "fn n() {}\nfn m() {}\n").unwrap();
        std::fs::write(root.join("notes.txt"), "not rust\n").unwrap();
        let changes = read(root, None).unwrap().unwrap();
        assert_eq!(changes.base, "HEAD");
        let lines: Vec<(&str, Vec<u32>)> = (changes.lines.iter())
            .map(|(f, l)| (f.as_str(), l.iter().copied().collect()))
            .collect();
        assert_eq!(lines, [("src/lib.rs", vec![2]), ("src/new.rs", vec![1, 2])]);
        run(&["add", "."]);
        run(&["commit", "-q", "-m", "two"]);
        assert_eq!(read(root, None), Ok(None));
        let since = read(root, Some("HEAD~1")).unwrap().unwrap();
        assert_eq!(since.lines.len(), 2);
        let error = read(root, Some("nowhere")).unwrap_err();
        assert!(error.contains("`nowhere`"), "{error}");
    }
}
