//! Wire level of a pi session line: lenient typed deserialization (no `Value` tree; a field of an
//! unexpected JSON type reads as absent instead of failing the line).

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::borrow::Cow;
use std::fmt;

/// Longest tool-argument string kept (in chars) before the exporter shortens it further.
const ARG_KEEP_CHARS: usize = 400;

/// Visitor methods that map every scalar (and null) to `$v`.
macro_rules! scalars_to {
    ($t:ty, $v:expr) => {
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<$t, E> {
            Ok($v)
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<$t, E> {
            Ok($v)
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<$t, E> {
            Ok($v)
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<$t, E> {
            Ok($v)
        }
        fn visit_unit<E: de::Error>(self) -> Result<$t, E> {
            Ok($v)
        }
    };
}

/// Visitor methods that skip any array or object and yield `$v`.
macro_rules! containers_to {
    ($t:ty, $v:expr) => {
        fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<$t, A::Error> {
            while s.next_element::<IgnoredAny>()?.is_some() {}
            Ok($v)
        }
        fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<$t, A::Error> {
            while m.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            Ok($v)
        }
    };
}

/// A string field that tolerates any other JSON type (read as `None`).
#[derive(Debug, Default, Clone, PartialEq)]
pub(super) struct LStr(pub Option<String>);

impl<'de> Deserialize<'de> for LStr {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = LStr;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<LStr, E> {
                Ok(LStr(Some(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<LStr, E> {
                Ok(LStr(Some(v)))
            }
            scalars_to!(LStr, LStr(None));
            containers_to!(LStr, LStr(None));
        }
        d.deserialize_any(V)
    }
}

/// A boolean field that reads anything but `true` as `false`.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub(super) struct LBool(pub bool);

impl<'de> Deserialize<'de> for LBool {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = LBool;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<LBool, E> {
                Ok(LBool(v))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<LBool, E> {
                Ok(LBool(false))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<LBool, E> {
                Ok(LBool(false))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<LBool, E> {
                Ok(LBool(false))
            }
            fn visit_unit<E: de::Error>(self) -> Result<LBool, E> {
                Ok(LBool(false))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<LBool, E> {
                Ok(LBool(false))
            }
            containers_to!(LBool, LBool(false));
        }
        d.deserialize_any(V)
    }
}

/// A string field read without a copy when the JSON text holds it unescaped (any other JSON type
/// reads as `None`): for fields only compared, never kept (opencode's part type and role).
#[derive(Debug, Default, Clone, PartialEq)]
pub(super) struct LCow<'a>(pub Option<Cow<'a, str>>);

impl<'de> Deserialize<'de> for LCow<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = LCow<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<LCow<'de>, E> {
                Ok(LCow(Some(Cow::Borrowed(v))))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<LCow<'de>, E> {
                Ok(LCow(Some(Cow::Owned(v.to_owned()))))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<LCow<'de>, E> {
                Ok(LCow(Some(Cow::Owned(v))))
            }
            scalars_to!(LCow<'de>, LCow(None));
            containers_to!(LCow<'de>, LCow(None));
        }
        d.deserialize_any(V)
    }
}

/// One line of a session file after the header.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct RawEntry {
    #[serde(rename = "type")]
    pub kind: LStr,
    pub id: LStr,
    #[serde(rename = "parentId")]
    pub parent_id: LStr,
    pub message: Option<RawMessage>,
    /// `session_info.name`.
    pub name: LStr,
}

/// `entry.message`: an AgentMessage. Anything that is not an object reads as an empty message.
#[derive(Debug, Default)]
pub(super) struct RawMessage {
    pub role: Option<String>,
    pub content: Vec<Block>,
    pub stop_reason: Option<String>,
    /// `bashExecution.command`.
    pub command: Option<String>,
    /// `bashExecution.excludeFromContext` (`!!` commands).
    pub exclude_from_context: bool,
}

impl<'de> Deserialize<'de> for RawMessage {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RawMessage;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a message object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<RawMessage, A::Error> {
                let mut out = RawMessage::default();
                while let Some(key) = m.next_key::<KeyName>()? {
                    match key.0.as_ref() {
                        "role" => out.role = m.next_value::<LStr>()?.0,
                        "content" => out.content = m.next_value::<Content>()?.0,
                        "stopReason" => out.stop_reason = m.next_value::<LStr>()?.0,
                        "command" => out.command = m.next_value::<LStr>()?.0,
                        "excludeFromContext" => {
                            out.exclude_from_context = m.next_value::<LBool>()?.0
                        }
                        _ => {
                            m.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(out)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<RawMessage, A::Error> {
                while s.next_element::<IgnoredAny>()?.is_some() {}
                Ok(RawMessage::default())
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<RawMessage, E> {
                Ok(RawMessage::default())
            }
            scalars_to!(RawMessage, RawMessage::default());
        }
        d.deserialize_any(V)
    }
}

/// A map key, borrowed from the JSON text unless it holds an escape (rare but legal).
struct KeyName<'a>(Cow<'a, str>);

impl<'de> Deserialize<'de> for KeyName<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = KeyName<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<KeyName<'de>, E> {
                Ok(KeyName(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<KeyName<'de>, E> {
                Ok(KeyName(Cow::Owned(v.to_owned())))
            }
        }
        d.deserialize_str(V)
    }
}

/// `content`: a plain string (one text block) or an array of blocks.
struct Content(Vec<Block>);

impl<'de> Deserialize<'de> for Content {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Content;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string or an array of content blocks")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Content, E> {
                Ok(Content(vec![Block::text(v.to_owned())]))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Content, E> {
                Ok(Content(vec![Block::text(v)]))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<Content, A::Error> {
                let mut out = Vec::new();
                while let Some(b) = s.next_element::<Block>()? {
                    if b.kind != BlockKind::Ignored {
                        out.push(b);
                    }
                }
                Ok(Content(out))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Content, A::Error> {
                while m.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Content(Vec::new()))
            }
            scalars_to!(Content, Content(Vec::new()));
        }
        d.deserialize_any(V)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum BlockKind {
    Text,
    Thinking,
    ToolCall,
    Image,
    Ignored,
}

/// One content block. Only what the exporter needs is kept: text, tool name and short string args.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Block {
    pub kind: BlockKind,
    pub text: String,
    pub tool: String,
    /// Top-level string arguments of a tool call, in document order, each cut to a few hundred chars.
    pub args: Vec<(String, String)>,
}

impl Block {
    pub(super) fn text(t: String) -> Block {
        Block {
            kind: BlockKind::Text,
            text: t,
            tool: String::new(),
            args: Vec::new(),
        }
    }

    fn ignored() -> Block {
        Block {
            kind: BlockKind::Ignored,
            ..Block::text(String::new())
        }
    }
}

impl<'de> Deserialize<'de> for Block {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Block;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a content block")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Block, A::Error> {
                let (mut kind, mut text, mut tool, mut args) = (None, None, None, Vec::new());
                while let Some(key) = m.next_key::<KeyName>()? {
                    match key.0.as_ref() {
                        "type" => kind = m.next_value::<LStr>()?.0,
                        "text" => text = m.next_value::<LStr>()?.0,
                        "name" => tool = m.next_value::<LStr>()?.0,
                        "arguments" => args = m.next_value::<ToolArgs>()?.0,
                        _ => {
                            m.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                let kind = match kind.as_deref() {
                    Some("text") => BlockKind::Text,
                    Some("thinking") | Some("redacted_thinking") => BlockKind::Thinking,
                    Some("toolCall") | Some("tool_use") => BlockKind::ToolCall,
                    Some("image") => BlockKind::Image,
                    _ => BlockKind::Ignored,
                };
                let (text, tool) = (text.unwrap_or_default(), tool.unwrap_or_default());
                Ok(Block {
                    kind,
                    text,
                    tool,
                    args,
                })
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Block, E> {
                Ok(Block::text(v.to_owned()))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<Block, A::Error> {
                while s.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Block::ignored())
            }
            scalars_to!(Block, Block::ignored());
        }
        d.deserialize_any(V)
    }
}

/// A tool-call argument's string as kept: cut to [`ARG_KEEP_CHARS`] chars.
pub(super) fn keep_arg(v: &mut String) {
    if let Some((cut, _)) = v.char_indices().nth(ARG_KEEP_CHARS) {
        v.truncate(cut);
    }
}

/// Tool-call arguments: only top-level string values are kept (shortened); the rest is skipped.
#[derive(Debug, Default, Clone, PartialEq)]
pub(super) struct ToolArgs(pub Vec<(String, String)>);

impl<'de> Deserialize<'de> for ToolArgs {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ToolArgs;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("tool arguments")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<ToolArgs, A::Error> {
                let mut out = Vec::new();
                while let Some(key) = m.next_key::<KeyName>()? {
                    if let Some(mut v) = m.next_value::<LStr>()?.0 {
                        keep_arg(&mut v);
                        out.push((key.0.into_owned(), v));
                    }
                }
                Ok(ToolArgs(out))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<ToolArgs, E> {
                Ok(ToolArgs(Vec::new()))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<ToolArgs, A::Error> {
                while s.next_element::<IgnoredAny>()?.is_some() {}
                Ok(ToolArgs(Vec::new()))
            }
            scalars_to!(ToolArgs, ToolArgs(Vec::new()));
        }
        d.deserialize_any(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lenient_fields_and_content_shapes() {
        let e: RawEntry = serde_json::from_str(
            r#"{"type":"message","id":7,"parentId":null,"message":{"role":"user","content":"hi","timestamp":1}}"#,
        )
        .unwrap();
        assert_eq!(e.kind.0.as_deref(), Some("message"));
        assert_eq!(e.id.0, None);
        let m = e.message.unwrap();
        assert_eq!(m.content, vec![Block::text("hi".into())]);

        let e: RawEntry = serde_json::from_str(
            r#"{"type":"message","message":{"role":"assistant","content":[{"type":"thinking","thinking":"x"},"bare",{"type":"toolCall","name":"bash","arguments":{"command":"ls -la","timeout":5,"env":{"A":"b"}}},42]}}"#,
        )
        .unwrap();
        let m = e.message.unwrap();
        let kinds: Vec<BlockKind> = m.content.iter().map(|b| b.kind).collect();
        assert_eq!(
            kinds,
            [BlockKind::Thinking, BlockKind::Text, BlockKind::ToolCall]
        );
        assert_eq!(
            m.content[2].args,
            vec![("command".to_string(), "ls -la".to_string())]
        );

        let e: RawEntry = serde_json::from_str(r#"{"type":"message","message":"oops"}"#).unwrap();
        assert!(e.message.unwrap().role.is_none());
    }
}
