//! The synthesis candidate source: template repair with z3 (`autodebug_symbolic::repair`)
//! for one site at a time. The site's file is lowered to the symbolic engine's model; the
//! failing calls the oracle stage named (with what they should have done), the calls their
//! tests accepted and calls of passing tests are the specification; candidates come
//! simplest first, and a test a candidate still fails brings its calls back as
//! counterexamples (CEGIS). Each site's synthesizer lives in a worker process of its own
//! (see [`crate::worker`]): a query that needs more memory or time than it is given ends
//! that worker, and the site gets no synthesized candidates, with a note. The solver's work
//! is bounded in z3's steps, per site and over all sites, so that a loaded machine gets the
//! candidates a quiet one does; times remain only as safety nets.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::time::Duration;

use autodebug_runtime::protocol::{self, SiteKey};
use autodebug_symbolic::conflicts::Role;
use autodebug_symbolic::encode::{Call, Spec};
use autodebug_symbolic::ir::Program;
use autodebug_symbolic::repair as symbolic;

use super::{Candidate, CandidateEdit, CandidateSource, Target};
use crate::model::Role as TraceRole;
use crate::oracle::{self, Oracle};
use crate::trace::RecordedTrace;
use crate::worker::{Bounds, Left, Worker};
use serde::{Deserialize, Serialize};

/// The name of this source in the report.
pub const NAME: &str = "synthesis";

/// Calls of passing tests given to the solver per site (they constrain, and they cost).
const PASSING_CALLS: usize = 6;

/// Calls a failing test's assertions accepted past its failure, per test and site (as
/// [`PASSING_CALLS`]: they constrain, and they cost).
const LATER_CALLS: usize = 6;

/// The lowered files of the sites to repair, made once and borrowed by the synthesizers.
pub struct Programs {
    programs: HashMap<String, Result<Program, String>>,
}

impl Programs {
    /// Lowers the files (`file` as the compiler saw it, relative to the workspace root) of
    /// `targets`.
    pub fn lower(workspace_root: &Path, targets: &[Target]) -> Programs {
        let mut programs = HashMap::new();
        for target in targets {
            programs
                .entry(target.site.file.clone())
                .or_insert_with(|| crate::localize::lower_file(workspace_root, &target.site.file));
        }
        Programs { programs }
    }
}

/// The source.
pub struct Synthesis<'a> {
    programs: &'a Programs,
    spec: Specs<'a>,
    /// Time net of a site's synthesizer.
    budget: Duration,
    /// Memory a site's worker may take beyond the tool's, in MiB.
    memory_mb: u64,
    /// The solver steps each site's synthesizer has taken, as its last answer said.
    steps: BTreeMap<SiteKey, u64>,
    /// Time net of the whole source, every site together, and what it has taken so far.
    total: Duration,
    spent: Duration,
    /// Each site's synthesizer, in its worker (`None`: the site has none, or lost it).
    synthesizers: BTreeMap<SiteKey, Option<Worker<Ask, Answer>>>,
    /// The worker's number of each candidate handed out (by site and texts).
    handed: HashMap<(SiteKey, Vec<String>), usize>,
    /// What could not be done, for the report's notes.
    pub notes: Vec<String>,
    /// The largest resident size of a worker that ended (MiB).
    peak_mb: Option<u64>,
}

/// A question to a site's synthesizer.
#[derive(Serialize, Deserialize)]
enum Ask {
    /// Up to this many candidates more.
    Next(usize),
    /// The candidate of this number fails these tests (`target::name`).
    Refute(usize, Vec<String>),
}

/// An answer of a site's synthesizer.
#[derive(Serialize, Deserialize)]
enum Answer {
    /// It cannot model the site (why).
    Unsupported(String),
    /// The next candidates, each with its number, the templates cut short since the last
    /// answer (why: steps, memory, an undecided query), and the solver steps the site's
    /// synthesizer has taken so far.
    Found(Vec<(usize, Found)>, Vec<String>, u64),
    /// The counterexamples are taken.
    Refuted,
}

