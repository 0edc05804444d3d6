//! Notification text and bytes: plain text, Kitty OSC 99 and OSC 777 (wrapped for tmux's DCS
//! passthrough when asked), all sanitized so no payload can forge a field or end a sequence early.

// Sources for the byte layouts:
// - OSC 99: kitty's "Desktop notifications" spec (kovidgoyal/kitty, docs/desktop-notifications.rst,
//   https://sw.kovidgoyal.net/kitty/desktop-notifications/): `<ESC>] 99 ; metadata ; payload <ESC>\`,
//   metadata `key=value` pairs joined by `:`; title then body as `i=<id>:d=0;<title>` and
//   `i=<id>:d=1:p=body;<body>`; payload plain UTF-8 with no C0 controls, at most 2048 bytes.
// - OSC 777: the rxvt-unicode `notify` extension (lpenz/urxvt-ext-notify-osc README:
//   `printf '\e]777;notify;alert user;the tea is ready\a'`), which the seed lists for iTerm2,
//   WezTerm, Ghostty and rxvt-unicode: `<ESC>] 777 ; notify ; <title> ; <body> ST`. We end it
//   with ST (`<ESC>\`, the ECMA-48 string terminator, accepted by those parsers like BEL) so
//   both sequences end the same way.
// - tmux's passthrough: tmux(1), "allow-passthrough": `\ePtmux;` + the sequence with every ESC
//   doubled + `\e\\`. tmux's DCS parser (input.c, `dcs_escape` state) keeps the byte after an
//   ESC and drops the ESC itself, so an undoubled ESC inside would be lost and its ST would end
//   the DCS early; with `allow-passthrough` on it writes the rest after `tmux;` raw to the
//   outer terminal (`input_dcs_dispatch`).

use super::announce::{Announcement, Why};
use super::text::clean_text;

/// Notification id for OSC 99 (`[a-zA-Z0-9-_+.]`), shared so a newer ping replaces an older.
pub const NOTIFICATION_ID: &str = "mpt-mailbox";
/// Kitty's payload limit; also applied to OSC 777 fields.
pub const MAX_FIELD_BYTES: usize = 2048;
/// The seed's delivery note: said with every delivery, for the human reading the window.
pub const DELIVERY_NOTE: &str = "This message was queued: nothing woke the agent, and it is \
read only when a turn starts. Any message starts the turn that handles it.";

const OSC: &str = "\x1b]";
const ST: &str = "\x1b\\";
/// The start of tmux's passthrough DCS.
pub const TMUX_DCS: &[u8] = b"\x1bPtmux;";

/// The variable [`NotifyMode`] is read from.
pub const NOTIFY_VAR: &str = "MEMPALACE_MAILBOX_NOTIFY";

/// `MEMPALACE_MAILBOX_NOTIFY`: unset → plain text, `desktop` → plain plus a terminal
/// notification (wrapped for tmux when `$TMUX` is set), `desktop-tmux` → the same, always
/// wrapped for tmux (a container under a tmux it cannot see), `0`/`off` → silent (the mailbox
/// still delivers).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotifyMode {
    Plain,
    Desktop,
    DesktopTmux,
    Off,
}

impl NotifyMode {
    /// Parses the variable's value; an unknown value is an error for the caller to report.
    pub fn from_env(value: Option<&str>) -> Result<NotifyMode, String> {
        match value.map(str::trim) {
            None | Some("") => Ok(NotifyMode::Plain),
            Some("desktop") => Ok(NotifyMode::Desktop),
            Some("desktop-tmux") => Ok(NotifyMode::DesktopTmux),
            Some("0" | "off") => Ok(NotifyMode::Off),
            Some(other) => Err(format!(
                "{NOTIFY_VAR}={other:?}: expected unset, `desktop`, `desktop-tmux`, `0` or `off`"
            )),
        }
    }

    /// The value as a user sets it (`unset` for the default).
    pub fn as_str(self) -> &'static str {
        match self {
            NotifyMode::Plain => "unset",
            NotifyMode::Desktop => "desktop",
            NotifyMode::DesktopTmux => "desktop-tmux",
            NotifyMode::Off => "off",
        }
    }
}

/// Kitty when the environment says so (`KITTY_WINDOW_ID` set, or `TERM=xterm-kitty`);
/// otherwise OSC 777. Neither survives `docker exec` or an outer tmux (see the seed).
pub fn prefers_kitty(kitty_window_id: Option<&str>, term: Option<&str>) -> bool {
    kitty_window_id.is_some_and(|v| !v.is_empty()) || term == Some("xterm-kitty")
}

