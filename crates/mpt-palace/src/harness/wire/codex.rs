//! Codex's one MemPalace entry (`[mcp_servers.<name>]` in its `config.toml`) set to the opt-in with
//! a TOML editor that keeps every comment and the order; the keys mpt changed remembered to restore.

use std::path::{Path, PathBuf};

use toml_edit::{Array, DocumentMut, Item, TableLike, value};

use super::{Action, OptIn};
use crate::harness::kind::{self, EntryKind};
use mpt_base::error::{ErrorKind, MptError, Result};

/// The keys mpt sets on the edge entry; a remote entry's transport keys it takes away.
const SET: [&str; 4] = ["command", "args", "required", "env_vars"];
const REMOTE_KEYS: [&str; 4] = [
    "url",
    "bearer_token_env_var",
    "http_headers",
    "env_http_headers",
];

/// What mpt remembers beside the config while its entry is in: each key it set or removed, as it
/// was (its value's text with its spacing and comments, or `None` for absent), or that it added
/// the whole table (and made the file).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Memory {
    pub schema: String,
    pub entry: String,
    #[serde(default)]
    pub keys: Vec<(String, Option<String>)>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub inserted: bool,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub created_file: bool,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct Plan {
    pub file: PathBuf,
    pub entry: String,
    pub state: OptIn,
    pub action: Action,
    /// The entry's table before and after, as TOML.
    pub before: Option<String>,
    pub after: Option<String>,
    pub reason: String,
    /// Where mpt remembers what it changed (`<file>.mpt-user-entry.json`).
    pub user_entry: PathBuf,
    #[serde(skip)]
    pub new_text: Option<String>,
    /// The memory to write (`Some`), or to remove once the user's entry is back (`None`).
    #[serde(skip)]
    memory: Option<Option<Memory>>,
}

pub fn memory_path(file: &Path) -> PathBuf {
    super::entry::saved_path(file, None)
}

fn load(path: &Path) -> Result<Option<Memory>> {
    match std::fs::read_to_string(path) {
        Ok(t) => serde_json::from_str::<Memory>(&t)
            .ok()
            .filter(|m| m.schema == mpt_base::schema::EDGE_WIRE_CODEX_ENTRY)
            .map(Some)
            .ok_or_else(|| {
                MptError::usage(format!("{} is not a memory mpt can read", path.display()))
                    .with_hint("it remembers your own Codex entry while mpt's replaces it: fix it, or delete it to let mpt derive the entry")
            }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(MptError::io(format!("reading {}", path.display()), &e)),
    }
}

/// An entry's program and arguments.
fn command(t: &dyn TableLike) -> Vec<String> {
    let mut out: Vec<String> = t
        .get("command")
        .and_then(Item::as_str)
        .map(|c| vec![c.to_string()])
        .unwrap_or_default();
    if let Some(a) = t.get("args").and_then(Item::as_array) {
        out.extend(a.iter().filter_map(|v| v.as_str().map(str::to_string)));
    }
    out
}

/// The first MemPalace entry under `mcp_servers`: its name and kind.
fn existing(doc: &DocumentMut) -> Option<(String, EntryKind)> {
    let servers = doc.get("mcp_servers")?.as_table_like()?;
    servers.iter().find_map(|(name, item)| {
        let t = item.as_table_like()?;
        let k = kind::classify(name, &command(t), t.contains_key("url"))?;
        Some((name.to_string(), k))
    })
}

fn entry_mut<'a>(doc: &'a mut DocumentMut, name: &str) -> Option<&'a mut dyn TableLike> {
    doc.get_mut("mcp_servers")?
        .as_table_like_mut()?
        .get_mut(name)?
        .as_table_like_mut()
}

fn table_text(doc: &DocumentMut, name: &str) -> Option<String> {
    let t = doc.get("mcp_servers")?.as_table_like()?.get(name)?;
    let mut one = DocumentMut::new();
    let mut servers = toml_edit::Table::new();
    servers.set_implicit(true);
    servers.insert(name, t.clone());
    one.insert("mcp_servers", Item::Table(servers));
    Some(one.to_string().trim().to_string())
}

/// A value's text as written (its spacing and trailing comment), to put back exactly.
fn item_text(item: &Item) -> Option<String> {
    item.as_value().map(|v| v.to_string())
}

fn item_from(text: &str) -> Result<Item> {
    let doc: DocumentMut = format!("k ={text}").parse().map_err(|e| {
        MptError::usage(format!("a remembered value does not parse ({e})"))
            .with_hint("delete the memory beside the config to let mpt derive the entry")
    })?;
    Ok(doc["k"].clone())
}

