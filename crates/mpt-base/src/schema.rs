//! Every `schema` name a `--json` document, a JSON Line or a file written by mpt carries, in one
//! place: a document's shape changes only with its `/vN`.

pub const CALL: &str = "mpt.call/v1";
pub const CONFIG: &str = "mpt.config/v1";
pub const DOCTOR: &str = "mpt.doctor/v1";
pub const EDGE_PULL: &str = "mpt.edge.pull/v1";
pub const EDGE_STATUS: &str = "mpt.edge.status/v1";
pub const EDGE_STOP: &str = "mpt.edge.stop/v1";
pub const EDGE_WIRE: &str = "mpt.edge.wire/v1";
pub const EDGE_WIRE_USER_ENTRY: &str = "mpt.edge.wire.user_entry/v1";
/// What `mpt edge wire claude --hooks` remembers beside Claude Code's settings file.
pub const EDGE_WIRE_HOOKS: &str = "mpt.edge.wire.hooks/v1";
/// What `mpt edge wire codex` remembers beside Codex's config: the keys it changed, as they were.
pub const EDGE_WIRE_CODEX_ENTRY: &str = "mpt.edge.wire.codex_entry/v1";
pub const ERROR: &str = "mpt.error/v1";
pub const FEED_INSTALL_HELPER: &str = "mpt.feed.install_helper/v1";
pub const FEED_MINE: &str = "mpt.feed.mine/v1";
pub const FEED_PREPARE: &str = "mpt.feed.prepare/v1";
pub const GATEWAY_AUDIT: &str = "mpt.gateway.audit/v1";
/// The head checkpoint of the gateway's audit chain (`audit.head.json`).
pub const GATEWAY_AUDIT_HEAD: &str = "mpt.gateway.audit.head/v1";
pub const GATEWAY_AUDIT_VERIFY: &str = "mpt.gateway.audit.verify/v1";
/// `mpt gateway invite --json`: the device, its policy edit, the line to run on it (never the code).
pub const GATEWAY_INVITE: &str = "mpt.gateway.invite/v1";
/// `mpt gateway invite DEVICE --revoke --json`: the device's pending codes revoked.
pub const GATEWAY_INVITE_REVOKE: &str = "mpt.gateway.invite.revoke/v1";
/// `invites.json`, written by `mpt gateway invite` and the gateway's `POST /join`.
pub const GATEWAY_INVITES: &str = "mpt.gateway.invites/v1";
/// `PUT /inbox/<path>` on the gateway: where an upload is on the primary host, its size and hash.
pub const GATEWAY_INBOX: &str = "mpt.gateway.inbox/v1";
/// `POST /join` on the gateway: the device's own token, once, for a good join code.
pub const GATEWAY_JOIN: &str = "mpt.gateway.join/v1";
/// The running gateway's `last_used.json`.
pub const GATEWAY_LAST_USED: &str = "mpt.gateway.last_used/v1";
/// `policy.json`, written by people.
pub const GATEWAY_POLICY: &str = "mpt.gateway.policy/v1";
pub const GATEWAY_POLICY_CHECK: &str = "mpt.gateway.policy.check/v1";
pub const GATEWAY_POLICY_EXPLAIN: &str = "mpt.gateway.policy.explain/v1";
/// One JSON Line when `mpt gateway serve --json` listens.
pub const GATEWAY_SERVE: &str = "mpt.gateway.serve/v1";
pub const GATEWAY_TOKEN: &str = "mpt.gateway.token/v1";
pub const GATEWAY_TOKEN_LIST: &str = "mpt.gateway.token.list/v1";
pub const GATEWAY_TOKEN_REVOKE: &str = "mpt.gateway.token.revoke/v1";
/// `tokens.json`, written by `mpt gateway token` alone.
pub const GATEWAY_TOKENS: &str = "mpt.gateway.tokens/v1";
/// `GET /whoami` on the gateway.
pub const GATEWAY_WHOAMI: &str = "mpt.gateway.whoami/v1";
/// `mpt join --json`: the device as it joined (never its token), its settings, wiring, doctor's verdict.
pub const JOIN: &str = "mpt.join/v1";
/// `mpt join --leave --json`: what leaving undid, and what the operator revokes.
pub const JOIN_LEAVE: &str = "mpt.join.leave/v1";
/// `joined.json`: what `mpt join` changed on this device, for `--leave`.
pub const JOIN_RECORD: &str = "mpt.join.record/v1";
pub const MAILBOX: &str = "mpt.mailbox/v1";
pub const MAILBOX_ACK: &str = "mpt.mailbox.ack/v1";
/// One JSON Line per delivery of `mpt mailbox watch --json`.
pub const MAILBOX_ANNOUNCE: &str = "mpt.mailbox.announce/v1";
/// `mpt mailbox notify [--test] --json`: the road a notification takes.
pub const MAILBOX_NOTIFY: &str = "mpt.mailbox.notify/v1";
/// One JSON Line of `mpt mailbox watch --json` each time it goes live or falls back to polling.
pub const MAILBOX_WATCH: &str = "mpt.mailbox.watch/v1";
pub const MAN: &str = "mpt.man/v1";
pub const OUTBOX_BACKFILL: &str = "mpt.outbox.backfill/v1";
pub const OUTBOX_DROP: &str = "mpt.outbox.drop/v1";
pub const OUTBOX_ENQUEUE: &str = "mpt.outbox.enqueue/v1";
pub const OUTBOX_FLUSH: &str = "mpt.outbox.flush/v1";
pub const OUTBOX_LIST: &str = "mpt.outbox.list/v1";
pub const OUTBOX_OP: &str = "mpt.outbox.op/v1";
pub const OUTBOX_PURGE: &str = "mpt.outbox.purge/v1";
pub const OUTBOX_RETRY: &str = "mpt.outbox.retry/v1";
pub const OUTBOX_SUMMARY: &str = "mpt.outbox.summary/v1";
pub const PATHS: &str = "mpt.paths/v1";
pub const RUNBOOK: &str = "mpt.runbook/v1";
pub const RUNBOOK_APPLY: &str = "mpt.runbook.apply/v1";
pub const TOOLS: &str = "mpt.tools/v1";

/// A typed document (a `#[derive(Serialize)]` struct beside its command) as the JSON it prints:
/// one place for the conversion and its error.
/// (Its error, a map with a key that is not a string, becomes an `MptError` by `?`.)
pub fn to_document(doc: &impl serde::Serialize) -> serde_json::Result<serde_json::Value> {
    serde_json::to_value(doc)
}

/// The field names of a JSON document in the order they print, nested ones as `a.b` and an
/// array's elements as `a[].b` (the first element's): what a golden test pins, since scripts
/// read these names.
pub fn field_names(doc: &serde_json::Value) -> Vec<String> {
    fn walk(v: &serde_json::Value, prefix: &str, out: &mut Vec<String>) {
        match v {
            serde_json::Value::Object(m) => {
                for (k, v) in m {
                    let name = format!("{prefix}{k}");
                    out.push(name.clone());
                    walk(v, &format!("{name}."), out);
                }
            }
            serde_json::Value::Array(a) => {
                if let Some(first) = a.first() {
                    walk(first, &format!("{}[].", prefix.trim_end_matches('.')), out);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(doc, "", &mut out);
    out
}
