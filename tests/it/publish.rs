//! Pull-request output, end to end on the `repair-format` fixture (CRLF line endings,
//! non-ASCII text): the suggestion blocks of `report.md`, the rustfix diagnostics and the
//! SARIF fixes each turn the source into exactly what `git apply fix.patch`-style diffs give;
//! the SARIF log has every field the 2.1.0 schema requires; workflow annotations appear only
//! under `GITHUB_ACTIONS` (on stderr when stdout carries JSON); `--in-diff` ranks the changed
//! lines first and keeps review comments on them.

use crate::common;

use std::collections::HashSet;
use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

fn out_file(dir: &Path, name: &str) -> String {
    let path = dir.join("autodebug.out").join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `cargo autodebug ARGS` with `GITHUB_ACTIONS` set to `actions` (or unset).
fn run(dir: &Path, args: &[&str], actions: Option<&str>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cargo-autodebug"));
    cmd.arg("autodebug")
        .args(args)
        .arg("--target-dir")
        .arg(common::shared_target_dir())
        .current_dir(dir)
        .env_remove("AUTODEBUG_INSTRUMENT")
        .env_remove("GITHUB_ACTIONS")
        .env("NO_COLOR", "1");
    if let Some(value) = actions {
        cmd.env("GITHUB_ACTIONS", value);
    }
    cmd.output().expect("cargo-autodebug runs")
}

/// A suggestion read back from `report.md`: lines `start..=end` of `path` become `lines`.
#[derive(Debug)]
struct Suggestion {
    path: String,
    start: usize,
    end: usize,
    lines: Vec<String>,
}

/// The suggestion blocks of `report.md`, grouped by the fix (`### …` section) they belong to.
fn parse_suggestions(md: &str) -> Vec<Vec<Suggestion>> {
    let mut fixes: Vec<Vec<Suggestion>> = Vec::new();
    let mut lines = md.lines();
    while let Some(line) = lines.next() {
        if line.starts_with("### ") {
            fixes.push(Vec::new());
            continue;
        }
        let Some(marker) = line.strip_prefix("<!-- autodebug-suggestion ") else {
            continue;
        };
        let field = |name: &str| -> String {
            let at = marker.find(&format!("{name}=")).unwrap() + name.len() + 1;
            let rest = &marker[at..];
            match rest.strip_prefix('"') {
                Some(quoted) => quoted.split('"').next().unwrap().to_string(),
                None => rest.split(' ').next().unwrap().to_string(),
            }
        };
        let open = lines
            .by_ref()
            .find(|l| l.starts_with("```"))
            .expect("a fence after the marker");
        assert!(open.ends_with("suggestion"), "{open}");
        let fence = open.trim_end_matches("suggestion");
        let body = lines
            .by_ref()
            .take_while(|l| *l != fence)
            .map(str::to_string)
            .collect();
        fixes
            .last_mut()
            .expect("a suggestion under a fix heading")
            .push(Suggestion {
                path: field("path"),
                start: field("start_line").parse().unwrap(),
                end: field("end_line").parse().unwrap(),
                lines: body,
            });
    }
    fixes
}

/// `text` with the suggestions made, as GitHub commits them: whole lines replaced, keeping
/// the file's line ending.
fn apply_suggestions(text: &str, suggestions: &[Suggestion]) -> String {
    let ending = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    // From the bottom up, so earlier line numbers stay right.
    let mut sorted: Vec<&Suggestion> = suggestions.iter().collect();
    sorted.sort_by_key(|s| std::cmp::Reverse(s.start));
    for s in sorted {
        assert!(
            s.start >= 1 && s.end >= s.start && s.end <= lines.len(),
            "{s:?}"
        );
        lines.splice(s.start - 1..s.end, s.lines.iter().cloned());
    }
    let mut out = lines.join(ending);
    if text.ends_with('\n') {
        out.push_str(ending);
    }
    out
}

/// `source` (the text of `path` in the crate) with a fix's unified diff applied by `git apply`.
fn git_apply(path: &str, source: &str, diff: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(path);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, source).unwrap();
    std::fs::write(dir.path().join("fix.patch"), diff).unwrap();
    let output = Command::new("git")
        .args(["apply", "--whitespace=nowarn", "fix.patch"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(output.status.success(), "git apply: {output:?}\n{diff}");
    std::fs::read_to_string(&file).unwrap()
}

#[test]
fn suggestions_rustfix_and_sarif_fixes_give_the_validated_fixes() {
    let (dir, source) = common::crlf_fixture();
    let junit = dir.path().join("autodebug.out.junit.xml");
    let output = run(dir.path(), &["--junit", junit.to_str().unwrap()], None);
    assert_eq!(
        output.status.code(),
        Some(5),
        "{}",
        common::describe(&output)
    );
    // JUnit XML: the failing test as a failure whose text is the diagnosis.
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(
        xml.starts_with("<?xml")
            && xml.contains(
                "<testsuite name=\"fixture-repair-format::fixture_repair_format\" tests=\"1\""
            )
            && xml.contains("<testcase name=\"tests::larger_second\"")
            && xml.contains("<failure message=\"assertion `left == right` failed")
            && xml.contains("Where: src/lib.rs:")
            && xml.contains("Fix: src/lib.rs:10: `x` → `y`, validated"),
        "{xml}"
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        !stdout.contains("::error") && !stderr.contains("::error"),
        "annotations outside GitHub Actions:\n{stdout}\n{stderr}"
    );
    let report = common::report(dir.path());
    let validated: Vec<&Value> = report["fixes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["validated"] == true)
        .collect();
    assert!(!validated.is_empty(), "{report:#}");
    // What each validated fix makes of the file, by its diff.
    let expected: Vec<String> = validated
        .iter()
        .map(|f| git_apply("src/lib.rs", &source, f["diff"].as_str().unwrap()))
        .collect();
    assert!(expected[0].contains("r =   y ;"), "{}", expected[0]);

    // report.md: one section per validated fix, whose blocks give that fix.
    let md = out_file(dir.path(), "report.md");
    let sections = parse_suggestions(&md);
    assert_eq!(sections.len(), validated.len(), "{md}");
    for (i, (blocks, want)) in sections.iter().zip(&expected).enumerate() {
        assert!(!blocks.is_empty(), "fix {i} has no suggestion block:\n{md}");
        assert!(blocks.iter().all(|b| b.path == "src/lib.rs"), "{blocks:?}");
        assert_eq!(&apply_suggestions(&source, blocks), want, "fix {i}:\n{md}");
    }
    assert!(md.contains("**Where:** `src/lib.rs:10:"), "{md}");

    // fixes.rustfix.json: rustfix reads it; every suggestion applied gives exactly the top
    // fix (the alternatives are not there); the byte ranges hold the edits' original text;
    // none claims to be machine-applicable.
    let json = out_file(dir.path(), "fixes.rustfix.json");
    let suggestions =
        rustfix::get_suggestions_from_json(&json, &HashSet::new(), rustfix::Filter::Everything)
            .unwrap();
    assert!(validated.len() > 1, "alternatives to leave out: {report:#}");
    assert_eq!(suggestions.len(), 1, "{json}");
    let fixed = rustfix::apply_suggestions(&source, &suggestions).unwrap();
    assert_eq!(fixed, expected[0], "rustfix, every suggestion applied");
    let mut edits: Vec<&Value> = validated[0]["edits"].as_array().unwrap().iter().collect();
    edits.sort_by_key(|e| (e["line"].as_u64(), e["column"].as_u64()));
    let replacements = &suggestions[0].solutions[0].replacements;
    assert_eq!(replacements.len(), edits.len());
    for (r, edit) in replacements.iter().zip(edits) {
        assert_eq!(r.snippet.file_name, "src/lib.rs");
        assert_eq!(&source[r.snippet.range.clone()], edit["original"], "{edit}");
        assert_eq!(r.replacement, edit["replacement"]);
    }
    let machine = rustfix::get_suggestions_from_json(
        &json,
        &HashSet::new(),
        rustfix::Filter::MachineApplicableOnly,
    )
    .unwrap();
    assert!(machine.is_empty());

    // report.sarif: valid by the schema's required fields; each SARIF fix gives a fix.
    let sarif: Value = serde_json::from_str(&out_file(dir.path(), "report.sarif")).unwrap();
    let problems = sarif_check::check(&sarif);
    assert!(problems.is_empty(), "{problems:#?}");
    sarif_check::against_the_official_schema(&sarif);
    let suspects: Vec<&Value> = sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["ruleId"] == "autodebug/suspect")
        .collect();
    let ranks: std::collections::BTreeSet<String> =
        suspects.iter().map(|r| r["rank"].to_string()).collect();
    assert!(
        suspects.len() > 1 && ranks.len() > 1,
        "ranks differ: {ranks:?}"
    );
    assert!(
        suspects
            .iter()
            .all(|r| r["partialFingerprints"]["autodebugSite/v1"].is_string()),
        "{sarif:#}"
    );
    assert_eq!(sarif["runs"][0]["invocations"][0]["exitCode"], 5);
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    let top = &results[0];
    assert_eq!(top["level"], "error");
    assert_eq!(
        top["locations"][0]["physicalLocation"]["region"]["startLine"],
        10
    );
    let mut sarif_fixed = Vec::new();
    for result in results {
        for fix in result["fixes"].as_array().into_iter().flatten() {
            let change = &fix["artifactChanges"][0];
            assert_eq!(change["artifactLocation"]["uri"], "src/lib.rs");
            let mut text = source.clone();
            let mut replacements: Vec<&Value> =
                change["replacements"].as_array().unwrap().iter().collect();
            replacements
                .sort_by_key(|r| std::cmp::Reverse(r["deletedRegion"]["byteOffset"].as_u64()));
            for r in replacements {
                let region = &r["deletedRegion"];
                let at = region["byteOffset"].as_u64().unwrap() as usize;
                let len = region["byteLength"].as_u64().unwrap() as usize;
                // The line/column form names the same bytes.
                let line = region["startLine"].as_u64().unwrap() as usize;
                let column = region["startColumn"].as_u64().unwrap() as usize;
                let line_start: usize = source
                    .split_inclusive('\n')
                    .take(line - 1)
                    .map(str::len)
                    .sum();
                let by_column: usize = source[line_start..]
                    .char_indices()
                    .nth(column - 1)
                    .map(|(i, _)| i)
                    .unwrap();
                assert_eq!(line_start + by_column, at, "{region}");
                text.replace_range(at..at + len, r["insertedContent"]["text"].as_str().unwrap());
            }
            sarif_fixed.push(text);
        }
    }
    assert_eq!(sarif_fixed.len(), expected.len());
    for text in &sarif_fixed {
        assert!(
            expected.contains(text),
            "a SARIF fix is none of the validated fixes"
        );
    }
    assert_eq!(
        std::fs::read_to_string(dir.path().join("src/lib.rs")).unwrap(),
        source,
        "the user's file changed without --apply"
    );
}

#[test]
fn annotations_only_under_github_actions_and_in_diff_ranks_the_changed_lines_first() {
    let (dir, _source) = common::crlf_fixture();
    // A pull request that changed line 8 (`let mut r = x;`), not the faulty line 10.
    let diff = "diff --git a/src/lib.rs b/src/lib.rs\n--- a/src/lib.rs\n+++ b/src/lib.rs\n\
                @@ -8,1 +8,1 @@\n-    let mut r = y;\n+    let mut r = x;   /* keep   this */\n";
    std::fs::write(dir.path().join("pr.diff"), diff).unwrap();
    let output = run(
        dir.path(),
        &["--in-diff", "pr.diff", "--message-format", "json"],
        Some("true"),
    );
    assert_eq!(
        output.status.code(),
        Some(5),
        "{}",
        common::describe(&output)
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    for line in stdout.lines() {
        serde_json::from_str::<Value>(line)
            .unwrap_or_else(|e| panic!("not a JSON line on stdout ({e}): {line}"));
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    // The notes say why a fix was not found (a rerun that failed, a bound that cut).
    let notes = common::report(dir.path())["notes"].clone();
    assert!(
        stderr.contains("::error file=src/lib.rs,line=10,col=8,endColumn=9,title=cargo-autodebug%3A likely fault::"),
        "{stderr}\nnotes: {notes:#}"
    );
    assert!(
        stderr.contains("::warning file=src/lib.rs,line=8,"),
        "{stderr}"
    );

    let report = common::report(dir.path());
    let top = &report["suspects"][0];
    assert_eq!(top["line"], 8, "{report:#}");
    assert_eq!(top["in_diff"], true);
    assert_eq!(top["rank"], 1);
    assert!(report["suspects"][1].get("in_diff").is_none());
    // The fix is on line 10, off the diff: no review comment there, its block in the body.
    let review: Value = serde_json::from_str(&out_file(dir.path(), "review.json")).unwrap();
    assert_eq!(review["event"], "COMMENT");
    assert_eq!(
        review["comments"].as_array().unwrap().len(),
        0,
        "{review:#}"
    );
    assert!(
        review["body"].as_str().unwrap().contains("```suggestion"),
        "{review:#}"
    );

    // Human output under GitHub Actions: the commands on stdout, where the runner reads them.
    let output = run(
        dir.path(),
        &["--no-fix", "--techniques", "spectrum"],
        Some("true"),
    );
    assert_eq!(
        output.status.code(),
        Some(5),
        "{}",
        common::describe(&output)
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("::error file=src/lib.rs,line=26,"),
        "{stdout}"
    );
    assert!(
        stdout.contains("title=tests%3A%3Alarger_second failed::"),
        "{stdout}"
    );
    // Any other value of GITHUB_ACTIONS is not GitHub Actions.
    let output = run(
        dir.path(),
        &["--no-fix", "--techniques", "spectrum"],
        Some("false"),
    );
    assert!(!String::from_utf8_lossy(&output.stdout).contains("::error"));
}

#[test]
fn a_bad_diff_is_a_usage_error_before_any_build() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("Cargo.toml"),
        "[package]\nname = \"x\"\nversion = \"0.1.0\"\nedition = \"2024\"\n[workspace]\n",
    )
    .unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("src/lib.rs"), "").unwrap();
    std::fs::write(dir.path().join("notes.txt"), "not a diff\n").unwrap();
    let output = run(dir.path(), &["--in-diff", "notes.txt"], None);
    assert_eq!(
        output.status.code(),
        Some(2),
        "{}",
        common::describe(&output)
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("notes.txt is not a unified diff"),
        "{stderr}"
    );
    assert!(stderr.contains("git diff"), "{stderr}");
    let output = run(dir.path(), &["--in-diff", "missing.diff"], None);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("could not read the diff"));
}

