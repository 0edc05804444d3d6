//! The Claude Code half: 1,000 transcripts in Claude Code 2.1.328's shape (checked against a real
//! one's line kinds and keys), the first export beside `cp -r` of the folder, the no-change re-run.

use std::fmt::Write as _;
use std::fs;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use mpt_feed::{PrepareOptions, Reason};

use super::{Rng, SESSIONS, aside, best, j, median_ms, words};

/// Turns a transcript: about 50-60 KB each, as pi's and opencode's sessions in this bench.
const TURNS: usize = 8;

/// One transcript of session `id`: `TURNS` prompts, each answered with text, a tool call, its
/// result and more text, chained by `uuid`/`parentUuid` as Claude Code chains them.
fn transcript(r: &mut Rng, n: usize, id: &str) -> String {
    let mut out = String::new();
    let cwd = format!("/home/u/project-{}", n % 50);
    let mut k = 0usize;
    let mut parent = String::from("null");
    let mut line = |out: &mut String, kind: &str, body: String| {
        k += 1;
        let uuid = format!("{n:06x}-{k:06x}");
        let _ = writeln!(
            out,
            r#"{{"parentUuid":{parent},"isSidechain":false,"userType":"external","cwd":"{cwd}","sessionId":"{id}","version":"2.1.328","gitBranch":"main","type":"{kind}",{body},"uuid":"{uuid}","timestamp":"2026-05-08T02:{:02}:{:02}.000Z"}}"#,
            (k / 60) % 60,
            k % 60
        );
        parent = format!("\"{uuid}\"");
    };
    for t in 0..TURNS {
        let _ = writeln!(
            out,
            r#"{{"type":"queue-operation","operation":"enqueue","timestamp":"2026-05-08T02:00:{:02}.000Z","sessionId":"{id}"}}"#,
            t % 60
        );
        let prompt = words(r, 120, 400);
        line(
            &mut out,
            "user",
            format!(
                r#""promptId":"p{t}","message":{{"role":"user","content":{}}}"#,
                j(&prompt)
            ),
        );
        line(
            &mut out,
            "attachment",
            r#""attachment":{"type":"date","date":"2026-05-08"}"#.to_string(),
        );
        let msg = format!("msg_{n:06x}{t:04x}");
        line(
            &mut out,
            "assistant",
            format!(
                r#""requestId":"req_{t}","message":{{"id":"{msg}","type":"message","role":"assistant","model":"claude-opus-5-5","content":[{{"type":"text","text":{}}}],"stop_reason":null,"usage":{{"input_tokens":1811,"output_tokens":412}}}}"#,
                j(&words(r, 200, 600))
            ),
        );
        line(
            &mut out,
            "assistant",
            format!(
                r#""requestId":"req_{t}","message":{{"id":"{msg}","type":"message","role":"assistant","model":"claude-opus-5-5","content":[{{"type":"tool_use","id":"toolu_{t}","name":"Bash","input":{{"command":{},"description":"Run the tests"}}}}],"stop_reason":"tool_use"}}"#,
                j(&format!("cargo test {}", words(r, 10, 30)))
            ),
        );
        let output = words(r, 800, 1600);
        line(
            &mut out,
            "user",
            format!(
                r#""toolUseResult":{{"stdout":{0},"stderr":"","interrupted":false}},"message":{{"role":"user","content":[{{"tool_use_id":"toolu_{t}","type":"tool_result","content":{0},"is_error":false}}]}}"#,
                j(&output)
            ),
        );
        line(
            &mut out,
            "assistant",
            format!(
                r#""requestId":"req_{t}b","message":{{"id":"{msg}b","type":"message","role":"assistant","model":"claude-opus-5-5","content":[{{"type":"text","text":{}}}],"stop_reason":"end_turn"}}"#,
                j(&words(r, 200, 600))
            ),
        );
        out.push_str(r#"{"type":"last-prompt","lastPrompt":"…"}"#);
        out.push('\n');
    }
    out.push_str(r#"{"type":"cost-state","totalCostUSD":0.42}"#);
    out.push('\n');
    out
}

pub fn claude(tmp: &Path, pi_rerun_ms: Option<f64>) {
    let projects = tmp.join("claude/projects");
    let t = Instant::now();
    let mut r = Rng(0x9e37_79b9_7f4a_7c15);
    let mut total = 0usize;
    for n in 0..SESSIONS {
        let dir = projects.join(format!("-home-u-project-{}", n % 50));
        fs::create_dir_all(&dir).unwrap();
        let id = format!("{n:08x}-0000-4000-8000-000000000000");
        let text = transcript(&mut r, n, &id);
        if n == 0 {
            super::check_shape(
                mpt_feed::claude::line_shapes(text.as_bytes()),
                "claude-2.1.328-shapes.json",
            );
        }
        total += text.len();
        fs::write(dir.join(format!("{id}.jsonl")), text).unwrap();
    }
    println!(
        "{SESSIONS} synthetic Claude Code transcripts ({TURNS} turns each), {:.1} MB of JSONL (generated in {:.1} s)",
        total as f64 / 1e6,
        t.elapsed().as_secs_f64()
    );
    let copy = tmp.join("claude/copy");
    let (t_cp, ()) = best(5, || {
        aside(tmp, &copy);
        let ok = Command::new("cp")
            .arg("-r")
            .arg(&projects)
            .arg(&copy)
            .status()
            .unwrap();
        assert!(ok.success());
    });
    println!(
        "  {:<46} {:>9.1} ms",
        "cp -r of the projects folder (the baseline)",
        t_cp * 1e3
    );
    let stage = tmp.join("claude/out/staged");
    let state = tmp.join("claude/out/state.json");
    let mk = |state_file: Option<&Path>, fsync: bool| {
        let mut o = PrepareOptions::new(&projects, &stage, Reason::Settled);
        o.state_file = state_file.map(Path::to_path_buf);
        o.fsync = fsync;
        o
    };
    for fsync in [false, true] {
        aside(tmp, &tmp.join("claude/out"));
        let t = Instant::now();
        let r = mpt_feed::claude::prepare(&mk(Some(&state), fsync)).unwrap();
        let secs = t.elapsed().as_secs_f64();
        assert_eq!(r.exported, SESSIONS, "{:?}", r.skipped);
        println!(
            "  {:<46} {:>9.1} ms  {:.2}x cp -r; {:.1} MB of transcript",
            format!("first export (fsync {})", if fsync { "on" } else { "off" }),
            secs * 1e3,
            secs / t_cp,
            r.bytes_written as f64 / 1e6
        );
    }
    let rerun = median_ms(11, || {
        let r = mpt_feed::claude::prepare(&mk(Some(&state), true)).unwrap();
        assert_eq!((r.exported, r.unchanged, r.bytes_read), (0, SESSIONS, 0));
    });
    let beside_pi = pi_rerun_ms
        .map(|pi| format!("{:.2}x pi's {pi:.1} ms; ", rerun / pi))
        .unwrap_or_default();
    println!(
        "  {:<46} {rerun:>9.1} ms  ({beside_pi}bar <= 100 ms)",
        "no-change re-run with its state, median of 11",
    );
}
