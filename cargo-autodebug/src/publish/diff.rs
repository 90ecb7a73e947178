//! `--in-diff FILE`: the lines a pull request changed, read from `git diff` output, and the
//! ranking reordered so that suspects on those lines come first.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, Result, bail};

use crate::model::Ranked;

/// The new-side lines each file of a diff adds or changes (1-based, sorted ranges).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct ChangedLines {
    files: BTreeMap<String, Vec<(u32, u32)>>,
}

impl ChangedLines {
    /// Reads a unified diff (`git diff`, `git diff --cached`, `diff -u`) from `path`, or
    /// from standard input when `path` is `-`.
    pub fn read(path: &Path) -> Result<ChangedLines> {
        let text = if path == Path::new("-") {
            std::io::read_to_string(std::io::stdin()).context("could not read the diff on stdin")?
        } else {
            let bytes = std::fs::read(path)
                .with_context(|| format!("could not read the diff {}", path.display()))?;
            String::from_utf8_lossy(&bytes).into_owned()
        };
        ChangedLines::parse(&text).with_context(|| {
            format!(
                "{} is not a unified diff (hint: `git diff origin/main... > pr.diff`)",
                path.display()
            )
        })
    }

    /// Parses a unified diff. A hunk that only deletes marks the new-side line after the
    /// deletion (and the one before), where the removed code was.
    pub fn parse(text: &str) -> Result<ChangedLines> {
        let mut files: BTreeMap<String, Vec<(u32, u32)>> = BTreeMap::new();
        let mut file: Option<String> = None;
        let mut saw_header = false;
        let mut lines = text.lines().enumerate();
        while let Some((number, line)) = lines.next() {
            if let Some(path) = line.strip_prefix("+++ ") {
                saw_header = true;
                file = new_side_path(path);
                continue;
            }
            let Some(header) = line.strip_prefix("@@ ") else {
                continue;
            };
            let Some(ranges) = header.split(" @@").next() else {
                continue;
            };
            let range = |sign: char| ranges.split_whitespace().find_map(|r| r.strip_prefix(sign));
            let (Some(old), Some(new)) = (range('-'), range('+')) else {
                bail!(
                    "line {}: a hunk header without its ranges: {line}",
                    number + 1
                );
            };
            let bad = || format!("line {}: a bad hunk header: {line}", number + 1);
            let (_, mut old_left) = parse_range(old).with_context(bad)?;
            let (start, mut new_left) = parse_range(new).with_context(bad)?;
            // Walk the hunk body, as many lines as the header counts: context and additions
            // advance the new side.
            let mut at = start;
            let mut marked = Vec::new();
            let mut deleted_here = false;
            while old_left + new_left > 0 {
                let Some((_, body)) = lines.next() else {
                    break;
                };
                match body.as_bytes().first() {
                    Some(b'+') => {
                        // A deletion followed by additions is a change of these lines.
                        marked.push(at);
                        new_left = new_left.saturating_sub(1);
                        deleted_here = false;
                    }
                    Some(b'-') => {
                        deleted_here = true;
                        old_left = old_left.saturating_sub(1);
                        continue;
                    }
                    Some(b'\\') => continue,
                    // Context (an empty line is empty context: some tools strip the space).
                    _ => {
                        old_left = old_left.saturating_sub(1);
                        new_left = new_left.saturating_sub(1);
                    }
                }
                if deleted_here {
                    // The code removed just before this new-side line was here.
                    marked.push(at.saturating_sub(1).max(1));
                    marked.push(at);
                    deleted_here = false;
                }
                at += 1;
            }
            if deleted_here {
                marked.push(at.saturating_sub(1).max(1));
                marked.push(at);
            }
            let Some(path) = &file else {
                continue;
            };
            let ranges = files.entry(path.clone()).or_default();
            for line in marked {
                ranges.push((line, line));
            }
        }
        if !saw_header && !text.trim().is_empty() {
            bail!("no `+++ b/<path>` file header");
        }
        for ranges in files.values_mut() {
            ranges.sort_unstable();
            let mut merged: Vec<(u32, u32)> = Vec::new();
            for &(start, end) in ranges.iter() {
                match merged.last_mut() {
                    Some(last) if start <= last.1 + 1 => last.1 = last.1.max(end),
                    _ => merged.push((start, end)),
                }
            }
            *ranges = merged;
        }
        Ok(ChangedLines { files })
    }

    /// Files the diff changes (paths as the diff gives them, relative to its root).
    pub fn files(&self) -> impl Iterator<Item = &str> {
        self.files.keys().map(String::as_str)
    }

    /// Whether lines `start..=end` of `file` (relative to the workspace root) meet a changed
    /// line. The diff's paths are relative to the repository root, which may lie above the
    /// workspace: a diff path matches when it ends with the file's path, component-wise.
    pub fn touches(&self, file: &str, start: u32, end: u32) -> bool {
        self.files.iter().any(|(path, ranges)| {
            same_file(path, file) && ranges.iter().any(|&(s, e)| s <= end && start <= e)
        })
    }
}

