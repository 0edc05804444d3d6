//! `mpt edge wire claude` against the real Claude Code: the entry `claude mcp add` makes (local
//! scope) shadows the user one until `--all-scopes`, as `claude mcp get` itself reports; wiring and
//! unwiring leave its state file byte-equal; the feeding hooks sit beside a user's own.

use std::path::Path;
use std::process::Output;

use serde_json::{Value, json};

use super::on_primary;
use crate::support::claude::Claude;
use crate::support::fleet::{Device, Fleet};
use crate::support::harness::OwnersStopped;
use crate::support::{json as parse_json, stderr, stdout};

const TOOL: &str = "mcp__mempalace__mempalace_add_drawer";

/// `mpt --json edge wire claude ARGS` on the device, opted into the edge (`edge`) or not.
fn wire(d: &Device, edge: bool, args: &[&str]) -> (Value, String) {
    let mut all = vec!["--json", "edge", "wire", "claude"];
    all.extend_from_slice(args);
    let o = if edge {
        d.mpt(&all)
    } else {
        d.env.mpt(&all, &[])
    };
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    (parse_json(&o), stderr(&o))
}

/// `claude ARGS` in the project folder with the device's variables.
fn claude_run(claude: &Claude, d: &Device, args: &[&str]) -> Output {
    let mut cmd = claude.command(&d.env);
    for (k, v) in d.vars() {
        cmd.env(k, v);
    }
    cmd.args(args).output().unwrap()
}

/// What `claude mcp get mempalace` says: the scope it took and the command.
fn claude_get(claude: &Claude, d: &Device) -> String {
    let o = claude_run(claude, d, &["mcp", "get", "mempalace"]);
    format!("{}{}", stdout(&o), stderr(&o))
}

/// `doc` without the members at `paths` (each a list of keys).
fn without(mut doc: Value, paths: &[&[&str]]) -> Value {
    for path in paths {
        let (last, parents) = path.split_last().unwrap();
        if let Some(o) = parents
            .iter()
            .try_fold(&mut doc, |v, k| v.get_mut(*k))
            .and_then(Value::as_object_mut)
        {
            o.remove(*last);
        }
    }
    doc
}

fn read_json(p: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap()
}

