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
    assert_eq!(crate::gateway::state::mode(&dir.audit()), Some(0o600));
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
        AuditLog::open(&dir, crate::config::gateway::DEFAULT_AUDIT_MAX_BYTES).unwrap();
    log.append(&event(1)).unwrap();
    log.append(&event(2)).unwrap();
    drop(log);
    let text = std::fs::read_to_string(dir.audit()).unwrap();
    let first = text.lines().next().unwrap();
    std::fs::write(dir.audit(), format!("{first}\n")).unwrap();
    let e = AuditLog::open(&dir, crate::config::gateway::DEFAULT_AUDIT_MAX_BYTES)
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
    let max = crate::config::gateway::DEFAULT_AUDIT_MAX_BYTES;
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
        AuditLog::open(&dir, crate::config::gateway::DEFAULT_AUDIT_MAX_BYTES).unwrap();
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
