//! Method calls of the subset: sequence, `Option` and integer methods (`len`, `push`,
//! `unwrap_or`, `wrapping_add`, `is_ascii_digit`, `sum`, `swap`, …) lowered to the IR's
//! operators, and the methods known not to change their receiver.

use syn::ext::IdentExt;

use super::strip_ref;
use crate::ir::{
    BinOp, Expr, ExprKind, IntType, Lit, Place, Quantifier, Stmt, Type, UnOp, VarId, VarKind,
};
use crate::lower::body::{FnLowerer, and, not, unit};
use crate::lower::rules;

/// Methods that never change their receiver (an opaque call of another method may).
pub(crate) const READ_ONLY_METHODS: &[&str] = &[
    "len",
    "is_empty",
    "iter",
    "get",
    "first",
    "last",
    "contains",
    "clone",
    "to_vec",
    "to_owned",
    "to_string",
    "as_str",
    "as_slice",
    "chars",
    "bytes",
    "starts_with",
    "ends_with",
    "find",
    "position",
    "min",
    "max",
    "abs",
    "cmp",
    "partial_cmp",
    "eq",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
    "unwrap",
    "expect",
    "is_some",
    "is_none",
    "is_ok",
    "is_err",
    "unwrap_or",
    "unwrap_or_default",
    "unwrap_or_else",
    "map",
    "and_then",
    "ok",
    "err",
    "count",
    "sum",
    "product",
    "copied",
    "cloned",
    "enumerate",
    "rev",
    "zip",
    "windows",
    "chunks",
    "split",
    "split_whitespace",
    "lines",
    "trim",
    "trim_start",
    "trim_end",
    "to_uppercase",
    "to_lowercase",
    "to_ascii_uppercase",
    "to_ascii_lowercase",
    "parse",
    "as_bytes",
    "keys",
    "values",
    "contains_key",
    "binary_search",
    "pow",
    "wrapping_add",
    "wrapping_sub",
    "wrapping_mul",
    "wrapping_neg",
    "checked_add",
    "checked_sub",
    "checked_mul",
    "checked_div",
    "saturating_add",
    "saturating_sub",
    "saturating_mul",
    "is_ascii_digit",
    "is_ascii_alphabetic",
    "is_alphabetic",
    "is_numeric",
    "is_alphanumeric",
    "is_whitespace",
    "is_ascii",
    "to_digit",
    "len_utf8",
    "filter",
    "all",
    "any",
    "fold",
    "skip",
    "take",
    "step_by",
    "collect",
    "iter_mut_count",
    "signum",
    "is_positive",
    "is_negative",
    "count_ones",
    "leading_zeros",
    "trailing_zeros",
    "into_iter",
    "as_ref",
    "borrow",
    "first_key_value",
    "get_key_value",
    "peek",
    "rem_euclid",
    "div_euclid",
    "abs_diff",
    "ilog2",
    "ilog10",
    "isqrt",
    "checked_rem",
    "checked_pow",
    "to_le_bytes",
    "to_be_bytes",
    "max_by_key",
    "min_by_key",
    "max_by",
    "min_by",
    "last_index",
];

