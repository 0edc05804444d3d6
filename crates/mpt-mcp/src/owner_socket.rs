//! Where a palace's edge owner listens (its socket in a short private folder, its lock, log and
//! linger files in the edge's state folder), whether it answers, and how a client greets it.

// Below the edge so that the one route to a palace (`route`) can find its one writer; the owner
// itself (the edge's `owner`) serves here and re-exports these.

use std::path::Path;
use std::time::Duration;

use super::McpClient;
use mpt_base::config::Env;
pub use mpt_base::paths::edge::OwnerPaths;
pub use mpt_base::paths::runtime::{euid, is_private, socket_path};

/// The pid of the owner holding the owner lock.
pub fn owner_pid(paths: &OwnerPaths) -> Option<u32> {
    holder_pid(&paths.lock)
}

/// The pid of an owner lingering to flush, while it holds the linger lock.
pub fn lingering_pid(paths: &OwnerPaths) -> Option<u32> {
    holder_pid(&paths.linger)
}

fn holder_pid(path: &Path) -> Option<u32> {
    mpt_base::lock::holder(path).ok()??.pid
}

/// The palace's owner when one answers on its socket (`None`: no edge runs for it).
pub fn live(env: &Env, home: &Path, palace: &Path) -> Option<OwnerPaths> {
    let paths = OwnerPaths::new(env, home, palace);
    paths.socket.parent().filter(|d| is_private(d))?;
    std::os::unix::net::UnixStream::connect(&paths.socket)
        .ok()
        .map(|_| paths)
}

/// What a shim says first on its connection: the harness it serves, and its routing configuration
/// `I` (the edge's `Identity`; none from a tool client such as `feed mine`, which takes the
/// owner's).
#[derive(Debug, serde::Serialize, serde::Deserialize)]
#[serde(bound(
    serialize = "I: serde::Serialize",
    deserialize = "I: serde::Deserialize<'de>"
))]
pub struct Hello<I = serde_json::Value> {
    pub harness: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub identity: Option<I>,
    /// Served by the child alone: reads see this palace only, and nothing it writes is
    /// replicated (only mpt's own readers ask for it).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub local_reads: bool,
}

impl<I: serde::Serialize> Hello<I> {
    /// The line a connection opens with (without its newline).
    pub fn line(&self) -> String {
        serde_json::json!({ "mpt_edge_hello": self }).to_string()
    }
}

/// A tool client of the owner listening on `socket`, greeting it as `harness` (its stamping
/// applies to what it sends); `local_reads`: answered by this palace alone, never merged.
pub fn greet(
    socket: &Path,
    harness: &str,
    local_reads: bool,
    timeout: Option<Duration>,
) -> McpClient {
    let hello: Hello = Hello {
        harness: harness.to_string(),
        identity: None,
        local_reads,
    };
    McpClient::Owner(super::unix::UnixClient::new(
        socket.to_path_buf(),
        Some(hello.line()),
        timeout,
    ))
}

/// A client that talks to the owner as `harness` (its stamping applies to what it sends).
pub fn client(paths: &OwnerPaths, harness: &str, timeout: Option<Duration>) -> McpClient {
    greet(&paths.socket, harness, false, timeout)
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    #[test]
    fn the_fallback_socket_path_is_short() {
        let p = socket_path(&Env::default(), "0123456789abcdef.sock");
        assert!(p.as_os_str().len() < 108, "{}", p.display());
    }

    #[test]
    fn the_socket_folder_is_the_snapshots_runtime_dir() {
        let runtime = tempfile::tempdir().unwrap();
        std::fs::set_permissions(runtime.path(), PermissionsExt::from_mode(0o700)).unwrap();
        let env = Env::from_pairs([("XDG_RUNTIME_DIR", runtime.path().to_str().unwrap())]);
        let home = tempfile::tempdir().unwrap();
        let paths = OwnerPaths::new(&env, home.path(), &home.path().join("palace"));
        assert_eq!(
            paths.socket.parent(),
            Some(runtime.path().join("mpt").as_path())
        );
        let without = OwnerPaths::new(&Env::default(), home.path(), &home.path().join("palace"));
        assert_eq!(
            without.socket.parent(),
            Some(Path::new(&format!("/tmp/mpt-{}", euid()))),
            "no runtime dir in the snapshot: the fallback, whatever the process's"
        );
    }

    #[test]
    fn a_tool_clients_hello_names_only_what_it_sets() {
        let hello: Hello = Hello {
            harness: "doctor".into(),
            identity: None,
            local_reads: false,
        };
        assert_eq!(hello.line(), r#"{"mpt_edge_hello":{"harness":"doctor"}}"#);
    }
}
