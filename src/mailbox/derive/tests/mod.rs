//! Table-driven tests for the owed-ness derivation: hlc/seq ordering, ack_of and correlation
//! joins, terminal and non-terminal statuses, broadcasts, own events and other addressing.

use std::io;
use std::path::Path;

use serde_json::{Value, json};

use super::super::dormancy::{DormancyState, Fs};
use super::{Ask, Derivation, Stats, derive};

const ME: &str = "pi@laptop";
const OC: &str = "oc@box";
const OTHER: &str = "pi@tor-ms22";
const NOW: i64 = 1_790_100_769; // 2026-09-22T18:12:49Z

/// `/etc/hostname` has mtime NOW; everything else is missing.
struct OneFile;

impl Fs for OneFile {
    fn mtime_secs(&self, path: &Path) -> io::Result<i64> {
        if path == Path::new("/etc/hostname") {
            Ok(NOW)
        } else {
            Err(io::ErrorKind::NotFound.into())
        }
    }
    fn read(&self, _: &Path) -> io::Result<Vec<u8>> {
        Err(io::ErrorKind::NotFound.into())
    }
}

fn hlc(n: u64) -> String {
    format!(
        "{:013}-{:06x}-rep_49341879be104ab48296c1e07a6e1106",
        1_795_990_813_000 + n,
        n % 3
    )
}

/// Builder for one event; `h` is an hlc tick (`None`: no hlc), `s` a seq (`None`: no seq).
#[derive(Clone)]
struct E {
    v: Value,
}

fn ev(id: &str, from: &str, to: &str, status: Option<&str>) -> E {
    E {
        v: json!({
            "id": id, "type": "task.request", "from_agent": from, "to_agent": to,
            "status": status, "correlation_id": null, "hlc": null, "seq": null,
            "body": format!("body of {id}"), "created_at": "2026-09-22T18:00:00Z", "metadata": {}
        }),
    }
}

impl E {
    fn at(mut self, h: Option<u64>, s: Option<i64>) -> E {
        self.v["hlc"] = h.map(hlc).into();
        self.v["seq"] = s.into();
        self
    }
    fn corr(mut self, c: &str) -> E {
        self.v["correlation_id"] = c.into();
        self
    }
    fn ack_of(mut self, id: &str) -> E {
        self.v["type"] = "event.ack".into();
        self.v["metadata"]["ack_of"] = id.into();
        self
    }
}

fn ask(id: &str, h: u64) -> E {
    ev(id, OC, ME, Some("open")).at(Some(h), Some(h as i64))
}

fn reply(id: &str, status: &str, h: u64) -> E {
    ev(id, ME, OC, Some(status)).at(Some(h), Some(h as i64))
}

fn ids(asks: &[Ask]) -> Vec<&str> {
    asks.iter().map(|a| a.id.as_str()).collect()
}

fn run(events: &[E]) -> Derivation {
    let values: Vec<Value> = events.iter().map(|e| e.v.clone()).collect();
    derive(&values, &super::Me::one(ME), NOW, &OneFile)
}

