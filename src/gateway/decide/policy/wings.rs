//! Wing rules on a write: a non-admin's wing must be sent canonical (no aliasing), no one but an
//! admin writes a protected wing, and a device with `wings.write` globs writes only what they match.

use serde_json::Value;

use super::{Device, Policy, Role};
use crate::palace::catalog::{self, ToolClass};

/// Whether `tool`'s wing arguments are writes (a read's are judged by `reads`).
pub fn writes_wings(tool: &str) -> bool {
    matches!(
        catalog::tool(tool).class,
        ToolClass::Write | ToolClass::Maintenance
    )
}

/// Whether wing rules can refuse this device anything (else no lookup is worth making).
pub fn restricted(d: &Device) -> bool {
    d.role < Role::Admin || d.wings.as_ref().is_some_and(|w| !w.write.is_empty())
}

/// The rule that refuses the write, if one does. `current` is the wing the target already has
/// (update_drawer's drawer, looked up); every wing is judged by its canonical name.
pub fn refusal(
    policy: &Policy,
    d: &Device,
    tool: &str,
    args: &Value,
    current: Option<&str>,
) -> Option<String> {
    if !writes_wings(tool) {
        return None;
    }
    let admin = d.role >= Role::Admin;
    let mut names = Vec::new();
    for w in catalog::sent(tool, args) {
        let c = catalog::canonical(&w.value);
        // A derived diary wing is the server's spelling, not the client's alias.
        if !admin && !w.derived && c != w.value {
            return Some(format!("wing:not_canonical:{c}"));
        }
        names.push(c);
    }
    names.extend(current.map(catalog::canonical));
    names.iter().find_map(|w| wing_refusal(policy, d, admin, w))
}

fn wing_refusal(policy: &Policy, d: &Device, admin: bool, wing: &str) -> Option<String> {
    if !admin && policy.protected_wings.matches(wing) {
        return Some(format!("protected_wings:{wing}"));
    }
    match d.wings.as_ref().map(|w| &w.write) {
        Some(globs) if !globs.is_empty() && !globs.matches(wing) => {
            Some(format!("wings.write:{wing}"))
        }
        _ => None,
    }
}
