//! The device's settings `mpt join` writes into mpt's config file (`remote_url`, `token_file`,
//! `device`, `edge`): every other key of the file kept, a value the user set never changed unasked.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use mpt_base::error::{MptError, Result};

/// One setting and what the file holds for it now (`to` null: the key removed).
#[derive(Debug, Clone, serde::Serialize)]
pub struct Setting {
    pub key: &'static str,
    pub from: Option<Value>,
    pub to: Value,
}

impl Setting {
    /// The file holds another value: changing it needs the user's yes.
    pub fn conflicts(&self) -> bool {
        self.from.as_ref().is_some_and(|f| f != &self.to)
    }

    pub fn changes(&self) -> bool {
        match (&self.from, &self.to) {
            (None, Value::Null) => false,
            (from, to) => from.as_ref() != Some(to),
        }
    }
}

/// The file as it is, and what joining would set in it.
#[derive(Debug)]
pub struct Plan {
    pub path: PathBuf,
    doc: Map<String, Value>,
    pub settings: Vec<Setting>,
}

/// What the device's settings become in the file at `path` (a missing file is empty).
pub fn plan(path: &Path, wanted: Vec<(&'static str, Value)>) -> Result<Plan> {
    let doc = match std::fs::read(path) {
        Ok(bytes) => {
            let text = mpt_base::config::read::config_text(&bytes, path)?;
            match serde_json::from_str::<Value>(&text) {
                Ok(Value::Object(m)) => m,
                Ok(_) | Err(_) => {
                    return Err(MptError::usage(format!(
                        "{} is not a JSON object: mpt join will not rewrite a config file it cannot read",
                        path.display()
                    ))
                    .with_hint("fix it (`mpt config` says what is wrong), or move it away, then run `mpt join` again"));
                }
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Map::new(),
        Err(e) => return Err(MptError::io(format!("reading {}", path.display()), &e)),
    };
    let settings = wanted
        .into_iter()
        .map(|(key, to)| Setting {
            key,
            from: doc.get(key).cloned(),
            to,
        })
        .collect();
    Ok(Plan {
        path: path.to_path_buf(),
        doc,
        settings,
    })
}

impl Plan {
    pub fn conflicts(&self) -> Vec<&Setting> {
        self.settings.iter().filter(|s| s.conflicts()).collect()
    }

    pub fn changes(&self) -> bool {
        self.settings.iter().any(Setting::changes)
    }

    /// Writes the file (0600, atomic; its folder made 0700); the old one backed up beside it.
    pub fn write(mut self) -> Result<Option<PathBuf>> {
        if !self.changes() {
            return Ok(None);
        }
        for s in &self.settings {
            // `null` takes the key away (`--leave` restoring a setting that was absent).
            match &s.to {
                Value::Null => self.doc.remove(s.key),
                v => self.doc.insert(s.key.to_string(), v.clone()),
            };
        }
        let backup = if self.path.exists() {
            Some(mpt_base::backup::beside(&self.path)?)
        } else {
            None
        };
        if let Some(dir) = self.path.parent() {
            use std::os::unix::fs::DirBuilderExt;
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(dir)
                .map_err(|e| MptError::io(format!("creating {}", dir.display()), &e))?;
        }
        let mut text = serde_json::to_string_pretty(&Value::Object(self.doc)).unwrap_or_default();
        text.push('\n');
        mpt_base::private_fs::write_private(&self.path, text.as_bytes())
            .map_err(|e| MptError::io(format!("writing {}", self.path.display()), &e))?;
        Ok(backup)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn other_keys_are_kept_and_a_users_own_value_is_a_conflict() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mpt/config.json");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(
            &path,
            r#"{"palace": "/p", "device": "laptop", "edge": true}"#,
        )
        .unwrap();
        let p = plan(
            &path,
            vec![
                ("device", json!("lap")),
                ("edge", json!(true)),
                ("remote_url", json!("u")),
            ],
        )
        .unwrap();
        let keys: Vec<_> = p.conflicts().iter().map(|s| s.key).collect();
        assert_eq!(keys, ["device"]);
        assert!(p.write().unwrap().is_some(), "a backup of the old file");
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(
            v,
            json!({"palace": "/p", "device": "lap", "edge": true, "remote_url": "u"})
        );
        let again = plan(&path, vec![("device", json!("lap"))]).unwrap();
        assert!(!again.changes());
        assert_eq!(again.write().unwrap(), None, "nothing to write");
    }
}
