//! Static control dependence on the lowered IR, from post-dominators on each function's
//! control-flow graph (Ferrante, Ottenstein & Warren).
//!
//! The IR is structured but for `return`, `break`, `continue` and `panic!`: the statements
//! after `if x < 0 { return -1; }` are control dependent on `x < 0` although they are not
//! nested in it, and nesting alone would say they are not. So each function gets a
//! control-flow graph (conditions split at `&&`/`||` where the instrumentation reports the
//! operands, loops with their back edges, jumps with their targets), and a node is control
//! dependent on a branch when it post-dominates one successor of the branch but not the
//! branch itself. The function's entry is a branch to its exit (so that top-level nodes
//! depend on it), and so is a `loop` head (so that a loop without a reachable exit still has
//! post-dominators).
//!
//! Nodes are keyed by the address of the IR node they stand for, so a walker over the same
//! [`Program`] finds them without numbering anything twice.

use std::collections::HashMap;

use autodebug_runtime::protocol::SiteKey;

use crate::ir::{
    Component, Expr, ExprKind, Function, Iteration, Place, Program, Site, Stmt, UnOp, VarId,
};

/// Which part of an IR node a graph node is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Part {
    /// The function's entry.
    Entry,
    /// The function's exit.
    Exit,
    /// A statement (its effect).
    Stmt,
    /// The decision of a condition: an `if`/`while` condition, an operand of `&&`/`||`,
    /// a match guard, an `if` expression.
    Branch,
    /// A decision the instrumentation does not report (a match arm's pattern test, a
    /// `&&` operand without a site).
    Leaf,
    /// The head of a loop: one event per iteration.
    Head,
    /// Where a `while` loop's condition starts (the target of `continue`).
    Join,
}

/// The identity of a graph node: the address of its IR node and the part.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct NodeKey {
    addr: usize,
    part: Part,
}

impl NodeKey {
    pub(crate) fn stmt(s: &Stmt, part: Part) -> NodeKey {
        NodeKey {
            addr: s as *const Stmt as usize,
            part,
        }
    }

    pub(crate) fn expr(e: &Expr, part: Part) -> NodeKey {
        NodeKey {
            addr: e as *const Expr as usize,
            part,
        }
    }

    pub(crate) fn func(f: &Function, part: Part) -> NodeKey {
        NodeKey {
            addr: f as *const Function as usize,
            part,
        }
    }
}

/// A node of a function's graph.
#[derive(Debug, Clone)]
pub(crate) struct Node {
    /// The site its events name, when the instrumentation reports it (branches, loop heads,
    /// the entry).
    pub site: Option<SiteKey>,
    /// The source line it is on, when it has one (for the dependence graph).
    pub line: Option<u32>,
    /// Variables it writes, and whether it writes them whole (a `let`, `x = …`) rather
    /// than in part (`a[i] = …`).
    pub defs: Vec<VarId>,
    pub kills: bool,
    /// Variables it reads.
    pub uses: Vec<VarId>,
    /// Functions it calls.
    pub calls: Vec<String>,
}

/// The control-flow graph of one function and its control dependences.
#[derive(Debug)]
pub(crate) struct FnGraph {
    pub nodes: Vec<Node>,
    pub succ: Vec<Vec<(usize, Option<bool>)>>,
    pub index: HashMap<NodeKey, usize>,
    pub entry: usize,
    pub exit: usize,
    /// For each node, the branches (with the outcome) it is control dependent on.
    pub cd: Vec<Vec<(usize, Option<bool>)>>,
    /// For each node, the *event* nodes (reported branches, loop heads, the entry) it is
    /// control dependent on, through the decisions that have no events.
    pub event_cd: Vec<Vec<usize>>,
    /// Event nodes that are branches of loops: `while` conditions (and their operands),
    /// and the conditions of branches that `break` or `continue` an enclosing loop.
    pub loop_branch: Vec<bool>,
}

