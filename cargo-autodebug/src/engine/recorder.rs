//! The recorder: runs tests with tracing on (and under plans), reading their traces back
//! and writing the recorded ones under `traces/`.

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use anyhow::{Context, Result};
use autodebug_runtime::protocol::{self, Plan};

use super::{Engine, RunConfig, RunResult};
use crate::console::Console;
use crate::model::{Role, TestId, TraceSummary};
use crate::trace::{
    RawTrace, RecordedTrace, StoredSite, StoredTrace, UserColumns, events_to_user, outcome_to_user,
    workspace_path, write_json,
};

/// Everything the recording phase needs to know.
pub struct Recorder<'a> {
    /// Runs the test processes.
    pub engine: Engine,
    pub workspace_root: &'a Path,
    pub output_dir: &'a Path,
    pub scratch: &'a Path,
    pub base_env: &'a [(String, String)],
    pub timeout: Duration,
    pub max_events: u64,
    pub jobs: usize,
    /// Runs so far (keeps scratch file names apart).
    pub runs: AtomicUsize,
    /// The user's columns, when the build's files are an annotated copy whose attributes
    /// move them (the stored traces are written in the user's columns).
    pub user_columns: Option<&'a dyn UserColumns>,
}

/// A passing test's trace is capped at this fraction of `--max-events` (see
/// [`Recorder::cap`]).
const PASSING_SHARE: u64 = 10;

