//! Feeding under the edge: the staged transcripts stay for the local palace, and are also shipped
//! to the primary's inbox with its mine queued in the outbox; a failed ship is kept as pending.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::remote::{RemoteInbox, push};
use super::report::PrepareReport;
use super::state::save_json;
use mpt_base::error::MptError;
use mpt_outbox::{NewOp, OpenOptions, Origin, Outbox};

/// Where an edge device's transcripts go besides its own palace.
#[derive(Debug, Clone)]
pub struct FleetFeed {
    /// The primary's inbox over ssh.
    pub inbox: Option<RemoteInbox>,
    /// Else the device's inbox through the gateway (`PUT /inbox/…`); with neither, no way to the
    /// primary (`why_not` says why).
    pub gateway: Option<super::upload::GatewayInbox>,
    pub why_not: Option<String>,
    /// The ship's state (`ship: pending` and why), beside the feed's state file.
    pub ship_file: PathBuf,
    pub outbox: PathBuf,
    pub outbox_opts: OpenOptions,
    pub origin: Origin,
    pub wing: String,
    /// `<harness>@<device>` stamped on the primary's drawers.
    pub agent: Option<String>,
}

/// The ship's outcome this run.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "ship", rename_all = "snake_case")]
pub enum Ship {
    /// The staged folder is in the primary's inbox.
    Shipped {
        destination: String,
        elapsed_ms: f64,
    },
    /// The ship failed (offline): recorded, retried by the next trigger.
    Pending { error: String, since: String },
    /// There is no way to the primary: only the local palace is fed.
    NoWay { why: String },
    /// Nothing is staged: nothing to ship.
    Nothing,
}

/// The primary's mine, queued in the outbox.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Queued {
    pub op_id: String,
    pub source: String,
    /// An active mine of the same inbox was already queued (that one runs).
    pub deduped: bool,
}

/// What an edge device's run did for the fleet.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Fed {
    #[serde(flatten)]
    pub ship: Ship,
    /// Staged transcripts sent (or to send) to the primary.
    pub files: usize,
    pub queued: Option<Queued>,
    /// Nothing new since the last ship whose mine was queued: no mine queued this time.
    pub up_to_date: bool,
    /// The queue could not be written (the ship stays pending).
    pub queue_error: Option<String>,
}

/// The ship's record between runs.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
struct ShipState {
    /// The last destination whose ship and queued mine both succeeded.
    done_to: Option<String>,
    /// A ship (or its queueing) that did not finish: the next trigger redoes it.
    pending: bool,
    /// The last ship found a mine of the inbox still open (it may be running past the files just
    /// shipped): the next trigger queues another, harmless if they were filed.
    requeue: bool,
    error: Option<String>,
    since: Option<String>,
}

impl ShipState {
    fn load(path: &Path) -> ShipState {
        std::fs::read(path)
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default()
    }

    fn save(&self, path: &Path) {
        if let Ok(bytes) = serde_json::to_vec(self)
            && let Err(e) = save_json(path, &bytes)
        {
            mpt_base::log_warn!(
                "feed: cannot record the ship's state in {}: {e}",
                path.display()
            );
        }
    }
}

/// The ship file beside a feed state file: `state.json` → `state.ship.json`.
pub fn ship_file(state_file: &Path) -> PathBuf {
    let stem = state_file
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    state_file.with_file_name(format!("{stem}.ship.json"))
}

/// Whether the last run left the ship pending (doctor, status).
pub fn pending(state_file: &Path) -> Option<String> {
    let s = ShipState::load(&ship_file(state_file));
    s.pending.then(|| {
        s.error
            .unwrap_or_else(|| "the last ship did not finish".into())
    })
}

/// Ships the staged folder and queues the primary's mine of it, after a successful ship only,
/// and only when something changed since the last one (or it was pending): a rerun queues nothing.
/// Never an error: a failure is the `Pending` outcome, recorded for the next trigger.
pub fn feed(
    f: &FleetFeed,
    report: &PrepareReport,
    deadline: Option<Instant>,
    timeout: Option<Duration>,
) -> Fed {
    let files = report.exported + report.unchanged;
    let mut fed = Fed {
        ship: Ship::Nothing,
        files,
        queued: None,
        up_to_date: false,
        queue_error: None,
    };
    if f.inbox.is_none() && f.gateway.is_none() {
        fed.ship = Ship::NoWay {
            why: f.why_not.clone().unwrap_or_default(),
        };
        return fed;
    }
    if !report.has_staged() {
        return fed;
    }
    let mut state = ShipState::load(&f.ship_file);
    // The road: rsync over ssh when a target is set, else the gateway's upload. Each gives where
    // the files are, how long it took, and the folder the primary's mine names.
    let shipped = match (&f.inbox, &f.gateway) {
        (Some(inbox), _) => push(&report.stage_dir, inbox, deadline)
            .map(|p| (p.destination, p.elapsed, inbox.path.clone()))
            .map_err(|e| super::remote::push_error(e, inbox, timeout)),
        (None, Some(gw)) => super::upload::upload(&report.stage_dir, gw, deadline)
            .map(|u| (gw.describe(), u.elapsed, u.destination)),
        // Said above (`NoWay`).
        (None, None) => return fed,
    };
    let (destination, elapsed, source) = match shipped {
        Ok(s) => s,
        Err(err) => {
            let since = state
                .since
                .clone()
                .filter(|_| state.pending)
                .unwrap_or_else(|| mpt_base::time::rfc3339(mpt_base::time::now_ms()));
            state.pending = true;
            state.error = Some(err.message.clone());
            state.since = Some(since.clone());
            state.save(&f.ship_file);
            fed.ship = Ship::Pending {
                error: err.message,
                since,
            };
            return fed;
        }
    };
    fed.ship = Ship::Shipped {
        destination: destination.clone(),
        elapsed_ms: elapsed.as_secs_f64() * 1e3,
    };
    let redo =
        state.pending || state.requeue || state.done_to.as_deref() != Some(destination.as_str());
    if report.exported == 0 && !redo {
        fed.up_to_date = true;
        return fed;
    }
    // Through the gateway, the device's inbox is where the gateway put the files: the prefix the
    // policy gives it on the primary host (the harness's folder's parent), not an ssh path.
    let inbox = match (&f.inbox, Path::new(&source).parent()) {
        (None, Some(prefix)) => Some(prefix.display().to_string()),
        _ => f.origin.inbox.clone(),
    };
    match queue_mine(f, &source, inbox) {
        Ok(q) => {
            state = ShipState {
                done_to: Some(destination),
                requeue: q.deduped,
                ..ShipState::default()
            };
            fed.queued = Some(q);
        }
        Err(e) => {
            state.pending = true;
            state.error = Some(e.message.clone());
            state.since = Some(mpt_base::time::rfc3339(mpt_base::time::now_ms()));
            fed.queue_error = Some(e.message);
        }
    }
    state.save(&f.ship_file);
    fed
}

