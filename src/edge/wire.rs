//! The opt-in wiring (RFC 001 §1.2, R1): opencode's one MemPalace entry set to match the two
//! variables (unset: `mempalace-mcp`; URL: the primary over HTTP; URL + EDGE=1: `mpt edge`),
//! every other byte of the file kept, a backup first; pi gets the edit its extension needs.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::config::Config;
use crate::error::{MptError, Result};
use crate::harness::opencode::{self, EntryKind};
use crate::harness::{jsonc, jsonspan};

/// The three states of the opt-in ladder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OptIn {
    /// No `MEMPALACE_REMOTE_URL`: the local child (R1: nothing of mpt in the path).
    Solitary,
    /// The URL without `MEMPALACE_EDGE=1`: straight to the primary.
    Remote,
    /// Both: the edge.
    Edge,
}

pub fn opt_in(config: &Config) -> OptIn {
    match (&config.remote, config.edge_opt_in) {
        (None, _) => OptIn::Solitary,
        (Some(_), false) => OptIn::Remote,
        (Some(_), true) => OptIn::Edge,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    Untouched,
    Replace,
    Insert,
    Create,
    /// MemPalace is not installed here: nothing to wire.
    Skipped,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct Plan {
    pub file: PathBuf,
    pub entry: String,
    pub state: OptIn,
    pub action: Action,
    pub before: Option<Value>,
    pub after: Option<Value>,
    #[serde(skip)]
    pub new_text: Option<String>,
    pub reason: String,
}

/// The entry this state wants. The token is referenced, never written.
pub fn desired(state: OptIn, mpt: &Path, url: Option<&str>) -> Value {
    match state {
        OptIn::Solitary => json!({"type": "local", "command": ["mempalace-mcp"], "enabled": true}),
        OptIn::Remote => {
            json!({"type": "remote", "url": url.unwrap_or(""), "headers": {"Authorization": "Bearer {env:MEMPALACE_REMOTE_TOKEN}"}, "enabled": true})
        }
        OptIn::Edge => {
            json!({"type": "local", "command": [mpt.display().to_string(), "edge", "--harness", "opencode"], "enabled": true})
        }
    }
}

/// What wiring `file` for `state` would do (nothing is written).
pub fn plan_opencode(
    file: &Path,
    state: OptIn,
    mpt: &Path,
    url: Option<&str>,
    mempalace_installed: bool,
) -> Result<Plan> {
    let want = desired(state, mpt, url);
    let mut plan = Plan {
        file: file.to_path_buf(),
        entry: "mempalace".into(),
        state,
        action: Action::Untouched,
        before: None,
        after: None,
        new_text: None,
        reason: String::new(),
    };
    if !mempalace_installed {
        plan.action = Action::Skipped;
        plan.reason =
            "MemPalace is not installed here (no mempalace-mcp on PATH): nothing to wire".into();
        return Ok(plan);
    }
    let text = match std::fs::read_to_string(file) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if state == OptIn::Solitary {
                plan.reason = "no opencode config and no opt-in: left as it is (R1)".into();
                return Ok(plan);
            }
            let doc = json!({"mcp": {"mempalace": want}});
            plan.action = Action::Create;
            plan.after = Some(want);
            plan.new_text = Some(serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n");
            plan.reason = format!("creates {} with the entry", file.display());
            return Ok(plan);
        }
        Err(e) => return Err(MptError::io(format!("reading {}", file.display()), &e)),
    };
    let plain = jsonc::strip(&text);
    serde_json::from_str::<Value>(&plain).map_err(|e| {
        MptError::usage(format!("{} is not valid JSON(C): {e}", file.display()))
            .with_hint("fix the file by hand first; mpt never rewrites a file it cannot read")
    })?;
    let existing = opencode::entries(file)
        .map_err(MptError::usage)?
        .into_iter()
        .next();
    let found = existing.as_ref().and_then(|e| {
        [
            vec!["mcp", e.name.as_str()],
            vec!["mcp", "servers", e.name.as_str()],
        ]
        .into_iter()
        .find_map(|p| jsonspan::find(&plain, &p).map(|m| (e.clone(), m)))
    });
    match found {
        Some((entry, m)) => {
            plan.entry = entry.name.clone();
            let before: Value =
                serde_json::from_str(&plain[m.value_start..m.value_end]).unwrap_or(Value::Null);
            plan.before = Some(before.clone());
            let agrees = match state {
                OptIn::Solitary => entry.kind == EntryKind::Mempalace,
                _ => before == want,
            };
            if agrees {
                plan.reason = "the entry already matches the opt-in".into();
                return Ok(plan);
            }
            plan.action = Action::Replace;
            plan.after = Some(want.clone());
            plan.new_text = Some(format!(
                "{}{}{}",
                &text[..m.value_start],
                want,
                &text[m.value_end..]
            ));
            plan.reason = format!("sets '{}' from {:?} to {:?}", entry.name, entry.kind, state);
        }
        None if state == OptIn::Solitary => {
            plan.reason = "no MemPalace entry and no opt-in: left as it is (R1)".into();
            return Ok(plan);
        }
        None => {
            let (path, member) = match jsonspan::object_close(&plain, &["mcp"]) {
                Some(c) => (c, format!("\"mempalace\": {want}")),
                None => (
                    jsonspan::object_close(&plain, &[]).ok_or_else(|| {
                        MptError::usage(format!("{} is not a JSON object", file.display()))
                    })?,
                    format!("\"mcp\": {{\"mempalace\": {want}}}"),
                ),
            };
            let (close, nonempty) = path;
            let prev = plain[..close].trim_end();
            let sep = if nonempty && !prev.ends_with(',') {
                ","
            } else {
                ""
            };
            plan.action = Action::Insert;
            plan.after = Some(want);
            plan.new_text = Some(format!(
                "{}{sep}\n  {member}\n{}",
                &text[..prev.len()],
                &text[close..]
            ));
            plan.reason = "adds the entry".into();
        }
    }
    if let Some(t) = &plan.new_text {
        serde_json::from_str::<Value>(&jsonc::strip(t)).map_err(|e| {
            MptError::new(
                crate::error::ErrorKind::Io,
                format!("the rewritten file would not parse ({e}); nothing written"),
            )
        })?;
    }
    Ok(plan)
}

/// Writes the plan: a timestamped backup beside the file, then the new text atomically.
pub fn apply(plan: &Plan) -> Result<Option<PathBuf>> {
    let Some(text) = &plan.new_text else {
        return Ok(None);
    };
    let backup = if plan.file.exists() {
        let ts = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        let b = PathBuf::from(format!("{}.mpt-backup-{ts}", plan.file.display()));
        std::fs::copy(&plan.file, &b)
            .map_err(|e| MptError::io(format!("backing up {}", plan.file.display()), &e))?;
        Some(b)
    } else {
        if let Some(d) = plan.file.parent() {
            std::fs::create_dir_all(d)
                .map_err(|e| MptError::io(format!("creating {}", d.display()), &e))?;
        }
        None
    };
    let tmp = plan.file.with_extension("mpt-tmp");
    std::fs::write(&tmp, text)
        .map_err(|e| MptError::io(format!("writing {}", tmp.display()), &e))?;
    if let Ok(meta) = std::fs::metadata(&plan.file) {
        let _ = std::fs::set_permissions(&tmp, meta.permissions());
    }
    std::fs::rename(&tmp, &plan.file)
        .map_err(|e| MptError::io(format!("replacing {}", plan.file.display()), &e))?;
    Ok(backup)
}

/// The edit pi's extension needs so that `MEMPALACE_EDGE=1` reaches the edge (mpt cannot edit it).
pub const PI_EDIT: &str = r#"// In createClient(), before the MEMPALACE_REMOTE_URL branch:
if (process.env.MEMPALACE_EDGE === "1" && process.env.MEMPALACE_REMOTE_URL) {
  // The edge talks to the primary itself; pi only sees a local stdio server.
  return new StdioMcpClient("mpt", ["edge", "--harness", "pi"]);
}"#;
