//! The recorder and the plan interpreter, end to end. The runtime reads its environment once
//! per process, so each test re-runs this test binary as a child (`--exact <test>`) with the
//! `AUTODEBUG_*` variables set; in the child the same test runs the workload instead, and the
//! parent asserts on the JSON-lines trace, the exit status and what the workload printed.
//! The workloads call the hooks the way instrumented code does, with hand-written sites whose
//! expected positions are read from this file's text (the `// @name` markers).

use autodebug_runtime::__rt::{self as rt, CONFIG_EXIT_CODE, Site, SiteKind, Value};
use autodebug_runtime::protocol::{
    ENV_MAX_EVENTS, ENV_PLAN, ENV_TRACE, ENV_TRACE_MODE, FUEL_EXIT_CODE, PLAN_VERSION, Plan,
    Record, SiteInfo, SiteKey, TRACE_VERSION,
};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::process::Command;

/// Set in a child: the test runs its workload instead of spawning.
const CHILD: &str = "AUTODEBUG_RT_TEST_CHILD";
const SOURCE: &str = include_str!("trace.rs");

/// A `&'static Site` at this position, as the macros declare them.
macro_rules! site {
    ($func:ident, $kind:ident, $code:expr) => {{
        static SITE: Site = Site::new(
            file!(),
            line!(),
            column!(),
            line!(),
            column!() + 5,
            SiteKind::$kind,
            $code,
            concat!(module_path!(), "::", stringify!($func)),
        );
        &SITE
    }};
}

// ---- workloads (what instrumented code looks like) ----

fn sum_positive(xs: &[i32]) -> i32 {
    let fn_site = site!(sum_positive, Fn, "sum_positive"); // @fn
    let _guard = rt::enter(fn_site, &[rt::Binding::new("xs", &xs)]);
    let let_site = site!(sum_positive, Let, "0"); // @let
    let mut s = rt::component(let_site, 0, &[]);
    for &x in xs {
        rt::iter(site!(sum_positive, Loop, "for &x in xs")); // @loop
        let if_site = site!(sum_positive, If, "x > 0"); // @if
        if rt::branch(if_site, x > 0, &|| vec![rt::val(&x), rt::val(&0)], &[]) {
            let add_site = site!(sum_positive, Compound, "x"); // @add
            let scope = [rt::Binding::new("s", &s), rt::Binding::new("x", &x)];
            s = rt::component(add_site, s + x, &scope);
        }
    }
    let ret_site = site!(sum_positive, Return, "s"); // @ret
    rt::component(ret_site, s, &[rt::Binding::new("s", &s)])
}

/// Counts up to `n`; flipping the exit test makes it run away.
fn count_to(n: u32) -> u32 {
    let mut i = 0;
    let while_site = site!(count_to, While, "i != n"); // @count_while
    while rt::branch(while_site, i != n, &Vec::new, &[]) {
        rt::iter(site!(count_to, Loop, "while"));
        i = rt::component(site!(count_to, Assign, "i + 1"), i + 1, &[]);
    }
    i
}

fn checked_div(a: i32, b: i32) -> i32 {
    let fn_site = site!(checked_div, Fn, "checked_div"); // @div
    let _guard = rt::enter(
        fn_site,
        &[rt::Binding::new("a", &a), rt::Binding::new("b", &b)],
    );
    let requires = site!(checked_div, Requires, "b != 0"); // @requires
    if !rt::contract(requires, b != 0) {
        panic!("Pre-condition of checked_div violated: b != 0"); // @panic
    }
    a / b
}

// ---- the parent side ----

fn in_child() -> bool {
    std::env::var_os(CHILD).is_some()
}

/// 1-based line of the `// @marker` comment in this file.
fn line_of(marker: &str) -> u32 {
    let tag = format!("// @{marker}");
    let lines: Vec<usize> = SOURCE
        .lines()
        .enumerate()
        .filter(|(_, l)| l.trim_end().ends_with(&tag))
        .map(|(i, _)| i + 1)
        .collect();
    assert_eq!(lines.len(), 1, "marker {tag} must appear once");
    lines[0] as u32
}

/// 1-based column of `site!` on the line of the `// @marker` comment.
fn column_of(marker: &str) -> u32 {
    let line = SOURCE.lines().nth(line_of(marker) as usize - 1).unwrap();
    line.find("site!").expect("a site! on the marker line") as u32 + 1
}

