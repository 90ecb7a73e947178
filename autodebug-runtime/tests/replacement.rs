//! Repair candidates validated without a rebuild, end to end: functions instrumented by the
//! real `#[autodebug(always)]` macro run under plans whose replacements stand for the fixes
//! synthesis proposes. This target is built on the crate's own harness, so each check reruns
//! this binary: once per plan in a process of its own (`AUTODEBUG_PLAN`), and all plans in
//! one batch process (`AUTODEBUG_BATCH`), whose results and traces must be the same. The
//! `fixture::*` tests are the subjects: ignored, and partly failing on purpose.

use autodebug_runtime::protocol::{
    BATCH_VERSION, BatchOutcome, BatchRequest, BatchResult, BatchRun, BinOp, CONFIG_EXIT_CODE,
    ENV_BATCH, ENV_HARNESS_PROBE, ENV_MAX_EVENTS, ENV_PLAN, ENV_TRACE, ENV_TRACE_MODE, Expr,
    PLAN_VERSION, Plan, Record, Replacement, SiteInfo, SiteKey, SiteKind, Target, Value,
};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output};

/// The subjects. Each is instrumented whatever the build's environment.
mod fixture {
    use autodebug_runtime::autodebug;

    /// The larger of `x` and `y`; the fault: `r = x` where `r = y` was meant.
    #[autodebug(always)]
    pub fn max(x: i32, y: i32) -> i32 {
        let mut r = x;
        if y > x {
            r = x;
        }
        r
    }

    /// How many of `xs` are at most `limit`; the fault: `<` for `<=`.
    #[autodebug(always)]
    pub fn count_up_to(xs: &[i32], limit: i32) -> usize {
        let mut n = 0;
        for i in 0..xs.len() {
            let x = xs[i];
            if x < limit {
                n += 1;
            }
        }
        n
    }

    /// The sum of `xs`, in `u8`.
    #[autodebug(always)]
    pub fn total(xs: &[u8]) -> u8 {
        let mut t: u8 = 0;
        for i in 0..xs.len() {
            let b: u8 = xs[i];
            t = t + b;
        }
        t
    }

    /// A loop whose `if` a benchmark replaces.
    #[autodebug(always)]
    pub fn steps(n: i32) -> i32 {
        let mut k = 0;
        for a in 0..n {
            let b = a / 2 + 1;
            if a < b {
                k += 1;
            }
        }
        k
    }

    /// The largest element of `a` (the AutoDebug paper's Max); the fault: `s > a[i]` where
    /// `s < a[i]` was meant. `a[i]` is no variable in scope: only the comparison's operands
    /// hold it.
    #[autodebug(always)]
    pub fn max_of(a: &[i32]) -> i32 {
        let mut i = 1;
        let mut s = a[0];
        while i < a.len() {
            if s > a[i] {
                s = a[i];
            }
            i += 1;
        }
        s
    }

    /// A branch of each shape, for the operands each reports.
    // The negated comparison is the shape under test.
    #[allow(clippy::nonminimal_bool)]
    #[autodebug(always)]
    pub fn shapes(v: &[i32], lo: i32) -> u32 {
        let mut i = 0;
        let mut n = 0;
        while i < v.len() {
            let x = v[i];
            if x > lo && v[i] != 3 {
                n += 1;
            }
            if !(x < lo) {
                n += 10;
            }
            if v.is_empty() {
                n += 1000;
            }
            match x {
                y if (y) == lo => n += 100,
                _ => {}
            }
            i += 1;
        }
        n
    }

    /// Fails: `max(3, 7)` is 3.
    pub fn max_is_the_larger() {
        assert_eq!(max(7, 3), 7);
        assert_eq!(max(3, 7), 7);
        assert_eq!(max(2, 2), 2);
    }

    /// Fails: the two 5s are not counted.
    pub fn counts_the_limit() {
        assert_eq!(count_up_to(&[1, 5, 3, 7, 5], 5), 4);
    }

    /// Passes.
    pub fn sums_bytes() {
        assert_eq!(total(&[100, 100, 50]), 250);
    }

    /// Fails: the written `max_of` keeps the smallest element.
    pub fn max_of_array() {
        assert_eq!(max_of(&[-2, 5, 3]), 5);
        assert_eq!(max_of(&[1, 2, 3, 4]), 4);
        assert_eq!(max_of(&[3, 10, -1, 4]), 10);
        assert_eq!(max_of(&[42]), 42);
    }

