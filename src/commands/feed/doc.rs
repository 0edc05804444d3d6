//! `mpt.feed.prepare/v1`, the document `mpt feed prepare|mine --json` prints: the engine's
//! counts, then where things are, the remote inbox and what an edge device's run did for the fleet.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;
use serde_json::Value;

use super::Meta;
use mpt_base::error::Result;
use mpt_feed::fleet::Fed;
use mpt_feed::job::FeedRun;
use mpt_feed::{Harness, PrepareReport, REPORT_SCHEMA};

/// The `mpt.feed.prepare/v1` document: the engine's counts plus where things are.
pub(super) fn prepare_doc(meta: &Meta, run: Option<&FeedRun>, note: Option<&str>) -> Result<Value> {
    let counts = match run {
        Some(r) => Counts::Ran(&r.report),
        None => Counts::Inactive(NoRun {
            schema: REPORT_SCHEMA,
            reason: &meta.reason,
            stage_dir: &meta.stage_dir,
            sessions_seen: 0,
            exported: 0,
            unchanged: 0,
            skipped: BTreeMap::new(),
            skipped_total: 0,
            bytes_read: 0,
            bytes_written: 0,
        }),
    };
    let doc = PrepareDoc {
        counts,
        harness: meta.harness,
        active: run.is_some(),
        mine_source: run.and_then(|r| r.mine_source.as_deref()),
        wing: &meta.wing,
        sessions_dir: &meta.sessions_dir,
        state_file: &meta.state_file,
        lock_file: &meta.lock_file,
        remote: meta.inbox.as_ref().map(|i| RemoteDoc {
            target: &i.target,
            path: &i.path,
            destination: i.destination(),
            ssh_config: i.ssh_config.as_deref(),
            elapsed_ms: run
                .and_then(|r| r.pushed.as_ref())
                .map(|p| p.elapsed.as_secs_f64() * 1e3),
        }),
        fleet: run.and_then(|r| {
            r.fed.as_ref().map(|fed| FleetDoc {
                local: LocalDoc {
                    mine_source: r.mine_source.as_deref(),
                    staged: fed.files,
                    exported: r.report.exported,
                    mined_by: "the bridge's mine (or `mpt feed mine`) through the edge, into this device's palace",
                },
                primary: fed,
            })
        }),
        elapsed_ms: run.map(|r| r.elapsed.as_secs_f64() * 1e3),
        note: note.or_else(|| run.and_then(|r| r.note.as_deref())),
    };
    Ok(mpt_base::schema::to_document(&doc)?)
}

/// `mpt.feed.prepare/v1`: the engine's counts, then where things are, the remote inbox and what
/// an edge device's run did for the fleet.
#[derive(Serialize)]
struct PrepareDoc<'a> {
    #[serde(flatten)]
    counts: Counts<'a>,
    harness: Harness,
    active: bool,
    mine_source: Option<&'a str>,
    wing: &'a str,
    sessions_dir: &'a Path,
    state_file: &'a Path,
    lock_file: &'a Path,
    remote: Option<RemoteDoc<'a>>,
    fleet: Option<FleetDoc<'a>>,
    elapsed_ms: Option<f64>,
    note: Option<&'a str>,
}

/// The engine's report, or (nothing ran) its counts at zero without the engine's own extras.
#[derive(Serialize)]
#[serde(untagged)]
enum Counts<'a> {
    Ran(&'a PrepareReport),
    Inactive(NoRun<'a>),
}

#[derive(Serialize)]
struct NoRun<'a> {
    schema: &'static str,
    reason: &'a str,
    stage_dir: &'a Path,
    sessions_seen: usize,
    exported: usize,
    unchanged: usize,
    skipped: BTreeMap<String, usize>,
    skipped_total: usize,
    bytes_read: u64,
    bytes_written: u64,
}

/// The primary's inbox over ssh, and how long the push took.
#[derive(Serialize)]
struct RemoteDoc<'a> {
    target: &'a str,
    path: &'a str,
    destination: String,
    ssh_config: Option<&'a Path>,
    elapsed_ms: Option<f64>,
}

/// Under the edge: the local palace's share, then the primary's (the ship and its queued mine).
#[derive(Serialize)]
struct FleetDoc<'a> {
    local: LocalDoc<'a>,
    primary: &'a Fed,
}