impl FnLowerer<'_, '_> {
    pub(super) fn method(
        &mut self,
        m: &syn::ExprMethodCall,
        node: &syn::Expr,
        out: &mut Vec<Stmt>,
    ) -> Expr {
        let name = m.method.unraw().to_string();
        if name == "sum"
            && m.args.is_empty()
            && let Some(sum) = self.sum(m, out)
        {
            return sum;
        }
        let mark = self.degradations.len();
        let (place, recv) = self.receiver(m, out);
        let rty = self.inf.shallow(&recv.ty);
        // A method of the program.
        if let Type::Struct(t) | Type::Enum(t) = &rty
            && let Some(sig) = self.env.sig(&format!("{t}::{name}"), &self.module).cloned()
            && sig.has_self
        {
            let args: Vec<&syn::Expr> = m.args.iter().collect();
            return self.program_call(&sig, Some((recv, place.map(|p| p.0))), &args, node, out);
        }
        let args: Vec<&syn::Expr> = m.args.iter().collect();
        let int = self.inf.is_int(&rty) || matches!(rty, Type::Int(_));
        let seq = matches!(rty, Type::Seq { .. });
        let option = matches!(rty, Type::Option(_));
        match (name.as_str(), args.as_slice()) {
            ("len", []) if seq => Expr {
                kind: ExprKind::Len(Box::new(recv)),
                ty: Type::Int(IntType::Usize),
            },
            ("is_empty", []) if seq => is_empty(recv),
            ("clone", []) if !rty.is_opaque() && !matches!(rty, Type::Infer(_)) => recv,
            ("to_vec" | "to_owned", []) if seq => recv,
            ("contains", [arg]) if seq => {
                let value = self.expr(strip_ref(arg), out);
                self.contains(recv, value)
            }
            ("min" | "max", [arg]) if int => {
                let other = self.expr(arg, out);
                let op = if name == "min" {
                    BinOp::Min
                } else {
                    BinOp::Max
                };
                self.binary_op(op, recv, other, node)
            }
            ("abs" | "wrapping_neg", []) if int => {
                let ty = recv.ty.clone();
                let op = if name == "abs" {
                    UnOp::Abs
                } else {
                    UnOp::WrappingNeg
                };
                Expr {
                    kind: ExprKind::Unary(op, Box::new(recv)),
                    ty,
                }
            }
            (
                "wrapping_add" | "wrapping_sub" | "wrapping_mul" | "saturating_add"
                | "saturating_sub" | "saturating_mul" | "checked_add" | "checked_sub"
                | "checked_mul",
                [arg],
            ) if int => {
                let other = self.expr(arg, out);
                self.binary_op(stepped_op(&name), recv, other, node)
            }
            (
                "is_ascii_digit"
                | "is_ascii_lowercase"
                | "is_ascii_uppercase"
                | "is_ascii_alphabetic"
                | "is_ascii_alphanumeric"
                | "is_ascii_whitespace"
                | "is_ascii",
                [],
            ) if rty == Type::Char => ascii_class(&name, &recv),
            ("to_ascii_lowercase" | "to_ascii_uppercase", []) if rty == Type::Char => {
                to_ascii_case(&name, recv)
            }
            ("is_some" | "is_none", []) if option => {
                let test = Expr {
                    kind: ExprKind::IsSome(Box::new(recv)),
                    ty: Type::Bool,
                };
                if name == "is_some" { test } else { not(test) }
            }
            ("unwrap", []) | ("expect", [_]) if option => self.unwrap(recv),
            ("unwrap_or", [default]) if option => self.unwrap_or(recv, default, out),
            ("push", [arg]) if seq && place.is_some() => {
                let Some((place, _)) = place else {
                    return unit();
                };
                self.push(place, recv, &rty, arg, node, out)
            }
            ("swap", [i, j]) if seq && place.is_some() => {
                let Some((place, _)) = place else {
                    return unit();
                };
                self.swap(place, recv, i, j, node, out);
                unit()
            }
            _ => {
                let t = self.describe(&rty);
                self.fold_into(mark, &recv);
                self.opaque(
                    node,
                    &format!("method `{name}`"),
                    &format!("the method `{name}` on {t}"),
                )
            }
        }
    }

    /// The receiver of a method call: its place, when it is one the model writes through
    /// (`v.push(x)`), and its value.
    fn receiver(
        &mut self,
        m: &syn::ExprMethodCall,
        out: &mut Vec<Stmt>,
    ) -> (Option<(Place, Expr)>, Expr) {
        let receiver = strip_ref(&m.receiver);
        let place = if rules::is_place(receiver) {
            let mut buf = Vec::new();
            match self.place(receiver, &mut buf) {
                Ok(p) => {
                    out.extend(buf);
                    Some(p)
                }
                Err(_) => None,
            }
        } else {
            None
        };
        let recv = match &place {
            Some((_, read)) => read.clone(),
            None => self.expr(receiver, out),
        };
        (place, recv)
    }

