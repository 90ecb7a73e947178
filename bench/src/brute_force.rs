//! The brute-force repair baseline, done the way mutation tools do it: every candidate
//! single mutation of the faulty program is applied, the crate rebuilt, and the visible
//! suite run; a candidate that passes is validated, and correct if it restores the original
//! text or also passes the hidden tests.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::Result;

use crate::cargo_test::{Build, Scratch, rewrite};
use crate::corpus::{self, HIDDEN_TARGET, Program, SOURCE};
use crate::faults::FaultyVersion;
use crate::mutate;
use crate::results::BruteForce;
use crate::sample::{Rng, SEED, spread_order};
use crate::score::same_modulo_whitespace;

/// Runs the baseline on `version` in `work` with at most `cap` candidates.
pub fn brute_force(
    program: &Program,
    version: &FaultyVersion,
    work: &Path,
    cap: usize,
    test_timeout: Duration,
    log: &mut dyn FnMut(&str),
) -> Result<BruteForce> {
    let dir = work.join(format!("brute-{}", version.id));
    if dir.exists() {
        std::fs::remove_dir_all(&dir)?;
    }
    corpus::copy_program(program, &dir)?;
    let correct = program.source()?;
    let faulty = mutate::apply(&correct, &version.mutations.iter().collect::<Vec<_>>())?;
    let scratch = Scratch {
        dir: dir.clone(),
        target: work.join(format!("brute-{}-target", version.id)),
        package: program.package.clone(),
    };
    let build_limit = Duration::from_secs(600);
    rewrite(&dir.join(SOURCE), &faulty)?;
    // The baseline build a mutation tool starts with compiles the dependencies: not timed,
    // as the tool's runs share a warm target dir.
    scratch.build(false, build_limit)?;
    let started = Instant::now();
    let candidates = mutate::enumerate(SOURCE, &faulty)?;
    let order = spread_order(
        &candidates,
        &mut Rng::new(SEED, &format!("brute:{}", version.id)),
    );
    let mut out = BruteForce {
        id: version.id.clone(),
        enumerated: candidates.len(),
        ..BruteForce::default()
    };
    let mut hidden_time = Duration::ZERO;
    for &i in order.iter().take(cap) {
        let m = &candidates[i];
        out.candidates += 1;
        let text = mutate::apply(&faulty, &[m])?;
        rewrite(&dir.join(SOURCE), &text)?;
        if scratch.build(true, build_limit)? != Build::Built {
            continue;
        }
        out.compiled += 1;
        let run = scratch.test(test_timeout)?;
        if run.timed_out {
            out.hung += 1;
            continue;
        }
        if !run.all_passed() {
            continue;
        }
        out.validated += 1;
        let judged = Instant::now();
        let correct_fix = same_modulo_whitespace(&text, &correct)
            || passes_hidden(program, &scratch, &text, test_timeout)?;
        hidden_time += judged.elapsed();
        out.correct += correct_fix as usize;
        log(&format!(
            "  [brute force {}] validated{}: {}",
            version.id,
            if correct_fix { ", correct" } else { "" },
            m.describe()
        ));
    }
    out.seconds = (started.elapsed() - hidden_time).as_secs_f64();
    std::fs::remove_dir_all(&dir).ok();
    std::fs::remove_dir_all(&scratch.target).ok();
    Ok(out)
}

/// Whether the source `text` (already written in `scratch`) also passes the hidden tests.
/// The hidden test file is removed again afterwards.
pub fn passes_hidden(
    program: &Program,
    scratch: &Scratch,
    text: &str,
    test_timeout: Duration,
) -> Result<bool> {
    let Some(hidden) = program.hidden_tests() else {
        return Ok(false);
    };
    let target = scratch.dir.join(HIDDEN_TARGET);
    std::fs::create_dir_all(target.parent().expect("tests/ has a parent"))?;
    std::fs::copy(&hidden, &target)?;
    // The source is rewritten so that the build must recompile the package.
    rewrite(&scratch.dir.join(SOURCE), text)?;
    let result = (|| -> Result<bool> {
        if scratch.build(true, Duration::from_secs(600))? != Build::Built {
            return Ok(false);
        }
        Ok(scratch.test(test_timeout)?.all_passed())
    })();
    std::fs::remove_file(&target).ok();
    result
}
