//! One pull of the primary's coordination log into the local palace, by MemPalace's own sync
//! engine (`logsync.sync_with_peer`) in a short-lived process of the child's own Python.

// The token reaches that process on its stdin only: never on its argv, in a file or in
// `peers.json` (RFC 004 R3). Nothing here writes MemPalace's SQLite: its `Logstream` does.
// Every pull starts through `bounded_start` (memory, parent, lock), whoever launches it.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use tokio::io::AsyncWriteExt;

use mpt_base::config::{Env, Secret};
use mpt_base::lock::PidLock;

/// The program the child's Python runs (`pull_sync.py`): argv = logstream path, the base of the
/// primary's `/sync/*` routes; stdin = the token. stdout: one JSON document (the round's stats,
/// or `{"error", "kind"}`).
const PROGRAM: &str = include_str!("pull_sync.py");

/// What one pull needs.
#[derive(Debug, Clone)]
pub struct PullSpec {
    /// The child's own interpreter (see [`interpreter`]).
    pub python: PathBuf,
    pub palace: PathBuf,
    /// Where the primary's `/sync/*` routes live: beside its MCP endpoint
    /// (`mpt_mcp::routes::sibling_base_text`), a path prefix kept.
    pub base_url: String,
    pub token: Option<Secret>,
    /// An extra CA for a self-signed primary (given to Python as `SSL_CERT_FILE`).
    pub ca_file: Option<PathBuf>,
    pub deadline: Duration,
    /// The address space the process may map (`RLIMIT_AS`, `MPT_EDGE_PULL_MEMORY_BYTES`);
    /// `None`: no bound.
    pub memory: Option<u64>,
}

/// One round's result, as `sync_with_peer` reported it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pulled {
    pub pulled_events: u64,
    pub pulled_artifacts: u64,
    /// Events (and artifacts) the primary served that could not be applied: an `origin_seq`
    /// that is no whole number, a field that is not text. Skipped; the rest was pulled.
    #[serde(default)]
    pub skipped_events: u64,
    /// The primary's replica id.
    pub peer_replica: Option<String>,
    /// This palace's replica id.
    pub replica: Option<String>,
    #[serde(default)]
    pub elapsed_ms: u64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PullError {
    /// The primary did not answer, or refused the request (its message; no token in it).
    Unreachable(String),
    /// The child's Python has no `mempalace.logsync` (MemPalace before 3.11) or did not start.
    Unsupported(String),
    /// Past its deadline: the process was killed.
    Deadline(Duration),
    /// Past its memory bound (`RLIMIT_AS`, in bytes): a reply too large to hold.
    Memory(u64),
    /// The round failed while applying (a database error).
    Failed(String),
    /// The primary refused this device's token (401), with the gateway's word for why.
    Refused(Option<mpt_mcp::TokenRefusal>),
}

impl std::fmt::Display for PullError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PullError::Unreachable(m) => write!(f, "the primary did not serve its log: {m}"),
            PullError::Unsupported(m) => write!(
                f,
                "the child's Python cannot run MemPalace's log sync (3.11 or later is needed): {m}"
            ),
            PullError::Deadline(d) => write!(f, "the pull ran past its deadline ({d:?})"),
            PullError::Memory(b) => write!(
                f,
                "the pull ran out of its memory bound ({} MiB, MPT_EDGE_PULL_MEMORY_BYTES): a reply of the primary's /sync routes did not fit (an endless or hostile reply?)",
                b >> 20
            ),
            PullError::Failed(m) => write!(f, "applying the primary's log failed: {m}"),
            PullError::Refused(Some(why)) => write!(
                f,
                "the primary refused this device's token ({}): {}; {}",
                why.as_str(),
                why.says(),
                why.fix(None)
            ),
            PullError::Refused(None) => write!(
                f,
                "the primary refused this device's token (401): set MEMPALACE_REMOTE_TOKEN (or the 0600 file MPT_TOKEN_FILE) to this device's token"
            ),
        }
    }
}