/// A synthesized candidate, as it crosses from the worker.
#[derive(Serialize, Deserialize)]
struct Found {
    edits: Vec<(SiteKey, String, Option<protocol::Expr>)>,
    template: String,
    cost: u32,
}

/// What specifies a fix: the recorded traces and the failing tests' oracles.
#[derive(Clone, Copy)]
struct Specs<'a> {
    traces: &'a [RecordedTrace],
    oracles: &'a [Oracle],
}

impl<'a> Synthesis<'a> {
    /// A source over the lowered `programs`, specified by the recorded `traces` and the
    /// `oracles` of the failing tests; `budget` is the time net of a site's synthesizer,
    /// `memory_mb` the memory a site's solver may take.
    pub fn new(
        programs: &'a Programs,
        traces: &'a [RecordedTrace],
        oracles: &'a [Oracle],
        budget: Duration,
        memory_mb: u64,
    ) -> Synthesis<'a> {
        Synthesis {
            programs,
            spec: Specs { traces, oracles },
            budget,
            memory_mb,
            steps: BTreeMap::new(),
            total: TOTAL_TIME,
            spent: Duration::ZERO,
            synthesizers: BTreeMap::new(),
            handed: HashMap::new(),
            notes: Vec::new(),
            peak_mb: None,
        }
    }
}

impl<'a> Specs<'a> {
    /// The calls that specify a fix of a site in `file`: each failing test's failing call
    /// (with what it should have done) and the calls it accepted, then calls of passing
    /// tests to functions of the file.
    fn calls(&self, file: &str) -> Vec<Call<'a>> {
        let mut calls = Vec::new();
        for oracle in self.oracles {
            let recorded = &self.traces[oracle.trace];
            let Some(call) = &oracle.call else { continue };
            if !call.in_file(recorded, file) {
                continue;
            }
            let test = oracle.test.display();
            calls.push(call.encoded(&test, Role::Failing, recorded, oracle.spec()));
            for accepted in &oracle.accepted {
                calls.push(accepted.encoded(&test, Role::Passing, recorded, Spec::accepted()));
            }
            // And those its assertions accepted past the failure.
            if let Some(later) = &oracle.later {
                calls.extend(later.accepted_calls(&test, file).take(LATER_CALLS));
            }
        }
        calls.extend(oracle::symbolic::passing_calls(
            self.traces,
            file,
            PASSING_CALLS,
        ));
        calls
    }

    /// The calls of test `name` (`target::name`) to functions of `file`, as recorded
    /// before any candidate, with their specifications: counterexamples when a candidate
    /// fails that test.
    fn calls_of_test(&self, name: &str, file: &str) -> Vec<Call<'a>> {
        if let Some(oracle) = self
            .oracles
            .iter()
            .find(|o| o.test.display() == name && o.call.is_some())
        {
            let recorded = &self.traces[oracle.trace];
            let call = oracle.call.as_ref().expect("checked above");
            if call.in_file(recorded, file) {
                return vec![call.encoded(name, Role::Failing, recorded, oracle.spec())];
            }
        }
        let Some(recorded) = self
            .traces
            .iter()
            .find(|t| t.role == TraceRole::Passing && t.test.display() == name)
        else {
            return Vec::new();
        };
        oracle::top_level_calls(&recorded.trace)
            .into_iter()
            .filter(|c| c.end == oracle::End::Returned && c.in_file(recorded, file))
            .map(|c| c.encoded(name, Role::Passing, recorded, Spec::accepted()))
            .collect()
    }
}

fn texts(edits: &[CandidateEdit]) -> Vec<String> {
    edits.iter().map(|e| e.rust.clone()).collect()
}

