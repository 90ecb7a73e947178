//! Automated path generation (Wang & Roychoudhury): for the call each failing test is about,
//! the closest *feasible successful* run under the paper's control-flow distance, and the
//! branch instances the two runs evaluate differently as suspects.
//!
//! The search is the symbolic engine's (`autodebug_symbolic::pathgen`): runs are generated
//! from the failing one last branch first, each run's path condition over the call's
//! arguments is solved with z3, and the model's arguments drive a real rerun of the test —
//! the plan replaces the call's arguments at its entry. A rerun counts as successful when
//! the call meets its specification (no panic, its contracts, the value the confirmed
//! oracle expects; for a value the test only rejected, the test passing) *and* took the
//! generated path. Every suspect is backed by that rerun.
//!
//! Each test's search runs in a worker process of its own (see [`crate::worker`]), under
//! `--solver-memory` and the technique's time, holding its solver state while it asks the
//! tool for the reruns: a search that needs more ends that worker, and the test is not
//! searched, with a note.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::Result;
use autodebug_runtime::protocol::{
    Argument, Binding, PLAN_VERSION, Plan, Record, SiteInfo, SiteKey, SiteKind, Target, Value,
};
use autodebug_symbolic::encode::Concrete;
use autodebug_symbolic::ir::Program;
use autodebug_symbolic::pathgen::{self, Bounds, Problem, Rerun, Runner};
use serde::Serialize;

use super::{Context, Localized, Suspect, Technique, is_candidate};
use crate::engine::Recorder;
use crate::model::Evidence;
use crate::oracle::{Call, End, Expectation, Oracle};
use crate::trace::{RawTrace, RecordedTrace, workspace_path};
use crate::worker::{self, Left, Parent, Worker};

/// The technique's name in evidence and in the report.
const NAME: &str = "pathgen";

/// The technique, with its bounds.
pub struct PathGeneration {
    /// Solver steps for the whole technique (every failing test; z3's `rlimit` count):
    /// steps, not seconds, so that a busy machine searches as far as a quiet one.
    pub budget_steps: u64,
    /// Time for the whole technique, a safety net for what steps do not count (the
    /// reruns); on a quiet machine the steps and the caps end it first.
    pub budget: Duration,
    /// Reruns of one failing test at most.
    pub max_reruns: usize,
    /// Runs built per distance at most (the paper's threshold).
    pub paths_per_distance: usize,
    /// Flip branches of loops too (the paper does not).
    pub flip_loops: bool,
    /// Memory a test's solver process may take beyond the tool's, in MiB.
    pub memory_mb: u64,
}

/// The technique's solver steps: about 60 s of z3 on the project's 2-core machine.
const BUDGET_STEPS: u64 = 240_000_000;

/// Time a test's worker is given beyond what is left of the technique's budget before it
/// counts as hung (the budget is checked between solver checks; one check can run past
/// it). The tool's reruns do not count: the limit is on the worker's silences.
const WORKER_SLACK: Duration = Duration::from_secs(10);

/// A test's search in its worker: asked to search (`()`), it asks the tool for reruns with
/// generated arguments, and answers with what it did or why it could not.
type Search = Worker<(), Result<pathgen::Report, String>, Vec<Binding>, Rerun>;

impl Default for PathGeneration {
    fn default() -> Self {
        PathGeneration {
            budget_steps: BUDGET_STEPS,
            budget: Duration::from_secs(180),
            max_reruns: 20,
            paths_per_distance: Bounds::default().paths_per_distance,
            flip_loops: false,
            memory_mb: 1024,
        }
    }
}

/// The report's `localization.pathgen`.
#[derive(Debug, Default, Serialize)]
pub struct Account {
    pub tests: Vec<TestAccount>,
    pub seconds: f64,
    /// The largest resident size a test's solver process reached, in MiB (the tool's
    /// memory as it forked included), when one ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub solver_peak_mb: Option<u64>,
}

