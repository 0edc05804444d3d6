//! The integration suite: one binary, real MemPalace processes (tests/testbed), hermetic homes.

mod cli;
mod config;
mod doctor;
mod edge;
mod edge_fuzz;
mod edge_replication;
mod edge_wire;
mod feed;
mod fleet;
mod fleet_log;
mod http_fake;
mod http_real;
mod mailbox;
mod outbox;
mod palace;
mod runbook;
mod runbook_files;
mod runbook_serve;
mod stall;
mod stdio_real;
mod support;
