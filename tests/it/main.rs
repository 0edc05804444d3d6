//! The integration suite: one binary, real MemPalace processes (tests/testbed), hermetic homes.

mod cli;
mod config;
mod http_fake;
mod http_real;
mod outbox;
mod palace;
mod stall;
mod stdio_real;
mod support;