fn key(marker: &str, kind: SiteKind) -> SiteKey {
    SiteKey {
        file: file!().to_string(),
        line: line_of(marker),
        column: column_of(marker),
        kind,
    }
}

fn int(v: i128) -> Value {
    Value::Int {
        ty: "i32".into(),
        v,
    }
}

struct Run {
    code: Option<i32>,
    /// The records as a reader sees them, deltas restored; `None` when no trace file
    /// was written.
    records: Option<Vec<Record>>,
    /// The records as written.
    raw: Option<Vec<Record>>,
    stdout: String,
    stderr: String,
}

impl Run {
    fn records(&self) -> &[Record] {
        self.records.as_deref().expect("a trace file")
    }

    /// The `RESULT=` lines the workload printed.
    fn results(&self) -> Vec<String> {
        self.stdout
            .lines()
            .filter_map(|l| l.strip_prefix("RESULT="))
            .map(String::from)
            .collect()
    }

    /// Site id → site, checking each `Site` record precedes every use of its id and ids
    /// are 1, 2, 3… in order of first appearance.
    fn sites(&self) -> HashMap<u32, SiteInfo> {
        let mut sites = HashMap::new();
        for r in self.records() {
            match r {
                Record::Site { id, site } => {
                    assert_eq!(*id as usize, sites.len() + 1, "ids in order");
                    sites.insert(*id, site.clone());
                }
                Record::Enter { site, .. }
                | Record::Exit { site, .. }
                | Record::Branch { site, .. }
                | Record::Component { site, .. }
                | Record::Iteration { site, .. }
                | Record::Contract { site, .. }
                | Record::PlanError { site, .. } => {
                    assert!(
                        sites.contains_key(site),
                        "site {site} used before it is declared"
                    )
                }
                _ => {}
            }
        }
        sites
    }

    /// The events in a compact form naming sites by their marker line, e.g.
    /// `branch@if#1=false`.
    fn events(&self) -> Vec<String> {
        let sites = self.sites();
        let name = |id: &u32| {
            let site = &sites[id];
            let code = site.code.clone();
            format!("{:?}:{code}", site.kind).to_lowercase()
        };
        let show = |v: &Value| match v {
            Value::Int { v, .. } => v.to_string(),
            other => format!("{other:?}"),
        };
        self.records()
            .iter()
            .filter_map(|r| match r {
                Record::Enter { site, .. } => Some(format!("enter {}", name(site))),
                Record::Exit { site, panicking } => Some(format!(
                    "exit {}{}",
                    name(site),
                    if *panicking { " panicking" } else { "" }
                )),
                Record::Branch {
                    site,
                    instance,
                    outcome,
                    flipped,
                    ..
                } => Some(format!(
                    "{}#{instance}={outcome}{}",
                    name(site),
                    if *flipped { " flipped" } else { "" }
                )),
                Record::Component {
                    site,
                    instance,
                    value,
                    overridden,
                    ..
                } => Some(format!(
                    "{}#{instance}={}{}",
                    name(site),
                    show(value),
                    if *overridden { " overridden" } else { "" }
                )),
                Record::Iteration { site, instance } => Some(format!("{}#{instance}", name(site))),
                Record::Contract { site, instance, ok } => {
                    Some(format!("{}#{instance}={ok}", name(site)))
                }
                Record::PlanError { site, instance, .. } => {
                    Some(format!("plan error {}#{instance}", name(site)))
                }
                _ => None,
            })
            .collect()
    }
}

/// Options of a child run.
#[derive(Default)]
struct Child<'a> {
    trace: bool,
    plan: Option<Plan>,
    plan_text: Option<&'a str>,
    env: Vec<(&'a str, &'a str)>,
}

impl Child<'_> {
    fn run(self, test: &str) -> Run {
        let dir = tempfile::tempdir().unwrap();
        let trace = dir.path().join("trace.jsonl");
        let mut cmd = Command::new(std::env::current_exe().unwrap());
        cmd.args([test, "--exact", "--nocapture"]);
        for var in [ENV_TRACE, ENV_PLAN, ENV_TRACE_MODE, ENV_MAX_EVENTS] {
            cmd.env_remove(var);
        }
        cmd.env(CHILD, "1");
        if self.trace {
            cmd.env(ENV_TRACE, &trace);
        }
        let plan_text = self.plan.map(|p| serde_json::to_string(&p).unwrap());
        if let Some(text) = plan_text.as_deref().or(self.plan_text) {
            let path = dir.path().join("plan.json");
            std::fs::write(&path, text).unwrap();
            cmd.env(ENV_PLAN, path);
        }
        cmd.envs(self.env);
        let out = cmd.output().unwrap();
        let raw = read_trace(&trace);
        Run {
            code: out.status.code(),
            records: raw
                .clone()
                .map(|r| autodebug_runtime::protocol::restore_deltas(r).unwrap()),
            raw,
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }
}

