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
mod deadline;
mod denial;
pub mod era;
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

pub use body::REPLY_LIMIT;
pub use call_error::{
    CallError, DeniedAnswer, HttpFailure, PalaceBusy, TokenRefusal, fix_for_device,
};
pub use client::{Handshake, McpClient};
pub use deadline::Deadline;
pub use denial::{DENIAL_META, Denial, GATEWAY_DENIED, LEGACY_GATEWAY_DENIED};
pub use handshake::{PROTOCOL_VERSION, initialize_params};
pub use tool_result::ToolReply;
