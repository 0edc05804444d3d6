//! `mpt gateway serve`: the options from flags and environment, the listening line on stdout
//! (one JSON Line under `--json`), notes on stderr; runs until SIGTERM or SIGINT.

use std::path::PathBuf;

use clap::Args;

use crate::commands::Ctx;
use mpt_base::config::gateway::GatewayKnobs;
use mpt_base::error::{Exit, Result};
use mpt_gateway::StateDir;
use mpt_gateway::serve::{Listening, ServeOptions, serve};
use mpt_gateway::serve_record::Record;

#[derive(Debug, Args)]
#[command(after_help = "\
The upstream token comes from MEMPALACE_MCP_HTTP_TOKEN or the 0600 file named by
MPT_GATEWAY_UPSTREAM_TOKEN_FILE, never argv; an https:// upstream may add MPT_CA_FILE's CA.
Runs until SIGTERM or SIGINT. The first stdout line says where it listens (one JSON Line under --json).")]
pub struct GatewayServeArgs {
    /// Where devices connect: IP:PORT (port 0 picks a free one)
    #[arg(long, value_name = "ADDR:PORT")]
    pub listen: std::net::SocketAddr,
    /// The mempalace serve in front of which it stands, e.g. http://127.0.0.1:8765
    #[arg(long, value_name = "URL")]
    pub upstream: String,
    /// Serve TLS with this PEM certificate (chain)
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// The certificate's PEM private key
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// Allow a non-loopback listen without TLS, or a plain http:// upstream on another host
    /// (when a tunnel already encrypts the link)
    #[arg(long)]
    pub allow_insecure: bool,
}

pub fn run(ctx: &Ctx, dir: StateDir, args: GatewayServeArgs) -> Result<Exit> {
    let record = dir.serve_record();
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
        .map_err(|e| mpt_base::error::MptError::io("starting the async runtime", &e))?;
    let served = rt.block_on(serve(opts, |l| listening(ctx, l, &record), stopped()));
    Record::remove(&record, std::process::id());
    served?;
    Ok(Exit::Ok)
}

fn listening(ctx: &Ctx, l: &Listening, record_path: &std::path::Path) -> Result<()> {
    for n in &l.notes {
        ctx.out.note("note", n);
    }
    let record = Record {
        schema: mpt_base::schema::GATEWAY_SERVE.into(),
        listening: l.url.clone(),
        upstream: l.upstream.clone(),
        dir: l.dir.clone(),
        pid: std::process::id(),
    };
    record.write(record_path)?;
    let doc = mpt_base::schema::to_document(&record)?;
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
        mpt_base::log_warn!(
            "cannot watch for SIGTERM and SIGINT: the gateway stops only when killed"
        );
        return std::future::pending().await;
    };
    tokio::select! {
        _ = term.recv() => {}
        _ = int.recv() => {}
    }
}