/// One failing test's search.
#[derive(Debug, Default, Serialize)]
pub struct TestAccount {
    pub test: String,
    /// The call searched (`max(3, 5)`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub call: Option<String>,
    /// What a successful call must do.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub success: Option<String>,
    /// The successful run found: its arguments and the branch instances that differ.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub found: Option<FoundRun>,
    /// What the search did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub search: Option<pathgen::Report>,
    /// Why the test was not searched.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
    pub seconds: f64,
}

/// The closest successful run found for one test.
#[derive(Debug, Clone, Serialize)]
pub struct FoundRun {
    /// The arguments of the successful run, by parameter.
    pub inputs: BTreeMap<String, String>,
    /// The branch instances evaluated differently, in the failing run's order.
    pub distance: Vec<DifferingBranch>,
}

/// A branch instance of the failing run the successful run evaluates the other way.
#[derive(Debug, Clone, Serialize)]
pub struct DifferingBranch {
    pub file: String,
    pub line: u32,
    pub column: u32,
    pub code: String,
    /// Which evaluation of the branch in the call (0-based).
    pub instance: u32,
    /// Its outcome in the failing run.
    pub failing: bool,
}

impl PathGeneration {
    /// The technique as the options configure it.
    pub fn new(options: &crate::options::Options) -> PathGeneration {
        PathGeneration {
            budget_steps: BUDGET_STEPS,
            budget: std::time::Duration::from_secs_f64(options.pathgen_timeout.max(0.0)),
            max_reruns: options.pathgen_reruns,
            paths_per_distance: options.pathgen_paths.max(1),
            flip_loops: options.pathgen_flip_loops,
            memory_mb: options.solver_memory,
        }
    }
}

impl Technique for PathGeneration {
    fn name(&self) -> &'static str {
        NAME
    }

    fn localize(&self, context: &Context, notes: &mut Vec<String>) -> Result<Localized> {
        let start = Instant::now();
        let mut account = Account::default();
        let mut programs: BTreeMap<String, Result<Program, String>> = BTreeMap::new();
        // Per site: the tests whose successful run differs there, and the first detail.
        let mut blamed: BTreeMap<SiteKey, (SiteInfo, usize, String)> = BTreeMap::new();
        let mut steps: u64 = 0;
        let progress =
            (context.console).phase("Generating", "paths", "tests", context.oracles.len());
        for oracle in context.oracles {
            let began = Instant::now();
            let mut test = TestAccount {
                test: oracle.test.display(),
                ..TestAccount::default()
            };
            let left = Left {
                steps: self.budget_steps.saturating_sub(steps),
                time: self.budget.saturating_sub(start.elapsed()),
            };
            if left.steps == 0 {
                test.skipped = Some(format!(
                    "the path-generation budget of {} solver steps was spent on earlier tests",
                    self.budget_steps
                ));
            } else if left.time.is_zero() {
                test.skipped = Some(format!(
                    "the path-generation time limit of {} s was reached on earlier tests",
                    self.budget.as_secs()
                ));
            } else {
                let peak =
                    self.search(context, oracle, &mut programs, &mut test, left, &mut blamed);
                account.solver_peak_mb = account.solver_peak_mb.max(peak);
                steps += test.search.as_ref().map_or(0, |r| r.steps);
            }
            test.seconds = began.elapsed().as_secs_f64();
            if let Some(why) = &test.skipped {
                notes.push(format!("{NAME}: {} not searched: {why}", test.test));
            }
            progress.tick(&test.test);
            account.tests.push(test);
        }
        let tests = context.oracles.len().max(1) as f64;
        let mut suspects: Vec<Suspect> = blamed
            .into_values()
            .filter(|(info, _, _)| is_candidate(info.kind))
            .map(|(info, count, detail)| Suspect {
                path: workspace_path(context.workspace_root, &info.file),
                site: info,
                evidence: vec![Evidence {
                    technique: NAME,
                    score: count as f64 / tests,
                    detail,
                }],
            })
            .collect();
        suspects.sort_by(|a, b| {
            b.evidence[0]
                .score
                .total_cmp(&a.evidence[0].score)
                .then_with(|| (a.site.line, a.site.column).cmp(&(b.site.line, b.site.column)))
        });
        account.seconds = start.elapsed().as_secs_f64();
        Ok(Localized {
            suspects,
            details: serde_json::to_value(&account).ok(),
            solver_peak_mb: account.solver_peak_mb,
            ..Localized::default()
        })
    }
}

