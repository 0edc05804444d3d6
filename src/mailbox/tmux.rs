//! Asking the tmux this process runs in (`$TMUX`) whether a passthrough DCS reaches the outer
//! terminal: `allow-passthrough` as tmux resolves it (the pane's, the window's, then the global).

// tmux ≥ 3.3 drops a passthrough DCS unless the pane's `allow-passthrough` is set (input.c,
// `input_dcs_dispatch`: `options_get_number(wp->options, "allow-passthrough")`, which falls back
// from the pane's options to its window's to the global window options). 3.3 takes on/off, 3.4
// adds `all` (also from panes not visible). Before 3.3 the option does not exist and every
// passthrough DCS goes through. `show-options -v -p|-w|-g` prints the value set at exactly that
// level, nothing when it is not set there.

use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde::Serialize;

use mpt_base::config::Env;
use mpt_base::which::which;

/// How long tmux may take to answer: a local socket answers in milliseconds, or the server is
/// stuck (stopped, swapping) and the notification must not wait on it.
pub const ANSWER_DEADLINE: Duration = Duration::from_secs(3);

/// The variables a tmux client reads; nothing else of mpt's environment goes to it.
const CLIENT_ENV: [&str; 6] = ["PATH", "HOME", "TMUX", "TMUX_TMPDIR", "LANG", "LC_ALL"];

/// Where tmux put this process: `$TMUX` (`<socket>,<server pid>,<session>`) and `$TMUX_PANE`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TmuxEnv {
    pub socket: String,
    pub pane: Option<String>,
}

impl TmuxEnv {
    /// `None` outside tmux (or under one that cannot be seen from here, e.g. `docker exec`).
    pub fn from_env(env: &Env) -> Option<TmuxEnv> {
        // As tmux's own client reads it: the socket path is everything before the first comma.
        let socket = env.get("TMUX")?.split(',').next()?;
        (!socket.is_empty()).then(|| TmuxEnv {
            socket: socket.to_owned(),
            pane: env.get("TMUX_PANE").map(str::to_owned),
        })
    }
}

/// The level an option was read at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    Pane,
    Window,
    Global,
}

impl Scope {
    /// Where the value was set, for people.
    pub fn label(self) -> &'static str {
        match self {
            Scope::Pane => "this pane's own option",
            Scope::Window => "this window's own option",
            Scope::Global => "the global option",
        }
    }
}

/// What tmux says of `allow-passthrough` for this pane.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum Passthrough {
    /// `on` (while the pane is visible) or `all` (also when it is not), set at `scope`.
    Allowed { value: String, scope: Scope },
    /// `off`, set at `scope` (`global` also when nothing sets it: tmux's default).
    Off { scope: Scope },
    /// tmux before 3.3: no such option, every passthrough DCS goes through.
    Unconditional,
    /// tmux could not be asked, or gave an answer we do not know.
    Unknown { why: String },
}

impl Passthrough {
    /// Does tmux let the sequence out (as far as can be told)?
    pub fn lets_through(&self) -> Option<bool> {
        match self {
            Passthrough::Allowed { .. } | Passthrough::Unconditional => Some(true),
            Passthrough::Off { .. } => Some(false),
            Passthrough::Unknown { .. } => None,
        }
    }
}

/// The one command that turns passthrough on where it is off: at the level that says `off`
/// (a pane's or window's own `off` overrides the global, so setting the global would not help).
pub fn enable_command(scope: Scope, pane: Option<&str>) -> String {
    let target = pane.map_or(String::new(), |p| format!(" -t {p}"));
    match scope {
        Scope::Pane => format!("tmux set-option -p{target} allow-passthrough on"),
        Scope::Window => format!("tmux set-option -w{target} allow-passthrough on"),
        Scope::Global => "tmux set-option -g allow-passthrough on".to_owned(),
    }
}

/// A value printed by `show-options -v` at one level: `None` when that level does not set it.
pub fn parse_value(printed: &str, scope: Scope) -> Option<Passthrough> {
    match printed.trim() {
        "" => None,
        v @ ("on" | "all") => Some(Passthrough::Allowed {
            value: v.to_owned(),
            scope,
        }),
        "off" => Some(Passthrough::Off { scope }),
        other => Some(Passthrough::Unknown {
            why: format!("tmux answered allow-passthrough {other:?}"),
        }),
    }
}

