//! Reading a failed `assert_eq!`/`assert_ne!`: its two sides as the test printed them
//! (`Debug` text), which side is the value a call returned, and the other side turned back
//! into a [`Value`] of the type the call returned.

use autodebug_runtime::protocol::Value;

/// The comparison a failed `assert_eq!` or `assert_ne!` made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Comparison {
    /// `assert_eq!` (`true`) or `assert_ne!` (`false`).
    pub equal: bool,
    /// The left side, as `Debug` printed it.
    pub left: String,
    /// The right side, as `Debug` printed it.
    pub right: String,
    /// The custom message given to the macro, if any.
    pub custom: Option<String>,
}

/// One side of a comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Left,
    Right,
}

impl Comparison {
    /// The comparison in a panic message of `assert_eq!`/`assert_ne!`, in the form std has
    /// printed since Rust 1.73 (``assertion `left == right` failed: MSG\n  left: L\n right: R``)
    /// or before it (``assertion failed: `(left == right)`: MSG\n  left: `L`,\n right: `R` ``).
    /// `None` for any other message.
    pub fn parse(message: &str) -> Option<Comparison> {
        let (equal, rest, quoted) =
            if let Some(rest) = message.strip_prefix("assertion `left == right` failed") {
                (true, rest, false)
            } else if let Some(rest) = message.strip_prefix("assertion `left != right` failed") {
                (false, rest, false)
            } else if let Some(rest) = message.strip_prefix("assertion failed: `(left == right)`") {
                (true, rest, true)
            } else if let Some(rest) = message.strip_prefix("assertion failed: `(left != right)`") {
                (false, rest, true)
            } else {
                return None;
            };
        // The sides come last; a custom message (which may span lines) sits between the
        // header and them, so they are found from the end.
        let right_at = rest.rfind("\n right: ")?;
        let left_at = rest[..right_at].rfind("\n  left: ")?;
        let custom = rest[..left_at]
            .strip_prefix(": ")
            .map(str::to_string)
            .filter(|m| !m.is_empty());
        let mut left = &rest[left_at + "\n  left: ".len()..right_at];
        let mut right = rest[right_at + "\n right: ".len()..].trim_end();
        if quoted {
            left = left.strip_suffix(',').unwrap_or(left);
            left = left.strip_prefix('`')?.strip_suffix('`')?;
            right = right.strip_prefix('`')?.strip_suffix('`')?;
        }
        Some(Comparison {
            equal,
            left: left.to_string(),
            right: right.to_string(),
            custom,
        })
    }

    /// The text of `side`.
    pub fn text(&self, side: Side) -> &str {
        match side {
            Side::Left => &self.left,
            Side::Right => &self.right,
        }
    }

    /// The side that printed as `value` would, or why none can be told: the value is not
    /// readable, neither side is it, or both are. A failed `assert_ne!` prints the same
    /// text on both sides: a value that prints so is taken as its left side.
    pub fn side_of(&self, value: &Value) -> Result<Side, String> {
        let Some(text) = debug_text(value) else {
            return Err(format!(
                "the call returned a value the runtime does not record ({})",
                describe(value)
            ));
        };
        match (self.left == text, self.right == text) {
            (true, false) => Ok(Side::Left),
            (false, true) => Ok(Side::Right),
            (true, true) if !self.equal => Ok(Side::Left),
            (true, true) => Err(format!("both sides print as {text}")),
            (false, false) => Err(format!(
                "neither side of the assertion (left: {}, right: {}) is the value the call returned ({text}): the test compares something else",
                self.left, self.right
            )),
        }
    }
}

/// The comparison a failed `assert!(a == b)` or `assert!(a != b)` made, read from its panic
/// message (`assertion failed: f(3) == vec![1, 2]`): the two sides as the test's source
/// wrote them, not as values printed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceComparison {
    /// `==` (`true`) or `!=` (`false`).
    pub equal: bool,
    pub left: String,
    pub right: String,
}

