//! The plan a process obeys (`AUTODEBUG_PLAN`): loaded and checked once, then split per site
//! when a site is first reached, so that the hooks look at a short list of instances instead
//! of hashing a site key on every call. Replacement expressions are compiled here, once per
//! plan, and shared by reference with the sites (and the batch runs) that use them.

use crate::expr::Candidate;
use crate::protocol::{PLAN_VERSION, Plan, SiteKey, SiteKind, Value};
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

/// A loaded plan, indexed by site.
#[derive(Default, Debug)]
pub(crate) struct PlanIndex {
    by_site: HashMap<SiteKey, SitePlan>,
    /// Budget of branch/iteration/component hook calls.
    pub(crate) fuel: Option<u64>,
    /// Whether the plan replaces arguments (the entry hooks look only then).
    pub(crate) arguments: bool,
    /// Whether a failed assertion of a wrapped test lets the test go on
    /// ([`crate::protocol::Plan::soft_assertions`]).
    pub(crate) soft_assertions: bool,
}

/// What the plan asks of one site. `None` instances mean every instance.
#[derive(Default, Clone, Debug)]
pub(crate) struct SitePlan {
    flips: Vec<Option<u32>>,
    overrides: Vec<(Option<u32>, Value)>,
    replacements: Vec<(Option<u32>, Arc<Candidate>)>,
    /// Arguments of a function entry: the call, the parameter and its value.
    arguments: Vec<(Option<u32>, String, Value)>,
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

    /// The expression that replaces the code at instance `instance` of this site, if any. A
    /// target naming the instance wins over one naming every instance.
    pub(crate) fn replacement_for(&self, instance: u32) -> Option<&Arc<Candidate>> {
        let exact = self.replacements.iter().find(|(t, _)| *t == Some(instance));
        exact
            .or_else(|| self.replacements.iter().find(|(t, _)| t.is_none()))
            .map(|(_, c)| c)
    }
}

impl SitePlan {
    /// Whether this function entry's arguments are replaced at some call.
    pub(crate) fn replaces_arguments(&self) -> bool {
        !self.arguments.is_empty()
    }

    /// The value parameter `name` takes at call `call` of this function, if replaced. A
    /// target naming the call wins over one naming every call.
    pub(crate) fn argument_for(&self, call: u32, name: &str) -> Option<&Value> {
        let of = |c: Option<u32>| {
            self.arguments
                .iter()
                .find(|(t, n, _)| *t == c && n == name)
                .map(|(_, _, v)| v)
        };
        of(Some(call)).or_else(|| of(None))
    }

    /// The parameters this plan replaces at call `call`, by name.
    pub(crate) fn argument_names(&self, call: u32) -> impl Iterator<Item = &str> {
        self.arguments
            .iter()
            .filter(move |(t, _, _)| t.is_none_or(|t| t == call))
            .map(|(_, n, _)| n.as_str())
    }
}

