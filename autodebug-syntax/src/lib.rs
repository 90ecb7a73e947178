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
pub mod contract;
pub mod lenient;
mod lines;
mod macros;
mod rules;
pub mod sites;

pub use lenient::{ByItem, LeftOutItem, parse_file, parse_file_by_item, parse_repaired};
pub use lines::LineIndex;
pub use macros::{macro_rules_items, parse_file_with_macro_items};
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
        let syn::Item::Trait(seedable) = &file.items[0] else {
            panic!("{:?}", file.items[0]);
        };
        let syn::TraitItem::Fn(reseed) = &seedable.items[0] else {
            panic!()
        };
        assert_eq!(reseed.sig.inputs.len(), 2);
        // Other errors stay errors.
        assert!(parse_file("fn f() { let = ; }").is_err());
        assert!(parse_file("fn f(x) -> u8 { x }").is_ok_and(|f| f.items.len() == 1));
    }
}
