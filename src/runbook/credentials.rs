//! Step `credentials` (RFC 001 R3): the token only in `.env` or the token file (0600, gitignored);
//! never a literal in compose, units, crontabs or scripts; never on a running process's argv.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use super::apply::{Applied, Change, SecretCheck, Verification};
use super::backup::{backup_dir, durable_copy, manifest, sh, size};
use super::scan::{Kind, ScanSet};
use super::{Finding, Inputs, State, Step};
use mpt_base::error::{MptError, Result};
use mpt_palace::hygiene::{
    TOKEN_KEYS, git_tracks, git_unignored, is_comment, literal_token, redact, words,
};

/// A file that holds a token (an `.env` that sets one, or the token file a setting names), and
/// what is wrong with how it is kept.
struct EnvFile {
    path: PathBuf,
    line: usize,
    mode: u32,
    tracked: bool,
    unignored: bool,
    /// The setting that names it (`MPT_TOKEN_FILE`, the config's `token_file`); `None` for an `.env`.
    named_by: Option<&'static str>,
}

impl EnvFile {
    fn fixable(&self) -> bool {
        self.mode & 0o077 != 0 || (self.unignored && !self.tracked)
    }

    fn kept(path: &Path, line: usize, named_by: Option<&'static str>) -> EnvFile {
        let mode = std::fs::metadata(path).map_or(0, |m| m.permissions().mode() & 0o777);
        let tracked = git_tracks(path);
        EnvFile {
            unignored: tracked || git_unignored(path) == Some(true),
            path: path.to_path_buf(),
            line,
            mode,
            tracked,
            named_by,
        }
    }
}

fn env_files(inputs: &Inputs, scan: &ScanSet) -> Vec<EnvFile> {
    let mut out = Vec::new();
    for f in scan.of(|k| k == Kind::Env) {
        let Some((n, _)) = f.lines().find(|(_, l)| sets_token(l)) else {
            continue;
        };
        out.push(EnvFile::kept(&f.path, n, None));
    }
    // A path that does not parse is the `config` check's and every command's exit 2, not ours.
    let named = mpt_base::config::token_file_setting(&inputs.env, inputs.config_flag.as_deref());
    if let Ok(Some((path, setting))) = named
        && std::fs::metadata(&path).is_ok_and(|m| m.is_file())
        && !out.iter().any(|e| e.path == path)
    {
        out.push(EnvFile::kept(&path, 0, Some(setting)));
    }
    out
}

/// `MEMPALACE_REMOTE_TOKEN=…` / `MEMPALACE_MCP_HTTP_TOKEN=…` with a value.
fn sets_token(line: &str) -> bool {
    let l = line.trim().trim_start_matches("export ").trim();
    !is_comment(line)
        && TOKEN_KEYS[..2].iter().any(|k| {
            l.strip_prefix(k)
                .and_then(|r| r.strip_prefix('='))
                .is_some_and(|v| !v.trim().trim_matches(['"', '\'']).is_empty())
        })
}

