//! Where MemPalace 3.11 keeps what (contract §6): config dir, palace precedence, the KG with and
//! without `--palace`, hallways/tunnels, known_entities, locks, sidecar, server registry.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use mpt_base::config::{Config, Env};
use mpt_base::error::{MptError, Result};

/// Every path MemPalace derives for one palace, as a process started with `flag_given` sees it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct PalacePaths {
    pub home: PathBuf,
    pub config_dir: PathBuf,
    pub palace: PathBuf,
    /// Where the knowledge graph lands for a process started WITH `--palace`.
    pub kg_with_flag: PathBuf,
    /// Where it lands WITHOUT the flag (`~/.mempalace/knowledge_graph.sqlite3`): the landmine.
    pub kg_without_flag: PathBuf,
    pub hallways: PathBuf,
    pub tunnels: PathBuf,
    pub known_entities: PathBuf,
    pub locks_dir: PathBuf,
    pub writer_lease: PathBuf,
    pub embedder_sidecar: PathBuf,
    pub server_dir: PathBuf,
    pub serverinfo: PathBuf,
    pub write_log: PathBuf,
    pub logstream: PathBuf,
}

impl PalacePaths {
    /// The palace a command acts on: `--palace`, else the mpt config's `palace`, else the one
    /// MemPalace itself would pick. Every command and engine resolves it here.
    pub fn chosen(env: &Env, flag: Option<&Path>, config: Option<&Config>) -> Result<PalacePaths> {
        let configured = config.and_then(|c| c.file.palace.as_deref());
        PalacePaths::resolve(env, flag.or(configured))
    }

    /// Paths for `palace` (or, when `None`, the palace MemPalace itself would pick).
    pub fn resolve(env: &Env, palace: Option<&Path>) -> Result<PalacePaths> {
        let home = env.home()?;
        let config_dir = config_dir(env, &home);
        let palace = match palace {
            Some(p) => absolute(&expand_tilde(p, &home)),
            None => default_palace(env, &home, &config_dir)?,
        };
        let legacy = home.join(".mempalace");
        let parent = palace
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("/"));
        let server_dir = legacy
            .join("server")
            .join(&hash_hex(&canonical(&palace))[..24]);
        Ok(PalacePaths {
            kg_with_flag: palace.join("knowledge_graph.sqlite3"),
            kg_without_flag: legacy.join("knowledge_graph.sqlite3"),
            hallways: parent.join("hallways.json"),
            tunnels: parent.join("tunnels.json"),
            known_entities: legacy.join("known_entities.json"),
            locks_dir: legacy.join("locks"),
            writer_lease: legacy.join("locks").join(format!(
                "mine_palace_{}.lock",
                &hash_hex(&canonical(&palace))[..16]
            )),
            embedder_sidecar: palace.join("mempalace_embedder.json"),
            serverinfo: server_dir.join("serverinfo.json"),
            server_dir,
            write_log: config_dir.join("wal").join("write_log.jsonl"),
            logstream: palace.join("logstream.sqlite3"),
            home,
            config_dir,
            palace,
        })
    }

    /// The KG a process uses: palace-local only when it was started with `--palace`.
    pub fn kg_path(&self, flag_given: bool) -> &Path {
        if flag_given {
            &self.kg_with_flag
        } else {
            &self.kg_without_flag
        }
    }

    /// The per-source-file mine lock (`~/.mempalace/locks/<sha256(source_file)[:16]>.lock`).
    pub fn mine_file_lock(&self, source_file: &str) -> PathBuf {
        self.locks_dir
            .join(format!("{}.lock", &hash_hex(source_file)[..16]))
    }
}

/// `$MEMPALACE_CONFIG_DIR`; `~/.mempalace` when it holds a legacy install; an absolute
/// `$XDG_CONFIG_HOME/mempalace`; else `~/.config/mempalace` (`config.py:256`).
pub fn config_dir(env: &Env, home: &Path) -> PathBuf {
    if let Some(d) = env
        .get("MEMPALACE_CONFIG_DIR")
        .filter(|d| !d.trim().is_empty())
    {
        return expand_tilde(Path::new(d), home);
    }
    let legacy = home.join(".mempalace");
    let legacy_install = ["config.json", "people_map.json"]
        .iter()
        .any(|m| legacy.join(m).is_file())
        || legacy.join("palace").join("chroma.sqlite3").is_file();
    if legacy.is_dir() && legacy_install {
        return legacy;
    }
    if let Some(x) = env.get("XDG_CONFIG_HOME").filter(|x| !x.trim().is_empty()) {
        let p = expand_tilde(Path::new(x), home);
        if p.is_absolute() {
            return p.join("mempalace");
        }
    }
    home.join(".config").join("mempalace")
}

