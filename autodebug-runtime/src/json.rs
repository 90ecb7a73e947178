//! JSON for the runtime's own files (trace records, batch results, plans, batch requests),
//! written and read through serde without linking a JSON crate into the user's build.
//!
//! Why not `serde_json`: everything the runtime links ends up in the instrumented crate's
//! graph, and `serde_json::Value` implements `PartialEq<Value>` for every integer type, `str`,
//! `String` and `bool`. With those impls in the graph, inference that holds in the user's
//! plain build becomes ambiguous (`assert_eq!(f(vec![]), vec![])` asks for `i32: PartialEq<_>`
//! and finds two answers: E0282/E0283). This module defines no trait impl on a std or core
//! type; its one data type, [`Json`], is private to the runtime.
//!
//! For everything the protocol holds the output is byte for byte what `serde_json::to_string`
//! writes (compact, the same escapes; `tests/protocol.rs` checks it), so the tool reads it
//! with `serde_json`; the reader takes any JSON text. Floats, which the protocol carries as
//! strings, are written with Rust's shortest round-trip `Display`.

use serde::de::{self, IntoDeserializer, Visitor};
use serde::ser::{self, Serialize};
use std::fmt::{self, Display, Write as _};

/// An error writing or reading the runtime's JSON. A reading error names its place in the
/// text (`at line L column C`), type errors included.
#[derive(Debug)]
pub struct Error {
    message: String,
    located: bool,
}

impl Error {
    fn new(message: String) -> Self {
        Error {
            message,
            located: false,
        }
    }

    /// The error, placed at `at` unless an inner value already placed it.
    fn at(mut self, at: Place) -> Self {
        if !self.located {
            self.message = format!("{} at line {} column {}", self.message, at.line, at.column);
            self.located = true;
        }
        self
    }
}

impl Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

impl ser::Error for Error {
    fn custom<T: Display>(msg: T) -> Self {
        Error::new(msg.to_string())
    }
}

impl de::Error for Error {
    fn custom<T: Display>(msg: T) -> Self {
        Error::new(msg.to_string())
    }
}

impl From<Error> for std::io::Error {
    fn from(e: Error) -> Self {
        std::io::Error::other(e.message)
    }
}

/// `value` as compact JSON text.
pub fn to_string<T: Serialize + ?Sized>(value: &T) -> Result<String, Error> {
    let mut out = String::new();
    append(&mut out, value)?;
    Ok(out)
}

/// Appends `value`'s compact JSON text to `out`.
pub fn append<T: Serialize + ?Sized>(out: &mut String, value: &T) -> Result<(), Error> {
    value.serialize(Writer { out })
}

/// A value of type `T` from JSON text.
pub fn from_str<T: de::DeserializeOwned>(text: &str) -> Result<T, Error> {
    let json = Parser::new(text).document()?;
    T::deserialize(json)
}

// ---------------------------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------------------------

/// Appends `s` as a JSON string.
pub(crate) fn write_str(out: &mut String, s: &str) {
    out.push('"');
    // Most strings (names, types, the text of values) need no escape: copied at once.
    if !s.bytes().any(|b| b < 0x20 || b == b'"' || b == b'\\') {
        out.push_str(s);
        out.push('"');
        return;
    }
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

fn write_float(out: &mut String, v: f64) {
    if v.is_finite() {
        let text = v.to_string();
        out.push_str(&text);
        if !text.contains(['.', 'e', 'E']) {
            out.push_str(".0");
        }
    } else {
        out.push_str("null");
    }
}

/// The serializer: appends the JSON text of one value to `out`.
struct Writer<'a> {
    out: &'a mut String,
}

/// An array or object being written: whether an element has been written yet, and whether
/// the value is wrapped in `{"variant":…}` (closed with an extra `}`).
struct Compound<'a> {
    out: &'a mut String,
    first: bool,
    variant: bool,
}

impl<'a> Compound<'a> {
    fn open(out: &'a mut String, open: char, variant: Option<&str>) -> Self {
        if let Some(name) = variant {
            out.push('{');
            write_str(out, name);
            out.push(':');
        }
        out.push(open);
        Compound {
            out,
            first: true,
            variant: variant.is_some(),
        }
    }

