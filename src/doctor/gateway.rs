//! The `gateway` check, on a primary host running `mpt gateway`: a policy that does not load (one
//! others may write), device tokens that never expire or expire within a week, a loose token file.

use super::{Check, Inputs, Status};
use mpt_gateway::StateDir;
use mpt_gateway::keys::tokens::{Entry, TokenFile};
use mpt_gateway::state::mode;

/// A live token closer than this to its expiry is worth rotating now.
const SOON_S: i64 = 7 * 86_400;

pub fn check(inputs: &Inputs) -> Check {
    let dir = match StateDir::resolve(&inputs.env) {
        Ok(d) => d,
        Err(e) => return Check::new("gateway", Status::Skip, e.message),
    };
    if dir.policy().exists()
        && let Err(e) = mpt_gateway::decide::policy::Policy::load(&dir.policy())
    {
        return Check::new(
            "gateway",
            Status::Fail,
            format!("the gateway policy does not load, so a running gateway keeps its last good one: {}", e.message),
        )
        .fix(e.hint.unwrap_or_default());
    }
    let path = dir.tokens();
    if !path.exists() {
        return Check::new("gateway", Status::Skip, "no gateway tokens on this machine")
            .evidence(format!("{} does not exist", path.display()));
    }
    let file = match TokenFile::load(&path) {
        Ok(f) => f,
        Err(e) => {
            return Check::new(
                "gateway",
                Status::Fail,
                format!("the gateway's tokens do not load: {}", e.message),
            )
            .fix(e.hint.unwrap_or_default());
        }
    };
    let now = mpt_base::time::now_unix();
    let live: Vec<_> = file
        .tokens
        .iter()
        .filter(|e| e.state(now).works())
        .collect();
    let forever_entries: Vec<_> = live.iter().filter(|e| e.expires.is_none()).collect();
    let soon_entries: Vec<_> = live
        .iter()
        .filter(|e| e.rotated_to.is_none() && e.expires_at().is_some_and(|t| t - now < SOON_S))
        .collect();
    let forever: Vec<String> = forever_entries
        .iter()
        .map(|e| format!("{} ({})", e.id, e.device))
        .collect();
    let soon: Vec<String> = soon_entries
        .iter()
        .map(|e| {
            format!(
                "{} ({}) expires {}",
                e.id,
                e.device,
                e.expires.as_deref().unwrap_or("")
            )
        })
        .collect();
    let loose = mode(&path).filter(|m| m & 0o077 != 0);
    let evidence = format!(
        "{} ({} live of {})",
        path.display(),
        live.len(),
        file.tokens.len()
    );
    if let Some(m) = loose {
        return Check::new(
            "gateway",
            Status::Warn,
            format!("tokens.json is mode {m:04o}: others on this host can read which devices hold tokens"),
        )
        .evidence(evidence)
        .fix(format!("chmod 600 {}", path.display()));
    }
    if !forever.is_empty() {
        return Check::new(
            "gateway",
            Status::Warn,
            format!(
                "{} device token(s) never expire: a lost device keeps its access until someone revokes it",
                forever.len()
            ),
        )
        .evidence(evidence)
        .evidence(forever.join(", "))
        .fix(rotations(&forever_entries, "--expires 90d"));
    }
    if !soon.is_empty() {
        return Check::new(
            "gateway",
            Status::Warn,
            format!(
                "{} device token(s) expire within a week: those devices will be refused",
                soon.len()
            ),
        )
        .evidence(evidence)
        .evidence(soon.join("; "))
        .fix(rotations(&soon_entries, ""));
    }
    // A rotated token lives out its overlap: counted apart, not called a week away.
    let overlapping = live.iter().filter(|e| e.rotated_to.is_some()).count();
    let current = live.len() - overlapping;
    let mut summary =
        format!("{current} device token(s), each with an expiry more than a week away");
    if overlapping > 0 {
        summary.push_str(&format!(
            "; {overlapping} replaced one(s) working out their overlap after a rotation"
        ));
    }
    Check::new("gateway", Status::Ok, summary).evidence(evidence)
}

/// The rotation of each device named (its token file where the quick start keeps it, replaced),
/// then the copy to it: every fix names the device and a whole path (issue 56, item 4).
fn rotations(tokens: &[&&Entry], extra: &str) -> String {
    let mut seen = std::collections::BTreeSet::new();
    let each: Vec<String> = tokens
        .iter()
        .map(|e| e.device.as_str())
        .filter(|d| seen.insert(*d))
        .map(|d| {
            let file = mpt_base::config::device_token_file(d);
            let extra = if extra.is_empty() {
                String::new()
            } else {
                format!(" {extra}")
            };
            format!("mpt gateway token rotate {d}{extra} --out {file} --force")
        })
        .collect();
    format!(
        "{}  # then copy each file to its device as the 0600 file its MPT_TOKEN_FILE names (the old token lives out --overlap)",
        each.join(" && ")
    )
}
