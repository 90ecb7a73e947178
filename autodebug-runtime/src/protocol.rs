//! The data that crosses the process boundary between `cargo autodebug` and an instrumented
//! test process: environment variable names, trace records and plans. Plain serde types,
//! versioned; add fields freely (with `#[serde(default)]`), never rename.

use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// Version of the trace record stream ([`Record`]). 2: the runtime writes most events
/// relative to the site's previous record ([`Record::ComponentDelta`],
/// [`Record::EnterDelta`], [`Record::BranchDelta`]); a reader restores them with a
/// [`DeltaCache`]. A stream of version 1 has no delta records and reads the same way.
pub const TRACE_VERSION: u32 = 2;
/// Version of the plan format ([`Plan`]). Still 1 with [`Plan::replacements`] and
/// [`Plan::arguments`]: the fields are optional, and every plan written before them means
/// what it meant.
pub const PLAN_VERSION: u32 = 1;

/// Read by the macros at expansion time: when set to `1`, `#[autodebug]` and every
/// contract-annotated function are instrumented. Unset, the macros emit contract checks only.
pub const ENV_INSTRUMENT: &str = "AUTODEBUG_INSTRUMENT";
/// Path of the raw trace file (JSON lines of [`Record`]) an instrumented process writes.
pub const ENV_TRACE: &str = "AUTODEBUG_TRACE";
/// What goes into the trace: `events` (default: everything) or `coverage` (the sites reached).
pub const ENV_TRACE_MODE: &str = "AUTODEBUG_TRACE_MODE";
/// Path of a [`Plan`] (JSON) the process obeys: branch flips, value overrides, fuel.
pub const ENV_PLAN: &str = "AUTODEBUG_PLAN";
/// Cap on the number of event records in one trace; past it a [`Record::Truncated`] marker is
/// written once and events stop (plans still apply).
pub const ENV_MAX_EVENTS: &str = "AUTODEBUG_MAX_EVENTS";
/// Bytes of stack the instrumented calls of one thread may take (counted from the first
/// one's frame) before the runtime ends the test with a panic that names the function: a
/// recursion that does not end fails like any test instead of killing the process with
/// its trace. Unset or `0`: no bound. The tool sets it with `RUST_MIN_STACK` (test threads
/// get more stack than the bound) unless the user set `RUST_MIN_STACK`; a process's main
/// thread, whose stack is the system's, is not bounded.
pub const ENV_STACK_LIMIT: &str = "AUTODEBUG_STACK_LIMIT";
/// Default for [`ENV_MAX_EVENTS`].
pub const DEFAULT_MAX_EVENTS: u64 = 1_000_000;
/// Exit status of a process whose plan's fuel ran out (a runaway loop under a flip).
pub const FUEL_EXIT_CODE: i32 = 86;
/// Exit status of a process whose runtime configuration (plan, trace path, trace mode, event
/// cap) is unusable: the run cannot be trusted, so it does not go on.
pub const CONFIG_EXIT_CODE: i32 = 87;
/// Exit status of a batch process (see [`ENV_BATCH`]) that libtest was running a requested
/// test in whose function the build did not wrap (a test a macro writes): its first hook
/// call ends the process, which would otherwise run the whole test for no run of the
/// request. The tool runs that test's runs in processes of their own.
pub const UNWRAPPED_EXIT_CODE: i32 = 88;
/// Sequences (slices, `Vec`s, arrays) are recorded up to this many elements.
pub const MAX_SEQ_LEN: usize = 64;
/// Strings are recorded up to this many characters.
pub const MAX_STR_LEN: usize = 256;

/// What a site is. The identity of a site is (file, line, column, kind).
#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub enum SiteKind {
    /// Function entry (the span is the function's name).
    Fn,
    /// Condition of an `if` / `else if`.
    If,
    /// Condition of a `while`.
    While,
    /// Guard of a `match` arm.
    Guard,
    /// Operand of `&&` / `||` inside a condition.
    Operand,
    /// Right-hand side of a `let`.
    Let,
    /// Right-hand side of an assignment `place = rhs`.
    Assign,
    /// Right-hand side of a compound assignment `place op= rhs`.
    Compound,
    /// A returned value: `return e` or the tail expression of a function body.
    Return,
    /// A computed argument of a call, wherever the call stands: `x + 1` in `v.push(x + 1);`
    /// or `f(x + 1)?` (not a place such as `x`, nor a closure).
    Arg,
    /// A call statement none of whose arguments is an `Arg` site: `v.sort();`,
    /// `out.push(x);`. Its event says the call returned (its value is not overridden): it
    /// covers the statement, which a fix may delete or put a call beside.
    Call,
    /// The value a closure's body produces: `x % 2 == 1` in `|x| x % 2 == 1`, or the tail of
    /// a closure's block. A closure's tail is no `Return` site: the function does not
    /// return it.
    Closure,
    /// The value of a match arm whose match is not what the function returns (a `let`'s
    /// value, an argument, a statement): `x - 1` in `Excluded(x) => x - 1,`.
    Arm,
    /// A loop (`for`, `while`, `loop`): one event per iteration.
    Loop,
    /// The end bound of a `for` loop over a range (`n` in `0..n`).
    Bound,
    /// The start of a `for` loop's range (`1` in `1..n`).
    Start,
    /// A `#[requires]` condition.
    Requires,
    /// An `#[ensures]` condition.
    Ensures,
    /// An `#[invariant]` condition.
    Invariant,
}

