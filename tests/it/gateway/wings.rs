//! Wing rules through the real gateway, read back from the real primary: each alias of a wing
//! refused, write globs and protected wings held, update_drawer judged on its old and new wing.

use serde_json::{Value, json};

use super::{denied, on_primary};
use crate::support::gateway::{Setup, call, payload, policy};

fn add(port: u16, token: &str, wing: &str, content: &str) -> crate::support::gateway::Reply {
    call(
        port,
        token,
        "mempalace_add_drawer",
        json!({"wing": wing, "room": "notes", "content": content}),
    )
}

/// The wing the primary holds the drawer `id` in.
fn wing_on_primary(p: &crate::support::Primary, id: &str) -> Value {
    on_primary(p, "mempalace_get_drawer", json!({"drawer_id": id}))["wing"].clone()
}

fn setup() -> Setup {
    let mut pol = policy(json!({
        "lap": {"role": "member", "wings": {"write": ["wing_lap*", "wing_rules"]}},
        "hub": {"role": "admin"}}));
    pol["protected_wings"] = json!(["wing_rules*"]);
    Setup::with_policy(pol)
}

#[test]
fn each_alias_of_a_wing_is_refused_and_globs_and_protected_wings_hold() {
    let s = setup();
    let (p, gw) = (&s.p, &s.gw);
    let (lap, hub) = (s.token("lap"), s.token("hub"));
    let t = "mempalace_add_drawer";
    // The palace exists (its first drawer) so that the read-backs below can count.
    assert_eq!(
        payload(&add(gw.port, &hub, "wing_hub", "seed"))["success"],
        true
    );
    for alias in [
        "Wing_Lap",
        " wing_lap",
        "wing_lap ",
        "wing-lap",
        "_wing_lap",
        // Python strips these and Rust's `trim` does not (H3).
        "\x1cwing_lap",
        "wing_lap\x1f",
        "\u{85}wing_lap",
        "wing_lap\u{3000}",
    ] {
        denied(
            &add(gw.port, &lap, alias, "an alias"),
            "lap",
            t,
            "wing:not_canonical:wing_lap",
        );
    }
    denied(
        &add(gw.port, &lap, "wing_desk", "not mine"),
        "lap",
        t,
        "wings.write:wing_desk",
    );
    denied(
        &add(gw.port, &lap, "wing_rules", "instructions for everyone"),
        "lap",
        t,
        "protected_wings:wing_rules",
    );
    // A protected wing padded with what Python's strip takes and Rust's `trim` leaves (H3): refused
    // in every tool that names a wing; the count of wing_rules below shows nothing landed.
    for pad in ['\x1c', '\x1d', '\x1e', '\x1f'] {
        let w = format!("{pad}wing_rules");
        let rule = "wing:not_canonical:wing_rules";
        denied(&add(gw.port, &lap, &w, "padded"), "lap", t, rule);
        let calls = [
            (
                "mempalace_diary_write",
                json!({"agent_name": "pi", "entry": "x", "wing": w}),
            ),
            (
                "mempalace_checkpoint",
                json!({"items": [{"wing": w, "room": "r", "content": "x"}]}),
            ),
            (
                "mempalace_create_tunnel",
                json!({"source_wing": "wing_lap", "source_room": "a", "target_wing": w, "target_room": "b"}),
            ),
        ];
        for (tool, args) in calls {
            denied(&call(gw.port, &lap, tool, args), "lap", tool, rule);
        }
    }
    let tunnel = json!({"source_wing": "wing_lap", "source_room": "a", "target_wing": "wing_desk", "target_room": "b"});
    denied(
        &call(gw.port, &lap, "mempalace_create_tunnel", tunnel),
        "lap",
        "mempalace_create_tunnel",
        "wings.write:wing_desk",
    );
    denied(
        &call(
            gw.port,
            &lap,
            "mempalace_diary_write",
            json!({"agent_name": "pi", "entry": "derived wing_pi"}),
        ),
        "lap",
        "mempalace_diary_write",
        "wings.write:wing_pi",
    );
    // A mined file's `source_file` on a member's own drawer (whose edits purge that file's
    // closets): refused unless under the member's own mine prefix, which lap has none of (M7).
    denied(
        &call(
            gw.port,
            &lap,
            t,
            json!({"wing": "wing_lap", "room": "r", "content": "c", "source_file": "/srv/feed/inbox/desk/s.md"}),
        ),
        "lap",
        t,
        "source_file:outside_mine_prefix",
    );
    // Look-alikes of a protected wing (L2): a Cyrillic і, a full-width ｗ, a digit one for an l.
    for alike in ["w\u{456}ng_rules", "\u{ff57}ing_rules", "wing_ru1es"] {
        denied(
            &add(gw.port, &lap, alike, "a look-alike"),
            "lap",
            t,
            "protected_wings:lookalike:wing_rules*",
        );
    }
    // Other Unicode names stay the server's to allow.
    let muller = payload(&add(gw.port, &lap, "wing_lap_m\u{fc}ller", "umlaut"));
    assert_eq!(muller["success"], true, "{muller}");
    // A checkpoint's diary naming no agent lands in the server's default agent's wing (L1).
    let unnamed = json!({"items": [{"wing": "wing_lap", "room": "r", "content": "ok"}], "diary": {"entry": "a session"}});
    denied(
        &call(gw.port, &lap, "mempalace_checkpoint", unnamed),
        "lap",
        "mempalace_checkpoint",
        "wings.write:wing_cursor_ide",
    );
    let cp = json!({"items": [{"wing": "wing_lap", "room": "r", "content": "ok"}, {"wing": "wing_Lap", "room": "r", "content": "alias"}]});
    denied(
        &call(gw.port, &lap, "mempalace_checkpoint", cp),
        "lap",
        "mempalace_checkpoint",
        "wing:not_canonical:wing_lap",
    );
    let on = |wing: &str| {
        on_primary(p, "mempalace_list_drawers", json!({"wing": wing}))["drawers"]
            .as_array()
            .map_or(0, Vec::len)
    };
    for w in [
        "Wing_Lap",
        "wing-lap",
        "wing_desk",
        "wing_rules",
        "wing_cursor-ide",
    ] {
        assert_eq!(on(w), 0, "nothing refused reached the primary ({w})");
    }

    assert_eq!(
        payload(&add(gw.port, &lap, "wing_lap", "mine"))["success"],
        true
    );
    assert_eq!(
        payload(&add(gw.port, &hub, "wing_rules", "an admin's rule"))["success"],
        true,
        "protected wings are an admin's"
    );
    assert_eq!(
        payload(&add(gw.port, &hub, "Wing_Hub", "an admin may alias"))["success"],
        true
    );
    assert_eq!(
        (on("wing_lap"), on("wing_rules"), on("Wing_Hub")),
        (1, 1, 1)
    );
}

