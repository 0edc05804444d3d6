//! One pull at a time under the pull lock, its outcome kept in the pull record beside the owner's
//! lock (read by `mpt mailbox` and `mpt edge status`); the edge's owner schedules the rounds.

use std::path::Path;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::pull::{PullError, PullSpec, Pulled, pull_once};
use mpt_base::log_warn;
use mpt_base::time::now_ms;

/// `schema` of the pull record.
pub const RECORD_SCHEMA: &str = mpt_base::schema::EDGE_PULL;

/// What the owner last knew of its pulls, beside its lock (`<key>.pull.json`); read by
/// `mpt mailbox` to say how old an offline answer is.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PullRecord {
    pub schema: String,
    /// Where the pulls went: the base of the primary's `/sync/*` routes.
    pub primary: String,
    /// When the last pull that succeeded started (ms since the epoch).
    pub last_success_ms: Option<i64>,
    pub last_attempt_ms: Option<i64>,
    /// Why the last attempt failed (`None` after a success).
    pub last_error: Option<String>,
    /// When the first of the failures since the last success started (`None` after a success).
    #[serde(default)]
    pub failing_since_ms: Option<i64>,
    /// The last successful round.
    pub last: Option<Pulled>,
}

impl PullRecord {
    /// The `pull` object of `mpt edge status --json` (and doctor's evidence): when it last
    /// worked, why it fails and since when, and the events of the last round that were skipped.
    pub fn to_status(&self) -> PullStatus<'_> {
        let when = |ms: Option<i64>| ms.map(mpt_base::time::rfc3339);
        PullStatus {
            primary: &self.primary,
            last_success: when(self.last_success_ms),
            last_attempt: when(self.last_attempt_ms),
            last_error: self.last_error.as_deref(),
            failing_since: when(self.failing_since_ms),
            rows_skipped: self.last.as_ref().map_or(0, |l| l.skipped_events),
        }
    }
}

/// The pull record as `mpt edge status` shows it: times in RFC 3339.
#[derive(Debug, Clone, Serialize)]
pub struct PullStatus<'a> {
    pub primary: &'a str,
    pub last_success: Option<String>,
    pub last_attempt: Option<String>,
    pub last_error: Option<&'a str>,
    pub failing_since: Option<String>,
    pub rows_skipped: u64,
}

pub use mpt_base::paths::edge::PullPaths;

/// The record, when a pull was ever attempted for this palace.
pub fn read_record(path: &Path) -> Option<PullRecord> {
    serde_json::from_slice(&std::fs::read(path).ok()?).ok()
}

/// Writes the record, scrubbed as the owner's log is (a primary may echo the token back: in an
/// error, as its replica id) and private (0600) as its siblings are.
fn write_record(path: &Path, rec: &PullRecord) {
    let written = serde_json::to_value(rec)
        .map(|mut doc| {
            mpt_base::secrets::scrub_json(&mut doc);
            doc
        })
        .and_then(|doc| serde_json::to_vec_pretty(&doc))
        .map_err(std::io::Error::other)
        .and_then(|bytes| mpt_base::private_fs::write_private(path, &bytes));
    if let Err(e) = written {
        log_warn!("the edge cannot record its pull in {}: {e}", path.display());
    }
}

pub struct Puller {
    pub spec: PullSpec,
    pub paths: PullPaths,
    /// `MPT_EDGE_PULL_MS`.
    pub interval: Duration,
}

/// The record of this palace's pulls from `base_url` (a fresh one for another primary).
pub fn load_record(paths: &PullPaths, base_url: &str) -> PullRecord {
    read_record(&paths.record)
        .filter(|r| r.primary == base_url)
        .unwrap_or_else(|| PullRecord {
            schema: RECORD_SCHEMA.into(),
            primary: base_url.to_string(),
            ..Default::default()
        })
}

/// One pull under the pull lock, its outcome written to the record; `None` when another pull
/// (the owner's, another `mpt mailbox`) holds the lock.
pub async fn round(
    spec: &PullSpec,
    paths: &PullPaths,
    rec: &mut PullRecord,
) -> Option<Result<Pulled, PullError>> {
    let held = mpt_base::private_fs::take_pid_lock(&paths.lock, "edge pull")
        .ok()
        .flatten()?;
    let started = now_ms();
    rec.last_attempt_ms = Some(started);
    let r = pull_once(spec, Some(&held)).await;
    match &r {
        Ok(pulled) => {
            rec.last_success_ms = Some(started);
            rec.last_error = None;
            rec.failing_since_ms = None;
            rec.last = Some(pulled.clone());
        }
        Err(e) => {
            rec.last_error = Some(e.to_string());
            rec.failing_since_ms = rec.failing_since_ms.or(Some(started));
        }
    }
    write_record(&paths.record, rec);
    Some(r)
}

/// One pull now, by a process that is not the owner (`mpt mailbox` read online with no edge
/// running): the same pull, lock and record as the owner's.
pub async fn pull_now(p: &Puller) -> Option<Result<Pulled, PullError>> {
    let mut rec = load_record(&p.paths, &p.spec.base_url);
    round(&p.spec, &p.paths, &mut rec).await
}

/// The owner's pull schedule from the configuration (`None`: no primary, pulls turned off with
/// `MPT_EDGE_PULL_MS=0`, or a child that is not a Python console script).
pub fn configure(
    config: &mpt_base::config::Config,
    env: &mpt_base::config::Env,
    palace: &Path,
    child_program: &Path,
    paths: &PullPaths,
) -> Option<Puller> {
    let remote = config.remote.as_ref()?;
    let interval = config.pull.interval?;
    let base_url = mpt_mcp::routes::sibling_base_text(&remote.url)?;
    let Some(python) = super::pull::interpreter(child_program, env) else {
        log_warn!(
            "the edge does not pull the primary's coordination log: {} is not a Python console script (MemPalace's log sync runs on the child's own Python)",
            child_program.display()
        );
        return None;
    };
    Some(Puller {
        spec: PullSpec {
            python,
            palace: palace.to_path_buf(),
            base_url,
            token: remote.token.as_ref().map(|(t, _)| t.clone()),
            ca_file: remote.ca_file.clone(),
            deadline: config.pull.deadline,
            memory: config.pull.memory,
        },
        paths: paths.clone(),
        interval,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_record_lives_beside_the_owner_lock() {
        let dir = Path::new("/h/.mempalace/edge");
        let palace = Path::new("/p/palace");
        let paths = PullPaths::in_dir(dir, palace);
        let owner_lock = mpt_base::paths::edge::palace_file(dir, palace, "owner.lock");
        assert_eq!(paths.record.parent(), owner_lock.parent());
        let name = paths
            .record
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        assert!(
            name.ends_with(".pull.json") && !name.contains("owner"),
            "{name}"
        );
        let key = owner_lock
            .file_name()
            .unwrap()
            .to_string_lossy()
            .replace(".owner.lock", "");
        assert_eq!(name, format!("{key}.pull.json"));
        assert_eq!(PullPaths::beside(&owner_lock), paths);
        assert_eq!(
            paths.lock.file_name().unwrap().to_string_lossy(),
            name.replace(".pull.json", ".pull.lock")
        );
    }
}
