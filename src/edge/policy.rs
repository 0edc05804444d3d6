//! Per-wing replication policy from the config file: glob patterns (`*`, `?`) to `replicated` or
//! `local`; the most specific matching pattern wins; default replicated. A write without a wing
//! (KG, coordination) follows `*`.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::config::WingPolicy;

#[derive(Debug, Clone, Default)]
pub struct Policy {
    patterns: BTreeMap<String, WingPolicy>,
}

impl Policy {
    pub fn new(patterns: BTreeMap<String, WingPolicy>) -> Policy {
        Policy { patterns }
    }

    pub fn for_wing(&self, wing: &str) -> WingPolicy {
        self.patterns
            .iter()
            .filter(|(p, _)| glob_match(p, wing))
            .max_by_key(|(p, _)| p.chars().filter(|c| *c != '*' && *c != '?').count())
            .map(|(_, w)| *w)
            .unwrap_or(WingPolicy::Replicated)
    }

    /// A write replicates only when every wing it touches does.
    pub fn replicates(&self, tool: &str, args: &Value) -> bool {
        wings(tool, args)
            .iter()
            .all(|w| self.for_wing(w) == WingPolicy::Replicated)
    }
}

/// The wings a write touches (`*` when it names none).
fn wings(tool: &str, args: &Value) -> Vec<String> {
    let bare = tool.strip_prefix("mempalace_").unwrap_or(tool);
    let s = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_string);
    let mut out = Vec::new();
    match bare {
        "diary_write" => {
            out.extend(s(args.get("wing")).or_else(|| {
                s(args.get("agent_name")).map(|a| format!("wing_{}", a.to_lowercase()))
            }))
        }
        "checkpoint" => {
            for item in args
                .get("items")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                out.extend(s(item.get("wing")));
            }
            if let Some(d) = args.get("diary") {
                out.extend(s(d.get("wing")).or_else(|| {
                    s(d.get("agent_name")).map(|a| format!("wing_{}", a.to_lowercase()))
                }));
            }
        }
        _ => out.extend(s(args.get("wing"))),
    }
    if out.is_empty() {
        out.push("*".into());
    }
    out
}

/// `*` matches any run of characters, `?` one character; everything else itself.
pub fn glob_match(pattern: &str, s: &str) -> bool {
    let (p, t): (Vec<char>, Vec<char>) = (pattern.chars().collect(), s.chars().collect());
    let (mut pi, mut ti, mut star, mut mark) = (0, 0, None, 0);
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if let Some(sp) = star {
            pi = sp + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn globs() {
        assert!(glob_match("wing_code*", "wing_code_mpt"));
        assert!(glob_match("*", ""));
        assert!(glob_match("w?ng_*x", "wing_abcx"));
        assert!(!glob_match("wing_code*", "wing_notes"));
    }

    #[test]
    fn most_specific_pattern_wins_and_every_wing_must_replicate() {
        let p = Policy::new(BTreeMap::from([
            ("*".to_string(), WingPolicy::Replicated),
            ("wing_code*".to_string(), WingPolicy::Local),
        ]));
        assert_eq!(p.for_wing("wing_code_mpt"), WingPolicy::Local);
        assert_eq!(p.for_wing("wing_notes"), WingPolicy::Replicated);
        assert!(!p.replicates("mempalace_add_drawer", &json!({"wing": "wing_code_x"})));
        assert!(p.replicates("mempalace_kg_add", &json!({"subject": "a"})));
        let mixed = json!({"items": [{"wing": "wing_notes"}, {"wing": "wing_code_a"}]});
        assert!(!p.replicates("mempalace_checkpoint", &mixed));
        assert_eq!(
            Policy::default().for_wing("anything"),
            WingPolicy::Replicated
        );
    }
}
