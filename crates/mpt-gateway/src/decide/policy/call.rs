//! One `tools/call` decided on its arguments: the role (or a scoped mine), a non-admin's arguments
//! held to the tool's, the wing rules, then provenance; the rewrites it needs are returned.

use std::path::PathBuf;

use serde::Deserialize;
use serde_json::Value;

use super::rewrite::Rewrite;
use super::{Decision, Policy, arguments, mine, provenance, reads, source, streams, wings};
use mpt_palace::catalog;

/// What a decision needs from the primary: the drawer's wing for `update_drawer` (looked up by
/// the gateway, or a policy test's), the resolved source of a scoped mine (tests only).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Current {
    #[serde(default)]
    pub wing: Option<String>,
    #[serde(default)]
    pub source: Option<PathBuf>,
    /// The HOME a scoped mine's `~` expands to (the gateway's, from config's `Env`); none (a
    /// policy test): `~` stays as sent, so such a test names its `source`.
    #[serde(skip)]
    pub home: Option<PathBuf>,
    /// The stream of the event an `event_ack` acknowledges.
    #[serde(default)]
    pub stream: Option<String>,
    /// The room of the drawer an `update_drawer` changes (`diary`: a diary entry, whose stamp
    /// its new content keeps).
    #[serde(default)]
    pub room: Option<String>,
    /// The wing of each drawer a `create_tunnel` names, by its argument (`source_drawer_id`,
    /// `target_drawer_id`); `None`: the primary has no such drawer.
    #[serde(default)]
    pub drawers: std::collections::BTreeMap<String, Option<String>>,
}

/// The room MemPalace files diary entries in (`tools_diary.py`).
const DIARY_ROOM: &str = "diary";

/// The decision on a call and, when allowed, what to change before it goes.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    pub decision: Decision,
    pub rewrites: Vec<Rewrite>,
}

impl Verdict {
    fn deny(rule: impl Into<String>) -> Verdict {
        Verdict {
            decision: Decision::deny(rule),
            rewrites: Vec::new(),
        }
    }
}

impl Policy {
    /// Whether deciding `tool` for `device` needs the target drawer's wing from the primary
    /// (`update_drawer` by a device the wing rules can refuse).
    pub fn needs_current(&self, device: &str, tool: &str) -> bool {
        matches!(catalog::bare(tool), "update_drawer" | "create_tunnel")
            && self.device(device).is_some_and(wings::restricted)
    }

    /// Whether `tools/list` shows `tool` to `device`: what its role may call, and `mine` to a
    /// member with a scoped mine.
    pub fn lists(&self, device: &str, tool: &str) -> bool {
        self.tool(device, tool).allowed
            || (catalog::bare(tool) == "mine"
                && self
                    .device(device)
                    .is_some_and(|d| d.role == super::Role::Member && d.mine.is_some()))
    }

