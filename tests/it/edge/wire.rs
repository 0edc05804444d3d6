//! `mpt edge wire`: the R1 acceptance (no MEMPALACE_* → the file untouched, no edge anywhere),
//! each opt-in state's entry, every other byte kept (comments, other servers), a backup, the token
//! never written, `--dry-run`, MemPalace absent → no write; pi's printed edit.

use serde_json::Value;

use crate::support::{TestEnv, json, stderr, stdout};

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
    let v: Value = serde_json::from_str(&mpt_palace::harness::jsonc::strip(&text)).unwrap();
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
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
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

const CUSTOM: &str = r#"{
  "mcp": {
    // the palace lives on the data volume
    "mempalace": {"type": "local", "command": ["mempalace-mcp", "--palace", "/data/p"], "environment": {"MEMPALACE_AGENT_NAME": "oc"}, "timeout": 30000},
  },
}
"#;

#[test]
fn a_customised_entry_is_kept_through_every_state_and_restored() {
    let env = TestEnv::new();
    let file = env.path("opencode.jsonc");
    std::fs::write(&file, CUSTOM).unwrap();
    let url = "https://palace.example:8765/mcp";
    let edge_vars = [("MEMPALACE_REMOTE_URL", url), ("MEMPALACE_EDGE", "1")];

    let r = wire(&env, &file, &[], &edge_vars);
    let e = entry(&file);
    let cmd: Vec<&str> = e["command"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    assert_eq!(
        cmd[1..],
        ["edge", "--harness", "opencode", "--palace", "/data/p"],
        "{e}"
    );
    assert_eq!(e["environment"]["MEMPALACE_AGENT_NAME"], "oc", "{e}");
    assert_eq!(e["timeout"], 30000, "{e}");
    let saved = std::path::PathBuf::from(r["plan"]["user_entry"].as_str().unwrap());
    assert_eq!(saved, env.path("opencode.jsonc.mpt-user-entry.json"));
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(&saved).unwrap().permissions().mode() & 0o777,
        0o600,
        "an environment may hold secrets"
    );
    assert_eq!(
        wire(&env, &file, &[], &edge_vars)["plan"]["action"],
        "untouched",
        "idempotent"
    );

    // Remote: no command, no environment in a remote entry; the timeout stays.
    wire(&env, &file, &[], &[("MEMPALACE_REMOTE_URL", url)]);
    let e = entry(&file);
    assert_eq!(
        (e["type"].as_str(), e["timeout"].as_u64()),
        (Some("remote"), Some(30000)),
        "{e}"
    );
    // Back to the edge: the palace and environment come back from the remembered entry.
    wire(&env, &file, &[], &edge_vars);
    let e = entry(&file);
    assert_eq!(e["command"][5], "/data/p", "{e}");
    assert_eq!(e["environment"]["MEMPALACE_AGENT_NAME"], "oc", "{e}");

    // Withdrawn: the user's own entry, byte for byte (comment and trailing comma included).
    let r = wire(&env, &file, &[], &[]);
    assert_eq!(r["plan"]["remember"], "forget", "{r}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), CUSTOM);
    assert!(!saved.exists(), "nothing remembered once it is restored");
}

#[test]
fn backups_never_overwrite_one_another() {
    let env = TestEnv::new();
    let file = env.path("opencode.jsonc");
    std::fs::write(&file, ORIGINAL).unwrap();
    // Backups other runs made in the seconds this test runs in: each must survive.
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    for t in now..now + 60 {
        std::fs::write(
            env.path(&format!("opencode.jsonc.mpt-backup-{t}")),
            format!("earlier {t}"),
        )
        .unwrap();
    }
    let url = "https://palace.example:8765/mcp";
    let mut backups = Vec::new();
    for vars in [
        vec![("MEMPALACE_REMOTE_URL", url)],
        vec![("MEMPALACE_REMOTE_URL", url), ("MEMPALACE_EDGE", "1")],
        vec![],
    ] {
        let before = std::fs::read_to_string(&file).unwrap();
        let r = wire(&env, &file, &[], &vars);
        let b = r["backup"].as_str().unwrap().to_string();
        assert_eq!(
            std::fs::read_to_string(&b).unwrap(),
            before,
            "{b} is the file as it was"
        );
        backups.push(b);
    }
    backups.dedup();
    assert_eq!(backups.len(), 3, "{backups:?}");
    assert_eq!(
        std::fs::read_to_string(&backups[0]).unwrap(),
        ORIGINAL,
        "the user's original is kept"
    );
    for t in now..now + 60 {
        assert_eq!(
            std::fs::read_to_string(env.path(&format!("opencode.jsonc.mpt-backup-{t}"))).unwrap(),
            format!("earlier {t}"),
            "an existing backup is never overwritten"
        );
    }
}

#[test]
fn the_wired_command_is_the_mpt_on_path_when_it_is_this_binary() {
    let env = TestEnv::new();
    let file = env.path("opencode.json");
    std::fs::write(&file, ORIGINAL).unwrap();
    let venv = crate::support::venv_bin("");
    let bin = env.path("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_mpt"), bin.join("mpt")).unwrap();
    let path = format!("{}:{}:/usr/bin:/bin", bin.display(), venv.display());
    let url = "https://palace.example:8765/mcp";
    let vars = [
        ("MEMPALACE_REMOTE_URL", url),
        ("MEMPALACE_EDGE", "1"),
        ("PATH", path.as_str()),
    ];
    let r = wire(&env, &file, &[], &vars);
    let on_path = bin.join("mpt").display().to_string();
    assert_eq!(entry(&file)["command"][0], on_path.as_str());
    assert_eq!(r["mpt"]["source"], "path", "{r}");
    let o = env.mpt(
        &[
            "edge",
            "wire",
            "opencode",
            "--config",
            file.to_str().unwrap(),
            "--dry-run",
        ],
        &vars,
    );
    assert!(
        crate::support::stdout(&o).contains(&format!("command: {on_path} (the mpt on PATH")),
        "says which: {}",
        crate::support::stdout(&o)
    );

    // Another mpt on PATH: this binary, by its own path, and said so.
    let other = env.path("other");
    std::fs::create_dir_all(&other).unwrap();
    crate::support::write_script(&other.join("mpt"), "#!/bin/sh\necho another mpt\n");
    let path = format!("{}:{}:/usr/bin:/bin", other.display(), venv.display());
    let r = wire(
        &env,
        &file,
        &[],
        &[
            ("MEMPALACE_REMOTE_URL", url),
            ("MEMPALACE_EDGE", "1"),
            ("PATH", path.as_str()),
        ],
    );
    let this = std::fs::canonicalize(env!("CARGO_BIN_EXE_mpt")).unwrap();
    assert_eq!(entry(&file)["command"][0], this.to_str().unwrap());
    assert_eq!(r["mpt"]["source"], "this_binary", "{r}");
    assert!(
        r["mpt"]["why"].as_str().unwrap().contains("another binary"),
        "{r}"
    );
}

