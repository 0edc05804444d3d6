//! `search` through the gateway, side by side in one run: `serve` directly, an unrestricted
//! device, and a device whose `wings.read` names two globs (over-fetched and filtered): the p50
//! each adds over `serve`. `BENCH_PART=search` runs this part alone (no nginx needed).

use std::path::Path;

use serde_json::json;

use super::{Side, UPSTREAM, call, gateway, latencies, loadavg, pct, post};

/// Wings seeded, drawers in each: the restricted device reads two of the wings.
const WINGS: usize = 5;
const PER_WING: usize = 40;

pub fn run(mpt: &Path, tmp: &Path, home: &Path, serve: u16, n: usize) {
    let direct = Side {
        name: "serve directly",
        port: serve,
        bearer: UPSTREAM.into(),
    };
    for w in 0..WINGS {
        for i in 0..PER_WING {
            post(
                &direct,
                &call(
                    "mempalace_add_drawer",
                    json!({"wing": format!("wing_b{w}"), "room": "notes",
                        "content": format!("bench note {i} of wing {w}: kestrels, gateways and filters, take {}", i * 7 + w)}),
                ),
            );
        }
    }
    let devices = vec![
        ("open".to_string(), json!({"role": "member"})),
        (
            "lap".to_string(),
            json!({"role": "member", "wings": {"read": ["wing_b0*", "wing_b1"]}}),
        ),
    ];
    let (_gw, port, tokens) = gateway(mpt, &tmp.join("gateway-search"), home, serve, &devices);
    let open = Side {
        name: "through mpt gateway, every wing",
        port,
        bearer: tokens[0].clone(),
    };
    let lap = Side {
        name: "through mpt gateway, wings.read (2 of 5)",
        port,
        bearer: tokens[1].clone(),
    };
    let body = call(
        "mempalace_search",
        json!({"query": "kestrels and filters", "limit": 5}),
    );
    let sides = [direct, open, lap];
    println!("load average before search: {}", loadavg());
    let lat = latencies(&sides, n, &body);
    let d50 = pct(&lat[0], 0.5);
    println!(
        "{:<44} {:>9} {:>9} {:>11}",
        format!("search limit 5, {WINGS}x{PER_WING} drawers"),
        "p50",
        "p99",
        "added p50"
    );
    let mut p50s = Vec::new();
    for (i, side) in sides.iter().enumerate() {
        let v = &lat[i];
        let (p50, p99) = (pct(v, 0.5), pct(v, 0.99));
        p50s.push(p50);
        println!(
            "{:<44} {:>6.3} ms {:>6.3} ms {:>+8.3} ms",
            format!("{} ({n} calls)", side.name),
            p50,
            p99,
            p50 - d50
        );
    }
    println!(
        "filtering adds {:+.3} ms at p50 over an unrestricted device ({:.2}x its p50; {:.2}x serve's)",
        p50s[2] - p50s[1],
        p50s[2] / p50s[1],
        p50s[2] / d50
    );
    println!("load average after search: {}", loadavg());
}
