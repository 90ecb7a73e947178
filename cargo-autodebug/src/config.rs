//! Configuration files: `[workspace.metadata.autodebug]` and `[package.metadata.autodebug]`
//! in the manifests, and `.cargo/autodebug.toml` in the workspace root or any directory
//! above it (as cargo finds its own config). They set the knobs the command line has
//! (timeouts, caps, techniques, exclusions); an argument given on the command line wins.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::ValueEnum;
use serde::Serialize;

use crate::console::Console;
use crate::options::{Annotate, Options};
use crate::workspace::Workspace;

/// A technique that configuration can turn off.
#[derive(ValueEnum, Serialize, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "kebab-case")]
pub enum TechniqueName {
    /// Spectrum ranking (Ochiai or DStar over the baseline's coverage).
    Spectrum,
    /// Predicate switching (flipped branch instances, confirmed by reruns).
    Switching,
    /// Model-based diagnosis (z3 over the failing traces).
    Diagnosis,
    /// Automated path generation (the closest feasible successful run, rerun for real).
    Pathgen,
    /// Candidate fixes, validated by reruns and rebuilds.
    Repair,
}

impl TechniqueName {
    /// Every technique, in pipeline order.
    pub const ALL: [TechniqueName; 5] = [
        TechniqueName::Spectrum,
        TechniqueName::Switching,
        TechniqueName::Diagnosis,
        TechniqueName::Pathgen,
        TechniqueName::Repair,
    ];
}

/// Paths and functions that are not instrumented (in zero-annotation mode) or ranked.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Exclusions {
    /// Globs over paths relative to the workspace root (`*` within a component, `**` across
    /// components); a pattern without glob also covers what is below it (`vendor`).
    pub paths: Vec<String>,
    /// Function names (`helper`) or path suffixes (`parse::helper`).
    pub functions: Vec<String>,
}

impl Exclusions {
    /// Reads patterns: `fn:NAME` is a function, anything else a path.
    pub fn parse(patterns: &[String]) -> Exclusions {
        let mut exclusions = Exclusions::default();
        for pattern in patterns {
            match pattern.strip_prefix("fn:") {
                Some(function) => exclusions.functions.push(function.trim().to_string()),
                None => exclusions
                    .paths
                    .push(pattern.trim_start_matches("./").to_string()),
            }
        }
        exclusions
    }

    /// Nothing is excluded.
    pub fn is_empty(&self) -> bool {
        self.paths.is_empty() && self.functions.is_empty()
    }

    /// The file (relative to the workspace root, `/`-separated) is excluded.
    pub fn excludes_path(&self, relative: &str) -> bool {
        let relative = relative.replace('\\', "/");
        self.paths.iter().any(|pattern| {
            glob_matches(pattern, &relative)
                || (!pattern.contains('*')
                    && relative.starts_with(pattern.trim_end_matches('/'))
                    && relative[pattern.trim_end_matches('/').len()..].starts_with('/'))
        })
    }

    /// The function (a path such as `crate::module::name` or `Type::method`, or an item's
    /// name such as `impl Stack`) is excluded.
    pub fn excludes_function(&self, function: &str) -> bool {
        let function = function.strip_prefix("impl ").unwrap_or(function);
        self.functions.iter().any(|name| {
            function == name
                || function
                    .strip_suffix(name.as_str())
                    .is_some_and(|head| head.ends_with("::"))
        })
    }

    /// Drops the excluded suspects and renumbers the others; returns how many were dropped.
    pub fn filter_suspects(&self, suspects: &mut Vec<crate::model::Ranked>) -> usize {
        if self.is_empty() {
            return 0;
        }
        let before = suspects.len();
        suspects.retain(|s| !self.excludes_path(&s.file) && !self.excludes_function(&s.function));
        for (i, suspect) in suspects.iter_mut().enumerate() {
            suspect.rank = i + 1;
        }
        before - suspects.len()
    }
}

/// `pattern` (with `*` and `**`) matches the whole of `path`.
fn glob_matches(pattern: &str, path: &str) -> bool {
    fn go(p: &[u8], s: &[u8]) -> bool {
        match p {
            [] => s.is_empty(),
            [b'*', b'*', rest @ ..] => {
                let rest = rest.strip_prefix(b"/").unwrap_or(rest);
                (0..=s.len()).any(|i| go(rest, &s[i..]))
            }
            [b'*', rest @ ..] => (0..=s.len())
                .take_while(|&i| i == 0 || s[i - 1] != b'/')
                .any(|i| go(rest, &s[i..])),
            [c, rest @ ..] => s.first() == Some(c) && go(rest, &s[1..]),
        }
    }
    go(pattern.as_bytes(), path.as_bytes())
}

