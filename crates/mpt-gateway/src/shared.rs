//! What every request of a running gateway shares: the policy and tokens it follows on disk,
//! the audit log, the rate buckets, the last-used times, and the upstream.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use crate::decide::auth::{Refused, Who};
use crate::decide::ctx::Ctx;
use crate::decide::mine_slot::MineSlot;
use crate::decide::policy::Policy;
use crate::decide::rate::Buckets;
use crate::http::upstream::Upstream;
use crate::keys::reload::{Refresh, Watched};
use crate::keys::tokens::TokenFile;
use crate::record::audit::{AuditLog, Event, Synced};
use crate::record::held::Held;
use crate::record::last_used::LastUsed;
use crate::state::StateDir;
use mpt_base::{log_debug, log_warn};

pub struct Shared {
    pub dir: StateDir,
    pub upstream: Upstream,
    policy: Mutex<Watched<Policy>>,
    tokens: Mutex<Watched<TokenFile>>,
    /// When `tokens.json` was last read again for an id it did not have (at most once a
    /// `REREAD_EVERY`: unknown ids never make a read each).
    reread: Mutex<Option<std::time::Instant>>,
    audit: Mutex<AuditLog>,
    /// Refusals without a good token, gathered per peer.
    pub refusals: crate::record::refusals::Refusals,
    /// How long, and how much, of the audit is kept.
    retention: crate::record::audit::prune::Retention,
    /// The free-space floor, and the free space last seen on the state folder's disk.
    free_floor: u64,
    free: std::sync::atomic::AtomicU64,
    held: Arc<Held>,
    synced: Synced,
    rate: Mutex<Buckets>,
    /// `POST /join` attempts, per source address.
    join_rate: Mutex<Buckets>,
    last_used: Mutex<LastUsed>,
    /// One mine at a time across the gateway.
    pub mine: MineSlot,
    /// Where a scoped mine's `~` points (`GatewayKnobs::mine_home`).
    pub mine_home: Option<std::path::PathBuf>,
    /// The upstream SSE stream (one, unfiltered), fanned out to every subscribed device.
    pub hubs: crate::http::fanout::Hubs,
}

