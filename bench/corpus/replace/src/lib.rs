//! A pattern matcher and replacer in the manner of the Siemens suite's `replace` (the
//! `change` tool of Kernighan and Plauger's *Software Tools*, as used in Hutchins et al.'s
//! test-adequacy study).
//!
//! Patterns: a literal character matches itself; `?` matches any character; `[abc]`,
//! `[a-z]` and `[^…]` are character classes with ranges and negation; `*` after an element
//! matches it zero or more times (longest first); `%` as the first character anchors at the
//! beginning of the line and `$` as the last at its end; `@` escapes the next character
//! (`@n` newline, `@t` tab, anything else itself). In the substitution, `&` stands for the
//! matched text and `@&` for a literal `&`. Every non-overlapping match is replaced.

// Scans are written as explicit index loops on purpose: the code under test stays in
// instrumented expressions rather than in iterator adaptors and closures.
#![allow(clippy::needless_range_loop)]

use autodebug_runtime::autodebug;

/// What one pattern element matches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Matcher {
    /// This character.
    Literal(char),
    /// Any character.
    Any,
    /// A character in one of the inclusive ranges (or in none of them, when negated).
    Class {
        /// Whether the class was written `[^…]`.
        negated: bool,
        /// Inclusive ranges; a single character `c` is `(c, c)`.
        ranges: Vec<(char, char)>,
    },
}

/// One pattern element: a matcher, possibly repeated by `*`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Element {
    /// What one repetition matches.
    pub matcher: Matcher,
    /// Whether the element matches zero or more times.
    pub closure: bool,
}

/// A compiled pattern.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Pattern {
    /// Anchored at the beginning of the line.
    pub bol: bool,
    /// The elements, in order.
    pub elements: Vec<Element>,
    /// Anchored at the end of the line.
    pub eol: bool,
}

/// One piece of a compiled substitution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SubPart {
    /// This character.
    Literal(char),
    /// The matched text.
    Matched,
}

/// The character `@c` stands for.
#[autodebug]
pub fn escaped(c: char) -> char {
    match c {
        'n' => '\n',
        't' => '\t',
        _ => c,
    }
}

#[autodebug]
impl Matcher {
    /// Whether this matcher accepts `c`.
    pub fn accepts(&self, c: char) -> bool {
        match self {
            Matcher::Literal(l) => *l == c,
            Matcher::Any => true,
            Matcher::Class { negated, ranges } => {
                let mut inside = false;
                for k in 0..ranges.len() {
                    let (lo, hi) = ranges[k];
                    if lo <= c && c <= hi {
                        inside = true;
                        break;
                    }
                }
                inside != *negated
            }
        }
    }
}

/// Compiles the class whose `[` is at `open`: the matcher and the index after its `]`;
/// `None` when the class is not closed.
#[autodebug]
fn compile_class(p: &[char], open: usize) -> Option<(Matcher, usize)> {
    let mut i = open + 1;
    let negated = i < p.len() && p[i] == '^';
    if negated {
        i += 1;
    }
    let first = i;
    let mut ranges = Vec::new();
    for _ in first..p.len() {
        if i >= p.len() || p[i] == ']' {
            break;
        }
        let mut c = p[i];
        if c == '@' && i + 1 < p.len() {
            i += 1;
            c = escaped(p[i]);
        }
        // A `-` between two characters makes a range; first or last it is itself.
        if i + 2 < p.len() && p[i + 1] == '-' && p[i + 2] != ']' {
            ranges.push((c, p[i + 2]));
            i += 3;
        } else {
            ranges.push((c, c));
            i += 1;
        }
    }
    if i >= p.len() {
        return None;
    }
    Some((Matcher::Class { negated, ranges }, i + 1))
}

