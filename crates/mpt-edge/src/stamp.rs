//! Provenance stamped at the edge (bridge README "Identity"): `<harness>@<device>` where the
//! caller left the writer unset, `HOST:<device>|` before diary entries; only fields the tool's
//! inputSchema declares, and only with both gates (a device name and a shared palace).

use std::collections::HashMap;

use serde_json::Value;

/// Who writes, and which fields each tool declares.
#[derive(Debug, Clone)]
pub struct Stamper {
    identity: String,
    device: String,
    declared: HashMap<String, Vec<String>>,
}

impl Stamper {
    /// `None` unless both gates hold (the caller passes `Config::stamp_identity`).
    pub fn new(identity: Option<String>, device: Option<&str>, tools: &[Value]) -> Option<Stamper> {
        let identity = identity?;
        let device = device?.to_string();
        let declared = tools
            .iter()
            .filter_map(|t| {
                let name = t.get("name")?.as_str()?.to_string();
                let props = t.pointer("/inputSchema/properties")?.as_object()?;
                Some((name, props.keys().cloned().collect()))
            })
            .collect();
        Some(Stamper {
            identity,
            device,
            declared,
        })
    }

    fn declares(&self, tool: &str, field: &str) -> bool {
        self.declared
            .get(tool)
            .is_some_and(|f| f.iter().any(|x| x == field))
    }

    /// The arguments with provenance added where the caller left it unset.
    pub fn stamp(&self, tool: &str, mut args: Value) -> Value {
        let row = mpt_palace::catalog::tool(tool);
        let Some(obj) = args.as_object_mut() else {
            return args;
        };
        if let Some(field) = row.writer
            && self.declares(tool, field)
            && obj.get(field).is_none_or(|v| v.is_null() || v == "")
        {
            obj.insert(field.to_string(), Value::String(self.identity.clone()));
        }
        let marker = format!("HOST:{}|", self.device);
        for pointer in row.diary_entry {
            if let Some(Value::String(s)) = args.pointer_mut(pointer)
                && !s.starts_with("HOST:")
            {
                *s = format!("{marker}{s}");
                break;
            }
        }
        args
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tools() -> Vec<Value> {
        let fixture: Value = serde_json::from_str(mpt_palace::catalog::args::TOOLS_LIST).unwrap();
        fixture["result"]["tools"].as_array().unwrap().clone()
    }

    #[test]
    fn stamps_unset_writers_and_the_diary_marker() {
        let s = Stamper::new(Some("pi@lap".into()), Some("lap"), &tools()).unwrap();
        let a = s.stamp(
            "mempalace_add_drawer",
            json!({"wing": "w", "room": "r", "content": "c"}),
        );
        assert_eq!(a["added_by"], "pi@lap");
        let kept = s.stamp(
            "mempalace_add_drawer",
            json!({"wing": "w", "room": "r", "content": "c", "added_by": "pi@desk"}),
        );
        assert_eq!(kept["added_by"], "pi@desk", "an explicit writer is kept");
        assert_eq!(
            s.stamp("mempalace_mine", json!({"source": "/x"}))["agent"],
            "pi@lap"
        );
        assert_eq!(
            s.stamp(
                "mempalace_artifact_put",
                json!({"kind": "note", "content": "x"})
            )["created_by"],
            "pi@lap"
        );
        let d = s.stamp(
            "mempalace_diary_write",
            json!({"agent_name": "pi", "entry": "shipped"}),
        );
        assert_eq!(d["entry"], "HOST:lap|shipped");
        let cp = s.stamp(
            "mempalace_checkpoint",
            json!({"items": [], "diary": {"agent_name": "pi", "entry": "checked in"}}),
        );
        assert_eq!(
            cp["diary"]["entry"], "HOST:lap|checked in",
            "a checkpoint's diary too"
        );
        let again = s.stamp("mempalace_diary_write", d.clone());
        assert_eq!(again["entry"], "HOST:lap|shipped", "never twice");
        let kg = s.stamp(
            "mempalace_kg_add",
            json!({"subject": "a", "predicate": "b", "object": "c"}),
        );
        assert!(
            kg.get("added_by").is_none(),
            "KG triples declare no writer field"
        );
    }

    #[test]
    fn both_gates_or_nothing() {
        assert!(Stamper::new(None, Some("lap"), &tools()).is_none());
        assert!(Stamper::new(Some("pi@lap".into()), None, &tools()).is_none());
    }
}
