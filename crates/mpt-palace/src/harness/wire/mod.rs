//! The opt-in wiring (RFC 001 §1.2, R1): a harness's one MemPalace entry (opencode's, or one of
//! Claude Code's) set to match the two variables (unset: `mempalace-mcp`; URL: the primary over
//! HTTP; URL + EDGE=1: `mpt edge`), every other byte of the file kept, a backup first; pi gets
//! the edit its extension needs.

pub mod codex;
pub mod dialect;
pub mod entry;
pub mod exe;
pub mod hooks;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::harness::{claude, jsonc, jsonspan};
pub use dialect::Dialect;
use dialect::Kept;
use entry::SavedEntry;
use mpt_base::config::{Config, Remote};
use mpt_base::error::{MptError, Result};

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
    /// mpt's entry removed: there was none before mpt inserted it (R1).
    Remove,
    /// The file removed: mpt created it for its entry, and nothing else was put in it since.
    Delete,
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
    /// Where the user's own entry is remembered while mpt's replaces it (`entry::saved_path`).
    pub user_entry: Option<PathBuf>,
    /// What applying does with that file.
    pub remember: Remember,
}

/// The remembered user entry's fate when the plan is applied (`"keep"`, `"save"`, `"forget"`).
#[derive(Debug, Clone, PartialEq)]
pub enum Remember {
    /// Left as it is (or there is none).
    Keep,
    /// Written before the config file changes: the user's entry, for the way back.
    Save(SavedEntry),
    /// Removed after the user's entry is restored.
    Forget,
}

impl serde::Serialize for Remember {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(match self {
            Remember::Keep => "keep",
            Remember::Save(_) => "save",
            Remember::Forget => "forget",
        })
    }
}

/// One place a harness reads a MemPalace entry from.
#[derive(Debug, Clone)]
pub struct Target {
    pub file: PathBuf,
    pub dialect: Dialect,
    /// Keys from the root to the object holding the servers (opencode also looks in its
    /// `servers` member).
    pub servers: Vec<String>,
    /// Where the user's own entry is remembered while mpt's replaces it.
    pub saved: PathBuf,
    /// An entry is added where there is none (not in a Claude Code project's local entries: a
    /// folder's entry there exists only because the user put it there).
    pub insert: bool,
}

impl Target {
    /// opencode's config file (`mcp`).
    pub fn opencode(file: &Path) -> Target {
        Target {
            file: file.to_path_buf(),
            dialect: Dialect::Opencode,
            servers: vec!["mcp".into()],
            saved: entry::saved_path(file, None),
            insert: true,
        }
    }

    /// One of Claude Code's scopes in `file` (its state file, or a project's `.mcp.json`).
    pub fn claude(file: &Path, scope: &claude::Scope) -> Target {
        let project = match scope {
            claude::Scope::Local(p) => Some(p.as_str()),
            _ => None,
        };
        Target {
            file: file.to_path_buf(),
            dialect: Dialect::Claude,
            servers: scope.servers(),
            saved: entry::saved_path(file, project),
            insert: project.is_none(),
        }
    }

    /// The objects searched for an entry, in order.
    fn objects(&self) -> Vec<Vec<String>> {
        let mut out = vec![self.servers.clone()];
        if self.dialect == Dialect::Opencode {
            let mut nested = self.servers.clone();
            nested.push("servers".into());
            out.push(nested);
        }
        out
    }

    /// The first MemPalace entry in the file's parsed value: its name and the keys to it.
    fn existing(
        &self,
        doc: &Value,
    ) -> Option<(String, Vec<String>, crate::harness::kind::EntryKind)> {
        self.objects().into_iter().find_map(|at| {
            let map = at.iter().try_fold(doc, |v, k| v.get(k))?.as_object()?;
            map.iter().find_map(|(name, e)| {
                let kind = self.dialect.kind(name, e)?;
                let mut path = at.clone();
                path.push(name.clone());
                Some((name.clone(), path, kind))
            })
        })
    }

    /// `value` under the servers' keys (`{"mcp": value}`), for a file mpt creates.
    fn nest(&self, value: Value) -> Value {
        self.servers
            .iter()
            .rev()
            .fold(value, |v, k| json!({ k.as_str(): v }))
    }
}

