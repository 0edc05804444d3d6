//! `mpt gateway serve`'s knobs from the environment: the upstream token (an env var or a 0600 file,
//! never argv), `MPT_CA_FILE`, the audit's size, the upstream connections made ahead of need.

use std::path::PathBuf;

use super::{Env, FileConfig, Secret};
use crate::error::{MptError, Result};

/// The audit file is rotated past this size (64 MiB).
pub const DEFAULT_AUDIT_MAX_BYTES: u64 = 64 << 20;
/// Connections to a plain `serve` kept made ahead of need (`MPT_GATEWAY_PRECONNECT`; 0: off).
/// Off by default: on this project's 2-core bench machine one spare did not lower the p50 added
/// (+0.219 ms on vs +0.180 off, main's +0.193, in one run at load 7); see the README.
pub const DEFAULT_PRECONNECT: usize = 0;
/// More spares than this would only be more threads parked in `serve`.
pub const MAX_PRECONNECT: usize = 8;

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
    /// Upstream connections kept ready (`MPT_GATEWAY_PRECONNECT`).
    pub preconnect: usize,
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
            preconnect: preconnect(env.get("MPT_GATEWAY_PRECONNECT"))?,
        })
    }
}

/// `MPT_GATEWAY_PRECONNECT`: how many connections to `serve` are kept made ahead, 0 to
/// [`MAX_PRECONNECT`]; 0 (or `off`) connects for each request as it is sent.
fn preconnect(v: Option<&str>) -> Result<usize> {
    let Some(v) = v else {
        return Ok(DEFAULT_PRECONNECT);
    };
    match v.trim() {
        "off" => Ok(0),
        t => t
            .parse::<usize>()
            .ok()
            .filter(|n| *n <= MAX_PRECONNECT)
            .ok_or_else(|| {
                MptError::usage(format!(
                    "MPT_GATEWAY_PRECONNECT='{v}' is not a number of connections from 0 to {MAX_PRECONNECT}"
                ))
                .with_hint(
                    "unset it (or 0, or off) to connect per request, or set 1 to keep one connection ready",
                )
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

    #[test]
    fn preconnect_is_a_small_count_or_off_and_a_bad_one_is_named() {
        let k = |v: &str| GatewayKnobs::from_env(&Env::from_pairs([("MPT_GATEWAY_PRECONNECT", v)]));
        assert_eq!(
            GatewayKnobs::from_env(&Env::from_pairs([("HOME", "/h")]))
                .unwrap()
                .preconnect,
            DEFAULT_PRECONNECT
        );
        assert_eq!(k("1").unwrap().preconnect, 1);
        assert_eq!(k("0").unwrap().preconnect, 0);
        assert_eq!(k("off").unwrap().preconnect, 0);
        assert_eq!(k(" 3 ").unwrap().preconnect, 3);
        for bad in ["9", "-1", "yes"] {
            let e = k(bad).unwrap_err();
            assert_eq!(e.exit().code(), 2, "{bad}");
            assert!(e.to_string().contains(&format!("'{bad}'")), "{e}");
        }
    }
}
