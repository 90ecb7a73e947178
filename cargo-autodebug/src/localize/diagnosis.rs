//! Model-based diagnosis (Wotawa; Könighofer & Bloem): the failing call is lowered to a
//! model of its code, encoded along its recorded trace with one `ab` literal per component
//! (right-hand side, condition, loop bound, returned value), and z3 names the minimal sets of
//! components that, declared abnormal, make the run meet its specification — the test's
//! expected value confirmed by the oracle stage, the contracts, "no panic". The calls the
//! test accepted and the calls of passing tests go into the same model: a fix is one piece
//! of code, so a diagnosis that would break them is not one. For each diagnosed component
//! the path-based weakest precondition says what it should have computed, and the suspect
//! carries that sentence.
//!
//! Each failing test has its own model (the joint model of all of them times out on loops
//! that unroll a few hundred times); a diagnosis of the whole failure must explain every
//! failing test, so the per-test diagnoses are combined as minimal unions.
//!
//! Each test's model lives in a worker process of its own (see [`crate::worker`]), under
//! `--solver-memory` and the technique's time: a model that needs more ends that worker,
//! and the test is not diagnosed, with a note.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::Result;
use autodebug_runtime::protocol::{SiteInfo, SiteKey, SiteKind};
use autodebug_symbolic::conflicts::{self, ComponentId, Role, Z3Oracle};
use autodebug_symbolic::diagnose::{
    Bounds, ConflictOracle, Cut, Diagnoses, Undecided, Verdict, diagnose,
};
use autodebug_symbolic::encode::{self, Call, Encoder, Encoding, Spec};
use autodebug_symbolic::ir::Program;
use autodebug_symbolic::wp;
use serde::{Deserialize, Serialize};

use super::{Context, Findings, Localized, Suspect, Technique, is_candidate};
use crate::model::Evidence;
use crate::oracle::{self, Oracle};
use crate::trace::{RecordedTrace, workspace_path};
use crate::worker::{self, Worker};

/// The technique's name in evidence and in the report.
const NAME: &str = "diagnosis";

/// Model-based diagnosis of the failing calls the oracle stage named.
pub struct Diagnosis {
    /// Solver steps (z3's `rlimit` count) for the whole technique; failing tests not
    /// reached in them are not diagnosed. Steps, not seconds, so that the same failure
    /// gets the same diagnoses on a busy machine as on a quiet one.
    pub budget_steps: u64,
    /// Wall-clock bound of the whole technique, a safety net for what steps do not count
    /// (encoding, explanations); on a quiet machine the step budget ends first.
    pub budget: Duration,
    /// Step limit of one solver check.
    pub check_steps: u32,
    /// Time limit of one solver check, a safety net past its step limit.
    pub check_timeout: Duration,
    /// Step limit of each check of the weakest-precondition explanation of one component.
    pub explain_steps: u32,
    /// The largest diagnosis looked for.
    pub max_cardinality: usize,
    /// Calls of passing tests each diagnosis is checked against (they prune, and they cost).
    pub max_passing_calls: usize,
    /// Step limit of one of those checks (undecided keeps the diagnosis).
    pub prune_steps: u32,
    /// Time limit of one of those checks, a safety net past its step limit.
    pub prune_timeout: Duration,
    /// Memory a test's solver process may take beyond the tool's, in MiB.
    pub memory_mb: u64,
}

impl Default for Diagnosis {
    fn default() -> Self {
        Diagnosis {
            // About 30 s of z3 4.8.12 on this project's 2-core machine (3.3 million steps a
            // second on the quicksort example), 2 s a check and 0.2 s a pruning check.
            budget_steps: 100_000_000,
            budget: Duration::from_secs(180),
            check_steps: 6_000_000,
            check_timeout: Duration::from_secs(12),
            explain_steps: 12_000_000,
            max_cardinality: 2,
            max_passing_calls: 3,
            prune_steps: 600_000,
            prune_timeout: Duration::from_secs(2),
            memory_mb: 1024,
        }
    }
}

impl Diagnosis {
    /// The technique as the options configure it (its other bounds are fixed).
    pub fn new(options: &crate::options::Options) -> Diagnosis {
        Diagnosis {
            memory_mb: options.solver_memory,
            ..Diagnosis::default()
        }
    }
}

/// Time a test's worker is given beyond what is left of the technique's budget before it
/// counts as hung (the budget is checked between solver checks; one check, or an
/// explanation, can run past it).
const WORKER_SLACK: Duration = Duration::from_secs(10);

