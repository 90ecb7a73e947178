//! The calls a test made itself: the calls of instrumented functions at depth 0 of its trace
//! (made from the test's own code, not from other instrumented code), each with its
//! arguments, the value it returned and the range of events it spans.

use std::ops::Range;

use autodebug_runtime::protocol::{Binding, Record, SiteKind, Value};
use serde::Serialize;

use super::assertion::describe;
use crate::trace::RawTrace;

/// One top-level call of a trace.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    /// Its position among the test's top-level calls (0-based).
    pub index: usize,
    /// The function's `Fn` site (its id in the trace).
    pub site: u32,
    /// The function's path (`module::path::name`).
    pub function: String,
    /// Its events in the trace, from its `Enter` to its `Exit` included (to the end of the
    /// trace when it never exited).
    pub events: Range<usize>,
    /// The argument values at entry.
    pub args: Vec<Binding>,
    /// The value it returned (none when its function returns `()`, or it did not return).
    pub returned: Option<Returned>,
    /// How it ended.
    pub end: End,
}

/// The value a call returned: the instance of the `Return` site that produced it, which a
/// plan can override.
#[derive(Debug, Clone, PartialEq)]
pub struct Returned {
    /// The `Return` site (id in the trace).
    pub site: u32,
    /// The instance of that site.
    pub instance: u32,
    pub value: Value,
}

/// How a call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum End {
    /// It returned.
    Returned,
    /// A panic unwound through it.
    Panicked,
    /// The trace ends inside it (cut at the event cap, or the process died).
    Unfinished,
}

impl Call {
    /// The function's own name (the last segment of its path).
    pub fn name(&self) -> &str {
        self.function.rsplit("::").next().unwrap_or(&self.function)
    }

    /// The call as people write it: `triple(3)`.
    pub fn shown(&self) -> String {
        let args: Vec<String> = self
            .args
            .iter()
            .map(|(_, value)| shorten(&describe(value), 24))
            .collect();
        format!("{}({})", self.name(), args.join(", "))
    }
}

/// `text` cut to about `max` characters, with `…` where it was cut; a sequence is cut
/// after a whole element and keeps its closing bracket.
fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let cut: String = text.chars().take(max - 1).collect();
    if text.starts_with('[')
        && let Some(end) = cut.rfind(", ")
    {
        return format!("{}, …]", &cut[..end]);
    }
    format!("{cut}…")
}

/// The top-level calls of `trace`, in order.
pub fn top_level_calls(trace: &RawTrace) -> Vec<Call> {
    let mut calls: Vec<Call> = Vec::new();
    let mut depth = 0usize;
    for (i, event) in trace.events.iter().enumerate() {
        match event {
            Record::Enter { site, args } => {
                if depth == 0 {
                    calls.push(Call {
                        index: calls.len(),
                        site: *site,
                        function: trace
                            .sites
                            .get(site)
                            .map(|s| s.function.clone())
                            .unwrap_or_default(),
                        events: i..trace.events.len(),
                        args: args.clone(),
                        returned: None,
                        end: End::Unfinished,
                    });
                }
                depth += 1;
            }
            Record::Exit { panicking, .. } if depth > 0 => {
                depth -= 1;
                if depth == 0
                    && let Some(call) = calls.last_mut()
                {
                    call.events.end = i + 1;
                    call.end = if *panicking {
                        End::Panicked
                    } else {
                        End::Returned
                    };
                }
            }
            // The call's own `Return` (a nested call's is deeper).
            Record::Component {
                site,
                instance,
                value,
                ..
            } if depth == 1
                && trace
                    .sites
                    .get(site)
                    .is_some_and(|s| s.kind == SiteKind::Return) =>
            {
                if let Some(call) = calls.last_mut() {
                    call.returned = Some(Returned {
                        site: *site,
                        instance: *instance,
                        value: value.clone(),
                    });
                }
            }
            _ => {}
        }
    }
    calls
}

