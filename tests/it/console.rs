//! End-to-end: what the real `cargo autodebug` shows. The summary of a real run is compared
//! with a reviewed snapshot under `tests/it/snapshots/` (times masked; a change is written
//! beside it as `.snap.new` for `cargo insta review`); colour follows `--color`, `NO_COLOR`
//! and `CARGO_TERM_COLOR`; `--message-format json` puts only JSON lines on stdout; the
//! configuration files yield to the command line; `init` sets a crate up that then builds.

use crate::common::{self, example, fixture};

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

/// Runs `cargo autodebug ARGS` in `dir` with exactly the colour variables given.
fn run(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_cargo-autodebug"));
    command
        .arg("autodebug")
        .args(args)
        .current_dir(dir)
        .env_remove("AUTODEBUG_INSTRUMENT")
        .env_remove("NO_COLOR")
        .env_remove("CARGO_TERM_COLOR");
    if !args.contains(&"init") {
        command.arg("--target-dir").arg(common::shared_target_dir());
    }
    for (name, value) in env {
        command.env(name, value);
    }
    command.output().expect("cargo-autodebug runs")
}

fn expect(output: Output, code: i32) -> Output {
    assert_eq!(
        output.status.code(),
        Some(code),
        "{}",
        common::describe(&output)
    );
    output
}

/// Times (`(29.5s)`, `in 0.1s`) replaced by `…s`, so that a snapshot holds what is stable.
fn mask_times(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        // A number followed by `s` and not by a letter: a duration.
        if chars[i].is_ascii_digit() && (i == 0 || !chars[i - 1].is_alphanumeric()) {
            let mut j = i;
            while j < chars.len() && (chars[j].is_ascii_digit() || chars[j] == '.') {
                j += 1;
            }
            let is_duration = chars.get(j) == Some(&'s')
                && chars.get(j + 1).is_none_or(|c| !c.is_alphanumeric())
                && chars[i..j].contains(&'.');
            if is_duration {
                out.push_str("…s");
                i = j + 1;
                continue;
            }
            out.extend(&chars[i..j]);
            i = j;
            continue;
        }
        out.push(chars[i]);
        i += 1;
    }
    out
}

#[test]
fn masking_keeps_what_is_not_a_time() {
    assert_eq!(
        mask_times("Report: out/report.json (29.5s)\n5/5 tests, 3 runs in 0.12s; max2 v1.0"),
        "Report: out/report.json (…s)\n5/5 tests, 3 runs in …s; max2 v1.0"
    );
}

fn has_escapes(text: &[u8]) -> bool {
    text.contains(&0x1b)
}

/// The summary of a real run that finds and validates the fix, as a snapshot; stderr holds
/// the status lines and no colour under `NO_COLOR`.
#[test]
fn summary_of_a_run_with_a_validated_fix() {
    let dir = example("max2");
    let output = expect(run(dir.path(), &[], &[("NO_COLOR", "1")]), 5);
    let stdout = String::from_utf8(output.stdout).unwrap();
    insta::assert_snapshot!("run-max2", mask_times(&stdout));
    assert!(!has_escapes(stdout.as_bytes()) && !has_escapes(&output.stderr));
    let stderr = String::from_utf8_lossy(&output.stderr);
    for status in [
        "Building",
        "Running",
        "Recording",
        "Localizing",
        "Validated",
    ] {
        assert!(stderr.contains(status), "no `{status}` line:\n{stderr}");
    }
    let report = common::report(dir.path());
    assert_eq!(report["fixes"][0]["validated"], true);
}

