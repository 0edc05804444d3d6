//! Check `config`: settings that silently disable a feature. A knob that does not parse (a number,
//! the mailbox's notification mode), a token file others can read or that git tracks, a token in
//! a compose file, an edge without a persisted palace, a device-less remote, remote feeding with
//! no SSH target, MemPalace's lock folder read-only, an opencode entry that disagrees or cannot
//! authenticate (`remote_entry`), a Claude Code or Codex entry that disagrees, hooks feeding twice.

use super::{Check, Finding, Inputs, Status};
use crate::mailbox::{NOTIFY_VAR, NotifyMode};
use mpt_base::config::{Config, TokenSource};
use mpt_base::which::which;
use mpt_palace::harness::opencode::Wiring;
use mpt_palace::harness::{claude, codex, kind, wire, wire::hooks};
use mpt_palace::hygiene::{compose_tokens, ephemeral_fs, git_tracks};
use mpt_palace::procs::Proc;

/// Knobs `mpt config` does not parse itself but other commands and the bridge do.
const MILLIS_KNOBS: &[&str] = &[
    "MEMPALACE_FEED_PREPARE_TIMEOUT_MS",
    "MEMPALACE_FEED_MINE_TIMEOUT_MS",
    "MEMPALACE_FEED_DEBOUNCE_MS",
    "MEMPALACE_MAILBOX_POLL_MS",
    "MPT_MAILBOX_STREAM_SILENCE_MS",
];

pub fn check<'a>(inputs: &Inputs, procs: &dyn Fn() -> &'a [Proc]) -> Check {
    let mut found: Vec<Finding> = Vec::new();
    let mut push = |status, what: String, fix: String| found.push(Finding { status, what, fix });
    for knob in MILLIS_KNOBS {
        if let Some(v) = inputs.env.get(knob)
            && v.trim().parse::<u64>().is_err()
        {
            push(
                Status::Fail,
                format!(
                    "{knob}='{v}' is not a whole number of milliseconds: the bridge falls back silently"
                ),
                format!("unset {knob} or set a number"),
            );
        }
    }
    if let Err(e) = NotifyMode::from_env(inputs.env.get(NOTIFY_VAR)) {
        push(
            Status::Fail,
            format!("{e}: `mpt mailbox watch` refuses to start"),
            format!("unset {NOTIFY_VAR}, or set desktop (desktop-tmux in a container under tmux)"),
        );
    }
    match &inputs.config {
        Err(e) => push(
            Status::Fail,
            e.message.clone(),
            e.hint.clone().unwrap_or_default(),
        ),
        Ok(c) => config_findings(inputs, c, procs, &mut push),
    }
    for (file, line) in compose_tokens(&inputs.cwd) {
        push(
            Status::Fail,
            format!(
                "a literal palace token in {}:{line}: anyone who can read the compose file holds the palace",
                file.display()
            ),
            "move it to .env (mode 0600, gitignored) and reference it as ${MEMPALACE_REMOTE_TOKEN}"
                .into(),
        );
    }
    // A name neither mpt nor MemPalace reads is most likely a typo of one that is: said with the
    // nearest, and no wiring change is proposed while one stands (it could unwire the edge).
    let typos = unknown_variables(inputs);
    if !typos.is_empty() {
        found.retain(|f| !f.fix.contains("mpt edge wire"));
    }
    found.extend(typos);
    // The opt-in as resolved (the environment, else the config file); the raw variables when
    // the configuration does not load.
    let (edge, url) = match &inputs.config {
        Ok(c) => (c.edge_opt_in, c.remote.is_some() || c.cut_off.is_some()),
        Err(_) => (
            inputs.env.get("MEMPALACE_EDGE") == Some("1"),
            inputs.env.get("MEMPALACE_REMOTE_URL").is_some(),
        ),
    };
    if edge && !url {
        found.push(Finding {
            status: Status::Warn,
            what: "MEMPALACE_EDGE=1 without MEMPALACE_REMOTE_URL (nor the config's remote_url): the edge has no primary to share with, so it only passes calls to the local palace".into(),
            fix: "export MEMPALACE_REMOTE_URL=https://<the primary or its gateway>/mcp (or set remote_url in the mpt config), or unset MEMPALACE_EDGE".into(),
        });
    }
    if found.is_empty() {
        return Check::new(
            "config",
            Status::Ok,
            "nothing in the environment or config silently disables a feature",
        );
    }
    // The worst first (a failure before a warning), each said once with its own fix.
    found.sort_by_key(|f| std::cmp::Reverse(f.status));
    let first = &found[0];
    let mut c = Check::new("config", first.status, first.what.clone()).fix(first.fix.clone());
    c.findings = found;
    c
}

