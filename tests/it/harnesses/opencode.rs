//! The real opencode (from npm) driving `mpt`: `mpt edge wire opencode` in each opt-in state on a
//! JSONC file with comments and another server, read back by `opencode debug config` and checked
//! live by `opencode mcp list`; through the edge a model-driven `add_drawer` lands on a real
//! primary stamped `opencode@<device>`, and with the primary down it is queued, then drains; its
//! remote entry reaches the primary through `mpt gateway` with the device's own token.

use std::path::PathBuf;
use std::process::Output;

use serde_json::{Value, json};

use super::on_primary;
use crate::support::fleet::{Device, Fleet, TOKEN};
use crate::support::harness::OwnersStopped;
use crate::support::link::Mode;
use crate::support::npm::{FakeModel, harnesses};
use crate::support::opencode::OFFLINE;
use crate::support::{json as parse_json, stderr, stdout};

fn config_file(d: &Device) -> PathBuf {
    d.env.home().join(".config/opencode/opencode.jsonc")
}

/// A user's opencode config: comments, another server, the fake model, MemPalace's own child
/// with a `timeout` of 30 s. opencode's default gives a server 5 s to list its tools, which a
/// loaded 2-core CI box running the suite in parallel has exceeded ("Failed to get tools" on a
/// healthy primary); a user on a slow machine sets the same key, and every wiring keeps it.
fn write_config(d: &Device, model: &FakeModel) -> String {
    let text = format!(
        r#"{{
  // my opencode setup
  "$schema": "https://opencode.ai/config.json",
  "model": "fake/m",
  "provider": {{
    "fake": {{"npm": "@ai-sdk/openai-compatible", "name": "Fake", "options": {{"baseURL": "{}", "apiKey": "dummy"}},
             "models": {{"m": {{"name": "m", "tool_call": true}}}}}},
  }},
  "mcp": {{
    "github": {{"type": "local", "command": ["gh-mcp-not-installed"], "enabled": false}}, /* keep me */
    "mempalace": {{"type": "local", "command": ["mempalace-mcp", "--palace", "{}"], "enabled": true, "timeout": 30000}},
  }},
}}
"#,
        model.base_url(),
        d.palace.display()
    );
    let file = config_file(d);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, &text).unwrap();
    text
}

/// The device's opt-in: none (R1), the primary straight, or the edge.
#[derive(Clone, Copy, Debug)]
enum State {
    Solitary,
    Remote,
    Edge,
}

fn vars(d: &Device, state: State) -> Vec<(String, String)> {
    let mut v = d.vars();
    match state {
        State::Solitary => {
            v.retain(|(k, _)| !k.starts_with("MEMPALACE_REMOTE") && k != "MEMPALACE_EDGE")
        }
        State::Remote => v.retain(|(k, _)| k != "MEMPALACE_EDGE"),
        State::Edge => {}
    }
    v.push(("MPT_EDGE_GRACE_MS".into(), "400".into()));
    v
}

/// `opencode <args>` run as the user runs it in a project folder on the device, with `vars`.
fn run_opencode(d: &Device, vars: &[(String, String)], args: &[&str]) -> Output {
    let project = d.env.path("project");
    std::fs::create_dir_all(&project).unwrap();
    let bin = harnesses().join("node_modules/.bin/opencode");
    let mut cmd = std::process::Command::new(bin);
    cmd.env_clear().args(args).current_dir(&project);
    for (k, v) in d.env.mempalace_env() {
        cmd.env(k, v);
    }
    for (k, v) in vars {
        cmd.env(k, v);
    }
    for k in OFFLINE {
        cmd.env(k, "1");
    }
    cmd.output().unwrap()
}

/// `opencode <args>` in `state`'s env; it must succeed.
fn opencode(d: &Device, state: State, args: &[&str]) -> Output {
    let o = run_opencode(d, &vars(d, state), args);
    assert!(
        o.status.success(),
        "opencode {args:?}: {}{}",
        stdout(&o),
        stderr(&o)
    );
    o
}

fn wire(d: &Device, state: State) -> Value {
    wire_with(d, &vars(d, state))
}

