//! A non-admin's arguments held to the tool's declared ones (`catalog::args`): a name it does not
//! declare or a wrong type refused, an integer coerced as `serve` coerces it, `null` dropped.

use serde_json::{Map, Value};
use unicode_normalization::UnicodeNormalization;
use unicode_security::skeleton;

use super::rewrite::Rewrite;
use mpt_palace::catalog::args::{self, Kind, Shape, TRANSPORT_ONLY};
use mpt_palace::catalog::{py_int, py_space};

/// The key mpt stamps into a coordination write's `metadata` (`provenance`).
const STAMP: &str = "mpt";

/// The changes that make `args` what the gateway judged (integers as the server coerces them,
/// `null`s and the transport argument taken out), or the rule refusing them. A tool 3.11 does not
/// have is admin's alone, so its arguments are not judged here.
pub fn normalize(tool: &str, args: &Value) -> Result<Vec<Rewrite>, String> {
    let Some(shape) = args::shape(tool) else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    match args {
        Value::Null => {}
        Value::Object(m) => {
            if m.contains_key(TRANSPORT_ONLY) {
                out.push(Rewrite::removed(&format!("/{TRANSPORT_ONLY}")));
            }
            let declared = m.iter().filter(|(k, _)| k.as_str() != TRANSPORT_ONLY);
            object(shape, declared, "", &mut out)?;
        }
        _ => return Err("arguments:type::object".into()),
    }
    Ok(out)
}

fn object<'a>(
    shape: &Shape,
    fields: impl Iterator<Item = (&'a String, &'a Value)>,
    at: &str,
    out: &mut Vec<Rewrite>,
) -> Result<(), String> {
    for (key, v) in fields {
        let here = format!("{at}/{}", escape(key));
        let Some(kind) = shape.get(key) else {
            return Err(format!("arguments:unknown:{here}"));
        };
        if v.is_null() {
            out.push(Rewrite::removed(&here));
            continue;
        }
        value(kind, v, &here, out)?;
    }
    Ok(())
}

fn value(kind: &Kind, v: &Value, at: &str, out: &mut Vec<Rewrite>) -> Result<(), String> {
    let wrong = |want: &str| Err(format!("arguments:type:{at}:{want}"));
    match (kind, v) {
        (Kind::String, Value::String(_))
        | (Kind::Boolean, Value::Bool(_))
        | (Kind::Number, Value::Number(_)) => Ok(()),
        (Kind::Integer, v) => match py_int(v) {
            Some(i) if v.as_i64() == Some(i) => Ok(()),
            Some(i) => {
                out.push(Rewrite::forged(at, Value::from(i)));
                Ok(())
            }
            None => wrong("integer"),
        },
        (Kind::FreeObject, Value::Object(m)) => match m.keys().find(|k| imitates_stamp(k)) {
            Some(k) => Err(format!("arguments:stamp_lookalike:{at}/{}", escape(k))),
            None => Ok(()),
        },
        (Kind::Object(shape), Value::Object(m)) => object(shape, m.iter(), at, out),
        (Kind::Array(item), Value::Array(items)) => {
            for (i, v) in items.iter().enumerate() {
                value(item, v, &format!("{at}/{i}"), out)?;
            }
            Ok(())
        }
        (Kind::String, _) => wrong("string"),
        (Kind::Number, _) => wrong("number"),
        (Kind::Boolean, _) => wrong("boolean"),
        (Kind::FreeObject | Kind::Object(_), _) => wrong("object"),
        (Kind::Array(_), _) => wrong("array"),
    }
}

/// A JSON pointer's escaping of one key (`~` as `~0`, `/` as `~1`).
fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// Whether a metadata key would pass for mpt's stamp without being it: another case, a
/// width or compatibility form, invisible or space characters in it, or the same confusable
/// skeleton (a Cyrillic `р`).
fn imitates_stamp(key: &str) -> bool {
    if key == STAMP {
        return false;
    }
    let folded: String = key
        .nfkc()
        .filter(|c| !py_space(*c) && !invisible(*c))
        .collect::<String>()
        .to_lowercase();
    folded == STAMP || skeleton(&folded).eq(skeleton(STAMP))
}

/// Unicode's default-ignorable code points (`DerivedCoreProperties.txt`): drawn as nothing.
fn invisible(c: char) -> bool {
    matches!(
        c,
        '\u{ad}'
            | '\u{34f}'
            | '\u{61c}'
            | '\u{115f}'..='\u{1160}'
            | '\u{17b4}'..='\u{17b5}'
            | '\u{180b}'..='\u{180f}'
            | '\u{200b}'..='\u{200f}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2060}'..='\u{206f}'
            | '\u{3164}'
            | '\u{fe00}'..='\u{fe0f}'
            | '\u{feff}'
            | '\u{ffa0}'
            | '\u{fff0}'..='\u{fff8}'
            | '\u{1bca0}'..='\u{1bca3}'
            | '\u{1d173}'..='\u{1d17a}'
            | '\u{e0000}'..='\u{e0fff}'
    )
}

