//! Positions in a source file, converted in exactly one place.
//!
//! `proc-macro2` (with `span-locations`) reports 1-based lines and 0-based *character*
//! columns; edits need byte offsets; reports (`report.json`, `coverage.json`, `faults.json`)
//! use 1-based character columns with an exclusive end. Everything goes through [`LineIndex`].

use proc_macro2::{LineColumn, Span};
use serde::{Deserialize, Serialize};

/// A position as reports write it: 1-based line, 1-based character column.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Pos {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, counted in characters (not bytes).
    pub column: usize,
}

/// A half-open range of report positions (`end` is just past the last character).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PosRange {
    /// First character.
    pub start: Pos,
    /// Just past the last character.
    pub end: Pos,
}

impl PosRange {
    /// Whether the two ranges share at least one character. An empty range (as a
    /// zero-width insertion point) overlaps a range that contains its position.
    pub fn overlaps(&self, other: &PosRange) -> bool {
        let a = self.nonempty();
        let b = other.nonempty();
        a.start < b.end && b.start < a.end
    }

    /// The range widened to one character if it is empty, so that a point still occupies
    /// the character it names.
    fn nonempty(&self) -> PosRange {
        if self.end > self.start {
            *self
        } else {
            PosRange {
                start: self.start,
                end: Pos {
                    line: self.start.line,
                    column: self.start.column + 1,
                },
            }
        }
    }
}

/// Where every line of one text starts, for conversions between byte offsets and positions.
#[derive(Clone, Debug)]
pub struct LineIndex<'a> {
    text: &'a str,
    /// Byte offset of the first character of each line (line 1 at index 0).
    line_starts: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    /// Indexes `text`. Lines end at `\n` (a `\r` before it is an ordinary character, as
    /// `proc-macro2` counts it).
    pub fn new(text: &'a str) -> LineIndex<'a> {
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { text, line_starts }
    }

    /// The byte offset of a `proc-macro2` position (1-based line, 0-based char column).
    /// Positions past the end of a line clamp to its end.
    pub fn offset_of_line_column(&self, lc: LineColumn) -> usize {
        self.offset_of(Pos {
            line: lc.line,
            column: lc.column + 1,
        })
    }

    /// The byte offset of a report position (1-based line, 1-based char column), clamped to
    /// the end of its line and of the text.
    pub fn offset_of(&self, pos: Pos) -> usize {
        let Some(&start) = self.line_starts.get(pos.line.saturating_sub(1)) else {
            return self.text.len();
        };
        let line_end = self.text[start..]
            .find('\n')
            .map_or(self.text.len(), |i| start + i);
        let line = &self.text[start..line_end];
        let chars = pos.column.saturating_sub(1);
        start
            + line
                .char_indices()
                .nth(chars)
                .map_or(line.len(), |(i, _)| i)
    }

    /// The report position of a byte offset (which must lie on a character boundary).
    pub fn pos_of(&self, offset: usize) -> Pos {
        let line = match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let start = self.line_starts[line];
        Pos {
            line: line + 1,
            column: self.text[start..offset].chars().count() + 1,
        }
    }

    /// The byte range of a span of a token tree parsed from this text.
    pub fn byte_range(&self, span: Span) -> std::ops::Range<usize> {
        self.offset_of_line_column(span.start())..self.offset_of_line_column(span.end())
    }

    /// The report range of a byte range.
    pub fn pos_range(&self, bytes: std::ops::Range<usize>) -> PosRange {
        PosRange {
            start: self.pos_of(bytes.start),
            end: self.pos_of(bytes.end),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(line: usize, column: usize) -> Pos {
        Pos { line, column }
    }

    #[test]
    fn offsets_count_characters_not_bytes() {
        // "é" and "→" are 2 and 3 bytes long: column 5 of line 2 is the `x` after them.
        let text = "fn f() {}\n// é→ x\nlet y;\n";
        let idx = LineIndex::new(text);
        let off = idx.offset_of(p(2, 7));
        assert_eq!(&text[off..off + 1], "x");
        assert_eq!(idx.pos_of(off), p(2, 7));
        assert_eq!(idx.offset_of(p(3, 1)), text.find("let").unwrap());
        assert_eq!(idx.pos_of(text.find("y;").unwrap()), p(3, 5));
    }

    #[test]
    fn positions_clamp_to_the_line_and_the_text() {
        let text = "ab\ncd";
        let idx = LineIndex::new(text);
        assert_eq!(idx.offset_of(p(1, 10)), 2);
        assert_eq!(idx.offset_of(p(9, 1)), text.len());
        assert_eq!(idx.pos_of(text.len()), p(2, 3));
    }

    #[test]
    fn spans_of_parsed_tokens_map_to_their_bytes() {
        let text = "fn f() { let s = \"ü\"; s < \"ö\" }";
        let file = syn::parse_file(text).unwrap();
        let idx = LineIndex::new(text);
        let tokens: Vec<proc_macro2::TokenTree> = quote::ToTokens::to_token_stream(&file)
            .into_iter()
            .collect();
        // The body group: from `{` to `}` inclusive.
        let body = tokens.last().unwrap().span();
        let r = idx.byte_range(body);
        assert_eq!(&text[r.clone()], &text[text.find('{').unwrap()..]);
        assert_eq!(idx.pos_range(r).end, p(1, text.chars().count() + 1));
    }

    #[test]
    fn overlap_is_half_open_and_points_occupy_a_character() {
        let r = |l1, c1, l2, c2| PosRange {
            start: p(l1, c1),
            end: p(l2, c2),
        };
        assert!(r(3, 5, 3, 10).overlaps(&r(3, 9, 3, 12)));
        assert!(!r(3, 5, 3, 10).overlaps(&r(3, 10, 3, 12)));
        assert!(r(2, 1, 4, 1).overlaps(&r(3, 50, 3, 51)));
        assert!(!r(2, 1, 3, 1).overlaps(&r(3, 1, 3, 2)));
        // A point at 3:7 is the character at 3:7.
        assert!(r(3, 7, 3, 7).overlaps(&r(3, 5, 3, 8)));
        assert!(!r(3, 8, 3, 8).overlaps(&r(3, 5, 3, 8)));
    }
}