impl SourceComparison {
    /// The comparison of an `assert!` message whose condition is one `==` or `!=` between
    /// two sides (outside brackets and quotes, with no `&&` or `||`). `None` otherwise.
    pub fn parse(message: &str) -> Option<SourceComparison> {
        let condition = message.strip_prefix("assertion failed: ")?.trim();
        if condition.contains('\n') {
            return None;
        }
        let bytes = condition.as_bytes();
        let (mut depth, mut quotes) = (0usize, Quotes::default());
        let mut found = None;
        for (i, c) in condition.char_indices() {
            if quotes.inside(c) {
                continue;
            }
            match c {
                '"' => quotes.open(c),
                // A char literal, not a lifetime: `'x'` or `'\n'`.
                '\'' if bytes.get(i + 2) == Some(&b'\'') || bytes.get(i + 1) == Some(&b'\\') => {
                    quotes.open(c)
                }
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' => depth = depth.checked_sub(1)?,
                '=' | '!' if depth == 0 && bytes.get(i + 1) == Some(&b'=') => {
                    let before = i.checked_sub(1).map(|j| bytes[j]);
                    let after = bytes.get(i + 2).copied();
                    if matches!(before, Some(b'=' | b'!' | b'<' | b'>')) || after == Some(b'=') {
                        continue;
                    }
                    if found.is_some() {
                        return None;
                    }
                    found = Some((i, c == '='));
                }
                '&' | '|' if depth == 0 && bytes.get(i + 1) == Some(&(c as u8)) => return None,
                _ => {}
            }
        }
        let (at, equal) = found?;
        let (left, right) = (condition[..at].trim(), condition[at + 2..].trim());
        (!left.is_empty() && !right.is_empty()).then(|| SourceComparison {
            equal,
            left: left.to_string(),
            right: right.to_string(),
        })
    }

    /// The side that is a call of `name` and nothing more (`tri(3)`, `m::tri(3)`), when
    /// exactly one is.
    pub fn call_side(&self, name: &str) -> Option<Side> {
        let is_call = |text: &str| {
            let Some(args_at) = text.find('(') else {
                return false;
            };
            let callee = &text[..args_at];
            let named = callee == name || callee.ends_with(&format!("::{name}"));
            // The arguments close their brackets before the last `)`: `f(1) + f(2)` or
            // `f(1)(2)` is more than a call.
            named
                && text.ends_with(')')
                && split_elements(&text[args_at + 1..text.len() - 1]).is_some()
        };
        match (is_call(&self.left), is_call(&self.right)) {
            (true, false) => Some(Side::Left),
            (false, true) => Some(Side::Right),
            _ => None,
        }
    }

    /// The text of `side`.
    pub fn text(&self, side: Side) -> &str {
        match side {
            Side::Left => &self.left,
            Side::Right => &self.right,
        }
    }
}

/// Where a scan of source or `Debug` text is, character by character: inside a string or
/// char literal (and after a `\\` in it) or not.
#[derive(Default)]
struct Quotes {
    quote: Option<char>,
    escaped: bool,
}

impl Quotes {
    /// Takes `c`: whether it belongs to an open literal (its closing quote included).
    fn inside(&mut self, c: char) -> bool {
        let Some(q) = self.quote else {
            return false;
        };
        if self.escaped {
            self.escaped = false;
        } else if c == '\\' {
            self.escaped = true;
        } else if c == q {
            self.quote = None;
        }
        true
    }

    /// A literal opens with the quote `q`.
    fn open(&mut self, q: char) {
        self.quote = Some(q);
    }
}

impl Side {
    /// The other side.
    pub fn other(self) -> Side {
        match self {
            Side::Left => Side::Right,
            Side::Right => Side::Left,
        }
    }
}

/// A value for people: its `Debug` text when it has one, else its type in angle brackets.
pub fn describe(value: &Value) -> String {
    match value {
        Value::Opaque { ty } => format!("<{ty}>"),
        Value::Opt { v: Some(v), .. } => format!("Some({})", describe(v)),
        Value::Str { v, truncated: true } => format!("{v:?}…"),
        Value::Seq { items, len } if items.len() < *len => {
            let items: Vec<String> = items.iter().map(describe).collect();
            format!("[{}, … ({len} items)]", items.join(", "))
        }
        Value::Seq { items, .. } => {
            let items: Vec<String> = items.iter().map(describe).collect();
            format!("[{}]", items.join(", "))
        }
        other => debug_text(other).unwrap_or_else(|| "<?>".to_string()),
    }
}

