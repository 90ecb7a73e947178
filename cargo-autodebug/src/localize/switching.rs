//! Predicate switching (Zhang, Gupta & Gupta, "Locating faults through automated predicate
//! switching"): rerun a failing test with one branch instance of its failing run flipped,
//! looking for a *critical predicate* — a flip that makes the test pass. Candidates are tried
//! last-executed-first (LEFS) or by dynamic dependence distance from the erroneous value
//! (PRIOR). The suspects are the bidirectional dynamic slice of the critical predicate,
//! ordered by dependence distance from it, the predicate first.
//!
//! A test that calls the function many times often cannot pass by one flip when the fault is
//! exercised in several calls; a flip that moves the failure to a later assertion of the test
//! counts as *progress*, and every instance of one site within the failing call is also
//! flipped at once. Every claim is a rerun that happened: nothing is reported that a switched
//! run did not show.

use std::collections::{BTreeMap, HashMap};

use anyhow::Result;
use autodebug_runtime::protocol::{PLAN_VERSION, Plan, SiteKey, SiteKind, Target};

use super::slice::{Graph, NodeKind};
use super::source::{Pos, SourceFacts};
use super::{Context, Findings, Localized, Suspect, Technique, is_candidate};
use crate::model::{Evidence, Location, Outcome, Role, TestId};
use crate::options::Order;
use crate::trace::{RawTrace, RecordedTrace, record_site, workspace_path};

/// The technique.
pub struct Switching {
    pub order: Order,
    /// Keep searching after the first critical predicate.
    pub all_critical: bool,
    /// Cap on the switched runs of one test (per ordering).
    pub max_switches: usize,
}

/// How one search for a critical predicate went.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Search {
    /// The failing test (`target::name`).
    pub test: String,
    /// `PRIOR` or `LEFS`.
    pub ordering: &'static str,
    /// Branch instances (and whole-call flips) the search could try.
    pub candidates: usize,
    /// `pass` (the switched test passed), `progress` (its failure moved later) or `none`.
    pub criterion: &'static str,
    /// Switched runs in this ordering until the first critical predicate (or all it tried).
    pub reruns: usize,
    /// Whether the switched runs ran inside the test's own process (a test target on the
    /// in-process harness) rather than one process each.
    pub in_process: bool,
    /// The critical predicate this ordering found (criterion `pass`): what was flipped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub critical: Option<Flipped>,
}

/// The branch instances whose flip made a failing test pass: the outcomes that run needed
/// (the angelic outcomes), which repair reads as the specification of a condition.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Flipped {
    /// The failing test (`target::name`).
    pub test: String,
    pub site: SiteKey,
    /// 0-based instances of the site in the failing run, flipped together.
    pub instances: Vec<u32>,
}

/// The technique's name in evidence and notes.
const NAME: &str = "predicate-switching";

/// What one switched run showed.
#[derive(Debug, Clone, PartialEq)]
enum Verdict {
    /// The test passed (and, for a panic in the program, the panicking point was reached
    /// without panicking).
    Pass,
    /// The test still fails, but at a later assertion of the test.
    Progress { from: u32, to: u32 },
    /// The test passed only by no longer reaching the panicking point (not counted).
    Avoided,
    /// The run ran out of fuel or time (a loop ran away under the flip).
    Runaway,
    /// Nothing better.
    Nothing,
}

/// The panicking point of a failure inside the program: the site whose code panicked and
/// how many of its instances the switched run must complete to have passed it.
#[derive(Debug, Clone)]
struct PanicPoint {
    key: SiteKey,
    required: usize,
}

/// What the original failure was.
#[derive(Debug, Clone)]
struct Failure {
    /// The failure is a panic inside instrumented code (`None`: the test's own assertion).
    in_program: bool,
    /// For a panic in the program, its point when a site holds it.
    point: Option<PanicPoint>,
    /// Where the test failed.
    location: Option<Location>,
    /// Line ranges (file, first, last) of the instrumented functions the failing run reached,
    /// contracts included: a switched run that fails inside them is not progress of the test.
    program_lines: Vec<(String, u32, u32)>,
}

/// Switched runs in the first batch of a search when the test runs in-process.
const FIRST_BATCH: usize = 8;
/// The largest batch of switched runs (batches double up to it).
const MAX_BATCH: usize = 64;

/// One switched run to try.
#[derive(Debug, Clone)]
struct Candidate {
    /// The branch site (id in the failing trace) and the instances flipped.
    site: u32,
    instances: Vec<u32>,
    /// The node (in the failing graph) slicing starts from.
    node: usize,
    /// Flipping every instance of the site within the failing call.
    whole_call: bool,
}

