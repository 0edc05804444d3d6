//! `mpt edge stop`: the palace's owner stopped (`mpt_edge::stop_owner`), what it finished and
//! what stays queued printed; exit 6 naming the harness sessions that still use it.

use crate::commands::Ctx;
use mpt_base::error::{Exit, Result};
use mpt_edge::launch::Launch;
use mpt_edge::stop_owner;

pub fn run(ctx: &Ctx, rt: &tokio::runtime::Runtime, launch: &Launch) -> Result<Exit> {
    let stopped = rt.block_on(stop_owner::stop(&launch.paths, |what| {
        ctx.out.note("edge stop", what)
    }))?;
    let outbox_open = match &launch.config.remote {
        None => None,
        Some(_) => mpt_outbox::existing(launch.env, launch.config, Some(&launch.palace))?
            .map(|o| o.summary().map(|s| s.open()))
            .transpose()?,
    };
    let doc = stop_owner::document(&launch.palace, &stopped, outbox_open);
    ctx.out.emit_typed(&doc, |w| {
        if stopped.is_empty() {
            writeln!(
                w,
                "no edge owner runs for {}: nothing to stop",
                launch.palace.display()
            )?;
        }
        for s in &stopped {
            let finished = if s.inflight > 0 {
                format!(", after answering its {} call(s) in flight", s.inflight)
            } else {
                String::new()
            };
            writeln!(w, "stopped the edge {} (pid {}){finished}", s.was, s.pid)?;
        }
        if !stopped.is_empty() {
            writeln!(
                w,
                "the palace's writer lease is free; the next `mpt edge` starts a new owner"
            )?;
        }
        if let Some(n) = outbox_open.filter(|n| *n > 0) {
            writeln!(
                w,
                "{n} op(s) stay queued for the primary: `mpt outbox flush` (or the next edge) sends them"
            )?;
        }
        Ok(())
    })?;
    Ok(Exit::Ok)
}
