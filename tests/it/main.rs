//! The integration suite: one binary, real MemPalace processes (tests/testbed), hermetic homes.

mod cli;
mod config;
mod config_values;
mod doctor;
mod documents;
mod edge;
mod feed;
mod fleet;
mod fleet_log;
mod full_disk;
mod gateway;
mod harnesses;
mod human;
mod mailbox;
mod mailbox_device;
mod mailbox_live;
mod mailbox_notify;
mod mailbox_schema;
mod mcp;
mod outbox;
mod palace;
mod runbook;
mod secrets;
mod support;
mod testbed;