/// A critical predicate that was found.
#[derive(Debug, Clone)]
struct Critical {
    candidate: usize,
    verdict: Verdict,
    /// Reruns it took, per ordering tried (`PRIOR`, `LEFS`).
    reruns: Vec<(&'static str, usize)>,
}

impl Switching {
    /// The technique as the options configure it.
    pub fn new(options: &crate::options::Options) -> Switching {
        Switching {
            order: options.switching_order,
            all_critical: options.all_critical,
            max_switches: options.max_switches,
        }
    }
}

impl Technique for Switching {
    fn name(&self) -> &'static str {
        NAME
    }

    fn localize(&self, context: &Context, notes: &mut Vec<String>) -> Result<Localized> {
        let failing: Vec<&RecordedTrace> = context
            .traces
            .iter()
            .filter(|t| t.role == Role::Failing)
            .filter(|t| {
                context.baseline.iter().any(|b| {
                    b.test.display() == t.test.display()
                        && b.test.package == t.test.package
                        && b.deterministic_failure()
                        && !b.flaky()
                })
            })
            .collect();
        let facts = SourceFacts::load(
            context.workspace_root,
            failing.iter().flat_map(|t| t.trace.sites.values()),
        );
        let mut best: BTreeMap<SiteKey, Suspect> = BTreeMap::new();
        // One record per failing test and ordering searched (the report's `localization`).
        let mut searches: Vec<Search> = Vec::new();
        for recorded in failing {
            for suspect in self.one_test(context, recorded, &facts, &mut searches, notes) {
                let key = suspect.site.key();
                let better = best
                    .get(&key)
                    .is_none_or(|old| old.evidence[0].score < suspect.evidence[0].score);
                if better {
                    best.insert(key, suspect);
                }
            }
        }
        let mut suspects: Vec<Suspect> = best.into_values().collect();
        suspects.sort_by(|a, b| b.evidence[0].score.total_cmp(&a.evidence[0].score));
        let mut findings = Findings::default();
        for search in &searches {
            if let Some(flipped) = &search.critical
                && !findings.flipped.iter().any(|f| f.test == flipped.test)
            {
                findings.flipped.push(flipped.clone());
            }
        }
        Ok(Localized {
            suspects,
            details: serde_json::to_value(&searches).ok(),
            findings,
            solver_peak_mb: None,
        })
    }
}

impl Switching {
    fn orderings(&self) -> Vec<Order> {
        match self.order {
            Order::Both => vec![Order::Prior, Order::Lefs],
            one => vec![one],
        }
    }

    /// The search and the slice for one failing test.
    fn one_test(
        &self,
        context: &Context,
        recorded: &RecordedTrace,
        facts: &SourceFacts,
        searches: &mut Vec<Search>,
        notes: &mut Vec<String>,
    ) -> Vec<Suspect> {
        let test = &recorded.test;
        let trace = &recorded.trace;
        if trace.truncated {
            notes.push(format!(
                "{NAME}: the trace of {} is truncated; only its recorded part is switched and sliced",
                test.name
            ));
        }
        let graph = Graph::build(trace, facts);
        let failure = failure_of(recorded, &graph);
        let confirmed = confirmed_call(context, recorded);
        let Some(erroneous) = confirmed
            .as_ref()
            .and_then(|events| value_of_call(&graph, events.start))
            .or_else(|| erroneous_value(&graph))
        else {
            notes.push(format!(
                "{NAME}: the failing run of {} reached no instrumented code",
                test.name
            ));
            return Vec::new();
        };
        let until = confirmed.map_or(usize::MAX, |events| events.end);
        let candidates = candidates(&graph, trace, erroneous, until);
        if candidates.is_empty() {
            notes.push(format!(
                "{NAME}: the failing run of {} has no branch instance to switch",
                test.name
            ));
            return Vec::new();
        }
        let fuel = 20 * trace.events.len() as u64 + 10_000;
        // Switched runs in batches: a harness binary runs a whole batch in one process, so
        // batches grow (a few wasted runs past the first critical predicate cost less than a
        // process start); other binaries run one process per plan, `jobs` at a time.
        let in_process = crate::engine::batch::supports_batch(&context.rerun.engine, test);
        let batch_size = if in_process {
            FIRST_BATCH
        } else {
            context.rerun.jobs.max(1)
        };
        let mut search = TestSearch {
            context,
            test,
            trace,
            candidates: &candidates,
            failure: &failure,
            fuel,
            in_process,
            batch_size,
            cache: HashMap::new(),
            criticals: Vec::new(),
            progress: None,
        };
        let mut tried_total = 0;
        for order in self.orderings() {
            let sequence = ordered(order, &graph, &candidates, erroneous);
            let (tried, record) = self.search_ordering(&mut search, order, &sequence);
            searches.push(record);
            tried_total = tried_total.max(tried);
        }
        let Some(criticals) = search.conclude(tried_total, notes) else {
            return Vec::new();
        };
        slice_criticals(context, &graph, trace, &candidates, &criticals, test)
    }

