//! Wing rules on a write: a non-admin's wing must be sent canonical (no aliasing), no one but an
//! admin writes a protected wing, and a device with `wings.write` globs writes only what they match.

use serde_json::Value;

use super::{Device, Policy, Role};
use mpt_palace::catalog::{self, ToolClass};

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

/// A tunnel's drawer ids, for a restricted device: each must name a drawer in that end's wing
/// (`drawers`: each id's wing, looked up on the primary), else `follow_tunnels` would preview a
/// drawer of a wing the tunnel's maker may not name.
pub fn tunnel_drawers(
    d: &Device,
    tool: &str,
    args: &Value,
    drawers: &std::collections::BTreeMap<String, Option<String>>,
) -> Option<String> {
    if catalog::bare(tool) != "create_tunnel" || !restricted(d) {
        return None;
    }
    for end in ["source", "target"] {
        let id_arg = format!("{end}_drawer_id");
        let Some(id) = args.get(&id_arg).filter(|v| !v.is_null()) else {
            continue;
        };
        let wing = args.get(format!("{end}_wing")).and_then(Value::as_str);
        let found = drawers.get(&id_arg).cloned().flatten();
        let same = match (id.as_str(), wing, found) {
            (Some(_), Some(w), Some(f)) => catalog::canonical(w) == catalog::canonical(&f),
            _ => false,
        };
        if !same {
            return Some(format!("tunnel:drawer_outside_wing:{end}"));
        }
    }
    None
}

fn wing_refusal(policy: &Policy, d: &Device, admin: bool, wing: &str) -> Option<String> {
    if !admin && policy.protected_wings.matches(wing) {
        return Some(format!("protected_wings:{wing}"));
    }
    if !admin && let Some(glob) = super::lookalike::imitated(&policy.protected_wings, wing) {
        return Some(format!("protected_wings:lookalike:{glob}"));
    }
    match d.wings.as_ref().map(|w| &w.write) {
        Some(globs) if !globs.is_empty() && !globs.matches(wing) => {
            Some(format!("wings.write:{wing}"))
        }
        _ => None,
    }
}