impl CandidateSource for Synthesis<'_> {
    fn name(&self) -> &'static str {
        NAME
    }

    fn next(&mut self, target: &Target, max: usize) -> Vec<Candidate> {
        let began = std::time::Instant::now();
        let out = self.next_within(target, max);
        self.spent += began.elapsed();
        out
    }

    fn refute(&mut self, target: &Target, candidate: &Candidate, failing: &[String]) {
        let began = std::time::Instant::now();
        self.refute_with(target, candidate, failing);
        self.spent += began.elapsed();
    }

    fn notes(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notes)
    }

    fn solver_peak_mb(&mut self) -> Option<u64> {
        for worker in std::mem::take(&mut self.synthesizers)
            .into_values()
            .flatten()
        {
            self.peak_mb = self.peak_mb.max(worker.finish());
        }
        self.peak_mb
    }
}

/// The solver steps of the source over all its sites (about 40 s of z3 on the project's
/// 2-core machine): past them, the sites left get none (a candidate that needs a solver this
/// long is rarely the fix, and the one-token and statement sources still run).
const TOTAL_STEPS: u64 = 160_000_000;

/// The solver steps of one site's synthesizer (about 20 s).
const SITE_STEPS: u64 = 80_000_000;

/// The time net of the source over all its sites, for what steps do not count.
const TOTAL_TIME: Duration = Duration::from_secs(120);

/// Time a site's worker is given beyond the synthesizer's own budget before it counts as
/// hung (the budget is checked between queries; one query can run past it).
const WORKER_SLACK: Duration = Duration::from_secs(10);

impl<'a> Synthesis<'a> {
    fn next_within(&mut self, target: &Target, max: usize) -> Vec<Candidate> {
        let key = target.site.key();
        let left = Left {
            steps: TOTAL_STEPS.saturating_sub(self.steps.values().sum()),
            time: self.total.saturating_sub(self.spent),
        };
        if left.steps == 0 || left.time.is_zero() {
            if !self.synthesizers.contains_key(&key) {
                self.synthesizers.insert(key.clone(), None);
                let spent = if left.steps == 0 {
                    format!("{TOTAL_STEPS} solver steps")
                } else {
                    format!("{} s", self.total.as_secs())
                };
                self.notes.push(format!(
                    "{NAME}: {}:{}: not tried: the {spent} for all sites were spent",
                    target.path, target.site.line,
                ));
            }
            return Vec::new();
        }
        if !self.synthesizers.contains_key(&key) {
            let worker = match self.programs.programs.get(&target.site.file) {
                Some(Ok(program)) => self.start(program, target, left),
                Some(Err(why)) => {
                    self.notes.push(format!("{NAME}: {why}"));
                    None
                }
                None => None,
            };
            self.synthesizers.insert(key.clone(), worker);
        }
        let Some(Some(worker)) = self.synthesizers.get_mut(&key) else {
            return Vec::new();
        };
        let found = match worker.ask(&Ask::Next(max)) {
            Ok(Answer::Found(found, cuts, steps)) => {
                self.steps.insert(key.clone(), steps);
                for cut in cuts {
                    (self.notes).push(format!(
                        "{NAME}: {}:{}: {cut}",
                        target.path, target.site.line
                    ));
                }
                found
            }
            Ok(Answer::Unsupported(why)) => {
                self.notes.push(format!(
                    "{NAME}: {}:{}: {why}",
                    target.path, target.site.line
                ));
                if let Some(Some(worker)) = self.synthesizers.insert(key, None) {
                    self.peak_mb = self.peak_mb.max(worker.finish());
                }
                return Vec::new();
            }
            Ok(Answer::Refuted) => Vec::new(),
            Err(ended) => {
                self.lost(target, &ended);
                return Vec::new();
            }
        };
        let mut out = Vec::new();
        for (number, found) in found {
            let edits: Vec<CandidateEdit> = (found.edits.into_iter())
                .map(|(site, rust, expr)| CandidateEdit {
                    site,
                    rust,
                    expr,
                    statement: None,
                })
                .collect();
            self.handed.insert((key.clone(), texts(&edits)), number);
            out.push(Candidate {
                edits,
                template: found.template,
                cost: found.cost,
                source: NAME,
            });
        }
        out
    }

