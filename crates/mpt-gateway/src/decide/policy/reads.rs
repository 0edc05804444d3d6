//! Read grants: a device's `wings.read` globs (the wings its reads may name and its replies may
//! show, judged canonical) and its `kg` grant (the knowledge graph has no wing: all or nothing).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Device, Globs, Policy};
use mpt_palace::catalog::{self, Reveals, ToolClass};

/// What a device may do with the knowledge graph.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum KgGrant {
    None,
    Read,
    Write,
}

/// The wings a restricted device reads (a device whose `wings.read` names no `*`).
#[derive(Debug, Clone, Copy)]
pub struct Reads<'a> {
    globs: &'a Globs,
}

impl<'a> Reads<'a> {
    /// Whether `wing` (as stored or as sent: judged by its canonical name) is readable.
    pub fn sees(&self, wing: &str) -> bool {
        self.globs.matches(&catalog::canonical(wing))
    }

    /// The one wing the globs name, when they are a single literal name (a search or list
    /// naming no wing is then forced to it rather than over-fetched).
    pub fn only(&self) -> Option<&'a str> {
        match &**self.globs {
            [one] if !one.contains(['*', '?', '[']) => Some(one),
            _ => None,
        }
    }
}

impl Policy {
    /// The read globs the gateway holds `device`'s reads to; `None`: it reads every wing.
    pub fn reads(&self, device: &str) -> Option<Reads<'_>> {
        let w = self.device(device)?.wings.as_ref()?;
        if w.read.is_empty() || w.read.iter().any(|g| g == "*") {
            return None;
        }
        Some(Reads { globs: &w.read })
    }
}

/// The rule refusing a read (or the KG) to `d`, if one does: a KG tool beyond its `kg` grant,
/// or a wing argument of a read its `wings.read` globs do not match.
pub fn refusal(
    policy: &Policy,
    device: &str,
    d: &Device,
    tool: &str,
    args: &Value,
) -> Option<String> {
    let row = catalog::tool(tool);
    if row.reveals == Reveals::Kg {
        let needed = if row.class == ToolClass::Read {
            KgGrant::Read
        } else {
            KgGrant::Write
        };
        // Absent, the role's grant, except for a non-admin whose reads are held to some wings:
        // the graph has no wing to hold its facts to, so it gets none until the policy says.
        let grant = d.kg.or_else(|| {
            (d.role < super::Role::Admin && policy.reads(device).is_some()).then_some(KgGrant::None)
        });
        return match grant {
            Some(g) if g < needed => Some(format!(
                "kg:{}",
                serde_json::to_value(g)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default()
            )),
            _ => None,
        };
    }
    if row.class != ToolClass::Read {
        return None;
    }
    let reads = policy.reads(device)?;
    catalog::sent(tool, args)
        .into_iter()
        .map(|w| catalog::canonical(&w.value))
        .find(|c| !reads.sees(c))
        .map(|c| format!("wings.read:{c}"))
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
                "lap": {"role": "member", "wings": {"read": ["wing_lap*", "wing_shared"]}, "kg": "read"},
                "one": {"role": "observer", "wings": {"read": ["wing_one"]}, "kg": "none"},
                "hub": {"role": "admin", "wings": {"read": ["*"]}}}})
            .to_string(),
            Path::new("/p.json"),
        )
        .unwrap()
    }

    fn rule(p: &Policy, device: &str, tool: &str, args: Value) -> String {
        p.call(device, "t", tool, &args, &Current::default())
            .decision
            .rule
    }

    #[test]
    fn a_read_naming_a_hidden_wing_is_refused_in_any_spelling() {
        let p = policy();
        let search = |w: &str| json!({"query": "q", "wing": w});
        assert_eq!(
            rule(&p, "lap", "mempalace_search", search("wing_lap2")),
            "role:member"
        );
        for w in ["wing_desk", "Wing_Desk", " wing-desk"] {
            assert_eq!(
                rule(&p, "lap", "mempalace_search", search(w)),
                "wings.read:wing_desk",
                "{w:?}"
            );
        }
        assert_eq!(
            rule(
                &p,
                "lap",
                "mempalace_diary_read",
                json!({"agent_name": "pi"})
            ),
            "wings.read:wing_pi",
            "the derived wing"
        );
        assert_eq!(
            rule(
                &p,
                "lap",
                "mempalace_find_tunnels",
                json!({"wing_a": "wing_lap", "wing_b": "wing_desk"})
            ),
            "wings.read:wing_desk"
        );
        assert_eq!(
            rule(&p, "hub", "mempalace_search", search("wing_desk")),
            "role:admin"
        );
        assert!(p.reads("hub").is_none(), "'*' reads everything");
        assert_eq!(p.reads("one").unwrap().only(), Some("wing_one"));
        assert_eq!(p.reads("lap").unwrap().only(), None);
        assert!(p.reads("lap").unwrap().sees("Wing_Lap_Notes"));
    }

    #[test]
    fn the_kg_grant_is_all_or_nothing_per_direction() {
        let p = policy();
        let fact = json!({"subject": "a", "predicate": "b", "object": "c"});
        assert_eq!(
            rule(&p, "lap", "mempalace_kg_query", json!({"entity": "a"})),
            "role:member"
        );
        assert_eq!(rule(&p, "lap", "mempalace_kg_add", fact.clone()), "kg:read");
        assert_eq!(rule(&p, "one", "mempalace_kg_stats", json!({})), "kg:none");
        // No `kg` beside `wings.read`: none (L3); without `wings.read`, the role's.
        let q = Policy::parse(
            &json!({"schema": super::super::SCHEMA, "devices": {
                "held": {"role": "member", "wings": {"read": ["wing_held"]}},
                "free": {"role": "member"}}})
            .to_string(),
            std::path::Path::new("/p.json"),
        )
        .unwrap();
        assert_eq!(rule(&q, "held", "mempalace_kg_stats", json!({})), "kg:none");
        assert_eq!(
            rule(&q, "free", "mempalace_kg_stats", json!({})),
            "role:member"
        );
        assert_eq!(rule(&p, "hub", "mempalace_kg_add", fact), "role:admin");
    }
}
