//! The three MCP transports every command shares (a supervised stdio child, a Streamable HTTP
//! client, the edge owner's Unix socket), raw JSON-RPC behind one `McpClient` and one typed error.
//!
//! The crate may import mpt-base and mpt-palace; nothing above it.

// Nothing prints with the macros: commands through `output::Output`, engines through `log`.
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod agent;
mod bearer;
mod body;
mod call_error;
mod call_hints;
pub mod client;
mod denial;
mod handshake;
pub mod http;
pub mod jsonrpc;
pub mod liveness;
pub mod owner_socket;
pub mod route;
pub mod routes;
mod send_error;
pub mod sse;
mod status_error;
pub mod stdio;
mod tool_result;
mod unix;
pub mod whoami;

use std::time::Duration;

pub use call_error::{
    CallError, DeniedAnswer, HttpFailure, PalaceBusy, TokenRefusal, fix_for_device,
};
pub use client::{Handshake, McpClient};
pub use denial::{DENIAL_META, Denial, GATEWAY_DENIED, LEGACY_GATEWAY_DENIED};
pub use tool_result::ToolReply;

/// The protocol version `mpt` offers in `initialize` (the newest 3.11 knows).
pub const PROTOCOL_VERSION: &str = "2025-11-25";

/// How long one call may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Deadline {
    /// `MEMPALACE_MCP_TIMEOUT_MS` (or the handshake's own).
    Default,
    /// A per-call deadline that overrides the default (the mine needs minutes).
    After(Duration),
    /// No deadline at all.
    Unbounded,
}

impl Deadline {
    pub fn resolve(self, default: Option<Duration>) -> Option<Duration> {
        match self {
            Deadline::Default => default,
            Deadline::After(d) => Some(d),
            Deadline::Unbounded => None,
        }
    }
}
