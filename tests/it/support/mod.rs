//! Test support: the real-MemPalace testbed (venv + seeded model, provisioned on first use by
//! tests/testbed/provision.sh), hermetic homes, `mpt` invocations, and processes stopped by pid.

pub mod certs;
pub mod claude;
pub mod codex;
pub mod eras;
pub mod feed;
pub mod fleet;
pub mod gateway;
pub mod harness;
pub mod link;
pub mod npm;
pub mod opencode;
pub mod opencode_db;
pub mod primary;
pub mod proxy;
pub mod pty;
pub mod read_only;
pub mod rng;
pub mod sse_proxy;
pub mod sshd;
pub mod testbed;
pub mod tmux;

use std::path::{Path, PathBuf};
use std::process::Output;

pub use primary::Primary;

/// The testbed root (`MPT_TESTBED` or `<repo>/target/testbed`), provisioned on first use.
pub fn testbed() -> PathBuf {
    testbed::provisioned()
}

pub fn venv_bin(name: &str) -> PathBuf {
    testbed().join(testbed::VENV).join("bin").join(name)
}

/// An executable script (mode 0755) written by a child `sh`, not by this process: a descriptor
/// the test binary opened for writing is duplicated into any child another test spawns at that
/// moment, and exec'ing the script while that copy lives fails with ETXTBSY ("Text file busy").
pub fn write_script(path: &Path, text: &str) {
    use std::io::Write;
    let mut sh = std::process::Command::new("sh")
        .args(["-c", "cat > \"$1\" && chmod 755 \"$1\"", "sh"])
        .arg(path)
        .stdin(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    sh.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
    assert!(sh.wait().unwrap().success(), "writing {}", path.display());
}

/// `prog` on the test process's PATH, else in /usr/bin or /bin (where Debian's packages put it).
pub fn program(prog: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/usr/bin".into(), "/bin".into()])
        .map(|d| d.join(prog))
        .find(|p| p.is_file())
}

pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// A private HOME (with the seeded model cache linked in) and scratch space, removed on drop.
pub struct TestEnv {
    pub dir: tempfile::TempDir,
}

impl TestEnv {
    pub fn new() -> TestEnv {
        let dir = tempfile::Builder::new()
            .prefix("mpt-it-")
            .tempdir()
            .unwrap();
        let home = dir.path().join("home");
        std::fs::create_dir_all(home.join(".cache")).unwrap();
        std::os::unix::fs::symlink(
            testbed().join("model-home/.cache/chroma"),
            home.join(".cache/chroma"),
        )
        .unwrap();
        TestEnv { dir }
    }

    pub fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// A palace in its own parent folder (hallways/tunnels live beside it).
    pub fn palace(&self, name: &str) -> PathBuf {
        let p = self.dir.path().join(name).join("palace");
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        p
    }

    /// The environment MemPalace processes get: cleared, private HOME, no hub forwarding.
    pub fn mempalace_env(&self) -> Vec<(String, String)> {
        vec![
            ("HOME".into(), self.home().display().to_string()),
            (
                "PATH".into(),
                format!("{}:/usr/bin:/bin", venv_bin("").display()),
            ),
            ("MEMPALACE_HUB_FORWARD".into(), "0".into()),
            ("MEMPALACE_MCP_IDLE_HOURS".into(), "0".into()),
            ("MEMPALACE_MCP_WRITER_WAIT_SECONDS".into(), "0".into()),
            ("HF_HUB_OFFLINE".into(), "1".into()),
            ("LANG".into(), "C.UTF-8".into()),
        ]
    }

    /// The environment snapshot the processes a test starts read theirs from (`mempalace_env`):
    /// what the test computes from it (an owner's socket) is what they compute.
    pub fn snapshot(&self) -> mpt_base::config::Env {
        mpt_base::config::Env::from_pairs(self.mempalace_env())
    }

    /// `program` with a cleared environment plus the MemPalace one, run in the test's folder: the
    /// builder every process a test starts goes through (add args, env and stdio, then run it).
    pub fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> std::process::Command {
        let mut cmd = std::process::Command::new(program);
        cmd.env_clear().current_dir(self.dir.path());
        cmd.envs(self.mempalace_env());
        cmd
    }

    /// [`TestEnv::command`] for the `mpt` under test, with `args`.
    pub fn mpt_command(&self, args: &[&str]) -> std::process::Command {
        let mut cmd = self.command(env!("CARGO_BIN_EXE_mpt"));
        cmd.args(args);
        cmd
    }

    /// A `systemctl` first on this test's PATH that says the user manager is `state` and notes
    /// each call (a test never touches the machine's own user manager): the PATH, and the file
    /// of calls.
    pub fn fake_systemctl(&self, state: &str) -> (String, PathBuf) {
        use std::os::unix::fs::PermissionsExt;
        let bin = self.path("fakebin");
        std::fs::create_dir_all(&bin).unwrap();
        let calls = self.path("systemctl.calls");
        let fake = bin.join("systemctl");
        let script = format!(
            "#!/bin/sh\necho \"$*\" >> {}\n[ \"$2\" = is-system-running ] && echo {state}\nexit 0\n",
            calls.display()
        );
        std::fs::write(&fake, script).unwrap();
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
        let path = self
            .mempalace_env()
            .into_iter()
            .find(|(k, _)| k == "PATH")
            .map(|(_, v)| format!("{}:{v}", bin.display()))
            .unwrap();
        (path, calls)
    }

    /// `mpt` with a cleared environment plus the MemPalace one plus `extra`.
    pub fn mpt(&self, args: &[&str], extra: &[(&str, &str)]) -> Output {
        let mut cmd = self.mpt_command(args);
        for (k, v) in extra {
            cmd.env(k, v);
        }
        cmd.output().unwrap()
    }
}

/// Serves an axum app on loopback from a one-thread runtime of its own (kept alive by the
/// caller): its port.
pub fn serve_app(app: axum::Router) -> (u16, tokio::runtime::Runtime) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let listener = rt
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let port = listener.local_addr().unwrap().port();
    rt.spawn(async move { axum::serve(listener, app).await.unwrap() });
    (port, rt)
}

