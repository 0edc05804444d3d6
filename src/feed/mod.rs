//! `crate::feed`: pi session transcripts → MemPalace's native `>` transcript in a staging folder,
//! without touching the palace (the caller mines the folder). Owns the public API re-exports.

// Pipeline per run (`prepare`): walk the sessions root for `**/*.jsonl` (`scan`); reuse the verdict
// of any file whose size+mtime match its `state` record; otherwise apply the path and quiet-period
// checks (`gate`), parse the current branch (`session`), build the transcript and apply the content
// checks (`export`, `gate`), leave out entries a fork copied from a staged parent (`fork`), and write
// `<session-id>.md` atomically, only if its bytes changed (`stage`). Not here (the CLI adds them):
// flags and env, locking, rsync, printing `MINE_SOURCE=`.

pub mod export;
pub mod fork;
pub mod gate;
pub mod prepare;
mod raw;
pub mod report;
pub mod scan;
pub mod session;
pub mod stage;
pub mod state;
pub mod text;

pub use export::ExportOptions;
pub use gate::{GateConfig, Reason, SkipReason};
pub use prepare::{PrepareOptions, prepare};
pub use report::{Outcome, PrepareReport, REPORT_SCHEMA, SessionOutcome};
