//! A fix as a side-by-side diff: the file before on the left, after on the right, three
//! lines of context, the changed characters of a changed line marked.

use super::esc;
use crate::model::FileChange;

/// Lines of context around a change.
const CONTEXT: usize = 3;

/// The side-by-side table of one changed file.
pub fn side_by_side(change: &FileChange) -> String {
    let before: Vec<&str> = change.before.lines().collect();
    let after: Vec<&str> = change.after.lines().collect();
    let diff = similar::TextDiff::configure()
        .algorithm(similar::Algorithm::Myers)
        .diff_slices(&before, &after);
    let mut out = format!(
        "<table class=\"diff\" data-file=\"{}\"><caption>{}</caption>\
         <thead><tr><th scope=\"col\">line</th><th scope=\"col\">before</th>\
         <th scope=\"col\">line</th><th scope=\"col\">after</th></tr></thead><tbody>",
        esc(&change.path),
        esc(&change.path)
    );
    for group in diff.grouped_ops(CONTEXT) {
        let (Some(first), Some(last)) = (group.first(), group.last()) else {
            continue;
        };
        out.push_str(&format!(
            "<tr class=\"hunk\"><td colspan=\"4\">lines {}–{} before, {}–{} after</td></tr>",
            first.old_range().start + 1,
            last.old_range().end,
            first.new_range().start + 1,
            last.new_range().end
        ));
        for op in &group {
            let (old, new) = (op.old_range(), op.new_range());
            let rows = old.len().max(new.len());
            for k in 0..rows {
                let left = (k < old.len()).then(|| (old.start + k, before[old.start + k]));
                let right = (k < new.len()).then(|| (new.start + k, after[new.start + k]));
                out.push_str(&row(left, right));
            }
        }
    }
    out.push_str("</tbody></table>");
    out
}

/// One row: a line before and a line after (either may be missing).
fn row(left: Option<(usize, &str)>, right: Option<(usize, &str)>) -> String {
    let same = matches!((left, right), (Some((_, a)), Some((_, b))) if a == b);
    let (old_text, new_text) = match (left, right) {
        (Some((_, a)), Some((_, b))) if !same => marked(a, b),
        _ => (
            left.map(|(_, t)| esc(t)).unwrap_or_default(),
            right.map(|(_, t)| esc(t)).unwrap_or_default(),
        ),
    };
    let cell = |side: Option<(usize, &str)>, text: String, class: &str, sign: &str| match side {
        Some((n, _)) if same => format!(
            "<td class=\"ln\">{}</td><td class=\"ctx\"><code>{text}</code></td>",
            n + 1
        ),
        Some((n, _)) => format!(
            "<td class=\"ln\">{}</td><td class=\"{class}\"><span class=\"sign\" \
             aria-label=\"{class}\">{sign}</span><code>{text}</code></td>",
            n + 1
        ),
        None => "<td class=\"ln\"></td><td class=\"none\"></td>".to_string(),
    };
    format!(
        "<tr>{}{}</tr>",
        cell(left, old_text, "del", "−"),
        cell(right, new_text, "ins", "+")
    )
}

/// Both lines escaped, the part between their common prefix and suffix marked
/// (`<del>`/`<ins>`).
fn marked(a: &str, b: &str) -> (String, String) {
    let prefix = a
        .char_indices()
        .zip(b.chars())
        .take_while(|((_, x), y)| x == y)
        .last()
        .map_or(0, |((i, c), _)| i + c.len_utf8());
    let (a_rest, b_rest) = (&a[prefix..], &b[prefix..]);
    let suffix = a_rest
        .chars()
        .rev()
        .zip(b_rest.chars().rev())
        .take_while(|(x, y)| x == y)
        .map(|(x, _)| x.len_utf8())
        .sum::<usize>();
    let suffix = suffix.min(a_rest.len()).min(b_rest.len());
    let split = |s: &str, tag: &str| {
        let rest = &s[prefix..];
        let (mid, end) = rest.split_at(rest.len() - suffix);
        let mid = if mid.is_empty() {
            String::new()
        } else {
            format!("<{tag}>{}</{tag}>", esc(mid))
        };
        format!("{}{mid}{}", esc(&s[..prefix]), esc(end))
    };
    (split(a, "del"), split(b, "ins"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_line_marks_what_changed_and_escapes_the_rest() {
        let (a, b) = marked("if s > a[i] && x<y {", "if s < a[i] && x<y {");
        assert_eq!(a, "if s <del>&gt;</del> a[i] &amp;&amp; x&lt;y {");
        assert_eq!(b, "if s <ins>&lt;</ins> a[i] &amp;&amp; x&lt;y {");
        let (a, b) = marked("x += 1;", "x += 11;");
        assert_eq!((a.as_str(), b.as_str()), ("x += 1;", "x += 1<ins>1</ins>;"));
    }

    #[test]
    fn the_table_has_the_change_beside_its_context() {
        let change = FileChange {
            path: "src/lib.rs".into(),
            before: "a\nb\nc\n".into(),
            after: "a\nB\nc\n".into(),
        };
        let table = side_by_side(&change);
        assert!(
            table.contains("<td class=\"ln\">2</td><td class=\"del\">"),
            "{table}"
        );
        assert!(table.contains("<ins>B</ins>"), "{table}");
        assert!(
            table.contains("<td class=\"ctx\"><code>a</code>"),
            "{table}"
        );
    }
}