/// `--message-format json`: every line of stdout is a JSON object with a `reason` (and the
/// same `event`), valid against `docs/message-format.schema.json`; the run's phases, test
/// results, suspects and fixes are there, the last line says where report.json is; status
/// lines stay on stderr.
#[test]
fn json_message_format_prints_only_json_lines() {
    let dir = example("max2");
    let output = expect(
        run(
            dir.path(),
            &["--message-format", "json", "--max-rebuilds", "1"],
            &[],
        ),
        5,
    );
    let stdout = String::from_utf8(output.stdout).unwrap();
    let events: Vec<Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}")))
        .collect();
    let kinds: Vec<&str> = events
        .iter()
        .map(|e| e["reason"].as_str().expect("every line has a reason"))
        .collect();
    for kind in [
        "phase-started",
        "progress",
        "phase-finished",
        "status",
        "test-result",
        "suspect-found",
        "fix-found",
    ] {
        assert!(kinds.contains(&kind), "no `{kind}` event in {kinds:?}");
    }
    assert!(
        events
            .iter()
            .any(|e| e["reason"] == "phase-started" && e["phase"] == "build")
    );
    let results = events
        .iter()
        .filter(|e| e["reason"] == "test-result")
        .count();
    assert_eq!(results, 5, "one test-result per test");
    let last = events.last().unwrap();
    assert_eq!(last["reason"], "report");
    let path = dir.path().join("autodebug.out/report.json");
    assert_eq!(last["path"], path.display().to_string());
    assert_eq!(last["exit_code"], 5);
    assert_eq!(kinds.iter().filter(|k| **k == "report").count(), 1);
    // Every line against the documented schema.
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(common::repo_root().join("docs/message-format.schema.json"))
            .unwrap(),
    )
    .unwrap();
    let validator = jsonschema::validator_for(&schema).expect("the schema compiles");
    for event in &events {
        let errors: Vec<String> = validator
            .iter_errors(event)
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{event}: {errors:?}");
    }
    assert!(!validator.is_valid(&serde_json::json!({"reason": "report", "event": "report"})));
    assert!(String::from_utf8_lossy(&output.stderr).contains("Localizing"));
}

/// A build that fails under `--message-format json`: the compiler's errors go to stderr, and
/// stdout still holds only JSON lines.
#[test]
fn json_message_format_keeps_compiler_errors_off_stdout() {
    let dir = fixture("compile-error");
    let output = expect(run(dir.path(), &["--message-format", "json"], &[]), 3);
    let stdout = String::from_utf8(output.stdout).unwrap();
    for line in stdout.lines() {
        let event: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
        assert!(event["reason"].is_string() && event["event"] == event["reason"]);
    }
    assert!(
        stdout
            .lines()
            .last()
            .unwrap()
            .starts_with("{\"reason\":\"report\"")
    );
    assert!(String::from_utf8_lossy(&output.stderr).contains("mismatched types"));
}

/// Colour: none under `NO_COLOR` (or off a terminal), on with `--color always` even under
/// `NO_COLOR`, off with `--color never` even under `CARGO_TERM_COLOR=always`, and
/// `CARGO_TERM_COLOR=always` alone turns it on.
#[test]
fn colour_follows_the_flag_and_the_environment() {
    let dir = fixture("all-pass");
    let coloured = |args: &[&str], env: &[(&str, &str)]| {
        let output = expect(run(dir.path(), args, env), 0);
        (has_escapes(&output.stderr), has_escapes(&output.stdout))
    };
    assert_eq!(coloured(&[], &[("NO_COLOR", "1")]), (false, false));
    // Not a terminal: auto means no colour.
    assert_eq!(coloured(&[], &[]), (false, false));
    assert_eq!(
        coloured(&["--color", "always"], &[("NO_COLOR", "1")]),
        (true, true)
    );
    assert_eq!(
        coloured(&["--color", "never"], &[("CARGO_TERM_COLOR", "always")]),
        (false, false)
    );
    assert_eq!(
        coloured(&[], &[("CARGO_TERM_COLOR", "always")]),
        (true, true)
    );
    // An empty NO_COLOR is unset; CARGO_TERM_COLOR=always wins over it as --color would.
    assert_eq!(
        coloured(&[], &[("NO_COLOR", ""), ("CARGO_TERM_COLOR", "always")]),
        (true, true)
    );
}

/// The localization techniques that ran, from the report.
fn techniques(report: &Value) -> Vec<String> {
    report["localization"]["weights"]
        .as_object()
        .map(|w| w.keys().cloned().collect())
        .unwrap_or_default()
}

