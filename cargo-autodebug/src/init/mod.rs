//! `cargo autodebug init`: sets a crate up for contracts, so that it builds in any clone
//! of its repository with nothing installed. It adds `autodebug-runtime` to the crate's
//! `[dependencies]` by version, as any dependency (editing the manifest's text, so its
//! formatting and comments stay), writes a copy of the runtime's crates into the
//! repository (`third_party/autodebug` by default, with their licences; `--git URL` takes
//! them from a repository by tag instead), and adds to the workspace's
//! `.cargo/config.toml` a `[patch.crates-io]` entry that resolves the dependency to that
//! copy by a path relative to the workspace: nothing of this machine or this build is
//! written. A workspace's root manifest gets the copy in its `exclude` (its crates are
//! packages of their own). It writes an example contract, commented out, above one of the
//! crate's functions: nothing changes what the code does until its author uncomments and
//! completes it. It refuses a tree with uncommitted changes (as `cargo fix` does) unless
//! `--allow-dirty`; a second run finds the crate set up and says so, and a run by a newer
//! tool brings the copy and the entry (an older tool's path of its machine) up to date.

mod remove;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context, Result, bail};
use cargo_metadata::{MetadataCommand, Package, TargetKind};
use syn::spanned::Spanned;

use crate::console::Console;
use crate::model::ExitCode;
use crate::options::InitOptions;
use crate::zero::embedded;
use crate::zero::manifest;

/// The first words of the example contract's comment: how a second run recognizes it.
pub(crate) const MARKER: &str = "cargo autodebug: an example contract";

/// Where a crate set up by `init` takes the runtime from, for everyone who builds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Provided {
    /// A copy of the runtime's crates in the repository, at this `/`-separated path
    /// relative to the workspace root.
    Vendored(String),
    /// A git repository, at a tag.
    Git { url: String, tag: String },
}

impl Provided {
    /// The runtime as `init` is asked to provide it.
    pub fn of(options: &InitOptions) -> Result<Provided> {
        if let Some(url) = &options.git {
            let tag =
                (options.tag.clone()).unwrap_or_else(|| format!("v{}", env!("CARGO_PKG_VERSION")));
            return Ok(Provided::Git {
                url: url.clone(),
                tag,
            });
        }
        let dir = &options.vendor_dir;
        let parts: Vec<String> = dir
            .components()
            .map(|c| match c {
                std::path::Component::Normal(part) => part
                    .to_str()
                    .map(str::to_string)
                    .context("--vendor-dir is not UTF-8"),
                _ => bail!(
                    "--vendor-dir `{}` must be a relative path inside the workspace",
                    dir.display()
                ),
            })
            .collect::<Result<_>>()?;
        if parts.is_empty() {
            bail!("--vendor-dir must name a directory");
        }
        Ok(Provided::Vendored(parts.join("/")))
    }

    /// The `[dependencies]` line: by version for a copy (the configuration resolves it),
    /// by repository and tag for `--git` (a `[patch]` entry of the configuration would
    /// clash with the runtime `cargo autodebug` passes to cargo as a path).
    pub fn dependency(&self) -> String {
        match self {
            Provided::Vendored(_) => {
                format!("autodebug-runtime = \"{}\"", env!("CARGO_PKG_VERSION"))
            }
            Provided::Git { url, tag } => {
                let mut entry = toml_edit::InlineTable::new();
                entry.insert("git", url.as_str().into());
                entry.insert("tag", tag.as_str().into());
                format!("autodebug-runtime = {entry}")
            }
        }
    }
}

/// What `init` is to do to one crate.
#[derive(Debug, PartialEq, Eq)]
pub struct Plan {
    /// The manifest's new text, when the dependency is missing (or the copy is not in the
    /// `exclude` of a workspace this manifest is the root of).
    pub manifest: Option<String>,
    /// The workspace's root manifest's new text, when it is another file and its
    /// `exclude` lacks the copy.
    pub workspace_manifest: Option<String>,
    /// Whether a manifest gains the copy in its workspace's `exclude`.
    pub excludes: bool,
    /// The cargo configuration's new text, when the dependency is by version and the
    /// configuration does not patch it to the runtime as provided.
    pub config: Option<String>,
    /// The source file, its new text and the function the contract is about.
    pub contract: Option<(PathBuf, String, String, u32)>,
    /// Why no example contract is written (nothing to do, or no function fits).
    pub no_contract: Option<String>,
}

