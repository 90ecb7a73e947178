//! Traces: reading the raw JSON-lines stream an instrumented test process writes, and the
//! forms the recorded traces of failing tests (and of passing tests that reach the same code)
//! take in `autodebug.out/traces/` (the recorder, in `engine`, writes them).

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use autodebug_runtime::protocol::{self, DeltaCache, Record, SiteInfo, SiteKey};
use serde::Serialize;

use crate::model::{Outcome, Role, TestId};

/// Version of the files the tool writes from traces (`traces/*.json`, `coverage.json`). Their
/// events are whole records (no deltas: [`RawTrace::read`] restores them), so they
/// stay at 1 while the raw stream ([`protocol::TRACE_VERSION`]) moves on.
pub const STORED_VERSION: u32 = 1;

/// The sites a test reached, by identity.
pub type Coverage = BTreeMap<SiteKey, SiteInfo>;

/// Writes `value` as JSON to `path` (plans, traces, batches, the spectrum).
pub fn write_json(path: &Path, value: &impl Serialize) -> Result<()> {
    let json = serde_json::to_vec(value).context("could not serialize")?;
    std::fs::write(path, json).with_context(|| format!("could not write {}", path.display()))
}

/// The sites a coverage-mode trace says its test reached (empty if the file is missing:
/// the test reached no instrumented code).
pub fn read_coverage(path: &Path) -> Coverage {
    let Ok(file) = std::fs::File::open(path) else {
        return Coverage::new();
    };
    BufReader::new(file)
        .lines()
        .map_while(Result::ok)
        .filter_map(|line| match serde_json::from_str::<Record>(&line) {
            Ok(Record::Site { site, .. }) => Some((site.key(), site)),
            _ => None,
        })
        .collect()
}

/// A raw trace as read back from its file.
#[derive(Debug, Default)]
pub struct RawTrace {
    /// Sites by id.
    pub sites: BTreeMap<u32, SiteInfo>,
    /// Every record but headers and site declarations, in order.
    pub events: Vec<Record>,
    /// The events held are not all the run's: the runtime's cap was reached (its
    /// `Truncated` record is among the events), or the reader kept only the first ones.
    pub truncated: bool,
    /// The records of `events` the file held, kept or not (the run's length, which the
    /// candidates' fuel is counted from).
    pub written: u64,
    /// The runtime's cap was reached.
    pub capped: bool,
    /// The `End` record is there: the process exited normally.
    pub complete: bool,
    /// Lines that could not be read (a process killed mid-write leaves at most one).
    pub unreadable_lines: usize,
    /// A `coverage` trace: sites and outcome, no events.
    pub coverage: bool,
    /// Instances counted per reached site, when the trace tells (a `coverage` trace of a
    /// run under a plan): how often a point was reached without its events. Empty when
    /// unknown.
    pub hits: BTreeMap<u32, u32>,
}

impl RawTrace {
    /// Records the run wrote (kept or not).
    pub fn length(&self) -> u64 {
        self.written.max(self.events.len() as u64)
    }

    /// The run's whole length, when the file held all of it (the runtime's cap not
    /// reached; the reader may have kept the first events only).
    pub fn whole_length(&self) -> Option<u64> {
        let known = !self.capped && (!self.truncated || self.written > 0);
        known.then(|| self.length())
    }

    /// The `Enter` records of the calls open at event `at` (entered before it and not yet
    /// exited), outermost first.
    pub fn open_calls(&self, at: usize) -> Vec<&Record> {
        let mut open: Vec<&Record> = Vec::new();
        for event in &self.events[..at.min(self.events.len())] {
            match event {
                Record::Enter { .. } => open.push(event),
                Record::Exit { .. } => {
                    open.pop();
                }
                _ => {}
            }
        }
        open
    }

    /// How many events sites `ids` have in this trace: counted from the events of an
    /// `events` trace, or from the instance counts of a `coverage` trace that has them.
    /// `None` when the trace cannot tell.
    pub fn reached(&self, ids: &[u32]) -> Option<usize> {
        if !self.coverage {
            return Some(
                self.events
                    .iter()
                    .filter(|e| record_site(e).is_some_and(|s| ids.contains(&s)))
                    .count(),
            );
        }
        if self.hits.is_empty() {
            return None;
        }
        Some(
            ids.iter()
                .map(|id| self.hits.get(id).copied().unwrap_or(0) as usize)
                .sum(),
        )
    }

