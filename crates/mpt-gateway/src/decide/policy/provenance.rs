//! Provenance from the token, never from the client: writer fields as `<agent>@<device>`, diary
//! entries as `HOST:<device>|…`, `metadata.mpt` on coordination writes; `agent_name` only checked.

use serde_json::{Value, json};

use super::rewrite::Rewrite;
use super::{Device, Provenance};
use mpt_palace::catalog::{self, ToolClass};

/// The agent a writer field gets when the client sent none.
const DEFAULT_AGENT: &str = "mcp";

/// An entry of a device's `agents`: the part before `@` of what it writes as, and a diary's
/// `agent_name` (which `sanitize_name` lowercases and which may hold no `@`).
pub fn valid_agent(a: &str) -> bool {
    !a.is_empty()
        && a.len() <= 64
        && a.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"._-".contains(&b))
}

/// What the gateway changes in a write's arguments so that it names the token's device, or the
/// rule refusing it (an agent the device may not be; any forgery under `strict`).
pub fn plan(
    d: &Device,
    device: &str,
    token_id: &str,
    mode: Provenance,
    tool: &str,
    args: &Value,
    diary_drawer: bool,
) -> Result<Vec<Rewrite>, String> {
    let row = catalog::tool(tool);
    if !matches!(row.class, ToolClass::Write | ToolClass::Maintenance) {
        return Ok(Vec::new());
    }
    let strict = mode == Provenance::Strict;
    let mut out = Vec::new();
    for &at in row.identity {
        if at.ends_with("/agent_name") {
            check_agent_name(d, args, at)?;
            continue;
        }
        let sent = args.pointer(at);
        let want = Value::String(format!(
            "{}@{device}",
            agent_for(d, sent.and_then(Value::as_str))
        ));
        match sent {
            Some(v) if *v == want => {}
            None | Some(Value::Null) => out.push(Rewrite::fill(at, want)),
            Some(_) if strict => return Err(format!("provenance:strict:{}", field(at))),
            Some(_) => out.push(Rewrite::forged(at, want)),
        }
    }
    // `update_drawer`'s new content for a diary entry (a drawer in room `diary`) keeps the
    // entry's stamp as a diary write's does.
    let updated: &[&str] = if diary_drawer && catalog::bare(tool) == "update_drawer" {
        &["/content"]
    } else {
        &[]
    };
    for &at in row.diary_entry.iter().chain(updated) {
        let Some(Value::String(s)) = args.pointer(at) else {
            continue;
        };
        let (claimed, rest) = split_host(s);
        if claimed == Some(device) {
            continue;
        }
        let want = Value::String(format!("HOST:{device}|{rest}"));
        match claimed {
            None => out.push(Rewrite::fill(at, want)),
            Some(_) if strict => return Err(format!("provenance:strict:{}", field(at))),
            Some(_) => out.push(Rewrite::forged(at, want)),
        }
    }
    if row.metadata {
        let want = json!({"device": device, "token_id": token_id});
        match args.get("metadata") {
            None | Some(Value::Null) => out.push(Rewrite::fill("/metadata", json!({"mpt": want}))),
            Some(Value::Object(m)) => match m.get("mpt") {
                Some(v) if *v == want => {}
                None => out.push(Rewrite::fill("/metadata/mpt", want)),
                Some(_) if strict => return Err("provenance:strict:metadata.mpt".into()),
                Some(_) => out.push(Rewrite::forged("/metadata/mpt", want)),
            },
            // Not an object: the server refuses it, nothing to stamp into.
            Some(_) => {}
        }
    }
    Ok(out)
}

/// `/diary/agent_name` → `diary.agent_name`.
fn field(at: &str) -> String {
    at.trim_start_matches('/').replace('/', ".")
}

/// The agent part of what a client sent (before `@`; `mcp` when absent), kept when the device's
/// `agents` allow it, else the device's first agent.
fn agent_for<'a>(d: &'a Device, sent: Option<&'a str>) -> &'a str {
    let part = sent
        .and_then(|s| s.split('@').next())
        .map(str::trim)
        .filter(|s| !s.is_empty() && s.len() <= 64 && !s.chars().any(char::is_control))
        .unwrap_or(DEFAULT_AGENT);
    match &d.agents {
        None => part,
        Some(agents) if agents.iter().any(|a| *a == part.to_lowercase()) => part,
        Some(agents) => agents.first().map_or(DEFAULT_AGENT, String::as_str),
    }
}

/// A diary's `agent_name` keys its wing and its reads, so it is never rewritten: the device's
/// `agents` must name it (as `sanitize_name` leaves it: stripped, lowercased).
fn check_agent_name(d: &Device, args: &Value, at: &str) -> Result<(), String> {
    let Some(agents) = &d.agents else {
        return Ok(());
    };
    let parent = &at[..at.len() - "/agent_name".len()];
    let name = match args.pointer(at).and_then(Value::as_str) {
        Some(s) => mpt_palace::catalog::py_strip(s).to_lowercase(),
        // A checkpoint's diary without an agent writes as the server's default.
        None if !parent.is_empty() && args.pointer(parent).is_some_and(Value::is_object) => {
            catalog::CHECKPOINT_AGENT.to_string()
        }
        None => return Ok(()),
    };
    if agents.contains(&name) {
        Ok(())
    } else {
        Err("agents:not_allowed".into())
    }
}

