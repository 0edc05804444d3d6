//! Transcript feeding: pi's session files and opencode's database rendered as MemPalace's `>`
//! transcripts in a staging folder, never touching the palace; the run around it and `feed mine`.
//!
//! The crate may import mpt-base, mpt-palace, mpt-mcp and mpt-outbox; nothing above it.

// Nothing prints with the macros: commands through `output::Output`, engines through `log`.
#![deny(clippy::print_stdout, clippy::print_stderr)]

// One pipeline per run, whatever the harness (`pipeline`): the previous `state` read, each session
// a source yields decided from its record when its fingerprint and dedup inputs still match,
// otherwise rendered by its source (gates of `gate`, the transcript of `export`), staged as
// `<session-id>.md` atomically and only if its bytes changed (`stage`), recorded, counted; the
// state saved. Sources: pi's files (`prepare`: `scan`, the header, `session` through `jsonl` and
// `raw`, forks after their parents with copied entries left out, `fork`) and opencode's database
// (`opencode`: read on one thread while workers render). Around it (`job`): the non-blocking lock
// (`mpt_base::lock`), the prepare deadline, and in remote mode the rsync (`remote`) or the upload
// (`upload`). `mine` picks the writer for `feed mine` and makes the one call. Flags, env and
// printing live in the CLI.

pub mod claude;
pub mod codex;
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
mod pipeline;
mod prepare;
mod raw;
pub mod remote;
mod report;
mod scan;
pub mod session;
pub mod stage;
pub mod state;
mod text;
mod transcripts;
pub mod upload;

pub use export::ExportOptions;
pub use gate::{GateConfig, Reason, SkipReason};
pub use harness::Harness;
pub use pipeline::{PrepareOptions, Progress};
pub use prepare::prepare;
pub use report::{Outcome, PrepareReport, REPORT_SCHEMA, SessionOutcome};