/// The `mcp` section as opencode would read it (comments and trailing commas allowed).
fn mcp(file: &std::path::Path) -> Value {
    let text = std::fs::read_to_string(file).unwrap();
    let v: Value = serde_json::from_str(&mpt_palace::harness::jsonc::strip(&text)).unwrap();
    v["mcp"].clone()
}

#[test]
fn withdrawing_where_there_was_no_entry_removes_mpts_and_invents_none() {
    let env = TestEnv::new();
    let url = "https://palace.example:8765/mcp";
    let edge = [("MEMPALACE_REMOTE_URL", url), ("MEMPALACE_EDGE", "1")];
    let remote = [("MEMPALACE_REMOTE_URL", url), ("MEMPALACE_EDGE", "0")];
    let file = env.path("opencode.jsonc");
    let original = "{\n  // mine\n  \"mcp\": {\n    \"github\": {\"type\": \"local\", \"command\": [\"gh-mcp\"]} /* keep me */\n  },\n  \"theme\": \"dark\",\n}\n";
    std::fs::write(&file, original).unwrap();
    let saved = env.path("opencode.jsonc.mpt-user-entry.json");

    assert_eq!(wire(&env, &file, &[], &edge)["plan"]["action"], "insert");
    assert!(saved.exists(), "mpt remembers there was no entry");
    // EDGE=0 with the URL still set is the remote entry, as the wiring table says.
    assert_eq!(wire(&env, &file, &[], &remote)["plan"]["action"], "replace");
    assert_eq!(mcp(&file)["mempalace"]["type"], "remote");
    assert_eq!(wire(&env, &file, &[], &edge)["plan"]["action"], "replace");

    // The URL unset: mpt's entry goes, nothing is invented in its place (R1).
    let r = wire(&env, &file, &[], &[]);
    assert_eq!(r["plan"]["action"], "remove", "{r}");
    let m = mcp(&file);
    assert!(m.get("mempalace").is_none(), "{m}");
    assert_eq!(m["github"]["command"][0], "gh-mcp");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), original);
    assert!(!saved.exists(), "nothing of mpt is left beside the file");
    assert_eq!(wire(&env, &file, &[], &[])["plan"]["action"], "untouched");

    // A trailing comma and a comment after the last server: both kept through the round trip.
    std::fs::write(&file, ORIGINAL.replace("    \"mempalace\": {\"type\": \"local\", \"command\": [\"mempalace-mcp\"], \"enabled\": true},\n", "")).unwrap();
    assert_eq!(wire(&env, &file, &[], &edge)["plan"]["action"], "insert");
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains("/* keep me */\n  \"mempalace\""), "{text}");
    assert_eq!(wire(&env, &file, &[], &[])["plan"]["action"], "remove");
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(
        text.contains("// my opencode setup")
            && text.contains("/* keep me */")
            && !text.contains("mempalace"),
        "{text}"
    );
    assert_eq!(wire(&env, &file, &[], &[])["plan"]["action"], "untouched");

    // No opencode config at all: mpt creates it, and withdrawing removes it again.
    let fresh = env.path("fresh/opencode.json");
    assert_eq!(wire(&env, &fresh, &[], &edge)["plan"]["action"], "create");
    let r = wire(&env, &fresh, &[], &[]);
    assert_eq!(r["plan"]["action"], "delete", "{r}");
    assert!(!fresh.exists());
    assert!(!env.path("fresh/opencode.json.mpt-user-entry.json").exists());
    assert!(std::path::Path::new(r["backup"].as_str().unwrap()).exists());
}

#[test]
fn quiet_wire_prints_nothing_but_errors() {
    let env = TestEnv::new();
    let file = env.path("opencode.jsonc");
    std::fs::write(&file, ORIGINAL).unwrap();
    let args = [
        "-q",
        "edge",
        "wire",
        "opencode",
        "--config",
        file.to_str().unwrap(),
    ];
    let vars = [
        ("MEMPALACE_REMOTE_URL", "https://palace.example:8765/mcp"),
        ("MEMPALACE_EDGE", "1"),
    ];
    let o = env.mpt(&args, &vars);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!((stdout(&o), stderr(&o)), (String::new(), String::new()));
    assert_eq!(entry(&file)["command"][1], "edge", "the wiring was done");
    let o = env.mpt(&["-q", "edge", "wire", "pi"], &vars);
    assert_eq!((stdout(&o), stderr(&o)), (String::new(), String::new()));
    let o = env.mpt(&args, &[("MEMPALACE_EDGE", "yes")]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("MEMPALACE_EDGE='yes'"),
        "{}",
        stderr(&o)
    );
}
