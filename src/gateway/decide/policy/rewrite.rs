//! A change the gateway makes to a call's arguments (a writer stamped, a path resolved): named
//! in the audit without its value, applied once to the body that is forwarded.

use serde_json::Value;

/// One value the gateway sets in the arguments (a JSON pointer below `arguments`).
#[derive(Debug, Clone, PartialEq)]
pub struct Rewrite {
    pub at: String,
    pub value: Value,
    /// The client sent another value (a forgery, or a path not yet resolved), not nothing.
    pub replaced: bool,
}

impl Rewrite {
    pub fn fill(at: &str, value: Value) -> Rewrite {
        Rewrite {
            at: at.to_string(),
            value,
            replaced: false,
        }
    }

    pub fn forged(at: &str, value: Value) -> Rewrite {
        Rewrite {
            replaced: true,
            ..Rewrite::fill(at, value)
        }
    }

    /// How the audit names it (never the value: `rewrote:/added_by`, `filled:/metadata`).
    pub fn label(&self) -> String {
        let how = if self.replaced { "rewrote" } else { "filled" };
        format!("{how}:{}", self.at)
    }
}

/// Sets each rewrite in `args` (an object; a pointer's parent exists, or is the root).
pub fn apply(args: &mut Value, rewrites: &[Rewrite]) {
    for r in rewrites {
        let (parent, key) = r.at.rsplit_once('/').unwrap_or(("", &r.at));
        if let Some(Value::Object(m)) = args.pointer_mut(parent) {
            m.insert(key.to_string(), r.value.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn apply_sets_nested_and_top_level_values() {
        let mut a = json!({"diary": {"entry": "x"}});
        apply(
            &mut a,
            &[
                Rewrite::fill("/metadata", json!({"mpt": 1})),
                Rewrite::forged("/diary/entry", json!("y")),
            ],
        );
        assert_eq!(a, json!({"diary": {"entry": "y"}, "metadata": {"mpt": 1}}));
    }
}