/// `mpt --json edge wire opencode` on the device's config file with `v`.
fn wire_with(d: &Device, v: &[(String, String)]) -> Value {
    let file = config_file(d);
    let refs: Vec<(&str, &str)> = v.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let o = d.env.mpt(
        &[
            "--json",
            "edge",
            "wire",
            "opencode",
            "--config",
            file.to_str().unwrap(),
        ],
        &refs,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    parse_json(&o)
}

/// What opencode itself makes of the file: `opencode debug config`'s `mcp` section.
fn parsed_mcp(d: &Device, state: State) -> Value {
    let o = opencode(d, state, &["debug", "config"]);
    let doc: Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("opencode debug config is not JSON ({e}): {}", stdout(&o)));
    doc["mcp"].clone()
}

/// `opencode mcp list` says the MemPalace server connected.
fn assert_connected(d: &Device, state: State) {
    let o = opencode(d, state, &["mcp", "list"]);
    assert_listed_connected(&o, state);
}

fn assert_listed_connected(o: &Output, state: impl std::fmt::Debug) {
    let out = stdout(o);
    let line = out
        .lines()
        .find(|l| l.contains("mempalace"))
        .unwrap_or_else(|| panic!("{state:?}: no mempalace line: {out}{}", stderr(o)));
    assert!(
        line.contains('✓') && line.contains("connected"),
        "{state:?}: {out}"
    );
}

/// A model-driven `add_drawer` through opencode: the fake model calls the tool the prompt names.
fn model_adds(d: &Device, state: State, content: &str) -> String {
    let args = json!({"wing": "notes", "room": "opencode", "content": content});
    let o = opencode(
        d,
        state,
        &["run", &format!("TOOL:mempalace_add_drawer {args}")],
    );
    stdout(&o)
}

