//! Where a mailbox answer comes from: the primary's log with this device's own events not yet on
//! it; with the primary unreachable, the local palace's copy (the edge pulls it), flagged stale.

use std::path::PathBuf;

use serde::Serialize;
use serde_json::{Value, json};

use super::{Derivation, Me, StdFs};
use mpt_base::config::{Config, Env};
use mpt_base::error::{MptError, Result};
use mpt_base::{log_debug, log_warn};
use mpt_coord::local::{self, LocalEvents};
use mpt_coord::pages;
use mpt_coord::puller::{self, PullPaths};
use mpt_coord::union::{self, Order};
use mpt_mcp::McpClient;
use mpt_outbox::{self as outbox, Outbox};
use mpt_palace::PalacePaths;

/// This device's side: its palace's log, the edge's pull record and the outbox's id map.
pub struct LocalLog {
    /// `None`: no palace could be resolved (no HOME): the primary alone.
    palace: Option<PalacePaths>,
    record: Option<PathBuf>,
    outbox: Option<(PathBuf, outbox::OpenOptions)>,
}

impl LocalLog {
    pub fn new(env: &Env, config: &Config, paths: Option<PalacePaths>) -> LocalLog {
        let outbox =
            mpt_palace::edge_outbox(env, config, paths.as_ref().map(|p| p.palace.as_path()))
                .ok()
                .filter(|p| p.exists())
                .zip(outbox::open_options(env).ok());
        LocalLog {
            record: paths
                .as_ref()
                .map(|p| PullPaths::new(&p.home, &p.palace).record),
            palace: paths,
            outbox,
        }
    }

    /// The palace this device's log lives in, when one could be resolved.
    pub fn palace(&self) -> Option<&PalacePaths> {
        self.palace.as_ref()
    }

    /// The asks to `me` and the events by `me` in the local log (`None`: the palace has none).
    fn events(&self, me: &Me) -> Result<Option<LocalEvents>> {
        match &self.palace {
            Some(p) => local::read(&p.logstream, me),
            None => Ok(None),
        }
    }

    /// `primary`'s events plus each local event that is not one of them (each event once).
    fn merged(&self, primary: Vec<Value>, local: Vec<Value>) -> Vec<Value> {
        let replica = self
            .palace
            .as_ref()
            .and_then(|p| mpt_palace::files::replica_id(&p.palace));
        let (pulled, own) = union::split_local(local, replica.as_deref());
        let map = self
            .outbox
            .as_ref()
            .and_then(|(p, o)| Outbox::open(p, *o).ok());
        let landed = |id: &str| map.as_ref()?.primary_id(id).ok().flatten();
        let queued = map.as_ref().map(queued_acks).unwrap_or_default();
        let all = primary.into_iter().chain(pulled).collect();
        let mut out = union::merge(all, own, &landed, Order::Asc, usize::MAX).events;
        out.extend(queued);
        out
    }
}

/// The acks waiting in the outbox (`mpt mailbox ack` queued while the primary was away, or an
/// edge's ack of an event its log lacks) as the events they will become: each answers its ask
/// now. Its hlc is its queueing time, so it is later than what it answers.
fn queued_acks(store: &Outbox) -> Vec<Value> {
    use mpt_outbox::OpState;
    let ops = store
        .list(&[OpState::Queued, OpState::Leased], usize::MAX, false)
        .unwrap_or_default();
    ops.into_iter()
        .filter(|o| o.tool_name == "mempalace_event_ack")
        .filter_map(|o| {
            let p = &o.payload;
            Some(json!({
                "id": format!("queued:{}", o.op_id),
                "type": "event.ack",
                "from_agent": p.get("from_agent")?.as_str()?,
                "status": p.get("status").and_then(Value::as_str),
                "body": p.get("body").and_then(Value::as_str).unwrap_or(""),
                "hlc": format!("{:013}-ffffff-outbox", o.created_at.max(0)),
                "metadata": {"ack_of": p.get("event_id")?.as_str()?, "mpt_queued_op": o.op_id},
            }))
        })
        .collect()
}

/// Why an answer is not the primary's own, and as of when.
#[derive(Debug, Clone)]
pub struct Stale {
    /// Why the primary was not read.
    pub why: String,
    /// When the last pull that succeeded started (ms since the epoch).
    pub last_pull_ms: Option<i64>,
}

/// Where a mailbox answer came from, in its `--json` document.
#[derive(Debug, Clone, Serialize)]
pub struct Source {
    pub stale: bool,
    pub rows_skipped: usize,
    /// `primary` or `local`.
    pub source: &'static str,
    #[serde(flatten)]
    pub offline: Option<Offline>,
}

/// Answered from the local log: why, and the last pull that succeeded.
#[derive(Debug, Clone, Serialize)]
pub struct Offline {
    pub unreachable: String,
    pub last_pull: Option<String>,
    pub last_pull_age_secs: Option<i64>,
}

pub struct View {
    pub derivation: Derivation,
    /// `Some`: answered from the local log alone.
    pub stale: Option<Stale>,
    /// Rows of the local log that could not be read, skipped (the answer is the rest).
    pub rows_skipped: usize,
    now_unix: i64,
}

