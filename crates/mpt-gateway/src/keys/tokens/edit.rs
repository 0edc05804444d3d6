//! The only writer of `tokens.json` (`mpt gateway token issue|rotate|revoke`): under a lock, each
//! change written whole by an atomic rename, so the running gateway never reads half a file.

use std::time::Duration;

use super::{Entry, TokenFile, TokenState, stamp};
use crate::keys::token;
use crate::state::{StateDir, write_private};
use mpt_base::error::{ErrorKind, MptError, Result};
use mpt_base::lock::PidLock;

/// How long a second `mpt gateway token` waits for the first.
const PATIENCE: Duration = Duration::from_secs(10);

/// `tokens.json` held for a change.
pub struct Editor {
    _lock: PidLock,
    dir: StateDir,
    pub file: TokenFile,
}

/// A token just made: its entry and the whole token, shown once.
pub struct Issued {
    pub entry: Entry,
    pub token: String,
}

impl std::fmt::Debug for Issued {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Issued")
            .field("entry", &self.entry)
            .field("token", &"<redacted>")
            .finish()
    }
}

/// The devices a policy names: a token is issued only to one of them (the gateway's policy
/// answers this; the tokens do not read the policy themselves).
pub trait Devices {
    /// `Ok` when the policy at `path` names `device`; else a refusal naming the fix.
    fn require(&self, device: &str, path: &std::path::Path) -> Result<()>;
}

impl Editor {
    pub fn open(dir: &StateDir) -> Result<Editor> {
        crate::state::prepare(dir)?;
        let lock = mpt_base::lock::acquire_within(&dir.tokens_lock(), "gateway token", PATIENCE)
            .map_err(|e| MptError::io(format!("locking {}", dir.tokens_lock().display()), &e))?
            .ok_or_else(|| {
                MptError::new(
                    ErrorKind::Busy,
                    "another `mpt gateway token` is changing tokens.json",
                )
                .with_hint("run it again once the other one has finished")
            })?;
        let file = TokenFile::load(&dir.tokens())?;
        Ok(Editor {
            _lock: lock,
            dir: dir.clone(),
            file,
        })
    }

    /// A new token for `device`, which the policy must name (`policy.require`).
    pub fn issue(
        &mut self,
        policy: &impl Devices,
        device: &str,
        expires: Option<Duration>,
        now_s: i64,
    ) -> Result<Issued> {
        policy.require(device, &self.dir.policy())?;
        let (id, token) = loop {
            let (id, token) =
                token::mint().map_err(|e| MptError::io("reading /dev/urandom", &e))?;
            if self.file.find(&id).is_none() {
                break (id, token);
            }
        };
        let entry = Entry {
            id,
            device: device.to_string(),
            sha256: token::digest(&token),
            created: stamp(now_s),
            expires: expires.map(|d| stamp(now_s.saturating_add(d.as_secs() as i64))),
            revoked: None,
            rotated_to: None,
        };
        self.file.tokens.push(entry.clone());
        Ok(Issued { entry, token })
    }

    /// A new token for `device`; each of its active tokens then works for `overlap` more (or
    /// until its own expiry, if sooner) and is refused as expired after. The new token lives as
    /// long as `expires`, else as long as the one it replaces was given.
    pub fn rotate(
        &mut self,
        policy: &impl Devices,
        device: &str,
        overlap: Duration,
        expires: Option<Duration>,
        now_s: i64,
    ) -> Result<(Issued, Vec<Entry>)> {
        let active: Vec<usize> = (0..self.file.tokens.len())
            .filter(|&i| {
                let e = &self.file.tokens[i];
                e.device == device && e.state(now_s) == TokenState::Active
            })
            .collect();
        let life = |e: &Entry| {
            let created = mpt_base::time::parse_iso_utc(&e.created)?;
            Some(Duration::from_secs(
                (e.expires_at()? - created).max(0) as u64
            ))
        };
        // The new token lives as long as the one it replaces was given: the active one's, else
        // (after a revocation or an expiry) the device's latest one's.
        let lifetime = expires
            .or_else(|| active.iter().find_map(|&i| life(&self.file.tokens[i])))
            .or_else(|| self.latest(device).and_then(life));
        let issued = self.issue(policy, device, lifetime, now_s)?;
        let until = now_s.saturating_add(overlap.as_secs() as i64);
        let mut old = Vec::new();
        for i in active {
            let e = &mut self.file.tokens[i];
            if e.expires_at().is_none_or(|t| t > until) {
                e.expires = Some(stamp(until));
            }
            e.rotated_to = Some(issued.entry.id.clone());
            old.push(e.clone());
        }
        Ok((issued, old))
    }

