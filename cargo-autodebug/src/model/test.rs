//! A test: a name inside a test binary.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// One test: a name inside a test binary.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TestId {
    /// Package of the test target.
    pub package: String,
    /// Test target (`mylib` for unit tests, the file name for integration tests).
    pub target: String,
    /// Kind of the target (`lib`, `test`, `bin`).
    pub kind: String,
    /// The test's full libtest name (`tests::sum_of_three`).
    pub name: String,
    #[serde(skip)]
    pub binary: PathBuf,
    #[serde(skip)]
    pub package_root: PathBuf,
}

impl TestId {
    /// What names the test wherever it was built: package, kind, target and name.
    pub fn key(&self) -> [&str; 4] {
        [&self.package, &self.kind, &self.target, &self.name]
    }

    /// `package/target::name`, for people.
    pub fn display(&self) -> String {
        format!("{}::{}", self.target, self.name)
    }

    /// A file-name-safe form of the id; a hash of the whole id keeps names that differ
    /// only in replaced characters apart.
    pub fn file_stem(&self) -> String {
        use std::hash::{Hash, Hasher};
        let raw = format!("{}.{}.{}", self.package, self.target, self.name);
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        raw.hash(&mut hasher);
        let safe: String = raw
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '.' || c == '-' || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        format!("{safe}-{:08x}", hasher.finish() as u32)
    }
}
