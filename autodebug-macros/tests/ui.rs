//! Compile-fail cases: malformed contracts are errors on the offending tokens (each case's
//! `.stderr` holds the expected message and its `^^^` span). Pass cases: crate shapes the
//! generated code must compile in, one file each.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
    t.pass("tests/pass/*.rs");
}