fn read_trace(path: &Path) -> Option<Vec<Record>> {
    let text = std::fs::read_to_string(path).ok()?;
    let records = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad trace line {l:?}: {e}")))
        .collect();
    Some(records)
}

fn plan() -> Plan {
    Plan {
        version: PLAN_VERSION,
        ..Plan::default()
    }
}

fn flip(
    marker: &str,
    kind: SiteKind,
    instance: Option<u32>,
) -> autodebug_runtime::protocol::Target {
    autodebug_runtime::protocol::Target {
        site: key(marker, kind),
        instance,
    }
}

fn set(
    marker: &str,
    kind: SiteKind,
    instance: Option<u32>,
    value: Value,
) -> autodebug_runtime::protocol::Override {
    autodebug_runtime::protocol::Override {
        target: flip(marker, kind, instance),
        value,
    }
}

/// The events of one `sum_positive(&[3, -1, 4])` call, unchanged by any plan.
fn sum_events(let_instance: u32, first_if: u32) -> Vec<String> {
    let l = let_instance;
    let (i0, i1, i2) = (first_if, first_if + 1, first_if + 2);
    vec![
        "enter fn:sum_positive".to_string(),
        format!("let:0#{l}=0"),
        format!("loop:for &x in xs#{i0}"),
        format!("if:x > 0#{i0}=true"),
        format!("compound:x#{}=3", 2 * l),
        format!("loop:for &x in xs#{i1}"),
        format!("if:x > 0#{i1}=false"),
        format!("loop:for &x in xs#{i2}"),
        format!("if:x > 0#{i2}=true"),
        format!("compound:x#{}=7", 2 * l + 1),
        format!("return:s#{l}=7"),
        "exit fn:sum_positive".to_string(),
    ]
}

// ---- the tests ----

#[test]
fn records_sites_and_events() {
    if in_child() {
        println!("RESULT={}", sum_positive(&[3, -1, 4]));
        println!("RESULT={}", sum_positive(&[3, -1, 4]));
        return;
    }
    let run = Child {
        trace: true,
        ..Child::default()
    }
    .run("records_sites_and_events");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.results(), ["7", "7"]);
    let records = run.records();
    match &records[0] {
        Record::Header { version, mode, pid } => {
            assert_eq!((*version, mode.as_str()), (TRACE_VERSION, "events"));
            assert_ne!(*pid, std::process::id(), "the child's pid");
        }
        other => panic!("first record {other:?}"),
    }
    let sites = run.sites();
    assert_eq!(sites.len(), 6);
    for (marker, kind, code) in [
        ("fn", SiteKind::Fn, "sum_positive"),
        ("let", SiteKind::Let, "0"),
        ("loop", SiteKind::Loop, "for &x in xs"),
        ("if", SiteKind::If, "x > 0"),
        ("add", SiteKind::Compound, "x"),
        ("ret", SiteKind::Return, "s"),
    ] {
        let site = sites.values().find(|s| s.kind == kind).unwrap();
        assert_eq!(site.key(), key(marker, kind));
        assert_eq!(
            (site.end_line, site.end_column),
            (site.line, site.column + 5)
        );
        assert_eq!(site.code, code);
        assert_eq!(site.function, "trace::sum_positive");
    }
    // Site ids in order of first reach.
    let order: Vec<SiteKind> = (1..=6).map(|id| sites[&id].kind).collect();
    use SiteKind::*;
    assert_eq!(order, [Fn, Let, Loop, If, Compound, Return]);
    // Instances count over the whole process: the second call continues the numbering.
    let mut expected = sum_events(0, 0);
    expected.extend(sum_events(1, 3));
    assert_eq!(run.events(), expected);
    // Values: arguments, operands, scope.
    let enter = records
        .iter()
        .find(|r| matches!(r, Record::Enter { .. }))
        .unwrap();
    let xs = Value::Seq {
        items: vec![int(3), int(-1), int(4)],
        len: 3,
    };
    assert_eq!(
        enter,
        &Record::Enter {
            site: 1,
            args: vec![("xs".into(), xs)]
        }
    );
    let branch = records
        .iter()
        .find(|r| matches!(r, Record::Branch { .. }))
        .unwrap();
    assert!(matches!(branch, Record::Branch { operands, .. } if *operands == [int(3), int(0)]));
    let add = records
        .iter()
        .find(|r| matches!(r, Record::Component { site: 5, .. }))
        .unwrap();
    let scope = vec![("s".to_string(), int(0)), ("x".to_string(), int(3))];
    assert!(matches!(add, Record::Component { scope: s, .. } if *s == scope));
    let events = records
        .iter()
        .filter(|r| !matches!(r, Record::Header { .. } | Record::Site { .. }))
        .count()
        - 1;
    assert_eq!(
        records.last(),
        Some(&Record::End {
            events: events as u64,
            hits: vec![]
        })
    );
}

