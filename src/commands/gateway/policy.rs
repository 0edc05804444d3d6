//! `mpt gateway policy check [FILE]` (the file parsed and its tests run, exit 3 naming a failing
//! one) and `mpt gateway policy explain DEVICE TOOL ARGS_JSON` (the rule that decides one call).

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};
use serde_json::Value;

use crate::commands::Ctx;
use mpt_base::error::{Exit, MptError, Result};
use mpt_base::output::Style;
use mpt_gateway::StateDir;
use mpt_gateway::decide::policy::{Current, Policy};
use mpt_palace::catalog;

#[derive(Debug, Args)]
pub struct GatewayPolicyArgs {
    #[command(subcommand)]
    pub action: GatewayPolicyAction,
}

#[derive(Debug, Subcommand)]
pub enum GatewayPolicyAction {
    /// Parse a policy and run its tests (never calling the primary): exit 3 naming a failing test
    Check {
        /// The policy file (default: policy.json in the gateway's state folder)
        file: Option<PathBuf>,
    },
    /// The decision on one tools/call by a device, the rule that decides it, and what it rewrites
    Explain {
        /// The device (a key of "devices" in policy.json)
        device: String,
        /// The tool, e.g. add_drawer or mempalace_add_drawer
        tool: String,
        /// The call's arguments, a JSON object
        #[arg(value_name = "ARGS_JSON", default_value = "{}")]
        args: String,
        /// The wing update_drawer's drawer is in now (what the gateway would look up)
        #[arg(long, value_name = "WING")]
        current_wing: Option<String>,
        /// The policy file (default: policy.json in the gateway's state folder)
        #[arg(long, value_name = "FILE")]
        policy: Option<PathBuf>,
    },
}

pub fn run(ctx: &Ctx, dir: &StateDir, action: GatewayPolicyAction) -> Result<Exit> {
    let file = |f: Option<PathBuf>| f.unwrap_or_else(|| dir.policy());
    match action {
        GatewayPolicyAction::Check { file: f } => check(ctx, &file(f)),
        GatewayPolicyAction::Explain {
            device,
            tool,
            args,
            current_wing,
            policy,
        } => explain(ctx, &file(policy), &device, &tool, &args, current_wing),
    }
}

fn check(ctx: &Ctx, path: &Path) -> Result<Exit> {
    let policy = Policy::load(path)?;
    let failed = policy.failing_tests();
    let doc = super::docs::PolicyChecked {
        schema: mpt_base::schema::GATEWAY_POLICY_CHECK,
        policy: path,
        ok: failed.is_empty(),
        tests: policy.tests.len(),
        failed: &failed,
    };
    ctx.out.emit_typed(&doc, |w| {
        if failed.is_empty() {
            return writeln!(
                w,
                "{}: {} parses, {} test(s) pass",
                ctx.out.paint(Style::Ok, "ok"),
                path.display(),
                policy.tests.len()
            );
        }
        for f in &failed {
            writeln!(
                w,
                "{}: test '{}' expected {} but the rule '{}' decides otherwise",
                ctx.out.paint(Style::Fail, "FAIL"),
                f.test,
                f.expected.as_str(),
                f.rule
            )?;
        }
        writeln!(
            w,
            "{} of {} test(s) fail: a running gateway keeps its last good policy until they pass",
            failed.len(),
            policy.tests.len()
        )
    })?;
    Ok(if failed.is_empty() {
        Exit::Ok
    } else {
        Exit::CheckFailed
    })
}

fn explain(
    ctx: &Ctx,
    path: &Path,
    device: &str,
    tool: &str,
    args: &str,
    current_wing: Option<String>,
) -> Result<Exit> {
    let policy = Policy::load(path)?;
    policy.require_device(device, path)?;
    if catalog::known(tool).is_none() {
        return Err(
            MptError::usage(format!("'{tool}' is not a MemPalace 3.11 tool"))
                .with_hint("name one `tools/list` shows, e.g. add_drawer or mempalace_add_drawer"),
        );
    }
    let args: Value = serde_json::from_str(args)
        .ok()
        .filter(Value::is_object)
        .ok_or_else(|| {
            MptError::usage(format!("ARGS_JSON '{args}' is not a JSON object")).with_hint(
                r#"quote it whole, e.g. '{"wing": "wing_lap", "room": "r", "content": "c"}'"#,
            )
        })?;
    let tool = catalog::full_name(tool);
    let current = Current {
        wing: current_wing,
        home: ctx.env.get("HOME").map(std::path::PathBuf::from),
        ..Current::default()
    };
    let v = policy.call(device, "explain", &tool, &args, &current);
    let rewrites: Vec<String> = v.rewrites.iter().map(|r| r.label()).collect();
    let doc = super::docs::Explained {
        schema: mpt_base::schema::GATEWAY_POLICY_EXPLAIN,
        device,
        tool: &tool,
        decision: if v.decision.allowed { "allow" } else { "deny" },
        rule: &v.decision.rule,
        wings: catalog::wings(&tool, &args),
        rewrites,
        needs_lookup: policy.needs_current(device, &tool) && current.wing.is_none(),
    };
    ctx.out.emit_typed(&doc, |w| {
        let (paint, word) = if v.decision.allowed {
            (Style::Ok, "allow")
        } else {
            (Style::Fail, "deny")
        };
        writeln!(
            w,
            "{}: {tool} by {device}, decided by the rule '{}'",
            ctx.out.paint(paint, word),
            v.decision.rule
        )?;
        for r in &v.rewrites {
            writeln!(w, "  {} → {}", r.label(), r.value)?;
        }
        if policy.needs_current(device, &tool) && current.wing.is_none() {
            writeln!(
                w,
                "  (the gateway looks up the drawer's wing on the primary: pass --current-wing to judge it)"
            )?;
        }
        Ok(())
    })?;
    Ok(Exit::Ok)
}
