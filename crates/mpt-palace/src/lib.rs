//! Where MemPalace keeps what, and reading it safely: path rules (version 3.11), the knowledge
//! graph (read-only), the sidecar and registry files, the tool catalog; the harnesses' wiring files.
//!
//! The crate may import mpt-base; nothing above it.

// Nothing prints with the macros: commands through `output::Output`, engines through `log`.
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod catalog;
pub mod chroma;
pub mod files;
pub mod harness;
pub mod hygiene;
pub mod kg;
pub mod landmine;
pub mod paths;
pub mod procs;
pub mod sqlite;

pub use paths::{PalacePaths, edge_outbox};
