//! `report.html`: the report to look at, written on every run. One self-contained file (no
//! script, no font, no reference outside itself: it works from `file://` and prints): the
//! failing tests with the value expected beside the one returned, each fix as a side-by-side
//! diff with its checks (alternatives folded), the suspects ranked, and each file with
//! suspects as its source, every instrumented line shaded from green to red by its
//! suspicion as Tarantula drew it. A suspect's line expands to each technique's evidence in
//! words and the values the line had in the failing call beside those it had in the calls
//! the tests accepted. Ranks are numbers as well as colours; everything that comes from the
//! code or the tests' output is escaped.

mod diff;
mod source;
mod values;

use std::collections::BTreeSet;
use std::path::Path;

use crate::model::{Fix, Report};
use crate::oracle::assertion::describe;

use source::{Listing, anchor};

/// The page, in the output directory.
pub const REPORT_HTML: &str = "report.html";

/// Files with suspects listed with their source.
const LISTED_FILES: usize = 8;
/// Failing tests shown (the others are counted).
const SHOWN_FAILING: usize = 20;
/// Suspects in the ranking table.
const LISTED_SUSPECTS: usize = 30;
/// Alternatives shown under the top fix.
const SHOWN_ALTERNATIVES: usize = 10;

/// Text for HTML: `&`, `<`, `>`, `"` and `'` escaped.
pub fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Prose for HTML: escaped, with each `` `code` `` span set as code.
pub fn prose(text: &str) -> String {
    let parts: Vec<&str> = text.split('`').collect();
    if parts.len().is_multiple_of(2) {
        // An odd number of backticks: no pairs to trust.
        return esc(text);
    }
    parts
        .iter()
        .enumerate()
        .map(|(i, part)| {
            if i % 2 == 1 {
                format!("<code>{}</code>", esc(part))
            } else {
                esc(part)
            }
        })
        .collect()
}

/// The whole page. `output_dir` holds the stored traces the values are read from.
pub fn render(report: &Report, output_dir: &Path) -> String {
    let files = files_with_suspects(report);
    let places: BTreeSet<values::Place> = files
        .iter()
        .flat_map(|f| &f.suspects)
        .map(|s| (s.file.clone(), s.line, s.column))
        .collect();
    let observed = values::observe(report, output_dir, &places);
    let mut out = String::with_capacity(64 * 1024);
    out.push_str(&format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <meta name=\"generator\" content=\"cargo-autodebug {}\">\
         <title>cargo-autodebug: {}</title><style>{STYLE}</style></head><body>",
        esc(report.tool.version),
        esc(&headline(report))
    ));
    header(&mut out, report, &files);
    out.push_str("<main>");
    match report.status {
        "clean" | "no-tests" | "build-failed" => not_debugged(&mut out, report),
        _ => {
            failing_tests(&mut out, report);
            fixes(&mut out, report, &files);
            suspects(&mut out, report, &files);
            out.push_str("<section id=\"source\" aria-labelledby=\"source-h\">");
            out.push_str("<h2 id=\"source-h\">Source</h2>");
            if files.is_empty() {
                out.push_str("<p>No suspect.</p>");
            }
            for listing in &files {
                out.push_str(&source::render(listing, report, &observed));
            }
            out.push_str("</section>");
        }
    }
    notes(&mut out, report);
    out.push_str(&format!(
        "</main><footer><p>cargo-autodebug {}, {:.1} s. The same report as data: \
         <code>report.json</code>; the top fix: <code>fix.patch</code>.</p></footer>\
         </body></html>\n",
        esc(report.tool.version),
        report.timing.total_s
    ));
    out
}

/// The result in a few words (the page's title).
fn headline(report: &Report) -> String {
    match report.status {
        "clean" => format!("all {} tests passed", report.tests.total),
        "build-failed" => "the crate does not compile".to_string(),
        "no-tests" => "no tests to run".to_string(),
        _ => format!(
            "{} of {} tests failed",
            report.failing_tests.len(),
            report.tests.total
        ),
    }
}

