//! The wire format of traces and plans round-trips through serde_json, including the paths
//! where serde buffers values (the internally tagged `Record`, the flattened `Override`),
//! which do not take 128-bit integers natively.

use autodebug_runtime::protocol::{
    Override, PLAN_VERSION, Plan, Record, SiteKey, SiteKind, Target, Value,
};

fn int(v: i128) -> Value {
    Value::Int {
        ty: "i128".into(),
        v,
    }
}

#[test]
fn integers_of_every_width_round_trip_in_records() {
    for v in [
        0,
        -1,
        42,
        i64::MIN as i128,
        u64::MAX as i128,
        i128::MIN,
        i128::MAX,
    ] {
        let record = Record::Component {
            site: 1,
            instance: 0,
            value: Value::Seq {
                items: vec![int(v)],
                len: 1,
            },
            overridden: false,
            scope: vec![("x".into(), int(v))],
        };
        let line = serde_json::to_string(&record).unwrap();
        let back: Record = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{line}: {e}"));
        assert_eq!(back, record);
    }
}

#[test]
fn integers_that_fit_64_bits_stay_json_numbers() {
    let line = serde_json::to_string(&int(-3)).unwrap();
    assert_eq!(line, r#"{"int":{"ty":"i128","v":-3}}"#);
    let line = serde_json::to_string(&int(u64::MAX as i128)).unwrap();
    assert!(line.contains(&format!("\"v\":{}", u64::MAX)), "{line}");
    let line = serde_json::to_string(&int(i128::MAX)).unwrap();
    assert!(line.contains(&format!("\"v\":\"{}\"", i128::MAX)), "{line}");
}

#[test]
fn overrides_with_integers_round_trip_in_plans() {
    let site = SiteKey {
        file: "src/lib.rs".into(),
        line: 3,
        column: 9,
        kind: SiteKind::Let,
    };
    let plan = Plan {
        version: PLAN_VERSION,
        overrides: vec![Override {
            target: Target {
                site,
                instance: Some(2),
            },
            value: int(-7),
        }],
        ..Plan::default()
    };
    let text = serde_json::to_string(&plan).unwrap();
    assert_eq!(serde_json::from_str::<Plan>(&text).unwrap(), plan);
    let by_hand = r#"{"version":1,"overrides":[{"site":{"file":"src/lib.rs","line":3,"column":9,"kind":"let"},"instance":2,"value":{"int":{"ty":"i128","v":-7}}}]}"#;
    assert_eq!(serde_json::from_str::<Plan>(by_hand).unwrap(), plan);
}