/// Reads `allow-passthrough` for the pane in `t` from its server, level by level.
pub fn allow_passthrough(t: &TmuxEnv, env: &Env) -> Passthrough {
    let Some(tmux) = which("tmux", env) else {
        return Passthrough::Unknown {
            why: "$TMUX is set but no tmux is on PATH to ask".to_owned(),
        };
    };
    for scope in [Scope::Pane, Scope::Window, Scope::Global] {
        let mut args = vec!["show-options", "-v"];
        match scope {
            Scope::Pane => args.push("-p"),
            Scope::Window => args.push("-w"),
            Scope::Global => args.push("-g"),
        }
        if let (Some(pane), Scope::Pane | Scope::Window) = (&t.pane, scope) {
            args.extend(["-t", pane]);
        }
        args.push("allow-passthrough");
        match ask(&tmux, &t.socket, &args, env) {
            Ok(printed) => {
                if let Some(p) = parse_value(&printed, scope) {
                    return p;
                }
            }
            Err(e) if e.contains("invalid option") => return Passthrough::Unconditional,
            Err(why) => return Passthrough::Unknown { why },
        }
    }
    Passthrough::Off {
        scope: Scope::Global,
    }
}

/// One tmux command on `socket`: its stdout, or why it failed (its first stderr line), within
/// [`ANSWER_DEADLINE`]; a tmux that does not answer in time is killed by its pid.
fn ask(tmux: &std::path::Path, socket: &str, args: &[&str], env: &Env) -> Result<String, String> {
    let mut cmd = Command::new(tmux);
    cmd.arg("-S").arg(socket).args(args).env_clear();
    for key in CLIENT_ENV {
        if let Some(v) = env.get(key) {
            cmd.env(key, v);
        }
    }
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", tmux.display()))?;
    let pid = child.id();
    let (mut out, mut err) = (child.stdout.take(), child.stderr.take());
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut text = (String::new(), String::new());
        if let Some(o) = out.as_mut() {
            let _ = o.read_to_string(&mut text.0);
        }
        if let Some(e) = err.as_mut() {
            let _ = e.read_to_string(&mut text.1);
        }
        let _ = tx.send((child.wait(), text));
    });
    let Ok((status, (stdout, stderr))) = rx.recv_timeout(ANSWER_DEADLINE) else {
        // The waiting thread has not reaped it yet (no answer came), so the pid is still ours.
        mpt_base::sys::signal(pid, mpt_base::sys::Sig::KILL);
        return Err(format!(
            "tmux ({socket}) did not answer within {} s",
            ANSWER_DEADLINE.as_secs()
        ));
    };
    match status {
        Ok(s) if s.success() => Ok(stdout),
        Ok(_) => Err(stderr
            .lines()
            .next()
            .unwrap_or("tmux failed without a message")
            .trim()
            .to_owned()),
        Err(e) => Err(format!("waiting for tmux: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tmux_env_is_read_as_tmux_reads_it() {
        let env = Env::from_pairs([("TMUX", "/tmp/tmux-0/default,1234,0"), ("TMUX_PANE", "%3")]);
        assert_eq!(
            TmuxEnv::from_env(&env),
            Some(TmuxEnv {
                socket: "/tmp/tmux-0/default".into(),
                pane: Some("%3".into())
            })
        );
        assert_eq!(TmuxEnv::from_env(&Env::from_pairs([("TMUX", "")])), None);
        assert_eq!(
            TmuxEnv::from_env(&Env::from_pairs([("TMUX", ",1,0")])),
            None
        );
        assert_eq!(
            TmuxEnv::from_env(&Env::from_pairs([("TERM", "screen")])),
            None
        );
    }

    #[test]
    fn values_at_one_level() {
        assert_eq!(parse_value("\n", Scope::Pane), None);
        assert_eq!(
            parse_value("on\n", Scope::Global),
            Some(Passthrough::Allowed {
                value: "on".into(),
                scope: Scope::Global
            })
        );
        assert_eq!(
            parse_value("all", Scope::Window).and_then(|p| p.lets_through()),
            Some(true)
        );
        assert_eq!(
            parse_value("off", Scope::Pane),
            Some(Passthrough::Off { scope: Scope::Pane })
        );
        assert_eq!(
            parse_value("maybe", Scope::Pane).and_then(|p| p.lets_through()),
            None
        );
    }

    #[test]
    fn the_fix_sets_the_level_that_says_off() {
        assert_eq!(
            enable_command(Scope::Global, Some("%1")),
            "tmux set-option -g allow-passthrough on"
        );
        assert_eq!(
            enable_command(Scope::Pane, Some("%1")),
            "tmux set-option -p -t %1 allow-passthrough on"
        );
        assert_eq!(
            enable_command(Scope::Window, None),
            "tmux set-option -w allow-passthrough on"
        );
    }

    #[test]
    fn no_tmux_to_ask_is_unknown_not_off() {
        let t = TmuxEnv {
            socket: "/nonexistent/sock".into(),
            pane: None,
        };
        let empty = tempfile::tempdir().unwrap();
        let env = Env::from_pairs([("PATH", empty.path().to_str().unwrap())]);
        assert!(matches!(
            allow_passthrough(&t, &env),
            Passthrough::Unknown { why } if why.contains("no tmux is on PATH")
        ));
    }
}