/// Sums the first `n` elements of `xs` (a scope with a slice that stays and a counter and an
/// accumulator that change).
fn prefix_sum(xs: &[i32], n: usize) -> i32 {
    let fn_site = site!(prefix_sum, Fn, "prefix_sum"); // @prefix_fn
    let _guard = rt::enter(
        fn_site,
        &[rt::Binding::new("xs", &xs), rt::Binding::new("n", &n)],
    );
    let mut s = 0;
    for i in 0..n {
        let add_site = site!(prefix_sum, Compound, "xs[i]"); // @prefix_add
        let scope = [
            rt::Binding::new("xs", &xs),
            rt::Binding::new("n", &n),
            rt::Binding::new("i", &i),
            rt::Binding::new("s", &s),
        ];
        s = rt::component(add_site, s + xs[i], &scope);
    }
    s
}

#[test]
fn scopes_are_written_as_changes() {
    if in_child() {
        println!("RESULT={}", prefix_sum(&[5, 0, 7], 3));
        println!("RESULT={}", prefix_sum(&[5, 0, 7], 2));
        return;
    }
    let run = Child {
        trace: true,
        ..Child::default()
    }
    .run("scopes_are_written_as_changes");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.results(), ["12", "5"]);
    let usize = |v: i128| Value::Int {
        ty: "usize".into(),
        v,
    };
    let xs = Value::Seq {
        items: vec![int(5), int(0), int(7)],
        len: 3,
    };
    // As written: the first record of each site whole, then only what changed, by index
    // (`xs` never; `n` at the second call; `s` not when `xs[i]` is 0), an integer in place
    // of one of its type as its number.
    let written: Vec<String> = run
        .raw
        .as_deref()
        .unwrap()
        .iter()
        .filter_map(|r| match r {
            Record::Enter { args, .. } => Some(format!("enter {args:?}")),
            Record::EnterDelta { changed, .. } => Some(format!("enter delta {changed:?}")),
            Record::Component { value, scope, .. } => {
                Some(format!("component {value:?} {scope:?}"))
            }
            Record::ComponentDelta { value, changed, .. } => {
                Some(format!("component delta {value:?} {changed:?}"))
            }
            _ => None,
        })
        .collect();
    let bindings = |b: &[(&str, Value)]| -> Vec<(String, Value)> {
        b.iter().map(|(n, v)| (n.to_string(), v.clone())).collect()
    };
    use autodebug_runtime::protocol::DeltaValue::Int;
    assert_eq!(
        written,
        [
            format!(
                "enter {:?}",
                bindings(&[("xs", xs.clone()), ("n", usize(3))])
            ),
            format!(
                "component {:?} {:?}",
                int(5),
                bindings(&[
                    ("xs", xs.clone()),
                    ("n", usize(3)),
                    ("i", usize(0)),
                    ("s", int(0))
                ])
            ),
            format!(
                "component delta {:?} {:?}",
                Int(5),
                [(2, Int(1)), (3, Int(5))]
            ),
            format!("component delta {:?} {:?}", Int(12), [(2, Int(2))]),
            format!("enter delta {:?}", [(1, Int(2))]),
            format!(
                "component delta {:?} {:?}",
                Int(5),
                [(1, Int(2)), (2, Int(0)), (3, Int(0))]
            ),
            format!(
                "component delta {:?} {:?}",
                Int(5),
                [(2, Int(1)), (3, Int(5))]
            ),
        ]
    );
    // As read: every scope whole.
    let scopes: Vec<Vec<(String, Value)>> = run
        .records()
        .iter()
        .filter_map(|r| match r {
            Record::Enter { args, .. } => Some(args.clone()),
            Record::Component { scope, .. } => Some(scope.clone()),
            Record::EnterDelta { .. } | Record::ComponentDelta { .. } => panic!("{r:?}"),
            _ => None,
        })
        .collect();
    let scope = |n, i, s| {
        bindings(&[
            ("xs", xs.clone()),
            ("n", usize(n)),
            ("i", usize(i)),
            ("s", int(s)),
        ])
    };
    assert_eq!(
        scopes,
        [
            bindings(&[("xs", xs.clone()), ("n", usize(3))]),
            scope(3, 0, 0),
            scope(3, 1, 5),
            scope(3, 2, 5),
            bindings(&[("xs", xs.clone()), ("n", usize(2))]),
            scope(2, 0, 0),
            scope(2, 1, 5),
        ]
    );
}

