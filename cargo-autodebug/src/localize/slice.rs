//! The dynamic dependence graph of a trace and its slices. Nodes are the events that
//! compute or decide something (call entries, branch, component, loop-iteration and contract
//! instances); an edge says that one instance used what another produced (data) or ran
//! because another decided so (control). Slices are sets of nodes reached over edges, each
//! at its dependence distance (the fewest edges) from the start.
//!
//! Names come from the source ([`super::source`]): a node uses the variables its site's code
//! reads and depends on the latest earlier definition of each in the same call, or on the
//! call's entry for a parameter. Control: a node depends on the latest earlier instance, in
//! the same call, of a branch or loop whose code contains the node's site. Calls: a call made
//! by instrumented code is linked through the caller's event that consumed its result (the
//! first event of the caller after the call's exit): that event depends on the callee's
//! returned value, and the callee's entry (its arguments) on what that event reads. A call
//! from uninstrumented code (the test itself) depends on nothing.

use std::collections::{BTreeMap, HashMap, VecDeque};

use autodebug_runtime::protocol::{Binding, Record, SiteInfo, SiteKind};

use super::source::{Pos, SourceFacts};
use crate::trace::RawTrace;

/// What a node is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeKind {
    /// A call's entry (its arguments).
    Enter,
    /// A branch instance and the outcome it went on with.
    Branch { instance: u32, outcome: bool },
    /// A component instance (a `let`, an assignment, a returned value, a loop bound).
    Component { instance: u32 },
    /// One iteration of a loop.
    Iteration { instance: u32 },
    /// A contract check.
    Contract { instance: u32, ok: bool },
}

/// A node of the graph: one event of the trace.
#[derive(Debug, Clone)]
pub struct Node {
    /// Index of the event in the trace's `events`.
    pub event: usize,
    /// The event's site id.
    pub site: u32,
    /// The call it belongs to (an index into [`Graph::calls`]).
    pub call: usize,
    pub kind: NodeKind,
}

/// One call of an instrumented function.
#[derive(Debug, Clone)]
pub struct Call {
    /// Node of the entry.
    pub enter: usize,
    /// Event indices of the entry and the exit (none if the trace ends inside the call).
    pub enter_event: usize,
    pub exit_event: Option<usize>,
    /// 1 for a call made by uninstrumented code (the test), 2 for a call it makes, …
    pub depth: usize,
    /// The last returned value of the call, if any.
    pub returned: Option<usize>,
}

/// Why one node depends on another.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dep {
    Data,
    Control,
}

/// The panic of a trace: where it is in the events, and whether instrumented code was
/// running when it happened.
#[derive(Debug, Clone)]
pub struct PanicAt {
    /// Index of the `Panic` record.
    pub event: usize,
    /// Calls of instrumented functions active at the panic (0: the test itself panicked).
    pub depth: usize,
    pub file: String,
    pub line: u32,
    pub column: u32,
}

/// The dynamic dependence graph of one trace.
#[derive(Debug, Default)]
pub struct Graph {
    pub nodes: Vec<Node>,
    pub calls: Vec<Call>,
    /// `deps[n]`: what node `n` depends on.
    deps: Vec<Vec<(usize, Dep)>>,
    /// `users[n]`: the nodes depending on `n`.
    users: Vec<Vec<(usize, Dep)>>,
    /// The first panic, if the trace has one.
    pub panic: Option<PanicAt>,
}

/// A frame of the call stack while the graph is built.
struct Frame {
    call: usize,
    params: Vec<String>,
    defs: HashMap<String, usize>,
    /// Latest node of each branch or loop site in this call.
    latest: HashMap<u32, usize>,
    /// Calls this frame made since its last event.
    finished: Vec<usize>,
}

impl Graph {
    /// Builds the graph of `trace` with the static facts of its sites.
    pub fn build(trace: &RawTrace, facts: &SourceFacts) -> Graph {
        let mut builder = Builder {
            trace,
            facts,
            controllers: controllers(&trace.sites, facts),
            graph: Graph::default(),
            stack: Vec::new(),
        };
        for (index, record) in trace.events.iter().enumerate() {
            let (site, kind) = match record {
                Record::Enter { site, args } => {
                    builder.enter(index, *site, args);
                    continue;
                }
                Record::Exit { .. } => {
                    builder.exit(index);
                    continue;
                }
                Record::Panic {
                    file, line, column, ..
                } => {
                    if builder.graph.panic.is_none() {
                        builder.graph.panic = Some(PanicAt {
                            event: index,
                            depth: builder.stack.len(),
                            file: file.clone(),
                            line: *line,
                            column: *column,
                        });
                    }
                    continue;
                }
                other => match node_kind(other) {
                    Some(node) => node,
                    None => continue,
                },
            };
            builder.event(index, site, kind);
        }
        builder.graph
    }

