//! Values of the IR's types as far as a run or a test tells them: the recorded arguments,
//! the value a test expected, the values a weakest precondition allows. A recording
//! knows scalars and sequences of them ([`Concrete::from_value`]); a failing `assert_eq!`
//! prints any value in `Debug` form, which [`Concrete::from_debug`] reads back as the
//! IR's type says (tuples, structs, enums, `Option`s included).

use std::fmt;

use autodebug_runtime::protocol::Value;

use crate::ir::{Program, Type};

/// A value of the IR's types, as far as it is known: arguments, expected results, the
/// values a weakest precondition allows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Concrete {
    /// `()`
    Unit,
    /// A `bool`.
    Bool(bool),
    /// An integer (its type is the context's).
    Int(i128),
    /// A `char`.
    Char(char),
    /// A sequence: the known elements and the real length (a recording keeps at most
    /// `MAX_SEQ_LEN` elements).
    Seq {
        /// The elements, first ones first.
        items: Vec<Concrete>,
        /// The length.
        len: usize,
    },
    /// A tuple.
    Tuple(Vec<Concrete>),
    /// A struct: its name and fields.
    Struct(String, Vec<(String, Concrete)>),
    /// A variant of a field-less enum: the enum's name and the variant's.
    Enum(String, String),
    /// `Some(v)` or `None`.
    Option(Option<Box<Concrete>>),
    /// Not known.
    Unknown,
}

impl Concrete {
    /// A recorded value (strings, floats and opaque values are unknown here).
    pub fn from_value(v: &Value) -> Concrete {
        match v {
            Value::Int { v, .. } => Concrete::Int(*v),
            Value::Bool(b) => Concrete::Bool(*b),
            Value::Char(c) => Concrete::Char(*c),
            Value::Unit => Concrete::Unit,
            Value::Seq { items, len } => Concrete::Seq {
                items: items.iter().map(Concrete::from_value).collect(),
                len: *len,
            },
            Value::Opt { v: None, .. } => Concrete::Option(None),
            Value::Opt { v: Some(v), .. } => match Concrete::from_value(v) {
                Concrete::Unknown => Concrete::Unknown,
                known => Concrete::Option(Some(Box::new(known))),
            },
            Value::Float { .. } | Value::Str { .. } | Value::Opaque { .. } => Concrete::Unknown,
        }
    }

    /// A scalar as an integer (`bool` as 0/1, `char` as its code).
    pub(crate) fn scalar(&self) -> Option<i128> {
        match self {
            Concrete::Int(v) => Some(*v),
            Concrete::Bool(b) => Some(i128::from(*b)),
            Concrete::Char(c) => Some(*c as i128),
            _ => None,
        }
    }
}

impl fmt::Display for Concrete {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fn list(f: &mut fmt::Formatter<'_>, items: &[Concrete]) -> fmt::Result {
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    write!(f, ", ")?;
                }
                write!(f, "{item}")?;
            }
            Ok(())
        }
        match self {
            Concrete::Unit => write!(f, "()"),
            Concrete::Bool(b) => write!(f, "{b}"),
            Concrete::Int(v) => write!(f, "{v}"),
            Concrete::Char(c) => write!(f, "{c:?}"),
            Concrete::Seq { items, len } => {
                write!(f, "[")?;
                list(f, items)?;
                if items.len() < *len {
                    write!(f, ", … ({len} elements)")?;
                }
                write!(f, "]")
            }
            Concrete::Tuple(items) => {
                write!(f, "(")?;
                list(f, items)?;
                write!(f, ")")
            }
            Concrete::Struct(name, fields) => {
                write!(f, "{name} {{ ")?;
                for (i, (n, v)) in fields.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{n}: {v}")?;
                }
                write!(f, " }}")
            }
            Concrete::Enum(e, v) => write!(f, "{e}::{v}"),
            Concrete::Option(Some(v)) => write!(f, "Some({v})"),
            Concrete::Option(None) => write!(f, "None"),
            Concrete::Unknown => write!(f, "?"),
        }
    }
}

