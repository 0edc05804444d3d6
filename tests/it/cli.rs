//! The CLI contract: help for every command, completions and man pages committed and current,
//! a clean exit when the reader goes away, and the JSON error envelope for usage errors.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::support::{TestEnv, json, stdout};

const SUBCOMMANDS: &[&str] = &[
    "doctor",
    "edge",
    "runbook",
    "call",
    "config",
    "paths",
    "mailbox",
    "feed",
    "outbox",
    "completions",
    "man",
];

#[test]
fn help_for_every_command() {
    let env = TestEnv::new();
    let top = env.mpt(&["--help"], &[]);
    assert!(top.status.success());
    let text = stdout(&top);
    for sub in SUBCOMMANDS {
        assert!(text.contains(sub), "top-level help lists {sub}");
        let o = env.mpt(&[sub, "--help"], &[]);
        assert!(o.status.success(), "{sub} --help");
        assert!(
            stdout(&o).contains("Usage: mpt"),
            "{sub} --help prints usage"
        );
    }
    assert!(
        text.contains("Exit codes"),
        "help carries the exit-code table"
    );
    // Every nested command too (`mpt outbox flush`, `mpt runbook apply`, ...), from clap's tree.
    fn walk(c: &clap::Command, path: Vec<String>, out: &mut Vec<Vec<String>>) {
        for s in c
            .get_subcommands()
            .filter(|s| !s.is_hide_set() && s.get_name() != "help")
        {
            let mut p = path.clone();
            p.push(s.get_name().to_string());
            out.push(p.clone());
            walk(s, p, out);
        }
    }
    let mut all = Vec::new();
    walk(
        &<mpt::cli::Cli as clap::CommandFactory>::command(),
        Vec::new(),
        &mut all,
    );
    assert!(all.len() > SUBCOMMANDS.len(), "nested commands exist");
    for path in all {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("--help");
        let o = env.mpt(&args, &[]);
        assert!(
            o.status.success() && stdout(&o).contains("Usage: mpt"),
            "{args:?}"
        );
    }
}

#[test]
fn version_prints() {
    let env = TestEnv::new();
    let o = env.mpt(&["--version"], &[]);
    assert!(o.status.success());
    assert_eq!(
        stdout(&o).trim(),
        format!("mpt {}", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn completions_are_committed_and_current() {
    let env = TestEnv::new();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (shell, file) in [
        ("bash", "mpt.bash"),
        ("zsh", "_mpt"),
        ("fish", "mpt.fish"),
        ("elvish", "mpt.elv"),
        ("powershell", "_mpt.ps1"),
    ] {
        let o = env.mpt(&["completions", shell], &[]);
        assert!(o.status.success());
        let committed = std::fs::read(root.join("completions").join(file))
            .unwrap_or_else(|_| panic!("completions/{file} is missing: run scripts/regen.sh"));
        assert!(
            committed == o.stdout,
            "completions/{file} is stale: run scripts/regen.sh"
        );
    }
}

#[test]
fn man_pages_are_committed_and_current() {
    let env = TestEnv::new();
    let out = env.path("man");
    let o = env.mpt(&["--json", "man", out.to_str().unwrap()], &[]);
    assert!(o.status.success());
    let pages: Vec<String> = json(&o)["pages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap().to_string())
        .collect();
    // One page per command at every depth (`mpt mailbox ack`, `mpt runbook apply`), plus mpt.1.
    fn count(c: &clap::Command) -> usize {
        c.get_subcommands()
            .filter(|s| !s.is_hide_set())
            .map(|s| 1 + count(s))
            .sum()
    }
    let cli = <mpt::cli::Cli as clap::CommandFactory>::command();
    assert_eq!(pages.len(), count(&cli) + 1, "{pages:?}");
    for sub in SUBCOMMANDS {
        assert!(pages.contains(&format!("mpt-{sub}.1")), "{sub}: {pages:?}");
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("man");
    let mut committed: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    committed.sort();
    let mut fresh: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    fresh.sort();
    assert_eq!(
        committed, fresh,
        "man/ holds exactly the generated pages: run scripts/regen.sh"
    );
    for name in fresh {
        let a = std::fs::read(out.join(&name)).unwrap();
        let b = std::fs::read(root.join(&name)).unwrap();
        assert!(
            a == b,
            "man/{} is stale: run scripts/regen.sh",
            name.to_string_lossy()
        );
    }
    let top = std::fs::read_to_string(root.join("mpt.1")).unwrap();
    assert!(
        top.contains("Exit codes"),
        "the man page carries the exit-code table"
    );
}

#[test]
fn completions_into_a_closed_pipe_exit_0() {
    // `mpt completions bash | head -1`: the reader leaves after one line.
    let mut child = Command::new(env!("CARGO_BIN_EXE_mpt"))
        .env_clear()
        .args(["completions", "bash"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 16];
    child
        .stdout
        .as_mut()
        .unwrap()
        .read_exact(&mut first)
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
}

#[test]
fn usage_error_under_json_is_one_error_document() {
    let env = TestEnv::new();
    let o = env.mpt(&["--json", "call", "status", "--no-such-flag"], &[]);
    assert_eq!(o.status.code(), Some(2));
    let v = json(&o);
    assert_eq!(v["schema"], "mpt.error/v1");
    assert_eq!(v["kind"], "usage");
    assert_eq!(v["exit_code"], 2);
    assert!(v["message"].as_str().unwrap().contains("--no-such-flag"));

    let unknown = env.mpt(&["--json", "frobnicate"], &[]);
    assert_eq!(unknown.status.code(), Some(2));
    assert_eq!(json(&unknown)["schema"], "mpt.error/v1");

    // A near miss names what it may have meant, for a script as for a person.
    let typo = json(&env.mpt(&["--json", "doctr"], &[]));
    assert_eq!(
        typo["detail"]["suggested"],
        serde_json::json!(["doctor"]),
        "{typo}"
    );
}

#[test]
fn bad_tool_arguments_are_a_usage_error() {
    let env = TestEnv::new();
    let o = env.mpt(&["--json", "call", "status", "{not json"], &[]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(json(&o)["kind"], "usage");
}

#[test]
fn maintenance_and_destructive_tools_never_go_to_the_primary() {
    let env = TestEnv::new();
    // Refused before any connection: the URL points nowhere.
    for tool in ["sync", "mempalace_reconnect", "delete_drawer", "mine"] {
        let o = env.mpt(
            &["--json", "call", tool],
            &[("MEMPALACE_REMOTE_URL", "http://127.0.0.1:9/mcp")],
        );
        assert_eq!(o.status.code(), Some(4), "{tool}");
        assert_eq!(json(&o)["kind"], "refused");
    }
}
