//! Text handling in the manner of the small string programs of the Siemens suite
//! (`replace`, `print_tokens`): a Caesar cipher, run-length encoding and decoding, a
//! palindrome check that ignores case and everything but letters, greedy word wrapping,
//! and word and vowel counts. The functions walk the text with explicit indices over
//! `Vec<char>`, so every step is a branch or an assignment the debugger can see.

// Explicit index loops on purpose: each index step is a site the debugger can observe.
#![allow(clippy::needless_range_loop)]

use autodebug_runtime::autodebug;

/// Number of letters in the Latin alphabet.
pub const ALPHABET: u32 = 26;

/// Shifts one ASCII letter `shift` places forward in the alphabet, wrapping around and
/// keeping its case; any other character is returned unchanged.
#[autodebug]
pub fn shift_letter(c: char, shift: u32) -> char {
    let base = if c.is_ascii_lowercase() {
        'a' as u32
    } else if c.is_ascii_uppercase() {
        'A' as u32
    } else {
        return c;
    };
    let offset = (c as u32 - base + shift % ALPHABET) % ALPHABET;
    char::from_u32(base + offset).unwrap_or(c)
}

/// Encodes `text` with a Caesar cipher of the given shift.
#[autodebug]
pub fn caesar_encode(text: &str, shift: u32) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        out.push(shift_letter(chars[i], shift));
        i += 1;
    }
    out
}

/// Decodes a text encoded by [`caesar_encode`] with the same shift.
#[autodebug]
pub fn caesar_decode(text: &str, shift: u32) -> String {
    let back = ALPHABET - shift % ALPHABET;
    caesar_encode(text, back)
}

/// Run-length encoding: every run of two or more equal characters becomes its length
/// followed by the character; a single character stands for itself. `"aaabcc"` becomes
/// `"3ab2c"`. The text must not contain digits.
#[autodebug]
pub fn rle_encode(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        let mut j = i + 1;
        while j < chars.len() && chars[j] == chars[i] {
            j += 1;
        }
        let run = j - i;
        if run > 1 {
            out.push_str(&run.to_string());
        }
        out.push(chars[i]);
        i = j;
    }
    out
}

/// Decodes [`rle_encode`]'s output: a run length (one or more digits) repeats the
/// character after it.
#[autodebug]
pub fn rle_decode(code: &str) -> String {
    let chars: Vec<char> = code.chars().collect();
    let mut out = String::new();
    let mut count = 0;
    for i in 0..chars.len() {
        let c = chars[i];
        if c.is_ascii_digit() {
            count = count * 10 + (c as usize - '0' as usize);
        } else {
            let times = if count == 0 { 1 } else { count };
            for _ in 0..times {
                out.push(c);
            }
            count = 0;
        }
    }
    out
}

/// Whether `text` reads the same forwards and backwards, looking only at its letters and
/// ignoring their case. A text without letters is a palindrome.
#[autodebug]
pub fn is_palindrome(text: &str) -> bool {
    let chars: Vec<char> = text.chars().collect();
    if chars.is_empty() {
        return true;
    }
    let mut lo = 0;
    let mut hi = chars.len() - 1;
    while lo < hi {
        if !chars[lo].is_alphabetic() {
            lo += 1;
        } else if !chars[hi].is_alphabetic() {
            hi -= 1;
        } else if !chars[lo].eq_ignore_ascii_case(&chars[hi]) {
            return false;
        } else {
            lo += 1;
            hi -= 1;
        }
    }
    true
}

/// Wraps the words of `text` (separated by whitespace) into lines of at most `width`
/// characters, filling each line greedily with words separated by one space. A word longer
/// than `width` gets a line of its own.
#[autodebug]
pub fn word_wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    let mut line_len = 0;
    for word in text.split_whitespace() {
        let len = word.chars().count();
        if line_len > 0 && line_len + 1 + len > width {
            lines.push(line);
            line = String::new();
            line_len = 0;
        }
        if line_len > 0 {
            line.push(' ');
            line_len += 1;
        }
        line.push_str(word);
        line_len += len;
    }
    if line_len > 0 {
        lines.push(line);
    }
    lines
}

/// The number of words in `text`: maximal runs of characters that are not whitespace.
#[autodebug]
pub fn count_words(text: &str) -> usize {
    let chars: Vec<char> = text.chars().collect();
    let mut words = 0;
    let mut in_word = false;
    for i in 0..chars.len() {
        let space = chars[i].is_whitespace();
        if !space && !in_word {
            words += 1;
        }
        in_word = !space;
    }
    words
}