/// `MEMPALACE_PALACE_PATH` > `MEMPALACE_PALACE` > `MEMPAL_PALACE_PATH` > config.json
/// `palace_path` > `<config dir>/palace` (`config.py:999-1021`).
fn default_palace(env: &Env, home: &Path, config_dir: &Path) -> Result<PathBuf> {
    for key in [
        "MEMPALACE_PALACE_PATH",
        "MEMPALACE_PALACE",
        "MEMPAL_PALACE_PATH",
    ] {
        if let Some(v) = env.get(key) {
            return Ok(absolute(&expand_tilde(Path::new(v), home)));
        }
    }
    let cfg = config_dir.join("config.json");
    if cfg.is_file() {
        let text = std::fs::read_to_string(&cfg)
            .map_err(|e| MptError::io(format!("reading {}", cfg.display()), &e))?;
        let v: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
            MptError::usage(format!(
                "MemPalace's {} is not valid JSON: {e}",
                cfg.display()
            ))
            .with_hint("MemPalace itself cannot read it either: fix the file")
        })?;
        if let Some(p) = v.get("palace_path").and_then(|p| p.as_str()) {
            return Ok(expand_tilde(Path::new(p), home));
        }
    }
    Ok(config_dir.join("palace"))
}

/// `~` and `~/…` under `home` (Python's `os.path.expanduser` for the current user).
pub fn expand_tilde(p: &Path, home: &Path) -> PathBuf {
    match p.strip_prefix("~") {
        Ok(rest) => home.join(rest),
        Err(_) => p.to_path_buf(),
    }
}

// `os.path.abspath` and `os.path.realpath` as MemPalace reads paths: `mpt_base::paths::real`, below
// every module that names a file.
pub use mpt_base::paths::real::{absolute, realpath};

/// The string MemPalace hashes for per-palace keys: `abspath(realpath(expanduser(p)))`.
fn canonical(palace: &Path) -> String {
    realpath(palace).to_string_lossy().into_owned()
}

fn hash_hex(s: &str) -> String {
    mpt_base::hex::hex(&Sha256::digest(s.as_bytes()))
}

/// The outbox's file (`mpt_base::paths::edge::outbox`), its palace `palace` or, when `None` and HOME
/// cannot be written, the one MemPalace would pick: the rule that needs MemPalace's, kept here.
pub fn edge_outbox(
    env: &mpt_base::config::Env,
    config: &mpt_base::config::Config,
    palace: Option<&Path>,
) -> mpt_base::error::Result<PathBuf> {
    mpt_base::paths::edge::outbox(env, config, || match palace {
        Some(p) => Ok(p.to_path_buf()),
        None => PalacePaths::chosen(env, None, Some(config)).map(|p| p.palace),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flag_wins_then_the_config_then_mempalaces_rules() {
        let home = tempfile::tempdir().unwrap();
        let h = home.path().to_str().unwrap();
        let cfg_file = home.path().join("mpt.json");
        std::fs::write(&cfg_file, r#"{"palace": "/from/config"}"#).unwrap();
        let env = Env::from_pairs([("HOME", h)]);
        let config = Config::load(&env, Some(&cfg_file)).unwrap();
        let chosen = |flag: Option<&str>, config: Option<&Config>| {
            PalacePaths::chosen(&env, flag.map(Path::new), config)
                .unwrap()
                .palace
        };
        assert_eq!(chosen(Some("/flag"), Some(&config)), PathBuf::from("/flag"));
        assert_eq!(chosen(None, Some(&config)), PathBuf::from("/from/config"));
        let default = PalacePaths::resolve(&env, None).unwrap().palace;
        assert_eq!(chosen(None, None), default);
        assert_ne!(default, PathBuf::from("/from/config"));
    }

    #[test]
    fn sha_prefixes_match_python() {
        assert_eq!(
            hash_hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn abspath_collapses_dotdot() {
        assert_eq!(
            absolute(Path::new("/a/b/../c/./d")),
            PathBuf::from("/a/c/d")
        );
    }

    #[test]
    fn realpath_keeps_a_missing_tail() {
        let r = realpath(Path::new("/nonexistent-mpt-test/x/y"));
        assert_eq!(r, PathBuf::from("/nonexistent-mpt-test/x/y"));
    }
}
