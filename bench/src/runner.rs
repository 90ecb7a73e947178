//! `autodebug-bench run`: the real `cargo autodebug` on every faulty version, in a temp
//! copy with a wall-time limit, scored from its `report.json` and `coverage.json`, beside
//! the Ochiai and brute-force baselines measured in the same run.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use serde::Serialize;

use crate::brute_force::{brute_force, passes_hidden};
use crate::cargo_test::Scratch;
use crate::corpus::{self, Program, SOURCE};
use crate::faults::{self, FaultyVersion};
use crate::mutate;
use crate::process;
use crate::report::{self, Coverage, Report};
use crate::results::{self, BruteForce, Row, VersionResult};
use crate::score;

/// The page whose tables `--update-readme` rewrites (the README links it).
pub const RESULTS_DOC: &str = "book/src/results.md";

/// Knobs of a run.
#[derive(Clone, Debug)]
pub struct Options {
    /// One version per program and a brute-force sample of one.
    pub quick: bool,
    /// Only these programs.
    pub programs: Vec<String>,
    /// At most this many versions.
    pub limit: Option<usize>,
    /// Of each program, the first N single-fault versions and the first two-fault one.
    pub per_program: Option<usize>,
    /// Per-test timeout given to the tool.
    pub test_timeout: f64,
    /// Wall-time limit of one tool run.
    pub version_timeout: Duration,
    pub out: PathBuf,
    pub faults: PathBuf,
    pub corpus: PathBuf,
    /// Versions the brute-force baseline runs on.
    pub repair_sample: usize,
    /// Candidates per brute-force version at most.
    pub repair_candidates: usize,
    /// The tool's binary (built by the runner if `None`).
    pub tool: Option<PathBuf>,
    /// Tests run at once by the tool.
    pub jobs: usize,
    /// Versions run at once.
    pub parallel: usize,
    pub update_readme: bool,
    /// Keep the temp copies.
    pub keep: bool,
    /// The command line, for the record.
    pub command: String,
}

/// `results.json`.
#[derive(Debug, Serialize)]
pub struct Results {
    pub date: String,
    pub commit: String,
    pub tool_version: String,
    pub command: String,
    pub quick: bool,
    pub programs: usize,
    pub rows: Vec<Row>,
    pub versions: Vec<VersionResult>,
    pub brute_force: Vec<BruteForce>,
    /// Repair seconds per validated fix of the tool over all versions.
    pub tool_s_per_validated_fix: Option<f64>,
    pub total_s: f64,
}

/// The versions a run covers.
pub fn select(all: &[FaultyVersion], opts: &Options) -> Vec<FaultyVersion> {
    let mut v: Vec<FaultyVersion> = all
        .iter()
        .filter(|v| opts.programs.is_empty() || opts.programs.contains(&v.program))
        .cloned()
        .collect();
    if opts.quick {
        let mut seen = BTreeMap::new();
        for x in v.iter().filter(|x| !x.is_multi()) {
            seen.entry(x.program.clone()).or_insert_with(|| x.clone());
        }
        v = seen.into_values().take(12).collect();
    }
    if let Some(n) = opts.per_program {
        let mut singles: BTreeMap<String, usize> = BTreeMap::new();
        let mut multis: BTreeMap<String, usize> = BTreeMap::new();
        v.retain(|x| {
            let taken = if x.is_multi() {
                multis.entry(x.program.clone()).or_default()
            } else {
                singles.entry(x.program.clone()).or_default()
            };
            *taken += 1;
            *taken <= if x.is_multi() { 1 } else { n }
        });
    }
    if let Some(n) = opts.limit {
        v.truncate(n);
    }
    v
}

/// `n` single-fault versions spread evenly over `versions` (deterministic).
pub fn brute_force_sample(versions: &[FaultyVersion], n: usize) -> Vec<FaultyVersion> {
    let singles: Vec<&FaultyVersion> = versions.iter().filter(|v| !v.is_multi()).collect();
    let n = n.min(singles.len());
    (0..n)
        .map(|k| singles[k * singles.len() / n].clone())
        .collect()
}

