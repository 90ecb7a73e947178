//! The trace-guided encoding of one call of an IR function into the conflict oracle
//! (issue 5, item 2): the recorded arguments as inputs, the body in SSA with `if`/`match`
//! merged by `ite` and loops unrolled to the recorded iteration counts plus a slack, every
//! right-hand side, returned value, loop bound and (optionally) branch condition a
//! *component* with the `ab` literal of its site, calls of the file's functions inlined,
//! and the specification (contracts, "no panic", the expected or recorded return value)
//! asserted for the test's role.
//!
//! The walk is concolic: beside every term it carries the value the run had, and on the
//! recorded path it pairs each site instance with its trace event. A model that disagrees
//! with the run (a value, a branch outcome, a panic, an iteration count) is not used: the
//! call is *degraded* with the reason and nothing reaches the oracle, so that no diagnosis
//! comes from a wrong model. Values the model cannot compute (opaque nodes, inputs the
//! trace did not record) take the recorded values on the path and stay free elsewhere.

mod concrete;
mod events;
mod exec;
pub(crate) mod value;

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicUsize, Ordering};

use autodebug_runtime::protocol::{Binding, Record, SiteInfo, SiteKey, SiteKind};
use z3::FuncDecl;
use z3::ast::{Ast, Bool, Dynamic};

use crate::conflicts::{ComponentId, Role, Z3Oracle};
use crate::ir::{ContractKind, Expr, ExprKind, Function, Program, Stmt, one_line};
pub use concrete::Concrete;
use events::Frame;
pub(crate) use exec::{Decision, Instance, PanicCond};
use exec::{Exec, Guard};
pub(crate) use value::{Bits, Val, bv_const, bv_value};

/// What the encoding models as components, and how far it unrolls and inlines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// Branch conditions (`if`, `while`, match guards, operands of `&&`/`||`) are
    /// components. Könighofer & Bloem show both ways.
    pub conditions: bool,
    /// Returned values are components.
    pub returns: bool,
    /// The end bounds of `for` loops over ranges are components.
    pub bounds: bool,
    /// Iterations unrolled beyond the recorded ones (off the recorded path: in all).
    pub slack: u32,
    /// Calls nested deeper than this are not inlined: their recorded result stands.
    pub inline_depth: usize,
    /// A loop that runs longer than this on the recorded path is not encoded.
    pub max_iterations: u32,
    /// The component of `x op= e` is the value the statement stores rather than `e`:
    /// a wrong operator is then a diagnosis too. Off for repair, whose candidates replace
    /// `e` (what the runtime's hook reports and replaces).
    pub whole_compound: bool,
    /// A call whose encoding takes more statements than this (unrolled and inlined) is not
    /// encoded: loops in calls in loops multiply.
    pub max_statements: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            conditions: true,
            returns: true,
            bounds: true,
            slack: 2,
            inline_depth: 4,
            max_iterations: 10_000,
            max_statements: 20_000,
            whole_compound: false,
        }
    }
}

impl Options {
    /// Whether sites of `kind` are components.
    pub fn is_component(&self, kind: SiteKind) -> bool {
        match kind {
            SiteKind::Let | SiteKind::Assign | SiteKind::Compound => true,
            SiteKind::If | SiteKind::While | SiteKind::Guard | SiteKind::Operand => self.conditions,
            SiteKind::Return => self.returns,
            SiteKind::Bound => self.bounds,
            _ => false,
        }
    }
}

/// What the call's result must be.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Expected {
    /// Nothing beyond the contracts and "no panic".
    #[default]
    Nothing,
    /// This value (from the oracle stage: inferred from a failing `assert_eq!` and
    /// confirmed by a rerun). Unknown parts are left free.
    Value(Concrete),
    /// The value the run returned (accepted calls, passing tests).
    Recorded,
    /// Any value but this one (a failing `assert_ne!`, or a value the test rejected
    /// without saying what it wanted).
    Other(Concrete),
}

