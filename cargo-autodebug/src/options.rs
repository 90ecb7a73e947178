//! The command line of `cargo autodebug`: cargo's usual selectors plus the tool's own knobs.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::Duration;

use clap::parser::ValueSource;
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
use serde::Serialize;

/// Automated debugging for red tests: runs the suite, records what the failing tests did,
/// names the faulty statement with the evidence, and proposes a fix it has rebuilt and
/// retested.
#[derive(Parser, Debug, Clone)]
#[command(
    name = "cargo-autodebug",
    bin_name = "cargo autodebug",
    version,
    disable_help_subcommand = true
)]
pub struct Options {
    /// Another command than debugging.
    #[command(subcommand)]
    pub command: Option<Command>,

    /// Only tests whose name contains this string (as `cargo test NAME`; a test filter that
    /// is a command's name goes after `--`).
    pub test_name: Option<String>,

    /// Arguments for the test binaries, as `cargo test -- ARGS` takes them: test name
    /// filters, `--exact`, `--skip PATTERN`, `--include-ignored`, `--ignored`.
    #[arg(last = true, value_name = "ARGS")]
    pub test_args: Vec<String>,

    /// Path to Cargo.toml.
    #[arg(help_heading = "Manifest Options", long, value_name = "PATH")]
    pub manifest_path: Option<PathBuf>,

