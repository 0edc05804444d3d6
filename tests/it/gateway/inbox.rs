//! `PUT /inbox/<path>` (issue 59): a member with a mine prefix uploads a staged transcript to the
//! primary host through the gateway; a retry writes nothing twice; a path out of the prefix, an
//! oversized file, a device without a prefix, an observer and a cut-off upload are refused.

use std::io::{Read, Write};
use std::path::Path;

use serde_json::{Value, json};

use crate::support::gateway::{Reply, Setup, http};

fn put(s: &Setup, device: &str, rel: &str, body: &[u8]) -> Reply {
    let auth = format!("Bearer {}", s.token(device));
    http(
        s.gw.port,
        "PUT",
        &format!("/inbox/{rel}"),
        &[("host", b"127.0.0.1"), ("authorization", auth.as_bytes())],
        body,
    )
}

/// The gateway, the folder holding the inboxes (removed when dropped), lap's prefix.
fn setup() -> (Setup, tempfile::TempDir, std::path::PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().to_path_buf();
    let prefix = root.join("inbox/lap");
    let s = Setup::new(json!({
        "lap": {"role": "member", "mine": {"source_prefix": prefix, "max_file_bytes": 1000}},
        "desk": {"role": "member"},
        "obs": {"role": "observer", "mine": {"source_prefix": root.join("inbox/obs")}},
    }));
    (s, tmp, prefix)
}

#[test]
fn a_members_upload_lands_under_its_prefix_once() {
    let (s, _tmp, prefix) = setup();
    let r = put(&s, "lap", "pi/2026-12-06_a1.md", b"> hello\nworld\n");
    assert_eq!(r.status, 201, "{}", r.text());
    let doc = r.json();
    assert_eq!(doc["schema"], "mpt.gateway.inbox/v1");
    assert_eq!(doc["written"], true, "{doc}");
    let file = prefix.join("pi/2026-12-06_a1.md");
    assert_eq!(doc["path"], file.canonicalize().unwrap().to_str().unwrap());
    assert_eq!(std::fs::read(&file).unwrap(), b"> hello\nworld\n");
    // A retry: nothing written, said so.
    let again = put(&s, "lap", "pi/2026-12-06_a1.md", b"> hello\nworld\n");
    assert_eq!(again.status, 200, "{}", again.text());
    assert_eq!(again.json()["written"], false);
    // Audited with its size and hash, never its content.
    let text = std::fs::read_to_string(s.dir.join("audit.jsonl")).unwrap();
    let records: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|r: &Value| r["route"].as_str().unwrap_or("").starts_with("/inbox/"))
        .collect();
    let rules: Vec<&str> = records
        .iter()
        .map(|r| r["rule"].as_str().unwrap())
        .collect();
    assert_eq!(rules, ["inbox", "inbox:unchanged"], "{records:?}");
    assert_eq!(records[0]["sha256"], doc["sha256"]);
    assert_eq!(records[0]["bytes_in"], 14);
    assert!(!text.contains("hello"), "no content in the audit");
}

#[test]
fn out_of_the_prefix_too_big_no_prefix_an_observer_and_a_cut_off_upload_are_refused() {
    let (s, _tmp, prefix) = setup();
    for rel in [
        "../escape.md",
        "pi/../../x.md",
        ".hidden",
        "pi/%2e%2e/x.md",
        "a%20b",
    ] {
        let r = put(&s, "lap", rel, b"x");
        assert_eq!(r.status, 400, "{rel}: {}", r.text());
        assert_eq!(r.json()["error"], "inbox:bad_path", "{rel}");
    }
    let r = put(&s, "lap", "pi/big.md", &[b'x'; 1001]);
    assert_eq!(r.status, 413, "{}", r.text());
    let r = put(&s, "desk", "pi/a.md", b"x");
    assert_eq!(r.status, 403, "{}", r.text());
    assert_eq!(r.json()["error"], "inbox:no_mine_prefix");
    let r = put(&s, "obs", "pi/a.md", b"x");
    assert_eq!(r.status, 403, "{}", r.text());
    assert_eq!(r.json()["error"], "needs:member");
    // A symlink in the way, out of the prefix: refused, nothing written through it.
    let outside = prefix.parent().unwrap().join("elsewhere");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::create_dir_all(&prefix).unwrap();
    std::os::unix::fs::symlink(&outside, prefix.join("opencode")).unwrap();
    let r = put(&s, "lap", "opencode/a.md", b"x");
    assert_eq!(r.status, 409, "{}", r.text());
    assert!(std::fs::read_dir(&outside).unwrap().next().is_none());

    // Cut off: a declared length, half of it sent, the connection closed: no file, no temp.
    let mut tcp = std::net::TcpStream::connect(("127.0.0.1", s.gw.port)).unwrap();
    let head = format!(
        "PUT /inbox/pi/cut.md HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer {}\r\ncontent-length: 800\r\n\r\n",
        s.token("lap")
    );
    tcp.write_all(head.as_bytes()).unwrap();
    tcp.write_all(&[b'y'; 400]).unwrap();
    tcp.shutdown(std::net::Shutdown::Write).unwrap();
    let mut answer = Vec::new();
    let _ = tcp.read_to_end(&mut answer);
    assert!(!prefix.join("pi/cut.md").exists());
    assert!(no_dot_files(&prefix), "no partial temp left");
}

fn no_dot_files(dir: &Path) -> bool {
    std::fs::read_dir(dir).map_or(true, |entries| {
        entries.flatten().all(|e| {
            let name = e.file_name();
            !name.to_string_lossy().starts_with('.')
                && (!e.path().is_dir() || e.path().is_symlink() || no_dot_files(&e.path()))
        })
    })
}