/// The package `init` works on and the files it reads and writes.
struct Found {
    package: Package,
    workspace_root: PathBuf,
    /// The package's manifest and directory.
    manifest: PathBuf,
    dir: PathBuf,
    /// The workspace's root manifest (the package's own in a workspace of one).
    root_manifest: PathBuf,
    /// The workspace's cargo configuration (which may not exist).
    config: PathBuf,
    /// The package's root source file.
    source: PathBuf,
}

impl Found {
    /// The package the options name (see [`find_package`]) and its files.
    fn of(options: &InitOptions) -> Result<Found> {
        let (package, workspace_root) = find_package(options)?;
        let manifest = package.manifest_path.clone().into_std_path_buf();
        let dir = manifest
            .parent()
            .context("the manifest has no directory")?
            .to_path_buf();
        Ok(Found {
            source: root_source(&package)?,
            root_manifest: workspace_root.join("Cargo.toml"),
            config: config_file(&workspace_root),
            package,
            workspace_root,
            manifest,
            dir,
        })
    }

    /// The workspace's root manifest's text, when it is another file than the package's.
    fn other_root_manifest(&self) -> Result<Option<String>> {
        (self.root_manifest != self.manifest && self.root_manifest.is_file())
            .then(|| read(&self.root_manifest))
            .transpose()
    }

    /// The cargo configuration's text (empty when there is none).
    fn config_text(&self) -> Result<String> {
        match std::fs::read_to_string(&self.config) {
            Ok(text) => Ok(text),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
            Err(e) => Err(e).with_context(|| format!("could not read {}", self.config.display())),
        }
    }
}

/// A file's text.
fn read(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).with_context(|| format!("could not read {}", path.display()))
}

/// Runs `cargo autodebug init`.
pub fn init(options: &InitOptions, console: &Console) -> Result<ExitCode> {
    if options.remove {
        return remove(options, console);
    }
    let found = Found::of(options)?;
    let Found {
        package,
        workspace_root,
        manifest: manifest_path,
        dir: root,
        root_manifest: root_manifest_path,
        config: config_path,
        source: source_file,
    } = &found;
    let (manifest_text, source_text) = (read(manifest_path)?, read(source_file)?);
    let config_text = found.config_text()?;
    let root_manifest = found.other_root_manifest()?;
    let provided = Provided::of(options)?;
    let table = if options.dev {
        "dev-dependencies"
    } else {
        "dependencies"
    };
    let plan = plan(
        &manifest_text,
        (&provided.dependency(), table),
        (&config_text, &provided),
        root_manifest.as_deref(),
        source_file,
        &source_text,
    )?;
    let vendor_dir = match &provided {
        Provided::Vendored(dir) => Some((dir, workspace_root.join(dir))),
        Provided::Git { .. } => None,
    };
    let stale_copy = match &vendor_dir {
        Some((_, dir)) => embedded::vendor(dir, false)?,
        None => false,
    };
    if plan.manifest.is_none()
        && plan.workspace_manifest.is_none()
        && plan.config.is_none()
        && plan.contract.is_none()
        && !stale_copy
    {
        console.status(
            "Fresh",
            &format!(
                "{} is already set up: autodebug-runtime is a dependency{}",
                package.name,
                match &plan.no_contract {
                    Some(why) => format!(" ({why})"),
                    None => String::new(),
                }
            ),
        );
        return Ok(ExitCode::Clean);
    }
    if !options.allow_dirty {
        check_clean(root)?;
    }
    let places = Places {
        workspace_root,
        manifest: manifest_path,
        root_manifest: root_manifest_path,
        config: config_path,
        copy: vendor_dir
            .as_ref()
            .map(|(dir, path)| (dir.as_str(), path.as_path(), stale_copy)),
    };
    write(&plan, &places, table, console)?;
    console.status(
        "Ready",
        "when a test fails, run `cargo autodebug` (no annotation is needed to start)",
    );
    Ok(ExitCode::Clean)
}

/// Where `init` writes.
struct Places<'a> {
    workspace_root: &'a Path,
    manifest: &'a Path,
    /// The workspace's root manifest (the crate's own in a workspace of one).
    root_manifest: &'a Path,
    config: &'a Path,
    /// The copy of the runtime: its directory relative to the workspace root, its path,
    /// and whether it is to be written (missing or another tool's).
    copy: Option<(&'a str, &'a Path, bool)>,
}