/// The specification a call is encoded with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spec {
    /// The function's `#[ensures]` and exit `#[invariant]`s hold.
    pub contracts: bool,
    /// The call does not panic (assertions in the body, overflow, bounds, callees'
    /// contracts).
    pub no_panic: bool,
    /// The returned value.
    pub ret: Expected,
}

impl Spec {
    /// A failing call: contracts, no panic and, when the oracle knows it, the expected
    /// return value.
    pub fn failing(expected: Option<Concrete>) -> Spec {
        Spec {
            contracts: true,
            no_panic: true,
            ret: expected.map_or(Expected::Nothing, Expected::Value),
        }
    }

    /// A call the test accepted (or a passing test's call): contracts, no panic, and the
    /// value it returned.
    pub fn accepted() -> Spec {
        Spec {
            contracts: true,
            no_panic: true,
            ret: Expected::Recorded,
        }
    }
}

/// The recorded events of one call: the trace's site table and the call's records, from
/// its `Enter` to its `Exit` (contract checks around them may be included).
#[derive(Debug, Clone, Copy)]
pub struct CallTrace<'a> {
    /// Sites by id.
    pub sites: &'a BTreeMap<u32, SiteInfo>,
    /// The call's records.
    pub events: &'a [Record],
}

/// One call to encode.
#[derive(Debug, Clone)]
pub struct Call<'a> {
    /// The test the call belongs to (each call is its own scope in the oracle).
    pub test: String,
    /// Failing (to be explained) or passing (to be kept).
    pub role: Role,
    /// The function called, as [`Program::function`] finds it.
    pub function: String,
    /// The argument values by parameter name (taken from the trace's entry when empty).
    pub args: Vec<Binding>,
    /// The call's events; without them the run is followed by the model alone.
    pub trace: Option<CallTrace<'a>>,
    /// What the call must satisfy.
    pub spec: Spec,
}

/// A component of the model: one per site, shared by every instance and every test.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ComponentInfo {
    /// Its id in the oracle.
    pub id: ComponentId,
    /// Its site.
    pub site: SiteKey,
    /// The function it is in.
    pub function: String,
    /// The statement, as people read it (`r = x`, `if y > x`).
    pub statement: String,
}

/// The components declared in one oracle, by site.
#[derive(Debug, Default)]
pub struct Components {
    by_site: HashMap<SiteKey, ComponentId>,
    info: Vec<ComponentInfo>,
}

impl Components {
    /// The component of a site, if it is one.
    pub fn id(&self, site: &SiteKey) -> Option<ComponentId> {
        self.by_site.get(site).copied()
    }

    /// What a component is.
    pub fn info(&self, id: ComponentId) -> Option<&ComponentInfo> {
        self.info.iter().find(|i| i.id == id)
    }

    /// Every component, in declaration order.
    pub fn all(&self) -> &[ComponentInfo] {
        &self.info
    }
}

/// An item of the specification a call was encoded with, and whether the run met it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecItem {
    /// As people read it: `ensures(ret >= x)`, `ret == 2`, `no panic`, or the body's
    /// assertion that panicked (`assert!(r >= x)`).
    pub label: String,
    /// How the run broke it, when that needs saying (the panic).
    pub detail: Option<String>,
    /// Whether the recorded run met it, when the model can tell.
    pub held: Option<bool>,
}

/// A component the encoding of a call reached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncodedComponent {
    /// Its id in the oracle.
    pub id: ComponentId,
    /// Its site.
    pub site: SiteKey,
    /// Instances on the recorded path.
    pub on_path: usize,
    /// Instances encoded (off the path too).
    pub instances: usize,
}

/// How the model compared with the recorded run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TraceCheck {
    /// Events (values, outcomes, iterations, contract checks, scope values) the model
    /// reproduced.
    pub matched: usize,
    /// Events whose value the model did not know and took from the run.
    pub adopted: usize,
    /// Inputs the trace did not record, read from later events.
    pub learned: Vec<String>,
}