/// Compiles a pattern; `None` for an unclosed character class.
#[autodebug]
pub fn compile_pattern(pattern: &str) -> Option<Pattern> {
    let p: Vec<char> = pattern.chars().collect();
    let mut compiled = Pattern::default();
    let mut i = 0;
    for _ in 0..p.len() {
        if i >= p.len() {
            break;
        }
        let c = p[i];
        let mut next = i + 1;
        if c == '%' && i == 0 {
            compiled.bol = true;
            i = next;
            continue;
        }
        if c == '$' && i + 1 == p.len() {
            compiled.eol = true;
            break;
        }
        let last = compiled.elements.len();
        let matcher = if c == '*' && last > 0 && !compiled.elements[last - 1].closure {
            compiled.elements[last - 1].closure = true;
            i = next;
            continue;
        } else if c == '?' {
            Matcher::Any
        } else if c == '[' {
            let (class, after) = compile_class(&p, i)?;
            next = after;
            class
        } else if c == '@' && i + 1 < p.len() {
            next = i + 2;
            Matcher::Literal(escaped(p[i + 1]))
        } else {
            Matcher::Literal(c)
        };
        compiled.elements.push(Element {
            matcher,
            closure: false,
        });
        i = next;
    }
    Some(compiled)
}

/// Compiles a substitution: `&` is the matched text, `@c` is the escaped character.
#[autodebug]
pub fn compile_sub(sub: &str) -> Vec<SubPart> {
    let s: Vec<char> = sub.chars().collect();
    let mut parts = Vec::new();
    let mut escape = false;
    for k in 0..s.len() {
        if escape {
            parts.push(SubPart::Literal(escaped(s[k])));
            escape = false;
        } else if s[k] == '@' && k + 1 < s.len() {
            escape = true;
        } else if s[k] == '&' {
            parts.push(SubPart::Matched);
        } else {
            parts.push(SubPart::Literal(s[k]));
        }
    }
    parts
}

/// End of a match of `pattern.elements[first..]` (and the end anchor) in `line` starting at
/// `start`; closures try their longest repetition first and back off.
#[autodebug]
fn match_elements(line: &[char], start: usize, pattern: &Pattern, first: usize) -> Option<usize> {
    let mut i = start;
    for k in first..pattern.elements.len() {
        let element = &pattern.elements[k];
        if element.closure {
            let mut longest = i;
            for j in i..line.len() {
                if !element.matcher.accepts(line[j]) {
                    break;
                }
                longest = j + 1;
            }
            for end in (i..=longest).rev() {
                if let Some(matched) = match_elements(line, end, pattern, k + 1) {
                    return Some(matched);
                }
            }
            return None;
        }
        if i < line.len() && element.matcher.accepts(line[i]) {
            i += 1;
        } else {
            return None;
        }
    }
    if pattern.eol && i != line.len() {
        return None;
    }
    Some(i)
}

/// End of a match of the whole `pattern` in `line` starting at `start`.
#[autodebug]
pub fn match_at(line: &[char], start: usize, pattern: &Pattern) -> Option<usize> {
    if pattern.bol && start > 0 {
        return None;
    }
    match_elements(line, start, pattern, 0)
}

/// Appends the substitution for the matched text `matched` to `out`.
#[autodebug]
fn substitute(out: &mut String, matched: &[char], sub: &[SubPart]) {
    for part in sub {
        match part {
            SubPart::Literal(c) => out.push(*c),
            SubPart::Matched => {
                for k in 0..matched.len() {
                    out.push(matched[k]);
                }
            }
        }
    }
}

