//! One request through the gateway: `/healthz` answered at once; bad headers refused; the token
//! authenticated; the device's rate taken; then `/whoami`, `POST /mcp`, or a route decided and forwarded.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use hyper::body::Incoming;
use hyper::{Method, Request, Response, StatusCode};
use serde_json::json;

use super::audit::Event;
use super::auth::Who;
use super::forward;
use super::policy::{Policy, Route};
use super::reply::{self, Body};
use super::shared::Shared;

/// How long a GET (other than the stream) may wait for upstream's answer.
const GET_WAIT: Duration = Duration::from_secs(120);

pub async fn handle(sh: Arc<Shared>, peer: SocketAddr, req: Request<Incoming>) -> Response<Body> {
    let started = Instant::now();
    let method = req.method().clone();
    if method != Method::GET && method != Method::POST {
        return reply::not_allowed();
    }
    let path = req.uri().path().to_string();
    if method == Method::GET && path == "/healthz" {
        return reply::bytes(StatusCode::OK, "text/plain; charset=utf-8", "ok\n");
    }
    if let Some(name) = super::auth::bad_header(req.headers()) {
        return reply::bad_header(name);
    }
    let route = Route::of(method.as_str(), &path);
    let mut base = Event {
        stage: Event::REQUEST,
        peer: Some(peer.ip().to_string()),
        route: path.clone(),
        class: route.class().to_string(),
        ..Event::default()
    };
    let who = match sh.authenticate(req.headers(), crate::time::now_unix()) {
        Ok(w) => w,
        Err(refused) => {
            base.token_id = refused.token_id;
            base.rule = format!("auth:{}", refused.why.as_str());
            let _ = sh.audit(&base, false);
            return reply::unauthorized(refused.why);
        }
    };
    crate::hop!(GwAuthed);
    sh.touch(&who.token_id);
    base.device = Some(who.device.clone());
    base.token_id = Some(who.token_id.clone());
    if method == Method::GET && path == "/mcp" {
        // A client's probe for a server-initiated stream (opencode's, the Inspector's): none
        // here, said as the MCP transport says it; not a decision, nothing forwarded, no
        // request of the device's rate.
        return reply::no_stream();
    }
    let policy = sh.policy();
    if let Err(secs) = sh.take_rate(&who.device, &policy) {
        base.rule = "rate".into();
        let _ = sh.audit(&base, false);
        return reply::rate_limited(secs);
    }
    match route {
        Route::Whoami => whoami(&who, &policy),
        Route::Mcp => super::rpc::handle(&sh, &policy, &who, peer.ip(), base, req, started).await,
        _ => forward_route(&sh, &policy, &who, peer, route, base, req, started).await,
    }
}

/// `GET /whoami`: the device behind the token, as the gateway sees it.
fn whoami(who: &Who, policy: &Policy) -> Response<Body> {
    reply::json(
        StatusCode::OK,
        &json!({
            "schema": crate::schema::GATEWAY_WHOAMI,
            "device": who.device,
            "role": policy.device(&who.device).map(|d| d.role.as_str()),
            "token_id": who.token_id,
            "expires": who.expires,
        }),
    )
}

/// A route other than `/mcp`: decided by the role, then forwarded with an empty body (GET) or
/// the client's (an admin's POST elsewhere).
#[allow(clippy::too_many_arguments)]
async fn forward_route(
    sh: &Arc<Shared>,
    policy: &Policy,
    who: &Who,
    peer: SocketAddr,
    route: Route,
    mut base: Event,
    req: Request<Incoming>,
    started: Instant,
) -> Response<Body> {
    let decision = policy.route(&who.device, route);
    base.allowed = decision.allowed;
    base.rule = decision.rule.clone();
    if !decision.allowed {
        let _ = sh.audit(&base, false);
        return reply::route_denied(&who.device, &base.route, &decision.rule);
    }
    if route == Route::LogStream {
        let query = req.uri().query().unwrap_or("").to_string();
        return super::sse::subscribe(
            sh,
            policy,
            &who.device,
            &query,
            req.headers(),
            base,
            started,
        )
        .await;
    }
    let (parts, body) = req.into_parts();
    let body = if parts.method == Method::POST {
        match forward::read_body(body).await {
            Ok(b) => b,
            Err(u) => return forward::unread_reply(u),
        }
    } else {
        Bytes::new()
    };
    base.bytes_in = body.len() as u64;
    let durable = parts.method == Method::POST;
    if sh.audit_forwarded(&base, durable).await.is_err() && durable {
        return reply::audit_unavailable();
    }
    let target = parts.uri.path_and_query().map_or("/", |p| p.as_str());
    let extra = forward::identity_headers(peer.ip(), &who.device);
    let up = sh
        .upstream
        .request(parts.method.clone(), target, &parts.headers, &extra, body);
    if route == Route::Vector
        && policy
            .device(&who.device)
            .is_some_and(|d| d.role < super::policy::Role::Admin)
    {
        return super::vector::trimmed(sh, up, base, started).await;
    }
    forward::relay(sh, up, base, GET_WAIT, started).await
}
