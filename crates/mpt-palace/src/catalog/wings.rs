//! The wings one call names, read from its arguments at the catalog's wing arguments and
//! normalised as MemPalace 3.11 does (`sanitize_name` strips as Python does; a diary's wing is derived).

use serde_json::Value;

use super::WingArg;

/// Every wing `tool` names in `args`, in argument order, each once (none: the call names no
/// wing, e.g. the KG or the coordination log).
pub fn wings(tool: &str, args: &Value) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for w in sent(tool, args) {
        let w = py_strip(&w.value).to_string();
        if !out.contains(&w) {
            out.push(w);
        }
    }
    out
}

/// A wing as a call names it: as sent (unstripped), or derived by the server from a diary's
/// `agent_name` (then never sent at all).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sent {
    pub value: String,
    pub derived: bool,
}

/// Every wing `tool` names in `args`, as sent, in argument order (duplicates kept).
pub fn sent(tool: &str, args: &Value) -> Vec<Sent> {
    let mut out = Vec::new();
    for arg in super::tool(tool).wings {
        match arg {
            WingArg::At(pointer) => {
                out.extend(strings_at(args, pointer).into_iter().map(|value| Sent {
                    value,
                    derived: false,
                }))
            }
            WingArg::Diary { at } => out.extend(diary_wing(args, at)),
        }
    }
    out
}

/// The one name every spelling of a wing folds to: `sanitize_name`'s strip, then
/// `normalize_wing_name` (`config.py`: lowercase, `-` and space as `_`, outer `_` stripped),
/// which the tunnel tools compare by while drawer metadata keeps the exact spelling.
pub fn canonical(wing: &str) -> String {
    py_strip(wing)
        .to_lowercase()
        .replace([' ', '-'], "_")
        .trim_matches('_')
        .to_string()
}

/// Whether Python 3.11's `str.isspace()` holds for `c`: what `str.strip()` (and so the server's
/// `sanitize_name` and `_sanitize_routing`) takes off either end. Rust's `trim` takes a different
/// set (not `\x1c`-`\x1f`): a name padded with those would read two ways.
pub fn py_space(c: char) -> bool {
    matches!(
        c,
        '\t'..='\r'
            | '\x1c'..='\x1f'
            | ' '
            | '\u{85}'
            | '\u{a0}'
            | '\u{1680}'
            | '\u{2000}'..='\u{200a}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{202f}'
            | '\u{205f}'
            | '\u{3000}'
    )
}

/// `s.strip()` as Python 3.11 strips it.
pub fn py_strip(s: &str) -> &str {
    s.trim_matches(py_space)
}

/// The strings at `pointer` (a `*` segment: each element of an array) that are not blank, as sent.
fn strings_at(v: &Value, pointer: &str) -> Vec<String> {
    match pointer.split_once("/*") {
        None => v
            .pointer(pointer)
            .and_then(Value::as_str)
            .filter(|s| !py_strip(s).is_empty())
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

/// The agent a checkpoint's diary is filed as when it names none (MemPalace 3.11's default).
pub const CHECKPOINT_AGENT: &str = "cursor-ide";

/// A diary's wing as `tools_diary.py` settles it: its `wing`, else `wing_<agent_name>` with the
/// name stripped, lowercased and its spaces made `_`.
fn diary_wing(args: &Value, at: &str) -> Option<Sent> {
    let diary = if at.is_empty() {
        args
    } else {
        args.pointer(at)?
    };
    let text = |k: &str| {
        diary
            .get(k)
            .and_then(Value::as_str)
            .filter(|s| !py_strip(s).is_empty())
    };
    match text("wing") {
        Some(w) => Some(Sent {
            value: w.to_string(),
            derived: false,
        }),
        None => {
            // A checkpoint's diary with no `agent_name` is the server's default agent's
            // (`tools_diary.py`, `tool_checkpoint`: `diary.get("agent_name", "cursor-ide")`).
            let default =
                (!at.is_empty() && diary.get("agent_name").is_none()).then_some(CHECKPOINT_AGENT);
            text("agent_name").or(default).map(|a| Sent {
                value: format!("wing_{}", py_strip(a).to_lowercase().replace(' ', "_")),
                derived: true,
            })
        }
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
        // A checkpoint's diary without an agent is the server's default agent's (L1).
        let unnamed = json!({"items": [], "diary": {"entry": "e"}});
        assert_eq!(wings("mempalace_checkpoint", &unnamed), ["wing_cursor-ide"]);
        assert!(wings("mempalace_kg_add", &json!({"subject": "s"})).is_empty());
        assert!(wings("mempalace_search", &json!({"query": "q"})).is_empty());
        assert!(wings("mempalace_brand_new", &json!({"wing": "w"})).is_empty());
    }

    #[test]
    fn sent_keeps_the_spelling_and_canonical_folds_it_as_the_tunnel_tools_do() {
        assert_eq!(
            sent("mempalace_diary_write", &json!({"agent_name": " Pi Bot "})),
            [Sent {
                value: "wing_pi_bot".into(),
                derived: true
            }]
        );
        assert_eq!(
            sent("mempalace_add_drawer", &json!({"wing": " Wing-Pi "}))[0].value,
            " Wing-Pi "
        );
        for (w, c) in [
            ("wing_pi", "wing_pi"),
            (" wing_pi ", "wing_pi"),
            ("Wing_Pi", "wing_pi"),
            ("wing-pi", "wing_pi"),
            ("wing pi", "wing_pi"),
            ("_wing_pi_", "wing_pi"),
            // Python's strip set, which Rust's `trim` does not share: the server stores these
            // as `wing_pi`, so the policy must judge `wing_pi`.
            ("\x1cwing_pi", "wing_pi"),
            ("wing_pi\x1f", "wing_pi"),
            ("\u{85}wing_pi\u{3000}", "wing_pi"),
        ] {
            assert_eq!(canonical(w), c, "{w:?}");
        }
        assert_eq!(
            wings("mempalace_add_drawer", &json!({"wing": "\x1dwing_ops"})),
            ["wing_ops"]
        );
        // Padding only: no wing at all, as the server refuses an empty name.
        assert!(wings("mempalace_add_drawer", &json!({"wing": "\x1e\u{2028}"})).is_empty());
    }

    #[test]
    fn python_whitespace_is_pythons_exactly() {
        // `[hex(c) for c in range(0x110000) if chr(c).isspace()]` on Python 3.11.
        let python: Vec<u32> = vec![
            0x9, 0xa, 0xb, 0xc, 0xd, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85, 0xa0, 0x1680, 0x2000,
            0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028,
            0x2029, 0x202f, 0x205f, 0x3000,
        ];
        let ours: Vec<u32> = (0..=0x10ffffu32)
            .filter_map(char::from_u32)
            .filter(|c| py_space(*c))
            .map(u32::from)
            .collect();
        assert_eq!(ours, python);
    }
}
