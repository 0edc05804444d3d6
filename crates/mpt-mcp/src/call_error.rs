//! The one typed error of an MCP exchange (`CallError`) and its parts (an HTTP failure, a
//! gateway's token refusal or denial, a busy palace), and how each becomes an `MptError` with its fix.

use std::time::Duration;

use serde_json::Value;

use super::call_hints::{INTEGRITY_REFUSED, http_hint, integrity_hint};
use mpt_base::error::{ErrorKind, MptError};

/// Why an HTTP exchange with the primary failed; each has its own fix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HttpFailure {
    Dns,
    Refused,
    Tls,
    /// An `https://` URL to a server that speaks no TLS there (plain HTTP): no CA fixes it.
    NotTls,
    Connect,
    /// 401: the token refused; a gateway of ours says why in its body (`None`: `serve`'s own
    /// 401, an HTML page that says nothing).
    Unauthorized(Option<TokenRefusal>),
    Forbidden,
    NotFound,
    TooLarge,
    Server,
    /// The connection dropped mid-reply (sent, no complete answer: the op may have applied).
    Dropped,
    /// The reply passed `body::REPLY_LIMIT` (an endless or huge body): sent, never read whole.
    ReplyTooLarge,
    /// 429: past this device's rate at the primary's gateway; `Retry-After` in seconds when it
    /// said. Nothing was applied: wait, then send again (not a failure).
    RateLimited {
        retry_after_s: Option<u64>,
    },
    /// The primary went silent while a call waited (its `/healthz` probe got no answer: a black
    /// hole): the wait was abandoned; the call may have applied.
    Silent,
    Status,
}

/// Why `mpt gateway` refused a device's token: its 401 body `{"error": …}` (docs/reference.md "The refusal contract").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenRefusal {
    /// Missing, cut short, mistyped, or not a gateway token at all (the primary's shared one).
    Malformed,
    UnknownToken,
    Expired,
    Revoked,
}

impl TokenRefusal {
    /// The gateway's word for it, as its body says it.
    pub fn parse(s: &str) -> Option<TokenRefusal> {
        match s {
            "malformed" => Some(TokenRefusal::Malformed),
            "unknown_token" => Some(TokenRefusal::UnknownToken),
            "expired" => Some(TokenRefusal::Expired),
            "revoked" => Some(TokenRefusal::Revoked),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            TokenRefusal::Malformed => "malformed",
            TokenRefusal::UnknownToken => "unknown_token",
            TokenRefusal::Expired => "expired",
            TokenRefusal::Revoked => "revoked",
        }
    }

    /// What happened to the token, for a message.
    pub fn says(self) -> &'static str {
        match self {
            TokenRefusal::Malformed => {
                "it is not a whole gateway token (missing, cut short or mistyped, or the primary's own shared token)"
            }
            TokenRefusal::UnknownToken => {
                "the gateway knows no token with that id (issued by another gateway, or lost from its tokens.json)"
            }
            TokenRefusal::Expired => "it has expired",
            TokenRefusal::Revoked => "it was revoked",
        }
    }

    /// The one fix, naming `device` (`DEVICE` when unknown): a new token from the primary host.
    pub fn fix(self, device: Option<&str>) -> String {
        let d = device.unwrap_or("DEVICE");
        let file = mpt_base::config::device_token_file(d);
        let new = format!(
            "on the primary host run `mpt gateway token rotate {d} --out {file} --force`, then copy that file to this device as the 0600 file its MPT_TOKEN_FILE names"
        );
        match self {
            TokenRefusal::Malformed => format!(
                "set MEMPALACE_REMOTE_TOKEN (or the 0600 file MPT_TOKEN_FILE) to this device's whole gateway token (`mptg_…`); if it is lost, {new}"
            ),
            _ => new,
        }
    }
}

/// A fix that names `DEVICE` (a gateway token's, [`TokenRefusal::fix`]: stored in the outbox
/// without a name) with this device's name, when it has one.
pub fn fix_for_device(hint: &str, device: Option<&str>) -> String {
    match device {
        Some(d) => hint.replace("DEVICE", d),
        None => hint.to_string(),
    }
}

