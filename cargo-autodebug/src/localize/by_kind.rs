//! A toy technique, kept as a test of the registry: it ranks the sites the failing tests ran
//! by their kind, conditions first. Making it took this file and the one registration line
//! in its test.

use anyhow::Result;

use super::registry::Registration;
use super::{Context, Localized, Suspect, Technique};
use crate::model::Evidence;
use crate::options::TechniqueName;

struct ByKind;

impl Technique for ByKind {
    fn name(&self) -> &'static str {
        "by-kind"
    }

    fn localize(&self, context: &Context, _notes: &mut Vec<String>) -> Result<Localized> {
        let mut suspects: Vec<Suspect> = context
            .baseline
            .iter()
            .filter(|b| b.deterministic_failure())
            .flat_map(|b| b.coverage.values())
            .map(|site| {
                let score = if site.kind.is_branch() { 1.0 } else { 0.5 };
                Suspect {
                    path: site.file.clone(),
                    evidence: vec![Evidence {
                        technique: "by-kind",
                        score,
                        detail: score.to_string(),
                    }],
                    site: site.clone(),
                }
            })
            .collect();
        suspects.sort_by(|a, b| b.evidence[0].score.total_cmp(&a.evidence[0].score));
        Ok(suspects.into())
    }
}

#[test]
fn a_technique_is_a_file_and_a_registration_line() {
    use autodebug_runtime::protocol::SiteKind;

    use crate::model::Outcome;

    let registered = [Registration {
        option: TechniqueName::Spectrum,
        weight: 1.0,
        make: |_| Box::new(ByKind),
    }];
    let site = |line, kind| {
        let site = super::tests::site(line, kind);
        (site.key(), site)
    };
    let failed = Outcome::Failed {
        message: "assertion failed".into(),
        location: None,
    };
    let baseline = [crate::baseline::BaselineResult {
        test: crate::model::TestId {
            package: "p".into(),
            target: "p".into(),
            kind: "lib".into(),
            name: "fails".into(),
            binary: Default::default(),
            package_root: Default::default(),
        },
        reruns: vec![failed.clone()],
        first: crate::engine::RunResult {
            outcome: failed,
            stdout: String::new(),
            stderr: String::new(),
            duration: Default::default(),
        },
        coverage: [site(2, SiteKind::Assign), site(3, SiteKind::If)].into(),
    }];
    let dir = tempfile::tempdir().unwrap();
    let options = crate::options::Options::parse_args(["cargo-autodebug"]).unwrap();
    let console = crate::console::Console::new(&options);
    let rerun = super::tests::idle_recorder(dir.path());
    let context = Context {
        workspace_root: dir.path(),
        user_root: dir.path(),
        baseline: &baseline,
        traces: &[],
        oracles: &[],
        rerun: &rerun,
        console: &console,
    };
    let found = super::localize_with(&registered, &context, &options, &console);
    let ranked: Vec<(usize, u32, &[String])> = found
        .suspects
        .iter()
        .map(|s| (s.rank, s.line, &s.evidence[..]))
        .collect();
    assert_eq!(
        ranked,
        [
            (1, 3, &["by-kind: 1".to_string()][..]),
            (2, 2, &["by-kind: 0.5".to_string()][..])
        ]
    );
}
