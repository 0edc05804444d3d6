//! `mpt doctor`: each check made to pass AND to fail on real files, real processes and a real
//! MemPalace (child and primary), read through `--json` (`mpt.doctor/v1`).

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use mpt_mcp::Deadline;
use serde_json::{Value, json};

use crate::support::primary::PrimaryOpts;
use crate::support::{Primary, TestEnv, json, stderr, stdout, venv_bin};

/// Runs one check; returns (exit code, the check's JSON).
fn doctor(env: &TestEnv, id: &str, vars: &[(&str, &str)]) -> (i32, Value) {
    let o = env.mpt(&["--json", "doctor", "--check", id], vars);
    let v = json(&o);
    assert_eq!(v["schema"], "mpt.doctor/v1");
    let checks = v["checks"].as_array().unwrap();
    assert_eq!(checks.len(), 1, "{}", stderr(&o));
    (o.status.code().unwrap(), checks[0].clone())
}

fn status(c: &Value) -> &str {
    c["status"].as_str().unwrap()
}

#[test]
fn extension_version_gate_reads_the_deployed_copy() {
    let env = TestEnv::new();
    let (code, c) = doctor(&env, "extension", &[]);
    assert_eq!((code, status(&c)), (0, "skip"), "no pi at all: {c}");

    // A baked copy elsewhere, linked into place (as a devbox image does).
    let baked = env.path("opt/pi-toolkit/mempalace.ts");
    std::fs::create_dir_all(baked.parent().unwrap()).unwrap();
    let ext_dir = env.home().join(".pi/agent/extensions");
    std::fs::create_dir_all(&ext_dir).unwrap();
    std::os::unix::fs::symlink(&baked, ext_dir.join("mempalace.ts")).unwrap();
    std::fs::write(&baked, "const feed = process.env.MEMPALACE_FEED;\nconst dev = process.env.MEMPALACE_PI_DEVICE;\nconst mb = process.env.MEMPALACE_MAILBOX;\n").unwrap();
    let (code, c) = doctor(&env, "extension", &[]);
    assert_eq!((code, status(&c)), (0, "ok"), "{c}");
    assert!(
        c["evidence"][0]
            .as_str()
            .unwrap()
            .contains("opt/pi-toolkit/mempalace.ts"),
        "the resolved path: {c}"
    );

    // An image older than the feeding commit: the variables may be set, the code is absent.
    std::fs::write(
        &baked,
        "const dev = process.env.MEMPALACE_PI_DEVICE;\nconst mb = process.env.MEMPALACE_MAILBOX;\n",
    )
    .unwrap();
    let (code, c) = doctor(&env, "extension", &[("MEMPALACE_FEED", "1")]);
    assert_eq!((code, status(&c)), (3, "fail"), "{c}");
    assert!(
        c["summary"]
            .as_str()
            .unwrap()
            .contains("transcript feeding")
    );
    assert!(c["fix"].as_str().unwrap().contains("mpt feed"), "{c}");
}

fn write_config(env: &TestEnv, body: Value) -> String {
    let p = env.path("mpt-config.json");
    std::fs::write(&p, body.to_string()).unwrap();
    p.display().to_string()
}

#[test]
fn transport_local_probe_reports_the_palace_and_fails_without_a_binary() {
    let env = TestEnv::new();
    let palace = env.palace("local");
    env.call_local(
        &palace,
        "add_drawer",
        r#"{"wing":"w","room":"r","content":"doctor probes me"}"#,
    );
    let cfg = write_config(&env, json!({"palace": palace}));
    let (code, c) = doctor(&env, "transport", &[("MPT_CONFIG", &cfg)]);
    assert_eq!((code, status(&c)), (0, "ok"), "{c}");
    let s = c["summary"].as_str().unwrap();
    assert!(
        s.contains(palace.to_str().unwrap()) && s.contains("1 drawers"),
        "{s}"
    );

    let empty = write_config(&env, json!({"palace": env.palace("empty")}));
    let (_, c) = doctor(&env, "transport", &[("MPT_CONFIG", &empty)]);
    assert_eq!(status(&c), "warn", "no palace yet: {c}");

    let missing = write_config(
        &env,
        json!({"palace": palace, "child": "/nonexistent/mempalace-mcp"}),
    );
    let (code, c) = doctor(&env, "transport", &[("MPT_CONFIG", &missing)]);
    assert_eq!((code, status(&c)), (3, "fail"), "{c}");
    assert!(c["fix"].as_str().unwrap().contains("pip install mempalace"));
}

#[test]
fn a_check_that_needs_the_configuration_fails_when_it_does_not_load() {
    // A URL missing its scheme: `--check transport` used to say "not checked" and exit 0.
    let env = TestEnv::new();
    for url in ["palace.example:8765/mcp", "127.0.0.1:8765/mcp"] {
        let vars = [("MEMPALACE_REMOTE_URL", url)];
        for id in ["transport", "outbox", "embedder", "kg-path", "writers"] {
            let (code, c) = doctor(&env, id, &vars);
            assert_eq!((code, status(&c)), (3, "fail"), "{id} with {url}: {c}");
            let summary = c["summary"].as_str().unwrap();
            assert!(summary.contains("MEMPALACE_REMOTE_URL"), "{id}: {c}");
            assert!(c["fix"].as_str().unwrap().contains("https://"), "{id}: {c}");
        }
        let o = env.mpt(&["doctor", "--check", "transport"], &vars);
        assert_eq!(o.status.code(), Some(3), "{}", stdout(&o));
        assert!(stdout(&o).contains("no scheme"), "{}", stdout(&o));
    }
    // A check that reads only the environment still runs.
    let (code, c) = doctor(&env, "half-flip", &[("MEMPALACE_REMOTE_URL", "x:1/mcp")]);
    assert_ne!(status(&c), "fail", "{c}");
    assert_eq!(code, 0);
}

