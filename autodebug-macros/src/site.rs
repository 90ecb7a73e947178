//! Sites as the generated code declares them: a `static ::autodebug_runtime::__rt::Site`
//! holding the position of the user's tokens. Positions come from the compiler's spans and
//! are converted to 1-based lines and 1-based character columns here, and only here.

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{quote, quote_spanned};

/// Whether the build asked for instrumentation (`AUTODEBUG_INSTRUMENT=1`, set by `cargo autodebug`).
pub(crate) fn instrumentation_on() -> bool {
    std::env::var("AUTODEBUG_INSTRUMENT").is_ok_and(|v| v == "1")
}

/// A 1-based line and 1-based character column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Position {
    pub line: u32,
    pub column: u32,
}

impl Position {
    fn start_of(span: Span) -> Position {
        Position::at(span.start())
    }

    fn end_of(span: Span) -> Position {
        Position::at(span.end())
    }

    fn at(lc: proc_macro2::LineColumn) -> Position {
        let (line, column) = autodebug_syntax::position(lc);
        Position { line, column }
    }
}

/// Start and end of a token sequence (on stable Rust spans cannot be joined, so the ends
/// are taken from the first and last token).
pub(crate) fn range_of(tokens: &TokenStream) -> Option<(Position, Position)> {
    let mut iter = tokens.clone().into_iter();
    let first = iter.next()?;
    let last = iter.last().unwrap_or_else(|| first.clone());
    Some((
        Position::start_of(first.span()),
        Position::end_of(last.span()),
    ))
}

/// The source text of a token sequence, rebuilt from the tokens' own text and positions
/// (comments inside the span are lost; spacing and line breaks are kept).
pub(crate) fn source_text(tokens: &TokenStream) -> String {
    let mut out = String::new();
    let mut at: Option<Position> = None;
    append_text(tokens.clone(), &mut out, &mut at);
    out
}

fn append_text(tokens: TokenStream, out: &mut String, at: &mut Option<Position>) {
    for tt in tokens {
        match &tt {
            TokenTree::Group(g) => {
                let (open, close) = match g.delimiter() {
                    proc_macro2::Delimiter::Parenthesis => ("(", ")"),
                    proc_macro2::Delimiter::Brace => ("{", "}"),
                    proc_macro2::Delimiter::Bracket => ("[", "]"),
                    proc_macro2::Delimiter::None => ("", ""),
                };
                push_at(out, at, Position::start_of(g.span_open()), open);
                append_text(g.stream(), out, at);
                // A group re-printed by syn carries one span for the whole group (its
                // `span_close` starts at the opening delimiter); its end is right either way.
                let end = Position::end_of(g.span_close());
                let close_start = Position {
                    line: end.line,
                    column: end.column.saturating_sub(close.len() as u32),
                };
                push_at(out, at, close_start, close);
            }
            _ => {
                let text = tt.span().source_text().unwrap_or_else(|| tt.to_string());
                push_at(out, at, Position::start_of(tt.span()), &text);
                *at = Some(Position::end_of(tt.span()));
                continue;
            }
        }
        *at = Some(Position::end_of(tt.span()));
    }
}

fn push_at(out: &mut String, at: &mut Option<Position>, start: Position, text: &str) {
    if let Some(prev) = *at {
        if start.line > prev.line {
            out.push('\n');
            for _ in 1..start.column {
                out.push(' ');
            }
        } else if start.line == prev.line && start.column > prev.column {
            for _ in prev.column..start.column {
                out.push(' ');
            }
        }
    }
    out.push_str(text);
    *at = Some(Position {
        line: start.line,
        column: start.column + text.chars().count() as u32,
    });
}

/// An expression of type `&'static ::autodebug_runtime::__rt::Site` for the site covering
/// `tokens`. `kind` is a `SiteKind` variant name; `function` the enclosing function's name
/// as the user reads it (`max`, `Stack::push`). `file!()` is spanned on the user's tokens so
/// that it names the user's file.
pub(crate) fn site_ref(tokens: &TokenStream, kind: &str, function: &str) -> TokenStream {
    let span = tokens
        .clone()
        .into_iter()
        .next()
        .map(|t| t.span())
        .unwrap_or_else(Span::call_site);
    let (start, end) = range_of(tokens).unwrap_or((
        Position { line: 0, column: 0 },
        Position { line: 0, column: 0 },
    ));
    let code = source_text(tokens);
    let kind = proc_macro2::Ident::new(kind, Span::call_site());
    let (line, column, end_line, end_column) = (start.line, start.column, end.line, end.column);
    let file = quote_spanned!(span=> file!());
    quote! {
        {
            static __AUTODEBUG_SITE: ::autodebug_runtime::__rt::Site = ::autodebug_runtime::__rt::Site::new(
                #file, #line, #column, #end_line, #end_column,
                ::autodebug_runtime::__rt::SiteKind::#kind,
                #code,
                ::autodebug_runtime::__rt::concat!(::autodebug_runtime::__rt::module_path!(), "::", #function),
            );
            &__AUTODEBUG_SITE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::ToTokens;

    fn reprinted(code: &str) -> String {
        let expr: syn::Expr = syn::parse_str(code).unwrap();
        source_text(&expr.to_token_stream())
    }

    #[test]
    fn source_text_keeps_the_user_spacing() {
        for code in [
            "Fsm { state }",
            "a[i] < b",
            "f(x, y) + (z * 2)",
            "s.len() - 1",
            "v[..n].iter()",
        ] {
            assert_eq!(reprinted(code), code);
        }
    }

    #[test]
    fn source_text_keeps_line_breaks() {
        assert_eq!(
            reprinted("foo(\n    a,\n    b,\n)"),
            "foo(\n    a,\n    b,\n)"
        );
    }
}
