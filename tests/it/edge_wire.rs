//! `mpt edge wire`: the R1 acceptance (no MEMPALACE_* → the file untouched, no edge anywhere),
//! each opt-in state's entry, every other byte kept (comments, other servers), a backup, the token
//! never written, `--dry-run`, MemPalace absent → no write; pi's printed edit.

use serde_json::Value;

use crate::support::{TestEnv, json, stderr};

const ORIGINAL: &str = r#"{
  // my opencode setup
  "$schema": "https://opencode.ai/config.json",
  "mcp": {
    "github": {"type": "local", "command": ["gh-mcp"]}, /* keep me */
    "mempalace": {"type": "local", "command": ["mempalace-mcp"], "enabled": true},
  },
  "theme": "dark",
}
"#;

fn entry(file: &std::path::Path) -> Value {
    let text = std::fs::read_to_string(file).unwrap();
    let v: Value = serde_json::from_str(&mpt::harness::jsonc::strip(&text)).unwrap();
    v["mcp"]["mempalace"].clone()
}

fn wire(env: &TestEnv, file: &std::path::Path, extra: &[&str], vars: &[(&str, &str)]) -> Value {
    let mut args = vec![
        "--json",
        "edge",
        "wire",
        "opencode",
        "--config",
        file.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let o = env.mpt(&args, vars);
    assert!(o.status.success(), "{}", stderr(&o));
    json(&o)
}

#[test]
fn the_three_opt_in_states_and_r1() {
    let env = TestEnv::new();
    let file = env.path("opencode.jsonc");
    std::fs::write(&file, ORIGINAL).unwrap();

    // R1: nothing set → untouched, no backup, no edge process or socket.
    let r = wire(&env, &file, &[], &[]);
    assert_eq!(r["plan"]["action"], "untouched");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), ORIGINAL);
    assert!(r["backup"].is_null());
    assert!(
        !env.home().join(".mempalace/edge").exists(),
        "no edge in any path"
    );

    // URL only: straight to the primary, the token referenced, never written.
    let url = "https://palace.example:8765/mcp";
    let r = wire(
        &env,
        &file,
        &[],
        &[
            ("MEMPALACE_REMOTE_URL", url),
            ("MEMPALACE_REMOTE_TOKEN", "tok-literal-secret"),
        ],
    );
    assert_eq!(r["plan"]["action"], "replace");
    let e = entry(&file);
    assert_eq!(
        (e["type"].as_str(), e["url"].as_str()),
        (Some("remote"), Some(url))
    );
    assert_eq!(
        e["headers"]["Authorization"],
        "Bearer {env:MEMPALACE_REMOTE_TOKEN}"
    );
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(
        !text.contains("tok-literal-secret"),
        "the token never enters the file"
    );
    assert!(
        text.contains("// my opencode setup")
            && text.contains("/* keep me */")
            && text.contains("\"theme\": \"dark\""),
        "{text}"
    );
    let backup = r["backup"].as_str().unwrap();
    assert_eq!(
        std::fs::read_to_string(backup).unwrap(),
        ORIGINAL,
        "the backup is the file as it was"
    );

    // URL + EDGE=1: the edge.
    let r = wire(
        &env,
        &file,
        &[],
        &[("MEMPALACE_REMOTE_URL", url), ("MEMPALACE_EDGE", "1")],
    );
    assert_eq!(r["plan"]["action"], "replace");
    let cmd = entry(&file)["command"].clone();
    assert!(
        cmd[0].as_str().unwrap().ends_with("/mpt") && cmd[1] == "edge",
        "{cmd}"
    );
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(
        text.contains(r#""github": {"type": "local", "command": ["gh-mcp"]}, /* keep me */"#),
        "other servers untouched: {text}"
    );

    // Idempotent: the same state again writes nothing.
    let again = wire(
        &env,
        &file,
        &[],
        &[("MEMPALACE_REMOTE_URL", url), ("MEMPALACE_EDGE", "1")],
    );
    assert_eq!(again["plan"]["action"], "untouched");

    // Opting out returns it to mempalace-mcp.
    let r = wire(&env, &file, &[], &[]);
    assert_eq!(r["plan"]["action"], "replace");
    assert_eq!(entry(&file)["command"][0], "mempalace-mcp");
}

#[test]
fn dry_run_absent_mempalace_and_insertion() {
    let env = TestEnv::new();
    let file = env.path("opencode.json");
    std::fs::write(&file, ORIGINAL).unwrap();
    let url = "https://palace.example:8765/mcp";
    let r = wire(
        &env,
        &file,
        &["--dry-run"],
        &[("MEMPALACE_REMOTE_URL", url), ("MEMPALACE_EDGE", "1")],
    );
    assert_eq!(r["plan"]["action"], "replace");
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        ORIGINAL,
        "a dry run writes nothing"
    );

    // MemPalace not installed: no write, a warning.
    let o = env.mpt(
        &[
            "edge",
            "wire",
            "opencode",
            "--config",
            file.to_str().unwrap(),
        ],
        &[
            ("MEMPALACE_REMOTE_URL", url),
            ("MEMPALACE_EDGE", "1"),
            ("PATH", "/usr/bin:/bin"),
        ],
    );
    assert!(o.status.success());
    assert!(stderr(&o).contains("not installed"), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), ORIGINAL);

    // No MemPalace entry yet (a trailing comma after the last server): it is added.
    let bare = env.path("bare.jsonc");
    std::fs::write(&bare, "{\n  \"mcp\": {\n    \"github\": {\"type\": \"local\", \"command\": [\"gh-mcp\"]},\n  },\n}\n").unwrap();
    let r = wire(
        &env,
        &bare,
        &[],
        &[("MEMPALACE_REMOTE_URL", url), ("MEMPALACE_EDGE", "1")],
    );
    assert_eq!(r["plan"]["action"], "insert");
    assert_eq!(entry(&bare)["command"][1], "edge");
}

#[test]
fn pi_gets_the_edit_its_extension_needs() {
    let env = TestEnv::new();
    let ext = env.home().join(".pi/agent/extensions");
    std::fs::create_dir_all(&ext).unwrap();
    std::fs::write(
        ext.join("mempalace.ts"),
        "const url = process.env.MEMPALACE_REMOTE_URL;\n",
    )
    .unwrap();
    let o = env.mpt(&["--json", "edge", "wire", "pi"], &[]);
    let v = json(&o);
    assert_eq!(v["status"], "needs_edit");
    assert!(
        v["edit"].as_str().unwrap().contains("MEMPALACE_EDGE")
            && v["edit"].as_str().unwrap().contains("\"edge\"")
    );
    std::fs::write(
        ext.join("mempalace.ts"),
        "if (process.env.MEMPALACE_EDGE === '1') spawn('mpt', ['edge']);\n",
    )
    .unwrap();
    assert_eq!(
        json(&env.mpt(&["--json", "edge", "wire", "pi"], &[]))["status"],
        "wired"
    );
}