    /// `option.unwrap_or(default)`.
    fn unwrap_or(&mut self, recv: Expr, default: &syn::Expr, out: &mut Vec<Stmt>) -> Expr {
        let default = self.expr(default, out);
        let value = self.unwrap(recv.clone());
        self.inf.unify(&value.ty, &default.ty);
        let ty = value.ty.clone();
        Expr {
            kind: ExprKind::If {
                cond: Box::new(Expr {
                    kind: ExprKind::IsSome(Box::new(recv)),
                    ty: Type::Bool,
                }),
                branch: None,
                then: Box::new(value),
                otherwise: Box::new(default),
            },
            ty,
        }
    }

    /// `v.push(arg)` on the place `place` whose value is `recv`, of type `rty`.
    fn push(
        &mut self,
        place: Place,
        recv: Expr,
        rty: &Type,
        arg: &syn::Expr,
        node: &syn::Expr,
        out: &mut Vec<Stmt>,
    ) -> Expr {
        let value = self.expr(arg, out);
        if let Some(elem) = rty.elem() {
            self.inf.unify(elem, &value.ty);
        }
        let ty = recv.ty.clone();
        let root = place.root();
        out.push(Stmt::Assign {
            place,
            value: Expr {
                kind: ExprKind::Push(Box::new(recv), Box::new(value)),
                ty,
            },
            component: None,
        });
        self.after_write(root, node, out);
        unit()
    }

    /// `s.iter().sum()` and `s[lo..hi].iter().sum()` (also through `copied`, `cloned`,
    /// `into_iter`): a sum over the indices. `None` for other receivers.
    fn sum(&mut self, m: &syn::ExprMethodCall, out: &mut Vec<Stmt>) -> Option<Expr> {
        let mut receiver = rules::strip(&m.receiver);
        let mut iterated = false;
        while let syn::Expr::MethodCall(inner) = receiver
            && inner.args.is_empty()
            && ["iter", "copied", "cloned", "into_iter"]
                .contains(&inner.method.to_string().as_str())
        {
            iterated = true;
            receiver = rules::strip(&inner.receiver);
        }
        if !iterated {
            return None;
        }
        let usize_ty = Type::Int(IntType::Usize);
        let (seq, start, end) = match strip_ref(receiver) {
            syn::Expr::Index(i) => {
                let syn::Expr::Range(r) = rules::strip(&i.index) else {
                    return None;
                };
                let seq = self.expr(&i.expr, out);
                let start = match &r.start {
                    Some(s) => self.expr(s, out),
                    None => Expr::int(0, usize_ty.clone()),
                };
                let end = match &r.end {
                    Some(e) => {
                        let end = self.expr(e, out);
                        if matches!(r.limits, syn::RangeLimits::Closed(_)) {
                            let one = Expr::int(1, usize_ty.clone());
                            self.binary_op(BinOp::Add, end, one, e)
                        } else {
                            end
                        }
                    }
                    None => Expr {
                        kind: ExprKind::Len(Box::new(seq.clone())),
                        ty: usize_ty.clone(),
                    },
                };
                (seq, start, end)
            }
            other => {
                let seq = self.expr(other, out);
                let len = Expr {
                    kind: ExprKind::Len(Box::new(seq.clone())),
                    ty: usize_ty.clone(),
                };
                (seq, Expr::int(0, usize_ty.clone()), len)
            }
        };
        let elem = self.elem_type(&seq.ty)?;
        self.inf.unify(&start.ty, &usize_ty);
        self.inf.unify(&end.ty, &usize_ty);
        if let Some(turbofish) = &m.turbofish
            && let Some(syn::GenericArgument::Type(t)) = turbofish.args.first()
        {
            let t = self.env.resolve(t, self.self_ty.as_ref(), &self.generics);
            self.inf.unify(&elem, &t);
        }
        let var = self.new_var("$k", usize_ty.clone(), VarKind::Bound);
        let body = Expr {
            kind: ExprKind::Index(Box::new(seq), Box::new(Expr::var(var, usize_ty))),
            ty: elem.clone(),
        };
        Some(Expr {
            kind: ExprKind::Quantifier {
                kind: Quantifier::Sum,
                var,
                start: Box::new(start),
                end: Box::new(end),
                inclusive: false,
                body: Box::new(body),
            },
            ty: elem,
        })
    }

