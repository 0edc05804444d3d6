//! Remote feeding against a real sshd on loopback (key auth, a private ssh config) and a real
//! `mempalace serve`: the files arrive, MINE_SOURCE is the remote path, `feed mine` files them.

use std::path::Path;

use super::cli::{feed, prepare, sessions_copy};
use crate::support::feed::*;
use crate::support::primary::PrimaryOpts;
use crate::support::sshd::Sshd;
use crate::support::{Primary, TestEnv, json, pid_alive, stderr, wait_for};

fn ssh_env<'a>(
    sshd: &'a Sshd,
    cfg: &'a str,
    inbox: &'a str,
    url: &'a str,
) -> Vec<(&'a str, &'a str)> {
    vec![
        ("MEMPALACE_REMOTE_URL", url),
        ("MEMPALACE_PI_SSH_TARGET", sshd.alias),
        ("MEMPALACE_PI_SSH_CONFIG", cfg),
        ("MEMPALACE_PI_REMOTE_PATH", inbox),
    ]
}

#[test]
fn prepare_ships_the_staged_folder_and_prints_the_remote_path() {
    let env = TestEnv::new();
    let sshd = Sshd::start(&env.path("sshd"));
    let s = sessions_copy(&env);
    let inbox = env.path("palace-host/inbox/devbox");
    let cfg = sshd.ssh_config.display().to_string();
    let vars = ssh_env(
        &sshd,
        &cfg,
        inbox.to_str().unwrap(),
        "http://127.0.0.1:9/mcp",
    );
    let o = prepare(&env, &s, "settled", &[], &vars);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}\nsshd log:\n{}",
        stderr(&o),
        sshd.log()
    );
    assert_eq!(
        mine_source(&o),
        inbox,
        "MINE_SOURCE is the path on the palace host"
    );
    let local = env.path("state/mpt/feed/staged");
    assert_eq!(
        contents(&inbox),
        contents(&local),
        "every transcript arrived whole, nothing else"
    );
    assert_eq!(contents(&inbox).len(), 6);
    let mtimes = |d: &Path| listing(d);
    assert_eq!(
        mtimes(&inbox),
        mtimes(&local),
        "mtimes kept: the miner's dedup key"
    );
    assert!(
        sshd.log().contains("Accepted publickey"),
        "key auth over the real sshd"
    );

    // A no-change run ships nothing new and keeps the remote mtimes.
    let j = json(&prepare(&env, &s, "settled", &["--json"], &vars));
    assert_eq!(j["mine_source"], inbox.to_str().unwrap());
    assert_eq!(j["remote"]["target"], "palace");
    assert_eq!(j["unchanged"], 6);
    assert_eq!(mtimes(&inbox), mtimes(&local));
}

#[test]
fn feed_mine_through_a_real_serve_files_the_shipped_transcripts() {
    let env = TestEnv::new();
    let sshd = Sshd::start(&env.path("sshd"));
    let s = sessions_copy(&env);
    let palace = env.palace("primary");
    let primary = Primary::start(&env, &palace, PrimaryOpts::default());
    let inbox = env.path("palace-host/inbox/devbox");
    let cfg = sshd.ssh_config.display().to_string();
    let url = primary.url();
    let mut vars = ssh_env(&sshd, &cfg, inbox.to_str().unwrap(), &url);
    vars.push(("MEMPALACE_PI_DEVICE", "devbox"));
    let o = feed(
        &env,
        &[
            "--json",
            "feed",
            "mine",
            "--reason",
            "shutdown",
            "--sessions",
            s.to_str().unwrap(),
        ],
        &vars,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let j = json(&o);
    assert_eq!(j["schema"], "mpt.feed.mine/v1");
    let m = &j["mine"];
    assert_eq!(m["route"]["via"], "primary");
    assert_eq!(m["source"], inbox.to_str().unwrap());
    assert_eq!(
        m["agent"], "mcp@devbox",
        "stamped: a device name and a shared palace"
    );
    assert_eq!(m["payload"]["success"], true, "{m}");
    assert_eq!(m["summary"]["drawers_filed"], 20, "{m}");

    // The primary finds the transcripts, filed from the inbox paths.
    let q = r#"{"query": "promoting the untouched replica and repointing the DSN", "limit": 1}"#;
    let found = json(&env.mpt(
        &["--json", "call", "search", q],
        &[("MEMPALACE_REMOTE_URL", url.as_str())],
    ));
    let hit = &found["payload"]["results"][0];
    let src = hit["source_path"]
        .as_str()
        .unwrap_or_else(|| panic!("{found}"));
    assert_eq!(Path::new(src), inbox.join(format!("{PARENT}.md")), "{hit}");

    // Again, unchanged: shipped and mined, nothing filed twice.
    let j = json(&feed(
        &env,
        &["--json", "feed", "mine", "--sessions", s.to_str().unwrap()],
        &vars,
    ));
    assert_eq!(j["mine"]["summary"]["drawers_filed"], 0, "{j}");
    assert_eq!(j["mine"]["summary"]["files_skipped"], 6, "{j}");
    drop(primary);
    assert_eq!(
        inspect(&env, &palace, &["added_by"]),
        serde_json::json!(["mcp@devbox"])
    );
    assert_eq!(inspect(&env, &palace, &["summary"])["total"], 20);
}

#[test]
fn an_unreachable_host_is_exit_7_and_a_hung_transfer_is_killed_at_the_deadline() {
    let env = TestEnv::new();
    let s = sessions_copy(&env);
    let cfg = env.path("ssh_config");
    crate::support::sshd::unreachable_config(&cfg, "nowhere");
    let args = [
        "--json",
        "feed",
        "prepare",
        "--reason",
        "shutdown",
        "--sessions",
        s.to_str().unwrap(),
    ];
    let vars = [
        ("MEMPALACE_REMOTE_URL", "http://127.0.0.1:9/mcp"),
        ("MEMPALACE_PI_SSH_TARGET", "nowhere"),
        ("MEMPALACE_PI_SSH_CONFIG", cfg.to_str().unwrap()),
        ("MEMPALACE_PI_REMOTE_PATH", "/tmp/never"),
    ];
    let o = feed(&env, &args, &vars);
    assert_eq!(o.status.code(), Some(7), "{}", stderr(&o));
    let e = json(&o);
    assert_eq!(e["kind"], "unavailable");
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("rsync to nowhere:/tmp/never/ failed"),
        "{e}"
    );

    // A transfer that never finishes: its ssh's proxy records its pid and sleeps.
    let pidfile = env.path("proxy.pid");
    std::fs::write(
        &cfg,
        format!(
            "Host hang\n  ProxyCommand sh -c 'echo $$ > {}; exec sleep 30'\n  StrictHostKeyChecking no\n  UserKnownHostsFile /dev/null\n",
            pidfile.display()
        ),
    )
    .unwrap();
    let mut vars = vars;
    vars[1].1 = "hang";
    let o = feed(
        &env,
        &args,
        &[&vars[..], &[("MEMPALACE_FEED_PREPARE_TIMEOUT_MS", "2000")]].concat(),
    );
    assert_eq!(o.status.code(), Some(7), "{}", stderr(&o));
    assert!(
        json(&o)["message"]
            .as_str()
            .unwrap()
            .contains("MEMPALACE_FEED_PREPARE_TIMEOUT_MS=2000")
    );
    let proxy: u32 = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(
        wait_for(5.0, || !pid_alive(proxy)),
        "rsync's whole process group was killed (proxy {proxy})"
    );
}
