//! Claude Code's hooks that feed: mpt's `SessionEnd` and `PreCompact` groups in its settings file
//! beside the user's own, added and removed alone (every other byte kept); MemPalace's found.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::dialect::shell_word;
use crate::harness::{jsonc, jsonspan};
use mpt_base::error::{MptError, Result};

/// mpt's hooks: the event and the `--reason` its `mpt feed mine` records.
pub const EVENTS: [(&str, &str); 2] = [("SessionEnd", "shutdown"), ("PreCompact", "compact")];

/// The events whose MemPalace hooks mine transcripts (`mempalace hook run --hook stop|…`).
const FEEDING_EVENTS: [&str; 4] = ["Stop", "SubagentStop", "SessionEnd", "PreCompact"];

/// What marks a hook command as MemPalace's: its hook runner, or the legacy shell hooks.
const MEMPALACE_MARKS: [&str; 3] = [
    "mempalace hook run",
    "mempal_save_hook",
    "mempal_precompact_hook",
];

/// How long a hook's mine waits for one still running: past a prepare's and a mine's own
/// deadlines (`MEMPALACE_FEED_MINE_TIMEOUT_MS` is 300 s by default), so a session that ends while
/// the last one is mined is filed now, not at the next trigger.
pub const WAIT_S: u64 = 900;

/// mpt's hook command for `reason`: in the background, so Claude Code does not wait for the mine
/// (it waits for a `SessionEnd` hook before it exits); the feed's lock keeps two runs apart, the
/// later one waiting for the earlier ([`WAIT_S`]).
pub fn command(mpt: &Path, reason: &str) -> String {
    format!(
        "nohup {} feed mine --harness claude --reason {reason} --wait {WAIT_S} -q </dev/null >/dev/null 2>&1 &",
        shell_word(&mpt.display().to_string())
    )
}

fn is_mpts(command: &str) -> bool {
    command.contains(" feed mine --harness claude ")
}

fn is_mempalaces(command: &str) -> bool {
    MEMPALACE_MARKS.iter().any(|m| command.contains(m))
}

/// Who a hook is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Owner {
    Mpt,
    Mempalace,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Hook {
    pub event: String,
    pub owner: Owner,
    pub command: String,
}

/// The commands of a hook group (`{"matcher": …, "hooks": [{"type": "command", …}]}`).
fn commands(group: &Value) -> Vec<&str> {
    group
        .get("hooks")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|h| h.get("command").and_then(Value::as_str))
        .collect()
}

/// mpt's and MemPalace's feeding hooks in the settings `doc`.
pub fn feeding(doc: &Value) -> Vec<Hook> {
    let mut out = Vec::new();
    for event in FEEDING_EVENTS {
        let groups = doc
            .get("hooks")
            .and_then(|h| h.get(event))
            .and_then(Value::as_array);
        for c in groups.into_iter().flatten().flat_map(commands) {
            let owner = match c {
                c if is_mpts(c) => Owner::Mpt,
                c if is_mempalaces(c) => Owner::Mempalace,
                _ => continue,
            };
            out.push(Hook {
                event: event.into(),
                owner,
                command: c.into(),
            });
        }
    }
    out
}

/// The feeding hooks declared in the settings file (none when it does not exist).
pub fn read(file: &Path) -> Result<Vec<Hook>> {
    match std::fs::read_to_string(file) {
        Ok(t) => Ok(feeding(&parse(file, &t)?)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(MptError::io(format!("reading {}", file.display()), &e)),
    }
}

fn parse(file: &Path, text: &str) -> Result<Value> {
    serde_json::from_str(&jsonc::strip(text)).map_err(|e| {
        MptError::usage(format!("{} is not valid JSON: {e}", file.display()))
            .with_hint("fix the file by hand first; mpt never rewrites a file it cannot read")
    })
}

/// What mpt remembers beside the settings file while its hooks are in: the containers it
/// created (removed with its last hook) and the MemPalace groups it took out (put back then).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Memory {
    pub schema: String,
    pub created: Vec<String>,
    pub replaced: Vec<Replaced>,
    /// mpt created the settings file: removing its last hook removes the file when it is empty.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub created_file: bool,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Replaced {
    pub event: String,
    /// The group exactly as it was written.
    pub text: String,
}