    /// Package(s) to debug.
    #[arg(
        help_heading = "Package Selection",
        short = 'p',
        long = "package",
        value_name = "SPEC"
    )]
    pub packages: Vec<String>,

    /// Debug every member of the workspace (`--exclude NAME` then leaves a member out, as
    /// cargo's does; other `--exclude` values keep their meaning: code not instrumented).
    #[arg(long, help_heading = "Package Selection")]
    pub workspace: bool,

    /// Only the library's unit tests.
    #[arg(long, help_heading = "Target Selection")]
    pub lib: bool,

    /// Only the named integration test target(s).
    #[arg(help_heading = "Target Selection", long = "test", value_name = "NAME")]
    pub test_targets: Vec<String>,

    /// Number of tests run at once [default: available cores].
    #[arg(help_heading = "Test Runs", short = 'j', long, value_name = "N",
          value_parser = at_least_one, allow_negative_numbers = true)]
    pub jobs: Option<usize>,

    /// Per-test timeout in seconds; a test running longer is killed and reported as hanging.
    #[arg(
        help_heading = "Test Runs",
        long,
        value_name = "SECS",
        default_value_t = 60.0,
        value_parser = positive_seconds,
        allow_negative_numbers = true
    )]
    pub timeout: f64,

    /// How many times a failing test is rerun to tell a flaky failure from a deterministic one.
    #[arg(
        help_heading = "Test Runs",
        long,
        value_name = "N",
        default_value_t = 2
    )]
    pub reruns: usize,

    /// Record traces of at most this many passing tests that reach the failing tests' code.
    #[arg(
        help_heading = "Test Runs",
        long,
        value_name = "N",
        default_value_t = 20
    )]
    pub passing_traces: usize,

    /// Cap on the events of one trace (a truncation marker is written past it); of a passing
    /// test's trace the tool holds the first tenth.
    #[arg(help_heading = "Test Runs", long, value_name = "N", default_value_t = autodebug_runtime::protocol::DEFAULT_MAX_EVENTS)]
    pub max_events: u64,

    /// Formula of the spectrum ranking.
    #[arg(help_heading = "Localization", long, value_enum, default_value_t = Formula::Ochiai)]
    pub spectrum: Formula,

    /// Order in which predicate switching flips branch instances: last executed first,
    /// by dependence distance from the erroneous value, or both (both counts reported).
    #[arg(help_heading = "Localization", long, value_enum, default_value_t = Order::Prior)]
    pub switching_order: Order,

    /// Keep switching after the first critical predicate (every one found is sliced).
    #[arg(long, help_heading = "Localization")]
    pub all_critical: bool,

    /// Cap on the switched reruns of one failing test (per ordering).
    #[arg(
        help_heading = "Localization",
        long,
        value_name = "N",
        default_value_t = 200
    )]
    pub max_switches: usize,

    /// Cap on the reruns path generation makes for one failing test (each drives the failing
    /// call with the arguments of a generated path).
    #[arg(
        help_heading = "Localization",
        long,
        value_name = "N",
        default_value_t = 20
    )]
    pub pathgen_reruns: usize,

    /// Runs path generation builds per distance at most (the paper's threshold).
    #[arg(
        help_heading = "Localization",
        long,
        value_name = "N",
        default_value_t = 8
    )]
    pub pathgen_paths: usize,

    /// Path generation flips branches of loops too (the paper keeps iteration counts).
    #[arg(long, help_heading = "Localization")]
    pub pathgen_flip_loops: bool,

    /// Time limit of path generation over every failing test, in seconds: a safety net
    /// (the searches are bounded in solver steps and reruns, the same on every machine).
    #[arg(
        help_heading = "Localization",
        long,
        value_name = "SECS",
        default_value_t = 180.0
    )]
    pub pathgen_timeout: f64,

    /// Memory, in MiB beyond the tool's own, the solver may take for one failing test's
    /// diagnosis, one failing test's path generation, or one site's synthesis: each runs its
    /// z3 queries in a process of its own, and past this (or its time limit) that test is
    /// not diagnosed or searched, or that site gets no synthesized candidates, with a note.
    #[arg(
        help_heading = "Solver",
        long,
        value_name = "MIB",
        default_value_t = 1024
    )]
    pub solver_memory: u64,

    /// Run every test under this switch/override plan (JSON, see the runtime's `Plan`).
    #[arg(help_heading = "Test Runs", long, value_name = "FILE")]
    pub plan: Option<PathBuf>,

    /// Directory for the report, traces and logs [default: autodebug.out in the workspace root].
    #[arg(help_heading = "Output", short = 'o', long, value_name = "DIR")]
    pub output: Option<PathBuf>,

    /// Directory for the instrumented build [default: autodebug/ in the workspace's target dir].
    #[arg(help_heading = "Compilation Options", long, value_name = "DIR")]
    pub target_dir: Option<PathBuf>,

    /// Instrument code nobody annotated: `auto` runs in a scratch copy where every function
    /// of packages that do not use the runtime carries `#[autodebug]` and every plain test
    /// can run many plans in one process; `never` builds the tree as it is.
    #[arg(help_heading = "Test Runs", long, value_enum, value_name = "WHEN", default_value_t = Annotate::Auto)]
    pub annotate: Annotate,

    /// Techniques to run, comma-separated.
    #[arg(help_heading = "Localization", long, value_enum, value_delimiter = ',', value_name = "LIST",
          default_values_t = TechniqueName::ALL)]
    pub techniques: Vec<TechniqueName>,

    /// A commit where the failing tests passed (`main`, `HEAD~3`, a hash): the Rust lines
    /// changed since then, among the sites the failing tests ran, are suspects. Without it,
    /// the working tree's uncommitted changes are, when the workspace is in a git repository.
    #[arg(help_heading = "Localization", long, value_name = "REV")]
    pub changed_since: Option<String>,

    /// Paths (globs relative to the workspace root: `src/gen/*.rs`, `vendor/**`) and
    /// functions (`fn:name` or `fn:module::name`) not to instrument or rank; repeatable.
    /// With `--workspace`, a member's name leaves that package out, as cargo's.
    #[arg(
        help_heading = "Localization",
        long = "exclude",
        value_name = "PATTERN"
    )]
    pub exclude_patterns: Vec<String>,

    /// The exclusions in force (`--exclude`, else the configuration's).
    #[arg(skip)]
    pub exclude: Exclusions,

    /// A unified diff (`git diff` output, `-` for stdin): suspects on the lines it changes are
    /// ranked first, and review comments stay on them.
    #[arg(help_heading = "Localization", long, value_name = "FILE")]
    pub in_diff: Option<PathBuf>,

    /// Stop after localization: no candidate fixes.
    #[arg(long, help_heading = "Repair")]
    pub no_fix: bool,

    /// Top suspects a fix is searched for (critical predicates, and up to as many suspects
    /// again that tie with the last, are searched as well).
    #[arg(help_heading = "Repair", long, value_name = "N", default_value_t = 5)]
    pub fix_suspects: usize,

    /// Cap on the candidate fixes considered (each checked by rerunning the tests).
    #[arg(help_heading = "Repair", long, value_name = "N", default_value_t = 200)]
    pub max_candidates: usize,

    /// Cap on the patched builds (each candidate that passes the reruns is rebuilt and the
    /// suite run before it is called validated). Past the queue's first ten candidates,
    /// rebuilds go on only until a fix is validated and within a work budget set by the
    /// crate's size (about 55 rebuilds for a crate of a hundred lines, 10 past 10,000), the
    /// same on a quiet machine and a loaded one.
    #[arg(help_heading = "Repair", long, value_name = "N", default_value_t = 100)]
    pub max_rebuilds: usize,

    /// Stop repairing after this many validated fixes.
    #[arg(help_heading = "Repair", long, value_name = "N", default_value_t = 3)]
    pub max_fixes: usize,

    /// Time budget of the baseline, in seconds, once a test has failed: the tests not run by
    /// then are left out of the analysis and the fixes' validation, and reported as not run
    /// (the tests that take batches run first, tests of their own process last; a test
    /// under way finishes). 0: every test runs.
    #[arg(
        help_heading = "Test Runs",
        long,
        value_name = "SECS",
        default_value_t = 60.0,
        value_parser = non_negative_seconds,
        allow_negative_numbers = true
    )]
    pub baseline_timeout: f64,

    /// Time budget of the repair stage, in seconds (a rebuild under way finishes).
    #[arg(
        help_heading = "Repair",
        long,
        value_name = "SECS",
        default_value_t = 300.0
    )]
    pub repair_timeout: f64,

    /// Run as shard K of N (K from 0): every shard analyses the same failures and makes
    /// its share of the repair queue's rebuilds (split by the candidates' code); `cargo
    /// autodebug merge DIR…` then combines the shards' output directories into the report
    /// one run would have written.
    #[arg(
        help_heading = "Repair",
        long,
        value_name = "K/N",
        conflicts_with = "apply"
    )]
    pub shard: Option<crate::model::Shard>,

    /// Also rebuild the candidates the reruns refuted (a benchmark of rebuilding against
    /// rerunning on the same candidates; slow).
    #[arg(long, hide = true)]
    pub rebuild_all: bool,

    /// Stop after the baseline: the instrumented build and one run of every test, written
    /// to report.json and coverage.json. With `--shard K/N`, the shard's share of the
    /// tests only, also written to baseline.json for `--baseline-from`.
    #[arg(help_heading = "Test Runs", long, conflicts_with = "baseline_from")]
    pub baseline_only: bool,

    /// Take the baseline from the output directories of `--shard K/N --baseline-only` runs
    /// (every shard of one split, on the same commit and selection; comma-separated or the
    /// flag repeated) instead of running it.
    #[arg(
        help_heading = "Test Runs",
        long,
        value_name = "DIR,…",
        value_delimiter = ','
    )]
    pub baseline_from: Vec<PathBuf>,

    /// Write the top validated fix into the source tree: the last report's when the files
    /// are as it saw them (nothing rerun), else after an analysis (refuses a tree with
    /// uncommitted changes unless --allow-dirty, and a file changed since the analysis).
    #[arg(long, help_heading = "Repair")]
    pub apply: bool,

    /// Allow --apply on a tree with uncommitted changes.
    #[arg(long, help_heading = "Repair")]
    pub allow_dirty: bool,

    /// Open report.html in a browser when the run ends (`$BROWSER` when set, as `cargo doc
    /// --open` does, else the system's opener).
    #[arg(long, help_heading = "Output")]
    pub open: bool,

    /// Also write the failing tests, with the diagnosis, as JUnit XML to this file.
    #[arg(long, help_heading = "Output", value_name = "PATH")]
    pub junit: Option<PathBuf>,

    /// Output on stdout: a human summary, or JSON lines (messages as the run goes, then
    /// where the report was written).
    #[arg(help_heading = "Output", long, value_enum, default_value_t = MessageFormat::Human)]
    pub message_format: MessageFormat,

    /// Coloring: auto, always, never (as cargo's; `NO_COLOR` and `CARGO_TERM_COLOR` are read
    /// under auto).
    #[arg(help_heading = "Output", long, value_enum, value_name = "WHEN")]
    pub color: Option<ColorChoice>,

    /// Show more of what is going on, and the reasoning trail in the summary (`-vv`: also the
    /// cargo commands run).
    #[arg(short = 'v', long, action = clap::ArgAction::Count, help_heading = "Output")]
    pub verbose: u8,

    /// No status or progress lines: the warnings, errors and the summary only.
    #[arg(short = 'q', long, conflicts_with = "verbose", help_heading = "Output")]
    pub quiet: bool,

    /// Cargo's feature selection and manifest flags, passed to every build.
    #[command(flatten)]
    pub cargo: CargoFlags,

    /// The arguments given on the command line (their ids): the configuration does not
    /// override them.
    #[arg(skip)]
    pub explicit: BTreeSet<String>,
}