/// One `mempalace_mine {source: <inbox>, mode: convos, wing[, agent]}` into the outbox, keyed by
/// the inbox: while one is queued, another trigger's is the same op.
fn queue_mine(f: &FleetFeed, source: &str, inbox: Option<String>) -> Result<Queued, MptError> {
    let mut payload = json!({"source": source, "mode": "convos", "wing": f.wing});
    if let Some(agent) = &f.agent {
        payload["agent"] = json!(agent);
    }
    let key = format!("feed-mine:{source}");
    let mut store = Outbox::open(&f.outbox, f.outbox_opts)?;
    let origin = Origin {
        inbox,
        ..f.origin.clone()
    };
    let e = store.enqueue(
        &origin,
        NewOp {
            tool: "mempalace_mine",
            payload: &payload,
            dedupe_key: Some(&key),
            local_reply: None,
            maybe_applied: false,
        },
    )?;
    Ok(Queued {
        op_id: e.op_id,
        source: source.to_string(),
        deduped: e.deduped,
    })
}

/// `line`, and the ship's pending state when the last one did not finish.
fn with_pending(mut line: String, env: &mpt_base::config::Env) -> String {
    if let Ok(feed_home) = super::state::feed_home(env) {
        let staged = feed_home.join("staged");
        let (state_file, _) = super::state::state_and_lock(&feed_home, &staged, true);
        if let Some(why) = pending(&state_file) {
            line.push_str(&format!(
                "; ship: pending ({why}), retried by the next trigger"
            ));
        }
    }
    line
}

/// Where this device's conversations end up under its opt-in state (doctor's `feeder` evidence;
/// docs/feed.md's table says the same): `local`, `primary`, `both` or `nowhere`, and how.
pub fn destination(config: &mpt_base::config::Config, env: &mpt_base::config::Env) -> String {
    let knobs = &config.feed;
    if !knobs.enabled {
        return "feeder's conversations end up: nowhere (MEMPALACE_FEED=0)".into();
    }
    let inbox = knobs.ssh_target.as_ref().map(|t| {
        let path = knobs.remote_path_or_default(config.device.as_deref());
        format!("{t}:{path}")
    });
    let line = match (&config.remote, config.edge_opt_in, inbox) {
        (None, _, _) => "local (this device's palace, mined by the bridge)".to_string(),
        (Some(_), false, Some(i)) => {
            format!("primary (shipped to {i}, mined there by the bridge's remote mode)")
        }
        (Some(_), false, None) => "nowhere: a shared primary and no MEMPALACE_PI_SSH_TARGET to ship to it (set it, or opt into the edge to feed this device's palace)".to_string(),
        (Some(_), true, None) => match super::upload::gateway_road(config, "pi") {
            Some(g) => with_pending(
                format!(
                    "both (this device's palace through the edge, and the primary: uploaded through the gateway at {} into this device's inbox there, its mine queued in the outbox)",
                    g.origin.as_str().trim_end_matches('/')
                ),
                env,
            ),
            None => "local (this device's palace through the edge); no MEMPALACE_PI_SSH_TARGET and no gateway in front of the primary, so no way to it".to_string(),
        },
        (Some(_), true, Some(i)) => with_pending(
            format!(
                "both (this device's palace through the edge, and the primary: shipped to {i}, its mine queued in the outbox)"
            ),
            env,
        ),
    };
    format!("feeder's conversations end up: {line}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ship_state_lives_beside_the_feed_state_and_a_pending_ship_is_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state-0123.json");
        assert_eq!(ship_file(&state), dir.path().join("state-0123.ship.json"));
        assert_eq!(pending(&state), None, "no file: nothing pending");
        let s = ShipState {
            pending: true,
            error: Some("rsync to palace:/in/ failed (exit 255)".into()),
            ..ShipState::default()
        };
        s.save(&ship_file(&state));
        assert_eq!(
            pending(&state).as_deref(),
            Some("rsync to palace:/in/ failed (exit 255)")
        );
        std::fs::write(ship_file(&state), b"{\"done_to\": \"p:/in/\"}").unwrap();
        assert_eq!(
            pending(&state),
            None,
            "an older file without the newer fields reads"
        );
    }
}
