//! The mailbox: what this device owes, derived from the coordination log's events (`derive`, pure),
//! read from the primary or offline from the local copy (`offline`, on `mpt_coord`), then announced.

// Flow for `mpt mailbox`: fetch the open asks (all pages; matched to this device's identities
// locally, `Me`) and each addressee's own events, then `derive` → print `Derivation::owed`,
// then `Derivation::dormant` once with their ids.
// Flow for `mpt mailbox watch`: per poll, `derive` → `Announcer::next` → `notification_for`,
// `plain_delivery` or `Route::bytes` per `NotifyMode` (the `Route` chosen once, tmux asked once).
// Flow for `mpt mailbox notify --test`: `Route::choose` → `verdict` → `Route::bytes` of
// `TEST_NOTIFICATION` when the verdict is a path.

pub mod ack;
pub mod announce;
pub mod derive;
pub mod docs;
pub mod dormancy;
pub mod notify;
pub mod offline;
pub mod refresh;
pub mod route;
pub mod text;
pub mod tmux;

pub use announce::{Announcement, Announcer, Why};
pub use derive::{
    Ask, BROADCAST, CANDIDATE_STATUS, Derivation, Stats, TERMINAL_STATUSES, derive, derive_parsed,
};
pub use dormancy::{Dormancy, DormancyState, Fs, MAX_CONDITIONS, StdFs};
pub use mpt_coord::{Event, Me, Parsed, parse_events};
pub use notify::{
    DELIVERY_NOTE, NOTIFY_VAR, Notification, NotifyMode, TEST_NOTIFICATION, desktop_bytes,
    notification_for, osc99, osc777, plain, plain_delivery, prefers_kitty, sanitize_field,
    tmux_passthrough,
};
pub use route::{Route, Verdict, verdict};

/// `schema` of `mpt mailbox --json`.
pub const SCHEMA: &str = mpt_base::schema::MAILBOX;
