//! A plan's [`Argument`]s replace the arguments of calls of instrumented functions at entry,
//! before the preconditions: the child runs of this binary call functions instrumented by
//! the real `#[autodebug(always)]` macro, the parent reads what they returned and recorded.

use autodebug_runtime::protocol::{
    Argument, ENV_MAX_EVENTS, ENV_PLAN, ENV_TRACE, ENV_TRACE_MODE, PLAN_VERSION, Plan, Record,
    SiteKey, SiteKind, Target, Value,
};
use autodebug_runtime::{autodebug, ensures, requires};
use std::process::Command;

const CHILD: &str = "AUTODEBUG_RT_TEST_CHILD";

#[autodebug(always)]
fn scale(x: i32, mut by: u8, xs: &[i32], v: Vec<u16>, name: &str, (a, b): (i32, i32)) -> i64 {
    by = by.saturating_add(0);
    let sum: i32 = xs.iter().sum();
    let vs: u16 = v.iter().sum();
    i64::from(x) * i64::from(by)
        + i64::from(sum)
        + i64::from(vs)
        + name.len() as i64
        + i64::from(a + b)
}

#[requires(n < 100, "n is small")]
#[ensures(ret > n)]
#[autodebug(always)]
fn bump(n: u32) -> u32 {
    n + 1
}

#[test]
fn child() {
    if std::env::var_os(CHILD).is_some() {
        let first = scale(2, 3, &[1, 2], vec![4], "hi", (5, 6));
        let second = scale(2, 3, &[1, 2], vec![4], "hi", (5, 6));
        let bumped = std::panic::catch_unwind(|| bump(5))
            .map(|r| r.to_string())
            .unwrap_or_else(|_| "panicked".into());
        println!("RESULT={first} {second} {bumped}");
    }
}

/// Runs the child with `arguments` replaced: (what it printed, its trace).
fn run(arguments: Vec<Argument>) -> (String, Vec<Record>) {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("trace.jsonl");
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args(["child", "--exact", "--nocapture"]);
    for var in [ENV_PLAN, ENV_TRACE_MODE, ENV_MAX_EVENTS] {
        cmd.env_remove(var);
    }
    cmd.env(CHILD, "1").env(ENV_TRACE, &trace);
    let plan = Plan {
        version: PLAN_VERSION,
        arguments,
        ..Plan::default()
    };
    let path = dir.path().join("plan.json");
    std::fs::write(&path, serde_json::to_string(&plan).unwrap()).unwrap();
    cmd.env(ENV_PLAN, path);
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

/// The entry site of function `name`, as the macro declares it.
fn entry(name: &str) -> SiteKey {
    let source = include_str!("arguments.rs");
    let needle = format!("fn {name}(");
    let line = source.lines().position(|l| l.starts_with(&needle)).unwrap() as u32 + 1;
    SiteKey {
        file: file!().into(),
        line,
        column: 4,
        kind: SiteKind::Fn,
    }
}

fn arg(function: &str, call: Option<u32>, name: &str, value: Value) -> Argument {
    Argument {
        target: Target {
            site: entry(function),
            instance: call,
        },
        name: name.into(),
        value,
    }
}

fn int(ty: &str, v: i128) -> Value {
    Value::Int { ty: ty.into(), v }
}

fn seq(ty: &str, items: &[i128]) -> Value {
    Value::Seq {
        items: items.iter().map(|&v| int(ty, v)).collect(),
        len: items.len(),
    }
}

/// The arguments the `Enter` records of function `name` show, call by call.
fn entries(records: &[Record], name: &str) -> Vec<Vec<(String, Value)>> {
    let ids: Vec<u32> = records
        .iter()
        .filter_map(|r| match r {
            Record::Site { id, site } if site.key() == entry(name) => Some(*id),
            _ => None,
        })
        .collect();
    records
        .iter()
        .filter_map(|r| match r {
            Record::Enter { site, args } if ids.contains(site) => Some(args.clone()),
            _ => None,
        })
        .collect()
}

fn plan_errors(records: &[Record]) -> Vec<String> {
    records
        .iter()
        .filter_map(|r| match r {
            Record::PlanError { message, .. } => Some(message.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn nothing_replaced_without_arguments() {
    let (result, records) = run(Vec::new());
    // 2*3 + 3 + 4 + 2 + 11 = 26; bump(5) = 6.
    assert_eq!(result, "26 26 6");
    assert!(plan_errors(&records).is_empty());
}

#[test]
fn a_scalar_is_replaced_at_the_call_named() {
    let (result, records) = run(vec![arg("scale", Some(1), "x", int("i32", 10))]);
    assert_eq!(result, "26 50 6");
    let calls = entries(&records, "scale");
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0][0], ("x".to_string(), int("i32", 2)));
    // The entry records the replaced value: the trace shows the call that ran.
    assert_eq!(calls[1][0], ("x".to_string(), int("i32", 10)));
    assert!(plan_errors(&records).is_empty());
    // Every call, and a `mut` parameter.
    let (result, _) = run(vec![arg("scale", None, "by", int("u8", 0))]);
    assert_eq!(result, "20 20 6");
}

#[test]
fn slices_and_vecs_of_primitives_are_replaced() {
    let (result, records) = run(vec![
        arg("scale", Some(0), "xs", seq("i32", &[10, 20, 30])),
        arg("scale", Some(0), "v", seq("u16", &[])),
    ]);
    // 6 + 60 + 0 + 2 + 11 = 79.
    assert_eq!(result, "79 26 6");
    assert_eq!(
        entries(&records, "scale")[0][2],
        ("xs".to_string(), seq("i32", &[10, 20, 30]))
    );
    assert!(plan_errors(&records).is_empty());
}

#[test]
fn what_cannot_be_replaced_is_a_plan_error_and_stays() {
    let (result, records) = run(vec![
        arg(
            "scale",
            Some(0),
            "name",
            Value::Str {
                v: "longer".into(),
                truncated: false,
            },
        ),
        arg("scale", Some(0), "a", int("i32", 100)),
        arg("scale", Some(1), "by", int("i32", 300)),
    ]);
    assert_eq!(result, "26 26 6");
    let errors = plan_errors(&records);
    assert_eq!(errors.len(), 3, "{errors:?}");
    assert!(
        errors
            .iter()
            .any(|e| e.contains("`a`") && e.contains("plain name")),
        "{errors:?}"
    );
    assert!(
        errors
            .iter()
            .any(|e| e.contains("`name`") && e.contains("&str")),
        "{errors:?}"
    );
    assert!(
        errors
            .iter()
            .any(|e| e.contains("`by`") && e.contains("u8")),
        "{errors:?}"
    );
}

#[test]
fn contracts_check_the_replaced_arguments() {
    // The postcondition `ret > n` holds of the new argument, and the precondition rejects
    // one out of its range.
    let (result, _) = run(vec![arg("bump", Some(0), "n", int("u32", 41))]);
    assert_eq!(result, "26 26 42");
    let (result, records) = run(vec![arg("bump", Some(0), "n", int("u32", 500))]);
    assert_eq!(result, "26 26 panicked");
    assert!(
        records
            .iter()
            .any(|r| matches!(r, Record::Contract { ok: false, .. }))
    );
}
