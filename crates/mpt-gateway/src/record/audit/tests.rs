//! The audit log's tests: the chain across rotation and reopen, cuts and crash-left checkpoints,
//! group commit, and the head rewritten in place.
use super::*;

fn event(n: u64) -> Event {
    Event {
        stage: Event::REQUEST,
        device: Some("lap".into()),
        route: "/mcp".into(),
        class: "read".into(),
        allowed: true,
        rule: "role:member".into(),
        bytes_in: n,
        ..Event::default()
    }
}

#[test]
fn records_chain_across_rotation_and_reopen_where_they_ended() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = StateDir {
        root: tmp.path().to_path_buf(),
    };
    let (mut log, note) = AuditLog::open(&dir, 600).unwrap();
    assert!(note.is_none());
    for n in 0..6 {
        log.append(&event(n)).unwrap();
    }
    drop(log);
    assert!(rotated_name(&dir, 1).exists(), "rotated by size");
    let (mut log, _) = AuditLog::open(&dir, 600).unwrap();
    assert_eq!(log.append(&event(9)).unwrap(), 7);
    let v = read::verify(&dir).unwrap();
    assert!(v.bad.is_none(), "{:?}", v.bad);
    assert_eq!(v.records, 7);
    assert_eq!(crate::state::mode(&dir.audit()), Some(0o600));
}

#[test]
fn a_head_written_by_rename_is_brought_to_its_fixed_size_at_open() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = StateDir {
        root: tmp.path().to_path_buf(),
    };
    let (mut log, _) = AuditLog::open(&dir, 1 << 20).unwrap();
    log.append(&event(1)).unwrap();
    drop(log);
    // An older gateway's head: compact JSON, shorter than HEAD_LEN.
    let old = Head::load(&dir.audit_head()).unwrap().unwrap();
    std::fs::write(dir.audit_head(), serde_json::to_string(&old).unwrap()).unwrap();
    let (mut log, note) = AuditLog::open(&dir, 1 << 20).unwrap();
    assert!(note.is_none(), "{note:?}");
    let len = || std::fs::metadata(dir.audit_head()).unwrap().len();
    assert_eq!(len(), HEAD_LEN as u64);
    log.append(&event(2)).unwrap();
    assert_eq!(len(), HEAD_LEN as u64);
    assert_eq!(Head::load(&dir.audit_head()).unwrap().unwrap().seq, 2);
}

#[test]
fn a_gateway_that_wrote_no_record_opens_again() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = StateDir {
        root: tmp.path().to_path_buf(),
    };
    drop(AuditLog::open(&dir, 1 << 20).unwrap());
    assert!(
        dir.audit_head().exists(),
        "the head is held open from the start"
    );
    let (mut log, note) = AuditLog::open(&dir, 1 << 20).unwrap();
    assert!(note.is_none(), "{note:?}");
    assert_eq!(log.append(&event(1)).unwrap(), 1);
}

#[test]
fn the_checkpoint_is_rewritten_in_place_at_its_fixed_size_and_private() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = StateDir {
        root: tmp.path().to_path_buf(),
    };
    let (mut log, _) = AuditLog::open(&dir, 1 << 20).unwrap();
    let inode = |p: &Path| std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(p).unwrap());
    log.append(&event(1)).unwrap();
    let first = inode(&dir.audit_head());
    for n in 2..40 {
        log.append(&event(n)).unwrap();
    }
    let meta = std::fs::metadata(dir.audit_head()).unwrap();
    assert_eq!(meta.len(), HEAD_LEN as u64);
    assert_eq!(
        std::os::unix::fs::PermissionsExt::mode(&meta.permissions()) & 0o777,
        0o600
    );
    assert_eq!(
        inode(&dir.audit_head()),
        first,
        "no temp file renamed over it"
    );
    let head = Head::load(&dir.audit_head()).unwrap().unwrap();
    assert_eq!(head.seq, 39);
    drop(log);
    let (_, note) = AuditLog::open(&dir, 1 << 20).unwrap();
    assert!(
        note.is_none(),
        "reopens where its checkpoint says: {note:?}"
    );
}

#[test]
fn a_log_cut_behind_its_checkpoint_does_not_open() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = StateDir {
        root: tmp.path().to_path_buf(),
    };
    let (mut log, _) =
        AuditLog::open(&dir, mpt_base::config::gateway::DEFAULT_AUDIT_MAX_BYTES).unwrap();
    log.append(&event(1)).unwrap();
    log.append(&event(2)).unwrap();
    drop(log);
    let text = std::fs::read_to_string(dir.audit()).unwrap();
    let first = text.lines().next().unwrap();
    std::fs::write(dir.audit(), format!("{first}\n")).unwrap();
    let e = AuditLog::open(&dir, mpt_base::config::gateway::DEFAULT_AUDIT_MAX_BYTES)
        .err()
        .unwrap();
    assert_eq!(e.exit().code(), 3, "{}", e.message);
}