/// The flags of cargo's own that every build of the run takes (the instrumented build and
/// repair's rebuilds), with cargo's names.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct CargoFlags {
    /// Space or comma separated list of features to activate.
    #[arg(
        short = 'F',
        long,
        value_name = "FEATURES",
        help_heading = "Feature Selection"
    )]
    pub features: Vec<String>,

    /// Activate all available features.
    #[arg(long, help_heading = "Feature Selection")]
    pub all_features: bool,

    /// Do not activate the `default` feature.
    #[arg(long, help_heading = "Feature Selection")]
    pub no_default_features: bool,

    /// Assert that `Cargo.lock` will remain unchanged.
    #[arg(long, help_heading = "Manifest Options")]
    pub locked: bool,

    /// Run without accessing the network.
    #[arg(long, help_heading = "Manifest Options")]
    pub offline: bool,

    /// Equivalent to specifying both --locked and --offline.
    #[arg(long, help_heading = "Manifest Options")]
    pub frozen: bool,

    /// `--config KEY=VALUE` settings the tool adds to every cargo command (the runtime it
    /// carries, patched in for a runtime dependency declared by version).
    #[arg(skip)]
    pub config: Vec<String>,
}

impl CargoFlags {
    /// The arguments for a `cargo test`/`cargo build` command line.
    pub fn build_args(&self) -> Vec<String> {
        let mut args = Vec::new();
        if !self.features.is_empty() {
            args.push("--features".to_string());
            args.push(self.features.join(","));
        }
        for (on, flag) in [
            (self.all_features, "--all-features"),
            (self.no_default_features, "--no-default-features"),
        ] {
            if on {
                args.push(flag.to_string());
            }
        }
        args.extend(self.manifest_args());
        args
    }

