//! One `part` row's `data` as the export reads it: the few fields it uses, parsed straight from
//! the row SQLite lends, so the rest (a tool's whole output) is skipped and never copied.

use crate::feed::raw::{LBool, LStr, ToolArgs};
use serde::Deserialize;

/// The fields of a `part.data` the export reads (the rest, a tool's output among it, is skipped
/// unread).
#[derive(Default, Deserialize)]
#[serde(default)]
pub struct PartData {
    #[serde(rename = "type")]
    pub(super) kind: LStr,
    pub(super) text: LStr,
    /// Text opencode added itself (a file's contents for an @-mention, a reminder).
    pub(super) synthetic: LBool,
    pub(super) ignored: LBool,
    pub(super) tool: LStr,
    pub(super) state: Option<ToolState>,
    pub(super) mime: LStr,
}

#[derive(Default, Deserialize)]
#[serde(default)]
pub(super) struct ToolState {
    pub(super) input: Option<ToolArgs>,
}

impl PartData {
    /// A part's `data` as stored; `None` when it is not a JSON object.
    pub fn parse(data: &str) -> Option<PartData> {
        serde_json::from_str(data).ok()
    }
}
