//! What every request of a running gateway shares: the policy and tokens it follows on disk,
//! the audit log, the rate buckets, the last-used times, and the upstream.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use super::audit::{AuditLog, Event, Synced};
use super::last_used::LastUsed;
use super::mine_slot::MineSlot;
use super::policy::Policy;
use super::rate::Buckets;
use super::reload::{Refresh, Watched};
use super::state::StateDir;
use super::tokens::{Entry, TokenFile};
use super::upstream::Upstream;
use crate::{log_debug, log_warn};

pub struct Shared {
    pub dir: StateDir,
    pub upstream: Upstream,
    policy: Mutex<Watched<Policy>>,
    tokens: Mutex<Watched<TokenFile>>,
    audit: Mutex<AuditLog>,
    synced: Synced,
    rate: Mutex<Buckets>,
    last_used: Mutex<LastUsed>,
    /// One mine at a time across the gateway.
    pub mine: MineSlot,
}

/// A lock whose holder panicked still guards sound data here (each change is one assignment).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn report(what: &str, r: Refresh) {
    match r {
        Refresh::Same => {}
        Refresh::Reloaded => log_debug!("{what} changed: reloaded"),
        Refresh::Refused(e) => log_warn!(
            "{what} changed but does not load, so the gateway keeps the last good one: {}",
            e.message
        ),
    }
}

impl Shared {
    pub fn new(
        dir: StateDir,
        upstream: Upstream,
        policy: Watched<Policy>,
        tokens: Watched<TokenFile>,
        audit: AuditLog,
    ) -> Shared {
        let last_used = LastUsed::load(&dir.last_used());
        Shared {
            dir,
            upstream,
            policy: Mutex::new(policy),
            tokens: Mutex::new(tokens),
            audit: Mutex::new(audit),
            synced: Synced::default(),
            rate: Mutex::new(Buckets::default()),
            last_used: Mutex::new(last_used),
            mine: MineSlot::default(),
        }
    }

    /// The policy as it is on disk now (the last good one if the file stopped loading).
    pub fn policy(&self) -> Arc<Policy> {
        let mut w = lock(&self.policy);
        let r = w.refresh(false);
        if let Refresh::Reloaded = r {
            warn_unenforced(&w.get());
        }
        report("the gateway policy", r);
        w.get()
    }

    /// The entry of token `id`: `tokens.json` is read again when it changed, and once more when
    /// the id is not in it.
    pub fn token_entry(&self, id: &str) -> Option<Entry> {
        let mut w = lock(&self.tokens);
        report("tokens.json", w.refresh(false));
        if let Some(e) = w.get().find(id) {
            return Some(e.clone());
        }
        report("tokens.json", w.refresh(true));
        w.get().find(id).cloned()
    }

    /// Appends an audit record; its seq.
    pub fn audit(&self, e: &Event, durable: bool) -> std::io::Result<u64> {
        crate::log_trace!(
            "{} {} {} {} {} ({})",
            e.stage,
            e.device.as_deref().unwrap_or("-"),
            e.route,
            e.tool.as_deref().or(e.rpc.as_deref()).unwrap_or("-"),
            if e.allowed { "allow" } else { "deny" },
            e.rule
        );
        // Appended under the lock; a write's record then made durable outside it, so one fsync
        // serves every write that arrived meanwhile.
        let appended = lock(&self.audit).append(e);
        let r = appended.and_then(|seq| {
            if durable {
                self.synced
                    .through(seq, || lock(&self.audit).sync_handle())?;
            }
            Ok(seq)
        });
        if let Err(err) = &r {
            log_warn!("the audit record could not be written: {err}");
        }
        r
    }

    /// [`Shared::audit`] of a request about to be forwarded: a durable one waits for its fsync
    /// on a blocking thread, so the runtime's workers go on appending the records one fsync
    /// then covers (group commit), instead of each waiting in turn.
    pub async fn audit_forwarded(
        self: &Arc<Self>,
        e: &Event,
        durable: bool,
    ) -> std::io::Result<u64> {
        if !durable {
            return self.audit(e, false);
        }
        let (sh, e) = (Arc::clone(self), e.clone());
        tokio::task::spawn_blocking(move || sh.audit(&e, true))
            .await
            .unwrap_or_else(|j| Err(std::io::Error::other(j)))
    }

    /// One request from `device` against its rate; `Err(seconds)` to wait.
    pub fn take_rate(&self, device: &str, policy: &Policy) -> Result<(), u64> {
        let rate = policy.device(device).and_then(|d| d.rate);
        lock(&self.rate)
            .take(device, rate, Instant::now())
            .map_err(super::rate::retry_after_secs)
    }

    /// Notes a use of token `id`, written at once the first time (else by `flush_last_used`).
    pub fn touch(&self, id: &str) {
        let mut l = lock(&self.last_used);
        if l.touch(id, crate::time::now_ms()) {
            let _ = l.flush(&self.dir.last_used());
        }
    }

    pub fn flush_last_used(&self) {
        if let Err(e) = lock(&self.last_used).flush(&self.dir.last_used()) {
            log_warn!("cannot write {}: {e}", self.dir.last_used().display());
        }
    }
}

/// Read globs arrive with the result filters; until then say, at every load, whose are not
/// enforced (write globs are).
pub fn warn_unenforced(policy: &Policy) {
    let devices = policy.unenforced_wings();
    if !devices.is_empty() {
        log_warn!(
            "the policy's wings.read rules are not enforced yet (device {}): each reads every wing its role allows (wings.write is enforced)",
            devices.join(", ")
        );
    }
}
