//! Values of variables whose type the generated code cannot name. The macros see tokens, not
//! types (`let mut s = 0;` is `{integer}` where the hook call is written), so [`val`] and
//! [`from_value`] take any `T` without a trait bound and decide by the monomorphized type.
//!
//! Why the pointer casts here are sound: a value is reinterpreted as type `P` only when
//! `std::any::type_name::<T>()` is exactly the name of `P` *and* the size of the value is the
//! size of `P`. The names compared against are those of primitives (`i32`, `bool`, `()`…)
//! and of std types printed with their full path (`alloc::string::String`,
//! `alloc::vec::Vec<i32>`), in the exact form `type_name` prints them (`&str`, `&mut [u8]`,
//! `[i32; 3]`). A user type is always printed with its crate path (`my_crate::m::u8`), so it
//! cannot produce one of these strings, and the size check guards against a compiler whose
//! spelling would differ. Nested types (the elements of a `Vec`, the pointee of a `&`) are
//! then known exactly from the name. Everything unknown is `Value::Opaque`, never read.
//! [`scalar`], [`scalar_type`] and [`made_from_scalar`] make the same decision for the values a
//! replacement computes with (`crate::expr`).
//!
//! [`val`] captures into a [`Val`], not a [`Value`]: the hooks call it for every variable in
//! scope at every recorded event, and a `Value` costs an allocation per integer (its type
//! name as a `String`). A `Val` holds the type names as `&'static str`, a sequence of
//! integers as one buffer, and floats as their bits; the recorder compares it with what it
//! wrote last for the same site and writes its JSON (that of the equal `Value`) directly.

use crate::expr::scalar::{Machine, Scalar, Ty};
use crate::protocol::{MAX_SEQ_LEN, MAX_STR_LEN, Value};
use std::any::{Any, type_name};
use std::mem::{size_of, size_of_val};

/// Runs `$mac!(types…)` with every primitive (a [`Prim`]), then any extra types given.
macro_rules! with_prims {
    ($mac:ident $(, $extra:ty)*) => {
        $mac!(
            i8,
            i16,
            i32,
            i64,
            i128,
            isize,
            u8,
            u16,
            u32,
            u64,
            u128,
            usize,
            f32,
            f64,
            bool,
            char,
            ()
            $(, $extra)*
        )
    };
}

/// `name` (up to 7 bytes) and its length in one word: the primitives' names compare as
/// integers, not as strings one by one (`PrimTy::of`, at every captured value).
const fn pack(name: &[u8]) -> Option<u64> {
    if name.len() > 7 {
        return None;
    }
    let mut key = (name.len() as u64) << 56;
    let mut i = 0;
    while i < name.len() {
        key |= (name[i] as u64) << (8 * i);
        i += 1;
    }
    Some(key)
}

/// The key of a primitive's name (`pack` of a name that fits).
const fn key(name: &str) -> u64 {
    match pack(name.as_bytes()) {
        Some(key) => key,
        None => panic!("a primitive's name has at most 7 bytes"),
    }
}

/// Declares [`PrimTy`] over `(variant, type, name as type_name prints it)`.
macro_rules! prim_types {
    ($(($variant:ident, $t:ty, $name:literal)),* $(,)?) => {
        /// A primitive type (a [`Prim`]), known by its name.
        #[derive(Clone, Copy, PartialEq, Eq, Debug)]
        enum PrimTy {
            $($variant),*
        }

        impl PrimTy {
            /// The primitive whose `type_name` is `name`.
            #[inline]
            fn of(name: &str) -> Option<PrimTy> {
                let packed = pack(name.as_bytes())?;
                $(if packed == const { key($name) } {
                    return Some(PrimTy::$variant);
                })*
                None
            }

            /// Its `type_name`.
            fn name(self) -> &'static str {
                match self {
                    $(PrimTy::$variant => type_name::<$t>()),*
                }
            }

            fn size(self) -> usize {
                match self {
                    $(PrimTy::$variant => size_of::<$t>()),*
                }
            }

            /// The value at `p`.
            ///
            /// # Safety
            /// `p` points at a live value of this type.
            unsafe fn read(self, p: *const u8) -> Val {
                match self {
                    // SAFETY: the value at `p` is of this type.
                    $(PrimTy::$variant => unsafe { *p.cast::<$t>() }.val()),*
                }
            }

            /// The start and length of the `Vec` of this type at `p`.
            ///
            /// # Safety
            /// `p` points at a live `Vec` of this type.
            unsafe fn vec_parts(self, p: *const u8) -> (*const u8, usize) {
                match self {
                    $(PrimTy::$variant => {
                        // SAFETY: the value at `p` is a `Vec<$t>`.
                        let v = unsafe { &*p.cast::<Vec<$t>>() };
                        (v.as_ptr().cast(), v.len())
                    })*
                }
            }

            /// The start and length of the slice of this type the fat reference at `place`
            /// points to.
            ///
            /// # Safety
            /// `place` points at a live `&[T]` (or `&mut [T]`) of this type.
            unsafe fn slice_parts(self, place: *const u8) -> (*const u8, usize) {
                match self {
                    $(PrimTy::$variant => {
                        // SAFETY: the value at `place` is a `&[$t]`.
                        let s = unsafe { *place.cast::<&[$t]>() };
                        (s.as_ptr().cast(), s.len())
                    })*
                }
            }
        }

        #[cfg(test)]
        #[test]
        fn primitives_are_known_by_their_type_names() {
            $(assert_eq!(PrimTy::of(type_name::<$t>()), Some(PrimTy::$variant));)*
            $(assert_eq!(PrimTy::$variant.name(), type_name::<$t>());)*
        }
    };
}

prim_types!(
    (I8, i8, "i8"),
    (I16, i16, "i16"),
    (I32, i32, "i32"),
    (I64, i64, "i64"),
    (I128, i128, "i128"),
    (Isize, isize, "isize"),
    (U8, u8, "u8"),
    (U16, u16, "u16"),
    (U32, u32, "u32"),
    (U64, u64, "u64"),
    (U128, u128, "u128"),
    (Usize, usize, "usize"),
    (F32, f32, "f32"),
    (F64, f64, "f64"),
    (Bool, bool, "bool"),
    (Char, char, "char"),
    (Unit, (), "()"),
);

