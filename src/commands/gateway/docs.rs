//! The `--json` documents of `mpt gateway` as typed structs (their field paths and types pinned
//! by `tests/it/documents.rs`): token issue and rotate, list, revoke; policy check and explain;
//! the audit's records.

use std::path::Path;

use serde::Serialize;

/// `mpt gateway token issue|rotate --json` (`mpt.gateway.token/v1`): never the secret.
#[derive(Debug, Serialize)]
pub struct Issued<'a> {
    pub schema: &'static str,
    pub token_id: &'a str,
    pub device: &'a str,
    pub created: &'a str,
    pub expires: Option<&'a str>,
    pub out: Option<&'a Path>,
    pub env_file: Option<&'a Path>,
    /// The tokens a rotation replaced, each working out its overlap.
    pub replaces: Vec<Replaced<'a>>,
}

#[derive(Debug, Serialize)]
pub struct Replaced<'a> {
    pub token_id: &'a str,
    pub works_until: Option<&'a str>,
}

/// `mpt gateway token list --json` (`mpt.gateway.token.list/v1`).
#[derive(Debug, Serialize)]
pub struct Listed<'a> {
    pub schema: &'static str,
    pub tokens: Vec<Row<'a>>,
    /// Join codes waiting for their device (`mpt gateway invite`): never the code.
    pub pending: Vec<Pending<'a>>,
}

/// A join code not yet used: its id, its device, until when it can be.
#[derive(Debug, Serialize)]
pub struct Pending<'a> {
    pub id: &'a str,
    pub device: &'a str,
    pub created: &'a str,
    pub expires: &'a str,
}

/// One token in the list: its id and device, state and times (never its hash).
#[derive(Debug, Serialize)]
pub struct Row<'a> {
    pub id: &'a str,
    pub device: &'a str,
    pub state: &'static str,
    pub created: &'a str,
    pub last_used: Option<String>,
    pub expires: Option<&'a str>,
    pub revoked: Option<&'a str>,
    pub rotated_to: Option<&'a str>,
}

/// `mpt gateway token revoke --json` (`mpt.gateway.token.revoke/v1`).
#[derive(Debug, Serialize)]
pub struct Revoked<'a> {
    pub schema: &'static str,
    pub revoked: Vec<RevokedOne<'a>>,
}

#[derive(Debug, Serialize)]
pub struct RevokedOne<'a> {
    pub token_id: &'a str,
    pub device: &'a str,
}

/// `mpt gateway policy check --json` (`mpt.gateway.policy.check/v1`).
#[derive(Debug, Serialize)]
pub struct PolicyChecked<'a> {
    pub schema: &'static str,
    pub policy: &'a Path,
    pub ok: bool,
    /// How many tests the policy holds.
    pub tests: usize,
    pub failed: &'a [mpt_gateway::decide::policy::Failure],
}

/// `mpt gateway policy explain --json` (`mpt.gateway.policy.explain/v1`).
#[derive(Debug, Serialize)]
pub struct Explained<'a> {
    pub schema: &'static str,
    pub device: &'a str,
    pub tool: &'a str,
    /// `allow` or `deny`.
    pub decision: &'static str,
    pub rule: &'a str,
    pub wings: Vec<String>,
    pub rewrites: Vec<String>,
    /// The decision needs the target drawer's wing, which only a running gateway looks up.
    pub needs_lookup: bool,
}

/// `mpt gateway audit --json` (`mpt.gateway.audit/v1`): the records as they are stored.
#[derive(Debug, Serialize)]
pub struct Audit<'a> {
    pub schema: &'static str,
    pub records: &'a [serde_json::Value],
}

/// `mpt gateway audit verify --json` (`mpt.gateway.audit.verify/v1`): the chain from its anchor
/// to its head checkpoint, what pruning removed, and the first break (`bad`), if any.
#[derive(Debug, Serialize)]
pub struct Verified<'a> {
    pub schema: &'static str,
    pub ok: bool,
    pub records: u64,
    pub first_seq: Option<u64>,
    pub last_seq: Option<u64>,
    pub head_seq: Option<u64>,
    pub start: Option<&'a mpt_gateway::record::audit::Start>,
    pub pruned: &'a [serde_json::Value],
    pub bad: Option<&'a mpt_gateway::record::audit::read::Bad>,
}
