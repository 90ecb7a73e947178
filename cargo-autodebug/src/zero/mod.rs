//! Zero-annotation mode: debugging a crate nobody annotated. The workspace is copied to a
//! scratch directory (the user's tree is only read), every function of the selected
//! packages' own code (and of the workspace members it depends on) gets
//! `#[::autodebug_runtime::autodebug]` there and their manifests the runtime dependency; the whole pipeline then builds and runs in the copy, and what it
//! reports is mapped back to the user's files (see [`coordinates`]). The copy is removed
//! when the run ends, however it ends short of `kill -9`.

pub mod annotation;
pub mod coordinates;

pub mod embedded;
pub mod manifest;
pub mod module_tree;

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use crate::build::{self, BuildOutcome};
use crate::console::Console;
use crate::copy_tree::ScratchCopy;
use crate::model::{Instrumentation, LeftOut, Report, SiteLeftOut};
use crate::options::{Annotate, Exclusions, Options};
use crate::workspace::{SelectedPackage, Workspace};
use annotation::Insertion;
use coordinates::Shifts;
use manifest::RuntimeSource;
use module_tree::ModuleTree;

/// How long to wait, when concurrent runs hold every shared scratch place, for the first to
/// be released before copying to a place of this run's own (a cold build).
const COPY_WAIT: Duration = Duration::from_secs(20);

/// Builds retried after leaving out the sites, then the items, the compiler rejected once
/// instrumented.
const BUILD_RETRIES: usize = 4;

/// One annotated file: the user's text and the attributes the copy has.
#[derive(Debug, Clone)]
struct Annotated {
    user_text: String,
    insertions: Vec<Insertion>,
}

/// A run in zero-annotation mode.
pub struct Zero {
    /// The options of the run in the copy (its manifest, its target dir).
    pub options: Options,
    user_root: PathBuf,
    /// Annotated files by path relative to the workspace root.
    files: RefCell<BTreeMap<String, Annotated>>,
    /// Functions and tests that got an attribute, and what the build left out.
    instrumentation: RefCell<Instrumentation>,
    copy: ScratchCopy,
    /// Declared after `copy`: the copy is removed before the interrupt handler forgets it.
    _cleanup: crate::interrupt::Cleanup,
}

impl Zero {
    /// Zero-annotation mode for this run, with the copy's workspace (where the build, the
    /// runs, localization and repair happen), or `None` with `--annotate never` or when
    /// nothing is instrumented. Packages whose author annotated them (they use the runtime)
    /// are copied too, for their tests: every plain `#[test]` of the selected packages gets
    /// the test attribute, so that one process runs a test under many plans. `skip` are the
    /// tool's own directories inside the workspace (not copied).
    pub fn prepare(
        workspace: &Workspace,
        options: &Options,
        skip: &[PathBuf],
        console: &Console,
        interrupts: &crate::interrupt::Interrupts,
    ) -> Result<Option<(Zero, Workspace)>> {
        if options.annotate == Annotate::Never {
            return Ok(None);
        }
        // The selected packages, and the workspace members their code calls into.
        let reached = workspace.member_dependencies();
        let exclude = &options.exclude;
        // Annotated files by path relative to the workspace root: the user's text and the
        // attributes the copy gets.
        let mut planned: BTreeMap<String, Annotated> = BTreeMap::new();
        let (functions, annotated_packages, unparsed) =
            plan_functions(workspace, &reached, exclude, console, &mut planned)?;
        // Nothing instrumented, nothing to run under plans: the tree builds as it is.
        if functions == 0 && !workspace.packages.iter().any(|p| p.uses_runtime) {
            return Ok(None);
        }
        let (tests, tested_packages) =
            plan_tests(workspace, &reached, exclude, console, &mut planned)?;
        if planned.is_empty() {
            return Ok(None);
        }
        let runtime = RuntimeSource::find()?;

        let start = Instant::now();
        let (copy, cleanup) = copy_annotated(workspace, options, skip, &planned, interrupts)?;
        let files = planned;
        add_runtime_dependency(
            workspace,
            &copy,
            &runtime,
            &annotated_packages,
            tested_packages,
        )?;
        console.status(
            "Copied",
            &format!(
                "the workspace to a scratch copy in {:.1}s ({})",
                start.elapsed().as_secs_f64(),
                copy.root.display()
            ),
        );
        announce_annotations(
            console,
            functions,
            &annotated_packages,
            &files,
            &runtime,
            tests,
        );

        let run = copy_options(workspace, options, &copy)?;
        let copy_workspace =
            Workspace::discover(&run).context("cargo does not read the scratch copy")?;
        let zero = Zero {
            options: run,
            user_root: workspace.root.clone(),
            files: RefCell::new(files),
            instrumentation: RefCell::new(Instrumentation {
                functions,
                instrumented: functions,
                left_out: unparsed,
                sites_left_out: Vec::new(),
                tests_wrapped: tests,
            }),
            copy,
            _cleanup: cleanup,
        };
        Ok(Some((zero, copy_workspace)))
    }