/// What wiring opencode's `file` for `state` would do (nothing is written).
pub fn plan_opencode(
    file: &Path,
    state: OptIn,
    mpt: &Path,
    remote: Option<&Remote>,
    mempalace_installed: bool,
) -> Result<Plan> {
    plan(
        &Target::opencode(file),
        state,
        mpt,
        remote,
        mempalace_installed,
    )
}

/// What wiring `target` for `state` would do (nothing is written).
pub fn plan(
    target: &Target,
    state: OptIn,
    mpt: &Path,
    remote: Option<&Remote>,
    mempalace_installed: bool,
) -> Result<Plan> {
    let file = target.file.as_path();
    let dialect = target.dialect;
    let want = dialect.desired(state, mpt, remote, &Kept::default())?;
    let mut plan = Plan {
        file: file.to_path_buf(),
        entry: "mempalace".into(),
        state,
        action: Action::Untouched,
        before: None,
        after: None,
        new_text: None,
        reason: String::new(),
        user_entry: None,
        remember: Remember::Keep,
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
            if state == OptIn::Solitary || !target.insert {
                plan.reason = format!("no {} and no opt-in: left as it is (R1)", file.display());
                return Ok(plan);
            }
            let doc = target.nest(json!({"mempalace": want}));
            plan.action = Action::Create;
            plan.after = Some(want);
            plan.new_text = Some(serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n");
            plan.reason = format!("creates {} with the entry", file.display());
            plan.remember = Remember::Save(SavedEntry::none("mempalace", true, false));
            plan.user_entry = Some(target.saved.clone());
            return Ok(plan);
        }
        Err(e) => return Err(MptError::io(format!("reading {}", file.display()), &e)),
    };
    let plain = jsonc::strip(&text);
    let doc = serde_json::from_str::<Value>(&plain).map_err(|e| {
        MptError::usage(format!("{} is not valid JSON(C): {e}", file.display()))
            .with_hint("fix the file by hand first; mpt never rewrites a file it cannot read")
    })?;
    let found = target.existing(&doc).and_then(|(name, path, kind)| {
        let keys: Vec<&str> = path.iter().map(String::as_str).collect();
        jsonspan::find(&plain, &keys).map(|m| (name, kind, m, path))
    });
    match found {
        Some((name, kind, m, path)) => {
            let at: Vec<&str> = path.iter().map(String::as_str).collect();
            plan.entry = name.clone();
            let before: Value =
                serde_json::from_str(&plain[m.value_start..m.value_end]).unwrap_or(Value::Null);
            plan.before = Some(before.clone());
            let own = kind == crate::harness::kind::EntryKind::Mempalace;
            if own && state == OptIn::Solitary {
                plan.reason = "the entry already matches the opt-in".into();
                return Ok(plan);
            }
            let saved = SavedEntry::load(&target.saved)?;
            if state == OptIn::Solitary
                && !own
                && let Some(s) = saved.as_ref().filter(|s| s.text.is_none())
            {
                return remove_plan(target, plan, &text, &plain, &at, s);
            }
            // The user's own entry: the current one while it is theirs, else the remembered one.
            let base = match (&saved, own) {
                (Some(s), false) => s.value(),
                _ => before.clone(),
            };
            let kept = Kept::from_entry(dialect, &base);
            let (want_text, want) = match (state, &saved) {
                (OptIn::Solitary, Some(s @ SavedEntry { text: Some(t), .. })) => {
                    (t.clone(), s.value())
                }
                _ => {
                    let v = dialect.desired(state, mpt, remote, &kept)?;
                    (v.to_string(), v)
                }
            };
            if state != OptIn::Solitary && before == want {
                plan.reason = "the entry already matches the opt-in".into();
                plan.user_entry = saved.map(|_| target.saved.clone());
                return Ok(plan);
            }
            plan.remember = match (state, own, &saved) {
                (OptIn::Solitary, _, Some(_)) => Remember::Forget,
                (_, true, _) => {
                    Remember::Save(SavedEntry::new(&name, &text[m.value_start..m.value_end]))
                }
                // mpt's entry with nothing remembered: remember what the way back needs.
                (OptIn::Edge | OptIn::Remote, false, None) => {
                    let local = dialect.desired(OptIn::Solitary, mpt, None, &kept)?;
                    Remember::Save(SavedEntry::new(&name, &local.to_string()))
                }
                _ => Remember::Keep,
            };
            if saved.is_some() || plan.remember != Remember::Keep {
                plan.user_entry = Some(target.saved.clone());
            }
            plan.action = Action::Replace;
            plan.after = Some(want);
            plan.new_text = Some(format!(
                "{}{}{}",
                &text[..m.value_start],
                want_text,
                &text[m.value_end..]
            ));
            plan.reason = match (state, &plan.remember) {
                (OptIn::Solitary, Remember::Forget) => {
                    format!("restores your own '{name}' entry")
                }
                _ => format!("sets '{name}' from {kind:?} to {state:?}"),
            };
        }
        None if state == OptIn::Solitary => {
            plan.reason = "no MemPalace entry and no opt-in: left as it is (R1)".into();
            return Ok(plan);
        }
        None if !target.insert => {
            plan.reason = "no MemPalace entry here: nothing to switch".into();
            return Ok(plan);
        }
        None => {
            let servers: Vec<&str> = target.servers.iter().map(String::as_str).collect();
            let (path, member) = match jsonspan::object_close(&plain, &servers) {
                Some(c) => (c, format!("\"mempalace\": {want}")),
                None if servers.len() == 1 => (
                    jsonspan::object_close(&plain, &[]).ok_or_else(|| {
                        MptError::usage(format!("{} is not a JSON object", file.display()))
                    })?,
                    format!("\"{}\": {{\"mempalace\": {want}}}", servers[0]),
                ),
                None => {
                    return Err(MptError::usage(format!(
                        "{} has no {} object to add the entry to",
                        file.display(),
                        servers.join(".")
                    )));
                }
            };
            let (close, nonempty) = path;
            let created_servers = jsonspan::object_close(&plain, &servers).is_none();
            plan.action = Action::Insert;
            plan.remember = Remember::Save(SavedEntry::none("mempalace", false, created_servers));
            plan.user_entry = Some(target.saved.clone());
            plan.after = Some(want);
            plan.new_text = Some(jsonspan::with_member(
                &text, &plain, close, nonempty, &member,
            ));
            plan.reason = "adds the entry".into();
        }
    }
    if let Some(t) = &plan.new_text {
        check_reads_back(target, &plan, t)?;
    }
    Ok(plan)
}

