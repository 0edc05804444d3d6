//! The `mailbox` check: whether `mpt mailbox watch` is pushed asks live (the primary's
//! `/logstream/stream` opens) or polls, and why: the route absent, blocked, full, unreachable.

use std::time::Duration;

use super::{Check, Inputs, Status};
use mpt_coord::stream::{self, Refusal};
use mpt_mcp::http::{HttpClient, HttpOptions};

const ID: &str = "mailbox";

pub async fn check(inputs: &Inputs) -> Check {
    let config = match &inputs.config {
        Ok(c) => c,
        Err(e) => return super::config_broken(ID, e),
    };
    let Some(remote) = &config.remote else {
        return Check::new(ID, Status::Skip, "no primary: the mailbox is inert");
    };
    if matches!(
        inputs.env.get("MEMPALACE_MAILBOX"),
        Some("0" | "off" | "false")
    ) {
        return Check::new(ID, Status::Skip, "disabled by MEMPALACE_MAILBOX=0");
    }
    if inputs.offline {
        return Check::new(ID, Status::Skip, "skipped (--offline)");
    }
    let poll = mpt_base::config::edge::mailbox_poll_floor(&inputs.env)
        .unwrap_or(mpt_base::config::edge::DEFAULT_MAILBOX_POLL_MS);
    let opts = HttpOptions::for_remote(remote, config);
    let head = opts.connect_timeout + opts.init_timeout.unwrap_or(Duration::from_secs(10));
    let client = match HttpClient::new(opts) {
        Ok(c) => c,
        Err(e) => return Check::new(ID, Status::Warn, format!("polling: {e}")),
    };
    let shown = client.route_shown(stream::ROUTE);
    let polling = |why: String| {
        Check::new(
            ID,
            Status::Warn,
            format!("polling every {poll} ms: {why}: an ask waits up to that long to be announced"),
        )
        .evidence(format!("GET {shown}"))
    };
    match stream::open(&client, None, head).await {
        // Opened and dropped at once: one of the server's 8 slots, for a moment.
        Ok(Ok(_sub)) => Check::new(
            ID,
            Status::Ok,
            "live: the primary's stream opens, so `mpt mailbox watch` announces an ask as it is appended",
        )
        .evidence(format!("GET {shown}: 200 text/event-stream")),
        Ok(Err(r)) => {
            let fix = match &r {
                Refusal::Absent { .. } => "upgrade MemPalace on the primary (3.11 serves GET /logstream/stream)".to_string(),
                Refusal::Blocked { by, .. } if by.contains("gateway") => "let this device's token read the log stream in the gateway's policy (`mpt gateway policy explain`)".to_string(),
                Refusal::Blocked { .. } => "let the proxy pass GET /logstream/stream to the primary, unbuffered (nginx: `proxy_buffering off`)".to_string(),
                Refusal::Full { .. } => "fewer live-stream clients: each watch holds one of the server's 8 (MEMPALACE_SSE_MAX_CLIENTS on the primary)".to_string(),
                _ => "mpt doctor --check transport   # what the primary answers".to_string(),
            };
            polling(format!("{} ({})", r.why(), r.kind())).fix(fix)
        }
        Err(e) => polling(format!("the stream cannot be reached: {e}"))
            .fix("mpt doctor --check transport   # whether the primary answers at all"),
    }
}
