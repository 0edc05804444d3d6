//! Device tokens over their life with a gateway running: one used the instant it is issued,
//! one revoked and refused at once, one rotated (the old works for its overlap, then expires).

use serde_json::{Value, json};

use crate::support::gateway::{Setup, get, issue, mpt, policy};
use crate::support::{TestEnv, json, stderr, wait_for};

fn list(env: &TestEnv, dir: &std::path::Path) -> Vec<Value> {
    let o = mpt(env, dir, &["--json", "gateway", "token", "list"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v = json(&o);
    assert_eq!(v["schema"], mpt_base::schema::GATEWAY_TOKEN_LIST);
    v["tokens"].as_array().unwrap().clone()
}

fn state_of(tokens: &[Value], id: &str) -> String {
    tokens.iter().find(|t| t["id"] == id).unwrap()["state"]
        .as_str()
        .unwrap()
        .to_string()
}

fn whoami(port: u16, token: &str) -> (u16, Value) {
    let r = get(port, token, "/whoami");
    (r.status, r.json())
}

#[test]
fn a_token_works_the_instant_it_is_issued_and_stops_the_instant_it_is_revoked() {
    let s = Setup::new(json!({"lap": {"role": "member"}, "desk": {"role": "member"}}));
    let (env, dir, gw) = (&s.env, &s.dir, &s.gw);
    let desk = s.token("desk");
    // Issued while the gateway runs, used at once.
    let lap = issue(env, dir, "lap", &["--expires", "30d"]);
    let (status, me) = whoami(gw.port, &lap);
    assert_eq!(status, 200, "{me}");
    assert_eq!(me["schema"], mpt_base::schema::GATEWAY_WHOAMI);
    assert_eq!(me["device"], "lap");
    assert_eq!(me["role"], "member");
    let id = me["token_id"].as_str().unwrap().to_string();
    assert!(me["expires"].as_str().is_some(), "{me}");
    assert!(lap.contains(&id), "the id is the token's own");
    assert!(
        wait_for(30.0, || list(env, dir)
            .iter()
            .any(|t| t["id"] == id && t["last_used"].is_string())),
        "the gateway records when a token was last used"
    );

    let o = mpt(env, dir, &["--json", "gateway", "token", "revoke", &id]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(json(&o)["revoked"][0]["token_id"], id);
    let (status, body) = whoami(gw.port, &lap);
    assert_eq!(
        (status, body),
        (401, json!({"error": "revoked"})),
        "refused by the next request"
    );
    assert_eq!(whoami(gw.port, &desk).0, 200, "the others go on");
    assert_eq!(state_of(&list(env, dir), &id), "revoked");
    // The fix after a revoke: the new token keeps the revoked one's lifetime (30 days, not
    // never), and the note says what happened (issue 56, item 4).
    let out = env.path("lap.token");
    let revoked = mpt(env, dir, &["gateway", "token", "revoke", "lap"]);
    assert!(revoked.status.success(), "{}", stderr(&revoked));
    let o = mpt(
        env,
        dir,
        &[
            "gateway",
            "token",
            "rotate",
            "lap",
            "--out",
            out.to_str().unwrap(),
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let said = stderr(&o);
    assert!(said.contains(&format!("{id} was revoked")), "{said}");
    assert!(
        !said.contains("never expires") && !said.contains("first"),
        "{said}"
    );
    let tokens = list(env, dir);
    let new = tokens
        .iter()
        .find(|t| t["device"] == "lap" && t["state"] == "active")
        .unwrap();
    let expires = mpt_base::time::parse_iso_utc(new["expires"].as_str().unwrap()).unwrap();
    let days = (expires - mpt_base::time::now_unix()) / 86_400;
    assert!((29..=30).contains(&days), "{new}");
    // A revoke of an id or a device nobody has is exit 2.
    assert_eq!(
        mpt(env, dir, &["gateway", "token", "revoke", "nobody"])
            .status
            .code(),
        Some(2)
    );
    // A device the policy does not name gets no token: exit 2 naming it and the file.
    let o = mpt(env, dir, &["gateway", "token", "issue", "stranger"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("stranger") && stderr(&o).contains("policy.json"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn rotation_keeps_the_old_token_for_its_overlap_then_refuses_it_as_expired() {
    let s = Setup::new(json!({"lap": {"role": "observer"}}));
    let (env, dir, gw) = (&s.env, &s.dir, &s.gw);
    let old = s.token("lap");
    assert_eq!(whoami(gw.port, &old).0, 200);
    let old_id = whoami(gw.port, &old).1["token_id"]
        .as_str()
        .unwrap()
        .to_string();

    let envfile = env.path("lap.env");
    std::fs::write(
        &envfile,
        "MEMPALACE_REMOTE_URL=https://gw.example/mcp\nMEMPALACE_REMOTE_TOKEN=stale\n",
    )
    .unwrap();
    std::fs::set_permissions(
        &envfile,
        std::os::unix::fs::PermissionsExt::from_mode(0o600),
    )
    .unwrap();
    let o = mpt(
        env,
        dir,
        &[
            "--json",
            "gateway",
            "token",
            "rotate",
            "lap",
            "--overlap",
            "30s",
            "--env-file",
            envfile.to_str().unwrap(),
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let doc = json(&o);
    assert_eq!(doc["replaces"][0]["token_id"], old_id.as_str());
    let text = std::fs::read_to_string(&envfile).unwrap();
    let new = text
        .lines()
        .find_map(|l| l.strip_prefix("MEMPALACE_REMOTE_TOKEN="))
        .unwrap()
        .to_string();
    assert!(
        text.starts_with("MEMPALACE_REMOTE_URL=https://gw.example/mcp\n"),
        "only the token line changed: {text}"
    );
    assert!(
        !o.stdout.windows(new.len()).any(|w| w == new.as_bytes()),
        "--json never holds the secret"
    );

    let (status, me) = whoami(gw.port, &new);
    assert_eq!(status, 200);
    assert_ne!(me["token_id"], old_id.as_str());
    assert_eq!(
        whoami(gw.port, &old).0,
        200,
        "the old token works during its overlap"
    );
    assert_eq!(state_of(&list(env, dir), &old_id), "overlap");
    assert!(
        wait_for(90.0, || whoami(gw.port, &old).0 == 401),
        "the old token is refused once its overlap ends"
    );
    assert_eq!(whoami(gw.port, &old).1, json!({"error": "expired"}));
    assert_eq!(whoami(gw.port, &new).0, 200, "the new one goes on");
    assert_eq!(state_of(&list(env, dir), &old_id), "expired");
}

#[test]
fn doctor_warns_about_a_token_that_never_expires_until_it_is_rotated_with_an_expiry() {
    let env = TestEnv::new();
    let dir = env.path("gateway");
    crate::support::gateway::write_policy(&dir, &policy(json!({"lap": {"role": "member"}})));
    let doctor = || {
        let o = mpt(
            &env,
            &dir,
            &["--json", "doctor", "--offline", "--check", "gateway"],
        );
        json(&o)["checks"][0].clone()
    };
    assert_eq!(doctor()["status"], "skip", "no gateway here yet");
    let o = mpt(&env, &dir, &["gateway", "token", "issue", "lap"]);
    assert!(stderr(&o).contains("never expires"), "{}", stderr(&o));
    let c = doctor();
    assert_eq!(c["status"], "warn", "{c}");
    assert!(
        c["summary"].as_str().unwrap().contains("never expire"),
        "{c}"
    );
    // The fix names the device and the whole path of its token file (issue 56, item 4).
    assert!(
        c["fix"].as_str().unwrap().starts_with(
            "mpt gateway token rotate lap --expires 90d --out ~/.config/mpt/lap.token --force"
        ),
        "{c}"
    );
    let o = mpt(
        &env,
        &dir,
        &[
            "gateway",
            "token",
            "rotate",
            "lap",
            "--expires",
            "90d",
            "--overlap",
            "1h",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let c = doctor();
    assert_eq!(c["status"], "ok", "{c}");
    // The old one, in its hour of overlap, is not called a week away (issue 56, item 15).
    let said = c["summary"].as_str().unwrap();
    assert!(
        said.starts_with("1 device token(s)")
            && said.contains("1 replaced one(s) working out their overlap"),
        "{c}"
    );
}
