//! The equivalence sweep's CI sample: a handful of small crates built and tested plainly and
//! instrumented by the real `cargo autodebug --baseline-only`. Every crate must build both
//! ways with the same verdict for every test, and its functions must all stay instrumented.
//! The full sweep is `autodebug-bench sweep` (bench/README.md).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use autodebug_bench::sweep::{self, Crate};
use autodebug_bench::{repo_root, runner};

/// Registry crates of the sample: in the workspace's own lock file (so on any machine that
/// built the workspace), without dev-dependencies: edition 2015, a `no_std` crate, a
/// 2024 one.
const REGISTRY: &str = "strsim 0.11.1\nheck 0.5.0\ncargo-platform 0.3.2\n";

/// HumanEvalFix tasks of the sample (materialized from `../shared/external` when it is there).
const HEFIX_IDS: &str = "0-1";

#[test]
fn a_sample_of_real_crates_builds_and_behaves_the_same_instrumented() {
    let root = repo_root();
    let scratch = tempfile::tempdir().unwrap();
    let mut crates: Vec<Crate> = sweep::crates_in(&root.join("bench/corpus"), "corpus")
        .unwrap()
        .into_iter()
        .filter(|c| c.name == "sum" || c.name == "max-array")
        .collect();
    let list = scratch.path().join("crates.txt");
    std::fs::write(&list, REGISTRY).unwrap();
    crates.extend(sweep::listed_crates(&list, &cargo_home().join("registry/src")).unwrap());
    let hefix = root.join("../shared/external");
    if hefix.join("hefix.py").is_file() {
        for variant in ["buggy", "canonical"] {
            let dir = scratch.path().join(format!("hefix-{variant}"));
            materialize(&hefix, &dir, variant);
            crates.extend(sweep::crates_in(&dir, &format!("hefix-{variant}")).unwrap());
        }
    } else {
        eprintln!(
            "{} is not here: no HumanEvalFix crate in the sample",
            hefix.display()
        );
    }

    let tool = workspace_tool(&root);
    let target = std::env::temp_dir().join("autodebug-sweep-sample-target");
    let opts = sweep::Options {
        tool,
        scratch: scratch.path().join("work"),
        plain_target: target.join("plain"),
        instrumented_target: target.join("instrumented"),
        limit: Duration::from_secs(300),
        test_timeout: 60.0,
        jobs: 2,
    };
    let results = sweep::run(&crates, &opts).unwrap();
    print!(
        "{}",
        sweep::markdown(&results, "CI sample of the equivalence sweep")
    );
    for r in &results {
        assert!(r.plain_built, "{}", sweep::line(r));
        assert!(r.equivalent(), "{}", sweep::line(r));
        assert!(r.tests > 0, "{}", sweep::line(r));
        assert_eq!(r.functions_instrumented, r.functions, "{}", sweep::line(r));
        // No item and no site built without its hook (an edition-2015 crate read a path
        // of the hooks as a path from its root once, and lost every compound assignment).
        assert!(
            r.left_out.is_empty(),
            "{}: {:?}",
            sweep::line(r),
            r.left_out
        );
    }
    // The crates nobody annotated got the attribute on every function, and their sites
    // were compiled.
    let strsim = results.iter().find(|r| r.name == "strsim-0.11.1").unwrap();
    assert!(strsim.functions > 20, "{}", sweep::line(strsim));
    assert!(
        strsim.sites.is_some_and(|s| s > 100),
        "{}",
        sweep::line(strsim)
    );
}

/// The tool as `cargo test --workspace` builds it: `cargo build -p cargo-autodebug` unifies
/// features without the dev-dependencies, so under `cargo test --workspace` it compiled a
/// second tool (about a minute); `--no-run` finds every unit fresh there, and builds what is
/// missing when this test runs alone.
fn workspace_tool(root: &Path) -> PathBuf {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(cargo)
        .args([
            "test",
            "--workspace",
            "--no-run",
            "--quiet",
            "--manifest-path",
        ])
        .arg(root.join("Cargo.toml"))
        .status()
        .unwrap();
    assert!(status.success(), "cargo test --workspace --no-run failed");
    std::path::absolute(runner::target_dir(root).join("debug/cargo-autodebug")).unwrap()
}

fn cargo_home() -> PathBuf {
    std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").unwrap()).join(".cargo"))
}

fn materialize(hefix: &Path, out: &Path, variant: &str) {
    let status = Command::new("python3")
        .arg(hefix.join("hefix.py"))
        .args(["materialize", "--jsonl"])
        .arg(hefix.join("hefix-dev.jsonl"))
        .arg("--out")
        .arg(out)
        .args(["--ids", HEFIX_IDS, "--variant", variant])
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "hefix.py materialize failed");
}
