//! `mpt runbook apply STEP`: the dry run, the refusal while MemPalace holds the palace, the kept
//! timestamped backup, and the pieces every automated step shares (quoting, durable copies).

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::scan::ScanSet;
use super::{Inputs, STEPS, State, check, credentials, kg};
use crate::error::{MptError, Result};
use crate::palace::paths::realpath;
use crate::palace::procs::{self, Role};
use crate::palace::sqlite::sidecar;
use crate::palace::{PalacePaths, files};

/// One change a step makes (or, in a dry run, would make).
#[derive(Debug, Clone, Serialize)]
pub struct Change {
    /// move, link, replace, remove, chmod, append.
    pub action: &'static str,
    pub path: PathBuf,
    pub to: Option<PathBuf>,
    pub bytes: u64,
    pub note: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Applied {
    pub step: &'static str,
    pub dry_run: bool,
    pub state_before: State,
    pub state_after: State,
    pub summary: String,
    pub changes: Vec<Change>,
    /// The kept backup folder (`~/.mempalace/backups/runbook-<ts>-<step>/`).
    pub backup: Option<PathBuf>,
    /// What was read back after the change.
    pub verification: Option<serde_json::Value>,
    /// One shell line that puts everything back.
    pub undo: Option<String>,
}

/// A process that holds the palace: applying under it is how data is lost.
#[derive(Debug, Clone, Serialize)]
pub struct Holder {
    pub pid: Option<u32>,
    pub why: String,
}

/// Applies step `id`: a dry run without `yes`, else the change with backup, read-back and undo.
pub fn apply(inputs: &Inputs, id: &str, yes: bool) -> Result<Applied> {
    let Some(def) = STEPS.iter().find(|d| d.id == id) else {
        let ids: Vec<&str> = STEPS.iter().map(|d| d.id).collect();
        return Err(MptError::usage(format!("there is no step '{id}'"))
            .with_hint(format!("one of: {}", ids.join(", "))));
    };
    let scan = ScanSet::collect(inputs);
    let step = check(def.id, inputs, &scan);
    if !def.automated {
        return Err(MptError::usage(format!(
            "step {} is not automated: it needs a decision or an edit only you can make",
            def.id
        ))
        .with_hint(step.manual.clone().unwrap_or_else(|| step.summary.clone())));
    }
    match step.state {
        State::Done | State::NotApplicable => {
            return Ok(Applied {
                step: def.id,
                dry_run: !yes,
                state_before: step.state,
                state_after: step.state,
                summary: format!("nothing to do: {}", step.summary),
                changes: Vec::new(),
                backup: None,
                verification: None,
                undo: None,
            });
        }
        State::Blocked => {
            return Err(
                MptError::refused(format!("step {} is blocked: {}", def.id, step.summary))
                    .with_hint(
                        step.manual
                            .clone()
                            .unwrap_or_else(|| "decide by hand, then re-run".into()),
                    )
                    .with_detail(serde_json::to_value(&step).unwrap_or_default()),
            );
        }
        State::ToDo => {}
    }
    match def.id {
        "kg-location" => kg::apply(inputs, yes),
        "credentials" => credentials::apply(inputs, &scan, yes),
        _ => unreachable!("every automated step is dispatched"),
    }
}

/// Refuses (exit 4) while a MemPalace process holds the palace or either knowledge graph.
pub(super) fn refuse_if_held(paths: &PalacePaths, inputs: &Inputs) -> Result<()> {
    let held = holders(paths, inputs);
    if held.is_empty() {
        return Ok(());
    }
    let list: Vec<String> = held
        .iter()
        .map(|h| match h.pid {
            Some(p) => format!("pid {p}: {}", h.why),
            None => h.why.clone(),
        })
        .collect();
    Err(MptError::refused(format!(
        "a MemPalace process holds {}: {}; a move under a live writer is how data is lost",
        paths.palace.display(),
        list.join("; ")
    ))
    .with_hint("stop the harness sessions (and `mempalace serve`) using this palace, then re-run")
    .with_detail(serde_json::json!({ "holders": held })))
}

/// Who holds the palace: the writer lease, MemPalace servers on it, a child started without
/// `--palace` (it has the HOME graph open), and any process of ours with a graph file open.
pub fn holders(paths: &PalacePaths, inputs: &Inputs) -> Vec<Holder> {
    let mut out = Vec::new();
    if let Ok(Some(l)) = files::lease_holder(&paths.writer_lease)
        && l.held
    {
        out.push(Holder {
            pid: l.pid,
            why: format!(
                "holds the writer lease {} ({})",
                paths.writer_lease.display(),
                l.command.as_deref().unwrap_or("?")
            ),
        });
    }
    let (_, mine) = inputs.procs();
    let graphs: Vec<PathBuf> = [&paths.kg_with_flag, &paths.kg_without_flag]
        .iter()
        .flat_map(|k| [k.to_path_buf(), sidecar(k, "-wal"), sidecar(k, "-shm")])
        .map(|p| realpath(&p))
        .collect();
    let serving: Vec<u32> = procs::serving(mine, &paths.palace)
        .iter()
        .map(|p| p.pid)
        .collect();
    for p in mine {
        let why = if serving.contains(&p.pid) {
            Some(format!("{:?} serving this palace", p.role.unwrap_or(Role::Child)).to_lowercase())
        } else if p.role == Some(Role::Child) && p.palace_arg().is_none() {
            Some(
                "mempalace-mcp started without --palace: it has the HOME knowledge graph open"
                    .into(),
            )
        } else {
            p.open_files()
                .iter()
                .find(|f| graphs.contains(f))
                .map(|f| format!("has {} open", f.display()))
        };
        if let Some(why) = why {
            let cmd = crate::palace::hygiene::redact(&p.command_line());
            out.push(Holder {
                pid: Some(p.pid),
                why: format!("{why} ({cmd})"),
            });
        }
    }
    out.sort_by_key(|h| h.pid);
    out.dedup_by_key(|h| h.pid);
    out
}

/// A fresh, kept backup folder: `~/.mempalace/backups/runbook-<UTC ts>-<step>/`.
pub(super) fn backup_dir(home: &Path, step: &str) -> Result<PathBuf> {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    let ts: String = crate::mailbox::time::format_iso_utc(secs)
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect();
    let base = home.join(".mempalace").join("backups");
    for n in 0..100 {
        let name = if n == 0 {
            format!("runbook-{ts}-{step}")
        } else {
            format!("runbook-{ts}-{step}-{n}")
        };
        let dir = base.join(name);
        if dir.exists() {
            continue;
        }
        std::fs::create_dir_all(&dir)
            .map_err(|e| MptError::io(format!("creating {}", dir.display()), &e))?;
        return Ok(dir);
    }
    Err(MptError::usage(format!(
        "too many backups this second under {}",
        base.display()
    )))
}

/// Copies `from` to `to` and makes the copy durable (fsync file and folder).
pub(super) fn durable_copy(from: &Path, to: &Path) -> Result<u64> {
    let n = std::fs::copy(from, to).map_err(|e| {
        MptError::io(
            format!("copying {} to {}", from.display(), to.display()),
            &e,
        )
    })?;
    sync_path(to)?;
    if let Some(dir) = to.parent() {
        sync_path(dir)?;
    }
    Ok(n)
}

pub(super) fn sync_path(p: &Path) -> Result<()> {
    std::fs::File::open(p)
        .and_then(|f| f.sync_all())
        .map_err(|e| MptError::io(format!("syncing {}", p.display()), &e))
}

/// Writes the backup's manifest (what was where, and the undo line).
pub(super) fn manifest(dir: &Path, applied: &Applied) -> Result<()> {
    let path = dir.join("manifest.json");
    let mut f = std::fs::File::create(&path)
        .map_err(|e| MptError::io(format!("creating {}", path.display()), &e))?;
    let bytes = serde_json::to_vec_pretty(applied).unwrap_or_default();
    f.write_all(&bytes)
        .and_then(|_| f.sync_all())
        .map_err(|e| MptError::io(format!("writing {}", path.display()), &e))
}

/// `p` quoted for `sh`.
pub(super) fn sh(p: &Path) -> String {
    format!("'{}'", p.display().to_string().replace('\'', r"'\''"))
}

/// The size of a file, 0 when absent.
pub(super) fn size(p: &Path) -> u64 {
    std::fs::metadata(p).map_or(0, |m| m.len())
}
