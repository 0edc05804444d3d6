//! No token leaks by any road (issue 12, items 1–4): a URL carrying userinfo is refused and never
//! shown; a primary that echoes the Authorization header is scrubbed from everything mpt prints or
//! stores; the enqueue check covers every token this process knows; the child never inherits it;
//! the gateway keeps device and upstream tokens apart and out of everything (`secrets/gateway.rs`).

use std::os::unix::fs::PermissionsExt;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::Path as UrlPath;
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::{get, post};
use serde_json::{Value, json};

use crate::support::harness::Harness;
use crate::support::{TestEnv, files_under, json, leaks, stderr, stdout, venv_bin, wait_for};

/// `mpt gateway`'s two secrets (issue 27).
mod gateway;

type Vars<'a> = [(&'a str, &'a str)];

#[test]
fn a_url_with_userinfo_is_refused_with_exit_2_and_never_shown() {
    let env = TestEnv::new();
    let token = "tok-userinfo-5e1b-never-print-me";
    let palace = env.palace("local");
    for url in [
        format!("http://pi:{token}@127.0.0.1:9/mcp"),
        format!("http://{token}@127.0.0.1:9/mcp"),
    ] {
        let vars = [("MEMPALACE_REMOTE_URL", url.as_str())];
        for args in [
            vec!["--json", "config"],
            vec!["config"],
            vec!["--json", "outbox"],
            vec!["outbox"],
            vec!["--json", "outbox", "flush"],
            vec!["-vv", "call", "status"],
            vec!["-vv", "--json", "call", "status"],
            vec!["-vv", "edge", "--palace", palace.to_str().unwrap()],
            // doctor reports a configuration that does not load as its failed `config` check.
            vec!["doctor", "--offline"],
            vec!["--json", "doctor", "--offline"],
        ] {
            let o = env.mpt(&args, &vars);
            let code = if args.contains(&"doctor") { 3 } else { 2 };
            assert_eq!(o.status.code(), Some(code), "{args:?}: {}", stderr(&o));
            let said = format!("{}{}", stdout(&o), stderr(&o));
            assert!(said.contains("MEMPALACE_REMOTE_TOKEN"), "{args:?}: {said}");
            assert!(!leaks(&o.stdout, token), "{args:?} printed it: {said}");
            assert!(!leaks(&o.stderr, token), "{args:?} printed it: {said}");
        }
        let v = json(&env.mpt(&["--json", "config"], &vars));
        assert_eq!(v["kind"], "usage");
        assert!(
            v["message"]
                .as_str()
                .unwrap()
                .contains("<redacted>@127.0.0.1"),
            "{v}"
        );
    }
}

/// A primary (or a proxy before it) that echoes the caller's Authorization header: in a 500 or
/// 502 body, or in a tool reply `{"success": false, "error": "…"}`. Routes: `/{mode}/mcp`.
struct EchoPrimary {
    port: u16,
    _rt: tokio::runtime::Runtime,
}

impl EchoPrimary {
    fn start() -> EchoPrimary {
        let app = Router::new()
            .route("/{mode}/mcp", post(echo))
            .route("/{mode}/healthz", get(echo_health))
            .route("/{mode}/logstream/stream", get(echo_stream));
        let (port, rt) = crate::support::serve_app(app);
        EchoPrimary { port, _rt: rt }
    }

    fn url(&self, mode: &str) -> String {
        format!("http://127.0.0.1:{}/{mode}/mcp", self.port)
    }
}

fn auth(headers: &HeaderMap) -> String {
    headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("none")
        .to_string()
}

async fn echo_health(UrlPath(mode): UrlPath<String>, headers: HeaderMap) -> Response {
    let status = if mode == "tool" { 200 } else { 500 };
    Response::builder()
        .status(status)
        .body(Body::from(format!(
            "health says: you sent {}",
            auth(&headers)
        )))
        .unwrap()
}

/// The live stream refused, its body quoting the caller's Authorization header: a 500 from the
/// primary, or a proxy's 403 (`tool` mode).
async fn echo_stream(UrlPath(mode): UrlPath<String>, headers: HeaderMap) -> Response {
    let status = if mode == "tool" { 403 } else { 500 };
    Response::builder()
        .status(status)
        .body(Body::from(format!(
            "stream refused: you sent Authorization: {}\n",
            auth(&headers)
        )))
        .unwrap()
}