    /// Tries the candidates in one ordering, batch by batch, until a critical predicate (all
    /// of them with `--all-critical`): the runs it tried, and the record of how it went.
    fn search_ordering(
        &self,
        search: &mut TestSearch,
        order: Order,
        sequence: &[usize],
    ) -> (usize, Search) {
        let label = order_label(order);
        let sequence = &sequence[..sequence.len().min(self.max_switches)];
        let shown = (search.context.console).phase(
            "Switching",
            "switched-runs",
            &search.test.name,
            sequence.len(),
        );
        let mut tried = 0;
        let mut found_here = false;
        let mut start = 0;
        while start < sequence.len() {
            let batch = &sequence[start..(start + search.batch_size).min(sequence.len())];
            start += batch.len();
            shown.advance(batch.len(), label);
            search.run_batch(batch);
            for &c in batch {
                tried += 1;
                if search.record(c, label, tried) {
                    found_here = true;
                }
                if found_here && !self.all_critical {
                    break;
                }
            }
            if found_here && !self.all_critical {
                break;
            }
        }
        (tried, search.summary(label, tried, found_here))
    }
}

/// The search for a critical predicate in one failing test's run: what its switched runs
/// need, and what they have shown so far across orderings.
struct TestSearch<'a> {
    context: &'a Context<'a>,
    test: &'a TestId,
    trace: &'a RawTrace,
    candidates: &'a [Candidate],
    failure: &'a Failure,
    /// Events a switched run may execute.
    fuel: u64,
    /// Whether the switched runs run inside the test's own process (batches then grow).
    in_process: bool,
    /// Switched runs in the next batch.
    batch_size: usize,
    /// What each candidate's switched run showed.
    cache: HashMap<usize, Verdict>,
    /// The critical predicates found, in the order found.
    criticals: Vec<Critical>,
    /// The first candidate whose run moved the failure later.
    progress: Option<Critical>,
}

impl TestSearch<'_> {
    /// Runs the candidates of `batch` not run yet (in another ordering) and keeps their
    /// verdicts; batches grow when the test runs in-process.
    fn run_batch(&mut self, batch: &[usize]) {
        if self.in_process {
            self.batch_size = (self.batch_size * 2).min(MAX_BATCH);
        }
        let missing: Vec<usize> = batch
            .iter()
            .copied()
            .filter(|c| !self.cache.contains_key(c))
            .collect();
        let verdicts = switched_runs(
            self.context,
            self.test,
            self.trace,
            self.candidates,
            &missing,
            self.fuel,
            self.failure,
        );
        for (c, verdict) in missing.into_iter().zip(verdicts) {
            self.cache.insert(c, verdict);
        }
    }

    /// Records what candidate `c`, the `tried`th run of ordering `label`, showed: whether it
    /// is a critical predicate (the test passed).
    fn record(&mut self, c: usize, label: &'static str, tried: usize) -> bool {
        match &self.cache[&c] {
            Verdict::Pass => {
                match self.criticals.iter_mut().find(|k| k.candidate == c) {
                    Some(known) => known.reruns.push((label, tried)),
                    None => self.criticals.push(Critical {
                        candidate: c,
                        verdict: Verdict::Pass,
                        reruns: vec![(label, tried)],
                    }),
                }
                true
            }
            verdict @ Verdict::Progress { .. } => {
                match &mut self.progress {
                    Some(p) if p.candidate == c => p.reruns.push((label, tried)),
                    Some(_) => {}
                    None => {
                        self.progress = Some(Critical {
                            candidate: c,
                            verdict: verdict.clone(),
                            reruns: vec![(label, tried)],
                        })
                    }
                }
                false
            }
            _ => false,
        }
    }

    /// How the search in ordering `label` went, after `tried` runs (`found_here`: it found a
    /// critical predicate).
    fn summary(&self, label: &'static str, tried: usize, found_here: bool) -> Search {
        let progressed = (self.progress)
            .as_ref()
            .is_some_and(|p| p.reruns.iter().any(|(l, _)| *l == label));
        let criterion = if found_here {
            "pass"
        } else if progressed {
            "progress"
        } else {
            "none"
        };
        let reruns = match (found_here, &self.progress) {
            (false, Some(p)) if progressed => p
                .reruns
                .iter()
                .find(|(l, _)| *l == label)
                .map_or(tried, |(_, n)| *n),
            _ => tried,
        };
        let critical = (self.criticals)
            .iter()
            .filter(|k| found_here && k.reruns.iter().any(|(l, _)| *l == label))
            .find_map(|k| {
                let candidate = &self.candidates[k.candidate];
                Some(Flipped {
                    test: self.test.display(),
                    site: self.trace.sites.get(&candidate.site)?.key(),
                    instances: candidate.instances.clone(),
                })
            });
        Search {
            test: self.test.display(),
            ordering: label,
            candidates: self.candidates.len(),
            criterion,
            reruns,
            in_process: self.in_process,
            critical,
        }
    }

    /// The critical predicates found (the progress when no run passed), after noting the
    /// runs that passed only by avoiding the panic; `None`, noted, when there is neither.
    fn conclude(self, tried_total: usize, notes: &mut Vec<String>) -> Option<Vec<Critical>> {
        let test = self.test;
        let avoided = self
            .cache
            .values()
            .filter(|v| **v == Verdict::Avoided)
            .count();
        if avoided > 0 {
            notes.push(format!(
                "{NAME}: {avoided} switched run(s) of {} passed only by not reaching the panicking point, with no assertion of the test checking the output; not counted",
                test.name
            ));
        }
        let mut criticals = self.criticals;
        if criticals.is_empty() {
            criticals.extend(self.progress);
        }
        if criticals.is_empty() {
            let runaway = self
                .cache
                .values()
                .filter(|v| **v == Verdict::Runaway)
                .count();
            notes.push(format!(
                "{NAME}: no critical predicate in {} reruns for {} ({runaway} ran out of fuel or time)",
                self.cache.len().max(tried_total),
                test.name
            ));
            return None;
        }
        Some(criticals)
    }
}

