//! `mpt mailbox` against a real `mempalace serve`: another agent's asks, some acked by me through
//! the binary, the rest owed, read across pages; the gates; `watch` announcing once.

mod device;
mod live;
mod notify;
mod schema;

use std::io::{BufRead, BufReader};
use std::process::Stdio;

use mpt_mcp::{Deadline, McpClient};
use serde_json::{Value, json};

use crate::support::primary::{PrimaryOpts, remote_client};
use crate::support::{Primary, TestEnv, json, stderr, stdout};

const ME: &str = "pi@lap";

fn client(url: &str) -> McpClient {
    remote_client(url, None)
}

/// A `task.request` event from `from` to `to` appended through `c`; its id.
pub(crate) async fn append(
    c: &McpClient,
    from: &str,
    to: &str,
    body: &str,
    correlation: Option<&str>,
) -> String {
    let mut args = json!({"type": "task.request", "stream": "project/mpt", "room": "delegation", "from_agent": from, "to_agent": to, "status": "open", "body": body});
    if let Some(corr) = correlation {
        args["correlation_id"] = json!(corr);
    }
    let r = c
        .call_tool("mempalace_event_append", args, Deadline::Default)
        .await
        .unwrap();
    assert_eq!(r.payload["success"], true, "{}", r.payload);
    r.payload["event"]["id"].as_str().unwrap().to_string()
}

fn remote(url: &str) -> Vec<(&'static str, String)> {
    vec![
        ("MEMPALACE_REMOTE_URL", url.to_string()),
        ("MEMPALACE_PI_DEVICE", "lap".to_string()),
    ]
}

