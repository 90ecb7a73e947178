//! `autodebug-bench`: seed faults into the corpus (`generate`), or run cargo-autodebug on
//! every faulty version and write the results tables (`run`).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::Result;
use clap::{Parser, Subcommand};

use autodebug_bench::{corpus, faults, generate, repo_root, runner, sweep};

/// The benchmark of cargo-autodebug.
#[derive(Parser, Debug)]
#[command(name = "autodebug-bench", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Seed faults into the corpus programs and write faults.json.
    Generate(GenerateArgs),
    /// Run cargo-autodebug on every faulty version and write results.{json,md}.
    Run(RunArgs),
    /// The external track: run and score the HumanEvalFix-Rust dev half with the shared
    /// scorer (`../shared/external/`).
    External(ExternalArgs),
    /// The equivalence sweep: build and test real crates plainly and instrumented, compare
    /// the builds and every test's verdict; write sweep.{json,md}.
    Sweep(SweepArgs),
}

#[derive(clap::Args, Debug)]
struct ExternalArgs {
    /// The scorer [default: ../shared/external/hefix.py beside the checkout].
    #[arg(long)]
    scorer: Option<PathBuf>,
    /// The tasks [default: hefix-dev.jsonl beside the scorer].
    #[arg(long)]
    tasks: Option<PathBuf>,
    /// The cargo-autodebug binary [default: built with `$CARGO build --release -p
    /// cargo-autodebug` into target/external-tool].
    #[arg(long)]
    tool: Option<PathBuf>,
    /// Output directory (crates, reports, scores) [default: a new temp dir, kept].
    #[arg(long)]
    out: Option<PathBuf>,
    /// Only these tasks (`7`, `rust_007`, `0-9`).
    #[arg(long = "ids", value_name = "IDS")]
    ids: Vec<String>,
    /// Per-task time limit, seconds.
    #[arg(long, default_value_t = 300.0)]
    timeout: f64,
    /// Replace the table between <!-- external-table --> markers in book/src/results.md.
    #[arg(long)]
    update_readme: bool,
}

#[derive(clap::Args, Debug)]
struct SweepArgs {
    /// A directory of crates (each subdirectory with a Cargo.toml), e.g. HumanEvalFix crates
    /// materialized by `hefix.py materialize`; named in the tables by its own name (repeatable).
    #[arg(long = "crates-dir", value_name = "DIR")]
    crates_dirs: Vec<PathBuf>,
    /// The registry crates, `name version` per line [default: bench/sweep/crates.txt].
    #[arg(long, value_name = "FILE")]
    list: Option<PathBuf>,
    /// No registry crates.
    #[arg(long)]
    no_list: bool,
    /// Leave out the project's corpus (bench/corpus).
    #[arg(long)]
    no_corpus: bool,
    /// Only crates whose name contains this (repeatable).
    #[arg(long = "only", value_name = "TEXT")]
    only: Vec<String>,
    /// At most this many crates.
    #[arg(long)]
    limit: Option<usize>,
    /// The cargo-autodebug binary [default: built with `$CARGO build -p cargo-autodebug`].
    #[arg(long)]
    tool: Option<PathBuf>,
    /// Output directory [default: bench/results].
    #[arg(long)]
    out: Option<PathBuf>,
    /// Where the plain and instrumented builds go (`plain/`, `instrumented/`), kept from run
    /// to run so that dependencies build once; outside any workspace
    /// [default: $TMPDIR/autodebug-sweep-target].
    #[arg(long)]
    target_dir: Option<PathBuf>,
    /// Wall-time limit of one build or test run, in seconds.
    #[arg(long, default_value_t = 600.0)]
    step_timeout: f64,
    /// Per-test timeout given to the tool, in seconds.
    #[arg(long, default_value_t = 60.0)]
    timeout: f64,
    /// Tests the tool runs at once.
    #[arg(long, default_value_t = 2)]
    jobs: usize,
}