/// The report's `localization.diagnosis`.
#[derive(Debug, Default, Serialize)]
pub struct Account {
    /// Per failing test: what went into its model and what came out.
    pub tests: Vec<TestAccount>,
    /// The diagnoses of the whole failure (every diagnosed test explained), smallest first.
    pub diagnoses: Vec<DiagnosisEntry>,
    /// Every minimal diagnosis up to `max_cardinality` was found for every diagnosed test.
    pub complete: bool,
    /// Seconds spent.
    pub seconds: f64,
    /// The largest resident size a test's solver process reached, in MiB (the tool's
    /// memory as it forked included), when one ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub solver_peak_mb: Option<u64>,
}

/// One failing test's model (it crosses back from the test's worker).
#[derive(Debug, Default, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct TestAccount {
    pub test: String,
    /// The failing call (`max(3, 5)`), when the oracle named one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub call: Option<String>,
    /// What the failing call was asked (`ret == 5`, `no panic`, `ensures(…)`).
    pub specification: Vec<String>,
    /// Calls in the model: the failing one, the accepted ones, passing tests' ones.
    pub calls_encoded: usize,
    /// Calls left out, with the reason (outside the modelled subset, disagreement with the
    /// trace, …).
    pub calls_degraded: Vec<String>,
    /// Approximations the encoding made.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Components in the model.
    pub components: usize,
    /// Diagnoses of the failing call that a passing test's call ruled out.
    pub pruned: usize,
    /// The minimal diagnoses of this test, as statements.
    pub diagnoses: Vec<Vec<String>>,
    /// Solver checks made.
    pub checks: usize,
    /// Solver steps they took (z3's `rlimit` count).
    pub steps: u64,
    /// Seconds spent encoding the calls, searching the diagnoses, explaining them.
    pub encode_s: f64,
    pub search_s: f64,
    pub explain_s: f64,
    /// The longest solver check.
    pub slowest_check_s: f64,
    /// The search ended before every diagnosis up to the bound was known (why).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub incomplete: Option<String>,
    /// Why the test was not diagnosed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
    pub seconds: f64,
}

/// A diagnosis of the whole failure.
#[derive(Debug, Clone, Serialize)]
pub struct DiagnosisEntry {
    pub components: Vec<ComponentEntry>,
}

/// A component of a diagnosis.
#[derive(Debug, Clone, Serialize)]
pub struct ComponentEntry {
    pub file: String,
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
    pub end_column: u32,
    /// The site's kind (`compound` for `x op= e`, whose span is `e`'s).
    pub kind: SiteKind,
    pub statement: String,
    /// What the weakest precondition along the failing run asks of it, when it can say.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub explanation: Option<String>,
}

/// A component as the per-test models know it, by site (component ids differ per model).
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Known {
    info: SiteInfo,
    statement: String,
    /// The first weakest-precondition sentence a failing run gave for it.
    explanation: Option<String>,
}

impl Technique for Diagnosis {
    fn name(&self) -> &'static str {
        NAME
    }

    fn localize(&self, context: &Context, notes: &mut Vec<String>) -> Result<Localized> {
        let (suspects, account) = self.diagnose_all(context, notes)?;
        let mut findings = Findings::default();
        findings.diagnoses.extend(
            account
                .diagnoses
                .iter()
                .filter(|d| d.components.len() == 2)
                .map(|d| {
                    d.components
                        .iter()
                        .map(|c| (c.file.clone(), c.line, c.column, c.kind))
                        .collect()
                }),
        );
        Ok(Localized {
            suspects,
            details: serde_json::to_value(&account).ok(),
            findings,
            solver_peak_mb: account.solver_peak_mb,
        })
    }
}

