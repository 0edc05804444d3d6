//! `POST /mcp`: the body parsed once (a batch refused), every `tools/call` decided by the policy
//! whatever its id, the gateway's own re-serialised JSON forwarded, `tools/list` filtered.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use hyper::body::Incoming;
use hyper::{Method, Request, StatusCode};
use serde_json::{Map, Value};

use crate::decide::auth::Who;
use crate::decide::ctx::Ctx;
use crate::decide::era::Modern;
use crate::decide::policy::{Policy, Rewrite};
use crate::decide::step::{Plan, Step};
use crate::http::forward::Done;
use crate::http::forward::{self, MAX_BODY};
use crate::http::reply;
use crate::http::upstream::Upstream;
use crate::record::audit::Event;
use mpt_palace::catalog::{self, Patience, ToolClass};

/// How long a protocol method or a plain call may wait for upstream's answer (research §6.1).
const PLAIN_WAIT: Duration = Duration::from_secs(120);
/// Added to a long call's own time (the mine's deadline, event_wait's poll).
const MARGIN: Duration = Duration::from_secs(10);

/// One JSON-RPC message as `serve` reads it: `method` a string else `""`, `params` an object
/// else `{}` (`protocol.py:_normalize_envelope`).
struct Message<'a> {
    id: Value,
    method: &'a str,
    params: Option<&'a Map<String, Value>>,
}

impl<'a> Message<'a> {
    fn of(obj: &'a Map<String, Value>) -> Message<'a> {
        Message {
            id: obj.get("id").cloned().unwrap_or(Value::Null),
            method: obj.get("method").and_then(Value::as_str).unwrap_or(""),
            params: obj.get("params").and_then(Value::as_object),
        }
    }
}

/// `POST /mcp` decided: the body read and parsed, a call judged by the policy (its wings looked
/// up on the primary where the server would judge them there), then how it goes upstream.
pub async fn decide<'a>(
    cx: Ctx<'a>,
    policy: &Arc<Policy>,
    who: &Who,
    peer: std::net::IpAddr,
    mut base: Event,
    req: Request<Incoming>,
    started: Instant,
) -> Step<'a> {
    let (mut parts, body) = req.into_parts();
    let bytes = match forward::read_body(body).await {
        Ok(b) => b,
        Err(u) => return Step::Reply(forward::unread_reply(u)),
    };
    base.bytes_in = bytes.len() as u64;
    let Ok(mut parsed) = serde_json::from_slice::<Value>(&bytes) else {
        return Step::Reply(reply::rpc_error(
            StatusCode::BAD_REQUEST,
            &Value::Null,
            -32700,
            "Parse error",
            None,
        ));
    };
    if !parsed.is_object() {
        let why = if parsed.is_array() {
            "Invalid Request: the gateway refuses JSON-RPC batches"
        } else {
            "Invalid Request"
        };
        return Step::Reply(reply::rpc_error(
            StatusCode::BAD_REQUEST,
            &Value::Null,
            -32600,
            why,
            None,
        ));
    }
    // A 2026-07-28 request is held to its headers first: the policy never sees one that could be
    // read two ways. It is then decided and sent as the handshake era's, and its reply shaped back.
    match crate::decide::era::admit(&mut parts.headers, &mut parsed, &mut base) {
        Err(answered) => match *answered {
            (Some(record), r) => Step::Recorded(record, r),
            (None, r) => Step::Reply(r),
        },
        Ok(None) => decide_message(cx, policy, who, peer, base, parts, parsed, started).await,
        Ok(Some(modern)) => {
            let step = decide_message(cx, policy, who, peer, base, parts, parsed, started).await;
            in_era(modern, step).await
        }
    }
}

