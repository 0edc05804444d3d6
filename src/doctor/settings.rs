//! Check `config`: settings that silently disable a feature. A knob that does not parse, a token
//! file others can read or that git tracks, a token in a compose file, an edge without a persisted
//! palace, a device-less remote, remote feeding with no SSH target, an opencode entry that disagrees.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::{Check, Inputs, Status};
use crate::config::{Config, TokenSource};
use crate::harness::opencode::{self, EntryKind};
use crate::palace::paths::realpath;

/// Knobs `mpt config` does not parse itself but other commands and the bridge do.
const MILLIS_KNOBS: &[&str] = &[
    "MEMPALACE_FEED_PREPARE_TIMEOUT_MS",
    "MEMPALACE_FEED_MINE_TIMEOUT_MS",
    "MEMPALACE_FEED_DEBOUNCE_MS",
    "MEMPALACE_MAILBOX_POLL_MS",
];

struct Finding {
    status: Status,
    what: String,
    fix: String,
}

pub fn check(inputs: &Inputs) -> Check {
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
    match &inputs.config {
        Err(e) => push(
            Status::Fail,
            e.message.clone(),
            e.hint.clone().unwrap_or_default(),
        ),
        Ok(c) => config_findings(inputs, c, &mut push),
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
    let worst = found.iter().map(|f| f.status).max().unwrap_or(Status::Ok);
    let mut c = Check::new("config", worst, "");
    if found.is_empty() {
        c.summary = "nothing in the environment or config silently disables a feature".into();
        return c;
    }
    c.summary = found
        .iter()
        .find(|f| f.status == worst)
        .map(|f| f.what.clone())
        .unwrap_or_default();
    if found.len() > 1 {
        c.summary.push_str(&format!(" (+{} more)", found.len() - 1));
    }
    c.fix = found
        .iter()
        .find(|f| f.status == worst)
        .map(|f| f.fix.clone());
    for f in &found {
        c = c.evidence(format!(
            "[{}] {} -> {}",
            format!("{:?}", f.status).to_lowercase(),
            f.what,
            f.fix
        ));
    }
    c
}

fn config_findings(inputs: &Inputs, c: &Config, push: &mut impl FnMut(Status, String, String)) {
    let feed_on = !matches!(inputs.env.get("MEMPALACE_FEED"), Some("0"));
    if let Some(remote) = &c.remote {
        if c.device.is_none() {
            push(Status::Warn, "MEMPALACE_REMOTE_URL is set without MEMPALACE_PI_DEVICE: provenance stamping and the mailbox are inert".into(), "export MEMPALACE_PI_DEVICE=<this machine's name>".into());
        }
        if feed_on && inputs.env.get("MEMPALACE_PI_SSH_TARGET").is_none() {
            push(Status::Warn, "remote feeding needs MEMPALACE_PI_SSH_TARGET: without it transcripts are silently not fed".into(), "export MEMPALACE_PI_SSH_TARGET=user@palace-host (and MEMPALACE_PI_REMOTE_PATH), or MEMPALACE_FEED=0".into());
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
    opencode_findings(inputs, c, push);
}

fn opencode_findings(inputs: &Inputs, c: &Config, push: &mut impl FnMut(Status, String, String)) {
    let files = opencode::files(&inputs.env, &inputs.cwd);
    let global_exists = opencode::global_dir(&inputs.env).is_some_and(|d| d.is_dir());
    if files.is_empty() && !global_exists {
        return;
    }
    let expected = match (&c.remote, c.edge_opt_in) {
        (None, _) => EntryKind::Mempalace,
        (Some(_), true) => EntryKind::Edge,
        (Some(_), false) => EntryKind::Remote,
    };
    let mut entries = Vec::new();
    for f in &files {
        match opencode::entries(f) {
            Ok(e) => entries.extend(e),
            Err(why) => push(
                Status::Warn,
                format!(
                    "{} does not parse ({why}): opencode may ignore it",
                    f.display()
                ),
                format!("fix the JSON in {}", f.display()),
            ),
        }
    }
    let active: Vec<_> = entries.iter().filter(|e| e.enabled).collect();
    if active.is_empty() {
        if which("mempalace-mcp", &inputs.env).is_some() {
            push(Status::Warn, "opencode is set up but registers no MemPalace server: its agent has no palace tools".into(), "`mpt edge wire opencode` adds the entry".into());
        }
        return;
    }
    for e in active.iter().filter(|e| e.kind != expected) {
        push(
            Status::Warn,
            format!("opencode's entry '{}' in {} is {:?} but this machine's opt-in says {:?}", e.name, e.file.display(), e.kind, expected),
            "`mpt edge wire opencode` sets the entry to match MEMPALACE_REMOTE_URL / MEMPALACE_EDGE".into(),
        );
    }
}

/// The filesystem type when the palace would live on one that does not survive a recreate.
fn ephemeral_fs(palace: &Path) -> Option<String> {
    let real = realpath(palace);
    let info = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    let mut best: Option<(usize, String)> = None;
    for line in info.lines() {
        let fields: Vec<&str> = line.split(' ').collect();
        let (Some(mp), Some(sep)) = (fields.get(4), fields.iter().position(|f| *f == "-")) else {
            continue;
        };
        let fstype = fields.get(sep + 1).copied().unwrap_or("");
        if real.starts_with(mp) && best.as_ref().is_none_or(|(l, _)| mp.len() >= *l) {
            best = Some((mp.len(), fstype.to_string()));
        }
    }
    best.map(|(_, fs)| fs)
        .filter(|fs| matches!(fs.as_str(), "overlay" | "tmpfs" | "ramfs" | "aufs"))
}

fn git_tracks(file: &Path) -> bool {
    let Some(dir) = file.parent() else {
        return false;
    };
    Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["ls-files", "--error-unmatch"])
        .arg(file)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Compose files in `dir` whose lines set a palace token to a literal (not `${…}`).
fn compose_tokens(dir: &Path) -> Vec<(PathBuf, usize)> {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut names: Vec<PathBuf> = rd
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            let n = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            (n.starts_with("docker-compose") || n.starts_with("compose"))
                && (n.ends_with(".yml") || n.ends_with(".yaml"))
        })
        .collect();
    names.sort();
    for f in names {
        let Ok(text) = std::fs::read_to_string(&f) else {
            continue;
        };
        for (i, line) in text.lines().enumerate() {
            if literal_token(line) {
                out.push((f.clone(), i + 1));
            }
        }
    }
    out
}

fn literal_token(line: &str) -> bool {
    let l = line.trim_start().trim_start_matches("- ").trim();
    if l.starts_with('#') {
        return false;
    }
    for key in [
        "MEMPALACE_REMOTE_TOKEN",
        "MEMPALACE_MCP_HTTP_TOKEN",
        "--token",
    ] {
        if let Some(pos) = l.find(key) {
            let rest = l[pos + key.len()..].trim_start_matches(['=', ':', ' ', '"', '\'']);
            if !rest.is_empty() && !rest.starts_with("${") && !rest.starts_with('$') {
                return true;
            }
        }
    }
    false
}

pub(super) fn which(name: &str, env: &crate::config::Env) -> Option<PathBuf> {
    env.get("PATH")?
        .split(':')
        .map(|d| Path::new(d).join(name))
        .find(|p| p.is_file())
}

#[cfg(test)]
mod tests {
    use super::literal_token;

    #[test]
    fn literal_tokens_not_references() {
        assert!(literal_token("      MEMPALACE_REMOTE_TOKEN: abc123"));
        assert!(literal_token("  - MEMPALACE_MCP_HTTP_TOKEN=abc123"));
        assert!(literal_token("    command: mempalace serve --token abc123"));
        assert!(!literal_token(
            "      MEMPALACE_REMOTE_TOKEN: ${MEMPALACE_REMOTE_TOKEN}"
        ));
        assert!(!literal_token("  - MEMPALACE_REMOTE_TOKEN=$TOKEN"));
        assert!(!literal_token("  # MEMPALACE_REMOTE_TOKEN: abc"));
        assert!(!literal_token("      MEMPALACE_REMOTE_TOKEN:"));
    }
}
