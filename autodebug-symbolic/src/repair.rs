//! Template-based repair (issue 6; Könighofer & Bloem, sections III-E to III-G): for a
//! diagnosis, replacement expressions of its components that make every recorded call meet
//! its specification — the failing calls their expected results, contracts and "no panic",
//! the accepted and passing calls what they returned — found by z3, returned simplest
//! first, and refined by the counterexamples validation brings back (CEGIS).
//!
//! Each diagnosed component gets a menu of templates ([`Kind`]): the one-token corrections
//! of the AutoDebug paper's classes, a solver-chosen constant, `k0 + Σ ki*vi`, a condition
//! `k0 + Σ ki*vi OP 0`, a clause added to the written condition. The calls are encoded as
//! the diagnosis encodes them ([`crate::encode`]): each call's variables are its own, the
//! template parameters are shared by all of them (the joint formulation), every component
//! outside the diagnosis behaves as written. A diagnosis of several components takes one
//! template per component, solved jointly; combinations are tried by increasing
//! expressiveness. Within a combination:
//!
//! - one-token corrections are a finite choice, checked one by one in their order under
//!   assumptions (every call at once: with the choice fixed the runs are nearly concrete);
//! - the other templates follow the paper's refinement loop (its Fig. 3): z3's `Optimize`
//!   finds parameters for the failing calls and the calls that refuted earlier instances,
//!   keeping as many soft "simple" constraints as it can (parameters zero, then small); the
//!   instance is then checked against every other call with its parameters fixed, and a call
//!   it fails joins the optimization. Each instance found is excluded to find the next.
//!
//! ```ignore
//! let mut synth = Synthesizer::new(&program, &calls, &[site], Options::default());
//! while let Some(candidate) = synth.next() {
//!     match validate(&candidate) {       // rerun the suite with the replacement
//!         Ok(()) => break,                // plausible
//!         Err(failed_call) => {
//!             synth.refute(&candidate, &failed_call);
//!         }
//!     }
//! }
//! ```
//!
//! A returned candidate agrees with every call that could be encoded ([`Report::calls`]
//! names the others). The agreement is the model's, which is approximate where the encoding
//! is: loops are unrolled to the recorded iterations plus the encoder's slack (a candidate
//! needing more iterations is not found); values the model cannot compute are free (a
//! candidate may rely on them); the sum of a linear template is checked whole, while Rust
//! evaluates the printed sum term by term in the site's type (an intermediate overflow shows
//! only at validation), and the two printed sides of a condition template are each computed
//! in the compared type. [`Edit::expr`] is the replacement as the runtime can evaluate it
//! (over the scalars in scope, the sides of the written comparison as the branch hook
//! reports them, and the written value itself): missing when it reads what the site does not
//! report, annotated ([`Edit::note`]) when it behaves differently from the patched code.
//! Solver work is bounded in z3's steps (see [`crate::steps`]) per combination of templates
//! ([`Options::template_steps`]) and overall ([`Options::budget_steps`]), with a time net
//! ([`Options::budget`]); what was cut is in [`Report::cuts`].
//!
//! [`explain_switch`] builds condition candidates from a switched branch's instances alone
//! (issue 6, item 6).

mod eval;
mod mutate;
mod print;
mod site;
mod switching;
mod template;

use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};
use std::time::{Duration, Instant};

use autodebug_runtime::protocol::{self, Replacement, SiteKey, SiteKind, Target};
use z3::ast::Bool;
use z3::{Optimize, SatResult, Solver};

use crate::conflicts::{ComponentId, Role, Z3Oracle};
use crate::encode::{self, Call, Encoder, Formula, equal_leaves};
use crate::ir::{Function, Program};
use eval::{Evaluator, same_shape, scope_env};
use print::Texts;
use site::Located;
use template::{Limits, Template};

pub use switching::{Switched, SwitchedInstance, explain_switch};

/// The kinds of templates, from simplest to most expressive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// One-token corrections: a relational, arithmetic or boolean operator swapped, a
    /// negation added or removed, a variable swapped for another of its type in scope, a
    /// constant moved by one, a clause dropped, a loop bound moved by one.
    Mutation,
    /// A literal of the written expression replaced by a value the solver chooses.
    Constant,
    /// `k0 + k1*v1 + … + kn*vn` over the integer variables in scope.
    Linear,
    /// `k0 + Σ ki*vi OP 0` with the comparison `OP` chosen too.
    Condition,
    /// The written condition with a condition template added by `&&` or `||`.
    Clause,
}

