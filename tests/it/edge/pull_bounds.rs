//! The pull of the primary's log against hostile `/sync/*` replies (a fake primary: the real one
//! cannot misbehave on demand): bounded in memory, dead with its owner, lenient with events it
//! cannot fold, and its record scrubbed of the token and private.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Query, State};
use axum::response::Response;
use axum::routing::{get, post};
use mpt_base::config::{Config, Env};
use mpt_coord::pull::{PullError, Pulled};
use mpt_coord::puller::{self, PullPaths, PullRecord};
use mpt_edge::owner::OwnerPaths;
use serde_json::{Value, json};

use crate::support::harness::Harness;
use crate::support::{TestEnv, pid_alive, serve_app, venv_bin, wait_for};

const TOKEN: &str = "tok-9f3c1e-echoed";
/// What an endless reply is cut at: far past the bound the tests set, far below a machine's RAM.
const ENDLESS_CAP: u64 = 384 << 20;
/// The bound the memory test sets: a pull's Python needs ~30 MiB of address space to start.
const SMALL_BOUND: u64 = 128 << 20;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// `/sync/version_vector` streams a JSON object that never ends (cut at `ENDLESS_CAP`).
    Endless,
    /// `/sync/version_vector` sends its first bytes, then a space every 100 ms, forever.
    Drip,
    /// The token echoed as the primary's replica id; nothing to pull.
    EchoReplica,
    /// The token echoed as an event id whose artifact the primary does not serve.
    EchoError,
    /// Three events of `rep_o`, one with a text `origin_seq`, one with a body that is no text.
    Malformed,
}

#[derive(Clone)]
struct Fake {
    mode: Arc<Mutex<Mode>>,
    sent: Arc<AtomicU64>,
}

fn event(seq: Value, id: &str, body: Value) -> Value {
    json!({"id": id, "seq": 1, "type": "task.request", "stream": "s", "room": "r",
           "topic": null, "from_agent": "oc@b", "to_agent": "pi@a", "correlation_id": null,
           "branch": null, "base_commit": null, "status": "open", "body": body,
           "created_at": "2026-01-01T00:00:00Z", "metadata": {}, "artifact_ids": [],
           "origin_replica": "rep_o", "origin_seq": seq,
           "hlc": format!("1767225600000-00000{}-rep_o", id.len() % 10)})
}

async fn version_vector(State(f): State<Fake>) -> Response {
    let mode = *f.mode.lock().unwrap();
    let doc = match mode {
        Mode::Endless => {
            let sent = Arc::clone(&f.sent);
            return streamed(move |tx| async move {
                let _ = tx
                    .send(Bytes::from_static(b"{\"version_vector\": {\"x\": \""))
                    .await;
                let chunk = Bytes::from(vec![b'a'; 1 << 20]);
                while sent.load(Ordering::Relaxed) < ENDLESS_CAP {
                    if tx.send(chunk.clone()).await.is_err() {
                        break;
                    }
                    sent.fetch_add(chunk.len() as u64, Ordering::Relaxed);
                }
            });
        }
        Mode::Drip => {
            return streamed(|tx| async move {
                let _ = tx.send(Bytes::from_static(b"{\"version_vector\": {")).await;
                // A byte now and then, until the reader is gone: no socket timeout ever fires.
                loop {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    if tx.send(Bytes::from_static(b" ")).await.is_err() {
                        break;
                    }
                }
            });
        }
        Mode::EchoReplica => json!({"replica_id": TOKEN, "version_vector": {}}),
        Mode::EchoError | Mode::Malformed => {
            json!({"replica_id": "rep_p", "version_vector": {"rep_o": 3}})
        }
    };
    Response::new(Body::from(doc.to_string()))
}

/// A reply body `produce` writes chunk by chunk (each waits for the reader: no buffering ahead).
fn streamed<F, Fut>(produce: F) -> Response
where
    F: FnOnce(tokio::sync::mpsc::Sender<Bytes>) -> Fut,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    struct Chunks(tokio::sync::mpsc::Receiver<Bytes>);
    impl futures_core::Stream for Chunks {
        type Item = Result<Bytes, std::io::Error>;
        fn poll_next(
            mut self: std::pin::Pin<&mut Self>,
            cx: &mut std::task::Context<'_>,
        ) -> std::task::Poll<Option<Self::Item>> {
            self.0.poll_recv(cx).map(|c| c.map(Ok))
        }
    }
    let (tx, rx) = tokio::sync::mpsc::channel(1);
    tokio::spawn(produce(tx));
    Response::new(Body::from_stream(Chunks(rx)))
}

