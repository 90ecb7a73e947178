//! Weakest-precondition evidence (issue 5, item 4): for a component at one of its
//! instances on a failing run, the values it could have produced for which the rest of the
//! *recorded path* meets the specification — the path-based weakest precondition of the
//! AutoDebug paper, restricted to the value that component defines. The later branches keep
//! their recorded outcomes, every other component behaves as written, and the state before
//! the instance is the run's. When no value works on the recorded path, the path is allowed
//! to change, and the result says so.
//!
//! z3 computes the set over the encoding of the call ([`crate::encode`]): a single value, a
//! range (its ends by optimization, checked to have no gap), or "anything but" a few
//! values; the sentence a developer reads compares it with the value the run had. Walking
//! the instances in the order of the run, the first whose value lies outside a non-empty
//! set is where the run first went wrong in a way a single change can mend.

use std::fmt;

use autodebug_runtime::protocol::SiteKey;
use z3::ast::{BV, Bool};
use z3::{Model, Optimize, Params, SatResult, Solver};

use crate::conflicts::ComponentId;
use crate::encode::{Bits, Concrete, Encoding, Formula, Val, bv_value, equal_leaves};

/// How hard the solver may work on one requirement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// Step limit of each solver check (z3's `rlimit`; see [`crate::steps`]).
    pub steps: u32,
    /// At most this many instances are examined by [`first_disagreement`].
    pub max_points: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            steps: 20_000_000,
            max_points: 200,
        }
    }
}

/// The values a component may produce for the specification to hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Allowed {
    /// None: the specification cannot hold whatever the value.
    Nothing,
    /// Every value.
    Anything,
    /// Exactly one value.
    Exactly(Concrete),
    /// Every integer between the bounds (a missing bound is the type's).
    Range {
        /// The smallest allowed value, unless it is the type's smallest.
        min: Option<i128>,
        /// The largest allowed value, unless it is the type's largest.
        max: Option<i128>,
    },
    /// Every value but these.
    AllBut(Vec<Concrete>),
    /// Some values between `min` and `max` but not all of them; one of them.
    Among {
        /// The smallest allowed value.
        min: i128,
        /// The largest allowed value.
        max: i128,
        /// An allowed value.
        example: Concrete,
    },
}

impl fmt::Display for Allowed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Allowed::Nothing => write!(f, "nothing"),
            Allowed::Anything => write!(f, "anything"),
            Allowed::Exactly(v) => write!(f, "{v}"),
            Allowed::Range {
                min: Some(lo),
                max: Some(hi),
            } => write!(f, "between {lo} and {hi}"),
            Allowed::Range {
                min: Some(lo),
                max: None,
            } => write!(f, "≥ {lo}"),
            Allowed::Range {
                min: None,
                max: Some(hi),
            } => write!(f, "≤ {hi}"),
            Allowed::Range {
                min: None,
                max: None,
            } => write!(f, "anything"),
            Allowed::AllBut(values) => {
                let shown: Vec<String> = values.iter().map(ToString::to_string).collect();
                write!(f, "anything but {}", shown.join(", "))
            }
            Allowed::Among { min, max, example } => write!(
                f,
                "one of some values between {min} and {max} (e.g. {example})"
            ),
        }
    }
}

/// What the specification asks of one component instance of a failing run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Requirement {
    /// The component.
    pub component: ComponentId,
    /// Its site.
    pub site: SiteKey,
    /// What it defines, as people say it (`` `r` ``, ``the condition `y > x` ``).
    pub target: String,
    /// The values that let the specification hold.
    pub allowed: Allowed,
    /// The value the run had.
    pub actual: Concrete,
    /// Whether the run's value is allowed (`None` when the solver could not tell).
    pub actual_allowed: Option<bool>,
    /// The later branches were allowed to go another way than in the run (no value
    /// worked on the recorded path).
    pub path_changed: bool,
    /// What the specification asks, as the sentence says it (`` `ensures(ret >= x)` to
    /// hold ``, `the call not to panic (…)`).
    pub spec: String,
    /// The instance's position in the run's order of events.
    pub step: usize,
}