impl SiteKind {
    /// Branch sites: their events carry an outcome that a plan can flip.
    pub fn is_branch(self) -> bool {
        matches!(
            self,
            SiteKind::If | SiteKind::While | SiteKind::Guard | SiteKind::Operand
        )
    }

    /// Component sites: their events carry a value that a plan can override.
    pub fn is_component(self) -> bool {
        matches!(
            self,
            SiteKind::Let
                | SiteKind::Assign
                | SiteKind::Compound
                | SiteKind::Return
                | SiteKind::Arg
                | SiteKind::Closure
                | SiteKind::Arm
                | SiteKind::Bound
                | SiteKind::Start
        )
    }
}

/// The identity of a site, as plans name it.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct SiteKey {
    /// Path as the compiler saw it (`file!()`).
    pub file: String,
    /// 1-based line of the start of the site's span.
    pub line: u32,
    /// 1-based column (in characters) of the start of the site's span.
    pub column: u32,
    /// What the site is.
    pub kind: SiteKind,
}

/// A site as described in a trace.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
pub struct SiteInfo {
    /// Path as the compiler saw it (`file!()`).
    pub file: String,
    /// 1-based line of the start of the span.
    pub line: u32,
    /// 1-based column (in characters) of the start of the span.
    pub column: u32,
    /// 1-based line of the end of the span.
    pub end_line: u32,
    /// 1-based column (in characters) just past the end of the span.
    pub end_column: u32,
    /// What the site is.
    pub kind: SiteKind,
    /// Source text of the span.
    pub code: String,
    /// Path of the enclosing function (`module::path::name`).
    pub function: String,
}

impl SiteInfo {
    /// The identity of this site.
    pub fn key(&self) -> SiteKey {
        SiteKey {
            file: self.file.clone(),
            line: self.line,
            column: self.column,
            kind: self.kind,
        }
    }
}

/// A runtime value as recorded (and as a plan overrides it).
#[derive(Serialize, Deserialize, Clone, PartialEq, Debug)]
#[serde(rename_all = "snake_case")]
pub enum Value {
    /// An integer of any width; `ty` is its Rust type (`i32`, `usize`, …).
    Int {
        ty: String,
        #[serde(with = "wide_int")]
        v: i128,
    },
    /// A float; `v` is its `Display` text (round-trips, and spells `NaN` and `inf`).
    Float { ty: String, v: String },
    /// A `bool`.
    Bool(bool),
    /// A `char`.
    Char(char),
    /// A string (`&str`, `String`), cut at [`MAX_STR_LEN`] characters.
    Str { v: String, truncated: bool },
    /// A slice, array or `Vec`, cut at [`MAX_SEQ_LEN`] elements; `len` is the real length.
    Seq { items: Vec<Value>, len: usize },
    /// `()`.
    Unit,
    /// An `Option` of a primitive, a `String` or a `&str`; `ty` is the type it holds (`u64`),
    /// so that a `None` still says what a `Some` would be.
    Opt { ty: String, v: Option<Box<Value>> },
    /// A value the runtime cannot represent; `ty` is its type name.
    Opaque { ty: String },
}

/// A named value: a variable in scope or an argument.
pub type Binding = (String, Value);

/// A value in a delta record ([`Record::ComponentDelta`], [`Record::EnterDelta`],
/// [`Record::BranchDelta`]): an integer of the same type as the value it replaces (the
/// binding's, operand's or site's value in the site's previous record) is written as its
/// number alone, `6000` for `{"int":{"ty":"i32","v":6000}}`; anything else as a [`Value`].
/// A [`DeltaCache`] gives back the `Value`.
#[derive(Clone, PartialEq, Debug)]
pub enum DeltaValue {
    /// An integer of the type of the value it replaces (written as a string beyond 64 bits,
    /// as in a [`Value::Int`]).
    Int(i128),
    /// Any value, in full.
    Full(Value),
}

