//! The real harnesses from the npm registry (opencode, pi, the MCP Inspector CLI), installed once
//! under the testbed by tests/testbed/harnesses.sh at the versions tests/harnesses/ pins.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The install root (`<testbed>/harnesses`), provisioned on first use. npm unreachable is a
/// failure with the script's message, never a skip.
pub fn harnesses() -> &'static Path {
    static ROOT: OnceLock<PathBuf> = OnceLock::new();
    ROOT.get_or_init(|| {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/testbed/harnesses.sh");
        let o = std::process::Command::new("bash")
            .arg(&script)
            .output()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", script.display()));
        assert!(
            o.status.success(),
            "the npm harnesses are not installed ({}):\n{}",
            script.display(),
            String::from_utf8_lossy(&o.stderr)
        );
        PathBuf::from(String::from_utf8_lossy(&o.stdout).trim())
    })
}

/// The folder the Inspector CLI must run from: it reads `../package.json` relative to its working
/// folder, so it runs inside its own `build/`.
pub fn inspector_dir() -> PathBuf {
    harnesses().join("node_modules/@modelcontextprotocol/inspector-cli/build")
}