impl Requirement {
    /// Whether the run's value lies outside a non-empty allowed set: evidence against the
    /// component.
    pub fn disagrees(&self) -> bool {
        self.allowed != Allowed::Nothing && self.actual_allowed == Some(false)
    }

    /// The sentence a developer reads: "for `ensures(ret >= x && ret >= y)` to hold, `r`
    /// after line 4 must be ≥ 2; it was 1".
    pub fn sentence(&self) -> String {
        let place = if self.target.starts_with("the condition") {
            format!("{} at line {}", self.target, self.site.line)
        } else {
            format!("{} after line {}", self.target, self.site.line)
        };
        let path = if self.path_changed {
            " (no value does on the recorded path: the later branches must change too)"
        } else {
            ""
        };
        match &self.allowed {
            Allowed::Nothing => format!(
                "for {}, no value of {place} will do, even on another path; it was {}",
                self.spec, self.actual
            ),
            Allowed::Anything
            | Allowed::Range {
                min: None,
                max: None,
            } => format!(
                "for {}, any value of {place} will do{path}; it was {}",
                self.spec, self.actual
            ),
            Allowed::AllBut(values) => {
                let shown: Vec<String> = values.iter().map(ToString::to_string).collect();
                format!(
                    "for {}, {place} must not be {}{path}; it was {}",
                    self.spec,
                    shown.join(" or "),
                    self.actual
                )
            }
            allowed => format!(
                "for {}, {place} must be {allowed}{path}; it was {}",
                self.spec, self.actual
            ),
        }
    }
}

/// What the specification asks of `component` at its first instance on the recorded path
/// of `encoding` (a failing call). `None` when the component has no instance on the path
/// or its value is not a scalar, or the call was not encoded.
pub fn requirement(
    encoding: &Encoding,
    component: ComponentId,
    options: &Options,
) -> Option<Requirement> {
    let formula = encoding.formula.as_ref()?;
    let at = formula
        .instances
        .iter()
        .enumerate()
        .filter(|(_, i)| i.component == component && i.step.is_some())
        .min_by_key(|(_, i)| i.step)?
        .0;
    at_instance(encoding, formula, at, true, options)
}

/// The first component instance, in the order of the run, whose value lies outside the
/// values the specification allows there on the recorded path (while some are allowed):
/// where the run first went wrong in a way one change, keeping the path, can mend.
pub fn first_disagreement(encoding: &Encoding, options: &Options) -> Option<Requirement> {
    let formula = encoding.formula.as_ref()?;
    let mut order: Vec<usize> = (0..formula.instances.len())
        .filter(|&i| formula.instances[i].step.is_some())
        .collect();
    order.sort_by_key(|&i| formula.instances[i].step);
    order
        .into_iter()
        .take(options.max_points)
        .filter_map(|at| at_instance(encoding, formula, at, false, options))
        .find(Requirement::disagrees)
}

/// The requirement at instance `at`; with `may_change_path`, the later branches may go
/// another way when no value works on the recorded path.
fn at_instance(
    encoding: &Encoding,
    formula: &Formula,
    at: usize,
    may_change_path: bool,
    options: &Options,
) -> Option<Requirement> {
    let inst = &formula.instances[at];
    let step = inst.step?;
    let actual = actual(&inst.stored);
    let (mut found, mut path_changed) = (allowed(formula, at, true, options)?, false);
    if found.0 == Allowed::Nothing && may_change_path {
        found = allowed(formula, at, false, options)?;
        path_changed = true;
    }
    let spec = encoding.spec_phrase();
    Some(Requirement {
        component: inst.component,
        site: inst.site.clone(),
        target: inst.target.clone(),
        allowed: found.0,
        actual,
        actual_allowed: found.1,
        path_changed,
        spec,
        step,
    })
}

fn actual(v: &Val) -> Concrete {
    match v {
        Val::Bool(_, Some(b)) => Concrete::Bool(*b),
        Val::Bits(_, Some(x), Bits::Char) => u32::try_from(*x)
            .ok()
            .and_then(char::from_u32)
            .map_or(Concrete::Int(*x), Concrete::Char),
        Val::Bits(_, Some(x), _) => Concrete::Int(*x),
        _ => Concrete::Unknown,
    }
}