fn edge_values(t: &mut dyn TableLike, mpt: &Path, palace: Option<&str>) {
    let mut args = Array::new();
    for a in ["edge", "--harness", "codex"] {
        args.push(a);
    }
    if let Some(p) = palace {
        args.push("--palace");
        args.push(p);
    }
    set(t, "command", value(mpt.display().to_string()));
    set(t, "args", value(args));
    // Codex sends its first request before an optional server is up; `required` waits for it.
    set(t, "required", value(true));
    // Codex hands an MCP server a few variables of its own (HOME, PATH, LANG, …) and no others
    // (checked with 0.169): the edge's opt-in, token, device and palace come by name, as the
    // user's own `env_vars` do; the values stay in Codex's environment, never in the file.
    let mut pass = t
        .get("env_vars")
        .and_then(Item::as_array)
        .cloned()
        .unwrap_or_default();
    let names = mpt_base::config::vars::MPT.iter().chain(&[
        "XDG_CONFIG_HOME",
        "XDG_STATE_HOME",
        "XDG_DATA_HOME",
    ]);
    for n in names {
        if !pass.iter().any(|v| v.as_str() == Some(n)) {
            pass.push(*n);
        }
    }
    for v in pass.iter_mut() {
        v.decor_mut().set_prefix("\n    ");
    }
    pass.set_trailing_comma(true);
    pass.set_trailing("\n");
    set(t, "env_vars", value(pass));
    for k in REMOTE_KEYS {
        t.remove(k);
    }
}

/// Sets `key` keeping its place (and the key's own comments) when it is there.
fn set(t: &mut dyn TableLike, key: &str, item: Item) {
    match t.get_mut(key) {
        Some(old) => {
            let decor = old.as_value().map(|v| v.decor().clone());
            *old = item;
            if let (Some(d), Some(v)) = (decor, old.as_value_mut()) {
                *v.decor_mut() = d;
            }
        }
        None => {
            t.insert(key, item);
        }
    }
}

/// Codex's MemPalace entry as doctor and the runbook read it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Entry {
    pub file: PathBuf,
    pub name: String,
    pub kind: EntryKind,
    pub command: Vec<String>,
    /// The variables it passes on by name (`env_vars`): the edge's opt-in reaches it only so.
    pub env_vars: Vec<String>,
}

/// The MemPalace entry of Codex's `file`: `Ok(None)` when the file or the entry is not there;
/// an error when the file is not TOML (Codex refuses it too).
pub fn entry(file: &Path) -> std::result::Result<Option<Entry>, String> {
    let text = match std::fs::read_to_string(file) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e.to_string()),
    };
    let doc: DocumentMut = text
        .parse()
        .map_err(|e: toml_edit::TomlError| e.to_string())?;
    let Some((name, kind)) = existing(&doc) else {
        return Ok(None);
    };
    let t = doc["mcp_servers"][name.as_str()]
        .as_table_like()
        .expect("found above");
    let env_vars = t
        .get("env_vars")
        .and_then(Item::as_array)
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str().map(str::to_string))
        .collect();
    Ok(Some(Entry {
        file: file.to_path_buf(),
        command: command(t),
        name,
        kind,
        env_vars,
    }))
}

