//! Tests for notification bytes: exact OSC 99 / OSC 777 layouts, sanitizing against forged
//! fields and early terminators, and the plain-text forms.

use super::*;
use crate::mailbox::derive::Ask;

#[test]
fn osc99_is_byte_exact() {
    assert_eq!(
        osc99("Hello world", "This is cool"),
        b"\x1b]99;i=mpt-mailbox:d=0;Hello world\x1b\\\x1b]99;i=mpt-mailbox:d=1:p=body;This is cool\x1b\\"
            .to_vec()
    );
}

#[test]
fn osc777_is_byte_exact() {
    assert_eq!(
        osc777("alert user", "the tea is ready"),
        b"\x1b]777;notify;alert user;the tea is ready\x1b\\".to_vec()
    );
}

#[test]
fn hostile_payloads_are_defused() {
    let evil =
        "a;b\x1b\\c\x07d\x1b]777;notify;forged;x\u{9c}e\u{9b}2J\x00\x7f\x18\x1af\u{85}g\r\nh\tœ";
    assert_eq!(sanitize_field(evil), "ab\\cd]777notifyforgedxe2Jfg  h œ");
    assert_eq!(
        osc777(evil, evil),
        "\x1b]777;notify;ab\\cd]777notifyforgedxe2Jfg  h œ;ab\\cd]777notifyforgedxe2Jfg  h œ\x1b\\"
            .as_bytes()
            .to_vec()
    );
    let seq = osc99(evil, evil);
    // Exactly two OSC introducers, two STs, and the four structural `;` of two chunks.
    let count = |needle: &[u8]| seq.windows(needle.len()).filter(|w| *w == needle).count();
    assert_eq!(count(b"\x1b]"), 2);
    assert_eq!(count(b"\x1b"), 2 + 2);
    assert_eq!(count(b"\x1b\\"), 2);
    assert_eq!(count(b";"), 4);
    assert_eq!(count(b"\x07"), 0);
    let text = String::from_utf8(seq).unwrap();
    assert!(!text.chars().any(|c| ('\u{80}'..='\u{9f}').contains(&c)));
    assert!(
        text.chars()
            .filter(|&c| c != '\x1b')
            .all(|c| c >= ' ' && c != '\x7f')
    );
}

#[test]
fn every_control_is_removed() {
    let all: String = (0u32..=0xa0).filter_map(char::from_u32).collect();
    let kept = sanitize_field(&all);
    let printable: String = (0x20u8..0x7f)
        .map(char::from)
        .filter(|&c| c != ';')
        .collect();
    assert_eq!(kept, format!("   {printable}\u{a0}"));
}

#[test]
fn long_fields_are_cut_on_a_char_boundary() {
    let s = "é".repeat(MAX_FIELD_BYTES); // 2 bytes each
    let cut = sanitize_field(&s);
    assert_eq!(cut.len(), MAX_FIELD_BYTES);
    let s = format!("x{}", "é".repeat(MAX_FIELD_BYTES));
    assert_eq!(sanitize_field(&s).len(), MAX_FIELD_BYTES - 1);
}

#[test]
fn plain_text_keeps_semicolons_but_no_controls() {
    let n = Notification {
        title: "mailbox; 1".to_owned(),
        body: "x\x1b[31mred\x07".to_owned(),
    };
    assert_eq!(plain(&n), "mailbox; 1: x[31mred");
    assert_eq!(clean_text("a\u{9c}b\u{85}c\td"), "abc d");
}

#[test]
fn desktop_picks_the_protocol() {
    let n = Notification {
        title: "t".to_owned(),
        body: "b".to_owned(),
    };
    assert_eq!(desktop_bytes(&n, true), osc99("t", "b"));
    assert_eq!(
        desktop_bytes(&n, false),
        b"\x1b]777;notify;t;b\x1b\\".to_vec()
    );
    assert!(prefers_kitty(Some("1"), None));
    assert!(prefers_kitty(None, Some("xterm-kitty")));
    assert!(!prefers_kitty(Some(""), Some("xterm-256color")));
    assert!(!prefers_kitty(None, None));
}

