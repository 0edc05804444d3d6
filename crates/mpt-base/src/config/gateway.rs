//! `mpt gateway serve`'s knobs from the environment: the upstream token (`MEMPALACE_MCP_HTTP_TOKEN`
//! or the 0600 file `MPT_GATEWAY_UPSTREAM_TOKEN_FILE`, never argv), `MPT_CA_FILE`, the audit's size,
//! its retention, and the free-space floor.

use std::path::PathBuf;

use super::{Env, FileConfig, Secret};
use crate::error::{MptError, Result};

/// The audit file is rotated past this size (64 MiB).
pub const DEFAULT_AUDIT_MAX_BYTES: u64 = 64 << 20;
/// Rotated audit files older than this are pruned (90 days).
pub const DEFAULT_AUDIT_KEEP: std::time::Duration = std::time::Duration::from_secs(90 * 86_400);
/// And the oldest past this size in all (1 GiB).
pub const DEFAULT_AUDIT_KEEP_BYTES: u64 = 1 << 30;
/// Below this much free space, requests without a good token are refused, and below half of
/// it writes (1 GiB).
pub const DEFAULT_FREE_FLOOR: u64 = 1 << 30;

#[derive(Debug, Clone)]
pub struct GatewayKnobs {
    /// The bearer `mempalace serve` checks; devices never hold it.
    pub upstream_token: Option<Secret>,
    /// Where it came from, for messages.
    pub token_source: Option<&'static str>,
    /// An extra CA to trust for an `https://` upstream.
    pub ca_file: Option<PathBuf>,
    pub audit_max_bytes: u64,
    /// How long rotated audit files are kept (`MPT_GATEWAY_AUDIT_KEEP`, a duration).
    pub audit_keep: std::time::Duration,
    /// How many bytes of audit files are kept in all (`MPT_GATEWAY_AUDIT_KEEP_BYTES`).
    pub audit_keep_bytes: u64,
    /// The free-space floor of the state folder's disk (`MPT_GATEWAY_FREE_FLOOR`, bytes).
    pub free_floor: u64,
    /// The HOME a member's scoped mine's `~` expands to: the gateway's, as the server beside it
    /// reads its own.
    pub mine_home: Option<PathBuf>,
}

impl GatewayKnobs {
    pub fn from_env(env: &Env) -> Result<GatewayKnobs> {
        let from_env = match env.raw("MEMPALACE_MCP_HTTP_TOKEN")? {
            Some(t) => super::values::token(t, "MEMPALACE_MCP_HTTP_TOKEN")?,
            None => None,
        };
        let (upstream_token, token_source) = match from_env {
            Some(t) => (Some(t), Some("MEMPALACE_MCP_HTTP_TOKEN")),
            None => match super::values::env_path(env, "MPT_GATEWAY_UPSTREAM_TOKEN_FILE")? {
                Some(p) => (
                    Some(super::read_token_file(&p)?),
                    Some("MPT_GATEWAY_UPSTREAM_TOKEN_FILE"),
                ),
                None => (None, None),
            },
        };
        let audit_max_bytes = bytes(env, "MPT_GATEWAY_AUDIT_MAX_BYTES", DEFAULT_AUDIT_MAX_BYTES)?;
        let audit_keep_bytes = bytes(
            env,
            "MPT_GATEWAY_AUDIT_KEEP_BYTES",
            DEFAULT_AUDIT_KEEP_BYTES,
        )?;
        let free_floor = bytes(env, "MPT_GATEWAY_FREE_FLOOR", DEFAULT_FREE_FLOOR)?;
        let audit_keep = match env.get("MPT_GATEWAY_AUDIT_KEEP") {
            None => DEFAULT_AUDIT_KEEP,
            Some(v) => crate::time::parse_duration(v.trim()).map_err(|_| {
                MptError::usage(format!(
                    "MPT_GATEWAY_AUDIT_KEEP='{v}' is not a duration (90d, 12h, 30m)"
                ))
                .with_hint(
                    "unset it for its default of 90 days, or set e.g. MPT_GATEWAY_AUDIT_KEEP=30d",
                )
            })?,
        };
        Ok(GatewayKnobs {
            upstream_token,
            token_source,
            ca_file: super::values::check_ca_file(env, &FileConfig::default())?,
            audit_max_bytes,
            audit_keep,
            audit_keep_bytes,
            free_floor,
            mine_home: env.get("HOME").map(PathBuf::from),
        })
    }
}

/// A positive whole number of bytes from `name`, else `default`.
fn bytes(env: &Env, name: &str, default: u64) -> Result<u64> {
    match env.get(name) {
        None => Ok(default),
        Some(v) => v
            .trim()
            .parse::<u64>()
            .ok()
            .filter(|n| *n > 0)
            .ok_or_else(|| {
                MptError::usage(format!(
                    "{name}='{v}' is not a positive whole number of bytes"
                ))
                .with_hint(format!(
                    "unset it for its default of {default}, or set a number"
                ))
            }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_token_comes_from_the_environment_or_a_private_file() {
        let env = Env::from_pairs([("MEMPALACE_MCP_HTTP_TOKEN", "up-tok")]);
        let k = GatewayKnobs::from_env(&env).unwrap();
        assert_eq!(k.upstream_token.unwrap().expose(), "up-tok");
        assert_eq!(k.audit_max_bytes, DEFAULT_AUDIT_MAX_BYTES);
        let tmp = tempfile::tempdir().unwrap();
        let f = tmp.path().join("tok");
        std::fs::write(&f, "file-tok\n").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o644)).unwrap();
        let env = Env::from_pairs([("MPT_GATEWAY_UPSTREAM_TOKEN_FILE", f.to_str().unwrap())]);
        assert_eq!(GatewayKnobs::from_env(&env).unwrap_err().exit().code(), 4);
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o600)).unwrap();
        let k = GatewayKnobs::from_env(&env).unwrap();
        assert_eq!(k.upstream_token.unwrap().expose(), "file-tok");
        let env = Env::from_pairs([("MPT_GATEWAY_AUDIT_MAX_BYTES", "0")]);
        assert_eq!(GatewayKnobs::from_env(&env).unwrap_err().exit().code(), 2);
    }
}