/// `[package.metadata.autodebug]` is read, `.cargo/autodebug.toml` overrides it, the command
/// line overrides both; unknown keys stop the run with the file, the key's line and the keys
/// there are, bad values with the file, the key and the type expected; exclusions leave
/// suspects out.
#[test]
fn configuration_yields_to_the_command_line() {
    let dir = example("max2");
    let manifest = dir.path().join("Cargo.toml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(
        &manifest,
        format!(
            "{text}\n[package.metadata.autodebug]\ntechniques = [\"spectrum\", \"diagnosis\"]\n"
        ),
    )
    .unwrap();
    let run_with = |args: &[&str]| {
        let mut all = vec!["--no-fix"];
        all.extend_from_slice(args);
        expect(run(dir.path(), &all, &[("NO_COLOR", "1")]), 5)
    };
    run_with(&[]);
    assert_eq!(
        techniques(&common::report(dir.path())),
        [
            "called",
            "diagnosis",
            "ochiai",
            "ochiai-tests",
            "panic-callers",
            "panic-site"
        ]
    );

    std::fs::create_dir_all(dir.path().join(".cargo")).unwrap();
    let config = dir.path().join(".cargo/autodebug.toml");
    std::fs::write(
        &config,
        "disable-techniques = [\"diagnosis\"]\nmystery-knob = 3\n",
    )
    .unwrap();
    let output = expect(run(dir.path(), &["--no-fix"], &[("NO_COLOR", "1")]), 2);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("error: ")
            && stderr.contains("autodebug.toml: `mystery-knob`: unknown key")
            && stderr.contains("autodebug.toml:2:1")
            && stderr.contains("help: the keys are `timeout`, "),
        "{stderr}"
    );
    std::fs::write(&config, "disable-techniques = [\"diagnosis\"]\n").unwrap();
    run_with(&[]);
    assert_eq!(
        techniques(&common::report(dir.path())),
        [
            "called",
            "ochiai",
            "ochiai-tests",
            "panic-callers",
            "panic-site"
        ]
    );

    run_with(&["--techniques", "switching,spectrum"]);
    assert_eq!(
        techniques(&common::report(dir.path())),
        [
            "called",
            "ochiai",
            "ochiai-tests",
            "panic-callers",
            "panic-site",
            "predicate-switching"
        ]
    );

    // Exclusions: nothing of src/lib.rs is ranked, and the report says why.
    std::fs::write(&config, "exclude = [\"src/lib.rs\"]\n").unwrap();
    run_with(&[]);
    let report = common::report(dir.path());
    assert_eq!(report["suspects"], Value::Array(Vec::new()));
    assert!(
        report["notes"].as_array().unwrap().iter().any(|n| n
            .as_str()
            .unwrap()
            .contains("left out of the ranking by the exclusions")),
        "{}",
        report["notes"]
    );

    std::fs::write(&config, "timeout = \"soon\"\n").unwrap();
    let output = expect(run(dir.path(), &[], &[("NO_COLOR", "1")]), 2);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("autodebug.toml: `timeout`: expected a number of seconds, found \"soon\""),
        "{stderr}"
    );
}

/// A test filter is still a positional argument next to the `init` command.
#[test]
fn a_test_filter_is_not_a_command() {
    let dir = fixture("all-pass");
    let output = expect(run(dir.path(), &["no_such_test"], &[("NO_COLOR", "1")]), 4);
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("no test name contains `no_such_test`")
    );
    let output = expect(run(dir.path(), &["--", "init"], &[("NO_COLOR", "1")]), 4);
    assert!(String::from_utf8_lossy(&output.stderr).contains("no test name contains `init`"));
}

