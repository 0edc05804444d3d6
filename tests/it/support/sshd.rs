//! A real OpenSSH server on loopback for remote feeding: private host and user keys, key auth only,
//! a free port, and a private client config (`ssh -F`); stopped by the pid in its PidFile on drop.

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Command;

use super::{program, wait_for};

const SSHD: &str = "/usr/sbin/sshd";

pub struct Sshd {
    pub dir: PathBuf,
    /// The client config, for `MEMPALACE_PI_SSH_CONFIG`.
    pub ssh_config: PathBuf,
    /// The Host alias in it, for `MEMPALACE_PI_SSH_TARGET`.
    pub alias: &'static str,
    pidfile: PathBuf,
}

fn run(cmd: &mut Command) {
    let o = cmd.output().expect("runs");
    assert!(
        o.status.success(),
        "{cmd:?} failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

impl Sshd {
    /// Installs sshd, rsync and ssh-keygen on first use (tests/testbed/sshd.sh) when missing.
    pub fn start(dir: &Path) -> Sshd {
        super::testbed::ensure_sshd(|| {
            Path::new(SSHD).exists()
                && program("rsync").is_some()
                && program("ssh-keygen").is_some()
        });
        std::fs::create_dir_all(dir).unwrap();
        // sshd refuses to start without its privilege-separation directory.
        let _ = std::fs::create_dir_all("/run/sshd");
        for key in ["host_key", "user_key"] {
            run(Command::new("ssh-keygen")
                .args(["-q", "-t", "ed25519", "-N", "", "-C", "mpt-test", "-f"])
                .arg(dir.join(key)));
        }
        std::fs::copy(dir.join("user_key.pub"), dir.join("authorized_keys")).unwrap();
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let d = dir.display();
        let pidfile = dir.join("sshd.pid");
        let config = dir.join("sshd_config");
        std::fs::write(
            &config,
            format!(
                "Port {port}\nListenAddress 127.0.0.1\nHostKey {d}/host_key\n\
                 AuthorizedKeysFile {d}/authorized_keys\nPasswordAuthentication no\n\
                 KbdInteractiveAuthentication no\nPubkeyAuthentication yes\n\
                 PermitRootLogin prohibit-password\nPidFile {d}/sshd.pid\nStrictModes no\n\
                 UsePAM no\nLogLevel VERBOSE\n"
            ),
        )
        .unwrap();
        let user = String::from_utf8(Command::new("id").arg("-un").output().expect("id").stdout)
            .unwrap()
            .trim()
            .to_string();
        let ssh_config = dir.join("ssh_config");
        std::fs::write(
            &ssh_config,
            format!(
                "Host palace\n  HostName 127.0.0.1\n  Port {port}\n  User {user}\n\
                 IdentityFile {d}/user_key\n  IdentitiesOnly yes\n  StrictHostKeyChecking no\n\
                 UserKnownHostsFile /dev/null\n  LogLevel ERROR\n"
            ),
        )
        .unwrap();
        // It daemonizes: the parent exits once the listener is set up; the pid is in PidFile.
        run(Command::new(SSHD)
            .arg("-f")
            .arg(&config)
            .arg("-E")
            .arg(dir.join("sshd.log")));
        let s = Sshd {
            dir: dir.to_path_buf(),
            ssh_config,
            alias: "palace",
            pidfile,
        };
        let up = wait_for(10.0, || {
            s.pid().is_some() && TcpStream::connect(("127.0.0.1", port)).is_ok()
        });
        assert!(up, "sshd did not come up; its log:\n{}", s.log());
        s
    }

    pub fn pid(&self) -> Option<u32> {
        std::fs::read_to_string(&self.pidfile)
            .ok()?
            .trim()
            .parse()
            .ok()
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("sshd.log")).unwrap_or_default()
    }
}

/// An ssh config at `path` whose Host `alias` leads to a closed loopback port: a link that is down.
pub fn unreachable_config(path: &Path, alias: &str) {
    let closed = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    std::fs::write(
        path,
        format!("Host {alias}\n  HostName 127.0.0.1\n  Port {closed}\n  StrictHostKeyChecking no\n  UserKnownHostsFile /dev/null\n"),
    )
    .unwrap();
}

impl Drop for Sshd {
    fn drop(&mut self) {
        let Some(pid) = self.pid() else { return };
        // SAFETY: signalling the sshd this test started, by the pid it wrote to its PidFile.
        unsafe {
            libc::kill(pid as libc::pid_t, libc::SIGTERM);
        }
        if !wait_for(5.0, || !super::pid_alive(pid)) {
            unsafe {
                libc::kill(pid as libc::pid_t, libc::SIGKILL);
            }
        }
    }
}