#[test]
fn transport_remote_probe_names_each_failure_layer() {
    let env = TestEnv::new();
    let p = Primary::start(
        &env,
        &env.palace("primary"),
        PrimaryOpts {
            token: Some("doc-token"),
            ..Default::default()
        },
    );
    let url = p.url();
    let (_, c) = doctor(
        &env,
        "transport",
        &[
            ("MEMPALACE_REMOTE_URL", &url),
            ("MEMPALACE_REMOTE_TOKEN", "doc-token"),
        ],
    );
    assert_eq!(
        status(&c),
        "ok",
        "a primary with no palace yet, a device with none: {c}"
    );
    assert!(
        c["summary"].as_str().unwrap().contains("a new fleet"),
        "{c}"
    );
    let filed = env.mpt(
        &[
            "call",
            "add_drawer",
            r#"{"wing":"w","room":"r","content":"on the primary"}"#,
        ],
        &[
            ("MEMPALACE_REMOTE_URL", &url),
            ("MEMPALACE_REMOTE_TOKEN", "doc-token"),
        ],
    );
    assert!(filed.status.success(), "{}", stderr(&filed));
    let (code, c) = doctor(
        &env,
        "transport",
        &[
            ("MEMPALACE_REMOTE_URL", &url),
            ("MEMPALACE_REMOTE_TOKEN", "doc-token"),
        ],
    );
    assert_eq!((code, status(&c)), (0, "ok"), "{c}");
    assert!(c["summary"].as_str().unwrap().contains("1 drawers"), "{c}");
    assert!(
        c["evidence"]
            .to_string()
            .contains("statusz: version 3.11.0"),
        "{c}"
    );

    let (_, c) = doctor(
        &env,
        "transport",
        &[
            ("MEMPALACE_REMOTE_URL", &url),
            ("MEMPALACE_REMOTE_TOKEN", "wrong"),
        ],
    );
    assert_eq!(status(&c), "fail");
    assert!(
        c["summary"].as_str().unwrap().contains("401")
            && c["fix"]
                .as_str()
                .unwrap()
                .contains("MEMPALACE_REMOTE_TOKEN"),
        "{c}"
    );
    assert!(!c.to_string().contains("doc-token"));

    let (_, c) = doctor(
        &env,
        "transport",
        &[
            ("MEMPALACE_REMOTE_URL", &format!("{url}/")),
            ("MEMPALACE_REMOTE_TOKEN", "doc-token"),
        ],
    );
    assert_eq!(status(&c), "fail");
    assert!(c["fix"].as_str().unwrap().contains("/mcp"), "{c}");

    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let dead = format!("http://127.0.0.1:{}/mcp", l.local_addr().unwrap().port());
    drop(l);
    let (_, c) = doctor(&env, "transport", &[("MEMPALACE_REMOTE_URL", &dead)]);
    assert_eq!(status(&c), "fail");
    assert!(c["summary"].as_str().unwrap().contains("refused"), "{c}");
}

