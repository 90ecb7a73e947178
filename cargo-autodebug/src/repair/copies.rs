//! The same code in several functions. A fault written once and copied (a method and its
//! `_exact` twin, the 32- and 128-bit versions of one function, the `next` of each of a
//! crate's iterators) is in every copy, and a person fixes every copy: the failing tests of
//! each copy fail until all are fixed, so no edit of one copy passes them. A target's
//! copies are the sites of the same kind and the same code (whitespace aside) in other
//! functions that some test reached (or that are targets), when there are at most [`MAX`] of
//! them (more is an idiom, not a copy), and the code is more than a name, a literal or a
//! short operation ([`copied_code`]). Every single edit of such a target is also proposed at
//! all its copies at once, right before the edit alone: checked by rerun when the runtime
//! can evaluate it at every copy, rebuilt otherwise. The copies that are not targets
//! themselves become targets that no source is asked about.

use std::collections::{BTreeMap, BTreeSet};

use autodebug_runtime::protocol::{SiteInfo, SiteKey};

use super::{Candidate, Context, Files, Target, patch};
use crate::trace::workspace_path;

/// Copies a site may have (beyond this, the code is an idiom of the crate).
pub const MAX: usize = 4;

/// Characters (whitespace aside) the code of a copied site has at least.
const MIN_CHARS: usize = 10;

/// The copies of the targets, by the key of the target whose copies they are.
pub type Copies = BTreeMap<SiteKey, Vec<SiteKey>>;

/// The copies of `targets` and the targets to add for those that are not targets yet (each
/// found in its file as read into `files`; one that cannot be is no copy). The new targets
/// take the rank and the localizing techniques of the target they copy.
pub fn find(context: &Context, targets: &[Target], files: &mut Files) -> (Copies, Vec<Target>) {
    // The sites some test reached: a site whose code panicked is in no coverage (its hook
    // comes after its code), but it is a target when the panic made it a suspect.
    let reached: BTreeMap<SiteKey, &SiteInfo> = (context.baseline.iter())
        .flat_map(|result| result.coverage.values())
        .chain(context.traces.iter().flat_map(|t| t.trace.sites.values()))
        .chain(targets.iter().map(|t| &t.site))
        .map(|site| (site.key(), site))
        .collect();
    let known: BTreeSet<SiteKey> = targets.iter().map(|t| t.site.key()).collect();
    let mut copies = Copies::new();
    let mut added: Vec<Target> = Vec::new();
    for target in targets {
        if !copied_code(&target.site.code) {
            continue;
        }
        let code = patch::squeeze(&target.site.code);
        let same: Vec<&SiteInfo> = (reached.values())
            .filter(|s| {
                s.kind == target.site.kind
                    && s.function != target.site.function
                    && patch::squeeze(&s.code) == code
            })
            .copied()
            .collect();
        if same.is_empty() || same.len() > MAX {
            continue;
        }
        let mut keys = Vec::new();
        for site in same {
            let key = site.key();
            let is_target = known.contains(&key) || added.iter().any(|t| t.site.key() == key);
            if !is_target {
                let path = workspace_path(context.workspace_root, &site.file);
                let Ok(text) = files.read(context.workspace_root, &path) else {
                    continue;
                };
                let Ok(located) = patch::locate(text, site) else {
                    continue;
                };
                added.push(Target {
                    types: super::types(context.traces, site),
                    site: site.clone(),
                    path,
                    located,
                    rank: target.rank,
                    localized_by: target.localized_by.clone(),
                });
            }
            keys.push(key);
        }
        if !keys.is_empty() {
            copies.insert(target.site.key(), keys);
        }
    }
    (copies, added)
}

/// Whether `code` is worth looking for elsewhere as a copy: at least [`MIN_CHARS`]
/// characters, and an operation or a call (not a name, a field or a literal).
pub fn copied_code(code: &str) -> bool {
    code.chars().filter(|c| !c.is_whitespace()).count() >= MIN_CHARS
        && syn::parse_str::<syn::Expr>(code).is_ok_and(|e| {
            !matches!(
                e,
                syn::Expr::Path(_) | syn::Expr::Field(_) | syn::Expr::Lit(_)
            )
        })
}

/// `candidate` (one edit of a site's own code) made at every copy of its site too, its
/// edits in site order; `None` when it is another kind of candidate or its site has no
/// copies.
pub fn at_every_copy(candidate: &Candidate, copies: &Copies) -> Option<Candidate> {
    let [edit] = candidate.edits.as_slice() else {
        return None;
    };
    if edit.statement.is_some() {
        return None;
    }
    let others = copies.get(&edit.site)?;
    let mut edits = vec![edit.clone()];
    edits.extend(others.iter().map(|site| super::CandidateEdit {
        site: site.clone(),
        ..edit.clone()
    }));
    edits.sort_by(|a, b| a.site.cmp(&b.site));
    Some(Candidate {
        edits,
        ..candidate.clone()
    })
}

/// The number of different changes among a candidate's edits: the same change at every
/// copy of a site is one.
pub fn changes(candidate: &Candidate) -> usize {
    let mut seen: Vec<(&Option<std::ops::Range<usize>>, String)> = Vec::new();
    for edit in &candidate.edits {
        let key = (&edit.statement, patch::squeeze(&edit.rust));
        if !seen.contains(&key) {
            seen.push(key);
        }
    }
    seen.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repair::CandidateEdit;
    use autodebug_runtime::protocol::SiteKind;

    fn key(line: u32) -> SiteKey {
        SiteKey {
            file: "src/lib.rs".into(),
            line,
            column: 8,
            kind: SiteKind::If,
        }
    }

    fn edit(line: u32, rust: &str) -> CandidateEdit {
        CandidateEdit {
            site: key(line),
            rust: rust.into(),
            expr: None,
            statement: None,
        }
    }

    fn candidate(edits: Vec<CandidateEdit>) -> Candidate {
        Candidate {
            edits,
            template: "overflow".into(),
            cost: 1,
            source: "overflow",
        }
    }

    #[test]
    fn an_edit_of_a_copied_site_is_made_at_every_copy_in_site_order() {
        let copies = Copies::from([(key(38), vec![key(23)])]);
        let single = candidate(vec![edit(38, "mask.checked_shl(prefix).unwrap_or(0) == 0")]);
        let every = at_every_copy(&single, &copies).expect("the site has a copy");
        let sites: Vec<u32> = every.edits.iter().map(|e| e.site.line).collect();
        assert_eq!(sites, [23, 38]);
        assert!(every.edits.iter().all(|e| e.rust == single.edits[0].rust));
        assert_eq!(changes(&every), 1);
        // A site without copies, and a candidate of two different edits, get none.
        assert!(at_every_copy(&candidate(vec![edit(23, "x")]), &copies).is_none());
        let two = candidate(vec![edit(38, "a"), edit(23, "b")]);
        assert!(at_every_copy(&two, &copies).is_none());
        assert_eq!(changes(&two), 2);
    }

    #[test]
    fn a_name_a_literal_or_a_short_operation_is_no_copy() {
        assert!(copied_code("(mask << prefix) == 0"));
        assert!(copied_code("self.len + additional - self.entries.len()"));
        assert!(copied_code("self.size_hint.saturating_sub(1)"));
        assert!(!copied_code("self.entries.len_of_all"));
        assert!(!copied_code("i + 1 < n"));
        assert!(!copied_code("\"a long string literal\""));
    }
}