#[test]
fn flips_change_control_flow() {
    if in_child() {
        println!("RESULT={}", sum_positive(&[3, -1, 4]));
        return;
    }
    let one = Plan {
        flips: vec![flip("if", SiteKind::If, Some(1))],
        ..plan()
    };
    let run = Child {
        trace: true,
        plan: Some(one),
        ..Child::default()
    }
    .run("flips_change_control_flow");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.results(), ["6"]);
    let events = run.events();
    assert!(
        events.contains(&"if:x > 0#0=true".to_string()),
        "{events:?}"
    );
    assert!(
        events.contains(&"if:x > 0#1=true flipped".to_string()),
        "{events:?}"
    );
    assert!(events.contains(&"compound:x#1=2".to_string()), "{events:?}");
    assert!(
        events.contains(&"if:x > 0#2=true".to_string()),
        "{events:?}"
    );

    let every = Plan {
        flips: vec![flip("if", SiteKind::If, None)],
        ..plan()
    };
    let run = Child {
        trace: true,
        plan: Some(every),
        ..Child::default()
    }
    .run("flips_change_control_flow");
    assert_eq!(run.results(), ["-1"], "{}", run.stderr);
    let flipped = run
        .events()
        .iter()
        .filter(|e| e.ends_with("flipped"))
        .count();
    assert_eq!(flipped, 3);

    // A flip of a site at another column is another site: nothing changes.
    let mut elsewhere = flip("if", SiteKind::If, None);
    elsewhere.site.column += 1;
    let run = Child {
        plan: Some(Plan {
            flips: vec![elsewhere],
            ..plan()
        }),
        ..Child::default()
    }
    .run("flips_change_control_flow");
    assert_eq!(run.results(), ["7"], "{}", run.stderr);
}

#[test]
fn a_plan_works_without_a_trace() {
    if in_child() {
        println!("RESULT={}", sum_positive(&[3, -1, 4]));
        return;
    }
    let p = Plan {
        flips: vec![flip("if", SiteKind::If, Some(0))],
        overrides: vec![set("ret", SiteKind::Return, None, int(40))],
        ..plan()
    };
    let run = Child {
        plan: Some(p),
        ..Child::default()
    }
    .run("a_plan_works_without_a_trace");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(run.records.is_none());
    assert_eq!(run.results(), ["40"]);
}

#[test]
fn overrides_change_values() {
    if in_child() {
        println!("RESULT={}", sum_positive(&[3, -1, 4]));
        return;
    }
    let p = Plan {
        overrides: vec![set("add", SiteKind::Compound, Some(0), int(10))],
        ..plan()
    };
    let run = Child {
        trace: true,
        plan: Some(p),
        ..Child::default()
    }
    .run("overrides_change_values");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.results(), ["14"]);
    let events = run.events();
    assert!(
        events.contains(&"compound:x#0=10 overridden".to_string()),
        "{events:?}"
    );
    assert!(
        events.contains(&"compound:x#1=14".to_string()),
        "{events:?}"
    );
}