/// The whole text of the last tool result opencode handed the model (its run prints 300 chars).
fn tool_result(model: &FakeModel) -> String {
    let requests = model.requests();
    let last = requests
        .iter()
        .rev()
        .filter_map(|r| r["messages"].as_array()?.last().cloned())
        .find(|m| m["role"] == "tool")
        .expect("opencode handed the model a tool result");
    match &last["content"] {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The contents of the queued ops in the device's outbox (`outbox show` holds the payload).
fn queued_contents(d: &Device) -> Vec<String> {
    let list = parse_json(&d.mpt(&["--json", "outbox", "list", "--state", "queued"]));
    list["ops"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|o| {
            let shown = parse_json(&d.mpt(&["--json", "outbox", "show", o["op_id"].as_str()?]));
            shown["op"]["payload"]["content"].as_str().map(String::from)
        })
        .collect()
}

/// How many drawers on the primary hold `content`.
fn copies_on_primary(fleet: &Fleet, content: &str) -> usize {
    let found = fleet
        .call("mempalace_search", json!({"query": content, "limit": 10}))
        .unwrap();
    found["results"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|r| r.to_string().contains(content))
        .count()
}

#[test]
fn opencode_reads_each_wiring_and_writes_through_the_edge_online_and_offline() {
    let fleet = Fleet::start(1);
    let d = &fleet.devices[0];
    let _owners = OwnersStopped::of(&d.env);
    let model = FakeModel::start(d.env.dir.path());
    let original = write_config(d, &model);

    // R1: nothing set, the file untouched; opencode reads it and starts MemPalace's own child.
    assert_eq!(wire(d, State::Solitary)["plan"]["action"], "untouched");
    assert_eq!(std::fs::read_to_string(config_file(d)).unwrap(), original);
    assert_eq!(
        parsed_mcp(d, State::Solitary)["mempalace"]["command"][0],
        "mempalace-mcp"
    );
    assert_connected(d, State::Solitary);

    // The URL alone: straight to the primary, the token by reference only.
    assert_eq!(wire(d, State::Remote)["plan"]["action"], "replace");
    let mcp = parsed_mcp(d, State::Remote);
    assert_eq!(mcp["mempalace"]["type"], "remote", "{mcp}");
    assert_eq!(
        mcp["mempalace"]["timeout"], 30000,
        "the user's timeout is kept: {mcp}"
    );
    assert_eq!(mcp["mempalace"]["url"], d.link.url().as_str());
    assert_eq!(mcp["github"]["command"][0], "gh-mcp-not-installed", "{mcp}");
    let text = std::fs::read_to_string(config_file(d)).unwrap();
    assert!(!text.contains(TOKEN), "the token never enters the file");
    assert!(
        text.contains("// my opencode setup") && text.contains("/* keep me */"),
        "{text}"
    );
    assert_connected(d, State::Remote);

    // The edge: opencode starts `mpt edge`, lists it connected, and its model's write lands on
    // the primary stamped with opencode's identity on this device.
    assert_eq!(wire(d, State::Edge)["plan"]["action"], "replace");
    let mcp = parsed_mcp(d, State::Edge);
    let cmd = &mcp["mempalace"]["command"];
    assert!(
        cmd[0].as_str().unwrap().ends_with("/mpt") && cmd[1] == "edge",
        "{mcp}"
    );
    assert_eq!(mcp["mempalace"]["timeout"], 30000, "{mcp}");
    assert_connected(d, State::Edge);
    let online = "opencode wrote this through the edge while the primary answered";
    let said = model_adds(d, State::Edge, online);
    assert!(said.contains("\"success\": true"), "{said}");
    let offered = model.requests().iter().any(|r| {
        r["tools"].as_array().is_some_and(|t| {
            t.iter().any(|t| {
                t["function"]["name"]
                    .as_str()
                    .is_some_and(|n| n.ends_with("mempalace_add_drawer"))
            })
        })
    });
    assert!(offered, "opencode offered the palace's tools to the model");
    let got = on_primary(&fleet.primary, online).expect("the drawer is on the primary");
    assert_eq!(
        got["metadata"]["added_by"],
        d.agent("opencode").as_str(),
        "{got}"
    );

    // The primary down: opencode still lists the server connected, the write is applied locally
    // and queued, and drains once the primary is back.
    d.link.set(Mode::Refuse);
    assert_connected(d, State::Edge);
    let offline = "opencode wrote this through the edge while the primary was down";
    let said = model_adds(d, State::Edge, offline);
    assert!(said.contains("\"success\": true"), "{said}");
    // Queued (beside, on a loaded machine, the online write when its direct send outlived the
    // read deadline: applied on the primary, then confirmed by the flush's replay check).
    assert!(
        queued_contents(d).iter().any(|c| c == offline),
        "{}",
        d.outbox()
    );
    assert!(on_primary(&fleet.primary, offline).is_none());
    d.link.set(Mode::Pass);
    let flushed = d.mpt(&["outbox", "flush", "--wait"]);
    assert!(
        flushed.status.success(),
        "{}{}",
        stdout(&flushed),
        stderr(&flushed)
    );
    assert_eq!(d.outbox()["open"], 0, "{}", d.outbox());
    let got =
        on_primary(&fleet.primary, offline).expect("the queued drawer drained to the primary");
    for content in [online, offline] {
        assert_eq!(copies_on_primary(&fleet, content), 1, "{content}: once");
    }
    assert_eq!(
        got["metadata"]["added_by"],
        d.agent("opencode").as_str(),
        "{got}"
    );

    // Opting out: back to MemPalace's own child, as the user had it.
    assert_eq!(wire(d, State::Solitary)["plan"]["action"], "replace");
    assert_eq!(
        parsed_mcp(d, State::Solitary)["mempalace"]["command"],
        json!(["mempalace-mcp", "--palace", d.palace.display().to_string()])
    );
    assert_connected(d, State::Solitary);
}

#[test]
fn a_remote_entry_wired_with_a_token_file_authenticates_in_the_real_opencode() {
    // The token only in MPT_TOKEN_FILE: the entry must reference the file, not a variable
    // opencode does not have ("needs authentication" while doctor passed).
    let fleet = Fleet::start(1);
    let d = &fleet.devices[0];
    let token = d.env.home().join(".config/mpt/token");
    std::fs::create_dir_all(token.parent().unwrap()).unwrap();
    std::fs::write(&token, format!("{TOKEN}\n")).unwrap();
    std::fs::set_permissions(&token, std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
    let mut v = vars(d, State::Remote);
    v.retain(|(k, _)| k != "MEMPALACE_REMOTE_TOKEN");
    v.push(("MPT_TOKEN_FILE".into(), token.display().to_string()));
    v.push(("MEMPALACE_FEED".into(), "0".into()));
    let refs: Vec<(&str, &str)> = v.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let file = config_file(d);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    // MemPalace's own child with the 30 s timeout `write_config` explains: a fresh entry gets
    // opencode's 5 s, which a loaded CI box has exceeded while listing a healthy primary's tools.
    let user = r#"{
  "mcp": {"mempalace": {"type": "local", "command": ["mempalace-mcp"], "timeout": 30000}}
}
"#;
    std::fs::write(&file, user).unwrap();
    wire_with(d, &v);
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(
        !text.contains(TOKEN),
        "the token never enters the file: {text}"
    );
    assert!(
        text.contains(&format!("{{file:{}}}", token.display())),
        "{text}"
    );

    let o = run_opencode(d, &v, &["mcp", "list"]);
    assert_listed_connected(&o, "token file");
    let o = d.env.mpt(&["--json", "doctor", "--check", "config"], &refs);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));

    // The file gone: opencode refuses its whole config, and doctor says so.
    std::fs::remove_file(&token).unwrap();
    let o = run_opencode(d, &v, &["mcp", "list"]);
    let said = format!("{}{}", stdout(&o), stderr(&o));
    assert!(said.contains("bad file reference"), "{said}");
    let mut vars_no_token = v.clone();
    vars_no_token.retain(|(k, _)| k != "MPT_TOKEN_FILE");
    let refs: Vec<(&str, &str)> = vars_no_token
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let o = d.env.mpt(&["--json", "doctor", "--check", "config"], &refs);
    assert_eq!(o.status.code(), Some(3), "{}", stdout(&o));
    assert!(stdout(&o).contains("bad file reference"), "{}", stdout(&o));
}

