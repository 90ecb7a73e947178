//! The values a replacement expression computes with, and Rust's operators on them: every
//! integer operation runs on the real primitive of its type (so width, signedness and
//! `isize`/`usize` are the target's), with the checks of a debug build (overflow, division
//! by zero and oversized shifts panic), and `as` converts exactly as the language does.

use std::fmt;

/// Runs `$body` with `M` the primitive of the integer type `$ty`.
macro_rules! on_int {
    ($ty:expr, |$m:ident| $body:expr) => {{
        match $ty {
            IntTy::I8 => {
                type $m = i8;
                $body
            }
            IntTy::I16 => {
                type $m = i16;
                $body
            }
            IntTy::I32 => {
                type $m = i32;
                $body
            }
            IntTy::I64 => {
                type $m = i64;
                $body
            }
            IntTy::I128 => {
                type $m = i128;
                $body
            }
            IntTy::Isize => {
                type $m = isize;
                $body
            }
            IntTy::U8 => {
                type $m = u8;
                $body
            }
            IntTy::U16 => {
                type $m = u16;
                $body
            }
            IntTy::U32 => {
                type $m = u32;
                $body
            }
            IntTy::U64 => {
                type $m = u64;
                $body
            }
            IntTy::U128 => {
                type $m = u128;
                $body
            }
            IntTy::Usize => {
                type $m = usize;
                $body
            }
        }
    }};
}

/// An integer type.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum IntTy {
    I8,
    I16,
    I32,
    I64,
    I128,
    Isize,
    U8,
    U16,
    U32,
    U64,
    U128,
    Usize,
}

/// The type of a [`Scalar`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Ty {
    Int(IntTy),
    F32,
    F64,
    Bool,
    Char,
}

/// A value of a primitive type. An integer is kept as its bits widened to 128 the way `as
/// u128` widens it (sign-extended for signed types), so equal values have equal bits.
#[derive(Clone, Copy, PartialEq, Debug)]
pub(crate) enum Scalar {
    Int(IntTy, u128),
    F32(f32),
    F64(f64),
    Bool(bool),
    Char(char),
}

/// Why an operation panics, in the words of a debug build's own panic.
pub(crate) type Panic = &'static str;

impl IntTy {
    /// The type's Rust name (`i32`, `usize`, …).
    pub(crate) fn name(self) -> &'static str {
        match self {
            IntTy::I8 => "i8",
            IntTy::I16 => "i16",
            IntTy::I32 => "i32",
            IntTy::I64 => "i64",
            IntTy::I128 => "i128",
            IntTy::Isize => "isize",
            IntTy::U8 => "u8",
            IntTy::U16 => "u16",
            IntTy::U32 => "u32",
            IntTy::U64 => "u64",
            IntTy::U128 => "u128",
            IntTy::Usize => "usize",
        }
    }

    pub(crate) fn is_signed(self) -> bool {
        matches!(
            self,
            IntTy::I8 | IntTy::I16 | IntTy::I32 | IntTy::I64 | IntTy::I128 | IntTy::Isize
        )
    }

    /// The bits of `v` as a value of this type, if it is in range.
    pub(crate) fn bits_of(self, v: i128) -> Option<u128> {
        let bits = v as u128;
        // Widening from i128 sign-extends; the value fits when narrowing to the type and
        // widening back gives the same bits (and an unsigned type never holds a negative).
        (self.truncate(bits) == bits && (self.is_signed() || v >= 0)).then_some(bits)
    }

    /// The value of `bits` (of this type) as an `i128`, `None` for a `u128` above its range.
    pub(crate) fn value(self, bits: u128) -> Option<i128> {
        let v = bits as i128;
        (self.is_signed() || v >= 0).then_some(v)
    }

    /// `bits as Self`, widened back: the low bits of the type, extended per its sign.
    fn truncate(self, bits: u128) -> u128 {
        on_int!(self, |M| M::from_bits(bits).to_bits())
    }
}

