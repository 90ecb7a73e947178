//! The instrumented body reports what `cargo autodebug` needs: a child run of this test
//! binary records a trace, and the trace holds the sites (kind, code, line) and the events
//! with operand values and scope values. The trace is JSON lines; this crate has no JSON
//! parser among its dependencies, so the checks look for the serialized fragments.

use std::process::Command;

const CHILD: &str = "AUTODEBUG_MACROS_TEST_CHILD";
const FN_LINE: u32 = line!() + 2; // the line of `fn count_big`
#[autodebug_runtime::autodebug(always)]
fn count_big(xs: &[i32], limit: i32) -> usize {
    let mut n = 0;
    for i in 0..xs.len() {
        if xs[i] > limit && i > 0 {
            n += 1;
        }
    }
    n
}

#[test]
fn child() {
    if std::env::var_os(CHILD).is_none() {
        return;
    }
    println!("RESULT={}", count_big(&[5, 1, 9, 7], 4));
}

#[test]
fn trace_reports_sites_operands_and_scopes() {
    let trace = std::env::temp_dir().join(format!(
        "autodebug-macros-trace-{}.jsonl",
        std::process::id()
    ));
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["child", "--exact", "--nocapture"])
        .env(CHILD, "1")
        .env("AUTODEBUG_TRACE", &trace)
        .env_remove("AUTODEBUG_PLAN")
        .env_remove("AUTODEBUG_TRACE_MODE")
        .env_remove("AUTODEBUG_MAX_EVENTS")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("RESULT=2"));
    let text = std::fs::read_to_string(&trace).unwrap();
    let _ = std::fs::remove_file(&trace);
    let sites: Vec<&str> = text
        .lines()
        .filter(|l| l.contains(r#""r":"site""#))
        .collect();
    let has_site = |kind: &str, code: &str, line: u32| {
        sites.iter().any(|l| {
            l.contains(&format!(r#""kind":"{kind}""#))
                && l.contains(&format!(r#""code":"{code}""#))
                && l.contains(&format!(r#""line":{line},"#))
        })
    };
    assert!(has_site("fn", "count_big", FN_LINE), "{text}");
    assert!(has_site("let", "0", FN_LINE + 1), "{text}");
    assert!(has_site("bound", "xs.len()", FN_LINE + 2), "{text}");
    assert!(has_site("start", "0", FN_LINE + 2), "{text}");
    assert!(
        has_site("loop", "for i in 0..xs.len()", FN_LINE + 2),
        "{text}"
    );
    assert!(
        has_site("if", "xs[i] > limit && i > 0", FN_LINE + 3),
        "{text}"
    );
    assert!(has_site("operand", "xs[i] > limit", FN_LINE + 3), "{text}");
    assert!(has_site("operand", "i > 0", FN_LINE + 3), "{text}");
    assert!(has_site("compound", "1", FN_LINE + 4), "{text}");
    assert!(has_site("return", "n", FN_LINE + 7), "{text}");
    // Four iterations, four `if` instances, two increments.
    let events = |r: &str| {
        text.lines()
            .filter(|l| l.contains(&format!(r#""r":"{r}""#)))
            .count()
    };
    assert_eq!(events("iteration"), 4, "{text}");
    // `let n`, the range's start and bound, two increments, the return; the second
    // increment's scope is written as its change from the first's.
    assert_eq!(events("component"), 1 + 2 + 1 + 1, "{text}");
    assert_eq!(events("component_delta"), 1, "{text}");
    // The operands of `xs[i] > limit` are reported with their values: in full at the first
    // iteration (5 > 4), as numbers of the same types after it (9 > 4). The scope of `n += 1`
    // holds the shared slice, the scalar parameter, the counter and the loop variable.
    let branch_with = |a: &str| {
        text.lines()
            .any(|l| l.contains(r#""r":"branch""#) && l.contains(a))
    };
    assert!(branch_with(r#""v":5"#) && branch_with(r#""v":4"#), "{text}");
    assert!(
        text.lines()
            .any(|l| l.contains(r#""r":"branch_delta""#) && l.contains(r#""operands":[9,4]"#)),
        "{text}"
    );
    let compound = text
        .lines()
        .filter(|l| l.contains(r#""r":"component""#) && l.contains(r#""scope""#))
        .find(|l| l.contains(r#"["i","#))
        .unwrap_or_else(|| panic!("no component with `i` in scope:\n{text}"));
    for name in ["xs", "limit", "n", "i"] {
        assert!(
            compound.contains(&format!(r#"["{name}","#)),
            "{name} missing in {compound}"
        );
    }
}
