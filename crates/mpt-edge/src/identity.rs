//! Which routing an edge serves with: a fingerprint of the configuration that decides where calls
//! go, sent in a shim's hello, so an owner never serves a shim with another shim's configuration.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::unix::{OwnedReadHalf, OwnedWriteHalf};

use mpt_base::config::{Config, Env, WingPolicy};
use mpt_base::error::{ErrorKind, MptError, Result};

/// How long a shim waits for the owner to answer its hello (it answers at once; only an owner
/// from an older mpt, which never answers, makes this wait run out).
const WELCOME_WAIT: Duration = Duration::from_secs(30);

/// The routing configuration of one edge. The token is present only as a salted hash.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Identity {
    /// `MEMPALACE_REMOTE_URL`.
    pub remote_url: Option<String>,
    /// A hash of the token (never the token), to tell two tokens apart.
    pub token_hash: Option<String>,
    /// `MEMPALACE_EDGE`.
    pub edge_opt_in: bool,
    /// `MEMPALACE_PI_DEVICE`.
    pub device: Option<String>,
    /// The config file's `replication` (glob → policy).
    pub replication: BTreeMap<String, WingPolicy>,
    /// The outbox the writes queue in (with a remote only).
    pub outbox: Option<PathBuf>,
}

impl Identity {
    pub fn of(config: &Config, env: &Env, palace: &std::path::Path) -> Result<Identity> {
        let remote = config.remote.as_ref();
        let outbox = match remote {
            Some(_) => Some(mpt_palace::edge_outbox(env, config, Some(palace))?),
            None => None,
        };
        Ok(Identity {
            remote_url: remote.map(|r| r.url.clone()),
            token_hash: remote
                .and_then(|r| r.token.as_ref())
                .map(|(t, _)| token_hash(t.expose())),
            edge_opt_in: config.edge_opt_in,
            device: config.device.clone(),
            replication: config.file.replication.clone(),
            outbox,
        })
    }

    /// What differs, one phrase per setting, `mine` (the owner's) against `theirs`. The token is
    /// only ever said to differ.
    pub fn differences(&self, theirs: &Identity) -> Vec<String> {
        fn shown<T: std::fmt::Debug>(v: &Option<T>) -> String {
            v.as_ref().map_or("unset".into(), |v| format!("{v:?}"))
        }
        let mut out = Vec::new();
        if self.remote_url != theirs.remote_url {
            let url = |u: &Option<String>| shown(&u.as_deref().map(without_userinfo));
            out.push(format!(
                "MEMPALACE_REMOTE_URL (owner: {}, this edge: {})",
                url(&self.remote_url),
                url(&theirs.remote_url)
            ));
        }
        if self.token_hash != theirs.token_hash {
            let state = |t: &Option<String>| if t.is_some() { "set" } else { "unset" };
            out.push(format!(
                "the primary's token (owner: {}, this edge: {}{})",
                state(&self.token_hash),
                state(&theirs.token_hash),
                if self.token_hash.is_some() && theirs.token_hash.is_some() {
                    ", another value"
                } else {
                    ""
                }
            ));
        }
        if self.edge_opt_in != theirs.edge_opt_in {
            out.push(format!(
                "MEMPALACE_EDGE (owner: {}, this edge: {})",
                u8::from(self.edge_opt_in),
                u8::from(theirs.edge_opt_in)
            ));
        }
        if self.device != theirs.device {
            out.push(format!(
                "MEMPALACE_PI_DEVICE (owner: {}, this edge: {})",
                shown(&self.device),
                shown(&theirs.device)
            ));
        }
        if self.replication != theirs.replication {
            out.push(format!(
                "the replication policy (owner: {}, this edge: {})",
                json!(self.replication),
                json!(theirs.replication)
            ));
        }
        if self.outbox != theirs.outbox {
            out.push(format!(
                "the outbox (owner: {}, this edge: {})",
                shown(&self.outbox),
                shown(&theirs.outbox)
            ));
        }
        out
    }
}

