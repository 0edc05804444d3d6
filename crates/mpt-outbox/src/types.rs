//! The outbox's values: who enqueues (`Origin`), an op's place in its life (`OpState`) and one
//! row of the queue (`Op`), as `--json` and `show` print it.

use serde::Serialize;
use serde_json::Value;

use super::util;
use mpt_base::config::Config;
use mpt_base::error::MptError;

/// Who enqueues: the device (`MEMPALACE_PI_DEVICE`, else the host name) and the host; and the
/// device's feed inbox on the primary's host, the one place a queued `mempalace_mine` may read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    pub device: String,
    pub host: String,
    /// `MEMPALACE_PI_REMOTE_PATH`, else `~/.mempalace/feed/inbox/<device>` (`None`: no mine is
    /// admitted).
    pub inbox: Option<String>,
}

impl Origin {
    pub fn from_config(config: &Config) -> Origin {
        let host = util::hostname();
        Origin {
            device: config.device.clone().unwrap_or_else(|| host.clone()),
            host,
            inbox: Some(config.feed.remote_path_or_default(config.device.as_deref())),
        }
    }
}

/// An op's place in its life: queued → leased → done, or failed (blocks) → queued by retry, or
/// dropped by an operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum OpState {
    Queued,
    Leased,
    Done,
    Failed,
    Dropped,
}

impl OpState {
    pub const ALL: [OpState; 5] = [
        OpState::Queued,
        OpState::Leased,
        OpState::Done,
        OpState::Failed,
        OpState::Dropped,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            OpState::Queued => "queued",
            OpState::Leased => "leased",
            OpState::Done => "done",
            OpState::Failed => "failed",
            OpState::Dropped => "dropped",
        }
    }

    pub fn parse(s: &str) -> Option<OpState> {
        OpState::ALL.into_iter().find(|st| st.as_str() == s)
    }

    /// Not yet settled: still ahead of (or at) the head of the queue.
    pub fn is_open(self) -> bool {
        matches!(self, OpState::Queued | OpState::Leased | OpState::Failed)
    }
}

/// One row of the outbox.
#[derive(Debug, Clone)]
pub struct Op {
    /// Queue order (insertion order across every process sharing the file).
    pub id: i64,
    pub op_id: String,
    pub local_seq: i64,
    pub origin_device: String,
    pub origin_host: String,
    pub tool_name: String,
    pub payload: Value,
    pub dedupe_key: Option<String>,
    pub state: OpState,
    /// Hard failures so far; at `MAX_ATTEMPTS` the op is failed.
    pub attempts: i64,
    /// Times the op was claimed for sending.
    pub sends: i64,
    /// A send may have reached the primary without our knowing its outcome: check before resending.
    pub unconfirmed: bool,
    pub next_attempt_at: i64,
    pub lease_token: Option<String>,
    pub lease_expires_at: Option<i64>,
    pub first_sent_at: Option<i64>,
    pub created_at: i64,
    pub updated_at: i64,
    pub flushed_at: Option<i64>,
    /// applied | already_there | verified_present | dropped
    pub outcome: Option<String>,
    /// The id the primary gave the effect (event id, drawer id, diary timestamp...).
    pub primary_ref: Option<String>,
    pub error: Option<Value>,
}

impl Op {
    /// The op for `--json` and `show`; the payload only when asked (lists stay small).
    pub fn to_json(&self, with_payload: bool) -> Value {
        serde_json::to_value(self.doc(with_payload)).unwrap_or_default()
    }

