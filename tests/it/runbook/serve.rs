//! `mpt runbook phase1` on serve configurations: compose files (the LAN trap, the recommended
//! shape, a token missing from .env), a serve command line (loopback, a port clash), a real primary.

use crate::runbook::files::{COMPOSE, write};
use crate::runbook::{runbook, state, step};
use crate::support::primary::PrimaryOpts;
use crate::support::{Primary, TestEnv};

#[test]
fn phase1_judges_bind_token_tls_and_port_from_compose_commands_and_a_real_primary() {
    let env = TestEnv::new();
    let (code, doc) = runbook(&env, &["phase1"], &[]);
    assert_eq!(code, 0, "{doc}");
    for id in ["serve-bind", "serve-token", "serve-tls", "serve-port"] {
        assert_eq!(
            state(step(&doc, id)),
            "not_applicable",
            "no serve config: {doc}"
        );
    }

    // The LAN trap, from a compose file.
    let lan = env.path("lan");
    write(&lan.join("docker-compose.mempalace.yml"), COMPOSE);
    let (code, doc) = runbook(&env, &["phase1", "--scan", lan.to_str().unwrap()], &[]);
    assert_eq!(code, 3);
    let bind = step(&doc, "serve-bind");
    assert_eq!(state(bind), "to_do");
    assert!(
        bind["summary"].as_str().unwrap().contains("whole LAN"),
        "{bind}"
    );
    assert!(
        bind["summary"]
            .as_str()
            .unwrap()
            .contains("docker-compose.mempalace.yml:4"),
        "{bind}"
    );
    assert_eq!(
        state(step(&doc, "serve-token")),
        "done",
        "--token is a token (credentials flags the argv)"
    );
    assert_eq!(state(step(&doc, "serve-tls")), "to_do");
    assert!(!doc.to_string().contains("s3cr3t"));

    // The recommended shape: docker0 gateway published, token from .env, TLS.
    let free = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = free.local_addr().unwrap().port();
    drop(free);
    let good = env.path("good");
    write(
        &good.join("compose.yaml"),
        &format!(
            "services:\n  mempalace:\n    image: x\n    command: [\"mempalace\", \"serve\", \"--host\", \"0.0.0.0\", \"--port\", \"8765\", \"--tls-cert\", \"/tls/cert.pem\", \"--tls-key\", \"/tls/key.pem\"]\n    environment:\n      MEMPALACE_MCP_HTTP_TOKEN: ${{MEMPALACE_MCP_HTTP_TOKEN}}\n    ports:\n      - \"172.17.0.1:{port}:8765\"\n"
        ),
    );
    write(&good.join(".env"), "MEMPALACE_MCP_HTTP_TOKEN=from-dotenv\n");
    let (code, doc) = runbook(&env, &["phase1", "--scan", good.to_str().unwrap()], &[]);
    for id in ["serve-bind", "serve-token", "serve-tls", "serve-port"] {
        assert_eq!(state(step(&doc, id)), "done", "{id}: {doc}");
    }
    assert_eq!(code, 0);
    // The same service with the .env lacking the token and a loopback bind inside the container.
    write(&good.join(".env"), "OTHER=1\n");
    let text = std::fs::read_to_string(good.join("compose.yaml"))
        .unwrap()
        .replace("\"0.0.0.0\"", "\"127.0.0.1\"");
    write(&good.join("compose.yaml"), &text);
    let (_, doc) = runbook(&env, &["phase1", "--scan", good.to_str().unwrap()], &[]);
    assert!(
        step(&doc, "serve-bind")["summary"]
            .as_str()
            .unwrap()
            .contains("inside its container"),
        "{doc}"
    );
    assert!(
        step(&doc, "serve-token")["summary"]
            .as_str()
            .unwrap()
            .contains("no authentication at all"),
        "{doc}"
    );

    // The loopback trap and a port clash, from a serve command line.
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let p = taken.local_addr().unwrap().port().to_string();
    let cmd = format!("mempalace serve --host 127.0.0.1 --port {p}");
    let (_, doc) = runbook(&env, &["phase1", "--serve-cmd", &cmd], &[]);
    let bind = step(&doc, "serve-bind");
    assert_eq!(state(bind), "to_do");
    assert!(bind["summary"].as_str().unwrap().contains("403"), "{bind}");
    assert_eq!(state(step(&doc, "serve-token")), "to_do");
    assert_eq!(state(step(&doc, "serve-tls")), "not_applicable");
    let port = step(&doc, "serve-port");
    assert_eq!(state(port), "to_do");
    assert!(
        port["summary"]
            .as_str()
            .unwrap()
            .contains(&format!("pid {}", std::process::id())),
        "{port}"
    );
    drop(taken);

    // A real `mempalace serve` found running: its own port is no clash; its loopback bind is.
    let primary = Primary::start(
        &env,
        &env.palace("primary"),
        PrimaryOpts {
            token: Some("t0k"),
            ..Default::default()
        },
    );
    let (_, doc) = runbook(&env, &["phase1"], &[]);
    let port = step(&doc, "serve-port");
    assert_eq!(state(port), "done", "{doc}");
    assert!(
        port["summary"]
            .as_str()
            .unwrap()
            .contains("the primary itself listens"),
        "{port}"
    );
    assert_eq!(state(step(&doc, "serve-token")), "done", "{doc}");
    assert_eq!(state(step(&doc, "serve-bind")), "to_do", "{doc}");
    drop(primary);
}

