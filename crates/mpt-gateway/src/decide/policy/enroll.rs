//! A device added to `policy.json` by `mpt gateway invite`: its day-one grants, the edit made on
//! the file's own JSON (every other key kept, in order), parsed as the gateway will before it is written.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use super::{Policy, Role, SCHEMA, valid_device_name};
use mpt_base::error::{MptError, Result};

/// The wings a new member writes on day one: its own (`wing_<device>*`), its agents' diaries
/// (`wing_<harness>@<device>`, MemPalace's default diary wing), and the wings the harnesses'
/// conversations are fed to (the feed's defaults; Claude Code's and Codex's own as they join).
pub fn day_one_writes(device: &str) -> Vec<String> {
    vec![
        format!("wing_{device}*"),
        format!("wing_*@{device}"),
        mpt_base::config::feed::DEFAULT_WING.into(),
        mpt_base::config::feed::DEFAULT_OPENCODE_WING.into(),
        "wing_claude".into(),
        "wing_codex".into(),
    ]
}

/// The device's entry: a member writes `wings` (else its day-one wings) and reads every wing; an
/// observer reads `wings` (else every wing); an admin has every wing unless `wings` narrows its
/// writes. A member or an admin gets its inbox under `inboxes` (`<inboxes>/<device>`) as its
/// `mine.source_prefix`: its conversations are uploaded there and mined (`PUT /inbox/…`).
pub fn entry(device: &str, role: Role, wings: Option<&[String]>, inboxes: Option<&Path>) -> Value {
    let mut e = grants(device, role, wings);
    if let Some(root) = inboxes.filter(|_| role >= Role::Member) {
        e["mine"] = json!({"source_prefix": root.join(device)});
    }
    e
}

fn grants(device: &str, role: Role, wings: Option<&[String]>) -> Value {
    let owned = |w: Option<&[String]>| w.map(<[String]>::to_vec);
    match role {
        Role::Observer => match owned(wings) {
            Some(read) => json!({"role": "observer", "wings": {"read": read}}),
            None => json!({"role": "observer"}),
        },
        Role::Member => {
            let write = owned(wings).unwrap_or_else(|| day_one_writes(device));
            json!({"role": "member", "wings": {"read": ["*"], "write": write}})
        }
        Role::Admin => match owned(wings) {
            Some(write) => json!({"role": "admin", "wings": {"read": ["*"], "write": write}}),
            None => json!({"role": "admin"}),
        },
    }
}

/// The policy with the device in it, not yet written.
#[derive(Debug)]
pub struct Enrollment {
    pub path: PathBuf,
    /// Whether there was no policy file (a new one names this device alone).
    pub created: bool,
    /// The file's lines removed (`-`) and added (`+`), for review.
    pub diff: Vec<String>,
    text: String,
}

/// `device` added to the policy at `path` with `entry`; `None` when the policy names it already
/// (its grants are the operator's, never changed here).
pub fn plan(path: &Path, device: &str, entry: Value) -> Result<Option<Enrollment>> {
    if !valid_device_name(device) {
        return Err(MptError::usage(format!(
            "'{device}' is not a device name (letters, digits and . _ - @, at most 64 bytes)"
        )));
    }
    let (before, mut doc) = if path.exists() {
        let policy = Policy::load(path)?;
        if policy.device(device).is_some() {
            return Ok(None);
        }
        let text = std::fs::read_to_string(path)
            .map_err(|e| MptError::io(format!("reading {}", path.display()), &e))?;
        let doc: Value = serde_json::from_str(text.trim_start_matches('\u{feff}'))
            .map_err(|e| MptError::usage(format!("{}: {e}", path.display())))?;
        (text, doc)
    } else {
        (String::new(), json!({"schema": SCHEMA, "devices": {}}))
    };
    let devices = doc
        .get_mut("devices")
        .and_then(Value::as_object_mut)
        .ok_or_else(|| MptError::usage(format!("{}: no \"devices\" object", path.display())))?;
    devices.insert(device.to_string(), entry);
    sort(devices);
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    text.push('\n');
    // What the gateway will read: the edit must parse, tests included.
    Policy::parse(&text, path)?;
    Ok(Some(Enrollment {
        path: path.to_path_buf(),
        created: before.is_empty(),
        diff: diff(&before, &text),
        text,
    }))
}