/// `step`'s reply in the modern shape: now for the gateway's own, once the answer is in for a
/// forwarded one. Its record names the method the client sent (a discover goes as `initialize`).
async fn in_era(modern: Modern, step: Step<'_>) -> Step<'_> {
    match step {
        Step::Reply(r) => Step::Reply(modern.shape(r).await),
        Step::Recorded(mut e, r) => {
            e.rpc = Some(modern.method.clone());
            Step::Recorded(e, modern.shape(r).await)
        }
        Step::Forward {
            mut record,
            durable,
            plan,
        } => Step::Forward {
            record: {
                record.rpc = Some(modern.method.clone());
                record
            },
            durable,
            plan: Plan::Modern {
                plan: Box::new(plan),
                modern,
            },
        },
    }
}

/// A single JSON-RPC message (an object, in the handshake era) decided.
#[allow(clippy::too_many_arguments)]
async fn decide_message<'a>(
    cx: Ctx<'a>,
    policy: &Arc<Policy>,
    who: &Who,
    peer: std::net::IpAddr,
    mut base: Event,
    parts: hyper::http::request::Parts,
    mut parsed: Value,
    started: Instant,
) -> Step<'a> {
    let obj = parsed.as_object().expect("checked by decide");
    let msg = Message::of(obj);
    base.rpc = Some(msg.method.to_string());
    let mut wait = PLAIN_WAIT;
    let mut rewrites = Vec::new();
    let decision =
        if msg.method == "tools/call" {
            // Every call is decided, with or without an id: `serve` runs id-less calls too.
            let Some(name) = msg
                .params
                .and_then(|p| p.get("name"))
                .and_then(Value::as_str)
            else {
                return Step::Reply(reply::rpc_error(
                    StatusCode::OK,
                    &msg.id,
                    -32602,
                    "Invalid params: tools/call needs a tool name (a string)",
                    None,
                ));
            };
            // Arguments that are not an object name no wing and no wait (`serve` refuses them).
            let args = msg
                .params
                .and_then(|p| p.get("arguments"))
                .filter(|a| a.is_object())
                .unwrap_or(&Value::Null);
            let row = catalog::tool(name);
            base.tool = Some(name.to_string());
            base.class = row.class.as_str().to_string();
            let current =
                match crate::decide::lookup::current(cx.upstream, policy, &who.device, name, args)
                    .await
                {
                    Ok(c) => crate::decide::policy::Current {
                        home: cx.mine_home.map(Path::to_path_buf),
                        ..c
                    },
                    Err(f) => {
                        let (record, r) = forward::failure(cx.upstream, base, started, f);
                        return Step::Recorded(record, r);
                    }
                };
            let verdict = policy.call(&who.device, &who.token_id, name, args, &current);
            rewrites = verdict.rewrites;
            // The wait and the audit's wings read the arguments as they are sent (copied only when
            // the policy changed them).
            let sent = if rewrites.is_empty() {
                std::borrow::Cow::Borrowed(args)
            } else {
                let mut changed = args.clone();
                crate::decide::policy::apply(&mut changed, &rewrites);
                std::borrow::Cow::Owned(changed)
            };
            wait = match row.patience {
                Patience::Fixed(d) => d + MARGIN,
                Patience::LongPoll { .. } => {
                    row.patience.poll_wait(&sent).unwrap_or_default() + MARGIN
                }
                Patience::Default => PLAIN_WAIT,
            };
            base.wings = catalog::wings(name, &sent);
            base.wings.extend(current.wing.clone());
            verdict.decision
        } else {
            base.class = "protocol".into();
            policy.method(&who.device, msg.method)
        };
    mpt_base::hop!(GwDecided);
    base.allowed = decision.allowed;
    base.rule = decision.rule.clone();
    if !decision.allowed {
        let r = reply::rpc_denied(
            &msg.id,
            &who.device,
            base.tool.as_deref(),
            msg.method,
            &decision.rule,
            &policy.instead(&who.device, &decision.rule),
        );
        return Step::Recorded(base, r);
    }
    let (id, listing) = (msg.id, msg.method == "tools/list");
    let mine = match base.tool.as_deref().map(catalog::bare) {
        Some("mine") => match cx.mine.try_take() {
            Some(held) => Some(held),
            None => {
                base.allowed = false;
                base.rule = "mine:in_progress".into();
                return Step::Recorded(base, crate::decide::mine_call::busy());
            }
        },
        _ => None,
    };
    base.rewrites = rewrites.iter().map(Rewrite::label).collect();
    if !rewrites.is_empty()
        && let Some(args) = parsed.pointer_mut("/params/arguments")
    {
        crate::decide::policy::apply(args, &rewrites);
    }
    if let Some(tool) = base.tool.clone()
        && crate::decide::reads::applies(policy, &who.device, &tool)
    {
        // Held to the device's read grants: planned, sent and filtered there.
        let args = parsed
            .pointer("/params/arguments")
            .cloned()
            .unwrap_or(Value::Null);
        let extra = forward::identity_headers(peer, &who.device);
        let planned = crate::decide::reads::decide(
            policy,
            who,
            &tool,
            args,
            id.clone(),
            parts.headers,
            extra,
        );
        return match planned {
            Ok(read) => Step::Forward {
                record: base,
                durable: catalog::classify(&tool) != ToolClass::Read,
                plan: Plan::Read(read),
            },
            Err(rule) => {
                base.allowed = false;
                base.rule = rule;
                let r = reply::rpc_denied(
                    &id,
                    &who.device,
                    Some(&tool),
                    "tools/call",
                    &base.rule,
                    &policy.instead(&who.device, &base.rule),
                );
                Step::Recorded(base, r)
            }
        };
    }
    let durable = base.tool.is_some()
        && catalog::classify(base.tool.as_deref().unwrap_or("")) != ToolClass::Read;
    // The gateway's own serialisation, never the client's bytes: with a key given twice, the
    // upstream sees the one value the policy decided on.
    let body = Bytes::from(serde_json::to_vec(&parsed).unwrap_or_default());
    let extra = forward::identity_headers(peer, &who.device);
    let up = cx
        .upstream
        .request(Method::POST, "/mcp", &parts.headers, &extra, body);
    let plan = if listing {
        Plan::ToolsList {
            up,
            policy: Arc::clone(policy),
            device: who.device.clone(),
            id,
        }
    } else if let Some(held) = mine {
        Plan::Mine { held, up, wait }
    } else {
        Plan::Relay { up, wait }
    };
    Step::Forward {
        record: base,
        durable,
        plan,
    }
}

/// `tools/list` with only the tools the device may call (`listed`), as `--read-only` hides
/// what it refuses.
pub async fn tools_list(
    upstream: &Upstream,
    up: Request<http_body_util::Full<Bytes>>,
    listed: &(dyn Fn(&str) -> bool + Sync),
    id: &Value,
    request: Event,
    started: Instant,
) -> Done {
    let (status, bytes) = match forward::fetch(upstream, up, PLAIN_WAIT, MAX_BODY).await {
        Ok(r) => r,
        Err(f) => return forward::failed(upstream, request, started, f),
    };
    let mut v: Value = match serde_json::from_slice(&bytes) {
        Ok(v) => v,
        Err(_) => {
            let r = reply::rpc_error(
                StatusCode::BAD_GATEWAY,
                id,
                -32603,
                "the upstream's tools/list is not JSON",
                None,
            );
            return Done::Answered(
                forward::responded(request, Some(status), started, 0, "failed"),
                r,
            );
        }
    };
    if let Some(tools) = v.pointer_mut("/result/tools").and_then(Value::as_array_mut) {
        tools.retain(|t| t.get("name").and_then(Value::as_str).is_some_and(listed));
    }
    let out = serde_json::to_vec(&v).unwrap_or_default();
    forward::answered(request, status, started, "application/json", out)
}
