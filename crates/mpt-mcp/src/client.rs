//! One MCP client over any of the three transports, chosen as the pi bridge chooses: the primary
//! over HTTP when `MEMPALACE_REMOTE_URL` is set; else the palace's edge owner, else a local child.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};

use super::http::{HttpClient, HttpOptions};
use super::stdio::{ChildSpec, StdioClient, StdioOptions};
use super::{CallError, Deadline, ToolReply};
use mpt_base::config::Config;

/// What a server told us at connect time.
#[derive(Debug, Clone)]
pub struct Handshake {
    /// The `initialize` result (protocolVersion, capabilities, serverInfo).
    pub init: Value,
    /// Every tool from `tools/list`.
    pub tools: Vec<Value>,
    pub elapsed: Duration,
}

impl Handshake {
    pub fn server_version(&self) -> Option<&str> {
        self.init
            .pointer("/serverInfo/version")
            .and_then(Value::as_str)
    }
}

pub enum McpClient {
    Local(StdioClient),
    /// A local child another part of this process owns too (the edge owner's, for its checks).
    Shared(std::sync::Arc<StdioClient>),
    Remote(HttpClient),
    /// Through the palace's edge owner (its Unix socket): the one writer when it runs.
    Owner(super::unix::UnixClient),
}

impl McpClient {
    /// The transport the bridge would pick for this configuration.
    pub fn from_config(
        config: &Config,
        palace: &Path,
        child: Option<&Path>,
        show_stderr: bool,
    ) -> Result<McpClient, CallError> {
        match &config.remote {
            Some(remote) => Ok(McpClient::Remote(HttpClient::new(
                HttpOptions::for_remote(remote, config),
            )?)),
            None => Ok(McpClient::Local(StdioClient::new(
                local_child_spec(config, palace, child),
                StdioOptions::new(config.mcp, show_stderr || config.ext_debug),
            ))),
        }
    }

    pub fn transport_name(&self) -> &'static str {
        match self {
            McpClient::Local(_) | McpClient::Shared(_) => "local",
            McpClient::Remote(_) => "remote",
            McpClient::Owner(_) => "edge",
        }
    }

    pub async fn connect(&self) -> Result<Handshake, CallError> {
        match self {
            McpClient::Local(c) => c.connect().await,
            McpClient::Shared(c) => c.connect().await,
            McpClient::Remote(c) => c.handshake().await,
            McpClient::Owner(c) => c.handshake().await,
        }
    }

    /// Whether the primary answers its `/healthz` now (2 s, a connection of its own): `None`
    /// for a transport that is not a network peer.
    pub async fn probe(&self) -> Option<bool> {
        match self {
            McpClient::Remote(c) => Some(c.probe().await),
            McpClient::Local(_) | McpClient::Shared(_) | McpClient::Owner(_) => None,
        }
    }

    pub async fn request(
        &self,
        method: &str,
        params: Option<Value>,
        deadline: Deadline,
    ) -> Result<Value, CallError> {
        match self {
            McpClient::Local(c) => c.request(method, params, deadline).await,
            McpClient::Shared(c) => c.request(method, params, deadline).await,
            McpClient::Remote(c) => c.request(method, params, deadline).await,
            McpClient::Owner(c) => c.request(method, params, deadline).await,
        }
    }

    /// Calls a tool; a failure reported inside the reply is returned as `ToolFailed`.
    pub async fn call_tool(
        &self,
        name: &str,
        args: Value,
        deadline: Deadline,
    ) -> Result<ToolReply, CallError> {
        let result = self
            .request(
                "tools/call",
                Some(json!({"name": name, "arguments": args})),
                deadline,
            )
            .await?;
        let reply = ToolReply::from_result(&result);
        match &reply.failure {
            Some(msg) => Err(CallError::ToolFailed {
                tool: name.to_string(),
                message: msg.clone(),
                payload: reply.payload,
            }),
            None => Ok(reply),
        }
    }

    pub async fn shutdown(&self) {
        if let McpClient::Local(c) = self {
            c.shutdown().await;
        }
    }
}

/// A client for the configured primary (`None` without one).
pub fn primary_client(config: &Config) -> mpt_base::error::Result<Option<McpClient>> {
    let Some(remote) = &config.remote else {
        return Ok(None);
    };
    let http = HttpClient::new(HttpOptions::for_remote(remote, config))?.renewing_from(remote);
    Ok(Some(McpClient::Remote(http)))
}

/// `mempalace-mcp --palace <palace>`: the flag is never left out (without it the knowledge graph
/// lands in `~/.mempalace/`, the KG landmine).
pub fn local_child_spec(config: &Config, palace: &Path, child: Option<&Path>) -> ChildSpec {
    let (program, named_by) = local_child_program(config, child);
    ChildSpec {
        program,
        args: vec![OsString::from("--palace"), palace.as_os_str().to_owned()],
        env: match config.child_needs_hub_token {
            true => hub_token_env(palace),
            false => Vec::new(),
        },
        clear_env: false,
        named_by,
    }
}

/// The `mempalace-mcp` a local child runs (`--child`, else the config's `child`, else PATH) and
/// what named it; without the child's environment, so no look for a running `serve`.
pub fn local_child_program(config: &Config, child: Option<&Path>) -> (PathBuf, Option<String>) {
    match (child, &config.file.child) {
        (Some(c), _) => (c.to_path_buf(), Some("--child".to_string())),
        (None, Some(c)) => (
            c.clone(),
            Some(match &config.file_path {
                Some(f) => format!("`child` in {}", f.display()),
                None => "the config's `child`".to_string(),
            }),
        ),
        (None, None) => (PathBuf::from("mempalace-mcp"), None),
    }
}

/// On the primary host the child forwards to the running `serve` of its palace (MemPalace's hub
/// forwarding) with the token it finds in its own environment or serve's token file; when it has
/// neither, serve's own token, read from serve's environment (`procs::hub_token`), so the child
/// is not refused (401) by the server it shares the palace with (`Config::child_needs_hub_token`).
fn hub_token_env(palace: &Path) -> Vec<(OsString, OsString)> {
    match mpt_palace::procs::hub_token(palace) {
        Some(t) => {
            mpt_base::secrets::register(&t);
            vec![("MEMPALACE_MCP_HTTP_TOKEN".into(), t.into())]
        }
        None => Vec::new(),
    }
}