/// The rewritten text must parse, and a parser that takes the last of two equal keys (as
/// JavaScript's does) must find there what the plan says: a file that names a key twice could
/// be edited at one place and read at the other, so it is refused.
fn check_reads_back(target: &Target, plan: &Plan, text: &str) -> Result<()> {
    let doc = serde_json::from_str::<Value>(&jsonc::strip(text)).map_err(|e| {
        MptError::new(
            mpt_base::error::ErrorKind::Io,
            format!("the rewritten file would not parse ({e}); nothing written"),
        )
    })?;
    let read = target
        .objects()
        .iter()
        .find_map(|at| at.iter().try_fold(&doc, |v, k| v.get(k))?.get(&plan.entry));
    let expected = match plan.action {
        Action::Remove => None,
        _ => plan.after.as_ref(),
    };
    if read != expected {
        return Err(MptError::usage(format!(
            "{}: after the edit, the '{}' entry would not read back as written (a key named twice?); nothing written",
            target.file.display(),
            plan.entry
        ))
        .with_hint("make every key in the file appear once, by hand; mpt never guesses which one the harness reads"));
    }
    Ok(())
}

/// Withdrawing where there was no entry before mpt's: the entry goes (and the file, when mpt
/// created it and nothing else is in it); what mpt remembered goes with it.
fn remove_plan(
    target: &Target,
    mut plan: Plan,
    text: &str,
    plain: &str,
    at: &[&str],
    saved: &SavedEntry,
) -> Result<Plan> {
    let uncut = || {
        MptError::usage(format!(
            "{}: the entry '{}' cannot be cut out of the file",
            plan.file.display(),
            plan.entry
        ))
        .with_hint("remove the entry by hand; mpt never rewrites a file it cannot read")
    };
    let parsed = |t: &str| {
        serde_json::from_str::<Value>(&jsonc::strip(t)).map_err(|e| {
            MptError::new(
                mpt_base::error::ErrorKind::Io,
                format!("the rewritten file would not parse ({e}); nothing written"),
            )
        })
    };
    let mut rest = jsonspan::without_member(text, plain, at).ok_or_else(uncut)?;
    // The servers object mpt made for its entry goes with it when nothing else was put in it.
    let holder = &at[..at.len() - 1];
    if saved.created_servers {
        let doc = parsed(&rest)?;
        if holder.iter().try_fold(&doc, |v, k| v.get(k)) == Some(&json!({})) {
            rest =
                jsonspan::without_member(&rest, &jsonc::strip(&rest), holder).ok_or_else(uncut)?;
        }
    }
    let emptied = parsed(&rest)?.eq(&target.nest(json!({})));
    let created_file = saved.created_file;
    plan.remember = Remember::Forget;
    plan.user_entry = Some(target.saved.clone());
    if created_file && emptied {
        plan.action = Action::Delete;
        plan.reason = format!(
            "removes {}: mpt created it for its entry and nothing else is in it (R1)",
            plan.file.display()
        );
    } else {
        plan.action = Action::Remove;
        plan.new_text = Some(rest);
        plan.reason = format!(
            "removes mpt's '{}' entry: there was none before mpt added it (R1)",
            plan.entry
        );
    }
    Ok(plan)
}

