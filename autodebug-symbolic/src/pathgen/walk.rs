//! One path through a call, walked over the IR: the events it produces (each with the event
//! it is dynamically control dependent on) and its condition over the call's inputs in z3.
//!
//! A walk follows a *script*: events to replay in order (the failing run, or the part of a
//! candidate run that is fixed), optionally an *exploration* after a flipped branch event —
//! every decision control dependent on it is free (a choice), loops entered there take the
//! acyclic way out (the paper's `get_all`) — until the first event that does not depend on
//! it, from which a suffix is replayed again. Decisions that produce no event (a match arm's
//! pattern test, a branch of a function without instrumentation) are choices too, unless
//! both arms are free of events, jumps and calls: then both are walked and their states
//! merged with `ite`. A driver enumerates the choices by re-walking (see
//! [`super::session`]); a walk whose events contradict its script ends in
//! [`Halt::Mismatch`].
//!
//! The values are those of the trace-guided encoding ([`crate::encode`]): fixed-width
//! integers as bit-vectors, overflow, division by zero and out-of-bounds indexing as panic
//! conditions, sequences as arrays with a length.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicUsize, Ordering};

use autodebug_runtime::protocol::SiteKey;
use serde::{Deserialize, Serialize};
use z3::ast::{Ast, Bool};

use super::cfg::{FnGraph, Graphs, NodeKey, Part};
use super::distance::{Event, Kind};
use crate::encode::value::{self, Stop, Val};
use crate::ir::{
    BinOp, ContractKind, Expr, ExprKind, Function, Iteration, Place, Program, Quantifier, Stmt,
    Type, UnOp, VarId, one_line,
};
use crate::semantics::{self, Called, Interp, Quantified, Store};

/// Why a walk ended early.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Halt {
    /// The walk's events contradict its script (this choice of decisions is not the path).
    Mismatch(String),
    /// Something the walk cannot model: the whole path is out of reach.
    Stop(String),
    /// The script is replayed to its end and the run ended there by a panic: what follows is
    /// not known.
    End,
    /// The path reaches a `panic!` (or an `unreachable!`, …): the run ends there.
    Panicked(String),
}

impl From<Stop> for Halt {
    fn from(s: Stop) -> Halt {
        Halt::Stop(s.0)
    }
}

type W<T> = Result<T, Halt>;

/// One event of a path, as a script names it: a site and what happened there.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Step {
    /// The site (a branch, a loop head, a function entry).
    pub stmt: SiteKey,
    /// What happened there.
    pub kind: Kind,
}

/// What a walk follows.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Script<'s> {
    /// Events replayed first, in order.
    pub steps: &'s [Step],
    /// Explore after event `explore` (the last of `steps`, flipped) until the first event
    /// that does not depend on it; from there `suffix` is replayed.
    pub explore: Option<usize>,
    pub suffix: &'s [Step],
    /// The run ended by a panic after its last event (what follows is not known).
    pub ended_by_panic: bool,
    /// Choices for the decisions the script leaves open, in order (beyond them: `true`).
    pub choices: &'s [bool],
    /// Forget every value when event `havoc` is produced, and every condition gathered
    /// before it: the walk then tells whether the path from that event on is feasible
    /// from *some* state (the paper's sub-path feasibility).
    pub havoc: Option<usize>,
}

/// The inputs of the call: one value per parameter, symbolic where the rerun can change it.
#[derive(Debug, Clone)]
pub(crate) struct Inputs {
    pub values: Vec<Val>,
}

/// A condition, tagged with how many events the path had produced when it arose.
pub(crate) type Tagged = (usize, Bool);

/// A walk that reached the end of its script.
#[derive(Debug, Clone)]
pub(crate) struct Walked {
    pub events: Vec<Event>,
    /// Branch outcomes and loop counts along the path.
    pub path: Vec<Tagged>,
    /// Panic conditions along the path, with what panics.
    pub panics: Vec<(usize, Bool, String)>,
    /// The preconditions of the call (assumed of its inputs).
    pub assume: Vec<Bool>,
    /// The postconditions of the call, with their text.
    pub post: Vec<(Bool, String)>,
    /// The returned value, when the walk saw the call return.
    pub ret: Option<Val>,
    /// The path reaches a `panic!`: the run ends there, with this message.
    pub panicked: Option<String>,
    /// Approximations made (opaque code).
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Prefix,
    Explore,
    Suffix,
}

/// What an event point asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ask {
    Entry,
    /// A branch: its outcome (`loop_cond`: the condition of a `while`).
    Branch {
        loop_cond: bool,
    },
    /// A loop head: whether the loop iterates (`may_exit`: it may not, a `for` head).
    Iteration {
        may_exit: bool,
    },
}

enum Flow {
    Normal,
    Return(Option<Val>),
    Break(Option<String>),
    Continue(Option<String>),
}

struct Frame<'p> {
    func: &'p Function,
    graph: &'p FnGraph,
    env: Vec<Option<Val>>,
    entry: Vec<Option<Val>>,
    /// The last event of each graph node in this activation.
    last: HashMap<usize, usize>,
    entry_event: Option<usize>,
    /// The event the call that made this activation depends on.
    invoked: Option<usize>,
    /// The node being evaluated (a call's site).
    at: usize,
}

/// Keeps the constants of different walks apart.
static WALKS: AtomicUsize = AtomicUsize::new(0);

/// Calls nested deeper than this are not followed.
const MAX_DEPTH: usize = 12;
/// Iterations of a loop without events (a function without instrumentation).
const MAX_SILENT_ITERATIONS: i128 = 4096;

