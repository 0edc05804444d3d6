//! The harnesses users run, from the npm registry (tests/harnesses/ pins them): the MCP
//! Inspector CLI, opencode and pi, each driving mpt as a user's setup would.

mod claude;
mod inspector;
mod opencode;
pub(crate) mod pi;