    fn add_node(&mut self, event: usize, site: u32, call: usize, kind: NodeKind) -> usize {
        self.nodes.push(Node {
            event,
            site,
            call,
            kind,
        });
        self.deps.push(Vec::new());
        self.users.push(Vec::new());
        self.nodes.len() - 1
    }

    fn add_edge(&mut self, user: usize, source: usize, dep: Dep) {
        if user != source && !self.deps[user].contains(&(source, dep)) {
            self.deps[user].push((source, dep));
            self.users[source].push((user, dep));
        }
    }

    /// What node `n` depends on directly.
    #[cfg(test)]
    pub fn deps(&self, n: usize) -> &[(usize, Dep)] {
        &self.deps[n]
    }

    /// The backward slice of `from`: every node it transitively depends on, with its
    /// distance.
    pub fn backward(&self, from: usize) -> BTreeMap<usize, usize> {
        bfs(from, |n| &self.deps[n])
    }

    /// The forward slice of `from`: every node that transitively depends on it.
    pub fn forward(&self, from: usize) -> BTreeMap<usize, usize> {
        bfs(from, |n| &self.users[n])
    }

    /// The bidirectional slice: backward and forward, each node at its smaller distance.
    pub fn bidirectional(&self, from: usize) -> BTreeMap<usize, usize> {
        let mut slice = self.backward(from);
        for (node, distance) in self.forward(from) {
            let entry = slice.entry(node).or_insert(distance);
            *entry = (*entry).min(distance);
        }
        slice
    }

    /// The last node before the trace's panic (or the last node of all), in the call
    /// active at the panic when there is one.
    pub fn last_before_panic(&self) -> Option<usize> {
        let end = self.panic.as_ref().map_or(usize::MAX, |p| p.event);
        self.nodes.iter().rposition(|n| n.event < end)
    }
}

fn bfs<'a>(from: usize, next: impl Fn(usize) -> &'a [(usize, Dep)]) -> BTreeMap<usize, usize> {
    let mut seen = BTreeMap::from([(from, 0)]);
    let mut queue = VecDeque::from([from]);
    while let Some(n) = queue.pop_front() {
        let distance = seen[&n];
        for &(m, _) in next(n) {
            if let std::collections::btree_map::Entry::Vacant(e) = seen.entry(m) {
                e.insert(distance + 1);
                queue.push_back(m);
            }
        }
    }
    seen
}

/// What a record of a branch, component, iteration or contract adds to the graph: its site
/// and the node's kind.
fn node_kind(record: &Record) -> Option<(u32, NodeKind)> {
    let node = match record {
        Record::Branch {
            site,
            instance,
            outcome,
            ..
        } => (
            *site,
            NodeKind::Branch {
                instance: *instance,
                outcome: *outcome,
            },
        ),
        Record::Component { site, instance, .. } => (
            *site,
            NodeKind::Component {
                instance: *instance,
            },
        ),
        Record::Iteration { site, instance } => (
            *site,
            NodeKind::Iteration {
                instance: *instance,
            },
        ),
        Record::Contract { site, instance, ok } => (
            *site,
            NodeKind::Contract {
                instance: *instance,
                ok: *ok,
            },
        ),
        _ => return None,
    };
    Some(node)
}

/// The graph of one trace while it is built: the static facts its edges come from and the
/// call stack.
struct Builder<'a> {
    trace: &'a RawTrace,
    facts: &'a SourceFacts,
    /// The branch and loop sites whose code holds each site.
    controllers: HashMap<u32, Vec<u32>>,
    graph: Graph,
    stack: Vec<Frame>,
}

