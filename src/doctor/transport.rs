//! Check `transport`: the one the bridge picks (`MEMPALACE_REMOTE_URL` set: the primary; else a
//! local child), probed for real: handshake, tools, `mempalace_status`, and for a primary its
//! `/healthz` and `/statusz`. Each failure layer (DNS, refused, TLS, 401, 403, 404) has its own fix.

use std::time::Duration;

use serde_json::{Value, json};

use super::{Check, Inputs, Status};
use mpt_base::config::{Config, Remote};
use mpt_base::error::MptError;
use mpt_mcp::client::local_child_program;
use mpt_mcp::route::{Dial, Route, Rule};
use mpt_mcp::{CallError, Deadline, McpClient};
use mpt_palace::paths::realpath;

const ID: &str = "transport";

pub async fn check(inputs: &Inputs) -> Check {
    let config = match &inputs.config {
        Ok(c) => c,
        Err(e) => return super::config_broken(ID, e),
    };
    if inputs.offline {
        return Check::new(ID, Status::Skip, "skipped (--offline)");
    }
    // The route a call would take: the primary when configured, else the palace's edge owner (its
    // child is the one writer: probed through it), else a read-only child of our own.
    let route = match Route::choose(&inputs.env, config, || inputs.palace(), Rule::PRIMARY_FIRST) {
        Ok(r) => r,
        Err(e) => return Check::new(ID, Status::Fail, e.message),
    };
    let dial = Dial {
        read_only_child: true,
        show_stderr: inputs.show_child_stderr,
        primary_timeout: Some(Duration::from_secs(20)),
        ..Dial::as_harness("doctor")
    };
    let client = match route.client(&inputs.env, config, &dial) {
        Ok(c) => c,
        Err(e) => {
            let what = config.remote.as_ref().map_or("local".into(), |r| {
                format!("remote {}", mpt_base::secrets::redact_url(&r.url))
            });
            return failed_with(what, e);
        }
    };
    match (&route, &config.remote) {
        (Route::Primary { .. }, Some(remote)) => remote_probe(inputs, config, remote, client).await,
        (Route::EdgeOwner { socket, pid }, _) => owner_probe(inputs, client, socket, *pid).await,
        _ => local_probe(inputs, config, client).await,
    }
}

fn failed(summary: String, e: CallError) -> Check {
    failed_with(summary, MptError::from(e))
}

fn failed_with(summary: String, m: MptError) -> Check {
    let mut c = Check::new(ID, Status::Fail, format!("{summary}: {}", m.message));
    if let Some(h) = m.hint {
        c = c.fix(h);
    }
    if let Some(tail) = m
        .detail
        .as_ref()
        .and_then(|d| d.get("stderr_tail"))
        .and_then(Value::as_array)
    {
        for l in tail.iter().rev().take(5).rev() {
            c = c.evidence(format!("stderr: {}", l.as_str().unwrap_or("")));
        }
    }
    c
}

/// Our own read-only child (`Dial::read_only_child`): it must never become a second writer on
/// a palace a session holds.
async fn local_probe(inputs: &Inputs, config: &Config, client: McpClient) -> Check {
    let paths = match inputs.palace() {
        Ok(p) => p,
        Err(e) => return Check::new(ID, Status::Fail, e.message),
    };
    let program = local_child_program(config, None).0.display().to_string();
    let result = async {
        let hs = client.connect().await?;
        let status = client
            .request(
                "tools/call",
                Some(json!({"name": "mempalace_status", "arguments": {}})),
                Deadline::Default,
            )
            .await?;
        Ok::<_, CallError>((hs, mpt_mcp::ToolReply::from_result(&status)))
    }
    .await;
    client.shutdown().await;
    let (hs, status) = match result {
        Ok(r) => r,
        Err(e @ (CallError::Spawn { .. } | CallError::NoProgram { .. })) => {
            return failed("local".into(), e).fix("install MemPalace (`pip install mempalace`), or set `child` in the mpt config to its mempalace-mcp");
        }
        Err(e) => return failed("local: the child did not answer".into(), e),
    };
    let mut c = Check::new(ID, Status::Ok, "")
        .evidence(format!(
            "local stdio: {program} --palace {}",
            paths.palace.display()
        ))
        .evidence(format!(
            "handshake {:.0} ms, {} tools (read-only probe), MemPalace {}",
            hs.elapsed.as_secs_f64() * 1e3,
            hs.tools.len(),
            hs.server_version().unwrap_or("?")
        ));
    let p = &status.payload;
    if p.get("error").and_then(Value::as_str) == Some("Chroma database missing") {
        c.status = Status::Warn;
        c.summary = format!(
            "local palace answers, but none exists yet at {} (MemPalace creates it on the first write)",
            paths.palace.display()
        );
        return c;
    }
    if let Some(f) = status.failure {
        c.status = Status::Fail;
        c.summary = format!("local: mempalace_status failed inside a good reply: {f}");
        return c.fix("run `mempalace status` on this palace for the server's own diagnosis");
    }
    let drawers = p.get("total_drawers").and_then(Value::as_u64).unwrap_or(0);
    let palace = p
        .pointer("/sqlite_integrity/palace")
        .and_then(Value::as_str)
        .unwrap_or("?");
    if p.pointer("/sqlite_integrity/ok") == Some(&Value::Bool(false)) {
        c.status = Status::Fail;
        c.summary = format!("local palace {palace} fails its SQLite integrity check");
        return c.fix(
            "stop every MemPalace process on it, back it up, and run `mempalace repair-status`",
        );
    }
    c.summary = format!(
        "local stdio child serves {palace}: {drawers} drawers, handshake {:.0} ms",
        hs.elapsed.as_secs_f64() * 1e3
    );
    c
}