#[derive(clap::Args, Debug)]
struct RunArgs {
    /// One version per program (at most 12) and a brute-force sample of one with at most 25
    /// candidates: the CI subset, under 10 minutes.
    #[arg(long)]
    quick: bool,
    /// Only these programs (repeatable).
    #[arg(long = "program", value_name = "NAME")]
    programs: Vec<String>,
    /// At most this many versions.
    #[arg(long)]
    limit: Option<usize>,
    /// A stratified sample: of each program, the first N single-fault versions and the
    /// first two-fault one.
    #[arg(long, value_name = "N")]
    per_program: Option<usize>,
    /// Per-test timeout given to the tool, in seconds.
    #[arg(long, default_value_t = 10.0)]
    timeout: f64,
    /// Wall-time limit of one tool run, in seconds [default: 300]. It only stops a run that
    /// hangs: a version that needs longer on a loaded machine still counts (the quick run's
    /// 120 s killed three versions on a slow CI machine, and its floors failed).
    #[arg(long)]
    version_timeout: Option<f64>,
    /// Output directory [default: bench/results].
    #[arg(long)]
    out: Option<PathBuf>,
    /// The faults file [default: bench/faults.json].
    #[arg(long)]
    faults: Option<PathBuf>,
    /// Corpus directory [default: bench/corpus].
    #[arg(long)]
    corpus: Option<PathBuf>,
    /// Versions the brute-force repair baseline runs on [default: 10, quick: 1].
    #[arg(long)]
    repair_sample: Option<usize>,
    /// Candidate mutations per brute-force version at most [default: 100, quick: 25].
    #[arg(long)]
    repair_candidates: Option<usize>,
    /// The cargo-autodebug binary [default: built with `$CARGO build -p cargo-autodebug`].
    #[arg(long)]
    tool: Option<PathBuf>,
    /// Tests the tool runs at once.
    #[arg(long, default_value_t = 2)]
    jobs: usize,
    /// Faulty versions run at once, each by a tool run of its own [default: 1, quick: 2].
    /// The tool's time goes mostly to the solver, one thread per run, so two runs share
    /// two cores; a version's seconds are then measured beside another run.
    #[arg(long, value_name = "N")]
    parallel: Option<usize>,
    /// Replace the table between <!-- results-table --> markers in book/src/results.md.
    #[arg(long)]
    update_readme: bool,
    /// Keep the temp copies of the faulty versions.
    #[arg(long)]
    keep: bool,
    /// Fail (exit 1) when an overall figure falls below its floor in this JSON file
    /// (`{"top5": 75, …}`, percentages and seconds named as in results.json's rows; keys
    /// starting with `_` are comments).
    #[arg(long, value_name = "FILE")]
    floors: Option<PathBuf>,
}

#[derive(clap::Args, Debug)]
struct GenerateArgs {
    /// Corpus directory [default: bench/corpus].
    #[arg(long)]
    corpus: Option<PathBuf>,
    /// Output file [default: bench/faults.json]; other programs' versions in it are kept.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Only these programs (repeatable).
    #[arg(long = "program", value_name = "NAME")]
    programs: Vec<String>,
    /// Only programs that have no versions in the output file yet.
    #[arg(long)]
    missing: bool,
    /// Single-fault versions kept per program.
    #[arg(long, default_value_t = 13)]
    singles: usize,
    /// Two-fault versions kept per program.
    #[arg(long, default_value_t = 2)]
    pairs: usize,
    /// Candidates tried per program at most.
    #[arg(long, default_value_t = 70)]
    max_attempts: usize,
    /// Seconds one candidate's tests may run before it is discarded as hanging.
    #[arg(long, default_value_t = 20.0)]
    timeout: f64,
    /// Keep the scratch copies here (default: a temp dir).
    #[arg(long)]
    scratch: Option<PathBuf>,
}

fn main() -> Result<()> {
    let cli = Cli::parse();
    match cli.command {
        Command::Generate(args) => generate_cmd(args),
        Command::Run(args) => run_cmd(args),
        Command::External(args) => external_cmd(args),
        Command::Sweep(args) => sweep_cmd(args),
    }
}

