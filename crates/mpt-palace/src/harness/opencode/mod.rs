//! opencode's MCP registrations: `opencode.json` / `opencode.jsonc` (comments and trailing commas
//! allowed), global and per project, entries in `mcp` (or `mcp.servers`); which ones serve MemPalace.
//! Also where opencode keeps its conversations: the SQLite database, by opencode's own rule.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::jsonc;
use mpt_base::config::Env;

pub mod token_ref;

pub use super::kind::EntryKind;

#[derive(Debug, Clone, serde::Serialize)]
pub struct Entry {
    pub file: PathBuf,
    pub name: String,
    pub kind: EntryKind,
    pub command: Vec<String>,
    pub enabled: bool,
    /// A remote entry's `Authorization` header as written (a `{env:…}`/`{file:…}` reference,
    /// or a literal token: never printed).
    #[serde(skip)]
    pub authorization: Option<String>,
}

impl Entry {
    /// `"type": "remote"`: opencode itself speaks to the primary, with the header's token.
    pub fn remote_kind(&self) -> bool {
        self.kind == EntryKind::Remote
    }
}

/// `$XDG_CONFIG_HOME/opencode`, else `~/.config/opencode`.
pub fn global_dir(env: &Env) -> Option<PathBuf> {
    match env.get("XDG_CONFIG_HOME") {
        Some(x) => Some(Path::new(x).join("opencode")),
        None => env
            .get("HOME")
            .map(|h| Path::new(h).join(".config").join("opencode")),
    }
}

/// `$XDG_DATA_HOME/opencode`, else `~/.local/share/opencode` (opencode's `Global.Path.data`).
pub fn data_dir(env: &Env) -> Option<PathBuf> {
    match env
        .get("XDG_DATA_HOME")
        .filter(|x| Path::new(x).is_absolute())
    {
        Some(x) => Some(Path::new(x).join("opencode")),
        None => env
            .get("HOME")
            .map(|h| Path::new(h).join(".local/share/opencode")),
    }
}

/// The channels whose database is plain `opencode.db` (opencode 1.18's `G4()`).
const PLAIN_DB_CHANNELS: [&str; 3] = ["latest", "beta", "prod"];

/// The database file opencode on `channel` uses: `OPENCODE_DB` when set (absolute as is, else
/// inside the data dir; `:memory:` has no file, so `None`), else `opencode.db` on the latest, beta
/// and prod channels (or with `OPENCODE_DISABLE_CHANNEL_DB`), `opencode-<channel>.db` otherwise.
pub fn channel_db(env: &Env, channel: &str) -> Option<PathBuf> {
    let data = data_dir(env)?;
    if let Some(db) = env.get("OPENCODE_DB").filter(|d| !d.is_empty()) {
        if db == ":memory:" {
            return None;
        }
        let p = Path::new(db);
        return Some(if p.is_absolute() {
            p.to_path_buf()
        } else {
            data.join(p)
        });
    }
    let plain = PLAIN_DB_CHANNELS.contains(&channel)
        || matches!(env.get("OPENCODE_DISABLE_CHANNEL_DB"), Some("1" | "true"));
    if plain {
        return Some(data.join("opencode.db"));
    }
    let safe = mpt_base::config::feed::dashed(channel);
    Some(data.join(format!("opencode-{safe}.db")))
}

/// The database this device's opencode writes, without asking the binary its channel: the
/// `OPENCODE_DB` or `opencode.db` file (the npm release is the `latest` channel), else the most
/// recently written `opencode-<channel>.db` in the data dir, else `opencode.db` (not there yet).
pub fn database(env: &Env) -> Option<PathBuf> {
    let plain = channel_db(env, "latest")?;
    if plain.exists() || env.get("OPENCODE_DB").is_some() {
        return Some(plain);
    }
    let newest = std::fs::read_dir(plain.parent()?)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| {
            let n = e.file_name();
            let n = n.to_string_lossy();
            n.starts_with("opencode-") && n.ends_with(".db")
        })
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .max();
    Some(newest.map(|(_, p)| p).unwrap_or(plain))
}

/// The config files that exist, project first (`./`, `./.opencode/`), then global.
pub fn files(env: &Env, project: &Path) -> Vec<PathBuf> {
    let mut dirs = vec![project.to_path_buf(), project.join(".opencode")];
    dirs.extend(global_dir(env));
    let mut out = Vec::new();
    for d in dirs {
        for name in ["opencode.json", "opencode.jsonc"] {
            let p = d.join(name);
            if p.is_file() && !out.contains(&p) {
                out.push(p);
            }
        }
    }
    out
}

/// Everything opencode would read here: its config files, their MemPalace entries, and the files
/// that do not parse (opencode may ignore those).
#[derive(Debug, Clone, Default)]
pub struct Wiring {
    pub files: Vec<PathBuf>,
    pub entries: Vec<Entry>,
    pub unparsable: Vec<(PathBuf, String)>,
    /// The global config dir exists (opencode is set up even without a file).
    pub global_dir: bool,
}

impl Wiring {
    pub fn read(env: &Env, project: &Path) -> Wiring {
        let mut w = Wiring {
            files: files(env, project),
            global_dir: global_dir(env).is_some_and(|d| d.is_dir()),
            ..Default::default()
        };
        for f in &w.files {
            match entries(f) {
                Ok(e) => w.entries.extend(e),
                Err(why) => w.unparsable.push((f.clone(), why)),
            }
        }
        w
    }

