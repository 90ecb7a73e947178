//! From the annotated copy back to the user's files. No line moves in the copy; a column
//! moves only after an attribute inserted on the same line, so a position maps back by
//! taking the widths of those attributes off, and a text of the copy by cutting them out.
//! Fixes are rewritten on the user's text: their files, spans, diff and fingerprints.

use std::collections::BTreeMap;
use std::path::Path;

use super::annotation::Insertion;
use crate::edit::{fingerprint, unified_diff};
use crate::model::Fix;
use autodebug_syntax::LineIndex;

/// The attributes of each annotated file, by path relative to the workspace root.
#[derive(Debug, Default, Clone)]
pub struct Shifts {
    files: BTreeMap<String, Vec<Insertion>>,
}

impl Shifts {
    /// The shifts of these files (insertions in text order).
    pub fn new(files: BTreeMap<String, Vec<Insertion>>) -> Shifts {
        Shifts { files }
    }

    /// Whether some attribute moves a token of the user's (positions then need mapping;
    /// otherwise they are the user's already).
    pub fn moves_tokens(&self) -> bool {
        self.files.values().flatten().any(|i| i.moves_tokens)
    }

    /// The user's column of a position of the copy (`file` relative to the workspace root;
    /// 1-based line and character column). A position inside an attribute maps to where
    /// the attribute was inserted.
    pub fn user_column(&self, file: &str, line: u32, column: u32) -> u32 {
        let Some(insertions) = self.files.get(file) else {
            return column;
        };
        let mut taken = 0;
        for insertion in insertions.iter().filter(|i| i.line == line) {
            // Where this attribute starts in the copy: after the ones before it on the line.
            let copy_start = insertion.column + taken;
            if column < copy_start {
                break;
            }
            let width = insertion.width();
            if column < copy_start + width {
                return insertion.column;
            }
            taken += width;
        }
        column - taken
    }

    /// Whether an attribute was inserted on this line of this file.
    pub fn touches(&self, file: &str, line: u32) -> bool {
        self.files
            .get(file)
            .is_some_and(|insertions| insertions.iter().any(|i| i.line == line))
    }

    /// `fix` on the user's files (read under `user_root`): each file's text before and
    /// after, spans, diff and fingerprints. An error when a file changed since the copy
    /// was made or the fix touches an inserted attribute.
    pub fn fix_to_user(&self, fix: &mut Fix, user_root: &Path) -> Result<(), String> {
        let mut diff = String::new();
        for change in &mut fix.files {
            let insertions = self.files.get(&change.path).map_or(&[][..], Vec::as_slice);
            let offsets = copy_offsets(insertions);
            let user_before = cut(&change.before, &offsets)
                .ok_or_else(|| format!("{}: the copy's attributes moved", change.path))?;
            let on_disk = crate::workspace::read_source(user_root, &change.path)?;
            if on_disk != user_before {
                return Err(format!("{} changed during the run", change.path));
            }
            let after_offsets = carried(&change.before, &change.after, &offsets)
                .ok_or_else(|| format!("{}: the fix changes an inserted attribute", change.path))?;
            let user_after = cut(&change.after, &after_offsets)
                .ok_or_else(|| format!("{}: the copy's attributes moved", change.path))?;
            diff.push_str(&unified_diff(&change.path, &user_before, &user_after));
            fix.file_hashes
                .insert(change.path.clone(), fingerprint(&user_before));
            change.before = user_before;
            change.after = user_after;
        }
        fix.diff = diff;
        fix.column = self.user_column(&fix.file, fix.line, fix.column);
        fix.end_column = self.user_column(&fix.file, fix.end_line, fix.end_column);
        for edit in &mut fix.edits {
            edit.column = self.user_column(&edit.file, edit.line, edit.column);
            edit.end_column = self.user_column(&edit.file, edit.end_line, edit.end_column);
        }
        Ok(())
    }

