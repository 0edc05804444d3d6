//! Single `feed::prepare` runs over tests/fixtures/feed/sessions: verdicts, the reviewed
//! transcripts in tests/fixtures/feed/expected, fork de-duplication, options, naming, errors.

use crate::support::feed::*;
use mpt_feed::{ExportOptions, GateConfig, PrepareOptions, Reason, SkipReason, prepare};
use std::fs;
use std::time::{Duration, SystemTime};

#[test]
fn first_run_stages_the_expected_transcripts() {
    let e = fixture();
    let r = run(&e, Reason::Settled, true);
    assert_eq!(
        (r.sessions_seen, r.exported, r.unchanged, r.skipped_total),
        (12, 6, 0, 6)
    );
    assert_eq!(
        skipped(&r),
        [
            (SkipReason::InvalidHeader, 1),
            (SkipReason::Subagent, 1),
            (SkipReason::InjectedOnly, 1),
            (SkipReason::NoAssistantReply, 1),
            (SkipReason::TooFewUserTurns, 1),
            (SkipReason::TooFewChars, 1),
        ]
    );
    let total: u64 = EXPORTED.iter().map(|id| expected(id).len() as u64).sum();
    assert_eq!(r.bytes_written, total);
    assert!(r.bytes_read > 30_000);
    let names: Vec<String> = listing(&e.stage).into_keys().collect();
    let mut want: Vec<String> = EXPORTED.iter().map(|id| format!("{id}.md")).collect();
    want.sort();
    assert_eq!(names, want, "only the transcripts, no temp or state files");
    for id in EXPORTED {
        assert_eq!(staged(&e, id), expected(id), "transcript of {id}");
    }
    let json = serde_json::to_value(&r).unwrap();
    assert_eq!(json["skipped"]["too_few_user_turns"], 1);
    assert_eq!(json["reason"], "settled");
}

#[test]
fn dropped_material_never_reaches_the_transcripts() {
    let e = fixture();
    run(&e, Reason::Shutdown, false);
    let all: String = EXPORTED.iter().map(|id| staged(&e, id)).collect();
    for marker in [
        "ABANDONED-BRANCH",
        "BRANCH-SUMMARY",
        "COMPACTION-SUMMARY",
        "RECALLED-CONTEXT",
        "TOOL-RESULT-TEXT",
        "CUSTOM-STATE",
        "SKILL-BODY",
        "never split here",
        "EXT-STATE",
        "TRUNCATED-LINE",
        "secrets.env",
        "read the manifest before",
        "SUBAGENT-ONLY",
        "/mode",
        "\r",
    ] {
        assert!(!all.contains(marker), "{marker:?} leaked into a transcript");
    }
}

/// The miner's rules (Python `str.strip()`): exactly one user line per exchange, no `---` rule.
#[test]
fn every_transcript_splits_into_exactly_its_exchanges() {
    let e = fixture();
    run(&e, Reason::Shutdown, false);
    let py_strip = |l: &str| {
        l.trim_matches(|c: char| c.is_whitespace() || ('\x1c'..='\x1f').contains(&c))
            .to_string()
    };
    for id in EXPORTED {
        let text = staged(&e, id);
        let quote_lines = text
            .split('\n')
            .filter(|l| py_strip(l).starts_with('>'))
            .count();
        let user_lines = text.split('\n').filter(|l| l.starts_with("> ")).count();
        let blocks = text.split("\n\n").count();
        assert_eq!(quote_lines, user_lines, "{id}");
        assert_eq!(
            user_lines, blocks,
            "{id}: blank lines only between exchanges"
        );
        assert!(
            !text.split('\n').any(|l| py_strip(l).starts_with("---")),
            "{id}"
        );
        assert!(text.ends_with('\n') && !text.ends_with("\n\n"));
    }
    assert_eq!(staged(&e, DEMO).matches("\\>").count(), 3);
    assert_eq!(staged(&e, DEMO).matches("\\---").count(), 3);
}

#[test]
fn a_fork_with_nothing_new_is_a_duplicate() {
    let e = fixture();
    let f = session_file(&e, FORK);
    let text = fs::read_to_string(&f).unwrap();
    let kept: Vec<&str> = text.lines().filter(|l| !l.contains("\"f-")).collect();
    fs::write(&f, kept.join("\n") + "\n").unwrap();
    set_mtime(&f, SystemTime::now() - Duration::from_secs(3600));
    let mut o = opts(&e, Reason::Shutdown, false);
    o.gate.min_user_turns = 2;
    o.gate.min_chars = 0;
    let r = prepare(&o).unwrap();
    assert_eq!(r.skipped.get(&SkipReason::DuplicateOfParent), Some(&1));
}

