//! Sharding: `--shard K/N` runs (here three on one machine, as a CI matrix would run them
//! on three) and `cargo autodebug merge`, against one unsharded run of the same crate.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

use crate::common::{self, fixture_path as fixture};

/// `cargo autodebug merge ARGS` in `dir`.
fn merge(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cargo-autodebug"))
        .arg("autodebug")
        .arg("merge")
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env_remove("GITHUB_ACTIONS")
        .output()
        .expect("cargo-autodebug runs")
}

fn read(dir: &Path) -> Value {
    let text = std::fs::read_to_string(dir.join("report.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// What a merged report must share with the unsharded one: the verdict, the suspects, the
/// fixes and what the rebuilds did.
fn outcome(report: &Value) -> Value {
    let suspects: Vec<Value> = (report["suspects"].as_array().unwrap().iter())
        .map(|s| serde_json::json!([s["rank"], s["file"], s["line"], s["column"], s["code"]]))
        .collect();
    let fixes: Vec<Value> = (report["fixes"].as_array().unwrap().iter())
        .map(|f| {
            serde_json::json!([
                f["rank"],
                f["file"],
                f["line"],
                f["column"],
                f["replacement"],
                f["validated"],
                f["validation"],
                f["tests_passed"],
                f["tests_total"],
                f["diff"]
            ])
        })
        .collect();
    let repair = &report["repair"];
    serde_json::json!({
        "status": report["status"],
        "exit_code": report["exit_code"],
        "suspects": suspects,
        "fixes": fixes,
        "rebuilds": [repair["rebuilds"], repair["validated"], repair["cut"]],
    })
}

/// Two rounds of a matrix: the shards split the baseline's test runs
/// (`--shard K/N --baseline-only`), then each goes on from every shard's part
/// (`--baseline-from`) and makes its share of the rebuilds, one of them (shard 1) running
/// the whole baseline itself instead, as a shard without a first round does; the merge is
/// the unsharded run, whatever the order of the directories.
#[test]
fn shards_merge_into_the_unsharded_report() {
    let dir = common::copy_crate(&fixture("repair-search"));
    let root = dir.path();
    // Spectrum and switching only: their verdicts do not depend on how loaded the machine
    // is (a solver's time limit can run out on one run and not on another).
    let techniques = ["--techniques", "spectrum,switching,repair"];
    common::autodebug_expecting(root, &[&techniques[..], &["-o", "whole"]].concat(), 5);
    let whole = read(&root.join("whole"));
    assert!(whole.get("shard").is_none());
    let total = whole["tests"]["total"].as_u64().unwrap();

    // Round 1: each shard runs its share of the tests, no more.
    let mut shares = Vec::new();
    for k in 0..3 {
        let (shard, out) = (format!("{k}/3"), format!("base-{k}"));
        let output = common::autodebug(
            root,
            &[
                &techniques[..],
                &["--shard", &shard, "--baseline-only", "-o", &out],
            ]
            .concat(),
        );
        // The share with the red test exits as a red run does; the others are clean.
        assert!(
            matches!(output.status.code(), Some(0 | 5)),
            "{}",
            common::describe(&output)
        );
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains(&format!("Shard {shard}: ran the baseline of ")),
            "{stderr}"
        );
        let part: Value = serde_json::from_str(
            &std::fs::read_to_string(root.join(&out).join("baseline.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(part["selected"].as_array().unwrap().len() as u64, total);
        shares.push(part["results"].as_array().unwrap().len() as u64);
        assert!(root.join(&out).join("report.json").is_file());
        assert!(
            !root.join(&out).join("traces").exists(),
            "round 1 records nothing"
        );
    }
    assert_eq!(shares.iter().sum::<u64>(), total, "{shares:?}");
    assert!(shares.iter().filter(|&&n| n > 0).count() >= 2, "{shares:?}");

    // Round 2: the shards read the three parts instead of running the baseline, but for
    // shard 1, which runs it whole.
    let mut rebuilt_here = Vec::new();
    for k in 0..3 {
        let (shard, out) = (format!("{k}/3"), format!("shard-{k}"));
        let from: &[&str] = if k == 1 {
            &[]
        } else {
            &[
                "--baseline-from",
                "base-2,base-0",
                "--baseline-from",
                "base-1",
            ]
        };
        let output = common::autodebug_expecting(
            root,
            &[&techniques[..], &["--shard", &shard, "-o", &out], from].concat(),
            5,
        );
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            stdout.contains(&format!("Shard  {shard}: rebuilt ")),
            "{stdout}"
        );
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(
            stderr.contains(&format!("Baseline of {total} tests from 3 shards' parts")),
            k != 1,
            "{stderr}"
        );
        let part = &read(&root.join(&out))["shard"];
        assert_eq!(
            (part["index"].as_u64(), part["count"].as_u64()),
            (Some(k), Some(3))
        );
        let items = part["items"].as_array().unwrap();
        rebuilt_here.push(items.iter().filter(|i| i.get("rebuilt").is_some()).count());
    }
    // The rebuilds were split: no shard made all of the queue's first ones.
    let rebuilds = whole["repair"]["rebuilds"].as_u64().unwrap() as usize;
    assert!(rebuilds >= 3, "{whole:#}");
    assert!(
        rebuilt_here.iter().filter(|&&n| n > 0).count() >= 2,
        "{rebuilt_here:?}"
    );

    // The order of the directories does not matter; the merged report is the unsharded one.
    let output = common::exited(
        merge(root, &["shard-2", "shard-0", "shard-1", "-o", "merged"]),
        5,
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("Fix    `lo < hi` → `lo <= hi`"), "{stdout}");
    assert!(!stdout.contains("Shard "), "{stdout}");
    let merged = read(&root.join("merged"));
    assert!(merged.get("shard").is_none(), "{merged:#}");
    assert_eq!(outcome(&merged), outcome(&whole));
    let failing = |report: &Value| -> Vec<Value> {
        (report["failing_tests"].as_array().unwrap().iter())
            .map(|t| serde_json::json!([t["target"], t["name"], t["outcome"], t["reruns"]]))
            .collect()
    };
    assert_eq!(failing(&merged), failing(&whole));
    let patch = std::fs::read_to_string(root.join("merged/fix.patch")).unwrap();
    assert_eq!(
        patch,
        std::fs::read_to_string(root.join("whole/fix.patch")).unwrap()
    );
    assert!(root.join("merged/report.html").is_file());

    // A shard left out, or the output written over a shard's: refused, nothing written.
    let output = common::exited(merge(root, &["shard-0", "shard-2", "-o", "partial"]), 2);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("shard 1/3 is missing"), "{stderr}");
    assert!(!root.join("partial").exists());
    let before = std::fs::read(root.join("shard-0/report.json")).unwrap();
    common::exited(
        merge(root, &["shard-0", "shard-1", "shard-2", "-o", "shard-0"]),
        2,
    );
    assert_eq!(
        std::fs::read(root.join("shard-0/report.json")).unwrap(),
        before
    );
    // Not a report at all.
    let output = common::exited(merge(root, &["src"]), 2);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("no report in src"), "{stderr}");

    // Parts of an incomplete split: refused before anything runs.
    let output = common::autodebug_expecting(
        root,
        &[
            &techniques[..],
            &["--baseline-from", "base-0,base-2", "-o", "nope"],
        ]
        .concat(),
        2,
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("shard 1/3 is missing"), "{stderr}");
    assert!(!root.join("nope/traces").exists());
}