/// One place settings come from: a table and where it is.
#[derive(Debug)]
pub struct Source {
    /// The file.
    pub file: PathBuf,
    /// The table's path in the file (`package.metadata.autodebug`), empty for a whole file.
    pub table_path: &'static str,
    /// The settings.
    pub table: toml::Table,
}

impl Source {
    /// How a key of this source is named in messages: `Cargo.toml: package.metadata.autodebug.timeout`.
    fn key(&self, key: &str) -> String {
        if self.table_path.is_empty() {
            format!("{}: `{key}`", self.file.display())
        } else {
            format!("{}: `{}.{key}`", self.file.display(), self.table_path)
        }
    }
}

/// Name of the configuration file in a `.cargo` directory.
pub const FILE_NAME: &str = "autodebug.toml";

/// The sources of a workspace, weakest first: the workspace's metadata, the selected
/// packages' metadata, then `.cargo/autodebug.toml` from the farthest directory above the
/// workspace root to the root itself (the nearest wins, as in cargo's config).
pub fn sources(workspace: &Workspace) -> Result<Vec<Source>> {
    let mut found = Vec::new();
    let root_manifest = workspace.root.join("Cargo.toml");
    let mut manifests = vec![root_manifest.clone()];
    for package in &workspace.packages {
        if !manifests.contains(&package.manifest_path) {
            manifests.push(package.manifest_path.clone());
        }
    }
    for (i, manifest) in manifests.iter().enumerate() {
        let Ok(text) = std::fs::read_to_string(manifest) else {
            continue;
        };
        let document: toml::Table = text
            .parse()
            .with_context(|| format!("could not parse {}", manifest.display()))?;
        if i == 0
            && let Some(table) = nested(&document, &["workspace", "metadata", "autodebug"])
        {
            found.push(source(manifest, "workspace.metadata.autodebug", table)?);
        }
        let selected = workspace
            .packages
            .iter()
            .any(|p| &p.manifest_path == manifest);
        if selected && let Some(table) = nested(&document, &["package", "metadata", "autodebug"]) {
            found.push(source(manifest, "package.metadata.autodebug", table)?);
        }
    }
    let mut files = Vec::new();
    for dir in workspace.root.ancestors() {
        let file = dir.join(".cargo").join(FILE_NAME);
        if file.is_file() {
            files.push(file);
        }
    }
    for file in files.into_iter().rev() {
        let text = std::fs::read_to_string(&file)
            .with_context(|| format!("could not read {}", file.display()))?;
        let table: toml::Table = text
            .parse()
            .with_context(|| format!("could not parse {}", file.display()))?;
        found.push(Source {
            file,
            table_path: "",
            table,
        });
    }
    Ok(found)
}

fn nested<'a>(table: &'a toml::Table, path: &[&str]) -> Option<&'a toml::Value> {
    let (first, rest) = path.split_first()?;
    let value = table.get(*first)?;
    if rest.is_empty() {
        return Some(value);
    }
    nested(value.as_table()?, rest)
}

fn source(file: &Path, table_path: &'static str, value: &toml::Value) -> Result<Source> {
    let Some(table) = value.as_table() else {
        bail!("{}: `{table_path}` must be a table", file.display());
    };
    Ok(Source {
        file: file.to_path_buf(),
        table_path,
        table: table.clone(),
    })
}

/// Reads the workspace's configuration into `options` (arguments given on the command line
/// keep their value). Unknown keys are warnings; values of the wrong type are errors naming
/// the file, the key and the type expected. Returns the files read.
pub fn apply(
    options: &mut Options,
    workspace: &Workspace,
    console: &Console,
) -> Result<Vec<PathBuf>> {
    let sources = sources(workspace)?;
    for source in &sources {
        apply_source(options, source, console)?;
    }
    let mut files: Vec<PathBuf> = sources.into_iter().map(|s| s.file).collect();
    files.dedup();
    Ok(files)
}

