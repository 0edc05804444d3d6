//! The pi bridge's feeder as mpt: `mpt feed install-helper` links `mempalace-pi-session`, which the
//! test then runs the way the bridge does (by name on PATH, its flags, its env, reading stdout),
//! getting what `mpt feed prepare` gives; doctor's extension check says what the name resolves to.

use std::process::{Command, Output};

use serde_json::Value;

use super::cli::{feed, sessions_copy};
use crate::support::feed::{EXPORTED, contents, mine_source};
use crate::support::{TestEnv, json, stderr, stdout};

/// The bridge's spawn: `$MEMPALACE_FEED_BIN --prepare --reason R --wing W` (`extra` appended),
/// with the user's environment (PATH holding the helper's folder).
fn as_the_bridge_runs_it(env: &TestEnv, bin: &std::path::Path, extra: &[&str]) -> Output {
    let mut cmd = Command::new("mempalace-pi-session");
    cmd.env_clear()
        .current_dir(env.dir.path())
        .env("HOME", env.home())
        .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
        .env("XDG_STATE_HOME", env.path("state"))
        .env("PI_CODING_AGENT_SESSION_DIR", env.path("sessions"))
        .args([
            "--prepare",
            "--reason",
            "shutdown",
            "--wing",
            "wing_conversations",
        ])
        .args(extra);
    cmd.output().unwrap()
}

/// `mpt [FLAGS] feed install-helper DIR`: `flags` may hold `--json` and `--force`.
fn install_helper(env: &TestEnv, dir: &std::path::Path, flags: &[&str]) -> Output {
    install_helper_with(env, dir, flags, &[])
}

fn install_helper_with(
    env: &TestEnv,
    dir: &std::path::Path,
    flags: &[&str],
    vars: &[(&str, &str)],
) -> Output {
    let mut args: Vec<&str> = flags.iter().copied().filter(|f| *f == "--json").collect();
    args.extend(["feed", "install-helper", dir.to_str().unwrap()]);
    args.extend(flags.iter().copied().filter(|f| *f != "--json"));
    env.mpt(&args, vars)
}

fn install(env: &TestEnv, dir: &std::path::Path, path_has_it: bool) -> Value {
    let path = if path_has_it {
        format!("{}:/usr/bin:/bin", dir.display())
    } else {
        "/usr/bin:/bin".into()
    };
    let o = install_helper_with(env, dir, &["--json"], &[("PATH", path.as_str())]);
    assert!(o.status.success(), "{}", stderr(&o));
    json(&o)
}

