//! A lexer in the manner of the Siemens suite's `print_tokens` (the token printer of
//! Hutchins et al.'s test-adequacy study), for a small Lisp-like language.
//!
//! Tokens are keywords (`and`, `or`, `if`, `xor`, `lambda`, `=>`), identifiers (a letter,
//! then letters, digits or `_`), decimal numbers, strings in double quotes with the escapes
//! `\n`, `\t`, `\"` and `\\`, character constants (`#` and one character), comments (`;`
//! to the end of the line) and the special symbols `(` `)` `[` `]` `'` `` ` `` `,`.
//! Keywords, identifiers, numbers and character constants must end at a delimiter (white
//! space, a special symbol, `"` or `;`); anything that does not form a token becomes an
//! error token running to the next delimiter. The lexer is a hand-written state machine
//! over the characters, by index.

// Scans are written as explicit index loops on purpose: the code under test stays in
// instrumented expressions rather than in iterator adaptors and closures.
#![allow(clippy::needless_range_loop)]

use autodebug_runtime::autodebug;

/// The keywords; `=>` is the only one spelled with symbols.
pub const KEYWORDS: [&str; 6] = ["and", "or", "if", "xor", "lambda", "=>"];

/// One token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Token {
    /// One of [`KEYWORDS`].
    Keyword(String),
    /// A name that is not a keyword.
    Identifier(String),
    /// A decimal number that fits in a `u64`.
    Number(u64),
    /// A string constant, escapes decoded.
    Str(String),
    /// A character constant `#c`.
    Char(char),
    /// A comment: the text after `;` up to the end of the line.
    Comment(String),
    /// `(`
    LParen,
    /// `)`
    RParen,
    /// `[`
    LSquare,
    /// `]`
    RSquare,
    /// `'`
    Quote,
    /// `` ` ``
    BackQuote,
    /// `,`
    Comma,
    /// Text that forms no token.
    Error(String),
}

/// The token of a special symbol.
#[autodebug]
pub fn special(c: char) -> Option<Token> {
    match c {
        '(' => Some(Token::LParen),
        ')' => Some(Token::RParen),
        '[' => Some(Token::LSquare),
        ']' => Some(Token::RSquare),
        '\'' => Some(Token::Quote),
        '`' => Some(Token::BackQuote),
        ',' => Some(Token::Comma),
        _ => None,
    }
}

/// Whether `c` ends a keyword, identifier, number or character constant.
#[autodebug]
pub fn is_delimiter(c: char) -> bool {
    c.is_whitespace() || special(c).is_some() || c == '"' || c == ';'
}

/// Whether `word` is one of [`KEYWORDS`].
#[autodebug]
pub fn is_keyword(word: &str) -> bool {
    for keyword in KEYWORDS {
        if keyword == word {
            return true;
        }
    }
    false
}

/// The characters `start..end` as a string.
fn text(chars: &[char], start: usize, end: usize) -> String {
    chars[start..end].iter().collect()
}

/// Index of the first character at or after `from` for which `stop` holds (the length if
/// there is none).
#[autodebug]
fn scan(chars: &[char], from: usize, stop: fn(char) -> bool) -> usize {
    let mut end = chars.len();
    for j in from..chars.len() {
        if stop(chars[j]) {
            end = j;
            break;
        }
    }
    end
}

/// Whether `c` ends a line (and so a comment, or a string that is not closed).
#[autodebug]
fn is_newline(c: char) -> bool {
    c == '\n'
}

/// `token`, which started at `start` and stopped before `end`, if a delimiter (or the end
/// of input) follows; otherwise an error token for the whole run up to the next delimiter.
/// Returns the token and the index after it.
#[autodebug]
fn delimited(chars: &[char], start: usize, end: usize, token: Token) -> (Token, usize) {
    if end < chars.len() && !is_delimiter(chars[end]) {
        let stop = scan(chars, end, is_delimiter);
        (Token::Error(text(chars, start, stop)), stop)
    } else {
        (token, end)
    }
}