#[test]
fn update_drawer_is_judged_on_the_drawers_wing_on_the_primary_and_the_new_one() {
    let s = setup();
    let (p, gw) = (&s.p, &s.gw);
    let (lap, hub) = (s.token("lap"), s.token("hub"));
    let t = "mempalace_update_drawer";
    let id =
        |r: &crate::support::gateway::Reply| payload(r)["drawer_id"].as_str().unwrap().to_string();
    let desks = id(&add(gw.port, &hub, "wing_desk", "desk's drawer"));
    let laps = id(&add(gw.port, &lap, "wing_lap", "lap's drawer"));
    let rules = id(&add(gw.port, &hub, "wing_rules", "a rule"));
    let update = |args: Value| call(gw.port, &lap, t, args);

    denied(
        &update(json!({"drawer_id": desks, "wing": "wing_lap"})),
        "lap",
        t,
        "wings.write:wing_desk",
    );
    assert_eq!(
        wing_on_primary(p, &desks),
        "wing_desk",
        "not moved out of desk's wing"
    );
    denied(
        &update(json!({"drawer_id": laps, "wing": "wing_desk"})),
        "lap",
        t,
        "wings.write:wing_desk",
    );
    denied(
        &update(json!({"drawer_id": rules, "content": "rewritten rule"})),
        "lap",
        t,
        "protected_wings:wing_rules",
    );
    assert_eq!(
        on_primary(p, "mempalace_get_drawer", json!({"drawer_id": rules}))["content"],
        "a rule"
    );
    assert_eq!(wing_on_primary(p, &laps), "wing_lap");

    assert_eq!(
        payload(&update(
            json!({"drawer_id": laps, "wing": "wing_lap_archive"})
        ))["success"],
        true
    );
    assert_eq!(
        wing_on_primary(p, &laps),
        "wing_lap_archive",
        "moved within its globs"
    );
    assert_eq!(
        payload(&call(
            gw.port,
            &hub,
            t,
            json!({"drawer_id": desks, "wing": "wing_lap"})
        ))["success"],
        true,
        "an admin moves a drawer into lap's wing"
    );
    assert_eq!(
        payload(&update(json!({"drawer_id": desks, "content": "now lap's"})))["success"],
        true,
        "the drawer's wing is looked up at each update"
    );
}

#[test]
fn a_tunnels_drawer_ids_must_lie_in_its_ends_wings() {
    let s = setup();
    let gw = &s.gw;
    let (lap, hub) = (s.token("lap"), s.token("hub"));
    let id = |r: crate::support::gateway::Reply| {
        let p = payload(&r);
        assert_eq!(p["success"], true, "{p}");
        p["drawer_id"].as_str().unwrap().to_string()
    };
    let desk = id(add(gw.port, &hub, "wing_desk", "desk's private plan"));
    let mine = id(add(gw.port, &lap, "wing_lap", "lap's note"));
    let other = id(add(gw.port, &lap, "wing_lap_b", "lap's other note"));
    let tunnel = |target_drawer: &str| {
        json!({"source_wing": "wing_lap", "source_room": "notes", "target_wing": "wing_lap_b",
            "target_room": "notes", "source_drawer_id": mine, "target_drawer_id": target_drawer})
    };
    let t = "mempalace_create_tunnel";
    // Another wing's drawer on lap's own tunnel: follow_tunnels would preview it (H2).
    denied(
        &call(gw.port, &lap, t, tunnel(&desk)),
        "lap",
        t,
        "tunnel:drawer_outside_wing:target",
    );
    denied(
        &call(gw.port, &lap, t, tunnel("drawer_no_such_drawer")),
        "lap",
        t,
        "tunnel:drawer_outside_wing:target",
    );
    let made = payload(&call(gw.port, &lap, t, tunnel(&other)));
    assert_eq!(made["target"]["drawer_id"], other.as_str(), "{made}");
}