/// The tool's binary: given, or built now with `$CARGO build -p cargo-autodebug`.
pub fn tool_binary(given: Option<&Path>, repo: &Path) -> Result<PathBuf> {
    if let Some(t) = given {
        // Absolute: each version's run starts in its own copy.
        return Ok(std::path::absolute(t)?);
    }
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    eprintln!("Building cargo-autodebug …");
    let status = Command::new(cargo)
        .args(["build", "-p", "cargo-autodebug", "--manifest-path"])
        .arg(repo.join("Cargo.toml"))
        .status()?;
    if !status.success() {
        bail!("cargo build -p cargo-autodebug failed");
    }
    Ok(target_dir(repo).join("debug/cargo-autodebug"))
}

/// The workspace's target directory: `$CARGO_TARGET_DIR`, or `target/` in the repository.
pub fn target_dir(repo: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo.join("target"))
}

/// Runs every version, `opts.parallel` at a time, each line printed as its run ends; the
/// rows come back in the versions' order.
fn run_versions(
    versions: &[FaultyVersion],
    programs: &BTreeMap<String, Program>,
    tool: &Path,
    work: &Path,
    opts: &Options,
) -> Vec<VersionResult> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let mut rows: Vec<(usize, VersionResult)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..opts.parallel.min(versions.len()).max(1))
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::SeqCst);
                        let Some(v) = versions.get(i) else {
                            return mine;
                        };
                        let r = run_version(&programs[&v.program], v, tool, work, opts)
                            .unwrap_or_else(|e| VersionResult {
                                id: v.id.clone(),
                                program: v.program.clone(),
                                classes: v.classes.clone(),
                                exam: 1.0,
                                ochiai_exam: 1.0,
                                error: Some(format!("{e:#}")),
                                ..VersionResult::default()
                            });
                        let finished = done.fetch_add(1, Ordering::SeqCst) + 1;
                        eprintln!("{}", progress_line(finished, versions.len(), &r));
                        mine.push((i, r));
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("a version's worker panicked"))
            .collect()
    });
    rows.sort_by_key(|(i, _)| *i);
    rows.into_iter().map(|(_, r)| r).collect()
}

/// `[k/n] id (classes): exit …, rank …, fixes …, seconds`.
fn progress_line(finished: usize, total: usize, r: &VersionResult) -> String {
    format!(
        "[{}/{}] {} ({}): exit {} {}, rank {}, Ochiai rank {}, fixes {} ({} validated{}), {:.1} s{}",
        finished,
        total,
        r.id,
        r.classes
            .iter()
            .map(|c| c.name())
            .collect::<Vec<_>>()
            .join("+"),
        r.exit_code.map_or("-".into(), |c| c.to_string()),
        if r.detected {
            "detected"
        } else {
            "NOT detected"
        },
        r.rank.map_or("-".into(), |x| x.to_string()),
        r.ochiai_rank.map_or("-".into(), |x| x.to_string()),
        r.fixes,
        r.validated_fixes,
        if r.fix_correct { ", correct" } else { "" },
        r.wall_s,
        r.error
            .as_deref()
            .map_or(String::new(), |e| format!(" [{e}]")),
    )
}