/// A keyword or identifier starting with the letter at `start`.
#[autodebug]
fn lex_word(chars: &[char], start: usize) -> (Token, usize) {
    let mut end = chars.len();
    for j in start + 1..chars.len() {
        let c = chars[j];
        if !(c.is_ascii_alphanumeric() || c == '_') {
            end = j;
            break;
        }
    }
    let word = text(chars, start, end);
    let token = if is_keyword(&word) {
        Token::Keyword(word)
    } else {
        Token::Identifier(word)
    };
    delimited(chars, start, end, token)
}

/// A number starting with the digit at `start`; an error token if it overflows a `u64`.
#[autodebug]
fn lex_number(chars: &[char], start: usize) -> (Token, usize) {
    let mut value: u64 = 0;
    let mut overflow = false;
    let mut end = chars.len();
    for j in start..chars.len() {
        let c = chars[j];
        if !c.is_ascii_digit() {
            end = j;
            break;
        }
        let digit = c as u64 - '0' as u64;
        if value > (u64::MAX - digit) / 10 {
            overflow = true;
        } else {
            value = value * 10 + digit;
        }
    }
    if overflow {
        let stop = scan(chars, end, is_delimiter);
        return (Token::Error(text(chars, start, stop)), stop);
    }
    delimited(chars, start, end, Token::Number(value))
}

/// The character an escape `\c` stands for.
#[autodebug]
pub fn unescape(c: char) -> Option<char> {
    match c {
        'n' => Some('\n'),
        't' => Some('\t'),
        '"' => Some('"'),
        '\\' => Some('\\'),
        _ => None,
    }
}

