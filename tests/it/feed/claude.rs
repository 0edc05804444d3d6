//! Claude Code's conversations fed like pi's and opencode's: the real Claude Code writes a session
//! (several turns, a multi-line message, a tool call, a resumed turn) that `mpt feed mine --harness
//! claude` files and search finds, each exchange once, a rerun nothing; a subagent's file skipped;
//! and a real session end whose hook (`mpt edge wire claude --hooks`) feeds the palace itself.

use std::path::Path;

use serde_json::json;

use super::cli::feed;
use super::miner::top_source;
use crate::support::claude::{Claude, projects};
use crate::support::{TestEnv, json as parse_json, stderr};

const MULTI: &str = "Why does the lexer drop a tab after a heredoc marker?\nthe second line names the marmalade tokenizer\nand a third line closes it";

/// A reply long enough to count as dialogue for the gate.
const LONG: &str = "this reply is long enough to count as real dialogue for the gate, about the quince orchard planning and the rows of trees that face the south wall";

#[test]
fn a_real_claude_code_session_is_mined_and_found_each_exchange_once_and_a_rerun_files_nothing() {
    let env = TestEnv::new();
    let script = json!({"turns": [
        [{"tool": "Bash", "input": {"command": "echo quince", "description": "Count the quince rows"},
          "text": "Checking the rows."},
         {"text": format!("The quince orchard layout for spring: {LONG}.")}],
        [{"text": format!("The lexer keeps the tab once the marker is read; {LONG}.")}],
        [{"text": format!("Third answer, about the cobalt walrus cache; {LONG}.")}]
    ]});
    let claude = Claude::new(&env, &script);
    let id = claude.prompt(&env, "Plan the quince orchard layout for spring.", None);
    assert_eq!(
        claude.prompt(&env, MULTI, Some(&id)),
        id,
        "a resume appends"
    );
    claude.prompt(&env, "And the cobalt walrus cache?", Some(&id));
    let transcripts = claude.transcripts(&env);
    assert!(transcripts.join(format!("{id}.jsonl")).is_file());
    // The shape the feed bench synthesises is this real transcript's (every line kind, every key).
    let real = mpt_feed::claude::line_shapes(
        &std::fs::read(transcripts.join(format!("{id}.jsonl"))).unwrap(),
    );
    crate::support::feed::assert_pinned_shape_holds(&real, "claude-2.1.328-shapes.json");
    // A subagent's transcript beside the session (where Claude Code 2.x keeps them).
    let sub = transcripts.join(&id).join("subagents");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::copy(
        transcripts.join(format!("{id}.jsonl")),
        sub.join("agent-a1.jsonl"),
    )
    .unwrap();

    let palace = env.palace("cc");
    let pal = palace.to_str().unwrap();
    let mine = || {
        feed(
            &env,
            &[
                "--json",
                "feed",
                "mine",
                "--harness",
                "claude",
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
    assert_eq!(j["harness"], "claude", "{j}");
    assert_eq!(
        p["sessions_dir"],
        json!(projects(&env)),
        "Claude Code's own projects folder"
    );
    assert_eq!(p["wing"], "wing_claude", "its own wing by default");
    assert_eq!(
        (p["sessions_seen"].as_u64(), p["exported"].as_u64()),
        (Some(2), Some(1)),
        "{p}"
    );
    assert_eq!(p["skipped"], json!({"subagent": 1}), "{p}");
    let staged_dir = Path::new(p["mine_source"].as_str().unwrap());
    let files: Vec<_> = std::fs::read_dir(staged_dir).unwrap().flatten().collect();
    assert_eq!(files.len(), 1);
    assert_eq!(files[0].file_name().to_string_lossy(), format!("{id}.md"));
    let text = std::fs::read_to_string(files[0].path()).unwrap();
    // Three user turns, each a `>` exchange; the multi-line message keeps its lines inside its own.
    assert_eq!(
        text.matches("\n> ").count() + usize::from(text.starts_with("> ")),
        3,
        "{text}"
    );
    assert!(
        text.contains("> Why does the lexer drop a tab after a heredoc marker?\n  the second line names the marmalade tokenizer\n  and a third line closes it\n"),
        "{text}"
    );
    assert!(
        text.contains("[Bash] echo quince"),
        "the tool call, shortened: {text}"
    );
    assert!(
        !text.contains("quince\n>"),
        "the tool's output is not the user's: {text}"
    );
    let m = &j["mine"];
    assert_eq!(m["wing"], "wing_claude");
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
    assert_eq!(
        again["prepare"]["bytes_read"], 0,
        "decided from the state: {again}"
    );
    assert_eq!(again["mine"]["summary"]["drawers_filed"], 0, "{again}");
}

/// The processes that carry `HOME=<home>` in their environment (a test's own), but `except`.
fn processes_of(home: &Path, except: &[u32]) -> Vec<u32> {
    let mark = format!("HOME={}\0", home.display());
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| !except.contains(pid) && *pid != std::process::id())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/environ"))
                .is_ok_and(|b| b.windows(mark.len()).any(|w| w == mark.as_bytes()))
        })
        .collect()
}

#[test]
fn a_real_session_end_runs_mpts_hook_and_the_conversation_reaches_the_palace_once() {
    let env = TestEnv::new();
    let palace = env.palace("cc");
    let pal = palace.to_str().unwrap();
    let state = env.path("state").display().to_string();
    let vars = [
        ("MEMPALACE_PALACE_PATH", pal),
        ("XDG_STATE_HOME", state.as_str()),
    ];
    let o = env.mpt(&["edge", "wire", "claude", "--hooks"], &vars);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let script = json!({"turns": [
        [{"text": format!("The saffron crocus beds want sharp drainage; {LONG}.")}],
        [{"text": format!("Lift the corms in June once the leaves yellow; {LONG}.")}],
        [{"text": format!("Store them dry in paper over the winter; {LONG}.")}]
    ]});
    let claude = Claude::new(&env, &script);
    // Three ends of one session: the first two too short for the gate (three turns), the last
    // fed whole.
    let ask = |prompt: &str, resume: Option<&str>| {
        let mut cmd = claude.command(&env);
        cmd.envs(vars)
            .args(["-p", prompt, "--output-format", "json"]);
        if let Some(id) = resume {
            cmd.args(["--resume", id]);
        }
        let o = cmd.output().unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
        serde_json::from_slice::<serde_json::Value>(&o.stdout).unwrap()["session_id"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let id = ask("Where do the saffron crocus beds go?", None);
    ask("And when are the corms lifted?", Some(&id));
    ask("How are they stored?", Some(&id));
    // Claude Code has exited; the hook's `mpt feed mine` goes on in the background until done.
    let server = claude.pid();
    let done = crate::support::wait_for(300.0, || processes_of(&env.home(), &[server]).is_empty());
    let left = processes_of(&env.home(), &[server]);
    for pid in &left {
        let _ = std::process::Command::new("kill")
            .arg(pid.to_string())
            .status();
    }
    assert!(done, "the hook's feed finished: {left:?}");
    assert_eq!(
        top_source(&env, &palace, "saffron crocus drainage"),
        format!("{id}.md")
    );
    // Filed once: the hook's run recorded the session, so a rerun files nothing.
    let o = feed(
        &env,
        &[
            "--json",
            "feed",
            "mine",
            "--harness",
            "claude",
            "--reason",
            "shutdown",
        ],
        &[("MEMPALACE_PALACE_PATH", pal)],
    );
    let again = parse_json(&o);
    assert_eq!(again["prepare"]["exported"], 0, "{again}");
    assert_eq!(again["prepare"]["unchanged"], 1, "{again}");
}
