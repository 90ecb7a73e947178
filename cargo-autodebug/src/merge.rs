//! `cargo autodebug merge DIR…`: the reports of the `--shard K/N` runs combined into the one
//! an unsharded run would have written. Every shard analysed the same failures (the same
//! suspects, the same rebuild queue) and rebuilt its own items of the queue; the merge checks
//! that they agree, replays the rebuild rules over the queue with every shard's results
//! ([`crate::repair::rebuilds`]), ranks the fixes, moves the fixed sites up the suspects, and
//! writes the report in every format.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use crate::console::Console;
use crate::model::{ExitCode, Failure, OrExit, Report, Shard};
use crate::options::{MergeOptions, MessageFormat, Options};
use crate::repair::rebuilds::{self, Outcome};

/// Runs `cargo autodebug merge`.
pub fn merge(
    merge: &MergeOptions,
    options: &Options,
    console: &Console,
) -> Result<ExitCode, Failure> {
    let parts = read(&merge.dirs).or_exit(ExitCode::Usage)?;
    let output = match &merge.output {
        Some(dir) => std::path::absolute(dir)
            .context("bad --output path")
            .or_exit(ExitCode::Usage)?,
        None => std::path::absolute("autodebug.out")
            .context("no current directory")
            .or_exit(ExitCode::Usage)?,
    };
    for (dir, _) in &parts {
        if same_dir(dir, &output) {
            return Err(anyhow::anyhow!(
                "the output directory {} is one of the shards'\nhint: name another with -o DIR",
                output.display()
            ))
            .or_exit(ExitCode::Usage);
        }
    }
    let limits = crate::repair::Limits::of(options);
    let first = (parts.iter())
        .find(|(_, r)| r.shard.as_ref().is_some_and(|p| p.index == 0))
        .unwrap_or(&parts[0])
        .0
        .clone();
    let report =
        combine(parts.into_iter().map(|(_, r)| r).collect(), &limits).or_exit(ExitCode::Usage)?;
    for note in report.notes.iter().filter(|n| n.starts_with("merge: ")) {
        console.warn(note.trim_start_matches("merge: "));
    }
    let out = crate::output_dir::OutputDir::create(output).or_exit(ExitCode::Software)?;
    // The traces and the coverage are shard 0's (every shard recorded the same ones): the HTML report shows the traces' values.
    let traces = first.join("traces");
    if traces.is_dir() {
        copy_dir(&traces, &out.path().join("traces")).or_exit(ExitCode::Software)?;
    }
    let coverage = first.join("coverage.json");
    if coverage.is_file() {
        std::fs::copy(&coverage, out.path().join("coverage.json"))
            .with_context(|| format!("could not copy {}", coverage.display()))
            .or_exit(ExitCode::Software)?;
    }
    report.write(out.path()).or_exit(ExitCode::Software)?;
    crate::publish::write(&report, out.path(), &out.shown(), None).or_exit(ExitCode::Software)?;
    match options.message_format {
        MessageFormat::Human => {
            let style = crate::publish::terminal::Style {
                colour: console.colour_stdout(),
                verbose: options.verbose > 0,
            };
            print!("{}", report.render(&out.shown(), style));
        }
        MessageFormat::Json => console.event(&crate::model::Event::Report {
            path: &out.path().join("report.json").display().to_string(),
            html: &(out.path().join(crate::publish::html::REPORT_HTML))
                .display()
                .to_string(),
            status: report.status,
            exit_code: report.exit_code,
        }),
    }
    Ok(exit_code(report.exit_code))
}

/// The exit code a report holds.
fn exit_code(code: i32) -> ExitCode {
    use ExitCode::*;
    [
        Clean,
        Software,
        Usage,
        BuildFailed,
        NoTests,
        TestsFailed,
        Timeout,
        Crashed,
        Flaky,
        FuelExhausted,
    ]
    .into_iter()
    .find(|c| c.code() == code)
    .unwrap_or(Software)
}