    /// Passes.
    pub fn every_shape() {
        assert_eq!(shapes(&[1, 3, 5], 3), 121);
    }

    /// Catches whatever unwinds out of `max`, then passes: a candidate that cannot be
    /// evaluated must not pass through it.
    pub fn catches_and_passes() {
        let _ = std::panic::catch_unwind(|| max(3, 7));
        let _ = std::panic::catch_unwind(|| max(4, 8));
    }

    /// How many times [`many_steps`] reaches the `if` of `steps`.
    pub const STEPS: i32 = 200_000;

    /// Work for the benchmark: the `if` of `steps` many times.
    pub fn many_steps() {
        std::hint::black_box(steps(std::hint::black_box(STEPS)));
    }
}

autodebug_runtime::harness!(
    checks::a_component_replacement_fixes_max,
    checks::a_condition_replacement_changes_exactly_the_differing_instances,
    checks::overflow_panics_in_the_site_s_width,
    checks::a_candidate_that_cannot_be_evaluated_ends_the_run,
    checks::batch_results_match_one_process_per_plan,
    checks::an_operand_replacement_fixes_max_of_array,
    checks::each_branch_shape_reports_its_operands,
    #[ignore]
    checks::replacement_cost,
    #[ignore]
    fixture::max_is_the_larger,
    #[ignore]
    fixture::counts_the_limit,
    #[ignore]
    fixture::sums_bytes,
    #[ignore]
    fixture::max_of_array,
    #[ignore]
    fixture::every_shape,
    #[ignore]
    fixture::catches_and_passes,
    #[ignore]
    fixture::many_steps,
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

    /// The records of a trace, its deltas restored.
    fn read_trace(path: &Path) -> Vec<Record> {
        let records = std::fs::read_to_string(path)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        autodebug_runtime::protocol::restore_deltas(records).unwrap()
    }

    /// A run of test `name` in a process of its own, under `plan`.
    struct Separate {
        status: i32,
        stderr: String,
        records: Vec<Record>,
    }

    fn separate(name: &str, plan: Option<&Plan>, dir: &Path, n: usize) -> Separate {
        let trace = dir.join(format!("separate-{n}.jsonl"));
        let mut cmd = me();
        cmd.args(["--exact", name, "--include-ignored", "--test-threads=1"])
            .env(ENV_TRACE, &trace);
        if let Some(plan) = plan {
            let path = dir.join(format!("plan-{n}.json"));
            std::fs::write(&path, serde_json::to_string(plan).unwrap()).unwrap();
            cmd.env(ENV_PLAN, path);
        }
        let out: Output = cmd.output().unwrap();
        Separate {
            status: out.status.code().unwrap(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            records: read_trace(&trace),
        }
    }

    /// All `plans` against test `name` in one batch process: (results, traces of the runs
    /// that were not refused before they started, by run index).
    fn batch(
        name: &str,
        plans: &[Option<Plan>],
        dir: &Path,
        traced: bool,
    ) -> (Vec<BatchResult>, BTreeMap<usize, Vec<Record>>) {
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
                    trace: traced
                        .then(|| dir.join(format!("batch-{i}.jsonl")).display().to_string()),
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
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{stderr}");
        assert!(
            !stderr.contains("panicked at"),
            "batch runs print no panics: {stderr}"
        );
        let results: Vec<BatchResult> = std::fs::read_to_string(&request.results)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(results.len(), plans.len());
        let traces = results
            .iter()
            .filter_map(|r| Some((r.index, read_trace(Path::new(r.trace.as_deref()?)))))
            .collect();
        (results, traces)
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
                for field in ["site", "id"] {
                    if let Some(id) = v.get(field).and_then(|s| s.as_u64()) {
                        v[field] = serde_json::to_value(&keys[&(id as u32)]).unwrap();
                    }
                }
                v
            })
            .collect()
    }

    /// The site of kind `kind` and code `code` declared in `records`: (id, site).
    fn site(records: &[Record], kind: SiteKind, code: &str) -> (u32, SiteInfo) {
        records
            .iter()
            .find_map(|r| match r {
                Record::Site { id, site } if site.kind == kind && site.code == code => {
                    Some((*id, site.clone()))
                }
                _ => None,
            })
            .unwrap_or_else(|| panic!("no {kind:?} site `{code}` in {records:?}"))
    }

    fn int(v: i128) -> Value {
        Value::Int {
            ty: "i32".into(),
            v,
        }
    }

    fn var(name: &str) -> Expr {
        Expr::Var { name: name.into() }
    }

    fn lit(ty: &str, v: i128) -> Expr {
        Expr::Lit {
            value: Value::Int { ty: ty.into(), v },
        }
    }

    fn bin(op: BinOp, left: Expr, right: Expr) -> Expr {
        Expr::Binary {
            op,
            left: Box::new(left),
            right: Box::new(right),
        }
    }

    /// A plan replacing every instance of `site` by `expr`.
    fn replace(site: &SiteInfo, expr: Expr) -> Plan {
        Plan {
            version: PLAN_VERSION,
            replacements: vec![Replacement {
                target: Target {
                    site: site.key(),
                    instance: None,
                },
                expr,
            }],
            ..Plan::default()
        }
    }

    /// The `PlanError` messages of a trace.
    fn plan_errors(records: &[Record]) -> Vec<&str> {
        records
            .iter()
            .filter_map(|r| match r {
                Record::PlanError { message, .. } => Some(message.as_str()),
                _ => None,
            })
            .collect()
    }

    pub fn a_component_replacement_fixes_max() {
        let dir = tempfile::tempdir().unwrap();
        let name = "fixture::max_is_the_larger";
        let baseline = separate(name, None, dir.path(), 0);
        assert_eq!(baseline.status, 101, "{}", baseline.stderr);
        // `r = x` inside the `if` (the `let` has the same code, another kind).
        let (_, assign) = site(&baseline.records, SiteKind::Assign, "x");

        let fixed = separate(name, Some(&replace(&assign, var("y"))), dir.path(), 1);
        assert_eq!(fixed.status, 0, "{}", fixed.stderr);
        // The trace shows the value the program went on with, marked as the plan's.
        let (id, _) = site(&fixed.records, SiteKind::Assign, "x");
        let values: Vec<(&Value, bool)> = fixed
            .records
            .iter()
            .filter_map(|r| match r {
                Record::Component {
                    site,
                    value,
                    overridden,
                    ..
                } if *site == id => Some((value, *overridden)),
                _ => None,
            })
            .collect();
        assert_eq!(values, [(&int(7), true)], "only max(3, 7) takes the branch");

        // `y + 1` is not the fix: the rerun tells them apart.
        let plus_one = bin(BinOp::Add, var("y"), lit("i32", 1));
        let wrong = separate(name, Some(&replace(&assign, plus_one)), dir.path(), 2);
        assert_eq!(wrong.status, 101);
        assert!(
            wrong.stderr.contains("left: 8") && wrong.stderr.contains("right: 7"),
            "{}",
            wrong.stderr
        );
    }

    pub fn a_condition_replacement_changes_exactly_the_differing_instances() {
        let dir = tempfile::tempdir().unwrap();
        let name = "fixture::counts_the_limit";
        let baseline = separate(name, None, dir.path(), 0);
        assert_eq!(baseline.status, 101);
        let (_, cond) = site(&baseline.records, SiteKind::If, "x < limit");

        let le = bin(BinOp::Le, var("x"), var("limit"));
        let fixed = separate(name, Some(&replace(&cond, le)), dir.path(), 1);
        assert_eq!(fixed.status, 0, "{}", fixed.stderr);
        let (id, _) = site(&fixed.records, SiteKind::If, "x < limit");
        let mut differing = Vec::new();
        for r in &fixed.records {
            if let Record::Branch {
                site,
                instance,
                outcome,
                flipped,
                operands,
            } = r
                && *site == id
            {
                // The operands are those of the written comparison: `x` and `limit`.
                let [Value::Int { v: x, .. }, Value::Int { v: limit, .. }] = &operands[..] else {
                    panic!("operands {operands:?}");
                };
                assert_eq!(*outcome, x <= limit, "instance {instance}");
                assert_eq!(*flipped, (x < limit) != (x <= limit), "instance {instance}");
                if *flipped {
                    differing.push(*instance);
                }
            }
        }
        // [1, 5, 3, 7, 5] against 5: the two 5s.
        assert_eq!(differing, [1, 4]);

        // A candidate that keeps the written condition and adds a clause: same effect.
        let either = bin(
            BinOp::Or,
            Expr::Original,
            bin(BinOp::Eq, var("x"), var("limit")),
        );
        let same = separate(name, Some(&replace(&cond, either)), dir.path(), 2);
        assert_eq!(same.status, 0, "{}", same.stderr);
    }

    pub fn overflow_panics_in_the_site_s_width() {
        let dir = tempfile::tempdir().unwrap();
        let name = "fixture::sums_bytes";
        let baseline = separate(name, None, dir.path(), 0);
        assert_eq!(baseline.status, 0, "{}", baseline.stderr);
        let (_, sum) = site(&baseline.records, SiteKind::Assign, "t + b");
        // b * 3 is 300 for the first byte: past `u8`, as in the rebuilt candidate (in `i32`
        // it would not overflow). The written `t + b` does not overflow there, so the panic
        // is the candidate's.
        let candidate = bin(BinOp::Mul, var("b"), lit("u8", 3));
        let run = separate(name, Some(&replace(&sum, candidate)), dir.path(), 1);
        assert_eq!(run.status, 101, "{}", run.stderr);
        assert!(
            run.stderr.contains("attempt to multiply with overflow"),
            "{}",
            run.stderr
        );
        let panics: Vec<&str> = run
            .records
            .iter()
            .filter_map(|r| match r {
                Record::Panic { message, .. } => Some(message.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(panics, ["attempt to multiply with overflow"]);
    }

    pub fn a_candidate_that_cannot_be_evaluated_ends_the_run() {
        let dir = tempfile::tempdir().unwrap();
        let baseline = separate("fixture::max_is_the_larger", None, dir.path(), 0);
        let (_, assign) = site(&baseline.records, SiteKind::Assign, "x");
        // `y + 1u8` with `y: i32` would not compile.
        let mixed = replace(&assign, bin(BinOp::Add, var("y"), lit("u8", 1)));
        // `z` is no variable of `max`.
        let unknown = replace(&assign, var("z"));
        let why = [
            "no `i32 + u8`",
            "`z` is not among the variables the site reports (x, y, r)",
        ];
        for (n, (plan, why)) in [&mixed, &unknown].into_iter().zip(why).enumerate() {
            let run = separate("fixture::max_is_the_larger", Some(plan), dir.path(), n + 1);
            assert_eq!(run.status, CONFIG_EXIT_CODE, "{}", run.stderr);
            // The trace ends with the error: nothing of the run after it counts.
            let Some(Record::PlanError { message, .. }) = run.records.last() else {
                panic!("{:?}", run.records.last());
            };
            assert!(message.contains(why), "{message}");
            assert!(message.contains("cannot be evaluated"), "{message}");
            assert_eq!(plan_errors(&run.records).len(), 1);
            let line = run
                .stderr
                .lines()
                .find(|l| l.starts_with("autodebug: "))
                .unwrap();
            assert!(line.contains(message.as_str()), "{line}");
        }

        // A test that catches the unwinding cannot pass a broken candidate in a batch; the
        // unchanged run after it passes.
        let name = "fixture::catches_and_passes";
        let plans = vec![None, Some(mixed.clone()), None];
        let (results, traces) = batch(name, &plans, dir.path(), true);
        let outcomes: Vec<BatchOutcome> = results.iter().map(|r| r.outcome).collect();
        assert_eq!(
            outcomes,
            [
                BatchOutcome::Passed,
                BatchOutcome::Refused,
                BatchOutcome::Passed
            ]
        );
        let message = results[1].message.as_deref().unwrap();
        assert!(message.contains("i32 + u8"), "{message}");
        assert!(
            matches!(traces[&1].last(), Some(Record::PlanError { .. })),
            "{:?}",
            traces[&1]
        );
        // In a process of its own the same plan exits at once.
        let run = separate(name, Some(&mixed), dir.path(), 4);
        assert_eq!(run.status, CONFIG_EXIT_CODE, "{}", run.stderr);
    }

    /// The plans of the batch comparison, against `fixture::counts_the_limit`.
    fn candidates(cond: &SiteInfo, count: &SiteInfo) -> Vec<Option<Plan>> {
        let on = |site: &SiteInfo, expr| Some(replace(site, expr));
        vec![
            None,
            // The fix, and a spelling of it.
            on(cond, bin(BinOp::Le, var("x"), var("limit"))),
            on(
                cond,
                bin(
                    BinOp::Lt,
                    var("x"),
                    bin(BinOp::Add, var("limit"), lit("i32", 1)),
                ),
            ),
            // Wrong: counts nothing at all.
            on(
                cond,
                bin(
                    BinOp::Lt,
                    var("x"),
                    bin(BinOp::Sub, var("limit"), lit("i32", 10)),
                ),
            ),
            // Overflows on the first element.
            on(
                cond,
                bin(
                    BinOp::Lt,
                    bin(BinOp::Add, var("x"), lit("i32", i32::MAX.into())),
                    var("limit"),
                ),
            ),
            // Would not compile.
            on(cond, bin(BinOp::Le, var("x"), lit("u8", 5))),
            // A component candidate: count twice (the test then sees 4, by another path).
            on(count, lit("usize", 2)),
            // A replacement of one instance only, with a flip of another on top.
            Some(Plan {
                version: PLAN_VERSION,
                replacements: vec![Replacement {
                    target: Target {
                        site: cond.key(),
                        instance: Some(1),
                    },
                    expr: Expr::Lit {
                        value: Value::Bool(true),
                    },
                }],
                flips: vec![Target {
                    site: cond.key(),
                    instance: Some(4),
                }],
                ..Plan::default()
            }),
        ]
    }

    pub fn batch_results_match_one_process_per_plan() {
        let dir = tempfile::tempdir().unwrap();
        let name = "fixture::counts_the_limit";
        let baseline = separate(name, None, dir.path(), 0);
        let (_, cond) = site(&baseline.records, SiteKind::If, "x < limit");
        let (_, count) = site(&baseline.records, SiteKind::Compound, "1");
        let plans = candidates(&cond, &count);
        let (results, traces) = batch(name, &plans, dir.path(), true);
        let expected = [
            BatchOutcome::Failed,
            BatchOutcome::Passed,
            BatchOutcome::Passed,
            BatchOutcome::Failed,
            BatchOutcome::Failed,
            BatchOutcome::Refused,
            BatchOutcome::Passed,
            BatchOutcome::Passed,
        ];
        let outcomes: Vec<BatchOutcome> = results.iter().map(|r| r.outcome).collect();
        assert_eq!(outcomes, expected, "{results:?}");
        assert_eq!(
            results[4].message.as_deref(),
            Some("attempt to add with overflow")
        );
        // Without traces the hooks take a shorter path after evaluating: same outcomes.
        let untraced = tempfile::tempdir().unwrap();
        let (quiet, _) = batch(name, &plans, untraced.path(), false);
        let quiet: Vec<BatchOutcome> = quiet.iter().map(|r| r.outcome).collect();
        assert_eq!(quiet, expected);
        for (n, (plan, result)) in plans.iter().zip(&results).enumerate() {
            assert_eq!(result.index, n);
            let run = separate(name, plan.as_ref(), dir.path(), n + 1);
            let status = match result.outcome {
                BatchOutcome::Passed => 0,
                BatchOutcome::Failed => 101,
                BatchOutcome::Refused => CONFIG_EXIT_CODE,
                BatchOutcome::FuelExhausted => unreachable!("no plan has fuel"),
                BatchOutcome::Skipped => unreachable!("no run has a group"),
            };
            assert_eq!(run.status, status, "run {n}: {result:?}\n{}", run.stderr);
            assert_eq!(
                normalized(&traces[&n]),
                normalized(&run.records),
                "run {n}: the batch trace differs from the separate run's"
            );
        }
    }

    fn operand(index: u32) -> Expr {
        Expr::Operand { index }
    }

    /// The operands of every `Branch` event of site `id`.
    fn operands_of(records: &[Record], id: u32) -> Vec<Vec<Value>> {
        records
            .iter()
            .filter_map(|r| match r {
                Record::Branch { site, operands, .. } if *site == id => Some(operands.clone()),
                _ => None,
            })
            .collect()
    }

    pub fn an_operand_replacement_fixes_max_of_array() {
        let dir = tempfile::tempdir().unwrap();
        let name = "fixture::max_of_array";
        let baseline = separate(name, None, dir.path(), 0);
        assert_eq!(baseline.status, 101, "{}", baseline.stderr);
        let (id, cond) = site(&baseline.records, SiteKind::If, "s > a[i]");
        // The operands are `s` and the element `a[i]`, as `i32`s: for [-2, 5, 3], s stays
        // -2 and meets 5, then 3.
        assert_eq!(
            operands_of(&baseline.records, id)[..2],
            [vec![int(-2), int(5)], vec![int(-2), int(3)]]
        );

        // `s < a[i]`: the comparison's operands with the other operator.
        let fix = replace(&cond, bin(BinOp::Lt, operand(0), operand(1)));
        let fixed = separate(name, Some(&fix), dir.path(), 1);
        assert_eq!(fixed.status, 0, "{}", fixed.stderr);
        let (id, _) = site(&fixed.records, SiteKind::If, "s > a[i]");
        let mut checked = 0;
        for r in &fixed.records {
            if let Record::Branch {
                site,
                outcome,
                flipped,
                operands,
                ..
            } = r
                && *site == id
            {
                let [Value::Int { v: s, .. }, Value::Int { v: e, .. }] = &operands[..] else {
                    panic!("operands {operands:?}");
                };
                assert_eq!(*outcome, s < e, "{operands:?}");
                assert_eq!(*flipped, (s < e) != (s > e), "{operands:?}");
                checked += 1;
            }
        }
        // 2 + 3 + 3 + 0 comparisons in the four calls.
        assert_eq!(checked, 8);

        // The operands swapped, `a[i] > s`, is the same fix; `a[i] < s` (the sides swapped
        // of the written one) is the written code again; reading `s` from the scope and the
        // element from the operands is the fix too.
        let swapped = replace(&cond, bin(BinOp::Gt, operand(1), operand(0)));
        let same_as_written = replace(&cond, bin(BinOp::Lt, operand(1), operand(0)));
        let with_scope = replace(&cond, bin(BinOp::Lt, var("s"), operand(1)));
        // Operand 2 does not exist: the candidate cannot be evaluated.
        let missing = replace(&cond, bin(BinOp::Lt, operand(0), operand(2)));
        let plans = vec![
            None,
            Some(fix),
            Some(swapped),
            Some(same_as_written),
            Some(with_scope),
            Some(missing.clone()),
        ];
        let expected = [
            BatchOutcome::Failed,
            BatchOutcome::Passed,
            BatchOutcome::Passed,
            BatchOutcome::Failed,
            BatchOutcome::Passed,
            BatchOutcome::Refused,
        ];
        // With traces the hook reads the operands for the event anyway; without, only for
        // the replacement.
        for traced in [true, false] {
            let sub = tempfile::tempdir().unwrap();
            let (results, _) = batch(name, &plans, sub.path(), traced);
            let outcomes: Vec<BatchOutcome> = results.iter().map(|r| r.outcome).collect();
            assert_eq!(outcomes, expected, "traced: {traced}: {results:?}");
            let message = results[5].message.as_deref().unwrap();
            assert!(
                message.contains("operand 2") && message.contains("reports 2"),
                "{message}"
            );
        }
        let run = separate(name, Some(&missing), dir.path(), 2);
        assert_eq!(run.status, CONFIG_EXIT_CODE, "{}", run.stderr);
        assert!(
            matches!(run.records.last(), Some(Record::PlanError { .. })),
            "{:?}",
            run.records.last()
        );
    }

    pub fn each_branch_shape_reports_its_operands() {
        let dir = tempfile::tempdir().unwrap();
        let name = "fixture::every_shape";
        let baseline = separate(name, None, dir.path(), 0);
        assert_eq!(baseline.status, 0, "{}", baseline.stderr);
        let usize_ = |v| Value::Int {
            ty: "usize".into(),
            v,
        };
        // (kind, code, the operands of the first instance, or none; the written operator)
        let shapes = [
            (
                SiteKind::While,
                "i < v.len()",
                vec![usize_(0), usize_(3)],
                Some(BinOp::Lt),
            ),
            // A chain reports nothing; each of its operands is a site with its own.
            (SiteKind::If, "x > lo && v[i] != 3", vec![], None),
            (
                SiteKind::Operand,
                "x > lo",
                vec![int(1), int(3)],
                Some(BinOp::Gt),
            ),
            (
                SiteKind::Operand,
                "v[i] != 3",
                vec![int(5), int(3)],
                Some(BinOp::Ne),
            ),
            // A negation and a method call are no comparisons.
            (SiteKind::If, "!(x < lo)", vec![], None),
            (SiteKind::If, "v.is_empty()", vec![], None),
            // A guard's comparison, parentheses read through, with the arm's binding.
            (
                SiteKind::Guard,
                "(y) == lo",
                vec![int(1), int(3)],
                Some(BinOp::Eq),
            ),
        ];
        let mut plans = Vec::new();
        let mut expected = Vec::new();
        for (kind, code, first, op) in &shapes {
            let (id, info) = site(&baseline.records, *kind, code);
            let seen = operands_of(&baseline.records, id);
            assert_eq!(seen.first(), Some(first), "{kind:?} `{code}`: {seen:?}");
            assert!(
                seen.iter().all(|o| o.len() == first.len()),
                "{kind:?} `{code}`: {seen:?}"
            );
            match op {
                // The written comparison rebuilt from its operands: nothing changes.
                Some(op) => {
                    plans.push(Some(replace(&info, bin(*op, operand(0), operand(1)))));
                    expected.push(BatchOutcome::Passed);
                }
                // No operand to read: the candidate cannot be evaluated.
                None => {
                    plans.push(Some(replace(&info, operand(0))));
                    expected.push(BatchOutcome::Refused);
                }
            }
        }
        // The chain's `&&` operand with another operator, `x != lo`, is another condition:
        // it counts the 1 too, and the test fails.
        let (_, operand_site) = site(&baseline.records, SiteKind::Operand, "x > lo");
        plans.push(Some(replace(
            &operand_site,
            bin(BinOp::Ne, operand(0), operand(1)),
        )));
        expected.push(BatchOutcome::Failed);
        let (results, _) = batch(name, &plans, dir.path(), false);
        let outcomes: Vec<BatchOutcome> = results.iter().map(|r| r.outcome).collect();
        assert_eq!(outcomes, expected, "{results:?}");
        for r in results
            .iter()
            .filter(|r| r.outcome == BatchOutcome::Refused)
        {
            let message = r.message.as_deref().unwrap();
            assert!(message.contains("reports no operand"), "{message}");
        }
    }

    /// Not a check: prints what a replaced `if` costs per hook call in this build (run it
    /// with `--release`). Compares batch runs of `fixture::many_steps` without a trace under
    /// a plan that replaces nothing that runs and under one replacing `a < b` by `a + 1 < b`.
    pub fn replacement_cost() {
        let dir = tempfile::tempdir().unwrap();
        let name = "fixture::many_steps";
        let baseline = separate(name, None, dir.path(), 0);
        let (id, cond) = site(&baseline.records, SiteKind::If, "a < b");
        let hooks = baseline
            .records
            .iter()
            .filter(|r| matches!(r, Record::Branch { site, .. } if *site == id))
            .count();
        assert_eq!(hooks, fixture::STEPS as usize);
        // The same plan on a site of another kind that is never reached keeps the runtime
        // active with a plan, so the only difference is the replacement.
        let mut elsewhere = cond.key();
        elsewhere.kind = SiteKind::While;
        let idle_plan = Plan {
            version: PLAN_VERSION,
            replacements: vec![Replacement {
                target: Target {
                    site: elsewhere,
                    instance: None,
                },
                expr: Expr::Original,
            }],
            ..Plan::default()
        };
        let candidate = bin(
            BinOp::Lt,
            bin(BinOp::Add, var("a"), lit("i32", 1)),
            var("b"),
        );
        let replaced = replace(&cond, candidate);
        let rounds = 7;
        let mut plans = Vec::new();
        for _ in 0..rounds {
            plans.push(Some(idle_plan.clone()));
            plans.push(Some(replaced.clone()));
        }
        let (results, _) = batch(name, &plans, dir.path(), false);
        let median = |parity: usize| {
            let mut micros: Vec<u64> = results
                .iter()
                .filter(|r| r.index % 2 == parity)
                .map(|r| {
                    assert_eq!(r.outcome, BatchOutcome::Passed, "{r:?}");
                    r.micros
                })
                .collect();
            micros.sort_unstable();
            micros[micros.len() / 2] as f64
        };
        let (without, with) = (median(0), median(1));
        println!(
            "{hooks} iterations (an `iter`, a `let` and an `if` hook each): {:.0} ns per \
             iteration under a plan, {:.0} ns with `a + 1 < b` replacing `a < b`: {:.0} ns \
             more per replaced hook call",
            without * 1000.0 / hooks as f64,
            with * 1000.0 / hooks as f64,
            (with - without) * 1000.0 / hooks as f64,
        );
    }
}
