//! Per-wing replication policy from the config file: glob patterns (`glob::Pattern`: `*`, `?`,
//! `[...]`) to `replicated` or `local`; the most specific matching pattern wins; default
//! replicated. A write without a wing (KG, coordination) follows `*`.

use std::collections::BTreeMap;

use glob::Pattern;
use serde_json::Value;

use mpt_base::config::WingPolicy;

#[derive(Debug, Clone, Default)]
pub struct Policy {
    patterns: Vec<(Pattern, WingPolicy)>,
}

impl Policy {
    /// The config's patterns (checked when it was read: `config::parse_file`); one that is no
    /// pattern after all stands for itself.
    pub fn new(patterns: BTreeMap<String, WingPolicy>) -> Policy {
        let patterns = patterns
            .into_iter()
            .map(|(p, w)| {
                let compiled = Pattern::new(&p).unwrap_or_else(|_| {
                    Pattern::new(&Pattern::escape(&p)).expect("an escaped pattern compiles")
                });
                (compiled, w)
            })
            .collect();
        Policy { patterns }
    }

    pub fn for_wing(&self, wing: &str) -> WingPolicy {
        self.patterns
            .iter()
            .filter(|(p, _)| p.matches(wing))
            .max_by_key(|(p, _)| specificity(p.as_str()))
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

/// The wings a write touches, as the server reads them (the catalog's wing arguments); `*`
/// when it names none.
fn wings(tool: &str, args: &Value) -> Vec<String> {
    let mut out = mpt_palace::catalog::wings(tool, args);
    if out.is_empty() {
        out.push("*".into());
    }
    out
}

/// How much of a pattern is literal: its characters less the wildcards (`[...]` counts as one).
fn specificity(pattern: &str) -> usize {
    let mut n = 0;
    let mut in_class = false;
    for c in pattern.chars() {
        match c {
            '[' if !in_class => in_class = true,
            ']' if in_class => {
                in_class = false;
                n += 1;
            }
            '*' | '?' if !in_class => {}
            _ if !in_class => n += 1,
            _ => {}
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn matches(pattern: &str, wing: &str) -> bool {
        Policy::new(BTreeMap::from([(pattern.to_string(), WingPolicy::Local)])).for_wing(wing)
            == WingPolicy::Local
    }

    #[test]
    fn pattern_syntax() {
        // `*`: any run of characters, none included.
        assert!(matches("wing_code*", "wing_code_mpt"));
        assert!(matches("wing_code*", "wing_code"));
        assert!(matches("*", ""));
        assert!(!matches("wing_code*", "wing_notes"));
        // `?`: exactly one character.
        assert!(matches("w?ng_*x", "wing_abcx"));
        assert!(!matches("wing_?", "wing_ab"));
        // `[...]`: one character of the set or range; `[!...]` one outside it.
        assert!(matches("wing_[ab]*", "wing_a1"));
        assert!(matches("wing_[a-c]", "wing_b"));
        assert!(!matches("wing_[ab]*", "wing_c1"));
        assert!(matches("wing_[!ab]", "wing_c"));
        assert!(!matches("wing_[!ab]", "wing_a"));
        // Everything else is itself, case included.
        assert!(!matches("wing_code", "Wing_code"));
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
        // Every wing a write names counts: both ends of a tunnel, a diary's derived wing, a
        // wing the server strips of its spaces.
        let tunnel = json!({"source_wing": "wing_notes", "target_wing": "wing_code_a"});
        assert!(!p.replicates("mempalace_create_tunnel", &tunnel));
        let p = Policy::new(BTreeMap::from([(
            "wing_claude_code".to_string(),
            WingPolicy::Local,
        )]));
        assert!(!p.replicates(
            "mempalace_diary_write",
            &json!({"agent_name": "Claude Code"})
        ));
        assert!(!p.replicates(
            "mempalace_add_drawer",
            &json!({"wing": " wing_claude_code "})
        ));
        assert_eq!(
            Policy::default().for_wing("anything"),
            WingPolicy::Replicated
        );
    }
}
