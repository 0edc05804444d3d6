//! What `mpt outbox`, `list` and `show` print: the outbox's status (`mpt_outbox::status_at`),
//! its ops and one op with its audit trail, each read through a read-only open.

use std::io::Write;
use std::path::Path;

use super::OutboxStateFilter;
use super::{missing, short};
use crate::commands::Ctx;
use mpt_base::config::Config;
use mpt_base::error::{Exit, Result};
use mpt_base::output::Style;
use mpt_outbox::refs::Wait;
use mpt_outbox::{self as outbox, FlushLock, OpState, OpenOptions, Origin, Outbox, util};

/// The outbox to look at, opened read-only: a full disk does not stop an operator reading it.
fn open_to_read(path: &Path) -> Result<Option<Outbox>> {
    if !path.exists() {
        return Ok(None);
    }
    Outbox::open_read_only(path, OpenOptions::default())
}

pub(super) fn summary(ctx: &Ctx, config: &Config, path: &Path) -> Result<Exit> {
    let now = util::now_ms();
    let status = outbox::status_at(path, OpenOptions::default(), now)?;
    let exists = status.is_some();
    let flusher = if exists {
        FlushLock::holder(path)?
    } else {
        None
    };
    let s = status.unwrap_or_default();
    let counts = super::docs::Counts(
        OpState::ALL
            .iter()
            .map(|st| (st.as_str(), s.count(*st)))
            .collect(),
    );
    let open = s.open;
    let head = s.shown_head();
    let blocked = s.blocked();
    let oldest = s.oldest_open_at;
    let last_error = s.last_flush_error.as_ref();
    let pending = s.pending_local;
    let doc = super::docs::Summary {
        schema: mpt_base::schema::OUTBOX_SUMMARY,
        outbox: path,
        exists,
        primary: config
            .remote
            .as_ref()
            .map(|r| mpt_base::secrets::redact_url(&r.url)),
        device: Origin::from_config(config).device,
        counts,
        open,
        oldest_open_age_s: s.oldest_open_age_ms(now).map(|a| a / 1000),
        blocked,
        held_back: s.backlog.held_back,
        head: head.map(|h| h.doc_seen(false, flusher.is_some())),
        last_local_seq: s.last_seq,
        flusher_pid: flusher,
        last_flush_error: last_error.map(|l| l.doc()),
        pending_local: pending,
    };
    ctx.out.emit_typed(&doc, |w| {
        let row = |w: &mut dyn Write, k: &str, v: String| writeln!(w, "{k:<10} {v}");
        row(
            w,
            "outbox",
            format!(
                "{}{}",
                path.display(),
                if exists { "" } else { "  (none yet)" }
            ),
        )?;
        row(
            w,
            "primary",
            config
                .remote
                .as_ref()
                .map_or("(MEMPALACE_REMOTE_URL unset)".into(), |r| {
                    mpt_base::secrets::redact_url(&r.url)
                }),
        )?;
        let c = |st: OpState| s.count(st);
        row(
            w,
            "open",
            format!(
                "{open} (queued {}, leased {}, failed {}){}",
                c(OpState::Queued),
                c(OpState::Leased),
                c(OpState::Failed),
                oldest
                    .map(|t| format!(", oldest {}", util::human_age(now - t)))
                    .unwrap_or_default()
            ),
        )?;
        row(
            w,
            "settled",
            format!("{} done, {} dropped", c(OpState::Done), c(OpState::Dropped)),
        )?;
        if pending > 0 {
            row(
                w,
                "pending",
                format!(
                    "{pending} write(s) an edge recorded before its local palace applied them: queued or cancelled once the edge settles them"
                ),
            )?;
        }
        if let Some(h) = head {
            let state = if blocked {
                ctx.out.paint(Style::Fail, "failed")
            } else {
                h.state.as_str().to_string()
            };
            row(
                w,
                "head",
                format!(
                    "#{} {} {} {state} ({} attempts){}",
                    h.local_seq,
                    short(h),
                    h.short_tool(),
                    h.attempts,
                    h.error_line()
                        .or_else(|| h
                            .awaits_confirmation(flusher.is_some(), now)
                            .then(|| AWAITING.to_string()))
                        .map(|e| format!(": {e}"))
                        .unwrap_or_default()
                ),
            )?;
            if blocked {
                row(
                    w,
                    "",
                    format!(
                        "{1} op(s) wait for failed ops; the rest flows: `mpt outbox retry {0}` or `mpt outbox drop {0} --yes`",
                        short(h),
                        s.backlog.held_back
                    ),
                )?;
            }
        }
        if let Some(l) = last_error {
            let line = format!(
                "{} at {}: {}",
                l.stop,
                util::rfc3339(l.at),
                l.message().unwrap_or("")
            );
            let line = if l.refused() {
                ctx.out.paint(Style::Fail, &line)
            } else {
                line
            };
            row(w, "last flush", line)?;
            if let Some(h) = l.hint() {
                row(w, "", h.to_string())?;
            }
        }
        row(
            w,
            "flusher",
            flusher.map_or("none running".into(), |p| format!("pid {p}")),
        )
    })?;
    Ok(Exit::Ok)
}