#[test]
fn a_checkpoint_left_behind_by_a_crash_opens_when_the_chain_holds_from_it() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = StateDir {
        root: tmp.path().to_path_buf(),
    };
    let max = mpt_base::config::gateway::DEFAULT_AUDIT_MAX_BYTES;
    let (mut log, _) = AuditLog::open(&dir, max).unwrap();
    log.append(&event(1)).unwrap();
    let behind = std::fs::read(dir.audit_head()).unwrap();
    for n in 2..5 {
        log.append(&event(n)).unwrap();
    }
    drop(log);
    // The power cut: the checkpoint on disk is record 1's, the log holds 4.
    std::fs::write(dir.audit_head(), &behind).unwrap();
    let (mut log, note) = AuditLog::open(&dir, max).unwrap();
    assert!(note.unwrap().contains("records 2 to 4"), "named");
    assert_eq!(log.append(&event(5)).unwrap(), 5);
    drop(log);
    assert!(read::verify(&dir).unwrap().bad.is_none());

    // A record past the checkpoint whose link is broken is not a crash: refused.
    std::fs::write(dir.audit_head(), &behind).unwrap();
    let text = std::fs::read_to_string(dir.audit()).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let mut forged = lines.clone();
    forged.remove(1);
    std::fs::write(dir.audit(), forged.join("\n") + "\n").unwrap();
    let e = AuditLog::open(&dir, max).err().unwrap();
    assert_eq!(e.exit().code(), 3, "{}", e.message);
}

#[test]
fn one_fsync_covers_every_record_appended_before_it() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = StateDir {
        root: tmp.path().to_path_buf(),
    };
    let (mut log, _) =
        AuditLog::open(&dir, mpt_base::config::gateway::DEFAULT_AUDIT_MAX_BYTES).unwrap();
    let a = log.append(&event(1)).unwrap();
    let b = log.append(&event(2)).unwrap();
    let synced = Synced::default();
    let mut syncs = 0;
    synced
        .through(a, || {
            syncs += 1;
            log.sync_handle()
        })
        .unwrap();
    synced
        .through(b, || {
            syncs += 1;
            log.sync_handle()
        })
        .unwrap();
    assert_eq!(syncs, 1, "record {b} was on disk with record {a}");
    let c = log.append(&event(3)).unwrap();
    synced
        .through(c, || {
            syncs += 1;
            log.sync_handle()
        })
        .unwrap();
    assert_eq!(syncs, 2, "a record appended after the fsync needs its own");
}

/// The line a record had before the log kept its buffers: the record serialised on its own, the
/// hash of `prev` and those bytes added as the last field (what `audit verify` recomputes).
fn line_as_before(e: &Event, seq: u64, ts: &str, prev: &str) -> String {
    use sha2::{Digest, Sha256};
    let body = serde_json::to_string(&Record::of(e, seq, ts, prev)).unwrap();
    let hash = mpt_base::hex::hex(&Sha256::digest(format!("{prev}{body}").as_bytes()));
    format!("{},\"hash\":\"{hash}\"}}", body.strip_suffix('}').unwrap())
}

