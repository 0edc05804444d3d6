//! The mailbox of a device on a real fleet: every `*@<device>` identity owes (the edge stamps one
//! per harness), only the addressee's reply closes an ask, and an ask seen online can be answered
//! offline, with or without an edge running.

use serde_json::{Value, json};

use crate::support::fleet::{Device, Fleet};
use crate::support::link::Mode;
use crate::support::{json as parse_json, stderr, stdout, wait_for};

/// An open ask on the primary from someone off the device; its id.
fn ask(fleet: &Fleet, to: &str, body: &str) -> String {
    fleet.ask("codex@desk", to, body)
}

/// `mpt --json mailbox ARGS` on the device (no `--as`): the document.
fn mailbox(d: &Device, args: &[&str]) -> Value {
    let mut all = vec!["--json", "mailbox"];
    all.extend_from_slice(args);
    let o = d.mpt(&all);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    parse_json(&o)
}

fn owed(doc: &Value) -> Vec<(String, String)> {
    doc["owed"]
        .as_array()
        .unwrap_or_else(|| panic!("{doc}"))
        .iter()
        .map(|a| {
            (
                a["id"].as_str().unwrap().to_string(),
                a["to"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

/// The acks on the primary answering `id`.
fn acks_of(fleet: &Fleet, writer: &str, id: &str) -> Vec<Value> {
    fleet
        .events_by(writer)
        .into_iter()
        .filter(|e| e["metadata"]["ack_of"] == id)
        .collect()
}

#[test]
fn a_device_owes_what_any_of_its_identities_owes_and_acks_as_the_addressee() {
    let fleet = Fleet::start(1);
    let d = &fleet.devices[0];
    let to_cc = ask(
        &fleet,
        &d.agent("claude"),
        "summarise the Claude Code session",
    );
    let to_cx = ask(&fleet, &d.agent("codex"), "port the lexer fix");
    let to_oc = ask(&fleet, &d.agent("opencode"), "review the opencode change");
    let to_pi = ask(&fleet, &d.agent("pi"), "rotate the keys");
    ask(&fleet, "pi@elsewhere", "not this device's");

    let doc = mailbox(d, &[]);
    assert_eq!(
        owed(&doc),
        [
            (to_cc.clone(), d.agent("claude")),
            (to_cx.clone(), d.agent("codex")),
            (to_oc.clone(), d.agent("opencode")),
            (to_pi.clone(), d.agent("pi"))
        ],
        "{doc}"
    );
    assert_eq!(
        doc["identities"],
        json!([
            d.agent("claude"),
            d.agent("codex"),
            d.agent("opencode"),
            d.agent("pi")
        ])
    );
    assert_eq!(doc["me"], d.agent("mcp"), "`me` stays the stamp identity");
    let human = stdout(&d.mpt(&["mailbox"]));
    assert!(human.contains("owed by *@dev0"), "{human}");
    assert!(
        human.contains(&format!("to {}", d.agent("opencode"))),
        "{human}"
    );

    // Without --as, the ack answers as the identity the ask was addressed to.
    let done = mailbox(d, &["ack", &to_oc, "--status", "applied"]);
    assert_eq!(done["me"], d.agent("opencode"), "{done}");
    assert_eq!(acks_of(&fleet, &d.agent("opencode"), &to_oc).len(), 1);
    assert_eq!(
        owed(&mailbox(d, &[])),
        [
            (to_cc.clone(), d.agent("claude")),
            (to_cx.clone(), d.agent("codex")),
            (to_pi.clone(), d.agent("pi"))
        ]
    );
    // --as still narrows the mailbox to one identity.
    assert!(owed(&mailbox(d, &["--as", &d.agent("opencode")])).is_empty());
}

#[test]
fn an_edge_started_offline_queues_an_ack_of_an_ask_only_the_primary_holds() {
    let fleet = Fleet::start(1);
    let d = &fleet.devices[0];
    let _owners = crate::support::harness::OwnersStopped::of(&d.env);
    let to_pi = ask(&fleet, &d.agent("pi"), "check the backups");
    d.link.set(Mode::Refuse);
    let mut s = d.session("pi", &[]);
    let reply = s
        .call(
            "mempalace_event_ack",
            json!({"event_id": to_pi, "from_agent": d.agent("pi"), "status": "applied", "body": "checked"}),
        )
        .unwrap_or_else(|e| panic!("queued for the primary, not `not found`: {e}"));
    assert!(reply["queued"].is_string(), "{reply}");
    assert!(
        reply["note"].as_str().unwrap().contains("validates"),
        "{reply}"
    );
    assert_eq!(d.outbox()["open"], 1, "{}", d.outbox());
    // Offline, the queued ack answers the ask.
    assert!(owed(&mailbox(d, &[])).is_empty());

    d.link.set(Mode::Pass);
    assert!(d.wait_drained(90.0), "{}", d.outbox());
    assert_eq!(acks_of(&fleet, &d.agent("pi"), &to_pi).len(), 1);
    assert!(owed(&mailbox(d, &[])).is_empty());
    s.close();
}

#[test]
fn an_ask_read_online_with_no_edge_running_can_be_answered_offline() {
    let fleet = Fleet::start(2);
    let (d, bare) = (&fleet.devices[0], &fleet.devices[1]);
    // A palace that exists (an earlier session filed something); no edge runs now.
    d.env.call_local(
        &d.palace,
        "mempalace_add_drawer",
        r#"{"wing":"w","room":"r","content":"filed before"}"#,
    );
    let to_pi = ask(&fleet, &d.agent("pi"), "renew the certificate");
    let pi = d.agent("pi");
    assert_eq!(owed(&mailbox(d, &["--as", &pi]))[0].0, to_pi);
    assert!(
        d.local_has(&to_pi),
        "the read pulled the primary's log itself"
    );

    d.link.set(Mode::Refuse);
    let done = mailbox(
        d,
        &["ack", &to_pi, "--status", "applied", "--body", "renewed"],
    );
    assert!(done["queued"].is_string(), "queued, not exit 7: {done}");
    assert_eq!(done["me"], d.agent("pi"), "{done}");
    let offline = mailbox(d, &[]);
    assert_eq!(offline["stale"], true, "{offline}");
    assert!(
        owed(&offline).is_empty(),
        "the queued ack answers it: {offline}"
    );

    d.link.set(Mode::Pass);
    let o = d.mpt(&["--json", "outbox", "flush", "--wait"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert_eq!(acks_of(&fleet, &d.agent("pi"), &to_pi).len(), 1);
    assert!(owed(&mailbox(d, &[])).is_empty());

    // A device with no palace: the read pulls nothing and creates none.
    ask(&fleet, &bare.agent("pi"), "for the bare device");
    assert_eq!(owed(&mailbox(bare, &[])).len(), 1);
    assert!(
        !bare.palace.exists(),
        "a mailbox read never creates a palace"
    );
}

#[test]
fn a_mailbox_read_online_wakes_the_owners_pull() {
    let fleet = Fleet::start(1);
    let d = &fleet.devices[0];
    let _owners = crate::support::harness::OwnersStopped::of(&d.env);
    // The owner's own schedule would not pull again for ten minutes.
    let mut s = d.session("pi", &[("MPT_EDGE_PULL_MS", "600000")]);
    s.call("mempalace_status", json!({})).unwrap();
    assert!(
        wait_for(60.0, || d.pull_recorded()),
        "the owner's first pull"
    );
    let to_pi = ask(&fleet, &d.agent("pi"), "after the owner's first pull");
    assert_eq!(owed(&mailbox(d, &["--as", &d.agent("pi")])).len(), 1);
    assert!(
        wait_for(60.0, || d.local_has(&to_pi)),
        "the read woke the owner's pull"
    );
    s.close();
}

#[test]
fn rows_of_the_local_log_that_cannot_be_read_are_skipped_and_counted_offline_and_online() {
    let fleet = Fleet::start(1);
    let d = &fleet.devices[0];
    d.env.call_local(
        &d.palace,
        "mempalace_add_drawer",
        r#"{"wing":"w","room":"r","content":"filed before"}"#,
    );
    let pi = d.agent("pi");
    let to_pi = ask(&fleet, &pi, "answered on this device");
    assert_eq!(owed(&mailbox(d, &["--as", &pi]))[0].0, to_pi);
    assert!(d.local_has(&to_pi), "the read pulled the primary's log");
    // This device's own answer, not on the primary: only the local log holds it.
    let ack = format!(
        r#"{{"event_id":"{to_pi}","from_agent":"{pi}","status":"applied","body":"done here"}}"#
    );
    d.env.call_local(&d.palace, "mempalace_event_ack", &ack);
    // Rows as a peer's sync may leave them: a text origin_seq (readable: MemPalace serves it),
    // a BLOB hlc and a body of invalid UTF-8 (unreadable: skipped, counted).
    let c = rusqlite::Connection::open(d.palace.join("logstream.sqlite3")).unwrap();
    let row = |id: &str, seq: &str, hlc: &str, body: &str| {
        c.execute(
            &format!(
                "INSERT INTO events (id, type, stream, room, from_agent, to_agent, status, body,
                   created_at, metadata_json, origin_replica, origin_seq, hlc)
                 VALUES (?1, 'task.request', 's', 'r', 'oc@b', ?2, 'open', {body},
                   '2026-01-01T00:00:00Z', '{{}}', 'rep_x', {seq}, {hlc})"
            ),
            rusqlite::params![id, pi],
        )
        .unwrap();
    };
    row(
        "evt_textseq",
        "'7'",
        "'1767225600000-000001-rep_x'",
        "'text seq'",
    );
    row("evt_blobhlc", "8", "X'00ff'", "'blob hlc'");
    row(
        "evt_badutf8",
        "9",
        "'1767225600000-000003-rep_x'",
        "CAST(X'ff' AS TEXT)",
    );
    drop(c);

    let online = mailbox(d, &["--as", &pi]);
    assert_eq!(online["stale"], false, "{online}");
    assert_eq!(
        owed(&online),
        [("evt_textseq".to_string(), pi.clone())],
        "this device's own ack still answers the ask: {online}"
    );
    assert_eq!(online["rows_skipped"], 2, "{online}");

    d.link.set(Mode::Refuse);
    let offline = mailbox(d, &["--as", &pi]);
    assert_eq!(offline["stale"], true, "{offline}");
    assert_eq!(owed(&offline), [("evt_textseq".to_string(), pi.clone())]);
    assert_eq!(offline["rows_skipped"], 2, "{offline}");
}