    /// The arguments every cargo command takes (`cargo metadata` too).
    pub fn manifest_args(&self) -> Vec<String> {
        [
            (self.locked, "--locked"),
            (self.offline, "--offline"),
            (self.frozen, "--frozen"),
        ]
        .into_iter()
        .filter(|(on, _)| *on)
        .map(|(_, flag)| flag.to_string())
        .chain(
            self.config
                .iter()
                .flat_map(|c| ["--config".to_string(), c.clone()]),
        )
        .collect()
    }
}

/// Commands other than debugging.
#[derive(Subcommand, Debug, Clone)]
pub enum Command {
    /// Set a crate up for contracts: add the runtime dependency to its Cargo.toml and an
    /// example contract (commented out) above one of its functions.
    Init(InitOptions),
    /// Combine the output directories of `--shard K/N` runs (all N of them) into one report,
    /// the one an unsharded run would have written.
    Merge(MergeOptions),
    /// Remove what the tool wrote for this workspace: its part of the target directory
    /// (`target/autodebug`), the output directory and its `.old`; with `--cache`, the
    /// per-user cache too.
    Clean(CleanOptions),
}

/// Options of `cargo autodebug clean`.
#[derive(clap::Args, Debug, Clone)]
pub struct CleanOptions {
    /// Path to the workspace's Cargo.toml [default: the one cargo finds from here].
    #[arg(long, value_name = "PATH")]
    pub manifest_path: Option<PathBuf>,