async fn ops(
    State(f): State<Fake>,
    Query(q): Query<std::collections::HashMap<String, String>>,
) -> String {
    let after: i64 = q.get("after").and_then(|a| a.parse().ok()).unwrap_or(0);
    let events = match *f.mode.lock().unwrap() {
        Mode::EchoError => {
            let mut e = event(json!(1), TOKEN, json!("b"));
            e["artifact_ids"] = json!(["art_missing"]);
            vec![e]
        }
        // As MemPalace serves them (`origin_seq > after ORDER BY origin_seq`): a text seq sorts
        // after every number, so it comes with every page.
        Mode::Malformed => [
            event(json!(1), "evt_good1", json!("first")),
            event(json!(2), "evt_badbody", json!({"not": "text"})),
            event(json!(3), "evt_good3", json!("third")),
        ]
        .into_iter()
        .filter(|e| e["origin_seq"].as_i64() > Some(after))
        .chain([event(json!("4"), "evt_textseq", json!("text seq"))])
        .collect(),
        _ => vec![],
    };
    json!({"events": events}).to_string()
}

async fn mcp(body: Bytes) -> Response {
    let msg: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let Some(id) = msg.get("id").cloned() else {
        return Response::builder().status(202).body(Body::empty()).unwrap();
    };
    let result = match msg["method"].as_str() {
        Some("initialize") => {
            json!({"protocolVersion": "2025-06-18", "capabilities": {"tools": {}}, "serverInfo": {"name": "fake", "version": "9"}})
        }
        Some("tools/list") => json!({"tools": []}),
        _ => json!({"content": [{"type": "text", "text": "{\"success\": true}"}]}),
    };
    Response::builder()
        .header("content-type", "application/json")
        .body(Body::from(
            json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string(),
        ))
        .unwrap()
}

/// The fake primary on loopback: its MCP URL, the runtime serving it (kept by the caller).
fn fake(mode: Mode) -> (Fake, String, tokio::runtime::Runtime) {
    fake_under("", mode, true)
}

/// The fake primary behind a path `prefix` (`/palace`: its MCP endpoint at `/palace/mcp`), with
/// or without a `/healthz` beside it.
fn fake_under(prefix: &str, mode: Mode, healthz: bool) -> (Fake, String, tokio::runtime::Runtime) {
    let f = Fake {
        mode: Arc::new(Mutex::new(mode)),
        sent: Arc::new(AtomicU64::new(0)),
    };
    let mut app = Router::new()
        .route(&format!("{prefix}/mcp"), post(mcp))
        .route(
            &format!("{prefix}/sync/version_vector"),
            get(version_vector),
        )
        .route(&format!("{prefix}/sync/ops"), get(ops))
        .route(
            &format!("{prefix}/sync/artifact"),
            get(|| async { "{\"artifact\": null}" }),
        );
    if healthz {
        app = app.route(&format!("{prefix}/healthz"), get(|| async { "ok" }));
    }
    let (port, rt) = serve_app(app.with_state(f.clone()));
    (f, format!("http://127.0.0.1:{port}{prefix}/mcp"), rt)
}

/// One pull now, as `mpt mailbox` runs it with no owner: the configuration read from `vars`.
fn pull_now(
    env: &TestEnv,
    palace: &Path,
    url: &str,
    vars: &[(&str, &str)],
) -> Result<Pulled, PullError> {
    let home = env.home();
    let mut pairs = vec![
        ("HOME", home.to_str().unwrap()),
        ("MEMPALACE_REMOTE_URL", url),
        ("MEMPALACE_REMOTE_TOKEN", TOKEN),
    ];
    pairs.extend_from_slice(vars);
    let e = Env::from_pairs(pairs);
    let config = Config::load(&e, None).unwrap();
    std::fs::create_dir_all(palace).unwrap();
    let paths = PullPaths::new(&home, palace);
    std::fs::create_dir_all(paths.lock.parent().unwrap()).unwrap();
    let p = puller::configure(&config, &e, palace, &venv_bin("mempalace-mcp"), &paths)
        .expect("a primary, pulls on, a Python child");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(puller::pull_now(&p))
        .expect("no other pull holds the lock")
}

fn record_file(env: &TestEnv, palace: &Path) -> PathBuf {
    PullPaths::new(&env.home(), palace).record
}

