//! The paper's Figure 2 program, searched from its failing run `⟨1, 3, 5, 6, 7, 10⟩`: the
//! candidate runs must come out in the order of Table 2.

use autodebug_runtime::protocol::{Binding, SiteKind, Value};

use super::*;
use crate::encode::{Concrete, Expected};

/// Figure 2, line for line: `if (a)` is line 6 here, `if (b)` 9, `if (c)` 12, `if (d)` 13.
const FIGURE_2: &str = "use autodebug_runtime::autodebug;
#[autodebug]
pub fn fig2(a: bool, b: bool, c: bool, d: bool) -> i32 {
    let mut i = 0;
    let mut j = 0;
    if a {
        i = i + 1;
    }
    if b {
        j = j + 1;
    }
    let mut k = 0;
    if c {
        if d {
            k = k + 1;
        } else {
            k = k + 2;
        }
    }
    i + j + k
}
";

/// The paper's line of a branch of Figure 2 here.
fn paper_line(line: u32) -> u32 {
    match line {
        6 => 1,
        9 => 3,
        13 => 5,
        14 => 6,
        other => panic!("no branch at line {other}"),
    }
}

fn site(program: &Program, line: u32, kind: SiteKind) -> autodebug_runtime::protocol::SiteKey {
    let f = program.function("fig2").unwrap();
    f.sites()
        .into_iter()
        .find(|s| s.span.start.line == line && s.kind == kind)
        .map(|s| autodebug_runtime::protocol::SiteKey {
            file: program.file.clone(),
            line,
            column: s.span.start.column,
            kind,
        })
        .unwrap()
}

/// The events of `fig2(a, b, c, d)` as the instrumentation records them, and its value.
fn native(program: &Program, args: [bool; 4]) -> (Vec<Step>, i32) {
    let [a, b, c, d] = args;
    let entry = site(program, 3, SiteKind::Fn);
    let br = |line, o| Step {
        stmt: site(program, line, SiteKind::If),
        kind: Kind::Branch(o),
    };
    let mut steps = vec![
        Step {
            stmt: entry,
            kind: Kind::Entry,
        },
        br(6, a),
        br(9, b),
        br(13, c),
    ];
    if c {
        steps.push(br(14, d));
    }
    let k = match (c, d) {
        (true, true) => 1,
        (true, false) => 2,
        _ => 0,
    };
    (steps, i32::from(a) + i32::from(b) + k)
}

/// The statements a run of Figure 2 executes, in the paper's numbering.
fn paper_run(path: &[String]) -> Vec<u32> {
    let mut out = Vec::new();
    for step in path {
        let mut parts = step.split([':', ' ']);
        let line: u32 = parts.next().unwrap().parse().unwrap();
        let _column = parts.next();
        let outcome = parts.next().unwrap();
        if outcome == "entry" {
            continue;
        }
        let l = paper_line(line);
        out.push(l);
        match (l, outcome) {
            (1, "true") => out.push(2),
            (3, "true") => out.push(4),
            (6, "true") => out.push(7),
            (6, "false") => out.push(9),
            _ => {}
        }
    }
    out.push(10);
    out
}

fn args_of(bindings: &[Binding]) -> [bool; 4] {
    let get = |n: &str| {
        bindings
            .iter()
            .find(|(name, _)| name == n)
            .map(|(_, v)| *v == Value::Bool(true))
            .unwrap()
    };
    [get("a"), get("b"), get("c"), get("d")]
}

/// Runs Figure 2 natively; successful when it returns `want` (never, with `None`).
struct Native<'p> {
    program: &'p Program,
    want: Option<i32>,
    runs: Vec<[bool; 4]>,
}

impl Runner for Native<'_> {
    fn rerun(&mut self, arguments: &[Binding]) -> Rerun {
        let args = args_of(arguments);
        self.runs.push(args);
        let (path, ret) = native(self.program, args);
        Rerun {
            successful: Some(ret) == self.want,
            path: Some(path),
            detail: format!("returned {ret}"),
        }
    }
}