    /// The target directory the runs were given with `--target-dir` (removed only when it
    /// is the tool's).
    #[arg(long, value_name = "DIR")]
    pub target_dir: Option<PathBuf>,

    /// The output directory the runs were given with `-o` (removed only when it is the
    /// tool's).
    #[arg(short = 'o', long = "output", value_name = "DIR")]
    pub output: Option<PathBuf>,

    /// Also remove the per-user cache (the runtime's sources and compiled units, kept
    /// across workspaces; the next run on any workspace builds them again).
    #[arg(long)]
    pub cache: bool,

    /// Say what would be removed, and remove nothing.
    #[arg(short = 'n', long)]
    pub dry_run: bool,

    /// Coloring: auto, always, never.
    #[arg(long, value_enum, value_name = "WHEN")]
    pub color: Option<ColorChoice>,
}

/// Options of `cargo autodebug merge`.
#[derive(clap::Args, Debug, Clone)]
pub struct MergeOptions {
    /// The shards' output directories (each holds a `report.json`).
    #[arg(value_name = "DIR", required = true)]
    pub dirs: Vec<PathBuf>,

    /// Where the merged report goes [default: autodebug.out here].
    #[arg(short = 'o', long = "output", value_name = "DIR")]
    pub output: Option<PathBuf>,

    /// Coloring: auto, always, never.
    #[arg(long, value_enum, value_name = "WHEN")]
    pub color: Option<ColorChoice>,
}

/// Options of `cargo autodebug init`.
#[derive(clap::Args, Debug, Clone)]
pub struct InitOptions {
    /// Path to the crate's Cargo.toml [default: the one cargo finds from here].
    #[arg(long, value_name = "PATH")]
    pub manifest_path: Option<PathBuf>,

    /// The package to set up, in a workspace of several.
    #[arg(short = 'p', long = "package", value_name = "SPEC")]
    pub package: Option<String>,

    /// Edit a tree with uncommitted changes (or not under git).
    #[arg(long)]
    pub allow_dirty: bool,

    /// Copy the runtime's crates into the repository (the default): every clone then builds
    /// with nothing installed.
    #[arg(long, conflicts_with = "git")]
    pub vendor: bool,

    /// Where the copy of the runtime goes, relative to the workspace root (to be
    /// committed: every clone then builds with nothing installed).
    #[arg(
        long,
        value_name = "DIR",
        default_value = "third_party/autodebug",
        conflicts_with = "git"
    )]
    pub vendor_dir: PathBuf,

    /// Take the runtime from this git repository instead of a copy in the crate's own
    /// (every clone then fetches it; no copy to commit).
    #[arg(long, value_name = "URL")]
    pub git: Option<String>,

    /// The tag of `--git` to take [default: v<the tool's version>].
    #[arg(long, value_name = "TAG", requires = "git")]
    pub tag: Option<String>,

    /// Add the runtime to `[dev-dependencies]`: contracts for the crate's own tests only,
    /// written `#[cfg_attr(test, autodebug_runtime::requires(..))]`.
    #[arg(long)]
    pub dev: bool,

    /// Take out what `init` wrote (the dependency, the example contract, the copy of the
    /// runtime and its configuration), leaving every other edit.
    #[arg(long, conflicts_with_all = ["git", "tag"])]
    pub remove: bool,

    /// Coloring: auto, always, never.
    #[arg(long, value_enum, value_name = "WHEN")]
    pub color: Option<ColorChoice>,
}

