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