/// A URL as it may be printed: any `user:password@` (a secret in the wrong place) redacted.
fn without_userinfo(url: &str) -> String {
    match reqwest::Url::parse(url) {
        Ok(mut u) if !u.username().is_empty() || u.password().is_some() => {
            let _ = u.set_username("redacted");
            let _ = u.set_password(None);
            u.to_string()
        }
        _ => url.to_string(),
    }
}

fn token_hash(token: &str) -> String {
    let digest = Sha256::new()
        .chain_update(b"mpt edge identity\0")
        .chain_update(token.as_bytes())
        .finalize();
    mpt_base::hex::hex(&digest[..12])
}

/// What the owner does with a new connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Admission {
    /// A tool client (`feed mine`, doctor, `mpt call`) or an older shim: served, nothing said.
    Unchecked,
    /// Same configuration: served, told so.
    Welcome,
    /// Another configuration while other clients use this owner: refused, told why.
    Refuse(Vec<String>),
    /// Another configuration and nobody else here: the owner steps down for a new one.
    Restart(Vec<String>),
}

/// The owner's decision for a connection whose hello carried `theirs`, with `others` other
/// clients connected.
pub fn admit(mine: &Identity, theirs: Option<&Identity>, others: usize) -> Admission {
    let Some(theirs) = theirs else {
        return Admission::Unchecked;
    };
    let diff = mine.differences(theirs);
    match (diff.is_empty(), others) {
        (true, _) => Admission::Welcome,
        (false, 0) => Admission::Restart(diff),
        (false, _) => Admission::Refuse(diff),
    }
}

/// Owner side: tells the shim the decision (one line); `true` when the connection is to be
/// served. A refusal or restart is logged to the owner's log too.
pub async fn answer(w: &mut OwnedWriteHalf, admission: &Admission, others: usize) -> bool {
    let pid = std::process::id();
    let line = match admission {
        Admission::Unchecked => return true,
        Admission::Welcome => json!({"mpt_edge_welcome": {"pid": pid}}),
        Admission::Refuse(diff) => {
            mpt_base::log_warn!(
                "edge owner: refused an edge with another configuration ({}): {others} other client(s) use this one",
                diff.join("; ")
            );
            json!({"mpt_edge_refused": {"pid": pid, "differences": diff, "clients": others}})
        }
        Admission::Restart(diff) => {
            mpt_base::log_warn!(
                "edge owner: an edge with another configuration ({}) and no other client: stepping down for an owner with its configuration",
                diff.join("; ")
            );
            json!({"mpt_edge_restarting": {"pid": pid, "differences": diff}})
        }
    };
    let sent = w
        .write_all(format!("{line}\n").as_bytes())
        .await
        .and(w.flush().await)
        .is_ok();
    sent && *admission == Admission::Welcome
}

/// What a shim learns from the owner's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Welcome {
    /// Served by the owner with this pid (when it said).
    Served(Option<u32>),
    /// The owner (this pid) steps down: wait for it to exit, then start one with this configuration.
    Restarting(u32),
    /// The owner closed the connection without answering.
    Closed,
}