async fn owner_probe(
    inputs: &Inputs,
    client: McpClient,
    socket: &std::path::Path,
    pid: Option<u32>,
) -> Check {
    let palace = inputs.palace().map(|p| p.palace).unwrap_or_default();
    let palace = palace.as_path();
    let pid = pid.map_or("?".into(), |p| p.to_string());
    let result = async {
        let hs = client.connect().await?;
        let status = client
            .call_tool("mempalace_status", json!({}), Deadline::Default)
            .await?;
        Ok::<_, CallError>((hs, status.payload))
    }
    .await;
    match result {
        Ok((hs, p)) => {
            let drawers = p.get("total_drawers").and_then(Value::as_u64).unwrap_or(0);
            Check::new(
                ID,
                Status::Ok,
                format!(
                    "the edge owner (pid {pid}) serves {}: {drawers} drawers, handshake {:.0} ms",
                    palace.display(),
                    hs.elapsed.as_secs_f64() * 1e3
                ),
            )
            .evidence(format!(
                "through {} (one writer per palace: no second child started)",
                socket.display()
            ))
            .evidence(format!(
                "{} tools, MemPalace {}",
                hs.tools.len(),
                hs.server_version().unwrap_or("?")
            ))
        }
        Err(CallError::ToolFailed { payload, .. })
            if payload.get("error").and_then(Value::as_str) == Some("Chroma database missing") =>
        {
            Check::new(
                ID,
                Status::Warn,
                format!(
                    "the edge owner (pid {pid}) answers, but no palace exists yet at {}",
                    palace.display()
                ),
            )
        }
        Err(e) => failed(format!("local: the edge owner (pid {pid})"), e),
    }
}

/// `/healthz` is not where the MCP endpoint says its siblings are: behind a path prefix that the
/// reverse proxy forwards for `/mcp` alone, the edge can neither see the primary's health nor pull
/// its log nor learn its embedder, though MCP calls work.
fn healthz_missing(shown: &str, healthz: &str) -> Check {
    Check::new(
        ID,
        Status::Fail,
        format!(
            "the primary {shown} answers no /healthz beside its MCP endpoint (GET {healthz}: HTTP 404): the edge cannot tell it is up, pull its coordination log (/sync/*) or merge reads, though MCP calls may work"
        ),
    )
    .evidence(format!("GET {healthz}: HTTP 404"))
    .fix("forward the whole prefix to `mempalace serve` (its /healthz, /statusz and /sync/* beside /mcp), or set MEMPALACE_REMOTE_URL to the address /mcp is served at with its siblings")
}

