//! Candidate code as the runtime evaluates it: a Rust expression over the variables a site
//! reports and literals, lowered to the plan's [`Expr`] with every literal typed as rustc
//! would type it there, so that a candidate is checked by rerunning the suite instead of
//! rebuilding it. Code that reads what a site does not report (calls, indexing, fields,
//! paths to constants) has no such form: it is checked by rebuild only.

use std::collections::BTreeMap;

use autodebug_runtime::protocol::{BinOp, Expr, METHODS, UnOp, Value};

/// What is known of the types at a site.
#[derive(Debug, Clone, Default)]
pub struct Types {
    /// Variables in scope and their types (`i32`, `usize`, `bool`, …).
    pub vars: BTreeMap<String, String>,
    /// The type of the site's value (`bool` for a branch).
    pub value: Option<String>,
    /// The type of the operands of the site's comparison, as the branch events recorded them.
    pub operands: Option<String>,
    /// The token text of the two sides of the site's comparison, when the site is a branch
    /// whose condition is one (see [`operand_texts`]): a candidate's subexpression with the
    /// same tokens reads the operand the hook reports ([`Expr::Operand`]), so that code the
    /// runtime cannot evaluate itself (`p.len()`, `a[mid]`) can stay in a candidate.
    pub operand_texts: Option<[String; 2]>,
    /// The characters of the text the failing calls were given and were expected to
    /// return, in order of first appearance: what a mistyped character literal may have
    /// been meant to be (`'('` where the inputs bracket with `'['`).
    pub chars: Vec<char>,
}

/// The token text of the sides of `code` when it is a comparison (after parentheses).
pub fn operand_texts(code: &str) -> Option<[String; 2]> {
    let mut expr: syn::Expr = syn::parse_str(code).ok()?;
    while let syn::Expr::Paren(p) = expr {
        expr = *p.expr;
    }
    match expr {
        syn::Expr::Binary(b) if super::syntactic::is_comparison_op(&b.op) => {
            Some([tokens(&b.left), tokens(&b.right)])
        }
        _ => None,
    }
}

fn tokens(expr: &syn::Expr) -> String {
    quote::ToTokens::to_token_stream(expr).to_string()
}

/// The type name of a recorded value, when it is a primitive a candidate can compute with.
pub fn type_of(value: &Value) -> Option<String> {
    match value {
        Value::Int { ty, .. } | Value::Float { ty, .. } => Some(ty.clone()),
        Value::Bool(_) => Some("bool".into()),
        Value::Char(_) => Some("char".into()),
        _ => None,
    }
}

/// `code` as an [`Expr`] at a site with `types`, or `None` when the runtime cannot evaluate
/// it (it does not parse, or reads something no variable of the site holds).
pub fn lower(code: &str, types: &Types) -> Option<Expr> {
    let expr: syn::Expr = syn::parse_str(code).ok()?;
    Lowering { types }.lower(&expr, types.value.as_deref(), true)
}

struct Lowering<'a> {
    types: &'a Types,
}

fn binop(op: &syn::BinOp) -> Option<BinOp> {
    Some(match op {
        syn::BinOp::Add(_) => BinOp::Add,
        syn::BinOp::Sub(_) => BinOp::Sub,
        syn::BinOp::Mul(_) => BinOp::Mul,
        syn::BinOp::Div(_) => BinOp::Div,
        syn::BinOp::Rem(_) => BinOp::Rem,
        syn::BinOp::BitAnd(_) => BinOp::BitAnd,
        syn::BinOp::BitOr(_) => BinOp::BitOr,
        syn::BinOp::BitXor(_) => BinOp::BitXor,
        syn::BinOp::Shl(_) => BinOp::Shl,
        syn::BinOp::Shr(_) => BinOp::Shr,
        syn::BinOp::And(_) => BinOp::And,
        syn::BinOp::Or(_) => BinOp::Or,
        syn::BinOp::Eq(_) => BinOp::Eq,
        syn::BinOp::Ne(_) => BinOp::Ne,
        syn::BinOp::Lt(_) => BinOp::Lt,
        syn::BinOp::Le(_) => BinOp::Le,
        syn::BinOp::Gt(_) => BinOp::Gt,
        syn::BinOp::Ge(_) => BinOp::Ge,
        _ => return None,
    })
}

