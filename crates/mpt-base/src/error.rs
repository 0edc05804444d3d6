//! Typed error kinds, each with a hint, and the exit-code table every command shares.
//! Engines return `MptError`; `main` maps it to a process exit code and prints it once.

use std::fmt;
use std::process::ExitCode;
use std::sync::Arc;

/// The exit-code contract (README, man page). 5 is reserved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    Ok = 0,
    Runtime = 1,
    Usage = 2,
    CheckFailed = 3,
    Refused = 4,
    Busy = 6,
    Unavailable = 7,
}

impl Exit {
    pub fn code(self) -> u8 {
        self as u8
    }
}

/// A document that would not serialize (`schema::to_document`): a bug of ours, said as one.
impl From<serde_json::Error> for MptError {
    fn from(e: serde_json::Error) -> Self {
        MptError::new(
            ErrorKind::Io,
            format!("a document could not be written as JSON: {e}"),
        )
    }
}

/// Every SQLite file mpt reads or keeps (the palace's, the outbox, the feed's state).
impl From<rusqlite::Error> for MptError {
    fn from(e: rusqlite::Error) -> Self {
        MptError::new(ErrorKind::Io, format!("SQLite: {e}"))
    }
}

impl From<Exit> for ExitCode {
    fn from(e: Exit) -> Self {
        ExitCode::from(e.code())
    }
}

/// What went wrong, in the terms a script branches on. The exit code follows from the kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// I/O or another runtime failure on this machine.
    Io,
    /// A tool answered, but with a failure inside the reply (`isError`, `success:false`, `error`).
    ToolFailed,
    /// The server answered with a JSON-RPC error object.
    Rpc,
    /// The MCP peer broke the protocol (bad framing, a reply we cannot parse).
    Protocol,
    /// A request ran past its deadline.
    Timeout,
    /// Bad arguments or malformed input (flags, env values, config values, JSON).
    Usage,
    /// A check found a failure (doctor, runbook, failed ops after a flush).
    CheckFailed,
    /// Refused for safety: a secret would leak, a maintenance op against a shared palace, an
    /// unknown config field, a token file readable by others.
    Refused,
    /// Another process holds the lock or claim.
    Busy,
    /// The primary or server could not be reached (connection, DNS, TLS, 5xx, child down).
    Unavailable,
    /// The server refused our credentials (401) or our Host/Origin (403).
    Auth,
    /// Our stdout reader went away (`mpt ... | head`): not a failure.
    BrokenPipe,
}

impl ErrorKind {
    pub fn exit(self) -> Exit {
        match self {
            ErrorKind::Io | ErrorKind::ToolFailed | ErrorKind::Rpc | ErrorKind::Protocol => {
                Exit::Runtime
            }
            ErrorKind::Timeout | ErrorKind::Unavailable => Exit::Unavailable,
            ErrorKind::Usage => Exit::Usage,
            ErrorKind::CheckFailed => Exit::CheckFailed,
            ErrorKind::Refused | ErrorKind::Auth => Exit::Refused,
            ErrorKind::Busy => Exit::Busy,
            ErrorKind::BrokenPipe => Exit::Ok,
        }
    }

    /// The kind behind another `mpt`'s exit code (a spawned edge owner's): the class a script
    /// branches on survives the hop; a code outside the table is `Unavailable`.
    pub fn of_exit(code: i32) -> ErrorKind {
        match code {
            1 => ErrorKind::Io,
            2 => ErrorKind::Usage,
            3 => ErrorKind::CheckFailed,
            4 => ErrorKind::Refused,
            6 => ErrorKind::Busy,
            _ => ErrorKind::Unavailable,
        }
    }

    /// The stable name used in `mpt.error/v1`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Io => "io",
            ErrorKind::ToolFailed => "tool_failed",
            ErrorKind::Rpc => "rpc",
            ErrorKind::Protocol => "protocol",
            ErrorKind::Timeout => "timeout",
            ErrorKind::Usage => "usage",
            ErrorKind::CheckFailed => "check_failed",
            ErrorKind::Refused => "refused",
            ErrorKind::Busy => "busy",
            ErrorKind::Unavailable => "unavailable",
            ErrorKind::Auth => "auth",
            ErrorKind::BrokenPipe => "broken_pipe",
        }
    }
}

/// An error a person can act on: what happened (with why it matters), and the one thing to do.
/// Its cause chain (`source`: the failed I/O step, a lower error) is printed under `-v`.
#[derive(Debug, Clone)]
pub struct MptError {
    pub kind: ErrorKind,
    pub message: String,
    pub hint: Option<String>,
    /// Machine-readable detail for `--json` (e.g. the tool payload that carried the failure).
    pub detail: Option<Box<serde_json::Value>>,
    source: Option<Arc<dyn std::error::Error + Send + Sync>>,
}