impl Ty {
    /// The scalar type named `name` as Rust spells it.
    pub(crate) fn from_name(name: &str) -> Option<Ty> {
        Some(match name {
            "i8" => Ty::Int(IntTy::I8),
            "i16" => Ty::Int(IntTy::I16),
            "i32" => Ty::Int(IntTy::I32),
            "i64" => Ty::Int(IntTy::I64),
            "i128" => Ty::Int(IntTy::I128),
            "isize" => Ty::Int(IntTy::Isize),
            "u8" => Ty::Int(IntTy::U8),
            "u16" => Ty::Int(IntTy::U16),
            "u32" => Ty::Int(IntTy::U32),
            "u64" => Ty::Int(IntTy::U64),
            "u128" => Ty::Int(IntTy::U128),
            "usize" => Ty::Int(IntTy::Usize),
            "f32" => Ty::F32,
            "f64" => Ty::F64,
            "bool" => Ty::Bool,
            "char" => Ty::Char,
            _ => return None,
        })
    }
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Ty::Int(t) => t.name(),
            Ty::F32 => "f32",
            Ty::F64 => "f64",
            Ty::Bool => "bool",
            Ty::Char => "char",
        })
    }
}

impl Scalar {
    /// The value's type.
    pub(crate) fn ty(self) -> Ty {
        match self {
            Scalar::Int(t, _) => Ty::Int(t),
            Scalar::F32(_) => Ty::F32,
            Scalar::F64(_) => Ty::F64,
            Scalar::Bool(_) => Ty::Bool,
            Scalar::Char(_) => Ty::Char,
        }
    }
}

/// An integer primitive: the operations a [`Scalar`] of its type performs.
pub(crate) trait Machine: Copy {
    const TY: IntTy;
    const BITS: u32;
    /// `bits as Self`.
    fn from_bits(bits: u128) -> Self;
    /// `self as u128`.
    fn to_bits(self) -> u128;
    fn add(self, o: Self) -> Option<Self>;
    fn sub(self, o: Self) -> Option<Self>;
    fn mul(self, o: Self) -> Option<Self>;
    fn div(self, o: Self) -> Option<Self>;
    fn rem(self, o: Self) -> Option<Self>;
    fn neg(self) -> Option<Self>;
    fn shl(self, n: u32) -> Option<Self>;
    fn shr(self, n: u32) -> Option<Self>;
    fn is_zero(self) -> bool;
    /// `f as Self` (saturating, NaN to 0).
    fn from_f64(f: f64) -> Self;
    fn to_f32(self) -> f32;
    fn to_f64(self) -> f64;
}

macro_rules! machines {
    ($($t:ty: $ty:ident),*) => {$(
        impl Machine for $t {
            const TY: IntTy = IntTy::$ty;
            const BITS: u32 = <$t>::BITS;
            fn from_bits(bits: u128) -> Self { bits as $t }
            fn to_bits(self) -> u128 { self as u128 }
            fn add(self, o: Self) -> Option<Self> { self.checked_add(o) }
            fn sub(self, o: Self) -> Option<Self> { self.checked_sub(o) }
            fn mul(self, o: Self) -> Option<Self> { self.checked_mul(o) }
            fn div(self, o: Self) -> Option<Self> { self.checked_div(o) }
            fn rem(self, o: Self) -> Option<Self> { self.checked_rem(o) }
            fn neg(self) -> Option<Self> { self.checked_neg() }
            fn shl(self, n: u32) -> Option<Self> { self.checked_shl(n) }
            fn shr(self, n: u32) -> Option<Self> { self.checked_shr(n) }
            fn is_zero(self) -> bool { self == 0 }
            fn from_f64(f: f64) -> Self { f as $t }
            fn to_f32(self) -> f32 { self as f32 }
            fn to_f64(self) -> f64 { self as f64 }
        }
    )*};
}
machines!(
    i8: I8, i16: I16, i32: I32, i64: I64, i128: I128, isize: Isize,
    u8: U8, u16: U16, u32: U32, u64: U64, u128: U128, usize: Usize
);

/// The arithmetic operators, for [`int_arith`] and [`float_arith`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Arith {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
}

