//! A shard's part of a run (`--shard K/N`): the repair stage's rebuild queue, with the
//! rebuilds the shard made; `cargo autodebug merge` replays the rebuild rules over the parts.

use autodebug_runtime::protocol::SiteKey;
use serde::{Deserialize, Serialize};

use super::Fix;

/// A shard's part of the repair stage (`report.json`'s `shard`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ShardPart {
    /// K, from 0.
    pub index: usize,
    /// N.
    pub count: usize,
    /// The rebuild queue in order; the items this shard rebuilt carry the result.
    pub items: Vec<Item>,
    /// The bound that cut the candidate search before the rebuilds, if one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub searched_cut: Option<String>,
}

/// One candidate of the queue, as the rules and the report need it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Item {
    /// The candidate as a fix (its edits written into the files as read); `None` when it
    /// could not be written as a patch (`unwritable` says so: `` `code` could not be written
    /// as a patch: why ``).
    pub fix: Option<Fix>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unwritable: Option<String>,
    /// The fix cannot be shown in the user's files (zero-annotation mode): why. It is
    /// rebuilt like the others, and left out of the report at the end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dropped: Option<String>,
    /// Fingerprints of the patched files' code (whitespace aside): the same code is
    /// rebuilt once, and offered once.
    pub code: Vec<String>,
    /// The tests it passed when rerun; `None`: not plausible (the runtime could not judge
    /// it, or it was refuted and is rebuilt anyway).
    pub plausible: Option<Vec<bool>>,
    /// The sites it edits (once one has a validated fix, only simpler candidates of it are
    /// rebuilt).
    pub sites: Vec<SiteKey>,
    pub cost: u32,
    /// A combination with a partial fix (these have rebuilds of their own).
    pub combined: bool,
    /// What its rebuild showed, when this run (or shard) rebuilt it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rebuilt: Option<Rebuilt>,
}

/// A rebuild's result.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Rebuilt {
    pub validation: Validation,
    /// Seconds it took (copy, build and tests).
    pub seconds: f64,
}

/// How a patched build did.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Validation {
    /// Every required test passed.
    pub validated: bool,
    /// Tests of the suite that passed.
    pub tests_passed: usize,
    /// Tests of the suite.
    pub tests_total: usize,
    /// Whether each test of the suite passed, in suite order (a fix's effect).
    pub passed: Vec<bool>,
    /// Required tests that did not pass (`target::name`).
    pub failing: Vec<String>,
    /// Tests not run: a test that failed before still failed, so the rest of the suite was
    /// not needed.
    #[serde(default)]
    pub not_run: usize,
    /// Why the patch could not be tested at all (it does not compile).
    pub error: Option<String>,
    pub build_s: f64,
    pub test_s: f64,
}

/// A shard of the work: this run rebuilds the items `index` of every `count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl Shard {
    /// Whether the queue's item is this shard's to rebuild: by its code (the fingerprints
    /// of its patched files), not its place in the queue, so that shards whose queues
    /// differ a little still split the same candidates the same way.
    pub fn owns(&self, item: &Item) -> bool {
        self.owner(item) == self.index
    }

    /// The shard that rebuilds `item`.
    pub fn owner(&self, item: &Item) -> usize {
        self.owner_of(item.code.iter().map(String::as_str))
    }

    /// Whether the test is this shard's to run in a sharded baseline: by its identity.
    pub fn owns_test(&self, test: &super::TestId) -> bool {
        self.owner_of(test.key().into_iter()) == self.index
    }

    /// The shard of a thing named by `parts` (deterministic across machines and runs).
    fn owner_of<'a>(&self, parts: impl Iterator<Item = &'a str>) -> usize {
        use std::hash::Hasher;
        let mut hasher = fnv::FnvHasher::default();
        for part in parts {
            hasher.write(part.as_bytes());
            hasher.write_u8(0);
        }
        // FNV's low bits follow the last bytes closely: mixed (splitmix64's finalizer) so
        // that every residue is as likely.
        let mut h = hasher.finish();
        h = (h ^ (h >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        h = (h ^ (h >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        h ^= h >> 31;
        (h % self.count as u64) as usize
    }
}

impl std::str::FromStr for Shard {
    type Err = String;

    /// `K/N`, K counted from 0 (as cargo-mutants counts them).
    fn from_str(text: &str) -> Result<Shard, String> {
        let (k, n) = text
            .split_once('/')
            .ok_or_else(|| format!("`{text}` is not K/N (e.g. 0/3: the first of three shards)"))?;
        let index: usize =
            (k.trim().parse()).map_err(|_| format!("`{k}` in `{text}` is not a shard number"))?;
        let count: usize = (n.trim().parse())
            .map_err(|_| format!("`{n}` in `{text}` is not a number of shards"))?;
        if count == 0 || index >= count {
            return Err(format!(
                "shard {index} of {count} does not exist: K counts from 0 to N-1 (0/{n} … {}/{n})",
                count.saturating_sub(1)
            ));
        }
        Ok(Shard { index, count })
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}