    /// The instrumented build in the copy (`workspace`, from [`Zero::prepare`]). Code the
    /// macro cannot instrument would fail to compile there. First, the site each error
    /// points into is left as written (the attribute's skip list), the rest of its function
    /// instrumented; an error that stays there after that leaves the whole item
    /// uninstrumented; the build is retried each time (a few times). Errors that stay where
    /// they were once the attribute is gone, or that are outside annotated items, are the
    /// crate's own: that build's failure is the outcome.
    pub fn build(
        &self,
        workspace: &Workspace,
        log_dir: &Path,
        console: &Console,
    ) -> Result<BuildOutcome> {
        let mut retries = 0;
        let mut dropped = Vec::new();
        let mut suspected = BTreeSet::new();
        // The error positions already given to a skip list.
        let mut given: BTreeSet<(String, u32, u32)> = BTreeSet::new();
        loop {
            let outcome = build::build(workspace, &self.options, log_dir, console)?;
            let BuildOutcome::Failed { errors, .. } = &outcome else {
                self.announce_fallbacks(&dropped, console);
                return Ok(outcome);
            };
            if retries == BUILD_RETRIES {
                return Ok(outcome);
            }
            // Each error's own position (its first location), with its first line.
            let positions: Vec<((String, u32, u32), &str)> = errors
                .iter()
                .filter_map(|e| {
                    let (file, line, column) = error_locations(e).into_iter().next()?;
                    let first = e.lines().next().unwrap_or_default();
                    Some(((self.relative(file), line, column), first))
                })
                .filter(|(at, _)| !given.contains(at))
                .collect();
            if self.skip_sites(&positions, &mut given)? {
                retries += 1;
                continue;
            }
            // Each location with the first line of its error (the reason an item is left out).
            let located: Vec<((String, u32), &str)> = errors
                .iter()
                .flat_map(|e| {
                    let first = e.lines().next().unwrap_or_default();
                    error_locations(e)
                        .into_iter()
                        .map(move |(file, line, _)| ((file, line), first))
                })
                .map(|((file, line), first)| ((self.relative(file), line), first))
                .collect();
            let locations: BTreeSet<(String, u32)> =
                located.iter().map(|(at, _)| at.clone()).collect();
            if !suspected.is_disjoint(&locations) {
                return Ok(outcome);
            }
            let blamed = self.blame(&locations);
            if blamed.is_empty() {
                return Ok(outcome);
            }
            retries += 1;
            suspected = locations;
            self.drop_items(blamed, &located, &mut dropped)?;
        }
    }

    /// Gives each error position inside an annotated item to that item's skip list (the
    /// innermost site holding it is left as written) and rewrites the files; `false` when
    /// no position could be given.
    fn skip_sites(
        &self,
        positions: &[((String, u32, u32), &str)],
        given: &mut BTreeSet<(String, u32, u32)>,
    ) -> Result<bool> {
        let mut files = self.files.borrow_mut();
        let mut instrumentation = self.instrumentation.borrow_mut();
        let mut changed: BTreeSet<String> = BTreeSet::new();
        for ((path, line, column), first) in positions {
            let Some(file) = files.get_mut(path) else {
                continue;
            };
            let Some(insertion) = file
                .insertions
                .iter_mut()
                .filter(|i| i.functions > 0 && i.lines.0 <= *line && *line <= i.lines.1)
                .min_by_key(|i| i.lines.1 - i.lines.0)
            else {
                continue;
            };
            // The same error twice (the library and its tests compile the same file).
            if !given.insert((path.clone(), *line, *column)) || !insertion.skip(&[(*line, *column)])
            {
                continue;
            }
            changed.insert(path.clone());
            instrumentation.sites_left_out.push(SiteLeftOut {
                file: path.clone(),
                line: *line,
                column: *column,
                item: insertion.item.clone(),
                reason: first.to_string(),
            });
        }
        for path in &changed {
            let file = &files[path];
            write_newer(
                &self.copy.root.join(path),
                &annotation::annotated(&file.user_text, &file.insertions),
            )?;
        }
        Ok(!changed.is_empty())
    }

