//! What the edge tells a harness whose write could not be queued for the primary, or whose call
//! an owner's death cut short: whether calling again is safe follows the tool's replay class
//! (`outbox::replay::strategy`).

use serde_json::Value;

use mpt_outbox::replay::{Strategy, strategy};
use mpt_palace::catalog::{self, ToolClass};

/// Where the write stands when it could not be queued.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Applied {
    /// Its intent could not be recorded, so the local palace was never asked: nothing written.
    Nowhere,
    /// The local palace applied it and its intent is recorded; queueing it did not complete (it
    /// is settled later, and then reaches the primary).
    Locally,
    /// The local palace did not apply it, and the primary may hold it (its reply was lost).
    MaybeOnPrimary,
}

/// The error text: what happened, and what to do instead of a blind retry where one would
/// write the entry twice.
pub fn not_queued_message(tool: &str, args: &Value, applied: Applied, why: &str) -> String {
    let bare = mpt_palace::catalog::bare(tool);
    let class = strategy(tool, args);
    let safe = matches!(class, Strategy::Idempotent | Strategy::Orphan);
    match (applied, safe) {
        (Applied::Nowhere, _) => format!(
            "NOT queued for the primary and NOT written to the local palace ({why}): the outbox could not record it first, so nothing was written anywhere; calling again is safe once the outbox can be written (`mpt doctor`)"
        ),
        (Applied::Locally, true) => format!(
            "written to the local palace but NOT queued for the primary yet ({why}): its intent is recorded and the edge settles it (then it reaches the primary); retrying the call is safe ({bare} does not duplicate on replay); fix the outbox first (`mpt doctor`)"
        ),
        (Applied::Locally, false) => format!(
            "written to the local palace but NOT queued for the primary yet ({why}): its intent is recorded and the edge settles it (then it reaches the primary): do NOT retry the call, {bare} is not idempotent and a retry writes it twice; fix the outbox (`mpt doctor`)"
        ),
        (Applied::MaybeOnPrimary, true) => format!(
            "NOT queued for the primary and not written locally ({why}): retrying the call is safe ({bare} does not duplicate on replay); fix the outbox first (`mpt doctor`)"
        ),
        (Applied::MaybeOnPrimary, false) => format!(
            "NOT queued for the primary and not written locally ({why}); the primary may already hold it: do NOT retry blindly, {bare} is not idempotent. {} first, and call again only if it is missing",
            check_first(class)
        ),
    }
}

/// The answer to a call the edge owner (`owner`: its pid) never answered because it died. A read,
/// a request that is no tool call, or a write the server dedupes may be sent again; any other
/// write may have been applied (locally, then replicated; or on the primary) and must not be
/// retried blindly.
pub fn owner_lost_message(tool: Option<&str>, args: &Value, owner: Option<u32>) -> String {
    let who = owner_named(owner);
    match write_of(tool) {
        None => format!("{who} died before answering: retry the call (it changes nothing)"),
        Some(bare) => format!(
            "{who} died before answering {bare}: {}",
            unanswered_write(tool.unwrap_or(bare), args)
        ),
    }
}

/// The answer to a call the edge owner (`owner`) did not answer within its deadline: alive but
/// not answering (stopped, or stuck). What it does with the call later is unknown.
pub fn owner_stuck_message(tool: Option<&str>, args: &Value, owner: Option<u32>) -> String {
    let who = owner_named(owner);
    let what = write_of(tool)
        .or_else(|| tool.map(catalog::bare))
        .unwrap_or("the request");
    let stop = owner.map_or(
        "stop it (its pid is in `mpt edge status`)".to_string(),
        |p| format!("`kill {p}` stops it"),
    );
    let then = match write_of(tool) {
        None => "retry the call once a new owner serves".to_string(),
        Some(_) => unanswered_write(tool.unwrap_or(""), args),
    };
    format!(
        "{who} did not answer {what} within its deadline: it is alive but not answering (stopped, or stuck); {stop}, and the next call starts a new owner. Then {then}"
    )
}

fn owner_named(owner: Option<u32>) -> String {
    owner.map_or("the mpt edge owner".to_string(), |p| {
        format!("the mpt edge owner (pid {p})")
    })
}

/// A tool that changes state (bare name), or `None` for a read or a request that is no call.
fn write_of(tool: Option<&str>) -> Option<&str> {
    let t = tool.filter(|t| catalog::classify(t) != ToolClass::Read)?;
    Some(catalog::bare(t))
}

