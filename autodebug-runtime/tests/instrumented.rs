//! Functions instrumented by the real `#[autodebug(always)]` macro report to the runtime the
//! way `cargo autodebug` uses it: a first child run records the trace, a plan built from the
//! site keys found in that trace changes a second run. (Hand-written sites are exercised in
//! `trace.rs`; this file checks that the macro's output and the runtime agree.)

use autodebug_runtime::autodebug;
use autodebug_runtime::protocol::{
    ENV_MAX_EVENTS, ENV_PLAN, ENV_TRACE, ENV_TRACE_MODE, Override, PLAN_VERSION, Plan, Record,
    SiteInfo, SiteKind, Target, Value,
};
use std::process::Command;

const CHILD: &str = "AUTODEBUG_RT_TEST_CHILD";
const FN_LINE: u32 = line!() + 3;

#[autodebug(always)]
fn sum_positive(xs: &[i32]) -> i32 {
    let mut s = 0;
    for &x in xs {
        if x > 0 {
            s += x;
        }
    }
    s
}
const IF_LINE: u32 = FN_LINE + 3;

/// Runs the `child` test of this binary with a trace and an optional plan: (printed
/// result, trace records).
fn run(plan: Option<&Plan>) -> (String, Vec<Record>) {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("trace.jsonl");
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args(["child", "--exact", "--nocapture"]);
    for var in [ENV_PLAN, ENV_TRACE_MODE, ENV_MAX_EVENTS] {
        cmd.env_remove(var);
    }
    cmd.env(CHILD, "1").env(ENV_TRACE, &trace);
    if let Some(plan) = plan {
        let path = dir.path().join("plan.json");
        std::fs::write(&path, serde_json::to_string(plan).unwrap()).unwrap();
        cmd.env(ENV_PLAN, path);
    }
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let result = stdout
        .lines()
        .find_map(|l| l.strip_prefix("RESULT="))
        .unwrap()
        .to_string();
    let text = std::fs::read_to_string(&trace).unwrap();
    let records = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let records = autodebug_runtime::protocol::restore_deltas(records).unwrap();
    (result, records)
}

fn site(records: &[Record], kind: SiteKind) -> (u32, SiteInfo) {
    records
        .iter()
        .find_map(|r| match r {
            Record::Site { id, site } if site.kind == kind => Some((*id, site.clone())),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no {kind:?} site"))
}

/// (instance, outcome, flipped) of the branch events of site `id`.
fn branches(records: &[Record], id: u32) -> Vec<(u32, bool, bool)> {
    records
        .iter()
        .filter_map(|r| match r {
            Record::Branch {
                site,
                instance,
                outcome,
                flipped,
                ..
            } if *site == id => Some((*instance, *outcome, *flipped)),
            _ => None,
        })
        .collect()
}

#[test]
fn child() {
    if std::env::var_os(CHILD).is_some() {
        println!("RESULT={}", sum_positive(&[3, -1, 4]));
    }
}

#[test]
fn recorded_sites_drive_a_plan() {
    let (result, records) = run(None);
    assert_eq!(result, "7");
    let (fn_id, fn_site) = site(&records, SiteKind::Fn);
    assert_eq!((fn_site.file.as_str(), fn_site.line), (file!(), FN_LINE));
    assert!(fn_site.function.ends_with("sum_positive"), "{fn_site:?}");
    let (if_id, if_site) = site(&records, SiteKind::If);
    assert_eq!((if_site.line, if_site.code.as_str()), (IF_LINE, "x > 0"));
    assert_eq!(
        branches(&records, if_id),
        [(0, true, false), (1, false, false), (2, true, false)]
    );
    let xs = Value::Seq {
        items: [3, -1, 4]
            .map(|v| Value::Int {
                ty: "i32".into(),
                v,
            })
            .to_vec(),
        len: 3,
    };
    assert!(records.contains(&Record::Enter {
        site: fn_id,
        args: vec![("xs".into(), xs)]
    }));
    assert!(matches!(records.last(), Some(Record::End { .. })));

    let flip = Target {
        site: if_site.key(),
        instance: Some(1),
    };
    let plan = Plan {
        version: PLAN_VERSION,
        flips: vec![flip],
        ..Plan::default()
    };
    let (result, records) = run(Some(&plan));
    assert_eq!(result, "6");
    let (if_id, _) = site(&records, SiteKind::If);
    assert_eq!(
        branches(&records, if_id),
        [(0, true, false), (1, true, true), (2, true, false)]
    );

    let (_, ret_site) = site(&records, SiteKind::Return);
    let target = Target {
        site: ret_site.key(),
        instance: None,
    };
    let value = Value::Int {
        ty: "i32".into(),
        v: 40,
    };
    let plan = Plan {
        version: PLAN_VERSION,
        overrides: vec![Override { target, value }],
        ..plan
    };
    let (result, _) = run(Some(&plan));
    assert_eq!(result, "40");
}