impl Recorder<'_> {
    /// Records the traces of `tests` (each with its role), writing them under `traces/`.
    pub fn record(
        &self,
        tests: &[(TestId, Role)],
        console: &Console,
    ) -> Result<Vec<(TraceSummary, RecordedTrace)>> {
        let traces_dir = self.output_dir.join("traces");
        std::fs::create_dir_all(&traces_dir)
            .with_context(|| format!("could not create {}", traces_dir.display()))?;
        let progress = console.progress("Recording", "traces", tests.len());
        let results = super::run_parallel(
            tests,
            self.jobs,
            |(test, role)| self.record_one(test, *role, &traces_dir),
            |(test, _), result| {
                let label = result.as_ref().map_or("error", |(s, _)| s.outcome.as_str());
                progress.tick(&format!("{} {label}", test.display()));
            },
        );
        progress.finish();
        results.into_iter().collect()
    }

    /// Runs `test` once, recording its trace (`events` or `coverage` mode) and obeying
    /// `plan` if given. Safe to call from several threads at once.
    pub fn run(
        &self,
        test: &TestId,
        plan: Option<&Plan>,
        mode: &str,
    ) -> Result<(RunResult, RawTrace)> {
        self.run_keeping(test, plan, mode, u64::MAX)
    }

    /// The events the tool keeps of a recorded trace of `role`: all of a failing test's
    /// (up to `--max-events`, the runtime's cap), a tenth of that of a passing test's. The
    /// tool holds every recorded trace while it analyses (twenty passing ones, by
    /// default): whole, a suite whose passing tests loop long took gigabytes, for evidence
    /// (values seen at a site, examples for synthesis) their first events give as well.
    /// The runtime records the whole cap all the same: how long the run was (what the
    /// candidates' fuel is counted from) is read from the file.
    pub fn cap(&self, role: Role) -> u64 {
        match role {
            Role::Failing => self.max_events,
            _ => (self.max_events / PASSING_SHARE).max(1),
        }
    }

    /// [`Recorder::run`] with at most `keep` events read back (see [`RawTrace::read_keeping`]).
    fn run_keeping(
        &self,
        test: &TestId,
        plan: Option<&Plan>,
        mode: &str,
        keep: u64,
    ) -> Result<(RunResult, RawTrace)> {
        let n = self.runs.fetch_add(1, Ordering::Relaxed);
        let raw_path = super::scratch_file(self.scratch, test, &format!("{n}.trace.jsonl"));
        let mut env = self.base_env.to_vec();
        env.push((protocol::ENV_TRACE.into(), raw_path.display().to_string()));
        env.push((protocol::ENV_TRACE_MODE.into(), mode.into()));
        env.push((protocol::ENV_MAX_EVENTS.into(), self.max_events.to_string()));
        let plan_path = super::scratch_file(self.scratch, test, &format!("{n}.plan.json"));
        if let Some(plan) = plan {
            write_json(&plan_path, plan)?;
            env.retain(|(k, _)| k != protocol::ENV_PLAN);
            env.push((protocol::ENV_PLAN.into(), plan_path.display().to_string()));
        }
        let result = super::run_test(
            &self.engine,
            test,
            &RunConfig {
                timeout: self.timeout,
                env,
            },
        );
        let raw = if raw_path.exists() {
            RawTrace::read_keeping(&raw_path, keep)
        } else {
            Ok(RawTrace::default())
        };
        std::fs::remove_file(&raw_path).ok();
        std::fs::remove_file(&plan_path).ok();
        Ok((result?, raw?))
    }

    /// Runs `test` once per plan (in `mode`), as [`Recorder::run`] would, results in plan
    /// order. A test binary built on `autodebug_runtime::harness` runs the plans inside one
    /// process (a batch: no process start per rerun); other binaries, and a batch that fails,
    /// fall back to one process per plan, `jobs` at a time. A batch run's `stdout`/`stderr`
    /// are empty (its output is not split per run). Safe to call from several threads.
    pub fn run_batch(
        &self,
        test: &TestId,
        plans: &[Plan],
        mode: &str,
    ) -> Result<Vec<(RunResult, RawTrace)>> {
        super::batch::run_batch(self, test, plans, mode)
    }

    /// Runs each `(test, plan)` once (in `mode`), as [`Recorder::run`] would, results in the
    /// order given: the runs of the tests of one binary share a process (or one per `jobs`)
    /// when its tests take batches. Safe to call from several threads.
    pub fn run_many(
        &self,
        runs: &[super::batch::Job],
        mode: &str,
    ) -> Result<Vec<(RunResult, RawTrace)>> {
        super::batch::run_many(self, runs, mode)
    }

    fn record_one(
        &self,
        test: &TestId,
        role: Role,
        traces_dir: &Path,
    ) -> Result<(TraceSummary, RecordedTrace)> {
        let (result, raw) = self.run_keeping(test, None, "events", self.cap(role))?;
        let sites = raw
            .sites
            .iter()
            .map(|(&id, site)| {
                let stored = StoredSite {
                    id,
                    path: workspace_path(self.workspace_root, &site.file),
                    site: site.clone(),
                };
                match self.user_columns {
                    Some(columns) => stored.in_user_columns(columns),
                    None => stored,
                }
            })
            .collect::<Vec<_>>();
        let user_outcome = self
            .user_columns
            .map(|columns| outcome_to_user(&result.outcome, columns));
        let user_events = self
            .user_columns
            .and_then(|columns| events_to_user(&raw.events, columns));
        let stored = StoredTrace {
            version: crate::trace::STORED_VERSION,
            test,
            role,
            outcome: user_outcome.as_ref().unwrap_or(&result.outcome),
            complete: raw.complete,
            truncated: raw.truncated,
            sites,
            events: user_events.as_deref().unwrap_or(&raw.events),
        };
        let file_name = format!("{}.json", test.file_stem());
        let path = traces_dir.join(&file_name);
        write_json(&path, &stored)?;
        let summary = TraceSummary {
            test: test.display(),
            role,
            path: format!("traces/{file_name}"),
            outcome: result.outcome.label().to_string(),
            sites: stored.sites.len(),
            events: raw.events.len(),
            truncated: raw.truncated,
            complete: raw.complete,
        };
        let recorded = RecordedTrace {
            test: test.clone(),
            role,
            outcome: result.outcome,
            trace: raw,
        };
        Ok((summary, recorded))
    }
}
