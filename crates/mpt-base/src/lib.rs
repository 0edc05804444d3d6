//! mpt's foundations, below every other crate: errors and exit codes, output, logging, time, locks,
//! secrets, schemas, the config and every path mpt writes. Imports no other mpt crate.

// Nothing prints with the macros: commands through `output::Output`, engines through `log`.
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod backup;
pub mod config;
pub mod error;
pub mod hex;
pub mod hop_trace;
pub mod lock;
pub mod log;
pub mod output;
pub mod paths;
pub mod private_fs;
pub mod schema;
pub mod secrets;
pub mod suggest;
pub mod sys;
pub mod time;
pub mod which;
