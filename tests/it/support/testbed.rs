//! The real-MemPalace testbed, provisioned on first use: tests/testbed/provision.sh (and sshd.sh or
//! tmux.sh where a test needs them) runs once, under a file lock, since tests run in parallel.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

pub const VENV: &str = "venv-mempalace-3.11.0";
const MODEL_ONNX: &str = "model-home/.cache/chroma/onnx_models/all-MiniLM-L6-v2/onnx";

/// The testbed root: `MPT_TESTBED` or `<repo>/target/testbed`.
pub fn root() -> PathBuf {
    std::env::var_os("MPT_TESTBED")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target/testbed"))
}

/// What provision.sh leaves when it has finished: the venv's marker and the seeded model.
pub fn ready(root: &Path) -> bool {
    root.join(VENV).join(".complete").is_file()
        && root.join(MODEL_ONNX).join("model.onnx").is_file()
        && root.join(MODEL_ONNX).join("vocab.txt").is_file()
}

/// An exclusive `flock` on `path` (created if missing), released when the file is dropped.
/// Other threads and other processes (another test binary) wait for it.
pub fn lock(path: &Path) -> File {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let f = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .unwrap_or_else(|e| panic!("cannot open the lock {}: {e}", path.display()));
    // SAFETY: flock on a descriptor this function owns.
    let rc = unsafe { libc::flock(std::os::fd::AsRawFd::as_raw_fd(&f), libc::LOCK_EX) };
    assert_eq!(
        rc,
        0,
        "flock {}: {}",
        path.display(),
        std::io::Error::last_os_error()
    );
    f
}

/// Makes `root` ready: nothing when it is; otherwise takes the lock, checks again (another test
/// may have provisioned it meanwhile) and runs `provision` once. Returns whether it provisioned.
pub fn ensure(root: &Path, provision: impl FnOnce(&Path)) -> bool {
    if ready(root) {
        return false;
    }
    let _held = lock(&root.join(".provision.lock"));
    if ready(root) {
        return false;
    }
    provision(root);
    assert!(
        ready(root),
        "provisioning finished but the testbed at {} is still incomplete",
        root.display()
    );
    true
}

/// Runs one of tests/testbed/*.sh with `MPT_TESTBED` set to `root`; panics with its output.
fn run_script(script: &str, root: &Path) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/testbed")
        .join(script);
    eprintln!(
        "testbed: running {} (once; later tests reuse it)",
        path.display()
    );
    let o = Command::new("bash")
        .arg(&path)
        .env("MPT_TESTBED", root)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", path.display()));
    assert!(
        o.status.success(),
        "{} failed:\n{}{}",
        path.display(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
}

/// Runs an installer among tests/testbed/*.sh (`args` after it) with the test's environment (its
/// `MPT_TESTBED`); the path it prints. It failing (a registry unreachable) fails the test with
/// its stderr, never skips it.
pub fn installed(script: &str, args: &[&str], what: &str) -> PathBuf {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/testbed")
        .join(script);
    let o = Command::new("bash")
        .arg(&path)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", path.display()));
    assert!(
        o.status.success(),
        "{what} is not installed ({}):\n{}",
        path.display(),
        String::from_utf8_lossy(&o.stderr)
    );
    PathBuf::from(String::from_utf8_lossy(&o.stdout).trim())
}

/// The ready testbed root, provisioned by tests/testbed/provision.sh on first use.
pub fn provisioned() -> PathBuf {
    static ROOT: OnceLock<PathBuf> = OnceLock::new();
    ROOT.get_or_init(|| {
        let root = root();
        ensure(&root, |r| run_script("provision.sh", r));
        root
    })
    .clone()
}

/// sshd, rsync and ssh-keygen, installed by tests/testbed/sshd.sh on first use.
pub fn ensure_sshd(present: impl Fn() -> bool) {
    static DONE: OnceLock<()> = OnceLock::new();
    ensure_packages(&DONE, "sshd.sh", "sshd, rsync or ssh-keygen", present);
}

/// tmux, installed by tests/testbed/tmux.sh on first use.
pub fn ensure_tmux(present: impl Fn() -> bool) {
    static DONE: OnceLock<()> = OnceLock::new();
    ensure_packages(&DONE, "tmux.sh", "tmux", present);
}

/// Runs `script` (an apt-get install, tests/testbed/debian.sh) once per test binary when
/// `present` says something is missing. One lock for every such script: apt-get holds its own
/// lock, so two installs at once would fail; this one waits for the other.
fn ensure_packages(done: &OnceLock<()>, script: &str, what: &str, present: impl Fn() -> bool) {
    done.get_or_init(|| {
        if present() {
            return;
        }
        let root = root();
        let _held = lock(&root.join(".apt.lock"));
        if !present() {
            run_script(script, &root);
        }
        assert!(
            present(),
            "tests/testbed/{script} ran but {what} is still missing"
        );
    });
}
