//! The values a suspect's site had: in the failing call, and in the calls the tests accepted
//! (the other calls of a failing test whose assertions held, and every call of a recorded
//! passing test), read back from the traces stored in the output directory.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use autodebug_runtime::protocol::{Binding, Record, SiteInfo, Value};
use serde::Deserialize;

use crate::model::{OracleEntry, Report, Role, TraceSummary};
use crate::oracle::assertion::describe;
use crate::oracle::calls::{Call, End, top_level_calls};
use crate::trace::RawTrace;

/// A site by its place: file (relative to the workspace root), line and column.
pub type Place = (String, u32, u32);

/// Instances of a site shown per call.
const INSTANCES_PER_CALL: usize = 4;
/// Calls shown per site and side (failing, accepted).
const CALLS_PER_SIDE: usize = 3;
/// Characters of one value.
const VALUE_WIDTH: usize = 60;
/// Traces larger than this are not read for the page (a trace at the event cap is hundreds
/// of megabytes; the page shows a few instances per call).
const MAX_TRACE_BYTES: u64 = 16 << 20;

/// What a site did in one call.
#[derive(Debug, Clone, PartialEq)]
pub struct Seen {
    /// The call as people write it (`max([1, 2, 3])`).
    pub call: String,
    /// The test that made it.
    pub test: String,
    /// One line per instance, in order.
    pub instances: Vec<String>,
    /// Instances past those shown.
    pub more: usize,
}

/// The values of one site.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct SiteValues {
    pub failing: Vec<Seen>,
    pub accepted: Vec<Seen>,
}

/// What the stored traces say.
#[derive(Debug, Default)]
pub struct Observed {
    /// The values of the sites asked for.
    pub values: BTreeMap<Place, SiteValues>,
    /// Lines of each file that have a site in some trace (the instrumented lines reached).
    pub lines: BTreeMap<String, BTreeSet<u32>>,
}

/// A trace file as the recorder writes it (the fields read here).
#[derive(Deserialize)]
struct StoredFile {
    sites: Vec<StoredSite>,
    events: Vec<Record>,
}

#[derive(Deserialize)]
struct StoredSite {
    id: u32,
    path: String,
    #[serde(flatten)]
    site: SiteInfo,
}

/// Reads the report's stored traces and collects the values of the sites at `places`.
/// Traces that cannot be read are left out (the page says what it has).
pub fn observe(report: &Report, output_dir: &Path, places: &BTreeSet<Place>) -> Observed {
    let mut observed = Observed::default();
    for summary in &report.traces {
        let path = output_dir.join(&summary.path);
        if std::fs::metadata(&path).map_or(true, |m| m.len() > MAX_TRACE_BYTES) {
            continue;
        }
        let Some(stored) = std::fs::read(&path)
            .ok()
            .and_then(|bytes| serde_json::from_slice::<StoredFile>(&bytes).ok())
        else {
            continue;
        };
        let mut paths: BTreeMap<u32, String> = BTreeMap::new();
        let mut trace = RawTrace::default();
        for s in stored.sites {
            let lines = observed.lines.entry(s.path.clone()).or_default();
            lines.extend(s.site.line..=s.site.end_line.max(s.site.line));
            paths.insert(s.id, s.path);
            trace.sites.insert(s.id, s.site);
        }
        trace.events = stored.events;
        let oracle = report.oracles.iter().find(|o| o.test == summary.test);
        for call in top_level_calls(&trace) {
            let Some(side) = side_of(&call, summary, oracle) else {
                continue;
            };
            record_call(
                &mut observed.values,
                &trace,
                &paths,
                places,
                &call,
                side,
                summary,
            );
        }
    }
    observed
}

/// Whether a call is the failing one (`Some(true)`), one the test accepted (`Some(false)`),
/// or one the test did not judge.
fn side_of(call: &Call, summary: &TraceSummary, oracle: Option<&OracleEntry>) -> Option<bool> {
    if summary.role == Role::Passing {
        return Some(false);
    }
    match oracle.and_then(|o| o.call) {
        Some(failing) if failing == call.index => Some(true),
        Some(_) => {
            let oracle = oracle?;
            let accepted = oracle.accepted_calls.iter().any(|c| c.call == call.index)
                || oracle
                    .later_calls
                    .iter()
                    .any(|c| c.accepted && c.call.call == call.index);
            accepted.then_some(false)
        }
        // No oracle names the call: the one a panic went through failed.
        None => (call.end != End::Returned).then_some(true),
    }
}