fn fake_harness(env: &TestEnv, name: &str) -> std::path::PathBuf {
    let bin = env.path("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let path = bin.join(name);
    crate::support::write_script(
        &path,
        "#!/bin/sh\n# a stand-in harness: keeps its environment, optionally starts a local child\nif [ -n \"$START_CHILD\" ]; then sleep 60 | \"$START_CHILD\" --palace \"$CHILD_PALACE\" & fi\nsleep 60\n",
    );
    path
}

/// Waits until `spawned` runs `script` (its /proc cmdline names it): before its exec, /proc shows
/// the test binary, which no scan should take for a harness.
fn wait_for_exec(spawned: &crate::support::Spawned, script: &Path) {
    let cmdline = format!("/proc/{}/cmdline", spawned.pid());
    let script = script.to_str().unwrap();
    assert!(
        crate::support::wait_for(30.0, || std::fs::read(&cmdline)
            .is_ok_and(|c| c.split(|b| *b == 0).any(|a| a == script.as_bytes()))),
        "{script} started"
    );
}

/// The `config` check's finding lines that name opencode's entry.
fn entry_findings(c: &Value) -> Vec<String> {
    c["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|f| f["what"].as_str())
        .filter(|l| l.contains("opencode's entry"))
        .map(str::to_string)
        .collect()
}

#[test]
fn config_checks_that_opencodes_remote_entry_can_authenticate() {
    let env = TestEnv::new();
    let secret = "tok-opencode-ref-51c9-never-print";
    let token = env.home().join(".config/mpt/token");
    std::fs::create_dir_all(token.parent().unwrap()).unwrap();
    std::fs::write(&token, format!("{secret}\n")).unwrap();
    std::fs::set_permissions(&token, std::fs::Permissions::from_mode(0o600)).unwrap();
    let oc_dir = env.home().join(".config/opencode");
    std::fs::create_dir_all(&oc_dir).unwrap();
    let oc = oc_dir.join("opencode.json");
    let url = "https://primary.example:8765/mcp";
    let vars = [
        ("MEMPALACE_REMOTE_URL", url),
        ("MPT_TOKEN_FILE", token.to_str().unwrap()),
        ("MEMPALACE_PI_DEVICE", "lap"),
        ("MEMPALACE_FEED", "0"),
    ];
    let o = env.mpt(&["--json", "edge", "wire", "opencode"], &vars);
    assert!(o.status.success(), "{}", stdout(&o));
    let written: Value = serde_json::from_str(&std::fs::read_to_string(&oc).unwrap()).unwrap();
    assert_eq!(
        written["mcp"]["mempalace"]["headers"]["Authorization"],
        format!("Bearer {{file:{}}}", token.display()),
        "a token from a file is referenced by its absolute path"
    );
    let (code, c) = doctor(&env, "config", &vars);
    assert_eq!((code, status(&c)), (0, "ok"), "{c}");

    let with_header = |h: &str| {
        let mut v = written.clone();
        v["mcp"]["mempalace"]["headers"]["Authorization"] = json!(h);
        std::fs::write(&oc, v.to_string()).unwrap();
    };
    let fails = |what: &str| {
        let (code, c) = doctor(&env, "config", &vars);
        assert_eq!((code, status(&c)), (3, "fail"), "{what}: {c}");
        let found = entry_findings(&c);
        assert!(found.iter().any(|l| l.contains(what)), "{what}: {c}");
        assert!(
            !c.to_string().contains(secret),
            "the token was printed: {c}"
        );
        c
    };
    // The env reference with the token only in the file: opencode's "needs authentication".
    with_header("Bearer {env:MEMPALACE_REMOTE_TOKEN}");
    let c = fails("which is unset");
    assert!(c["fix"].as_str().unwrap().contains("{file:"), "{c}");
    // A file that is not there breaks opencode's whole config.
    let missing = env.path("gone/token");
    with_header(&format!("Bearer {{file:{}}}", missing.display()));
    fails("bad file reference");
    // Readable by others, empty, or another token.
    let other = env.path("other-token");
    std::fs::write(&other, "tok-someone-else\n").unwrap();
    std::fs::set_permissions(&other, std::fs::Permissions::from_mode(0o644)).unwrap();
    with_header(&format!("Bearer {{file:{}}}", other.display()));
    fails("mode 0644");
    std::fs::set_permissions(&other, std::fs::Permissions::from_mode(0o600)).unwrap();
    fails("not the token mpt uses");
    std::fs::write(&other, "\n").unwrap();
    fails("is empty");
    // Relative to opencode's own config folder, as opencode resolves it.
    std::fs::write(oc_dir.join("tok"), format!("{secret}\n")).unwrap();
    std::fs::set_permissions(oc_dir.join("tok"), std::fs::Permissions::from_mode(0o600)).unwrap();
    with_header("Bearer {file:tok}");
    let (code, c) = doctor(&env, "config", &vars);
    assert_eq!((code, status(&c)), (0, "ok"), "{c}");

    // {env:X} is judged in each running opencode's own environment, else this shell's.
    with_header("Bearer {env:MEMPALACE_REMOTE_TOKEN}");
    let shell = [&vars[..], &[("MEMPALACE_REMOTE_TOKEN", secret)]].concat();
    let (code, c) = doctor(&env, "config", &shell);
    assert_eq!((code, status(&c)), (0, "ok"), "{c}");
    let opencode = fake_harness(&env, "opencode");
    let running = env.spawn(Path::new("/bin/sh"), &[opencode.to_str().unwrap()], &[]);
    wait_for_exec(&running, &opencode);
    let (code, c) = doctor(&env, "config", &shell);
    assert_eq!((code, status(&c)), (3, "fail"), "{c}");
    let found = entry_findings(&c).join("\n");
    assert!(
        found.contains(&format!("opencode pid {}", running.pid())),
        "{c}"
    );
    drop(running);
    let started = env.spawn(
        Path::new("/bin/sh"),
        &[opencode.to_str().unwrap()],
        &[("MEMPALACE_REMOTE_TOKEN", "tok-stale")],
    );
    wait_for_exec(&started, &opencode);
    let (code, c) = doctor(&env, "config", &shell);
    assert_eq!((code, status(&c)), (3, "fail"), "{c}");
    assert!(
        entry_findings(&c)
            .join("\n")
            .contains("not the token mpt uses"),
        "{c}"
    );
    assert!(!c.to_string().contains("tok-stale"), "{c}");
}

#[test]
fn half_flip_finds_a_harness_started_without_the_url() {
    let env = TestEnv::new();
    let pi = fake_harness(&env, "pi");
    let url = "https://primary.example:8765/mcp";
    let (_, c) = doctor(&env, "half-flip", &[("MEMPALACE_REMOTE_URL", url)]);
    assert_eq!(status(&c), "ok", "no harness running: {c}");

    let flipped = env.spawn(
        Path::new("/bin/sh"),
        &[pi.to_str().unwrap()],
        &[("MEMPALACE_REMOTE_URL", url)],
    );
    wait_for_exec(&flipped, &pi);
    let (code, c) = doctor(&env, "half-flip", &[("MEMPALACE_REMOTE_URL", url)]);
    assert_eq!((code, status(&c)), (0, "ok"), "{c}");
    assert!(
        c["evidence"][0]
            .as_str()
            .unwrap()
            .starts_with(&format!("pid {} (pi)", flipped.pid())),
        "the harness was seen: {c}"
    );
    drop(flipped);

    let stale = env.spawn(Path::new("/bin/sh"), &[pi.to_str().unwrap()], &[]);
    wait_for_exec(&stale, &pi);
    let (code, c) = doctor(&env, "half-flip", &[("MEMPALACE_REMOTE_URL", url)]);
    assert_eq!((code, status(&c)), (3, "fail"), "{c}");
    assert!(
        c["summary"]
            .as_str()
            .unwrap()
            .contains(&format!("pid {}", stale.pid())),
        "{c}"
    );
    assert!(
        c["fix"]
            .as_str()
            .unwrap()
            .contains("exports MEMPALACE_REMOTE_URL")
    );
    drop(stale);

    // A harness that exported the URL but still runs a local mempalace-mcp child.
    let child = venv_bin("mempalace-mcp");
    let palace = env.palace("local");
    let with_child = env.spawn(
        Path::new("/bin/sh"),
        &[pi.to_str().unwrap()],
        &[
            ("MEMPALACE_REMOTE_URL", url),
            ("START_CHILD", child.to_str().unwrap()),
            ("CHILD_PALACE", palace.to_str().unwrap()),
        ],
    );
    let found = crate::support::wait_for(10.0, || {
        let (_, c) = doctor(&env, "half-flip", &[("MEMPALACE_REMOTE_URL", url)]);
        status(&c) == "fail" && c["summary"].as_str().unwrap().contains("mempalace-mcp")
    });
    assert!(found, "the local child under a flipped harness is found");
    drop(with_child);
}

#[test]
fn false_positive_machine_warns_about_a_frozen_archive() {
    let env = TestEnv::new();
    let palace = env.palace("local");
    let cfg = write_config(&env, json!({"palace": palace}));
    let url = "https://primary.example:8765/mcp";
    let (_, c) = doctor(
        &env,
        "false-positive",
        &[("MPT_CONFIG", &cfg), ("MEMPALACE_REMOTE_URL", url)],
    );
    assert_eq!(status(&c), "ok", "no local drawers: {c}");
    env.call_local(
        &palace,
        "add_drawer",
        r#"{"wing":"w","room":"r","content":"written before the flip"}"#,
    );
    env.call_local(
        &palace,
        "add_drawer",
        r#"{"wing":"w","room":"r","content":"also before the flip"}"#,
    );
    let (code, c) = doctor(
        &env,
        "false-positive",
        &[("MPT_CONFIG", &cfg), ("MEMPALACE_REMOTE_URL", url)],
    );
    assert_eq!((code, status(&c)), (0, "warn"), "{c}");
    assert!(c["summary"].as_str().unwrap().contains("2 drawers"), "{c}");
    let (_, c) = doctor(&env, "false-positive", &[("MPT_CONFIG", &cfg)]);
    assert_eq!(status(&c), "skip", "solitary machine");
}

#[test]
fn false_positive_never_calls_the_edge_palace_an_archive() {
    // Under the edge the local palace takes the offline writes and holds what is not flushed:
    // advice to archive or remove it would lose them.
    let env = TestEnv::new();
    let palace = env.palace("local");
    let cfg = write_config(&env, json!({"palace": palace}));
    env.call_local(
        &palace,
        "add_drawer",
        r#"{"wing":"w","room":"r","content":"written offline through the edge"}"#,
    );
    let vars = [
        ("MPT_CONFIG", cfg.as_str()),
        ("MEMPALACE_REMOTE_URL", "https://primary.example:8765/mcp"),
        ("MEMPALACE_EDGE", "1"),
    ];
    let (code, c) = doctor(&env, "false-positive", &vars);
    assert_eq!((code, status(&c)), (0, "ok"), "{c}");
    let text = format!("{} {} {}", c["summary"], c["evidence"], c["fix"]);
    assert!(c["summary"].as_str().unwrap().contains("live"), "{c}");
    for bad in ["remove", "frozen", "archive the"] {
        assert!(!text.contains(bad), "no advice to {bad:?}: {c}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kg_path_fails_on_a_split_built_by_the_real_server() {
    let env = TestEnv::new();
    let palace = env.palace("local");
    let cfg = write_config(&env, json!({"palace": palace}));
    let run = |vars: Vec<(&'static str, String)>| {
        let v: Vec<(&str, &str)> = vars.iter().map(|(k, s)| (*k, s.as_str())).collect();
        doctor(&env, "kg-path", &v)
    };
    let (_, c) = run(vec![("MPT_CONFIG", cfg.clone())]);
    assert_eq!(status(&c), "ok", "{c}");

    // A child started WITHOUT --palace (an older extension) files its triple under HOME.
    let bare = env.bare_child(&palace);
    bare.call_tool(
        "mempalace_kg_add",
        json!({"subject": "alice", "predicate": "owns", "object": "laptop"}),
        Deadline::Default,
    )
    .await
    .unwrap();
    bare.shutdown().await;
    let (code, c) = run(vec![("MPT_CONFIG", cfg.clone())]);
    assert_eq!((code, status(&c)), (3, "fail"), "stranded: {c}");
    assert!(c["summary"].as_str().unwrap().contains("1 triples"), "{c}");
    assert!(c["fix"].as_str().unwrap().contains("mpt runbook"));

    // A --palace process (as serve and mpt always are) adds one palace-local: now split.
    env.call_local(
        &palace,
        "kg_add",
        r#"{"subject":"bob","predicate":"owns","object":"desktop"}"#,
    );
    let (code, c) = run(vec![("MPT_CONFIG", cfg.clone())]);
    assert_eq!((code, status(&c)), (3, "fail"), "{c}");
    assert!(
        c["summary"]
            .as_str()
            .unwrap()
            .starts_with("two knowledge graphs: 1 palace-local and 1 under HOME"),
        "{c}"
    );
}

#[test]
fn config_check_finds_what_silently_disables_a_feature() {
    let env = TestEnv::new();
    let url = "https://primary.example:8765/mcp";
    let (code, c) = doctor(&env, "config", &[]);
    assert_eq!((code, status(&c)), (0, "ok"), "{c}");

    let (_, c) = doctor(
        &env,
        "config",
        &[
            ("MEMPALACE_REMOTE_URL", url),
            ("MEMPALACE_PI_SSH_TARGET", "me@host"),
        ],
    );
    assert_eq!(status(&c), "warn");
    assert!(
        c["summary"]
            .as_str()
            .unwrap()
            .contains("MEMPALACE_PI_DEVICE"),
        "{c}"
    );

    let device = [
        ("MEMPALACE_REMOTE_URL", url),
        ("MEMPALACE_PI_DEVICE", "lap"),
    ];
    let (code, c) = doctor(&env, "config", &device);
    assert_eq!(
        (code, status(&c)),
        (0, "ok"),
        "no pi here: nothing to feed {c}"
    );
    std::fs::create_dir_all(env.home().join(".pi/agent")).unwrap();
    let (_, c) = doctor(&env, "config", &device);
    assert_eq!(status(&c), "warn");
    assert!(
        c["summary"]
            .as_str()
            .unwrap()
            .contains("MEMPALACE_PI_SSH_TARGET"),
        "{c}"
    );

    let (code, c) = doctor(
        &env,
        "config",
        &[("MEMPALACE_FEED_MINE_TIMEOUT_MS", "5min")],
    );
    assert_eq!((code, status(&c)), (3, "fail"), "{c}");
    let (code, c) = doctor(&env, "config", &[("MEMPALACE_MAILBOX_NOTIFY", "tmux")]);
    assert_eq!((code, status(&c)), (3, "fail"), "{c}");
    assert!(
        c["summary"].as_str().unwrap().contains("\"tmux\"")
            && c["fix"].as_str().unwrap().contains("desktop-tmux"),
        "{c}"
    );

    let tf = env.path("token");
    std::fs::write(&tf, "t0ken").unwrap();
    std::fs::set_permissions(&tf, std::fs::Permissions::from_mode(0o640)).unwrap();
    let (_, c) = doctor(
        &env,
        "config",
        &[
            ("MEMPALACE_REMOTE_URL", url),
            ("MPT_TOKEN_FILE", tf.to_str().unwrap()),
        ],
    );
    assert_eq!(status(&c), "fail");
    assert!(c["fix"].as_str().unwrap().contains("chmod 600"), "{c}");

    std::fs::write(
        env.path("docker-compose.yml"),
        "services:\n  palace:\n    environment:\n      MEMPALACE_MCP_HTTP_TOKEN: s3cr3t-literal\n",
    )
    .unwrap();
    let (_, c) = doctor(&env, "config", &[]);
    assert_eq!(status(&c), "fail");
    assert!(
        c["summary"]
            .as_str()
            .unwrap()
            .contains("docker-compose.yml:4"),
        "{c}"
    );
    std::fs::remove_file(env.path("docker-compose.yml")).unwrap();

    // Edge mode with the palace on tmpfs: un-flushed writes die with the container.
    let shm = tempfile::Builder::new()
        .prefix("mpt-doctor-")
        .tempdir_in("/dev/shm")
        .unwrap();
    let cfg = write_config(&env, json!({"palace": shm.path().join("palace")}));
    let (_, c) = doctor(
        &env,
        "config",
        &[
            ("MPT_CONFIG", &cfg),
            ("MEMPALACE_REMOTE_URL", url),
            ("MEMPALACE_PI_DEVICE", "lap"),
            ("MEMPALACE_PI_SSH_TARGET", "me@h"),
            ("MEMPALACE_EDGE", "1"),
        ],
    );
    assert_eq!(status(&c), "fail", "{c}");
    assert!(c["summary"].as_str().unwrap().contains("tmpfs"), "{c}");

    // opencode registers the local child while this machine opted into the edge.
    let oc = env.home().join(".config/opencode");
    std::fs::create_dir_all(&oc).unwrap();
    std::fs::write(oc.join("opencode.jsonc"), "{\n  // palace\n  \"mcp\": {\"mempalace\": {\"type\": \"local\", \"command\": [\"mempalace-mcp\"],},},\n}\n").unwrap();
    let (_, c) = doctor(&env, "config", &[]);
    assert_eq!(
        status(&c),
        "ok",
        "local entry on a solitary machine agrees: {c}"
    );
    let (_, c) = doctor(
        &env,
        "config",
        &[
            ("MEMPALACE_REMOTE_URL", url),
            ("MEMPALACE_PI_DEVICE", "lap"),
            ("MEMPALACE_PI_SSH_TARGET", "me@h"),
            ("MEMPALACE_EDGE", "1"),
        ],
    );
    assert_eq!(status(&c), "warn", "{c}");
    assert!(
        c["fix"]
            .as_str()
            .unwrap()
            .contains("mpt edge wire opencode")
    );
}

#[test]
fn embedder_identities_must_match_to_merge() {
    let env = TestEnv::new();
    let palace = env.palace("local");
    env.call_local(
        &palace,
        "add_drawer",
        r#"{"wing":"w","room":"r","content":"minilm drawer"}"#,
    );
    let cfg = write_config(&env, json!({"palace": palace}));

    let minilm = Primary::start(&env, &env.palace("primary-minilm"), PrimaryOpts::default());
    let (_, c) = doctor(
        &env,
        "embedder",
        &[
            ("MPT_CONFIG", &cfg),
            ("MEMPALACE_REMOTE_URL", &minilm.url()),
        ],
    );
    assert_eq!(status(&c), "ok", "{c}");
    assert!(c["evidence"].to_string().contains("dimension 0"), "{c}");
    drop(minilm);

    let fake = crate::support::FakeEmbedder::start();
    let other = Primary::start(
        &env,
        &env.palace("primary-fake"),
        PrimaryOpts {
            extra_env: fake.env(),
            ..Default::default()
        },
    );
    let (code, c) = doctor(
        &env,
        "embedder",
        &[("MPT_CONFIG", &cfg), ("MEMPALACE_REMOTE_URL", &other.url())],
    );
    drop(fake);
    assert_eq!((code, status(&c)), (3, "fail"), "{c}");
    assert!(c["summary"].as_str().unwrap().contains("minilm"), "{c}");
}

#[test]
fn writers_two_children_without_a_hub_and_a_double_registration() {
    let env = TestEnv::new();
    let palace = env.palace("local");
    let cfg = write_config(&env, json!({"palace": palace}));
    let child = venv_bin("mempalace-mcp");
    let one = env.spawn(&child, &["--palace", palace.to_str().unwrap()], &[]);
    let (_, c) = doctor(&env, "writers", &[("MPT_CONFIG", &cfg)]);
    assert_eq!(status(&c), "ok", "{c}");
    let two = env.spawn(&child, &["--palace", palace.to_str().unwrap()], &[]);
    let (code, c) = doctor(&env, "writers", &[("MPT_CONFIG", &cfg)]);
    assert_eq!((code, status(&c)), (3, "fail"), "{c}");
    assert!(
        c["summary"]
            .as_str()
            .unwrap()
            .contains("2 MemPalace processes"),
        "{c}"
    );
    drop((one, two));

    let oc = env.home().join(".config/opencode");
    std::fs::create_dir_all(&oc).unwrap();
    std::fs::write(
        oc.join("opencode.json"),
        r#"{"mcp": {"mempalace": {"type": "local", "command": ["mempalace-mcp"]}}}"#,
    )
    .unwrap();
    std::fs::write(
        env.path("opencode.json"),
        r#"{"mcp": {"palace": {"type": "local", "command": ["mempalace-mcp", "--palace", "/p"]}}}"#,
    )
    .unwrap();
    let (_, c) = doctor(&env, "writers", &[("MPT_CONFIG", &cfg)]);
    assert_eq!(status(&c), "fail", "{c}");
    assert!(c["summary"].as_str().unwrap().contains("2 times"), "{c}");
}

#[test]
fn offline_skips_probes_and_an_unknown_check_is_a_usage_error() {
    let env = TestEnv::new();
    let o = env.mpt(&["--json", "doctor", "--offline"], &[]);
    let v = json(&o);
    let transport = v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "transport")
        .unwrap()
        .clone();
    assert_eq!(status(&transport), "skip");
    let every = mpt::doctor::CHECKS.len();
    assert_eq!(v["checks"].as_array().unwrap().len(), every);
    let o = env.mpt(&["doctor", "--offline"], &[]);
    assert!(
        stdout(&o)
            .lines()
            .last()
            .unwrap()
            .starts_with(&format!("{every} checks:")),
        "{}",
        stdout(&o)
    );
    let o = env.mpt(&["--json", "doctor", "--check", "nope"], &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(json(&o)["hint"].as_str().unwrap().contains("kg-path"));
}

#[test]
fn a_url_pointing_back_at_this_machine_warns() {
    let env = TestEnv::new();
    let palace = env.palace("shared");
    let p = Primary::start(&env, &palace, PrimaryOpts::default());
    let filed = env.mpt(
        &[
            "call",
            "add_drawer",
            r#"{"wing":"w","room":"r","content":"x"}"#,
        ],
        &[("MEMPALACE_REMOTE_URL", &p.url())],
    );
    assert!(filed.status.success(), "{}", stderr(&filed));
    let cfg = write_config(&env, json!({"palace": palace}));
    let (code, c) = doctor(
        &env,
        "transport",
        &[("MPT_CONFIG", &cfg), ("MEMPALACE_REMOTE_URL", &p.url())],
    );
    assert_eq!((code, status(&c)), (0, "warn"), "{c}");
    assert!(
        c["summary"]
            .as_str()
            .unwrap()
            .contains("points back at this machine"),
        "{c}"
    );
}

#[test]
fn outbox_check_fails_on_a_failed_op_and_warns_on_a_stranded_queue() {
    let env = TestEnv::new();
    // Nothing listens here: the ops stay queued, nothing flushes them.
    let vars = [("MEMPALACE_REMOTE_URL", "http://127.0.0.1:9/mcp")];
    let (code, c) = doctor(&env, "outbox", &vars);
    assert_eq!((code, status(&c)), (0, "ok"), "{c}");
    let enqueue = |args: &str| {
        let o = env.mpt(
            &["--json", "outbox", "enqueue", "mempalace_diary_write", args],
            &vars,
        );
        assert!(o.status.success(), "{}", stderr(&o));
        json(&o)["op_id"].as_str().unwrap().to_string()
    };
    enqueue(r#"{"agent_name": "pi", "entry": "old news"}"#);
    let (code, c) = doctor(&env, "outbox", &vars);
    assert_eq!((code, status(&c)), (0, "ok"), "fresh and open is fine: {c}");
    // An hour and more old, with no edge and no flusher: stranded.
    let db = env.home().join(".mempalace/edge/outbox.sqlite3");
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute(
        "UPDATE ops SET created_at = created_at - 2 * 3600 * 1000",
        [],
    )
    .unwrap();
    let (code, c) = doctor(&env, "outbox", &vars);
    assert_eq!((code, status(&c)), (0, "warn"), "{c}");
    assert!(
        c["fix"].as_str().unwrap().contains("mpt outbox flush"),
        "{c}"
    );
    // A failed op is a failure, with what waits for it and the command that settles it.
    let second = enqueue(r#"{"agent_name": "pi", "entry": "refused"}"#);
    conn.execute(
        "UPDATE ops SET state = 'failed', attempts = 3, error_json = '{\"message\": \"refused by the primary\"}' WHERE op_id = ?1",
        [&second],
    )
    .unwrap();
    let (code, c) = doctor(&env, "outbox", &vars);
    assert_eq!((code, status(&c)), (3, "fail"), "{c}");
    assert!(
        c["summary"].as_str().unwrap().contains("1 failed op"),
        "{c}"
    );
    assert!(
        c["fix"]
            .as_str()
            .unwrap()
            .contains(&format!("mpt outbox retry {}", &second[..12])),
        "{c}"
    );
}

#[test]
fn the_feeder_evidence_names_what_feeds_opencode_here() {
    let env = TestEnv::new();
    let evidence = |c: &Value| -> String {
        c["evidence"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .find(|l| l.starts_with("feeder for opencode"))
            .unwrap_or_else(|| panic!("no opencode feeder line: {c}"))
            .to_string()
    };
    let state = env.path("state").display().to_string();
    let vars = [("XDG_STATE_HOME", state.as_str())];
    let (_, c) = doctor(&env, "extension", &vars);
    assert!(
        !c.to_string().contains("feeder for opencode"),
        "no opencode here, no line: {c}"
    );
    let db = env.home().join(".local/share/opencode/opencode.db");
    let conn = crate::support::opencode::schema_db(&db);
    crate::support::opencode::add_session(&conn, 1, 4, 0);
    drop(conn);
    let (_, c) = doctor(&env, "extension", &vars);
    let line = evidence(&c);
    for s in [
        "mpt feed mine --harness opencode",
        "no bridge feeds opencode",
        "wing_opencode",
        &db.display().to_string(),
        "schema of opencode 1.18.33",
        "never fed",
    ] {
        assert!(line.contains(s), "{s:?} not in {line}");
    }
    let o = env.mpt(
        &[
            "feed",
            "prepare",
            "--harness",
            "opencode",
            "--reason",
            "shutdown",
        ],
        &vars,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let (_, c) = doctor(&env, "extension", &vars);
    assert!(evidence(&c).contains("last fed 20"), "{c}");
}

#[test]
fn a_misspelled_variable_is_named_with_the_one_it_likely_means() {
    // Issue 56, item 7: a typo is said with its nearest name; MemPalace's own settings are not
    // typos; no wiring change is offered while a typo stands.
    let env = TestEnv::new();
    let (_, c) = doctor(
        &env,
        "config",
        &[
            ("MEMPALACE_REMOTE_ULR", "https://palace.lan/mcp"),
            ("MPT_TOKEN_FLIE", "/tmp/tok"),
            ("MEMPALACE_EMBEDDING_DEVICE", "cpu"),
            ("MEMPALACE_EDGE", "1"),
        ],
    );
    let all = c.to_string();
    assert_eq!(status(&c), "warn", "{c}");
    assert!(
        all.contains("MEMPALACE_REMOTE_ULR") && all.contains("a typo of MEMPALACE_REMOTE_URL"),
        "{c}"
    );
    assert!(
        all.contains("rename MPT_TOKEN_FLIE to MPT_TOKEN_FILE"),
        "{c}"
    );
    assert!(
        !all.contains("MEMPALACE_EMBEDDING_DEVICE"),
        "MemPalace's own: {c}"
    );
    assert!(
        all.contains("MEMPALACE_EDGE=1 without MEMPALACE_REMOTE_URL"),
        "{c}"
    );
    assert!(
        !all.contains("mpt edge wire"),
        "no wiring change while a typo stands: {c}"
    );
    // Nothing unknown: nothing said.
    let (_, c) = doctor(&env, "config", &[("MEMPALACE_EMBEDDING_DEVICE", "cpu")]);
    assert!(!c.to_string().contains("neither mpt nor MemPalace"), "{c}");
}

#[test]
fn the_table_of_mempalaces_variables_is_what_its_source_reads() {
    // The table doctor's typo check trusts, against the testbed's MemPalace source now.
    let program = r#"
import json, os, re, sys, mempalace
root = os.path.dirname(mempalace.__file__)
names = set()
for d, _, files in os.walk(root):
    for f in files:
        if f.endswith(".py"):
            names.update(re.findall(r'"(MEMPALACE_[A-Z0-9_]+)"', open(os.path.join(d, f), encoding="utf-8").read()))
from mempalace.version import __version__
json.dump({"version": __version__, "names": sorted(names)}, sys.stdout)
"#;
    let env = TestEnv::new();
    let o = std::process::Command::new(venv_bin("python3"))
        .args(["-c", program])
        .env_clear()
        .env("HOME", env.home())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["version"], mpt_base::config::vars::MEMPALACE_VERSION);
    let ours: Vec<&str> = mpt_base::config::vars::MEMPALACE.to_vec();
    assert_eq!(
        v["names"],
        json!(ours),
        "crates/mpt-base/src/config/vars.rs's MEMPALACE is stale"
    );
}

#[test]
fn check_can_be_given_more_than_once() {
    // Issue 56, item 15: `--check` repeats; the checks come in the table's order, each once.
    let env = TestEnv::new();
    let o = env.mpt(
        &[
            "--json",
            "doctor",
            "--offline",
            "--check",
            "gateway",
            "--check",
            "config",
            "--check",
            "gateway",
        ],
        &[],
    );
    let ids: Vec<String> = json(&o)["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids, ["config", "gateway"], "{}", stdout(&o));
}

/// On the primary host the local child forwards to the running `serve` of the same palace (its
/// hub) and needs serve's token: mpt hands it the one serve runs with, read from serve's own
/// environment; where it cannot, the failure says exactly that (issue 56, item 3).
#[test]
fn doctor_on_the_primary_host_hands_the_child_serves_token() {
    let env = TestEnv::new();
    let palace = env.palace("primary");
    let token = "serve-token-0123456789abcdef0123456789abcdef";
    let serve = Primary::start(
        &env,
        &palace,
        PrimaryOpts {
            token: Some(token),
            extra_env: vec![("MEMPALACE_HUB_FORWARD", "1".into())],
            ..Default::default()
        },
    );
    serve
        .call(
            "mempalace_add_drawer",
            json!({"wing": "w", "room": "r", "content": "the primary's palace exists"}),
        )
        .unwrap();
    let p = palace.to_str().unwrap();
    let hub = [("MEMPALACE_PALACE_PATH", p), ("MEMPALACE_HUB_FORWARD", "1")];
    let (code, c) = doctor(&env, "transport", &hub);
    assert_eq!((code, status(&c)), (0, "ok"), "{c}");
    let o = env.mpt(&["--json", "doctor"], &hub);
    assert!(!stdout(&o).contains(token), "the token is never shown");

    // A token of the user's own that serve refuses: the child keeps it, and the fix says why.
    let mut wrong = hub.to_vec();
    wrong.push(("MEMPALACE_MCP_HTTP_TOKEN", "not-serves-token"));
    let (code, c) = doctor(&env, "transport", &wrong);
    assert_eq!((code, status(&c)), (3, "fail"), "{c}");
    let fix = c["fix"].as_str().unwrap();
    assert!(
        fix.contains("mempalace serve") && fix.contains("MEMPALACE_MCP_HTTP_TOKEN"),
        "{c}"
    );
}

/// The `config` check's findings that name Claude Code, with their fixes.
fn claude_findings(c: &Value) -> Vec<(String, String)> {
    c["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|f| {
            f["what"]
                .as_str()
                .is_some_and(|w| w.contains("Claude Code"))
        })
        .map(|f| {
            (
                f["what"].as_str().unwrap().into(),
                f["fix"].as_str().unwrap_or("").into(),
            )
        })
        .collect()
}

#[test]
fn doctor_names_claude_codes_shadowing_entry_its_feeder_and_hooks_that_file_twice() {
    let env = TestEnv::new();
    let edge = [
        ("MEMPALACE_REMOTE_URL", "http://127.0.0.1:9/mcp"),
        ("MEMPALACE_PI_DEVICE", "lap"),
        ("MEMPALACE_EDGE", "1"),
    ];
    // Claude Code here with no MemPalace entry: its agent has no palace tools.
    std::fs::create_dir_all(env.home().join(".claude")).unwrap();
    let (_, c) = doctor(&env, "config", &[]);
    let found = claude_findings(&c);
    assert!(
        found
            .iter()
            .any(|(w, f)| w.contains("registers no MemPalace server")
                && f.contains("claude mcp add --scope user mempalace -- mempalace-mcp")),
        "{c}"
    );
    let (_, c) = doctor(&env, "config", &edge);
    assert!(
        claude_findings(&c)
            .iter()
            .any(|(w, f)| w.contains("registers no MemPalace server")
                && f.contains("`mpt edge wire claude`")),
        "{c}"
    );
    let (_, c) = doctor(&env, "extension", &[]);
    let lines = c["evidence"].to_string();
    assert!(
        lines.contains("nothing feeds Claude Code on its own"),
        "{c}"
    );

    // The user scope wired to the edge; a folder's local entry (`claude mcp add`'s) shadows it.
    let o = env.mpt(&["edge", "wire", "claude", "--hooks"], &edge);
    assert!(o.status.success(), "{}", stderr(&o));
    let state = env.home().join(".claude.json");
    let mut doc: Value = serde_json::from_slice(&std::fs::read(&state).unwrap()).unwrap();
    doc["projects"] = json!({"/src/app": {"mcpServers": {"mempalace": {"type": "stdio", "command": "mempalace-mcp", "args": []}}}});
    std::fs::write(&state, doc.to_string()).unwrap();
    let (_, c) = doctor(&env, "config", &edge);
    let found = claude_findings(&c);
    assert_eq!(found.len(), 1, "{c}");
    assert!(
        found[0].0.contains("/src/app") && found[0].0.contains("shadows"),
        "{found:?}"
    );
    assert!(found[0].1.contains("--all-scopes"), "{found:?}");
    let (_, c) = doctor(&env, "extension", &edge);
    assert!(
        c["evidence"]
            .to_string()
            .contains("mpt's SessionEnd/PreCompact hooks"),
        "{c}"
    );

    // MemPalace's own hook beside mpt's: each conversation filed twice.
    let settings = env.home().join(".claude/settings.json");
    let mut s: Value = serde_json::from_slice(&std::fs::read(&settings).unwrap()).unwrap();
    s["hooks"]["Stop"] = json!([{"hooks": [{"type": "command", "command": "mempalace hook run --hook stop --harness claude-code"}]}]);
    std::fs::write(&settings, s.to_string()).unwrap();
    let (_, c) = doctor(&env, "config", &edge);
    let found = claude_findings(&c);
    assert!(
        found
            .iter()
            .any(|(w, f)| w.contains("filed twice") && f.contains("--replace-mempalace-hooks")),
        "{found:?}"
    );
    // The fix the finding names fixes it.
    let o = env.mpt(
        &[
            "edge",
            "wire",
            "claude",
            "--hooks",
            "--replace-mempalace-hooks",
        ],
        &edge,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let (_, c) = doctor(&env, "config", &edge);
    assert!(
        !claude_findings(&c)
            .iter()
            .any(|(w, _)| w.contains("filed twice")),
        "{c}"
    );
}

#[test]
fn doctor_says_what_codex_runs_against_the_opt_in_and_that_nothing_feeds_it_on_its_own() {
    let env = TestEnv::new();
    let edge = [
        ("MEMPALACE_REMOTE_URL", "http://127.0.0.1:9/mcp"),
        ("MEMPALACE_PI_DEVICE", "lap"),
        ("MEMPALACE_EDGE", "1"),
    ];
    let config = env.home().join(".codex/config.toml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(
        &config,
        "[mcp_servers.mempalace]\ncommand = \"mempalace-mcp\"\n",
    )
    .unwrap();
    let codex = |c: &Value| -> Vec<(String, String)> {
        c["findings"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|f| f["what"].as_str().is_some_and(|w| w.contains("Codex")))
            .map(|f| {
                (
                    f["what"].as_str().unwrap().into(),
                    f["fix"].as_str().unwrap_or("").into(),
                )
            })
            .collect()
    };
    let (_, c) = doctor(&env, "config", &[]);
    assert_eq!(
        codex(&c),
        [],
        "MemPalace's own entry on a solitary machine: {c}"
    );
    let (_, c) = doctor(&env, "config", &edge);
    let found = codex(&c);
    assert!(
        found.len() == 1
            && found[0].0.contains("opt-in says mpt edge")
            && found[0].1.contains("mpt edge wire codex"),
        "{found:?}"
    );
    // The edge written by hand, without passing the opt-in on.
    std::fs::write(
        &config,
        "[mcp_servers.mempalace]\ncommand = \"mpt\"\nargs = [\"edge\"]\n",
    )
    .unwrap();
    let (_, c) = doctor(&env, "config", &edge);
    assert!(
        codex(&c)[0]
            .0
            .contains("without passing MEMPALACE_REMOTE_URL"),
        "{c}"
    );
    // The fix the finding names fixes it.
    let o = env.mpt(&["edge", "wire", "codex"], &edge);
    assert!(o.status.success(), "{}", stderr(&o));
    let (_, c) = doctor(&env, "config", &edge);
    assert_eq!(codex(&c), [], "{c}");
    let (_, c) = doctor(&env, "extension", &edge);
    assert!(
        c["evidence"]
            .to_string()
            .contains("feeder for codex: `mpt feed mine --harness codex"),
        "{c}"
    );
    // A config Codex cannot read.
    std::fs::write(&config, "model = ").unwrap();
    let (_, c) = doctor(&env, "config", &edge);
    assert!(c.to_string().contains("not valid TOML"), "{c}");
}
