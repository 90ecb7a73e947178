//! Suspects: sites ranked by the localization techniques, with each one's evidence.

use autodebug_runtime::protocol::SiteKind;
use serde::{Deserialize, Serialize};

/// One technique's opinion of one site.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Evidence {
    /// The technique (`ochiai`, `predicate-switching`, …).
    #[serde(deserialize_with = "super::leak::word")]
    pub technique: super::leak::Word,
    /// Its score for the site: higher is more suspicious; comparable within a technique.
    pub score: f64,
    /// What it found, for people (`ochiai: 0.82`, `critical predicate, instance 3 of 5`).
    pub detail: String,
}

/// A suspect in the merged ranking.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Ranked {
    pub rank: usize,
    pub file: String,
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
    pub end_column: u32,
    pub kind: SiteKind,
    pub code: String,
    pub function: String,
    /// The whole source line the site is on, trimmed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_line: Option<String>,
    /// The merged score (see [`merge`]).
    pub score: f64,
    /// One line per technique: `ochiai: 0.82`.
    pub evidence: Vec<String>,
    /// The same, structured.
    pub techniques: Vec<Evidence>,
    /// On a line the `--in-diff` diff changed (such suspects are ranked first).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub in_diff: bool,
}
