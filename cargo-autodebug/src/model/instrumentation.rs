//! What zero-annotation mode instrumented.

/// What zero-annotation mode instrumented (`report.json`'s `instrumentation`).
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct Instrumentation {
    /// Functions that got the attribute.
    pub functions: usize,
    /// Of those, the functions the build kept instrumented.
    pub instrumented: usize,
    /// Items built uninstrumented because the compiler rejected them instrumented.
    pub left_out: Vec<LeftOut>,
    /// Sites left as written (the rest of their function instrumented) because the
    /// compiler rejected their instrumented code.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sites_left_out: Vec<SiteLeftOut>,
    /// Tests that got the test attribute (one process runs a test under many plans).
    pub tests_wrapped: usize,
}

/// An item built uninstrumented, and why.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct LeftOut {
    /// Its file, relative to the workspace root.
    pub file: String,
    /// What it is (`max`, `impl Stack`).
    pub item: String,
    /// Functions it holds.
    pub functions: usize,
    /// The first line of the first compiler error inside it.
    pub reason: String,
}

/// A site left as written, and why: the compiler's error pointed into it.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct SiteLeftOut {
    /// Its file, relative to the workspace root.
    pub file: String,
    /// Where the compiler's error pointed (1-based line and character column); the
    /// innermost site holding that position is the one left as written.
    pub line: u32,
    pub column: u32,
    /// The item it is in (`max`, `impl Stack`).
    pub item: String,
    /// The first line of the compiler's error.
    pub reason: String,
}