/// Walks the call of `func` on `inputs` along `script`; also returns the choices made
/// (on a mismatch too: the driver backtracks from them).
pub(crate) fn walk<'p>(
    program: &'p Program,
    graphs: &'p Graphs,
    func: &'p Function,
    inputs: &Inputs,
    script: Script<'_>,
) -> (W<Walked>, Vec<bool>) {
    let mut decided = Vec::new();
    let result = walk_inner(program, graphs, func, inputs, script, &mut decided);
    (result, decided)
}

fn walk_inner<'p>(
    program: &'p Program,
    graphs: &'p Graphs,
    func: &'p Function,
    inputs: &Inputs,
    script: Script<'_>,
    decided: &mut Vec<bool>,
) -> W<Walked> {
    let graph = graphs
        .get(&func.name)
        .ok_or_else(|| Halt::Stop(format!("no graph of `{}`", func.name)))?;
    let mut w = Walker {
        program,
        graphs,
        script,
        pos: 0,
        phase: Phase::Prefix,
        choice: 0,
        decided: Vec::new(),
        events: Vec::new(),
        path: Vec::new(),
        panics: Vec::new(),
        assume: Vec::new(),
        frames: Vec::new(),
        guard: Bool::from_bool(true),
        prefix: format!("pg{}!", WALKS.fetch_add(1, Ordering::Relaxed)),
        fresh: 0,
        notes: Vec::new(),
        explored_heads: HashSet::new(),
    };
    if w.script.steps.is_empty() && w.script.explore.is_some() {
        return Err(Halt::Stop("nothing to flip".into()));
    }
    let mut env = vec![None; func.vars.len()];
    for (&p, v) in func.params.iter().zip(&inputs.values) {
        env[p.0 as usize] = Some(v.clone());
    }
    w.frames.push(Frame {
        func,
        graph,
        entry: env.clone(),
        env,
        last: HashMap::new(),
        entry_event: None,
        invoked: None,
        at: graph.entry,
    });
    let outcome = w.top(func);
    decided.clone_from(&w.decided);
    let (ret, panicked) = match outcome {
        Ok(ret) => (Some(ret), None),
        Err(Halt::End) => (None, None),
        Err(Halt::Panicked(m)) => (None, Some(m)),
        Err(other) => return Err(other),
    };
    // The whole script must be used: a path that stops short of it is not the path.
    if !w.script_done() {
        return Err(Halt::Mismatch(
            "the walk ends before the path's last event".into(),
        ));
    }
    let post = if ret.is_some() {
        outcome_post(&mut w, func)
    } else {
        Vec::new()
    };
    Ok(Walked {
        events: w.events,
        path: w.path,
        panics: w.panics,
        assume: w.assume,
        post,
        ret,
        panicked,
        notes: w.notes,
    })
}

/// The postconditions of the call, in the state it returned in (set by [`Walker::top`]).
/// One the walk cannot model is left out, with a note.
fn outcome_post<'p>(w: &mut Walker<'p, '_>, func: &'p Function) -> Vec<(Bool, String)> {
    let mut out = Vec::new();
    for c in &func.contracts {
        if !semantics::checked_on_exit(func, c.kind) {
            continue;
        }
        match w.eval(&c.cond).and_then(|v| Ok(v.as_bool()?)) {
            Ok((b, _)) => out.push((b, one_line(&c.site.span.code))),
            Err(Halt::Stop(why) | Halt::Mismatch(why)) => w.note(format!(
                "the postcondition `{}` is not modeled ({why})",
                one_line(&c.site.span.code)
            )),
            Err(_) => w.note(format!(
                "the postcondition `{}` is not modeled",
                one_line(&c.site.span.code)
            )),
        }
    }
    out
}

struct Walker<'p, 's> {
    program: &'p Program,
    graphs: &'p Graphs,
    script: Script<'s>,
    pos: usize,
    phase: Phase,
    choice: usize,
    decided: Vec<bool>,
    events: Vec<Event>,
    path: Vec<Tagged>,
    panics: Vec<(usize, Bool, String)>,
    assume: Vec<Bool>,
    frames: Vec<Frame<'p>>,
    /// The condition under which the code being walked runs (inside a merged decision).
    guard: Bool,
    prefix: String,
    fresh: usize,
    notes: Vec<String>,
    /// Loop heads iterated while exploring (by frame depth and node): a second iteration
    /// would be a cycle.
    explored_heads: HashSet<(usize, usize)>,
}

