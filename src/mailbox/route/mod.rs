//! Which road a mailbox notification takes to the human: OSC 99 or OSC 777 straight to the
//! terminal, wrapped in tmux's passthrough, or nowhere and why (with the one fix).

use serde::Serialize;

use super::notify::{NOTIFY_VAR, Notification, NotifyMode, desktop_bytes, tmux_passthrough};
use super::tmux::{self, Passthrough, Scope, TmuxEnv};
use mpt_base::config::Env;

/// The terminal protocol of the sequence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Protocol {
    Osc99,
    Osc777,
}

impl Protocol {
    pub fn label(self) -> &'static str {
        match self {
            Protocol::Osc99 => "OSC 99 (kitty)",
            Protocol::Osc777 => "OSC 777",
        }
    }
}

/// Why the sequence is wrapped for tmux.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Wrap {
    /// `$TMUX` is set: this process runs in a tmux pane.
    Detected,
    /// `MEMPALACE_MAILBOX_NOTIFY=desktop-tmux`: the user says a tmux is outside, unseen.
    OptedIn,
}

/// The tmux leg of a route.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TmuxLeg {
    pub why: Wrap,
    /// `$TMUX_PANE`, when tmux could be seen.
    pub pane: Option<String>,
    pub allow_passthrough: Passthrough,
}

/// The road a `desktop` notification takes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Route {
    pub protocol: Protocol,
    pub tmux: Option<TmuxLeg>,
}

/// The outcome of a test notification: the path taken, or nowhere with the reason and fix.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Verdict {
    /// `osc99`, `osc777`, `tmux` (the sequence wrapped for it) or `nowhere`.
    pub path: &'static str,
    pub reason: Option<String>,
    pub fix: Option<String>,
    /// A caveat on a path that was taken.
    pub note: Option<String>,
}

impl Route {
    /// The road for `mode` in `env`, or `None` when the mode sends no sequence. Asks tmux (on
    /// the socket `$TMUX` names) whenever this process runs in one.
    pub fn choose(mode: NotifyMode, env: &Env) -> Option<Route> {
        let in_tmux = TmuxEnv::from_env(env);
        let protocol = if super::notify::prefers_kitty(env.get("KITTY_WINDOW_ID"), env.get("TERM"))
        {
            Protocol::Osc99
        } else {
            Protocol::Osc777
        };
        let why = match (mode, &in_tmux) {
            (NotifyMode::Plain | NotifyMode::Off, _) => return None,
            (NotifyMode::DesktopTmux, _) => Some(Wrap::OptedIn),
            (NotifyMode::Desktop, Some(_)) => Some(Wrap::Detected),
            (NotifyMode::Desktop, None) => None,
        };
        let tmux = why.map(|why| TmuxLeg {
            why,
            pane: in_tmux.as_ref().and_then(|t| t.pane.clone()),
            allow_passthrough: match &in_tmux {
                Some(t) => tmux::allow_passthrough(t, env),
                None => Passthrough::Unknown {
                    why: "$TMUX is unset here (a container, or another user's tmux): tmux \
                          cannot be asked"
                        .to_owned(),
                },
            },
        });
        Some(Route { protocol, tmux })
    }

    /// The bytes for the terminal: the sequence, wrapped for tmux when the route goes through it.
    pub fn bytes(&self, n: &Notification) -> Vec<u8> {
        let seq = desktop_bytes(n, self.protocol == Protocol::Osc99);
        match self.tmux {
            Some(_) => tmux_passthrough(&seq),
            None => seq,
        }
    }

    /// "OSC 99 (kitty) through tmux (...)", for people.
    pub fn describe(&self) -> String {
        match &self.tmux {
            None => format!("{} to the terminal", self.protocol.label()),
            Some(leg) => format!(
                "{} through tmux's passthrough ({})",
                self.protocol.label(),
                match leg.why {
                    Wrap::Detected => "$TMUX is set".to_owned(),
                    Wrap::OptedIn => format!("{NOTIFY_VAR}=desktop-tmux"),
                }
            ),
        }
    }

    /// When tmux is known to drop the sequence: why, and the one command that lets it through.
    pub fn dropped(&self) -> Option<(String, String)> {
        let leg = self.tmux.as_ref()?;
        let Passthrough::Off { scope } = leg.allow_passthrough else {
            return None;
        };
        Some((
            format!(
                "tmux drops the sequence: allow-passthrough is off ({})",
                scope.label()
            ),
            tmux::enable_command(scope, leg.pane.as_deref()),
        ))
    }

    /// A caveat on a route tmux lets through, or may.
    pub fn note(&self) -> Option<String> {
        let leg = self.tmux.as_ref()?;
        let on_host = tmux::enable_command(Scope::Global, None);
        Some(match &leg.allow_passthrough {
            Passthrough::Allowed { value, .. } if value == "on" => "tmux passes it only while \
                this pane is visible; `all` (tmux 3.4 and later) also from a hidden pane: \
                tmux set-option -g allow-passthrough all"
                .to_owned(),
            Passthrough::Allowed { .. } | Passthrough::Off { .. } => return None,
            Passthrough::Unconditional => {
                "this tmux (before 3.3) passes every passthrough sequence".to_owned()
            }
            Passthrough::Unknown { why } => format!(
                "whether tmux lets it through is unknown ({why}); if nothing shows, run \
                 `{on_host}` where tmux runs"
            ),
        })
    }
}

/// What a test notification in `mode` does: `terminal` says whether stderr is a terminal.
pub fn verdict(mode: NotifyMode, route: Option<&Route>, terminal: bool) -> Verdict {
    let nowhere = |reason: String, fix: String| Verdict {
        path: "nowhere",
        reason: Some(reason),
        fix: Some(fix),
        note: None,
    };
    let desktop = format!("export {NOTIFY_VAR}=desktop (desktop-tmux in a container under tmux)");
    let Some(route) = route else {
        let reason = match mode {
            NotifyMode::Off => {
                format!("{NOTIFY_VAR}=off: notifications are off (the mailbox still delivers)")
            }
            _ => format!(
                "{NOTIFY_VAR} is unset: `watch` announces asks as a plain line on stderr, with no terminal notification"
            ),
        };
        return nowhere(reason, desktop);
    };
    if !terminal {
        return nowhere(
            "stderr is not a terminal: no terminal would read the sequence".to_owned(),
            "run it with stderr on the terminal (not redirected to a file or pipe)".to_owned(),
        );
    }
    if let Some((reason, fix)) = route.dropped() {
        return nowhere(reason, fix);
    }
    Verdict {
        path: match (route.tmux.is_some(), route.protocol) {
            (true, _) => "tmux",
            (false, Protocol::Osc99) => "osc99",
            (false, Protocol::Osc777) => "osc777",
        },
        reason: None,
        fix: None,
        note: route.note(),
    }
}

#[cfg(test)]
mod tests;
