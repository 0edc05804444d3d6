//! Where a primary's other routes live: beside its MCP endpoint, not at its origin's root, so a
//! primary behind a path prefix (`https://host/palace/mcp`) is reached whole.

// `/healthz`, `/statusz`, `/sync/*` and `/whoami` are the MCP endpoint's siblings: every GET mpt
// makes and the pull's base come from here (`HttpClient::get`, its liveness probe, the pull).

use reqwest::Url;

/// The folder the MCP endpoint sits in: `mcp_url` with its last segment (`mcp`, a trailing slash
/// tolerated) removed, without query or fragment. `https://h/palace/mcp/` → `https://h/palace/`;
/// `https://h:8765/mcp` → `https://h:8765/`. A URL whose last segment is not `mcp` keeps the folder
/// that segment is in, as a relative link would. Always ends in `/`.
pub fn sibling_base(mcp_url: &str) -> Option<Url> {
    let mut url = Url::parse(mcp_url).ok()?;
    if url.cannot_be_a_base() {
        return None;
    }
    let path = url.path();
    let trimmed = path
        .strip_suffix('/')
        .filter(|p| p.ends_with("/mcp"))
        .unwrap_or(path);
    let folder = match trimmed.rfind('/') {
        Some(i) => trimmed[..=i].to_string(),
        None => "/".to_string(),
    };
    url.set_path(&folder);
    url.set_query(None);
    url.set_fragment(None);
    Some(url)
}

/// `route` (`/healthz`, `/sync/version_vector`: a path from the server's root) beside the MCP
/// endpoint `mcp_url`: `https://h/palace/mcp` + `/healthz` → `https://h/palace/healthz`.
pub fn sibling(mcp_url: &str, route: &str) -> Option<Url> {
    let mut url = sibling_base(mcp_url)?;
    let path = format!("{}{}", url.path(), route.trim_start_matches('/'));
    url.set_path(&path);
    Some(url)
}

/// [`sibling_base`] as text without its trailing `/`, for a peer that appends each route itself
/// (MemPalace's sync engine: `base_url.rstrip("/") + "/sync/ops"`).
pub fn sibling_base_text(mcp_url: &str) -> Option<String> {
    sibling_base(mcp_url).map(|u| u.as_str().trim_end_matches('/').to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(url: &str, route: &str) -> String {
        sibling(url, route).map(String::from).unwrap_or_default()
    }

    #[test]
    fn siblings_replace_the_last_mcp_segment() {
        assert_eq!(
            at("https://palace.example:8765/mcp", "/healthz"),
            "https://palace.example:8765/healthz"
        );
        assert_eq!(
            at("https://h/palace/mcp", "/sync/version_vector"),
            "https://h/palace/sync/version_vector"
        );
        // A trailing slash is tolerated; the query and fragment are not carried over.
        assert_eq!(
            at("https://h/a/b/mcp/?x=1#f", "/statusz"),
            "https://h/a/b/statusz"
        );
        // An `mcp` earlier in the path is a folder like any other.
        assert_eq!(at("https://h/mcp/mcp", "/whoami"), "https://h/mcp/whoami");
        // No `mcp` last: the folder the endpoint is in, as a relative link resolves.
        assert_eq!(
            at("https://h/palace/rpc", "/healthz"),
            "https://h/palace/healthz"
        );
        assert_eq!(
            at("http://127.0.0.1:9", "healthz"),
            "http://127.0.0.1:9/healthz"
        );
        assert_eq!(sibling("not a url", "/healthz"), None);
    }

    #[test]
    fn the_sync_base_has_no_trailing_slash() {
        assert_eq!(
            sibling_base_text("https://palace.example:8765/mcp").as_deref(),
            Some("https://palace.example:8765")
        );
        assert_eq!(
            sibling_base_text("http://127.0.0.1:9/palace/mcp/?x=1").as_deref(),
            Some("http://127.0.0.1:9/palace")
        );
        assert_eq!(sibling_base_text("mailto:x@y"), None);
    }
}