/// The files with suspects, best suspect first, each with its text as analysed (the fix's
/// copy when a fix changed it, else the file on disk).
fn files_with_suspects(report: &Report) -> Vec<Listing<'_>> {
    let mut files: Vec<Listing> = Vec::new();
    for suspect in &report.suspects {
        if let Some(listing) = files.iter_mut().find(|l| l.path == suspect.file) {
            listing.suspects.push(suspect);
            continue;
        }
        if files.len() == LISTED_FILES {
            continue;
        }
        let analysed = report
            .fixes
            .iter()
            .flat_map(|f| &f.files)
            .find(|c| c.path == suspect.file)
            .map(|c| c.before.clone());
        let Some(text) = analysed.or_else(|| {
            std::fs::read_to_string(Path::new(&report.workspace_root).join(&suspect.file)).ok()
        }) else {
            continue;
        };
        files.push(Listing {
            path: &suspect.file,
            text,
            suspects: vec![suspect],
            index: files.len(),
        });
    }
    files
}

/// Where a suspect's line is on the page.
fn link_to(files: &[Listing], file: &str, line: u32) -> Option<String> {
    files
        .iter()
        .find(|l| l.path == file)
        .map(|l| format!("#{}", anchor(l.index, line)))
}

/// The page's header: the result, the top suspect and the fix in a sentence each.
fn header(out: &mut String, report: &Report, files: &[Listing]) {
    out.push_str(&format!(
        "<header><h1>cargo-autodebug</h1><p class=\"status\" data-status=\"{}\">{}.</p>",
        esc(report.status),
        esc(&capitalised(&headline(report)))
    ));
    if let Some(top) = report.suspects.first() {
        let place = format!("{}:{}", top.file, top.line);
        let place = match link_to(files, &top.file, top.line) {
            Some(href) => format!("<a href=\"{href}\">{}</a>", esc(&place)),
            None => esc(&place),
        };
        out.push_str(&format!(
            "<p>Top suspect: {place} <code>{}</code> in <code>{}</code>.</p>",
            esc(&top.code),
            esc(&top.function)
        ));
    }
    if let Some(fix) = report.top_fix() {
        out.push_str(&format!(
            "<p>Fix: {} at {}:{}, {}.</p>",
            prose(&super::describe(fix)),
            esc(&fix.file),
            fix.line,
            esc(&checks(fix))
        ));
    }
    out.push_str(
        "<nav aria-label=\"sections\"><a href=\"#failing\">Failing tests</a> \
         <a href=\"#fixes\">Fixes</a> <a href=\"#suspects\">Suspects</a> \
         <a href=\"#source\">Source</a></nav></header>",
    );
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// A run that had nothing to debug, or could not build.
fn not_debugged(out: &mut String, report: &Report) {
    out.push_str("<section id=\"result\"><h2>Result</h2>");
    out.push_str(&format!("<p>{}.</p>", esc(&capitalised(&headline(report)))));
    for error in report.build_errors.iter().take(5) {
        out.push_str(&format!("<pre class=\"message\">{}</pre>", esc(error)));
    }
    out.push_str("</section>");
}

/// The failing tests: message, place, and what the call should have done.
fn failing_tests(out: &mut String, report: &Report) {
    out.push_str(&format!(
        "<section id=\"failing\" aria-labelledby=\"failing-h\"><h2 id=\"failing-h\">\
         Failing tests ({} of {}, {} flaky)</h2>",
        report.failing_tests.len(),
        report.tests.total,
        report.tests.flaky
    ));
    for test in report.failing_tests.iter().take(SHOWN_FAILING) {
        let name = format!("{}::{}", test.target, test.name);
        let place = test.location.as_ref().map_or(String::new(), |l| {
            format!(" at {}:{}:{}", esc(&l.file), l.line, l.column)
        });
        out.push_str(&format!(
            "<article class=\"failing-test\" data-test=\"{n}\"><h3><code>{n}</code></h3>\
             <p>{outcome}{place}{steady}</p><pre class=\"message\">{message}</pre>",
            n = esc(&name),
            outcome = esc(test.outcome),
            steady = if test.flaky {
                ", flaky (passed on a rerun)"
            } else if test.deterministic {
                ", on every rerun"
            } else {
                ""
            },
            message = esc(&test.message),
        ));
        if let Some(oracle) = report.oracles.iter().find(|o| o.test == name) {
            let mut facts: Vec<(&str, String)> = Vec::new();
            if let Some(function) = &oracle.function {
                let args: Vec<String> = oracle.args.iter().map(|a| describe(&a.value)).collect();
                let short = function.rsplit("::").next().unwrap_or(function);
                facts.push(("The call", format!("{short}({})", args.join(", "))));
            }
            if let Some(returned) = &oracle.returned {
                facts.push(("Returned", describe(returned)));
            }
            if let Some(expected) = &oracle.expected {
                facts.push(("Expected", describe(expected)));
            }
            if let Some(other) = &oracle.other_than {
                facts.push(("Expected other than", describe(other)));
            }
            if let Some(contract) = &oracle.contract {
                facts.push(("Contract", contract.clone()));
            }
            if oracle.expected.is_none() {
                facts.extend(assertion_sides(&test.message));
            }
            out.push_str("<dl class=\"oracle\">");
            for (term, value) in facts {
                out.push_str(&format!(
                    "<dt>{term}</dt><dd><code>{}</code></dd>",
                    esc(&value)
                ));
            }
            out.push_str(&format!(
                "</dl><p class=\"oracle-line\">{}</p>",
                prose(&oracle.line())
            ));
        }
        out.push_str("</article>");
    }
    more(out, report.failing_tests.len(), SHOWN_FAILING);
    out.push_str("</section>");
}

/// The two values a failed `assert_eq!`/`assert_ne!` printed (`left: …`, `right: …`), for
/// a failure whose oracle has no expected value of its own.
fn assertion_sides(message: &str) -> Vec<(&'static str, String)> {
    if !message.starts_with("assertion `left") {
        return Vec::new();
    }
    let side = |name: &str| {
        message
            .lines()
            .find_map(|l| l.trim_start().strip_prefix(name).map(str::to_string))
    };
    match (side("left: "), side("right: ")) {
        (Some(left), Some(right)) => vec![("Left", left), ("Right", right)],
        _ => Vec::new(),
    }
}

/// What checked a fix, in words.
fn checks(fix: &Fix) -> String {
    let counts = format!("{}/{} tests pass", fix.tests_passed, fix.tests_total);
    let mut text = if fix.validated {
        format!("rebuilt, {counts}")
    } else if fix.validation == "rebuild" {
        format!("rebuilt, {counts}: not validated")
    } else {
        format!("rerun with the change evaluated by the runtime (not rebuilt), {counts}")
    };
    if let Some(why) = &fix.rejected {
        text.push_str(&format!(" ({why})"));
    }
    text
}

/// The fixes: the top one as a side-by-side diff, the others folded.
fn fixes(out: &mut String, report: &Report, files: &[Listing]) {
    out.push_str("<section id=\"fixes\" aria-labelledby=\"fixes-h\"><h2 id=\"fixes-h\">Fixes</h2>");
    let top = report.top_fix();
    match top {
        Some(fix) => out.push_str(&fix_html(fix, files, true)),
        None if report.fixes.is_empty() => out.push_str("<p>No fix found.</p>"),
        None => out.push_str("<p>No fix was validated by a rebuild.</p>"),
    }
    let others: Vec<&Fix> = report
        .fixes
        .iter()
        .filter(|f| top.is_none_or(|t| t.rank != f.rank))
        .take(SHOWN_ALTERNATIVES)
        .collect();
    if !others.is_empty() {
        out.push_str(&format!(
            "<details class=\"alternatives\"><summary>{} other candidate{} that passed</summary>",
            others.len(),
            if others.len() == 1 { "" } else { "s" }
        ));
        for fix in others {
            out.push_str(&fix_html(fix, files, false));
        }
        out.push_str("</details>");
    }
    out.push_str("</section>");
}

fn fix_html(fix: &Fix, files: &[Listing], top: bool) -> String {
    let place = format!("{}:{}", fix.file, fix.line);
    let place = match link_to(files, &fix.file, fix.line) {
        Some(href) => format!("<a href=\"{href}\">{}</a>", esc(&place)),
        None => esc(&place),
    };
    let mut out = format!(
        "<article class=\"fix{}\" data-fix-rank=\"{}\" data-validated=\"{}\"><h3>Fix {}: {}</h3>\
         <p>At {place}, suspect #{}; {} ({}, {}).</p>",
        if top { " top-fix" } else { "" },
        fix.rank,
        fix.validated,
        fix.rank,
        prose(&super::describe(fix)),
        fix.suspect_rank,
        esc(&checks(fix)),
        esc(fix.technique),
        esc(&fix.template),
    );
    for change in &fix.files {
        out.push_str(&diff::side_by_side(change));
    }
    if fix.files.is_empty() {
        out.push_str(&format!("<pre class=\"patch\">{}</pre>", esc(&fix.diff)));
    }
    out.push_str("</article>");
    out
}

/// The ranking, as a table.
fn suspects(out: &mut String, report: &Report, files: &[Listing]) {
    out.push_str(
        "<section id=\"suspects\" aria-labelledby=\"suspects-h\"><h2 id=\"suspects-h\">\
         Suspects</h2>",
    );
    if report.suspects.is_empty() {
        out.push_str("<p>No suspect.</p></section>");
        return;
    }
    out.push_str(
        "<table class=\"ranking\"><thead><tr><th scope=\"col\">rank</th>\
         <th scope=\"col\">where</th><th scope=\"col\">code</th><th scope=\"col\">score</th>\
         <th scope=\"col\">evidence</th></tr></thead><tbody>",
    );
    let top = report.suspects[0].score.max(f64::EPSILON);
    for s in report.suspects.iter().take(LISTED_SUSPECTS) {
        let place = format!("{}:{}:{}", s.file, s.line, s.column);
        let place = match link_to(files, &s.file, s.line) {
            Some(href) => format!("<a href=\"{href}\">{}</a>", esc(&place)),
            None => esc(&place),
        };
        let mut techniques: Vec<&str> = Vec::new();
        for t in &s.techniques {
            if !techniques.contains(&t.technique) {
                techniques.push(t.technique);
            }
        }
        out.push_str(&format!(
            "<tr data-rank=\"{}\"><td class=\"rank\" style=\"--heat-bg: {}\">#{}</td>\
             <td>{place}</td><td><code>{}</code></td><td>{:.2}</td><td>{}</td></tr>",
            s.rank,
            source::heat_colour((s.score / top).clamp(0.0, 1.0)),
            s.rank,
            esc(&s.code),
            s.score,
            esc(&techniques.join(", "))
        ));
    }
    out.push_str("</tbody></table>");
    more(out, report.suspects.len(), LISTED_SUSPECTS);
    out.push_str("</section>");
}

/// `… and N more` when `total` items were cut to `shown`.
fn more(out: &mut String, total: usize, shown: usize) {
    if total > shown {
        out.push_str(&format!(
            "<p>… and {} more (report.json lists them).</p>",
            total - shown
        ));
    }
}

/// What a technique could not do.
fn notes(out: &mut String, report: &Report) {
    if report.notes.is_empty() {
        return;
    }
    out.push_str(&format!(
        "<section id=\"notes\"><details><summary>{} note{}</summary><ul>",
        report.notes.len(),
        if report.notes.len() == 1 { "" } else { "s" }
    ));
    for note in &report.notes {
        out.push_str(&format!("<li>{}</li>", esc(note)));
    }
    out.push_str("</ul></details></section>");
}

/// The page's style: system fonts, colours that keep dark text readable, a print layout.
const STYLE: &str = "\
:root{color-scheme:light;font-family:system-ui,sans-serif;line-height:1.4;color:#1a1a1a;background:#fff}\
body{margin:0 auto;max-width:80rem;padding:0 1rem 2rem}\
h1{font-size:1.4rem;margin:1rem 0 .3rem}h2{font-size:1.2rem;border-bottom:1px solid #ccc;margin-top:2rem}\
h3{font-size:1rem}h4{font-size:.9rem;margin:.4rem 0}\
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.85rem}\
pre.message{background:#f6f6f6;border:1px solid #ddd;padding:.5rem;white-space:pre-wrap;overflow-wrap:anywhere}\
nav a{margin-right:1rem}\
a:focus,summary:focus{outline:3px solid #1f5fbf;outline-offset:1px}\
dl.oracle{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem;margin:.5rem 0}\
dl.oracle dt{font-weight:600}dl.oracle dd{margin:0}\
.source{border:1px solid #ccc;font-size:.85rem}\
div.line,.line>summary{display:grid;grid-template-columns:3.5rem 5.5rem 3.5rem 1fr;align-items:baseline}\
.line>summary{cursor:pointer;list-style:none}.line>summary::-webkit-details-marker{display:none}\
.line code{white-space:pre;overflow-x:auto}\
.ln{color:#555;text-align:right;padding-right:.6rem;user-select:none}\
.rank,.score{color:#222;font-size:.8rem}\
.line.instrumented{background:hsl(120 40% 95%)}\
.line.suspect>summary{background:var(--heat-bg)}\
.line.suspect>summary .rank::before{content:'▸ '}.line.suspect[open]>summary .rank::before{content:'▾ '}\
.line.top>summary{border-left:5px solid #8b0000;font-weight:600}\
.evidence{border:1px solid #aaa;border-left:5px solid #888;margin:.2rem 0 .6rem 3.5rem;padding:.3rem .8rem;background:#fcfcfc;font-family:system-ui,sans-serif}\
.evidence ul{margin:.2rem 0;padding-left:1.2rem}\
.values{display:grid;grid-template-columns:1fr 1fr;gap:1rem}\
.values ol{margin:.1rem 0 .4rem;padding-left:1.6rem}.values .test{color:#555;font-size:.8rem}\
.gap{color:#555;padding:.1rem 4rem;background:#f3f3f3;font-size:.8rem}\
table{border-collapse:collapse;width:100%}caption{text-align:left;font-weight:600;padding:.3rem 0}\
th,td{border:1px solid #ddd;padding:.15rem .4rem;text-align:left;vertical-align:top}\
table.diff td code{white-space:pre}table.diff .ln{width:3rem}\
td.del{background:#fde8e8}td.ins{background:#e6f6e6}td.none{background:#f3f3f3}\
del{background:#f5b5b5;text-decoration:line-through}ins{background:#a8e0a8;text-decoration:none;font-weight:700}\
.sign{display:inline-block;width:1.2em;font-weight:700}\
tr.hunk td{background:#eef;color:#333;font-size:.8rem}\
td.rank{background:var(--heat-bg)}\
article.fix{margin:1rem 0}details.alternatives>summary{cursor:pointer;margin:.5rem 0}\
footer{margin-top:2rem;color:#555;font-size:.85rem}\
@media print{nav{display:none}*{-webkit-print-color-adjust:exact;print-color-adjust:exact}\
article,.line,tr{break-inside:avoid}.line code,table.diff td code{white-space:pre-wrap}}\
";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_leaves_no_markup() {
        assert_eq!(
            esc("<script>alert('x' & \"y\")</script>"),
            "&lt;script&gt;alert(&#39;x&#39; &amp; &quot;y&quot;)&lt;/script&gt;"
        );
    }

    #[test]
    fn a_failed_assert_eq_gives_its_two_sides() {
        let message = "assertion `left == right` failed: <b>\n  left: Some(3)\n right: Some(9)";
        assert_eq!(
            assertion_sides(message),
            vec![
                ("Left", "Some(3)".to_string()),
                ("Right", "Some(9)".to_string())
            ]
        );
        assert!(assertion_sides("index out of bounds").is_empty());
    }

    #[test]
    fn code_spans_in_prose_are_code() {
        assert_eq!(
            prose("`s > a[i]` → `s < a[i]` passed"),
            "<code>s &gt; a[i]</code> → <code>s &lt; a[i]</code> passed"
        );
        assert_eq!(prose("a ` b"), "a ` b");
    }

    #[test]
    fn a_page_refers_to_nothing_outside_itself() {
        let mut report = Report::new(Path::new("/nowhere"));
        report.status = "tests-failed";
        let page = render(&report, Path::new("/nowhere"));
        for reference in ["http:", "https:", "src=", "@import", "url("] {
            assert!(!page.contains(reference), "{reference} in {page}");
        }
        assert!(page.starts_with("<!DOCTYPE html>"));
    }
}