pub use super::denial::{Denial, denial_of_error, denial_of_result};

#[derive(Debug, Clone, thiserror::Error)]
pub enum CallError {
    #[error("{what} timed out after {ms} ms")]
    Timeout { what: String, ms: u64 },
    #[error("cannot start {program}: {reason}")]
    Spawn { program: String, reason: String },
    /// The program is missing, not executable or not a program: waiting will not help.
    #[error("cannot start {program}: {reason}")]
    NoProgram {
        program: String,
        reason: String,
        /// The setting that named it (`--child`, the config's `child`).
        named_by: Option<String>,
    },
    #[error("{program} exited: {reason}")]
    ChildExited {
        program: String,
        reason: String,
        stderr_tail: Vec<String>,
    },
    #[error(
        "{program} stays down: it was restarted {respawns} time(s) since its last good answer and failed each time (last: {last})"
    )]
    Down {
        program: String,
        respawns: u32,
        last: String,
    },
    #[error("MCP protocol error: {0}")]
    Protocol(String),
    #[error("the server answered error {code}: {message}")]
    Rpc {
        code: i64,
        message: String,
        data: Option<Value>,
    },
    #[error("{tool} failed: {message}")]
    ToolFailed {
        tool: String,
        message: String,
        payload: Value,
    },
    /// The primary's gateway refused the call by its policy. `fields` are the denial's (`rule`,
    /// `device`, `tool` or `method`); `answer` is what the gateway sent, given back to a harness
    /// as it came: a tool result with `isError` (its text for the model) or an `error` object.
    #[error("{message}")]
    Denied {
        message: String,
        fields: Box<Value>,
        answer: Box<DeniedAnswer>,
    },
    #[error("{detail}")]
    Http {
        failure: HttpFailure,
        status: Option<u16>,
        detail: String,
    },
}

/// How the gateway said no: the form a harness gets back.
#[derive(Debug, Clone, PartialEq)]
pub enum DeniedAnswer {
    /// A refused `tools/call`: the whole `result` (`isError: true`).
    ToolResult(Value),
    /// Any other refused method: the whole `error` object.
    Error(Value),
}

/// Why MemPalace turned a write away because another process writes to the palace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PalaceBusy {
    /// -32001 "Peer MCP writer active" (`failure_kind: peer_contention`): another process holds
    /// the palace's writer lock.
    PeerWriter,
    /// A mine refused with `error_class: LockHeldByOtherProcess`: another mine holds the palace.
    Mine,
}

impl CallError {
    /// MemPalace's "another writer holds this palace", the one recogniser every command uses (exit
    /// 6, busy). A -32001 whose `failure_kind` is `initialization_failed` is the server failing to
    /// take the lock itself (a read-only lock folder): a failure, not a busy palace.
    pub fn palace_busy(&self) -> Option<PalaceBusy> {
        match self {
            CallError::Rpc {
                code: -32001, data, ..
            } => {
                let kind = data.as_ref().and_then(|d| d.get("failure_kind"));
                (kind.and_then(Value::as_str) != Some("initialization_failed"))
                    .then_some(PalaceBusy::PeerWriter)
            }
            CallError::ToolFailed { payload, .. }
                if payload["error_class"] == "LockHeldByOtherProcess" =>
            {
                Some(PalaceBusy::Mine)
            }
            _ => None,
        }
    }

    /// The gateway's policy refused the call: nothing applied, and sending it again would be
    /// refused the same way.
    pub fn denial(&self) -> Option<Denial> {
        match self {
            CallError::Denied { fields, .. } => Denial::of(fields),
            _ => None,
        }
    }

    /// The gateway's rate limit (429): how long it asked us to wait (1 s when it did not say).
    pub fn rate_limited(&self) -> Option<Duration> {
        match self {
            CallError::Http {
                failure: HttpFailure::RateLimited { retry_after_s },
                ..
            } => Some(Duration::from_secs(retry_after_s.unwrap_or(1).max(1))),
            _ => None,
        }
    }

