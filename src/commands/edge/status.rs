//! `mpt edge status`: the edge's status document (`crate::edge::status`) printed, as JSON or as
//! lines for people naming the one command that clears a failed op; exit 3 while the token is refused.

use crate::commands::Ctx;
use crate::edge::launch::Launch;
use crate::error::{Exit, Result};

pub fn run(ctx: &Ctx, rt: &tokio::runtime::Runtime, launch: &Launch) -> Result<Exit> {
    let (palace, paths) = (&launch.palace, &launch.paths);
    let doc = rt.block_on(crate::edge::status::collect(
        launch.env,
        launch.config,
        paths,
        palace,
    ))?;
    let owner_up = doc["owner"]["running"] == true;
    let lingering = doc["lingering_flusher_pid"].as_u64();
    ctx.out.emit(&doc, |w| {
        writeln!(w, "palace    {}", palace.display())?;
        writeln!(
            w,
            "owner     {}",
            if owner_up {
                format!("running ({})", paths.socket.display())
            } else {
                "not running (the next `mpt edge` starts it)".into()
            }
        )?;
        if let Some(sessions) = doc["owner"]["sessions"].as_array() {
            let named: Vec<String> = sessions
                .iter()
                .filter_map(|a| serde_json::from_value(a.clone()).ok())
                .map(|a| crate::edge::stop::describe(&a))
                .collect();
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
        if let Some(pid) = lingering {
            writeln!(
                w,
                "          pid {pid} stays after its last session to flush the outbox (MPT_EDGE_LINGER_MS)"
            )?;
        }
        match &launch.config.remote {
            None => return writeln!(w, "primary   none: pass-through to the local child"),
            Some(r) => {
                let p = &doc["primary"];
                let state = match (p["reachable"] == true, p["auth"].as_str()) {
                    (true, _) => "reachable".to_string(),
                    (false, Some("refused")) => format!(
                        "REFUSED: {}",
                        p["error"]["message"].as_str().unwrap_or("the token was refused")
                    ),
                    (false, _) => "unreachable".to_string(),
                };
                writeln!(w, "primary   {} ({state})", r.url)?;
                if let Some(hint) = p["error"]["hint"].as_str().filter(|_| p["auth"] == "refused") {
                    writeln!(w, "          {hint}")?;
                }
                if let Some(g) = p["gateway"].as_object() {
                    writeln!(
                        w,
                        "gateway   this device is '{}' ({}), token {}",
                        g["device"].as_str().unwrap_or("?"),
                        g["role"].as_str().unwrap_or("not in the policy"),
                        g["token_id"].as_str().unwrap_or("?")
                    )?;
                }
                if let Some(m) = p["identity_mismatch"].as_str() {
                    writeln!(w, "          MISMATCH: {m}")?;
                    writeln!(w, "          {}", p["fix"].as_str().unwrap_or(""))?;
                }
            }
        }
        let q = &doc["outbox"];
        writeln!(
            w,
            "outbox    {} open, {} failed, last flush {}",
            q["open"],
            q["failed"],
            q["last_flush"].as_str().unwrap_or("never")
        )?;
        if let Some(e) = q["last_flush_error"]["error"].as_object() {
            writeln!(
                w,
                "          the last flush stopped: {}",
                e.get("message")
                    .and_then(|m| m.as_str())
                    .unwrap_or("")
                    .lines()
                    .next()
                    .unwrap_or("")
            )?;
            if let Some(h) = e.get("hint").and_then(|h| h.as_str()) {
                writeln!(
                    w,
                    "          {}",
                    crate::mcp::fix_for_device(h, launch.config.device.as_deref())
                )?;
            }
        }
        if let Some(f) = q["first_failed"].as_object() {
            let op = f["op_id"].as_str().unwrap_or("");
            let why = match f["error"]["rule"].as_str() {
                Some(rule) => format!("refused by the primary's gateway, rule {rule}"),
                None => f["error"]["message"].as_str().unwrap_or("").lines().next().unwrap_or("").to_string(),
            };
            writeln!(
                w,
                "          FAILED: op {} {}: {} ({} op(s) wait for it); `mpt outbox retry {}` or `mpt outbox drop {} --yes`",
                &op[..op.len().min(12)],
                f["tool"].as_str().unwrap_or(""),
                why,
                q["held_back"],
                &op[..op.len().min(12)],
                &op[..op.len().min(12)],
            )?;
        }
        let p = &doc["pull"];
        if p.is_object() {
            let ok = p["last_success"].as_str().unwrap_or("never");
            match p["last_error"].as_str() {
                None => writeln!(w, "pull      last success {ok}")?,
                Some(e) => writeln!(
                    w,
                    "pull      FAILING since {} (last success {ok}): {}",
                    p["failing_since"].as_str().unwrap_or("?"),
                    crate::mcp::fix_for_device(
                        e.lines().next().unwrap_or(""),
                        launch.config.device.as_deref()
                    )
                )?,
            }
            if let Some(n) = p["rows_skipped"].as_u64().filter(|n| *n > 0) {
                writeln!(
                    w,
                    "          {n} event(s) of the primary's log could not be read and were skipped"
                )?;
            }
        }
        Ok(())
    })?;
    // A refused token is a failure, as doctor's `transport` says: nothing this device writes
    // reaches the fleet until it is fixed. The document is printed either way.
    if doc["primary"]["auth"] == "refused" {
        return Ok(Exit::CheckFailed);
    }
    Ok(Exit::Ok)
}
