//! The real Codex CLI (from npm) wired by `mpt edge wire codex`: its `config.toml` (as `codex mcp
//! add` and a hand leave it) keeps every other byte, its model's `add_drawer` goes through the
//! edge to a real primary stamped `codex@<device>`, and unwiring restores the file exactly.

use std::process::Output;

use serde_json::{Value, json};

use super::on_primary;
use crate::support::codex::Codex;
use crate::support::fleet::{Device, Fleet};
use crate::support::harness::OwnersStopped;
use crate::support::{json as parse_json, stderr, stdout};

/// `mpt --json edge wire codex` on the device, opted into the edge (`edge`) or not.
fn wire(d: &Device, edge: bool) -> Value {
    let args = ["--json", "edge", "wire", "codex"];
    let o = if edge {
        d.mpt(&args)
    } else {
        d.env.mpt(&args, &[])
    };
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    parse_json(&o)
}

fn codex_run(codex: &Codex, d: &Device, args: &[&str]) -> Output {
    let mut cmd = codex.command(&d.env);
    cmd.envs(d.vars());
    cmd.args(args).output().unwrap()
}

#[test]
fn codex_wired_by_mpt_writes_through_the_edge_stamped_as_codex_and_unwiring_restores_its_config() {
    let fleet = Fleet::start(1);
    let d = &fleet.devices[0];
    let _owners = OwnersStopped::of(&d.env);
    let content = "Codex filed this through the entry mpt edge wire codex wrote";
    let script = json!({"turns": [[
        {"tool": "mempalace_add_drawer", "text": "Filing that now.",
         "input": {"wing": "wing_dev0", "room": "notes", "content": content}},
        {"text": "Filed."}
    ]]});
    let codex = Codex::new(&d.env, &script);
    let config = Codex::config_file(&d.env);
    // MemPalace's own instructions, through Codex itself; then a comment of the user's own.
    let pal = d.palace.display().to_string();
    let o = codex_run(
        &codex,
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
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, format!("# my codex, by hand\n{text}")).unwrap();
    let original = std::fs::read(&config).unwrap();

    let doc = wire(d, true);
    assert_eq!(doc["plan"]["action"], "replace", "{doc}");
    let wired = std::fs::read_to_string(&config).unwrap();
    assert!(wired.starts_with("# my codex, by hand\n"), "{wired}");
    assert!(
        !wired.contains(&d.token),
        "the token is passed by name, never written"
    );
    // What Codex itself reads back.
    let o = codex_run(&codex, d, &["mcp", "list", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let listed: Value = serde_json::from_slice(&o.stdout).unwrap();
    let entry = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "mempalace")
        .unwrap_or_else(|| panic!("{listed}"));
    assert_eq!(
        entry["transport"]["command"],
        env!("CARGO_BIN_EXE_mpt"),
        "{entry}"
    );
    assert_eq!(
        entry["transport"]["args"],
        json!(["edge", "--harness", "codex", "--palace", pal]),
        "{entry}"
    );

    // The real Codex's model writes through the edge, which has the device's opt-in by name.
    let (_, events) = codex.exec(&d.env, "Please file the note.", false, &d.vars());
    let got = on_primary(&fleet.primary, content)
        .unwrap_or_else(|| panic!("the drawer is on the primary: {events:?}"));
    assert_eq!(
        got["metadata"]["added_by"],
        d.agent("codex").as_str(),
        "{got}"
    );

    // Withdrawn: the file is what it was, byte for byte.
    let doc = wire(d, false);
    assert_eq!(doc["plan"]["action"], "replace", "{doc}");
    assert_eq!(std::fs::read(&config).unwrap(), original);
}
