//! The conflict oracle over z3: the model of one or more runs as hard constraints, one `ab`
//! literal per component, and candidates checked under assumptions, the unsat core naming
//! the conflict.
//!
//! The encoder declares the components, then writes each test's run into its own [`Test`]
//! scope: every constant of a test is a fresh copy, only the `ab` literals (and the shared
//! [`Z3Oracle::repair`] functions) are common to all tests. That is the joint formulation of
//! Könighofer & Bloem: one diagnosis must explain every failing test at once, and passing
//! tests added the same way remove the diagnoses that would break them. The encoding must be
//! *monotone* (abnormal never more constrained than normal, as `¬ab → normal` is), which is
//! what lets a core over the `¬ab` assumptions stand as a conflict for the HS-DAG of
//! [`crate::diagnose`].

use std::collections::{BTreeSet, HashMap};
use std::fmt;

use z3::ast::{Ast, BV, Bool, Dynamic, Int};
use z3::{FuncDecl, Model, Params, SatResult, Solver, Sort};

use crate::diagnose::{ConflictOracle, Verdict};

/// A component of the model (an assignment's right-hand side, a branch condition…).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ComponentId(usize);

impl ComponentId {
    /// The position of the component in declaration order.
    pub fn index(self) -> usize {
        self.0
    }
}

/// Why a test's run is in the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// A run that violated its specification: the diagnoses must explain it.
    Failing,
    /// A run that met its specification: the diagnoses must not break it.
    Passing,
}

/// How the oracle uses the solver.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// Per-check time limit in milliseconds (z3's `timeout`); a check that reaches it is
    /// "unknown", never taken for consistent or for a conflict.
    pub timeout_ms: u32,
    /// Per-check step limit (z3's `rlimit`, 0 for none): a count of the solver's own
    /// elementary steps, so a check it cuts is cut on any machine at the same point. A
    /// time limit alone decides differently on a busier machine.
    pub rlimit: u32,
    /// Shrink each unsat core by deletion until every element is needed: minimal conflicts
    /// give the hitting-set DAG fewer branches. Off by default: z3's cores on trace
    /// formulas are close to minimal already, and on Wotawa's `fsm` shrinking them cost four
    /// times the solver checks for no smaller DAG (`tests/diagnose_papers.rs`).
    pub minimize: bool,
    /// At most this many extra checks to shrink one conflict; what is left is still a
    /// conflict, just perhaps not a minimal one.
    pub minimize_checks: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            timeout_ms: 5_000,
            rlimit: 0,
            minimize: false,
            minimize_checks: 64,
        }
    }
}

/// A z3 sort the encoder gives values of: how to make a constant of the same sort.
pub trait Value: Ast + Clone {
    /// A constant named `name` of the sort of `like`.
    fn named(name: &str, like: &Self) -> Self;
}

impl Value for Bool {
    fn named(name: &str, _like: &Self) -> Self {
        Bool::new_const(name)
    }
}

impl Value for Int {
    fn named(name: &str, _like: &Self) -> Self {
        Int::new_const(name)
    }
}

impl Value for BV {
    fn named(name: &str, like: &Self) -> Self {
        BV::new_const(name, like.get_size())
    }
}

impl Value for Dynamic {
    fn named(name: &str, like: &Self) -> Self {
        Dynamic::new_const(name, &like.get_sort())
    }
}

struct Component {
    name: String,
    ab: Bool,
}

/// The outcome of one solver check under assumptions.
enum Check {
    Sat,
    /// The components assumed normal that the unsat core kept.
    Unsat(BTreeSet<ComponentId>),
    Unknown(String),
}

/// The model of the runs in a z3 solver, answering the HS-DAG's checks.
pub struct Z3Oracle {
    solver: Solver,
    components: Vec<Component>,
    tests: Vec<(String, Role)>,
    options: Options,
    solver_checks: usize,
    /// z3's step count, summed over this model's checks.
    steps: u64,
}

impl fmt::Debug for Z3Oracle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Z3Oracle")
            .field(
                "components",
                &self.components.iter().map(|c| &c.name).collect::<Vec<_>>(),
            )
            .field("tests", &self.tests)
            .field("options", &self.options)
            .finish()
    }
}

impl Default for Z3Oracle {
    fn default() -> Self {
        Z3Oracle::new(Options::default())
    }
}

impl Z3Oracle {
    /// An empty model: no components, no tests.
    pub fn new(options: Options) -> Self {
        let (timeout_ms, rlimit) = (options.timeout_ms, options.rlimit);
        let mut oracle = Z3Oracle {
            solver: Solver::new(),
            components: Vec::new(),
            tests: Vec::new(),
            options,
            solver_checks: 0,
            steps: 0,
        };
        oracle.set_limits(timeout_ms, rlimit);
        oracle
    }