    /// Starts the worker of `target`'s site: a synthesizer over the site's file, specified
    /// by the calls the traces hold, created in the worker on its first question.
    fn start(
        &mut self,
        program: &'a Program,
        target: &Target,
        left: Left,
    ) -> Option<Worker<Ask, Answer>> {
        let budget = self.budget.min(left.time);
        let budget_steps = SITE_STEPS.min(left.steps);
        let spec = self.spec;
        let file = target.site.file.clone();
        let key = target.site.key();
        let mut state: Option<(symbolic::Synthesizer<'a>, Vec<symbolic::Candidate>)> = None;
        let mut cuts_told = 0;
        let serve = move |ask: Ask| {
            let (synthesizer, handed) = state.get_or_insert_with(|| {
                let calls = spec.calls(&file);
                let options = symbolic::Options {
                    budget_steps: Some(budget_steps),
                    budget: Some(budget),
                    ..symbolic::Options::default()
                };
                let synthesizer = symbolic::Synthesizer::new(
                    program,
                    &calls,
                    std::slice::from_ref(&key),
                    options,
                );
                (synthesizer, Vec::new())
            });
            match ask {
                Ask::Next(max) => {
                    if let Some(why) = synthesizer.report().unsupported.first() {
                        return Answer::Unsupported(why.clone());
                    }
                    let mut found = Vec::new();
                    while found.len() < max {
                        let Some(candidate) = synthesizer.next() else {
                            break;
                        };
                        found.push((
                            handed.len(),
                            Found {
                                edits: (candidate.edits.iter())
                                    .map(|e| (e.site.clone(), e.rust.clone(), e.expr.clone()))
                                    .collect(),
                                template: (candidate.edits.iter())
                                    .map(|e| e.template)
                                    .collect::<Vec<_>>()
                                    .join("+"),
                                cost: candidate.cost,
                            },
                        ));
                        handed.push(candidate);
                    }
                    let cuts = synthesizer.report().cuts[cuts_told..].to_vec();
                    cuts_told += cuts.len();
                    Answer::Found(found, cuts, synthesizer.steps())
                }
                Ask::Refute(number, failing) => {
                    if let Some(candidate) = handed.get(number) {
                        for call in failing.iter().flat_map(|t| spec.calls_of_test(t, &file)) {
                            synthesizer.refute(candidate, &call);
                        }
                    }
                    Answer::Refuted
                }
            }
        };
        let bounds = Bounds {
            memory_mb: self.memory_mb,
            time: budget + WORKER_SLACK,
        };
        match Worker::start(bounds, serve) {
            Ok(worker) => Some(worker),
            Err(e) => {
                self.notes.push(format!(
                    "{NAME}: {}:{}: could not start the solver's process: {e}",
                    target.path, target.site.line
                ));
                None
            }
        }
    }

    /// The worker of `target`'s site ended (`ended` says how): the site gets no more
    /// synthesized candidates.
    fn lost(&mut self, target: &Target, ended: &crate::worker::Ended) {
        let key = target.site.key();
        let peak = (self.synthesizers.get_mut(&key))
            .and_then(|w| w.take())
            .and_then(|w| w.peak_mb);
        self.peak_mb = self.peak_mb.max(peak);
        let peak = peak.map_or(String::new(), |mb| format!(" (its peak: {mb} MiB)"));
        self.notes.push(format!(
            "{NAME}: {}:{}: {ended}{peak}; the site gets no synthesized candidates",
            target.path, target.site.line
        ));
        self.synthesizers.insert(key, None);
    }

    fn refute_with(&mut self, target: &Target, candidate: &Candidate, failing: &[String]) {
        let key = target.site.key();
        let Some(&number) = self.handed.get(&(key.clone(), texts(&candidate.edits))) else {
            return;
        };
        let Some(Some(worker)) = self.synthesizers.get_mut(&key) else {
            return;
        };
        if let Err(ended) = worker.ask(&Ask::Refute(number, failing.to_vec())) {
            self.lost(target, &ended);
        }
    }
}
