//! The real harnesses from the npm registry (opencode, pi, the MCP Inspector CLI), installed once
//! under the testbed by tests/testbed/harnesses.sh at the versions tests/harnesses/ pins.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The install root (`<testbed>/harnesses`), provisioned on first use. npm unreachable is a
/// failure with the script's message, never a skip.
pub fn harnesses() -> &'static Path {
    static ROOT: OnceLock<PathBuf> = OnceLock::new();
    ROOT.get_or_init(|| super::testbed::installed("harnesses.sh", &[], "the npm harnesses"))
}

/// The folder the Inspector CLI must run from: it reads `../package.json` relative to its working
/// folder, so it runs inside its own `build/`.
pub fn inspector_dir() -> PathBuf {
    harnesses().join("node_modules/@modelcontextprotocol/inspector-cli/build")
}

/// The scripted OpenAI-compatible model (tests/fixtures/fake_model.py) on loopback, stopped by
/// pid on drop; every request it received is in `log`, one JSON document per line.
pub struct FakeModel {
    child: std::process::Child,
    pub port: u16,
    pub log: PathBuf,
}

impl FakeModel {
    pub fn start(scratch: &Path) -> FakeModel {
        let log = scratch.join("model-requests.jsonl");
        let (child, port) = super::spawn_fixture_server("fake_model.py", &[log.as_os_str()]);
        FakeModel { child, port, log }
    }

    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }

    /// The requests received so far.
    pub fn requests(&self) -> Vec<serde_json::Value> {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }
}

impl Drop for FakeModel {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