/// Writes what `plan` says, saying what it does.
fn write(plan: &Plan, places: &Places, table: &str, console: &Console) -> Result<()> {
    let shown = |path: &Path| {
        path.strip_prefix(places.workspace_root)
            .unwrap_or(path)
            .display()
            .to_string()
    };
    if let Some(text) = &plan.manifest {
        std::fs::write(places.manifest, text)
            .with_context(|| format!("could not write {}", places.manifest.display()))?;
        console.status(
            "Adding",
            &format!(
                "autodebug-runtime {} to [{table}] in {}",
                env!("CARGO_PKG_VERSION"),
                shown(places.manifest)
            ),
        );
    }
    if let Some((dir, path, stale)) = places.copy {
        if stale {
            embedded::vendor(path, true)?;
            console.status(
                "Vendoring",
                &format!(
                    "the runtime's crates {} (autodebug-runtime, -macros, -syntax; MIT OR \
                     Apache-2.0) into {dir}: commit it, and every clone builds with nothing \
                     installed",
                    env!("CARGO_PKG_VERSION")
                ),
            );
        }
        if plan.excludes {
            if let Some(text) = &plan.workspace_manifest {
                std::fs::write(places.root_manifest, text).with_context(|| {
                    format!("could not write {}", places.root_manifest.display())
                })?;
            }
            console.status(
                "Excluding",
                &format!(
                    "{dir} from the workspace in {} (its crates are packages of their own)",
                    shown(places.root_manifest)
                ),
            );
        }
    }
    if let Some(text) = &plan.config {
        if let Some(dir) = places.config.parent() {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("could not create {}", dir.display()))?;
        }
        std::fs::write(places.config, text)
            .with_context(|| format!("could not write {}", places.config.display()))?;
        console.status(
            "Patching",
            &format!(
                "autodebug-runtime to the copy in {} in {}",
                places.copy.map_or("", |(dir, _, _)| dir),
                shown(places.config)
            ),
        );
    }
    match &plan.contract {
        Some((path, text, function, line)) => {
            std::fs::write(path, text)
                .with_context(|| format!("could not write {}", path.display()))?;
            console.status(
                "Writing",
                &format!(
                    "an example contract, commented out, above `fn {function}` ({}:{line}): \
                     uncomment and complete it to check it at every call",
                    shown(path)
                ),
            );
        }
        None => {
            if let Some(why) = &plan.no_contract {
                console.status("Skipping", &format!("the example contract: {why}"));
            }
        }
    }
    Ok(())
}

/// Runs `cargo autodebug init --remove`.
fn remove(options: &InitOptions, console: &Console) -> Result<ExitCode> {
    let found = Found::of(options)?;
    let Found {
        package,
        workspace_root,
        manifest: manifest_path,
        dir: root,
        root_manifest: root_manifest_path,
        config: config_path,
        source: source_path,
    } = &found;
    let manifest = read(manifest_path)?;
    let root_manifest = found.other_root_manifest()?;
    let config = found.config_text()?;
    let source = read(source_path)?;
    // Every Rust file of the package's targets' directories.
    let mut sources = Vec::new();
    for target in &package.targets {
        let Some(dir) = target.src_path.parent() else {
            continue;
        };
        for entry in walkdir::WalkDir::new(dir)
            .into_iter()
            .filter_map(Result::ok)
        {
            let path = entry.path();
            if entry.file_type().is_file()
                && path.extension().is_some_and(|e| e == "rs")
                && !sources.iter().any(|(p, _): &(PathBuf, String)| p == path)
            {
                sources.push((path.to_path_buf(), read(path)?));
            }
        }
    }
    let removal = remove::plan(&remove::Crate {
        manifest: &manifest,
        workspace_manifest: root_manifest.as_deref(),
        config: &config,
        source: &source,
        sources: &sources,
    })?;
    if removal == remove::Removal::default() {
        console.status(
            "Fresh",
            &format!(
                "{}: nothing of `cargo autodebug init` to remove",
                package.name
            ),
        );
        return Ok(ExitCode::Clean);
    }
    if !options.allow_dirty {
        check_clean(root)?;
    }
    remove::write(
        &removal,
        (
            manifest_path,
            Some(root_manifest_path.as_path()),
            config_path,
            source_path,
        ),
        workspace_root,
        console,
    )?;
    Ok(ExitCode::Clean)
}

