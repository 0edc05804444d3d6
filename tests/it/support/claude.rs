//! The real Claude Code (npm `@anthropic-ai/claude-code`, a native binary) on a test's home, in
//! `-p` mode against the scripted Anthropic Messages API (tests/fixtures/fake_anthropic.py).

use std::path::PathBuf;
use std::process::Output;

use serde_json::Value;

use super::npm::harnesses;
use super::{TestEnv, spawn_fixture_server, stderr, stdout};

/// The switches that keep Claude Code on loopback: no telemetry, update check or preconnect
/// (HARNESSES-OFFLINE.md: with them it looks up no name and sends one request a model call).
const OFFLINE: [&str; 4] = [
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC",
    "DISABLE_AUTOUPDATER",
    "DISABLE_TELEMETRY",
    "DISABLE_ERROR_REPORTING",
];

/// Claude Code in a test's home, its model the scripted server, stopped by pid on drop.
pub struct Claude {
    server: std::process::Child,
    port: u16,
    pub project: PathBuf,
}

impl Claude {
    /// `script` is fake_anthropic.py's `{"turns": [[step, …], …]}`: turn n answers the n-th prompt
    /// of the conversation (a resumed session counts its earlier prompts).
    pub fn new(env: &TestEnv, script: &Value) -> Claude {
        let dir = env.path("anthropic");
        std::fs::create_dir_all(&dir).unwrap();
        let script_file = dir.join("script.json");
        std::fs::write(&script_file, script.to_string()).unwrap();
        let log = dir.join("requests.jsonl");
        let (server, port) = spawn_fixture_server(
            "fake_anthropic.py",
            &["0".as_ref(), log.as_os_str(), script_file.as_os_str()],
        );
        let project = env.path("work");
        std::fs::create_dir_all(&project).unwrap();
        Claude {
            server,
            port,
            project,
        }
    }

    /// `claude <args>` in the project folder, offline, its model the scripted server.
    pub fn command(&self, env: &TestEnv) -> std::process::Command {
        let mut cmd = env.command(harnesses().join("node_modules/.bin/claude"));
        cmd.current_dir(&self.project)
            .env(
                "ANTHROPIC_BASE_URL",
                format!("http://127.0.0.1:{}", self.port),
            )
            .env("ANTHROPIC_API_KEY", "sk-ant-fake-key")
            .stdin(std::process::Stdio::null());
        for k in OFFLINE {
            cmd.env(k, "1");
        }
        cmd
    }

    /// `claude -p PROMPT --output-format json` with `more` (resuming `resume` when given); it
    /// must succeed. Returns its result document.
    pub fn ask(&self, env: &TestEnv, prompt: &str, resume: Option<&str>, more: &[&str]) -> Value {
        let mut cmd = self.command(env);
        cmd.args(["-p", prompt, "--output-format", "json"])
            .args(more);
        if let Some(id) = resume {
            cmd.args(["--resume", id]);
        }
        let o: Output = cmd.output().unwrap();
        assert!(
            o.status.success(),
            "claude -p: {}{}",
            stdout(&o),
            stderr(&o)
        );
        let v: Value = serde_json::from_slice(&o.stdout)
            .unwrap_or_else(|e| panic!("claude -p printed no JSON ({e}): {}", stdout(&o)));
        assert_eq!(v["is_error"], false, "{v}");
        v
    }

    /// [`Claude::ask`] with Bash allowed; the session id it answered for.
    pub fn prompt(&self, env: &TestEnv, prompt: &str, resume: Option<&str>) -> String {
        let v = self.ask(env, prompt, resume, &["--allowedTools", "Bash"]);
        v["session_id"].as_str().unwrap().to_string()
    }

    /// The scripted server's pid.
    pub fn pid(&self) -> u32 {
        self.server.id()
    }

    /// Every request the scripted server received, with the reply it chose (`reply`).
    pub fn requests(&self, env: &TestEnv) -> Vec<Value> {
        std::fs::read_to_string(env.path("anthropic/requests.jsonl"))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }

    /// Where Claude Code keeps this project's transcripts: the folder's path with every character
    /// that is not a letter or digit made `-`.
    pub fn transcripts(&self, env: &TestEnv) -> PathBuf {
        let slug: String = self
            .project
            .to_string_lossy()
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        projects(env).join(slug)
    }
}

/// Claude Code's projects folder in the test's home.
pub fn projects(env: &TestEnv) -> PathBuf {
    env.home().join(".claude/projects")
}

impl Drop for Claude {
    fn drop(&mut self) {
        let _ = self.server.kill();
        let _ = self.server.wait();
    }
}
