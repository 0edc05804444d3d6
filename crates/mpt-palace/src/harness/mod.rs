//! The agent harnesses MemPalace serves: pi (a deployed TypeScript extension) and opencode
//! (static JSON/JSONC MCP registrations). What is deployed, what it can do, how mpt wires it.

pub mod jsonc;
pub mod jsonspan;
pub mod opencode;
pub mod pi;
pub mod wire;
