//! What `mpt feed prepare` stages, mined by the REAL convo miner (`mempalace mine MINE_SOURCE
//! --mode convos`): one drawer per exchange, escapes holding, search hits, no-change and growth.

use std::fs;
use std::path::Path;

use serde_json::json;

use super::cli::{prepare, sessions_copy};
use crate::support::feed::*;
use crate::support::{TestEnv, stderr};

fn mine(env: &TestEnv, palace: &Path, src: &Path) -> String {
    let o = mempalace(
        env,
        &[
            "--palace",
            palace.to_str().unwrap(),
            "mine",
            src.to_str().unwrap(),
            "--mode",
            "convos",
            "--wing",
            "wing_conversations",
        ],
    );
    let log = format!("{}{}", String::from_utf8_lossy(&o.stdout), stderr(&o));
    assert!(o.status.success(), "mempalace mine failed:\n{log}");
    log
}

fn count(log: &str, label: &str) -> u64 {
    log.lines()
        .find_map(|l| l.trim().strip_prefix(label)?.trim().parse().ok())
        .unwrap_or_else(|| panic!("no '{label}' in the mine log:\n{log}"))
}

/// The source file (name) of the top search hit, from the real `mempalace search`.
pub(super) fn top_source(env: &TestEnv, palace: &Path, query: &str) -> String {
    let o = mempalace(
        env,
        &[
            "--palace",
            palace.to_str().unwrap(),
            "search",
            query,
            "--results",
            "1",
        ],
    );
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    out.split_whitespace()
        .skip_while(|w| *w != "Source:")
        .nth(1)
        .map(|s| s.rsplit('/').next().unwrap().to_string())
        .unwrap_or_else(|| panic!("no Source: in the search output:\n{out}{}", stderr(&o)))
}

