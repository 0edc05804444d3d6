//! `mpt mailbox notify --test` through a real tmux: with `allow-passthrough` on the OSC 99 reaches
//! the outer terminal intact; off, the report names the command that turns it on (and that command
//! works); the container case (no `$TMUX`, `desktop-tmux`) writes the wrapped sequence.

use std::process::{Command, Stdio};

use serde_json::Value;

use crate::support::pty::{Pty, contains};
use crate::support::tmux::{Step, Tmux};
use crate::support::{TestEnv, stderr};

/// The test notification as kitty must receive it: two OSC 99 chunks, each ended by ST.
const OSC99: &[u8] = b"\x1b]99;i=mpt-mailbox:d=0;mpt mailbox: test notification\x1b\\\
\x1b]99;i=mpt-mailbox:d=1:p=body;asks owed to this device will be announced like this\x1b\\";

/// The OSC 777 form, inside tmux's passthrough DCS with every ESC doubled.
const WRAPPED_OSC777: &[u8] = b"\x1bPtmux;\x1b\x1b]777;notify;mpt mailbox: test notification;\
asks owed to this device will be announced like this\x1b\x1b\\\x1b\\";

fn mpt() -> &'static str {
    env!("CARGO_BIN_EXE_mpt")
}

fn report(step: &Step) -> Value {
    serde_json::from_str(&step.stdout)
        .unwrap_or_else(|e| panic!("not one JSON document ({e}): {}", step.stdout))
}

fn count(haystack: &[u8], needle: &[u8]) -> usize {
    haystack
        .windows(needle.len())
        .filter(|w| *w == needle)
        .count()
}

#[test]
fn with_passthrough_on_the_osc_99_reaches_the_outer_terminal_intact() {
    let env = TestEnv::new();
    let tmux = Tmux::start(&env, &["set-option -g allow-passthrough on"]);
    let step = tmux.step(&format!(
        "KITTY_WINDOW_ID=1 MEMPALACE_MAILBOX_NOTIFY=desktop '{}' --json mailbox notify --test\n",
        mpt()
    ));
    let r = report(&step);
    assert_eq!(step.code, 0, "{r}");
    assert_eq!(r["schema"], "mpt.mailbox.notify/v1");
    assert_eq!(r["path"], "tmux");
    assert_eq!(r["route"]["protocol"], "osc99");
    assert_eq!(r["route"]["tmux"]["why"], "detected");
    assert_eq!(r["route"]["tmux"]["pane"], "%0");
    assert_eq!(
        r["route"]["tmux"]["allow_passthrough"],
        serde_json::json!({"state": "allowed", "value": "on", "scope": "global"})
    );
    assert!(r["note"].as_str().unwrap().contains("visible"), "{r}");
    let outer = tmux.outer.seen();
    assert_eq!(
        count(&outer, OSC99),
        1,
        "{:?}",
        String::from_utf8_lossy(&outer)
    );
    assert!(
        !contains(&outer, b"\x1bPtmux;") && !contains(&outer, b"\x1b\x1b"),
        "tmux unwrapped it: no DCS, no doubled ESC reaches the terminal"
    );
    assert_eq!(
        r["written_bytes"].as_u64().unwrap() as usize,
        OSC99.len() + 7 + 4 + 2
    );

    // The container case in the seed's topology: tmux outside, `$TMUX` not forwarded. Opted in,
    // the sequence is wrapped blind and still arrives.
    let step = tmux.step(&format!(
        "env -u TMUX -u TMUX_PANE KITTY_WINDOW_ID=1 MEMPALACE_MAILBOX_NOTIFY=desktop-tmux \
         '{}' --json mailbox notify --test\n",
        mpt()
    ));
    let r = report(&step);
    assert_eq!(step.code, 0, "{r}");
    assert_eq!(r["route"]["tmux"]["why"], "opted_in");
    assert_eq!(r["route"]["tmux"]["allow_passthrough"]["state"], "unknown");
    assert!(
        r["note"]
            .as_str()
            .unwrap()
            .contains("tmux set-option -g allow-passthrough on"),
        "{r}"
    );
    assert_eq!(count(&tmux.outer.seen(), OSC99), 2);

    // Without either, the bare OSC 99 is one tmux does not implement: it never arrives. This is
    // the silent loss the opt-in exists for.
    let step = tmux.step(&format!(
        "env -u TMUX -u TMUX_PANE KITTY_WINDOW_ID=1 MEMPALACE_MAILBOX_NOTIFY=desktop \
         '{}' --json mailbox notify --test\n",
        mpt()
    ));
    assert_eq!(report(&step)["path"], "osc99");
    assert_eq!(
        count(&tmux.outer.seen(), OSC99),
        2,
        "tmux dropped the bare OSC 99"
    );
}