impl PlanIndex {
    /// Reads and checks the plan file at `path`. The error names the file and what is wrong.
    pub(crate) fn load(path: &Path) -> Result<PlanIndex, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read the plan file {}: {e}", path.display()))?;
        let plan: Plan = crate::json::from_str(&text)
            .map_err(|e| format!("malformed plan file {}: {e}", path.display()))?;
        PlanIndex::new(plan).map_err(|e| format!("invalid plan file {}: {e}", path.display()))
    }

    /// Indexes `plan`, refusing targets that could never apply (a flip of a non-branch site,
    /// an override of a non-component site, a replacement of a site that is neither, an
    /// unknown version) and replacements that could never be evaluated (see
    /// [`Candidate::compile`]; an operand read at a component site) or that compete for one
    /// instance: a plan that silently does
    /// nothing would be taken for a run that changed nothing. Type errors that depend on the
    /// site's values are found when the site is reached.
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
        for r in plan.replacements {
            let site = r.target.site;
            if !site.kind.is_branch() && !site.kind.is_component() {
                return Err(format!(
                    "replacement of a site that is neither a branch nor a component: {site:?}"
                ));
            }
            let candidate = Candidate::compile(&r.expr)
                .map_err(|e| format!("replacement of {site:?} holds {e}"))?;
            if candidate.reads_operands() && !site.kind.is_branch() {
                return Err(format!(
                    "replacement of {site:?} reads an operand, which only a branch site \
                     reports (the two sides of its comparison)"
                ));
            }
            let entry = by_site.entry(site.clone()).or_default();
            if entry
                .replacements
                .iter()
                .any(|(t, _)| *t == r.target.instance)
            {
                return Err(format!(
                    "two replacements of {site:?} at instance {:?}",
                    r.target.instance
                ));
            }
            entry
                .replacements
                .push((r.target.instance, Arc::new(candidate)));
        }
        let arguments = !plan.arguments.is_empty();
        for a in plan.arguments {
            let site = a.target.site;
            if site.kind != SiteKind::Fn {
                return Err(format!(
                    "argument `{}` replaced at a site that is not a function entry: {site:?}",
                    a.name
                ));
            }
            let entry = by_site.entry(site.clone()).or_default();
            if entry
                .arguments
                .iter()
                .any(|(t, n, _)| *t == a.target.instance && *n == a.name)
            {
                return Err(format!(
                    "argument `{}` of {site:?} replaced twice at call {:?}",
                    a.name, a.target.instance
                ));
            }
            entry.arguments.push((a.target.instance, a.name, a.value));
        }
        Ok(PlanIndex {
            by_site,
            fuel: plan.fuel,
            arguments,
            soft_assertions: plan.soft_assertions,
        })
    }

    /// Whether the plan asks nothing of any site (it may still carry fuel).
    pub(crate) fn is_empty(&self) -> bool {
        self.by_site.is_empty()
    }

    /// What the plan asks of the site `key` (nothing for most sites).
    pub(crate) fn for_site(&self, key: &SiteKey) -> SitePlan {
        self.by_site.get(key).cloned().unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::scalar::{Scalar, Ty};
    use crate::protocol::{BinOp, Expr, Override, Replacement, SiteKind, Target};

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
    fn arguments_are_indexed_by_entry_call_and_name() {
        use crate::protocol::Argument;
        let arg = |kind, instance, name: &str, v| Argument {
            target: target(3, kind, instance),
            name: name.into(),
            value: int(v),
        };
        let plan = Plan {
            version: PLAN_VERSION,
            arguments: vec![
                arg(SiteKind::Fn, None, "x", 1),
                arg(SiteKind::Fn, Some(2), "x", 2),
                arg(SiteKind::Fn, Some(2), "y", 3),
            ],
            ..Plan::default()
        };
        let index = PlanIndex::new(plan).unwrap();
        assert!(index.arguments);
        let f = index.for_site(&key(3, SiteKind::Fn));
        assert!(f.replaces_arguments());
        assert_eq!(f.argument_for(0, "x"), Some(&int(1)));
        assert_eq!(f.argument_for(2, "x"), Some(&int(2)));
        assert_eq!(f.argument_for(0, "y"), None);
        assert_eq!(f.argument_names(2).collect::<Vec<_>>(), ["x", "x", "y"]);
        let not_entry = Plan {
            version: PLAN_VERSION,
            arguments: vec![arg(SiteKind::Let, None, "x", 1)],
            ..Plan::default()
        };
        let err = PlanIndex::new(not_entry).unwrap_err();
        assert!(err.contains("not a function entry"), "{err}");
        let twice = Plan {
            version: PLAN_VERSION,
            arguments: vec![
                arg(SiteKind::Fn, Some(1), "x", 1),
                arg(SiteKind::Fn, Some(1), "x", 2),
            ],
            ..Plan::default()
        };
        assert!(PlanIndex::new(twice).unwrap_err().contains("twice"));
        assert!(
            !PlanIndex::new(Plan {
                version: PLAN_VERSION,
                ..Plan::default()
            })
            .unwrap()
            .arguments
        );
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
            arguments: Vec::new(),
            soft_assertions: false,
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

    fn replacement(line: u32, kind: SiteKind, instance: Option<u32>, expr: Expr) -> Replacement {
        Replacement {
            target: target(line, kind, instance),
            expr,
        }
    }

    fn lit(v: i128) -> Expr {
        Expr::Lit { value: int(v) }
    }

    /// The value the candidate at `instance` of `site` gives with nothing in scope.
    fn constant(site: &SitePlan, instance: u32) -> Option<Scalar> {
        let candidate = site.replacement_for(instance)?;
        Some(
            candidate
                .evaluate::<Value>(Err("-"), &[], &[], Ty::Int(crate::expr::scalar::IntTy::I32))
                .unwrap(),
        )
    }

    #[test]
    fn replacements_are_compiled_and_split_per_site() {
        let plan = Plan {
            version: PLAN_VERSION,
            replacements: vec![
                replacement(5, SiteKind::Assign, None, lit(1)),
                replacement(5, SiteKind::Assign, Some(3), lit(2)),
                replacement(
                    6,
                    SiteKind::If,
                    Some(0),
                    Expr::Binary {
                        op: BinOp::Le,
                        left: Box::new(Expr::Var { name: "x".into() }),
                        right: Box::new(lit(4)),
                    },
                ),
            ],
            ..Plan::default()
        };
        let index = PlanIndex::new(plan).unwrap();
        assert!(!index.is_empty());
        let assign = index.for_site(&key(5, SiteKind::Assign));
        let one = Some(Scalar::Int(crate::expr::scalar::IntTy::I32, 1));
        let two = Some(Scalar::Int(crate::expr::scalar::IntTy::I32, 2));
        assert_eq!(constant(&assign, 0), one);
        assert_eq!(constant(&assign, 3), two, "the exact instance wins");
        assert_eq!(constant(&assign, 4), one);
        let cond = index.for_site(&key(6, SiteKind::If));
        assert!(cond.replacement_for(0).unwrap().reads_scope());
        assert!(cond.replacement_for(1).is_none());
        assert!(
            index
                .for_site(&key(5, SiteKind::Let))
                .replacement_for(0)
                .is_none()
        );
    }

    #[test]
    fn impossible_replacements_are_refused() {
        for kind in [
            SiteKind::Fn,
            SiteKind::Loop,
            SiteKind::Requires,
            SiteKind::Ensures,
            SiteKind::Invariant,
        ] {
            let plan = Plan {
                version: PLAN_VERSION,
                replacements: vec![replacement(3, kind, None, lit(1))],
                ..Plan::default()
            };
            let err = PlanIndex::new(plan).unwrap_err();
            assert!(
                err.contains("neither a branch nor a component"),
                "{kind:?}: {err}"
            );
        }
        let out_of_range = Plan {
            version: PLAN_VERSION,
            replacements: vec![replacement(
                3,
                SiteKind::Return,
                None,
                Expr::Lit {
                    value: Value::Int {
                        ty: "u8".into(),
                        v: 300,
                    },
                },
            )],
            ..Plan::default()
        };
        let err = PlanIndex::new(out_of_range).unwrap_err();
        assert!(err.contains("out of the range of `u8`"), "{err}");
        let twice = Plan {
            version: PLAN_VERSION,
            replacements: vec![
                replacement(3, SiteKind::Let, Some(1), lit(1)),
                replacement(3, SiteKind::Let, Some(1), lit(2)),
            ],
            ..Plan::default()
        };
        let err = PlanIndex::new(twice).unwrap_err();
        assert!(err.contains("two replacements"), "{err}");
        // Only branch sites report operands.
        let operand = Expr::Binary {
            op: BinOp::Add,
            left: Box::new(Expr::Operand { index: 0 }),
            right: Box::new(lit(1)),
        };
        for kind in [
            SiteKind::Let,
            SiteKind::Assign,
            SiteKind::Return,
            SiteKind::Bound,
        ] {
            let plan = Plan {
                version: PLAN_VERSION,
                replacements: vec![replacement(3, kind, None, operand.clone())],
                ..Plan::default()
            };
            let err = PlanIndex::new(plan).unwrap_err();
            assert!(err.contains("reads an operand"), "{kind:?}: {err}");
        }
        for kind in [
            SiteKind::If,
            SiteKind::While,
            SiteKind::Guard,
            SiteKind::Operand,
        ] {
            let plan = Plan {
                version: PLAN_VERSION,
                replacements: vec![replacement(
                    3,
                    kind,
                    None,
                    Expr::Binary {
                        op: BinOp::Ge,
                        left: Box::new(Expr::Operand { index: 1 }),
                        right: Box::new(Expr::Operand { index: 0 }),
                    },
                )],
                ..Plan::default()
            };
            let index = PlanIndex::new(plan).unwrap();
            let candidate = index.for_site(&key(3, kind)).replacement_for(0).cloned();
            assert!(candidate.unwrap().reads_operands(), "{kind:?}");
        }
    }

    #[test]
    fn replacements_load_from_json() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("plan.json");
        let site = r#"{"file": "a.rs", "line": 1, "column": 2, "kind": "if"}"#;
        let expr = r#"{"e": "binary", "op": "lt",
            "left": {"e": "binary", "op": "add", "left": {"e": "var", "name": "a"},
                     "right": {"e": "lit", "value": {"int": {"ty": "i32", "v": 1}}}},
            "right": {"e": "var", "name": "b"}}"#;
        let text =
            format!(r#"{{"version": 1, "replacements": [{{"site": {site}, "expr": {expr}}}]}}"#);
        std::fs::write(&path, text).unwrap();
        let index = PlanIndex::load(&path).unwrap();
        let site = SiteKey {
            file: "a.rs".into(),
            line: 1,
            column: 2,
            kind: SiteKind::If,
        };
        let candidate = index.for_site(&site).replacement_for(9).cloned().unwrap();
        let scope = [("a", int(2)), ("b", int(3))];
        assert_eq!(
            candidate.evaluate(Ok(Scalar::Bool(true)), &[], &scope, Ty::Bool),
            Ok(Scalar::Bool(false))
        );
    }
}