async fn echo(UrlPath(mode): UrlPath<String>, headers: HeaderMap, body: Bytes) -> Response {
    let msg: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let Some(id) = msg.get("id").cloned() else {
        return Response::builder().status(202).body(Body::empty()).unwrap();
    };
    let said = auth(&headers);
    let result = match msg["method"].as_str().unwrap_or("") {
        "initialize" => {
            json!({"protocolVersion": "2025-06-18", "capabilities": {"tools": {}}, "serverInfo": {"name": "echo", "version": "3.11.0"}})
        }
        "tools/list" => json!({"tools": [
            {"name": "mempalace_status", "inputSchema": {"type": "object"}},
            {"name": "mempalace_kg_add", "inputSchema": {"type": "object"}},
            {"name": "mempalace_search", "inputSchema": {"type": "object"}},
        ]}),
        "tools/call" if mode == "500" || mode == "502" => {
            return Response::builder()
                .status(mode.parse::<u16>().unwrap())
                .body(Body::from(format!(
                    "bad gateway: the upstream refused Authorization: {said}\n"
                )))
                .unwrap();
        }
        "tools/call" => {
            let text = json!({"success": false, "error": format!("proxy: denied for {said}")});
            json!({"content": [{"type": "text", "text": text.to_string()}]})
        }
        _ => json!({}),
    };
    Response::builder()
        .header("content-type", "application/json")
        .body(Body::from(
            json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string(),
        ))
        .unwrap()
}

#[test]
fn server_text_that_echoes_the_token_is_scrubbed_from_every_output_and_the_outbox() {
    let env = TestEnv::new();
    let token = "tok-echo-8a4c-never-print-me";
    let tf = env.path("token");
    std::fs::write(&tf, token).unwrap();
    std::fs::set_permissions(&tf, std::fs::Permissions::from_mode(0o600)).unwrap();
    let echo = EchoPrimary::start();
    let mut outputs: Vec<(String, Vec<u8>)> = Vec::new();
    let kg = r#"{"subject":"a","predicate":"b","object":"c"}"#;

    // A fact in the local palace: a backfill asks the primary about it.
    let o = env.mpt(&["call", "kg_add", kg], &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    for mode in ["500", "502", "tool"] {
        let url = echo.url(mode);
        let outbox = env.path(&format!("outbox-{mode}.sqlite3"));
        let via_env = [
            ("MEMPALACE_REMOTE_URL", url.as_str()),
            ("MEMPALACE_REMOTE_TOKEN", token),
            ("MPT_OUTBOX", outbox.to_str().unwrap()),
        ];
        let via_file = [
            ("MEMPALACE_REMOTE_URL", url.as_str()),
            ("MPT_TOKEN_FILE", tf.to_str().unwrap()),
            ("MPT_OUTBOX", outbox.to_str().unwrap()),
        ];
        let o = env.mpt(&["-vv", "outbox", "enqueue", "kg_add", kg], &via_env);
        assert!(o.status.success(), "{}", stderr(&o));
        outputs.push((format!("{mode} enqueue"), [o.stdout, o.stderr].concat()));
        let runs: Vec<(Vec<&str>, &Vars)> = vec![
            (vec!["-vv", "--json", "config"], &via_env),
            (vec!["-vv", "config"], &via_file),
            (vec!["-vv", "--json", "call", "status"], &via_env),
            (vec!["-vv", "call", "status"], &via_file),
            (vec!["--json", "call", "kg_add", kg], &via_file),
            (vec!["-vv", "--json", "outbox", "flush"], &via_env),
            (vec!["-vv", "outbox", "flush"], &via_file),
            (vec!["--json", "outbox", "list", "--state", "all"], &via_env),
            (vec!["outbox", "list", "--state", "all"], &via_env),
            (vec!["--json", "outbox"], &via_env),
            (vec!["outbox"], &via_file),
            (vec!["-vv", "--json", "outbox", "backfill"], &via_env),
            (vec!["-vv", "outbox", "backfill", "--yes"], &via_file),
            (vec!["-vv", "doctor", "--check", "transport"], &via_env),
            (vec!["--json", "doctor", "--check", "transport"], &via_file),
        ];
        for (args, vars) in runs {
            let o = env.mpt(&args, vars);
            outputs.push((format!("{mode} {args:?} stdout"), o.stdout));
            outputs.push((format!("{mode} {args:?} stderr"), o.stderr));
        }
        // The echo reached the backfill too: asking the primary about the local fact failed,
        // and what the primary said is scrubbed.
        let bf = json(&env.mpt(&["--json", "outbox", "backfill"], &via_env));
        assert!(bf.to_string().contains("<redacted>"), "{mode}: {bf}");
        // The echo reached mpt (the test would prove nothing otherwise): the op carries an error.
        let listed = json(&env.mpt(&["--json", "outbox", "list", "--state", "all"], &via_env));
        let err = &listed["ops"][0]["error"];
        assert!(err["message"].as_str().is_some(), "{mode}: {listed}");
        assert!(
            err.to_string().contains("<redacted>"),
            "{mode}: the echoed token was not what the error said: {listed}"
        );
        let shown = env.mpt(
            &[
                "outbox",
                "show",
                &listed["ops"][0]["op_id"].as_str().unwrap()[..12],
            ],
            &via_env,
        );
        outputs.push((format!("{mode} show"), shown.stdout));
    }

    // The edge: a read whose primary half echoes the token, a write its flusher sends into a 500.
    for mode in ["tool", "500"] {
        let url = echo.url(mode);
        let outbox = env.path(&format!("edge-outbox-{mode}.sqlite3"));
        let vars = [
            ("MEMPALACE_REMOTE_URL", url.as_str()),
            ("MEMPALACE_REMOTE_TOKEN", token),
            ("MPT_OUTBOX", outbox.to_str().unwrap()),
        ];
        let palace = env.palace(&format!("edge-{mode}"));
        let mut h = Harness::start(&env, &["-vv", "--palace", palace.to_str().unwrap()], &vars);
        h.initialize();
        let wrote = h.call(
            "mempalace_add_drawer",
            json!({"wing": "w", "room": "r", "content": "an ordinary drawer"}),
        );
        let read = h.request(
            "tools/call",
            json!({"name": "mempalace_search", "arguments": {"query": "drawer"}}),
        );
        outputs.push((
            format!("edge {mode} write reply"),
            format!("{wrote:?}").into_bytes(),
        ));
        outputs.push((
            format!("edge {mode} read reply"),
            read.to_string().into_bytes(),
        ));
        if mode == "tool" {
            assert!(
                read.to_string().contains("<redacted>"),
                "the primary's echo did not reach the reply: {read}"
            );
        }
        let tried = wait_for(30.0, || {
            let v = json(&env.mpt(&["--json", "outbox", "list", "--state", "all"], &vars));
            v["ops"][0]["error"].is_object()
        });
        assert!(
            tried,
            "the edge's flusher never met the echoing primary ({mode})"
        );
        h.close();
        drop(h);
        outputs.push((
            format!("edge {mode} outbox"),
            std::fs::read(&outbox).unwrap(),
        ));
    }
    outputs.push((
        "edge stderr".into(),
        std::fs::read(env.path("edge.stderr")).unwrap_or_default(),
    ));
    outputs.extend(files_under(&env.home().join(".mempalace/edge")));
    for e in std::fs::read_dir(env.dir.path()).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.contains("outbox") {
            outputs.push((name, std::fs::read(e.path()).unwrap()));
        }
    }
    for (what, bytes) in &outputs {
        assert!(
            !leaks(bytes, token),
            "the token appeared in {what}: {}",
            String::from_utf8_lossy(bytes)
        );
    }
}

