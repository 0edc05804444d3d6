//! The flush timer's cron road (issue 56, item 14; `mpt join` prints it where no systemd user
//! manager runs): its install line adds one cron entry (run twice: still one), the entry's command
//! run as cron runs it drains the queue, its remove line removes it.
//! `crontab` is a stand-in keeping the table in the test's HOME (cron is not on every machine,
//! and the real one writes outside it); the entry itself runs in `sh` with cron's bare PATH.

use serde_json::json;

use super::*;
use crate::support::primary::PrimaryOpts;
use crate::support::{Primary, TestEnv, write_script};

/// The cron lines `mpt join` prints where no systemd user manager runs: the install command and
/// the remove command, for the mpt at `mpt`.
fn cron_commands(mpt: &std::path::Path) -> (String, String) {
    match mpt::join::timer::cron(mpt, String::new()) {
        mpt::join::timer::Timer::Cron {
            install, remove, ..
        } => (install, remove),
        other => panic!("{other:?}"),
    }
}

/// `bash -c line` with a `crontab` that keeps its table in HOME/crontab (read whole before it is
/// written, as the real one installs a new table only once it has read it).
fn run_with_crontab(env: &TestEnv, line: &str) {
    let bin = env.path("bin");
    std::fs::create_dir_all(&bin).unwrap();
    write_script(
        &bin.join("crontab"),
        "#!/bin/sh\ncase \"$1\" in\n  -l) [ -f \"$HOME/crontab\" ] && cat \"$HOME/crontab\" || { echo 'no crontab' >&2; exit 1; } ;;\n  -) t=$(cat); printf '%s\\n' \"$t\" > \"$HOME/crontab\" ;;\n  *) exit 2 ;;\nesac\n",
    );
    let o = std::process::Command::new("bash")
        .arg("-c")
        .arg(line)
        .env_clear()
        .env("HOME", env.home())
        .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "{line}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

fn table(env: &TestEnv) -> String {
    std::fs::read_to_string(env.home().join("crontab")).unwrap_or_default()
}

#[test]
fn the_readmes_flush_timer_installs_once_drains_the_queue_and_removes_cleanly() {
    let env = TestEnv::new();
    let p = Primary::start(&env, &env.palace("primary"), PrimaryOpts::default());
    let url = p.url();
    // The device as `mpt join` leaves it: its settings in mpt's config file, mpt where `cargo
    // install` puts it.
    let conf = env.home().join(".config/mpt");
    std::fs::create_dir_all(&conf).unwrap();
    std::fs::write(
        conf.join("config.json"),
        json!({"remote_url": url, "device": DEVICE, "edge": true}).to_string(),
    )
    .unwrap();
    let cargo_bin = env.home().join(".cargo/bin");
    std::fs::create_dir_all(&cargo_bin).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_mpt"), cargo_bin.join("mpt")).unwrap();
    // A user's own entry stays.
    std::fs::write(env.home().join("crontab"), "0 3 * * * backup.sh\n").unwrap();

    let (install, remove) = cron_commands(&cargo_bin.join("mpt"));
    run_with_crontab(&env, &install);
    run_with_crontab(&env, &install);
    let t = table(&env);
    assert_eq!(
        t.matches("# mpt-flush").count(),
        1,
        "one entry, however often: {t}"
    );
    assert!(t.contains("backup.sh"), "{t}");

    let id = enqueue(
        &env,
        &url,
        "kg_add",
        &json!({"subject": "a", "predicate": "b", "object": "c"}),
    );
    // The entry's command, as cron runs it: `sh -c`, HOME set, a bare PATH, nothing else.
    let entry = t.lines().find(|l| l.contains("# mpt-flush")).unwrap();
    let command: String = entry.splitn(6, ' ').nth(5).unwrap().to_string();
    let o = std::process::Command::new("/bin/sh")
        .arg("-c")
        .arg(&command)
        .env_clear()
        .env("HOME", env.home())
        .env("PATH", "/usr/bin:/bin")
        .env("SHELL", "/bin/sh")
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "{command}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let done = store(&env)
        .list(&[mpt_outbox::OpState::Done], 10, false)
        .unwrap();
    assert_eq!(done.len(), 1, "the timer's flush drained it");
    assert_eq!(done[0].op_id, id);

    run_with_crontab(&env, &remove);
    let t = table(&env);
    assert!(!t.contains("mpt-flush") && t.contains("backup.sh"), "{t}");
}
