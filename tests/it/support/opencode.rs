//! The real opencode (from npm) on a test's home, offline, against the scripted model; and opencode
//! databases built from the schema the real one writes (tests/fixtures/feed/opencode-1.18.33.sql).

use std::path::{Path, PathBuf};
use std::process::Output;

use super::npm::{FakeModel, harnesses};
pub use super::opencode_db::{add_session, schema_db};
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
