use super::*;

fn modern(extra: Value) -> Value {
    let mut p = json!({"_meta": {VERSION_KEY: "2026-07-28", CAPABILITIES_KEY: {}, CLIENT_INFO_KEY: {"name": "t", "version": "1"}}});
    if let (Some(p), Some(e)) = (p.as_object_mut(), extra.as_object()) {
        for (k, v) in e {
            p.insert(k.clone(), v.clone());
        }
    }
    p
}

#[test]
fn the_version_key_alone_makes_a_request_modern_and_initialize_never_is() {
    assert!(is_modern("tools/list", Some(&modern(json!({})))));
    assert!(!is_modern("initialize", Some(&modern(json!({})))));
    assert!(!is_modern(
        "tools/list",
        Some(&json!({"_meta": {"progressToken": 1}}))
    ));
    assert!(!is_modern("tools/list", None));
}

#[test]
fn the_envelope_ladder_answers_as_the_sdk_does() {
    assert_eq!(
        envelope(Some(&modern(json!({})))).unwrap().version,
        "2026-07-28"
    );
    let half = json!({"_meta": {VERSION_KEY: "2026-07-28"}});
    assert_eq!(envelope(Some(&half)).unwrap_err().code, -32602);
    let old = json!({"_meta": {VERSION_KEY: "2025-11-25", CAPABILITIES_KEY: {}}});
    let e = envelope(Some(&old)).unwrap_err();
    assert_eq!(e.code, UNSUPPORTED_VERSION);
    assert_eq!(e.data.unwrap()["supported"], json!(["2026-07-28"]));
    let num = json!({"_meta": {VERSION_KEY: 7, CAPABILITIES_KEY: {}}});
    assert_eq!(envelope(Some(&num)).unwrap_err().code, -32602);
}

#[test]
fn each_routing_header_must_say_what_the_body_says() {
    let p = modern(json!({"name": "mempalace_search", "arguments": {"query": "x"}}));
    let good = [
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", "mempalace_search"),
    ];
    assert!(check_http("tools/call", Some(&p), &good).is_ok());
    let wrong_name = [good[0], good[1], ("mcp-name", "mempalace_add_drawer")];
    assert_eq!(
        check_http("tools/call", Some(&p), &wrong_name)
            .unwrap_err()
            .code,
        HEADER_MISMATCH
    );
    let no_name = [good[0], good[1]];
    assert_eq!(
        check_http("tools/call", Some(&p), &no_name)
            .unwrap_err()
            .code,
        HEADER_MISMATCH
    );
    let wrong_method = [good[0], ("mcp-method", "tools/list"), good[2]];
    assert_eq!(
        check_http("tools/call", Some(&p), &wrong_method)
            .unwrap_err()
            .code,
        HEADER_MISMATCH
    );
    let twice = [good[0], good[1], good[2], ("mcp-method", "tools/call")];
    assert_eq!(
        check_http("tools/call", Some(&p), &twice).unwrap_err().code,
        HEADER_MISMATCH
    );
    let param = [good[0], good[1], good[2], ("Mcp-Param-Wing", "wing_a")];
    assert_eq!(
        check_http("tools/call", Some(&p), &param).unwrap_err().code,
        HEADER_MISMATCH
    );
    let encoded = [
        good[0],
        good[1],
        ("mcp-name", "=?base64?bWVtcGFsYWNlX3NlYXJjaA==?="),
    ];
    assert!(check_http("tools/call", Some(&p), &encoded).is_ok());
    // A header that disagrees is told so before the version is judged.
    let later = modern(json!({"name": "x"}));
    let mut later = later;
    later["_meta"][VERSION_KEY] = json!("2027-01-01");
    let h = [
        ("mcp-protocol-version", "2027-01-01"),
        ("mcp-method", "tools/call"),
        ("mcp-name", "y"),
    ];
    assert_eq!(
        check_http("tools/call", Some(&later), &h).unwrap_err().code,
        HEADER_MISMATCH
    );
    let h = [
        ("mcp-protocol-version", "2027-01-01"),
        ("mcp-method", "tools/call"),
        ("mcp-name", "x"),
    ];
    assert_eq!(
        check_http("tools/call", Some(&later), &h).unwrap_err().code,
        UNSUPPORTED_VERSION
    );
}