/// A policy that names no device (every token refused) where there is none: what a gateway
/// started before its first `mpt gateway invite` serves. `true` when it wrote one.
pub fn write_empty(path: &Path) -> Result<bool> {
    if path.exists() {
        return Ok(false);
    }
    let text = format!(
        "{}\n",
        serde_json::to_string_pretty(&json!({"schema": SCHEMA, "devices": {}})).unwrap_or_default()
    );
    crate::state::write_private(path, text.as_bytes())
        .map_err(|e| MptError::io(format!("writing {}", path.display()), &e))?;
    Ok(true)
}

/// Devices by name, as a reviewer looks for them.
fn sort(devices: &mut Map<String, Value>) {
    let mut all: Vec<(String, Value)> = std::mem::take(devices).into_iter().collect();
    all.sort_by(|a, b| a.0.cmp(&b.0));
    devices.extend(all);
}

impl Enrollment {
    /// Writes the policy (the old one backed up beside it first; the file's mode kept, 0600 when
    /// new); the backup's path.
    pub fn write(&self) -> Result<Option<PathBuf>> {
        let backup = if self.created {
            None
        } else {
            Some(mpt_base::backup::beside(&self.path)?)
        };
        crate::state::write_private(&self.path, self.text.as_bytes())
            .map_err(|e| MptError::io(format!("writing {}", self.path.display()), &e))?;
        Ok(backup)
    }
}

/// The lines of `after` that differ from `before` (one edit: the common head and tail kept out).
fn diff(before: &str, after: &str) -> Vec<String> {
    let a: Vec<&str> = before.lines().collect();
    let b: Vec<&str> = after.lines().collect();
    let head = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let tail = a[head..]
        .iter()
        .rev()
        .zip(b[head..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let removed = a[head..a.len() - tail].iter().map(|l| format!("-{l}"));
    let added = b[head..b.len() - tail].iter().map(|l| format!("+{l}"));
    removed.chain(added).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_member_is_added_with_its_day_one_wings_and_every_other_byte_of_meaning_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("policy.json");
        let start = json!({"schema": SCHEMA, "protected_wings": ["wing_rules*"],
            "devices": {"desk": {"role": "admin"}},
            "tests": [{"device": "desk", "tool": "mempalace_add_drawer", "args": {"wing": "w", "room": "r", "content": "c"}, "expect": "allow"}]});
        std::fs::write(&path, serde_json::to_string_pretty(&start).unwrap()).unwrap();
        let e = plan(
            &path,
            "lap",
            entry("lap", Role::Member, None, Some(Path::new("/srv/inbox"))),
        )
        .unwrap()
        .unwrap();
        assert!(!e.created);
        assert!(e.diff.iter().all(|l| l.starts_with('+')), "{:?}", e.diff);
        assert!(e.diff.iter().any(|l| l.contains("wing_lap*")));
        let backup = e.write().unwrap().unwrap();
        assert!(backup.exists());
        let p = Policy::load(&path).unwrap();
        assert_eq!(p.device("lap").unwrap().role, Role::Member);
        assert_eq!(
            p.device("lap")
                .unwrap()
                .mine
                .as_ref()
                .unwrap()
                .source_prefix,
            "/srv/inbox/lap"
        );
        assert_eq!(p.device("desk").unwrap().role, Role::Admin);
        assert_eq!(p.tests.len(), 1);
        assert!(
            plan(&path, "lap", entry("lap", Role::Admin, None, None))
                .unwrap()
                .is_none()
        );
    }

    #[test]
    fn without_a_policy_a_new_one_names_the_device_and_a_bad_name_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("policy.json");
        let narrow = ["wing_lap".to_string()];
        let e = plan(
            &path,
            "lap",
            entry("lap", Role::Member, Some(&narrow), None),
        )
        .unwrap()
        .unwrap();
        assert!(e.created);
        assert_eq!(e.write().unwrap(), None);
        let p = Policy::load(&path).unwrap();
        assert!(p.device("lap").is_some());
        assert_eq!(crate::state::mode(&path), Some(0o600));
        let bad = plan(&path, "a b", entry("a b", Role::Member, None, None)).unwrap_err();
        assert_eq!(bad.exit().code(), 2);
    }
}
