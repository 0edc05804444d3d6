//! `mpt gateway invite` and `mpt join` (issue 58): a device joins a real gateway in front of a real
//! `serve` with one code, its edge's writes land stamped as it; a code used twice, expired,
//! revoked, mistyped or on the command line is refused; two devices join at once.

use std::path::Path;

use serde_json::{Value, json};

use crate::support::gateway::Setup;
use crate::support::harness::Harness;
use crate::support::{TestEnv, json as parse_json, stderr, stdout, wait_for};

/// `mpt --json gateway invite DEVICE --url <gateway> --out FILE` on the host: its document.
fn invite(s: &Setup, device: &str, out: &Path, extra: &[&str]) -> Value {
    let mut args = vec![
        "--json",
        "gateway",
        "invite",
        device,
        "--url",
        s.gw.url.as_str(),
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let o = s.host_mpt(&args);
    assert!(o.status.success(), "invite {device}: {}", stderr(&o));
    parse_json(&o)
}

/// `mpt join` on a device (its own HOME), with `vars` and `args` after the URL; without a PATH
/// in `vars`, the user manager `systemctl` answers is offline (the cron line).
fn join(dev: &TestEnv, url: &str, args: &[&str], vars: &[(&str, &str)]) -> std::process::Output {
    let mut all = vec!["--json", "join", url];
    all.extend_from_slice(args);
    if vars.iter().any(|(k, _)| *k == "PATH") {
        return dev.mpt(&all, vars);
    }
    let (path, _) = dev.fake_systemctl("offline");
    let mut vars = vars.to_vec();
    vars.push(("PATH", &path));
    dev.mpt(&all, &vars)
}

/// The gateway's audit records of `/join`.
fn joins(s: &Setup) -> Vec<Value> {
    let o = s.host_mpt(&["--json", "gateway", "audit"]);
    assert!(o.status.success(), "{}", stderr(&o));
    parse_json(&o)["records"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["route"] == "/join")
        .cloned()
        .collect()
}

#[test]
fn a_device_joins_with_one_code_and_its_edge_writes_land_on_the_primary_stamped_as_it() {
    let s = Setup::new(json!({"desk": {"role": "admin"}}));
    let code_file = s.env.path("lap.code");
    let doc = invite(&s, "lap", &code_file, &[]);
    // The policy gained lap with its day-one wings, shown as a diff; the code went to the file.
    assert_eq!(doc["policy"]["created"], false, "{doc}");
    let diff = doc["policy"]["diff"].as_array().unwrap();
    assert!(
        diff.iter().all(|l| l.as_str().unwrap().starts_with('+')),
        "{doc}"
    );
    assert!(doc["policy"]["backup"].is_string(), "{doc}");
    assert_eq!(doc["join"], format!("mpt join {}", s.gw.url), "{doc}");
    let code = std::fs::read_to_string(&code_file)
        .unwrap()
        .trim()
        .to_string();
    assert!(code.starts_with("mptj_"), "{code}");
    assert!(
        !doc.to_string().contains(&code),
        "the code is never in --json"
    );
    // Pending until used: listed beside the tokens, by id and device.
    let listed = parse_json(&s.host_mpt(&["--json", "gateway", "token", "list"]));
    assert_eq!(listed["pending"][0]["device"], "lap", "{listed}");
    assert_eq!(listed["pending"][0]["id"], doc["code_id"], "{listed}");

    let dev = TestEnv::new();
    let palace = dev.palace("local");
    let palace_var = [("MEMPALACE_PALACE_PATH", palace.to_str().unwrap())];
    let o = join(
        &dev,
        &s.gw.url,
        &["--code-file", code_file.to_str().unwrap()],
        &palace_var,
    );
    let joined = parse_json(&o);
    assert_eq!(joined["device"], "lap", "{joined}\n{}", stderr(&o));
    assert_eq!(joined["role"], "member", "{joined}");
    assert_eq!(
        joined["doctor"]["fail"], 0,
        "doctor's verdict on the joined device: {joined}"
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let token_file = dev.home().join(".config/mpt/lap.token");
    assert_eq!(
        joined["token_file"],
        token_file.to_str().unwrap(),
        "{joined}"
    );
    let token = std::fs::read_to_string(&token_file)
        .unwrap()
        .trim()
        .to_string();
    assert!(token.starts_with("mptg_"), "the bare token");
    assert_eq!(mode(&token_file), 0o600);
    for text in [stdout(&o), stderr(&o)] {
        assert!(!text.contains(&token) && !text.contains(&code), "{text}");
    }
    let config: Value =
        serde_json::from_slice(&std::fs::read(dev.home().join(".config/mpt/config.json")).unwrap())
            .unwrap();
    assert_eq!(
        config,
        json!({"remote_url": format!("{}/mcp", s.gw.url), "token_file": token_file, "device": "lap", "edge": true}),
    );

    // The device's edge, configured by the file alone: a write lands on the primary as lap's.
    let mut h = Harness::start(&dev, &["--harness", "pi"], &palace_var);
    h.initialize();
    let r = h
        .call(
            "mempalace_add_drawer",
            json!({"wing": "wing_lap", "room": "r", "content": "joined in one command"}),
        )
        .unwrap();
    assert_eq!(r["success"], true, "{r}");
    let id = r["drawer_id"].clone();
    assert!(
        wait_for(60.0, || s
            .p
            .call("mempalace_get_drawer", json!({"drawer_id": id}))
            .is_ok_and(|d| d["metadata"]["added_by"] == "pi@lap")),
        "the write reached the primary stamped pi@lap"
    );
    drop(h);

    // Used once: the same code again is refused (exit 4) and says so.
    let again = join(
        &dev,
        &s.gw.url,
        &["--code-file", code_file.to_str().unwrap()],
        &palace_var,
    );
    assert_eq!(again.status.code(), Some(4), "{}", stderr(&again));
    assert!(said(&again).contains("used already"), "{}", stderr(&again));
    // The audit names the join and its refusal, never the code or the token.
    let records = joins(&s);
    assert_eq!(records[0]["device"], "lap", "{records:?}");
    assert_eq!(records[0]["rule"], "join", "{records:?}");
    assert_eq!(records[0]["decision"], "allow", "{records:?}");
    assert!(
        records.iter().any(|r| r["rule"] == "join:used"),
        "{records:?}"
    );
    for f in ["audit.jsonl", "invites.json", "tokens.json"] {
        let text = std::fs::read_to_string(s.dir.join(f)).unwrap();
        assert!(!text.contains(&code) && !text.contains(&token), "{f}");
    }
    // Nor the gateway's log, nor the device's edge log.
    let edge_log = std::fs::read_to_string(dev.path("edge.stderr")).unwrap_or_default();
    for log in [s.gw.stderr(), edge_log] {
        assert!(!log.contains(&code) && !log.contains(&token), "{log}");
    }
    // The host lists the spent invite's token as lap's, and no code pending.
    let listed = parse_json(&s.host_mpt(&["--json", "gateway", "token", "list"]));
    assert_eq!(listed["pending"], json!([]), "{listed}");
    assert!(
        listed["tokens"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["device"] == "lap" && t["id"] == joined["token_id"]),
        "{listed}"
    );
    // Joining again (a lost token file): a new token, the earlier one refused from now on.
    invite(&s, "lap", &code_file, &["--force"]);
    let o = join(
        &dev,
        &s.gw.url,
        &["--no-wire", "--code-file", code_file.to_str().unwrap()],
        &palace_var,
    );
    let rejoined = parse_json(&o);
    assert_ne!(rejoined["token_id"], joined["token_id"], "{}", said(&o));
    let old = crate::support::gateway::get(s.gw.port, &token, "/whoami");
    assert_eq!(old.status, 401, "{}", old.text());
    let new = std::fs::read_to_string(&token_file).unwrap();
    let me = crate::support::gateway::get(s.gw.port, new.trim(), "/whoami");
    assert_eq!(me.json()["device"], "lap", "{}", me.text());
    let config_after: Value =
        serde_json::from_slice(&std::fs::read(dev.home().join(".config/mpt/config.json")).unwrap())
            .unwrap();
    assert_eq!(config_after, config, "nothing but the token changed");
}

#[test]
fn expired_revoked_mistyped_and_command_line_codes_are_refused() {
    let s = Setup::new(json!({"desk": {"role": "admin"}}));
    let dev = TestEnv::new();
    let url = s.gw.url.as_str();

    // On the command line: refused before anything (argv is readable by every user).
    let (_, fake) = mpt_gateway::keys::token::JOIN_CODE.mint().unwrap();
    let o = join(&dev, url, &[&fake], &[]);
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    assert!(said(&o).contains("command line"), "{}", stderr(&o));

    // A gateway that does not answer: exit 7, the code not spent.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let nobody = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let fake_file = dev.path("fake.code");
    write_private(&fake_file, &fake);
    let o = join(
        &dev,
        &nobody,
        &["--code-file", fake_file.to_str().unwrap()],
        &[],
    );
    assert_eq!(o.status.code(), Some(7), "{}", said(&o));
    assert!(
        said(&o).contains("cannot reach the gateway"),
        "{}",
        said(&o)
    );

    // Mistyped: its checksum refuses it before any request (exit 2, nothing audited).
    let code_file = s.env.path("lap.code");
    invite(&s, "lap", &code_file, &[]);
    let code = std::fs::read_to_string(&code_file)
        .unwrap()
        .trim()
        .to_string();
    let mut typo = code.clone().into_bytes();
    let at = typo.len() - 10;
    typo[at] = if typo[at] == b'x' { b'y' } else { b'x' };
    let typo_file = dev.path("typo.code");
    write_private(&typo_file, &String::from_utf8(typo).unwrap());
    let o = join(
        &dev,
        url,
        &["--code-file", typo_file.to_str().unwrap()],
        &[],
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(said(&o).contains("mistyped"), "{}", stderr(&o));
    assert!(joins(&s).is_empty(), "nothing was sent");

    // Revoked on the host: refused with its reason; the device's config is untouched.
    let o = s.host_mpt(&["--json", "gateway", "invite", "lap", "--revoke"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(parse_json(&o)["revoked"].as_array().unwrap().len(), 1);
    let o = join(
        &dev,
        url,
        &["--code-file", code_file.to_str().unwrap()],
        &[],
    );
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    assert!(said(&o).contains("was revoked"), "{}", stderr(&o));
    assert!(!dev.home().join(".config/mpt/config.json").exists());

    // Expired: a code whose window closed as it was made (a window of no time: no waiting on a
    // clock in the test).
    invite(&s, "lap", &code_file, &["--valid", "0s", "--force"]);
    let o = join(
        &dev,
        url,
        &["--code-file", code_file.to_str().unwrap()],
        &[],
    );
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    assert!(said(&o).contains("has expired"), "{}", stderr(&o));

    // Piped on stdin, a fresh code works (no file, no argv).
    invite(&s, "lap", &code_file, &["--force"]);
    let code = std::fs::read_to_string(&code_file).unwrap();
    let mut cmd = dev.mpt_command(&["--json", "join", url, "--no-wire", "--no-timer"]);
    cmd.stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(code.as_bytes())
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(parse_json(&o)["device"], "lap", "{}", stderr(&o));
    // A peer's first refusal is its own record (later ones in its window are gathered into one,
    // as every refusal without a good token is); the join that worked is its own.
    let rules: Vec<Value> = joins(&s).iter().map(|r| r["rule"].clone()).collect();
    assert_eq!(rules, ["join:revoked", "join"], "{rules:?}");
}

#[test]
fn two_devices_join_at_once_each_with_its_own_token() {
    let s = Setup::new(json!({"desk": {"role": "admin"}}));
    let (a, b) = (s.env.path("a.code"), s.env.path("b.code"));
    invite(&s, "lap", &a, &[]);
    invite(&s, "box", &b, &["--role", "observer"]);
    let (da, db) = (TestEnv::new(), TestEnv::new());
    let url = s.gw.url.clone();
    let spawn = |dev: &TestEnv, code: &Path, json: bool| {
        let mut args = vec![
            "join",
            &url,
            "--no-wire",
            "--code-file",
            code.to_str().unwrap(),
        ];
        if json {
            args.insert(0, "--json");
        }
        let mut cmd = dev.mpt_command(&args);
        cmd.stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        cmd.spawn().unwrap()
    };
    let (ca, cb) = (spawn(&da, &a, true), spawn(&db, &b, false));
    let (oa, ob) = (
        ca.wait_with_output().unwrap(),
        cb.wait_with_output().unwrap(),
    );
    let ja = parse_json(&oa);
    assert_eq!(ja["device"], "lap", "{}", stderr(&oa));
    // The other in words: who it joined as, where its token and settings went, doctor's verdict.
    let said = stdout(&ob);
    assert!(ob.status.success(), "{said}{}", stderr(&ob));
    assert!(
        said.contains(&format!("joined {url} as box (observer)")),
        "{said}"
    );
    assert!(said.contains("box.token"), "{said}");
    assert!(said.contains("doctor: "), "{said}");
    let tokens = parse_json(&s.host_mpt(&["--json", "gateway", "token", "list"]));
    let ids: Vec<&Value> = tokens["tokens"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["device"] == "box")
        .map(|t| &t["id"])
        .collect();
    assert_eq!(ids.len(), 1, "{tokens}");
    assert_ne!(&ja["token_id"], ids[0]);
    let policy: Value =
        serde_json::from_slice(&std::fs::read(s.dir.join("policy.json")).unwrap()).unwrap();
    assert_eq!(
        policy["devices"]["box"],
        json!({"role": "observer"}),
        "{policy}"
    );
    assert_eq!(
        policy["devices"]["lap"]["wings"]["write"][0], "wing_lap*",
        "{policy}"
    );
}

#[test]
fn over_tls_the_pinned_certificate_is_checked_before_the_code_is_sent() {
    let s = Setup::tls(json!({"desk": {"role": "admin"}}));
    let url = s.gw.url.clone();
    assert!(url.starts_with("https://"), "{url}");
    let code_file = s.env.path("lap.code");
    let doc = invite(&s, "lap", &code_file, &[]);
    // The pin is the private CA's, the root-most certificate the gateway presents.
    use rustls::pki_types::CertificateDer;
    use rustls::pki_types::pem::PemObject;
    let ca = CertificateDer::from_pem_file(s.ca()).unwrap();
    let pin = mpt::join::pin::fingerprint(ca.as_ref());
    assert_eq!(doc["ca_sha256"], pin, "{doc}");
    assert_eq!(
        doc["join"],
        format!("mpt join {url} --ca-sha256 {pin}"),
        "{doc}"
    );
    let code = ["--code-file", code_file.to_str().unwrap()];

    let dev = TestEnv::new();
    // A wrong pin: refused after the handshake, before the code is sent (nothing audited).
    let wrong = "0".repeat(64);
    let mut args = vec!["--ca-sha256", wrong.as_str()];
    args.extend_from_slice(&code);
    let o = join(&dev, &url, &args, &[]);
    assert_eq!(o.status.code(), Some(4), "{}", said(&o));
    assert!(said(&o).contains("nothing was sent"), "{}", said(&o));
    // No pin and no CA: the certificate is not trusted, and the handshake fails before any request.
    let o = join(&dev, &url, &code, &[]);
    assert_eq!(o.status.code(), Some(7), "{}", said(&o));
    assert!(said(&o).contains("does not trust"), "{}", said(&o));
    assert!(joins(&s).is_empty(), "the code was never sent");

    // The right pin: the CA kept as the device's, and the device reaches the gateway with it.
    let mut args = vec!["--ca-sha256", pin.as_str()];
    args.extend_from_slice(&code);
    let o = join(&dev, &url, &args, &[]);
    let joined = parse_json(&o);
    assert_eq!(joined["device"], "lap", "{}", said(&o));
    assert_eq!(joined["doctor"]["fail"], 0, "{joined}");
    let kept = dev.home().join(".config/mpt/127.0.0.1-ca.pem");
    assert_eq!(
        CertificateDer::from_pem_file(&kept).unwrap().as_ref(),
        ca.as_ref()
    );
    let config: Value =
        serde_json::from_slice(&std::fs::read(dev.home().join(".config/mpt/config.json")).unwrap())
            .unwrap();
    assert_eq!(config["ca_file"], kept.to_str().unwrap(), "{config}");
    let o = dev.mpt(&["--json", "doctor", "--check", "transport"], &[]);
    assert!(o.status.success(), "{}", said(&o));
}

#[test]
fn a_gateway_started_before_any_invite_refuses_everyone_until_the_first() {
    use crate::support::gateway::{Gateway, UPSTREAM_TOKEN, mpt as gw_mpt};
    use crate::support::primary::{Primary, PrimaryOpts};
    let env = TestEnv::new();
    let opts = PrimaryOpts {
        token: Some(UPSTREAM_TOKEN),
        ..Default::default()
    };
    let p = Primary::start(&env, &env.palace("primary"), opts);
    let dir = env.path("gateway");
    let gw = Gateway::start(&env, &dir, &p.base_url(), &[], &[]);
    assert!(
        gw.stderr().contains("every token is refused"),
        "{}",
        gw.stderr()
    );
    let policy: Value =
        serde_json::from_slice(&std::fs::read(dir.join("policy.json")).unwrap()).unwrap();
    assert_eq!(policy["devices"], json!({}), "{policy}");
    let code_file = env.path("lap.code");
    let o = gw_mpt(
        &env,
        &dir,
        &[
            "gateway",
            "invite",
            "lap",
            "--out",
            code_file.to_str().unwrap(),
        ],
    );
    // The URL is the running gateway's own, from its serve.json.
    assert!(
        stdout(&o).contains(&format!("mpt join {}", gw.url)),
        "{}",
        said(&o)
    );
    let dev = TestEnv::new();
    let o = join(
        &dev,
        &gw.url,
        &["--no-wire", "--code-file", code_file.to_str().unwrap()],
        &[],
    );
    assert_eq!(parse_json(&o)["device"], "lap", "{}", said(&o));
}

#[test]
fn leaving_puts_the_harness_config_and_the_settings_back_byte_for_byte() {
    let s = Setup::new(json!({"desk": {"role": "admin"}}));
    let code_file = s.env.path("lap.code");
    invite(&s, "lap", &code_file, &[]);
    let dev = TestEnv::new();
    // The user's own opencode config, with MemPalace wired locally, a comment and odd spacing;
    // and their own config file with a setting mpt join does not touch.
    let opencode = dev.home().join(".config/opencode/opencode.jsonc");
    std::fs::create_dir_all(opencode.parent().unwrap()).unwrap();
    let theirs = "{\n  // mine\n  \"theme\":   \"dark\",\n  \"mcp\": {\"mempalace\": {\"type\": \"local\", \"command\": [\"mempalace-mcp\"]}}\n}\n";
    std::fs::write(&opencode, theirs).unwrap();
    let config = dev.home().join(".config/mpt/config.json");
    let own = "{\"trusted_devices\": [\"lap\", \"desk\"]}\n";
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(&config, own).unwrap();

    let o = join(
        &dev,
        &s.gw.url,
        &["--code-file", code_file.to_str().unwrap()],
        &[],
    );
    let joined = parse_json(&o);
    assert_eq!(joined["wired"][0]["harness"], "opencode", "{joined}");
    assert_eq!(joined["wired"][0]["action"], "replace", "{joined}");
    // No user systemd here: the cron line, with why.
    assert_eq!(joined["timer"]["kind"], "cron", "{joined}");
    assert!(
        joined["timer"]["line"]
            .as_str()
            .unwrap()
            .ends_with("outbox flush --deadline 5m # mpt-flush")
    );
    let wired = std::fs::read_to_string(&opencode).unwrap();
    assert!(wired.contains("\"edge\""), "{wired}");
    assert!(wired.contains("// mine"), "{wired}");

    let (path, _) = dev.fake_systemctl("offline");
    let o = dev.mpt(&["--json", "join", "--leave"], &[("PATH", &path)]);
    let left = parse_json(&o);
    assert!(o.status.success(), "{}", said(&o));
    assert_eq!(left["revoke"], "mpt gateway token revoke lap", "{left}");
    assert_eq!(std::fs::read_to_string(&opencode).unwrap(), theirs);
    let after: Value = serde_json::from_slice(&std::fs::read(&config).unwrap()).unwrap();
    assert_eq!(after, json!({"trusted_devices": ["lap", "desk"]}));
    assert!(!dev.home().join(".config/mpt/lap.token").exists());
    assert!(!dev.home().join(".config/mpt/joined.json").exists());
    // Nothing left to leave.
    let o = dev.mpt(&["join", "--leave"], &[]);
    assert_eq!(o.status.code(), Some(2), "{}", said(&o));
}

#[test]
fn join_attempts_are_limited_per_source_address() {
    let s = Setup::new(json!({"desk": {"role": "admin"}}));
    let (_, unknown) = mpt_gateway::keys::token::JOIN_CODE.mint().unwrap();
    let bearer = format!("Bearer {unknown}");
    let try_once = || {
        crate::support::gateway::http(
            s.gw.port,
            "POST",
            "/join",
            &[("authorization", bearer.as_bytes())],
            b"",
        )
    };
    for _ in 0..5 {
        let r = try_once();
        assert_eq!(r.status, 401, "{}", r.text());
        assert_eq!(r.json()["error"], "unknown_code");
    }
    let r = try_once();
    assert_eq!(r.status, 429, "the sixth at once waits: {}", r.text());
    assert!(r.header("retry-after").is_some());
}

#[test]
fn at_a_terminal_the_code_is_not_echoed_and_a_users_own_setting_is_replaced_only_when_asked() {
    use std::io::Write;
    use std::process::Stdio;
    let s = Setup::new(json!({"desk": {"role": "admin"}}));
    let code_file = s.env.path("lap.code");
    invite(&s, "lap", &code_file, &[]);
    let code = std::fs::read_to_string(&code_file)
        .unwrap()
        .trim()
        .to_string();
    let dev = TestEnv::new();
    let config = dev.home().join(".config/mpt/config.json");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(&config, "{\"remote_url\": \"https://old.lan:8443/mcp\"}\n").unwrap();
    // A pseudo-terminal (util-linux `script`): mpt's /dev/tty is it, as a person's would be.
    let run = |answer: &str| {
        let line = format!(
            "{} join {} --no-wire --no-timer",
            env!("CARGO_BIN_EXE_mpt"),
            s.gw.url
        );
        let mut cmd = dev.command("script");
        cmd.args(["-qec", &line, "/dev/null"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().unwrap();
        let mut stdin = child.stdin.take().unwrap();
        // What the terminal shows, as it shows it.
        let shown = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let mut out = child.stdout.take().unwrap();
        let reader = {
            let shown = std::sync::Arc::clone(&shown);
            std::thread::spawn(move || {
                use std::io::Read;
                let mut buf = [0u8; 4096];
                while let Ok(n) = out.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    shown.lock().unwrap().extend_from_slice(&buf[..n]);
                }
            })
        };
        let asked = |what: &str| {
            wait_for(30.0, || {
                String::from_utf8_lossy(&shown.lock().unwrap()).contains(what)
            })
        };
        // Typed as a person types: the answer once asked, then the code once asked for it.
        assert!(asked("[y/N]"), "no question");
        writeln!(stdin, "{answer}").unwrap();
        if answer == "y" {
            assert!(asked("join code (from"), "no prompt for the code");
            writeln!(stdin, "{code}").unwrap();
        }
        drop(stdin);
        let mut o = child.wait_with_output().unwrap();
        reader.join().unwrap();
        o.stdout = shown.lock().unwrap().clone();
        o
    };
    // Asked, and declined: nothing changes, the code is not spent.
    let o = run("n");
    let seen = said(&o);
    assert_eq!(o.status.code(), Some(2), "{seen}");
    assert!(
        seen.contains("remote_url: \"https://old.lan:8443/mcp\" ->"),
        "{seen}"
    );
    assert!(seen.contains("[y/N]"), "{seen}");
    assert!(joins(&s).is_empty(), "the code was not sent");
    // Asked, and agreed: the code typed is not echoed, and the join goes through.
    let o = run("y");
    let seen = said(&o);
    assert!(o.status.success(), "{seen}");
    assert!(
        seen.contains("join code (from `mpt gateway invite`"),
        "{seen}"
    );
    assert!(!seen.contains(&code), "the code was echoed: {seen}");
    assert!(seen.contains("joined "), "{seen}");
    let after: Value = serde_json::from_slice(&std::fs::read(&config).unwrap()).unwrap();
    assert_eq!(after["remote_url"], format!("{}/mcp", s.gw.url));
}

#[test]
fn where_a_systemd_user_manager_runs_the_flush_timer_is_installed_and_leaving_removes_it() {
    // No user manager on the test machine: a `systemctl` that answers as one does, and notes
    // each call, first on PATH.
    let s = Setup::new(json!({"desk": {"role": "admin"}}));
    let code_file = s.env.path("lap.code");
    invite(&s, "lap", &code_file, &[]);
    let dev = TestEnv::new();
    let (path, calls) = dev.fake_systemctl("running");
    let vars = [("PATH", path.as_str())];
    let o = join(
        &dev,
        &s.gw.url,
        &["--no-wire", "--code-file", code_file.to_str().unwrap()],
        &vars,
    );
    let joined = parse_json(&o);
    assert_eq!(joined["timer"]["kind"], "systemd", "{joined}{}", said(&o));
    let units = dev.home().join(".config/systemd/user");
    let service = std::fs::read_to_string(units.join("mpt-flush.service")).unwrap();
    assert!(
        service.contains("-q outbox flush --deadline 5m"),
        "{service}"
    );
    assert!(service.contains("SuccessExitStatus=6 7"), "{service}");
    let timer = std::fs::read_to_string(units.join("mpt-flush.timer")).unwrap();
    assert!(timer.contains("OnUnitActiveSec=10min"), "{timer}");
    let said_to = std::fs::read_to_string(&calls).unwrap();
    assert!(
        said_to.contains("--user enable --now mpt-flush.timer"),
        "{said_to}"
    );

    let o = dev.mpt(&["--json", "join", "--leave"], &vars);
    let left = parse_json(&o);
    assert_eq!(
        left["timer"], "mpt-flush.timer stopped and removed",
        "{left}"
    );
    assert!(!units.join("mpt-flush.timer").exists());
    assert!(!units.join("mpt-flush.service").exists());
    let said_to = std::fs::read_to_string(&calls).unwrap();
    assert!(
        said_to.contains("--user disable --now mpt-flush.timer"),
        "{said_to}"
    );
}

#[test]
fn the_code_goes_only_to_a_file_or_a_terminal() {
    let s = Setup::new(json!({"desk": {"role": "admin"}}));
    // Stdout is a pipe here: without --out the code would land in it (a log, a script).
    for args in [
        vec!["gateway", "invite", "lap", "--url", s.gw.url.as_str()],
        vec![
            "--json",
            "gateway",
            "invite",
            "lap",
            "--url",
            s.gw.url.as_str(),
        ],
    ] {
        let o = s.host_mpt(&args);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(said(&o).contains("--out"), "{}", stderr(&o));
        assert!(!stdout(&o).contains("mptj_"));
    }
    let policy = std::fs::read_to_string(s.dir.join("policy.json")).unwrap();
    assert!(
        !policy.contains("\"lap\""),
        "a refused invite changes nothing"
    );
}

/// What a command said, on stdout (its `--json` error document) and stderr.
fn said(o: &std::process::Output) -> String {
    format!("{}{}", stdout(o), stderr(o))
}

fn mode(p: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

fn write_private(p: &Path, text: &str) {
    use std::os::unix::fs::OpenOptionsExt;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(p)
        .unwrap();
    std::io::Write::write_all(&mut f, text.as_bytes()).unwrap();
}