impl Kind {
    /// Every kind.
    pub const ALL: [Kind; 5] = [
        Kind::Mutation,
        Kind::Constant,
        Kind::Linear,
        Kind::Condition,
        Kind::Clause,
    ];
}

/// How far synthesis goes.
#[derive(Debug, Clone)]
pub struct Options {
    /// How calls are encoded (unrolling slack, inlining).
    pub encode: encode::Options,
    /// The templates tried.
    pub kinds: Vec<Kind>,
    /// Solver steps for one combination of templates (all its checks): a template that
    /// uses them up is left (and said so in [`Report::cuts`]).
    pub template_steps: u32,
    /// Solver steps for the whole synthesizer, from its creation.
    pub budget_steps: Option<u64>,
    /// Time for the whole synthesizer, from its creation: a safety net for what steps do
    /// not count (the encoding).
    pub budget: Option<Duration>,
    /// Candidates taken from one combination of templates before the next is tried.
    pub per_template: usize,
    /// Largest coefficient of a variable in linear and condition templates.
    pub max_coefficient: i128,
    /// Most variables in a linear or condition template.
    pub max_vars: usize,
    /// Most literals of one component given a solver-chosen value.
    pub max_constants: usize,
    /// Most combinations of templates tried for a diagnosis of several components.
    pub max_combinations: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            encode: encode::Options::default(),
            kinds: Kind::ALL.to_vec(),
            // About 5 s of z3 on the project's machine.
            template_steps: 20_000_000,
            budget_steps: None,
            budget: None,
            per_template: 5,
            max_coefficient: 4,
            max_vars: 8,
            max_constants: 3,
            max_combinations: 32,
        }
    }
}

/// One replacement in a candidate.
#[derive(Debug, Clone, PartialEq)]
pub struct Edit {
    /// The component replaced.
    pub site: SiteKey,
    /// The span's text as written.
    pub original: String,
    /// The replacement as Rust source for the span (`y`, `x + 1`, `a[mid] <= key`).
    pub rust: String,
    /// The replacement as the runtime evaluates it (a plan's [`Replacement`]); `None` when
    /// it reads what the site does not report (an element of a slice, a length, unless it is
    /// a side of the written comparison that the branch's events recorded, read as
    /// [`protocol::Expr::Operand`]): such a candidate is validated by patching instead.
    pub expr: Option<protocol::Expr>,
    /// Why `expr` is missing, or how evaluating it at run time differs from the patch.
    pub note: Option<String>,
    /// The kind of correction (`relational-operator`, `variable`, `constant±1`, `linear`,
    /// `condition`, …), in the report's words.
    pub template: &'static str,
}

/// A repair candidate: one edit per diagnosed component, agreeing with every encoded call.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// The edits, in the order of the diagnosis.
    pub edits: Vec<Edit>,
    /// How complex the candidate is (lower is simpler): one for a one-token correction, more
    /// for each term and constant of a synthesized expression.
    pub cost: u32,
}

impl Candidate {
    /// The plan replacements that validate the candidate without a rebuild (every instance
    /// of each site), when every edit has a runtime expression.
    pub fn replacements(&self) -> Option<Vec<Replacement>> {
        self.edits
            .iter()
            .map(|e| {
                Some(Replacement {
                    target: Target {
                        site: e.site.clone(),
                        instance: None,
                    },
                    expr: e.expr.clone()?,
                })
            })
            .collect()
    }
}

/// What became of one call given to the synthesizer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallNote {
    /// Its test.
    pub test: String,
    /// Failing or passing.
    pub role: Role,
    /// Whether candidates are checked against it.
    pub encoded: bool,
    /// Why it is not (the encoder's degradations).
    pub reasons: Vec<String>,
}

/// What synthesis did and did not do.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// Why no candidate can come at all (an unsupported component, no encodable failing
    /// call), when that is so.
    pub unsupported: Vec<String>,
    /// The calls, encoded or not.
    pub calls: Vec<CallNote>,
    /// Templates left unfinished: a solver time limit, the budget.
    pub cuts: Vec<String>,
    /// Templates found unusable for one combination (a template that cannot be evaluated
    /// where its component runs).
    pub skipped: Vec<String>,
    /// Solver checks made.
    pub checks: usize,
}

/// A diagnosed component and its templates.
struct Component<'p> {
    key: SiteKey,
    located: Located<'p>,
    id: ComponentId,
    texts: Texts,
    menu: Vec<Template>,
}

/// One encoded call: its formula and what it is.
struct Encoded {
    formula: Formula,
    role: Role,
    /// Added by [`Synthesizer::refute`]: a call known to matter.
    counterexample: bool,
}