    /// Leaves the blamed items (by file, their line ranges) uninstrumented and rewrites the
    /// files.
    fn drop_items(
        &self,
        blamed: BTreeMap<String, BTreeSet<(u32, u32)>>,
        located: &[((String, u32), &str)],
        dropped: &mut Vec<String>,
    ) -> Result<()> {
        let mut files = self.files.borrow_mut();
        let mut instrumentation = self.instrumentation.borrow_mut();
        for (path, lines) in blamed {
            let Some(file) = files.get_mut(&path) else {
                continue;
            };
            file.insertions.retain(|i| {
                let keep = !lines.contains(&i.lines);
                if !keep {
                    dropped.push(format!("{path}: {}", i.item));
                    let reason = located
                        .iter()
                        .find(|((file, line), _)| {
                            *file == path && i.lines.0 <= *line && *line <= i.lines.1
                        })
                        .map_or_else(String::new, |(_, first)| first.to_string());
                    instrumentation.instrumented -= i.functions;
                    instrumentation.left_out.push(LeftOut {
                        file: path.clone(),
                        item: i.item.clone(),
                        functions: i.functions,
                        reason,
                    });
                    // Its sites left out are now the whole item's.
                    instrumentation.sites_left_out.retain(|s| {
                        !(s.file == path && i.lines.0 <= s.line && s.line <= i.lines.1)
                    });
                }
                keep
            });
            write_newer(
                &self.copy.root.join(&path),
                &annotation::annotated(&file.user_text, &file.insertions),
            )?;
        }
        Ok(())
    }

    /// Says once what the build left uninstrumented: whole items, and single sites.
    fn announce_fallbacks(&self, dropped: &[String], console: &Console) {
        if !dropped.is_empty() {
            console.warn(&format!(
                "the instrumented build rejected {}; built {} uninstrumented",
                dropped.join(", "),
                if dropped.len() == 1 { "it" } else { "them" }
            ));
        }
        let instrumentation = self.instrumentation.borrow();
        let sites = &instrumentation.sites_left_out;
        if !sites.is_empty() {
            let listed: Vec<String> = sites
                .iter()
                .map(|s| {
                    format!(
                        "{}:{}:{} in {} ({})",
                        s.file, s.line, s.column, s.item, s.reason
                    )
                })
                .collect();
            console.warn(&format!(
                "the instrumented build rejected the instrumented code of {} site{}: {}; left {} \
                 as written, the rest of {} function instrumented",
                sites.len(),
                if sites.len() == 1 { "" } else { "s" },
                listed.join(", "),
                if sites.len() == 1 { "it" } else { "them" },
                if sites.len() == 1 { "its" } else { "their" },
            ));
        }
    }

    /// What the copy instrumented, after the build's fallbacks.
    pub fn instrumentation(&self) -> Instrumentation {
        self.instrumentation.borrow().clone()
    }

    /// A compiler's file name relative to the workspace root.
    fn relative(&self, file: String) -> String {
        match Path::new(&file).strip_prefix(&self.copy.root) {
            Ok(relative) => relative.display().to_string(),
            Err(_) => file,
        }
    }

    /// The annotated items (by file, their line ranges) that error locations point into.
    fn blame(&self, locations: &BTreeSet<(String, u32)>) -> BTreeMap<String, BTreeSet<(u32, u32)>> {
        let files = self.files.borrow();
        let mut blamed: BTreeMap<String, BTreeSet<(u32, u32)>> = BTreeMap::new();
        for (file, line) in locations {
            let Some(annotated) = files.get(file) else {
                continue;
            };
            // The innermost annotated item holding the line.
            if let Some(insertion) = annotated
                .insertions
                .iter()
                .filter(|i| i.lines.0 <= *line && *line <= i.lines.1)
                .min_by_key(|i| i.lines.1 - i.lines.0)
            {
                blamed
                    .entry(file.clone())
                    .or_default()
                    .insert(insertion.lines);
            }
        }
        blamed
    }

