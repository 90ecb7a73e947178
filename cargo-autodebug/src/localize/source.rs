//! Static facts about sites, read from the source with syn: which variables a site's
//! statement defines and uses, and which code a branch controls. Dynamic slicing
//! ([`super::slice`]) joins these facts with the events of a trace; the trace alone knows
//! values, not names.
//!
//! Sites are found again by position: the macro records the start of the site's tokens
//! (the right-hand side of a `let`/assignment, the condition of a branch, the returned
//! expression, a loop's keyword), and so do we, with `proc-macro2`'s span locations.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use autodebug_runtime::protocol::{SiteInfo, SiteKind};
use autodebug_syntax::{is_and_or, is_compound, strip};
use syn::spanned::Spanned;
use syn::visit::{self, Visit};
use syn::{BinOp, Expr, Pat};

/// A 1-based line and 1-based character column, as sites give them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Pos {
    pub line: u32,
    pub column: u32,
}

impl Pos {
    /// The one conversion from `proc-macro2`'s 1-based line, 0-based column.
    fn from_line_column(lc: proc_macro2::LineColumn) -> Pos {
        let (line, column) = autodebug_syntax::position(lc);
        Pos { line, column }
    }

    /// Where a site starts.
    pub fn of_site(site: &SiteInfo) -> Pos {
        Pos {
            line: site.line,
            column: site.column,
        }
    }
}

/// A half-open range of source positions `[start, end)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Range {
    pub start: Pos,
    pub end: Pos,
}

impl Range {
    /// Whether `pos` lies inside the range.
    pub fn contains(&self, pos: Pos) -> bool {
        self.start <= pos && pos < self.end
    }

    /// The range of a syntax node, from the start of its first token to the end of its
    /// last, as the macro measures a site.
    fn of(node: &impl Spanned) -> Option<Range> {
        let span = node.span();
        let range = Range {
            start: Pos::from_line_column(span.start()),
            end: Pos::from_line_column(span.end()),
        };
        // An empty node spans the call site (line 0).
        (range.start.line > 0).then_some(range)
    }
}

/// Code a branch (or loop) controls: it runs only when the branch took `outcome`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Region {
    pub range: Range,
    pub outcome: bool,
}

/// What the source says about one site.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Facts {
    /// Variables the site's statement assigns (the `let` pattern, the root of an assigned
    /// place, a `for` loop's pattern).
    pub defs: Vec<String>,
    /// Variables the site's expression reads (for a compound assignment or an assignment
    /// into an element, the place's root too: the new value depends on the old one).
    pub uses: BTreeSet<String>,
    /// The code this branch or loop controls.
    pub regions: Vec<Region>,
}

/// Which site a fact belongs to: its start and a class of kinds (an `if` with a `&&`
/// condition and its first operand start at the same place).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Class {
    /// `let`, assignment, compound assignment.
    Statement,
    /// `if`, `while`, guard.
    Condition,
    /// An operand of `&&`/`||` in a condition.
    Operand,
    /// A `for`/`while`/`loop` head (iterations).
    Loop,
    /// Any other expression (returned values, loop bounds).
    Expr,
}

fn class_of(kind: SiteKind) -> Class {
    match kind {
        SiteKind::Let | SiteKind::Assign | SiteKind::Compound => Class::Statement,
        SiteKind::If | SiteKind::While | SiteKind::Guard => Class::Condition,
        SiteKind::Operand => Class::Operand,
        SiteKind::Loop => Class::Loop,
        _ => Class::Expr,
    }
}

/// The facts of every site-like position of one file.
#[derive(Debug, Default)]
pub struct FileFacts {
    facts: BTreeMap<(Pos, Class), Facts>,
}

impl FileFacts {
    /// Parses `text` (a whole Rust file). `None` when it does not parse.
    pub fn parse(text: &str) -> Option<FileFacts> {
        let file = autodebug_syntax::parse_file_by_item(text).ok()?.file;
        let mut walker = Walker::default();
        walker.visit_file(&file);
        Some(FileFacts {
            facts: walker.facts,
        })
    }