/// The number of vowels (`a`, `e`, `i`, `o`, `u`, either case) in `text`.
#[autodebug]
pub fn count_vowels(text: &str) -> usize {
    let chars: Vec<char> = text.chars().collect();
    let mut vowels = 0;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i].to_ascii_lowercase();
        if c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u' {
            vowels += 1;
        }
        i += 1;
    }
    vowels
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shifts_single_letters() {
        assert_eq!(shift_letter('a', 1), 'b');
        assert_eq!(shift_letter('z', 1), 'a');
        assert_eq!(shift_letter('A', 3), 'D');
        assert_eq!(shift_letter('Y', 3), 'B');
        assert_eq!(shift_letter('m', 26), 'm');
        assert_eq!(shift_letter('m', 27), 'n');
        assert_eq!(shift_letter('!', 5), '!');
        assert_eq!(shift_letter('5', 5), '5');
    }

    #[test]
    fn caesar_encodes() {
        assert_eq!(caesar_encode("abc", 3), "def");
        assert_eq!(caesar_encode("xyz", 3), "abc");
        assert_eq!(caesar_encode("Hello, World!", 13), "Uryyb, Jbeyq!");
        assert_eq!(caesar_encode("", 7), "");
        assert_eq!(caesar_encode("Zz", 0), "Zz");
    }

    #[test]
    fn caesar_decodes() {
        assert_eq!(caesar_decode("def", 3), "abc");
        assert_eq!(caesar_decode("abc", 3), "xyz");
        assert_eq!(caesar_decode("Uryyb, Jbeyq!", 13), "Hello, World!");
        assert_eq!(caesar_decode("Same", 0), "Same");
        assert_eq!(caesar_decode("Same", 26), "Same");
        assert_eq!(caesar_decode("bcd", 27), "abc");
    }

    #[test]
    fn run_length_encodes() {
        assert_eq!(rle_encode("aaabcc"), "3ab2c");
        assert_eq!(rle_encode(""), "");
        assert_eq!(rle_encode("a"), "a");
        assert_eq!(rle_encode("abc"), "abc");
        assert_eq!(rle_encode("zzzz"), "4z");
        assert_eq!(rle_encode("aabbba"), "2a3ba");
        assert_eq!(rle_encode("xxxxxxxxxxxxy"), "12xy");
    }

    #[test]
    fn run_length_decodes() {
        assert_eq!(rle_decode("3ab2c"), "aaabcc");
        assert_eq!(rle_decode(""), "");
        assert_eq!(rle_decode("abc"), "abc");
        assert_eq!(rle_decode("12xy"), "xxxxxxxxxxxxy");
        assert_eq!(rle_decode("2a3ba"), "aabbba");
        assert_eq!(rle_decode("1q"), "q");
    }

    #[test]
    fn palindromes() {
        assert!(is_palindrome(""));
        assert!(is_palindrome("a"));
        assert!(is_palindrome("abba"));
        assert!(is_palindrome("racecar"));
        assert!(is_palindrome("A man, a plan, a canal: Panama!"));
        assert!(is_palindrome("No 'x' in Nixon"));
        assert!(is_palindrome("?!"));
    }

    #[test]
    fn not_palindromes() {
        assert!(!is_palindrome("ab"));
        assert!(!is_palindrome("abca"));
        assert!(!is_palindrome("abcab"));
        assert!(!is_palindrome("Hello"));
        assert!(!is_palindrome("a, b"));
        assert!(!is_palindrome("xa!"));
    }

    #[test]
    fn wraps_words_greedily() {
        assert_eq!(
            word_wrap("the quick brown fox jumps", 10),
            vec!["the quick", "brown fox", "jumps"]
        );
        assert_eq!(word_wrap("aa bb cc", 5), vec!["aa bb", "cc"]);
        assert_eq!(word_wrap("aa bb cc", 4), vec!["aa", "bb", "cc"]);
        assert_eq!(word_wrap("aa bb cc", 8), vec!["aa bb cc"]);
        assert_eq!(word_wrap("aa bb cc", 7), vec!["aa bb", "cc"]);
        assert_eq!(word_wrap("a b c", 5), vec!["a b c"]);
        assert_eq!(word_wrap("  spaced   out  ", 20), vec!["spaced out"]);
        assert_eq!(word_wrap("", 5), Vec::<String>::new());
    }

    #[test]
    fn long_words_get_their_own_line() {
        assert_eq!(
            word_wrap("a extraordinarily b", 6),
            vec!["a", "extraordinarily", "b"]
        );
        assert_eq!(word_wrap("abcdef", 6), vec!["abcdef"]);
    }

    #[test]
    fn counts_words() {
        assert_eq!(count_words(""), 0);
        assert_eq!(count_words("   "), 0);
        assert_eq!(count_words("one"), 1);
        assert_eq!(count_words("one two  three"), 3);
        assert_eq!(count_words("  lead and trail  "), 3);
        assert_eq!(count_words("tab\tand\nnewline"), 3);
    }

    #[test]
    fn counts_vowels() {
        assert_eq!(count_vowels(""), 0);
        assert_eq!(count_vowels("rhythm"), 0);
        assert_eq!(count_vowels("aeiou"), 5);
        assert_eq!(count_vowels("AEIOU"), 5);
        assert_eq!(count_vowels("Hello, World"), 3);
        assert_eq!(count_vowels("queue"), 4);
    }
}
