//! `report.html` in a real browser: the report of a run rendered by headless Chromium (the
//! page after the browser parsed it, `--dump-dom`), checked from its DOM, and a screenshot
//! written to the test's output directory. Chromium is Debian's `chromium` package, which
//! `scripts/test.sh` installs when missing; where there is none the browser test says it
//! skipped.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// The browser: `$CHROMIUM`, else the first of Debian's and others' names on the `PATH`.
fn chromium() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("CHROMIUM").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(path));
    }
    let path = std::env::var_os("PATH")?;
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .flat_map(|name| std::env::split_paths(&path).map(move |dir| dir.join(name)))
        .find(|candidate| candidate.is_file())
}

/// How long one browser run may take: a page that opens a dialog (a script that got in)
/// never finishes loading.
const BROWSER_TIMEOUT: Duration = Duration::from_secs(60);

/// Headless Chromium with the flags a closed sandbox needs, a profile of its own, and
/// `args`; its stdout. Killed past [`BROWSER_TIMEOUT`].
fn run_chromium(browser: &Path, profile: &Path, args: &[&str]) -> String {
    let stdout = tempfile::NamedTempFile::new().unwrap();
    let stderr = tempfile::NamedTempFile::new().unwrap();
    let mut child = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .stdout(stdout.reopen().unwrap())
        .stderr(stderr.reopen().unwrap())
        .spawn()
        .expect("chromium starts");
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > BROWSER_TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "chromium did not finish in {BROWSER_TIMEOUT:?} (a dialog opened by a script \
                 in the page never closes)"
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let read = |f: &tempfile::NamedTempFile| std::fs::read_to_string(f.path()).unwrap();
    assert!(status.success(), "chromium failed: {}", read(&stderr));
    read(&stdout)
}

/// The start tags of `dom` (as Chromium serializes them: attributes in double quotes) that
/// carry `attribute="value"`, each as its attributes.
fn elements_with(dom: &str, attribute: &str, value: &str) -> Vec<Vec<(String, String)>> {
    let needle = format!(" {attribute}=\"{value}\"");
    let mut found = Vec::new();
    for (at, _) in dom.match_indices(&needle) {
        let start = dom[..at].rfind('<').unwrap();
        let end = at + dom[at..].find('>').unwrap();
        let tag = &dom[start + 1..end];
        let mut attributes = Vec::new();
        for part in tag.split("\" ") {
            if let Some((name, value)) = part.split_once("=\"") {
                let name = name.rsplit(' ').next().unwrap();
                attributes.push((name.to_string(), value.trim_end_matches('"').to_string()));
            }
        }
        attributes.push(("<tag>".into(), tag.split(' ').next().unwrap().to_string()));
        found.push(attributes);
    }
    found
}

fn attribute<'a>(element: &'a [(String, String)], name: &str) -> Option<&'a str> {
    element
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.as_str())
}

/// Text as Chromium serializes it inside an element.
fn serialized(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('\u{a0}', "&nbsp;")
}

#[test]
fn the_report_page_shows_the_top_suspect_the_fix_and_markup_in_messages_as_text() {
    // `--open` hands the page to `$BROWSER`: here a script that writes down what it got.
    let copy = common::fixture("html-report");
    let opened = copy.path().join("opened.txt");
    let browser_script = copy.path().join("browser.sh");
    std::fs::write(
        &browser_script,
        format!("#!/bin/sh\nprintf '%s' \"$1\" > '{}'\n", opened.display()),
    )
    .unwrap();
    std::fs::set_permissions(
        &browser_script,
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let output = common::autodebug_in(
        copy.path(),
        &["--jobs", "2", "--open"],
        &common::shared_target_dir(),
        &[("BROWSER", Some(browser_script.as_os_str()))],
    );
    let run = common::describe(&output);
    assert_eq!(output.status.code(), Some(5), "{run}");
    let report = common::report(copy.path());
    let page = copy.path().join("autodebug.out/report.html");
    assert!(
        run.contains("autodebug.out/report.html"),
        "the summary's last line names the page\n{run}"
    );
    let handed = std::fs::read_to_string(&opened).unwrap_or_default();
    assert_eq!(
        Path::new(&handed),
        page,
        "--open hands the page to $BROWSER\n{run}"
    );

    let Some(browser) = chromium() else {
        eprintln!(
            "skipped the browser part: no Chromium on this machine (scripts/test.sh installs \
             Debian's `chromium` where it can; or set CHROMIUM=/path/to/chrome)"
        );
        return;
    };
    let profile = tempfile::tempdir().unwrap();
    let url = format!("file://{}", page.display());
    let dom = run_chromium(&browser, profile.path(), &["--dump-dom", &url]);

    // The top suspect's line carries rank 1, and it is the report's top suspect.
    let top = &report["suspects"][0];
    let ranked_first = elements_with(&dom, "data-rank", "1");
    let line = ranked_first
        .iter()
        .find(|e| attribute(e, "data-line").is_some())
        .unwrap_or_else(|| panic!("no source line with data-rank=1 in the DOM\n{dom}"));
    assert_eq!(
        attribute(line, "data-file"),
        top["file"].as_str(),
        "{line:?}"
    );
    assert_eq!(
        attribute(line, "data-line"),
        Some(top["line"].to_string().as_str()),
        "{line:?}"
    );
    assert!(
        attribute(line, "class").is_some_and(|c| c.contains("top")),
        "{line:?}"
    );

    // The validated fix is shown as a diff whose "after" side has the replacement.
    let fix = report["fixes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["validated"] == true)
        .unwrap_or_else(|| panic!("no validated fix\n{run}"));
    let shown = elements_with(&dom, "data-fix-rank", &fix["rank"].to_string());
    assert_eq!(shown.len(), 1, "the fix's article is in the DOM once");
    let article = &dom[dom
        .find(&format!("data-fix-rank=\"{}\"", fix["rank"]))
        .unwrap()..];
    let article = &article[..article.find("</article>").unwrap()];
    assert!(article.contains("<table class=\"diff\""), "{article}");
    let replacement = fix["replacement"].as_str().unwrap();
    let after_cells: Vec<&str> = article
        .split("<td class=\"ins\">")
        .skip(1)
        .map(|cell| &cell[..cell.find("</td>").unwrap()])
        .collect();
    let after_text: Vec<String> = after_cells
        .iter()
        .map(|cell| {
            cell.replace("<ins>", "")
                .replace("</ins>", "")
                .replace("<code>", "")
                .replace("</code>", "")
        })
        .collect();
    assert!(
        after_text
            .iter()
            .any(|text| text.contains(&serialized(replacement))),
        "the diff's after side shows `{replacement}`: {after_cells:?}"
    );

    // The test message's markup is text: escaped in the DOM, and no script element at all.
    assert!(
        dom.contains(&serialized("<script>alert(\"peak\")</script> of [3, 9, 4]")),
        "the message is shown as text\n{dom}"
    );
    assert!(
        !dom.contains("<script"),
        "a script element in the DOM\n{dom}"
    );

    // A screenshot, for people.
    let out_dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("report-html");
    std::fs::create_dir_all(&out_dir).unwrap();
    let screenshot = out_dir.join("report.png");
    let _ = std::fs::remove_file(&screenshot);
    run_chromium(
        &browser,
        profile.path(),
        &[
            &format!("--screenshot={}", screenshot.display()),
            "--window-size=1200,1800",
            &url,
        ],
    );
    let png = std::fs::read(&screenshot).expect("the screenshot is written");
    assert!(png.starts_with(b"\x89PNG"), "a PNG");
    eprintln!("screenshot: {}", screenshot.display());
}
