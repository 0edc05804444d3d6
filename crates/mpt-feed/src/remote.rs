//! Remote feeding's transfer: the staged folder rsynced over ssh into the palace host's inbox, with
//! mtimes kept (the miner's dedup key) and a deadline that kills rsync and its ssh as one group.

use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use mpt_base::error::{ErrorKind, MptError};

/// Where the transcripts go: `target:path` over ssh.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteInbox {
    /// `[user@]host` or a Host alias of `ssh_config`.
    pub target: String,
    /// Absolute, or `~/…` (relative to the remote login's home; the server expands `~` too).
    pub path: String,
    pub ssh_config: Option<PathBuf>,
}

/// A finished transfer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pushed {
    pub destination: String,
    pub elapsed: Duration,
}

#[derive(Debug)]
pub enum PushError {
    /// rsync could not be started (not installed?).
    Spawn(io::Error),
    /// The deadline passed; rsync and its ssh were killed.
    Timeout(Duration),
    /// rsync exited non-zero. `unreachable`: ssh or the connection failed (exit 255, 5, 10, 12, 30, 35).
    Failed {
        code: Option<i32>,
        unreachable: bool,
        stderr_tail: String,
    },
}

impl RemoteInbox {
    /// rsync's destination: `TARGET:PATH/`, a `~/` path given relative (rsync resolves relative
    /// remote paths against the login's home, with no shell expansion needed).
    pub fn destination(&self) -> String {
        let path = self.path.strip_prefix("~/").unwrap_or(&self.path);
        format!("{}:{}/", self.target, path.trim_end_matches('/'))
    }

    /// The `-e` value: ssh that never prompts (`BatchMode`) and gives up on a silent host within
    /// seconds (`ConnectTimeout`: a network deadline), with `-F <config>` when set. rsync
    /// splits it on spaces and honours single and double quotes.
    pub fn ssh_command(&self) -> Result<String, String> {
        let mut cmd = "ssh -o BatchMode=yes -o ConnectTimeout=10".to_string();
        if let Some(cfg) = &self.ssh_config {
            let s = cfg.to_string_lossy();
            let quoted = if !s.contains('\'') {
                format!("'{s}'")
            } else if !s.contains('"') {
                format!("\"{s}\"")
            } else {
                return Err(format!(
                    "the ssh config path {s} holds both quote characters: rsync cannot pass it to ssh"
                ));
            };
            cmd.push_str(" -F ");
            cmd.push_str(&quoted);
        }
        Ok(cmd)
    }

    /// The rsync invocation: archive mode (mtimes kept), the remote folder created if missing,
    /// dot files (in-flight temps) left out, nothing deleted on the other side (an inbox may be
    /// shared). No secret is ever on this argv.
    pub fn command(&self, stage_dir: &Path) -> Result<Command, String> {
        let mut c = Command::new("rsync");
        c.args(["-a", "--mkpath", "--exclude=.*", "-e"])
            .arg(self.ssh_command()?)
            .arg(format!("{}/", stage_dir.display()))
            .arg(self.destination());
        Ok(c)
    }
}

/// Runs the transfer, killing it (the whole process group: rsync and the ssh it started) if it
/// is still running at `deadline`.
pub fn push(
    stage_dir: &Path,
    inbox: &RemoteInbox,
    deadline: Option<Instant>,
) -> Result<Pushed, PushError> {
    let started = Instant::now();
    let mut cmd = inbox.command(stage_dir).map_err(|m| PushError::Failed {
        code: None,
        unreachable: false,
        stderr_tail: m,
    })?;
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(PushError::Spawn)?;
    let mut stderr = child.stderr.take().expect("piped stderr");
    let reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = stderr.read_to_end(&mut buf);
        buf
    });
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break s,
            Ok(None) => {}
            Err(e) => return Err(PushError::Spawn(e)),
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            // The process group of a child we spawned as its group's leader.
            mpt_base::sys::signal_group(child.id(), mpt_base::sys::Sig::KILL);
            let _ = child.wait();
            return Err(PushError::Timeout(started.elapsed()));
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let err = reader.join().unwrap_or_default();
    if status.success() {
        return Ok(Pushed {
            destination: inbox.destination(),
            elapsed: started.elapsed(),
        });
    }
    let text = String::from_utf8_lossy(&err);
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let tail = lines[lines.len().saturating_sub(6)..].join("\n");
    let code = status.code();
    Err(PushError::Failed {
        code,
        unreachable: matches!(code, Some(255 | 5 | 10 | 12 | 30 | 35)),
        stderr_tail: tail,
    })
}

