//! Phase 4 steps (RFC 001 §6, §8): `serve` on loopback behind a running `mpt gateway`, a policy
//! naming every device, each device its own token, the audit verifying, the gateway's files private.

use std::collections::BTreeSet;
use std::path::PathBuf;

use super::binds::{Bind, classify, exposure, fronts};
use super::scan::ScanSet;
use super::serve_configs::find;
use super::{Inputs, State, Step, cannot_run};
use mpt_gateway::StateDir;
use mpt_gateway::decide::policy::Policy;
use mpt_gateway::keys::tokens::{TokenFile, TokenState};

/// The gateway's state folder here, when it exists.
fn state_dir(inputs: &Inputs) -> Option<StateDir> {
    StateDir::resolve(&inputs.env)
        .ok()
        .filter(|d| d.root.is_dir())
}

/// Whether Phase 4 belongs in a plain `mpt runbook`: a gateway folder or process on this host,
/// or a device holding a gateway token.
pub fn in_use(inputs: &Inputs) -> bool {
    state_dir(inputs).is_some() || !fronts(inputs).is_empty() || device_token(inputs).is_some()
}

/// Step `gateway-front`: every serve configuration binds loopback, and a running gateway's
/// upstream is it.
pub fn front(inputs: &Inputs, scan: &ScanSet) -> Step {
    let id = "gateway-front";
    let configs = find(inputs, scan);
    let running = fronts(inputs);
    if configs.is_empty() && running.is_empty() && state_dir(inputs).is_none() {
        return Step::new(
            id,
            State::NotApplicable,
            "no serve configuration and no mpt gateway here: not the primary host (give --serve-cmd to judge one)",
        );
    }
    let mut todo = Vec::new();
    let mut evidence = Vec::new();
    for c in &configs {
        let open: Vec<String> = exposure(c)
            .into_iter()
            .filter(|(a, _)| classify(a) != Bind::Loopback)
            .map(|(a, p)| format!("{a}:{p}"))
            .collect();
        if open.is_empty() {
            evidence.push(format!(
                "{}: serve binds {}:{}, so only this host (the gateway) reaches it",
                c.source, c.host, c.port
            ));
        } else {
            todo.push(format!(
                "{}: serve is reachable at {}: a device holding its one shared token passes by the gateway (no per-device identity, no audit); bind 127.0.0.1",
                c.source,
                open.join(", ")
            ));
        }
    }
    if running.is_empty() {
        todo.push(
            "no `mpt gateway serve` runs here: the devices have no front door of their own".into(),
        );
    }
    let ports: BTreeSet<u16> = configs.iter().map(|c| c.port).collect();
    for f in &running {
        let up = f.upstream.as_deref().unwrap_or("?");
        match f.upstream_addr() {
            Some((h, p))
                if classify(&h) == Bind::Loopback && (ports.is_empty() || ports.contains(&p)) =>
            {
                evidence.push(format!(
                    "mpt gateway (pid {}) listens on {} in front of {up}",
                    f.pid,
                    f.listen.as_deref().unwrap_or("?")
                ));
            }
            Some((h, _)) if classify(&h) != Bind::Loopback => todo.push(format!(
                "mpt gateway (pid {}) forwards to {up}, not to a serve on this host's loopback",
                f.pid
            )),
            _ => todo.push(format!(
                "mpt gateway (pid {}) forwards to {up}, but the serve found listens on port(s) {}",
                f.pid,
                ports
                    .iter()
                    .map(u16::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }
    let mut s = if todo.is_empty() {
        Step::new(
            id,
            State::Done,
            "serve on loopback, mpt gateway in front of it: every device comes through the gateway",
        )
    } else {
        Step::new(id, State::ToDo, todo.join("; ")).manual(
            "bind serve to loopback (`mempalace serve --host 127.0.0.1 --port 8765 …`, its token in MEMPALACE_MCP_HTTP_TOKEN) and put the gateway in front: `mpt gateway serve --listen 0.0.0.0:8443 --upstream http://127.0.0.1:8765 --tls-cert cert.pem --tls-key key.pem` (docs/gateway.md \"Per-device tokens\")",
        )
    };
    s.evidence = evidence;
    s
}

/// The devices the gateway has met: those holding tokens and those its audit names.
pub fn known_devices(dir: &StateDir) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    if let Ok(t) = TokenFile::load(&dir.tokens()) {
        out.extend(t.tokens.into_iter().map(|e| e.device));
    }
    if let Ok(records) = mpt_gateway::record::audit::read::records(dir) {
        out.extend(
            records
                .iter()
                .filter_map(|(_, r)| r.get("device").and_then(|d| d.as_str()))
                .map(str::to_string),
        );
    }
    out
}

/// Whether this is the primary host: the gateway's folder or process here, or a serve
/// configuration found.
fn primary_host(inputs: &Inputs, scan: &ScanSet) -> bool {
    state_dir(inputs).is_some() || !fronts(inputs).is_empty() || !find(inputs, scan).is_empty()
}

/// Step `gateway-policy`: `policy.json` parses and names every device that holds a token or
/// appears in the audit.
pub fn policy(inputs: &Inputs, scan: &ScanSet) -> Step {
    let id = "gateway-policy";
    let dir = match StateDir::resolve(&inputs.env) {
        Ok(d) => d,
        Err(e) => return cannot_run(id, &e),
    };
    // Devices named with --device are intent enough: the policy is written before serve or the
    // gateway ever ran here.
    if !primary_host(inputs, scan) && inputs.devices.is_empty() {
        return Step::new(
            id,
            State::NotApplicable,
            "not the primary host: no serve configuration, no mpt gateway here (give --serve-cmd to judge one, or --device NAME to write the policy anyway)",
        );
    }
    let path = dir.policy();
    let known = known_devices(&dir);
    if !path.exists() {
        let mut named: BTreeSet<String> = known.clone();
        named.extend(inputs.devices.iter().cloned());
        let mut s = Step::new(
            id,
            State::ToDo,
            format!(
                "no policy at {}: the gateway does not start without one",
                path.display()
            ),
        );
        s.apply = Some(if named.is_empty() {
            "write a starter policy.json naming the devices you give with --device NAME (each a member)".into()
        } else {
            format!(
                "write a starter policy.json naming {} (each a member)",
                named.into_iter().collect::<Vec<_>>().join(", ")
            )
        });
        return s.manual(format!(
            "write {} yourself: each device under \"devices\" with its role (observer, member, admin)",
            path.display()
        ));
    }
    let policy = match Policy::load_tested(&path) {
        Ok(p) => p,
        Err(e) => {
            return Step::new(
                id,
                State::Blocked,
                format!("the policy does not load: {}", e.message),
            )
            .manual(e.hint.unwrap_or_else(|| format!("fix {}", path.display())));
        }
    };
    let missing: Vec<&String> = known
        .iter()
        .filter(|d| policy.device(d).is_none())
        .collect();
    let roles: Vec<String> = policy
        .devices
        .iter()
        .map(|(n, d)| format!("{n} ({})", d.role.as_str()))
        .collect();
    if missing.is_empty() {
        Step::new(
            id,
            State::Done,
            format!(
                "{} parses and names {} device(s): {}",
                path.display(),
                roles.len(),
                roles.join(", ")
            ),
        )
    } else {
        Step::new(
            id,
            State::ToDo,
            format!(
                "{} device(s) hold a token or appear in the audit but the policy does not name them (every call of theirs is refused, device:not_in_policy): {}",
                missing.len(),
                missing.iter().map(|d| d.as_str()).collect::<Vec<_>>().join(", ")
            ),
        )
        .manual(format!(
            "add each under \"devices\" in {} with its role, or revoke its tokens (`mpt gateway token revoke DEVICE`)",
            path.display()
        ))
    }
}

/// This device's token when it is a gateway token (its non-secret id).
fn device_token(inputs: &Inputs) -> Option<String> {
    let config = inputs.config.as_ref().ok()?;
    let (secret, _) = config.remote.as_ref()?.token.as_ref()?;
    mpt_gateway::keys::token::parse(secret.expose()).map(str::to_string)
}

/// Step `gateway-tokens`: on the primary host every device in the policy holds a working
/// token; on a device, its token is a gateway token (the primary's shared one is gone).
pub fn tokens(inputs: &Inputs) -> Step {
    let id = "gateway-tokens";
    let mut todo = Vec::new();
    let mut evidence = Vec::new();
    let mut applies = false;
    if let Some(dir) = state_dir(inputs)
        && let Ok(policy) = Policy::load(&dir.policy())
    {
        applies = true;
        let file = TokenFile::load(&dir.tokens()).unwrap_or_else(|_| TokenFile::empty());
        let now = mpt_base::time::now_unix();
        for name in policy.devices.keys() {
            let working: Vec<_> = file
                .tokens
                .iter()
                .filter(|e| &e.device == name && e.state(now).works())
                .collect();
            if working.is_empty() {
                todo.push(format!("{name} has no working token"));
            }
            for e in working {
                evidence.push(format!(
                    "{name}: token {} {}, {}",
                    e.id,
                    e.state(now).as_str(),
                    e.expires
                        .as_deref()
                        .map_or("never expires (doctor warns)".to_string(), |x| format!(
                            "expires {x}"
                        ))
                ));
            }
        }
        let stale = file
            .tokens
            .iter()
            .filter(|e| e.state(now) == TokenState::Overlap)
            .count();
        if stale > 0 {
            evidence.push(format!(
                "{stale} rotated token(s) still work out their overlap"
            ));
        }
    }
    if let Ok(config) = &inputs.config
        && let Some(remote) = &config.remote
    {
        applies = true;
        match (&remote.token, device_token(inputs)) {
            (_, Some(tid)) => evidence.push(format!(
                "this device holds its own gateway token (id {tid}): the primary's shared token is not on it"
            )),
            (Some(_), None) => todo.push(
                "this device's MEMPALACE_REMOTE_TOKEN is not a gateway token (`mptg_…`): it still holds the primary's shared token, which opens everything to whoever has it".into(),
            ),
            (None, None) => todo.push("this device has no token for the primary".into()),
        }
    }
    if !applies {
        return Step::new(
            id,
            State::NotApplicable,
            "no gateway policy here and no primary configured",
        );
    }
    let device = inputs
        .config
        .as_ref()
        .ok()
        .and_then(|c| c.device.clone())
        .unwrap_or_else(|| "DEVICE".into());
    let mut s = if todo.is_empty() {
        Step::new(id, State::Done, "each device holds a token of its own")
    } else {
        let file = mpt_base::config::device_token_file(&device);
        Step::new(id, State::ToDo, todo.join("; ")).manual(format!(
            "on the primary host: `mpt gateway token issue {device} --expires 90d --out {file}` for each device; copy that file to the device (0600) and point its MPT_TOKEN_FILE at it; once every device has its own, the shared token can leave them"
        ))
    };
    s.evidence = evidence;
    s
}

/// Step `gateway-audit`: `mpt gateway audit verify` holds.
pub fn audit(inputs: &Inputs) -> Step {
    let id = "gateway-audit";
    let Some(dir) = state_dir(inputs) else {
        return Step::new(id, State::NotApplicable, "no gateway here");
    };
    let verdict = match mpt_gateway::record::audit::read::verify(&dir) {
        Ok(v) => v,
        Err(e) => return cannot_run(id, &e),
    };
    if verdict.records == 0 && verdict.bad.is_none() {
        return Step::new(
            id,
            State::NotApplicable,
            "no audit yet: the gateway has not served a request",
        );
    }
    match &verdict.bad {
        None => Step::new(
            id,
            State::Done,
            format!(
                "the audit verifies: {} record(s), seq {} to {}, ending at its checkpoint",
                verdict.records,
                verdict.first_seq.unwrap_or(0),
                verdict.last_seq.unwrap_or(0)
            ),
        ),
        Some(bad) => Step::new(
            id,
            State::ToDo,
            format!(
                "the audit does not verify at {}:{} (seq {}): {}",
                bad.place.file.display(),
                bad.place.line,
                bad.seq.map_or("?".into(), |s| s.to_string()),
                bad.why
            ),
        )
        .manual("keep the files as evidence and find out who edited or cut them (`mpt gateway audit verify`); the gateway does not start on a chain that does not end at its checkpoint"),
    }
}

/// A file or the folder of the gateway's whose mode is wider than it should be.
#[derive(Debug, Clone)]
pub struct Loose {
    pub path: PathBuf,
    pub mode: u32,
    pub want: u32,
}

/// The gateway's files whose modes are too wide: the folder 0700; tokens, last-used times and
/// the audit 0600; the policy (meant to be reviewed) writable by its owner alone.
pub fn loose(dir: &StateDir) -> Vec<Loose> {
    let mut want: Vec<(PathBuf, u32, u32)> = vec![
        (dir.root.clone(), 0o077, 0o700),
        (dir.tokens(), 0o077, 0o600),
        (dir.last_used(), 0o077, 0o600),
        (dir.audit_head(), 0o077, 0o600),
    ];
    if let Ok(files) = mpt_gateway::record::audit::read::files(dir) {
        want.extend(files.into_iter().map(|f| (f, 0o077, 0o600)));
    }
    let policy = dir.policy();
    if let Some(m) = mpt_gateway::state::mode(&policy) {
        want.push((policy, 0o022, m & !0o022));
    }
    want.into_iter()
        .filter_map(|(path, bad, target)| {
            let mode = mpt_gateway::state::mode(&path)?;
            (mode & bad != 0).then_some(Loose {
                path,
                mode,
                want: target,
            })
        })
        .collect()
}

/// Step `gateway-modes`.
pub fn modes(inputs: &Inputs) -> Step {
    let id = "gateway-modes";
    let Some(dir) = state_dir(inputs) else {
        return Step::new(id, State::NotApplicable, "no gateway here");
    };
    let found = loose(&dir);
    if found.is_empty() {
        return Step::new(
            id,
            State::Done,
            format!(
                "{} is 0700 and its token and audit files 0600",
                dir.root.display()
            ),
        );
    }
    let mut s = Step::new(
        id,
        State::ToDo,
        format!(
            "{} of the gateway's files others may read or write",
            found.len()
        ),
    );
    for l in &found {
        s = s.evidence(format!(
            "{}: {:04o}, should be {:04o}",
            l.path.display(),
            l.mode,
            l.want
        ));
    }
    s.apply = Some(format!("chmod {} file(s) to their modes", found.len()));
    // By hand is the same chmods, not the apply command again (issue 56, item 15).
    let by_hand: Vec<String> = found
        .iter()
        .map(|l| format!("chmod {:o} {}", l.want, l.path.display()))
        .collect();
    s.manual(format!("`{}`", by_hand.join(" && ")))
}
