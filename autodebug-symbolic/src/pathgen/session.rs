//! The search for one failing call: its runs as walks over the IR (see [`super::walk`]),
//! their feasibility and the inputs that drive them from z3, and the reruns that judge
//! them — the [`Space`] Figure 3 walks.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use autodebug_runtime::protocol::{Binding, SiteKey, Value};
use serde::{Deserialize, Serialize};
use z3::ast::{BV, Bool};
use z3::{Model, Optimize, Params, SatResult, Solver};

use super::cfg::Graphs;
use super::distance::{Event, Kind, depends_on, dist};
use super::search::{Bounds, Search, Space};
use super::walk::{Halt, Inputs, Script, Step, Walked, walk};
use super::{Options, Problem, Rerun, Runner};
use crate::encode::value::{self, Bits, SeqVal, Val};
use crate::encode::{Concrete, Expected};
use crate::ir::{Function, Program, Type};

/// A run of the search: its events and the formulas of the ways the IR walks it.
#[derive(Debug, Clone)]
pub(crate) struct Candidate {
    steps: Vec<Step>,
    events: Vec<Event>,
    /// One per interpretation (decisions without events taken either way).
    forms: Vec<Walked>,
    /// Whether it is feasible (`None`: the solver could not tell).
    feasible: Option<bool>,
}

/// How one input parameter is driven.
#[derive(Debug, Clone)]
enum InputKind {
    /// A scalar the rerun overrides.
    Scalar(Type),
    /// A sequence of scalars of a fixed length whose elements the rerun overrides.
    Elements(Type, usize),
    /// Kept as recorded.
    Fixed,
}

/// A generated run the search tried, for the report.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Tried {
    /// Its distance from the failing run: the branch instances evaluated differently.
    pub distance: Vec<Differing>,
    /// The run, as the events of the call (`line:column` and the outcome of branches).
    pub path: Vec<String>,
    /// Whether z3 found arguments that drive it.
    pub feasibility: Feasibility,
    /// Whether the model predicts that the inputs it found meet the specification.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub predicted_success: Option<bool>,
    /// The rerun's verdict, when one was made.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rerun: Option<String>,
}

/// Whether a generated run can be driven by some arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Feasibility {
    Feasible,
    Infeasible,
    /// The solver could not tell (it timed out).
    Unknown,
}

/// A branch instance of the failing run that the successful run evaluates differently.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Differing {
    /// The branch's site.
    pub site: SiteKey,
    /// Which evaluation of the site in the failing call it is (0-based).
    pub instance: u32,
    /// Its outcome in the failing run (the successful run has the other one).
    pub failing_outcome: bool,
    /// Its position among the failing call's events.
    pub event: usize,
}

/// The successful run the search found.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Found {
    /// The inputs that drive it (the overridden parameters).
    pub inputs: Vec<Binding>,
    /// Its distance from the failing run, in the failing run's order.
    pub distance: Vec<Differing>,
    /// What the rerun showed.
    pub rerun: String,
}

/// What a search did.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Report {
    /// The feasible successful run, if one was found.
    pub found: Option<Found>,
    /// Branch events of the failing call, and how many the search may flip.
    pub failing_branches: usize,
    pub flippable: usize,
    /// Candidate runs generated (each a distance tried), feasible ones, reruns made.
    pub candidates: usize,
    pub feasible: usize,
    pub infeasible: usize,
    /// Feasible runs on which the model predicts no input meets the specification (not
    /// rerun unless asked).
    pub predicted_failing: usize,
    pub reruns: usize,
    /// Reruns that did not follow the generated path (the model missed something).
    pub diverged: usize,
    /// Solver checks, the steps they took (z3's `rlimit` count) and their time.
    pub checks: usize,
    #[serde(default)]
    pub steps: u64,
    pub solver_s: f64,
    /// Why the search stopped before finding a run, when a bound stopped it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
    /// The first candidates tried, in order.
    pub tried: Vec<Tried>,
    /// Approximations the model made.
    pub notes: Vec<String>,
    pub seconds: f64,
}

/// How many tried runs the report lists.
const MAX_TRIED_SHOWN: usize = 40;

