//! A `message` or `part` row's `data` as the export reads it: the few fields it uses, by serde's
//! derive; the rest (a tool's whole output) skipped without building values (`IgnoredAny`).

// What is read, and what fails a row: an object, or an array read positionally, with no field
// given twice; each field lenient (a value of another JSON type reads as absent), except `state`,
// which must be null, an object or an array. The goldens in `part/tests.rs` pin it.

use serde::{Deserialize, Deserializer};

use crate::raw::{LBool, LCow, LStr, ToolArgs};

/// A part's `type`, as far as the export tells them apart.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Text,
    Tool,
    File,
    Compaction,
    /// Steps, reasoning, snapshots, patches, an unknown or missing type: dropped.
    #[default]
    Other,
}

impl Kind {
    fn of(t: &str) -> Kind {
        match t {
            "text" => Kind::Text,
            "tool" => Kind::Tool,
            "file" => Kind::File,
            "compaction" => Kind::Compaction,
            _ => Kind::Other,
        }
    }
}

impl<'de> Deserialize<'de> for Kind {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(LCow::deserialize(d)?
            .0
            .as_deref()
            .map_or(Kind::Other, Kind::of))
    }
}

/// A file part's `mime` reduced to what the export asks of it: is it an image.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct IsImage(pub bool);

impl<'de> Deserialize<'de> for IsImage {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mime = LCow::deserialize(d)?;
        Ok(IsImage(mime.0.is_some_and(|m| m.starts_with("image/"))))
    }
}

/// The fields of a `part.data` the export reads (the rest, a tool's output among it, is skipped).
#[derive(Debug, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct PartData {
    #[serde(rename = "type")]
    pub(super) kind: Kind,
    pub(super) text: LStr,
    /// Text opencode added itself (a file's contents for an @-mention, a reminder).
    pub(super) synthetic: LBool,
    pub(super) ignored: LBool,
    pub(super) tool: LStr,
    pub(super) state: Option<ToolState>,
    pub(super) mime: IsImage,
}

#[derive(Debug, Default, PartialEq, Deserialize)]
#[serde(default)]
pub(super) struct ToolState {
    pub(super) input: Option<ToolArgs>,
}

impl PartData {
    /// A part's `data` as stored; `None` when it is not a part (neither an object nor an array of
    /// its fields by position, or not JSON).
    pub fn parse(data: &str) -> Option<PartData> {
        serde_json::from_str(data).ok()
    }
}

/// A message's role, as far as the export tells them apart.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    User,
    Assistant,
    #[default]
    Other,
}

impl Role {
    fn of(r: &str) -> Role {
        match r {
            "user" => Role::User,
            "assistant" => Role::Assistant,
            _ => Role::Other,
        }
    }
}

impl<'de> Deserialize<'de> for Role {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(LCow::deserialize(d)?
            .0
            .as_deref()
            .map_or(Role::Other, Role::of))
    }
}

/// The fields of a `message.data` the export reads.
#[derive(Debug, Default, Clone, Copy, PartialEq, Deserialize)]
#[serde(default)]
pub struct MessageData {
    pub(super) role: Role,
    /// A compaction's summary (the messages it summarises are still in the table).
    pub(super) summary: LBool,
}

impl MessageData {
    /// A message's `data` as stored; `None` when it is not a message (neither an object nor an
    /// array of its fields by position, or not JSON).
    pub fn parse(data: &str) -> Option<MessageData> {
        serde_json::from_str(data).ok()
    }
}

#[cfg(test)]
mod tests;