/// `init` on a crate written as a user would: refused while the tree is dirty, then the
/// dependency and a commented-out example contract are added and the crate still builds and
/// its tests pass; a second run says it is set up and changes nothing.
#[test]
fn init_sets_up_a_crate_that_then_builds() {
    let dir = tempfile::Builder::new()
        .prefix("autodebug-init-")
        .tempdir()
        .unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("src")).unwrap();
    let manifest = "[package]\nname = \"shapes\"   # areas of shapes\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n";
    std::fs::write(root.join("Cargo.toml"), manifest).unwrap();
    let source = "//! Areas.\n\n/// The area of a rectangle.\npub fn area(width: u32, height: u32) -> u32 {\n    width * height\n}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn square() {\n        assert_eq!(super::area(3, 3), 9);\n    }\n}\n";
    std::fs::write(root.join("src/lib.rs"), source).unwrap();
    common::git(root, &["init", "-q"]);
    common::git(root, &["add", "."]);
    common::git(root, &["commit", "-qm", "shapes"]);

    std::fs::write(root.join("notes.txt"), "wip\n").unwrap();
    let output = expect(run(root, &["init"], &[("NO_COLOR", "1")]), 2);
    assert!(String::from_utf8_lossy(&output.stderr).contains("uncommitted changes"));
    assert_eq!(
        std::fs::read_to_string(root.join("Cargo.toml")).unwrap(),
        manifest
    );
    std::fs::remove_file(root.join("notes.txt")).unwrap();

    let output = expect(run(root, &["init"], &[("NO_COLOR", "1")]), 0);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("Adding autodebug-runtime"), "{stderr}");
    assert!(stderr.contains("above `fn area`"), "{stderr}");
    assert!(output.stdout.is_empty());
    assert!(stderr.contains("Patching autodebug-runtime"), "{stderr}");
    assert!(stderr.contains("Vendoring"), "{stderr}");
    // The manifest names the runtime as any dependency, by version; the workspace's cargo
    // configuration resolves it to a copy in the repository, by a relative path, and the
    // copy is no member of the crate's workspace.
    let new_manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    assert!(new_manifest.starts_with("[package]\nname = \"shapes\"   # areas of shapes\n"));
    assert!(
        new_manifest.ends_with(&format!(
            "[workspace]\nexclude = [\"third_party/autodebug\"]\n\n[dependencies]\nautodebug-runtime = \"{}\"\n",
            env!("CARGO_PKG_VERSION")
        )),
        "{new_manifest}"
    );
    let config = std::fs::read_to_string(root.join(".cargo/config.toml")).unwrap();
    let patched: toml::Table = config.parse().unwrap();
    let runtime = patched["patch"]["crates-io"]["autodebug-runtime"]["path"]
        .as_str()
        .unwrap();
    assert_eq!(
        runtime, "third_party/autodebug/autodebug-runtime",
        "{config}"
    );
    assert!(root.join(runtime).join("src/rt.rs").is_file());
    assert!(root.join(runtime).join("LICENSE-APACHE").is_file());
    nothing_of_this_machine(root);
    let new_source = std::fs::read_to_string(root.join("src/lib.rs")).unwrap();
    let added: Vec<&str> = new_source
        .lines()
        .filter(|l| !source.lines().any(|s| s == *l))
        .collect();
    assert!(
        !added.is_empty() && added.iter().all(|l| l.starts_with("// ")),
        "{added:?}"
    );
    assert!(new_source.contains("// #[autodebug_runtime::ensures("));

    let built = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["test", "--quiet", "--target-dir"])
        .arg(common::shared_target_dir())
        .current_dir(root)
        .env_remove("AUTODEBUG_INSTRUMENT")
        .output()
        .unwrap();
    assert!(built.status.success(), "{}", common::describe(&built));

    // A second run has nothing to do (the tree being dirty with the first run's edits is
    // no matter then).
    let output = expect(run(root, &["init"], &[("NO_COLOR", "1")]), 0);
    assert!(String::from_utf8_lossy(&output.stderr).contains("already set up"));
    assert_eq!(
        std::fs::read_to_string(root.join("Cargo.toml")).unwrap(),
        new_manifest
    );
    assert_eq!(
        std::fs::read_to_string(root.join("src/lib.rs")).unwrap(),
        new_source
    );
    assert_eq!(
        std::fs::read_to_string(root.join(".cargo/config.toml")).unwrap(),
        config
    );

    // A colleague's fresh clone of the committed tree, with another home, no
    // cargo-autodebug and no cache of it: the tests build and pass, and a contract that a
    // test breaks fails that test with the contract's message.
    let (colleague, clone) = colleague_clone(root);
    let cargo_test = |dir: &Path| colleague_cargo_test(colleague.path(), dir);
    let built = cargo_test(&clone);
    assert!(built.status.success(), "{}", common::describe(&built));
    assert!(
        !colleague.path().join(".cache/cargo-autodebug").exists(),
        "nothing of the tool's was needed"
    );
    let lib = clone.join("src/lib.rs");
    let with_contract = std::fs::read_to_string(&lib).unwrap().replace(
        "/// The area of a rectangle.\n",
        "/// The area of a rectangle.\n#[autodebug_runtime::requires(width > 3, \"a width over 3\")]\n",
    );
    std::fs::write(&lib, with_contract).unwrap();
    let broken = cargo_test(&clone);
    assert!(!broken.status.success(), "{}", common::describe(&broken));
    let said = common::describe(&broken);
    assert!(said.contains("a width over 3"), "{said}");

    // `init --remove` in the colleague's clone, which uses a contract now: refused, nothing
    // touched. In the author's tree, with an edit of their own since: what `init` wrote
    // goes, and only that.
    let output = expect(run(&clone, &["init", "--remove", "--allow-dirty"], &[]), 2);
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("src/lib.rs:4 uses the runtime"),
        "{}",
        common::describe(&output)
    );
    assert!(clone.join("third_party/autodebug").is_dir());
    let own = "\npub fn perimeter(width: u32, height: u32) -> u32 {\n    2 * (width + height)\n}\n";
    let edited = format!(
        "{}{own}",
        std::fs::read_to_string(root.join("src/lib.rs")).unwrap()
    );
    std::fs::write(root.join("src/lib.rs"), &edited).unwrap();
    let output = expect(run(root, &["init", "--remove"], &[("NO_COLOR", "1")]), 2);
    assert!(String::from_utf8_lossy(&output.stderr).contains("uncommitted changes"));
    let output = expect(
        run(
            root,
            &["init", "--remove", "--allow-dirty"],
            &[("NO_COLOR", "1")],
        ),
        0,
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("Removing the copy of the runtime in third_party/autodebug"),
        "{stderr}"
    );
    // The `[dependencies]` table `init` added stays, empty (as `cargo new` writes one).
    assert_eq!(
        std::fs::read_to_string(root.join("Cargo.toml")).unwrap(),
        format!("{manifest}\n[dependencies]\n")
    );
    assert_eq!(
        std::fs::read_to_string(root.join("src/lib.rs")).unwrap(),
        format!("{source}{own}")
    );
    assert!(!root.join(".cargo").exists() && !root.join("third_party").exists());
    let output = expect(run(root, &["init", "--remove"], &[("NO_COLOR", "1")]), 0);
    assert!(
        String::from_utf8_lossy(&output.stderr)
            .contains("nothing of `cargo autodebug init` to remove")
    );
}