impl PrimTy {
    /// Whether a sequence of this type is recorded as [`Val::Ints`]: the integers but `u128`.
    fn is_small_int(self) -> bool {
        use PrimTy::*;
        matches!(
            self,
            I8 | I16 | I32 | I64 | I128 | Isize | U8 | U16 | U32 | U64 | Usize
        )
    }
}

/// A value as the hooks capture it: a [`Value`] without its allocations (see the module
/// doc). Two `Val`s are equal exactly when the `Value`s they stand for are written alike
/// (floats compare by their bits: `-0.0` is not `0.0`, a NaN equals itself).
#[doc(hidden)]
#[derive(Clone, Debug, PartialEq)]
pub enum Val {
    /// [`Value::Int`].
    Int { ty: &'static str, v: i128 },
    /// [`Value::Float`] of an `f32`, by its bits.
    F32(u32),
    /// [`Value::Float`] of an `f64`, by its bits.
    F64(u64),
    /// [`Value::Bool`].
    Bool(bool),
    /// [`Value::Char`].
    Char(char),
    /// [`Value::Str`].
    Str { v: String, truncated: bool },
    /// A [`Value::Seq`] of [`Value::Int`]s of type `ty` (not `u128`, whose values may not fit
    /// an `i128`), as the bytes of the elements recorded ([`Val::ints`] reads them): a copy
    /// and a comparison of memory, whatever the width.
    Ints {
        ty: &'static str,
        bytes: Vec<u8>,
        len: usize,
    },
    /// [`Value::Seq`] of any other elements.
    Seq { items: Vec<Val>, len: usize },
    /// [`Value::Unit`].
    Unit,
    /// [`Value::Opt`].
    Opt {
        ty: &'static str,
        v: Option<Box<Val>>,
    },
    /// [`Value::Opaque`].
    Opaque { ty: &'static str },
}

impl Val {
    /// The [`Value`] this stands for.
    pub fn to_value(&self) -> Value {
        match self {
            Val::Int { ty, v } => Value::Int {
                ty: ty.to_string(),
                v: *v,
            },
            Val::F32(bits) => Value::Float {
                ty: "f32".to_string(),
                v: f32::from_bits(*bits).to_string(),
            },
            Val::F64(bits) => Value::Float {
                ty: "f64".to_string(),
                v: f64::from_bits(*bits).to_string(),
            },
            Val::Bool(b) => Value::Bool(*b),
            Val::Char(c) => Value::Char(*c),
            Val::Str { v, truncated } => Value::Str {
                v: v.clone(),
                truncated: *truncated,
            },
            Val::Ints { ty, bytes, len } => Value::Seq {
                items: Val::ints(ty, bytes)
                    .map(|v| Value::Int {
                        ty: ty.to_string(),
                        v,
                    })
                    .collect(),
                len: *len,
            },
            Val::Seq { items, len } => Value::Seq {
                items: items.iter().map(Val::to_value).collect(),
                len: *len,
            },
            Val::Unit => Value::Unit,
            Val::Opt { ty, v } => Value::Opt {
                ty: ty.to_string(),
                v: v.as_ref().map(|v| Box::new(v.to_value())),
            },
            Val::Opaque { ty } => Value::Opaque { ty: ty.to_string() },
        }
    }
}

impl Val {
    /// The integers of a [`Val::Ints`] of type `ty` held in `bytes`.
    pub(crate) fn ints<'b>(ty: &str, bytes: &'b [u8]) -> impl Iterator<Item = i128> + 'b {
        macro_rules! readers {
            ($($t:ty),*) => {
                $(if ty == type_name::<$t>() {
                    let read: fn(&[u8]) -> i128 = |b| {
                        <$t>::from_ne_bytes(b.try_into().unwrap_or_default()) as i128
                    };
                    (size_of::<$t>(), read)
                } else)* {
                    let none: fn(&[u8]) -> i128 = |_| 0;
                    (1, none)
                }
            };
        }
        let (width, read) = readers!(i32, usize, i64, u8, u32, u64, i8, i16, u16, isize, i128);
        bytes.chunks_exact(width).map(read)
    }
}

/// The captured value of `x`: decoded when its type is a primitive, a string, a sequence of
/// primitives or strings, or a reference to one of these; `Val::Opaque` otherwise.
#[inline]
pub fn val<T: ?Sized>(x: &T) -> Val {
    // SAFETY: the place holds `x`, a live `&T` of `size_of::<&T>()` bytes to a value of the
    // type `type_name::<T>()` that takes `size_of_val(x)` bytes.
    unsafe {
        capture(
            type_name::<T>(),
            (&x as *const &T).cast::<u8>(),
            size_of::<&T>(),
            size_of_val(x),
        )
    }
}

/// [`val`] once its type is known by name: not generic, so compiled with the runtime
/// (optimized) and not in every instrumented function (unoptimized under `cargo test`).
///
/// # Safety
/// `place` points at a live reference of `ref_size` bytes to a value of the type named
/// `name`, which takes `size` bytes.
#[inline(never)]
pub(crate) unsafe fn capture(
    name: &'static str,
    place: *const u8,
    ref_size: usize,
    size: usize,
) -> Val {
    let decoded = if ref_size == size_of::<&u8>() {
        // A thin reference: the type is sized, and the reference points at its value.
        if size_of_named(name) == Some(size) {
            // SAFETY: the reference at `place` is a thin pointer to a live value of the type
            // `name`, a type `decode` knows, and the size agrees (see the module doc).
            unsafe { decode(name, *place.cast::<*const u8>()) }
        } else {
            None
        }
    } else if unsized_ref_size(name) == Some(ref_size) {
        // A fat reference to a `str` or `[E]`.
        // SAFETY: as above, for the reference type `&{name}`.
        unsafe { decode_unsized_pointee(name, place) }
    } else {
        None
    };
    decoded.unwrap_or(Val::Opaque { ty: name })
}