/// Runs the tool on one version and scores it.
fn run_version(
    program: &Program,
    version: &FaultyVersion,
    tool: &Path,
    work: &Path,
    opts: &Options,
) -> Result<VersionResult> {
    let copy = work.join(&version.id);
    if copy.exists() {
        std::fs::remove_dir_all(&copy)?;
    }
    corpus::copy_program(program, &copy)?;
    let correct = program.source()?;
    let faulty = mutate::apply(&correct, &version.mutations.iter().collect::<Vec<_>>())
        .with_context(|| format!("{}: faults.json does not match the corpus", version.id))?;
    std::fs::write(copy.join(SOURCE), &faulty)?;
    let output = copy.join("autodebug.out");
    let mut cmd = Command::new(tool);
    cmd.arg("autodebug")
        .arg("--manifest-path")
        .arg(copy.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(work.join("target"))
        .args(["--timeout", &opts.test_timeout.to_string()])
        .args(["--jobs", &opts.jobs.to_string()])
        // Both orderings, so the run measures LEFS and PRIOR side by side.
        .args(["--switching-order", "both"])
        .arg("--output")
        .arg(&output)
        .args(["--message-format", "json"])
        .current_dir(&copy)
        .env_remove("AUTODEBUG_INSTRUMENT")
        .env_remove("AUTODEBUG_TRACE");
    let f = process::run(cmd, opts.version_timeout)?;
    let mut r = VersionResult {
        id: version.id.clone(),
        program: version.program.clone(),
        classes: version.classes.clone(),
        exit_code: f.code,
        tool_timed_out: f.timed_out,
        wall_s: f.elapsed.as_secs_f64(),
        exam: 1.0,
        ochiai_exam: 1.0,
        missed_tests: version.failing_tests.clone(),
        ..VersionResult::default()
    };
    if f.timed_out {
        r.error = Some(format!(
            "killed at the version limit of {:.0} s",
            opts.version_timeout.as_secs_f64()
        ));
        return finish(r, &copy, opts);
    }
    let rep: Report = match report::read(&output.join("report.json")) {
        Ok(rep) => rep,
        Err(e) => {
            r.error = Some(format!("{e:#}; stderr: {}", last_lines(&f.stderr, 5)));
            return finish(r, &copy, opts);
        }
    };
    let coverage: Coverage = report::read(&output.join("coverage.json")).unwrap_or_else(|e| {
        r.error = Some(format!("{e:#}"));
        Coverage::default()
    });
    r.detected = score::detected(&rep, &version.failing_tests);
    r.missed_tests = version
        .failing_tests
        .iter()
        .filter(|t| !rep.failing_tests.iter().any(|x| &x.name == *t))
        .cloned()
        .collect();
    let executed = score::executed_sites(&coverage).len();
    r.executed_sites = executed;
    r.rank = score::suspect_rank(&rep.suspects, &version.mutations);
    r.mid_rank = score::suspect_mid_rank(&rep.suspects, &version.mutations);
    r.exam = score::exam(r.rank, executed);
    let o = score::ochiai_score(&coverage, &version.mutations);
    r.ochiai_rank = o.rank;
    r.ochiai_exam = o.exam;
    r.switching = results::switching_of(&rep.localization.switching);
    r.diagnosis = score::diagnosis_score(&rep, &version.mutations);
    r.pathgen = score::pathgen_score(&rep, &version.mutations, &faulty);
    r.fixes = rep.fixes.len();
    r.validated_fixes = rep.fixes.iter().filter(|x| x.validated).count();
    r.fix_found = !rep.fixes.is_empty();
    r.fix_validated = r.validated_fixes > 0;
    r.repair_s = rep.timing.repair_s;
    r.repair = rep.repair.clone();
    r.tool_total_s = rep.timing.total_s;
    if let Some(fix) = score::chosen_fix(&rep.fixes) {
        r.correct_by = judge_fix(program, fix, &copy, work, opts)?.map(str::to_string);
        r.fix_correct = r.correct_by.is_some();
    }
    finish(r, &copy, opts)
}

/// Whether the tool's chosen fix is correct, and how that was seen: `text` (the fixed file
/// is the correct program, whitespace aside) or `hidden-tests` (the fixed program passes
/// the tests the tool never saw); `None` when it is neither.
fn judge_fix(
    program: &Program,
    fix: &report::Fix,
    copy: &Path,
    work: &Path,
    opts: &Options,
) -> Result<Option<&'static str>> {
    let file = if fix.file.is_empty() {
        SOURCE.to_string()
    } else {
        fix.file.clone()
    };
    let on_disk = std::fs::read_to_string(copy.join(&file)).unwrap_or_default();
    let original = std::fs::read_to_string(program.dir.join(&file)).unwrap_or_default();
    let Some(fixed) = score::apply_fix(&on_disk, fix) else {
        return Ok(None);
    };
    if score::same_modulo_whitespace(&fixed, &original) {
        return Ok(Some("text"));
    }
    std::fs::write(copy.join(&file), &fixed)?;
    let scratch = Scratch {
        dir: copy.to_path_buf(),
        target: work.join("hidden-target"),
        package: program.package.clone(),
    };
    let source = std::fs::read_to_string(copy.join(SOURCE))?;
    let passes = passes_hidden(
        program,
        &scratch,
        &source,
        Duration::from_secs_f64(opts.test_timeout * 4.0),
    )?;
    Ok(passes.then_some("hidden-tests"))
}