/// Runs one pull to its end or its deadline. `lock`: the pull lock the caller holds, which the
/// process holds too while it lives (see [`bounded_start`]).
pub async fn pull_once(spec: &PullSpec, lock: Option<&PidLock>) -> Result<Pulled, PullError> {
    let started = Instant::now();
    let mut cmd = tokio::process::Command::new(&spec.python);
    cmd.arg("-c")
        .arg(PROGRAM)
        .arg(spec.palace.join("logstream.sqlite3"))
        .arg(&spec.base_url)
        // Where a stray `mempalace/` cannot shadow the real package (`-c` puts the cwd first).
        .current_dir(&spec.palace)
        .env_remove("MEMPALACE_REMOTE_TOKEN")
        .env("PYTHONSAFEPATH", "1")
        .env("PYTHONDONTWRITEBYTECODE", "1")
        // One HTTP request may not outlive the whole pull.
        .env(
            "MEMPALACE_SYNC_HTTP_TIMEOUT",
            format!("{:.1}", spec.deadline.as_secs_f64().max(1.0)),
        )
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    if let Some(ca) = &spec.ca_file {
        cmd.env("SSL_CERT_FILE", ca);
    }
    let mut child = bounded_start(&mut cmd, spec.memory, lock).map_err(|e| {
        PullError::Unsupported(format!("cannot start {}: {e}", spec.python.display()))
    })?;
    let mut stdin = child.stdin.take().expect("stdin is piped");
    let token = spec.token.as_ref().map_or("", Secret::expose);
    // Dropped at the deadline: `kill_on_drop` ends the process by its pid.
    let run = async move {
        // A process that died before reading its stdin reports why on stdout.
        let _ = feed(&mut stdin, token).await;
        drop(stdin);
        child.wait_with_output().await
    };
    let output = match tokio::time::timeout(spec.deadline, run).await {
        Err(_) => return Err(PullError::Deadline(spec.deadline)),
        Ok(Err(e)) => return Err(PullError::Failed(format!("waiting for the pull: {e}"))),
        Ok(Ok(o)) => o,
    };
    let doc: Option<serde_json::Value> = serde_json::from_slice(&output.stdout).ok();
    if output.status.success()
        && let Some(mut pulled) = doc
            .clone()
            .and_then(|d| serde_json::from_value::<Pulled>(d).ok())
    {
        pulled.elapsed_ms = started.elapsed().as_millis() as u64;
        return Ok(pulled);
    }
    let message = doc
        .as_ref()
        .and_then(|d| d.get("error"))
        .and_then(|e| e.as_str())
        .map(str::to_string)
        .unwrap_or_else(|| last_line(&output.stderr, output.status));
    let kind = doc
        .as_ref()
        .and_then(|d| d.get("kind"))
        .and_then(|k| k.as_str());
    Err(match (kind, spec.memory) {
        (Some("unreachable"), _) => PullError::Unreachable(message),
        (Some("refused"), _) => PullError::Refused(
            doc.as_ref()
                .and_then(|d| d.get("why"))
                .and_then(|w| w.as_str())
                .and_then(mpt_mcp::TokenRefusal::parse),
        ),
        (Some("unsupported"), _) => PullError::Unsupported(message),
        (Some("memory"), Some(bytes)) => PullError::Memory(bytes),
        // Python itself could not allocate (no JSON came): the bound, not a fault of the log.
        (None, Some(bytes)) if out_of_memory(&output.stderr) => PullError::Memory(bytes),
        _ => PullError::Failed(message),
    })
}

/// Whether a Python's stderr says it could not allocate.
fn out_of_memory(stderr: &[u8]) -> bool {
    let text = String::from_utf8_lossy(stderr);
    text.contains("MemoryError") || text.contains("Cannot allocate memory")
}

/// The one start of a pull's process, whoever launches it (the owner's schedule, the one-shot
/// pull of `mpt mailbox`): its address space bounded (`RLIMIT_AS`) beside the caller's wall-clock
/// deadline, killed with the process that started it (`PR_SET_PDEATHSIG`: a `kill -9` of the owner
/// leaves no orphan growing on), and holding `lock` while it lives, so a next owner cannot start
/// a second pull on the log before this one is gone. The death signal follows the *thread* that
/// forks: call this from a runtime's worker or the main thread, never from a blocking-pool thread
/// (those exit when idle, and would take the pull with them).
pub fn bounded_start(
    cmd: &mut tokio::process::Command,
    memory: Option<u64>,
    lock: Option<&PidLock>,
) -> std::io::Result<tokio::process::Child> {
    let parent = std::process::id() as libc::pid_t;
    let limit = memory.map(address_limit);
    let lock_fd = lock.map(PidLock::as_raw_fd);
    // SAFETY: the closure runs between fork and exec and makes only async-signal-safe system
    // calls (prctl, getppid, setrlimit, fcntl); it allocates nothing and takes no lock. Safe
    // code will not do: `pre_exec` is the one way to run code in the child before its exec.
    unsafe {
        cmd.pre_exec(move || {
            if libc::prctl(
                libc::PR_SET_PDEATHSIG,
                libc::SIGKILL as libc::c_ulong,
                0,
                0,
                0,
            ) != 0
            {
                return Err(std::io::Error::last_os_error());
            }
            // The parent may have died before the line above: then no signal would ever come.
            if libc::getppid() != parent {
                return Err(std::io::Error::from_raw_os_error(libc::ESRCH));
            }
            if let Some(l) = &limit
                && libc::setrlimit(libc::RLIMIT_AS, l) != 0
            {
                return Err(std::io::Error::last_os_error());
            }
            if let Some(fd) = lock_fd {
                let flags = libc::fcntl(fd, libc::F_GETFD);
                if flags < 0 || libc::fcntl(fd, libc::F_SETFD, flags & !libc::FD_CLOEXEC) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
            }
            Ok(())
        });
    }
    cmd.spawn()
}

