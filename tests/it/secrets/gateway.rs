//! The gateway handles two secrets, the devices' tokens and the upstream's: neither at rest, in
//! its logs, in any `--json`, on an argv; the device's never goes upstream, the client's headers stay.

use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, Method, Uri};
use axum::response::Response;
use serde_json::{Value, json};

use crate::support::gateway::{Gateway, UPSTREAM_TOKEN, http, mpt, policy, post, write_policy};
use crate::support::{TestEnv, files_under, json, leaks, stderr};

/// One request as it arrived: method, path, headers, body.
type Seen = (String, String, HeaderMap, Bytes);

/// What the gateway sent on: method, path and headers of every request (the real `serve` cannot
/// say which Authorization it was given), answered as `serve` would.
struct Recorder {
    port: u16,
    seen: Arc<Mutex<Vec<Seen>>>,
    _rt: tokio::runtime::Runtime,
}

impl Recorder {
    fn start() -> Recorder {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&seen);
        let app = Router::new().fallback(move |method: Method, uri: Uri, headers: HeaderMap, body: Bytes| {
            let log = Arc::clone(&log);
            async move {
                log.lock().unwrap().push((method.to_string(), uri.to_string(), headers, body.clone()));
                let id = serde_json::from_slice::<Value>(&body).ok().and_then(|v| v.get("id").cloned()).unwrap_or(Value::Null);
                let reply = json!({"jsonrpc": "2.0", "id": id, "result": {"content": [{"type": "text", "text": "{\"success\": true}"}]}});
                Response::builder()
                    .header("content-type", "application/json")
                    .body(Body::from(reply.to_string()))
                    .unwrap()
            }
        });
        let (port, rt) = crate::support::serve_app(app);
        Recorder {
            port,
            seen,
            _rt: rt,
        }
    }
}

#[test]
fn the_gateway_holds_no_token_at_rest_in_logs_in_json_or_on_argv_and_sends_only_its_own_upstream() {
    let env = TestEnv::new();
    let dir = env.path("gateway");
    write_policy(&dir, &policy(json!({"lap": {"role": "member"}})));
    let up = Recorder::start();
    let mut outputs: Vec<(String, Vec<u8>)> = Vec::new();

    let envfile = env.path("lap.env");
    let o = mpt(
        &env,
        &dir,
        &[
            "--json",
            "gateway",
            "token",
            "issue",
            "lap",
            "--expires",
            "1d",
            "--out",
            envfile.to_str().unwrap(),
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    outputs.push(("issue --json".into(), [o.stdout, o.stderr].concat()));
    let lap = std::fs::read_to_string(&envfile)
        .unwrap()
        .trim()
        .to_string();
    assert!(lap.starts_with("mptg_"), "the token alone");

    let mut gw = Gateway::start(
        &env,
        &dir,
        &format!("http://127.0.0.1:{}", up.port),
        &["-vv"],
        &[],
    );
    let cmdline = std::fs::read(format!("/proc/{}/cmdline", gw.pid())).unwrap();
    // The client's headers that must stay at the gateway.
    let auth = format!("Bearer {lap}");
    let r = http(
        gw.port,
        "POST",
        "/mcp",
        &[
            ("host", b"gw.example:8443"),
            ("authorization", auth.as_bytes()),
            ("origin", b"https://evil.example"),
            ("x-forwarded-for", b"6.6.6.6"),
            ("x-forwarded-host", b"evil.example"),
            ("tailscale-user-login", b"someone-else@example"),
            ("cookie", b"session=1"),
            ("content-type", b"application/json"),
        ],
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "mempalace_kg_stats", "arguments": {}}}).to_string().as_bytes(),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let r = crate::support::gateway::get(gw.port, &lap, "/sync/version_vector");
    assert_eq!(r.status, 200, "{}", r.text());
    // A refused one and a bad token carry the secret in the request; nothing of it comes back.
    let r = crate::support::gateway::call(
        gw.port,
        &lap,
        "mempalace_delete_drawer",
        json!({"drawer_id": lap}),
    );
    assert!(!leaks(&r.body, &lap), "{}", r.text());
    let r = post(
        gw.port,
        &format!("{lap}x"),
        r#"{"jsonrpc": "2.0", "id": 1, "method": "ping"}"#,
    );
    assert_eq!(r.status, 401);
    assert!(!leaks(&r.body, &lap));
    gw.stop();

    let mut seen = up.seen.lock().unwrap().clone();
    // The gateway's own start probe first (issue 56): its upstream bearer, no device's header.
    let probe = seen.remove(0);
    assert_eq!(
        probe.3,
        br#"{"jsonrpc": "2.0", "id": 0, "method": "tools/list"}"#.to_vec()
    );
    assert_eq!(
        probe.2.get("authorization").and_then(|v| v.to_str().ok()),
        Some(format!("Bearer {UPSTREAM_TOKEN}").as_str())
    );
    assert!(probe.2.get("tailscale-user-login").is_none());
    assert_eq!(seen.len(), 2, "two requests went upstream: {seen:?}");
    for (method, uri, h, body) in &seen {
        let get = |k: &str| h.get(k).and_then(|v| v.to_str().ok()).map(str::to_string);
        assert_eq!(
            get("authorization"),
            Some(format!("Bearer {UPSTREAM_TOKEN}")),
            "{method} {uri}"
        );
        assert_eq!(
            get("host"),
            Some(format!("127.0.0.1:{}", up.port)),
            "{method} {uri}"
        );
        for dropped in ["origin", "x-forwarded-host", "cookie"] {
            assert!(get(dropped).is_none(), "{dropped} went upstream");
        }
        assert_eq!(get("x-forwarded-for").as_deref(), Some("127.0.0.1"));
        assert_eq!(get("tailscale-user-login").as_deref(), Some("mpt:lap"));
        assert!(
            h.values().all(|v| !leaks(v.as_bytes(), &lap)),
            "the device's token went upstream"
        );
        assert!(!leaks(body, &lap));
    }
    assert_eq!(
        seen[0].2.get("content-length").unwrap(),
        &seen[0].3.len().to_string()
    );

    for args in [
        vec!["--json", "gateway", "token", "list"],
        vec!["gateway", "token", "list"],
        vec!["--json", "gateway", "audit"],
        vec!["gateway", "audit"],
        vec!["--json", "gateway", "audit", "verify"],
        vec!["--json", "gateway", "token", "revoke", "lap"],
    ] {
        let o = mpt(&env, &dir, &args);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        if args[0] == "--json" {
            json(&o);
        }
        outputs.push((format!("{args:?}"), [o.stdout, o.stderr].concat()));
    }
    outputs.push((
        "the gateway's -vv log".into(),
        std::fs::read(&gw.log).unwrap(),
    ));
    outputs.push(("the gateway's argv".into(), cmdline));
    outputs.extend(files_under(&dir));
    for (what, bytes) in &outputs {
        assert!(!leaks(bytes, &lap), "{what} holds the device token");
        assert!(
            !leaks(bytes, UPSTREAM_TOKEN),
            "{what} holds the upstream token"
        );
    }
    let tokens: Value =
        serde_json::from_slice(&std::fs::read(dir.join("tokens.json")).unwrap()).unwrap();
    assert_eq!(
        tokens["tokens"][0]["sha256"].as_str().unwrap().len(),
        64,
        "a hash is all it keeps"
    );
}
