//! The traces `cargo autodebug` recorded on the example crates (`encode_fixtures/`, read as
//! `encode_recorded.rs` reads them), turned into the calls a repair is checked against: the
//! failing test's call with the oracle stage's expected value, the calls it accepted, and
//! every call of the passing tests.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::Path;

use autodebug_runtime::protocol::{Record, SiteInfo, SiteKey, SiteKind, Value};
use autodebug_symbolic::conflicts::Role;
use autodebug_symbolic::encode::{Call, CallTrace, Concrete, Spec};
use autodebug_symbolic::ir::Program;
use serde::Deserialize;

#[derive(Deserialize)]
pub struct Stored {
    pub test: StoredTest,
    pub role: String,
    pub outcome: StoredOutcome,
    pub sites: Vec<StoredSite>,
    pub events: Vec<Record>,
}

#[derive(Deserialize)]
pub struct StoredTest {
    pub name: String,
}

#[derive(Deserialize)]
pub struct StoredOutcome {
    #[serde(default)]
    pub message: Option<String>,
}

#[derive(Deserialize)]
pub struct StoredSite {
    pub id: u32,
    #[serde(flatten)]
    pub site: SiteInfo,
}

#[derive(Deserialize)]
struct OracleEntry {
    test: String,
    call: Option<usize>,
    kind: Option<String>,
    #[serde(default)]
    expected: Option<Value>,
    #[serde(default)]
    accepted_calls: Vec<Accepted>,
}

#[derive(Deserialize)]
struct Accepted {
    call: usize,
}

/// Where `fault.json` puts the fault.
#[derive(Deserialize)]
pub struct Fault {
    pub line: u32,
    pub column: u32,
    pub original: String,
    pub faulty: String,
}

/// One example: its program, its fault, its traces with their site tables.
pub struct Example {
    pub program: Program,
    pub fault: Fault,
    pub traces: Vec<(Stored, BTreeMap<u32, SiteInfo>)>,
    oracles: Vec<OracleEntry>,
}

/// What a call of a trace is, before it borrows the trace.
pub struct Planned {
    pub trace: usize,
    pub events: std::ops::Range<usize>,
    pub test: String,
    pub role: Role,
    pub function: String,
    pub spec: Spec,
}

pub fn load(example: &str) -> Example {
    let fixtures = Path::new("tests/encode_fixtures").join(example);
    let source = std::fs::read_to_string(format!("../examples/{example}/src/lib.rs")).unwrap();
    let fault: Fault = serde_json::from_str(
        &std::fs::read_to_string(format!("../examples/{example}/fault.json")).unwrap(),
    )
    .unwrap();
    let program = Program::from_source(&source, "src/lib.rs").unwrap();
    let oracles: Vec<OracleEntry> =
        serde_json::from_str(&std::fs::read_to_string(fixtures.join("oracles.json")).unwrap())
            .unwrap();
    let mut paths: Vec<_> = std::fs::read_dir(&fixtures)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().is_some_and(|n| n != "oracles.json"))
        .collect();
    paths.sort();
    let traces = paths
        .iter()
        .map(|p| {
            let stored: Stored =
                serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap();
            let sites = stored
                .sites
                .iter()
                .map(|s| (s.id, s.site.clone()))
                .collect();
            (stored, sites)
        })
        .collect();
    Example {
        program,
        fault,
        traces,
        oracles,
    }
}

/// The top-level calls of a trace: `Enter` to `Exit` (inclusive) at depth 0.
pub fn top_level_calls(events: &[Record]) -> Vec<std::ops::Range<usize>> {
    let mut calls = Vec::new();
    let mut depth = 0usize;
    let mut start = 0usize;
    for (i, e) in events.iter().enumerate() {
        match e {
            Record::Enter { .. } => {
                if depth == 0 {
                    start = i;
                }
                depth += 1;
            }
            Record::Exit { .. } if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    calls.push(start..i + 1);
                }
            }
            _ => {}
        }
    }
    calls
}

fn expected_side(message: &str) -> Option<&str> {
    let at = message.rfind("\n right: ")?;
    Some(message[at + "\n right: ".len()..].trim())
}