/// When to colour the output (cargo's `--color`).
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColorChoice {
    /// On a terminal, unless `NO_COLOR` is set and not empty.
    Auto,
    /// Always, even when `NO_COLOR` is set or the output is not a terminal.
    Always,
    /// Never.
    Never,
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
    /// JSON lines: messages as the run goes, then where the report is
    /// (`{"reason":"report","path":…}`).
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
        Options::parse_args(args).unwrap_or_else(|error| error.exit())
    }

    /// Parses `args` (the program name first), remembering which arguments were given.
    pub fn parse_args<I, T>(args: I) -> Result<Options, clap::Error>
    where
        I: IntoIterator<Item = T>,
        T: Into<std::ffi::OsString> + Clone,
    {
        let matches = Options::command().try_get_matches_from(args)?;
        let mut options = Options::from_arg_matches(&matches)?;
        options.explicit = matches
            .ids()
            .filter(|id| matches.value_source(id.as_str()) == Some(ValueSource::CommandLine))
            .map(|id| id.as_str().to_string())
            .collect();
        if !options.exclude_patterns.is_empty() {
            options.exclude = Exclusions::parse(&options.exclude_patterns);
        }
        // Relative paths are the caller's, as cargo reads them: the tool's commands run in
        // other directories (the workspace root, a scratch copy).
        for path in [
            &mut options.manifest_path,
            &mut options.plan,
            &mut options.output,
            &mut options.target_dir,
            &mut options.in_diff,
            &mut options.junit,
        ]
        .into_iter()
        .flatten()
        {
            if let Ok(absolute) = std::path::absolute(&*path) {
                *path = absolute;
            }
        }
        Ok(options)
    }

    /// The argument was given on the command line (by its field name).
    pub fn given(&self, id: &str) -> bool {
        self.explicit.contains(id)
    }

    /// The technique runs (the configuration and `--techniques` allow it).
    pub fn runs(&self, technique: TechniqueName) -> bool {
        self.techniques.contains(&technique)
    }

    /// The per-test timeout.
    pub fn test_timeout(&self) -> Duration {
        Duration::from_secs_f64(self.timeout.max(0.1))
    }

    /// The baseline's budget (`None`: every test runs).
    pub fn baseline_budget(&self) -> Option<Duration> {
        (self.baseline_timeout > 0.0).then(|| Duration::from_secs_f64(self.baseline_timeout))
    }

    /// Tests run at once.
    /// The test binaries' arguments after `--` (and the test name before it), read as
    /// libtest reads them.
    pub fn libtest(&self) -> anyhow::Result<LibtestArgs> {
        LibtestArgs::parse(self.test_name.iter().chain(&self.test_args))
    }

    pub fn jobs(&self) -> usize {
        self.jobs
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
            .max(1)
    }
}

/// The suspiciousness formula.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Formula {
    /// `ef / sqrt(F · (ef + ep))`.
    Ochiai,
    /// DStar with * = 2: `ef² / (ep + (F − ef))`.
    Dstar,
}

/// The order in which branch instances are switched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Order {
    /// Last executed, first switched.
    Lefs,
    /// Instances the erroneous value depends on first, nearest first; then LEFS.
    Prior,
    /// PRIOR, then LEFS over the same reruns (both counts are reported).
    Both,
}

/// A technique that configuration can turn off.
#[derive(ValueEnum, Serialize, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "kebab-case")]
pub enum TechniqueName {
    /// Spectrum ranking (Ochiai or DStar over the baseline's coverage).
    Spectrum,
    /// Predicate switching (flipped branch instances, confirmed by reruns).
    Switching,
    /// Model-based diagnosis (z3 over the failing traces).
    Diagnosis,
    /// Automated path generation (the closest feasible successful run, rerun for real).
    Pathgen,
    /// Candidate fixes, validated by reruns and rebuilds.
    Repair,
    /// The lines changed since a commit where the tests passed (git), among the sites the
    /// failing tests ran.
    History,
}

impl TechniqueName {
    /// Every technique, in pipeline order.
    pub const ALL: [TechniqueName; 6] = [
        TechniqueName::Spectrum,
        TechniqueName::Switching,
        TechniqueName::Diagnosis,
        TechniqueName::Pathgen,
        TechniqueName::Repair,
        TechniqueName::History,
    ];
}

/// Paths and functions that are not instrumented (in zero-annotation mode) or ranked.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Exclusions {
    /// Globs over paths relative to the workspace root (`*` within a component, `**` across
    /// components); a pattern without glob also covers what is below it (`vendor`).
    pub paths: Vec<String>,
    /// Function names (`helper`) or path suffixes (`parse::helper`).
    pub functions: Vec<String>,
}

impl Exclusions {
    /// Reads patterns: `fn:NAME` is a function, anything else a path.
    pub fn parse(patterns: &[String]) -> Exclusions {
        let mut exclusions = Exclusions::default();
        for pattern in patterns {
            match pattern.strip_prefix("fn:") {
                Some(function) => exclusions.functions.push(function.trim().to_string()),
                None => exclusions
                    .paths
                    .push(pattern.trim_start_matches("./").to_string()),
            }
        }
        exclusions
    }

