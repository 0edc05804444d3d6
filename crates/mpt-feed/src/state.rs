//! The incremental-run state: a small JSON map, kept OUTSIDE the staging folder, from each session
//! file to its size, mtime and last verdict, so an unchanged session is decided without parsing.

use super::export::ExportOptions;
use super::gate::{GateConfig, SkipReason};
use mpt_base::hex::hex;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

/// Bumped whenever the exporter's output for the same input changes; invalidates every record.
pub const EXPORT_FORMAT: u32 = 2;
const STATE_VERSION: u32 = 1;

/// The whole state file: `{"version":1,"config":"<fingerprint>","sessions":{"<abs path>":{…}}}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct State {
    pub version: u32,
    /// [`fingerprint`] of the settings the records were made with.
    pub config: String,
    pub sessions: BTreeMap<String, Record>,
}

/// What the last run concluded about one session file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    pub size: u64,
    /// Modification time in nanoseconds since the Unix epoch.
    pub mtime_ns: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The header's `parentSession` / `branchedFrom`, as written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    /// Which ancestors were exported when this verdict was made (fork de-duplication input).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub dedup: String,
    /// The staged file name, when exported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub staged: Option<String>,
    #[serde(default)]
    pub staged_size: u64,
    /// The skip verdict, when not exported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skip: Option<SkipReason>,
}

impl Record {
    /// Whether this record was made from this very state of its session (the same size, or
    /// fingerprint, and the same modification time).
    pub fn same_state(&self, size: u64, mtime_ns: u64) -> bool {
        self.size == size && self.mtime_ns == mtime_ns
    }
}

impl State {
    pub fn empty(config: &str) -> State {
        State {
            version: STATE_VERSION,
            config: config.to_string(),
            sessions: BTreeMap::new(),
        }
    }

    /// Load the state at `path`. A missing, unreadable, corrupt or foreign-config file yields an
    /// empty state (the next run just parses everything); the bool says whether records were dropped.
    pub fn load(path: &Path, config: &str) -> (State, bool) {
        let bytes = match fs::read(path) {
            Ok(b) => b,
            Err(_) => return (State::empty(config), false),
        };
        match serde_json::from_slice::<State>(&bytes) {
            Ok(s) if s.version == STATE_VERSION && s.config == config => (s, false),
            _ => (State::empty(config), true),
        }
    }

    /// Write atomically: a dot-prefixed temp file beside `path`, then rename.
    pub fn save(&self, path: &Path) -> io::Result<()> {
        save_json(path, &serde_json::to_vec(self).map_err(io::Error::other)?)
    }
}

/// Writes `bytes` to `path` whole: a dot-temp beside it, fsynced, then renamed into place.
pub fn save_json(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    fs::create_dir_all(dir)?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let result = (|| {
        let mut f = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        drop(f);
        fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// A short hash of everything besides a session's bytes that shapes its export or its verdict
/// (the export format version, the gate thresholds except the quiet period, the export options).
pub fn fingerprint(gate: &GateConfig, export: &ExportOptions) -> String {
    let doc = serde_json::json!({ "format": EXPORT_FORMAT, "gate": gate, "export": export });
    hex(&Sha256::digest(doc.to_string().as_bytes()))[..16].to_string()
}

/// Nanoseconds since the Unix epoch (0 for earlier times).
pub fn mtime_ns(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0)
}

pub use mpt_base::paths::feed::{feed_home, state_and_lock};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_invalidation() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("sub/state.json");
        let cfg = fingerprint(&GateConfig::default(), &ExportOptions::default());
        let mut s = State::empty(&cfg);
        s.sessions.insert(
            "/s/a.jsonl".into(),
            Record {
                size: 10,
                mtime_ns: 5,
                id: Some("a".into()),
                parent: None,
                dedup: String::new(),
                staged: Some("a.md".into()),
                staged_size: 3,
                skip: None,
            },
        );
        s.save(&p).unwrap();
        assert_eq!(State::load(&p, &cfg), (s.clone(), false));
        let other = fingerprint(
            &GateConfig {
                min_chars: 1,
                ..GateConfig::default()
            },
            &ExportOptions::default(),
        );
        assert_ne!(other, cfg);
        assert_eq!(State::load(&p, &other), (State::empty(&other), true));
        fs::write(&p, b"{not json").unwrap();
        assert_eq!(State::load(&p, &cfg), (State::empty(&cfg), true));
        assert_eq!(
            State::load(&d.path().join("missing.json"), &cfg),
            (State::empty(&cfg), false)
        );
        let names: Vec<_> = fs::read_dir(d.path().join("sub")).unwrap().collect();
        assert_eq!(names.len(), 1);
    }

    #[test]
    fn quiet_period_is_not_part_of_the_fingerprint() {
        let a = fingerprint(&GateConfig::default(), &ExportOptions::default());
        let g = GateConfig {
            quiet_period: std::time::Duration::from_secs(1),
            ..GateConfig::default()
        };
        assert_eq!(a, fingerprint(&g, &ExportOptions::default()));
    }
}