/// The suspects of the critical predicates' slices, the best evidence per site.
fn slice_criticals(
    context: &Context,
    graph: &Graph,
    trace: &RawTrace,
    candidates: &[Candidate],
    criticals: &[Critical],
    test: &TestId,
) -> Vec<Suspect> {
    let mut out: BTreeMap<SiteKey, Suspect> = BTreeMap::new();
    for (rank, critical) in criticals.iter().enumerate() {
        // Later critical predicates (with --all-critical) rank below the first one's slice.
        let discount = 1.0 / (1 + rank) as f64;
        for suspect in slice_suspects(
            context,
            graph,
            trace,
            &candidates[critical.candidate],
            critical,
            test,
            discount,
        ) {
            let key = suspect.site.key();
            if out
                .get(&key)
                .is_none_or(|old| old.evidence[0].score < suspect.evidence[0].score)
            {
                out.insert(key, suspect);
            }
        }
    }
    out.into_values().collect()
}

fn order_label(order: Order) -> &'static str {
    match order {
        Order::Lefs | Order::Both => "LEFS",
        Order::Prior => "PRIOR",
    }
}

/// Classifies the original failure.
fn failure_of(recorded: &RecordedTrace, graph: &Graph) -> Failure {
    let location = match &recorded.outcome {
        Outcome::Failed { location, .. } => location.clone(),
        _ => None,
    };
    let program_lines = program_lines(&recorded.trace);
    let Some(panic) = graph.panic.as_ref().filter(|p| p.depth > 0) else {
        return Failure {
            in_program: false,
            point: None,
            location,
            program_lines,
        };
    };
    let trace = &recorded.trace;
    let at = Pos {
        line: panic.line,
        column: panic.column,
    };
    // The innermost site whose code holds the panic location.
    let holder = trace
        .sites
        .iter()
        .filter(|(_, s)| s.file == panic.file && s.kind != SiteKind::Fn)
        .filter(|(_, s)| {
            let start = Pos::of_site(s);
            let end = Pos {
                line: s.end_line,
                column: s.end_column,
            };
            start <= at && at < end
        })
        .min_by_key(|(_, s)| (s.end_line - s.line, s.end_column.abs_diff(s.column)))
        .map(|(&id, _)| id);
    let last = graph.last_before_panic().map(|n| &graph.nodes[n]);
    // A violated contract is recorded before it panics; other sites only after their code ran.
    let holder = holder.or_else(|| {
        last.filter(|n| matches!(n.kind, NodeKind::Contract { ok: false, .. }))
            .map(|n| n.site)
    });
    let point = holder.map(|site| {
        let done = trace.events[..panic.event]
            .iter()
            .filter(|e| record_site(e) == Some(site))
            .count();
        let recorded_before_panic = last.is_some_and(|n| n.site == site);
        PanicPoint {
            key: trace.sites[&site].key(),
            required: if recorded_before_panic {
                done
            } else {
                done + 1
            },
        }
    });
    Failure {
        in_program: true,
        point,
        location,
        program_lines,
    }
}

