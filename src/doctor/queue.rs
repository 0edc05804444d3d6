//! The `outbox` check: writes that will not reach the primary by themselves: a token the primary
//! refused, failed ops (and the ops that wait for them), ops open an hour with no flusher.

use super::{Check, Inputs, Status};
use mpt_mcp::route::{Route, Rule};
use mpt_outbox::{self as outbox, FlushLock, LastFlush, util};

/// An open op older than this with nothing flushing is stranded (a timer or an edge is missing).
const STRANDED_MS: i64 = 3600 * 1000;

pub fn check(inputs: &Inputs) -> Check {
    let config = match &inputs.config {
        Ok(c) => c,
        Err(e) => return super::config_broken("outbox", e),
    };
    let path = match mpt_palace::edge_outbox(
        &inputs.env,
        config,
        inputs.palace().ok().as_ref().map(|p| p.palace.as_path()),
    ) {
        Ok(p) => p,
        Err(e) => return Check::new("outbox", Status::Skip, e.message),
    };
    if !path.exists() {
        return Check::new(
            "outbox",
            Status::Ok,
            "no outbox: nothing is waiting for the primary",
        )
        .evidence(format!("{} does not exist", path.display()));
    }
    // Read-only, as `mpt outbox` reads it: a full disk never hides what waits.
    let now = util::now_ms();
    let read = outbox::open_options(&inputs.env).and_then(|o| outbox::status_at(&path, o, now));
    let status = match read {
        Ok(s) => s.unwrap_or_default(),
        Err(e) => {
            return Check::new(
                "outbox",
                Status::Fail,
                format!("the outbox does not open: {}", e.message),
            )
            .fix(
                e.hint
                    .unwrap_or_else(|| format!("mpt outbox --json  # {}", path.display())),
            );
        }
    };
    let open = status.open;
    let evidence = format!("{} ({open} open)", path.display());
    let last_error = status.last_flush_error.as_ref();
    if let Some(last) = last_error.filter(|l| l.refused()) {
        // Nothing flushes until the credentials are fixed, whatever the queue looks like.
        let summary = format!(
            "the primary refused the last flush ({}): {open} op(s) wait and none will reach it",
            last.message().unwrap_or("401/403")
        );
        let fallback =
            "fix the token (MEMPALACE_REMOTE_TOKEN or MPT_TOKEN_FILE), then `mpt outbox flush`";
        return last_flush_check(Status::Fail, summary, last, evidence, fallback)
            .for_device(config.device.as_deref());
    }
    if let Some(first) = status.first_failed() {
        let short = outbox::store::short(&first.op_id).to_string();
        return Check::new(
            "outbox",
            Status::Fail,
            format!(
                "{} failed op(s) will never reach the primary by themselves; {} op(s) wait for them",
                status.backlog.failed.len(),
                status.backlog.held_back
            ),
        )
        .evidence(evidence)
        .evidence(format!(
            "op {short} {} {}: {}",
            first.short_tool(),
            first.failed_how(),
            first.error_line().unwrap_or_default()
        ))
        .fix(match first.denied_by() {
            Some(_) => format!(
                "the gateway's policy.json on the primary host does not let this device make that write: have its role changed there, then `mpt outbox retry {short}`; or `mpt outbox drop {short} --yes` to give it up"
            ),
            None => format!(
                "fix the cause, then `mpt outbox retry {short}` (or `mpt outbox drop {short} --yes` to give it up)"
            ),
        });
    }
    let flusher = FlushLock::holder(&path).ok().flatten();
    // An edge owner runs for the palace (the one route to it): it flushes.
    let edge = Route::choose(&inputs.env, config, || inputs.palace(), Rule::LOCAL)
        .ok()
        .filter(|r| matches!(r, Route::EdgeOwner { .. }));
    let pending = status.pending_local;
    if pending > 0 && edge.is_none() {
        return Check::new(
            "outbox",
            Status::Warn,
            format!(
                "{pending} write(s) an edge recorded before its local palace applied them were never settled (it stopped in between): queued for the primary or cancelled when an edge next starts"
            ),
        )
        .evidence(evidence)
        .fix("start a harness session (its `mpt edge` settles them before it serves)");
    }
    if let Some(age) = status.oldest_open_age_ms(now)
        && age > STRANDED_MS
        && flusher.is_none()
        && edge.is_none()
    {
        return Check::new(
            "outbox",
            Status::Warn,
            format!(
                "{open} op(s) open for {} with no flusher: nothing sends them until an edge runs",
                util::human_age(age)
            ),
        )
        .evidence(evidence)
        .fix("mpt outbox flush   # or a timer: docs/outbox.md \"Flushing without a session\"");
    }
    if let Some(last) = last_error.filter(|_| open > 0) {
        let summary = format!(
            "{open} op(s) wait: the last flush could not reach the primary ({})",
            last.message().unwrap_or("no reason recorded")
        );
        let fallback = "mpt outbox flush   # once the primary answers";
        return last_flush_check(Status::Warn, summary, last, evidence, fallback);
    }
    Check::new(
        "outbox",
        Status::Ok,
        if open == 0 {
            "nothing waits for the primary".to_string()
        } else {
            format!("{open} op(s) on their way to the primary")
        },
    )
    .evidence(evidence)
}

/// A check on why the last flush stopped: when, how, and its fix (the error's hint, else
/// `fallback`).
fn last_flush_check(
    status: Status,
    summary: String,
    last: &LastFlush,
    evidence: String,
    fallback: &str,
) -> Check {
    Check::new("outbox", status, summary)
        .evidence(evidence)
        .evidence(format!(
            "last flush: {} at {}",
            last.stop,
            util::rfc3339(last.at)
        ))
        .fix(last.hint().map_or_else(
            || fallback.to_string(),
            |h| format!("{h} (then `mpt outbox flush`)"),
        ))
}
