//! Feeding across the fleet: on an edge device, real pi sessions (the scripted model) reach the
//! device's own palace offline and the primary (over a real sshd, the outbox's mine) once the
//! link returns, each exchange once; a rerun files nothing on either side.

use std::path::Path;

use serde_json::{Value, json};

use super::cli::feed;
use crate::harnesses::pi::{configure_pi, pi};
use crate::support::feed::*;
use crate::support::npm::FakeModel;
use crate::support::primary::PrimaryOpts;
use crate::support::sshd::Sshd;
use crate::support::{Primary, TestEnv, json as parse_json, stderr, stdout};

/// Three turns of real pi sessions in the project folder: enough for the feed's gates.
fn pi_sessions(env: &TestEnv) -> FakeModel {
    let model = FakeModel::start(env.dir.path());
    configure_pi(env, &model);
    std::fs::create_dir_all(env.path("project")).unwrap();
    pi(
        env,
        false,
        "We are planning the aurora migration for the billing cluster, ledger service first.\n\
         REPLY:The aurora migration plan is sound: move the ledger wave once its replicas stop lagging under heavy writes.",
    );
    pi(
        env,
        true,
        "Remember that the saffron dashboards belong to the observability team.\n\
         REPLY:Noted: the saffron dashboards are owned by observability, and their alerts page the on-call engineer directly.",
    );
    pi(
        env,
        true,
        "And the cobalt runbook lives in the platform wiki, beside the failover drills.\n\
         REPLY:Understood: the cobalt runbook sits in the platform wiki next to the failover drills, reviewed every quarter.",
    );
    model
}

/// An ssh config whose `palace` alias leads nowhere (a closed loopback port): the link is down.
fn offline_ssh_config(env: &TestEnv) -> String {
    let cfg = env.path("ssh_config_offline");
    crate::support::sshd::unreachable_config(&cfg, "palace");
    cfg.display().to_string()
}

/// `mpt --json feed prepare --reason shutdown` over the fixture sessions: its document.
fn prepare_json(env: &TestEnv, s: &Path, vars: &[(&str, &str)]) -> Value {
    parse_json(&super::cli::prepare(env, s, "shutdown", &["--json"], vars))
}