pub(crate) struct Session<'p, 'r> {
    program: &'p Program,
    graphs: &'p Graphs,
    func: &'p Function,
    inputs: Inputs,
    kinds: Vec<(String, InputKind, Val)>,
    domain: Vec<Bool>,
    expected: Option<(Val, bool)>,
    no_panic: bool,
    contracts: bool,
    ended_by_panic: bool,
    failing: Vec<Event>,
    /// The recorded arguments, by name.
    recorded: HashMap<String, Value>,
    runner: &'r mut dyn Runner,
    options: Options,
    began: Instant,
    /// z3's step count when the search began.
    began_steps: u64,
    report: Report,
}

/// Runs the search for `problem`: `Err` with the reason when the call is outside what the
/// model covers.
pub(crate) fn run(
    problem: &Problem<'_>,
    options: &Options,
    runner: &mut dyn Runner,
) -> Result<Report, String> {
    let began = Instant::now();
    let program = problem.program;
    let func = program.function(&problem.function).ok_or_else(|| {
        format!(
            "`{}` is not a function of {}",
            problem.function, program.file
        )
    })?;
    if !func.instrumented {
        return Err(format!("`{}` is not instrumented", func.name));
    }
    let graphs = Graphs::of(program);
    let (inputs, kinds, domain) = inputs_of(program, func, problem)?;
    let expected = match &problem.spec.ret {
        Expected::Value(c) => Some((from_concrete(program, &func.ret_ty, c), true)),
        Expected::Other(c) => Some((from_concrete(program, &func.ret_ty, c), false)),
        Expected::Nothing | Expected::Recorded => None,
    };
    let mut session = Session {
        program,
        graphs: &graphs,
        func,
        inputs,
        kinds,
        domain,
        expected,
        no_panic: problem.spec.no_panic,
        contracts: problem.spec.contracts,
        ended_by_panic: problem.ended_by_panic,
        failing: Vec::new(),
        recorded: problem.recorded_args.iter().cloned().collect(),
        runner,
        options: options.clone(),
        began,
        began_steps: crate::steps::taken(),
        report: Report::default(),
    };
    let failing = session.failing_run(&problem.failing)?;
    session.failing = failing.events.clone();
    let loop_branch = loop_branches(&graphs);
    let events = failing.events.clone();
    session.report.failing_branches = events.iter().filter(|e| e.is_branch()).count();
    let flags: Vec<bool> = events
        .iter()
        .map(|e| loop_branch.get(&e.stmt).copied().unwrap_or(false))
        .collect();
    let bounds: Bounds = options.bounds.clone();
    session.report.flippable = events
        .iter()
        .zip(&flags)
        .filter(|(e, l)| e.is_branch() && (bounds.flip_loops || !**l))
        .count();
    let mut search = Search::new(session, &events, |i| flags[i], bounds);
    let found = search.run(failing);
    let mut session = search.into_space();
    if found.is_none() && session.report.stopped.is_none() && session.exhausted() {
        session.report.stopped = Some(session.budget_spent());
    }
    session.report.seconds = began.elapsed().as_secs_f64();
    Ok(session.report)
}

/// Which sites are branches of loops, over every function.
fn loop_branches(graphs: &Graphs) -> HashMap<SiteKey, bool> {
    let mut out = HashMap::new();
    for g in graphs.by_fn.values() {
        for (n, node) in g.nodes.iter().enumerate() {
            if let Some(site) = &node.site {
                out.insert(site.clone(), g.loop_branch[n]);
            }
        }
    }
    out
}

fn from_concrete(program: &Program, ty: &Type, c: &Concrete) -> Val {
    Val::from_concrete(ty, c, "pg!expected", program, &mut |_, _| {})
}

/// Whether a recorded value is known whole.
fn known(c: &Concrete) -> bool {
    match c {
        Concrete::Unknown => false,
        Concrete::Seq { items, len } => items.len() == *len && items.iter().all(known),
        Concrete::Tuple(cs) => cs.iter().all(known),
        Concrete::Struct(_, fs) => fs.iter().all(|(_, c)| known(c)),
        Concrete::Option(Some(c)) => known(c),
        _ => true,
    }
}

fn scalar(ty: &Type) -> bool {
    matches!(ty, Type::Int(_) | Type::Bool | Type::Char)
}

