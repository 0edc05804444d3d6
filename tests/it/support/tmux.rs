//! A real tmux server on a private socket in the test's folder, one pane running steps the test
//! hands it, and a client attached to a pty the test reads: what tmux writes to the outer
//! terminal, byte for byte. Installed on first use (tests/testbed/tmux.sh); killed on drop.

use std::path::PathBuf;
use std::process::{Command, Output};
use std::sync::atomic::{AtomicU32, Ordering};

use super::pty::Pty;
use super::{Spawned, TestEnv, pid_alive, program, wait_for};

/// How long a step (one `mpt` run in the pane) may take on a loaded machine.
const STEP_SECS: f64 = 60.0;

/// The pane's program: says it is ready, then runs `step.N.sh` each time the test signals the
/// `go` channel, its stdout to `out.N`, its exit code to `rc.N`, and prints `mpt-done-N` after
/// it (so once the outer terminal shows that line, all the step wrote has been through tmux).
const PANE: &str = r#"cd "$1" || exit 1
printf 'mpt-ready\n'
n=0
while tmux wait-for go; do
  n=$((n + 1))
  sh "./step.$n.sh" >"./out.$n"
  echo $? >"./rc.$n.tmp" && mv "./rc.$n.tmp" "./rc.$n"
  printf 'mpt-done-%s\n' "$n"
done
"#;

pub struct Tmux {
    pub dir: PathBuf,
    pub socket: PathBuf,
    bin: PathBuf,
    server: u32,
    pub outer: Pty,
    client: Option<Spawned>,
    steps: AtomicU32,
}

/// What one step left: its exit code and its stdout.
pub struct Step {
    pub code: i32,
    pub stdout: String,
}

fn present() -> Option<PathBuf> {
    program("tmux")
}

impl Tmux {
    /// A server on `<test dir>/tmux/sock` with `options` (tmux commands, one a line) as its only
    /// config, and a client attached on an 80×24 pty, ready for steps.
    pub fn start(env: &TestEnv, options: &[&str]) -> Tmux {
        super::testbed::ensure_tmux(|| present().is_some());
        let bin = present().unwrap();
        let dir = env.path("tmux");
        std::fs::create_dir_all(&dir).unwrap();
        let conf = dir.join("tmux.conf");
        // No status line: nothing redraws the client behind the test's back.
        let mut lines = vec!["set-option -g status off"];
        lines.extend_from_slice(options);
        std::fs::write(&conf, lines.join("\n") + "\n").unwrap();
        std::fs::write(dir.join("pane.sh"), PANE).unwrap();
        let socket = dir.join("sock");
        let base = |cmd: &mut Command| {
            cmd.arg("-S")
                .arg(&socket)
                .env("TMUX_TMPDIR", &dir)
                .env("TERM", "xterm-256color");
        };
        let mut new = env.command(&bin);
        base(&mut new);
        new.arg("-f")
            .arg(&conf)
            .args([
                "new-session",
                "-d",
                "-s",
                "mpt",
                "-x",
                "80",
                "-y",
                "24",
                "sh",
            ])
            .arg(dir.join("pane.sh"))
            .arg(&dir);
        let o = new.output().unwrap();
        assert!(o.status.success(), "tmux new-session: {o:?}");
        let mut outer = Pty::open(80, 24);
        let mut attach = env.command(&bin);
        base(&mut attach);
        attach.args(["attach-session", "-t", "mpt"]);
        outer.attach(&mut attach);
        let client = Spawned(attach.spawn().unwrap());
        outer.close_slave();
        let mut t = Tmux {
            dir,
            socket,
            bin,
            server: 0,
            outer,
            client: Some(client),
            steps: AtomicU32::new(0),
        };
        let pid = t.tmux(&["display-message", "-p", "#{pid}"]);
        t.server = String::from_utf8_lossy(&pid.stdout).trim().parse().unwrap();
        // The client has drawn the pane: its first full redraw is done, and tmux hands a
        // passthrough only to a client that is not waiting for one.
        assert!(
            t.outer.wait_for_bytes(STEP_SECS, b"mpt-ready"),
            "the tmux client never drew the pane; it wrote: {:?}",
            String::from_utf8_lossy(&t.outer.seen())
        );
        t
    }

    /// `tmux -S <socket> args`, with the environment cleared.
    pub fn tmux(&self, args: &[&str]) -> Output {
        Command::new(&self.bin)
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .arg("-S")
            .arg(&self.socket)
            .args(args)
            .output()
            .unwrap()
    }

    /// `$TMUX` as tmux sets it in its panes, for a process the test runs itself.
    pub fn tmux_var(&self) -> String {
        format!("{},{},0", self.socket.display(), self.server)
    }

    /// Runs `script` (sh) in the pane, its stderr on the pane's terminal, and waits until it
    /// has finished and everything it wrote has reached the outer terminal.
    pub fn step(&self, script: &str) -> Step {
        let n = self.steps.fetch_add(1, Ordering::SeqCst) + 1;
        std::fs::write(self.dir.join(format!("step.{n}.sh")), script).unwrap();
        let o = self.tmux(&["wait-for", "-S", "go"]);
        assert!(o.status.success(), "wait-for -S: {o:?}");
        let rc = self.dir.join(format!("rc.{n}"));
        let done = format!("mpt-done-{n}");
        let finished = wait_for(STEP_SECS, || rc.exists())
            && self.outer.wait_for_bytes(STEP_SECS, done.as_bytes());
        assert!(
            finished,
            "step {n} did not finish; the outer terminal saw: {:?}",
            String::from_utf8_lossy(&self.outer.seen())
        );
        Step {
            code: std::fs::read_to_string(&rc)
                .unwrap()
                .trim()
                .parse()
                .unwrap(),
            stdout: std::fs::read_to_string(self.dir.join(format!("out.{n}"))).unwrap(),
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.tmux(&["kill-server"]);
        if self.server != 0 && !wait_for(5.0, || !pid_alive(self.server)) {
            // SAFETY: signalling the tmux server this test started, by the pid it reported.
            unsafe {
                libc::kill(self.server as libc::pid_t, libc::SIGKILL);
            }
        }
        // The client ends with its server; its Spawned kills it by pid if it has not.
        self.client.take();
    }
}