fn refs<'a>(v: &'a [(&'static str, String)]) -> Vec<(&'static str, &'a str)> {
    v.iter().map(|(k, s)| (*k, s.as_str())).collect()
}

pub(super) fn run_json(env: &TestEnv, args: &[&str], vars: &[(&str, &str)], want: i32) -> Value {
    let o = feed(env, args, vars);
    assert_eq!(
        o.status.code(),
        Some(want),
        "{args:?}\n{}{}",
        stdout(&o),
        stderr(&o)
    );
    parse_json(&o)
}

/// The search's best hit for `phrase` in a palace, read with its own `mpt call` road.
pub(super) fn hits(env: &TestEnv, vars: &[(&str, &str)], phrase: &str) -> Vec<Value> {
    let q = json!({"query": phrase, "limit": 10}).to_string();
    let j = run_json(env, &["--json", "call", "search", &q], vars, 0);
    j["payload"]["results"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

const PHRASES: [&str; 3] = [
    "aurora migration for the billing cluster",
    "saffron dashboards belong to the observability team",
    "cobalt runbook lives in the platform wiki",
];

/// Each phrase in exactly one drawer: filed once, whole.
fn assert_each_once(found: impl Fn(&str) -> Vec<Value>, side: &str) {
    for phrase in PHRASES {
        let with: Vec<Value> = found(phrase)
            .into_iter()
            .filter(|h| h.to_string().contains(phrase))
            .collect();
        assert_eq!(with.len(), 1, "{side}: {phrase} in {with:?}");
    }
}

#[test]
fn an_edge_devices_conversations_reach_its_palace_offline_and_the_primary_after_the_link_returns() {
    let env = TestEnv::new();
    let _model = pi_sessions(&env);
    let local = env.palace("local");
    let primary_palace = env.palace("primary");
    let inbox = env.path("palace-host/inbox/devbox");
    let offline = offline_ssh_config(&env);
    let base = |url: &str, ssh_config: &str| -> Vec<(&'static str, String)> {
        vec![
            ("MEMPALACE_EDGE", "1".into()),
            ("MEMPALACE_REMOTE_URL", url.into()),
            ("MEMPALACE_PI_DEVICE", "devbox".into()),
            ("MEMPALACE_PALACE_PATH", local.display().to_string()),
            ("MEMPALACE_PI_SSH_TARGET", "palace".into()),
            ("MEMPALACE_PI_SSH_CONFIG", ssh_config.into()),
            ("MEMPALACE_PI_REMOTE_PATH", inbox.display().to_string()),
        ]
    };

    // Offline: no primary, no ssh. The local palace is fed; the ship is pending.
    let vars = base("http://127.0.0.1:9/mcp", &offline);
    let v = refs(&vars);
    let o = feed(&env, &["feed", "mine", "--reason", "shutdown"], &v);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("ship: pending"), "{err}");
    assert!(err.contains("local: 1 staged"), "{err}");
    assert!(!inbox.exists(), "nothing reached the palace host");
    let local_vars = [("MEMPALACE_PALACE_PATH", local.to_str().unwrap())];
    assert_each_once(|p| hits(&env, &local_vars, p), "the device, offline");
    let queued = run_json(&env, &["--json", "outbox", "list"], &v, 0);
    assert_eq!(
        queued["ops"].as_array().map(Vec::len),
        Some(0),
        "no mine is queued before a ship succeeded: {queued}"
    );

    // The link returns: the next trigger (the bridge's prepare) ships and queues the mine.
    let sshd = Sshd::start(&env.path("sshd"));
    let primary = Primary::start(&env, &primary_palace, PrimaryOpts::default());
    let url = primary.url();
    let vars = base(&url, &sshd.ssh_config.display().to_string());
    let v = refs(&vars);
    let o = feed(
        &env,
        &["--json", "feed", "prepare", "--reason", "settled"],
        &v,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let j = parse_json(&o);
    assert_eq!(
        Path::new(j["mine_source"].as_str().unwrap()),
        env.path("state/mpt/feed/staged"),
        "the bridge mines the local staging through the edge: {j}"
    );
    let p = &j["fleet"]["primary"];
    assert_eq!(p["ship"], "shipped", "{j}");
    assert_eq!(p["files"], 1, "{j}");
    assert_eq!(p["queued"]["source"], inbox.to_str().unwrap(), "{j}");
    assert_eq!(
        contents(&inbox),
        contents(&env.path("state/mpt/feed/staged"))
    );

    // The outbox's mine lane runs it on the primary.
    let f = run_json(&env, &["--json", "outbox", "flush"], &v, 0);
    assert_eq!(f["mines"]["applied"], 1, "{f}");
    assert_eq!(f["mines"]["remaining"], 0, "{f}");
    let remote_vars = [("MEMPALACE_REMOTE_URL", url.as_str())];
    assert_each_once(|p| hits(&env, &remote_vars, p), "the primary");
    let hit = &hits(&env, &remote_vars, PHRASES[0])[0];
    let src = hit["source_path"].as_str().unwrap_or_default();
    assert!(Path::new(src).starts_with(&inbox), "{hit}");

    // A rerun files nothing on either side, and queues nothing.
    let again = run_json(
        &env,
        &["--json", "feed", "mine", "--reason", "shutdown"],
        &v,
        0,
    );
    assert_eq!(again["mine"]["summary"]["drawers_filed"], 0, "{again}");
    assert_eq!(
        again["prepare"]["fleet"]["primary"]["up_to_date"], true,
        "{again}"
    );
    assert!(
        again["prepare"]["fleet"]["primary"]["queued"].is_null(),
        "{again}"
    );
    let f = run_json(&env, &["--json", "outbox", "flush"], &v, 0);
    assert_eq!(f["mines"]["sent"], 0, "{f}");
    let local_total = inspect(&env, &local, &["summary"])["total"].clone();
    drop(primary);
    assert_eq!(
        inspect(&env, &primary_palace, &["summary"])["total"],
        local_total
    );
    assert_eq!(
        inspect(&env, &primary_palace, &["added_by"]),
        json!(["mcp@devbox"])
    );
}

#[test]
fn with_no_way_to_the_primary_one_line_says_so_and_the_device_is_still_fed() {
    let env = TestEnv::new();
    let s = super::cli::sessions_copy(&env);
    let vars = [
        ("MEMPALACE_EDGE", "1"),
        ("MEMPALACE_REMOTE_URL", "http://127.0.0.1:9/mcp"),
    ];
    let o = super::cli::prepare(&env, &s, "shutdown", &[], &vars);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(mine_source(&o), env.path("state/mpt/feed/staged"));
    let err = stderr(&o);
    let said: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("no way to the primary"))
        .collect();
    assert_eq!(said.len(), 1, "{err}");
    let j = prepare_json(&env, &s, &vars);
    assert_eq!(j["fleet"]["primary"]["ship"], "no_way", "{j}");
    assert_eq!(j["fleet"]["local"]["staged"], 6, "{j}");
}

/// Doctor's `feeder` evidence: where this device's conversations end up.
fn ends_up(env: &TestEnv, vars: &[(&str, &str)]) -> String {
    let ext_dir = env.home().join(".pi/agent/extensions");
    std::fs::create_dir_all(&ext_dir).unwrap();
    std::fs::write(
        ext_dir.join("mempalace.ts"),
        "const feed = process.env.MEMPALACE_FEED;\nconst edge = process.env.MEMPALACE_EDGE;\n",
    )
    .unwrap();
    let j = run_json(env, &["--json", "doctor", "--check", "extension"], vars, 3);
    j["checks"][0]["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .find_map(|e| e.strip_prefix("feeder's conversations end up: "))
        .unwrap_or_else(|| panic!("no destination line: {j}"))
        .to_string()
}

#[test]
fn doctor_says_where_the_devices_conversations_end_up_in_each_opt_in_state() {
    let env = TestEnv::new();
    let url = ("MEMPALACE_REMOTE_URL", "http://127.0.0.1:9/mcp");
    let edge = ("MEMPALACE_EDGE", "1");
    let target = ("MEMPALACE_PI_SSH_TARGET", "palace");
    let inbox = ("MEMPALACE_PI_REMOTE_PATH", "/srv/inbox/devbox");
    assert!(ends_up(&env, &[]).starts_with("local"));
    assert!(ends_up(&env, &[url]).starts_with("nowhere"));
    assert!(
        ends_up(&env, &[url, target, inbox])
            .starts_with("primary (shipped to palace:/srv/inbox/devbox")
    );
    assert!(
        ends_up(&env, &[url, edge]).starts_with("local (this device's palace through the edge)")
    );
    let both = ends_up(&env, &[url, edge, target, inbox]);
    assert!(both.starts_with("both"), "{both}");
    assert!(!both.contains("pending"), "{both}");
    assert_eq!(
        ends_up(&env, &[("MEMPALACE_FEED", "0")]),
        "nowhere (MEMPALACE_FEED=0)"
    );

    // Offline, the ship is pending, and doctor says so.
    let s = super::cli::sessions_copy(&env);
    let offline = offline_ssh_config(&env);
    let vars = [
        url,
        edge,
        target,
        inbox,
        ("MEMPALACE_PI_SSH_CONFIG", offline.as_str()),
    ];
    let j = prepare_json(&env, &s, &vars);
    assert_eq!(j["fleet"]["primary"]["ship"], "pending", "{j}");
    let state = env.path("state").display().to_string();
    let with_state = [&vars[..], &[("XDG_STATE_HOME", state.as_str())]].concat();
    let both = ends_up(&env, &with_state);
    assert!(both.contains("ship: pending"), "{both}");
}

#[test]
fn a_running_edge_sends_the_queued_mine_in_its_own_lane_while_writes_flow() {
    let env = TestEnv::new();
    let s = super::cli::sessions_copy(&env);
    let sshd = Sshd::start(&env.path("sshd"));
    let primary_palace = env.palace("primary");
    let primary = Primary::start(&env, &primary_palace, PrimaryOpts::default());
    let local = env.palace("local");
    let inbox = env.path("palace-host/inbox/devbox");
    let (url, cfg) = (primary.url(), sshd.ssh_config.display().to_string());
    let vars = [
        ("MEMPALACE_EDGE", "1"),
        ("MEMPALACE_REMOTE_URL", url.as_str()),
        ("MEMPALACE_PI_DEVICE", "devbox"),
        ("MEMPALACE_PALACE_PATH", local.to_str().unwrap()),
        ("MEMPALACE_PI_SSH_TARGET", sshd.alias),
        ("MEMPALACE_PI_SSH_CONFIG", cfg.as_str()),
        ("MEMPALACE_PI_REMOTE_PATH", inbox.to_str().unwrap()),
    ];
    let mut h = crate::support::harness::Harness::start(
        &env,
        &["--palace", local.to_str().unwrap()],
        &vars,
    );
    h.initialize();
    // `feed mine` plays the bridge: the local mine goes through the running edge.
    let j = run_json(
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
        0,
    );
    assert_eq!(j["mine"]["route"]["via"], "edge", "{j}");
    assert_eq!(j["mine"]["summary"]["drawers_filed"], 20, "{j}");
    assert!(
        j["prepare"]["fleet"]["primary"]["queued"]["op_id"].is_string(),
        "{j}"
    );
    // A write queued behind the mine reaches the primary whatever the mine is doing.
    h.call(
        "mempalace_add_drawer",
        json!({"wing": "w", "room": "r", "content": "the heron count for the estuary survey"}),
    )
    .unwrap();
    let store = mpt_outbox::Outbox::open(
        &env.home().join(".mempalace/edge/outbox.sqlite3"),
        mpt_outbox::OpenOptions::default(),
    )
    .unwrap();
    let open = || store.apart_open().map(|v| v.len()).unwrap_or(usize::MAX);
    assert!(
        crate::support::wait_for(240.0, || open() == 0),
        "the edge's mine lane sent the mine: {} open",
        open()
    );
    let remote = [("MEMPALACE_REMOTE_URL", url.as_str())];
    let q = "promoting the untouched replica and repointing the DSN";
    let hit = &hits(&env, &remote, q)[0];
    let src = hit["source_path"].as_str().unwrap_or_default();
    assert_eq!(Path::new(src), inbox.join(format!("{PARENT}.md")), "{hit}");
    assert!(
        crate::support::wait_for(60.0, || store.open_count().unwrap_or(1) == 0),
        "the write drained too"
    );
    assert!(!hits(&env, &remote, "heron count for the estuary survey").is_empty());
    drop(h);
    drop(primary);
    assert_eq!(inspect(&env, &primary_palace, &["summary"])["total"], 21);
}

/// Behind a gateway, the scoped mine accepted: the device's token is a member's whose
/// `mine.source_prefix` is its inbox on the primary host; `feed prepare` ships and queues the
/// mine, the outbox sends it through the gateway, and the primary files it stamped as the device.
#[test]
fn behind_a_gateway_the_scoped_mine_is_accepted() {
    use crate::support::gateway::{Gateway, UPSTREAM_TOKEN, issue, policy, write_policy};
    let env = TestEnv::new();
    let sessions = super::cli::sessions_copy(&env);
    let local = env.palace("local");
    let primary_palace = env.palace("primary");
    let inbox_root = env.path("palace-host/inbox");
    std::fs::create_dir_all(&inbox_root).unwrap();
    let inbox = inbox_root.join("devbox");
    let sshd = Sshd::start(&env.path("sshd"));
    let primary = Primary::start(
        &env,
        &primary_palace,
        PrimaryOpts {
            token: Some(UPSTREAM_TOKEN),
            ..Default::default()
        },
    );
    let dir = env.path("gateway");
    write_policy(
        &dir,
        &policy(json!({"devbox": {"role": "member", "mine": {"source_prefix": inbox_root}}})),
    );
    let token = issue(&env, &dir, "devbox", &[]);
    let gw = Gateway::start(&env, &dir, &primary.base_url(), &[], &[]);
    let vars: Vec<(&'static str, String)> = vec![
        ("MEMPALACE_EDGE", "1".into()),
        ("MEMPALACE_REMOTE_URL", gw.mcp()),
        ("MEMPALACE_REMOTE_TOKEN", token),
        ("MEMPALACE_PI_DEVICE", "devbox".into()),
        ("MEMPALACE_PALACE_PATH", local.display().to_string()),
        ("MEMPALACE_PI_SSH_TARGET", sshd.alias.into()),
        (
            "MEMPALACE_PI_SSH_CONFIG",
            sshd.ssh_config.display().to_string(),
        ),
        ("MEMPALACE_PI_REMOTE_PATH", inbox.display().to_string()),
    ];
    let v = refs(&vars);
    let j = parse_json(&super::cli::prepare(
        &env,
        &sessions,
        "settled",
        &["--json"],
        &v,
    ));
    let p = &j["fleet"]["primary"];
    assert_eq!(p["ship"], "shipped", "{j}");
    assert_eq!(p["queued"]["source"], inbox.to_str().unwrap(), "{j}");

    let f = run_json(&env, &["--json", "outbox", "flush"], &v, 0);
    assert_eq!(
        f["mines"]["applied"], 1,
        "the gateway accepted the scoped mine: {f}"
    );
    assert_eq!(f["mines"]["remaining"], 0, "{f}");
    let audit = crate::support::gateway::mpt(
        &env,
        &dir,
        &["--json", "gateway", "audit", "--device", "devbox"],
    );
    let records = parse_json(&audit)["records"].clone();
    assert!(
        records
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["tool"] == "mempalace_mine" && r["rule"] == "mine:source_prefix"),
        "{records}"
    );
    drop(gw);
    drop(primary);
    let filed = inspect(&env, &primary_palace, &["summary"])["total"]
        .as_u64()
        .unwrap_or(0);
    assert!(filed > 0, "the primary filed the shipped transcripts");
    assert_eq!(
        inspect(&env, &primary_palace, &["added_by"]),
        json!(["mcp@devbox"])
    );
}

#[test]
fn a_joined_device_with_no_ssh_feeds_the_primary_through_the_gateway() {
    use crate::support::gateway::{Gateway, UPSTREAM_TOKEN, mpt as gw_mpt};
    let env = TestEnv::new();
    let sessions = super::cli::sessions_copy(&env);
    let local = env.palace("local");
    let primary_palace = env.palace("primary");
    let primary = Primary::start(
        &env,
        &primary_palace,
        PrimaryOpts {
            token: Some(UPSTREAM_TOKEN),
            ..Default::default()
        },
    );
    // The primary host: a gateway, and devbox invited (its day-one grants name its inbox).
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
    // The device joins (no ssh anywhere): its settings come from the config file alone.
    let o = env.mpt(
        &[
            "--json",
            "join",
            &gw.url,
            "--no-wire",
            "--no-timer",
            "--code-file",
            code.to_str().unwrap(),
        ],
        &[],
    );
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    let v = [("MEMPALACE_PALACE_PATH", local.to_str().unwrap())];
    let j = parse_json(&super::cli::prepare(
        &env,
        &sessions,
        "settled",
        &["--json"],
        &v,
    ));
    let p = &j["fleet"]["primary"];
    assert_eq!(p["ship"], "shipped", "{j}");
    let inbox = env.home().join(".mempalace/feed/inbox/devbox/pi");
    assert_eq!(
        p["queued"]["source"],
        inbox.canonicalize().unwrap().to_str().unwrap(),
        "{j}"
    );
    let uploaded = std::fs::read_dir(&inbox).unwrap().count();
    assert!(uploaded > 0, "the staged transcripts are in devbox's inbox");
    // Doctor names the road.
    let road = ends_up(&env, &v);
    assert!(road.starts_with("both"), "{road}");
    assert!(road.contains("uploaded through the gateway"), "{road}");

    let f = run_json(&env, &["--json", "outbox", "flush"], &v, 0);
    assert_eq!(
        f["mines"]["applied"], 1,
        "the scoped mine of the upload: {f}"
    );
    // A rerun uploads nothing new and queues no mine: nothing is filed twice.
    let again = parse_json(&super::cli::prepare(
        &env,
        &sessions,
        "settled",
        &["--json"],
        &v,
    ));
    assert_eq!(again["fleet"]["primary"]["up_to_date"], true, "{again}");
    assert_eq!(std::fs::read_dir(&inbox).unwrap().count(), uploaded);
    let audit = gw_mpt(
        &env,
        &dir,
        &["--json", "gateway", "audit", "--device", "devbox"],
    );
    let records = parse_json(&audit)["records"].clone();
    let rules: Vec<&str> = records
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["rule"].as_str())
        .filter(|r| r.starts_with("inbox"))
        .collect();
    assert_eq!(
        rules.iter().filter(|r| **r == "inbox").count(),
        uploaded,
        "{records}"
    );
    assert_eq!(
        rules.iter().filter(|r| **r == "inbox:unchanged").count(),
        uploaded,
        "{records}"
    );
    // The gateway gone: the upload fails, the ship is pending for the next trigger, and said so.
    drop(gw);
    let down = parse_json(&super::cli::prepare(
        &env,
        &sessions,
        "settled",
        &["--json"],
        &v,
    ));
    assert_eq!(down["fleet"]["primary"]["ship"], "pending", "{down}");
    assert!(ends_up(&env, &v).contains("ship: pending"));
    drop(primary);
    let filed = inspect(&env, &primary_palace, &["summary"])["total"]
        .as_u64()
        .unwrap_or(0);
    assert!(filed > 0, "the primary filed the uploaded transcripts");
    assert_eq!(
        inspect(&env, &primary_palace, &["added_by"]),
        json!(["mcp@devbox"])
    );
}
