//! Positions and text of syntax nodes, measured as the instrumentation measures its sites:
//! from the start of a node's first token to the end of its last, in 1-based lines and
//! 1-based character columns (`proc-macro2`'s columns are 0-based: converted here, once).

use proc_macro2::{LineColumn, TokenStream};
use quote::ToTokens;

use crate::ir::{Pos, Span};

/// The text of the file being lowered, for the source text of spans.
pub(crate) struct Source<'a> {
    lines: Vec<&'a str>,
}

impl<'a> Source<'a> {
    pub(crate) fn new(text: &'a str) -> Source<'a> {
        Source {
            lines: text.lines().collect(),
        }
    }

    /// The span of a syntax node.
    pub(crate) fn span(&self, node: &impl ToTokens) -> Span {
        self.span_of_tokens(&node.to_token_stream())
    }

    /// The span of a token sequence: the start of its first token to the end of its last.
    /// Empty sequences (and tokens without a position) get line 0.
    pub(crate) fn span_of_tokens(&self, tokens: &TokenStream) -> Span {
        let mut iter = tokens.clone().into_iter();
        let Some(first) = iter.next() else {
            return Span::default();
        };
        let last = iter.last().unwrap_or_else(|| first.clone());
        let start = pos(first.span().start());
        let end = pos(last.span().end());
        Span {
            start,
            end,
            code: self.text(start, end),
        }
    }

    /// The text between two positions (empty when they are not in the file).
    pub(crate) fn text(&self, start: Pos, end: Pos) -> String {
        if start.line == 0 || end < start {
            return String::new();
        }
        let mut out = String::new();
        for line in start.line..=end.line {
            let Some(text) = self.lines.get(line as usize - 1) else {
                break;
            };
            let from = if line == start.line {
                start.column as usize - 1
            } else {
                0
            };
            let to = if line == end.line {
                end.column as usize - 1
            } else {
                usize::MAX
            };
            if line > start.line {
                out.push('\n');
            }
            out.extend(text.chars().skip(from).take(to.saturating_sub(from)));
        }
        out
    }
}

/// The one conversion from `proc-macro2`'s 1-based line, 0-based column.
pub(crate) fn pos(lc: LineColumn) -> Pos {
    Pos {
        line: lc.line as u32,
        column: lc.column as u32 + 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_cover_first_to_last_token_with_text() {
        let text = "fn f() {\n    let x = a\n        + 1;\n}\n";
        let file = syn::parse_file(text).unwrap();
        let syn::Item::Fn(f) = &file.items[0] else {
            panic!("not a fn")
        };
        let syn::Stmt::Local(local) = &f.block.stmts[0] else {
            panic!("not a let")
        };
        let source = Source::new(text);
        let span = source.span(&local.init.as_ref().unwrap().expr);
        assert_eq!(
            span.start,
            Pos {
                line: 2,
                column: 13
            }
        );
        assert_eq!(
            span.end,
            Pos {
                line: 3,
                column: 12
            }
        );
        assert_eq!(span.code, "a\n        + 1");
    }

    #[test]
    fn columns_count_characters() {
        let text = "fn f() { let s = \"é\"; let y = 1; }";
        let file = syn::parse_file(text).unwrap();
        let syn::Item::Fn(f) = &file.items[0] else {
            panic!("not a fn")
        };
        let syn::Stmt::Local(local) = &f.block.stmts[1] else {
            panic!("not a let")
        };
        let source = Source::new(text);
        let span = source.span(&local.init.as_ref().unwrap().expr);
        assert_eq!(span.start.column, 31);
        assert_eq!(span.code, "1");
    }
}