/// The SARIF 2.1.0 schema's constraints on the objects this tool writes: required
/// properties (`required` and the `anyOf` alternatives of the schema), enumerations and
/// minimums. Taken from the OASIS schema `sarif-schema-2.1.0.json`.
mod sarif_check {
    use serde_json::Value;

    /// Validates `log` against the OASIS SARIF 2.1.0 schema in `../shared/schemas/` (beside
    /// the repository, not in it); says it skipped where that file is absent, as on a
    /// user's clone.
    pub fn against_the_official_schema(log: &Value) {
        let path = crate::common::repo_root().join("../shared/schemas/sarif-schema-2.1.0.json");
        let Ok(text) = std::fs::read_to_string(&path) else {
            eprintln!(
                "skipped the SARIF schema check: no {} (the schema lives beside the \
                 repository, not in it)",
                path.display()
            );
            return;
        };
        let schema: Value = serde_json::from_str(&text).expect("the schema is JSON");
        let validator = jsonschema::validator_for(&schema).expect("the schema compiles");
        let errors: Vec<String> = validator
            .iter_errors(log)
            .map(|e| format!("{} at {}", e, e.instance_path))
            .collect();
        assert!(
            errors.is_empty(),
            "report.sarif against the schema: {errors:#?}"
        );
        // The validator does reject: a level SARIF does not have.
        let mut broken = log.clone();
        broken["runs"][0]["results"][0]["level"] = Value::from("fatal");
        assert!(
            !validator.is_valid(&broken),
            "the schema check accepts anything"
        );
        eprintln!("report.sarif is valid against {}", path.display());
    }