#[test]
fn the_bridge_runs_mpt_as_its_feeder_and_gets_what_feed_prepare_gives() {
    let env = TestEnv::new();
    let s = sessions_copy(&env);
    let bin = env.path("bin");
    let first = install(&env, &bin, false);
    assert_eq!(first["schema"], "mpt.feed.install_helper/v1");
    assert_eq!(first["action"], "created");
    assert_eq!(first["bridge_runs_it"], false, "not on PATH yet: {first}");
    let again = install(&env, &bin, true);
    assert_eq!(again["action"], "unchanged");
    assert_eq!(again["bridge_runs_it"], true, "{again}");

    let o = as_the_bridge_runs_it(&env, &bin, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let src = mine_source(&o);
    let mut names: Vec<String> = contents(&src).into_keys().collect();
    let mut want: Vec<String> = EXPORTED.iter().map(|id| format!("{id}.md")).collect();
    names.sort();
    want.sort();
    assert_eq!(names, want, "the drop-in staged what prepare stages");

    // The same contract as `mpt feed prepare` on a re-run: byte-equal stdout, the same exit code.
    let rerun = as_the_bridge_runs_it(&env, &bin, &[]);
    let state = env.path("state").display().to_string();
    let sessions = s.display().to_string();
    let prepare = feed(
        &env,
        &[
            "feed",
            "prepare",
            "--reason",
            "shutdown",
            "--wing",
            "wing_conversations",
        ],
        &[
            ("PI_CODING_AGENT_SESSION_DIR", sessions.as_str()),
            ("XDG_STATE_HOME", state.as_str()),
        ],
    );
    assert_eq!(
        rerun.status.code(),
        prepare.status.code(),
        "{}",
        stderr(&rerun)
    );
    assert_eq!(stdout(&rerun), stdout(&prepare));

    // Exactly the bridge's flags: anything else is a usage error, nothing on stdout.
    for bad in [&["--sessions", "/tmp"][..], &["--json"][..]] {
        let o = as_the_bridge_runs_it(&env, &bin, bad);
        assert_eq!(o.status.code(), Some(2), "{bad:?}: {}", stderr(&o));
        assert!(o.stdout.is_empty(), "{bad:?}");
    }
    let mut no_prepare = Command::new(bin.join("mempalace-pi-session"));
    let o = no_prepare
        .env_clear()
        .args(["--reason", "shutdown"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--prepare"), "{}", stderr(&o));
}

#[test]
fn install_never_replaces_another_feeder_without_force_and_doctor_names_it() {
    let env = TestEnv::new();
    let bin = env.path("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let theirs = bin.join("mempalace-pi-session");
    crate::support::write_script(&theirs, "#!/bin/sh\necho MINE_SOURCE=/elsewhere\n");
    let ext_dir = env.home().join(".pi/agent/extensions");
    std::fs::create_dir_all(&ext_dir).unwrap();
    std::fs::write(
        ext_dir.join("mempalace.ts"),
        "const feed = process.env.MEMPALACE_FEED;\nconst dev = process.env.MEMPALACE_PI_DEVICE;\nconst mb = process.env.MEMPALACE_MAILBOX;\n",
    )
    .unwrap();
    let path = format!("{}:/usr/bin:/bin", bin.display());
    let feeder = |env: &TestEnv| -> String {
        let o = env.mpt(
            &["--json", "doctor", "--check", "extension"],
            &[("PATH", path.as_str())],
        );
        let v = json(&o);
        v["checks"][0]["evidence"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .find(|e| e.starts_with("feeder "))
            .unwrap_or_else(|| panic!("no feeder line: {v}"))
            .to_string()
    };
    assert!(feeder(&env).ends_with("(not mpt)"), "{}", feeder(&env));

    let o = install_helper(&env, &bin, &["--json"]);
    assert_eq!(o.status.code(), Some(4), "refused: {}", stdout(&o));
    assert_eq!(json(&o)["kind"], "refused");
    assert!(json(&o)["hint"].as_str().unwrap().contains("--force"));
    assert!(
        std::fs::read_to_string(&theirs)
            .unwrap()
            .contains("/elsewhere")
    );

    let o = install_helper(&env, &bin, &["--json", "--force"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(json(&o)["action"], "replaced");
    let kept = json(&o)["backup"].as_str().unwrap().to_string();
    assert!(
        std::fs::read_to_string(kept)
            .unwrap()
            .contains("/elsewhere")
    );
    assert!(
        feeder(&env).ends_with("is mpt's drop-in"),
        "{}",
        feeder(&env)
    );

    std::fs::remove_file(&theirs).unwrap();
    assert!(feeder(&env).contains("not found"), "{}", feeder(&env));
}

#[test]
fn force_never_overwrites_a_backup_and_says_what_was_there() {
    let env = TestEnv::new();
    let bin = env.path("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let target = bin.join("mempalace-pi-session");
    // The user's own backup, from before mpt.
    std::fs::write(
        bin.join("mempalace-pi-session.bak"),
        "the user's own backup",
    )
    .unwrap();
    let mut kept = Vec::new();
    for text in [
        "#!/bin/sh\necho first feeder\n",
        "#!/bin/sh\necho second feeder\n",
    ] {
        std::fs::remove_file(&target).ok();
        crate::support::write_script(&target, text);
        let o = install_helper(&env, &bin, &["--json", "--force"]);
        assert!(o.status.success(), "{}", stderr(&o));
        let j = json(&o);
        assert_eq!(j["action"], "replaced", "{j}");
        assert_eq!(j["replaced"]["kind"], "file", "{j}");
        assert_eq!(j["replaced"]["bytes"], text.len(), "{j}");
        let b = j["backup"].as_str().unwrap().to_string();
        assert_eq!(std::fs::read_to_string(&b).unwrap(), text, "{b}");
        kept.push(b);
    }
    assert_ne!(kept[0], kept[1], "a second backup gets a name of its own");
    assert_eq!(
        std::fs::read_to_string(&kept[0]).unwrap(),
        "#!/bin/sh\necho first feeder\n",
        "the first backup survives the second --force"
    );
    assert_eq!(
        std::fs::read_to_string(bin.join("mempalace-pi-session.bak")).unwrap(),
        "the user's own backup"
    );
    // A link is replaced and said to be one.
    std::fs::remove_file(&target).unwrap();
    std::os::unix::fs::symlink("/opt/other/feeder", &target).unwrap();
    let o = install_helper(&env, &bin, &["--force"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("a link to /opt/other/feeder was there: replaced"),
        "{}",
        stdout(&o)
    );
    // A directory is called one and never moved, --force or not.
    std::fs::remove_file(&target).unwrap();
    std::fs::create_dir_all(target.join("lib")).unwrap();
    std::fs::write(target.join("lib/keep.txt"), "kept").unwrap();
    for flags in [&["--json"][..], &["--json", "--force"]] {
        let o = install_helper(&env, &bin, flags);
        assert_eq!(o.status.code(), Some(4), "{}", stdout(&o));
        let msg = json(&o)["message"].as_str().unwrap().to_string();
        assert!(
            msg.contains("is a directory") && !msg.contains("file"),
            "{msg}"
        );
        assert_eq!(
            std::fs::read_to_string(target.join("lib/keep.txt")).unwrap(),
            "kept"
        );
    }
    let names: Vec<String> = std::fs::read_dir(&bin)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names.len(),
        4,
        "the folder, two backups, the user's .bak: {names:?}"
    );
}

#[test]
fn the_drop_in_feeds_pi_only_while_feed_prepare_feeds_every_harness_found() {
    let env = TestEnv::new();
    let s = sessions_copy(&env);
    let bin = env.path("bin");
    install(&env, &bin, true);
    let db = env.home().join(".local/share/opencode/opencode.db");
    let c = crate::support::opencode::schema_db(&db);
    crate::support::opencode::add_session(&c, 1, 4, 0);
    drop(c);

    let o = as_the_bridge_runs_it(&env, &bin, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let lines: Vec<String> = stdout(&o).lines().map(str::to_string).collect();
    assert_eq!(lines.len(), 1, "pi's line only: {lines:?}");
    assert!(!lines[0].contains("opencode"), "{lines:?}");
    assert!(
        !env.path("state/mpt/feed/opencode").exists(),
        "the bridge's drop-in never touches opencode"
    );

    let state = env.path("state").display().to_string();
    let sessions = s.display().to_string();
    let vars = [
        ("PI_CODING_AGENT_SESSION_DIR", sessions.as_str()),
        ("XDG_STATE_HOME", state.as_str()),
    ];
    let o = feed(&env, &["feed", "prepare", "--reason", "shutdown"], &vars);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let both: Vec<String> = stdout(&o).lines().map(str::to_string).collect();
    assert_eq!(both.len(), 2, "{both:?}");
    assert_eq!(both[0], lines[0], "pi's first, as before");
    assert!(both[1].ends_with("/mpt/feed/opencode/staged"), "{both:?}");
    let j = json(&feed(
        &env,
        &["--json", "feed", "prepare", "--reason", "shutdown"],
        &vars,
    ));
    let harnesses: Vec<&str> = j["harnesses"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["harness"].as_str().unwrap())
        .collect();
    assert_eq!(harnesses, ["pi", "opencode"], "{j}");
    assert_eq!(
        j["harnesses"][1]["wing"], "wing_opencode",
        "each its own wing"
    );
    // --out names one folder: with two harnesses named it is a usage error naming the fix.
    let o = feed(
        &env,
        &[
            "feed",
            "prepare",
            "--reason",
            "shutdown",
            "--harness",
            "pi",
            "--harness",
            "opencode",
            "--out",
            "/tmp/x",
        ],
        &vars,
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("--out names one staging folder"),
        "{}",
        stderr(&o)
    );
}
