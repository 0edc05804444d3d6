//! Check `extension`: the version gate of the DEPLOYED pi extension (never the repo): resolved
//! through every symlink, dated by mtime, and the capability tokens it carries.

use super::{Check, Inputs, Status};
use mpt_feed::dropin::{feed_bin_name, resolve_feed_bin, same_file};
use mpt_palace::harness::pi::{self, CAPABILITIES, EDGE_TOKEN};

pub fn check(inputs: &Inputs) -> Check {
    let c = pi_extension(inputs);
    [
        opencode_feeder(inputs),
        claude_feeder(inputs),
        codex_feeder(inputs),
    ]
    .into_iter()
    .flatten()
    .fold(c, Check::evidence)
}

fn pi_extension(inputs: &Inputs) -> Check {
    let id = "extension";
    let agent_dir = match pi::agent_dir(&inputs.env) {
        Ok(d) => d,
        Err(e) => return Check::new(id, Status::Skip, e.message),
    };
    if !agent_dir.exists() {
        return Check::new(
            id,
            Status::Skip,
            "pi is not installed for this user (no agent dir)",
        )
        .evidence(format!("looked for {}", agent_dir.display()));
    }
    let ext = match pi::extension(&agent_dir) {
        Ok(Some(e)) => e,
        Ok(None) => {
            return Check::new(id, Status::Warn, "pi is installed without the MemPalace extension: its agent has no palace tools")
                .evidence(format!("no {}", agent_dir.join("extensions/mempalace.ts").display()))
                .fix("deploy the bridge extension to ~/.pi/agent/extensions/mempalace.ts (see the bridge README)");
        }
        Err(e) => {
            return Check::new(id, Status::Fail, e.message.clone()).fix(e.hint.unwrap_or_default());
        }
    };
    let date = ext
        .modified
        .map(iso_date)
        .unwrap_or_else(|| "unknown".into());
    let mut c = Check::new(id, Status::Ok, "");
    c = c.evidence(format!(
        "{} -> {} (modified {date})",
        ext.path.display(),
        ext.resolved.display()
    ));
    let mut missing = Vec::new();
    for cap in CAPABILITIES {
        let n = ext.count(cap.token);
        c = c.evidence(format!(
            "{}: {n} line(s) ({}, since {})",
            cap.token, cap.what, cap.since
        ));
        if n == 0 {
            missing.push(cap);
        }
    }
    c = c.evidence(feeder(&inputs.env));
    if let Ok(config) = &inputs.config {
        c = c.evidence(mpt_feed::fleet::destination(config, &inputs.env));
    }
    let edge_opt_in = inputs
        .config
        .as_ref()
        .is_ok_and(|c| c.edge_opt_in && c.remote.is_some());
    let edge_lines = ext.count(EDGE_TOKEN);
    c = c.evidence(format!(
        "{EDGE_TOKEN}: {edge_lines} line(s) (the edge branch in createClient())"
    ));
    if missing.is_empty() && !(edge_opt_in && edge_lines == 0) {
        c.summary = format!("the deployed copy ({date}) carries feeding, stamping and the mailbox");
        return c;
    }
    c.status = Status::Fail;
    if missing.is_empty() {
        c.summary = "MEMPALACE_EDGE=1 is set, but the deployed extension has no edge branch: pi never reaches `mpt edge`".into();
        c.fix = Some(
            "run `mpt edge wire pi` (it puts the edge in pi's path), or update the extension"
                .into(),
        );
        return c;
    }
    let names: Vec<&str> = missing.iter().map(|m| m.what).collect();
    c.summary = format!(
        "the deployed copy ({date}) cannot do {}: the env vars may be set, but the code is absent",
        names.join(", ")
    );
    let fixes: Vec<&str> = missing.iter().map(|m| m.fallback).collect();
    c.fix = Some(format!(
        "update the baked extension, or meanwhile: {}",
        fixes.join("; ")
    ));
    c
}

fn iso_date(t: std::time::SystemTime) -> String {
    let secs = t
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    mpt_base::time::format_iso_utc(secs)
}

/// What feeds opencode's conversations here: no bridge does, so `mpt feed` run by the user (or a
/// timer); its database, whether this mpt reads its schema, and when it was last fed. `None`
/// when opencode has neither a database nor a config here.
fn opencode_feeder(inputs: &Inputs) -> Option<String> {
    use mpt_feed::opencode::{db, schema};
    let env = &inputs.env;
    let db_path = mpt_palace::harness::opencode::database(env)?;
    let cmd = "`mpt feed mine --harness opencode --reason manual`";
    if !db_path.is_file() {
        let installed = mpt_palace::harness::opencode::global_dir(env).is_some_and(|d| d.is_dir());
        return installed.then(|| {
            format!(
                "feeder for opencode: nothing to feed yet (no database at {})",
                db_path.display()
            )
        });
    }
    let readable = match db::schema_key(&db_path) {
        Ok(Some(k)) => match schema::known(&k) {
            Some(s) => format!("schema of opencode {}", s.version),
            None => format!("an unknown schema ({k}): skipped until an mpt that knows it"),
        },
        Ok(None) => "no migration journal: skipped".to_string(),
        Err(e) => format!("unreadable ({e}): skipped"),
    };
    let wing = inputs
        .config
        .as_ref()
        .map(|c| c.feed.opencode_wing.clone())
        .unwrap_or_else(|_| mpt_base::config::feed::DEFAULT_OPENCODE_WING.to_string());
    let last = last_fed(env, "opencode");
    let last = last.map_or("never fed".to_string(), |t| {
        format!("last fed {}", iso_date(t))
    });
    Some(format!(
        "feeder for opencode: {cmd} (no bridge feeds opencode: run it, or schedule it), into {wing}; {} ({readable}); {last}",
        db_path.display()
    ))
}

