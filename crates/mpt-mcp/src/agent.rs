//! The HTTP client every road to the primary or its gateway starts from: mpt's user agent, the
//! extra CA a device trusts (`ca_file`, e.g. a gateway's self-signed certificate), and which
//! hosts are this machine (where plain http crosses no network); the name a gateway answers as.

use std::path::Path;

/// The `Server` header of every answer an mpt gateway makes: a client knows a gateway by it.
pub const GATEWAY_SERVER: &str = "mpt-gateway";

/// Why the client could not be set up: the CA file unreadable or holding no certificate.
#[derive(Debug)]
pub struct NoClient(pub String);

/// A client builder with mpt's user agent and `ca_file`'s certificates trusted beside the
/// system's; each caller adds its own deadlines.
pub fn builder(ca_file: Option<&Path>) -> Result<reqwest::ClientBuilder, NoClient> {
    let builder = reqwest::Client::builder().user_agent(concat!("mpt/", env!("CARGO_PKG_VERSION")));
    let Some(ca) = ca_file else {
        return Ok(builder);
    };
    let pem = std::fs::read(ca)
        .map_err(|e| NoClient(format!("cannot read the CA file {}: {e}", ca.display())))?;
    let certs = reqwest::Certificate::from_pem_bundle(&pem).map_err(|e| {
        NoClient(format!(
            "the CA file {} holds no PEM certificate: {e}",
            ca.display()
        ))
    })?;
    Ok(builder.tls_certs_merge(certs))
}

impl From<NoClient> for mpt_base::error::MptError {
    fn from(e: NoClient) -> Self {
        mpt_base::error::MptError::usage(e.0)
            .with_hint("point ca_file (or MPT_CA_FILE) at the PEM certificate of the CA that signed the gateway's")
    }
}

/// Whether a URL's host is this machine: `localhost`, or a loopback address (`[::1]` with or
/// without its brackets).
pub fn loopback_host(host: &str) -> bool {
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    bare == "localhost"
        || bare
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}