fn finish(r: VersionResult, copy: &Path, opts: &Options) -> Result<VersionResult> {
    if !opts.keep {
        std::fs::remove_dir_all(copy).ok();
    }
    Ok(r)
}

fn last_lines(s: &str, n: usize) -> String {
    let lines: Vec<&str> = s.lines().collect();
    lines[lines.len().saturating_sub(n)..].join(" | ")
}

/// `git rev-parse --short HEAD`, with `-dirty` if the tree has uncommitted changes.
pub fn commit(repo: &Path) -> String {
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .current_dir(repo)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let Some(head) = git(&["rev-parse", "--short", "HEAD"]) else {
        return "unknown".into();
    };
    match git(&["status", "--porcelain", "--untracked-files=no"]) {
        Some(s) if !s.is_empty() => format!("{head}-dirty"),
        _ => head,
    }
}

/// Today's date (UTC) as `YYYY-MM-DD`.
pub fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    civil_date((secs / 86_400) as i64)
}

/// The proleptic Gregorian date of a day number since 1970-01-01 (H. Hinnant's algorithm).
pub fn civil_date(days: i64) -> String {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + (m <= 2) as i64;
    format!("{y:04}-{m:02}-{d:02}")
}

/// Runs the benchmark and writes the results.
pub fn run(opts: &Options) -> Result<Results> {
    let started = std::time::Instant::now();
    let repo = crate::repo_root();
    let all = faults::load(&opts.faults)?;
    let programs: BTreeMap<String, Program> = corpus::discover(&opts.corpus)?
        .into_iter()
        .map(|p| (p.name.clone(), p))
        .collect();
    let mut versions = select(&all, opts);
    versions.retain(|v| {
        let Some(program) = programs.get(&v.program) else {
            eprintln!(
                "{}: program {} is not in the corpus, skipped",
                v.id, v.program
            );
            return false;
        };
        // A program edited since faults.json was generated: its versions would measure
        // nothing; they are left out, not counted as misses.
        let stale = program.source().and_then(|src| {
            mutate::apply(&src, &v.mutations.iter().collect::<Vec<_>>()).map(|_| ())
        });
        if let Err(e) = &stale {
            eprintln!(
                "{}: skipped, faults.json does not match the corpus (regenerate with \
                 `generate --program {}`): {e:#}",
                v.id, v.program
            );
        }
        stale.is_ok()
    });
    if versions.is_empty() {
        bail!(
            "no faulty versions to run (faults file {})",
            opts.faults.display()
        );
    }
    let tool = tool_binary(opts.tool.as_deref(), &repo)?;
    let tool_version = Command::new(&tool)
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|_| "unknown".into());
    let tmp = tempfile::Builder::new()
        .prefix("autodebug-bench-run-")
        .tempdir()?;
    let work = tmp.path();
    eprintln!(
        "Running {} on {} faulty versions of {} programs",
        tool_version,
        versions.len(),
        versions
            .iter()
            .map(|v| &v.program)
            .collect::<std::collections::BTreeSet<_>>()
            .len()
    );
    let rows = run_versions(&versions, &programs, &tool, work, opts);
    let mut brute = Vec::new();
    for v in brute_force_sample(&versions, opts.repair_sample) {
        eprintln!(
            "Brute-force repair on {} (at most {} candidates) …",
            v.id, opts.repair_candidates
        );
        let mut log = |l: &str| eprintln!("{l}");
        match brute_force(
            &programs[&v.program],
            &v,
            work,
            opts.repair_candidates,
            Duration::from_secs_f64(opts.test_timeout.max(5.0)),
            &mut log,
        ) {
            Ok(b) => {
                eprintln!(
                    "  {}: {} tried, {} compiled, {} validated, {} correct, {:.0} s",
                    b.id, b.candidates, b.compiled, b.validated, b.correct, b.seconds
                );
                brute.push(b);
            }
            Err(e) => eprintln!("  {}: brute force failed: {e:#}", v.id),
        }
    }
    if opts.keep {
        let kept = tmp.keep();
        eprintln!("Scratch copies kept in {}", kept.display());
    }
    let results = Results {
        date: today(),
        commit: commit(&repo),
        tool_version,
        command: opts.command.clone(),
        quick: opts.quick,
        programs: rows
            .iter()
            .map(|r| &r.program)
            .collect::<std::collections::BTreeSet<_>>()
            .len(),
        rows: results::aggregate(&rows),
        tool_s_per_validated_fix: results::tool_per_validated(&rows.iter().collect::<Vec<_>>()),
        versions: rows,
        brute_force: brute,
        total_s: started.elapsed().as_secs_f64(),
    };
    write(&results, opts, &repo)?;
    Ok(results)
}

