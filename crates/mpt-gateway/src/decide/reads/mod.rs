//! A device's reads held to its `wings.read` globs: the call planned (a wing forced, a search
//! over-fetched), sent, and its reply filtered and written back as `serve` writes one.

use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use hyper::{HeaderMap, Method};
use serde_json::{Value, json};

use crate::decide::auth::Who;
use crate::decide::policy::{Policy, Reads, Role, StreamGlobs};

use crate::http::forward::Done;
use crate::http::forward::{self, MAX_BODY};
use crate::http::upstream::{Failed, Upstream};
use crate::record::audit::Event;
use mpt_palace::catalog::{self, Reveals};

mod filter;
mod keys;
mod pages;
mod plan;
pub mod pyjson;
mod tunnel_drawers;

use plan::Fetch;

/// A filtered read waits as a plain call does.
const WAIT: Duration = Duration::from_secs(120);

/// Whether `device`'s call of `tool` goes through here: a tool whose reply shows wings, for a
/// device with read globs; `status` for every non-admin (its server paths are an admin's).
pub fn applies(policy: &Policy, device: &str, tool: &str) -> bool {
    let reveals = catalog::tool(tool).reveals;
    match reveals {
        Reveals::Nothing | Reveals::Kg => false,
        // `event_wait` for everyone: what it waited for is checked against a revocation meanwhile.
        Reveals::Events => {
            policy.stream_reads(device).is_some() || catalog::bare(tool) == "event_wait"
        }
        Reveals::Status => {
            policy.reads(device).is_some()
                || policy.device(device).is_some_and(|d| d.role < Role::Admin)
        }
        _ => policy.reads(device).is_some(),
    }
}

/// A read planned and allowed, to be sent and filtered: what [`carry_out`] needs.
pub struct Read {
    policy: Arc<Policy>,
    device: String,
    token_id: String,
    tool: String,
    args: Value,
    id: Value,
    headers: HeaderMap,
    extra: Vec<(&'static str, String)>,
    plan: plan::Plan,
}

/// The upstream calls of one filtered read, all made as the client's request was.
struct Caller<'a> {
    upstream: &'a Upstream,
    headers: &'a HeaderMap,
    extra: &'a [(&'static str, String)],
    id: Value,
}

impl Caller<'_> {
    /// `tools/call` of `tool` with `args`: the HTTP status, the envelope, and its payload.
    async fn call(&self, tool: &str, args: &Value) -> Result<(u16, Value, Option<Value>), Failed> {
        let body = json!({"jsonrpc": "2.0", "id": self.id, "method": "tools/call",
            "params": {"name": catalog::full_name(tool), "arguments": args}});
        let up = self.upstream.request(
            Method::POST,
            "/mcp",
            self.headers,
            self.extra,
            Bytes::from(pyjson::compact(&body)),
        );
        let (status, bytes) = forward::fetch(self.upstream, up, WAIT, MAX_BODY).await?;
        let envelope: Value = serde_json::from_slice(&bytes)
            .map_err(|_| Failed::Unreachable("the upstream's reply is not JSON".into()))?;
        let payload = text_of(&envelope).and_then(|t| serde_json::from_str(&t).ok());
        Ok((status, envelope, payload))
    }
}

impl Read {
    /// The token a long poll (`event_wait`) was made with, to check again once it is answered
    /// (a revocation may come while it waits); `None` for a read that does not wait.
    pub fn waited_as(&self) -> Option<&str> {
        matches!(
            catalog::tool(&self.tool).patience,
            catalog::Patience::LongPoll { .. }
        )
        .then_some(self.token_id.as_str())
    }
}

/// The tool's result text of a `tools/call` reply (its last text block).
fn text_of(envelope: &Value) -> Option<String> {
    envelope
        .pointer("/result/content")?
        .as_array()?
        .last()?
        .get("text")?
        .as_str()
        .map(str::to_string)
}

