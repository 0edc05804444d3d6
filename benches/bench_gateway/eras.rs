//! `BENCH_PART=eras`: what the 2026-07-28 era costs through the gateway beside the handshake era,
//! in the same run: `kg_stats` sent in each era (the modern one checked, translated for `serve`
//! and its reply shaped back), interleaved in blocks, with `serve` directly as the floor.

use serde_json::json;

use crate::common::{loadavg, pct};

/// `POST /mcp` for `kg_stats` to `port` with `bearer`, in the modern era or not.
fn kg_stats(port: u16, bearer: &str, modern: bool) -> Vec<u8> {
    let mut params = json!({"name": "mempalace_kg_stats", "arguments": {}});
    let mut extra = "";
    if modern {
        params["_meta"] = json!({
            mpt_mcp::era::VERSION_KEY: "2026-07-28",
            mpt_mcp::era::CAPABILITIES_KEY: {},
        });
        extra = "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: mempalace_kg_stats\r\n";
    }
    let body =
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}).to_string();
    crate::request(port, bearer, extra, &body).into_bytes()
}

pub fn run(gateway: u16, token: &str, serve: u16, upstream_token: &str, n: usize) {
    let sides = [
        (
            "serve directly",
            serve,
            kg_stats(serve, upstream_token, false),
        ),
        (
            "through mpt gateway, handshake era",
            gateway,
            kg_stats(gateway, token, false),
        ),
        (
            "through mpt gateway, 2026-07-28",
            gateway,
            kg_stats(gateway, token, true),
        ),
    ];
    for (_, port, raw) in &sides {
        for _ in 0..50 {
            crate::send(*port, raw, "warm-up");
        }
    }
    let mut ms = vec![Vec::with_capacity(n); sides.len()];
    let block = 100;
    for b in 0..n.div_ceil(block) {
        for k in 0..sides.len() {
            let i = (b + k) % sides.len();
            for _ in 0..block {
                ms[i].push(crate::send(sides[i].1, &sides[i].2, sides[i].0).as_secs_f64() * 1e3);
            }
        }
    }
    println!("load average: {}", loadavg());
    println!(
        "{:<44} {:>9} {:>9}",
        "kg_stats, a new connection per request", "p50", "p99"
    );
    for ((name, _, _), v) in sides.iter().zip(&ms) {
        println!(
            "{name:<44} {:>6.3} ms {:>6.3} ms",
            pct(v, 0.5),
            pct(v, 0.99)
        );
    }
    let floor = pct(&ms[0], 0.5);
    let (legacy, modern) = (pct(&ms[1], 0.5) - floor, pct(&ms[2], 0.5) - floor);
    println!(
        "the modern era adds {modern:+.3} ms at p50 through the gateway, the handshake era {legacy:+.3} ms: {:.2}x",
        modern / legacy
    );
}