/// The text `{:?}` prints for the value the runtime recorded as `value`; `None` when the
/// recording does not determine it (an opaque value, a cut string or sequence).
pub fn debug_text(value: &Value) -> Option<String> {
    Some(match value {
        Value::Int { v, .. } => v.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Char(c) => format!("{c:?}"),
        Value::Str {
            v,
            truncated: false,
        } => format!("{v:?}"),
        Value::Float { ty, v } if ty == "f32" => format!("{:?}", v.parse::<f32>().ok()?),
        Value::Float { v, .. } => format!("{:?}", v.parse::<f64>().ok()?),
        Value::Unit => "()".to_string(),
        Value::Opt { v: None, .. } => "None".to_string(),
        Value::Opt { v: Some(v), .. } => format!("Some({})", debug_text(v)?),
        Value::Seq { items, len } if items.len() == *len => {
            let items = items.iter().map(debug_text).collect::<Option<Vec<_>>>()?;
            format!("[{}]", items.join(", "))
        }
        Value::Str { .. } | Value::Seq { .. } | Value::Opaque { .. } => return None,
    })
}

/// The value `text` (as `{:?}` prints it) stands for, of the same type as `like`: integers
/// of every width (within the type's range), `bool`, `char`, strings and floats.
pub fn parse_like(text: &str, like: &Value) -> Result<Value, String> {
    let text = text.trim();
    let bad = |what: &str| format!("`{text}` is not {what}");
    match like {
        Value::Int { ty, .. } => {
            let v: i128 = text.parse().map_err(|_| bad("an integer"))?;
            match int_range(ty) {
                Some((min, max)) if v < min || v > max => {
                    Err(format!("{v} does not fit the type `{ty}`"))
                }
                _ => Ok(Value::Int { ty: ty.clone(), v }),
            }
        }
        Value::Bool(_) => match text {
            "true" => Ok(Value::Bool(true)),
            "false" => Ok(Value::Bool(false)),
            _ => Err(bad("a bool")),
        },
        Value::Char(_) => {
            let inner = quoted(text, '\'').ok_or_else(|| bad("a char"))?;
            let mut chars = unescape(inner).ok_or_else(|| bad("a char"))?.into_iter();
            match (chars.next(), chars.next()) {
                (Some(c), None) => Ok(Value::Char(c)),
                _ => Err(bad("a char")),
            }
        }
        Value::Str { .. } => {
            // As source writes an owned string too: `"x".to_string()`, `String::from("x")`.
            let text = [".to_string()", ".to_owned()", ".into()"]
                .iter()
                .find_map(|s| text.strip_suffix(s))
                .or_else(|| {
                    text.strip_prefix("String::from(")
                        .and_then(|t| t.strip_suffix(')'))
                })
                .unwrap_or(text)
                .trim();
            let inner = quoted(text, '"').ok_or_else(|| bad("a string"))?;
            let chars = unescape(inner).ok_or_else(|| bad("a string"))?;
            Ok(Value::Str {
                v: chars.into_iter().collect(),
                truncated: false,
            })
        }
        Value::Float { ty, .. } => {
            let v = if ty == "f32" {
                text.parse::<f32>().map(|x| x.to_string())
            } else {
                text.parse::<f64>().map(|x| x.to_string())
            };
            Ok(Value::Float {
                ty: ty.clone(),
                v: v.map_err(|_| bad("a float"))?,
            })
        }
        Value::Unit => Err("the call returns `()`: there is no other value".to_string()),
        Value::Seq { items, .. } => {
            // `[1, 2]` as `Debug` prints it, or `vec![1, 2]` as an `assert!` wrote it.
            let body = text.strip_prefix("vec!").unwrap_or(text).trim();
            let inner = quoted_by(body, '[', ']').ok_or_else(|| bad("a sequence"))?;
            let elements = split_elements(inner).ok_or_else(|| bad("a sequence"))?;
            let items = elements
                .iter()
                .map(|element| {
                    let like = items.first().cloned().unwrap_or_else(|| like_text(element));
                    parse_like(element, &like)
                })
                .collect::<Result<Vec<Value>, String>>()?;
            Ok(Value::Seq {
                len: items.len(),
                items,
            })
        }
        Value::Opt { ty, v } => {
            if text == "None" {
                return Ok(Value::Opt {
                    ty: ty.clone(),
                    v: None,
                });
            }
            let inner = (text.strip_prefix("Some("))
                .and_then(|t| t.strip_suffix(')'))
                .ok_or_else(|| bad("an `Option`"))?;
            let like = match v {
                Some(v) => (**v).clone(),
                None => like_type(ty).ok_or_else(|| bad("an `Option` the runtime reads"))?,
            };
            Ok(Value::Opt {
                ty: ty.clone(),
                v: Some(Box::new(parse_like(inner, &like)?)),
            })
        }
        Value::Opaque { ty } => Err(format!(
            "the call returns a `{ty}`, a value the runtime does not record"
        )),
    }
}