impl FnGraph {
    /// The node of `key`, if the graph has one.
    pub(crate) fn node(&self, key: NodeKey) -> Option<usize> {
        self.index.get(&key).copied()
    }

    /// Whether node `n` has events.
    pub(crate) fn is_event(&self, n: usize) -> bool {
        self.nodes[n].site.is_some()
    }
}

/// The graphs of every function of a program, by function name.
#[derive(Debug, Default)]
pub(crate) struct Graphs {
    pub by_fn: HashMap<String, FnGraph>,
}

impl Graphs {
    /// The graphs of `program`'s functions.
    pub(crate) fn of(program: &Program) -> Graphs {
        let by_fn = program
            .functions
            .iter()
            .map(|f| (f.name.clone(), FnGraph::build(program, f)))
            .collect();
        Graphs { by_fn }
    }

    /// The graph of function `name`.
    pub(crate) fn get(&self, name: &str) -> Option<&FnGraph> {
        self.by_fn.get(name)
    }
}

type Edges = Vec<(usize, Option<bool>)>;

struct LoopTarget {
    label: Option<String>,
    /// Where `continue` goes.
    target: usize,
    breaks: Edges,
    /// Depth of the open-branch stack when the loop started.
    open_at: usize,
}

struct Builder<'p> {
    program: &'p Program,
    func: &'p Function,
    nodes: Vec<Node>,
    succ: Vec<Vec<(usize, Option<bool>)>>,
    index: HashMap<NodeKey, usize>,
    exit: usize,
    loops: Vec<LoopTarget>,
    /// Event nodes of the conditions of the branches being walked (innermost last).
    open: Vec<Vec<usize>>,
    loop_branch: Vec<bool>,
}

fn site_key(program: &Program, site: &Site) -> SiteKey {
    SiteKey {
        file: program.file.clone(),
        line: site.span.start.line,
        column: site.span.start.column,
        kind: site.kind,
    }
}

impl<'p> Builder<'p> {
    fn node(&mut self, key: NodeKey, site: Option<&Site>, line: Option<u32>) -> usize {
        if let Some(&n) = self.index.get(&key) {
            return n;
        }
        let reported = site.filter(|s| s.reported && self.func.instrumented);
        let n = self.nodes.len();
        self.nodes.push(Node {
            site: reported.map(|s| site_key(self.program, s)),
            line: line.or_else(|| site.map(|s| s.span.start.line)),
            defs: Vec::new(),
            kills: true,
            uses: Vec::new(),
            calls: Vec::new(),
        });
        self.succ.push(Vec::new());
        self.loop_branch.push(false);
        self.index.insert(key, n);
        n
    }

    fn connect(&mut self, from: &Edges, to: usize) {
        for &(f, label) in from {
            if !self.succ[f].contains(&(to, label)) {
                self.succ[f].push((to, label));
            }
        }
    }

    /// A branch node deciding on `cond`: `preds` flow into it; its two outcomes leave it.
    fn branch(
        &mut self,
        key: NodeKey,
        site: Option<&Site>,
        cond: &Expr,
        preds: &Edges,
    ) -> (Edges, Edges) {
        let n = self.node(key, site, None);
        self.connect(preds, n);
        reads(cond, &mut self.nodes[n]);
        if self.nodes[n].site.is_some()
            && let Some(open) = self.open.last_mut()
        {
            open.push(n);
        }
        (vec![(n, Some(true))], vec![(n, Some(false))])
    }

    fn block(&mut self, stmts: &'p [Stmt], mut preds: Edges) -> Edges {
        for s in stmts {
            preds = self.stmt(s, preds);
        }
        preds
    }

    /// Node `n`, with what the expressions of statement `s` read recorded as its uses.
    fn reading(&mut self, s: &'p Stmt, n: usize) -> &mut Node {
        let mut exprs: Vec<&Expr> = Vec::new();
        s.exprs(&mut |e| exprs.push(e));
        let node = &mut self.nodes[n];
        for e in exprs {
            reads(e, node);
        }
        node
    }