impl Diagnosis {
    /// The suspects of the diagnoses of the failing tests, and the account of the search.
    fn diagnose_all(
        &self,
        context: &Context,
        notes: &mut Vec<String>,
    ) -> Result<(Vec<Suspect>, Account)> {
        let start = Instant::now();
        let mut programs: HashMap<String, Result<Program, String>> = HashMap::new();
        let mut known: BTreeMap<SiteKey, Known> = BTreeMap::new();
        let mut per_test: Vec<Searched> = Vec::new();
        let mut account = Account {
            complete: true,
            ..Account::default()
        };
        let progress =
            (context.console).phase("Diagnosing", "diagnosis", "tests", context.oracles.len());
        let mut steps: u64 = 0;
        for oracle in context.oracles {
            let mut test = TestAccount {
                test: oracle.test.display(),
                ..TestAccount::default()
            };
            let began = Instant::now();
            if steps >= self.budget_steps || start.elapsed() >= self.budget {
                test.skipped = Some(if steps >= self.budget_steps {
                    format!(
                        "the diagnosis budget of {} solver steps was spent on earlier tests",
                        self.budget_steps
                    )
                } else {
                    format!(
                        "the diagnosis time bound of {} s was reached on earlier tests",
                        self.budget.as_secs()
                    )
                });
                account.complete = false;
            } else {
                let diagnosed = self
                    .prepare(context, oracle, &mut programs, &mut test)
                    .and_then(|prepared| {
                        let left = Left {
                            steps: self.budget_steps - steps,
                            deadline: start + self.budget,
                        };
                        let (diagnosed, peak) =
                            self.in_worker(&prepared, &known, &test, began, left);
                        account.solver_peak_mb = account.solver_peak_mb.max(peak);
                        match diagnosed {
                            Ok(diagnosed) => {
                                test = diagnosed.test;
                                known = diagnosed.known.into_iter().collect();
                                diagnosed.diagnoses
                            }
                            Err(why) => {
                                test.skipped = Some(why);
                                None
                            }
                        }
                    });
                match diagnosed {
                    // A search that found nothing but was cut short says nothing: it
                    // must not empty the diagnoses of the other tests.
                    Some(diagnoses) if diagnoses.is_empty() && test.incomplete.is_some() => {
                        account.complete = false
                    }
                    Some(diagnoses) => per_test.push(Searched {
                        diagnoses,
                        whole: test.incomplete.is_none(),
                    }),
                    None => account.complete = false,
                }
            }
            if test.incomplete.is_some() {
                account.complete = false;
            }
            steps += test.steps;
            test.seconds = began.elapsed().as_secs_f64();
            if let Some(why) = &test.skipped {
                notes.push(format!("{NAME}: {} not diagnosed: {why}", test.test));
            }
            progress.tick(&test.test);
            account.tests.push(test);
        }
        let combined = combine(&per_test, self.max_cardinality);
        account.diagnoses = combined
            .iter()
            .map(|set| DiagnosisEntry {
                components: set
                    .iter()
                    .map(|key| {
                        let k = &known[key];
                        ComponentEntry {
                            file: workspace_path(context.workspace_root, &k.info.file),
                            line: k.info.line,
                            column: k.info.column,
                            end_line: k.info.end_line,
                            end_column: k.info.end_column,
                            kind: k.info.kind,
                            statement: k.statement.clone(),
                            explanation: k.explanation.clone(),
                        }
                    })
                    .collect(),
            })
            .collect();
        let suspects = suspects(&combined, &known, context.workspace_root);
        account.seconds = start.elapsed().as_secs_f64();
        Ok((suspects, account))
    }
}

/// What the model of one failing test is made of, prepared by the tool (the lowering is
/// shared by the tests of a file): the worker that diagnoses the test starts with it.
struct Prepared<'c, 'p> {
    recorded: &'c RecordedTrace,
    program: &'p Program,
    /// The failing call, the calls the test accepted, and the calls that prune.
    failing: Call<'c>,
    accepted: Vec<Call<'c>>,
    passing: Vec<Call<'c>>,
    /// Iterations unrolled beyond the recorded ones.
    slack: u32,
}

/// What a test's worker found, as it crosses back to the tool.
#[derive(Serialize, Deserialize)]
struct Diagnosed {
    test: TestAccount,
    /// `None` when the test could not be diagnosed (`test.skipped` says why).
    diagnoses: Option<Vec<BTreeSet<SiteKey>>>,
    /// The components known after this test (those known before it included).
    known: Vec<(SiteKey, Known)>,
}

impl Diagnosis {
    /// Diagnoses the `prepared` test in a worker process of its own, which starts from the
    /// components `known` so far and the account `test`: what it found, or why the test
    /// was not diagnosed (the worker ended), and the worker's peak (MiB).
    fn in_worker(
        &self,
        prepared: &Prepared,
        known: &BTreeMap<SiteKey, Known>,
        test: &TestAccount,
        began: Instant,
        left: Left,
    ) -> (Result<Diagnosed, String>, Option<u64>) {
        let bounds = worker::Bounds {
            memory_mb: self.memory_mb,
            time: left.deadline.saturating_duration_since(Instant::now()) + WORKER_SLACK,
        };
        let serve = |()| {
            let mut known = known.clone();
            let mut test = test.clone();
            let diagnoses = self.diagnose(prepared, &mut known, &mut test, began, left);
            Diagnosed {
                test,
                diagnoses,
                known: known.into_iter().collect(),
            }
        };
        let mut worker = match Worker::start(bounds, serve) {
            Ok(worker) => worker,
            Err(e) => {
                return (
                    Err(format!("could not start the solver's process: {e}")),
                    None,
                );
            }
        };
        let answer = worker.ask(&());
        let peak = worker.finish();
        let answer = answer.map_err(|ended| {
            let peak = peak.map_or(String::new(), |mb| format!(" (its peak: {mb} MiB)"));
            format!("{ended}{peak}")
        });
        (answer, peak)
    }

