//! Coordination streams: a device's `streams.read` and `streams.write` globs on the stream each
//! event call names (task_create's `project/<slug>`, an ack's target's), artifacts for every-stream devices.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Device, Globs, Policy};
use mpt_palace::catalog::{self, StreamArg, ToolClass};

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Streams {
    #[serde(default)]
    pub read: Globs,
    #[serde(default)]
    pub write: Globs,
}

/// A device's stream globs in one direction; `None` from the policy: every stream.
#[derive(Debug, Clone, Copy)]
pub struct StreamGlobs<'a> {
    globs: &'a Globs,
}

impl<'a> StreamGlobs<'a> {
    fn of(globs: &'a Globs) -> Option<StreamGlobs<'a>> {
        if globs.is_empty() || globs.iter().any(|g| g == "*") {
            None
        } else {
            Some(StreamGlobs { globs })
        }
    }

    /// Whether `stream` (stripped, as `logstream` stores it) matches.
    pub fn sees(&self, stream: &str) -> bool {
        self.globs.matches(mpt_palace::catalog::py_strip(stream))
    }

    /// An owned copy, for a stream that outlives the request's policy.
    pub fn owned(&self) -> StreamFilter {
        StreamFilter(self.globs.clone())
    }

    /// The one stream the globs name when they are a single literal name.
    pub fn only(&self) -> Option<&'a str> {
        match &**self.globs {
            [one] if !one.contains(['*', '?', '[']) => Some(one),
            _ => None,
        }
    }
}

/// [`StreamGlobs`] owned (an SSE subscriber's frame filter).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamFilter(Globs);

impl StreamFilter {
    pub fn sees(&self, stream: &str) -> bool {
        self.0.matches(mpt_palace::catalog::py_strip(stream))
    }
}

impl Policy {
    /// The streams `device` reads, when not every one (events filtered, `/sync/ops` refused).
    pub fn stream_reads(&self, device: &str) -> Option<StreamGlobs<'_>> {
        StreamGlobs::of(&self.device(device)?.streams.as_ref()?.read)
    }

    /// The streams `device` writes, when not every one.
    pub fn stream_writes(&self, device: &str) -> Option<StreamGlobs<'_>> {
        StreamGlobs::of(&self.device(device)?.streams.as_ref()?.write)
    }

    /// Whether `tool` needs the stream of its target looked up to be decided (`event_ack` by a
    /// device whose writes are held to some streams).
    pub fn needs_stream(&self, device: &str, tool: &str) -> bool {
        catalog::tool(tool).stream == StreamArg::AckTarget && self.stream_writes(device).is_some()
    }
}

/// `tasks.task_slug`: lowercase, each run of other than `[a-z0-9]` one `_`, `_` stripped, 40 at
/// most, `fallback` when nothing is left.
pub fn task_slug(value: &str, fallback: &str) -> String {
    let mut slug = String::new();
    for c in value.to_lowercase().chars() {
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            slug.push(c);
        } else if !slug.ends_with('_') {
            slug.push('_');
        }
    }
    let slug: String = slug.trim_matches('_').chars().take(40).collect();
    let slug = slug.trim_end_matches('_');
    if slug.is_empty() {
        fallback.to_string()
    } else {
        slug.to_string()
    }
}

/// The rule refusing `tool` to `device` for its stream, if one does. `target` is an ack's
/// target's stream, looked up.
pub fn refusal(
    policy: &Policy,
    device: &str,
    d: &Device,
    tool: &str,
    args: &Value,
    target: Option<&str>,
) -> Option<String> {
    let row = catalog::tool(tool);
    if d.streams.is_none() || row.stream == StreamArg::None {
        return None;
    }
    let (globs, dir) = if row.class == ToolClass::Read {
        (policy.stream_reads(device), "read")
    } else {
        (policy.stream_writes(device), "write")
    };
    let globs = globs?;
    let text = |at: &str| {
        args.pointer(at)
            .and_then(Value::as_str)
            .map(mpt_palace::catalog::py_strip)
            .filter(|s| !s.is_empty())
    };
    let stream = match row.stream {
        StreamArg::At(at) => text(at).map(str::to_string),
        StreamArg::Project(at) => Some(format!(
            "project/{}",
            task_slug(text(at).unwrap_or(""), "project")
        )),
        // An ack whose target the primary does not have (or that could not be found) is refused:
        // its stream is unknown, and the server might still file it somewhere (fail closed).
        StreamArg::AckTarget => match target {
            Some(t) => Some(t.to_string()),
            None => return Some(format!("streams.{dir}:unknown_event")),
        },
        StreamArg::Artifacts => return Some(format!("streams.{dir}:artifacts")),
        StreamArg::None => None,
    }?;
    (!globs.sees(&stream)).then(|| format!("streams.{dir}:{stream}"))
}

