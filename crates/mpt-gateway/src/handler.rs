//! One request through the gateway: `/healthz` answered at once; bad headers refused; the token
//! authenticated; the device's rate taken; then `/whoami`, `POST /mcp`, or a route decided and
//! forwarded. The stages return a [`Step`]; [`handle`] alone writes their audit records.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use hyper::body::Incoming;
use hyper::{Method, Request, Response, StatusCode};

use crate::decide::auth::Who;
use crate::decide::policy::{Policy, Route};
use crate::decide::step::{Plan, Step};
use crate::http::forward;
use crate::http::forward::Done;
use crate::http::reply::{self, Body};
use crate::record::audit::Event;
use crate::shared::Shared;

/// How long a GET (other than the stream) may wait for upstream's answer.
const GET_WAIT: Duration = Duration::from_secs(120);

impl crate::http::front::Service for Shared {
    fn call(
        self: Arc<Self>,
        peer: SocketAddr,
        req: Request<Incoming>,
    ) -> impl std::future::Future<Output = Response<Body>> + Send {
        handle(self, peer, req)
    }

    fn closed(&self) {
        self.write_held();
    }
}

pub async fn handle(sh: Arc<Shared>, peer: SocketAddr, req: Request<Incoming>) -> Response<Body> {
    let started = Instant::now();
    match decide(&sh, peer, req, started).await {
        Step::Reply(r) => r,
        Step::Recorded(record, r) => {
            let _ = sh.audit(&record, false);
            r
        }
        Step::Forward {
            record,
            durable,
            plan,
        } => {
            // A write's record is on disk before the write goes; one that cannot be written
            // stops it, and so does a disk below half the free-space floor.
            if durable && sh.disk_low().1 {
                let mut refused = record;
                refused.allowed = false;
                refused.rule = "disk:below_floor".into();
                let _ = sh.audit(&refused, false);
                return reply::audit_unavailable();
            }
            if sh.audit_forwarded(&record, durable).await.is_err() && durable {
                return reply::audit_unavailable();
            }
            mpt_base::hop!(GwRequestAudited);
            match exchange(&sh, plan, record, started).await {
                Done::Answered(record, r) => {
                    let _ = sh.audit(&record, false);
                    r
                }
                Done::Streaming(r) => r,
            }
        }
    }
}

/// Carries out an allowed request's plan; `record` is its request record, already written.
async fn exchange(sh: &Arc<Shared>, plan: Plan<'_>, record: Event, started: Instant) -> Done {
    let cx = sh.ctx();
    match plan {
        Plan::Modern { plan, modern } => {
            match Box::pin(exchange(sh, *plan, record, started)).await {
                Done::Answered(record, r) => Done::Answered(record, modern.shape(r).await),
                Done::Streaming(r) => Done::Streaming(modern.shape(r).await),
            }
        }
        Plan::Relay { up, wait } => {
            forward::relay(cx.upstream, cx.held, up, record, wait, started).await
        }
        Plan::ToolsList {
            up,
            policy,
            device,
            id,
        } => {
            let listed = |tool: &str| policy.lists(&device, tool);
            crate::decide::rpc::tools_list(cx.upstream, up, &listed, &id, record, started).await
        }
        Plan::Mine { held, up, wait } => {
            crate::decide::mine_call::forward(cx.upstream, held, up, record, wait, started).await
        }
        Plan::Read(read) => {
            let waited_as = read.waited_as().map(str::to_string);
            let done = crate::decide::reads::carry_out(cx.upstream, read, record, started).await;
            // A token revoked while a long poll waited gets nothing of its answer.
            match (done, waited_as.and_then(|t| sh.token_refused(&t))) {
                (Done::Answered(mut record, _), Some(why)) => {
                    record.end = Some("revoked");
                    Done::Answered(record, reply::unauthorized(why))
                }
                (done, _) => done,
            }
        }
        Plan::Vector { up } => {
            crate::decide::vector::trimmed(cx.upstream, up, record, started).await
        }
        Plan::Stream(join) => {
            let still = Arc::clone(sh) as Arc<dyn crate::decide::sse::Still>;
            crate::decide::sse::subscribe(cx, join, still, record, started).await
        }
    }
}