/// `RLIMIT_AS` at `bytes`, never above the hard limit this process already has.
fn address_limit(bytes: u64) -> libc::rlimit {
    let hard = rustix::process::getrlimit(rustix::process::Resource::As).maximum;
    let cap = (bytes as libc::rlim_t).min(hard.unwrap_or(libc::RLIM_INFINITY));
    libc::rlimit {
        rlim_cur: cap,
        rlim_max: cap,
    }
}

async fn feed(stdin: &mut tokio::process::ChildStdin, token: &str) -> std::io::Result<()> {
    stdin.write_all(token.as_bytes()).await?;
    stdin.write_all(b"\n").await?;
    stdin.shutdown().await
}

fn last_line(stderr: &[u8], status: std::process::ExitStatus) -> String {
    let text = String::from_utf8_lossy(stderr);
    let line = text
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("");
    let line: String = line.chars().take(400).collect();
    format!("the pull exited with {status}: {line}")
}

/// The interpreter the child runs on, so the pull uses the same MemPalace: the `#!` line of a
/// console script (`#!/venv/bin/python3`, `#!/usr/bin/env python3`, pip's `/bin/sh` trampoline
/// for long paths), else a `python3` beside it (a venv's `bin/`). `None`: not a Python script.
pub fn interpreter(child: &Path, env: &Env) -> Option<PathBuf> {
    let script = if child.components().count() > 1 {
        child.to_path_buf()
    } else {
        mpt_base::which::which(&child.to_string_lossy(), env)?
    };
    let head = read_head(&script)?;
    let mut lines = head.lines();
    if let Some(shebang) = lines.next().and_then(|l| l.strip_prefix("#!")) {
        let mut words = shebang.split_whitespace();
        let program = words.next().unwrap_or("");
        match Path::new(program).file_name().and_then(|n| n.to_str()) {
            Some(n) if n.starts_with("python") => return Some(PathBuf::from(program)),
            Some("env") => {
                if let Some(name) = words.find(|w| !w.starts_with('-')) {
                    return mpt_base::which::which(name, env);
                }
            }
            Some("sh" | "bash") => {
                // pip: `'''exec' "/very/long/venv/bin/python3" "$0" "$@"`
                if let Some(p) = lines
                    .next()
                    .and_then(|l| l.strip_prefix("'''exec' \""))
                    .and_then(|l| l.split('"').next())
                {
                    return Some(PathBuf::from(p));
                }
            }
            _ => {}
        }
    }
    let beside = script.parent()?;
    ["python3", "python"]
        .iter()
        .map(|n| beside.join(n))
        .find(|p| p.is_file())
}

fn read_head(path: &Path) -> Option<String> {
    use std::io::Read;
    let mut buf = vec![0u8; 512];
    let n = std::fs::File::open(path).ok()?.read(&mut buf).ok()?;
    buf.truncate(n);
    buf.starts_with(b"#!")
        .then(|| String::from_utf8_lossy(&buf).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An executable file (never run: only read), as pip installs a console script.
    fn script(dir: &Path, name: &str, text: &str) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        p
    }

    #[test]
    fn the_interpreter_comes_from_the_console_script() {
        let d = tempfile::tempdir().unwrap();
        let env = Env::from_pairs([("PATH", d.path().to_str().unwrap())]);
        let s = script(d.path(), "a", "#!/venv/bin/python3.11\nimport re\n");
        assert_eq!(
            interpreter(&s, &env),
            Some(PathBuf::from("/venv/bin/python3.11"))
        );
        let s = script(
            d.path(),
            "b",
            "#!/bin/sh\n'''exec' \"/long path/bin/python\" \"$0\" \"$@\"\n' '''\n",
        );
        assert_eq!(
            interpreter(&s, &env),
            Some(PathBuf::from("/long path/bin/python"))
        );
        script(d.path(), "python3", "");
        let s = script(d.path(), "c", "#!/usr/bin/env -S python3 -u\n");
        assert_eq!(interpreter(&s, &env), Some(d.path().join("python3")));
        // Found on PATH by name; a non-Python shebang falls back to a python3 beside it.
        let s = script(d.path(), "mempalace-mcp", "#!/bin/zsh\n");
        assert_eq!(
            interpreter(Path::new("mempalace-mcp"), &env),
            Some(d.path().join("python3"))
        );
        std::fs::remove_file(d.path().join("python3")).unwrap();
        assert_eq!(interpreter(&s, &env), None);
        let bin = script(d.path(), "elf", "\x7fELF");
        assert_eq!(interpreter(&bin, &env), None);
    }
}

