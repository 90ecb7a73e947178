//! The recorded events of one call, arranged as the encoder consumes them: per call frame,
//! the frame's own events queued per site (the k-th instance the model reaches on the
//! recorded path is paired with the k-th event of that site in the frame), and its nested
//! calls in order. Per frame rather than per trace because instances are counted per site
//! over the whole run: a recursive call that is not inlined still counts instances of the
//! sites an inlined frame uses.

use std::collections::{BTreeMap, HashMap, VecDeque};

use autodebug_runtime::protocol::{Binding, Record, SiteInfo, SiteKind, Value};

/// A site as the encoder joins it to the IR: start line, start column, kind.
pub(crate) type SitePos = (u32, u32, SiteKind);

/// How a recorded call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FrameEnd {
    Returned,
    Panicked,
    /// The trace stops inside it.
    Unfinished,
}

/// One recorded call: its own events and its nested calls.
#[derive(Debug, Clone)]
pub(crate) struct Frame {
    /// The `Fn` site's position.
    pub entry: (u32, u32),
    /// The function's path as the site names it.
    pub function: String,
    /// The argument values at entry.
    pub args: Vec<Binding>,
    own: HashMap<SitePos, VecDeque<Record>>,
    /// The code of each own site, for messages.
    codes: HashMap<SitePos, String>,
    children: VecDeque<Frame>,
    pub end: FrameEnd,
    /// The value of the frame's last own `Return` event.
    pub returned: Option<Value>,
    /// A record was made under a plan (flipped branch, overridden value).
    pub planned: bool,
}

impl Frame {
    /// The frame of the call whose events start at `events[0]` (an `Enter`), and how many
    /// events it spans.
    pub(crate) fn parse(
        sites: &BTreeMap<u32, SiteInfo>,
        events: &[Record],
    ) -> Result<Frame, String> {
        let mut at = 0usize;
        // Contract checks of the call itself run outside its `Enter`…`Exit`.
        while matches!(events.get(at), Some(Record::Contract { .. })) {
            at += 1;
        }
        let frame = Frame::parse_at(sites, events, &mut at, 0)?;
        Ok(frame)
    }

    fn parse_at(
        sites: &BTreeMap<u32, SiteInfo>,
        events: &[Record],
        at: &mut usize,
        depth: usize,
    ) -> Result<Frame, String> {
        if depth > 10_000 {
            return Err("calls nested too deeply in the trace".into());
        }
        let Some(Record::Enter { site, args }) = events.get(*at) else {
            return Err("the call's events do not start with its entry".into());
        };
        let info = sites
            .get(site)
            .ok_or_else(|| format!("site {site} is not declared in the trace"))?;
        let mut frame = Frame {
            entry: (info.line, info.column),
            function: info.function.clone(),
            args: args.clone(),
            own: HashMap::new(),
            codes: HashMap::new(),
            children: VecDeque::new(),
            end: FrameEnd::Unfinished,
            returned: None,
            planned: false,
        };
        *at += 1;
        while let Some(record) = events.get(*at) {
            match record {
                Record::Enter { .. } => {
                    let child = Frame::parse_at(sites, events, at, depth + 1)?;
                    frame.planned |= child.planned;
                    frame.children.push_back(child);
                    continue;
                }
                Record::Exit { panicking, .. } => {
                    frame.end = if *panicking {
                        FrameEnd::Panicked
                    } else {
                        FrameEnd::Returned
                    };
                    *at += 1;
                    return Ok(frame);
                }
                Record::Branch { site, flipped, .. } => {
                    frame.planned |= *flipped;
                    frame.push(sites, *site, record)?;
                }
                Record::Component {
                    site,
                    overridden,
                    value,
                    ..
                } => {
                    frame.planned |= *overridden;
                    if sites.get(site).is_some_and(|s| s.kind == SiteKind::Return) {
                        frame.returned = Some(value.clone());
                    }
                    frame.push(sites, *site, record)?;
                }
                Record::Iteration { site, .. } | Record::Contract { site, .. } => {
                    frame.push(sites, *site, record)?;
                }
                Record::Truncated { .. } | Record::FuelExhausted { .. } => {
                    return Err("the trace was cut short inside the call".into());
                }
                _ => {}
            }
            *at += 1;
        }
        Ok(frame)
    }