fn truncate(mut s: String, max: usize) -> String {
    if s.len() > max {
        let mut cut = max;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        s.truncate(cut);
    }
    s
}

/// An OSC field: [`clean_text`], then every `;` removed, then cut to [`MAX_FIELD_BYTES`]
/// at a character boundary.
pub fn sanitize_field(s: &str) -> String {
    let mut out = clean_text(s);
    out.retain(|c| c != ';');
    truncate(out, MAX_FIELD_BYTES)
}

/// A notification before it is rendered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notification {
    pub title: String,
    pub body: String,
}

/// What `mpt mailbox notify --test` sends (title, body): fixed, so a test can match its bytes.
pub const TEST_NOTIFICATION: (&str, &str) = (
    "mpt mailbox: test notification",
    "asks owed to this device will be announced like this",
);

impl Notification {
    /// The [`TEST_NOTIFICATION`].
    pub fn test() -> Notification {
        Notification {
            title: TEST_NOTIFICATION.0.to_owned(),
            body: TEST_NOTIFICATION.1.to_owned(),
        }
    }
}

/// Kitty OSC 99, two chunks (title, then body with `d=1` to display), both ended by ST.
pub fn osc99(title: &str, body: &str) -> Vec<u8> {
    format!(
        "{OSC}99;i={NOTIFICATION_ID}:d=0;{}{ST}{OSC}99;i={NOTIFICATION_ID}:d=1:p=body;{}{ST}",
        sanitize_field(title),
        sanitize_field(body)
    )
    .into_bytes()
}

/// OSC 777 `notify`, ended by ST.
pub fn osc777(title: &str, body: &str) -> Vec<u8> {
    format!(
        "{OSC}777;notify;{};{}{ST}",
        sanitize_field(title),
        sanitize_field(body)
    )
    .into_bytes()
}

/// The terminal notification for `desktop` mode.
pub fn desktop_bytes(n: &Notification, kitty: bool) -> Vec<u8> {
    if kitty {
        osc99(&n.title, &n.body)
    } else {
        osc777(&n.title, &n.body)
    }
}

/// `seq` inside tmux's passthrough DCS, every ESC doubled, so tmux hands it to the outer
/// terminal whole (when its `allow-passthrough` lets it).
pub fn tmux_passthrough(seq: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(seq.len() + 16);
    out.extend_from_slice(TMUX_DCS);
    for &b in seq {
        if b == 0x1b {
            out.push(0x1b);
        }
        out.push(b);
    }
    out.extend_from_slice(ST.as_bytes());
    out
}

/// One line for a plain-text surface: `title: body`, control characters removed.
pub fn plain(n: &Notification) -> String {
    clean_text(&format!("{}: {}", n.title, n.body))
}

fn describe(a: &Announcement) -> String {
    let from = a.ask.from.as_deref().unwrap_or("?");
    let woke = if a.why == Why::LeftDormancy {
        " (left dormancy)"
    } else {
        ""
    };
    format!(
        "{from} {} {}{woke}: {}",
        a.ask.kind, a.ask.id, a.ask.summary
    )
}

/// The ping for a poll, or `None` when nothing is due: a ping on an empty poll would train
/// its reader to ignore it.
pub fn notification_for(announcements: &[Announcement]) -> Option<Notification> {
    let first = announcements.first()?;
    let n = announcements.len();
    let title = format!("mailbox: {n} new ask{} owed", if n == 1 { "" } else { "s" });
    let mut body = describe(first);
    if n > 1 {
        body.push_str(&format!(" (+{} more)", n - 1));
    }
    Some(Notification { title, body })
}

/// The plain-text delivery for a poll: one line per announced ask, the dormant count only
/// because the window is open for something else anyway, then [`DELIVERY_NOTE`].
pub fn plain_delivery(announcements: &[Announcement], dormant: usize) -> Option<String> {
    let n = notification_for(announcements)?;
    let mut out = clean_text(&n.title);
    for a in announcements {
        out.push_str("\n  ");
        out.push_str(&clean_text(&describe(a)));
    }
    if dormant > 0 {
        out.push_str(&format!("\n  ({dormant} dormant, not announced)"));
    }
    out.push('\n');
    out.push_str(DELIVERY_NOTE);
    Some(out)
}

#[cfg(test)]
mod tests;