/// What to do about a write whose answer never came: by its replay class.
fn unanswered_write(tool: &str, args: &Value) -> String {
    let bare = catalog::bare(tool);
    let class = strategy(tool, args);
    if matches!(class, Strategy::Idempotent) {
        return format!(
            "it may have been applied; retrying the call is safe ({bare} does not duplicate on replay)"
        );
    }
    format!(
        "it MAY HAVE BEEN APPLIED (a write the local palace applied is queued for the primary by the owner; a coordination write may be on the primary). Do NOT retry it blindly, {bare} is not idempotent: {} first, and call again only if it is missing",
        check_first(class)
    )
}

/// How to see whether the primary already holds a write of this class.
fn check_first(class: Strategy) -> &'static str {
    match class {
        Strategy::Diary | Strategy::Checkpoint => "look for the entry with mempalace_diary_read",
        Strategy::KgHistorical => "look for the fact with mempalace_kg_query",
        Strategy::EventKey | Strategy::Ack | Strategy::Task => {
            "look for it in the coordination log with mempalace_event_list"
        }
        Strategy::Idempotent | Strategy::Orphan | Strategy::Unverifiable => {
            "check the primary by hand"
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_diary_write_is_never_told_to_retry() {
        let m = not_queued_message(
            "mempalace_diary_write",
            &json!({"agent_name": "pi", "entry": "x"}),
            Applied::Locally,
            "disk full",
        );
        assert!(m.contains("do NOT retry"), "{m}");
        assert!(!m.contains("idempotent)"), "{m}");
        assert!(m.contains("intent is recorded"), "{m}");
    }

    #[test]
    fn nothing_written_anywhere_may_always_be_called_again() {
        for tool in [
            "mempalace_diary_write",
            "mempalace_add_drawer",
            "mempalace_x",
        ] {
            let m = not_queued_message(tool, &json!({}), Applied::Nowhere, "disk full");
            assert!(m.contains("calling again is safe"), "{tool}: {m}");
            assert!(m.contains("NOT queued") && m.contains("disk full"), "{m}");
        }
    }

    #[test]
    fn an_owner_lost_mid_call_forbids_a_blind_retry_of_what_is_not_idempotent() {
        for tool in [
            "mempalace_diary_write",
            "mempalace_event_append",
            "mempalace_event_ack",
            "mempalace_task_create",
            "mempalace_some_new_write",
        ] {
            let m = owner_lost_message(Some(tool), &json!({}), Some(42));
            assert!(
                m.contains("MAY HAVE BEEN APPLIED") && m.contains("Do NOT retry"),
                "{tool}: {m}"
            );
            assert!(
                m.contains("pid 42") && !m.contains("retrying the call is safe"),
                "{m}"
            );
        }
        for (tool, args) in [
            (
                "mempalace_add_drawer",
                json!({"wing": "w", "room": "r", "content": "c"}),
            ),
            (
                "mempalace_kg_add",
                json!({"subject": "a", "predicate": "b", "object": "c"}),
            ),
        ] {
            let m = owner_lost_message(Some(tool), &args, Some(42));
            assert!(m.contains("retrying the call is safe"), "{tool}: {m}");
        }
        let m = owner_lost_message(
            Some("mempalace_kg_add"),
            &json!({"subject": "a", "predicate": "b", "object": "c", "valid_to": "2024-01-01"}),
            None,
        );
        assert!(m.contains("Do NOT retry"), "historical kg_add: {m}");
        for tool in [Some("mempalace_search"), None] {
            let m = owner_lost_message(tool, &json!({}), None);
            assert!(m.contains("retry the call"), "{m}");
        }
    }

    #[test]
    fn coordination_writes_and_unknown_tools_are_not_retried_either() {
        for tool in [
            "mempalace_event_append",
            "mempalace_event_ack",
            "mempalace_task_create",
            "mempalace_patch_submit",
            "mempalace_some_new_write",
        ] {
            for applied in [Applied::Locally, Applied::MaybeOnPrimary] {
                let m = not_queued_message(tool, &json!({}), applied, "disk full");
                assert!(m.contains("do NOT retry"), "{tool}: {m}");
            }
        }
        let m = not_queued_message(
            "mempalace_kg_add",
            &json!({"subject": "a", "predicate": "b", "object": "c", "valid_to": "2024-01-01"}),
            Applied::Locally,
            "disk full",
        );
        assert!(m.contains("do NOT retry"), "historical kg_add: {m}");
    }

    #[test]
    fn idempotent_writes_may_be_retried() {
        let m = not_queued_message(
            "mempalace_add_drawer",
            &json!({"wing": "w", "room": "r", "content": "c"}),
            Applied::Locally,
            "disk full",
        );
        assert!(m.contains("retrying the call is safe"), "{m}");
        assert!(!m.contains("NOT retry"), "{m}");
    }
}