impl<'p> Walker<'p, '_> {
    fn frame(&self) -> &Frame<'p> {
        self.frames.last().expect("a frame")
    }

    fn frame_mut(&mut self) -> &mut Frame<'p> {
        self.frames.last_mut().expect("a frame")
    }

    fn note(&mut self, note: String) {
        if !self.notes.contains(&note) {
            self.notes.push(note);
        }
    }

    fn name(&mut self, what: &str) -> String {
        self.fresh += 1;
        format!("{}{what}#{}", self.prefix, self.fresh)
    }

    fn script_done(&self) -> bool {
        match self.phase {
            Phase::Prefix => self.script.explore.is_none() && self.pos == self.script.steps.len(),
            Phase::Explore => self.script.suffix.is_empty(),
            Phase::Suffix => self.pos == self.script.suffix.len(),
        }
    }

    // -----------------------------------------------------------------------------------
    // Events

    /// `dep` of an event at node `n` of the current activation.
    fn dcd(&self, n: usize) -> Option<usize> {
        let f = self.frame();
        let mut best: Option<usize> = None;
        for &c in &f.graph.event_cd[n] {
            let e = if c == f.graph.entry {
                f.entry_event.or(f.invoked)
            } else {
                f.last.get(&c).copied()
            };
            best = best.max(e);
        }
        best.or(f.invoked).or(f.entry_event)
    }

    /// Whether an event depending on `dep` is (transitively) control dependent on event
    /// `on`.
    fn under(&self, dep: Option<usize>, on: usize) -> bool {
        let mut at = dep;
        while let Some(d) = at {
            if d == on {
                return true;
            }
            if d < on {
                return false;
            }
            at = self.events[d].dep;
        }
        false
    }

    fn next_step(&self) -> Option<&Step> {
        match self.phase {
            Phase::Prefix => self.script.steps.get(self.pos),
            Phase::Suffix => self.script.suffix.get(self.pos),
            Phase::Explore => None,
        }
    }

    fn push_event(&mut self, n: usize, site: SiteKey, kind: Kind, dep: Option<usize>) {
        let index = self.events.len();
        self.events.push(Event {
            stmt: site,
            kind,
            dep,
        });
        self.frame_mut().last.insert(n, index);
        if kind == Kind::Entry {
            self.frame_mut().entry_event = Some(index);
        }
        if self.script.havoc == Some(index) {
            self.havoc();
        }
    }

    /// Every value of every activation forgotten (run values too), every condition so
    /// far dropped.
    fn havoc(&mut self) {
        let name = self.name("havoc");
        let program = self.program;
        for (k, frame) in self.frames.iter_mut().enumerate() {
            let func = frame.func;
            for (i, slot) in frame.env.iter_mut().enumerate() {
                if slot.is_some() {
                    let ty = &func.vars[i].ty;
                    *slot = Some(Val::fresh(
                        ty,
                        &format!("{name}.{k}.{i}"),
                        program,
                        &mut |_, _| {},
                    ));
                }
            }
            for (i, slot) in frame.entry.iter_mut().enumerate() {
                if slot.is_some() {
                    let ty = &func.vars[i].ty;
                    *slot = Some(Val::fresh(
                        ty,
                        &format!("{name}.{k}.old{i}"),
                        program,
                        &mut |_, _| {},
                    ));
                }
            }
        }
        self.path.clear();
        self.panics.clear();
        self.assume.clear();
        self.guard = Bool::from_bool(true);
    }

    /// An event point at node `n`: what the path does there. Returns the branch outcome,
    /// whether a loop iterates, or `true` for an entry.
    fn event(&mut self, n: usize, ask: Ask) -> W<bool> {
        let Some(site) = self.frame().graph.nodes[n].site.clone() else {
            return Err(Halt::Stop("an event at a node without a site".into()));
        };
        let dep = self.dcd(n);
        if self.phase == Phase::Explore {
            let br = self.script.explore.unwrap_or(0);
            if self.under(dep, br) {
                return self.explore_event(n, site, ask, dep);
            }
            // The first event that does not depend on the flipped one: `de`.
            self.phase = Phase::Suffix;
            self.pos = 0;
        }
        let Some(step) = self.next_step().cloned() else {
            // After the last event of a run that panicked nothing is known (the loop may
            // not have been left: the panic may be in its next iteration).
            if self.script.ended_by_panic {
                return Err(Halt::End);
            }
            if let Ask::Iteration { may_exit: true } = ask {
                return Ok(false);
            }
            return Err(Halt::Mismatch(format!(
                "the path has no event left for {}:{}",
                site.line, site.column
            )));
        };
        let matches_site = step.stmt == site;
        let answer = match (ask, step.kind) {
            (Ask::Entry, Kind::Entry) if matches_site => true,
            (Ask::Branch { .. }, Kind::Branch(o)) if matches_site => o,
            (Ask::Iteration { .. }, Kind::Iteration) if matches_site => true,
            (Ask::Iteration { may_exit: true }, _) => return Ok(false),
            _ => {
                return Err(Halt::Mismatch(format!(
                    "the path's next event is at {}:{}, the walk is at {}:{}",
                    step.stmt.line, step.stmt.column, site.line, site.column
                )));
            }
        };
        self.pos += 1;
        self.push_event(n, site, step.kind, dep);
        if self.phase == Phase::Prefix
            && self.pos == self.script.steps.len()
            && self.script.explore.is_some()
        {
            self.phase = Phase::Explore;
        }
        Ok(answer)
    }

    /// An event of the explored part: decided by a choice (branches), acyclic (loops).
    fn explore_event(&mut self, n: usize, site: SiteKey, ask: Ask, dep: Option<usize>) -> W<bool> {
        let (kind, answer) = match ask {
            Ask::Entry => (Kind::Entry, true),
            // A loop entered here is not iterated (an acyclic path leaves it at once).
            Ask::Branch { loop_cond: true } => (Kind::Branch(false), false),
            Ask::Branch { loop_cond: false } => {
                let o = self.choose();
                (Kind::Branch(o), o)
            }
            Ask::Iteration { may_exit: true } => return Ok(false),
            Ask::Iteration { may_exit: false } => {
                let key = (self.frames.len(), n);
                if !self.explored_heads.insert(key) {
                    return Err(Halt::Mismatch("a cycle while exploring".into()));
                }
                (Kind::Iteration, true)
            }
        };
        self.push_event(n, site, kind, dep);
        Ok(answer)
    }

    fn choose(&mut self) -> bool {
        let c = self
            .script
            .choices
            .get(self.choice)
            .copied()
            .unwrap_or(true);
        self.choice += 1;
        self.decided.push(c);
        c
    }

    /// The path takes outcome `o` of a condition `c` (inside a merged decision: where
    /// that side runs).
    fn require(&mut self, c: &Bool, o: bool) {
        let t = if o { c.clone() } else { c.not() };
        let term = if self.guard.simplify().as_bool() == Some(true) {
            t
        } else {
            self.guard.implies(&t)
        };
        self.path.push((self.events.len(), term));
    }

    fn panic_if(&mut self, cond: Bool, what: String) {
        let g = self.guard.clone();
        self.panics
            .push((self.events.len(), Bool::and(&[&g, &cond]), what));
    }

    fn panics_of(&mut self, panics: Vec<value::Panic>) {
        for p in panics {
            self.panic_if(p.cond, p.what.to_string());
        }
    }

    /// The outcome of a decision at node `n` (an event when it has a site, else a choice
    /// or the run's known value), with the path's condition on `c`.
    fn decide_at(&mut self, n: Option<usize>, c: &Bool, known: Option<bool>, ask: Ask) -> W<bool> {
        let has_site = n.is_some_and(|n| self.frame().graph.is_event(n));
        let o = match (n, has_site) {
            (Some(n), true) => self.event(n, ask)?,
            _ => match known {
                Some(k) => k,
                None => self.choose(),
            },
        };
        self.require(c, o);
        Ok(o)
    }

    fn node(&self, key: NodeKey) -> Option<usize> {
        self.frame().graph.node(key)
    }

    // -----------------------------------------------------------------------------------
    // The call

    /// The call under study: its preconditions assumed, its entry, its body.
    fn top(&mut self, func: &'p Function) -> W<Val> {
        for c in &func.contracts {
            if matches!(c.kind, ContractKind::Requires | ContractKind::Invariant) {
                match self.eval(&c.cond).and_then(|v| Ok(v.as_bool()?)) {
                    Ok((b, _)) => self.assume.push(b),
                    Err(Halt::Stop(why)) => self.note(format!(
                        "the precondition `{}` is not modeled ({why})",
                        one_line(&c.site.span.code)
                    )),
                    Err(other) => return Err(other),
                }
            }
        }
        if func.instrumented {
            let entry = self.frame().graph.entry;
            self.event(entry, Ask::Entry)?;
        }
        let flow = self.block(&func.body)?;
        let ret = match flow {
            Flow::Return(Some(v)) => v,
            Flow::Return(None) | Flow::Normal => Val::Unit,
            Flow::Break(_) | Flow::Continue(_) => {
                return Err(Halt::Stop("`break` outside a loop".into()));
            }
        };
        let ret_var = func.ret.0 as usize;
        self.frame_mut().env[ret_var] = Some(ret.clone());
        Ok(ret)
    }

    /// A call followed into the callee: its preconditions, entry event, body,
    /// postconditions, and its `&mut` arguments stored back.
    fn follow(
        &mut self,
        function: &str,
        args: &'p [Expr],
        outputs: &'p [(usize, Place)],
        ty: &Type,
    ) -> W<Val> {
        let argv = semantics::arguments(self, args)?;
        let Some(callee) = self.program.function(function) else {
            return Err(Halt::Stop(format!(
                "`{function}` is not a function of the file"
            )));
        };
        if self.frames.len() > MAX_DEPTH {
            return Err(Halt::Stop(format!(
                "calls nested deeper than {MAX_DEPTH} (`{function}`)"
            )));
        }
        let graph = self
            .graphs
            .get(&callee.name)
            .ok_or_else(|| Halt::Stop(format!("no graph of `{}`", callee.name)))?;
        let caller_at = self.frame().at;
        let invoked = self.dcd(caller_at);
        let mut env = vec![None; callee.vars.len()];
        for (&p, v) in callee.params.iter().zip(argv) {
            env[p.0 as usize] = Some(v);
        }
        self.frames.push(Frame {
            func: callee,
            graph,
            entry: env.clone(),
            env,
            last: HashMap::new(),
            entry_event: None,
            invoked,
            at: graph.entry,
        });
        for c in &callee.contracts {
            if matches!(c.kind, ContractKind::Requires | ContractKind::Invariant) {
                let what = format!(
                    "precondition `{}` of `{}`",
                    one_line(&c.site.span.code),
                    callee.name
                );
                self.contract_panic(&c.cond, what)?;
            }
        }
        if callee.instrumented {
            self.event(graph.entry, Ask::Entry)?;
        }
        let flow = self.block(&callee.body)?;
        let ret = match flow {
            Flow::Return(Some(v)) => v,
            Flow::Return(None) | Flow::Normal => Val::Unit,
            Flow::Break(_) | Flow::Continue(_) => {
                return Err(Halt::Stop("`break` outside a loop".into()));
            }
        };
        let ret_var = callee.ret.0 as usize;
        self.frame_mut().env[ret_var] = Some(ret.clone());
        for c in &callee.contracts {
            if semantics::checked_on_exit(callee, c.kind) {
                let what = format!(
                    "postcondition `{}` of `{}`",
                    one_line(&c.site.span.code),
                    callee.name
                );
                self.contract_panic(&c.cond, what)?;
            }
        }
        let finals: Vec<(usize, Option<Val>)> = outputs
            .iter()
            .map(|(i, _)| {
                let v = callee
                    .params
                    .get(*i)
                    .and_then(|p| self.frame().env[p.0 as usize].clone());
                (*i, v)
            })
            .collect();
        self.frames.pop();
        for ((_, place), (_, v)) in outputs.iter().zip(finals) {
            if let Some(v) = v {
                self.assign(place, v)?;
            }
        }
        if matches!(ty, Type::Unit) {
            return Ok(Val::Unit);
        }
        Ok(ret)
    }

    /// A callee's contract: a panic where it fails (a contract the walk cannot model
    /// constrains nothing, and says so).
    fn contract_panic(&mut self, cond: &'p Expr, what: String) -> W<()> {
        match self.eval(cond).and_then(|v| Ok(v.as_bool()?)) {
            Ok((b, _)) => self.panic_if(b.not(), what),
            Err(Halt::Stop(why)) => self.note(format!("{what} is not modeled ({why})")),
            Err(other) => return Err(other),
        }
        Ok(())
    }

    // -----------------------------------------------------------------------------------
    // Statements

    fn block(&mut self, stmts: &'p [Stmt]) -> W<Flow> {
        for s in stmts {
            match self.stmt(s)? {
                Flow::Normal => {}
                other => return Ok(other),
            }
        }
        Ok(Flow::Normal)
    }

    fn set_at(&mut self, key: NodeKey) {
        if let Some(n) = self.node(key) {
            self.frame_mut().at = n;
        }
    }

    fn stmt(&mut self, s: &'p Stmt) -> W<Flow> {
        self.set_at(NodeKey::stmt(s, Part::Stmt));
        match s {
            Stmt::Let { var, init, .. } => {
                let v = init.as_ref().map(|e| self.eval(e)).transpose()?;
                self.frame_mut().env[var.0 as usize] = v;
                Ok(Flow::Normal)
            }
            Stmt::Assign { place, value, .. } => {
                let v = self.eval(value)?;
                self.assign(place, v)?;
                Ok(Flow::Normal)
            }
            Stmt::Expr(e) => {
                self.eval(e)?;
                Ok(Flow::Normal)
            }
            Stmt::Assert { cond, span, .. } => {
                let (c, _) = self.eval(cond)?.as_bool()?;
                self.panic_if(c.not(), format!("`{}`", one_line(&span.code)));
                Ok(Flow::Normal)
            }
            Stmt::Panic { span, .. } => {
                let what = one_line(&span.code);
                self.panic_if(Bool::from_bool(true), what.clone());
                Err(Halt::Panicked(what))
            }
            Stmt::Opaque {
                reason,
                span,
                defines,
            } => {
                self.opaque(reason, span.start.line, defines);
                Ok(Flow::Normal)
            }
            Stmt::Return { value, .. } => {
                let v = value.as_ref().map(|e| self.eval(e)).transpose()?;
                Ok(Flow::Return(v))
            }
            Stmt::Break(l) => Ok(Flow::Break(l.clone())),
            Stmt::Continue(l) => Ok(Flow::Continue(l.clone())),
            Stmt::If {
                cond,
                branch: site,
                then,
                otherwise,
            } => {
                let taken = match site {
                    Some(_) => {
                        let key = NodeKey::stmt(s, Part::Branch);
                        self.set_at(key);
                        let (c, _) = self.eval(cond)?.as_bool()?;
                        let n = self.node(key);
                        self.decide_at(n, &c, None, Ask::Branch { loop_cond: false })?
                    }
                    None => {
                        if silent(self.frame().func, then)
                            && silent(self.frame().func, otherwise)
                            && pure(cond)
                        {
                            return self.merged(cond, then, otherwise);
                        }
                        self.decide(cond)?
                    }
                };
                self.block(if taken { then } else { otherwise })
            }
            Stmt::While {
                label,
                cond,
                branch: site,
                body,
                ..
            } => self.while_loop(s, (cond, site.is_some()), label, body),
            Stmt::Loop { label, body, .. } => self.plain_loop(s, label, body),
            Stmt::For {
                label,
                var,
                iteration,
                body,
                ..
            } => self.for_loop(s, label, *var, iteration, body),
        }
    }

    /// A `while` loop (`sited`: its condition is a branch site), iteration by iteration
    /// until the condition is decided false or the body leaves.
    fn while_loop(
        &mut self,
        s: &'p Stmt,
        (cond, sited): (&'p Expr, bool),
        label: &Option<String>,
        body: &'p [Stmt],
    ) -> W<Flow> {
        let head = self.node(NodeKey::stmt(s, Part::Head));
        loop {
            let taken = if sited {
                let key = NodeKey::stmt(s, Part::Branch);
                self.set_at(key);
                let (c, known) = self.eval(cond)?.as_bool()?;
                let n = self.node(key);
                let known = known.filter(|_| !n.is_some_and(|n| self.frame().graph.is_event(n)));
                self.decide_at(n, &c, known, Ask::Branch { loop_cond: true })?
            } else {
                self.decide_silent_loop(cond)?
            };
            if !taken {
                return Ok(Flow::Normal);
            }
            self.iterate(head)?;
            match self.block(body)? {
                Flow::Normal => {}
                Flow::Continue(l) if targets(label, &l) => {}
                Flow::Break(l) if targets(label, &l) => return Ok(Flow::Normal),
                other => return Ok(other),
            }
        }
    }

    /// A `loop`, iteration by iteration until its body leaves (a loop without events is
    /// bounded).
    fn plain_loop(&mut self, s: &'p Stmt, label: &Option<String>, body: &'p [Stmt]) -> W<Flow> {
        let head = self.node(NodeKey::stmt(s, Part::Head));
        let mut n = 0i128;
        loop {
            if head.is_some_and(|h| self.frame().graph.is_event(h)) {
                self.iterate(head)?;
            } else {
                n += 1;
                if n > MAX_SILENT_ITERATIONS {
                    return Err(Halt::Stop("a `loop` without events runs too long".into()));
                }
            }
            match self.block(body)? {
                Flow::Normal => {}
                Flow::Continue(l) if targets(label, &l) => {}
                Flow::Break(l) if targets(label, &l) => return Ok(Flow::Normal),
                other => return Ok(other),
            }
        }
    }

    /// An iteration of a loop that must iterate (a `while` whose condition held, a `loop`).
    fn iterate(&mut self, head: Option<usize>) -> W<()> {
        if let Some(h) = head
            && self.frame().graph.is_event(h)
        {
            self.event(h, Ask::Iteration { may_exit: false })?;
        }
        Ok(())
    }

    fn for_loop(
        &mut self,
        s: &'p Stmt,
        label: &Option<String>,
        var: VarId,
        iteration: &'p Iteration,
        body: &'p [Stmt],
    ) -> W<Flow> {
        let head = self.node(NodeKey::stmt(s, Part::Head));
        let reported = head.is_some_and(|h| self.frame().graph.is_event(h));
        // The iteration count and each iteration's value, as terms.
        enum Over {
            Range(semantics::Range),
            Elements { seq: Val, index: Option<VarId> },
        }
        let over = match iteration {
            Iteration::Range {
                start,
                end,
                inclusive,
                reverse,
                ..
            } => {
                let sv = self.eval(start)?;
                let ev = self.eval(end)?;
                Over::Range(semantics::Range::new(&sv, &ev, *inclusive, *reverse)?)
            }
            Iteration::Elements { seq, index } => Over::Elements {
                seq: self.eval(seq)?,
                index: *index,
            },
        };
        let mut n: i128 = 0;
        loop {
            let (c, known) = match &over {
                Over::Range(range) => range.runs(n),
                Over::Elements { seq, .. } => semantics::element_runs(seq.as_seq()?, n),
            };
            let taken = if reported {
                let h = head.unwrap_or_default();
                let o = self.event(h, Ask::Iteration { may_exit: true })?;
                self.require(&c, o);
                o
            } else {
                match known {
                    Some(k) => k,
                    None => {
                        return Err(Halt::Stop(
                            "a `for` loop without events over a range the inputs decide".into(),
                        ));
                    }
                }
            };
            if !taken {
                return Ok(Flow::Normal);
            }
            if !reported && n > MAX_SILENT_ITERATIONS {
                return Err(Halt::Stop("a loop without events runs too long".into()));
            }
            let item = match &over {
                Over::Range(range) => range.item(n),
                Over::Elements { seq, index } => {
                    let (elem, i) = semantics::element(seq, n)?;
                    if let Some(index) = index {
                        self.frame_mut().env[index.0 as usize] = Some(i);
                    }
                    elem
                }
            };
            self.frame_mut().env[var.0 as usize] = Some(item);
            match self.block(body)? {
                Flow::Normal => {}
                Flow::Continue(l) if targets(label, &l) => {}
                Flow::Break(l) if targets(label, &l) => return Ok(Flow::Normal),
                other => return Ok(other),
            }
            n += 1;
        }
    }

    /// A `while` condition without an event (in a function without instrumentation): only
    /// when the run's value decides it.
    fn decide_silent_loop(&mut self, cond: &'p Expr) -> W<bool> {
        let (c, known) = self.eval(cond)?.as_bool()?;
        match known {
            Some(k) => {
                self.require(&c, k);
                Ok(k)
            }
            None => Err(Halt::Stop(
                "a `while` without events whose condition the inputs decide".into(),
            )),
        }
    }

    /// Both arms of a decision without events, walked under their conditions and merged.
    fn merged(&mut self, cond: &'p Expr, then: &'p [Stmt], otherwise: &'p [Stmt]) -> W<Flow> {
        let (c, _) = self.eval(cond)?.as_bool()?;
        let saved_env = self.frame().env.clone();
        let saved_guard = self.guard.clone();
        self.guard = Bool::and(&[&saved_guard, &c]);
        let a = self.block(then);
        let env_then = std::mem::replace(&mut self.frame_mut().env, saved_env);
        self.guard = Bool::and(&[&saved_guard, &c.not()]);
        let b = self.block(otherwise);
        self.guard = saved_guard;
        if !matches!(a?, Flow::Normal) || !matches!(b?, Flow::Normal) {
            return Err(Halt::Stop("a jump inside a merged decision".into()));
        }
        let env_else = std::mem::take(&mut self.frame_mut().env);
        let merged = env_then
            .into_iter()
            .zip(env_else)
            .map(|(x, y)| match (x, y) {
                (Some(x), Some(y)) => Some(value::ite(&c, None, &x, &y)),
                (x, y) => x.or(y),
            })
            .collect();
        self.frame_mut().env = merged;
        Ok(Flow::Normal)
    }

    /// The outcome a condition without a site of its own takes on the path: its reported
    /// operands are events, the rest choices.
    fn decide(&mut self, e: &'p Expr) -> W<bool> {
        match &e.kind {
            ExprKind::Binary(BinOp::And, a, b) => Ok(self.decide(a)? && self.decide(b)?),
            ExprKind::Binary(BinOp::Or, a, b) => Ok(self.decide(a)? || self.decide(b)?),
            ExprKind::Unary(UnOp::Not, a) if a.ty == Type::Bool => Ok(!self.decide(a)?),
            ExprKind::Branch(inner, _) => {
                let key = NodeKey::expr(e, Part::Branch);
                self.set_at(key);
                let (c, _) = self.eval(inner)?.as_bool()?;
                let n = self.node(key);
                self.decide_at(n, &c, None, Ask::Branch { loop_cond: false })
            }
            _ => {
                let key = NodeKey::expr(e, Part::Leaf);
                self.set_at(key);
                let (c, known) = self.eval(e)?.as_bool()?;
                let known = known.filter(|_| is_const(&c));
                self.decide_at(None, &c, known, Ask::Branch { loop_cond: false })
            }
        }
    }

    fn opaque(&mut self, reason: &str, line: u32, defines: &[VarId]) {
        let func = self.frame().func;
        self.note(format!(
            "`{}` line {line}: {reason}: kept opaque",
            func.name
        ));
        for &v in defines {
            let ty = func.var(v).ty.clone();
            let name = self.name("opaque");
            let fresh = Val::fresh(&ty, &name, self.program, &mut |_, _| {});
            self.frame_mut().env[v.0 as usize] = Some(fresh);
        }
    }

    // -----------------------------------------------------------------------------------
    // Places and expressions

    fn assign(&mut self, place: &'p Place, v: Val) -> W<()> {
        semantics::assign(self, place, v)
    }

    /// The value of `e` (the IR's common meaning in [`semantics`], the walk's own in
    /// [`Walker::own`]).
    fn eval(&mut self, e: &'p Expr) -> W<Val> {
        semantics::eval(self, e)
    }

    /// A quantifier expanded over a range the inputs fix.
    fn expand(&mut self, q: Quantified<'p>, ty: &Type) -> W<Val> {
        let (kind, var, inclusive) = (q.kind, q.var, q.inclusive);
        let (start, end, body) = (q.start, q.end, q.body);
        // A bound the inputs do not decide may still be a constant term (the length of a
        // sequence whose elements alone are inputs).
        let (ts, cs, k) = self.eval(start)?.as_bits()?;
        let (te, ce, ke) = self.eval(end)?.as_bits()?;
        let cs = cs.or_else(|| value::bv_value(&ts.simplify(), k.signed()));
        let ce = ce.or_else(|| value::bv_value(&te.simplify(), ke.signed()));
        let (Some(a), Some(b)) = (cs, ce) else {
            return Err(Halt::Stop(
                "a quantifier over a range the inputs decide".into(),
            ));
        };
        let b = if inclusive { b + 1 } else { b };
        if b - a > 1024 {
            return Err(Halt::Stop("a quantifier over more than 1024 values".into()));
        }
        let saved = self.frame().env[var.0 as usize].clone();
        let mut parts: Vec<Val> = Vec::new();
        for i in a..b.max(a) {
            self.frame_mut().env[var.0 as usize] =
                Some(Val::Bits(value::bv_const(i, k.width()), Some(i), k));
            parts.push(self.eval(body)?);
        }
        self.frame_mut().env[var.0 as usize] = saved;
        match kind {
            Quantifier::Forall | Quantifier::Exists => {
                let mut bs = Vec::new();
                for p in &parts {
                    bs.push(p.as_bool()?.0);
                }
                let refs: Vec<&Bool> = bs.iter().collect();
                let t = if kind == Quantifier::Forall {
                    Bool::and(&refs)
                } else {
                    Bool::or(&refs)
                };
                Ok(Val::Bool(t, None))
            }
            Quantifier::Sum => {
                let bits = value::bits_of(ty)
                    .ok_or_else(|| Halt::Stop("a sum that is not an integer".into()))?;
                let mut acc = Val::Bits(value::bv_const(0, bits.width()), Some(0), bits);
                for p in parts {
                    let (v, panics) = value::binary(BinOp::Add, &acc, &p)?;
                    self.panics_of(panics);
                    acc = v;
                }
                Ok(acc)
            }
        }
    }
}

