//! A test harness for `harness = false` test targets: command-line compatible with libtest
//! (it is built on `libtest-mimic`) for `cargo test`, and able to run one test many times
//! inside one process when `cargo autodebug` asks for a batch (see
//! [`crate::protocol::BatchRequest`]). A switching search then pays one process start per
//! batch instead of one per rerun.
//!
//! ```toml
//! [[test]]
//! name = "suite"
//! harness = false
//! ```
//! ```ignore
//! // tests/suite.rs
//! mod search { pub fn finds_the_last(){ /* … */ } }
//! autodebug_runtime::harness!(search::finds_the_last, #[ignore] slow);
//! ```

pub use crate::batch::Test;
use crate::batch::{self, payload_text};
use crate::protocol::{BATCH_VERSION, ENV_BATCH, ENV_HARNESS_PROBE, HARNESS_MARKER};
use libtest_mimic::{Arguments, Failed, Trial};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::process::ExitCode;

/// Runs `tests` as libtest would for the command line of this process, or, when
/// `AUTODEBUG_BATCH` names a batch request, runs the batch. Returns the exit code for `main`:
/// 101 if a test failed, as libtest.
pub fn run<T: Into<Test>>(tests: impl IntoIterator<Item = T>) -> ExitCode {
    let tests: Vec<Test> = tests.into_iter().map(Into::into).collect();
    if let Some(request) = std::env::var_os(ENV_BATCH).filter(|v| !v.is_empty()) {
        return batch::run(std::path::Path::new(&request), &tests);
    }
    let args = Arguments::from_args();
    if args.list && std::env::var_os(ENV_HARNESS_PROBE).is_some_and(|v| v == "1") {
        println!("{HARNESS_MARKER}{BATCH_VERSION}");
    }
    let trials = tests
        .into_iter()
        .map(|test| {
            let name = test.name.clone();
            let ignored = test.ignored;
            Trial::test(name, move || {
                let caught = catch_unwind(AssertUnwindSafe(test.run));
                let panic = match &caught {
                    Ok(()) => None,
                    Err(payload) => Some(payload_text(payload.as_ref()).unwrap_or("Box<dyn Any>")),
                };
                test.verdict(panic).map_err(Failed::from)
            })
            .with_ignored_flag(ignored)
        })
        .collect();
    libtest_mimic::run(&args, trials).exit_code()
}

/// Generates `fn main` running the listed test functions with [`run`]; each is named by its
/// path as written (`tests::sums`). `#[ignore]` before a path marks it ignored.
///
/// ```ignore
/// autodebug_runtime::harness!(tests::sums, #[ignore] tests::slow);
/// ```
#[macro_export]
macro_rules! harness {
    ($( $(#[$ignore:ident])? $test:path ),* $(,)?) => {
        fn main() -> ::std::process::ExitCode {
            ::autodebug_runtime::harness::run([$(
                ::autodebug_runtime::harness::Test::new(
                    ::autodebug_runtime::harness::__test_name(::core::stringify!($test)),
                    $test,
                ) $( .$ignore() )?
            ),*])
        }
    };
}

/// The name of a test from its path as `stringify!` spells it (spaces around `::` removed).
#[doc(hidden)]
pub fn __test_name(path: &str) -> String {
    path.split("::")
        .map(str::trim)
        .collect::<Vec<_>>()
        .join("::")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn noop() {}

    #[test]
    fn names_from_paths() {
        assert_eq!(__test_name("tests :: sums"), "tests::sums");
        assert_eq!(__test_name("sums"), "sums");
        let test: Test = ("a::b", noop as fn()).into();
        assert_eq!(test.name(), "a::b");
        assert!(!test.ignored && test.clone().ignore().ignored);
    }
}