#[test]
fn a_live_stream_refusal_that_echoes_the_token_is_scrubbed_from_watch_and_doctor() {
    let env = TestEnv::new();
    let token = "tok-stream-5d1e-never-print-me";
    let echo = EchoPrimary::start();
    let mut outputs: Vec<(String, Vec<u8>)> = Vec::new();
    for mode in ["500", "tool"] {
        let url = echo.url(mode);
        let vars = [
            ("MEMPALACE_REMOTE_URL", url.as_str()),
            ("MEMPALACE_REMOTE_TOKEN", token),
            ("MEMPALACE_PI_DEVICE", "devbox"),
        ];
        let runs: [&[&str]; 4] = [
            &["-vv", "--json", "mailbox", "watch", "--max-polls", "1"],
            &["-vv", "mailbox", "watch", "--max-polls", "1"],
            &["--json", "doctor", "--check", "mailbox"],
            &["-vv", "doctor", "--check", "mailbox"],
        ];
        for args in runs {
            let o = env.mpt(args, &vars);
            outputs.push((format!("{mode} {args:?} stdout"), o.stdout));
            outputs.push((format!("{mode} {args:?} stderr"), o.stderr));
        }
        // The refusal reached mpt (the test would prove nothing otherwise): doctor says polling,
        // quoting the primary's 500 with the token scrubbed; a proxy's 403 is named, not quoted.
        let o = env.mpt(&["--json", "doctor", "--check", "mailbox"], &vars);
        let said = String::from_utf8_lossy(&o.stdout).into_owned();
        let quoted = if mode == "500" {
            "Bearer <redacted>"
        } else {
            "route blocked"
        };
        assert!(
            said.contains("polling") && said.contains(quoted),
            "{mode}: doctor did not meet the refused stream: {said}"
        );
    }
    for (what, bytes) in &outputs {
        assert!(
            !leaks(bytes, token),
            "the token appeared in {what}: {}",
            String::from_utf8_lossy(bytes)
        );
    }
}

