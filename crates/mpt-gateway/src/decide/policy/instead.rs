//! What a refused device may do instead, in a sentence the model reading the denial can act on:
//! read from the device's own grants in the policy, so it names the wings it may use.

use super::{Policy, Role};

impl Policy {
    /// The sentence for `device` refused by `rule` (a denial's text ends with it).
    pub fn instead(&self, device: &str, rule: &str) -> String {
        let Some(d) = self.device(device) else {
            return format!(
                "device {device} is not in the gateway's policy: ask its operator to add it (mpt gateway token issue {device} on the primary host)"
            );
        };
        let writes = || match d.wings.as_ref().map(|w| &*w.write) {
            Some(w) if !w.is_empty() => format!("it may write only {}", w.join(", ")),
            _ if d.role >= Role::Member => "it may write any wing not protected".into(),
            _ => "it may not write".into(),
        };
        let (kind, rest) = rule.split_once(':').unwrap_or((rule, ""));
        match kind {
            "needs" if rest.starts_with("admin") => format!(
                "only an admin device may use this; device {device} is {}: use the tools its role lists (tools/list)",
                d.role.as_str()
            ),
            "needs" => format!(
                "device {device} is {} and may only read: search, list and get, not write",
                d.role.as_str()
            ),
            "wings.write" => format!("{}: write to one of those wings instead", writes()),
            "wings.read" => match d.wings.as_ref().map(|w| &*w.read) {
                Some(r) if !r.is_empty() => format!("it may read only {}", r.join(", ")),
                _ => "it may not read that wing".into(),
            },
            "protected_wings" => format!(
                "that wing is protected: only admin devices write it; {}",
                writes()
            ),
            "wing" => "give the wing in its stored form (lowercase, no surrounding spaces or control characters)".into(),
            "allow_sync" => "this gateway does not take sync routes: write through tools/call".into(),
            "agents" => match &d.agents {
                Some(a) if !a.is_empty() => format!("it may write only as agent {}", a.join(", ")),
                _ => "it may not write diaries for other agents".into(),
            },
            "provenance" => format!(
                "leave out {rest}: the gateway stores the device's own name there"
            ),
            "mine" => match (&d.mine, rest) {
                (Some(m), _) => format!(
                    "mine only under {}, in convos mode, with a wing",
                    m.source_prefix
                ),
                (None, _) => "this device may not mine".into(),
            },
            "role" => format!("device {device} is {}", d.role.as_str()),
            "tunnel" => "name only drawers that lie in that end's wing, or none".into(),
            "arguments" => arguments(rest),
            "source_file" => match &d.mine {
                Some(m) => format!("name only files under {} as source_file, or none", m.source_prefix),
                None => "leave out source_file: it names a mined file, which only admins do".into(),
            },
            _ => "ask the gateway's operator to change this device's grants in policy.json".into(),
        }
    }
}

/// The sentence for a refused argument (`unknown:<pointer>`, `type:<pointer>:<type>`,
/// `stamp_lookalike:<pointer>`).
fn arguments(rest: &str) -> String {
    let (kind, at) = rest.split_once(':').unwrap_or((rest, ""));
    match kind {
        "unknown" => format!(
            "leave out {at}: the tool does not take it (tools/list gives each tool's arguments)"
        ),
        "type" => match at.rsplit_once(':') {
            Some(("", want)) => format!("send the arguments as a JSON {want}"),
            Some((at, want)) => format!("send {at} as a JSON {want}, or leave it out"),
            None => "send each argument with the type tools/list gives it".into(),
        },
        "stamp_lookalike" => format!(
            "rename the metadata key {at}: it passes for the `mpt` stamp, which only the gateway writes"
        ),
        _ => "send the arguments tools/list declares, each with its type".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy() -> Policy {
        let text = format!(
            r#"{{"schema": "{}", "devices": {{
                "lap": {{"role": "member", "wings": {{"write": ["wing_lap*", "wing_conversations"]}}}},
                "obs": {{"role": "observer"}}
            }}}}"#,
            mpt_base::schema::GATEWAY_POLICY
        );
        Policy::parse(&text, std::path::Path::new("policy.json")).unwrap()
    }

    #[test]
    fn each_refusal_says_what_the_device_may_do_instead() {
        let p = policy();
        assert_eq!(
            p.instead("lap", "wings.write:wing_other"),
            "it may write only wing_lap*, wing_conversations: write to one of those wings instead"
        );
        assert!(
            p.instead("obs", "needs:member")
                .contains("observer and may only read")
        );
        assert!(
            p.instead("lap", "needs:admin")
                .contains("only an admin device")
        );
        assert!(
            p.instead("lap", "protected_wings:wing_ops")
                .contains("wing_lap*")
        );
        assert!(
            p.instead("ghost", "device:not_in_policy")
                .contains("not in the gateway's policy")
        );
        assert!(!p.instead("lap", "something:new").is_empty());
        assert_eq!(
            p.instead("lap", "arguments:type:/limit:integer"),
            "send /limit as a JSON integer, or leave it out"
        );
        assert!(
            p.instead("lap", "arguments:unknown:/items/0/source_file")
                .starts_with("leave out /items/0/source_file")
        );
    }
}
