//! A change the gateway makes to a call's arguments (a writer stamped, a path resolved, an integer
//! coerced, a `null` dropped): named in the audit without its value, applied once to the body sent.

use serde_json::Value;

/// One value the gateway sets in the arguments, or takes out (a JSON pointer below `arguments`).
#[derive(Debug, Clone, PartialEq)]
pub struct Rewrite {
    pub at: String,
    /// The value set (`Null` for a removal).
    pub value: Value,
    pub how: How,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum How {
    /// The client sent nothing there.
    Filled,
    /// The client sent another value (a forgery, a path not yet resolved, an integer as a string).
    Replaced,
    /// Taken out: a `null` (absent to the gateway, so to the server too) or a transport argument.
    Removed,
}

impl Rewrite {
    pub fn fill(at: &str, value: Value) -> Rewrite {
        Rewrite {
            at: at.to_string(),
            value,
            how: How::Filled,
        }
    }

    pub fn forged(at: &str, value: Value) -> Rewrite {
        Rewrite {
            how: How::Replaced,
            ..Rewrite::fill(at, value)
        }
    }

    pub fn removed(at: &str) -> Rewrite {
        Rewrite {
            how: How::Removed,
            ..Rewrite::fill(at, Value::Null)
        }
    }

    /// How the audit names it (never the value: `rewrote:/added_by`, `filled:/metadata`,
    /// `dropped:/wing`).
    pub fn label(&self) -> String {
        let how = match self.how {
            How::Filled => "filled",
            How::Replaced => "rewrote",
            How::Removed => "dropped",
        };
        format!("{how}:{}", self.at)
    }
}

/// Makes each rewrite in `args`, in order (a pointer's parent object exists, or is the root).
pub fn apply(args: &mut Value, rewrites: &[Rewrite]) {
    for r in rewrites {
        let (parent, key) = r.at.rsplit_once('/').unwrap_or(("", &r.at));
        match (args.pointer_mut(parent), r.how) {
            (Some(Value::Object(m)), How::Removed) => {
                m.remove(key);
            }
            (Some(Value::Object(m)), _) => {
                m.insert(key.to_string(), r.value.clone());
            }
            _ => {}
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
        let mut b = json!({"limit": "5", "wing": null, "items": [{"room": null}]});
        apply(
            &mut b,
            &[
                Rewrite::forged("/limit", json!(5)),
                Rewrite::removed("/wing"),
                Rewrite::removed("/items/0/room"),
            ],
        );
        assert_eq!(b, json!({"limit": 5, "items": [{}]}));
    }
}
