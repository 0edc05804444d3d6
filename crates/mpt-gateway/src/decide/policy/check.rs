//! The policy's own `tests`: a device, a tool, its arguments and the decision expected; run at
//! every load by a gateway (a policy whose tests fail is not used) and by `mpt gateway policy check`.

use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Current, Policy};
use mpt_base::error::{MptError, Result};
use mpt_palace::catalog;

/// The token id a test's calls are decided as (`metadata.mpt.token_id`).
const TEST_TOKEN: &str = "policy-test";

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Test {
    /// What it proves (named when it fails; else its place in the list).
    #[serde(default)]
    pub name: Option<String>,
    pub device: String,
    pub tool: String,
    #[serde(default = "no_args")]
    pub args: Value,
    pub expect: Expect,
    /// What a rule would look up on the primary (`update_drawer`'s wing), or resolve on its
    /// filesystem (a scoped mine's source): `policy check` never calls the primary.
    #[serde(default)]
    pub current: Current,
}

fn no_args() -> Value {
    Value::Object(Default::default())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Expect {
    Allow,
    Deny,
}

/// A test whose decision is not the one it expects.
#[derive(Debug, Clone, Serialize)]
pub struct Failure {
    pub test: String,
    pub expected: Expect,
    pub rule: String,
}

impl Test {
    /// What names it: its `name`, else `tests[i]`.
    fn label(&self, i: usize) -> String {
        self.name.clone().unwrap_or_else(|| format!("tests[{i}]"))
    }

    /// Its values, checked as the file is read: a device the policy names, a tool MemPalace has.
    pub(super) fn check(&self, i: usize, policy: &Policy) -> std::result::Result<(), String> {
        let me = self.label(i);
        if policy.device(&self.device).is_none() {
            return Err(format!(
                "test '{me}': device '{}' is not in devices",
                self.device
            ));
        }
        if catalog::known(&self.tool).is_none() {
            return Err(format!(
                "test '{me}': tool '{}' is not a MemPalace 3.11 tool",
                self.tool
            ));
        }
        if !self.args.is_object() {
            return Err(format!("test '{me}': args must be an object"));
        }
        Ok(())
    }
}

impl Policy {
    /// Each test whose decision differs from what it expects.
    pub fn failing_tests(&self) -> Vec<Failure> {
        self.tests
            .iter()
            .enumerate()
            .filter_map(|(i, t)| {
                let tool = catalog::full_name(&t.tool);
                let v = self.call(&t.device, TEST_TOKEN, &tool, &t.args, &t.current);
                let allowed = t.expect == Expect::Allow;
                (v.decision.allowed != allowed).then(|| Failure {
                    test: t.label(i),
                    expected: t.expect,
                    rule: v.decision.rule,
                })
            })
            .collect()
    }

    /// [`Policy::load`], then its tests: a policy whose tests fail is exit 3 naming the first
    /// (what a running gateway loads: the last good policy stays in use).
    pub fn load_tested(path: &Path) -> Result<Policy> {
        let policy = Policy::load(path)?;
        match policy.failing_tests().first() {
            None => Ok(policy),
            Some(f) => Err(MptError::new(
                mpt_base::error::ErrorKind::CheckFailed,
                format!(
                    "{}: policy test '{}' expected {} but the rule '{}' decides otherwise",
                    path.display(),
                    f.test,
                    f.expected.as_str(),
                    f.rule
                ),
            )
            .with_hint(format!(
                "fix the policy or the test, then `mpt gateway policy check {}`",
                path.display()
            ))),
        }
    }
}

impl Expect {
    pub fn as_str(self) -> &'static str {
        match self {
            Expect::Allow => "allow",
            Expect::Deny => "deny",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(tests: Value) -> Result<Policy> {
        Policy::parse(
            &json!({"schema": super::super::SCHEMA, "protected_wings": ["wing_rules"],
                "devices": {"lap": {"role": "member", "wings": {"write": ["wing_lap*"]}}},
                "tests": tests})
            .to_string(),
            Path::new("/p.json"),
        )
    }

    #[test]
    fn tests_pass_fail_and_take_lookups_from_current() {
        let p = parse(json!([
            {"name": "own wing", "device": "lap", "tool": "add_drawer", "args": {"wing": "wing_lap", "room": "r", "content": "c"}, "expect": "allow"},
            {"device": "lap", "tool": "mempalace_add_drawer", "args": {"wing": "wing_rules", "room": "r", "content": "c"}, "expect": "deny"},
            {"name": "move out of desk", "device": "lap", "tool": "update_drawer", "args": {"drawer_id": "d", "wing": "wing_lap"}, "current": {"wing": "wing_desk"}, "expect": "allow"}
        ]))
        .unwrap();
        let failed = p.failing_tests();
        assert_eq!(failed.len(), 1, "{failed:?}");
        assert_eq!(failed[0].test, "move out of desk");
        assert_eq!(failed[0].rule, "wings.write:wing_desk");
    }

    #[test]
    fn a_scoped_mine_test_takes_its_resolved_source_from_current() {
        let p = Policy::parse(
            &json!({"schema": super::super::SCHEMA,
                "devices": {"lap": {"role": "member", "mine": {"source_prefix": "/srv/inbox/lap"}}},
                "tests": [
                    {"name": "in", "device": "lap", "tool": "mine", "expect": "allow",
                     "args": {"source": "/srv/inbox/lap/x", "mode": "convos", "wing": "wing_lap"},
                     "current": {"source": "/srv/inbox/lap/x"}},
                    {"name": "a link out", "device": "lap", "tool": "mine", "expect": "deny",
                     "args": {"source": "/srv/inbox/lap/link", "mode": "convos", "wing": "wing_lap"},
                     "current": {"source": "/etc"}}]})
            .to_string(),
            Path::new("/p.json"),
        )
        .unwrap();
        assert!(p.failing_tests().is_empty(), "{:?}", p.failing_tests());
    }

    #[test]
    fn a_test_naming_an_unknown_device_tool_or_field_is_refused() {
        for (tests, code) in [
            (
                json!([{"device": "nope", "tool": "search", "expect": "allow"}]),
                2,
            ),
            (
                json!([{"device": "lap", "tool": "serch", "expect": "allow"}]),
                2,
            ),
            (
                json!([{"device": "lap", "tool": "search", "expect": "maybe"}]),
                2,
            ),
            (
                json!([{"device": "lap", "tool": "search", "expect": "allow", "why": 1}]),
                4,
            ),
            (
                json!([{"device": "lap", "tool": "search", "args": [], "expect": "allow"}]),
                2,
            ),
        ] {
            let e = parse(tests.clone()).unwrap_err();
            assert_eq!(e.exit().code(), code, "{tests}: {}", e.message);
        }
    }
}
