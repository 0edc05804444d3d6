//! opencode databases built from the schema the real opencode 1.18.33 writes
//! (tests/fixtures/feed/opencode-1.18.33.sql); shared by the tests and `benches/bench_feed.rs`.

use std::path::Path;

use rusqlite::Connection;

/// The schema (tables, indexes, migration journal) opencode 1.18.33 creates.
pub const SCHEMA_SQL: &str = include_str!("../../fixtures/feed/opencode-1.18.33.sql");

/// A new database at `path` with the real schema, in WAL mode like opencode's.
pub fn schema_db(path: &Path) -> Connection {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let c = Connection::open(path).unwrap();
    c.pragma_update(None, "journal_mode", "wal").unwrap();
    c.execute_batch(SCHEMA_SQL).unwrap();
    c
}

/// Appends one conversation of `turns` exchanges to the database, shaped as opencode 1.18 writes
/// it (a user message with a text part; an assistant message with step, text and tool parts),
/// all updated at `at_ms`. Returns the session id.
pub fn add_session(c: &Connection, n: usize, turns: usize, at_ms: i64) -> String {
    let sid = format!("ses_{n:08}synthetic");
    c.execute(
        "INSERT OR IGNORE INTO project (id, worktree, time_created, time_updated, sandboxes) VALUES ('prj', '/p', 0, 0, '[]')",
        [],
    )
    .unwrap();
    c.execute(
        "INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated)
         VALUES (?1, 'prj', 'slug', '/p', 'title', '1.18.33', ?2, ?2)",
        rusqlite::params![sid, at_ms],
    )
    .unwrap();
    for t in 0..turns {
        let user = format!("msg_{n:08}_{t:04}a");
        let reply = format!("msg_{n:08}_{t:04}b");
        let msg = |id: &str, data: String| {
            c.execute(
                "INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?1, ?2, ?3, ?3, ?4)",
                rusqlite::params![id, sid, at_ms, data],
            )
            .unwrap();
        };
        let part = |mid: &str, k: usize, data: serde_json::Value| {
            c.execute(
                "INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?1, ?2, ?3, ?4, ?4, ?5)",
                rusqlite::params![format!("prt_{mid}_{k}"), mid, sid, at_ms, data.to_string()],
            )
            .unwrap();
        };
        msg(
            &user,
            serde_json::json!({"role": "user", "agent": "build"}).to_string(),
        );
        part(
            &user,
            0,
            serde_json::json!({"type": "text",
            "text": format!("Question {t} of session {n}: how should the parser treat an empty line\nin the middle of a block?")}),
        );
        msg(
            &reply,
            serde_json::json!({"role": "assistant", "parentID": user, "finish": "stop"})
                .to_string(),
        );
        part(&reply, 0, serde_json::json!({"type": "step-start"}));
        part(
            &reply,
            1,
            serde_json::json!({"type": "tool", "tool": "read", "callID": "c",
            "state": {"status": "completed", "input": {"filePath": format!("/p/src/file{t}.rs")}, "output": "x".repeat(400)}}),
        );
        part(
            &reply,
            2,
            serde_json::json!({"type": "text",
            "text": format!("Answer {t} for session {n}: keep the empty line as a paragraph break, and only end the block at a line that starts a new section; the tests cover both cases.")}),
        );
        part(
            &reply,
            3,
            serde_json::json!({"type": "step-finish", "reason": "stop"}),
        );
    }
    sid
}
