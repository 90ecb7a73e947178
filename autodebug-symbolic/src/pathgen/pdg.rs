//! The program dependence graph of a file and the Renieris–Reiss score of a bug report on
//! it (section 5.2 of the paper): the share of the graph a developer who starts at the
//! reported statements and searches breadth first along dependences does not have to read
//! before meeting the faulty statement.
//!
//! Nodes are the statements and conditions of the file's functions (those of `tests`
//! modules left out); edges are control dependences (from post-dominators, see `cfg`), data
//! dependences (reaching definitions of each variable over the control-flow graph), and
//! for each call an edge to the callee's entry and from the callee's returns.

use std::collections::{BTreeSet, HashMap, VecDeque};

use super::cfg::{FnGraph, Graphs};
use crate::ir::{Program, VarId};

/// A statement of the graph.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PdgNode {
    /// The function it is in.
    pub function: String,
    /// Its line.
    pub line: u32,
}

/// A program dependence graph.
#[derive(Debug, Clone, Default)]
pub struct Pdg {
    pub nodes: Vec<PdgNode>,
    /// Directed dependence edges `(from, to)`: `to` depends on `from`.
    pub edges: Vec<(usize, usize)>,
}

impl Pdg {
    /// The dependence graph of `program` (its test modules left out).
    pub fn of(program: &Program) -> Pdg {
        let graphs = Graphs::of(program);
        let mut pdg = Pdg::default();
        // Per function: graph node → PDG node.
        let mut maps: HashMap<&str, Vec<Option<usize>>> = HashMap::new();
        let functions: Vec<&crate::ir::Function> = program
            .functions
            .iter()
            .filter(|f| !f.module.iter().any(|m| m == "tests"))
            .collect();
        for f in &functions {
            let Some(g) = graphs.get(&f.name) else {
                continue;
            };
            let map: Vec<Option<usize>> = g
                .nodes
                .iter()
                .map(|n| {
                    n.line.map(|line| {
                        pdg.nodes.push(PdgNode {
                            function: f.name.clone(),
                            line,
                        });
                        pdg.nodes.len() - 1
                    })
                })
                .collect();
            maps.insert(&f.name, map);
        }
        let mut edges: BTreeSet<(usize, usize)> = BTreeSet::new();
        for f in &functions {
            let (Some(g), Some(map)) = (graphs.get(&f.name), maps.get(f.name.as_str())) else {
                continue;
            };
            for (to, from) in control_edges(g) {
                if let (Some(a), Some(b)) = (map[from], map[to]) {
                    edges.insert((a, b));
                }
            }
            for (from, to) in data_edges(g) {
                if let (Some(a), Some(b)) = (map[from], map[to]) {
                    edges.insert((a, b));
                }
            }
            for (n, node) in g.nodes.iter().enumerate() {
                let Some(site) = map[n] else { continue };
                for callee in &node.calls {
                    let Some(c) = program.function(callee) else {
                        continue;
                    };
                    let (Some(cg), Some(cmap)) = (graphs.get(&c.name), maps.get(c.name.as_str()))
                    else {
                        continue;
                    };
                    if let Some(entry) = cmap[cg.entry] {
                        edges.insert((site, entry));
                    }
                    for (r, rnode) in cg.nodes.iter().enumerate() {
                        let returns = cg.succ[r].iter().any(|&(s, _)| s == cg.exit)
                            && r != cg.entry
                            && rnode.line.is_some();
                        if returns && let Some(ret) = cmap[r] {
                            edges.insert((ret, site));
                        }
                    }
                }
            }
        }
        pdg.edges = edges.into_iter().collect();
        pdg
    }

    /// The Renieris–Reiss score of a report blaming the statements on `blamed` lines when
    /// the fault is on `faulty` lines: `1 - |DS*| / |PDG|`, where `DS(n)` holds the nodes
    /// that reach or are reached from a blamed node in at most `n` edges and `DS*` is the
    /// first that holds a faulty node. An empty report scores 0; `None` when no node is on
    /// a faulty line (the fault is outside the graph: an omission, a constant).
    pub fn score(&self, blamed: &[u32], faulty: &[u32]) -> Option<f64> {
        let on = |lines: &[u32]| -> Vec<usize> {
            (0..self.nodes.len())
                .filter(|&i| lines.contains(&self.nodes[i].line))
                .collect()
        };
        let faulty = on(faulty);
        if faulty.is_empty() || self.nodes.is_empty() {
            return None;
        }
        let start = on(blamed);
        if start.is_empty() {
            return Some(0.0);
        }
        let mut fwd: Vec<Vec<usize>> = vec![Vec::new(); self.nodes.len()];
        let mut bwd: Vec<Vec<usize>> = vec![Vec::new(); self.nodes.len()];
        for &(a, b) in &self.edges {
            fwd[a].push(b);
            bwd[b].push(a);
        }
        let layers = |adj: &[Vec<usize>]| -> Vec<usize> {
            // Distance of every node from the blamed ones along `adj`.
            let mut d = vec![usize::MAX; self.nodes.len()];
            let mut queue = VecDeque::new();
            for &s in &start {
                d[s] = 0;
                queue.push_back(s);
            }
            while let Some(x) = queue.pop_front() {
                for &y in &adj[x] {
                    if d[y] == usize::MAX {
                        d[y] = d[x] + 1;
                        queue.push_back(y);
                    }
                }
            }
            d
        };
        let (df, db) = (layers(&fwd), layers(&bwd));
        let depth: Vec<usize> = (0..self.nodes.len()).map(|i| df[i].min(db[i])).collect();
        let Some(n) = faulty
            .iter()
            .map(|&f| depth[f])
            .min()
            .filter(|&n| n != usize::MAX)
        else {
            return Some(0.0);
        };
        let size = depth.iter().filter(|&&d| d <= n).count();
        Some(1.0 - size as f64 / self.nodes.len() as f64)
    }
}