    /// The copy's coordinates of the annotated files, for mapping back.
    /// Where the copy's columns are in the user's files, when the inserted attributes move
    /// any (what is written to the output directory is mapped with it).
    pub fn user_columns(&self) -> Option<Shifts> {
        let shifts = self.shifts();
        shifts.moves_tokens().then_some(shifts)
    }

    /// The copy's attributes, file by file.
    fn shifts(&self) -> Shifts {
        Shifts::new(
            self.files
                .borrow()
                .iter()
                .map(|(path, file)| (path.clone(), file.insertions.clone()))
                .collect(),
        )
    }

    /// Whether the copy's tests carry the test attribute (they run batches).
    pub fn wraps_tests(&self) -> bool {
        let (tests, _) = self.attributes();
        tests > 0
    }

    /// Whether the copy only wraps tests (every package was annotated by its author): the
    /// tree itself would build instrumented as well.
    pub fn tests_only(&self) -> bool {
        let (tests, all) = self.attributes();
        tests == all
    }

    /// The attributes the copy holds now: those on tests, and all of them.
    fn attributes(&self) -> (usize, usize) {
        let files = self.files.borrow();
        let insertions = files.values().flat_map(|f| &f.insertions);
        let all = insertions.clone().count();
        (insertions.filter(|i| i.functions == 0).count(), all)
    }

    /// Puts the report in the user's coordinates: suspects, panic locations, fixes (their
    /// texts, spans, diff and fingerprints, so that `--apply` and `fix.patch` write the
    /// user's files) and the techniques' accounts. (The traces and the coverage are written
    /// in the user's columns: see [`Zero::user_columns`].) A fix that cannot be mapped is
    /// dropped with a note.
    pub fn to_user(&self, report: &mut Report) {
        let shifts = self.shifts();
        report.workspace_root = self.user_root.display().to_string();
        for suspect in &mut report.suspects {
            if shifts.touches(&suspect.file, suspect.line) {
                suspect.source_line =
                    Shifts::user_line(&self.user_root, &suspect.file, suspect.line)
                        .or(suspect.source_line.take());
            }
            suspect.column = shifts.user_column(&suspect.file, suspect.line, suspect.column);
            suspect.end_column =
                shifts.user_column(&suspect.file, suspect.end_line, suspect.end_column);
        }
        for failing in &mut report.failing_tests {
            if let Some(location) = &mut failing.location {
                location.column =
                    shifts.user_column(&location.file, location.line, location.column);
            }
        }
        let mut fixes = Vec::new();
        for mut fix in std::mem::take(&mut report.fixes) {
            match shifts.fix_to_user(&mut fix, &self.user_root) {
                Ok(()) => fixes.push(fix),
                Err(why) => report.notes.push(format!(
                    "zero-annotation: fix `{}` → `{}` dropped: {why}",
                    fix.original, fix.replacement
                )),
            }
        }
        for (rank, fix) in fixes.iter_mut().enumerate() {
            fix.rank = rank + 1;
        }
        report.fixes = fixes;
        // A shard's queue: a fix that cannot be shown is left out when the parts are
        // merged, as here.
        for item in report.shard.iter_mut().flat_map(|part| &mut part.items) {
            if let Some(fix) = &mut item.fix
                && let Err(why) = shifts.fix_to_user(fix, &self.user_root)
            {
                item.dropped = Some(format!(
                    "zero-annotation: fix `{}` → `{}` dropped: {why}",
                    fix.original, fix.replacement
                ));
            }
        }
        for account in report.localization.values_mut() {
            shifts.map_json(account);
        }
    }
}

