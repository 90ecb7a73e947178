//! Reading back the report's fixed words (`&'static str` fields: statuses, technique names)
//! from JSON, for `cargo autodebug merge`: each read word is leaked, which a one-shot command
//! reading a few reports can afford (a few kilobytes, freed when the process ends).

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer};

/// A fixed word of the report. A name of its own, not `&'static str`, so that serde's
/// derive does not take the field for one borrowed from the input.
pub type Word = &'static str;

fn leaked(text: String) -> &'static str {
    Box::leak(text.into_boxed_str())
}

/// A `&'static str` field.
pub fn word<'de, D: Deserializer<'de>>(d: D) -> Result<&'static str, D::Error> {
    String::deserialize(d).map(leaked)
}

/// An `Option<&'static str>` field.
pub fn maybe_word<'de, D: Deserializer<'de>>(d: D) -> Result<Option<&'static str>, D::Error> {
    Option::<String>::deserialize(d).map(|w| w.map(leaked))
}

/// A `Vec<&'static str>` field.
pub fn words<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<&'static str>, D::Error> {
    Vec::<String>::deserialize(d).map(|w| w.into_iter().map(leaked).collect())
}

/// A map keyed by `&'static str`.
pub fn keyed<'de, D: Deserializer<'de>, V: Deserialize<'de>>(
    d: D,
) -> Result<BTreeMap<&'static str, V>, D::Error> {
    BTreeMap::<String, V>::deserialize(d)
        .map(|m| m.into_iter().map(|(k, v)| (leaked(k), v)).collect())
}
