//! Bad input to the tool: malformed manifests, paths cargo cannot use, build scripts that
//! fail, and code of every shape (macros, generated code, `#[cfg]`-gated items, `unsafe`,
//! `async`, trait methods, a huge function, a deeply nested expression). Each gets a clear
//! message with its location, or a stated degradation; never a panic of the tool.

use crate::common;

use std::path::Path;
use std::process::Output;

/// The tool never panics: a panic of its own would print `panicked at` and exit 101.
fn no_tool_panic(output: &Output) {
    assert_ne!(
        output.status.code(),
        Some(101),
        "{}",
        common::describe(output)
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        !stderr.contains("thread 'main' panicked"),
        "{}",
        common::describe(output)
    );
}

fn write(root: &Path, files: &[(&str, &str)]) {
    for (path, text) in files {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

const MANIFEST: &str = "[package]\nname = \"odd\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n[workspace]\n\n[features]\nextra = []\n";

#[test]
fn a_malformed_manifest_is_a_usage_error_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[
            (
                "Cargo.toml",
                "[package]\nname = \"bad\"\nversion = \"0.1.0\"\n\n[dependencies\nx = 1\n",
            ),
            ("src/lib.rs", ""),
        ],
    );
    let output = common::autodebug(dir.path(), &[]);
    no_tool_panic(&output);
    assert_eq!(
        output.status.code(),
        Some(2),
        "{}",
        common::describe(&output)
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("Cargo.toml:5"), "{stderr}");
    // No manifest at all.
    let output = common::autodebug(dir.path(), &["--manifest-path", "nowhere/Cargo.toml"]);
    no_tool_panic(&output);
    assert_eq!(
        output.status.code(),
        Some(2),
        "{}",
        common::describe(&output)
    );
}

#[test]
fn a_workspace_path_that_is_not_utf8_is_refused_with_a_hint() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join(std::ffi::OsStr::from_bytes(b"caf\xe9"));
    write(
        &root,
        &[
            ("Cargo.toml", MANIFEST),
            ("src/lib.rs", "#[test]\nfn t() {}\n"),
        ],
    );
    let output = common::autodebug(&root, &[]);
    no_tool_panic(&output);
    assert_eq!(
        output.status.code(),
        Some(2),
        "{}",
        common::describe(&output)
    );
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("hint: cargo needs the workspace's path"),
        "{}",
        common::describe(&output)
    );
}

#[test]
fn a_failing_build_script_is_a_build_failure() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[
            ("Cargo.toml", MANIFEST),
            (
                "build.rs",
                "fn main() { panic!(\"the build script needs LIBFOO\"); }\n",
            ),
            ("src/lib.rs", "#[test]\nfn t() {}\n"),
        ],
    );
    let output = common::autodebug(dir.path(), &[]);
    no_tool_panic(&output);
    assert_eq!(
        output.status.code(),
        Some(3),
        "{}",
        common::describe(&output)
    );
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("the build script needs LIBFOO"),
        "{}",
        common::describe(&output)
    );
}

/// A crate nobody annotated, with code of every shape around one fault.
fn odd_crate(root: &Path) {
    let mut nested = "x".to_string();
    for i in 0..300 {
        nested = format!("({nested} + {})", i % 3);
    }
    let huge: String = (0..450)
        .map(|i| format!("    acc = acc.wrapping_add({i} ^ x);\n"))
        .collect();
    let lib = format!(
        r#"include!(concat!(env!("OUT_DIR"), "/generated.rs"));

macro_rules! make_adder {{
    ($name:ident, $k:expr) => {{
        pub fn $name(x: i32) -> i32 {{
            x + $k
        }}
    }};
}}

make_adder!(add_three, 3);

#[cfg(feature = "extra")]
pub fn only_with_extra() -> i32 {{
    1
}}

#[cfg(not(feature = "extra"))]
pub fn only_with_extra() -> i32 {{
    0
}}

/// # Safety
/// `p` points to a valid `i32`.
pub unsafe fn read_raw(p: *const i32) -> i32 {{
    unsafe {{ *p }}
}}

pub async fn later(x: i32) -> i32 {{
    x + 1
}}

pub trait Shape {{
    fn sides(&self) -> u32;
    fn corners(&self) -> u32 {{
        self.sides()
    }}
}}

pub struct Square;

impl Shape for Square {{
    fn sides(&self) -> u32 {{
        4
    }}
}}

pub fn nested(x: i64) -> i64 {{
    {nested}
}}

pub fn huge(x: u64) -> u64 {{
    let mut acc = 0u64;
{huge}    acc
}}

/// The absolute value.
pub fn magnitude(x: i32) -> i32 {{
    if x < 0 {{ x }} else {{ x }}
}}

#[cfg(test)]
mod tests {{
    use super::*;

    #[test]
    fn shapes_macros_and_generated_code() {{
        assert_eq!(Square.corners(), 4);
        assert_eq!(add_three(1), 4);
        assert_eq!(generated_twice(4), 8);
        assert_eq!(only_with_extra(), 0);
        let v = 7;
        assert_eq!(unsafe {{ read_raw(&v) }}, 7);
        let _ = later(1);
        assert!(nested(1) > 0);
        assert!(huge(3) > 0);
    }}

    #[test]
    fn magnitude_of_a_positive_number() {{
        assert_eq!(magnitude(5), 5);
    }}

    #[test]
    fn magnitude_of_a_negative_number() {{
        assert_eq!(magnitude(-5), 5);
    }}
}}
"#
    );
    write(
        root,
        &[
            ("Cargo.toml", MANIFEST),
            (
                "build.rs",
                "fn main() {\n    let out = std::env::var(\"OUT_DIR\").unwrap();\n    std::fs::write(format!(\"{out}/generated.rs\"), \"pub fn generated_twice(x: i32) -> i32 { x * 2 }\\n\").unwrap();\n}\n",
            ),
            ("src/lib.rs", &lib),
            (
                "tests/outside.rs",
                "#[test]\nfn magnitude_from_outside() {\n    assert_eq!(odd::magnitude(-2), 2);\n}\n",
            ),
        ],
    );
}

#[test]
fn code_of_every_shape_is_debugged_with_its_degradations_stated() {
    let dir = tempfile::tempdir().unwrap();
    odd_crate(dir.path());
    let output = common::autodebug(
        dir.path(),
        &["-v", "--techniques", "spectrum,diagnosis,repair"],
    );
    no_tool_panic(&output);
    assert_eq!(
        output.status.code(),
        Some(5),
        "{}",
        common::describe(&output)
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    for skipped in [
        "not instrumented: read_raw: `unsafe fn`",
        "not instrumented: later: `async fn`",
        "not instrumented: huge: too large to instrument (452 statements",
    ] {
        assert!(stderr.contains(skipped), "no `{skipped}` in:\n{stderr}");
    }
    let report = common::report(dir.path());
    let top = &report["suspects"][0];
    assert_eq!(
        top["function"].as_str().unwrap().rsplit("::").next(),
        Some("magnitude"),
        "{report:#}"
    );
    let fix = &report["fixes"][0];
    assert_eq!(fix["validated"], true, "{report:#}");
    assert_eq!(
        (fix["original"].as_str(), fix["replacement"].as_str()),
        (Some("x"), Some("-x"))
    );
}
