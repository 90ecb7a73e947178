//! The JSON text of the event records the hooks write at every event (`enter`, `exit`,
//! `branch`, `component`, `iteration`, `contract` and their deltas), written straight
//! from the captured values ([`Val`]) instead of through a [`crate::protocol::Record`] and
//! serde: a recording run writes up to a million of them. The text is the one
//! `crate::json::to_string` writes for the equal `Record` (the tests below check it), so the
//! tool reads it as any other record.

use crate::json::write_str;
use crate::value::Val;
use std::fmt::Write as _;

/// A variable and its captured value.
pub(crate) type Captured = (&'static str, Val);

/// The two digits of every number below 100.
const PAIRS: &[u8; 200] = b"\
    0001020304050607080910111213141516171819\
    2021222324252627282930313233343536373839\
    4041424344454647484950515253545556575859\
    6061626364656667686970717273747576777879\
    8081828384858687888990919293949596979899";

/// Appends the decimal text of `v`.
pub(crate) fn uint(out: &mut String, mut v: u64) {
    // SAFETY: only ASCII digits are pushed: `out` stays a valid string.
    let out = unsafe { out.as_mut_vec() };
    if v < 10 {
        out.push(b'0' + v as u8);
        return;
    }
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    while v >= 10 {
        let pair = (v % 100) as usize * 2;
        v /= 100;
        i -= 2;
        buf[i] = PAIRS[pair];
        buf[i + 1] = PAIRS[pair + 1];
    }
    // What is left is one digit, or none (the last pair had two).
    if v > 0 {
        i -= 1;
        buf[i] = b'0' + v as u8;
    }
    out.reserve(buf.len() - i);
    // Byte by byte: a copy of a few bytes is not worth a call of `memcpy`.
    for &digit in &buf[i..] {
        out.push(digit);
    }
}

/// Appends the decimal text of `v`.
fn int(out: &mut String, v: i64) {
    if v < 0 {
        out.push('-');
    }
    uint(out, v.unsigned_abs());
}

/// Appends `v` as `Value::Int`'s `v` is written: a JSON number when it fits `i64` or `u64`,
/// a decimal string otherwise.
fn wide(out: &mut String, v: i128) {
    if let Ok(x) = i64::try_from(v) {
        int(out, x);
    } else if let Ok(x) = u64::try_from(v) {
        uint(out, x);
    } else {
        let _ = write!(out, "\"{v}\"");
    }
}

fn bool(out: &mut String, b: bool) {
    out.push_str(if b { "true" } else { "false" });
}

fn int_value(out: &mut String, ty: &str, v: i128) {
    out.push_str("{\"int\":{\"ty\":");
    write_str(out, ty);
    out.push_str(",\"v\":");
    wide(out, v);
    out.push_str("}}");
}

/// Appends the JSON of the [`crate::protocol::Value`] that `v` stands for.
pub(crate) fn value(out: &mut String, v: &Val) {
    match v {
        Val::Int { ty, v } => int_value(out, ty, *v),
        Val::F32(bits) => {
            let _ = write!(
                out,
                "{{\"float\":{{\"ty\":\"f32\",\"v\":\"{}\"}}}}",
                f32::from_bits(*bits)
            );
        }
        Val::F64(bits) => {
            let _ = write!(
                out,
                "{{\"float\":{{\"ty\":\"f64\",\"v\":\"{}\"}}}}",
                f64::from_bits(*bits)
            );
        }
        Val::Bool(b) => {
            out.push_str("{\"bool\":");
            bool(out, *b);
            out.push('}');
        }
        Val::Char(c) => {
            out.push_str("{\"char\":");
            write_str(out, c.encode_utf8(&mut [0; 4]));
            out.push('}');
        }
        Val::Str { v, truncated } => {
            out.push_str("{\"str\":{\"v\":");
            write_str(out, v);
            out.push_str(",\"truncated\":");
            bool(out, *truncated);
            out.push_str("}}");
        }
        Val::Ints { ty, bytes, len } => {
            out.push_str("{\"seq\":{\"items\":[");
            for (i, v) in Val::ints(ty, bytes).enumerate() {
                if i > 0 {
                    out.push(',');
                }
                int_value(out, ty, v);
            }
            out.push_str("],\"len\":");
            uint(out, *len as u64);
            out.push_str("}}");
        }
        Val::Seq { items, len } => {
            out.push_str("{\"seq\":{\"items\":[");
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                value(out, v);
            }
            out.push_str("],\"len\":");
            uint(out, *len as u64);
            out.push_str("}}");
        }
        Val::Unit => out.push_str("\"unit\""),
        Val::Opt { ty, v } => {
            out.push_str("{\"opt\":{\"ty\":");
            write_str(out, ty);
            out.push_str(",\"v\":");
            match v {
                Some(v) => value(out, v),
                None => out.push_str("null"),
            }
            out.push_str("}}");
        }
        Val::Opaque { ty } => {
            out.push_str("{\"opaque\":{\"ty\":");
            write_str(out, ty);
            out.push_str("}}");
        }
    }
}