impl PathGeneration {
    /// Searches the closest successful run of `oracle`'s failing call; what it found goes
    /// into `blamed`. The peak of the search's worker (MiB), when one ran.
    fn search(
        &self,
        context: &Context,
        oracle: &Oracle,
        programs: &mut BTreeMap<String, Result<Program, String>>,
        test: &mut TestAccount,
        left: Left,
        blamed: &mut BTreeMap<SiteKey, (SiteInfo, usize, String)>,
    ) -> Option<u64> {
        let recorded = &context.traces[oracle.trace];
        let Some(call) = &oracle.call else {
            test.skipped = Some(
                oracle
                    .why
                    .clone()
                    .unwrap_or_else(|| "the oracle named no failing call".into()),
            );
            return None;
        };
        test.call = Some(call.shown());
        if recorded.trace.coverage || recorded.trace.events.is_empty() {
            test.skipped = Some("the failing test's trace has no events".into());
            return None;
        }
        if recorded.trace.events[call.events.clone()]
            .iter()
            .any(|e| matches!(e, Record::Truncated { .. }))
        {
            test.skipped = Some("the failing call's events were cut at the event cap".into());
            return None;
        }
        let Some(entry) = recorded.trace.sites.get(&call.site).cloned() else {
            test.skipped = Some("the failing call's site is not in the trace".into());
            return None;
        };
        let judge = match Judge::of(oracle) {
            Ok(judge) => judge,
            Err(why) => {
                test.skipped = Some(why);
                return None;
            }
        };
        test.success = Some(judge.describe());
        let program = programs
            .entry(entry.file.clone())
            .or_insert_with(|| lower(context.workspace_root, &entry.file));
        let program = match program {
            Ok(program) => &*program,
            Err(why) => {
                test.skipped = Some(why.clone());
                return None;
            }
        };
        let failing = pathgen::steps_of(
            &recorded.trace.sites,
            &recorded.trace.events[call.events.clone()],
            &entry.file,
        );
        let key = entry.key();
        // Which call of the function this is in the run (the plan names it so).
        let instance = recorded.trace.events[..call.events.start]
            .iter()
            .filter(|e| matches!(e, Record::Enter { site, .. } if recorded.trace.sites.get(site).is_some_and(|s| s.key() == key)))
            .count() as u32;
        let problem = Problem {
            program,
            function: call.function.clone(),
            recorded_args: &call.args,
            failing,
            ended_by_panic: call.end == End::Panicked,
            spec: oracle.spec(),
            override_sequences: true,
        };
        let options = pathgen::Options {
            bounds: Bounds {
                flip_loops: self.flip_loops,
                paths_per_distance: self.paths_per_distance,
            },
            max_reruns: self.max_reruns,
            budget_steps: left.steps,
            budget: left.time,
            ..pathgen::Options::default()
        };
        let mut runner = Rerunner {
            rerun: context.rerun,
            recorded,
            entry: key,
            instance,
            file: entry.file.clone(),
            judge,
            fuel: 20 * recorded.trace.events.len() as u64 + 10_000,
        };
        let bounds = worker::Bounds {
            memory_mb: self.memory_mb,
            time: left.time + WORKER_SLACK,
        };
        let (searched, peak) = in_worker(bounds, &problem, &options, &mut runner);
        match searched {
            Ok(report) => {
                if let Some(found) = &report.found {
                    test.found = Some(blame_differing(context, recorded, call, found, blamed));
                }
                test.search = Some(report);
            }
            Err(why) => test.skipped = Some(why),
        }
        peak
    }
}

