//! `mpt runbook` on deployment files with each trap (compose, .env, .env.example, changelog,
//! crontab, unit, script) and on harness wiring (Phase 2, provenance).

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use serde_json::Value;

use crate::runbook::{runbook, state, step};
use crate::support::{TestEnv, json, stdout};

pub fn write(p: &Path, text: &str) {
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn mode(p: &Path) -> u32 {
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

/// (file name, line) of each finding.
fn at(s: &Value) -> Vec<(String, u64)> {
    s["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let file = Path::new(f["file"].as_str().unwrap());
            (
                file.file_name().unwrap().to_string_lossy().into_owned(),
                f["line"].as_u64().unwrap(),
            )
        })
        .collect()
}

fn finding<'a>(s: &'a Value, file: &str, line: u64) -> &'a Value {
    s["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["file"].as_str().unwrap().ends_with(file) && f["line"] == line)
        .unwrap_or_else(|| panic!("no finding {file}:{line} in {s}"))
}

pub const COMPOSE: &str = "services:
  palace:
    image: pi-devbox/mempalace
    command: mempalace serve --host 0.0.0.0 --port 8765 --token s3cr3t-compose
    environment:
      MEMPALACE_REMOTE_TOKEN: s3cr3t-env
    ports:
      - \"8765:8765\"
";

