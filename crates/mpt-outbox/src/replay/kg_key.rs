//! How MemPalace compares facts: entity and predicate ids and temporal values normalised as
//! knowledge_graph.py does, so a fact read from one palace can be looked for on another.

use serde_json::Value;

/// knowledge_graph.py `_entity_id`, after sanitize_kg_value's strip.
pub fn entity_id(name: &str) -> String {
    name.trim()
        .to_lowercase()
        .replace(' ', "_")
        .replace('\'', "")
}

pub fn predicate_id(p: &str) -> String {
    p.trim().to_lowercase().replace(' ', "_")
}

/// config.py sanitize_iso_temporal: stripped, `+00:00` written `Z`; empty is none.
pub fn temporal(v: Option<&Value>) -> Option<String> {
    let s = v?.as_str()?.trim();
    if s.is_empty() {
        return None;
    }
    Some(match s.strip_suffix("+00:00") {
        Some(head) => format!("{head}Z"),
        None => s.to_string(),
    })
}

/// A fact as comparable values: subject, predicate, object ids, valid_from, valid_to.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Fact {
    pub subject: String,
    pub predicate: String,
    pub object: String,
    pub valid_from: Option<String>,
    pub valid_to: Option<String>,
}

impl Fact {
    /// From a kg_query / kg_timeline row, or kg_add arguments (the same field names).
    pub fn from_row(row: &Value) -> Fact {
        let s = |k: &str| row.get(k).and_then(Value::as_str).unwrap_or("");
        Fact {
            subject: entity_id(s("subject")),
            predicate: predicate_id(s("predicate")),
            object: entity_id(s("object")),
            valid_from: temporal(row.get("valid_from")),
            valid_to: temporal(row.get("valid_to")),
        }
    }

    /// The same subject, predicate and object (any window).
    pub fn same_triple(&self, other: &Fact) -> bool {
        self.subject == other.subject
            && self.predicate == other.predicate
            && self.object == other.object
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn normalisation_follows_the_server() {
        assert_eq!(entity_id(" Max's Dog "), "maxs_dog");
        assert_eq!(predicate_id("Works On"), "works_on");
        assert_eq!(
            temporal(Some(&json!("2026-01-03T00:00:00+00:00"))).as_deref(),
            Some("2026-01-03T00:00:00Z")
        );
        assert_eq!(temporal(Some(&json!(""))), None);
        assert_eq!(temporal(Some(&Value::Null)), None);
    }
}