/// Runs the search in a worker process of its own, under `bounds`, the tool making the
/// reruns it asks for with `runner`: what it did, or why it gave up, failed or ended; and
/// the worker's peak (MiB).
fn in_worker(
    bounds: worker::Bounds,
    problem: &Problem,
    options: &pathgen::Options,
    runner: &mut Rerunner,
) -> (Result<pathgen::Report, String>, Option<u64>) {
    let serve = |(), tool: &mut Parent<Vec<Binding>, Rerun>| {
        generate_guarded(problem, options, &mut AskTheTool(tool))
    };
    let mut worker: Search = match Worker::start_conversing(bounds, serve) {
        Ok(worker) => worker,
        Err(e) => {
            return (
                Err(format!("could not start the solver's process: {e}")),
                None,
            );
        }
    };
    let answer = worker.converse(&(), |arguments| runner.rerun(&arguments));
    let peak = worker.finish();
    let searched = answer.unwrap_or_else(|ended| {
        let peak = peak.map_or(String::new(), |mb| format!(" (its peak: {mb} MiB)"));
        Err(format!("{ended}{peak}"))
    });
    (searched, peak)
}

/// Runs the search (in its worker); `Err` when it gave up or failed (why).
fn generate_guarded(
    problem: &Problem,
    options: &pathgen::Options,
    runner: &mut dyn Runner,
) -> Result<pathgen::Report, String> {
    // A defect of the model must cost this test's search, not the run.
    let searched = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        pathgen::generate(problem, options, runner)
    }));
    searched.unwrap_or_else(|panic| {
        let what = panic
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        Err(format!("the search failed: {what}"))
    })
}

/// The reruns a search in its worker asks of the tool.
struct AskTheTool<'t, 'c>(&'t mut Parent<'c, Vec<Binding>, Rerun>);

impl Runner for AskTheTool<'_, '_> {
    fn rerun(&mut self, arguments: &[Binding]) -> Rerun {
        self.0.ask(arguments.to_vec())
    }
}

/// The closest successful run found for `call`: its inputs and the branch instances it
/// evaluates differently, each blamed (once more) in `blamed`.
fn blame_differing(
    context: &Context,
    recorded: &RecordedTrace,
    call: &Call,
    found: &pathgen::Found,
    blamed: &mut BTreeMap<SiteKey, (SiteInfo, usize, String)>,
) -> FoundRun {
    let inputs: BTreeMap<String, String> = found
        .inputs
        .iter()
        .map(|(n, v)| (n.clone(), crate::oracle::assertion::describe(v)))
        .collect();
    let shown_inputs = found
        .inputs
        .iter()
        .map(|(n, v)| format!("{n} = {}", crate::oracle::assertion::describe(v)))
        .collect::<Vec<_>>()
        .join(", ");
    let mut distance = Vec::new();
    for d in &found.distance {
        let Some(info) = site_info(&recorded.trace, &d.site) else {
            continue;
        };
        distance.push(DifferingBranch {
            file: workspace_path(context.workspace_root, &info.file),
            line: info.line,
            column: info.column,
            code: info.code.clone(),
            instance: d.instance,
            failing: d.failing_outcome,
        });
        let detail = format!(
            "the closest successful run ({}({shown_inputs}), {} branch instance{} \
                     away) evaluates `{}` {} at its evaluation {} of the call, where the \
                     failing run had {}",
            call.name(),
            found.distance.len(),
            if found.distance.len() == 1 { "" } else { "s" },
            one_line(&info.code),
            !d.failing_outcome,
            d.instance + 1,
            d.failing_outcome
        );
        let entry = blamed
            .entry(d.site.clone())
            .or_insert_with(|| (info.clone(), 0, detail));
        entry.1 += 1;
    }
    FoundRun { inputs, distance }
}

