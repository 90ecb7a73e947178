//! The localization techniques, registered in one place: the option that turns each on, its
//! weight in the merged ranking and how it is made from the options. A new technique is a
//! file of this folder and one line here.

use super::{Technique, called, diagnosis, history, panic, pathgen, spectrum, switching};
use crate::options::Options;
use crate::options::TechniqueName;

/// A technique as the pipeline runs it.
pub struct Registration {
    /// The technique name that turns it on or off (`--techniques`, `disabled-techniques`).
    pub option: TechniqueName,
    /// Its weight in the merge (see [`super::merge`]).
    pub weight: f64,
    /// Makes it from the options.
    pub make: fn(&Options) -> Box<dyn Technique>,
}

/// Every technique, in the order they run.
pub const TECHNIQUES: &[Registration] = &[
    Registration {
        option: TechniqueName::Spectrum,
        weight: 1.0,
        make: |options| Box::new(spectrum::Spectrum::new(options, spectrum::Unit::Calls)),
    },
    // The same formula over whole tests: it sees a fault upstream of the failing call,
    // which the calls' spectrum counts as passing; its ties share the middle rank.
    Registration {
        option: TechniqueName::Spectrum,
        weight: 1.0,
        make: |options| Box::new(spectrum::Spectrum::new(options, spectrum::Unit::Tests)),
    },
    // Where a failing run panicked inside instrumented code: read from the traces like the
    // spectrum (and turned off with it), and as sure as a fact of the run can be.
    Registration {
        option: TechniqueName::Spectrum,
        weight: 2.0,
        make: |_| Box::new(panic::PanicSite),
    },
    // The calls on the stack at that panic, in the crate's own functions: a fact of the run
    // too, but whether the caller is at fault is a guess, so it weighs as the spectrum.
    Registration {
        option: TechniqueName::Spectrum,
        weight: 1.0,
        make: |_| Box::new(panic::PanicCallers),
    },
    // A diagnosis is a set of components the model proves sufficient to explain the
    // failure while keeping the accepted calls.
    Registration {
        option: TechniqueName::Diagnosis,
        weight: 2.0,
        make: |options| Box::new(diagnosis::Diagnosis::new(options)),
    },
    // A critical predicate is confirmed by a rerun that passed.
    Registration {
        option: TechniqueName::Switching,
        weight: 4.0,
        make: |options| Box::new(switching::Switching::new(options)),
    },
    // The branches a feasible successful run (a real rerun) evaluates differently: checked,
    // but where control flow must change is often not where the fault is (an assignment the
    // branch guards, the paper's Figure 1), so it weighs as much as the spectrum.
    Registration {
        option: TechniqueName::Pathgen,
        weight: 1.0,
        make: |options| Box::new(pathgen::PathGeneration::new(options)),
    },
    // The lines changed since a commit where the tests passed (uncommitted ones by default),
    // among the sites the failing tests ran: a guess from the workflow (the code just changed
    // is the code just broken), so it weighs as the spectrum.
    Registration {
        option: TechniqueName::History,
        weight: 1.0,
        make: |options| {
            Box::new(history::History {
                since: options.changed_since.clone(),
            })
        },
    },
    // A failing test that reached no instrumented code: the sites of the functions it
    // calls, read from the source. Nothing ran them under the tool, so it weighs least;
    // it names nothing when a run reached instrumented code.
    Registration {
        option: TechniqueName::Spectrum,
        weight: 0.5,
        make: |_| Box::new(called::Called),
    },
];