pub fn memory_path(settings: &Path) -> PathBuf {
    PathBuf::from(format!("{}.mpt-hooks.json", settings.display()))
}

fn load_memory(path: &Path) -> Result<Memory> {
    match std::fs::read_to_string(path) {
        Ok(t) => serde_json::from_str::<Memory>(&t)
            .ok()
            .filter(|m| m.schema == mpt_base::schema::EDGE_WIRE_HOOKS)
            .ok_or_else(|| {
                MptError::usage(format!("{} is not a memory mpt can read", path.display()))
                    .with_hint("it remembers what `mpt edge wire claude --hooks` changed: fix it, or delete it (mpt then leaves empty hook lists in place)")
            }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Memory {
            schema: mpt_base::schema::EDGE_WIRE_HOOKS.into(),
            ..Memory::default()
        }),
        Err(e) => Err(MptError::io(format!("reading {}", path.display()), &e)),
    }
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct HooksPlan {
    pub file: PathBuf,
    pub install: bool,
    /// The events whose mpt hook this adds (or, removing, takes out).
    pub changed: Vec<String>,
    /// MemPalace's groups taken out (installing with `replace_mempalace`) or put back.
    pub mempalace_replaced: Vec<Hook>,
    /// MemPalace's feeding hooks left beside mpt's: a conversation fed by both is filed twice.
    pub mempalace_left: Vec<Hook>,
    pub memory: PathBuf,
    /// The settings file goes: mpt created it, and nothing else was put in it.
    pub delete: bool,
    #[serde(skip)]
    pub new_text: Option<String>,
    #[serde(skip)]
    new_memory: Option<Memory>,
}

/// One edit at a time: each step reads the text it is given afresh.
struct Doc {
    text: String,
}

impl Doc {
    fn plain(&self) -> String {
        jsonc::strip(&self.text)
    }

    fn value(&self) -> Value {
        serde_json::from_str(&self.plain()).unwrap_or(Value::Null)
    }

    /// The groups of `event` with their spans, last first (so removing one keeps the others').
    fn groups(&self, event: &str) -> Vec<((usize, usize), Value)> {
        let plain = self.plain();
        let mut out: Vec<_> = jsonspan::elements(&plain, &["hooks", event])
            .unwrap_or_default()
            .into_iter()
            .map(|(a, b)| {
                (
                    (a, b),
                    serde_json::from_str(&plain[a..b]).unwrap_or(Value::Null),
                )
            })
            .collect();
        out.reverse();
        out
    }

    fn remove(&mut self, span: (usize, usize)) -> Result<()> {
        self.text =
            jsonspan::without_element(&self.text, &self.plain(), span).ok_or_else(|| {
                MptError::usage("a hook group cannot be cut out of the settings file")
            })?;
        Ok(())
    }

    /// Adds `group` to `event`'s list, making the list (and `hooks`) when missing; says which.
    fn add(&mut self, event: &str, group: &str) -> Result<Vec<String>> {
        let plain = self.plain();
        let v = self.value();
        let missing = || MptError::usage("the settings file is not a JSON object");
        let (text, created) = match v.get("hooks") {
            None => {
                let (close, nonempty) = jsonspan::object_close(&plain, &[]).ok_or_else(missing)?;
                let member = format!("\"hooks\": {{\"{event}\": [{group}]}}");
                let t = jsonspan::with_member(&self.text, &plain, close, nonempty, &member);
                (t, vec!["hooks".to_string(), format!("hooks.{event}")])
            }
            Some(h) if h.get(event).is_none() => {
                let (close, nonempty) =
                    jsonspan::object_close(&plain, &["hooks"]).ok_or_else(missing)?;
                let member = format!("\"{event}\": [{group}]");
                let t = jsonspan::with_member(&self.text, &plain, close, nonempty, &member);
                (t, vec![format!("hooks.{event}")])
            }
            Some(_) => {
                let t = jsonspan::with_element(&self.text, &plain, &["hooks", event], group)
                    .ok_or_else(|| {
                        MptError::usage(format!("hooks.{event} in the settings file is not a list"))
                    })?;
                (t, Vec::new())
            }
        };
        self.text = text;
        Ok(created)
    }

    /// Removes the member at `path` when it is an empty list or object.
    fn drop_if_empty(&mut self, path: &[&str]) -> bool {
        let v = self.value();
        let empty = match path.iter().try_fold(&v, |v, k| v.get(k)) {
            Some(Value::Array(a)) => a.is_empty(),
            Some(Value::Object(o)) => o.is_empty(),
            _ => false,
        };
        if !empty {
            return false;
        }
        match jsonspan::without_member(&self.text, &self.plain(), path) {
            Some(t) => {
                self.text = t;
                true
            }
            None => false,
        }
    }
}

/// What installing (or removing) mpt's hooks in `file` would do (nothing is written).
pub fn plan(file: &Path, mpt: &Path, install: bool, replace_mempalace: bool) -> Result<HooksPlan> {
    let existed = file.exists();
    let text = match std::fs::read_to_string(file) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => "{}\n".to_string(),
        Err(e) => return Err(MptError::io(format!("reading {}", file.display()), &e)),
    };
    parse(file, &text)?;
    let memory = memory_path(file);
    let mut mem = load_memory(&memory)?;
    let mut doc = Doc { text: text.clone() };
    mem.created_file |= install && !existed;
    let mut changed = Vec::new();
    let mut replaced = Vec::new();
    for (event, reason) in EVENTS {
        let want = command(mpt, reason);
        let groups = doc.groups(event);
        let ours: Vec<_> = groups
            .iter()
            .filter(|(_, g)| {
                let c = commands(g);
                !c.is_empty() && c.iter().all(|c| is_mpts(c))
            })
            .collect();
        let current = ours.iter().any(|(_, g)| commands(g) == [want.as_str()]);
        if install && current && ours.len() == 1 {
            continue;
        }
        let spans: Vec<_> = ours.iter().map(|(s, _)| *s).collect();
        for span in spans {
            doc.remove(span)?;
        }
        if install {
            let group = json!({"hooks": [{"type": "command", "command": want}]}).to_string();
            for c in doc.add(event, &group)? {
                if !mem.created.contains(&c) {
                    mem.created.push(c);
                }
            }
        } else if !ours.is_empty() {
            let key = format!("hooks.{event}");
            if mem.created.contains(&key) && doc.drop_if_empty(&["hooks", event]) {
                mem.created.retain(|c| c != &key);
            }
        }
        if install || !ours.is_empty() {
            changed.push(event.to_string());
        }
    }
    if install && replace_mempalace {
        for event in FEEDING_EVENTS {
            for (span, g) in doc.groups(event) {
                let c = commands(&g);
                if !c.iter().any(|c| is_mempalaces(c)) {
                    continue;
                }
                if !c.iter().all(|c| is_mempalaces(c)) {
                    return Err(MptError::usage(format!(
                        "a {event} hook group in {} holds MemPalace's hook beside another: mpt will not take yours out with it",
                        file.display()
                    ))
                    .with_hint("move MemPalace's hook into a group of its own, by hand, and run this again"));
                }
                let plain = doc.plain();
                mem.replaced.push(Replaced {
                    event: event.into(),
                    text: plain[span.0..span.1].to_string(),
                });
                replaced.extend(c.iter().map(|c| Hook {
                    event: event.into(),
                    owner: Owner::Mempalace,
                    command: c.to_string(),
                }));
                doc.remove(span)?;
            }
        }
    }
    if !install {
        for r in std::mem::take(&mut mem.replaced) {
            for c in doc.add(&r.event, &r.text)? {
                mem.created.push(c);
            }
            replaced.extend(
                commands(&serde_json::from_str(&r.text).unwrap_or(Value::Null))
                    .iter()
                    .map(|c| Hook {
                        event: r.event.clone(),
                        owner: Owner::Mempalace,
                        command: c.to_string(),
                    }),
            );
        }
        if mem.created.iter().any(|c| c == "hooks") && doc.drop_if_empty(&["hooks"]) {
            mem.created.retain(|c| c != "hooks");
        }
    }
    let after = doc.value();
    let left = feeding(&after)
        .into_iter()
        .filter(|h| h.owner == Owner::Mempalace)
        .collect();
    let delete = !install && existed && mem.created_file && doc.value() == json!({});
    if !install {
        // Nothing of mpt's is left: the file stays when anything else was put in it.
        mem.created_file = false;
    }
    let unchanged = doc.text == text;
    // Nothing to write when nothing changed, or when removing from a file that never existed.
    let new_text = (!unchanged && (existed || install)).then_some(doc.text);
    Ok(HooksPlan {
        file: file.to_path_buf(),
        install,
        changed: if unchanged { Vec::new() } else { changed },
        mempalace_replaced: replaced,
        mempalace_left: left,
        memory,
        delete,
        new_text,
        new_memory: Some(mem),
    })
}