#[test]
fn enqueue_refuses_any_known_token_even_without_a_url_and_in_the_dedupe_key() {
    let env = TestEnv::new();
    let token = "tok-enqueue-2c7d-never-store-me";
    let outbox = env.path("outbox.sqlite3");
    let o = outbox.to_str().unwrap();
    let no_url: &[(&str, &str)] = &[("MEMPALACE_REMOTE_TOKEN", token), ("MPT_OUTBOX", o)];
    let with_url: &[(&str, &str)] = &[
        ("MEMPALACE_REMOTE_URL", "http://127.0.0.1:9/mcp"),
        ("MEMPALACE_REMOTE_TOKEN", token),
        ("MPT_OUTBOX", o),
    ];
    let entry = json!({"agent_name": "pi", "entry": format!("note {token}")}).to_string();
    for vars in [no_url, with_url] {
        let args = ["--json", "outbox", "enqueue", "diary_write", &entry];
        let r = env.mpt(&args, vars);
        assert_eq!(r.status.code(), Some(4), "{}", stdout(&r));
        assert!(!leaks(&r.stdout, token) && !leaks(&r.stderr, token));
    }
    let ok = r#"{"agent_name": "pi", "entry": "a plain note"}"#;
    for vars in [no_url, with_url] {
        let r = env.mpt(
            &[
                "--json",
                "outbox",
                "enqueue",
                "diary_write",
                ok,
                "--dedupe-key",
                token,
            ],
            vars,
        );
        assert_eq!(r.status.code(), Some(4), "{}", stdout(&r));
        assert!(
            json(&r)["message"].as_str().unwrap().contains("dedupe key"),
            "{}",
            stdout(&r)
        );
        assert!(!leaks(&r.stdout, token) && !leaks(&r.stderr, token));
    }
    // A token file counts too, without a URL.
    let tf = env.path("token");
    std::fs::write(&tf, token).unwrap();
    std::fs::set_permissions(&tf, std::fs::Permissions::from_mode(0o600)).unwrap();
    let r = env.mpt(
        &["outbox", "enqueue", "diary_write", &entry],
        &[("MPT_TOKEN_FILE", tf.to_str().unwrap()), ("MPT_OUTBOX", o)],
    );
    assert_eq!(r.status.code(), Some(4), "{}", stderr(&r));
    // The ordinary op is queued; nothing of the token is in the file.
    let r = env.mpt(&["outbox", "enqueue", "diary_write", ok], no_url);
    assert!(r.status.success(), "{}", stderr(&r));
    for (what, bytes) in files_under(outbox.parent().unwrap()) {
        if what.contains("outbox") {
            assert!(!leaks(&bytes, token), "the token is in {what}");
        }
    }
}

#[test]
fn the_mempalace_child_does_not_inherit_the_token() {
    let env = TestEnv::new();
    let token = "tok-child-61fa-never-inherit";
    let dump = env.path("child.env");
    let wrapper = env.path("mempalace-mcp-wrapper");
    crate::support::write_script(
        &wrapper,
        &format!(
            "#!/bin/sh\nenv >> '{}'\nexec '{}' \"$@\"\n",
            dump.display(),
            venv_bin("mempalace-mcp").display()
        ),
    );
    let tf = env.path("token");
    std::fs::write(&tf, token).unwrap();
    std::fs::set_permissions(&tf, std::fs::Permissions::from_mode(0o600)).unwrap();
    let palace = env.palace("local");
    let w = wrapper.to_str().unwrap();
    let p = palace.to_str().unwrap();

    // `mpt call` on the local palace (no URL) with the token in the environment.
    let o = env.mpt(
        &["call", "kg_stats", "--palace", p, "--child", w],
        &[
            ("MEMPALACE_REMOTE_TOKEN", token),
            ("MPT_TOKEN_FILE", tf.to_str().unwrap()),
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));

    // The edge with a primary configured: its child is the local palace's server.
    let mut h = Harness::start(
        &env,
        &["--palace", p, "--child", w],
        &[
            ("MEMPALACE_REMOTE_URL", "http://127.0.0.1:9/mcp"),
            ("MEMPALACE_REMOTE_TOKEN", token),
            ("MPT_OUTBOX", env.path("outbox.sqlite3").to_str().unwrap()),
        ],
    );
    h.initialize();
    h.close();
    drop(h);

    let seen = std::fs::read_to_string(&dump).unwrap();
    assert_eq!(
        seen.lines().filter(|l| l.starts_with("PATH=")).count(),
        2,
        "both children ran through the wrapper: {seen}"
    );
    assert!(!seen.contains(token), "a child inherited the token");
    assert!(!seen.contains("MEMPALACE_REMOTE_TOKEN="), "{seen}");
    assert!(!seen.contains("MPT_TOKEN_FILE="), "{seen}");
}
