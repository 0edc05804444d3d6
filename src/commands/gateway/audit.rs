//! `mpt gateway audit [--device D] [--denied] [--since T]` and `mpt gateway audit verify`: the
//! records a query selects, and the chain's verdict (exit 3 naming the first record that fails).

use clap::{Args, Subcommand};
use serde_json::Value;

use crate::commands::Ctx;
use mpt_base::error::{Exit, MptError, Result};
use mpt_base::output::Style;
use mpt_gateway::StateDir;
use mpt_gateway::record::audit::read::{Query, select, verify};

#[derive(Debug, Args)]
pub struct GatewayAuditArgs {
    #[command(subcommand)]
    pub action: Option<GatewayAuditAction>,
    /// Only this device's records
    #[arg(long, value_name = "DEVICE")]
    pub device: Option<String>,
    /// Only refusals
    #[arg(long)]
    pub denied: bool,
    /// Only records since T: an RFC 3339 time or a duration back from now (e.g. 1h)
    #[arg(long, value_name = "T")]
    pub since: Option<String>,
    /// At most the N most recent records
    #[arg(long, value_name = "N", default_value_t = 1000)]
    pub limit: usize,
}

#[derive(Debug, Subcommand)]
pub enum GatewayAuditAction {
    /// Recompute the hash chain and check its head: exit 3 naming the first record that fails
    Verify,
}

pub fn run(ctx: &Ctx, dir: &StateDir, args: GatewayAuditArgs) -> Result<Exit> {
    match args.action {
        Some(GatewayAuditAction::Verify) => check(ctx, dir),
        None => show(ctx, dir, args),
    }
}

/// `T` as unix seconds: an RFC 3339 time, or a duration back from now.
fn since(t: &str) -> Result<i64> {
    if let Some(s) = mpt_base::time::parse_iso_utc(t) {
        return Ok(s);
    }
    mpt_base::time::parse_duration(t)
        .map(|d| mpt_base::time::now_unix() - d.as_secs() as i64)
        .map_err(|_| {
            MptError::usage(format!(
                "--since '{t}' is neither an RFC 3339 time nor a duration"
            ))
            .with_hint("e.g. --since 2026-12-01T08:00:00Z, or --since 1h")
        })
}

fn show(ctx: &Ctx, dir: &StateDir, args: GatewayAuditArgs) -> Result<Exit> {
    let q = Query {
        device: args.device,
        denied: args.denied,
        since: args.since.as_deref().map(since).transpose()?,
        limit: args.limit,
    };
    let records = select(dir, &q)?;
    let doc = super::docs::Audit {
        schema: mpt_base::schema::GATEWAY_AUDIT,
        records: &records,
    };
    ctx.out.emit_typed(&doc, |w| {
        if records.is_empty() {
            return writeln!(w, "no audit records match");
        }
        for r in &records {
            let s = |k: &str| r.get(k).and_then(Value::as_str).unwrap_or("-");
            let n = |k: &str| {
                r.get(k)
                    .and_then(Value::as_u64)
                    .map_or("-".into(), |v| v.to_string())
            };
            let what = r
                .get("tool")
                .and_then(Value::as_str)
                .or(r.get("rpc").and_then(Value::as_str))
                .unwrap_or(s("route"));
            let decision = match s("decision") {
                "deny" => ctx.out.paint(Style::Fail, "deny "),
                d => format!("{d:<5}"),
            };
            writeln!(
                w,
                "{:>6}  {}  {:<8}  {:<14}  {decision}  {:<32}  {:<24}  {:>4}  {}",
                n("seq"),
                s("ts"),
                s("stage"),
                s("device"),
                what,
                s("rule"),
                n("upstream_status"),
                r.get("latency_ms")
                    .and_then(Value::as_u64)
                    .map_or(String::new(), |ms| format!("{ms}ms")),
            )?;
        }
        Ok(())
    })?;
    Ok(Exit::Ok)
}

fn check(ctx: &Ctx, dir: &StateDir) -> Result<Exit> {
    let v = verify(dir)?;
    let doc = super::docs::Verified {
        schema: mpt_base::schema::GATEWAY_AUDIT_VERIFY,
        ok: v.bad.is_none(),
        records: v.records,
        first_seq: v.first_seq,
        last_seq: v.last_seq,
        head_seq: v.head.as_ref().map(|h| h.seq),
        start: v.head.as_ref().and_then(|h| h.start.as_ref()),
        pruned: &v.pruned,
        bad: v.bad.as_ref(),
    };
    ctx.out.emit_typed(&doc, |w| match &v.bad {
        None => {
            writeln!(
                w,
                "{}: {} record(s){}, the chain holds from its start to its head checkpoint",
                ctx.out.paint(Style::Ok, "ok"),
                v.records,
                match (v.first_seq, v.last_seq) {
                    (Some(a), Some(b)) => format!(" (seq {a} to {b})"),
                    _ => String::new(),
                }
            )?;
            for p in &v.pruned {
                writeln!(
                    w,
                    "  pruned at {}: records {} to {} (record {} says so)",
                    p["at"].as_str().unwrap_or("?"),
                    p["pruned"]["from_seq"],
                    p["pruned"]["to_seq"],
                    p["seq"]
                )?;
            }
            Ok(())
        }
        Some(b) => writeln!(
            w,
            "{}: record {} ({} line {}) does not verify: {}",
            ctx.out.paint(Style::Fail, "FAIL"),
            b.seq.map_or("?".into(), |s| s.to_string()),
            b.place.file.display(),
            b.place.line,
            b.why
        ),
    })?;
    Ok(if v.bad.is_none() {
        Exit::Ok
    } else {
        Exit::CheckFailed
    })
}