/// Control dependence edges `(dependent, controller)` between nodes with lines: a
/// controller without a line (a match arm's test) is looked through.
fn control_edges(g: &FnGraph) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for n in 0..g.nodes.len() {
        if g.nodes[n].line.is_none() {
            continue;
        }
        let mut seen = vec![false; g.nodes.len()];
        let mut stack: Vec<usize> = g.cd[n].iter().map(|&(c, _)| c).collect();
        while let Some(c) = stack.pop() {
            if std::mem::replace(&mut seen[c], true) {
                continue;
            }
            if g.nodes[c].line.is_some() {
                if c != n {
                    out.push((n, c));
                }
            } else {
                stack.extend(g.cd[c].iter().map(|&(x, _)| x));
            }
        }
    }
    out
}

/// Data dependence edges `(definition, use)` by reaching definitions.
fn data_edges(g: &FnGraph) -> Vec<(usize, usize)> {
    let n = g.nodes.len();
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (a, succ) in g.succ.iter().enumerate() {
        for &(b, _) in succ {
            preds[b].push(a);
        }
    }
    // Definitions reaching the entry of each node: (node, variable).
    let mut out_sets: Vec<BTreeSet<(usize, VarId)>> = vec![BTreeSet::new(); n];
    let mut changed = true;
    while changed {
        changed = false;
        for v in 0..n {
            let mut inn: BTreeSet<(usize, VarId)> = BTreeSet::new();
            for &p in &preds[v] {
                inn.extend(out_sets[p].iter().copied());
            }
            let node = &g.nodes[v];
            let mut out: BTreeSet<(usize, VarId)> = if node.kills {
                inn.into_iter()
                    .filter(|(_, var)| !node.defs.contains(var))
                    .collect()
            } else {
                inn
            };
            for &d in &node.defs {
                out.insert((v, d));
            }
            if out != out_sets[v] {
                out_sets[v] = out;
                changed = true;
            }
        }
    }
    let mut edges = Vec::new();
    for (v, (node, into)) in g.nodes.iter().zip(&preds).enumerate() {
        if node.uses.is_empty() {
            continue;
        }
        let mut reaching: BTreeSet<(usize, VarId)> = BTreeSet::new();
        for &p in into {
            reaching.extend(out_sets[p].iter().copied());
        }
        for (d, var) in reaching {
            if node.uses.contains(&var) && d != v {
                edges.push((d, v));
            }
        }
    }
    edges
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = "#[autodebug]
fn f(x: i32, y: i32) -> i32 {
    let a = x + 1;
    let b = y * 2;
    let mut r = 0;
    if a > 3 {
        r = a;
    }
    let c = b - 1;
    r + c
}
";

    #[test]
    fn dependences_and_the_score() {
        let p = Program::from_source(SRC, "src/lib.rs").unwrap();
        let pdg = Pdg::of(&p);
        let lines: BTreeSet<u32> = pdg.nodes.iter().map(|n| n.line).collect();
        assert_eq!(lines, (2..=10).filter(|&l| l != 8).collect());
        let has = |from: u32, to: u32| {
            pdg.edges
                .iter()
                .any(|&(a, b)| pdg.nodes[a].line == from && pdg.nodes[b].line == to)
        };
        assert!(has(3, 6), "a > 3 reads a");
        assert!(has(6, 7), "r = a depends on a > 3");
        assert!(has(3, 7), "r = a reads a");
        assert!(
            has(7, 10) && has(5, 10),
            "r reaches the return from both definitions"
        );
        assert!(has(4, 9) && !has(3, 9));
        // Blaming the faulty line itself: DS(0) is that one node of 9.
        let total = pdg.nodes.len() as f64;
        assert_eq!(pdg.score(&[7], &[7]), Some(1.0 - 1.0 / total));
        // Blaming `a > 3` with the fault in `r = a`: one edge away.
        let near = pdg.score(&[6], &[7]).unwrap();
        let far = pdg.score(&[4], &[7]).unwrap();
        assert!(near > far, "{near} > {far}");
        assert_eq!(pdg.score(&[], &[7]), Some(0.0));
        assert_eq!(pdg.score(&[6], &[42]), None);
    }
}