fn vars<'a>(v: &'a [(&'static str, String)]) -> Vec<(&'static str, &'a str)> {
    v.iter().map(|(k, s)| (*k, s.as_str())).collect()
}

#[test]
fn owed_is_exactly_the_unanswered_asks_across_pages() {
    let env = TestEnv::new();
    let p = Primary::start(&env, &env.palace("primary"), PrimaryOpts::default());
    let rt = tokio::runtime::Runtime::new().unwrap();
    let (asks, broadcast) = rt.block_on(async {
        let c = client(&p.url());
        c.connect().await.unwrap();
        let mut asks = Vec::new();
        for i in 0..505 {
            asks.push(
                append(
                    &c,
                    "codex@desk",
                    ME,
                    &format!("ask number {i}\nsecond line"),
                    None,
                )
                .await,
            );
        }
        let broadcast = append(&c, "codex@desk", "*", "anyone?", None).await;
        append(&c, "codex@desk", "pi@other", "not for me", None).await;
        (asks, broadcast)
    });
    let env_vars = remote(&p.url());
    let v = vars(&env_vars);
    for id in &asks[..3] {
        let o = env.mpt(
            &[
                "--json", "mailbox", "--as", ME, "ack", id, "--status", "applied", "--body", "done",
            ],
            &v,
        );
        assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
        assert_eq!(json(&o)["event"]["metadata"]["ack_of"], id.as_str());
    }
    let o = env.mpt(&["--json", "mailbox", "--as", ME], &v);
    assert!(o.status.success(), "{}", stderr(&o));
    let d = json(&o);
    assert_eq!(d["schema"], "mpt.mailbox/v1");
    let owed: Vec<&str> = d["owed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["id"].as_str().unwrap())
        .collect();
    let expected: Vec<&str> = asks[3..].iter().map(String::as_str).collect();
    assert_eq!(
        owed, expected,
        "the 502 unanswered asks, oldest first, read past the first 500-event page"
    );
    assert!(
        !owed.contains(&broadcast.as_str()),
        "a broadcast owes nobody"
    );
    assert_eq!(d["owed"][0]["summary"], "ask number 3");
    assert_eq!(d["owed"][0]["from"], "codex@desk");
    assert!(
        d["note"]
            .as_str()
            .unwrap()
            .contains("nothing woke the agent")
    );

    let count = env.mpt(&["mailbox", "--as", ME, "--count"], &v);
    assert_eq!(stdout(&count).trim(), "502");

    // A non-terminal reply does not close an ask.
    let o = env.mpt(
        &[
            "mailbox", "--as", ME, "ack", &asks[3], "--status", "blocked",
        ],
        &v,
    );
    assert!(o.status.success());
    let after = json(&env.mpt(&["--json", "mailbox", "--as", ME], &v));
    assert_eq!(
        after["owed_count"], 501,
        "blocked is terminal: it closes the ask"
    );
}

#[test]
fn the_gates_make_it_inert() {
    let env = TestEnv::new();
    let o = env.mpt(&["--json", "mailbox"], &[("MEMPALACE_PI_DEVICE", "lap")]);
    assert!(o.status.success());
    assert_eq!(json(&o)["active"], false, "no remote URL: solitary");
    let o = env.mpt(
        &["--json", "mailbox"],
        &[("MEMPALACE_REMOTE_URL", "http://127.0.0.1:9/mcp")],
    );
    assert_eq!(json(&o)["active"], false, "no device name");
    let o = env.mpt(
        &["--json", "mailbox"],
        &[
            ("MEMPALACE_REMOTE_URL", "http://127.0.0.1:9/mcp"),
            ("MEMPALACE_PI_DEVICE", "lap"),
            ("MEMPALACE_MAILBOX", "0"),
        ],
    );
    assert!(
        json(&o)["reason"]
            .as_str()
            .unwrap()
            .contains("MEMPALACE_MAILBOX=0")
    );
    let o = env.mpt(
        &["mailbox", "--as", ME, "watch", "--interval-ms", "1000"],
        &[
            ("MEMPALACE_REMOTE_URL", "http://127.0.0.1:9/mcp"),
            ("MEMPALACE_PI_DEVICE", "lap"),
        ],
    );
    assert_eq!(
        o.status.code(),
        Some(2),
        "below the 300000 ms floor is refused"
    );
}

#[test]
fn watch_announces_each_ask_once_with_a_sanitized_osc_99() {
    let env = TestEnv::new();
    let p = Primary::start(&env, &env.palace("primary"), PrimaryOpts::default());
    let rt = tokio::runtime::Runtime::new().unwrap();
    let c = client(&p.url());
    let first = rt.block_on(async {
        c.connect().await.unwrap();
        append(
            &c,
            "codex@desk",
            ME,
            "review; the\x1b]99;forged\x07 patch",
            None,
        )
        .await
    });
    let mut cmd = env.mpt_command(&["mailbox", "--as", ME, "watch", "--max-polls", "12"]);
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    cmd.env("MEMPALACE_REMOTE_URL", p.url())
        .env("MEMPALACE_PI_DEVICE", "lap")
        .env("MEMPALACE_MAILBOX_POLL_MS", "250")
        .env("MEMPALACE_MAILBOX_NOTIFY", "desktop")
        .env("TERM", "xterm-kitty");
    let mut child = cmd.spawn().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let head = lines.next().unwrap().unwrap();
    assert!(head.contains("1 new ask owed"), "{head}");
    // A new ask arrives while watching: announced by itself, the old one not again.
    let second = rt.block_on(append(&c, "codex@desk", ME, "second ask", None));
    let rest: Vec<String> = lines.map_while(|l| l.ok()).collect();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let all = format!("{head}\n{}", rest.join("\n"));
    assert_eq!(all.matches(&first).count(), 1, "announced once:\n{all}");
    assert_eq!(
        all.matches(&second).count(),
        1,
        "the new ask announced once:\n{all}"
    );
    let err = out.stderr;
    let osc_starts = err.windows(5).filter(|w| w == b"\x1b]99;").count();
    assert_eq!(
        osc_starts,
        4,
        "two notifications (title + body each), no forged sequence: {:?}",
        String::from_utf8_lossy(&err)
    );
    let expected_title = b"\x1b]99;i=mpt-mailbox:d=0;mailbox: 1 new ask owed\x1b\\";
    assert!(
        err.windows(expected_title.len())
            .any(|w| w == expected_title),
        "{:?}",
        String::from_utf8_lossy(&err)
    );
    assert!(
        !err.windows(7).any(|w| w == b"forged\x07"),
        "the payload's BEL and ESC were stripped"
    );
    let _: Value = Value::Null;
}