impl Serialize for DeltaValue {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            DeltaValue::Int(v) => wide_int::serialize(v, s),
            DeltaValue::Full(v) => v.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for DeltaValue {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<DeltaValue, D::Error> {
        use serde::de::{self, value::MapAccessDeserializer};
        struct Either;
        impl<'de> de::Visitor<'de> for Either {
            type Value = DeltaValue;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an integer or a value")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<DeltaValue, E> {
                Ok(DeltaValue::Int(v.into()))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<DeltaValue, E> {
                Ok(DeltaValue::Int(v.into()))
            }
            fn visit_i128<E: de::Error>(self, v: i128) -> Result<DeltaValue, E> {
                Ok(DeltaValue::Int(v))
            }
            fn visit_u128<E: de::Error>(self, v: u128) -> Result<DeltaValue, E> {
                i128::try_from(v).map(DeltaValue::Int).map_err(E::custom)
            }
            // An integer beyond 64 bits (written as a decimal string), or `"unit"`, the one
            // value written as a string.
            fn visit_str<E: de::Error>(self, v: &str) -> Result<DeltaValue, E> {
                if let Ok(v) = v.parse() {
                    return Ok(DeltaValue::Int(v));
                }
                Value::deserialize(de::IntoDeserializer::<E>::into_deserializer(v))
                    .map(DeltaValue::Full)
            }
            fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<DeltaValue, A::Error> {
                Value::deserialize(MapAccessDeserializer::new(map)).map(DeltaValue::Full)
            }
        }
        d.deserialize_any(Either)
    }
}

/// A place in a file of the package, as a backtrace frame gives it.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
pub struct Frame {
    pub file: String,
    pub line: u32,
    pub column: u32,
}

/// One line of a raw trace file (JSON lines). The stream starts with a [`Record::Header`];
/// a [`Record::Site`] precedes the first event of its site. The runtime writes the first
/// [`Record::Component`], [`Record::Enter`] and [`Record::Branch`] of a site in full, and
/// the next ones relative to the site's previous record: a [`Record::ComponentDelta`] or
/// [`Record::EnterDelta`] when the scope (the arguments) names the same variables (a full
/// record otherwise), a [`Record::BranchDelta`] always. A reader passes every record, in the
/// order of the file, through a [`DeltaCache`], which gives back the full ones.
#[derive(Serialize, Deserialize, Clone, PartialEq, Debug)]
#[serde(tag = "r", rename_all = "snake_case")]
pub enum Record {
    /// First line of every trace.
    Header {
        version: u32,
        /// `events` or `coverage`.
        mode: String,
        pid: u32,
    },
    /// Declares site `id` (ids are small integers local to this trace).
    Site { id: u32, site: SiteInfo },
    /// A call of an instrumented function, with its argument values.
    Enter { site: u32, args: Vec<Binding> },
    /// A [`Record::Enter`] written as the change from the previous call of the same function
    /// in this trace: `changed` holds the arguments (by their index) whose values differ;
    /// the others, and the names, are those of that call. A [`DeltaCache`] restores it.
    EnterDelta {
        site: u32,
        changed: Vec<(u32, DeltaValue)>,
    },
    /// Return (or unwind, when `panicking`) from the innermost instrumented call.
    Exit { site: u32, panicking: bool },
    /// Instance `instance` (0-based, per site) of a branch site.
    Branch {
        site: u32,
        instance: u32,
        /// The outcome the program went on with (after any replacement and flip).
        outcome: bool,
        /// Whether that outcome differs from the written condition's: the plan flipped it, or
        /// a replacement computed the other one.
        flipped: bool,
        /// Values of the operands of a comparison, when they could be read without side effects.
        operands: Vec<Value>,
    },
    /// A [`Record::Branch`] of a site that has one before it in this trace: an operand that
    /// is an integer of the type of the previous record's operand at its place is written as
    /// its number ([`DeltaValue`]), and `flipped` only when true. A [`DeltaCache`] restores
    /// it.
    BranchDelta {
        site: u32,
        instance: u32,
        outcome: bool,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        flipped: bool,
        operands: Vec<DeltaValue>,
    },
    /// Instance `instance` of a component site, with the values of the variables in scope.
    Component {
        site: u32,
        instance: u32,
        /// The value the program went on with (after any replacement and override).
        value: Value,
        /// Whether the value came from the plan (an override, or a replacement's expression)
        /// instead of the written code.
        overridden: bool,
        scope: Vec<Binding>,
    },
    /// A [`Record::Component`] written as the change from the previous record of the same
    /// site in this trace: `changed` holds the variables (by their index in the scope) whose
    /// values differ; the others, and the names, are those of that record; `value` is
    /// relative to that record's value, and `overridden` written only when true. A
    /// [`DeltaCache`] restores it.
    ComponentDelta {
        site: u32,
        instance: u32,
        value: DeltaValue,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        overridden: bool,
        changed: Vec<(u32, DeltaValue)>,
    },
    /// Iteration `instance` of a loop site.
    Iteration { site: u32, instance: u32 },
    /// Check of a contract condition.
    Contract { site: u32, instance: u32, ok: bool },
    /// A panic, with the message and location the panic hook saw.
    Panic {
        message: String,
        file: String,
        line: u32,
        column: u32,
        thread: String,
    },
    /// Right after a [`Record::Panic`]: the frames of the panicking thread's backtrace in
    /// the package's own files below the panic's location, innermost first (the calls that
    /// led to it: a caller that passed a bad argument). Written for the first panics of a
    /// process only (a backtrace is costly to read).
    Callers { frames: Vec<Frame> },
    /// The plan asked for something that could not be done: an override whose value does
    /// not fit the site's type (the written value is kept), or a replacement that cannot be
    /// evaluated (it would not compile; the run ends here, see [`Replacement`]).
    PlanError {
        site: u32,
        instance: u32,
        message: String,
    },
    /// The end of an assertion statement of a test run with [`Plan::soft_assertions`]:
    /// whether it held. The calls recorded since the previous one are the ones it checked.
    Assertion { passed: bool },
    /// The plan's fuel ran out; the process exits with [`FUEL_EXIT_CODE`].
    FuelExhausted { fuel: u64 },
    /// The trace reached its event cap; no more events follow.
    Truncated { events: u64 },
    /// Last line of a trace whose process exited normally.
    End {
        events: u64,
        /// In `coverage` mode under a plan (whose hooks count instances anyway): how many
        /// instances each reached site counted, so a coverage trace still tells how often a
        /// point was reached. Empty otherwise.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        hits: Vec<SiteHits>,
    },
}

/// Restores the records a trace writes relative to a site's previous one
/// ([`Record::ComponentDelta`], [`Record::EnterDelta`], [`Record::BranchDelta`]) to the full
/// ones, keeping what the previous record of each site held, as the runtime does when it
/// writes them. One cache per trace, fed every record in the order of the file; the cache is
/// keyed by site, whatever thread made the event: the runtime writes the records of all
/// threads in one order, and keeps its own cache in that order.
#[derive(Debug, Default, Clone)]
pub struct DeltaCache {
    sites: HashMap<u32, Last>,
}

/// What the previous record of a site held.
#[derive(Debug, Default, Clone)]
struct Last {
    /// The scope of a component, the arguments of a call.
    bindings: Option<Vec<Binding>>,
    /// The value of a component.
    value: Option<Value>,
    /// The operands of a branch.
    operands: Option<Vec<Value>>,
}

impl DeltaCache {
    /// `record` as the full record it stands for: a delta becomes the [`Record::Component`],
    /// [`Record::Enter`] or [`Record::Branch`] it is relative to, with every value; a full
    /// one is remembered as its site's last; anything else is returned as it is. An error
    /// when a delta has no record of its site before it, or does not fit that record (a
    /// binding it does not have, an integer where it had none): a trace cut or spliced, whose
    /// record cannot be restored.
    pub fn restore(&mut self, record: Record) -> Result<Record, String> {
        match record {
            Record::Component {
                site,
                instance,
                value,
                overridden,
                scope,
            } => {
                let last = self.sites.entry(site).or_default();
                last.bindings = Some(scope.clone());
                last.value = Some(value.clone());
                Ok(Record::Component {
                    site,
                    instance,
                    value,
                    overridden,
                    scope,
                })
            }
            Record::Enter { site, args } => {
                self.sites.entry(site).or_default().bindings = Some(args.clone());
                Ok(Record::Enter { site, args })
            }
            Record::Branch {
                site,
                instance,
                outcome,
                flipped,
                operands,
            } => {
                self.sites.entry(site).or_default().operands = Some(operands.clone());
                Ok(Record::Branch {
                    site,
                    instance,
                    outcome,
                    flipped,
                    operands,
                })
            }
            Record::ComponentDelta {
                site,
                instance,
                value,
                overridden,
                changed,
            } => {
                let last = self.last(site)?;
                let value = resolve(site, value, last.value.as_ref())?;
                let scope = apply(site, last.bindings.as_mut(), changed)?;
                last.value = Some(value.clone());
                Ok(Record::Component {
                    site,
                    instance,
                    value,
                    overridden,
                    scope,
                })
            }
            Record::EnterDelta { site, changed } => {
                let last = self.last(site)?;
                Ok(Record::Enter {
                    site,
                    args: apply(site, last.bindings.as_mut(), changed)?,
                })
            }
            Record::BranchDelta {
                site,
                instance,
                outcome,
                flipped,
                operands,
            } => {
                let last = self.last(site)?;
                let previous = last.operands.as_deref().unwrap_or_default();
                let operands = operands
                    .into_iter()
                    .enumerate()
                    .map(|(i, v)| resolve(site, v, previous.get(i)))
                    .collect::<Result<Vec<_>, _>>()?;
                last.operands = Some(operands.clone());
                Ok(Record::Branch {
                    site,
                    instance,
                    outcome,
                    flipped,
                    operands,
                })
            }
            other => Ok(other),
        }
    }

