//! Hidden tests of `tokenizer`: further inputs, judged on the token stream.

use tokenizer::Token::*;
use tokenizer::{Token, tokenize};

fn id(s: &str) -> Token {
    Identifier(s.to_string())
}

fn kw(s: &str) -> Token {
    Keyword(s.to_string())
}

fn err(s: &str) -> Token {
    Error(s.to_string())
}

#[test]
fn keywords_glued_to_symbols() {
    assert_eq!(
        tokenize("(xor a b)'or,if"),
        vec![
            LParen,
            kw("xor"),
            id("a"),
            id("b"),
            RParen,
            Quote,
            kw("or"),
            Comma,
            kw("if")
        ]
    );
    assert_eq!(tokenize("[=>]"), vec![LSquare, kw("=>"), RSquare]);
    assert_eq!(tokenize("xor2 lambda_"), vec![id("xor2"), id("lambda_")]);
}

#[test]
fn numbers_next_to_other_tokens() {
    assert_eq!(
        tokenize("1,22 333;c\n4444"),
        vec![
            Number(1),
            Comma,
            Number(22),
            Number(333),
            Comment("c".to_string()),
            Number(4444)
        ]
    );
    assert_eq!(tokenize("5#"), vec![err("5#")]);
    assert_eq!(
        tokenize("10000000000000000000"),
        vec![Number(10_000_000_000_000_000_000)]
    );
    assert_eq!(
        tokenize("99999999999999999999"),
        vec![err("99999999999999999999")]
    );
}

#[test]
fn strings_with_every_escape() {
    assert_eq!(
        tokenize(r#""\\\"\n\t" "x y""#),
        vec![Str("\\\"\n\t".to_string()), Str("x y".to_string())]
    );
    assert_eq!(tokenize(r#""\t"1"#), vec![Str("\t".to_string()), Number(1)]);
    assert_eq!(
        tokenize("\"a;b\" ;c"),
        vec![Str("a;b".to_string()), Comment("c".to_string())]
    );
}

#[test]
fn unterminated_strings_stop_at_the_line() {
    assert_eq!(tokenize("\"open\nx"), vec![err("\"open"), id("x")]);
    assert_eq!(tokenize("a \"b\\\" c"), vec![id("a"), err("\"b\\\" c")]);
    assert_eq!(
        tokenize(r#""\z" "ok""#),
        vec![err(r#""\z""#), Str("ok".to_string())]
    );
}

#[test]
fn character_constants_and_errors() {
    assert_eq!(
        tokenize("#x,#y #; #]"),
        vec![Char('x'), Comma, Char('y'), Char(';'), Char(']')]
    );
    assert_eq!(tokenize("#\n"), vec![err("#")]);
    assert_eq!(tokenize("##"), vec![Char('#')]);
    assert_eq!(tokenize("### a"), vec![err("###"), id("a")]);
}

#[test]
fn multi_line_program() {
    let source = "; header\n(if (or a #b) 12\n  \"s\\n\" ; tail\n  [x])";
    assert_eq!(
        tokenize(source),
        vec![
            Comment(" header".to_string()),
            LParen,
            kw("if"),
            LParen,
            kw("or"),
            id("a"),
            Char('b'),
            RParen,
            Number(12),
            Str("s\n".to_string()),
            Comment(" tail".to_string()),
            LSquare,
            id("x"),
            RSquare,
            RParen
        ]
    );
}

#[test]
fn errors_run_to_the_next_delimiter() {
    assert_eq!(tokenize("+-* x"), vec![err("+-*"), id("x")]);
    assert_eq!(
        tokenize("a.b(c)"),
        vec![err("a.b"), LParen, id("c"), RParen]
    );
    assert_eq!(tokenize(">= <"), vec![err(">="), err("<")]);
    assert_eq!(tokenize("é x"), vec![err("é"), id("x")]);
}
