//! `policy.json` (`mpt.gateway.policy/v1`): each device's role, wing globs, KG grant, agents,
//! mine scope and rate, plus `allow_sync`, `protected_wings`, `provenance` and `tests`; unknown fields refused.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use mpt_base::config::read::{CONFIG_FILE_LIMIT, Named, config_text, read_regular};
use mpt_base::error::{MptError, Result};

mod arguments;
mod call;
mod check;
mod decide;
pub mod enroll;
mod globs;
mod instead;
mod lookalike;
mod mine;
mod own;
mod provenance;
mod reads;
mod rewrite;
mod source;
mod streams;
mod wings;

pub use call::{Current, Verdict};
pub use check::{Failure, Test};
pub use decide::{Decision, Route};
pub use globs::Globs;
pub use own::{OwnJudge, OwnView, Refusal};
pub use reads::{KgGrant, Reads};
pub use rewrite::{Rewrite, apply};
pub use streams::{StreamFilter, StreamGlobs, Streams};

pub const SCHEMA: &str = mpt_base::schema::GATEWAY_POLICY;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Policy {
    pub schema: String,
    /// `mempalace_sync` is refused for everyone unless this is set (RFC 001 §7.2); then admins.
    #[serde(default)]
    pub allow_sync: bool,
    /// Wing globs only admins may write (instruction-shaped memory, RFC 001 §6.1): a floor no
    /// device's `wings.write` lifts.
    #[serde(default)]
    pub protected_wings: Globs,
    /// What a forged writer gets: rewritten to the token's device (`stamp`), or refused (`strict`).
    #[serde(default)]
    pub provenance: Provenance,
    pub devices: BTreeMap<String, Device>,
    /// Calls and the decision each must get: checked at every load (`mpt gateway policy check`).
    #[serde(default)]
    pub tests: Vec<Test>,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Device {
    pub role: Role,
    /// Wing globs on canonical names: `write` checked on every write, `read` on every read's
    /// arguments and filtered out of its reply; none: all wings.
    #[serde(default)]
    pub wings: Option<Wings>,
    /// Coordination-stream globs: `write` on every event write, `read` on every event read
    /// (filtered) and the SSE stream; none: every stream.
    #[serde(default)]
    pub streams: Option<Streams>,
    /// The knowledge graph, which has no wing: `write`, `read` or `none`; unset: what the role allows.
    #[serde(default)]
    pub kg: Option<KgGrant>,
    /// None: unlimited.
    #[serde(default)]
    pub rate: Option<Rate>,
    /// The agents it may write as (`<agent>@<device>`, diary `agent_name`); none: any agent.
    #[serde(default)]
    pub agents: Option<Vec<String>>,
    /// Overrides the top-level `provenance` for this device.
    #[serde(default)]
    pub provenance: Option<Provenance>,
    /// A member's scoped remote mine (`mpt feed` across the fleet); none: mine is admin-only.
    #[serde(default)]
    pub mine: Option<MineScope>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Provenance {
    /// Writer fields and diary prefixes rewritten to the token's device, each rewrite audited.
    #[default]
    Stamp,
    /// A call whose writer names someone else is refused.
    Strict,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct MineScope {
    /// An absolute folder on the primary host: a scoped mine's `source` must resolve under it,
    /// and the device's uploads (`PUT /inbox/…`) are written under it.
    pub source_prefix: String,
    /// One upload's cap (default 8 MiB; the body's own cap, 16 MiB, is the ceiling).
    #[serde(default)]
    pub max_file_bytes: Option<u64>,
    /// The device's inbox in all (default 1 GiB).
    #[serde(default)]
    pub max_bytes: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Observer,
    Member,
    Admin,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Observer => "observer",
            Role::Member => "member",
            Role::Admin => "admin",
        }
    }
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Wings {
    #[serde(default)]
    pub read: Globs,
    #[serde(default)]
    pub write: Globs,
}

/// A token bucket: `per_s` requests a second on average, `burst` at once.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Rate {
    pub per_s: f64,
    pub burst: u32,
}

impl Policy {
    /// The policy at `path` (exit 2 naming it when missing or malformed, exit 4 for an unknown
    /// field, as every mpt file).
    pub fn load(path: &Path) -> Result<Policy> {
        let named = Named {
            setting: "the gateway policy",
            path,
        };
        if !path.exists() {
            return Err(MptError::usage(format!(
                "there is no gateway policy at {}",
                path.display()
            ))
            .with_hint(format!(
                "write one naming each device and its role, e.g. {{\"schema\": \"{SCHEMA}\", \"devices\": {{\"laptop\": {{\"role\": \"member\"}}}}}}"
            )));
        }
        crate::state::refuse_writable_by_others(path)?;
        let bytes = read_regular(&named, CONFIG_FILE_LIMIT)?;
        Policy::parse(&config_text(&bytes, path)?, path)
    }

    pub fn parse(text: &str, path: &Path) -> Result<Policy> {
        let at = |why: String| format!("{}: {why}", path.display());
        let policy: Policy = serde_json::from_str(text).map_err(|e| {
            let msg = e.to_string();
            if msg.contains("unknown field") {
                MptError::refused(at(msg)).with_hint(
                    "remove or correct the field: an unknown one is refused, never ignored",
                )
            } else {
                MptError::usage(at(msg)).with_hint("fix the policy's JSON")
            }
        })?;
        if policy.schema != SCHEMA {
            return Err(MptError::usage(at(format!(
                "schema is \"{}\", not \"{SCHEMA}\"",
                policy.schema
            ))));
        }
        for (name, d) in &policy.devices {
            check_device(name, d).map_err(|why| MptError::usage(at(why)))?;
        }
        for g in policy.protected_wings.iter() {
            glob::Pattern::new(g).map_err(|e| {
                MptError::usage(at(format!("protected wing glob '{g}' does not parse: {e}")))
            })?;
        }
        for (i, t) in policy.tests.iter().enumerate() {
            t.check(i, &policy)
                .map_err(|why| MptError::usage(at(why)))?;
        }
        Ok(policy)
    }

    pub fn device(&self, name: &str) -> Option<&Device> {
        self.devices.get(name)
    }

    /// Exit 2 naming the device and the policy file when the policy does not name it.
    pub fn require_device(&self, device: &str, path: &Path) -> Result<&Device> {
        self.device(device).ok_or_else(|| {
            MptError::usage(format!(
                "the gateway policy {} names no device '{device}'",
                path.display()
            ))
            .with_hint(format!(
                "add \"{device}\": {{\"role\": \"observer\"|\"member\"|\"admin\"}} under \"devices\" in {}, then issue its token",
                path.display()
            ))
        })
    }
}

impl crate::keys::tokens::edit::Devices for Policy {
    fn require(&self, device: &str, path: &Path) -> Result<()> {
        self.require_device(device, path).map(|_| ())
    }
}

/// A device name goes into audit records, `/whoami` and file names: printable, no spaces.
pub fn valid_device_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-@".contains(&b))
}

