//! The local palace's copy of the coordination log (`logstream.sqlite3`), read strictly
//! read-only and leniently: the rows the mailbox needs, as `event_list` shapes its events.

use std::path::Path;

use rusqlite::types::ValueRef;
use rusqlite::{Connection, Row, params};
use serde_json::{Map, Value, json};

use super::Me;
use super::event::{BROADCAST, CANDIDATE_STATUS};
use mpt_base::error::Result;
use mpt_palace::sqlite::with_reader;

const COLUMNS: &str = "rowid, id, type, stream, room, topic, from_agent, to_agent, correlation_id,
    branch, base_commit, status, body, created_at, metadata_json, origin_replica, origin_seq, hlc";

/// What the local log holds for `me`.
#[derive(Debug, Default)]
pub struct LocalEvents {
    /// Open asks to `me`'s identities (broadcasts included) and every event they wrote, oldest
    /// first.
    pub events: Vec<Value>,
    /// Rows that could not be read (a text field holding invalid UTF-8 or a BLOB that is not
    /// text): skipped, so one bad row never hides the rest.
    pub skipped: usize,
}

/// The events of `me` in the local log; `None` when the palace has no log.
pub fn read(logstream: &Path, me: &Me) -> Result<Option<LocalEvents>> {
    with_reader(logstream, |c| events(c, me))
}

fn events(c: &Connection, me: &Me) -> rusqlite::Result<LocalEvents> {
    let (filter, key) = match me.exact() {
        Some(one) => (
            "((to_agent = ?1 OR to_agent = '*') AND status = ?2) OR from_agent = ?1",
            one.to_string(),
        ),
        // `*@<device>` without LIKE (a `_` or `%` in a device name is no wildcard); `me.is`
        // below makes the exact cut.
        None => (
            "(status = ?2 AND (to_agent = '*' OR substr(to_agent, -length(?1)) = ?1))
             OR substr(from_agent, -length(?1)) = ?1",
            format!("@{}", me.device_name().unwrap_or_default()),
        ),
    };
    let mut st = c.prepare(&format!(
        "SELECT {COLUMNS} FROM events WHERE {filter} ORDER BY rowid"
    ))?;
    let mut rows = st.query(params![key, CANDIDATE_STATUS])?;
    let is = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).is_some_and(|a| me.is(a));
    let mut out = LocalEvents::default();
    while let Some(r) = rows.next()? {
        let Some(e) = event(r) else {
            out.skipped += 1;
            continue;
        };
        let ask =
            e["status"] == CANDIDATE_STATUS && (e["to_agent"] == BROADCAST || is(&e, "to_agent"));
        if ask || is(&e, "from_agent") {
            out.events.push(e);
        }
    }
    Ok(out)
}