    /// Maps every position in a JSON document written from the copy: objects with a
    /// `path` or `file` and a `line`/`column` (and `end_line`/`end_column`), as the site
    /// tables of traces and the techniques' accounts hold them.
    pub fn map_json(&self, value: &mut serde_json::Value) {
        use serde_json::Value;
        match value {
            Value::Array(items) => items.iter_mut().for_each(|v| self.map_json(v)),
            Value::Object(map) => {
                let file = ["path", "file"]
                    .iter()
                    .find_map(|k| map.get(*k).and_then(Value::as_str))
                    .map(str::to_string);
                if let Some(file) = file {
                    for (line_key, column_key) in [("line", "column"), ("end_line", "end_column")] {
                        let line = map.get(line_key).and_then(Value::as_u64);
                        let column = map.get(column_key).and_then(Value::as_u64);
                        if let (Some(line), Some(column)) = (line, column) {
                            let mapped = self.user_column(&file, line as u32, column as u32);
                            map.insert(column_key.to_string(), Value::from(mapped));
                        }
                    }
                }
                map.values_mut().for_each(|v| self.map_json(v));
            }
            _ => {}
        }
    }

    /// The user's line `line` of `file`, trimmed (as suspects show it).
    pub fn user_line(user_root: &Path, file: &str, line: u32) -> Option<String> {
        let text = crate::workspace::read_source(user_root, file).ok()?;
        LineIndex::new(&text)
            .line(line)
            .map(|l| l.trim().to_string())
    }
}

impl crate::trace::UserColumns for Shifts {
    fn user_column(&self, file: &str, line: u32, column: u32) -> u32 {
        Shifts::user_column(self, file, line, column)
    }
}

/// Byte offsets (in the copy's text) and lengths of the attributes.
fn copy_offsets(insertions: &[Insertion]) -> Vec<(usize, usize)> {
    let mut added = 0;
    insertions
        .iter()
        .map(|i| {
            let at = i.offset + added;
            added += i.text.len();
            (at, i.text.len())
        })
        .collect()
}

/// `text` without the byte ranges `(offset, length)` (in order), each of which must hold
/// an attribute.
fn cut(text: &str, ranges: &[(usize, usize)]) -> Option<String> {
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for &(start, length) in ranges {
        let removed = text.get(start..start + length)?;
        if !super::annotation::holds_attribute(removed) || start < at {
            return None;
        }
        out.push_str(&text[at..start]);
        at = start + length;
    }
    out.push_str(&text[at..]);
    Some(out)
}