/// The events of `call` at the sites asked for, added to their values.
fn record_call(
    values: &mut BTreeMap<Place, SiteValues>,
    trace: &RawTrace,
    paths: &BTreeMap<u32, String>,
    places: &BTreeSet<Place>,
    call: &Call,
    failing: bool,
    summary: &TraceSummary,
) {
    let mut seen: BTreeMap<Place, Seen> = BTreeMap::new();
    for event in &trace.events[call.events.clone()] {
        let Some(id) = crate::trace::record_site(event) else {
            continue;
        };
        let (Some(site), Some(path)) = (trace.sites.get(&id), paths.get(&id)) else {
            continue;
        };
        let place = (path.clone(), site.line, site.column);
        if !places.contains(&place) {
            continue;
        }
        let Some(text) = instance_text(event, site) else {
            continue;
        };
        let entry = seen.entry(place).or_insert_with(|| Seen {
            call: call.shown(),
            test: summary.test.clone(),
            instances: Vec::new(),
            more: 0,
        });
        if entry.instances.len() < INSTANCES_PER_CALL {
            entry.instances.push(text);
        } else {
            entry.more += 1;
        }
    }
    for (place, one) in seen {
        let site = values.entry(place).or_default();
        let side = if failing {
            &mut site.failing
        } else {
            &mut site.accepted
        };
        if side.len() < CALLS_PER_SIDE && !side.iter().any(|s| s.call == one.call) {
            side.push(one);
        }
    }
}

/// One instance of a site in words: a branch's operands and outcome, a component's value and
/// the variables in scope, a contract's verdict.
fn instance_text(event: &Record, site: &SiteInfo) -> Option<String> {
    match event {
        Record::Branch {
            outcome,
            operands,
            flipped,
            ..
        } => {
            let flipped = if *flipped { " (flipped)" } else { "" };
            let operands = match (operands.as_slice(), comparison_sides(&site.code)) {
                ([l, r], Some((left, right))) => {
                    format!("{left} = {}, {right} = {} ", value(l), value(r))
                }
                ([], _) => String::new(),
                (all, _) => format!(
                    "operands {} ",
                    all.iter().map(value).collect::<Vec<_>>().join(", ")
                ),
            };
            Some(format!("{operands}→ {outcome}{flipped}"))
        }
        Record::Component {
            value: v, scope, ..
        } => {
            let mut text = format!("= {}", value(v));
            if !scope.is_empty() {
                text.push_str(&format!("   (in scope: {})", bindings(scope)));
            }
            Some(text)
        }
        Record::Contract { ok, .. } => Some(if *ok { "holds" } else { "violated" }.to_string()),
        _ => None,
    }
}

/// `name = value, …`.
fn bindings(scope: &[Binding]) -> String {
    scope
        .iter()
        .map(|(name, v)| format!("{name} = {}", value(v)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A value cut to [`VALUE_WIDTH`] characters.
fn value(v: &Value) -> String {
    let text = describe(v);
    if text.chars().count() <= VALUE_WIDTH {
        return text;
    }
    let cut: String = text.chars().take(VALUE_WIDTH - 1).collect();
    format!("{cut}…")
}

/// The two sides of a comparison written at the top level of `code` (`s > a[i]` →
/// `s`, `a[i]`), when it is one comparison and nothing else.
pub fn comparison_sides(code: &str) -> Option<(&str, &str)> {
    let operators = top_level_operators(code)?;
    match operators.as_slice() {
        [(at, op)] if COMPARISONS.contains(op) => {
            let (left, right) = (code[..*at].trim(), code[at + op.len() + 2..].trim());
            (!left.is_empty() && !right.is_empty()).then_some((left, right))
        }
        _ => None,
    }
}

const COMPARISONS: [&str; 6] = ["<=", ">=", "==", "!=", "<", ">"];

/// The binary operators written with spaces around them outside any bracket of `code`
/// (byte offset of the space before, operator); `None` for code with a string or char
/// literal, which this scan does not read.
fn top_level_operators(code: &str) -> Option<Vec<(usize, &'static str)>> {
    let mut found = Vec::new();
    let mut depth = 0i32;
    for (i, c) in code.char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            '"' | '\'' => return None,
            ' ' if depth == 0 => {
                let rest = &code[i + 1..];
                if let Some(op) = COMPARISONS
                    .iter()
                    .chain(&["&&", "||"])
                    .find(|op| rest.starts_with(*op) && rest[op.len()..].starts_with(' '))
                {
                    found.push((i, *op));
                }
            }
            _ => {}
        }
    }
    Some(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_comparison_is_split_at_its_top_level_operator() {
        assert_eq!(comparison_sides("s > a[i]"), Some(("s", "a[i]")));
        assert_eq!(comparison_sides("f(a < b) <= n"), Some(("f(a < b)", "n")));
        assert_eq!(comparison_sides("a < b && c > d"), None);
        assert_eq!(comparison_sides("is_ok(x)"), None);
        assert_eq!(comparison_sides("s == \"<\""), None);
    }
}
