//! What the gateway tells a device of its policy (`/whoami`): its own entry and the rules every
//! device is held to, nothing of other devices; an edge judges its writes with it, as the gateway.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Current, Device, Globs, Policy, Provenance, SCHEMA};

/// One device's share of the policy.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OwnView {
    pub device: Device,
    /// The wings only admins write: a floor the device's own grants do not lift.
    pub protected_wings: Globs,
    pub provenance: Provenance,
    pub allow_sync: bool,
}

impl Policy {
    /// `device`'s share (`None`: the policy does not name it).
    pub fn own_view(&self, device: &str) -> Option<OwnView> {
        Some(OwnView {
            device: self.device(device)?.clone(),
            protected_wings: self.protected_wings.clone(),
            provenance: self.provenance,
            allow_sync: self.allow_sync,
        })
    }
}

/// A device's writes judged where it makes them, by the gateway's own code on its share of the
/// policy: the rule the gateway would refuse a write by, before it is queued.
#[derive(Debug, Clone)]
pub struct OwnJudge {
    device: String,
    token_id: String,
    policy: Policy,
}

impl OwnJudge {
    /// From `/whoami`'s `policy` (`None`: a gateway that does not send it, or one this build
    /// cannot read: nothing is judged ahead, the gateway decides as before).
    pub fn of(device: &str, token_id: &str, view: &Value) -> Option<OwnJudge> {
        let view: OwnView = serde_json::from_value(view.clone()).ok()?;
        let policy = Policy {
            schema: SCHEMA.to_string(),
            allow_sync: view.allow_sync,
            protected_wings: view.protected_wings,
            provenance: view.provenance,
            devices: [(device.to_string(), view.device)].into(),
            tests: Vec::new(),
        };
        Some(OwnJudge {
            device: device.to_string(),
            token_id: token_id.to_string(),
            policy,
        })
    }

    /// Why the gateway refuses `tool` with `args`, or `None`: allowed, or not decidable here (it
    /// needs the primary's copy: an update's drawer, an ack's event).
    pub fn refusal(&self, tool: &str, args: &Value) -> Option<Refusal> {
        let p = &self.policy;
        if p.needs_current(&self.device, tool) || p.needs_stream(&self.device, tool) {
            return None;
        }
        let verdict = p.call(
            &self.device,
            &self.token_id,
            tool,
            args,
            &Current::default(),
        );
        (!verdict.decision.allowed).then(|| Refusal {
            instead: p.instead(&self.device, &verdict.decision.rule),
            rule: verdict.decision.rule,
            device: self.device.clone(),
        })
    }
}

/// A write the gateway would refuse: its rule, and what the device may do instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub rule: String,
    pub instead: String,
    pub device: String,
}

impl Refusal {
    /// The gateway's own answer to the call (a tool error naming the rule).
    pub fn tool_result(&self, tool: &str) -> Value {
        crate::http::reply::denied_tool_result(&self.device, tool, &self.rule, &self.instead)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn policy() -> Policy {
        Policy::parse(
            &json!({
                "schema": SCHEMA,
                "protected_wings": ["wing_rules*"],
                "devices": {
                    "lap": {"role": "member", "wings": {"write": ["wing_lap*", "wing_rules"]},
                            "streams": {"write": ["project/*"]}, "kg": "read"},
                    "ci": {"role": "observer"},
                    "root": {"role": "admin"},
                }
            })
            .to_string(),
            std::path::Path::new("policy.json"),
        )
        .unwrap()
    }

    /// The share a device is sent, read back by its edge, decides every call as the whole
    /// policy does (the calls that need the primary's copy aside).
    #[test]
    fn a_devices_share_decides_its_writes_as_the_whole_policy_does() {
        let p = policy();
        let calls = [
            (
                "mempalace_add_drawer",
                json!({"wing": "wing_lap", "room": "r", "content": "c"}),
            ),
            (
                "mempalace_add_drawer",
                json!({"wing": "wing_desk", "room": "r", "content": "c"}),
            ),
            (
                "mempalace_add_drawer",
                json!({"wing": "wing_rules", "room": "r", "content": "c"}),
            ),
            (
                "mempalace_add_drawer",
                json!({"wing": " wing_desk\u{1c}", "room": "r", "content": "c"}),
            ),
            (
                "mempalace_add_drawer",
                json!({"wing": "wing_lap", "room": "r", "content": "c", "extra": 1}),
            ),
            (
                "mempalace_kg_add",
                json!({"subject": "a", "predicate": "b", "object": "c"}),
            ),
            ("mempalace_hook_settings", json!({"silent_save": true})),
            (
                "mempalace_diary_write",
                json!({"agent_name": "pi", "entry": "e"}),
            ),
            (
                "mempalace_event_append",
                json!({"type": "note", "stream": "project/x", "room": "r", "from_agent": "pi@lap"}),
            ),
            (
                "mempalace_event_append",
                json!({"type": "note", "stream": "fleet", "room": "r", "from_agent": "pi@lap"}),
            ),
        ];
        for device in ["lap", "ci", "root"] {
            let share = serde_json::to_value(p.own_view(device).unwrap()).unwrap();
            assert!(!share.to_string().contains("\"ci\""), "{share}");
            let judge = OwnJudge::of(device, "K7Q2X9ZPA1", &share).unwrap();
            for (tool, args) in &calls {
                let whole = p.call(device, "K7Q2X9ZPA1", tool, args, &Current::default());
                let ahead = judge.refusal(tool, args).map(|r| r.rule);
                let expected = (!whole.decision.allowed).then_some(whole.decision.rule);
                assert_eq!(ahead, expected, "{device} {tool} {args}");
            }
        }
        let lap = OwnJudge::of(
            "lap",
            "K",
            &serde_json::to_value(p.own_view("lap")).unwrap(),
        );
        let r = lap
            .unwrap()
            .refusal(
                "mempalace_add_drawer",
                &json!({"wing": "wing_desk", "room": "r", "content": "c"}),
            )
            .unwrap();
        assert_eq!(r.rule, "wings.write:wing_desk");
        let result = r.tool_result("mempalace_add_drawer");
        assert_eq!(result["isError"], true);
        assert!(
            result["content"][0]["text"]
                .as_str()
                .unwrap()
                .contains("it may write only")
        );
    }

    #[test]
    fn a_share_this_build_cannot_read_judges_nothing() {
        assert!(
            OwnJudge::of(
                "lap",
                "K",
                &json!({"device": {"role": "member"}, "future": 1})
            )
            .is_none()
        );
        assert!(OwnJudge::of("lap", "K", &json!("member")).is_none());
    }
}
