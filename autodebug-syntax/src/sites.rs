//! What a site is: its [`Kind`], and the expressions and macro statements of a file that
//! have the shape of one ([`visit_file`]).

use syn::visit::{self, Visit};
use syn::{Expr, Stmt};

use crate::rules::{
    chain_leaves, contains_let, diverges, for_range, is_chain, is_compound, is_effect_argument,
    is_field_value, is_returned_value, reports_arm, reports_assign, reports_call,
    reports_closure_value, reports_iterable, reports_let, reports_scrutinee,
};

/// What a site is: the name of the runtime's `SiteKind` variant (`"Let"`), as the generated
/// code names it (`Site"Let"`) and traces carry it.
pub type Kind = &'static str;

/// What has the shape of a site: an expression, or a macro invoked as a statement
/// (`try!(w.flush());`, `buf_get_impl!(self, u64);`), whose expansion nobody sees: the
/// macros put a `Call` hook before it. It prints, and spans, as its code.
#[derive(Clone, Copy)]
pub enum Shape<'ast> {
    Expr(&'ast Expr),
    Macro(&'ast syn::Macro),
}

impl quote::ToTokens for Shape<'_> {
    fn to_tokens(&self, tokens: &mut proc_macro2::TokenStream) {
        match self {
            Shape::Expr(expr) => expr.to_tokens(tokens),
            Shape::Macro(mac) => mac.to_tokens(tokens),
        }
    }
}

/// Calls `found` with every expression of `file` that has the shape of a site, with its
/// kind, in the order of a walk of the syntax tree: conditions and their operands, `let`
/// initializers, assigned values, returned values, computed arguments of calls wherever
/// they stand, a `for` range's bounds, what a `match` or a condition's `let` examines, and
/// every macro statement (a [`Shape::Macro`]). The walk does not know which functions a build instruments nor
/// whether they return a value, so `return` values, block tails and match arms are named
/// wherever they stand: a superset of the sites of any one build, holding every site a
/// trace names at its position with its kind. Function entries and loops (whose spans are
/// no expressions) are not named.
pub fn visit_file<'ast>(file: &'ast syn::File, mut found: impl FnMut(Shape<'ast>, Kind)) {
    Walk { report: &mut found }.visit_file(file);
}

struct Walk<'f, 'ast> {
    report: &'f mut dyn FnMut(Shape<'ast>, Kind),
}

impl<'ast> Walk<'_, 'ast> {
    /// An expression with the shape of a site of `kind`.
    fn found(&mut self, expr: &'ast Expr, kind: Kind) {
        (self.report)(Shape::Expr(expr), kind);
    }

    /// A branch condition of `kind`: the whole condition is the site unless it contains a
    /// `let`; each non-`let` operand of a top-level `&&`/`||` chain is an `Operand` site.
    fn condition(&mut self, cond: &'ast Expr, kind: Kind) {
        if !contains_let(cond) {
            self.found(cond, kind);
        }
        if is_chain(cond) || contains_let(cond) {
            chain_leaves(cond, &mut |leaf| {
                if !matches!(leaf, Expr::Let(_)) {
                    self.found(leaf, "Operand");
                }
            });
        }
    }

    /// The computed arguments of a call, wherever it stands: `Arg` sites.
    fn arguments(&mut self, args: &'ast syn::punctuated::Punctuated<Expr, syn::Token![,]>) {
        for arg in args {
            if is_effect_argument(arg) {
                self.found(arg, "Arg");
            }
        }
    }

    /// A value the macro passes through a hook, unless it diverges.
    fn component(&mut self, expr: &'ast Expr, kind: Kind) {
        if !diverges(expr) {
            self.found(expr, kind);
        }
    }

    /// A value that may be what a function returns.
    fn returned(&mut self, expr: &'ast Expr) {
        if is_returned_value(expr) {
            self.component(expr, "Return");
        }
    }
}

impl<'ast> Visit<'ast> for Walk<'_, 'ast> {
    fn visit_expr_if(&mut self, e: &'ast syn::ExprIf) {
        self.condition(&e.cond, "If");
        visit::visit_expr_if(self, e);
    }

    fn visit_expr_while(&mut self, e: &'ast syn::ExprWhile) {
        self.condition(&e.cond, "While");
        visit::visit_expr_while(self, e);
    }

    /// What a `match` examines, and what a `let` of a condition does: `Arg` sites when
    /// computed.
    fn visit_expr_match(&mut self, e: &'ast syn::ExprMatch) {
        if reports_scrutinee(&e.expr) {
            self.found(&e.expr, "Arg");
        }
        visit::visit_expr_match(self, e);
    }

    fn visit_expr_let(&mut self, e: &'ast syn::ExprLet) {
        if reports_scrutinee(&e.expr) {
            self.found(&e.expr, "Arg");
        }
        visit::visit_expr_let(self, e);
    }

