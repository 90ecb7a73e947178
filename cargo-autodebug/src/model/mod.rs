//! The model: the report and what it is made of (tests, outcomes, traces, oracles, suspects,
//! fixes, events, exit codes). Stages produce these values and publishing reads them; the
//! model imports no stage.

mod events;
mod exit_code;
mod fix;
mod instrumentation;
mod leak;
mod oracle;
mod outcome;
pub mod report;
mod shard;
mod suspect;
mod test;
mod trace;

pub use events::Event;
pub use exit_code::{ExitCode, Failure, OrExit};
pub use fix::{Details as RepairDetails, EditEntry, FileChange, Fix};
pub use instrumentation::{Instrumentation, LeftOut, SiteLeftOut};
pub use oracle::{AcceptedCall, Arg, Entry as OracleEntry, LaterCall};
pub use outcome::{Location, Outcome};
pub use report::{Applied, FIX_PATCH, FailingTest, Report, SHOWN_SUSPECTS, peak_rss_mb};
pub use shard::{Item, Rebuilt, Shard, ShardPart, Validation};
pub use suspect::{Evidence, Ranked};
pub use test::TestId;
pub use trace::{Role, TraceSummary};