    /// The op as its document (`OpDoc`), read as if its flusher (if leased) still runs.
    pub fn doc(&self, with_payload: bool) -> OpDoc<'_> {
        self.doc_seen(with_payload, true)
    }

    /// Sent (or maybe sent), whether the primary applied it not known yet, and no flusher sending
    /// it now: queued after an unanswered send, or leased by a flusher that has stopped (none
    /// runs, or its lease ran out). Nothing is stuck: the next flush (an edge's, a timer's,
    /// `mpt outbox flush`) asks the primary before sending it again.
    pub fn awaits_confirmation(&self, flusher_running: bool, now: i64) -> bool {
        match self.state {
            OpState::Queued => self.unconfirmed,
            OpState::Leased => !flusher_running || self.lease_expires_at.is_some_and(|t| t <= now),
            _ => false,
        }
    }

    /// The op as its document, knowing whether a flusher runs now.
    pub fn doc_seen(&self, with_payload: bool, flusher_running: bool) -> OpDoc<'_> {
        let ts = |v: Option<i64>| v.filter(|t| *t > 0).map(util::rfc3339);
        OpDoc {
            op_id: &self.op_id,
            local_seq: self.local_seq,
            origin_device: &self.origin_device,
            origin_host: &self.origin_host,
            tool: &self.tool_name,
            state: self.state,
            attempts: self.attempts,
            sends: self.sends,
            unconfirmed: self.unconfirmed,
            awaiting_confirmation: self.awaits_confirmation(flusher_running, util::now_ms()),
            dedupe_key: self.dedupe_key.as_deref(),
            created_at: util::rfc3339(self.created_at),
            next_attempt_at: ts(Some(self.next_attempt_at)),
            lease_expires_at: ts(self.lease_expires_at),
            first_sent_at: ts(self.first_sent_at),
            flushed_at: ts(self.flushed_at),
            outcome: self.outcome.as_deref(),
            primary_ref: self.primary_ref.as_deref(),
            error: self.error.as_ref(),
            payload: with_payload.then_some(&self.payload),
        }
    }

    /// `mempalace_kg_add` → `kg_add`, for people.
    pub fn short_tool(&self) -> &str {
        mpt_palace::catalog::bare(&self.tool_name)
    }

    /// The rule of the primary's gateway that refused this op , when it was refused so.
    pub fn denied_by(&self) -> Option<&str> {
        self.error.as_ref()?.get("rule")?.as_str()
    }

    /// How a failed op came to fail, for people: refused by the gateway's rule, or its attempts.
    pub fn failed_how(&self) -> String {
        match self.denied_by() {
            Some(rule) => format!("was refused by the primary's gateway (rule {rule})"),
            None => format!("failed after {} attempts", self.attempts),
        }
    }

    /// The first line of the last error's message.
    pub fn error_line(&self) -> Option<String> {
        let e = self.error.as_ref()?;
        let msg = e.get("message").and_then(Value::as_str).unwrap_or("");
        Some(msg.lines().next().unwrap_or("").to_string())
    }
}

/// An op for tests of the documents it appears in: failed, refused by a gateway's rule.
#[cfg(any(test, feature = "test-support"))]
pub fn sample_op() -> Op {
    Op {
        id: 7,
        op_id: "0123456789abcdef".into(),
        local_seq: 3,
        origin_device: "laptop".into(),
        origin_host: "laptop.lan".into(),
        tool_name: "mempalace_add_drawer".into(),
        payload: serde_json::json!({"wing": "w", "room": "r", "content": "c"}),
        dedupe_key: None,
        state: OpState::Failed,
        attempts: 3,
        sends: 3,
        unconfirmed: false,
        next_attempt_at: 1_700_000_000_000,
        lease_token: None,
        lease_expires_at: None,
        first_sent_at: Some(1_700_000_000_000),
        created_at: 1_700_000_000_000,
        updated_at: 1_700_000_000_000,
        flushed_at: None,
        outcome: None,
        primary_ref: None,
        error: Some(
            serde_json::json!({"kind": "refused", "message": "no", "hint": null, "at": "t", "rule": "r1"}),
        ),
    }
}

/// Hard failures an op may have before it is failed and blocks the queue (daemon.py's MAX_ATTEMPTS).
pub const MAX_ATTEMPTS: i64 = 3;
/// Done and dropped ops are kept this long, then `purge` removes them (daemon.py's 7 days).
pub const RETENTION_DAYS: u64 = 7;