fn problem<'p>(program: &'p Program, recorded: &'p [Binding], ret: Expected) -> Problem<'p> {
    let (failing, _) = native(program, [false, false, true, true]);
    Problem {
        program,
        function: "fig2".into(),
        recorded_args: recorded,
        failing,
        ended_by_panic: false,
        spec: Spec {
            contracts: true,
            no_panic: true,
            ret,
        },
        override_sequences: false,
    }
}

fn recorded() -> Vec<Binding> {
    [("a", false), ("b", false), ("c", true), ("d", true)]
        .into_iter()
        .map(|(n, v)| (n.to_string(), Value::Bool(v)))
        .collect()
}

#[test]
fn figure_2_candidates_come_in_the_order_of_table_2() {
    let program = Program::from_source(FIGURE_2, "src/lib.rs").unwrap();
    let recorded = recorded();
    let mut runner = Native {
        program: &program,
        want: None,
        runs: Vec::new(),
    };
    let report = generate(
        &problem(&program, &recorded, Expected::Nothing),
        &Options::default(),
        &mut runner,
    )
    .unwrap();
    assert!(report.found.is_none());
    let table: Vec<(Vec<u32>, Vec<u32>)> = report
        .tried
        .iter()
        .map(|t| {
            (
                t.distance.iter().map(|d| paper_line(d.site.line)).collect(),
                paper_run(&t.path),
            )
        })
        .collect();
    let table_2: Vec<(Vec<u32>, Vec<u32>)> = vec![
        (vec![6], vec![1, 3, 5, 6, 9, 10]),
        (vec![3, 6], vec![1, 3, 4, 5, 6, 9, 10]),
        (vec![1, 3, 6], vec![1, 2, 3, 4, 5, 6, 9, 10]),
        (vec![1, 6], vec![1, 2, 3, 5, 6, 9, 10]),
        (vec![5], vec![1, 3, 5, 10]),
        (vec![3, 5], vec![1, 3, 4, 5, 10]),
        (vec![1, 3, 5], vec![1, 2, 3, 4, 5, 10]),
        (vec![1, 5], vec![1, 2, 3, 5, 10]),
        (vec![3], vec![1, 3, 4, 5, 6, 7, 10]),
        (vec![1, 3], vec![1, 2, 3, 4, 5, 6, 7, 10]),
        (vec![1], vec![1, 2, 3, 5, 6, 7, 10]),
    ];
    assert_eq!(table, table_2);
    // Every candidate was feasible, rerun with arguments that drive it.
    assert_eq!(report.reruns, 11);
    assert_eq!(report.diverged, 0);
    for (args, t) in runner.runs.iter().zip(&report.tried) {
        let (path, _) = native(&program, *args);
        let shown: Vec<String> = path
            .iter()
            .map(|s| match s.kind {
                Kind::Branch(o) => format!("{}:{} {o}", s.stmt.line, s.stmt.column),
                _ => format!("{}:{} entry", s.stmt.line, s.stmt.column),
            })
            .collect();
        assert_eq!(shown, t.path);
    }
}

#[test]
fn the_search_stops_at_the_first_successful_run() {
    let program = Program::from_source(FIGURE_2, "src/lib.rs").unwrap();
    let recorded = recorded();
    let mut runner = Native {
        program: &program,
        want: Some(3),
        runs: Vec::new(),
    };
    let report = generate(
        &problem(&program, &recorded, Expected::Value(Concrete::Int(3))),
        &Options::default(),
        &mut runner,
    )
    .unwrap();
    let found = report.found.expect("a successful run");
    // 3 = i + j + k: the closest run returning it is ⟨3, 6⟩ (`b`, and `d` false: 0 + 1 + 2),
    // second in Table 2; the model predicts that ⟨6⟩ (returning 2) fails and does not
    // rerun it.
    let lines: Vec<u32> = found
        .distance
        .iter()
        .map(|d| paper_line(d.site.line))
        .collect();
    assert_eq!(lines, [3, 6]);
    assert_eq!(args_of(&found.inputs), [false, true, true, false]);
    assert_eq!(report.reruns, 1);
    assert_eq!(report.predicted_failing, 1);
    assert_eq!(report.tried.len(), 2);
}