    /// When an operand was already opaque, one degradation for the whole expression
    /// replaces the operand's (a chain `v.iter().map(..).collect()` is one construct).
    pub(super) fn fold_into(&mut self, mark: usize, operand: &Expr) {
        if matches!(operand.kind, ExprKind::Opaque { .. }) {
            self.degradations.truncate(mark);
        }
    }

    fn unwrap(&mut self, option: Expr) -> Expr {
        let inner = match self.inf.shallow(&option.ty) {
            Type::Option(inner) => *inner,
            _ => self.inf.fresh(),
        };
        Expr {
            kind: ExprKind::Unwrap(Box::new(option)),
            ty: inner,
        }
    }

    /// `seq.contains(&x)`: some index holds `x`.
    fn contains(&mut self, seq: Expr, value: Expr) -> Expr {
        if let Some(elem) = seq.ty.elem() {
            self.inf.unify(elem, &value.ty);
        }
        let usize_ty = Type::Int(IntType::Usize);
        let var = self.new_var("$k", usize_ty.clone(), VarKind::Bound);
        let elem = self.elem_type(&seq.ty).unwrap_or_else(|| value.ty.clone());
        let at = Expr {
            kind: ExprKind::Index(
                Box::new(seq.clone()),
                Box::new(Expr::var(var, usize_ty.clone())),
            ),
            ty: elem,
        };
        Expr {
            kind: ExprKind::Quantifier {
                kind: Quantifier::Exists,
                var,
                start: Box::new(Expr::int(0, usize_ty.clone())),
                end: Box::new(Expr {
                    kind: ExprKind::Len(Box::new(seq)),
                    ty: usize_ty,
                }),
                inclusive: false,
                body: Box::new(Expr {
                    kind: ExprKind::Binary(BinOp::Eq, Box::new(at), Box::new(value)),
                    ty: Type::Bool,
                }),
            },
            ty: Type::Bool,
        }
    }

    /// `a.swap(i, j)`: both elements through a temporary.
    fn swap(
        &mut self,
        place: Place,
        seq: Expr,
        i: &syn::Expr,
        j: &syn::Expr,
        node: &syn::Expr,
        out: &mut Vec<Stmt>,
    ) {
        let usize_ty = Type::Int(IntType::Usize);
        let i = self.expr(i, out);
        let j = self.expr(j, out);
        self.inf.unify(&i.ty, &usize_ty);
        self.inf.unify(&j.ty, &usize_ty);
        let elem = self.elem_type(&seq.ty).unwrap_or_else(|| self.inf.fresh());
        let (ti, tj) = (self.temp(usize_ty.clone()), self.temp(usize_ty.clone()));
        out.push(Stmt::Let {
            var: ti,
            init: Some(i),
            component: None,
        });
        out.push(Stmt::Let {
            var: tj,
            init: Some(j),
            component: None,
        });
        let at = |v: VarId| Expr {
            kind: ExprKind::Index(
                Box::new(seq.clone()),
                Box::new(Expr::var(v, usize_ty.clone())),
            ),
            ty: elem.clone(),
        };
        let held = self.temp(elem.clone());
        out.push(Stmt::Let {
            var: held,
            init: Some(at(ti)),
            component: None,
        });
        let index = |v: VarId| {
            Place::Index(
                Box::new(place.clone()),
                Box::new(Expr::var(v, usize_ty.clone())),
            )
        };
        out.push(Stmt::Assign {
            place: index(ti),
            value: at(tj),
            component: None,
        });
        out.push(Stmt::Assign {
            place: index(tj),
            value: Expr::var(held, elem),
            component: None,
        });
        self.after_write(place.root(), node, out);
    }
}

