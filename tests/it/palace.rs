//! MemPalace's path rules, checked against the real 3.11: the config dir and palace precedence
//! as its own Python resolves them, the KG landmine with a real child started without `--palace`,
//! the server registry, the writer lease, and the embedder sidecar.

use std::process::Command;

use mpt_base::config::Env;
use mpt_mcp::Deadline;
use mpt_palace::{PalacePaths, files, kg};
use serde_json::json;

use crate::mcp::stdio_real::real_child;
use crate::support::primary::PrimaryOpts;
use crate::support::{Primary, TestEnv, venv_bin};

/// What MemPalace itself computes under `vars` (its own Python, same HOME).
fn python_paths(env: &TestEnv, vars: &[(&str, String)]) -> serde_json::Value {
    let script = "import json; from mempalace.config import MempalaceConfig as C; c = C(); \
                  print(json.dumps({'config_dir': str(c.config_dir), 'palace': c.palace_path, \
                  'hallways': c.hallway_file, 'tunnels': c.tunnel_file}))";
    let mut cmd = Command::new(venv_bin("python"));
    cmd.env_clear().args(["-c", script]);
    for (k, v) in env.mempalace_env() {
        cmd.env(k, v);
    }
    for (k, v) in vars {
        cmd.env(k, v);
    }
    let o = cmd.output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

fn ours(env: &TestEnv, vars: &[(&str, String)]) -> PalacePaths {
    let mut pairs: Vec<(String, String)> = env.mempalace_env();
    pairs.extend(vars.iter().map(|(k, v)| (k.to_string(), v.clone())));
    PalacePaths::resolve(&Env::from_pairs(pairs), None).unwrap()
}

#[test]
fn config_dir_and_palace_precedence_match_mempalace() {
    let env = TestEnv::new();
    let home = env.home();
    type Case<'a> = (&'a str, Vec<(&'a str, String)>, Box<dyn Fn()>);
    let cases: Vec<Case> = vec![
        ("plain home", vec![], Box::new(|| {})),
        (
            "XDG_CONFIG_HOME",
            vec![("XDG_CONFIG_HOME", env.path("xdg").display().to_string())],
            Box::new(|| {}),
        ),
        (
            "relative XDG is ignored",
            vec![("XDG_CONFIG_HOME", "rel/xdg".into())],
            Box::new(|| {}),
        ),
        (
            "MEMPALACE_CONFIG_DIR",
            vec![(
                "MEMPALACE_CONFIG_DIR",
                env.path("cfgdir").display().to_string(),
            )],
            Box::new(|| {}),
        ),
        (
            "MEMPALACE_PALACE beats config",
            vec![(
                "MEMPALACE_PALACE",
                env.path("a/../b/pal").display().to_string(),
            )],
            Box::new(|| {}),
        ),
        (
            "PALACE_PATH beats PALACE",
            vec![
                ("MEMPALACE_PALACE_PATH", "~/pp".into()),
                ("MEMPALACE_PALACE", env.path("x").display().to_string()),
            ],
            Box::new(|| {}),
        ),
        (
            "legacy ~/.mempalace with config.json palace_path",
            vec![],
            {
                let legacy = home.join(".mempalace");
                Box::new(move || {
                    std::fs::create_dir_all(&legacy).unwrap();
                    std::fs::write(
                        legacy.join("config.json"),
                        r#"{"palace_path": "~/elsewhere/palace"}"#,
                    )
                    .unwrap();
                })
            },
        ),
    ];
    for (name, vars, setup) in cases {
        setup();
        let py = python_paths(&env, &vars);
        let p = ours(&env, &vars);
        assert_eq!(
            p.config_dir.display().to_string(),
            py["config_dir"].as_str().unwrap(),
            "{name}: config dir"
        );
        assert_eq!(
            p.palace.display().to_string(),
            py["palace"].as_str().unwrap(),
            "{name}: palace"
        );
        assert_eq!(
            p.hallways.display().to_string(),
            py["hallways"].as_str().unwrap(),
            "{name}: hallways"
        );
        assert_eq!(
            p.tunnels.display().to_string(),
            py["tunnels"].as_str().unwrap(),
            "{name}: tunnels"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_child_without_the_palace_flag_writes_its_kg_under_home() {
    let env = TestEnv::new();
    let palace = env.palace("local");
    // The landmine: the palace chosen by MEMPALACE_PALACE_PATH, but no --palace flag.
    let c = env.bare_child(&palace);
    c.call_tool(
        "mempalace_kg_add",
        json!({"subject": "mpt", "predicate": "reads", "object": "the KG"}),
        Deadline::Default,
    )
    .await
    .unwrap();
    let paths = ours(
        &env,
        &[("MEMPALACE_PALACE_PATH", palace.display().to_string())],
    );
    assert_eq!(paths.palace, palace);
    assert_eq!(
        paths.kg_path(false),
        env.home().join(".mempalace/knowledge_graph.sqlite3")
    );
    // Read while the child still holds it open (WAL), then after it is gone.
    let live = kg::stats(paths.kg_path(false))
        .unwrap()
        .expect("the KG landed under HOME");
    assert_eq!((live.triples, live.current_facts), (1, 1));
    assert_eq!(
        kg::stats(paths.kg_path(true)).unwrap(),
        None,
        "nothing palace-local"
    );
    c.shutdown().await;
    assert_eq!(kg::stats(paths.kg_path(false)).unwrap().unwrap().triples, 1);

    // With the flag (as mpt always starts it), the KG is palace-local.
    let flagged = real_child(&env, &palace);
    flagged
        .call_tool(
            "mempalace_kg_add",
            json!({"subject": "edge", "predicate": "passes", "object": "--palace"}),
            Deadline::Default,
        )
        .await
        .unwrap();
    let facts = kg::current_facts(paths.kg_path(true), 10).unwrap().unwrap();
    assert_eq!(facts.len(), 1);
    assert_eq!(facts[0].predicate, "passes");
    flagged.shutdown().await;
}

#[test]
fn registry_lease_and_sidecar_of_a_real_primary() {
    let env = TestEnv::new();
    let palace = env.palace("primary");
    let p = Primary::start(&env, &palace, PrimaryOpts::default());
    let paths = ours(&env, &[]);
    let paths = PalacePaths::resolve(
        &Env::from_pairs([("HOME", paths.home.display().to_string())]),
        Some(&palace),
    )
    .unwrap();
    assert_eq!(
        paths.serverinfo, p.serverinfo,
        "the registry key is sha256(realpath(palace))[:24]"
    );
    let info = files::server_info(&paths.serverinfo).unwrap().unwrap();
    assert_eq!((info.port, info.alive, info.pid), (p.port, true, p.pid()));
    assert_eq!(info.mcp_url(), p.url());

    let lease = files::lease_holder(&paths.writer_lease)
        .unwrap()
        .expect("a writable serve takes the writer lease");
    assert!(lease.held, "{lease:?}");
    assert_eq!(lease.pid, Some(p.pid()));
    assert!(lease.pid_alive);

    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let c = mpt_mcp::McpClient::Remote(
            mpt_mcp::http::HttpClient::new(mpt_mcp::http::HttpOptions {
                url: p.url(),
                token: None,
                ca_file: None,
                timeout: None,
                init_timeout: None,
                connect_timeout: std::time::Duration::from_secs(5),
            })
            .unwrap(),
        );
        c.call_tool(
            "mempalace_add_drawer",
            json!({"wing": "w", "room": "r", "content": "embedded by minilm"}),
            Deadline::Default,
        )
        .await
        .unwrap();
    });
    let id = files::embedder_identity(&paths.embedder_sidecar)
        .unwrap()
        .expect("sidecar written on first write");
    assert_eq!(id.model_name, "minilm");
}