    /// Worth retrying later with backoff (the primary or child may come back); hard errors are not.
    pub fn is_transient(&self) -> bool {
        match self {
            CallError::Timeout { .. }
            | CallError::ChildExited { .. }
            | CallError::Down { .. }
            | CallError::Spawn { .. } => true,
            CallError::Rpc { code, .. } => *code == -32001,
            CallError::Http { failure, .. } => matches!(
                failure,
                HttpFailure::Dns
                    | HttpFailure::Refused
                    | HttpFailure::Connect
                    | HttpFailure::Server
                    | HttpFailure::Dropped
                    | HttpFailure::Silent
                    | HttpFailure::Tls
                    | HttpFailure::RateLimited { .. }
                    | HttpFailure::NotTls
            ),
            CallError::Protocol(_)
            | CallError::ToolFailed { .. }
            | CallError::NoProgram { .. }
            | CallError::Denied { .. } => false,
        }
    }

    /// The network failed, not the server: a probe of `/healthz` tells when it is back.
    pub fn is_unreachable(&self) -> bool {
        matches!(
            self,
            CallError::Timeout { .. }
                | CallError::Http {
                    failure: HttpFailure::Dns
                        | HttpFailure::Refused
                        | HttpFailure::Connect
                        | HttpFailure::Dropped
                        | HttpFailure::Silent,
                    ..
                }
        )
    }

    /// Sent, but no complete answer: the server may have applied it.
    pub fn is_ambiguous(&self) -> bool {
        matches!(
            self,
            CallError::Timeout { .. }
                | CallError::ChildExited { .. }
                | CallError::Http {
                    failure: HttpFailure::Dropped
                        | HttpFailure::ReplyTooLarge
                        | HttpFailure::Silent,
                    ..
                }
        )
    }
}

impl From<CallError> for MptError {
    /// Server text (bodies, tool failures, RPC messages and data) enters mpt's errors here:
    /// scrubbed of every known secret once, before anything prints or stores it.
    fn from(e: CallError) -> MptError {
        let mut m = from_mcp(e);
        m.message = mpt_base::secrets::scrubbed(&m.message);
        if let Some(d) = m.detail.as_deref_mut() {
            mpt_base::secrets::scrub_json(d);
        }
        m
    }
}

