//! The `pull` check: whether the edge's pull of the primary's coordination log works (it fails
//! every round only in the owner's log otherwise), and the events it skipped as unreadable.

use super::{Check, Inputs, Status};
use mpt_coord::puller::{self, PullPaths};

const ID: &str = "pull";

pub fn check(inputs: &Inputs) -> Check {
    let config = match &inputs.config {
        Ok(c) => c,
        Err(e) => return super::config_broken(ID, e),
    };
    if config.remote.is_none() {
        return Check::new(ID, Status::Skip, "no primary: nothing to pull");
    }
    if config.pull.interval.is_none() {
        return Check::new(ID, Status::Skip, "pulls are off (MPT_EDGE_PULL_MS=0)");
    }
    let paths = match inputs.palace() {
        Ok(p) => p,
        Err(e) => return Check::new(ID, Status::Skip, e.message),
    };
    let path = PullPaths::new(&paths.home, &paths.palace).record;
    let Some(rec) = puller::read_record(&path) else {
        return Check::new(
            ID,
            Status::Ok,
            "no pull recorded yet: the edge owner pulls while the primary answers",
        )
        .evidence(format!("{} does not exist", path.display()));
    };
    let status = rec.to_status();
    let evidence = format!(
        "{}: {}",
        path.display(),
        serde_json::to_string(&status).unwrap_or_default()
    );
    let last_ok = status.last_success.as_deref().unwrap_or("never");
    if let Some(e) = &rec.last_error {
        let since = status.failing_since.as_deref().unwrap_or("?");
        let fix = if e.contains("MPT_EDGE_PULL_MEMORY_BYTES") {
            "the primary's /sync replies do not fit the pull's memory bound: check the primary (`curl <primary>/sync/version_vector`), or raise MPT_EDGE_PULL_MEMORY_BYTES"
        } else {
            "mpt edge status --json   # the pull record, and the owner log (owner.log) that says more"
        };
        return Check::new(
            ID,
            Status::Warn,
            format!(
                "the pull of the primary's log fails since {since} (last success {last_ok}): {}; offline answers are as old as the last success",
                e.lines().next().unwrap_or("")
            ),
        )
        .evidence(evidence)
        .fix(fix);
    }
    let skipped = status.rows_skipped;
    if skipped > 0 {
        return Check::new(
            ID,
            Status::Warn,
            format!(
                "the last pull skipped {skipped} event(s) of the primary's log it could not read (a text origin_seq, a field that is not text); the rest was pulled"
            ),
        )
        .evidence(evidence)
        .fix("look for the malformed events on the primary (`mpt call mempalace_event_list`)");
    }
    Check::new(
        ID,
        Status::Ok,
        format!("the last pull succeeded at {last_ok}"),
    )
    .evidence(evidence)
}