#[test]
fn table() {
    let mut rows: Vec<(&str, Vec<E>, Vec<&str>)> = vec![
        ("a plain ask is owed", vec![ask("a1", 1)], vec!["a1"]),
        (
            "ack_of + terminal + later closes",
            vec![ask("a1", 1), reply("r", "applied", 2).ack_of("a1")],
            vec![],
        ),
        (
            "correlation + terminal + later closes",
            vec![ask("a1", 1).corr("c"), reply("r", "failed", 2).corr("c")],
            vec![],
        ),
        (
            "ack_of joins without any correlation",
            vec![ask("a1", 1), reply("r", "blocked", 2).ack_of("a1")],
            vec![],
        ),
        (
            "ack_of another id does not close",
            vec![ask("a1", 1), reply("r", "applied", 2).ack_of("a0")],
            vec!["a1"],
        ),
        (
            "another correlation does not close",
            vec![ask("a1", 1).corr("c1"), reply("r", "applied", 2).corr("c2")],
            vec!["a1"],
        ),
        (
            "empty correlation joins nothing",
            vec![ask("a1", 1).corr(""), reply("r", "applied", 2).corr("")],
            vec!["a1"],
        ),
        (
            "claimed does not close",
            vec![ask("a1", 1), reply("r", "claimed", 2).ack_of("a1")],
            vec!["a1"],
        ),
        (
            "open does not close",
            vec![ask("a1", 1).corr("c"), reply("r", "open", 2).corr("c")],
            vec!["a1"],
        ),
        (
            "ready does not close",
            vec![ask("a1", 1), reply("r", "ready", 2).ack_of("a1")],
            vec!["a1"],
        ),
        (
            "no status does not close",
            vec![
                ask("a1", 1),
                ev("r", ME, OC, None).at(Some(2), Some(2)).ack_of("a1"),
            ],
            vec!["a1"],
        ),
        (
            "another agent's terminal reply does not close",
            vec![
                ask("a1", 1).corr("c"),
                ev("r", OTHER, OC, Some("applied"))
                    .at(Some(2), Some(2))
                    .corr("c"),
            ],
            vec!["a1"],
        ),
        (
            "my terminal broadcast on the correlation closes",
            vec![
                ask("a1", 1).corr("c"),
                ev("r", ME, "*", Some("applied"))
                    .at(Some(2), Some(2))
                    .corr("c"),
            ],
            vec![],
        ),
        // ordering: hlc when both carry one
        (
            "reply ordered before its ask (mesh) does not close",
            vec![reply("r", "applied", 1).ack_of("a1"), ask("a1", 2)],
            vec!["a1"],
        ),
        (
            "hlc earlier beats a larger seq",
            vec![
                ask("a1", 5).at(Some(5), Some(1)),
                reply("r", "applied", 0).at(Some(4), Some(9)).ack_of("a1"),
            ],
            vec!["a1"],
        ),
        (
            "hlc later beats a smaller seq",
            vec![
                ask("a1", 5).at(Some(5), Some(9)),
                reply("r", "applied", 0).at(Some(6), Some(1)).ack_of("a1"),
            ],
            vec![],
        ),
        // ordering: seq when either side lacks an hlc
        (
            "reply without hlc, later seq closes",
            vec![
                ask("a1", 5).at(Some(5), Some(10)),
                reply("r", "applied", 0).at(None, Some(11)).ack_of("a1"),
            ],
            vec![],
        ),
        (
            "reply without hlc, earlier seq does not close",
            vec![
                ask("a1", 5).at(Some(5), Some(10)),
                reply("r", "applied", 0).at(None, Some(9)).ack_of("a1"),
            ],
            vec!["a1"],
        ),
        (
            "ask without hlc, later seq closes",
            vec![
                ask("a1", 5).at(None, Some(10)),
                reply("r", "applied", 0).at(Some(1), Some(11)).ack_of("a1"),
            ],
            vec![],
        ),
        (
            "ask without hlc, equal seq does not close",
            vec![
                ask("a1", 5).at(None, Some(10)),
                reply("r", "applied", 0).at(Some(9), Some(10)).ack_of("a1"),
            ],
            vec!["a1"],
        ),
        (
            "malformed hlc falls back to seq",
            vec![ask("a1", 5).at(Some(5), Some(10)), {
                let mut r = reply("r", "applied", 0).at(None, Some(3)).ack_of("a1");
                r.v["hlc"] = "9999999999999-zzzzzz-x".into();
                r
            }],
            vec!["a1"],
        ),
        (
            "nothing comparable proves nothing",
            vec![
                ask("a1", 5).at(None, Some(10)),
                reply("r", "applied", 0).at(None, None).ack_of("a1"),
            ],
            vec!["a1"],
        ),
        (
            "created_at never orders",
            vec![ask("a1", 5).at(None, Some(10)), {
                let mut r = reply("r", "applied", 0).at(None, Some(9)).ack_of("a1");
                r.v["created_at"] = "2027-01-01T00:00:00Z".into();
                r
            }],
            vec!["a1"],
        ),
        // a terminal reply suppresses only asks before it
        (
            "new ask after a terminal reply on the same correlation stays owed",
            vec![
                ask("a1", 1).corr("c"),
                reply("r", "applied", 2).corr("c"),
                ask("a2", 3).corr("c"),
            ],
            vec!["a2"],
        ),
        (
            "two asks before one reply both close",
            vec![
                ask("a1", 1).corr("c"),
                ask("a2", 2).corr("c"),
                reply("r", "superseded", 3).corr("c"),
            ],
            vec![],
        ),
        (
            "ack_of one ask closes only that one",
            vec![
                ask("a1", 1),
                ask("a2", 2),
                reply("r", "applied", 3).ack_of("a1"),
            ],
            vec!["a2"],
        ),
        // addressing
        (
            "broadcasts owe nothing",
            vec![ev("b", OC, "*", Some("open")).at(Some(1), Some(1))],
            vec![],
        ),
        (
            "my own ask to myself",
            vec![ev("m", ME, ME, Some("open")).at(Some(1), Some(1))],
            vec![],
        ),
        (
            "my ask to someone else",
            vec![ev("m", ME, OC, Some("open")).at(Some(1), Some(1))],
            vec![],
        ),
        (
            "asks to others",
            vec![ev("o", OC, OTHER, Some("open")).at(Some(1), Some(1))],
            vec![],
        ),
        (
            "a bare-name address is someone else",
            vec![ev("o", OC, "pi", Some("open")).at(Some(1), Some(1))],
            vec![],
        ),
        (
            "an ack sent to me is a reply, not an ask",
            vec![
                ev("k", OC, ME, Some("applied"))
                    .at(Some(2), Some(2))
                    .ack_of("mine"),
            ],
            vec![],
        ),
        (
            "a claim sent to me is not an ask",
            vec![ev("k", OC, ME, Some("claimed")).at(Some(2), Some(2))],
            vec![],
        ),
        (
            "an ask without sender is still owed",
            vec![{
                let mut a = ask("a1", 1);
                a.v["from_agent"] = Value::Null;
                a
            }],
            vec!["a1"],
        ),
    ];
    for status in ["applied", "superseded", "failed", "blocked"] {
        rows.push((
            "each terminal status closes",
            vec![ask("a1", 1), reply("r", status, 2).ack_of("a1")],
            vec![],
        ));
    }
    for (name, events, want) in rows {
        let d = run(&events);
        assert_eq!(ids(&d.owed), want, "{name}");
        assert!(d.dormant.is_empty(), "{name}");
        // Input order never matters.
        let mut reversed = events.clone();
        reversed.reverse();
        assert_eq!(ids(&run(&reversed).owed), want, "{name} (reversed input)");
    }
}

mod shape;
