//! The plan a process obeys (`AUTODEBUG_PLAN`): loaded and checked once, then split per site
//! when a site is first reached, so that the hooks look at a short list of instances instead
//! of hashing a site key on every call.

use crate::protocol::{PLAN_VERSION, Plan, SiteKey, Value};
use std::collections::HashMap;
use std::path::Path;

/// A loaded plan, indexed by site.
#[derive(Default, Debug)]
pub(crate) struct PlanIndex {
    by_site: HashMap<SiteKey, SitePlan>,
    /// Budget of branch/iteration/component hook calls.
    pub(crate) fuel: Option<u64>,
}

/// What the plan asks of one site. `None` instances mean every instance.
#[derive(Default, Clone, Debug)]
pub(crate) struct SitePlan {
    flips: Vec<Option<u32>>,
    overrides: Vec<(Option<u32>, Value)>,
}

impl SitePlan {
    /// Whether instance `instance` of this branch site is flipped.
    pub(crate) fn flips(&self, instance: u32) -> bool {
        self.flips.iter().any(|t| t.is_none_or(|i| i == instance))
    }

    /// The value instance `instance` of this component site takes, if overridden. A target
    /// naming the instance wins over one naming every instance.
    pub(crate) fn override_for(&self, instance: u32) -> Option<&Value> {
        let exact = self.overrides.iter().find(|(t, _)| *t == Some(instance));
        exact
            .or_else(|| self.overrides.iter().find(|(t, _)| t.is_none()))
            .map(|(_, v)| v)
    }
}

impl PlanIndex {
    /// Reads and checks the plan file at `path`. The error names the file and what is wrong.
    pub(crate) fn load(path: &Path) -> Result<PlanIndex, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read the plan file {}: {e}", path.display()))?;
        let plan: Plan = serde_json::from_str(&text)
            .map_err(|e| format!("malformed plan file {}: {e}", path.display()))?;
        PlanIndex::new(plan).map_err(|e| format!("invalid plan file {}: {e}", path.display()))
    }

    /// Indexes `plan`, refusing targets that could never apply (a flip of a non-branch site,
    /// an override of a non-component site, an unknown version): a plan that silently does
    /// nothing would be taken for a run that changed nothing.
    pub(crate) fn new(plan: Plan) -> Result<PlanIndex, String> {
        if plan.version != PLAN_VERSION {
            return Err(format!(
                "plan version {} is not supported (expected {PLAN_VERSION})",
                plan.version
            ));
        }
        let mut by_site: HashMap<SiteKey, SitePlan> = HashMap::new();
        for flip in plan.flips {
            if !flip.site.kind.is_branch() {
                return Err(format!(
                    "flip of a site that is not a branch: {:?}",
                    flip.site
                ));
            }
            by_site
                .entry(flip.site)
                .or_default()
                .flips
                .push(flip.instance);
        }
        for o in plan.overrides {
            if !o.target.site.kind.is_component() {
                return Err(format!(
                    "override of a site that is not a component: {:?}",
                    o.target.site
                ));
            }
            let entry = by_site.entry(o.target.site).or_default();
            entry.overrides.push((o.target.instance, o.value));
        }
        Ok(PlanIndex {
            by_site,
            fuel: plan.fuel,
        })
    }

    /// What the plan asks of the site `key` (nothing for most sites).
    /// Whether the plan asks nothing of any site (it may still carry fuel).
    pub(crate) fn is_empty(&self) -> bool {
        self.by_site.is_empty()
    }

    pub(crate) fn for_site(&self, key: &SiteKey) -> SitePlan {
        self.by_site.get(key).cloned().unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{Override, SiteKind, Target};

    fn key(line: u32, kind: SiteKind) -> SiteKey {
        SiteKey {
            file: "src/lib.rs".into(),
            line,
            column: 5,
            kind,
        }
    }

    fn target(line: u32, kind: SiteKind, instance: Option<u32>) -> Target {
        Target {
            site: key(line, kind),
            instance,
        }
    }

    fn int(v: i128) -> Value {
        Value::Int {
            ty: "i32".into(),
            v,
        }
    }

    #[test]
    fn flips_and_overrides_are_split_per_site() {
        let plan = Plan {
            version: PLAN_VERSION,
            flips: vec![
                target(3, SiteKind::If, Some(2)),
                target(4, SiteKind::While, None),
            ],
            overrides: vec![
                Override {
                    target: target(5, SiteKind::Let, None),
                    value: int(1),
                },
                Override {
                    target: target(5, SiteKind::Let, Some(3)),
                    value: int(2),
                },
            ],
            fuel: Some(9),
            replacements: vec![],
        };
        let index = PlanIndex::new(plan).unwrap();
        assert_eq!(index.fuel, Some(9));
        let if3 = index.for_site(&key(3, SiteKind::If));
        assert!(!if3.flips(1) && if3.flips(2) && !if3.flips(3));
        let while4 = index.for_site(&key(4, SiteKind::While));
        assert!(while4.flips(0) && while4.flips(100));
        // Same position, other kind: another site.
        assert!(!index.for_site(&key(3, SiteKind::While)).flips(2));
        let let5 = index.for_site(&key(5, SiteKind::Let));
        assert_eq!(let5.override_for(0), Some(&int(1)));
        assert_eq!(let5.override_for(3), Some(&int(2)));
        assert_eq!(index.for_site(&key(6, SiteKind::Let)).override_for(0), None);
    }

    #[test]
    fn impossible_targets_are_refused() {
        let flip_let = Plan {
            version: PLAN_VERSION,
            flips: vec![target(3, SiteKind::Let, None)],
            ..Plan::default()
        };
        assert!(
            PlanIndex::new(flip_let)
                .unwrap_err()
                .contains("not a branch")
        );
        let override_if = Plan {
            version: PLAN_VERSION,
            overrides: vec![Override {
                target: target(3, SiteKind::If, None),
                value: int(1),
            }],
            ..Plan::default()
        };
        assert!(
            PlanIndex::new(override_if)
                .unwrap_err()
                .contains("not a component")
        );
        let future = Plan {
            version: PLAN_VERSION + 1,
            ..Plan::default()
        };
        assert!(
            PlanIndex::new(future)
                .unwrap_err()
                .contains("not supported")
        );
    }

    #[test]
    fn load_names_the_file_and_the_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("plan.json");
        std::fs::write(&path, r#"{"version": 1, "flips": [{"site": 3}]}"#).unwrap();
        let err = PlanIndex::load(&path).unwrap_err();
        assert!(
            err.contains("malformed plan file") && err.contains("plan.json"),
            "{err}"
        );
        assert!(err.contains("line 1"), "{err}");
        let missing = dir.path().join("missing.json");
        let err = PlanIndex::load(&missing).unwrap_err();
        assert!(
            err.contains("cannot read") && err.contains("missing.json"),
            "{err}"
        );
        let ok = r#"{"version": 1, "flips": [{"site": {"file": "a.rs", "line": 1, "column": 2, "kind": "if"}}], "fuel": 5}"#;
        std::fs::write(&path, ok).unwrap();
        let index = PlanIndex::load(&path).unwrap();
        let site = SiteKey {
            file: "a.rs".into(),
            line: 1,
            column: 2,
            kind: SiteKind::If,
        };
        assert!(index.for_site(&site).flips(7));
        assert_eq!(index.fuel, Some(5));
    }
}
