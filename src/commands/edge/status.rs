//! `mpt edge status`: the edge's status document (`mpt_edge::status`) printed, as JSON or as
//! lines for people naming the one command that clears a failed op; exit 3 while the token is refused.

use crate::commands::Ctx;
use mpt_base::error::{Exit, Result};
use mpt_edge::launch::Launch;
use mpt_edge::status::Primary;

pub fn run(ctx: &Ctx, rt: &tokio::runtime::Runtime, launch: &Launch) -> Result<Exit> {
    let (palace, paths) = (&launch.palace, &launch.paths);
    let st = rt.block_on(mpt_edge::status::collect(
        launch.env,
        launch.config,
        paths,
        palace,
    ))?;
    let device = launch.config.device.as_deref();
    ctx.out.emit_typed(&st.doc(), |w| {
        writeln!(w, "palace    {}", palace.display())?;
        writeln!(
            w,
            "owner     {}",
            if st.owner_running {
                format!("running ({})", paths.socket.display())
            } else {
                "not running (the next `mpt edge` starts it)".into()
            }
        )?;
        if let Some(sessions) = &st.sessions {
            let named: Vec<String> = sessions.iter().map(mpt_edge::stop::describe).collect();
            if named.is_empty() {
                writeln!(
                    w,
                    "          no harness session: it stops after MPT_EDGE_GRACE_MS, or now with `mpt edge stop`"
                )?;
            } else {
                writeln!(
                    w,
                    "          {} harness session(s): {}",
                    named.len(),
                    named.join("; ")
                )?;
            }
        }
        if let Some(pid) = st.lingering_flusher_pid {
            writeln!(
                w,
                "          pid {pid} stays after its last session to flush the outbox (MPT_EDGE_LINGER_MS)"
            )?;
        }
        match &st.primary {
            None => return writeln!(w, "primary   none: pass-through to the local child"),
            Some(Primary::Reached(p)) => {
                writeln!(w, "primary   {} (reachable)", p.url)?;
                if let Some(g) = &p.gateway {
                    writeln!(
                        w,
                        "gateway   this device is '{}' ({}), token {}",
                        g.device,
                        g.role.as_deref().unwrap_or("not in the policy"),
                        g.token_id
                    )?;
                }
                if let Some(m) = &p.identity_mismatch {
                    writeln!(w, "          MISMATCH: {m}")?;
                    writeln!(w, "          {}", p.fix.as_deref().unwrap_or(""))?;
                }
            }
            Some(Primary::Unreached(p)) if p.auth == Some("refused") => {
                writeln!(w, "primary   {} (REFUSED: {})", p.url, p.error.message)?;
                if let Some(hint) = &p.error.hint {
                    writeln!(w, "          {hint}")?;
                }
            }
            Some(Primary::Unreached(p)) => writeln!(w, "primary   {} (unreachable)", p.url)?,
        }
        if let Some((_, q)) = &st.outbox {
            let last = q.last_flushed_at.map(mpt_outbox::util::rfc3339);
            writeln!(
                w,
                "outbox    {} open, {} failed, last flush {}",
                q.open,
                q.count(mpt_outbox::OpState::Failed),
                last.as_deref().unwrap_or("never")
            )?;
            if let Some(l) = q.last_flush_error.as_ref().filter(|l| l.error.is_some()) {
                writeln!(
                    w,
                    "          the last flush stopped: {}",
                    l.message().unwrap_or("")
                )?;
                if let Some(h) = l.hint() {
                    writeln!(w, "          {}", mpt_mcp::fix_for_device(h, device))?;
                }
            }
            if let Some(f) = q.first_failed() {
                let op = &f.op_id[..f.op_id.len().min(12)];
                let why = match f.denied_by() {
                    Some(rule) => format!("refused by the primary's gateway, rule {rule}"),
                    None => f.error_line().unwrap_or_default(),
                };
                writeln!(
                    w,
                    "          FAILED: op {op} {}: {why} ({} op(s) wait for it); `mpt outbox retry {op}` or `mpt outbox drop {op} --yes`",
                    f.tool_name, q.backlog.held_back,
                )?;
            }
        }
        if let Some(p) = st.pull.as_ref().map(|r| r.to_status()) {
            let ok = p.last_success.as_deref().unwrap_or("never");
            match p.last_error {
                None => writeln!(w, "pull      last success {ok}")?,
                Some(e) => writeln!(
                    w,
                    "pull      FAILING since {} (last success {ok}): {}",
                    p.failing_since.as_deref().unwrap_or("?"),
                    mpt_mcp::fix_for_device(e.lines().next().unwrap_or(""), device)
                )?,
            }
            if p.rows_skipped > 0 {
                writeln!(
                    w,
                    "          {} event(s) of the primary's log could not be read and were skipped",
                    p.rows_skipped
                )?;
            }
        }
        Ok(())
    })?;
    // A refused token is a failure, as doctor's `transport` says: nothing this device writes
    // reaches the fleet until it is fixed. The document is printed either way.
    if st.primary.as_ref().is_some_and(Primary::refused) {
        return Ok(Exit::CheckFailed);
    }
    Ok(Exit::Ok)
}