/// How often an id `tokens.json` does not have may make it be read again regardless of its
/// modification time.
const REREAD_EVERY: std::time::Duration = std::time::Duration::from_secs(1);

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
        knobs: &mpt_base::config::gateway::GatewayKnobs,
    ) -> Shared {
        let last_used = LastUsed::load(&dir.last_used());
        Shared {
            dir,
            upstream,
            policy: Mutex::new(policy),
            tokens: Mutex::new(tokens),
            reread: Mutex::new(None),
            audit: Mutex::new(audit),
            refusals: Default::default(),
            retention: crate::record::audit::prune::Retention {
                keep: knobs.audit_keep,
                keep_bytes: knobs.audit_keep_bytes,
            },
            free_floor: knobs.free_floor,
            free: std::sync::atomic::AtomicU64::new(u64::MAX),
            held: Arc::default(),
            synced: Synced::default(),
            rate: Mutex::new(Buckets::default()),
            join_rate: Mutex::new(Buckets::default()),
            last_used: Mutex::new(last_used),
            mine: MineSlot::default(),
            mine_home: knobs.mine_home.clone(),
            hubs: crate::http::fanout::Hubs::default(),
        }
    }

    /// The policy as it is on disk now (the last good one if the file stopped loading).
    pub fn policy(&self) -> Arc<Policy> {
        let mut w = lock(&self.policy);
        let r = w.refresh(false);
        report("the gateway policy", r);
        w.get()
    }

    /// The token file to find token `id` in: `tokens.json` is read again when it changed, and
    /// once more when the id is not in it. Shared, not copied per request.
    pub fn tokens_for(&self, id: &str) -> Arc<TokenFile> {
        let mut w = lock(&self.tokens);
        report("tokens.json", w.refresh(false));
        if w.get().find(id).is_none() {
            let mut last = lock(&self.reread);
            if last.is_none_or(|t| t.elapsed() >= REREAD_EVERY) {
                *last = Some(std::time::Instant::now());
                report("tokens.json", w.refresh(true));
            }
        }
        w.get()
    }

    /// The device behind the request's token ([`crate::decide::auth::authenticate`], against
    /// `tokens.json` as it is on disk now).
    pub fn authenticate(&self, h: &hyper::HeaderMap, now_s: i64) -> Result<Who, Refused> {
        crate::decide::auth::authenticate(h, now_s, |id| self.tokens_for(id))
    }

    /// Why the token `token_id` would be refused now (revoked, expired, gone), if it would: what
    /// an open stream and a long poll check before they deliver more.
    pub fn token_refused(&self, token_id: &str) -> Option<crate::http::reply::Unauthorized> {
        use crate::http::reply::Unauthorized;
        use crate::keys::tokens::TokenState;
        let file = self.tokens_for(token_id);
        match file
            .find(token_id)
            .map(|e| e.state(mpt_base::time::now_unix()))
        {
            None => Some(Unauthorized::UnknownToken),
            Some(TokenState::Revoked) => Some(Unauthorized::Revoked),
            Some(TokenState::Expired) => Some(Unauthorized::Expired),
            Some(TokenState::Active | TokenState::Overlap) => None,
        }
    }

    /// What a request's stages reach besides the policy.
    pub fn ctx(&self) -> Ctx<'_> {
        Ctx {
            upstream: &self.upstream,
            held: &self.held,
            hubs: &self.hubs,
            mine: &self.mine,
            mine_home: self.mine_home.as_deref(),
        }
    }

    /// Appends an audit record; its seq.
    pub fn audit(&self, e: &Event, durable: bool) -> std::io::Result<u64> {
        mpt_base::log_trace!(
            "{} {} {} {} {} ({})",
            e.stage,
            e.device.as_deref().unwrap_or("-"),
            e.route,
            e.tool.as_deref().or(e.rpc.as_deref()).unwrap_or("-"),
            if e.allowed { "allow" } else { "deny" },
            e.rule
        );
        // Appended under the lock, after the records held so far; a write's record then made
        // durable outside it, so one fsync serves every write that arrived meanwhile.
        let appended = {
            let mut log = lock(&self.audit);
            self.append_held(&mut log);
            log.append(e)
        };
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

    /// Writes the records held so far: a connection's reply has been sent.
    /// Prunes the audit past its retention when a file was rotated away, or when `anyway`.
    pub fn prune_audit(&self, anyway: bool) {
        let mut log = lock(&self.audit);
        if !(log.take_rotated() || anyway) {
            return;
        }
        match log.prune(self.retention) {
            Ok(Some(p)) => log_debug!(
                "audit records {} to {} pruned ({} files, {} bytes), recorded",
                p.from_seq,
                p.to_seq,
                p.files,
                p.bytes
            ),
            Ok(None) => {}
            Err(e) => log_warn!("the audit could not be pruned: {e}"),
        }
    }

    /// Looks at the free space of the state folder's disk again.
    pub fn measure_free(&self) {
        if let Ok(st) = rustix::fs::statvfs(&self.dir.root) {
            let free = st.f_bavail.saturating_mul(st.f_frsize);
            self.free.store(free, std::sync::atomic::Ordering::Relaxed);
        }
    }

    /// Below the free-space floor requests without a good token are refused unrecorded
    /// (`.0`); below half of it, writes too (`.1`); reads never.
    pub fn disk_low(&self) -> (bool, bool) {
        let free = self.free.load(std::sync::atomic::Ordering::Relaxed);
        (free < self.free_floor, free < self.free_floor / 2)
    }

    /// The records of the refusal windows that ended (every window when `all`).
    pub fn flush_refusals(&self, all: bool) {
        for e in self.refusals.due(all) {
            if let Err(err) = self.audit(&e, false) {
                log_warn!("the audit record could not be written: {err}");
            }
        }
    }

    pub fn write_held(&self) {
        let mut log = lock(&self.audit);
        self.append_held(&mut log);
    }

    fn append_held(&self, log: &mut AuditLog) {
        for e in self.held.take() {
            if let Err(err) = log.append(&e) {
                log_warn!("the audit record could not be written: {err}");
            }
        }
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
            return self.audit(e, durable);
        }
        let (sh, e) = (Arc::clone(self), e.clone());
        tokio::task::spawn_blocking(move || sh.audit(&e, true))
            .await
            .unwrap_or_else(|j| Err(std::io::Error::other(j)))
    }

    /// One request from `device` against its rate; `Err(seconds)` to wait.
    /// One `POST /join` attempt from `ip`; `Err(retry_after_s)` past `rate::JOIN`.
    pub fn take_join_rate(&self, ip: std::net::IpAddr) -> Result<(), u64> {
        lock(&self.join_rate)
            .take(
                &ip.to_string(),
                Some(crate::decide::rate::JOIN),
                Instant::now(),
            )
            .map_err(crate::decide::rate::retry_after_secs)
    }

    pub fn take_rate(&self, device: &str, policy: &Policy) -> Result<(), u64> {
        let rate = policy.device(device).and_then(|d| d.rate);
        lock(&self.rate)
            .take(device, rate, Instant::now())
            .map_err(crate::decide::rate::retry_after_secs)
    }

    /// Notes a use of token `id`, written at once the first time (else by `flush_last_used`).
    pub fn touch(&self, id: &str) {
        let mut l = lock(&self.last_used);
        if l.touch(id, mpt_base::time::now_ms()) {
            let _ = l.flush(&self.dir.last_used());
        }
    }

    pub fn flush_last_used(&self) {
        if let Err(e) = lock(&self.last_used).flush(&self.dir.last_used()) {
            log_warn!("cannot write {}: {e}", self.dir.last_used().display());
        }
    }
}

