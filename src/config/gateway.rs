//! `mpt gateway serve`'s knobs from the environment: the upstream token (`MEMPALACE_MCP_HTTP_TOKEN`
//! or the 0600 file `MPT_GATEWAY_UPSTREAM_TOKEN_FILE`, never argv), `MPT_CA_FILE`, the audit's size.

use std::path::PathBuf;

use super::{Env, FileConfig, Secret};
use crate::error::{MptError, Result};

/// The audit file is rotated past this size (64 MiB).
pub const DEFAULT_AUDIT_MAX_BYTES: u64 = 64 << 20;

#[derive(Debug, Clone)]
pub struct GatewayKnobs {
    /// The bearer `mempalace serve` checks; devices never hold it.
    pub upstream_token: Option<Secret>,
    /// Where it came from, for messages.
    pub token_source: Option<&'static str>,
    /// An extra CA to trust for an `https://` upstream.
    pub ca_file: Option<PathBuf>,
    pub audit_max_bytes: u64,
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
        let audit_max_bytes = match env.get("MPT_GATEWAY_AUDIT_MAX_BYTES") {
            None => DEFAULT_AUDIT_MAX_BYTES,
            Some(v) => v
                .trim()
                .parse::<u64>()
                .ok()
                .filter(|n| *n > 0)
                .ok_or_else(|| {
                    MptError::usage(format!(
                        "MPT_GATEWAY_AUDIT_MAX_BYTES='{v}' is not a positive whole number of bytes"
                    ))
                    .with_hint(format!(
                        "unset it for its default of {DEFAULT_AUDIT_MAX_BYTES}, or set a number"
                    ))
                })?,
        };
        Ok(GatewayKnobs {
            upstream_token,
            token_source,
            ca_file: super::values::check_ca_file(env, &FileConfig::default())?,
            audit_max_bytes,
            mine_home: env.get("HOME").map(PathBuf::from),
        })
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