    /// Reads a raw trace file, its deltas restored: every `Component`, `Enter` and `Branch`
    /// event is whole (the scope, the arguments, the operands), as the rest of the tool
    /// expects. A trace of a
    /// version this tool does not know is an error (the instrumented crate's runtime is
    /// newer than the tool).
    pub fn read(path: &Path) -> Result<RawTrace> {
        RawTrace::read_keeping(path, u64::MAX)
    }

    /// [`RawTrace::read`], holding only the first `keep` event records (and the `End`
    /// record): the rest are counted in [`RawTrace::written`] and the trace is
    /// `truncated`, with a `Truncated` record after the last one kept.
    pub fn read_keeping(path: &Path, keep: u64) -> Result<RawTrace> {
        let file = std::fs::File::open(path)
            .with_context(|| format!("could not open trace {}", path.display()))?;
        let mut trace = RawTrace::default();
        let mut scopes = DeltaCache::default();
        let mut kept = 0;
        for line in BufReader::new(file).lines() {
            let line = line.with_context(|| format!("could not read trace {}", path.display()))?;
            if line.trim().is_empty() {
                continue;
            }
            match serde_json::from_str::<Record>(&line).map(|r| scopes.restore(r)) {
                Ok(Ok(Record::Header { version, mode, .. })) => {
                    if !(1..=protocol::TRACE_VERSION).contains(&version) {
                        bail!(
                            "trace {} has version {version}; this cargo-autodebug reads \
                             versions 1 to {} (is the crate's autodebug-runtime newer than \
                             the tool?)",
                            path.display(),
                            protocol::TRACE_VERSION
                        );
                    }
                    trace.coverage = mode == "coverage";
                }
                Ok(Ok(Record::Site { id, site })) => {
                    trace.sites.insert(id, site);
                }
                Ok(Ok(record)) => {
                    trace.written += 1;
                    match &record {
                        Record::Truncated { .. } => {
                            trace.capped = true;
                            // The reader's own marker stands for it.
                            if !std::mem::replace(&mut trace.truncated, true) {
                                trace.events.push(record);
                            }
                        }
                        Record::End { hits, .. } => {
                            trace.complete = true;
                            trace.hits = hits.iter().map(|h| (h.site, h.instances)).collect();
                            trace.events.push(record);
                        }
                        _ if kept < keep => {
                            kept += 1;
                            trace.events.push(record);
                        }
                        _ => {
                            if !std::mem::replace(&mut trace.truncated, true) {
                                trace.events.push(Record::Truncated { events: kept });
                            }
                        }
                    }
                }
                // A torn last line, or a delta whose earlier record was unreadable.
                Ok(Err(_)) | Err(_) => trace.unreadable_lines += 1,
            }
        }
        Ok(trace)
    }
}

/// The site an event record is about (branch, component, iteration and contract events;
/// function entries and exits are not counted as reaching a point).
pub fn record_site(record: &Record) -> Option<u32> {
    match record {
        Record::Branch { site, .. }
        | Record::Component { site, .. }
        | Record::Iteration { site, .. }
        | Record::Contract { site, .. } => Some(*site),
        _ => None,
    }
}

/// A site in a stored trace: the runtime's description plus its path relative to the
/// workspace root (`file` stays as the compiler saw it, since plans name sites by it).
#[derive(Debug, Serialize)]
pub struct StoredSite {
    pub id: u32,
    pub path: String,
    #[serde(flatten)]
    pub site: SiteInfo,
}

impl StoredSite {
    /// The site with its columns in the user's file.
    pub fn in_user_columns(mut self, columns: &dyn UserColumns) -> StoredSite {
        let site = &mut self.site;
        site.column = columns.user_column(&self.path, site.line, site.column);
        site.end_column = columns.user_column(&self.path, site.end_line, site.end_column);
        self
    }
}

/// Where a column of the build's files is in the user's: zero-annotation mode builds an
/// annotated copy whose inserted attributes move the columns after them. What the run writes
/// to the output directory (traces, the coverage) is in the user's columns.
pub trait UserColumns: Sync {
    /// The user's column of `column` on `line` of `file` (relative to the workspace root).
    fn user_column(&self, file: &str, line: u32, column: u32) -> u32;
}

/// `outcome` with its panic location in the user's columns.
pub fn outcome_to_user(outcome: &Outcome, columns: &dyn UserColumns) -> Outcome {
    let mut outcome = outcome.clone();
    if let Outcome::Failed {
        location: Some(location),
        ..
    } = &mut outcome
    {
        location.column = columns.user_column(&location.file, location.line, location.column);
    }
    outcome
}