    fn simple(&mut self, s: &'p Stmt, preds: Edges, line: Option<u32>) -> Edges {
        let n = self.node(NodeKey::stmt(s, Part::Stmt), None, line);
        self.connect(&preds, n);
        let node = self.reading(s, n);
        match s {
            Stmt::Let { var, .. } => node.defs.push(*var),
            Stmt::Assign { place, .. } => {
                node.defs.push(place.root());
                if !matches!(place, Place::Var(_)) {
                    node.kills = false;
                    node.uses.push(place.root());
                }
            }
            Stmt::Opaque { defines, .. } => node.defs.extend(defines),
            _ => {}
        }
        vec![(n, None)]
    }

    fn stmt(&mut self, s: &'p Stmt, preds: Edges) -> Edges {
        let comp_line = |c: &Option<Component>| c.as_ref().map(|c| c.site.span.start.line);
        match s {
            Stmt::Let {
                init, component, ..
            } => {
                let p = match init {
                    Some(e) => self.expr(e, preds),
                    None => preds,
                };
                self.simple(s, p, comp_line(component))
            }
            Stmt::Assign {
                place,
                value,
                component,
            } => {
                let mut p = self.expr(value, preds);
                let mut indices = Vec::new();
                place_exprs(place, &mut indices);
                for e in indices {
                    p = self.expr(e, p);
                }
                self.simple(s, p, comp_line(component))
            }
            Stmt::Expr(e) => {
                let p = self.expr(e, preds);
                self.simple(s, p, None)
            }
            Stmt::Assert { cond, span, .. } => {
                let p = self.expr(cond, preds);
                self.simple(s, p, Some(span.start.line))
            }
            Stmt::Opaque { span, .. } => self.simple(s, preds, Some(span.start.line)),
            Stmt::If {
                cond,
                branch,
                then,
                otherwise,
            } => {
                self.open.push(Vec::new());
                let (t, f) = match branch {
                    Some(c) => {
                        // The whole condition is evaluated (its operands reported on the
                        // way), then the `if` decides.
                        let p = self.expr(cond, preds);
                        self.branch(NodeKey::stmt(s, Part::Branch), Some(&c.site), cond, &p)
                    }
                    None => self.cond(cond, preds),
                };
                let a = self.block(then, t);
                let b = self.block(otherwise, f);
                self.open.pop();
                a.into_iter().chain(b).collect()
            }
            Stmt::While {
                label,
                cond,
                branch,
                head,
                body,
            } => self.while_loop(s, (cond, branch.as_ref()), (label, head, body), preds),
            Stmt::Loop { label, head, body } => {
                let h = self.node(NodeKey::stmt(s, Part::Head), Some(head), None);
                self.connect(&preds, h);
                // Never taken: keeps the post-dominators of a loop without a reachable
                // exit defined, and makes the body depend on the head.
                let exit = self.exit;
                self.connect(&vec![(h, Some(false))], exit);
                self.looped(label, h, h, body, Vec::new())
            }
            Stmt::For {
                label,
                iteration,
                head,
                body,
                ..
            } => self.for_loop(s, iteration, (label, head, body), preds),
            Stmt::Break(label) => self.jump(label.as_deref(), true, preds),
            Stmt::Continue(label) => self.jump(label.as_deref(), false, preds),
            Stmt::Return { value, component } => {
                let p = match value {
                    Some(e) => self.expr(e, preds),
                    None => preds,
                };
                let n = self.simple(s, p, comp_line(component));
                let exit = self.exit;
                self.connect(&n, exit);
                Vec::new()
            }
            Stmt::Panic { span, .. } => {
                let n = self.simple(s, preds, Some(span.start.line));
                let exit = self.exit;
                self.connect(&n, exit);
                Vec::new()
            }
        }
    }