/// `line` with every non-overlapping match of `pattern` replaced by `sub`. An empty match
/// right where the previous match ended is not replaced again. A pattern that does not
/// compile leaves the line unchanged.
#[autodebug]
pub fn replace_line(line: &str, pattern: &str, sub: &str) -> String {
    let Some(pattern) = compile_pattern(pattern) else {
        return line.to_string();
    };
    let sub = compile_sub(sub);
    let chars: Vec<char> = line.chars().collect();
    let mut out = String::new();
    let mut last_end: Option<usize> = None;
    let mut i = 0;
    // Every step moves `i` forward, so this many steps always suffice.
    for _ in 0..=chars.len() {
        if i > chars.len() {
            break;
        }
        let found = match_at(&chars, i, &pattern);
        if let Some(end) = found {
            if last_end != Some(end) {
                substitute(&mut out, &chars[i..end], &sub);
                last_end = Some(end);
            }
            if end > i {
                i = end;
                continue;
            }
        }
        if i < chars.len() {
            out.push(chars[i]);
        }
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chars(s: &str) -> Vec<char> {
        s.chars().collect()
    }

    #[test]
    fn literal_replacement_of_every_match() {
        assert_eq!(replace_line("cat hat", "at", "og"), "cog hog");
        assert_eq!(replace_line("aaaa", "aa", "b"), "bb");
        assert_eq!(replace_line("aaa", "aa", "b"), "ba");
        assert_eq!(replace_line("xyz", "q", "r"), "xyz");
        assert_eq!(replace_line("", "a", "b"), "");
        assert_eq!(replace_line("abc", "abc", ""), "");
        assert_eq!(replace_line("ab", "abc", "X"), "ab");
    }

    #[test]
    fn any_character() {
        assert_eq!(replace_line("cat cot cut", "c?t", "X"), "X X X");
        assert_eq!(replace_line("ab", "???", "X"), "ab");
        assert_eq!(replace_line("abc", "?", "<&>"), "<a><b><c>");
    }

    #[test]
    fn anchors() {
        assert_eq!(replace_line("abab", "%ab", "X"), "Xab");
        assert_eq!(replace_line("abab", "ab$", "X"), "abX");
        assert_eq!(replace_line("ab", "%ab$", "X"), "X");
        assert_eq!(replace_line("abc", "%ab$", "X"), "abc");
        assert_eq!(replace_line("ba", "%a", "X"), "ba");
        assert_eq!(replace_line("abc", "%", ">"), ">abc");
        assert_eq!(replace_line("abc", "$", "<"), "abc<");
        assert_eq!(replace_line("", "%$", "empty"), "empty");
        // Anywhere else the anchor characters are literals.
        assert_eq!(replace_line("5% of $3", "$3", "three"), "5% of three");
        assert_eq!(replace_line("5% of $3", "5%", "five"), "five of $3");
    }

    #[test]
    fn closures_are_greedy_and_back_off() {
        assert_eq!(replace_line("baaac", "a*", "X"), "XbXcX");
        assert_eq!(replace_line("baaac", "ba*", "X"), "Xc");
        assert_eq!(replace_line("aaab", "a*ab", "X"), "X");
        assert_eq!(replace_line("x = 1;   y", " *= *", "="), "x=1;   y");
        assert_eq!(replace_line("abcabc", "a?*c", "X"), "X");
        assert_eq!(replace_line("ab", "b*", "-"), "-a-");
        assert_eq!(replace_line("a**", "a**", "X"), "XX");
        assert_eq!(replace_line("*a", "*a", "X"), "X");
    }

    #[test]
    fn character_classes() {
        assert_eq!(replace_line("a1b22c333", "[0-9]", "#"), "a#b##c###");
        assert_eq!(replace_line("a1b22c333", "[0-9][0-9]*", "#"), "a#b#c#");
        assert_eq!(replace_line("Hello World", "[^a-z ]", "_"), "_ello _orld");
        assert_eq!(replace_line("a-b+c", "[-+]", " "), "a b c");
        assert_eq!(replace_line("a-b+c", "[+-]", " "), "a b c");
        assert_eq!(replace_line("abcxyz", "[b-cy]", "."), "a..x.z");
        assert_eq!(replace_line("a]b", "[]]", "!"), "a]b");
        assert_eq!(replace_line("a]b", "[@]]", "!"), "a!b");
    }

    #[test]
    fn class_boundaries() {
        let class = |s: &str| compile_pattern(s).unwrap().elements[0].matcher.clone();
        let digits = class("[0-9]");
        assert!(digits.accepts('0') && digits.accepts('9') && digits.accepts('5'));
        assert!(!digits.accepts('/') && !digits.accepts(':'));
        let not_vowel = class("[^aeiou]");
        assert!(not_vowel.accepts('b') && !not_vowel.accepts('a') && !not_vowel.accepts('u'));
        assert_eq!(
            class("[a-cx]"),
            Matcher::Class {
                negated: false,
                ranges: vec![('a', 'c'), ('x', 'x')]
            }
        );
        assert_eq!(
            class("[^-]"),
            Matcher::Class {
                negated: true,
                ranges: vec![('-', '-')]
            }
        );
        assert_eq!(
            class("[a-]"),
            Matcher::Class {
                negated: false,
                ranges: vec![('a', 'a'), ('-', '-')]
            }
        );
    }

    #[test]
    fn unclosed_classes_do_not_compile() {
        assert_eq!(compile_pattern("[abc"), None);
        assert_eq!(compile_pattern("x[^"), None);
        assert_eq!(compile_pattern("["), None);
        assert_eq!(compile_pattern("[a-"), None);
        assert_eq!(compile_pattern("[a-b"), None);
        assert_eq!(compile_pattern("[@"), None);
        assert_eq!(compile_pattern("[a@]"), None);
        assert_eq!(replace_line("abc", "[abc", "X"), "abc");
        assert!(compile_pattern("[a]").is_some());
        assert!(compile_pattern("[]").is_some());
    }

    #[test]
    fn compiled_pattern_shape() {
        let p = compile_pattern("%a?*[x]@*$").unwrap();
        assert!(p.bol && p.eol);
        assert_eq!(p.elements.len(), 4);
        assert_eq!(p.elements[0].matcher, Matcher::Literal('a'));
        assert!(!p.elements[0].closure);
        assert_eq!(p.elements[1].matcher, Matcher::Any);
        assert!(p.elements[1].closure);
        assert_eq!(p.elements[3].matcher, Matcher::Literal('*'));
        let q = compile_pattern("a%$b").unwrap();
        assert!(!q.bol && !q.eol);
        assert_eq!(q.elements.len(), 4);
        assert_eq!(
            compile_pattern("@").unwrap().elements[0].matcher,
            Matcher::Literal('@')
        );
    }

    #[test]
    fn escapes_in_patterns() {
        assert_eq!(replace_line("a?b", "@?", "!"), "a!b");
        assert_eq!(replace_line("a*b", "a@*", "X"), "Xb");
        assert_eq!(replace_line("%x", "@%x", "y"), "y");
        assert_eq!(replace_line("x$", "x@$", "y"), "y");
        assert_eq!(replace_line("a\tb", "@t", " "), "a b");
        assert_eq!(replace_line("a@b", "@@", "at"), "aatb");
        assert_eq!(escaped('n'), '\n');
        assert_eq!(escaped('q'), 'q');
    }

    #[test]
    fn substitutions() {
        assert_eq!(replace_line("cat", "a", "[&&]"), "c[aa]t");
        assert_eq!(replace_line("cat", "a", "@&"), "c&t");
        assert_eq!(replace_line("cat", "a", "@@&"), "c@at");
        assert_eq!(replace_line("cat", "at", "&@n"), "cat\n");
        assert_eq!(replace_line("cat", "c", "&@"), "c@at");
        assert_eq!(
            compile_sub("x&@&@t"),
            vec![
                SubPart::Literal('x'),
                SubPart::Matched,
                SubPart::Literal('&'),
                SubPart::Literal('\t')
            ]
        );
    }

    #[test]
    fn match_positions() {
        let p = compile_pattern("b*c").unwrap();
        let line = chars("abbbc");
        assert_eq!(match_at(&line, 0, &p), None);
        assert_eq!(match_at(&line, 1, &p), Some(5));
        assert_eq!(match_at(&line, 4, &p), Some(5));
        assert_eq!(match_at(&line, 5, &p), None);
        let anchored = compile_pattern("%a").unwrap();
        assert_eq!(match_at(&line, 0, &anchored), Some(1));
        assert_eq!(match_at(&chars("aa"), 1, &anchored), None);
    }
}