/// `[["name",value],…]`.
fn bindings(out: &mut String, bindings: &[Captured]) {
    out.push('[');
    for (i, (name, v)) in bindings.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push('[');
        write_str(out, name);
        out.push(',');
        value(out, v);
        out.push(']');
    }
    out.push(']');
}

/// Appends `new` as a [`crate::protocol::DeltaValue`] relative to `old`, the value it
/// replaces: its number alone when both are integers of one type, in full otherwise.
fn relative(out: &mut String, old: Option<&Val>, new: &Val) {
    match (old, new) {
        (Some(Val::Int { ty: was, .. }), Val::Int { ty, v }) if was == ty => wide(out, *v),
        _ => value(out, new),
    }
}

/// `[[index,value],…]`: the bindings of `new` that differ from those of `old` (same length),
/// each relative to the one it replaces.
fn changes(out: &mut String, old: &[Captured], new: &[Captured]) {
    out.push('[');
    let mut first = true;
    for (i, ((_, was), (_, now))) in old.iter().zip(new).enumerate() {
        if was == now {
            continue;
        }
        if !first {
            out.push(',');
        }
        first = false;
        out.push('[');
        uint(out, i as u64);
        out.push(',');
        relative(out, Some(was), now);
        out.push(']');
    }
    out.push(']');
}

/// Whether `new` binds the same names in the same order as `old`: then it can be written as
/// the changes from `old`.
pub(crate) fn same_names(old: &[Captured], new: &[Captured]) -> bool {
    old.len() == new.len() && old.iter().zip(new).all(|((a, _), (b, _))| a == b)
}

/// The start of a record: `{"r":"<tag>","site":<site>`.
fn head(out: &mut String, tag: &str, site: u32) {
    out.push_str("{\"r\":\"");
    out.push_str(tag);
    out.push_str("\",\"site\":");
    uint(out, site.into());
}

/// `Record::Enter`, or `Record::EnterDelta` from `old` (the site's previous arguments, with
/// the same names) when given.
pub(crate) fn enter(out: &mut String, site: u32, args: &[Captured], old: Option<&[Captured]>) {
    match old {
        None => {
            head(out, "enter", site);
            out.push_str(",\"args\":");
            bindings(out, args);
        }
        Some(old) => {
            head(out, "enter_delta", site);
            out.push_str(",\"changed\":");
            changes(out, old, args);
        }
    }
    out.push('}');
}

/// `Record::Exit`.
pub(crate) fn exit(out: &mut String, site: u32, panicking: bool) {
    head(out, "exit", site);
    out.push_str(",\"panicking\":");
    bool(out, panicking);
    out.push('}');
}

/// `Record::Branch`, or `Record::BranchDelta` from `old` (the operands of the site's previous
/// record) when given.
pub(crate) fn branch(
    out: &mut String,
    (site, instance): (u32, u32),
    (outcome, flipped): (bool, bool),
    operands: &[Val],
    old: Option<&[Val]>,
) {
    head(
        out,
        if old.is_some() {
            "branch_delta"
        } else {
            "branch"
        },
        site,
    );
    out.push_str(",\"instance\":");
    uint(out, instance.into());
    out.push_str(",\"outcome\":");
    bool(out, outcome);
    if old.is_none() || flipped {
        out.push_str(",\"flipped\":");
        bool(out, flipped);
    }
    out.push_str(",\"operands\":[");
    for (i, v) in operands.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        match old {
            None => value(out, v),
            Some(old) => relative(out, old.get(i), v),
        }
    }
    out.push_str("]}");
}

/// `Record::Component`, or `Record::ComponentDelta` from `old` (the scope, with the same
/// names, and the value of the site's previous record) when given.
pub(crate) fn component(
    out: &mut String,
    (site, instance): (u32, u32),
    (v, overridden): (&Val, bool),
    scope: &[Captured],
    old: Option<(&[Captured], Option<&Val>)>,
) {
    match old {
        None => {
            head(out, "component", site);
            out.push_str(",\"instance\":");
            uint(out, instance.into());
            out.push_str(",\"value\":");
            value(out, v);
            out.push_str(",\"overridden\":");
            bool(out, overridden);
            out.push_str(",\"scope\":");
            bindings(out, scope);
        }
        Some((old_scope, old_value)) => {
            head(out, "component_delta", site);
            out.push_str(",\"instance\":");
            uint(out, instance.into());
            out.push_str(",\"value\":");
            relative(out, old_value, v);
            if overridden {
                out.push_str(",\"overridden\":true");
            }
            out.push_str(",\"changed\":");
            changes(out, old_scope, scope);
        }
    }
    out.push('}');
}