fn is_comparison(op: BinOp) -> bool {
    matches!(
        op,
        BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
    )
}

impl Lowering<'_> {
    /// The type `expr` has on its own (without context), when it says.
    fn infer(&self, expr: &syn::Expr) -> Option<String> {
        if let Some(texts) = &self.types.operand_texts
            && !matches!(expr, syn::Expr::Lit(_))
            && texts.iter().any(|t| *t == tokens(expr))
            && let Some(ty) = &self.types.operands
        {
            return Some(ty.clone());
        }
        match expr {
            syn::Expr::Lit(lit) => match &lit.lit {
                syn::Lit::Int(i) if !i.suffix().is_empty() => Some(i.suffix().to_string()),
                syn::Lit::Float(f) if !f.suffix().is_empty() => Some(f.suffix().to_string()),
                syn::Lit::Bool(_) => Some("bool".into()),
                syn::Lit::Char(_) => Some("char".into()),
                _ => None,
            },
            syn::Expr::Path(p) => self
                .types
                .vars
                .get(&p.path.get_ident()?.to_string())
                .cloned(),
            syn::Expr::Paren(p) => self.infer(&p.expr),
            syn::Expr::Group(g) => self.infer(&g.expr),
            syn::Expr::Unary(u) => self.infer(&u.expr),
            syn::Expr::Cast(c) => type_name(&c.ty),
            // The runtime's methods answer a predicate (`is_…`) or keep the receiver's type.
            syn::Expr::MethodCall(m) if METHODS.contains(&m.method.to_string().as_str()) => {
                if m.method.to_string().starts_with("is_") {
                    Some("bool".into())
                } else {
                    self.infer(&m.receiver)
                }
            }
            syn::Expr::Binary(b) => match binop(&b.op)? {
                op if is_comparison(op) => Some("bool".into()),
                BinOp::And | BinOp::Or => Some("bool".into()),
                BinOp::Shl | BinOp::Shr => self.infer(&b.left),
                _ => self.infer(&b.left).or_else(|| self.infer(&b.right)),
            },
            _ => None,
        }
    }

    /// `expr` lowered where a value of type `expected` is wanted (`None`: unconstrained,
    /// where rustc falls back to `i32` for an integer literal). `top` marks the site's whole
    /// expression, whose comparison may take its operand type from the recorded operands.
    fn lower(&self, expr: &syn::Expr, expected: Option<&str>, top: bool) -> Option<Expr> {
        if !top
            && !matches!(expr, syn::Expr::Lit(_))
            && let Some(texts) = &self.types.operand_texts
            && let Some(index) = texts.iter().position(|t| *t == tokens(expr))
        {
            // Unless a variable of the scope says the same (it carries its own type).
            if !matches!(expr, syn::Expr::Path(p) if p.path.get_ident().is_some_and(|i| self.types.vars.contains_key(&i.to_string())))
            {
                return Some(Expr::Operand {
                    index: index as u32,
                });
            }
        }
        match expr {
            syn::Expr::Lit(lit) => literal(&lit.lit, expected, false),
            syn::Expr::Path(p) if p.qself.is_none() => {
                let name = p.path.get_ident()?.to_string();
                self.types
                    .vars
                    .contains_key(&name)
                    .then_some(Expr::Var { name })
            }
            syn::Expr::Paren(p) => self.lower(&p.expr, expected, top),
            syn::Expr::Group(g) => self.lower(&g.expr, expected, top),
            syn::Expr::Unary(u) => match u.op {
                syn::UnOp::Neg(_) => match &*u.expr {
                    // `-1` is one literal to rustc's typing.
                    syn::Expr::Lit(lit) => literal(&lit.lit, expected, true),
                    inner => Some(Expr::Unary {
                        op: UnOp::Neg,
                        arg: Box::new(self.lower(inner, expected, false)?),
                    }),
                },
                syn::UnOp::Not(_) => Some(Expr::Unary {
                    op: UnOp::Not,
                    arg: Box::new(self.lower(&u.expr, expected, false)?),
                }),
                _ => None,
            },
            syn::Expr::Cast(c) => {
                let ty = type_name(&c.ty)?;
                let inner = self.infer(&c.expr);
                Some(Expr::Cast {
                    ty,
                    arg: Box::new(self.lower(&c.expr, inner.as_deref(), false)?),
                })
            }
            syn::Expr::Binary(b) => {
                let op = binop(&b.op)?;
                let (left, right) = if is_comparison(op) {
                    let operands = self
                        .infer(&b.left)
                        .or_else(|| self.infer(&b.right))
                        .or_else(|| top.then(|| self.types.operands.clone()).flatten());
                    (operands.clone(), operands)
                } else if matches!(op, BinOp::And | BinOp::Or) {
                    (Some("bool".to_string()), Some("bool".to_string()))
                } else if matches!(op, BinOp::Shl | BinOp::Shr) {
                    (expected.map(str::to_string), self.infer(&b.right))
                } else {
                    let ty = expected
                        .map(str::to_string)
                        .or_else(|| self.infer(&b.left))
                        .or_else(|| self.infer(&b.right));
                    (ty.clone(), ty)
                };
                Some(Expr::Binary {
                    op,
                    left: Box::new(self.lower(&b.left, left.as_deref(), false)?),
                    right: Box::new(self.lower(&b.right, right.as_deref(), false)?),
                })
            }
            // `c.is_whitespace()`, `x.abs()`: a method the runtime has, on what it can read.
            syn::Expr::MethodCall(m)
                if m.args.is_empty()
                    && m.turbofish.is_none()
                    && METHODS.contains(&m.method.to_string().as_str()) =>
            {
                let receiver = self.infer(&m.receiver);
                Some(Expr::Method {
                    name: m.method.to_string(),
                    arg: Box::new(self.lower(&m.receiver, receiver.as_deref(), false)?),
                })
            }
            _ => None,
        }
    }
}

