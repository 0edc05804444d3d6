//! opencode's sessions fed like pi's: the real opencode writes sessions (several turns, a multi-line
//! message, a tool call, a subagent) that `mpt feed mine --harness opencode` files and search finds,
//! each exchange once, a rerun nothing; a reader that never waits on opencode's writer; a damaged
//! database and an unknown schema skipped with their reasons.

use std::path::Path;

use serde_json::{Value, json};

use super::cli::feed;
use super::miner::top_source;
use crate::support::opencode::{Opencode, add_session, schema_db};
use crate::support::{TestEnv, json as parse_json, stderr, stdout};

/// `mpt --json feed <action> --harness opencode --reason shutdown` plus `more`.
fn oc_feed(
    env: &TestEnv,
    action: &str,
    more: &[&str],
    vars: &[(&str, &str)],
) -> std::process::Output {
    let mut args = vec![
        "--json",
        "feed",
        action,
        "--harness",
        "opencode",
        "--reason",
        "shutdown",
    ];
    args.extend_from_slice(more);
    feed(env, &args, vars)
}

const MULTI: &str = "Why does the lexer drop a tab after a heredoc marker?\nthe second line names the marmalade tokenizer\nand a third line closes it";

#[test]
fn real_opencode_sessions_are_mined_and_found_each_exchange_once_and_a_rerun_files_nothing() {
    let env = TestEnv::new();
    let oc = Opencode::new(&env);
    std::fs::write(
        oc.project.join("notes.txt"),
        "the notes say: zebra crossing\n",
    )
    .unwrap();
    let long = "this reply is long enough to count as real dialogue for the gate, about the quince orchard planning";
    oc.run(
        &env,
        &[
            "run",
            &format!("Plan the quince orchard layout for spring. REPLY:{long}"),
        ],
    );
    oc.run(
        &env,
        &[
            "run",
            "--continue",
            &format!("{MULTI}\nREPLY:the lexer keeps the tab once the marker is read; {long}"),
        ],
    );
    let read = json!({"filePath": oc.project.join("notes.txt")}).to_string();
    oc.run(&env, &["run", "--continue", &format!("TOOL:read {read}")]);
    let task = json!({"description": "look around", "prompt": "REPLY:the subagent answers", "subagent_type": "general"});
    oc.run(&env, &["run", "--continue", &format!("TOOL:task {task}")]);
    let db = Opencode::db(&env);
    assert!(db.is_file(), "opencode wrote {}", db.display());

    let palace = env.palace("oc");
    let pal = palace.to_str().unwrap();
    let o = oc_feed(&env, "mine", &[], &[("MEMPALACE_PALACE_PATH", pal)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let j = parse_json(&o);
    let p = &j["prepare"];
    assert_eq!(j["harness"], "opencode", "{j}");
    assert_eq!(
        p["sessions_dir"],
        json!(db),
        "opencode's own database, found by its rule"
    );
    assert_eq!(p["wing"], "wing_opencode", "its own wing by default");
    assert_eq!(
        (p["sessions_seen"].as_u64(), p["exported"].as_u64()),
        (Some(2), Some(1)),
        "{p}"
    );
    assert_eq!(
        p["skipped"],
        json!({"subagent": 1}),
        "the task's child session: {p}"
    );
    let staged_dir = Path::new(p["mine_source"].as_str().unwrap());
    let files: Vec<_> = std::fs::read_dir(staged_dir).unwrap().flatten().collect();
    assert_eq!(files.len(), 1);
    let text = std::fs::read_to_string(files[0].path()).unwrap();
    // Four user turns, each a `>` exchange; the multi-line message keeps its lines inside its own.
    assert_eq!(
        text.matches("\n> ").count() + usize::from(text.starts_with("> ")),
        4,
        "{text}"
    );
    let multi_at = text.find("Why does the lexer").unwrap();
    assert!(
        text[multi_at..].starts_with("Why does the lexer drop a tab after a heredoc marker?\n  the second line names the marmalade tokenizer\n  and a third line closes it"),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "[read] {}",
            oc.project.join("notes.txt").display()
        )),
        "the tool call, shortened: {text}"
    );
    assert!(text.contains("[task] look around"), "{text}");
    assert!(!text.contains("the subagent answers\n>"), "{text}");
    let m = &j["mine"];
    assert_eq!(m["wing"], "wing_opencode");
    assert_eq!(
        m["summary"]["drawers_filed"], 4,
        "one drawer per exchange: {m}"
    );
    let name = files[0].file_name().to_string_lossy().into_owned();
    assert_eq!(top_source(&env, &palace, "marmalade tokenizer"), name);
    assert_eq!(top_source(&env, &palace, "quince orchard layout"), name);

    let again = parse_json(&oc_feed(
        &env,
        "mine",
        &[],
        &[("MEMPALACE_PALACE_PATH", pal)],
    ));
    assert_eq!(again["prepare"]["exported"], 0, "{again}");
    assert_eq!(again["prepare"]["unchanged"], 1, "{again}");
    assert_eq!(
        again["prepare"]["bytes_read"], 0,
        "decided from the state: {again}"
    );
    assert_eq!(again["mine"]["summary"]["drawers_filed"], 0, "{again}");
}