    fn comma(&mut self) {
        if !self.first {
            self.out.push(',');
        }
        self.first = false;
    }

    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.comma();
        value.serialize(Writer { out: self.out })
    }

    fn field<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> Result<(), Error> {
        self.comma();
        write_str(self.out, key);
        self.out.push(':');
        value.serialize(Writer { out: self.out })
    }

    fn close(self, close: char) -> Result<(), Error> {
        self.out.push(close);
        if self.variant {
            self.out.push('}');
        }
        Ok(())
    }
}

macro_rules! write_display {
    ($($method:ident: $ty:ty),* $(,)?) => {
        $(fn $method(self, v: $ty) -> Result<(), Error> {
            let _ = write!(self.out, "{v}");
            Ok(())
        })*
    };
}

impl<'a> ser::Serializer for Writer<'a> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Compound<'a>;
    type SerializeTuple = Compound<'a>;
    type SerializeTupleStruct = Compound<'a>;
    type SerializeTupleVariant = Compound<'a>;
    type SerializeMap = Compound<'a>;
    type SerializeStruct = Compound<'a>;
    type SerializeStructVariant = Compound<'a>;

    write_display!(
        serialize_bool: bool,
        serialize_i8: i8,
        serialize_i16: i16,
        serialize_i32: i32,
        serialize_i64: i64,
        serialize_i128: i128,
        serialize_u8: u8,
        serialize_u16: u16,
        serialize_u32: u32,
        serialize_u64: u64,
        serialize_u128: u128,
    );

    fn serialize_f32(self, v: f32) -> Result<(), Error> {
        write_float(self.out, f64::from(v));
        Ok(())
    }

    fn serialize_f64(self, v: f64) -> Result<(), Error> {
        write_float(self.out, v);
        Ok(())
    }

    fn serialize_char(self, v: char) -> Result<(), Error> {
        write_str(self.out, v.encode_utf8(&mut [0; 4]));
        Ok(())
    }

    fn serialize_str(self, v: &str) -> Result<(), Error> {
        write_str(self.out, v);
        Ok(())
    }

    fn serialize_bytes(self, v: &[u8]) -> Result<(), Error> {
        let mut seq = Compound::open(self.out, '[', None);
        for b in v {
            seq.element(b)?;
        }
        seq.close(']')
    }

    fn serialize_none(self) -> Result<(), Error> {
        self.out.push_str("null");
        Ok(())
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Error> {
        value.serialize(self)
    }

    fn serialize_unit(self) -> Result<(), Error> {
        self.serialize_none()
    }

    fn serialize_unit_struct(self, _: &'static str) -> Result<(), Error> {
        self.serialize_none()
    }

    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        name: &'static str,
    ) -> Result<(), Error> {
        write_str(self.out, name);
        Ok(())
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        name: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.out.push('{');
        write_str(self.out, name);
        self.out.push(':');
        value.serialize(Writer { out: self.out })?;
        self.out.push('}');
        Ok(())
    }

    fn serialize_seq(self, _: Option<usize>) -> Result<Compound<'a>, Error> {
        Ok(Compound::open(self.out, '[', None))
    }

    fn serialize_tuple(self, _: usize) -> Result<Compound<'a>, Error> {
        Ok(Compound::open(self.out, '[', None))
    }

    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Compound<'a>, Error> {
        Ok(Compound::open(self.out, '[', None))
    }

    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        name: &'static str,
        _: usize,
    ) -> Result<Compound<'a>, Error> {
        Ok(Compound::open(self.out, '[', Some(name)))
    }

    fn serialize_map(self, _: Option<usize>) -> Result<Compound<'a>, Error> {
        Ok(Compound::open(self.out, '{', None))
    }

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Compound<'a>, Error> {
        Ok(Compound::open(self.out, '{', None))
    }

    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        name: &'static str,
        _: usize,
    ) -> Result<Compound<'a>, Error> {
        Ok(Compound::open(self.out, '{', Some(name)))
    }
}

/// The element-list traits: each element written, the list closed with `]`.
macro_rules! elements {
    ($($trait:ident :: $method:ident),* $(,)?) => {
        $(impl ser::$trait for Compound<'_> {
            type Ok = ();
            type Error = Error;
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
                self.element(value)
            }
            fn end(self) -> Result<(), Error> {
                self.close(']')
            }
        })*
    };
}

elements!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field,
);