    /// What the model of `oracle`'s test is made of, lowering its file into `programs` if
    /// it is not there yet. `None` when the test cannot be diagnosed (`test.skipped` says
    /// why).
    fn prepare<'c, 'p>(
        &self,
        context: &Context<'c>,
        oracle: &'c Oracle,
        programs: &'p mut HashMap<String, Result<Program, String>>,
        test: &mut TestAccount,
    ) -> Option<Prepared<'c, 'p>> {
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
        let Some(file) = recorded.trace.sites.get(&call.site).map(|s| s.file.clone()) else {
            test.skipped = Some("the failing call's site is not in the trace".into());
            return None;
        };
        let program = programs
            .entry(file.clone())
            .or_insert_with(|| lower(context.workspace_root, &file));
        let program = match program {
            Ok(program) => &*program,
            Err(why) => {
                test.skipped = Some(why.clone());
                return None;
            }
        };
        let failing = call.encoded(&test.test, Role::Failing, recorded, oracle.spec());
        let accepted: Vec<Call> = oracle
            .accepted
            .iter()
            .map(|c| c.encoded(&test.test, Role::Passing, recorded, Spec::accepted()))
            .collect();
        // The calls the test's assertions accepted past the failure first, then passing
        // tests' calls.
        let mut passing: Vec<Call> = oracle
            .later
            .iter()
            .flat_map(|later| later.accepted_calls(&test.test, &file))
            .take(self.max_passing_calls)
            .collect();
        passing.extend(oracle::symbolic::passing_calls(
            context.traces,
            &file,
            self.max_passing_calls - passing.len(),
        ));
        let slack = if call.end == oracle::End::Panicked {
            4
        } else {
            2
        };
        Some(Prepared {
            recorded,
            program,
            failing,
            accepted,
            passing,
            slack,
        })
    }

    /// Builds the model of one failing test and diagnoses it (in the test's worker; the
    /// test's work began at `began`). `None` when the test could not be diagnosed
    /// (`test.skipped` says why).
    ///
    /// The search runs on the failing call and the calls the test accepted; each diagnosis
    /// found is then checked against each passing test's call in a model of its own (the
    /// failing call, the accepted ones and that call), which removes the diagnoses a fix
    /// could not make without breaking it. One joint model of every call is more complete
    /// but its checks time out on loops; a diagnosis pruned by one passing call is pruned
    /// by all of them together, so the pruning is sound.
    fn diagnose(
        &self,
        prepared: &Prepared,
        known: &mut BTreeMap<SiteKey, Known>,
        test: &mut TestAccount,
        began: Instant,
        left: Left,
    ) -> Option<Vec<BTreeSet<SiteKey>>> {
        let Prepared {
            recorded,
            program,
            failing,
            accepted,
            passing,
            slack,
        } = prepared;
        let (program, slack) = (*program, *slack);

        // The search, on the failing call and the calls the test accepted.
        let mut base: Vec<&Call> = vec![failing];
        base.extend(accepted);
        let mut model = self.model(program, &base, self.check_timeout, self.check_steps, slack);
        if !encoded_failing_call(&model, test) {
            return None;
        }
        test.encode_s = began.elapsed().as_secs_f64();
        let searching = Instant::now();
        let mut found = self.search(&mut model, test, left);

        // The pruning, one passing call at a time.
        for call in passing {
            if found.diagnoses.is_empty() || left.spent(test.steps) {
                break;
            }
            let mut calls = base.clone();
            calls.push(call);
            self.prune(program, &calls, slack, &mut found.diagnoses, test, left);
        }
        test.search_s = searching.elapsed().as_secs_f64();

        let explaining = Instant::now();
        let found = self.explain_diagnoses(recorded, &model, found, known, test, left.deadline);
        test.explain_s = explaining.elapsed().as_secs_f64();
        Some(found)
    }