/// `MPT_*`/`MEMPALACE_*` variables set here that neither mpt nor MemPalace 3.11 reads
/// (`config::vars`), each with the nearest known name.
fn unknown_variables(inputs: &Inputs) -> Vec<Finding> {
    use mpt_base::config::vars;
    inputs
        .env
        .names()
        .filter(|n| n.starts_with("MPT_") || n.starts_with("MEMPALACE_"))
        .filter(|n| !vars::known(n))
        .map(|n| {
            let near = mpt_base::suggest::closest(n, vars::all());
            Finding {
                status: Status::Warn,
                what: format!(
                    "{n} is set, but neither mpt nor MemPalace {} reads it: {}",
                    vars::MEMPALACE_VERSION,
                    match near {
                        Some(k) => format!("a typo of {k}?"),
                        None => "it has no effect".into(),
                    }
                ),
                fix: match near {
                    Some(k) => format!("rename {n} to {k} where it is set"),
                    None => format!("unset {n}"),
                },
            }
        })
        .collect()
}

fn config_findings<'a>(
    inputs: &Inputs,
    c: &Config,
    procs: &dyn Fn() -> &'a [Proc],
    push: &mut impl FnMut(Status, String, String),
) {
    let feed_on = !matches!(inputs.env.get("MEMPALACE_FEED"), Some("0"));
    if let Some(remote) = &c.remote {
        if c.device.is_none() {
            push(Status::Warn, "MEMPALACE_REMOTE_URL is set without MEMPALACE_PI_DEVICE: provenance stamping and the mailbox are inert".into(), "export MEMPALACE_PI_DEVICE=<this machine's name>".into());
        }
        // Feeding is pi's: without pi there is nothing to feed and nothing to warn about.
        let pi_here = mpt_palace::harness::pi::agent_dir(&inputs.env).is_ok_and(|d| d.exists());
        if feed_on && pi_here && inputs.env.get("MEMPALACE_PI_SSH_TARGET").is_none() {
            push(Status::Warn, "remote feeding needs MEMPALACE_PI_SSH_TARGET: without it transcripts are silently not fed".into(), "export MEMPALACE_PI_SSH_TARGET=user@palace-host (and MEMPALACE_PI_REMOTE_PATH), or MEMPALACE_FEED=0".into());
        }
        // Both set: the variable wins (issue 56, item 15); a file that says otherwise is stale.
        if let Some((token, TokenSource::Env)) = &remote.token
            && let Some(file) = inputs.env.get("MPT_TOKEN_FILE").filter(|f| !f.is_empty())
            && let Ok(other) = mpt_base::config::read_token_file(std::path::Path::new(file))
            && other.expose() != token.expose()
        {
            push(
                Status::Warn,
                format!(
                    "MEMPALACE_REMOTE_TOKEN and MPT_TOKEN_FILE ({file}) are both set and hold different tokens: the variable wins, the file is not used"
                ),
                "unset MEMPALACE_REMOTE_TOKEN in the shell its harness starts from, so the 0600 file is the one token".into(),
            );
        }
        if let Some((_, TokenSource::File(p))) = &remote.token
            && std::fs::read_to_string(p)
                .is_ok_and(|t| mpt_base::config::env_line_token(&t).is_some())
        {
            push(
                Status::Warn,
                format!(
                    "the token file {} holds an env line (MEMPALACE_REMOTE_TOKEN=...), not the token alone: it is read as the token it holds",
                    p.display()
                ),
                format!(
                    "sed -i -E 's/^(export )?MEMPALACE_REMOTE_TOKEN=//' {}",
                    p.display()
                ),
            );
        }
        if let Some((_, TokenSource::File(p))) = &remote.token
            && git_tracks(p)
        {
            push(
                Status::Fail,
                format!(
                    "the token file {} is tracked by git: the token is in the repository's history",
                    p.display()
                ),
                format!(
                    "git rm --cached {} && echo {} >> .gitignore, then rotate the token",
                    p.display(),
                    p.file_name()
                        .map_or(String::new(), |n| n.to_string_lossy().into_owned())
                ),
            );
        }
    }
    if c.edge_opt_in
        && c.remote.is_some()
        && let Ok(paths) = inputs.palace()
        && let Some(fs) = ephemeral_fs(&paths.palace)
    {
        push(Status::Fail, format!("MEMPALACE_EDGE=1 with the local palace {} on {fs}: un-flushed writes are lost when the container is recreated", paths.palace.display()), "mount a volume at the palace's parent (e.g. devbox-palace:/home/developer/.mempalace) before opting in".into());
    }
    if let Ok(paths) = inputs.palace()
        && !mpt_base::paths::edge::writable(&paths.locks_dir)
    {
        let state = mpt_base::paths::edge::EdgeDir::for_palace(&paths.home, &paths.palace);
        push(
            Status::Fail,
            format!(
                "{} cannot be written (a read-only HOME?): MemPalace takes its writer lock there, so the local palace answers reads and refuses every write (\"MCP writer initialization failed\"); the edge keeps its own state in {}",
                paths.locks_dir.display(),
                state.path.display()
            ),
            "mount a writable volume at ~/.mempalace (MemPalace's locks, and the edge's state with them), or make HOME writable".into(),
        );
    }
    opencode_findings(inputs, c, procs, push);
    claude_findings(inputs, c, push);
    codex_findings(inputs, c, push);
}