/// What the request asks for, decided: its stages in order, each returning at its refusal.
async fn decide(
    sh: &Arc<Shared>,
    peer: SocketAddr,
    req: Request<Incoming>,
    started: Instant,
) -> Step<'_> {
    let method = req.method().clone();
    let path = req.uri().path().to_string();
    let upload = method == Method::PUT && path.starts_with("/inbox/");
    if method != Method::GET && method != Method::POST && !upload {
        return Step::Reply(reply::not_allowed());
    }
    if method == Method::GET && path == "/healthz" {
        return Step::Reply(reply::bytes(
            StatusCode::OK,
            "text/plain; charset=utf-8",
            "ok\n",
        ));
    }
    if let Some(name) = crate::decide::auth::bad_header(req.headers()) {
        return Step::Reply(reply::bad_header(name));
    }
    if method == Method::POST && path == "/join" {
        // Its bearer is a join code, not a token: exchanged before any token is asked for.
        return crate::join::exchange(sh, peer, req.headers()).await;
    }
    let route = Route::of(method.as_str(), &path);
    let mut base = Event {
        stage: Event::REQUEST,
        peer: Some(peer.ip().to_string()),
        route: path.clone(),
        class: route.class().to_string(),
        ..Event::default()
    };
    let who = match sh.authenticate(req.headers(), mpt_base::time::now_unix()) {
        Ok(w) => {
            // A good token: the connection leaves the unproven budget.
            if let Some(admit) = req.extensions().get::<crate::http::admission::Admit>() {
                admit.admit();
            }
            w
        }
        Err(refused) => {
            if sh.disk_low().0 {
                // Below the free-space floor, a request without a good token costs no record.
                return Step::Reply(reply::audit_unavailable());
            }
            base.token_id = refused.token_id;
            base.rule = format!("auth:{}", refused.why.as_str());
            let r = reply::unauthorized(refused.why);
            // A peer's first refusal now; the rest of its window in one record.
            return match sh.refusals.note(base) {
                Some(first) => Step::Recorded(first, r),
                None => Step::Reply(r),
            };
        }
    };
    mpt_base::hop!(GwAuthed);
    sh.touch(&who.token_id);
    base.device = Some(who.device.clone());
    base.token_id = Some(who.token_id.clone());
    if method == Method::GET && path == "/mcp" {
        // A client's probe for a server-initiated stream (opencode's, the Inspector's): none
        // here, said as the MCP transport says it; not a decision, nothing forwarded, no
        // request of the device's rate.
        return Step::Reply(reply::no_stream());
    }
    let policy = sh.policy();
    if let Err(secs) = sh.take_rate(&who.device, &policy) {
        base.rule = "rate".into();
        return Step::Recorded(base, reply::rate_limited(secs));
    }
    if upload {
        return inbox_put(&policy, &who, base, req).await;
    }
    match route {
        Route::Whoami => Step::Reply(whoami(&who, &policy)),
        Route::Mcp => {
            crate::decide::rpc::decide(sh.ctx(), &policy, &who, peer.ip(), base, req, started).await
        }
        _ => decide_route(sh, &policy, &who, peer, route, base, req).await,
    }
}

/// `mpt.gateway.inbox/v1`: where an upload is on the primary host, its size and hash, and
/// whether it was written (`false`: an identical file was there).
#[derive(serde::Serialize)]
struct InboxDoc<'a> {
    schema: &'static str,
    #[serde(flatten)]
    stored: &'a crate::inbox::Stored,
}

/// `PUT /inbox/<path>`: a member's (or an admin's) upload under its `mine.source_prefix`, the
/// body read only once the device is known, written on the blocking pool, audited with its
/// size and hash (never its content).
async fn inbox_put(
    policy: &Policy,
    who: &Who,
    mut base: Event,
    req: Request<Incoming>,
) -> Step<'static> {
    use crate::decide::policy::Role;
    use crate::inbox;
    let rel = req.uri().path().trim_start_matches("/inbox/").to_string();
    let device = policy.device(&who.device);
    let deny = |mut base: Event, rule: &str, status: StatusCode| {
        base.rule = rule.to_string();
        let body = serde_json::json!({"error": rule, "device": who.device});
        Step::Recorded(base, reply::json(status, &body))
    };
    let scope = match device {
        Some(d) if d.role < Role::Member => {
            return deny(base, "needs:member", StatusCode::FORBIDDEN);
        }
        Some(d) => match &d.mine {
            Some(scope) => scope.clone(),
            None => return deny(base, "inbox:no_mine_prefix", StatusCode::FORBIDDEN),
        },
        None => return deny(base, "device:not_in_policy", StatusCode::FORBIDDEN),
    };
    if let Err(r) = inbox::components(&rel) {
        return deny(base, r.rule, StatusCode::BAD_REQUEST);
    }
    let body = match forward::read_body(req.into_body()).await {
        Ok(b) => b,
        Err(u) => {
            base.rule = "inbox:body".into();
            return Step::Recorded(base, forward::unread_reply(u));
        }
    };
    base.bytes_in = body.len() as u64;
    let stored = tokio::task::spawn_blocking(move || inbox::store(&scope, &rel, &body))
        .await
        .unwrap_or(Err(inbox::Refused {
            rule: "inbox:write_failed",
            status: 500,
        }));
    match stored {
        Ok(s) => {
            base.allowed = true;
            base.rule = if s.written {
                "inbox"
            } else {
                "inbox:unchanged"
            }
            .into();
            base.sha256 = Some(s.sha256.clone());
            let doc = InboxDoc {
                schema: mpt_base::schema::GATEWAY_INBOX,
                stored: &s,
            };
            let doc = serde_json::to_value(doc).unwrap_or_default();
            let status = if s.written {
                StatusCode::CREATED
            } else {
                StatusCode::OK
            };
            Step::Recorded(base, reply::json(status, &doc))
        }
        Err(r) => deny(
            base,
            r.rule,
            StatusCode::from_u16(r.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
        ),
    }
}