    /// The search on one test's model (the failing call first): the minimal diagnoses, within
    /// the technique's bounds and deadline, and each component's statement.
    fn search(&self, model: &mut Model, test: &mut TestAccount, left: Left) -> Found {
        let mut timed = Timed {
            model: &mut model.oracle,
            left,
            slowest: 0.0,
        };
        let mut result = diagnose(
            &mut timed,
            &Bounds {
                max_cardinality: self.max_cardinality,
                max_diagnoses: 50,
                max_checks: 400,
                ..Bounds::default()
            },
        );
        let retried = self.second_chances(&mut timed, &mut result);
        test.checks = result.checks + retried;
        test.steps = timed.model.steps();
        test.slowest_check_s = timed.slowest;
        if let Some(cut) = result.cut.filter(|c| *c != Cut::Cardinality) {
            test.incomplete = Some(cut.to_string());
        } else if let Some(u) = result.undecided.first() {
            test.incomplete = Some(format!(
                "{} candidate(s) undecided ({})",
                result.undecided.len(),
                u.reason
            ));
        }
        let components = model.encoder.components();
        let found: Vec<BTreeSet<SiteKey>> = result
            .minimal
            .iter()
            .filter_map(|set| {
                set.iter()
                    .map(|&id| components.info(id).map(|i| i.site.clone()))
                    .collect()
            })
            .collect();
        let statements: BTreeMap<SiteKey, String> = components
            .all()
            .iter()
            .map(|i| (i.site.clone(), i.statement.clone()))
            .collect();
        Found {
            diagnoses: found,
            statements,
        }
    }

    /// Gives the candidates the search left undecided at the per-check step limit one
    /// more check each, [`RETRY_FACTOR`] times as long (within the budget), smallest
    /// first, at most [`MAX_RETRIES`] of them: a single-statement diagnosis should not
    /// be lost to a check just past the limit. A
    /// candidate found consistent joins the minimal diagnoses (those it is a subset of
    /// leave them); one found in conflict stays undecided, as its supersets were never
    /// searched. How many checks were made.
    fn second_chances(&self, timed: &mut Timed, result: &mut Diagnoses<ComponentId>) -> usize {
        let mut pending = std::mem::take(&mut result.undecided);
        pending
            .sort_by(|a, b| (a.abnormal.len(), &a.abnormal).cmp(&(b.abnormal.len(), &b.abnormal)));
        let mut checks = 0;
        let mut still = Vec::new();
        for candidate in pending {
            let subsumed = result
                .minimal
                .iter()
                .any(|d| d.is_subset(&candidate.abnormal));
            let left = timed.left.steps.saturating_sub(timed.model.steps());
            let short = left < u64::from(self.check_steps) || timed.left.spent(0);
            if subsumed || checks >= MAX_RETRIES || short {
                if !subsumed {
                    still.push(candidate);
                }
                continue;
            }
            let steps = (u64::from(self.check_steps) * u64::from(RETRY_FACTOR)).min(left);
            timed.model.set_limits(
                millis(self.check_timeout * RETRY_FACTOR),
                steps.min(u64::from(u32::MAX)) as u32,
            );
            checks += 1;
            match timed.check(&candidate.abnormal) {
                Verdict::Consistent => {
                    result.minimal.retain(|d| !candidate.abnormal.is_subset(d));
                    result.minimal.push(candidate.abnormal);
                }
                Verdict::Conflict(_) => still.push(Undecided {
                    reason: "in conflict at a longer check; its supersets were not searched".into(),
                    ..candidate
                }),
                Verdict::Unknown(reason) => still.push(Undecided {
                    reason,
                    ..candidate
                }),
            }
        }
        (timed.model).set_limits(millis(self.check_timeout), self.check_steps);
        result
            .minimal
            .sort_by(|a, b| a.len().cmp(&b.len()).then_with(|| a.cmp(b)));
        result.undecided = still;
        checks
    }

