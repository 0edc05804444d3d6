//! The gateway's reading of a call beside MemPalace's own, run from the testbed's Python over
//! generated corpora: a name, an integer and the arguments a tool takes, each as the server reads
//! them; what the server would read differently from what the policy judged is refused.

use std::io::Write;
use std::process::{Command, Stdio};

use mpt_palace::catalog::{self, py_strip};
use serde_json::{Value, json};

use crate::support::venv_bin;

/// MemPalace's own functions over `inputs`: per input, `sanitize_name` (a wing or room), the
/// diary's derived wing for it as `agent_name`, `normalize_wing_name` of the sanitized name, and
/// `_sanitize_routing` (a stream); `null` where the server refuses the value.
const SERVER: &str = r#"
import json, sys
from mempalace.config import sanitize_name, normalize_wing_name
from mempalace.logstream import _sanitize_routing

def ok(f):
    try:
        return f()
    except ValueError:
        return None

out = []
for x in json.load(sys.stdin):
    name = ok(lambda: sanitize_name(x))
    agent = ok(lambda: sanitize_name(x, "agent_name").lower())
    out.append({
        "name": name,
        "normalized": None if name is None else normalize_wing_name(name),
        "diary_wing": None if agent is None else "wing_" + agent.replace(" ", "_"),
        "stream": ok(lambda: _sanitize_routing(x, "stream")),
    })
json.dump(out, sys.stdout)
"#;

/// Names with every character that reads differently to Rust and Python around them: each control
/// character, each Unicode space and line separator, zero-width and look-alike characters, case.
fn corpus() -> Vec<String> {
    let mut pads: Vec<char> = (0u32..0x20).filter_map(char::from_u32).collect();
    pads.extend([
        ' ', '\u{7f}', '\u{85}', '\u{a0}', '\u{1680}', '\u{180e}', '\u{200b}', '\u{200c}',
        '\u{200d}', '\u{2028}', '\u{2029}', '\u{202f}', '\u{205f}', '\u{2060}', '\u{3000}',
        '\u{feff}', '\u{301}',
    ]);
    pads.extend((0x2000u32..=0x200a).filter_map(char::from_u32));
    let bases = [
        "wing_ops",
        "Wing_Ops",
        "WING_OPS",
        "wing-ops",
        "wing ops",
        "_wing_ops",
        "w\u{456}ng_ops",
        "\u{ff57}ing_ops",
        "wing_m\u{fc}ller",
        "project/mempalace",
        "ops",
        "a",
        "Pi Bot",
    ];
    let mut out = Vec::new();
    for base in bases {
        out.push(base.to_string());
        for p in &pads {
            out.push(format!("{p}{base}"));
            out.push(format!("{base}{p}"));
            out.push(format!("{p}{base}{p}"));
            let first = base.chars().next().map_or(0, char::len_utf8);
            let (head, tail) = base.split_at(first);
            out.push(format!("{head}{p}{tail}"));
        }
    }
    out
}

fn server(inputs: &[String]) -> Vec<Value> {
    run_python(SERVER, &json!(inputs))
        .as_array()
        .unwrap()
        .clone()
}

