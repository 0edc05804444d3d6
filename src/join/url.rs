//! The gateway's address as `mpt join` takes it: scheme, host and port (a trailing `/mcp`
//! allowed), plain http only to this host unless a tunnel is said to encrypt the link.

use mpt_base::error::{MptError, Result};

/// The gateway's origin from what the user typed (a trailing `/mcp` or `/` allowed); plain
/// http only to this host unless `allow_insecure`.
pub fn origin(url: &str, allow_insecure: bool) -> Result<reqwest::Url> {
    let bad = |why: &str| {
        MptError::usage(format!("'{url}' {why}")).with_hint(
            "give the URL `mpt gateway invite` printed, e.g. `mpt join https://palace.lan:8765`",
        )
    };
    let parsed = reqwest::Url::parse(url).map_err(|_| bad("is not a URL"))?;
    if mpt_base::secrets::has_userinfo(&parsed) {
        return Err(bad(
            "carries a user name or password: mpt never puts a secret in a URL",
        ));
    }
    let host = parsed.host_str().ok_or_else(|| bad("has no host"))?;
    match parsed.scheme() {
        "https" => {}
        "http" if allow_insecure || mpt_mcp::agent::loopback_host(host) => {}
        "http" => {
            return Err(MptError::refused(format!(
                "'{url}' is plain http to another host: the join code and the token would cross the network readable"
            ))
            .with_hint("use the gateway's https:// URL; over a tunnel that already encrypts (tailscale, ssh), add --allow-insecure"));
        }
        _ => return Err(bad("is not http:// or https://")),
    }
    let path = parsed.path().trim_end_matches('/');
    if !path.is_empty() && path != "/mcp" {
        return Err(bad("names a path: give the gateway's address alone"));
    }
    let mut o = parsed.clone();
    o.set_path("/");
    o.set_query(None);
    o.set_fragment(None);
    Ok(o)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_origin_alone_and_plain_http_only_to_this_host() {
        let o = |u: &str| origin(u, false).map(|o| o.to_string());
        assert_eq!(
            o("https://palace.lan:8443").unwrap(),
            "https://palace.lan:8443/"
        );
        assert_eq!(
            o("https://palace.lan:8443/mcp").unwrap(),
            "https://palace.lan:8443/"
        );
        assert_eq!(o("http://127.0.0.1:9/").unwrap(), "http://127.0.0.1:9/");
        assert_eq!(o("http://[::1]:9").unwrap(), "http://[::1]:9/");
        assert_eq!(o("http://palace.lan:8443").unwrap_err().exit().code(), 4);
        assert!(origin("http://palace.lan:8443", true).is_ok());
        assert_eq!(o("https://u:p@palace.lan").unwrap_err().exit().code(), 2);
        assert_eq!(o("https://palace.lan/other").unwrap_err().exit().code(), 2);
        assert_eq!(o("palace.lan:8443").unwrap_err().exit().code(), 2);
    }
}