    /// A `while` loop: the condition at a join of the entry and the back edges, every
    /// branch in it a loop branch, the body entered where it holds.
    fn while_loop(
        &mut self,
        s: &'p Stmt,
        (cond, branch): (&'p Expr, Option<&'p Component>),
        (label, head, body): (&Option<String>, &'p Site, &'p [Stmt]),
        preds: Edges,
    ) -> Edges {
        let join = self.node(NodeKey::stmt(s, Part::Join), None, None);
        self.connect(&preds, join);
        let start = self.nodes.len();
        let (t, f) = match branch {
            Some(c) => {
                let p = self.expr(cond, vec![(join, None)]);
                self.branch(NodeKey::stmt(s, Part::Branch), Some(&c.site), cond, &p)
            }
            None => self.cond(cond, vec![(join, None)]),
        };
        for n in start..self.nodes.len() {
            if self.nodes[n].site.is_some() {
                self.loop_branch[n] = true;
            }
        }
        let h = self.node(NodeKey::stmt(s, Part::Head), Some(head), None);
        self.connect(&t, h);
        self.looped(label, join, h, body, f)
    }

    /// A `for` loop: its range or sequence evaluated once, then a head that reads it and
    /// defines the loop's variables, the loop's exit.
    fn for_loop(
        &mut self,
        s: &'p Stmt,
        iteration: &'p Iteration,
        (label, head, body): (&Option<String>, &'p Site, &'p [Stmt]),
        preds: Edges,
    ) -> Edges {
        let p = match iteration {
            Iteration::Range { start, end, .. } => {
                let p = self.expr(start, preds);
                self.expr(end, p)
            }
            Iteration::Elements { seq, .. } => self.expr(seq, preds),
        };
        let h = self.node(NodeKey::stmt(s, Part::Head), Some(head), None);
        self.connect(&p, h);
        let node = self.reading(s, h);
        if let Stmt::For { var, iteration, .. } = s {
            node.defs.push(*var);
            if let Iteration::Elements {
                index: Some(index), ..
            } = iteration
            {
                node.defs.push(*index);
            }
        }
        self.looped(label, h, h, body, vec![(h, Some(false))])
    }

    /// A `break` (or `continue`) out of the loop labelled `label` (the innermost when
    /// `None`): the branches it leaves open are loop branches.
    fn jump(&mut self, label: Option<&str>, is_break: bool, preds: Edges) -> Edges {
        if let Some(at) = crate::ir::loop_target(&self.loops, label, |lc| lc.label.as_deref()) {
            let open_at = self.loops[at].open_at;
            for open in &self.open[open_at..] {
                for &n in open {
                    self.loop_branch[n] = true;
                }
            }
            if is_break {
                self.loops[at].breaks.extend(preds);
            } else {
                let target = self.loops[at].target;
                self.connect(&preds, target);
            }
        }
        Vec::new()
    }

    /// The body of a loop whose `continue` goes to `target`, entered from `head` (its taken
    /// outcome); `exits` leave the loop besides its `break`s.
    fn looped(
        &mut self,
        label: &Option<String>,
        target: usize,
        head: usize,
        body: &'p [Stmt],
        exits: Edges,
    ) -> Edges {
        self.loops.push(LoopTarget {
            label: label.clone(),
            target,
            breaks: Vec::new(),
            open_at: self.open.len(),
        });
        let end = self.block(body, vec![(head, Some(true))]);
        self.connect(&end, target);
        let lc = self.loops.pop().map(|l| l.breaks).unwrap_or_default();
        exits.into_iter().chain(lc).collect()
    }