    fn visit_pat_guard(&mut self, g: &'ast syn::PatGuard) {
        self.condition(&g.guard, "Guard");
        visit::visit_pat_guard(self, g);
    }

    fn visit_stmt(&mut self, stmt: &'ast Stmt) {
        match stmt {
            Stmt::Expr(expr, Some(_)) if reports_call(expr) => self.found(expr, "Call"),
            // A macro statement: a `Call` site, its hook put before it.
            Stmt::Macro(m) => (self.report)(Shape::Macro(&m.mac), "Call"),
            _ => {}
        }
        visit::visit_stmt(self, stmt);
    }

    fn visit_expr_call(&mut self, call: &'ast syn::ExprCall) {
        self.arguments(&call.args);
        visit::visit_expr_call(self, call);
    }

    fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
        self.arguments(&call.args);
        visit::visit_expr_method_call(self, call);
    }

    /// The computed values of a struct literal's fields, as a constructor's arguments.
    fn visit_expr_struct(&mut self, e: &'ast syn::ExprStruct) {
        for field in &e.fields {
            if is_field_value(&field.expr) {
                self.found(&field.expr, "Arg");
            }
        }
        visit::visit_expr_struct(self, e);
    }

    fn visit_local(&mut self, local: &'ast syn::Local) {
        if let Some(init) = &local.init
            && reports_let(&local.pat, &init.expr)
        {
            self.found(&init.expr, "Let");
        }
        visit::visit_local(self, local);
    }

    fn visit_expr_assign(&mut self, e: &'ast syn::ExprAssign) {
        if reports_assign(&e.left, &e.right) {
            self.found(&e.right, "Assign");
        }
        visit::visit_expr_assign(self, e);
    }

    fn visit_expr_binary(&mut self, e: &'ast syn::ExprBinary) {
        if is_compound(&e.op) {
            self.component(&e.right, "Compound");
        }
        visit::visit_expr_binary(self, e);
    }

    fn visit_expr_return(&mut self, e: &'ast syn::ExprReturn) {
        if let Some(value) = &e.expr {
            self.component(value, "Return");
        }
        visit::visit_expr_return(self, e);
    }

    fn visit_block(&mut self, block: &'ast syn::Block) {
        if let Some(Stmt::Expr(tail, None)) = block.stmts.last() {
            self.returned(tail);
        }
        visit::visit_block(self, block);
    }

    fn visit_expr_closure(&mut self, e: &'ast syn::ExprClosure) {
        if e.asyncness.is_some() || e.constness.is_some() {
            return visit::visit_expr_closure(self, e);
        }
        // The closure's value is a `Closure` site, its block's tail no `Return`.
        match &*e.body {
            Expr::Block(b) if b.label.is_none() => {
                for (i, stmt) in b.block.stmts.iter().enumerate() {
                    match stmt {
                        Stmt::Expr(tail, None) if i + 1 == b.block.stmts.len() => {
                            if reports_closure_value(tail) {
                                self.found(tail, "Closure");
                            }
                            self.visit_expr(tail);
                        }
                        other => self.visit_stmt(other),
                    }
                }
            }
            body => {
                if reports_closure_value(body) {
                    self.found(body, "Closure");
                }
                self.visit_expr(body);
            }
        }
    }

    fn visit_arm(&mut self, arm: &'ast syn::Arm) {
        // A `Return` where the match is the function's value, an `Arm` elsewhere.
        self.returned(&arm.body);
        if reports_arm(&arm.body) {
            self.found(&arm.body, "Arm");
        }
        visit::visit_arm(self, arm);
    }

    fn visit_expr_for_loop(&mut self, e: &'ast syn::ExprForLoop) {
        if reports_iterable(&e.expr) {
            self.found(&e.expr, "Arg");
        }
        if let Some((range, _)) = for_range(&e.expr) {
            if let Some(end) = range.end.as_deref() {
                self.component(end, "Bound");
            }
            if let Some(start) = range.start.as_deref() {
                self.component(start, "Start");
            }
        }
        visit::visit_expr_for_loop(self, e);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sites of the file `src`: kind and code.
    fn found(src: &str) -> Vec<(Kind, String)> {
        let file: syn::File = syn::parse_str(src).unwrap();
        let mut found = Vec::new();
        visit_file(&file, |shape, kind| {
            found.push((kind, quote::quote!(#shape).to_string()))
        });
        found
    }

    /// The code of the sites of `kind` among `found`.
    fn of(found: &[(Kind, String)], kind: Kind) -> Vec<&str> {
        (found.iter().filter(|(k, _)| *k == kind))
            .map(|(_, code)| code.as_str())
            .collect()
    }

    #[test]
    fn macro_statements_are_call_sites() {
        let found = found(
            "fn f(w: &mut W, n: usize) -> i64 {
                try!(w.flush());
                let v = vec![n];
                get_impl!(be => self, i64, n);
                g(|| { log!(n); })
            }",
        );
        assert_eq!(
            of(&found, "Call"),
            [
                "try ! (w . flush ())",
                "get_impl ! (be => self , i64 , n)",
                "log ! (n)"
            ]
        );
    }

    #[test]
    fn computed_scrutinees_of_matches_and_conditions() {
        let found = found(
            "fn f(s: &mut S, buf: &[u8], rest: &[u8]) {
                if let Some((a, b)) = s.parse(buf, rest) {}
                while let Some(x) = s.stack.pop() {}
                match s.n % 3 { _ => {} }
                match s.state { _ => {} }
                if let Some(ref x) = s.head {}
                if let Some(x) = &mut s.head {}
            }",
        );
        assert_eq!(
            of(&found, "Arg"),
            ["s . parse (buf , rest)", "s . stack . pop ()", "s . n % 3"]
        );
    }

    #[test]
    fn loop_iterables_and_calls_under_a_question_mark() {
        let found = found(
            "fn f(v: &mut Vec<u8>, w: &mut W, n: usize) -> std::io::Result<()> {
                for x in v.iter().skip(1) { w.write(x)?; }
                for i in (0..n).rev() { w.flush()?; }
                for x in &v {}
                for i in 0..n {}
                for x in v.drain(..) { w.put(x + 1)?; }
                Ok(())
            }",
        );
        let of = |kind| of(&found, kind);
        // With the calls' own arguments `1`, `..` and `()`.
        assert_eq!(
            of("Arg"),
            [
                "v . iter () . skip (1)",
                "1",
                "(0 .. n) . rev ()",
                "v . drain (..)",
                "..",
                "x + 1",
                "()"
            ]
        );
        assert_eq!(of("Call"), ["w . write (x) ?", "w . flush () ?"]);
        assert_eq!(of("Bound"), ["n", "n"]);
    }

    #[test]
    fn the_sites_of_a_file() {
        let found = found(
            "fn f(n: usize, v: &mut Vec<i32>, pair: (i32, i32)) -> i32 {
                let mut acc = 0;
                let (a, _) = pair;
                let m = n.max(n / 2);
                while acc < 10 && let Some(x) = v.pop() { acc += x; }
                for i in 1..n { v.push(i as i32 * 2); v.push(a); }
                match acc { x if x > 3 => x, _ => { panic!() } }
            }
            fn h(n: usize, s: &str) -> P {
                let first = P { len: n + 1, start: 0, name: &s[1..], tail };
                P { len: first.len, ..first }
            }
            fn g(v: &[i32]) -> usize {
                let mut n = 0;
                v.iter().for_each(|x| { n += *x as usize; });
                v.iter().filter(|x| **x % 2 == 1).map(|x| { let y = x * 2; y + 1 }).count() + n
            }",
        );
        let of = |kind| of(&found, kind);
        assert_eq!(
            of("Let"),
            [
                "0",
                "n . max (n / 2)",
                "P { len : n + 1 , start : 0 , name : & s [1 ..] , tail }",
                "0",
                "x * 2"
            ]
        );
        assert_eq!(of("Closure"), ["* * x % 2 == 1", "y + 1"]);
        assert!(of("While").is_empty());
        assert_eq!(of("Operand"), ["acc < 10"]);
        assert_eq!(of("Compound"), ["x", "* x as usize"]);
        assert_eq!(of("Bound"), ["n"]);
        assert_eq!(of("Start"), ["1"]);
        // Arguments of calls wherever they stand, and a struct literal's computed fields
        // that hold no borrow (not `&s[1..]`, not the places `tail` and `first.len`), and
        // what a condition's `let` examines (not the place `acc` the match examines).
        assert_eq!(
            of("Arg"),
            ["n / 2", "v . pop ()", "i as i32 * 2", "n + 1", "0"]
        );
        assert_eq!(
            of("Call"),
            [
                "v . push (a)",
                "v . iter () . for_each (| x | { n += * x as usize ; })"
            ]
        );
        assert_eq!(of("Guard"), ["x > 3"]);
        // The tail match's arm is its function's `Return`, and (named wherever it stands)
        // an `Arm`; a diverging arm is neither.
        assert_eq!(of("Arm"), ["x"]);
        assert_eq!(
            of("Return"),
            [
                "x",
                "P { len : first . len , .. first }",
                "v . iter () . filter (| x | * * x % 2 == 1) . map (| x | { let y = x * 2 ; y + 1 }) . count () + n"
            ]
        );
    }
}
