//! Byte offsets and positions in a file's text.

use proc_macro2::LineColumn;

/// Byte offsets of line starts, to turn `proc_macro2` positions (1-based lines, 0-based
/// character columns) into byte offsets and back.
pub struct LineIndex<'a> {
    text: &'a str,
    starts: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    /// The index of `text`.
    pub fn new(text: &'a str) -> LineIndex<'a> {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { text, starts }
    }

    /// Where the characters of a 1-based line start: past a byte-order mark on line 1,
    /// which the parser drops before counting columns (and so does the compiler).
    fn line_start(&self, line: usize) -> Option<usize> {
        let start = *self.starts.get(line.checked_sub(1)?)?;
        Some(if line == 1 && self.text.starts_with('\u{feff}') {
            '\u{feff}'.len_utf8()
        } else {
            start
        })
    }

    /// The byte offset of a `proc_macro2` position.
    pub fn offset(&self, at: LineColumn) -> Option<usize> {
        let start = self.line_start(at.line)?;
        let line = &self.text[start..];
        Some(
            start
                + line
                    .char_indices()
                    .nth(at.column)
                    .map_or(line.len(), |(i, _)| i),
        )
    }

    /// The byte offset of a 1-based line and 1-based character column (a column one past
    /// the line's last character is the line's end); none past the line.
    pub fn offset_at(&self, line: u32, column: u32) -> Option<usize> {
        let start = self.line_start(line as usize)?;
        let end = self
            .starts
            .get(line as usize)
            .map_or(self.text.len(), |next| next - 1);
        let text = self.text.get(start..end)?;
        let column = (column as usize).checked_sub(1)?;
        match text.char_indices().nth(column) {
            Some((i, _)) => Some(start + i),
            None if column == text.chars().count() => Some(end),
            None => None,
        }
    }

    /// The 1-based line and 1-based character column of a byte offset.
    pub fn line_column(&self, offset: usize) -> (u32, u32) {
        let line = self.starts.partition_point(|&s| s <= offset);
        let start = self.line_start(line).unwrap_or(0).min(offset);
        let column = self.text[start..offset].chars().count() + 1;
        (line as u32, column as u32)
    }

    /// The text of a 1-based line, without its line break.
    pub fn line(&self, line: u32) -> Option<&'a str> {
        let start = *self.starts.get((line as usize).checked_sub(1)?)?;
        let end = self
            .starts
            .get(line as usize)
            .map_or(self.text.len(), |next| next - 1);
        Some(self.text[start..end].trim_end_matches('\r'))
    }
}