/// Writes the plan: the user's entry remembered first, a backup beside the file under a name no
/// other backup has, then the new text atomically (or, for `Delete`, the file removed); a
/// restored entry's memory is removed last.
pub fn apply(plan: &Plan) -> Result<Option<PathBuf>> {
    if plan.action == Action::Delete {
        let kept = mpt_base::backup::beside(&plan.file)?;
        std::fs::remove_file(&plan.file)
            .map_err(|e| MptError::io(format!("removing {}", plan.file.display()), &e))?;
        forget(plan)?;
        return Ok(Some(kept));
    }
    let Some(text) = &plan.new_text else {
        return Ok(None);
    };
    if let (Remember::Save(saved), Some(path)) = (&plan.remember, &plan.user_entry) {
        saved.save(path)?;
    }
    let backup = replace(&plan.file, text)?;
    forget(plan)?;
    Ok(backup)
}

/// `file` replaced by `text` at once (a temporary file renamed over it), a backup beside it first
/// under a name no other backup has: the harness config files every `wire` edits. A file mpt
/// creates is private (0600, as Claude Code keeps its own: an entry's `env` may hold a secret);
/// an existing one keeps its mode. The backup's path, when there was a file.
pub(crate) fn replace(file: &Path, text: &str) -> Result<Option<PathBuf>> {
    if let Some(d) = file.parent() {
        std::fs::create_dir_all(d)
            .map_err(|e| MptError::io(format!("creating {}", d.display()), &e))?;
    }
    let backup = match file.exists() {
        true => Some(mpt_base::backup::beside(file)?),
        false => None,
    };
    let tmp = file.with_extension("mpt-tmp");
    mpt_base::private_fs::write_private(&tmp, text.as_bytes())
        .map_err(|e| MptError::io(format!("writing {}", tmp.display()), &e))?;
    if let Ok(meta) = std::fs::metadata(file) {
        let _ = std::fs::set_permissions(&tmp, meta.permissions());
    }
    std::fs::rename(&tmp, file)
        .map_err(|e| MptError::io(format!("replacing {}", file.display()), &e))?;
    Ok(backup)
}

fn forget(plan: &Plan) -> Result<()> {
    if plan.remember == Remember::Forget
        && let Some(saved) = &plan.user_entry
    {
        std::fs::remove_file(saved)
            .map_err(|e| MptError::io(format!("removing {}", saved.display()), &e))?;
    }
    Ok(())
}

/// The edit pi's extension needs so that `MEMPALACE_EDGE=1` reaches the edge (mpt cannot edit it).
pub const PI_EDIT: &str = r#"// In createClient(), before the MEMPALACE_REMOTE_URL branch:
if (process.env.MEMPALACE_EDGE === "1" && process.env.MEMPALACE_REMOTE_URL) {
  // The edge talks to the primary itself; pi only sees a local stdio server.
  return new StdioMcpClient("mpt", ["edge", "--harness", "pi"]);
}"#;