#[test]
fn an_endless_sync_reply_ends_the_pull_at_its_memory_bound() {
    let env = TestEnv::new();
    let palace = env.palace("local");
    let (f, url, _rt) = fake(Mode::Endless);
    let bound = SMALL_BOUND.to_string();
    let got = pull_now(
        &env,
        &palace,
        &url,
        &[("MPT_EDGE_PULL_MEMORY_BYTES", &bound)],
    );
    assert_eq!(got, Err(PullError::Memory(SMALL_BOUND)));
    let sent = f.sent.load(Ordering::Relaxed);
    assert!(
        sent < ENDLESS_CAP,
        "the pull read all {sent} bytes: no bound"
    );
    let rec: PullRecord = puller::read_record(&record_file(&env, &palace)).unwrap();
    assert!(
        rec.last_error
            .as_deref()
            .unwrap()
            .contains("MPT_EDGE_PULL_MEMORY_BYTES"),
        "{rec:?}"
    );
    // A bad knob is exit 2 naming it, for every command.
    let o = env.mpt(
        &["--json", "edge", "status"],
        &[("MPT_EDGE_PULL_MEMORY_BYTES", "1G")],
    );
    assert_eq!(o.status.code(), Some(2), "{}", crate::support::stderr(&o));
    let said = format!(
        "{}{}",
        crate::support::stdout(&o),
        crate::support::stderr(&o)
    );
    assert!(said.contains("MPT_EDGE_PULL_MEMORY_BYTES='1G'"), "{said}");
}

#[test]
fn a_pulled_event_that_cannot_be_folded_is_skipped_and_the_rest_pulled() {
    let env = TestEnv::new();
    let palace = env.palace("local");
    let (_f, url, _rt) = fake(Mode::Malformed);
    let got = pull_now(&env, &palace, &url, &[]).expect("the round succeeds");
    assert_eq!(got.pulled_events, 2, "{got:?}");
    assert_eq!(got.skipped_events, 2, "{got:?}");
    let c = rusqlite::Connection::open(palace.join("logstream.sqlite3")).unwrap();
    let mut ids: Vec<String> = c
        .prepare("SELECT id FROM events WHERE origin_replica = 'rep_o' ORDER BY origin_seq")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    ids.sort();
    assert_eq!(ids, ["evt_good1", "evt_good3"]);
    let record = puller::read_record(&record_file(&env, &palace)).unwrap();
    let status = record.to_status();
    assert_eq!(status.rows_skipped, 2, "{status:?}");
    // Not stalled: the next round succeeds too and pulls nothing twice.
    let again = pull_now(&env, &palace, &url, &[]).expect("the next round too");
    assert_eq!(again.pulled_events, 0, "{again:?}");
    let record = puller::read_record(&record_file(&env, &palace)).unwrap();
    let status = record.to_status();
    assert_eq!(status.last_error, None, "{status:?}");
    assert!(status.last_success.is_some(), "{status:?}");
}

#[test]
fn a_token_the_primary_echoes_never_reaches_the_pull_record_which_is_private() {
    let env = TestEnv::new();
    let palace = env.palace("local");
    let (f, url, _rt) = fake(Mode::EchoReplica);
    let path = record_file(&env, &palace);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    // A record left 0644 by an older mpt is replaced by a private one.
    std::fs::write(&path, "{}").unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
    pull_now(&env, &palace, &url, &[]).expect("nothing to pull");
    *f.mode.lock().unwrap() = Mode::EchoError;
    let err = pull_now(&env, &palace, &url, &[]).unwrap_err();
    assert!(
        err.to_string().contains(TOKEN),
        "the echo reached the error: {err}"
    );
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(!text.contains(TOKEN), "{text}");
    let rec: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(rec["last"]["peer_replica"], "<redacted>", "{rec}");
    assert!(
        rec["last_error"].as_str().unwrap().contains("<redacted>"),
        "{rec}"
    );
    let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "{mode:o}");
    // What status and doctor show of it.
    let vars = [
        ("MEMPALACE_REMOTE_URL", url.as_str()),
        ("MEMPALACE_REMOTE_TOKEN", TOKEN),
    ];
    let pal = palace.to_str().unwrap();
    let o = env.mpt(&["--json", "edge", "status", "--palace", pal], &vars);
    let out = crate::support::stdout(&o);
    assert!(!out.contains(TOKEN), "{out}");
    let doc: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    let pull = &doc["pull"];
    assert!(pull["failing_since"].is_string(), "{doc}");
    assert!(pull["last_success"].is_string(), "{doc}");
    assert!(
        pull["last_error"].as_str().unwrap().contains("<redacted>"),
        "{doc}"
    );
    assert_eq!(pull["rows_skipped"], 0, "{doc}");
    let o = env.mpt(
        &["--json", "doctor", "--check", "pull"],
        &[vars[0], vars[1], ("MEMPALACE_PALACE_PATH", pal)],
    );
    let out = crate::support::stdout(&o);
    assert!(!out.contains(TOKEN), "{out}");
    assert!(out.contains("fails since"), "{out}");
}