/// How many instrumented calls are in progress at event `at` of `trace`.
pub fn depth_at(trace: &RawTrace, at: usize) -> usize {
    let mut depth = 0usize;
    for event in &trace.events[..at.min(trace.events.len())] {
        match event {
            Record::Enter { .. } => depth += 1,
            Record::Exit { .. } => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    depth
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use autodebug_runtime::protocol::SiteInfo;

    pub(crate) fn site(line: u32, kind: SiteKind, function: &str) -> SiteInfo {
        SiteInfo {
            file: "src/lib.rs".into(),
            line,
            column: 5,
            end_line: line,
            end_column: 9,
            kind,
            code: format!("code{line}"),
            function: format!("fixture::{function}"),
        }
    }

    pub(crate) fn int(v: i128) -> Value {
        Value::Int {
            ty: "i32".into(),
            v,
        }
    }

    pub(crate) fn enter(site: u32, x: i128) -> Record {
        Record::Enter {
            site,
            args: vec![("x".into(), int(x))],
        }
    }

    pub(crate) fn ret(site: u32, instance: u32, v: i128) -> Record {
        Record::Component {
            site,
            instance,
            value: int(v),
            overridden: false,
            scope: vec![],
        }
    }

    pub(crate) fn exit(site: u32, panicking: bool) -> Record {
        Record::Exit { site, panicking }
    }

    /// `f` (sites 1, 2) calls `g` (sites 3, 4): the test calls `f(1)`, `g(5)`, then `f(2)`,
    /// which returns 20, and fails.
    pub(crate) fn trace() -> RawTrace {
        let mut trace = RawTrace::default();
        trace.sites.insert(1, site(1, SiteKind::Fn, "f"));
        trace.sites.insert(2, site(2, SiteKind::Return, "f"));
        trace.sites.insert(3, site(5, SiteKind::Fn, "g"));
        trace.sites.insert(4, site(6, SiteKind::Return, "g"));
        trace.events = vec![
            enter(1, 1),
            enter(3, 1),
            ret(4, 0, 2),
            exit(3, false),
            ret(2, 0, 10),
            exit(1, false),
            enter(3, 5),
            ret(4, 1, 6),
            exit(3, false),
            enter(1, 2),
            enter(3, 2),
            ret(4, 2, 3),
            exit(3, false),
            ret(2, 1, 20),
            exit(1, false),
        ];
        trace
    }

    #[test]
    fn nested_calls_are_not_top_level_and_returns_are_the_calls_own() {
        let calls = top_level_calls(&trace());
        let summary: Vec<(usize, &str, Range<usize>, Option<i128>)> = calls
            .iter()
            .map(|c| {
                let v = c.returned.as_ref().map(|r| match r.value {
                    Value::Int { v, .. } => v,
                    _ => unreachable!(),
                });
                (c.index, c.name(), c.events.clone(), v)
            })
            .collect();
        assert_eq!(
            summary,
            [
                (0, "f", 0..6, Some(10)),
                (1, "g", 6..9, Some(6)),
                (2, "f", 9..15, Some(20)),
            ]
        );
        assert_eq!(calls[2].returned.as_ref().unwrap().instance, 1);
        assert_eq!(calls[2].returned.as_ref().unwrap().site, 2);
        assert!(calls.iter().all(|c| c.end == End::Returned));
        assert_eq!(calls[1].shown(), "g(5)");
    }

    #[test]
    fn a_panic_unwinds_through_the_calls() {
        let mut trace = trace();
        trace.events.truncate(11);
        trace.events.push(Record::Panic {
            message: "index out of bounds".into(),
            file: "src/lib.rs".into(),
            line: 6,
            column: 9,
            thread: "t".into(),
        });
        trace.events.push(exit(3, true));
        trace.events.push(exit(1, true));
        let calls = top_level_calls(&trace);
        assert_eq!(calls[2].end, End::Panicked);
        assert_eq!(calls[2].events, 9..14);
        assert_eq!(calls[2].returned, None);
        assert_eq!(depth_at(&trace, 11), 2);
        assert_eq!(depth_at(&trace, 9), 0);
        // Cut inside the call: it never ends.
        trace.events.truncate(12);
        let calls = top_level_calls(&trace);
        assert_eq!(
            (calls[2].end, calls[2].events.clone()),
            (End::Unfinished, 9..12)
        );
    }

    #[test]
    fn long_arguments_are_shortened() {
        let mut call = top_level_calls(&trace()).remove(0);
        call.args = vec![(
            "s".into(),
            Value::Str {
                v: "a".repeat(40),
                truncated: false,
            },
        )];
        let shown = call.shown();
        assert_eq!(shown.chars().count(), "f()".len() + 24);
        assert!(shown.ends_with("…)"), "{shown}");
        let items = (0..20).map(int).collect::<Vec<_>>();
        call.args = vec![(
            "v".into(),
            Value::Seq {
                items: items.clone(),
                len: 20,
            },
        )];
        assert_eq!(call.shown(), "f([0, 1, 2, 3, 4, 5, 6, …])");
        call.args = vec![("v".into(), Value::Seq { items, len: 100 })];
        assert_eq!(call.shown(), "f([0, 1, 2, 3, 4, 5, 6, …])");
    }
}
