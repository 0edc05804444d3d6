//! The real opencode (from npm) on a test's home, offline, against the scripted model; and opencode
//! databases built from the schema the real one writes (tests/fixtures/feed/opencode-1.18.33.sql).

use std::path::{Path, PathBuf};
use std::process::Output;

use rusqlite::Connection;

use super::npm::{FakeModel, harnesses};
use super::{TestEnv, stderr, stdout};

/// The switches that keep opencode on this machine (no update check, no models.dev fetch, no
/// default plugins, LSP downloads, sharing, Claude Code files or external skills).
pub const OFFLINE: [&str; 7] = [
    "OPENCODE_DISABLE_AUTOUPDATE",
    "OPENCODE_DISABLE_MODELS_FETCH",
    "OPENCODE_DISABLE_DEFAULT_PLUGINS",
    "OPENCODE_DISABLE_LSP_DOWNLOAD",
    "OPENCODE_DISABLE_SHARE",
    "OPENCODE_DISABLE_CLAUDE_CODE",
    "OPENCODE_DISABLE_EXTERNAL_SKILLS",
];

/// The schema (tables, indexes, migration journal) opencode 1.18.33 creates.
pub const SCHEMA_SQL: &str = include_str!("../../fixtures/feed/opencode-1.18.33.sql");

/// opencode set up in a test's home with only the scripted model as its provider.
pub struct Opencode {
    /// Serves opencode's requests until the value is dropped.
    _model: FakeModel,
    pub project: PathBuf,
}

impl Opencode {
    pub fn new(env: &TestEnv) -> Opencode {
        std::fs::create_dir_all(env.path("model")).unwrap();
        let model = FakeModel::start(&env.path("model"));
        let config = env.home().join(".config/opencode/opencode.jsonc");
        std::fs::create_dir_all(config.parent().unwrap()).unwrap();
        std::fs::write(
            &config,
            format!(
                r#"{{"$schema": "https://opencode.ai/config.json", "model": "fake/m",
  "provider": {{"fake": {{"npm": "@ai-sdk/openai-compatible", "name": "Fake",
    "options": {{"baseURL": "{}", "apiKey": "dummy"}},
    "models": {{"m": {{"name": "m", "tool_call": true}}}}}}}}}}"#,
                model.base_url()
            ),
        )
        .unwrap();
        let project = env.path("project");
        std::fs::create_dir_all(&project).unwrap();
        Opencode {
            _model: model,
            project,
        }
    }

    /// `opencode <args>` in the project folder, offline, with the test's private env; it must
    /// succeed.
    pub fn run(&self, env: &TestEnv, args: &[&str]) -> Output {
        let o = command(env, &self.project).args(args).output().unwrap();
        assert!(
            o.status.success(),
            "opencode {args:?}: {}{}",
            stdout(&o),
            stderr(&o)
        );
        o
    }

    /// The database opencode writes in this home (the npm release is the `latest` channel).
    pub fn db(env: &TestEnv) -> PathBuf {
        env.home().join(".local/share/opencode/opencode.db")
    }
}

/// The `opencode` command in `project`, env cleared but for the test's own and the offline switches.
pub fn command(env: &TestEnv, project: &Path) -> std::process::Command {
    let mut cmd = env.command(harnesses().join("node_modules/.bin/opencode"));
    cmd.current_dir(project);
    for k in OFFLINE {
        cmd.env(k, "1");
    }
    cmd
}

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