/// A value of type `T` made from `v`, for a plan's override: integers (when `v` fits),
/// floats, `bool`, `char`, `()`, `String`, and a `Vec` of any of these (from a sequence
/// recorded whole). Anything else is an error message.
///
/// Generic only in name: the work is [`made_from_value`]'s, compiled once with the runtime
/// instead of once per type in every instrumented crate.
pub fn from_value<T>(v: &Value) -> Result<T, String> {
    let made = made_from_value(type_name::<T>(), size_of::<T>(), v)?;
    // SAFETY: `made_from_value` makes a value of the type named `type_name::<T>()` with
    // `size_of::<T>()` bytes: `T`.
    Ok(unsafe { unbox::<T>(made) })
}

/// The value that `T` in [`from_value`] receives, boxed, for the type named `name` of `size`
/// bytes.
#[inline(never)]
pub(crate) fn made_from_value(
    name: &'static str,
    size: usize,
    v: &Value,
) -> Result<Box<dyn Any>, String> {
    macro_rules! prim_arms {
        ($($t:ty),*) => {$(
            if name == type_name::<$t>() && size == size_of::<$t>() {
                return Ok(Box::new(<$t as Prim>::from_value(v)?));
            }
        )*};
    }
    with_prims!(prim_arms);
    if name == type_name::<String>() && size == size_of::<String>() {
        return match v {
            Value::Str {
                v,
                truncated: false,
            } => Ok(Box::new(v.clone())),
            other => Err(mismatch(other, name)),
        };
    }
    if let Some(elem) = option_element(name) {
        let inner = match v {
            Value::Opt { v, .. } => v.as_deref(),
            other => return Err(mismatch(other, name)),
        };
        macro_rules! option_arms {
            ($($t:ty),*) => {$(
                if elem == type_name::<$t>() && size == size_of::<Option<$t>>() {
                    let out: Option<$t> = inner.map(from_value::<$t>).transpose()?;
                    return Ok(Box::new(out));
                }
            )*};
        }
        with_prims!(option_arms, String);
    }
    if let Some(elem) = vec_element(name) {
        macro_rules! vec_arms {
            ($($t:ty),*) => {$(
                if elem == type_name::<$t>() && size == size_of::<Vec<$t>>() {
                    let out = whole(v, name)?
                        .iter()
                        .map(<$t as Prim>::from_value)
                        .collect::<Result<Vec<$t>, String>>()?;
                    return Ok(Box::new(out));
                }
            )*};
        }
        with_prims!(vec_arms);
        if elem == type_name::<String>() && size == size_of::<Vec<String>>() {
            let out = whole(v, name)?
                .iter()
                .map(from_value::<String>)
                .collect::<Result<Vec<String>, String>>()?;
            return Ok(Box::new(out));
        }
    }
    Err(format!("cannot override a value of type `{name}`"))
}

/// Moves a value made by one of the `made_*` functions out of its box.
///
/// # Safety
/// `made` holds a value of type `T`.
pub(crate) unsafe fn unbox<T>(made: Box<dyn Any>) -> T {
    // SAFETY: the box was allocated for a value of `T`'s type (the caller's guarantee), so
    // it is a `Box<T>` under another name.
    *unsafe { Box::from_raw(Box::into_raw(made).cast::<T>()) }
}

/// The items of a sequence recorded whole (a sequence cut at [`crate::protocol::MAX_SEQ_LEN`]
/// elements cannot be made again).
fn whole<'v>(v: &'v Value, name: &str) -> Result<&'v [Value], String> {
    match v {
        Value::Seq { items, len } if items.len() == *len => Ok(items),
        Value::Seq { len, .. } => Err(format!(
            "a sequence of {len} elements was recorded cut short: it cannot be made again"
        )),
        other => Err(mismatch(other, name)),
    }
}

/// The type of a site whose hook has type `T`, when it is a primitive a replacement can
/// compute (an integer, a float, `bool`, `char`); otherwise `Err` with the type's name.
pub(crate) fn scalar_type<T>() -> Result<Ty, &'static str> {
    scalar_type_named(type_name::<T>(), size_of::<T>())
}

/// [`scalar_type`] of the type named `name`, of `size` bytes.
#[inline(never)]
pub(crate) fn scalar_type_named(name: &'static str, size: usize) -> Result<Ty, &'static str> {
    macro_rules! prim_arms {
        ($($t:ty),*) => {$(
            if name == type_name::<$t>() && size == size_of::<$t>() {
                return <$t as Prim>::SCALAR.ok_or(name);
            }
        )*};
    }
    with_prims!(prim_arms);
    Err(name)
}

/// `x` as a [`Scalar`], when `T` is a primitive a replacement can compute; otherwise `Err`
/// with the type's name.
pub(crate) fn scalar<T>(x: &T) -> Result<Scalar, &'static str> {
    // SAFETY: `x` is a live `T`, of the type named so and of that size.
    unsafe { scalar_at(type_name::<T>(), size_of::<T>(), (x as *const T).cast()) }
}

/// [`scalar`] of the value at `place`.
///
/// # Safety
/// `place` points at a live value of the type named `name`, of `size` bytes.
#[inline(never)]
unsafe fn scalar_at(
    name: &'static str,
    size: usize,
    place: *const u8,
) -> Result<Scalar, &'static str> {
    macro_rules! prim_arms {
        ($($t:ty),*) => {$(
            if name == type_name::<$t>() && size == size_of::<$t>() {
                // SAFETY: the value is a `$t` (same name, same size), a `Copy` primitive.
                let x = unsafe { place.cast::<$t>().read_unaligned() };
                return x.scalar().ok_or(name);
            }
        )*};
    }
    with_prims!(prim_arms);
    Err(name)
}