/// The package's root source file: its library's, else its first binary's.
fn root_source(package: &Package) -> Result<PathBuf> {
    package
        .targets
        .iter()
        .find(|t| t.kind.contains(&TargetKind::Lib))
        .or_else(|| {
            package
                .targets
                .iter()
                .find(|t| t.kind.contains(&TargetKind::Bin))
        })
        .map(|t| t.src_path.clone().into_std_path_buf())
        .context("the package has neither a library nor a binary target")
}

/// The workspace's cargo configuration file: `.cargo/config.toml`, or the older
/// `.cargo/config` where only that one is there.
fn config_file(workspace_root: &Path) -> PathBuf {
    let dir = workspace_root.join(".cargo");
    if !dir.join("config.toml").exists() && dir.join("config").is_file() {
        dir.join("config")
    } else {
        dir.join("config.toml")
    }
}

/// What to change in a crate whose manifest and root source file are these, in a
/// workspace whose cargo configuration is `config` (its text, empty when there is none),
/// for the runtime as `provided`; `workspace_manifest` is the workspace's root manifest
/// when it is another file than the crate's.
pub fn plan(
    manifest_text: &str,
    (dependency, table): (&str, &str),
    (config, provided): (&str, &Provided),
    workspace_manifest: Option<&str>,
    source_file: &Path,
    source_text: &str,
) -> Result<Plan> {
    let document: toml::Table = manifest_text
        .parse()
        .context("could not parse the manifest")?;
    let declared = ["dependencies", "dev-dependencies"]
        .iter()
        .find_map(|table| {
            let deps = document.get(*table).and_then(toml::Value::as_table)?;
            deps.get("autodebug-runtime")
                .or_else(|| deps.get("autodebug-macros"))
        });
    let mut manifest = if declared.is_some() {
        None
    } else {
        let text = manifest::with_dependency_in(manifest_text, table, dependency);
        text.parse::<toml::Table>()
            .context("the manifest would not parse with the dependency added")?;
        Some(text)
    };
    // A dependency by path (a checkout of this project) needs no patch.
    let by_path = declared
        .and_then(toml::Value::as_table)
        .is_some_and(|t| t.contains_key("path") || t.contains_key("git"));
    let config = match provided {
        Provided::Vendored(dir) if !by_path => config_with_patch(config, dir)?,
        _ => None,
    };
    // The copy's crates are packages of their own, not members of the user's workspace.
    let mut workspace = None;
    let mut excludes = false;
    if let (Provided::Vendored(dir), false) = (provided, by_path) {
        match workspace_manifest {
            Some(root) => {
                workspace = with_exclude(root, dir)?;
                excludes = workspace.is_some();
            }
            None => {
                let text = manifest.as_deref().unwrap_or(manifest_text);
                if let Some(excluded) = with_exclude(text, dir)? {
                    manifest = Some(excluded);
                    excludes = true;
                }
            }
        }
    }
    let (contract, no_contract) = if source_text.contains(MARKER) {
        (None, Some("it has the example contract".to_string()))
    } else if uses_contracts(source_text) {
        (None, Some("it has contracts".to_string()))
    } else {
        match example_contract(source_text, table == "dev-dependencies")? {
            Some((text, function, line)) => (
                Some((source_file.to_path_buf(), text, function, line)),
                None,
            ),
            None => (
                None,
                Some(format!(
                    "no function with arguments and a result in {}",
                    source_file
                        .file_name()
                        .unwrap_or_default()
                        .to_string_lossy()
                )),
            ),
        }
    };
    Ok(Plan {
        manifest,
        workspace_manifest: workspace,
        excludes,
        config,
        contract,
        no_contract,
    })
}

/// `manifest` (a manifest's text) with `dir` in its `[workspace]`'s `exclude`, or `None`
/// when it has no `[workspace]` or excludes `dir` already. The rest of the text stays.
fn with_exclude(manifest: &str, dir: &str) -> Result<Option<String>> {
    let mut document: toml_edit::DocumentMut =
        manifest.parse().context("could not parse the manifest")?;
    let Some(workspace) = document
        .get_mut("workspace")
        .and_then(toml_edit::Item::as_table_like_mut)
    else {
        return Ok(None);
    };
    let exclude = workspace
        .entry("exclude")
        .or_insert_with(|| toml_edit::value(toml_edit::Array::new()))
        .as_array_mut()
        .context("`workspace.exclude` in the manifest is not an array")?;
    if exclude.iter().any(|e| e.as_str() == Some(dir)) {
        return Ok(None);
    }
    exclude.push(dir);
    Ok(Some(document.to_string()))
}

