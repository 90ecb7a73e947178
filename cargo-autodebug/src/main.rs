//! `cargo autodebug`: finds the failing tests of a workspace, records what they did, and
//! reports. `main` dispatches; [`pipeline`] runs the stages one way:
//! build → baseline → record → oracle → localize → repair → publish.
mod baseline;
mod build;
mod clean;
mod config;
mod console;
mod copy_tree;
mod edit;
mod engine;
mod init;
mod interrupt;
mod localize;
mod merge;
mod model;
mod nextest;
mod options;
mod oracle;
mod output_dir;
mod pipeline;
mod publish;
mod repair;
#[cfg(test)]
mod robustness;
mod session;
mod trace;
mod unit_cache;
mod worker;
mod workspace;
mod zero;

use crate::console::Console;
use crate::interrupt::Interrupts;
use crate::model::{ExitCode, OrExit};
use crate::options::{Command, Options};

/// Stack of the thread the pipeline runs on (see `main`).
const PIPELINE_STACK: usize = 1 << 30;

fn main() {
    let options = Options::from_env();
    let console = Console::new(&options);
    let interrupts = Interrupts::install();
    let result = match &options.command {
        Some(Command::Init(init)) => {
            // `cargo autodebug --manifest-path M init` means M as well.
            let mut init = init.clone();
            init.manifest_path = init.manifest_path.or(options.manifest_path.clone());
            init.package = init.package.or(options.packages.first().cloned());
            init.allow_dirty |= options.allow_dirty;
            init::init(&init, &console).or_exit(ExitCode::Usage)
        }
        Some(Command::Merge(merge)) => merge::merge(merge, &options, &console),
        Some(Command::Clean(clean)) => {
            let mut clean = clean.clone();
            clean.manifest_path = clean.manifest_path.or(options.manifest_path.clone());
            clean.target_dir = clean.target_dir.or(options.target_dir.clone());
            clean.output = clean.output.or(options.output.clone());
            clean::clean(&clean, &console)
        }
        None => {
            // A trace of a deep recursion (a runaway one ends at the runtime's stack bound)
            // nests calls tens of thousands deep, and the techniques that walk the call tree
            // follow it: the stages run on a thread whose stack has room for that (address
            // space, not memory: pages are taken as used).
            std::thread::scope(|scope| {
                std::thread::Builder::new()
                    .name("pipeline".into())
                    .stack_size(PIPELINE_STACK)
                    .spawn_scoped(scope, || pipeline::run(&options, &console, &interrupts))
                    .expect("could not start the pipeline's thread")
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
        }
    };
    // A Ctrl-C also kills the cargo or test the run was waiting on: the interrupt, not
    // what it broke, says how the run ends.
    interrupts.wait_if_interrupted();
    let code = match result {
        Ok(code) => code,
        Err(failure) => {
            console.error(&format!("{:#}", failure.error));
            failure.code
        }
    };
    std::process::exit(code.code());
}