/// The terms the weakest precondition works from.
#[derive(Debug, Clone)]
pub(crate) struct Formula {
    pub structure: Vec<Bool>,
    /// The specification but "no panic".
    pub spec: Vec<Bool>,
    /// Whether the specification includes "no panic".
    pub no_panic: bool,
    pub panics: Vec<PanicCond>,
    pub instances: Vec<Instance>,
    pub decisions: Vec<Decision>,
}

/// The outcome of encoding one call.
#[derive(Debug, Clone)]
pub struct Encoding {
    /// The test.
    pub test: String,
    /// The function called.
    pub function: String,
    /// The test's role.
    pub role: Role,
    /// Whether the call is in the oracle (false when degraded).
    pub added: bool,
    /// Why the call was not encoded; empty when it was.
    pub degradations: Vec<String>,
    /// Approximations the encoding made (opaque nodes, unrolling bounds, inputs left free).
    pub notes: Vec<String>,
    /// The components reached, in declaration order.
    pub components: Vec<EncodedComponent>,
    /// The comparison with the run.
    pub check: TraceCheck,
    /// The specification, item by item.
    pub spec: Vec<SpecItem>,
    pub(crate) formula: Option<Formula>,
}

impl Encoding {
    fn degraded(call: &Call, reason: String) -> Encoding {
        Encoding {
            test: call.test.clone(),
            function: call.function.clone(),
            role: call.role,
            added: false,
            degradations: vec![reason],
            notes: Vec::new(),
            components: Vec::new(),
            check: TraceCheck::default(),
            spec: Vec::new(),
            formula: None,
        }
    }

    /// What the specification asks, for sentences ("for … , `r` must be …"): the items the
    /// run violated (all of them when the model cannot tell which), quoted and joined.
    pub fn spec_phrase(&self) -> String {
        let violated: Vec<&SpecItem> = self.spec.iter().filter(|s| s.held == Some(false)).collect();
        let items: Vec<&SpecItem> = if violated.is_empty() {
            self.spec.iter().collect()
        } else {
            violated
        };
        let parts: Vec<String> = items
            .iter()
            .map(|item| match (&*item.label, &item.detail) {
                ("no panic", Some(what)) => format!("the call not to panic ({what})"),
                ("no panic", None) => "the call not to panic".to_string(),
                (label, _) => format!("`{label}` to hold"),
            })
            .collect();
        parts.join(" and ")
    }

    /// The specification items the run violated.
    pub fn violated(&self) -> Vec<&str> {
        self.spec
            .iter()
            .filter(|s| s.held == Some(false))
            .map(|s| s.label.as_str())
            .collect()
    }
}

/// Encodes calls of one program's functions into an oracle: the components of every site
/// reached are declared once and shared by all the calls.
pub struct Encoder<'p> {
    program: &'p Program,
    options: Options,
    components: Components,
}

/// Keeps the constants of different encodings apart in z3's context.
static ENCODINGS: AtomicUsize = AtomicUsize::new(0);