/// A read of `tool` held to the device's grants: planned, or the rule refusing it.
#[allow(clippy::too_many_arguments)]
pub fn decide(
    policy: &Arc<Policy>,
    who: &Who,
    tool: &str,
    args: Value,
    id: Value,
    headers: HeaderMap,
    extra: Vec<(&'static str, String)>,
) -> Result<Read, String> {
    let row = catalog::tool(tool);
    let reads = policy.reads(&who.device);
    let streams = policy.stream_reads(&who.device);
    let plan = plan::plan(row.reveals, reads, streams, &args)?;
    Ok(Read {
        policy: Arc::clone(policy),
        device: who.device.clone(),
        token_id: who.token_id.clone(),
        tool: tool.to_string(),
        args,
        id,
        headers,
        extra,
        plan,
    })
}

/// Sends a planned read (`request` is its record, written) and answers with its reply filtered.
pub async fn carry_out(upstream: &Upstream, read: Read, request: Event, started: Instant) -> Done {
    let Read {
        policy,
        device,
        token_id: _,
        tool,
        args,
        id,
        headers,
        extra,
        plan,
    } = read;
    let reads = policy.reads(&device);
    let streams = policy.stream_reads(&device);
    let caller = Caller {
        upstream,
        headers: &headers,
        extra: &extra,
        id,
    };
    let admin = policy
        .device(&device)
        .is_some_and(|d| d.role >= Role::Admin);
    let answered = answer(&caller, &tool, &args, &plan, reads, streams, admin).await;
    let (status, mut envelope, mut payload) = match answered {
        Ok(a) => a,
        Err(f) => return forward::failed(upstream, request, started, f),
    };
    // Only the keys each shape knows, envelope included: a new server key fails closed (an
    // admin held to nothing gets the server's reply as it is).
    let held = !admin || reads.is_some() || streams.is_some();
    let mut dropped = if held {
        keys::envelope(&mut envelope, payload.is_some())
    } else {
        0
    };
    if let Some(p) = payload.as_mut().filter(|_| held) {
        dropped += keys::keep(catalog::tool(&tool).reveals, p);
        if dropped > 0
            && let Value::Object(m) = p
        {
            m.insert("mpt_dropped".into(), json!(dropped));
        }
    }
    if let (Some(p), Some(block)) = (payload, last_block(&mut envelope)) {
        *block = Value::String(pyjson::indented(&p));
    }
    let out = pyjson::compact(&envelope);
    forward::answered(
        request,
        status,
        started,
        "application/json; charset=utf-8",
        out,
    )
}

/// The reply's result text block, to write the filtered payload into.
fn last_block(envelope: &mut Value) -> Option<&mut Value> {
    envelope
        .pointer_mut("/result/content")?
        .as_array_mut()?
        .last_mut()?
        .get_mut("text")
}

/// The upstream calls `plan` needs and the payload filtered: (status, envelope, payload); a
/// payload of `None` leaves the envelope as it came.
async fn answer(
    c: &Caller<'_>,
    tool: &str,
    args: &Value,
    plan: &plan::Plan,
    reads: Option<Reads<'_>>,
    streams: Option<StreamGlobs<'_>>,
    admin: bool,
) -> Result<(u16, Value, Option<Value>), Failed> {
    let reveals = catalog::tool(tool).reveals;
    let (status, envelope, mut payload) = match &plan.fetch {
        Fetch::One | Fetch::WithTaxonomy => c.call(tool, &plan.args).await?,
        Fetch::Taxonomy => {
            let (s, e, p) = c.call("get_taxonomy", &json!({})).await?;
            let reads = reads.expect("a recount is a restricted device's");
            (s, e, p.map(|p| rooms_from_taxonomy(&p, &reads)))
        }
        Fetch::WingByWing { items } => {
            let reads = reads.expect("a wing-by-wing list is a restricted device's");
            pages::across_wings(c, tool, &plan.args, items, &reads).await?
        }
    };
    let Some(p) = payload.as_mut() else {
        return Ok((status, envelope, None));
    };
    if reveals == Reveals::Status {
        if plan.fetch == Fetch::WithTaxonomy {
            let (_, _, tax) = c.call("get_taxonomy", &json!({})).await?;
            recount_status(p, tax.as_ref(), reads);
        }
        if !admin {
            hide_paths(p);
        }
        return Ok((status, envelope, payload));
    }
    if reveals == Reveals::Events {
        if let Some(streams) = streams {
            let hidden = filter::events(&streams, p);
            if p.get("error").is_none()
                && let Value::Object(m) = p
            {
                m.insert("mpt_filtered".into(), json!(hidden));
            }
        }
        return Ok((status, envelope, payload));
    }
    let Some(reads) = reads else {
        return Ok((status, envelope, payload));
    };
    let mut hidden = match plan.fetch {
        // Counted by the page and the taxonomy themselves.
        Fetch::WingByWing { .. } | Fetch::Taxonomy => {
            p.get("mpt_filtered").and_then(Value::as_u64).unwrap_or(0)
        }
        _ => 0,
    };
    hidden += filter::filter(reveals, &reads, args, p);
    if matches!(reveals, Reveals::Connections | Reveals::Tunnels) {
        hidden += tunnel_drawers::hold(c, &reads, p).await?;
    }
    if let Some(n) = plan.cut_to
        && let Some(Value::Array(results)) = p.get_mut("results")
    {
        results.truncate(n as usize);
        if let Value::Object(m) = p {
            // The over-fetched pool's size, not the client's.
            m.shift_remove("total_before_filter");
        }
    }
    if plan.counted
        && p.get("error").is_none()
        && let Value::Object(m) = p
    {
        m.insert("mpt_filtered".into(), json!(hidden));
    }
    Ok((status, envelope, payload))
}

/// `list_rooms` over every readable wing, from `get_taxonomy`, with the wings it hid.
fn rooms_from_taxonomy(tax: &Value, reads: &Reads) -> Value {
    let Some(Value::Object(t)) = tax.get("taxonomy") else {
        return tax.clone();
    };
    let mut rooms = serde_json::Map::new();
    let mut hidden = 0;
    for (w, rs) in t {
        if !reads.sees(w) {
            hidden += 1;
            continue;
        }
        for (r, c) in rs.as_object().into_iter().flatten() {
            let had = rooms.get(r).and_then(Value::as_u64).unwrap_or(0);
            rooms.insert(r.clone(), json!(had + c.as_u64().unwrap_or(0)));
        }
    }
    json!({"wing": "all", "rooms": rooms, "mpt_filtered": hidden})
}

/// `status`'s counts over the readable wings only (`get_taxonomy`'s, the same sqlite tally).
fn recount_status(status: &mut Value, tax: Option<&Value>, reads: Option<Reads>) {
    let (Some(reads), Some(Value::Object(tax))) = (reads, tax.and_then(|t| t.get("taxonomy")))
    else {
        return;
    };
    let (mut wings, mut rooms, mut total) = (serde_json::Map::new(), serde_json::Map::new(), 0u64);
    for (w, rs) in tax.iter().filter(|(w, _)| reads.sees(w)) {
        let mut n = 0;
        for (r, c) in rs.as_object().into_iter().flatten() {
            let c = c.as_u64().unwrap_or(0);
            n += c;
            let had = rooms.get(r).and_then(Value::as_u64).unwrap_or(0);
            rooms.insert(r.clone(), json!(had + c));
        }
        wings.insert(w.clone(), json!(n));
        total += n;
    }
    if let Value::Object(m) = status {
        for (k, v) in [
            ("total_drawers", json!(total)),
            ("wings", Value::Object(wings)),
            ("rooms", Value::Object(rooms)),
        ] {
            if m.contains_key(k) {
                m.insert(k.into(), v);
            }
        }
    }
}

/// The server's paths in `status` (`sqlite_integrity.palace`, `.sqlite_path`, errors that
/// quote them): an admin's.
fn hide_paths(status: &mut Value) {
    if let Some(Value::Object(i)) = status.get_mut("sqlite_integrity") {
        for k in ["palace", "sqlite_path"] {
            if i.contains_key(k) {
                i.insert(k.into(), json!(""));
            }
        }
        if let Some(Value::Array(e)) = i.get_mut("errors") {
            e.clear();
        }
    }
}