    /// Drops the diagnoses that conflict with the model of `calls` (the failing call, the
    /// accepted ones and one passing call): a fix they allow would break that call.
    fn prune(
        &self,
        program: &Program,
        calls: &[&Call],
        slack: u32,
        found: &mut Vec<BTreeSet<SiteKey>>,
        test: &mut TestAccount,
        left: Left,
    ) {
        let mut pruning = self.model(program, calls, self.prune_timeout, self.prune_steps, slack);
        let encoding = pruning.encodings.last().expect("one encoding per call");
        test.count(encoding);
        if !encoding.added || !pruning.encodings[0].added {
            return;
        }
        let before = found.len();
        let spent = test.steps;
        found.retain(|set| {
            // Past the budget a diagnosis is kept, as an undecided check keeps it.
            if left.spent(spent + pruning.oracle.steps()) {
                return true;
            }
            let ids: Option<BTreeSet<ComponentId>> = set
                .iter()
                .map(|site| pruning.encoder.components().id(site))
                .collect();
            test.checks += 1;
            !matches!(
                ids.map(|ids| pruning.oracle.check(&ids)),
                Some(Verdict::Conflict(_))
            )
        });
        test.pruned += before - found.len();
        test.steps += pruning.oracle.steps();
    }

    /// Puts each diagnosis in the test's account and explains each diagnosed component
    /// (once, before the deadline): the diagnoses whose sites are all known.
    fn explain_diagnoses(
        &self,
        recorded: &RecordedTrace,
        model: &Model,
        found: Found,
        known: &mut BTreeMap<SiteKey, Known>,
        test: &mut TestAccount,
        deadline: Instant,
    ) -> Vec<BTreeSet<SiteKey>> {
        let Found {
            diagnoses: mut found,
            statements,
        } = found;
        let components = model.encoder.components();
        let failing_encoding = &model.encodings[0];
        let wp_options = wp::Options {
            steps: self.explain_steps,
            ..wp::Options::default()
        };
        for set in &found {
            test.diagnoses
                .push(set.iter().map(|k| statements[k].clone()).collect());
            for key in set {
                let Some(site) = site_info(recorded, key) else {
                    continue;
                };
                let entry = known.entry(key.clone()).or_insert_with(|| Known {
                    info: site,
                    statement: statements[key].clone(),
                    explanation: None,
                });
                if entry.explanation.is_none() && Instant::now() < deadline {
                    entry.explanation = components
                        .id(key)
                        .and_then(|id| explain(failing_encoding, id, &wp_options));
                }
            }
        }
        found.retain(|set| set.iter().all(|k| known.contains_key(k)));
        found
    }

    /// `slack`: iterations unrolled beyond the recorded ones.
    fn model<'p>(
        &self,
        program: &'p Program,
        calls: &[&Call],
        timeout: Duration,
        steps: u32,
        slack: u32,
    ) -> Model<'p> {
        let mut oracle = Z3Oracle::new(conflicts::Options {
            timeout_ms: millis(timeout),
            rlimit: steps,
            ..conflicts::Options::default()
        });
        // `x op= e` is one component, the stored value: a wrong operator is a diagnosis.
        let mut encoder = Encoder::new(
            program,
            encode::Options {
                whole_compound: true,
                // A run that panicked often stopped in its first iterations: the runs a
                // diagnosis must allow may iterate a few times longer (the caller says).
                slack,
                ..encode::Options::default()
            },
        );
        let encodings = calls
            .iter()
            .map(|call| encoder.encode(&mut oracle, call))
            .collect();
        Model {
            oracle,
            encoder,
            encodings,
        }
    }
}

/// Accounts the failing call's encoding (the first of `model`'s) and the accepted calls':
/// whether the failing call is in the model (`test.skipped` says why not).
fn encoded_failing_call(model: &Model, test: &mut TestAccount) -> bool {
    let failing_encoding = &model.encodings[0];
    test.specification = failing_encoding
        .spec
        .iter()
        .map(|s| s.label.clone())
        .collect();
    test.notes.extend(failing_encoding.notes.iter().cloned());
    if !failing_encoding.added {
        test.skipped = Some(format!(
            "the failing call is outside what the model covers: {}",
            failing_encoding.degradations.join("; ")
        ));
        return false;
    }
    test.calls_encoded = 1;
    for encoding in &model.encodings[1..] {
        test.count(encoding);
    }
    test.components = model.encoder.components().all().len();
    true
}

/// What the search found in one test's model: the minimal diagnoses and the statement of
/// each component, by site.
struct Found {
    diagnoses: Vec<BTreeSet<SiteKey>>,
    statements: BTreeMap<SiteKey, String>,
}

/// Calls encoded into one solver.
struct Model<'p> {
    oracle: Z3Oracle,
    encoder: Encoder<'p>,
    encodings: Vec<Encoding>,
}

impl TestAccount {
    /// Counts a call put into a model (or left out, with the reason).
    fn count(&mut self, encoding: &Encoding) {
        if encoding.added {
            self.calls_encoded += 1;
        } else {
            self.calls_degraded.push(format!(
                "{}: {}",
                encoding.test,
                encoding.degradations.join("; ")
            ));
        }
    }
}