/// A value made from `s`, boxed, for the type named `name` of `size` bytes, when `s` has
/// exactly that type (a replacement's result, type-checked against [`scalar_type`]).
#[inline(never)]
pub(crate) fn made_from_scalar(
    name: &'static str,
    size: usize,
    s: Scalar,
) -> Result<Box<dyn Any>, String> {
    macro_rules! prim_arms {
        ($($t:ty),*) => {$(
            if name == type_name::<$t>() && size == size_of::<$t>() {
                let x = <$t as Prim>::from_scalar(s)
                    .ok_or_else(|| format!("a `{}` is not a `{name}`", s.ty()))?;
                return Ok(Box::new(x));
            }
        )*};
    }
    with_prims!(prim_arms);
    Err(format!(
        "a replacement cannot produce a value of type `{name}`"
    ))
}

/// A primitive type: how it is recorded and how an override produces it.
trait Prim: Copy {
    /// The type as a [`Scalar`] type (`None` for `()`).
    const SCALAR: Option<Ty>;
    fn val(self) -> Val;
    fn from_value(v: &Value) -> Result<Self, String>;
    fn scalar(self) -> Option<Scalar>;
    fn from_scalar(s: Scalar) -> Option<Self>;
}

fn mismatch(v: &Value, ty: &str) -> String {
    format!("the value {v:?} does not fit the type `{ty}`")
}

macro_rules! int_prims {
    ($($t:ty),*) => {$(
        impl Prim for $t {
            const SCALAR: Option<Ty> = Some(Ty::Int(<$t as Machine>::TY));
            fn scalar(self) -> Option<Scalar> {
                Some(Scalar::Int(<$t as Machine>::TY, Machine::to_bits(self)))
            }
            fn from_scalar(s: Scalar) -> Option<Self> {
                match s {
                    Scalar::Int(t, bits) if t == <$t as Machine>::TY => {
                        Some(<$t as Machine>::from_bits(bits))
                    }
                    _ => None,
                }
            }
            fn val(self) -> Val {
                let ty = type_name::<$t>();
                match i128::try_from(self) {
                    Ok(v) => Val::Int { ty, v },
                    // Only a `u128` above `i128::MAX`: `Value::Int` cannot hold it.
                    Err(_) => Val::Opaque { ty },
                }
            }
            fn from_value(v: &Value) -> Result<Self, String> {
                match v {
                    Value::Int { v: i, .. } => <$t>::try_from(*i).map_err(|_| mismatch(v, type_name::<$t>())),
                    other => Err(mismatch(other, type_name::<$t>())),
                }
            }
        }
    )*};
}
int_prims!(
    i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize
);

macro_rules! float_prims {
    ($($t:ty: $exact:expr, $scalar:ident, $val:ident),*) => {$(
        impl Prim for $t {
            const SCALAR: Option<Ty> = Some(Ty::$scalar);
            fn scalar(self) -> Option<Scalar> {
                Some(Scalar::$scalar(self))
            }
            fn from_scalar(s: Scalar) -> Option<Self> {
                match s {
                    Scalar::$scalar(f) => Some(f),
                    _ => None,
                }
            }
            fn val(self) -> Val {
                // Written as its `Display`, the shortest text that parses back to it.
                Val::$val(self.to_bits())
            }
            fn from_value(v: &Value) -> Result<Self, String> {
                match v {
                    Value::Float { v: text, .. } => text.parse::<$t>().map_err(|_| mismatch(v, type_name::<$t>())),
                    // An integer the float represents exactly (plans may spell `2.0` as `2`).
                    Value::Int { v: i, .. } if i.unsigned_abs() <= $exact => Ok(*i as $t),
                    other => Err(mismatch(other, type_name::<$t>())),
                }
            }
        }
    )*};
}
float_prims!(f32: 1 << 24, F32, F32, f64: 1 << 53, F64, F64);

impl Prim for bool {
    const SCALAR: Option<Ty> = Some(Ty::Bool);
    fn scalar(self) -> Option<Scalar> {
        Some(Scalar::Bool(self))
    }
    fn from_scalar(s: Scalar) -> Option<Self> {
        match s {
            Scalar::Bool(x) => Some(x),
            _ => None,
        }
    }
    fn val(self) -> Val {
        Val::Bool(self)
    }
    fn from_value(v: &Value) -> Result<Self, String> {
        match v {
            Value::Bool(b) => Ok(*b),
            other => Err(mismatch(other, "bool")),
        }
    }
}

impl Prim for char {
    const SCALAR: Option<Ty> = Some(Ty::Char);
    fn scalar(self) -> Option<Scalar> {
        Some(Scalar::Char(self))
    }
    fn from_scalar(s: Scalar) -> Option<Self> {
        match s {
            Scalar::Char(x) => Some(x),
            _ => None,
        }
    }
    fn val(self) -> Val {
        Val::Char(self)
    }
    fn from_value(v: &Value) -> Result<Self, String> {
        match v {
            Value::Char(c) => Ok(*c),
            other => Err(mismatch(other, "char")),
        }
    }
}

impl Prim for () {
    const SCALAR: Option<Ty> = None;
    fn scalar(self) -> Option<Scalar> {
        None
    }
    fn from_scalar(_: Scalar) -> Option<Self> {
        None
    }
    fn val(self) -> Val {
        Val::Unit
    }
    fn from_value(v: &Value) -> Result<Self, String> {
        match v {
            Value::Unit => Ok(()),
            other => Err(mismatch(other, "()")),
        }
    }
}

fn str_value(s: &str) -> Val {
    // Most strings are short: at most `MAX_STR_LEN` bytes are at most as many characters.
    if s.len() <= MAX_STR_LEN {
        return Val::Str {
            v: s.to_string(),
            truncated: false,
        };
    }
    let mut chars = s.chars();
    let v: String = chars.by_ref().take(MAX_STR_LEN).collect();
    Val::Str {
        v,
        truncated: chars.next().is_some(),
    }
}

/// Whether `name` is a type a sequence element may have: a primitive, `String` or `&str`.
fn is_element(name: &str) -> bool {
    PrimTy::of(name).is_some()
        || name == type_name::<String>()
        || name == type_name::<&'static str>()
}

/// `E` of `core::option::Option<E>`.
fn option_element(name: &str) -> Option<&str> {
    name.strip_prefix("core::option::Option<")?
        .strip_suffix('>')
        .filter(|e| is_element(e))
}

