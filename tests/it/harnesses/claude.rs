//! The real Claude Code (from npm) through `mpt edge --harness claude`: it lists MemPalace's tools
//! through the edge, and its model's `add_drawer` lands on a real primary stamped
//! `claude@<device>`.

use serde_json::{Value, json};

use super::on_primary;
use crate::support::claude::Claude;
use crate::support::fleet::Fleet;
use crate::support::harness::OwnersStopped;
use crate::support::{files_under, leaks};

#[test]
fn claude_codes_write_through_the_edge_lands_on_the_primary_stamped_as_claude_on_this_device() {
    let fleet = Fleet::start(1);
    let d = &fleet.devices[0];
    let _owners = OwnersStopped::of(&d.env);
    let content = "Claude Code filed this through mpt edge: the quince rows face the south wall";
    let tool = "mcp__mempalace__mempalace_add_drawer";
    let script = json!({"turns": [[
        {"tool": tool, "text": "Filing that now.",
         "input": {"wing": "wing_dev0", "room": "notes", "content": content}},
        {"text": "Filed."}
    ]]});
    let claude = Claude::new(&d.env, &script);
    // The edge as Claude Code's MCP server (what `mpt edge wire claude` is to write).
    let config = d.env.path("mcp.json");
    std::fs::write(
        &config,
        json!({"mcpServers": {"mempalace": {
            "type": "stdio", "command": env!("CARGO_BIN_EXE_mpt"),
            "args": ["edge", "--harness", "claude"]}}})
        .to_string(),
    )
    .unwrap();
    let mut cmd = claude.command(&d.env);
    for (k, v) in d.vars() {
        cmd.env(k, v);
    }
    let o = cmd
        .args(["-p", "Please remember where the quince rows face."])
        .args(["--output-format", "json", "--mcp-config"])
        .arg(&config)
        .args(["--strict-mcp-config", "--allowedTools", tool])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["is_error"], false, "{v}");
    assert_eq!(v["permission_denials"], json!([]), "{v}");
    let replies: Vec<Value> = claude
        .requests(&d.env)
        .iter()
        .map(|r| r["reply"].clone())
        .collect();
    assert!(
        replies.iter().any(|r| r[0] == "tool" && r[1][1] == tool),
        "the model was offered the palace's tool through the edge and called it: {replies:?}"
    );
    let got = on_primary(&fleet.primary, content).expect("the drawer is on the primary");
    assert_eq!(
        got["metadata"]["added_by"],
        d.agent("claude").as_str(),
        "{got}"
    );
}

#[test]
fn a_remote_entry_takes_the_devices_token_from_mpt_token_header_and_writes_it_nowhere() {
    let s = crate::support::gateway::Setup::new(json!({"dev0": {"role": "member"}}));
    let d = s.device("dev0");
    let token_file = d.env.path("dev0.token");
    std::fs::write(&token_file, &d.token).unwrap();
    std::fs::set_permissions(
        &token_file,
        std::os::unix::fs::PermissionsExt::from_mode(0o600),
    )
    .unwrap();
    let content = "Claude Code filed this through mpt gateway with the header mpt gave it";
    let tool = "mcp__mempalace__mempalace_add_drawer";
    let script = json!({"turns": [[
        {"tool": tool, "text": "Filing.",
         "input": {"wing": "wing_dev0", "room": "notes", "content": content}},
        {"text": "Filed."}
    ]]});
    let claude = Claude::new(&d.env, &script);
    let url = d.link.url();
    let tf = token_file.display().to_string();
    // The device talks to the gateway straight (no edge): `mpt edge wire claude` writes the
    // user-scope http entry whose header comes from `mpt token header`.
    let vars = [
        ("MEMPALACE_REMOTE_URL", url.as_str()),
        ("MPT_TOKEN_FILE", &tf),
    ];
    let o = d.env.mpt(&["--json", "edge", "wire", "claude"], &vars);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let helper = format!("{} token header", env!("CARGO_BIN_EXE_mpt"));
    let state: Value =
        serde_json::from_slice(&std::fs::read(d.env.home().join(".claude.json")).unwrap()).unwrap();
    assert_eq!(
        state["mcpServers"]["mempalace"],
        json!({"type": "http", "url": url, "headersHelper": helper})
    );
    let mut cmd = claude.command(&d.env);
    cmd.envs(vars).args(["-p", "Please file the note."]).args([
        "--output-format",
        "json",
        "--allowedTools",
        tool,
    ]);
    let o = cmd.output().unwrap();
    assert!(
        o.status.success(),
        "{}{}\nthe gateway's log:\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
        s.gw.stderr()
    );
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["is_error"], false, "{v}");
    let got = on_primary(&s.p, content).unwrap_or_else(|| {
        panic!(
            "the drawer is on the primary: {v}\n{:?}\nthe gateway's log:\n{}",
            claude
                .requests(&d.env)
                .iter()
                .map(|r| r["reply"].clone())
                .collect::<Vec<_>>(),
            s.gw.stderr()
        )
    });
    assert!(got["metadata"].is_object(), "{got}");
    // The token is in the device's own token file, and in nothing Claude Code (or wire) wrote.
    let mut files = files_under(&d.env.home());
    files.extend(files_under(&claude.project));
    let holding: Vec<_> = files
        .iter()
        .filter(|(_, bytes)| leaks(bytes, &d.token))
        .map(|(p, _)| p.clone())
        .collect();
    assert!(files.len() > 3, "Claude Code wrote its files: {files:?}");
    assert_eq!(holding, Vec::<String>::new());

    // The helper refuses a terminal's eyes and a --json document.
    let o = d.env.mpt(
        &["--json", "token", "header"],
        &[("MEMPALACE_REMOTE_URL", &url), ("MPT_TOKEN_FILE", &tf)],
    );
    assert_eq!(o.status.code(), Some(4));
    assert!(!String::from_utf8_lossy(&o.stdout).contains(&d.token));
}
