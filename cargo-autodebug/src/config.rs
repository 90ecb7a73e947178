//! Configuration files: `[workspace.metadata.autodebug]` and `[package.metadata.autodebug]`
//! in the manifests, and `.cargo/autodebug.toml` in the workspace root or any directory
//! above it (as cargo finds its own config). They set the knobs the command line has
//! (timeouts, caps, techniques, exclusions); an argument given on the command line wins.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::ValueEnum;
use serde::{Deserialize, Deserializer};
use toml::Spanned;
use toml::de::{DeTable, DeValue, ValueDeserializer};

use crate::options::{Annotate, Exclusions, Formula, Options, Order, TechniqueName};
use crate::workspace::Workspace;

/// The settings of one configuration table, as written: each key is a long option's name
/// and a key left out is `None`. An unknown key or a value of the wrong type is an error
/// (see [`Source::read`] for where it points).
#[derive(Deserialize, Debug, Default, Clone, PartialEq)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct Config {
    /// `--timeout`.
    #[serde(deserialize_with = "seconds")]
    pub timeout: Option<f64>,
    /// `--repair-timeout`.
    #[serde(deserialize_with = "seconds")]
    pub repair_timeout: Option<f64>,
    /// `--baseline-timeout` (`0`: every test runs).
    #[serde(deserialize_with = "budget_seconds")]
    pub baseline_timeout: Option<f64>,
    /// `--reruns`.
    #[serde(deserialize_with = "count")]
    pub reruns: Option<usize>,
    /// `--passing-traces`.
    #[serde(deserialize_with = "count")]
    pub passing_traces: Option<usize>,
    /// `--max-events`.
    #[serde(deserialize_with = "count")]
    pub max_events: Option<u64>,
    /// `--jobs`.
    #[serde(deserialize_with = "positive")]
    pub jobs: Option<usize>,
    /// `--max-switches`.
    #[serde(deserialize_with = "count")]
    pub max_switches: Option<usize>,
    /// `--fix-suspects`.
    #[serde(deserialize_with = "count")]
    pub fix_suspects: Option<usize>,
    /// `--max-candidates`.
    #[serde(deserialize_with = "count")]
    pub max_candidates: Option<usize>,
    /// `--max-rebuilds`.
    #[serde(deserialize_with = "count")]
    pub max_rebuilds: Option<usize>,
    /// `--max-fixes`.
    #[serde(deserialize_with = "positive")]
    pub max_fixes: Option<usize>,
    /// `--all-critical`.
    #[serde(deserialize_with = "boolean")]
    pub all_critical: Option<bool>,
    /// `--spectrum`.
    #[serde(deserialize_with = "choice")]
    pub spectrum: Option<Formula>,
    /// `--switching-order`.
    #[serde(deserialize_with = "choice")]
    pub switching_order: Option<Order>,
    /// `--annotate`.
    #[serde(deserialize_with = "choice")]
    pub annotate: Option<Annotate>,
    /// `--techniques`: the techniques that run.
    #[serde(deserialize_with = "list")]
    pub techniques: Option<Vec<TechniqueName>>,
    /// Techniques that do not run (the command line's `--techniques` wins over it).
    #[serde(deserialize_with = "list")]
    pub disable_techniques: Option<Vec<TechniqueName>>,
    /// `--exclude`: path globs and `fn:NAME` patterns.
    #[serde(deserialize_with = "strings")]
    pub exclude: Option<Vec<String>>,
}

/// One place settings come from: a table and where it is.
#[derive(Debug)]
pub struct Source {
    /// The file.
    pub file: PathBuf,
    /// The settings.
    pub config: Config,
}

/// Name of the configuration file in a `.cargo` directory.
pub const FILE_NAME: &str = "autodebug.toml";