/// `args` with `rewrites` made: what the rest of the decision reads.
pub fn normalized(args: &Value, rewrites: &[Rewrite]) -> Value {
    let mut v = match args {
        Value::Null => Value::Object(Map::new()),
        v => v.clone(),
    };
    super::rewrite::apply(&mut v, rewrites);
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn labels(tool: &str, args: Value) -> Result<Vec<String>, String> {
        normalize(tool, &args).map(|r| r.iter().map(Rewrite::label).collect())
    }

    #[test]
    fn declared_arguments_of_the_declared_type_pass_unchanged() {
        let ok = json!({"query": "q", "limit": 5, "wing": "w", "cli_compatible": false, "max_distance": 0.5});
        assert_eq!(labels("mempalace_search", ok), Ok(vec![]));
        let cp = json!({"items": [{"wing": "w", "room": "r", "content": "c"}],
            "diary": {"agent_name": "pi", "content": "e"}, "dedup_threshold": 0.9});
        assert_eq!(labels("mempalace_checkpoint", cp), Ok(vec![]));
        assert_eq!(labels("mempalace_status", Value::Null), Ok(vec![]));
    }

    #[test]
    fn what_is_not_declared_or_not_its_type_is_refused() {
        for (tool, args, rule) in [
            (
                "search",
                json!({"query": "q", "min_similarity": 0.1}),
                "arguments:unknown:/min_similarity",
            ),
            (
                "search",
                json!({"query": "q", "cli_compatible": 1}),
                "arguments:type:/cli_compatible:boolean",
            ),
            (
                "search",
                json!({"query": "q", "cli_compatible": "true"}),
                "arguments:type:/cli_compatible:boolean",
            ),
            (
                "search",
                json!({"query": "q", "limit": "ten"}),
                "arguments:type:/limit:integer",
            ),
            (
                "search",
                json!({"query": "q", "max_distance": "0.5"}),
                "arguments:type:/max_distance:number",
            ),
            (
                "add_drawer",
                json!({"wing": ["wing_ops"], "room": "r", "content": "c"}),
                "arguments:type:/wing:string",
            ),
            (
                "add_drawer",
                json!({"wing": {"w": 1}, "room": "r", "content": "c"}),
                "arguments:type:/wing:string",
            ),
            (
                "checkpoint",
                json!({"items": [{"wing": "w", "room": "r", "content": "c", "source_file": "/x"}]}),
                "arguments:unknown:/items/0/source_file",
            ),
            (
                "checkpoint",
                json!({"items": {"wing": "w"}}),
                "arguments:type:/items:array",
            ),
            (
                "checkpoint",
                json!({"items": [], "diary": {"agent_name": 7}}),
                "arguments:type:/diary/agent_name:string",
            ),
            (
                "get_drawers",
                json!({"drawer_ids": ["a", null]}),
                "arguments:type:/drawer_ids/1:string",
            ),
            (
                "event_append",
                json!({"type": "t", "stream": "s", "room": "r", "from_agent": "a", "metadata": "x"}),
                "arguments:type:/metadata:object",
            ),
            ("search", json!("q"), "arguments:type::object"),
        ] {
            assert_eq!(
                labels(tool, args.clone()),
                Err(rule.to_string()),
                "{tool} {args}"
            );
        }
    }

    #[test]
    fn integers_are_sent_as_the_server_reads_them_and_nulls_as_nothing() {
        let args = json!({"query": "q", "limit": "5", "wing": null, "wait_for_previous": true});
        let rewrites = normalize("mempalace_search", &args).unwrap();
        assert_eq!(
            rewrites.iter().map(Rewrite::label).collect::<Vec<_>>(),
            [
                "dropped:/wait_for_previous",
                "rewrote:/limit",
                "dropped:/wing"
            ]
        );
        assert_eq!(
            normalized(&args, &rewrites),
            json!({"query": "q", "limit": 5})
        );
        let cp = json!({"items": [{"wing": "w", "room": "r", "content": "c"}], "diary": {"agent_name": null, "entry": "e"}});
        let rewrites = normalize("checkpoint", &cp).unwrap();
        assert_eq!(
            normalized(&cp, &rewrites),
            json!({"items": [{"wing": "w", "room": "r", "content": "c"}], "diary": {"entry": "e"}}),
            "the server's default agent, as the wing rules judged it"
        );
        assert_eq!(
            labels("search", json!({"query": "q", "limit": true})),
            Ok(vec!["rewrote:/limit".to_string()])
        );
    }

    #[test]
    fn metadata_is_free_but_nothing_in_it_passes_for_the_stamp() {
        let with =
            |k: &str| json!({"kind": "k", "content": "c", "created_by": "a", "metadata": {k: 1}});
        for fine in ["mpt", "branch", "mpt_op_id", "ack_of", "mptx"] {
            assert_eq!(labels("artifact_put", with(fine)), Ok(vec![]), "{fine}");
        }
        for fake in [
            "MPT",
            "Mpt",
            " mpt",
            "mpt\u{200b}",
            "m\u{200d}pt",
            "\u{ff4d}\u{ff50}\u{ff54}",
            "m\u{440}t",
            "mpt\x1c",
        ] {
            assert!(
                labels("artifact_put", with(fake))
                    .is_err_and(|r| r.starts_with("arguments:stamp_lookalike:/metadata/")),
                "{fake:?}"
            );
        }
    }
}