/// The name of a primitive type written as a path (`usize`), if it is one.
fn type_name(ty: &syn::Type) -> Option<String> {
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => Some(p.path.get_ident()?.to_string()),
        syn::Type::Paren(p) => type_name(&p.elem),
        syn::Type::Group(g) => type_name(&g.elem),
        _ => None,
    }
}

fn literal(lit: &syn::Lit, expected: Option<&str>, negative: bool) -> Option<Expr> {
    let value = match lit {
        syn::Lit::Int(i) => {
            let ty = match i.suffix() {
                "" => expected.unwrap_or("i32").to_string(),
                suffix => suffix.to_string(),
            };
            if ty.starts_with('f') {
                // An integer literal where a float is wanted does not compile.
                return None;
            }
            let v: i128 = i.base10_parse().ok()?;
            Value::Int {
                ty,
                v: if negative { -v } else { v },
            }
        }
        syn::Lit::Float(f) => {
            let ty = match f.suffix() {
                "" => expected.filter(|t| t.starts_with('f')).unwrap_or("f64"),
                suffix => suffix,
            }
            .to_string();
            let digits = f.base10_digits();
            Value::Float {
                ty,
                v: if negative {
                    format!("-{digits}")
                } else {
                    digits.to_string()
                },
            }
        }
        syn::Lit::Bool(b) if !negative => Value::Bool(b.value),
        syn::Lit::Char(c) if !negative => Value::Char(c.value()),
        _ => return None,
    };
    Some(Expr::Lit { value })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn types(vars: &[(&str, &str)], value: Option<&str>, operands: Option<&str>) -> Types {
        Types {
            vars: vars
                .iter()
                .map(|(n, t)| (n.to_string(), t.to_string()))
                .collect(),
            value: value.map(str::to_string),
            operands: operands.map(str::to_string),
            operand_texts: None,
            chars: Vec::new(),
        }
    }

    fn int(ty: &str, v: i128) -> Expr {
        Expr::Lit {
            value: Value::Int { ty: ty.into(), v },
        }
    }

    fn var(name: &str) -> Box<Expr> {
        Box::new(Expr::Var { name: name.into() })
    }

    #[test]
    fn literals_take_the_type_of_their_context() {
        let t = types(
            &[("lo", "usize"), ("hi", "usize"), ("x", "i64")],
            None,
            None,
        );
        assert_eq!(
            lower("lo + 1 <= hi", &t),
            Some(Expr::Binary {
                op: BinOp::Le,
                left: Box::new(Expr::Binary {
                    op: BinOp::Add,
                    left: var("lo"),
                    right: Box::new(int("usize", 1)),
                }),
                right: var("hi"),
            })
        );
        assert_eq!(
            lower("(x * -3) as u8", &t),
            Some(Expr::Cast {
                ty: "u8".into(),
                arg: Box::new(Expr::Binary {
                    op: BinOp::Mul,
                    left: var("x"),
                    right: Box::new(int("i64", -3)),
                }),
            })
        );
        // The site's type types a bare literal; nothing does: rustc's `i32`.
        assert_eq!(
            lower("7", &types(&[], Some("u64"), None)),
            Some(int("u64", 7))
        );
        assert_eq!(lower("7", &Types::default()), Some(int("i32", 7)));
        // The recorded operands type a comparison of literals (`1 < n` with `n` unknown).
        let t = types(&[], Some("bool"), Some("u32"));
        assert_eq!(
            lower("1 < 2", &t),
            Some(Expr::Binary {
                op: BinOp::Lt,
                left: Box::new(int("u32", 1)),
                right: Box::new(int("u32", 2)),
            })
        );
    }

    #[test]
    fn methods_of_primitive_values_are_lowered() {
        let t = types(&[("c", "char"), ("x", "i32")], Some("bool"), None);
        let method = |name: &str, arg: Box<Expr>| Expr::Method {
            name: name.into(),
            arg,
        };
        assert_eq!(
            lower("c.is_whitespace() || x.abs() > 2", &t),
            Some(Expr::Binary {
                op: BinOp::Or,
                left: Box::new(method("is_whitespace", var("c"))),
                right: Box::new(Expr::Binary {
                    op: BinOp::Gt,
                    left: Box::new(method("abs", var("x"))),
                    right: Box::new(int("i32", 2)),
                }),
            })
        );
    }

    #[test]
    fn what_a_site_does_not_report_has_no_runtime_form() {
        let t = types(&[("a", "usize")], Some("bool"), None);
        for code in [
            "v[a] < 3", "a.len()", "f(a)", "b + 1", "i32::MAX", "*a", "&a",
        ] {
            assert_eq!(lower(code, &t), None, "{code}");
        }
        assert_eq!(lower("not rust (", &t), None);
        // A method the runtime does not have, or one with arguments.
        let c = types(&[("c", "char"), ("x", "i32")], Some("bool"), None);
        for code in [
            "c.is_digit(10)",
            "c.to_string()",
            "x.pow(2) > 0",
            "c.is_whitespace::<u8>()",
        ] {
            assert_eq!(lower(code, &c), None, "{code}");
        }
        assert_eq!(
            lower("!(a == 0) && true", &t),
            Some(Expr::Binary {
                op: BinOp::And,
                left: Box::new(Expr::Unary {
                    op: UnOp::Not,
                    arg: Box::new(Expr::Binary {
                        op: BinOp::Eq,
                        left: var("a"),
                        right: Box::new(int("usize", 0)),
                    }),
                }),
                right: Box::new(Expr::Lit {
                    value: Value::Bool(true)
                }),
            })
        );
    }
}