/// The options in force: the command line's, under which each source's settings are laid
/// weakest first (a later source wins over an earlier one), except that an argument given
/// on the command line keeps its value. Within one source, `disable-techniques` drops
/// techniques before `techniques` (when both are there) names them.
pub fn merge(command_line: &Options, sources: &[Source]) -> Options {
    let mut options = command_line.clone();
    let given = |id: &str| command_line.given(id);
    for config in sources.iter().map(|source| &source.config) {
        // The keys that set the option of the same name.
        macro_rules! take {
            ($($field:ident),* $(,)?) => {$(
                if let Some(value) = &config.$field
                    && !given(stringify!($field))
                {
                    options.$field = value.clone();
                }
            )*};
        }
        take!(
            timeout,
            repair_timeout,
            baseline_timeout,
            reruns,
            passing_traces,
            max_events,
            max_switches,
            fix_suspects,
            max_candidates,
            max_rebuilds,
            max_fixes,
            all_critical,
            spectrum,
            switching_order,
            annotate,
        );
        if let Some(jobs) = config.jobs
            && !given("jobs")
        {
            options.jobs = Some(jobs);
        }
        if !given("techniques") {
            if let Some(disabled) = &config.disable_techniques {
                options.techniques.retain(|t| !disabled.contains(t));
            }
            if let Some(techniques) = &config.techniques {
                options.techniques = techniques.clone();
            }
        }
        if let Some(patterns) = &config.exclude
            && !given("exclude_patterns")
        {
            options.exclude = Exclusions::parse(patterns);
        }
    }
    options
}

/// Reads the workspace's configuration (see [`sources`]) and merges it under the command
/// line (see [`merge`]). Returns the options in force and the files read.
pub fn configure(command_line: &Options, workspace: &Workspace) -> Result<(Options, Vec<PathBuf>)> {
    let mut sources = sources(workspace)?;
    // A nextest profile is the weakest source: the tool's own configuration wins over it.
    if let Some(nextest) = crate::nextest::source(&workspace.root)? {
        sources.insert(0, nextest);
    }
    let options = merge(command_line, &sources);
    let mut files: Vec<PathBuf> = sources.into_iter().map(|s| s.file).collect();
    files.dedup();
    Ok((options, files))
}

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
        let document = parse(manifest, &text)?;
        if i == 0 {
            found.extend(Source::read(
                manifest,
                &text,
                &document,
                "workspace.metadata.autodebug",
            )?);
        }
        let selected = workspace
            .packages
            .iter()
            .any(|p| &p.manifest_path == manifest);
        if selected {
            found.extend(Source::read(
                manifest,
                &text,
                &document,
                "package.metadata.autodebug",
            )?);
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
        let document = parse(&file, &text)?;
        found.extend(Source::read(&file, &text, &document, "")?);
    }
    Ok(found)
}

/// The TOML document of `file`, with the spans of its keys and values.
fn parse<'t>(file: &Path, text: &'t str) -> Result<Spanned<DeTable<'t>>> {
    DeTable::parse(text).with_context(|| format!("could not parse {}", file.display()))
}

impl Source {
    /// The settings of the table at `table_path` (dotted; empty for the whole document) of
    /// `document`, the parsed `text` of `file`, or `None` when there is no such table.
    /// An error names the file and the key and points at the line and column of the value
    /// (of the key, for an unknown key, with the keys accepted).
    pub fn read(
        file: &Path,
        text: &str,
        document: &Spanned<DeTable<'_>>,
        table_path: &'static str,
    ) -> Result<Option<Source>> {
        let mut value = Spanned::new(document.span(), DeValue::Table(document.get_ref().clone()));
        for segment in table_path.split('.').filter(|s| !s.is_empty()) {
            let Some(inner) = value.get_ref().as_table().and_then(|t| t.get(segment)) else {
                return Ok(None);
            };
            value = inner.clone();
        }
        let at = Place {
            file,
            text,
            table_path,
        };
        let Some(table) = value.get_ref().as_table().cloned() else {
            bail!(
                "{}: `{table_path}` must be a table\n{}",
                file.display(),
                at.pointer(value.span().start)
            );
        };
        let config = Config::deserialize(ValueDeserializer::from(value))
            .map_err(|error| at.error(&table, &error))?;
        Ok(Some(Source {
            file: file.to_path_buf(),
            config,
        }))
    }
}

/// Where a table is, for its errors.
struct Place<'a> {
    file: &'a Path,
    text: &'a str,
    table_path: &'static str,
}