/// `config` (a cargo configuration's text) with `[patch.crates-io]` resolving
/// `autodebug-runtime` to the copy in `dir` (relative to the workspace root), or `None`
/// when it does already (an entry another tool wrote, such as an older one's path of its
/// machine, is replaced). The rest of the text stays as written.
fn config_with_patch(config: &str, dir: &str) -> Result<Option<String>> {
    let mut document: toml_edit::DocumentMut = config
        .parse()
        .context("could not parse .cargo/config.toml")?;
    let path = format!("{dir}/autodebug-runtime");
    let patched = document
        .get("patch")
        .and_then(|p| p.get("crates-io"))
        .and_then(|c| c.get("autodebug-runtime"))
        .and_then(|r| r.as_table_like());
    let same = patched.is_some_and(|table| {
        table.len() == 1 && table.get("path").and_then(|p| p.as_str()) == Some(path.as_str())
    });
    if same {
        return Ok(None);
    }
    let mut wanted = toml_edit::InlineTable::new();
    wanted.insert("path", path.into());
    let patch = document
        .entry("patch")
        .or_insert_with(|| {
            let mut table = toml_edit::Table::new();
            table.set_implicit(true);
            toml_edit::Item::Table(table)
        })
        .as_table_mut()
        .context("`patch` in .cargo/config.toml is not a table")?;
    let crates_io = patch
        .entry("crates-io")
        .or_insert_with(toml_edit::table)
        .as_table_like_mut()
        .context("`patch.crates-io` in .cargo/config.toml is not a table")?;
    crates_io.insert(
        "autodebug-runtime",
        toml_edit::Item::Value(toml_edit::Value::InlineTable(wanted)),
    );
    Ok(Some(document.to_string()))
}

/// The source uses the runtime's attributes already.
fn uses_contracts(source: &str) -> bool {
    [
        "#[requires",
        "#[ensures",
        "#[autodebug",
        "autodebug_runtime::",
    ]
    .iter()
    .any(|p| source.contains(p))
}

/// `source` with the example contract above its first public function that takes arguments
/// and returns a value (else its first such function), the function's name and line; for a
/// crate whose tests alone have the runtime (`dev`), under `cfg_attr(test, ..)`.
fn example_contract(source: &str, dev: bool) -> Result<Option<(String, String, u32)>> {
    let file = syn::parse_file(source).context("could not parse the crate's root file")?;
    let candidates: Vec<&syn::ItemFn> = file
        .items
        .iter()
        .filter_map(|item| match item {
            syn::Item::Fn(f) => Some(f),
            _ => None,
        })
        .filter(|f| {
            !f.sig.inputs.is_empty()
                && matches!(f.sig.output, syn::ReturnType::Type(..))
                && f.sig.constness.is_none()
                && f.sig.asyncness.is_none()
                && !f.attrs.iter().any(|a| a.path().is_ident("test"))
        })
        .collect();
    let Some(function) = candidates
        .iter()
        .find(|f| matches!(f.vis, syn::Visibility::Public(_)))
        .or(candidates.first())
    else {
        return Ok(None);
    };
    let line = function.span().start().line;
    let name = function.sig.ident.to_string();
    let arguments: Vec<String> = function
        .sig
        .inputs
        .iter()
        .filter_map(|input| match input {
            syn::FnArg::Typed(typed) => match &*typed.pat {
                syn::Pat::Ident(ident) => Some(ident.ident.to_string()),
                _ => None,
            },
            syn::FnArg::Receiver(_) => Some("self".to_string()),
        })
        .collect();
    let arguments = arguments.join(", ");
    let attribute = |contract: String| match dev {
        true => format!("// #[cfg_attr(test, autodebug_runtime::{contract})]\n"),
        false => format!("// #[autodebug_runtime::{contract}]\n"),
    };
    let comment = format!(
        "// {MARKER}. Uncomment it and replace the `true`s by what `{name}`\n\
         // needs and promises: it is then checked at every call, and `cargo autodebug` uses it to\n\
         // tell where a failing test went wrong. `ret` is the returned value; `->` reads \"implies\".\n\
         {}{}",
        attribute(format!(
            "requires(true, \"what callers pass: a condition on {arguments}\")"
        )),
        attribute(format!(
            "ensures(true, \"what `{name}` returns: a condition on ret, {arguments}\")"
        )),
    );
    let mut out = String::with_capacity(source.len() + comment.len());
    for (i, text) in source.split_inclusive('\n').enumerate() {
        if i + 1 == line {
            out.push_str(&comment);
        }
        out.push_str(text);
    }
    Ok(Some((out, name, line as u32)))
}