/// One row as `event_list` shapes it; `None` when a text field is not text. An `origin_seq`
/// MemPalace stored as text reads as its number, or as absent.
fn event(r: &Row) -> Option<Value> {
    let text = |i: usize| -> Option<Value> {
        match r.get_ref(i).ok()? {
            ValueRef::Null => Some(Value::Null),
            ValueRef::Text(b) | ValueRef::Blob(b) => std::str::from_utf8(b).ok().map(|t| json!(t)),
            ValueRef::Integer(n) => Some(json!(n.to_string())),
            ValueRef::Real(f) => Some(json!(f.to_string())),
        }
    };
    let seq = |i: usize| match r.get_ref(i).ok() {
        Some(ValueRef::Integer(n)) => json!(n),
        Some(ValueRef::Text(b)) => json!(
            std::str::from_utf8(b)
                .ok()
                .and_then(|t| t.trim().parse::<i64>().ok())
        ),
        _ => Value::Null,
    };
    // Metadata that is not a JSON object is none, as `event_list` would have it.
    let metadata = text(14)
        .and_then(|m| serde_json::from_str::<Value>(m.as_str()?).ok())
        .filter(Value::is_object)
        .unwrap_or_else(|| Value::Object(Map::new()));
    let body = text(12)?;
    Some(json!({
        "id": text(1)?, "seq": seq(0),
        "origin_replica": text(15)?, "origin_seq": seq(16), "hlc": text(17)?,
        "type": text(2)?, "stream": text(3)?, "room": text(4)?, "topic": text(5)?,
        "from_agent": text(6)?, "to_agent": text(7)?, "correlation_id": text(8)?,
        "branch": text(9)?, "base_commit": text(10)?, "status": text(11)?,
        "artifact_ids": [], "body": if body.is_null() { json!("") } else { body },
        "created_at": text(13)?, "metadata": metadata,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_asks_to_me_and_what_i_wrote() {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("logstream.sqlite3");
        assert!(
            read(&path, &Me::one("pi@a")).unwrap().is_none(),
            "no log, no events"
        );
        let c = Connection::open(&path).unwrap();
        c.execute_batch(
            "CREATE TABLE events (id TEXT PRIMARY KEY, type TEXT, stream TEXT, room TEXT, topic TEXT,
               from_agent TEXT, to_agent TEXT, correlation_id TEXT, branch TEXT, base_commit TEXT,
               status TEXT, body TEXT, created_at TEXT, metadata_json TEXT, origin_replica TEXT,
               origin_seq INTEGER, hlc TEXT);
             INSERT INTO events VALUES ('e1','task.request','s','r',NULL,'oc@b','pi@a',NULL,NULL,NULL,'open','do it','2026-01-01T00:00:00Z','{}','rep_p',1,'1-p');
             INSERT INTO events VALUES ('e2','note','s','r',NULL,'oc@b','*',NULL,NULL,NULL,'open','all','2026-01-01T00:00:01Z','{}','rep_p',2,'2-p');
             INSERT INTO events VALUES ('e3','event.ack','s','r',NULL,'pi@a','oc@b','e1',NULL,NULL,'applied','','2026-01-01T00:00:02Z','{\"ack_of\":\"e1\"}','rep_a',1,'3-a');
             INSERT INTO events VALUES ('e4','note','s','r',NULL,'oc@b','pi@z',NULL,NULL,NULL,'open','','2026-01-01T00:00:03Z','not json','rep_p',3,'4-p');",
        )
        .unwrap();
        drop(c);
        let got = read(&path, &Me::one("pi@a")).unwrap().unwrap().events;
        let ids: Vec<&str> = got.iter().map(|e| e["id"].as_str().unwrap()).collect();
        assert_eq!(ids, ["e1", "e2", "e3"]);
        assert_eq!(got[2]["metadata"]["ack_of"], "e1");
        assert_eq!(got[0]["seq"], 1);
        // Every `*@a` identity: `oc@a`'s ask too, and nothing of `a` without a name.
        let c = Connection::open(&path).unwrap();
        c.execute_batch(
            "INSERT INTO events VALUES ('e5','task.request','s','r',NULL,'pi@a','oc@a',NULL,NULL,NULL,'open','','2026-01-01T00:00:04Z','{}','rep_a',2,'5-a');
             INSERT INTO events VALUES ('e6','task.request','s','r',NULL,'x@b','@a',NULL,NULL,NULL,'open','','2026-01-01T00:00:05Z','{}','rep_p',4,'6-p');
             INSERT INTO events VALUES ('e7','task.request','s','r',NULL,'x@b','pi@ba',NULL,NULL,NULL,'open','','2026-01-01T00:00:06Z','{}','rep_p',5,'7-p');",
        )
        .unwrap();
        drop(c);
        let got = read(&path, &Me::device("a", "mcp@a"))
            .unwrap()
            .unwrap()
            .events;
        let ids: Vec<&str> = got.iter().map(|e| e["id"].as_str().unwrap()).collect();
        assert_eq!(ids, ["e1", "e2", "e3", "e5"]);
    }
}