#[test]
fn gate_and_export_options_are_parameters() {
    let e = fixture();
    let mut o = opts(&e, Reason::Shutdown, true);
    o.gate = GateConfig {
        min_user_turns: 1,
        min_chars: 0,
        skip_subagents: false,
        ..GateConfig::default()
    };
    o.export = ExportOptions {
        tool_notes: false,
        ..ExportOptions::default()
    };
    let r = prepare(&o).unwrap();
    assert_eq!(
        r.exported, 9,
        "trivial, short and subagent sessions pass a looser gate"
    );
    assert_eq!(
        fs::read_to_string(e.stage.join("66666666-0000-4000-8000-000000000001.md")).unwrap(),
        "> hi\nok\n"
    );
    assert!(!staged(&e, DEMO).contains("[bash]") && !staged(&e, DEMO).contains("[!]"));
    // Changing the settings invalidates every record (new fingerprint).
    let r = run(&e, Reason::Shutdown, true);
    assert!(r.state_reset);
    assert_eq!(r.decided_from_state, 0);
}

#[test]
fn sessions_sharing_an_id_get_distinct_files() {
    let e = fixture();
    let src = session_file(&e, DEMO);
    let copy_dir = e.sessions.join("--copy--");
    fs::create_dir_all(&copy_dir).unwrap();
    let copy = copy_dir.join(src.file_name().unwrap());
    fs::copy(&src, &copy).unwrap();
    set_mtime(&copy, SystemTime::now() - Duration::from_secs(3600));
    let r = run(&e, Reason::Shutdown, true);
    assert_eq!(r.exported, 7);
    let names: Vec<String> = listing(&e.stage)
        .into_keys()
        .filter(|n| n.starts_with(DEMO))
        .collect();
    assert_eq!(names.len(), 2);
    assert!(names.contains(&format!("{DEMO}.md")));
    let again = run(&e, Reason::Shutdown, true);
    assert_eq!((again.exported, again.unchanged), (0, 7));
}

#[test]
fn the_state_file_must_live_outside_the_staging_folder() {
    let e = fixture();
    let mut o = opts(&e, Reason::Manual, true);
    fs::create_dir_all(&e.stage).unwrap();
    o.state_file = Some(e.stage.join("state.json"));
    let err = prepare(&o).unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
    assert!(
        prepare(&PrepareOptions::new(
            e.sessions.join("nope"),
            &e.stage,
            Reason::Manual
        ))
        .is_err()
    );
}

#[test]
fn a_v1_fork_without_ids_is_deduplicated_by_identical_lines() {
    let e = fixture();
    let dir = e.sessions.join("--v1--");
    fs::create_dir_all(&dir).unwrap();
    let line = |role: &str, text: &str| match role {
        "user" => format!(
            r#"{{"type":"message","timestamp":"t","message":{{"role":"user","content":"{text}"}}}}"#
        ),
        _ => format!(
            r#"{{"type":"message","timestamp":"t","message":{{"role":"assistant","content":[{{"type":"text","text":"{text}"}}]}}}}"#
        ),
    };
    let shared: Vec<String> = (1..=3)
        .flat_map(|i| {
            [
                line(
                    "user",
                    &format!("shared question number {i}, long enough to matter"),
                ),
                line(
                    "assistant",
                    &format!("shared answer {i} {}", "x".repeat(150)),
                ),
            ]
        })
        .collect();
    let parent = [r#"{"type":"session","id":"v1-parent","timestamp":"t","cwd":"/p"}"#.to_string()]
        .into_iter()
        .chain(shared.clone());
    let child = [r#"{"type":"session","id":"v1-child","timestamp":"t","cwd":"/p","branchedFrom":"/elsewhere/--v1--/parent.jsonl"}"#.to_string()]
        .into_iter()
        .chain(shared)
        .chain([line("user", "the child's own question"), line("assistant", "the child's own answer")]);
    for (name, lines) in [
        ("parent.jsonl", parent.collect::<Vec<_>>()),
        ("child.jsonl", child.collect()),
    ] {
        fs::write(dir.join(name), lines.join("\n") + "\n").unwrap();
        set_mtime(
            &dir.join(name),
            SystemTime::now() - Duration::from_secs(3600),
        );
    }
    run(&e, Reason::Manual, false);
    assert_eq!(
        staged(&e, "v1-child"),
        "> the child's own question\nthe child's own answer\n"
    );
    assert_eq!(
        staged(&e, "v1-parent").matches("> shared question").count(),
        3
    );
}

#[test]
fn the_report_serializes_as_the_cli_document() {
    let e = fixture();
    let r = run(&e, Reason::parse("agent_settled"), false);
    let doc = serde_json::to_value(&r).unwrap();
    let keys: Vec<&str> = doc
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys[..4],
        ["schema", "reason", "stage_dir", "sessions_seen"]
    );
    assert_eq!(doc["schema"], "mpt.feed.prepare/v1");
    assert_eq!(doc["reason"], "settled");
    assert_eq!(doc["skipped"]["subagent"], 1);
    assert!(doc.get("sessions").is_none());
}
