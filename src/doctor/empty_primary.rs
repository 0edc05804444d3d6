//! The `transport` check's verdict on a primary that answers with no palace yet: day one of a
//! new primary (seed it: `mpt outbox backfill`) told apart from a URL that points at the wrong host.

use super::{Check, Inputs, Status};
use mpt_outbox::{self as outbox, OpState};
use mpt_palace::chroma;

/// What this device knows that tells the two cases apart.
struct Seen {
    /// Drawers in this device's own palace (the memory a new primary lacks).
    local_drawers: u64,
    /// Ops of this device that landed on a primary (kept 7 days): it was not this one.
    landed: i64,
    /// Ops queued for the primary and not sent yet.
    open: i64,
    /// Of those, a backfill's (`mpt outbox backfill --yes` ran: the seed is on its way).
    backfill_open: i64,
}

fn seen(inputs: &Inputs) -> Seen {
    let palace = inputs.palace().ok();
    let local_drawers = palace
        .as_ref()
        .and_then(|p| chroma::drawer_count(&p.palace).ok().flatten())
        .unwrap_or(0);
    let store = inputs.config.as_ref().ok().and_then(|c| {
        outbox::existing(&inputs.env, c, palace.as_ref().map(|p| p.palace.as_path()))
            .ok()
            .flatten()
    });
    let backfill_open = store
        .as_ref()
        .and_then(|s| s.backfill_open().ok())
        .unwrap_or(0);
    let summary = store.and_then(|s| s.summary().ok());
    Seen {
        local_drawers,
        landed: summary.as_ref().map_or(0, |s| s.count(OpState::Done)),
        open: summary.as_ref().map_or(0, |s| s.open()),
        backfill_open,
    }
}

/// The check for a primary at `shown` whose palace does not exist yet ("Chroma database missing").
pub fn verdict(inputs: &Inputs, shown: &str, c: Check) -> Check {
    let s = seen(inputs);
    let elsewhere = "if the fleet's palace lives on another host, point MEMPALACE_REMOTE_URL at that host instead";
    if s.landed > 0 {
        return Check {
            status: Status::Warn,
            summary: format!(
                "the primary {shown} answers, but its palace is empty, while {} op(s) of this device landed on a primary this week: not on this one",
                s.landed
            ),
            ..c
        }
        .fix("point MEMPALACE_REMOTE_URL at the host that holds the fleet's palace (`mpt outbox list --state done` shows what landed)");
    }
    if s.backfill_open > 0 || (s.open > 0 && s.local_drawers == 0) {
        let what = if s.backfill_open > 0 {
            format!(
                "this device's backfill ({} op(s)) will seed it",
                s.backfill_open
            )
        } else {
            format!("{} op(s) queued here will be its first", s.open)
        };
        return Check {
            status: Status::Ok,
            summary: format!(
                "the primary {shown} answers with an empty palace, a new primary: {what} (`mpt outbox flush` sends them)"
            ),
            ..c
        }
        .evidence(elsewhere);
    }
    if s.local_drawers > 0 {
        return Check {
            status: Status::Warn,
            summary: format!(
                "the primary {shown} answers with an empty palace, a new primary: this device's {} drawers are not on it",
                s.local_drawers
            ),
            ..c
        }
        .fix(format!(
            "day one: seed it with this device's memory, `mpt outbox backfill` (a dry run), then `mpt outbox backfill --yes` and `mpt outbox flush`; {elsewhere}"
        ));
    }
    Check {
        status: Status::Ok,
        summary: format!(
            "the primary {shown} answers with an empty palace, a new fleet: nothing is filed anywhere yet (its first write creates it)"
        ),
        ..c
    }
    .evidence(elsewhere)
}