#[test]
fn with_passthrough_off_the_report_says_the_command_that_turns_it_on() {
    let env = TestEnv::new();
    // tmux's default: off.
    let tmux = Tmux::start(&env, &[]);
    let test = format!(
        "KITTY_WINDOW_ID=1 MEMPALACE_MAILBOX_NOTIFY=desktop '{}' --json mailbox notify --test\n",
        mpt()
    );
    let step = tmux.step(&test);
    let r = report(&step);
    assert_eq!(step.code, 3, "{r}");
    assert_eq!(r["path"], "nowhere");
    assert_eq!(r["written_bytes"], 0);
    assert!(
        r["reason"]
            .as_str()
            .unwrap()
            .contains("allow-passthrough is off (the global option)"),
        "{r}"
    );
    let fix = r["fix"].as_str().unwrap();
    assert_eq!(fix, "tmux set-option -g allow-passthrough on");
    // `watch` says it too, at start, on stderr (its poll fails: no primary on port 9).
    let watch = tmux.step(&format!(
        "MEMPALACE_MAILBOX_NOTIFY=desktop MEMPALACE_REMOTE_URL=http://127.0.0.1:9/mcp \
         MEMPALACE_PI_DEVICE=lap MEMPALACE_MAILBOX_POLL_MS=1000 \
         '{}' mailbox --as pi@lap watch --max-polls 1 2>./watch.err\n",
        mpt()
    ));
    assert_eq!(watch.code, 0);
    let said = std::fs::read_to_string(tmux.dir.join("watch.err")).unwrap();
    assert!(
        said.contains("allow-passthrough is off") && said.contains(fix),
        "{said}"
    );
    assert!(!contains(&tmux.outer.seen(), OSC99));

    // The command, run as the user would in that pane, lets the next one through.
    let words: Vec<&str> = fix.split(' ').collect();
    let o = Command::new(crate::support::program(words[0]).unwrap())
        .args(&words[1..])
        .env_clear()
        .env("TMUX", tmux.tmux_var())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let step = tmux.step(&test);
    assert_eq!(step.code, 0, "{}", step.stdout);
    assert!(contains(&tmux.outer.seen(), OSC99));

    // The pane's own option overrides the global one, as in tmux: the fix names the pane.
    let o = tmux.tmux(&["set-option", "-p", "-t", "%0", "allow-passthrough", "off"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let step = tmux.step(&test);
    assert_eq!(step.code, 3);
    assert_eq!(
        report(&step)["fix"],
        "tmux set-option -p -t %0 allow-passthrough on"
    );
}

#[test]
fn the_container_case_writes_the_wrapped_sequence() {
    let env = TestEnv::new();
    let mut pty = Pty::open(80, 24);
    let mut cmd = env.mpt_command(&["--json", "mailbox", "notify", "--test"]);
    cmd.env("MEMPALACE_MAILBOX_NOTIFY", "desktop-tmux")
        .env("TERM", "xterm-256color")
        .stdout(Stdio::piped())
        .stderr(pty.stdio());
    let child = cmd.spawn().unwrap();
    pty.close_slave();
    let o = child.wait_with_output().unwrap();
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(o.status.code(), Some(0), "{r}");
    assert_eq!(r["path"], "tmux");
    assert_eq!(r["route"]["protocol"], "osc777");
    assert_eq!(
        r["written_bytes"].as_u64(),
        Some(WRAPPED_OSC777.len() as u64)
    );
    assert!(
        pty.wait_for_bytes(30.0, WRAPPED_OSC777),
        "{:?}",
        String::from_utf8_lossy(&pty.seen())
    );
    assert_eq!(pty.seen(), WRAPPED_OSC777, "nothing else on the terminal");
}

#[test]
fn nowhere_is_exit_3_and_a_bad_value_exit_2_naming_it() {
    let env = TestEnv::new();
    let o = env.mpt(&["--json", "mailbox", "notify", "--test"], &[]);
    assert_eq!(o.status.code(), Some(3));
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(r["path"], "nowhere");
    assert!(r["reason"].as_str().unwrap().contains("is unset"));
    assert!(o.stderr.is_empty(), "nothing written: {:?}", stderr(&o));
    // Piped stderr: no terminal reads it, so nothing is sent.
    let o = env.mpt(
        &["--json", "mailbox", "notify", "--test"],
        &[("MEMPALACE_MAILBOX_NOTIFY", "desktop")],
    );
    assert_eq!(o.status.code(), Some(3));
    assert!(o.stderr.is_empty());
    let o = env.mpt(
        &["mailbox", "notify"],
        &[("MEMPALACE_MAILBOX_NOTIFY", "desktop_tmux")],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("\"desktop_tmux\""), "{}", stderr(&o));
}