    /// Changes the per-check time and step limits (z3's `timeout` and `rlimit`, 0 for no
    /// step limit) of the checks to come.
    pub fn set_limits(&mut self, timeout_ms: u32, rlimit: u32) {
        let mut params = Params::new();
        params.set_u32("timeout", timeout_ms);
        params.set_u32("rlimit", rlimit);
        self.solver.set_params(&params);
        self.options.timeout_ms = timeout_ms;
        self.options.rlimit = rlimit;
    }

    /// The solver steps this model's checks took (z3's `rlimit count`), summed: what a
    /// budget counted in steps spends, the same on every machine.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// z3's step count of this solver so far.
    fn step_count(&self) -> u64 {
        crate::steps::count(&self.solver.get_statistics())
    }

    /// Declares a component; `name` is for people (e.g. `"line 4: x"`), need not be unique.
    pub fn component(&mut self, name: impl Into<String>) -> ComponentId {
        let id = ComponentId(self.components.len());
        self.components.push(Component {
            name: name.into(),
            ab: Bool::new_const(format!("ab!{}", id.0)),
        });
        id
    }

    /// The `ab` literal of `c`, shared by every test.
    pub fn ab(&self, c: ComponentId) -> &Bool {
        &self.components[c.0].ab
    }

    /// The name `c` was declared with.
    pub fn name(&self, c: ComponentId) -> &str {
        &self.components[c.0].name
    }

    /// The names of a set of components, in component order.
    pub fn names(&self, set: &BTreeSet<ComponentId>) -> Vec<&str> {
        set.iter().map(|&c| self.name(c)).collect()
    }

    /// Every component, in declaration order.
    pub fn components(&self) -> impl Iterator<Item = ComponentId> + use<> {
        (0..self.components.len()).map(ComponentId)
    }

    /// The tests in the model, with their role, in the order they were added.
    pub fn tests(&self) -> &[(String, Role)] {
        &self.tests
    }

    /// How many times the solver was run, minimization included.
    pub fn solver_checks(&self) -> usize {
        self.solver_checks
    }

    /// Adds a test's run to the model; its constraints go through the returned scope.
    pub fn test(&mut self, name: impl Into<String>, role: Role) -> Test<'_> {
        self.tests.push((name.into(), role));
        Test {
            oracle: self,
            prefix: format!("t{}!", self.tests.len() - 1),
        }
    }

    /// The value the repaired `c` computes from `reads`: one uninterpreted function per
    /// component, shared by all tests, so that equal reads give equal values everywhere.
    /// A fix is one piece of code, which is why a passing test can rule a component out.
    pub fn repair(&self, c: ComponentId, reads: &[&dyn Ast], range: &Sort) -> Dynamic {
        let domain: Vec<Sort> = reads.iter().map(|r| r.get_sort()).collect();
        let domain: Vec<&Sort> = domain.iter().collect();
        FuncDecl::new(format!("rep!{}", c.0), &domain, range).apply(reads)
    }

    /// A model of the runs with `abnormal` abnormal and every other component normal:
    /// the values the abnormal components must take, for explanations and repairs.
    pub fn witness(&mut self, abnormal: &BTreeSet<ComponentId>) -> Option<Model> {
        let normal = self.complement(abnormal);
        match self.check_normal(&normal) {
            Check::Sat => self.solver.get_model(),
            Check::Unsat(_) | Check::Unknown(_) => None,
        }
    }

    fn complement(&self, set: &BTreeSet<ComponentId>) -> BTreeSet<ComponentId> {
        self.components().filter(|c| !set.contains(c)).collect()
    }

    /// Checks the model with `normal` assumed normal and every other component abnormal.
    fn check_normal(&mut self, normal: &BTreeSet<ComponentId>) -> Check {
        let mut by_literal: HashMap<Bool, ComponentId> = HashMap::new();
        let assumptions: Vec<Bool> = self
            .components()
            .map(|c| {
                let ab = self.ab(c);
                if normal.contains(&c) {
                    let literal = ab.not();
                    by_literal.insert(literal.clone(), c);
                    literal
                } else {
                    ab.clone()
                }
            })
            .collect();
        self.solver_checks += 1;
        let before = self.step_count();
        let result = self.solver.check_assumptions(&assumptions);
        let took = self.step_count().saturating_sub(before);
        self.steps += took;
        match result {
            SatResult::Sat => Check::Sat,
            // The positive `ab` literals may appear in the core too; for a monotone encoding
            // dropping them leaves a conflict.
            SatResult::Unsat => Check::Unsat(
                self.solver
                    .get_unsat_core()
                    .iter()
                    .filter_map(|literal| by_literal.get(literal).copied())
                    .collect(),
            ),
            SatResult::Unknown => {
                let reason = self.solver.get_reason_unknown().unwrap_or_default();
                // z3 says "canceled" (or "timeout") when its time or step limit stops it.
                let rlimit = self.options.rlimit;
                Check::Unknown(match reason.as_str() {
                    _ if rlimit > 0 && took >= u64::from(rlimit) => {
                        format!("z3 reached the step limit of {rlimit} ({reason})")
                    }
                    "canceled" | "timeout" => format!(
                        "z3 reached the time limit of {} ms ({reason})",
                        self.options.timeout_ms
                    ),
                    "" => "z3 returned unknown without a reason".to_string(),
                    _ => format!("z3 returned unknown: {reason}"),
                })
            }
        }
    }

    /// Deletion-based shrinking: drop one element at a time and keep the drop when the rest
    /// is still unsatisfiable (then its core, which may drop more at once).
    fn minimize(&mut self, mut conflict: BTreeSet<ComponentId>) -> BTreeSet<ComponentId> {
        let mut budget = self.options.minimize_checks;
        let order: Vec<ComponentId> = conflict.iter().copied().collect();
        for c in order {
            if budget == 0 {
                break;
            }
            if !conflict.contains(&c) {
                continue;
            }
            budget -= 1;
            let mut without = conflict.clone();
            without.remove(&c);
            // Unknown keeps `c`: what remains is then a conflict for certain.
            if let Check::Unsat(core) = self.check_normal(&without) {
                conflict = core;
            }
        }
        conflict
    }
}