/// The call's inputs: a symbolic value for each parameter the rerun can override, the
/// recorded value for the others; and the constraints that keep the symbolic ones inside
/// their types' domains (`char`s are Unicode scalar values).
#[allow(clippy::type_complexity)]
fn inputs_of(
    program: &Program,
    func: &Function,
    problem: &Problem<'_>,
) -> Result<(Inputs, Vec<(String, InputKind, Val)>, Vec<Bool>), String> {
    let mut values = Vec::new();
    let mut kinds = Vec::new();
    let mut domain = Vec::new();
    let mut any = false;
    for (i, &p) in func.params.iter().enumerate() {
        let var = func.var(p);
        let recorded = problem
            .recorded_args
            .iter()
            .find(|(n, _)| *n == var.name)
            .or_else(|| problem.recorded_args.get(i))
            .map(|(_, v)| v);
        let name = format!("pgin!{}", var.name);
        let mut_ref = var.is_mut_param();
        let (kind, val) = match (&var.ty, recorded) {
            (ty, _) if scalar(ty) && !mut_ref => {
                let v = Val::fresh(ty, &name, program, &mut |_, _| {});
                (InputKind::Scalar(ty.clone()), v)
            }
            (Type::Seq { elem, .. }, Some(Value::Seq { len, .. }))
                if problem.override_sequences && scalar(elem) && !mut_ref =>
            {
                let v = Val::fresh(&var.ty, &name, program, &mut |_, _| {});
                let v = match v {
                    Val::Seq(s) => Val::Seq(Box::new(SeqVal {
                        len: value::bv_const(*len as i128, 64),
                        ..*s
                    })),
                    other => other,
                };
                (InputKind::Elements((**elem).clone(), *len), v)
            }
            (ty, Some(v)) => {
                let c = Concrete::from_value(v);
                if !known(&c) && !ty.is_opaque() && *ty != Type::Unit {
                    return Err(format!(
                        "argument `{}` was not recorded whole and cannot be overridden: a path \
                         condition over it would not say what the rerun does",
                        var.name
                    ));
                }
                (
                    InputKind::Fixed,
                    Val::from_concrete(ty, &c, &name, program, &mut |_, _| {}),
                )
            }
            (ty, None) if *ty == Type::Unit => (InputKind::Fixed, Val::Unit),
            (_, None) => {
                return Err(format!("argument `{}` was not recorded", var.name));
            }
        };
        if !matches!(kind, InputKind::Fixed) {
            any = true;
        }
        for leaf in char_leaves(&kind, &val) {
            domain.push(valid_char(&leaf));
        }
        kinds.push((var.name.clone(), kind, val.clone()));
        values.push(val);
    }
    if !any {
        let shown: Vec<String> = func
            .params
            .iter()
            .map(|&p| format!("`{}: {}`", func.var(p).name, func.var(p).ty))
            .collect();
        return Err(format!(
            "no argument of `{}` can be overridden (only primitive ones, and sequences of them, \
             can): {}",
            func.name,
            if shown.is_empty() {
                "it takes none".to_string()
            } else {
                shown.join(", ")
            }
        ));
    }
    Ok((Inputs { values }, kinds, domain))
}

fn char_leaves(kind: &InputKind, v: &Val) -> Vec<BV> {
    match (kind, v) {
        (InputKind::Scalar(Type::Char), Val::Bits(bv, _, Bits::Char)) => vec![bv.clone()],
        (InputKind::Elements(Type::Char, len), Val::Seq(s)) => (0..*len)
            .filter_map(|i| s.arrs[0].select(&value::bv_const(i as i128, 64)).as_bv())
            .collect(),
        _ => Vec::new(),
    }
}

fn valid_char(c: &BV) -> Bool {
    let below = c.bvult(value::bv_const(0xD800, 32));
    let above = Bool::and(&[
        &c.bvugt(value::bv_const(0xDFFF, 32)),
        &c.bvule(value::bv_const(0x10FFFF, 32)),
    ]);
    Bool::or(&[&below, &above])
}

