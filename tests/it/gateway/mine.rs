//! The scoped remote mine through the real gateway to a real primary: a member's convos mine
//! under its prefix lands stamped; outside it, through a symlink, in another mode refused; and
//! one mine at a time across the gateway (a second is 429 with Retry-After).

use std::path::Path;

use serde_json::{Value, json};

use super::{denied, on_primary};
use crate::support::gateway::{
    Gateway, UPSTREAM_TOKEN, call, issue, payload, policy, post, write_policy,
};
use crate::support::link::{Link, Mode};
use crate::support::primary::PrimaryOpts;
use crate::support::{Primary, TestEnv, wait_for};

const CONVO: &str = "> how do we rotate the replica's password?\nWith the vault job, every quarter, then the DSN is repointed.\n\n> and who is told?\nThe on-call channel, before the job runs.\n";

fn convo(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("chat.txt"), CONVO).unwrap();
}

fn mine(source: &Path, mode: &str, wing: &str) -> Value {
    json!({"source": source, "mode": mode, "wing": wing, "agent": "pi@desk"})
}

#[test]
fn a_members_mine_is_scoped_to_its_prefix_and_one_runs_at_a_time() {
    let env = TestEnv::new();
    let staging = env.path("staging");
    let lap_dir = staging.join("lap");
    convo(&lap_dir.join("batch1"));
    convo(&staging.join("desk/batch1"));
    std::os::unix::fs::symlink(staging.join("desk"), lap_dir.join("desk-link")).unwrap();

    // The gateway reaches the primary through a link the test can hold (a stalled mine).
    let link = Link::bind();
    let p = Primary::start(
        &env,
        &env.palace("primary"),
        PrimaryOpts {
            token: Some(UPSTREAM_TOKEN),
            extra_env: vec![("MEMPALACE_MCP_EXTRA_ALLOWED_HOSTS", link.host())],
            ..Default::default()
        },
    );
    link.set_upstream(p.port);
    // The palace exists (its first drawer) so that the read-backs below can count.
    on_primary(
        &p,
        "mempalace_add_drawer",
        json!({"wing": "wing_seed", "room": "r", "content": "seed"}),
    );
    let dir = env.path("gateway");
    write_policy(
        &dir,
        &policy(json!({
            "lap": {"role": "member", "wings": {"write": ["wing_lap*"]},
                    "mine": {"source_prefix": lap_dir}},
            "desk": {"role": "member"}})),
    );
    let lap = issue(&env, &dir, "lap", &[]);
    let desk = issue(&env, &dir, "desk", &[]);
    let upstream = format!("http://127.0.0.1:{}", link.port);
    let gw = Gateway::start(&env, &dir, &upstream, &[], &[]);
    let t = "mempalace_mine";

    let listed = post(
        gw.port,
        &lap,
        r#"{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}"#,
    )
    .json();
    let names: Vec<&str> = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(
        names.contains(&t),
        "a scoped miner sees mine listed: {names:?}"
    );
    let refused = [
        (
            &lap,
            "lap",
            staging.join("desk/batch1"),
            "convos",
            "wing_lap",
            "mine:outside_source_prefix",
        ),
        (
            &lap,
            "lap",
            lap_dir.join("../desk/batch1"),
            "convos",
            "wing_lap",
            "mine:outside_source_prefix",
        ),
        (
            &lap,
            "lap",
            lap_dir.join("desk-link/batch1"),
            "convos",
            "wing_lap",
            "mine:outside_source_prefix",
        ),
        (
            &lap,
            "lap",
            lap_dir.join("batch1"),
            "projects",
            "wing_lap",
            "mine:mode_not_convos",
        ),
        (
            &lap,
            "lap",
            lap_dir.join("batch1"),
            "convos",
            "wing_desk",
            "wings.write:wing_desk",
        ),
        (
            &desk,
            "desk",
            lap_dir.join("batch1"),
            "convos",
            "wing_lap",
            "needs:admin",
        ),
    ];
    for (token, device, source, mode, wing, rule) in refused {
        denied(
            &call(gw.port, token, t, mine(&source, mode, wing)),
            device,
            t,
            rule,
        );
    }
    let drawers = |wing: &str| {
        on_primary(&p, "mempalace_list_drawers", json!({"wing": wing}))["drawers"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    };
    assert!(
        drawers("wing_desk").is_empty() && drawers("wing_lap").is_empty(),
        "nothing refused was mined"
    );

    // One mine at a time: the first held on the link, the second 429.
    link.set(Mode::BlackHole);
    let (port, first_token, src) = (gw.port, lap.clone(), lap_dir.join("batch1"));
    let first =
        std::thread::spawn(move || call(port, &first_token, t, mine(&src, "convos", "wing_lap")));
    assert!(
        wait_for(60.0, || link.accepted(Mode::BlackHole) >= 1),
        "the first mine reached the link"
    );
    let second = call(
        gw.port,
        &lap,
        t,
        mine(&lap_dir.join("batch1"), "convos", "wing_lap"),
    );
    assert_eq!(second.status, 429, "{}", second.text());
    assert_eq!(second.header("retry-after"), Some("30"));
    assert_eq!(second.json()["error"], "mine_in_progress");
    link.set(Mode::Pass);
    let first = first.join().unwrap();
    assert!(
        first.status >= 500,
        "the held mine failed upstream: {}",
        first.text()
    );

    let r = call(
        gw.port,
        &lap,
        t,
        mine(&lap_dir.join("./batch1"), "convos", "wing_lap"),
    );
    assert_eq!(payload(&r)["success"], true, "{}", r.text());
    let filed = drawers("wing_lap");
    assert!(!filed.is_empty(), "the scoped mine filed its transcript");
    for d in &filed {
        assert_eq!(
            d["metadata"]["added_by"], "pi@lap",
            "stamped as the token's device: {d}"
        );
        let src = d["metadata"]["source_file"].as_str().unwrap_or_default();
        assert!(!src.contains("/./"), "the resolved source was mined: {src}");
    }
    drop(gw);
    drop(p);
}