pub fn check(inputs: &Inputs, scan: &ScanSet) -> Step {
    let id = "credentials";
    let mut findings = Vec::new();
    let envs = env_files(inputs, scan);
    for e in &envs {
        if e.mode & 0o077 != 0 {
            let what = match e.named_by {
                None => format!(
                    "sets the palace token but is mode {:04o}: other users on this machine can read it",
                    e.mode
                ),
                Some(setting) => format!(
                    "holds the palace token ({setting} names it) but is mode {:04o}: other users on this machine can read it, and every command that reaches the primary refuses it (exit 4)",
                    e.mode
                ),
            };
            findings.push(
                Finding::at(&e.path, e.line, what)
                    .replacement(format!("chmod 600 {}", e.path.display())),
            );
        }
        if e.tracked {
            findings.push(
                Finding::at(
                    &e.path,
                    0,
                    "is tracked by git: the token is in the repository's history",
                )
                .replacement(format!(
                    "git rm --cached {}, add it to .gitignore, then rotate the token",
                    e.path.display()
                )),
            );
        } else if e.unignored {
            findings.push(
                Finding::at(
                    &e.path,
                    0,
                    "is not gitignored: one `git add .` puts the token in history",
                )
                .replacement(format!(
                    "echo /{} >> {}",
                    name(&e.path),
                    e.path.with_file_name(".gitignore").display()
                )),
            );
        }
    }
    for f in scan.of(|k| k.runs()) {
        for (n, line) in f.lines() {
            let flag = words(line)
                .iter()
                .any(|w| w == "--token" || w.starts_with("--token="));
            if flag && !literal_token(line) && !is_comment(line) && line.contains("mempalace") {
                findings.push(Finding::at(&f.path, n, "passes the token with --token: every user on the machine sees it in ps while the server runs").text(line).replacement("export MEMPALACE_MCP_HTTP_TOKEN (from .env) and drop --token: `mempalace serve` reads the environment"));
            }
            if literal_token(line) {
                findings.push(Finding::at(&f.path, n, "a literal palace token: anyone who can read this file holds the palace").text(line).replacement("move the value to .env (0600, gitignored) and reference it as ${MEMPALACE_REMOTE_TOKEN} / ${MEMPALACE_MCP_HTTP_TOKEN}"));
            }
        }
    }
    let mut on_argv = 0;
    for p in inputs.procs().0 {
        let mempalace = p.argv.iter().any(|a| a.contains("mempalace"));
        let flag = p
            .argv
            .iter()
            .any(|a| a == "--token" || a.starts_with("--token="));
        if mempalace && flag {
            on_argv += 1;
            findings.push(Finding::at(Path::new(&format!("/proc/{}/cmdline", p.pid)), 0, format!("pid {} has the token on its command line, readable by every user through ps: {}", p.pid, redact(&p.command_line()))).replacement("pass it as MEMPALACE_MCP_HTTP_TOKEN from .env (`mempalace serve` reads it from the environment), then restart and rotate it"));
        }
    }
    let configured = !envs.is_empty()
        || on_argv > 0
        || !findings.is_empty()
        || scan.files.iter().any(|f| {
            (f.kind.runs() || f.kind == Kind::Env)
                && TOKEN_KEYS[..2].iter().any(|k| f.text.contains(k))
        });
    let note = "per-device tokens: MemPalace 3.11 `serve` checks exactly one token (MEMPALACE_MCP_HTTP_TOKEN); one token per device needs Phase 4 (authz) or a proxy that maps them: a manual step, prepare the list of devices now";
    if !configured {
        return Step::new(
            id,
            State::NotApplicable,
            "no palace token is configured in the places searched (solitary, or not set up yet)",
        )
        .evidence(note);
    }
    let fixable = envs.iter().filter(|e| e.fixable()).count();
    let mut s = Step::from_findings(
        id,
        findings,
        "the token lives only in .env files or the token file, 0600 and gitignored",
        |n| format!("{n} place(s) expose the palace token"),
    )
    .evidence(note);
    for e in &envs {
        let holds = match e.named_by {
            None => format!("{}:{} sets the token", e.path.display(), e.line),
            Some(setting) => format!("{} holds the token ({setting})", e.path.display()),
        };
        s = s.evidence(format!(
            "{holds} (mode {:04o}{})",
            e.mode,
            if e.tracked {
                ", tracked by git"
            } else if e.unignored {
                ", not gitignored"
            } else {
                ""
            }
        ));
    }
    if s.state == State::ToDo {
        if fixable > 0 {
            s.apply = Some(format!(
                "chmod 600 and gitignore {fixable} token file(s) (.env or the token file); literal tokens, tracked files and command lines stay yours to fix"
            ));
        }
        s = s.manual(
            "fix each finding as its replacement says; after a token was exposed, rotate it",
        );
    }
    s
}

