//! Traces written by hand as the runtime records them: sites declared from the IR's own
//! site positions (the lowering's agreement with the macro is tested by `lower_sites`),
//! instances numbered per site over the whole run, events in execution order.

#![allow(dead_code)]

use std::collections::{BTreeMap, HashMap};

use autodebug_runtime::protocol::{Record, SiteInfo, SiteKind, Value};
use autodebug_symbolic::encode::CallTrace;
use autodebug_symbolic::ir::Program;

/// A trace under construction.
pub struct Trace<'p> {
    program: &'p Program,
    pub sites: BTreeMap<u32, SiteInfo>,
    ids: HashMap<(u32, u32, SiteKind), u32>,
    instances: HashMap<u32, u32>,
    pub events: Vec<Record>,
}

/// An `i32`.
pub fn i32(v: i128) -> Value {
    Value::Int {
        ty: "i32".into(),
        v,
    }
}

/// A `u8`.
pub fn u8(v: i128) -> Value {
    Value::Int { ty: "u8".into(), v }
}

/// A `usize`.
pub fn usize(v: i128) -> Value {
    Value::Int {
        ty: "usize".into(),
        v,
    }
}

/// A `&[i32]`.
pub fn i32s(items: &[i128]) -> Value {
    Value::Seq {
        items: items.iter().map(|&v| i32(v)).collect(),
        len: items.len(),
    }
}

impl<'p> Trace<'p> {
    pub fn new(program: &'p Program) -> Trace<'p> {
        Trace {
            program,
            sites: BTreeMap::new(),
            ids: HashMap::new(),
            instances: HashMap::new(),
            events: Vec::new(),
        }
    }

    /// The id of the site of `kind` at `line` in `function` (the first of them on the line,
    /// or the `nth` with [`Trace::site_nth`]).
    pub fn site(&mut self, function: &str, line: u32, kind: SiteKind) -> u32 {
        self.site_nth(function, line, kind, 0)
    }

    pub fn site_nth(&mut self, function: &str, line: u32, kind: SiteKind, nth: usize) -> u32 {
        let func = self
            .program
            .function(function)
            .unwrap_or_else(|| panic!("no function {function}"));
        let mut on_line: Vec<_> = func
            .sites()
            .into_iter()
            .filter(|s| s.kind == kind && s.span.start.line == line && s.reported)
            .collect();
        on_line.sort_by_key(|s| s.span.start.column);
        let site = on_line
            .get(nth)
            .unwrap_or_else(|| panic!("no {kind:?} site at line {line} of {function}:\n{func}"));
        let key = (site.span.start.line, site.span.start.column, kind);
        if let Some(&id) = self.ids.get(&key) {
            return id;
        }
        let id = self.ids.len() as u32 + 1;
        self.ids.insert(key, id);
        self.sites.insert(
            id,
            SiteInfo {
                file: self.program.file.clone(),
                line: site.span.start.line,
                column: site.span.start.column,
                end_line: site.span.end.line,
                end_column: site.span.end.column,
                kind,
                code: site.span.code.clone(),
                function: function.to_string(),
            },
        );
        id
    }

    fn instance(&mut self, site: u32) -> u32 {
        let n = self.instances.entry(site).or_insert(0);
        *n += 1;
        *n - 1
    }

    pub fn enter(&mut self, function: &str, args: &[(&str, Value)]) -> &mut Self {
        let line = self
            .program
            .function(function)
            .map(|f| f.entry.span.start.line)
            .unwrap_or(0);
        let site = self.site(function, line, SiteKind::Fn);
        self.events.push(Record::Enter {
            site,
            args: args
                .iter()
                .map(|(n, v)| (n.to_string(), v.clone()))
                .collect(),
        });
        self
    }

    pub fn exit(&mut self, function: &str, panicking: bool) -> &mut Self {
        let line = self
            .program
            .function(function)
            .map(|f| f.entry.span.start.line)
            .unwrap_or(0);
        let site = self.site(function, line, SiteKind::Fn);
        self.events.push(Record::Exit { site, panicking });
        self
    }

    /// A component event (`Let`, `Assign`, `Compound`, `Return`, `Bound`) with the values
    /// of the variables in scope.
    pub fn value(
        &mut self,
        function: &str,
        line: u32,
        kind: SiteKind,
        value: Value,
        scope: &[(&str, Value)],
    ) -> &mut Self {
        let site = self.site(function, line, kind);
        let instance = self.instance(site);
        self.events.push(Record::Component {
            site,
            instance,
            value,
            overridden: false,
            scope: scope
                .iter()
                .map(|(n, v)| (n.to_string(), v.clone()))
                .collect(),
        });
        self
    }

    /// A branch event (`If`, `While`, `Operand`, `Guard`) of the `nth` such site on the line.
    pub fn branch_nth(
        &mut self,
        function: &str,
        line: u32,
        kind: SiteKind,
        nth: usize,
        outcome: bool,
        operands: &[Value],
    ) -> &mut Self {
        let site = self.site_nth(function, line, kind, nth);
        let instance = self.instance(site);
        self.events.push(Record::Branch {
            site,
            instance,
            outcome,
            flipped: false,
            operands: operands.to_vec(),
        });
        self
    }

    pub fn branch(
        &mut self,
        function: &str,
        line: u32,
        kind: SiteKind,
        outcome: bool,
        operands: &[Value],
    ) -> &mut Self {
        self.branch_nth(function, line, kind, 0, outcome, operands)
    }

    pub fn iteration(&mut self, function: &str, line: u32) -> &mut Self {
        let site = self.site(function, line, SiteKind::Loop);
        let instance = self.instance(site);
        self.events.push(Record::Iteration { site, instance });
        self
    }

    pub fn call_trace(&self) -> CallTrace<'_> {
        CallTrace {
            sites: &self.sites,
            events: &self.events,
        }
    }
}