    fn last(&mut self, site: u32) -> Result<&mut Last, String> {
        self.sites
            .get_mut(&site)
            .ok_or_else(|| format!("a delta of site {site}, whose earlier record is missing"))
    }
}

/// The value `v` of a delta of site `site` stands for, `previous` being the value it
/// replaces.
fn resolve(site: u32, v: DeltaValue, previous: Option<&Value>) -> Result<Value, String> {
    match (v, previous) {
        (DeltaValue::Full(v), _) => Ok(v),
        (DeltaValue::Int(v), Some(Value::Int { ty, .. })) => Ok(Value::Int { ty: ty.clone(), v }),
        (DeltaValue::Int(v), previous) => Err(format!(
            "a delta of site {site} has the integer {v} in place of {previous:?}"
        )),
    }
}

/// `bindings` (the site's last) with `changed` applied, kept as the last and returned.
fn apply(
    site: u32,
    bindings: Option<&mut Vec<Binding>>,
    changed: Vec<(u32, DeltaValue)>,
) -> Result<Vec<Binding>, String> {
    let bindings = bindings
        .ok_or_else(|| format!("a delta of site {site}, whose earlier record has no scope"))?;
    let mut values = Vec::with_capacity(changed.len());
    for (index, v) in changed {
        let Some(binding) = bindings.get(index as usize) else {
            return Err(format!(
                "a delta of site {site} changes binding {index} of {}",
                bindings.len()
            ));
        };
        values.push((index as usize, resolve(site, v, Some(&binding.1))?));
    }
    for (index, v) in values {
        bindings[index].1 = v;
    }
    Ok(bindings.clone())
}

/// The records of a whole trace, in the order of the file, with their deltas restored (see
/// [`DeltaCache`]).
pub fn restore_deltas(records: Vec<Record>) -> Result<Vec<Record>, String> {
    let mut cache = DeltaCache::default();
    records.into_iter().map(|r| cache.restore(r)).collect()
}

/// How many instances a site counted in one run (0 for a function entry, which counts
/// none).
#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
pub struct SiteHits {
    pub site: u32,
    pub instances: u32,
}

/// Which instances of a site a plan acts on.
#[derive(Serialize, Deserialize, Clone, PartialEq, Debug)]
pub struct Target {
    pub site: SiteKey,
    /// 0-based instance; `None` means every instance.
    #[serde(default)]
    pub instance: Option<u32>,
}

/// Replace the value of a component instance.
#[derive(Serialize, Deserialize, Clone, PartialEq, Debug)]
pub struct Override {
    #[serde(flatten)]
    pub target: Target,
    pub value: Value,
}

/// Replace what a site computes by an expression evaluated at the site: a repair candidate
/// validated by rerunning the suite instead of rebuilding it. On a component site the
/// expression's value is the component's value; on a branch site it is the outcome. Flips and
/// overrides of the same instance apply on top, as they would to the written code.
///
/// The written code still runs first (its value is [`Expr::Original`]), so its side effects
/// and panics happen as before. The expression must have the site's type exactly. One that
/// cannot be evaluated (mixed types, a variable or an operand the site does not report, a
/// site of a type that is not primitive) is a [`Record::PlanError`] and ends the run: the
/// process exits with [`CONFIG_EXIT_CODE`], a batch run is [`BatchOutcome::Refused`]. One
/// that overflows or divides by zero panics with Rust's message, as the rebuilt candidate
/// would.
#[derive(Serialize, Deserialize, Clone, PartialEq, Debug)]
pub struct Replacement {
    #[serde(flatten)]
    pub target: Target,
    pub expr: Expr,
}

/// An expression over what a site reports: the variables in scope (by name), the value the
/// code as written computed there ([`Expr::Original`]), the operands of a branch's comparison
/// ([`Expr::Operand`]), and literals. Types are Rust's: a variable or an operand has the type
/// its recorded value names, a literal the type it carries (there is
/// no inference: an integer literal next to a `u8` must say `u8`), and both operands of an
/// arithmetic or comparison operator must have one type (a shift's amount may be any integer
/// type). Integer arithmetic follows Rust's debug semantics in that type (overflow panics).
#[derive(Serialize, Deserialize, Clone, PartialEq, Debug)]
#[serde(tag = "e", rename_all = "snake_case")]
pub enum Expr {
    /// A literal value.
    Lit { value: Value },
    /// A variable in scope at the site.
    Var { name: String },
    /// The value the written code computed at this instance (a branch's outcome, a
    /// component's value): lets a candidate keep what was there (`original && x > 0`).
    Original,
    /// The value of the site's `index`-th operand at this instance, as a branch event records
    /// it: for a condition `l OP r` (after parentheses) with `OP` one of `==`, `!=`, `<`,
    /// `<=`, `>`, `>=`, operand 0 is `l` and operand 1 is `r`, each of the type of its value
    /// (a reference is read through: `&x` is `x`'s value). Lets a candidate keep what the
    /// scope does not hold (`a[i] < s` for `s > a[i]`: `Operand(1) < Var(s)`).
    ///
    /// The instrumentation reports the two operands of the conditions of `if`, `while`,
    /// match guards and of each operand of a top-level `&&`/`||` chain (a site of its own),
    /// when both sides can be evaluated a second time without effects: locals, literals,
    /// fields, indexing, `.len()`, casts, arithmetic, negation, `&` and `*` of those. It
    /// reports none for anything else: a negation `!(a < b)`, a method call `v.is_empty()`,
    /// a comparison with a call `f(x) < 3` or a move (`s + "x" == t`), a whole `&&`/`||`
    /// chain, and component sites. Reading an operand the site does not report, or one that
    /// is no primitive (a string, a slice), ends the run as any candidate that cannot be
    /// evaluated does; a plan reading an operand at a component site is refused when loaded.
    Operand { index: u32 },
    /// `-a`, `!a`.
    Unary { op: UnOp, arg: Box<Expr> },
    /// `a op b`.
    Binary {
        op: BinOp,
        left: Box<Expr>,
        right: Box<Expr>,
    },
    /// `a as ty` (`ty` a primitive type name: `i64`, `usize`, `f64`, `bool`, `char`, …;
    /// only the casts Rust has).
    Cast { ty: String, arg: Box<Expr> },
    /// `arg.name()`: a method of a primitive type that takes no argument and has no effect
    /// (`c.is_whitespace()`, `x.abs()`, `f.floor()`), one of [`METHODS`].
    Method { name: String, arg: Box<Expr> },
}

/// The methods an [`Expr::Method`] may call, by name.
pub const METHODS: &[&str] = &[
    "is_whitespace",
    "is_alphabetic",
    "is_alphanumeric",
    "is_numeric",
    "is_uppercase",
    "is_lowercase",
    "is_control",
    "is_ascii",
    "is_ascii_digit",
    "is_ascii_alphabetic",
    "is_ascii_alphanumeric",
    "is_ascii_uppercase",
    "is_ascii_lowercase",
    "is_ascii_punctuation",
    "is_ascii_whitespace",
    "is_ascii_hexdigit",
    "is_ascii_graphic",
    "is_ascii_control",
    "to_ascii_uppercase",
    "to_ascii_lowercase",
    "abs",
    "signum",
    "is_positive",
    "is_negative",
    "floor",
    "ceil",
    "round",
    "trunc",
    "fract",
    "sqrt",
    "is_nan",
    "is_finite",
    "is_infinite",
    "is_sign_negative",
    "is_sign_positive",
];

/// A unary operator of an [`Expr`].
#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "snake_case")]
pub enum UnOp {
    Neg,
    Not,
}

/// A binary operator of an [`Expr`], with Rust's meaning.
#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "snake_case")]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
    And,
    Or,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

/// Replace an argument of a call of an instrumented function at its entry, before its
/// preconditions are checked: the call goes on (and is recorded) as if the caller had passed
/// `value`. `target.site` is the function's `Fn` site and `target.instance` the 0-based call
/// of that function in the run (every call counts, nested ones included; `None`: every call).
///
/// The instrumentation replaces parameters bound to a plain name (`x: i32`, `mut n: u64`, not
/// `self` or a pattern) whose type is a primitive (an integer, a float, `bool`, `char`) or a
/// shared slice or `Vec` of primitives (`&[i32]`, `Vec<u8>`; a replaced slice lives until the
/// process ends). Any other parameter, or a value that does not fit the parameter's type, is a
/// [`Record::PlanError`] of the `Fn` site and the argument stays as passed.
#[derive(Serialize, Deserialize, Clone, PartialEq, Debug)]
pub struct Argument {
    #[serde(flatten)]
    pub target: Target,
    /// The parameter's name as written (`r#type` is `type`).
    pub name: String,
    pub value: Value,
}

/// What an instrumented process is asked to do differently.
#[derive(Serialize, Deserialize, Clone, PartialEq, Debug, Default)]
pub struct Plan {
    pub version: u32,
    /// Branch instances whose outcome is negated.
    #[serde(default)]
    pub flips: Vec<Target>,
    /// Component instances whose value is replaced.
    #[serde(default)]
    pub overrides: Vec<Override>,
    /// Sites whose code is replaced by an expression (repair candidates).
    #[serde(default)]
    pub replacements: Vec<Replacement>,
    /// Budget of hook calls (branches, iterations, components); when it runs out the process
    /// records [`Record::FuelExhausted`] and exits with [`FUEL_EXIT_CODE`].
    #[serde(default)]
    pub fuel: Option<u64>,
    /// Arguments replaced at the entry of calls (path generation drives a call with the
    /// inputs of another path).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub arguments: Vec<Argument>,
    /// Soft assertions: an `assert!`, `assert_eq!` or `assert_ne!` statement of a test wrapped
    /// by `#[autodebug_test]` that fails is recorded ([`Record::Assertion`]) and the test goes
    /// on to its next statement; the test still fails at its end, with the first failure's
    /// panic. The tool records such a run to see every call a test makes, not only those
    /// before the first failed assertion.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub soft_assertions: bool,
}

/// Version of the batch protocol ([`BatchRequest`], [`BatchResult`]).
pub const BATCH_VERSION: u32 = 3;
/// Path of a [`BatchRequest`] (JSON). A test binary built on `autodebug_runtime::harness`,
/// or a libtest test wrapped by `#[autodebug_test]` (as the tool's instrumented copy
/// wraps them) run with `--exact NAME`, that sees it runs the request's test once per plan inside its own process, writes one
/// [`BatchResult`] line per run to the request's `results` file, and exits with status 0
/// (or [`CONFIG_EXIT_CODE`] if the request is unusable). Other test binaries ignore it.
pub const ENV_BATCH: &str = "AUTODEBUG_BATCH";
/// Set (to `1`) when the tool asks a test binary whether it supports batches: a harness
/// binary then prints [`HARNESS_MARKER`] followed by [`BATCH_VERSION`] (`autodebug-harness:
/// batch 3`) as a line of its `--list` output.
pub const ENV_HARNESS_PROBE: &str = "AUTODEBUG_HARNESS_PROBE";
/// The start of the line a harness binary prints when probed (see [`ENV_HARNESS_PROBE`]).
pub const HARNESS_MARKER: &str = "autodebug-harness: batch ";

/// Many runs in one process, each with its own plan and trace: of one test, or of many
/// tests of one binary (each run naming its own, [`BatchRun::test`]). A libtest binary whose
/// tests the tool wrapped runs a request over many tests when started with `--exact` and
/// their names, one thread: each test, when libtest reaches it, runs its own runs and
/// returns, so the results file holds the runs in the order libtest runs the tests (by
/// name); a harness binary runs them in request order.
#[derive(Serialize, Deserialize, Clone, PartialEq, Debug)]
pub struct BatchRequest {
    pub version: u32,
    /// The exact name, as `--list` prints it, of the test of every run that names none.
    pub test: String,
    /// Trace mode for every run: `events` or `coverage` (see [`ENV_TRACE_MODE`]).
    #[serde(default = "default_trace_mode")]
    pub trace_mode: String,
    /// Cap on the event records of each trace (default [`DEFAULT_MAX_EVENTS`]).
    #[serde(default)]
    pub max_events: Option<u64>,
    /// With `coverage` traces: each run's coverage goes into its result line
    /// ([`BatchResult::coverage`]) instead of a trace file, so a run costs no file at all.
    #[serde(default)]
    pub inline_coverage: bool,
    /// File the [`BatchResult`] lines go to, one line per finished run, flushed as it is
    /// written: after a crash or a kill the lines there tell which runs finished.
    pub results: String,
    /// The runs, in order.
    pub runs: Vec<BatchRun>,
}

fn default_trace_mode() -> String {
    "events".to_string()
}

/// One run of a batch.
#[derive(Serialize, Deserialize, Clone, PartialEq, Debug, Default)]
pub struct BatchRun {
    /// The test the run runs (none: the request's [`BatchRequest::test`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test: Option<String>,
    /// The plan the run obeys (none: an unchanged run).
    #[serde(default)]
    pub plan: Option<Plan>,
    /// Where the run's trace goes (none: no trace).
    #[serde(default)]
    pub trace: Option<String>,
    /// Runs of one group stop at the first that does not pass: the group's later runs (in
    /// the order the process runs them) are [`BatchOutcome::Skipped`]. The runs of one
    /// candidate fix over a suite: one failure refutes it, and a candidate that sends a loop
    /// into a runaway costs its fuel once, not once per test.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<u32>,
}

/// How one batch run ended.
#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "kebab-case")]
pub enum BatchOutcome {
    /// The test returned.
    Passed,
    /// The test panicked.
    Failed,
    /// The plan's fuel ran out (the trace ends with [`Record::FuelExhausted`]).
    FuelExhausted,
    /// The run's configuration was refused (an invalid plan, an uncreatable trace file);
    /// `message` says why. A process would have exited with [`CONFIG_EXIT_CODE`].
    Refused,
    /// Not run: an earlier run of its [`BatchRun::group`] did not pass.
    Skipped,
}

/// Where a panic happened.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
pub struct PanicLocation {
    pub file: String,
    pub line: u32,
    pub column: u32,
}

/// One line of a batch's results file: how run `index` ended.
#[derive(Serialize, Deserialize, Clone, PartialEq, Debug)]
pub struct BatchResult {
    /// Index of the run in [`BatchRequest::runs`].
    pub index: usize,
    pub outcome: BatchOutcome,
    /// The message of the run's first panic (for [`BatchOutcome::Failed`]), or why the run
    /// was refused.
    #[serde(default)]
    pub message: Option<String>,
    /// Where the run's first panic happened.
    #[serde(default)]
    pub location: Option<PanicLocation>,
    /// The trace the run wrote, if it was asked for one.
    #[serde(default)]
    pub trace: Option<String>,
    /// Wall time of the run, in microseconds.
    #[serde(default)]
    pub micros: u64,
    /// The run's coverage, when the request asked for it inline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coverage: Option<InlineCoverage>,
    /// With [`Plan::soft_assertions`]: whether each assertion statement the test ended
    /// passed, in order (a run with a trace also has them as [`Record::Assertion`]s).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub assertions: Vec<bool>,
}

/// The coverage of one batch run, carried in its result line. Site ids are process-wide
/// in a batch: a site is declared (with its [`SiteInfo`]) in the result of the first run
/// that reached it, and named by id only after that.
#[derive(Serialize, Deserialize, Clone, PartialEq, Debug, Default)]
pub struct InlineCoverage {
    /// The sites first reached in this process by this run.
    #[serde(default)]
    pub declared: Vec<SiteDecl>,
    /// Every site the run reached, with its instance count.
    #[serde(default)]
    pub hits: Vec<SiteHits>,
}

/// A site's declaration: its id in this trace or batch, and what it is.
#[derive(Serialize, Deserialize, Clone, PartialEq, Debug)]
pub struct SiteDecl {
    pub id: u32,
    pub site: SiteInfo,
}

/// `i128` through serde's buffered paths (the internally tagged [`Record`], the flattened
/// [`Override`]), which reject 128-bit integers: written as a JSON number when it fits in
/// `i64` or `u64` (every value of a 64-bit type), as a decimal string otherwise; read back
/// from either.
mod wide_int {
    use serde::{Deserializer, Serializer, de};
    use std::fmt;

    pub fn serialize<S: Serializer>(v: &i128, s: S) -> Result<S::Ok, S::Error> {
        if let Ok(x) = i64::try_from(*v) {
            s.serialize_i64(x)
        } else if let Ok(x) = u64::try_from(*v) {
            s.serialize_u64(x)
        } else {
            s.serialize_str(&v.to_string())
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<i128, D::Error> {
        struct Wide;
        impl de::Visitor<'_> for Wide {
            type Value = i128;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an integer or a decimal string")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<i128, E> {
                Ok(v.into())
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<i128, E> {
                Ok(v.into())
            }
            fn visit_i128<E: de::Error>(self, v: i128) -> Result<i128, E> {
                Ok(v)
            }
            fn visit_u128<E: de::Error>(self, v: u128) -> Result<i128, E> {
                i128::try_from(v).map_err(E::custom)
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<i128, E> {
                v.parse().map_err(E::custom)
            }
        }
        d.deserialize_any(Wide)
    }
}