    /// Walks `e` in evaluation order from `preds`, with nodes for the decisions inside it.
    fn expr(&mut self, e: &'p Expr, preds: Edges) -> Edges {
        match &e.kind {
            ExprKind::Binary(op @ (crate::ir::BinOp::And | crate::ir::BinOp::Or), a, b)
                if has_decisions(b) =>
            {
                let (t, f) = self.cond(a, preds);
                if *op == crate::ir::BinOp::And {
                    let after = self.expr(b, t);
                    f.into_iter().chain(after).collect()
                } else {
                    let after = self.expr(b, f);
                    t.into_iter().chain(after).collect()
                }
            }
            ExprKind::Branch(inner, comp) => {
                let p = self.expr(inner, preds);
                let (t, f) =
                    self.branch(NodeKey::expr(e, Part::Branch), Some(&comp.site), inner, &p);
                t.into_iter().chain(f).collect()
            }
            ExprKind::If {
                cond,
                branch,
                then,
                otherwise,
            } => {
                let (t, f) = match branch {
                    Some(c) => {
                        let p = self.expr(cond, preds);
                        self.branch(NodeKey::expr(e, Part::Branch), Some(&c.site), cond, &p)
                    }
                    None => self.cond(cond, preds),
                };
                let a = self.expr(then, t);
                let b = self.expr(otherwise, f);
                a.into_iter().chain(b).collect()
            }
            _ => {
                let mut p = preds;
                for child in e.operands() {
                    p = self.expr(child, p);
                }
                p
            }
        }
    }

    /// Walks the condition `e` from `preds`: the edges leaving it true and false.
    fn cond(&mut self, e: &'p Expr, preds: Edges) -> (Edges, Edges) {
        match &e.kind {
            ExprKind::Binary(crate::ir::BinOp::And, a, b) => {
                let (ta, fa) = self.cond(a, preds);
                let (tb, fb) = self.cond(b, ta);
                (tb, fa.into_iter().chain(fb).collect())
            }
            ExprKind::Binary(crate::ir::BinOp::Or, a, b) => {
                let (ta, fa) = self.cond(a, preds);
                let (tb, fb) = self.cond(b, fa);
                (ta.into_iter().chain(tb).collect(), fb)
            }
            ExprKind::Unary(UnOp::Not, a) if a.ty == crate::ir::Type::Bool => {
                let (t, f) = self.cond(a, preds);
                (f, t)
            }
            ExprKind::Branch(inner, comp) => {
                let p = self.expr(inner, preds);
                self.branch(NodeKey::expr(e, Part::Branch), Some(&comp.site), inner, &p)
            }
            _ => {
                let p = self.expr(e, preds);
                self.branch(NodeKey::expr(e, Part::Leaf), None, e, &p)
            }
        }
    }
}

/// Records what `e` reads (variables, callees, the places calls write back) on `node`.
fn reads(e: &Expr, node: &mut Node) {
    e.walk(&mut |x| match &x.kind {
        ExprKind::Var(v) if !node.uses.contains(v) => node.uses.push(*v),
        ExprKind::Call {
            function, outputs, ..
        } => {
            node.calls.push(function.clone());
            for (_, place) in outputs {
                node.defs.push(place.root());
            }
        }
        ExprKind::Opaque { defines, .. } => node.defs.extend(defines),
        _ => {}
    });
}

/// The expressions of a place (its indices), in evaluation order.
fn place_exprs<'a>(place: &'a crate::ir::Place, out: &mut Vec<&'a Expr>) {
    match place {
        crate::ir::Place::Var(_) => {}
        crate::ir::Place::Index(p, i) => {
            place_exprs(p, out);
            out.push(i);
        }
        crate::ir::Place::Field(p, _) | crate::ir::Place::TupleField(p, _) => place_exprs(p, out),
    }
}

/// Whether `e` holds a decision of its own (a reported operand, an `if` expression).
fn has_decisions(e: &Expr) -> bool {
    let mut found = false;
    e.walk(&mut |x| {
        if matches!(x.kind, ExprKind::Branch(..) | ExprKind::If { .. }) {
            found = true;
        }
    });
    found
}