#[cfg(test)]
mod tests {
    use super::super::Current;
    use super::*;
    use serde_json::json;
    use std::path::Path;

    fn policy() -> Policy {
        Policy::parse(
            &json!({"schema": super::super::SCHEMA, "devices": {
                "lap": {"role": "member", "streams": {"read": ["project/lap*", "fleet"], "write": ["project/lap*"]}},
                "hub": {"role": "admin"}}})
            .to_string(),
            Path::new("/p.json"),
        )
        .unwrap()
    }

    fn rule(p: &Policy, device: &str, tool: &str, args: Value, target: Option<&str>) -> String {
        let current = Current {
            stream: target.map(str::to_string),
            ..Current::default()
        };
        p.call(device, "t", tool, &args, &current).decision.rule
    }

    #[test]
    fn each_coordination_call_is_judged_on_its_stream() {
        let p = policy();
        let append =
            |s: &str| json!({"type": "note", "stream": s, "room": "r", "from_agent": "pi"});
        assert_eq!(
            rule(
                &p,
                "lap",
                "mempalace_event_append",
                append(" project/lap "),
                None
            ),
            "role:member"
        );
        assert_eq!(
            rule(&p, "lap", "mempalace_event_append", append("fleet"), None),
            "streams.write:fleet"
        );
        assert_eq!(
            rule(
                &p,
                "lap",
                "mempalace_event_list",
                json!({"stream": "fleet"}),
                None
            ),
            "role:member"
        );
        assert_eq!(
            rule(
                &p,
                "lap",
                "mempalace_event_wait",
                json!({"stream": "project/desk"}),
                None
            ),
            "streams.read:project/desk"
        );
        assert_eq!(
            rule(&p, "lap", "mempalace_event_list", json!({}), None),
            "role:member",
            "filtered, not refused"
        );
        let task = |project: &str| json!({"project": project, "from_agent": "pi", "to_agent": "x", "goal": "g", "branch": "b", "base_commit": "c", "done": "d"});
        assert_eq!(
            rule(&p, "lap", "mempalace_task_create", task("Lap Tools"), None),
            "role:member"
        );
        assert_eq!(
            rule(&p, "lap", "mempalace_task_create", task("Desk"), None),
            "streams.write:project/desk"
        );
        let ack = json!({"event_id": "e", "from_agent": "pi"});
        assert!(p.needs_stream("lap", "mempalace_event_ack"));
        assert_eq!(
            rule(&p, "lap", "mempalace_event_ack", ack.clone(), Some("fleet")),
            "streams.write:fleet"
        );
        assert_eq!(
            rule(
                &p,
                "lap",
                "mempalace_event_ack",
                ack.clone(),
                Some("project/lap")
            ),
            "role:member"
        );
        // A target the primary does not have: its stream is unknown, refused (M3).
        assert_eq!(
            rule(&p, "lap", "mempalace_event_ack", ack, None),
            "streams.write:unknown_event"
        );
        // A stream padded as Python strips it is judged stripped, as the server stores it.
        assert_eq!(
            rule(
                &p,
                "lap",
                "mempalace_event_append",
                append("\x1cfleet"),
                None
            ),
            "streams.write:fleet"
        );
        assert_eq!(
            rule(
                &p,
                "lap",
                "mempalace_artifact_get",
                json!({"artifact_id": "a"}),
                None
            ),
            "streams.read:artifacts"
        );
        assert_eq!(
            rule(
                &p,
                "hub",
                "mempalace_artifact_put",
                json!({"kind": "note", "content": "c", "created_by": "x"}),
                None
            ),
            "role:admin"
        );
        assert_eq!(task_slug("  My--Project! ", "project"), "my_project");
        assert_eq!(task_slug("!!", "project"), "project");
    }
}