    pub fn check(log: &Value) -> Vec<String> {
        let mut problems = Vec::new();
        let mut need = |ok: bool, what: String| {
            if !ok {
                problems.push(what);
            }
        };
        need(
            log["version"] == "2.1.0",
            "sarifLog.version must be \"2.1.0\"".into(),
        );
        let Some(runs) = log["runs"].as_array() else {
            return vec!["sarifLog.runs is required (an array)".into()];
        };
        for (r, run) in runs.iter().enumerate() {
            let driver = &run["tool"]["driver"];
            need(
                driver["name"].is_string(),
                format!("runs[{r}].tool.driver.name is required"),
            );
            for (i, rule) in driver["rules"].as_array().into_iter().flatten().enumerate() {
                need(rule["id"].is_string(), format!("rules[{i}].id is required"));
                for key in ["shortDescription", "fullDescription"] {
                    if !rule[key].is_null() {
                        need(
                            rule[key]["text"].is_string(),
                            format!("rules[{i}].{key}.text is required"),
                        );
                    }
                }
            }
            if let Some(kind) = run.get("columnKind") {
                need(
                    kind == "utf16CodeUnits" || kind == "unicodeCodePoints",
                    format!("runs[{r}].columnKind: {kind}"),
                );
            }
            for (name, base) in run["originalUriBaseIds"].as_object().into_iter().flatten() {
                need(
                    base["uri"].as_str().is_some_and(|u| u.ends_with('/')),
                    format!("originalUriBaseIds.{name}.uri must be a directory URI"),
                );
            }
            let rules = driver["rules"].as_array().map_or(0, Vec::len);
            for (i, result) in run["results"].as_array().into_iter().flatten().enumerate() {
                let at = format!("runs[{r}].results[{i}]");
                let message = &result["message"];
                need(
                    message["text"].is_string() || message["id"].is_string(),
                    format!("{at}.message needs text or id"),
                );
                if let Some(level) = result.get("level") {
                    need(
                        ["none", "note", "warning", "error"]
                            .contains(&level.as_str().unwrap_or("")),
                        format!("{at}.level: {level}"),
                    );
                }
                if let Some(rank) = result.get("rank") {
                    need(
                        rank.as_f64().is_some_and(|v| (0.0..=100.0).contains(&v)),
                        format!("{at}.rank: {rank}"),
                    );
                }
                if let Some(index) = result.get("ruleIndex") {
                    need(
                        index.as_u64().is_some_and(|i| (i as usize) < rules),
                        format!("{at}.ruleIndex: {index}"),
                    );
                }
                for (l, location) in result["locations"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .enumerate()
                {
                    physical(
                        &location["physicalLocation"],
                        &format!("{at}.locations[{l}]"),
                        &mut need,
                    );
                }
                for (f, fix) in result["fixes"].as_array().into_iter().flatten().enumerate() {
                    let at = format!("{at}.fixes[{f}]");
                    if !fix["description"].is_null() {
                        need(
                            fix["description"]["text"].is_string(),
                            format!("{at}.description.text"),
                        );
                    }
                    let Some(changes) = fix["artifactChanges"].as_array() else {
                        need(false, format!("{at}.artifactChanges is required"));
                        continue;
                    };
                    need(
                        !changes.is_empty(),
                        format!("{at}.artifactChanges: minItems 1"),
                    );
                    for (c, change) in changes.iter().enumerate() {
                        let at = format!("{at}.artifactChanges[{c}]");
                        need(
                            change["artifactLocation"].is_object(),
                            format!("{at}.artifactLocation is required"),
                        );
                        let Some(replacements) = change["replacements"].as_array() else {
                            need(false, format!("{at}.replacements is required"));
                            continue;
                        };
                        need(
                            !replacements.is_empty(),
                            format!("{at}.replacements: minItems 1"),
                        );
                        for (k, replacement) in replacements.iter().enumerate() {
                            region(
                                &replacement["deletedRegion"],
                                &format!("{at}.replacements[{k}].deletedRegion"),
                                &mut need,
                            );
                        }
                    }
                }
            }
        }
        problems
    }

    fn physical(location: &Value, at: &str, need: &mut impl FnMut(bool, String)) {
        need(
            location["artifactLocation"].is_object() || location["address"].is_object(),
            format!("{at}.physicalLocation needs artifactLocation or address"),
        );
        if !location["artifactLocation"].is_null() {
            need(
                location["artifactLocation"]["uri"].is_string(),
                format!("{at}: artifactLocation.uri"),
            );
        }
        if !location["region"].is_null() {
            region(&location["region"], &format!("{at}.region"), need);
        }
    }

    fn region(region: &Value, at: &str, need: &mut impl FnMut(bool, String)) {
        need(region.is_object(), format!("{at} is required"));
        need(
            ["startLine", "charOffset", "byteOffset"]
                .iter()
                .any(|k| !region[k].is_null()),
            format!("{at} needs startLine, charOffset or byteOffset"),
        );
        for key in ["startLine", "startColumn", "endLine", "endColumn"] {
            if !region[key].is_null() {
                need(
                    region[key].as_u64().is_some_and(|v| v >= 1),
                    format!("{at}.{key} must be ≥ 1"),
                );
            }
        }
        for key in ["byteOffset", "byteLength", "charOffset", "charLength"] {
            if !region[key].is_null() {
                need(
                    region[key].as_u64().is_some(),
                    format!("{at}.{key} must be ≥ 0"),
                );
            }
        }
    }

    #[test]
    fn the_checker_finds_what_is_missing() {
        let bad = serde_json::json!({
            "version": "2.0.0",
            "runs": [{ "tool": { "driver": {} }, "results": [{
                "message": {}, "level": "fatal",
                "locations": [{ "physicalLocation": { "region": { "startColumn": 0 } } }],
                "fixes": [{ "artifactChanges": [{ "replacements": [] }] }],
            }]}],
        });
        let problems = check(&bad);
        for needle in [
            "version",
            "driver.name",
            "message needs",
            "level",
            "artifactLocation or address",
            "needs startLine",
            "startColumn",
            "artifactLocation is required",
            "minItems",
        ] {
            assert!(
                problems.iter().any(|p| p.contains(needle)),
                "{needle}: {problems:#?}"
            );
        }
    }
}

/// A workspace in a subdirectory of its repository: `fix.patch` names the files from the
/// repository root, as `review.json` and the annotations do, so `git apply` takes it from
/// the repository root and from the workspace alike.
#[test]
fn fix_patch_applies_from_the_repository_root_and_from_the_workspace() {
    let repo = tempfile::tempdir().unwrap();
    let crate_copy = common::fixture("repair-format");
    let workspace = repo.path().join("crates/calc");
    std::fs::create_dir_all(workspace.parent().unwrap()).unwrap();
    let status = Command::new("cp")
        .arg("-r")
        .arg(crate_copy.path())
        .arg(&workspace)
        .status()
        .unwrap();
    assert!(status.success());
    common::git_commit_all(repo.path());
    let output = run(&workspace, &[], None);
    assert_eq!(
        output.status.code(),
        Some(5),
        "{}",
        common::describe(&output)
    );
    let patch = out_file(&workspace, "fix.patch");
    assert!(
        patch.starts_with("--- a/crates/calc/src/lib.rs\n+++ b/crates/calc/src/lib.rs\n"),
        "{patch}"
    );
    for (from, path) in [
        (
            repo.path().to_path_buf(),
            "crates/calc/autodebug.out/fix.patch",
        ),
        (workspace.clone(), "autodebug.out/fix.patch"),
    ] {
        let check = Command::new("git")
            .args(["apply", "--check", path])
            .current_dir(&from)
            .output()
            .unwrap();
        assert!(
            check.status.success(),
            "git apply --check {path} in {}: {}",
            from.display(),
            String::from_utf8_lossy(&check.stderr)
        );
    }
}
