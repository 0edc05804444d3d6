//! Tests for choosing the road: which protocol, when the sequence is wrapped for tmux, and the
//! verdict of a test notification for each mode, passthrough state and terminal.

use super::*;

fn n() -> Notification {
    Notification {
        title: "t".to_owned(),
        body: "b".to_owned(),
    }
}

fn env(pairs: &[(&str, &str)]) -> Env {
    // An empty PATH: no tmux to ask, so nothing here runs a process.
    let mut all = vec![("PATH", "")];
    all.extend_from_slice(pairs);
    Env::from_pairs(all)
}

fn leg(why: Wrap, allow_passthrough: Passthrough) -> Route {
    Route {
        protocol: Protocol::Osc99,
        tmux: Some(TmuxLeg {
            why,
            pane: Some("%4".to_owned()),
            allow_passthrough,
        }),
    }
}

#[test]
fn plain_and_off_send_no_sequence() {
    let e = env(&[("TMUX", "/tmp/s,1,0")]);
    assert_eq!(Route::choose(NotifyMode::Plain, &e), None);
    assert_eq!(Route::choose(NotifyMode::Off, &e), None);
    let v = verdict(NotifyMode::Plain, None, true);
    assert_eq!(v.path, "nowhere");
    assert!(v.reason.unwrap().contains("is unset"));
    assert!(v.fix.unwrap().contains("MEMPALACE_MAILBOX_NOTIFY=desktop"));
    let v = verdict(NotifyMode::Off, None, true);
    assert!(v.reason.unwrap().contains("=off"));
}

#[test]
fn desktop_outside_tmux_goes_straight() {
    let r = Route::choose(NotifyMode::Desktop, &env(&[("TERM", "xterm-kitty")])).unwrap();
    assert_eq!(
        r,
        Route {
            protocol: Protocol::Osc99,
            tmux: None
        }
    );
    assert_eq!(r.bytes(&n()), crate::mailbox::osc99("t", "b"));
    assert_eq!(verdict(NotifyMode::Desktop, Some(&r), true).path, "osc99");
    let r = Route::choose(NotifyMode::Desktop, &env(&[("TERM", "xterm")])).unwrap();
    assert_eq!(r.bytes(&n()), b"\x1b]777;notify;t;b\x1b\\".to_vec());
    let v = verdict(NotifyMode::Desktop, Some(&r), true);
    assert_eq!((v.path, v.note), ("osc777", None));
}

#[test]
fn tmux_wraps_when_detected_or_opted_in() {
    // $TMUX set (no tmux on PATH to ask): wrapped, passthrough unknown.
    let r = Route::choose(
        NotifyMode::Desktop,
        &env(&[
            ("TMUX", "/tmp/s,1,0"),
            ("TMUX_PANE", "%2"),
            ("KITTY_WINDOW_ID", "1"),
        ]),
    )
    .unwrap();
    let leg_of = |r: &Route| r.tmux.clone().unwrap();
    assert_eq!(leg_of(&r).why, Wrap::Detected);
    assert_eq!(leg_of(&r).pane.as_deref(), Some("%2"));
    assert_eq!(leg_of(&r).allow_passthrough.lets_through(), None);
    assert_eq!(
        r.bytes(&n()),
        b"\x1bPtmux;\x1b\x1b]99;i=mpt-mailbox:d=0;t\x1b\x1b\\\x1b\x1b]99;i=mpt-mailbox:d=1:p=body;b\x1b\x1b\\\x1b\\"
            .to_vec()
    );
    // The container case: nothing to detect, the user says so.
    let r = Route::choose(NotifyMode::DesktopTmux, &env(&[])).unwrap();
    assert_eq!(leg_of(&r).why, Wrap::OptedIn);
    assert_eq!(leg_of(&r).pane, None);
    assert_eq!(
        r.bytes(&n()),
        b"\x1bPtmux;\x1b\x1b]777;notify;t;b\x1b\x1b\\\x1b\\".to_vec()
    );
    assert!(r.describe().contains("desktop-tmux"));
    let v = verdict(NotifyMode::DesktopTmux, Some(&r), true);
    assert_eq!(v.path, "tmux");
    let note = v.note.unwrap();
    assert!(note.contains("cannot be asked"), "{note}");
    assert!(
        note.contains("tmux set-option -g allow-passthrough on"),
        "{note}"
    );
}

#[test]
fn passthrough_off_is_nowhere_with_the_fix_at_its_level() {
    for (scope, fix) in [
        (Scope::Global, "tmux set-option -g allow-passthrough on"),
        (
            Scope::Window,
            "tmux set-option -w -t %4 allow-passthrough on",
        ),
        (Scope::Pane, "tmux set-option -p -t %4 allow-passthrough on"),
    ] {
        let r = leg(Wrap::Detected, Passthrough::Off { scope });
        let v = verdict(NotifyMode::Desktop, Some(&r), true);
        assert_eq!(v.path, "nowhere");
        assert!(v.reason.unwrap().contains("allow-passthrough is off"));
        assert_eq!(v.fix.as_deref(), Some(fix));
    }
}

#[test]
fn passthrough_on_goes_through_tmux_with_its_caveat() {
    let on = |value: &str| Passthrough::Allowed {
        value: value.to_owned(),
        scope: Scope::Global,
    };
    let v = verdict(
        NotifyMode::Desktop,
        Some(&leg(Wrap::Detected, on("on"))),
        true,
    );
    assert_eq!(v.path, "tmux");
    assert!(v.note.unwrap().contains("only while this pane is visible"));
    let v = verdict(
        NotifyMode::Desktop,
        Some(&leg(Wrap::Detected, on("all"))),
        true,
    );
    assert_eq!((v.path, v.note), ("tmux", None));
    let v = verdict(
        NotifyMode::Desktop,
        Some(&leg(Wrap::Detected, Passthrough::Unconditional)),
        true,
    );
    assert!(v.note.unwrap().contains("before 3.3"));
}

#[test]
fn no_terminal_is_nowhere() {
    let r = Route::choose(NotifyMode::Desktop, &env(&[])).unwrap();
    let v = verdict(NotifyMode::Desktop, Some(&r), false);
    assert_eq!(v.path, "nowhere");
    assert!(v.reason.unwrap().contains("not a terminal"));
}