impl Concrete {
    /// The value of type `ty` that `Debug` printed as `text` (`(true, false)`,
    /// `Some([1, 2])`, `Point { x: 1, y: 2 }`, `Color::Red` or `Red`); `None` when the text
    /// is not such a value of that type.
    pub fn from_debug(text: &str, ty: &Type, program: &Program) -> Option<Concrete> {
        let mut p = DebugText {
            rest: text.trim(),
            program,
        };
        let value = p.value(ty, 0)?;
        p.rest.trim().is_empty().then_some(value)
    }
}

/// A cursor over `Debug` text.
struct DebugText<'t, 'p> {
    rest: &'t str,
    program: &'p Program,
}

impl DebugText<'_, '_> {
    fn skip_space(&mut self) {
        self.rest = self.rest.trim_start();
    }

    fn eat(&mut self, token: &str) -> bool {
        self.skip_space();
        match self.rest.strip_prefix(token) {
            Some(rest) => {
                self.rest = rest;
                true
            }
            None => false,
        }
    }

    /// An identifier or a path (`Red`, `Color::Red`, `-12` without its sign).
    fn word(&mut self) -> &str {
        self.skip_space();
        let bytes = self.rest.as_bytes();
        let mut end = 0;
        while end < bytes.len() {
            if bytes[end].is_ascii_alphanumeric() || bytes[end] == b'_' {
                end += 1;
            } else if bytes[end..].starts_with(b"::") {
                end += 2;
            } else {
                break;
            }
        }
        let (word, rest) = self.rest.split_at(end);
        self.rest = rest;
        word
    }

    /// Items separated by commas up to `close` (a trailing comma allowed).
    fn list<T>(
        &mut self,
        close: &str,
        mut item: impl FnMut(&mut Self, usize) -> Option<T>,
    ) -> Option<Vec<T>> {
        let mut out = Vec::new();
        loop {
            if self.eat(close) {
                return Some(out);
            }
            out.push(item(self, out.len())?);
            if !self.eat(",") {
                return self.eat(close).then_some(out);
            }
        }
    }

    fn value(&mut self, ty: &Type, depth: usize) -> Option<Concrete> {
        if depth > 32 {
            return None;
        }
        self.skip_space();
        match ty {
            Type::Unit => self.eat("()").then_some(Concrete::Unit),
            Type::Bool => match self.word() {
                "true" => Some(Concrete::Bool(true)),
                "false" => Some(Concrete::Bool(false)),
                _ => None,
            },
            Type::Int(t) => {
                let negative = self.eat("-");
                let digits = self.word().replace('_', "");
                let v: i128 = digits.parse().ok()?;
                let v = if negative { -v } else { v };
                (t.min_value() <= v && t.max_value().is_none_or(|m| v <= m))
                    .then_some(Concrete::Int(v))
            }
            Type::Char => self.char_literal().map(Concrete::Char),
            Type::Seq { elem, .. } => {
                if !self.eat("[") {
                    return None;
                }
                let items = self.list("]", |p, _| p.value(elem, depth + 1))?;
                let len = items.len();
                Some(Concrete::Seq { items, len })
            }
            Type::Tuple(types) => {
                if !self.eat("(") {
                    return None;
                }
                let items = self.list(")", |p, i| p.value(types.get(i)?, depth + 1))?;
                (items.len() == types.len()).then_some(Concrete::Tuple(items))
            }
            Type::Option(inner) => match self.word() {
                "None" => Some(Concrete::Option(None)),
                "Some" => {
                    if !self.eat("(") {
                        return None;
                    }
                    let v = self.value(inner, depth + 1)?;
                    self.eat(")").then(|| Concrete::Option(Some(Box::new(v))))
                }
                _ => None,
            },
            Type::Enum(name) => {
                let word = self.word();
                let variant = word.rsplit("::").next().unwrap_or(word).to_string();
                let def = self.program.enum_def(name)?;
                def.variants
                    .contains(&variant)
                    .then(|| Concrete::Enum(name.clone(), variant))
            }
            Type::Struct(name) => {
                let def = self.program.struct_def(name)?.clone();
                let word = self.word();
                if word.rsplit("::").next() != Some(name.as_str()) {
                    return None;
                }
                let fields = if def.tuple {
                    if !self.eat("(") {
                        return None;
                    }
                    self.list(")", |p, i| {
                        let (f, t) = def.fields.get(i)?;
                        Some((f.clone(), p.value(t, depth + 1)?))
                    })?
                } else {
                    if !self.eat("{") {
                        return None;
                    }
                    self.list("}", |p, _| {
                        let field = p.word().to_string();
                        let (_, t) = def.fields.iter().find(|(f, _)| *f == field)?;
                        if !p.eat(":") {
                            return None;
                        }
                        Some((field, p.value(t, depth + 1)?))
                    })?
                };
                (fields.len() == def.fields.len()).then(|| Concrete::Struct(name.clone(), fields))
            }
            Type::Opaque(_) | Type::Infer(_) => None,
        }
    }

