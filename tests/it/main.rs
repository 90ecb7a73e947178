//! The end-to-end tests of `cargo autodebug`, in one test binary: one module per area, all
//! built on the one fixture helper in `tests/common/`. They run the real binary
//! (`CARGO_BIN_EXE_cargo-autodebug`) on copies of the crates under `tests/fixtures/` and
//! `examples/`; no test changes the process's environment or working directory, so they
//! run side by side on the harness's threads. Run one area with
//! `cargo test -p cargo-autodebug --test it -- AREA::`.

#[path = "../common/mod.rs"]
mod common;

mod apply;
mod bad_input;
mod cli;
mod console;
mod examples;
mod history;
mod hostile;
mod install;
mod interrupt;
mod oracle;
mod packaging;
mod pathgen;
mod publish;
mod repair;
mod report_html;
mod shard;
mod solver;
mod switching;
mod zero_annotation;