    /// The whole decision on `tools/call` of `tool` with `args` by the token `token_id` of `device`.
    /// A non-admin's arguments are judged as the server will read them: its rewrites come first,
    /// and every rule after reads the arguments they make.
    pub fn call(
        &self,
        device: &str,
        token_id: &str,
        tool: &str,
        args: &Value,
        current: &Current,
    ) -> Verdict {
        let Some(d) = self.device(device) else {
            return Verdict::deny("device:not_in_policy");
        };
        let mut rewrites = Vec::new();
        let decision = match &d.mine {
            Some(scope) if catalog::bare(tool) == "mine" && d.role == super::Role::Member => {
                match mine::scoped(
                    scope,
                    args,
                    current.source.as_deref(),
                    current.home.as_deref(),
                ) {
                    Ok(source) => {
                        let source = Value::String(source.to_string_lossy().into_owned());
                        if args.get("source") != Some(&source) {
                            rewrites.push(Rewrite::forged("/source", source));
                        }
                        Decision::allow("mine:source_prefix")
                    }
                    Err(rule) => return Verdict::deny(rule),
                }
            }
            _ => self.tool(device, tool),
        };
        if !decision.allowed {
            return Verdict {
                decision,
                rewrites: Vec::new(),
            };
        }
        let judged;
        let args = if d.role < super::Role::Admin {
            match arguments::normalize(tool, args) {
                Ok(made) if made.is_empty() => args,
                Ok(made) => {
                    judged = arguments::normalized(args, &made);
                    rewrites.extend(made);
                    &judged
                }
                Err(rule) => return Verdict::deny(rule),
            }
        } else {
            args
        };
        if let Some(rule) = wings::refusal(self, d, tool, args, current.wing.as_deref()) {
            return Verdict::deny(rule);
        }
        if let Some(rule) = wings::tunnel_drawers(d, tool, args, &current.drawers) {
            return Verdict::deny(rule);
        }
        if let Some(rule) = source::refusal(d, tool, args) {
            return Verdict::deny(rule);
        }
        if let Some(rule) = reads::refusal(self, device, d, tool, args) {
            return Verdict::deny(rule);
        }
        if let Some(rule) = streams::refusal(self, device, d, tool, args, current.stream.as_deref())
        {
            return Verdict::deny(rule);
        }
        let mode = d.provenance.unwrap_or(self.provenance);
        let diary_drawer = current.room.as_deref() == Some(DIARY_ROOM)
            || args
                .get("room")
                .and_then(Value::as_str)
                .map(mpt_palace::catalog::py_strip)
                == Some(DIARY_ROOM);
        match provenance::plan(d, device, token_id, mode, tool, args, diary_drawer) {
            Ok(stamps) => rewrites.extend(stamps),
            Err(rule) => return Verdict::deny(rule),
        }
        Verdict { decision, rewrites }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::path::Path;

    fn policy() -> Policy {
        Policy::parse(
            &json!({"schema": super::super::SCHEMA, "protected_wings": ["wing_rules*"],
                "devices": {
                    "lap": {"role": "member", "wings": {"write": ["wing_lap*", "wing_shared"]}, "agents": ["pi"]},
                    "desk": {"role": "member", "provenance": "strict"},
                    "hub": {"role": "admin"}}})
            .to_string(),
            Path::new("/p.json"),
        )
        .unwrap()
    }

    fn rule(p: &Policy, device: &str, tool: &str, args: Value, wing: Option<&str>) -> String {
        let current = Current {
            wing: wing.map(str::to_string),
            ..Current::default()
        };
        p.call(device, "t", tool, &args, &current).decision.rule
    }

    #[test]
    fn wings_are_judged_canonical_against_globs_and_the_protected_floor() {
        let p = policy();
        let add = |w: &str| json!({"wing": w, "room": "r", "content": "c"});
        assert_eq!(
            rule(&p, "lap", "mempalace_add_drawer", add("wing_lap"), None),
            "role:member"
        );
        for alias in ["Wing_Lap", " wing_lap", "wing-lap", "_wing_lap"] {
            assert_eq!(
                rule(&p, "lap", "mempalace_add_drawer", add(alias), None),
                "wing:not_canonical:wing_lap",
                "{alias:?}"
            );
        }
        assert_eq!(
            rule(&p, "lap", "mempalace_add_drawer", add("wing_desk"), None),
            "wings.write:wing_desk"
        );
        assert_eq!(
            rule(&p, "desk", "mempalace_add_drawer", add("wing_rules"), None),
            "protected_wings:wing_rules"
        );
        assert_eq!(
            rule(&p, "hub", "mempalace_add_drawer", add("Wing_Rules"), None),
            "role:admin"
        );
        let diary = json!({"agent_name": "pi", "entry": "e"});
        assert_eq!(
            rule(&p, "lap", "mempalace_diary_write", diary, None),
            "wings.write:wing_pi",
            "the derived wing"
        );
        let tunnel = json!({"source_wing": "wing_lap", "target_wing": "wing_desk", "source_room": "a", "target_room": "b"});
        assert_eq!(
            rule(&p, "lap", "mempalace_create_tunnel", tunnel, None),
            "wings.write:wing_desk"
        );
        let cp = json!({"items": [{"wing": "wing_lap", "room": "r", "content": "c"}], "diary": {"agent_name": "pi", "wing": "wing_lap", "entry": "e"}});
        assert_eq!(
            rule(&p, "lap", "mempalace_checkpoint", cp, None),
            "role:member"
        );
        assert_eq!(
            rule(
                &p,
                "lap",
                "mempalace_search",
                json!({"query": "q", "wing": "Wing_Desk"}),
                None
            ),
            "role:member",
            "reads are not write rules"
        );
    }

    #[test]
    fn update_drawer_is_judged_on_its_current_wing_and_its_new_one() {
        let p = policy();
        assert!(p.needs_current("lap", "mempalace_update_drawer"));
        assert!(!p.needs_current("hub", "mempalace_update_drawer"));
        let into = json!({"drawer_id": "d", "wing": "wing_lap"});
        assert_eq!(
            rule(
                &p,
                "lap",
                "mempalace_update_drawer",
                into.clone(),
                Some("wing_desk")
            ),
            "wings.write:wing_desk",
            "out of another's wing"
        );
        assert_eq!(
            rule(
                &p,
                "lap",
                "mempalace_update_drawer",
                into,
                Some("wing_lap2")
            ),
            "role:member"
        );
        let out = json!({"drawer_id": "d", "wing": "wing_desk"});
        assert_eq!(
            rule(&p, "lap", "mempalace_update_drawer", out, Some("wing_lap")),
            "wings.write:wing_desk"
        );
        let content = json!({"drawer_id": "d", "content": "x"});
        assert_eq!(
            rule(
                &p,
                "desk",
                "mempalace_update_drawer",
                content,
                Some("wing_rules")
            ),
            "protected_wings:wing_rules"
        );
    }

    #[test]
    fn a_scoped_miner_sees_mine_listed() {
        let mut p = policy();
        assert!(!p.lists("lap", "mempalace_mine"));
        p.devices.get_mut("lap").unwrap().mine = Some(super::super::MineScope {
            source_prefix: "/srv/inbox".into(),
            max_file_bytes: None,
            max_bytes: None,
        });
        assert!(p.lists("lap", "mempalace_mine"));
        assert!(!p.lists("lap", "mempalace_delete_drawer"));
        assert!(p.lists("lap", "mempalace_add_drawer"));
    }

    #[test]
    fn rewrites_are_returned_and_strict_devices_refused() {
        let p = policy();
        let v = p.call(
            "lap",
            "t",
            "mempalace_add_drawer",
            &json!({"wing": "wing_lap", "room": "r", "content": "c", "added_by": "pi@desk"}),
            &Current::default(),
        );
        assert_eq!(
            v.rewrites.iter().map(Rewrite::label).collect::<Vec<_>>(),
            ["rewrote:/added_by"]
        );
        let v = p.call(
            "desk",
            "t",
            "mempalace_add_drawer",
            &json!({"wing": "w", "room": "r", "content": "c", "added_by": "pi@lap"}),
            &Current::default(),
        );
        assert_eq!(v.decision.rule, "provenance:strict:added_by");
        assert!(!v.decision.allowed);
    }
}