impl Place<'_> {
    /// The line pointing at byte `offset` of the file: `  --> FILE:LINE:COLUMN`.
    fn pointer(&self, offset: usize) -> String {
        let before = &self.text[..offset.min(self.text.len())];
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
        format!("  --> {}:{line}:{column}", self.file.display())
    }

    /// `error` of the table `table` as the user reads it: the file, the key (with the
    /// table's path in a manifest) and what is wrong, then where, then for an unknown key
    /// the keys there are.
    fn error(&self, table: &DeTable<'_>, error: &toml::de::Error) -> anyhow::Error {
        let span = error.span();
        let key = span.as_ref().and_then(|span| {
            table
                .iter()
                .find(|(k, v)| k.span().contains(&span.start) || v.span().contains(&span.start))
                .map(|(k, _)| k.get_ref().to_string())
        });
        let name = match (key, self.table_path) {
            (Some(key), "") => format!("`{key}`"),
            (Some(key), path) => format!("`{path}.{key}`"),
            (None, "") => "the file".to_string(),
            (None, path) => format!("`{path}`"),
        };
        let message = error.message().trim_end();
        let (message, help) = match message.strip_prefix("unknown field `") {
            Some(rest) => {
                let keys = rest
                    .split_once("expected one of ")
                    .or_else(|| rest.split_once("expected "))
                    .map_or("none", |(_, keys)| keys);
                (
                    "unknown key",
                    Some(format!("  = help: the keys are {keys}")),
                )
            }
            None => (message, None),
        };
        let mut text = format!("{}: {name}: {message}", self.file.display());
        if let Some(span) = span {
            text.push('\n');
            text.push_str(&self.pointer(span.start));
        }
        if let Some(help) = help {
            text.push('\n');
            text.push_str(&help);
        }
        anyhow::anyhow!(text)
    }
}

/// A value that `check` accepts, or its error (`expected …, found …`).
fn checked<'de, D: Deserializer<'de>, T>(
    deserializer: D,
    check: impl FnOnce(&toml::Value) -> Option<T>,
    expected: impl FnOnce() -> String,
) -> Result<Option<T>, D::Error> {
    let value = toml::Value::deserialize(deserializer)?;
    match check(&value) {
        Some(checked) => Ok(Some(checked)),
        None => Err(serde::de::Error::custom(format!(
            "expected {}, found {value}",
            expected()
        ))),
    }
}

fn seconds<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<f64>, D::Error> {
    let (seconds, value) = number_of_seconds(deserializer)?;
    if seconds <= 0.0 {
        return Err(serde::de::Error::custom(format!(
            "expected a positive number of seconds, found {value}"
        )));
    }
    Ok(Some(seconds))
}

/// A number of seconds, 0 or more.
fn budget_seconds<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<f64>, D::Error> {
    let (seconds, value) = number_of_seconds(deserializer)?;
    if seconds < 0.0 {
        return Err(serde::de::Error::custom(format!(
            "expected a number of seconds, 0 or more, found {value}"
        )));
    }
    Ok(Some(seconds))
}

/// A finite number, and the value as written.
fn number_of_seconds<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<(f64, toml::Value), D::Error> {
    let value = toml::Value::deserialize(deserializer)?;
    let seconds = match value {
        toml::Value::Integer(n) => n as f64,
        toml::Value::Float(x) if x.is_finite() => x,
        _ => {
            return Err(serde::de::Error::custom(format!(
                "expected a number of seconds, found {value}"
            )));
        }
    };
    Ok((seconds, value))
}

fn count<'de, D: Deserializer<'de>, T: TryFrom<i64>>(
    deserializer: D,
) -> Result<Option<T>, D::Error> {
    checked(
        deserializer,
        |value| match value {
            toml::Value::Integer(n) if *n >= 0 => T::try_from(*n).ok(),
            _ => None,
        },
        || "a non-negative integer".to_string(),
    )
}

fn positive<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<usize>, D::Error> {
    checked(
        deserializer,
        |value| match value {
            toml::Value::Integer(n) if *n > 0 => Some(*n as usize),
            _ => None,
        },
        || "a positive integer".to_string(),
    )
}

fn boolean<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<bool>, D::Error> {
    checked(deserializer, toml::Value::as_bool, || {
        "true or false".to_string()
    })
}

/// `"one of \"a\", \"b\""`: the names a value of `T` is written as.
fn names<T: ValueEnum>() -> String {
    let names = T::value_variants()
        .iter()
        .filter_map(|v| v.to_possible_value())
        .map(|v| format!("\"{}\"", v.get_name()))
        .collect::<Vec<_>>()
        .join(", ");
    format!("one of {names}")
}

/// The value of `T` named by a string (as on the command line).
fn named<T: ValueEnum>(value: &toml::Value) -> Option<T> {
    value.as_str().and_then(|s| T::from_str(s, true).ok())
}

fn choice<'de, D: Deserializer<'de>, T: ValueEnum>(deserializer: D) -> Result<Option<T>, D::Error> {
    checked(deserializer, named, names::<T>)
}

