//! What zero-annotation mode instrumented.

/// What zero-annotation mode instrumented (`report.json`'s `instrumentation`).
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Instrumentation {
    /// Functions that got the attribute.
    pub functions: usize,
    /// Of those, the functions the build kept instrumented.
    pub instrumented: usize,
    /// Items built uninstrumented because the compiler rejected them instrumented.
    pub left_out: Vec<LeftOut>,
    /// Tests that got the test attribute (one process runs a test under many plans).
    pub tests_wrapped: usize,
}

/// An item built uninstrumented, and why.
#[derive(Debug, Clone, serde::Serialize)]
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
