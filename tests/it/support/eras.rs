//! The clients of both MCP eras the protocol tests drive: the MCP Python SDK 2.x's own client
//! (tests/fixtures/sdk_client.py, its venv by tests/testbed/mcp_sdk.sh) and the Inspector's v2 CLI
//! (`--protocol-era`, on the Node.js 22 tests/testbed/harnesses.sh modern installs).

use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::OnceLock;

use serde_json::Value;

use super::{TestEnv, fixture, stderr, stdout};

/// An MCP server on the SDK (tests/fixtures/sdk_server.py) on loopback, stopped by pid on drop:
/// both eras, or (`modern_only`) one that refuses the handshake with -32022; each request it got
/// is a line in `log`.
pub struct SdkServer {
    child: std::process::Child,
    pub url: String,
    log: PathBuf,
}

impl SdkServer {
    pub fn start(env: &TestEnv, modern_only: bool) -> SdkServer {
        let log = env.path("sdk-server.jsonl");
        let mut args = vec![log.as_os_str()];
        if modern_only {
            args.push(std::ffi::OsStr::new("--modern-only"));
        }
        let (child, port) = super::spawn_fixture_server_on(sdk_python(), "sdk_server.py", &args);
        SdkServer {
            child,
            url: format!("http://127.0.0.1:{port}/mcp"),
            log,
        }
    }

    /// The requests it received, in order.
    pub fn requests(&self) -> Vec<Value> {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }
}

impl Drop for SdkServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The SDK venv's python.
pub fn sdk_python() -> &'static Path {
    static PY: OnceLock<PathBuf> = OnceLock::new();
    PY.get_or_init(|| super::testbed::installed("mcp_sdk.sh", &[], "the MCP Python SDK 2.x"))
}

/// The Inspector v2 install's `node_modules` (its own Node.js 22 in `.bin`).
fn modern_modules() -> &'static Path {
    static ROOT: OnceLock<PathBuf> = OnceLock::new();
    ROOT.get_or_init(|| {
        super::testbed::installed("harnesses.sh", &["modern"], "the MCP Inspector v2")
            .join("node_modules")
    })
}

/// The SDK client in `mode` (`legacy`, `auto`, `2026-07-28`) running `plan` against `target`
/// (`["stdio", program, args…]` or `["http", url]`, the bearer in its environment): its report.
pub fn sdk(
    env: &TestEnv,
    mode: &str,
    plan: &Value,
    target: &[&str],
    bearer: Option<&str>,
) -> Value {
    let mut cmd = env.command(sdk_python());
    cmd.arg(fixture("sdk_client.py"))
        .arg(mode)
        .arg(plan.to_string())
        .arg("--")
        .args(target)
        .env("MPT_EDGE_GRACE_MS", "400");
    if let Some(b) = bearer {
        cmd.env("MPT_TEST_BEARER", b);
    }
    let o = cmd.output().unwrap();
    assert!(
        o.status.success(),
        "the SDK client ({mode}) against {target:?}: {}{}",
        stdout(&o),
        stderr(&o)
    );
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", stdout(&o)))
}

/// `mcp-inspector --cli --protocol-era <era> <server…> <method…>`, whatever its exit, on the
/// Node.js its install brought (first on PATH, so the edge it spawns sees the test's MemPalace).
pub fn inspector(env: &TestEnv, era: &str, server: &[&str], method: &[&str]) -> Output {
    let modules = modern_modules();
    let mut cmd = env.command(modules.join(".bin/node"));
    cmd.arg(modules.join("@modelcontextprotocol/inspector/clients/launcher/build/index.js"))
        .args(["--cli", "--protocol-era", era])
        .args(server)
        .args(method)
        .env("MPT_EDGE_GRACE_MS", "400");
    let path = env
        .mempalace_env()
        .into_iter()
        .find(|(k, _)| k == "PATH")
        .map(|(_, v)| v)
        .unwrap_or_default();
    cmd.env("PATH", format!("{}:{path}", modules.join(".bin").display()));
    cmd.output().unwrap()
}