    /// opencode is set up for this user or project.
    pub fn installed(&self) -> bool {
        !self.files.is_empty() || self.global_dir
    }

    /// The enabled entries.
    pub fn active(&self) -> Vec<&Entry> {
        self.entries.iter().filter(|e| e.enabled).collect()
    }

    /// Enabled entries whose kind disagrees with `expected`.
    pub fn mismatched(&self, expected: EntryKind) -> Vec<&Entry> {
        self.active()
            .into_iter()
            .filter(|e| e.kind != expected)
            .collect()
    }
}

/// The MemPalace entries in one file; `Err` with the reason when it does not parse.
pub fn entries(path: &Path) -> Result<Vec<Entry>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let v: Value = serde_json::from_str(&jsonc::strip(&text)).map_err(|e| e.to_string())?;
    let Some(mcp) = v.get("mcp").and_then(Value::as_object) else {
        return Ok(Vec::new());
    };
    let nested = mcp.get("servers").and_then(Value::as_object);
    let pairs = mcp
        .iter()
        .filter(|(k, _)| k.as_str() != "servers")
        .chain(nested.into_iter().flatten());
    Ok(pairs.filter_map(|(name, e)| entry(path, name, e)).collect())
}

/// An entry's program and arguments: its `command`, an array or one string.
pub fn command(entry: &Value) -> Vec<String> {
    match entry.get("command") {
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(|x| x.as_str().map(str::to_string))
            .collect(),
        Some(Value::String(s)) => s.split_whitespace().map(str::to_string).collect(),
        _ => Vec::new(),
    }
}

fn entry(file: &Path, name: &str, e: &Value) -> Option<Entry> {
    let command = command(e);
    let remote = e.get("type").and_then(Value::as_str) == Some("remote");
    let kind = super::kind::classify(name, &command, remote)?;
    Some(Entry {
        file: file.to_path_buf(),
        name: name.to_string(),
        kind,
        command,
        enabled: e.get("enabled").and_then(Value::as_bool).unwrap_or(true),
        authorization: e
            .get("headers")
            .and_then(Value::as_object)
            .and_then(|h| {
                h.iter()
                    .find(|(k, _)| k.eq_ignore_ascii_case("authorization"))
            })
            .and_then(|(_, v)| v.as_str())
            .map(str::to_string),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_database_by_opencodes_rule() {
        let env = |pairs: &[(&str, &str)]| Env::from_pairs(pairs.iter().copied());
        let home = [("HOME", "/h")];
        assert_eq!(
            channel_db(&env(&home), "latest"),
            Some(PathBuf::from("/h/.local/share/opencode/opencode.db"))
        );
        assert_eq!(
            channel_db(&env(&home), "dev/x"),
            Some(PathBuf::from("/h/.local/share/opencode/opencode-dev-x.db"))
        );
        let off = [("HOME", "/h"), ("OPENCODE_DISABLE_CHANNEL_DB", "true")];
        assert!(
            channel_db(&env(&off), "dev")
                .unwrap()
                .ends_with("opencode.db")
        );
        let xdg = [("HOME", "/h"), ("XDG_DATA_HOME", "/d")];
        assert_eq!(
            channel_db(&env(&xdg), "prod"),
            Some(PathBuf::from("/d/opencode/opencode.db"))
        );
        let rel = [
            ("HOME", "/h"),
            ("XDG_DATA_HOME", "/d"),
            ("OPENCODE_DB", "mine.db"),
        ];
        assert_eq!(
            database(&env(&rel)),
            Some(PathBuf::from("/d/opencode/mine.db"))
        );
        let abs = [("HOME", "/h"), ("OPENCODE_DB", "/elsewhere/o.db")];
        assert_eq!(database(&env(&abs)), Some(PathBuf::from("/elsewhere/o.db")));
        assert_eq!(
            database(&env(&[("HOME", "/h"), ("OPENCODE_DB", ":memory:")])),
            None
        );
        // No plain database: the newest channel database in the data dir.
        let d = tempfile::tempdir().unwrap();
        let data = d.path().join("opencode");
        std::fs::create_dir_all(&data).unwrap();
        let x = [
            ("HOME", "/h"),
            ("XDG_DATA_HOME", d.path().to_str().unwrap()),
        ];
        assert_eq!(database(&env(&x)), Some(data.join("opencode.db")));
        std::fs::write(data.join("opencode-dev.db"), b"").unwrap();
        assert_eq!(database(&env(&x)), Some(data.join("opencode-dev.db")));
    }

    #[test]
    fn finds_entries_flat_and_nested() {
        let dir = std::env::temp_dir().join(format!("mpt-oc-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("opencode.jsonc");
        std::fs::write(
            &f,
            r#"{
  // mine
  "mcp": {
    "mempalace": {"type": "local", "command": ["mempalace-mcp"], "enabled": true,},
    "servers": {"palace-edge": {"type": "local", "command": ["/usr/local/bin/mpt", "edge"]}},
    "github": {"type": "local", "command": ["gh-mcp"]},
  },
}"#,
        )
        .unwrap();
        let e = entries(&f).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(e.len(), 2);
        assert_eq!(
            (e[0].name.as_str(), e[0].kind),
            ("mempalace", EntryKind::Mempalace)
        );
        assert_eq!(
            (e[1].name.as_str(), e[1].kind),
            ("palace-edge", EntryKind::Edge)
        );
    }
}
