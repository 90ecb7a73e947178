//! Calls and macros in expression position: calls of the file's functions (with their
//! `&mut` arguments written back), of constructors and of the few free functions of the
//! subset, and `vec![..]`, `matches!(..)` and the like.

use syn::ext::IdentExt;

use super::never;
use crate::ir::{BinOp, Expr, ExprKind, IntType, Place, Stmt, Type, VarId};
use crate::lower::body::{Binding, FnLowerer, Mode, unit};
use crate::lower::rules;

impl FnLowerer<'_, '_> {
    pub(super) fn call(
        &mut self,
        c: &syn::ExprCall,
        node: &syn::Expr,
        out: &mut Vec<Stmt>,
    ) -> Expr {
        let syn::Expr::Path(path) = rules::strip(&c.func) else {
            return self.opaque(node, "call", "a call of a computed function");
        };
        let segments: Vec<String> = path
            .path
            .segments
            .iter()
            .map(|s| s.ident.unraw().to_string())
            .collect();
        let args: Vec<&syn::Expr> = c.args.iter().collect();
        let last_two: Vec<&str> = segments
            .iter()
            .rev()
            .take(2)
            .rev()
            .map(String::as_str)
            .collect();
        if segments.len() == 1
            && let Some(binding) = self.lookup(&segments[0])
        {
            // A closure changes what it captured when it is called.
            let mut value = self.opaque(node, "call", "a call of a closure or function value");
            if let (Binding::Var(v), ExprKind::Opaque { defines, .. }) = (binding, &mut value.kind)
                && let Some(writes) = self.closure_writes.get(&v)
            {
                defines.extend(writes.iter().copied());
                defines.sort();
                defines.dedup();
            }
            return value;
        }
        match (last_two.as_slice(), args.as_slice()) {
            (["Vec", "new"], []) | (["Vec", "with_capacity"], [_]) => {
                return self.array(Vec::new(), None);
            }
            (["Some"] | ["Option", "Some"], [arg]) => {
                let value = self.expr(arg, out);
                let ty = Type::Option(Box::new(value.ty.clone()));
                return Expr {
                    kind: ExprKind::OptionSome(Box::new(value)),
                    ty,
                };
            }
            (["old"], [arg]) if matches!(self.mode, Mode::Contract { ensures: true }) => {
                let value = self.expr(arg, out);
                let ty = value.ty.clone();
                return Expr {
                    kind: ExprKind::Old(Box::new(value)),
                    ty,
                };
            }
            ([.., "min" | "max"], [a, b])
                if segments.len() > 1 || self.env.sig(&segments[0], &self.module).is_none() =>
            {
                let (a, b) = (self.expr(a, out), self.expr(b, out));
                let op = if segments.last().is_some_and(|s| s == "min") {
                    BinOp::Min
                } else {
                    BinOp::Max
                };
                return self.binary_op(op, a, b, node);
            }
            ([ty, "from"], [arg]) if IntType::from_name(ty).is_some() => {
                let value = self.expr(arg, out);
                let from = self.inf.shallow(&value.ty);
                if matches!(from, Type::Int(_) | Type::Bool | Type::Char) || self.inf.is_int(&from)
                {
                    return Expr {
                        kind: ExprKind::Cast(Box::new(value)),
                        ty: Type::Int(IntType::from_name(ty).unwrap_or(IntType::I32)),
                    };
                }
            }
            _ => {}
        }
        // A function of the program.
        let name = match last_two.as_slice() {
            ["Self", f] => self.self_name.as_ref().map(|t| format!("{t}::{f}")),
            [t, f] if segments.len() >= 2 && t.chars().next().is_some_and(char::is_uppercase) => {
                Some(format!("{t}::{f}"))
            }
            [.., f] => Some(f.to_string()),
            _ => None,
        };
        if let Some(name) = name
            && let Some(sig) = self.env.sig(&name, &self.module).cloned()
        {
            return self.program_call(&sig, None, &args, node, out);
        }
        if let Some(value) = last_two
            .last()
            .and_then(|t| self.tuple_struct(t, &args, out))
        {
            return value;
        }
        self.opaque(
            node,
            &format!("call of `{}`", segments.join("::")),
            "not a function of this file",
        )
    }

    /// A call of tuple struct `t`'s constructor (`Self` for the impl's type), when `t` is
    /// one of the file's with as many fields as `args`.
    fn tuple_struct(&mut self, t: &str, args: &[&syn::Expr], out: &mut Vec<Stmt>) -> Option<Expr> {
        let t = if t == "Self" {
            self.self_name.clone().unwrap_or_default()
        } else {
            t.to_string()
        };
        let def = self.env.struct_def(&t).cloned()?;
        if !def.tuple || def.fields.len() != args.len() {
            return None;
        }
        let mut fields = Vec::new();
        for ((fname, fty), arg) in def.fields.iter().zip(args) {
            let value = self.expr(arg, out);
            self.inf.unify(fty, &value.ty);
            fields.push((fname.clone(), value));
        }
        Some(Expr {
            kind: ExprKind::Struct(t.clone(), fields),
            ty: Type::Struct(t),
        })
    }

