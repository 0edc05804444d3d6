//! The floor under the gateway's hop, measured beside it: the least proxy built of the gateway's
//! own parts (tokio's current-thread runtime, hyper both ways, a new upstream connection per
//! request) with nginx's bearer map and nothing else (no policy, no audit, no rate, no parse).

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

/// Starts the floor proxy on its own thread in front of `upstream`, mapping each of `tokens`
/// to `upstream_bearer`: its port (it runs until the bench ends).
pub fn start(upstream: u16, upstream_bearer: &str, tokens: &[String]) -> u16 {
    let map: HashMap<String, HeaderValue> = tokens
        .iter()
        .map(|t| {
            let v = HeaderValue::from_str(&format!("Bearer {upstream_bearer}")).unwrap();
            (format!("Bearer {t}"), v)
        })
        .collect();
    let map = Arc::new(map);
    let std_listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = std_listener.local_addr().unwrap().port();
    std_listener.set_nonblocking(true).unwrap();
    std::thread::spawn(move || {
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
    });
    port
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