/// A database with the real schema and `n` gate-passing sessions last written an hour ago.
fn synthetic_db(env: &TestEnv, n: usize) -> std::path::PathBuf {
    let db = env.home().join(".local/share/opencode/opencode.db");
    let c = schema_db(&db);
    let hour_ago = (std::time::SystemTime::now() - std::time::Duration::from_secs(3600))
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    for i in 0..n {
        add_session(&c, i, 4, hour_ago);
    }
    db
}

#[test]
fn a_writer_holding_its_transaction_open_neither_blocks_the_read_nor_is_starved() {
    let env = TestEnv::new();
    let db = synthetic_db(&env, 2);
    // opencode mid-write: a write transaction open, a third session inserted but not committed.
    let writer = rusqlite::Connection::open(&db).unwrap();
    writer.execute_batch("BEGIN IMMEDIATE").unwrap();
    add_session(&writer, 7, 4, 0);
    let o = oc_feed(&env, "prepare", &[], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let j = parse_json(&o);
    assert_eq!(j["sessions_seen"], 2, "the committed snapshot only: {j}");
    assert_eq!(j["exported"], 2, "{j}");
    writer.execute_batch("COMMIT").unwrap();
    // Nothing of mpt's holds the WAL: opencode's checkpoint completes and resets it.
    let (busy, _, _): (i64, i64, i64) = writer
        .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })
        .unwrap();
    assert_eq!(busy, 0, "the checkpoint was not blocked");
    let again = parse_json(&oc_feed(&env, "prepare", &[], &[]));
    assert_eq!(
        (again["exported"].as_u64(), again["unchanged"].as_u64()),
        (Some(1), Some(2)),
        "{again}"
    );
    assert_eq!(again["decided_from_state"], 2, "{again}");
}

fn assert_skipped_whole(o: &std::process::Output, says: &[&str]) -> Value {
    assert_eq!(
        o.status.code(),
        Some(0),
        "skipped, never a crash: {}",
        stderr(o)
    );
    let j = parse_json(o);
    let why = j["source_skipped"]
        .as_str()
        .unwrap_or_else(|| panic!("no source_skipped: {j}"));
    for s in says {
        assert!(why.contains(s), "{s:?} not in {why}");
    }
    assert_eq!(j["mine_source"], Value::Null, "{j}");
    assert!(stderr(o).contains(why), "said on stderr too: {}", stderr(o));
    j
}

#[test]
fn a_damaged_database_is_skipped_with_its_reason_and_what_was_staged_stays() {
    let env = TestEnv::new();
    let db = synthetic_db(&env, 1);
    let first = parse_json(&oc_feed(&env, "prepare", &[], &[]));
    assert_eq!(first["exported"], 1, "{first}");
    let staged = Path::new(first["stage_dir"].as_str().unwrap()).to_path_buf();
    // The database file overwritten in place: its header (and the journal) garbage.
    drop(std::fs::remove_file(db.with_extension("db-wal")));
    drop(std::fs::remove_file(db.with_extension("db-shm")));
    let mut bytes = std::fs::read(&db).unwrap();
    for b in bytes.iter_mut().take(4096) {
        *b = 0x5a;
    }
    std::fs::write(&db, &bytes).unwrap();
    let o = oc_feed(&env, "prepare", &[], &[]);
    assert_skipped_whole(&o, &["cannot be read", "not a database"]);
    assert_eq!(stdout(&o).matches("MINE_SOURCE").count(), 0);
    assert_eq!(
        std::fs::read_dir(&staged).unwrap().count(),
        1,
        "the staged file stays"
    );
}

#[test]
fn an_unknown_schema_is_a_clear_skip_naming_what_it_found() {
    let env = TestEnv::new();
    let db = synthetic_db(&env, 1);
    let c = rusqlite::Connection::open(&db).unwrap();
    c.execute(
        "INSERT INTO migration VALUES ('20991231000000_from_the_future', 0)",
        [],
    )
    .unwrap();
    drop(c);
    let o = oc_feed(&env, "prepare", &[], &[]);
    let j = assert_skipped_whole(
        &o,
        &[
            "schema this mpt does not know",
            "migration 39 migrations, last 20991231000000_from_the_future",
            "opencode 1.18.33",
        ],
    );
    assert_eq!(j["sessions_seen"], 0, "nothing guessed at: {j}");
}

