//! What a device may do: every valid token the protocol methods; an observer the reads and the
//! pull routes; a member the writes too; an admin everything (delete, maintenance, the estate).

use super::{Policy, Role};
use mpt_palace::catalog::{self, Tier};

/// Allowed or not, and the rule that decided (for the audit and the refusal).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    pub allowed: bool,
    pub rule: String,
}

impl Decision {
    pub(super) fn allow(rule: impl Into<String>) -> Decision {
        Decision {
            allowed: true,
            rule: rule.into(),
        }
    }

    pub(super) fn deny(rule: impl Into<String>) -> Decision {
        Decision {
            allowed: false,
            rule: rule.into(),
        }
    }
}

/// An HTTP route of `mempalace serve`, as the policy sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// `POST /mcp`: decided per JSON-RPC method and tool.
    Mcp,
    /// `GET /whoami`: answered by the gateway for any valid token.
    Whoami,
    /// `GET /sync/version_vector`: every edge's merge gate and doctor (trimmed for non-admins).
    Vector,
    /// `GET /sync/ops`, `/sync/artifact`: a whole replica of the coordination log, so only for
    /// a device that reads every stream (a partial one would look complete).
    Pull,
    /// `GET /logstream/stream`: the coordination log as it grows (what event_wait reads).
    LogStream,
    /// `GET /statusz`, `/sync/peers`: the server's clients and the estate.
    Ops,
    /// Anything else: admin's, forwarded as it is.
    Other,
}

impl Route {
    pub fn of(method: &str, path: &str) -> Route {
        match (method, path) {
            ("POST", "/mcp") => Route::Mcp,
            ("GET", "/whoami") => Route::Whoami,
            ("GET", "/sync/version_vector") => Route::Vector,
            ("GET", "/sync/ops" | "/sync/artifact") => Route::Pull,
            ("GET", "/logstream/stream") => Route::LogStream,
            ("GET", "/statusz" | "/sync/peers") => Route::Ops,
            _ => Route::Other,
        }
    }

    fn tier(self) -> Tier {
        match self {
            Route::Mcp | Route::Whoami | Route::Vector | Route::Pull | Route::LogStream => {
                Tier::Observer
            }
            Route::Ops | Route::Other => Tier::Admin,
        }
    }

    /// The audit's class for a request on this route.
    pub fn class(self) -> &'static str {
        match self {
            Route::Mcp => "rpc",
            Route::Whoami | Route::Vector | Route::Pull | Route::LogStream => "read",
            Route::Ops => "ops",
            Route::Other => "other",
        }
    }
}

/// JSON-RPC methods every valid token may send (besides notifications).
const PROTOCOL: &[&str] = &["initialize", "ping", "tools/list"];

impl Policy {
    /// Whether `device` may call `tool` (bare or full name; one the catalog does not know is admin's).
    pub fn tool(&self, device: &str, tool: &str) -> Decision {
        match catalog::known(tool) {
            Some(row) => self.tier(device, row.tier, ""),
            None => self.tier(device, Tier::Admin, " (unknown tool)"),
        }
    }

    /// Whether `device` may send a JSON-RPC `method` other than `tools/call`.
    pub fn method(&self, device: &str, method: &str) -> Decision {
        if PROTOCOL.contains(&method) || method.starts_with("notifications/") {
            self.tier(device, Tier::Observer, "")
        } else {
            self.tier(device, Tier::Admin, " (unknown method)")
        }
    }

    /// Whether `device` may use an HTTP route.
    pub fn route(&self, device: &str, route: Route) -> Decision {
        let d = self.tier(device, route.tier(), "");
        if d.allowed && route == Route::Pull && self.stream_reads(device).is_some() {
            return Decision::deny("streams.read:sync");
        }
        d
    }

    fn tier(&self, device: &str, tier: Tier, why: &str) -> Decision {
        let Some(d) = self.device(device) else {
            return Decision::deny("device:not_in_policy");
        };
        let needed = match tier {
            Tier::Observer => Role::Observer,
            Tier::Member => Role::Member,
            Tier::Admin => Role::Admin,
            Tier::Sync if !self.allow_sync => return Decision::deny("allow_sync:false"),
            Tier::Sync => Role::Admin,
        };
        if d.role >= needed {
            Decision::allow(format!("role:{}", d.role.as_str()))
        } else {
            Decision::deny(format!("needs:{}{why}", needed.as_str()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn policy(allow_sync: bool) -> Policy {
        Policy::parse(
            &format!(
                r#"{{"schema": "{}", "allow_sync": {allow_sync}, "devices": {{
                    "obs": {{"role": "observer"}}, "mem": {{"role": "member"}}, "adm": {{"role": "admin"}}}}}}"#,
                super::super::SCHEMA
            ),
            Path::new("/p.json"),
        )
        .unwrap()
    }

    #[test]
    fn each_role_gets_its_tier_and_no_more() {
        let p = policy(false);
        let may = |d: &str, t: &str| p.tool(d, t).allowed;
        assert!(may("obs", "mempalace_search"));
        assert!(!may("obs", "mempalace_follow_tunnels"), "it writes counts");
        assert!(!may("obs", "mempalace_add_drawer"));
        assert!(may("mem", "mempalace_add_drawer"));
        assert!(may("mem", "mempalace_kg_add"));
        assert!(may("mem", "mempalace_event_ack"));
        for admin_only in [
            "mempalace_delete_drawer",
            "mempalace_mine",
            "mempalace_reconnect",
            "mempalace_hook_settings",
            "mempalace_memories_filed_away",
            "mempalace_mesh_peers",
            "mempalace_brand_new_tool",
        ] {
            assert!(!may("mem", admin_only), "{admin_only}");
            assert!(may("adm", admin_only), "{admin_only}");
        }
        assert_eq!(p.tool("mem", "mempalace_delete_drawer").rule, "needs:admin");
        assert_eq!(
            p.tool("mem", "mempalace_brand_new_tool").rule,
            "needs:admin (unknown tool)"
        );
        assert_eq!(
            p.tool("nobody", "mempalace_search").rule,
            "device:not_in_policy"
        );
    }

    #[test]
    fn sync_needs_the_policy_switch_and_then_an_admin() {
        assert_eq!(
            policy(false).tool("adm", "mempalace_sync").rule,
            "allow_sync:false"
        );
        assert!(policy(true).tool("adm", "mempalace_sync").allowed);
        assert!(!policy(true).tool("mem", "mempalace_sync").allowed);
    }

    #[test]
    fn routes_and_methods() {
        let p = policy(false);
        assert!(p.route("obs", Route::of("GET", "/sync/ops")).allowed);
        assert_eq!(Route::of("GET", "/sync/version_vector"), Route::Vector);
        assert!(
            p.route("obs", Route::of("GET", "/logstream/stream"))
                .allowed
        );
        assert!(!p.route("mem", Route::of("GET", "/statusz")).allowed);
        assert!(!p.route("mem", Route::of("GET", "/sync/peers")).allowed);
        assert!(p.route("adm", Route::of("GET", "/sync/peers")).allowed);
        assert!(!p.route("mem", Route::of("POST", "/other")).allowed);
        assert!(p.method("obs", "tools/list").allowed);
        assert!(p.method("obs", "notifications/initialized").allowed);
        assert!(!p.method("mem", "resources/list").allowed);
    }
}
