//! The read side of poisoning, on the device: the edge's `diary_read` and coordination reads
//! withhold entries whose stamped device is not in the config's `trusted_devices` (`mpt_untrusted`).

use std::sync::Arc;

use serde_json::{Value, json};

use super::merge::{self, ReadKind};
use mpt_mcp::{CallError, ToolReply};

/// The devices whose entries this edge shows (globs, compiled once: config refused any that does
/// not parse), and its own device (always trusted).
#[derive(Debug, Clone, Default)]
pub struct Trusted {
    globs: Option<Arc<[glob::Pattern]>>,
    own: Option<String>,
}

impl Trusted {
    /// `None`: every entry is shown (the knob unset).
    pub fn new(globs: Option<&[String]>, own: Option<&str>) -> Trusted {
        Trusted {
            globs: globs.map(|g| {
                g.iter()
                    .filter_map(|g| glob::Pattern::new(g).ok())
                    .collect()
            }),
            own: own.map(str::to_string),
        }
    }

    /// Whether an entry stamped with `device` is shown (one with no stamp is not).
    fn trusts(&self, device: Option<&str>) -> bool {
        let Some(globs) = &self.globs else {
            return true;
        };
        let Some(d) = device else {
            return false;
        };
        self.own.as_deref() == Some(d) || globs.iter().any(|p| p.matches(d))
    }

    /// `reply` (a read of `tool`) without the entries of untrusted devices, saying how many
    /// went (`"mpt_untrusted": N`); any other reply as it is.
    pub fn withhold(
        &self,
        tool: &str,
        reply: Result<Value, CallError>,
    ) -> Result<Value, CallError> {
        if self.globs.is_none() {
            return reply;
        }
        let Ok(result) = reply else {
            return reply;
        };
        let (key, count) = match merge::read_kind(tool) {
            ReadKind::Diary => ("entries", "showing"),
            ReadKind::Events => ("events", "count"),
            _ => return Ok(result),
        };
        let p = ToolReply::from_result(&result);
        if !p.ok() {
            return Ok(result);
        }
        let mut payload = p.payload;
        let Some(Value::Array(items)) = payload.get_mut(key) else {
            return Ok(result);
        };
        let before = items.len();
        items.retain(|e| self.trusts(author(key, e).as_deref()));
        let (hidden, left) = (before - items.len(), items.len());
        if let Value::Object(m) = &mut payload {
            if m.contains_key(count) {
                m.insert(count.into(), json!(left));
            }
            m.insert("mpt_untrusted".into(), json!(hidden));
        }
        Ok(merge::with_payload(&result, &payload))
    }
}

/// The device an entry is stamped with: a diary entry's `HOST:<device>|`, an event's
/// `from_agent` `<agent>@<device>`.
fn author(key: &str, entry: &Value) -> Option<String> {
    if key == "entries" {
        let content = entry.get("content")?.as_str()?;
        let (host, _) = content.strip_prefix("HOST:")?.split_once('|')?;
        Some(host.to_string())
    } else {
        let from = entry.get("from_agent")?.as_str()?;
        from.rsplit_once('@').map(|(_, d)| d.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(payload: Value) -> Result<Value, CallError> {
        Ok(json!({"content": [{"type": "text", "text": payload.to_string()}]}))
    }

    fn payload(r: Result<Value, CallError>) -> Value {
        ToolReply::from_result(&r.unwrap()).payload
    }

    #[test]
    fn entries_of_untrusted_or_unstamped_devices_are_withheld_and_counted() {
        let t = Trusted::new(Some(&["lap*".to_string()]), Some("desk"));
        let diary = json!({"agent": "pi", "entries": [
            {"content": "HOST:lap2|mine"}, {"content": "HOST:evil|do this"},
            {"content": "no stamp"}, {"content": "HOST:desk|own"}], "total": 4, "showing": 4});
        let got = payload(t.withhold("mempalace_diary_read", reply(diary)));
        assert_eq!(got["entries"].as_array().unwrap().len(), 2, "{got}");
        assert_eq!(
            (got["showing"].clone(), got["mpt_untrusted"].clone()),
            (json!(2), json!(2))
        );
        let events =
            json!({"events": [{"from_agent": "pi@lap"}, {"from_agent": "pi@evil"}], "count": 2});
        let got = payload(t.withhold("mempalace_event_list", reply(events)));
        assert_eq!(got["count"], 1);
        assert_eq!(got["mpt_untrusted"], 1);
        let off = Trusted::new(None, None);
        let s = json!({"entries": [{"content": "HOST:evil|x"}]});
        assert_eq!(
            payload(off.withhold("mempalace_diary_read", reply(s.clone()))),
            s
        );
        assert_eq!(
            payload(t.withhold("mempalace_search", reply(json!({"results": []})))),
            json!({"results": []}),
            "search results carry no author"
        );
    }
}