/// `E` of `alloc::vec::Vec<E>`.
fn vec_element(name: &str) -> Option<&str> {
    name.strip_prefix("alloc::vec::Vec<")?
        .strip_suffix('>')
        .filter(|e| is_element(e))
}

/// `E` of `[E]`.
fn slice_element(name: &str) -> Option<&str> {
    name.strip_prefix('[')?
        .strip_suffix(']')
        .filter(|e| is_element(e))
}

/// `E` and `N` of `[E; N]`.
fn array_parts(name: &str) -> Option<(&str, usize)> {
    let (elem, n) = name
        .strip_prefix('[')?
        .strip_suffix(']')?
        .rsplit_once("; ")?;
    Some((elem, n.parse().ok()?)).filter(|(e, _)| is_element(e))
}

/// `U` of `&U` or `&mut U`.
fn pointee(name: &str) -> Option<&str> {
    name.strip_prefix("&mut ")
        .or_else(|| name.strip_prefix('&'))
}

/// Size of the sized type `name` when [`decode`] can read it.
fn size_of_named(name: &str) -> Option<usize> {
    if let Some(prim) = PrimTy::of(name) {
        return Some(prim.size());
    }
    if name == type_name::<String>() {
        return Some(size_of::<String>());
    }
    if let Some(elem) = vec_element(name) {
        if PrimTy::of(elem).is_some() {
            // Every `Vec` is the same size, whatever its element.
            return Some(size_of::<Vec<u8>>());
        }
        macro_rules! vec_sizes {
            ($($t:ty),*) => {$( if elem == type_name::<$t>() { return Some(size_of::<Vec<$t>>()); } )*};
        }
        vec_sizes!(String, &'static str);
    }
    if let Some(elem) = option_element(name) {
        macro_rules! option_sizes {
            ($($t:ty),*) => {$( if elem == type_name::<$t>() { return Some(size_of::<Option<$t>>()); } )*};
        }
        with_prims!(option_sizes, String, &'static str);
        return None;
    }
    if let Some((elem, n)) = array_parts(name) {
        return size_of_named(elem)?.checked_mul(n);
    }
    let pointee = pointee(name)?;
    unsized_ref_size(pointee).or_else(|| size_of_named(pointee).map(|_| size_of::<&u8>()))
}

/// Size of `&U` for an unsized `U` that [`decode_unsized_pointee`] can read.
fn unsized_ref_size(pointee: &str) -> Option<usize> {
    if pointee == "str" {
        Some(size_of::<&str>())
    } else {
        slice_element(pointee).map(|_| size_of::<&[u8]>())
    }
}

/// Decodes the value at `p`.
///
/// # Safety
/// `p` points at a live value whose type's `type_name` is `name`, and `size_of_named(name)`
/// is `Some` (checked by the caller against the real size).
unsafe fn decode(name: &str, p: *const u8) -> Option<Val> {
    if let Some(prim) = PrimTy::of(name) {
        // SAFETY: the value at `p` is of the primitive type `name`.
        return Some(unsafe { prim.read(p) });
    }
    if name == type_name::<String>() {
        // SAFETY: the value at `p` is a `String`.
        return Some(str_value(unsafe { &*p.cast::<String>() }));
    }
    if let Some(elem) = vec_element(name) {
        if let Some(prim) = PrimTy::of(elem) {
            // SAFETY: the value at `p` is a `Vec` of the primitive `elem`.
            let (start, len) = unsafe { prim.vec_parts(p) };
            // SAFETY: the buffer holds `len` values of type `elem`.
            return unsafe { sequence(elem, start, len) };
        }
        macro_rules! vec_arms {
            ($($t:ty),*) => {$(
                if elem == type_name::<$t>() {
                    // SAFETY: the value at `p` is a `Vec<$t>`.
                    let v = unsafe { &*p.cast::<Vec<$t>>() };
                    // SAFETY: `v`'s buffer holds `v.len()` values of type `elem`.
                    return unsafe { sequence(elem, v.as_ptr().cast(), v.len()) };
                }
            )*};
        }
        vec_arms!(String, &'static str);
        return None;
    }
    if let Some(elem) = option_element(name) {
        macro_rules! option_arms {
            ($($t:ty),*) => {$(
                if elem == type_name::<$t>() {
                    // SAFETY: the value at `p` is an `Option<$t>`.
                    let o = unsafe { &*p.cast::<Option<$t>>() };
                    return Some(Val::Opt {
                        ty: type_name::<$t>(),
                        v: o.as_ref().map(|x| Box::new(val(x))),
                    });
                }
            )*};
        }
        with_prims!(option_arms, String, &'static str);
        return None;
    }
    if let Some((elem, n)) = array_parts(name) {
        // SAFETY: an array is `n` contiguous values of type `elem`.
        return unsafe { sequence(elem, p, n) };
    }
    let pointee = pointee(name)?;
    if unsized_ref_size(pointee).is_some() {
        // SAFETY: the value at `p` is a `&{pointee}`.
        return unsafe { decode_unsized_pointee(pointee, p) };
    }
    size_of_named(pointee)?;
    // SAFETY: the value at `p` is a thin reference (same layout as `*const u8`) to a live
    // `pointee`; `&mut U` is read as a pointer only, never as a second `&mut`.
    unsafe { decode(pointee, *p.cast::<*const u8>()) }
}

/// Decodes the `str` or `[E]` that the fat reference at `place` points to.
///
/// # Safety
/// `place` points at a live `&{pointee}` (or `&mut`, same layout), with `unsized_ref_size`
/// of `pointee` being `Some`.
unsafe fn decode_unsized_pointee(pointee: &str, place: *const u8) -> Option<Val> {
    if pointee == "str" {
        // SAFETY: the value at `place` is a `&str`.
        return Some(str_value(unsafe { *place.cast::<&str>() }));
    }
    let elem = slice_element(pointee)?;
    if let Some(prim) = PrimTy::of(elem) {
        // SAFETY: the value at `place` is a `&[elem]` of the primitive `elem`.
        let (start, len) = unsafe { prim.slice_parts(place) };
        // SAFETY: the slice holds `len` values of type `elem`.
        return unsafe { sequence(elem, start, len) };
    }
    macro_rules! slice_arms {
        ($($t:ty),*) => {$(
            if elem == type_name::<$t>() {
                // SAFETY: the value at `place` is a `&[$t]`.
                let s = unsafe { *place.cast::<&[$t]>() };
                // SAFETY: the slice holds `s.len()` values of type `elem`.
                return unsafe { sequence(elem, s.as_ptr().cast(), s.len()) };
            }
        )*};
    }
    slice_arms!(String, &'static str);
    None
}

/// Decodes the first [`MAX_SEQ_LEN`] of `len` contiguous values of type `elem` at `p`.
///
/// # Safety
/// `p` points at `len` live values whose type is named `elem`, an element type.
unsafe fn sequence(elem: &str, p: *const u8, len: usize) -> Option<Val> {
    let n = len.min(MAX_SEQ_LEN);
    // Integers (all but `u128`) as their bytes, the element type decided once.
    if let Some(prim) = PrimTy::of(elem).filter(|p| p.is_small_int()) {
        // SAFETY: `p` points at `len >= n` live values of the integer type `elem`: every
        // byte of them is initialized.
        let bytes = unsafe { std::slice::from_raw_parts(p, n * prim.size()) };
        return Some(Val::Ints {
            ty: prim.name(),
            bytes: bytes.to_vec(),
            len,
        });
    }
    let size = size_of_named(elem)?;
    let items = (0..n)
        // SAFETY: element `i < len` lies `i * size` bytes into the sequence.
        .map(|i| unsafe { decode(elem, p.add(i * size)) })
        .collect::<Option<Vec<_>>>()?;
    Some(Val::Seq { items, len })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `T` made from `s` as the component hook makes it.
    fn from_scalar<T>(s: Scalar) -> Result<T, String> {
        let made = made_from_scalar(type_name::<T>(), size_of::<T>(), s)?;
        // SAFETY: `made_from_scalar` makes a value of the type named so.
        Ok(unsafe { unbox::<T>(made) })
    }

    /// What [`val`] captures, as the trace holds it.
    fn value_of<T: ?Sized>(x: &T) -> Value {
        val(x).to_value()
    }

    fn int(ty: &str, v: i128) -> Value {
        Value::Int {
            ty: ty.to_string(),
            v,
        }
    }

    fn opaque(ty: &str) -> Value {
        Value::Opaque { ty: ty.to_string() }
    }

    fn s(v: &str) -> Value {
        Value::Str {
            v: v.to_string(),
            truncated: false,
        }
    }

    fn seq(items: Vec<Value>) -> Value {
        let len = items.len();
        Value::Seq { items, len }
    }

    #[test]
    fn integers() {
        assert_eq!(value_of(&-5i8), int("i8", -5));
        assert_eq!(value_of(&-300i16), int("i16", -300));
        assert_eq!(value_of(&i32::MIN), int("i32", i32::MIN as i128));
        assert_eq!(value_of(&i64::MAX), int("i64", i64::MAX as i128));
        assert_eq!(value_of(&i128::MIN), int("i128", i128::MIN));
        assert_eq!(value_of(&-7isize), int("isize", -7));
        assert_eq!(value_of(&255u8), int("u8", 255));
        assert_eq!(value_of(&65535u16), int("u16", 65535));
        assert_eq!(value_of(&u32::MAX), int("u32", u32::MAX as i128));
        assert_eq!(value_of(&u64::MAX), int("u64", u64::MAX as i128));
        assert_eq!(value_of(&(i128::MAX as u128)), int("u128", i128::MAX));
        assert_eq!(value_of(&u128::MAX), opaque("u128"));
        assert_eq!(value_of(&usize::MAX), int("usize", usize::MAX as i128));
        // An unsuffixed literal is whatever inference made it, here the default `i32`.
        let mut acc = 0;
        acc += 2;
        assert_eq!(value_of(&acc), int("i32", 2));
    }

    #[test]
    fn floats_bools_chars_unit() {
        assert_eq!(
            value_of(&0.1f64),
            Value::Float {
                ty: "f64".into(),
                v: "0.1".into()
            }
        );
        assert_eq!(
            value_of(&1.5f32),
            Value::Float {
                ty: "f32".into(),
                v: "1.5".into()
            }
        );
        assert_eq!(
            value_of(&f64::NAN),
            Value::Float {
                ty: "f64".into(),
                v: "NaN".into()
            }
        );
        assert_eq!(
            value_of(&f32::NEG_INFINITY),
            Value::Float {
                ty: "f32".into(),
                v: "-inf".into()
            }
        );
        assert_eq!(value_of(&true), Value::Bool(true));
        assert_eq!(value_of(&'é'), Value::Char('é'));
        assert_eq!(value_of(&()), Value::Unit);
    }

    #[test]
    fn strings() {
        assert_eq!(value_of("abc"), s("abc"));
        assert_eq!(value_of(&"abc"), s("abc"));
        assert_eq!(value_of(&String::from("xyz")), s("xyz"));
        let mut owned = String::from("mut");
        assert_eq!(value_of(&owned.as_mut_str()), s("mut"));
        assert_eq!(value_of(&&&"deep"), s("deep"));
        let long = "é".repeat(MAX_STR_LEN + 3);
        assert_eq!(
            value_of(&long),
            Value::Str {
                v: "é".repeat(MAX_STR_LEN),
                truncated: true
            }
        );
        let exact = "a".repeat(MAX_STR_LEN);
        assert_eq!(
            value_of(&exact),
            Value::Str {
                v: exact.clone(),
                truncated: false
            }
        );
    }

    #[test]
    fn sequences() {
        let v = vec![1i32, -2, 3];
        let expected = seq(vec![int("i32", 1), int("i32", -2), int("i32", 3)]);
        assert_eq!(value_of(&v), expected);
        assert_eq!(value_of(&&v), expected);
        assert_eq!(value_of(&v[..]), expected);
        assert_eq!(value_of(&&v[..]), expected);
        assert_eq!(value_of(&[1i32, -2, 3]), expected);
        assert_eq!(value_of(&&[1i32, -2, 3]), expected);
        let mut m = [1i32, -2, 3];
        assert_eq!(value_of(&&mut m[..]), expected);
        assert_eq!(value_of(&&mut m), expected);
        assert_eq!(value_of(&Vec::<u64>::new()), seq(vec![]));
        assert_eq!(value_of(&[(); 2]), seq(vec![Value::Unit, Value::Unit]));
        assert_eq!(
            value_of(&vec![true, false]),
            seq(vec![Value::Bool(true), Value::Bool(false)])
        );
        assert_eq!(value_of(&vec!["a", "b"]), seq(vec![s("a"), s("b")]));
        assert_eq!(value_of(&[String::from("c")]), seq(vec![s("c")]));
        assert_eq!(
            value_of(&vec![0.5f64]),
            seq(vec![Value::Float {
                ty: "f64".into(),
                v: "0.5".into()
            }])
        );
        let big: Vec<u8> = (0..200).collect();
        match value_of(&big) {
            Value::Seq { items, len } => {
                assert_eq!(len, 200);
                assert_eq!(items.len(), MAX_SEQ_LEN);
                assert_eq!(items[MAX_SEQ_LEN - 1], int("u8", MAX_SEQ_LEN as i128 - 1));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn references_to_primitives() {
        let mut x = 41u16;
        assert_eq!(value_of(&&x), int("u16", 41));
        assert_eq!(value_of(&&&x), int("u16", 41));
        assert_eq!(value_of(&&mut x), int("u16", 41));
        x += 1;
        assert_eq!(value_of(&&mut &x), int("u16", 42));
    }

    #[test]
    fn options_of_what_is_read() {
        let opt = |ty: &str, v: Option<Value>| Value::Opt {
            ty: ty.to_string(),
            v: v.map(Box::new),
        };
        assert_eq!(value_of(&Some(7u64)), opt("u64", Some(int("u64", 7))));
        assert_eq!(value_of(&None::<usize>), opt("usize", None));
        assert_eq!(value_of(&Some('x')), opt("char", Some(Value::Char('x'))));
        assert_eq!(
            value_of(&Some(String::from("ab"))),
            opt("alloc::string::String", Some(s("ab")))
        );
        assert_eq!(value_of(&Some("ab")), opt("&str", Some(s("ab"))));
        // Through a reference, and as a sequence's element it is not read.
        assert_eq!(value_of(&&Some(1i8)), opt("i8", Some(int("i8", 1))));
        assert_eq!(
            value_of(&vec![Some(1u8)]),
            opaque("alloc::vec::Vec<core::option::Option<u8>>")
        );
        assert_eq!(
            value_of(&Some(vec![1u8])),
            opaque("core::option::Option<alloc::vec::Vec<u8>>")
        );
        // And made back for an override.
        assert_eq!(
            from_value::<Option<u64>>(&value_of(&Some(9u64))),
            Ok(Some(9))
        );
        assert_eq!(from_value::<Option<u64>>(&opt("u64", None)), Ok(None));
        assert_eq!(
            from_value::<Option<String>>(&opt("alloc::string::String", Some(s("z")))),
            Ok(Some("z".to_string()))
        );
        assert!(from_value::<Option<u8>>(&opt("u8", Some(int("u8", 300)))).is_err());
        assert!(from_value::<Option<u8>>(&int("u8", 3)).is_err());
    }

    #[test]
    fn everything_else_is_opaque() {
        assert_eq!(value_of(&(1, 2)), opaque("(i32, i32)"));
        assert_eq!(value_of(&Box::new(1)), opaque("alloc::boxed::Box<i32>"));
        assert_eq!(
            value_of(&vec![vec![1u8]]),
            opaque("alloc::vec::Vec<alloc::vec::Vec<u8>>")
        );
        assert_eq!(value_of(&[[1u8; 2]; 2]), opaque("[[u8; 2]; 2]"));
        let d: &dyn std::fmt::Debug = &1;
        assert_eq!(value_of(&d), opaque("&dyn core::fmt::Debug"));
        assert_eq!(value_of(d), opaque("dyn core::fmt::Debug"));
    }

    /// User types named like primitives are printed with their path and never reinterpreted.
    mod lookalikes {
        #![allow(non_camel_case_types, dead_code)]
        pub struct u8;
        pub struct i32(pub [u8; 4]);
        pub struct str;
        pub struct String(pub std::string::String);
        pub struct Vec<T>(pub std::vec::Vec<T>);
    }

    #[test]
    fn lookalike_user_types_are_opaque() {
        let name = |v: Value| match v {
            Value::Opaque { ty } => ty,
            other => panic!("decoded a user type: {other:?}"),
        };
        assert!(name(value_of(&lookalikes::u8)).ends_with("::lookalikes::u8"));
        let fake = lookalikes::i32([
            lookalikes::u8,
            lookalikes::u8,
            lookalikes::u8,
            lookalikes::u8,
        ]);
        assert!(name(value_of(&fake)).ends_with("::lookalikes::i32"));
        assert!(name(value_of(&lookalikes::str)).ends_with("::lookalikes::str"));
        assert!(name(value_of(&&lookalikes::str)).ends_with("::lookalikes::str"));
        let fake = lookalikes::String("x".into());
        assert!(name(value_of(&fake)).ends_with("::lookalikes::String"));
        let fake = lookalikes::Vec(vec![1i32]);
        assert!(name(value_of(&fake)).ends_with("::lookalikes::Vec<i32>"));
        let fakes = vec![lookalikes::u8];
        assert!(name(value_of(&fakes)).ends_with("::lookalikes::u8>"));
        assert!(name(value_of(&[lookalikes::u8][..])).ends_with("::lookalikes::u8]"));
        assert!(from_value::<lookalikes::u8>(&int("u8", 1)).is_err());
        assert!(from_value::<lookalikes::str>(&s("x")).is_err());
    }

    #[test]
    fn overrides_of_integers_check_the_range() {
        assert_eq!(from_value::<i32>(&int("i64", -5)), Ok(-5));
        assert_eq!(from_value::<u8>(&int("i32", 255)), Ok(255));
        assert!(from_value::<u8>(&int("i32", 256)).is_err());
        assert!(from_value::<u32>(&int("i32", -1)).is_err());
        assert_eq!(from_value::<i128>(&int("i128", i128::MIN)), Ok(i128::MIN));
        assert_eq!(from_value::<usize>(&int("usize", 7)), Ok(7));
        assert_eq!(from_value::<isize>(&int("isize", -7)), Ok(-7));
        assert!(from_value::<i8>(&Value::Bool(true)).is_err());
        assert!(
            from_value::<i8>(&Value::Float {
                ty: "f64".into(),
                v: "1".into()
            })
            .is_err()
        );
    }

    #[test]
    fn overrides_of_vectors_take_a_whole_sequence() {
        assert_eq!(
            from_value::<Vec<i32>>(&seq(vec![int("i32", 11), int("i32", 4)])),
            Ok(vec![11, 4])
        );
        assert_eq!(
            from_value::<Vec<String>>(&seq(vec![s("a"), s("bc")])),
            Ok(vec!["a".to_string(), "bc".to_string()])
        );
        assert_eq!(from_value::<Vec<u8>>(&seq(vec![])), Ok(vec![]));
        // An element that does not fit, a sequence cut short, another kind of value.
        assert!(from_value::<Vec<u8>>(&seq(vec![int("i32", 256)])).is_err());
        let cut = Value::Seq {
            items: vec![int("i32", 1)],
            len: 100,
        };
        assert!(from_value::<Vec<i32>>(&cut).is_err());
        assert!(from_value::<Vec<i32>>(&int("i32", 1)).is_err());
        // A vector of what no override makes stays out of reach.
        assert!(from_value::<Vec<Vec<i32>>>(&seq(vec![])).is_err());
    }

    #[test]
    fn overrides_of_other_primitives() {
        assert_eq!(
            from_value::<f64>(&Value::Float {
                ty: "f64".into(),
                v: "0.1".into()
            }),
            Ok(0.1)
        );
        assert_eq!(
            from_value::<f32>(&Value::Float {
                ty: "f32".into(),
                v: "-inf".into()
            }),
            Ok(f32::NEG_INFINITY)
        );
        assert!(
            from_value::<f64>(&Value::Float {
                ty: "f64".into(),
                v: "NaN".into()
            })
            .unwrap()
            .is_nan()
        );
        assert_eq!(from_value::<f64>(&int("i32", 3)), Ok(3.0));
        assert!(from_value::<f32>(&int("i64", (1 << 24) + 1)).is_err());
        assert!(
            from_value::<f64>(&Value::Float {
                ty: "f64".into(),
                v: "x".into()
            })
            .is_err()
        );
        assert_eq!(from_value::<bool>(&Value::Bool(true)), Ok(true));
        assert!(from_value::<bool>(&int("i32", 1)).is_err());
        assert_eq!(from_value::<char>(&Value::Char('z')), Ok('z'));
        assert!(from_value::<char>(&s("z")).is_err());
        assert_eq!(from_value::<()>(&Value::Unit), Ok(()));
        assert_eq!(from_value::<String>(&s("new")), Ok(String::from("new")));
        assert!(
            from_value::<String>(&Value::Str {
                v: "cut".into(),
                truncated: true
            })
            .is_err()
        );
        assert!(from_value::<&str>(&s("x")).is_err());
        assert!(from_value::<Vec<&str>>(&seq(vec![])).is_err());
        assert!(from_value::<Option<i32>>(&int("i32", 1)).is_err());
    }

    #[test]
    fn scalars_of_primitives() {
        use crate::expr::scalar::IntTy;
        assert_eq!(scalar_type::<u8>(), Ok(Ty::Int(IntTy::U8)));
        assert_eq!(scalar_type::<usize>(), Ok(Ty::Int(IntTy::Usize)));
        assert_eq!(scalar_type::<f32>(), Ok(Ty::F32));
        assert_eq!(scalar_type::<bool>(), Ok(Ty::Bool));
        assert_eq!(scalar_type::<String>(), Err("alloc::string::String"));
        assert_eq!(scalar_type::<()>(), Err("()"));
        assert_eq!(scalar_type::<&i32>(), Err("&i32"));
        assert!(scalar_type::<lookalikes::u8>().is_err());
        assert_eq!(scalar(&-3i16), Ok(Scalar::Int(IntTy::I16, -3i16 as u128)));
        assert_eq!(scalar(&u128::MAX), Ok(Scalar::Int(IntTy::U128, u128::MAX)));
        assert_eq!(scalar(&'x'), Ok(Scalar::Char('x')));
        assert_eq!(scalar(&0.5f64), Ok(Scalar::F64(0.5)));
        assert_eq!(scalar(&"s"), Err("&str"));
        assert!(scalar(&lookalikes::u8).is_err());
        assert_eq!(
            from_scalar::<i16>(Scalar::Int(IntTy::I16, -3i16 as u128)),
            Ok(-3)
        );
        assert_eq!(
            from_scalar::<u128>(Scalar::Int(IntTy::U128, u128::MAX)),
            Ok(u128::MAX)
        );
        assert_eq!(from_scalar::<char>(Scalar::Char('é')), Ok('é'));
        // Exactly the type: no widening, no conversion.
        assert!(from_scalar::<i32>(Scalar::Int(IntTy::I16, 1)).is_err());
        assert!(from_scalar::<f64>(Scalar::F32(1.0)).is_err());
        assert!(from_scalar::<String>(Scalar::Bool(true)).is_err());
        assert!(from_scalar::<lookalikes::u8>(Scalar::Int(IntTy::U8, 1)).is_err());
    }

    #[test]
    fn values_round_trip_through_overrides() {
        let x = -123_456_789i64;
        assert_eq!(from_value::<i64>(&value_of(&x)), Ok(x));
        let f = std::f64::consts::PI;
        assert_eq!(from_value::<f64>(&value_of(&f)), Ok(f));
        let g = 1.0e-40f32;
        assert_eq!(from_value::<f32>(&value_of(&g)), Ok(g));
    }
}
