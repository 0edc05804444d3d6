//! The integration suite: one binary, real MemPalace processes (tests/testbed), hermetic homes.

mod cli;
mod config;
mod doctor;
mod documents;
mod edge;
mod feed;
mod fleet;
mod full_disk;
mod gateway;
mod harnesses;
mod human;
mod mailbox;
mod mcp;
mod outbox;
mod palace;
mod runbook;
mod secrets;
mod support;
mod testbed;
