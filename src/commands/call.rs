//! `mpt call TOOL [ARGS]`: one MemPalace tool through the transport the pi bridge would pick,
//! its payload parsed; `--list` for the tools. Maintenance and destructive tools never go remote.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use clap::Args;
use serde_json::Value;

use crate::commands::Ctx;
use crate::commands::PalaceArg;
use mpt_base::error::{Exit, MptError, Result};
use mpt_base::output::verbosity;
use mpt_mcp::route::{Dial, Route, Rule};
use mpt_mcp::{Deadline, McpClient};
use mpt_palace::PalacePaths;
use mpt_palace::catalog::{self, ToolClass};

#[derive(Debug, Args)]
pub struct CallArgs {
    /// The tool, e.g. mempalace_status (the prefix may be left out)
    #[arg(required_unless_present = "list")]
    pub tool: Option<String>,
    /// The tool's arguments as a JSON object
    #[arg(default_value = "{}")]
    pub args: String,
    /// List the server's tools instead
    #[arg(long, conflicts_with = "tool")]
    pub list: bool,
    /// Deadline for this call in milliseconds (overrides MEMPALACE_MCP_TIMEOUT_MS; 0 = none)
    #[arg(long, value_name = "MS")]
    pub timeout_ms: Option<u64>,
    #[command(flatten)]
    pub palace: PalaceArg,
    /// The mempalace-mcp binary to start for a local palace
    #[arg(long, value_name = "PATH")]
    pub child: Option<PathBuf>,
}

pub fn run(ctx: &Ctx, args: CallArgs) -> Result<Exit> {
    let config = ctx.config()?;
    let tool = args.tool.as_deref().map(catalog::full_name);
    let arguments: Value = serde_json::from_str(&args.args).map_err(|e| {
        MptError::usage(format!("the tool arguments are not JSON: {e}"))
            .with_hint(r#"pass one JSON object, e.g. '{"query": "why the outbox"}'"#)
    })?;
    if !arguments.is_object() {
        return Err(MptError::usage("the tool arguments must be a JSON object"));
    }
    if let (Some(t), Some(remote)) = (&tool, &config.remote) {
        let class = catalog::classify(t);
        if matches!(class, ToolClass::Maintenance | ToolClass::Destructive) {
            return Err(MptError::refused(format!(
                "{t} is a {} tool: mpt never runs it against the shared primary at {}",
                if class == ToolClass::Maintenance { "maintenance" } else { "destructive" },
                remote.url
            ))
            .with_hint("run it on the palace host itself, or unset MEMPALACE_REMOTE_URL to act on this machine's local palace"));
        }
    }
    let palace = PalacePaths::chosen(&ctx.env, args.palace.path.as_deref(), Some(&config))?;
    let deadline = match args.timeout_ms {
        None => Deadline::Default,
        Some(0) => Deadline::Unbounded,
        Some(ms) => Deadline::After(Duration::from_millis(ms)),
    };
    // The primary when configured; else the palace's edge owner, whose child is its one writer
    // (a second `mempalace-mcp` would be refused once it has written); else a child of our own.
    let route = Route::choose(&ctx.env, &config, || Ok(palace), Rule::PRIMARY_FIRST)?;
    if let Route::EdgeOwner { .. } = route {
        mpt_base::log_debug!("call: through {}", route.describe());
    }
    let dial = Dial {
        child: args.child.as_deref(),
        show_stderr: verbosity() >= 1,
        ..Dial::as_harness(&config.harness)
    };
    let rt = super::runtime()?;
    rt.block_on(async {
        let client = route.client(&ctx.env, &config, &dial)?;
        let result = async {
            let hs = client.connect().await?;
            let started = Instant::now();
            let doc = match &tool {
                None => tools_doc(&client, &hs.tools)?,
                Some(t) => {
                    let reply = client
                        .call_tool(t, arguments, deadline)
                        .await
                        .map_err(|e| unknown_tool(e, t, &hs.tools))?;
                    mpt_base::schema::to_document(&CallDoc {
                        schema: mpt_base::schema::CALL,
                        transport: client.transport_name(),
                        tool: t,
                        server_version: hs.server_version(),
                        elapsed_ms: started.elapsed().as_secs_f64() * 1e3,
                        payload: reply.payload,
                    })?
                }
            };
            Ok::<_, MptError>(doc)
        }
        .await;
        client.shutdown().await;
        let doc = result?;
        ctx.out.emit(&doc, |w| {
            if doc["schema"] == mpt_base::schema::TOOLS {
                for t in doc["tools"].as_array().into_iter().flatten() {
                    writeln!(
                        w,
                        "{:<28} {}",
                        t["name"].as_str().unwrap_or(""),
                        t["summary"].as_str().unwrap_or("")
                    )?;
                }
                Ok(())
            } else {
                let text = serde_json::to_string_pretty(&doc["payload"]).unwrap_or_default();
                writeln!(w, "{text}")
            }
        })?;
        Ok(Exit::Ok)
    })
}

/// A tool the server does not have (-32601) is a bad value, exit 2, naming it, with the closest
/// name it has and the command that lists them all.
fn unknown_tool(e: mpt_mcp::CallError, tool: &str, tools: &[Value]) -> MptError {
    if !matches!(e, mpt_mcp::CallError::Rpc { code: -32601, .. }) {
        return e.into();
    }
    // Compared without the shared `mempalace_` prefix, which would make every name look close.
    let names = tools
        .iter()
        .filter_map(|t| t["name"].as_str())
        .map(catalog::bare);
    let close = mpt_base::suggest::closest(catalog::bare(tool), names).map_or(String::new(), |c| {
        format!("did you mean '{}'? ", catalog::full_name(c))
    });
    MptError::usage(format!("the server has no tool '{tool}'")).with_hint(format!(
        "{close}`mpt call --list` lists the {} tools it has",
        tools.len()
    ))
}

fn tools_doc(client: &McpClient, tools: &[Value]) -> serde_json::Result<Value> {
    let list: Vec<ToolRow> = tools
        .iter()
        .map(|t| {
            let name = t["name"].as_str().unwrap_or("");
            ToolRow {
                name,
                class: catalog::classify(name),
                summary: t["description"]
                    .as_str()
                    .unwrap_or("")
                    .lines()
                    .next()
                    .unwrap_or(""),
            }
        })
        .collect();
    mpt_base::schema::to_document(&ToolsDoc {
        schema: mpt_base::schema::TOOLS,
        transport: client.transport_name(),
        count: list.len(),
        tools: list,
    })
}

/// `mpt call TOOL --json` (`mpt.call/v1`): the tool's payload and how it was reached (field
/// paths and types pinned by `tests/it/documents.rs`, as the documents below).
#[derive(serde::Serialize)]
struct CallDoc<'a> {
    schema: &'static str,
    transport: &'static str,
    tool: &'a str,
    server_version: Option<&'a str>,
    elapsed_ms: f64,
    payload: Value,
}

/// `mpt call --list --json` (`mpt.tools/v1`).
#[derive(serde::Serialize)]
struct ToolsDoc<'a> {
    schema: &'static str,
    transport: &'static str,
    count: usize,
    tools: Vec<ToolRow<'a>>,
}

/// One tool: its name, how mpt routes it, the first line of its description.
#[derive(serde::Serialize)]
struct ToolRow<'a> {
    name: &'a str,
    class: catalog::ToolClass,
    summary: &'a str,
}