#[test]
fn a_token_file_others_can_read_leaves_opencode_its_tools_each_reply_saying_why() {
    use std::os::unix::fs::PermissionsExt;
    let fleet = Fleet::start(1);
    let d = &fleet.devices[0];
    let _owners = OwnersStopped::of(&d.env);
    let model = FakeModel::start(d.env.dir.path());
    write_config(d, &model);
    let token = d.env.home().join(".config/mpt/token");
    std::fs::create_dir_all(token.parent().unwrap()).unwrap();
    std::fs::write(&token, format!("{TOKEN}\n")).unwrap();
    std::fs::set_permissions(&token, PermissionsExt::from_mode(0o600)).unwrap();
    let mut v = vars(d, State::Edge);
    v.retain(|(k, _)| k != "MEMPALACE_REMOTE_TOKEN");
    v.push(("MPT_TOKEN_FILE".into(), token.display().to_string()));
    v.push(("MEMPALACE_FEED".into(), "0".into()));
    let refs: Vec<(&str, &str)> = v.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    wire_with(d, &v);

    // Mode 0644: the edge still serves its tools, cut off from the fleet, and says so.
    std::fs::set_permissions(&token, PermissionsExt::from_mode(0o644)).unwrap();
    let o = run_opencode(d, &v, &["mcp", "list"]);
    assert_listed_connected(&o, "a token file of mode 0644");
    let cut_off = "written while the token file was mode 0644";
    let args = json!({"wing": "notes", "room": "opencode", "content": cut_off});
    let o = run_opencode(
        d,
        &v,
        &["run", &format!("TOOL:mempalace_add_drawer {args}")],
    );
    let said = tool_result(&model);
    assert!(said.contains("\"success\": true"), "{said}{}", stderr(&o));
    assert!(
        said.contains("local only") && said.contains("chmod 600"),
        "{said}"
    );
    assert!(on_primary(&fleet.primary, cut_off).is_none(), "not shared");
    let search = json!({"query": cut_off, "limit": 3});
    run_opencode(d, &v, &["run", &format!("TOOL:mempalace_search {search}")]);
    let said = tool_result(&model);
    assert!(
        said.contains(cut_off) && said.contains("\"degraded\": true"),
        "{said}"
    );

    // Status and doctor fail with the fix; the fix fixes it for the next session.
    let o = d.env.mpt(&["--json", "edge", "status"], &refs);
    assert_ne!(o.status.code(), Some(0), "{}", stdout(&o));
    let fix = format!("chmod 600 {}", token.display());
    assert!(stdout(&o).contains(&fix), "{}{}", stdout(&o), stderr(&o));
    let o = d.env.mpt(&["--json", "doctor", "--check", "config"], &refs);
    assert_ne!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(stdout(&o).contains(&fix), "{}", stdout(&o));
    let o = std::process::Command::new("sh")
        .arg("-c")
        .arg(&fix)
        .output()
        .unwrap();
    assert!(o.status.success());
    let shared = "written once the token file was mode 0600 again";
    let args = json!({"wing": "notes", "room": "opencode", "content": shared});
    run_opencode(
        d,
        &v,
        &["run", &format!("TOOL:mempalace_add_drawer {args}")],
    );
    let said = tool_result(&model);
    assert!(
        said.contains("\"success\": true") && !said.contains("local only"),
        "{said}"
    );
    let flushed = d.env.mpt(&["outbox", "flush", "--wait"], &refs);
    assert!(flushed.status.success(), "{}", stderr(&flushed));
    assert!(on_primary(&fleet.primary, shared).is_some());
}

