//! Goldens of the `--json` documents commands print (the house, 5b: goldens before types): each
//! command run for real in one scenario, its document reduced to every field path and its JSON
//! type, an `insta` snapshot per schema (`INSTA_UPDATE=always` rewrites them for review).

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Value, json};

use crate::support::gateway::{
    Setup, call, get, issue, mpt as gw_mpt, payload, policy, write_policy,
};
use crate::support::primary::PrimaryOpts;
use crate::support::{Primary, TestEnv, json as parse_json, stderr};

/// Schemas the gateway serves over HTTP, prints when it listens or keeps in its folder, and the
/// invite and join of a device, pinned by their own test below.
const SERVED: &[&str] = &[
    "mpt.gateway.audit.head/v1",
    "mpt.gateway.inbox/v1",
    "mpt.gateway.invite.revoke/v1",
    "mpt.gateway.invite/v1",
    "mpt.gateway.invites/v1",
    "mpt.gateway.join/v1",
    "mpt.gateway.last_used/v1",
    "mpt.gateway.serve/v1",
    "mpt.gateway.tokens/v1",
    "mpt.gateway.whoami/v1",
    "mpt.join.leave/v1",
    "mpt.join.record/v1",
    "mpt.join/v1",
];

/// Every field path of `doc` with its JSON type, in print order (an array's first element).
fn shape(doc: &Value) -> Vec<String> {
    fn kind(v: &Value) -> &'static str {
        match v {
            Value::Null => "null",
            Value::Bool(_) => "bool",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        }
    }
    fn walk(v: &Value, prefix: &str, out: &mut Vec<String>) {
        match v {
            Value::Object(m) => {
                for (k, v) in m {
                    let name = format!("{prefix}{k}");
                    out.push(format!("{name}: {}", kind(v)));
                    walk(v, &format!("{name}."), out);
                }
            }
            Value::Array(a) => {
                if let Some(first) = a.first() {
                    let name = format!("{}[]", prefix.trim_end_matches('.'));
                    out.push(format!("{name}: {}", kind(first)));
                    walk(first, &format!("{name}."), out);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(doc, "", &mut out);
    out
}

/// The schema names `crates/mpt-base/src/schema.rs` declares.
fn declared() -> Vec<String> {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/mpt-base/src/schema.rs"),
    )
    .unwrap();
    text.lines()
        .filter_map(|l| l.trim().strip_prefix("pub const "))
        .filter_map(|l| l.split('"').nth(1).map(str::to_string))
        .collect()
}

/// The documents a scenario printed, by schema (the first of each).
#[derive(Default)]
struct Seen(BTreeMap<String, Value>);

impl Seen {
    fn keep(&mut self, doc: Value, what: &str) -> Value {
        let schema = doc["schema"]
            .as_str()
            .unwrap_or_else(|| panic!("{what}: no schema: {doc}"))
            .to_string();
        self.0.entry(schema).or_insert_with(|| doc.clone());
        doc
    }

    /// Each JSON Line a streaming command printed.
    fn take_lines(&mut self, o: &std::process::Output, what: &str) {
        let text = String::from_utf8_lossy(&o.stdout);
        assert!(!text.trim().is_empty(), "{what}: no lines: {}", stderr(o));
        for line in text.lines() {
            let doc = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("{what}: not a JSON line ({e}): {line}"));
            self.keep(doc, what);
        }
    }

    /// A file mpt wrote for itself.
    fn file(&mut self, path: &Path) -> Value {
        let doc = serde_json::from_slice(&std::fs::read(path).unwrap())
            .unwrap_or_else(|e| panic!("{}: not JSON ({e})", path.display()));
        self.keep(doc, &path.display().to_string())
    }

    fn take(&mut self, o: &std::process::Output, what: &str) -> Value {
        let doc: Value = serde_json::from_slice(&o.stdout)
            .unwrap_or_else(|e| panic!("{what}: not one JSON document ({e}): {}", stderr(o)));
        self.keep(doc, what)
    }
}

/// The mailbox identity the scenario reads as.
const ME: &str = "pi@lap";

/// An open ask to `to` appended on the primary at `url`; its event id.
fn ask_of(url: &str, to: &str) -> String {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let c = crate::support::primary::remote_client(url, None);
    rt.block_on(async {
        c.connect().await.unwrap();
        let args = json!({"type": "task.request", "stream": "project/mpt", "room": "delegation", "from_agent": "codex@desk", "to_agent": to, "status": "open", "body": "review", "correlation_id": "c1"});
        let r = c
            .call_tool("mempalace_event_append", args, mpt_mcp::Deadline::Default)
            .await
            .unwrap();
        r.payload["event"]["id"].as_str().unwrap().to_string()
    })
}

/// The first file under `dir` whose name ends with `suffix`.
fn find_file(dir: &Path, suffix: &str) -> Option<std::path::PathBuf> {
    for e in std::fs::read_dir(dir).ok()?.flatten() {
        let path = e.path();
        if path.is_dir() && !path.is_symlink() {
            if let Some(found) = find_file(&path, suffix) {
                return Some(found);
            }
        } else if path.to_string_lossy().ends_with(suffix) {
            return Some(path);
        }
    }
    None
}

#[test]
fn every_document_a_command_prints_keeps_its_field_paths_and_types() {
    let env = TestEnv::new();
    let p = Primary::start(&env, &env.palace("primary"), PrimaryOpts::default());
    let url = p.url();
    let palace = env.palace("local");
    let device = [
        ("MEMPALACE_REMOTE_URL", url.as_str()),
        ("MEMPALACE_PI_DEVICE", "lap"),
        ("MEMPALACE_PALACE_PATH", palace.to_str().unwrap()),
    ];
    // The local palace exists (a backfill of none is refused): one drawer filed locally.
    let o = env.mpt(
        &[
            "call",
            "add_drawer",
            r#"{"wing": "w", "room": "r", "content": "filed here"}"#,
        ],
        &[("MEMPALACE_PALACE_PATH", palace.to_str().unwrap())],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    // Shared by `run` and the steps that read a file or lines.
    let seen = std::cell::RefCell::new(Seen::default());
    let run = |args: &[&str]| {
        let o = env.mpt(args, &device);
        seen.borrow_mut().take(&o, &args.join(" "))
    };
    run(&["--json", "config"]);
    run(&["--json", "paths"]);
    run(&["--json", "doctor", "--offline"]);
    run(&["--json", "runbook", "phase0"]);
    run(&["--json", "runbook", "apply", "kg-location"]);
    run(&["--json", "call", "kg_stats"]);
    run(&["--json", "call", "--list"]);
    run(&["--json", "outbox", "show", "no-such-op"]);
    // A flush with no outbox yet prints the whole report, every count zero.
    let nothing = run(&["--json", "outbox", "flush"]);
    assert_eq!(nothing["result"], "drained", "{nothing}");
    let fact = json!({"subject": "a", "predicate": "b", "object": "c"}).to_string();
    let op = run(&["--json", "outbox", "enqueue", "kg_add", &fact]);
    let op = op["op_id"].as_str().unwrap().to_string();
    run(&["--json", "outbox"]);
    run(&["--json", "outbox", "list"]);
    run(&["--json", "outbox", "show", &op]);
    let flushed = run(&["--json", "outbox", "flush"]);
    assert_eq!(flushed["settled"], 1, "{flushed}");
    assert_eq!(shape(&nothing), shape(&flushed), "{nothing}");
    let other = json!({"subject": "d", "predicate": "e", "object": "f"}).to_string();
    let other = run(&["--json", "outbox", "enqueue", "kg_add", &other]);
    run(&[
        "--json",
        "outbox",
        "drop",
        other["op_id"].as_str().unwrap(),
        "--yes",
    ]);
    // A dropped op's audit trail (the first op shown had none).
    let dropped = run(&["--json", "outbox", "show", other["op_id"].as_str().unwrap()]);
    let trail = &dropped["audit"];
    assert_eq!(trail[0]["action"], "drop", "{dropped}");
    insta::assert_snapshot!("mpt.outbox.op_v1.audit", shape(trail).join("\n"));
    run(&["--json", "outbox", "retry", "--failed"]);
    run(&["--json", "outbox", "purge", "--older-than", "0s"]);
    run(&["--json", "outbox", "backfill"]);
    run(&["--json", "edge", "status"]);
    run(&["--json", "edge", "stop"]);
    let opencode = env.path("opencode.json");
    std::fs::write(&opencode, "{}\n").unwrap();
    run(&[
        "--json",
        "edge",
        "wire",
        "opencode",
        "--config",
        opencode.to_str().unwrap(),
        "--dry-run",
    ]);
    // Wiring over the user's own MemPalace entry remembers it beside their config, to restore.
    let theirs = env.path("theirs.json");
    let entry = json!({"mcp": {"mempalace": {"type": "local", "command": ["mempalace-mcp"]}}});
    std::fs::write(&theirs, entry.to_string()).unwrap();
    let wire = [
        "edge",
        "wire",
        "opencode",
        "--config",
        theirs.to_str().unwrap(),
    ];
    let o = env.mpt(&wire, &device);
    assert!(o.status.success(), "{}", stderr(&o));
    seen.borrow_mut()
        .file(&env.path("theirs.json.mpt-user-entry.json"));
    // Claude Code's wiring: a plan per scope and its hooks (pinned apart from opencode's shape),
    // and what mpt remembers beside the settings while its hooks are in.
    let o = env.mpt(&["--json", "edge", "wire", "claude", "--hooks"], &device);
    assert!(o.status.success(), "{}", stderr(&o));
    seen.borrow_mut()
        .0
        .insert("mpt.edge.wire/v1+claude".into(), parse_json(&o));
    seen.borrow_mut()
        .file(&env.home().join(".claude/settings.json.mpt-hooks.json"));
    // Codex's wiring under the edge, and what mpt remembers beside its config.
    let codex = env.path("codex.toml");
    std::fs::write(
        &codex,
        "[mcp_servers.mempalace]\ncommand = \"mempalace-mcp\"\n",
    )
    .unwrap();
    let mut edge = device.to_vec();
    edge.push(("MEMPALACE_EDGE", "1"));
    let o = env.mpt(
        &[
            "--json",
            "edge",
            "wire",
            "codex",
            "--config",
            codex.to_str().unwrap(),
        ],
        &edge,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    seen.borrow_mut()
        .0
        .insert("mpt.edge.wire/v1+codex".into(), parse_json(&o));
    seen.borrow_mut()
        .file(&env.path("codex.toml.mpt-user-entry.json"));
    run(&[
        "--json",
        "feed",
        "prepare",
        "--harness",
        "pi",
        "--reason",
        "manual",
    ]);
    run(&[
        "--json",
        "feed",
        "mine",
        "--harness",
        "pi",
        "--reason",
        "manual",
    ]);
    run(&["--json", "mailbox"]);
    run(&["--json", "mailbox", "notify"]);
    // An ask owed to this device: watch announces it (after its line saying how it watches),
    // and ack answers it.
    let ask = ask_of(&p.url(), ME);
    let o = env.mpt(
        &["--json", "mailbox", "--as", ME, "watch", "--max-polls", "1"],
        &device,
    );
    seen.borrow_mut().take_lines(&o, "mailbox watch");
    let applied = [
        "--json", "mailbox", "--as", ME, "ack", &ask, "--status", "applied",
    ];
    let acked = run(&applied);
    assert_eq!(acked["acked"], ask, "{acked}");
    // Its `event` is the server's own, verbatim: only the document's own fields are pinned.
    assert!(acked["event"].is_object(), "{acked}");
    seen.borrow_mut()
        .0
        .get_mut(mpt_base::schema::MAILBOX_ACK)
        .unwrap()["event"] = json!({});
    // The record of the pulls the mailbox made from the primary (a file in the edge's folder).
    let record = find_file(&env.home(), ".pull.json").expect("the mailbox's pull wrote its record");
    seen.borrow_mut().file(&record);
    let helper = env.path("bin");
    run(&["--json", "feed", "install-helper", helper.to_str().unwrap()]);
    let man = env.path("man");
    run(&["--json", "man", man.to_str().unwrap()]);

    let mut seen = seen.into_inner();

    // The primary host's: its gateway's state folder, a policy naming lap.
    let dir = env.path("gateway");
    write_policy(&dir, &policy(json!({"lap": {"role": "member"}})));
    issue(&env, &dir, "lap", &["--expires", "30d"]);
    let mut host = |args: &[&str]| {
        let o = gw_mpt(&env, &dir, args);
        seen.take(&o, &args.join(" "))
    };
    let out = env.path("desk.token");
    host(&[
        "--json",
        "gateway",
        "token",
        "issue",
        "lap",
        "--out",
        out.to_str().unwrap(),
    ]);
    host(&["--json", "gateway", "token", "list"]);
    host(&["--json", "gateway", "token", "revoke", "lap"]);
    host(&["--json", "gateway", "policy", "check"]);
    host(&[
        "--json",
        "gateway",
        "policy",
        "explain",
        "lap",
        "add_drawer",
        "{\"wing\": \"w\", \"room\": \"r\", \"content\": \"c\"}",
    ]);
    host(&["--json", "gateway", "audit"]);
    host(&["--json", "gateway", "audit", "verify"]);

    // The starter policy mpt writes for a new primary host (the file a gateway reads).
    let starter = env.path("starter");
    let o = gw_mpt(
        &env,
        &starter,
        &[
            "--json",
            "runbook",
            "apply",
            "gateway-policy",
            "--device",
            "lap",
            "--yes",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let written: Value =
        serde_json::from_slice(&std::fs::read(starter.join("policy.json")).unwrap()).unwrap();
    seen.0
        .entry(written["schema"].as_str().unwrap().to_string())
        .or_insert(written);

    for (schema, doc) in &seen.0 {
        insta::assert_snapshot!(schema.replace('/', "_"), shape(doc).join("\n"));
    }
    // Every declared schema is pinned, here or by the gateway's test below.
    for schema in declared() {
        let pinned = seen.0.contains_key(&schema) || SERVED.contains(&schema.as_str());
        assert!(pinned, "{schema}: no golden pins it");
    }
}

#[test]
fn every_document_the_gateway_serves_keeps_its_field_paths_and_types() {
    // `up` uploads into its inbox (a folder removed with `inboxes`).
    let inboxes = tempfile::tempdir().unwrap();
    let s = Setup::new(json!({
        "lap": {"role": "member", "wings": {"read": ["*"], "write": ["wing_lap*"]}},
        "up": {"role": "member", "mine": {"source_prefix": inboxes.path().join("up")}},
    }));
    let lap = s.token("lap");
    let r = get(s.gw.port, &lap, "/whoami");
    assert_eq!(r.status, 200);
    let doc = r.json();
    let mut served = BTreeMap::new();
    served.insert(doc["schema"].as_str().unwrap().to_string(), doc.clone());
    // The line `mpt gateway serve --json` printed when it listened.
    served.insert(
        mpt_base::schema::GATEWAY_SERVE.to_string(),
        s.gw.started.clone(),
    );
    // An audited write that lands, so the audit chain has a head.
    let added = payload(&call(
        s.gw.port,
        &lap,
        "mempalace_add_drawer",
        json!({"wing": "wing_lap", "room": "r", "content": "pinned"}),
    ));
    assert_eq!(added["success"], true, "{added}");
    // The files the gateway writes for itself: token hashes, when each was last used, the
    // audit chain's head (a format change there breaks a running fleet's state folder).
    let file = |name: &str| -> Option<Value> {
        serde_json::from_slice(&std::fs::read(s.dir.join(name)).ok()?).ok()
    };
    for name in ["tokens.json", "last_used.json", "audit.head.json"] {
        assert!(
            crate::support::wait_for(30.0, || file(name).is_some()),
            "the gateway writes {name}"
        );
        let mut doc = file(name).unwrap();
        if name == "last_used.json" {
            // Keyed by token id, which differs each run: one key stands for them.
            let ids = doc["tokens"].as_object().unwrap();
            assert_eq!(ids.len(), 1, "{doc}");
            doc["tokens"] = json!({"<token_id>": ids.values().next().unwrap()});
        }
        served.insert(doc["schema"].as_str().unwrap().to_string(), doc);
    }
    // An upload into a device's inbox on the primary host.
    let auth = format!("Bearer {}", s.token("up"));
    let r = crate::support::gateway::http(
        s.gw.port,
        "PUT",
        "/inbox/pi/one.md",
        &[("authorization", auth.as_bytes())],
        b"> a line\n",
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let stored = r.json();
    served.insert(stored["schema"].as_str().unwrap().to_string(), stored);
    // A device invited and joined: the invite's document, the gateway's answer to `POST /join`,
    // its invites file after the exchange, and `mpt join`'s document on another device.
    let code_file = s.env.path("box.code");
    let code_path = code_file.to_str().unwrap();
    let invite = [
        "--json", "gateway", "invite", "box", "--url", &s.gw.url, "--out", code_path,
    ];
    let invited = crate::support::json(&s.host_mpt(&invite));
    served.insert(invited["schema"].as_str().unwrap().to_string(), invited);
    let code = std::fs::read_to_string(&code_file).unwrap();
    let bearer = format!("Bearer {}", code.trim());
    let r = crate::support::gateway::http(
        s.gw.port,
        "POST",
        "/join",
        &[("authorization", bearer.as_bytes())],
        b"",
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let joined = r.json();
    served.insert(joined["schema"].as_str().unwrap().to_string(), joined);
    let invites = file("invites.json").expect("the invites file");
    served.insert(invites["schema"].as_str().unwrap().to_string(), invites);
    let again = [
        "--json", "gateway", "invite", "cab", "--url", &s.gw.url, "--out", code_path, "--force",
    ];
    assert!(s.host_mpt(&again).status.success());
    let dev = crate::support::TestEnv::new();
    // No systemd user manager (whatever this machine runs): the cron line's shape is pinned.
    let (no_systemd, _) = dev.fake_systemctl("offline");
    let o = dev.mpt(
        &["--json", "join", &s.gw.url, "--code-file", code_path],
        &[("PATH", &no_systemd)],
    );
    let doc = crate::support::json(&o);
    assert_eq!(doc["device"], "cab", "{doc}{}", stderr(&o));
    served.insert(doc["schema"].as_str().unwrap().to_string(), doc);
    // What the join recorded on the device for `--leave`, and what leaving says.
    let record: Value =
        serde_json::from_slice(&std::fs::read(dev.home().join(".config/mpt/joined.json")).unwrap())
            .unwrap();
    served.insert(record["schema"].as_str().unwrap().to_string(), record);
    let left =
        crate::support::json(&dev.mpt(&["--json", "join", "--leave"], &[("PATH", &no_systemd)]));
    served.insert(left["schema"].as_str().unwrap().to_string(), left);
    let revoked =
        crate::support::json(&s.host_mpt(&["--json", "gateway", "invite", "cab", "--revoke"]));
    served.insert(revoked["schema"].as_str().unwrap().to_string(), revoked);

    assert_eq!(
        served.keys().map(String::as_str).collect::<Vec<_>>(),
        SERVED,
        "each schema the gateway serves is pinned here"
    );
    for (schema, doc) in &served {
        insta::assert_snapshot!(schema.replace('/', "_"), shape(doc).join("\n"));
    }
}