#[derive(Serialize)]
struct LocalDoc<'a> {
    mine_source: Option<&'a str>,
    staged: usize,
    exported: usize,
    mined_by: &'static str,
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use mpt_feed::fleet::{self, Ship};
    use mpt_feed::remote::RemoteInbox;

    fn meta(inbox: Option<RemoteInbox>) -> Meta {
        Meta {
            harness: Harness::Pi,
            reason: "stop".into(),
            wing: "wing_pi".into(),
            sessions_dir: "/h/.pi/agent/sessions".into(),
            stage_dir: "/h/.mpt/stage".into(),
            state_file: "/h/.mpt/state.json".into(),
            lock_file: "/h/.mpt/feed.lock".into(),
            inbox,
        }
    }

    /// Golden: `mpt.feed.prepare/v1`'s field names, in order (scripts read them): the engine's
    /// counts, then where things are, the remote inbox and the fleet's ship; a run that did
    /// nothing has the counts without the engine's own extras.
    #[test]
    fn the_feed_document_keeps_its_field_names() {
        const WHERE: &[&str] = &[
            "harness",
            "active",
            "mine_source",
            "wing",
            "sessions_dir",
            "state_file",
            "lock_file",
            "remote",
        ];
        let inactive = prepare_doc(&meta(None), None, Some("no sessions")).unwrap();
        let mut names: Vec<&str> = vec![
            "schema",
            "reason",
            "stage_dir",
            "sessions_seen",
            "exported",
            "unchanged",
            "skipped",
            "skipped_total",
            "bytes_read",
            "bytes_written",
        ];
        names.extend(WHERE);
        names.extend(["fleet", "elapsed_ms", "note"]);
        assert_eq!(mpt_base::schema::field_names(&inactive), names);

        let dir = tempfile::tempdir().unwrap();
        let lock = mpt_base::lock::try_acquire(&dir.path().join("l"), "t")
            .unwrap()
            .unwrap();
        let mut report = mpt_feed::PrepareReport {
            schema: REPORT_SCHEMA,
            source_skipped: Some("locked".into()),
            ..Default::default()
        };
        report
            .skipped
            .insert(mpt_feed::SkipReason::TooFewUserTurns, 1);
        let run = FeedRun {
            report,
            mine_source: Some("/stage".into()),
            pushed: Some(mpt_feed::remote::Pushed {
                destination: "hub:/in/".into(),
                elapsed: Duration::from_millis(5),
            }),
            fed: Some(fleet::Fed {
                ship: Ship::Shipped {
                    destination: "hub:/in/".into(),
                    elapsed_ms: 5.0,
                },
                files: 2,
                queued: Some(fleet::Queued {
                    op_id: "0123".into(),
                    source: "/in".into(),
                    deduped: false,
                }),
                up_to_date: false,
                queue_error: None,
            }),
            note: None,
            elapsed: Duration::from_millis(9),
            lock,
        };
        let inbox = RemoteInbox {
            target: "hub".into(),
            path: "/in".into(),
            ssh_config: None,
        };
        let ran = prepare_doc(&meta(Some(inbox)), Some(&run), None).unwrap();
        let mut names: Vec<&str> = vec![
            "schema",
            "reason",
            "stage_dir",
            "sessions_seen",
            "exported",
            "unchanged",
            "skipped",
            "skipped.too_few_user_turns",
            "skipped_total",
            "bytes_read",
            "bytes_written",
            "decided_from_state",
            "stale_temps_removed",
            "state_reset",
            "lines_skipped",
            "source_skipped",
            "warnings",
        ];
        names.extend(WHERE);
        names.extend([
            "remote.target",
            "remote.path",
            "remote.destination",
            "remote.ssh_config",
            "remote.elapsed_ms",
            "fleet",
            "fleet.local",
            "fleet.local.mine_source",
            "fleet.local.staged",
            "fleet.local.exported",
            "fleet.local.mined_by",
            "fleet.primary",
            "fleet.primary.ship",
            "fleet.primary.destination",
            "fleet.primary.elapsed_ms",
            "fleet.primary.files",
            "fleet.primary.queued",
            "fleet.primary.queued.op_id",
            "fleet.primary.queued.source",
            "fleet.primary.queued.deduped",
            "fleet.primary.up_to_date",
            "fleet.primary.queue_error",
            "elapsed_ms",
            "note",
        ]);
        assert_eq!(mpt_base::schema::field_names(&ran), names);
    }
}
