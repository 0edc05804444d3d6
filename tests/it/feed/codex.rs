//! Codex's conversations fed like every harness's: the real Codex writes a rollout (several
//! turns, a multi-line message, a shell call, resumed turns) that `mpt feed mine --harness codex`
//! files and search finds, each exchange once, a rerun nothing; a rollout of another shape skipped.

use std::path::Path;

use serde_json::json;

use super::cli::feed;
use super::miner::top_source;
use crate::support::codex::Codex;
use crate::support::{TestEnv, files_under, json as parse_json, stderr};

const MULTI: &str = "Why does the lexer drop a tab after a heredoc marker?\nthe second line names the marmalade tokenizer\nand a third line closes it";

/// A reply long enough to count as dialogue for the gate.
const LONG: &str = "this reply is long enough to count as real dialogue for the gate, about the quince orchard planning and the rows of trees that face the south wall";

#[test]
fn a_real_codex_rollout_is_mined_and_found_each_exchange_once_and_a_rerun_files_nothing() {
    let env = TestEnv::new();
    let script = json!({"turns": [
        [{"tool": "exec_command", "input": {"cmd": "echo quince"}, "text": "Checking the rows."},
         {"text": format!("The quince orchard layout for spring: {LONG}.")}],
        [{"text": format!("The lexer keeps the tab once the marker is read; {LONG}.")}],
        [{"text": format!("Third answer, about the cobalt walrus cache; {LONG}.")}]
    ]});
    let codex = Codex::new(&env, &script);
    let (id, events) = codex.exec(
        &env,
        "Plan the quince orchard layout for spring.",
        false,
        &[],
    );
    assert!(
        events
            .iter()
            .any(|e| e["item"]["type"] == "command_execution"),
        "the shell call ran: {events:?}"
    );
    assert_eq!(codex.exec(&env, MULTI, true, &[]).0, id, "a resume appends");
    codex.exec(&env, "And the cobalt walrus cache?", true, &[]);
    let rollouts: Vec<std::path::PathBuf> = files_under(&Codex::sessions(&env))
        .into_iter()
        .map(|(p, _)| p.into())
        .collect();
    assert_eq!(rollouts.len(), 1, "one rollout a thread: {rollouts:?}");
    assert!(
        rollouts[0]
            .to_string_lossy()
            .ends_with(&format!("-{id}.jsonl"))
    );
    // The shape the feed bench synthesises is this real rollout's (every record kind, every key).
    let real = mpt_feed::codex::line_shapes(&std::fs::read(&rollouts[0]).unwrap());
    crate::support::feed::assert_pinned_shape_holds(&real, "codex-0.169-shapes.json");
    // A rollout in a shape this mpt does not read (the older event records): skipped, said why.
    let older = rollouts[0]
        .with_file_name("rollout-2026-01-01T00-00-00-00000000-0000-4000-8000-000000000000.jsonl");
    std::fs::write(
        &older,
        concat!(
            "{\"type\":\"session_meta\",\"payload\":{\"id\":\"00000000-0000-4000-8000-000000000000\"}}\n",
            "{\"type\":\"event_msg\",\"payload\":{\"type\":\"user_message\",\"message\":\"hi\"}}\n",
            "{\"type\":\"event_msg\",\"payload\":{\"type\":\"agent_message\",\"message\":\"hello\"}}\n",
        ),
    )
    .unwrap();

    let palace = env.palace("cx");
    let pal = palace.to_str().unwrap();
    let mine = || {
        feed(
            &env,
            &[
                "--json",
                "feed",
                "mine",
                "--harness",
                "codex",
                "--reason",
                "shutdown",
            ],
            &[("MEMPALACE_PALACE_PATH", pal)],
        )
    };
    let o = mine();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let j = parse_json(&o);
    let p = &j["prepare"];
    assert_eq!(j["harness"], "codex", "{j}");
    assert_eq!(p["sessions_dir"], json!(Codex::sessions(&env)));
    assert_eq!(p["wing"], "wing_codex", "its own wing by default");
    assert_eq!(
        (p["sessions_seen"].as_u64(), p["exported"].as_u64()),
        (Some(2), Some(1)),
        "{p}"
    );
    assert_eq!(p["skipped"], json!({"unknown_shape": 1}), "{p}");
    assert!(
        p["warnings"].to_string().contains("older Codex"),
        "the skip says why: {p}"
    );
    let staged_dir = Path::new(p["mine_source"].as_str().unwrap());
    let files: Vec<_> = std::fs::read_dir(staged_dir).unwrap().flatten().collect();
    assert_eq!(files.len(), 1);
    assert_eq!(files[0].file_name().to_string_lossy(), format!("{id}.md"));
    let text = std::fs::read_to_string(files[0].path()).unwrap();
    assert_eq!(
        text.matches("\n> ").count() + usize::from(text.starts_with("> ")),
        3,
        "three user turns, Codex's injected context none of them: {text}"
    );
    assert!(
        text.contains("> Why does the lexer drop a tab after a heredoc marker?\n  the second line names the marmalade tokenizer\n  and a third line closes it\n"),
        "{text}"
    );
    assert!(text.contains("[exec_command] echo quince"), "{text}");
    assert_eq!(
        text.matches("Checking the rows.").count(),
        1,
        "each turn once: {text}"
    );
    assert!(!text.contains("environment_context"), "{text}");
    let m = &j["mine"];
    assert_eq!(m["wing"], "wing_codex");
    assert_eq!(
        m["summary"]["drawers_filed"], 3,
        "one drawer per exchange: {m}"
    );
    let name = files[0].file_name().to_string_lossy().into_owned();
    assert_eq!(top_source(&env, &palace, "marmalade tokenizer"), name);
    assert_eq!(top_source(&env, &palace, "cobalt walrus cache"), name);

    let again = parse_json(&mine());
    assert_eq!(again["prepare"]["exported"], 0, "{again}");
    assert_eq!(again["prepare"]["unchanged"], 1, "{again}");
    assert_eq!(again["mine"]["summary"]["drawers_filed"], 0, "{again}");
}
