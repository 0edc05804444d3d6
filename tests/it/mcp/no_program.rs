//! A `mempalace-mcp` that is missing, not executable or a directory never heals by waiting: exit
//! 1 naming the program at the first spawn (exit 2 when `--child` or the config's `child` named
//! it), from `mpt call`, the edge shim and `--standalone`; never 7 after backoffs.

use serde_json::Value;

use crate::support::{TestEnv, stderr, stdout, write_script};

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;

/// `mpt ARGS` with `PATH` replaced and one `initialize` on stdin: (exit code, stdout, stderr).
fn run(env: &TestEnv, args: &[&str], path: &str, extra: &[(&str, &str)]) -> (i32, String, String) {
    use std::io::Write;
    let palace = env.palace("p");
    let mut cmd = env.mpt_command(args);
    cmd.env("PATH", path)
        .env("MEMPALACE_PALACE_PATH", &palace)
        .envs(extra.iter().copied())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let _ = writeln!(stdin, "{INIT}");
    drop(stdin);
    let o = child.wait_with_output().unwrap();
    (o.status.code().unwrap_or(-1), stdout(&o), stderr(&o))
}

#[test]
fn a_missing_or_unrunnable_child_is_exit_1_naming_it_at_the_first_spawn() {
    let env = TestEnv::new();
    let bin = env.path("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let not_exec = bin.join("mempalace-mcp");
    write_script(&not_exec, "#!/bin/sh\nexit 0\n");
    std::fs::set_permissions(
        &not_exec,
        std::os::unix::fs::PermissionsExt::from_mode(0o644),
    )
    .unwrap();
    let dir = env.path("dirbin");
    std::fs::create_dir_all(dir.join("mempalace-mcp")).unwrap();
    let cases = [
        (
            "/usr/bin:/bin".to_string(),
            "mempalace-mcp: it is not on PATH",
        ),
        (
            format!("{}:/usr/bin:/bin", bin.display()),
            "is not executable (mode 0644)",
        ),
        (
            format!("{}:/usr/bin:/bin", dir.display()),
            "mempalace-mcp is a directory",
        ),
    ];
    // A backoff that would be seen: the old self-heal slept it twice before exit 7.
    let slow = [("MEMPALACE_MCP_RESPAWN_BACKOFF_MS", "20000")];
    for (path, says) in &cases {
        let (code, out, err) = run(&env, &["--json", "call", "status"], path, &slow);
        assert_eq!(code, 1, "{path}: {out}{err}");
        let e: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(e["kind"], "io", "{e}");
        let msg = e["message"].as_str().unwrap();
        assert!(msg.contains(says) && !msg.contains("stays down"), "{msg}");
        assert!(
            e["hint"]
                .as_str()
                .unwrap()
                .contains("pip install mempalace"),
            "{e}"
        );
        // The edge a harness starts: stdout stays MCP (empty here), the reason on stderr.
        for edge in [&["edge"][..], &["edge", "--standalone"]] {
            let (code, out, err) = run(&env, edge, path, &slow);
            assert_eq!(code, 1, "{edge:?} {path}: {out}{err}");
            assert!(out.is_empty(), "{edge:?}: {out}");
            assert!(err.contains(says), "{edge:?}: {err}");
        }
    }
}

#[test]
fn a_bad_child_value_is_exit_2_naming_the_setting() {
    let env = TestEnv::new();
    let cfg = env.path("config.json");
    let missing = env.path("venv/bin/mempalace-mcp");
    std::fs::write(&cfg, format!(r#"{{"child": "{}"}}"#, missing.display())).unwrap();
    let vars = [("MPT_CONFIG", cfg.to_str().unwrap())];
    let path = "/usr/bin:/bin";
    let (code, out, _) = run(&env, &["--json", "call", "status"], path, &vars);
    assert_eq!(code, 2, "{out}");
    let msg = json_msg(&out);
    assert!(
        msg.contains(missing.to_str().unwrap())
            && msg.contains(&format!("`child` in {}", cfg.display())),
        "{msg}"
    );
    let (code, _, err) = run(&env, &["edge", "--standalone"], path, &vars);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("`child` in"), "{err}");
    let dir = env.path("a-folder");
    std::fs::create_dir_all(&dir).unwrap();
    let (code, out, _) = run(
        &env,
        &["--json", "call", "--child", dir.to_str().unwrap(), "status"],
        path,
        &[],
    );
    assert_eq!(code, 2, "{out}");
    let msg = json_msg(&out);
    assert!(
        msg.contains("is a directory") && msg.contains("--child"),
        "{msg}"
    );
}

fn json_msg(out: &str) -> String {
    let e: Value = serde_json::from_str(out).unwrap_or_else(|_| panic!("not JSON: {out}"));
    assert_eq!(e["schema"], "mpt.error/v1", "{e}");
    e["message"].as_str().unwrap().to_string()
}
