//! `mpt gateway serve`: the options from flags and environment, the listening line on stdout
//! (one JSON Line under `--json`), notes on stderr; runs until SIGTERM or SIGINT.

use serde_json::json;

use crate::cli::GatewayServeArgs;
use crate::commands::Ctx;
use crate::config::gateway::GatewayKnobs;
use crate::error::{Exit, Result};
use crate::gateway::StateDir;
use crate::gateway::serve::{Listening, ServeOptions, serve};

pub fn run(ctx: &Ctx, dir: StateDir, args: GatewayServeArgs) -> Result<Exit> {
    let opts = ServeOptions {
        listen: args.listen,
        upstream: args.upstream,
        tls: args.tls_cert.zip(args.tls_key),
        allow_insecure: args.allow_insecure,
        knobs: GatewayKnobs::from_env(&ctx.env)?,
        dir,
    };
    // One thread for the accept loop and every connection: a request then never waits for a
    // second thread to be woken and scheduled (on a loaded host, most of its added latency,
    // bench_gateway); a write's fsync still goes to the blocking pool.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| crate::error::MptError::io("starting the async runtime", &e))?;
    rt.block_on(serve(opts, |l| listening(ctx, l), stopped()))?;
    Ok(Exit::Ok)
}

fn listening(ctx: &Ctx, l: &Listening) -> Result<()> {
    for n in &l.notes {
        ctx.out.note("note", n);
    }
    let doc = json!({
        "schema": crate::schema::GATEWAY_SERVE,
        "listening": l.url,
        "upstream": l.upstream,
        "dir": l.dir,
        "pid": std::process::id(),
    });
    ctx.out.stream(&doc, |w| {
        writeln!(
            w,
            "mpt gateway: listening on {} for {} (state in {})",
            l.url,
            l.upstream,
            l.dir.display()
        )
    })
}

/// SIGTERM or SIGINT.
async fn stopped() {
    use tokio::signal::unix::{SignalKind, signal};
    let (Ok(mut term), Ok(mut int)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
    ) else {
        crate::log_warn!("cannot watch for SIGTERM and SIGINT: the gateway stops only when killed");
        return std::future::pending().await;
    };
    tokio::select! {
        _ = term.recv() => {}
        _ = int.recv() => {}
    }
}