/// What wiring Codex's `file` for `state` would do (nothing is written).
pub fn plan(file: &Path, state: OptIn, mpt: &Path, mempalace_installed: bool) -> Result<Plan> {
    let mut plan = Plan {
        file: file.to_path_buf(),
        entry: "mempalace".into(),
        state,
        action: Action::Untouched,
        before: None,
        after: None,
        reason: String::new(),
        user_entry: memory_path(file),
        new_text: None,
        memory: None,
    };
    if !mempalace_installed {
        plan.action = Action::Skipped;
        plan.reason =
            "MemPalace is not installed here (no mempalace-mcp on PATH): nothing to wire".into();
        return Ok(plan);
    }
    let edge = state == OptIn::Edge;
    let memory = load(&plan.user_entry)?;
    let text = match std::fs::read_to_string(file) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if !edge {
                plan.reason = format!(
                    "no {} and no opt-in to the edge: left as it is (R1)",
                    file.display()
                );
                return Ok(plan);
            }
            String::new()
        }
        Err(e) => return Err(MptError::io(format!("reading {}", file.display()), &e)),
    };
    let created_file = !file.exists();
    let mut doc: DocumentMut = text.parse().map_err(|e| {
        MptError::usage(format!("{} is not valid TOML: {e}", file.display()))
            .with_hint("fix the file by hand first; mpt never rewrites a file it cannot read")
    })?;
    let found = existing(&doc);
    if let Some((name, _)) = &found {
        plan.entry = name.clone();
        plan.before = table_text(&doc, name);
    }
    match (found, edge) {
        (Some((name, k)), true) => {
            let t = entry_mut(&mut doc, &name).expect("found above");
            let cmd = command(t);
            let p = kind::palace_arg(&cmd);
            let mem = match memory {
                Some(m) => m,
                None => Memory {
                    schema: mpt_base::schema::EDGE_WIRE_CODEX_ENTRY.into(),
                    entry: name.clone(),
                    keys: SET
                        .iter()
                        .chain(REMOTE_KEYS.iter())
                        .map(|k| (k.to_string(), t.get(k).and_then(item_text)))
                        .collect(),
                    ..Memory::default()
                },
            };
            edge_values(t, mpt, p.as_deref());
            plan.memory = Some(Some(mem));
            plan.action = Action::Replace;
            plan.reason = format!("sets '{name}' from {k:?} to Edge");
        }
        (None, true) => {
            let mut t = toml_edit::Table::new();
            edge_values(&mut t, mpt, None);
            let servers = doc
                .entry("mcp_servers")
                .or_insert_with(|| {
                    let mut s = toml_edit::Table::new();
                    s.set_implicit(true);
                    Item::Table(s)
                })
                .as_table_like_mut()
                .ok_or_else(|| {
                    MptError::usage(format!("{}: mcp_servers is not a table", file.display()))
                })?;
            servers.insert("mempalace", Item::Table(t));
            plan.memory = Some(Some(Memory {
                schema: mpt_base::schema::EDGE_WIRE_CODEX_ENTRY.into(),
                entry: "mempalace".into(),
                inserted: true,
                created_file,
                ..Memory::default()
            }));
            plan.action = if created_file {
                Action::Create
            } else {
                Action::Insert
            };
            plan.reason = if created_file {
                format!("creates {} with the entry", file.display())
            } else {
                "adds the entry".into()
            };
        }
        (Some((name, _)), false) if memory.as_ref().is_some_and(|m| m.inserted) => {
            let servers = doc["mcp_servers"].as_table_like_mut().expect("found above");
            servers.remove(&name);
            if servers.is_empty()
                && doc["mcp_servers"]
                    .as_table()
                    .is_some_and(|t| t.is_implicit())
            {
                doc.remove("mcp_servers");
            }
            plan.memory = Some(None);
            let created = memory.as_ref().is_some_and(|m| m.created_file);
            if created && doc.to_string().trim().is_empty() {
                plan.action = Action::Delete;
                plan.reason = format!(
                    "removes {}: mpt created it for its entry and nothing else is in it (R1)",
                    file.display()
                );
                return Ok(plan);
            }
            plan.action = Action::Remove;
            plan.reason =
                format!("removes mpt's '{name}' entry: there was none before mpt added it (R1)");
        }
        (Some((name, _)), false) if memory.is_some() => {
            let mem = memory.expect("matched");
            let t = entry_mut(&mut doc, &name).expect("found above");
            for (k, was) in &mem.keys {
                match was {
                    Some(text) => set(t, k, item_from(text)?),
                    None => {
                        t.remove(k);
                    }
                }
            }
            plan.memory = Some(None);
            plan.action = Action::Replace;
            plan.reason = format!("restores your own '{name}' entry");
        }
        (Some((name, EntryKind::Edge)), false) => {
            // mpt's entry with nothing remembered: MemPalace's own child, its palace kept.
            let t = entry_mut(&mut doc, &name).expect("found above");
            let p = kind::palace_arg(&command(t));
            let mut args = Array::new();
            if let Some(p) = p {
                args.push("--palace");
                args.push(p);
            }
            set(t, "command", value("mempalace-mcp"));
            set(t, "args", value(args));
            t.remove("required");
            t.remove("env_vars");
            plan.action = Action::Replace;
            plan.reason = format!("sets '{name}' from Edge to MemPalace's own child");
        }
        (Some(_), false) => {
            plan.reason = "the entry is the user's own and the device is not opted into the edge: left as it is".into();
            return Ok(plan);
        }
        (None, false) => {
            plan.reason = "no MemPalace entry and no opt-in to the edge: left as it is (R1)".into();
            return Ok(plan);
        }
    }
    let new_text = doc.to_string();
    if new_text == text {
        plan.action = Action::Untouched;
        plan.reason = "the entry already matches the opt-in".into();
        plan.memory = None;
        plan.after = plan.before.clone();
        return Ok(plan);
    }
    // What Codex will read: the edited text parses, and the entry says what the plan says.
    let back: DocumentMut = new_text.parse().map_err(|e| {
        MptError::new(
            ErrorKind::Io,
            format!("the rewritten file would not parse ({e}); nothing written"),
        )
    })?;
    if edge {
        let ok = existing(&back).is_some_and(|(n, k)| n == plan.entry && k == EntryKind::Edge);
        if !ok {
            return Err(MptError::usage(format!(
                "{}: after the edit, the '{}' entry would not read back as mpt's (another MemPalace entry first?); nothing written",
                file.display(),
                plan.entry
            ))
            .with_hint("keep one MemPalace entry under [mcp_servers], by hand"));
        }
    }
    plan.after = table_text(&back, &plan.entry);
    plan.new_text = Some(new_text);
    Ok(plan)
}

