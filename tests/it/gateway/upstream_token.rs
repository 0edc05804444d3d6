//! The gateway's own upstream token (issue 56, item 6): a wrong one stops the gateway at start
//! (exit 4, saying so), `serve` not yet up only warns, and a 401 from `serve` at run time is the
//! gateway's 502 `upstream_auth`, never the device's 401.

use serde_json::json;

use crate::support::gateway::{Gateway, call, issue, policy, primary_and_dir};
use crate::support::primary::{Primary, PrimaryOpts};
use crate::support::{TestEnv, stderr};

#[test]
fn a_wrong_upstream_token_stops_the_gateway_at_start_and_at_run_time_is_never_the_devices() {
    let env = TestEnv::new();
    let (mut p, dir) = primary_and_dir(&env, &policy(json!({"mem": {"role": "member"}})));
    let mem = issue(&env, &dir, "mem", &[]);
    let o = env
        .mpt_command(&[
            "gateway",
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--upstream",
            &p.base_url(),
        ])
        .env("MPT_GATEWAY_DIR", &dir)
        .env("MEMPALACE_MCP_HTTP_TOKEN", "not-serves-token")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("refused the gateway's upstream token"),
        "{}",
        stderr(&o)
    );

    // Started while `serve` is down: a warning, and it serves.
    let port = p.port;
    p.stop();
    let gw = Gateway::start(&env, &dir, &p.base_url(), &[], &[]);
    assert!(
        gw.stderr().contains("did not answer yet"),
        "{}",
        gw.stderr()
    );
    // `serve` comes back with another token: the device is not told its own is wrong.
    let _p2 = Primary::start(
        &env,
        &env.palace("primary"),
        PrimaryOpts {
            token: Some("serve-rotated-its-token"),
            port: Some(port),
            ..Default::default()
        },
    );
    let r = call(gw.port, &mem, "mempalace_kg_stats", json!({}));
    assert_eq!(r.status, 502, "{}", r.text());
    assert_eq!(r.json(), json!({"error": "upstream_auth"}));
    assert!(
        gw.stderr().contains("MEMPALACE_MCP_HTTP_TOKEN"),
        "{}",
        gw.stderr()
    );
}