impl ser::SerializeMap for Compound<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        self.comma();
        // A key is written as a value, then quoted when it is not already a string (an
        // integer key becomes `"7"`, as serde_json writes it).
        let mut text = String::new();
        key.serialize(Writer { out: &mut text })?;
        if text.starts_with('"') {
            self.out.push_str(&text);
        } else if text.starts_with(['{', '[']) || text == "null" {
            return Err(Error::new(format!(
                "a JSON object key must be a string, not {text}"
            )));
        } else {
            write_str(self.out, &text);
        }
        self.out.push(':');
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        value.serialize(Writer { out: self.out })
    }
    fn end(self) -> Result<(), Error> {
        self.close('}')
    }
}

/// The struct traits: each field written with its name, the object closed with `}`.
macro_rules! fields {
    ($($trait:ident),*) => {
        $(impl ser::$trait for Compound<'_> {
            type Ok = ();
            type Error = Error;
            fn serialize_field<T: Serialize + ?Sized>(
                &mut self,
                key: &'static str,
                value: &T,
            ) -> Result<(), Error> {
                self.field(key, value)
            }
            fn end(self) -> Result<(), Error> {
                self.close('}')
            }
        })*
    };
}

fields!(SerializeStruct, SerializeStructVariant);

// ---------------------------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------------------------

/// A 1-based line and column (in bytes) of the text.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Place {
    line: usize,
    column: usize,
}

/// A parsed JSON value and where it starts.
#[derive(Debug, Clone, PartialEq)]
struct Json {
    at: Place,
    data: Data,
}

/// A parsed JSON value. Integers keep their exact value (up to 128 bits); object members keep
/// their order.
#[derive(Debug, Clone, PartialEq)]
enum Data {
    Null,
    Bool(bool),
    Int(i128),
    UInt(u128),
    Float(f64),
    Str(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

/// Deeper nesting than this is refused (a plan or request is a few levels deep).
const MAX_DEPTH: usize = 256;

struct Parser<'t> {
    text: &'t str,
    pos: usize,
    /// The line `pos` is on (1-based) and where that line starts: a line ends only in
    /// whitespace between tokens (a string holds no raw newline), so skipping whitespace
    /// keeps them, and every value's place costs nothing to know.
    line: usize,
    line_start: usize,
}

impl<'t> Parser<'t> {
    fn new(text: &'t str) -> Self {
        Parser {
            text,
            pos: 0,
            line: 1,
            line_start: 0,
        }
    }

    fn place(&self) -> Place {
        let pos = self.pos.min(self.text.len());
        Place {
            line: self.line,
            column: pos.saturating_sub(self.line_start) + 1,
        }
    }

    fn error(&self, what: &str) -> Error {
        Error::new(what.to_string()).at(self.place())
    }

    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while let Some(b @ (b' ' | b'\t' | b'\n' | b'\r')) = self.peek() {
            self.pos += 1;
            if b == b'\n' {
                self.line += 1;
                self.line_start = self.pos;
            }
        }
    }

