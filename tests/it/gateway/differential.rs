//! The gateway's reading of a name beside MemPalace's own, run from the testbed's Python over a
//! generated corpus: whatever the gateway lets a non-admin send is stored by the server exactly as
//! the policy matched it, and whatever the server would store differently is refused.

use std::io::Write;
use std::process::{Command, Stdio};

use mpt::palace::catalog::{self, py_strip};
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
    let mut child = Command::new(venv_bin("python3"))
        .args(["-c", SERVER])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(json!(inputs).to_string().as_bytes())
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
