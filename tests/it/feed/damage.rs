//! Sessions as they are found on disk, damaged or doubled: a string Node cut mid-emoji (a lone
//! surrogate escape), a line that is not JSON in the middle of the branch, a `latest.jsonl` link.

use std::fs;
use std::path::Path;
use std::time::{Duration, SystemTime};

use super::cli::prepare;
use crate::support::feed::{contents, set_mtime};
use crate::support::{TestEnv, json, stderr};

const ID: &str = "99999999-0000-4000-8000-000000000009";

/// A v3 session of three exchanges (enough for the gate), its middle assistant reply given as the
/// raw JSON line `middle`. Written an hour old, so the quiet period has passed.
fn session(dir: &Path, id: &str, middle: &str) -> std::path::PathBuf {
    let line = |id: &str, parent: &str, role: &str, text: &str| {
        let content = if role == "user" {
            serde_json::json!(text)
        } else {
            serde_json::json!([{"type": "text", "text": text}])
        };
        let parent = (!parent.is_empty()).then_some(parent);
        serde_json::json!({"type": "message", "id": id, "parentId": parent, "message": {"role": role, "content": content}})
            .to_string()
    };
    let lines = [
        format!(
            r#"{{"type":"session","version":3,"id":"{id}","timestamp":"2026-05-12T08:00:00.000Z","cwd":"/w"}}"#
        ),
        line(
            "u1",
            "",
            "user",
            "The first question: why does the release build of the launcher crash on start?",
        ),
        line(
            "a1",
            "u1",
            "assistant",
            "FIRST-ANSWER: the launcher reads a config path that only exists in debug builds; the release build panics on the missing file.",
        ),
        line(
            "u2",
            "a1",
            "user",
            "And how should the launcher find its config in release mode instead of the debug path?",
        ),
        middle.to_string(),
        line(
            "u3",
            "a2",
            "user",
            "Good. Please write the fix and a test that covers the missing-file case as well.",
        ),
        line(
            "a3",
            "u3",
            "assistant",
            "Done: the launcher now resolves the config through the XDG base directories and a test covers a missing file.",
        ),
    ];
    let d = dir.join("--w--");
    fs::create_dir_all(&d).unwrap();
    let p = d.join(format!("2026-05-12T08-00-00-000Z_{id}.jsonl"));
    fs::write(&p, lines.join("\n") + "\n").unwrap();
    set_mtime(&p, SystemTime::now() - Duration::from_secs(3600));
    p
}

#[test]
fn a_string_cut_mid_emoji_keeps_the_branch_and_a_broken_line_is_said_out_loud() {
    let env = TestEnv::new();
    let s = env.path("sessions");
    // What Node's JSON.stringify writes for "…ready 🚀" cut after the emoji's first UTF-16 unit.
    let cut = r#"{"type":"message","id":"a2","parentId":"u2","message":{"role":"assistant","content":[{"type":"text","text":"SECOND-ANSWER: resolve it through the XDG base directories, ready \ud83d"}]}}"#;
    session(&s, ID, cut);
    let o = prepare(&env, &s, "settled", &["--json"], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let j = json(&o);
    assert_eq!(
        j["exported"], 1,
        "the session is not lost below the gate: {j}"
    );
    let staged = contents(Path::new(j["mine_source"].as_str().unwrap()));
    let text = String::from_utf8(staged[&format!("{ID}.md")].clone()).unwrap();
    assert!(
        text.contains("FIRST-ANSWER") && text.contains("ready \u{fffd}"),
        "everything before the cut line is exported, the lone surrogate replaced:\n{text}"
    );
    assert_eq!(j["lines_skipped"], 0, "{j}");

    // A line that is no JSON at all, mid-branch: the walk breaks there, and that is said.
    let env = TestEnv::new();
    let s = env.path("sessions");
    let file = session(
        &s,
        ID,
        r#"{"type":"message","id":"a2","parentId":"u2","message":{"ro"#,
    );
    let o = prepare(&env, &s, "settled", &["--json"], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let j = json(&o);
    assert_eq!(j["lines_skipped"], 1, "{j}");
    let warning = j["warnings"][0].as_str().unwrap_or_default();
    assert!(
        warning.contains(file.to_str().unwrap())
            && warning.contains("line 5")
            && warning.contains("branch breaks"),
        "{j}"
    );
    let err = stderr(&prepare(
        &env,
        &s,
        "manual",
        &["--out", env.path("o2").to_str().unwrap()],
        &[],
    ));
    assert!(
        err.contains("warning") && err.contains("line 5") && err.contains("branch breaks"),
        "the warning reaches stderr: {err}"
    );
}

#[test]
fn a_session_reached_through_a_symlink_is_exported_once() {
    let env = TestEnv::new();
    let s = env.path("sessions");
    let ok = r#"{"type":"message","id":"a2","parentId":"u2","message":{"role":"assistant","content":[{"type":"text","text":"SECOND-ANSWER: resolve it through the XDG base directories."}]}}"#;
    let file = session(&s, ID, ok);
    // pi-style conveniences: a `latest.jsonl` link beside it, and a link from another folder.
    std::os::unix::fs::symlink(
        file.file_name().unwrap(),
        file.with_file_name("latest.jsonl"),
    )
    .unwrap();
    fs::create_dir_all(s.join("--links--")).unwrap();
    std::os::unix::fs::symlink(&file, s.join("--links--/current.jsonl")).unwrap();
    let o = prepare(&env, &s, "settled", &["--json"], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let j = json(&o);
    assert_eq!(
        (j["sessions_seen"].as_u64(), j["exported"].as_u64()),
        (Some(1), Some(1)),
        "{j}"
    );
    let staged: Vec<String> = contents(Path::new(j["mine_source"].as_str().unwrap()))
        .into_keys()
        .collect();
    assert_eq!(
        staged,
        [format!("{ID}.md")],
        "one transcript for one real file"
    );
}