    fn expect(&mut self, byte: u8) -> Result<(), Error> {
        self.skip_ws();
        if self.peek() == Some(byte) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.error(&format!("expected `{}`", byte as char)))
        }
    }

    fn document(mut self) -> Result<Json, Error> {
        let value = self.value(0)?;
        self.skip_ws();
        if self.pos < self.text.len() {
            return Err(self.error("trailing characters"));
        }
        Ok(value)
    }

    fn value(&mut self, depth: usize) -> Result<Json, Error> {
        if depth > MAX_DEPTH {
            return Err(self.error("nesting too deep"));
        }
        self.skip_ws();
        let at = self.place();
        let data = self.data(depth)?;
        Ok(Json { at, data })
    }

    fn data(&mut self, depth: usize) -> Result<Data, Error> {
        match self.peek() {
            None => Err(self.error("EOF while parsing a value")),
            Some(b'{') => {
                self.pos += 1;
                let mut members = Vec::new();
                self.skip_ws();
                if self.peek() == Some(b'}') {
                    self.pos += 1;
                    return Ok(Data::Object(members));
                }
                loop {
                    self.skip_ws();
                    if self.peek() != Some(b'"') {
                        return Err(self.error("expected a string key"));
                    }
                    let key = self.string()?;
                    self.expect(b':')?;
                    members.push((key, self.value(depth + 1)?));
                    self.skip_ws();
                    match self.peek() {
                        Some(b',') => self.pos += 1,
                        Some(b'}') => {
                            self.pos += 1;
                            return Ok(Data::Object(members));
                        }
                        _ => return Err(self.error("expected `,` or `}`")),
                    }
                }
            }
            Some(b'[') => {
                self.pos += 1;
                let mut items = Vec::new();
                self.skip_ws();
                if self.peek() == Some(b']') {
                    self.pos += 1;
                    return Ok(Data::Array(items));
                }
                loop {
                    items.push(self.value(depth + 1)?);
                    self.skip_ws();
                    match self.peek() {
                        Some(b',') => self.pos += 1,
                        Some(b']') => {
                            self.pos += 1;
                            return Ok(Data::Array(items));
                        }
                        _ => return Err(self.error("expected `,` or `]`")),
                    }
                }
            }
            Some(b'"') => self.string().map(Data::Str),
            Some(b't') => self.word("true", Data::Bool(true)),
            Some(b'f') => self.word("false", Data::Bool(false)),
            Some(b'n') => self.word("null", Data::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => Err(self.error("expected a value")),
        }
    }

    fn word(&mut self, word: &str, value: Data) -> Result<Data, Error> {
        if self.text[self.pos..].starts_with(word) {
            self.pos += word.len();
            Ok(value)
        } else {
            Err(self.error("expected a value"))
        }
    }

    fn number(&mut self) -> Result<Data, Error> {
        let start = self.pos;
        let bytes = self.text.as_bytes();
        let mut float = false;
        if bytes.get(self.pos) == Some(&b'-') {
            self.pos += 1;
        }
        let digits = self.pos;
        while let Some(b) = bytes.get(self.pos) {
            match b {
                b'0'..=b'9' => {}
                b'.' | b'e' | b'E' | b'+' | b'-' => float = true,
                _ => break,
            }
            self.pos += 1;
        }
        let text = &self.text[start..self.pos];
        if self.pos == digits || !bytes[digits].is_ascii_digit() {
            return Err(self.error("invalid number"));
        }
        if !float {
            if let Ok(v) = text.parse::<i128>() {
                return Ok(Data::Int(v));
            }
            if let Ok(v) = text.parse::<u128>() {
                return Ok(Data::UInt(v));
            }
        }
        text.parse::<f64>()
            .map(Data::Float)
            .map_err(|_| self.error("invalid number"))
    }

    fn hex4(&mut self) -> Result<u32, Error> {
        let digits = self
            .text
            .get(self.pos..self.pos + 4)
            .ok_or_else(|| self.error("EOF in a \\u escape"))?;
        let v = u32::from_str_radix(digits, 16).map_err(|_| self.error("invalid \\u escape"))?;
        self.pos += 4;
        Ok(v)
    }

    fn string(&mut self) -> Result<String, Error> {
        self.pos += 1; // the opening quote
        let mut out = String::new();
        loop {
            let rest = &self.text[self.pos..];
            let stop = rest
                .find(['"', '\\'])
                .ok_or_else(|| self.error("EOF while parsing a string"))?;
            if rest[..stop].bytes().any(|b| b < 0x20) {
                return Err(self.error("control character in a string"));
            }
            out.push_str(&rest[..stop]);
            self.pos += stop + 1;
            if rest.as_bytes()[stop] == b'"' {
                return Ok(out);
            }
            let escape = self.peek().ok_or_else(|| self.error("EOF in an escape"))?;
            self.pos += 1;
            match escape {
                b'"' => out.push('"'),
                b'\\' => out.push('\\'),
                b'/' => out.push('/'),
                b'b' => out.push('\u{8}'),
                b'f' => out.push('\u{c}'),
                b'n' => out.push('\n'),
                b'r' => out.push('\r'),
                b't' => out.push('\t'),
                b'u' => {
                    let first = self.hex4()?;
                    let code = if (0xD800..0xDC00).contains(&first) {
                        if !self.text[self.pos..].starts_with("\\u") {
                            return Err(self.error("unpaired surrogate"));
                        }
                        self.pos += 2;
                        let second = self.hex4()?;
                        if !(0xDC00..0xE000).contains(&second) {
                            return Err(self.error("unpaired surrogate"));
                        }
                        0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
                    } else {
                        first
                    };
                    out.push(char::from_u32(code).ok_or_else(|| self.error("invalid \\u escape"))?);
                }
                _ => return Err(self.error("invalid escape")),
            }
        }
    }
}