#[cfg(test)]
mod process_tests {
    use super::*;

    /// A stand-in interpreter: records its argv and stdin, answers what `reply` says.
    fn fake_python(dir: &Path, reply: &str, code: i32) -> PathBuf {
        let p = dir.join("python3");
        let script = format!(
            "#!/bin/sh\nprintf '%s\\n' \"$@\" > {argv}\ncat > {stdin}\nprintf '%s' '{reply}'\nexit {code}\n",
            argv = dir.join("argv").display(),
            stdin = dir.join("stdin").display(),
        );
        write_script(&p, &script);
        p
    }

    /// An executable script written by a child `sh`: a descriptor this multi-threaded test
    /// process opened for writing would be duplicated into any child another test spawns at that
    /// moment, and exec'ing the script while that copy lives fails with ETXTBSY.
    fn write_script(path: &Path, text: &str) {
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

    fn spec(dir: &Path, python: PathBuf) -> PullSpec {
        PullSpec {
            python,
            palace: dir.to_path_buf(),
            base_url: "http://127.0.0.1:9".into(),
            token: Some(Secret::new("s3cret-token".into())),
            ca_file: None,
            deadline: Duration::from_secs(20),
            memory: Some(mpt_base::config::pull::DEFAULT_MEMORY_BYTES),
        }
    }

    #[tokio::test]
    async fn the_token_goes_on_stdin_never_on_the_argv() {
        let d = tempfile::tempdir().unwrap();
        let py = fake_python(
            d.path(),
            r#"{"pulled_events": 3, "pulled_artifacts": 1, "peer_replica": "rep_p", "replica": "rep_l"}"#,
            0,
        );
        let got = pull_once(&spec(d.path(), py), None).await.unwrap();
        assert_eq!((got.pulled_events, got.pulled_artifacts), (3, 1));
        assert_eq!(got.replica.as_deref(), Some("rep_l"));
        let argv = std::fs::read_to_string(d.path().join("argv")).unwrap();
        assert!(!argv.contains("s3cret-token"), "{argv}");
        assert!(argv.contains("http://127.0.0.1:9") && argv.contains("logstream.sqlite3"));
        assert_eq!(
            std::fs::read_to_string(d.path().join("stdin")).unwrap(),
            "s3cret-token\n"
        );
    }

    #[tokio::test]
    async fn failures_are_told_apart() {
        let d = tempfile::tempdir().unwrap();
        let py = fake_python(
            d.path(),
            r#"{"kind": "unreachable", "error": "refused"}"#,
            2,
        );
        assert_eq!(
            pull_once(&spec(d.path(), py), None).await,
            Err(PullError::Unreachable("refused".into()))
        );
        let py = fake_python(
            d.path(),
            r#"{"kind": "unsupported", "error": "No module"}"#,
            3,
        );
        assert!(matches!(
            pull_once(&spec(d.path(), py), None).await,
            Err(PullError::Unsupported(_))
        ));
        let py = fake_python(d.path(), "not json", 1);
        assert!(matches!(
            pull_once(&spec(d.path(), py), None).await,
            Err(PullError::Failed(_))
        ));
        // Past the deadline: killed by its pid (`exec`: the pid is the sleeper's own).
        let stuck = d.path().join("stuck");
        write_script(&stuck, "#!/bin/sh\nexec sleep 600\n");
        let mut s = spec(d.path(), stuck);
        s.deadline = Duration::from_millis(200);
        assert_eq!(
            pull_once(&s, None).await,
            Err(PullError::Deadline(Duration::from_millis(200)))
        );
        let missing = spec(d.path(), d.path().join("no-such-python"));
        assert!(matches!(
            pull_once(&missing, None).await,
            Err(PullError::Unsupported(_))
        ));
    }
}