/// A process started for a test, killed by its pid on drop (also on panic).
pub struct Spawned(pub std::process::Child);

impl Spawned {
    pub fn pid(&self) -> u32 {
        self.0.id()
    }
}

impl Drop for Spawned {
    fn drop(&mut self) {
        // Its own process group: the whole group goes, children included.
        unsafe {
            libc::kill(-(self.0.id() as libc::pid_t), libc::SIGKILL);
        }
        let _ = self.0.wait();
    }
}

impl TestEnv {
    /// Starts `program args` with the MemPalace environment plus `extra`, stdin a pipe kept open.
    pub fn spawn(&self, program: &Path, args: &[&str], extra: &[(&str, &str)]) -> Spawned {
        let mut cmd = self.command(program);
        cmd.args(args);
        for (k, v) in extra {
            cmd.env(k, v);
        }
        cmd.stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        Spawned(cmd.spawn().unwrap())
    }

    /// `mpt call` on a local palace with the testbed's child; panics unless it succeeds.
    pub fn call_local(&self, palace: &Path, tool: &str, args: &str) -> serde_json::Value {
        let child = venv_bin("mempalace-mcp");
        let o = self.mpt(
            &[
                "--json",
                "call",
                "--palace",
                palace.to_str().unwrap(),
                "--child",
                child.to_str().unwrap(),
                tool,
                args,
            ],
            &[],
        );
        assert!(o.status.success(), "{tool}: {}{}", stdout(&o), stderr(&o));
        json(&o)["payload"].clone()
    }
}

