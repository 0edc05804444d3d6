// A harness as pi and opencode are one: Node's single event loop (libuv on epoll), each MCP server a
// child process on pipes, newline-framed JSON-RPC. bench_edge's BENCH_NODE mode runs it.
//
// argv[2]: a JSON file {sides: [{label, program, args, env}], n, rounds, warm}. Every side is
// spawned and handshaken, then the rounds interleave them (n serial `kg_stats` calls a side, the
// order rotated each round), each call timed from just before its write to its reply's parse with
// process.hrtime. Prints {label: [microseconds, ...]} on stdout; exits non-zero on a bad reply.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";

const cfg = JSON.parse(readFileSync(process.argv[2], "utf8"));

function peer(side) {
  const child = spawn(side.program, side.args, { env: side.env, stdio: ["pipe", "pipe", "ignore"] });
  const waiting = new Map();
  let buf = "";
  let nextId = 1;
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk) => {
    buf += chunk;
    let nl;
    while ((nl = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      const msg = JSON.parse(line);
      const done = waiting.get(msg.id);
      if (done) {
        waiting.delete(msg.id);
        done(msg);
      }
    }
  });
  const request = (method, params) =>
    new Promise((resolve) => {
      const id = nextId++;
      waiting.set(id, resolve);
      child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
    });
  return { side, child, request, times: [] };
}

// A good JSON-RPC result can still carry the palace's own failure in its payload: both refused.
function check(p, reply) {
  const r = reply.result;
  let payload = null;
  try {
    payload = JSON.parse(r?.content?.[0]?.text ?? "null");
  } catch {}
  const failed = !payload || typeof payload !== "object" || payload.success === false || "error" in payload;
  if (!r || r.isError || failed) {
    console.error(`${p.side.label}: not a good result: ${JSON.stringify(reply)}`);
    process.exit(1);
  }
}

async function call(p) {
  const t0 = process.hrtime.bigint();
  const reply = await p.request("tools/call", { name: "mempalace_kg_stats", arguments: {} });
  const t1 = process.hrtime.bigint();
  check(p, reply);
  return Number(t1 - t0) / 1000;
}

const peers = cfg.sides.map(peer);
for (const p of peers) {
  const init = await p.request("initialize", {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "bench_edge-node", version: "0" },
  });
  if (!init.result) {
    console.error(`${p.side.label}: initialize: ${JSON.stringify(init)}`);
    process.exit(1);
  }
  p.child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
  for (let i = 0; i < cfg.warm; i++) await call(p);
}
for (let r = 0; r < cfg.rounds; r++) {
  for (let i = 0; i < peers.length; i++) {
    const p = peers[(i + r) % peers.length];
    for (let k = 0; k < cfg.n; k++) p.times.push(await call(p));
  }
}
const out = {};
for (const p of peers) {
  out[p.side.label] = p.times;
  p.child.stdin.end();
}
await Promise.all(peers.map((p) => new Promise((res) => p.child.on("exit", res))));
process.stdout.write(JSON.stringify(out) + "\n");