    fn push(
        &mut self,
        sites: &BTreeMap<u32, SiteInfo>,
        site: u32,
        record: &Record,
    ) -> Result<(), String> {
        let info = sites
            .get(&site)
            .ok_or_else(|| format!("site {site} is not declared in the trace"))?;
        let pos = (info.line, info.column, info.kind);
        self.codes.entry(pos).or_insert_with(|| info.code.clone());
        self.own.entry(pos).or_default().push_back(record.clone());
        Ok(())
    }

    /// The next own event of the site at `pos`.
    pub(crate) fn take(&mut self, pos: SitePos) -> Option<Record> {
        self.own.get_mut(&pos)?.pop_front()
    }

    /// The next nested call of the function whose `Fn` site is at `entry`: the first such
    /// call in order (calls made from code the model does not see are passed over).
    pub(crate) fn take_child(&mut self, entry: (u32, u32)) -> Option<Frame> {
        let at = self.children.iter().position(|c| c.entry == entry)?;
        self.children.remove(at)
    }

    /// The events no instance of the model was paired with: site, code, count.
    pub(crate) fn leftovers(&self) -> Vec<(SitePos, String, usize)> {
        let mut out: Vec<(SitePos, String, usize)> = self
            .own
            .iter()
            .filter(|(_, q)| !q.is_empty())
            .map(|(pos, q)| {
                let code = self.codes.get(pos).cloned().unwrap_or_default();
                (*pos, code, q.len())
            })
            .collect();
        out.sort();
        out
    }

    /// Nested calls no inlined or opaque call of the model was paired with.
    pub(crate) fn leftover_children(&self) -> Vec<String> {
        self.children.iter().map(|c| c.function.clone()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site(line: u32, kind: SiteKind) -> SiteInfo {
        SiteInfo {
            file: "src/lib.rs".into(),
            line,
            column: 1,
            end_line: line,
            end_column: 2,
            kind,
            code: format!("s{line}"),
            function: if line < 10 { "f".into() } else { "g".into() },
        }
    }

    #[test]
    fn nested_calls_keep_their_events_apart() {
        let sites: BTreeMap<u32, SiteInfo> = [
            (1, site(1, SiteKind::Fn)),
            (2, site(2, SiteKind::Let)),
            (3, site(11, SiteKind::Fn)),
            (4, site(12, SiteKind::If)),
        ]
        .into();
        let component = |site, instance, v| Record::Component {
            site,
            instance,
            value: Value::Int {
                ty: "i32".into(),
                v,
            },
            overridden: false,
            scope: vec![],
        };
        let events = vec![
            Record::Enter {
                site: 1,
                args: vec![],
            },
            component(2, 0, 1),
            Record::Enter {
                site: 3,
                args: vec![],
            },
            Record::Branch {
                site: 4,
                instance: 0,
                outcome: true,
                flipped: false,
                operands: vec![],
            },
            Record::Exit {
                site: 3,
                panicking: false,
            },
            component(2, 1, 2),
            Record::Exit {
                site: 1,
                panicking: true,
            },
        ];
        let mut frame = Frame::parse(&sites, &events).unwrap();
        assert_eq!(frame.end, FrameEnd::Panicked);
        assert!(frame.take((12, 1, SiteKind::If)).is_none());
        let mut child = frame.take_child((11, 1)).unwrap();
        assert!(child.take((12, 1, SiteKind::If)).is_some());
        assert!(frame.take((2, 1, SiteKind::Let)).is_some());
        assert_eq!(frame.leftovers().len(), 1);
        assert!(frame.take((2, 1, SiteKind::Let)).is_some());
        assert!(frame.leftovers().is_empty());
    }
}