/// The MINE_SOURCE of a successful `prepare --reason settled`.
fn staged_source(env: &TestEnv, s: &Path) -> std::path::PathBuf {
    let o = prepare(env, s, "settled", &[], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    mine_source(&o)
}

#[test]
fn the_real_convo_miner_files_what_prepare_stages() {
    let env = TestEnv::new();
    let s = sessions_copy(&env);
    let palace = env.palace("p");

    // 1. prepare, then mine: one drawer per exchange, as the miner's own chunker counts them.
    let src = staged_source(&env, &s);
    assert_eq!(contents(&src).len(), 6);
    let log = mine(&env, &palace, &src);
    assert_eq!(count(&log, "Drawers filed:"), 20, "{log}");
    let expected = inspect(&env, &palace, &["expected", src.to_str().unwrap()]);
    let summary = inspect(&env, &palace, &["summary"]);
    assert_eq!(summary["total"], 20);
    assert_eq!(summary["duplicates"], 0);
    for (file, v) in expected.as_object().unwrap() {
        assert_eq!(v[0], v[1], "{file}: chunker drawers == '> ' lines");
        assert_eq!(summary["per_file"][file], v[0], "{file}: drawers filed");
    }

    // 2. escaped lines stay inside the exchange they belong to.
    let d = inspect(&env, &palace, &["drawer", "\\> Note: this quote line"]);
    let d = d.as_array().unwrap();
    assert_eq!(d.len(), 1, "{d:?}");
    let text = d[0].as_str().unwrap();
    assert!(text.starts_with("> Please inspect the manifest"), "{text}");
    assert!(
        text.contains("It depends on `serde`") && text.contains("\\--- a/src/lib.rs"),
        "{text}"
    );
    let d = inspect(&env, &palace, &["drawer", "\\>>> This line starts"]);
    let text = d[0].as_str().unwrap();
    assert!(
        text.starts_with("> What does the `Config::load`")
            && text.contains("five dashes get escaped"),
        "{text}"
    );
    let demo = src.join(format!("{DEMO}.md"));
    let unescaped = env.path("unescaped.md");
    let raw: String = fs::read_to_string(&demo)
        .unwrap()
        .lines()
        .map(|l| {
            let t = l.trim_start();
            let lead = &l[..l.len() - t.len()];
            match t.strip_prefix('\\') {
                Some(r) if r.starts_with('>') || r.starts_with("---") => format!("{lead}{r}\n"),
                _ => format!("{l}\n"),
            }
        })
        .collect();
    fs::write(&unescaped, raw).unwrap();
    let esc = inspect(&env, &palace, &["chunks", demo.to_str().unwrap()]);
    let unesc = inspect(&env, &palace, &["chunks", unescaped.to_str().unwrap()]);
    assert!(
        unesc.as_u64() > esc.as_u64(),
        "control: unescaped, the same transcript splits into fake exchanges ({unesc} vs {esc})"
    );

    // 3. search finds a user-turn phrase, an assistant-turn phrase and non-ASCII text.
    let user = top_source(
        &env,
        &palace,
        "invalidate entries when the server sends Cache-Control no-store",
    );
    assert_eq!(user, format!("{BRANCH}.md"));
    let assistant = top_source(
        &env,
        &palace,
        "promoting the untouched replica and repointing the DSN",
    );
    assert_eq!(assistant, format!("{PARENT}.md"));
    assert_eq!(
        top_source(&env, &palace, "Schön, dich zu sehen"),
        "d703a1a9-1b7b-4fb1-b512-c9738b1fe617.md"
    );

    // 4. no change: prepare touches nothing, and the miner re-mines nothing.
    let before = listing(&src);
    let o = prepare(&env, &s, "settled", &["--json"], &[]);
    let j = crate::support::json(&o);
    assert_eq!(
        (
            j["exported"].as_u64(),
            j["unchanged"].as_u64(),
            j["bytes_read"].as_u64()
        ),
        (Some(0), Some(6), Some(0))
    );
    assert_eq!(listing(&src), before, "staged mtimes untouched");
    let log = mine(&env, &palace, &src);
    assert_eq!(
        (
            count(&log, "Files skipped (already filed):"),
            count(&log, "Drawers filed:")
        ),
        (6, 0),
        "{log}"
    );
    assert_eq!(inspect(&env, &palace, &["summary"])["total"], 20);

    // 5. a grown session is re-mined, alone, without duplicates or stale drawers.
    let f = walk_find(&s, BRANCH);
    let mut text = fs::read_to_string(&f).unwrap();
    text.push_str(r#"{"type":"message","id":"u6","parentId":"a5","timestamp":"2026-05-09T10:30:00.000Z","message":{"role":"user","content":"One more: should the response cache live per client instance or be global to the process?"}}"#);
    text.push('\n');
    text.push_str(r#"{"type":"message","id":"a6","parentId":"u6","timestamp":"2026-05-09T10:30:05.000Z","message":{"role":"assistant","content":[{"type":"text","text":"Per client instance, so tests and tenants stay isolated and eviction pressure from one tenant never hits another."}],"stopReason":"stop"}}"#);
    text.push('\n');
    fs::write(&f, text).unwrap();
    set_mtime(
        &f,
        std::time::SystemTime::now() - std::time::Duration::from_secs(600),
    );
    let j = crate::support::json(&prepare(&env, &s, "settled", &["--json"], &[]));
    assert_eq!(
        (j["exported"].as_u64(), j["unchanged"].as_u64()),
        (Some(1), Some(5))
    );
    let log = mine(&env, &palace, &src);
    let added: Vec<&str> = log
        .lines()
        .filter(|l| l.trim_start().starts_with("+ ["))
        .collect();
    assert_eq!(added.len(), 1, "only the grown file is re-mined: {added:?}");
    assert!(
        added[0].contains(&format!("{BRANCH}.md")) && added[0].trim_end().ends_with("+5"),
        "{added:?}"
    );
    let summary = inspect(&env, &palace, &["summary"]);
    assert_eq!(
        (
            summary["total"].as_u64(),
            summary["per_file"][format!("{BRANCH}.md")].as_u64()
        ),
        (Some(21), Some(5))
    );
    assert_eq!(summary["duplicates"], 0);
    assert_eq!(
        summary["files_with_mixed_mtimes"],
        serde_json::json!([]),
        "stale drawers purged"
    );
    assert_eq!(
        top_source(&env, &palace, "eviction pressure from one tenant"),
        format!("{BRANCH}.md")
    );
}

fn walk_find(dir: &Path, id: &str) -> std::path::PathBuf {
    fn find(dir: &Path, id: &str) -> Option<std::path::PathBuf> {
        for e in fs::read_dir(dir).ok()? {
            let p = e.ok()?.path();
            if p.is_dir() && !p.ends_with("subagents") {
                if let Some(f) = find(&p, id) {
                    return Some(f);
                }
            } else if p.to_string_lossy().ends_with(&format!("_{id}.jsonl")) {
                return Some(p);
            }
        }
        None
    }
    find(dir, id).unwrap_or_else(|| panic!("no session {id} under {}", dir.display()))
}

#[test]
fn a_multi_line_user_message_keeps_its_lines_inside_its_own_exchange() {
    let env = TestEnv::new();
    let s = env.path("sessions");
    let pasted = "Why does this parser reject an empty file?\n\nfn parse(src: &str) -> Result<Config> {\n    let first = src.lines().next().ok_or(Error::Empty)?;\n> the line quoted from the bug report\n---\n    Ok(Config::from(first))\n}";
    let turns = [
        ("user", pasted),
        (
            "assistant",
            "EMPTY-ANSWER: `lines().next()` is None for an empty file, so `ok_or` returns Error::Empty before any default applies.",
        ),
        (
            "user",
            "Should an empty file mean the defaults instead of an error for every caller?",
        ),
        (
            "assistant",
            "Yes for the CLI, which treats a missing or empty file alike; the library keeps the error so embedders can decide.",
        ),
        (
            "user",
            "Then change the CLI to fall back to the defaults and leave the library as it is.",
        ),
        (
            "assistant",
            "Done: the CLI maps Error::Empty to Config::default() and a test covers an empty file.",
        ),
    ];
    let mut lines = vec![r#"{"type":"session","version":3,"id":"88888888-0000-4000-8000-000000000008","timestamp":"2026-05-12T09:00:00.000Z","cwd":"/w"}"#.to_string()];
    for (i, (role, text)) in turns.iter().enumerate() {
        let content = if *role == "user" {
            json!(text)
        } else {
            json!([{"type": "text", "text": text}])
        };
        let parent = (i > 0).then(|| format!("e{}", i - 1));
        lines.push(json!({"type": "message", "id": format!("e{i}"), "parentId": parent, "message": {"role": role, "content": content}}).to_string());
    }
    let d = s.join("--w--");
    fs::create_dir_all(&d).unwrap();
    let f = d.join("2026-05-12T09-00-00-000Z_88888888-0000-4000-8000-000000000008.jsonl");
    fs::write(&f, lines.join("\n") + "\n").unwrap();
    set_mtime(
        &f,
        std::time::SystemTime::now() - std::time::Duration::from_secs(3600),
    );

    let src = staged_source(&env, &s);
    let palace = env.palace("p");
    let log = mine(&env, &palace, &src);
    assert_eq!(
        count(&log, "Drawers filed:"),
        3,
        "one drawer per exchange: {log}"
    );
    let d = inspect(&env, &palace, &["drawer", "let first = src.lines()"]);
    let d = d.as_array().unwrap();
    assert_eq!(d.len(), 1, "{d:?}");
    let text = d[0].as_str().unwrap();
    assert!(
        text.starts_with("> Why does this parser reject an empty file?\n  fn parse(src: &str) -> Result<Config> {\n      let first = src.lines().next().ok_or(Error::Empty)?;\n  \\> the line quoted from the bug report\n  \\---\n      Ok(Config::from(first))\n  }\nEMPTY-ANSWER"),
        "the user's lines stay in their own turn, before the reply:\n{text}"
    );
}