/// Applies one source (see [`apply`]).
pub fn apply_source(options: &mut Options, source: &Source, console: &Console) -> Result<()> {
    for (key, value) in &source.table {
        let at = || source.key(key);
        // The option's id (its field name) and whether the command line set it already.
        let id = key.replace('-', "_");
        let id = match id.as_str() {
            "exclude" => "exclude_patterns",
            "disable_techniques" => "techniques",
            other => other,
        };
        let given = options.given(id);
        match key.as_str() {
            "timeout" => set(given, &mut options.timeout, seconds(value, at)?),
            "repair-timeout" => set(given, &mut options.repair_timeout, seconds(value, at)?),
            "reruns" => set(given, &mut options.reruns, count(value, at)?),
            "passing-traces" => set(given, &mut options.passing_traces, count(value, at)?),
            "max-events" => set(given, &mut options.max_events, count(value, at)? as u64),
            "jobs" => set(given, &mut options.jobs, Some(positive(value, at)?)),
            "max-switches" => set(given, &mut options.max_switches, count(value, at)?),
            "fix-suspects" => set(given, &mut options.fix_suspects, count(value, at)?),
            "max-candidates" => set(given, &mut options.max_candidates, count(value, at)?),
            "max-rebuilds" => set(given, &mut options.max_rebuilds, count(value, at)?),
            "max-fixes" => set(given, &mut options.max_fixes, positive(value, at)?),
            "all-critical" => set(given, &mut options.all_critical, boolean(value, at)?),
            "spectrum" => set(given, &mut options.spectrum, choice(value, at)?),
            "switching-order" => set(given, &mut options.switching_order, choice(value, at)?),
            "annotate" => set(given, &mut options.annotate, choice::<Annotate>(value, at)?),
            "techniques" => set(given, &mut options.techniques, list(value, at)?),
            "disable-techniques" => {
                let disabled: Vec<TechniqueName> = list(value, at)?;
                if !given {
                    options.techniques.retain(|t| !disabled.contains(t));
                }
            }
            "exclude" => {
                let patterns: Vec<String> = strings(value, at)?;
                if !given {
                    options.exclude = Exclusions::parse(&patterns);
                }
            }
            _ => console.warn(&format!("{}: unknown key (ignored)", at())),
        }
    }
    Ok(())
}

/// Sets `field` unless the command line gave it.
fn set<T>(given: bool, field: &mut T, value: T) {
    if !given {
        *field = value;
    }
}

fn wrong(at: impl Fn() -> String, expected: &str, value: &toml::Value) -> anyhow::Error {
    anyhow::anyhow!("{}: expected {expected}, found {value}", at())
}

fn seconds(value: &toml::Value, at: impl Fn() -> String) -> Result<f64> {
    let seconds = match value {
        toml::Value::Integer(n) => *n as f64,
        toml::Value::Float(x) => *x,
        _ => return Err(wrong(at, "a number of seconds", value)),
    };
    if !(seconds > 0.0 && seconds.is_finite()) {
        return Err(wrong(at, "a positive number of seconds", value));
    }
    Ok(seconds)
}

fn count(value: &toml::Value, at: impl Fn() -> String) -> Result<usize> {
    match value {
        toml::Value::Integer(n) if *n >= 0 => Ok(*n as usize),
        _ => Err(wrong(at, "a non-negative integer", value)),
    }
}

fn positive(value: &toml::Value, at: impl Fn() -> String) -> Result<usize> {
    match value {
        toml::Value::Integer(n) if *n > 0 => Ok(*n as usize),
        _ => Err(wrong(at, "a positive integer", value)),
    }
}

fn boolean(value: &toml::Value, at: impl Fn() -> String) -> Result<bool> {
    value
        .as_bool()
        .ok_or_else(|| wrong(at, "true or false", value))
}

fn choice<T: ValueEnum>(value: &toml::Value, at: impl Fn() -> String) -> Result<T> {
    let names = || {
        T::value_variants()
            .iter()
            .filter_map(|v| v.to_possible_value())
            .map(|v| format!("\"{}\"", v.get_name()))
            .collect::<Vec<_>>()
            .join(", ")
    };
    value
        .as_str()
        .and_then(|s| T::from_str(s, true).ok())
        .ok_or_else(|| wrong(&at, &format!("one of {}", names()), value))
}

fn list<T: ValueEnum>(value: &toml::Value, at: impl Fn() -> String) -> Result<Vec<T>> {
    let Some(items) = value.as_array() else {
        return Err(wrong(at, "an array of technique names", value));
    };
    items.iter().map(|item| choice(item, &at)).collect()
}

