//! The primary's coordination log as it grows (`GET /logstream/stream`, SSE): one subscription,
//! resumed by `Last-Event-ID`; a refusal told apart (route absent, blocked, unknown cursor, full).

use std::time::Duration;

use mpt_mcp::CallError;
use mpt_mcp::http::HttpClient;
use mpt_mcp::sse::{Event, Parser};

/// The route, as the server's root names it.
pub const ROUTE: &str = "/logstream/stream";

/// `serve` writes `: ping` after this much silence (`_SSE_HEARTBEAT_S`, `mcp_server/http.py:192`).
pub const PING_INTERVAL: Duration = Duration::from_secs(15);

/// Why the stream is not open: what the reply to the GET said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The server itself has no such route: `serve`'s own 404 (its `http.server` error page): an
    /// older MemPalace. Retrying is pointless until it is upgraded.
    Absent { status: u16 },
    /// Something between us and the server refused the route: a proxy's 403/404, or the mpt
    /// gateway's denial (`Server: mpt-gateway`). `by` names it.
    Blocked { status: u16, by: String },
    /// A 400 to a resume: the cursor is unknown to this server (a primary rebuilt, another log).
    UnknownCursor { detail: String },
    /// 503: the server's SSE cap (8 clients in all) is reached.
    Full { retry_after: Option<u64> },
    /// Any other status (401: the token; 5xx).
    Status { status: u16, detail: String },
}

impl Refusal {
    /// Why polling is used instead, for people and doctor.
    pub fn why(&self) -> String {
        match self {
            Refusal::Absent { status } => format!(
                "route absent: the primary answers {ROUTE} with its own {status} (a MemPalace without the live stream; upgrade it for push)"
            ),
            Refusal::Blocked { status, by } => format!(
                "route blocked: {by} answers {ROUTE} with {status} (the primary may serve it; allow the route there for push)"
            ),
            Refusal::UnknownCursor { detail } => {
                format!("the primary does not know the resume cursor ({detail})")
            }
            Refusal::Full { .. } => format!(
                "the primary's live-stream slots are all taken (503: serve allows 8 {ROUTE} clients in all)"
            ),
            Refusal::Status { status, detail } => {
                format!("the primary answers {ROUTE} with {status}: {detail}")
            }
        }
    }

    /// The short word doctor and `--json` carry.
    pub fn kind(&self) -> &'static str {
        match self {
            Refusal::Absent { .. } => "route_absent",
            Refusal::Blocked { .. } => "route_blocked",
            Refusal::UnknownCursor { .. } => "unknown_cursor",
            Refusal::Full { .. } => "full",
            Refusal::Status { .. } => "refused",
        }
    }
}

/// What a non-200 reply to the GET means. `server` is its `Server` header, `body` the start of it.
pub fn classify(status: u16, server: Option<&str>, body: &str, resumed: bool) -> Refusal {
    let server = server.unwrap_or("");
    let gateway = server.contains(mpt_mcp::agent::GATEWAY_SERVER);
    match status {
        400 if resumed && !gateway => Refusal::UnknownCursor {
            detail: first_line(body),
        },
        403 | 404 if gateway => Refusal::Blocked {
            status,
            by: "the mpt gateway (Server: mpt-gateway)".into(),
        },
        // `serve` answers an unknown path with `http.server`'s own error page: its Server header
        // (`BaseHTTP/… Python/…`) unless a proxy rewrote it, its body in any case.
        404 if server.starts_with("BaseHTTP/") || is_python_error_page(body) => {
            Refusal::Absent { status }
        }
        403 | 404 => Refusal::Blocked {
            status,
            by: if server.is_empty() {
                "a proxy before the primary".into()
            } else {
                format!("a proxy before the primary (Server: {server})")
            },
        },
        503 => Refusal::Full { retry_after: None },
        _ => Refusal::Status {
            status,
            detail: first_line(body),
        },
    }
}

/// Python's `http.server` `DEFAULT_ERROR_MESSAGE`, as `send_error` renders it.
fn is_python_error_page(body: &str) -> bool {
    body.contains("<title>Error response</title>") && body.contains("Error code explanation:")
}

fn first_line(body: &str) -> String {
    let line = body.lines().next().unwrap_or("").trim();
    line.chars().take(200).collect()
}

/// How a subscription ended.
#[derive(Debug)]
pub enum Ended {
    /// The server closed it (a restart, a proxy's idle cut).
    Closed,
    /// Nothing (no frame, no ping) for longer than the silence deadline: a dead link.
    Silent(Duration),
    /// The connection failed mid-stream.
    Broken(String),
}

impl std::fmt::Display for Ended {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Ended::Closed => write!(f, "the primary closed the stream"),
            Ended::Silent(d) => write!(
                f,
                "the stream was silent for {} s (the primary pings every {} s): taken as dead",
                d.as_secs(),
                PING_INTERVAL.as_secs()
            ),
            Ended::Broken(e) => write!(f, "the stream broke: {e}"),
        }
    }
}