async fn remote_probe(
    inputs: &Inputs,
    config: &Config,
    remote: &Remote,
    client: McpClient,
) -> Check {
    let shown = mpt_base::secrets::redact_url(&remote.url);
    let McpClient::Remote(http) = &client else {
        unreachable!("the primary's route is HTTP")
    };
    let mut c = Check::new(ID, Status::Ok, "").evidence(format!("remote: {shown}"));
    let healthz = http.route_shown("/healthz");
    match http
        .get("/healthz", Deadline::After(Duration::from_secs(10)))
        .await
    {
        Ok((200, _)) => c = c.evidence(format!("GET {healthz}: ok")),
        Ok((404, _)) => return healthz_missing(&shown, &healthz),
        Ok((status, body)) => {
            c = c.evidence(format!(
                "GET {healthz}: HTTP {status} {}",
                body.lines().next().unwrap_or("")
            ))
        }
        Err(e) => return failed(format!("remote {shown}: /healthz"), e),
    }
    let hs = match client.connect().await {
        Ok(h) => h,
        // No token at all: the refusal's own word ("malformed") is not the cause (issue 56, 8).
        Err(CallError::Http {
            failure: mpt_mcp::HttpFailure::Unauthorized(_),
            ..
        }) if remote.token.is_none() => {
            return Check::new(
                ID,
                Status::Fail,
                format!("remote {shown}: a remote URL and no token set: the primary refused the request (401)"),
            )
            .fix("set MPT_TOKEN_FILE to the 0600 file holding this device's token (or MEMPALACE_REMOTE_TOKEN), in the shell its harness starts from");
        }
        Err(e) => {
            let refused = matches!(
                e,
                CallError::Http {
                    failure: mpt_mcp::HttpFailure::Unauthorized(_),
                    ..
                }
            );
            let mut c = failed(format!("remote {shown}: the MCP handshake"), e)
                .for_device(config.device.as_deref());
            if let (true, Some((_, source)), Some(fix)) = (refused, &remote.token, &mut c.fix) {
                fix.push_str(&source.after_a_new_token());
            }
            return c;
        }
    };
    c = c.evidence(format!(
        "handshake {:.0} ms, {} tools, MemPalace {}",
        hs.elapsed.as_secs_f64() * 1e3,
        hs.tools.len(),
        hs.server_version().unwrap_or("?")
    ));
    // Behind `mpt gateway`: the device it takes this token for, which must be this one's name.
    let who = mpt_mcp::whoami::ask(http, Deadline::After(Duration::from_secs(10)))
        .await
        .ok()
        .flatten();
    if let Some(who) = &who {
        c = c.evidence(format!("GET /whoami: {}", who.describe()));
        if let Some(why) = who.mismatch(config.device.as_deref()) {
            c.status = if config.device.is_some() {
                Status::Fail
            } else {
                Status::Warn
            };
            c.summary = format!(
                "{why}: this device's stamps, replay checks and mailbox would use another name than the gateway's audit"
            );
            return c.fix(who.mismatch_fix(config.device.as_deref()));
        }
    }
    let through = who.as_ref().map_or(String::new(), |w| {
        format!(
            "; through mpt gateway as device '{}' ({})",
            w.device,
            w.role.as_deref().unwrap_or("not in the policy")
        )
    });
    let status = match client
        .call_tool("mempalace_status", json!({}), Deadline::Default)
        .await
    {
        Ok(s) => s.payload,
        Err(CallError::ToolFailed { payload, .. })
            if payload.get("error").and_then(Value::as_str) == Some("Chroma database missing") =>
        {
            let mut c = super::empty_primary::verdict(inputs, &shown, c);
            c.summary.push_str(&through);
            return c;
        }
        Err(e) => return failed(format!("remote {shown}: mempalace_status"), e),
    };
    let primary_palace = status
        .pointer("/sqlite_integrity/palace")
        .and_then(Value::as_str)
        .unwrap_or("?")
        .to_string();
    let drawers = status
        .get("total_drawers")
        .and_then(Value::as_u64)
        .unwrap_or(0);
    // Behind a gateway `/statusz` is an admin's: another device's probe would only fill the
    // gateway's denied audit (issue 56, item 15).
    let admin = who
        .as_ref()
        .is_none_or(|w| w.role.as_deref() == Some("admin"));
    if admin
        && let Ok((200, body)) = http
            .get("/statusz", Deadline::After(Duration::from_secs(10)))
            .await
        && let Ok(s) = serde_json::from_str::<Value>(&body)
    {
        c = c.evidence(format!(
            "statusz: version {}, scheme {}, read_only {}",
            s.pointer("/server/version")
                .and_then(Value::as_str)
                .unwrap_or("?"),
            s.pointer("/server/scheme")
                .and_then(Value::as_str)
                .unwrap_or("?"),
            s.pointer("/writer/read_only")
                .map_or("?".into(), |v| v.to_string())
        ));
    }
    // A gateway blanks the server's paths for a device that is not admin (issue 56, item 15).
    let serves = match primary_palace.as_str() {
        "" => "the primary's palace (its path shown to admins only)".to_string(),
        p => format!("the primary serves {p}"),
    };
    c.summary = format!(
        "{serves}: {drawers} drawers, handshake {:.0} ms",
        hs.elapsed.as_secs_f64() * 1e3
    );
    c.summary.push_str(&through);
    let url = reqwest::Url::parse(&remote.url).ok();
    let host = url
        .as_ref()
        .and_then(|u| u.host_str())
        .unwrap_or("")
        .to_string();
    if url.as_ref().is_some_and(|u| u.scheme() == "http") && !mpt_mcp::agent::loopback_host(&host) {
        c.status = Status::Warn;
        c.summary = format!(
            "plaintext http:// to {host}: the token and every memory cross the network readable ({})",
            c.summary
        );
        c = c.fix("serve the primary with TLS (`mempalace serve --tls-cert … --tls-key …`) or behind an HTTPS proxy, and use https://");
    }
    if let Ok(local) = inputs.palace()
        && realpath(&local.palace).to_string_lossy() == primary_palace
    {
        c.status = Status::Warn;
        c.summary = format!(
            "MEMPALACE_REMOTE_URL points back at this machine: the primary serves this machine's own palace {primary_palace}"
        );
        c = c.fix("point MEMPALACE_REMOTE_URL at the shared primary's host, not at this machine");
    }
    c
}