    /// The facts of `site`, if the source has a statement or expression where it starts.
    pub fn of(&self, site: &SiteInfo) -> Option<&Facts> {
        self.facts.get(&(Pos::of_site(site), class_of(site.kind)))
    }
}

/// Facts for every file a trace names, read once each. Files that cannot be read or parsed
/// yield no facts (slicing then sees only control flow and calls there).
#[derive(Debug, Default)]
pub struct SourceFacts {
    files: BTreeMap<String, Option<FileFacts>>,
}

impl SourceFacts {
    /// Reads and parses the files of `sites` (names as the compiler saw them, relative to
    /// `workspace_root` unless absolute).
    pub fn load<'a>(workspace_root: &Path, sites: impl Iterator<Item = &'a SiteInfo>) -> Self {
        let mut files = BTreeMap::new();
        for site in sites {
            files.entry(site.file.clone()).or_insert_with(|| {
                crate::workspace::read_source(workspace_root, &site.file)
                    .ok()
                    .and_then(|text| FileFacts::parse(&text))
            });
        }
        SourceFacts { files }
    }

    /// From already parsed files (tests).
    #[cfg(test)]
    pub fn from_files(files: impl IntoIterator<Item = (String, FileFacts)>) -> Self {
        SourceFacts {
            files: files
                .into_iter()
                .map(|(f, facts)| (f, Some(facts)))
                .collect(),
        }
    }

    /// The facts of `site`.
    pub fn of(&self, site: &SiteInfo) -> Option<&Facts> {
        self.files.get(&site.file)?.as_ref()?.of(site)
    }
}

#[derive(Default)]
struct Walker {
    facts: BTreeMap<(Pos, Class), Facts>,
}

impl Walker {
    fn entry(&mut self, node: &impl Spanned, class: Class) -> Option<&mut Facts> {
        let range = Range::of(node)?;
        Some(self.facts.entry((range.start, class)).or_default())
    }

    fn add(&mut self, node: &impl Spanned, class: Class, facts: Facts) {
        if let Some(entry) = self.entry(node, class) {
            entry.defs.extend(facts.defs);
            entry.uses.extend(facts.uses);
            entry.regions.extend(facts.regions);
        }
    }

    /// A condition: the whole, and each operand of a `&&`/`||` chain, which controls the
    /// operands to its right.
    fn condition(&mut self, cond: &Expr, regions: Vec<Region>) {
        self.add(
            cond,
            Class::Condition,
            Facts {
                uses: uses_of(cond),
                regions,
                ..Facts::default()
            },
        );
        self.operands(cond, &[]);
    }

    /// Records the operands of a chain. `controls` are the regions the operands of `expr`
    /// (the last one evaluated, really) decide on.
    fn operands(&mut self, expr: &Expr, controls: &[Region]) {
        match strip(expr) {
            Expr::Binary(b) if is_and_or(&b.op) => {
                let mut left_controls = controls.to_vec();
                if let Some(range) = Range::of(&b.right) {
                    left_controls.push(Region {
                        range,
                        outcome: matches!(b.op, BinOp::And(_)),
                    });
                }
                self.operands(&b.left, &left_controls);
                self.operands(&b.right, controls);
            }
            Expr::Let(_) => {}
            operand => self.add(
                operand,
                Class::Operand,
                Facts {
                    uses: uses_of(operand),
                    regions: controls.to_vec(),
                    ..Facts::default()
                },
            ),
        }
    }
}

fn region(node: &impl Spanned, outcome: bool) -> Vec<Region> {
    Range::of(node)
        .map(|range| Region { range, outcome })
        .into_iter()
        .collect()
}

impl<'ast> Visit<'ast> for Walker {
    fn visit_local(&mut self, local: &'ast syn::Local) {
        if let Some(init) = &local.init {
            let mut defs = Vec::new();
            pattern_names(&local.pat, &mut defs);
            self.add(
                &init.expr,
                Class::Statement,
                Facts {
                    defs,
                    uses: uses_of(&init.expr),
                    ..Facts::default()
                },
            );
        }
        visit::visit_local(self, local);
    }

