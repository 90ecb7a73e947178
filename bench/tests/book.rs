//! The book and the README cannot rot: every page `book/src/SUMMARY.md` lists exists, every
//! Markdown page under `book/src` is listed there, and every relative link of the README and
//! of the book points at a file that exists and, into a Markdown page, at one of its
//! headings.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("bench/ is in the repository")
        .to_path_buf()
}

/// The lines of `text` outside fenced code blocks, with inline code taken out.
fn prose(text: &str) -> Vec<String> {
    let mut fenced = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            let pieces: Vec<&str> = line.split('`').collect();
            out.push(pieces.iter().step_by(2).copied().collect::<String>());
        }
    }
    out
}

/// The targets of the Markdown links `[text](target)` of `text`.
fn links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in prose(text) {
        let mut rest = line.as_str();
        while let Some(at) = rest.find("](") {
            rest = &rest[at + 2..];
            if let Some(end) = rest.find(')') {
                out.push(rest[..end].to_string());
                rest = &rest[end..];
            }
        }
    }
    out
}

/// The anchors of `text`'s headings, as GitHub and mdBook write them: lower case, letters,
/// digits, `-` and `_` kept, spaces made `-`.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut fenced = false;
    let mut out = BTreeSet::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        }
        if fenced || !line.starts_with('#') {
            continue;
        }
        let heading = line.trim_start_matches('#');
        if !heading.starts_with(' ') {
            continue;
        }
        let slug: String = heading
            .trim()
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' '))
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        out.insert(slug);
    }
    out
}

/// The Markdown pages under `dir`.
fn pages(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in walkdir::WalkDir::new(dir) {
        let entry = entry.expect("the book's directory reads");
        if entry.path().extension().is_some_and(|e| e == "md") {
            out.push(entry.path().to_path_buf());
        }
    }
    out.sort();
    out
}

/// What is wrong with the relative links of the page at `path`.
fn broken_links(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).expect("the page reads");
    let dir = path.parent().expect("a page is in a directory");
    let mut broken = Vec::new();
    for target in links(&text) {
        if target.contains("://") || target.starts_with("mailto:") {
            continue;
        }
        let (file, anchor) = match target.split_once('#') {
            Some((file, anchor)) => (file, Some(anchor)),
            None => (target.as_str(), None),
        };
        let linked = if file.is_empty() {
            path.to_path_buf()
        } else {
            dir.join(file)
        };
        if !linked.exists() {
            broken.push(format!("{}: `{target}`: no such file", path.display()));
            continue;
        }
        if let Some(anchor) = anchor
            && linked.extension().is_some_and(|e| e == "md")
        {
            let headings = anchors(&std::fs::read_to_string(&linked).expect("the page reads"));
            if !headings.contains(anchor) {
                broken.push(format!("{}: `{target}`: no such heading", path.display()));
            }
        }
    }
    broken
}

#[test]
fn the_summary_lists_every_page_and_only_pages_that_exist() {
    let src = repo().join("book/src");
    let summary = std::fs::read_to_string(src.join("SUMMARY.md")).expect("SUMMARY.md reads");
    let listed: BTreeSet<PathBuf> = links(&summary).iter().map(|l| src.join(l)).collect();
    let missing: Vec<_> = listed.iter().filter(|p| !p.exists()).collect();
    assert!(
        missing.is_empty(),
        "SUMMARY.md lists pages that do not exist: {missing:?}"
    );
    let unlisted: Vec<_> = pages(&src)
        .into_iter()
        .filter(|p| !p.ends_with("SUMMARY.md") && !listed.contains(p))
        .collect();
    assert!(
        unlisted.is_empty(),
        "pages SUMMARY.md does not list: {unlisted:?}"
    );
}

#[test]
fn every_relative_link_of_the_readme_and_the_book_resolves() {
    let root = repo();
    let mut broken = broken_links(&root.join("README.md"));
    for page in pages(&root.join("book/src")) {
        broken.extend(broken_links(&page));
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn the_readme_stays_short() {
    let size = std::fs::metadata(repo().join("README.md"))
        .expect("README.md")
        .len();
    assert!(
        size <= 12 * 1024,
        "README.md is {size} bytes: the rest goes to the book"
    );
}

#[test]
fn links_and_anchors_are_read_as_markdown_writes_them() {
    let text = "# Using it\n## 5. In CI: `--message-format json`\nSee [a](b.md#c) and `[x](y)`.\n```\n[z](w)\n```\n";
    assert_eq!(links(text), ["b.md#c"]);
    let found = anchors(text);
    assert!(found.contains("using-it"), "{found:?}");
    assert!(found.contains("5-in-ci---message-format-json"), "{found:?}");
}