/// The scalar an instance stores: a `bool` or a bit-vector with its signedness.
enum Scalar {
    Bool(Bool),
    Bits(BV, bool, Bits),
}

/// The set of values instance `at` may store for the specification to hold, and whether
/// the run's value is in it. `pinned` keeps the later branches' recorded outcomes. `None`
/// when the value is not a scalar or the solver gave up.
fn allowed(
    formula: &Formula,
    at: usize,
    pinned: bool,
    options: &Options,
) -> Option<(Allowed, Option<bool>)> {
    let inst = &formula.instances[at];
    let q = Query::new(formula, at, pinned, options)?;
    let holds = q.literal(&q.spec, "spec");
    let fails = q.literal(&q.spec.not(), "fails");
    let scalar = match &inst.stored {
        Val::Bool(b, _) => Scalar::Bool(b.clone()),
        Val::Bits(bv, _, k) => Scalar::Bits(bv.clone(), k.signed(), *k),
        _ => return None,
    };
    let is_actual = match (&scalar, actual(&inst.stored).scalar()) {
        (Scalar::Bool(b), Some(v)) => Some(b.iff(Bool::from_bool(v != 0))),
        (Scalar::Bits(bv, _, k), Some(v)) => Some(bv.eq(crate::encode::bv_const(v, k.width()))),
        _ => None,
    };
    let actual_allowed = match &is_actual {
        Some(eq) => q.check(&[holds.clone(), q.literal(eq, "actual")]),
        None => None,
    };
    if !q.check(std::slice::from_ref(&holds))? {
        return Some((Allowed::Nothing, Some(false)));
    }
    let allowed = match scalar {
        Scalar::Bool(b) => {
            let can_true = q.check(&[holds.clone(), q.literal(&b, "true")])?;
            let can_false = q.check(&[holds, q.literal(&b.not(), "false")])?;
            match (can_true, can_false) {
                (true, true) => Allowed::Anything,
                (true, false) => Allowed::Exactly(Concrete::Bool(true)),
                _ => Allowed::Exactly(Concrete::Bool(false)),
            }
        }
        Scalar::Bits(x, signed, kind) => q.bits(&x, signed, kind, &fails)?,
    };
    Some((allowed, actual_allowed))
}

/// The solver of one instance's question: every other instance as the model computes it
/// (and, pinned, the later branches as recorded), and the specification, under which the
/// values the instance may store are asked for.
struct Query {
    at: usize,
    base: Vec<Bool>,
    spec: Bool,
    params: Params,
    solver: Solver,
}

impl Query {
    fn new(formula: &Formula, at: usize, pinned: bool, options: &Options) -> Option<Self> {
        let step = formula.instances[at].step?;
        let mut base: Vec<Bool> = formula.structure.clone();
        for (i, other) in formula.instances.iter().enumerate() {
            if i != at {
                base.push(equal_leaves(&other.value, &other.normal));
            }
        }
        if pinned {
            for d in formula.decisions.iter().filter(|d| d.step > step) {
                base.push(d.cond.iff(Bool::from_bool(d.outcome)));
            }
        }
        let mut spec_parts = formula.spec.clone();
        if formula.no_panic {
            // The instance's own computation does not run when its value is replaced.
            let panics: Vec<&Bool> = formula
                .panics
                .iter()
                .filter(|p| !p.owners.contains(&at))
                .map(|p| &p.term)
                .collect();
            spec_parts.push(Bool::or(&panics).not());
        }
        let params = crate::steps::params(options.steps);
        let solver = Solver::new();
        solver.set_params(&params);
        for b in &base {
            solver.assert(b);
        }
        Some(Query {
            at,
            base,
            spec: Bool::and(&spec_parts),
            params,
            solver,
        })
    }

    /// Whether the assertions and `extra` (literals) can hold; `None` when the solver
    /// gave up.
    fn check(&self, extra: &[Bool]) -> Option<bool> {
        match self.solver.check_assumptions(extra) {
            SatResult::Sat => Some(true),
            SatResult::Unsat => Some(false),
            SatResult::Unknown => None,
        }
    }

    /// A literal standing for `b` (assumptions must be literals).
    fn literal(&self, b: &Bool, name: &str) -> Bool {
        let l = Bool::new_const(format!("wp!{name}!{}", self.at));
        self.solver.assert(l.implies(b));
        l
    }