    fn visit_expr(&mut self, expr: &'ast Expr) {
        // Every expression may be a returned value or a loop bound; the outermost one
        // starting at a position is the site (it is visited first).
        if let Some(range) = Range::of(expr) {
            self.facts
                .entry((range.start, Class::Expr))
                .or_insert_with(|| Facts {
                    uses: uses_of(expr),
                    ..Facts::default()
                });
        }
        match expr {
            Expr::Assign(a) => {
                let mut uses = uses_of(&a.right);
                let root = place_root(&a.left);
                if !matches!(strip(&a.left), Expr::Path(_)) {
                    // `v[i] = x`: the new `v` is the old one but for an element.
                    uses.extend(uses_of(&a.left));
                }
                self.add(
                    &a.right,
                    Class::Statement,
                    Facts {
                        defs: root.into_iter().collect(),
                        uses,
                        ..Facts::default()
                    },
                );
            }
            Expr::Binary(b) if is_compound(&b.op) => {
                let mut uses = uses_of(&b.right);
                uses.extend(uses_of(&b.left));
                self.add(
                    &b.right,
                    Class::Statement,
                    Facts {
                        defs: place_root(&b.left).into_iter().collect(),
                        uses,
                        ..Facts::default()
                    },
                );
            }
            Expr::If(e) => {
                let mut regions = region(&e.then_branch, true);
                if let Some((_, else_branch)) = &e.else_branch {
                    regions.extend(region(else_branch, false));
                }
                self.condition(&e.cond, regions);
            }
            Expr::While(e) => {
                self.condition(&e.cond, region(&e.body, true));
                let mut head = Facts {
                    regions: region(&e.body, true),
                    ..Facts::default()
                };
                head.uses = uses_of(&e.cond);
                self.add(&e.while_token, Class::Loop, head);
            }
            Expr::ForLoop(e) => {
                let mut defs = Vec::new();
                pattern_names(&e.pat, &mut defs);
                self.add(
                    &e.for_token,
                    Class::Loop,
                    Facts {
                        defs,
                        uses: uses_of(&e.expr),
                        regions: region(&e.body, true),
                    },
                );
            }
            Expr::Loop(e) => self.add(
                &e.loop_token,
                Class::Loop,
                Facts {
                    regions: region(&e.body, true),
                    ..Facts::default()
                },
            ),
            Expr::Match(m) => {
                for arm in &m.arms {
                    if let Pat::Guard(guard) = &arm.pat {
                        self.condition(&guard.guard, region(&arm.body, true));
                    }
                }
            }
            _ => {}
        }
        visit::visit_expr(self, expr);
    }
}

/// The variable a place belongs to (`x` of `x`, `x.f[i]`, `*x`).
fn place_root(expr: &Expr) -> Option<String> {
    match strip(expr) {
        Expr::Path(p) => p.path.get_ident().map(ToString::to_string),
        Expr::Field(f) => place_root(&f.base),
        Expr::Index(i) => place_root(&i.expr),
        Expr::Unary(u) => place_root(&u.expr),
        Expr::Tuple(t) => t.elems.iter().find_map(place_root),
        _ => None,
    }
}

/// The names a pattern binds.
fn pattern_names(pat: &Pat, out: &mut Vec<String>) {
    struct Names<'a>(&'a mut Vec<String>);
    impl<'ast> Visit<'ast> for Names<'_> {
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            self.0.push(p.ident.to_string());
            visit::visit_pat_ident(self, p);
        }
        // A guard is an expression, not a binding.
        fn visit_expr(&mut self, _: &'ast Expr) {}
    }
    Names(out).visit_pat(pat);
}