/// `a op b` in the integer type `ty`. (Inlined into the evaluator: see `expr::scalar_of`.)
#[inline(always)]
pub(crate) fn int_arith(ty: IntTy, op: Arith, a: u128, b: u128) -> Result<u128, Panic> {
    fn run<M: Machine>(op: Arith, a: u128, b: u128) -> Result<u128, Panic> {
        let (a, b) = (M::from_bits(a), M::from_bits(b));
        let result = match op {
            Arith::Add => a.add(b).ok_or("attempt to add with overflow"),
            Arith::Sub => a.sub(b).ok_or("attempt to subtract with overflow"),
            Arith::Mul => a.mul(b).ok_or("attempt to multiply with overflow"),
            Arith::Div if b.is_zero() => Err("attempt to divide by zero"),
            Arith::Div => a.div(b).ok_or("attempt to divide with overflow"),
            Arith::Rem if b.is_zero() => {
                Err("attempt to calculate the remainder with a divisor of zero")
            }
            Arith::Rem => a
                .rem(b)
                .ok_or("attempt to calculate the remainder with overflow"),
        };
        result.map(M::to_bits)
    }
    on_int!(ty, |M| run::<M>(op, a, b))
}

/// `-a` in the signed integer type `ty`.
pub(crate) fn int_neg(ty: IntTy, a: u128) -> Result<u128, Panic> {
    on_int!(ty, |M| M::from_bits(a)
        .neg()
        .map(M::to_bits)
        .ok_or("attempt to negate with overflow"))
}

/// `!a` in the integer type `ty`.
pub(crate) fn int_not(ty: IntTy, a: u128) -> u128 {
    ty.truncate(!a)
}

/// `a << n` (`left`) or `a >> n` in the type `ty`, `n` of the type `n_ty` (any integer
/// type, as Rust allows).
pub(crate) fn int_shift(
    ty: IntTy,
    a: u128,
    n_ty: IntTy,
    n: u128,
    left: bool,
) -> Result<u128, Panic> {
    fn run<M: Machine>(a: u128, n: Option<i128>, left: bool) -> Result<u128, Panic> {
        let overflow = if left {
            "attempt to shift left with overflow"
        } else {
            "attempt to shift right with overflow"
        };
        let n = n
            .and_then(|n| u32::try_from(n).ok())
            .filter(|&n| n < M::BITS)
            .ok_or(overflow)?;
        let a = M::from_bits(a);
        let shifted = if left { a.shl(n) } else { a.shr(n) };
        shifted.map(M::to_bits).ok_or(overflow)
    }
    on_int!(ty, |M| run::<M>(a, n_ty.value(n), left))
}

/// How `a` compares with `b`, both of the integer type `ty`.
#[inline(always)]
pub(crate) fn int_cmp(ty: IntTy, a: u128, b: u128) -> std::cmp::Ordering {
    if ty.is_signed() {
        (a as i128).cmp(&(b as i128))
    } else {
        a.cmp(&b)
    }
}

/// `a op b` in a float type (`f32` values are computed in `f32`).
pub(crate) fn float_arith<F>(op: Arith, a: F, b: F) -> F
where
    F: std::ops::Add<Output = F>
        + std::ops::Sub<Output = F>
        + std::ops::Mul<Output = F>
        + std::ops::Div<Output = F>
        + std::ops::Rem<Output = F>,
{
    match op {
        Arith::Add => a + b,
        Arith::Sub => a - b,
        Arith::Mul => a * b,
        Arith::Div => a / b,
        Arith::Rem => a % b,
    }
}

