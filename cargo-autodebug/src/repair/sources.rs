//! Repair's candidate sources, registered in one place, in the order they are asked on each
//! target. A new source is a file of this folder (a [`CandidateSource`]) and one line here.

use super::siblings;
use super::statements;
use super::syntactic;
use super::synthesis;
use super::{CandidateSource, Context, Limits, SYNTHESIS_TIME, Target, joint, switched};
use super::{adaptors, branches, clauses, discarded, guards, order, overflow, peers, renames};

/// What a source can be made from.
pub struct Inputs<'a> {
    pub context: &'a Context<'a>,
    pub limits: &'a Limits,
    /// The targets' functions in the symbolic model (template synthesis).
    pub programs: &'a synthesis::Programs,
    /// The targets' files as this run read them (the edits' bytes index them).
    pub files: &'a super::Files,
    /// The statements whose dropped value the compiler warned of, with their places.
    pub warned: &'a [(Target, String)],
}

/// A source's constructor, from the inputs and the sites to repair (in rank order; a
/// source keeps what it needs of them).
pub type Make = for<'a, 't> fn(&Inputs<'a>, &'t [Target]) -> Box<dyn CandidateSource + 'a>;

/// Every source, in the order they are asked.
pub const SOURCES: &[Make] = &[
    // The outcomes a critical predicate's passing run needed, as a condition's spec.
    |i, _| {
        Box::new(switched::Switched::new(
            &i.context.findings.flipped,
            i.context.traces,
        ))
    },
    // Templates whose holes z3 fills from the failing and accepted calls.
    |i, _| {
        Box::new(synthesis::Synthesis::new(
            i.programs,
            i.context.traces,
            i.context.oracles,
            SYNTHESIS_TIME.min(i.limits.time),
            i.limits.solver_memory_mb,
        ))
    },
    // One-token edits of the site's code.
    |_, _| Box::new(syntactic::Syntactic::default()),
    // The operation an overflow panic names, in its saturating, wrapping or checked form.
    |i, _| Box::new(overflow::Overflows::new(i.files, i.context.traces)),
    // A name a copied statement kept where its neighbour's renames say it should change.
    |i, _| Box::new(renames::Renames::new(i.files)),
    // A dropped value the compiler warned of, assigned back to its place.
    |i, _| Box::new(discarded::Discarded::over(i.warned)),
    // A statement around the site deleted, or a call on a local vector put next to it.
    |i, _| Box::new(statements::StatementEdits::new(i.files)),
    // A statement a sibling branch has before the code both end with, put in.
    |i, _| Box::new(branches::SiblingStatements::new(i.files)),
    |i, _| Box::new(order::StatementOrder::new(i.files)),
    // An early return for an argument of nothing, in the function a failing test panicked in.
    |i, _| Box::new(guards::Guards::new(i.files, i.context.traces)),
    // A call of the program's own function for a sibling of the same signature.
    |i, _| Box::new(siblings::Siblings::new(i.files)),
    // `self` for its peer of the same type (`other`), or a parameter for one of its type.
    |i, _| Box::new(peers::Peers::new(i.files)),
    // An iterator adaptor taken out of a chain, or a `.rev()`/`.skip(1)` put in.
    |_, _| Box::new(adaptors::Adaptors::default()),
    // A clause the program tests elsewhere, added to a condition.
    |i, _| Box::new(clauses::Clauses::new(i.files)),
    // Pairs of edits at the two sites of a two-component diagnosis.
    |i, targets| Box::new(joint::Joint::new(targets, &i.context.findings.diagnoses)),
];
