//! The testbed is provisioned on first use: once when its marker is absent, never when present,
//! and once only however many tests ask at the same time (the file lock).

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Barrier};

use crate::support::testbed::{VENV, ensure, lock, ready};

/// What provision.sh leaves behind, written by hand: the markers `ready` reads.
fn mark_ready(root: &Path) {
    std::fs::create_dir_all(root.join(VENV)).unwrap();
    std::fs::write(root.join(VENV).join(".complete"), "").unwrap();
    let onnx = root.join("model-home/.cache/chroma/onnx_models/all-MiniLM-L6-v2/onnx");
    std::fs::create_dir_all(&onnx).unwrap();
    std::fs::write(onnx.join("model.onnx"), "").unwrap();
    std::fs::write(onnx.join("vocab.txt"), "").unwrap();
}

#[test]
fn an_absent_marker_provisions_once_however_many_tests_ask_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("testbed");
    assert!(!ready(&root));
    let runs = Arc::new(AtomicUsize::new(0));
    let start = Arc::new(Barrier::new(8));
    let threads: Vec<_> = (0..8)
        .map(|_| {
            let (root, runs, start) = (root.clone(), runs.clone(), start.clone());
            std::thread::spawn(move || {
                start.wait();
                ensure(&root, |r| {
                    runs.fetch_add(1, Ordering::SeqCst);
                    mark_ready(r);
                })
            })
        })
        .collect();
    let provisioned: usize = threads
        .into_iter()
        .map(|t| t.join().unwrap() as usize)
        .sum();
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    assert_eq!(provisioned, 1);
    assert!(ready(&root));
}

#[test]
fn a_present_marker_is_not_provisioned_again() {
    let dir = tempfile::tempdir().unwrap();
    mark_ready(dir.path());
    assert!(!ensure(dir.path(), |_| panic!(
        "provisioned a ready testbed"
    )));
}

#[test]
fn a_half_provisioned_testbed_is_provisioned() {
    // A venv without its model (an interrupted provision.sh) is not ready.
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(VENV)).unwrap();
    std::fs::write(dir.path().join(VENV).join(".complete"), "").unwrap();
    assert!(!ready(dir.path()));
    assert!(ensure(dir.path(), mark_ready));
}

#[test]
fn a_test_waiting_on_the_lock_checks_the_marker_again_before_provisioning() {
    // Another process holds the lock while it provisions; the waiter then finds the testbed ready.
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    let held = lock(&root.join(".provision.lock"));
    let (asked_tx, asked_rx) = std::sync::mpsc::channel();
    let waiter = {
        let root = root.clone();
        std::thread::spawn(move || {
            asked_tx.send(()).unwrap();
            ensure(&root, |_| panic!("provisioned twice"))
        })
    };
    asked_rx.recv().unwrap();
    mark_ready(&root);
    drop(held);
    assert!(!waiter.join().unwrap());
}