    /// A call of a function of the program. `receiver` is a method's receiver (its value,
    /// and its place when it is one). `&mut` parameters write back into their arguments'
    /// places.
    pub(super) fn program_call(
        &mut self,
        sig: &crate::lower::FnSig,
        receiver: Option<(Expr, Option<Place>)>,
        args: &[&syn::Expr],
        node: &syn::Expr,
        out: &mut Vec<Stmt>,
    ) -> Expr {
        let given = args.len() + usize::from(receiver.is_some());
        if given != sig.params.len() {
            return self.opaque(
                node,
                &format!("call of `{}`", sig.name),
                "the arity does not match the signature",
            );
        }
        let mut values = Vec::new();
        let mut outputs = Vec::new();
        if let Some((value, place)) = receiver {
            if sig.params.first().is_some_and(|(_, m)| *m) {
                match place {
                    Some(place) => outputs.push((0, place)),
                    None => {
                        return self.opaque(
                            node,
                            &format!("call of `{}`", sig.name),
                            "a `&mut self` receiver that is not a place",
                        );
                    }
                }
            }
            values.push(value);
        }
        let offset = values.len();
        for (i, arg) in args.iter().enumerate() {
            let (pty, mut_ref) = sig.params[offset + i].clone();
            if mut_ref {
                let inner = match rules::strip(arg) {
                    syn::Expr::Reference(r) => &*r.expr,
                    other => other,
                };
                match self.place(inner, out) {
                    Ok((place, read)) => {
                        outputs.push((offset + i, place));
                        values.push(read);
                    }
                    Err(reason) => {
                        return self.opaque(
                            node,
                            &format!("call of `{}`", sig.name),
                            &format!("a `&mut` argument: {reason}"),
                        );
                    }
                }
            } else {
                let value = self.expr(arg, out);
                if !pty.is_opaque() {
                    self.inf.unify(&pty, &value.ty);
                }
                values.push(value);
            }
        }
        let roots: Vec<VarId> = outputs.iter().map(|(_, p)| p.root()).collect();
        let call = Expr {
            kind: ExprKind::Call {
                function: sig.name.clone(),
                args: values,
                outputs,
            },
            ty: sig.ret.clone(),
        };
        for root in roots {
            self.after_write(root, node, out);
        }
        call
    }

    /// Macros in expression position: `vec![..]`, `matches!(..)`; assertions and panics
    /// become statements.
    pub(super) fn macro_expr(
        &mut self,
        m: &syn::ExprMacro,
        node: &syn::Expr,
        out: &mut Vec<Stmt>,
    ) -> Expr {
        let name = m
            .mac
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        match name.as_str() {
            "vec" => {
                let parsed = m.mac.parse_body_with(|input: syn::parse::ParseStream| {
                    if input.is_empty() {
                        return Ok(VecArgs::List(Vec::new()));
                    }
                    let first: syn::Expr = input.parse()?;
                    if input.peek(syn::Token![;]) {
                        input.parse::<syn::Token![;]>()?;
                        let count: syn::Expr = input.parse()?;
                        return Ok(VecArgs::Repeat(Box::new(first), Box::new(count)));
                    }
                    let mut elems = vec![first];
                    while input.peek(syn::Token![,]) {
                        input.parse::<syn::Token![,]>()?;
                        if input.is_empty() {
                            break;
                        }
                        elems.push(input.parse()?);
                    }
                    Ok(VecArgs::List(elems))
                });
                match parsed {
                    Ok(VecArgs::List(elems)) => {
                        let elems: Vec<Expr> = elems.iter().map(|e| self.expr(e, out)).collect();
                        self.array(elems, None)
                    }
                    Ok(VecArgs::Repeat(elem, count)) => {
                        let elem = self.expr(&elem, out);
                        let count = self.expr(&count, out);
                        self.inf.unify(&count.ty, &Type::Int(IntType::Usize));
                        self.repeat(elem, count, None)
                    }
                    Err(_) => self.opaque(node, "`vec!`", "arguments that do not parse"),
                }
            }
            "matches" => {
                let parsed = m.mac.parse_body_with(|input: syn::parse::ParseStream| {
                    let scrutinee: syn::Expr = input.parse()?;
                    input.parse::<syn::Token![,]>()?;
                    let pat = syn::Pat::parse_multi_with_leading_vert(input)?;
                    let guard = if input.peek(syn::Token![if]) {
                        input.parse::<syn::Token![if]>()?;
                        Some(input.parse::<syn::Expr>()?)
                    } else {
                        None
                    };
                    let _ = input.parse::<Option<syn::Token![,]>>()?;
                    Ok((scrutinee, pat, guard))
                });
                let Ok((scrutinee, pat, guard)) = parsed else {
                    return self.opaque(node, "`matches!`", "arguments that do not parse");
                };
                if guard.is_some() {
                    return self.opaque(node, "`matches!`", "a guard in `matches!`");
                }
                let mut buf = Vec::new();
                let value = self.expr(&scrutinee, &mut buf);
                if !buf.is_empty() || crate::lower::body::has_effects(&value) {
                    return self.opaque(node, "`matches!`", "a scrutinee with effects");
                }
                match self.pattern(&pat, &value) {
                    Ok(lowered) => lowered.test.unwrap_or_else(|| Expr::bool(true)),
                    Err(reason) => self.opaque(node, "`matches!`", &reason),
                }
            }
            _ if self.macro_stmt(&m.mac, node, out) => {
                if rules::is_panic_macro(&m.mac) {
                    never(self.inf.fresh())
                } else {
                    unit()
                }
            }
            _ => self.opaque(
                node,
                &format!("`{name}!`"),
                "macros other than assertions, panics and `vec!` are outside the subset",
            ),
        }
    }
}

enum VecArgs {
    List(Vec<syn::Expr>),
    Repeat(Box<syn::Expr>, Box<syn::Expr>),
}