/// Shim side: reads the owner's answer to the hello. A refusal is exit 4, naming each difference,
/// the owner's pid and how to get an owner with this configuration.
pub async fn await_welcome(r: &mut OwnedReadHalf, log: &std::path::Path) -> Result<Welcome> {
    let line = match tokio::time::timeout(WELCOME_WAIT, read_line(r)).await {
        Ok(Some(l)) => l,
        Ok(None) => return Ok(Welcome::Closed),
        Err(_) => {
            return Err(MptError::new(
                ErrorKind::Unavailable,
                format!(
                    "the edge owner did not answer this edge's hello in {} s: it may be an older mpt that cannot tell whether it serves this edge's configuration",
                    WELCOME_WAIT.as_secs()
                ),
            )
            .with_hint(format!(
                "stop that owner (its pid is in `mpt edge status`; its log: {}); the next `mpt edge` starts a current one",
                log.display()
            )));
        }
    };
    let v: Value = serde_json::from_slice(&line).unwrap_or(Value::Null);
    let pid = |k: &str| v.pointer(&format!("/{k}/pid")).and_then(Value::as_u64);
    if v.get("mpt_edge_welcome").is_some() {
        return Ok(Welcome::Served(pid("mpt_edge_welcome").map(|p| p as u32)));
    }
    if let Some(p) = pid("mpt_edge_restarting") {
        return Ok(Welcome::Restarting(p as u32));
    }
    let Some(refused) = v.get("mpt_edge_refused") else {
        return Err(MptError::new(
            ErrorKind::Io,
            format!(
                "the edge owner answered the hello with something else: {}",
                String::from_utf8_lossy(&line)
            ),
        ));
    };
    let diff: Vec<&str> = refused["differences"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let owner = refused["pid"].as_u64().unwrap_or(0);
    let clients = refused["clients"].as_u64().unwrap_or(0);
    Err(MptError::refused(format!(
        "the edge owner of this palace (pid {owner}) serves another configuration than this edge's, and {clients} other client(s) use it: {}. Serving this edge with it would route its calls by the other configuration",
        diff.join("; ")
    ))
    .with_hint(format!(
        "give every harness on this palace the same settings; or, once its sessions can stop, `kill {owner}` (the next `mpt edge` starts an owner with its own configuration)"
    )))
}

/// Waits (bounded) for a stepping-down owner to exit, so its child has left the palace.
pub async fn wait_gone(pid: u32, wait: Duration) {
    let end = Instant::now() + wait;
    while std::path::Path::new(&format!("/proc/{pid}")).exists() && !is_zombie(pid) {
        if Instant::now() > end {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn is_zombie(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| {
            s.rsplit(')')
                .next()
                .unwrap_or("")
                .trim_start()
                .starts_with('Z')
        })
        .unwrap_or(true)
}

/// One line, read byte by byte (nothing after it is consumed); `None` at EOF.
async fn read_line(r: &mut OwnedReadHalf) -> Option<Vec<u8>> {
    let mut line = Vec::new();
    let mut byte = [0u8; 1];
    while line.len() < 64 * 1024 {
        match r.read(&mut byte).await {
            Ok(1) if byte[0] == b'\n' => return Some(line),
            Ok(1) => line.push(byte[0]),
            _ => return None,
        }
    }
    Some(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn identity(url: Option<&str>, token: Option<&str>) -> Identity {
        Identity {
            remote_url: url.map(str::to_string),
            token_hash: token.map(token_hash),
            edge_opt_in: true,
            device: Some("box".into()),
            replication: BTreeMap::new(),
            outbox: None,
        }
    }

    #[test]
    fn differences_name_the_setting_never_the_token() {
        let a = identity(Some("https://p/mcp"), Some("tok-AAA"));
        assert!(a.differences(&a.clone()).is_empty());
        let b = identity(Some("https://p/mcp"), Some("tok-BBB"));
        let d = a.differences(&b);
        assert_eq!(d.len(), 1);
        assert!(
            d[0].contains("token") && d[0].contains("another value"),
            "{d:?}"
        );
        let text = format!("{d:?}{}", json!(b));
        assert!(
            !text.contains("tok-AAA") && !text.contains("tok-BBB"),
            "{text}"
        );
        let c = identity(None, None);
        let d = a.differences(&c);
        assert!(
            d[0].starts_with("MEMPALACE_REMOTE_URL (owner: \"https://p/mcp\", this edge: unset)"),
            "{d:?}"
        );
        let userinfo = identity(Some("https://u:tok-CCC@p/mcp"), None);
        let d = c.differences(&userinfo);
        assert!(
            d[0].contains("https://redacted@p/mcp") && !d[0].contains("tok-CCC"),
            "{d:?}"
        );
        assert_eq!(admit(&a, None, 3), Admission::Unchecked);
        assert_eq!(admit(&a, Some(&a), 3), Admission::Welcome);
        assert!(matches!(admit(&a, Some(&c), 0), Admission::Restart(_)));
        assert!(matches!(admit(&a, Some(&c), 1), Admission::Refuse(_)));
    }
}