/// `events` with the panics' locations in the user's columns (`None` when no event has one).
pub fn events_to_user(events: &[Record], columns: &dyn UserColumns) -> Option<Vec<Record>> {
    if !events.iter().any(|e| matches!(e, Record::Panic { .. })) {
        return None;
    }
    let mut events = events.to_vec();
    for event in &mut events {
        match event {
            Record::Panic {
                file, line, column, ..
            } => *column = columns.user_column(file, *line, *column),
            Record::Callers { frames } => {
                for f in frames {
                    f.column = columns.user_column(&f.file, f.line, f.column);
                }
            }
            _ => {}
        }
    }
    Some(events)
}

/// A trace as written to `autodebug.out/traces/`: the site table, then the events.
#[derive(Debug, Serialize)]
pub struct StoredTrace<'a> {
    pub version: u32,
    pub test: &'a TestId,
    pub role: Role,
    pub outcome: &'a Outcome,
    pub complete: bool,
    pub truncated: bool,
    pub sites: Vec<StoredSite>,
    pub events: &'a [Record],
}

/// A recorded trace, read back, with the test it belongs to.
#[derive(Debug)]
pub struct RecordedTrace {
    pub test: TestId,
    pub role: Role,
    pub outcome: Outcome,
    pub trace: RawTrace,
}

/// `trace` as the failing trace of a test `p::t` that crashed (for the techniques' tests).
#[cfg(test)]
pub(crate) fn failing_test_trace(trace: RawTrace) -> RecordedTrace {
    RecordedTrace {
        test: TestId {
            package: "p".into(),
            target: "p".into(),
            kind: "lib".into(),
            name: "t".into(),
            binary: Default::default(),
            package_root: Default::default(),
        },
        role: Role::Failing,
        outcome: Outcome::Crashed {
            description: String::new(),
        },
        trace,
    }
}

/// A site's file (as the compiler saw it: relative to the workspace root, or absolute for
/// crates outside it) relative to the workspace root.
pub fn workspace_path(workspace_root: &Path, file: &str) -> String {
    let path = PathBuf::from(file);
    let absolute = if path.is_absolute() {
        path
    } else {
        workspace_root.join(path)
    };
    absolute
        .strip_prefix(workspace_root)
        .unwrap_or(&absolute)
        .display()
        .to_string()
}

/// One test's spectrum: its outcome and the sites it reached.
#[derive(Debug, Serialize)]
pub struct TestSpectrum<'a> {
    pub test: &'a TestId,
    pub outcome: &'static str,
    /// Ids of the sites reached (into [`SpectrumFile::sites`]).
    pub sites: Vec<u32>,
}

/// `autodebug.out/coverage.json`: which sites every test of the baseline reached — the
/// program spectrum that spectrum-based ranking works from.
#[derive(Debug, Serialize)]
pub struct SpectrumFile<'a> {
    pub version: u32,
    pub sites: Vec<StoredSite>,
    pub tests: Vec<TestSpectrum<'a>>,
}

/// Builds the spectrum of a baseline: one site table for all tests, ids from 1 in site order.
pub fn spectrum<'a>(
    workspace_root: &Path,
    tests: impl Iterator<Item = (&'a TestId, &'a Outcome, &'a Coverage)> + Clone,
) -> SpectrumFile<'a> {
    let mut table: BTreeMap<&SiteKey, &SiteInfo> = BTreeMap::new();
    for (_, _, coverage) in tests.clone() {
        table.extend(coverage.iter());
    }
    let ids: BTreeMap<&SiteKey, u32> = table
        .keys()
        .enumerate()
        .map(|(i, k)| (*k, i as u32 + 1))
        .collect();
    SpectrumFile {
        version: STORED_VERSION,
        sites: table
            .iter()
            .map(|(key, site)| StoredSite {
                id: ids[key],
                path: workspace_path(workspace_root, &site.file),
                site: (*site).clone(),
            })
            .collect(),
        tests: tests
            .map(|(test, outcome, coverage)| TestSpectrum {
                test,
                outcome: outcome.label(),
                sites: coverage.keys().map(|k| ids[k]).collect(),
            })
            .collect(),
    }
}

