//! `invites.json`: each join code `mpt gateway invite` made, its SHA-256 only, the device it is
//! for, its window and its fate; written under its own lock by `invite` and by `POST /join`.

use std::path::Path;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::token::{self, JOIN_CODE};
use super::tokens::stamp;
use crate::state::{StateDir, write_private};
use mpt_base::config::read::{Named, config_text, read_regular};
use mpt_base::error::{ErrorKind, MptError, Result};
use mpt_base::lock::PidLock;
use mpt_base::time::parse_iso_utc;

/// The file's own schema.
pub const SCHEMA: &str = mpt_base::schema::GATEWAY_INVITES;
/// Room for thousands of invites.
const FILE_LIMIT: u64 = 8 << 20;
/// How long a second writer waits for the first.
const PATIENCE: Duration = Duration::from_secs(10);

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InviteFile {
    pub schema: String,
    pub invites: Vec<Invite>,
}

/// One join code as the gateway knows it. Times are RFC 3339 UTC (whole seconds).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Invite {
    /// The code's non-secret id.
    pub id: String,
    pub device: String,
    /// SHA-256 of the whole code, hex.
    pub sha256: String,
    pub created: String,
    /// After this instant the code is refused as expired.
    pub expires: String,
    /// The lifetime of the token it is exchanged for, in seconds; `None`: it never expires.
    pub token_expires_s: Option<u64>,
    /// When it was exchanged, and for which token.
    pub used: Option<String>,
    pub token_id: Option<String>,
    pub revoked: Option<String>,
}

/// Where a code stands at an instant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum InviteState {
    Pending,
    Used,
    Expired,
    Revoked,
}

impl InviteState {
    pub fn as_str(self) -> &'static str {
        match self {
            InviteState::Pending => "pending",
            InviteState::Used => "used",
            InviteState::Expired => "expired",
            InviteState::Revoked => "revoked",
        }
    }
}

impl Invite {
    pub fn state(&self, now_s: i64) -> InviteState {
        if self.used.is_some() {
            InviteState::Used
        } else if self.revoked.is_some() {
            InviteState::Revoked
        } else if parse_iso_utc(&self.expires).is_none_or(|e| e <= now_s) {
            InviteState::Expired
        } else {
            InviteState::Pending
        }
    }
}

impl InviteFile {
    pub fn empty() -> InviteFile {
        InviteFile {
            schema: SCHEMA.into(),
            invites: Vec::new(),
        }
    }

    /// The file at `path`; a missing one has no invites.
    pub fn load(path: &Path) -> Result<InviteFile> {
        if !path.exists() {
            return Ok(InviteFile::empty());
        }
        let named = Named {
            setting: "the gateway's invites file",
            path,
        };
        crate::state::refuse_writable_by_others(path)?;
        let bytes = read_regular(&named, FILE_LIMIT)?;
        let bad = |why: String| {
            MptError::usage(format!("{}: {why}", path.display())).with_hint(
                "invites.json is written by `mpt gateway invite` and the gateway alone: move it away (pending codes stop working) and invite again",
            )
        };
        let file: InviteFile =
            serde_json::from_str(&config_text(&bytes, path)?).map_err(|e| bad(e.to_string()))?;
        if file.schema != SCHEMA {
            return Err(bad(format!(
                "schema is \"{}\", not \"{SCHEMA}\"",
                file.schema
            )));
        }
        Ok(file)
    }

    /// The invites still waiting for their device.
    pub fn pending(&self, now_s: i64) -> impl Iterator<Item = &Invite> {
        self.invites
            .iter()
            .filter(move |i| i.state(now_s) == InviteState::Pending)
    }
}

/// Why a code was not exchanged (the 401's `error`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// Not of the code's format (or its checksum is wrong).
    Malformed,
    /// No invite has its id and digest.
    Unknown,
    Used,
    Expired,
    Revoked,
}

impl Refusal {
    pub fn as_str(self) -> &'static str {
        match self {
            Refusal::Malformed => "malformed",
            Refusal::Unknown => "unknown_code",
            Refusal::Used => "used",
            Refusal::Expired => "expired",
            Refusal::Revoked => "revoked",
        }
    }
}

/// `invites.json` held for a change.
pub struct Editor {
    _lock: PidLock,
    dir: StateDir,
    pub file: InviteFile,
}

impl Editor {
    pub fn open(dir: &StateDir) -> Result<Editor> {
        crate::state::prepare(dir)?;
        let lock = mpt_base::lock::acquire_within(&dir.invites_lock(), "gateway invite", PATIENCE)
            .map_err(|e| MptError::io(format!("locking {}", dir.invites_lock().display()), &e))?
            .ok_or_else(|| {
                MptError::new(
                    ErrorKind::Busy,
                    "another `mpt gateway invite` or a join is changing invites.json",
                )
                .with_hint("run it again once the other one has finished")
            })?;
        let file = InviteFile::load(&dir.invites())?;
        Ok(Editor {
            _lock: lock,
            dir: dir.clone(),
            file,
        })
    }

