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

#[test]
fn three_shards_merge_into_the_unsharded_report() {
    let dir = common::copy_crate(&fixture("repair-search"));
    let root = dir.path();
    // Spectrum and switching only: their verdicts do not depend on how loaded the machine
    // is (a solver's time limit can run out on one run and not on another).
    let techniques = ["--techniques", "spectrum,switching,repair"];
    let whole = common::autodebug(root, &[&techniques[..], &["-o", "whole"]].concat());
    assert_eq!(whole.status.code(), Some(5), "{}", common::describe(&whole));
    let whole = read(&root.join("whole"));
    assert!(whole.get("shard").is_none());
    let mut rebuilt_here = Vec::new();
    for k in 0..3 {
        let (shard, out) = (format!("{k}/3"), format!("shard-{k}"));
        let output = common::autodebug(
            root,
            &[&techniques[..], &["--shard", &shard, "-o", &out]].concat(),
        );
        assert_eq!(
            output.status.code(),
            Some(5),
            "{}",
            common::describe(&output)
        );
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            stdout.contains(&format!("Shard  {shard}: rebuilt ")),
            "{stdout}"
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
    let output = merge(root, &["shard-2", "shard-0", "shard-1", "-o", "merged"]);
    assert_eq!(
        output.status.code(),
        Some(5),
        "{}",
        common::describe(&output)
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("Fix    `lo < hi` → `lo <= hi`"), "{stdout}");
    assert!(!stdout.contains("Shard "), "{stdout}");
    let merged = read(&root.join("merged"));
    assert!(merged.get("shard").is_none(), "{merged:#}");
    assert_eq!(outcome(&merged), outcome(&whole));
    let patch = std::fs::read_to_string(root.join("merged/fix.patch")).unwrap();
    assert_eq!(
        patch,
        std::fs::read_to_string(root.join("whole/fix.patch")).unwrap()
    );
    assert!(root.join("merged/report.html").is_file());

    // A shard left out, or the output written over a shard's: refused, nothing written.
    let output = merge(root, &["shard-0", "shard-2", "-o", "partial"]);
    assert_eq!(
        output.status.code(),
        Some(2),
        "{}",
        common::describe(&output)
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("shard 1/3 is missing"), "{stderr}");
    assert!(!root.join("partial").exists());
    let before = std::fs::read(root.join("shard-0/report.json")).unwrap();
    let output = merge(root, &["shard-0", "shard-1", "shard-2", "-o", "shard-0"]);
    assert_eq!(
        output.status.code(),
        Some(2),
        "{}",
        common::describe(&output)
    );
    assert_eq!(
        std::fs::read(root.join("shard-0/report.json")).unwrap(),
        before
    );
    // Not a report at all.
    let output = merge(root, &["src"]);
    assert_eq!(
        output.status.code(),
        Some(2),
        "{}",
        common::describe(&output)
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("no report in src"), "{stderr}");
}
