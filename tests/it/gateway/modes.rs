//! The modes: the state folder 0700 (a wider one tightened, with a note), tokens and audit 0600,
//! the policy left as reviewed; `--out` files; plain HTTP off loopback refused; TLS served.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::Duration;

use serde_json::json;

use crate::support::gateway::{Gateway, issue, mpt, policy, primary_and_dir, write_policy};
use crate::support::{TestEnv, json, stderr, stdout};

fn mode(p: &Path) -> u32 {
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

#[test]
fn the_state_is_private_the_policy_stays_reviewable_and_out_files_are_guarded() {
    let env = TestEnv::new();
    let (p, dir) = primary_and_dir(&env, &policy(json!({"lap": {"role": "member"}})));
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(
        dir.join("policy.json"),
        std::fs::Permissions::from_mode(0o644),
    )
    .unwrap();
    let gw = Gateway::start(
        &env,
        &dir,
        &format!("http://127.0.0.1:{}", p.port),
        &[],
        &[],
    );
    assert_eq!(mode(&dir), 0o700);
    assert!(gw.stderr().contains("tightened to 0700"), "{}", gw.stderr());
    assert_eq!(
        mode(&dir.join("policy.json")),
        0o644,
        "the policy is meant to be read and committed"
    );
    issue(&env, &dir, "lap", &["--expires", "1d"]);
    crate::support::gateway::get(gw.port, "not-a-token", "/whoami");
    for f in ["tokens.json", "audit.jsonl", "audit.head.json"] {
        assert_eq!(mode(&dir.join(f)), 0o600, "{f}");
    }

    // --out: the token alone, in a new 0600 file (its folders made 0700), never overwritten
    // silently; a device's MPT_TOKEN_FILE reads it as it is (issue 56, item 1).
    let out = env.path("new/lap.token");
    let issue_to = |flag: &str, path: &std::path::Path, more: &[&str]| {
        let mut a = vec![
            "gateway",
            "token",
            "issue",
            "lap",
            flag,
            path.to_str().unwrap(),
        ];
        a.extend_from_slice(more);
        mpt(&env, &dir, &a)
    };
    let o = issue_to("--out", &out, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(mode(&out), 0o600);
    assert_eq!(mode(out.parent().unwrap()), 0o700);
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(
        text.starts_with("mptg_") && text.trim().len() == text.len() - 1,
        "{text}"
    );
    assert!(
        !stdout(&o).contains("mptg_"),
        "with --out, the secret is in the file only"
    );
    let before = std::fs::read_to_string(dir.join("tokens.json")).unwrap();
    let o = issue_to("--out", &out, &[]);
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    assert!(stderr(&o).contains("--force"), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(dir.join("tokens.json")).unwrap(),
        before,
        "nothing issued for a refused file"
    );
    assert!(issue_to("--out", &out, &["--force"]).status.success());
    assert_ne!(std::fs::read_to_string(&out).unwrap(), text);
    // --env-file: the MEMPALACE_REMOTE_TOKEN line of an env file; one others can read is
    // refused, and no token is issued for it.
    let envfile = env.path("lap.env");
    let o = issue_to("--env-file", &envfile, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let line = std::fs::read_to_string(&envfile).unwrap();
    assert!(line.starts_with("MEMPALACE_REMOTE_TOKEN=mptg_"), "{line}");
    let before = std::fs::read_to_string(dir.join("tokens.json")).unwrap();
    std::fs::set_permissions(&envfile, std::fs::Permissions::from_mode(0o644)).unwrap();
    let o = issue_to("--env-file", &envfile, &[]);
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(dir.join("tokens.json")).unwrap(),
        before
    );
    // A token file holding the env line (an older --out's) is read as its token: the device
    // is let in, and doctor gives the one-line fix.
    std::fs::set_permissions(&envfile, std::fs::Permissions::from_mode(0o600)).unwrap();
    let device = TestEnv::new();
    let o = device.mpt(
        &["--json", "doctor", "--check", "config"],
        &[
            ("MEMPALACE_REMOTE_URL", &format!("{}/mcp", gw.url)),
            ("MPT_TOKEN_FILE", envfile.to_str().unwrap()),
            ("MEMPALACE_PI_DEVICE", "lap"),
        ],
    );
    let c = &json(&o)["checks"][0];
    assert!(
        c.to_string().contains("holds an env line") && c.to_string().contains("sed -i"),
        "{c}"
    );
    // Both set and different: the variable wins, and doctor says so.
    let o = device.mpt(
        &["--json", "doctor", "--check", "config"],
        &[
            ("MEMPALACE_REMOTE_URL", &format!("{}/mcp", gw.url)),
            ("MEMPALACE_REMOTE_TOKEN", "mptg_another_token_of_ours"),
            ("MPT_TOKEN_FILE", envfile.to_str().unwrap()),
            ("MEMPALACE_PI_DEVICE", "lap"),
        ],
    );
    let c = &json(&o)["checks"][0];
    assert!(c.to_string().contains("the variable wins"), "{c}");
    let o = device.mpt(
        &["--json", "call", "mempalace_kg_stats"],
        &[
            ("MEMPALACE_REMOTE_URL", &format!("{}/mcp", gw.url)),
            ("MPT_TOKEN_FILE", envfile.to_str().unwrap()),
        ],
    );
    assert_ne!(
        json(&o).pointer("/error/kind").and_then(|k| k.as_str()),
        Some("auth"),
        "the token was read from the env line: {}",
        stdout(&o)
    );
    // --json never carries the secret, so it needs --out.
    let o = mpt(&env, &dir, &["--json", "gateway", "token", "issue", "lap"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(json(&o)["kind"], "usage");
}

#[test]
fn plain_http_off_loopback_is_refused_unless_allowed() {
    let env = TestEnv::new();
    let dir = env.path("gateway");
    write_policy(&dir, &policy(json!({"lap": {"role": "member"}})));
    let serve = |args: &[&str]| {
        let mut a = vec!["--json", "gateway", "serve"];
        a.extend_from_slice(args);
        let o = env
            .mpt_command(&a)
            .env("MPT_GATEWAY_DIR", &dir)
            .output()
            .unwrap();
        (o.status.code(), json(&o))
    };
    let (code, v) = serve(&["--listen", "0.0.0.0:0", "--upstream", "http://127.0.0.1:9"]);
    assert_eq!(code, Some(4), "{v}");
    assert!(v["message"].as_str().unwrap().contains("TLS"), "{v}");
    let (code, v) = serve(&[
        "--listen",
        "127.0.0.1:0",
        "--upstream",
        "http://10.1.2.3:8765",
    ]);
    assert_eq!(code, Some(4), "{v}");
    let (code, v) = serve(&[
        "--listen",
        "127.0.0.1:0",
        "--upstream",
        "http://u:p@127.0.0.1:9",
    ]);
    assert_eq!(code, Some(2), "{v}");
    assert!(!v.to_string().contains(":p@"), "{v}");
    let (code, _) = serve(&[
        "--listen",
        "127.0.0.1:0",
        "--upstream",
        "http://127.0.0.1:9",
        "--tls-cert",
        "/x.pem",
    ]);
    assert_eq!(code, Some(2), "--tls-cert needs --tls-key");
    // Allowed, it starts (the upstream is reached only per request).
    let gw = Gateway::start(
        &env,
        &dir,
        "http://10.1.2.3:8765",
        &["--allow-insecure"],
        &[],
    );
    assert!(gw.url.starts_with("http://127.0.0.1:"));
}

#[test]
fn tls_is_served_with_the_given_certificate_and_spoken_to_an_https_upstream() {
    let env = TestEnv::new();
    let certs = env.path("certs");
    std::fs::create_dir_all(&certs).unwrap();
    crate::support::certs::make_certs(&certs);
    let (leaf, key, ca) = (
        certs.join("leaf.pem"),
        certs.join("leaf.key"),
        certs.join("ca.pem"),
    );
    // The primary itself on TLS: the gateway verifies it against MPT_CA_FILE.
    let p = crate::support::Primary::start(
        &env,
        &env.palace("primary"),
        crate::support::primary::PrimaryOpts {
            token: Some(crate::support::gateway::UPSTREAM_TOKEN),
            tls: Some((&leaf, &key)),
            ..Default::default()
        },
    );
    let dir = env.path("gateway");
    write_policy(&dir, &policy(json!({"lap": {"role": "member"}})));
    let lap = issue(&env, &dir, "lap", &[]);
    let gw = Gateway::start(
        &env,
        &dir,
        &p.base_url(),
        &[
            "--tls-cert",
            leaf.to_str().unwrap(),
            "--tls-key",
            key.to_str().unwrap(),
        ],
        &[("MPT_CA_FILE", ca.to_str().unwrap())],
    );
    assert!(gw.url.starts_with("https://127.0.0.1:"), "{}", gw.url);
    assert!(p.base_url().starts_with("https://"));
    use mpt_mcp::http::{HttpClient, HttpOptions};
    let client = mpt_mcp::McpClient::Remote(
        HttpClient::new(HttpOptions {
            url: gw.mcp(),
            token: Some(mpt_base::config::Secret::new(lap)),
            ca_file: Some(ca.clone()),
            timeout: Some(Duration::from_secs(60)),
            init_timeout: Some(Duration::from_secs(120)),
            connect_timeout: Duration::from_secs(5),
        })
        .unwrap(),
    );
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let stats = rt
        .block_on(client.call_tool("mempalace_kg_stats", json!({}), mpt_mcp::Deadline::Default))
        .unwrap();
    assert!(stats.payload.get("triples").is_some(), "{}", stats.payload);
    // Without the CA, the upstream's certificate is not trusted: the call fails as 502.
    drop(gw);
    let gw = Gateway::start(&env, &dir, &p.base_url(), &[], &[]);
    let r = crate::support::gateway::call(
        gw.port,
        &issue(&env, &dir, "lap", &[]),
        "mempalace_kg_stats",
        json!({}),
    );
    assert_eq!(r.status, 502, "{}", r.text());
    assert!(
        gw.stderr().contains("certificate") || gw.stderr().contains("UnknownIssuer"),
        "{}",
        gw.stderr()
    );
}