#[test]
fn opencodes_remote_entry_reaches_the_primary_through_the_gateway_with_the_devices_own_token() {
    let s = crate::support::gateway::Setup::new(json!({"dev0": {"role": "member"}}));
    let d = s.device("dev0");
    let model = FakeModel::start(d.env.dir.path());
    write_config(&d, &model);
    assert_eq!(wire(&d, State::Remote)["plan"]["action"], "replace");
    let text = std::fs::read_to_string(config_file(&d)).unwrap();
    assert!(!text.contains(&d.token), "the token never enters the file");
    assert!(
        text.contains("Bearer {env:MEMPALACE_REMOTE_TOKEN}"),
        "the header references the device's own token: {text}"
    );
    // Connected as `assert_connected` checks it; on a failure, the gateway's own log too (a
    // listing that failed once under a loaded full run: what the gateway saw says why).
    let o = opencode(&d, State::Remote, &["mcp", "list"]);
    let out = stdout(&o);
    assert!(
        out.lines()
            .any(|l| l.contains("mempalace") && l.contains('✓') && l.contains("connected")),
        "{out}{}\nthe gateway's log:\n{}",
        stderr(&o),
        s.gw.stderr()
    );

    let content = "opencode wrote this through mpt gateway with its own token";
    let said = model_adds(&d, State::Remote, content);
    assert!(said.contains("\"success\": true"), "{said}");
    let got = on_primary(&s.p, content).expect("the drawer is on the primary");
    let audit = parse_json(&s.host_mpt(&["--json", "gateway", "audit", "--device", "dev0"]));
    assert!(
        audit["records"].as_array().unwrap().iter().any(|r| {
            r["tool"] == "mempalace_add_drawer"
                && r["decision"] == "allow"
                && r["stage"] == "response"
        }),
        "{audit}"
    );

    // The gateway's tools/list is the role's: opencode never offers the model a delete.
    let offered: Vec<String> = model
        .requests()
        .iter()
        .flat_map(|r| r["tools"].as_array().cloned().unwrap_or_default())
        .filter_map(|t| t["function"]["name"].as_str().map(String::from))
        .collect();
    assert!(
        offered.iter().any(|n| n.ends_with("mempalace_add_drawer")),
        "{offered:?}"
    );
    assert!(
        !offered
            .iter()
            .any(|n| n.ends_with("mempalace_delete_drawer")),
        "{offered:?}"
    );
    // And nothing opencode did was refused (its probe for a server stream, GET /mcp, is the
    // transport's 405, not a denial).
    let denied =
        parse_json(&s.host_mpt(&["--json", "gateway", "audit", "--device", "dev0", "--denied"]));
    assert_eq!(denied["records"], json!([]), "{denied}");
    assert!(got["metadata"].is_object(), "{got}");

    // Revoked: opencode fails plainly, with no OAuth discovery of its own (`"oauth": false`).
    let o = s.host_mpt(&["gateway", "token", "revoke", "dev0"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = opencode(&d, State::Remote, &["mcp", "list"]);
    let out = format!("{}{}", stdout(&o), stderr(&o));
    println!("opencode mcp list after the revocation:\n{out}");
    let line = out
        .lines()
        .find(|l| l.contains("mempalace"))
        .unwrap_or_default();
    assert!(!line.contains("connected") || line.contains('✗'), "{out}");
    assert!(
        !out.to_lowercase().contains("mcp auth") && !out.to_lowercase().contains("authoriz"),
        "no OAuth prompt: {out}"
    );
    // It says why: the gateway's 401 (with its own OAuth discovery opencode says nothing).
    assert!(out.contains("(401)"), "{out}");
}