#[test]
fn each_line_and_the_checkpoint_are_the_bytes_they_were_before_the_buffers() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = StateDir {
        root: tmp.path().to_path_buf(),
    };
    let (mut log, _) = AuditLog::open(&dir, 1 << 20).unwrap();
    let full = Event {
        stage: Event::RESPONSE,
        device: Some("lap \"quoted\" \u{e9}".into()),
        token_id: Some("AbCdEfGhIj".into()),
        peer: Some("127.0.0.1".into()),
        route: "/mcp".into(),
        rpc: Some("tools/call".into()),
        tool: Some("mempalace_add_drawer".into()),
        class: "write".into(),
        wings: vec!["wing_lap".into(), "wing_b".into()],
        rewrites: vec!["rewrote:/added_by".into()],
        allowed: true,
        rule: "role:member".into(),
        status: None,
        upstream_status: Some(200),
        latency_ms: Some(12),
        bytes_in: 345,
        bytes_out: Some(6789),
        end: Some("complete"),
        aggregate: None,
        pruned: None,
        sha256: None,
    };
    // A long record first: the kept buffer is longer than the short one written into it next.
    // A request refused before any decision: its status, and `decision: invalid`.
    let invalid = Event {
        allowed: false,
        rule: "mcp:header_mismatch".into(),
        status: Some(400),
        ..event(8)
    };
    let events = [full, event(7), invalid, Event::default()];
    for e in &events {
        log.append(e).unwrap();
    }
    let text = std::fs::read_to_string(dir.audit()).unwrap();
    let mut prev = chain::GENESIS.to_string();
    for (i, (line, e)) in text.lines().zip(&events).enumerate() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let ts = v["ts"].as_str().unwrap();
        assert_eq!(
            line,
            line_as_before(e, i as u64 + 1, ts, &prev),
            "record {}",
            i + 1
        );
        prev = v["hash"].as_str().unwrap().to_string();
    }
    assert_eq!(text.lines().count(), events.len());
    let third: serde_json::Value = serde_json::from_str(text.lines().nth(2).unwrap()).unwrap();
    assert_eq!(
        (third["decision"].as_str(), third["status"].as_u64()),
        (Some("invalid"), Some(400))
    );
    let head = serde_json::to_string(&Head {
        schema: mpt_base::schema::GATEWAY_AUDIT_HEAD.into(),
        seq: 4,
        hash: prev,
        start: Some(Start {
            seq: 1,
            prev: chain::GENESIS.into(),
        }),
    })
    .unwrap();
    let on_disk = std::fs::read_to_string(dir.audit_head()).unwrap();
    assert_eq!(on_disk.len(), HEAD_LEN);
    assert_eq!(on_disk.trim_end(), head);
    assert!(read::verify(&dir).unwrap().bad.is_none());
}

#[test]
fn a_record_time_is_formatted_as_before_across_seconds() {
    let as_before = |ms: i64| {
        let secs = mpt_base::time::format_iso_utc(ms.div_euclid(1000));
        format!("{}.{:03}Z", secs.trim_end_matches('Z'), ms.rem_euclid(1000))
    };
    let mut ts = Ts::default();
    let base = 1_764_575_545_000_i64; // 2025-12-01T07:52:25Z
    for ms in [
        base + 605,
        base + 7,
        base + 999,
        base + 1000,
        base + 1042,
        base + 61_000 + 99,
        base + 1042,
        base,
        0,
        base + 86_400_000 + 500,
    ] {
        assert_eq!(ts.at(ms), as_before(ms), "at {ms}");
    }
}

#[test]
fn a_record_whose_checkpoint_cannot_be_written_is_taken_back_out() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = StateDir {
        root: tmp.path().to_path_buf(),
    };
    let (mut log, _) = AuditLog::open(&dir, 1 << 20).unwrap();
    log.append(&event(1)).unwrap();
    let before = std::fs::read(dir.audit()).unwrap();
    // The head's descriptor refuses writes (as a failing disk would; as root no mode can).
    log.head_file = File::open(dir.audit_head()).unwrap();
    let refused = Event {
        tool: Some("mempalace_add_drawer".into()),
        ..event(2)
    };
    assert!(log.append(&refused).is_err());
    assert_eq!(
        std::fs::read(dir.audit()).unwrap(),
        before,
        "no record says allow for a write that was refused"
    );
    log.head_file = open_private_rw(&dir.audit_head()).unwrap();
    assert_eq!(
        log.append(&event(3)).unwrap(),
        2,
        "the chain goes on where it was"
    );
    drop(log);
    let v = read::verify(&dir).unwrap();
    assert!(v.bad.is_none(), "{:?}", v.bad);
    assert_eq!(v.records, 2);
}

#[test]
fn a_log_removed_or_cut_under_the_gateway_refuses_every_append() {
    for cut in [true, false] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = StateDir {
            root: tmp.path().to_path_buf(),
        };
        let (mut log, _) = AuditLog::open(&dir, 1 << 20).unwrap();
        log.append(&event(1)).unwrap();
        log.append(&event(2)).unwrap();
        if cut {
            let f = std::fs::OpenOptions::new()
                .write(true)
                .open(dir.audit())
                .unwrap();
            f.set_len(10).unwrap();
        } else {
            std::fs::remove_file(dir.audit()).unwrap();
        }
        let e = log.append(&event(3)).unwrap_err().to_string();
        assert!(
            e.contains(if cut { "was cut" } else { "was removed" }),
            "{e}"
        );
        assert!(log.append(&event(4)).is_err(), "and every one after");
    }
}
