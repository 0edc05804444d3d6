//! The integration suite: one binary, real MemPalace processes (tests/testbed), hermetic homes.

mod cli;
mod config;
mod config_values;
mod doctor;
mod edge;
mod edge_fuzz;
mod edge_paths;
mod edge_replication;
mod edge_shared;
mod edge_wire;
mod feed;
mod fleet;
mod full_disk;
mod http_bounds;
mod http_fake;
mod http_real;
mod mailbox;
mod outbox;
mod palace;
mod runbook;
mod runbook_files;
mod runbook_serve;
mod secrets;
mod stall;
mod stdio_real;
mod support;
