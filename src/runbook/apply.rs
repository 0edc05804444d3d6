//! `mpt runbook apply STEP`: the dry run, the refusal while MemPalace holds the palace, the kept
//! timestamped backup (`backup.rs`), and what every automated step returns.

use std::path::PathBuf;

use serde::Serialize;

use super::scan::ScanSet;
use super::{Inputs, STEPS, State, step_def};
use mpt_base::error::{MptError, Result};
use mpt_edge::stop::OwnerHold;
use mpt_palace::paths::realpath;
use mpt_palace::procs::{self, Role};
use mpt_palace::sqlite::sidecar;
use mpt_palace::{PalacePaths, files};

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
    pub verification: Option<Verification>,
    /// One shell line that puts everything back.
    pub undo: Option<String>,
}

/// What a step read back after its change: one shape per kind of step.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum Verification {
    /// `gateway-policy`: the written policy parses and names every device asked for.
    Policy {
        file: PathBuf,
        parses: bool,
        devices: Vec<String>,
        ok: bool,
    },
    /// `gateway-modes`: each file's mode after the change.
    Modes { files: Vec<ModeCheck>, ok: bool },
    /// `credentials`: each secret file private and kept out of git.
    Secrets { files: Vec<SecretCheck>, ok: bool },
    /// `kg-move`: the graph's counts before and after, and where the home path now leads.
    Graph {
        triples_before: u64,
        triples_after: u64,
        triples_via_home_path: u64,
        entities_before: u64,
        entities_after: u64,
        verdict: mpt_palace::landmine::KgVerdict,
        legacy_moved: bool,
        ok: bool,
    },
}

/// A file and its mode after a change (`None`: it is gone).
#[derive(Debug, Clone, Serialize)]
pub struct ModeCheck {
    pub file: PathBuf,
    pub mode: Option<String>,
}

/// A secret file after a change: its mode, whether git ignores it, and whether both are right.
#[derive(Debug, Clone, Serialize)]
pub struct SecretCheck {
    pub file: PathBuf,
    pub mode: String,
    pub gitignored: bool,
    pub ok: bool,
}

/// A process that holds the palace: applying under it is how data is lost.
#[derive(Debug, Clone, Serialize)]
pub struct Holder {
    pub pid: Option<u32>,
    pub why: String,
}

/// Applies step `id`: a dry run without `yes`, else the change with backup, read-back and undo.
pub fn apply(inputs: &Inputs, id: &str, yes: bool) -> Result<Applied> {
    let Some(def) = step_def(id) else {
        let ids: Vec<&str> = STEPS.iter().map(|d| d.id).collect();
        return Err(
            MptError::usage(format!("there is no step '{id}'")).with_hint(format!(
                "{}one of: {}",
                mpt_base::suggest::did_you_mean(id, ids.iter().copied()),
                ids.join(", ")
            )),
        );
    };
    let scan = ScanSet::collect(inputs);
    let step = (def.check)(inputs, &scan);
    let Some(apply_step) = def.apply else {
        return Err(MptError::usage(format!(
            "step {} is not automated: it needs a decision or an edit only you can make",
            def.id
        ))
        .with_hint(step.manual.clone().unwrap_or_else(|| step.summary.clone())));
    };
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
    apply_step(inputs, &scan, yes)
}

/// Refuses (exit 4) while a MemPalace process holds the palace or either knowledge graph.
pub(super) fn refuse_if_held(paths: &PalacePaths, inputs: &Inputs) -> Result<()> {
    let mut held = holders(paths, inputs);
    if held.is_empty() {
        return Ok(());
    }
    // mpt's own edge owner is named as what it is, with the command that stops it.
    let owner = OwnerHold::of(&inputs.env, &paths.home, &paths.palace)
        .filter(|o| held.iter().any(|h| h.pid.is_some_and(|p| o.holds_as(p))));
    if let Some(o) = &owner {
        for h in held
            .iter_mut()
            .filter(|h| h.pid.is_some_and(|p| o.holds_as(p)))
        {
            h.why = format!("{}, the child of {}", h.why, o.described());
        }
    }
    let others = held.iter().any(|h| {
        !h.pid
            .is_some_and(|p| owner.as_ref().is_some_and(|o| o.holds_as(p)))
    });
    let list: Vec<String> = held
        .iter()
        .map(|h| match h.pid {
            Some(p) => format!("pid {p}: {}", h.why),
            None => h.why.clone(),
        })
        .collect();
    let rerun = "re-run `mpt runbook apply kg-location`";
    let hint = match &owner {
        Some(o) if !others => o.fix(&paths.palace, rerun),
        Some(o) => format!(
            "stop the other processes named (harness sessions, `mempalace serve`); {}",
            o.fix(&paths.palace, rerun)
        ),
        None => "stop the harness sessions (and `mempalace serve`) using this palace, then re-run"
            .to_string(),
    };
    Err(MptError::refused(format!(
        "a MemPalace process holds {}: {}; a move under a live writer is how data is lost",
        paths.palace.display(),
        list.join("; ")
    ))
    .with_hint(hint)
    .with_detail(HeldBy { holders: &held }))
}

/// The refusal's detail: who holds the palace.
#[derive(serde::Serialize)]
struct HeldBy<'a> {
    holders: &'a [Holder],
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
            let cmd = mpt_palace::hygiene::redact(&p.command_line());
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