/// A string starting with the `"` at `start`. Strings do not span lines: one without its
/// closing quote on the same line is an error token up to the end of the line, and so is
/// one with an unknown escape (up to its closing quote).
#[autodebug]
fn lex_string(chars: &[char], start: usize) -> (Token, usize) {
    let mut value = String::new();
    let mut escaped = false;
    let mut bad_escape = false;
    for j in start + 1..chars.len() {
        let c = chars[j];
        if c == '\n' {
            break;
        }
        if escaped {
            match unescape(c) {
                Some(decoded) => value.push(decoded),
                None => bad_escape = true,
            }
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if c == '"' {
            if bad_escape {
                return (Token::Error(text(chars, start, j + 1)), j + 1);
            }
            return (Token::Str(value), j + 1);
        } else {
            value.push(c);
        }
    }
    let stop = scan(chars, start, is_newline);
    (Token::Error(text(chars, start, stop)), stop)
}

/// A character constant starting with the `#` at `start`.
#[autodebug]
fn lex_char(chars: &[char], start: usize) -> (Token, usize) {
    let next = start + 1;
    if next < chars.len() && !chars[next].is_whitespace() {
        delimited(chars, start, next + 1, Token::Char(chars[next]))
    } else {
        (Token::Error("#".to_string()), next)
    }
}

/// The tokens of `source`, in order; white space separates tokens and is dropped.
#[autodebug]
pub fn tokenize(source: &str) -> Vec<Token> {
    let chars: Vec<char> = source.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    // Every step consumes at least one character, so this many steps always suffice.
    for _ in 0..chars.len() {
        if i >= chars.len() {
            break;
        }
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        let (token, next) = if let Some(symbol) = special(c) {
            (symbol, i + 1)
        } else if c == ';' {
            let stop = scan(&chars, i, is_newline);
            (Token::Comment(text(&chars, i + 1, stop)), stop)
        } else if c == '"' {
            lex_string(&chars, i)
        } else if c == '#' {
            lex_char(&chars, i)
        } else if c.is_ascii_digit() {
            lex_number(&chars, i)
        } else if c.is_ascii_alphabetic() {
            lex_word(&chars, i)
        } else if c == '=' && i + 1 < chars.len() && chars[i + 1] == '>' {
            delimited(&chars, i, i + 2, Token::Keyword("=>".to_string()))
        } else {
            let stop = scan(&chars, i, is_delimiter);
            (Token::Error(text(&chars, i, stop)), stop)
        };
        tokens.push(token);
        i = next;
    }
    tokens
}

#[cfg(test)]
mod tests {
    use super::*;
    use Token::*;

    fn kw(s: &str) -> Token {
        Keyword(s.to_string())
    }

    fn id(s: &str) -> Token {
        Identifier(s.to_string())
    }

    fn err(s: &str) -> Token {
        Error(s.to_string())
    }

    fn string(s: &str) -> Token {
        Str(s.to_string())
    }

    #[test]
    fn special_symbols() {
        assert_eq!(
            tokenize("()[]'`,"),
            vec![LParen, RParen, LSquare, RSquare, Quote, BackQuote, Comma]
        );
        assert_eq!(special('{'), None);
        assert_eq!(special('a'), None);
        assert_eq!(tokenize(" ( x ) "), vec![LParen, id("x"), RParen]);
    }

    #[test]
    fn delimiters_and_keywords() {
        for c in [
            ' ', '\t', '\n', '(', ')', '[', ']', '\'', '`', ',', '"', ';',
        ] {
            assert!(is_delimiter(c), "{c:?}");
        }
        for c in ['a', '1', '#', '=', '>', '_', '{'] {
            assert!(!is_delimiter(c), "{c:?}");
        }
        for word in ["and", "or", "if", "xor", "lambda", "=>"] {
            assert!(is_keyword(word), "{word}");
        }
        for word in ["an", "ands", "If", "", "lambd", "x"] {
            assert!(!is_keyword(word), "{word}");
        }
    }

    #[test]
    fn keywords_and_identifiers() {
        assert_eq!(
            tokenize("and or if xor lambda =>"),
            vec![
                kw("and"),
                kw("or"),
                kw("if"),
                kw("xor"),
                kw("lambda"),
                kw("=>")
            ]
        );
        assert_eq!(
            tokenize("andy If x1 a_b z"),
            vec![id("andy"), id("If"), id("x1"), id("a_b"), id("z")]
        );
        assert_eq!(
            tokenize("lambda(x)"),
            vec![kw("lambda"), LParen, id("x"), RParen]
        );
        assert_eq!(tokenize("=>"), vec![kw("=>")]);
        assert_eq!(tokenize("=>("), vec![kw("=>"), LParen]);
    }

    #[test]
    fn numbers() {
        assert_eq!(
            tokenize("0 7 42 007 1234567"),
            vec![Number(0), Number(7), Number(42), Number(7), Number(1234567)]
        );
        assert_eq!(tokenize("18446744073709551615"), vec![Number(u64::MAX)]);
        assert_eq!(
            tokenize("18446744073709551616 1"),
            vec![err("18446744073709551616"), Number(1)]
        );
        assert_eq!(
            tokenize("99999999999999999999x,2"),
            vec![err("99999999999999999999x"), Comma, Number(2)]
        );
        assert_eq!(
            tokenize("12(3)"),
            vec![Number(12), LParen, Number(3), RParen]
        );
        assert_eq!(tokenize("9"), vec![Number(9)]);
    }

    #[test]
    fn words_must_end_at_a_delimiter() {
        assert_eq!(tokenize("12ab 3"), vec![err("12ab"), Number(3)]);
        assert_eq!(tokenize("abc#d e"), vec![err("abc#d"), id("e")]);
        assert_eq!(tokenize("a$b"), vec![err("a$b")]);
        assert_eq!(tokenize("=>x y"), vec![err("=>x"), id("y")]);
        assert_eq!(tokenize("x,y"), vec![id("x"), Comma, id("y")]);
        assert_eq!(tokenize("abc;c"), vec![id("abc"), Comment("c".to_string())]);
        assert_eq!(tokenize("abc\"d\""), vec![id("abc"), string("d")]);
    }

    #[test]
    fn strings_and_escapes() {
        assert_eq!(tokenize("\"hi there\""), vec![string("hi there")]);
        assert_eq!(tokenize("\"\""), vec![string("")]);
        assert_eq!(
            tokenize(r#""a\"b" "c\\d" "e\nf\tg""#),
            vec![string("a\"b"), string("c\\d"), string("e\nf\tg")]
        );
        assert_eq!(tokenize("\"(;)\"x"), vec![string("(;)"), id("x")]);
        assert_eq!(unescape('n'), Some('\n'));
        assert_eq!(unescape('t'), Some('\t'));
        assert_eq!(unescape('q'), None);
    }

    #[test]
    fn broken_strings_are_errors() {
        assert_eq!(tokenize("\"abc"), vec![err("\"abc")]);
        assert_eq!(
            tokenize("\"ab\ncd\" x"),
            vec![err("\"ab"), id("cd"), err("\" x")]
        );
        assert_eq!(tokenize(r#""a\qb" 5"#), vec![err(r#""a\qb""#), Number(5)]);
        assert_eq!(tokenize(r#""a\"#), vec![err(r#""a\"#)]);
        assert_eq!(tokenize("\""), vec![err("\"")]);
        assert_eq!(tokenize(r#""\q"x"#), vec![err(r#""\q""#), id("x")]);
    }

    #[test]
    fn character_constants() {
        assert_eq!(
            tokenize("#a #( #1 #\""),
            vec![Char('a'), Char('('), Char('1'), Char('"')]
        );
        assert_eq!(tokenize("#a)"), vec![Char('a'), RParen]);
        assert_eq!(tokenize("#ab c"), vec![err("#ab"), id("c")]);
        assert_eq!(tokenize("# x"), vec![err("#"), id("x")]);
        assert_eq!(tokenize("#"), vec![err("#")]);
    }

    #[test]
    fn comments_run_to_the_end_of_the_line() {
        assert_eq!(
            tokenize("x ; a (comment) \"here\"\ny"),
            vec![
                id("x"),
                Comment(" a (comment) \"here\"".to_string()),
                id("y")
            ]
        );
        assert_eq!(tokenize(";"), vec![Comment(String::new())]);
        assert_eq!(
            tokenize(";;\n;x"),
            vec![Comment(";".to_string()), Comment("x".to_string())]
        );
    }

    #[test]
    fn stray_characters_are_errors() {
        assert_eq!(tokenize("@@ x"), vec![err("@@"), id("x")]);
        assert_eq!(tokenize("= >"), vec![err("="), err(">")]);
        assert_eq!(tokenize("=x"), vec![err("=x")]);
        assert_eq!(tokenize("x ="), vec![id("x"), err("=")]);
        assert_eq!(tokenize("_x)"), vec![err("_x"), RParen]);
        assert_eq!(tokenize("{}"), vec![err("{}")]);
    }

    #[test]
    fn white_space_only_separates() {
        assert_eq!(tokenize(""), Vec::<Token>::new());
        assert_eq!(tokenize(" \t\n "), Vec::<Token>::new());
        assert_eq!(tokenize("\ta\n\nb "), vec![id("a"), id("b")]);
    }

    #[test]
    fn a_whole_program() {
        assert_eq!(
            tokenize("(lambda (x) (if (and x 10) \"yes\" #n)) ; done\n'[a, `b]"),
            vec![
                LParen,
                kw("lambda"),
                LParen,
                id("x"),
                RParen,
                LParen,
                kw("if"),
                LParen,
                kw("and"),
                id("x"),
                Number(10),
                RParen,
                string("yes"),
                Char('n'),
                RParen,
                RParen,
                Comment(" done".to_string()),
                Quote,
                LSquare,
                id("a"),
                Comma,
                BackQuote,
                id("b"),
                RSquare,
            ]
        );
    }
}