/// The next choice vector after `decided`, depth first (`true` before `false`).
fn backtrack(decided: &[bool]) -> Option<Vec<bool>> {
    let i = decided.iter().rposition(|&c| c)?;
    let mut next = decided[..i].to_vec();
    next.push(false);
    Some(next)
}

/// `line:column` of a site, with the outcome of a branch, for people.
fn shown_step(s: &Step) -> String {
    match s.kind {
        Kind::Branch(o) => format!("{}:{} {}", s.stmt.line, s.stmt.column, o),
        Kind::Iteration => format!("{}:{} loop", s.stmt.line, s.stmt.column),
        Kind::Entry => format!("{}:{} entry", s.stmt.line, s.stmt.column),
    }
}

impl Session<'_, '_> {
    fn note(&mut self, note: String) {
        if !self.report.notes.contains(&note) {
            self.report.notes.push(note);
        }
    }

    fn budget_spent(&self) -> String {
        if self.report.reruns >= self.options.max_reruns {
            format!("the cap of {} reruns was reached", self.options.max_reruns)
        } else if self.report.candidates >= self.options.max_candidates {
            format!(
                "the cap of {} candidate runs was reached",
                self.options.max_candidates
            )
        } else if self.report.steps >= self.options.budget_steps {
            format!(
                "the budget of {} solver steps was spent",
                self.options.budget_steps
            )
        } else {
            format!(
                "the time budget of {} s was spent",
                self.options.budget.as_secs()
            )
        }
    }

    /// Every way the IR walks `script`, grouped by the events they produce (at most
    /// `max_walks` walks).
    fn walks(&mut self, script: Script<'_>) -> Result<Vec<Candidate>, String> {
        let mut groups: Vec<Candidate> = Vec::new();
        let mut choices: Vec<bool> = Vec::new();
        let mut stops: Vec<String> = Vec::new();
        for _ in 0..self.options.max_walks {
            let (result, decided) = walk(
                self.program,
                self.graphs,
                self.func,
                &self.inputs,
                Script {
                    choices: &choices,
                    ..script
                },
            );
            match result {
                Ok(w) => {
                    // A walk from a forgotten state notes what that state leaves unknown.
                    if script.havoc.is_none() {
                        for n in &w.notes {
                            self.note(n.clone());
                        }
                    }
                    let steps: Vec<Step> = w
                        .events
                        .iter()
                        .map(|e| Step {
                            stmt: e.stmt.clone(),
                            kind: e.kind,
                        })
                        .collect();
                    match groups.iter_mut().find(|g| g.steps == steps) {
                        Some(g) => g.forms.push(w),
                        None => groups.push(Candidate {
                            steps,
                            events: w.events.clone(),
                            forms: vec![w],
                            feasible: None,
                        }),
                    }
                }
                Err(Halt::Stop(why)) => {
                    if !stops.contains(&why) {
                        stops.push(why);
                    }
                }
                Err(_) => {}
            }
            match backtrack(&decided) {
                Some(next) => choices = next,
                None => {
                    if groups.is_empty() && !stops.is_empty() {
                        return Err(stops.join("; "));
                    }
                    return Ok(groups);
                }
            }
        }
        self.note(format!(
            "a path was walked in more than {} ways (decisions without events): the others \
             are left out",
            self.options.max_walks
        ));
        Ok(groups)
    }

    /// The failing run, replayed over the IR; its recorded inputs must satisfy its path
    /// condition, or the model does not describe it.
    fn failing_run(&mut self, steps: &[Step]) -> Result<Candidate, String> {
        let script = Script {
            steps,
            explore: None,
            suffix: &[],
            ended_by_panic: self.ended_by_panic,
            choices: &[],
            havoc: None,
        };
        let mut groups = self
            .walks(script)
            .map_err(|why| format!("the failing call cannot be walked: {why}"))?;
        let Some(mut failing) = groups.pop() else {
            return Err(
                "the model of the function does not follow the failing run's events".into(),
            );
        };
        // The recorded inputs on the path the model predicts.
        let pinned: Vec<Bool> = self
            .kinds
            .iter()
            .filter(|(_, k, _)| !matches!(k, InputKind::Fixed))
            .filter_map(|(name, _, v)| {
                let recorded = self.recorded.get(name)?;
                let c = Val::from_concrete(
                    &self.type_of(name)?,
                    &Concrete::from_value(recorded),
                    "pg!recorded",
                    self.program,
                    &mut |_, _| {},
                );
                value::equal(v, &c).ok().map(|(b, _)| b)
            })
            .collect();
        let f = self.feasibility(&failing);
        let check = Bool::and(&[&f, &Bool::and(&pinned.iter().collect::<Vec<_>>())]);
        match self.solve(&check) {
            (SatResult::Unsat, _) => {
                return Err(
                    "the model of the function does not reproduce the failing run (its path \
                     condition excludes the recorded inputs)"
                        .into(),
                );
            }
            (SatResult::Unknown, _) => self.note(
                "the solver could not confirm that the model reproduces the failing run".into(),
            ),
            (SatResult::Sat, _) => {}
        }
        failing.feasible = Some(true);
        Ok(failing)
    }