/// A value of the type named `ty` (as the runtime names the type an `Option` holds), for
/// [`parse_like`] to read a `Some` by when the call returned `None`.
fn like_type(ty: &str) -> Option<Value> {
    Some(match ty {
        "bool" => Value::Bool(false),
        "char" => Value::Char(' '),
        "f32" | "f64" => Value::Float {
            ty: ty.to_string(),
            v: "0".to_string(),
        },
        "alloc::string::String" | "&str" => Value::Str {
            v: String::new(),
            truncated: false,
        },
        _ if int_range(ty).is_some() => Value::Int {
            ty: ty.to_string(),
            v: 0,
        },
        _ => return None,
    })
}

/// The range of the integer type `ty`, as far as [`Value::Int`] holds it (`u128` stops at
/// `i128::MAX`; `isize`/`usize` are taken as 64-bit).
fn int_range(ty: &str) -> Option<(i128, i128)> {
    Some(match ty {
        "i8" => (i8::MIN.into(), i8::MAX.into()),
        "i16" => (i16::MIN.into(), i16::MAX.into()),
        "i32" => (i32::MIN.into(), i32::MAX.into()),
        "i64" | "isize" => (i64::MIN.into(), i64::MAX.into()),
        "i128" => (i128::MIN, i128::MAX),
        "u8" => (0, u8::MAX.into()),
        "u16" => (0, u16::MAX.into()),
        "u32" => (0, u32::MAX.into()),
        "u64" | "usize" => (0, u64::MAX.into()),
        "u128" => (0, i128::MAX),
        _ => return None,
    })
}

/// The text between the quotes `q` around `text`.
fn quoted(text: &str, q: char) -> Option<&str> {
    quoted_by(text, q, q)
}

/// The text between `open` and `close` around `text`.
fn quoted_by(text: &str, open: char, close: char) -> Option<&str> {
    text.strip_prefix(open)?.strip_suffix(close)
}