/// The header line saying when, at what commit and with what the table was measured.
fn provenance(r: &Results) -> String {
    format!(
        "Measured on {} at commit `{}` with {}: {} faulty versions of {} programs{}.",
        r.date,
        r.commit,
        r.tool_version,
        r.versions.len(),
        r.programs,
        if r.quick { " (`--quick` subset)" } else { "" }
    )
}

/// The notes under the main table.
const NOTES: &str = "\
Notes. *detected*: the tool exited with 5/6/7 and its report lists every visible test the \
fault is known to fail. *top-k*: the first suspect whose span overlaps a seeded fault (same \
file, intersecting line/column ranges) has rank ≤ k; for two-fault versions, either fault \
counts. *EXAM*: (rank − 1) / number of sites executed by any test (coverage.json), 1.0 when the \
fault is never ranked. *Ochiai*: `ef / sqrt(total_failed · (ef + ep))` per executed site of the \
same coverage.json the tool recorded (timeouts and crashes count as failing); tied sites share \
the mid rank (two sites tied for first both rank 1.5), so a tie is not counted as top-1. \
*fix found / validated*: the report has a fix / a fix it validated; *correct*: the best \
validated fix (else the best fix) applied to the faulty program equals the original program \
up to whitespace, or passes the program's hidden tests as well. *median time*: wall time of \
one whole `cargo autodebug` run (instrumented build, baseline, reruns, traces, techniques); \
all runs share one target dir, so dependencies are compiled by the first run only (each \
version is its own copy at its own path, hence its own package id and artifacts).";

