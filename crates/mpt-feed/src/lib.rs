//! Transcript feeding: pi's session files and opencode's database rendered as MemPalace's `>`
//! transcripts in a staging folder, never touching the palace; the run around it and `feed mine`.
//!
//! The crate may import mpt-base, mpt-palace, mpt-mcp and mpt-outbox; nothing above it.

// Nothing prints with the macros: commands through `output::Output`, engines through `log`.
#![deny(clippy::print_stdout, clippy::print_stderr)]

// Pipeline per run (`prepare`): walk the sessions root for `**/*.jsonl` (`scan`); reuse the verdict
// of any file whose size+mtime match its `state` record; otherwise apply the path and quiet-period
// checks (`gate`), parse the current branch (`session`, each line through `jsonl` and `raw`), build
// the transcript and apply the content checks (`export`, `gate`), leave out entries a fork copied
// from a staged parent (`fork`), and write `<session-id>.md` atomically, only if its bytes changed
// (`stage`). Around it (`job`): the
// non-blocking lock (`mpt_base::lock`), the prepare deadline, and in remote mode the rsync (`remote`). `mine`
// picks the writer for `feed mine` and makes the one call. Flags, env and printing live in the CLI.

pub mod dropin;
pub mod export;
pub mod fleet;
mod fork;
mod gate;
mod harness;
pub mod job;
mod jsonl;
pub mod mine;
pub mod opencode;
mod prepare;
mod raw;
pub mod remote;
mod report;
mod scan;
pub mod session;
pub mod stage;
pub mod state;
mod text;
pub mod upload;

pub use export::ExportOptions;
pub use gate::{GateConfig, Reason, SkipReason};
pub use harness::Harness;
pub use prepare::{PrepareOptions, Progress, prepare};
pub use report::{Outcome, PrepareReport, REPORT_SCHEMA, SessionOutcome};