/// The solver of one combination of templates. Every call's constraints are asserted under
/// an activation literal: the optimization sees the failing calls and the calls that refuted
/// an earlier instance (the paper's database of counterexamples), the verifier checks an
/// instance against each other call with the parameters fixed, which is nearly concrete.
struct Session {
    optimize: Optimize,
    verifier: Solver,
    combination: Vec<usize>,
    /// One activation literal per call asserted so far.
    acts: Vec<Bool>,
    /// Whether the optimization sees the call.
    active: Vec<bool>,
    found: usize,
    /// z3's step count when the session opened (its steps are bounded by
    /// [`Options::template_steps`]).
    began_steps: u64,
    /// For combinations of one-token corrections only: the choices not tried yet, simplest
    /// first. Each is one check under assumptions, which z3 answers much faster than an
    /// optimization over a symbolic choice.
    choices: Option<VecDeque<Vec<usize>>>,
}

/// At most this many choices of one-token corrections are tried for one combination.
const MAX_CHOICES: usize = 4096;

/// Repair candidates for one diagnosis, simplest first.
pub struct Synthesizer<'p> {
    program: &'p Program,
    options: Options,
    encoder: Encoder<'p>,
    scratch: Z3Oracle,
    calls: Vec<Encoded>,
    components: Vec<Component<'p>>,
    combinations: Vec<Vec<usize>>,
    next_combination: usize,
    session: Option<Session>,
    seen: HashSet<Vec<String>>,
    /// The names each component site's recorded scope held at every event seen, by (line,
    /// column, kind).
    reported: HashMap<(u32, u32, SiteKind), BTreeSet<String>>,
    /// The types of the operands each branch site's events recorded, by (line, column,
    /// kind); `None` where events disagreed.
    operands: HashMap<(u32, u32, SiteKind), Option<Vec<String>>>,
    report: Report,
    started: Instant,
    /// z3's step count when the synthesizer was created.
    began_steps: u64,
}