fn from_mcp(e: CallError) -> MptError {
    let msg = e.to_string();
    match &e {
        CallError::Timeout { .. } => MptError::new(ErrorKind::Timeout, msg).with_hint(
            "the server may still be working (a mine continues server-side); check it with `mpt doctor`, and raise MEMPALACE_MCP_TIMEOUT_MS only for a call that is honestly slow",
        ),
        CallError::Spawn { .. } => MptError::new(ErrorKind::Unavailable, msg).with_hint(
            "the machine could not start a process just now (out of processes, memory or file descriptors?): try again",
        ),
        CallError::NoProgram {
            named_by: Some(by), ..
        } => MptError::usage(format!("{msg} (named by {by})")).with_hint(format!(
            "point {by} at MemPalace's executable `mempalace-mcp` (e.g. /path/to/venv/bin/mempalace-mcp), or remove it to use the one on PATH"
        )),
        CallError::NoProgram { named_by: None, .. } => MptError::new(ErrorKind::Io, msg).with_hint(
            "install MemPalace (`pip install mempalace`) so that an executable mempalace-mcp is on PATH, or name it with `child` in the mpt config",
        ),
        CallError::ChildExited { stderr_tail, .. } => {
            let mut m = MptError::new(ErrorKind::Unavailable, msg)
                .with_hint("run it again with -v to see the server's stderr");
            if !stderr_tail.is_empty() {
                m = m.with_detail(StderrTail { stderr_tail });
            }
            m
        }
        CallError::Down { .. } => MptError::new(ErrorKind::Unavailable, msg).with_hint(
            "the self-heal budget (MEMPALACE_MCP_MAX_RESPAWNS) is spent: find the stall with `mpt -v doctor`, then start the command again",
        ),
        CallError::Protocol(_) => MptError::new(ErrorKind::Protocol, msg),
        _ if e.palace_busy().is_some() => {
            let mut m = MptError::new(ErrorKind::Busy, msg).with_hint(
                "another process writes to this palace (a harness's own mempalace-mcp, a mine, a hub): let it finish, or route writes through it (`mpt edge`, `mempalace serve`)",
            );
            if let CallError::Rpc { data: Some(d), .. } | CallError::ToolFailed { payload: d, .. } =
                &e
            {
                m = m.with_detail(d.clone());
            }
            m
        }
        CallError::Denied { fields, .. } => {
            let d = Denial::of(fields).unwrap_or_else(|| Denial {
                device: "?".into(),
                what: "the call".into(),
                rule: "unnamed".into(),
            });
            let m = MptError::new(
                ErrorKind::Refused,
                format!(
                    "the primary's gateway refused {} for device {}: rule {}",
                    d.what, d.device, d.rule
                ),
            )
            .with_hint(
                "the gateway's policy (policy.json on the primary host) does not let this device do that; sending it again is refused the same way: ask the gateway's operator to change this device's role, or leave it to a device that may",
            );
            m.with_detail((**fields).clone())
        }
        CallError::Rpc {
            code: INTEGRITY_REFUSED,
            data,
            ..
        } => {
            let mut m =
                MptError::new(ErrorKind::Rpc, msg).with_hint(integrity_hint(data.as_ref()));
            if let Some(d) = data {
                m = m.with_detail(d.clone());
            }
            m
        }
        CallError::Rpc { message, .. }
            if message.contains("palace hub proxy failed") && message.contains("401") =>
        {
            MptError::new(ErrorKind::Auth, msg).with_hint(
                "the local child forwards to this palace's running `mempalace serve` (MemPalace's hub forwarding), which refused it: mpt hands the child serve's token when it can read serve's environment (the same user); otherwise run it with serve's token: `MEMPALACE_MCP_HTTP_TOKEN=$(cat ~/.config/mpt/serve-token) mpt …` (the file the quick start keeps it in)",
            )
        }
        CallError::Rpc { code, data, .. } => {
            let hint = match code {
                -32001 => "MemPalace could not take this palace's writer lock (its reason is in the detail): check that its lock folder (~/.mempalace/locks) is writable",
                -32003 => "the server runs --read-only: writes need a writable primary",
                -32602 => "the arguments do not match the tool's inputSchema (`mpt call --list` shows the tools)",
                -32601 => "the server does not know that tool or method",
                _ => "see the server's log for the cause",
            };
            let mut m = MptError::new(ErrorKind::Rpc, msg).with_hint(hint);
            if let Some(d) = data {
                m = m.with_detail(d.clone());
            }
            m
        }
        CallError::ToolFailed { payload, .. } => MptError::new(ErrorKind::ToolFailed, msg)
            .with_hint("the server answered, but the tool reported a failure inside its reply")
            .with_detail(payload.clone()),
        CallError::Http {
            failure: HttpFailure::Unauthorized(Some(why)),
            ..
        } => MptError::new(ErrorKind::Auth, msg)
            .with_hint(why.fix(None))
            .with_detail(TokenRefused {
                token: why.as_str(),
            }),
        CallError::Http {
            failure: HttpFailure::Refused,
            detail,
            ..
        } if detail.starts_with(super::send_error::GATEWAY_UNREACHABLE) => {
            MptError::new(ErrorKind::Unavailable, msg).with_hint(
                "nothing listens at that address: is this device's gateway running there (`mpt gateway serve` on the primary host), on that host and port?",
            )
        }
        CallError::Http { failure, .. } => {
            let (kind, hint) = http_hint(*failure);
            let mut m = MptError::new(kind, msg).with_hint(hint);
            if let HttpFailure::RateLimited { retry_after_s } = failure {
                m = m.with_detail(RetryAfter {
                    retry_after_s: *retry_after_s,
                });
            }
            m
        }
    }
}

/// An exited child's detail: the last lines it wrote on stderr.
#[derive(serde::Serialize)]
struct StderrTail<'a> {
    stderr_tail: &'a [String],
}

/// A refused token's detail: why (`missing`, `expired`, …).
#[derive(serde::Serialize)]
struct TokenRefused {
    token: &'static str,
}

/// A rate limit's detail: when to send again, if the server said.
#[derive(serde::Serialize)]
struct RetryAfter {
    retry_after_s: Option<u64>,
}