#[test]
fn the_local_entry_claude_mcp_add_makes_shadows_the_edge_until_all_scopes_and_unwiring_restores_every_byte()
 {
    let fleet = Fleet::start(1);
    let d = &fleet.devices[0];
    let _owners = OwnersStopped::of(&d.env);
    let content = "Claude Code filed this through the entry mpt edge wire claude wrote";
    let script = json!({"turns": [[
        {"tool": TOOL, "text": "Filing that now.",
         "input": {"wing": "wing_dev0", "room": "notes", "content": content}},
        {"text": "Filed."}
    ]]});
    let claude = Claude::new(&d.env, &script);
    let folder = claude.project.display().to_string();
    let pal = d.palace.display().to_string();
    // MemPalace's own instructions: a local-scope entry for this folder.
    let o = claude_run(
        &claude,
        d,
        &[
            "mcp",
            "add",
            "mempalace",
            "--",
            "mempalace-mcp",
            "--palace",
            &pal,
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let state = d.env.home().join(".claude.json");
    let original = std::fs::read(&state).unwrap();
    let local: &[&str] = &["projects", &folder, "mcpServers", "mempalace"];
    assert_eq!(read_json(&state).pointer("/mcpServers"), None);

    // No Claude Code runs between these edits (it rewrites its own state file as it runs).
    // The user scope switched; the local entry still wins in its folder, and wire says so.
    let (doc, warned) = wire(d, true, &[]);
    assert_eq!(doc["plans"][0]["scope"], "user", "{doc}");
    assert_eq!(doc["plans"][0]["plan"]["action"], "insert", "{doc}");
    assert_eq!(doc["shadowing"][0]["scope"], "local", "{doc}");
    assert_eq!(doc["shadowing"][0]["project"], folder.as_str(), "{doc}");
    assert!(warned.contains("--all-scopes"), "{warned}");
    let wired = read_json(&state);
    let edge = json!({"type": "stdio", "command": env!("CARGO_BIN_EXE_mpt"), "args": ["edge", "--harness", "claude"]});
    assert_eq!(wired["mcpServers"]["mempalace"], edge);
    let before: Value = serde_json::from_slice(&original).unwrap();
    assert_eq!(without(wired, &[&["mcpServers"]]), before);

    // --all-scopes switches the local entry too, its palace handed to the edge.
    let (doc, warned) = wire(d, true, &["--all-scopes"]);
    assert_eq!(doc["shadowing"], json!([]), "{doc}");
    assert!(!warned.contains("--all-scopes"), "{warned}");
    let wired = read_json(&state);
    let at = format!(
        "/projects/{}/mcpServers/mempalace",
        folder.replace('/', "~1")
    );
    assert_eq!(
        wired.pointer(&at),
        Some(
            &json!({"type": "stdio", "command": env!("CARGO_BIN_EXE_mpt"),
                     "args": ["edge", "--harness", "claude", "--palace", pal], "env": {}})
        )
    );
    assert_eq!(
        without(wired, &[&["mcpServers"], local]),
        without(before, &[local]),
        "nothing but the entries mpt owns changed"
    );

    // Withdrawn: the file is what it was, byte for byte; nothing of mpt's is left beside it.
    let (doc, _) = wire(d, false, &["--all-scopes"]);
    assert_eq!(doc["plans"][0]["plan"]["action"], "remove", "{doc}");
    assert_eq!(doc["plans"][1]["plan"]["action"], "replace", "{doc}");
    assert_eq!(std::fs::read(&state).unwrap(), original);
    let left: Vec<String> = std::fs::read_dir(d.env.home())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("mpt-user-entry"))
        .collect();
    assert_eq!(left, Vec::<String>::new());

    // What the real Claude Code makes of it: the local entry over the user's, until switched.
    wire(d, true, &[]);
    let said = claude_get(&claude, d);
    assert!(
        said.contains("Scope: Local config") && said.contains("Command: mempalace-mcp"),
        "the real Claude Code takes the local entry over the user's: {said}"
    );
    wire(d, true, &["--all-scopes"]);
    let said = claude_get(&claude, d);
    assert!(
        said.contains("Scope: Local config")
            && said.contains(&format!("Command: {}", env!("CARGO_BIN_EXE_mpt")))
            && said.contains("Connected"),
        "{said}"
    );

    // The real Claude Code's model writes through the edge from this folder.
    let o = claude_run(
        &claude,
        d,
        &[
            "-p",
            "Please file the note.",
            "--output-format",
            "json",
            "--allowedTools",
            TOOL,
        ],
    );
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    let got = on_primary(&fleet.primary, content).expect("the drawer is on the primary");
    assert_eq!(
        got["metadata"]["added_by"],
        d.agent("claude").as_str(),
        "{got}"
    );
}

#[test]
fn the_feeding_hooks_sit_beside_the_users_own_mempalaces_go_only_when_asked_and_go_back() {
    let fleet = Fleet::start(1);
    let d = &fleet.devices[0];
    let settings = d.env.home().join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    let users = r#"{
  "model": "opus",
  "hooks": {
    "SessionEnd": [
      {"hooks": [{"type": "command", "command": "notify-send 'session over'"}]}
    ],
    "Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "mempalace hook run --hook stop --harness claude-code"}]}]
  }
}
"#;
    std::fs::write(&settings, users).unwrap();

    // Beside MemPalace's own: both feed the same sessions, and wire says so.
    let (doc, warned) = wire(d, true, &["--hooks"]);
    assert_eq!(
        doc["hooks"]["plan"]["changed"],
        json!(["SessionEnd", "PreCompact"]),
        "{doc}"
    );
    let owners: Vec<(String, String)> = doc["hooks"]["present"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            (
                h["event"].as_str().unwrap().into(),
                h["owner"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert_eq!(
        owners,
        [
            ("Stop".to_string(), "mempalace".to_string()),
            ("SessionEnd".into(), "mpt".into()),
            ("PreCompact".into(), "mpt".into())
        ]
    );
    assert!(warned.contains("filed twice"), "{warned}");
    let doc = read_json(&settings);
    assert_eq!(
        doc["hooks"]["SessionEnd"][0]["hooks"][0]["command"],
        "notify-send 'session over'"
    );
    assert_eq!(doc["model"], "opus");

    // MemPalace's taken out only when asked, and put back with mpt's removal.
    let (doc, warned) = wire(d, true, &["--hooks", "--replace-mempalace-hooks"]);
    assert_eq!(
        doc["hooks"]["plan"]["mempalace_replaced"][0]["event"], "Stop",
        "{doc}"
    );
    assert!(!warned.contains("filed twice"), "{warned}");
    assert_eq!(read_json(&settings)["hooks"]["Stop"], json!([]));
    let (doc, _) = wire(d, true, &["--remove-hooks"]);
    assert_eq!(
        doc["hooks"]["present"].as_array().unwrap().len(),
        1,
        "MemPalace's is back: {doc}"
    );
    assert_eq!(
        std::fs::read_to_string(&settings).unwrap(),
        users,
        "byte for byte"
    );

    // The flags are Claude Code's.
    let o = d.mpt(&["edge", "wire", "opencode", "--hooks"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

#[test]
fn scope_project_writes_this_folders_mcp_json_and_unwiring_removes_the_file_it_made() {
    let env = crate::support::TestEnv::new();
    let edge = [
        ("MEMPALACE_REMOTE_URL", "http://127.0.0.1:9/mcp"),
        ("MEMPALACE_EDGE", "1"),
    ];
    let project = env.path(".mcp.json");
    let state = env.home().join(".claude.json");
    // A dry run writes nothing.
    let o = env.mpt(
        &[
            "--json",
            "edge",
            "wire",
            "claude",
            "--scope",
            "project",
            "--dry-run",
        ],
        &edge,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(parse_json(&o)["plans"][0]["plan"]["action"], "create");
    assert!(!project.exists() && !state.exists());
    let o = env.mpt(
        &["--json", "edge", "wire", "claude", "--scope", "project"],
        &edge,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let doc = parse_json(&o);
    assert_eq!(doc["plans"][0]["scope"], "project", "{doc}");
    assert_eq!(
        read_json(&project)["mcpServers"]["mempalace"]["args"],
        json!(["edge", "--harness", "claude"])
    );
    assert!(!state.exists(), "the user's state file is not touched");
    // Withdrawn: the file mpt made for its entry goes (its backup stays).
    let o = env.mpt(
        &["--json", "edge", "wire", "claude", "--scope", "project"],
        &[],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(parse_json(&o)["plans"][0]["plan"]["action"], "delete");
    assert!(!project.exists());
    // A file it cannot parse is refused, never rewritten.
    std::fs::write(&state, "{\"mcpServers\": {").unwrap();
    let o = env.mpt(&["edge", "wire", "claude"], &edge);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("not valid JSON"), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(&state).unwrap(),
        "{\"mcpServers\": {"
    );
}