impl Builder<'_> {
    /// A call's entry (event `index`, with its arguments' names): a node and a frame.
    fn enter(&mut self, index: usize, site: u32, args: &[Binding]) {
        let node = self
            .graph
            .add_node(index, site, usize::MAX, NodeKind::Enter);
        let call = self.graph.calls.len();
        self.graph.nodes[node].call = call;
        self.graph.calls.push(Call {
            enter: node,
            enter_event: index,
            exit_event: None,
            depth: self.stack.len() + 1,
            returned: None,
        });
        self.stack.push(Frame {
            call,
            params: args.iter().map(|(name, _)| name.clone()).collect(),
            defs: HashMap::new(),
            latest: HashMap::new(),
            finished: Vec::new(),
        });
    }

    /// A call's exit: its frame is popped, and its caller will consume its result.
    fn exit(&mut self, index: usize) {
        if let Some(frame) = self.stack.pop() {
            self.graph.calls[frame.call].exit_event = Some(index);
            if let Some(caller) = self.stack.last_mut() {
                caller.finished.push(frame.call);
            }
        }
    }

    /// The node of event `index` and its data and control edges.
    fn event(&mut self, index: usize, site: u32, kind: NodeKind) {
        let Some(frame) = self.stack.last_mut() else {
            // Events outside any recorded call have no scope to resolve names in.
            return;
        };
        let node = self.graph.add_node(index, site, frame.call, kind);
        let info = self.trace.sites.get(&site);
        let site_facts = info.and_then(|info| self.facts.of(info));
        // Data: the latest definition of each variable used, or the parameter.
        let mut data = Vec::new();
        if let Some(f) = site_facts {
            for name in &f.uses {
                if let Some(&def) = frame.defs.get(name) {
                    data.push(def);
                } else if frame.params.iter().any(|p| p == name) {
                    data.push(self.graph.calls[frame.call].enter);
                }
            }
        }
        let kind_of_site = info.map(|i| i.kind);
        match kind_of_site {
            // A postcondition reads the returned value; a precondition the arguments.
            Some(SiteKind::Ensures) => {
                data.extend(self.graph.calls[frame.call].returned);
            }
            Some(SiteKind::Requires | SiteKind::Invariant) => {
                data.push(self.graph.calls[frame.call].enter);
            }
            _ => {}
        }
        // Calls that finished since: this event consumed their results, and their
        // arguments were computed from what this event reads.
        for callee in std::mem::take(&mut frame.finished) {
            let call = &self.graph.calls[callee];
            let (enter, produced) = (call.enter, call.returned.unwrap_or(call.enter));
            for &source in &data {
                self.graph.add_edge(enter, source, Dep::Data);
            }
            self.graph.add_edge(node, produced, Dep::Data);
        }
        for source in data {
            self.graph.add_edge(node, source, Dep::Data);
        }
        // Control: the latest instance of a branch or loop whose code holds this site.
        let frame = self.stack.last_mut().expect("frame checked above");
        if let Some(parent) = self
            .controllers
            .get(&site)
            .into_iter()
            .flatten()
            .filter_map(|c| frame.latest.get(c))
            .max()
        {
            self.graph.add_edge(node, *parent, Dep::Control);
        }
        if let Some(f) = site_facts {
            for name in &f.defs {
                frame.defs.insert(name.clone(), node);
            }
        }
        if matches!(kind, NodeKind::Branch { .. } | NodeKind::Iteration { .. }) {
            frame.latest.insert(site, node);
        }
        if kind_of_site == Some(SiteKind::Return) {
            self.graph.calls[frame.call].returned = Some(node);
        }
    }
}