impl<'p> Interp<'p, 'p> for Walker<'p, '_> {
    type Err = Halt;

    fn program(&self) -> &'p Program {
        self.program
    }

    fn var(&self, v: VarId) -> W<Val> {
        self.frame().env[v.0 as usize].clone().ok_or_else(|| {
            Halt::Stop(format!(
                "`{}` is read before it is set",
                self.frame().func.var_name(v)
            ))
        })
    }

    fn raise(&mut self, panics: Vec<value::Panic>) {
        self.panics_of(panics);
    }

    fn unwrap_none(&mut self, none: Bool, _: Option<bool>) {
        self.panic_if(none, "`unwrap` of `None`".into());
    }

    fn call(&mut self, c: Called<'p>, ty: &Type) -> W<Val> {
        self.follow(c.function, c.args, c.outputs, ty)
    }

    fn quantifier(&mut self, q: Quantified<'p>, ty: &Type) -> W<Val> {
        self.expand(q, ty)
    }

    /// The walk's own meaning of `e`: decisions are events, choices or merged, calls are
    /// followed, quantifiers expanded over ranges the inputs fix.
    fn own(&mut self, e: &'p Expr) -> W<Option<Val>> {
        let v = match &e.kind {
            ExprKind::Binary(op @ (BinOp::And | BinOp::Or | BinOp::Implies), a, b)
                if e.ty == Type::Bool =>
            {
                let (x, cx) = self.eval(a)?.as_bool()?;
                let right_when = semantics::right_runs_when(*op);
                if has_events(self.frame().func, b) {
                    // Whether the right side runs is a decision of the path: an event
                    // (a reported operand) or a constant tells, else it is a choice.
                    let told = matches!(a.kind, ExprKind::Branch(..)) || is_const(&x);
                    let runs = match cx {
                        Some(k) if told => k == right_when,
                        _ => {
                            let o = self.choose();
                            self.require(&x, o);
                            o == right_when
                        }
                    };
                    if !runs {
                        return Ok(Some(Val::Bool(x, cx)));
                    }
                    let (y, cy) = self.eval(b)?.as_bool()?;
                    return Ok(Some(Val::Bool(y, cy)));
                }
                let saved = self.guard.clone();
                let side = if right_when { x.clone() } else { x.not() };
                self.guard = Bool::and(&[&saved, &side]);
                let rb = self.eval(b);
                self.guard = saved;
                let (y, _) = rb?.as_bool()?;
                semantics::connective(*op, (&x, None), (&y, None))
            }
            ExprKind::If {
                cond,
                branch: site,
                then,
                otherwise,
            } => {
                let func = self.frame().func;
                let taken = match site {
                    Some(_) => {
                        let key = NodeKey::expr(e, Part::Branch);
                        self.set_at(key);
                        let (c, _) = self.eval(cond)?.as_bool()?;
                        let n = self.node(key);
                        self.decide_at(n, &c, None, Ask::Branch { loop_cond: false })?
                    }
                    None if !has_events(func, then)
                        && !has_events(func, otherwise)
                        && pure(cond) =>
                    {
                        let (c, _) = self.eval(cond)?.as_bool()?;
                        let saved = self.guard.clone();
                        self.guard = Bool::and(&[&saved, &c]);
                        let t = self.eval(then);
                        self.guard = Bool::and(&[&saved, &c.not()]);
                        let o = self.eval(otherwise);
                        self.guard = saved;
                        return Ok(Some(value::ite(&c, None, &t?, &o?)));
                    }
                    None => self.decide(cond)?,
                };
                self.eval(if taken { then } else { otherwise })?
            }
            ExprKind::Branch(inner, _) => {
                let key = NodeKey::expr(e, Part::Branch);
                self.set_at(key);
                let (c, _) = self.eval(inner)?.as_bool()?;
                let n = self.node(key);
                let o = self.decide_at(n, &c, None, Ask::Branch { loop_cond: false })?;
                Val::Bool(c, Some(o))
            }
            ExprKind::Old(x) => {
                let f = self.frame();
                let old = semantics::old_state(f.func, &f.entry, &f.env);
                let now = std::mem::replace(&mut self.frame_mut().env, old);
                let v = self.eval(x);
                self.frame_mut().env = now;
                v?
            }
            ExprKind::Opaque {
                reason,
                span,
                defines,
            } => {
                self.opaque(reason, span.start.line, defines);
                let name = self.name("opaque");
                Val::fresh(&e.ty, &name, self.program, &mut |_, _| {})
            }
            _ => return Ok(None),
        };
        Ok(Some(v))
    }
}