impl<'p> Synthesizer<'p> {
    /// A synthesizer for the components of `diagnosis` (sites of `program`), checked against
    /// `calls`: the failing calls with their specifications and the accepted or passing
    /// calls to keep. Nothing is solved yet.
    pub fn new(
        program: &'p Program,
        calls: &[Call],
        diagnosis: &[SiteKey],
        options: Options,
    ) -> Synthesizer<'p> {
        let mut synth = Synthesizer {
            program,
            encoder: Encoder::new(program, options.encode.clone()),
            options,
            scratch: Z3Oracle::default(),
            calls: Vec::new(),
            components: Vec::new(),
            combinations: Vec::new(),
            next_combination: 0,
            session: None,
            seen: HashSet::new(),
            reported: HashMap::new(),
            operands: HashMap::new(),
            report: Report::default(),
            started: Instant::now(),
            began_steps: crate::steps::taken(),
        };
        // The failing calls, and the other calls that run a diagnosed site: the constraints
        // of a passing call that does not are the same whatever fills the template's holes
        // (true, or a modelling gap that would block every candidate), yet the solver pays
        // for them all the same (the products of a loop's values in the passing calls of
        // another function once took one query to gigabytes).
        let sites: Vec<&Function> = (diagnosis.iter())
            .filter_map(|key| site::locate(program, key).ok().map(|l| l.function))
            .collect();
        let depth = synth.options.encode.inline_depth;
        let runs_a_site = |call: &&Call| {
            sites.is_empty()
                || call.role == Role::Failing
                || program
                    .function(&call.function)
                    .is_none_or(|f| crate::encode::reaches(program, f, &sites, depth))
        };
        let relevant: Vec<&Call> = calls.iter().filter(runs_a_site).collect();
        for call in &relevant {
            synth.add_call(call);
        }
        if !synth
            .report
            .calls
            .iter()
            .any(|c| c.encoded && c.role == Role::Failing)
        {
            synth
                .report
                .unsupported
                .push("no failing call could be encoded: nothing says what a fix must do".into());
        }
        synth.prepare(diagnosis);
        synth
    }

    /// What synthesis did so far.
    pub fn report(&self) -> &Report {
        &self.report
    }

    fn add_call(&mut self, call: &Call) -> bool {
        if let Some(trace) = &call.trace {
            for record in trace.events {
                let (protocol::Record::Component { site, .. }
                | protocol::Record::Branch { site, .. }) = record
                else {
                    continue;
                };
                let Some(info) = trace.sites.get(site) else {
                    continue;
                };
                let at = (info.line, info.column, info.kind);
                match record {
                    protocol::Record::Component { scope, .. } => {
                        let names: BTreeSet<String> =
                            scope.iter().map(|(n, _)| n.clone()).collect();
                        self.reported
                            .entry(at)
                            .and_modify(|known| known.retain(|n| names.contains(n)))
                            .or_insert(names);
                    }
                    protocol::Record::Branch { operands, .. } => {
                        let types: Vec<String> = operands.iter().map(operand_type).collect();
                        self.operands
                            .entry(at)
                            .and_modify(|known| {
                                if known.as_ref() != Some(&types) {
                                    *known = None;
                                }
                            })
                            .or_insert(Some(types));
                    }
                    _ => {}
                }
            }
        }
        let encoding = self.encoder.encode(&mut self.scratch, call);
        let encoded = encoding.added && encoding.formula.is_some();
        self.report.calls.push(CallNote {
            test: call.test.clone(),
            role: call.role,
            encoded,
            reasons: encoding.degradations.clone(),
        });
        if let (true, Some(formula)) = (encoded, encoding.formula) {
            self.calls.push(Encoded {
                formula,
                role: call.role,
                counterexample: false,
            });
        }
        encoded
    }

    fn prepare(&mut self, diagnosis: &[SiteKey]) {
        let limits = Limits {
            max_coefficient: self.options.max_coefficient.clamp(1, 60),
            max_vars: self.options.max_vars,
            max_constants: self.options.max_constants,
        };
        let mut keys: Vec<&SiteKey> = Vec::new();
        for key in diagnosis {
            if !keys.contains(&key) {
                keys.push(key);
            }
        }
        for key in keys {
            let shown = format!("line {}:{} ({:?})", key.line, key.column, key.kind);
            let located = match site::locate(self.program, key) {
                Ok(mut l) => {
                    let at = (key.line, key.column, key.kind);
                    l.reported = self.reported.get(&at).cloned();
                    l.find_operands(self.operands.get(&at).cloned().flatten().as_deref());
                    l
                }
                Err(why) => {
                    self.report.unsupported.push(why);
                    continue;
                }
            };
            let id = self.encoder.components().all().iter().find(|c| {
                c.site.line == key.line && c.site.column == key.column && c.site.kind == key.kind
            });
            let Some(id) = id.map(|c| c.id) else {
                self.report.unsupported.push(format!(
                    "{shown}: no encoded call reaches `{}`",
                    located.code().trim()
                ));
                continue;
            };
            let reached = self
                .calls
                .iter()
                .any(|c| c.formula.instances.iter().any(|i| i.component == id));
            if !reached {
                self.report.unsupported.push(format!(
                    "{shown}: no encoded call runs `{}`",
                    located.code().trim()
                ));
                continue;
            }
            match template::menu(self.program, &located, &self.options.kinds, &limits) {
                Ok(menu) => self.components.push(Component {
                    key: key.clone(),
                    texts: Texts::of(&located),
                    located,
                    id,
                    menu,
                }),
                Err(why) => self.report.unsupported.push(format!(
                    "{shown}: no template for `{}`: {why}",
                    located.code().trim()
                )),
            }
        }
        if !self.report.unsupported.is_empty() || self.components.is_empty() {
            if self.report.unsupported.is_empty() {
                self.report
                    .unsupported
                    .push("the diagnosis is empty".into());
            }
            return;
        }
        self.combinations = combinations(&self.components, self.options.max_combinations);
    }

    /// Takes back `candidate` with `counterexample`: a call of a test that still failed (or
    /// newly failed) when validating it — preferably the call as recorded without the
    /// candidate, with its specification (the expected value, or the accepted result); a
    /// call recorded under the candidate's plan is encoded from its arguments alone. The
    /// call constrains every later candidate. Returns whether it could be encoded (if not,
    /// only the candidate itself is excluded, as it already is).
    pub fn refute(&mut self, candidate: &Candidate, counterexample: &Call) -> bool {
        self.seen.insert(texts_of(candidate));
        if self.add_counterexample(counterexample) {
            return true;
        }
        let Some(trace) = counterexample.trace else {
            return false;
        };
        let args = if counterexample.args.is_empty() {
            trace.events.iter().find_map(|r| match r {
                protocol::Record::Enter { args, .. } => Some(args.clone()),
                _ => None,
            })
        } else {
            Some(counterexample.args.clone())
        };
        let Some(args) = args else { return false };
        let untraced = Call {
            args,
            trace: None,
            ..counterexample.clone()
        };
        self.add_counterexample(&untraced)
    }

    fn add_counterexample(&mut self, call: &Call) -> bool {
        let before = self.calls.len();
        let added = self.add_call(call);
        for c in &mut self.calls[before..] {
            c.counterexample = true;
        }
        added
    }

    fn open(&mut self, combination: Vec<usize>) -> Result<Session, String> {
        let optimize = Optimize::new();
        let verifier = Solver::new();
        let templates: Vec<&Template> = self
            .components
            .iter()
            .zip(&combination)
            .map(|(c, &t)| &c.menu[t])
            .collect();
        let counts: Option<Vec<usize>> = templates.iter().map(|t| t.choices()).collect();
        for template in &templates {
            for d in template.domain() {
                optimize.assert(&d);
            }
            if counts.is_none() {
                for (s, w) in template.soft() {
                    optimize.assert_soft(&s, w, None);
                }
            }
        }
        let mut session = Session {
            optimize,
            verifier,
            combination,
            acts: Vec::new(),
            active: Vec::new(),
            found: 0,
            began_steps: crate::steps::taken(),
            choices: counts.map(|n| tuples(&n, MAX_CHOICES).into()),
        };
        self.assert_calls(&mut session)?;
        Ok(session)
    }

    fn describe(&self, combination: &[usize]) -> String {
        self.components
            .iter()
            .zip(combination)
            .map(|(c, &t)| {
                format!(
                    "{:?} for line {} `{}`",
                    c.menu[t].kind,
                    c.key.line,
                    c.located.code().trim()
                )
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Asserts the calls not yet in the session, each under its activation literal.
    fn assert_calls(&self, session: &mut Session) -> Result<(), String> {
        static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        for call in &self.calls[session.acts.len()..] {
            let constraints = self
                .constraints(&session.combination, &call.formula)
                .map_err(|why| format!("{}: {why}", self.describe(&session.combination)))?;
            let n = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let act = Bool::new_const(format!("repair!call{n}"));
            let all = Bool::and(&constraints);
            session.optimize.assert(act.implies(&all));
            let everything = session.choices.is_some();
            if !everything {
                session.verifier.assert(act.implies(&all));
            }
            session.acts.push(act);
            session
                .active
                .push(everything || call.role == Role::Failing || call.counterexample);
        }
        Ok(())
    }

    /// One call with the templates in place of the diagnosed components: its structure and
    /// specification, every other component as written, and "no panic" over what the
    /// repaired code still evaluates.
    fn constraints(&self, combination: &[usize], f: &Formula) -> Result<Vec<Bool>, String> {
        let mut out: Vec<Bool> = f.structure.iter().chain(&f.spec).cloned().collect();
        let mut keeps: Vec<Option<Bool>> = vec![None; f.instances.len()];
        let mut panics: Vec<Bool> = Vec::new();
        for (at, inst) in f.instances.iter().enumerate() {
            let Some((c, &t)) = self
                .components
                .iter()
                .zip(combination)
                .find(|(c, _)| c.id == inst.component)
            else {
                out.push(equal_leaves(&inst.value, &inst.normal));
                continue;
            };
            let env = scope_env(
                self.program,
                c.located.function,
                c.located.scope(),
                &inst.reads,
            );
            let ev = Evaluator {
                program: self.program,
                function: c.located.function,
            };
            let o = c.menu[t].at(Some(&ev), &env, &inst.normal)?;
            if !same_shape(&o.value, &inst.value) {
                return Err("the template computes a value of another shape".into());
            }
            out.push(equal_leaves(&inst.value, &o.value));
            out.extend(o.hard);
            panics.push(Bool::and(&[&inst.guard, &o.panic]));
            keeps[at] = Some(o.keeps_original);
        }
        if f.no_panic {
            for p in &f.panics {
                // A panic inside the written expression of a replaced component happens only
                // if the replacement still evaluates it.
                let mut parts = vec![p.term.clone()];
                parts.extend(p.owners.iter().filter_map(|&o| keeps[o].clone()));
                panics.push(Bool::and(&parts));
            }
            out.push(Bool::or(&panics).not());
        }
        Ok(out)
    }

    /// Gives the session's solvers what is left of its steps (and of the synthesizer's);
    /// `None` once they are used up.
    fn remaining(&self, session: &Session) -> Option<u32> {
        let now = crate::steps::taken();
        let mut left = u64::from(self.options.template_steps)
            .saturating_sub(now.saturating_sub(session.began_steps));
        if let Some(budget) = self.options.budget_steps {
            left = left.min(budget.saturating_sub(now.saturating_sub(self.began_steps)));
        }
        if left == 0 {
            return None;
        }
        let params = crate::steps::params(crate::steps::limit(left));
        session.optimize.set_params(&params);
        session.verifier.set_params(&params);
        Some(crate::steps::limit(left))
    }

    fn time_out(&mut self, session: &Session) -> Step {
        self.report.cuts.push(format!(
            "{}: its {} solver steps ran out after {} candidate(s)",
            self.describe(&session.combination),
            self.options.template_steps,
            session.found
        ));
        Step::Done
    }

    /// The solver steps this synthesizer has taken since its creation.
    pub fn steps(&self) -> u64 {
        crate::steps::taken().saturating_sub(self.began_steps)
    }

    /// The budget the synthesizer has used up (its steps, or its time net), if one.
    fn budget_spent(&self) -> Option<String> {
        if let Some(budget) = self.options.budget_steps
            && self.steps() >= budget
        {
            return Some(format!("the budget of {budget} solver steps"));
        }
        let budget = self.options.budget?;
        (self.started.elapsed() > budget)
            .then(|| format!("the time budget of {:.1} s", budget.as_secs_f64()))
    }

    /// The calls the optimization does not see that refute `fix` (the parameters fixed);
    /// a call the verifier cannot decide counts as refuting.
    fn refuting(&mut self, session: &mut Session, fix: &Bool) -> Vec<usize> {
        session.verifier.push();
        session.verifier.assert(fix);
        let mut out = Vec::new();
        for (j, act) in session.acts.iter().enumerate() {
            if session.active[j] {
                continue;
            }
            self.report.checks += 1;
            let verdict = session
                .verifier
                .check_assumptions(std::slice::from_ref(act));
            if verdict != SatResult::Sat {
                out.push(j);
            }
        }
        session.verifier.pop(1);
        out
    }

    fn solve(&mut self) -> Step {
        let Some(mut session) = self.session.take() else {
            return Step::Done;
        };
        if let Err(why) = self.assert_calls(&mut session) {
            self.report.skipped.push(why);
            return Step::Done;
        }
        let chosen = if session.choices.is_some() {
            self.next_choice(&mut session)
        } else {
            self.next_model(&mut session)
        };
        let chosen = match chosen {
            Ok(chosen) => chosen,
            Err(step) => return step,
        };
        let Some(candidate) = self.candidate(&session.combination, &chosen) else {
            self.session = Some(session);
            return Step::Again;
        };
        let fresh = self.seen.insert(texts_of(&candidate));
        if fresh {
            session.found += 1;
        }
        let more = session.found < self.options.per_template;
        if more {
            self.session = Some(session);
        }
        match (fresh, more) {
            (true, _) => Step::Found(candidate),
            (false, true) => Step::Again,
            (false, false) => Step::Done,
        }
    }

    /// The next tuple of choices (templates with a few choices each, enumerated) that the
    /// calls allow; `Err` with the step to take when none is left or time ran out.
    fn next_choice(&mut self, session: &mut Session) -> Result<Vec<Vec<i128>>, Step> {
        let templates: Vec<&Template> = self
            .components
            .iter()
            .zip(&session.combination)
            .map(|(c, &t)| &c.menu[t])
            .collect();
        loop {
            let Some(tuple) = session.choices.as_mut().and_then(VecDeque::pop_front) else {
                return Err(Step::Done);
            };
            let assumptions: Vec<Bool> = templates
                .iter()
                .zip(&tuple)
                .map(|(t, &i)| t.choose(i))
                .chain(session.acts.iter().cloned())
                .collect();
            if self.remaining(session).is_none() {
                return Err(self.time_out(session));
            }
            match Self::check(&mut self.report.checks, session, &assumptions) {
                SatResult::Sat => return Ok(tuple.iter().map(|&i| vec![i as i128]).collect()),
                SatResult::Unsat => {}
                SatResult::Unknown => {
                    let cut = format!(
                        "{}: correction {tuple:?} undecided ({})",
                        self.describe(&session.combination),
                        self.why_unknown(session)
                    );
                    self.report.cuts.push(cut);
                }
            }
        }
    }

    /// The next parameters the optimizer finds that every active call allows, the calls
    /// that refute a model activated one by one; `Err` with the step to take when none is
    /// left, the solver gave up, or time ran out.
    fn next_model(&mut self, session: &mut Session) -> Result<Vec<Vec<i128>>, Step> {
        loop {
            let active: Vec<Bool> = session
                .acts
                .iter()
                .zip(&session.active)
                .filter(|(_, on)| **on)
                .map(|(a, _)| a.clone())
                .collect();
            if self.remaining(session).is_none() {
                return Err(self.time_out(session));
            }
            match Self::check(&mut self.report.checks, session, &active) {
                SatResult::Sat => {}
                SatResult::Unsat => return Err(Step::Done),
                SatResult::Unknown => {
                    let cut = format!(
                        "{}: z3 gave up after {} candidate(s) ({})",
                        self.describe(&session.combination),
                        session.found,
                        self.why_unknown(session)
                    );
                    self.report.cuts.push(cut);
                    return Err(Step::Done);
                }
            }
            let Some(model) = session.optimize.get_model() else {
                return Err(Step::Done);
            };
            let chosen: Vec<Vec<i128>> = self
                .components
                .iter()
                .zip(&session.combination)
                .map(|(c, &t)| c.menu[t].decode(&model))
                .collect();
            let exclude: Vec<Bool> = self
                .components
                .iter()
                .zip(&session.combination)
                .zip(&chosen)
                .map(|((c, &t), v)| c.menu[t].exclude(v))
                .collect();
            let exclude = Bool::or(&exclude);
            let refuting = self.refuting(session, &exclude.not());
            if refuting.is_empty() {
                session.optimize.assert(&exclude);
                return Ok(chosen);
            }
            for j in refuting {
                session.active[j] = true;
            }
        }
    }

    /// One check of the session's optimizer under `assumptions`, counted in `checks`.
    fn check(checks: &mut usize, session: &mut Session, assumptions: &[Bool]) -> SatResult {
        *checks += 1;
        session.optimize.check(assumptions)
    }

    /// Why the optimizer gave up, and the solver steps the template had.
    fn why_unknown(&self, session: &Session) -> String {
        let reason = session.optimize.get_reason_unknown().unwrap_or_default();
        format!(
            "{}; {} solver steps for the template",
            if reason.is_empty() {
                "unknown"
            } else {
                &reason
            },
            self.options.template_steps
        )
    }

    /// The candidate of decoded template parameters.
    fn candidate(&self, combination: &[usize], chosen: &[Vec<i128>]) -> Option<Candidate> {
        let mut edits = Vec::new();
        let mut cost = 0;
        for ((c, &t), values) in self.components.iter().zip(combination).zip(chosen) {
            let r = c.menu[t].render(values, &c.located, &c.texts)?;
            cost += r.cost;
            let (expr, note) = match r.expr {
                Ok(e) => (Some(e), r.note),
                Err(why) => (
                    None,
                    Some(format!("not evaluable by the runtime: it {why}")),
                ),
            };
            edits.push(Edit {
                site: c.key.clone(),
                original: c.located.code().to_string(),
                rust: r.rust,
                expr,
                note,
                template: r.template,
            });
        }
        Some(Candidate { edits, cost })
    }
}

/// The type a recorded operand has, as [`site::Located::find_operands`] compares it with the
/// model's (empty for a value no replacement computes with).
fn operand_type(v: &protocol::Value) -> String {
    match v {
        protocol::Value::Int { ty, .. } => ty.clone(),
        protocol::Value::Bool(_) => "bool".into(),
        protocol::Value::Char(_) => "char".into(),
        _ => String::new(),
    }
}

/// Every tuple of indices below `counts`, by increasing sum (ties in lexicographic order),
/// at most `max`.
fn tuples(counts: &[usize], max: usize) -> Vec<Vec<usize>> {
    let mut all: Vec<Vec<usize>> = vec![Vec::new()];
    for &n in counts {
        let mut next = Vec::new();
        for prefix in &all {
            for i in 0..n {
                let mut p = prefix.clone();
                p.push(i);
                next.push(p);
            }
        }
        next.sort_by_key(|p| p.iter().sum::<usize>());
        next.truncate(max);
        all = next;
    }
    all
}

/// The candidates, simplest first: [`Iterator::next`] solves until the next one.
impl Iterator for Synthesizer<'_> {
    type Item = Candidate;

    /// The next candidate, simplest first; `None` when the templates are exhausted, cut by
    /// the budget, or nothing can be synthesized (see [`Synthesizer::report`]).
    fn next(&mut self) -> Option<Candidate> {
        if !self.report.unsupported.is_empty() {
            return None;
        }
        loop {
            if let Some(spent) = self.budget_spent() {
                let left = self.combinations.len() - self.next_combination
                    + usize::from(self.session.is_some());
                if left > 0 {
                    self.report.cuts.push(format!(
                        "{spent} ran out with {left} template combination(s) untried"
                    ));
                }
                self.session = None;
                self.next_combination = self.combinations.len();
                return None;
            }
            if self.session.is_none() {
                let combination = self.combinations.get(self.next_combination)?.clone();
                self.next_combination += 1;
                match self.open(combination) {
                    Ok(session) => self.session = Some(session),
                    Err(why) => {
                        self.report.skipped.push(why);
                        continue;
                    }
                }
            }
            match self.solve() {
                Step::Found(candidate) => return Some(candidate),
                Step::Again => {}
                Step::Done => self.session = None,
            }
        }
    }
}

enum Step {
    Found(Candidate),
    Again,
    Done,
}

fn texts_of(c: &Candidate) -> Vec<String> {
    c.edits
        .iter()
        .map(|e| {
            format!(
                "{}:{}:{:?}={}",
                e.site.line, e.site.column, e.site.kind, e.rust
            )
        })
        .collect()
}

/// One template per component, every combination, by increasing sum of levels (ties in
/// order of the menus), at most `max`.
fn combinations(components: &[Component], max: usize) -> Vec<Vec<usize>> {
    let mut all: Vec<Vec<usize>> = vec![Vec::new()];
    for c in components {
        let mut next = Vec::new();
        for prefix in &all {
            for t in 0..c.menu.len() {
                let mut p = prefix.clone();
                p.push(t);
                next.push(p);
            }
        }
        all = next;
        // Keep the growth in check: only the simplest partial combinations go on.
        all.sort_by_key(|p| level_sum(components, p));
        all.truncate(max.max(1) * 4);
    }
    all.sort_by_key(|p| level_sum(components, p));
    all.truncate(max.max(1));
    all
}

fn level_sum(components: &[Component], combination: &[usize]) -> u32 {
    components
        .iter()
        .zip(combination)
        .map(|(c, &t)| c.menu[t].level)
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// Every component of every function of the corpus (`bench/corpus/`, `examples/`): its
    /// site is found, its menu built or refused with a reason, and every one-token
    /// correction printed as Rust, and as a runtime expression or a reason why not.
    #[test]
    fn every_component_of_the_corpus_has_templates_or_a_reason() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut files = Vec::new();
        for dir in ["bench/corpus", "examples"] {
            let mut todo = vec![root.join(dir)];
            while let Some(d) = todo.pop() {
                for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
                    let p = entry.path();
                    if p.is_dir() && p.file_name().is_some_and(|n| n != "target") {
                        todo.push(p);
                    } else if p.extension().is_some_and(|x| x == "rs") {
                        files.push(p);
                    }
                }
            }
        }
        let limits = Limits {
            max_coefficient: 4,
            max_vars: 8,
            max_constants: 3,
        };
        let (mut components, mut menus, mut variants) = (0, 0, 0);
        let mut refused: std::collections::BTreeMap<String, usize> = Default::default();
        for file in &files {
            let Ok(text) = std::fs::read_to_string(file) else {
                continue;
            };
            let Ok(program) = Program::from_source(&text, "src/lib.rs") else {
                continue;
            };
            for function in &program.functions {
                for c in function.components() {
                    components += 1;
                    let key = SiteKey {
                        file: program.file.clone(),
                        line: c.site.span.start.line,
                        column: c.site.span.start.column,
                        kind: c.site.kind,
                    };
                    let located = site::locate(&program, &key)
                        .unwrap_or_else(|why| panic!("{}: {why}", file.display()));
                    let menu = match template::menu(&program, &located, &Kind::ALL, &limits) {
                        Ok(menu) => menu,
                        Err(why) => {
                            assert!(!why.is_empty());
                            let kind: String = why.chars().take(70).collect();
                            *refused.entry(kind).or_insert(0usize) += 1;
                            continue;
                        }
                    };
                    menus += 1;
                    let texts = Texts::of(&located);
                    for t in &menu {
                        for i in 0..t.choices().unwrap_or(0) {
                            variants += 1;
                            let r = t
                                .render(&[i as i128], &located, &texts)
                                .expect("a variant in range");
                            assert!(
                                !r.rust.is_empty() && !r.rust.contains("/*"),
                                "{}: `{}` -> {}",
                                file.display(),
                                located.code(),
                                r.rust
                            );
                            assert!(
                                r.expr.is_ok() || r.expr.as_ref().is_err_and(|w| !w.is_empty())
                            );
                        }
                    }
                }
            }
        }
        println!("{components} components, {menus} with templates, {variants} corrections");
        for (why, n) in &refused {
            println!("  {n:4}  {why}");
        }
        assert!(
            components > 500 && menus * 2 > components,
            "{menus} of {components}"
        );
    }
}
