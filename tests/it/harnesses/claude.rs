//! The real Claude Code (from npm) through `mpt edge --harness claude`: it lists MemPalace's tools
//! through the edge, and its model's `add_drawer` lands on a real primary stamped
//! `claude@<device>`.

use serde_json::{Value, json};

use crate::support::Primary;
use crate::support::claude::Claude;
use crate::support::fleet::Fleet;
use crate::support::harness::OwnersStopped;

fn on_primary(primary: &Primary, content: &str) -> Option<Value> {
    let found = primary
        .call("mempalace_search", json!({"query": content, "limit": 10}))
        .ok()?;
    let id = found["results"]
        .as_array()?
        .iter()
        .find(|r| r.to_string().contains(content))?["drawer_id"]
        .clone();
    primary
        .call("mempalace_get_drawer", json!({"drawer_id": id}))
        .ok()
}

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
