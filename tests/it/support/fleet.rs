//! A fleet on one machine: a real `mempalace serve` primary with a token, and devices (own HOME,
//! own local palace, own device name) that reach it only through their own switchable `Link`.

use mpt_mcp::CallError;
use serde_json::{Value, json};
use std::path::PathBuf;
use std::process::Output;

use super::harness::Harness;
use super::link::Link;
use super::primary::PrimaryOpts;
use super::{Primary, TestEnv, json as parse_json, wait_for};

pub const TOKEN: &str = "fleet-secret-7d1f0c";

pub struct Device {
    pub name: String,
    pub env: TestEnv,
    pub link: Link,
    pub palace: PathBuf,
    /// The bearer it holds: the primary's shared [`TOKEN`], or its own gateway token.
    pub token: String,
}

pub struct Fleet {
    pub devices: Vec<Device>,
    pub primary: Primary,
    /// The primary's HOME, removed after the primary stopped (fields drop in order).
    _primary_env: TestEnv,
}

impl Fleet {
    /// One primary and `n` devices (`dev0`, `dev1`, …), every link passing.
    pub fn start(n: usize) -> Fleet {
        let links: Vec<Link> = (0..n).map(|_| Link::bind()).collect();
        // The primary's Host pin includes the port: each link's address is allowed by name.
        let hosts = links.iter().map(Link::host).collect::<Vec<_>>().join(",");
        let primary_env = TestEnv::new();
        let primary = Primary::start(
            &primary_env,
            &primary_env.palace("primary"),
            PrimaryOpts {
                token: Some(TOKEN),
                extra_env: vec![("MEMPALACE_MCP_EXTRA_ALLOWED_HOSTS", hosts)],
                ..Default::default()
            },
        );
        let devices = links
            .into_iter()
            .enumerate()
            .map(|(i, link)| {
                link.set_upstream(primary.port);
                let env = TestEnv::new();
                let palace = env.palace("local");
                Device {
                    name: format!("dev{i}"),
                    env,
                    link,
                    palace,
                    token: TOKEN.into(),
                }
            })
            .collect();
        Fleet {
            devices,
            primary,
            _primary_env: primary_env,
        }
    }

    /// A tool call straight to the primary (not through any link).
    pub fn call(&self, tool: &str, args: Value) -> Result<Value, CallError> {
        self.primary.call(tool, args)
    }

    /// Every event on the primary written by `writer`, oldest first.
    pub fn events_by(&self, writer: &str) -> Vec<Value> {
        let p = self
            .call(
                "mempalace_event_list",
                json!({"writer": writer, "limit": 500, "order": "asc"}),
            )
            .unwrap();
        p["events"].as_array().cloned().unwrap_or_default()
    }

    /// The diary entries (text) on the primary for `agent` in `wing` (none while the primary's
    /// palace has no drawers yet: 3.11 answers "Chroma database missing" then).
    pub fn diary(&self, agent: &str, wing: &str) -> Vec<String> {
        let Ok(p) = self.call(
            "mempalace_diary_read",
            json!({"agent_name": agent, "wing": wing, "last_n": 100}),
        ) else {
            return Vec::new();
        };
        p["entries"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|e| e["content"].as_str().unwrap_or("").to_string())
            .collect()
    }
}

impl Fleet {
    /// An open ask on the primary from `from` to `to`: its id.
    pub fn ask(&self, from: &str, to: &str, body: &str) -> String {
        self.call(
            "mempalace_event_append",
            json!({"type": "task.request", "stream": "fleet", "room": "ops",
                   "from_agent": from, "to_agent": to, "status": "open", "body": body}),
        )
        .unwrap()["event"]["id"]
            .as_str()
            .unwrap()
            .to_string()
    }
}

impl Device {
    /// Events in this device's palace matching `clause` with `?1` = `arg` (read-only, as a
    /// test's eye).
    pub fn local_count(&self, clause: &str, arg: &str) -> i64 {
        let path = self.palace.join("logstream.sqlite3");
        let Ok(c) = rusqlite::Connection::open_with_flags(
            &path,
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
        ) else {
            return 0;
        };
        c.query_row(
            &format!("SELECT count(*) FROM events WHERE {clause}"),
            [arg],
            |r| r.get(0),
        )
        .unwrap_or(0)
    }

    /// Whether this device's palace holds event `id`.
    pub fn local_has(&self, id: &str) -> bool {
        self.local_count("id = ?1", id) > 0
    }

    /// Whether an owner (or a mailbox read) recorded a pull that succeeded (`<key>.pull.json`).
    /// The record is written after the pulled events land, so a test that reads `last_pull`
    /// waits for it, not for them.
    pub fn pull_recorded(&self) -> bool {
        std::fs::read_dir(self.env.home().join(".mempalace/edge"))
            .into_iter()
            .flatten()
            .flatten()
            .any(|e| {
                e.file_name().to_string_lossy().ends_with(".pull.json")
                    && std::fs::read(e.path())
                        .ok()
                        .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
                        .is_some_and(|r| r["last_success_ms"].is_i64())
            })
    }

    /// The environment of a harness on this device opted into the edge.
    pub fn vars(&self) -> Vec<(String, String)> {
        vec![
            ("MEMPALACE_REMOTE_URL".into(), self.link.url()),
            ("MEMPALACE_REMOTE_TOKEN".into(), self.token.clone()),
            ("MEMPALACE_EDGE".into(), "1".into()),
            ("MEMPALACE_PI_DEVICE".into(), self.name.clone()),
            (
                "MEMPALACE_PALACE_PATH".into(),
                self.palace.display().to_string(),
            ),
            // A black-holed link answers nothing: a read or a coordination write waits this
            // long for the primary, not 5 s. `MEMPALACE_MCP_TIMEOUT_MS` keeps its default (60 s):
            // it is also the local child's per-call deadline, and the child's first write loads
            // the embedding model (past 8 s on a loaded 2-core machine). The flusher's calls
            // need no shorter bound: no link holds a connection past its next mode switch.
            ("MPT_EDGE_READ_DEADLINE_MS".into(), "1500".into()),
        ]
    }

    /// A harness session through `mpt edge`, initialized.
    pub fn session(&self, harness: &str, extra: &[(&str, &str)]) -> Harness {
        let mut vars = self.vars();
        vars.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        let refs: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        let mut h = Harness::start(&self.env, &["--harness", harness], &refs);
        h.initialize();
        h
    }

    pub fn mpt(&self, args: &[&str]) -> Output {
        self.mpt_with(args, &[])
    }

    /// `mpt [args]` on this device with `extra` over its variables.
    pub fn mpt_with(&self, args: &[&str], extra: &[(&str, &str)]) -> Output {
        let vars = self.vars();
        let mut refs: Vec<(&str, &str)> =
            vars.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        refs.extend_from_slice(extra);
        self.env.mpt(args, &refs)
    }

    /// `mpt --json outbox` on this device.
    pub fn outbox(&self) -> Value {
        parse_json(&self.mpt(&["--json", "outbox"]))
    }

    /// Waits until nothing is open in this device's outbox (a flusher drained it).
    pub fn wait_drained(&self, secs: f64) -> bool {
        wait_for(secs, || self.outbox()["open"] == 0)
    }

    /// The identity this device's `harness` stamps.
    pub fn agent(&self, harness: &str) -> String {
        format!("{harness}@{}", self.name)
    }
}