impl<'p> Store<'p, 'p> for Walker<'p, '_> {
    fn set(&mut self, v: VarId, val: Val) {
        self.frame_mut().env[v.0 as usize] = Some(val);
    }
}

fn targets(label: &Option<String>, jump: &Option<String>) -> bool {
    jump.is_none() || jump == label
}

fn is_const(b: &Bool) -> bool {
    b.simplify().as_bool().is_some()
}

/// Whether `e` has no decision with a site, no call and no `if` inside (so that its value
/// can be taken symbolically as a whole).
fn pure(e: &Expr) -> bool {
    let mut ok = true;
    e.walk(&mut |x| {
        if matches!(
            x.kind,
            ExprKind::Branch(..) | ExprKind::Call { .. } | ExprKind::If { .. }
        ) {
            ok = false;
        }
    });
    ok
}

/// Whether evaluating `e` may produce events: a reported decision, or a call (the callee
/// may be instrumented).
fn has_events(func: &Function, e: &Expr) -> bool {
    let mut found = false;
    e.walk(&mut |x| match &x.kind {
        ExprKind::Branch(_, c) if func.instrumented && c.site.reported => found = true,
        ExprKind::If {
            branch: Some(c), ..
        } if func.instrumented && c.site.reported => found = true,
        ExprKind::Call { .. } => found = true,
        _ => {}
    });
    found
}

/// Whether a block can be walked under a condition and merged: no events, no loops, no
/// jumps, no calls.
fn silent(func: &Function, stmts: &[Stmt]) -> bool {
    let mut ok = true;
    Stmt::walk_all(stmts, &mut |s| {
        match s {
            Stmt::While { .. }
            | Stmt::Loop { .. }
            | Stmt::For { .. }
            | Stmt::Break(_)
            | Stmt::Continue(_)
            | Stmt::Return { .. }
            | Stmt::Panic { .. } => ok = false,
            Stmt::If {
                branch: Some(c), ..
            } if func.instrumented && c.site.reported => ok = false,
            _ => {}
        }
        s.exprs(&mut |e| {
            if has_events(func, e) {
                ok = false;
            }
        });
    });
    ok
}