impl<'p> Encoder<'p> {
    /// An encoder of `program`'s calls.
    pub fn new(program: &'p Program, options: Options) -> Encoder<'p> {
        Encoder {
            program,
            options,
            components: Components::default(),
        }
    }

    /// The components declared so far.
    pub fn components(&self) -> &Components {
        &self.components
    }

    /// The options.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Declares the components of `function` and of every function it may inline
    /// (nothing twice). Calls do it themselves; this is for declaring before the first.
    pub fn declare(&mut self, oracle: &mut Z3Oracle, function: &str) -> Result<(), String> {
        let root = self
            .program
            .function(function)
            .ok_or_else(|| format!("`{function}` is not a function of {}", self.program.file))?;
        let mut todo = vec![(root, 0usize)];
        let mut seen: Vec<&str> = Vec::new();
        while let Some((func, depth)) = todo.pop() {
            if seen.contains(&func.name.as_str()) {
                continue;
            }
            seen.push(&func.name);
            self.declare_function(oracle, func);
            if depth < self.options.inline_depth {
                for callee in callees(func) {
                    if let Some(f) = self.program.function(&callee) {
                        todo.push((f, depth + 1));
                    }
                }
            }
        }
        Ok(())
    }

    fn declare_function(&mut self, oracle: &mut Z3Oracle, func: &Function) {
        let mut found: Vec<(crate::ir::Site, String)> = Vec::new();
        Stmt::walk_all(&func.body, &mut |stmt| {
            let statement = |code: &str| match stmt {
                Stmt::Let { var, .. } => format!("let {} = {code}", func.var(*var).name),
                Stmt::Assign { place, .. } => {
                    format!("{} = {code}", exec::place_text(func, place))
                }
                Stmt::Return { .. } => format!("return {code}"),
                _ => code.to_string(),
            };
            match stmt {
                Stmt::Let { component, .. }
                | Stmt::Assign { component, .. }
                | Stmt::Return { component, .. } => {
                    if let Some(c) = component {
                        let code = one_line(&c.site.span.code);
                        let shown = if c.site.kind == SiteKind::Compound {
                            compound_text(func, stmt, &code)
                        } else {
                            statement(&code)
                        };
                        found.push((c.site.clone(), shown));
                    }
                }
                Stmt::If {
                    branch: Some(c), ..
                } => found.push((
                    c.site.clone(),
                    format!("if {}", one_line(&c.site.span.code)),
                )),
                Stmt::While {
                    branch: Some(c), ..
                } => found.push((
                    c.site.clone(),
                    format!("while {}", one_line(&c.site.span.code)),
                )),
                Stmt::For {
                    iteration: crate::ir::Iteration::Range { bound: Some(c), .. },
                    ..
                } => found.push((
                    c.site.clone(),
                    format!("loop bound {}", one_line(&c.site.span.code)),
                )),
                _ => {}
            }
            stmt.exprs(&mut |e: &Expr| match &e.kind {
                ExprKind::Branch(_, c) => {
                    found.push((c.site.clone(), one_line(&c.site.span.code)));
                }
                ExprKind::If {
                    branch: Some(c), ..
                } => found.push((
                    c.site.clone(),
                    format!("if {}", one_line(&c.site.span.code)),
                )),
                _ => {}
            });
        });
        for (site, statement) in found {
            if !self.options.is_component(site.kind) {
                continue;
            }
            let statement = shorten(&statement, 60);
            let key = SiteKey {
                file: self.program.file.clone(),
                line: site.span.start.line,
                column: site.span.start.column,
                kind: site.kind,
            };
            if self.components.by_site.contains_key(&key) {
                continue;
            }
            let id = oracle.component(format!("line {}: {statement}", key.line));
            self.components.by_site.insert(key.clone(), id);
            self.components.info.push(ComponentInfo {
                id,
                site: key,
                function: func.name.clone(),
                statement,
            });
        }
    }

    /// Encodes `call` into `oracle` as a test of its own, or says why it cannot.
    pub fn encode(&mut self, oracle: &mut Z3Oracle, call: &Call) -> Encoding {
        if let Err(reason) = self.declare(oracle, &call.function) {
            return Encoding::degraded(call, reason);
        }
        let program = self.program;
        let Some(func) = program.function(&call.function) else {
            return Encoding::degraded(call, format!("`{}` not found", call.function));
        };
        let frame = match &call.trace {
            Some(trace) => match Frame::parse(trace.sites, trace.events) {
                Ok(frame) if frame.planned => {
                    return Encoding::degraded(
                        call,
                        "the trace was recorded under a plan (a flipped branch or an \
                         overridden value)"
                            .into(),
                    );
                }
                Ok(frame) => Some(frame),
                Err(reason) => return Encoding::degraded(call, reason),
            },
            None => None,
        };
        let prefix = format!("e{}!", ENCODINGS.fetch_add(1, Ordering::Relaxed));
        let mut exec = Exec::new(program, &self.options, &self.components.by_site, prefix);
        match self.walk(&mut exec, func, call, frame) {
            Ok((spec_terms, spec_items)) => {
                self.finish(oracle, call, func, exec, spec_terms, spec_items)
            }
            Err(stop) => {
                let mut enc = Encoding::degraded(call, stop.0);
                enc.notes = exec.notes;
                enc
            }
        }
    }

    /// The walk over the call and its specification.
    fn walk(
        &self,
        exec: &mut Exec<'p>,
        func: &'p Function,
        call: &Call,
        frame: Option<Frame>,
    ) -> value::R<(Vec<Bool>, Vec<SpecItem>)> {
        let recorded_args: &[Binding] = if call.args.is_empty() {
            frame.as_ref().map_or(&[], |f| &f.args)
        } else {
            &call.args
        };
        let mut args = Vec::new();
        for (i, &p) in func.params.iter().enumerate() {
            let var = func.var(p);
            let recorded = recorded_args
                .iter()
                .find(|(n, _)| *n == var.name)
                .or_else(|| recorded_args.get(i).filter(|(n, _)| n.is_empty()))
                .map(|(_, v)| v);
            let c = recorded.map_or(Concrete::Unknown, Concrete::from_value);
            if let Some(reason) = unknown_part(&c, &var.ty) {
                exec.note(format!(
                    "argument `{}` was not recorded{reason}: it is symbolic until the run \
                     shows its value",
                    var.name
                ));
            }
            args.push(exec.input(&var.ty, &c, &var.name));
        }
        let recorded_return = frame.as_ref().and_then(|f| f.returned.clone());
        let (exit, ret, mut cx) = exec.invoke(None, func, args, &Guard::top(), frame, 0)?;
        let mut terms = Vec::new();
        let mut items = Vec::new();
        let returned_normally = exec.halted.is_none();
        if call.spec.contracts {
            for contract in &func.contracts {
                if !crate::semantics::checked_on_exit(func, contract.kind) {
                    continue;
                }
                let (c, cc) = exec.contract_cond(&mut cx, &contract.cond, &exit)?;
                terms.push(exit.s.implies(&c));
                let word = match contract.kind {
                    ContractKind::Invariant => "invariant",
                    _ => "ensures",
                };
                items.push(SpecItem {
                    label: format!("{word}({})", one_line(&contract.site.span.code)),
                    detail: None,
                    held: cc.filter(|_| returned_normally),
                });
            }
        }
        if call.spec.no_panic {
            items.push(SpecItem {
                label: exec
                    .halted_by_assertion
                    .clone()
                    .unwrap_or_else(|| "no panic".into()),
                detail: exec.halted.clone(),
                held: Some(returned_normally),
            });
        }
        let expected = match &call.spec.ret {
            Expected::Nothing => None,
            Expected::Value(c) => Some((c.clone(), true)),
            Expected::Other(c) => Some((c.clone(), false)),
            Expected::Recorded => match recorded_return.as_ref().map(Concrete::from_value) {
                Some(Concrete::Unknown) | None => {
                    exec.note(
                        "the run's return value is not recorded in a form the model reads: \
                         only the contracts constrain this call"
                            .into(),
                    );
                    None
                }
                Some(c) => Some((c, true)),
            },
        };
        if let Some((expected, equal)) = expected {
            let free = exec.name("expected");
            let want =
                Val::from_concrete(&func.ret_ty, &expected, &free, self.program, &mut |_, _| {});
            let (eq, held) = value::equal(&ret, &want)?;
            let (eq, held, op) = if equal {
                (eq, held, "==")
            } else {
                (eq.not(), held.map(|h| !h), "!=")
            };
            terms.push(Bool::and(&[&exit.s, &eq]));
            items.push(SpecItem {
                label: format!("ret {op} {expected}"),
                detail: None,
                held: held.filter(|_| returned_normally).or(if returned_normally {
                    None
                } else {
                    Some(false)
                }),
            });
        }
        Ok((terms, items))
    }

    fn finish(
        &self,
        oracle: &mut Z3Oracle,
        call: &Call,
        func: &Function,
        exec: Exec<'p>,
        spec_terms: Vec<Bool>,
        spec_items: Vec<SpecItem>,
    ) -> Encoding {
        let mut enc = Encoding {
            test: call.test.clone(),
            function: func.name.clone(),
            role: call.role,
            added: false,
            degradations: Vec::new(),
            notes: exec.notes.clone(),
            components: Vec::new(),
            check: TraceCheck {
                matched: exec.matched,
                adopted: exec.adopted,
                learned: exec.learned.clone(),
            },
            spec: spec_items,
            formula: None,
        };
        for info in &self.components.info {
            let of: Vec<&Instance> = exec
                .instances
                .iter()
                .filter(|i| i.component == info.id)
                .collect();
            if !of.is_empty() {
                enc.components.push(EncodedComponent {
                    id: info.id,
                    site: info.site.clone(),
                    on_path: of.iter().filter(|i| i.step.is_some()).count(),
                    instances: of.len(),
                });
            }
        }
        // A failing run the model finds correct, or a passing run it finds wrong, is a
        // run the model does not describe.
        enc.degradations.extend(undescribed(&enc, call.role));
        let formula = Formula {
            structure: exec.structure,
            spec: spec_terms,
            no_panic: call.spec.no_panic,
            panics: exec.panics,
            instances: exec.instances,
            decisions: exec.decisions,
        };
        if enc.degradations.is_empty() {
            let constraints = constraints(oracle, &formula);
            let test = oracle.test(call.test.clone(), call.role);
            for c in &constraints {
                test.assert(c);
            }
            enc.added = true;
        }
        enc.formula = Some(formula);
        enc
    }
}

/// Why the model does not describe the run of `enc` (of role `role`): a failing run it
/// finds correct (or cannot judge), a passing run it finds wrong.
fn undescribed(enc: &Encoding, role: Role) -> Option<String> {
    let held: Vec<Option<bool>> = enc.spec.iter().map(|s| s.held).collect();
    let labels = |unknown_only: bool| {
        enc.spec
            .iter()
            .filter(|s| !unknown_only || s.held.is_none())
            .map(|s| s.label.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    match role {
        Role::Failing if !held.contains(&Some(false)) && held.contains(&None) => Some(format!(
            "the model cannot tell which part of the specification the run violated ({} not \
             known in the run)",
            labels(true)
        )),
        Role::Failing if !held.contains(&Some(false)) => Some(format!(
            "in the model the run meets its specification ({}): the failure is outside what \
             the model sees",
            labels(false)
        )),
        Role::Passing if held.contains(&Some(false)) => Some(format!(
            "in the model the passing run violates {}",
            enc.violated().join(", ")
        )),
        _ => None,
    }
}

/// The constraints of one call's formula for the diagnosis: each instance computes its
/// normal value unless its component is abnormal (then a function of what it reads), and
/// the specification holds.
fn constraints(oracle: &mut Z3Oracle, formula: &Formula) -> Vec<Bool> {
    let mut constraints: Vec<Bool> = formula.structure.clone();
    constraints.extend(formula.spec.iter().cloned());
    if formula.no_panic {
        // A panic inside an abnormal component's computation does not happen.
        let panics: Vec<Bool> = formula
            .panics
            .iter()
            .map(|p| {
                let mut parts = vec![p.term.clone()];
                for &o in &p.owners {
                    parts.push(oracle.ab(formula.instances[o].component).not());
                }
                Bool::and(&parts)
            })
            .collect();
        constraints.push(Bool::or(&panics).not());
    }
    for inst in &formula.instances {
        let ab = oracle.ab(inst.component).clone();
        let normal = equal_leaves(&inst.value, &inst.normal);
        constraints.push(Bool::or(&[&ab, &normal]));
        let reads: Vec<&dyn Ast> = inst.reads.iter().map(|d| d as &dyn Ast).collect();
        let repaired: Vec<Bool> = inst
            .value
            .iter()
            .enumerate()
            .map(|(leaf, v)| {
                let rep = if inst.value.len() == 1 {
                    oracle.repair(inst.component, &reads, &v.get_sort())
                } else {
                    // One function per part of a compound value.
                    let domain: Vec<z3::Sort> = inst.reads.iter().map(|r| r.get_sort()).collect();
                    let domain: Vec<&z3::Sort> = domain.iter().collect();
                    FuncDecl::new(
                        format!("rep!{}.{leaf}", inst.component.index()),
                        &domain,
                        &v.get_sort(),
                    )
                    .apply(&reads)
                };
                v.eq(&rep)
            })
            .collect();
        constraints.push(ab.implies(Bool::and(&repaired)));
    }
    constraints
}

/// `value == normal`, part by part.
pub(crate) fn equal_leaves(value: &[Dynamic], normal: &[Dynamic]) -> Bool {
    let parts: Vec<Bool> = value.iter().zip(normal).map(|(v, n)| v.eq(n)).collect();
    Bool::and(&parts)
}

/// Why a recorded argument leaves part of the parameter unknown, if it does.
fn unknown_part(c: &Concrete, ty: &crate::ir::Type) -> Option<String> {
    match c {
        Concrete::Unknown if !ty.is_opaque() && *ty != crate::ir::Type::Unit => {
            Some(format!(" as a `{ty}`"))
        }
        Concrete::Seq { items, len } if items.len() < *len => {
            Some(format!(" beyond its first {} elements", items.len()))
        }
        _ => None,
    }
}

/// Whether a call of `from` runs one of `targets`, itself or through calls `depth` deep at
/// most (as deep as the encoder inlines: deeper calls are not modelled anyway).
pub(crate) fn reaches(
    program: &Program,
    from: &Function,
    targets: &[&Function],
    depth: usize,
) -> bool {
    let mut todo = vec![(from, 0usize)];
    let mut seen: Vec<&str> = Vec::new();
    while let Some((func, d)) = todo.pop() {
        if targets.iter().any(|t| std::ptr::eq(*t, func)) {
            return true;
        }
        if seen.contains(&func.name.as_str()) || d >= depth {
            continue;
        }
        seen.push(&func.name);
        for callee in callees(func) {
            if let Some(f) = program.function(&callee) {
                todo.push((f, d + 1));
            }
        }
    }
    false
}

/// The functions `func` calls, by name.
fn callees(func: &Function) -> Vec<String> {
    let mut out = Vec::new();
    let mut visit = |e: &Expr| {
        if let ExprKind::Call { function, .. } = &e.kind {
            out.push(function.clone());
        }
    };
    Stmt::walk_all(&func.body, &mut |stmt| stmt.exprs(&mut visit));
    for contract in &func.contracts {
        contract.cond.walk(&mut visit);
    }
    out
}

/// `x op= e` as written.
fn compound_text(func: &Function, stmt: &Stmt, code: &str) -> String {
    match stmt {
        Stmt::Assign {
            place,
            value:
                Expr {
                    kind: ExprKind::Binary(op, ..),
                    ..
                },
            ..
        } => format!("{} {}= {code}", exec::place_text(func, place), op.symbol()),
        _ => code.to_string(),
    }
}

/// `text` cut to `max` characters, with `…` when cut.
fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut cut: String = text.chars().take(max - 1).collect();
    cut.push('…');
    cut
}