impl ConflictOracle for Z3Oracle {
    type Component = ComponentId;

    fn check(&mut self, abnormal: &BTreeSet<ComponentId>) -> Verdict<ComponentId> {
        let normal = self.complement(abnormal);
        match self.check_normal(&normal) {
            Check::Sat => Verdict::Consistent,
            Check::Unknown(reason) => Verdict::Unknown(reason),
            Check::Unsat(core) if self.options.minimize => Verdict::Conflict(self.minimize(core)),
            Check::Unsat(core) => Verdict::Conflict(core),
        }
    }
}

/// One test's run in the model: fresh constants, and constraints that share only the
/// components' `ab` literals with other tests.
pub struct Test<'a> {
    oracle: &'a Z3Oracle,
    prefix: String,
}

impl Test<'_> {
    /// The z3 name of this test's copy of `base` (distinct from every other test's).
    pub fn name(&self, base: &str) -> String {
        format!("{}{base}", self.prefix)
    }

    /// This test's boolean constant `base`.
    pub fn bool(&self, base: &str) -> Bool {
        Bool::new_const(self.name(base))
    }

    /// This test's mathematical integer constant `base`.
    pub fn int(&self, base: &str) -> Int {
        Int::new_const(self.name(base))
    }

    /// This test's bit-vector constant `base` of `width` bits (Rust's fixed-width integers).
    pub fn bv(&self, base: &str, width: u32) -> BV {
        BV::new_const(self.name(base), width)
    }

    /// This test's constant `base` of any sort.
    pub fn constant(&self, base: &str, sort: &Sort) -> Dynamic {
        Dynamic::new_const(self.name(base), sort)
    }

    /// The `ab` literal of `c` (the same in every test).
    pub fn ab(&self, c: ComponentId) -> &Bool {
        self.oracle.ab(c)
    }

    /// A hard constraint of this run: an input value, the specification, the glue between
    /// components (control flow, φ-functions).
    pub fn assert(&self, constraint: &Bool) {
        self.oracle.solver.assert(constraint);
    }

    /// `¬ab_c → normal`: what `c` does when it behaves as written.
    pub fn behaves(&self, c: ComponentId, normal: &Bool) {
        self.assert(&Bool::or(&[self.ab(c), normal]));
    }

    /// A fresh value `base` that `c` computes as `rhs` when normal and freely when
    /// abnormal (the fault model of the papers: any value, chosen per test).
    pub fn assign<T: Value>(&self, c: ComponentId, base: &str, rhs: &T) -> T {
        let value = T::named(&self.name(base), rhs);
        self.behaves(c, &value.eq(rhs.clone()));
        value
    }

    /// Like [`Test::assign`], but abnormal `c` computes [`Z3Oracle::repair`] of `reads`:
    /// the same function in every test, so passing tests constrain what the fix may be.
    pub fn assign_repaired<T: Value>(
        &self,
        c: ComponentId,
        base: &str,
        rhs: &T,
        reads: &[&dyn Ast],
    ) -> T {
        let value = self.assign(c, base, rhs);
        let repaired = self.oracle.repair(c, reads, &value.get_sort());
        let as_dynamic = Dynamic::from_ast(&value);
        self.assert(&self.ab(c).implies(as_dynamic.eq(repaired)));
        value
    }
}