    /// A new code for `device`, good for `valid`; its token will live `token_expires`. The
    /// device's earlier pending codes are revoked: one code per device waits at a time.
    pub fn create(
        &mut self,
        device: &str,
        valid: Duration,
        token_expires: Option<Duration>,
        now_s: i64,
    ) -> Result<(Invite, String)> {
        self.revoke(device, now_s);
        let (id, code) = loop {
            let (id, code) = JOIN_CODE
                .mint()
                .map_err(|e| MptError::io("reading /dev/urandom", &e))?;
            if !self.file.invites.iter().any(|i| i.id == id) {
                break (id, code);
            }
        };
        let invite = Invite {
            id,
            device: device.to_string(),
            sha256: token::digest(&code),
            created: stamp(now_s),
            expires: stamp(now_s.saturating_add(valid.as_secs() as i64)),
            token_expires_s: token_expires.map(|d| d.as_secs()),
            used: None,
            token_id: None,
            revoked: None,
        };
        self.file.invites.push(invite.clone());
        Ok((invite, code))
    }

    /// Revokes the device's pending codes; the ones revoked.
    pub fn revoke(&mut self, device: &str, now_s: i64) -> Vec<Invite> {
        let mut done = Vec::new();
        for i in &mut self.file.invites {
            if i.device == device && i.state(now_s) == InviteState::Pending {
                i.revoked = Some(stamp(now_s));
                done.push(i.clone());
            }
        }
        done
    }

    /// The pending invite `code` opens (compared by digest, in constant time), or why not.
    pub fn find(&self, code: &str, now_s: i64) -> std::result::Result<&Invite, Refusal> {
        let id = JOIN_CODE.parse(code).ok_or(Refusal::Malformed)?;
        let invite = self
            .file
            .invites
            .iter()
            .find(|i| i.id == id)
            .filter(|i| token::same_digest(&i.sha256, &token::digest(code)))
            .ok_or(Refusal::Unknown)?;
        match invite.state(now_s) {
            InviteState::Pending => Ok(invite),
            InviteState::Used => Err(Refusal::Used),
            InviteState::Expired => Err(Refusal::Expired),
            InviteState::Revoked => Err(Refusal::Revoked),
        }
    }

    /// Marks the invite `id` exchanged for `token_id`.
    pub fn mark_used(&mut self, id: &str, token_id: &str, now_s: i64) {
        if let Some(i) = self.file.invites.iter_mut().find(|i| i.id == id) {
            i.used = Some(stamp(now_s));
            i.token_id = Some(token_id.to_string());
        }
    }

    /// Writes the file whole (0600, atomic rename); settled invites older than a week go.
    pub fn commit(mut self, now_s: i64) -> Result<()> {
        const KEEP_S: i64 = 7 * 24 * 3600;
        self.file.invites.retain(|i| {
            i.state(now_s) == InviteState::Pending
                || parse_iso_utc(&i.expires).is_some_and(|e| e > now_s - KEEP_S)
        });
        let path = self.dir.invites();
        let mut text = serde_json::to_string_pretty(&self.file).unwrap_or_default();
        text.push('\n');
        write_private(&path, text.as_bytes())
            .map_err(|e| MptError::io(format!("writing {}", path.display()), &e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir() -> (tempfile::TempDir, StateDir) {
        let tmp = tempfile::tempdir().unwrap();
        let dir = StateDir {
            root: tmp.path().join("gw"),
        };
        (tmp, dir)
    }

    #[test]
    fn a_code_opens_its_invite_once_within_its_window_and_only_its_hash_is_kept() {
        let (_t, dir) = dir();
        let mut ed = Editor::open(&dir).unwrap();
        let (invite, code) = ed
            .create("lap", Duration::from_secs(900), None, 1000)
            .unwrap();
        assert_eq!(ed.find(&code, 1000).unwrap().device, "lap");
        assert_eq!(ed.find(&code, 1900).unwrap_err(), Refusal::Expired);
        assert_eq!(
            ed.find("mptj_nonsense", 1000).unwrap_err(),
            Refusal::Malformed
        );
        let (_, other) = JOIN_CODE.mint().unwrap();
        assert_eq!(ed.find(&other, 1000).unwrap_err(), Refusal::Unknown);
        ed.mark_used(&invite.id, "TOKENID123", 1001);
        assert_eq!(ed.find(&code, 1002).unwrap_err(), Refusal::Used);
        ed.commit(1002).unwrap();
        let text = std::fs::read_to_string(dir.invites()).unwrap();
        assert!(!text.contains(&code));
        assert!(text.contains(&token::digest(&code)));
        assert_eq!(crate::state::mode(&dir.invites()), Some(0o600));
    }

    #[test]
    fn a_new_code_revokes_the_devices_pending_one() {
        let (_t, dir) = dir();
        let mut ed = Editor::open(&dir).unwrap();
        let (_, first) = ed
            .create("lap", Duration::from_secs(900), None, 1000)
            .unwrap();
        let (_, second) = ed
            .create("lap", Duration::from_secs(900), None, 1001)
            .unwrap();
        assert_eq!(ed.find(&first, 1002).unwrap_err(), Refusal::Revoked);
        assert!(ed.find(&second, 1002).is_ok());
        assert_eq!(ed.revoke("lap", 1003).len(), 1);
        assert_eq!(ed.find(&second, 1004).unwrap_err(), Refusal::Revoked);
    }
}