    fn type_of(&self, name: &str) -> Option<Type> {
        self.func
            .params
            .iter()
            .map(|&p| self.func.var(p))
            .find(|v| v.name == name)
            .map(|v| v.ty.clone())
    }

    /// `F(π)`: the path is taken — its branch outcomes and loop counts, the call's
    /// preconditions, no panic before its last event — over any of its interpretations.
    fn feasibility(&self, c: &Candidate) -> Bool {
        let total = c.events.len();
        let forms: Vec<Bool> = c
            .forms
            .iter()
            .map(|w| {
                let mut parts: Vec<Bool> = w.path.iter().map(|(_, b)| b.clone()).collect();
                parts.extend(w.assume.iter().cloned());
                parts.extend(
                    w.panics
                        .iter()
                        .filter(|(at, _, _)| *at < total)
                        .map(|(_, p, _)| p.not()),
                );
                parts.extend(self.domain.iter().cloned());
                Bool::and(&parts.iter().collect::<Vec<_>>())
            })
            .collect();
        Bool::or(&forms.iter().collect::<Vec<_>>())
    }

    /// `F(π) ∧ S(π)`: taken, and the call meets its specification on it (no panic after
    /// the last event either, its postconditions, the expected return value).
    fn success(&self, c: &Candidate) -> Bool {
        let total = c.events.len();
        let forms: Vec<Bool> = c
            .forms
            .iter()
            .map(|w| {
                let mut parts: Vec<Bool> = w.path.iter().map(|(_, b)| b.clone()).collect();
                parts.extend(w.assume.iter().cloned());
                parts.extend(self.domain.iter().cloned());
                for (at, p, _) in &w.panics {
                    if *at < total || self.no_panic {
                        parts.push(p.not());
                    }
                }
                if self.no_panic && w.panicked.is_some() {
                    parts.push(Bool::from_bool(false));
                }
                if self.contracts {
                    parts.extend(w.post.iter().map(|(b, _)| b.clone()));
                }
                if let (Some((want, equal)), Some(ret)) = (&self.expected, &w.ret)
                    && let Ok((eq, _)) = value::equal(ret, want)
                {
                    parts.push(if *equal { eq } else { eq.not() });
                }
                Bool::and(&parts.iter().collect::<Vec<_>>())
            })
            .collect();
        Bool::or(&forms.iter().collect::<Vec<_>>())
    }

    /// A check's limits: its own step limit, within what is left of the search's.
    fn check_params(&self) -> Params {
        let left = self.options.budget_steps.saturating_sub(self.report.steps);
        crate::steps::params(
            crate::steps::limit(left.min(u64::from(self.options.check_steps))).max(1),
        )
    }

    /// Accounts a check that began at `began`.
    fn checked(&mut self, began: Instant) {
        self.report.checks += 1;
        self.report.steps = crate::steps::taken() - self.began_steps;
        self.report.solver_s += began.elapsed().as_secs_f64();
    }

    fn solve(&mut self, f: &Bool) -> (SatResult, Option<Model>) {
        let began = Instant::now();
        let solver = Solver::new();
        solver.set_params(&self.check_params());
        solver.assert(f);
        let result = solver.check();
        self.checked(began);
        let model = (result == SatResult::Sat)
            .then(|| solver.get_model())
            .flatten();
        (result, model)
    }