/// Runs `program` in the testbed's Python with `input` on its stdin; its stdout, parsed.
fn run_python(program: &str, input: &Value) -> Value {
    let home = tempfile::tempdir().unwrap();
    let mut child = Command::new(venv_bin("python3"))
        .args(["-c", program])
        .env_clear()
        .env("HOME", home.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn what_the_gateway_allows_a_non_admin_the_server_stores_as_the_policy_matched_it() {
    let inputs = corpus();
    let answers = server(&inputs);
    assert_eq!(answers.len(), inputs.len());
    let mut wrong = Vec::new();
    let (mut allowed, mut refused) = (0, 0);
    for (x, s) in inputs.iter().zip(&answers) {
        // A wing: a non-admin's is refused unless sent in its canonical form; the policy
        // matches `canonical(x)`.
        let canonical = catalog::canonical(x);
        let gateway_allows = !canonical.is_empty() && canonical == *x;
        match s["name"].as_str() {
            Some(stored) if gateway_allows && stored != x => wrong.push(format!(
                "wing {x:?}: allowed as {x:?}, stored as {stored:?}"
            )),
            Some(stored) if !gateway_allows && stored == canonical => refused += 1,
            Some(stored) => {
                if gateway_allows {
                    allowed += 1;
                }
                // What the tunnel tools compare by is what the policy judges.
                if s["normalized"].as_str() != Some(canonical.as_str()) {
                    wrong.push(format!(
                        "wing {x:?}: stored {stored:?}, normalized {}, the gateway's canonical {canonical:?}",
                        s["normalized"]
                    ));
                }
            }
            None => {}
        }
        // A diary's derived wing, for `x` as the agent's name.
        if let Some(server_wing) = s["diary_wing"].as_str() {
            let ours = catalog::sent("mempalace_diary_write", &json!({"agent_name": x}));
            if ours.first().map(|w| w.value.as_str()) != Some(server_wing) {
                wrong.push(format!(
                    "agent {x:?}: the server derives {server_wing:?}, the gateway {ours:?}"
                ));
            }
        }
        // A stream: the gateway's globs judge `py_strip(x)`, the server stores its routing form.
        if let Some(stream) = s["stream"].as_str()
            && py_strip(x) != stream
        {
            wrong.push(format!(
                "stream {x:?}: the server stores {stream:?}, the gateway judges {:?}",
                py_strip(x)
            ));
        }
    }
    assert!(
        allowed >= 5 && refused >= 100,
        "the corpus exercises both sides: {allowed} allowed, {refused} refused"
    );
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// `serve`'s own dispatch (`handle_request`, its schema coercions) of `search` with each input
/// as `limit` (an integer), `cli_compatible` (a boolean) and `max_distance` (a number), the
/// handler replaced by one that records what it was given: per input, what the tool saw for each
/// (`{"v": value, "type": its Python type}`), or `null` where the server refused the call.
const SERVER_DISPATCH: &str = r#"
import json, os, sys
out = os.fdopen(os.dup(1), "w")
import mempalace.mcp_server as m
seen = {}
def echo(**kw):
    seen.clear(); seen.update(kw); return {}
m.TOOLS["mempalace_search"]["handler"] = echo
rows = []
for v in json.load(sys.stdin):
    row = {}
    for arg in ["limit", "cli_compatible", "max_distance"]:
        r = m.handle_request({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "mempalace_search", "arguments": {"query": "q", arg: v}}})
        got = seen.get(arg) if "error" not in r else None
        row[arg] = None if "error" in r else {"v": got, "type": type(got).__name__}
    rows.append(row)
json.dump(rows, out)
out.close()
"#;

/// Integers in every form a client might send one: strings padded with every Python space,
/// signs, underscores, other digits, floats and large numbers, booleans and containers.
fn integer_corpus() -> Vec<Value> {
    let mut out: Vec<Value> = vec![
        json!(0),
        json!(-7),
        json!(i64::MAX),
        json!(u64::MAX),
        json!(1.9),
        json!(-1.9),
        json!(1e15),
        json!(1e17),
        json!(1e300),
        json!(true),
        json!(false),
        Value::Null,
        json!([1]),
        json!({"a": 1}),
    ];
    let texts = [
        "5",
        "+5",
        "-5",
        "05",
        "1_000",
        "1__0",
        "_1",
        "1_",
        "٣",
        "１",
        "0x10",
        "1.0",
        "1e3",
        "",
        "-",
        "+-1",
        "9223372036854775807",
        "9223372036854775808",
        "99999999999999999999",
    ];
    let pads: Vec<char> = (0u32..0x21)
        .chain([0x85, 0xa0, 0x1680, 0x200b, 0x2028, 0x2029, 0x3000, 0xfeff])
        .chain(0x2000..=0x200a)
        .filter_map(char::from_u32)
        .collect();
    for t in texts {
        out.push(json!(t));
        for p in &pads {
            out.push(json!(format!("{p}{t}")));
            out.push(json!(format!("{t}{p}")));
        }
    }
    out
}

#[test]
fn an_integer_boolean_or_number_the_gateway_allows_is_the_one_the_tool_sees() {
    let policy = mpt_gateway::decide::policy::Policy::parse(
        &json!({"schema": mpt_base::schema::GATEWAY_POLICY, "devices": {"lap": {"role": "member"}}})
            .to_string(),
        std::path::Path::new("policy.json"),
    )
    .unwrap();
    let inputs = integer_corpus();
    let answers = run_python(SERVER_DISPATCH, &json!(inputs));
    let (mut allowed, mut refused) = (0, 0);
    let mut wrong = Vec::new();
    for (v, server) in inputs.iter().zip(answers.as_array().unwrap()) {
        for arg in ["limit", "cli_compatible", "max_distance"] {
            let args = json!({"query": "q", arg: v});
            let verdict = policy.call("lap", "t", "mempalace_search", &args, &Default::default());
            if !verdict.decision.allowed {
                refused += 1;
                continue;
            }
            allowed += 1;
            let mut sent = args.clone();
            mpt_gateway::decide::policy::apply(&mut sent, &verdict.rewrites);
            // What the tool sees of what was allowed, judged as the gateway judged it.
            let judged = sent.get(arg).cloned().unwrap_or(Value::Null);
            let seen = &server[arg];
            let same = match arg {
                "limit" => {
                    judged.as_i64().is_some()
                        && seen["v"].as_i64().or(seen["v"].as_bool().map(i64::from))
                            == judged.as_i64()
                }
                "cli_compatible" => {
                    judged.is_boolean() && seen["type"] == "bool" && seen["v"] == judged
                }
                _ => judged.is_number() && seen["v"].as_f64() == judged.as_f64(),
            };
            // A null is left out: the tool sees its own default, which the gateway judged too.
            let absent = v.is_null() && sent.get(arg).is_none();
            if !same && !absent {
                wrong.push(format!(
                    "{arg}={v}: the gateway judged {judged}, the tool saw {seen}"
                ));
            }
        }
    }
    assert!(
        allowed >= 200 && refused >= 300,
        "both sides: {allowed} allowed, {refused} refused"
    );
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Every tool's declared arguments and their types, from the live server's own table (stdout
/// kept aside first: the server's import points it at stderr, the MCP channel being stdout).
const SERVER_SCHEMAS: &str = r#"
import json, os
out = os.fdopen(os.dup(1), "w")
from mempalace.mcp_server import TOOLS
json.dump({n: {k: p.get("type") for k, p in t["input_schema"].get("properties", {}).items()}
           for n, t in TOOLS.items()}, out)
out.close()
"#;

#[test]
fn the_arguments_the_gateway_allows_are_the_servers_declared_ones() {
    let theirs = run_python(SERVER_SCHEMAS, &json!(null));
    let theirs = theirs.as_object().unwrap();
    assert_eq!(theirs.len(), catalog::all().len());
    for (tool, props) in theirs {
        let ours = catalog::args::shape(tool).unwrap_or_else(|| panic!("{tool} has no shape"));
        let ours: serde_json::Map<String, Value> = ours
            .fields
            .iter()
            .filter(|(k, _)| props.get(k.as_str()).is_some())
            .map(|(k, kind)| {
                let name = match kind {
                    catalog::Kind::String => "string",
                    catalog::Kind::Integer => "integer",
                    catalog::Kind::Number => "number",
                    catalog::Kind::Boolean => "boolean",
                    catalog::Kind::Object(_) | catalog::Kind::FreeObject => "object",
                    catalog::Kind::Array(_) => "array",
                };
                (k.clone(), json!(name))
            })
            .collect();
        assert_eq!(&Value::Object(ours), props, "{tool}");
        assert_eq!(
            catalog::args::shape(tool).unwrap().fields.len(),
            props.as_object().unwrap().len(),
            "{tool}: no argument beyond the server's"
        );
    }
}
