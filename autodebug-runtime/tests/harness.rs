//! The in-process harness, end to end: this test target is itself built on
//! `autodebug_runtime::harness!` (`harness = false`), so the checks below re-run this very
//! binary, once as libtest would be run (`--list`, `--exact`, exit statuses and summary
//! lines) and once per batch. The `fixture::*` tests are the subjects: ignored, so that a
//! plain `cargo test` does not run them, and partly failing on purpose. Every batch run is
//! compared with the same plan run in a process of its own: same outcome, same trace.

use autodebug_runtime::protocol::{
    BATCH_VERSION, BatchOutcome, BatchRequest, BatchResult, BatchRun, CONFIG_EXIT_CODE, ENV_BATCH,
    ENV_HARNESS_PROBE, ENV_MAX_EVENTS, ENV_PLAN, ENV_TRACE, ENV_TRACE_MODE, FUEL_EXIT_CODE,
    HARNESS_MARKER, PLAN_VERSION, Plan, Record, SiteKey, SiteKind, Target,
};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output};

/// The subjects. Each is instrumented whatever the build's environment.
mod fixture {
    use autodebug_runtime::autodebug;

    /// How many of `xs` are at most `limit`; the fault: `<` for `<=`.
    #[autodebug(always)]
    pub fn count_up_to(xs: &[i32], limit: i32) -> usize {
        let mut n = 0;
        for &x in xs {
            if x < limit {
                n += 1;
            }
        }
        n
    }

    /// Steps from 0 to `n`; flipping the last test of the loop runs it away.
    #[autodebug(always)]
    pub fn reach(n: u32) -> u32 {
        let mut i = 0;
        while i != n {
            i += 1;
        }
        i
    }

    /// Fails: 5 is not counted. Flipping instance 1 of the `if` makes it pass.
    pub fn counts_the_limit() {
        assert_eq!(reach(2), 2);
        assert_eq!(count_up_to(&[1, 5, 3], 5), 3);
    }

    /// Passes.
    pub fn counts_below() {
        assert_eq!(count_up_to(&[1, 7, 3], 5), 2);
    }

    /// Catches the unwinding that ends a run out of fuel and loops on: the run must still end.
    pub fn catches_and_retries() {
        for _ in 0..3 {
            let _ = std::panic::catch_unwind(|| reach(3));
        }
        assert_eq!(reach(3), 3);
    }
}

autodebug_runtime::harness!(
    checks::lists_like_libtest,
    checks::runs_like_libtest,
    checks::batch_runs_match_separate_processes,
    checks::batch_state_is_reset_between_runs,
    checks::fuel_ends_the_run_not_the_batch,
    checks::refused_runs_and_requests,
    #[ignore]
    fixture::counts_the_limit,
    #[ignore]
    fixture::counts_below,
    #[ignore]
    fixture::catches_and_retries,
);

mod checks {
    use super::*;

    /// This binary, with the runtime's variables removed.
    fn me() -> Command {
        let mut cmd = Command::new(std::env::current_exe().unwrap());
        for var in [
            ENV_PLAN,
            ENV_TRACE,
            ENV_TRACE_MODE,
            ENV_MAX_EVENTS,
            ENV_BATCH,
            ENV_HARNESS_PROBE,
        ] {
            cmd.env_remove(var);
        }
        cmd.env("RUST_BACKTRACE", "0");
        cmd
    }