/// An open subscription: frames as they come, the last id seen kept for the resume.
pub struct Subscription {
    resp: reqwest::Response,
    parser: Parser,
    pending: std::collections::VecDeque<Event>,
    pub last_id: Option<String>,
}

/// Opens the stream of every event (no filter: this device's identities are a pattern the
/// server's exact filters cannot express), after `cursor` when one is given.
pub async fn open(
    client: &HttpClient,
    cursor: Option<&str>,
    head_deadline: Duration,
) -> Result<Result<Subscription, Refusal>, CallError> {
    let headers: Vec<(&str, String)> = cursor
        .map(|c| vec![("Last-Event-ID", c.to_string())])
        .unwrap_or_default();
    let resp = client.open_stream(ROUTE, &headers, head_deadline).await?;
    let status = resp.status().as_u16();
    let is_sse = resp
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"));
    if status == 200 && is_sse {
        return Ok(Ok(Subscription {
            resp,
            parser: Parser::default(),
            pending: Default::default(),
            last_id: cursor.map(str::to_string),
        }));
    }
    let server = resp
        .headers()
        .get(reqwest::header::SERVER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let retry_after = resp
        .headers()
        .get(reqwest::header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse().ok());
    let body = tokio::time::timeout(head_deadline, read_some(resp))
        .await
        .unwrap_or_default();
    let mut refusal = if status == 200 {
        Refusal::Blocked {
            status,
            by: "something before the primary (a 200 that is not an event stream)".into(),
        }
    } else {
        classify(status, server.as_deref(), &body, cursor.is_some())
    };
    if let Refusal::Full { retry_after: r } = &mut refusal {
        *r = retry_after;
    }
    Ok(Err(refusal))
}

/// The start of an error body (a page is not worth more).
async fn read_some(mut resp: reqwest::Response) -> String {
    let mut out = Vec::new();
    while out.len() < 4096 {
        match resp.chunk().await {
            Ok(Some(c)) => out.extend_from_slice(&c),
            _ => break,
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

impl Subscription {
    /// The next event frame (pings reset the silence, but are not returned), or how it ended.
    pub async fn next(&mut self, silence: Duration) -> Result<Event, Ended> {
        loop {
            if let Some(ev) = self.pending.pop_front() {
                if let Some(id) = ev.id.as_ref().filter(|i| !i.is_empty()) {
                    self.last_id = Some(id.clone());
                }
                return Ok(ev);
            }
            match tokio::time::timeout(silence, self.resp.chunk()).await {
                Err(_) => return Err(Ended::Silent(silence)),
                Ok(Ok(None)) => return Err(Ended::Closed),
                Ok(Err(e)) => return Err(Ended::Broken(broken(&e))),
                Ok(Ok(Some(bytes))) => self.pending.extend(self.parser.push(&bytes)),
            }
        }
    }
}

fn broken(e: &reqwest::Error) -> String {
    mpt_base::secrets::redact_url(&e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    const PY_404: &str = "<!DOCTYPE HTML>\n<html lang=\"en\">\n    <head>\n        <meta charset=\"utf-8\">\n        <title>Error response</title>\n    </head>\n    <body>\n        <h1>Error response</h1>\n        <p>Error code: 404</p>\n        <p>Message: Not Found.</p>\n        <p>Error code explanation: 404 - Nothing matches the given URI.</p>\n    </body>\n</html>\n";

    #[test]
    fn serves_own_404_is_absent_a_proxys_or_the_gateways_is_blocked() {
        let own = classify(404, Some("BaseHTTP/0.6 Python/3.11.9"), PY_404, false);
        assert_eq!(own, Refusal::Absent { status: 404 });
        // Through a proxy that rewrote Server, the page still says whose 404 it is.
        let relayed = classify(404, Some("nginx"), PY_404, false);
        assert_eq!(relayed.kind(), "route_absent");
        let nginx = classify(404, Some("nginx/1.25"), "<center>nginx</center>", false);
        assert_eq!(nginx.kind(), "route_blocked");
        assert!(nginx.why().contains("nginx/1.25"), "{}", nginx.why());
        let forbidden = classify(403, None, "forbidden", false);
        assert_eq!(forbidden.kind(), "route_blocked");
        let gw = classify(403, Some("mpt-gateway"), "{\"error\":\"denied\"}", true);
        assert!(gw.why().contains("mpt gateway"), "{}", gw.why());
        let gw404 = classify(404, Some("mpt-gateway"), PY_404, false);
        assert_eq!(gw404.kind(), "route_blocked");
    }

    #[test]
    fn a_400_to_a_resume_is_an_unknown_cursor() {
        let body = "{\"error\": \"since_event_id 'evt_x' not found\"}";
        assert_eq!(classify(400, None, body, true).kind(), "unknown_cursor");
        assert_eq!(classify(400, None, body, false).kind(), "refused");
        assert_eq!(classify(503, None, "", false).kind(), "full");
        assert_eq!(classify(401, None, "", false).kind(), "refused");
    }
}