impl Drop for Shared {
    /// A body relayed when the gateway stopped ends with it: its record is not lost.
    fn drop(&mut self) {
        self.write_held();
    }
}

impl crate::decide::sse::Still for Shared {
    fn stream_grant(
        &self,
        device: &str,
        token_id: &str,
    ) -> Option<Option<crate::decide::policy::StreamFilter>> {
        if self.token_refused(token_id).is_some() {
            return None;
        }
        let policy = self.policy();
        policy.device(device)?;
        Some(policy.stream_reads(device).map(|g| g.owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shared(dir: &StateDir) -> Shared {
        crate::state::prepare(dir).unwrap();
        let policy = format!(
            r#"{{"schema": "{}", "devices": {{}}}}"#,
            mpt_base::schema::GATEWAY_POLICY
        );
        std::fs::write(dir.policy(), policy).unwrap();
        Shared::new(
            dir.clone(),
            Upstream::new("http://127.0.0.1:9", None, None).unwrap(),
            Watched::open(&dir.policy(), Policy::load).unwrap(),
            Watched::open(&dir.tokens(), TokenFile::load).unwrap(),
            AuditLog::open(dir, 1 << 20).unwrap().0,
            &mpt_base::config::gateway::GatewayKnobs::from_env(&mpt_base::config::Env::from_pairs(
                Vec::<(String, String)>::new(),
            ))
            .unwrap(),
        )
    }

    fn routes(dir: &StateDir) -> Vec<String> {
        crate::record::audit::read::records(dir)
            .unwrap()
            .into_iter()
            .map(|(_, v)| v["route"].as_str().unwrap().to_string())
            .collect()
    }

    fn event(route: &str) -> Event {
        Event {
            stage: Event::RESPONSE,
            route: route.into(),
            ..Event::default()
        }
    }

    #[test]
    fn a_held_record_is_written_before_the_next_one_and_never_lost() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = StateDir {
            root: tmp.path().join("gw"),
        };
        let sh = shared(&dir);
        sh.ctx().held.hold(event("/a"));
        assert!(routes(&dir).is_empty(), "held while its reply is sent");
        sh.audit(&event("/b"), false).unwrap();
        assert_eq!(routes(&dir), ["/a", "/b"], "before the next record");
        sh.ctx().held.hold(event("/c"));
        sh.write_held();
        assert_eq!(routes(&dir), ["/a", "/b", "/c"], "once the reply is sent");
        sh.ctx().held.hold(event("/d"));
        drop(sh);
        assert_eq!(
            routes(&dir),
            ["/a", "/b", "/c", "/d"],
            "when the gateway stops"
        );
        assert!(
            crate::record::audit::read::verify(&dir)
                .unwrap()
                .bad
                .is_none()
        );
    }
}