/// The node of the erroneous value: for a panic inside the program, the last event before
/// it; for a failing assertion of the test, the last value returned by the last call the
/// test made before failing.
fn erroneous_value(graph: &Graph) -> Option<usize> {
    match &graph.panic {
        Some(panic) if panic.depth > 0 => graph.last_before_panic(),
        panic => {
            let end = panic.as_ref().map_or(usize::MAX, |p| p.event);
            graph
                .calls
                .iter()
                .rev()
                .find(|c| c.depth == 1 && c.enter_event < end)
                .and_then(|c| {
                    c.returned
                        .or_else(|| last_node_of_call(graph, c.enter_event))
                })
                .or_else(|| graph.last_before_panic())
        }
    }
}

/// The events of the call a confirmed oracle of `recorded`'s test names. Its value is the
/// erroneous one (the test passed when it returned the expected value), and a branch
/// instance past its return can only have made up for it.
fn confirmed_call(context: &Context, recorded: &RecordedTrace) -> Option<std::ops::Range<usize>> {
    context
        .oracles
        .iter()
        .filter(|o| o.confirmed)
        .find(|o| {
            context
                .traces
                .get(o.trace)
                .is_some_and(|t| std::ptr::eq(t, recorded))
        })
        .and_then(|o| o.call.as_ref())
        .map(|call| call.events.clone())
}

/// The node of the value the top-level call entered at `enter_event` returned (its last
/// node when it returned none).
fn value_of_call(graph: &Graph, enter_event: usize) -> Option<usize> {
    graph
        .calls
        .iter()
        .find(|c| c.depth == 1 && c.enter_event == enter_event)
        .and_then(|c| c.returned.or_else(|| last_node_of_call(graph, enter_event)))
}

/// The last node of the call entered at `enter_event` (and of its callees).
fn last_node_of_call(graph: &Graph, enter_event: usize) -> Option<usize> {
    let call = graph.calls.iter().find(|c| c.enter_event == enter_event)?;
    let end = call.exit_event.unwrap_or(usize::MAX);
    graph
        .nodes
        .iter()
        .rposition(|n| n.event > enter_event && n.event < end)
}

/// The candidates: every branch instance before the failure and before event `until`
/// (single flips), then, for each branch site with several instances in the failing call,
/// all of them at once.
fn candidates(graph: &Graph, trace: &RawTrace, erroneous: usize, until: usize) -> Vec<Candidate> {
    let end = graph
        .panic
        .as_ref()
        .map_or(usize::MAX, |p| p.event)
        .min(until);
    let mut out: Vec<Candidate> = graph
        .nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| n.event < end)
        .filter_map(|(i, n)| match n.kind {
            NodeKind::Branch { instance, .. }
                if trace.sites.get(&n.site).is_some_and(|s| s.kind.is_branch()) =>
            {
                Some(Candidate {
                    site: n.site,
                    instances: vec![instance],
                    node: i,
                    whole_call: false,
                })
            }
            _ => None,
        })
        .collect();
    // The top-level call that produced the erroneous value.
    let at = graph.nodes[erroneous].event;
    let failing_call =
        graph.calls.iter().rev().find(|c| {
            c.depth == 1 && c.enter_event <= at && c.exit_event.is_none_or(|exit| at < exit)
        });
    if let Some(call) = failing_call {
        let exit = call.exit_event.unwrap_or(usize::MAX);
        let mut per_site: BTreeMap<u32, Vec<&Candidate>> = BTreeMap::new();
        for c in &out {
            let event = graph.nodes[c.node].event;
            if call.enter_event < event && event < exit {
                per_site.entry(c.site).or_default().push(c);
            }
        }
        let whole: Vec<Candidate> = per_site
            .into_iter()
            .filter(|(_, list)| list.len() > 1)
            .map(|(site, list)| Candidate {
                site,
                instances: list.iter().flat_map(|c| c.instances.clone()).collect(),
                node: list.last().expect("non-empty").node,
                whole_call: true,
            })
            .collect();
        out.extend(whole);
    }
    out
}

/// The candidates (indices) in the order `order` tries them.
fn ordered(order: Order, graph: &Graph, candidates: &[Candidate], erroneous: usize) -> Vec<usize> {
    let (singles, wholes): (Vec<usize>, Vec<usize>) =
        (0..candidates.len()).partition(|&i| !candidates[i].whole_call);
    // LEFS: the last executed first.
    let mut lefs = singles.clone();
    lefs.sort_by_key(|&i| std::cmp::Reverse(candidates[i].node));
    let mut sequence = match order {
        Order::Lefs | Order::Both => lefs,
        Order::Prior => {
            let slice = graph.backward(erroneous);
            let mut near: Vec<usize> = lefs
                .iter()
                .copied()
                .filter(|i| slice.contains_key(&candidates[*i].node))
                .collect();
            // Stable: equal distances keep the LEFS order.
            near.sort_by_key(|i| slice[&candidates[*i].node]);
            let rest = lefs
                .into_iter()
                .filter(|i| !slice.contains_key(&candidates[*i].node));
            near.into_iter().chain(rest).collect()
        }
    };
    // Whole-call flips in the order their sites first come up.
    let mut wholes = wholes;
    wholes.sort_by_key(|&w| {
        sequence
            .iter()
            .position(|&s| candidates[s].site == candidates[w].site)
            .unwrap_or(usize::MAX)
    });
    sequence.extend(wholes);
    sequence
}

