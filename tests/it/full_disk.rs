//! A full disk (issue 12, item 9) and two small contracts: reading the outbox needs no write (for
//! `mpt outbox`, doctor and `mpt edge status` alike), the edge starts and answers, and a write
//! whose intent cannot be recorded is written nowhere (safe to call again), huge JSON-RPC ids come
//! back byte-exact, and a stored enqueue whose print fails still exits 0.
//!
//! The full disk is simulated with a file-size limit (RLIMIT_FSIZE soft 0, SIGXFSZ ignored, set
//! in `pre_exec`): every write that would grow a file fails with EFBIG, the error SQLite meets
//! on a full disk when it sizes its shared-memory file or appends to its log. Unlike a small
//! tmpfs it needs no mount, and unlike a read-only folder it also binds root. The real
//! `mempalace-mcp` child raises its soft limit back (a wrapper), as a palace on another disk.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::process::{Command, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::{Spawned, TestEnv, json, stderr, stdout, venv_bin};

/// `mpt args` as `env.mpt` runs it, but with every file write past 0 bytes failing (EFBIG).
fn on_a_full_disk(env: &TestEnv, args: &[&str], extra: &[(&str, &str)]) -> Command {
    let mut cmd = env.mpt_command(args);
    for (k, v) in extra {
        cmd.env(k, v);
    }
    unsafe {
        cmd.pre_exec(|| {
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            let lim = libc::rlimit {
                rlim_cur: 0,
                rlim_max: libc::RLIM_INFINITY,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    cmd
}

fn run(mut cmd: Command) -> Output {
    cmd.stdin(Stdio::null()).output().unwrap()
}

fn queued_one(env: &TestEnv, vars: &[(&str, &str)]) -> String {
    let o = env.mpt(
        &[
            "--json",
            "outbox",
            "enqueue",
            "kg_add",
            r#"{"subject":"disk","predicate":"is","object":"full"}"#,
        ],
        vars,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    json(&o)["op_id"].as_str().unwrap().to_string()
}

#[test]
fn the_outbox_is_read_on_a_full_disk() {
    let env = TestEnv::new();
    let outbox = env.path("ob/outbox.sqlite3");
    let vars = [("MPT_OUTBOX", outbox.to_str().unwrap())];
    let op = queued_one(&env, &vars);
    let list = run(on_a_full_disk(
        &env,
        &["--json", "outbox", "list", "--state", "all"],
        &vars,
    ));
    assert!(list.status.success(), "{}{}", stdout(&list), stderr(&list));
    assert_eq!(json(&list)["ops"][0]["op_id"], op.as_str());
    let summary = run(on_a_full_disk(&env, &["--json", "outbox"], &vars));
    assert!(summary.status.success(), "{}", stdout(&summary));
    assert_eq!(json(&summary)["counts"]["queued"], 1);
    let show = run(on_a_full_disk(&env, &["outbox", "show", &op[..12]], &vars));
    assert!(show.status.success(), "{}", stderr(&show));
    // Writing still fails, loudly (and on a disk with room it works again).
    let more = run(on_a_full_disk(
        &env,
        &[
            "outbox",
            "enqueue",
            "kg_add",
            r#"{"subject":"a","predicate":"b","object":"c"}"#,
        ],
        &vars,
    ));
    assert_eq!(more.status.code(), Some(1), "{}", stderr(&more));
    queued_one(&env, &vars);
}

/// Doctor's `outbox` check and `mpt edge status` read the queue read-only, as `mpt outbox` does:
/// on a full disk (where a read-write open cannot size its shared-memory file) they still show
/// what waits for the primary, instead of an outbox that "does not open".
#[test]
fn doctor_and_edge_status_read_the_outbox_on_a_full_disk() {
    let env = TestEnv::new();
    let outbox = env.path("ob/outbox.sqlite3");
    // A primary that is not there (nothing listens on loopback's discard port): the queue waits.
    let vars = [
        ("MPT_OUTBOX", outbox.to_str().unwrap()),
        ("MEMPALACE_REMOTE_URL", "http://127.0.0.1:9/mcp"),
    ];
    let op = queued_one(&env, &vars);
    let doctor = run(on_a_full_disk(
        &env,
        &["--json", "doctor", "--offline", "--check", "outbox"],
        &vars,
    ));
    let v = json(&doctor);
    let check = &v["checks"][0];
    assert_eq!(check["id"], "outbox", "{}", stdout(&doctor));
    assert_eq!(check["status"], "ok", "{check}");
    assert_eq!(
        check["summary"], "1 op(s) on their way to the primary",
        "{check}"
    );
    let status = run(on_a_full_disk(&env, &["--json", "edge", "status"], &vars));
    assert!(
        status.status.success(),
        "{}{}",
        stdout(&status),
        stderr(&status)
    );
    let v = json(&status);
    assert_eq!(v["outbox"]["open"], 1, "{v}");
    assert_eq!(v["outbox"]["failed"], 0, "{v}");
    assert_eq!(v["primary"]["reachable"], false, "{v}");
    // Nothing was written: the op is as it was queued.
    let list = env.mpt(&["--json", "outbox", "list"], &vars);
    assert_eq!(json(&list)["ops"][0]["op_id"], op.as_str());
    assert_eq!(json(&list)["ops"][0]["state"], "queued");
}

/// A standalone edge on pipes, killed by its process group on drop.
struct RawEdge {
    proc: Spawned,
    lines: mpsc::Receiver<String>,
}

impl RawEdge {
    fn start(mut cmd: Command) -> RawEdge {
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .process_group(0);
        let mut child = cmd.spawn().unwrap();
        let out = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for l in BufReader::new(out).lines().map_while(Result::ok) {
                if tx.send(l).is_err() {
                    break;
                }
            }
        });
        RawEdge {
            proc: Spawned(child),
            lines,
        }
    }

    fn send(&mut self, line: &str) {
        let s = self.proc.0.stdin.as_mut().unwrap();
        s.write_all(line.as_bytes()).unwrap();
        s.write_all(b"\n").unwrap();
        s.flush().unwrap();
    }

    /// The next line the edge writes, within two minutes (the child's first start is slow).
    fn line(&self) -> String {
        self.lines
            .recv_timeout(Duration::from_secs(120))
            .expect("the edge answered")
    }

    fn call(&mut self, id: u64, tool: &str, args: Value) -> Value {
        self.send(
            &json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": args}})
                .to_string(),
        );
        serde_json::from_str(&self.line()).unwrap()
    }
}

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;

#[test]
fn on_a_full_disk_the_edge_starts_answers_and_fails_writes_loudly() {
    let env = TestEnv::new();
    let outbox = env.path("ob/outbox.sqlite3");
    // A primary that does not answer: writes go local first, then to the outbox.
    let vars = [
        ("MPT_OUTBOX", outbox.to_str().unwrap()),
        ("MEMPALACE_REMOTE_URL", "http://127.0.0.1:9/mcp"),
    ];
    queued_one(&env, &vars);
    // The palace lives on a disk with room: the child lifts its own soft limit.
    let wrapper = env.path("child-with-room");
    crate::support::write_script(
        &wrapper,
        &format!(
            "#!/bin/sh
ulimit -S -f unlimited
exec '{}' \"$@\"
",
            venv_bin("mempalace-mcp").display()
        ),
    );
    let palace = env.palace("local");
    let mut edge = RawEdge::start(on_a_full_disk(
        &env,
        &[
            "edge",
            "--standalone",
            "--palace",
            palace.to_str().unwrap(),
            "--child",
            wrapper.to_str().unwrap(),
        ],
        &vars,
    ));
    edge.send(INIT);
    let init: Value = serde_json::from_str(&edge.line()).unwrap();
    assert_eq!(init["result"]["serverInfo"]["name"], "mempalace", "{init}");

    // Writes fail loudly: the outbox cannot be opened.
    let drawer = edge.call(
        2,
        "mempalace_add_drawer",
        json!({"wing": "w", "room": "r", "content": "a drawer"}),
    );
    let msg = drawer["error"]["message"].as_str().unwrap_or_default();
    assert!(msg.contains("NOT queued"), "{drawer}");
    assert!(msg.contains("cannot be opened"), "{drawer}");
}

#[test]
fn when_the_disk_fills_under_a_running_edge_nothing_is_written_and_calling_again_is_safe() {
    let env = TestEnv::new();
    let outbox = env.path("ob/outbox.sqlite3");
    let vars = [
        ("MPT_OUTBOX", outbox.to_str().unwrap()),
        ("MEMPALACE_REMOTE_URL", "http://127.0.0.1:9/mcp"),
    ];
    queued_one(&env, &vars);
    let palace = env.palace("local");
    let mut cmd = env.mpt_command(&["edge", "--standalone", "--palace", palace.to_str().unwrap()]);
    cmd.envs(vars);
    unsafe {
        cmd.pre_exec(|| {
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            Ok(())
        });
    }
    let mut edge = RawEdge::start(cmd);
    edge.send(INIT);
    edge.line();
    // The disk fills: from now on the edge itself (not its child, a process of its own on the
    // palace's disk) cannot grow a file, so the outbox's log cannot take the op.
    let lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: libc::RLIM_INFINITY,
    };
    let pid = edge.proc.pid() as libc::pid_t;
    assert_eq!(
        unsafe { libc::prlimit(pid, libc::RLIMIT_FSIZE, &lim, std::ptr::null_mut()) },
        0
    );

    let diary = edge.call(
        2,
        "mempalace_diary_write",
        json!({"agent_name": "pi", "entry": "a note written once"}),
    );
    // Intent first: the outbox could not record it, so the local palace was never asked, and
    // calling again once there is room writes it once.
    let msg = diary["error"]["message"].as_str().unwrap_or_default();
    assert!(
        msg.contains("NOT queued for the primary and NOT written to the local palace"),
        "{diary}"
    );
    assert!(msg.contains("calling again is safe"), "{diary}");
    let read = edge.call(
        3,
        "mempalace_diary_read",
        json!({"agent_name": "pi", "last_n": 10}),
    );
    assert!(
        !read.to_string().contains("a note written once"),
        "nothing reached the local palace: {read}"
    );

    let drawer = edge.call(
        4,
        "mempalace_add_drawer",
        json!({"wing": "w", "room": "r", "content": "a drawer"}),
    );
    let msg = drawer["error"]["message"].as_str().unwrap_or_default();
    assert!(msg.contains("NOT queued"), "{drawer}");
    assert!(msg.contains("calling again is safe"), "{drawer}");
}

#[test]
fn a_huge_numeric_request_id_is_echoed_byte_exact() {
    let env = TestEnv::new();
    let palace = env.palace("local");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mpt"));
    cmd.env_clear()
        .args(["edge", "--standalone", "--palace", palace.to_str().unwrap()])
        .current_dir(env.dir.path());
    for (k, v) in env.mempalace_env() {
        cmd.env(k, v);
    }
    let mut edge = RawEdge::start(cmd);
    edge.send(INIT);
    edge.line();
    for id in [
        "123456789012345678901234567890",
        "18446744073709551616",
        "-9223372036854775809",
    ] {
        edge.send(&format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#));
        let line = edge.line();
        assert!(
            line.contains(&format!(r#""id":{id},"#)),
            "id {id} came back as {line}"
        );
    }
}

#[test]
fn a_stored_enqueue_whose_result_cannot_be_printed_exits_0_and_names_the_op() {
    let env = TestEnv::new();
    let outbox = env.path("outbox.sqlite3");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mpt"));
    cmd.env_clear()
        .args([
            "outbox",
            "enqueue",
            "kg_add",
            r#"{"subject":"a","predicate":"b","object":"c"}"#,
        ])
        .current_dir(env.dir.path())
        .env("HOME", env.home())
        .env("MPT_OUTBOX", &outbox)
        .stdout(
            std::fs::OpenOptions::new()
                .write(true)
                .open("/dev/full")
                .unwrap(),
        );
    let o = cmd.output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let listed = json(&env.mpt(
        &["--json", "outbox", "list"],
        &[("MPT_OUTBOX", outbox.to_str().unwrap())],
    ));
    let op = listed["ops"][0]["op_id"].as_str().unwrap();
    assert!(stderr(&o).contains(op), "{}", stderr(&o));
}