/// `x as to`, or `None` when Rust has no such cast (`bool as f64`, `i32 as char`, `x as
/// bool`).
pub(crate) fn cast(x: Scalar, to: Ty) -> Option<Scalar> {
    let int = |t: IntTy, bits: u128| Scalar::Int(t, t.truncate(bits));
    Some(match (x, to) {
        (Scalar::Int(_, bits), Ty::Int(t)) => int(t, bits),
        (Scalar::Int(from, bits), Ty::F32) => {
            Scalar::F32(on_int!(from, |M| M::from_bits(bits).to_f32()))
        }
        (Scalar::Int(from, bits), Ty::F64) => {
            Scalar::F64(on_int!(from, |M| M::from_bits(bits).to_f64()))
        }
        (Scalar::Int(IntTy::U8, bits), Ty::Char) => Scalar::Char(char::from(bits as u8)),
        (Scalar::F32(f), Ty::Int(t)) => {
            Scalar::Int(t, on_int!(t, |M| M::from_f64(f.into()).to_bits()))
        }
        (Scalar::F64(f), Ty::Int(t)) => Scalar::Int(t, on_int!(t, |M| M::from_f64(f).to_bits())),
        (Scalar::F32(f), Ty::F32) => Scalar::F32(f),
        (Scalar::F32(f), Ty::F64) => Scalar::F64(f.into()),
        (Scalar::F64(f), Ty::F32) => Scalar::F32(f as f32),
        (Scalar::F64(f), Ty::F64) => Scalar::F64(f),
        (Scalar::Bool(b), Ty::Int(t)) => int(t, u128::from(b)),
        (Scalar::Bool(b), Ty::Bool) => Scalar::Bool(b),
        (Scalar::Char(c), Ty::Int(t)) => int(t, u128::from(c)),
        (Scalar::Char(c), Ty::Char) => Scalar::Char(c),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bits<M: Machine>(x: M) -> u128 {
        x.to_bits()
    }

    #[test]
    fn arithmetic_is_the_primitive_s() {
        let i32s = |a: i32, b: i32, op| int_arith(IntTy::I32, op, bits(a), bits(b));
        assert_eq!(i32s(-7, 2, Arith::Div), Ok(bits(-3i32)));
        assert_eq!(i32s(-7, 2, Arith::Rem), Ok(bits(-1i32)));
        assert_eq!(
            i32s(i32::MAX, 1, Arith::Add),
            Err("attempt to add with overflow")
        );
        assert_eq!(
            i32s(i32::MIN, 1, Arith::Sub),
            Err("attempt to subtract with overflow")
        );
        assert_eq!(
            i32s(1 << 16, 1 << 16, Arith::Mul),
            Err("attempt to multiply with overflow")
        );
        assert_eq!(
            i32s(i32::MIN, -1, Arith::Div),
            Err("attempt to divide with overflow")
        );
        assert_eq!(
            i32s(i32::MIN, -1, Arith::Rem),
            Err("attempt to calculate the remainder with overflow")
        );
        assert_eq!(i32s(1, 0, Arith::Div), Err("attempt to divide by zero"));
        assert_eq!(
            i32s(1, 0, Arith::Rem),
            Err("attempt to calculate the remainder with a divisor of zero")
        );
        assert_eq!(
            int_arith(IntTy::U8, Arith::Add, 200, 55),
            Ok(255),
            "u8 holds 255"
        );
        assert_eq!(
            int_arith(IntTy::U8, Arith::Add, 200, 56),
            Err("attempt to add with overflow")
        );
        assert_eq!(
            int_arith(IntTy::U64, Arith::Sub, 0, 1),
            Err("attempt to subtract with overflow")
        );
        assert_eq!(
            int_arith(IntTy::U128, Arith::Add, u128::MAX - 1, 1),
            Ok(u128::MAX)
        );
        assert_eq!(
            int_arith(IntTy::Usize, Arith::Mul, bits(usize::MAX / 2), 2),
            Ok(bits(usize::MAX - 1))
        );
        assert_eq!(
            int_neg(IntTy::I8, bits(-128i8)),
            Err("attempt to negate with overflow")
        );
        assert_eq!(int_neg(IntTy::I8, bits(5i8)), Ok(bits(-5i8)));
        assert_eq!(int_not(IntTy::U8, 0), 255);
        assert_eq!(int_not(IntTy::I16, bits(0i16)), bits(-1i16));
    }

    #[test]
    fn shifts_are_checked_against_the_width() {
        assert_eq!(int_shift(IntTy::U8, 1, IntTy::I32, 7, true), Ok(128));
        assert_eq!(
            int_shift(IntTy::U8, 1, IntTy::I32, 8, true),
            Err("attempt to shift left with overflow")
        );
        assert_eq!(
            int_shift(IntTy::I32, 1, IntTy::I64, bits(-1i64), true),
            Err("attempt to shift left with overflow")
        );
        assert_eq!(
            int_shift(IntTy::I32, bits(-8i32), IntTy::U8, 1, false),
            Ok(bits(-4i32)),
            "arithmetic shift"
        );
        assert_eq!(
            int_shift(IntTy::U64, 1, IntTy::U128, u128::MAX, false),
            Err("attempt to shift right with overflow")
        );
    }

    #[test]
    fn comparisons_follow_the_sign() {
        use std::cmp::Ordering::*;
        assert_eq!(int_cmp(IntTy::I32, bits(-1i32), bits(1i32)), Less);
        assert_eq!(int_cmp(IntTy::U32, bits(u32::MAX), 1), Greater);
        assert_eq!(int_cmp(IntTy::U128, u128::MAX, u128::MAX), Equal);
    }

    #[test]
    fn casts_are_as_casts() {
        let i = |t, v: i128| Scalar::Int(t, t.bits_of(v).unwrap());
        assert_eq!(
            cast(i(IntTy::I32, -1), Ty::Int(IntTy::U8)),
            Some(i(IntTy::U8, 255))
        );
        assert_eq!(
            cast(i(IntTy::U8, 200), Ty::Int(IntTy::I8)),
            Some(i(IntTy::I8, -56))
        );
        assert_eq!(
            cast(i(IntTy::I8, -1), Ty::Int(IntTy::U16)),
            Some(i(IntTy::U16, 0xFFFF))
        );
        assert_eq!(
            cast(i(IntTy::I64, -1), Ty::Int(IntTy::U128)),
            Some(Scalar::Int(IntTy::U128, u128::MAX))
        );
        assert_eq!(cast(i(IntTy::I32, -3), Ty::F64), Some(Scalar::F64(-3.0)));
        assert_eq!(
            cast(i(IntTy::I64, (1 << 24) + 1), Ty::F32),
            Some(Scalar::F32(16_777_216.0)),
            "rounds to the nearest f32"
        );
        assert_eq!(
            cast(Scalar::F64(-1.9), Ty::Int(IntTy::I32)),
            Some(i(IntTy::I32, -1))
        );
        assert_eq!(
            cast(Scalar::F64(300.0), Ty::Int(IntTy::U8)),
            Some(i(IntTy::U8, 255))
        );
        assert_eq!(
            cast(Scalar::F64(-5.0), Ty::Int(IntTy::U8)),
            Some(i(IntTy::U8, 0))
        );
        assert_eq!(
            cast(Scalar::F32(f32::NAN), Ty::Int(IntTy::I8)),
            Some(i(IntTy::I8, 0))
        );
        assert_eq!(
            cast(Scalar::Bool(true), Ty::Int(IntTy::U64)),
            Some(i(IntTy::U64, 1))
        );
        assert_eq!(
            cast(Scalar::Char('é'), Ty::Int(IntTy::U8)),
            Some(i(IntTy::U8, 0xE9))
        );
        assert_eq!(cast(i(IntTy::U8, 97), Ty::Char), Some(Scalar::Char('a')));
        assert_eq!(cast(i(IntTy::U32, 97), Ty::Char), None);
        assert_eq!(cast(Scalar::Bool(true), Ty::F64), None);
        assert_eq!(cast(i(IntTy::I32, 1), Ty::Bool), None);
        assert_eq!(cast(Scalar::F64(1.0), Ty::Char), None);
    }

    const ALL: [IntTy; 12] = [
        IntTy::I8,
        IntTy::I16,
        IntTy::I32,
        IntTy::I64,
        IntTy::I128,
        IntTy::Isize,
        IntTy::U8,
        IntTy::U16,
        IntTy::U32,
        IntTy::U64,
        IntTy::U128,
        IntTy::Usize,
    ];

    #[test]
    fn ranges_and_names() {
        assert_eq!(IntTy::U8.bits_of(255), Some(255));
        assert_eq!(IntTy::U8.bits_of(256), None);
        assert_eq!(IntTy::U8.bits_of(-1), None);
        assert_eq!(IntTy::I8.bits_of(-128), Some(bits(-128i8)));
        assert_eq!(IntTy::I8.bits_of(128), None);
        assert_eq!(IntTy::I128.bits_of(i128::MIN), Some(bits(i128::MIN)));
        assert_eq!(IntTy::U128.value(u128::MAX), None);
        assert_eq!(IntTy::I16.value(bits(-2i16)), Some(-2));
        for t in ALL {
            assert_eq!(Ty::from_name(t.name()), Some(Ty::Int(t)));
        }
        assert_eq!(Ty::from_name("f32"), Some(Ty::F32));
        assert_eq!(Ty::from_name("i33"), None);
        assert_eq!(Ty::from_name("String"), None);
    }
}