    /// The values a bit-vector instance `x` may store (the specification holds for some
    /// value; `fails` names its negation): anything, one value, a range, all but a few, or
    /// some values between two.
    fn bits(&self, x: &BV, signed: bool, kind: Bits, fails: &Bool) -> Option<Allowed> {
        if !self.check(std::slice::from_ref(fails))? {
            return Some(Allowed::Anything);
        }
        let width = x.get_size();
        let value_of = |m: &Model| m.eval(x, true).and_then(|v| bv_value(&v, signed));
        let lo = self.extreme(x, signed, false).and_then(|m| value_of(&m))?;
        let hi = self.extreme(x, signed, true).and_then(|m| value_of(&m))?;
        if lo == hi {
            return Some(Allowed::Exactly(shown(lo, kind)));
        }
        let lo_c = crate::encode::bv_const(lo, width);
        let hi_c = crate::encode::bv_const(hi, width);
        let between = if signed {
            Bool::and(&[x.bvsge(&lo_c), x.bvsle(&hi_c)])
        } else {
            Bool::and(&[x.bvuge(&lo_c), x.bvule(&hi_c)])
        };
        let inside = self.literal(&between, "inside");
        if !self.check(&[fails.clone(), inside])? {
            let (min, max) = type_bounds(kind, signed, width);
            return Some(Allowed::Range {
                min: (lo != min).then_some(lo),
                max: (Some(hi) != max).then_some(hi),
            });
        }
        // A few forbidden values only?
        let mut forbidden = Vec::new();
        let mut blocked: Vec<Bool> = vec![fails.clone()];
        for n in 0..4 {
            match self.solver.check_assumptions(&blocked) {
                SatResult::Sat => {
                    let v = self.solver.get_model().as_ref().and_then(value_of)?;
                    forbidden.push(v);
                    let not_v = x.eq(crate::encode::bv_const(v, width)).not();
                    blocked.push(self.literal(&not_v, &format!("not{n}")));
                }
                SatResult::Unsat => break,
                SatResult::Unknown => return None,
            }
        }
        if forbidden.len() <= 3 {
            forbidden.sort();
            return Some(Allowed::AllBut(
                forbidden.into_iter().map(|v| shown(v, kind)).collect(),
            ));
        }
        Some(Allowed::Among {
            min: lo,
            max: hi,
            example: shown(lo, kind),
        })
    }

    /// A model where the specification holds with `x` smallest (or largest) in its
    /// order.
    fn extreme(&self, x: &BV, signed: bool, maximize: bool) -> Option<Model> {
        let opt = Optimize::new();
        opt.set_params(&self.params);
        for b in &self.base {
            opt.assert(b);
        }
        opt.assert(&self.spec);
        let width = x.get_size();
        // Unsigned order of `x ^ sign bit` is the signed order of `x`.
        let key = if signed {
            x.bvxor(crate::encode::bv_const(1i128 << (width - 1), width))
        } else {
            x.clone()
        };
        if maximize {
            opt.maximize(&key);
        } else {
            opt.minimize(&key);
        }
        match opt.check(&[]) {
            SatResult::Sat => opt.get_model(),
            _ => None,
        }
    }
}

/// A value of kind `kind` as the user reads it (a `char` as the character).
fn shown(v: i128, kind: Bits) -> Concrete {
    match kind {
        Bits::Char => u32::try_from(v)
            .ok()
            .and_then(char::from_u32)
            .map_or(Concrete::Int(v), Concrete::Char),
        _ => Concrete::Int(v),
    }
}

/// The smallest and largest value of a bit-vector kind (`None`: beyond `i128`).
fn type_bounds(kind: Bits, signed: bool, width: u32) -> (i128, Option<i128>) {
    let _ = kind;
    if signed {
        if width >= 128 {
            (i128::MIN, Some(i128::MAX))
        } else {
            (-(1i128 << (width - 1)), Some((1i128 << (width - 1)) - 1))
        }
    } else if width >= 128 {
        (0, None)
    } else {
        (0, Some((1i128 << width) - 1))
    }
}