#[test]
fn an_override_that_does_not_fit_is_a_plan_error() {
    if in_child() {
        println!("RESULT={}", sum_positive(&[3, -1, 4]));
        return;
    }
    let p = Plan {
        overrides: vec![
            set("let", SiteKind::Let, None, Value::Bool(true)),
            set("ret", SiteKind::Return, None, int(1 << 40)),
        ],
        ..plan()
    };
    let run = Child {
        trace: true,
        plan: Some(p),
        ..Child::default()
    }
    .run("an_override_that_does_not_fit_is_a_plan_error");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.results(), ["7"], "computed values are kept");
    let events = run.events();
    assert_eq!(
        events[1..3],
        ["plan error let:0#0", "let:0#0=0"],
        "{events:?}"
    );
    assert!(events.ends_with(&[
        "plan error return:s#0".into(),
        "return:s#0=7".into(),
        "exit fn:sum_positive".into()
    ]));
    let messages: Vec<&str> = run
        .records()
        .iter()
        .filter_map(|r| match r {
            Record::PlanError { message, .. } => Some(message.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(messages.len(), 2);
    assert!(messages.iter().all(|m| m.contains("`i32`")), "{messages:?}");
}

#[test]
fn fuel_stops_a_runaway_loop() {
    if in_child() {
        println!("RESULT={}", count_to(3));
        return;
    }
    // Flipping the exit test of `while i != n` makes `i` run past `n` for ever.
    let p = Plan {
        flips: vec![flip("count_while", SiteKind::While, Some(3))],
        fuel: Some(100),
        ..plan()
    };
    let run = Child {
        trace: true,
        plan: Some(p),
        ..Child::default()
    }
    .run("fuel_stops_a_runaway_loop");
    assert_eq!(run.code, Some(FUEL_EXIT_CODE), "{}", run.stderr);
    assert!(run.results().is_empty());
    assert!(run.stderr.contains("fuel exhausted"), "{}", run.stderr);
    let records = run.records();
    assert_eq!(records.last(), Some(&Record::FuelExhausted { fuel: 100 }));
    let fueled = records
        .iter()
        .filter(|r| {
            matches!(
                r,
                Record::Branch { .. } | Record::Iteration { .. } | Record::Component { .. }
            )
        })
        .count();
    assert_eq!(fueled, 100);
    assert!(
        run.events()
            .contains(&"while:i != n#3=true flipped".to_string())
    );
    // Without the flip the same fuel is plenty.
    let p = Plan {
        fuel: Some(100),
        ..plan()
    };
    let run = Child {
        plan: Some(p),
        ..Child::default()
    }
    .run("fuel_stops_a_runaway_loop");
    assert_eq!(
        (run.code, run.results()),
        (Some(0), vec!["3".to_string()]),
        "{}",
        run.stderr
    );
}

fn reserve(n: usize) -> usize {
    let fn_site = site!(reserve, Fn, "reserve");
    let _guard = rt::enter(fn_site, &[rt::Binding::new("n", &n)]);
    let v: Vec<u8> = Vec::with_capacity(n); // @overflow
    v.capacity()
}

/// A panic inside the standard library (its location there) is recorded where the crate's
/// code called into it: the first frame of the backtrace in the package's own files.
#[test]
fn a_panic_inside_the_standard_library_is_located_in_the_calling_code() {
    if in_child() {
        println!("RESULT={}", reserve(4));
        println!("RESULT={}", reserve(usize::MAX));
        return;
    }
    let run = Child {
        trace: true,
        ..Child::default()
    }
    .run("a_panic_inside_the_standard_library_is_located_in_the_calling_code");
    assert_eq!(run.code, Some(101), "{}", run.stderr);
    assert!(run.stderr.contains("capacity overflow"), "{}", run.stderr);
    let records = run.records();
    let located = records.iter().find_map(|r| match r {
        Record::Panic {
            message,
            file,
            line,
            ..
        } => Some((message.as_str(), file.as_str(), *line)),
        _ => None,
    });
    assert_eq!(
        located,
        Some(("capacity overflow", "tests/trace.rs", line_of("overflow")))
    );
}

#[test]
fn a_panicking_test_keeps_its_whole_trace() {
    if in_child() {
        println!("RESULT={}", checked_div(7, 2));
        println!("RESULT={}", checked_div(7, 0)); // @caller
        return;
    }
    let run = Child {
        trace: true,
        ..Child::default()
    }
    .run("a_panicking_test_keeps_its_whole_trace");
    assert_eq!(run.code, Some(101), "libtest reports the failed test");
    assert!(
        run.stderr.contains("Pre-condition of checked_div violated"),
        "the previous hook still prints: {}",
        run.stderr
    );
    assert_eq!(
        run.events(),
        [
            "enter fn:checked_div",
            "requires:b != 0#0=true",
            "exit fn:checked_div",
            "enter fn:checked_div",
            "requires:b != 0#1=false",
            "exit fn:checked_div panicking",
        ]
    );
    let records = run.records();
    let panic = records
        .iter()
        .position(|r| matches!(r, Record::Panic { .. }))
        .unwrap();
    assert_eq!(
        records[panic],
        Record::Panic {
            message: "Pre-condition of checked_div violated: b != 0".into(),
            file: file!().into(),
            line: line_of("panic"),
            column: 9,
            thread: "a_panicking_test_keeps_its_whole_trace".into(),
        }
    );
    // Then the calls that led there, in the package's own files: the test's call.
    let Record::Callers { frames } = &records[panic + 1] else {
        panic!("no callers after the panic: {:?}", records[panic + 1])
    };
    assert!(
        frames
            .iter()
            .any(|f| f.file == file!() && f.line == line_of("caller")),
        "the test's call, named as the compiler names the file: {frames:?}"
    );
    assert!(
        frames.iter().all(|f| f.line != line_of("panic")),
        "{frames:?}"
    );
    // The panic is recorded before the unwinding leaves the function.
    assert!(matches!(
        records[panic + 2],
        Record::Exit {
            panicking: true,
            ..
        }
    ));
    assert_eq!(
        records.last(),
        Some(&Record::End {
            events: 6,
            hits: vec![]
        })
    );
}

#[test]
fn events_stop_at_the_cap_but_the_plan_goes_on() {
    if in_child() {
        println!("RESULT={}", sum_positive(&[3, -1, 4]));
        return;
    }
    let p = Plan {
        flips: vec![flip("if", SiteKind::If, Some(2))],
        ..plan()
    };
    let run = Child {
        trace: true,
        plan: Some(p),
        env: vec![(ENV_MAX_EVENTS, "5")],
        ..Child::default()
    }
    .run("events_stop_at_the_cap_but_the_plan_goes_on");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.results(), ["3"], "the flip past the cap still applies");
    let records = run.records();
    let at = records
        .iter()
        .position(|r| matches!(r, Record::Truncated { .. }))
        .unwrap();
    assert_eq!(records[at], Record::Truncated { events: 5 });
    assert_eq!(run.events()[..5], sum_events(0, 0)[..5]);
    // Past the marker: only the sites first reached later (coverage), then the end.
    let kinds: Vec<_> = records[at + 1..]
        .iter()
        .map(|r| match r {
            Record::Site { site, .. } => format!("site {:?}", site.kind),
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(kinds, ["site Return", "End { events: 5, hits: [] }"]);
}

#[test]
fn coverage_mode_writes_only_sites() {
    if in_child() {
        println!("RESULT={}", sum_positive(&[-1, -2]));
        return;
    }
    let env = vec![(ENV_TRACE_MODE, "coverage")];
    let run = Child {
        trace: true,
        env,
        ..Child::default()
    }
    .run("coverage_mode_writes_only_sites");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let records = run.records();
    assert!(matches!(&records[0], Record::Header { mode, .. } if mode == "coverage"));
    assert_eq!(
        records.last(),
        Some(&Record::End {
            events: 0,
            hits: vec![]
        })
    );
    let kinds: Vec<SiteKind> = records[1..records.len() - 1]
        .iter()
        .map(|r| match r {
            Record::Site { site, .. } => site.kind,
            other => panic!("not a site: {other:?}"),
        })
        .collect();
    // The `+=` is never reached: no positive element.
    use SiteKind::*;
    assert_eq!(kinds, [Fn, Let, Loop, If, Return]);
}

#[test]
fn coverage_under_a_plan_counts_each_site_s_instances() {
    if in_child() {
        println!("RESULT={}", sum_positive(&[3, -1, 4]));
        return;
    }
    let plan = Plan {
        version: PLAN_VERSION,
        fuel: Some(1_000),
        ..Plan::default()
    };
    let run = Child {
        trace: true,
        plan: Some(plan),
        env: vec![(ENV_TRACE_MODE, "coverage")],
        ..Child::default()
    }
    .run("coverage_under_a_plan_counts_each_site_s_instances");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let records = run.records();
    let kinds: BTreeMap<u32, SiteKind> = records
        .iter()
        .filter_map(|r| match r {
            Record::Site { id, site } => Some((*id, site.kind)),
            _ => None,
        })
        .collect();
    let Some(Record::End { events: 0, hits }) = records.last() else {
        panic!("{:?}", records.last());
    };
    let counted: BTreeMap<SiteKind, u32> =
        hits.iter().map(|h| (kinds[&h.site], h.instances)).collect();
    // Three elements: three iterations, three `if`s, two additions; one `let`, one return.
    use SiteKind::*;
    let expected = BTreeMap::from([
        (Fn, 0),
        (Let, 1),
        (Loop, 3),
        (If, 3),
        (Compound, 2),
        (Return, 1),
    ]);
    assert_eq!(counted, expected);
}

#[test]
fn a_malformed_plan_stops_the_process() {
    if in_child() {
        println!("RESULT={}", sum_positive(&[1]));
        return;
    }
    let run = Child {
        trace: true,
        plan_text: Some("{\"version\": 1, \"flips\": 3}"),
        ..Child::default()
    }
    .run("a_malformed_plan_stops_the_process");
    assert_eq!(run.code, Some(CONFIG_EXIT_CODE), "{}", run.stderr);
    assert!(run.results().is_empty());
    assert!(run.stderr.contains("malformed plan file"), "{}", run.stderr);
    assert!(run.stderr.contains("plan.json"), "{}", run.stderr);
    assert!(
        run.stderr.contains("invalid type: integer `3`"),
        "{}",
        run.stderr
    );
    let bad_mode = vec![(ENV_TRACE_MODE, "everything")];
    let run = Child {
        trace: true,
        env: bad_mode,
        ..Child::default()
    }
    .run("a_malformed_plan_stops_the_process");
    assert_eq!(run.code, Some(CONFIG_EXIT_CODE), "{}", run.stderr);
    assert!(run.stderr.contains("everything"), "{}", run.stderr);
}

#[test]
fn threads_share_one_trace() {
    if in_child() {
        let workers: Vec<_> = (0..4)
            .map(|_| std::thread::spawn(|| (0..10).map(|_| sum_positive(&[1, 2, 3])).sum::<i32>()))
            .collect();
        let total: i32 = workers.into_iter().map(|w| w.join().unwrap()).sum();
        println!("RESULT={total}");
        return;
    }
    let run = Child {
        trace: true,
        ..Child::default()
    }
    .run("threads_share_one_trace");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.results(), ["240"]);
    let sites = run.sites();
    assert_eq!(sites.len(), 6, "each site declared once");
    let id = |kind| *sites.iter().find(|(_, s)| s.kind == kind).unwrap().0;
    let if_id = id(SiteKind::If);
    // The threads' scopes of `s += x` interleave in one cache; restored in file order, each
    // is one a call of `sum_positive(&[1, 2, 3])` has: (0, 1), (1, 2) or (3, 3), summing
    // to the recorded value.
    let add_id = id(SiteKind::Compound);
    let raw = run.raw.as_deref().unwrap();
    assert!(
        raw.iter()
            .any(|r| matches!(r, Record::ComponentDelta { site, .. } if *site == add_id))
    );
    let mut adds = 0;
    for r in run.records() {
        let Record::Component {
            site, value, scope, ..
        } = r
        else {
            continue;
        };
        if *site != add_id {
            continue;
        }
        adds += 1;
        let [
            (s_name, Value::Int { v: s, .. }),
            (x_name, Value::Int { v: x, .. }),
        ] = &scope[..]
        else {
            panic!("scope {scope:?}")
        };
        assert_eq!((s_name.as_str(), x_name.as_str()), ("s", "x"));
        assert!([(0, 1), (1, 2), (3, 3)].contains(&(*s, *x)), "{scope:?}");
        assert_eq!(value, &int(s + x));
    }
    assert_eq!(adds, 120);
    let mut instances: Vec<u32> = run
        .records()
        .iter()
        .filter_map(|r| match r {
            Record::Branch { site, instance, .. } if *site == if_id => Some(*instance),
            _ => None,
        })
        .collect();
    instances.sort();
    assert_eq!(instances, (0..120).collect::<Vec<_>>());
}
