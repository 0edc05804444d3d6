//! The agent harnesses MemPalace serves: pi (a deployed TypeScript extension) and opencode
//! (static JSON/JSONC MCP registrations). What is deployed, and what it can do.

pub mod jsonc;
pub mod jsonspan;
pub mod opencode;
pub mod pi;