fn list<'de, D: Deserializer<'de>, T: ValueEnum>(
    deserializer: D,
) -> Result<Option<Vec<T>>, D::Error> {
    let value = toml::Value::deserialize(deserializer)?;
    let Some(items) = value.as_array() else {
        return Err(serde::de::Error::custom(format!(
            "expected an array of technique names, found {value}"
        )));
    };
    items
        .iter()
        .map(|item| {
            named(item).ok_or_else(|| {
                serde::de::Error::custom(format!("expected {}, found {item}", names::<T>()))
            })
        })
        .collect::<Result<Vec<T>, D::Error>>()
        .map(Some)
}

fn strings<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Vec<String>>, D::Error> {
    checked(
        deserializer,
        |value| {
            value.as_array().and_then(|items| {
                items
                    .iter()
                    .map(|i| i.as_str().map(str::to_string))
                    .collect()
            })
        },
        || "an array of strings".to_string(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::glob_matches;

    fn options(args: &[&str]) -> Options {
        Options::parse_args(std::iter::once("cargo-autodebug").chain(args.iter().copied())).unwrap()
    }

    /// The settings of a `.cargo/autodebug.toml` holding `text`.
    fn read(text: &str) -> Result<Source> {
        let file = Path::new(".cargo/autodebug.toml");
        let document = parse(file, text)?;
        Ok(Source::read(file, text, &document, "")?.unwrap())
    }

    fn from(text: &str) -> Source {
        read(text).unwrap()
    }

    /// `options` with the settings of `source` laid under them.
    fn apply_source(options: &mut Options, source: &Source) {
        *options = merge(options, std::slice::from_ref(source));
    }

    #[test]
    fn command_line_wins_over_configuration() {
        let source =
            from("timeout = 5\nreruns = 7\nmax-fixes = 2\ntechniques = [\"spectrum\", \"repair\"]");
        let mut given = options(&["--timeout", "9", "--techniques", "switching"]);
        apply_source(&mut given, &source);
        assert_eq!(given.timeout, 9.0);
        assert_eq!(given.techniques, [TechniqueName::Switching]);
        assert_eq!(given.reruns, 7);
        assert_eq!(given.max_fixes, 2);
        let mut defaults = options(&[]);
        apply_source(&mut defaults, &source);
        assert_eq!(defaults.timeout, 5.0);
        assert_eq!(
            defaults.techniques,
            [TechniqueName::Spectrum, TechniqueName::Repair]
        );
    }

    #[test]
    fn bad_values_name_the_file_the_key_and_the_type() {
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
                "expected one of \"spectrum\", \"switching\", \"diagnosis\", \"pathgen\", \"repair\", \"history\", found \"slicing\"",
            ),
        ] {
            let error = read(text).unwrap_err();
            assert!(error.to_string().contains(expected), "{error}");
        }
    }

    #[test]
    fn disabled_techniques_and_exclusions() {
        let mut o = options(&[]);
        let source = from(
            "disable-techniques = [\"diagnosis\"]\nexclude = [\"src/gen/*.rs\", \"vendor\", \"fn:helper\"]",
        );
        apply_source(&mut o, &source);
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
        apply_source(&mut cli, &source);
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
        assert!(glob_matches("**/gen.rs", "gen.rs"));
        assert!(glob_matches("src/{a,b}.rs", "src/b.rs"));
        // Not a glob: only itself.
        assert!(glob_matches("src/a[", "src/a["));
        assert!(!glob_matches("src/a[", "src/ab"));
    }

    /// An unknown key stops the run: the file, the key, its line and column, and the keys
    /// there are.
    #[test]
    fn an_unknown_key_is_an_error_with_its_place_and_the_keys() {
        let error = read("timeout = 5\n  mystery-knob = 3\n")
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with(".cargo/autodebug.toml: `mystery-knob`: unknown key\n"),
            "{error}"
        );
        assert!(
            error.contains("  --> .cargo/autodebug.toml:2:3\n"),
            "{error}"
        );
        assert!(
            error.contains(
                "= help: the keys are `timeout`, `repair-timeout`, `baseline-timeout`, `reruns`"
            ),
            "{error}"
        );
        assert!(error.trim_end().ends_with("`exclude`"), "{error}");
    }

    /// A bad value points at the value: its line and column in the file.
    #[test]
    fn a_bad_value_points_at_its_line_and_column() {
        let error = read("# knobs\nreruns = 3\ntimeout = \"soon\"\n")
            .unwrap_err()
            .to_string();
        assert_eq!(
            error,
            ".cargo/autodebug.toml: `timeout`: expected a number of seconds, found \"soon\"\n  --> .cargo/autodebug.toml:3:11"
        );
    }

    /// In a manifest, the key is named with its table's path and located in the manifest;
    /// a table that is not one is an error too; a manifest without the table has no settings.
    #[test]
    fn manifest_tables_are_located_in_the_manifest() {
        let file = Path::new("calc/Cargo.toml");
        let text = "[package]\nname = \"calc\"\n\n[package.metadata.autodebug]\njobs = 0\n";
        let document = parse(file, text).unwrap();
        let error = Source::read(file, text, &document, "package.metadata.autodebug")
            .unwrap_err()
            .to_string();
        assert_eq!(
            error,
            "calc/Cargo.toml: `package.metadata.autodebug.jobs`: expected a positive integer, found 0\n  --> calc/Cargo.toml:5:8"
        );
        assert!(
            Source::read(file, text, &document, "workspace.metadata.autodebug")
                .unwrap()
                .is_none()
        );

        let text = "[package]\nname = \"calc\"\nmetadata = { autodebug = 3 }\n";
        let document = parse(file, text).unwrap();
        let error = Source::read(file, text, &document, "package.metadata.autodebug")
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with("calc/Cargo.toml: `package.metadata.autodebug` must be a table\n  --> calc/Cargo.toml:3:26"),
            "{error}"
        );

        let text = "[workspace.metadata.autodebug]\nmax-rebuilds = 4\nall-critical = true\n";
        let document = parse(file, text).unwrap();
        let source = Source::read(file, text, &document, "workspace.metadata.autodebug")
            .unwrap()
            .unwrap();
        assert_eq!(source.config.max_rebuilds, Some(4));
        assert_eq!(source.config.all_critical, Some(true));
    }

    /// Every key of the documentation is read into the option of the same name.
    #[test]
    fn every_key_sets_its_option() {
        let source = from(
            "timeout = 20\nrepair-timeout = 30.5\nreruns = 4\npassing-traces = 6\nmax-events = 1000\n\
             jobs = 3\nmax-switches = 9\nfix-suspects = 2\nmax-candidates = 50\nmax-rebuilds = 5\n\
             max-fixes = 1\nall-critical = true\nspectrum = \"dstar\"\nswitching-order = \"both\"\n\
             annotate = \"never\"\ntechniques = [\"spectrum\", \"repair\"]\nexclude = [\"fn:f\"]\n",
        );
        let o = merge(&options(&[]), &[source]);
        assert_eq!(
            (
                o.timeout,
                o.repair_timeout,
                o.reruns,
                o.passing_traces,
                o.max_events
            ),
            (20.0, 30.5, 4, 6, 1000)
        );
        assert_eq!(
            (
                o.jobs,
                o.max_switches,
                o.fix_suspects,
                o.max_candidates,
                o.max_rebuilds,
                o.max_fixes
            ),
            (Some(3), 9, 2, 50, 5, 1)
        );
        assert!(o.all_critical);
        assert_eq!(o.spectrum, Formula::Dstar);
        assert_eq!(o.switching_order, Order::Both);
        assert_eq!(o.annotate, Annotate::Never);
        assert_eq!(
            o.techniques,
            [TechniqueName::Spectrum, TechniqueName::Repair]
        );
        assert_eq!(o.exclude.functions, ["f"]);
    }

    /// Sources are laid weakest first; within one, `techniques` comes after
    /// `disable-techniques`.
    #[test]
    fn later_sources_win_and_techniques_follow_disabling() {
        let weak = from("reruns = 1\ntimeout = 3\ndisable-techniques = [\"diagnosis\"]");
        let strong = from("reruns = 5\ntechniques = [\"spectrum\", \"diagnosis\"]");
        let o = merge(&options(&[]), &[weak, strong]);
        assert_eq!((o.reruns, o.timeout), (5, 3.0));
        assert_eq!(
            o.techniques,
            [TechniqueName::Spectrum, TechniqueName::Diagnosis]
        );

        let both = from(
            "techniques = [\"spectrum\", \"diagnosis\"]\ndisable-techniques = [\"diagnosis\"]",
        );
        let o = merge(&options(&[]), &[both]);
        assert_eq!(
            o.techniques,
            [TechniqueName::Spectrum, TechniqueName::Diagnosis]
        );
        let o = merge(
            &options(&[]),
            &[
                from("techniques = [\"spectrum\", \"diagnosis\"]"),
                from("disable-techniques = [\"diagnosis\"]"),
            ],
        );
        assert_eq!(o.techniques, [TechniqueName::Spectrum]);
    }
}