/// For every site of the trace, the branch and loop sites of the same function whose
/// controlled code contains it.
fn controllers(sites: &BTreeMap<u32, SiteInfo>, facts: &SourceFacts) -> HashMap<u32, Vec<u32>> {
    let mut out: HashMap<u32, Vec<u32>> = HashMap::new();
    for (&id, site) in sites {
        let Some(f) = facts.of(site) else { continue };
        if f.regions.is_empty() {
            continue;
        }
        for (&other, inner) in sites {
            if other != id
                && inner.file == site.file
                && inner.function == site.function
                && f.regions
                    .iter()
                    .any(|r| r.range.contains(Pos::of_site(inner)))
            {
                out.entry(other).or_default().push(id);
            }
        }
    }
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::localize::source::FileFacts;
    use autodebug_runtime::protocol::Value;

    pub(crate) const SRC: &str = "\
fn f(a: i32) -> i32 {
    let mut x = a + 1;
    if x > 3 {
        x = x * 2;
    }
    let y = 5;
    x + y
}
";

    pub(crate) fn site(line: u32, column: u32, kind: SiteKind, code: &str) -> SiteInfo {
        SiteInfo {
            file: "src/lib.rs".into(),
            line,
            column,
            end_line: line,
            end_column: column + code.chars().count() as u32,
            kind,
            code: code.into(),
            function: "m::f".into(),
        }
    }

    pub(crate) fn facts() -> SourceFacts {
        SourceFacts::from_files([("src/lib.rs".to_string(), FileFacts::parse(SRC).unwrap())])
    }

    fn int(v: i128) -> Value {
        Value::Int {
            ty: "i32".into(),
            v,
        }
    }

    pub(crate) fn component(site: u32, v: i128) -> Record {
        Record::Component {
            site,
            instance: 0,
            value: int(v),
            overridden: false,
            scope: vec![],
        }
    }

    /// `f(3)`, twice, from the test, the second time with a panic in the test after it.
    pub(crate) fn trace() -> RawTrace {
        let sites = BTreeMap::from([
            (1, site(1, 4, SiteKind::Fn, "f")),
            (2, site(2, 17, SiteKind::Let, "a + 1")),
            (3, site(3, 8, SiteKind::If, "x > 3")),
            (4, site(4, 13, SiteKind::Assign, "x * 2")),
            (5, site(6, 13, SiteKind::Let, "5")),
            (6, site(7, 5, SiteKind::Return, "x + y")),
        ]);
        let mut events = Vec::new();
        for _ in 0..2 {
            events.extend([
                Record::Enter {
                    site: 1,
                    args: vec![("a".into(), int(3))],
                },
                component(2, 4),
                Record::Branch {
                    site: 3,
                    instance: 0,
                    outcome: true,
                    flipped: false,
                    operands: vec![],
                },
                component(4, 8),
                component(5, 5),
                component(6, 13),
                Record::Exit {
                    site: 1,
                    panicking: false,
                },
            ]);
        }
        events.push(Record::Panic {
            message: "assertion failed".into(),
            file: "src/lib.rs".into(),
            line: 20,
            column: 9,
            thread: "main".into(),
        });
        RawTrace {
            sites,
            events,
            complete: false,
            ..RawTrace::default()
        }
    }

    fn sites_of(graph: &Graph, slice: &BTreeMap<usize, usize>) -> Vec<(u32, usize)> {
        slice
            .iter()
            .map(|(&n, &d)| (graph.nodes[n].site, d))
            .collect()
    }

    #[test]
    fn data_and_control_dependences() {
        let graph = Graph::build(&trace(), &facts());
        // Nodes of the first call: enter, let x, if, x = …, let y, return.
        assert_eq!(graph.nodes.len(), 12);
        assert_eq!(graph.calls.len(), 2);
        assert_eq!(graph.calls[1].depth, 1);
        let (enter, let_x, cond, assign, let_y, ret) = (0, 1, 2, 3, 4, 5);
        assert_eq!(graph.deps(let_x), [(enter, Dep::Data)]);
        assert_eq!(graph.deps(cond), [(let_x, Dep::Data)]);
        assert!(graph.deps(assign).contains(&(let_x, Dep::Data)));
        assert!(graph.deps(assign).contains(&(cond, Dep::Control)));
        assert!(graph.deps(let_y).is_empty());
        // `x + y` reads the assigned `x`, not the first one.
        assert_eq!(graph.deps(ret), [(assign, Dep::Data), (let_y, Dep::Data)]);
        // The second call does not see the first one's definitions.
        assert_eq!(graph.deps(7), [(6, Dep::Data)]);
        let panic = graph.panic.as_ref().unwrap();
        assert_eq!((panic.depth, panic.line), (0, 20));
        assert_eq!(graph.last_before_panic(), Some(11));
        assert_eq!(graph.calls[1].returned, Some(11));
    }

    #[test]
    fn backward_forward_and_bidirectional_slices() {
        let graph = Graph::build(&trace(), &facts());
        let backward = graph.backward(5);
        assert_eq!(
            sites_of(&graph, &backward),
            [(1, 3), (2, 2), (3, 2), (4, 1), (5, 1), (6, 0)]
        );
        let forward = graph.forward(2);
        assert_eq!(sites_of(&graph, &forward), [(3, 0), (4, 1), (6, 2)]);
        let both = graph.bidirectional(2);
        // `let y` neither feeds nor depends on the branch.
        assert_eq!(
            sites_of(&graph, &both),
            [(1, 2), (2, 1), (3, 0), (4, 1), (6, 2)]
        );
    }

    #[test]
    fn a_call_from_instrumented_code_links_arguments_and_result() {
        // g calls f: `let r = f(b);` then returns `r`.
        let mut trace = trace();
        trace.sites.insert(10, site(9, 4, SiteKind::Fn, "g"));
        trace.sites.insert(11, site(10, 13, SiteKind::Let, "f(b)"));
        let src = format!("{SRC}fn g(b: i32) -> i32 {{\n    let r = f(b);\n    r\n}}\n");
        let facts =
            SourceFacts::from_files([("src/lib.rs".to_string(), FileFacts::parse(&src).unwrap())]);
        assert!(facts.of(&trace.sites[&11]).is_some(), "{src}");
        let mut events = vec![Record::Enter {
            site: 10,
            args: vec![("b".into(), int(3))],
        }];
        events.extend(trace.events[..7].iter().cloned());
        events.push(component(11, 13));
        trace.events = events;
        let graph = Graph::build(&trace, &facts);
        assert_eq!(graph.calls[1].depth, 2);
        let let_r = graph.nodes.len() - 1;
        let callee_return = graph.calls[1].returned.unwrap();
        assert_eq!(
            graph.deps(let_r),
            [(callee_return, Dep::Data), (0, Dep::Data)]
        );
        // f's arguments come from g's parameter `b`.
        assert_eq!(graph.deps(graph.calls[1].enter), [(0, Dep::Data)]);
    }
}
