//! Devices through the real gateway (issue 28), each with its own token: a write the device's
//! policy refuses kept local and said so, one the gateway refuses later failing alone, an observer whose direct write goes back to
//! the harness, a revoked token named in status and doctor with its fix, rate limits waited out.

use serde_json::{Value, json};

use crate::support::fleet::Device;
use crate::support::gateway::{Setup, get};
use crate::support::{json as parse_json, stderr, stdout, wait_for};

/// The drawer `id` on the primary (straight, not through the gateway).
fn on_primary(s: &Setup, id: &Value) -> bool {
    s.p.call("mempalace_get_drawer", json!({"drawer_id": id}))
        .is_ok_and(|d| &d["drawer_id"] == id)
}

/// `mpt --json outbox list --state STATE` on the device: its ops.
fn ops(d: &Device, state: &str) -> Vec<Value> {
    parse_json(&d.mpt(&["--json", "outbox", "list", "--state", state]))["ops"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// The gateway's denials of `device` (`mpt gateway audit --denied`).
fn denials(s: &Setup, device: &str) -> Vec<Value> {
    let o = s.host_mpt(&["--json", "gateway", "audit", "--denied", "--device", device]);
    assert!(o.status.success(), "{}", stderr(&o));
    parse_json(&o)["records"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

#[test]
fn a_write_the_members_policy_refuses_stays_local_and_says_so() {
    let s = Setup::new(json!({
        "lap": {"role": "member", "wings": {"write": ["wing_lap*"]}},
        "desk": {"role": "member"},
    }));
    // `/whoami` hands the device its own share of the policy, nothing of the others'.
    let me = get(s.gw.port, &s.token("lap"), "/whoami").json();
    assert_eq!(me["policy"]["device"]["role"], "member", "{me}");
    assert_eq!(
        me["policy"]["device"]["wings"]["write"],
        json!(["wing_lap*"]),
        "{me}"
    );
    assert!(me["policy"]["protected_wings"].is_array(), "{me}");
    assert!(!me.to_string().contains("desk"), "no other device: {me}");

    let lap = s.device("lap");
    let mut h = lap.session("pi", &[]);
    // Outside its wings, and an admin's tool: applied here, never queued, and said so.
    let desk = h
        .call(
            "mempalace_add_drawer",
            json!({"wing": "wing_desk", "room": "r", "content": "a note lap keeps for itself"}),
        )
        .unwrap();
    assert_eq!(desk["success"], true, "{desk}");
    assert_eq!(desk["fleet"], "local only: wings.write:wing_desk", "{desk}");
    let hook = h
        .call("mempalace_hook_settings", json!({"silent_save": true}))
        .unwrap();
    assert_eq!(hook["fleet"], "local only: needs:admin", "{hook}");
    // Its own wing: shared as ever.
    let own = h
        .call(
            "mempalace_add_drawer",
            json!({"wing": "wing_lap", "room": "r", "content": "a note for the fleet"}),
        )
        .unwrap();
    assert!(own.get("fleet").is_none(), "{own}");
    assert!(wait_for(60.0, || on_primary(&s, &own["drawer_id"])));
    let o = lap.mpt(&["outbox", "flush", "--wait"]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    assert_eq!(lap.outbox()["open"], 0, "nothing to drop: {}", lap.outbox());
    assert!(ops(&lap, "failed").is_empty());
    assert!(!on_primary(&s, &desk["drawer_id"]));
    assert!(
        denials(&s, "lap").is_empty(),
        "nothing was sent to be refused"
    );
}

#[test]
fn a_members_denied_write_fails_alone_and_the_next_write_drains() {
    // The edge judged the write by the policy it last learned (all wings); the operator narrowed
    // it since: the gateway refuses the queued op, which fails alone.
    let s = Setup::new(json!({"lap": {"role": "member", "wings": {"write": ["wing_*"]}}}));
    let lap = s.device("lap");
    let mut h = lap.session("pi", &[]);
    crate::support::gateway::write_policy(
        &s.dir,
        &crate::support::gateway::policy(
            json!({"lap": {"role": "member", "wings": {"write": ["wing_lap*"]}}}),
        ),
    );
    assert!(
        wait_for(
            30.0,
            || get(s.gw.port, &s.token("lap"), "/whoami").json()["policy"]["device"]["wings"]["write"]
                == json!(["wing_lap*"])
        ),
        "the gateway reloaded its policy"
    );

    // Applied on the local palace, queued, and refused by the gateway: failed at once.
    let local = h
        .call(
            "mempalace_add_drawer",
            json!({"wing": "wing_desk", "room": "r", "content": "desk's wing, narrowed away"}),
        )
        .unwrap();
    assert_eq!(local["success"], true, "{local}");
    assert!(
        local.get("fleet").is_none(),
        "judged by the older policy: {local}"
    );
    let a = h
        .call(
            "mempalace_add_drawer",
            json!({"wing": "wing_lap", "room": "r", "content": "written after a denied write"}),
        )
        .unwrap();
    assert!(
        wait_for(60.0, || on_primary(&s, &a["drawer_id"])),
        "the next write drained past the denied one"
    );
    assert!(wait_for(30.0, || ops(&lap, "failed").len() == 1));
    let failed = &ops(&lap, "failed")[0];
    assert_eq!(failed["tool"], "mempalace_add_drawer", "{failed}");
    assert_eq!(failed["error"]["rule"], "wings.write:wing_desk", "{failed}");
    assert_eq!(failed["error"]["kind"], "refused", "{failed}");
    assert_eq!(failed["attempts"], 1, "never retried: {failed}");
    assert_eq!(
        failed["unconfirmed"], false,
        "a denial applied nothing: {failed}"
    );
    let denied = denials(&s, "lap");
    assert_eq!(denied.len(), 1, "one send, one denial: {denied:?}");
    assert_eq!(denied[0]["tool"], "mempalace_add_drawer");

    // Loud everywhere: the outbox, its flush (exit 3), the edge's status, doctor.
    let o = lap.mpt(&["outbox"]);
    assert!(
        stdout(&o).contains("rule wings.write:wing_desk"),
        "{}",
        stdout(&o)
    );
    let o = lap.mpt(&["outbox", "flush", "--wait"]);
    assert_eq!(o.status.code(), Some(3), "{}{}", stdout(&o), stderr(&o));
    assert!(
        stdout(&o).contains("was refused by the primary's gateway (rule wings.write:wing_desk)"),
        "{}",
        stdout(&o)
    );
    let st = parse_json(&lap.mpt(&["--json", "edge", "status"]));
    assert_eq!(
        st["outbox"]["first_failed"]["error"]["rule"], "wings.write:wing_desk",
        "{st}"
    );
    assert_eq!(st["outbox"]["held_back"], 0, "it holds back nothing: {st}");
    let o = lap.mpt(&["edge", "status"]);
    assert!(
        stdout(&o).contains("refused by the primary's gateway, rule wings.write:wing_desk"),
        "{}",
        stdout(&o)
    );
    let o = lap.mpt(&["--json", "doctor", "--check", "outbox"]);
    assert_eq!(o.status.code(), Some(3));
    let check = &parse_json(&o)["checks"][0];
    assert_eq!(check["status"], "fail", "{check}");
    assert!(
        check["evidence"]
            .to_string()
            .contains("rule wings.write:wing_desk"),
        "{check}"
    );
    assert!(
        check["fix"].as_str().unwrap().contains("policy.json"),
        "{check}"
    );
    assert_eq!(denials(&s, "lap").len(), 1, "no flush resent it");

    // `mpt call` of a write outside the member's wings: exit 4, naming the rule.
    let o = lap.mpt(&[
        "--json",
        "call",
        "add_drawer",
        r#"{"wing": "wing_desk", "room": "r", "content": "not lap's wing"}"#,
    ]);
    assert_eq!(o.status.code(), Some(4), "{}{}", stdout(&o), stderr(&o));
    let v = parse_json(&o);
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .contains("rule wings.write:wing_desk"),
        "{v}"
    );
    assert_eq!(v["detail"]["rule"], "wings.write:wing_desk", "{v}");
}

#[test]
fn an_observers_direct_write_goes_back_to_the_harness_and_is_neither_applied_nor_queued() {
    let s = Setup::new(json!({"ci": {"role": "observer"}}));
    let ci = s.device("ci");
    let mut h = ci.session("pi", &[]);
    let body = "an ask an observer may not make";
    let r = h.request(
        "tools/call",
        json!({"name": "mempalace_event_append", "arguments": {"type": "task.request", "stream": "s", "room": "r", "to_agent": "codex@desk", "status": "open", "body": body}}),
    );
    // The gateway's tool error as it sent it, so the harness's model reads what it may do.
    let result = &r["result"];
    assert_eq!(result["isError"], true, "{r}");
    assert_eq!(result["_meta"]["mpt/denial"]["rule"], "needs:member", "{r}");
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains("needs:member") && text.contains("may only read"),
        "{text}"
    );
    assert_eq!(
        ci.local_count("body = ?1", body),
        0,
        "never applied on the local palace"
    );
    assert_eq!(ci.outbox()["open"], 0, "never queued");
    // A drawer or a fact: kept on its own palace, never queued, and said so.
    let fact = h
        .call(
            "mempalace_kg_add",
            json!({"subject": "ci", "predicate": "saw", "object": "green"}),
        )
        .unwrap();
    assert_eq!(fact["fleet"], "local only: needs:member", "{fact}");
    assert_eq!(ci.outbox()["open"], 0, "never queued");
    assert!(
        denials(&s, "ci").is_empty(),
        "judged on the device, never sent"
    );
    // Its reads pass: the observer reads the shared log.
    let listed = h
        .call("mempalace_event_list", json!({"stream": "s"}))
        .unwrap();
    assert!(listed.get("degraded").is_none(), "{listed}");
    // And `mpt call` names the rule, exit 4.
    let o = ci.mpt(&[
        "--json",
        "call",
        "kg_add",
        r#"{"subject": "a", "predicate": "b", "object": "c"}"#,
    ]);
    assert_eq!(o.status.code(), Some(4), "{}", stdout(&o));
    assert!(
        parse_json(&o)["message"]
            .as_str()
            .unwrap()
            .contains("rule needs:member")
    );
}

#[test]
fn a_revoked_token_is_named_in_status_and_doctor_with_its_fix() {
    let s = Setup::new(json!({"lap": {"role": "member"}}));
    let lap = s.device("lap");
    let mut h = lap.session("pi", &[]);
    let a = h
        .call(
            "mempalace_add_drawer",
            json!({"wing": "wing_lap", "room": "r", "content": "before the revoke"}),
        )
        .unwrap();
    assert!(wait_for(60.0, || on_primary(&s, &a["drawer_id"])));
    let o = s.host_mpt(&["gateway", "token", "revoke", "lap"]);
    assert!(o.status.success(), "{}", stderr(&o));

    // Still written here, queued, and the flush says why it cannot send.
    let b = h
        .call(
            "mempalace_add_drawer",
            json!({"wing": "wing_lap", "room": "r", "content": "after the revoke"}),
        )
        .unwrap();
    assert_eq!(b["success"], true);
    let fix = "mpt gateway token rotate lap --out ~/.config/mpt/lap.token --force";
    let o = lap.mpt(&["--json", "outbox", "flush", "--wait"]);
    assert_eq!(o.status.code(), Some(4), "{}", stdout(&o));
    let flushed = parse_json(&o);
    assert!(
        flushed["error"]["message"]
            .as_str()
            .unwrap()
            .contains("(revoked)"),
        "{flushed}"
    );
    let o = lap.mpt(&["--json", "edge", "status"]);
    assert_eq!(
        o.status.code(),
        Some(3),
        "a refused token fails status as doctor"
    );
    let st = parse_json(&o);
    assert_eq!(st["primary"]["auth"], "refused", "{st}");
    assert_eq!(st["primary"]["token"], "revoked", "{st}");
    assert!(
        st["primary"]["error"]["hint"]
            .as_str()
            .unwrap()
            .contains(fix),
        "{st}"
    );
    // The token comes from the environment: only a restart makes a harness see a new one.
    assert!(
        st["primary"]["error"]["hint"]
            .as_str()
            .unwrap()
            .contains("then restart the harness sessions"),
        "{st}"
    );
    let o = lap.mpt(&["edge", "status"]);
    assert!(stdout(&o).contains("it was revoked"), "{}", stdout(&o));
    assert!(stdout(&o).contains(fix), "{}", stdout(&o));
    for check in ["transport", "outbox"] {
        let o = lap.mpt(&["--json", "doctor", "--check", check]);
        assert_eq!(o.status.code(), Some(3), "{check}: {}", stdout(&o));
        let c = &parse_json(&o)["checks"][0];
        assert_eq!(c["status"], "fail", "{c}");
        assert!(c["summary"].as_str().unwrap().contains("revoked"), "{c}");
        assert!(c["fix"].as_str().unwrap().contains(fix), "{c}");
    }
    assert_eq!(ops(&lap, "failed").len(), 0, "a refused token fails no op");
    // Every command's fix names this device (item 4): `mailbox` here.
    let o = lap.mpt(&["--json", "mailbox"]);
    assert_eq!(o.status.code(), Some(4), "{}", stdout(&o));
    assert!(
        parse_json(&o)["hint"]
            .as_str()
            .unwrap()
            .contains("rotate lap --out ~/.config/mpt/lap.token --force"),
        "{}",
        stdout(&o)
    );
    // The pull says the token was refused as every refusal is said, not Python's text (item 10).
    let spec = mpt_coord::pull::PullSpec {
        python: crate::support::venv_bin("python3"),
        palace: lap.palace.clone(),
        base_url: format!("http://127.0.0.1:{}", s.gw.port),
        token: Some(mpt_base::config::Secret::new(lap.token.clone())),
        ca_file: None,
        deadline: std::time::Duration::from_secs(60),
        memory: None,
    };
    let pulled = tokio::runtime::Runtime::new()
        .unwrap()
        .block_on(mpt_coord::pull::pull_once(&spec, None));
    let said = pulled.unwrap_err().to_string();
    assert!(!said.contains("HTTP Error"), "{said}");
    assert!(
        said.contains("refused this device's token (revoked)"),
        "{said}"
    );
    // The embedder check names the refused token, not the endpoint (issue 56, item 8).
    let o = lap.mpt(&["--json", "doctor", "--check", "embedder"]);
    let c = &parse_json(&o)["checks"][0];
    assert!(
        c["summary"]
            .as_str()
            .unwrap()
            .contains("refused this device's token"),
        "{c}"
    );
    assert!(
        c.get("fix")
            .is_none_or(|f| !f.to_string().contains("version_vector")),
        "{c}"
    );
    // And a device with the URL but no token at all is told so, not "malformed".
    let o = lap.mpt_with(
        &["--json", "doctor", "--check", "transport"],
        &[("MEMPALACE_REMOTE_TOKEN", "")],
    );
    let c = &parse_json(&o)["checks"][0];
    assert!(
        c["summary"].as_str().unwrap().contains("no token set"),
        "{c}"
    );

    // The fix works: a new token flushes what waited.
    let token_file = s.env.path("lap.token");
    let o = s.host_mpt(&[
        "gateway",
        "token",
        "rotate",
        "lap",
        "--out",
        token_file.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let line = std::fs::read_to_string(&token_file).unwrap();
    let token = line.trim();
    drop(h);
    let o = lap.mpt_with(
        &["outbox", "flush", "--wait"],
        &[("MEMPALACE_REMOTE_TOKEN", token)],
    );
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(on_primary(&s, &b["drawer_id"]));
}

#[test]
fn a_rate_limit_is_waited_out_in_a_flush_and_named_by_mpt_call() {
    let s = Setup::new(json!({
        "busy": {"role": "member", "rate": {"per_s": 1, "burst": 3}},
        "slow": {"role": "member", "rate": {"per_s": 0.001, "burst": 3}},
    }));
    // The handshake takes the burst of three; the call is past the rate: exit 7, Retry-After.
    let slow = s.device("slow");
    let o = slow.mpt(&["--json", "call", "kg_stats"]);
    assert_eq!(o.status.code(), Some(7), "{}{}", stdout(&o), stderr(&o));
    let err = parse_json(&o);
    assert!(
        err["message"].as_str().unwrap().contains("(Retry-After)"),
        "{err}"
    );
    assert!(
        err["detail"]["retry_after_s"].as_u64().unwrap() > 1,
        "{err}"
    );

    // Five ops, a bucket of three: the flush waits each Retry-After out, and nothing fails.
    let busy = s.device("busy");
    for i in 0..5 {
        let o = busy.mpt(&[
            "outbox",
            "enqueue",
            "kg_add",
            &json!({"subject": "bucket", "predicate": "holds", "object": format!("op{i}")})
                .to_string(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let o = busy.mpt(&["--json", "outbox", "flush"]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    let r = parse_json(&o);
    assert_eq!(r["settled"], 5, "{r}");
    assert_eq!(r["hard_failures"], 0, "{r}");
    assert_eq!(r["transient_failures"], 0, "{r}");
    assert!(r["rate_limited"].as_u64().unwrap() >= 1, "{r}");
    assert!(
        ops(&busy, "done").iter().all(|o| o["attempts"] == 0),
        "no attempt counted"
    );
    let facts =
        s.p.call("mempalace_kg_query", json!({"entity": "bucket"}))
            .unwrap();
    assert_eq!(
        facts["active_facts"].as_array().unwrap().len(),
        5,
        "{facts}"
    );
    assert!(
        denials(&s, "busy").iter().any(|d| d["rule"] == "rate"),
        "the gateway's audit records the 429s"
    );
}

#[test]
fn past_its_rate_an_edge_answers_locally_flagged_and_queues_without_failing() {
    let s = Setup::new(json!({"tiny": {"role": "member", "rate": {"per_s": 0.001, "burst": 1}}}));
    let tiny = s.device("tiny");
    // The device's one request of the next quarter hour, spent.
    assert_eq!(get(s.gw.port, &tiny.token, "/whoami").status, 200);
    let mut h = tiny.session("pi", &[]);
    let found = h
        .call("mempalace_search", json!({"query": "anything"}))
        .unwrap();
    assert_eq!(found["degraded"], true, "{found}");
    assert!(
        found["degraded_reason"].as_str().unwrap().contains("429"),
        "{found}"
    );
    let ev = h
        .call(
            "mempalace_event_append",
            json!({"type": "note", "stream": "s", "room": "r", "to_agent": "*", "status": "open", "body": "past the rate"}),
        )
        .unwrap();
    assert_eq!(ev["degraded"], true, "applied locally, flagged: {ev}");
    assert!(
        ev["event"]["id"].is_string(),
        "a local id the agent can use: {ev}"
    );
    h.call(
        "mempalace_add_drawer",
        json!({"wing": "wing_tiny", "room": "r", "content": "queued past the rate"}),
    )
    .unwrap();
    assert!(wait_for(20.0, || ops(&tiny, "queued").len() == 2));
    let o = tiny.mpt(&["--json", "outbox", "flush", "--wait"]);
    assert_eq!(o.status.code(), Some(7), "{}", stdout(&o));
    assert!(
        parse_json(&o)["error"]["message"]
            .as_str()
            .unwrap()
            .contains("Retry-After"),
        "{}",
        stdout(&o)
    );
    assert!(
        ops(&tiny, "failed").is_empty(),
        "a rate limit fails nothing"
    );
}

#[test]
fn doctor_names_this_device_as_the_gateway_does_and_fails_on_another_name() {
    let s = Setup::new(json!({"lap": {"role": "member"}}));
    s.p.call(
        "mempalace_add_drawer",
        json!({"wing": "w", "room": "r", "content": "the primary has a palace"}),
    )
    .unwrap();
    let lap = s.device("lap");
    let o = lap.mpt(&["--json", "doctor", "--check", "transport"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let c = &parse_json(&o)["checks"][0];
    let summary = c["summary"].as_str().unwrap();
    assert!(
        summary.contains("through mpt gateway as device 'lap' (member)"),
        "{c}"
    );
    // The gateway keeps the server's paths to admins: no empty name before a colon.
    assert!(
        summary.starts_with("the primary's palace (its path shown to admins only): 1 drawers"),
        "{c}"
    );
    assert!(c["evidence"].to_string().contains("GET /whoami"), "{c}");
    // A member's doctor does not probe the admin's /statusz: nothing in the denied audit, and
    // the gateway says when it stops (issue 56, item 15).
    let denied = parse_json(&s.host_mpt(&["--json", "gateway", "audit", "--denied"]));
    assert!(
        !denied["records"].to_string().contains("/statusz"),
        "{denied}"
    );

    let o = lap.mpt_with(
        &["--json", "doctor", "--check", "transport"],
        &[("MEMPALACE_PI_DEVICE", "laptop")],
    );
    assert_eq!(o.status.code(), Some(3), "{}", stdout(&o));
    let c = &parse_json(&o)["checks"][0];
    assert_eq!(c["status"], "fail", "{c}");
    let summary = c["summary"].as_str().unwrap();
    assert!(
        summary.contains("'lap'") && summary.contains("'laptop'"),
        "{c}"
    );
    assert!(
        c["fix"]
            .as_str()
            .unwrap()
            .contains("MEMPALACE_PI_DEVICE=lap"),
        "{c}"
    );
    let st = parse_json(&lap.mpt_with(
        &["--json", "edge", "status"],
        &[("MEMPALACE_PI_DEVICE", "laptop")],
    ));
    assert_eq!(st["primary"]["gateway"]["device"], "lap", "{st}");
    assert!(st["primary"]["identity_mismatch"].is_string(), "{st}");
}

#[test]
fn a_running_edge_takes_a_rotated_token_from_its_file_without_a_restart() {
    use std::os::unix::fs::PermissionsExt;
    let s = Setup::new(json!({"lap": {"role": "member"}}));
    let lap = s.device("lap");
    let file = lap.env.path("lap.token");
    std::fs::write(&file, format!("{}\n", lap.token)).unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
    let file_s = file.to_str().unwrap().to_string();
    let mut h = lap.session(
        "pi",
        &[("MEMPALACE_REMOTE_TOKEN", ""), ("MPT_TOKEN_FILE", &file_s)],
    );
    let a = h
        .call(
            "mempalace_add_drawer",
            json!({"wing": "wing_lap", "room": "r", "content": "before the revoke, from the file"}),
        )
        .unwrap();
    assert!(wait_for(60.0, || on_primary(&s, &a["drawer_id"])));
    let o = s.host_mpt(&["gateway", "token", "revoke", "lap"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let b = h
        .call(
            "mempalace_add_drawer",
            json!({"wing": "wing_lap", "room": "r", "content": "after the revoke, queued"}),
        )
        .unwrap();
    assert_eq!(b["success"], true);
    // With a token file, status says no restart is needed (issue 56, item 5).
    let from_file = [
        ("MEMPALACE_REMOTE_TOKEN", ""),
        ("MPT_TOKEN_FILE", file_s.as_str()),
    ];
    let o = lap.mpt_with(&["--json", "edge", "status"], &from_file);
    let st = parse_json(&o);
    let hint = st["primary"]["error"]["hint"].as_str().unwrap();
    assert!(
        hint.contains("no session needs a restart") && !hint.contains("restart the harness"),
        "{st}"
    );
    let o = lap.mpt_with(&["--json", "doctor", "--check", "transport"], &from_file);
    let c = &parse_json(&o)["checks"][0];
    assert!(
        c["fix"]
            .as_str()
            .unwrap()
            .contains("no session needs a restart"),
        "{c}"
    );
    // The operator's fix, into the file the device names: the running edge reads it at its
    // next 401 and sends what waited, with no harness restarted (issue 56, item 5).
    let o = s.host_mpt(&[
        "gateway", "token", "rotate", "lap", "--out", &file_s, "--force",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        wait_for(90.0, || on_primary(&s, &b["drawer_id"])),
        "the queued write landed with the new token: {}",
        crate::support::stdout(&lap.mpt(&["outbox", "list"]))
    );
}

/// A device that reaches the primary through a gateway is told the gateway is down, not
/// `mempalace serve` (issue 56, item 10).
#[test]
fn an_unreachable_gateway_is_named_as_the_gateway() {
    let mut s = Setup::new(json!({"lap": {"role": "member"}}));
    let url = s.gw.mcp();
    let token = s.token("lap");
    let vars = [
        ("MEMPALACE_REMOTE_URL", url.as_str()),
        ("MEMPALACE_REMOTE_TOKEN", token.as_str()),
        ("MEMPALACE_PI_DEVICE", "lap"),
    ];
    s.gw.stop();
    let o = s.env.mpt(&["--json", "call", "status"], &vars);
    assert_eq!(o.status.code(), Some(7), "{}", stdout(&o));
    let v = parse_json(&o);
    let hint = v["hint"].as_str().unwrap();
    let message = v["message"].as_str().unwrap();
    assert!(
        message.contains(&format!("the gateway at 127.0.0.1:{}", s.gw.port)),
        "{v}"
    );
    assert!(
        hint.contains("this device's gateway") && !hint.contains("mempalace serve"),
        "{v}"
    );
}