/// `HOST:<device>|rest` → (`Some(device)`, `rest`); anything else → (`None`, itself).
fn split_host(s: &str) -> (Option<&str>, &str) {
    s.strip_prefix("HOST:")
        .and_then(|r| r.split_once('|'))
        .map_or((None, s), |(host, rest)| (Some(host), rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn device(agents: Option<&[&str]>) -> Device {
        Device {
            role: super::super::Role::Member,
            wings: None,
            kg: None,
            streams: None,
            rate: None,
            agents: agents.map(|a| a.iter().map(|s| s.to_string()).collect()),
            provenance: None,
            mine: None,
        }
    }

    fn planned(d: &Device, tool: &str, args: Value) -> Result<Value, String> {
        let diary = args.get("drawer_id").is_some();
        let rewrites = plan(d, "lap", "tok1", Provenance::Stamp, tool, &args, diary)?;
        let mut args = args;
        super::super::rewrite::apply(&mut args, &rewrites);
        Ok(args)
    }

    #[test]
    fn a_diary_entrys_new_content_keeps_its_stamp() {
        let any = device(None);
        let update = |content: &str| json!({"drawer_id": "diary_x", "content": content});
        for sent in ["HOST:desk|rewritten", "rewritten"] {
            let a = planned(&any, "mempalace_update_drawer", update(sent)).unwrap();
            assert_eq!(a["content"], "HOST:lap|rewritten", "{sent}");
        }
    }

    #[test]
    fn every_writer_field_names_the_tokens_device() {
        let any = device(None);
        let a = planned(&any, "mempalace_add_drawer", json!({"added_by": "pi@desk"})).unwrap();
        assert_eq!(a["added_by"], "pi@lap");
        let a = planned(&any, "mempalace_add_drawer", json!({})).unwrap();
        assert_eq!(a["added_by"], "mcp@lap");
        let a = planned(&any, "mempalace_mine", json!({"agent": "miner"})).unwrap();
        assert_eq!(a["agent"], "miner@lap");
        let a = planned(&any, "mempalace_artifact_put", json!({"created_by": "x@y"})).unwrap();
        assert_eq!(a["created_by"], "x@lap");
        assert_eq!(
            a["metadata"],
            json!({"mpt": {"device": "lap", "token_id": "tok1"}})
        );
        let a = planned(
            &any,
            "mempalace_event_append",
            json!({"from_agent": "pi@desk", "metadata": {"k": 1, "mpt": {"device": "desk"}}}),
        )
        .unwrap();
        assert_eq!(a["from_agent"], "pi@lap");
        assert_eq!(a["metadata"]["k"], 1);
        assert_eq!(a["metadata"]["mpt"]["device"], "lap");
        let a = planned(&any, "mempalace_event_ack", json!({"from_agent": "pi"})).unwrap();
        assert_eq!(a["from_agent"], "pi@lap");
        assert!(
            a.get("metadata").is_none(),
            "event_ack declares no metadata"
        );
        let restricted = device(Some(&["pi", "claude"]));
        let a = planned(
            &restricted,
            "mempalace_add_drawer",
            json!({"added_by": "root@desk"}),
        )
        .unwrap();
        assert_eq!(a["added_by"], "pi@lap", "an agent not allowed: the first");
        let a = planned(
            &restricted,
            "mempalace_add_drawer",
            json!({"added_by": "claude"}),
        )
        .unwrap();
        assert_eq!(a["added_by"], "claude@lap");
    }

    #[test]
    fn diary_entries_carry_the_devices_host_prefix() {
        let any = device(None);
        for (tool, args, at, want) in [
            (
                "mempalace_diary_write",
                json!({"agent_name": "pi", "entry": "HOST:desk|did x"}),
                "/entry",
                "HOST:lap|did x",
            ),
            (
                "mempalace_diary_write",
                json!({"agent_name": "pi", "content": "did y"}),
                "/content",
                "HOST:lap|did y",
            ),
            (
                "mempalace_checkpoint",
                json!({"items": [], "diary": {"agent_name": "pi", "entry": "HOST:desk|z"}}),
                "/diary/entry",
                "HOST:lap|z",
            ),
            (
                "mempalace_checkpoint",
                json!({"items": [], "diary": {"agent_name": "pi", "content": "w"}}),
                "/diary/content",
                "HOST:lap|w",
            ),
        ] {
            let done = planned(&any, tool, args).unwrap();
            assert_eq!(done.pointer(at).unwrap(), want, "{tool} {at}");
        }
        let same = json!({"agent_name": "pi", "entry": "HOST:lap|ok"});
        assert!(
            plan(
                &any,
                "lap",
                "t",
                Provenance::Strict,
                "mempalace_diary_write",
                &same,
                false
            )
            .unwrap()
            .is_empty()
        );
    }

    #[test]
    fn agent_name_is_checked_never_rewritten_and_strict_refuses() {
        let d = device(Some(&["pi"]));
        let run = |mode, tool: &str, args: Value| plan(&d, "lap", "t", mode, tool, &args, false);
        let (stamp, strict) = (Provenance::Stamp, Provenance::Strict);
        let diary = "mempalace_diary_write";
        let refused = run(stamp, diary, json!({"agent_name": "Claude", "entry": "e"}));
        assert_eq!(refused.unwrap_err(), "agents:not_allowed");
        let cp = json!({"items": [], "diary": {"entry": "e"}});
        let refused = run(stamp, "mempalace_checkpoint", cp);
        assert_eq!(
            refused.unwrap_err(),
            "agents:not_allowed",
            "the server's default agent"
        );
        assert!(run(stamp, diary, json!({"agent_name": " PI "})).is_ok());
        let forged = json!({"added_by": "pi@desk"});
        let refused = run(strict, "mempalace_add_drawer", forged.clone());
        assert_eq!(refused.unwrap_err(), "provenance:strict:added_by");
        let filled = run(strict, "mempalace_add_drawer", json!({})).unwrap();
        assert_eq!(filled.len(), 1, "a missing writer is filled, not forged");
        assert!(run(stamp, "mempalace_search", forged).unwrap().is_empty());
    }
}
