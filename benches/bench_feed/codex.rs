//! The Codex half: 1,000 rollouts in Codex 0.169's shape (checked against a real one's record
//! kinds and keys), the first export beside `cp -r` of the folder, the no-change re-run.

use std::fmt::Write as _;
use std::fs;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use mpt_feed::{PrepareOptions, Reason};

use super::{Rng, SESSIONS, aside, best, j, median_ms, words};

/// Turns a rollout: about 50-60 KB each, as the other harnesses' sessions in this bench.
const TURNS: usize = 8;

/// One rollout of thread `id`: `TURNS` prompts, each answered with text, a shell call and more
/// text, every message written twice (`response_item` and `item_completed`) as Codex writes it.
fn rollout(r: &mut Rng, id: &str) -> String {
    let mut out = String::new();
    let mut k = 0usize;
    let mut line = |out: &mut String, body: String| {
        k += 1;
        let _ = writeln!(
            out,
            r#"{{"timestamp":"2026-12-06T18:{:02}:{:02}.000Z","ordinal":{k},{body}}}"#,
            (k / 60) % 60,
            k % 60
        );
    };
    line(
        &mut out,
        format!(
            r#""type":"session_meta","payload":{{"id":"{id}","timestamp":"2026-12-06T18:00:00.000Z","cwd":"/home/u/work","originator":"codex_exec","cli_version":"0.169.0","source":"exec"}}"#
        ),
    );
    line(
        &mut out,
        r#""type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>\n  <cwd>/home/u/work</cwd>\n  <shell>bash</shell>\n</environment_context>"}]}"#.into(),
    );
    for t in 0..TURNS {
        line(
            &mut out,
            r#""type":"event_msg","payload":{"type":"task_started"}"#.into(),
        );
        let prompt = j(&words(r, 120, 400));
        line(
            &mut out,
            format!(
                r#""type":"response_item","payload":{{"type":"message","role":"user","content":[{{"type":"input_text","text":{prompt}}}]}}"#
            ),
        );
        line(
            &mut out,
            format!(
                r#""type":"event_msg","payload":{{"type":"item_completed","thread_id":"{id}","turn_id":"t{t}","item":{{"type":"UserMessage","id":"u{t}","content":[{{"type":"text","text":{prompt},"text_elements":[]}}]}}}}"#
            ),
        );
        for (n, text) in [(0, j(&words(r, 200, 600))), (1, j(&words(r, 200, 600)))] {
            line(
                &mut out,
                format!(
                    r#""type":"event_msg","payload":{{"type":"item_completed","thread_id":"{id}","turn_id":"t{t}","item":{{"type":"AgentMessage","id":"m{t}{n}","content":[{{"type":"Text","text":{text}}}]}}}}"#
                ),
            );
            line(
                &mut out,
                format!(
                    r#""type":"response_item","payload":{{"type":"message","role":"assistant","content":[{{"type":"output_text","text":{text}}}]}}"#
                ),
            );
            if n == 1 {
                break;
            }
            let cmd = format!("cargo test {}", words(r, 10, 30));
            let output = j(&words(r, 800, 1600));
            line(
                &mut out,
                format!(
                    r#""type":"response_item","payload":{{"type":"function_call","name":"exec_command","arguments":{},"call_id":"c{t}"}}"#,
                    j(&format!("{{\"cmd\": {}}}", j(&cmd)))
                ),
            );
            line(
                &mut out,
                format!(
                    r#""type":"event_msg","payload":{{"type":"item_completed","thread_id":"{id}","turn_id":"t{t}","item":{{"type":"CommandExecution","id":"c{t}","command":["/bin/bash","-lc",{}],"status":"completed","exit_code":0,"aggregated_output":{output}}}}}"#,
                    j(&cmd)
                ),
            );
            line(
                &mut out,
                format!(
                    r#""type":"response_item","payload":{{"type":"function_call_output","call_id":"c{t}","output":{output}}}"#
                ),
            );
        }
        line(
            &mut out,
            r#""type":"event_msg","payload":{"type":"task_complete"}"#.into(),
        );
    }
    out
}

pub fn codex(tmp: &Path, pi_rerun_ms: Option<f64>) {
    let sessions = tmp.join("codex/sessions");
    let t = Instant::now();
    let mut r = Rng(0x51ed_2701_a5a5_0f0f);
    let mut total = 0usize;
    for n in 0..SESSIONS {
        let dir = sessions.join(format!("2026/12/{:02}", 1 + n % 28));
        fs::create_dir_all(&dir).unwrap();
        let id = format!("{n:08x}-0000-4000-8000-000000000000");
        let text = rollout(&mut r, &id);
        if n == 0 {
            super::check_shape(
                mpt_feed::codex::line_shapes(text.as_bytes()),
                "codex-0.169-shapes.json",
            );
        }
        total += text.len();
        fs::write(
            dir.join(format!("rollout-2026-12-01T00-00-00-{id}.jsonl")),
            text,
        )
        .unwrap();
    }
    println!(
        "{SESSIONS} synthetic Codex rollouts ({TURNS} turns each), {:.1} MB of JSONL (generated in {:.1} s)",
        total as f64 / 1e6,
        t.elapsed().as_secs_f64()
    );
    let copy = tmp.join("codex/copy");
    let (t_cp, ()) = best(5, || {
        aside(tmp, &copy);
        let ok = Command::new("cp")
            .arg("-r")
            .arg(&sessions)
            .arg(&copy)
            .status()
            .unwrap();
        assert!(ok.success());
    });
    println!(
        "  {:<46} {:>9.1} ms",
        "cp -r of the sessions folder (the baseline)",
        t_cp * 1e3
    );
    let stage = tmp.join("codex/out/staged");
    let state = tmp.join("codex/out/state.json");
    let mk = |fsync: bool| {
        let mut o = PrepareOptions::new(&sessions, &stage, Reason::Settled);
        o.state_file = Some(state.clone());
        o.fsync = fsync;
        o
    };
    for fsync in [false, true] {
        aside(tmp, &tmp.join("codex/out"));
        let t = Instant::now();
        let r = mpt_feed::codex::prepare(&mk(fsync)).unwrap();
        let secs = t.elapsed().as_secs_f64();
        assert_eq!(
            r.exported,
            SESSIONS,
            "{:?} {:?}",
            r.skipped,
            r.warnings.first()
        );
        println!(
            "  {:<46} {:>9.1} ms  {:.2}x cp -r; {:.1} MB of transcript",
            format!("first export (fsync {})", if fsync { "on" } else { "off" }),
            secs * 1e3,
            secs / t_cp,
            r.bytes_written as f64 / 1e6
        );
    }
    let rerun = median_ms(11, || {
        let r = mpt_feed::codex::prepare(&mk(true)).unwrap();
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
