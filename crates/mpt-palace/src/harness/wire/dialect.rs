//! How each harness writes an MCP entry (opencode: `command` as one array, `environment`;
//! Claude Code: `command` and `args`, `env`, `headersHelper`), the entry per state, what it keeps.

use std::path::Path;

use serde_json::{Map, Value, json};

use super::OptIn;
use crate::harness::kind::{self, EntryKind};
use crate::harness::opencode::token_ref;
use crate::harness::{claude, opencode};
use mpt_base::config::Remote;
use mpt_base::error::Result;

/// What every state keeps of the user's entry.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Kept {
    /// `--palace P` of its command (`mempalace-mcp --palace P` or `mpt edge … --palace P`).
    pub palace: Option<String>,
    /// Every key but `type`, `command`, `url` and `headers` (`environment`, `timeout`, …).
    pub keys: Map<String, Value>,
}

impl Kept {
    pub fn from_entry(dialect: Dialect, entry: &Value) -> Kept {
        let command = dialect.command(entry);
        let palace = kind::palace_arg(&command);
        let mut keys = entry.as_object().cloned().unwrap_or_default();
        if dialect.is_remote(entry) {
            // A remote entry's keys mean nothing to a local server, and back; what the dialect
            // keeps (opencode's `oauth`) is the user's choice for the next remote entry.
            keys.retain(|k, _| dialect.remote_kept().contains(&k.as_str()));
        }
        keys.retain(|k, _| !dialect.transport_keys().contains(&k.as_str()));
        Kept { palace, keys }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Dialect {
    Opencode,
    Claude,
}

impl Dialect {
    /// The name `mpt edge --harness` takes, stamped into what the edge writes.
    pub fn harness(self) -> &'static str {
        match self {
            Dialect::Opencode => "opencode",
            Dialect::Claude => "claude",
        }
    }

    /// The entry's program then its arguments.
    pub fn command(self, entry: &Value) -> Vec<String> {
        match self {
            Dialect::Opencode => opencode::command(entry),
            Dialect::Claude => claude::command(entry),
        }
    }

    pub fn kind(self, name: &str, entry: &Value) -> Option<EntryKind> {
        kind::classify(name, &self.command(entry), self.is_remote(entry))
    }

    /// Whether the harness itself speaks to the server over the network for this entry.
    pub fn is_remote(self, entry: &Value) -> bool {
        match self {
            Dialect::Opencode => entry.get("type").and_then(Value::as_str) == Some("remote"),
            Dialect::Claude => claude::is_remote(entry),
        }
    }

    /// What a remote entry keeps of the user's. opencode: its `timeout`, and its `oauth` (mpt
    /// writes `"oauth": false` otherwise: opencode would answer a refused token with its own
    /// OAuth discovery, a login prompt, instead of failing plainly). Claude Code: nothing.
    pub fn remote_kept(self) -> &'static [&'static str] {
        match self {
            Dialect::Opencode => &["timeout", "oauth"],
            Dialect::Claude => &[],
        }
    }

    /// Keys that describe the transport: each state writes its own.
    pub fn transport_keys(self) -> &'static [&'static str] {
        match self {
            Dialect::Opencode => &["type", "command", "url", "headers", "enabled"],
            Dialect::Claude => &["type", "command", "args", "url", "headers", "headersHelper"],
        }
    }

    /// The entry `state` wants, keeping what the user's entry carried. The token is never
    /// written: opencode references it (`{file:<absolute path>}` for a token file, else
    /// `{env:MEMPALACE_REMOTE_TOKEN}`); Claude Code asks `mpt token header` for it each time it
    /// connects. A remote entry's palace means nothing (the user's own entry is remembered for
    /// the way back: [`super::entry::saved_path`]).
    pub fn desired(
        self,
        state: OptIn,
        mpt: &Path,
        remote: Option<&Remote>,
        kept: &Kept,
    ) -> Result<Value> {
        let mut entry = Map::new();
        let palace: Vec<Value> = match &kept.palace {
            Some(p) => vec![json!("--palace"), json!(p)],
            None => Vec::new(),
        };
        let edge = || {
            let mut args = vec![json!("edge"), json!("--harness"), json!(self.harness())];
            args.extend(palace.iter().cloned());
            args
        };
        let url = json!(remote.map_or("", |r| r.url.as_str()));
        match (self, state) {
            (Dialect::Opencode, OptIn::Solitary) => {
                let mut command = vec![json!("mempalace-mcp")];
                command.extend(palace.iter().cloned());
                entry.insert("type".into(), json!("local"));
                entry.insert("command".into(), Value::Array(command));
            }
            (Dialect::Opencode, OptIn::Remote) => {
                let token = remote.and_then(|r| r.token.as_ref()).map(|(_, s)| s);
                entry.insert("type".into(), json!("remote"));
                entry.insert("url".into(), url);
                entry.insert(
                    "headers".into(),
                    json!({"Authorization": token_ref::header(token)?}),
                );
                entry.insert("oauth".into(), json!(false));
            }
            (Dialect::Opencode, OptIn::Edge) => {
                let mut command = vec![json!(mpt.display().to_string())];
                command.extend(edge());
                entry.insert("type".into(), json!("local"));
                entry.insert("command".into(), Value::Array(command));
            }
            (Dialect::Claude, OptIn::Solitary) => {
                entry.insert("type".into(), json!("stdio"));
                entry.insert("command".into(), json!("mempalace-mcp"));
                entry.insert("args".into(), Value::Array(palace.clone()));
            }
            (Dialect::Claude, OptIn::Remote) => {
                entry.insert("type".into(), json!("http"));
                entry.insert("url".into(), url);
                entry.insert(
                    "headersHelper".into(),
                    json!(format!(
                        "{} token header",
                        shell_word(&mpt.display().to_string())
                    )),
                );
            }
            (Dialect::Claude, OptIn::Edge) => {
                entry.insert("type".into(), json!("stdio"));
                entry.insert("command".into(), json!(mpt.display().to_string()));
                entry.insert("args".into(), Value::Array(edge()));
            }
        }
        for (k, v) in &kept.keys {
            let keep = match state {
                OptIn::Remote => self.remote_kept().contains(&k.as_str()),
                _ => k != "oauth",
            };
            if keep {
                entry.insert(k.clone(), v.clone());
            }
        }
        if self == Dialect::Opencode {
            entry.insert("enabled".into(), json!(true));
        }
        Ok(Value::Object(entry))
    }
}

