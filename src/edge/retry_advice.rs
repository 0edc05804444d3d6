//! What the edge tells a harness whose write could not be queued for the primary: whether
//! calling again is safe follows the tool's replay class (`outbox::replay::strategy`).

use serde_json::Value;

use crate::outbox::replay::{Strategy, strategy};

/// Where the write stands when it could not be queued.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Applied {
    /// The local palace applied it; only the primary lacks it.
    Locally,
    /// The local palace did not apply it, and the primary may hold it (its reply was lost).
    MaybeOnPrimary,
}

/// The error text: what happened, and what to do instead of a blind retry where one would
/// write the entry twice.
pub fn not_queued_message(tool: &str, args: &Value, applied: Applied, why: &str) -> String {
    let bare = crate::palace::catalog::bare(tool);
    let class = strategy(tool, args);
    let safe = matches!(class, Strategy::Idempotent | Strategy::Orphan);
    match (applied, safe) {
        (Applied::Locally, true) => format!(
            "written to the local palace but NOT queued for the primary ({why}): retrying the call is safe ({bare} does not duplicate on replay); fix the outbox first (`mpt doctor`)"
        ),
        (Applied::Locally, false) => format!(
            "written to the local palace but NOT queued for the primary ({why}): do NOT retry the call, {bare} is not idempotent and a retry writes it twice. Free the outbox's disk, then queue this same op for the primary alone with `mpt outbox enqueue {tool} '<the same arguments as JSON>'`"
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
        assert!(
            m.contains("mpt outbox enqueue mempalace_diary_write"),
            "{m}"
        );
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