#[test]
fn notify_mode_from_env() {
    assert_eq!(NotifyMode::from_env(None), Ok(NotifyMode::Plain));
    assert_eq!(NotifyMode::from_env(Some("")), Ok(NotifyMode::Plain));
    assert_eq!(
        NotifyMode::from_env(Some("desktop")),
        Ok(NotifyMode::Desktop)
    );
    assert_eq!(NotifyMode::from_env(Some("0")), Ok(NotifyMode::Off));
    assert_eq!(NotifyMode::from_env(Some("off")), Ok(NotifyMode::Off));
    assert_eq!(
        NotifyMode::from_env(Some(" desktop-tmux ")),
        Ok(NotifyMode::DesktopTmux)
    );
    let bad = NotifyMode::from_env(Some("desktop,tmux")).unwrap_err();
    assert!(bad.contains("\"desktop,tmux\""), "names the value: {bad}");
    assert!(bad.contains("desktop-tmux"), "lists the values: {bad}");
}

#[test]
fn tmux_passthrough_doubles_every_esc() {
    assert_eq!(
        tmux_passthrough(&osc777("t", "b")),
        b"\x1bPtmux;\x1b\x1b]777;notify;t;b\x1b\x1b\\\x1b\\".to_vec()
    );
    // Whatever the payload, the one undoubled ESC is the final ST's: tmux's DCS parser turns
    // each ESC ESC back into one ESC, so the DCS cannot end early and hands on `seq` whole.
    let seq = osc99("a;b\x1b\\c", "\x1bPtmux;\x1b\x1b\\d");
    let wrapped = tmux_passthrough(&seq);
    let mut undoubled = Vec::new();
    let mut i = TMUX_DCS.len();
    while i < wrapped.len() {
        if wrapped[i] == 0x1b {
            if wrapped.get(i + 1) == Some(&0x1b) {
                undoubled.push(0x1b);
                i += 2;
                continue;
            }
            assert_eq!(&wrapped[i..], b"\x1b\\", "only the final ST is a lone ESC");
            break;
        }
        undoubled.push(wrapped[i]);
        i += 1;
    }
    assert_eq!(undoubled, seq);
    assert!(wrapped.starts_with(TMUX_DCS));
}

fn announcement(id: &str, why: Why, summary: &str) -> Announcement {
    Announcement {
        why,
        ask: Ask {
            id: id.to_owned(),
            from: Some("oc@box".to_owned()),
            to: Some("pi@laptop".to_owned()),
            kind: "task.request".to_owned(),
            age_secs: Some(60),
            correlation_id: None,
            summary: summary.to_owned(),
            hlc: None,
            seq: Some(1),
            created_at: None,
            dormancy: None,
        },
    }
}

#[test]
fn fires_only_when_something_is_due() {
    assert_eq!(notification_for(&[]), None);
    assert_eq!(plain_delivery(&[], 3), None);
    let one = [announcement("evt_1", Why::NewlyOwed, "fix; the build")];
    let n = notification_for(&one).unwrap();
    assert_eq!(n.title, "mailbox: 1 new ask owed");
    assert_eq!(n.body, "oc@box task.request evt_1: fix; the build");
    assert_eq!(
        osc777(&n.title, &n.body),
        b"\x1b]777;notify;mailbox: 1 new ask owed;oc@box task.request evt_1: fix the build\x1b\\"
            .to_vec()
    );
    let two = [
        announcement("evt_1", Why::NewlyOwed, "fix"),
        announcement("evt_2", Why::LeftDormancy, "rebuild"),
    ];
    let n = notification_for(&two).unwrap();
    assert_eq!(n.title, "mailbox: 2 new asks owed");
    assert_eq!(n.body, "oc@box task.request evt_1: fix (+1 more)");
    assert_eq!(
        plain_delivery(&two, 2).unwrap(),
        format!(
            "mailbox: 2 new asks owed\n  oc@box task.request evt_1: fix\n  \
             oc@box task.request evt_2 (left dormancy): rebuild\n  \
             (2 dormant, not announced)\n{DELIVERY_NOTE}"
        )
    );
}
