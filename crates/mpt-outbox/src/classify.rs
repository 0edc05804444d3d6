//! What a send's outcome means for the op: applied (or already there) → done; transient → back
//! off and stop this drain; hard → an attempt counted; denied → failed at once; rate limited →
//! wait and go on; stop → not the op's fault, change nothing.

use serde_json::Value;

use mpt_mcp::{CallError, HttpFailure, ToolReply};

/// Whether the primary may have applied a send we got no clear answer to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sent {
    /// Certainly not applied (never sent, or refused before any effect).
    No,
    /// Sent, no complete answer: it may have applied (AMBIGUOUS).
    Maybe,
}

#[derive(Debug)]
pub enum Verdict {
    /// The effect is on the primary. `already`: the server said it was there before this send.
    Applied {
        already: bool,
        primary_ref: Option<String>,
        /// The primary's reply payload (the ids it minted for the op).
        reply: Value,
    },
    /// The primary is down, busy or unhealthy: keep the op, back off, stop the drain.
    Transient { sent: Sent, error: CallError },
    /// The primary refused this op: counts toward MAX_ATTEMPTS.
    Hard { sent: Sent, error: CallError },
    /// Our credentials or endpoint are wrong: every op would fail the same way; stop, count nothing.
    Stop { error: CallError },
    /// The primary's gateway refused this op by its policy: it applied nothing and a
    /// resend is refused the same way: failed at once, never retried, no replay check.
    Denied { error: CallError },
    /// Past this device's rate at the gateway (429): nothing applied, not a failure; wait
    /// `retry_after`, then go on.
    RateLimited {
        retry_after: std::time::Duration,
        error: CallError,
    },
}

/// Classifies the outcome of calling `tool`.
pub fn classify(tool: &str, result: Result<ToolReply, CallError>) -> Verdict {
    let reply = match result {
        Ok(r) => r,
        Err(e) => return classify_error(e),
    };
    if let Some(msg) = partial_failure(tool, &reply.payload) {
        // checkpoint reports item and diary failures inside a reply without success:false.
        return Verdict::Hard {
            sent: Sent::Maybe,
            error: CallError::ToolFailed {
                tool: tool.to_string(),
                message: msg,
                payload: reply.payload,
            },
        };
    }
    Verdict::Applied {
        already: reply.payload.get("reason").and_then(Value::as_str) == Some("already_exists"),
        primary_ref: primary_ref(&reply.payload),
        reply: reply.payload,
    }
}

/// Classifies a failed call (also the read calls a replay check makes).
pub fn classify_error(e: CallError) -> Verdict {
    use HttpFailure as H;
    if e.denial().is_some() {
        return Verdict::Denied { error: e };
    }
    if let Some(retry_after) = e.rate_limited() {
        return Verdict::RateLimited {
            retry_after,
            error: e,
        };
    }
    let (sent, transient) = match &e {
        CallError::ToolFailed {
            payload, message, ..
        } => {
            let lock_refusal = payload
                .get("error_class")
                .and_then(Value::as_str)
                .is_some_and(|c| c.contains("LockHeld") || c.contains("MineAlreadyRunning"))
                || message.contains("another mine is in progress");
            (Sent::No, lock_refusal)
        }
        // Returned above: refused before anything ran.
        CallError::Denied { .. } => (Sent::No, false),
        CallError::Rpc { code, .. } => match code {
            // The writer lease is held elsewhere; integrity, diverged index, stale library:
            // the primary must be fixed or freed, the op is fine.
            -32001 | -32002 | -32004 | -32005 => (Sent::No, true),
            // Malformed, unknown, read-only: refused before the tool ran.
            -32700 | -32600 | -32601 | -32602 | -32003 => (Sent::No, false),
            // The tool raised part-way (-32000) or the server failed (-32603): it may have written.
            _ => (Sent::Maybe, false),
        },
        CallError::Http { failure, .. } => match failure {
            H::Dns | H::Refused | H::Connect | H::Tls => (Sent::No, true),
            H::Server | H::Dropped | H::Silent => (Sent::Maybe, true),
            H::Unauthorized(_) | H::Forbidden | H::NotFound => return Verdict::Stop { error: e },
            H::TooLarge => (Sent::No, false),
            // An https:// URL to a plain-HTTP server: refused before anything was sent.
            H::NotTls => (Sent::No, true),
            H::Status | H::ReplyTooLarge => (Sent::Maybe, false),
            H::RateLimited { .. } => unreachable!("rate limits are classified above"),
        },
        CallError::Timeout { .. } | CallError::ChildExited { .. } => (Sent::Maybe, true),
        CallError::Spawn { .. } | CallError::NoProgram { .. } | CallError::Down { .. } => {
            (Sent::No, true)
        }
        CallError::Protocol(_) => (Sent::Maybe, false),
    };
    if transient {
        Verdict::Transient { sent, error: e }
    } else {
        Verdict::Hard { sent, error: e }
    }
}

