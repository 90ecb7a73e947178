//! A file with suspects as its source: every line numbered, each instrumented line shaded
//! from green to red by its suspicion (its best suspect's merged score against the top
//! suspect's), the suspects' lines carrying their rank and, expanded, each technique's
//! evidence and the values the line had.

use std::collections::{BTreeMap, BTreeSet};

use super::values::{Observed, Place, Seen, SiteValues};
use super::{esc, prose};
use crate::model::{Ranked, Report};

/// Files longer than this show only the lines around their suspects.
const WHOLE_FILE_LINES: usize = 400;
/// Lines shown around a suspect's line in a long file.
const AROUND: u32 = 12;

/// A file's lines, and what is known of them.
pub struct Listing<'a> {
    pub path: &'a str,
    /// Its text as analysed.
    pub text: String,
    /// Its suspects, best first.
    pub suspects: Vec<&'a Ranked>,
    /// Index of the file on the page (the lines' ids).
    pub index: usize,
}

/// The anchor of line `line` of the `index`th file.
pub fn anchor(index: usize, line: u32) -> String {
    format!("f{index}-{line}")
}

/// The listing's section.
pub fn render(listing: &Listing, report: &Report, observed: &Observed) -> String {
    let top = report
        .suspects
        .first()
        .map_or(1.0, |s| s.score)
        .max(f64::EPSILON);
    let mut by_line: BTreeMap<u32, Vec<&Ranked>> = BTreeMap::new();
    for suspect in &listing.suspects {
        by_line.entry(suspect.line).or_default().push(suspect);
    }
    let empty = BTreeSet::new();
    let instrumented = observed.lines.get(listing.path).unwrap_or(&empty);
    let lines: Vec<&str> = listing.text.lines().collect();
    let shown = shown_lines(lines.len(), by_line.keys().copied());
    let mut out = format!(
        "<section class=\"file\" aria-labelledby=\"file-{i}\"><h3 id=\"file-{i}\">{}</h3>\
         <div class=\"source\">",
        esc(listing.path),
        i = listing.index
    );
    let mut previous = 0u32;
    for (k, text) in lines.iter().enumerate() {
        let n = k as u32 + 1;
        if !shown.contains(&n) {
            continue;
        }
        if n > previous + 1 {
            out.push_str(&format!(
                "<div class=\"gap\">⋯ lines {}–{} not shown</div>",
                previous + 1,
                n - 1
            ));
        }
        previous = n;
        let id = anchor(listing.index, n);
        match by_line.get(&n) {
            Some(suspects) => out.push_str(&suspect_line(
                listing, n, text, suspects, top, &id, observed,
            )),
            None => {
                let class = if instrumented.contains(&n) {
                    "line instrumented"
                } else {
                    "line"
                };
                out.push_str(&format!(
                    "<div class=\"{class}\" id=\"{id}\"><span class=\"ln\">{n}\
                     </span><span class=\"rank\"></span><span class=\"score\"></span>\
                     <code>{}</code></div>",
                    esc(text)
                ));
            }
        }
    }
    if lines.len() as u32 > previous {
        out.push_str(&format!(
            "<div class=\"gap\">⋯ lines {}–{} not shown</div>",
            previous + 1,
            lines.len()
        ));
    }
    out.push_str("</div></section>");
    out
}

/// The lines a listing shows: all of a short file, the lines around the suspects of a long
/// one.
fn shown_lines(count: usize, suspect_lines: impl Iterator<Item = u32>) -> BTreeSet<u32> {
    if count <= WHOLE_FILE_LINES {
        return (1..=count as u32).collect();
    }
    suspect_lines
        .flat_map(|l| l.saturating_sub(AROUND).max(1)..=(l + AROUND).min(count as u32))
        .collect()
}

/// A suspect's line: a `<details>` whose summary is the line (number, rank, score, code) and
/// whose body is the evidence and the values.
fn suspect_line(
    listing: &Listing,
    n: u32,
    text: &str,
    suspects: &[&Ranked],
    top: f64,
    id: &str,
    observed: &Observed,
) -> String {
    let best = suspects[0];
    let heat = (best.score / top).clamp(0.0, 1.0);
    let is_top = best.rank == 1;
    let mut body = String::new();
    for suspect in suspects {
        body.push_str(&evidence(suspect));
        let place: Place = (suspect.file.clone(), suspect.line, suspect.column);
        if let Some(values) = observed.values.get(&place) {
            body.push_str(&values_html(values));
        }
    }
    format!(
        "<details class=\"line suspect{top_class}\" id=\"{id}\" \
         data-file=\"{file}\" data-line=\"{n}\" data-rank=\"{rank}\" data-score=\"{score:.3}\" \
         style=\"--heat-bg: {bg}\"{open}><summary><span class=\"ln\">{n}</span>\
         <span class=\"rank\" title=\"rank {rank} of {total}\">#{rank}{top_label}</span>\
         <span class=\"score\" title=\"merged score\">{score:.2}</span><code>{code}</code>\
         </summary><div class=\"evidence\">{body}</div></details>",
        top_class = if is_top { " top" } else { "" },
        file = esc(listing.path),
        rank = best.rank,
        total = listing.suspects.len().max(best.rank),
        score = best.score,
        bg = heat_colour(heat),
        open = if is_top { " open" } else { "" },
        top_label = if is_top { " <strong>top</strong>" } else { "" },
        code = esc(text),
    )
}

/// A light colour from green (0) through yellow to red (1), with dark text readable on it.
pub fn heat_colour(heat: f64) -> String {
    format!(
        "hsl({:.0} 85% {:.0}%)",
        120.0 * (1.0 - heat),
        88.0 - 10.0 * heat
    )
}

/// One suspect's evidence in words, one technique per item.
fn evidence(suspect: &Ranked) -> String {
    let mut out = format!(
        "<p class=\"site\">#{} <code>{}</code> ({}, in <code>{}</code>, column {}), \
         merged score {:.2}</p><ul class=\"techniques\">",
        suspect.rank,
        esc(&suspect.code),
        esc(&format!("{:?}", suspect.kind).to_lowercase()),
        esc(&suspect.function),
        suspect.column,
        suspect.score
    );
    for t in &suspect.techniques {
        out.push_str(&format!(
            "<li><strong>{}</strong> ({:.2}): {}</li>",
            esc(t.technique),
            t.score,
            prose(&t.detail)
        ));
    }
    out.push_str("</ul>");
    out
}

/// The values in the failing call beside those in accepted calls.
fn values_html(values: &SiteValues) -> String {
    let side = |title: &str, class: &str, seen: &[Seen]| {
        let mut out = format!("<div class=\"{class}\"><h4>{title}</h4>");
        if seen.is_empty() {
            out.push_str("<p>not reached</p>");
        }
        for s in seen {
            out.push_str(&format!(
                "<p><code>{}</code> <span class=\"test\">in {}</span></p><ol>",
                esc(&s.call),
                esc(&s.test)
            ));
            for instance in &s.instances {
                out.push_str(&format!("<li><code>{}</code></li>", esc(instance)));
            }
            if s.more > 0 {
                out.push_str(&format!("<li class=\"more\">… {} more</li>", s.more));
            }
            out.push_str("</ol>");
        }
        out.push_str("</div>");
        out
    };
    format!(
        "<div class=\"values\">{}{}</div>",
        side("In the failing call", "failing", &values.failing),
        side("In calls the tests accepted", "accepted", &values.accepted)
    )
}
