//! A non-admin's arguments held to the tool's own against a real `serve` (issue 53): an argument
//! the tool does not take, a wrong type and a metadata key passing for the stamp are refused; an
//! integer goes as the server reads it, a `null` as nothing; an admin's go as sent.

use serde_json::{Value, json};

use super::{denied, on_primary};
use crate::support::gateway::{Setup, call, mpt, payload};

#[test]
fn a_non_admins_arguments_are_the_tools_own_each_of_its_type() {
    let s = Setup::new(json!({"lap": {"role": "member"}, "hub": {"role": "admin"}}));
    let (p, port) = (&s.p, s.gw.port);
    let (lap, hub) = (s.token("lap"), s.token("hub"));

    for (tool, args, rule) in [
        (
            "mempalace_checkpoint",
            json!({"items": [{"wing": "wing_lap", "room": "r", "content": "c", "source_file": "/srv/x.md"}]}),
            "arguments:unknown:/items/0/source_file",
        ),
        (
            "mempalace_add_drawer",
            json!({"wing": ["wing_lap"], "room": "r", "content": "a list for a wing"}),
            "arguments:type:/wing:string",
        ),
        (
            "mempalace_list_drawers",
            json!({"limit": "\u{663}"}),
            "arguments:type:/limit:integer",
        ),
        (
            "mempalace_event_append",
            json!({"type": "note", "stream": "s", "room": "r", "from_agent": "pi",
                "metadata": {"\u{ff4d}\u{ff50}\u{ff54}": {"device": "hub"}}}),
            "arguments:stamp_lookalike:/metadata/\u{ff4d}\u{ff50}\u{ff54}",
        ),
        (
            "mempalace_event_append",
            json!({"type": "note", "stream": "s", "room": "r", "from_agent": "pi",
                "metadata": {"m\u{440}t": {"device": "hub"}}}),
            "arguments:stamp_lookalike:/metadata/m\u{440}t",
        ),
    ] {
        denied(&call(port, &lap, tool, args), "lap", tool, rule);
    }
    let events = on_primary(p, "mempalace_event_list", json!({"stream": "s"}));
    assert_eq!(events["events"], json!([]), "nothing landed: {events}");

    // Integers as the server reads them, nulls as absent, the transport argument dropped.
    for i in 0..3 {
        let added = payload(&call(
            port,
            &lap,
            "mempalace_add_drawer",
            json!({"wing": "wing_lap", "room": "r", "content": format!("drawer {i}"), "source_file": null}),
        ));
        assert_eq!(added["success"], true, "{added}");
    }
    let page = payload(&call(
        port,
        &lap,
        "mempalace_list_drawers",
        json!({"wing": "wing_lap", "limit": " 2 ", "offset": 1.0, "room": null, "wait_for_previous": true}),
    ));
    assert_eq!(page["drawers"].as_array().map(Vec::len), Some(2), "{page}");
    // A metadata key of its own passes, beside the gateway's stamp.
    let appended = payload(&call(
        port,
        &lap,
        "mempalace_event_append",
        json!({"type": "note", "stream": "s", "room": "r", "from_agent": "pi",
            "metadata": {"mpt_note": "mine", "mpt": {"device": "hub"}}}),
    ));
    assert!(appended.get("event").is_some(), "{appended}");
    let events = on_primary(p, "mempalace_event_list", json!({"stream": "s"}));
    let meta = &events["events"][0]["metadata"];
    assert_eq!(meta["mpt_note"], "mine", "{events}");
    assert_eq!(
        meta["mpt"]["device"], "lap",
        "the stamp is the token's: {meta}"
    );

    // The audit names each change by where it was made, never by its value.
    let o = mpt(
        &s.env,
        &s.dir,
        &["--json", "gateway", "audit", "--device", "lap"],
    );
    let text = crate::support::stdout(&o);
    for change in [
        "rewrote:/limit",
        "rewrote:/offset",
        "dropped:/room",
        "dropped:/wait_for_previous",
        "dropped:/source_file",
    ] {
        assert!(text.contains(change), "{change}: {text}");
    }

    // An admin's arguments go as sent: the server answers an unknown one itself.
    let r = call(
        port,
        &hub,
        "mempalace_search",
        json!({"query": "q", "min_similarity": 0.2}),
    );
    let v: Value = r.json();
    let said = v["error"]["message"]
        .as_str()
        .unwrap_or_default()
        .to_string()
        + v["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default();
    assert!(
        said.contains("min_similarity"),
        "the server's own refusal: {v}"
    );
    assert!(v["result"]["_meta"].get("mpt/denial").is_none(), "{v}");
}
