//! `POST /join`: a join code (the bearer) exchanged once for its device's own token. Before any
//! token is asked for, so rate-limited per source address; audited without the code.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use hyper::{HeaderMap, Response, StatusCode};
use serde_json::json;

use crate::decide::policy::Policy;
use crate::decide::step::Step;
use crate::http::reply::{self, Body};
use crate::keys::invites::{self, Refusal};
use crate::keys::tokens::edit::Editor as Tokens;
use crate::record::audit::Event;
use crate::shared::Shared;

/// `mpt.gateway.join/v1`: the device's token, shown this once.
#[derive(serde::Serialize)]
struct Joined<'a> {
    schema: &'static str,
    device: &'a str,
    role: Option<&'static str>,
    token_id: &'a str,
    token: &'a str,
    expires: Option<&'a str>,
}

/// Why an exchange did not happen.
enum Failed {
    Code(Refusal),
    /// The policy no longer names the device (it was removed after the invite).
    NotInPolicy,
    Broken(mpt_base::error::MptError),
}

pub async fn exchange(sh: &Arc<Shared>, peer: SocketAddr, headers: &HeaderMap) -> Step<'static> {
    let mut record = Event {
        stage: Event::REQUEST,
        peer: Some(peer.ip().to_string()),
        route: "/join".into(),
        class: "join".into(),
        ..Event::default()
    };
    if let Err(secs) = sh.take_join_rate(peer.ip()) {
        record.rule = "join:rate".into();
        return match sh.refusals.note(record) {
            Some(first) => Step::Recorded(first, reply::rate_limited(secs)),
            None => Step::Reply(reply::rate_limited(secs)),
        };
    }
    let code = crate::decide::auth::bearer(headers)
        .unwrap_or("")
        .to_string();
    let policy = sh.policy();
    let now = mpt_base::time::now_unix();
    // Two locks and two fsyncs: on the blocking pool, never on the thread that accepts.
    let (held, pol) = (Arc::clone(sh), Arc::clone(&policy));
    let done = tokio::task::spawn_blocking(move || redeem(&held, &pol, &code, now))
        .await
        .unwrap_or_else(|e| {
            Err(Failed::Broken(mpt_base::error::MptError::usage(format!(
                "the join's task failed: {e}"
            ))))
        });
    match done {
        Ok((invite, issued)) => {
            record.device = Some(invite.device.clone());
            record.token_id = Some(issued.entry.id.clone());
            record.allowed = true;
            record.rule = "join".into();
            let doc = Joined {
                schema: mpt_base::schema::GATEWAY_JOIN,
                device: &invite.device,
                role: policy.device(&invite.device).map(|d| d.role.as_str()),
                token_id: &issued.entry.id,
                token: &issued.token,
                expires: issued.entry.expires.as_deref(),
            };
            let body = serde_json::to_value(doc).unwrap_or_default();
            Step::Recorded(record, reply::json(StatusCode::OK, &body))
        }
        Err(Failed::Code(why)) => {
            record.rule = format!("join:{}", why.as_str());
            let r = refused(why.as_str());
            match sh.refusals.note(record) {
                Some(first) => Step::Recorded(first, r),
                None => Step::Reply(r),
            }
        }
        Err(Failed::NotInPolicy) => {
            record.rule = "join:not_in_policy".into();
            Step::Recorded(record, refused("not_in_policy"))
        }
        Err(Failed::Broken(e)) => {
            mpt_base::log_warn!("a join could not be completed: {}", e.message);
            record.rule = "join:failed".into();
            let body = json!({"error": "join_failed", "message": "the gateway could not record the join: see its log"});
            Step::Recorded(
                record,
                reply::json(StatusCode::INTERNAL_SERVER_ERROR, &body),
            )
        }
    }
}

/// 401 naming why; it echoes nothing the client sent.
fn refused(why: &str) -> Response<Body> {
    reply::json(StatusCode::UNAUTHORIZED, &json!({"error": why}))
}

/// The invite `code` opens, used up, and the token made for its device (its earlier tokens
/// expired at once). The code is spent before the token is written: a failure between the two
/// costs a new invite, never a second token.
fn redeem(
    sh: &Shared,
    policy: &Policy,
    code: &str,
    now: i64,
) -> Result<(invites::Invite, crate::keys::tokens::edit::Issued), Failed> {
    let mut codes = invites::Editor::open(&sh.dir).map_err(Failed::Broken)?;
    let invite = codes.find(code, now).map_err(Failed::Code)?.clone();
    if policy.device(&invite.device).is_none() {
        return Err(Failed::NotInPolicy);
    }
    let mut tokens = Tokens::open(&sh.dir).map_err(Failed::Broken)?;
    // A device that joins again (a lost token file) gets a new token, and its earlier ones stop
    // working now: a rotation without overlap.
    let expires = invite.token_expires_s.map(Duration::from_secs);
    let (issued, _) = tokens
        .rotate(policy, &invite.device, Duration::ZERO, expires, now)
        .map_err(Failed::Broken)?;
    codes.mark_used(&invite.id, &issued.entry.id, now);
    codes.commit(now).map_err(Failed::Broken)?;
    tokens.commit().map_err(Failed::Broken)?;
    Ok((invite, issued))
}