fn check_device(name: &str, d: &Device) -> std::result::Result<(), String> {
    if !valid_device_name(name) {
        return Err(format!(
            "device name '{name}' must be 1-64 letters, digits, '.', '_', '-' or '@'"
        ));
    }
    if let Some(w) = &d.wings {
        for g in w.read.iter().chain(w.write.iter()) {
            glob::Pattern::new(g)
                .map_err(|e| format!("device '{name}': wing glob '{g}' does not parse: {e}"))?;
        }
    }
    if let Some(s) = &d.streams {
        for g in s.read.iter().chain(s.write.iter()) {
            glob::Pattern::new(g)
                .map_err(|e| format!("device '{name}': stream glob '{g}' does not parse: {e}"))?;
        }
    }
    if let Some(agents) = &d.agents {
        if agents.is_empty() {
            return Err(format!(
                "device '{name}': agents is empty (leave it out for any agent)"
            ));
        }
        for a in agents {
            if !provenance::valid_agent(a) {
                return Err(format!(
                    "device '{name}': agent '{a}' must be 1-64 lowercase letters, digits, '.', '_' or '-' (no '@': the device is added)"
                ));
            }
        }
    }
    if let Some(m) = &d.mine
        && !Path::new(&m.source_prefix).is_absolute()
    {
        return Err(format!(
            "device '{name}': mine.source_prefix '{}' is not an absolute path",
            m.source_prefix
        ));
    }
    if let Some(r) = d.rate
        && (!r.per_s.is_finite() || r.per_s <= 0.0 || r.burst == 0)
    {
        return Err(format!(
            "device '{name}': rate needs per_s > 0 and burst >= 1 (got per_s {}, burst {})",
            r.per_s, r.burst
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `text` with `@S` for the schema (and `@S2` for the next one).
    fn parse(text: &str) -> Result<Policy> {
        let text = text
            .replace("@S2", &SCHEMA.replace("/v1", "/v2"))
            .replace("@S", SCHEMA);
        Policy::parse(&text, Path::new("/gw/policy.json"))
    }

    #[test]
    fn a_full_policy_parses() {
        let p = parse(
            r#"{"schema": "@S", "allow_sync": false, "devices": {
                "lap": {"role": "member", "wings": {"read": ["*"], "write": ["wing_lap*"]}, "rate": {"per_s": 5, "burst": 10}},
                "ci": {"role": "observer"}}}"#,
        )
        .unwrap();
        assert_eq!(p.device("lap").unwrap().role, Role::Member);
        assert_eq!(p.device("lap").unwrap().rate.unwrap().burst, 10);
    }

    #[test]
    fn unknown_fields_bad_values_and_a_wrong_schema_are_refused_naming_the_file() {
        for (text, code) in [
            (r#"{"schema": "@S", "devices": {}, "rules": []}"#, 4),
            (
                r#"{"schema": "@S", "devices": {}, "provenance": "loose"}"#,
                2,
            ),
            (
                r#"{"schema": "@S", "devices": {"a": {"role": "member", "agents": []}}}"#,
                2,
            ),
            (
                r#"{"schema": "@S", "devices": {"a": {"role": "member", "agents": ["pi@x"]}}}"#,
                2,
            ),
            (
                r#"{"schema": "@S", "devices": {"a": {"role": "member", "mine": {"source_prefix": "rel"}}}}"#,
                2,
            ),
            (
                r#"{"schema": "@S", "devices": {}, "protected_wings": ["[x"]}"#,
                2,
            ),
            (
                r#"{"schema": "@S", "devices": {"a": {"role": "member", "scope": 1}}}"#,
                4,
            ),
            (r#"{"schema": "@S", "devices": {"a": {"role": "root"}}}"#, 2),
            (
                r#"{"schema": "@S", "devices": {"a": {"role": "member", "kg": "all"}}}"#,
                2,
            ),
            (r#"{"schema": "@S2", "devices": {}}"#, 2),
            (
                r#"{"schema": "@S", "devices": {"a b": {"role": "admin"}}}"#,
                2,
            ),
            (
                r#"{"schema": "@S", "devices": {"a": {"role": "admin", "rate": {"per_s": 0, "burst": 1}}}}"#,
                2,
            ),
            (
                r#"{"schema": "@S", "devices": {"a": {"role": "admin", "wings": {"read": ["[a"]}}}}"#,
                2,
            ),
            ("{", 2),
        ] {
            let e = parse(text).unwrap_err();
            assert_eq!(e.exit().code(), code, "{text}: {}", e.message);
            assert!(e.message.contains("/gw/policy.json"), "{}", e.message);
        }
    }
}
