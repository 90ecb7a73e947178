//! The session of one run, built once: the options under the configuration files, the
//! workspace (the user's, then the annotated scratch copy the build used), the output
//! directory, the scratch directory and the engine that runs the tests. Stages read it;
//! nothing of it lives in process-wide statics.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context as _;
use autodebug_runtime::protocol::{self, Plan};

use crate::console::Console;
use crate::engine::Engine;
use crate::engine::Recorder;
use crate::interrupt::Interrupts;
use crate::model::{ExitCode, Failure, OrExit};
use crate::options::Options;
use crate::output_dir::{OutputDir, display_path};
use crate::publish::diff::ChangedLines;
use crate::trace::UserColumns;
use crate::workspace::Workspace;
use crate::zero::Zero;
use crate::zero::coordinates::Shifts;
use crate::{build, config, repair};

/// One run's state.
pub struct Session {
    /// When the run began.
    pub start: Instant,
    /// The command line under the configuration files (see [`Session::options`] for the
    /// ones in force after the build).
    pub configured: Options,
    /// The user's workspace.
    pub user: Workspace,
    /// Zero-annotation mode's state and the annotated copy the build uses, if any.
    pub zero: Option<(Zero, Workspace)>,
    pub output: OutputDir,
    /// Until the run's report is written, an interrupt puts the previous run's output
    /// directory back.
    pub keep_previous_on_interrupt: Option<crate::interrupt::Restore>,
    /// Scratch files of the run (traces in progress, plans, result files): removed at the
    /// end, on Ctrl-C and on kill.
    pub scratch: tempfile::TempDir,
    _scratch_cleanup: crate::interrupt::Cleanup,
    /// `--in-diff`: the lines the diff changes.
    pub changed: Option<ChangedLines>,
    /// `--plan`: the plan every test runs under, and its environment.
    pub plan: Option<PathBuf>,
    pub base_env: Vec<(String, String)>,
    /// The tool's own directories inside the workspace: not copied, not the user's changes.
    pub own_dirs: Vec<PathBuf>,
    /// `--apply`: whether the tree could be written, as it was before anything ran.
    pub tree: Option<Result<(), String>>,
    /// Runs the test processes (made once the build says how the tests were built).
    pub engine: Engine,
    /// The user's columns of the build's files, when they differ (zero-annotation mode's
    /// attributes move them; known once the build says which attributes it kept).
    pub user_columns: Option<Shifts>,
}

impl Session {
    /// Finds the workspace, reads the configuration, creates the output and scratch
    /// directories and, in zero-annotation mode, the annotated copy.
    pub fn open(
        options: &Options,
        console: &Console,
        interrupts: &Interrupts,
    ) -> Result<Session, Failure> {
        let start = Instant::now();
        let user = Workspace::discover(options).or_exit(ExitCode::Usage)?;
        // The configuration files, under what the command line says.
        let (configured, config_files) =
            config::configure(options, &user).or_exit(ExitCode::Usage)?;
        for file in &config_files {
            console.detail(&format!("configuration: {}", display_path(file)));
        }
        let mut options = configured;
        if user.packages.iter().any(|p| p.runtime_by_version) {
            let runtime =
                crate::zero::manifest::RuntimeSource::find().or_exit(ExitCode::Software)?;
            options.cargo.config.extend(runtime.patch());
        }
        let changed = match &options.in_diff {
            Some(path) => Some(ChangedLines::read(path).or_exit(ExitCode::Usage)?),
            None => None,
        };
        let output = OutputDir::for_run(&user, &options).or_exit(ExitCode::Software)?;
        let keep_previous_on_interrupt = (output.previous())
            .map(|old| interrupts.restore(old.to_path_buf(), output.path().to_path_buf()));
        let scratch = tempfile::Builder::new()
            .prefix("autodebug-")
            .tempdir()
            .context("could not create a scratch directory")
            .or_exit(ExitCode::Software)?;
        // Removed on Ctrl-C or kill as well (kill -9 aside: the OS's temp cleaning).
        let _scratch_cleanup = interrupts.cleanup(scratch.path().to_path_buf());
        let libtest = options.libtest().or_exit(ExitCode::Usage)?;
        let engine = Engine::new(scratch.path().join("results"), false, interrupts.clone())
            .with_ignored_tests(libtest.include_ignored || libtest.ignored);
        let mut base_env: Vec<(String, String)> = Vec::new();
        let plan = match &options.plan {
            Some(plan_path) => {
                let plan_path = read_plan(plan_path).or_exit(ExitCode::Usage)?;
                base_env.push((protocol::ENV_PLAN.into(), plan_path.display().to_string()));
                Some(plan_path)
            }
            None => None,
        };
        let mut own_dirs = output.own_dirs().to_vec();
        let target = build::target_dir(&user, &options);
        // What `cargo autodebug clean` tells the tool's from a directory of the user's.
        crate::clean::mark_cache_dir(&target);
        own_dirs.push(target);
        let tree = options
            .apply
            .then(|| repair::apply::tree_state(&user.root, options.allow_dirty, &own_dirs));
        // Zero-annotation mode: everything from the build on happens in an annotated
        // scratch copy of the workspace; the user's tree is only read (and written by
        // `--apply`).
        let zero = Zero::prepare(&user, &options, &own_dirs, console, interrupts)
            .or_exit(ExitCode::Software)?;
        Ok(Session {
            start,
            configured: options,
            user,
            zero,
            output,
            keep_previous_on_interrupt,
            scratch,
            _scratch_cleanup,
            changed,
            plan,
            base_env,
            own_dirs,
            tree,
            engine,
            user_columns: None,
        })
    }

    /// The workspace the build used: the annotated copy in zero-annotation mode.
    pub fn workspace(&self) -> &Workspace {
        self.zero.as_ref().map_or(&self.user, |(_, copy)| copy)
    }

    /// The options in force after the build (zero-annotation mode's, which point cargo at
    /// the copy).
    pub fn options(&self) -> &Options {
        self.zero
            .as_ref()
            .map_or(&self.configured, |(zero, _)| &zero.options)
    }

    /// The rerun engine's recorder over this session's directories.
    pub fn recorder(&self) -> Recorder<'_> {
        let options = self.options();
        Recorder {
            engine: self.engine.clone(),
            workspace_root: &self.workspace().root,
            output_dir: self.output.path(),
            scratch: self.scratch.path(),
            base_env: &self.base_env,
            timeout: options.test_timeout(),
            max_events: options.max_events,
            jobs: options.jobs(),
            runs: Default::default(),
            user_columns: self.user_columns.as_ref().map(|s| s as &dyn UserColumns),
        }
    }
}

/// Checks the plan file parses, and returns its absolute path.
fn read_plan(path: &std::path::Path) -> anyhow::Result<PathBuf> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("could not read plan {}", path.display()))?;
    let plan: Plan = serde_json::from_str(&text)
        .with_context(|| format!("plan {} is not valid", path.display()))?;
    if plan.version != protocol::PLAN_VERSION {
        anyhow::bail!(
            "plan {} has version {}, this tool reads version {}",
            path.display(),
            plan.version,
            protocol::PLAN_VERSION
        );
    }
    std::path::absolute(path).context("bad plan path")
}
