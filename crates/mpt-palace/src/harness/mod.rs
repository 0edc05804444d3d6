//! The agent harnesses MemPalace serves: pi (a deployed TypeScript extension), opencode, Claude
//! Code and Codex (static MCP registrations). What is deployed, what it can do, how mpt wires it.

pub mod claude;
pub mod codex;
pub mod jsonc;
pub mod jsonspan;
pub mod kind;
pub mod opencode;
pub mod pi;
pub mod wire;