    /// Nothing is excluded.
    pub fn is_empty(&self) -> bool {
        self.paths.is_empty() && self.functions.is_empty()
    }

    /// The file (relative to the workspace root, `/`-separated) is excluded.
    pub fn excludes_path(&self, relative: &str) -> bool {
        let relative = relative.replace('\\', "/");
        self.paths.iter().any(|pattern| {
            glob_matches(pattern, &relative)
                || (!pattern.contains('*')
                    && relative.starts_with(pattern.trim_end_matches('/'))
                    && relative[pattern.trim_end_matches('/').len()..].starts_with('/'))
        })
    }

    /// The function (a path such as `crate::module::name` or `Type::method`, or an item's
    /// name such as `impl Stack`) is excluded.
    pub fn excludes_function(&self, function: &str) -> bool {
        let function = function.strip_prefix("impl ").unwrap_or(function);
        self.functions.iter().any(|name| {
            function == name
                || function
                    .strip_suffix(name.as_str())
                    .is_some_and(|head| head.ends_with("::"))
        })
    }

    /// Drops the excluded suspects and renumbers the others; returns how many were dropped.
    pub fn filter_suspects(&self, suspects: &mut Vec<crate::model::Ranked>) -> usize {
        if self.is_empty() {
            return 0;
        }
        let before = suspects.len();
        suspects.retain(|s| !self.excludes_path(&s.file) && !self.excludes_function(&s.function));
        for (i, suspect) in suspects.iter_mut().enumerate() {
            suspect.rank = i + 1;
        }
        before - suspects.len()
    }
}

/// `pattern` (with `*` within a component and `**` across components, as `.gitignore`
/// and cargo's `include` read them) matches the whole of `path`. A pattern that is not a
/// glob (an unclosed `[`) matches only itself.
pub(crate) fn glob_matches(pattern: &str, path: &str) -> bool {
    match globset::GlobBuilder::new(pattern)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
    {
        Ok(glob) => glob.compile_matcher().is_match(path),
        Err(_) => pattern == path,
    }
}

/// What the arguments for the test binaries select, as libtest reads them: a test runs when
/// its name contains a filter (equals one, with `--exact`), or when there is no filter, and
/// contains no `--skip` pattern; ignored tests run with `--include-ignored`, only they with
/// `--ignored`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LibtestArgs {
    pub filters: Vec<String>,
    pub exact: bool,
    pub skip: Vec<String>,
    pub include_ignored: bool,
    pub ignored: bool,
}

impl LibtestArgs {
    /// Reads libtest's arguments; output options (`--nocapture`, `--show-output`,
    /// `--color`, `--quiet`, `--test-threads`) are accepted and change nothing (each test
    /// runs alone, its output kept); any other option is an error.
    pub fn parse<'a>(args: impl IntoIterator<Item = &'a String>) -> anyhow::Result<LibtestArgs> {
        let mut out = LibtestArgs::default();
        let mut args = args.into_iter();
        while let Some(arg) = args.next() {
            let (flag, inline) = match arg.split_once('=') {
                Some((flag, value)) if arg.starts_with("--") => (flag, Some(value.to_string())),
                _ => (arg.as_str(), None),
            };
            let mut value = |name: &str| -> anyhow::Result<String> {
                match inline.clone().or_else(|| args.next().cloned()) {
                    Some(v) => Ok(v),
                    None => anyhow::bail!("`{name}` after `--` needs a value"),
                }
            };
            match flag {
                "--exact" => out.exact = true,
                "--skip" => out.skip.push(value("--skip")?),
                "--include-ignored" => out.include_ignored = true,
                "--ignored" => out.ignored = true,
                "--nocapture" | "--show-output" | "--quiet" | "-q" => {}
                "--color" | "--test-threads" => {
                    value(flag)?;
                }
                _ if flag.starts_with('-') => anyhow::bail!(
                    "`{arg}` after `--` is not a test binary argument cargo autodebug takes\n\
                     hint: it takes test name filters, --exact, --skip PATTERN, \
                     --include-ignored and --ignored"
                ),
                _ => out.filters.push(arg.clone()),
            }
        }
        Ok(out)
    }

    /// Whether the test named `name` is selected (ignored or not aside).
    pub fn selects(&self, name: &str) -> bool {
        let matches = |pattern: &str| {
            if self.exact {
                name == pattern
            } else {
                name.contains(pattern)
            }
        };
        (self.filters.is_empty() || self.filters.iter().any(|f| matches(f)))
            && !self.skip.iter().any(|s| matches(s))
    }
}

