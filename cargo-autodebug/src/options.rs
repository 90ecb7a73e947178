//! The command line of `cargo autodebug`: cargo's usual selectors plus the tool's own knobs.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Parser, ValueEnum};

use crate::localize::spectrum::Formula;
use crate::localize::switching::Order;

/// Automated debugging for red tests: finds the failing tests, records what they did, and
/// (as techniques land) names the faulty statement and a validated fix.
#[derive(Parser, Debug, Clone)]
#[command(name = "cargo-autodebug", bin_name = "cargo autodebug", version)]
pub struct Options {
    /// Only tests whose name contains this string (as `cargo test NAME`).
    pub test_name: Option<String>,

    /// Path to Cargo.toml.
    #[arg(long, value_name = "PATH")]
    pub manifest_path: Option<PathBuf>,

    /// Package(s) to debug.
    #[arg(short = 'p', long = "package", value_name = "SPEC")]
    pub packages: Vec<String>,

    /// Only the library's unit tests.
    #[arg(long)]
    pub lib: bool,

    /// Only the named integration test target(s).
    #[arg(long = "test", value_name = "NAME")]
    pub test_targets: Vec<String>,

    /// Number of tests run at once [default: available cores].
    #[arg(short = 'j', long, value_name = "N")]
    pub jobs: Option<usize>,

    /// Per-test timeout in seconds; a test running longer is killed and reported as hanging.
    #[arg(long, value_name = "SECS", default_value_t = 60.0)]
    pub timeout: f64,

    /// How many times a failing test is rerun to tell a flaky failure from a deterministic one.
    #[arg(long, value_name = "N", default_value_t = 2)]
    pub reruns: usize,

    /// Record traces of at most this many passing tests that reach the failing tests' code.
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub passing_traces: usize,

    /// Cap on the events of one trace (a truncation marker is written past it).
    #[arg(long, value_name = "N", default_value_t = autodebug_runtime::protocol::DEFAULT_MAX_EVENTS)]
    pub max_events: u64,

    /// Formula of the spectrum ranking.
    #[arg(long, value_enum, default_value_t = Formula::Ochiai)]
    pub spectrum: Formula,

    /// Order in which predicate switching flips branch instances: last executed first,
    /// by dependence distance from the erroneous value, or both (both counts reported).
    #[arg(long, value_enum, default_value_t = Order::Prior)]
    pub switching_order: Order,

    /// Keep switching after the first critical predicate (every one found is sliced).
    #[arg(long)]
    pub all_critical: bool,

    /// Cap on the switched reruns of one failing test (per ordering).
    #[arg(long, value_name = "N", default_value_t = 200)]
    pub max_switches: usize,

    /// Run every test under this switch/override plan (JSON, see the runtime's `Plan`).
    #[arg(long, value_name = "FILE")]
    pub plan: Option<PathBuf>,

    /// Directory for the report, traces and logs [default: autodebug.out in the workspace root].
    #[arg(short = 'o', long, value_name = "DIR")]
    pub output: Option<PathBuf>,

    /// Directory for the instrumented build [default: autodebug/ in the workspace's target dir].
    #[arg(long, value_name = "DIR")]
    pub target_dir: Option<PathBuf>,

    /// Instrument code nobody annotated: `auto` runs packages that do not use the runtime in a
    /// scratch copy where every function carries `#[autodebug]`; `never` builds the tree as
    /// it is.
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = Annotate::Auto)]
    pub annotate: Annotate,

    /// Stop after localization: no candidate fixes.
    #[arg(long)]
    pub no_fix: bool,

    /// Top suspects a fix is searched for (critical predicates are searched as well).
    #[arg(long, value_name = "N", default_value_t = 5)]
    pub fix_suspects: usize,

    /// Cap on the candidate fixes considered (each checked by rerunning the tests).
    #[arg(long, value_name = "N", default_value_t = 200)]
    pub max_candidates: usize,

    /// Cap on the patched builds (each candidate that passes the reruns is rebuilt and the
    /// suite run before it is called validated).
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub max_rebuilds: usize,

    /// Stop repairing after this many validated fixes.
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub max_fixes: usize,

    /// Time budget of the repair stage, in seconds (a rebuild under way finishes).
    #[arg(long, value_name = "SECS", default_value_t = 300.0)]
    pub repair_timeout: f64,

    /// Also rebuild the candidates the reruns refuted (a benchmark of rebuilding against
    /// rerunning on the same candidates; slow).
    #[arg(long, hide = true)]
    pub rebuild_all: bool,

    /// Write the top validated fix into the source tree (refuses a tree with uncommitted
    /// changes unless --allow-dirty, and a file changed since the analysis).
    #[arg(long)]
    pub apply: bool,

    /// Allow --apply on a tree with uncommitted changes.
    #[arg(long)]
    pub allow_dirty: bool,

    /// Output on stdout: a human summary, or the report as JSON.
    #[arg(long, value_enum, default_value_t = MessageFormat::Human)]
    pub message_format: MessageFormat,

    /// Show more of what is going on.
    #[arg(short = 'v', long)]
    pub verbose: bool,
}

/// When the tool adds the instrumentation attribute itself.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Annotate {
    /// When a selected package does not use the runtime (zero-annotation mode).
    Auto,
    /// Never: only what the user annotated is instrumented.
    Never,
}

/// What goes to stdout.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum MessageFormat {
    /// A summary for people.
    Human,
    /// The report as one JSON document.
    Json,
}

impl Options {
    /// Parses the process arguments, accepting both `cargo autodebug …` (where cargo passes
    /// `autodebug` as the first argument) and `cargo-autodebug …`.
    pub fn from_env() -> Options {
        let mut args: Vec<std::ffi::OsString> = std::env::args_os().collect();
        if args.get(1).is_some_and(|a| a == "autodebug") {
            args.remove(1);
        }
        Options::parse_from(args)
    }

    /// The per-test timeout.
    pub fn test_timeout(&self) -> Duration {
        Duration::from_secs_f64(self.timeout.max(0.1))
    }

    /// The bounds of the repair stage.
    pub fn repair_limits(&self) -> crate::repair::Limits {
        crate::repair::Limits {
            suspects: self.fix_suspects,
            candidates: self.max_candidates,
            rebuilds: self.max_rebuilds,
            fixes: self.max_fixes.max(1),
            time: Duration::from_secs_f64(self.repair_timeout.max(0.0)),
            rebuild_all: self.rebuild_all,
        }
    }

    /// Tests run at once.
    pub fn jobs(&self) -> usize {
        self.jobs
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
            .max(1)
    }
}
