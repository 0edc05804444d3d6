//! Malformed settings through the binary: each is exit 2 naming the setting, never a hang, a
//! retried exit 7 or a palace made in whatever folder mpt ran in (issue 12, items 6 and 7).

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::process::Output;

use serde_json::Value;

use crate::support::{TestEnv, json, stderr, stdout};

const URL: &str = "http://127.0.0.1:9/mcp";

/// `mpt --json config` with `vars` (values may be any bytes); the error document, asserted exit 2.
fn config_fails(env: &TestEnv, vars: &[(&str, &OsStr)]) -> Value {
    let o = mpt_os(env, &["--json", "config"], vars);
    assert_eq!(o.status.code(), Some(2), "{}{}", stdout(&o), stderr(&o));
    let doc = json(&o);
    assert_eq!(doc["kind"], "usage", "{doc}");
    doc
}

fn mpt_os(env: &TestEnv, args: &[&str], vars: &[(&str, &OsStr)]) -> Output {
    let mut cmd = env.mpt_command(args);
    for (k, v) in vars {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

fn os(s: &str) -> &OsStr {
    OsStr::new(s)
}

fn message(doc: &Value) -> &str {
    doc["message"].as_str().unwrap()
}

fn fifo(path: &std::path::Path) {
    let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

#[test]
fn a_missing_or_non_pem_ca_file_is_exit_2_naming_it() {
    let env = TestEnv::new();
    let missing = env.path("nowhere.pem");
    let doc = config_fails(
        &env,
        &[
            ("MEMPALACE_REMOTE_URL", os(URL)),
            ("MPT_CA_FILE", missing.as_os_str()),
        ],
    );
    assert!(
        message(&doc).contains("MPT_CA_FILE") && message(&doc).contains("nowhere.pem"),
        "{doc}"
    );
    let garbage = env.path("garbage.pem");
    std::fs::write(&garbage, "not a certificate\n").unwrap();
    let doc = config_fails(
        &env,
        &[
            ("MEMPALACE_REMOTE_URL", os(URL)),
            ("MPT_CA_FILE", garbage.as_os_str()),
        ],
    );
    assert!(message(&doc).contains("no PEM certificate"), "{doc}");
}

#[test]
fn a_token_with_a_line_break_or_a_non_utf8_byte_is_exit_2_and_never_printed() {
    let env = TestEnv::new();
    let bad: [&[u8]; 2] = [b"tok-secret-1\ntok-secret-2", b"tok-secret-\xff"];
    for raw in bad {
        let o = mpt_os(
            &env,
            &["--json", "config"],
            &[
                ("MEMPALACE_REMOTE_URL", os(URL)),
                ("MEMPALACE_REMOTE_TOKEN", OsStr::from_bytes(raw)),
            ],
        );
        assert_eq!(o.status.code(), Some(2), "{}{}", stdout(&o), stderr(&o));
        let doc = json(&o);
        assert!(message(&doc).contains("MEMPALACE_REMOTE_TOKEN"), "{doc}");
        assert!(!stdout(&o).contains("tok-secret") && !stderr(&o).contains("tok-secret"));
    }
    let tf = env.path("token");
    std::fs::write(&tf, b"tok-secret\x00inside\n").unwrap();
    std::fs::set_permissions(&tf, std::fs::Permissions::from_mode(0o600)).unwrap();
    let doc = config_fails(
        &env,
        &[
            ("MEMPALACE_REMOTE_URL", os(URL)),
            ("MPT_TOKEN_FILE", tf.as_os_str()),
        ],
    );
    assert!(message(&doc).contains(tf.to_str().unwrap()), "{doc}");
}

#[test]
fn a_config_file_not_utf8_is_exit_2_and_a_bom_is_accepted() {
    let env = TestEnv::new();
    let cfg = env.path("config.json");
    std::fs::write(&cfg, b"{\"harness\": \"p\xffi\"}").unwrap();
    let doc = config_fails(&env, &[("MPT_CONFIG", cfg.as_os_str())]);
    assert!(
        message(&doc).contains(cfg.to_str().unwrap()) && message(&doc).contains("UTF-8"),
        "{doc}"
    );

    std::fs::write(&cfg, b"\xef\xbb\xbf{\"harness\": \"pi\"}").unwrap();
    let o = mpt_os(
        &env,
        &["--json", "config"],
        &[("MPT_CONFIG", cfg.as_os_str())],
    );
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    assert_eq!(json(&o)["harness"], "pi");
}

#[test]
fn a_fifo_or_a_device_named_as_config_or_token_file_is_exit_2_without_hanging() {
    let env = TestEnv::new();
    let pipe = env.path("fifo");
    fifo(&pipe);
    for target in [pipe.as_os_str(), os("/dev/zero")] {
        let doc = config_fails(&env, &[("MPT_CONFIG", target)]);
        assert!(message(&doc).contains("MPT_CONFIG"), "{doc}");
        assert!(message(&doc).contains("not a regular file"), "{doc}");
        let doc = config_fails(
            &env,
            &[
                ("MEMPALACE_REMOTE_URL", os(URL)),
                ("MPT_TOKEN_FILE", target),
            ],
        );
        assert!(
            message(&doc).contains("MPT_TOKEN_FILE")
                && message(&doc).contains("not a regular file"),
            "{doc}"
        );
    }
}

#[test]
fn an_empty_or_relative_path_in_the_config_file_is_exit_2_naming_the_field() {
    let env = TestEnv::new();
    let cfg = env.path("config.json");
    let cases = [
        (r#"{"palace": ""}"#, "palace"),
        (r#"{"palace": "palace"}"#, "palace"),
        (r#"{"outbox": "q/outbox.sqlite3"}"#, "outbox"),
        (r#"{"child": ""}"#, "child"),
        (r#"{"child": "venv/bin/mempalace-mcp"}"#, "child"),
        (r#"{"ca_file": ""}"#, "ca_file"),
        (r#"{"token_file": "token"}"#, "token_file"),
    ];
    for (text, field) in cases {
        std::fs::write(&cfg, text).unwrap();
        let o = mpt_os(
            &env,
            &["--json", "call", "--list"],
            &[("MPT_CONFIG", cfg.as_os_str())],
        );
        assert_eq!(
            o.status.code(),
            Some(2),
            "{text}: {}{}",
            stdout(&o),
            stderr(&o)
        );
        let doc = json(&o);
        assert!(
            message(&doc).contains(&format!("\"{field}\""))
                && message(&doc).contains("config.json"),
            "{text}: {doc}"
        );
    }
    assert!(
        !env.path("chroma.sqlite3").exists() && !env.path("palace").exists(),
        "no palace was made in the working directory"
    );
    // `~/` is the home, and a bare command name is looked up on PATH.
    std::fs::write(&cfg, r#"{"palace": "~/p", "child": "mempalace-mcp"}"#).unwrap();
    let o = mpt_os(
        &env,
        &["--json", "config"],
        &[("MPT_CONFIG", cfg.as_os_str())],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        json(&o)["palace"],
        env.home().join("p").to_str().unwrap(),
        "{}",
        stdout(&o)
    );
}

#[test]
fn an_empty_or_relative_path_in_the_environment_is_exit_2_naming_the_variable() {
    let env = TestEnv::new();
    for (key, value) in [
        ("MPT_OUTBOX", ""),
        ("MPT_OUTBOX", "outbox.sqlite3"),
        ("MPT_CONFIG", "config.json"),
        ("MPT_TOKEN_FILE", ""),
        ("MPT_CA_FILE", "ca.pem"),
    ] {
        let o = mpt_os(&env, &["--json", "outbox", "list"], &[(key, os(value))]);
        assert_eq!(o.status.code(), Some(2), "{key}={value}: {}", stdout(&o));
        assert!(
            message(&json(&o)).contains(key),
            "{key}={value}: {}",
            stdout(&o)
        );
    }
    assert!(!env.path("outbox.sqlite3").exists());
}

#[test]
fn a_relative_palace_flag_resolves_against_the_working_directory_and_an_empty_one_is_refused() {
    let env = TestEnv::new();
    let o = mpt_os(&env, &["--json", "paths", "--palace", "here/palace"], &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        json(&o)["paths"]["palace"],
        env.dir.path().join("here/palace").to_str().unwrap()
    );
    let o = mpt_os(&env, &["--json", "paths", "--palace", ""], &[]);
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
}