    /// A model of `f` with the inputs close to the recorded ones: within [`NEAR`] of each
    /// (each element of a sequence) if it can, with the sum of the distances minimized as
    /// far as the solver gets in time; any model otherwise.
    fn solve_near(&mut self, f: &Bool) -> (SatResult, Option<Model>) {
        let began = Instant::now();
        let (distances, box_terms, soft) = self.nearness();
        let optimize = Optimize::new();
        optimize.set_params(&self.check_params());
        optimize.assert(f);
        for b in &box_terms {
            optimize.assert(b);
        }
        for s in &soft {
            optimize.assert_soft(s, 1, None);
        }
        if !distances.is_empty() {
            // Inside the box every distance is small: their sum fits 64 bits.
            let total = distances
                .iter()
                .map(|d| d.extract(63, 0))
                .reduce(|acc, d| acc.bvadd(&d))
                .unwrap_or_else(|| value::bv_const(0, 64));
            optimize.minimize(&total);
        }
        let result = optimize.check(&[]);
        self.checked(began);
        match result {
            SatResult::Sat => (result, optimize.get_model()),
            // Not near the recorded inputs, or not in time: any model will do.
            _ => self.solve(f),
        }
    }

    /// For every overridable input: its distance from the recorded value (integers), the
    /// box `distance <= NEAR`, and equality as a soft constraint (booleans).
    fn nearness(&self) -> (Vec<BV>, Vec<Bool>, Vec<Bool>) {
        let mut distances: Vec<BV> = Vec::new();
        let mut box_terms: Vec<Bool> = Vec::new();
        let mut soft: Vec<Bool> = Vec::new();
        for (name, kind, val) in &self.kinds {
            let Some(recorded) = self.recorded.get(name) else {
                continue;
            };
            let ty = match kind {
                InputKind::Scalar(ty) => ty.clone(),
                InputKind::Elements(..) => match self.type_of(name) {
                    Some(ty) => ty,
                    None => continue,
                },
                InputKind::Fixed => continue,
            };
            let want = from_concrete(self.program, &ty, &Concrete::from_value(recorded));
            let mut pairs: Vec<(z3::ast::Dynamic, z3::ast::Dynamic, bool)> = Vec::new();
            match (kind, val, &want) {
                (InputKind::Elements(elem, len), Val::Seq(a), Val::Seq(b)) => {
                    let signed = matches!(elem, Type::Int(t) if t.signed());
                    for i in 0..*len {
                        let at = value::bv_const(i as i128, 64);
                        if let (Some(x), Some(y)) = (a.arrs.first(), b.arrs.first()) {
                            pairs.push((x.select(&at), y.select(&at), signed));
                        }
                    }
                }
                (_, Val::Bits(x, _, k), Val::Bits(y, _, _)) => pairs.push((
                    z3::ast::Dynamic::from_ast(x),
                    z3::ast::Dynamic::from_ast(y),
                    k.signed(),
                )),
                (_, Val::Bool(x, _), Val::Bool(y, _)) => pairs.push((
                    z3::ast::Dynamic::from_ast(x),
                    z3::ast::Dynamic::from_ast(y),
                    false,
                )),
                _ => {}
            }
            for (x, y, signed) in pairs {
                match (x.as_bv(), y.as_bv()) {
                    (Some(x), Some(y)) => {
                        let d = distance(&x, &y, signed);
                        box_terms.push(d.bvule(value::bv_const(NEAR, 160)));
                        distances.push(d);
                    }
                    _ => soft.push(x.eq(&y)),
                }
            }
        }
        (distances, box_terms, soft)
    }

    /// The overridden arguments a model gives.
    fn arguments(&self, model: &Model) -> Vec<Binding> {
        let mut out = Vec::new();
        for (name, kind, val) in &self.kinds {
            let v = match (kind, val) {
                (InputKind::Scalar(ty), v) => scalar_value(model, ty, v),
                (InputKind::Elements(elem, len), Val::Seq(s)) => {
                    let items: Option<Vec<Value>> = (0..*len)
                        .map(|i| {
                            let at = value::bv_const(i as i128, 64);
                            let term = s.arrs.first()?.select(&at);
                            let leaf = match elem {
                                Type::Bool => Val::Bool(term.as_bool()?, None),
                                _ => Val::Bits(term.as_bv()?, None, value::bits_of(elem)?),
                            };
                            scalar_value(model, elem, &leaf)
                        })
                        .collect();
                    items.map(|items| Value::Seq { len: *len, items })
                }
                _ => None,
            };
            if let Some(v) = v {
                out.push((name.clone(), v));
            }
        }
        out
    }

