//! The sides of the hop rounds: the child directly, the edge (hop-trace build, `--standalone`,
//! the normal build), the floor relays (two hops, one hop), the echoes.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use super::harness::{Call, Peer};
use super::{HopBed, TOOL, cpu};

/// One side of the rounds.
pub struct Side {
    pub label: &'static str,
    pub peer: Peer,
    /// An echo side: a line out and back, not an MCP call.
    pub echo: bool,
    /// Where its processes dump their stamps (`<prefix>.<pid>`), when they stamp.
    pub trace: Option<PathBuf>,
    /// Processes of the side other than the peer (the floor's back relay).
    pub helpers: Vec<Child>,
    pub calls: Vec<Call>,
    /// Its processes, found once it is warm (the owner, the child start on demand).
    pub procs: Option<cpu::Procs>,
    pub spent: cpu::Spent,
}

pub fn env_with(base: &[(String, String)], extra: &[(&str, String)]) -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> = base
        .iter()
        .filter(|(k, _)| !extra.iter().any(|(e, _)| e == k))
        .cloned()
        .collect();
    env.extend(extra.iter().map(|(k, v)| (k.to_string(), v.clone())));
    env
}

/// A private runtime folder of its own: the owner's socket is found by the palace's key in
/// `$XDG_RUNTIME_DIR/mpt` (else `/tmp/mpt-<uid>`, whatever HOME says), so without it every edge
/// side on this palace would reach one owner.
pub fn runtime_dir(bed: &HopBed, name: &str) -> String {
    let dir = bed.tmp.join(format!("run-{name}"));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::set_permissions(&dir, std::os::unix::fs::PermissionsExt::from_mode(0o700)).unwrap();
    dir.display().to_string()
}

pub fn sides(bed: &HopBed) -> Vec<Side> {
    let no_hub = ("MEMPALACE_HUB_FORWARD", "0".to_string());
    let traces = bed.tmp.join("hop-traces");
    std::fs::create_dir_all(&traces).unwrap();
    let mut out = Vec::new();
    let env = env_with(bed.env, std::slice::from_ref(&no_hub));
    out.push(Side::new(
        "child directly",
        Peer::spawn(bed.child, &["--palace", bed.palace], &env),
        None,
    ));
    out.push(edge_side(bed, &traces, Edge::Traced));
    out.push(edge_side(bed, &traces, Edge::Standalone));
    out.push(edge_side(bed, &traces, Edge::Plain));
    out.push(floor_side(bed, &traces, Floor::TwoHops));
    out.push(floor_side(bed, &traces, Floor::OneHop));
    let me = std::env::current_exe().unwrap();
    let echo_env = vec![("BENCH_RELAY".to_string(), "echo".to_string())];
    for (label, peer) in [
        ("ping-pong, pipes", Peer::spawn(&me, &[], &echo_env)),
        (
            "ping-pong, Unix socket",
            Peer::spawn_on_socket(&me, &[], &echo_env),
        ),
    ] {
        let mut side = Side::new(label, peer, None);
        side.echo = true;
        out.push(side);
    }
    out
}

impl Side {
    fn new(label: &'static str, peer: Peer, trace: Option<PathBuf>) -> Side {
        Side {
            label,
            peer,
            echo: false,
            trace,
            helpers: Vec::new(),
            calls: Vec::new(),
            procs: None,
            spent: cpu::Spent::default(),
        }
    }
}

/// Which edge a side runs.
#[derive(Clone, Copy)]
enum Edge {
    /// The hop-trace build, shim + owner.
    Traced,
    /// The hop-trace build, `--standalone`.
    Standalone,
    /// This tree's normal build (what the trace itself costs).
    Plain,
}

fn edge_side(bed: &HopBed, traces: &Path, edge: Edge) -> Side {
    let (label, mpt, standalone) = match edge {
        Edge::Traced => ("mpt edge (hop-trace build)", &bed.traced_mpt, false),
        Edge::Standalone => ("mpt edge --standalone (hop-trace)", &bed.traced_mpt, true),
        Edge::Plain => ("mpt edge (normal build)", &bed.plain_mpt, false),
    };
    // Its own HOME and runtime folder: its own owner.
    let name: String = label
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let mut extra = vec![
        ("MEMPALACE_HUB_FORWARD", "0".to_string()),
        ("HOME", (bed.home)(&format!("hops-{name}"))),
        ("XDG_RUNTIME_DIR", runtime_dir(bed, &name)),
    ];
    let trace = (!matches!(edge, Edge::Plain)).then(|| traces.join(&name));
    if let Some(t) = &trace {
        extra.push(("MPT_HOP_TRACE", t.display().to_string()));
    }
    let env = env_with(bed.env, &extra);
    let mut args = vec!["edge"];
    if standalone {
        args.push("--standalone");
    }
    args.extend(["--palace", bed.palace]);
    Side::new(label, Peer::spawn(mpt, &args, &env), trace)
}

/// Which floor relay a side runs.
#[derive(Clone, Copy)]
enum Floor {
    /// Two relays, front (the shim's place) and back (the owner's), over a Unix socket.
    TwoHops,
    /// One relay (`--standalone`'s place), the harness's pipes to the child's.
    OneHop,
}

fn floor_side(bed: &HopBed, traces: &Path, floor: Floor) -> Side {
    let me = std::env::current_exe().unwrap();
    let label = match floor {
        Floor::TwoHops => "floor relay (blocking threads)",
        Floor::OneHop => "floor relay, one hop",
    };
    let name: String = label
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let trace = traces.join(&name);
    let env = env_with(
        bed.env,
        &[
            ("MEMPALACE_HUB_FORWARD", "0".to_string()),
            ("BENCH_RELAY_TRACE", trace.display().to_string()),
        ],
    );
    let child = bed.child.display().to_string();
    if let Floor::OneHop = floor {
        let env = env_with(&env, &[("BENCH_RELAY", "single".into())]);
        let args = [child.as_str(), "--palace", bed.palace];
        return Side::new(label, Peer::spawn(&me, &args, &env), Some(trace));
    }
    // The back relay listens (and says so) before the front connects.
    let socket = bed.tmp.join(format!("{name}.sock"));
    let socket = socket.to_str().unwrap();
    let back = {
        let args = [socket, child.as_str(), "--palace", bed.palace];
        let mut c = Command::new(&me)
            .args(args)
            .env_clear()
            .envs(env.iter().map(|(k, v)| (k, v)))
            .env("BENCH_RELAY", "back")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let mut ready = String::new();
        std::io::BufRead::read_line(
            &mut std::io::BufReader::new(c.stdout.take().unwrap()),
            &mut ready,
        )
        .unwrap();
        assert_eq!(ready.trim(), "ready", "the back relay listens");
        c
    };
    let front_env = env_with(&env, &[("BENCH_RELAY", "front".into())]);
    let mut side = Side::new(label, Peer::spawn(&me, &[socket], &front_env), Some(trace));
    side.helpers.push(back);
    side
}

/// A line the size of a `kg_stats` request, for the echo sides.
const ECHO_LINE: &[u8] = b"{\"jsonrpc\":\"2.0\",\"id\":12345,\"method\":\"tools/call\",\"params\":{\"name\":\"mempalace_kg_stats\",\"arguments\":{}}}\n";

pub fn one(side: &mut Side) -> Call {
    if side.echo {
        side.peer.echo(ECHO_LINE)
    } else {
        side.peer.call(TOOL)
    }
}