impl<'de> IntoDeserializer<'de, Error> for Json {
    type Deserializer = Json;
    fn into_deserializer(self) -> Json {
        self
    }
}

impl Json {
    fn any<'de, V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.data {
            Data::Null => visitor.visit_unit(),
            Data::Bool(v) => visitor.visit_bool(v),
            Data::Int(v) => match i64::try_from(v) {
                Ok(v) => visitor.visit_i64(v),
                Err(_) => match u64::try_from(v) {
                    Ok(v) => visitor.visit_u64(v),
                    Err(_) => visitor.visit_i128(v),
                },
            },
            Data::UInt(v) => visitor.visit_u128(v),
            Data::Float(v) => visitor.visit_f64(v),
            Data::Str(v) => visitor.visit_string(v),
            Data::Array(items) => {
                let mut seq = de::value::SeqDeserializer::new(items.into_iter());
                let value = visitor.visit_seq(&mut seq)?;
                seq.end()?;
                Ok(value)
            }
            Data::Object(members) => {
                let members = members.into_iter().map(|(k, v)| (Key(k), v));
                let mut map = de::value::MapDeserializer::new(members);
                let value = visitor.visit_map(&mut map)?;
                map.end()?;
                Ok(value)
            }
        }
    }

    fn enumeration<'de, V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.data {
            Data::Str(name) => visitor.visit_enum(name.into_deserializer()),
            Data::Object(members) if members.len() == 1 => {
                let (name, value) = members.into_iter().next().expect("one member");
                visitor.visit_enum(Variant { name, value })
            }
            _ => Err(Error::new(
                "expected an enum: a string, or an object of one member".to_string(),
            )),
        }
    }
}

impl<'de> de::Deserializer<'de> for Json {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let at = self.at;
        self.any(visitor).map_err(|e| e.at(at))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let at = self.at;
        match self.data {
            Data::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
        .map_err(|e| e.at(at))
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        let at = self.at;
        visitor.visit_newtype_struct(self).map_err(|e| e.at(at))
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        let at = self.at;
        self.enumeration(visitor).map_err(|e| e.at(at))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        unit unit_struct seq tuple tuple_struct map struct identifier ignored_any
    }
}

/// An object's key: a string, or an integer written as one (as serde_json reads map keys).
struct Key(String);

impl<'de> IntoDeserializer<'de, Error> for Key {
    type Deserializer = Key;
    fn into_deserializer(self) -> Key {
        self
    }
}

macro_rules! parse_key {
    ($($method:ident => $visit:ident: $ty:ty),* $(,)?) => {
        $(fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
            match self.0.parse::<$ty>() {
                Ok(v) => visitor.$visit(v),
                Err(_) => visitor.visit_string(self.0),
            }
        })*
    };
}

impl<'de> de::Deserializer<'de> for Key {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_string(self.0)
    }

    parse_key!(
        deserialize_i8 => visit_i8: i8,
        deserialize_i16 => visit_i16: i16,
        deserialize_i32 => visit_i32: i32,
        deserialize_i64 => visit_i64: i64,
        deserialize_i128 => visit_i128: i128,
        deserialize_u8 => visit_u8: u8,
        deserialize_u16 => visit_u16: u16,
        deserialize_u32 => visit_u32: u32,
        deserialize_u64 => visit_u64: u64,
        deserialize_u128 => visit_u128: u128,
    );

    serde::forward_to_deserialize_any! {
        bool f32 f64 char str string bytes byte_buf option unit unit_struct newtype_struct seq
        tuple tuple_struct map struct enum identifier ignored_any
    }
}

/// An externally tagged enum's variant: `{"name": value}`.
struct Variant {
    name: String,
    value: Json,
}

impl<'de> de::EnumAccess<'de> for Variant {
    type Error = Error;
    type Variant = Json;
    fn variant_seed<S: de::DeserializeSeed<'de>>(self, seed: S) -> Result<(S::Value, Json), Error> {
        let name = seed.deserialize(self.name.into_deserializer())?;
        Ok((name, self.value))
    }
}

impl<'de> de::VariantAccess<'de> for Json {
    type Error = Error;