/// A count of at least one (`--jobs`).
fn at_least_one(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(0) => Err("must be at least 1 (0 would run no test)".to_string()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!("`{text}` is not a whole number of at least 1")),
    }
}

/// A number of seconds greater than zero (`--timeout`).
fn non_negative_seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(secs) if secs.is_finite() && secs >= 0.0 => Ok(secs),
        Ok(_) => Err("must be a number of seconds, 0 or more".to_string()),
        Err(_) => Err(format!("`{text}` is not a number of seconds")),
    }
}

fn positive_seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(secs) if secs.is_finite() && secs > 0.0 => Ok(secs),
        Ok(_) => Err("must be a number of seconds greater than 0".to_string()),
        Err(_) => Err(format!("`{text}` is not a number of seconds")),
    }
}

#[cfg(test)]
mod libtest_tests {
    use super::*;

    #[test]
    fn a_timeout_or_a_job_count_that_would_run_nothing_is_refused() {
        let parse = |args: &[&str]| {
            let mut all = vec!["cargo-autodebug"];
            all.extend_from_slice(args);
            Options::parse_args(all).map_err(|e| e.to_string())
        };
        for (args, says) in [
            (&["--timeout", "0"][..], "greater than 0"),
            (&["--timeout", "-1"][..], "greater than 0"),
            (&["--timeout", "soon"][..], "is not a number of seconds"),
            (&["--jobs", "0"][..], "at least 1"),
            (&["-j", "-2"][..], "is not a whole number"),
            (&["--baseline-timeout", "-1"][..], "0 or more"),
        ] {
            let error = parse(args).unwrap_err();
            assert!(error.contains(says), "{args:?}: {error}");
        }
        let options = parse(&["--timeout", "2.5", "-j", "3"]).unwrap();
        assert_eq!((options.timeout, options.jobs), (2.5, Some(3)));
        assert_eq!(options.baseline_budget(), Some(Duration::from_secs(60)));
        // 0: no budget, every test runs.
        let options = parse(&["--baseline-timeout", "0"]).unwrap();
        assert_eq!(options.baseline_budget(), None);
    }

    fn parse(args: &[&str]) -> anyhow::Result<LibtestArgs> {
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        LibtestArgs::parse(&args)
    }

    #[test]
    fn filters_exact_and_skip_select_as_libtest_does() {
        let all = parse(&[]).unwrap();
        assert!(all.selects("tests::a"));
        let some = parse(&["sum", "--skip", "slow", "--skip=huge"]).unwrap();
        assert!(some.selects("tests::sum_small"));
        assert!(!some.selects("tests::sum_slow"));
        assert!(!some.selects("tests::sum_huge"));
        assert!(!some.selects("tests::max"));
        let exact = parse(&["--exact", "tests::sum"]).unwrap();
        assert!(exact.selects("tests::sum"));
        assert!(!exact.selects("tests::sum_small"));
        let two = parse(&["max", "min", "--include-ignored", "--nocapture"]).unwrap();
        assert!(two.selects("tests::max") && two.selects("tests::min"));
        assert!(two.include_ignored && !two.ignored);
        assert!(
            parse(&["--test-threads", "4", "--ignored"])
                .unwrap()
                .ignored
        );
    }

    #[test]
    fn an_unknown_option_or_a_missing_value_is_an_error_with_a_hint() {
        let error = parse(&["--format", "json"]).unwrap_err().to_string();
        assert!(
            error.contains("`--format`") && error.contains("hint:"),
            "{error}"
        );
        assert!(
            parse(&["--skip"])
                .unwrap_err()
                .to_string()
                .contains("needs a value")
        );
    }
}