/// `Record::Iteration`.
pub(crate) fn iteration(out: &mut String, site: u32, instance: u32) {
    head(out, "iteration", site);
    out.push_str(",\"instance\":");
    uint(out, instance.into());
    out.push('}');
}

/// `Record::Contract`.
pub(crate) fn contract(out: &mut String, site: u32, instance: u32, ok: bool) {
    head(out, "contract", site);
    out.push_str(",\"instance\":");
    uint(out, instance.into());
    out.push_str(",\"ok\":");
    bool(out, ok);
    out.push('}');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::{from_str, to_string};
    use crate::protocol::{Record, Value};
    use crate::value::val;

    fn text(f: impl FnOnce(&mut String)) -> String {
        let mut out = String::new();
        f(&mut out);
        out
    }

    fn values() -> Vec<Val> {
        let mut all = vec![
            val(&0i32),
            val(&-7i8),
            val(&i64::MIN),
            val(&u64::MAX),
            val(&i128::MIN),
            val(&i128::MAX),
            val(&u128::MAX),
            val(&0.1f64),
            val(&-0.0f64),
            val(&f64::NAN),
            val(&f32::INFINITY),
            val(&1.5f32),
            val(&true),
            val(&'\u{0}'),
            val(&'"'),
            val(&"a\"b\\c\n\r\t\u{8}\u{c}\u{1f}\u{7f}\u{2028}é"),
            val(&()),
            val(&[1i32, -2, 3][..]),
            val(&vec![u64::MAX]),
            val(&vec![u128::MAX, 1]),
            val(&["x", "y"]),
            val(&vec![0.5f32]),
            val(&Vec::<usize>::new()),
            val(&Some(1)),
            val(&None::<u8>),
            val(&Some("a\"b")),
        ];
        let long: Vec<i16> = (0..100).collect();
        all.push(val(&long));
        all
    }

    #[test]
    fn integers_are_written_in_decimal() {
        let mut cases: Vec<i128> = (-1000..1000).collect();
        for p in 1..39 {
            let x = 10i128.pow(p);
            cases.extend([x - 1, x, x + 1, -x]);
        }
        cases.extend([
            i64::MIN.into(),
            i64::MAX.into(),
            u64::MAX.into(),
            i128::MIN,
            i128::MAX,
        ]);
        for v in cases {
            let ours = text(|out| wide(out, v));
            let expected = match (i64::try_from(v), u64::try_from(v)) {
                (Err(_), Err(_)) => format!("\"{v}\""),
                _ => v.to_string(),
            };
            assert_eq!(ours, expected);
        }
    }

    #[test]
    fn values_are_written_as_serde_writes_their_value() {
        for v in values() {
            let ours = text(|out| value(out, &v));
            assert_eq!(ours, to_string(&v.to_value()).unwrap(), "{v:?}");
        }
    }

    #[test]
    fn records_are_written_as_serde_writes_them() {
        let vals = values();
        let names = ["a", "b\"c", "é"];
        let scope: Vec<Captured> = names
            .iter()
            .zip(&vals)
            .map(|(n, v)| (*n, v.clone()))
            .collect();
        let full = |s: &[Captured]| -> Vec<(String, Value)> {
            s.iter()
                .map(|(n, v)| (n.to_string(), v.to_value()))
                .collect()
        };
        let cases: Vec<(String, Record)> = vec![
            (
                text(|o| enter(o, 3, &scope, None)),
                Record::Enter {
                    site: 3,
                    args: full(&scope),
                },
            ),
            (
                text(|o| exit(o, 4_000_000_000, true)),
                Record::Exit {
                    site: 4_000_000_000,
                    panicking: true,
                },
            ),
            (
                text(|o| branch(o, (1, 99), (false, true), &vals, None)),
                Record::Branch {
                    site: 1,
                    instance: 99,
                    outcome: false,
                    flipped: true,
                    operands: vals.iter().map(Val::to_value).collect(),
                },
            ),
            (
                text(|o| component(o, (2, 0), (&vals[3], true), &scope, None)),
                Record::Component {
                    site: 2,
                    instance: 0,
                    value: vals[3].to_value(),
                    overridden: true,
                    scope: full(&scope),
                },
            ),
            (
                text(|o| iteration(o, 7, u32::MAX)),
                Record::Iteration {
                    site: 7,
                    instance: u32::MAX,
                },
            ),
            (
                text(|o| contract(o, 8, 1, false)),
                Record::Contract {
                    site: 8,
                    instance: 1,
                    ok: false,
                },
            ),
        ];
        for (ours, record) in cases {
            assert_eq!(ours, to_string(&record).unwrap());
            assert_eq!(from_str::<Record>(&ours).unwrap(), record);
        }
    }

    #[test]
    fn deltas_hold_what_changed_relative_to_what_it_replaces() {
        use crate::protocol::{DeltaCache, DeltaValue};
        let old: Vec<Captured> = vec![("a", val(&[1i32, 2][..])), ("i", val(&0usize))];
        let new: Vec<Captured> = vec![("a", val(&[1i32, 2][..])), ("i", val(&1usize))];
        assert!(same_names(&old, &new));
        assert!(!same_names(&old, &new[..1]));
        assert!(!same_names(&old, &[("b", val(&0)), ("i", val(&0))]));
        // Each line reads back as the delta record it is, written as serde writes that.
        let read = |line: &str| {
            let record = from_str::<Record>(line).unwrap();
            assert_eq!(line, to_string(&record).unwrap());
            record
        };
        // An integer in place of one of its type is its number; anything else is whole.
        let line = text(|o| {
            component(
                o,
                (5, 1),
                (&val(&7usize), false),
                &new,
                Some((&old, Some(&val(&3usize)))),
            )
        });
        assert_eq!(
            line,
            r#"{"r":"component_delta","site":5,"instance":1,"value":7,"changed":[[1,1]]}"#
        );
        let line = text(|o| {
            component(
                o,
                (5, 2),
                (&val(&i128::MAX), true),
                &[("a", val(&[1i32][..])), ("i", val(&1u8))],
                Some((&old, Some(&val(&3i128)))),
            )
        });
        assert_eq!(
            read(&line),
            Record::ComponentDelta {
                site: 5,
                instance: 2,
                value: DeltaValue::Int(i128::MAX),
                overridden: true,
                changed: vec![
                    (0, DeltaValue::Full(val(&[1i32][..]).to_value())),
                    (1, DeltaValue::Full(val(&1u8).to_value())),
                ],
            }
        );
        let line = text(|o| enter(o, 2, &old, Some(&old)));
        assert_eq!(line, r#"{"r":"enter_delta","site":2,"changed":[]}"#);
        read(&line);
        let operands = [val(&-4i32), val(&()), val(&5u8)];
        let before = [val(&1i32), val(&()), val(&1i32)];
        let line = text(|o| branch(o, (3, 9), (true, false), &operands, Some(&before)));
        assert_eq!(
            line,
            r#"{"r":"branch_delta","site":3,"instance":9,"outcome":true,"operands":[-4,"unit",{"int":{"ty":"u8","v":5}}]}"#
        );
        read(&line);
        let line = text(|o| branch(o, (3, 10), (false, true), &[], Some(&before)));
        read(&line);
        // And a cache restores what they stand for.
        let mut cache = DeltaCache::default();
        let full = |s: &[Captured]| -> Vec<(String, Value)> {
            s.iter()
                .map(|(n, v)| (n.to_string(), v.to_value()))
                .collect()
        };
        let lines = [
            text(|o| component(o, (5, 0), (&val(&3usize), false), &old, None)),
            text(|o| {
                component(
                    o,
                    (5, 1),
                    (&val(&7usize), false),
                    &new,
                    Some((&old, Some(&val(&3usize)))),
                )
            }),
            text(|o| branch(o, (3, 0), (false, false), &before, None)),
            text(|o| branch(o, (3, 1), (true, true), &operands, Some(&before))),
        ];
        let restored: Vec<Record> = lines
            .iter()
            .map(|l| cache.restore(from_str(l).unwrap()).unwrap())
            .collect();
        assert_eq!(
            restored,
            [
                Record::Component {
                    site: 5,
                    instance: 0,
                    value: val(&3usize).to_value(),
                    overridden: false,
                    scope: full(&old),
                },
                Record::Component {
                    site: 5,
                    instance: 1,
                    value: val(&7usize).to_value(),
                    overridden: false,
                    scope: full(&new),
                },
                Record::Branch {
                    site: 3,
                    instance: 0,
                    outcome: false,
                    flipped: false,
                    operands: before.iter().map(Val::to_value).collect(),
                },
                Record::Branch {
                    site: 3,
                    instance: 1,
                    outcome: true,
                    flipped: true,
                    operands: operands.iter().map(Val::to_value).collect(),
                },
            ]
        );
    }
}