#[test]
fn under_the_edge_opencodes_export_ships_to_its_own_inbox_and_the_primary_files_it() {
    use crate::support::feed::{contents, inspect};
    use crate::support::primary::PrimaryOpts;
    use crate::support::{Primary, sshd::Sshd};
    let env = TestEnv::new();
    synthetic_db(&env, 1);
    let local = env.palace("local");
    let primary_palace = env.palace("primary");
    let inbox = env.path("palace-host/inbox/devbox");
    let sshd = Sshd::start(&env.path("sshd"));
    let primary = Primary::start(&env, &primary_palace, PrimaryOpts::default());
    let url = primary.url();
    let vars: Vec<(&str, String)> = vec![
        ("MEMPALACE_EDGE", "1".into()),
        ("MEMPALACE_REMOTE_URL", url.clone()),
        ("MEMPALACE_PI_DEVICE", "devbox".into()),
        ("MEMPALACE_PALACE_PATH", local.display().to_string()),
        ("MEMPALACE_PI_SSH_TARGET", "palace".into()),
        (
            "MEMPALACE_PI_SSH_CONFIG",
            sshd.ssh_config.display().to_string(),
        ),
        ("MEMPALACE_PI_REMOTE_PATH", inbox.display().to_string()),
    ];
    let v: Vec<(&str, &str)> = vars.iter().map(|(k, s)| (*k, s.as_str())).collect();
    let j = parse_json(&oc_feed(&env, "mine", &[], &v));
    let own_inbox = format!("{}+opencode", inbox.display());
    let p = &j["prepare"]["fleet"]["primary"];
    assert_eq!(p["ship"], "shipped", "{j}");
    assert_eq!(
        p["queued"]["source"],
        own_inbox.as_str(),
        "its own inbox, beside pi's: {j}"
    );
    assert_eq!(
        contents(Path::new(&own_inbox)),
        contents(&env.path("state/mpt/feed/opencode/staged"))
    );
    assert!(!inbox.exists(), "pi's inbox is not opencode's");
    assert_eq!(
        j["mine"]["summary"]["drawers_filed"], 4,
        "the device's own palace: {j}"
    );

    let f = super::edge::run_json(&env, &["--json", "outbox", "flush"], &v, 0);
    assert_eq!(f["mines"]["applied"], 1, "{f}");
    let remote = [("MEMPALACE_REMOTE_URL", url.as_str())];
    let found = super::edge::hits(&env, &remote, "Question 2 of session 0");
    let src = found[0]["source_path"].as_str().unwrap_or_default();
    assert!(Path::new(src).starts_with(&own_inbox), "{found:?}");
    drop(primary);
    assert_eq!(
        inspect(&env, &primary_palace, &["added_by"]),
        json!(["opencode@devbox"]),
        "stamped as opencode's"
    );
    drop(sshd);
}

#[test]
fn a_joined_devices_opencode_sessions_reach_the_primary_through_the_gateway() {
    use crate::support::Primary;
    use crate::support::feed::inspect;
    use crate::support::gateway::{Gateway, UPSTREAM_TOKEN, mpt as gw_mpt};
    use crate::support::primary::PrimaryOpts;
    let env = TestEnv::new();
    synthetic_db(&env, 1);
    let local = env.palace("local");
    let primary_palace = env.palace("primary");
    let opts = PrimaryOpts {
        token: Some(UPSTREAM_TOKEN),
        ..Default::default()
    };
    let primary = Primary::start(&env, &primary_palace, opts);
    let dir = env.path("gateway");
    let gw = Gateway::start(&env, &dir, &primary.base_url(), &[], &[]);
    let code = env.path("devbox.code");
    let o = gw_mpt(
        &env,
        &dir,
        &[
            "gateway",
            "invite",
            "devbox",
            "--out",
            code.to_str().unwrap(),
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let join = [
        "join",
        &gw.url,
        "--no-wire",
        "--no-timer",
        "--code-file",
        code.to_str().unwrap(),
    ];
    let o = env.mpt(&join, &[]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    let v = [("MEMPALACE_PALACE_PATH", local.to_str().unwrap())];
    let j = parse_json(&oc_feed(&env, "prepare", &[], &v));
    let p = &j["fleet"]["primary"];
    assert_eq!(p["ship"], "shipped", "{j}");
    let inbox = env.home().join(".mempalace/feed/inbox/devbox/opencode");
    let inbox = inbox.canonicalize().unwrap();
    assert_eq!(p["queued"]["source"], inbox.to_str().unwrap(), "{j}");

    let f = super::edge::run_json(&env, &["--json", "outbox", "flush"], &v, 0);
    assert_eq!(f["mines"]["applied"], 1, "{f}");
    // Found on the primary by search, through the gateway with the device's own token.
    let found = super::edge::hits(&env, &v, "Question 2 of session 0");
    let src = found[0]["source_path"].as_str().unwrap_or_default();
    assert!(Path::new(src).starts_with(&inbox), "{found:?}");
    drop(gw);
    drop(primary);
    assert_eq!(
        inspect(&env, &primary_palace, &["added_by"]),
        json!(["opencode@devbox"]),
        "stamped as opencode's on devbox"
    );
}