pub(super) fn list(
    ctx: &Ctx,
    path: &Path,
    filter: OutboxStateFilter,
    limit: usize,
) -> Result<Exit> {
    use OutboxStateFilter as F;
    let (states, newest): (Vec<OpState>, bool) = match filter {
        F::Open => (
            vec![OpState::Queued, OpState::Leased, OpState::Failed],
            false,
        ),
        F::Queued => (vec![OpState::Queued], false),
        F::Leased => (vec![OpState::Leased], false),
        F::Failed => (vec![OpState::Failed], false),
        F::Done => (vec![OpState::Done], true),
        F::Dropped => (vec![OpState::Dropped], true),
        F::All => (vec![], true),
    };
    let store = open_to_read(path)?;
    let ops = match &store {
        Some(s) => s.list(&states, limit, newest)?,
        None => vec![],
    };
    let waits: Vec<Vec<Wait>> = match &store {
        Some(s) => ops.iter().map(|o| s.waits(o)).collect::<Result<_>>()?,
        None => vec![],
    };
    let running = FlushLock::holder(path)?.is_some();
    let state_name = format!("{filter:?}").to_lowercase();
    let doc = super::docs::List {
        schema: mpt_base::schema::OUTBOX_LIST,
        outbox: path,
        state: state_name,
        count: ops.len(),
        ops: ops
            .iter()
            .zip(&waits)
            .map(|(o, w)| op_waits(o, w, false, running))
            .collect(),
    };
    let now = util::now_ms();
    ctx.out.emit_typed(&doc, |w| {
        writeln!(
            w,
            "{:>6}  {:<12}  {:<20} {:<8} {:>5}  {:>5}  note",
            "seq", "op", "tool", "state", "tries", "age"
        )?;
        for (o, waits) in ops.iter().zip(&waits) {
            let note = o
                .error_line()
                .or_else(|| waits.first().map(|w| format!("waits for {}", w.describe())))
                .or_else(|| o.outcome.clone())
                .or_else(|| {
                    o.awaits_confirmation(running, now)
                        .then(|| AWAITING.to_string())
                })
                .unwrap_or_default();
            writeln!(
                w,
                "{:>6}  {:<12}  {:<20} {:<8} {:>5}  {:>5}  {}",
                o.local_seq,
                short(o),
                o.short_tool(),
                o.state.as_str(),
                o.attempts,
                util::human_age(now - o.created_at),
                note
            )?;
        }
        Ok(())
    })?;
    Ok(Exit::Ok)
}

pub(super) fn show(ctx: &Ctx, path: &Path, op: &str) -> Result<Exit> {
    let store = open_to_read(path)?.ok_or_else(|| missing(path))?;
    let o = store.find(op)?;
    let audit = store.audit_trail(Some(&o.op_id))?;
    let waits = store.waits(&o)?;
    let running = FlushLock::holder(path)?.is_some();
    let doc = mpt_base::schema::to_document(&super::docs::Shown {
        schema: mpt_base::schema::OUTBOX_OP,
        outbox: path,
        op: op_waits(&o, &waits, true, running),
        audit: &audit,
    })?;
    ctx.out.emit(&doc, |w| {
        for (k, v) in doc["op"].as_object().into_iter().flatten() {
            if k == "waits_on" {
                for wt in &waits {
                    writeln!(w, "{:<17} {}", "waits for", wt.describe())?;
                }
            } else if k != "payload" && !v.is_null() {
                writeln!(
                    w,
                    "{k:<17} {}",
                    v.as_str().map_or_else(|| v.to_string(), str::to_string)
                )?;
            }
        }
        writeln!(
            w,
            "payload\n{}",
            serde_json::to_string_pretty(&o.payload).unwrap_or_default()
        )?;
        for a in &audit {
            writeln!(w, "audit {} {} {}", a.at, a.action, a.detail)?;
        }
        Ok(())
    })?;
    Ok(Exit::Ok)
}

/// What a list says of an op sent with no answer recorded and no flusher sending it now.
const AWAITING: &str =
    "awaiting confirmation: sent, its flusher stopped; the next flush asks the primary first";

/// An op (its payload when `with_payload`) with what it waits for.
fn op_waits<'a>(
    o: &'a outbox::Op,
    waits: &'a [Wait],
    with_payload: bool,
    flusher_running: bool,
) -> super::docs::OpWaits<'a> {
    super::docs::OpWaits {
        op: o.doc_seen(with_payload, flusher_running),
        waits_on: waits,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Golden: an op in `mpt outbox --json` (`ops[]`) and `show` (`op`), in order (scripts read
    /// them): the op's own fields, its payload in `show` only, then what it waits for.
    #[test]
    fn an_op_with_its_waits_keeps_its_field_names() {
        let op = outbox::sample_op();
        let waits = [Wait {
            local_id: "drawer_1".into(),
            op_id: "fedcba9876543210".into(),
            state: OpState::Queued,
        }];
        let op_fields: Vec<String> = mpt_base::schema::field_names(&op.to_json(false));
        let waits_on = [
            "waits_on",
            "waits_on[].local_id",
            "waits_on[].op_id",
            "waits_on[].state",
        ];
        let mut listed: Vec<String> = op_fields.clone();
        listed.extend(waits_on.map(String::from));
        assert_eq!(
            mpt_base::schema::field_names(
                &mpt_base::schema::to_document(&op_waits(&op, &waits, false, true)).unwrap()
            ),
            listed
        );
        let mut shown = op_fields;
        shown.extend(
            ["payload", "payload.wing", "payload.room", "payload.content"].map(String::from),
        );
        shown.extend(waits_on.map(String::from));
        assert_eq!(
            mpt_base::schema::field_names(
                &mpt_base::schema::to_document(&op_waits(&op, &waits, true, true)).unwrap()
            ),
            shown
        );
    }
}