fn one_line(code: &str) -> String {
    code.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn lower(workspace_root: &Path, file: &str) -> Result<Program, String> {
    super::lower_file(workspace_root, file)
}

fn site_info(trace: &RawTrace, key: &SiteKey) -> Option<SiteInfo> {
    trace.sites.values().find(|s| s.key() == *key).cloned()
}

/// What makes a rerun of the call successful.
#[derive(Debug, Clone)]
enum Judge {
    /// It returns this value (the confirmed oracle) without panicking or failing a contract.
    Returns(Value),
    /// It returns normally and the test passes (the test rejected the value it returned
    /// without saying which it wanted).
    TestPasses,
    /// It returns normally, without failing a contract.
    Completes,
}

impl Judge {
    fn of(oracle: &Oracle) -> Result<Judge, String> {
        let trusted = oracle.confirmed || oracle.later_failure.is_some();
        match &oracle.expectation {
            Some(Expectation::Returns(v)) if trusted => Ok(Judge::Returns(v.clone())),
            Some(Expectation::Returns(_)) => Err(format!(
                "the expected value is not confirmed ({}): success cannot be judged",
                oracle.why.as_deref().unwrap_or("no confirming rerun")
            )),
            Some(Expectation::ReturnsOtherThan(_) | Expectation::Rejected(_)) => {
                Ok(Judge::TestPasses)
            }
            Some(Expectation::NoPanic { .. } | Expectation::Contract { .. }) => {
                Ok(Judge::Completes)
            }
            None => Err(oracle
                .why
                .clone()
                .unwrap_or_else(|| "the oracle states no expectation".into())),
        }
    }

    fn describe(&self) -> String {
        match self {
            Judge::Returns(v) => format!(
                "return {} without panicking or failing a contract",
                crate::oracle::assertion::describe(v)
            ),
            Judge::TestPasses => "return, and the test pass".into(),
            Judge::Completes => "return without panicking or failing a contract".into(),
        }
    }
}

/// Reruns the failing test with the call's arguments replaced.
struct Rerunner<'a> {
    rerun: &'a Recorder<'a>,
    recorded: &'a RecordedTrace,
    /// The function's entry site and which call of it to drive.
    entry: SiteKey,
    instance: u32,
    file: String,
    judge: Judge,
    fuel: u64,
}

impl Runner for Rerunner<'_> {
    fn rerun(&mut self, arguments: &[Binding]) -> Rerun {
        let failed = |detail: String| Rerun {
            successful: false,
            path: None,
            detail,
        };
        let plan = Plan {
            version: PLAN_VERSION,
            fuel: Some(self.fuel),
            arguments: arguments
                .iter()
                .map(|(name, value)| Argument {
                    target: Target {
                        site: self.entry.clone(),
                        instance: Some(self.instance),
                    },
                    name: name.clone(),
                    value: value.clone(),
                })
                .collect(),
            ..Plan::default()
        };
        let (result, trace) = match self.rerun.run(&self.recorded.test, Some(&plan), "events") {
            Ok(run) => run,
            Err(error) => return failed(format!("the rerun could not be made: {error:#}")),
        };
        if let Some(message) = trace.events.iter().find_map(|e| match e {
            Record::PlanError { message, .. } => Some(message.clone()),
            _ => None,
        }) {
            return failed(format!("the arguments could not be replaced: {message}"));
        }
        let Some((range, end)) = nth_call(&trace, &self.entry, self.instance) else {
            return failed("the rerun never made the call".into());
        };
        let path = pathgen::steps_of(&trace.sites, &trace.events[range.clone()], &self.file);
        // Contract checks of the call itself sit just before its entry and after its exit.
        let before = trace.events[..range.start]
            .iter()
            .rev()
            .take_while(|e| matches!(e, Record::Contract { .. }));
        let after = trace.events[range.end..]
            .iter()
            .take_while(|e| matches!(e, Record::Contract { .. }));
        let contract_failed = before
            .chain(&trace.events[range.clone()])
            .chain(after)
            .any(|e| matches!(e, Record::Contract { ok: false, .. }));
        let returned = returned_value(&trace, range.clone());
        let shown = returned
            .as_ref()
            .map_or_else(|| "nothing".to_string(), crate::oracle::assertion::describe);
        let (successful, detail) = if end != End::Returned {
            (false, "the call panicked".to_string())
        } else if contract_failed {
            (false, "a contract failed".to_string())
        } else {
            match &self.judge {
                Judge::Returns(want) => {
                    let same = returned.as_ref().map(Concrete::from_value)
                        == Some(Concrete::from_value(want));
                    (same, format!("returned {shown}"))
                }
                Judge::TestPasses => (
                    result.outcome.passed(),
                    format!("returned {shown}; the test {}", result.outcome.describe()),
                ),
                Judge::Completes => (true, format!("returned {shown}")),
            }
        };
        Rerun {
            successful,
            path: Some(path),
            detail,
        }
    }
}

