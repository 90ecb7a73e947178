//! What cargo-autodebug calls a site, and the syntactic rules that decide it, written once.
//!
//! The instrumentation (`autodebug-macros`) wraps sites in hooks; the lowering
//! (`autodebug-symbolic`) places the IR's sites where the macro places them; the patcher and
//! the source facts of `cargo-autodebug` find them again in a file by position and kind. All
//! of them read the rules here: which `let`s and assignments are reported ([`reports_let`],
//! [`reports_assign`]), which conditions are chains of operands ([`is_chain`],
//! [`contains_let`], [`chain_leaves`]), which `for` loops have a bound ([`for_range`]), which
//! arguments of a call statement are sites ([`is_effect_argument`]), which values are left
//! alone because they diverge ([`diverges`]), and how positions are counted ([`position`]).
//! [`sites`] walks a file and names every expression that has the shape of a site.

pub mod catalogue;
mod lines;
mod rules;
pub mod sites;

pub use lines::LineIndex;
pub use rules::*;

/// A 1-based line and 1-based character column from `proc-macro2`'s 1-based line and
/// 0-based character column: the convention of sites.
pub fn position(lc: proc_macro2::LineColumn) -> (u32, u32) {
    (lc.line as u32, lc.column as u32 + 1)
}

/// The 1-based line and character column of byte `offset` in `text` (a byte-order mark not
/// counted), as sites give them.
pub fn line_column(text: &str, offset: usize) -> (u32, u32) {
    let before = &text[..offset];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let line = before.matches('\n').count() + 1;
    let column = before[line_start..]
        .chars()
        .filter(|&c| c != '\u{feff}')
        .count()
        + 1;
    (line as u32, column as u32)
}

/// The text of a file as syn should parse it: a byte-order mark is skipped (rustc skips it
/// too, so positions on the first line do not count it) and a shebang line is blanked to
/// spaces, so byte offsets into the parsed text plus the returned offset are offsets into
/// `text`.
pub fn parseable(text: &str) -> (usize, String) {
    let (offset, body) = match text.strip_prefix('\u{feff}') {
        Some(rest) => ('\u{feff}'.len_utf8(), rest),
        None => (0, text),
    };
    let mut body = body.to_string();
    if body.starts_with("#!") && !body[2..].trim_start().starts_with('[') {
        let end = body.find('\n').unwrap_or(body.len());
        body.replace_range(..end, &" ".repeat(end));
    }
    (offset, body)
}

/// Parses a file as [`syn::parse_file`] does, and also one whose functions declare
/// parameters without names (`fn reseed(&mut self, Seed);`, which edition 2015 allows in a
/// trait and syn does not parse): such a parameter list is blanked to spaces and the file
/// parsed again, so that every position in the result is still a position in `text`. A
/// function parsed that way has no parameters; nothing else changes. Other errors are
/// returned as they are.
pub fn parse_file(text: &str) -> syn::Result<syn::File> {
    let mut text = text.to_string();
    let mut blanked = 0;
    loop {
        let error = match syn::parse_file(&text) {
            Ok(file) => return Ok(file),
            Err(error) => error,
        };
        let at = LineIndex::new(&text).offset(error.span().start());
        match at.and_then(|at| unnamed_parameters(&text, at)) {
            Some(list) if blanked < MAX_BLANKED => {
                // A character becomes as many spaces as it has bytes; lines stay lines.
                let spaces: String = text[list.clone()]
                    .chars()
                    .map(|c| match c {
                        '\n' => "\n".to_string(),
                        c => " ".repeat(c.len_utf8()),
                    })
                    .collect();
                text.replace_range(list, &spaces);
                blanked += 1;
            }
            _ => return Err(error),
        }
    }
}

/// Parameter lists [`parse_file`] blanks at most.
const MAX_BLANKED: usize = 64;

/// The inside of the parameter list of a `fn` declaration holding byte `at`, if `at` is in
/// one: the innermost unclosed `(` before it follows `fn NAME` (or `fn NAME<…>`).
fn unnamed_parameters(text: &str, at: usize) -> Option<std::ops::Range<usize>> {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut open = None;
    for i in (0..at.min(bytes.len())).rev() {
        match bytes[i] {
            b')' => depth += 1,
            b'(' if depth == 0 => {
                open = Some(i);
                break;
            }
            b'(' => depth -= 1,
            b'{' | b'}' | b';' => return None,
            _ => {}
        }
    }
    let open = open?;
    let before = text[..open].trim_end();
    let before = match before.strip_suffix('>') {
        Some(generic) => generic[..generic.rfind('<')?].trim_end(),
        None => before,
    };
    let name_start = before
        .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
        .map_or(0, |i| i + 1);
    if name_start == before.len() || !before[..name_start].trim_end().ends_with("fn") {
        return None;
    }
    let mut depth = 0usize;
    for (i, b) in bytes.iter().enumerate().skip(open + 1) {
        match b {
            b'(' => depth += 1,
            b')' if depth == 0 => return Some(open + 1..i),
            b')' => depth -= 1,
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod parse_tests {
    use super::*;

    #[test]
    fn unnamed_parameters_of_edition_2015_parse_and_positions_stay() {
        let text = "pub trait Seedable<Seed>: Sized {\n    fn reseed(&mut self, Seed);\n    \
                    fn pair<T>(&self, T, (u8, u8)) -> bool;\n}\n\n\
                    pub fn larger(a: u32, b: u32) -> u32 {\n    if a > b { a } else { b }\n}\n";
        assert!(syn::parse_file(text).is_err());
        let file = parse_file(text).unwrap();
        let syn::Item::Fn(larger) = &file.items[1] else {
            panic!("{:?}", file.items[1]);
        };
        assert_eq!(larger.sig.ident, "larger");
        assert_eq!(position(larger.sig.ident.span().start()), (6, 8));
        assert_eq!(larger.sig.inputs.len(), 2);
        // Other errors stay errors.
        assert!(parse_file("fn f() { let = ; }").is_err());
        assert!(parse_file("fn f(x) -> u8 { x }").is_ok_and(|f| f.items.len() == 1));
    }
}