fn external_cmd(args: ExternalArgs) -> Result<()> {
    let root = repo_root();
    let scorer = args
        .scorer
        .unwrap_or_else(|| root.join("../shared/external/hefix.py"));
    let tasks = args
        .tasks
        .unwrap_or_else(|| scorer.with_file_name("hefix-dev.jsonl"));
    let tool = match args.tool {
        Some(tool) => tool,
        None => {
            // A directory of its own: a rebuild during the run cannot mix two tools.
            let target = root.join("target/external-tool");
            let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
            let status = std::process::Command::new(cargo)
                .args([
                    "build",
                    "--release",
                    "-p",
                    "cargo-autodebug",
                    "--target-dir",
                ])
                .arg(&target)
                .current_dir(&root)
                .status()?;
            anyhow::ensure!(status.success(), "building cargo-autodebug failed");
            target.join("release/cargo-autodebug")
        }
    };
    let out = match args.out {
        Some(out) => out,
        None => tempfile::Builder::new()
            .prefix("autodebug-external-")
            .tempdir()?
            .keep(),
    };
    let tables = autodebug_bench::external::run(
        &autodebug_bench::external::Options {
            scorer,
            tasks,
            tool,
            out: out.clone(),
            ids: args.ids,
            timeout: args.timeout,
            update_readme: args.update_readme,
        },
        &root,
    )?;
    println!("{tables}");
    eprintln!("Crates, reports and scores in {}", out.display());
    Ok(())
}