/// The local variables an expression reads: single-segment paths that are not called as
/// functions, and `self`. Closures' own parameters and macro arguments are not looked into
/// (a macro's tokens are not an expression).
pub(crate) fn uses_of(expr: &Expr) -> BTreeSet<String> {
    struct Uses(BTreeSet<String>);
    impl<'ast> Visit<'ast> for Uses {
        fn visit_expr(&mut self, expr: &'ast Expr) {
            match expr {
                Expr::Path(p) if p.qself.is_none() => {
                    if let Some(ident) = p.path.get_ident() {
                        self.0.insert(ident.to_string());
                    }
                }
                Expr::Call(c) => {
                    if !matches!(&*c.func, Expr::Path(_)) {
                        self.visit_expr(&c.func);
                    }
                    for arg in &c.args {
                        self.visit_expr(arg);
                    }
                }
                Expr::Closure(_) => {}
                _ => visit::visit_expr(self, expr),
            }
        }
    }
    let mut uses = Uses(BTreeSet::new());
    uses.visit_expr(expr);
    uses.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site(line: u32, column: u32, kind: SiteKind) -> SiteInfo {
        SiteInfo {
            file: "src/lib.rs".into(),
            line,
            column,
            end_line: line,
            end_column: column + 1,
            kind,
            code: String::new(),
            function: "f".into(),
        }
    }

    fn set(names: &[&str]) -> BTreeSet<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    const SRC: &str = "\
fn f(v: &[i32], n: usize) -> i32 {
    let mut acc = v[0] + n as i32;
    let (lo, hi) = (0, n);
    if acc > 3 && lo < hi {
        acc += g(hi);
    } else {
        v2[lo] = acc;
    }
    for i in 0..n {
        acc = acc - i as i32;
    }
    match acc { x if x > 1 => x, _ => acc * 2 }
}
";

    #[test]
    fn definitions_and_uses_of_statements() {
        let facts = FileFacts::parse(SRC).unwrap();
        let acc = facts.of(&site(2, 19, SiteKind::Let)).unwrap();
        assert_eq!(acc.defs, ["acc"]);
        assert_eq!(acc.uses, set(&["v", "n"]));
        let pair = facts.of(&site(3, 20, SiteKind::Let)).unwrap();
        assert_eq!(pair.defs, ["lo", "hi"]);
        assert_eq!(pair.uses, set(&["n"]));
        // `acc += g(hi)`: the callee is not a variable; the old `acc` is used.
        let compound = facts.of(&site(5, 16, SiteKind::Compound)).unwrap();
        assert_eq!(compound.defs, ["acc"]);
        assert_eq!(compound.uses, set(&["acc", "hi"]));
        let element = facts.of(&site(7, 18, SiteKind::Assign)).unwrap();
        assert_eq!(element.defs, ["v2"]);
        assert_eq!(element.uses, set(&["acc", "v2", "lo"]));
        let ret = facts.of(&site(12, 39, SiteKind::Return)).unwrap();
        assert_eq!(ret.uses, set(&["acc"]));
        assert!(facts.of(&site(2, 20, SiteKind::Let)).is_none());
    }

    #[test]
    fn branches_control_their_blocks_and_operands_the_rest_of_the_chain() {
        let facts = FileFacts::parse(SRC).unwrap();
        let cond = facts.of(&site(4, 8, SiteKind::If)).unwrap();
        assert_eq!(cond.uses, set(&["acc", "lo", "hi"]));
        let then = cond.regions[0];
        assert!(then.outcome && then.range.contains(Pos { line: 5, column: 9 }));
        assert!(!then.range.contains(Pos { line: 7, column: 9 }));
        let other = cond.regions[1];
        assert!(!other.outcome && other.range.contains(Pos { line: 7, column: 9 }));
        let first = facts.of(&site(4, 8, SiteKind::Operand)).unwrap();
        assert_eq!(first.uses, set(&["acc"]));
        assert_eq!(first.regions.len(), 1);
        assert!(first.regions[0].range.contains(Pos {
            line: 4,
            column: 19
        }));
        let second = facts.of(&site(4, 19, SiteKind::Operand)).unwrap();
        assert!(second.regions.is_empty());
        let head = facts.of(&site(9, 5, SiteKind::Loop)).unwrap();
        assert_eq!(head.defs, ["i"]);
        assert!(head.regions[0].range.contains(Pos {
            line: 10,
            column: 9
        }));
        let guard = facts.of(&site(12, 22, SiteKind::Guard)).unwrap();
        assert_eq!(guard.uses, set(&["x"]));
        assert!(guard.regions[0].range.contains(Pos {
            line: 12,
            column: 31
        }));
    }
}