/// Plans the attribute on every function of the packages to instrument (the selected ones
/// and the members they reach, short of those using the runtime): the functions counted,
/// the packages annotated (none when there is no function to instrument) and the items left
/// as they are because they do not parse.
fn plan_functions<'w>(
    workspace: &'w Workspace,
    reached: &'w [SelectedPackage],
    exclude: &Exclusions,
    console: &Console,
    planned: &mut BTreeMap<String, Annotated>,
) -> Result<(usize, Vec<&'w SelectedPackage>, Vec<LeftOut>)> {
    let mut roots = Vec::new();
    let mut roots_2015 = Vec::new();
    let mut annotated_packages = Vec::new();
    for package in workspace
        .packages
        .iter()
        .chain(reached)
        .filter(|p| !p.uses_runtime)
    {
        if package.proc_macro {
            console.warn(&format!(
                "{}: a procedural-macro crate runs inside the compiler; not instrumented",
                package.name
            ));
        } else {
            let into = if package.edition_2015 {
                &mut roots_2015
            } else {
                &mut roots
            };
            into.extend(package.code_roots.iter().cloned());
            annotated_packages.push(package);
        }
    }
    let mut functions = 0;
    let mut unparsed = Vec::new();
    if !annotated_packages.is_empty() {
        let mut tree = ModuleTree::walk(&roots, &workspace.root);
        if !roots_2015.is_empty() {
            let mut tree_2015 = ModuleTree::walk(&roots_2015, &workspace.root);
            tree_2015.for_edition_2015();
            tree.merge(tree_2015);
        }
        // What the configuration excludes is not instrumented.
        for file in &mut tree.files {
            let path = relative_path(&file.path, &workspace.root).unwrap_or_default();
            (file.plan.insertions)
                .retain(|i| !exclude.excludes_path(&path) && !exclude.excludes_function(&i.item));
        }
        for unreadable in &tree.unreadable {
            console.warn(&format!("not instrumented: {unreadable}"));
        }
        for file in &tree.files {
            let path = relative_path(&file.path, &workspace.root).unwrap_or_default();
            for item in &file.plan.unparsed {
                let (line, column) = item.start;
                console.warn(&format!(
                    "not instrumented: {path}:{line}:{column}: `{}` does not parse ({}); the \
                     rest of the file is",
                    item.what, item.reason
                ));
                unparsed.push(LeftOut {
                    file: path.clone(),
                    item: item.what.clone(),
                    functions: 0,
                    reason: format!("does not parse: {}", item.reason),
                });
            }
        }
        for file in &tree.files {
            for skipped in &file.plan.skipped {
                console.detail(&format!("not instrumented: {skipped}"));
            }
        }
        functions = tree
            .files
            .iter()
            .flat_map(|f| &f.plan.insertions)
            .map(|i| i.functions)
            .sum();
        if functions == 0 {
            let names: Vec<&str> = annotated_packages.iter().map(|p| p.name.as_str()).collect();
            console.warn(&format!(
                "{}: no function to instrument; building the tree as it is",
                names.join(", ")
            ));
            annotated_packages.clear();
        } else {
            add_insertions(planned, tree, &workspace.root)?;
        }
    }
    Ok((functions, annotated_packages, unparsed))
}

/// Plans the test attribute on the selected packages' plain tests, unless code they run
/// keeps state from one run to the next: the tests wrapped and the packages they are in.
fn plan_tests<'w>(
    workspace: &'w Workspace,
    reached: &[SelectedPackage],
    exclude: &Exclusions,
    console: &Console,
    planned: &mut BTreeMap<String, Annotated>,
) -> Result<(usize, Vec<&'w SelectedPackage>)> {
    // The selected packages' plain tests get the test attribute: one process can then
    // run a test under many plans (switching, repair) instead of one process per plan.
    let mut trees: Vec<(&SelectedPackage, ModuleTree)> = Vec::new();
    for package in workspace.packages.iter().filter(|p| !p.proc_macro) {
        let mut tree =
            ModuleTree::walk_with(&package.test_roots, &workspace.root, annotation::plan_tests);
        if package.edition_2015 {
            tree.for_edition_2015();
        }
        for file in &mut tree.files {
            let path = relative_path(&file.path, &workspace.root).unwrap_or_default();
            if exclude.excludes_path(&path) {
                file.plan.insertions.clear();
            }
        }
        trees.push((package, tree));
    }
    // A run of a batch would see what the earlier runs of its process left in statics:
    // code that keeps such state (the tests' packages, and the members they call into)
    // keeps one process per plan.
    let reached_trees: Vec<ModuleTree> = reached
        .iter()
        .map(|p| ModuleTree::walk_with(&p.code_roots, &workspace.root, annotation::plan_tests))
        .collect();
    let state = trees
        .iter()
        .map(|(_, tree)| tree)
        .chain(&reached_trees)
        .flat_map(|tree| &tree.files)
        .find_map(|f| Some((&f.path, f.plan.keeps_state.as_ref()?)));
    let mut tested_packages = Vec::new();
    let mut tests = 0;
    match state {
        Some((file, what)) => console.detail(&format!(
            "tests run one process per plan: {what} of {} keeps state from one run to the next",
            relative_path(file, &workspace.root).unwrap_or_default()
        )),
        None => {
            for (package, tree) in trees {
                let found: usize = tree.files.iter().map(|f| f.plan.insertions.len()).sum();
                if found > 0 {
                    tests += found;
                    tested_packages.push(package);
                    add_insertions(planned, tree, &workspace.root)?;
                }
            }
        }
    }
    Ok((tests, tested_packages))
}

