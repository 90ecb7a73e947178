//! The methods of primitive types a candidate may call: those that take no argument, have
//! no effect and whose result is a primitive value (`c.is_whitespace()`, `x.abs()`,
//! `f.floor()`). A condition a person forgot (`c.is_whitespace() || …`) or a call swapped
//! for its counterpart (`is_uppercase` for `is_lowercase`) is then checked by a rerun, not a
//! rebuild.

use super::Failure;
use super::scalar::{self, Scalar, Ty};

pub(crate) use crate::protocol::METHODS;

/// A `char`'s predicate, by name.
fn char_predicate(name: &str) -> Option<fn(&char) -> bool> {
    Some(match name {
        "is_whitespace" => |c| c.is_whitespace(),
        "is_alphabetic" => |c| c.is_alphabetic(),
        "is_alphanumeric" => |c| c.is_alphanumeric(),
        "is_numeric" => |c| c.is_numeric(),
        "is_uppercase" => |c| c.is_uppercase(),
        "is_lowercase" => |c| c.is_lowercase(),
        "is_control" => |c| c.is_control(),
        "is_ascii" => |c| c.is_ascii(),
        "is_ascii_digit" => char::is_ascii_digit,
        "is_ascii_alphabetic" => char::is_ascii_alphabetic,
        "is_ascii_alphanumeric" => char::is_ascii_alphanumeric,
        "is_ascii_uppercase" => char::is_ascii_uppercase,
        "is_ascii_lowercase" => char::is_ascii_lowercase,
        "is_ascii_punctuation" => char::is_ascii_punctuation,
        "is_ascii_whitespace" => char::is_ascii_whitespace,
        "is_ascii_hexdigit" => char::is_ascii_hexdigit,
        "is_ascii_graphic" => char::is_ascii_graphic,
        "is_ascii_control" => char::is_ascii_control,
        _ => return None,
    })
}

/// The type of `arg.name()` for an `arg` of type `t`, or why rustc would refuse it.
pub(crate) fn ty(name: &str, t: Ty) -> Result<Ty, String> {
    let float = matches!(t, Ty::F32 | Ty::F64);
    let signed = matches!(t, Ty::Int(i) if i.is_signed());
    let result = match name {
        _ if char_predicate(name).is_some() && t == Ty::Char => Some(Ty::Bool),
        "to_ascii_uppercase" | "to_ascii_lowercase" if t == Ty::Char => Some(Ty::Char),
        "abs" | "signum" if signed || float => Some(t),
        "is_positive" | "is_negative" if signed => Some(Ty::Bool),
        "floor" | "ceil" | "round" | "trunc" | "fract" | "sqrt" if float => Some(t),
        "is_nan" | "is_finite" | "is_infinite" | "is_sign_negative" | "is_sign_positive"
            if float =>
        {
            Some(Ty::Bool)
        }
        _ => None,
    };
    result.ok_or_else(|| format!("no method `{name}` on `{t}` that a candidate can call"))
}

/// `f.name()` in `f`'s own type, made a scalar with `make`; `None` when there is no such
/// method.
macro_rules! float {
    ($name:expr, $f:expr, $make:expr) => {{
        let f = $f;
        match $name {
            "abs" => Some($make(f.abs())),
            "signum" => Some($make(f.signum())),
            "floor" => Some($make(f.floor())),
            "ceil" => Some($make(f.ceil())),
            "round" => Some($make(f.round())),
            "trunc" => Some($make(f.trunc())),
            "fract" => Some($make(f.fract())),
            "sqrt" => Some($make(f.sqrt())),
            "is_nan" => Some(Scalar::Bool(f.is_nan())),
            "is_finite" => Some(Scalar::Bool(f.is_finite())),
            "is_infinite" => Some(Scalar::Bool(f.is_infinite())),
            "is_sign_negative" => Some(Scalar::Bool(f.is_sign_negative())),
            "is_sign_positive" => Some(Scalar::Bool(f.is_sign_positive())),
            _ => None,
        }
    }};
}

/// `x.name()`, as the rebuilt program computes it.
pub(crate) fn apply(name: &str, x: Scalar) -> Result<Scalar, Failure> {
    use Scalar::{Bool, Char, F32, F64, Int};
    let refused = || Failure::Invalid(ty(name, x.ty()).err().unwrap_or_default());
    Ok(match x {
        Char(c) => match (char_predicate(name), name) {
            (Some(p), _) => Bool(p(&c)),
            (None, "to_ascii_uppercase") => Char(c.to_ascii_uppercase()),
            (None, "to_ascii_lowercase") => Char(c.to_ascii_lowercase()),
            _ => return Err(refused()),
        },
        Int(t, bits) if t.is_signed() => {
            let v = bits as i128;
            match name {
                "abs" if v < 0 => Int(t, scalar::int_neg(t, bits).map_err(Failure::Panic)?),
                "abs" => x,
                "signum" => Int(t, v.signum() as u128),
                "is_positive" => Bool(v > 0),
                "is_negative" => Bool(v < 0),
                _ => return Err(refused()),
            }
        }
        F32(f) => float!(name, f, F32).ok_or_else(refused)?,
        F64(f) => float!(name, f, F64).ok_or_else(refused)?,
        _ => return Err(refused()),
    })
}