/// Writes the plan: the memory first, a backup, then the file atomically (its mode kept), or for
/// `Delete` the file removed; the memory removed last once the user's entry is back.
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
    if let Some(Some(m)) = &plan.memory {
        super::entry::write_memory(&plan.user_entry, m)?;
    }
    let backup = super::replace(&plan.file, text)?;
    forget(plan)?;
    Ok(backup)
}

fn forget(plan: &Plan) -> Result<()> {
    match plan.memory {
        Some(None) => super::entry::forget_memory(&plan.user_entry),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A user's config as `codex mcp add` and a hand leave it: comments, another server, the
    /// entry's env table after it.
    const USER: &str = r#"# my codex
model = "gpt-5.5"  # the default

[mcp_servers.github]
command = "gh-mcp"

[mcp_servers.mempalace]
command = "/venv/bin/mempalace-mcp"   # MemPalace's own
args = ["--palace", "/data/p"]
startup_timeout_sec = 30

[mcp_servers.mempalace.env]
MEMPALACE_HUB_FORWARD = "0"

[profiles.fast]
model = "o9"
"#;

    #[test]
    fn the_edge_entry_keeps_the_users_comments_and_order_and_unwiring_restores_every_byte() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("config.toml");
        std::fs::write(&f, USER).unwrap();
        let mpt = Path::new("/usr/bin/mpt");
        let p = plan(&f, OptIn::Edge, mpt, true).unwrap();
        assert_eq!(p.action, Action::Replace);
        apply(&p).unwrap();
        let wired = std::fs::read_to_string(&f).unwrap();
        assert!(
            wired.starts_with("# my codex\nmodel = \"gpt-5.5\"  # the default\n"),
            "{wired}"
        );
        assert!(
            wired.contains("command = \"/usr/bin/mpt\"   # MemPalace's own\n"),
            "{wired}"
        );
        assert!(
            wired
                .contains("args = [\"edge\", \"--harness\", \"codex\", \"--palace\", \"/data/p\"]"),
            "{wired}"
        );
        assert!(
            wired.contains("startup_timeout_sec = 30\nrequired = true\n"),
            "{wired}"
        );
        assert!(wired.contains("[mcp_servers.mempalace.env]\nMEMPALACE_HUB_FORWARD = \"0\""));
        assert!(
            wired.ends_with("[profiles.fast]\nmodel = \"o9\"\n"),
            "{wired}"
        );
        assert_eq!(
            plan(&f, OptIn::Edge, mpt, true).unwrap().action,
            Action::Untouched
        );
        apply(&plan(&f, OptIn::Solitary, mpt, true).unwrap()).unwrap();
        assert_eq!(std::fs::read_to_string(&f).unwrap(), USER);
        assert!(!memory_path(&f).exists());
        // No entry: added, then removed to the same bytes; no file: made, then removed.
        let g = d.path().join("plain.toml");
        let plain = "# only a comment\nmodel = \"o9\"\n";
        std::fs::write(&g, plain).unwrap();
        apply(&plan(&g, OptIn::Edge, mpt, true).unwrap()).unwrap();
        assert!(
            std::fs::read_to_string(&g)
                .unwrap()
                .contains("[mcp_servers.mempalace]")
        );
        apply(&plan(&g, OptIn::Remote, mpt, true).unwrap()).unwrap();
        assert_eq!(std::fs::read_to_string(&g).unwrap(), plain);
        let h = d.path().join("none.toml");
        apply(&plan(&h, OptIn::Edge, mpt, true).unwrap()).unwrap();
        let p = plan(&h, OptIn::Solitary, mpt, true).unwrap();
        assert_eq!(p.action, Action::Delete);
        apply(&p).unwrap();
        assert!(!h.exists() && !memory_path(&h).exists());
        // What doctor reads: the entry and the names it passes on.
        std::fs::write(&g, USER).unwrap();
        apply(&plan(&g, OptIn::Edge, mpt, true).unwrap()).unwrap();
        let e = entry(&g).unwrap().unwrap();
        assert_eq!((e.name.as_str(), e.kind), ("mempalace", EntryKind::Edge));
        assert!(e.env_vars.iter().any(|v| v == "MEMPALACE_REMOTE_URL"));
        // A file that is not TOML is refused, never rewritten.
        std::fs::write(&h, "model = ").unwrap();
        assert!(plan(&h, OptIn::Edge, mpt, true).is_err());
        assert!(entry(&h).is_err());
    }
}
