//! The device's side of `POST /join`: the code sent once as the bearer, the gateway's answer
//! read into the device's token (registered as a secret at once), its refusals typed with their fix.

use std::path::Path;
use std::time::Duration;

use serde::Deserialize;

use mpt_base::config::Secret;
use mpt_base::error::{ErrorKind, MptError, Result};

/// What the gateway gave: the device it knows this code for, and its token.
#[derive(Debug)]
pub struct Joined {
    pub device: String,
    pub role: Option<String>,
    pub token_id: String,
    pub token: Secret,
    pub expires: Option<String>,
}

#[derive(Deserialize)]
struct Reply {
    schema: String,
    device: String,
    role: Option<String>,
    token_id: String,
    token: String,
    expires: Option<String>,
}

/// `origin` is the gateway's scheme, host and port; `ca_file` an extra CA to trust (PEM).
pub async fn exchange(origin: &reqwest::Url, code: &str, ca_file: Option<&Path>) -> Result<Joined> {
    let url = origin
        .join("/join")
        .map_err(|e| MptError::usage(format!("{origin}: {e}")))?;
    let client = mpt_mcp::agent::builder(ca_file)?
        .connect_timeout(Duration::from_secs(10))
        .timeout(Duration::from_secs(30))
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| MptError::usage(format!("cannot set up the HTTP client: {e}")))?;
    let resp = client
        .post(url.clone())
        .bearer_auth(code)
        .send()
        .await
        .map_err(|e| unreachable(origin, &e))?;
    let status = resp.status();
    let retry_after = resp
        .headers()
        .get(reqwest::header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    let body = resp.bytes().await.map_err(|e| unreachable(origin, &e))?;
    match status.as_u16() {
        200 => {
            let r: Reply = serde_json::from_slice(&body)
                .ok()
                .filter(|r: &Reply| r.schema == mpt_base::schema::GATEWAY_JOIN)
                .ok_or_else(|| {
                    MptError::new(
                        ErrorKind::Protocol,
                        format!("{origin} answered the join with something that is not an mpt gateway's token"),
                    )
                    .with_hint("check the URL: it must be the gateway (`mpt gateway serve`), not `mempalace serve`")
                })?;
            Ok(Joined {
                device: r.device,
                role: r.role,
                token_id: r.token_id,
                // Registered for scrubbing as it is wrapped.
                token: Secret::new(r.token),
                expires: r.expires,
            })
        }
        401 => {
            let why = serde_json::from_slice::<serde_json::Value>(&body)
                .ok()
                .and_then(|v| v["error"].as_str().map(str::to_string))
                .unwrap_or_else(|| "refused".into());
            let said = match why.as_str() {
                "used" => "was used already (a code works once)",
                "expired" => "has expired",
                "revoked" => "was revoked",
                "unknown_code" => "is not one it made",
                "not_in_policy" => "is for a device its policy no longer names",
                _ => "was refused",
            };
            Err(MptError::refused(format!("the gateway at {origin} says this join code {said}"))
                .with_hint("ask for a new code on the primary host: `mpt gateway invite DEVICE`, then run `mpt join` again with it"))
        }
        429 => Err(MptError::new(
            ErrorKind::Unavailable,
            format!(
                "the gateway at {origin} limits join attempts from this address: try again in {} s",
                retry_after.unwrap_or(12)
            ),
        )
        .with_hint("wait, then run `mpt join` again with the same code (it is not spent)")),
        404 | 405 => Err(MptError::new(
            ErrorKind::Protocol,
            format!("{origin} has no join route (HTTP {status})"),
        )
        .with_hint("check the URL: it must be an mpt gateway (`mpt gateway serve`) of a version that has `mpt gateway invite`")),
        _ => Err(MptError::new(
            ErrorKind::Unavailable,
            format!("the gateway at {origin} could not complete the join (HTTP {status})"),
        )
        .with_hint("the code may still be good: run `mpt join` again; if it fails again, the gateway's log says why")),
    }
}

fn unreachable(origin: &reqwest::Url, e: &reqwest::Error) -> MptError {
    let tls = format!("{e:?}").to_lowercase().contains("certificate");
    if tls {
        return MptError::new(
            ErrorKind::Unavailable,
            format!("the gateway at {origin} presented a certificate this device does not trust"),
        )
        .with_hint("give the CA that signed it: `mpt join URL --ca-file ca.pem`");
    }
    MptError::new(
        ErrorKind::Unavailable,
        format!("cannot reach the gateway at {origin}: {}", mpt_base::secrets::scrubbed(e.to_string())),
    )
    .with_hint("is `mpt gateway serve` running on the primary host, and is this the URL devices reach it at?")
}