/// `mpt.gateway.whoami/v1`: the device behind the token, as the gateway sees it.
#[derive(serde::Serialize)]
struct WhoamiDoc<'a> {
    schema: &'static str,
    device: &'a str,
    role: Option<&'static str>,
    token_id: &'a str,
    expires: Option<&'a str>,
    /// Its own share of the policy, so its edge judges writes as this gateway will.
    policy: Option<crate::decide::policy::OwnView>,
}

/// `GET /whoami`: the device behind the token, as the gateway sees it.
fn whoami(who: &Who, policy: &Policy) -> Response<Body> {
    let doc = WhoamiDoc {
        schema: mpt_base::schema::GATEWAY_WHOAMI,
        device: &who.device,
        role: policy.device(&who.device).map(|d| d.role.as_str()),
        token_id: &who.token_id,
        expires: who.expires.as_deref(),
        policy: policy.own_view(&who.device),
    };
    reply::json(
        StatusCode::OK,
        &serde_json::to_value(doc).unwrap_or_default(),
    )
}

/// A route other than `/mcp`: decided by the role, then forwarded with an empty body (GET) or
/// the client's (an admin's POST elsewhere).
async fn decide_route<'a>(
    sh: &'a Arc<Shared>,
    policy: &Policy,
    who: &Who,
    peer: SocketAddr,
    route: Route,
    mut base: Event,
    req: Request<Incoming>,
) -> Step<'a> {
    let decision = policy.route(&who.device, route);
    base.allowed = decision.allowed;
    base.rule = decision.rule.clone();
    if !decision.allowed {
        let r = reply::route_denied(&who.device, &base.route, &decision.rule);
        return Step::Recorded(base, r);
    }
    if route == Route::LogStream {
        let query = req.uri().query().unwrap_or("");
        let joined =
            crate::decide::sse::decide(policy, &who.device, &who.token_id, query, req.headers());
        return match joined {
            Ok(join) => Step::Forward {
                record: base,
                durable: false,
                plan: Plan::Stream(join),
            },
            Err(rule) => {
                base.allowed = false;
                base.rule = rule;
                let r = reply::route_denied(&who.device, &base.route, &base.rule);
                Step::Recorded(base, r)
            }
        };
    }
    let (parts, body) = req.into_parts();
    let body = if parts.method == Method::POST {
        match forward::read_body(body).await {
            Ok(b) => b,
            Err(u) => return Step::Reply(forward::unread_reply(u)),
        }
    } else {
        Bytes::new()
    };
    base.bytes_in = body.len() as u64;
    let durable = parts.method == Method::POST;
    let target = parts.uri.path_and_query().map_or("/", |p| p.as_str());
    let extra = forward::identity_headers(peer.ip(), &who.device);
    let up = sh
        .upstream
        .request(parts.method.clone(), target, &parts.headers, &extra, body);
    let trimmed = route == Route::Vector
        && policy
            .device(&who.device)
            .is_some_and(|d| d.role < crate::decide::policy::Role::Admin);
    let plan = if trimmed {
        Plan::Vector { up }
    } else {
        Plan::Relay { up, wait: GET_WAIT }
    };
    Step::Forward {
        record: base,
        durable,
        plan,
    }
}