impl FnGraph {
    /// Builds the graph of `func` and its control dependences.
    pub(crate) fn build(program: &Program, func: &Function) -> FnGraph {
        let mut b = Builder {
            program,
            func,
            nodes: Vec::new(),
            succ: Vec::new(),
            index: HashMap::new(),
            exit: 0,
            loops: Vec::new(),
            open: Vec::new(),
            loop_branch: Vec::new(),
        };
        let entry = b.node(
            NodeKey::func(func, Part::Entry),
            Some(&func.entry),
            Some(func.entry.span.start.line),
        );
        b.nodes[entry].defs.extend(&func.params);
        let exit = b.node(NodeKey::func(func, Part::Exit), None, None);
        b.exit = exit;
        // The entry is a branch to the exit, so that what runs at top level depends on it.
        b.succ[entry].push((exit, Some(false)));
        let end = b.block(&func.body, vec![(entry, Some(true))]);
        b.connect(&end, exit);
        let (nodes, succ, index, loop_branch) = (b.nodes, b.succ, b.index, b.loop_branch);
        let cd = control_dependence(&succ, exit);
        let mut graph = FnGraph {
            nodes,
            succ,
            index,
            entry,
            exit,
            cd,
            event_cd: Vec::new(),
            loop_branch,
        };
        graph.event_cd = (0..graph.nodes.len())
            .map(|n| {
                let mut out = Vec::new();
                let mut seen = vec![false; graph.nodes.len()];
                graph.event_controls(n, &mut out, &mut seen);
                out
            })
            .collect();
        graph
    }

    fn event_controls(&self, n: usize, out: &mut Vec<usize>, seen: &mut [bool]) {
        for &(c, _) in &self.cd[n] {
            if seen[c] {
                continue;
            }
            seen[c] = true;
            if self.is_event(c) || c == self.entry {
                if !out.contains(&c) {
                    out.push(c);
                }
            } else {
                self.event_controls(c, out, seen);
            }
        }
    }
}