    fn text(out: &Output) -> (String, String) {
        (
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    /// The `NAME: test` lines of a `--list` output.
    fn listed(stdout: &str) -> Vec<&str> {
        stdout
            .lines()
            .filter_map(|l| l.strip_suffix(": test"))
            .collect()
    }

    pub fn lists_like_libtest() {
        let out = me().args(["--list", "--format", "terse"]).output().unwrap();
        assert!(out.status.success());
        let (stdout, _) = text(&out);
        let names = listed(&stdout);
        assert!(names.contains(&"checks::lists_like_libtest"), "{stdout}");
        assert!(names.contains(&"fixture::counts_the_limit"), "{stdout}");
        assert_eq!(names.len(), 9, "{stdout}");
        assert!(!stdout.contains(HARNESS_MARKER), "{stdout}");

        let out = me()
            .args(["--list", "--format", "terse", "--ignored"])
            .output()
            .unwrap();
        let (stdout, _) = text(&out);
        assert_eq!(
            listed(&stdout),
            [
                "fixture::counts_the_limit",
                "fixture::counts_below",
                "fixture::catches_and_retries"
            ]
        );

        let out = me()
            .args(["--list", "--format", "terse"])
            .env(ENV_HARNESS_PROBE, "1")
            .output()
            .unwrap();
        let (stdout, _) = text(&out);
        assert!(
            stdout
                .lines()
                .any(|l| l == format!("{HARNESS_MARKER}{BATCH_VERSION}")),
            "{stdout}"
        );
        assert_eq!(listed(&stdout).len(), 9);
    }

    /// The command line `cargo autodebug` runs one test with, and what it reads back.
    fn run_one(name: &str) -> Output {
        me().args([
            "--exact",
            name,
            "--include-ignored",
            "--test-threads=1",
            "--nocapture",
            "--color=never",
        ])
        .output()
        .unwrap()
    }

    pub fn runs_like_libtest() {
        let out = run_one("fixture::counts_below");
        let (stdout, stderr) = text(&out);
        assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
        assert!(stdout.contains("test result: ok. 1 passed"), "{stdout}");

        let out = run_one("fixture::counts_the_limit");
        let (stdout, stderr) = text(&out);
        assert_eq!(out.status.code(), Some(101), "{stdout}{stderr}");
        assert!(stdout.contains("test result: FAILED"), "{stdout}");
        assert!(stderr.contains("panicked at "), "{stderr}");
        assert!(stderr.contains("left: 2"), "{stderr}");

        // Ignored tests are skipped without `--include-ignored`; a filter selects by substring.
        let out = me()
            .args(["fixture::counts", "--test-threads=1"])
            .output()
            .unwrap();
        let (stdout, _) = text(&out);
        assert_eq!(out.status.code(), Some(0), "{stdout}");
        assert!(stdout.contains("0 passed; 0 failed; 2 ignored"), "{stdout}");
        let out = me()
            .args(["fixture::counts", "--ignored", "--test-threads=2"])
            .output()
            .unwrap();
        let (stdout, _) = text(&out);
        assert_eq!(out.status.code(), Some(101), "{stdout}");
        assert!(stdout.contains("1 passed; 1 failed"), "{stdout}");
    }

    /// A run in its own process: (exit status, trace records).
    fn separate(name: &str, plan: Option<&Plan>, dir: &Path, n: usize) -> (i32, Vec<Record>) {
        let trace = dir.join(format!("separate-{n}.jsonl"));
        let mut cmd = me();
        cmd.args(["--exact", name, "--include-ignored", "--test-threads=1"])
            .env(ENV_TRACE, &trace);
        if let Some(plan) = plan {
            let path = dir.join(format!("plan-{n}.json"));
            std::fs::write(&path, serde_json::to_string(plan).unwrap()).unwrap();
            cmd.env(ENV_PLAN, path);
        }
        let out = cmd.output().unwrap();
        (out.status.code().unwrap(), read_trace(&trace))
    }

    /// The records of a trace, its deltas restored.
    fn read_trace(path: &Path) -> Vec<Record> {
        let records = std::fs::read_to_string(path)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        autodebug_runtime::protocol::restore_deltas(records).unwrap()
    }

    /// A batch of `plans` against `name`: (exit status, results, traces).
    fn batch(
        name: &str,
        plans: &[Option<Plan>],
        dir: &Path,
    ) -> (i32, Vec<BatchResult>, Vec<Vec<Record>>) {
        let request = BatchRequest {
            version: BATCH_VERSION,
            test: name.to_string(),
            trace_mode: "events".into(),
            max_events: None,
            inline_coverage: false,
            results: dir.join("results.jsonl").display().to_string(),
            runs: plans
                .iter()
                .enumerate()
                .map(|(i, plan)| BatchRun {
                    test: None,
                    plan: plan.clone(),
                    trace: Some(dir.join(format!("batch-{i}.jsonl")).display().to_string()),
                    group: None,
                })
                .collect(),
        };
        let path = dir.join("request.json");
        std::fs::write(&path, serde_json::to_string(&request).unwrap()).unwrap();
        let out = me()
            .args(["--exact", name])
            .env(ENV_BATCH, &path)
            .output()
            .unwrap();
        let (stdout, stderr) = text(&out);
        assert!(
            stdout.is_empty() || !stdout.contains("test result"),
            "{stdout}"
        );
        assert!(
            !stderr.contains("panicked at"),
            "batch runs print no panics: {stderr}"
        );
        let results: Vec<BatchResult> = std::fs::read_to_string(&request.results)
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let traces = results
            .iter()
            .filter(|r| r.outcome != BatchOutcome::Refused)
            .map(|r| read_trace(Path::new(r.trace.as_deref().unwrap())))
            .collect();
        (out.status.code().unwrap(), results, traces)
    }

    /// A trace with site ids replaced by site keys and the header dropped: ids are local to
    /// a trace (a batch keeps the ids of its first runs), the header names the process.
    fn normalized(records: &[Record]) -> Vec<serde_json::Value> {
        let keys: BTreeMap<u32, SiteKey> = records
            .iter()
            .filter_map(|r| match r {
                Record::Site { id, site } => Some((*id, site.key())),
                _ => None,
            })
            .collect();
        records
            .iter()
            .filter(|r| !matches!(r, Record::Header { .. }))
            .map(|r| {
                let mut v = serde_json::to_value(r).unwrap();
                if let Some(id) = v.get("site").and_then(|s| s.as_u64()) {
                    v["site"] = serde_json::to_value(&keys[&(id as u32)]).unwrap();
                }
                if let Some(id) = v.get("id").and_then(|s| s.as_u64()) {
                    v["id"] = serde_json::to_value(&keys[&(id as u32)]).unwrap();
                }
                v
            })
            .collect()
    }

    /// The branch instances of a trace: (site, instance).
    fn branch_instances(records: &[Record]) -> Vec<(SiteKey, u32)> {
        let keys: BTreeMap<u32, SiteKey> = records
            .iter()
            .filter_map(|r| match r {
                Record::Site { id, site } => Some((*id, site.key())),
                _ => None,
            })
            .collect();
        records
            .iter()
            .filter_map(|r| match r {
                Record::Branch { site, instance, .. } => Some((keys[site].clone(), *instance)),
                _ => None,
            })
            .collect()
    }

    fn flip(site: &SiteKey, instance: u32, fuel: Option<u64>) -> Plan {
        Plan {
            version: PLAN_VERSION,
            flips: vec![Target {
                site: site.clone(),
                instance: Some(instance),
            }],
            fuel,
            ..Plan::default()
        }
    }

    fn expected_status(outcome: BatchOutcome) -> i32 {
        match outcome {
            BatchOutcome::Passed => 0,
            BatchOutcome::Failed => 101,
            BatchOutcome::FuelExhausted => FUEL_EXIT_CODE,
            BatchOutcome::Refused => CONFIG_EXIT_CODE,
            BatchOutcome::Skipped => unreachable!("no run has a group"),
        }
    }

    pub fn batch_runs_match_separate_processes() {
        let dir = tempfile::tempdir().unwrap();
        let name = "fixture::counts_the_limit";
        let (status, baseline) = separate(name, None, dir.path(), 0);
        assert_eq!(status, 101);
        let instances = branch_instances(&baseline);
        assert!(instances.len() >= 6, "{instances:?}");
        let mut plans: Vec<Option<Plan>> = vec![None];
        plans.extend(
            instances
                .iter()
                .map(|(site, i)| Some(flip(site, *i, Some(1_000)))),
        );
        let (status, results, traces) = batch(name, &plans, dir.path());
        assert_eq!(status, 0);
        assert_eq!(results.len(), plans.len());
        let mut seen = BTreeMap::new();
        for (n, (plan, result)) in plans.iter().zip(&results).enumerate() {
            assert_eq!(result.index, n);
            *seen.entry(format!("{:?}", result.outcome)).or_insert(0) += 1;
            let (status, records) = separate(name, plan.as_ref(), dir.path(), n + 1);
            assert_eq!(
                status,
                expected_status(result.outcome),
                "run {n}: {result:?}"
            );
            assert_eq!(
                normalized(&traces[n]),
                normalized(&records),
                "run {n}: the batch trace differs from the separate run's"
            );
        }
        // The subject makes every kind of outcome happen: the flip of instance 1 of the `if`
        // passes, the flip of the last loop test runs away, the others still fail.
        assert_eq!(seen.len(), 3, "{seen:?}");
        let first = &results[0];
        assert_eq!(first.outcome, BatchOutcome::Failed);
        let message = first.message.as_deref().unwrap();
        assert!(
            message.contains("left: 2") && message.contains("right: 3"),
            "{message}"
        );
        let location = first.location.as_ref().unwrap();
        assert_eq!(location.file, file!());
    }

    pub fn batch_state_is_reset_between_runs() {
        let dir = tempfile::tempdir().unwrap();
        let name = "fixture::counts_below";
        let (_, baseline) = separate(name, None, dir.path(), 0);
        let (site, _) = branch_instances(&baseline).into_iter().next().unwrap();
        // A plan that changes the outcome, then none: the second run must not see the first's
        // plan, instance counters or fuel.
        let plans = vec![
            None,
            Some(flip(&site, 1, Some(5))),
            None,
            Some(flip(&site, 1, None)),
            None,
        ];
        let (status, results, traces) = batch(name, &plans, dir.path());
        assert_eq!(status, 0);
        let outcomes: Vec<BatchOutcome> = results.iter().map(|r| r.outcome).collect();
        assert_eq!(
            outcomes,
            [
                BatchOutcome::Passed,
                BatchOutcome::FuelExhausted,
                BatchOutcome::Passed,
                BatchOutcome::Failed,
                BatchOutcome::Passed
            ]
        );
        for n in [0, 2, 4] {
            assert_eq!(normalized(&traces[n]), normalized(&baseline), "run {n}");
        }
        assert!(matches!(
            traces[1].last(),
            Some(Record::FuelExhausted { fuel: 5 })
        ));
        assert!(matches!(traces[3].last(), Some(Record::End { .. })));
    }

    pub fn fuel_ends_the_run_not_the_batch() {
        let dir = tempfile::tempdir().unwrap();
        let name = "fixture::catches_and_retries";
        let (status, baseline) = separate(name, None, dir.path(), 0);
        assert_eq!(status, 0);
        let (site, last) = branch_instances(&baseline)
            .into_iter()
            .find(|(s, i)| s.kind == SiteKind::While && *i == 3)
            .unwrap();
        let runaway = flip(&site, last, Some(10_000));
        let plans = vec![Some(runaway.clone()), None];
        let (status, results, _) = batch(name, &plans, dir.path());
        assert_eq!(status, 0);
        assert_eq!(results[0].outcome, BatchOutcome::FuelExhausted);
        assert_eq!(results[1].outcome, BatchOutcome::Passed);
        let (status, _) = separate(name, Some(&runaway), dir.path(), 1);
        assert_eq!(status, FUEL_EXIT_CODE);
    }

    pub fn refused_runs_and_requests() {
        let dir = tempfile::tempdir().unwrap();
        let name = "fixture::counts_below";
        let (_, baseline) = separate(name, None, dir.path(), 0);
        let (site, _) = branch_instances(&baseline).into_iter().next().unwrap();
        let mut bad = flip(&site, 0, None);
        bad.flips[0].site.kind = SiteKind::Let;
        let (status, results, _) = batch(name, &[Some(bad), None], dir.path());
        assert_eq!(status, 0);
        assert_eq!(results[0].outcome, BatchOutcome::Refused);
        assert!(
            results[0]
                .message
                .as_deref()
                .unwrap()
                .contains("not a branch"),
            "{:?}",
            results[0]
        );
        assert_eq!(results[1].outcome, BatchOutcome::Passed);

        let dir = tempfile::tempdir().unwrap();
        let (status, results, _) = batch("fixture::no_such_test", &[None], dir.path());
        assert_eq!(status, CONFIG_EXIT_CODE);
        assert!(results.is_empty());
    }
}