    fn char_literal(&mut self) -> Option<char> {
        if !self.eat("'") {
            return None;
        }
        let mut chars = self.rest.char_indices();
        let (_, first) = chars.next()?;
        let (c, used) = if first == '\\' {
            let (_, kind) = chars.next()?;
            match kind {
                'n' => ('\n', 2),
                't' => ('\t', 2),
                'r' => ('\r', 2),
                '0' => ('\0', 2),
                '\\' | '\'' | '"' => (kind, 2),
                'u' => {
                    let close = self.rest.find('}')?;
                    let hex = self.rest.get(3..close)?;
                    (
                        char::from_u32(u32::from_str_radix(hex, 16).ok()?)?,
                        close + 1,
                    )
                }
                _ => return None,
            }
        } else {
            (first, first.len_utf8())
        };
        self.rest = &self.rest[used..];
        self.eat("'").then_some(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::IntType;

    #[test]
    fn debug_text_reads_back_as_the_type_says() {
        let program = Program::from_source(
            "struct P { x: i32, y: bool } struct T(u8, char); enum Color { Red, Green }",
            "src/lib.rs",
        )
        .unwrap();
        let b = Type::Bool;
        let pair = Type::Tuple(vec![b.clone(), b.clone()]);
        assert_eq!(
            Concrete::from_debug("(true, false)", &pair, &program),
            Some(Concrete::Tuple(vec![
                Concrete::Bool(true),
                Concrete::Bool(false)
            ]))
        );
        let seq = Type::Option(Box::new(Type::Seq {
            elem: Box::new(Type::Int(IntType::I8)),
            len: None,
        }));
        assert_eq!(
            Concrete::from_debug("Some([-1, 2])", &seq, &program).map(|c| c.to_string()),
            Some("Some([-1, 2])".into())
        );
        assert_eq!(Concrete::from_debug("[300]", &seq, &program), None);
        let p = Concrete::from_debug("P { x: -3, y: true }", &Type::Struct("P".into()), &program);
        assert_eq!(
            p.map(|c| c.to_string()),
            Some("P { x: -3, y: true }".into())
        );
        let t = Concrete::from_debug("T(7, '\\n')", &Type::Struct("T".into()), &program);
        assert_eq!(
            t.map(|c| c.to_string()),
            Some("T { 0: 7, 1: '\\n' }".into())
        );
        assert_eq!(
            Concrete::from_debug("Green", &Type::Enum("Color".into()), &program),
            Some(Concrete::Enum("Color".into(), "Green".into()))
        );
        assert_eq!(Concrete::from_debug("(true, false", &pair, &program), None);
        assert_eq!(
            Concrete::from_debug("(true, false) x", &pair, &program),
            None
        );
    }
}