    fn unit_variant(self) -> Result<(), Error> {
        match self.data {
            Data::Null => Ok(()),
            _ => Err(Error::new("expected a unit variant".to_string()).at(self.at)),
        }
    }

    fn newtype_variant_seed<S: de::DeserializeSeed<'de>>(self, seed: S) -> Result<S::Value, Error> {
        seed.deserialize(self)
    }

    fn tuple_variant<V: Visitor<'de>>(self, _: usize, visitor: V) -> Result<V::Value, Error> {
        de::Deserializer::deserialize_seq(self, visitor)
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        de::Deserializer::deserialize_map(self, visitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::{Deserialize, Serialize};

    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    #[serde(tag = "t", rename_all = "snake_case")]
    enum Tagged {
        A { x: i64, name: String },
        B,
    }

    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    enum External {
        Unit,
        New(u8),
        Tuple(i32, bool),
        Struct { c: char },
    }

    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Inner {
        k: Option<u32>,
    }

    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Outer {
        inner: Inner,
        list: Vec<External>,
        tagged: Vec<Tagged>,
        text: String,
        map: std::collections::BTreeMap<u32, String>,
        big: u128,
        neg: i128,
    }

    fn sample() -> Outer {
        Outer {
            inner: Inner { k: Some(7) },
            list: vec![
                External::Unit,
                External::New(3),
                External::Tuple(-4, true),
                External::Struct { c: 'é' },
            ],
            tagged: vec![
                Tagged::A {
                    x: i64::MIN,
                    name: "q\"\\\n\t\u{1}\u{7f}€😀".into(),
                },
                Tagged::B,
            ],
            text: String::new(),
            map: [(1, "one".to_string()), (20, "twenty".to_string())].into(),
            big: u128::MAX,
            neg: i128::MIN,
        }
    }

    #[test]
    fn round_trips_every_shape_the_protocol_uses() {
        let value = sample();
        let text = to_string(&value).unwrap();
        assert_eq!(from_str::<Outer>(&text).unwrap(), value);
    }

    #[test]
    fn reads_whitespace_escapes_and_surrogate_pairs() {
        let text = r#" { "t" : "a" , "x" : -12 , "name" : "\u00e9\ud83d\ude00\/\b\f" } "#;
        assert_eq!(
            from_str::<Tagged>(text).unwrap(),
            Tagged::A {
                x: -12,
                name: "é😀/\u{8}\u{c}".into()
            }
        );
    }

    #[test]
    fn malformed_text_is_an_error_with_its_place() {
        for bad in [
            "",
            "{",
            "[1,]",
            "{\"t\":\"b\"} x",
            "\"\\ud800\"",
            "\"a\nb\"",
            "01x",
            "-",
            "nul",
            "{\"a\" 1}",
        ] {
            let err = from_str::<Tagged>(bad).unwrap_err();
            assert!(err.to_string().contains("line"), "{bad:?}: {err}");
        }
        let err =
            from_str::<Outer>("{\"inner\": {\"k\": 1},\n  \"list\": [\"Unit\", {\"New\": -1}]}")
                .unwrap_err()
                .to_string();
        assert!(err.contains("at line 2 column 28"), "{err}");
        let deep = "[".repeat(MAX_DEPTH + 10);
        assert!(from_str::<Vec<u8>>(&deep).is_err());
    }

    #[test]
    fn floats_and_unit_values() {
        assert_eq!(to_string(&1.5f64).unwrap(), "1.5");
        assert_eq!(to_string(&2.0f32).unwrap(), "2.0");
        assert_eq!(to_string(&f64::NAN).unwrap(), "null");
        assert_eq!(from_str::<f64>("2.5e3").unwrap(), 2500.0);
        assert_eq!(to_string(&()).unwrap(), "null");
        assert_eq!(to_string(&Option::<u8>::None).unwrap(), "null");
    }

    /// Every record kind and a plan with every target kind: the same text as serde_json
    /// writes, and read back (from serde_json's text too) to the same value.
    #[test]
    fn protocol_text_is_serde_json_s() {
        use crate::protocol::*;
        let value = |v: i128| Value::Int {
            ty: "i64".into(),
            v,
        };
        let all = Value::Seq {
            items: vec![
                value(i128::MIN),
                value(u64::MAX.into()),
                Value::Float {
                    ty: "f64".into(),
                    v: "NaN".into(),
                },
                Value::Bool(true),
                Value::Char('\u{0}'),
                Value::Str {
                    v: "a\"b\\c\u{1f}\u{7f}\u{2028}".into(),
                    truncated: true,
                },
                Value::Unit,
                Value::Opt {
                    ty: "i64".into(),
                    v: None,
                },
                Value::Opt {
                    ty: "i64".into(),
                    v: Some(Box::new(value(-1))),
                },
                Value::Opaque {
                    ty: "Vec<(f32, &str)>".into(),
                },
            ],
            len: 11,
        };
        let site = SiteInfo {
            file: "src/lib.rs".into(),
            line: 3,
            column: 9,
            end_line: 3,
            end_column: 20,
            kind: SiteKind::If,
            code: "s > a[i]".into(),
            function: "m::f".into(),
        };
        let records = vec![
            Record::Header {
                version: 1,
                mode: "events".into(),
                pid: 7,
            },
            Record::Site { id: 0, site },
            Record::Enter {
                site: 0,
                args: vec![("xs".into(), all.clone())],
            },
            Record::Branch {
                site: 0,
                instance: 2,
                outcome: false,
                flipped: true,
                operands: vec![value(1), value(-2)],
            },
            Record::Component {
                site: 1,
                instance: 0,
                value: all,
                overridden: false,
                scope: vec![("x".into(), value(i128::MAX))],
            },
            Record::ComponentDelta {
                site: 1,
                instance: 1,
                value: DeltaValue::Int(2),
                overridden: true,
                changed: vec![
                    (0, DeltaValue::Full(value(-1))),
                    (1, DeltaValue::Int(i128::MIN)),
                    (2, DeltaValue::Full(Value::Unit)),
                ],
            },
            Record::ComponentDelta {
                site: 1,
                instance: 2,
                value: DeltaValue::Full(Value::Bool(true)),
                overridden: false,
                changed: vec![],
            },
            Record::BranchDelta {
                site: 0,
                instance: 3,
                outcome: true,
                flipped: false,
                operands: vec![
                    DeltaValue::Int(-5),
                    DeltaValue::Full(value(u64::MAX.into())),
                ],
            },
            Record::BranchDelta {
                site: 0,
                instance: 4,
                outcome: false,
                flipped: true,
                operands: vec![],
            },
            Record::EnterDelta {
                site: 0,
                changed: vec![],
            },
            Record::Panic {
                message: "assertion `left == right` failed\n  left: 1".into(),
                file: "src/lib.rs".into(),
                line: 9,
                column: 5,
                thread: "t".into(),
            },
            Record::Callers {
                frames: vec![Frame {
                    file: "src/lib.rs".into(),
                    line: 14,
                    column: 20,
                }],
            },
            Record::Assertion { passed: false },
            Record::End {
                events: 5,
                hits: vec![],
            },
        ];
        for record in &records {
            let ours = to_string(record).unwrap();
            assert_eq!(ours, serde_json::to_string(record).unwrap());
            assert_eq!(&from_str::<Record>(&ours).unwrap(), record);
        }
        let key = SiteKey {
            file: "src/lib.rs".into(),
            line: 3,
            column: 9,
            kind: SiteKind::Let,
        };
        let target = Target {
            site: key,
            instance: Some(1),
        };
        let plan = Plan {
            version: PLAN_VERSION,
            flips: vec![target.clone()],
            overrides: vec![Override {
                target: target.clone(),
                value: value(-3),
            }],
            replacements: vec![Replacement {
                target: target.clone(),
                expr: Expr::Binary {
                    op: BinOp::Lt,
                    left: Box::new(Expr::Operand { index: 1 }),
                    right: Box::new(Expr::Unary {
                        op: UnOp::Not,
                        arg: Box::new(Expr::Cast {
                            ty: "i64".into(),
                            arg: Box::new(Expr::Var { name: "s".into() }),
                        }),
                    }),
                },
            }],
            fuel: Some(20_000),
            arguments: vec![Argument {
                target,
                name: "r#type".into(),
                value: Value::Bool(false),
            }],
            soft_assertions: true,
        };
        let text = serde_json::to_string_pretty(&plan).unwrap();
        assert_eq!(from_str::<Plan>(&text).unwrap(), plan);
        assert_eq!(
            to_string(&plan).unwrap(),
            serde_json::to_string(&plan).unwrap()
        );
    }
}