impl Example {
    /// The calls of the traces whose file name contains one of `only` (all when empty).
    pub fn plan(&self, only: &[&str]) -> Vec<Planned> {
        let mut out = Vec::new();
        for (t, (stored, sites)) in self.traces.iter().enumerate() {
            if !only.is_empty() && !only.iter().any(|o| stored.test.name.contains(o)) {
                continue;
            }
            let calls = top_level_calls(&stored.events);
            let mut todo: Vec<(usize, Role, Spec)> = Vec::new();
            if stored.role == "failing" {
                let entry = self
                    .oracles
                    .iter()
                    .find(|o| o.test.ends_with(&stored.test.name))
                    .expect("every failing test has an oracle");
                let Some(at) = entry.call else { continue };
                let function = self.function_of(stored, sites, calls[at].start);
                let ret_ty = self.program.function(&function).map(|f| f.ret_ty.clone());
                let expected = match (entry.kind.as_deref(), &entry.expected) {
                    (Some("returns"), Some(v)) => Some(Concrete::from_value(v)),
                    (Some("returns"), None) => stored
                        .outcome
                        .message
                        .as_deref()
                        .and_then(expected_side)
                        .zip(ret_ty.as_ref())
                        .and_then(|(text, ty)| Concrete::from_debug(text, ty, &self.program)),
                    _ => None,
                };
                todo.push((at, Role::Failing, Spec::failing(expected)));
                for accepted in &entry.accepted_calls {
                    todo.push((accepted.call, Role::Passing, Spec::accepted()));
                }
            } else {
                for at in 0..calls.len() {
                    todo.push((at, Role::Passing, Spec::accepted()));
                }
            }
            for (at, role, spec) in todo {
                let range = calls[at].clone();
                out.push(Planned {
                    trace: t,
                    function: self.function_of(stored, sites, range.start),
                    events: range,
                    test: format!("{} call {at}", stored.test.name),
                    role,
                    spec,
                });
            }
        }
        out
    }

    fn function_of(&self, stored: &Stored, sites: &BTreeMap<u32, SiteInfo>, at: usize) -> String {
        match &stored.events[at] {
            Record::Enter { site, .. } => sites[site].function.clone(),
            _ => String::new(),
        }
    }

    /// The calls `plan` describes, borrowing the traces.
    pub fn calls(&self, plan: &[Planned]) -> Vec<Call<'_>> {
        plan.iter()
            .map(|p| {
                let (stored, sites) = &self.traces[p.trace];
                Call {
                    test: p.test.clone(),
                    role: p.role,
                    function: p.function.clone(),
                    args: Vec::new(),
                    trace: Some(CallTrace {
                        sites,
                        events: &stored.events[p.events.clone()],
                    }),
                    spec: p.spec.clone(),
                }
            })
            .collect()
    }

    /// The site of the fault, as the encoder's components name it.
    pub fn fault_site(&self) -> SiteKey {
        for f in &self.program.functions {
            for c in f.components() {
                if c.site.span.start.line == self.fault.line
                    && c.site.span.start.column == self.fault.column
                    && c.site.kind != SiteKind::Operand
                {
                    return SiteKey {
                        file: self.program.file.clone(),
                        line: c.site.span.start.line,
                        column: c.site.span.start.column,
                        kind: c.site.kind,
                    };
                }
            }
        }
        panic!("the fault is not a component");
    }
}

/// A value of a replacement expression, for checking candidates in tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum V {
    Int(i128),
    Bool(bool),
}

/// Evaluates a replacement over named values (mathematical integers: the tests' numbers
/// are small), with `original` as [`Expr::Original`] and the operands named `#0` and `#1`
/// in `env`. `None` where it cannot.
pub fn eval(
    e: &autodebug_runtime::protocol::Expr,
    env: &[(&str, V)],
    original: Option<V>,
) -> Option<V> {
    use autodebug_runtime::protocol::{BinOp as B, Expr, UnOp};
    Some(match e {
        Expr::Lit { value } => match value {
            Value::Int { v, .. } => V::Int(*v),
            Value::Bool(b) => V::Bool(*b),
            _ => return None,
        },
        Expr::Var { name } => env.iter().find(|(n, _)| n == name)?.1,
        Expr::Original => original?,
        Expr::Operand { index } => env.iter().find(|(n, _)| *n == format!("#{index}"))?.1,
        Expr::Unary { op, arg } => match (op, eval(arg, env, original)?) {
            (UnOp::Neg, V::Int(v)) => V::Int(-v),
            (UnOp::Not, V::Bool(b)) => V::Bool(!b),
            _ => return None,
        },
        Expr::Cast { arg, .. } => eval(arg, env, original)?,
        Expr::Method { .. } => return None,
        Expr::Binary { op, left, right } => {
            let l = eval(left, env, original)?;
            let r = eval(right, env, original)?;
            match (l, r) {
                (V::Int(a), V::Int(b)) => match op {
                    B::Add => V::Int(a + b),
                    B::Sub => V::Int(a - b),
                    B::Mul => V::Int(a * b),
                    B::Div if b != 0 => V::Int(a / b),
                    B::Rem if b != 0 => V::Int(a % b),
                    B::Eq => V::Bool(a == b),
                    B::Ne => V::Bool(a != b),
                    B::Lt => V::Bool(a < b),
                    B::Le => V::Bool(a <= b),
                    B::Gt => V::Bool(a > b),
                    B::Ge => V::Bool(a >= b),
                    _ => return None,
                },
                (V::Bool(a), V::Bool(b)) => match op {
                    B::And | B::BitAnd => V::Bool(a && b),
                    B::Or | B::BitOr => V::Bool(a || b),
                    B::Eq => V::Bool(a == b),
                    B::Ne | B::BitXor => V::Bool(a != b),
                    _ => return None,
                },
                _ => return None,
            }
        }
    })
}