#[test]
fn a_deliberate_loopback_or_lan_bind_is_done_with_its_cost_stated() {
    let env = TestEnv::new();
    let loopback = "mempalace serve --host 127.0.0.1 --port 0";
    let (_, doc) = runbook(&env, &["phase1", "--serve-cmd", loopback], &[]);
    let bind = step(&doc, "serve-bind");
    assert_eq!(state(bind), "to_do", "not said to be deliberate: {bind}");
    assert!(
        bind["manual"]
            .as_str()
            .unwrap()
            .contains("--bind-ok loopback"),
        "the to-do names the flag: {bind}"
    );

    let args = ["phase1", "--bind-ok", "loopback", "--serve-cmd", loopback];
    let (_, doc) = runbook(&env, &args, &[]);
    let bind = step(&doc, "serve-bind");
    assert_eq!(state(bind), "done", "{bind}");
    let why = bind["summary"].as_str().unwrap();
    assert!(
        why.contains("deliberately (--bind-ok loopback)") && why.contains("`mpt gateway`"),
        "the cost: a gateway or a tunnel in front: {bind}"
    );
    let mut all = vec!["runbook"];
    all.extend_from_slice(&args);
    let o = env.mpt(&all, &[]);
    crate::human::settings(&env)
        .bind(|| insta::assert_snapshot!("runbook_bind_ok_loopback", crate::human::shown(&o)));

    // The LAN, kept in the config: done, the cost TLS and a token; the flag still wins.
    let config = env.path("mpt.json");
    std::fs::write(&config, r#"{"serve_bind": "lan"}"#).unwrap();
    let lan = "mempalace serve --host 0.0.0.0 --port 0";
    let c = config.to_str().unwrap();
    let (_, doc) = runbook(
        &env,
        &["--mpt-config", c, "phase1", "--serve-cmd", lan],
        &[],
    );
    let bind = step(&doc, "serve-bind");
    assert_eq!(state(bind), "done", "{bind}");
    let why = bind["summary"].as_str().unwrap();
    assert!(
        why.contains("the LAN, deliberately (serve_bind \"lan\" in") && why.contains("TLS"),
        "{bind}"
    );
    assert_eq!(
        state(step(&doc, "serve-tls")),
        "to_do",
        "the cost is still owed: {doc}"
    );
    let (_, doc) = runbook(
        &env,
        &[
            "--mpt-config",
            c,
            "phase1",
            "--bind-ok",
            "loopback",
            "--serve-cmd",
            lan,
        ],
        &[],
    );
    assert_eq!(
        state(step(&doc, "serve-bind")),
        "to_do",
        "loopback was chosen, it binds every interface: {doc}"
    );

    let bad = env.mpt(&["runbook", "phase1", "--bind-ok", "docker"], &[]);
    assert_eq!(bad.status.code(), Some(2), "{}", crate::human::shown(&bad));
    std::fs::write(&config, r#"{"serve_bind": "everywhere"}"#).unwrap();
    let bad = env.mpt(
        &[
            "--mpt-config",
            c,
            "doctor",
            "--offline",
            "--check",
            "config",
        ],
        &[],
    );
    assert_eq!(bad.status.code(), Some(3));
    let text = crate::support::stdout(&bad);
    assert!(
        text.contains("unknown variant `everywhere`, expected `loopback` or `lan`"),
        "the bad value named: {text}"
    );
}
