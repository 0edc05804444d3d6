//! The real Codex CLI (npm `@openai/codex`, a native binary) on a test's home, in `codex exec`
//! mode against the scripted Responses API (tests/fixtures/fake_openai_responses.py).

use std::path::PathBuf;
use std::process::Output;

use serde_json::Value;

use super::npm::harnesses;
use super::{TestEnv, spawn_fixture_server, stderr, stdout};

/// Codex in a test's home, its model the scripted server, stopped by pid on drop.
pub struct Codex {
    server: std::process::Child,
    pub project: PathBuf,
}

/// The settings that keep Codex on loopback (HARNESSES-OFFLINE.md): no update check, analytics or
/// plugins; a model slug outside its catalog, so MCP tools are offered in full; no retries.
fn offline_config(port: u16) -> String {
    format!(
        r#"model = "fake-model"
model_provider = "fake"
check_for_update_on_startup = false

[analytics]
enabled = false

[features]
plugins = false

[model_providers.fake]
name = "Fake"
base_url = "http://127.0.0.1:{port}/v1"
wire_api = "responses"
env_key = "FAKE_API_KEY"
request_max_retries = 0
stream_max_retries = 0
"#
    )
}

impl Codex {
    /// `script` is fake_openai_responses.py's `{"turns": [[step, …], …]}`: turn n answers the
    /// n-th prompt of the thread (a resumed thread counts its earlier prompts). Writes Codex's
    /// `config.toml` with the scripted provider (a test appends its MCP tables after).
    pub fn new(env: &TestEnv, script: &Value) -> Codex {
        let dir = env.path("responses");
        std::fs::create_dir_all(&dir).unwrap();
        let script_file = dir.join("script.json");
        std::fs::write(&script_file, script.to_string()).unwrap();
        let log = dir.join("requests.jsonl");
        let (server, port) = spawn_fixture_server(
            "fake_openai_responses.py",
            &["0".as_ref(), log.as_os_str(), script_file.as_os_str()],
        );
        let config = Codex::config_file(env);
        std::fs::create_dir_all(config.parent().unwrap()).unwrap();
        std::fs::write(&config, offline_config(port)).unwrap();
        let project = env.path("work");
        std::fs::create_dir_all(&project).unwrap();
        Codex { server, project }
    }

    /// `~/.codex/config.toml`.
    pub fn config_file(env: &TestEnv) -> PathBuf {
        env.home().join(".codex/config.toml")
    }

    /// `codex <args>` in the project folder, offline, its model the scripted server.
    pub fn command(&self, env: &TestEnv) -> std::process::Command {
        let mut cmd = env.command(harnesses().join("node_modules/.bin/codex"));
        cmd.current_dir(&self.project)
            .env("FAKE_API_KEY", "sk-fake")
            .stdin(std::process::Stdio::null());
        cmd
    }

    /// `codex exec PROMPT --json` with `vars` in its environment (resuming the last thread with
    /// `resume`), tools allowed to run unattended; it must succeed. Returns the thread id and its
    /// `--json` events.
    pub fn exec(
        &self,
        env: &TestEnv,
        prompt: &str,
        resume: bool,
        vars: &[(String, String)],
    ) -> (String, Vec<Value>) {
        let mut cmd = self.command(env);
        cmd.envs(vars.iter().cloned()).arg("exec");
        if resume {
            cmd.args(["resume", "--last"]);
        }
        cmd.args([
            "--skip-git-repo-check",
            "--json",
            "--dangerously-bypass-approvals-and-sandbox",
        ])
        .arg(prompt);
        let o: Output = cmd.output().unwrap();
        assert!(
            o.status.success(),
            "codex exec: {}{}",
            stdout(&o),
            stderr(&o)
        );
        let events: Vec<Value> = stdout(&o)
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect();
        let id = events
            .iter()
            .find(|e| e["type"] == "thread.started")
            .and_then(|e| e["thread_id"].as_str())
            .unwrap_or_else(|| panic!("no thread.started: {}", stdout(&o)))
            .to_string();
        (id, events)
    }

    /// Codex's sessions folder in the test's home.
    pub fn sessions(env: &TestEnv) -> PathBuf {
        env.home().join(".codex/sessions")
    }
}

impl Drop for Codex {
    fn drop(&mut self) {
        let _ = self.server.kill();
        let _ = self.server.wait();
    }
}
