//! Compile-fail cases: malformed contracts are errors on the offending tokens (each case's
//! `.stderr` holds the expected message and its `^^^` span).

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