/// No file of the tree at `root` (its git and build directories aside) names this
/// machine's paths or the tool's extracted runtime.
fn nothing_of_this_machine(root: &Path) {
    let home = std::env::var("HOME").unwrap_or_default();
    for entry in walkdir::WalkDir::new(root)
        .into_iter()
        .filter_entry(|e| e.file_name() != ".git" && e.file_name() != "target")
    {
        let entry = entry.unwrap();
        if entry.file_type().is_file() {
            let text = String::from_utf8_lossy(&std::fs::read(entry.path()).unwrap()).into_owned();
            let shown = entry.path().display();
            assert!(!text.contains(&*root.to_string_lossy()), "{shown}");
            assert!(home.is_empty() || !text.contains(&home), "{shown}");
            assert!(!text.contains("cargo-autodebug/runtime/"), "{shown}");
        }
    }
}

/// Commits everything at `root` and clones it for a colleague: their home (a new
/// directory) and the clone in it.
fn colleague_clone(root: &Path) -> (tempfile::TempDir, std::path::PathBuf) {
    common::git(root, &["add", "-A"]);
    common::git(root, &["commit", "-qm", "contracts"]);
    let colleague = tempfile::Builder::new()
        .prefix("autodebug-colleague-")
        .tempdir()
        .unwrap();
    let clone = colleague.path().join("clone");
    common::git(
        colleague.path(),
        &["clone", "-q", &root.to_string_lossy(), "clone"],
    );
    (colleague, clone)
}