    /// The device's most recently created token, whatever its state.
    pub fn latest(&self, device: &str) -> Option<&Entry> {
        self.file
            .tokens
            .iter()
            .filter(|e| e.device == device)
            .max_by_key(|e| mpt_base::time::parse_iso_utc(&e.created).unwrap_or(0))
    }

    /// Revokes the token with id `target`, else every token of the device `target` that still
    /// works. Exit 2 when `target` names neither.
    pub fn revoke(&mut self, target: &str, now_s: i64) -> Result<Vec<Entry>> {
        let by_id = self.file.tokens.iter().any(|e| e.id == target);
        let by_device = self.file.tokens.iter().any(|e| e.device == target);
        if !by_id && !by_device {
            return Err(MptError::usage(format!(
                "'{target}' is neither a token id nor a device with tokens in {}",
                self.dir.tokens().display()
            ))
            .with_hint("`mpt gateway token list` shows the ids and devices"));
        }
        let mut done = Vec::new();
        for e in &mut self.file.tokens {
            let hit = if by_id {
                e.id == target
            } else {
                e.device == target && e.state(now_s).works()
            };
            if hit && e.revoked.is_none() {
                e.revoked = Some(stamp(now_s));
                done.push(e.clone());
            }
        }
        Ok(done)
    }

    /// Writes the file whole (0600, atomic rename).
    pub fn commit(self) -> Result<()> {
        let path = self.dir.tokens();
        write_private(&path, self.file.to_text().as_bytes())
            .map_err(|e| MptError::io(format!("writing {}", path.display()), &e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decide::policy::Policy;

    fn setup() -> (tempfile::TempDir, StateDir, Policy) {
        let tmp = tempfile::tempdir().unwrap();
        let dir = StateDir {
            root: tmp.path().join("gw"),
        };
        let policy = Policy::parse(
            &format!(
                r#"{{"schema": "{}", "devices": {{"lap": {{"role": "member"}}}}}}"#,
                crate::decide::policy::SCHEMA
            ),
            &dir.policy(),
        )
        .unwrap();
        (tmp, dir, policy)
    }

    #[test]
    fn issue_keeps_only_the_hash_and_refuses_a_device_the_policy_does_not_name() {
        let (_t, dir, policy) = setup();
        let mut ed = Editor::open(&dir).unwrap();
        let t = ed.issue(&policy, "lap", None, 1000).unwrap();
        let e = ed.issue(&policy, "desk", None, 1000).unwrap_err();
        assert_eq!(e.exit().code(), 2);
        assert!(e.message.contains("desk") && e.message.contains("policy.json"));
        ed.commit().unwrap();
        let text = std::fs::read_to_string(dir.tokens()).unwrap();
        assert!(!text.contains(&t.token));
        assert!(text.contains(&token::digest(&t.token)));
        assert_eq!(crate::state::mode(&dir.tokens()), Some(0o600));
    }

    #[test]
    fn rotate_gives_the_old_token_an_overlap_and_revoke_takes_an_id_or_a_device() {
        let (_t, dir, policy) = setup();
        let mut ed = Editor::open(&dir).unwrap();
        let first = ed
            .issue(&policy, "lap", Some(Duration::from_secs(100)), 1000)
            .unwrap();
        let (second, old) = ed
            .rotate(&policy, "lap", Duration::from_secs(10), None, 1050)
            .unwrap();
        assert_eq!(old.len(), 1);
        let f = &ed.file;
        assert_eq!(
            f.find(&first.entry.id).unwrap().state(1055),
            TokenState::Overlap
        );
        assert_eq!(
            f.find(&first.entry.id).unwrap().state(1060),
            TokenState::Expired
        );
        assert_eq!(f.find(&second.entry.id).unwrap().expires_at(), Some(1150));
        let revoked = ed.revoke("lap", 1055).unwrap();
        assert_eq!(revoked.len(), 2, "the overlap token and the new one");
        assert!(ed.revoke("nobody", 1055).is_err());
    }
}
