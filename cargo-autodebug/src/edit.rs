//! What a source edit is, for every stage that makes, applies or shows one: replacements of
//! byte spans and applying them, fingerprints of texts, unified diffs, an edit in words, and
//! the site kind a syntax rule names. On the ground floor beside `model/`: repair,
//! publishing, localization and zero-annotation mode import it, and it imports none of them.

use std::ops::Range;

use autodebug_runtime::protocol::SiteKind;

use crate::model::{EditEntry, FileChange, Fix};

pub use autodebug_syntax::LineIndex;

/// A fix's edits in one line: `` `x` → `y`, `a < b` → `a <= b` ``; the same edit at several
/// places (copies of one code) once, with its places: `` `x` → `y` (2 places: src/a.rs:4,
/// src/a.rs:9) ``.
pub fn describe(fix: &Fix) -> String {
    let mut phrases: Vec<(String, Vec<String>)> = Vec::new();
    for e in &fix.edits {
        let phrase = edit_phrase(&e.original, &e.replacement);
        let at = format!("{}:{}", e.file, e.line);
        match phrases.iter_mut().find(|(p, _)| *p == phrase) {
            Some((_, places)) => places.push(at),
            None => phrases.push((phrase, vec![at])),
        }
    }
    let edits: Vec<String> = (phrases.into_iter())
        .map(|(phrase, places)| match places.len() {
            1 => phrase,
            n => format!("{phrase} ({n} places: {})", places.join(", ")),
        })
        .collect();
    edits.join(", ")
}

/// One edit in words: `` `a` → `b` ``, or `` insert `x` `` and `` delete `x` `` for a
/// statement put in or taken out.
pub fn edit_phrase(original: &str, replacement: &str) -> String {
    let (original, replacement) = (one_line(original), one_line(replacement));
    if original.is_empty() {
        format!("insert `{replacement}`")
    } else if replacement.is_empty() {
        format!("delete `{original}`")
    } else {
        format!("`{original}` → `{replacement}`")
    }
}

/// Code on one line, without backticks that would end an inline code span.
pub fn one_line(code: &str) -> String {
    code.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace('`', "'")
}

/// One replacement of a fix in one file: bytes of the text before, and what replaces them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replacement {
    pub bytes: Range<usize>,
    /// 1-based line and character column of the start; end exclusive.
    pub start: (u32, u32),
    pub end: (u32, u32),
    pub original: String,
    pub text: String,
}