/// The elements of a sequence's body (`1, [2, 3], "a, b"`), split at the commas outside
/// brackets and quotes; a trailing comma ends the list. `None` when the brackets or quotes
/// do not close.
fn split_elements(body: &str) -> Option<Vec<&str>> {
    let mut elements = Vec::new();
    let (mut depth, mut quotes, mut start) = (0usize, Quotes::default(), 0);
    for (i, c) in body.char_indices() {
        if quotes.inside(c) {
            continue;
        }
        match c {
            '"' | '\'' => quotes.open(c),
            '[' | '(' | '{' => depth += 1,
            ']' | ')' | '}' => depth = depth.checked_sub(1)?,
            ',' if depth == 0 => {
                elements.push(body[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    if depth != 0 || quotes.quote.is_some() {
        return None;
    }
    let last = body[start..].trim();
    // A trailing comma (`[1, 2, ]`) ends the list; an empty element elsewhere is no list.
    if !last.is_empty() {
        elements.push(last);
    }
    (!elements.contains(&"")).then_some(elements)
}

/// What an element written `text` is like, when the call returned an empty sequence: a
/// string, a char, a bool, a float, a sequence or (otherwise) an integer.
fn like_text(text: &str) -> Value {
    let int = Value::Int {
        ty: "i64".into(),
        v: 0,
    };
    match text.chars().next() {
        Some('"') => Value::Str {
            v: String::new(),
            truncated: false,
        },
        Some('\'') => Value::Char(' '),
        Some('[') => Value::Seq {
            items: Vec::new(),
            len: 0,
        },
        _ if text == "true" || text == "false" => Value::Bool(false),
        _ if text.contains('.') => Value::Float {
            ty: "f64".into(),
            v: "0".into(),
        },
        _ => int,
    }
}

/// The characters of a `Debug`-escaped string or char body: `\0 \t \r \n \\ \' \"` and
/// `\u{…}`, the escapes `escape_debug` writes. `None` on anything else.
fn unescape(body: &str) -> Option<Vec<char>> {
    let mut out = Vec::new();
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        out.push(match chars.next()? {
            '0' => '\0',
            't' => '\t',
            'r' => '\r',
            'n' => '\n',
            c @ ('\\' | '\'' | '"') => c,
            'u' => {
                if chars.next()? != '{' {
                    return None;
                }
                let hex: String = chars.by_ref().take_while(|&c| c != '}').collect();
                char::from_u32(u32::from_str_radix(&hex, 16).ok()?)?
            }
            _ => return None,
        });
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(ty: &str, v: i128) -> Value {
        Value::Int { ty: ty.into(), v }
    }

    fn s(v: &str) -> Value {
        Value::Str {
            v: v.into(),
            truncated: false,
        }
    }

    /// The message std's `assert_eq!(left, right)` really prints, with the values'
    /// own `Debug` text.
    fn eq_message<L: std::fmt::Debug, R: std::fmt::Debug>(left: L, right: R) -> String {
        format!("assertion `left == right` failed\n  left: {left:?}\n right: {right:?}")
    }

    #[test]
    fn integers_and_negative_integers() {
        let c = Comparison::parse(&eq_message(5, -6)).unwrap();
        assert!(c.equal);
        assert_eq!((c.left.as_str(), c.right.as_str()), ("5", "-6"));
        assert_eq!(c.custom, None);
        assert_eq!(c.side_of(&int("i32", 5)), Ok(Side::Left));
        let expected = parse_like(c.text(Side::Right), &int("i32", 5));
        assert_eq!(expected, Ok(int("i32", -6)));
        // Every width, with its range.
        assert_eq!(parse_like("255", &int("u8", 0)), Ok(int("u8", 255)));
        assert!(parse_like("256", &int("u8", 0)).is_err());
        assert!(parse_like("-1", &int("usize", 0)).is_err());
        assert_eq!(
            parse_like("-170141183460469231731687303715884105728", &int("i128", 0)),
            Ok(int("i128", i128::MIN))
        );
        assert_eq!(
            parse_like("18446744073709551615", &int("u64", 0)),
            Ok(int("u64", u64::MAX.into()))
        );
        assert!(parse_like("3.5", &int("i64", 0)).is_err());
    }

    #[test]
    fn the_side_is_the_one_that_prints_as_the_returned_value() {
        // `assert_eq!(7, f(x))` with `f(x) == 5`.
        let c = Comparison::parse(&eq_message(7, 5)).unwrap();
        assert_eq!(c.side_of(&int("u16", 5)), Ok(Side::Right));
        assert_eq!(Side::Right.other(), Side::Left);
        // The call's value is on neither side: the test compares something computed from it.
        let err = c.side_of(&int("u16", 6)).unwrap_err();
        assert!(err.contains("neither side"), "{err}");
        // `Some(3)` is not `3`.
        let c = Comparison::parse(&eq_message(Some(3), 4)).unwrap();
        assert_eq!(c.left, "Some(3)");
        assert!(c.side_of(&int("i32", 3)).is_err());
        assert!(parse_like("Some(3)", &int("i32", 3)).is_err());
        // An option is not recorded: its side cannot be told.
        let opaque = Value::Opaque {
            ty: "core::option::Option<i32>".into(),
        };
        let err = c.side_of(&opaque).unwrap_err();
        assert!(err.contains("does not record"), "{err}");
        // `NaN != NaN`: both sides print the same.
        let c = Comparison::parse(&eq_message(f64::NAN, f64::NAN)).unwrap();
        let nan = Value::Float {
            ty: "f64".into(),
            v: "NaN".into(),
        };
        assert!(c.side_of(&nan).unwrap_err().contains("both sides"));
    }

    #[test]
    fn strings_with_escapes() {
        let got = "tab\there \"quoted\" back\\slash é\u{301}\0";
        let want = "line\nbreak 'single' \u{7f}";
        let c = Comparison::parse(&eq_message(got, want)).unwrap();
        assert_eq!(c.side_of(&s(got)), Ok(Side::Left));
        assert_eq!(parse_like(c.text(Side::Right), &s(got)), Ok(s(want)));
        // A cut string cannot be matched.
        let cut = Value::Str {
            v: "tab".into(),
            truncated: true,
        };
        assert!(c.side_of(&cut).is_err());
        assert!(parse_like("\"bad \\q escape\"", &s("")).is_err());
        assert!(parse_like("unquoted", &s("")).is_err());
    }

    #[test]
    fn chars_bools_and_floats() {
        for (got, want) in [('a', '\''), ('\n', 'é'), ('"', '\u{200b}')] {
            let c = Comparison::parse(&eq_message(got, want)).unwrap();
            assert_eq!(c.side_of(&Value::Char(got)), Ok(Side::Left), "{c:?}");
            assert_eq!(
                parse_like(&c.right, &Value::Char(got)),
                Ok(Value::Char(want))
            );
        }
        assert!(parse_like("'ab'", &Value::Char('x')).is_err());
        let c = Comparison::parse(&eq_message(true, false)).unwrap();
        assert_eq!(c.side_of(&Value::Bool(true)), Ok(Side::Left));
        assert_eq!(
            parse_like(&c.right, &Value::Bool(true)),
            Ok(Value::Bool(false))
        );
        // A float prints `1.0` in Debug and is recorded as its Display text `1`.
        let one = Value::Float {
            ty: "f64".into(),
            v: "1".into(),
        };
        let c = Comparison::parse(&eq_message(1.0f64, 0.5f64)).unwrap();
        assert_eq!(c.side_of(&one), Ok(Side::Left));
        assert_eq!(
            parse_like(&c.right, &one),
            Ok(Value::Float {
                ty: "f64".into(),
                v: "0.5".into()
            })
        );
    }

    #[test]
    fn custom_messages_even_over_several_lines() {
        let message = format!(
            "assertion `left == right` failed: sum of {:?}\n  left: looks like a side\n  left: 10\n right: 12",
            [1, 2]
        );
        let c = Comparison::parse(&message).unwrap();
        assert_eq!((c.left.as_str(), c.right.as_str()), ("10", "12"));
        assert_eq!(
            c.custom.as_deref(),
            Some("sum of [1, 2]\n  left: looks like a side")
        );
    }

    #[test]
    fn assert_ne_and_other_messages() {
        let c = Comparison::parse(
            "assertion `left != right` failed: must differ\n  left: \"a\"\n right: \"a\"",
        )
        .unwrap();
        assert!(!c.equal);
        assert_eq!(c.custom.as_deref(), Some("must differ"));
        assert_eq!(c.side_of(&s("a")), Ok(Side::Left));
        assert!(c.side_of(&s("b")).unwrap_err().contains("neither side"));
        assert_eq!(Comparison::parse("assertion failed: x > 3"), None);
        assert_eq!(
            Comparison::parse("called `Option::unwrap()` on a `None` value"),
            None
        );
        assert_eq!(
            Comparison::parse("assertion `left == right` failed\n  left: 1"),
            None
        );
    }

    #[test]
    fn the_form_before_rust_1_73() {
        let c =
            Comparison::parse("assertion failed: `(left == right)`\n  left: `5`,\n right: `-6`")
                .unwrap();
        assert_eq!((c.left.as_str(), c.right.as_str()), ("5", "-6"));
        let c = Comparison::parse(
            "assertion failed: `(left != right)`: why\n  left: `'a'`,\n right: `'a'`",
        )
        .unwrap();
        assert!(!c.equal);
        assert_eq!(c.custom.as_deref(), Some("why"));
    }

    #[test]
    fn debug_text_of_sequences_and_unit() {
        let v = Value::Seq {
            items: vec![int("i32", 1), int("i32", -2)],
            len: 2,
        };
        assert_eq!(debug_text(&v).as_deref(), Some("[1, -2]"));
        assert_eq!(debug_text(&v), Some(format!("{:?}", vec![1, -2])));
        let cut = Value::Seq {
            items: vec![int("i32", 1)],
            len: 100,
        };
        assert_eq!(debug_text(&cut), None);
        assert_eq!(describe(&cut), "[1, … (100 items)]");
        assert_eq!(describe(&v), "[1, -2]");
        assert_eq!(debug_text(&Value::Unit).as_deref(), Some("()"));
    }

    #[test]
    fn options_print_and_read_as_debug_writes_them() {
        let opt = |ty: &str, v: Option<Value>| Value::Opt {
            ty: ty.to_string(),
            v: v.map(Box::new),
        };
        let some = opt("u64", Some(int("u64", 3)));
        assert_eq!(debug_text(&some), Some(format!("{:?}", Some(3u64))));
        assert_eq!(debug_text(&opt("u64", None)).as_deref(), Some("None"));
        // A call that returned `None` is read a `Some` by the type it holds.
        let none = opt("u64", None);
        assert_eq!(
            parse_like("Some(5)", &none),
            Ok(opt("u64", Some(int("u64", 5))))
        );
        assert_eq!(parse_like("None", &some), Ok(none.clone()));
        assert!(parse_like("Some(-1)", &none).is_err());
        assert!(parse_like("5", &none).is_err());
        let text = opt("&str", None);
        let read = parse_like("Some(\"ab\")", &text).unwrap();
        assert_eq!(debug_text(&read), Some(format!("{:?}", Some("ab"))));
        let c =
            Comparison::parse("assertion `left == right` failed\n  left: Some(3)\n right: Some(4)")
                .unwrap();
        assert_eq!(c.side_of(&some), Ok(Side::Left));
    }

    #[test]
    fn an_assert_of_one_comparison_names_its_sides() {
        let c = SourceComparison::parse("assertion failed: tri(3) == vec![1, 3, 2, 8]").unwrap();
        assert!(c.equal);
        assert_eq!(
            (c.left.as_str(), c.right.as_str()),
            ("tri(3)", "vec![1, 3, 2, 8]")
        );
        assert_eq!(c.call_side("tri"), Some(Side::Left));
        let c =
            SourceComparison::parse(r#"assertion failed: "a==b" != m::f("x, y", 'q')"#).unwrap();
        assert!(!c.equal);
        assert_eq!(c.call_side("f"), Some(Side::Right));
        // More than one comparison, none, or a side that does more than call.
        for message in [
            "assertion failed: f(1) == 2 && f(2) == 3",
            "assertion failed: f(1) <= 2",
            "assertion failed: f(1)",
            "assertion failed: f(1) == g(2) == h(3)",
        ] {
            assert_eq!(SourceComparison::parse(message), None, "{message}");
        }
        let c = SourceComparison::parse("assertion failed: f(1).len() == 2").unwrap();
        assert_eq!(c.call_side("f"), None);
        let c = SourceComparison::parse("assertion failed: f(1) + f(2) == 2").unwrap();
        assert_eq!(c.call_side("f"), None);
        // Source strings as the value they stand for.
        let like = Value::Str {
            v: String::new(),
            truncated: false,
        };
        let ab = Ok(Value::Str {
            v: "ab".into(),
            truncated: false,
        });
        assert_eq!(parse_like(r#""ab".to_string()"#, &like), ab);
        assert_eq!(parse_like(r#"String::from("ab")"#, &like), ab);
    }

    #[test]
    fn expected_sequences_as_debug_and_vec_write_them() {
        let seq = |items: Vec<Value>| Value::Seq {
            len: items.len(),
            items,
        };
        let v = seq(vec![int("i32", 1), int("i32", -2)]);
        assert_eq!(
            parse_like("[11, 4]", &v),
            Ok(seq(vec![int("i32", 11), int("i32", 4)]))
        );
        assert_eq!(parse_like("vec![]", &v), Ok(seq(vec![])));
        assert_eq!(parse_like("vec![7,]", &v), Ok(seq(vec![int("i32", 7)])));
        // Elements like the returned ones; with nothing returned, like their text.
        let strings = parse_like(r#"["a, b", "c\"d"]"#, &seq(vec![]));
        let s = |v: &str| Value::Str {
            v: v.into(),
            truncated: false,
        };
        assert_eq!(strings, Ok(seq(vec![s("a, b"), s("c\"d")])));
        let nested = seq(vec![seq(vec![int("i32", 0)])]);
        assert_eq!(
            parse_like("[[1, 2], []]", &nested),
            Ok(seq(vec![
                seq(vec![int("i32", 1), int("i32", 2)]),
                seq(vec![])
            ]))
        );
        // What is not a sequence, or an element of another type.
        assert!(parse_like("[1, 2", &v).is_err());
        assert!(parse_like("[1, , 2]", &v).is_err());
        assert!(parse_like("[1.5]", &v).is_err());
        assert!(parse_like("Some([1])", &v).is_err());
    }
}
