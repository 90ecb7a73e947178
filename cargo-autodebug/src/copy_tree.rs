//! Scratch copies of the workspace (zero-annotation mode's annotated copy, the copy candidate
//! patches are built in): the whole workspace root (so relative path dependencies between
//! its crates keep working), without build outputs, VCS metadata or the tool's own output;
//! manifests whose relative `path`s lead out of the workspace get those paths made absolute.
//! The user's tree is only read.

use std::os::unix::ffi::OsStringExt;
use std::path::{Component, Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

/// Directory names never copied: build outputs and version-control metadata.
const SKIPPED_DIRS: [&str; 8] = [
    "target", ".git", ".hg", ".svn", ".jj", ".pijul", "_darcs", ".bzr",
];

/// A scratch copy with the target dir its builds go to; the copy is removed when dropped.
#[derive(Debug)]
pub struct ScratchCopy {
    /// Root of the copy: the copied workspace root.
    pub root: PathBuf,
    /// Where its builds go.
    pub target_dir: PathBuf,
    /// A directory of this copy alone (a copy made while another run held the shared
    /// place), removed with its target dir.
    own: Option<PathBuf>,
    /// The open lock file: the lock is held while it is open.
    _lock: Option<std::fs::File>,
}

impl Drop for ScratchCopy {
    fn drop(&mut self) {
        match &self.own {
            Some(own) => std::fs::remove_dir_all(own).ok(),
            None => std::fs::remove_dir_all(&self.root).ok(),
        };
    }
}

impl ScratchCopy {
    /// Copies `workspace_root` to `<dir>/workspace`, builds going to `<dir>/target`: paths
    /// that stay the same from run to run, so that rebuilds are incremental. One run at a
    /// time holds them (an exclusive lock on `<dir>/workspace.lock`, released by the
    /// system when the run ends however it ends): cargo names a workspace crate's
    /// artifacts by its path relative to the workspace root, so two copies building into
    /// one target dir at once would take each other's artifacts for their own. A run that
    /// waits longer than `wait` gets a copy and a target dir of its own (a cold build).
    /// `skip` are more directories not to copy (the tool's output and target dirs when
    /// inside the workspace).
    pub fn create(
        workspace_root: &Path,
        dir: &Path,
        skip: &[PathBuf],
        wait: Duration,
    ) -> Result<ScratchCopy> {
        match hold(dir, wait)? {
            Some(lock) => Self::fill(workspace_root, dir, lock, skip),
            None => Self::own(workspace_root, dir, skip),
        }
    }

    /// As [`ScratchCopy::create`], in the first free one of [`SLOTS`] places under
    /// `places`: the one this workspace had last (its builds there are incremental), else
    /// the others in order. Runs of other workspaces (or a second run of this one) take the
    /// next free place rather than waiting, and every place keeps the dependencies it
    /// built for whichever workspace comes next. When all are held, a run waits up to `wait`
    /// for the first, then builds cold in a place of its own.
    pub fn create_in_slots(
        workspace_root: &Path,
        places: &Path,
        skip: &[PathBuf],
        wait: Duration,
    ) -> Result<ScratchCopy> {
        let mut order: Vec<PathBuf> = (0..SLOTS)
            .map(|i| places.join(format!("{SLOT_PREFIX}{i}")))
            .collect();
        if let Some(last) = order
            .iter()
            .position(|dir| copy_of(dir).as_deref() == Some(workspace_root))
        {
            let dir = order.remove(last);
            order.insert(0, dir);
        }
        for dir in &order {
            if let Some(lock) = hold(dir, Duration::ZERO)? {
                return Self::fill(workspace_root, dir, lock, skip);
            }
        }
        Self::create(workspace_root, &order[0], skip, wait)
    }

    /// The place at `dir`, whose lock this run holds, with a fresh copy of `workspace_root`.
    fn fill(
        workspace_root: &Path,
        dir: &Path,
        lock: std::fs::File,
        skip: &[PathBuf],
    ) -> Result<ScratchCopy> {
        std::fs::write(
            dir.join(ROOT_FILE),
            workspace_root.as_os_str().as_encoded_bytes(),
        )
        .with_context(|| format!("could not write {}", dir.join(ROOT_FILE).display()))?;
        ScratchCopy {
            root: dir.join("workspace"),
            target_dir: dir.join("target"),
            own: None,
            _lock: Some(lock),
        }
        .copied_from(workspace_root, skip)
    }

    /// A copy and target dir of this run's own, inside the place at `dir` that another run
    /// holds.
    fn own(workspace_root: &Path, dir: &Path, skip: &[PathBuf]) -> Result<ScratchCopy> {
        let own = tempfile::Builder::new()
            .prefix("own-")
            .tempdir_in(dir)
            .context("could not create a scratch directory")?
            .keep();
        ScratchCopy {
            root: own.join("workspace"),
            target_dir: own.join("target"),
            own: Some(own),
            _lock: None,
        }
        .copied_from(workspace_root, skip)
    }

    /// Replaces the copy's tree with one of `workspace_root`.
    fn copied_from(mut self, workspace_root: &Path, skip: &[PathBuf]) -> Result<ScratchCopy> {
        if self.root.exists() {
            std::fs::remove_dir_all(&self.root)
                .with_context(|| format!("could not clear {}", self.root.display()))?;
        }
        copy_tree(workspace_root, &self.root, skip)?;
        // Cargo reports paths under the canonical root; compare with that.
        if let Ok(canonical) = self.root.canonicalize() {
            self.root = canonical;
        }
        rewrite_manifests(workspace_root, &self.root)?;
        Ok(self)
    }
}

/// How many places [`ScratchCopy::create_in_slots`] shares out.
pub const SLOTS: usize = 4;

/// The name of those places but their number.
const SLOT_PREFIX: &str = "slot-";

/// Creates the place `dir` and takes its lock, waiting up to `wait`; the open lock file, or
/// none when another run holds it.
fn hold(dir: &Path, wait: Duration) -> Result<Option<std::fs::File>> {
    std::fs::create_dir_all(dir).with_context(|| format!("could not create {}", dir.display()))?;
    let lock_path = dir.join("workspace.lock");
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .with_context(|| format!("could not open {}", lock_path.display()))?;
    Ok(lock_within(&lock, wait).then_some(lock))
}

/// The workspace the place at `dir` was last a copy of.
fn copy_of(dir: &Path) -> Option<PathBuf> {
    std::fs::read(dir.join(ROOT_FILE))
        .ok()
        .map(|root| PathBuf::from(std::ffi::OsString::from_vec(root)))
}

/// The file of a place naming the workspace it is a copy of.
const ROOT_FILE: &str = "root";

/// Removes the places under `places` (directories made by [`ScratchCopy::create`]) whose
/// workspace no longer exists and that no run holds: their copies and target dirs are of
/// no more use (a checkout deleted, a test's temporary crate). Places written before
/// places named their workspace are removed the same way. The shared places of
/// [`ScratchCopy::create_in_slots`] stay: they serve whichever workspace comes next. Best
/// effort: a place that cannot be removed stays.
pub fn remove_abandoned_places(places: &Path) {
    let Ok(entries) = std::fs::read_dir(places) else {
        return;
    };
    for entry in entries.flatten() {
        let place = entry.path();
        if !place.join("workspace.lock").is_file() {
            continue;
        }
        // A shared place serves whichever workspace comes next; one of a workspace alone
        // (the layout of earlier releases) goes with its workspace.
        let shared = entry
            .file_name()
            .to_string_lossy()
            .strip_prefix(SLOT_PREFIX)
            .is_some_and(|n| n.parse::<usize>().is_ok());
        if shared || copy_of(&place).is_some_and(|root| root.is_dir()) {
            continue;
        }
        let Ok(lock) = std::fs::OpenOptions::new()
            .write(true)
            .open(place.join("workspace.lock"))
        else {
            continue;
        };
        if lock.try_lock().is_ok() {
            let _ = std::fs::remove_dir_all(&place);
        }
    }
}

/// Takes the exclusive lock on `file` (`flock(2)`, released by the system when the
/// process ends however it ends), waiting up to `wait`; whether it got it.
fn lock_within(file: &std::fs::File, wait: Duration) -> bool {
    let deadline = Instant::now() + wait;
    loop {
        if file.try_lock().is_ok() {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Copies the tree at `from` to `to`, skipping [`SKIPPED_DIRS`], `autodebug.out*` and the
/// directories in `skip`. Symbolic links are recreated as links.
pub fn copy_tree(from: &Path, to: &Path, skip: &[PathBuf]) -> Result<()> {
    let walk = walkdir::WalkDir::new(from)
        .into_iter()
        .filter_entry(|entry| {
            if entry.depth() == 0 {
                return true;
            }
            let name = entry.file_name().to_string_lossy();
            let is_dir = entry.file_type().is_dir();
            !(is_dir
                && (SKIPPED_DIRS.contains(&name.as_ref())
                    || name.starts_with("autodebug.out")
                    || skip.iter().any(|s| s == entry.path())))
        });
    for entry in walk {
        let entry = entry.with_context(|| format!("could not read {}", from.display()))?;
        let relative = entry
            .path()
            .strip_prefix(from)
            .expect("walk stays under its root");
        let target = to.join(relative);
        let kind = entry.file_type();
        if kind.is_dir() {
            std::fs::create_dir_all(&target)
                .with_context(|| format!("could not create {}", target.display()))?;
        } else if kind.is_symlink() {
            let link = std::fs::read_link(entry.path())
                .with_context(|| format!("could not read {}", entry.path().display()))?;
            std::os::unix::fs::symlink(&link, &target)
                .with_context(|| format!("could not create {}", target.display()))?;
        } else {
            std::fs::copy(entry.path(), &target).with_context(|| {
                format!(
                    "could not copy {} to {}",
                    entry.path().display(),
                    target.display()
                )
            })?;
        }
    }
    Ok(())
}

/// Rewrites every copied `Cargo.toml` whose relative `path`s lead out of the workspace.
fn rewrite_manifests(workspace_root: &Path, copy_root: &Path) -> Result<()> {
    for entry in walkdir::WalkDir::new(copy_root) {
        let entry = entry.with_context(|| format!("could not read {}", copy_root.display()))?;
        if entry.file_name() != "Cargo.toml" || !entry.file_type().is_file() {
            continue;
        }
        let relative = entry
            .path()
            .strip_prefix(copy_root)
            .expect("under the copy");
        let original_dir = workspace_root.join(relative.parent().unwrap_or(Path::new("")));
        let text = std::fs::read_to_string(entry.path())
            .with_context(|| format!("could not read {}", entry.path().display()))?;
        if let Some(rewritten) = absolute_outside_paths(&text, &original_dir, workspace_root) {
            std::fs::write(entry.path(), rewritten)
                .with_context(|| format!("could not write {}", entry.path().display()))?;
        }
    }
    Ok(())
}

/// `manifest` (the text of a `Cargo.toml` in `manifest_dir`) with each relative `path =
/// "…"` value that leads out of `workspace_root` replaced by the absolute path, or `None`
/// when none does. Only the string values change: keys, comments and layout stay.
pub fn absolute_outside_paths(
    manifest: &str,
    manifest_dir: &Path,
    workspace_root: &Path,
) -> Option<String> {
    let mut out = String::with_capacity(manifest.len());
    let mut changed = false;
    let mut rest = manifest;
    while let Some((before, value, after)) = next_path_value(rest) {
        out.push_str(before);
        let path = Path::new(value);
        let resolved = normalize(&manifest_dir.join(path));
        if path.is_relative() && !resolved.starts_with(normalize(workspace_root)) {
            out.push_str(&serde_json::to_string(&resolved.display().to_string()).ok()?);
            changed = true;
        } else {
            out.push_str(&rest[before.len()..before.len() + value.len() + 2]);
        }
        rest = after;
    }
    out.push_str(rest);
    changed.then_some(out)
}

/// The next `path = "value"` (or `'value'`) in `text`: the text before the quoted value,
/// the value and the text after the closing quote. `path` must be a
/// whole key (`path`, `x.path`); values with escapes are left alone.
fn next_path_value(text: &str) -> Option<(&str, &str, &str)> {
    let mut from = 0;
    while let Some(found) = text[from..].find("path") {
        let at = from + found;
        from = at + 4;
        let before_ok = text[..at]
            .chars()
            .next_back()
            .is_none_or(|c| c.is_whitespace() || c == '{' || c == ',' || c == '.');
        let after = &text[at + 4..];
        let trimmed = after.trim_start_matches([' ', '\t']);
        if !before_ok || !trimmed.starts_with('=') {
            continue;
        }
        let value_part = trimmed[1..].trim_start_matches([' ', '\t']);
        let quote = match value_part.chars().next() {
            Some(q @ ('"' | '\'')) => q,
            _ => continue,
        };
        let body = &value_part[1..];
        let Some(end) = body.find(quote) else {
            continue;
        };
        let value = &body[..end];
        if value.contains('\\') || value.contains('\n') {
            continue;
        }
        let value_start = text.len() - value_part.len();
        return Some((&text[..value_start], value, &text[value_start + end + 2..]));
    }
    None
}

/// `path` with `.` and `..` components resolved lexically (the paths need not exist).
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outside_paths_become_absolute_and_inside_ones_stay() {
        let manifest = "[package]\nname = \"a\"\n\n\
[dependencies]\n\
inside = { path = \"../b\" }\n\
outside = { path = \"../../../runtime\", features = [\"harness\"] }\n\
lit = {path='../../../lit'}\n\
\n\
[dependencies.dotted]\n\
path = \"../../../../dotted\"\n\
\n\
[[test]]\n\
name = \"e2e\"\n\
path = \"../tests/e2e.rs\"\n\
classpath = \"../../not-a-path-key\"\n";
        let out = absolute_outside_paths(manifest, Path::new("/w/ws/crates/a"), Path::new("/w/ws"))
            .unwrap();
        assert!(out.contains("inside = { path = \"../b\" }"));
        assert!(out.contains("outside = { path = \"/w/runtime\", features = [\"harness\"] }"));
        assert!(out.contains("lit = {path=\"/w/lit\"}"));
        assert!(out.contains("path = \"/dotted\""));
        assert!(out.contains("path = \"../tests/e2e.rs\""));
        assert!(out.contains("classpath = \"../../not-a-path-key\""));
        assert_eq!(out.lines().count(), manifest.lines().count());
        assert_eq!(
            absolute_outside_paths(
                "[dependencies]\nb = { path = \"b\" }\n",
                Path::new("/w"),
                Path::new("/w")
            ),
            None
        );
    }

    #[test]
    fn copy_skips_outputs_and_vcs_and_keeps_links() {
        let from = tempfile::tempdir().unwrap();
        let to = tempfile::tempdir().unwrap();
        let write = |path: &str, text: &str| {
            let path = from.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        write("Cargo.toml", "[package]\n");
        write("src/lib.rs", "pub fn f() {}\n");
        write("target/debug/big", "x");
        write("sub/target/debug/big", "x");
        write(".git/HEAD", "ref");
        write("autodebug.out/report.json", "{}");
        write("out-of-tree/x", "x");
        std::os::unix::fs::symlink("src/lib.rs", from.path().join("link.rs")).unwrap();
        let dest = to.path().join("copy");
        copy_tree(from.path(), &dest, &[from.path().join("out-of-tree")]).unwrap();
        assert_eq!(
            std::fs::read_to_string(dest.join("src/lib.rs")).unwrap(),
            "pub fn f() {}\n"
        );
        for gone in [
            "target",
            "sub/target",
            ".git",
            "autodebug.out",
            "out-of-tree",
        ] {
            assert!(!dest.join(gone).exists(), "{gone} was copied");
        }
        assert_eq!(
            std::fs::read_link(dest.join("link.rs")).unwrap(),
            Path::new("src/lib.rs")
        );
    }

    #[test]
    fn a_held_lock_gets_a_copy_and_target_of_its_own() {
        let ws = tempfile::tempdir().unwrap();
        std::fs::write(ws.path().join("Cargo.toml"), "[package]\n").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let first = ScratchCopy::create(ws.path(), dir.path(), &[], Duration::ZERO).unwrap();
        assert_eq!(
            first.root,
            dir.path().join("workspace").canonicalize().unwrap()
        );
        assert_eq!(first.target_dir, dir.path().join("target"));
        // The first holds the lock (flock is per open file, so this holds in one process).
        let second = ScratchCopy::create(ws.path(), dir.path(), &[], Duration::ZERO).unwrap();
        assert_ne!(second.root, first.root);
        assert_ne!(second.target_dir, first.target_dir);
        assert!(second.root.join("Cargo.toml").exists());
        let own = second.own.clone().unwrap();
        drop(second);
        assert!(!own.exists());
        // Released with the first: the next run gets the shared place again.
        let first_root = first.root.clone();
        drop(first);
        assert!(!first_root.exists());
        let third =
            ScratchCopy::create(ws.path(), dir.path(), &[], Duration::from_secs(1)).unwrap();
        assert_eq!(third.target_dir, dir.path().join("target"));
    }

    #[test]
    fn shared_places_go_to_the_workspace_that_had_them_then_to_the_next_free() {
        let places = tempfile::tempdir().unwrap();
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        for ws in [&a, &b] {
            std::fs::write(ws.path().join("Cargo.toml"), "[package]\n").unwrap();
        }
        let take = |ws: &tempfile::TempDir| {
            ScratchCopy::create_in_slots(ws.path(), places.path(), &[], Duration::ZERO).unwrap()
        };
        let slot = |i: usize| places.path().join(format!("{SLOT_PREFIX}{i}/target"));
        // A place just released may stay held for a moment: a process forked by a test
        // beside this one (a solver worker, a command before its `exec`) holds a copy of
        // the lock's descriptor until it closes it. So a run is taken again until it gets
        // the place expected, for up to two seconds.
        let take_where = |ws: &tempfile::TempDir, expected: &dyn Fn(&ScratchCopy) -> bool| {
            for _ in 0..100 {
                let copy = take(ws);
                if expected(&copy) {
                    return copy;
                }
                drop(copy);
                std::thread::sleep(Duration::from_millis(20));
            }
            panic!("{} never got the place expected", ws.path().display());
        };
        let take_at = |ws, i: usize| take_where(ws, &|c: &ScratchCopy| c.target_dir == slot(i));
        // One at a time, both share the first place (and its dependencies).
        drop(take_at(&a, 0));
        let first_b = take_at(&b, 0);
        // While b holds it, a takes the next free place rather than waiting (taken again
        // while a forked process of a test beside this one still holds that place).
        let then_a = take_at(&a, 1);
        assert!(then_a.root.join("Cargo.toml").exists());
        drop((first_b, then_a));
        // Each comes back to the place it had last.
        drop(take_at(&a, 1));
        drop(take_at(&b, 0));
        // Every place held: a place of its own.
        let held: Vec<ScratchCopy> = (0..SLOTS)
            .map(|_| take_where(&a, &|c: &ScratchCopy| c.own.is_none()))
            .collect();
        let extra = take(&b);
        assert!(extra.own.is_some());
        // The shared places stay when their workspaces are gone.
        drop((held, extra, a, b));
        remove_abandoned_places(places.path());
        assert!(slot(0).parent().unwrap().is_dir());
    }

    #[test]
    fn places_of_workspaces_gone_are_removed_unless_held() {
        let places = tempfile::tempdir().unwrap();
        let kept_ws = tempfile::tempdir().unwrap();
        let gone_ws = tempfile::tempdir().unwrap();
        let held_ws = tempfile::tempdir().unwrap();
        for ws in [&kept_ws, &gone_ws, &held_ws] {
            std::fs::write(ws.path().join("Cargo.toml"), "[package]\n").unwrap();
        }
        let place = |name: &str| places.path().join(name);
        let kept = ScratchCopy::create(kept_ws.path(), &place("kept"), &[], Duration::ZERO);
        drop(kept.unwrap());
        drop(ScratchCopy::create(gone_ws.path(), &place("gone"), &[], Duration::ZERO).unwrap());
        let held = ScratchCopy::create(held_ws.path(), &place("held"), &[], Duration::ZERO);
        let held = held.unwrap();
        for name in ["kept", "gone", "held"] {
            std::fs::create_dir_all(place(name).join("target/debug")).unwrap();
        }
        // A place of an earlier release (no `root` file) and a directory that is no place.
        std::fs::create_dir_all(place("older/target")).unwrap();
        std::fs::write(place("older/workspace.lock"), "").unwrap();
        std::fs::create_dir_all(place("other")).unwrap();
        drop(gone_ws);
        drop(held_ws);

        remove_abandoned_places(places.path());
        assert!(
            place("kept/target/debug").is_dir(),
            "its workspace is there"
        );
        assert!(!place("gone").exists(), "its workspace is gone");
        assert!(place("held/target/debug").is_dir(), "a run holds it");
        assert!(!place("older").exists());
        assert!(place("other").is_dir(), "not a place");
        drop(held);
        // A solver worker forked by a test beside this one holds a copy of the lock's
        // descriptor until it closes it, a moment after it starts.
        for _ in 0..100 {
            remove_abandoned_places(places.path());
            if !place("held").exists() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        assert!(!place("held").exists());
    }
}