impl MptError {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        MptError {
            kind,
            message: message.into(),
            hint: None,
            detail: None,
            source: None,
        }
    }

    /// Records what caused this error (shown under `-v`; the message stays as it is).
    pub fn with_source(mut self, cause: impl std::error::Error + Send + Sync + 'static) -> Self {
        self.source = Some(Arc::new(cause));
        self
    }

    /// The causes below this error, outermost first, each as it describes itself.
    pub fn causes(&self) -> Vec<String> {
        let mut out = Vec::new();
        let mut next = std::error::Error::source(self);
        while let Some(cause) = next {
            out.push(cause.to_string());
            next = cause.source();
        }
        out
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// A typed detail (a struct beside the error's maker), or the server's own payload verbatim
    /// (a `Value`); a detail that does not serialize is left out, never a failure of its own.
    pub fn with_detail(mut self, detail: impl serde::Serialize) -> Self {
        self.detail = serde_json::to_value(detail).ok().map(Box::new);
        self
    }

    pub fn usage(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Usage, message)
    }

    pub fn refused(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Refused, message)
    }

    pub fn io(context: impl fmt::Display, err: &std::io::Error) -> Self {
        let kind = if is_broken_pipe(err) {
            ErrorKind::BrokenPipe
        } else {
            ErrorKind::Io
        };
        Self::new(kind, format!("{context}: {err}")).with_source(copy_io(err))
    }

    pub fn exit(&self) -> Exit {
        self.kind.exit()
    }

    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(ErrorDoc {
            schema: crate::schema::ERROR,
            kind: self.kind.as_str(),
            exit_code: self.exit().code(),
            message: &self.message,
            hint: self.hint.as_deref(),
            detail: self.detail.as_deref(),
        })
        .unwrap_or_default()
    }
}

/// `mpt.error/v1`: what every failing `--json` command prints; `detail` only when there is one.
#[derive(serde::Serialize)]
struct ErrorDoc<'a> {
    schema: &'static str,
    kind: &'static str,
    exit_code: u8,
    message: &'a str,
    hint: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    detail: Option<&'a serde_json::Value>,
}

impl fmt::Display for MptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for MptError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_deref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

/// An owned copy of a borrowed I/O error, for a cause chain: the OS error itself when it has a
/// code, else its kind and text (and the chain below it, as text).
fn copy_io(err: &std::io::Error) -> std::io::Error {
    match err.raw_os_error() {
        Some(code) => std::io::Error::from_raw_os_error(code),
        None => std::io::Error::new(err.kind(), err.to_string()),
    }
}

pub type Result<T, E = MptError> = std::result::Result<T, E>;

/// True when an I/O error means the reader of our stdout went away (`mpt ... | head`).
pub fn is_broken_pipe(err: &std::io::Error) -> bool {
    err.kind() == std::io::ErrorKind::BrokenPipe
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Golden: `mpt.error/v1`'s field names (every failing `--json` command prints it); `detail`
    /// last, and only when there is one.
    #[test]
    fn the_error_document_keeps_its_field_names() {
        let plain = MptError::usage("bad").with_hint("fix it");
        assert_eq!(
            crate::schema::field_names(&plain.to_json()),
            ["schema", "kind", "exit_code", "message", "hint"]
        );
        let detailed = plain.with_detail(serde_json::json!({"suggested": ["a"]}));
        assert_eq!(
            crate::schema::field_names(&detailed.to_json()),
            [
                "schema",
                "kind",
                "exit_code",
                "message",
                "hint",
                "detail",
                "detail.suggested"
            ]
        );
    }

    #[test]
    fn every_kind_maps_to_a_documented_exit_code() {
        let documented = [0u8, 1, 2, 3, 4, 6, 7];
        for kind in [
            ErrorKind::Io,
            ErrorKind::ToolFailed,
            ErrorKind::Rpc,
            ErrorKind::Protocol,
            ErrorKind::Timeout,
            ErrorKind::Usage,
            ErrorKind::CheckFailed,
            ErrorKind::Refused,
            ErrorKind::Busy,
            ErrorKind::Unavailable,
            ErrorKind::Auth,
            ErrorKind::BrokenPipe,
        ] {
            assert!(documented.contains(&kind.exit().code()), "{kind:?}");
            assert_ne!(kind.exit().code(), 5, "5 is reserved");
        }
        assert_eq!(ErrorKind::Busy.exit().code(), 6);
        assert_eq!(ErrorKind::Unavailable.exit().code(), 7);
        assert_eq!(ErrorKind::Refused.exit().code(), 4);
    }

    #[test]
    fn an_io_error_keeps_its_cause_below_an_unchanged_message() {
        let denied = std::io::Error::from_raw_os_error(libc::EACCES);
        let e = MptError::io("cannot read /c.json", &denied);
        assert_eq!(e.message, format!("cannot read /c.json: {denied}"));
        assert_eq!(e.causes(), [denied.to_string()]);
        let outer = MptError::new(ErrorKind::Io, "loading the config").with_source(e);
        assert_eq!(
            outer.causes(),
            [format!("cannot read /c.json: {denied}"), denied.to_string()]
        );
        assert!(MptError::usage("bad").causes().is_empty());
    }

    #[test]
    fn json_envelope_carries_schema_kind_and_hint() {
        let e = MptError::usage("bad flag").with_hint("see mpt --help");
        let j = e.to_json();
        assert_eq!(j["schema"], "mpt.error/v1");
        assert_eq!(j["kind"], "usage");
        assert_eq!(j["exit_code"], 2);
        assert_eq!(j["hint"], "see mpt --help");
    }
}