fn name(p: &Path) -> String {
    p.file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned()
}

/// chmod 600 and gitignore each .env that sets a token and the token file; the other findings
/// are left to a person.
pub fn apply(inputs: &Inputs, scan: &ScanSet, yes: bool) -> Result<Applied> {
    let envs: Vec<EnvFile> = env_files(inputs, scan)
        .into_iter()
        .filter(EnvFile::fixable)
        .collect();
    let mut changes = Vec::new();
    for e in &envs {
        if e.mode & 0o077 != 0 {
            changes.push(Change {
                action: "chmod",
                path: e.path.clone(),
                to: None,
                bytes: size(&e.path),
                note: format!("{:04o} -> 0600", e.mode),
            });
        }
        if e.unignored && !e.tracked {
            let gi = e.path.with_file_name(".gitignore");
            changes.push(Change {
                action: "append",
                path: gi.clone(),
                to: None,
                bytes: size(&gi),
                note: format!("+ /{}", name(&e.path)),
            });
        }
    }
    let mut out = Applied {
        step: "credentials",
        dry_run: !yes,
        state_before: State::ToDo,
        state_after: State::ToDo,
        summary: format!(
            "chmod 600 and gitignore {} token file(s) (.env or the token file)",
            envs.len()
        ),
        changes,
        backup: None,
        verification: None,
        undo: None,
    };
    if envs.is_empty() {
        return Err(MptError::usage(
            "nothing here is safe to automate: each finding needs a person",
        )
        .with_hint("see `mpt runbook phase0`: each finding carries its replacement"));
    }
    if !yes {
        return Ok(out);
    }
    let home = inputs.env.home()?;
    let backup = backup_dir(&home, "credentials")?;
    let mut undo = Vec::new();
    let mut verified = Vec::new();
    for (i, e) in envs.iter().enumerate() {
        if e.mode & 0o077 != 0 {
            std::fs::set_permissions(&e.path, std::fs::Permissions::from_mode(0o600))
                .map_err(|err| MptError::io(format!("chmod {}", e.path.display()), &err))?;
            undo.push(format!("chmod {:04o} {}", e.mode, sh(&e.path)));
        }
        if e.unignored && !e.tracked {
            let gi = e.path.with_file_name(".gitignore");
            if gi.exists() {
                let saved = backup.join(format!("gitignore-{i}"));
                durable_copy(&gi, &saved)?;
                undo.push(format!("cp -p {} {}", sh(&saved), sh(&gi)));
            } else {
                undo.push(format!("rm -f {}", sh(&gi)));
            }
            let mut text = std::fs::read_to_string(&gi).unwrap_or_default();
            if !text.is_empty() && !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str(&format!("/{}\n", name(&e.path)));
            std::fs::write(&gi, text)
                .map_err(|err| MptError::io(format!("writing {}", gi.display()), &err))?;
        }
        let mode = std::fs::metadata(&e.path).map_or(0, |m| m.permissions().mode() & 0o777);
        let ignored = git_unignored(&e.path) != Some(true);
        verified.push(SecretCheck {
            file: e.path.clone(),
            mode: format!("{mode:04o}"),
            gitignored: ignored,
            ok: mode & 0o077 == 0 && ignored,
        });
    }
    let ok = verified.iter().all(|v| v.ok);
    out.backup = Some(backup.clone());
    out.undo = Some(undo.join(" && "));
    out.verification = Some(Verification::Secrets {
        files: verified,
        ok,
    });
    out.state_after = check(inputs, &ScanSet::collect(inputs)).state;
    manifest(&backup, &out)?;
    if !ok {
        return Err(MptError::new(
            mpt_base::error::ErrorKind::Io,
            "the read-back does not match: a token file is still readable by others or not ignored",
        )
        .with_hint(format!("undo: {}", out.undo.clone().unwrap_or_default()))
        .with_detail(serde_json::to_value(&out).unwrap_or_default()));
    }
    Ok(out)
}