/// The events of call `instance` of the function entered at `entry` (its `Enter` to its
/// `Exit`), and how it ended.
fn nth_call(
    trace: &RawTrace,
    entry: &SiteKey,
    instance: u32,
) -> Option<(std::ops::Range<usize>, End)> {
    let ids: Vec<u32> = trace
        .sites
        .iter()
        .filter(|(_, s)| s.key() == *entry)
        .map(|(&id, _)| id)
        .collect();
    let start = trace
        .events
        .iter()
        .enumerate()
        .filter(|(_, e)| matches!(e, Record::Enter { site, .. } if ids.contains(site)))
        .nth(instance as usize)?
        .0;
    let mut depth = 0usize;
    for (i, e) in trace.events.iter().enumerate().skip(start) {
        match e {
            Record::Enter { .. } => depth += 1,
            Record::Exit { panicking, .. } => {
                depth -= 1;
                if depth == 0 {
                    let end = if *panicking {
                        End::Panicked
                    } else {
                        End::Returned
                    };
                    return Some((start..i + 1, end));
                }
            }
            _ => {}
        }
    }
    Some((start..trace.events.len(), End::Unfinished))
}

/// The value the call in `range` returned: its own last `Return` component.
fn returned_value(trace: &RawTrace, range: std::ops::Range<usize>) -> Option<Value> {
    let mut depth = 0usize;
    let mut out = None;
    for e in &trace.events[range] {
        match e {
            Record::Enter { .. } => depth += 1,
            Record::Exit { .. } => depth = depth.saturating_sub(1),
            Record::Component { site, value, .. }
                if depth == 1
                    && trace
                        .sites
                        .get(site)
                        .is_some_and(|s| s.kind == SiteKind::Return) =>
            {
                out = Some(value.clone());
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(line: u32) -> SiteKey {
        SiteKey {
            file: "src/lib.rs".into(),
            line,
            column: 8,
            kind: SiteKind::Fn,
        }
    }

    fn trace(events: Vec<Record>) -> RawTrace {
        let mut t = RawTrace::default();
        for (id, line, kind) in [
            (1, 3, SiteKind::Fn),
            (2, 9, SiteKind::Fn),
            (3, 5, SiteKind::Return),
        ] {
            t.sites.insert(
                id,
                SiteInfo {
                    file: "src/lib.rs".into(),
                    line,
                    column: 8,
                    end_line: line,
                    end_column: 9,
                    kind,
                    code: String::new(),
                    function: "m::f".into(),
                },
            );
        }
        t.events = events;
        t
    }

    fn int(v: i128) -> Value {
        Value::Int {
            ty: "i32".into(),
            v,
        }
    }

    #[test]
    fn the_nth_call_and_its_own_return() {
        let ret = |v| Record::Component {
            site: 3,
            instance: 0,
            value: int(v),
            overridden: false,
            scope: Vec::new(),
        };
        let t = trace(vec![
            Record::Enter {
                site: 1,
                args: vec![],
            },
            ret(1),
            Record::Exit {
                site: 1,
                panicking: false,
            },
            Record::Enter {
                site: 1,
                args: vec![],
            },
            Record::Enter {
                site: 1,
                args: vec![],
            },
            ret(7),
            Record::Exit {
                site: 1,
                panicking: false,
            },
            ret(2),
            Record::Exit {
                site: 1,
                panicking: true,
            },
        ]);
        let (range, end) = nth_call(&t, &key(3), 1).unwrap();
        assert_eq!((range.clone(), end), (3..9, End::Panicked));
        // The nested call's return is not the call's own.
        assert_eq!(returned_value(&t, range), Some(int(2)));
        let (range, end) = nth_call(&t, &key(3), 2).unwrap();
        assert_eq!((range, end), (4..7, End::Returned));
        assert!(nth_call(&t, &key(3), 3).is_none());
        assert!(nth_call(&t, &key(9), 0).is_none());
    }
}