fn generate_cmd(args: GenerateArgs) -> Result<()> {
    let root = repo_root();
    let corpus_dir = args.corpus.unwrap_or_else(|| root.join("bench/corpus"));
    let out = args.out.unwrap_or_else(|| root.join("bench/faults.json"));
    let existing = if out.is_file() {
        faults::load(&out)?
    } else {
        Vec::new()
    };
    let mut programs = corpus::discover(&corpus_dir)?;
    if !args.programs.is_empty() {
        programs.retain(|p| args.programs.contains(&p.name));
    }
    if args.missing {
        programs.retain(|p| !existing.iter().any(|v| v.program == p.name));
    }
    eprintln!(
        "Generating faulty versions of {} program(s): {}",
        programs.len(),
        programs
            .iter()
            .map(|p| p.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    );
    let opts = generate::Options {
        singles: args.singles,
        pairs: args.pairs,
        max_attempts: args.max_attempts,
        test_timeout: Duration::from_secs_f64(args.timeout),
        scratch: args.scratch,
        ..generate::Options::default()
    };
    let started = Instant::now();
    let versions = generate::generate(&programs, existing, &opts)?;
    faults::save(&out, &versions)?;
    eprintln!(
        "Wrote {} versions ({} two-fault) to {} in {:.0}s",
        versions.len(),
        versions.iter().filter(|v| v.is_multi()).count(),
        out.display(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

fn run_cmd(args: RunArgs) -> Result<()> {
    let root = repo_root();
    let command = std::iter::once("autodebug-bench".to_string())
        .chain(std::env::args().skip(1))
        .collect::<Vec<_>>()
        .join(" ");
    let opts = runner::Options {
        quick: args.quick,
        programs: args.programs,
        limit: args.limit,
        per_program: args.per_program,
        test_timeout: args.timeout,
        version_timeout: Duration::from_secs_f64(args.version_timeout.unwrap_or(300.0)),
        out: args.out.unwrap_or_else(|| root.join("bench/results")),
        faults: args
            .faults
            .unwrap_or_else(|| root.join("bench/faults.json")),
        corpus: args.corpus.unwrap_or_else(|| root.join("bench/corpus")),
        repair_sample: args
            .repair_sample
            .unwrap_or(if args.quick { 1 } else { 10 }),
        repair_candidates: args
            .repair_candidates
            .unwrap_or(if args.quick { 25 } else { 100 })
            .min(if args.quick { 25 } else { usize::MAX }),
        tool: args.tool,
        jobs: args.jobs,
        parallel: args
            .parallel
            .unwrap_or(if args.quick { 2 } else { 1 })
            .max(1),
        update_readme: args.update_readme,
        keep: args.keep,
        command,
    };
    let results = runner::run(&opts)?;
    if let (Some(floors), Some(overall)) = (&args.floors, results.rows.last()) {
        let below = autodebug_bench::results::below_floors(overall, floors)?;
        if !below.is_empty() {
            anyhow::bail!(
                "the benchmark fell below its floors ({}): {}",
                floors.display(),
                below.join("; ")
            );
        }
        eprintln!("floors held ({})", floors.display());
    }
    if let Some(overall) = results.rows.last() {
        eprintln!(
            "{} versions: detected {:.0}%, top-1 {:.0}%, top-5 {:.0}%, EXAM {:.3}; Ochiai top-1 {:.0}%, top-5 {:.0}%, EXAM {:.3}; median {:.1} s per version",
            overall.versions,
            overall.detected,
            overall.top1,
            overall.top5,
            overall.mean_exam,
            overall.ochiai_top1,
            overall.ochiai_top5,
            overall.ochiai_mean_exam,
            overall.median_wall_s
        );
    }
    Ok(())
}

fn sweep_cmd(args: SweepArgs) -> Result<()> {
    let root = repo_root();
    let mut crates = Vec::new();
    for dir in &args.crates_dirs {
        let group = dir
            .file_name()
            .map_or_else(|| "crates".into(), |n| n.to_string_lossy().into_owned());
        crates.extend(sweep::crates_in(dir, &group)?);
    }
    if !args.no_corpus {
        crates.extend(sweep::crates_in(&root.join("bench/corpus"), "corpus")?);
    }
    if !args.no_list {
        let list = args
            .list
            .unwrap_or_else(|| root.join("bench/sweep/crates.txt"));
        let home = std::env::var_os("CARGO_HOME")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
            .unwrap_or_default();
        crates.extend(sweep::listed_crates(&list, &home.join("registry/src"))?);
    }
    if !args.only.is_empty() {
        crates.retain(|c| args.only.iter().any(|o| c.name.contains(o.as_str())));
    }
    crates.truncate(args.limit.unwrap_or(usize::MAX));
    // Absolute: the tool runs in each crate's copy.
    let tool = std::path::absolute(runner::tool_binary(args.tool.as_deref(), &root)?)?;
    // Outside this repository: the instrumented copies must not fall into its workspace.
    let target = args
        .target_dir
        .unwrap_or_else(|| std::env::temp_dir().join("autodebug-sweep-target"));
    let scratch = tempfile::Builder::new()
        .prefix("autodebug-sweep-")
        .tempdir()?;
    let opts = sweep::Options {
        tool,
        scratch: scratch.path().to_path_buf(),
        plain_target: target.join("plain"),
        instrumented_target: target.join("instrumented"),
        limit: Duration::from_secs_f64(args.step_timeout),
        test_timeout: args.timeout,
        jobs: args.jobs,
    };
    eprintln!("Equivalence sweep of {} crates", crates.len());
    let started = Instant::now();
    let results = sweep::run(&crates, &opts)?;
    let provenance = format!(
        "Equivalence sweep, {} at commit {}: {} crates in {:.0} s.",
        runner::today(),
        runner::commit(&root),
        results.len(),
        started.elapsed().as_secs_f64()
    );
    let md = sweep::markdown(&results, &provenance);
    let out = args.out.unwrap_or_else(|| root.join("bench/results"));
    std::fs::create_dir_all(&out)?;
    std::fs::write(out.join("sweep.md"), &md)?;
    std::fs::write(
        out.join("sweep.json"),
        serde_json::to_string_pretty(&results)? + "\n",
    )?;
    print!("{md}");
    Ok(())
}