impl View {
    /// The mailbox of `me` now: the primary's log (with this device's unreplicated events); when
    /// the primary cannot be reached, the local log. Exit 7 only when there is no local log.
    pub async fn read(
        client: &McpClient,
        local: &LocalLog,
        me: &Me,
        now_unix: i64,
    ) -> Result<View> {
        let remote = async {
            client.connect().await?;
            pages::fetch(client, me).await
        }
        .await;
        let rows_skipped;
        let (events, stale) = match remote {
            Ok(theirs) => {
                let mine = local.events(me).unwrap_or_else(|e| {
                    log_warn!(
                        "mailbox: this device's copy of the log is not readable ({}): its events not yet on the primary are missing from this answer",
                        e.message
                    );
                    None
                });
                let mine = mine.unwrap_or_default();
                rows_skipped = mine.skipped;
                (local.merged(theirs, mine.events), None)
            }
            Err(e) if e.is_transient() => {
                let why = e.to_string();
                let Some(mine) = local.events(me)? else {
                    return Err(MptError::from(e).with_hint(
                        "this device has no copy of the coordination log yet: `mpt edge` (an agent session) keeps one while the primary answers; try again when it is reachable",
                    ));
                };
                let last_pull_ms = local
                    .record
                    .as_deref()
                    .and_then(puller::read_record)
                    .and_then(|r| r.last_success_ms);
                rows_skipped = mine.skipped;
                (
                    local.merged(Vec::new(), mine.events),
                    Some(Stale { why, last_pull_ms }),
                )
            }
            Err(e) => return Err(e.into()),
        };
        log_debug!("mailbox: {} events read for {}", events.len(), me.shown);
        if rows_skipped > 0 {
            log_warn!(
                "mailbox: {rows_skipped} row(s) of this device's copy of the log could not be read (a field that is not text) and were skipped; the answer is the rest"
            );
        }
        Ok(View {
            derivation: super::derive(&events, me, now_unix, &StdFs),
            stale,
            rows_skipped,
            now_unix,
        })
    }

    /// Seconds since the last pull, when one ever succeeded.
    pub fn last_pull_age(&self) -> Option<i64> {
        let ms = self.stale.as_ref()?.last_pull_ms?;
        Some((self.now_unix - ms.div_euclid(1000)).max(0))
    }

    /// `stale`, `source`, and offline the last pull and why.
    pub fn source(&self) -> Source {
        Source {
            stale: self.stale.is_some(),
            rows_skipped: self.rows_skipped,
            source: if self.stale.is_some() {
                "local"
            } else {
                "primary"
            },
            offline: self.stale.as_ref().map(|s| Offline {
                unreachable: s.why.clone(),
                last_pull: s.last_pull_ms.map(outbox::util::rfc3339),
                last_pull_age_secs: self.last_pull_age(),
            }),
        }
    }

    /// The line a person reads first when the answer is the local log's.
    pub fn stale_line(&self) -> Option<String> {
        let s = self.stale.as_ref()?;
        let when = match self.last_pull_age() {
            Some(secs) => format!(
                "as of the last pull from the primary, {} ago",
                mpt_base::time::human_age(secs * 1000)
            ),
            None => "never pulled from the primary: asks sent to you are missing".to_string(),
        };
        Some(format!(
            "STALE: the primary is unreachable ({}); from this device's copy of the log, {when}",
            s.why
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ack_in_the_local_copy_answers_the_ask_it_acks() {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("logstream.sqlite3");
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute_batch(
            "CREATE TABLE events (id TEXT PRIMARY KEY, type TEXT, stream TEXT, room TEXT, topic TEXT,
               from_agent TEXT, to_agent TEXT, correlation_id TEXT, branch TEXT, base_commit TEXT,
               status TEXT, body TEXT, created_at TEXT, metadata_json TEXT, origin_replica TEXT,
               origin_seq INTEGER, hlc TEXT);
             INSERT INTO events VALUES ('e1','task.request','s','r',NULL,'oc@b','pi@a',NULL,NULL,NULL,'open','do it','2026-01-01T00:00:00Z','{}','rep_p',1,'1-p');
             INSERT INTO events VALUES ('e3','event.ack','s','r',NULL,'pi@a','oc@b','e1',NULL,NULL,'applied','','2026-01-01T00:00:02Z','{\"ack_of\":\"e1\"}','rep_a',1,'3-a');",
        )
        .unwrap();
        drop(c);
        let me = Me::one("pi@a");
        let got = mpt_coord::local::read(&path, &me).unwrap().unwrap().events;
        let d = super::super::derive(&got, &me, 0, &StdFs);
        assert!(d.owed.is_empty(), "the local ack answers the ask: {d:?}");
    }

    #[test]
    fn the_source_fields_keep_their_names() {
        let mut view = View {
            derivation: super::super::derive(&[], &Me::one("me"), 0, &StdFs),
            stale: None,
            rows_skipped: 0,
            now_unix: 1_000,
        };
        let doc = serde_json::to_value(view.source()).unwrap();
        assert_eq!(
            mpt_base::schema::field_names(&doc),
            ["stale", "rows_skipped", "source"]
        );
        view.stale = Some(Stale {
            why: "refused".into(),
            last_pull_ms: Some(1_000),
        });
        let doc = serde_json::to_value(view.source()).unwrap();
        assert_eq!(
            mpt_base::schema::field_names(&doc),
            [
                "stale",
                "rows_skipped",
                "source",
                "unreachable",
                "last_pull",
                "last_pull_age_secs"
            ]
        );
    }

    #[test]
    fn the_stale_line_prints_ages_like_every_other_command() {
        let view = View {
            derivation: super::super::derive(&[], &Me::one("me"), 0, &StdFs),
            stale: Some(Stale {
                why: "refused".into(),
                last_pull_ms: Some(1_000_000),
            }),
            rows_skipped: 0,
            now_unix: 1_000 + 90,
        };
        let line = view.stale_line().unwrap();
        assert!(
            line.ends_with("last pull from the primary, 1m ago"),
            "{line}"
        );
    }
}
