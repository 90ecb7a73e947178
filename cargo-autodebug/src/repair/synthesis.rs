//! The synthesis candidate source: template repair with z3 (`autodebug_symbolic::repair`)
//! for one site at a time. The site's file is lowered to the symbolic engine's model; the
//! failing calls the oracle stage named (with what they should have done), the calls their
//! tests accepted and calls of passing tests are the specification; candidates come
//! simplest first, and a test a candidate still fails brings its calls back as
//! counterexamples (CEGIS).

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::time::Duration;

use autodebug_runtime::protocol::SiteKey;
use autodebug_symbolic::conflicts::Role;
use autodebug_symbolic::encode::{Call, Spec};
use autodebug_symbolic::ir::Program;
use autodebug_symbolic::repair as symbolic;

use super::{Candidate, CandidateEdit, CandidateSource, Target};
use crate::model::Role as TraceRole;
use crate::oracle::{self, Oracle};
use crate::trace::RecordedTrace;

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
    traces: &'a [RecordedTrace],
    oracles: &'a [Oracle],
    /// Solver time per site.
    budget: Duration,
    /// Time of the whole source, every site together, and what it has taken so far.
    total: Duration,
    spent: Duration,
    synthesizers: BTreeMap<SiteKey, Option<symbolic::Synthesizer<'a>>>,
    /// The symbolic candidate behind each candidate handed out (by site and texts).
    handed: HashMap<(SiteKey, Vec<String>), symbolic::Candidate>,
    /// What could not be done, for the report's notes.
    pub notes: Vec<String>,
}

impl<'a> Synthesis<'a> {
    /// A source over the lowered `programs`, specified by the recorded `traces` and the
    /// `oracles` of the failing tests; `budget` is the solver time per site.
    pub fn new(
        programs: &'a Programs,
        traces: &'a [RecordedTrace],
        oracles: &'a [Oracle],
        budget: Duration,
    ) -> Synthesis<'a> {
        Synthesis {
            programs,
            traces,
            oracles,
            budget,
            total: TOTAL_TIME,
            spent: Duration::ZERO,
            synthesizers: BTreeMap::new(),
            handed: HashMap::new(),
            notes: Vec::new(),
        }
    }

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
}

/// The solver time of the source over all its sites: past it, the sites left get none (a
/// candidate that needs a solver this long is rarely the fix, and the one-token and
/// statement sources still run).
const TOTAL_TIME: Duration = Duration::from_secs(40);

impl Synthesis<'_> {
    fn next_within(&mut self, target: &Target, max: usize) -> Vec<Candidate> {
        let key = target.site.key();
        let left = self.total.saturating_sub(self.spent);
        if left.is_zero() {
            if !self.synthesizers.contains_key(&key) {
                self.synthesizers.insert(key.clone(), None);
                self.notes.push(format!(
                    "{NAME}: {}:{}: not tried: the {}s of solver time for all sites were spent",
                    target.path,
                    target.site.line,
                    self.total.as_secs()
                ));
            }
            return Vec::new();
        }
        if !self.synthesizers.contains_key(&key) {
            let synthesizer = match self.programs.programs.get(&target.site.file) {
                Some(Ok(program)) => {
                    let calls = self.calls(&target.site.file);
                    let options = symbolic::Options {
                        budget: Some(self.budget.min(left)),
                        ..symbolic::Options::default()
                    };
                    let synth = symbolic::Synthesizer::new(
                        program,
                        &calls,
                        std::slice::from_ref(&key),
                        options,
                    );
                    if let Some(why) = synth.report().unsupported.first() {
                        self.notes.push(format!(
                            "{NAME}: {}:{}: {why}",
                            target.path, target.site.line
                        ));
                        None
                    } else {
                        Some(synth)
                    }
                }
                Some(Err(why)) => {
                    self.notes.push(format!("{NAME}: {why}"));
                    None
                }
                None => None,
            };
            self.synthesizers.insert(key.clone(), synthesizer);
        }
        let Some(Some(synthesizer)) = self.synthesizers.get_mut(&key) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        while out.len() < max {
            let Some(found) = synthesizer.next() else {
                break;
            };
            let edits: Vec<CandidateEdit> = found
                .edits
                .iter()
                .map(|e| CandidateEdit {
                    site: e.site.clone(),
                    rust: e.rust.clone(),
                    expr: e.expr.clone(),
                    statement: None,
                })
                .collect();
            let template = found
                .edits
                .iter()
                .map(|e| e.template)
                .collect::<Vec<_>>()
                .join("+");
            self.handed
                .insert((key.clone(), texts(&edits)), found.clone());
            out.push(Candidate {
                edits,
                template,
                cost: found.cost,
                source: NAME,
            });
        }
        out
    }

    fn refute_with(&mut self, target: &Target, candidate: &Candidate, failing: &[String]) {
        let key = target.site.key();
        let Some(found) = self
            .handed
            .get(&(key.clone(), texts(&candidate.edits)))
            .cloned()
        else {
            return;
        };
        let counterexamples: Vec<Call> = failing
            .iter()
            .flat_map(|test| self.calls_of_test(test, &target.site.file))
            .collect();
        let Some(Some(synthesizer)) = self.synthesizers.get_mut(&key) else {
            return;
        };
        for call in &counterexamples {
            synthesizer.refute(&found, call);
        }
    }
}
