//! One opencode session's rows as the entries pi's exporter reads: a user message's typed text
//! (synthetic and ignored parts left out), an assistant message's text and tool calls, in order.

use super::db::{SessionRow, SessionRows};
use super::part::{Kind, PartData, Role};
use super::rows::checked;
use crate::session::{Body, Entry, Header, ParseStats, Part, Session, ToolNote, entry_key};

/// What a session held that the export could not use, for the report.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Unread {
    /// `message.data` or `part.data` that is not a JSON object.
    pub bad_rows: usize,
}

/// The session as pi's exporter sees it: a linear branch, one entry per message, from the first
/// message to the last one before a pending revert. Each message's and part's `data` is parsed here
/// (the fields the export reads, the rest skipped), each part first put in its message; the rows'
/// strings move into the entries. `Err` is the read's error for a row whose `data` is not UTF-8
/// ([`checked`]): the database is then skipped as unreadable, as when the read itself failed.
pub fn session(row: &SessionRow, mut rows: SessionRows) -> Result<(Session, Unread), String> {
    let messages = rows.placed();
    let stored = checked(&rows.stored, &messages)?;
    let mut unread = Unread::default();
    let reverted_from = row
        .revert
        .as_deref()
        .and_then(|r| serde_json::from_str::<serde_json::Value>(r).ok())
        .and_then(|v| v.get("messageID")?.as_str().map(str::to_string));
    let mut entries: Vec<Entry> = Vec::with_capacity(messages.len());
    for m in messages {
        if reverted_from.as_deref().is_some_and(|r| m.id.as_str() >= r) {
            continue;
        }
        let Some(data) = m.data.parse(stored) else {
            unread.bad_rows += 1;
            continue;
        };
        let parts: Vec<Option<PartData>> = m.parts.into_iter().map(|p| p.parse(stored)).collect();
        unread.bad_rows += parts.iter().filter(|p| p.is_none()).count();
        let parts = parts.into_iter().flatten();
        let body = match (data.role, data.summary.0) {
            (_, true) => Body::Summary,
            (Role::User, _) => user(parts),
            (Role::Assistant, _) => assistant(parts),
            _ => Body::Other,
        };
        let parent_id = entries.last().and_then(|e| e.id.clone());
        entries.push(Entry {
            key: entry_key(&row.id, &m.id),
            id: Some(m.id),
            parent_id,
            body,
        });
    }
    let header = Header {
        id: row.id.clone(),
        version: 3,
        cwd: Some(row.directory.clone()),
        timestamp: None,
        parent_session: row.parent_id.clone(),
    };
    let stats = ParseStats {
        lines: entries.len(),
        ..ParseStats::default()
    };
    Ok((
        Session {
            header,
            entries,
            stats,
        },
        unread,
    ))
}

/// Typed text: not added by opencode itself, not hidden.
fn typed(p: &PartData) -> bool {
    p.kind == Kind::Text && !p.synthetic.0 && !p.ignored.0
}

/// A user message: its typed text parts joined by newlines; a compaction request is a summary.
fn user(parts: impl Iterator<Item = PartData>) -> Body {
    let mut text: Option<String> = None;
    let (mut images, mut compaction) = (0, false);
    for p in parts {
        compaction |= p.kind == Kind::Compaction;
        images += usize::from(p.kind == Kind::File && p.mime.0);
        if typed(&p)
            && let Some(t) = p.text.0
        {
            match &mut text {
                None => text = Some(t),
                Some(all) => {
                    all.push('\n');
                    all.push_str(&t);
                }
            }
        }
    }
    if compaction {
        return Body::Summary;
    }
    Body::User {
        text: text.unwrap_or_default(),
        images,
    }
}

/// An assistant message: text (not synthetic) and tool calls in order; reasoning, steps,
/// snapshots and patches dropped.
fn assistant(parts: impl Iterator<Item = PartData>) -> Body {
    let mut out = Vec::new();
    for p in parts {
        if typed(&p) {
            if let Some(t) = p.text.0 {
                out.push(Part::Text(t));
            }
        } else if p.kind == Kind::Tool {
            out.push(Part::Tool(ToolNote {
                tool: p.tool.0.unwrap_or_default(),
                args: p
                    .state
                    .and_then(|s| s.input)
                    .map(|a| a.0)
                    .unwrap_or_default(),
            }));
        }
    }
    Body::Assistant {
        parts: out,
        stop_reason: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::opencode::db::{MessageRow, PartRow};
    use crate::opencode::rows::Stored;

    fn row() -> SessionRow {
        SessionRow {
            id: "ses_1".into(),
            parent_id: None,
            directory: "/p".into(),
            title: "t".into(),
            revert: None,
            updated_ms: 0,
            fingerprint: 0,
        }
    }

    type Msg<'a> = (&'a str, &'a str, &'a [&'a str]);

    fn msg<'a>(id: &'a str, data: &'a str, parts: &'a [&'a str]) -> Msg<'a> {
        (id, data, parts)
    }

    /// The rows the read would deliver for these messages.
    fn rows(msgs: &[Msg]) -> SessionRows {
        let mut out = SessionRows::default();
        for (id, data, parts) in msgs {
            let start = out.stored.len();
            out.stored.extend_from_slice(data.as_bytes());
            let mut m = MessageRow {
                id: id.to_string(),
                data: Stored::Raw(start..out.stored.len()),
                parts: Vec::new(),
            };
            for p in *parts {
                let start = out.stored.len();
                out.stored.extend_from_slice(p.as_bytes());
                m.parts.push(PartRow::Raw(start..out.stored.len()));
            }
            out.messages.push(m);
        }
        out
    }

    #[test]
    fn messages_become_entries() {
        let msgs = || {
            vec![
                msg(
                    "msg_1",
                    r#"{"role":"user"}"#,
                    &[
                        r#"{"type":"text","text":"two\nlines"}"#,
                        r#"{"type":"text","text":"file body","synthetic":true}"#,
                        r#"{"type":"file","mime":"image/png"}"#,
                    ],
                ),
                msg(
                    "msg_2",
                    r#"{"role":"assistant"}"#,
                    &[
                        r#"{"type":"step-start"}"#,
                        r#"{"type":"reasoning","text":"hmm"}"#,
                        r#"{"type":"tool","tool":"read","state":{"status":"completed","input":{"filePath":"/a.rs","limit":3}}}"#,
                        r#"{"type":"text","text":"answer"}"#,
                    ],
                ),
                msg("msg_3", r#"{"role":"assistant","summary":true}"#, &[]),
                msg("msg_4", "not json", &["{}"]),
            ]
        };
        let (s, unread) = session(&row(), rows(&msgs())).unwrap();
        assert_eq!(unread.bad_rows, 1);
        let bodies: Vec<&Body> = s.branch().into_iter().map(|e| &e.body).collect();
        assert_eq!(
            bodies,
            [
                &Body::User {
                    text: "two\nlines".into(),
                    images: 1
                },
                &Body::Assistant {
                    parts: vec![
                        Part::Tool(ToolNote {
                            tool: "read".into(),
                            args: vec![("filePath".into(), "/a.rs".into())]
                        }),
                        Part::Text("answer".into())
                    ],
                    stop_reason: None
                },
                &Body::Summary,
            ]
        );
        // A pending revert hides the messages from its messageID on.
        let reverted = SessionRow {
            revert: Some(r#"{"messageID":"msg_2"}"#.into()),
            ..row()
        };
        assert_eq!(
            session(&reverted, rows(&msgs())).unwrap().0.entries.len(),
            1
        );
    }
}