impl TestEnv {
    /// A real `mempalace-mcp` started WITHOUT `--palace` (an older extension, the landmine): the
    /// palace comes from `MEMPALACE_PALACE_PATH`, its knowledge graph lands under HOME.
    pub fn bare_child(&self, palace: &Path) -> mpt_mcp::McpClient {
        let mut env: Vec<(std::ffi::OsString, std::ffi::OsString)> = self
            .mempalace_env()
            .into_iter()
            .map(|(k, v)| (k.into(), v.into()))
            .collect();
        env.push((
            "MEMPALACE_PALACE_PATH".into(),
            palace.as_os_str().to_owned(),
        ));
        let spec = mpt_mcp::stdio::ChildSpec {
            program: venv_bin("mempalace-mcp"),
            args: vec![],
            env,
            clear_env: true,
            named_by: None,
        };
        mpt_mcp::McpClient::Local(mpt_mcp::stdio::StdioClient::new(
            spec,
            mpt_mcp::stdio::StdioOptions::new(Default::default(), false),
        ))
    }
}

/// The deterministic OpenAI-compatible embedder (tests/fixtures/fake_embedder.py) on loopback,
/// stopped on drop: a palace embedded with it does not share MiniLM's identity.
/// Starts a fixture server (`python3 tests/fixtures/<script> <args>`, PATH only) that prints its
/// loopback port as its first line: the process and that port.
pub fn spawn_fixture_server(script: &str, args: &[&std::ffi::OsStr]) -> (std::process::Child, u16) {
    spawn_fixture_server_on(Path::new("python3"), script, args)
}

/// [`spawn_fixture_server`] on the `python` of a venv (the MCP SDK's, say).
pub fn spawn_fixture_server_on(
    python: &Path,
    script: &str,
    args: &[&std::ffi::OsStr],
) -> (std::process::Child, u16) {
    let mut child = std::process::Command::new(python)
        .arg(fixture(script))
        .args(args)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut port = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(child.stdout.as_mut().unwrap()),
        &mut port,
    )
    .unwrap();
    let port = port
        .trim()
        .parse()
        .unwrap_or_else(|_| panic!("{script} printed no port: {port:?}"));
    (child, port)
}

pub struct FakeEmbedder {
    child: std::process::Child,
    pub url: String,
}

impl FakeEmbedder {
    pub fn start() -> FakeEmbedder {
        let (child, port) = spawn_fixture_server("fake_embedder.py", &[]);
        FakeEmbedder {
            child,
            url: format!("http://127.0.0.1:{port}"),
        }
    }

    /// The environment a MemPalace process needs to embed with it.
    pub fn env(&self) -> Vec<(&'static str, String)> {
        vec![
            ("MEMPALACE_EMBEDDING_MODEL", "openai-compat".into()),
            ("MEMPALACE_EMBEDDING_API_URL", self.url.clone()),
            ("MEMPALACE_EMBEDDING_API_MODEL", "fake".into()),
        ]
    }
}

impl Drop for FakeEmbedder {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A loopback port nothing listens on (bound, read, released): a primary that is down.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

pub fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not one JSON document ({e}):\n{}\nstderr:\n{}",
            stdout(o),
            stderr(o)
        )
    })
}

pub fn pid_alive(pid: u32) -> bool {
    // A zombie still answers kill(0); read its state from /proc instead.
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(s) => !s
            .rsplit(')')
            .next()
            .unwrap_or("")
            .trim_start()
            .starts_with('Z'),
        Err(_) => false,
    }
}

/// Waits up to `secs` for `cond`.
pub fn wait_for(secs: f64, mut cond: impl FnMut() -> bool) -> bool {
    let end = std::time::Instant::now() + std::time::Duration::from_secs_f64(secs);
    while std::time::Instant::now() < end {
        if cond() {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(25));
    }
    cond()
}

/// True when `token` occurs anywhere in `bytes`.
pub fn leaks(bytes: &[u8], token: &str) -> bool {
    bytes.windows(token.len()).any(|w| w == token.as_bytes())
}

/// Every file under `dir` (the outbox with its -wal, the owner's log, locks).
pub fn files_under(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(files_under(&p));
        } else {
            out.push((
                p.display().to_string(),
                std::fs::read(&p).unwrap_or_default(),
            ));
        }
    }
    out
}