/// The id the primary gave what it stored, wherever the tool puts it.
pub fn primary_ref(payload: &Value) -> Option<String> {
    [
        "/event/id",
        "/task/id",
        "/artifact/id",
        "/diary/timestamp",
        "/timestamp",
        "/drawer_id",
        "/triple_id",
        "/id",
    ]
    .iter()
    .find_map(|p| payload.pointer(p).and_then(Value::as_str))
    .map(str::to_string)
}

fn partial_failure(tool: &str, payload: &Value) -> Option<String> {
    if tool != "mempalace_checkpoint" {
        return None;
    }
    if let Some(errs) = payload.get("errors").and_then(Value::as_array)
        && !errs.is_empty()
    {
        return Some(format!(
            "checkpoint reported {} error(s): {}",
            errs.len(),
            Value::Array(errs.clone())
        ));
    }
    let diary = payload.get("diary")?;
    let reply = ToolReply::from_result(
        &serde_json::json!({"content": [{"type": "text", "text": diary.to_string()}]}),
    );
    reply
        .failure
        .map(|f| format!("checkpoint's diary entry failed: {f}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn reply(v: Value) -> ToolReply {
        ToolReply::from_result(&json!({"content": [{"type": "text", "text": v.to_string()}]}))
    }

    #[test]
    fn applied_and_already_there() {
        let v = classify(
            "mempalace_add_drawer",
            Ok(reply(json!({"success": true, "drawer_id": "d1"}))),
        );
        assert!(
            matches!(v, Verdict::Applied { already: false, primary_ref: Some(ref r), .. } if r == "d1")
        );
        let v = classify(
            "mempalace_add_drawer",
            Ok(reply(
                json!({"success": true, "reason": "already_exists", "drawer_id": "d1"}),
            )),
        );
        assert!(matches!(v, Verdict::Applied { already: true, .. }));
        let v = classify(
            "mempalace_event_append",
            Ok(reply(json!({"success": true, "event": {"id": "evt_1"}}))),
        );
        assert!(matches!(v, Verdict::Applied { primary_ref: Some(ref r), .. } if r == "evt_1"));
    }

    #[test]
    fn rpc_codes() {
        let rpc = |code| CallError::Rpc {
            code,
            message: "m".into(),
            data: None,
        };
        assert!(matches!(
            classify_error(rpc(-32001)),
            Verdict::Transient { sent: Sent::No, .. }
        ));
        assert!(matches!(
            classify_error(rpc(-32602)),
            Verdict::Hard { sent: Sent::No, .. }
        ));
        assert!(matches!(
            classify_error(rpc(-32003)),
            Verdict::Hard { sent: Sent::No, .. }
        ));
        assert!(matches!(
            classify_error(rpc(-32000)),
            Verdict::Hard {
                sent: Sent::Maybe,
                ..
            }
        ));
    }

    #[test]
    fn a_gateway_denial_fails_at_once_and_a_rate_limit_waits() {
        // Each form a gateway answers a denial with, as it comes off the wire.
        let wire = |resp: Value| mpt_mcp::jsonrpc::into_result(resp).unwrap_err();
        let fields =
            json!({"device": "lap", "tool": "mempalace_hook_settings", "rule": "needs:admin"});
        for denied in [
            wire(json!({"jsonrpc": "2.0", "id": 1, "result": {
                "content": [{"type": "text", "text": "refused: needs:admin"}],
                "isError": true,
                "_meta": {"mpt/denial": fields},
            }})),
            wire(
                json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -31020, "message": "refused", "data": fields}}),
            ),
            // An older gateway's, for one release.
            wire(
                json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32020, "message": "refused", "data": fields}}),
            ),
        ] {
            assert!(matches!(
                classify_error(denied),
                Verdict::Denied { ref error } if error.denial().unwrap().rule == "needs:admin"
            ));
        }
        // MCP 2026-07-28's HeaderMismatch from some other server: no rule, not a denial.
        let mismatch = wire(
            json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32020, "message": "HeaderMismatch"}}),
        );
        assert!(mismatch.denial().is_none());
        assert!(!matches!(classify_error(mismatch), Verdict::Denied { .. }));
        // An isError result without the gateway's fields is the tool's own failure.
        let own = mpt_mcp::jsonrpc::into_result(json!({"jsonrpc": "2.0", "id": 1, "result": {
            "content": [{"type": "text", "text": "boom"}], "isError": true,
        }}));
        assert!(own.is_ok());
        let limited = |s| CallError::Http {
            failure: HttpFailure::RateLimited { retry_after_s: s },
            status: Some(429),
            detail: "d".into(),
        };
        assert!(matches!(
            classify_error(limited(Some(3))),
            Verdict::RateLimited { retry_after, .. } if retry_after == std::time::Duration::from_secs(3)
        ));
        assert!(matches!(
            classify_error(limited(None)),
            Verdict::RateLimited { retry_after, .. } if retry_after == std::time::Duration::from_secs(1)
        ));
    }

    #[test]
    fn http_failures() {
        let http = |failure| CallError::Http {
            failure,
            status: None,
            detail: "d".into(),
        };
        assert!(matches!(
            classify_error(http(HttpFailure::Refused)),
            Verdict::Transient { sent: Sent::No, .. }
        ));
        assert!(matches!(
            classify_error(http(HttpFailure::Dropped)),
            Verdict::Transient {
                sent: Sent::Maybe,
                ..
            }
        ));
        assert!(matches!(
            classify_error(http(HttpFailure::Server)),
            Verdict::Transient {
                sent: Sent::Maybe,
                ..
            }
        ));
        assert!(matches!(
            classify_error(http(HttpFailure::Unauthorized(None))),
            Verdict::Stop { .. }
        ));
        let t = CallError::Timeout {
            what: "w".into(),
            ms: 1,
        };
        assert!(matches!(
            classify_error(t),
            Verdict::Transient {
                sent: Sent::Maybe,
                ..
            }
        ));
    }

    #[test]
    fn success_false_is_hard_unless_a_lock_refusal() {
        let failed = |payload: Value| CallError::ToolFailed {
            tool: "t".into(),
            message: "x".into(),
            payload,
        };
        let v = classify_error(failed(
            json!({"success": false, "error": "status='done' is not one of"}),
        ));
        assert!(matches!(v, Verdict::Hard { sent: Sent::No, .. }));
        let v = classify_error(failed(
            json!({"success": false, "error": "another mine is in progress", "error_class": "LockHeldByOtherProcess"}),
        ));
        assert!(matches!(v, Verdict::Transient { .. }));
    }

    #[test]
    fn checkpoint_errors_inside_a_good_reply_are_failures() {
        let v = classify(
            "mempalace_checkpoint",
            Ok(reply(
                json!({"added": [], "duplicates": [], "errors": [{"error": "boom"}]}),
            )),
        );
        assert!(matches!(
            v,
            Verdict::Hard {
                sent: Sent::Maybe,
                ..
            }
        ));
        let v = classify(
            "mempalace_checkpoint",
            Ok(reply(
                json!({"added": [], "duplicates": [], "errors": [], "diary": {"success": false, "error": "x"}}),
            )),
        );
        assert!(matches!(v, Verdict::Hard { .. }));
        let v = classify(
            "mempalace_checkpoint",
            Ok(reply(
                json!({"added": [], "duplicates": [], "errors": [], "diary": {"success": true, "timestamp": "t"}}),
            )),
        );
        assert!(matches!(v, Verdict::Applied { primary_ref: Some(ref r), .. } if r == "t"));
    }
}
