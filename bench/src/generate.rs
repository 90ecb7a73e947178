//! `autodebug-bench generate`: seeds faults into each corpus program and keeps the faulty
//! versions that compile, do not hang, and make at least one visible test fail.
//!
//! One scratch copy per program with its own target dir; `src/lib.rs` is rewritten per
//! candidate, and every build must really recompile the package (see `cargo_test`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

use crate::cargo_test::{Build, Scratch, TestRun, rewrite};
use crate::corpus::{self, Program, SOURCE};
use crate::faults::FaultyVersion;
use crate::mutate::{self, FaultClass, Mutation};
use crate::sample::{Rng, SEED, spread_order};

/// Knobs of the generator.
#[derive(Clone, Debug)]
pub struct Options {
    /// Single-fault versions kept per program.
    pub singles: usize,
    /// Two-fault versions kept per program.
    pub pairs: usize,
    /// Candidates tried per program before giving up on reaching `singles`.
    pub max_attempts: usize,
    /// Limit for one candidate's test run (a hung candidate is discarded).
    pub test_timeout: Duration,
    /// Limit for one build.
    pub build_timeout: Duration,
    /// Where the scratch copies go (a temp dir if `None`).
    pub scratch: Option<PathBuf>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            singles: 13,
            pairs: 2,
            max_attempts: 70,
            test_timeout: Duration::from_secs(20),
            build_timeout: Duration::from_secs(600),
            scratch: None,
        }
    }
}

/// The verdict on one candidate.
#[derive(Debug)]
enum Verdict {
    Kept(Vec<String>),
    Rejected(&'static str),
}

/// Copy of one program set up for candidate after candidate.
struct Bench {
    scratch: Scratch,
    source: String,
    opts: Options,
}

impl Bench {
    fn new(program: &Program, root: &Path, opts: &Options) -> Result<Bench> {
        let dir = root.join(&program.name);
        if dir.exists() {
            std::fs::remove_dir_all(&dir)?;
        }
        corpus::copy_program(program, &dir)?;
        Ok(Bench {
            scratch: Scratch {
                dir,
                target: root.join(format!("{}-target", program.name)),
                package: program.package.clone(),
            },
            source: program.source()?,
            opts: opts.clone(),
        })
    }

    /// Writes `text` as the program's source, builds and tests it.
    fn check_text(&self, text: &str) -> Result<(Build, Option<TestRun>)> {
        rewrite(&self.scratch.dir.join(SOURCE), text)?;
        let build = self.scratch.build(true, self.opts.build_timeout)?;
        if build != Build::Built {
            return Ok((build, None));
        }
        let run = self.scratch.test(self.opts.test_timeout)?;
        Ok((build, Some(run)))
    }

    fn check(&self, mutations: &[&Mutation]) -> Result<Verdict> {
        let text = mutate::apply(&self.source, mutations)?;
        Ok(match self.check_text(&text)? {
            (Build::Failed(_), _) => Verdict::Rejected("does not compile"),
            (Build::TimedOut, _) => Verdict::Rejected("build timed out"),
            (_, Some(run)) if run.timed_out => Verdict::Rejected("hangs"),
            (_, Some(run)) if run.failed.is_empty() => Verdict::Rejected("no test fails"),
            (_, Some(run)) => Verdict::Kept(run.failed.into_iter().collect()),
            (_, None) => Verdict::Rejected("not run"),
        })
    }