/// Codex's entry against the opt-in: the edge when opted in (passing mpt's variables on, which
/// Codex does not do by itself), MemPalace's own otherwise; a config Codex cannot read.
fn codex_findings(inputs: &Inputs, c: &Config, push: &mut impl FnMut(Status, String, String)) {
    let Ok(home) = inputs.env.home() else {
        return;
    };
    if !codex::home_dir(&inputs.env, &home).is_dir() {
        return;
    }
    let file = codex::config_file(&inputs.env, &home);
    let edge = c.remote.is_some() && c.edge_opt_in;
    let fix = "`mpt edge wire codex` sets the entry to match MEMPALACE_REMOTE_URL / MEMPALACE_EDGE";
    match wire::codex::entry(&file) {
        Err(why) => push(
            Status::Warn,
            format!(
                "{} is not valid TOML ({why}): Codex refuses to start",
                file.display()
            ),
            format!("fix the TOML in {}", file.display()),
        ),
        Ok(None) if which("mempalace-mcp", &inputs.env).is_some() => {
            let fix = match edge {
                true => "`mpt edge wire codex` adds the entry",
                false => {
                    "`codex mcp add mempalace -- mempalace-mcp` adds MemPalace's own entry (mpt adds none without an opt-in)"
                }
            };
            push(
                Status::Warn,
                "Codex is set up but registers no MemPalace server: its agent has no palace tools"
                    .into(),
                fix.into(),
            );
        }
        Ok(None) => {}
        Ok(Some(e)) if edge && e.kind != kind::EntryKind::Edge => push(
            Status::Warn,
            format!(
                "Codex's entry '{}' in {} is {} but this machine's opt-in says mpt edge",
                e.name,
                e.file.display(),
                e.kind.label()
            ),
            fix.into(),
        ),
        Ok(Some(e)) if edge && !e.env_vars.iter().any(|v| v == "MEMPALACE_REMOTE_URL") => push(
            Status::Warn,
            format!(
                "Codex's entry '{}' in {} runs mpt edge without passing MEMPALACE_REMOTE_URL on (env_vars): Codex hands its servers only HOME, PATH and a few others, so the edge never sees the opt-in from this environment",
                e.name,
                e.file.display()
            ),
            fix.into(),
        ),
        Ok(Some(e)) if !edge && e.kind == kind::EntryKind::Edge => push(
            Status::Warn,
            format!(
                "Codex's entry '{}' in {} runs mpt edge but this machine is not opted into the edge",
                e.name,
                e.file.display()
            ),
            fix.into(),
        ),
        Ok(Some(_)) => {}
    }
}