/// Post-dominator sets by the iterative data-flow algorithm, then control dependence:
/// for every edge `a → b` where `b` does not post-dominate `a`, the nodes from `b` up the
/// post-dominator tree to (not including) `a`'s immediate post-dominator depend on `a`.
fn control_dependence(
    succ: &[Vec<(usize, Option<bool>)>],
    exit: usize,
) -> Vec<Vec<(usize, Option<bool>)>> {
    let n = succ.len();
    let words = n.div_ceil(64);
    let full = vec![u64::MAX; words];
    let mut pdom: Vec<Vec<u64>> = vec![full; n];
    let set = |v: &mut Vec<u64>, i: usize| v[i / 64] |= 1 << (i % 64);
    let has = |v: &[u64], i: usize| v[i / 64] >> (i % 64) & 1 == 1;
    pdom[exit] = vec![0; words];
    set(&mut pdom[exit], exit);
    let mut changed = true;
    while changed {
        changed = false;
        for v in (0..n).rev() {
            if v == exit {
                continue;
            }
            let mut acc: Option<Vec<u64>> = None;
            for &(s, _) in &succ[v] {
                acc = Some(match acc {
                    None => pdom[s].clone(),
                    Some(a) => a.iter().zip(&pdom[s]).map(|(x, y)| x & y).collect(),
                });
            }
            // A node with no way to the exit post-dominates only itself.
            let mut new = acc.unwrap_or_else(|| vec![0; words]);
            set(&mut new, v);
            if new != pdom[v] {
                pdom[v] = new;
                changed = true;
            }
        }
    }
    let count = |v: &[u64]| v.iter().map(|w| w.count_ones()).sum::<u32>();
    // The immediate post-dominator: the strict post-dominator with the largest set.
    let ipdom: Vec<Option<usize>> = (0..n)
        .map(|v| {
            (0..n)
                .filter(|&d| d != v && has(&pdom[v], d))
                .max_by_key(|&d| count(&pdom[d]))
        })
        .collect();
    let mut cd: Vec<Vec<(usize, Option<bool>)>> = vec![Vec::new(); n];
    for a in 0..n {
        for &(b, label) in &succ[a] {
            if b != a && has(&pdom[a], b) {
                continue;
            }
            let stop = ipdom[a];
            let mut runner = Some(b);
            let mut steps = 0;
            while let Some(r) = runner {
                if Some(r) == stop || steps > n {
                    break;
                }
                if !cd[r].contains(&(a, label)) {
                    cd[r].push((a, label));
                }
                runner = ipdom[r];
                steps += 1;
            }
        }
    }
    cd
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(src: &str, name: &str) -> (Program, String) {
        let p = Program::from_source(src, "src/lib.rs").unwrap();
        (p, name.to_string())
    }

    /// The lines of the event nodes node `line`'s branch depends on.
    fn deps(g: &FnGraph, line: u32) -> Vec<u32> {
        let n = (0..g.nodes.len())
            .find(|&n| g.nodes[n].site.is_some() && g.nodes[n].line == Some(line) && n != g.entry)
            .unwrap();
        let mut out: Vec<u32> = g.event_cd[n]
            .iter()
            .map(|&c| g.nodes[c].line.unwrap())
            .collect();
        out.sort();
        out
    }

    #[test]
    fn early_return_makes_later_branches_depend_on_it() {
        let (p, name) = graph(
            "#[autodebug]\nfn f(x: i32, y: i32) -> i32 {\n    if x < 0 {\n        return -1;\n    }\n    if y > 0 {\n        return 1;\n    }\n    0\n}\n",
            "f",
        );
        let g = FnGraph::build(&p, p.function(&name).unwrap());
        assert_eq!(deps(&g, 3), [2]); // `if x < 0` on the entry (line 2)
        assert_eq!(deps(&g, 6), [3]); // `if y > 0` on `x < 0`, not nested in it
    }

    #[test]
    fn loops_operands_and_loop_branches() {
        let (p, name) = graph(
            "#[autodebug]\nfn f(a: &[i32], n: usize) -> i32 {\n    let mut s = 0;\n    for i in 0..n {\n        if a[i] < 0 {\n            break;\n        }\n        if a[i] > 5 && s > 2 {\n            s += 1;\n        }\n    }\n    while s > 10 {\n        s -= 3;\n    }\n    s\n}\n",
            "f",
        );
        let g = FnGraph::build(&p, p.function(&name).unwrap());
        // The body depends on the loop head (line 4); the second `if` also on the `break`.
        assert_eq!(deps(&g, 5), [4]);
        let at = |line: u32, kind| {
            (0..g.nodes.len())
                .find(|&n| {
                    g.nodes[n]
                        .site
                        .as_ref()
                        .is_some_and(|s| s.line == line && s.kind == kind)
                })
                .unwrap()
        };
        use autodebug_runtime::protocol::SiteKind;
        let second = at(8, SiteKind::If);
        let mut on: Vec<u32> = g.event_cd[second]
            .iter()
            .map(|&c| g.nodes[c].line.unwrap())
            .collect();
        on.sort();
        assert_eq!(on, [5]);
        // `s > 2` is evaluated only when `a[i] > 5` holds.
        let operand = (0..g.nodes.len())
            .filter(|&n| {
                g.nodes[n]
                    .site
                    .as_ref()
                    .is_some_and(|s| s.kind == SiteKind::Operand)
            })
            .max_by_key(|&n| g.nodes[n].site.as_ref().unwrap().column)
            .unwrap();
        assert_eq!(
            g.event_cd[operand]
                .iter()
                .map(|&c| g.nodes[c].site.as_ref().unwrap().column)
                .collect::<Vec<_>>(),
            [12]
        );
        assert!(
            g.loop_branch[at(5, SiteKind::If)],
            "the branch that breaks the loop"
        );
        assert!(!g.loop_branch[second]);
        assert!(g.loop_branch[at(12, SiteKind::While)]);
        // The head of the `while` depends on its condition, the condition on itself
        // (through the back edge) and on the entry.
        let w = at(12, SiteKind::While);
        assert!(g.cd[w].iter().any(|&(c, _)| c == w));
    }
}
