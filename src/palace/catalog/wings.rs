//! The wings one call names, read from its arguments at the catalog's wing arguments and
//! normalised as MemPalace 3.11 does (`sanitize_name` strips; a diary's wing is derived).

use serde_json::Value;

use super::WingArg;

/// Every wing `tool` names in `args`, in argument order, each once (none: the call names no
/// wing, e.g. the KG or the coordination log).
pub fn wings(tool: &str, args: &Value) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for arg in super::tool(tool).wings {
        let found = match arg {
            WingArg::At(pointer) => strings_at(args, pointer),
            WingArg::Diary { at } => diary_wing(args, at).into_iter().collect(),
        };
        for w in found {
            if !out.contains(&w) {
                out.push(w);
            }
        }
    }
    out
}

/// The non-empty strings at `pointer` (a `*` segment: each element of an array), stripped.
fn strings_at(v: &Value, pointer: &str) -> Vec<String> {
    match pointer.split_once("/*") {
        None => v
            .pointer(pointer)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .into_iter()
            .collect(),
        Some((list, rest)) => v
            .pointer(list)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .flat_map(|item| strings_at(item, rest))
            .collect(),
    }
}

/// A diary's wing as `tools_diary.py` settles it: its `wing`, else `wing_<agent_name>` with the
/// name stripped, lowercased and its spaces made `_`.
fn diary_wing(args: &Value, at: &str) -> Option<String> {
    let diary = if at.is_empty() {
        args
    } else {
        args.pointer(at)?
    };
    let text = |k: &str| {
        diary
            .get(k)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
    };
    match text("wing") {
        Some(w) => Some(w.to_string()),
        None => text("agent_name").map(|a| format!("wing_{}", a.to_lowercase().replace(' ', "_"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_tool_names_its_wings_as_the_server_reads_them() {
        assert_eq!(
            wings(
                "mempalace_add_drawer",
                &json!({"wing": " wing_a ", "room": "r"})
            ),
            ["wing_a"]
        );
        assert_eq!(
            wings(
                "mempalace_create_tunnel",
                &json!({"source_wing": "a", "target_wing": "b"})
            ),
            ["a", "b"]
        );
        assert_eq!(
            wings(
                "mempalace_diary_write",
                &json!({"agent_name": "Claude Code"})
            ),
            ["wing_claude_code"]
        );
        assert_eq!(
            wings(
                "mempalace_diary_write",
                &json!({"agent_name": "pi", "wing": "w"})
            ),
            ["w"]
        );
        let cp = json!({"items": [{"wing": "a"}, {"wing": "b"}, {"wing": "a"}], "diary": {"agent_name": "pi"}});
        assert_eq!(wings("mempalace_checkpoint", &cp), ["a", "b", "wing_pi"]);
        assert!(wings("mempalace_kg_add", &json!({"subject": "s"})).is_empty());
        assert!(wings("mempalace_search", &json!({"query": "q"})).is_empty());
        assert!(wings("mempalace_brand_new", &json!({"wing": "w"})).is_empty());
    }
}
