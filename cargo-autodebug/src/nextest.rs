//! `.config/nextest.toml`: a workspace set up for cargo-nextest is run with the timeout,
//! retries and test threads its nextest profile gives (`NEXTEST_PROFILE`, else `default`,
//! with nextest's inheritance), as the weakest configuration source: the tool's own
//! configuration and the command line win over it. A profile's `slow-timeout` with
//! `terminate-after` kills a test after `period × terminate-after`, as nextest does; a
//! `slow-timeout` without it only marks slow tests in nextest and sets nothing here.

use std::path::Path;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use toml::{Table, Value};

use crate::config::{Config, Source};

/// Where nextest reads its repository configuration, from the workspace root.
pub const CONFIG_PATH: &str = ".config/nextest.toml";

/// The settings the workspace's nextest profile gives, when it has a configuration.
pub fn source(workspace_root: &Path) -> Result<Option<Source>> {
    let file = workspace_root.join(CONFIG_PATH);
    let Ok(text) = std::fs::read_to_string(&file) else {
        return Ok(None);
    };
    let table: Table = text
        .parse()
        .with_context(|| format!("{} is not valid TOML", file.display()))?;
    let profile = std::env::var("NEXTEST_PROFILE")
        .ok()
        .filter(|p| !p.is_empty())
        .unwrap_or_else(|| "default".to_string());
    let config = settings(&table, &profile)
        .with_context(|| format!("{}: profile `{profile}` cannot be read", file.display()))?;
    Ok(Some(Source { file, config }))
}

/// The settings of `profile`: its own keys over those of the profiles it inherits from
/// (`inherits`, else `default`).
fn settings(table: &Table, profile: &str) -> Result<Config> {
    let profiles = table.get("profile").and_then(Value::as_table);
    let mut chain: Vec<&Table> = Vec::new();
    let mut name = profile.to_string();
    loop {
        let found = profiles
            .and_then(|p| p.get(&name))
            .and_then(Value::as_table);
        match found {
            Some(t) => chain.push(t),
            None if name != profile || name == "default" => {}
            None => bail!("no [profile.{name}] in the file"),
        }
        if name == "default" || chain.len() > 16 {
            break;
        }
        name = found
            .and_then(|t| t.get("inherits"))
            .and_then(Value::as_str)
            .unwrap_or("default")
            .to_string();
    }
    let mut config = Config::default();
    // Weakest first: the end of the chain is `default`.
    for profile in chain.iter().rev() {
        if let Some(timeout) = profile.get("slow-timeout") {
            config.timeout = terminate_after(timeout)?.or(config.timeout);
        }
        if let Some(retries) = profile.get("retries") {
            let count = match retries {
                Value::Integer(n) => Some(*n),
                Value::Table(t) => t.get("count").and_then(Value::as_integer),
                _ => None,
            }
            .context("`retries` is neither a count nor a table with `count`")?;
            // No retry is nextest's default; flaky tests are still told apart here.
            if count > 0 {
                config.reruns = Some(count as usize);
            }
        }
        if let Some(Value::Integer(threads)) = profile.get("test-threads")
            && *threads > 0
        {
            config.jobs = Some(*threads as usize);
        }
    }
    Ok(config)
}

/// The seconds after which nextest kills a test under `slow-timeout`: `period ×
/// terminate-after` of the table form; `None` for the plain form (only marks tests slow).
fn terminate_after(value: &Value) -> Result<Option<f64>> {
    let Value::Table(t) = value else {
        return Ok(None);
    };
    let Some(after) = t.get("terminate-after").and_then(Value::as_integer) else {
        return Ok(None);
    };
    let period = t
        .get("period")
        .and_then(Value::as_str)
        .context("`slow-timeout` has no `period`")?;
    let period: Duration = humantime::parse_duration(period)
        .with_context(|| format!("`period = \"{period}\"` is not a duration"))?;
    Ok(Some(period.as_secs_f64() * after as f64))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str, profile: &str) -> Config {
        settings(&text.parse().unwrap(), profile).unwrap()
    }

    #[test]
    fn a_profile_gives_the_kill_timeout_retries_and_threads() {
        let text = r#"
            [profile.default]
            slow-timeout = { period = "1s", terminate-after = 2 }
            retries = 3
            test-threads = 4

            [profile.ci]
            slow-timeout = { period = "1m 30s", terminate-after = 3 }
            retries = { backoff = "fixed", count = 1, delay = "1s" }

            [profile.quick]
            inherits = "ci"
            test-threads = 1

            [profile.marks]
            slow-timeout = "10s"
        "#;
        let default = read(text, "default");
        assert_eq!(
            (default.timeout, default.reruns, default.jobs),
            (Some(2.0), Some(3), Some(4))
        );
        let ci = read(text, "ci");
        assert_eq!(
            (ci.timeout, ci.reruns, ci.jobs),
            (Some(270.0), Some(1), Some(4))
        );
        let quick = read(text, "quick");
        assert_eq!((quick.timeout, quick.jobs), (Some(270.0), Some(1)));
        // A slow-timeout that only marks slow tests keeps the inherited kill timeout.
        assert_eq!(read(text, "marks").timeout, Some(2.0));
        assert!(settings(&text.parse().unwrap(), "nope").is_err());
    }
}
