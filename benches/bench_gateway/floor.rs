//! The floors under the gateway's hop, each a process of its own beside it: the least proxy of
//! the gateway's parts (tokio current-thread, hyper both ways, a new upstream connection per
//! request) and the lean ones (`lean.rs`), nginx's bearer map and nothing else (no policy, no audit).

use std::collections::HashMap;
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::header::{self, HeaderValue};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::net::{TcpListener, TcpStream};

type Body = http_body_util::combinators::BoxBody<Bytes, hyper::Error>;

/// The floors the bench measures beside the gateway: the bare hyper proxy, then the lean ones.
pub const KINDS: &[&str] = &[
    "hyper",
    "lean-tokio-current",
    "lean-tokio-multi",
    "lean-blocking",
];

/// What each floor is called in the bench's rows.
pub fn label(kind: &str) -> &'static str {
    match kind {
        "hyper" => "floor: bare hyper proxy (floor.rs)",
        "lean-tokio-current" => "floor: lean, tokio current-thread",
        "lean-tokio-multi" => "floor: lean, tokio multi-thread",
        _ => "floor: lean, one blocking thread",
    }
}

const CHILD: &str = "BENCH_FLOOR_CHILD";

/// Starts floor `kind` as a process of its own (this bench run again, `BENCH_FLOOR_CHILD`) in
/// front of `upstream`, mapping each of `tokens` to `upstream_bearer`: it and its port.
pub fn spawn(
    kind: &str,
    upstream: u16,
    upstream_bearer: &str,
    tokens: &[String],
) -> (crate::Stopped, u16) {
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .env(CHILD, kind)
        .env("BENCH_FLOOR_UPSTREAM", upstream.to_string())
        .env("BENCH_FLOOR_UPSTREAM_BEARER", upstream_bearer)
        .env("BENCH_FLOOR_TOKENS", tokens.join(","))
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(child.stdout.take().unwrap()),
        &mut line,
    )
    .unwrap();
    let port = line.trim().parse().expect("the floor printed its port");
    (crate::Stopped(child), port)
}

/// In a floor's own process (`spawn`): serves until killed. Returns at once anywhere else.
pub fn child_main() {
    let Ok(kind) = std::env::var(CHILD) else {
        return;
    };
    let var = |k: &str| std::env::var(k).unwrap();
    let upstream: u16 = var("BENCH_FLOOR_UPSTREAM").parse().unwrap();
    let upstream_bearer = var("BENCH_FLOOR_UPSTREAM_BEARER");
    let tokens: Vec<String> = var("BENCH_FLOOR_TOKENS")
        .split(',')
        .map(str::to_string)
        .collect();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    println!("{}", listener.local_addr().unwrap().port());
    match super::lean::Flavor::of(&kind) {
        Some(flavor) => {
            let map = super::lean::Map {
                upstream,
                upstream_auth: format!("Bearer {upstream_bearer}"),
                bearers: tokens.iter().map(|t| format!("Bearer {t}")).collect(),
            };
            super::lean::serve(listener, flavor, map);
        }
        None => hyper_floor(listener, upstream, &upstream_bearer, &tokens),
    }
    std::process::exit(0);
}

/// The bare hyper proxy on `std_listener` in front of `upstream`, on tokio's current-thread
/// runtime (the gateway's), until the process ends.
fn hyper_floor(
    std_listener: std::net::TcpListener,
    upstream: u16,
    upstream_bearer: &str,
    tokens: &[String],
) {
    let map: HashMap<String, HeaderValue> = tokens
        .iter()
        .map(|t| {
            let v = HeaderValue::from_str(&format!("Bearer {upstream_bearer}")).unwrap();
            (format!("Bearer {t}"), v)
        })
        .collect();
    let map = Arc::new(map);
    std_listener.set_nonblocking(true).unwrap();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async move {
        let listener = TcpListener::from_std(std_listener).unwrap();
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                continue;
            };
            let _ = stream.set_nodelay(true);
            let map = Arc::clone(&map);
            tokio::spawn(async move {
                let service = hyper::service::service_fn(move |req| {
                    let map = Arc::clone(&map);
                    async move { Ok::<_, hyper::Error>(proxy(req, &map, upstream).await) }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .keep_alive(false)
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
}

async fn proxy(
    req: Request<Incoming>,
    map: &HashMap<String, HeaderValue>,
    up: u16,
) -> Response<Body> {
    let status = |s: StatusCode| {
        let mut r = Response::new(Full::new(Bytes::new()).map_err(|e| match e {}).boxed());
        *r.status_mut() = s;
        r
    };
    let Some(bearer) = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| map.get(v))
        .cloned()
    else {
        return status(StatusCode::UNAUTHORIZED);
    };
    let (mut parts, body) = req.into_parts();
    let Ok(body) = body.collect().await.map(|c| c.to_bytes()) else {
        return status(StatusCode::BAD_REQUEST);
    };
    parts.headers.insert(header::AUTHORIZATION, bearer);
    parts.headers.insert(
        header::HOST,
        HeaderValue::from_str(&format!("127.0.0.1:{up}")).unwrap(),
    );
    parts
        .headers
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    parts.headers.remove(header::ORIGIN);
    let Ok(tcp) = TcpStream::connect(("127.0.0.1", up)).await else {
        return status(StatusCode::BAD_GATEWAY);
    };
    let _ = tcp.set_nodelay(true);
    let Ok((mut sender, conn)) = hyper::client::conn::http1::handshake(TokioIo::new(tcp)).await
    else {
        return status(StatusCode::BAD_GATEWAY);
    };
    tokio::spawn(conn);
    match sender
        .send_request(Request::from_parts(parts, Full::new(body)))
        .await
    {
        Ok(resp) => resp.map(|b| b.boxed()),
        Err(_) => status(StatusCode::BAD_GATEWAY),
    }
}