/// Where the attributes at `offsets` of `before` (byte offset, length) are in `after`:
/// each must lie in a stretch the change left as it was (the edits of a fix of two faults
/// may have attributes between them). `None` if an edit touches one.
fn carried(before: &str, after: &str, offsets: &[(usize, usize)]) -> Option<Vec<(usize, usize)>> {
    if offsets.is_empty() {
        return Some(Vec::new());
    }
    let diff = similar::TextDiff::configure()
        .algorithm(similar::Algorithm::Myers)
        .diff_chars(before, after);
    // Byte offset of each char index (and of the end).
    let bytes = |text: &str| -> Vec<usize> {
        (text.char_indices().map(|(i, _)| i))
            .chain(std::iter::once(text.len()))
            .collect()
    };
    let (old_at, new_at) = (bytes(before), bytes(after));
    let kept: Vec<(usize, usize, usize)> = (diff.ops().iter())
        .filter_map(|op| match *op {
            similar::DiffOp::Equal {
                old_index,
                new_index,
                len,
            } => Some((
                old_at[old_index],
                old_at[old_index + len],
                new_at[new_index],
            )),
            _ => None,
        })
        .collect();
    (offsets.iter())
        .map(|&(at, width)| {
            let &(start, _, new_start) =
                (kept.iter()).find(|&&(start, end, _)| start <= at && at + width <= end)?;
            Some((at - start + new_start, width))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::zero::annotation::{annotated, plan};

    const TEXT: &str = "fn a() -> u8 { 1 } fn b() -> u8 { 2 }\nfn c() {}\n";

    fn shifts() -> (Shifts, Vec<Insertion>) {
        let insertions = plan(TEXT).unwrap().insertions;
        (
            Shifts::new([("src/lib.rs".to_string(), insertions.clone())].into()),
            insertions,
        )
    }

    #[test]
    fn columns_after_attributes_on_the_line_map_back() {
        let (shifts, insertions) = shifts();
        // Both functions of line 1 got an attribute in front of them (moving what follows),
        // and `c` one at the end of line 1 (moving nothing).
        let moves: Vec<(u32, bool)> = insertions
            .iter()
            .map(|i| (i.line, i.moves_tokens))
            .collect();
        assert_eq!(moves, [(1, true), (1, true), (1, false)]);
        let copy = annotated(TEXT, &insertions);
        let line = copy.lines().next().unwrap();
        for (user, token) in [(16, "1 }"), (20, "fn b"), (35, "2 }")] {
            let column = line.find(token).unwrap() as u32 + 1;
            assert_eq!(shifts.user_column("src/lib.rs", 1, column), user, "{token}");
            assert_eq!(&TEXT[user as usize - 1..][..token.len()], token);
        }
        // Other lines and files are left as they are.
        assert_eq!(shifts.user_column("src/lib.rs", 2, 4), 4);
        assert_eq!(shifts.user_column("src/other.rs", 1, 40), 40);
        assert!(shifts.touches("src/lib.rs", 1) && !shifts.touches("src/lib.rs", 3));
        assert!(shifts.moves_tokens());
    }

    #[test]
    fn the_copy_text_cuts_back_to_the_users() {
        let (_, insertions) = shifts();
        let copy = annotated(TEXT, &insertions);
        assert_eq!(cut(&copy, &copy_offsets(&insertions)).unwrap(), TEXT);
        // Ranges that do not hold an attribute are refused.
        assert_eq!(cut(TEXT, &[(0, 5)]), None);
    }

    #[test]
    fn a_fix_with_attributes_between_its_edits_maps_back() {
        let (_, insertions) = shifts();
        let copy = annotated(TEXT, &insertions);
        let offsets = copy_offsets(&insertions);
        // An edit in `a` and one in `c`: the attribute of `b` lies between them.
        let after = copy
            .replacen("{ 1 }", "{ 10 }", 1)
            .replacen("{}", "{ () }", 1);
        let moved = carried(&copy, &after, &offsets).unwrap();
        assert_eq!(
            cut(&after, &moved).unwrap(),
            "fn a() -> u8 { 10 } fn b() -> u8 { 2 }\nfn c() { () }\n"
        );
        // An edit inside an attribute is refused.
        let (at, _) = offsets[1];
        let mut broken = copy.clone();
        broken.replace_range(at + 2..at + 3, "x");
        assert_eq!(carried(&copy, &broken, &offsets), None);
    }

    #[test]
    fn json_positions_map_wherever_they_are() {
        let (shifts, insertions) = shifts();
        let copy = annotated(TEXT, &insertions);
        let column = copy.find("2 }").unwrap() as u64 + 1;
        let mut value = serde_json::json!({
            "version": 1,
            "sites": [
                {"id": 0, "path": "src/lib.rs", "file": "src/lib.rs", "line": 1,
                 "column": column, "end_line": 1, "end_column": column + 1},
                {"id": 1, "path": "src/lib.rs", "line": 2, "column": 4},
            ],
            "nested": {"file": "src/lib.rs", "line": 1, "column": column},
        });
        shifts.map_json(&mut value);
        assert_eq!(value["sites"][0]["column"], 35);
        assert_eq!(value["sites"][0]["end_column"], 36);
        assert_eq!(value["sites"][1]["column"], 4);
        assert_eq!(value["nested"]["column"], 35);
    }
}
