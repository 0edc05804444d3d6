//! The real pi (from npm) writing its own sessions, driven by a scripted loopback model: several
//! turns, a multi-line user message, replies with `>` and `---` lines, a tool call; then
//! `mpt feed mine` files them into a real palace, each phrase found in its own exchange, and a
//! re-run files nothing.

use std::process::Output;

use serde_json::{Value, json};

use crate::support::npm::{FakeModel, harnesses};
use crate::support::{TestEnv, json as parse_json, stderr, stdout};

/// pi's provider config: the fake model as an OpenAI-compatible provider, selected by default.
pub(crate) fn configure_pi(env: &TestEnv, model: &FakeModel) {
    let agent = env.home().join(".pi/agent");
    std::fs::create_dir_all(&agent).unwrap();
    let models = json!({"providers": {"fake": {
        "baseUrl": model.base_url(), "api": "openai-completions", "apiKey": "dummy",
        "compat": {"supportsDeveloperRole": false, "supportsReasoningEffort": false},
        "models": [{"id": "m", "name": "m"}]}}});
    std::fs::write(agent.join("models.json"), models.to_string()).unwrap();
    let settings = json!({"defaultProvider": "fake", "defaultModel": "m"});
    std::fs::write(agent.join("settings.json"), settings.to_string()).unwrap();
}

/// One `pi -p` turn in the project folder (`-c`: continue the last session).
pub(crate) fn pi(env: &TestEnv, continue_last: bool, prompt: &str) -> Output {
    let mut cmd = std::process::Command::new(harnesses().join("node_modules/.bin/pi"));
    cmd.env_clear()
        .current_dir(env.path("project"))
        .env("HOME", env.home())
        .env("PATH", "/usr/bin:/bin")
        .env("LANG", "C.UTF-8")
        .env("PI_OFFLINE", "1")
        .arg("--no-extensions");
    if continue_last {
        cmd.arg("-c");
    }
    let o = cmd.arg("-p").arg(prompt).output().unwrap();
    assert!(o.status.success(), "pi: {}{}", stdout(&o), stderr(&o));
    o
}

fn mine(env: &TestEnv, palace: &std::path::Path) -> Value {
    let state = env.path("state").display().to_string();
    let o = env.mpt(
        &["--json", "feed", "mine", "--reason", "shutdown"],
        &[
            ("XDG_STATE_HOME", state.as_str()),
            ("MEMPALACE_PALACE_PATH", palace.to_str().unwrap()),
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    parse_json(&o)
}

/// The text of the best search hit for `phrase` in the palace.
fn best_hit(env: &TestEnv, palace: &std::path::Path, phrase: &str) -> String {
    let found = env.call_local(
        palace,
        "mempalace_search",
        &json!({"query": phrase, "limit": 1}).to_string(),
    );
    found["results"][0].to_string()
}

#[test]
fn sessions_pi_writes_itself_are_mined_whole_and_once() {
    let env = TestEnv::new();
    let palace = env.palace("local");
    let model = FakeModel::start(env.dir.path());
    configure_pi(&env, &model);
    std::fs::create_dir_all(env.path("project")).unwrap();
    std::fs::write(
        env.path("project/notes.txt"),
        "the lighthouse keeper logs the tide tables every dawn\n",
    )
    .unwrap();

    // Turn 1: a multi-line user message; a reply with a `>` line and a `---` rule.
    let first = pi(
        &env,
        false,
        "We are planning the aurora migration for the billing cluster.\n\
         It moves in two waves, the ledger service first.\n\
         REPLY:The aurora migration plan is sound for the ledger wave.\n\
         > quoted caution: the ledger replicas lag under heavy writes\n\
         ---\n\
         After the rule: schedule the second wave once the replicas catch up with the primary.",
    );
    assert!(
        stdout(&first).contains("After the rule"),
        "{}",
        stdout(&first)
    );
    // Turn 2: the model calls pi's own read tool; pi runs it and the model answers with the result.
    let second = pi(&env, true, r#"TOOL:read {"path": "notes.txt"}"#);
    assert!(
        stdout(&second).contains("lighthouse keeper"),
        "{}",
        stdout(&second)
    );
    // Turn 3: plain dialogue, long enough for the feed's gates.
    pi(
        &env,
        true,
        "Remember that the saffron dashboards belong to the observability team.\n\
         REPLY:Noted: the saffron dashboards are owned by observability, and their alerts page the on-call engineer directly.",
    );
    assert!(
        model.requests().iter().any(|r| r["messages"]
            .as_array()
            .is_some_and(|m| m.iter().any(|m| m["role"] == "tool"))),
        "the tool's result went back to the model"
    );

    // pi's own file: one session, header version 3, the tool call and its result recorded.
    let sessions = env.home().join(".pi/agent/sessions");
    let files: Vec<_> = walk(&sessions);
    assert_eq!(files.len(), 1, "{files:?}");
    let text = std::fs::read_to_string(&files[0]).unwrap();
    let header: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(
        (header["type"].as_str(), header["version"].as_u64()),
        (Some("session"), Some(3))
    );
    assert!(
        text.contains("\"toolResult\"") || text.contains("\"tool_result\""),
        "{text}"
    );

    let first_mine = mine(&env, &palace);
    assert_eq!(
        first_mine["mine"]["payload"]["success"], true,
        "{first_mine}"
    );
    assert!(
        first_mine["mine"]["summary"]["drawers_filed"]
            .as_u64()
            .unwrap()
            >= 1,
        "{first_mine}"
    );
    // Each phrase in its own exchange: the user's words beside the reply they got, and not
    // another exchange's.
    let turn1 = ("aurora", "saffron");
    let turn3 = ("saffron", "aurora");
    for (phrase, beside, (_, elsewhere)) in [
        (
            "aurora migration for the billing cluster",
            "ledger replicas lag",
            turn1,
        ),
        (
            "ledger replicas lag under heavy writes",
            "aurora migration",
            turn1,
        ),
        (
            "second wave once the replicas catch up",
            "ledger service first",
            turn1,
        ),
        (
            "saffron dashboards belong to the observability team",
            "page the on-call engineer",
            turn3,
        ),
        (
            "alerts page the on-call engineer",
            "saffron dashboards belong",
            turn3,
        ),
    ] {
        let hit = best_hit(&env, &palace, phrase);
        assert!(
            hit.contains(phrase) && hit.contains(beside),
            "{phrase}: {hit}"
        );
        assert!(
            !hit.contains(elsewhere),
            "{phrase} shares an exchange with {elsewhere}: {hit}"
        );
    }
    let again = mine(&env, &palace);
    assert_eq!(again["mine"]["summary"]["drawers_filed"], 0, "{again}");
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else if p.extension().is_some_and(|x| x == "jsonl") {
            out.push(p);
        }
    }
    out
}