/// The package `init` sets up: `-p`, else the one whose directory holds the current
/// directory (or the manifest given), else the only one.
fn find_package(options: &InitOptions) -> Result<(Package, PathBuf)> {
    let mut command = MetadataCommand::new();
    command.no_deps();
    if let Some(path) = &options.manifest_path {
        if !path.exists() {
            bail!("manifest `{}` does not exist", path.display());
        }
        command.manifest_path(path);
    }
    let metadata = command.exec().map_err(|e| match e {
        cargo_metadata::Error::CargoMetadata { stderr } => {
            anyhow::anyhow!("`cargo metadata` failed:\n{}", stderr.trim_end())
        }
        other => anyhow::Error::new(other).context("could not run `cargo metadata`"),
    })?;
    let root = metadata.workspace_root.clone().into_std_path_buf();
    let members = metadata.workspace_packages();
    if let Some(name) = &options.package {
        return members
            .into_iter()
            .find(|p| p.name.as_str() == name)
            .map(|p| (p.clone(), root))
            .with_context(|| format!("package `{name}` is not a member of the workspace"));
    }
    let here = match &options.manifest_path {
        Some(path) => std::path::absolute(path)?
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default(),
        None => std::env::current_dir()?,
    };
    let containing = members
        .iter()
        .filter(|p| {
            p.manifest_path
                .parent()
                .is_some_and(|dir| here.starts_with(dir.as_std_path()))
        })
        .max_by_key(|p| p.manifest_path.as_str().len());
    match (containing, members.as_slice()) {
        (Some(package), _) => Ok(((*package).clone(), root)),
        (None, [only]) => Ok(((*only).clone(), root)),
        (None, _) => bail!(
            "the workspace has several packages: choose one with -p ({})",
            members
                .iter()
                .map(|p| p.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// Refuses a crate outside git, or with changes git would list.
fn check_clean(root: &Path) -> Result<()> {
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .current_dir(root)
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .output()
    };
    let inside = git(&["rev-parse", "--is-inside-work-tree"]);
    if !inside.is_ok_and(|o| o.status.success()) {
        bail!(
            "{} is not in a git work tree: nothing could undo `init`\nhint: commit the crate to \
             git first, or pass --allow-dirty",
            root.display()
        );
    }
    let status = git(&["status", "--porcelain", "--untracked-files=all", "--", "."])
        .context("could not run git")?;
    let changes = String::from_utf8_lossy(&status.stdout);
    if !changes.trim().is_empty() {
        bail!(
            "the crate has uncommitted changes:\n{}\nhint: commit them first, or pass --allow-dirty",
            changes.trim_end()
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const MANIFEST: &str = "[package]\nname = \"calc\" # the crate\nversion = \"0.1.0\"\n\n[dependencies]\nrand = \"0.8\"\n";
    const SOURCE: &str = "//! Calc.\n\nfn helper() {}\n\n/// Adds.\npub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n";
    const DEPENDENCY: &str = "autodebug-runtime = \"0.1.0\"";

    /// The plan for [`MANIFEST`] and [`SOURCE`] in a workspace without a configuration.
    fn sample_plan() -> Plan {
        vendored_plan(MANIFEST, "dependencies", SOURCE).unwrap()
    }

    fn vendored() -> Provided {
        Provided::Vendored("third_party/autodebug".into())
    }

    /// The plan for `manifest` and `source` (`src/lib.rs`) with the runtime copied into the
    /// repository, the dependency in `table`, in a workspace without a configuration.
    fn vendored_plan(manifest: &str, table: &str, source: &str) -> Result<Plan> {
        plan(
            manifest,
            (DEPENDENCY, table),
            ("", &vendored()),
            None,
            Path::new("src/lib.rs"),
            source,
        )
    }

    #[test]
    fn the_configuration_resolves_the_runtime_to_the_copy_and_keeps_its_text() {
        let patch = "[patch.crates-io]\nautodebug-runtime = { path = \"third_party/autodebug/autodebug-runtime\" }\n";
        let dir = "third_party/autodebug";
        assert_eq!(config_with_patch("", dir).unwrap().as_deref(), Some(patch));
        let existing = "# Build settings.\n[build]\njobs = 2 # two cores\n\n[patch.crates-io]\nrand = { path = \"../rand\" }\n";
        let out = config_with_patch(existing, dir).unwrap().unwrap();
        assert!(out.starts_with(existing), "{out}");
        assert!(
            out.ends_with(
                "autodebug-runtime = { path = \"third_party/autodebug/autodebug-runtime\" }\n"
            ),
            "{out}"
        );
        assert_eq!(config_with_patch(&out, dir).unwrap(), None);
        // An older tool's entry (the path of its machine's extracted runtime) is replaced.
        let older = "[patch.crates-io]\nautodebug-runtime = { path = \"/home/me/.cache/cargo-autodebug/runtime/0.1.0-ab/autodebug-runtime\" }\n";
        assert_eq!(
            config_with_patch(older, dir).unwrap().as_deref(),
            Some(patch)
        );
        // From a repository at a tag instead: in the manifest, no patch.
        let git = Provided::Git {
            url: "https://example.org/autodebug.git".into(),
            tag: "v0.1.0".into(),
        };
        let by_git = plan(
            MANIFEST,
            (&git.dependency(), "dependencies"),
            (existing, &git),
            None,
            Path::new("src/lib.rs"),
            SOURCE,
        )
        .unwrap();
        assert_eq!(by_git.config, None);
        let manifest = by_git.manifest.unwrap();
        assert!(
            manifest.contains("[dependencies]\nautodebug-runtime = { git = \"https://example.org/autodebug.git\", tag = \"v0.1.0\" }\n"),
            "{manifest}"
        );
        // A dependency by path needs no patch.
        let by_path =
            "[package]\nname = \"a\"\n[dependencies]\nautodebug-runtime = { path = \"../rt\" }\n";
        let plan = vendored_plan(by_path, "dependencies", SOURCE);
        assert_eq!(plan.unwrap().config, None);
    }

    #[test]
    fn a_workspace_excludes_the_copy_where_its_root_manifest_is() {
        // The crate's own manifest is the root of its workspace.
        let own = format!("{MANIFEST}\n[workspace]\nresolver = \"2\"\n");
        let single = vendored_plan(&own, "dependencies", SOURCE).unwrap();
        assert!(single.excludes);
        assert_eq!(single.workspace_manifest, None);
        let manifest = single.manifest.unwrap();
        assert!(
            manifest.ends_with(
                "[workspace]\nresolver = \"2\"\nexclude = [\"third_party/autodebug\"]\n"
            ),
            "{manifest}"
        );
        // A member of a workspace: the root manifest, another file, gets it (once).
        let root =
            "# The workspace.\n[workspace]\nmembers = [\"calc\"]\nexclude = [\"old\"] # kept\n";
        let member = plan(
            MANIFEST,
            (DEPENDENCY, "dependencies"),
            ("", &vendored()),
            Some(root),
            Path::new("calc/src/lib.rs"),
            SOURCE,
        )
        .unwrap();
        let new_root = member.workspace_manifest.unwrap();
        assert_eq!(
            new_root,
            "# The workspace.\n[workspace]\nmembers = [\"calc\"]\nexclude = [\"old\", \"third_party/autodebug\"] # kept\n"
        );
        assert!(
            with_exclude(&new_root, "third_party/autodebug")
                .unwrap()
                .is_none()
        );
        // No workspace table, no exclude; a copy from git is no directory to exclude.
        assert!(!sample_plan().excludes);
        let git = Provided::Git {
            url: "u".into(),
            tag: "t".into(),
        };
        let by_git = plan(
            &own,
            (DEPENDENCY, "dependencies"),
            ("", &git),
            None,
            Path::new("src/lib.rs"),
            SOURCE,
        );
        assert!(!by_git.unwrap().excludes);
    }

    #[test]
    fn the_copys_directory_is_a_relative_path_inside_the_workspace() {
        let options = |args: &[&str]| -> InitOptions {
            #[derive(clap::Parser)]
            struct Command {
                #[command(flatten)]
                init: InitOptions,
            }
            let mut all = vec!["init"];
            all.extend_from_slice(args);
            <Command as clap::Parser>::try_parse_from(all).unwrap().init
        };
        assert_eq!(Provided::of(&options(&[])).unwrap(), vendored());
        assert_eq!(Provided::of(&options(&["--vendor"])).unwrap(), vendored());
        assert_eq!(
            Provided::of(&options(&["--vendor-dir", "deps/rt/"])).unwrap(),
            Provided::Vendored("deps/rt".into())
        );
        for bad in ["/abs", "../out", "."] {
            let error = Provided::of(&options(&["--vendor-dir", bad])).unwrap_err();
            assert!(error.to_string().contains("--vendor-dir"), "{bad}: {error}");
        }
        assert_eq!(
            Provided::of(&options(&["--git", "https://h/r.git"])).unwrap(),
            Provided::Git {
                url: "https://h/r.git".into(),
                tag: format!("v{}", env!("CARGO_PKG_VERSION"))
            }
        );
    }

    #[test]
    fn adds_the_dependency_and_a_commented_contract() {
        let plan = sample_plan();
        assert_eq!(
            plan.manifest.as_deref(),
            Some(
                "[package]\nname = \"calc\" # the crate\nversion = \"0.1.0\"\n\n[dependencies]\nautodebug-runtime = \"0.1.0\"\nrand = \"0.8\"\n"
            )
        );
        let (path, text, function, line) = plan.contract.unwrap();
        assert_eq!(
            (path.as_path(), function.as_str(), line),
            (Path::new("src/lib.rs"), "add", 5)
        );
        // Only comment lines are added, before the function's doc comment.
        let added: Vec<&str> = text
            .lines()
            .filter(|l| !SOURCE.lines().any(|s| s == *l))
            .collect();
        assert_eq!(added.len(), 5);
        assert!(added.iter().all(|l| l.starts_with("// ")), "{added:?}");
        assert!(text.contains("arguments\"") || text.contains("a condition on a, b"));
        assert!(text.ends_with("/// Adds.\npub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n"));
        syn::parse_file(&text).unwrap();
    }

    #[test]
    fn contracts_for_the_tests_alone_take_the_runtime_as_a_dev_dependency() {
        let plan = vendored_plan(MANIFEST, "dev-dependencies", SOURCE).unwrap();
        assert_eq!(
            plan.manifest.as_deref(),
            Some(format!("{MANIFEST}\n[dev-dependencies]\n{DEPENDENCY}\n").as_str())
        );
        let (_, text, _, _) = plan.contract.unwrap();
        assert!(
            text.contains("// #[cfg_attr(test, autodebug_runtime::requires(true, \"what callers pass: a condition on a, b\"))]\n"),
            "{text}"
        );
        // Set up so, the crate is set up.
        let again = vendored_plan(
            &format!("{MANIFEST}\n[dev-dependencies]\n{DEPENDENCY}\n"),
            "dependencies",
            &text,
        )
        .unwrap();
        assert_eq!(again.manifest, None);
        assert_eq!(
            remove::without_dependency(&format!("{MANIFEST}\n[dev-dependencies]\n{DEPENDENCY}\n"))
                .unwrap()
                .as_deref(),
            Some(format!("{MANIFEST}\n[dev-dependencies]\n").as_str())
        );
    }

    #[test]
    fn a_second_run_has_nothing_to_do() {
        let first = sample_plan();
        let manifest = first.manifest.unwrap();
        let config = first.config.unwrap();
        let (_, source, _, _) = first.contract.unwrap();
        let second = plan(
            &manifest,
            (DEPENDENCY, "dependencies"),
            (&config, &vendored()),
            None,
            Path::new("src/lib.rs"),
            &source,
        )
        .unwrap();
        assert_eq!(second.manifest, None);
        assert_eq!(second.config, None);
        assert_eq!(second.contract, None);
        assert_eq!(
            second.no_contract.as_deref(),
            Some("it has the example contract")
        );
    }

    #[test]
    fn no_function_fits() {
        let plan = vendored_plan(MANIFEST, "dependencies", "fn main() {}\n").unwrap();
        assert!(plan.manifest.is_some());
        assert_eq!(plan.contract, None);
        assert!(plan.no_contract.unwrap().starts_with("no function"));
    }
}