/// Chooses the passing tests whose traces are worth recording: those reaching sites the
/// failing tests reach, most shared sites first, at most `limit`.
pub fn passing_tests_to_record<'a>(
    failing_coverage: &BTreeSet<SiteKey>,
    passing: impl Iterator<Item = (&'a TestId, &'a Coverage)>,
    limit: usize,
) -> Vec<TestId> {
    let mut shared: Vec<(usize, &TestId)> = passing
        .map(|(test, coverage)| {
            let shared = coverage
                .keys()
                .filter(|k| failing_coverage.contains(*k))
                .count();
            (shared, test)
        })
        .filter(|(n, _)| *n > 0)
        .collect();
    shared.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.name.cmp(&b.1.name)));
    shared
        .into_iter()
        .take(limit)
        .map(|(_, t)| t.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use autodebug_runtime::protocol::{SiteKind, Value};

    fn key(line: u32) -> SiteKey {
        SiteKey {
            file: "src/lib.rs".into(),
            line,
            column: 5,
            kind: SiteKind::If,
        }
    }

    fn site(line: u32) -> SiteInfo {
        SiteInfo {
            file: "src/lib.rs".into(),
            line,
            column: 5,
            end_line: line,
            end_column: 10,
            kind: SiteKind::If,
            code: "a < b".into(),
            function: "m::f".into(),
        }
    }

    fn coverage(lines: &[u32]) -> Coverage {
        lines.iter().map(|&l| (key(l), site(l))).collect()
    }

    fn test(name: &str) -> TestId {
        TestId {
            package: "p".into(),
            target: "p".into(),
            kind: "lib".into(),
            name: name.into(),
            binary: PathBuf::new(),
            package_root: PathBuf::new(),
        }
    }

    #[test]
    fn passing_tests_ranked_by_shared_sites() {
        let failing: BTreeSet<SiteKey> = [key(1), key(2), key(3)].into();
        let (a, b, c) = (test("a"), test("b"), test("c"));
        let cov_a = coverage(&[1]);
        let cov_b = coverage(&[1, 2, 9]);
        let cov_c = coverage(&[9]);
        let chosen = passing_tests_to_record(
            &failing,
            [(&a, &cov_a), (&b, &cov_b), (&c, &cov_c)].into_iter(),
            5,
        );
        let names: Vec<&str> = chosen.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["b", "a"]);
        let chosen = passing_tests_to_record(&failing, [(&a, &cov_a), (&b, &cov_b)].into_iter(), 1);
        assert_eq!(chosen.len(), 1);
    }

    #[test]
    fn spectrum_shares_one_site_table() {
        let (a, b) = (test("a"), test("b"));
        let (cov_a, cov_b) = (coverage(&[2, 1]), coverage(&[2, 7]));
        let failed = Outcome::Failed {
            message: "boom".into(),
            location: None,
        };
        let spectrum = spectrum(
            Path::new("/w"),
            [(&a, &Outcome::Passed, &cov_a), (&b, &failed, &cov_b)].into_iter(),
        );
        let lines: Vec<u32> = spectrum.sites.iter().map(|s| s.site.line).collect();
        assert_eq!(lines, [1, 2, 7]);
        assert_eq!(spectrum.sites[0].path, "src/lib.rs");
        assert_eq!(spectrum.tests[0].sites, [1, 2]);
        assert_eq!(
            (
                spectrum.tests[1].outcome,
                spectrum.tests[1].sites.as_slice()
            ),
            ("failed", &[2, 3][..])
        );
    }

    fn int(v: i128) -> Value {
        Value::Int {
            ty: "i32".into(),
            v,
        }
    }

    fn lines(records: &[Record]) -> String {
        let lines: Vec<String> = records
            .iter()
            .map(|r| serde_json::to_string(r).unwrap())
            .collect();
        lines.join("\n")
    }

    fn header(version: u32) -> Record {
        Record::Header {
            version,
            mode: "events".into(),
            pid: 1,
        }
    }

    #[test]
    fn deltas_read_back_as_whole_records() {
        use protocol::DeltaValue::{Full, Int};
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let text = |v: &str| Value::Str {
            v: v.into(),
            truncated: false,
        };
        let byte = |v: i128| Value::Int { ty: "u8".into(), v };
        let scope = |a: Value, b: i128, c: Value| -> Vec<(String, Value)> {
            vec![("a".into(), a), ("b".into(), int(b)), ("c".into(), c)]
        };
        let component = |site, instance, value, scope| Record::Component {
            site,
            instance,
            value,
            overridden: false,
            scope,
        };
        let delta = |site, instance, value, changed| Record::ComponentDelta {
            site,
            instance,
            value,
            overridden: false,
            changed,
        };
        let branch = |instance, operands| Record::Branch {
            site: 3,
            instance,
            outcome: true,
            flipped: false,
            operands,
        };
        let branch_delta = |instance, operands| Record::BranchDelta {
            site: 3,
            instance,
            outcome: true,
            flipped: false,
            operands,
        };
        let args = |x: i128| vec![("xs".to_string(), int(x)), ("n".to_string(), int(7))];
        let written = [
            header(protocol::TRACE_VERSION),
            Record::Site {
                id: 1,
                site: site(3),
            },
            Record::Site {
                id: 2,
                site: site(4),
            },
            Record::Site {
                id: 3,
                site: site(5),
            },
            Record::Enter {
                site: 1,
                args: args(1),
            },
            component(2, 0, int(0), scope(int(1), 2, text("x"))),
            // Only `b` changes (a number standing for an `i32`, as the value), then nothing,
            // then `a` and `c`, `a` to a value of another type.
            delta(2, 1, Int(10), vec![(1, Int(20))]),
            delta(2, 2, Int(20), vec![]),
            Record::EnterDelta {
                site: 1,
                changed: vec![(0, Int(5))],
            },
            delta(
                2,
                3,
                Full(byte(1)),
                vec![(0, Full(byte(9))), (2, Full(text("y")))],
            ),
            // A number stands for a value of the type of the one it replaces, now `u8`.
            delta(2, 4, Int(2), vec![(0, Int(8))]),
            branch(0, vec![int(1), byte(2)]),
            branch_delta(1, vec![Int(-1), Full(Value::Unit)]),
            // A scope naming other variables is written whole, and later deltas build on it.
            component(2, 5, int(0), vec![("z".into(), int(0))]),
            delta(2, 6, Int(1), vec![(0, Int(-1))]),
            // Unrestorable: a delta of a site with nothing before it, of a binding out of
            // range, a number in place of a string or of nothing.
            delta(9, 0, Int(0), vec![]),
            delta(2, 7, Int(0), vec![(1, Int(0))]),
            branch_delta(2, vec![Int(3), Int(4)]),
            branch_delta(3, vec![Int(3), Full(Value::Unit), Int(4)]),
            Record::End {
                events: 10,
                hits: vec![],
            },
        ];
        std::fs::write(&path, lines(&written)).unwrap();
        let trace = RawTrace::read(&path).unwrap();
        assert_eq!(trace.unreadable_lines, 4);
        assert!(trace.complete);
        assert_eq!(
            trace.events,
            [
                Record::Enter {
                    site: 1,
                    args: args(1)
                },
                component(2, 0, int(0), scope(int(1), 2, text("x"))),
                component(2, 1, int(10), scope(int(1), 20, text("x"))),
                component(2, 2, int(20), scope(int(1), 20, text("x"))),
                Record::Enter {
                    site: 1,
                    args: args(5)
                },
                component(2, 3, byte(1), scope(byte(9), 20, text("y"))),
                component(2, 4, byte(2), scope(byte(8), 20, text("y"))),
                branch(0, vec![int(1), byte(2)]),
                branch(1, vec![int(-1), Value::Unit]),
                component(2, 5, int(0), vec![("z".into(), int(0))]),
                component(2, 6, int(1), vec![("z".into(), int(-1))]),
                Record::End {
                    events: 10,
                    hits: vec![]
                },
            ]
        );
    }

    #[test]
    fn a_trace_of_an_unknown_version_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        std::fs::write(&path, lines(&[header(protocol::TRACE_VERSION + 1)])).unwrap();
        let error = RawTrace::read(&path).unwrap_err().to_string();
        assert!(error.contains("has version 3"), "{error}");
        // Version 1, without deltas, reads as before.
        std::fs::write(&path, lines(&[header(1)])).unwrap();
        assert!(RawTrace::read(&path).is_ok());
    }

    #[test]
    fn raw_trace_survives_a_torn_last_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let site = site(3);
        let lines = [
            serde_json::to_string(&Record::Header {
                version: 1,
                mode: "events".into(),
                pid: 1,
            })
            .unwrap(),
            serde_json::to_string(&Record::Site {
                id: 1,
                site: site.clone(),
            })
            .unwrap(),
            serde_json::to_string(&Record::Branch {
                site: 1,
                instance: 0,
                outcome: true,
                flipped: false,
                operands: vec![],
            })
            .unwrap(),
            "{\"r\":\"branch\",\"si".to_string(),
        ];
        std::fs::write(&path, lines.join("\n")).unwrap();
        let trace = RawTrace::read(&path).unwrap();
        assert_eq!(trace.sites.len(), 1);
        assert_eq!(trace.events.len(), 1);
        assert_eq!(trace.unreadable_lines, 1);
        assert!(!trace.complete);
        assert_eq!(read_coverage(&path), coverage(&[3]));
    }
}