/// `s` as one word for the shell Claude Code runs `headersHelper` with: as it is when it holds
/// only characters no shell treats specially, else single-quoted.
pub fn shell_word(s: &str) -> String {
    let plain = !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/._-+:@%=,".contains(&b));
    if plain {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_codes_entries_keep_the_palace_and_env_and_never_hold_the_token() {
        let user = json!({"type": "stdio", "command": "mempalace-mcp", "args": ["--palace", "/data/p"], "env": {"A": "b"}});
        let d = Dialect::Claude;
        let kept = Kept::from_entry(d, &user);
        assert_eq!(kept.palace.as_deref(), Some("/data/p"));
        let mpt = Path::new("/opt/my tools/mpt");
        let edge = d.desired(OptIn::Edge, mpt, None, &kept).unwrap();
        assert_eq!(
            edge,
            json!({"type": "stdio", "command": "/opt/my tools/mpt", "args": ["edge", "--harness", "claude", "--palace", "/data/p"], "env": {"A": "b"}})
        );
        assert_eq!(d.kind("mempalace", &edge), Some(EntryKind::Edge));
        let primary = Remote {
            url: "https://h/mcp".into(),
            token: None,
            ca_file: None,
        };
        let remote = d
            .desired(OptIn::Remote, mpt, Some(&primary), &kept)
            .unwrap();
        assert_eq!(
            remote,
            json!({"type": "http", "url": "https://h/mcp", "headersHelper": "'/opt/my tools/mpt' token header"})
        );
        assert!(d.is_remote(&remote));
        let back = d
            .desired(OptIn::Solitary, mpt, None, &Kept::from_entry(d, &edge))
            .unwrap();
        assert_eq!(back, user);
        assert_eq!(shell_word("/usr/bin/mpt"), "/usr/bin/mpt");
        assert_eq!(shell_word("/a'b"), r"'/a'\''b'");
    }

    const D: Dialect = Dialect::Opencode;

    #[test]
    fn every_state_keeps_the_palace_environment_and_timeout() {
        let user = json!({"type": "local", "command": ["mempalace-mcp", "--palace", "/data/p"], "environment": {"A": "b"}, "timeout": 30000, "enabled": false});
        let kept = Kept::from_entry(D, &user);
        assert_eq!(kept.palace.as_deref(), Some("/data/p"));
        let mpt = Path::new("/usr/local/bin/mpt");
        let edge = D.desired(OptIn::Edge, mpt, None, &kept).unwrap();
        assert_eq!(
            edge,
            json!({"type": "local", "command": ["/usr/local/bin/mpt", "edge", "--harness", "opencode", "--palace", "/data/p"], "environment": {"A": "b"}, "timeout": 30000, "enabled": true})
        );
        assert_eq!(
            Kept::from_entry(D, &edge),
            kept,
            "the edge entry carries it all"
        );
        let primary = Remote {
            url: "https://h/mcp".into(),
            token: None,
            ca_file: None,
        };
        let remote = D
            .desired(OptIn::Remote, mpt, Some(&primary), &kept)
            .unwrap();
        assert_eq!(remote["timeout"], 30000);
        assert!(remote.get("environment").is_none() && remote.get("command").is_none());
        // No OAuth discovery on a refused token, unless the user's own remote entry asked.
        assert_eq!(remote["oauth"], false, "{remote}");
        let own = Kept::from_entry(
            D,
            &json!({"type": "remote", "url": "u", "oauth": {"clientId": "c"}}),
        );
        let again = D.desired(OptIn::Remote, mpt, Some(&primary), &own).unwrap();
        assert_eq!(again["oauth"], json!({"clientId": "c"}));
        let local = D.desired(OptIn::Edge, mpt, None, &own).unwrap();
        assert!(local.get("oauth").is_none(), "{local}");
        let back = D
            .desired(OptIn::Solitary, mpt, None, &Kept::from_entry(D, &edge))
            .unwrap();
        assert_eq!(
            back,
            json!({"type": "local", "command": ["mempalace-mcp", "--palace", "/data/p"], "environment": {"A": "b"}, "timeout": 30000, "enabled": true})
        );
        let eq = Kept::from_entry(D, &json!({"command": "mempalace-mcp --palace=/q"}));
        assert_eq!(eq.palace.as_deref(), Some("/q"));
    }
}