/// Reruns the test once per candidate of `chosen`, each with its instances flipped, and
/// judges the outcomes (in order). Runs that cannot be made count as nothing.
fn switched_runs(
    context: &Context,
    test: &TestId,
    trace: &RawTrace,
    candidates: &[Candidate],
    chosen: &[usize],
    fuel: u64,
    failure: &Failure,
) -> Vec<Verdict> {
    let plans: Vec<Plan> = chosen
        .iter()
        .map(|&c| {
            let candidate = &candidates[c];
            let key = trace.sites[&candidate.site].key();
            Plan {
                version: PLAN_VERSION,
                flips: candidate
                    .instances
                    .iter()
                    .map(|&k| Target {
                        site: key.clone(),
                        instance: Some(k),
                    })
                    .collect(),
                overrides: vec![],
                fuel: Some(fuel),
                replacements: vec![],
                arguments: Vec::new(),
                soft_assertions: false,
            }
        })
        .collect();
    // Coverage traces under a plan count each site's instances: enough to tell whether a
    // panicking point was passed, without the events.
    let mut verdicts: Vec<Verdict> = match context.rerun.run_batch(test, &plans, "coverage") {
        Ok(runs) => runs
            .iter()
            .map(|(result, switched)| judge(failure, &result.outcome, switched))
            .collect(),
        Err(_) => vec![Verdict::Nothing; chosen.len()],
    };
    // A run that passed by not reaching the panicking point proves nothing when the test
    // checks nothing after it; when the test's assertions ran and held, the switched run
    // gave the output the test wants, as the paper asks. Run again with the assertions
    // counted (soft, see `Plan::soft_assertions`) to tell.
    let avoided: Vec<usize> = (0..verdicts.len())
        .filter(|&i| verdicts[i] == Verdict::Avoided)
        .collect();
    if avoided.is_empty() {
        return verdicts;
    }
    let counted: Vec<Plan> = (avoided.iter())
        .map(|&i| Plan {
            soft_assertions: true,
            ..plans[i].clone()
        })
        .collect();
    if let Ok(runs) = context.rerun.run_batch(test, &counted, "coverage") {
        for (&i, (result, switched)) in avoided.iter().zip(&runs) {
            if result.outcome == Outcome::Passed && asserted(switched) {
                verdicts[i] = Verdict::Pass;
            }
        }
    }
    verdicts
}

/// Whether a run's trace holds assertions of the test, every one of them passed.
fn asserted(trace: &RawTrace) -> bool {
    let verdicts: Vec<bool> = (trace.events.iter())
        .filter_map(|r| match r {
            autodebug_runtime::protocol::Record::Assertion { passed } => Some(*passed),
            _ => None,
        })
        .collect();
    !verdicts.is_empty() && verdicts.iter().all(|&p| p)
}

/// The line ranges of the instrumented functions in `trace`, from their sites.
fn program_lines(trace: &RawTrace) -> Vec<(String, u32, u32)> {
    let mut spans: std::collections::BTreeMap<(&str, &str), (u32, u32)> = Default::default();
    for site in trace.sites.values() {
        let span = spans
            .entry((site.file.as_str(), site.function.as_str()))
            .or_insert((site.line, site.end_line));
        span.0 = span.0.min(site.line);
        span.1 = span.1.max(site.end_line);
    }
    spans
        .into_iter()
        .map(|((file, _), (first, last))| (file.to_string(), first, last))
        .collect()
}

/// What a switched run's outcome means for the original failure.
fn judge(failure: &Failure, outcome: &Outcome, switched: &RawTrace) -> Verdict {
    match outcome {
        Outcome::Passed => match &failure.point {
            Some(point) => {
                let ids: Vec<u32> = switched
                    .sites
                    .iter()
                    .filter(|(_, s)| s.key() == point.key)
                    .map(|(&id, _)| id)
                    .collect();
                // A trace that cannot tell whether the point was reached proves nothing.
                let reached = switched.reached(&ids).unwrap_or(0);
                if reached >= point.required {
                    Verdict::Pass
                } else {
                    Verdict::Avoided
                }
            }
            None => Verdict::Pass,
        },
        Outcome::Failed {
            location: Some(now),
            ..
        } if !failure.in_program => match &failure.location {
            Some(before)
                if before.file == now.file
                    && now.line > before.line
                    && !failure.program_lines.iter().any(|(file, first, last)| {
                        *file == now.file && (*first..=*last).contains(&now.line)
                    }) =>
            {
                Verdict::Progress {
                    from: before.line,
                    to: now.line,
                }
            }
            _ => Verdict::Nothing,
        },
        // Fuel ran out (a loop ran away) or time did: not a pass; the search goes on.
        Outcome::FuelExhausted | Outcome::Timeout { .. } => Verdict::Runaway,
        _ => Verdict::Nothing,
    }
}