/// What the bridge's feeder (`MEMPALACE_FEED_BIN`, default `mempalace-pi-session`) resolves to:
/// mpt's drop-in, another program, or nothing.
fn feeder(env: &mpt_base::config::Env) -> String {
    let name = feed_bin_name(env);
    let Some(found) = resolve_feed_bin(env) else {
        return format!(
            "feeder {name} (MEMPALACE_FEED_BIN): not found, so the bridge cannot feed; `mpt feed install-helper` links mpt's drop-in"
        );
    };
    let is_mpt = std::env::current_exe().is_ok_and(|exe| same_file(&found, &exe))
        || std::fs::canonicalize(&found).is_ok_and(|p| p.file_name().is_some_and(|n| n == "mpt"));
    if is_mpt {
        format!(
            "feeder {name} (MEMPALACE_FEED_BIN): {} is mpt's drop-in",
            found.display()
        )
    } else {
        format!(
            "feeder {name} (MEMPALACE_FEED_BIN): {} (not mpt)",
            found.display()
        )
    }
}

/// What feeds Claude Code's transcripts here: mpt's hooks (`mpt edge wire claude --hooks`),
/// MemPalace's own, both (filed twice: the config check warns) or nothing; into which wing, and
/// when mpt last fed them. `None` when Claude Code has not run here.
fn claude_feeder(inputs: &Inputs) -> Option<String> {
    use mpt_palace::harness::{claude, wire::hooks};
    let env = &inputs.env;
    let home = env.home().ok()?;
    let dir = claude::config_dir(env, &home);
    if !dir.is_dir() && !claude::state_file(env, &home).exists() {
        return None;
    }
    let found = hooks::read(&claude::settings_file(env, &home)).unwrap_or_default();
    let by = |o| found.iter().any(|h: &hooks::Hook| h.owner == o);
    let who = match (by(hooks::Owner::Mpt), by(hooks::Owner::Mempalace)) {
        (true, false) => "mpt's SessionEnd/PreCompact hooks run `mpt feed mine --harness claude`",
        (true, true) => {
            "mpt's hooks and MemPalace's own both mine its transcripts (each conversation filed twice)"
        }
        (false, true) => {
            "MemPalace's own hooks mine its transcripts (`mpt edge wire claude --hooks --replace-mempalace-hooks` feeds them through mpt)"
        }
        (false, false) => {
            "nothing feeds Claude Code on its own: `mpt edge wire claude --hooks` adds mpt's hooks, or run `mpt feed mine --harness claude`"
        }
    };
    let wing = inputs
        .config
        .as_ref()
        .map(|c| c.feed.claude_wing.clone())
        .unwrap_or_else(|_| mpt_base::config::feed::DEFAULT_CLAUDE_WING.to_string());
    let last = last_fed(env, "claude");
    let last = last.map_or("never fed by mpt".to_string(), |t| {
        format!("last fed {}", iso_date(t))
    });
    Some(format!(
        "feeder for claude: {who}, into {wing}; {}; {last}",
        dir.join("projects").display()
    ))
}

/// What feeds Codex's rollouts here: no hook does, so `mpt feed mine --harness codex` run by the
/// user (or a timer); into which wing, and when mpt last fed them. `None` when Codex is not here.
fn codex_feeder(inputs: &Inputs) -> Option<String> {
    use mpt_palace::harness::codex;
    let env = &inputs.env;
    let home = env.home().ok()?;
    if !codex::home_dir(env, &home).is_dir() {
        return None;
    }
    let wing = inputs
        .config
        .as_ref()
        .map(|c| c.feed.codex_wing.clone())
        .unwrap_or_else(|_| mpt_base::config::feed::DEFAULT_CODEX_WING.to_string());
    let last = last_fed(env, "codex");
    let last = last.map_or("never fed by mpt".to_string(), |t| {
        format!("last fed {}", iso_date(t))
    });
    Some(format!(
        "feeder for codex: `mpt feed mine --harness codex --reason manual` (nothing feeds Codex on its own, and MemPalace 3.11's miner files nothing from its 0.169 rollouts: run it, or schedule it), into {wing}; {}; {last}",
        codex::sessions_dir(env, &home).display()
    ))
}

/// When mpt last fed a harness's conversations here: its feed state's time (`<harness>/state.json`).
fn last_fed(env: &mpt_base::config::Env, harness: &str) -> Option<std::time::SystemTime> {
    let feed = mpt_feed::state::feed_home(env).ok()?;
    std::fs::metadata(feed.join(harness).join("state.json"))
        .ok()?
        .modified()
        .ok()
}