fn strings(value: &toml::Value, at: impl Fn() -> String) -> Result<Vec<String>> {
    value
        .as_array()
        .and_then(|items| {
            items
                .iter()
                .map(|i| i.as_str().map(str::to_string))
                .collect()
        })
        .ok_or_else(|| wrong(at, "an array of strings", value))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(args: &[&str]) -> Options {
        Options::parse_args(std::iter::once("cargo-autodebug").chain(args.iter().copied())).unwrap()
    }

    fn from(text: &str) -> Source {
        Source {
            file: PathBuf::from(".cargo/autodebug.toml"),
            table_path: "",
            table: text.parse().unwrap(),
        }
    }

    #[test]
    fn command_line_wins_over_configuration() {
        let console = Console::quiet();
        let source =
            from("timeout = 5\nreruns = 7\nmax-fixes = 2\ntechniques = [\"spectrum\", \"repair\"]");
        let mut given = options(&["--timeout", "9", "--techniques", "switching"]);
        apply_source(&mut given, &source, &console).unwrap();
        assert_eq!(given.timeout, 9.0);
        assert_eq!(given.techniques, [TechniqueName::Switching]);
        assert_eq!(given.reruns, 7);
        assert_eq!(given.max_fixes, 2);
        let mut defaults = options(&[]);
        apply_source(&mut defaults, &source, &console).unwrap();
        assert_eq!(defaults.timeout, 5.0);
        assert_eq!(
            defaults.techniques,
            [TechniqueName::Spectrum, TechniqueName::Repair]
        );
    }

    #[test]
    fn bad_values_name_the_file_the_key_and_the_type() {
        let console = Console::quiet();
        for (text, expected) in [
            (
                "timeout = \"soon\"",
                ".cargo/autodebug.toml: `timeout`: expected a number of seconds, found \"soon\"",
            ),
            (
                "reruns = -1",
                ".cargo/autodebug.toml: `reruns`: expected a non-negative integer, found -1",
            ),
            (
                "spectrum = \"tarantula\"",
                ".cargo/autodebug.toml: `spectrum`: expected one of \"ochiai\", \"dstar\", found \"tarantula\"",
            ),
            (
                "disable-techniques = [\"slicing\"]",
                "expected one of \"spectrum\", \"switching\", \"diagnosis\", \"pathgen\", \"repair\", found \"slicing\"",
            ),
        ] {
            let error = apply_source(&mut options(&[]), &from(text), &console).unwrap_err();
            assert!(error.to_string().contains(expected), "{error}");
        }
    }

    #[test]
    fn disabled_techniques_and_exclusions() {
        let console = Console::quiet();
        let mut o = options(&[]);
        let source = from(
            "disable-techniques = [\"diagnosis\"]\nexclude = [\"src/gen/*.rs\", \"vendor\", \"fn:helper\"]",
        );
        apply_source(&mut o, &source, &console).unwrap();
        assert!(!o.runs(TechniqueName::Diagnosis));
        assert!(o.runs(TechniqueName::Spectrum));
        assert!(o.exclude.excludes_path("src/gen/table.rs"));
        assert!(!o.exclude.excludes_path("src/gen/deep/table.rs"));
        assert!(o.exclude.excludes_path("vendor/x/lib.rs"));
        assert!(!o.exclude.excludes_path("vendored/lib.rs"));
        assert!(o.exclude.excludes_function("calc::parse::helper"));
        assert!(o.exclude.excludes_function("helper"));
        assert!(!o.exclude.excludes_function("calc::not_helper"));
        let mut cli = options(&["--exclude", "src/lib.rs"]);
        apply_source(&mut cli, &source, &console).unwrap();
        assert_eq!(cli.exclude.paths, ["src/lib.rs"]);
        assert!(cli.exclude.functions.is_empty());
    }

    #[test]
    fn globs() {
        assert!(glob_matches("src/**/*.rs", "src/a/b/c.rs"));
        assert!(glob_matches("src/**/*.rs", "src/c.rs"));
        assert!(glob_matches("**/gen.rs", "a/gen.rs"));
        assert!(!glob_matches("src/*.rs", "src/a/c.rs"));
        assert!(glob_matches("src/*.rs", "src/c.rs"));
    }
}