/// The replacements that turn `change.before` into `change.after`: the fix's edits in this
/// file when each is found where it says (its original text at its span), else the one
/// region between the texts' common prefix and suffix.
pub fn replacements(change: &FileChange, edits: &[EditEntry]) -> Vec<Replacement> {
    let index = LineIndex::new(&change.before);
    let mut found: Vec<Replacement> = Vec::new();
    for edit in edits.iter().filter(|e| e.file == change.path) {
        let (Some(start), Some(end)) = (
            index.offset_at(edit.line, edit.column),
            index.offset_at(edit.end_line, edit.end_column),
        ) else {
            found.clear();
            break;
        };
        if change.before.get(start..end) != Some(edit.original.as_str()) {
            found.clear();
            break;
        }
        found.push(Replacement {
            bytes: start..end,
            start: (edit.line, edit.column),
            end: (edit.end_line, edit.end_column),
            original: edit.original.clone(),
            text: edit.replacement.clone(),
        });
    }
    found.sort_by_key(|r| r.bytes.start);
    let disjoint = found.windows(2).all(|w| w[0].bytes.end <= w[1].bytes.start);
    if !found.is_empty() && disjoint && apply(&change.before, &found) == change.after {
        return found;
    }
    // The region the texts differ in.
    let (before, after) = (change.before.as_bytes(), change.after.as_bytes());
    let mut prefix = before.iter().zip(after).take_while(|(a, b)| a == b).count();
    while !change.before.is_char_boundary(prefix) || !change.after.is_char_boundary(prefix) {
        prefix -= 1;
    }
    let mut suffix = before[prefix..]
        .iter()
        .rev()
        .zip(after[prefix..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    while !change.before.is_char_boundary(before.len() - suffix)
        || !change.after.is_char_boundary(after.len() - suffix)
    {
        suffix -= 1;
    }
    let bytes = prefix..before.len() - suffix;
    if bytes.is_empty() && prefix == after.len() - suffix {
        return Vec::new();
    }
    vec![Replacement {
        start: index.line_column(bytes.start),
        end: index.line_column(bytes.end),
        original: change.before[bytes.clone()].to_string(),
        text: change.after[prefix..after.len() - suffix].to_string(),
        bytes,
    }]
}

/// `text` with the (sorted, disjoint) replacements made.
pub fn apply(text: &str, replacements: &[Replacement]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for r in replacements {
        out.push_str(&text[at..r.bytes.start]);
        out.push_str(&r.text);
        at = r.bytes.end;
    }
    out.push_str(&text[at..]);
    out
}

/// A fingerprint of a file's text (FNV-1a, 64 bits): enough to notice that a file changed
/// between the analysis and `--apply`, which also compares the text itself.
pub fn fingerprint(text: &str) -> String {
    use std::hash::Hasher;
    let mut hasher = fnv::FnvHasher::default();
    hasher.write(text.as_bytes());
    format!("fnv1a64:{:016x}", hasher.finish())
}

/// The unified diff from `before` to `after` of the file at `path` (relative to the
/// workspace root, `/`-separated), with `a/` and `b/` prefixes as `git diff` writes them,
/// three lines of context. Empty when nothing changed.
pub fn unified_diff(path: &str, before: &str, after: &str) -> String {
    if before == after {
        return String::new();
    }
    similar::TextDiff::from_lines(before, after)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{path}"), &format!("b/{path}"))
        .to_string()
}

/// The runtime's `SiteKind` that a kind of the site rules names (`"Let"`): the variant of
/// that name.
pub(crate) fn site_kind(name: autodebug_syntax::sites::Kind) -> SiteKind {
    use serde::de::IntoDeserializer;
    let lower = name.to_ascii_lowercase();
    serde::Deserialize::deserialize(lower.as_str().into_deserializer())
        .unwrap_or_else(|_: serde::de::value::Error| panic!("no site kind `{name}`"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(before: &str, after: &str) -> FileChange {
        FileChange {
            path: "src/lib.rs".into(),
            before: before.into(),
            after: after.into(),
        }
    }

    fn edit(
        line: u32,
        column: u32,
        end_column: u32,
        original: &str,
        replacement: &str,
    ) -> EditEntry {
        EditEntry {
            file: "src/lib.rs".into(),
            line,
            column,
            end_line: line,
            end_column,
            kind: autodebug_runtime::protocol::SiteKind::Assign,
            original: original.into(),
            replacement: replacement.into(),
        }
    }

    #[test]
    fn edits_found_where_they_say_are_the_replacements() {
        let before = "fn f() {\n    let ü = 1;\n    r = ü + 1;\n}\n";
        let after = "fn f() {\n    let ü = 1;\n    r = ü;\n}\n";
        let c = change(before, after);
        let r = replacements(&c, &[edit(3, 9, 14, "ü + 1", "ü")]);
        assert_eq!(r.len(), 1);
        assert_eq!(&before[r[0].bytes.clone()], "ü + 1");
        assert_eq!(r[0].start, (3, 9));
        assert_eq!(apply(before, &r), after);
    }

    #[test]
    fn edits_that_do_not_match_fall_back_to_the_changed_region() {
        let before = "a\nr = x + 1;\nb\n";
        let after = "a\nr = x;\nb\n";
        let r = replacements(&change(before, after), &[edit(2, 1, 3, "zz", "y")]);
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].original, " + 1");
        assert_eq!(r[0].start, (2, 6));
        assert_eq!(apply(before, &r), after);
    }

    #[test]
    fn line_starts_convert_both_ways() {
        let text = "ab\r\nçd\nlast";
        let index = LineIndex::new(text);
        assert_eq!(index.offset_at(2, 2), Some(6));
        assert_eq!(index.line_column(6), (2, 2));
        assert_eq!(index.offset_at(2, 3), Some(7));
        assert_eq!(index.offset_at(2, 4), None);
        assert_eq!(index.line(1), Some("ab"));
        assert_eq!(index.line(3), Some("last"));
    }
}