/// Copies the workspace to its scratch place and writes the annotated files there: the copy,
/// and its removal should the run be interrupted.
fn copy_annotated(
    workspace: &Workspace,
    options: &Options,
    skip: &[PathBuf],
    planned: &BTreeMap<String, Annotated>,
    interrupts: &crate::interrupt::Interrupts,
) -> Result<(ScratchCopy, crate::interrupt::Cleanup)> {
    // One of a few places shared by the workspaces that build into this target dir: the
    // one this workspace had last, so that the copy's builds are incremental, and whose
    // dependencies are built already for another.
    let places = build::target_dir(workspace, options).join("zero");
    crate::copy_tree::remove_abandoned_places(&places);
    let copy = ScratchCopy::create_in_slots(&workspace.root, &places, skip, COPY_WAIT)
        .context("could not copy the workspace to a scratch directory")?;
    let cleanup = interrupts.cleanup(copy.root.clone());
    for (relative, file) in planned {
        let target = copy.root.join(relative);
        std::fs::write(
            &target,
            annotation::annotated(&file.user_text, &file.insertions),
        )
        .with_context(|| format!("could not write {}", target.display()))?;
    }
    Ok((copy, cleanup))
}

/// Adds the runtime dependency to the copy's manifests of the annotated packages and of the
/// packages whose tests are wrapped.
fn add_runtime_dependency(
    workspace: &Workspace,
    copy: &ScratchCopy,
    runtime: &RuntimeSource,
    annotated_packages: &[&SelectedPackage],
    tested_packages: Vec<&SelectedPackage>,
) -> Result<()> {
    let dependency = runtime.dependency();
    let mut needing: Vec<&SelectedPackage> = annotated_packages.to_vec();
    for package in tested_packages {
        if !package.uses_runtime && !needing.iter().any(|p| p.name == package.name) {
            needing.push(package);
        }
    }
    for package in &needing {
        let relative = relative_path(&package.manifest_path, &workspace.root)
            .context("a package manifest outside the workspace")?;
        let manifest = copy.root.join(relative);
        let text = std::fs::read_to_string(&manifest)
            .with_context(|| format!("could not read {}", manifest.display()))?;
        std::fs::write(&manifest, manifest::with_dependency(&text, &dependency))
            .with_context(|| format!("could not write {}", manifest.display()))?;
    }
    Ok(())
}

/// Tells how many functions were annotated, in which files and packages, and how many tests
/// were wrapped.
fn announce_annotations(
    console: &Console,
    functions: usize,
    annotated_packages: &[&SelectedPackage],
    files: &BTreeMap<String, Annotated>,
    runtime: &RuntimeSource,
    tests: usize,
) {
    if functions > 0 {
        let names: Vec<&str> = annotated_packages.iter().map(|p| p.name.as_str()).collect();
        let annotated_files = files
            .values()
            .filter(|f| f.insertions.iter().any(|i| i.functions > 0))
            .count();
        console.status(
            "Annotating",
            &format!(
                "{functions} function{} in {annotated_files} file{} of {} (zero-annotation mode; runtime from {})",
                plural(functions),
                plural(annotated_files),
                names.join(", "),
                runtime.describe()
            ),
        );
    }
    if tests > 0 {
        console.detail(&format!(
            "{tests} test{} wrapped so that one process runs a test under many plans",
            plural(tests)
        ));
    }
}