    /// The correct program must pass, and a compile-breaking edit right after it must be
    /// rejected: proof that each rewrite is really rebuilt.
    fn self_check(&self) -> Result<()> {
        let (build, run) = self.check_text(&self.source)?;
        match (build, run) {
            (Build::Built, Some(run)) if run.all_passed() => {}
            (b, r) => bail!("the correct program does not pass its tests: {b:?} {r:?}"),
        }
        let broken = format!(
            "{}\nconst _: () = autodebug_bench_probe_undefined;\n",
            self.source
        );
        match self.check_text(&broken)? {
            (Build::Failed(_), _) => Ok(()),
            other => bail!("a compile-breaking rewrite was not rejected: {other:?}"),
        }
    }
}

/// Generates the faulty versions of `program`; `log` receives one progress line per step.
pub fn generate_program(
    program: &Program,
    root: &Path,
    opts: &Options,
    log: &mut dyn FnMut(&str),
) -> Result<Vec<FaultyVersion>> {
    let bench = Bench::new(program, root, opts)?;
    let started = Instant::now();
    bench
        .self_check()
        .with_context(|| format!("program {}", program.name))?;
    let candidates = mutate::enumerate(SOURCE, &bench.source)?;
    let mut rng = Rng::new(SEED, &program.name);
    let order = spread_order(&candidates, &mut rng);
    log(&format!(
        "{}: {} mutation points, trying up to {}",
        program.name,
        candidates.len(),
        opts.max_attempts.min(candidates.len())
    ));
    // Classes take turns in the spread order, but the class with the fewest kept versions
    // (then the fewest attempts) goes next: classes whose mutants rarely compile (variable
    // swaps) get more attempts instead of fewer versions.
    let mut queues: BTreeMap<FaultClass, std::collections::VecDeque<usize>> = BTreeMap::new();
    for &i in &order {
        queues.entry(candidates[i].class).or_default().push_back(i);
    }
    let mut tally: BTreeMap<FaultClass, (usize, usize)> = BTreeMap::new();
    let mut kept: Vec<(Mutation, Vec<String>)> = Vec::new();
    let mut tried = 0;
    while kept.len() < opts.singles && tried < opts.max_attempts {
        let Some(class) = queues
            .iter()
            .filter(|(_, q)| !q.is_empty())
            .map(|(c, _)| *c)
            .min_by_key(|c| tally.get(c).copied().unwrap_or_default())
        else {
            break;
        };
        let i = queues
            .get_mut(&class)
            .and_then(|q| q.pop_front())
            .expect("non-empty");
        tried += 1;
        let m = &candidates[i];
        let verdict = bench.check(&[m])?;
        let t = tally.entry(class).or_default();
        t.1 += 1;
        let word = match &verdict {
            Verdict::Kept(f) => format!("KEEP ({} failing)", f.len()),
            Verdict::Rejected(why) => format!("skip ({why})"),
        };
        if let Verdict::Kept(failing) = verdict {
            t.0 += 1;
            kept.push((m.clone(), failing));
        }
        log(&format!(
            "  [{} {}/{} kept, {} tried] {word}: {}",
            program.name,
            kept.len(),
            opts.singles,
            tried,
            m.describe()
        ));
    }
    // Two-fault versions: pairs on different lines, preferring different classes.
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    for a in 0..kept.len() {
        for b in a + 1..kept.len() {
            if kept[a].0.line != kept[b].0.line {
                pairs.push((a, b));
            }
        }
    }
    rng.shuffle(&mut pairs);
    pairs.sort_by_key(|&(a, b)| kept[a].0.class == kept[b].0.class);
    let mut doubles: Vec<(Vec<Mutation>, Vec<String>)> = Vec::new();
    for &(a, b) in pairs.iter().take(opts.pairs * 3) {
        if doubles.len() >= opts.pairs {
            break;
        }
        let ms = [&kept[a].0, &kept[b].0];
        let verdict = bench.check(&ms)?;
        log(&format!(
            "  [{} pair] {}: {} + {}",
            program.name,
            match &verdict {
                Verdict::Kept(f) => format!("KEEP ({} failing)", f.len()),
                Verdict::Rejected(why) => format!("skip ({why})"),
            },
            ms[0].describe(),
            ms[1].describe()
        ));
        if let Verdict::Kept(failing) = verdict {
            doubles.push((vec![ms[0].clone(), ms[1].clone()], failing));
        }
    }
    std::fs::remove_dir_all(&bench.scratch.dir).ok();
    log(&format!(
        "{}: {} single + {} two-fault versions in {:.0}s",
        program.name,
        kept.len(),
        doubles.len(),
        started.elapsed().as_secs_f64()
    ));
    let all = kept.into_iter().map(|(m, f)| (vec![m], f)).chain(doubles);
    Ok(all
        .enumerate()
        .map(|(n, (mutations, failing_tests))| FaultyVersion {
            id: format!("{}-{:02}", program.name, n + 1),
            program: program.name.clone(),
            classes: mutations.iter().map(|m| m.class).collect(),
            mutations,
            failing_tests,
        })
        .collect())
}

/// Generates versions for `programs`, replacing theirs in `existing` (other programs'
/// versions are kept, so late programs can be added by a re-run).
pub fn generate(
    programs: &[Program],
    existing: Vec<FaultyVersion>,
    opts: &Options,
) -> Result<Vec<FaultyVersion>> {
    let tmp;
    let root = match &opts.scratch {
        Some(p) => {
            std::fs::create_dir_all(p)?;
            p.clone()
        }
        None => {
            tmp = tempfile::Builder::new()
                .prefix("autodebug-generate-")
                .tempdir()?;
            tmp.path().to_path_buf()
        }
    };
    let names: Vec<&str> = programs.iter().map(|p| p.name.as_str()).collect();
    let mut out: Vec<FaultyVersion> = existing
        .into_iter()
        .filter(|v| !names.contains(&v.program.as_str()))
        .collect();
    for program in programs {
        let mut log = |line: &str| eprintln!("{line}");
        match generate_program(program, &root, opts, &mut log) {
            Ok(v) => out.extend(v),
            Err(e) => eprintln!("{}: skipped: {e:#}", program.name),
        }
    }
    out.sort_by(|a, b| {
        (&a.program, a.mutations.len(), &a.id).cmp(&(&b.program, b.mutations.len(), &b.id))
    });
    Ok(out)
}