/// What is left of the technique's budget when a test's diagnosis starts.
#[derive(Debug, Clone, Copy)]
struct Left {
    /// Solver steps: the bound that decides, the same on every machine.
    steps: u64,
    /// The wall-clock safety net.
    deadline: Instant,
}

impl Left {
    /// Whether a test that has taken `spent` steps has spent what was left.
    fn spent(&self, spent: u64) -> bool {
        spent >= self.steps || Instant::now() >= self.deadline
    }
}

/// The model, checked against the technique's budget: past it every candidate is
/// undecided, so the search ends at once with what it found.
struct Timed<'m> {
    model: &'m mut Z3Oracle,
    left: Left,
    slowest: f64,
}

impl ConflictOracle for Timed<'_> {
    type Component = ComponentId;

    fn check(&mut self, abnormal: &BTreeSet<ComponentId>) -> Verdict<ComponentId> {
        if self.left.spent(self.model.steps()) {
            return Verdict::Unknown("the diagnosis budget was spent".into());
        }
        let start = Instant::now();
        let verdict = self.model.check(abnormal);
        self.slowest = self.slowest.max(start.elapsed().as_secs_f64());
        verdict
    }
}

/// How many candidates the search left undecided get a second, longer check.
const MAX_RETRIES: usize = 4;
/// How many times the per-check time limit a second check may take.
const RETRY_FACTOR: u32 = 3;

/// `duration` in whole milliseconds, as z3 takes time limits.
fn millis(duration: Duration) -> u32 {
    duration.as_millis().min(u32::MAX as u128) as u32
}

fn lower(workspace_root: &Path, file: &str) -> Result<Program, String> {
    super::lower_file(workspace_root, file)
}

/// The trace's description of the site `key`.
fn site_info(recorded: &RecordedTrace, key: &SiteKey) -> Option<SiteInfo> {
    recorded
        .trace
        .sites
        .values()
        .find(|s| s.key() == *key)
        .cloned()
}

/// The weakest-precondition sentence for component `id` along the failing run.
fn explain(failing: &Encoding, id: ComponentId, options: &wp::Options) -> Option<String> {
    let requirement = wp::requirement(failing, id, options)?;
    requirement.disagrees().then(|| requirement.sentence())
}

/// The diagnoses one test's search found, and whether the search was whole (every
/// minimal diagnosis within the bounds) or cut short.
struct Searched {
    diagnoses: Vec<BTreeSet<SiteKey>>,
    whole: bool,
}

/// The diagnoses of the whole failure: minimal unions of one diagnosis per test, at most
/// `max_cardinality` components, smallest first. Only whole searches are combined: a
/// search cut short found some of its test's diagnoses, and a union with those alone
/// drops the others (the fault among them) from the whole failure's. When no search was
/// whole, what the cut searches found is kept side by side.
fn combine(per_test: &[Searched], max_cardinality: usize) -> Vec<BTreeSet<SiteKey>> {
    const MAX_KEPT: usize = 200;
    let whole: Vec<&Searched> = per_test.iter().filter(|t| t.whole).collect();
    if whole.is_empty() {
        let mut found: Vec<BTreeSet<SiteKey>> = per_test
            .iter()
            .flat_map(|t| t.diagnoses.iter().cloned())
            .collect();
        found = minimal(found);
        found.truncate(MAX_KEPT);
        return found;
    }
    let mut acc: Vec<BTreeSet<SiteKey>> = Vec::new();
    for (i, searched) in whole.iter().enumerate() {
        let diagnoses = &searched.diagnoses;
        let next: Vec<BTreeSet<SiteKey>> = if i == 0 {
            diagnoses.clone()
        } else {
            acc.iter()
                .flat_map(|a| diagnoses.iter().map(move |d| a.union(d).cloned().collect()))
                .filter(|u: &BTreeSet<SiteKey>| u.len() <= max_cardinality)
                .collect()
        };
        acc = minimal(next);
        acc.truncate(MAX_KEPT);
    }
    acc
}

/// The sets of `sets` with no proper subset among them, deduplicated, smallest first.
fn minimal(mut sets: Vec<BTreeSet<SiteKey>>) -> Vec<BTreeSet<SiteKey>> {
    sets.sort_by(|a, b| a.len().cmp(&b.len()).then_with(|| a.cmp(b)));
    sets.dedup();
    let mut out: Vec<BTreeSet<SiteKey>> = Vec::new();
    for set in sets {
        if !out.iter().any(|kept| kept.is_subset(&set)) {
            out.push(set);
        }
    }
    out
}