/// An `MptError` as stored in `error_json`, scrubbed of every known secret (a server's error
/// text may echo the token; the outbox never holds it). A gateway's refusal keeps its `rule`.
pub fn error_json(e: &MptError) -> Value {
    let rule = e
        .detail
        .as_ref()
        .filter(|_| e.kind == mpt_base::error::ErrorKind::Refused)
        .and_then(|d| d.get("rule"));
    let mut v = serde_json::to_value(StoredError {
        kind: e.kind.as_str(),
        message: &e.message,
        hint: e.hint.as_deref(),
        at: util::rfc3339(util::now_ms()),
        rule,
    })
    .unwrap_or_default();
    mpt_base::secrets::scrub_json(&mut v);
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Golden: the op's field names in `mpt outbox --json`, `show`, `drop` and a flush's
    /// `blocked_by` (scripts read them); the payload last, and only in `show` and `drop`.
    #[test]
    fn the_op_document_keeps_its_field_names() {
        const NAMES: &[&str] = &[
            "op_id",
            "local_seq",
            "origin_device",
            "origin_host",
            "tool",
            "state",
            "attempts",
            "sends",
            "unconfirmed",
            "awaiting_confirmation",
            "dedupe_key",
            "created_at",
            "next_attempt_at",
            "lease_expires_at",
            "first_sent_at",
            "flushed_at",
            "outcome",
            "primary_ref",
            "error",
            "error.kind",
            "error.message",
            "error.hint",
            "error.at",
            "error.rule",
        ];
        let op = sample_op();
        assert_eq!(mpt_base::schema::field_names(&op.to_json(false)), NAMES);
        let mut with_payload: Vec<&str> = NAMES.to_vec();
        with_payload.extend(["payload", "payload.wing", "payload.room", "payload.content"]);
        assert_eq!(
            mpt_base::schema::field_names(&op.to_json(true)),
            with_payload
        );
    }

    /// Golden: an op's stored error (`error` in every op document): a gateway's refusal adds `rule`.
    #[test]
    fn the_stored_error_keeps_its_field_names() {
        use mpt_base::error::{ErrorKind, MptError};
        let plain = MptError::new(ErrorKind::Unavailable, "down").with_hint("wait");
        assert_eq!(
            mpt_base::schema::field_names(&crate::error_json(&plain)),
            ["kind", "message", "hint", "at"]
        );
        let refused = MptError::new(ErrorKind::Refused, "denied")
            .with_detail(json!({"rule": "r1", "other": 1}));
        assert_eq!(
            mpt_base::schema::field_names(&crate::error_json(&refused)),
            ["kind", "message", "hint", "at", "rule"]
        );
    }
}

/// One op as `mpt outbox --json` lists it, `show` and `drop` print it (with its payload, last)
/// and a flush names the op it is `blocked_by`. Field names pinned by a golden test below.
#[derive(Debug, Serialize)]
pub struct OpDoc<'a> {
    pub op_id: &'a str,
    pub local_seq: i64,
    pub origin_device: &'a str,
    pub origin_host: &'a str,
    pub tool: &'a str,
    pub state: OpState,
    pub attempts: i64,
    pub sends: i64,
    pub unconfirmed: bool,
    /// Beside `state`, not a state of its own (`Op::awaits_confirmation`).
    pub awaiting_confirmation: bool,
    pub dedupe_key: Option<&'a str>,
    pub created_at: String,
    pub next_attempt_at: Option<String>,
    pub lease_expires_at: Option<String>,
    pub first_sent_at: Option<String>,
    pub flushed_at: Option<String>,
    pub outcome: Option<&'a str>,
    pub primary_ref: Option<&'a str>,
    /// The last error as stored (`error_json`).
    pub error: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub payload: Option<&'a Value>,
}

/// An op's last error as the outbox stores it (`error_json`): a gateway's refusal adds `rule`.
#[derive(Debug, Serialize)]
pub struct StoredError<'a> {
    pub kind: &'static str,
    pub message: &'a str,
    pub hint: Option<&'a str>,
    pub at: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<&'a Value>,
}