/// `cargo test` in `dir` as a colleague whose home is `home`: no cargo-autodebug on the
/// `PATH` (only the toolchain's own directory and the system's), no cache of it, the
/// registry's sources this machine has (offline).
fn colleague_cargo_test(home: &Path, dir: &Path) -> Output {
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::path::PathBuf::from(std::env::var("HOME").unwrap_or_default()).join(".cargo")
        });
    let cargo = std::path::PathBuf::from(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    let toolchain = cargo.parent().map(Path::to_path_buf).unwrap_or_default();
    let path = std::env::join_paths([
        toolchain.as_path(),
        Path::new("/usr/bin"),
        Path::new("/bin"),
    ])
    .unwrap();
    let on_path = |name: &str| std::env::split_paths(&path).any(|dir| dir.join(name).exists());
    assert!(on_path("rustc") && !on_path("cargo-autodebug"), "{path:?}");
    let output = Command::new(&cargo)
        .env("PATH", &path)
        .args(["test", "--quiet", "--target-dir"])
        .arg(common::shared_target_dir().join("colleague"))
        .current_dir(dir)
        .env("HOME", home)
        .env("CARGO_HOME", &cargo_home)
        .env("CARGO_NET_OFFLINE", "true")
        .env_remove("XDG_CACHE_HOME")
        .env_remove("AUTODEBUG_INSTRUMENT")
        .env_remove("AUTODEBUG_RUNTIME_PATH")
        .output()
        .unwrap();
    assert!(
        !home.join(".cache/cargo-autodebug").exists(),
        "nothing of the tool's was needed"
    );
    output
}

/// `init` on a member of a two-member workspace: the copy goes to the workspace's root and
/// into its `exclude`; a colleague's clone builds and tests every member.
#[test]
fn init_sets_up_a_member_of_a_workspace_that_builds_in_a_colleagues_clone() {
    let dir = tempfile::Builder::new()
        .prefix("autodebug-init-ws-")
        .tempdir()
        .unwrap();
    let root = dir.path();
    let workspace = "[workspace]\nmembers = [\"geo\", \"app\"]\nresolver = \"2\"\n";
    std::fs::write(root.join("Cargo.toml"), workspace).unwrap();
    for (name, source) in [
        (
            "geo",
            "/// Twice `x`.\npub fn double(x: i64) -> i64 {\n    x * 2\n}\n\n#[test]\nfn doubles() {\n    assert_eq!(double(2), 4);\n}\n",
        ),
        (
            "app",
            "/// Three times `x`.\npub fn triple(x: i64) -> i64 {\n    x * 3\n}\n\n#[test]\nfn triples() {\n    assert_eq!(triple(2), 6);\n}\n",
        ),
    ] {
        std::fs::create_dir_all(root.join(name).join("src")).unwrap();
        std::fs::write(
            root.join(name).join("Cargo.toml"),
            format!("[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"),
        )
        .unwrap();
        std::fs::write(root.join(name).join("src/lib.rs"), source).unwrap();
    }
    common::git(root, &["init", "-q"]);
    common::git(root, &["add", "."]);
    common::git(root, &["commit", "-qm", "workspace"]);

    let output = expect(run(root, &["init", "-p", "geo"], &[("NO_COLOR", "1")]), 0);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("Excluding third_party/autodebug"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("Cargo.toml")).unwrap(),
        "[workspace]\nmembers = [\"geo\", \"app\"]\nresolver = \"2\"\nexclude = [\"third_party/autodebug\"]\n"
    );
    assert!(
        root.join("third_party/autodebug/autodebug-macros/src/lib.rs")
            .is_file()
    );
    assert!(
        std::fs::read_to_string(root.join("geo/Cargo.toml"))
            .unwrap()
            .contains("autodebug-runtime = ")
    );
    nothing_of_this_machine(root);
    let (colleague, clone) = colleague_clone(root);
    let built = colleague_cargo_test(colleague.path(), &clone);
    assert!(built.status.success(), "{}", common::describe(&built));
    let said = common::describe(&built);
    assert!(said.contains("test result: ok. 1 passed"), "{said}");
}