/// One suspect per diagnosed component: single-component diagnoses score 1, components
/// of pairs ½, and so on (the smallest diagnosis a component is in counts). A returned
/// value scores half: changing what a function returns explains any wrong result, so that
/// diagnosis says little about where the fault is.
fn suspects(
    combined: &[BTreeSet<SiteKey>],
    known: &BTreeMap<SiteKey, Known>,
    workspace_root: &Path,
) -> Vec<Suspect> {
    let singles = combined.iter().filter(|s| s.len() == 1).count();
    let mut smallest: BTreeMap<&SiteKey, &BTreeSet<SiteKey>> = BTreeMap::new();
    for set in combined {
        for key in set {
            let entry = smallest.entry(key).or_insert(set);
            if set.len() < entry.len() {
                *entry = set;
            }
        }
    }
    let mut out: Vec<Suspect> = smallest
        .into_iter()
        .filter(|(key, _)| is_candidate(key.kind))
        .map(|(key, set)| {
            let k = &known[key];
            let what = if set.len() == 1 {
                format!("a single-fault diagnosis (1 of {singles})")
            } else {
                let others: Vec<String> = set
                    .iter()
                    .filter(|other| *other != key)
                    .map(|other| format!("`{}` (line {})", known[other].statement, other.line))
                    .collect();
                format!(
                    "a diagnosis of {} components, with {}",
                    set.len(),
                    others.join(" and ")
                )
            };
            let detail = match &k.explanation {
                Some(why) => format!("{what}: {why}"),
                None => what,
            };
            let weight = if key.kind == SiteKind::Return {
                0.5
            } else {
                1.0
            };
            Suspect {
                site: k.info.clone(),
                path: workspace_path(workspace_root, &k.info.file),
                evidence: vec![Evidence {
                    technique: NAME,
                    score: weight / set.len() as f64,
                    detail,
                }],
            }
        })
        .collect();
    out.sort_by(|a, b| {
        b.evidence[0]
            .score
            .total_cmp(&a.evidence[0].score)
            .then_with(|| (a.site.line, a.site.column).cmp(&(b.site.line, b.site.column)))
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(line: u32) -> SiteKey {
        SiteKey {
            file: "src/lib.rs".into(),
            line,
            column: 1,
            kind: SiteKind::Assign,
        }
    }

    fn set(lines: &[u32]) -> BTreeSet<SiteKey> {
        lines.iter().map(|&l| key(l)).collect()
    }

    fn whole(diagnoses: Vec<BTreeSet<SiteKey>>) -> Searched {
        Searched {
            diagnoses,
            whole: true,
        }
    }

    fn cut(diagnoses: Vec<BTreeSet<SiteKey>>) -> Searched {
        Searched {
            diagnoses,
            whole: false,
        }
    }

    #[test]
    fn a_diagnosis_of_every_test_is_a_minimal_union() {
        // Test 1: {3} or {5}; test 2: {5} or {7}. {5} explains both; {3, 7} too, and is
        // minimal; {3, 5} is not ({5} is smaller).
        let combined = combine(
            &[
                whole(vec![set(&[3]), set(&[5])]),
                whole(vec![set(&[5]), set(&[7])]),
            ],
            2,
        );
        assert_eq!(combined, vec![set(&[5]), set(&[3, 7])]);
    }

    #[test]
    fn a_search_cut_short_does_not_narrow_the_others() {
        // Test 2's search stopped after {1, 2}; its {5} was never reached. Combined with
        // it, test 1's {5} would be lost.
        let combined = combine(
            &[whole(vec![set(&[5]), set(&[3])]), cut(vec![set(&[1, 2])])],
            3,
        );
        assert_eq!(combined, vec![set(&[3]), set(&[5])]);
    }

    #[test]
    fn searches_all_cut_short_keep_what_each_found() {
        let combined = combine(
            &[cut(vec![set(&[5])]), cut(vec![set(&[5, 7]), set(&[2])])],
            3,
        );
        assert_eq!(combined, vec![set(&[2]), set(&[5])]);
    }

    #[test]
    fn unions_beyond_the_bound_are_dropped() {
        let combined = combine(&[whole(vec![set(&[3, 4])]), whole(vec![set(&[7])])], 2);
        assert!(combined.is_empty(), "{combined:?}");
    }
}