#[test]
fn a_malformed_or_uncanonical_sentinel_matches_nothing() {
    assert_eq!(decode_header_value("plain").as_deref(), Some("plain"));
    assert_eq!(decode_header_value("=?base64?wing?=").as_deref(), None);
    assert_eq!(decode_header_value("=?base64?d2luZ1/=?=").as_deref(), None);
    assert_eq!(
        decode_header_value("=?base64?d2luZ19h?=").as_deref(),
        Some("wing_a")
    );
}

#[test]
fn a_handshake_server_sees_no_reserved_key() {
    let mut p = modern(json!({"cursor": "c"}));
    to_handshake(&mut p);
    assert_eq!(p, json!({"cursor": "c"}));
    let mut p = modern(json!({}));
    p["_meta"]["progressToken"] = json!(3);
    to_handshake(&mut p);
    assert_eq!(p, json!({"_meta": {"progressToken": 3}}));
}

#[test]
fn results_are_shaped_for_the_modern_client() {
    let mut r = json!({"tools": []});
    shape(
        "tools/list",
        &mut r,
        Scope::Private,
        Some(&json!({"name": "mempalace", "version": "3.11.0"})),
    );
    assert_eq!(r["resultType"], "complete");
    assert_eq!(r["cacheScope"], "private");
    assert_eq!(r["ttlMs"], LIST_TTL_MS);
    assert_eq!(r["_meta"][SERVER_INFO_KEY]["name"], "mempalace");
    let mut c = json!({"content": [], "isError": true});
    shape("tools/call", &mut c, Scope::Public, None);
    assert_eq!(
        c,
        json!({"content": [], "isError": true, "resultType": "complete"})
    );
    let d = discover(
        &json!({"capabilities": {"tools": {}}, "serverInfo": {"name": "m", "version": "1"}}),
        Scope::Public,
    );
    assert_eq!(d["supportedVersions"], json!(["2026-07-28"]));
    assert_eq!(d["capabilities"], json!({"tools": {}}));
    assert_eq!(d["cacheScope"], "public");
}

#[test]
fn only_a_server_refusing_the_handshake_era_moves_mpts_client_to_the_modern_one() {
    let only_modern = json!({"supported": ["2026-07-28"], "requested": "2025-11-25"});
    assert_eq!(
        handshake_refused(UNSUPPORTED_VERSION, Some(&only_modern)),
        Some("2026-07-28")
    );
    let both = json!({"supported": ["2025-11-25", "2026-07-28"]});
    assert_eq!(handshake_refused(UNSUPPORTED_VERSION, Some(&both)), None);
    let other = json!({"supported": ["2027-01-01"]});
    assert_eq!(handshake_refused(UNSUPPORTED_VERSION, Some(&other)), None);
    assert_eq!(handshake_refused(-32601, Some(&only_modern)), None);
}

#[test]
fn mpts_modern_requests_carry_what_the_sdk_checks() {
    let p = with_envelope(
        Some(json!({"name": "mempalace_search", "arguments": {}})),
        "2026-07-28",
    );
    assert_eq!(envelope(Some(&p)).unwrap().version, "2026-07-28");
    let mut lines = routing_headers("tools/call", &p);
    lines.push((PROTOCOL_HEADER, "2026-07-28".into()));
    let lines: Vec<(&str, &str)> = lines.iter().map(|(n, v)| (*n, v.as_str())).collect();
    assert!(check_http("tools/call", Some(&p), &lines).is_ok());
    for v in ["wing_a", " edge", "caf\u{e9}", "=?base64?x?="] {
        assert_eq!(
            decode_header_value(&encode_header_value(v)).as_deref(),
            Some(v)
        );
    }
    let init = init_of_discover(
        &json!({"capabilities": {"tools": {}}, "_meta": {SERVER_INFO_KEY: {"name": "m"}}}),
        "2026-07-28",
    );
    assert_eq!(init["serverInfo"]["name"], "m");
    assert_eq!(init["protocolVersion"], "2026-07-28");
}