/// `b/src/lib.rs` → `src/lib.rs`; `/dev/null` (a deleted file) → none.
fn new_side_path(header: &str) -> Option<String> {
    // `+++ b/path<TAB>timestamp` in `diff -u` output.
    let path = header.split('\t').next()?.trim_end();
    if path == "/dev/null" {
        return None;
    }
    let path = path
        .strip_prefix('"')
        .and_then(|p| p.strip_suffix('"'))
        .unwrap_or(path);
    let path = path
        .strip_prefix("b/")
        .or_else(|| path.strip_prefix("./"))
        .unwrap_or(path);
    Some(path.to_string())
}

/// `12,3` → (12, 3); `12` → (12, 1).
fn parse_range(range: &str) -> Result<(u32, u32)> {
    let (start, count) = match range.split_once(',') {
        Some((start, count)) => (start.parse()?, count.parse()?),
        None => (range.parse()?, 1),
    };
    Ok((start, count))
}

/// Whether a diff path and a workspace-relative path name the same file: one ends with the
/// other, component by component.
fn same_file(diff_path: &str, file: &str) -> bool {
    let a: Vec<&str> = diff_path.split('/').filter(|c| !c.is_empty()).collect();
    let b: Vec<&str> = file.split('/').filter(|c| !c.is_empty()).collect();
    let n = a.len().min(b.len());
    n > 0 && a[a.len() - n..] == b[b.len() - n..]
}

/// Puts the suspects on changed lines first, each group in its old order, renumbers the
/// ranks, marks them `in_diff`, and returns how many there are.
pub fn prioritize(suspects: &mut [Ranked], changed: &ChangedLines) -> usize {
    for suspect in suspects.iter_mut() {
        suspect.in_diff = changed.touches(&suspect.file, suspect.line, suspect.end_line);
    }
    // Stable: within each group the merged order stays.
    suspects.sort_by_key(|s| !s.in_diff);
    for (i, suspect) in suspects.iter_mut().enumerate() {
        suspect.rank = i + 1;
    }
    suspects.iter().filter(|s| s.in_diff).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIFF: &str = "\
diff --git a/crates/calc/src/lib.rs b/crates/calc/src/lib.rs
index 1111111..2222222 100644
--- a/crates/calc/src/lib.rs
+++ b/crates/calc/src/lib.rs
@@ -10,6 +10,6 @@ pub fn max2(x: i32, y: i32) -> i32 {
     let mut r = x;
     if y > x {
-        r = y;
+        r = y + 1;
     }
     r
 }
@@ -40,4 +40,3 @@ fn g() {
     a();
-    b();
     c();
 }
diff --git a/README.md b/README.md
deleted file mode 100644
--- a/README.md
+++ /dev/null
@@ -1,2 +0,0 @@
-# x
-y
";

    #[test]
    fn added_lines_and_the_place_of_a_deletion_are_changed() {
        let changed = ChangedLines::parse(DIFF).unwrap();
        assert_eq!(
            changed.files().collect::<Vec<_>>(),
            ["crates/calc/src/lib.rs"]
        );
        // The addition is new-side line 12.
        assert!(changed.touches("src/lib.rs", 12, 12));
        assert!(!changed.touches("src/lib.rs", 11, 11));
        assert!(!changed.touches("src/lib.rs", 13, 13));
        // `b();` was removed between new-side lines 40 and 41.
        assert!(changed.touches("src/lib.rs", 40, 40));
        assert!(changed.touches("src/lib.rs", 41, 41));
        assert!(!changed.touches("src/lib.rs", 42, 42));
        // A multi-line site meets a changed line inside it.
        assert!(changed.touches("src/lib.rs", 5, 20));
    }

    #[test]
    fn paths_match_by_trailing_components() {
        let changed = ChangedLines::parse(DIFF).unwrap();
        assert!(changed.touches("calc/src/lib.rs", 12, 12));
        assert!(changed.touches("crates/calc/src/lib.rs", 12, 12));
        assert!(!changed.touches("other/src/lib.rs", 12, 12));
        assert!(!changed.touches("ib.rs", 12, 12));
    }

    #[test]
    fn a_file_without_a_diff_header_is_an_error() {
        let e = ChangedLines::parse("hello\nworld\n").unwrap_err();
        assert!(format!("{e:#}").contains("+++"), "{e:#}");
        assert_eq!(ChangedLines::parse("").unwrap(), ChangedLines::default());
        let e = ChangedLines::parse("+++ b/x.rs\n@@ -1 +a @@\n").unwrap_err();
        assert!(format!("{e:#}").contains("line 2"), "{e:#}");
    }

    #[test]
    fn diff_u_output_and_a_new_file_are_read() {
        let text = "--- lib.rs.orig\t2026-01-01\n+++ lib.rs\t2026-01-02\n@@ -1 +1,2 @@\n a\n+b\n\
                    --- /dev/null\n+++ b/src/new.rs\n@@ -0,0 +1,2 @@\n+x\n+y\n";
        let changed = ChangedLines::parse(text).unwrap();
        assert!(changed.touches("lib.rs", 2, 2));
        assert!(!changed.touches("lib.rs", 1, 1));
        assert!(changed.touches("src/new.rs", 1, 2));
    }
}