/// `c.is_ascii_digit()` and the like, as comparisons of `c`.
fn ascii_class(name: &str, c: &Expr) -> Expr {
    let ch = |x: char| Expr {
        kind: ExprKind::Lit(Lit::Char(x)),
        ty: Type::Char,
    };
    let cmp = |op: BinOp, x: char| Expr {
        kind: ExprKind::Binary(op, Box::new(c.clone()), Box::new(ch(x))),
        ty: Type::Bool,
    };
    let within = |lo: char, hi: char| and(cmp(BinOp::Ge, lo), cmp(BinOp::Le, hi));
    let or = |a: Expr, b: Expr| Expr {
        kind: ExprKind::Binary(BinOp::Or, Box::new(a), Box::new(b)),
        ty: Type::Bool,
    };
    match name {
        "is_ascii_digit" => within('0', '9'),
        "is_ascii_lowercase" => within('a', 'z'),
        "is_ascii_uppercase" => within('A', 'Z'),
        "is_ascii_alphabetic" => or(within('a', 'z'), within('A', 'Z')),
        "is_ascii_alphanumeric" => or(or(within('a', 'z'), within('A', 'Z')), within('0', '9')),
        "is_ascii_whitespace" => ['\t', '\n', '\x0C', '\r']
            .into_iter()
            .fold(cmp(BinOp::Eq, ' '), |acc, x| or(acc, cmp(BinOp::Eq, x))),
        _ => cmp(BinOp::Le, '\x7F'),
    }
}

/// `seq.is_empty()`: its length is zero.
fn is_empty(seq: Expr) -> Expr {
    let len = Expr {
        kind: ExprKind::Len(Box::new(seq)),
        ty: Type::Int(IntType::Usize),
    };
    let zero = Expr::int(0, Type::Int(IntType::Usize));
    Expr {
        kind: ExprKind::Binary(BinOp::Eq, Box::new(len), Box::new(zero)),
        ty: Type::Bool,
    }
}

/// The operator of an integer method that steps in another way than `+`, `-`, `*`
/// (`wrapping_add`, `saturating_sub`, `checked_mul`, …).
fn stepped_op(name: &str) -> BinOp {
    match name {
        "wrapping_add" => BinOp::WrappingAdd,
        "wrapping_sub" => BinOp::WrappingSub,
        "wrapping_mul" => BinOp::WrappingMul,
        "saturating_add" => BinOp::SaturatingAdd,
        "saturating_sub" => BinOp::SaturatingSub,
        "saturating_mul" => BinOp::SaturatingMul,
        "checked_add" => BinOp::CheckedAdd,
        "checked_sub" => BinOp::CheckedSub,
        _ => BinOp::CheckedMul,
    }
}

/// `c.to_ascii_lowercase()` / `c.to_ascii_uppercase()` (`name`) of the char `recv`.
fn to_ascii_case(name: &str, recv: Expr) -> Expr {
    let lower = name == "to_ascii_lowercase";
    let (class, op) = if lower {
        ("is_ascii_uppercase", BinOp::Add)
    } else {
        ("is_ascii_lowercase", BinOp::Sub)
    };
    let u8_ty = Type::Int(IntType::U8);
    let byte = Expr {
        kind: ExprKind::Cast(Box::new(recv.clone())),
        ty: u8_ty.clone(),
    };
    let moved = Expr {
        kind: ExprKind::Binary(op, Box::new(byte), Box::new(Expr::int(32, u8_ty))),
        ty: Type::Int(IntType::U8),
    };
    Expr {
        kind: ExprKind::If {
            cond: Box::new(ascii_class(class, &recv)),
            branch: None,
            then: Box::new(Expr {
                kind: ExprKind::Cast(Box::new(moved)),
                ty: Type::Char,
            }),
            otherwise: Box::new(recv),
        },
        ty: Type::Char,
    }
}