/// The pid of `parent`'s child whose command line holds `needle`.
fn child_with(parent: u32, needle: &str) -> Option<u32> {
    std::fs::read_dir("/proc").ok()?.flatten().find_map(|e| {
        let pid: u32 = e.file_name().to_str()?.parse().ok()?;
        let stat = std::fs::read_to_string(e.path().join("stat")).ok()?;
        // `pid (comm) state ppid ...`: the comm may hold spaces, so cut after its last `)`.
        let ppid: u32 = stat
            .rsplit(')')
            .next()?
            .split_whitespace()
            .nth(1)?
            .parse()
            .ok()?;
        let cmdline = std::fs::read(e.path().join("cmdline")).ok()?;
        (ppid == parent && String::from_utf8_lossy(&cmdline).contains(needle)).then_some(pid)
    })
}

/// Kills a pid left behind (SIGKILL) when dropped, so a failed test leaves no orphan.
struct KillOnDrop(Option<u32>);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        if let Some(pid) = self.0
            && pid_alive(pid)
        {
            unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) };
        }
    }
}

#[test]
fn kill_9_of_the_owner_takes_its_pull_with_it() {
    let env = TestEnv::new();
    let palace = env.palace("local");
    let (_f, url, _rt) = fake(Mode::Drip);
    let vars = [
        ("MEMPALACE_REMOTE_URL", url.as_str()),
        ("MEMPALACE_REMOTE_TOKEN", TOKEN),
        ("MEMPALACE_PI_DEVICE", "lap"),
        ("MPT_EDGE_PULL_DEADLINE_MS", "600000"),
    ];
    let mut h = Harness::start(
        &env,
        &["--palace", palace.to_str().unwrap(), "--harness", "pi"],
        &vars,
    );
    h.initialize();
    let paths = OwnerPaths::new(&env.snapshot(), &env.home(), &palace);
    let mut owner = None;
    let mut pull = None;
    assert!(
        wait_for(120.0, || {
            owner = owner.or_else(|| mpt_edge::owner::owner_pid(&paths));
            pull = owner.and_then(|o| child_with(o, "sync_with_peer"));
            pull.is_some()
        }),
        "the owner ({owner:?}) started its pull against the dripping primary"
    );
    let (owner, pull) = (owner.unwrap(), pull.unwrap());
    let _orphan = KillOnDrop(Some(pull));
    unsafe { libc::kill(owner as libc::pid_t, libc::SIGKILL) };
    assert!(
        wait_for(30.0, || !pid_alive(pull)),
        "the pull {pull} outlived its owner {owner}"
    );
    h.terminate();
}

#[test]
fn a_primary_behind_a_path_prefix_is_pulled_from_beside_its_mcp_endpoint() {
    let env = TestEnv::new();
    let palace = env.palace("local");
    let (_f, url, _rt) = fake_under("/palace", Mode::Malformed, true);
    let got = pull_now(&env, &palace, &url, &[]).expect("the pull reaches /palace/sync/*");
    assert_eq!(got.pulled_events, 2, "{got:?}");
    let rec = puller::read_record(&record_file(&env, &palace)).unwrap();
    assert!(rec.primary.ends_with("/palace"), "{rec:?}");
    // The prefix forwarded for /mcp alone: doctor fails, naming the /healthz it looked for.
    let (_f, url, _rt) = fake_under("/palace", Mode::Malformed, false);
    let o = env.mpt(
        &["--json", "doctor", "--check", "transport"],
        &[("MEMPALACE_REMOTE_URL", url.as_str())],
    );
    let out = crate::support::stdout(&o);
    assert_ne!(o.status.code(), Some(0), "{out}");
    assert!(out.contains("/palace/healthz"), "{out}");
    assert!(out.contains("\"fail\""), "{out}");
}
