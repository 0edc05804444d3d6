//! A `message` or `part` row's `data` as the export reads it: the few fields it uses, read straight
//! from the row's text by [`json`](super::json), the rest (a tool's whole output) checked and skipped.

// What is read, and what fails a row, is serde_json's derive of these structs to the letter (the
// tests keep that derive as the reference and compare the two): an object, or an array read
// positionally, with no field given twice; each field lenient (a value of another JSON type reads
// as absent), except `state`, which must be null, an object or an array.

use super::json::{Any, Bad, Cursor, Res};
use crate::feed::raw::{LBool, LStr, ToolArgs, keep_arg};
#[cfg(test)]
use {
    crate::feed::raw::LCow,
    serde::{Deserialize, Deserializer},
};

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

#[cfg(test)]
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

#[cfg(test)]
impl<'de> Deserialize<'de> for IsImage {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mime = LCow::deserialize(d)?;
        Ok(IsImage(mime.0.is_some_and(|m| m.starts_with("image/"))))
    }
}

/// The fields of a `part.data` the export reads (the rest, a tool's output among it, is skipped).
#[derive(Debug, Default, PartialEq)]
#[cfg_attr(test, derive(Deserialize), serde(default))]
pub struct PartData {
    #[cfg_attr(test, serde(rename = "type"))]
    pub(super) kind: Kind,
    pub(super) text: LStr,
    /// Text opencode added itself (a file's contents for an @-mention, a reminder).
    pub(super) synthetic: LBool,
    pub(super) ignored: LBool,
    pub(super) tool: LStr,
    pub(super) state: Option<ToolState>,
    pub(super) mime: IsImage,
}

#[derive(Debug, Default, PartialEq)]
#[cfg_attr(test, derive(Deserialize), serde(default))]
pub(super) struct ToolState {
    pub(super) input: Option<ToolArgs>,
}

/// A lenient string field: a string, or absent.
fn string(c: &mut Cursor) -> Res<LStr> {
    Ok(LStr(match c.any()? {
        Any::Str(s) => Some(s.into_owned()),
        _ => None,
    }))
}

/// A lenient boolean field: `true`, or false.
fn boolean(c: &mut Cursor) -> Res<LBool> {
    Ok(LBool(c.any()? == Any::Bool(true)))
}

/// A lenient string field only compared.
fn compared<T>(c: &mut Cursor, f: impl FnOnce(&str) -> T) -> Res<Option<T>> {
    Ok(match c.any()? {
        Any::Str(s) => Some(f(&s)),
        _ => None,
    })
}

/// A struct as serde's derive reads it: an object (`name` gives a key's field index, each field
/// at most once, other keys skipped) or an array of its `fields` fields in order; `field` reads one.
fn fields<'a>(
    c: &mut Cursor<'a>,
    count: usize,
    name: impl Fn(&str) -> Option<usize>,
    mut field: impl FnMut(usize, &mut Cursor<'a>) -> Res<()>,
) -> Res<()> {
    match c.peek() {
        Some(b'{') => {
            c.bump();
            let (mut seen, mut first) = (0u32, true);
            while c.more(b'}', first)? {
                first = false;
                let key = c.key()?;
                let Some(i) = name(&key) else {
                    c.skip()?;
                    continue;
                };
                if seen & (1 << i) != 0 {
                    return Err(Bad);
                }
                seen |= 1 << i;
                field(i, c)?;
            }
            Ok(())
        }
        Some(b'[') => {
            c.bump();
            for i in 0..count {
                if !c.more(b']', i == 0)? {
                    return Ok(());
                }
                field(i, c)?;
            }
            // No element past the last field.
            c.expect(b']')
        }
        _ => Err(Bad),
    }
}

/// A whole row: the value, then nothing but whitespace.
fn whole<T>(data: &str, read: impl FnOnce(&mut Cursor) -> Res<T>) -> Option<T> {
    let mut c = Cursor::new(data);
    let v = read(&mut c).ok()?;
    c.end().ok()?;
    Some(v)
}

impl ToolState {
    fn read(c: &mut Cursor) -> Res<ToolState> {
        let mut s = ToolState::default();
        fields(
            c,
            1,
            |k| (k == "input").then_some(0),
            |_, c| {
                s.input = if c.null()? { None } else { Some(args(c)?) };
                Ok(())
            },
        )?;
        Ok(s)
    }
}

/// A tool's `input`: its top-level string values (cut as pi's are), anything else checked and
/// dropped.
fn args(c: &mut Cursor) -> Res<ToolArgs> {
    let mut out = Vec::new();
    if c.peek() != Some(b'{') {
        c.any()?;
        return Ok(ToolArgs(out));
    }
    c.bump();
    let mut first = true;
    while c.more(b'}', first)? {
        first = false;
        let key = c.key()?;
        if let Some(mut v) = string(c)?.0 {
            keep_arg(&mut v);
            out.push((key.into_owned(), v));
        }
    }
    Ok(ToolArgs(out))
}

impl PartData {
    /// A part's `data` as stored; `None` when serde_json would not read it (neither an object nor
    /// an array of its fields by position).
    pub fn parse(data: &str) -> Option<PartData> {
        whole(data, |c| {
            let mut p = PartData::default();
            fields(
                c,
                7,
                |k| match k {
                    "type" => Some(0),
                    "text" => Some(1),
                    "synthetic" => Some(2),
                    "ignored" => Some(3),
                    "tool" => Some(4),
                    "state" => Some(5),
                    "mime" => Some(6),
                    _ => None,
                },
                |i, c| {
                    match i {
                        0 => p.kind = compared(c, Kind::of)?.unwrap_or_default(),
                        1 => p.text = string(c)?,
                        2 => p.synthetic = boolean(c)?,
                        3 => p.ignored = boolean(c)?,
                        4 => p.tool = string(c)?,
                        5 => {
                            p.state = if c.null()? {
                                None
                            } else {
                                Some(ToolState::read(c)?)
                            }
                        }
                        _ => {
                            p.mime =
                                IsImage(compared(c, |m| m.starts_with("image/"))? == Some(true))
                        }
                    }
                    Ok(())
                },
            )?;
            Ok(p)
        })
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

#[cfg(test)]
impl<'de> Deserialize<'de> for Role {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(LCow::deserialize(d)?
            .0
            .as_deref()
            .map_or(Role::Other, Role::of))
    }
}

/// The fields of a `message.data` the export reads.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
#[cfg_attr(test, derive(Deserialize), serde(default))]
pub struct MessageData {
    pub(super) role: Role,
    /// A compaction's summary (the messages it summarises are still in the table).
    pub(super) summary: LBool,
}

impl MessageData {
    /// A message's `data` as stored; `None` when serde_json would not read it (neither an object nor
    /// an array of its fields by position).
    pub fn parse(data: &str) -> Option<MessageData> {
        whole(data, |c| {
            let mut m = MessageData::default();
            fields(
                c,
                2,
                |k| match k {
                    "role" => Some(0),
                    "summary" => Some(1),
                    _ => None,
                },
                |i, c| {
                    if i == 0 {
                        m.role = compared(c, Role::of)?.unwrap_or_default();
                    } else {
                        m.summary = boolean(c)?;
                    }
                    Ok(())
                },
            )?;
            Ok(m)
        })
    }
}

#[cfg(test)]
mod tests;