/// Writes results.json and results.md, and the block in book/src/results.md if asked.
fn write(r: &Results, opts: &Options, repo: &Path) -> Result<()> {
    std::fs::create_dir_all(&opts.out)?;
    std::fs::write(
        opts.out.join("results.json"),
        serde_json::to_string_pretty(r)? + "\n",
    )?;
    let table = results::render_table(&r.rows);
    let versions: Vec<&VersionResult> = r.versions.iter().collect();
    let brute = results::render_brute_force(&r.brute_force, &versions);
    let ours = r
        .tool_s_per_validated_fix
        .map_or("n/a — no fix produced".to_string(), |x| {
            format!("{x:.1} s")
        });
    let md = format!(
        "# Benchmark results\n\n{}\n\nCommand: `{}` ({:.0} s in total).\n\n\
         ## Localization and repair per fault class\n\n{}\n{}\n\n\
         ## Merged ranking vs Ochiai alone, one tie rule\n\n\
         The main table takes the tool's ranks as reported (ties broken by source order) and \
         Ochiai's with ties at their mid rank. Here both use the mid rank: suspects of the \
         merged ranking with equal score share the mean of their positions.\n\n{}\n\
         ## Predicate switching: LEFS and PRIOR\n\n\
         The tool runs with `--switching-order both`: per faulty version and ordering, whether \
         some failing test got a critical predicate (its switched run passed, or its failure \
         moved later in the test) and the reruns to the first one (fewest over the version's \
         failing tests).\n\n{}\n\
         ## Model-based diagnosis\n\n\
         *diagnosed*: some failing call was inside the subset the model covers; *fault in a \
         minimal diagnosis*: a component of some minimal diagnosis (up to two components) \
         overlaps the true fault. *with* / *without*: the merged ranking redone from the \
         report's per-technique evidence with and without the diagnosis, ties at their mid \
         rank.\n\n{}\n\
         ## Automated path generation\n\n\
         *searched*: some failing call could be driven (its arguments are primitives or \
         sequences of them) and modelled; *run found*: path generation's closest feasible \
         successful run was rerun, took the generated path and met the specification; \
         *fault in its report*: a branch it evaluates differently is on a faulty line; \
         *distance*: branch instances evaluated differently (shortest over the version's \
         tests). *with* / *without*: the merged ranking redone with and without path \
         generation, ties at their mid rank. *RR*: the Renieris–Reiss score (the share of the \
         program dependence graph a breadth-first search from the report does not reach \
         before a faulty statement) of path generation's report where it found a run, and of \
         the merged ranking's top suspect.\n\n{}\n\
         Renieris–Reiss scores in the bins of the paper's Table 4 (% of versions):\n\n{}\n\
         ## Repair\n\n\
         *repaired*: versions where the repair stage ran (it needs a suspect); *validated fix* / \
         *correct fix*: as above, over all versions of the class; *median repair time*: the \
         stage's own seconds (`timing.repair_s`). Candidates are checked by rerunning the tests \
         that reach the site with the candidate evaluated at its hook (no rebuild), and the \
         plausible or undecided ones by rebuilding a patched copy and running its whole suite; \
         *rerun checks/s* and *rebuilds/s* pool the class's versions (candidates over the \
         seconds spent on them), measured side by side in this run, and *ratio* is the first \
         over the second.\n\n{}\n\
         ## Brute-force mutation repair (baseline)\n\n\
         Each sampled faulty version is copied; every candidate single mutation of the faulty \
         program (the same engine as the fault generator, all classes, in a fixed \
         class-alternating order, capped) is applied, the crate rebuilt with plain `cargo test` \
         in its own target dir, and the visible suite run. *validated*: the suite passes; \
         *correct*: validated and equal to the original program up to whitespace or passing the \
         hidden tests too. Time counts every candidate's build and test run; the baseline \
         build of the faulty program (which compiles the dependencies) and the hidden-test \
         checks are not counted, since the tool's own runs share warm dependencies. The tool's time per validated fix is its `repair_s` \
         divided by its validated fixes on the same version (over all versions of this run: \
         {}).\n\n{}",
        provenance(r),
        r.command,
        r.total_s,
        table,
        NOTES,
        results::render_tie_rule(&r.versions),
        results::render_switching(&r.versions),
        results::render_diagnosis(&r.versions),
        results::render_pathgen(&r.versions),
        results::render_rr(&r.versions),
        results::render_repair(&r.versions),
        ours,
        brute
    );
    std::fs::write(opts.out.join("results.md"), md)?;
    eprintln!(
        "Wrote {} and {}",
        opts.out.join("results.json").display(),
        opts.out.join("results.md").display()
    );
    if opts.update_readme {
        let path = repo.join(RESULTS_DOC);
        let readme = std::fs::read_to_string(&path)?;
        let body = format!(
            "{}\n\n{}\nDetails, notes and the brute-force baseline: \
             [`bench/results/results.md`](../bench/results/results.md).\n",
            provenance(r),
            table
        );
        match results::replace_block(
            &readme,
            "<!-- results-table -->",
            "<!-- /results-table -->",
            &body,
        ) {
            Some(new) => {
                std::fs::write(&path, new)?;
                eprintln!("Updated the results table in {}", path.display());
            }
            None => eprintln!(
                "{RESULTS_DOC} has no <!-- results-table --> … <!-- /results-table --> block: not updated"
            ),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mutate::{FaultClass, Mutation};
    use std::collections::BTreeSet;

    #[test]
    fn civil_dates() {
        assert_eq!(civil_date(0), "1970-01-01");
        assert_eq!(civil_date(11_016), "2000-02-29");
        assert_eq!(civil_date(19_723), "2024-01-01");
    }

    fn version(id: &str, program: &str, n: usize) -> FaultyVersion {
        let m = Mutation {
            file: "src/lib.rs".into(),
            byte_start: 0,
            byte_end: 1,
            line: 1,
            column: 1,
            end_line: 1,
            end_column: 2,
            original: "a".into(),
            replacement: "b".into(),
            class: FaultClass::Constant,
        };
        FaultyVersion {
            id: id.into(),
            program: program.into(),
            classes: vec![FaultClass::Constant; n],
            mutations: vec![m; n],
            failing_tests: vec![],
        }
    }

    fn opts() -> Options {
        Options {
            quick: false,
            programs: vec![],
            limit: None,
            per_program: None,
            test_timeout: 10.0,
            version_timeout: Duration::from_secs(1),
            out: PathBuf::new(),
            faults: PathBuf::new(),
            corpus: PathBuf::new(),
            repair_sample: 1,
            repair_candidates: 1,
            tool: None,
            jobs: 1,
            parallel: 1,
            update_readme: false,
            keep: false,
            command: String::new(),
        }
    }

    #[test]
    fn quick_takes_the_first_single_fault_version_of_each_program() {
        let all = vec![
            version("a-01", "a", 2),
            version("a-02", "a", 1),
            version("a-03", "a", 1),
            version("b-01", "b", 1),
        ];
        let q = select(
            &all,
            &Options {
                quick: true,
                ..opts()
            },
        );
        assert_eq!(
            q.iter().map(|v| v.id.as_str()).collect::<Vec<_>>(),
            ["a-02", "b-01"]
        );
        let p = select(
            &all,
            &Options {
                programs: vec!["b".into()],
                ..opts()
            },
        );
        assert_eq!(p.len(), 1);
        assert_eq!(
            select(
                &all,
                &Options {
                    limit: Some(3),
                    ..opts()
                }
            )
            .len(),
            3
        );
        let sample = select(
            &all,
            &Options {
                per_program: Some(1),
                ..opts()
            },
        );
        let programs: BTreeSet<&str> = all.iter().map(|v| v.program.as_str()).collect();
        let multis: BTreeSet<&str> = all
            .iter()
            .filter(|v| v.is_multi())
            .map(|v| v.program.as_str())
            .collect();
        assert_eq!(sample.len(), programs.len() + multis.len());
    }

    #[test]
    fn the_brute_force_sample_is_spread_and_single_fault() {
        let all: Vec<FaultyVersion> = (0..10)
            .map(|i| version(&format!("p-{i:02}"), "p", if i == 0 { 2 } else { 1 }))
            .collect();
        let s = brute_force_sample(&all, 3);
        assert_eq!(
            s.iter().map(|v| v.id.as_str()).collect::<Vec<_>>(),
            ["p-01", "p-04", "p-07"]
        );
        assert_eq!(brute_force_sample(&all, 50).len(), 9);
    }
}