/// Claude Code's entries against the opt-in (the user scope, and any local or project entry
/// that shadows it), and its feeding hooks: MemPalace's beside mpt's file a conversation twice.
fn claude_findings(inputs: &Inputs, c: &Config, push: &mut impl FnMut(Status, String, String)) {
    let Ok(home) = inputs.env.home() else {
        return;
    };
    let w = claude::Wiring::read(&inputs.env, &home, &inputs.cwd);
    if !w.installed {
        return;
    }
    let expected = kind::expected(c.remote.is_some(), c.edge_opt_in);
    for (f, why) in &w.unparsable {
        push(
            Status::Warn,
            format!(
                "{} does not parse ({why}): Claude Code may ignore it",
                f.display()
            ),
            format!("fix the JSON in {}", f.display()),
        );
    }
    let user = w.user();
    if w.entries.is_empty() {
        if which("mempalace-mcp", &inputs.env).is_some() {
            let fix = match expected {
                kind::EntryKind::Mempalace => {
                    "`claude mcp add --scope user mempalace -- mempalace-mcp` adds MemPalace's own entry (mpt adds none without an opt-in)"
                }
                _ => "`mpt edge wire claude` adds the entry",
            };
            push(Status::Warn, "Claude Code is set up but registers no MemPalace server: its agent has no palace tools".into(), fix.into());
        }
    } else if let Some(e) = user.iter().find(|e| e.kind != expected) {
        push(
            Status::Warn,
            format!(
                "Claude Code's user-scope entry '{}' in {} is {} but this machine's opt-in says {}",
                e.name,
                e.file.display(),
                e.kind.label(),
                expected.label()
            ),
            "`mpt edge wire claude` sets the entry to match MEMPALACE_REMOTE_URL / MEMPALACE_EDGE"
                .into(),
        );
    }
    for e in w.shadowing(expected) {
        let place = match &e.scope {
            claude::Scope::Local(dir) => format!("in {dir} (local scope, {})", e.file.display()),
            _ => format!("in {} (project scope)", e.file.display()),
        };
        push(
            Status::Warn,
            format!(
                "Claude Code's {} entry '{}' {place} shadows the user-scope one: sessions there use it, not the {} the opt-in asks for",
                e.kind.label(),
                e.name,
                expected.label()
            ),
            "`mpt edge wire claude --all-scopes` switches it too".into(),
        );
    }
    let settings = claude::settings_file(&inputs.env, &home);
    if let Ok(found) = hooks::read(&settings) {
        let events = |o| {
            found
                .iter()
                .filter(|h| h.owner == o)
                .map(|h| h.event.as_str())
                .collect::<Vec<_>>()
        };
        let (mpt, mempalace) = (events(hooks::Owner::Mpt), events(hooks::Owner::Mempalace));
        if !mpt.is_empty() && !mempalace.is_empty() {
            push(
                Status::Warn,
                format!(
                    "Claude Code's sessions are fed twice, by mpt's hooks ({}) and MemPalace's ({}) in {}: each conversation is filed twice",
                    mpt.join(", "),
                    mempalace.join(", "),
                    settings.display()
                ),
                "`mpt edge wire claude --hooks --replace-mempalace-hooks` keeps mpt's alone".into(),
            );
        }
    }
}

fn opencode_findings<'a>(
    inputs: &Inputs,
    c: &Config,
    procs: &dyn Fn() -> &'a [Proc],
    push: &mut impl FnMut(Status, String, String),
) {
    let w = Wiring::read(&inputs.env, &inputs.cwd);
    if !w.installed() {
        return;
    }
    let expected = kind::expected(c.remote.is_some(), c.edge_opt_in);
    for (f, why) in &w.unparsable {
        push(
            Status::Warn,
            format!(
                "{} does not parse ({why}): opencode may ignore it",
                f.display()
            ),
            format!("fix the JSON in {}", f.display()),
        );
    }
    if w.active().is_empty() {
        if which("mempalace-mcp", &inputs.env).is_some() {
            push(Status::Warn, "opencode is set up but registers no MemPalace server: its agent has no palace tools".into(), "`mpt edge wire opencode` adds the entry".into());
        }
        return;
    }
    super::remote_entry::findings(inputs, c, &w.active(), procs, push);
    for e in w.mismatched(expected) {
        push(
            Status::Warn,
            format!("opencode's entry '{}' in {} is {:?} but this machine's opt-in says {:?}", e.name, e.file.display(), e.kind, expected),
            "`mpt edge wire opencode` sets the entry to match MEMPALACE_REMOTE_URL / MEMPALACE_EDGE".into(),
        );
    }
}