    /// Whether some interpretation of `c` from its event `from` on is feasible from any
    /// state (the paper's sub-path feasibility).
    fn feasible_after(&mut self, c: &Candidate, from: usize) -> bool {
        let script = Script {
            steps: &c.steps,
            explore: None,
            suffix: &[],
            ended_by_panic: self.ended_by_panic,
            choices: &[],
            havoc: Some(from),
        };
        let Ok(groups) = self.walks(script) else {
            return true;
        };
        groups.iter().any(|g| {
            let f = self.feasibility(g);
            self.solve(&f).0 != SatResult::Unsat
        })
    }

    fn tried(
        &mut self,
        c: &Candidate,
        feasibility: Feasibility,
        predicted: Option<bool>,
        rerun: Option<String>,
    ) {
        if self.report.tried.len() >= MAX_TRIED_SHOWN {
            return;
        }
        let distance = self.differing(&dist(&self.failing, &c.events));
        self.report.tried.push(Tried {
            distance,
            path: c.steps.iter().map(shown_step).collect(),
            feasibility,
            predicted_success: predicted,
            rerun,
        });
    }

    /// The failing run's events at `indices`, as branch instances.
    fn differing(&self, indices: &[usize]) -> Vec<Differing> {
        indices
            .iter()
            .filter_map(|&i| {
                let e = self.failing.get(i)?;
                let Kind::Branch(o) = e.kind else { return None };
                let instance = self.failing[..i]
                    .iter()
                    .filter(|x| x.stmt == e.stmt)
                    .count();
                Some(Differing {
                    site: e.stmt.clone(),
                    instance: instance as u32,
                    failing_outcome: o,
                    event: i,
                })
            })
            .collect()
    }
}

/// How far from its recorded value a generated input may be before any value will do.
const NEAR: i128 = 1 << 16;

/// `|x - y|` of two bit-vectors of one width, as an unsigned 160-bit term (no overflow,
/// and a sum of many stays exact).
fn distance(x: &BV, y: &BV, signed: bool) -> BV {
    let extend = |b: &BV| {
        let more = 160 - b.get_size();
        if signed {
            b.sign_ext(more)
        } else {
            b.zero_ext(more)
        }
    };
    let (x, y) = (extend(x), extend(y));
    x.bvsge(&y).ite(&x.bvsub(&y), &y.bvsub(&x))
}

fn scalar_value(model: &Model, ty: &Type, v: &Val) -> Option<Value> {
    match (ty, v) {
        (Type::Bool, Val::Bool(b, _)) => model.eval(b, true)?.as_bool().map(Value::Bool),
        (Type::Int(t), Val::Bits(bv, _, _)) => {
            let x = model.eval(bv, true)?;
            let n = value::bv_value(&x, t.signed())?;
            Some(Value::Int {
                ty: t.name().to_string(),
                v: n,
            })
        }
        (Type::Char, Val::Bits(bv, _, _)) => {
            let x = model.eval(bv, true)?;
            let n = value::bv_value(&x, false)?;
            char::from_u32(u32::try_from(n).ok()?).map(Value::Char)
        }
        _ => None,
    }
}

impl Space for Session<'_, '_> {
    type Run = Candidate;

    fn events<'a>(&'a self, run: &'a Candidate) -> &'a [Event] {
        &run.events
    }