pub(super) fn timeout_error(what: &str, timeout: Option<Duration>) -> MptError {
    let ms = timeout.map_or(0, |t| t.as_millis());
    MptError::new(
        ErrorKind::Timeout,
        format!(
            "{what} did not finish within MEMPALACE_FEED_PREPARE_TIMEOUT_MS={ms}: nothing partial is staged (each file is replaced whole) and the next trigger re-exports"
        ),
    )
    .with_hint("a first run over a long history can take longer: run `mpt feed prepare --reason manual` once by hand, or raise MEMPALACE_FEED_PREPARE_TIMEOUT_MS")
}

pub(super) fn push_error(e: PushError, inbox: &RemoteInbox, timeout: Option<Duration>) -> MptError {
    let dest = inbox.destination();
    let check = match &inbox.ssh_config {
        Some(c) => format!("ssh -F {} {} true", c.display(), inbox.target),
        None => format!("ssh {} true", inbox.target),
    };
    match e {
        PushError::Spawn(e) => MptError::io("starting rsync", &e).with_hint(
            "remote feeding ships transcripts with rsync over ssh: install rsync on both machines",
        ),
        PushError::Timeout(_) => timeout_error(&format!("the transfer to {dest}"), timeout),
        PushError::Failed {
            code,
            unreachable,
            stderr_tail,
        } => {
            let code = code.map_or("a signal".to_string(), |c| format!("exit {c}"));
            let kind = if unreachable {
                ErrorKind::Unavailable
            } else {
                ErrorKind::Io
            };
            MptError::new(
                kind,
                format!("rsync to {dest} failed ({code}): {}", stderr_tail.trim()),
            )
            .with_hint(format!(
                "`{check}` must work without a password prompt (key auth); MEMPALACE_PI_SSH_TARGET, MEMPALACE_PI_SSH_CONFIG and MEMPALACE_PI_REMOTE_PATH say where the transcripts go"
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inbox(path: &str, cfg: Option<&str>) -> RemoteInbox {
        RemoteInbox {
            target: "me@palace".into(),
            path: path.into(),
            ssh_config: cfg.map(PathBuf::from),
        }
    }

    #[test]
    fn destination_and_ssh_command() {
        assert_eq!(
            inbox("~/.mempalace/feed/inbox/lap", None).destination(),
            "me@palace:.mempalace/feed/inbox/lap/"
        );
        assert_eq!(inbox("/srv/in/", None).destination(), "me@palace:/srv/in/");
        assert_eq!(
            inbox("/x", Some("/h/my ssh/config")).ssh_command().unwrap(),
            "ssh -o BatchMode=yes -o ConnectTimeout=10 -F '/h/my ssh/config'"
        );
        assert_eq!(
            inbox("/x", Some("/h/it's")).ssh_command().unwrap(),
            "ssh -o BatchMode=yes -o ConnectTimeout=10 -F \"/h/it's\""
        );
        assert!(inbox("/x", Some("/h/'\"")).ssh_command().is_err());
        let c = inbox("/x", None).command(Path::new("/st")).unwrap();
        let args: Vec<String> = c
            .get_args()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            args,
            [
                "-a",
                "--mkpath",
                "--exclude=.*",
                "-e",
                "ssh -o BatchMode=yes -o ConnectTimeout=10",
                "/st/",
                "me@palace:/x/"
            ]
        );
    }
}