/// The bidirectional slice of a critical predicate as suspects, nearest first.
fn slice_suspects(
    context: &Context,
    graph: &Graph,
    trace: &RawTrace,
    candidate: &Candidate,
    critical: &Critical,
    test: &TestId,
    discount: f64,
) -> Vec<Suspect> {
    let both = graph.bidirectional(candidate.node);
    let backward = graph.backward(candidate.node);
    let mut per_site: BTreeMap<u32, (usize, &'static str)> = BTreeMap::new();
    for (&node, &distance) in &both {
        let direction = if backward.get(&node) == Some(&distance) {
            "backward"
        } else {
            "forward"
        };
        let site = graph.nodes[node].site;
        let entry = per_site.entry(site).or_insert((distance, direction));
        if distance < entry.0 {
            *entry = (distance, direction);
        }
    }
    let critical_site = &trace.sites[&candidate.site];
    let instances_of_site = trace
        .events
        .iter()
        .filter(|e| record_site(e) == Some(candidate.site))
        .count();
    let reruns = critical
        .reruns
        .iter()
        .map(|(order, n)| format!("ordering {order}, {n} reruns"))
        .collect::<Vec<_>>()
        .join("; ");
    let what = if candidate.whole_call {
        format!(
            "all {} instances in the failing call flipped",
            candidate.instances.len()
        )
    } else {
        format!(
            "instance {} of {instances_of_site} flipped",
            candidate.instances[0] + 1
        )
    };
    let effect = match &critical.verdict {
        Verdict::Progress { from, to } => format!(
            "moves the failure of {} from line {from} to line {to} (criterion: progress",
            test.name
        ),
        _ => format!("makes {} pass (criterion: pass", test.name),
    };
    let mut suspects: Vec<Suspect> = per_site
        .into_iter()
        .filter_map(|(site, (distance, direction))| {
            let info = trace.sites.get(&site)?;
            if !is_candidate(info.kind) {
                return None;
            }
            let detail = if site == candidate.site {
                format!("critical predicate: {what} {effect}; {reruns})")
            } else {
                format!(
                    "in the {direction} dynamic slice of the critical predicate at {}:{}, dependence distance {distance}",
                    workspace_path(context.workspace_root, &critical_site.file),
                    critical_site.line
                )
            };
            let distance = if site == candidate.site { 0 } else { distance.max(1) };
            Some(Suspect {
                site: info.clone(),
                path: workspace_path(context.workspace_root, &info.file),
                evidence: vec![Evidence {
                    technique: NAME,
                    score: discount / (1 + distance) as f64,
                    detail,
                }],
            })
        })
        .collect();
    suspects.sort_by(|a, b| b.evidence[0].score.total_cmp(&a.evidence[0].score));
    suspects
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::localize::slice::tests::{facts, trace};
    use autodebug_runtime::protocol::Record;

    #[test]
    fn lefs_and_prior_orders() {
        let trace = trace();
        let graph = Graph::build(&trace, &facts());
        let erroneous = erroneous_value(&graph).unwrap();
        // The value the failing assertion is about: the second call's `x + y`.
        assert_eq!(erroneous, 11);
        let candidates = candidates(&graph, &trace, erroneous, usize::MAX);
        // One branch instance per call; one instance per call: no whole-call flip.
        assert_eq!(candidates.len(), 2);
        let lefs = ordered(Order::Lefs, &graph, &candidates, erroneous);
        assert_eq!(
            lefs.iter().map(|&c| candidates[c].node).collect::<Vec<_>>(),
            [8, 2]
        );
        // The first call's branch does not feed the second call's value: PRIOR puts the
        // second call's first, then the rest in LEFS order.
        let prior = ordered(Order::Prior, &graph, &candidates, erroneous);
        assert_eq!(
            prior
                .iter()
                .map(|&c| candidates[c].node)
                .collect::<Vec<_>>(),
            [8, 2]
        );
        let from_first = ordered(Order::Prior, &graph, &candidates, 5);
        assert_eq!(
            from_first
                .iter()
                .map(|&c| candidates[c].node)
                .collect::<Vec<_>>(),
            [2, 8]
        );
    }

    #[test]
    fn a_confirmed_call_holds_the_erroneous_value_and_ends_the_candidates() {
        let trace = trace();
        let graph = Graph::build(&trace, &facts());
        // The first top-level call is the one a confirmed oracle names: its value is the
        // erroneous one, and the second call's branch comes after it returned.
        let first = graph.calls.iter().find(|c| c.depth == 1).unwrap();
        let (enter, exit) = (first.enter_event, first.exit_event.unwrap());
        let erroneous = value_of_call(&graph, enter).unwrap();
        assert_ne!(Some(erroneous), erroneous_value(&graph));
        let candidates = candidates(&graph, &trace, erroneous, exit + 1);
        assert_eq!(candidates.iter().map(|c| c.node).collect::<Vec<_>>(), [2]);
    }

    fn failed_at(line: u32) -> Outcome {
        Outcome::Failed {
            message: "assertion failed".into(),
            location: Some(Location {
                file: "src/lib.rs".into(),
                line,
                column: 9,
            }),
        }
    }

    #[test]
    fn verdicts_for_assertions_in_the_test() {
        let failure = Failure {
            in_program: false,
            point: None,
            location: Some(Location {
                file: "src/lib.rs".into(),
                line: 20,
                column: 9,
            }),
            program_lines: vec![("src/lib.rs".into(), 1, 12)],
        };
        let none = RawTrace::default();
        assert_eq!(judge(&failure, &Outcome::Passed, &none), Verdict::Pass);
        assert_eq!(
            judge(&failure, &failed_at(22), &none),
            Verdict::Progress { from: 20, to: 22 }
        );
        assert_eq!(judge(&failure, &failed_at(20), &none), Verdict::Nothing);
        assert_eq!(judge(&failure, &failed_at(18), &none), Verdict::Nothing);
        // A failure that moved into the program (a panic in a function) is not progress.
        let moved_into_program = Failure {
            location: Some(Location {
                file: "src/lib.rs".into(),
                line: 9,
                column: 11,
            }),
            ..failure.clone()
        };
        assert_eq!(
            judge(&moved_into_program, &failed_at(11), &none),
            Verdict::Nothing
        );
        assert_eq!(
            judge(&moved_into_program, &failed_at(22), &none),
            Verdict::Progress { from: 9, to: 22 }
        );
        assert_eq!(
            judge(&failure, &Outcome::FuelExhausted, &none),
            Verdict::Runaway
        );
        let crashed = Outcome::Crashed {
            description: "signal".into(),
        };
        assert_eq!(judge(&failure, &crashed, &none), Verdict::Nothing);
    }

    #[test]
    fn a_panic_in_the_program_must_be_passed_not_avoided() {
        let trace = trace();
        let point = PanicPoint {
            key: trace.sites[&4].key(),
            required: 3,
        };
        let failure = Failure {
            in_program: true,
            point: Some(point),
            location: None,
            program_lines: vec![],
        };
        // The switched trace reaches the assignment twice: not past the third instance.
        assert_eq!(judge(&failure, &Outcome::Passed, &trace), Verdict::Avoided);
        // Whether the test's assertions ran and held tells such a run apart.
        assert!(!asserted(&trace));
        let mut checked = crate::localize::slice::tests::trace();
        (checked.events).push(Record::Assertion { passed: true });
        assert!(asserted(&checked));
        (checked.events).push(Record::Assertion { passed: false });
        assert!(!asserted(&checked));
        let mut longer = trace;
        longer
            .events
            .push(super::super::slice::tests::component(4, 1));
        assert_eq!(judge(&failure, &Outcome::Passed, &longer), Verdict::Pass);
        // A later failure is not progress when the program itself panicked.
        assert_eq!(judge(&failure, &failed_at(30), &longer), Verdict::Nothing);
    }

    #[test]
    fn panic_point_is_the_innermost_site_holding_the_location() {
        let mut recorded_trace = trace();
        // Make the second call panic inside `x * 2` (site 4, line 4, column 13): drop its
        // assignment and what follows, and panic there.
        let cut = 10;
        recorded_trace.events.truncate(cut);
        recorded_trace.events.push(Record::Panic {
            message: "attempt to multiply with overflow".into(),
            file: "src/lib.rs".into(),
            line: 4,
            column: 13,
            thread: "t".into(),
        });
        let graph = Graph::build(&recorded_trace, &facts());
        let recorded = RecordedTrace {
            outcome: failed_at(4),
            ..crate::trace::failing_test_trace(recorded_trace)
        };
        let failure = failure_of(&recorded, &graph);
        assert!(failure.in_program);
        let point = failure.point.unwrap();
        assert_eq!(point.key.line, 4);
        // One assignment completed (in the first call); the second must complete too.
        assert_eq!(point.required, 2);
        assert_eq!(erroneous_value(&graph), graph.last_before_panic());
    }
}