    fn flip(&mut self, run: &Candidate, br: usize) -> Vec<Candidate> {
        let Some(Kind::Branch(o)) = run.steps.get(br).map(|s| s.kind) else {
            return Vec::new();
        };
        let de = (br + 1..run.events.len())
            .find(|&i| !depends_on(&run.events, i, br))
            .unwrap_or(run.events.len());
        let mut prefix: Vec<Step> = run.steps[..=br].to_vec();
        prefix[br].kind = Kind::Branch(!o);
        let suffix = run.steps[de..].to_vec();
        let script = Script {
            steps: &prefix,
            explore: Some(br),
            suffix: &suffix,
            ended_by_panic: self.ended_by_panic,
            choices: &[],
            havoc: None,
        };
        let groups = match self.walks(script) {
            Ok(groups) => groups,
            Err(why) => {
                self.note(format!("a flipped path cannot be walked: {why}"));
                return Vec::new();
            }
        };
        let mut out = Vec::new();
        for mut c in groups {
            if self.exhausted() {
                break;
            }
            let f = self.feasibility(&c);
            c.feasible = match self.solve(&f).0 {
                SatResult::Sat => Some(true),
                SatResult::Unsat => Some(false),
                SatResult::Unknown => None,
            };
            // Line 11: an infeasible π' ∘ π2 is not extended.
            if c.feasible == Some(false) && !self.feasible_after(&c, br) {
                self.report.candidates += 1;
                self.report.infeasible += 1;
                self.tried(&c, Feasibility::Infeasible, None, None);
                continue;
            }
            out.push(c);
        }
        out
    }

    fn suffix_feasible(&mut self, run: &Candidate, from: usize) -> bool {
        self.feasible_after(run, from)
    }

    fn try_run(&mut self, c: &Candidate, distance: &[usize]) -> bool {
        self.report.candidates += 1;
        let actual = dist(&self.failing, &c.events);
        if actual != distance {
            self.note(format!(
                "a run built for distance {distance:?} has distance {actual:?}"
            ));
        }
        match c.feasible {
            Some(false) => {
                self.report.infeasible += 1;
                self.tried(c, Feasibility::Infeasible, None, None);
                return false;
            }
            None => {
                self.tried(c, Feasibility::Unknown, None, None);
                return false;
            }
            Some(true) => self.report.feasible += 1,
        }
        let s = self.success(c);
        let (result, model) = self.solve_near(&s);
        let (model, predicted) = match (result, model) {
            (SatResult::Sat, Some(m)) => (m, true),
            _ => {
                self.report.predicted_failing += 1;
                if !self.options.rerun_predicted_failing {
                    self.tried(c, Feasibility::Feasible, Some(false), None);
                    return false;
                }
                let f = self.feasibility(c);
                match self.solve_near(&f) {
                    (SatResult::Sat, Some(m)) => (m, false),
                    _ => {
                        self.tried(c, Feasibility::Feasible, Some(false), None);
                        return false;
                    }
                }
            }
        };
        if self.report.reruns >= self.options.max_reruns {
            self.tried(c, Feasibility::Feasible, Some(predicted), None);
            return false;
        }
        let inputs = self.arguments(&model);
        self.report.reruns += 1;
        let rerun: Rerun = self.runner.rerun(&inputs);
        let followed = rerun.path.as_ref().map(|p| *p == c.steps);
        let verdict = match (rerun.successful, followed) {
            (true, Some(true)) => "successful".to_string(),
            (true, Some(false)) => "successful, but on another path".to_string(),
            (true, None) => "successful, path not recorded".to_string(),
            (false, _) => "failing".to_string(),
        } + &if rerun.detail.is_empty() {
            String::new()
        } else {
            format!(": {}", rerun.detail)
        };
        if followed == Some(false) {
            self.report.diverged += 1;
        }
        self.tried(
            c,
            Feasibility::Feasible,
            Some(predicted),
            Some(verdict.clone()),
        );
        if rerun.successful && followed == Some(true) {
            self.report.found = Some(Found {
                inputs,
                distance: self.differing(&actual),
                rerun: verdict,
            });
            return true;
        }
        false
    }

    fn exhausted(&self) -> bool {
        self.report.reruns >= self.options.max_reruns
            || self.report.candidates >= self.options.max_candidates
            || self.report.steps >= self.options.budget_steps
            || self.began.elapsed() >= self.options.budget
    }
}

/// The default solver steps for one search: about 30 s of z3 on the project's machine.
pub(crate) const DEFAULT_STEPS: u64 = 120_000_000;

/// The default time net of one search.
pub(crate) const DEFAULT_BUDGET: Duration = Duration::from_secs(150);
