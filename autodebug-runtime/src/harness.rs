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

mod batch;

use crate::protocol::{BATCH_VERSION, ENV_BATCH, ENV_HARNESS_PROBE, HARNESS_MARKER};
use libtest_mimic::{Arguments, Failed, Trial};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::process::ExitCode;

/// One test: a name (as `--list` prints it and `--exact` selects it) and a function that
/// panics on failure.
#[derive(Clone, Debug)]
pub struct Test {
    name: String,
    run: fn(),
    ignored: bool,
    /// `Some(expected)`: the test passes only if it panics with a message containing
    /// `expected` (`""`: any panic), as `#[should_panic(expected = …)]`.
    should_panic: Option<&'static str>,
}

impl Test {
    /// A test named `name` that runs `run`.
    pub fn new(name: impl Into<String>, run: fn()) -> Test {
        Test {
            name: name.into(),
            run,
            ignored: false,
            should_panic: None,
        }
    }

    /// Marks the test ignored, as `#[ignore]`: run only with `--ignored` or
    /// `--include-ignored` (a batch runs it regardless).
    pub fn ignore(mut self) -> Test {
        self.ignored = true;
        self
    }

    /// The test passes only if it panics with a message containing `expected` (`""` for
    /// any panic), as `#[should_panic(expected = "…")]`.
    pub fn should_panic(mut self, expected: &'static str) -> Test {
        self.should_panic = Some(expected);
        self
    }

    /// The test's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Runs the test once, catching its panic: `Err(message)` if it failed. `panic` is the
    /// message of the panic, if it panicked (`None` when it returned).
    fn verdict(&self, panic: Option<&str>) -> Result<(), String> {
        match (self.should_panic, panic) {
            (None, None) => Ok(()),
            (None, Some(message)) => Err(message.to_string()),
            (Some(_), None) => Err("test did not panic as expected".to_string()),
            (Some(expected), Some(message)) if message.contains(expected) => Ok(()),
            (Some(expected), Some(message)) => Err(format!(
                "panic did not contain expected string\n      panic message: {message:?}\n \
                 expected substring: {expected:?}"
            )),
        }
    }
}

impl From<(&'static str, fn())> for Test {
    fn from((name, run): (&'static str, fn())) -> Test {
        Test::new(name, run)
    }
}

/// The text of a panic payload (`&str` and `String` payloads; others have none).
fn payload_text(payload: &(dyn std::any::Any + Send)) -> Option<&str> {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
}

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
    fn should_panic_verdicts() {
        let plain = Test::new("t", noop);
        assert_eq!(plain.verdict(None), Ok(()));
        assert_eq!(plain.verdict(Some("boom")), Err("boom".to_string()));
        let any = Test::new("t", noop).should_panic("");
        assert_eq!(any.verdict(Some("boom")), Ok(()));
        assert!(any.verdict(None).unwrap_err().contains("did not panic"));
        let expected = Test::new("t", noop).should_panic("out of range");
        assert_eq!(expected.verdict(Some("index out of range: 3")), Ok(()));
        let err = expected.verdict(Some("boom")).unwrap_err();
        assert!(err.contains("expected substring"), "{err}");
    }

    #[test]
    fn names_from_paths() {
        assert_eq!(__test_name("tests :: sums"), "tests::sums");
        assert_eq!(__test_name("sums"), "sums");
        let test: Test = ("a::b", noop as fn()).into();
        assert_eq!(test.name(), "a::b");
        assert!(!test.ignored && test.clone().ignore().ignored);
    }

    #[test]
    fn payload_texts() {
        let s: Box<dyn std::any::Any + Send> = Box::new("static");
        assert_eq!(payload_text(s.as_ref()), Some("static"));
        let s: Box<dyn std::any::Any + Send> = Box::new(String::from("owned"));
        assert_eq!(payload_text(s.as_ref()), Some("owned"));
        let s: Box<dyn std::any::Any + Send> = Box::new(3u8);
        assert_eq!(payload_text(s.as_ref()), None);
    }
}