/// The options of the run in the copy: its manifest, the selected packages by name, and
/// where it builds.
fn copy_options(workspace: &Workspace, options: &Options, copy: &ScratchCopy) -> Result<Options> {
    let mut run = options.clone();
    let manifest = match &options.manifest_path {
        Some(path) => {
            let absolute = std::path::absolute(path).context("bad --manifest-path")?;
            copy.root.join(
                relative_path(&absolute, &workspace.root)
                    .context("the manifest is outside the workspace")?,
            )
        }
        None => copy.root.join("Cargo.toml"),
    };
    run.manifest_path = Some(manifest);
    run.packages = workspace.packages.iter().map(|p| p.name.clone()).collect();
    // The copy builds in its place's own target dir. Cargo names a workspace crate's units
    // by its path relative to the workspace root, so copies of two checkouts of a crate
    // (or two runs' places) building into one target dir would share units: one copy's
    // build would overwrite the other's test binaries, and as the copies live inside the
    // target dir, cargo would check one copy's freshness by the other copy's files. The
    // runtime's units come from the unit cache, so a place's first build compiles little.
    run.target_dir = Some(copy.target_dir.clone());
    Ok(run)
}

/// Adds the planned insertions of `tree`'s files to `planned` (a file planned twice, for
/// its functions and for its tests, gets both, in text order).
fn add_insertions(
    planned: &mut BTreeMap<String, Annotated>,
    tree: ModuleTree,
    root: &Path,
) -> Result<()> {
    for file in tree.files {
        if file.plan.insertions.is_empty() {
            continue;
        }
        let relative =
            relative_path(&file.path, root).context("a crate file outside the workspace")?;
        let entry = planned.entry(relative).or_insert_with(|| Annotated {
            user_text: file.text,
            insertions: Vec::new(),
        });
        entry.insertions.extend(file.plan.insertions);
        entry.insertions.sort_by_key(|i| i.offset);
    }
    Ok(())
}

/// `(file, line)` of each ` --> file:line:column` in a rendered compiler message.
fn error_locations(rendered: &str) -> Vec<(String, u32, u32)> {
    rendered
        .lines()
        .filter_map(|line| {
            let at = line.trim_start().strip_prefix("--> ")?;
            let mut parts = at.rsplitn(3, ':');
            let column = parts.next()?.parse().ok()?;
            let line = parts.next()?.parse().ok()?;
            Some((parts.next()?.to_string(), line, column))
        })
        .collect()
}

/// `path` relative to `root`, `/`-separated (the report's convention).
fn relative_path(path: &Path, root: &Path) -> Option<String> {
    let relative = path.strip_prefix(root).ok().or_else(|| {
        let canonical = root.canonicalize().ok()?;
        path.strip_prefix(canonical).ok()
    })?;
    Some(relative.display().to_string())
}

/// Writes `text` to `path` with a modification time later than the file had (cargo judges
/// freshness by timestamps; a rewrite within the same clock tick must still be seen).
fn write_newer(path: &Path, text: &str) -> Result<()> {
    let before = std::fs::metadata(path).and_then(|m| m.modified()).ok();
    std::fs::write(path, text).with_context(|| format!("could not write {}", path.display()))?;
    if let Some(before) = before {
        let file = std::fs::File::options().write(true).open(path)?;
        let now = std::time::SystemTime::now().max(before + Duration::from_secs(1));
        file.set_modified(now)?;
    }
    Ok(())
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compiler_locations_are_read_from_rendered_errors() {
        let rendered = "error[E0308]: mismatched types\n  --> src/lib.rs:12:5\n   |\n12 |     x\n   |     ^ expected `i32`\n\nnote: see\n --> /abs/path/src/a.rs:3:1\n";
        assert_eq!(
            error_locations(rendered),
            [
                ("src/lib.rs".to_string(), 12, 5),
                ("/abs/path/src/a.rs".to_string(), 3, 1)
            ]
        );
    }
}