#[test]
fn phase0_finds_each_trap_with_file_and_line_and_never_prints_a_token() {
    let env = TestEnv::new();
    let dir = env.dir.path();
    assert!(
        std::process::Command::new("git")
            .args(["init", "-q"])
            .current_dir(dir)
            .status()
            .unwrap()
            .success()
    );
    write(&dir.join("docker-compose.yml"), COMPOSE);
    write(
        &dir.join(".env"),
        "MEMPALACE_REMOTE_TOKEN=s3cr3t-dotenv\nMEMPALACE_PI_DEVICE=lap\n",
    );
    std::fs::set_permissions(dir.join(".env"), std::fs::Permissions::from_mode(0o644)).unwrap();
    write(
        &dir.join(".env.example"),
        "# MemPalace memory (local by default)\n# Serve a shared palace with: mempalace-mcp --transport http --host 0.0.0.0 --port 8765\n# MEMPALACE_REMOTE_URL=http://mempalace.lan:8765/mcp\n# MEMPALACE_REMOTE_TOKEN=\n",
    );
    write(
        &dir.join("CHANGELOG.md"),
        "## v1.3.0\n- The HTTP transport is unauthenticated: front it with a reverse proxy.\n",
    );
    let ops = env.path("ops");
    write(
        &ops.join("palace.crontab"),
        "# nightly prune\n0 3 * * * /opt/venv/bin/mempalace sync --apply --wing code\n*/5 * * * * mempalace logstream sync\n",
    );
    write(
        &ops.join("nightly.sh"),
        "#!/bin/sh\nset -e\nmempalace --palace /srv/palace sync --apply\n",
    );
    write(
        &ops.join("palace-prune.service"),
        "[Unit]\nDescription=prune\n[Service]\nExecStart=/opt/venv/bin/mempalace sync --apply\n",
    );
    write(
        &ops.join("prune"),
        "#!/bin/sh\nexec mempalace sync --apply \"$@\"\n",
    );
    write(
        &ops.join("notes.rs"),
        "// never run mempalace sync here\nlet s = \"mempalace sync\";\n",
    );
    write(
        &ops.join("serve.sh"),
        "#!/bin/sh\nexec mempalace serve --host 172.17.0.1 --token \"$MEMPALACE_MCP_HTTP_TOKEN\"\n",
    );
    let scan = ["phase0", "--scan", ops.to_str().unwrap()];

    let (code, doc) = runbook(&env, &scan, &[]);
    assert_eq!(code, 3, "{doc}");
    let sync = step(&doc, "no-sync");
    assert_eq!(state(sync), "to_do");
    let mut places = at(sync);
    places.sort();
    assert_eq!(
        places,
        vec![
            ("nightly.sh".into(), 3),
            ("palace-prune.service".into(), 4),
            ("palace.crontab".into(), 2),
            ("prune".into(), 2)
        ],
        "a #! script without a suffix is searched; logstream sync, comments and source files are not sync: {sync}"
    );

    let cred = step(&doc, "credentials");
    assert_eq!(state(cred), "to_do");
    for (file, line) in [
        ("docker-compose.yml", 4),
        ("docker-compose.yml", 6),
        (".env", 1),
        (".env", 0),
    ] {
        finding(cred, file, line);
    }
    assert!(
        finding(cred, "serve.sh", 2)["what"]
            .as_str()
            .unwrap()
            .contains("sees it in ps"),
        "a token through a variable is still on the argv: {cred}"
    );
    assert!(
        finding(cred, ".env", 1)["what"]
            .as_str()
            .unwrap()
            .contains("0644")
    );
    assert!(
        finding(cred, ".env", 0)["what"]
            .as_str()
            .unwrap()
            .contains("not gitignored")
    );
    assert!(
        finding(cred, "docker-compose.yml", 4)["text"]
            .as_str()
            .unwrap()
            .contains("--token <redacted>")
    );
    assert!(
        cred["apply"].as_str().unwrap().contains("chmod 600"),
        "{cred}"
    );

    let docs = step(&doc, "stale-docs");
    assert_eq!(state(docs), "to_do");
    assert_eq!(
        finding(docs, ".env.example", 2)["replacement"],
        "# Serve a shared palace with: mempalace serve --host 172.17.0.1 --port 8765 --tls-cert /path/to/cert.pem --tls-key /path/to/key.pem"
    );
    assert_eq!(
        finding(docs, ".env.example", 3)["replacement"],
        "# MEMPALACE_REMOTE_URL=https://mempalace.lan:8765/mcp"
    );
    assert!(
        finding(docs, "CHANGELOG.md", 2)["replacement"]
            .as_str()
            .unwrap()
            .contains("authenticated as of mempalace 3.6.0")
    );

    let human = env.mpt(&["runbook", "phase0", "--scan", ops.to_str().unwrap()], &[]);
    let text = stdout(&human);
    assert!(
        text.contains("docker-compose.yml:4") && text.contains("palace.crontab:2"),
        "{text}"
    );
    for out in [text.as_str(), &doc.to_string()] {
        assert!(!out.contains("s3cr3t"), "a token value was printed: {out}");
    }

    // credentials: the dry run changes nothing; --yes fixes mode and gitignore; the undo reverts.
    let dotenv = dir.join(".env");
    let o = env.mpt(&["--json", "runbook", "apply", "credentials"], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let dry = json(&o);
    let actions: Vec<&str> = dry["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["action"].as_str().unwrap())
        .collect();
    assert_eq!(actions, ["chmod", "append"], "{dry}");
    // Golden: `mpt.runbook.apply/v1`'s field names, in order (scripts read them).
    assert_eq!(
        mpt_base::schema::field_names(&dry),
        [
            "step",
            "dry_run",
            "state_before",
            "state_after",
            "summary",
            "changes",
            "changes[].action",
            "changes[].path",
            "changes[].to",
            "changes[].bytes",
            "changes[].note",
            "backup",
            "verification",
            "undo",
            "schema",
        ],
        "{dry}"
    );
    assert_eq!(mode(&dotenv), 0o644);
    assert!(!dir.join(".gitignore").exists());
    let o = env.mpt(&["--json", "runbook", "apply", "credentials", "--yes"], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let done = json(&o);
    assert_eq!(done["verification"]["ok"], true, "{done}");
    assert_eq!(mode(&dotenv), 0o600);
    assert_eq!(
        std::fs::read_to_string(dir.join(".gitignore")).unwrap(),
        "/.env\n"
    );
    assert_eq!(
        done["state_after"], "to_do",
        "the literal tokens stay a person's job"
    );
    let undo = done["undo"].as_str().unwrap();
    assert!(
        std::process::Command::new("sh")
            .args(["-c", undo])
            .status()
            .unwrap()
            .success()
    );
    assert_eq!(mode(&dotenv), 0o644);
    assert!(!dir.join(".gitignore").exists());

    // Fixed by hand: each step is done and the phase exits 0.
    let o = env.mpt(&["runbook", "apply", "credentials", "--yes"], &[]);
    assert!(o.status.success());
    let o = env.mpt(&["--json", "runbook", "apply", "credentials"], &[]);
    assert_eq!(
        o.status.code(),
        Some(2),
        "only the literals are left, and they need a person: {}",
        stdout(&o)
    );
    write(
        &dir.join("docker-compose.yml"),
        "services:\n  palace:\n    environment:\n      MEMPALACE_REMOTE_TOKEN: ${MEMPALACE_REMOTE_TOKEN}\n",
    );
    write(
        &dir.join(".env.example"),
        "# MEMPALACE_REMOTE_URL=https://mempalace.lan:8765/mcp\n",
    );
    std::fs::remove_file(dir.join("CHANGELOG.md")).unwrap();
    let (_, doc) = runbook(&env, &["phase0"], &[]);
    for id in ["no-sync", "credentials", "stale-docs"] {
        assert_eq!(state(step(&doc, id)), "done", "{id}: {doc}");
    }
}

#[test]
fn phase2_and_provenance_follow_the_opt_in_per_harness() {
    let env = TestEnv::new();
    let edge_vars = [
        ("MEMPALACE_REMOTE_URL", "https://primary.example:8765/mcp"),
        ("MEMPALACE_EDGE", "1"),
    ];
    let (code, doc) = runbook(&env, &[], &[]);
    assert_eq!(code, 0, "a solitary machine has nothing open: {doc}");
    for id in ["provenance", "credentials", "kg-location"] {
        assert_eq!(state(step(&doc, id)), "not_applicable", "{id}: {doc}");
    }
    assert_eq!(
        doc["phases"],
        serde_json::json!(["phase0", "phase1", "phase2"])
    );
    assert_eq!(state(step(&doc, "r1")), "done");
    assert_eq!(state(step(&doc, "edge-wiring")), "not_applicable");
    assert_eq!(state(step(&doc, "palace-volume")), "not_applicable");

    // opencode wired to the edge statically: fine when opted in, an R1 breach when not.
    let oc = env.home().join(".config/opencode/opencode.jsonc");
    write(
        &oc,
        "{\n  // palace\n  \"mcp\": {\"mempalace\": {\"type\": \"local\", \"command\": [\"mpt\", \"edge\"],},},\n}\n",
    );
    let (code, doc) = runbook(&env, &["phase2"], &[]);
    assert_eq!(code, 3);
    let r1 = step(&doc, "r1");
    assert_eq!(state(r1), "to_do");
    assert!(
        r1["findings"][0]["file"]
            .as_str()
            .unwrap()
            .ends_with("opencode.jsonc"),
        "{r1}"
    );
    let wiring = step(&doc, "edge-wiring");
    assert_eq!(state(wiring), "to_do");
    assert_eq!(
        wiring["findings"][0]["replacement"],
        "mpt edge wire opencode"
    );
    let (_, doc) = runbook(&env, &["phase2"], &edge_vars);
    assert_eq!(state(step(&doc, "r1")), "done", "{doc}");
    assert_eq!(state(step(&doc, "edge-wiring")), "done", "{doc}");

    // Edge mode needs the palace on a persisted filesystem.
    let shm = tempfile::Builder::new()
        .prefix("mpt-runbook-")
        .tempdir_in("/dev/shm")
        .unwrap();
    let on_shm = shm.path().join("palace");
    let (_, doc) = runbook(
        &env,
        &["phase2", "--palace", on_shm.to_str().unwrap()],
        &edge_vars,
    );
    let vol = step(&doc, "palace-volume");
    assert_eq!(state(vol), "to_do");
    assert!(vol["summary"].as_str().unwrap().contains("tmpfs"), "{vol}");
    let on_disk = env.palace("local");
    let (_, doc) = runbook(
        &env,
        &["phase2", "--palace", on_disk.to_str().unwrap()],
        &edge_vars,
    );
    assert_eq!(state(step(&doc, "palace-volume")), "done", "{doc}");
    std::fs::remove_file(&oc).unwrap();

    // A running `mpt edge` started without the opt-in, and a mempalace-mcp shim that is mpt.
    let fake = env.path("bin/mpt");
    write(&fake, "#!/bin/sh\nsleep 60\n");
    let edge = env.spawn(Path::new("/bin/sh"), &[fake.to_str().unwrap(), "edge"], &[]);
    let seen = crate::support::wait_for(5.0, || {
        let (_, doc) = runbook(&env, &["phase2"], &[]);
        step(&doc, "r1")["summary"]
            .as_str()
            .unwrap()
            .contains("edge path")
    });
    assert!(seen, "the unopted edge process is found");
    let (_, doc) = runbook(&env, &["phase2"], &[]);
    assert!(
        step(&doc, "r1")["findings"]
            .to_string()
            .contains(&format!("pid {}", edge.pid())),
        "{doc}"
    );
    drop(edge);
    let shim_dir = env.path("shim");
    std::fs::create_dir_all(&shim_dir).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_mpt"), shim_dir.join("mempalace-mcp")).unwrap();
    let path = format!("{}:/usr/bin:/bin", shim_dir.display());
    let (_, doc) = runbook(&env, &["phase2"], &[("PATH", &path)]);
    let r1 = step(&doc, "r1");
    assert_eq!(state(r1), "to_do", "{r1}");
    assert!(
        r1["findings"][0]["what"]
            .as_str()
            .unwrap()
            .contains("is mpt"),
        "{r1}"
    );

    // Provenance: pi's deployed extension stamps only with the token in it and a device name.
    let ext = env.home().join(".pi/agent/extensions/mempalace.ts");
    write(&ext, "const feed = process.env.MEMPALACE_FEED;\n");
    let (_, doc) = runbook(&env, &["phase0"], &[("MEMPALACE_PI_DEVICE", "lap")]);
    let prov = step(&doc, "provenance");
    assert_eq!(state(prov), "to_do");
    assert!(
        prov["summary"].as_str().unwrap().contains("cannot stamp"),
        "{prov}"
    );
    write(&ext, "const dev = process.env.MEMPALACE_PI_DEVICE;\n");
    let (_, doc) = runbook(&env, &["phase0"], &[]);
    let prov = step(&doc, "provenance");
    assert_eq!(state(prov), "to_do");
    assert!(
        prov["summary"]
            .as_str()
            .unwrap()
            .contains("MEMPALACE_PI_DEVICE is not set"),
        "{prov}"
    );
    write(&env.path(".env"), "MEMPALACE_PI_DEVICE=lap\n");
    let (_, doc) = runbook(&env, &["phase0"], &[]);
    let prov = step(&doc, "provenance");
    assert_eq!(state(prov), "done", "{prov}");
    assert!(
        prov["evidence"][0].as_str().unwrap().contains(".env:1"),
        "{prov}"
    );
}

#[test]
fn credentials_sees_the_token_file_mpt_token_file_names_and_apply_makes_it_0600() {
    let env = TestEnv::new();
    let token = env.home().join(".config/mpt/token");
    write(&token, "tok-runbook-file-7c2e-never-print\n");
    std::fs::set_permissions(&token, std::fs::Permissions::from_mode(0o644)).unwrap();
    let shown = token.to_str().unwrap();
    let vars = [
        ("MPT_TOKEN_FILE", shown),
        ("MEMPALACE_REMOTE_URL", "https://primary.example:8765/mcp"),
    ];
    // Every remote command refuses that file, and doctor fails it: the runbook must not say
    // "no token is configured".
    let o = env.mpt(&["--json", "outbox", "flush"], &vars);
    assert_eq!(o.status.code(), Some(4), "{}", stdout(&o));
    let (code, doc) = runbook(&env, &["phase0"], &vars);
    let cred = step(&doc, "credentials");
    assert_eq!((code, state(cred)), (3, "to_do"), "{cred}");
    assert_eq!(at(cred), [("token".to_string(), 0)], "{cred}");
    let f = finding(cred, "mpt/token", 0);
    assert!(
        f["what"].as_str().unwrap().contains("MPT_TOKEN_FILE")
            && f["what"].as_str().unwrap().contains("0644"),
        "{f}"
    );
    assert_eq!(f["replacement"], format!("chmod 600 {shown}"));

    let o = env.mpt(&["--json", "runbook", "apply", "credentials"], &vars);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert_eq!(mode(&token), 0o644, "a dry run changes nothing");
    let o = env.mpt(
        &["--json", "runbook", "apply", "credentials", "--yes"],
        &vars,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let done = json(&o);
    assert_eq!(done["verification"]["ok"], true, "{done}");
    assert_eq!(done["state_after"], "done", "{done}");
    assert_eq!(mode(&token), 0o600);
    assert!(!done.to_string().contains("tok-runbook-file"), "{done}");
    let (_, doc) = runbook(&env, &["phase0"], &vars);
    let cred = step(&doc, "credentials");
    assert_eq!(state(cred), "done", "{cred}");
    assert!(
        cred["evidence"].to_string().contains("(MPT_TOKEN_FILE)"),
        "{cred}"
    );
}

#[test]
fn edge_wiring_covers_claude_codes_user_entry_and_the_local_ones_that_shadow_it() {
    let env = TestEnv::new();
    let edge_vars = [
        ("MEMPALACE_REMOTE_URL", "https://primary.example:8765/mcp"),
        ("MEMPALACE_EDGE", "1"),
    ];
    // What `claude mcp add mempalace -- mempalace-mcp` leaves in a folder: a local entry only.
    let state_file = env.home().join(".claude.json");
    std::fs::write(
        &state_file,
        r#"{"projects": {"/src/app": {"mcpServers": {"mempalace": {"type": "stdio", "command": "mempalace-mcp", "args": []}}}}}"#,
    )
    .unwrap();
    let (_, doc) = runbook(&env, &["phase2"], &[]);
    assert_eq!(state(step(&doc, "edge-wiring")), "done", "R1: {doc}");
    let (code, doc) = runbook(&env, &["phase2"], &edge_vars);
    assert_eq!(code, 3, "{doc}");
    let wiring = step(&doc, "edge-wiring");
    assert_eq!(state(wiring), "to_do");
    let fixes: Vec<&str> = wiring["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["replacement"].as_str().unwrap())
        .collect();
    assert_eq!(
        fixes,
        ["mpt edge wire claude", "mpt edge wire claude --all-scopes"],
        "{wiring}"
    );
    assert!(
        wiring["evidence"]
            .to_string()
            .contains("local scope of /src/app"),
        "{wiring}"
    );
    // The replacement the step names fixes it.
    let o = env.mpt(&["edge", "wire", "claude", "--all-scopes"], &edge_vars);
    assert!(o.status.success(), "{}", crate::support::stderr(&o));
    let (_, doc) = runbook(&env, &["phase2"], &edge_vars);
    assert_eq!(state(step(&doc, "edge-wiring")), "done", "{doc}");
}

#[test]
fn edge_wiring_covers_codex_and_its_replacement_fixes_it() {
    let env = TestEnv::new();
    let edge_vars = [
        ("MEMPALACE_REMOTE_URL", "https://primary.example:8765/mcp"),
        ("MEMPALACE_EDGE", "1"),
    ];
    let config = env.home().join(".codex/config.toml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(
        &config,
        "# mine\n[mcp_servers.mempalace]\ncommand = \"mempalace-mcp\"\n",
    )
    .unwrap();
    let (_, doc) = runbook(&env, &["phase2"], &[]);
    assert_eq!(state(step(&doc, "edge-wiring")), "done", "R1: {doc}");
    let (code, doc) = runbook(&env, &["phase2"], &edge_vars);
    assert_eq!(code, 3, "{doc}");
    let wiring = step(&doc, "edge-wiring");
    assert_eq!(state(wiring), "to_do");
    assert_eq!(
        wiring["findings"][0]["replacement"], "mpt edge wire codex",
        "{wiring}"
    );
    let o = env.mpt(&["edge", "wire", "codex"], &edge_vars);
    assert!(o.status.success(), "{}", crate::support::stderr(&o));
    let (_, doc) = runbook(&env, &["phase2"], &edge_vars);
    assert_eq!(state(step(&doc, "edge-wiring")), "done", "{doc}");
    // Withdrawn: the edge entry left behind is R1's business, and wire puts the user's back.
    let (_, doc) = runbook(&env, &["phase2"], &[]);
    assert_eq!(state(step(&doc, "edge-wiring")), "to_do", "{doc}");
    let o = env.mpt(&["edge", "wire", "codex"], &[]);
    assert!(o.status.success(), "{}", crate::support::stderr(&o));
    assert_eq!(
        std::fs::read_to_string(&config).unwrap(),
        "# mine\n[mcp_servers.mempalace]\ncommand = \"mempalace-mcp\"\n"
    );
}

#[test]
fn provenance_names_claude_code_and_codex_and_the_wire_it_names_makes_them_stamp() {
    let env = TestEnv::new();
    let edge_vars = [
        ("MEMPALACE_REMOTE_URL", "https://primary.example:8765/mcp"),
        ("MEMPALACE_EDGE", "1"),
        ("MEMPALACE_PI_DEVICE", "lap"),
    ];
    std::fs::write(
        env.home().join(".claude.json"),
        r#"{"mcpServers": {"mempalace": {"type": "stdio", "command": "mempalace-mcp", "args": []}}}"#,
    )
    .unwrap();
    let config = env.home().join(".codex/config.toml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(
        &config,
        "[mcp_servers.mempalace]\ncommand = \"mempalace-mcp\"\n",
    )
    .unwrap();
    let (_, doc) = runbook(&env, &["phase0"], &edge_vars);
    let prov = step(&doc, "provenance");
    assert_eq!(state(prov), "to_do", "{prov}");
    let evidence = prov["evidence"].to_string();
    for fix in ["`mpt edge wire claude`", "`mpt edge wire codex`"] {
        assert!(evidence.contains(fix), "{fix}: {prov}");
    }
    for harness in ["claude", "codex"] {
        let o = env.mpt(&["edge", "wire", harness], &edge_vars);
        assert!(o.status.success(), "{}", crate::support::stderr(&o));
    }
    let (_, doc) = runbook(&env, &["phase0"], &edge_vars);
    let prov = step(&doc, "provenance");
    assert_eq!(state(prov), "done", "{prov}");
    let evidence = prov["evidence"].to_string();
    assert!(
        evidence.contains("claude: its entry runs `mpt edge`")
            && evidence.contains("codex: its entry runs `mpt edge`"),
        "{prov}"
    );
}
