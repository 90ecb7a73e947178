//! Hidden tests of `replace`: further lines, patterns and substitutions.

use replace::{compile_pattern, replace_line};

#[test]
fn words_by_class_closure() {
    assert_eq!(
        replace_line("the quick  brown fox", "[a-z][a-z]*", "<&>"),
        "<the> <quick>  <brown> <fox>"
    );
    assert_eq!(replace_line("a  b   c", "  *", " "), "a b c");
    assert_eq!(replace_line("x9y88", "[^0-9]", ""), "988");
}

#[test]
fn anchored_closures() {
    assert_eq!(replace_line("   indented", "% *", ""), "indented");
    assert_eq!(replace_line("trailing   ", " *$", ""), "trailing");
    assert_eq!(replace_line("aaa", "%a*$", "[&]"), "[aaa]");
    assert_eq!(replace_line("aab", "%a*$", "[&]"), "aab");
}

#[test]
fn any_with_closure_takes_the_longest_match() {
    assert_eq!(replace_line("(a) (b)", "@(?*@)", "()"), "()");
    assert_eq!(replace_line("(a) (b)", "@([^)]*@)", "()"), "() ()");
    assert_eq!(replace_line("key=value=x", "%?*=", "K="), "K=x");
}

#[test]
fn substitution_escapes() {
    assert_eq!(replace_line("a&b", "@&", "and"), "aandb");
    assert_eq!(replace_line("ab", "b", "@t&@&"), "a\tb&");
    assert_eq!(replace_line("x", "x", "&&&"), "xxx");
    assert_eq!(replace_line("x", "x", "@n"), "\n");
}

#[test]
fn ranges_at_the_ends_of_the_alphabet() {
    assert_eq!(replace_line("AZaz09", "[A-Z]", "U"), "UUaz09");
    assert_eq!(replace_line("AZaz09", "[a-z0-9]", "."), "AZ....");
    assert_eq!(replace_line("AZaz09", "[^A-Za-z]", "#"), "AZaz##");
    assert_eq!(replace_line("[x]", "[[]", "("), "(x]");
}

#[test]
fn text_and_bad_patterns() {
    assert_eq!(replace_line("a1 b2", "[0-9]$", "!"), "a1 b!");
    assert_eq!(replace_line("keep me", "[z-", "X"), "keep me");
    assert!(compile_pattern("[^]").is_some());
    assert_eq!(replace_line("abc", "[^]", "-"), "---");
}