fn same_dir(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// Each directory's report, in the order given.
fn read(dirs: &[PathBuf]) -> Result<Vec<(PathBuf, Report)>> {
    dirs.iter()
        .map(|dir| {
            let path = dir.join("report.json");
            let text = std::fs::read_to_string(&path).with_context(|| {
                format!(
                    "no report in {}\nhint: give the output directories of the `--shard K/N` runs",
                    dir.display()
                )
            })?;
            let report: Report = serde_json::from_str(&text)
                .with_context(|| format!("{} is not a report of this tool", path.display()))?;
            Ok((dir.clone(), report))
        })
        .collect()
}

/// The shards' reports as one: see the module's documentation.
pub fn combine(mut reports: Vec<Report>, limits: &crate::repair::Limits) -> Result<Report> {
    let count = check_parts(&mut reports)?;
    let differ = differences(&reports, count);
    // The queue, each item with the rebuild of the shard that owns it (found by its code).
    let shard = Shard { index: 0, count };
    let first = reports[0].shard.as_ref().expect("checked");
    let searched_cut = first.searched_cut.clone();
    let mut items = first.items.clone();
    for item in &mut items {
        let owner = &reports[shard.owner(item)];
        item.rebuilt = (owner.shard.as_ref().expect("checked").items.iter())
            .find(|other| other.code == item.code)
            .and_then(|other| other.rebuilt.clone());
    }
    let mut merged = reports.swap_remove(0);
    slowest_timing(&mut merged, &reports);
    let mut notes = Vec::new();
    for report in &reports {
        for note in &report.notes {
            if !merged.notes.contains(note) {
                notes.push(note.clone());
            }
        }
    }
    merged.notes.extend(notes);
    merged.notes.extend(differ);
    if let Some(details) = &merged.repair {
        // The rebuilds' work budget is the shards' crate's (they ran on one tree).
        let limits = limits.clone().for_crate(details.crate_lines);
        replay_rebuilds(&mut merged, &items, searched_cut, shard, &limits);
    } else {
        crate::pipeline::rank_fixed_first(&mut merged);
    }
    merged.shard = None;
    Ok(merged)
}

/// Checks that `reports` are the parts of one split, each once, and sorts them by K: the
/// number of parts N.
fn check_parts(reports: &mut [Report]) -> Result<usize> {
    let count = match reports.first().and_then(|r| r.shard.as_ref()) {
        Some(part) => part.count,
        None => bail!("the first report is not a shard's (it was not run with --shard K/N)"),
    };
    let mut seen = BTreeSet::new();
    for report in reports.iter() {
        let Some(part) = &report.shard else {
            bail!("a report is not a shard's (it was not run with --shard K/N)");
        };
        if part.count != count {
            bail!(
                "the reports are shards of different splits ({count} and {})",
                part.count
            );
        }
        if !seen.insert(part.index) {
            bail!("shard {}/{count} is given twice", part.index);
        }
    }
    let missing: Vec<String> = (0..count)
        .filter(|k| !seen.contains(k))
        .map(|k| format!("{k}/{count}"))
        .collect();
    if !missing.is_empty() {
        bail!(
            "shard{} {} {} missing: the merge needs all {count}",
            if missing.len() == 1 { "" } else { "s" },
            missing.join(", "),
            if missing.len() == 1 { "is" } else { "are" }
        );
    }
    reports.sort_by_key(|r| r.shard.as_ref().map_or(0, |p| p.index));
    Ok(count)
}

/// Where a shard analysed another thing than the first (the failing tests, the suspects,
/// the queue): a note each. The shards should agree; where one did not (a solver's time
/// limit that ran out on one machine and not on another), the first shard's analysis is
/// kept.
fn differences(reports: &[Report], count: usize) -> Vec<String> {
    let first = &reports[0];
    let mut differ = Vec::new();
    let mut compare = |what: &str, of: &dyn Fn(&Report) -> serde_json::Value| {
        let expected = of(first);
        for report in &reports[1..] {
            if of(report) != expected {
                differ.push(format!(
                    "merge: shard {}/{count} differs from shard 0/{count} on {what}; the report \
                     is shard 0's analysis (did every shard run the same commit with the same \
                     options?)",
                    report.shard.as_ref().map_or(0, |p| p.index)
                ));
            }
        }
    };
    compare("the failing tests", &|r| {
        serde_json::json!(
            r.failing_tests
                .iter()
                .map(|t| (&t.target, &t.name))
                .collect::<Vec<_>>()
        )
    });
    compare("the suspects", &|r| {
        serde_json::json!(
            r.suspects
                .iter()
                .map(|s| (&s.file, s.line, s.column, &s.code, s.rank))
                .collect::<Vec<_>>()
        )
    });
    compare("the candidates to rebuild", &|r| {
        let items = r.shard.as_ref().map(|p| &p.items[..]).unwrap_or_default();
        serde_json::json!(items.iter().map(|i| &i.code).collect::<Vec<_>>())
    });
    differ
}

/// The shards ran side by side: each phase took as long as its slowest shard.
fn slowest_timing(merged: &mut Report, others: &[Report]) {
    for report in others {
        let (t, m) = (&report.timing, &mut merged.timing);
        for (mine, theirs) in [
            (&mut m.build_s, t.build_s),
            (&mut m.baseline_s, t.baseline_s),
            (&mut m.record_s, t.record_s),
            (&mut m.oracle_s, t.oracle_s),
            (&mut m.localize_s, t.localize_s),
            (&mut m.repair_s, t.repair_s),
            (&mut m.total_s, t.total_s),
        ] {
            *mine = mine.max(theirs);
        }
        m.peak_rss_mb = match (m.peak_rss_mb, t.peak_rss_mb) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        m.solver_peak_mb = m.solver_peak_mb.max(t.solver_peak_mb);
    }
}

/// The rebuilds of the queue's `items` replayed as one run would have made them, from the
/// shards' results, and the fixes they validated ranked as one run ranks them.
fn replay_rebuilds(
    merged: &mut Report,
    items: &[crate::model::Item],
    searched_cut: Option<String>,
    shard: Shard,
    limits: &crate::repair::Limits,
) {
    let count = shard.count;
    let Some(details) = &mut merged.repair else {
        return;
    };
    details.rebuilds = 0;
    details.validated = 0;
    details.cut = searched_cut;
    let mut replay_notes = Vec::new();
    let kept = rebuilds::run(
        items,
        limits,
        details,
        &mut replay_notes,
        &|| false,
        &mut |index, item, _| match &item.rebuilt {
            Some(done) => Outcome::Rebuilt(done.clone()),
            None => Outcome::Missing(format!(
                "shard {}/{count} did not rebuild the queue's item {}",
                shard.owner(item),
                index + 1
            )),
        },
    );
    details.rebuild_s = kept.rebuild_s;
    details.rebuild_per_s = (details.rebuilds > 0 && kept.rebuild_s > 0.0)
        .then(|| details.rebuilds as f64 / kept.rebuild_s);
    for note in replay_notes {
        if !merged.notes.contains(&note) {
            merged.notes.push(note);
        }
    }
    // A fix zero-annotation mode could not show in the user's files is left out after
    // the ranking, as an unsharded run leaves it out (see `zero::to_user`).
    let mut gone = Vec::new();
    let mut keyed = Vec::new();
    for (fix, code, dropped) in kept.fixes {
        if let Some(note) = dropped {
            gone.push((fix.diff.clone(), note));
        }
        keyed.push((fix, code));
    }
    merged.fixes = crate::repair::rank_keyed(keyed);
    crate::pipeline::rank_fixed_first(merged);
    merged
        .fixes
        .retain(|fix| !gone.iter().any(|(diff, _)| *diff == fix.diff));
    for (_, note) in gone {
        if !merged.notes.contains(&note) {
            merged.notes.push(note);
        }
    }
    for (rank, fix) in merged.fixes.iter_mut().enumerate() {
        fix.rank = rank + 1;
    }
}

/// Copies the directory `from` to `to` (files and subdirectories).
fn copy_dir(from: &Path, to: &Path) -> Result<()> {
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry?;
        let relative = entry.path().strip_prefix(from)?;
        let target = to.join(relative);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target)
                .with_context(|| format!("could not create {}", target.display()))?;
        } else {
            std::fs::copy(entry.path(), &target)
                .with_context(|| format!("could not copy {}", entry.path().display()))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::time::Duration;

    use super::*;
    use crate::model::{FileChange, Fix, Item, Rebuilt, RepairDetails, ShardPart, Validation};
    use crate::repair::Limits;

    fn limits() -> Limits {
        Limits {
            suspects: 5,
            candidates: 200,
            rebuilds: 100,
            free_rebuilds: 10,
            rebuild_work: crate::repair::REBUILD_WORK,
            rebuild_cost: 1.0,
            crate_lines: 0,
            fixes: 3,
            time: Duration::from_secs(300),
            rebuild_all: false,
            solver_memory_mb: 1024,
            shard: None,
        }
    }

    fn fix(replacement: &str, cost: u32) -> Fix {
        Fix {
            rank: 0,
            file: "src/lib.rs".into(),
            line: 3,
            column: 9,
            end_line: 3,
            end_column: 10,
            original: "x".into(),
            replacement: replacement.into(),
            diff: format!("-x\n+{replacement}\n"),
            technique: "syntactic",
            template: "variable".into(),
            validated: false,
            validation: "runtime",
            tests_passed: 0,
            tests_total: 0,
            plausible: true,
            cost,
            suspect_rank: 1,
            localized_by: vec!["ochiai"],
            edits: vec![],
            file_hashes: BTreeMap::new(),
            rejected: None,
            files: vec![FileChange {
                path: "src/lib.rs".into(),
                before: String::new(),
                after: format!("r = {replacement};"),
            }],
            effect: vec![],
        }
    }

    /// The queue: candidates `a`…`f` at two sites, all plausible; those in `good` pass the
    /// rebuild.
    fn queue(good: &[&str]) -> Vec<Item> {
        ["a", "b", "c", "d", "e", "f"]
            .iter()
            .enumerate()
            .map(|(i, name)| {
                let validated = good.contains(name);
                Item {
                    fix: Some(fix(name, i as u32 + 1)),
                    unwritable: None,
                    dropped: None,
                    code: vec![format!("code of {name}")],
                    plausible: Some(vec![true, true]),
                    sites: vec![autodebug_runtime::protocol::SiteKey {
                        file: "src/lib.rs".into(),
                        line: 3 + (i as u32 % 2),
                        column: 9,
                        kind: autodebug_runtime::protocol::SiteKind::If,
                    }],
                    cost: i as u32 + 1,
                    combined: false,
                    rebuilt: Some(Rebuilt {
                        validation: Validation {
                            validated,
                            tests_passed: if validated { 2 } else { 1 },
                            tests_total: 2,
                            passed: vec![true, validated],
                            failing: if validated {
                                vec![]
                            } else {
                                vec!["t::b".into()]
                            },
                            not_run: 0,
                            error: None,
                            build_s: 0.5,
                            test_s: 0.25,
                        },
                        seconds: 1.0,
                    }),
                }
            })
            .collect()
    }

    /// A run's report over `items` (each item rebuilt or not as given), as shard `shard`.
    fn report(items: Vec<Item>, shard: Option<(usize, usize)>) -> Report {
        let mut report = Report::new(Path::new("/w"));
        report.repair = Some(RepairDetails::default());
        report.shard = shard.map(|(index, count)| ShardPart {
            index,
            count,
            items,
            searched_cut: None,
        });
        report
    }

    /// What shard K of N would have written: only its own items rebuilt (and every one of
    /// them: a shard rebuilds at least as far along the queue as the whole run does).
    fn shard_report(all: &[Item], index: usize, count: usize) -> Report {
        let shard = Shard { index, count };
        let items = (all.iter().cloned())
            .map(|mut item| {
                if !shard.owns(&item) {
                    item.rebuilt = None;
                }
                item
            })
            .collect();
        report(items, Some((index, count)))
    }

    fn summary(report: &Report) -> Vec<(usize, String, bool)> {
        (report.fixes.iter())
            .map(|f| (f.rank, f.replacement.clone(), f.validated))
            .collect()
    }

    #[test]
    fn shards_are_k_of_n_counted_from_zero() {
        let shard: Shard = "2/3".parse().unwrap();
        assert_eq!((shard.index, shard.count), (2, 3));
        assert_eq!(shard.to_string(), "2/3");
        for bad in ["3/3", "0/0", "1", "a/3", "1/b", "-1/3"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
        let err = "3/3".parse::<Shard>().unwrap_err();
        assert!(err.contains("0/3 … 2/3"), "{err}");
    }

    #[test]
    fn every_item_has_one_owner_and_the_items_spread() {
        let items: Vec<Item> = (0..60)
            .map(|i| {
                let mut item = queue(&[])[0].clone();
                item.code = vec![format!("code {i}")];
                item
            })
            .collect();
        let shards: Vec<Shard> = (0..3).map(|index| Shard { index, count: 3 }).collect();
        let mut per_shard = [0; 3];
        for item in &items {
            let owners: Vec<usize> = (shards.iter())
                .filter(|s| s.owns(item))
                .map(|s| s.index)
                .collect();
            assert_eq!(owners.len(), 1);
            per_shard[owners[0]] += 1;
        }
        // By the code, not by luck of the order: the same code, the same owner.
        assert!(per_shard.iter().all(|&n| n >= 10), "{per_shard:?}");
    }

    #[test]
    fn merged_shards_keep_the_fixes_one_run_keeps() {
        for good in [&["c"][..], &["b", "e"], &["a", "b", "c", "d"], &[]] {
            let all = queue(good);
            // The whole run: every item the rules ask for rebuilt in place.
            let mut details = RepairDetails::default();
            let mut notes = Vec::new();
            let kept = rebuilds::run(
                &all,
                &limits(),
                &mut details,
                &mut notes,
                &|| false,
                &mut |_, item, _| Outcome::Rebuilt(item.rebuilt.clone().unwrap()),
            );
            let mut single = report(vec![], None);
            single.fixes =
                crate::repair::rank_keyed(kept.fixes.into_iter().map(|(f, c, _)| (f, c)).collect());
            for count in [1, 2, 3, 7] {
                let shards = (0..count)
                    .rev()
                    .map(|k| shard_report(&all, k, count))
                    .collect();
                let merged = combine(shards, &limits()).unwrap();
                assert_eq!(
                    summary(&merged),
                    summary(&single),
                    "{good:?} in {count} shards"
                );
                let repair = merged.repair.as_ref().unwrap();
                assert_eq!(
                    (repair.rebuilds, repair.validated, &repair.cut),
                    (details.rebuilds, details.validated, &details.cut),
                    "{good:?} in {count} shards"
                );
                assert!(merged.shard.is_none());
                assert!(
                    !merged.notes.iter().any(|n| n.starts_with("merge:")),
                    "{:?}",
                    merged.notes
                );
            }
        }
    }

    /// A long queue of rebuilds of a big crate and no fix: one run stops after the first
    /// ten (their work is past the budget); each of three shards stops there too, having
    /// made only its own of the ten, and the merge says where the run stopped.
    #[test]
    fn on_a_big_crate_each_shard_makes_its_share_of_the_first_rebuilds() {
        let lines = 40_000;
        let mut all = Vec::new();
        for i in 0..40 {
            let mut item = queue(&[])[i % 6].clone();
            item.code = vec![format!("code {i}")];
            item.sites[0].line = 100 + i as u32;
            all.push(item);
        }
        let mut single = RepairDetails::default();
        rebuilds::run(
            &all,
            &limits().for_crate(lines),
            &mut single,
            &mut vec![],
            &|| false,
            &mut |_, item, _| Outcome::Rebuilt(item.rebuilt.clone().unwrap()),
        );
        assert_eq!(single.rebuilds, 10);
        let mut made = 0;
        for k in 0..3 {
            let shard = Shard { index: k, count: 3 };
            let mut details = RepairDetails::default();
            rebuilds::run(
                &all,
                &limits().for_crate(lines),
                &mut details,
                &mut vec![],
                &|| false,
                &mut |_, item, _| {
                    if shard.owns(item) {
                        Outcome::Rebuilt(item.rebuilt.clone().unwrap())
                    } else {
                        Outcome::NotMine
                    }
                },
            );
            let owned_of_ten = all[..10].iter().filter(|i| shard.owns(i)).count();
            assert_eq!(details.rebuilds, owned_of_ten, "shard {k}");
            made += details.rebuilds;
        }
        assert_eq!(made, 10);
        let merged = combine(
            (0..3)
                .map(|k| {
                    let mut report = shard_report(&all, k, 3);
                    report.repair.as_mut().unwrap().crate_lines = lines;
                    report
                })
                .collect(),
            &limits(),
        )
        .unwrap();
        let repair = merged.repair.as_ref().unwrap();
        assert_eq!(repair.rebuilds, 10);
        assert_eq!(
            repair.cut.as_deref(),
            Some("10 rebuilds, the work budget of a crate of 40000 lines")
        );
    }

    /// The same queue of a small crate gets more rebuilds, however long each one takes:
    /// the budget is work, not seconds.
    #[test]
    fn a_small_crate_gets_more_rebuilds_whatever_they_take() {
        let mut all = Vec::new();
        for i in 0..80 {
            let mut item = queue(&[])[i % 6].clone();
            item.code = vec![format!("code {i}")];
            item.sites[0].line = 100 + i as u32;
            all.push(item);
        }
        let made = |seconds: f64| {
            let mut details = RepairDetails::default();
            rebuilds::run(
                &all,
                &limits().for_crate(100),
                &mut details,
                &mut vec![],
                &|| false,
                &mut |_, item, _| {
                    let mut done = item.rebuilt.clone().unwrap();
                    done.seconds = seconds;
                    Outcome::Rebuilt(done)
                },
            );
            details.rebuilds
        };
        let quick = made(0.1);
        assert!(quick > 10, "{quick}");
        assert_eq!(made(30.0), quick);
    }

    #[test]
    fn a_missing_duplicated_or_foreign_shard_is_refused() {
        let all = queue(&["c"]);
        let err = |reports: Vec<Report>| combine(reports, &limits()).unwrap_err().to_string();
        let missing = err(vec![shard_report(&all, 0, 3), shard_report(&all, 2, 3)]);
        assert!(missing.contains("shard 1/3 is missing"), "{missing}");
        let twice = err(vec![shard_report(&all, 0, 2), shard_report(&all, 0, 2)]);
        assert!(twice.contains("shard 0/2 is given twice"), "{twice}");
        let split = err(vec![shard_report(&all, 0, 2), shard_report(&all, 1, 3)]);
        assert!(split.contains("different splits"), "{split}");
        let plain = err(vec![report(all.clone(), None)]);
        assert!(plain.contains("not a shard's"), "{plain}");
    }

    #[test]
    fn a_shard_that_analysed_otherwise_is_named_and_the_first_kept() {
        let all = queue(&["c"]);
        let mut other = shard_report(&all, 1, 2);
        if let Some(part) = &mut other.shard {
            part.items.truncate(4);
        }
        let merged = combine(vec![shard_report(&all, 0, 2), other], &limits()).unwrap();
        let differ: Vec<&String> = (merged.notes.iter())
            .filter(|n| n.starts_with("merge: shard 1/2 differs"))
            .collect();
        assert_eq!(differ.len(), 1, "{:?}", merged.notes);
        assert!(
            differ[0].contains("the candidates to rebuild"),
            "{}",
            differ[0]
        );
        assert_eq!(merged.fixes[0].replacement, "c");
    }

    #[test]
    fn a_report_reads_back_as_written() {
        let mut written = shard_report(&queue(&["c"]), 1, 3);
        written.fixes.push(fix("y", 1));
        written.notes.push("a note".into());
        let text = serde_json::to_string(&written).unwrap();
        let read: Report = serde_json::from_str(&text).unwrap();
        assert_eq!(serde_json::to_string(&read).unwrap(), text);
    }
}
