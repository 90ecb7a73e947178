//! `autodebug-bench`: seed faults into the corpus (`generate`), or run cargo-autodebug on
//! every faulty version and write the results tables (`run`).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::Result;
use clap::{Parser, Subcommand};

use autodebug_bench::{corpus, faults, generate, repo_root};

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
    }
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
