//! Derivation tests beyond the table: ordering, stats, the serialized shape of an ask,
//! ages, summaries, and how dormancy splits owed from dormant.

use super::*;

#[test]
fn owed_asks_are_in_causal_order() {
    let d = run(&[
        ask("c", 3),
        ask("a", 1),
        ask("z", 0).at(None, Some(2)),
        ask("b", 2),
        ask("y", 0).at(None, Some(1)),
    ]);
    assert_eq!(ids(&d.owed), ["a", "b", "c", "y", "z"]);
}

#[test]
fn stats_count_what_was_seen() {
    let mut events = vec![
        ask("a1", 1).corr("c"),
        ask("a2", 2),
        reply("r", "applied", 3).corr("c"),
        ev("b", OC, "*", Some("open")).at(Some(4), Some(4)),
        ev("mb", ME, "*", Some("open")).at(Some(5), Some(5)),
        ev("m", ME, ME, Some("open")).at(Some(6), Some(6)),
        ev("k", OC, ME, Some("applied")).at(Some(7), Some(7)),
        ask("a2", 9),
    ];
    events.push(E {
        v: json!({"seq": 1}),
    });
    let d = run(&events);
    assert_eq!(
        d.stats,
        Stats {
            events: 9,
            skipped_no_id: 1,
            duplicates: 1,
            candidates: 2,
            answered: 1,
            broadcasts: 1,
            own: 1,
            not_open: 1,
        }
    );
    assert_eq!(ids(&d.owed), ["a2"]);
    assert_eq!(d.owed[0].seq, Some(2), "the first copy of a duplicate wins");
}

#[test]
fn ask_fields_and_serialized_shape() {
    let mut a = ask("evt_1", 1).corr("task_x_1");
    a.v["body"] = "\n  \u{1b}]0;pwned\u{7} fix\tthe build  \nsecond line".into();
    a.v["created_at"] = "2026-09-22T17:12:49Z".into();
    let d = run(&[a]);
    let json = serde_json::to_value(&d).unwrap();
    assert_eq!(
        json,
        json!({
            "me": ME,
            "identities": [ME],
            "owed": [{
                "id": "evt_1", "from": OC, "to": ME, "type": "task.request", "age_secs": 3600,
                "correlation_id": "task_x_1", "summary": "]0;pwned fix the build",
                "hlc": hlc(1), "seq": 1, "created_at": "2026-09-22T17:12:49Z"
            }],
            "dormant": [],
            "stats": {"events": 1, "skipped_no_id": 0, "duplicates": 0, "candidates": 1,
                      "answered": 0, "broadcasts": 0, "own": 0, "not_open": 0}
        })
    );
}

#[test]
fn age_is_clamped_and_optional() {
    let mut future = ask("f", 1);
    future.v["created_at"] = "2027-01-01T00:00:00Z".into();
    let mut bad = ask("g", 2);
    bad.v["created_at"] = "yesterday".into();
    let d = run(&[future, bad]);
    assert_eq!(d.owed[0].age_secs, Some(0));
    assert_eq!(d.owed[1].age_secs, None);
}

#[test]
fn long_summaries_are_cut() {
    let mut a = ask("a", 1);
    a.v["body"] = "x".repeat(500).into();
    let s = &run(&[a]).owed[0].summary;
    assert_eq!(s.chars().count(), 200);
    assert!(s.ends_with('…'));
}

#[test]
fn dormancy_splits_owed_from_dormant() {
    let with = |id: &str, h: u64, spec: Value| {
        let mut a = ask(id, h);
        a.v["metadata"]["dormant_unless"] = spec;
        a
    };
    let hostname =
        |b: &str| json!([{"kind": "file_mtime", "path": "/etc/hostname", "baseline": b}]);
    let d = run(&[
        with("waiting", 1, hostname("2026-09-22T18:12:49Z")),
        with("moved", 2, hostname("2026-09-01T00:00:00Z")),
        with(
            "missing",
            3,
            json!([{"kind": "file_mtime", "path": "/etc/gone", "baseline": "2026-09-22T18:12:49Z"}]),
        ),
        with("null", 4, Value::Null),
        // Answered asks are never evaluated, dormant or not.
        with("answered", 5, hostname("2026-09-22T18:12:49Z")),
        reply("r", "applied", 6).ack_of("answered"),
    ]);
    assert_eq!(ids(&d.dormant), ["waiting"]);
    assert_eq!(ids(&d.owed), ["moved", "missing", "null"]);
    let state = |a: &Ask| a.dormancy.as_ref().map(|d| d.state);
    assert_eq!(state(&d.dormant[0]), Some(DormancyState::Dormant));
    assert_eq!(state(&d.owed[0]), Some(DormancyState::Live));
    assert_eq!(state(&d.owed[1]), Some(DormancyState::Unevaluable));
    assert_eq!(
        d.owed[1].dormancy.as_ref().unwrap().reason,
        "condition 1: file_mtime /etc/gone: file missing"
    );
    assert_eq!(state(&d.owed[2]), None);
}

#[test]
fn a_device_owes_what_any_of_its_identities_owes_and_only_the_addressee_answers() {
    use super::super::Me;
    let values: Vec<Value> = [
        ev("to_oc", OC, "opencode@laptop", Some("open")).at(Some(1), Some(1)),
        ev("to_pi", OC, ME, Some("open")).at(Some(2), Some(2)),
        ev("elsewhere", OC, OTHER, Some("open")).at(Some(3), Some(3)),
        // pi@laptop acks opencode's ask: not its addressee, so it stays owed.
        ev("wrong", ME, OC, Some("applied"))
            .at(Some(4), Some(4))
            .ack_of("to_oc"),
        ev("right", "opencode@laptop", OC, Some("applied"))
            .at(Some(5), Some(5))
            .ack_of("to_pi"),
        // One identity of the device asking another is an ask like any other.
        ev("inside", ME, "opencode@laptop", Some("open")).at(Some(6), Some(6)),
    ]
    .iter()
    .map(|e| e.v.clone())
    .collect();
    let me = Me::device("laptop", ME);
    let d = super::super::derive(&values, &me, NOW, &OneFile);
    assert_eq!(ids(&d.owed), ["to_oc", "to_pi", "inside"], "{d:?}");
    assert_eq!(d.identities, ["opencode@laptop", ME]);
    assert_eq!(d.me, ME);
    assert_eq!(d.owed[0].to.as_deref(), Some("opencode@laptop"));
    let closed: Vec<Value> = values
        .iter()
        .cloned()
        .chain([ev("oc_done", "opencode@laptop", OC, Some("applied"))
            .at(Some(7), Some(7))
            .ack_of("to_oc")
            .v])
        .collect();
    let d = super::super::derive(&closed, &me, NOW, &OneFile);
    assert_eq!(ids(&d.owed), ["to_pi", "inside"]);
}