/// Writes the plan: the memory first (or removed, once nothing of mpt's is left), a backup,
/// then the settings atomically, their mode kept.
pub fn apply(plan: &HooksPlan) -> Result<Option<PathBuf>> {
    let Some(text) = &plan.new_text else {
        return Ok(None);
    };
    if let Some(mem) = &plan.new_memory {
        if mem.created.is_empty() && mem.replaced.is_empty() && !mem.created_file {
            super::entry::forget_memory(&plan.memory)?;
        } else {
            super::entry::write_memory(&plan.memory, mem)?;
        }
    }
    if plan.delete {
        let kept = mpt_base::backup::beside(&plan.file)?;
        std::fs::remove_file(&plan.file)
            .map_err(|e| MptError::io(format!("removing {}", plan.file.display()), &e))?;
        return Ok(Some(kept));
    }
    super::replace(&plan.file, text)
}

#[cfg(test)]
mod tests {
    use super::*;

    const USER: &str = r#"{
  "model": "opus",
  "hooks": {
    "SessionEnd": [
      {"hooks": [{"type": "command", "command": "notify-send bye"}]}
    ],
    "Stop": [{"hooks": [{"type": "command", "command": "mempalace hook run --hook stop --harness claude-code"}]}]
  }
}
"#;

    #[test]
    fn installed_beside_the_users_own_and_removed_alone() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("settings.json");
        std::fs::write(&f, USER).unwrap();
        let mpt = Path::new("/usr/bin/mpt");
        let p = plan(&f, mpt, true, false).unwrap();
        assert_eq!(p.changed, ["SessionEnd", "PreCompact"]);
        assert_eq!(p.mempalace_left.len(), 1, "{:?}", p.mempalace_left);
        apply(&p).unwrap();
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(&f).unwrap()).unwrap();
        assert_eq!(doc["hooks"]["SessionEnd"].as_array().unwrap().len(), 2);
        assert_eq!(
            doc["hooks"]["PreCompact"][0]["hooks"][0]["command"],
            command(mpt, "compact")
        );
        assert!(
            plan(&f, mpt, true, false).unwrap().new_text.is_none(),
            "idempotent"
        );
        apply(&plan(&f, mpt, false, false).unwrap()).unwrap();
        assert_eq!(std::fs::read_to_string(&f).unwrap(), USER);
        assert!(!memory_path(&f).exists());
        // Replacing MemPalace's: taken out, then put back (at the end of its list) on removal.
        apply(&plan(&f, mpt, true, true).unwrap()).unwrap();
        let hooks = read(&f).unwrap();
        assert!(hooks.iter().all(|h| h.owner == Owner::Mpt), "{hooks:?}");
        apply(&plan(&f, mpt, false, false).unwrap()).unwrap();
        assert_eq!(std::fs::read_to_string(&f).unwrap(), USER);
        // No settings file: made, then removed with mpt's last hook; kept once Claude Code
        // wrote something else in it.
        let g = d.path().join("none.json");
        apply(&plan(&g, mpt, true, false).unwrap()).unwrap();
        let out = plan(&g, mpt, false, false).unwrap();
        assert!(out.delete);
        apply(&out).unwrap();
        assert!(!g.exists() && !memory_path(&g).exists());
        apply(&plan(&g, mpt, true, false).unwrap()).unwrap();
        let with_model =
            std::fs::read_to_string(&g)
                .unwrap()
                .replacen('{', "{\"model\": \"opus\", ", 1);
        std::fs::write(&g, with_model).unwrap();
        apply(&plan(&g, mpt, false, false).unwrap()).unwrap();
        assert_eq!(
            std::fs::read_to_string(&g).unwrap(),
            "{\"model\": \"opus\"}\n"
        );
        assert!(!memory_path(&g).exists());
    }
}
