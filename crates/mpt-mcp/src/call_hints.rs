//! The fixes `call_error` gives a palace MemPalace refuses as corrupt and each HTTP failure: one
//! hint per cause, each naming the one thing to do.

use super::HttpFailure;
use mpt_base::error::ErrorKind;

/// MemPalace's answer to every tool but a few while its startup `PRAGMA quick_check` of
/// `chroma.sqlite3` has failed (`_guards.py`, `_SQLITE_INTEGRITY_ERROR_CODE`).
pub(super) const INTEGRITY_REFUSED: i64 = -32002;

/// What fixes a palace MemPalace refuses as corrupt. Its probe opens the database read-only, so
/// a rollback journal left by a crash mid-write (the server killed) fails it as "attempt to
/// write a readonly database", and restarts or `mempalace_reconnect` fail the same way: one
/// read-write open rolls the journal back. Anything else: the server's own hint.
pub(super) fn integrity_hint(data: Option<&serde_json::Value>) -> String {
    let data = data.cloned().unwrap_or_default();
    let path = data["sqlite_path"]
        .as_str()
        .unwrap_or("<palace>/chroma.sqlite3");
    let crash_journal = data["errors"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(serde_json::Value::as_str)
        .any(|e| e.contains("readonly database"));
    if crash_journal {
        return format!(
            "a crash mid-write left {path}-journal, which MemPalace's read-only integrity probe cannot roll back (restarting does not help): on the primary host, with the server stopped, run `python3 -c 'import sqlite3,sys; sqlite3.connect(sys.argv[1]).execute(\"pragma quick_check\").fetchall()' '{path}'`, then start the server again"
        );
    }
    match data["hint"].as_str() {
        Some(h) => format!("the server says: {h}"),
        None => "see the server's log for the integrity check's errors".to_string(),
    }
}

pub(super) fn http_hint(f: HttpFailure) -> (ErrorKind, &'static str) {
    match f {
        HttpFailure::Dns => (
            ErrorKind::Unavailable,
            "check the host in MEMPALACE_REMOTE_URL: a typo, or a name only another network resolves (a VPN, a tailnet)",
        ),
        HttpFailure::Refused => (
            ErrorKind::Unavailable,
            "nothing listens at that address: is `mempalace serve` running, on that host and port?",
        ),
        HttpFailure::Tls => (
            ErrorKind::Unavailable,
            "TLS failed: for a self-signed primary set MPT_CA_FILE (or ca_file in the mpt config) to its certificate",
        ),
        HttpFailure::NotTls => (
            ErrorKind::Unavailable,
            "the server at that address speaks plain HTTP, not TLS: use an http:// URL (loopback, or behind a tunnel or `mpt gateway`), or serve it with --tls-cert and --tls-key; MPT_CA_FILE helps only once it speaks TLS",
        ),
        HttpFailure::Connect => (
            ErrorKind::Unavailable,
            "the primary could not be reached: check the network path to it",
        ),
        HttpFailure::Unauthorized(_) => (
            ErrorKind::Auth,
            "the token is missing or wrong: set MEMPALACE_REMOTE_TOKEN (or a 0600 token file via MPT_TOKEN_FILE) to the primary's token",
        ),
        HttpFailure::Forbidden => (
            ErrorKind::Auth,
            "the primary refused our Host or Origin (its loopback Host pin): reach it by the name it is bound to, or add that name to MEMPALACE_MCP_EXTRA_ALLOWED_HOSTS on the primary",
        ),
        HttpFailure::NotFound => (
            ErrorKind::Usage,
            "wrong path: MEMPALACE_REMOTE_URL must end in /mcp, with no trailing slash",
        ),
        HttpFailure::TooLarge => (
            ErrorKind::Usage,
            "the request exceeds the primary's 16 MiB body cap: send less at once",
        ),
        HttpFailure::Server => (
            ErrorKind::Unavailable,
            "the primary failed internally: look at its log; retry later",
        ),
        HttpFailure::Dropped => (
            ErrorKind::Unavailable,
            "the connection dropped before the reply was complete: the call may or may not have applied",
        ),
        HttpFailure::Silent => (
            ErrorKind::Unavailable,
            "the primary stopped answering, even its /healthz (a sleeping network, a dropped NAT entry): the call may have applied; a queued op is checked on the primary before it is sent again",
        ),
        HttpFailure::ReplyTooLarge => (
            ErrorKind::Protocol,
            "a misbehaving primary, or a proxy in front of it, sent an endless or huge reply: check what answers at MEMPALACE_REMOTE_URL (`mpt doctor`); the call may have applied",
        ),
        HttpFailure::RateLimited { .. } => (
            ErrorKind::Unavailable,
            "the primary's gateway limits this device's rate (`rate` in its policy.json): come back after Retry-After (nothing was applied), or ask its operator for a higher rate",
        ),
        HttpFailure::Status => (
            ErrorKind::Rpc,
            "the primary answered with an unexpected HTTP status",
        ),
    }
}
